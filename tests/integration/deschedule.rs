//! `kschedtui deschedule` as a user runs it, on the fixtures whose rescheduling result is
//! known (fixtures/deschedule): an anti-affinity violation whose evicted pod moves, a
//! LowNodeUtilization eviction whose replacement stays Pending, the sample policy on the
//! demo; text and JSON, exact values; the policy's errors name the file and the field.

use crate::scratch::temp_dir;
use std::process::{Command, Output};

use serde_json::Value;

const NOW: &str = "2026-12-01T12:00:00Z";
/// The release the replacements are scheduled with (pinned: a new release does not change
/// these outputs).
const SCHEDULER: &str = "1.37";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run kschedtui")
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("utf-8")
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&ok(args)).expect("JSON")
}

/// `deschedule` on fixtures/deschedule/NAME.yaml with NAME-policy.yaml, the clock and the
/// release pinned, then `extra`.
fn fixture(name: &str, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = vec![
        "deschedule".into(),
        "--snapshot".into(),
        format!("fixtures/deschedule/{name}.yaml"),
        "--policy".into(),
        format!("fixtures/deschedule/{name}-policy.yaml"),
        "--now".into(),
        NOW.into(),
        "--scheduler-version".into(),
        SCHEDULER.into(),
    ];
    v.extend(extra.iter().map(ToString::to_string));
    v
}

fn anti_affinity(extra: &[&str]) -> Vec<String> {
    fixture("anti-affinity", extra)
}

fn low_utilization(extra: &[&str]) -> Vec<String> {
    fixture("low-utilization", extra)
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn anti_affinity_violation_moves_to_another_node_text() {
    let out = ok(&strs(&anti_affinity(&[])));
    assert_eq!(out, ANTI_AFFINITY_TEXT);
}

#[test]
fn anti_affinity_violation_moves_to_another_node_json() {
    let v = json(&strs(&anti_affinity(&["-o", "json"])));
    assert_eq!(v["kind"], "DeschedulerDryRun");
    assert_eq!(v["now"], NOW);
    assert_eq!(v["nodes"], serde_json::json!(["node-1", "node-2"]));
    let p = &v["plugins"][0];
    assert_eq!(p["plugin"], "RemovePodsViolatingInterPodAntiAffinity");
    assert_eq!(p["extensionPoint"], "Deschedule");
    assert_eq!(p["evicted"], 1);
    assert_eq!(
        p["candidates"][0],
        serde_json::json!({
            "pod": {"namespace": "shop", "name": "web-0"},
            "node": "node-1",
            "reason": "violates anti-affinity with shop/db-0 on node-1 (topologyKey kubernetes.io/hostname)",
            "outcome": "Evicted",
            "why": [],
        })
    );
    assert_eq!(
        v["evictions"],
        serde_json::json!([{
            "pod": {"namespace": "shop", "name": "web-0"},
            "node": "node-1",
            "plugin": "RemovePodsViolatingInterPodAntiAffinity",
            "owner": "ReplicaSet/web-6b7c",
            "replacement": {"namespace": "shop", "name": "web-0-new"},
            "result": "Moved",
            "landingNode": "node-2",
            "message": null,
            "explanation": null,
        }])
    );
    assert_eq!(
        v["summary"],
        serde_json::json!({"evicted": 1, "moved": 1, "sameNode": 0, "pending": 0, "notRecreated": 0, "waitingOrHeld": 0})
    );
}

#[test]
fn low_utilization_eviction_leaves_the_replacement_pending_text() {
    let out = ok(&strs(&low_utilization(&[])));
    assert_eq!(out, LOW_UTILIZATION_TEXT);
}

#[test]
fn low_utilization_eviction_leaves_the_replacement_pending_json() {
    let v = json(&strs(&low_utilization(&["-o", "json"])));
    let p = &v["plugins"][0];
    assert_eq!(p["plugin"], "LowNodeUtilization");
    assert_eq!(p["extensionPoint"], "Balance");
    let outcomes: Vec<(&str, &str)> = p["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["pod"]["name"].as_str().unwrap(), c["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(outcomes, vec![("debug-shell", "Protected"), ("hog-0", "Evicted")]);
    assert_eq!(
        p["candidates"][0]["why"],
        serde_json::json!(["pod does not have any ownerRefs"])
    );
    let e = &v["evictions"][0];
    assert_eq!(e["result"], "Pending");
    assert_eq!(
        e["replacement"],
        serde_json::json!({"namespace": "default", "name": "hog-0-new"})
    );
    assert_eq!(e["landingNode"], Value::Null);
    assert_eq!(e["message"], PENDING_MESSAGE);
    // the replacement's whole explanation (explain-json-v1)
    assert_eq!(
        e["explanation"]["pod"],
        serde_json::json!({"namespace": "default", "name": "hog-0-new"})
    );
    assert_eq!(e["explanation"]["kind"], "Explanation");
    assert_eq!(e["explanation"]["message"], PENDING_MESSAGE);
    assert_eq!(e["explanation"]["filter"][0]["node"], "node-a");
    assert_eq!(e["explanation"]["filter"][0]["plugin"], "TaintToleration");
    assert_eq!(v["summary"]["pending"], 1);
}

#[test]
fn the_sample_policy_shows_real_candidates_on_the_demo() {
    let out = ok(&[
        "--demo",
        "deschedule",
        "--policy",
        "fixtures/deschedule/policy.yaml",
        "--now",
        NOW,
        "--scheduler-version",
        SCHEDULER,
    ]);
    assert_eq!(out, DEMO_TEXT);
}

/// PodLifeTime on the demo: bare pods protected, the PodDisruptionBudget refusing all but one
/// eviction, the StatefulSet pod back on its node.
#[test]
fn pod_lifetime_on_the_demo_refused_by_the_pdb_and_back_on_the_same_node() {
    let out = ok(&[
        "--demo",
        "deschedule",
        "--policy",
        "fixtures/deschedule/pod-lifetime-policy.yaml",
        "--now",
        NOW,
        "--scheduler-version",
        SCHEDULER,
    ]);
    assert_eq!(out, POD_LIFETIME_TEXT);
}

/// A limit reached: the pod is reported as cut, nothing is evicted.
#[test]
fn what_the_limits_cut_is_reported() {
    let dir_guard = temp_dir("deschedule-limit");
    let dir = dir_guard.path();
    let policy = dir.join("limit.yaml");
    let text = std::fs::read_to_string("fixtures/deschedule/low-utilization-policy.yaml")
        .unwrap()
        .replace(
            "kind: DeschedulerPolicy\n",
            "kind: DeschedulerPolicy\nmaxNoOfPodsToEvictTotal: 0\n",
        );
    std::fs::write(&policy, text).unwrap();
    let v = json(&[
        "deschedule",
        "--snapshot",
        "fixtures/deschedule/low-utilization.yaml",
        "--policy",
        &policy.display().to_string(),
        "--now",
        NOW,
        "--scheduler-version",
        SCHEDULER,
        "-o",
        "json",
    ]);
    assert_eq!(
        v["limits"],
        serde_json::json!({"maxNoOfPodsToEvictPerNode": null, "maxNoOfPodsToEvictPerNamespace": null, "maxNoOfPodsToEvictTotal": 0})
    );
    let c = &v["plugins"][0]["candidates"][1];
    assert_eq!(c["pod"]["name"], "hog-0");
    assert_eq!(c["outcome"], "Limited");
    assert_eq!(
        c["why"],
        serde_json::json!(["maximum number of evicted pods per a descheduling cycle reached"])
    );
    assert_eq!(v["evictions"], serde_json::json!([]));
}

#[test]
fn namespace_filters_the_report_not_the_cycle() {
    let demo = |ns: &str| {
        json(&[
            "--demo",
            "deschedule",
            "--policy",
            "fixtures/deschedule/policy.yaml",
            "--now",
            NOW,
            "--scheduler-version",
            SCHEDULER,
            "-o",
            "json",
            "-n",
            ns,
        ])
    };
    let shop = demo("shop");
    assert_eq!(shop["namespace"], "shop");
    assert_eq!(shop["plugins"][1]["candidates"], serde_json::json!([]));
    assert_eq!(shop["evictions"], serde_json::json!([]));
    assert_eq!(shop["summary"]["evicted"], 0);
    let batch = demo("batch");
    let names: Vec<&str> = batch["plugins"][1]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["pod"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["etl-nightly-3"]);
    assert_eq!(batch["evictions"][0]["landingNode"], "pool-general-a1");
    assert_eq!(batch["evictions"][0]["result"], "Moved");
    let o = run(&strs(&low_utilization(&["-n", "nowhere"])));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).trim_end(),
        "error: namespace 'nowhere' has no pods in this cluster (and no Namespace object)"
    );
}

#[test]
fn same_input_same_bytes() {
    let a = run(&strs(&low_utilization(&["-o", "json"])));
    let b = run(&strs(&low_utilization(&["-o", "json"])));
    assert_eq!(a.stdout, b.stdout);
}

/// One deliberate mistake per file under fixtures/deschedule/invalid: one line naming the file
/// and the field, exit 1, nothing on stdout.
#[test]
fn policy_errors_name_the_file_and_the_field() {
    let cases = [
        (
            "bad-threshold",
            "error: fixtures/deschedule/invalid/bad-threshold.yaml: in profile p: thresholds config is not valid: cpu threshold not in [0, 100] range (at profiles[0].pluginConfig[0].args)",
        ),
        (
            "not-enabled-config",
            "error: fixtures/deschedule/invalid/not-enabled-config.yaml: field 'profiles[0].plugins': unable to create \"p\" profile: unable to build RemovePodsHavingTooManyRestarts plugin: unable to find \"RemovePodsHavingTooManyRestarts\" plugin config",
        ),
        (
            "unknown-field",
            "error: fixtures/deschedule/invalid/unknown-field.yaml: field 'profiles[0].pluginConfig[0].args.targetThreshold': unknown field \"targetThreshold\" (known: apiVersion, kind, useDeviationThresholds, thresholds, targetThresholds, numberOfNodes, metricsUtilization, evictableNamespaces, evictionLimits)",
        ),
        (
            "unknown-plugin",
            "error: fixtures/deschedule/invalid/unknown-plugin.yaml: in profile p: plugin RemoveDuplicate in pluginConfig not registered (at profiles[0].pluginConfig[0].name)",
        ),
        (
            "wrong-version",
            "error: fixtures/deschedule/invalid/wrong-version.yaml: field 'apiVersion': no kind \"DeschedulerPolicy\" is registered for version \"descheduler/v1alpha1\" (descheduler v0.36 reads descheduler/v1alpha2)",
        ),
    ];
    for (name, want) in cases {
        let path = format!("fixtures/deschedule/invalid/{name}.yaml");
        let o = run(&["deschedule", "--demo", "--policy", &path]);
        assert_eq!(o.status.code(), Some(1), "{name}");
        assert_eq!(String::from_utf8_lossy(&o.stderr).trim_end(), want, "{name}");
        assert!(o.stdout.is_empty(), "{name}: nothing on stdout");
    }
    let n = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/deschedule/invalid"))
        .unwrap()
        .count();
    assert_eq!(
        n,
        cases.len(),
        "add a case above for each new fixtures/deschedule/invalid file"
    );
    let o = run(&["deschedule", "--demo", "--policy", "fixtures/deschedule/nope.yaml"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .starts_with("error: cannot read descheduler policy 'fixtures/deschedule/nope.yaml': "),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = run(&[
        "deschedule",
        "--demo",
        "--policy",
        "fixtures/deschedule/policy.yaml",
        "--now",
        "yesterday",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .starts_with("error: --now 'yesterday' is not an RFC 3339 time such as 2026-12-01T12:00:00Z: "),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // usage errors exit 2, as for every command
    let o = run(&["deschedule", "--demo"]);
    assert_eq!(o.status.code(), Some(2));
}

/// Every key of the JSON (outside the replacement's explain-json-v1 `explanation`) is
/// documented in docs/deschedule-json.md.
#[test]
fn every_json_key_is_documented() {
    fn keys(v: &Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    out.insert(k.clone());
                    if k != "explanation" {
                        keys(x, out);
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
            _ => {}
        }
    }
    let doc = include_str!("../../docs/deschedule-json.md");
    let mut all = std::collections::BTreeSet::new();
    keys(&json(&strs(&anti_affinity(&["-o", "json"]))), &mut all);
    keys(&json(&strs(&low_utilization(&["-o", "json"]))), &mut all);
    keys(
        &json(&[
            "--demo",
            "deschedule",
            "--policy",
            "fixtures/deschedule/pod-lifetime-policy.yaml",
            "--now",
            NOW,
            "--scheduler-version",
            SCHEDULER,
            "-o",
            "json",
        ]),
        &mut all,
    );
    let missing: Vec<&String> = all.iter().filter(|k| !doc.contains(&format!("`{k}`"))).collect();
    assert!(missing.is_empty(), "not in docs/deschedule-json.md: {missing:?}");
    assert!(all.len() > 30, "{all:?}");
}

/// The README's sample is the command's output.
#[test]
fn the_readme_sample_is_the_real_output() {
    let readme = include_str!("../../README.md");
    assert!(
        readme.contains(ANTI_AFFINITY_TEXT),
        "README.md's deschedule sample is out of date"
    );
}

#[test]
fn help_says_it_writes_nothing() {
    let out = ok(&["deschedule", "--help"]);
    assert!(
        out.contains("nothing is ever written to the cluster, so --readonly and --dry-run change nothing here"),
        "{out}"
    );
}

const PENDING_MESSAGE: &str = "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient memory. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
const ANTI_AFFINITY_TEXT: &str = r#"Descheduler dry run of fixtures/deschedule/anti-affinity-policy.yaml at 2026-12-01T12:00:00Z (scheduler 1.37.0; 2 node(s): node-1, node-2)
Nothing is sent to the cluster: the evictions are applied in memory, then each evicted pod's replacement is scheduled.
Limits: none

Profile anti-affinity · Deschedule · RemovePodsViolatingInterPodAntiAffinity: 1 evicted
  Evicted    shop/web-0 on node-1: violates anti-affinity with shop/db-0 on node-1 (topologyKey kubernetes.io/hostname)

Evicted in memory: 1; their replacements, scheduled in the scheduler's queue order:
  shop/web-0 (ReplicaSet/web-6b7c) from node-1 by RemovePodsViolatingInterPodAntiAffinity → shop/web-0-new: moves to node-2

Summary: 1 evicted: 1 move(s) to another node, 0 return(s) to the same node, 0 Pending, 0 not recreated
"#;
const LOW_UTILIZATION_TEXT: &str = r#"Descheduler dry run of fixtures/deschedule/low-utilization-policy.yaml at 2026-12-01T12:00:00Z (scheduler 1.37.0; 3 node(s): node-a, node-b, node-c)
Nothing is sent to the cluster: the evictions are applied in memory, then each evicted pod's replacement is scheduled.
Limits: none

Profile balance · Balance · LowNodeUtilization: 1 evicted, 1 protected
  · under-utilized: every one of cpu at or below cpu 20%; over-utilized: any above cpu 50%
  · node-a: cpu 77.5%, memory 37.9%, pods 1.8% → overutilized (cpu 77.5% requested > 50%)
  · node-b: cpu 0%, memory 0%, pods 0% → underutilized
  · node-c: cpu 0%, memory 0%, pods 0% → underutilized
  · room on the destination nodes: cpu 4000, memory 8589934592, pods 220
  Protected  default/debug-shell on node-a: node node-a cpu 77.5% requested > 50% targetThreshold
             protected by DefaultEvictor: pod does not have any ownerRefs
  Evicted    default/hog-0 on node-a: node node-a cpu 77.5% requested > 50% targetThreshold

Evicted in memory: 1; their replacements, scheduled in the scheduler's queue order:
  default/hog-0 (ReplicaSet/hog-5d4f) from node-a by LowNodeUtilization → default/hog-0-new: Pending: 0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient memory. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.

Summary: 1 evicted: 0 move(s) to another node, 0 return(s) to the same node, 1 Pending, 0 not recreated
"#;
const DEMO_TEXT: &str = r#"Descheduler dry run of fixtures/deschedule/policy.yaml at 2026-12-01T12:00:00Z (scheduler 1.37.0; 14 node(s): cp-1, pool-dra-a1, pool-dra-b1, pool-general-a1, pool-general-a2, pool-general-a3, pool-general-b1, pool-general-b2, pool-general-b3, pool-general-c1, pool-general-c2, pool-general-c3, pool-gpu-a1, pool-gpu-b1)
Nothing is sent to the cluster: the evictions are applied in memory, then each evicted pod's replacement is scheduled.
Limits: maxNoOfPodsToEvictPerNode 2

Profile demo · Deschedule · RemovePodsViolatingNodeTaints: no candidate

Profile demo · Balance · LowNodeUtilization: 1 evicted, 2 protected
  · under-utilized: every one of cpu, memory at or below cpu 20%, memory 20%; over-utilized: any above cpu 70%, memory 70%
  · cp-1: cpu 2.5%, memory 0.8%, pods 0.9% → underutilized
  · pool-dra-a1: cpu 62.5%, memory 51.2%, pods 1.8% → appropriately utilized
  · pool-dra-b1: cpu 0%, memory 0%, pods 0% → underutilized
  · pool-general-a1: cpu 15%, memory 7.1%, pods 2.7% → underutilized
  · pool-general-a2: cpu 15.6%, memory 7.5%, pods 3.6% → underutilized
  · pool-general-a3: cpu 63.7%, memory 64.9%, pods 1.8% → appropriately utilized
  · pool-general-b1: cpu 16.2%, memory 7.5%, pods 3.6% → underutilized
  · pool-general-b2: cpu 89.4%, memory 90.9%, pods 3.6% → overutilized (cpu 89.4% requested > 70%, memory 90.9% requested > 70%)
  · pool-general-b3: cpu 63.7%, memory 64.9%, pods 1.8% → appropriately utilized
  · pool-general-c1: cpu 15%, memory 7.3%, pods 2.7% → underutilized
  · pool-general-c2: cpu 63.7%, memory 64.9%, pods 1.8% → appropriately utilized
  · pool-general-c3: cpu 1.2%, memory 0.4%, pods 0.9% → appropriately utilized
  · pool-gpu-a1: cpu 50.6%, memory 64.7%, pods 1.8% → appropriately utilized
  · pool-gpu-b1: cpu 38.1%, memory 48.6%, pods 1.8% → appropriately utilized
  · room on the destination nodes: cpu 42550, memory 188549903152, pods 645
  Protected  kube-system/kube-proxy-pool-general-b2 on pool-general-b2: node pool-general-b2 cpu 89.4% requested > 70%, memory 90.9% requested > 70% targetThreshold
             protected by DefaultEvictor: pod has system critical priority and is protected against eviction; pod has higher priority than specified priority class threshold; daemonset pods are protected against eviction
  Protected  monitoring/latency-probe on pool-general-b2: node pool-general-b2 cpu 89.4% requested > 70%, memory 90.9% requested > 70% targetThreshold
             protected by DefaultEvictor: pod does not have any ownerRefs
  Evicted    batch/etl-nightly-3 on pool-general-b2: node pool-general-b2 cpu 89.4% requested > 70%, memory 90.9% requested > 70% targetThreshold

Evicted in memory: 1; their replacements, scheduled in the scheduler's queue order:
  batch/etl-nightly-3 (StatefulSet/etl-nightly) from pool-general-b2 by LowNodeUtilization → batch/etl-nightly-3: moves to pool-general-a1

Summary: 1 evicted: 1 move(s) to another node, 0 return(s) to the same node, 0 Pending, 0 not recreated
"#;
const POD_LIFETIME_TEXT: &str = r#"Descheduler dry run of fixtures/deschedule/pod-lifetime-policy.yaml at 2026-12-01T12:00:00Z (scheduler 1.37.0; 14 node(s): cp-1, pool-dra-a1, pool-dra-b1, pool-general-a1, pool-general-a2, pool-general-a3, pool-general-b1, pool-general-b2, pool-general-b3, pool-general-c1, pool-general-c2, pool-general-c3, pool-gpu-a1, pool-gpu-b1)
Nothing is sent to the cluster: the evictions are applied in memory, then each evicted pod's replacement is scheduled.
Limits: none

Profile lifetime · Deschedule · PodLifeTime: 1 evicted, 3 protected, 3 refused
  Protected  batch/dedup-job-running-0 on pool-general-a2: age 75h0m0s > maxPodLifeTimeSeconds 86400
             protected by DefaultEvictor: pod does not have any ownerRefs
  Evicted    batch/etl-nightly-0 on pool-general-a3: age 75h0m0s > maxPodLifeTimeSeconds 86400
  Protected  batch/dedup-job-running-1 on pool-general-b1: age 75h0m0s > maxPodLifeTimeSeconds 86400
             protected by DefaultEvictor: pod does not have any ownerRefs
  Refused    batch/etl-nightly-3 on pool-general-b2: age 75h0m0s > maxPodLifeTimeSeconds 86400
             the eviction was refused: error when evicting pod (ignoring) "etl-nightly-3": Cannot evict pod as it would violate the pod's disruption budget. The disruption budget etl-pdb needs 3 healthy pods and has 4 currently
  Refused    batch/etl-nightly-1 on pool-general-b3: age 75h0m0s > maxPodLifeTimeSeconds 86400
             the eviction was refused: error when evicting pod (ignoring) "etl-nightly-1": Cannot evict pod as it would violate the pod's disruption budget. The disruption budget etl-pdb needs 3 healthy pods and has 4 currently
  Protected  batch/dedup-job-running-2 on pool-general-c1: age 75h0m0s > maxPodLifeTimeSeconds 86400
             protected by DefaultEvictor: pod does not have any ownerRefs
  Refused    batch/etl-nightly-2 on pool-general-c2: age 75h0m0s > maxPodLifeTimeSeconds 86400
             the eviction was refused: error when evicting pod (ignoring) "etl-nightly-2": Cannot evict pod as it would violate the pod's disruption budget. The disruption budget etl-pdb needs 3 healthy pods and has 4 currently

Evicted in memory: 1; their replacements, scheduled in the scheduler's queue order:
  batch/etl-nightly-0 (StatefulSet/etl-nightly) from pool-general-a3 by PodLifeTime → batch/etl-nightly-0: returns to the same node pool-general-a3

Summary: 1 evicted: 0 move(s) to another node, 1 return(s) to the same node, 0 Pending, 0 not recreated
"#;
