//! Runs every scenario of the conformance corpus (tests/conformance, a copy of the upstream
//! oracle's answers: `NNN.json` from kube-scheduler v1.30.6, `NNN.1.32.json` … `NNN.1.36.json`
//! from v1.32.5 … v1.36.2) through the engine at each release, with the scenario's
//! configuration (`NNN.config.yaml`), feature gates (`NNN.gates`) and per-release snapshot
//! (`NNN.1.36.yaml`) where it has them, and compares each pod's explanation with upstream's field
//! by field: preFilter, preFilterNodeNames, filter (reasons as a set), score, selected, message,
//! postFilter, and preEnqueue / permit where the answer carries them. One test per release;
//! each prints its agreement per folder.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

use kschedtui::engine::{self, Release, Snapshot};
use kschedtui::explain::json::to_value;
use kschedtui::model::Cluster;
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
    for (k, with_timeout) in [("preEnqueue", false), ("permit", true)] {
        if let Some(list) = v.get(k).and_then(Value::as_array) {
            // The oracle asked every PreEnqueue plugin for its verdict; the queue stops at
            // the first rejection (`runPreEnqueuePlugins`), so the plugins after it never run
            // and kschedtui lists none of them. No pod of the corpus is rejected by two.
            let upto = if k == "preEnqueue" {
                list.iter()
                    .position(|e| e["code"] != "Success")
                    .map_or(list.len(), |i| i + 1)
            } else {
                list.len()
            };
            let items: Vec<Value> = list[..upto]
                .iter()
                .map(|e| {
                    let mut reasons: Vec<String> = e["reasons"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|r| r.as_str().map(String::from))
                        .collect();
                    reasons.sort();
                    let mut item = serde_json::json!({"plugin": e["plugin"], "code": e["code"], "reasons": reasons});
                    if with_timeout {
                        item["timeoutMs"] = e.get("timeoutMs").cloned().unwrap_or(Value::Null);
                    }
                    item
                })
                .collect();
            o.insert(k.into(), Value::Array(items));
        }
    }
    Value::Object(o)
}

/// The first differing key between two canonical explanations (the optional preEnqueue and
/// permit keys are judged only where the answer has them).
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

/// A scenario at one release: its snapshot, answers, configuration and gates.
struct Scenario {
    id: String,
    snapshot: PathBuf,
    answers: PathBuf,
    config: Option<PathBuf>,
    gates: Option<String>,
}

/// The scenarios of `folder` with answers of `release`.
fn scenarios(folder: &Path, release: &str) -> Vec<Scenario> {
    let fname = folder.file_name().unwrap().to_string_lossy().to_string();
    let answer_ext = if release == "1.30" {
        ".json".to_string()
    } else {
        format!(".{release}.json")
    };
    let mut stems: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().to_string();
            let stem = name.strip_suffix(&answer_ext)?;
            // `NNN.json` is 1.30's answer; `NNN.1.32.json` another release's.
            let other_release = stem
                .rsplit_once(".1.")
                .is_some_and(|(_, m)| !m.is_empty() && m.chars().all(|c| c.is_ascii_digit()));
            (!other_release).then(|| stem.to_string())
        })
        .collect();
    stems.sort();
    stems
        .into_iter()
        .filter_map(|stem| {
            let own = folder.join(format!("{stem}.{release}.yaml"));
            let snapshot = if own.exists() {
                own
            } else {
                folder.join(format!("{stem}.yaml"))
            };
            if !snapshot.exists() {
                return None;
            }
            let config = Some(folder.join(format!("{stem}.config.yaml"))).filter(|p| p.exists());
            let gates = std::fs::read_to_string(folder.join(format!("{stem}.gates")))
                .ok()
                .map(|g| g.trim().to_string());
            Some(Scenario {
                id: format!("{fname}/{stem}"),
                answers: folder.join(format!("{stem}{answer_ext}")),
                snapshot,
                config,
                gates,
            })
        })
        .collect()
}

/// A snapshot file loaded once for all the releases' tests: loading (YAML decoding in the
/// unoptimized test build) was two thirds of the corpus' CPU time, and what is loaded does not
/// depend on the release (the release comes in with `Snapshot::new`). One cell per file, so
/// two releases' tests wanting the same file load it once.
fn cached_cluster(path: &Path) -> Result<Arc<Cluster>, String> {
    type Cells = Mutex<HashMap<PathBuf, Arc<OnceLock<Result<Arc<Cluster>, String>>>>>;
    static CELLS: OnceLock<Cells> = OnceLock::new();
    let cell = {
        let mut cells = CELLS.get_or_init(Default::default).lock().unwrap();
        Arc::clone(cells.entry(path.to_path_buf()).or_default())
    };
    cell.get_or_init(|| file::load_path(path).map(Arc::new).map_err(|e| e.to_string()))
        .clone()
}

/// Runs one scenario; returns (pods, pods agreeing, first disagreement).
fn run_scenario(s: &Scenario, release: Release) -> Result<(usize, usize, Option<String>), String> {
    let want: Value = serde_json::from_str(&std::fs::read_to_string(&s.answers).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let want = match want {
        Value::Array(a) => a,
        v => vec![v],
    };
    let gates = engine::FeatureGates::parse(s.gates.as_deref().unwrap_or("")).map_err(|e| e.to_string())?;
    let features = engine::Features::with_gates(release, &gates).map_err(|e| e.to_string())?;
    let cfg = match &s.config {
        Some(p) => {
            Some(engine::SchedulerConfig::parse(&std::fs::read_to_string(p).unwrap()).map_err(|e| e.to_string())?)
        }
        None => None,
    };
    let profiles = engine::build_profiles(cfg.as_ref(), &features).map_err(|e| e.to_string())?;
    let snap = Snapshot::new(cached_cluster(&s.snapshot)?, &features);
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
    if want_order != order {
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

/// `expected_failures.txt`: "RELEASE FOLDER/NNN why" → why.
fn expected_failures() -> BTreeMap<(String, String), String> {
    let text = std::fs::read_to_string(corpus().join("expected_failures.txt")).unwrap();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut it = l.splitn(3, ' ');
            let release = it.next().unwrap_or("").to_string();
            let id = it.next().unwrap_or("").to_string();
            ((release, id), it.next().unwrap_or("").trim().to_string())
        })
        .collect()
}

/// Runs the corpus at one release and fails on any disagreement not listed as expected.
fn corpus_agrees_at(release: &str) {
    let Ok(rel) = release.parse::<Release>() else {
        println!("conformance {release}: not reproduced by this build, skipped");
        return;
    };
    let expected: BTreeMap<(String, String), String> = expected_failures()
        .into_iter()
        .filter(|((r, _), _)| r == release)
        .collect();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    let (mut all_pods, mut all_agree, mut all_scen, mut all_scen_ok) = (0, 0, 0, 0);
    let mut lines = Vec::new();
    for folder in folders {
        let list = scenarios(&folder, release);
        if list.is_empty() {
            continue;
        }
        let fname = folder.file_name().unwrap().to_string_lossy().to_string();
        let (mut pods, mut agree, mut scen_ok) = (0, 0, 0);
        for s in &list {
            seen.insert(s.id.clone());
            let listed = expected.get(&(release.to_string(), s.id.clone()));
            match run_scenario(s, rel) {
                Ok((n, ok, first)) => {
                    pods += n;
                    agree += ok;
                    let full = first.is_none();
                    scen_ok += usize::from(full);
                    match (full, listed) {
                        (false, None) => {
                            problems.push(format!("{release} {}: disagrees: {}", s.id, first.unwrap_or_default()))
                        }
                        (true, Some(why)) => problems.push(format!(
                            "{release} {}: now agrees; remove it from expected_failures.txt ({why})",
                            s.id
                        )),
                        _ => {}
                    }
                }
                Err(e) => {
                    if listed.is_none() {
                        problems.push(format!("{release} {}: error: {e}", s.id));
                    }
                }
            }
        }
        lines.push(format!(
            "conformance {release} {fname}: {scen_ok}/{} scenarios, {agree}/{pods} pods agree",
            list.len()
        ));
        all_pods += pods;
        all_agree += agree;
        all_scen += list.len();
        all_scen_ok += scen_ok;
    }
    for (_, k) in expected.keys() {
        if !seen.contains(k) {
            problems.push(format!(
                "{release} {k}: listed in expected_failures.txt but not in the corpus"
            ));
        }
    }
    lines.push(format!(
        "conformance {release} total: {all_scen_ok}/{all_scen} scenarios, {all_agree}/{all_pods} pods agree"
    ));
    // One print, so the lines of releases tested in parallel do not interleave.
    println!("{}", lines.join("\n"));
    assert!(
        problems.is_empty(),
        "{} conformance problems at {release}:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn conformance_1_30() {
    corpus_agrees_at("1.30");
}

#[test]
fn conformance_1_32() {
    corpus_agrees_at("1.32");
}

#[test]
fn conformance_1_33() {
    corpus_agrees_at("1.33");
}

#[test]
fn conformance_1_34() {
    corpus_agrees_at("1.34");
}

#[test]
fn conformance_1_35() {
    corpus_agrees_at("1.35");
}

#[test]
fn conformance_1_36() {
    corpus_agrees_at("1.36");
}
