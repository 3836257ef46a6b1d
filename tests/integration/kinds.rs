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

/// The verdict of every pending pod, without names: per node (in node order) the rejecting
/// plugin and its reasons, the score totals, how many nodes are selected.
fn shape(c: Cluster, release: Release) -> Vec<serde_json::Value> {
    let snap = Snapshot::new(Arc::new(c), release);
    let profiles = engine::build_profiles(None, release).unwrap();
    let keys: Vec<ObjectKey> = snap.cluster.pending_pods().iter().map(|p| p.key.clone()).collect();
    keys.iter()
        .map(|k| {
            let ex = engine::explain(&snap, &profiles, k).unwrap();
            serde_json::json!({
                "filter": ex.filter.iter().map(|f| f.failure.as_ref().map(|x| (x.plugin, x.reasons.clone()))).collect::<Vec<_>>(),
                "scores": ex.score.iter().map(|s| s.total).collect::<Vec<_>>(),
                "selected": ex.selected.len(),
                "dra": ex.dra.as_ref().map(|d| d.nodes.iter().map(|n| (n.verdict.clone(), n.requests.iter().map(|r| (r.devices, r.class_match, r.selector_match, r.free, r.usable)).collect::<Vec<_>>())).collect::<Vec<_>>()),
            })
        })
        .collect()
}

#[test]
fn anonymized_dra_snapshots_explain_the_same_way() {
    // Drivers, pools, devices, classes and claims are replaced; selectors follow the drivers
    // and keep the attribute values they compare.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/dra");
    let mut checked = 0;
    for n in 0..30 {
        let path = dir.join(format!("{n:03}.yaml"));
        let mut warnings = Vec::new();
        let objects = file::read_objects(&path, &mut warnings).unwrap();
        let state = kschedtui::model::event::ClusterState::from_objects(objects);
        let plain = kschedtui::source::snapshot::items(&state, false);
        let mut anon = plain.clone();
        let dict = kschedtui::source::anonymize::anonymize(&mut anon);
        // Reasons that name objects (a missing class) name their placeholders: each word
        // that was replaced is.
        fn rename(v: serde_json::Value, dict: &kschedtui::source::anonymize::Dictionary) -> serde_json::Value {
            match v {
                serde_json::Value::String(t) => serde_json::Value::String(
                    t.split(' ')
                        .map(|w| {
                            if w.contains(['.', '-']) {
                                dict.get(w).unwrap_or(w)
                            } else {
                                w
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                serde_json::Value::Array(a) => a.into_iter().map(|x| rename(x, dict)).collect(),
                serde_json::Value::Object(m) => m.into_iter().map(|(k, x)| (k, rename(x, dict))).collect(),
                other => other,
            }
        }
        let text = |items: Vec<serde_json::Value>| {
            serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()
        };
        if std::env::var("DUMP_ANON").is_ok() {
            std::fs::write(format!("/tmp/anon-{n:03}.json"), text(anon.clone())).unwrap();
        }
        let a = file::load_str("anon.json", &text(anon.clone())).unwrap();
        let p = file::load_str("plain.json", &text(plain)).unwrap();
        let s = serde_json::to_string(&anon).unwrap();
        for secret in ["gpu.example.com", "nic.example.com"] {
            assert!(
                !s.contains(secret),
                "{n:03}: {secret} left: {}",
                &s[s.find(secret).unwrap().saturating_sub(200)..(s.find(secret).unwrap() + 60).min(s.len())]
            );
        }
        for release in [Release::at(34), Release::at(36)] {
            let want: Vec<serde_json::Value> = shape(p.clone(), release)
                .into_iter()
                .map(|v| rename(v, &dict))
                .collect();
            let got = shape(a.clone(), release);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{n:03} at {release}, pending pod #{i}");
            }
            assert_eq!(got.len(), want.len());
        }
        checked += 1;
    }
    assert_eq!(checked, 30);
}
