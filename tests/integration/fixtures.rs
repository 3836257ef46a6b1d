//! The bundled fixtures: the seeds' worked example and the demo cluster.

use std::sync::Arc;

use kschedtui::engine::{self, Release, Snapshot};
use kschedtui::model::ObjectKey;
use kschedtui::source::file;

fn explain(path: &str, pod: &str, version: &str) -> kschedtui::engine::trace::Explanation {
    let version: Release = version.parse().unwrap();
    let cluster = file::load_path(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    let snap = Snapshot::new(Arc::new(cluster), version);
    let profiles = engine::build_profiles(None, version).unwrap();
    engine::explain(&snap, &profiles, &ObjectKey::parse(pod, "default")).unwrap()
}

#[test]
fn seeds_worked_example_node_1_wins() {
    // Three 8-CPU/16Gi nodes: node-1 at 60% cpu / 50% memory, node-2 at 90% / 10%, node-3 tainted.
    let ex = explain("fixtures/seeds-worked-example.yaml", "default/web-1", "1.30");
    assert_eq!(ex.selected, vec!["node-1".to_string()]);
    let totals: Vec<(String, i64)> = ex.score.iter().map(|s| (s.node.clone(), s.total)).collect();
    assert_eq!(totals, vec![("node-1".into(), 432), ("node-2".into(), 402)]);
    let n3 = ex.filter.iter().find(|f| f.node == "node-3").unwrap();
    assert!(!n3.feasible);
    assert_eq!(n3.failure.as_ref().unwrap().plugin, "TaintToleration");
}

#[test]
fn demo_cluster_loads_and_every_pending_pod_explains() {
    let cluster = file::load_str("demo", kschedtui::cli::DEMO_SNAPSHOT).unwrap();
    assert!(cluster.warnings.is_empty(), "{:?}", cluster.warnings);
    let version = Release::NEWEST;
    let snap = Snapshot::new(Arc::new(cluster), version);
    let profiles = engine::build_profiles(None, version).unwrap();
    let pending = snap.cluster.pending_pods();
    assert!(!pending.is_empty());
    for p in pending {
        engine::explain(&snap, &profiles, &p.key).unwrap();
    }
}
