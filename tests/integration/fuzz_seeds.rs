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

#[test]
fn snapshot_target_survives_the_seed_corpus() {
    for seed in yaml_seeds() {
        for c in cuts(&seed) {
            fuzzing::snapshot(c);
        }
    }
    fuzzing::snapshot(b"");
    fuzzing::snapshot(b"{");
    fuzzing::snapshot(b"- - - [");
    fuzzing::snapshot("items: [{kind: Pod, metadata: {name: \u{0}}}]".as_bytes());
}

#[test]
fn quantity_target_survives_edge_cases() {
    for q in [
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
    ] {
        fuzzing::quantity(q.as_bytes());
    }
}

#[test]
fn selector_target_survives_edge_cases() {
    for s in [
        r#"[{"matchLabels":{"a":"b"},"matchExpressions":[{"key":"a","operator":"In","values":[]}]},null,{"a":"b"},"n"]"#,
        r#"[{"matchExpressions":[{"key":"","operator":"Gt","values":["x","y"]}]},{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"Lt","values":["1"]}]}]},{},""]"#,
        r#"[{},{"nodeSelectorTerms":[]},{"k":"99999999999999999999"},"n"]"#,
        r#"[null,{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"Gt","values":["-9223372036854775808"]}]}]},{"k":"1"},"n"]"#,
    ] {
        fuzzing::selectors(s.as_bytes());
    }
}

#[test]
fn scheduler_config_target_survives_the_corpus_configs() {
    let cfg = |p: &Path| p.to_string_lossy().ends_with(".config.yaml");
    let mut seeds: Vec<Vec<u8>> = files("tests/conformance/config", cfg)
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    seeds.push(
        b"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins: {score: {enabled: [{name: NodeResourcesFit, weight: 2147483647}, {name: ImageLocality, weight: -2147483648}]}}\n"
            .to_vec(),
    );
    for seed in seeds {
        for c in cuts(&seed) {
            fuzzing::scheduler_config(c);
        }
    }
}

#[cfg(feature = "live")]
#[test]
fn kubeconfig_target_survives_edge_cases() {
    for k in [
        "",
        "apiVersion: v1\nkind: Config\ncontexts: [{name: a, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {server: 'https://x', certificate-authority-data: '!!!'}}]\nusers: [{name: u, user: {client-certificate-data: '', client-key-data: 'AAAA'}}]\n",
        "contexts: [{name: a}]\n",
        "clusters: [{name: c, cluster: {certificate-authority: /nonexistent}}]\ncontexts: [{name: a, context: {cluster: c}}]\n",
    ] {
        fuzzing::kubeconfig(k.as_bytes());
    }
}

#[cfg(feature = "tui")]
#[test]
fn command_line_and_whatif_targets_survive_edge_cases() {
    for c in [
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
    ] {
        fuzzing::command_line(c.as_bytes());
    }
    for y in [
        "",
        "spec: {containers: []}",
        "metadata: {name: other}",
        "spec: {nodeName: x, tolerations: [{operator: Exists}]}",
        "status: {allocatable: {cpu: '-1'}}",
        "- [",
        "spec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: 1e400}}\n",
    ] {
        fuzzing::whatif_yaml(y.as_bytes());
    }
}
