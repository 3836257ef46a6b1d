//! `snapshot --anonymize` on every snapshot under fixtures/ (the demo is fixtures/demo.yaml), the
//! conformance corpus' gang scenarios and a 1.35 / 1.36 / 1.37 native gang written here: the
//! anonymized file explains every pending pod as the original does, with the names mapped, and
//! holds no string of the original longer than three characters that the anonymizer does not
//! keep by design.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use kschedtui::engine::{self, FeatureGates, Features, Release, Snapshot};
use kschedtui::model::ObjectKey;
use kschedtui::model::event::ClusterState;
use kschedtui::source::anonymize::Dictionary;
use kschedtui::source::file;
use kschedtui::source::snapshot::{SnapshotOptions, anonymized_items, render};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Every .yaml / .json file under `dir`, recursively, in name order.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml" || x == "json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Placeholder → original: placeholders (`pod-0001`, `driver-0001.example`, `10.0.0.1`) are
/// made up, so a word of the anonymized explanation that is one is a name the anonymizer
/// replaced, and only such a word (mapping the original's words the other way would also
/// rename words that happen to equal a name: a pod `v1` and `/api/v1`).
struct Reverse(std::collections::HashMap<String, String>);

impl Reverse {
    fn new(d: &Dictionary) -> Self {
        Reverse(
            d.originals()
                .map(|o| (d.get(o).unwrap().to_string(), o.to_string()))
                .collect(),
        )
    }

    /// `s` with each placeholder in it (the whole string, else each run of name characters)
    /// replaced by the original.
    fn str(&self, s: &str) -> String {
        if let Some(o) = self.0.get(s) {
            return o.clone();
        }
        let mut out = String::with_capacity(s.len());
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            out.push_str(self.0.get(word.as_str()).map_or(word.as_str(), String::as_str));
            word.clear();
        };
        for c in s.chars() {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_') {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
        flush(&mut word, &mut out);
        out
    }

    fn value(&self, v: Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.str(&s)),
            Value::Array(a) => a.into_iter().map(|x| self.value(x)).collect(),
            Value::Object(m) => m.into_iter().map(|(k, x)| (self.str(&k), self.value(x))).collect(),
            other => other,
        }
    }
}

/// The explanation of every pending pod (its JSON and its gang's group cycle), by pod.
fn explanations(c: kschedtui::model::Cluster, features: &Features) -> Vec<(ObjectKey, Value)> {
    let snap = Snapshot::new(Arc::new(c), features);
    let profiles = engine::build_profiles(None, features).unwrap();
    let keys: Vec<ObjectKey> = snap.cluster.pending_pods().iter().map(|p| p.key.clone()).collect();
    keys.into_iter()
        .map(|k| {
            let ex = engine::explain(&snap, &profiles, &k).unwrap();
            let group = ex.gang.clone().map(|g| {
                let cycle = engine::group_cycle::group_cycle_of(&snap.cluster, &profiles, features, &k, g);
                serde_json::to_value(&cycle).unwrap()
            });
            let v = serde_json::json!({"explanation": kschedtui::explain::json::to_value(&ex), "groupCycle": group});
            (k, v)
        })
        .collect()
}

/// The releases (and gates) a snapshot is explained at: every release with its default gates,
/// and what the file's header comment asks for (`--scheduler-version V --feature-gates G`).
fn feature_sets(text: &str, file_release: Option<Release>, file_gates: Option<&str>) -> Vec<Features> {
    let mut out: Vec<Features> = Release::known().iter().map(|r| Features::new(*r)).collect();
    let header: String = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ");
    let arg = |flag: &str| {
        let i = header.find(flag)? + flag.len();
        header[i..].split_whitespace().next().map(str::to_string)
    };
    let release = arg("--scheduler-version ")
        .map(|v| v.parse::<Release>().unwrap())
        .or(file_release);
    let gates = arg("--feature-gates ").or(file_gates.map(str::to_string));
    if let (Some(r), Some(g)) = (release, gates) {
        out.push(Features::with_gates(r, &FeatureGates::parse(&g).unwrap()).unwrap());
    }
    out
}

/// Fields whose values the anonymizer keeps by design (module doc of source::anonymize):
/// enumerations and constants, label and taint keys, scheduler names (a profile matches them),
/// CSI driver names, times.
const KEPT_FIELDS: &[&str] = &[
    "apiVersion",
    "kind",
    "operator",
    "effect",
    "phase",
    "type",
    "status",
    "reason",
    "whenUnsatisfiable",
    "nodeAffinityPolicy",
    "nodeTaintsPolicy",
    "preemptionPolicy",
    "restartPolicy",
    "imagePullPolicy",
    "protocol",
    "volumeBindingMode",
    "reclaimPolicy",
    "accessModes",
    "volumeMode",
    "schedulerName",
    "key",
    "topologyKey",
    "matchLabelKeys",
    "mismatchLabelKeys",
    "provisioner",
    "driver",
    "attacher",
    "fsType",
    "allocationMode",
    "creationTimestamp",
    "deletionTimestamp",
    "startTime",
    "lastTransitionTime",
    "lastProbeTime",
    "lastHeartbeatTime",
    "eventTime",
    "firstTimestamp",
    "lastTimestamp",
    "lastObservedTime",
    "resourceVersion",
    "finalizers",
    "podManagementPolicy",
    "kubernetes.io/os",
    "kubernetes.io/arch",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
    "kubernetes.io/metadata.name",
    "apiGroup",
    "terminationMessagePolicy",
    "dnsPolicy",
    "qosClass",
    "resource",
    "request",
    "disruptionMode",
    "volumeLifecycleModes",
    "fsGroupPolicy",
    "topologyKeys",
];

/// An RFC 3339 time (`2024-05-01T07:07:30Z`): kept as it is.
fn time_like(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 20 && b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[..4].iter().all(u8::is_ascii_digit)
}

/// A number or a quantity (`500m`, `1.5Gi`, `10`): kept as they are.
fn quantity_like(s: &str) -> bool {
    let digits = s.trim_start_matches(['+', '-']);
    let end = digits
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(digits.len());
    end > 0
        && matches!(
            &digits[end..],
            "" | "m" | "n" | "u" | "k" | "M" | "G" | "T" | "P" | "E" | "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei"
        )
}

/// Every string value of `v` (not map keys), except in kept fields: those of [`KEPT_FIELDS`]
/// and the names of DRA requests (results and constraints name them).
fn strings(v: &Value, parent: &str, out: &mut Vec<String>) {
    match v {
        Value::String(s) if !KEPT_FIELDS.contains(&parent) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, parent, out)),
        Value::Object(m) => m
            .iter()
            .filter(|(k, _)| !(k.as_str() == "name" && matches!(parent, "requests" | "firstAvailable")))
            .for_each(|(k, x)| strings(x, k, out)),
        _ => {}
    }
}

/// The string literals of the CEL selectors (`expression` under `cel`) of `v`.
fn cel_literals(v: &Value, parent: &str, out: &mut Vec<String>) {
    match v {
        Value::String(e) if parent == "expression" => {
            let mut rest = e.as_str();
            while let Some(i) = rest.find('"') {
                let after = &rest[i + 1..];
                let Some(j) = after.find('"') else { break };
                if !after[..j].is_empty() {
                    out.push(after[..j].to_string());
                }
                rest = &after[j + 1..];
            }
        }
        Value::Array(a) => a.iter().for_each(|x| cel_literals(x, parent, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| cel_literals(x, k, out)),
        _ => {}
    }
}

/// A string of the anonymized file with its placeholders (`pod-0001`, `driver-0001.example`,
/// `10.0.0.1`) cut out.
fn without_placeholders(s: &str) -> String {
    let mut out = String::new();
    for word in s.split_inclusive(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.')) {
        let (w, sep) = match word.char_indices().last() {
            Some((i, c)) if !(c.is_ascii_alphanumeric() || c == '-' || c == '.') => (&word[..i], &word[i..]),
            _ => (word, ""),
        };
        let placeholder = w
            .rsplit_once('-')
            .is_some_and(|(p, n)| !p.is_empty() && n.len() >= 4 && n.bytes().all(|b| b.is_ascii_digit()))
            || (w.starts_with("driver-") && w.ends_with(".example"))
            || w.starts_with("10.");
        if !placeholder {
            out.push_str(w);
        }
        out.push_str(sep);
    }
    out
}

/// The anonymized snapshot of `path` explains like the original at every feature set, and keeps
/// no original string. Returns how many pending-pod explanations were compared (0 for manifests
/// without nodes or pods, such as fit's workloads), None when the
/// file is not a snapshot that loads (an invalid fixture, a policy file).
fn check(path: &Path, release: Option<Release>, gates: Option<&str>) -> Option<usize> {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.strip_prefix(root()).unwrap().display().to_string();
    let mut warnings = Vec::new();
    let objects = file::read_objects(path, &mut warnings).ok()?;
    let original = file::load_path(path).ok()?;
    if original.nodes.is_empty() && original.pods.is_empty() {
        // manifests alone (fit's workloads): nothing to explain
        return Some(0);
    }
    let state = ClusterState::from_objects(objects);
    let (items, dict) = anonymized_items(&state);
    let json = render(
        &state,
        &SnapshotOptions {
            anonymize: true,
            json: true,
            ..Default::default()
        },
    )
    .unwrap();
    let rendered: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(rendered["items"], Value::Array(items.clone()), "{name}");
    let yaml = render(
        &state,
        &SnapshotOptions {
            anonymize: true,
            ..Default::default()
        },
    )
    .unwrap();
    let anon = file::load_str("anon.yaml", &yaml).unwrap_or_else(|e| panic!("{name}: {e}\n{yaml}"));

    // The same explanations, names mapped back.
    let reverse = Reverse::new(&dict);
    let mut compared = 0;
    for features in feature_sets(&text, release, gates) {
        let want = explanations(original.clone(), &features);
        let got: std::collections::BTreeMap<ObjectKey, Value> = explanations(anon.clone(), &features)
            .into_iter()
            .map(|(k, v)| {
                (
                    ObjectKey::new(reverse.str(&k.namespace), reverse.str(&k.name)),
                    reverse.value(v),
                )
            })
            .collect();
        assert_eq!(got.len(), want.len(), "{name} at {}: pending pods", features.describe());
        for (k, w) in want {
            let g = got
                .get(&k)
                .unwrap_or_else(|| panic!("{name} at {}: {k} is not pending once anonymized", features.describe()));
            if g != &w {
                panic!(
                    "{name} at {}: {k} explains differently once anonymized\n--- original\n{}\n--- anonymized (names mapped back)\n{}",
                    features.describe(),
                    serde_json::to_string_pretty(&w).unwrap(),
                    serde_json::to_string_pretty(g).unwrap()
                );
            }
            compared += 1;
        }
    }
    // Nothing of the original is left (beyond what is kept by design).
    let mut originals = Vec::new();
    let plain = serde_json::from_str::<Value>(
        &render(
            &state,
            &SnapshotOptions {
                json: true,
                ..Default::default()
            },
        )
        .unwrap(),
    )
    .unwrap();
    strings(&plain["items"], "", &mut originals);
    let mut kept: BTreeSet<&str> = [
        "default",
        "kube-system",
        "kube-public",
        "kube-node-lease",
        "system-cluster-critical",
        "system-node-critical",
        "latest",
    ]
    .into();
    // CSI drivers are named after the driver, kept everywhere
    let csi: Vec<String> = plain["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "CSIDriver")
        .filter_map(|i| i["metadata"]["name"].as_str().map(str::to_string))
        .collect();
    kept.extend(csi.iter().map(String::as_str));
    let mut left = Vec::new();
    strings(&rendered["items"], "", &mut left);
    let left: Vec<String> = left.iter().map(|s| without_placeholders(s)).collect();
    // the string literals of DRA's CEL selectors are kept (the selectors compare attributes
    // with them), and with them the attribute values they mention
    let mut literals = Vec::new();
    cel_literals(&plain["items"], "", &mut literals);
    let mut leaks = Vec::new();
    for o in originals.iter().collect::<BTreeSet<_>>() {
        if o.chars().count() <= 3
            || quantity_like(o)
            || time_like(o)
            || kept.contains(o.as_str())
            || literals
                .iter()
                .any(|l| l.contains(o.as_str()) || o.contains(l.as_str()))
        {
            continue;
        }
        if let Some(hit) = left
            .iter()
            .find(|l| l.contains(o.as_str()) && !kept.contains(l.as_str()))
        {
            leaks.push(format!("'{o}' in {hit:?}"));
        }
    }
    assert!(
        leaks.is_empty(),
        "{name}: left in the anonymized snapshot:\n{}",
        leaks.join("\n")
    );

    Some(compared)
}

#[test]
fn every_fixture_explains_the_same_once_anonymized_and_keeps_no_name() {
    let mut checked = Vec::new();
    let mut compared = 0;
    for path in files_under(&root().join("fixtures")) {
        if let Some(n) = check(&path, None, None) {
            checked.push(path.file_name().unwrap().to_string_lossy().into_owned());
            compared += n;
        }
    }
    // every fixture with pending pods, the demo among them
    for f in [
        "demo.yaml",
        "gang.yaml",
        "gang-placements.yaml",
        "gang-preemption.yaml",
        "queue.yaml",
        "seeds-worked-example.yaml",
        "tui-test.yaml",
        "warnings.yaml",
        "anti-affinity.yaml",
        "low-utilization.yaml",
    ] {
        assert!(checked.iter().any(|c| c == f), "{f} was not compared: {checked:?}");
    }
    println!("{} fixtures, {compared} explanations compared", checked.len());
    assert!(compared > 100, "{compared} explanations compared");
}

#[test]
fn the_conformance_gang_scenarios_explain_the_same_once_anonymized() {
    let dir = root().join("tests/conformance/gang");
    let mut compared = 0;
    for path in files_under(&dir) {
        let stem = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(rest) = stem.strip_suffix(".yaml") else {
            continue;
        };
        let (n, minor) = rest.split_once('.').unwrap();
        let release: Release = minor.parse().unwrap();
        let gates = std::fs::read_to_string(dir.join(format!("{n}.gates"))).unwrap();
        compared += check(&path, Some(release), Some(gates.trim())).unwrap();
    }
    println!("gang corpus: {compared} explanations compared");
    assert!(compared > 28, "{compared} explanations compared");
}

#[test]
fn the_test_snapshots_explain_the_same_once_anonymized() {
    let dir = root().join("tests/integration/data");
    let mut compared = 0;
    for path in files_under(&dir) {
        compared += check(&path, None, None).unwrap();
    }
    println!("test snapshots: {compared} explanations compared");
    assert!(compared > 20, "{compared} explanations compared");
}

/// The 1.35 gang keeps its members (spec.workloadRef, which the loader keeps in an annotation,
/// is written back and renamed with the Workload), and env values, CSI volumeAttributes and a
/// controller's finalizer are gone.
#[test]
fn an_anonymized_1_35_gang_keeps_its_workload_ref_and_drops_secrets() {
    let path = root().join("tests/integration/data/anonymize-gangs-135.yaml");
    let objects = file::read_objects(&path, &mut Vec::new()).unwrap();
    let state = ClusterState::from_objects(objects);
    let (items, dict) = anonymized_items(&state);
    let pod = items
        .iter()
        .find(|i| i["kind"] == "Pod" && i["metadata"]["name"] == dict.get("trainer-workers-0").unwrap())
        .unwrap();
    assert_eq!(
        pod["spec"]["workloadRef"],
        serde_json::json!({
            "name": dict.get("trainer-job").unwrap(),
            "podGroup": dict.get("trainer-workers").unwrap(),
            "podGroupReplicaKey": dict.get("replica-one").unwrap(),
        })
    );
    assert!(pod["metadata"].get("annotations").is_none(), "{pod}");
    assert!(
        pod["metadata"]
            .get("finalizers")
            .is_none_or(|f| f == &serde_json::json!([])),
        "{pod}"
    );
    assert!(pod["spec"]["containers"][0].get("env").is_none(), "{pod}");
    let workload = items.iter().find(|i| i["kind"] == "Workload").unwrap();
    assert_eq!(workload["metadata"]["name"], dict.get("trainer-job").unwrap());
    assert_eq!(
        workload["spec"]["podGroups"][0]["name"],
        dict.get("trainer-workers").unwrap()
    );
    let pv = items.iter().find(|i| i["kind"] == "PersistentVolume").unwrap();
    assert_eq!(
        pv["metadata"]["finalizers"],
        serde_json::json!(["kubernetes.io/pv-protection"])
    );
    assert!(pv["spec"]["csi"].get("volumeAttributes").is_none(), "{pv}");
    let text = serde_json::to_string(&items).unwrap();
    for secret in [
        "hunter2",
        "acme-confidential",
        "eu-secret-1",
        "acme-vault-provider",
        "cleanup-hook",
        "acme-api-token",
        "trainer",
        "replica-one",
        "ml-research",
    ] {
        assert!(!text.contains(secret), "{secret} left: {text}");
    }
}

/// A snapshot of a live cluster never holds an environment variable's value, anonymized or
/// not: the live source drops them as it reads.
#[test]
fn env_values_are_dropped_from_objects_read_live() {
    let path = root().join("tests/integration/data/anonymize-gangs-135.yaml");
    let objects = file::read_objects(&path, &mut Vec::new()).unwrap();
    let (_, mut pod) = objects
        .into_iter()
        .find(|(_, o)| o.meta().name.as_deref() == Some("trainer-workers-0"))
        .unwrap();
    pod.drop_env_values();
    let v = pod.to_json();
    assert_eq!(
        v["spec"]["containers"][0]["env"],
        serde_json::json!([{"name": "DATABASE_PASSWORD"}, {"name": "API_TOKEN"}])
    );
}
