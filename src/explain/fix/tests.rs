use super::apply::replace_pod;
use super::*;

fn demo() -> (Cluster, Features, Vec<Framework>) {
    let c = crate::source::file::load_str("demo.yaml", include_str!("../../../fixtures/demo.yaml")).expect("demo");
    let f = Features::new(crate::engine::Release::NEWEST);
    let p = engine::build_profiles(None, &f).expect("profiles");
    (c, f, p)
}

fn fixes_of(ns: &str, name: &str) -> Vec<Verified> {
    let (c, f, p) = demo();
    let key = ObjectKey::new(ns, name);
    let snap = Snapshot::new(Arc::new(c.clone()), &f);
    let ex = engine::explain(&snap, &p, &key).expect("explains");
    let usage = analysis::node_usage(&c, &f);
    verify(&c, &p, &f, None, &key, candidates(&c, &usage, &f, &p, &ex))
}

fn texts(v: &[Verified]) -> Vec<String> {
    v.iter().map(Verified::line).collect()
}

#[test]
fn gates_fix_removes_them_and_the_pod_then_binds() {
    let v = fixes_of("shop", "checkout-canary");
    assert_eq!(
        texts(&v),
        [
            "remove gate acme.io/canary-approval → would bind (3 nodes tie: pool-general-a1, pool-general-a2, pool-general-c1) ✓"
        ]
    );
    assert_eq!(
        v[0].fix.command.as_deref(),
        Some(
            r#"kubectl patch pod checkout-canary -n shop --type=json -p '[{"op":"remove","path":"/spec/schedulingGates"}]'"#
        )
    );
    assert_eq!(
        v[0].fix.reason,
        "Scheduling is blocked due to non-empty scheduling gates"
    );
}

#[test]
fn taints_and_resources_each_get_a_checked_fix_smallest_change_first() {
    let v = fixes_of("batch", "report-huge");
    assert_eq!(
        texts(&v),
        [
            "lower cpu to ≤ 6800m, memory to ≤ 29498Mi to fit pool-general-a1 → would bind to pool-general-a1 ✓",
            "a node like pool-general-a1 with 5200m more cpu and 19654Mi more memory would fit → would bind to pool-general-a1 ✓",
            "tolerate dra=present:NoSchedule (pool-dra-a1, pool-dra-b1) → would bind to pool-dra-b1 ✓",
        ]
    );
    assert_eq!(
        v[2].fix.command.as_deref(),
        Some(
            r#"kubectl patch pod report-huge -n batch --type=json -p '[{"op":"add","path":"/spec/tolerations","value":[{"key":"dra","operator":"Equal","value":"present","effect":"NoSchedule"}]}]'"#
        )
    );
    assert_eq!(v[0].fix.reason, "Insufficient cpu, Insufficient memory");
    // requests cannot change on a pod: no command for a bare pod, and the note says so
    assert_eq!(v[0].fix.command, None);
    assert_eq!(
        v[0].fix.note.as_deref(),
        Some("requests cannot change on an existing pod: recreate the pod with it")
    );
    // the lowered requests are exactly the shortfall: one millicore more no longer fits
    let (c, f, p) = demo();
    let key = ObjectKey::new("batch", "report-huge");
    let Change::LowerRequests(_, to) = &v[0].fix.change else {
        panic!("{:?}", v[0].fix.change)
    };
    let tighter = Change::LowerRequests(
        "pool-general-a1".into(),
        to.iter()
            .map(|(r, v, by)| {
                if r == "cpu" {
                    (r.clone(), v + 1, by - 1)
                } else {
                    (r.clone(), *v, *by)
                }
            })
            .collect(),
    );
    let fix = Fix {
        change: tighter,
        ..v[0].fix.clone()
    };
    let out = verify(&c, &p, &f, None, &key, vec![fix]);
    assert!(matches!(&out[0].outcome, Outcome::NotEnough(_)), "{:?}", out[0].outcome);
}

#[test]
fn a_change_that_does_not_help_says_not_enough_with_the_new_verdict() {
    let (c, f, p) = demo();
    let key = ObjectKey::new("batch", "report-huge");
    let fix = Fix {
        reason: String::new(),
        text: "uncordon pool-general-c3".into(),
        change: Change::Uncordon("pool-general-c3".into()),
        command: None,
        note: None,
    };
    let out = verify(&c, &p, &f, None, &key, vec![fix]);
    let Outcome::NotEnough(v) = &out[0].outcome else {
        panic!("{:?}", out[0].outcome)
    };
    assert!(v.starts_with("Unschedulable: 0/14 nodes are available:"), "{v}");
    assert!(!out[0].works());
    let bad = Fix {
        reason: String::new(),
        text: "uncordon nosuch".into(),
        change: Change::Uncordon("nosuch".into()),
        command: None,
        note: None,
    };
    let out = verify(&c, &p, &f, None, &key, vec![bad]);
    assert_eq!(
        out[0].line(),
        "uncordon nosuch → could not check: node 'nosuch' is not in the snapshot"
    );
    let skew = Change::MaxSkew(5, "zone".into(), 2);
    assert_eq!(
        apply(&c, &key, &skew).expect_err("no such constraint"),
        "pod batch/report-huge: spec.topologySpreadConstraints[5] is not on zone"
    );
}

#[test]
fn node_affinity_fix_labels_only_what_a_label_can_change() {
    // a zone label says where the node is: the fix is a node there, with no command
    let v = fixes_of("shop", "cache-eu-north");
    assert_eq!(
        texts(&v),
        [
            "a node like pool-general-a1 with topology.kubernetes.io/zone=europe-north1-a would fit → would bind to pool-general-a1 ✓"
        ]
    );
    assert_eq!(v[0].fix.command, None);
    // a pod pinned to one node by hostname gets no "relabel another node", only the resources
    let v = fixes_of("shop", "ledger-audit");
    assert_eq!(
        texts(&v),
        [
            "lower cpu to ≤ 1800m to fit pool-general-c1 → would bind to pool-general-c1 ✓",
            "a node like pool-general-c1 with 200m more cpu would fit → would bind to pool-general-c1 ✓",
        ]
    );
}

/// A fresh node of the pool: the node's object under a new name and hostname, its
/// DaemonSet pods (kube-proxy) copied onto it, its other pods not; the pod then binds
/// there. A pod pinned to a node by hostname gets no fresh node.
#[test]
fn a_fresh_node_of_the_pool_carries_its_daemonset_pods_only() {
    let (c, f, p) = demo();
    let key = ObjectKey::new("shop", "payments-api");
    let change = Change::FreshNode {
        like: "pool-general-a1".into(),
        name: "pool-general-a1-fresh".into(),
    };
    let changed = apply(&c, &key, &change).expect("applies");
    let n = changed.node("pool-general-a1-fresh").expect("the new node");
    let old = c.node("pool-general-a1").expect("node");
    assert_eq!(n.allocatable, old.allocatable);
    assert_eq!(n.taints, old.taints);
    assert_eq!(
        n.labels.get("kubernetes.io/hostname").map(String::as_str),
        Some("pool-general-a1-fresh")
    );
    let on_it: Vec<String> = changed
        .pods
        .iter()
        .filter(|q| q.node_name.as_deref() == Some("pool-general-a1-fresh"))
        .map(|q| q.key.to_string())
        .collect();
    assert_eq!(on_it, ["kube-system/kube-proxy-pool-general-a1-fresh"]);
    assert_eq!(changed.nodes.len(), c.nodes.len() + 1);
    let snap = Snapshot::new(Arc::new(changed), &f);
    let ex = engine::explain(&snap, &p, &key).expect("explains");
    assert!(ex.schedulable());
    assert!(
        ex.filter
            .iter()
            .any(|x| x.node == "pool-general-a1-fresh" && x.feasible)
    );
    // ledger-audit asks for pool-general-c1 by hostname: no fresh node for it
    assert!(
        fixes_of("shop", "ledger-audit")
            .iter()
            .all(|v| !matches!(v.fix.change, Change::FreshNode { .. }))
    );
}

#[test]
fn preemption_that_places_the_pod_comes_first_then_the_smallest_change() {
    let v = fixes_of("shop", "payments-api");
    assert_eq!(
        texts(&v),
        [
            "the pod will fit by preempting 1 victim on pool-general-a3 (batch/etl-nightly-0) → would bind to pool-general-a3 ✓",
            "lower cpu to ≤ 6800m to fit pool-general-a1 → would bind to pool-general-a1 ✓",
            "uncordon pool-general-c3 → would bind to pool-general-c3 ✓",
            "a fresh node like pool-general-a1 (its labels, taints and allocatable, with its 1 DaemonSet pod) would fit → would bind to pool-general-a1-fresh ✓",
            "a node like pool-general-a1 with 200m more cpu would fit → would bind to pool-general-a1 ✓",
            "tolerate dra=present:NoSchedule (pool-dra-a1, pool-dra-b1) → would bind to pool-dra-b1 ✓",
        ]
    );
    let kinds: Vec<&str> = v.iter().map(|f| f.fix.change.kind()).collect();
    assert_eq!(
        kinds,
        [
            "Preempt",
            "LowerRequests",
            "Uncordon",
            "FreshNode",
            "BiggerNode",
            "Tolerate"
        ]
    );
    assert_eq!(
        v[0].fix.reason,
        "preemption: found a potential placement for pod on node pool-general-a3, preempting 1 victims"
    );
    assert_eq!(v[0].fix.command, None);
    assert_eq!(
        v[0].fix.note.as_deref(),
        Some(
            "nothing to change: kube-scheduler deletes the victims itself and binds the pod there once they are gone (`kschedtui preempt -n shop payments-api` does it now); the changes below avoid the evictions; upstream picks among pool-general-a3, pool-general-b3, pool-general-c2 at random (they tie on every criterion)"
        )
    );
    // made on the copy: the victim gone, the pod nominated to the node
    let (c, _, _) = demo();
    let key = ObjectKey::new("shop", "payments-api");
    let changed = apply(&c, &key, &v[0].fix.change).expect("applies");
    assert!(changed.pod(&ObjectKey::new("batch", "etl-nightly-0")).is_none());
    assert_eq!(
        changed.pod(&key).expect("pod").nominated_node_name(),
        Some("pool-general-a3")
    );
    assert_eq!(v[2].fix.command.as_deref(), Some("kubectl uncordon pool-general-c3"));
    // no preemption fix for a pod preemption does not help
    assert!(
        fixes_of("batch", "report-huge")
            .iter()
            .all(|f| !matches!(f.fix.change, Change::Preempt { .. }))
    );
}

#[test]
fn every_kind_of_change_has_its_rank_and_working_fixes_come_first() {
    let t = || Taint {
        key: "k".into(),
        value: String::new(),
        effect: "NoSchedule".into(),
    };
    let order = [
        Change::RemoveGates(vec!["g".into()]),
        Change::SchedulerName("s".into()),
        Change::Preempt {
            node: "n".into(),
            victims: Vec::new(),
        },
        Change::LowerRequests("n".into(), Vec::new()),
        Change::Uncordon("n".into()),
        Change::FreshNode {
            like: "n".into(),
            name: "n-fresh".into(),
        },
        Change::BiggerNode("n".into(), Vec::new()),
        Change::MaxSkew(0, "zone".into(), 2),
        Change::DeletePods(Vec::new()),
        Change::PreferTerm { anti: true, index: 0 },
        Change::Tolerate(vec![t()]),
        Change::LabelNode("n".into(), Vec::new()),
    ];
    let ranks: Vec<u8> = order.iter().map(rank).collect();
    assert_eq!(ranks, [0, 0, 1, 2, 3, 4, 4, 5, 6, 7, 8, 9]);
    // candidates come ranked: a taint fix found first in the pipeline goes last
    let (c, f, p) = demo();
    let key = ObjectKey::new("shop", "payments-api");
    let snap = Snapshot::new(Arc::new(c.clone()), &f);
    let ex = engine::explain(&snap, &p, &key).expect("explains");
    let usage = analysis::node_usage(&c, &f);
    let kinds: Vec<&str> = candidates(&c, &usage, &f, &p, &ex)
        .iter()
        .map(|x| x.change.kind())
        .collect();
    assert_eq!(
        kinds,
        [
            "Preempt",
            "LowerRequests",
            "Uncordon",
            "FreshNode",
            "BiggerNode",
            "Tolerate"
        ]
    );
    // a change the engine says does not bind goes after the ones that do, whatever its rank
    let fix = |text: &str, change: Change| Fix {
        reason: String::new(),
        text: text.into(),
        change,
        command: None,
        note: None,
    };
    let out = verify(
        &c,
        &p,
        &f,
        None,
        &key,
        vec![
            fix("uncordon pool-general-c3", Change::Uncordon("pool-general-c3".into())),
            fix(
                "tolerate",
                Change::Tolerate(vec![Taint {
                    key: "dra".into(),
                    value: "present".into(),
                    effect: "NoSchedule".into(),
                }]),
            ),
            fix("uncordon pool-general-a1", Change::Uncordon("pool-general-a1".into())),
        ],
    );
    let lines: Vec<&str> = out.iter().map(|v| v.fix.text.as_str()).collect();
    assert_eq!(
        lines,
        ["uncordon pool-general-c3", "tolerate", "uncordon pool-general-a1"]
    );
    assert!(out[1].works() && !out[2].works());
}

#[test]
fn uncordon_spread_scheduler_name_and_extended_resources() {
    let v = fixes_of("batch", "dedup-job");
    assert_eq!(
        texts(&v),
        ["relax the spread constraint on topology.kubernetes.io/zone: maxSkew 1 → 2 → would bind to pool-general-a2 ✓"]
    );
    let v = fixes_of("batch", "spark-driver");
    assert_eq!(
        texts(&v),
        [
            "set schedulerName to default-scheduler (or run the scheduler 'volcano') → would bind (2 nodes tie: pool-general-a1, pool-general-c1) ✓"
        ]
    );
    let v = fixes_of("ml", "train-vit-gpu");
    assert_eq!(
        v[0].line(),
        "lower nvidia.com/gpu to ≤ 2 to fit pool-gpu-b1 → would bind to pool-gpu-b1 ✓"
    );
    // schedulable pods and pods failing several plugins everywhere get none
    assert!(fixes_of("shop", "search-indexer").is_empty());
    assert!(fixes_of("shop", "orders-db-0").is_empty());
}

#[test]
fn host_ports_and_the_pods_own_affinity_terms() {
    let v = fixes_of("monitoring", "node-exporter-new");
    assert_eq!(
        texts(&v),
        [
            "free host port TCP/9100 on pool-general-a2: delete monitoring/node-exporter-agent (holds it) → would bind to pool-general-a2 ✓"
        ]
    );
    assert_eq!(
        v[0].fix.command.as_deref(),
        Some("kubectl delete pod node-exporter-agent -n monitoring")
    );
    assert_eq!(
        texts(&fixes_of("shop", "frontend-spread")),
        [
            "make the pod's required anti-affinity term (topology.kubernetes.io/zone, app=shop-web) preferred → would bind (2 nodes tie: pool-general-b1, pool-general-c1) ✓"
        ]
    );
    let v = fixes_of("shop", "sidecar-cache");
    assert_eq!(
        texts(&v),
        [
            "make the pod's required affinity term (kubernetes.io/hostname, app=redis-primary) preferred → would bind to pool-general-a2 ✓"
        ]
    );
    // the term moved: no required term left, one preferred of weight 100
    let (c, _, _) = demo();
    let key = ObjectKey::new("shop", "sidecar-cache");
    let changed = apply(&c, &key, &v[0].fix.change).expect("applies");
    let pa = changed
        .pod(&key)
        .expect("pod")
        .spec()
        .affinity
        .clone()
        .and_then(|a| a.pod_affinity)
        .expect("affinity");
    assert!(
        pa.required_during_scheduling_ignored_during_execution
            .unwrap_or_default()
            .is_empty()
    );
    assert_eq!(
        pa.preferred_during_scheduling_ignored_during_execution
            .expect("preferred")[0]
            .weight,
        100
    );
}

/// A fixture: db-0 on node-a, db-1 and db-2 on node-b, each with a required hostname
/// anti-affinity against app=web; web-1 (app=web) is pending.
const ANTI: &str = r#"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: node-b, labels: {kubernetes.io/hostname: node-b}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: db-0, namespace: data, labels: {app: db}}
  spec:
    nodeName: node-a
    containers: [{name: c, image: db}]
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchLabels: {app: web}}
          namespaces: [shop]
          topologyKey: kubernetes.io/hostname
- apiVersion: v1
  kind: Pod
  metadata: {name: db-1, namespace: data, labels: {app: db}}
  spec:
    nodeName: node-b
    containers: [{name: c, image: db}]
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchLabels: {app: web}}
          namespaces: [shop]
          topologyKey: kubernetes.io/hostname
- apiVersion: v1
  kind: Pod
  metadata: {name: db-2, namespace: data, labels: {app: db}}
  spec:
    nodeName: node-b
    containers: [{name: c, image: db}]
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchLabels: {app: web}}
          namespaces: [shop]
          topologyKey: kubernetes.io/hostname
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: shop, labels: {app: web}}
  spec:
    containers: [{name: c, image: web}]
"#;

fn fixes_in(c: &Cluster, ns: &str, name: &str) -> Vec<Verified> {
    let f = Features::new(crate::engine::Release::NEWEST);
    let p = engine::build_profiles(None, &f).expect("profiles");
    let key = ObjectKey::new(ns, name);
    let snap = Snapshot::new(Arc::new(c.clone()), &f);
    let ex = engine::explain(&snap, &p, &key).expect("explains");
    let usage = analysis::node_usage(c, &f);
    verify(c, &p, &f, None, &key, candidates(c, &usage, &f, &p, &ex))
}

#[test]
fn existing_pods_anti_affinity_names_the_pods_and_their_nodes() {
    let c = crate::source::file::load_str("anti.yaml", ANTI).expect("fixture");
    let v = fixes_in(&c, "shop", "web-1");
    assert_eq!(
        texts(&v),
        ["the required anti-affinity of data/db-0 on node-a keeps the pod off node-a → would bind to node-a ✓"]
    );
    assert_eq!(v[0].fix.change.kind(), "ExistingPodsAntiAffinity");
    assert_eq!(
        v[0].fix.reason,
        "node(s) didn't satisfy existing pods anti-affinity rules"
    );
    assert_eq!(
        v[0].fix.change,
        Change::ExistingAntiAffinity {
            node: "node-a".into(),
            pods: vec![ObjectKey::new("data", "db-0")],
        }
    );
    assert_eq!(v[0].fix.command, None);
}

#[test]
fn dra_hints_name_the_claim_to_create_and_the_devices_that_would_match() {
    // a claim the pod names that does not exist: the one to create, not checked
    let v = fixes_of("ml", "eval-batch");
    assert_eq!(
        texts(&v),
        [
            "create ResourceClaim ml/eval-gpu (the pod's claim gpu names it) → not checked: its device requests are yours to say"
        ]
    );
    assert_eq!(v[0].fix.reason, r#"could not find ResourceClaim "ml/eval-gpu""#);
    assert_eq!(v[0].fix.change.kind(), "CreateClaim");
    assert_eq!(
        to_json(&v)[0]["after"],
        serde_json::json!({"result": "Unchecked", "why": "its device requests are yours to say"})
    );
    // no device matches the selector (model H200): the class's devices that would
    assert_eq!(
        texts(&fixes_of("ml", "llm-serve-h200")),
        [
            "drop the selectors of request gpu of claim ml/llm-serve-h200-gpu: gpu-0, gpu-1, gpu-2, gpu-3 (ResourceSlice pool-dra-a1-gpu.nvidia.com-x7k2p) of class gpu.nvidia.com on pool-dra-a1 would match → would bind to pool-dra-b1 ✓"
        ]
    );
    // too few usable devices: the count a node gives, and which
    let v = fixes_of("ml", "train-3gpu");
    assert_eq!(
        texts(&v),
        [
            "ask for 1 device instead of 3 in request gpus of claim ml/train-3gpu-gpus: gpu-2 (ResourceSlice pool-dra-a1-gpu.nvidia.com-x7k2p) usable on pool-dra-a1 → would bind to pool-dra-b1 ✓"
        ]
    );
    assert_eq!(
        v[0].fix.change,
        Change::ClaimRequest {
            claim: ObjectKey::new("ml", "train-3gpu-gpus"),
            request: "gpus".into(),
            drop_selectors: false,
            count: Some(1),
        }
    );
    assert_eq!(
        texts(&fixes_of("ml", "nccl-pair")),
        [
            "ask for 1 device instead of 2 in request gpus of claim ml/nccl-pair-gpus: gpu-2 (ResourceSlice pool-dra-a1-gpu.nvidia.com-x7k2p) usable on pool-dra-a1 → would bind to pool-dra-b1 ✓"
        ]
    );
}

#[test]
fn a_device_class_without_devices_is_said_and_not_checked() {
    let (mut c, _, _) = demo();
    let class: k8s_openapi::api::resource::v1::DeviceClass = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "a100.nvidia.com"},
        "spec": {"selectors": [{"cel": {"expression": "device.attributes[\"gpu.nvidia.com\"].model == \"A100\""}}]}
    }))
    .expect("class");
    c.device_classes.insert("a100.nvidia.com".into(), class);
    let key = ObjectKey::new("ml", "train-3gpu-gpus");
    let claim = c.resource_claims.get_mut(&key).expect("claim");
    claim
        .spec
        .as_mut()
        .and_then(|s| s.devices.as_mut())
        .and_then(|d| d.requests.as_mut())
        .and_then(|r| r[0].exactly.as_mut())
        .expect("exactly")
        .device_class_name = "a100.nvidia.com".into();
    let v = fixes_in(&c, "ml", "train-3gpu");
    assert_eq!(
        texts(&v),
        [
            "no device of DeviceClass a100.nvidia.com exists (6 device(s) on the 14 node(s) checked, none of the class; claim ml/train-3gpu-gpus request gpus) → not checked: no change of this cluster to make"
        ]
    );
    assert_eq!(v[0].fix.change, Change::NoDeviceOfClass("a100.nvidia.com".into()));
    assert_eq!(rank(&v[0].fix.change), 10);
}

#[test]
fn quantities_are_exact_and_never_rounded_up() {
    assert_eq!(quantity("memory", 29498 << 20), "29498Mi");
    assert_eq!(quantity("memory", (1 << 30) + 1), "1073741825");
    assert_eq!(quantity("cpu", 6800), "6800m");
    assert_eq!(quantity("cpu", 7000), "7");
    assert_eq!(quantity("nvidia.com/gpu", 2), "2");
}

#[test]
fn owner_commands_target_the_pod_template() {
    let (mut c, f, p) = demo();
    let key = ObjectKey::new("batch", "dedup-job");
    let mut obj = c.pod(&key).expect("pod").obj.clone();
    obj.metadata.owner_references = Some(vec![k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
        api_version: "batch/v1".into(),
        kind: "Job".into(),
        name: "dedup".into(),
        uid: "u".into(),
        controller: Some(true),
        block_owner_deletion: None,
    }]);
    c = replace_pod(&c, obj.into_box()).expect("replaced");
    let snap = Snapshot::new(Arc::new(c.clone()), &f);
    let ex = engine::explain(&snap, &p, &key).expect("explains");
    let usage = analysis::node_usage(&c, &f);
    let fixes = candidates(&c, &usage, &f, &p, &ex);
    assert_eq!(
        fixes[0].command.as_deref(),
        Some(
            r#"kubectl patch job dedup -n batch --type=json -p '[{"op":"replace","path":"/spec/template/spec/topologySpreadConstraints/0/maxSkew","value":2}]'"#
        )
    );
    assert!(
        fixes[0]
            .note
            .as_deref()
            .is_some_and(|n| n.contains("pod template of its job dedup"))
    );
}
