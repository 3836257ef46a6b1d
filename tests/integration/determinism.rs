//! The engine is a pure function of the snapshot: the order of objects in the input does not
//! change a byte of the output.

use std::sync::Arc;

use proptest::prelude::*;

use kschedtui::engine::{self, Release, Snapshot};
use kschedtui::explain::json::to_value;
use kschedtui::model::Cluster;
use kschedtui::source::file;

fn explain_all(c: Cluster) -> String {
    let v = Release::NEWEST;
    let snap = Snapshot::new(Arc::new(c), v);
    let profiles = engine::build_profiles(None, v).unwrap();
    let out: Vec<serde_json::Value> = snap
        .cluster
        .pending_pods()
        .iter()
        .map(|p| to_value(&engine::explain(&snap, &profiles, &p.key).unwrap()))
        .collect();
    serde_json::to_string(&out).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, .. ProptestConfig::default() })]
    #[test]
    fn explain_is_invariant_under_input_order(seed in any::<u64>()) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo.yaml");
        let mut warnings = Vec::new();
        let objects = file::read_objects(&path, &mut warnings).unwrap();
        let base = explain_all(Cluster::build(objects.clone()).unwrap());
        let mut shuffled = objects;
        fastrand::Rng::with_seed(seed).shuffle(&mut shuffled);
        prop_assert_eq!(base, explain_all(Cluster::build(shuffled).unwrap()));
    }
}
