//! `kschedtui fit`: exit statuses, the JSON of docs/fit-json.md (every key documented), the
//! manifests held out from its development (tests/integration/data/fit-heldout.yaml) with counts
//! checked by hand, and the same pods scheduled by `simulate` landing where `fit` says.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

const HELDOUT: &str = "tests/integration/data/fit-heldout.yaml";

fn kschedtui(args: &[&str], stdin: Option<&str>) -> (Option<i32>, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kschedtui"));
    c.current_dir(env!("CARGO_MANIFEST_DIR")).args(args);
    c.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    if let Some(text) = stdin {
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    }
    let o = child.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

fn fit_json(args: &[&str]) -> Value {
    let mut all = vec!["fit", "--demo", "-o", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = kschedtui(&all, None);
    assert!(matches!(code, Some(0 | 3)), "{all:?}: {code:?} {err}");
    serde_json::from_str(&out).unwrap()
}

fn workload<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == name)
        .unwrap_or_else(|| panic!("no workload {name}"))
}

fn nodes(w: &Value) -> BTreeMap<String, u64> {
    w["nodes"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect()
}

#[test]
fn exit_status_is_0_when_everything_fits_3_when_not_1_on_errors_2_on_usage() {
    let all_fit = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: tiny, namespace: shop}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: tiny}}\n  template:\n    metadata: {labels: {app: tiny}}\n    spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 10m}}}]}\n";
    let (code, out, _) = kschedtui(&["fit", "--demo", "-f", "-"], Some(all_fit));
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("Deployment shop/tiny: 2 of 2 replicas scheduled\n"),
        "{out}"
    );
    assert!(out.contains("Fit of standard input on the demo cluster"), "{out}");
    let (code, out, _) = kschedtui(
        &["fit", "--demo", "-f", "fixtures/fit/storefront.yaml", "--no-fixes"],
        None,
    );
    assert_eq!(code, Some(3), "{out}");
    assert!(
        out.ends_with("Summary: 1 workload(s), 7 of 8 replica(s) scheduled; exit status 3\n"),
        "{out}"
    );
    let (code, _, err) = kschedtui(&["fit", "--demo", "-f", "no/such.yaml"], None);
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("error: cannot read snapshot 'no/such.yaml'") || err.contains("no/such.yaml"),
        "{err}"
    );
    let (code, _, err) = kschedtui(
        &["fit", "--demo", "-f", "-"],
        Some("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"),
    );
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "error: standard input: no workload (Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or CronJob) to place\n"
    );
    let (code, _, err) = kschedtui(
        &["fit", "--demo", "-f", "-"],
        Some(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {selector: {}, template: {spec: {containers: [{name: c, resources: {requests: {cpu: lots}}}]}}}\n",
        ),
    );
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("error: standard input (document 0): Deployment default/d: field 'spec.template.spec.containers[0].resources.requests.cpu': 'lots' is not a valid quantity"),
        "{err}"
    );
    let (code, _, err) = kschedtui(&["fit", "--demo"], None);
    assert_eq!(code, Some(2), "{err}");
    let (code, _, err) = kschedtui(&["fit", "--demo", "-f", "-", "-f", "-"], None);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("-f - given twice"), "{err}");
}

#[test]
fn every_fit_json_key_is_documented() {
    let mut all = BTreeSet::new();
    fn keys(v: &Value, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    // `nodes` is keyed by node name
                    if k != "nodes" || x.is_array() {
                        keys(x, out);
                    }
                    out.insert(k.clone());
                }
            }
            Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
            _ => {}
        }
    }
    for args in [
        vec!["-f", "fixtures/fit/", "--max"],
        vec!["-f", "fixtures/fit/storefront.yaml", "--preempt", "--after-pending"],
        vec!["-f", HELDOUT, "--no-fixes"],
        vec!["-f", "fixtures/fit/kinds.yaml", "--replicas", "12"],
    ] {
        keys(&fit_json(&args), &mut all);
    }
    let doc = include_str!("../../docs/fit-json.md");
    let missing: Vec<&String> = all.iter().filter(|k| !doc.contains(&format!("`{k}`"))).collect();
    assert!(missing.is_empty(), "not in docs/fit-json.md: {missing:?}");
    for k in [
        "maxReplicas",
        "maxSearch",
        "afterPending",
        "evicted",
        "claims",
        "resourceClaims",
        "fixes",
        "nominatedNode",
        "plugin",
        "victims",
    ] {
        assert!(all.contains(k), "{k} never written: {all:?}");
    }
}

#[test]
fn the_held_out_manifests_fit_as_counted_by_hand() {
    let v = fit_json(&["-f", HELDOUT, "--no-fixes"]);
    let api = workload(&v, "reports-api");
    assert_eq!(
        (api["replicas"].as_u64(), api["scheduled"].as_u64()),
        (Some(4), Some(2))
    );
    assert_eq!(nodes(api), BTreeMap::from([("pool-general-b1".to_string(), 2)]));
    let ledger = workload(&v, "ledger-replica");
    assert_eq!(
        (ledger["replicas"].as_u64(), ledger["scheduled"].as_u64()),
        (Some(4), Some(2))
    );
    assert_eq!(
        nodes(ledger),
        BTreeMap::from([("pool-general-a1".to_string(), 1), ("pool-general-a2".to_string(), 1)])
    );
    let claims: Vec<(&str, &str)> = ledger["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["claim"]["name"].as_str().unwrap(), c["binding"].as_str().unwrap()))
        .collect();
    assert_eq!(
        claims,
        (0..4)
            .map(|i| (
                [
                    "wal-ledger-replica-0",
                    "wal-ledger-replica-1",
                    "wal-ledger-replica-2",
                    "wal-ledger-replica-3"
                ][i],
                "ProvisionedImmediately"
            ))
            .collect::<Vec<_>>()
    );
    let names: Vec<&str> = ledger["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pod"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "ledger-replica-0",
            "ledger-replica-1",
            "ledger-replica-2",
            "ledger-replica-3"
        ]
    );
    let gpu = workload(&v, "render-gpu");
    assert_eq!(
        (gpu["replicas"].as_u64(), gpu["scheduled"].as_u64()),
        (Some(4), Some(3))
    );
    assert_eq!(
        nodes(gpu),
        BTreeMap::from([("pool-gpu-a1".to_string(), 1), ("pool-gpu-b1".to_string(), 2)])
    );
    assert!(gpu["message"].as_str().unwrap().contains("Insufficient nvidia.com/gpu"));
}

/// The held-out Deployment and Job written as plain pods into the demo, created after every
/// pod of the demo in the same order, then scheduled by `simulate` (only those pods): they land
/// on the nodes `fit` names.
#[test]
fn simulate_places_the_same_pods_where_fit_does() {
    use kschedtui::engine::simulate::{Detail, FinalState, SimOptions, simulate};
    use kschedtui::engine::{Release, build_profiles};
    use kschedtui::model::ObjectKey;
    let demo = include_str!("../../fixtures/demo.yaml");
    let mut extra = String::new();
    let mut keys = BTreeSet::new();
    // the Deployment's replicas, then the Job's (created in that order, one second apart)
    for i in 0..4 {
        extra.push_str(&format!(
            "- {{apiVersion: v1, kind: Pod, metadata: {{name: api-{i}, namespace: shop, labels: {{app: reports-api}}, creationTimestamp: '2030-01-01T00:00:0{i}Z'}}, spec: {{nodeSelector: {{topology.kubernetes.io/zone: europe-west1-b}}, containers: [{{name: api, resources: {{requests: {{cpu: '3', memory: 2Gi}}}}}}]}}}}\n"
        ));
        keys.insert(ObjectKey::new("shop", format!("api-{i}")));
    }
    for i in 0..4 {
        extra.push_str(&format!(
            "- {{apiVersion: v1, kind: Pod, metadata: {{name: render-{i}, namespace: ml, creationTimestamp: '2030-01-01T00:01:0{i}Z'}}, spec: {{restartPolicy: Never, tolerations: [{{key: nvidia.com/gpu, operator: Exists}}], containers: [{{name: render, resources: {{requests: {{cpu: '1', memory: 2Gi}}, limits: {{nvidia.com/gpu: '1'}}}}}}]}}}}\n"
        ));
        keys.insert(ObjectKey::new("ml", format!("render-{i}")));
    }
    let text = format!("{}\n{extra}", demo.trim_end());
    let cluster = kschedtui::source::file::load_str("demo+pods", &text).unwrap();
    let v = Release::NEWEST;
    let profiles = build_profiles(None, v).unwrap();
    let r = simulate(
        cluster,
        &profiles,
        v,
        SimOptions {
            only: Some(keys),
            detail: Detail::Summary,
            preempt: false,
            ..Default::default()
        },
    );
    let mut by_ns: BTreeMap<&str, BTreeMap<String, u64>> = BTreeMap::new();
    for (k, s) in &r.pods {
        if let FinalState::Bound { node, .. } = s {
            *by_ns
                .entry(k.namespace.as_str())
                .or_default()
                .entry(node.clone())
                .or_default() += 1;
        }
    }
    let fit = fit_json(&["-f", HELDOUT, "--no-fixes"]);
    assert_eq!(by_ns["shop"], nodes(workload(&fit, "reports-api")));
    assert_eq!(by_ns["ml"], nodes(workload(&fit, "render-gpu")));
}

#[test]
fn yaml_output_is_the_same_document() {
    let (code, out, err) = kschedtui(
        &[
            "fit",
            "--demo",
            "-f",
            "fixtures/fit/gpu.yaml",
            "-o",
            "yaml",
            "--no-fixes",
        ],
        None,
    );
    assert_eq!(code, Some(3), "{err}");
    let y: Value = serde_yaml::from_str(&out).unwrap();
    let j = fit_json(&["-f", "fixtures/fit/gpu.yaml", "--no-fixes"]);
    assert_eq!(y, j);
    assert_eq!(y["kind"], "Fit");
    let w = workload(&y, "embed");
    assert_eq!(
        (w["scheduled"].as_u64(), w["resourceClaims"].as_array().unwrap().len()),
        (Some(2), 3)
    );
}

/// `fit --write` keeps the placement as a snapshot; `explain deploy/NAME` reads its pods as a
/// whole: N of M pending, grouped by reason (docs/explain-json.md, "Owners").
#[test]
fn explain_an_owner_after_fit_writes_the_placement() {
    let dir = tempfile::tempdir().unwrap();
    let after = dir.path().join("after.yaml");
    let after = after.to_str().unwrap();
    let (code, _, err) = kschedtui(
        &[
            "fit",
            "--demo",
            "-f",
            "fixtures/fit/storefront.yaml",
            "-f",
            HELDOUT,
            "--no-fixes",
            "--write",
            after,
        ],
        None,
    );
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("wrote the cluster after the placement to"), "{err}");
    let (code, out, err) = kschedtui(
        &["explain", "--snapshot", after, "deploy/reports-api", "-n", "shop"],
        None,
    );
    assert_eq!(code, Some(0), "{err}");
    // with the storefront placed first (created first), pool-general-b1 keeps room for one
    assert!(
        out.starts_with("Deployment shop/reports-api: 4 pod(s), 3 of 4 pending\n"),
        "{out}"
    );
    let (code, out, err) = kschedtui(
        &[
            "explain",
            "--snapshot",
            after,
            "job/render-gpu",
            "-n",
            "ml",
            "-o",
            "json",
            "--exit-status",
        ],
        None,
    );
    assert_eq!(code, Some(3), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["pods"].as_u64(), v["pending"].as_u64()), (Some(4), Some(1)));
    assert_eq!(
        v["groups"][0]["reason"].as_str(),
        Some("10× Insufficient nvidia.com/gpu")
    );
    assert_eq!(v["owner"]["kind"], "Job");
    let mut all = BTreeSet::new();
    for args in [
        vec![
            "explain",
            "--snapshot",
            after,
            "sts/ledger-replica",
            "-n",
            "shop",
            "-o",
            "json",
        ],
        vec![
            "explain",
            "--snapshot",
            after,
            "rs/coredns-5d78c9869d",
            "-n",
            "kube-system",
            "-o",
            "json",
        ],
        vec!["explain", "--demo", "ds/kube-proxy", "-n", "kube-system", "-o", "json"],
    ] {
        let (code, out, err) = kschedtui(&args, None);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        fn keys(v: &Value, out: &mut BTreeSet<String>) {
            if let Value::Object(m) = v {
                for (k, x) in m {
                    out.insert(k.clone());
                    if k != "bound" {
                        keys(x, out);
                    }
                }
            } else if let Value::Array(a) = v {
                a.iter().for_each(|x| keys(x, out));
            }
        }
        keys(&v, &mut all);
    }
    let doc = include_str!("../../docs/explain-json.md");
    let section = &doc[doc.find("## Owners").unwrap()..];
    let missing: Vec<&String> = all.iter().filter(|k| !section.contains(&format!("`{k}`"))).collect();
    assert!(missing.is_empty(), "not in docs/explain-json.md's Owners: {missing:?}");
    let (code, _, err) = kschedtui(&["explain", "--demo", "deploy/nothing", "-n", "shop"], None);
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "error: Deployment shop/nothing has no pods in this cluster (a pod in a namespace named 'deploy' is named with -n)\n"
    );
}

/// `fit --demo -f FILE -o json --no-fixes --write`: the answer and the cluster after it.
fn fit_and_write(file: &str, extra: &[&str]) -> (Value, kschedtui::model::Cluster) {
    let dir = crate::scratch::temp_dir("fit");
    let after = dir.path().join("after.yaml");
    let after = after.to_str().unwrap();
    let mut args = vec![
        "fit",
        "--demo",
        "-f",
        file,
        "-o",
        "json",
        "--no-fixes",
        "--write",
        after,
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = kschedtui(&args, None);
    assert!(matches!(code, Some(0 | 3)), "{args:?}: {code:?} {err}");
    let cluster = kschedtui::source::file::load_path(std::path::Path::new(after)).unwrap();
    (serde_json::from_str(&out).unwrap(), cluster)
}

fn pod_names(w: &Value) -> Vec<(String, String)> {
    w["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["pod"]["name"].as_str().unwrap().to_string(),
                p["result"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn labels_of(c: &kschedtui::model::Cluster, ns: &str, name: &str) -> BTreeMap<String, String> {
    let p = c
        .pod(&kschedtui::model::ObjectKey::new(ns, name))
        .unwrap_or_else(|| panic!("{ns}/{name}"));
    p.obj.metadata.labels.clone().unwrap_or_default()
}

fn owner_of(c: &kschedtui::model::Cluster, ns: &str, name: &str) -> (String, String) {
    let p = c.pod(&kschedtui::model::ObjectKey::new(ns, name)).unwrap();
    let o = &p.obj.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!((o.controller, o.block_owner_deletion), (Some(true), Some(true)));
    (o.kind.clone(), o.name.clone())
}

fn strings(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// A Deployment on the demo: its ReplicaSet `<deployment>-<hash>` owned by it, the pods
/// `<replicaset>-<5>` owned by the ReplicaSet with `pod-template-hash`, the priority of their
/// PriorityClass, placed one per node (required anti-affinity) on the nodes with room.
#[test]
fn a_deployments_pods_are_named_labelled_and_owned_as_its_controllers_make_them() {
    let (v, c) = fit_and_write("fixtures/fit/storefront.yaml", &[]);
    let w = workload(&v, "storefront");
    assert_eq!(
        pod_names(w),
        [
            ("storefront-67ccdd7754-2thlr", "Bound"),
            ("storefront-67ccdd7754-q9khl", "Bound"),
            ("storefront-67ccdd7754-x8q8t", "Bound"),
            ("storefront-67ccdd7754-mdkjr", "Bound"),
            ("storefront-67ccdd7754-ltn5l", "Bound"),
            ("storefront-67ccdd7754-zvg9j", "Bound"),
            ("storefront-67ccdd7754-xfnct", "Bound"),
            ("storefront-67ccdd7754-zqd55", "Pending"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    let rs = c
        .replica_sets
        .iter()
        .find(|r| r.metadata.name.as_deref() == Some("storefront-67ccdd7754"))
        .expect("the ReplicaSet");
    let o = &rs.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!((o.kind.as_str(), o.name.as_str()), ("Deployment", "storefront"));
    assert_eq!(
        rs.spec.selector.match_labels.clone().unwrap(),
        strings(&[("app", "storefront"), ("pod-template-hash", "67ccdd7754")])
    );
    assert_eq!(
        labels_of(&c, "shop", "storefront-67ccdd7754-2thlr"),
        strings(&[
            ("app", "storefront"),
            ("pod-template-hash", "67ccdd7754"),
            ("tier", "web")
        ])
    );
    assert_eq!(
        owner_of(&c, "shop", "storefront-67ccdd7754-2thlr"),
        ("ReplicaSet".into(), "storefront-67ccdd7754".into())
    );
    let p = c
        .pod(&kschedtui::model::ObjectKey::new("shop", "storefront-67ccdd7754-zqd55"))
        .unwrap();
    assert_eq!(
        (p.priority, p.spec().preemption_policy.as_deref()),
        (100_000, Some("PreemptLowerPriority"))
    );
    assert_eq!(w["reason"], "5× untolerated taint(s); preempt 1 on pool-general-b2");
    assert_eq!(
        w["preemption"],
        serde_json::json!({"node": "pool-general-b2", "victims": [{"namespace": "batch", "name": "etl-nightly-3"}], "message": "preemption: found a potential placement for pod on node pool-general-b2, preempting 1 victims"})
    );
}

/// One workload of every other kind on the demo (fixtures/fit/kinds.yaml): a StatefulSet's pods
/// by ordinal with their identity labels and claims provisioned where each landed
/// (WaitForFirstConsumer), a DaemonSet's pod per eligible node pinned by matchFields, an
/// Indexed Job's completion indexes with the LimitRange's defaults and the quota's refusal, a
/// CronJob's one run, a bare pod; the global default PriorityClass for those that name none.
#[test]
fn every_kind_is_made_as_its_controller_makes_it_on_the_demo() {
    let (v, c) = fit_and_write("fixtures/fit/kinds.yaml", &[]);
    let s = |x: &str| x.to_string();
    // StatefulSet
    let sts = workload(&v, "search");
    assert_eq!(
        pod_names(sts),
        [("search-0", "Bound"), ("search-1", "Bound"), ("search-2", "Bound")].map(|(a, b)| (s(a), s(b)))
    );
    assert_eq!(
        labels_of(&c, "shop", "search-1"),
        strings(&[
            ("app", "search"),
            ("apps.kubernetes.io/pod-index", "1"),
            ("controller-revision-hash", "search-5b9f495b4b"),
            ("statefulset.kubernetes.io/pod-name", "search-1"),
        ])
    );
    assert_eq!(owner_of(&c, "shop", "search-1"), (s("StatefulSet"), s("search")));
    let claims: Vec<(&str, &str, &str)> = sts["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["claim"]["name"].as_str().unwrap(),
                x["binding"].as_str().unwrap(),
                x["node"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        claims,
        [
            ("data-search-0", "WaitForFirstConsumer", "pool-general-a1"),
            ("data-search-1", "WaitForFirstConsumer", "pool-general-b1"),
            ("data-search-2", "WaitForFirstConsumer", "pool-general-c1"),
        ]
    );
    for (claim, pod) in [("data-search-0", "search-0"), ("data-search-2", "search-2")] {
        let pvc = &c.pvcs[&kschedtui::model::ObjectKey::new("shop", claim)];
        let node = c
            .pod(&kschedtui::model::ObjectKey::new("shop", pod))
            .unwrap()
            .node_name
            .clone();
        assert_eq!(
            pvc.metadata
                .annotations
                .as_ref()
                .unwrap()
                .get("volume.kubernetes.io/selected-node")
                .map(String::as_str),
            node.as_deref()
        );
        let vol = c
            .pod(&kschedtui::model::ObjectKey::new("shop", pod))
            .unwrap()
            .spec()
            .volumes
            .clone()
            .unwrap();
        assert_eq!(vol[0].persistent_volume_claim.as_ref().unwrap().claim_name, claim);
    }
    // DaemonSet: the 9 nodes its controller accepts, each pod pinned to its node
    let ds = workload(&v, "log-agent");
    assert_eq!((ds["replicas"].as_u64(), ds["scheduled"].as_u64()), (Some(9), Some(9)));
    let mut pinned = Vec::new();
    for p in ds["pods"].as_array().unwrap() {
        let name = p["pod"]["name"].as_str().unwrap();
        let pod = c.pod(&kschedtui::model::ObjectKey::new("monitoring", name)).unwrap();
        let terms = pod
            .spec()
            .affinity
            .clone()
            .unwrap()
            .node_affinity
            .unwrap()
            .required_during_scheduling_ignored_during_execution
            .unwrap()
            .node_selector_terms;
        let f = &terms[0].match_fields.as_ref().unwrap()[0];
        assert_eq!((f.key.as_str(), f.operator.as_str()), ("metadata.name", "In"));
        let node = f.values.clone().unwrap()[0].clone();
        assert_eq!(
            pod.node_name.as_deref(),
            Some(node.as_str()),
            "{name} lands on its node"
        );
        assert_eq!(
            labels_of(&c, "monitoring", name),
            strings(&[
                ("app", "log-agent"),
                ("controller-revision-hash", "86495d459d"),
                ("pod-template-generation", "1")
            ])
        );
        let tolerated: Vec<String> = pod
            .spec()
            .tolerations
            .iter()
            .flatten()
            .map(|t| {
                format!(
                    "{}:{}",
                    t.key.clone().unwrap_or_default(),
                    t.effect.clone().unwrap_or_default()
                )
            })
            .collect();
        assert_eq!(
            tolerated,
            [
                "node.kubernetes.io/not-ready:NoExecute",
                "node.kubernetes.io/unreachable:NoExecute",
                "node.kubernetes.io/disk-pressure:NoSchedule",
                "node.kubernetes.io/memory-pressure:NoSchedule",
                "node.kubernetes.io/pid-pressure:NoSchedule",
                "node.kubernetes.io/unschedulable:NoSchedule",
            ]
        );
        pinned.push(node);
    }
    pinned.sort();
    assert_eq!(
        pinned,
        [
            "pool-general-a1",
            "pool-general-a2",
            "pool-general-a3",
            "pool-general-b1",
            "pool-general-b2",
            "pool-general-b3",
            "pool-general-c1",
            "pool-general-c2",
            "pool-general-c3",
        ]
    );
    assert_eq!(
        ds["notes"][0],
        "9 of 14 node(s) are eligible for the DaemonSet (its node selector, required node affinity and untolerated NoSchedule/NoExecute taints leave out 5)"
    );
    // Indexed Job: completion indexes, LimitRange defaults, PriorityClass, the quota's refusal
    let job = workload(&v, "monthly-report");
    assert_eq!(
        pod_names(job),
        [
            ("monthly-report-0-lj2j9", "Bound"),
            ("monthly-report-1-gsb9h", "Bound"),
            ("monthly-report-2-pwqbm", "Bound"),
            ("monthly-report-3-vxcbh", "Bound"),
            ("monthly-report-4-v8pvr", "Refused"),
            ("monthly-report-5-g8qmw", "Refused"),
        ]
        .map(|(a, b)| (s(a), s(b)))
    );
    assert_eq!(
        job["message"],
        "pods \"monthly-report-4-v8pvr\" is forbidden: exceeded quota: reports-compute, requested: requests.cpu=500m, used: requests.cpu=2, limited: requests.cpu=2"
    );
    assert_eq!(job["pods"][4]["plugin"], "ResourceQuota");
    let uid = "ea174935-4f31-412b-8473-7d3682313fb4";
    assert_eq!(
        labels_of(&c, "reports", "monthly-report-2-pwqbm"),
        strings(&[
            ("batch.kubernetes.io/controller-uid", uid),
            ("batch.kubernetes.io/job-completion-index", "2"),
            ("batch.kubernetes.io/job-name", "monthly-report"),
            ("controller-uid", uid),
            ("job-name", "monthly-report"),
        ])
    );
    let p = c
        .pod(&kschedtui::model::ObjectKey::new("reports", "monthly-report-2-pwqbm"))
        .unwrap();
    assert_eq!(
        p.obj.metadata.annotations.clone().unwrap(),
        strings(&[
            ("batch.kubernetes.io/job-completion-index", "2"),
            (
                "kubernetes.io/limit-ranger",
                "LimitRanger plugin set: cpu, memory request for container render; cpu, memory limit for container render"
            ),
        ])
    );
    let r = p.spec().containers[0].resources.clone().unwrap();
    let q = |m: Option<BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>| {
        m.unwrap()
            .into_iter()
            .map(|(k, v)| (k, v.0))
            .collect::<BTreeMap<_, _>>()
    };
    assert_eq!(q(r.requests), strings(&[("cpu", "500m"), ("memory", "512Mi")]));
    assert_eq!(q(r.limits), strings(&[("cpu", "1"), ("memory", "1Gi")]));
    assert_eq!(
        (
            p.priority,
            p.spec().priority_class_name.as_deref(),
            p.spec().preemption_policy.as_deref()
        ),
        (10, Some("reports-low"), Some("Never"))
    );
    assert_eq!(p.spec().hostname.as_deref(), Some("monthly-report-2"));
    // CronJob: one run, the Job named for the minute; the global default PriorityClass
    let cj = workload(&v, "cleanup");
    assert_eq!(pod_names(cj), [(s("cleanup-29932336-zh29v"), s("Bound"))]);
    assert_eq!(
        owner_of(&c, "batch", "cleanup-29932336-zh29v"),
        (s("Job"), s("cleanup-29932336"))
    );
    let p = c
        .pod(&kschedtui::model::ObjectKey::new("batch", "cleanup-29932336-zh29v"))
        .unwrap();
    assert_eq!(
        (
            p.priority,
            p.spec().priority_class_name.as_deref(),
            p.spec().preemption_policy.as_deref()
        ),
        (1000, Some("standard"), Some("PreemptLowerPriority"))
    );
    // a bare pod is itself
    assert_eq!(pod_names(workload(&v, "debug-shell")), [(s("debug-shell"), s("Bound"))]);
}

/// Admission on the demo (fixtures/fit/admission.yaml): a RuntimeClass's overhead joins the
/// ReplicaSet's pods' requests; an Immediate class whose allowedTopologies is one zone
/// provisions the StatefulSet's claims there at once, and their pods follow.
#[test]
fn runtime_class_overhead_and_an_immediate_class_with_topology() {
    let (v, c) = fit_and_write("fixtures/fit/admission.yaml", &[]);
    let s = |x: &str| x.to_string();
    let rs = workload(&v, "sandbox");
    assert_eq!(
        pod_names(rs),
        [("sandbox-sdpzw", "Bound"), ("sandbox-8dzbt", "Bound")].map(|(a, b)| (s(a), s(b)))
    );
    assert_eq!(owner_of(&c, "shop", "sandbox-sdpzw"), (s("ReplicaSet"), s("sandbox")));
    let p = c
        .pod(&kschedtui::model::ObjectKey::new("shop", "sandbox-sdpzw"))
        .unwrap();
    let overhead: BTreeMap<String, String> = p
        .spec()
        .overhead
        .clone()
        .unwrap()
        .into_iter()
        .map(|(k, v)| (k, v.0))
        .collect();
    assert_eq!(overhead, strings(&[("cpu", "250m"), ("memory", "64Mi")]));
    // the scheduler counts it: 500m + 250m
    assert_eq!(p.requests.resource.milli_cpu, 750);
    assert_eq!(p.priority, 1000);
    let sts = workload(&v, "cache");
    assert_eq!(nodes(sts), BTreeMap::from([("pool-general-c1".to_string(), 2)]));
    for claim in sts["claims"].as_array().unwrap() {
        assert_eq!(claim["binding"], "ProvisionedImmediately");
        let pv = &c.pvs[claim["detail"].as_str().unwrap()];
        let terms = &pv
            .spec
            .as_ref()
            .unwrap()
            .node_affinity
            .as_ref()
            .unwrap()
            .required
            .as_ref()
            .unwrap()
            .node_selector_terms;
        let e = &terms[0].match_expressions.as_ref().unwrap()[0];
        assert_eq!(
            (e.key.as_str(), e.values.clone().unwrap()),
            ("topology.kubernetes.io/zone", vec![s("europe-west1-c")])
        );
    }
    let (_, text, _) = kschedtui(&["fit", "--demo", "-f", "fixtures/fit/admission.yaml"], None);
    assert!(
        text.contains("  claim data-cache-0: Immediate: provisioned at once as pvc-02a15055-fb31-461e-8441-9d6346897d0d (given the class's allowedTopologies as node affinity; a real provisioner picks one zone of them)\n"),
        "{text}"
    );
}

/// A DRA template on the demo (fixtures/fit/gpu.yaml): each replica's claim is named as the
/// resourceclaim controller names it, owned by its pod, recorded in the pod's status; the two
/// free H100s go to the first two replicas (each allocation applied before the next).
#[test]
fn resource_claims_from_templates_are_named_as_the_resourceclaim_controller_names_them() {
    let (v, c) = fit_and_write("fixtures/fit/gpu.yaml", &[]);
    let w = workload(&v, "embed");
    let claims: Vec<&str> = w["resourceClaims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        claims,
        [
            "embed-7c5cb55b9d-dkzd7-gpu-5hg57",
            "embed-7c5cb55b9d-rmzjx-gpu-zpbhc",
            "embed-7c5cb55b9d-7nrnv-gpu-hplsx"
        ]
    );
    assert_eq!(
        nodes(w),
        BTreeMap::from([("pool-dra-a1".to_string(), 1), ("pool-dra-b1".to_string(), 1)])
    );
    for (pod, claim, allocated) in [
        ("embed-7c5cb55b9d-dkzd7", "embed-7c5cb55b9d-dkzd7-gpu-5hg57", true),
        ("embed-7c5cb55b9d-7nrnv", "embed-7c5cb55b9d-7nrnv-gpu-hplsx", false),
    ] {
        let rc = &c.resource_claims[&kschedtui::model::ObjectKey::new("ml", claim)];
        assert_eq!(
            rc.metadata.annotations.clone().unwrap(),
            strings(&[("resource.kubernetes.io/pod-claim-name", "gpu")])
        );
        let o = &rc.metadata.owner_references.as_ref().unwrap()[0];
        assert_eq!((o.kind.as_str(), o.name.as_str()), ("Pod", pod));
        assert_eq!(rc.status.as_ref().is_some_and(|s| s.allocation.is_some()), allocated);
        let p = c.pod(&kschedtui::model::ObjectKey::new("ml", pod)).unwrap();
        let st = p.obj.status.clone().unwrap().resource_claim_statuses.unwrap();
        assert_eq!(
            (st[0].name.as_str(), st[0].resource_claim_name.as_deref()),
            ("gpu", Some(claim))
        );
    }
    assert_eq!(w["reason"], "8× cannot allocate all claims");
}

/// A native gang (1.36, GenericWorkload and GangScheduling): a PodGroup of minCount 3 and a Job
/// whose pods name it. With room for 2, none is scheduled; with room for 3, all of them.
#[test]
fn a_native_gang_is_placed_all_or_nothing() {
    let gang = |cpu: &str| {
        format!(
            "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {{name: train, namespace: ml}}\nspec: {{schedulingPolicy: {{gang: {{minCount: 3}}}}}}\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {{name: train, namespace: ml}}\nspec:\n  parallelism: 3\n  completions: 3\n  completionMode: Indexed\n  template:\n    spec:\n      schedulingGroup: {{podGroupName: train}}\n      restartPolicy: Never\n      tolerations: [{{key: nvidia.com/gpu, operator: Exists}}]\n      containers: [{{name: c, image: t, resources: {{limits: {{nvidia.com/gpu: '{cpu}'}}}}}}]\n"
        )
    };
    let run = |gpus: &str| {
        let (code, out, err) = kschedtui(
            &[
                "fit",
                "--demo",
                "-f",
                "-",
                "-o",
                "json",
                "--no-fixes",
                "--scheduler-version",
                "1.36",
                "--feature-gates",
                "GenericWorkload=true,GangScheduling=true",
            ],
            Some(&gang(gpus)),
        );
        assert!(matches!(code, Some(0 | 3)), "{err}");
        (code, serde_json::from_str::<Value>(&out).unwrap())
    };
    // the demo's GPU nodes have 3 free GPUs: 3 pods of 1 fit, 3 pods of 2 do not
    let (code, v) = run("1");
    let w = workload(&v, "train");
    assert_eq!((code, w["scheduled"].as_u64()), (Some(0), Some(3)), "{w}");
    let (code, v) = run("2");
    let w = workload(&v, "train");
    assert_eq!(
        (code, w["scheduled"].as_u64(), w["unschedulable"].as_u64()),
        (Some(3), Some(0), Some(3)),
        "{w}"
    );
    assert_eq!(w["reason"], "gang 1/3");
    assert_eq!(
        w["message"],
        "0/1 nodes are available: 1 rejected due to timeout after waiting 5m0s at plugin GangScheduling."
    );
    assert!(v["schedulerVersion"].as_str().unwrap().starts_with("1.36."), "{v}");
}

/// `-f DIR` reads every manifest of the directory in name order, as `kubectl apply -f DIR`; the
/// workloads are created in that order (one queue for all of them).
#[test]
fn a_directory_is_read_file_by_file_in_name_order() {
    let v = fit_json(&["-f", "fixtures/fit/", "--no-fixes"]);
    let names: Vec<&str> = v["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "sandbox",
            "cache",
            "embed",
            "search",
            "log-agent",
            "monthly-report",
            "cleanup",
            "debug-shell",
            "storefront"
        ]
    );
    // `-n` names the namespace of manifests that name none; stdin is `-`
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: lone}\nspec: {containers: [{name: c, image: x}]}\n";
    let (code, out, err) = kschedtui(&["fit", "--demo", "-f", "-", "-n", "batch", "-o", "json"], Some(pod));
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (
            v["workloads"][0]["namespace"].as_str(),
            v["workloads"][0]["scheduled"].as_u64()
        ),
        (Some("batch"), Some(1))
    );
}

/// `--replicas` and `--max` on the demo: by placing, anti-affinity caps the storefront at 7
/// whatever the count asked for.
#[test]
fn replicas_and_max_on_the_demo() {
    let v = fit_json(&[
        "-f",
        "fixtures/fit/storefront.yaml",
        "--no-fixes",
        "--max",
        "--replicas",
        "3",
    ]);
    let w = workload(&v, "storefront");
    assert_eq!(
        (
            w["replicas"].as_u64(),
            w["scheduled"].as_u64(),
            w["maxReplicas"].as_u64()
        ),
        (Some(3), Some(3), Some(7))
    );
    assert_eq!(w["maxSearch"]["method"], "linear");
    assert_eq!(w["maxSearch"]["placements"], 8);
    assert_eq!(w["message"], Value::Null);
}

/// `--config`: a KubeSchedulerConfiguration without InterPodAffinity ignores the storefront's
/// anti-affinity; `--scheduler-version` reproduces another release.
#[test]
fn config_and_scheduler_version_choose_the_scheduler() {
    let dir = crate::scratch::temp_dir("fitcfg");
    let cfg = dir.path().join("cfg.yaml");
    std::fs::write(
        &cfg,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n      disabled: [{name: InterPodAffinity}]\n",
    )
    .unwrap();
    let v = fit_json(&[
        "-f",
        "fixtures/fit/storefront.yaml",
        "--no-fixes",
        "--config",
        cfg.to_str().unwrap(),
    ]);
    let w = workload(&v, "storefront");
    assert_eq!(w["scheduled"].as_u64(), Some(8), "{w}");
    let v = fit_json(&[
        "-f",
        "fixtures/fit/storefront.yaml",
        "--no-fixes",
        "--scheduler-version",
        "1.30",
    ]);
    assert_eq!(v["schedulerVersion"], "1.30.6");
    let w = workload(&v, "storefront");
    assert_eq!(w["scheduled"].as_u64(), Some(7));
    assert_eq!(
        w["message"],
        "0/14 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 1 node(s) were unschedulable, 2 node(s) had untolerated taint {dra: present}, 2 node(s) had untolerated taint {nvidia.com/gpu: present}, 3 node(s) didn't match pod anti-affinity rules, 5 Insufficient cpu."
    );
}

/// The fix hints of a replica that does not fit change the workload's pod template: the
/// replica and its ReplicaSet do not exist.
#[test]
fn fix_hints_change_the_workloads_template() {
    let v = fit_json(&["-f", "fixtures/fit/storefront.yaml"]);
    let fixes = workload(&v, "storefront")["fixes"].as_array().unwrap().clone();
    let commands: Vec<&str> = fixes.iter().filter_map(|f| f["command"].as_str()).collect();
    assert_eq!(
        commands,
        [
            "kubectl set resources deployment storefront -n shop -c web --requests=cpu=850m,memory=2880Mi",
            "kubectl uncordon pool-general-c3",
            r#"kubectl patch deployment storefront -n shop --type=json -p '[{"op":"add","path":"/spec/template/spec/tolerations","value":[{"key":"dra","operator":"Equal","value":"present","effect":"NoSchedule"}]}]'"#,
        ]
    );
    let tolerate = fixes.iter().find(|f| f["kind"] == "Tolerate").unwrap();
    assert_eq!(
        tolerate["note"],
        "a change to Deployment shop/storefront's pod template (spec.template.spec): make it in the manifest before applying it (the command makes it on a Deployment already in the cluster)"
    );
}
