//! Native gang scheduling at 1.37 on `data/gang-137.yaml`: conformance scenario gang/004
//! converted to the 1.37 API (scheduling.k8s.io/v1beta1 Workload and PodGroups; one basic
//! group with a driver, one gang of four workers with minCount 3, two pods without a group).
//! v1.37.0's GangScheduling keeps 1.36's PreEnqueue and Permit code for PodGroups without a
//! parent CompositePodGroup, so its PreEnqueue and Permit verdicts are upstream v1.36.2's
//! answers for the same scenario; PlacementFeasible is new and asserted value by value.

use std::sync::Arc;

use kschedtui::engine::{self, Release, Snapshot};
use kschedtui::model::ObjectKey;
use kschedtui::source::file;
use serde_json::{Value, json};

const SNAPSHOT: &str = include_str!("data/gang-137.yaml");
const ANSWERS_1_36: &str = include_str!("../conformance/gang/004.1.36.json");

/// The pending pods, in the order the cluster lists them (by namespace and name).
const PENDING: [(&str, &str); 7] = [
    ("ml", "ray-cluster-0-driver-0"),
    ("ml", "ray-cluster-0-workers-0"),
    ("ml", "ray-cluster-0-workers-1"),
    ("ml", "ray-cluster-0-workers-2"),
    ("ml", "ray-cluster-0-workers-3"),
    ("team-a", "worker-5d8f7c9b4-zpdnn"),
    ("team-b", "web-6a1e2b3c5-fv4hp"),
];

/// Every pending pod's `explain -o json` at 1.37 with `gates`.
fn explain_all(gates: &str) -> Vec<(String, Value)> {
    let release = Release::at(37);
    let gates = engine::FeatureGates::parse(gates).unwrap();
    let features = engine::Features::with_gates(release, &gates).unwrap();
    let profiles = engine::build_profiles(None, &features).unwrap();
    let cluster = file::load_str("gang-137.yaml", SNAPSHOT).unwrap();
    assert!(cluster.warnings.is_empty(), "{:?}", cluster.warnings);
    assert_eq!(cluster.pod_groups_v1beta1.len(), 2);
    assert_eq!(cluster.workloads_v1beta1.len(), 1);
    let snap = Snapshot::new(Arc::new(cluster), &features);
    let order: Vec<(String, String)> = snap
        .cluster
        .pending_pods()
        .iter()
        .map(|p| (p.key.namespace.to_string(), p.key.name.to_string()))
        .collect();
    let want: Vec<(String, String)> = PENDING.iter().map(|(n, p)| (n.to_string(), p.to_string())).collect();
    assert_eq!(order, want);
    PENDING
        .iter()
        .map(|(ns, name)| {
            let ex = engine::explain(&snap, &profiles, &ObjectKey::new(*ns, *name)).unwrap();
            (format!("{ns}/{name}"), kschedtui::explain::json::to_value(&ex))
        })
        .collect()
}

/// GangScheduling's entry among the PreEnqueue verdicts.
fn gang_pre_enqueue(v: &Value) -> Option<Value> {
    v["preEnqueue"]
        .as_array()?
        .iter()
        .find(|p| p["plugin"] == "GangScheduling")
        .cloned()
}

#[test]
fn gang_1_37_pre_enqueue_and_permit_are_upstream_1_36_verdicts() {
    let want: Vec<Value> = serde_json::from_str(ANSWERS_1_36).unwrap();
    let got = explain_all("GenericWorkload=true");
    assert_eq!(want.len(), got.len());
    for (key, g) in &got {
        let w = want
            .iter()
            .find(|w| {
                format!(
                    "{}/{}",
                    w["pod"]["namespace"].as_str().unwrap(),
                    w["pod"]["name"].as_str().unwrap()
                ) == *key
            })
            .unwrap();
        assert_eq!(gang_pre_enqueue(g), gang_pre_enqueue(w), "{key}: PreEnqueue");
        assert!(gang_pre_enqueue(g).is_some(), "{key}: GangScheduling is in the profile");
        // kschedtui's own `notes` (an extra the conformance comparison ignores) left out.
        let mut permit = g.get("permit").cloned();
        if let Some(Value::Array(list)) = &mut permit {
            for p in list.iter_mut() {
                if let Value::Object(m) = p {
                    m.remove("notes");
                }
            }
        }
        assert_eq!(permit.as_ref(), w.get("permit"), "{key}: Permit");
    }
}

#[test]
fn gang_1_37_placement_feasible_before_any_member_and_after_each_pod() {
    let got = explain_all("GenericWorkload=true");
    let pf = |i: usize| got[i].1["gang"]["placementFeasible"].clone();
    // No group: no gang at all.
    assert_eq!(got[5].1.get("gang"), None);
    assert_eq!(got[6].1.get("gang"), None);
    // The basic group: quorum 1, its only member found a node.
    assert_eq!(
        pf(0),
        json!({
            "minCount": 1,
            "before": {"scheduled": 0, "remaining": 1, "code": "Wait",
                       "reason": "minCount (1) is not yet satisfied: 0 scheduled, 1 remaining"},
            "afterThisPod": {"scheduled": 1, "remaining": 0, "code": "Success"},
        })
    );
    // The gang: four pending workers, none scheduled; each fits alone, so after its own
    // attempt one is scheduled and three remain.
    for (key, ex) in &got[1..5] {
        assert_eq!(
            ex["gang"]["placementFeasible"],
            json!({
                "minCount": 3,
                "before": {"scheduled": 0, "remaining": 4, "code": "Wait",
                           "reason": "minCount (3) is not yet satisfied: 0 scheduled, 4 remaining"},
                "afterThisPod": {"scheduled": 1, "remaining": 3, "code": "Wait",
                                 "reason": "minCount (3) is not yet satisfied: 1 scheduled, 3 remaining"},
            }),
            "{key}"
        );
        assert_eq!(
            ex["gang"]["group"],
            "PodGroup ml/ray-cluster-0-workers (1.37 schedules the members together in a pod-group cycle; each is explained alone, with PlacementFeasible's verdict before any member and after this one)"
        );
    }
}

#[test]
fn gang_1_37_default_gates_leave_gang_scheduling_out() {
    // GenericWorkload is beta and off by default at 1.37; the GangScheduling gate is gone.
    for (key, g) in explain_all("") {
        assert_eq!(gang_pre_enqueue(&g), None, "{key}");
        assert_eq!(g.get("gang"), None, "{key}");
        let permit = g.get("permit").cloned().unwrap_or(Value::Null);
        assert!(
            permit
                .as_array()
                .is_none_or(|a| a.iter().all(|p| p["plugin"] != "GangScheduling")),
            "{key}: {permit}"
        );
    }
}
