//! Every kind of the kinds table survives load → save → load: the saved snapshot lists the
//! same objects, and the pending pod's explanation is the same, through the YAML parser, the
//! JSON parser and the JSON fast path.

use std::collections::BTreeSet;
use std::sync::Arc;

use kschedtui::engine::{self, Release, Snapshot};
use kschedtui::model::kinds::Kind;
use kschedtui::model::{Cluster, ObjectKey};
use kschedtui::source::{file, save};

const EVERY_KIND: &str = include_str!("data/every-kind.yaml");

fn kinds_in(c: &Cluster) -> BTreeSet<String> {
    let list = save::to_list(c);
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| format!("{} {}", i["apiVersion"].as_str().unwrap(), i["kind"].as_str().unwrap()))
        .collect()
}

fn explanation(c: Cluster) -> serde_json::Value {
    let release = Release::NEWEST;
    let snap = Snapshot::new(Arc::new(c), release);
    let profiles = engine::build_profiles(None, release).unwrap();
    let ex = engine::explain(&snap, &profiles, &ObjectKey::new("team", "pending")).unwrap();
    kschedtui::explain::json::to_value(&ex)
}

#[test]
fn every_kind_round_trips_through_save_and_load() {
    let first = file::load_str("every-kind.yaml", EVERY_KIND).unwrap();
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    assert!(first.skipped.is_empty(), "{:?}", first.skipped);
    let kinds = kinds_in(&first);
    let want: BTreeSet<String> = Kind::ALL
        .iter()
        .map(|k| format!("{} {}", k.api_version(), k.name()))
        .collect();
    assert_eq!(
        kinds, want,
        "the fixture holds one object of every kind and saving keeps them all"
    );
    let before = save::to_list(&first);
    let expected = explanation(first);
    for json in [true, false] {
        let again = file::load_str("every-kind.yaml", EVERY_KIND).unwrap();
        let text = save::to_text(&again, json).unwrap();
        let name = if json { "saved.json" } else { "saved.yaml" };
        let back = file::load_str(name, &text).unwrap();
        assert!(back.warnings.is_empty(), "{name}: {:?}", back.warnings);
        assert_eq!(save::to_list(&back), before, "{name}: the same objects");
        assert_eq!(explanation(back), expected, "{name}: the same explanation");
    }
}
