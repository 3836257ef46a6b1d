//! Temporary directories of tests, removed when their guard drops, also when a test fails.

/// A fresh directory for one test, named after it (`kschedtui-it-NAME-…` in the system's
/// temporary directory).
pub fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("kschedtui-it-{name}-"))
        .tempdir()
        .unwrap()
}

/// `c.yaml` in `dir`: `nodes` identical nodes `n000`, `n001`, … (2 CPUs, 4Gi, 10 pods) and one
/// pending pod `a/p` without requests, which fits them all (sampling's tests: 150 nodes).
pub fn uniform_nodes_snapshot(dir: &std::path::Path, nodes: usize) -> std::path::PathBuf {
    let path = dir.join("c.yaml");
    let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for i in 0..nodes {
        text.push_str(&format!(
            "- {{apiVersion: v1, kind: Node, metadata: {{name: n{i:03}}}, status: {{allocatable: {{cpu: '2', memory: 4Gi, pods: '10'}}}}}}\n"
        ));
    }
    text.push_str(
        "- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: [{name: c}]}}\n",
    );
    std::fs::write(&path, text).unwrap();
    path
}
