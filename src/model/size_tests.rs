/// A cluster holds one `Arc<Pod>` per pod (a million at 65k nodes), and mimalloc's bins
/// from 128 bytes are 128, 160, 192, 224, 256: a field added to `Pod` costs 32 bytes per
/// pod (3.2 MB at 100,000 pods); put it in [`super::PodRare`] if few pods have it, share
/// it as `requests` and `tolerations` are, or shrink another (heaptrack first). 192 before
/// the key's `EcoString`s, the creation time as a number and the one-pointer node name.
#[test]
fn an_arc_pod_fits_the_160_byte_bin() {
    let arc = std::mem::size_of::<super::Pod>() + 2 * std::mem::size_of::<usize>();
    assert!(arc <= 160, "Arc<Pod> is {arc} bytes");
}

/// A loader holds an origin and a read object per pod until the cluster is built (100,000
/// at 5k nodes): 32 bytes (48 with the file name an `Arc<str>` and the class a
/// `Box<str>`).
#[test]
fn a_read_pod_with_its_origin_is_32_bytes() {
    assert!(std::mem::size_of::<(super::Origin, super::ReadObject)>() <= 32);
}

/// Creation times compare as the instants they are: a fraction of a second after a
/// whole one is later (as text it sorted before), and times outside 1677-2262, held as
/// the nearest end, still compare and read exactly.
#[test]
fn creation_times_compare_as_instants() {
    let at = |t: &str| {
        let obj: super::core::Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p", "namespace": "a", "creationTimestamp": t}
        }))
        .expect("pod");
        super::Pod::from_obj(obj, |_| 0).expect("model")
    };
    let none = pod(serde_json::json!({}));
    let (whole, half) = (at("2024-05-01T10:00:00Z"), at("2024-05-01T10:00:00.5Z"));
    assert_eq!(whole.cmp_creation(&half), std::cmp::Ordering::Less);
    assert_eq!(
        half.creation().map(|t| t.to_string()).as_deref(),
        Some("2024-05-01T10:00:00.5Z")
    );
    let (y1500, y1600, y9000) = (
        at("1500-01-01T00:00:00Z"),
        at("1600-06-01T00:00:00Z"),
        at("9000-01-01T00:00:00Z"),
    );
    assert_eq!(y1500.cmp_creation(&y1600), std::cmp::Ordering::Less);
    assert_eq!(y1600.cmp_creation(&y1500), std::cmp::Ordering::Greater);
    assert_eq!(y1600.cmp_creation(&whole), std::cmp::Ordering::Less);
    assert_eq!(y9000.cmp_creation(&whole), std::cmp::Ordering::Greater);
    assert_eq!(none.cmp_creation(&y1500), std::cmp::Ordering::Less);
    assert_eq!(none.creation(), None);
    assert_eq!(
        y1500.creation().map(|t| t.to_string()).as_deref(),
        Some("1500-01-01T00:00:00Z")
    );
    assert_eq!(
        y9000.creation().map(|t| t.to_string()).as_deref(),
        Some("9000-01-01T00:00:00Z")
    );
}

/// A pod's key holds a short namespace and name inline; a long name (more than 15 bytes)
/// on the heap, the same text either way.
#[test]
fn short_keys_allocate_nothing() {
    let short = pod(serde_json::json!({})).key;
    assert_eq!((short.namespace.as_str(), short.name.as_str()), ("a", "p"));
    assert!(short.namespace.is_inline() && short.name.is_inline());
    let long = super::ObjectKey::new("kube-system", "payments-api-7d9f8c6b5d-x2k4q");
    assert!(long.namespace.is_inline() && !long.name.is_inline());
    assert_eq!(long.to_string(), "kube-system/payments-api-7d9f8c6b5d-x2k4q");
}

fn pod(spec: serde_json::Value) -> super::Pod {
    pod_in(spec, &mut super::Interner::default())
}

/// A pod read by the loader that holds `intern`.
fn pod_in(spec: serde_json::Value, intern: &mut super::Interner) -> super::Pod {
    let obj: super::core::Pod =
        serde_json::from_value(serde_json::json!({"metadata": {"name": "p", "namespace": "a"}, "spec": spec}))
            .expect("pod");
    let read = super::Pod::read(Box::new(obj), None, None, intern).expect("model");
    std::sync::Arc::unwrap_or_clone(read.resolve(|_| 0))
}

#[test]
fn nodes_read_by_one_loader_share_equal_image_name_lists() {
    let mut intern = super::Interner::default();
    let mut node = |name: &str| {
        let obj: super::core::Node = serde_json::from_value(serde_json::json!({
            "metadata": {"name": name},
            "status": {"images": [
                {"names": ["reg/a:1", "reg/a@sha256:0f"], "sizeBytes": 5},
                {"names": ["reg/b:2"], "sizeBytes": 7},
                {"sizeBytes": 9}]}
        }))
        .expect("node");
        super::Node::read(obj, None, None, &mut intern).expect("model")
    };
    let (x, y) = (node("x"), node("y"));
    assert!(x.images[0].0.shares(&y.images[0].0) && x.images[1].0.shares(&y.images[1].0));
    assert!(!x.images[0].0.shares(&x.images[1].0) && x.images[2].0.is_empty());
    assert_eq!(
        ["reg/a@sha256:0f", "reg/b:2", "reg/c:3"].map(|n| y.image_size(n)),
        [Some(5), Some(7), None]
    );
}

#[test]
fn pods_read_by_one_loader_on_one_node_share_its_name() {
    let mut intern = super::Interner::default();
    let mut on = |node: &str| {
        pod_in(
            serde_json::json!({"containers": [{"name": "c"}], "nodeName": node}),
            &mut intern,
        )
    };
    let (a, b, c) = (on("node-1"), on("node-1"), on("node-2"));
    let name = |p: &super::Pod| p.node_name.clone().expect("bound");
    assert!(name(&a).shares(&name(&b)) && !name(&a).shares(&name(&c)));
    assert_eq!((&*name(&b), &*name(&c), on("").node_name), ("node-1", "node-2", None));
}

#[test]
fn pods_read_by_one_loader_with_equal_tolerations_share_one_list() {
    let mut intern = super::Interner::default();
    let tolerating = |key: &str| {
        serde_json::json!({"containers": [{"name": "c"}], "tolerations": [
                {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "gpu", "operator": "Equal", "value": "a100"}]})
    };
    let (a, b, c) = (
        pod_in(tolerating("not-ready"), &mut intern),
        pod_in(tolerating("not-ready"), &mut intern),
        pod_in(tolerating("unreachable"), &mut intern),
    );
    assert!(a.tolerations.shares(&b.tolerations) && !a.tolerations.shares(&c.tolerations));
    let t = &c.tolerations[0];
    assert_eq!(
        (t.key.as_str(), t.operator.as_str(), t.value.as_str(), t.effect.as_str()),
        ("unreachable", "Exists", "", "NoExecute")
    );
    assert_eq!((c.tolerations.len(), c.tolerations[1].value.as_str()), (2, "a100"));
    assert!(
        pod(serde_json::json!({"containers": [{"name": "c"}]}))
            .tolerations
            .is_empty()
    );
}

#[test]
fn pods_read_by_one_loader_with_equal_affinities_share_one() {
    let mut intern = super::Interner::default();
    let anti = |app: &str| {
        serde_json::json!({"containers": [{"name": "c"}], "affinity": {"podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}}})
    };
    let (a, b, c) = (
        pod_in(anti("web"), &mut intern),
        pod_in(anti("web"), &mut intern),
        pod_in(anti("db"), &mut intern),
    );
    let (a, b, c) = (a.affinity.unwrap(), b.affinity.unwrap(), c.affinity.unwrap());
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    assert!(!std::sync::Arc::ptr_eq(&a, &c));
    let term = |x: &super::core::Affinity| {
        let t = &x
            .pod_anti_affinity
            .as_ref()
            .unwrap()
            .required_during_scheduling_ignored_during_execution
            .as_ref()
            .unwrap()[0];
        t.label_selector.as_ref().unwrap().match_labels.as_ref().unwrap()["app"].clone()
    };
    assert_eq!((term(&a), term(&c)), ("web".to_string(), "db".to_string()));
    assert!(
        pod(serde_json::json!({"containers": [{"name": "c"}]}))
            .affinity
            .is_none()
    );
}

#[test]
fn a_pod_without_a_uid_has_its_key_for_one_without_formatting_it() {
    let named = |ns: &str, name: &str, uid: Option<&str>| {
        let obj: super::core::Pod = serde_json::from_value(serde_json::json!({
                "metadata": {"name": name, "namespace": ns, "uid": uid}, "spec": {"containers": []}}))
        .expect("pod");
        super::Pod::from_obj(obj, |_| 0).expect("model")
    };
    let (a, b, bare) = (named("a", "p", None), named("b", "p", None), named("", "p", None));
    assert!(a.has_uid("a/p") && !a.has_uid("b/p") && !a.has_uid("p") && !a.has_uid("a/q"));
    assert!(bare.has_uid("p") && !bare.has_uid("/p") && !bare.has_uid("a/p"));
    assert!(a.same_uid(&a.clone()) && !a.same_uid(&b) && !a.same_uid(&bare));
    // A pod whose uid is another's key is that pod for the uid's sake, as before.
    let u = named("c", "q", Some("a/p"));
    assert!(u.same_uid(&a) && a.same_uid(&u) && u.has_uid("a/p") && !u.has_uid("c/q"));
}

#[test]
fn usual_scheduler_names_and_phases_are_numbers_others_are_kept() {
    let with = |scheduler: Option<&str>, phase: Option<&str>| {
        let obj: super::core::Pod = serde_json::from_value(serde_json::json!({
                "metadata": {"name": "p", "namespace": "a"},
                "spec": {"containers": [], "schedulerName": scheduler},
                "status": {"phase": phase}}))
        .expect("pod");
        super::Pod::from_obj(obj, |_| 0).expect("model")
    };
    let usual = with(None, Some("Running"));
    assert_eq!(
        (usual.scheduler_name(), usual.phase()),
        ("default-scheduler", "Running")
    );
    assert!(usual.rare.is_none());
    let none = with(Some("default-scheduler"), None);
    assert_eq!(
        (none.scheduler_name(), none.phase(), none.rare.is_none()),
        ("default-scheduler", "", true)
    );
    let other = with(Some("gpu-scheduler"), Some("Evicted"));
    assert_eq!((other.scheduler_name(), other.phase()), ("gpu-scheduler", "Evicted"));
    let finished = with(None, Some("Succeeded"));
    assert!(finished.is_finished() && !usual.is_finished());
}

#[test]
fn the_first_bad_pod_in_input_order_is_the_error_and_a_bad_node_comes_first() {
    use super::{Cluster, Object, Origin};
    let at = |doc: usize| Origin {
        file: "f.yaml".into(),
        doc,
    };
    let bad_pod = |name: &str| {
        let p: super::core::Pod = serde_json::from_value(serde_json::json!({
                "metadata": {"name": name, "namespace": "a"},
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]}}))
        .expect("pod");
        Object::Pod(Box::new(p))
    };
    let good_pod = || {
        let p: super::core::Pod = serde_json::from_value(
            serde_json::json!({"metadata": {"name": "ok", "namespace": "a"}, "spec": {"containers": []}}),
        )
        .expect("pod");
        Object::Pod(Box::new(p))
    };
    // given out of input order: the error is still the one at document 1
    let Err(e) = Cluster::build(vec![
        (at(3), bad_pod("late")),
        (at(2), good_pod()),
        (at(1), bad_pod("early")),
    ]) else {
        panic!("an error")
    };
    assert_eq!(
        (e.key.name.as_str(), e.origin.doc, e.field.as_str()),
        ("early", 1, "spec.containers[0].resources.requests.cpu")
    );
    let bad_node: super::core::Node = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "lots"}}}))
    .expect("node");
    let Err(e) = Cluster::build(vec![
        (at(0), bad_pod("first")),
        (at(1), Object::Node(Box::new(bad_node))),
    ]) else {
        panic!("an error")
    };
    assert_eq!((e.kind.as_str(), e.key.name.as_str()), ("Node", "n"));
}

#[test]
fn only_a_pod_with_a_rare_fact_holds_the_rare_box() {
    let mut intern = super::Interner::default();
    let plain = pod_in(
        serde_json::json!({"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}),
        &mut intern,
    );
    assert!(plain.rare.is_none());
    assert!(plain.host_ports().is_empty() && plain.pvc_claims().is_empty());
    assert_eq!(
        (plain.nominated_node_name(), plain.requests_pod_level().is_none()),
        (None, true)
    );
    let ports = pod_in(
        serde_json::json!({
            "containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080}]}],
            "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]
        }),
        &mut intern,
    );
    assert_eq!(ports.host_ports().iter().map(|h| h.port).collect::<Vec<_>>(), [8080]);
    assert_eq!(ports.pvc_claims(), ["data"]);
    // Nominating a plain pod gives it the box; clearing the nomination takes it away.
    let mut p = plain.clone();
    p.set_nominated_node_name(Some("n1".into()));
    assert_eq!(p.nominated_node_name(), Some("n1"));
    p.set_nominated_node_name(None);
    assert!(p.rare.is_none());
    // Pods that request the same share one copy of the requests; others have their own.
    let same = pod_in(
        serde_json::json!({"containers": [{"name": "d", "resources": {"requests": {"cpu": "1"}}}]}),
        &mut intern,
    );
    assert!(std::sync::Arc::ptr_eq(&plain.requests, &same.requests));
    assert!(!std::sync::Arc::ptr_eq(&plain.requests, &ports.requests));
    assert_eq!(
        (plain.requests.resource.milli_cpu, ports.requests.resource.milli_cpu),
        (1000, 0)
    );
    // ... but not the other facts of a pod that has them.
    let mut q = ports.clone();
    q.set_nominated_node_name(Some("n1".into()));
    q.set_nominated_node_name(None);
    assert_eq!(q.pvc_claims(), ["data"]);
}
