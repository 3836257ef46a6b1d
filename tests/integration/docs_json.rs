//! Every key each JSON document writes is named in its contract: docs/explain-json.md,
//! docs/queue-json.md, docs/simulate-json.md (docs/deschedule-json.md: tests/integration/
//! deschedule.rs). The documents are made by the binary on the demo and the fixtures at the
//! releases and gates that bring out their optional keys (gangs, pod groups, placements,
//! workload-aware preemption, DRA, preemption, the cluster's own word).

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Every key of `v`, not descending into the keys of `opaque` (values that are not kschedtui's
/// shapes: a Kubernetes object's fields, a map keyed by resource name, a document with its
/// own contract).
fn keys(v: &Value, opaque: &[&str], out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.insert(k.clone());
                if !opaque.contains(&k.as_str()) {
                    keys(x, opaque, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| keys(x, opaque, out)),
        _ => {}
    }
}

fn undocumented(doc: &str, all: &BTreeSet<String>) -> Vec<String> {
    all.iter()
        .filter(|k| !doc.contains(&format!("`{k}`")))
        .cloned()
        .collect()
}

const GANG_136: &str = "GenericWorkload=true,GangScheduling=true";

#[test]
fn every_explain_json_key_is_documented() {
    let runs: Vec<Vec<&str>> = vec![
        vec!["explain", "--demo", "--all-pending", "-o", "json"],
        vec![
            "explain",
            "--demo",
            "--all-pending",
            "-o",
            "json",
            "--scheduler-version",
            "1.36",
            "--feature-gates",
            GANG_136,
        ],
        vec![
            "explain",
            "--demo",
            "--all-pending",
            "-o",
            "json",
            "--scheduler-version",
            "1.30",
        ],
        vec![
            "explain",
            "--snapshot",
            "fixtures/gang-preemption.yaml",
            "--all-pending",
            "-o",
            "json",
            "--scheduler-version",
            "1.36",
            "--feature-gates",
            "GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true",
        ],
        vec![
            "explain",
            "--snapshot",
            "fixtures/gang-placements.yaml",
            "--all-pending",
            "-o",
            "json",
            "--scheduler-version",
            "1.36",
            "--feature-gates",
            "GenericWorkload=true,GangScheduling=true,TopologyAwareWorkloadScheduling=true",
        ],
        vec![
            "explain",
            "--snapshot",
            "fixtures/gang.yaml",
            "--all-pending",
            "-o",
            "json",
        ],
        vec![
            "explain",
            "--snapshot",
            "fixtures/queue.yaml",
            "--all-pending",
            "-o",
            "json",
        ],
    ];
    let mut all = BTreeSet::new();
    let mut outcomes = BTreeSet::new();
    for args in &runs {
        let v = json(args);
        for ex in v.as_array().unwrap() {
            outcomes.insert(ex["outcome"].as_str().unwrap().to_string());
        }
        keys(&v, &["body"], &mut all);
    }
    let doc = include_str!("../../docs/explain-json.md");
    let missing = undocumented(doc, &all);
    assert!(missing.is_empty(), "not in docs/explain-json.md: {missing:?}");
    assert!(all.len() > 130, "{} keys: {all:?}", all.len());
    // the outcomes these runs reach, each documented with its meaning
    for o in &outcomes {
        assert!(
            doc.contains(&format!("| `{o}` |")),
            "outcome {o} is not in the outcome table"
        );
    }
    assert!(outcomes.len() >= 6, "{outcomes:?}");
    for o in kschedtui::engine::trace::Outcome::ALL {
        assert!(doc.contains(&format!("| `{}` |", o.as_str())), "{o:?}");
    }
}

#[test]
fn every_queue_json_key_is_documented() {
    let mut all = BTreeSet::new();
    keys(&json(&["queue", "--demo", "-o", "json"]), &[], &mut all);
    keys(
        &json(&[
            "queue",
            "--demo",
            "-o",
            "json",
            "--scheduler-version",
            "1.36",
            "--feature-gates",
            GANG_136,
        ]),
        &[],
        &mut all,
    );
    let missing = undocumented(include_str!("../../docs/queue-json.md"), &all);
    assert!(missing.is_empty(), "not in docs/queue-json.md: {missing:?}");
    assert_eq!(all.len(), 13, "{all:?}");
}

#[test]
fn every_simulate_json_key_is_documented() {
    let mut all = BTreeSet::new();
    // an attempt's explanation and a wait's binding cycle have docs/explain-json.md's shapes;
    // `scalar` is keyed by resource name
    let opaque = ["explanation", "bindingCycle", "scalar"];
    for args in [
        vec!["simulate", "--demo", "-o", "json"],
        vec!["simulate", "--snapshot", "fixtures/gang.yaml", "-o", "json"],
        vec!["simulate", "--snapshot", "fixtures/queue.yaml", "-o", "json"],
    ] {
        keys(&json(&args), &opaque, &mut all);
    }
    let missing = undocumented(include_str!("../../docs/simulate-json.md"), &all);
    assert!(missing.is_empty(), "not in docs/simulate-json.md: {missing:?}");
    assert!(all.len() > 30, "{all:?}");
}
