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
