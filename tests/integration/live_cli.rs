//! The `kschedtui` binary against the mock API server: explain, snapshot round trip, bind
//! with confirmation, --readonly, --dry-run=server, and the one-line errors.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::apiserver::{ApiServer, Reply, write_kubeconfig};
use crate::scratch::temp_dir;

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], stdin: &str) -> Out {
    let home = temp_dir("home");
    let home = home.path();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(args)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).to_string(),
        stderr: String::from_utf8_lossy(&o.stderr).to_string(),
    }
}

fn kc(server: &ApiServer, ns: Option<&str>) -> String {
    server.kubeconfig(&server.scratch("kc"), ns).display().to_string()
}

fn ok(o: &Out) {
    assert_eq!(o.code, 0, "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
}

/// The error line: exactly one line on stderr, starting with "error: ".
fn error_line(o: &Out) -> String {
    assert_eq!(o.code, 1, "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    let last = o.stderr.lines().last().unwrap_or("").to_string();
    assert!(last.starts_with("error: "), "{}", o.stderr);
    last
}

fn explain_json(args: &[&str]) -> Value {
    let o = run(args, "");
    ok(&o);
    serde_json::from_str(&o.stdout).unwrap()
}

#[test]
fn live_explain_equals_explain_on_the_snapshot_it_writes() {
    let server = ApiServer::start();
    let k = kc(&server, None);
    let dir = server.scratch("roundtrip");
    let live = run(&["explain", "--kubeconfig", &k, "--all-pending", "-o", "json"], "");
    ok(&live);
    assert!(
        live.stderr.contains(&format!(
            "from context 'mock' ({}) (Kubernetes v1.30.6) at resourceVersions ",
            server.url()
        )),
        "{}",
        live.stderr
    );
    assert!(live.stderr.contains("Pod=1000"), "{}", live.stderr);
    assert!(
        live.stderr
            .contains("reproducing kube-scheduler 1.30.6 (the server's release)"),
        "{}",
        live.stderr
    );
    let live_json: Value = serde_json::from_str(&live.stdout).unwrap();
    let pods: Vec<&str> = live_json
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["pod"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(pods, ["web-7d4b9-pend", "big"]);
    assert_eq!(live_json[0]["schedulerVersion"], "1.30.6");
    for file in ["snap.yaml", "snap.json"] {
        let f = dir.join(file);
        let f = f.to_str().unwrap();
        let s = run(&["snapshot", "--kubeconfig", &k, "-o", f], "");
        ok(&s);
        // 29 objects and the two FailedScheduling events (the Scheduled and FailedMount events
        // were never sent: the field selector left them out).
        assert!(s.stderr.contains(&format!("wrote 31 objects to '{f}'")), "{}", s.stderr);
        let text = std::fs::read_to_string(f).unwrap();
        assert!(text.contains("big.17cb8e5c0d1e2f3a") && !text.contains("FailedMount"));
        assert!(!text.contains("managedFields"));
        assert!(!text.contains("czNjcjN0"), "no Secret is ever read");
        // The same explanation, with the scheduler version recorded in the snapshot.
        assert_eq!(
            explain_json(&["explain", "--snapshot", f, "--all-pending", "-o", "json"]),
            live_json,
            "{file}"
        );
        let live_text = run(&["explain", "--kubeconfig", &k, "--all-pending"], "");
        let snap_text = run(&["explain", "--snapshot", f, "--all-pending"], "");
        ok(&snap_text);
        assert_eq!(live_text.stdout, snap_text.stdout);
        assert!(snap_text.stdout.contains("Pod shop/web-7d4b9-pend"));
        // The events came through the round trip.
        assert!(
            snap_text.stdout.contains(
                "Cluster: FailedScheduling (x5, last 2024-05-01T10:09:00Z, default-scheduler): 0/3 nodes are available:"
            ),
            "{}",
            snap_text.stdout
        );
    }
    assert_eq!(live_json[1]["cluster"]["failedSchedulingEvents"][0]["count"], 5);
    // Only reads: nothing but GET was ever sent.
    assert!(server.writes().is_empty());
}

/// A snapshot never holds an environment variable's value, anonymized or not (the live source
/// drops them as it reads: the scheduler never reads them); the variable's name stays.
#[test]
fn a_snapshot_never_writes_environment_values() {
    let server = ApiServer::start();
    let k = kc(&server, None);
    for file in ["plain.yaml", "plain.json"] {
        let f = server.scratch("env").join(file);
        let f = f.to_str().unwrap();
        ok(&run(&["snapshot", "--kubeconfig", &k, "-o", f], ""));
        let text = std::fs::read_to_string(f).unwrap();
        assert!(!text.contains("s3cr3t"), "{file}: an env value was written");
        assert!(text.contains("DB_PASSWORD"), "{file}: the variable's name was dropped");
    }
}

/// A server URL with a user and password (`http://admin:pw@host`) is never printed nor saved:
/// not in the snapshot's header, its recorded info, the messages, nor an error.
#[test]
fn a_servers_credentials_are_never_printed_or_saved() {
    let server = ApiServer::start();
    let url = server.url().replacen("http://", "http://admin:hunter2pw@", 1);
    let k = write_kubeconfig(&server.scratch("userinfo"), &url, None);
    let k = k.to_str().unwrap();
    let f = server.scratch("userinfo").join("snap.yaml");
    let f = f.to_str().unwrap();
    let snap = run(&["snapshot", "--kubeconfig", k, "-o", f], "");
    ok(&snap);
    let text = std::fs::read_to_string(f).unwrap();
    assert!(text.contains(&format!("server: \"{}\"", server.url())), "{text}");
    let explain = run(&["explain", "--kubeconfig", k, "--all-pending"], "");
    ok(&explain);
    assert!(
        explain.stderr.contains(&format!("({})", server.url())),
        "{}",
        explain.stderr
    );
    // a server that is not there: the error names it, without the password
    let dead = write_kubeconfig(&server.scratch("dead"), "http://admin:hunter2pw@127.0.0.1:9", None);
    let err = run(
        &["explain", "--kubeconfig", dead.to_str().unwrap(), "--all-pending"],
        "",
    );
    assert_eq!(err.code, 1, "{}", err.stderr);
    assert!(err.stderr.contains("http://127.0.0.1:9"), "{}", err.stderr);
    for (what, out) in [
        ("snapshot file", text.as_str()),
        ("snapshot stdout", &snap.stdout),
        ("snapshot stderr", &snap.stderr),
        ("explain stdout", &explain.stdout),
        ("explain stderr", &explain.stderr),
        ("error", &err.stderr),
    ] {
        assert!(!out.contains("hunter2pw") && !out.contains("admin:"), "{what}: {out}");
    }
}

#[test]
fn an_anonymized_snapshot_hides_names_but_explains_the_same_way() {
    let server = ApiServer::start();
    let k = kc(&server, None);
    let f = server.scratch("anon").join("anon.yaml");
    let f = f.to_str().unwrap();
    let o = run(&["snapshot", "--kubeconfig", &k, "-o", f, "--anonymize"], "");
    ok(&o);
    assert!(o.stderr.contains("wrote 29 objects"), "{}", o.stderr);
    assert!(
        o.stderr.contains("warning: --anonymize left out the 2 FailedScheduling event(s): their messages name PVCs, nodes and taint values, which cannot be replaced reliably in free text"),
        "{}",
        o.stderr
    );
    let text = std::fs::read_to_string(f).unwrap();
    for secret in [
        "web-7d4b9",
        "shop",
        "node-a",
        "nginx",
        "postgres",
        "s3cr3t",
        "DB_PASSWORD",
        "172.18.0.2",
        "mock",
        "127.0.0.1",
        "retail",
        "zone-a",
        "vol-0abc",
        "business critical",
        "dedicated: db",
        "kind-control-plane",
        "FailedScheduling",
    ] {
        assert!(!text.contains(secret), "'{secret}' left in the anonymized snapshot");
    }
    let anon = explain_json(&["explain", "--snapshot", f, "--all-pending", "-o", "json"]);
    let live = explain_json(&["explain", "--kubeconfig", &k, "--all-pending", "-o", "json"]);
    let shape = |v: &Value| -> Vec<(usize, usize)> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let filter = e["filter"]
                    .as_array()
                    .map(|f| f.iter().filter(|n| n["feasible"] == true).count())
                    .unwrap_or(0);
                (filter, e["selected"].as_array().map_or(0, Vec::len))
            })
            .collect()
    };
    assert_eq!(shape(&anon), shape(&live));
    assert_eq!(shape(&live), [(1, 1), (0, 0)]);
}

#[test]
fn a_namespace_snapshot_warns_that_other_pods_are_missing() {
    let server = ApiServer::start();
    let k = kc(&server, None);
    let f = server.scratch("ns").join("shop.yaml");
    let f = f.to_str().unwrap();
    let o = run(&["snapshot", "--kubeconfig", &k, "-o", f, "-n", "shop"], "");
    ok(&o);
    assert!(o.stderr.contains("warning: only namespace 'shop' was read: pods of other namespaces are missing, so node usage is understated"), "{}", o.stderr);
    let c = kschedtui::source::file::load_path(Path::new(f)).unwrap();
    assert!(c.pods.iter().all(|p| p.key.namespace == "shop"));
    assert_eq!(c.nodes.len(), 3);
}

#[test]
fn explain_a_pod_by_name_uses_the_context_namespace() {
    let server = ApiServer::start();
    let k = kc(&server, Some("shop"));
    let o = run(&["explain", "--kubeconfig", &k, "web-7d4b9-pend"], "");
    ok(&o);
    assert!(o.stdout.starts_with("Pod shop/web-7d4b9-pend"), "{}", o.stdout);
    assert!(o.stdout.contains("Schedulable: would bind to node-a"), "{}", o.stdout);
    // The condition and the FailedScheduling event the cluster's scheduler wrote, and the
    // disagreement (the event predates the last pod created).
    assert!(
        o.stdout.ends_with(
            "Cluster: PodScheduled=False (Unschedulable): 0/3 nodes are available: 3 Insufficient cpu.\n\
             Cluster: FailedScheduling (x3, last 2024-05-01T10:04:30Z, default-scheduler): same message as the condition\n\
             Note: the cluster's scheduler did not schedule the pod (the condition and the newest FailedScheduling event) but kschedtui finds a node: the cluster changed since, or the scheduler runs another profile or release\n\
             Note: the newest FailedScheduling event (2024-05-01T10:04:30Z) is older than the last change kschedtui can date (pod default/big created at 2024-05-01T10:05:00Z): it may describe the cluster before that change\n\
             Note: no other profile (scheduler-plugins-scheduler) nor release (1.30 to 1.38) writes the cluster's message either: the cluster changed since it was written, or it is a kschedtui bug to report\n"
        ),
        "{}",
        o.stdout
    );
}

#[test]
fn a_scheduler_error_from_a_refused_bind_says_the_scheduler_chose_a_node_and_the_write_was_refused() {
    let server = ApiServer::start();
    server.set_scheduler_error(
        "shop",
        "web-7d4b9-pend",
        "running Bind plugin \"DefaultBinder\": admission webhook \"bind-guard.example.com\" denied the request: node \"node-a\" is in maintenance",
        "2024-05-01T10:06:00Z",
    );
    let k = kc(&server, None);
    let o = run(&["explain", "--kubeconfig", &k, "shop/web-7d4b9-pend"], "");
    ok(&o);
    assert!(o.stdout.contains("Schedulable: would bind to node-a"), "{}", o.stdout);
    assert!(
        o.stdout.contains(
            "Cluster: PodScheduled=False (SchedulerError): running Bind plugin \"DefaultBinder\": admission webhook \"bind-guard.example.com\" denied the request: node \"node-a\" is in maintenance\n\
             Cluster: FailedScheduling (x3, last 2024-05-01T10:04:30Z, default-scheduler): 0/3 nodes are available: 3 Insufficient cpu.\n\
             Note: the cluster's scheduler chose a node for the pod and the API server refused the write of its Bind plugin DefaultBinder: admission webhook \"bind-guard.example.com\" denied the request: node \"node-a\" is in maintenance (not a verdict on the nodes: not compared; kschedtui picks node node-a; the refusal names node node-a, which kschedtui picks too)\n"
        ),
        "{}",
        o.stdout
    );
    assert!(
        !o.stdout.contains("did not schedule the pod (the condition"),
        "{}",
        o.stdout
    );
    let v = explain_json(&["explain", "--kubeconfig", &k, "shop/web-7d4b9-pend", "-o", "json"]);
    assert_eq!(v["cluster"]["podScheduled"]["reason"], "SchedulerError");
    assert_eq!(v["cluster"]["podScheduled"].get("agrees"), None);
    assert_eq!(
        v["cluster"]["notes"][0],
        "the cluster's scheduler chose a node for the pod and the API server refused the write of its Bind plugin DefaultBinder: admission webhook \"bind-guard.example.com\" denied the request: node \"node-a\" is in maintenance (not a verdict on the nodes: not compared; kschedtui picks node node-a; the refusal names node node-a, which kschedtui picks too)"
    );
}

#[test]
fn a_pod_missing_from_the_cluster_is_said_to_be_missing_from_the_cluster() {
    let server = ApiServer::start();
    let k = kc(&server, None);
    assert_eq!(
        error_line(&run(&["explain", "--kubeconfig", &k, "shop/nope"], "")),
        format!(
            "error: pod 'shop/nope' is not in the cluster of context 'mock' ({})",
            server.url()
        )
    );
    // the hint for a pod of that name elsewhere is kept
    assert_eq!(
        error_line(&run(&["explain", "--kubeconfig", &k, "default/web-7d4b9-pend"], "")),
        format!(
            "error: pod 'default/web-7d4b9-pend' is not in the cluster of context 'mock' ({}) (a pod of that name is in namespace 'shop')",
            server.url()
        )
    );
}

#[test]
fn explain_json_carries_the_clusters_condition_events_and_agreement() {
    let server = ApiServer::start();
    let k = kc(&server, None);
    let mut v = explain_json(&["explain", "--kubeconfig", &k, "--all-pending", "-o", "json"]);
    // no other profile nor release writes the recorded message (the cluster changed since)
    let tried = v[0]["cluster"]
        .as_object_mut()
        .and_then(|o| o.remove("reproducedBy"))
        .expect("reproducedBy");
    assert_eq!(tried["candidates"], json!([]));
    assert_eq!(tried["releasesTried"][0], "1.30.6");
    assert_eq!(
        tried["releasesTried"].as_array().map(Vec::len),
        Some(kschedtui::engine::Release::known().len())
    );
    assert_eq!(tried["profilesTried"], json!(["scheduler-plugins-scheduler"]));
    assert_eq!(
        v[0]["cluster"],
        json!({
            "podScheduled": {"status": "False", "reason": "Unschedulable",
                             "message": "0/3 nodes are available: 3 Insufficient cpu.",
                             "lastTransitionTime": "2024-05-01T10:00:01Z", "agrees": false},
            "failedSchedulingEvents": [{
                "name": "web-7d4b9-pend.17cb8e0a1f2b3c4d", "count": 3,
                "firstTime": "2024-05-01T10:00:01Z", "lastTime": "2024-05-01T10:04:30Z",
                "reportingComponent": "default-scheduler", "type": "Warning",
                "message": "0/3 nodes are available: 3 Insufficient cpu.", "agrees": false}],
            "agrees": false,
            "notes": [
                "the cluster's scheduler did not schedule the pod (the condition and the newest FailedScheduling event) but kschedtui finds a node: the cluster changed since, or the scheduler runs another profile or release",
                "the newest FailedScheduling event (2024-05-01T10:04:30Z) is older than the last change kschedtui can date (pod default/big created at 2024-05-01T10:05:00Z): it may describe the cluster before that change"
            ]
        })
    );
    // default/big: recorded through the events.k8s.io API, with kschedtui's own message.
    assert_eq!(
        v[1]["cluster"],
        json!({
            "failedSchedulingEvents": [{
                "name": "big.17cb8e5c0d1e2f3a", "count": 5,
                "firstTime": "2024-05-01T10:05:01.123456Z", "lastTime": "2024-05-01T10:09:00Z",
                "reportingComponent": "default-scheduler", "type": "Warning",
                "message": v[1]["message"], "agrees": true}],
            "agrees": true
        })
    );
    // The events were asked for with the field selector only.
    let lists: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/v1/events")
        .collect();
    assert_eq!(lists.len(), 1);
    assert_eq!(
        lists[0].param("fieldSelector").as_deref(),
        Some("involvedObject.kind=Pod,reason=FailedScheduling")
    );
}

#[test]
fn explain_goes_on_when_events_are_forbidden_and_says_so() {
    let server = ApiServer::start();
    server.forbid_events();
    let k = kc(&server, None);
    let o = run(&["explain", "--kubeconfig", &k, "default/big"], "");
    ok(&o);
    assert!(
        o.stdout.ends_with(
            "Cluster: events: not readable (403 Forbidden: events is forbidden: User \"tester\" cannot list resource \"events\" in API group \"\" at the cluster scope)\n"
        ),
        "{}",
        o.stdout
    );
    let v = explain_json(&["explain", "--kubeconfig", &k, "default/big", "-o", "json"]);
    assert_eq!(
        v["cluster"],
        json!({"failedSchedulingEvents": [],
               "eventsUnreadable": "403 Forbidden: events is forbidden: User \"tester\" cannot list resource \"events\" in API group \"\" at the cluster scope"})
    );
    // A snapshot says so too, and still writes.
    let f = server.scratch("noevents").join("s.yaml");
    let f = f.to_str().unwrap();
    let s = run(&["snapshot", "--kubeconfig", &k, "-o", f], "");
    ok(&s);
    assert!(
        s.stderr.contains("warning: events could not be read (403 Forbidden: events is forbidden: User \"tester\" cannot list resource \"events\" in API group \"\" at the cluster scope): the snapshot has no FailedScheduling events"),
        "{}",
        s.stderr
    );
    assert!(s.stderr.contains(&format!("wrote 29 objects to '{f}'")), "{}", s.stderr);
    // The snapshot records it: explaining it says the same as explaining the cluster did.
    let snap = run(&["explain", "--snapshot", f, "default/big"], "");
    ok(&snap);
    assert_eq!(snap.stdout, o.stdout);
    // Anonymized, only the status is kept (the message names the user).
    let a = server.scratch("noevents-anon").join("a.yaml");
    let a = a.to_str().unwrap();
    ok(&run(&["snapshot", "--kubeconfig", &k, "-o", a, "--anonymize"], ""));
    assert!(!std::fs::read_to_string(a).unwrap().contains("tester"));
    let v = explain_json(&["explain", "--snapshot", a, "--all-pending", "-o", "json"]);
    assert_eq!(
        v[1]["cluster"],
        json!({"failedSchedulingEvents": [], "eventsUnreadable": "403 Forbidden"})
    );
}

#[test]
fn forbidden_volume_attachments_are_warned_about_live_and_in_the_snapshot() {
    let server = ApiServer::start();
    server.forbid_volume_attachments();
    let k = kc(&server, None);
    let warning = "warning: VolumeAttachments could not be read (403 Forbidden: volumeattachments is forbidden: User \"tester\" cannot list resource \"volumeattachments\" in API group \"storage.k8s.io\" at the cluster scope): from 1.32 NodeVolumeLimits also counts the volumes they attach to a node, so its verdicts may understate what is attached";
    let o = run(&["explain", "--kubeconfig", &k, "default/big"], "");
    ok(&o);
    assert!(o.stderr.contains(warning), "{}", o.stderr);
    let f = server.scratch("novas").join("s.yaml");
    let f = f.to_str().unwrap();
    let s = run(&["snapshot", "--kubeconfig", &k, "-o", f], "");
    ok(&s);
    assert!(s.stderr.contains(warning), "{}", s.stderr);
    // 28 objects without the VolumeAttachment, and the two events.
    assert!(s.stderr.contains(&format!("wrote 30 objects to '{f}'")), "{}", s.stderr);
    let snap = run(&["explain", "--snapshot", f, "default/big"], "");
    ok(&snap);
    assert!(snap.stderr.contains(warning), "{}", snap.stderr);
    assert_eq!(snap.stdout, o.stdout);
}

#[test]
fn bind_prints_the_request_checks_access_and_sends_it() {
    let server = ApiServer::start();
    let k = kc(&server, None);
    let o = run(&["bind", "shop/web-7d4b9-pend", "--kubeconfig", &k, "--yes"], "");
    ok(&o);
    assert!(
        o.stdout
            .contains("The engine selects node 'node-a' for shop/web-7d4b9-pend (kube-scheduler 1.30.6)."),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains(r#"  1. POST /api/v1/namespaces/shop/pods/web-7d4b9-pend/binding {"apiVersion":"v1","kind":"Binding","metadata":{"name":"web-7d4b9-pend","namespace":"shop","uid":"0b1a3c8e-0010-4000-8000-000000000007"},"target":{"kind":"Node","name":"node-a"}}"#), "{}", o.stdout);
    assert!(
        o.stdout
            .contains("  1. bind shop/web-7d4b9-pend to node 'node-a': ok (201)"),
        "{}",
        o.stdout
    );
    let w = server.writes();
    assert_eq!(w.len(), 2);
    assert!(w[0].path.ends_with("/selfsubjectaccessreviews"));
    assert_eq!(w[1].json()["target"]["name"], "node-a");
}

#[test]
fn bind_asks_for_confirmation_and_sends_nothing_on_no() {
    let server = ApiServer::start();
    let k = kc(&server, None);
    let o = run(
        &[
            "bind",
            "web-7d4b9-pend",
            "-n",
            "shop",
            "--node",
            "node-c",
            "--force",
            "--kubeconfig",
            &k,
        ],
        "n\n",
    );
    assert_eq!(error_line(&o), "error: cancelled; nothing was sent");
    assert!(o.stdout.contains("Send 1 request(s)? [y/N] "), "{}", o.stdout);
    assert!(!server.writes().iter().any(|r| r.path.ends_with("/binding")));
    let o = run(
        &[
            "bind",
            "web-7d4b9-pend",
            "-n",
            "shop",
            "--node",
            "node-c",
            "--force",
            "--kubeconfig",
            &k,
        ],
        "y\n",
    );
    ok(&o);
    let binds: Vec<_> = server
        .writes()
        .into_iter()
        .filter(|r| r.path.ends_with("/binding"))
        .collect();
    assert_eq!(binds.len(), 1);
    assert_eq!(binds[0].json()["target"]["name"], "node-c");
}

#[test]
fn readonly_sends_nothing_at_all() {
    let server = ApiServer::start();
    let k = kc(&server, None);
    let o = run(
        &["--readonly", "bind", "shop/web-7d4b9-pend", "--kubeconfig", &k, "--yes"],
        "",
    );
    assert_eq!(
        error_line(&o),
        "error: writes are disabled (--readonly); nothing was sent"
    );
    assert!(
        o.stdout
            .contains("POST /api/v1/namespaces/shop/pods/web-7d4b9-pend/binding"),
        "the plan is still shown"
    );
    ok(&run(
        &["explain", "--readonly", "--kubeconfig", &k, "--all-pending"],
        "",
    ));
    assert!(server.writes().is_empty(), "{:?}", server.writes());
    assert!(server.requests().iter().all(|r| r.method == "GET"));
}

#[test]
fn dry_run_server_sends_dry_run_all() {
    let server = ApiServer::start();
    let k = kc(&server, None);
    let o = run(
        &[
            "bind",
            "shop/web-7d4b9-pend",
            "--kubeconfig",
            &k,
            "--yes",
            "--dry-run=server",
        ],
        "",
    );
    ok(&o);
    assert!(
        o.stdout.contains("sent as server-side dry runs (dryRun=All)"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("POST /api/v1/namespaces/shop/pods/web-7d4b9-pend/binding?dryRun=All "),
        "{}",
        o.stdout
    );
    let b = server
        .writes()
        .into_iter()
        .find(|r| r.path.ends_with("/binding"))
        .unwrap();
    assert_eq!(b.param("dryRun").as_deref(), Some("All"));
}

#[test]
fn bind_refusals_and_conflicts_are_one_line() {
    let server = ApiServer::start();
    server.deny("create", "binding");
    let k = kc(&server, None);
    let o = run(&["bind", "shop/web-7d4b9-pend", "--kubeconfig", &k, "--yes"], "");
    assert_eq!(
        error_line(&o),
        "error: not allowed to create pods/binding in namespace 'shop': permission denied (the SelfSubjectAccessReview answers allowed: false, reason: RBAC: user \"tester\" may not create pods/binding); ask a cluster admin for this permission; nothing was sent"
    );
    assert!(!server.writes().iter().any(|r| r.path.ends_with("/binding")));

    let server = ApiServer::start();
    let k = kc(&server, None);
    server.reply_once("POST", "/api/v1/namespaces/shop/pods/web-7d4b9-pend/binding", Reply::status_with(409, "Conflict", "Operation cannot be fulfilled on pods/binding \"web-7d4b9-pend\": pod web-7d4b9-pend is already assigned to node \"node-c\"", json!({"name": "web-7d4b9-pend", "kind": "pods/binding"})));
    let o = run(&["bind", "shop/web-7d4b9-pend", "--kubeconfig", &k, "--yes"], "");
    assert_eq!(
        error_line(&o),
        "error: pod shop/web-7d4b9-pend is already bound to node 'node-c' (409 Conflict); nothing to do"
    );
}

#[test]
fn preempt_refuses_a_pod_that_fits() {
    let server = ApiServer::start();
    let k = kc(&server, None);
    let o = run(
        &["preempt", "shop/web-7d4b9-pend", "--kubeconfig", &k, "--yes", "--evict"],
        "",
    );
    assert_eq!(
        error_line(&o),
        "error: shop/web-7d4b9-pend needs no preemption (Schedulable: would bind to node-a); use `kschedtui bind shop/web-7d4b9-pend`"
    );
    assert!(server.writes().is_empty());
}

#[test]
fn connection_failures_are_one_line_naming_the_server() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let down = temp_dir("down");
    let k = write_kubeconfig(down.path(), &url, None);
    let line = error_line(&run(
        &["explain", "--all-pending", "--kubeconfig", k.to_str().unwrap()],
        "",
    ));
    assert!(
        line.starts_with(&format!("error: cannot reach the API server at {url} (")),
        "{line}"
    );

    let server = ApiServer::start();
    let https = format!("https://{}", server.addr);
    let k = write_kubeconfig(&server.scratch("tls"), &https, None);
    let line = error_line(&run(
        &["explain", "--all-pending", "--kubeconfig", k.to_str().unwrap()],
        "",
    ));
    assert!(
        line.starts_with(&format!("error: TLS handshake with {https} failed (")),
        "{line}"
    );

    server.require_token("rotated");
    let k = kc(&server, None);
    assert_eq!(
        error_line(&run(&["snapshot", "-o", "/dev/null", "--kubeconfig", &k], "")),
        format!(
            "error: {} rejected the credentials of context 'mock' (401 Unauthorized); they have probably expired: log in again and retry",
            server.url()
        )
    );

    let server = ApiServer::start();
    server.reply_always(
        "GET",
        "/api/v1/nodes",
        Reply::status_with(
            403,
            "Forbidden",
            "nodes is forbidden: User \"tester\" cannot list resource \"nodes\" in API group \"\" at the cluster scope",
            json!({"kind": "nodes"}),
        ),
    );
    let k = kc(&server, None);
    assert_eq!(
        error_line(&run(&["explain", "--all-pending", "--kubeconfig", &k], "")),
        format!(
            "error: {} does not allow context 'mock' to list nodes (403 Forbidden: nodes is forbidden: User \"tester\" cannot list resource \"nodes\" in API group \"\" at the cluster scope); kschedtui needs get, list and watch on it: ask a cluster admin",
            server.url()
        )
    );

    let k = kc(&server, None);
    assert_eq!(
        error_line(&run(
            &["explain", "--all-pending", "--kubeconfig", &k, "--context", "prod"],
            ""
        )),
        format!("error: context 'prod' is not in kubeconfig '{k}' (available: mock); pass --context with one of those")
    );
}

/// A high-priority pod that fits only once default/batch-1 (priority 0) leaves node-c.
fn add_urgent_pod(server: &ApiServer) {
    let mut pods = server.items("pods");
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
fn preempt_marks_and_deletes_the_victims_the_engine_chose_then_nominates() {
    let server = ApiServer::start();
    add_urgent_pod(&server);
    let k = kc(&server, None);
    let o = run(&["preempt", "shop/urgent", "--kubeconfig", &k, "--yes"], "");
    ok(&o);
    assert!(
        o.stdout.contains("The engine (kube-scheduler 1.30.6) nominates node 'node-c' for shop/urgent, with 1 victim(s): default/batch-1"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("victims removed: default/batch-1\n"), "{}", o.stdout);
    let sent: Vec<(String, String)> = server
        .writes()
        .into_iter()
        .filter(|r| !r.path.ends_with("selfsubjectaccessreviews"))
        .map(|r| (r.method, r.path))
        .collect();
    assert_eq!(
        sent,
        [
            (
                "PATCH".to_string(),
                "/api/v1/namespaces/default/pods/batch-1/status".to_string()
            ),
            (
                "DELETE".to_string(),
                "/api/v1/namespaces/default/pods/batch-1".to_string()
            ),
            (
                "PATCH".to_string(),
                "/api/v1/namespaces/shop/pods/urgent/status".to_string()
            ),
        ]
    );
}

#[test]
fn preempt_with_evict_reports_a_pdb_refusal_and_does_not_nominate() {
    let server = ApiServer::start();
    add_urgent_pod(&server);
    server.reply_once(
        "POST",
        "/api/v1/namespaces/default/pods/batch-1/eviction",
        Reply::status_with(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.", json!({"causes": [{"reason": "DisruptionBudget", "message": "The disruption budget batch-pdb needs 1 healthy pods and has 1 currently"}]})),
    );
    let k = kc(&server, None);
    let o = run(&["preempt", "shop/urgent", "--kubeconfig", &k, "--yes", "--evict"], "");
    assert_eq!(
        error_line(&o),
        "error: preemption incomplete: 0 of 1 victim(s) removed, the node was not nominated: eviction of default/batch-1 refused (429): PodDisruptionBudget 'batch-pdb' does not allow it: The disruption budget batch-pdb needs 1 healthy pods and has 1 currently; wait for it to allow a disruption or preempt without --evict"
    );
    assert!(o.stdout.contains("victims removed: none\n"), "{}", o.stdout);
    assert!(
        !server.writes().iter().any(|r| r.method == "PATCH"),
        "the preemptor was not nominated"
    );
}

/// True when python3 with PyYAML (a YAML 1.1 reader) is installed.
fn pyyaml() -> bool {
    Command::new("python3")
        .args(["-c", "import yaml"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_yaml_snapshot_reads_back_as_strings_in_yaml_1_1_readers() {
    let server = ApiServer::start();
    // label values a YAML 1.1 reader would take for a boolean and a number
    let mut nodes = server.items("nodes");
    nodes[0]["metadata"]["labels"]["spot"] = json!("yes");
    nodes[0]["metadata"]["labels"]["rack"] = json!("0777");
    server.set_items("nodes", nodes, "1000");
    let k = kc(&server, None);
    let f = server.scratch("yaml11").join("snap.yaml");
    let f = f.to_str().unwrap();
    ok(&run(&["snapshot", "--kubeconfig", &k, "-o", f], ""));
    let text = std::fs::read_to_string(f).unwrap();
    // quoted as kubectl quotes them
    assert!(text.contains("creationTimestamp: \"2024-04-01T00:00:00Z\"\n"), "{text}");
    assert!(text.contains("spot: \"yes\"\n"), "{text}");
    assert!(text.contains("rack: \"0777\"\n"), "{text}");
    assert!(!text.contains(": 2024-"), "an unquoted timestamp: {text}");
    // the round trip explains the same
    let live = explain_json(&["explain", "--kubeconfig", &k, "--all-pending", "-o", "json"]);
    assert_eq!(
        explain_json(&["explain", "--snapshot", f, "--all-pending", "-o", "json"]),
        live
    );
    // a YAML 1.1 reader gets exactly the strings back (json.dumps fails on a date)
    if !pyyaml() {
        eprintln!("python3 with PyYAML is not installed: the YAML 1.1 read-back is checked by the exact text only");
        return;
    }
    let py = Command::new("python3")
        .args([
            "-c",
            "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
            f,
        ])
        .output()
        .unwrap();
    assert!(py.status.success(), "{}", String::from_utf8_lossy(&py.stderr));
    let from_pyyaml: Value = serde_json::from_slice(&py.stdout).unwrap();
    let from_serde: Value = serde_yaml::from_str(&text).unwrap();
    assert_eq!(from_pyyaml, from_serde);
    let default_ns = from_pyyaml["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "Namespace" && o["metadata"]["name"] == "default")
        .unwrap();
    assert_eq!(default_ns["metadata"]["creationTimestamp"], "2024-04-01T00:00:00Z");
}

/// The jq filter of docs/live-clusters.md ("Replaying a snapshot into a cluster").
fn replay_filter() -> String {
    let doc = include_str!("../../docs/live-clusters.md");
    let from = doc
        .find("### Replaying a snapshot into a cluster")
        .expect("the section");
    let rest = &doc[from..];
    let start = rest.find("```jq\n").expect("the jq block") + "```jq\n".len();
    let end = rest[start..].find("```").expect("its end");
    rest[start..start + end].to_string()
}

#[test]
fn a_snapshot_with_server_merged_match_label_keys_explains_once_and_replays() {
    let jq_ok = Command::new("jq")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let server = ApiServer::start();
    // as a 1.34 API server stores them: shop/web-v3 was created with version v2, so the server
    // appended `version In [v2]` to its term; its label is v3 since. shop/web-v2 runs on node-a.
    let mut pods = server.items("pods");
    pods.push(json!({
        "metadata": {"name": "web-v2", "namespace": "shop", "uid": "0b1a3c8e-0010-4000-8000-0000000000a2",
                     "resourceVersion": "210", "creationTimestamp": "2024-05-01T11:00:00Z",
                     "labels": {"app": "shop-web", "version": "v2"}},
        "spec": {"nodeName": "node-a", "containers": [{"name": "app", "image": "busybox:1.36",
                 "resources": {"requests": {"cpu": "100m"}}}]},
        "status": {"phase": "Running"}
    }));
    pods.push(json!({
        "metadata": {"name": "web-v3", "namespace": "shop", "uid": "0b1a3c8e-0010-4000-8000-0000000000a3",
                     "resourceVersion": "211", "creationTimestamp": "2024-05-01T11:00:00Z",
                     "labels": {"app": "shop-web", "version": "v3"}},
        "spec": {
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchExpressions": [
                    {"key": "app", "operator": "In", "values": ["shop-web"]},
                    {"key": "version", "operator": "In", "values": ["v2"]}]},
                "matchLabelKeys": ["version"],
                "topologyKey": "kubernetes.io/hostname"}]}},
            "containers": [{"name": "app", "image": "busybox:1.36", "resources": {"requests": {"cpu": "100m"}}}]},
        "status": {"phase": "Pending"}
    }));
    server.set_items("pods", pods, "1000");
    let k = kc(&server, None);
    let dir = server.scratch("merged");
    let cluster = dir.join("cluster.json");
    let cluster = cluster.to_str().unwrap();
    ok(&run(&["snapshot", "--kubeconfig", &k, "-o", cluster], ""));
    // merged once: node-a (where web-v2 runs) is ruled out by the selector as stored, not
    // required to match both v2 and v3
    let explain = |f: &str| {
        let o = run(
            &["explain", "--snapshot", f, "shop/web-v3", "--scheduler-version", "1.34"],
            "",
        );
        ok(&o);
        o.stdout
    };
    let stored = explain(cluster);
    assert!(stored.contains("node-a  no fit     InterPodAffinity"), "{stored}");
    if !jq_ok {
        eprintln!("jq is not installed: the replay recipe of docs/live-clusters.md is not run");
        return;
    }
    let out = Command::new("jq").arg(replay_filter()).arg(cluster).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let submitted: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pod = submitted["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "Pod" && o["metadata"]["name"] == "web-v3")
        .unwrap();
    let term = &pod["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0];
    // the API server would refuse the stored form (`exists in both matchLabelKeys and
    // labelSelector`): the keys go, the merged selector stays
    assert_eq!(term.get("matchLabelKeys"), None);
    assert_eq!(
        term["labelSelector"]["matchExpressions"],
        json!([{"key": "app", "operator": "In", "values": ["shop-web"]},
               {"key": "version", "operator": "In", "values": ["v2"]}])
    );
    let replay = dir.join("submitted.json");
    std::fs::write(&replay, &out.stdout).unwrap();
    assert_eq!(explain(replay.to_str().unwrap()), stored);
}

/// `fit` on a live cluster reads it once, places on a copy (nothing is sent), names the
/// context's namespace for manifests without one, and answers as on the snapshot of it.
#[test]
fn fit_on_a_live_cluster_answers_as_on_its_snapshot_and_sends_nothing() {
    let server = ApiServer::start();
    let k = kc(&server, Some("shop"));
    let deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web-next}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web-next}}\n  template:\n    metadata: {labels: {app: web-next}}\n    spec: {containers: [{name: c, image: web, resources: {requests: {cpu: 100m}}}]}\n";
    let live = run(&["fit", "--kubeconfig", &k, "-f", "-", "-o", "json"], deploy);
    assert!(matches!(live.code, 0 | 3), "{}", live.stderr);
    let live_json: Value = serde_json::from_str(&live.stdout).unwrap();
    let w = &live_json["workloads"][0];
    assert_eq!(
        (w["namespace"].as_str(), w["replicas"].as_u64()),
        (Some("shop"), Some(3))
    );
    assert_eq!(live_json["schedulerVersion"], "1.30.6");
    let f = server.scratch("fit").join("snap.yaml");
    let f = f.to_str().unwrap();
    ok(&run(&["snapshot", "--kubeconfig", &k, "-o", f], ""));
    let snap = run(&["fit", "--snapshot", f, "-f", "-", "-n", "shop", "-o", "json"], deploy);
    assert_eq!(snap.code, live.code, "{}", snap.stderr);
    assert_eq!(serde_json::from_str::<Value>(&snap.stdout).unwrap(), live_json);
    assert!(server.writes().is_empty());
}
