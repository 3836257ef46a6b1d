use k8s_openapi::api::resource::v1 as dra;

use super::naming::{ALPHANUMS, fnv32, fnv32a};
use super::*;
use crate::source::file::load_str;
use crate::source::manifests::read_str;

const NODES: &str = r"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/os: linux, zone: a}}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/os: linux, zone: b}}, spec: {taints: [{key: gpu, effect: NoSchedule}]}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3, labels: {kubernetes.io/os: windows, zone: a}}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
- {apiVersion: v1, kind: Node, metadata: {name: n4, labels: {kubernetes.io/os: linux, zone: c}}, spec: {unschedulable: true, taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
- {apiVersion: v1, kind: Node, metadata: {name: n5, labels: {kubernetes.io/os: linux, zone: c}}, spec: {taints: [{key: evict-me, effect: NoExecute}, {key: soft, effect: PreferNoSchedule}]}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
";

fn expander(text: &str) -> Expander {
    let m = read_str("t.yaml", text, "default").expect("manifests");
    let c = load_str("nodes", NODES).expect("nodes");
    Expander::new(&m.workloads[0], &c, false, 1_700_000_000)
}

fn labels(p: &core::Pod) -> BTreeMap<String, String> {
    p.metadata.labels.clone().unwrap_or_default()
}

fn owner(p: &core::Pod) -> (String, String, Option<bool>, Option<bool>) {
    let o = &p.metadata.owner_references.as_ref().expect("owner")[0];
    (o.kind.clone(), o.name.clone(), o.controller, o.block_owner_deletion)
}

const DEPLOY: &str = r"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {a: b}}
    spec: {containers: [{name: c, image: nginx}]}
";

#[test]
fn a_deployment_makes_a_replicaset_named_by_the_template_hash_and_pods_named_after_it() {
    let e = expander(DEPLOY);
    assert_eq!(e.count(), 3);
    let Object::ReplicaSet(rs) = &e.owners[0] else {
        panic!("a ReplicaSet")
    };
    let hash = template_hash(
        &serde_yaml::from_str(
            "{metadata: {labels: {app: web}, annotations: {a: b}}, spec: {containers: [{name: c, image: nginx}]}}",
        )
        .unwrap(),
        None,
    );
    assert!(!hash.is_empty() && hash.len() <= 10, "{hash}");
    assert!(hash.bytes().all(|b| ALPHANUMS.contains(&b)), "{hash}");
    let rs_name = format!("web-{hash}");
    assert_eq!(rs.metadata.name.as_deref(), Some(rs_name.as_str()));
    assert_eq!(
        rs.spec.selector.match_labels.clone().unwrap(),
        BTreeMap::from([
            ("app".to_string(), "web".to_string()),
            ("pod-template-hash".into(), hash.clone())
        ])
    );
    assert_eq!(rs.metadata.owner_references.as_ref().unwrap()[0].kind, "Deployment");
    let p = e.replica(0, &|_| false).pod;
    let name = p.metadata.name.clone().unwrap();
    assert!(name.starts_with(&format!("{rs_name}-")), "{name}");
    assert_eq!(name.len(), rs_name.len() + 6);
    assert_eq!(
        labels(&p),
        BTreeMap::from([
            ("app".to_string(), "web".to_string()),
            ("pod-template-hash".into(), hash)
        ])
    );
    assert_eq!(p.metadata.annotations.clone().unwrap()["a"], "b");
    assert_eq!(p.metadata.namespace.as_deref(), Some("shop"));
    assert_eq!(owner(&p), ("ReplicaSet".into(), rs_name, Some(true), Some(true)));
    // the same replica is the same pod; a name taken is drawn again
    assert_eq!(e.replica(0, &|_| false).pod.metadata.name.unwrap(), name);
    let other = e.replica(0, &|n| n == name).pod.metadata.name.unwrap();
    assert_ne!(other, name);
    assert_ne!(e.replica(1, &|_| false).pod.metadata.name.unwrap(), name);
}

#[test]
fn generated_names_are_cut_to_58_characters_before_the_suffix() {
    let long = "a".repeat(70);
    let g = generated(&format!("{long}-"), "x");
    assert_eq!(g.len(), 63);
    assert!(g.starts_with(&"a".repeat(58)));
    assert!(derived_suffix("x").bytes().all(|b| ALPHANUMS.contains(&b)));
}

#[test]
fn safe_encode_and_fnv_are_apimachinerys() {
    // rand.SafeEncodeString("0123456789"): alphanums[c % 27]
    assert_eq!(safe_encode("0123456789"), "456789bcdf");
    // hash/fnv test vectors
    assert_eq!(fnv32a(b"a"), 0xe40c_292c);
    assert_eq!(fnv32(b"a"), 0x050c_5d7e);
    assert_eq!(
        go_json(&serde_json::json!({"b": 1, "a": "<&>"})),
        r#"{"a":"\u003c\u0026\u003e","b":1}"#
    );
}

#[test]
fn a_statefulset_names_its_pods_by_ordinal_with_identity_labels_and_claims() {
    let e = expander(
        r"
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  replicas: 2
  ordinals: {start: 3}
  serviceName: db-headless
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: pg}]
      volumes: [{name: data, emptyDir: {}}, {name: scratch, emptyDir: {}}]
  volumeClaimTemplates:
  - metadata: {name: data, labels: {tier: storage}}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
",
    );
    let c = e.replica(1, &|_| false);
    let p = &c.pod;
    assert_eq!(p.metadata.name.as_deref(), Some("db-4"));
    let l = labels(p);
    assert_eq!(l["statefulset.kubernetes.io/pod-name"], "db-4");
    assert_eq!(l["apps.kubernetes.io/pod-index"], "4");
    assert!(l["controller-revision-hash"].starts_with("db-"), "{l:?}");
    let spec = p.spec.as_ref().unwrap();
    assert_eq!(spec.hostname.as_deref(), Some("db-4"));
    assert_eq!(spec.subdomain.as_deref(), Some("db-headless"));
    // the claim's volume replaces the template's volume of that name, first
    let vols: Vec<(String, Option<String>)> = spec
        .volumes
        .iter()
        .flatten()
        .map(|v| {
            (
                v.name.clone(),
                v.persistent_volume_claim.as_ref().map(|c| c.claim_name.clone()),
            )
        })
        .collect();
    assert_eq!(
        vols,
        vec![
            ("data".to_string(), Some("data-db-4".to_string())),
            ("scratch".into(), None)
        ]
    );
    assert_eq!(c.claims.len(), 1);
    assert_eq!(c.claims[0].metadata.name.as_deref(), Some("data-db-4"));
    assert_eq!(
        c.claims[0].metadata.labels.clone().unwrap(),
        BTreeMap::from([("tier".to_string(), "storage".to_string()), ("app".into(), "db".into())])
    );
    assert_eq!(owner(p), ("StatefulSet".into(), "db".into(), Some(true), Some(true)));
    // OrderedReady: created after the one before it
    assert_eq!(c.after.as_deref(), Some("db-3"));
    assert_eq!(e.replica(0, &|_| false).after, None);
}

#[test]
fn a_daemonset_has_a_pod_per_eligible_node_pinned_by_match_fields_with_its_tolerations() {
    let e = expander(
        r"
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a, b, c]}]}]
      containers: [{name: c, image: agent}]
",
    );
    // n2: untolerated gpu NoSchedule; n3: windows; n5: untolerated NoExecute.
    // n4 is cordoned: the controller's tolerations tolerate the unschedulable taint.
    assert_eq!(e.count(), 2);
    let c = e.replica(1, &|_| false);
    assert_eq!(c.node.as_deref(), Some("n4"));
    let spec = c.pod.spec.clone().unwrap();
    let req = spec
        .affinity
        .unwrap()
        .node_affinity
        .unwrap()
        .required_during_scheduling_ignored_during_execution
        .unwrap();
    assert_eq!(req.node_selector_terms.len(), 1);
    let f = &req.node_selector_terms[0].match_fields.as_ref().unwrap()[0];
    assert_eq!((f.key.as_str(), f.operator.as_str()), ("metadata.name", "In"));
    assert_eq!(f.values.clone().unwrap(), vec!["n4".to_string()]);
    let tol: Vec<(String, String)> = spec
        .tolerations
        .unwrap()
        .iter()
        .map(|t| (t.key.clone().unwrap(), t.effect.clone().unwrap()))
        .collect();
    assert_eq!(
        tol,
        [
            ("node.kubernetes.io/not-ready", "NoExecute"),
            ("node.kubernetes.io/unreachable", "NoExecute"),
            ("node.kubernetes.io/disk-pressure", "NoSchedule"),
            ("node.kubernetes.io/memory-pressure", "NoSchedule"),
            ("node.kubernetes.io/pid-pressure", "NoSchedule"),
            ("node.kubernetes.io/unschedulable", "NoSchedule"),
        ]
        .map(|(k, e)| (k.to_string(), e.to_string()))
    );
    let l = labels(&c.pod);
    assert_eq!(l["pod-template-generation"], "1");
    // the decimal FNV-32 safe-encoded: up to 10 characters of the alphabet
    let h = &l["controller-revision-hash"];
    assert!(
        !h.is_empty() && h.len() <= 10 && h.bytes().all(|b| ALPHANUMS.contains(&b)),
        "{h}"
    );
    assert_eq!(owner(&c.pod).0, "DaemonSet");
}

const JOB: &str = r"
apiVersion: batch/v1
kind: Job
metadata: {name: render, namespace: batch}
spec:
  completionMode: Indexed
  completions: 5
  parallelism: 3
  template:
    metadata: {labels: {app: render}}
    spec: {restartPolicy: Never, containers: [{name: c, image: r}]}
";

#[test]
fn an_indexed_job_makes_min_parallelism_completions_pods_with_their_completion_index() {
    let e = expander(JOB);
    assert_eq!(e.count(), 3);
    let p = e.replica(2, &|_| false).pod;
    let name = p.metadata.name.clone().unwrap();
    assert!(
        name.starts_with("render-2-") && name.len() == "render-2-".len() + 5,
        "{name}"
    );
    let uid = derived_uid("Job", "batch", "render");
    let l = labels(&p);
    for (k, v) in [
        ("job-name", "render"),
        ("batch.kubernetes.io/job-name", "render"),
        ("controller-uid", uid.as_str()),
        ("batch.kubernetes.io/controller-uid", uid.as_str()),
        ("batch.kubernetes.io/job-completion-index", "2"),
        ("app", "render"),
    ] {
        assert_eq!(l.get(k).map(String::as_str), Some(v), "{k}");
    }
    assert_eq!(
        p.metadata.annotations.clone().unwrap()["batch.kubernetes.io/job-completion-index"],
        "2"
    );
    assert_eq!(
        p.metadata.finalizers.clone().unwrap(),
        vec!["batch.kubernetes.io/job-tracking".to_string()]
    );
    let spec = p.spec.clone().unwrap();
    assert_eq!(spec.hostname.as_deref(), Some("render-2"));
    let env = &spec.containers[0].env.as_ref().unwrap()[0];
    assert_eq!(env.name, "JOB_COMPLETION_INDEX");
    assert_eq!(owner(&p), ("Job".into(), "render".into(), Some(true), Some(true)));
    // upstream's podGenerateNameWithIndex keeps the index when the name is long
    let long = format!("{}-{}", "j".repeat(60), "x");
    let e = expander(&JOB.replace("name: render", &format!("name: {long}")));
    let n = e.replica(1, &|_| false).pod.metadata.name.unwrap();
    assert_eq!(n.len(), 63, "{n}");
    assert!(n.starts_with(&format!("{}-1-", &long[..55])), "{n}");
}

#[test]
fn a_suspended_job_and_a_non_indexed_one() {
    assert_eq!(
        expander(&JOB.replace("parallelism: 3", "parallelism: 3\n  suspend: true")).count(),
        0
    );
    let e = expander(&JOB.replace("completionMode: Indexed\n  ", ""));
    let p = e.replica(0, &|_| false).pod;
    let name = p.metadata.name.unwrap();
    assert!(name.starts_with("render-") && name.len() == 12, "{name}");
    assert!(p.metadata.annotations.is_none());
}

#[test]
fn a_cronjob_runs_one_job_named_for_the_minute() {
    let e = expander(
        r"
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: batch}
spec:
  schedule: '0 3 * * *'
  jobTemplate:
    metadata: {labels: {kind: nightly}}
    spec:
      template:
        spec: {restartPolicy: OnFailure, containers: [{name: c, image: x}]}
",
    );
    // 1_700_000_000 s is 28,333,333 minutes and 20 s
    let p = e.replica(0, &|_| false).pod;
    assert_eq!(owner(&p).1, "nightly-28333333");
    assert!(p.metadata.name.clone().unwrap().starts_with("nightly-28333333-"));
    assert_eq!(labels(&p)["batch.kubernetes.io/job-name"], "nightly-28333333");
}

#[test]
fn claims_from_templates_are_named_pod_claim_suffix_and_recorded_in_the_pod_status() {
    let mut pod: core::Pod = serde_yaml::from_str(
            "{metadata: {name: web-abc12, namespace: ml, uid: u1}, spec: {containers: [], resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}, {name: shared, resourceClaimName: team}]}}",
        )
        .unwrap();
    let t: dra::ResourceClaimTemplate = serde_yaml::from_str(
            "{metadata: {name: one-gpu, namespace: ml}, spec: {metadata: {labels: {x: y}}, spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}}}",
        )
        .unwrap();
    let templates = BTreeMap::from([(super::super::ObjectKey::new("ml", "one-gpu"), t)]);
    let claims = claims_from_templates(&mut pod, &templates, &|_| false).unwrap();
    assert_eq!(claims.len(), 1);
    let name = claims[0].metadata.name.clone().unwrap();
    assert!(
        name.starts_with("web-abc12-gpu-") && name.len() == "web-abc12-gpu-".len() + 5,
        "{name}"
    );
    assert_eq!(
        claims[0].metadata.annotations.clone().unwrap()["resource.kubernetes.io/pod-claim-name"],
        "gpu"
    );
    assert_eq!(claims[0].metadata.labels.clone().unwrap()["x"], "y");
    let o = &claims[0].metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (o.kind.as_str(), o.name.as_str(), o.uid.as_str()),
        ("Pod", "web-abc12", "u1")
    );
    let st = pod.status.unwrap().resource_claim_statuses.unwrap();
    assert_eq!(st.len(), 1);
    assert_eq!(
        (st[0].name.as_str(), st[0].resource_claim_name.as_deref()),
        ("gpu", Some(name.as_str()))
    );
    // long names are shortened in proportion, as the controller does
    let mut long: core::Pod = serde_yaml::from_str(&format!(
            "{{metadata: {{name: {}, namespace: ml}}, spec: {{containers: [], resourceClaims: [{{name: {}, resourceClaimTemplateName: one-gpu}}]}}}}",
            "p".repeat(60),
            "c".repeat(20)
        ))
        .unwrap();
    let n = claims_from_templates(&mut long, &templates, &|_| false).unwrap()[0]
        .metadata
        .name
        .clone()
        .unwrap();
    // generateName "ppp…-ccc…-" is 82 characters: 60*57/82 = 41 p's, 20*57/82 = 13 c's
    assert_eq!(n, format!("{}-{}{}", "p".repeat(41), "c".repeat(13), &n[55..]));
    let missing = claims_from_templates(&mut long, &BTreeMap::new(), &|_| false).unwrap_err();
    assert!(missing.contains("resource claim template \"one-gpu\""), "{missing}");
}

#[test]
fn manifests_are_sorted_into_workloads_objects_and_skipped_kinds() {
    let m = read_str(
        "m.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n",
        "ns1",
    );
    // no workload at all is an error
    assert!(m.is_err());
    let m = read_str(
            "m.yaml",
            &format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cfg}}\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {{name: hi}}\nvalue: 5\n---\n{}", DEPLOY.replace("namespace: shop", "")),
            "ns1",
        )
        .unwrap();
    assert_eq!(m.workloads.len(), 1);
    assert_eq!(m.workloads[0].namespace, "ns1");
    assert_eq!(m.objects.len(), 1);
    assert_eq!(m.skipped, vec!["ConfigMap cfg".to_string()]);
    let err = read_str(
        "m.yaml",
        "apiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: d}\n",
        "x",
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("apiVersion 'apps/v1beta2' is not one kschedtui reads"),
        "{err}"
    );
    let err = read_str(
            "m.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {selector: {}, template: {spec: {containers: [{name: c, resources: {requests: {cpu: [1]}}}]}}}\n",
            "x",
        )
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("field 'spec.template.spec.containers[0].resources.requests.cpu'"),
        "{err}"
    );
}
