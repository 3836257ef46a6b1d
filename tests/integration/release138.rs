//! Release 1.38 as a user meets it, through the binary: `--scheduler-version 1.38` against
//! 1.37 on the same snapshots, for the behaviour changes 1.38 brings (docs/releases.md). There
//! is no conformance corpus of 1.38 answers yet; these pin the changes the release tables list.

use crate::scratch::temp_dir;
use serde_json::Value;
use std::process::Command;

/// `explain ns/pod -o json` of `snapshot` (YAML) at `release`.
fn explain(snapshot: &str, pod: &str, release: &str) -> Value {
    let dir = temp_dir("release138");
    let f = dir.path().join("s.yaml");
    std::fs::write(&f, snapshot).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args([
            "explain",
            pod,
            "--snapshot",
            f.to_str().unwrap(),
            "-o",
            "json",
            "--scheduler-version",
            release,
        ])
        .output()
        .expect("run kschedtui");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn selected(ex: &Value) -> Vec<String> {
    ex["selected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

const NODES: &str = "
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a1, labels: {zone: a}}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
- {apiVersion: v1, kind: Node, metadata: {name: b1, labels: {zone: b}}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
";

/// kubernetes#141340: `labelSelector: {}` counts the two pods of zone a at 1.38, so maxSkew 1
/// leaves zone b only; at 1.37 it counted none and a1 passed Filter.
#[test]
fn an_empty_spread_selector_counts_the_namespace_at_1_38() {
    let text = format!(
        "{NODES}- {{apiVersion: v1, kind: Pod, metadata: {{name: x1, namespace: default}}, spec: {{nodeName: a1, containers: [{{name: c, image: i}}]}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: x2, namespace: default, labels: {{app: other}}}}, spec: {{nodeName: a1, containers: [{{name: c, image: i}}]}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: p, namespace: default}}, spec: {{containers: [{{name: c, image: i}}], topologySpreadConstraints: [{{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {{}}}}]}}}}
"
    );
    let a1 = |ex: &Value| {
        ex["filter"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["node"] == "a1")
            .unwrap()
            .clone()
    };
    let ex = explain(&text, "default/p", "1.37");
    assert_eq!(a1(&ex)["feasible"], true);
    let ex = explain(&text, "default/p", "1.38");
    assert_eq!(ex["schedulerVersion"], "1.38.0");
    assert_eq!(selected(&ex), ["b1"]);
    let a1 = a1(&ex);
    assert_eq!(a1["feasible"], false);
    assert_eq!(a1["plugin"], "PodTopologySpread");
    assert_eq!(a1["reasons"][0], "node(s) didn't match pod topology spread constraints");
}

/// kubernetes#141785: an empty-selector PDB with no disruption left covers a1's unlabeled pod
/// at 1.38, so preemption prefers b1 (whose victim is in another namespace); 1.37 ignored the
/// PDB and took a1, the node of the lower-priority victim.
#[test]
fn preemption_counts_an_empty_selector_pdb_at_1_38() {
    let text = format!(
        "{NODES}- {{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {{name: all, namespace: default}}, spec: {{selector: {{}}}}, status: {{disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: v1, namespace: default}}, spec: {{nodeName: a1, priority: 1, containers: [{{name: c, image: i, resources: {{requests: {{cpu: '4'}}}}}}]}}, status: {{phase: Running}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: v2, namespace: other}}, spec: {{nodeName: b1, priority: 5, containers: [{{name: c, image: i, resources: {{requests: {{cpu: '4'}}}}}}]}}, status: {{phase: Running}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: p, namespace: default}}, spec: {{priority: 10, containers: [{{name: c, image: i, resources: {{requests: {{cpu: '4'}}}}}}]}}}}
"
    );
    let ex = explain(&text, "default/p", "1.37");
    assert_eq!(ex["postFilter"]["nominatedNode"], "a1");
    let ex = explain(&text, "default/p", "1.38");
    assert_eq!(ex["postFilter"]["nominatedNode"], "b1");
}
