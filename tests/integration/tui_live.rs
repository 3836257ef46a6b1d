//! End to end on a live cluster: the real binary in tmux attached to the mock API server
//! through a kubeconfig the test writes. The pod list shows the cluster's pending pod, `b`
//! lists the Binding request, `y` sends it, and the status line reports the answer.
//!
//! The write failures are met as a user meets them, in an 80×24 window: the mock answers the
//! bind or the preemption's requests with 404, 409, 403, 500 or no answer in time, and the
//! status line must read exactly what happened (which victims went, which did not, where a pod
//! is bound, which permission is missing), while the mock's record shows what was sent and that
//! nothing was retried or sent after a failure. Skipped (with a message) when tmux is not
//! installed.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::apiserver::{ApiServer, Reply};
use crate::tui_e2e::Tmux;

const BIN: &str = env!("CARGO_BIN_EXE_kschedtui");

fn start(server: &ApiServer, name: &str, extra: &str) -> Tmux {
    start_sized(server, name, extra, 160, 48)
}

fn start_sized(server: &ApiServer, name: &str, extra: &str, cols: u16, rows: u16) -> Tmux {
    let kc = server.kubeconfig(&server.scratch("kc"), None);
    let home = server.scratch("home");
    Tmux::start_sized(
        name,
        &format!(
            "env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME={} {BIN} --kubeconfig {} {extra}",
            home.display(),
            kc.display()
        ),
        cols,
        rows,
    )
}

/// kschedtui on the mock in an 80×24 window, where a long status message has to wrap.
fn start80(server: &ApiServer, name: &str, extra: &str) -> Tmux {
    start_sized(server, name, extra, 80, 24)
}

const WAIT: Duration = Duration::from_secs(20);

/// The status bar: the lines below the body's bottom border, trimmed and joined with spaces
/// (a message wraps at spaces, so this is the message).
fn status_of(screen: &str) -> String {
    status_rows(screen).join(" ")
}

/// The status bar's rows, trimmed.
fn status_rows(screen: &str) -> Vec<&str> {
    let lines: Vec<&str> = screen.lines().collect();
    let from = lines.iter().rposition(|l| l.starts_with('╰')).map_or(0, |i| i + 1);
    lines[from..]
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Waits until the status bar reads exactly `want`; returns the screen.
fn wait_status(t: &Tmux, want: &str) -> String {
    let start = Instant::now();
    loop {
        let s = t.screen();
        if status_of(&s) == want {
            return s;
        }
        assert!(
            start.elapsed() < WAIT,
            "timed out waiting for the status line\n  want: {want}\n  have: {}\nscreen:\n{s}",
            status_of(&s)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Filters the pod list down to `query` and waits until the pod is explained (`ready` is its
/// verdict in the list's footer).
fn select(t: &Tmux, query: &str, ready: &str) {
    t.wait_for(&[query]);
    t.keys(&["/"]);
    t.text(query);
    t.keys(&["Enter"]);
    t.wait_for(&[&format!("/{query}"), ready]);
}

/// Presses `key`, waits for the confirmation titled `title` (its footer shows: nothing of it
/// is cut off at 80×24), checks nothing was sent yet, confirms; returns the dialog's screen.
fn confirm(t: &Tmux, server: &ApiServer, key: &str, title: &str) -> String {
    let before = sent(server);
    t.keys(&[key]);
    let s = t.wait_for(&[title, "y confirm   n/Esc/Enter cancel"]);
    assert_eq!(sent(server), before, "nothing is sent before the confirmation");
    t.keys(&["y"]);
    s
}

/// The writes recorded so far, permission checks aside, as "METHOD PATH".
fn sent(server: &ApiServer) -> Vec<String> {
    server
        .writes()
        .into_iter()
        .filter(|r| !r.path.ends_with("/selfsubjectaccessreviews"))
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}

/// How many requests `METHOD PATH` the mock received (GETs included).
fn count(server: &ApiServer, method: &str, path: &str) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.method == method && r.path == path)
        .count()
}

const PEND: &str = "web-7d4b9-pend";
const PEND_READY: &str = "shop/web-7d4b9-pend: fits: would bind to node-a";
const BIND_TITLE: &str = "Bind shop/web-7d4b9-pend to node-a?";
const BINDING: &str = "/api/v1/namespaces/shop/pods/web-7d4b9-pend/binding";
const URGENT_READY: &str = "shop/urgent: 2× Insufficient cpu; preempt 2 on node-c";
const PREEMPT_TITLE: &str = "Preempt 2 pod(s) on node-c for shop/urgent?";
const PREEMPT_ACTION: &str = "preempt for shop/urgent on node 'node-c': delete 2 victim(s), then nominate the node";

/// The requests of the urgent pod's preemption, in order.
fn preemption() -> [String; 5] {
    [
        "PATCH /api/v1/namespaces/default/pods/batch-1/status".to_string(),
        "DELETE /api/v1/namespaces/default/pods/batch-1".to_string(),
        "PATCH /api/v1/namespaces/default/pods/batch-2/status".to_string(),
        "DELETE /api/v1/namespaces/default/pods/batch-2".to_string(),
        "PATCH /api/v1/namespaces/shop/pods/urgent/status".to_string(),
    ]
}

macro_rules! need_tmux {
    () => {
        if !Tmux::available() {
            eprintln!("tmux is not installed: skipping the live TUI end-to-end test");
            return;
        }
    };
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
fn readonly_refuses_to_bind_and_preempt_and_sends_nothing() {
    if !Tmux::available() {
        eprintln!("tmux is not installed: skipping the live TUI end-to-end test");
        return;
    }
    let server = ApiServer::start();
    add_two_victims_and_urgent(&server);
    let t = start(&server, "live-ro", "--readonly");
    t.wait_for(&["web-7d4b9-pend", "read-only"]);
    t.keys(&["/"]);
    t.text("pend");
    t.keys(&["Enter"]);
    t.keys(&["b"]);
    let s = t.wait_for(&["read-only mode (--readonly): binding is disabled"]);
    assert!(!s.contains("Bind shop/"), "no confirmation is offered:\n{s}");
    // preempting the pod that needs it is refused the same way
    t.keys(&["Escape"]);
    t.wait_gone("/pend");
    select(&t, "urgent", URGENT_READY);
    t.keys(&["x"]);
    let s = t.wait_for(&["read-only mode (--readonly): preemption is disabled"]);
    assert!(!s.contains("Preempt 2 pod(s)"), "no confirmation is offered:\n{s}");
    // not a write, not even an access review
    assert!(server.writes().is_empty(), "{:?}", server.writes());
    assert!(server.requests().iter().all(|r| r.method == "GET"));
    t.keys(&["Escape"]);
    t.wait_gone("/urgent");
    select(&t, PEND, PEND_READY);
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
    // the permission is checked before the action is offered: the pod view says so
    t.keys(&["Enter"]);
    t.wait_for(&["b bind: not allowed to create pods/binding"]);
    t.keys(&["b"]);
    wait_status(
        &t,
        "cannot bind shop/web-7d4b9-pend: not allowed to create pods/binding in namespace 'shop': permission denied (the SelfSubjectAccessReview answers allowed: false, reason: RBAC: user \"tester\" may not create pods/binding); ask a cluster admin for this permission",
    );
    // only the access review went out
    assert_eq!(sent(&server), Vec::<String>::new());
    let w = server.writes();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].json()["spec"]["resourceAttributes"]["subresource"], "binding");
    t.keys(&["q"]);
}

/// Two victims for one preemptor: default/batch-1 and default/batch-2 (priority 0, 900m each)
/// fill node-c; shop/urgent (priority 1000, 2 CPU) fits nowhere else without breaking the
/// web-pdb PodDisruptionBudget on node-a, so PostFilter nominates node-c and evicts both.
fn add_two_victims_and_urgent(server: &ApiServer) {
    let mut pods = server.items("pods");
    let b1 = pods.iter_mut().find(|p| p["metadata"]["name"] == "batch-1").unwrap();
    b1["spec"]["containers"][0]["resources"]["requests"]["cpu"] = json!("900m");
    let mut b2 = b1.clone();
    b2["metadata"]["name"] = json!("batch-2");
    b2["metadata"]["uid"] = json!("0b1a3c8e-0010-4000-8000-00000000000b");
    b2["status"]["startTime"] = json!("2024-04-04T00:02:00Z");
    pods.push(b2);
    pods.push(json!({
        "metadata": {"name": "urgent", "namespace": "shop", "uid": "0b1a3c8e-0010-4000-8000-000000000009",
                     "resourceVersion": "209", "creationTimestamp": "2024-05-01T11:00:00Z"},
        "spec": {"priorityClassName": "high", "priority": 1000,
                 "containers": [{"name": "app", "image": "busybox:1.36", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}]},
        "status": {"phase": "Pending"}
    }));
    server.set_items("pods", pods, "1000");
}

#[test]
fn a_bind_answered_404_says_the_pod_is_gone() {
    need_tmux!();
    let server = ApiServer::start();
    server.reply_once(
        "POST",
        BINDING,
        Reply::status_with(
            404,
            "NotFound",
            "pods \"web-7d4b9-pend\" not found",
            json!({"name": PEND, "kind": "pods"}),
        ),
    );
    let t = start80(&server, "bind-404", "");
    select(&t, PEND, PEND_READY);
    confirm(&t, &server, "b", BIND_TITLE);
    wait_status(
        &t,
        "pod shop/web-7d4b9-pend no longer exists (404 Not Found); refresh and try again",
    );
    assert_eq!(sent(&server), [format!("POST {BINDING}")]);
}

#[test]
fn a_bind_answered_409_names_the_node_the_pod_is_bound_to() {
    need_tmux!();
    let server = ApiServer::start();
    // what the API server's binding storage answers for a pod that already has a node
    server.reply_once(
        "POST",
        BINDING,
        Reply::status_with(409, "Conflict", "Operation cannot be fulfilled on pods/binding \"web-7d4b9-pend\": pod web-7d4b9-pend is already assigned to node \"node-c\"", json!({"name": PEND, "kind": "pods/binding"})),
    );
    let t = start80(&server, "bind-409", "");
    select(&t, PEND, PEND_READY);
    confirm(&t, &server, "b", BIND_TITLE);
    wait_status(
        &t,
        "pod shop/web-7d4b9-pend is already bound to node 'node-c' (409 Conflict); nothing to do",
    );
    let pod_path = "/api/v1/namespaces/shop/pods/web-7d4b9-pend";
    assert_eq!(count(&server, "GET", pod_path), 0, "the answer named the node");
    // a 409 that does not name the node: the pod is read back to say where it is
    server.reply_once(
        "POST",
        BINDING,
        Reply::status_with(409, "Conflict", "Operation cannot be fulfilled on pods \"web-7d4b9-pend\": the object has been modified; please apply your changes to the latest version and try again", json!({"name": PEND, "kind": "pods"})),
    );
    let mut bound = server
        .items("pods")
        .into_iter()
        .find(|p| p["metadata"]["name"] == PEND)
        .unwrap();
    bound["spec"]["nodeName"] = json!("node-b");
    server.reply_once("GET", pod_path, Reply::new(200, bound));
    confirm(&t, &server, "b", BIND_TITLE);
    wait_status(
        &t,
        "pod shop/web-7d4b9-pend is already bound to node 'node-b' (409 Conflict); nothing to do",
    );
    assert_eq!(count(&server, "GET", pod_path), 1);
    assert_eq!(
        sent(&server),
        [format!("POST {BINDING}"), format!("POST {BINDING}")],
        "one request per confirmation"
    );
}

#[test]
fn a_bind_answered_403_names_the_verb_and_resource() {
    need_tmux!();
    let server = ApiServer::start();
    // the access review allowed it; the write itself is refused (RBAC changed in between)
    server.reply_once(
        "POST",
        BINDING,
        Reply::status_with(403, "Forbidden", "pods \"web-7d4b9-pend\" is forbidden: User \"tester\" cannot create resource \"pods/binding\" in API group \"\" in the namespace \"shop\"", json!({"name": PEND, "kind": "pods"})),
    );
    let t = start80(&server, "bind-403", "");
    select(&t, PEND, PEND_READY);
    confirm(&t, &server, "b", BIND_TITLE);
    wait_status(
        &t,
        "not allowed to create pods/binding in namespace 'shop' (403 Forbidden: pods \"web-7d4b9-pend\" is forbidden: User \"tester\" cannot create resource \"pods/binding\" in API group \"\" in the namespace \"shop\"); ask a cluster admin for this permission",
    );
    assert_eq!(sent(&server), [format!("POST {BINDING}")]);
}

#[test]
fn a_denied_preemption_names_the_permission_and_sends_nothing() {
    need_tmux!();
    let server = ApiServer::start();
    add_two_victims_and_urgent(&server);
    server.deny("delete", "");
    let t = start80(&server, "preempt-denied", "");
    select(&t, "urgent", URGENT_READY);
    let denied = "not allowed to delete pods in namespace 'default': permission denied (the SelfSubjectAccessReview answers allowed: false, reason: RBAC: user \"tester\" may not delete pods); ask a cluster admin for this permission";
    // The permission check runs when the pod is focused: answered before `x`, the refusal
    // comes at once; still out, the dialog opens and confirming it is refused.
    t.keys(&["x"]);
    let start = std::time::Instant::now();
    loop {
        let s = t.screen();
        if s.contains(PREEMPT_TITLE) {
            assert_eq!(
                sent(&server),
                Vec::<String>::new(),
                "nothing is sent before the confirmation"
            );
            t.keys(&["y"]);
            wait_status(&t, &format!("{denied}; nothing was sent"));
            break;
        }
        if status_of(&s).starts_with("cannot preempt for shop/urgent: not allowed") {
            wait_status(&t, &format!("cannot preempt for shop/urgent: {denied}"));
            break;
        }
        assert!(start.elapsed() < WAIT, "neither the dialog nor the refusal:\n{s}");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(sent(&server), Vec::<String>::new(), "only the access reviews were sent");
    assert!(!server.writes().is_empty());
}

#[test]
fn a_preemption_whose_second_delete_fails_says_which_victims_went() {
    need_tmux!();
    let server = ApiServer::start();
    add_two_victims_and_urgent(&server);
    server.reply_once(
        "DELETE",
        "/api/v1/namespaces/default/pods/batch-2",
        Reply::status_with(
            500,
            "InternalError",
            "Internal error occurred: etcdserver: request timed out",
            json!({"causes": [{"message": "etcdserver: request timed out"}]}),
        ),
    );
    let t = start80(&server, "preempt-500", "");
    select(&t, "urgent", URGENT_READY);
    let dialog = confirm(&t, &server, "x", PREEMPT_TITLE);
    assert!(
        dialog.contains("1. PATCH /api/v1/namespaces/default/pods/batch-1/status"),
        "{dialog}"
    );
    let s = wait_status(
        &t,
        "preemption incomplete: removed 1 of 2 victim(s) (default/batch-1); not removed: default/batch-2; the node was not nominated: 'delete default/batch-2' failed (500 InternalError): Internal error occurred: etcdserver: request timed out",
    );
    // the message takes the three lines of the status bar
    assert_eq!(
        status_rows(&s),
        [
            "preemption incomplete: removed 1 of 2 victim(s) (default/batch-1); not removed:",
            "default/batch-2; the node was not nominated: 'delete default/batch-2' failed",
            "(500 InternalError): Internal error occurred: etcdserver: request timed out",
        ]
    );
    let mut expected = preemption().to_vec();
    expected.pop();
    assert_eq!(sent(&server), expected, "the preemptor is not nominated");
}

#[test]
fn a_preemption_whose_second_victim_is_already_gone_says_so_and_nominates() {
    need_tmux!();
    let server = ApiServer::start();
    add_two_victims_and_urgent(&server);
    server.reply_once(
        "DELETE",
        "/api/v1/namespaces/default/pods/batch-2",
        Reply::status_with(
            404,
            "NotFound",
            "pods \"batch-2\" not found",
            json!({"name": "batch-2", "kind": "pods"}),
        ),
    );
    let t = start80(&server, "preempt-404", "");
    select(&t, "urgent", URGENT_READY);
    confirm(&t, &server, "x", PREEMPT_TITLE);
    wait_status(
        &t,
        &format!(
            "done: {PREEMPT_ACTION}; victims removed: default/batch-1, default/batch-2 (already gone); b will be offered once they are gone"
        ),
    );
    // a victim already gone is the goal reached: the node is nominated
    assert_eq!(sent(&server), preemption());
    let nominate = server
        .writes()
        .into_iter()
        .find(|r| r.path == "/api/v1/namespaces/shop/pods/urgent/status")
        .unwrap();
    assert_eq!(nominate.json()["status"]["nominatedNodeName"], "node-c");
}

#[test]
fn a_bind_without_an_answer_times_out_once_and_is_not_retried() {
    need_tmux!();
    let server = ApiServer::start();
    server.reply_always("POST", BINDING, Reply::status(201, "", "").delayed(4000));
    let t = start80(&server, "bind-timeout", "--request-timeout 1");
    select(&t, PEND, PEND_READY);
    confirm(&t, &server, "b", BIND_TITLE);
    let sent_at = Instant::now();
    wait_status(
        &t,
        "no answer within 1s to 'bind shop/web-7d4b9-pend to node 'node-a''; it may or may not have been applied: check with `kubectl get pod -n shop web-7d4b9-pend`",
    );
    assert!(
        sent_at.elapsed() < Duration::from_secs(4),
        "the client gave up, not the server"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(count(&server, "POST", BINDING), 1, "nothing is retried");
    assert_eq!(sent(&server), [format!("POST {BINDING}")]);
}

#[test]
fn a_victim_delete_without_an_answer_is_not_reported_removed_nor_kept() {
    need_tmux!();
    let server = ApiServer::start();
    add_two_victims_and_urgent(&server);
    let victim = "/api/v1/namespaces/default/pods/batch-2";
    server.reply_always("DELETE", victim, Reply::new(200, json!({})).delayed(4000));
    let t = start80(&server, "preempt-timeout", "--request-timeout 1");
    select(&t, "urgent", URGENT_READY);
    confirm(&t, &server, "x", PREEMPT_TITLE);
    wait_status(
        &t,
        "preemption incomplete: removed 1 of 2 victim(s) (default/batch-1); not removed: none; the node was not nominated: no answer within 1s to 'delete default/batch-2'; it may or may not have been applied: check with `kubectl get pod -n default batch-2`",
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(count(&server, "DELETE", victim), 1, "nothing is retried");
    let mut expected = preemption().to_vec();
    expected.pop();
    assert_eq!(sent(&server), expected);
}

#[test]
fn dry_run_server_sends_dry_runs_and_says_nothing_changed() {
    need_tmux!();
    let server = ApiServer::start();
    add_two_victims_and_urgent(&server);
    let t = start80(&server, "dry-run", "--dry-run=server");
    select(&t, PEND, PEND_READY);
    let dialog = confirm(&t, &server, "b", BIND_TITLE);
    assert!(dialog.contains(&format!("1. POST {BINDING}?dryRun=All")), "{dialog}");
    assert!(
        dialog.contains("Sent to the cluster as server-side dry runs (dryRun=All): nothing"),
        "{dialog}"
    );
    wait_status(
        &t,
        "done: bind shop/web-7d4b9-pend to node 'node-a' (server-side dry run: nothing changed)",
    );
    t.keys(&["Escape"]);
    t.wait_gone("/pend");
    select(&t, "urgent", URGENT_READY);
    confirm(&t, &server, "x", PREEMPT_TITLE);
    wait_status(
        &t,
        &format!(
            "done: {PREEMPT_ACTION}; victims that would be removed: default/batch-1, default/batch-2 (server-side dry run: nothing changed)"
        ),
    );
    let mut expected = vec![format!("POST {BINDING}")];
    expected.extend(preemption());
    assert_eq!(sent(&server), expected);
    for r in server
        .writes()
        .iter()
        .filter(|r| !r.path.ends_with("/selfsubjectaccessreviews"))
    {
        assert_eq!(r.param("dryRun").as_deref(), Some("All"), "{} {}", r.method, r.path);
        if r.method == "DELETE" {
            assert_eq!(r.json()["dryRun"], json!(["All"]), "{}", r.body);
        }
    }
}

#[test]
fn a_permission_check_without_an_answer_sends_nothing() {
    need_tmux!();
    let server = ApiServer::start();
    add_two_victims_and_urgent(&server);
    let ssar = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    server.reply_always("POST", ssar, Reply::new(201, json!({})).delayed(4000));
    let t = start80(&server, "ssar-timeout", "--request-timeout 1");
    select(&t, "urgent", URGENT_READY);
    // the checks made before the actions are offered time out too; wait until they are done
    let mut before = count(&server, "POST", ssar);
    loop {
        std::thread::sleep(Duration::from_millis(1500));
        let now = count(&server, "POST", ssar);
        if now == before {
            break;
        }
        before = now;
    }
    assert!(
        before >= 1,
        "the permissions were checked before the actions were offered"
    );
    confirm(&t, &server, "x", PREEMPT_TITLE);
    wait_status(
        &t,
        "no answer within 1s to the permission check (patch pods/status in namespace 'default'); check the network or retry with a longer --request-timeout; nothing was sent",
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        count(&server, "POST", ssar),
        before + 1,
        "the confirmation checks once, not retried, not repeated"
    );
    assert_eq!(sent(&server), Vec::<String>::new());
}

#[test]
fn f_freezes_the_view_and_ctrl_r_re_runs_on_the_cluster_as_it_is() {
    need_tmux!();
    let server = ApiServer::start();
    let t = start(&server, "live-freeze", "");
    t.wait_for(&["context 'mock'", PEND, "live at rv "]);
    t.keys(&["F"]);
    t.wait_for(&[
        "FROZEN at rv ",
        "0 change(s) since (Ctrl-r re-runs, F follows)",
        "view frozen:",
    ]);
    // Ctrl-r lists the cluster again (never resumed from the watch), and the view stays frozen
    let pod_lists = || {
        server
            .requests()
            .iter()
            .filter(|r| r.path == "/api/v1/pods" && !r.is_watch())
            .count()
    };
    let lists = pod_lists();
    t.keys(&["C-r"]);
    wait_status(
        &t,
        "Ctrl-r: listed every kind again (resourceVersion 1000), re-running every pending pod",
    );
    t.wait_for(&["FROZEN at rv 1000"]);
    assert_eq!(pod_lists(), lists + 1);
    t.keys(&["F"]);
    t.wait_for(&[
        "following the cluster: changes are applied as they arrive",
        "live at rv ",
    ]);
    assert!(
        server
            .writes()
            .iter()
            .all(|r| r.path.ends_with("/selfsubjectaccessreviews"))
    );
    t.keys(&["q"]);
}

#[test]
fn evict_preemption_refused_by_a_pdb_names_it_and_does_not_nominate() {
    need_tmux!();
    let server = ApiServer::start();
    add_two_victims_and_urgent(&server);
    server.reply_once(
        "POST",
        "/api/v1/namespaces/default/pods/batch-2/eviction",
        Reply::status_with(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.", json!({"causes": [{"reason": "DisruptionBudget", "message": "The disruption budget batch-pdb needs 1 healthy pods and has 1 currently"}]})),
    );
    let t = start(&server, "evict-429", "--evict");
    select(&t, "urgent", URGENT_READY);
    let dialog = confirm(&t, &server, "x", PREEMPT_TITLE);
    assert!(
        dialog.contains("1. POST /api/v1/namespaces/default/pods/batch-1/eviction"),
        "{dialog}"
    );
    assert!(
        dialog.contains("2. POST /api/v1/namespaces/default/pods/batch-2/eviction"),
        "{dialog}"
    );
    wait_status(
        &t,
        "preemption incomplete: removed 1 of 2 victim(s) (default/batch-1); not removed: default/batch-2; the node was not nominated: eviction of default/batch-2 refused (429): PodDisruptionBudget 'batch-pdb' does not allow it: The disruption budget batch-pdb needs 1 healthy pods and has 1 currently; wait for it to allow a disruption or preempt without --evict",
    );
    assert_eq!(
        sent(&server),
        vec![
            "POST /api/v1/namespaces/default/pods/batch-1/eviction".to_string(),
            "POST /api/v1/namespaces/default/pods/batch-2/eviction".to_string(),
        ],
        "no DELETE, no nomination"
    );
}

#[test]
fn ctrl_r_on_a_cluster_recreated_under_the_same_url_lists_it_again_and_binds_with_its_uids() {
    need_tmux!();
    let server = ApiServer::start();
    let t = start(&server, "live-recreated", "");
    t.wait_for(&["context 'mock'", PEND, "live at rv 1000"]);
    // the cluster is deleted and created again at the same address; the watches go on as if
    // nothing happened (nothing is sent on them)
    server.recreate(40);
    t.keys(&["C-r"]);
    wait_status(
        &t,
        "Ctrl-r: listed every kind again (resourceVersion 40), re-running every pending pod",
    );
    t.wait_for(&["live at rv 40"]);
    select(&t, "pend", PEND_READY);
    confirm(&t, &server, "b", BIND_TITLE);
    t.wait_for(&["done: bind shop/web-7d4b9-pend to node 'node-a'"]);
    let bind = server
        .writes()
        .into_iter()
        .find(|r| r.path == BINDING)
        .expect("a Binding");
    // the new cluster's uid, not the one listed before it was recreated
    assert_eq!(bind.json()["metadata"]["uid"], "7f3e9d21-0010-4000-8000-000000000007");
    t.keys(&["q"]);
}

/// The text inside the body's box (between its side borders), joined and with runs of spaces
/// made one: a message wrapped inside the box reads whole.
fn box_text(screen: &str) -> String {
    let inner: Vec<&str> = screen
        .lines()
        .filter_map(|l| l.strip_prefix('│'))
        .map(|l| l.strip_suffix('│').unwrap_or(l))
        .collect();
    inner.join(" ").split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn a_user_who_may_not_write_is_told_every_missing_permission_inside_the_box() {
    need_tmux!();
    let server = ApiServer::start();
    add_two_victims_and_urgent(&server);
    server.deny("patch", "status");
    server.deny("delete", "");
    let t = start80(&server, "preempt-every-denial", "");
    select(&t, "urgent", URGENT_READY);
    t.keys(&["Enter"]);
    let want = "x preempt: not allowed to patch pods/status in namespace 'default': permission denied (the SelfSubjectAccessReview answers allowed: false, reason: RBAC: user \"tester\" may not patch pods/status); \
                not allowed to delete pods in namespace 'default': permission denied (the SelfSubjectAccessReview answers allowed: false, reason: RBAC: user \"tester\" may not delete pods); \
                not allowed to patch pods/status in namespace 'shop': permission denied (the SelfSubjectAccessReview answers allowed: false, reason: RBAC: user \"tester\" may not patch pods/status); \
                ask a cluster admin for these permissions";
    let start = Instant::now();
    let s = loop {
        let s = t.screen();
        if box_text(&s).contains(want) {
            break s;
        }
        assert!(
            start.elapsed() < WAIT,
            "timed out waiting for every refusal in the box\n  want: {want}\n  have: {}\nscreen:\n{s}",
            box_text(&s)
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    // nothing is cut at the box's edge: every row of the box ends with its border
    for l in s.lines().filter(|l| l.starts_with('│')) {
        assert!(l.ends_with('│'), "{l:?}\n{s}");
    }
    assert_eq!(sent(&server), Vec::<String>::new(), "only the access reviews were sent");
    t.keys(&["q"]);
}

#[test]
fn a_refused_bind_recorded_by_the_scheduler_is_said_in_the_pod_view() {
    need_tmux!();
    let server = ApiServer::start();
    server.set_scheduler_error(
        "shop",
        PEND,
        "running Bind plugin \"DefaultBinder\": admission webhook \"bind-guard.example.com\" denied the request: node \"node-a\" is in maintenance",
        "2024-05-01T10:06:00Z",
    );
    let t = start(&server, "live-scheduler-error", "");
    select(&t, "pend", PEND_READY);
    t.keys(&["Enter"]);
    let want = "Cluster: the scheduler chose a node, the API server refused its Bind (DefaultBinder): admission webhook \"bind-guard.example.com\" denied the request: node \"node-a\" is in maintenance; kschedtui picks node-a too; the newest FailedScheduling event differs from kschedtui";
    let start = Instant::now();
    loop {
        let s = t.screen();
        if box_text(&s).contains(want) {
            break;
        }
        assert!(
            start.elapsed() < WAIT,
            "timed out\n  want: {want}\n  have: {}\nscreen:\n{s}",
            box_text(&s)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    t.keys(&["q"]);
}

/// `:ctx` lists the kubeconfig's contexts, `:ctx NAME` attaches to another (an unknown name is
/// refused with the list); the header then names the new context.
#[test]
fn ctx_lists_the_contexts_and_attaches_to_another() {
    need_tmux!();
    let server = ApiServer::start();
    let kc = server.kubeconfig(&server.scratch("kc"), None);
    let text = std::fs::read_to_string(&kc).unwrap();
    std::fs::write(
        &kc,
        format!("{text}- name: other\n  context:\n    cluster: mock\n    user: tester\n"),
    )
    .unwrap();
    let home = server.scratch("home");
    let t = Tmux::start_sized(
        "ctx",
        &format!(
            "env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME={} {BIN} --kubeconfig {}; echo KSCHEDTUI-EXITED=$?; sleep 30",
            home.display(),
            kc.display()
        ),
        160,
        48,
    );
    t.wait_for(&["context 'mock'", "web-7d4b9-pend"]);
    t.keys(&[":"]);
    t.text("ctx");
    t.keys(&["Enter"]);
    wait_status(&t, "contexts: *mock, other (:ctx NAME attaches to another)");
    t.keys(&[":"]);
    t.text("ctx nope");
    t.keys(&["Enter"]);
    wait_status(&t, "no context 'nope' in the kubeconfig (contexts: *mock, other)");
    t.keys(&[":"]);
    t.text("ctx other");
    t.keys(&["Enter"]);
    t.wait_for(&["context 'other'", "web-7d4b9-pend"]);
    t.keys(&[":"]);
    t.text("ctx");
    t.keys(&["Enter"]);
    wait_status(&t, "contexts: mock, *other (:ctx NAME attaches to another)");
    t.keys(&["q"]);
    t.wait_for(&["KSCHEDTUI-EXITED=0"]);
}
