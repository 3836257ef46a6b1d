//! End to end on a live cluster: the real binary in tmux attached to the mock API server
//! through a kubeconfig the test writes. The pod list shows the cluster's pending pod, `b`
//! lists the Binding request, `y` sends it, and the status line reports the answer.
//! Skipped (with a message) when tmux is not installed.

use std::time::{Duration, Instant};

use crate::apiserver::{ApiServer, temp_dir};
use crate::tui_e2e::Tmux;

const BIN: &str = env!("CARGO_BIN_EXE_kschedtui");

fn start(server: &ApiServer, name: &str, extra: &str) -> Tmux {
    let kc = server.kubeconfig(&temp_dir("kc"), None);
    let home = temp_dir("home");
    Tmux::start(
        name,
        &format!(
            "env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME={} {BIN} --kubeconfig {} {extra}",
            home.display(),
            kc.display()
        ),
    )
}

#[test]
fn the_tui_attaches_to_the_cluster_and_binds_through_it() {
    if !Tmux::available() {
        eprintln!("tmux is not installed: skipping the live TUI end-to-end test");
        return;
    }
    let server = ApiServer::start();
    let t = start(&server, "live-bind", "");
    // the header names the context and server; the pending pod is listed and explained
    let s = t.wait_for(&["context 'mock'", "web-7d4b9-pend", "live"]);
    assert!(s.contains(&server.url()), "{s}");
    t.keys(&["/"]);
    t.text("pend");
    t.keys(&["Enter"]);
    t.keys(&["b"]);
    let s = t.wait_for(&["Bind shop/web-7d4b9-pend to node-a?"]);
    assert!(
        s.contains("1. POST /api/v1/namespaces/shop/pods/web-7d4b9-pend/binding"),
        "{s}"
    );
    assert!(s.contains("sent to the live cluster"), "{s}");
    assert!(
        !server.writes().iter().any(|r| r.path.ends_with("/binding")),
        "nothing is sent before the confirmation"
    );
    t.keys(&["y"]);
    t.wait_for(&["done: bind shop/web-7d4b9-pend to node 'node-a'"]);
    let start = Instant::now();
    let bind = loop {
        if let Some(r) = server.writes().into_iter().find(|r| r.path.ends_with("/binding")) {
            break r;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "no Binding was sent");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(bind.method, "POST");
    assert_eq!(bind.path, "/api/v1/namespaces/shop/pods/web-7d4b9-pend/binding");
    let body = bind.json();
    assert_eq!(body["kind"], "Binding");
    assert_eq!(body["target"]["name"], "node-a");
    // the permission was checked first
    assert!(
        server
            .writes()
            .iter()
            .any(|r| r.path.ends_with("/selfsubjectaccessreviews")),
        "no SelfSubjectAccessReview"
    );
    t.keys(&["q"]);
}

#[test]
fn readonly_refuses_to_bind_and_sends_nothing() {
    if !Tmux::available() {
        eprintln!("tmux is not installed: skipping the live TUI end-to-end test");
        return;
    }
    let server = ApiServer::start();
    let t = start(&server, "live-ro", "--readonly");
    t.wait_for(&["web-7d4b9-pend", "read-only"]);
    t.keys(&["/"]);
    t.text("pend");
    t.keys(&["Enter"]);
    t.keys(&["b"]);
    t.wait_for(&["binding is disabled"]);
    assert!(server.writes().is_empty(), "{:?}", server.writes());
    // the pod view shows, beside kschedtui's verdict, that the condition and the
    // FailedScheduling event the cluster's scheduler wrote disagree with it
    t.keys(&["Enter"]);
    t.wait_for(&["Cluster differs: the condition and the newest FailedScheduling event say the pod"]);
    t.keys(&["q"]);
}

#[test]
fn a_denied_binding_is_reported_and_not_sent() {
    if !Tmux::available() {
        eprintln!("tmux is not installed: skipping the live TUI end-to-end test");
        return;
    }
    let server = ApiServer::start();
    server.deny("create", "binding");
    let t = start(&server, "live-403", "");
    t.wait_for(&["web-7d4b9-pend", "live"]);
    t.keys(&["/"]);
    t.text("pend");
    t.keys(&["Enter"]);
    t.keys(&["b"]);
    t.wait_for(&["Bind shop/web-7d4b9-pend"]);
    t.keys(&["y"]);
    t.wait_for(&["not allowed to create pods/binding"]);
    assert!(!server.writes().iter().any(|r| r.path.ends_with("/binding")));
    t.keys(&["q"]);
}
