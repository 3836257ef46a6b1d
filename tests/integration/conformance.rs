//! Runs every scenario of the conformance corpus (tests/conformance, copied from the upstream
//! oracle's output for kube-scheduler v1.30.6) through the engine with `--scheduler-version 1.30`
//! and compares each pod's explanation with upstream's field by field: preFilter,
//! preFilterNodeNames, filter (reasons as a set), score, selected, message, postFilter.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use kschedtui::engine::{self, Release, Snapshot};
use kschedtui::explain::json::to_value;
use kschedtui::source::file;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance")
}

/// The comparable form of one explanation: only the contract's keys, reasons as sets.
fn canonical(v: &Value) -> Value {
    let mut o = serde_json::Map::new();
    for k in [
        "pod",
        "profile",
        "nodeCount",
        "preFilterNodeNames",
        "selected",
        "message",
    ] {
        o.insert(k.into(), v.get(k).cloned().unwrap_or(Value::Null));
    }
    let pre: Vec<Value> = v["preFilter"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            serde_json::json!({"plugin": p["plugin"], "code": p["code"],
                "reasons": p.get("reasons").cloned().unwrap_or(Value::Array(vec![]))})
        })
        .collect();
    o.insert("preFilter".into(), Value::Array(pre));
    let filter: Vec<Value> = v["filter"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            let mut reasons: Vec<String> = f["reasons"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|r| r.as_str().map(String::from))
                .collect();
            reasons.sort();
            serde_json::json!({"node": f["node"], "feasible": f["feasible"], "plugin": f.get("plugin"),
                "code": f.get("code"), "reasons": reasons})
        })
        .collect();
    o.insert("filter".into(), Value::Array(filter));
    o.insert("score".into(), v.get("score").cloned().unwrap_or(Value::Array(vec![])));
    let pf = v.get("postFilter").map(|p| {
        serde_json::json!({"plugin": p["plugin"], "code": p["code"], "nominatedNode": p["nominatedNode"],
            "victims": p["victims"], "message": p["message"]})
    });
    o.insert("postFilter".into(), pf.unwrap_or(Value::Null));
    Value::Object(o)
}

/// The first differing key between two canonical explanations.
fn first_difference(want: &Value, got: &Value) -> Option<String> {
    let (Value::Object(w), Value::Object(g)) = (want, got) else {
        return Some("shape".into());
    };
    for (k, wv) in w {
        let gv = g.get(k).unwrap_or(&Value::Null);
        if wv != gv {
            let show = |v: &Value| {
                let s = v.to_string();
                if s.len() > 300 { format!("{}…", &s[..300]) } else { s }
            };
            return Some(format!("{k}: want {} got {}", show(wv), show(gv)));
        }
    }
    None
}

/// Runs one scenario; returns (pods, pods agreeing, first disagreement).
fn run_scenario(yaml: &Path) -> Result<(usize, usize, Option<String>), String> {
    let stem = yaml.file_stem().unwrap().to_string_lossy().to_string();
    let dir = yaml.parent().unwrap();
    let want: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{stem}.json"))).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    let want = match want {
        Value::Array(a) => a,
        v => vec![v],
    };
    let version: Release = "1.30".parse().unwrap();
    let cfg_path = dir.join(format!("{stem}.config.yaml"));
    let cfg = if cfg_path.exists() {
        Some(engine::SchedulerConfig::parse(&std::fs::read_to_string(&cfg_path).unwrap()).map_err(|e| e.to_string())?)
    } else {
        None
    };
    let profiles = engine::build_profiles(cfg.as_ref(), version).map_err(|e| e.to_string())?;
    let cluster = file::load_path(yaml).map_err(|e| e.to_string())?;
    let snap = Snapshot::new(Arc::new(cluster), version);
    let order: Vec<String> = snap.cluster.pending_pods().iter().map(|p| p.key.to_string()).collect();
    let mut got: BTreeMap<String, Value> = BTreeMap::new();
    for p in snap.cluster.pending_pods() {
        let ex = engine::explain(&snap, &profiles, &p.key).map_err(|e| e.to_string())?;
        got.insert(p.key.to_string(), to_value(&ex));
    }
    let want_order: Vec<String> = want
        .iter()
        .map(|w| {
            format!(
                "{}/{}",
                w["pod"]["namespace"].as_str().unwrap_or(""),
                w["pod"]["name"].as_str().unwrap_or("")
            )
        })
        .collect();
    let mut agree = 0;
    let mut first = None;
    if want_order != order && first.is_none() {
        first = Some(format!("pending order: want {want_order:?} got {order:?}"));
    }
    for (w, key) in want.iter().zip(&want_order) {
        match got.get(key) {
            Some(g) => match first_difference(&canonical(w), &canonical(g)) {
                None => agree += 1,
                Some(d) => {
                    if first.is_none() {
                        first = Some(format!("{key}: {d}"));
                    }
                }
            },
            None => {
                if first.is_none() {
                    first = Some(format!("{key}: not explained"));
                }
            }
        }
    }
    Ok((want.len(), agree, first))
}

fn expected_failures() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(corpus().join("expected_failures.txt")).unwrap();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, why) = l.split_once(' ').unwrap_or((l, ""));
            (k.to_string(), why.trim().to_string())
        })
        .collect()
}

#[test]
fn conformance_corpus_agrees_with_upstream_1_30() {
    let expected = expected_failures();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    let (mut all_pods, mut all_agree, mut all_scen, mut all_scen_ok) = (0, 0, 0, 0);
    for folder in folders {
        let fname = folder.file_name().unwrap().to_string_lossy().to_string();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let s = p.to_string_lossy();
                s.ends_with(".yaml") && !s.ends_with(".config.yaml") && p.with_extension("json").exists()
            })
            .collect();
        files.sort();
        let (mut pods, mut agree, mut scen_ok) = (0, 0, 0);
        for f in &files {
            let stem = f.file_stem().unwrap().to_string_lossy().to_string();
            let id = format!("{fname}/{stem}");
            seen.insert(id.clone());
            let listed = expected.get(&id);
            match run_scenario(f) {
                Ok((n, ok, first)) => {
                    pods += n;
                    agree += ok;
                    let full = first.is_none();
                    scen_ok += usize::from(full);
                    match (full, listed) {
                        (false, None) => problems.push(format!("{id}: disagrees: {}", first.unwrap_or_default())),
                        (true, Some(why)) => problems.push(format!(
                            "{id}: now agrees; remove it from expected_failures.txt ({why})"
                        )),
                        _ => {}
                    }
                }
                Err(e) => problems.push(format!("{id}: error: {e}")),
            }
        }
        println!(
            "conformance {fname}: {scen_ok}/{} scenarios, {agree}/{pods} pods agree",
            files.len()
        );
        all_pods += pods;
        all_agree += agree;
        all_scen += files.len();
        all_scen_ok += scen_ok;
    }
    for k in expected.keys() {
        if !seen.contains(k) {
            problems.push(format!("{k}: listed in expected_failures.txt but not in the corpus"));
        }
    }
    println!("conformance total: {all_scen_ok}/{all_scen} scenarios, {all_agree}/{all_pods} pods agree");
    assert!(
        problems.is_empty(),
        "{} conformance problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
