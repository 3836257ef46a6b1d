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

/// A generated cluster (nodes in zones with taints and labels, bound pods with affinity,
/// spread and ports, one pending pod) plus the demo's pending pods' kinds of constraints.
fn generated(nodes: usize, pods: usize, seed: u64) -> serde_json::Value {
    kschedtui::source::generate::generate(kschedtui::source::generate::GenSpec::new(nodes, pods, seed))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]
    /// The same generated cluster read as JSON and as YAML, and in any object order, gives
    /// byte-identical explanations.
    #[test]
    fn generated_clusters_explain_the_same_as_json_yaml_and_in_any_order(
        seed in any::<u64>(), nodes in 1usize..40, pods in 0usize..200, shuffle in any::<u64>()
    ) {
        let v = generated(nodes, pods, seed);
        let json = serde_json::to_string(&v).unwrap();
        let yaml = serde_yaml::to_string(&v).unwrap();
        let from_json = explain_all(file::load_str("g.json", &json).unwrap());
        let from_yaml = explain_all(file::load_str("g.yaml", &yaml).unwrap());
        prop_assert_eq!(&from_json, &from_yaml);
        let mut warnings = Vec::new();
        let mut objects = file::read_objects_str("g.json", &json, &mut warnings).unwrap();
        fastrand::Rng::with_seed(shuffle).shuffle(&mut objects);
        prop_assert_eq!(&from_json, &explain_all(Cluster::build(objects).unwrap()));
    }

    /// Saving a cluster and loading the file back changes no explanation (YAML and JSON).
    #[test]
    fn save_then_load_changes_no_explanation(seed in any::<u64>(), nodes in 1usize..30, pods in 0usize..150) {
        let v = generated(nodes, pods, seed);
        let c = file::load_str("g.json", &serde_json::to_string(&v).unwrap()).unwrap();
        let before = explain_all(c.clone());
        for json in [false, true] {
            let text = kschedtui::source::save::to_text(&c, json).unwrap();
            let back = file::load_str(if json { "s.json" } else { "s.yaml" }, &text).unwrap();
            prop_assert_eq!(&before, &explain_all(back));
        }
    }
}
