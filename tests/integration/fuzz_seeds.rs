//! Every fuzz target's body (kschedtui::fuzzing) runs over the seed corpus: the fixtures, the
//! invalid fixtures and a sample of the conformance snapshots, each whole and cut at several
//! points (so the parsers meet unterminated documents), plus inputs written for each target.
//! This is the smoke run CI does on every push; the coverage-guided runs use the same
//! functions through `cargo fuzz run --fuzz-dir tests/fuzz TARGET`.

use std::path::{Path, PathBuf};

use kschedtui::fuzzing;

fn files(dir: &str, filter: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && filter(p))
        .collect();
    v.sort();
    v
}

/// Whole, and cut at a quarter, a half, three quarters and one byte short.
fn cuts(data: &[u8]) -> Vec<&[u8]> {
    let n = data.len();
    vec![
        data,
        &data[..n / 4],
        &data[..n / 2],
        &data[..n * 3 / 4],
        &data[..n.saturating_sub(1)],
    ]
}

fn yaml_seeds() -> Vec<Vec<u8>> {
    let yaml = |p: &Path| p.extension().is_some_and(|e| e == "yaml" || e == "json");
    let mut seeds: Vec<PathBuf> = files("fixtures", yaml);
    seeds.extend(files("fixtures/invalid", yaml));
    // A sample of the corpus: small scenarios of each folder, JSON answers included.
    for dir in ["dra", "gang", "features", "config"] {
        seeds.extend(files(&format!("tests/conformance/{dir}"), yaml).into_iter().take(3));
    }
    seeds.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

fn snapshot_seeds() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = yaml_seeds().iter().flat_map(|s| cuts(s)).map(<[u8]>::to_vec).collect();
    for extra in ["", "{", "- - - [", "items: [{kind: Pod, metadata: {name: \u{0}}}]"] {
        v.push(extra.as_bytes().to_vec());
    }
    // what the coverage-guided runs found, kept as regressions
    v.extend(
        files("tests/fuzz/findings/snapshot", |_| true)
            .iter()
            .map(|p| std::fs::read(p).unwrap()),
    );
    v
}

#[test]
fn snapshot_target_survives_the_seed_corpus() {
    for seed in snapshot_seeds() {
        fuzzing::snapshot(&seed);
    }
}

/// The engine over every loadable seed, the first pending pods of the bigger ones too.
#[test]
fn snapshot_explain_survives_the_seed_corpus() {
    for seed in snapshot_seeds() {
        fuzzing::snapshot_explain(&seed);
    }
}

/// The gates each release's gang and DRA paths need, for the engine target's seeds.
const RELEASE_GATES: &[(&str, &str)] = &[
    ("v1.30.6", ""),
    ("v1.32.5", "DynamicResourceAllocation=true"),
    ("v1.34.7", ""),
    (
        "v1.35.7",
        "GenericWorkload=true,GangScheduling=true,TaintTolerationComparisonOperators=true",
    ),
    (
        "v1.36.2",
        "GenericWorkload=true,GangScheduling=true,TopologyAwareWorkloadScheduling=true,WorkloadAwarePreemption=true",
    ),
    ("v1.37.0", "GenericWorkload=true,CompositePodGroup=true"),
];

/// The `engine` target's seeds: the snapshot seeds (whole and cut), and the small YAML ones
/// again at each release with the gates that reach its gang, DRA and preemption paths (the
/// `kschedtuiSnapshot` key the target reads), and what the coverage-guided runs found.
fn engine_seeds() -> Vec<Vec<u8>> {
    let mut v = snapshot_seeds();
    let yaml = |p: &Path| p.extension().is_some_and(|e| e == "yaml");
    let mut small: Vec<PathBuf> = files("fixtures", yaml);
    small.extend(files("tests/integration/data", |p| {
        yaml(p)
            && p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("anonymize-gangs") || n == "refused.yaml")
    }));
    small.extend(files("tests/conformance/gang", yaml).into_iter().take(4));
    for p in small {
        let text = std::fs::read_to_string(&p).unwrap();
        if text.len() > 16 << 10 || !text.contains("\nitems:") {
            continue;
        }
        for (version, gates) in RELEASE_GATES {
            // first, where a fuzzer that cuts inputs short keeps it
            v.push(
                format!("kschedtuiSnapshot: {{kubernetesVersion: {version}, featureGates: '{gates}'}}\n{text}")
                    .into_bytes(),
            );
        }
    }
    // what the coverage-guided runs found (none kept yet is no directory)
    if Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz/findings/engine")
        .is_dir()
    {
        v.extend(
            files("tests/fuzz/findings/engine", |_| true)
                .iter()
                .map(|p| std::fs::read(p).unwrap()),
        );
    }
    v
}

/// The coverage-guided `engine` target (every pending pod of a small snapshot explained at the
/// release it records) over its seeds.
#[test]
fn engine_target_survives_the_seed_corpus() {
    let seeds = engine_seeds();
    assert!(seeds.len() > 100, "{} seeds", seeds.len());
    for seed in seeds {
        fuzzing::engine(&seed);
    }
}

const QUANTITIES: &[&str] = &[
    "",
    "0",
    "1",
    "-1",
    "1.5Gi",
    "9223372036854775807",
    "9223372036854775808Ei",
    "1e308",
    "1e-308",
    "0.000000000000000000001",
    "1.2.3",
    "Ki",
    "1KiB",
    ".",
    "-.5m",
    "+1",
    "1E",
    "1e",
    "999999999999999999999999P",
];

#[test]
fn quantity_target_survives_edge_cases() {
    for q in QUANTITIES {
        fuzzing::quantity(q.as_bytes());
    }
}

const SELECTORS: &[&str] = &[
    r#"[{"matchLabels":{"a":"b"},"matchExpressions":[{"key":"a","operator":"In","values":[]}]},null,{"a":"b"},"n"]"#,
    r#"[{"matchExpressions":[{"key":"","operator":"Gt","values":["x","y"]}]},{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"Lt","values":["1"]}]}]},{},""]"#,
    r#"[{},{"nodeSelectorTerms":[]},{"k":"99999999999999999999"},"n"]"#,
    r#"[null,{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"Gt","values":["-9223372036854775808"]}]}]},{"k":"1"},"n"]"#,
];

#[test]
fn selector_target_survives_edge_cases() {
    for s in SELECTORS {
        fuzzing::selectors(s.as_bytes());
    }
}

fn scheduler_config_seeds() -> Vec<Vec<u8>> {
    let cfg = |p: &Path| p.to_string_lossy().ends_with(".config.yaml");
    let mut seeds: Vec<Vec<u8>> = files("tests/conformance/config", cfg)
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    seeds.push(
        b"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins: {score: {enabled: [{name: NodeResourcesFit, weight: 2147483647}, {name: ImageLocality, weight: -2147483648}]}}\n"
            .to_vec(),
    );
    seeds.iter().flat_map(|s| cuts(s)).map(<[u8]>::to_vec).collect()
}

#[test]
fn scheduler_config_target_survives_the_corpus_configs() {
    for seed in scheduler_config_seeds() {
        fuzzing::scheduler_config(&seed);
    }
}

const KUBECONFIGS: &[&str] = &[
    "",
    "apiVersion: v1\nkind: Config\ncontexts: [{name: a, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {server: 'https://x', certificate-authority-data: '!!!'}}]\nusers: [{name: u, user: {client-certificate-data: '', client-key-data: 'AAAA'}}]\n",
    "contexts: [{name: a}]\n",
    "clusters: [{name: c, cluster: {certificate-authority: /nonexistent}}]\ncontexts: [{name: a, context: {cluster: c}}]\n",
];

#[cfg(feature = "live")]
#[test]
fn kubeconfig_target_survives_edge_cases() {
    for k in KUBECONFIGS {
        fuzzing::kubeconfig(k.as_bytes());
    }
}

const COMMAND_LINES: &[&str] = &[
    "",
    "q",
    "w",
    "w! /nonexistent/dir/x.yaml",
    "ns",
    "ns \u{0}",
    "profile",
    "profile x y",
    "gang",
    "queue",
    "::::",
    "nodes extra",
    "fix",
    "export",
    "export! ",
    "export /nonexistent/dir/x.txt",
    "events all",
    "reason cpu",
];

const WHATIF_YAML: &[&str] = &[
    "",
    "spec: {containers: []}",
    "metadata: {name: other}",
    "spec: {nodeName: x, tolerations: [{operator: Exists}]}",
    "status: {allocatable: {cpu: '-1'}}",
    "- [",
    "spec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: 1e400}}\n",
];

#[cfg(feature = "tui")]
#[test]
fn command_line_and_whatif_targets_survive_edge_cases() {
    for c in COMMAND_LINES {
        fuzzing::command_line(c.as_bytes());
    }
    for y in WHATIF_YAML {
        fuzzing::whatif_yaml(y.as_bytes());
    }
}

/// The seeds of each coverage-guided target (tests/fuzz/fuzz_targets), by target name.
fn corpora() -> Vec<(&'static str, Vec<Vec<u8>>)> {
    let of = |v: &[&str]| v.iter().map(|s| s.as_bytes().to_vec()).collect::<Vec<_>>();
    let mut snapshot = snapshot_seeds();
    // the pod and node YAML the what-if editor starts from are snapshots too
    snapshot.extend(of(WHATIF_YAML));
    let mut whatif = of(WHATIF_YAML);
    whatif.extend(yaml_seeds().into_iter().filter(|s| s.len() < 4096));
    vec![
        ("snapshot", snapshot),
        ("engine", engine_seeds()),
        ("quantity", of(QUANTITIES)),
        ("selectors", of(SELECTORS)),
        ("scheduler_config", scheduler_config_seeds()),
        ("kubeconfig", of(KUBECONFIGS)),
        ("command_line", of(COMMAND_LINES)),
        ("whatif_yaml", whatif),
    ]
}

/// Every target has seeds; with `KSCHED_FUZZ_CORPUS=DIR` they are written to DIR/TARGET/NNNN,
/// the seed corpus of `cargo fuzz run --fuzz-dir tests/fuzz TARGET DIR/TARGET`.
#[test]
fn every_fuzz_target_has_a_seed_corpus() {
    let targets = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/fuzz_targets"))
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned())
        .collect::<std::collections::BTreeSet<_>>();
    let corpora = corpora();
    let named: std::collections::BTreeSet<String> = corpora.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(named, targets, "a seed corpus per fuzz target");
    for (name, seeds) in &corpora {
        assert!(seeds.len() >= 4, "{name}: {} seed(s)", seeds.len());
    }
    let Some(dir) = std::env::var_os("KSCHED_FUZZ_CORPUS") else {
        return;
    };
    for (name, seeds) in corpora {
        let d = Path::new(&dir).join(name);
        std::fs::create_dir_all(&d).unwrap();
        for (i, s) in seeds.iter().enumerate() {
            std::fs::write(d.join(format!("seed-{i:04}")), s).unwrap();
        }
        println!("{}: {} seed(s)", d.display(), seeds.len());
    }
}
