//! `kschedtui mcp` driven by a real MCP client: the official Python SDK (`mcp` on PyPI, which
//! `.ci/run` installs into target/mcp-venv) runs tests/mcp/client.py against `kschedtui mcp
//! --demo` over stdio. Without that virtual environment the test says SKIPPED on the terminal
//! and checks nothing.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

/// The Python with the `mcp` SDK: `KSCHEDTUI_MCP_PYTHON`, else target/mcp-venv's.
fn python() -> Result<PathBuf, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let py = std::env::var_os("KSCHEDTUI_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/mcp-venv/bin/python"));
    if !py.exists() {
        return Err(format!("{} does not exist", py.display()));
    }
    let probe = Command::new(&py)
        .args(["-c", "import mcp, jsonschema"])
        .output()
        .map_err(|e| format!("{}: {e}", py.display()))?;
    if !probe.status.success() {
        return Err(format!(
            "{} cannot import mcp: {}",
            py.display(),
            String::from_utf8_lossy(&probe.stderr).trim()
        ));
    }
    Ok(py)
}

/// Written to the terminal itself, past the test harness's capture, as the tmux tests' skips
/// are meant to be seen.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[test]
fn the_python_sdk_drives_the_demo_server_over_stdio() {
    let py = match python() {
        Ok(p) => p,
        Err(why) => {
            say(&format!(
                "SKIPPED mcp_client: no Python with the MCP SDK ({why}; .ci/run creates target/mcp-venv with `pip install mcp`)"
            ));
            return;
        }
    };
    let out = Command::new(py)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("tests/mcp/client.py")
        .arg(env!("CARGO_BIN_EXE_kschedtui"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the MCP client failed:\n{stdout}\n{stderr}");
    assert!(stdout.ends_with("mcp client: all checks passed\n"), "{stdout}");
    let checks = stdout.lines().filter(|l| l.starts_with("ok: ")).count();
    assert_eq!(checks, 21, "{stdout}");
}

#[test]
fn writes_and_readonly_contradict_each_other() {
    let out = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(["--demo", "--readonly", "mcp", "--allow-writes"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --allow-writes and --readonly contradict each other: pass one of them\n"
    );
    assert!(out.stdout.is_empty());
}

/// A JSON-RPC session with `kschedtui mcp` over its stdin and stdout, line by line.
struct Session {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    next: u64,
}

impl Session {
    fn start(args: &[&str], home: &std::path::Path) -> Session {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
            .args(args)
            .env_remove("KUBECONFIG")
            .env_remove("KUBERNETES_SERVICE_HOST")
            .env("HOME", home)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in std::io::BufReader::new(stdout).lines() {
                let Ok(l) = l else { return };
                if tx.send(l).is_err() {
                    return;
                }
            }
        });
        let mut s = Session {
            child,
            stdin,
            lines,
            next: 0,
        };
        let init = s.request(
            "initialize",
            serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "kschedtui-test", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "kschedtui", "{init}");
        s.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, v: &serde_json::Value) {
        writeln!(self.stdin, "{v}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and waits (30 s at most) for its answer.
    fn request(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        self.next += 1;
        let id = self.next;
        self.send(&serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let line = self.lines.recv_timeout(left).expect("an answer within 30 s");
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }

    /// A tool's structured content (the call must succeed).
    fn tool(&mut self, name: &str, arguments: serde_json::Value) -> serde_json::Value {
        let r = self.request("tools/call", serde_json::json!({"name": name, "arguments": arguments}));
        assert_eq!(r["result"]["isError"], false, "{r}");
        r["result"]["structuredContent"].clone()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// On a live cluster the server reads once, then the watch keeps its answers current: a pod the
/// API server adds after the list shows up in list_pods and explain_pod without a new list.
#[test]
fn on_a_live_cluster_the_answers_follow_the_watch() {
    use crate::apiserver::{ApiServer, Step};
    let server = ApiServer::start();
    let pod = serde_json::json!({
        "metadata": {"name": "fresh", "namespace": "default", "resourceVersion": "1001", "uid": "uid-fresh",
                     "creationTimestamp": "2024-05-02T00:00:00Z"},
        "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "100m"}}}]},
        "status": {"phase": "Pending"}
    });
    server.script_watch("pods", vec![Step::Sleep(500), Step::Event("ADDED", pod)]);
    let kc = server.kubeconfig(&server.scratch("kc"), None).display().to_string();
    let home = crate::scratch::temp_dir("home");
    let mut s = Session::start(&["--kubeconfig", &kc, "mcp"], home.path());
    let listed = server
        .requests()
        .iter()
        .filter(|r| r.path == "/api/v1/pods" && !r.is_watch())
        .count();
    assert_eq!(listed, 1, "the pods are listed once");
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["pods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                format!(
                    "{}/{}",
                    p["pod"]["namespace"].as_str().unwrap(),
                    p["pod"]["name"].as_str().unwrap()
                )
            })
            .collect()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let v = s.tool("list_pods", serde_json::json!({}));
        if names(&v).contains(&"default/fresh".to_string()) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "default/fresh never came: {v}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let ex = s.tool("explain_pod", serde_json::json!({"pod": "default/fresh"}));
    assert_eq!(ex["pod"], serde_json::json!({"namespace": "default", "name": "fresh"}));
    assert_eq!(ex["outcome"], "Schedulable", "{ex}");
    let summary = s.tool("cluster_summary", serde_json::json!({}));
    assert_eq!(summary["writes"], "notListed");
    assert!(summary["source"].as_str().unwrap().contains(&server.url()), "{summary}");
    let relisted = server
        .requests()
        .iter()
        .filter(|r| r.path == "/api/v1/pods" && !r.is_watch())
        .count();
    assert_eq!(relisted, 1, "no second list: the watch brought the pod");
}

/// explain_pod's `startNode` is `explain --start-node`: on 150 nodes that all fit, the search
/// from index 20 scores the 100 nodes it finds, and the document equals the CLI's; a negative
/// index is a tool error naming the argument.
#[test]
fn explain_pod_start_node_is_explain_start_node() {
    let home = crate::scratch::temp_dir("mcp-start-node");
    let path = crate::scratch::uniform_nodes_snapshot(home.path(), 150);
    let path = path.to_str().unwrap();
    let mut s = Session::start(&["--snapshot", path, "mcp"], home.path());
    let v = s.tool("explain_pod", serde_json::json!({"pod": "a/p", "startNode": 20}));
    assert_eq!(v["sampling"]["startNodeIndex"], 20, "{}", v["sampling"]);
    assert_eq!(v["sampling"]["nextStartNodeIndex"], 120);
    assert_eq!(v["score"].as_array().map(Vec::len), Some(100));
    let out = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(["explain", "--snapshot", path, "a/p", "--start-node", "20", "-o", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v, cli);
    let unsampled = s.tool("explain_pod", serde_json::json!({"pod": "a/p"}));
    assert_eq!(unsampled["score"].as_array().map(Vec::len), Some(150));
    let r = s.request(
        "tools/call",
        serde_json::json!({"name": "explain_pod", "arguments": {"pod": "a/p", "startNode": -1}}),
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    let msg = r["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        msg.contains("argument 'startNode' must be a non-negative integer, not -1"),
        "{r}"
    );
}
