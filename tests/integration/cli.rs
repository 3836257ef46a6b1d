//! The `kschedtui` binary as a user runs it: exit codes and the exact error lines for the
//! deliberate mistakes under fixtures/invalid.

use crate::scratch::temp_dir;
use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run kschedtui")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn invalid_fixtures_give_one_line_errors_naming_object_and_field() {
    let cases = [
        (
            "bad-quantity",
            "error: fixtures/invalid/bad-quantity.yaml (document 0): Pod default/web: field 'spec.containers[0].resources.requests.cpu': '1.5.3' is not a valid quantity: it has more than one decimal point (examples: 500m, 2, 1.5Gi, 100Mi, 1e3)",
        ),
        (
            "bad-node-allocatable",
            "error: fixtures/invalid/bad-node-allocatable.yaml (document 0): Node n1: field 'status.allocatable.memory': '8Qi' is not a valid quantity: its suffix is not one of n u m k M G T P E Ki Mi Gi Ti Pi Ei or an exponent (examples: 500m, 2, 1.5Gi, 100Mi, 1e3)",
        ),
        (
            "duplicate",
            "error: fixtures/invalid/duplicate.yaml (document 1): Node n1: field 'metadata.name': duplicate object: Node n1 was already defined at fixtures/invalid/duplicate.yaml (document 0)",
        ),
        (
            "missing-name",
            "error: fixtures/invalid/missing-name.yaml (document 0): Node (unnamed): field 'metadata.name': is missing; every object needs a name",
        ),
        (
            "no-kind",
            "error: fixtures/invalid/no-kind.yaml: document 0: object has no 'kind'",
        ),
        (
            "wrong-type",
            "error: fixtures/invalid/wrong-type.yaml (document 0): Pod default/web: field 'spec.containers': invalid type: map, expected a sequence",
        ),
    ];
    for (name, want) in cases {
        let path = format!("fixtures/invalid/{name}.yaml");
        let o = run(&["explain", "--snapshot", &path, "--all-pending"]);
        assert_eq!(o.status.code(), Some(1), "{name}");
        assert_eq!(stderr(&o).trim_end(), want, "{name}");
        assert!(o.stdout.is_empty(), "{name}: nothing on stdout");
    }
    let o = run(&[
        "explain",
        "--snapshot",
        "fixtures/invalid/not-yaml.yaml",
        "--all-pending",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with("error: fixtures/invalid/not-yaml.yaml: document 0: not valid YAML: "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn every_invalid_fixture_has_a_case() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/invalid");
    let n = std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "yaml"))
        .count();
    assert_eq!(n, 7, "add a case above for each new fixtures/invalid file");
}

#[test]
fn missing_pod_missing_file_and_bad_version_are_errors() {
    let o = run(&[
        "explain",
        "--snapshot",
        "fixtures/seeds-worked-example.yaml",
        "default/nope",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim_end(),
        "error: pod 'default/nope' is not in the snapshot"
    );
    let o = run(&[
        "explain",
        "--snapshot",
        "fixtures/seeds-worked-example.yaml",
        "web-1",
        "-n",
        "prod",
    ]);
    assert_eq!(
        stderr(&o).trim_end(),
        "error: pod 'prod/web-1' is not in the snapshot (a pod of that name is in namespace 'default')"
    );
    let o = run(&["explain", "--snapshot", "fixtures/does-not-exist.yaml", "x"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim_end(),
        "error: cannot read snapshot 'fixtures/does-not-exist.yaml': No such file or directory (os error 2)"
    );
    let o = run(&[
        "explain",
        "--snapshot",
        "fixtures/seeds-worked-example.yaml",
        "web-1",
        "--scheduler-version",
        "1.12",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("'1.12' is not a supported scheduler version"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn warnings_do_not_stop_the_explanation() {
    let o = run(&[
        "explain",
        "--snapshot",
        "fixtures/warnings.yaml",
        "--all-pending",
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("Pod default/typo: unknown field 'spec.containers[0].resorces' (ignored)"),
        "{err}"
    );
    assert!(
        err.contains("Pod default/orphan: spec.nodeName 'gone' names no node in the snapshot"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1, "only the pending pod is explained");
    assert_eq!(v[0]["pod"]["name"], "typo");
    assert_eq!(v[0]["selected"], serde_json::json!(["n1"]));
}

#[test]
fn text_json_and_yaml_outputs() {
    let o = run(&[
        "explain",
        "--snapshot",
        "fixtures/seeds-worked-example.yaml",
        "default/web-1",
        "--scheduler-version",
        "1.30",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("Verdict: Schedulable: would bind to node-1"), "{text}");
    assert!(
        text.contains("node-3  no fit     TaintToleration            node(s) had untolerated taint {dedicated: gpu}"),
        "{text}"
    );
    let o = run(&[
        "explain",
        "--snapshot",
        "fixtures/seeds-worked-example.yaml",
        "web-1",
        "-o",
        "yaml",
        "--scheduler-version",
        "1.30",
    ]);
    let y: serde_yaml::Value = serde_yaml::from_slice(&o.stdout).unwrap();
    assert_eq!(y["selected"][0].as_str(), Some("node-1"));
    // 1.34 (upstream #134740, cherry-picked into 1.34 patches) no longer prints the taint;
    // 1.33 still does
    for (version, reason) in [
        ("1.33", "node(s) had untolerated taint {dedicated: gpu}"),
        ("1.34", "node(s) had untolerated taint(s)"),
    ] {
        let o = run(&[
            "explain",
            "--snapshot",
            "fixtures/seeds-worked-example.yaml",
            "web-1",
            "-o",
            "json",
            "--scheduler-version",
            version,
        ]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["filter"][2]["reasons"], serde_json::json!([reason]), "{version}");
    }
}

#[test]
fn explain_shows_the_binding_cycle_and_the_gang() {
    let o = run(&[
        "explain",
        "--snapshot",
        "fixtures/seeds-worked-example.yaml",
        "web-1",
        "-o",
        "json",
        "--scheduler-version",
        "1.30",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let b = &v["bindingCycle"];
    assert_eq!(b["node"], "node-1");
    assert_eq!(b["outcome"], "Bound");
    assert_eq!(b["reserve"][0]["plugin"], "VolumeBinding");
    assert_eq!(b["bind"][0]["plugin"], "DefaultBinder");
    assert_eq!(
        b["bind"][0]["notes"][0],
        "would POST /api/v1/namespaces/default/pods/web-1/binding with target Node 'node-1'"
    );
    assert!(v.get("gang").is_none());
    let o = run(&["explain", "--snapshot", "fixtures/gang.yaml", "ml/worker-0"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("Verdict: Waiting at Permit on gpu-1"), "{text}");
    assert!(
        text.contains("minMember 4, 4 member pod(s), 0 other member(s) already on a node, permit timeout 10s"),
        "{text}"
    );
    assert!(
        text.contains("Permit     Coscheduling           Wait (up to 10s)"),
        "{text}"
    );
}

#[test]
fn simulate_needs_a_cluster() {
    let o = run(&["simulate"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim_end(),
        "error: no cluster to simulate: pass --snapshot FILE or --demo"
    );
}

#[test]
fn tui_flags_are_checked_before_the_terminal_opens_and_refused_before_a_command() {
    let o = run(&["--demo", "--scheduler-version", "1.29"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("error: "), "{}", stderr(&o));
    assert!(stderr(&o).contains("1.29"), "{}", stderr(&o));
    let o = run(&["--demo", "--config", "no/such/config.yaml"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).lines().next().unwrap_or_default(),
        "error: cannot read scheduler config 'no/such/config.yaml': No such file or directory (os error 2)"
    );
    let o = run(&[
        "--config",
        "tests/conformance/config/000.config.yaml",
        "--evict",
        "explain",
        "--demo",
        "shop/payments-api",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "error: --config, --evict before the command configures the terminal UI; for `explain` put it after the command name (kschedtui explain --config ... --evict ...)\n"
    );
}

#[test]
fn explain_profile_runs_another_profile_as_a_what_if() {
    let o = run(&["explain", "--demo", "batch/spark-driver", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["waitingForScheduler"], "volcano", "{v}");
    assert_eq!(v["selected"], serde_json::json!([]), "{v}");
    let o = run(&[
        "explain",
        "--demo",
        "batch/spark-driver",
        "--profile",
        "default-scheduler",
        "-o",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["profile"], "default-scheduler", "{v}");
    assert_eq!(v.get("waitingForScheduler"), None, "{v}");
    assert!(!v["filter"].as_array().expect("filter").is_empty(), "{v}");
    let o = run(&["explain", "--demo", "batch/spark-driver", "--profile", "nope"]);
    assert_eq!(
        stderr(&o),
        "error: no scheduler profile named 'nope' (profiles: default-scheduler, scheduler-plugins-scheduler)\n"
    );
}

#[test]
fn the_demo_shows_one_agreeing_and_one_disagreeing_cluster_verdict() {
    let json = |args: &[&str]| -> serde_json::Value {
        let o = run(args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).expect("json")
    };
    let v = json(&["explain", "--demo", "batch/report-huge", "-o", "json"]);
    assert_eq!(v["cluster"]["agrees"], true, "{}", v["cluster"]);
    let v = json(&["explain", "--demo", "ml/finetune-llm", "-o", "json"]);
    assert_eq!(v["cluster"]["agrees"], false, "{}", v["cluster"]);
    // its message was written by a scheduler that names the taints (1.30 to 1.33)
    let v = json(&[
        "explain",
        "--demo",
        "ml/finetune-llm",
        "-o",
        "json",
        "--scheduler-version",
        "1.33",
    ]);
    assert_eq!(v["cluster"]["agrees"], true, "{}", v["cluster"]);
}

#[test]
fn queue_says_where_each_pending_pod_waits_and_what_moves_it() {
    let gates = [
        "--scheduler-version",
        "1.36",
        "--feature-gates",
        "GenericWorkload=true,GangScheduling=true",
    ];
    let mut args = vec!["queue", "--demo"];
    args.extend(gates);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let line = |pod: &str| {
        text.lines()
            .find(|l| l.starts_with(pod))
            .unwrap_or_else(|| panic!("{pod} in\n{text}"))
            .to_string()
    };
    // A gang short of members is held before the queue, with no event.
    let r = line("ml/rollout-0 ");
    assert!(
        r.contains("held before the queue") && r.contains("GangScheduling"),
        "{r}"
    );
    assert!(
        r.ends_with("waiting for minCount pods from a gang to appear in scheduling queue"),
        "{r}"
    );
    let detail = text.split("ml/rollout-0 (held before the queue):").nth(1).unwrap();
    assert!(
        detail.contains("no FailedScheduling event and no PodScheduled condition"),
        "{detail}"
    );
    assert!(
        detail.contains("moves on when another member of its group is created"),
        "{detail}"
    );
    assert!(line("ml/sweep-0 ").contains("waiting at Permit"));
    assert!(line("shop/checkout-canary ").contains("SchedulingGates"));
    assert!(line("ml/eval-batch ").contains("could not find ResourceClaim \"ml/eval-gpu\""));
    assert!(line("batch/spark-driver ").contains("another scheduler's"));
    // Unschedulable pods: the events their rejecting plugins registered; payments-api is
    // nominated for preemption.
    let pay = text.split("shop/payments-api (unschedulable):").nth(1).unwrap();
    assert!(
        pay.contains("its preemption victims on pool-general-a3 are gone"),
        "{pay}"
    );
    assert!(
        pay.contains("NodeResourcesFit: a pod on a node is deleted or scaled down"),
        "{pay}"
    );
    // JSON: one entry per pending pod, in queue order.
    let mut args = vec!["queue", "--demo", "-o", "json"];
    args.extend(gates);
    let o = run(&args);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["kind"], "Queue");
    let pods = v["pods"].as_array().unwrap();
    let held = pods
        .iter()
        .find(|p| p["pod"] == serde_json::json!({"namespace": "ml", "name": "rollout-1"}))
        .unwrap();
    assert_eq!(held["pool"], "heldBeforeQueue");
    assert_eq!(held["writesEvent"], false);
    assert_eq!(held["plugins"], serde_json::json!(["GangScheduling"]));
    // Without the gates the same pods are ordinary ones.
    let o = run(&["queue", "--demo"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.lines()
            .any(|l| l.starts_with("ml/rollout-0 ") && l.contains("active")),
        "{text}"
    );
}

#[test]
fn claims_under_a_release_without_dra_are_named_not_silently_ignored() {
    let o = run(&["explain", "--demo", "ml/train-3gpu", "--scheduler-version", "1.33"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("spec.resourceClaims but DynamicResourceAllocation is off at 1.33.3"),
        "{text}"
    );
    // With the gate on, the claims are evaluated and the note is gone.
    let o = run(&[
        "explain",
        "--demo",
        "ml/train-3gpu",
        "--scheduler-version",
        "1.33",
        "--feature-gates",
        "DynamicResourceAllocation=true",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("DynamicResourceAllocation is off"), "{text}");
    assert!(text.contains("cannot allocate all claims"), "{text}");
}

#[test]
fn a_gang_is_explained_as_a_whole_with_the_member_that_blocks_it() {
    let o = run(&["explain", "--demo", "ml/ddp-worker-0", "-o", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let g = &v["groupCycle"];
    assert_eq!(g["plugin"], "Coscheduling");
    assert_eq!(g["minMember"], 4);
    assert_eq!(
        g["outcome"],
        serde_json::json!({"kind": "short", "placed": 3, "need": 4,
            "blockers": [{"namespace": "ml", "name": "ddp-worker-3"}]})
    );
    let results: Vec<(&str, &str)> = g["tried"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["pod"]["name"].as_str().unwrap(), m["result"].as_str().unwrap()))
        .collect();
    assert_eq!(
        results,
        [
            ("ddp-worker-0", "released"),
            ("ddp-worker-1", "released"),
            ("ddp-worker-2", "released"),
            ("ddp-worker-3", "unschedulable")
        ]
    );
    // A native gang that reaches its quorum, as text.
    let o = run(&[
        "explain",
        "--demo",
        "ml/sweep-1",
        "--scheduler-version",
        "1.36",
        "--feature-gates",
        "GenericWorkload=true,GangScheduling=true",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    let section = text.split("Gang as a whole (GangScheduling;").nth(1).expect(&text);
    let lines: Vec<&str> = section.lines().skip(1).take(3).map(str::trim).collect();
    assert_eq!(
        lines[0],
        "the group completes: 2 of minMember 2 placed, Permit allows them all"
    );
    assert!(lines[1].starts_with("ml/sweep-0  binds to pool-general-"), "{section}");
    assert!(lines[2].starts_with("ml/sweep-1  binds to pool-general-"), "{section}");
}

#[test]
fn topology_aware_workload_scheduling_shows_the_placements_of_the_group() {
    let o = run(&[
        "explain",
        "--demo",
        "ml/sweep-0",
        "--scheduler-version",
        "1.36",
        "--feature-gates",
        "GenericWorkload=true,GangScheduling=true,TopologyAwareWorkloadScheduling=true",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("Note: TopologyAwareWorkloadScheduling is on: this pod is explained against every node"),
        "{text}"
    );
    // The demo's PodGroup has no topology constraint: one placement of every node.
    assert!(
        text.contains("  Placements (TopologyPlacementGenerator; the PodGroup has no topology constraint: one placement of every node):\n    (every node) (14 node(s)): the group fits  ← chosen"),
        "{text}"
    );
    assert!(!text.contains("not reproduced"), "{text}");
    let o = run(&[
        "explain",
        "--demo",
        "ml/sweep-0",
        "--scheduler-version",
        "1.36",
        "--feature-gates",
        "GenericWorkload=true,GangScheduling=true",
    ]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("not reproduced"));
}

#[test]
fn demo_works_before_or_after_every_command_that_reads_a_cluster() {
    for args in [
        &["--demo", "explain", "ml/train-3gpu"][..],
        &["explain", "ml/train-3gpu", "--demo"][..],
        &["--demo", "queue"][..],
        &["queue", "--demo"][..],
        &["--demo", "simulate", "--max-passes", "1"][..],
        &["simulate", "--demo", "--max-passes", "1"][..],
        &["--demo", "bind", "ml/sweep-0", "--yes"][..],
        &["bind", "--demo", "ml/sweep-0", "--yes"][..],
    ] {
        let o = run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(
            !stderr(&o).contains("kubeconfig"),
            "{args:?} tried a live cluster: {}",
            stderr(&o)
        );
    }
    for (args, want) in [
        (
            &["snapshot", "--demo", "-o", "x.yaml"][..],
            "error: --demo does not apply to `snapshot`, which reads the live cluster of the kubeconfig",
        ),
        (
            &["-n", "ml", "explain", "--demo", "sweep-0"][..],
            "error: -n/--namespace before the command configures the terminal UI; for `explain` put it after the command name (kschedtui explain -n/--namespace ...)",
        ),
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&o).trim_end(), want, "{args:?}");
    }
}

#[test]
fn the_release_recorded_in_a_snapshot_is_the_default_everywhere() {
    let dir_guard = temp_dir("recorded");
    let dir = dir_guard.path();
    let path = dir.join("rec.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: List\nkschedtuiSnapshot: {kubernetesVersion: v1.31.4}\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: '2', memory: 2Gi, pods: '10'}}}\n- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default}, spec: {containers: [{name: c, image: i}]}}\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let out = |args: &[&str]| {
        let o = run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    assert!(out(&["explain", "--snapshot", p, "default/p"]).contains("scheduler 1.31.4"));
    assert!(out(&["simulate", "--snapshot", p]).contains("scheduler 1.31.4"));
    assert!(out(&["--snapshot", p, "simulate"]).contains("scheduler 1.31.4"));
    let q = out(&["queue", "--snapshot", p, "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&q).unwrap();
    assert_eq!(v["schedulerVersion"], "1.31.4", "{q}");
    // As `snapshot -o x.json` writes it: the record after the items, read in the same pass as
    // the objects; a second record wins, as it does in YAML.
    let json = dir.join("rec.json");
    std::fs::write(
        &json,
        r#"{"apiVersion":"v1","kind":"List","kschedtuiSnapshot":{"kubernetesVersion":"v1.30.2"},"items":[
 {"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"2","memory":"2Gi","pods":"10"}}},
 {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},"spec":{"containers":[{"name":"c","image":"i"}]}}],
 "metadata":{},"kschedtuiSnapshot":{"kubernetesVersion":"v1.33.1"}}"#,
    )
    .unwrap();
    let j = json.to_str().unwrap();
    assert!(out(&["explain", "--snapshot", j, "default/p"]).contains("scheduler 1.33.1"));
    assert!(out(&["simulate", "--snapshot", j]).contains("scheduler 1.33.1"));
    // A pipe (`--snapshot <(kubectl ...)`) is read once: the objects and the record both.
    for file in [&path, &json] {
        for args in [
            &["explain", "--snapshot", "/dev/stdin", "default/p"][..],
            &["simulate", "--snapshot", "/dev/stdin"],
        ] {
            let mut child = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
                .args(args)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let text = std::fs::read(file).unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &text));
            let o = child.wait_with_output().unwrap();
            writer.join().unwrap().unwrap();
            assert!(o.status.success(), "{args:?} < {}: {}", file.display(), stderr(&o));
            let want = if file == &path {
                "scheduler 1.31.4"
            } else {
                "scheduler 1.33.1"
            };
            assert!(
                String::from_utf8_lossy(&o.stdout).contains(want),
                "{args:?} < {}",
                file.display()
            );
        }
    }
}

#[test]
fn bind_to_a_node_that_fails_filter_warns_and_needs_force() {
    let o = run(&["bind", "--demo", "shop/payments-api", "--node", "pool-general-a1", "-y"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("warning: the scheduler would not choose pool-general-a1: NodeResourcesFit: Insufficient cpu\n"),
        "{e}"
    );
    assert!(
        e.ends_with("error: refusing to bind shop/payments-api to pool-general-a1, which fails Filter: the kubelet would likely reject the pod; pass --force to bind it anyway\n"),
        "{e}"
    );
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("ok (201)"),
        "nothing is sent"
    );
    let o = run(&[
        "bind",
        "--demo",
        "shop/payments-api",
        "--node",
        "pool-general-a1",
        "-y",
        "--force",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("bind shop/payments-api to node 'pool-general-a1': ok (201)"));
    let o = run(&["bind", "--demo", "shop/payments-api", "--node", "nope", "-y"]);
    assert_eq!(
        stderr(&o).lines().last(),
        Some("error: node 'nope' is not in the cluster")
    );
    // --force binds alone what --gang would bind as a group: not both.
    let o = run(&["bind", "--demo", "ml/ddp-worker-0", "-y", "--force", "--gang"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn an_input_with_no_objects_is_an_error_and_skipped_files_are_named() {
    let dir_guard = temp_dir("empty");
    let dir = dir_guard.path();
    for d in ["none", "other", "mixed/sub"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    std::fs::write(dir.join("empty.yaml"), "").unwrap();
    std::fs::write(dir.join("comment.yaml"), "# nothing\n").unwrap();
    std::fs::write(dir.join("other/README.md"), "x").unwrap();
    std::fs::write(dir.join("mixed/notes.txt"), "x").unwrap();
    std::fs::write(dir.join("mixed/sched.config.yaml"), "x").unwrap();
    std::fs::write(
        dir.join("mixed/c.yaml"),
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '2', memory: 2Gi, pods: '10'}}\n",
    )
    .unwrap();
    let tail = ": there is nothing to explain (a snapshot needs at least one object, e.g. a Node and a Pod)";
    for (input, what) in [
        ("empty.yaml", "the file is empty"),
        ("comment.yaml", "the file holds no object"),
        ("none", "the directory is empty"),
        (
            "other",
            "the directory has no .yaml, .yml or .json file (skipped: README.md (not .yaml, .yml or .json))",
        ),
    ] {
        let p = dir.join(input);
        let o = run(&["explain", "--snapshot", p.to_str().unwrap(), "--all-pending"]);
        assert_eq!(o.status.code(), Some(1), "{input}");
        assert_eq!(
            stderr(&o).trim_end(),
            format!("error: {}: {what}{tail}", p.display()),
            "{input}"
        );
    }
    let p = dir.join("mixed");
    let o = run(&["explain", "--snapshot", p.to_str().unwrap(), "--all-pending"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stderr(&o).trim_end(),
        format!(
            "warning: {}: read 1 file(s) (c.yaml); skipped 3: notes.txt (not .yaml, .yml or .json), sched.config.yaml (a scheduler config: pass it with --config), sub/ (a directory: not read recursively)",
            p.display()
        )
    );
}

/// The pods a text report explains ("Pod NS/NAME" lines).
fn pods_of(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("Pod "))
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn all_namespaces_is_accepted_wherever_a_namespace_is() {
    let snap = "fixtures/tui-test.yaml";
    let all = run(&["explain", "--snapshot", snap, "--all-pending"]);
    assert_eq!(all.status.code(), Some(0), "{}", stderr(&all));
    let pods = pods_of(&all);
    assert_eq!(
        pods,
        ["default/web-2", "data/etl-1", "default/batch-1", "default/gated-1"]
    );
    // -A alone is --all-pending over every namespace; --all-namespaces is the same
    for args in [
        vec!["-A"],
        vec!["--all-namespaces", "--all-pending"],
        vec!["-A", "--all-pending"],
    ] {
        let mut a = vec!["explain", "--snapshot", snap];
        a.extend(args.iter().copied());
        let o = run(&a);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_eq!(o.stdout, all.stdout, "{args:?}");
    }
    // -n with --all-pending: that namespace's pending pods only
    let o = run(&["explain", "--snapshot", snap, "--all-pending", "-n", "data"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(pods_of(&o), ["data/etl-1"]);
    // a pod named with -A needs its namespace
    let o = run(&["explain", "--snapshot", snap, "-A", "data/etl-1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(pods_of(&o), ["data/etl-1"]);
    let o = run(&["explain", "--snapshot", snap, "-A", "etl-1"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "error: pod 'etl-1' has no namespace and -A (--all-namespaces) gives none: name it NAMESPACE/etl-1, or pass -n NAMESPACE instead of -A\n"
    );
    // bind and preempt (rehearsed on the snapshot) take it as well
    for (cmd, pod) in [("bind", "web-2"), ("preempt", "batch-1")] {
        let o = run(&[cmd, "--snapshot", snap, "-A", pod, "--yes"]);
        assert_eq!(o.status.code(), Some(1), "{cmd}");
        assert_eq!(
            stderr(&o),
            format!(
                "error: pod '{pod}' has no namespace and -A (--all-namespaces) gives none: name it NAMESPACE/{pod}, or pass -n NAMESPACE instead of -A\n"
            ),
            "{cmd}"
        );
    }
    let o = run(&["bind", "--snapshot", snap, "-A", "default/web-2", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("The engine selects node"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    // -A and -n together are refused by the parser, for explain and the TUI
    for a in [
        vec!["explain", "--snapshot", snap, "-A", "-n", "data"],
        vec!["-A", "-n", "data", "--demo"],
    ] {
        let o = run(&a);
        assert_eq!(o.status.code(), Some(2), "{a:?}");
        assert!(stderr(&o).contains("cannot be used with"), "{a:?}: {}", stderr(&o));
    }
    // the TUI takes -A (it is checked past the parser: the bad version fails next)
    let o = run(&["-A", "--demo", "--scheduler-version", "1.29"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("1.29"), "{}", stderr(&o));
    // before a command it is a TUI flag, refused as the others are
    let o = run(&["-A", "explain", "--snapshot", snap, "--all-pending"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "error: -A before the command configures the terminal UI; for `explain` put it after the command name (kschedtui explain -A ...)\n"
    );
}

#[test]
fn completions_for_every_shell_and_the_binary_works_as_a_kubectl_plugin() {
    for (shell, marker) in [
        ("bash", "_kschedtui()"),
        ("zsh", "#compdef kschedtui"),
        ("fish", "complete -c kschedtui"),
    ] {
        let o = run(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains(marker), "{shell}");
        assert!(
            text.contains("explain") && text.contains("scheduler-version"),
            "{shell}"
        );
    }
    // kubectl runs `kubectl-kschedtui ARGS` for `kubectl kschedtui ARGS`.
    let dir_guard = temp_dir("plugin");
    let dir = dir_guard.path();
    let plugin = dir.join("kubectl-kschedtui");
    let _ = std::fs::remove_file(&plugin);
    std::fs::copy(env!("CARGO_BIN_EXE_kschedtui"), &plugin).unwrap();
    // A test thread that forks while the copy is still open for writing makes exec fail with
    // ETXTBSY ("Text file busy") until that child has exec'd: try again briefly.
    let o = (0..100)
        .find_map(|_| {
            match std::process::Command::new(&plugin)
                .args(["explain", "--demo", "ml/train-3gpu"])
                .output()
            {
                Err(e) if e.raw_os_error() == Some(26) => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    None
                }
                r => Some(r.unwrap()),
            }
        })
        .expect("the copied binary stays busy");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("Pod ml/train-3gpu"));
}

#[test]
fn queue_takes_a_namespace_or_all_of_them() {
    let names = |args: &[&str]| -> Vec<String> {
        let o = run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
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
    let all = names(&["queue", "--demo", "-o", "json"]);
    assert_eq!(all, names(&["queue", "--demo", "-A", "-o", "json"]));
    let ml = names(&["queue", "--demo", "-n", "ml", "-o", "json"]);
    assert!(!ml.is_empty() && ml.iter().all(|p| p.starts_with("ml/")), "{ml:?}");
    assert_eq!(
        ml,
        all.iter().filter(|p| p.starts_with("ml/")).cloned().collect::<Vec<_>>()
    );
    let o = run(&["queue", "--demo", "-n", "ml", "-A"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn simulate_n_attempts_only_that_namespaces_pods_in_the_whole_cluster() {
    let o = run(&["simulate", "--demo", "-n", "shop", "-o", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let attempted: std::collections::BTreeSet<&str> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "Attempt")
        .map(|e| e["pod"]["namespace"].as_str().unwrap())
        .collect();
    assert_eq!(attempted, ["shop"].into());
    let pods = v["pods"].as_array().unwrap();
    assert_eq!(pods.len(), 10);
    assert!(pods.iter().all(|p| p["pod"]["namespace"] == "shop"));
    // a preemption for a shop pod still evicts a batch pod: the cluster is the whole cluster
    assert_eq!(v["evicted"][0]["namespace"], "batch");
    let o = run(&["simulate", "--demo", "-n", "nope"]);
    assert_eq!(
        stderr(&o).trim(),
        "error: namespace 'nope' has no pods in this cluster (and no Namespace object)"
    );
    let o = run(&["simulate", "--demo", "-n", "shop", "-A"]);
    assert!(!o.status.success());
}

/// fixtures/gang-preemption.yaml: the 1.36 gang preempts the `batch` PodGroup as a unit and
/// keeps `web` (workload-aware preemption), in the text report and in `groupCycle.preemption`.
#[test]
fn explain_a_gang_that_preempts_as_a_whole() {
    let args = [
        "explain",
        "--snapshot",
        "fixtures/gang-preemption.yaml",
        "ml/t0",
        "--scheduler-version",
        "1.36",
        "--feature-gates",
        "GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true",
    ];
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("Workload-aware preemption by PodGroup ml/train (priority 1000):"),
        "{text}"
    );
    assert!(
        text.contains("PodGroup ml/batch as a unit: ml/b0, ml/b1 (priority 10)"),
        "{text}"
    );
    assert!(
        text.contains("preemption: not eligible due to workload aware preemption enabled"),
        "{text}"
    );
    assert!(
        text.contains("the PodGroup's condition: Unschedulable \"pod group is unschedulable\""),
        "{text}"
    );
    let mut json_args = args.to_vec();
    json_args.extend(["-o", "json"]);
    let o = run(&json_args);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let p = &v["groupCycle"]["preemption"];
    assert_eq!(p["code"], "Success");
    assert_eq!(p["victims"].as_array().map(Vec::len), Some(1));
    assert_eq!(p["victims"][0]["podGroup"]["name"], "batch");
    assert_eq!(
        p["events"][0],
        "ml/b0: Preempted by podgroup 6f1c0a52-train on node cluster"
    );
    assert_eq!(p["condition"], "pod group is unschedulable");
    // No member found a node in the cycle: none is nominated (the key is left out).
    assert!(p.get("nominated").is_none());
    assert!(p.get("conditionKept").is_none());
}

#[test]
fn a_reader_that_goes_away_ends_explain_quietly_in_every_format() {
    use std::io::Read;
    // The demo's pending pods explained: 120 KB of text, 430 KB of JSON, more than a pipe
    // holds, so the writer is still writing when the reader closes its end (`| head -c 100`).
    for format in ["text", "json", "yaml"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
            .args(["explain", "--demo", "--all-pending", "-o", format])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut head = [0u8; 100];
        let mut stdout = child.stdout.take().unwrap();
        stdout.read_exact(&mut head).unwrap();
        drop(stdout);
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{format}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{format}");
        let start = String::from_utf8_lossy(&head).to_string();
        let want = match format {
            "text" => "Pod ",
            "json" => "[\n  {\n    \"apiVersion\": \"kschedtui/v1\"",
            _ => "- apiVersion: kschedtui/v1\n",
        };
        assert!(start.starts_with(want), "{format}: {start}");
    }
}

#[test]
fn simulate_reports_the_same_whether_or_not_it_keeps_the_documents_to_write_them_back() {
    let dir_guard = temp_dir("simulate-paths");
    let dir = dir_guard.path();
    let list = dir.join("g.json");
    let o = run(&[
        "generate",
        "--nodes",
        "12",
        "--pods",
        "150",
        "--pending",
        "20",
        "--failing",
        "12",
        "--output",
        list.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let l = list.to_str().unwrap();
    let after = dir.join("after.json");
    for format in ["text", "json"] {
        // Without --write a JSON List is read on the fast path; with it, every document is kept.
        let plain = run(&["simulate", "--snapshot", l, "-o", format]);
        let kept = run(&[
            "simulate",
            "--snapshot",
            l,
            "-o",
            format,
            "--write",
            after.to_str().unwrap(),
        ]);
        assert!(
            plain.status.success() && kept.status.success(),
            "{}{}",
            stderr(&plain),
            stderr(&kept)
        );
        assert_eq!(
            String::from_utf8_lossy(&plain.stdout),
            String::from_utf8_lossy(&kept.stdout),
            "{format}"
        );
        assert!(
            String::from_utf8_lossy(&plain.stdout).contains("bench/fit-000019"),
            "{format}"
        );
    }
}

/// True for what must never reach a terminal from a text report: a C0 control other than the
/// newline, DEL, a C1 control.
fn hostile(c: char) -> bool {
    (c < ' ' && c != '\n') || ('\u{7f}'..='\u{9f}').contains(&c)
}

#[test]
fn text_reports_show_the_clusters_control_characters_escaped() {
    let f = "tests/integration/data/hostile-strings.yaml";
    let runs: [&[&str]; 5] = [
        &["explain", "--snapshot", f, "--all-pending"],
        &["explain", "--snapshot", f, "-A"],
        &["queue", "--snapshot", f],
        &["simulate", "--snapshot", f],
        &[
            "deschedule",
            "--snapshot",
            f,
            "--policy",
            "fixtures/deschedule/pod-lifetime-policy.yaml",
            "--now",
            "2026-12-01T12:00:00Z",
        ],
    ];
    let pod = r"default/web\x1b]52;c;aGk=\x07\x1b[2J\u{9b}31m\x0dx\x7f";
    let mut texts = Vec::new();
    for args in runs {
        let o = run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let out = String::from_utf8(o.stdout).unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(
            !out.chars().any(hostile),
            "{args:?} printed a control character: {out:?}"
        );
        assert!(
            !err.chars().any(hostile),
            "{args:?} printed a control character on stderr: {err:?}"
        );
        texts.push(out);
    }
    let explain = &texts[0];
    let lines: Vec<&str> = explain.lines().collect();
    assert_eq!(
        lines[0],
        format!("Pod {pod}  (profile default-scheduler, scheduler 1.37.0, 2 nodes)")
    );
    let cluster: Vec<&str> = lines.iter().copied().filter(|l| l.starts_with("Cluster: ")).collect();
    assert_eq!(
        cluster,
        [
            r"Cluster: PodScheduled=False (Unschedulable): 0/2 nodes are available: \x1b]52;c;ZXZpbA==\x072 Insufficient cpu.\x1b[2J\u{9b}0m",
            r"Cluster: FailedScheduling (x3, last 2024-05-01T10:00:05Z, default-scheduler\x1b[2J\u{9b}1;1H): 0/2 nodes are available: 2 Insufficient cpu.\x1b]52;c;c3VkbyBybQ==\x07\x1b[2J\u{9b}?1049h",
        ]
    );
    assert!(
        explain.contains(r"Note: the newest FailedScheduling event was reported by 'default-scheduler\x1b[2J\u{9b}1;1H', not by the pod's scheduler 'default-scheduler'"),
        "{explain}"
    );
    assert_eq!(&texts[1], explain, "-A is --all-pending");
    assert!(
        texts[2].contains(&format!("\n{pod} (unschedulable):\n")),
        "{}",
        texts[2]
    );
    assert!(
        texts[3].contains(&format!(
            "\n  [pass 1, t=0s] {pod} (default-scheduler): unschedulable: "
        )),
        "{}",
        texts[3]
    );
    assert!(
        texts[4].contains(r"  Protected  batch/old\x1b]52;c;cm0gLXJmIH4=\x07job\u{9b}2J on n1: age "),
        "{}",
        texts[4]
    );
    // JSON and YAML keep the strings as they are, in their own escapes (serde_json writes DEL
    // and the C1 controls raw: `\u007f`, `\u009b`)
    for format in ["json", "yaml"] {
        let o = run(&["explain", "--snapshot", f, "--all-pending", "-o", format]);
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(!out.chars().any(hostile), "{format}: {out:?}");
        let v: serde_json::Value = serde_yaml::from_str(&out).unwrap();
        assert_eq!(
            v[0]["pod"]["name"], "web\u{1b}]52;c;aGk=\u{7}\u{1b}[2J\u{9b}31m\rx\u{7f}",
            "{format}"
        );
    }
    assert!(
        String::from_utf8(run(&["explain", "--snapshot", f, "--all-pending", "-o", "json"]).stdout)
            .unwrap()
            .contains(r#""name": "web\u001b]52;c;aGk=\u0007\u001b[2J\u009b31m\rx\u007f""#)
    );
    let o = run(&["simulate", "--snapshot", f, "-o", "json"]);
    assert!(!String::from_utf8(o.stdout).unwrap().chars().any(hostile));
}

#[test]
fn the_filter_table_is_aligned_whatever_the_node_names_lengths() {
    // node names of different lengths: every row's VERDICT and PLUGIN start in the same column
    let dir = temp_dir("align");
    let f = dir.path().join("c.yaml");
    std::fs::write(
        &f,
        r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a}, status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: a-much-longer-node-name}, spec: {taints: [{key: k, value: v, effect: NoSchedule}]}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: mid-size-node}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: default}
  spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]}
"#,
    )
    .unwrap();
    let o = run(&["explain", "--snapshot", f.to_str().unwrap(), "default/p"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("NODE "))
        .take(4)
        .collect();
    assert_eq!(rows.len(), 4, "{out}");
    let col = |l: &str, word: &str| l.find(word).unwrap_or_else(|| panic!("{word} in {l:?}\n{out}"));
    let verdict = col(rows[0], "VERDICT");
    for r in &rows[1..] {
        let v = ["no fit", "fit"].iter().filter_map(|w| r.find(w)).min().unwrap();
        assert_eq!(v, verdict, "{out}");
    }
}

/// `outcome` on every explanation: one word per pending pod of the demo, each of the kinds the
/// demo has (newest release).
#[test]
fn every_explanation_says_its_outcome() {
    let o = run(&["explain", "--demo", "--all-pending", "-o", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let outcome = |pod: &str| {
        v.as_array()
            .unwrap()
            .iter()
            .find(|e| {
                format!(
                    "{}/{}",
                    e["pod"]["namespace"].as_str().unwrap(),
                    e["pod"]["name"].as_str().unwrap()
                ) == pod
            })
            .map(|e| e["outcome"].as_str().unwrap().to_string())
            .unwrap_or_else(|| panic!("{pod} not explained"))
    };
    for (pod, want) in [
        ("shop/search-indexer", "Schedulable"),
        ("batch/report-huge", "Unschedulable"),
        ("shop/payments-api", "PreemptionNominates"),
        ("ml/ddp-worker-0", "WaitingAtPermit"),
        ("shop/checkout-canary", "HeldBeforeQueue"),
        ("ml/eval-batch", "HeldBeforeQueue"),
        ("batch/spark-driver", "OtherScheduler"),
    ] {
        assert_eq!(outcome(pod), want, "{pod}");
    }
    // right after `pod`, on every explanation
    for e in v.as_array().unwrap() {
        let keys: Vec<&String> = e.as_object().unwrap().keys().take(4).collect();
        assert_eq!(keys, ["apiVersion", "kind", "pod", "outcome"]);
    }
}

/// `--exit-status`: 0 when every explained pod is schedulable, 3 when one is not; errors and
/// usage errors keep 1 and 2; without the flag a verdict is never an exit code.
#[test]
fn explain_exit_status_gates_on_schedulability() {
    let code = |args: &[&str]| run(args).status.code();
    assert_eq!(
        code(&["explain", "--demo", "shop/search-indexer", "--exit-status"]),
        Some(0)
    );
    assert_eq!(
        code(&["explain", "--demo", "batch/report-huge", "--exit-status"]),
        Some(3)
    );
    assert_eq!(
        code(&["explain", "--demo", "ml/ddp-worker-0", "--exit-status", "-o", "json"]),
        Some(3)
    );
    assert_eq!(code(&["explain", "--demo", "--all-pending", "--exit-status"]), Some(3));
    assert_eq!(
        code(&["explain", "--demo", "-n", "ml", "--all-pending", "--exit-status"]),
        Some(3)
    );
    assert_eq!(code(&["explain", "--demo", "batch/report-huge"]), Some(0));
    assert_eq!(
        code(&["explain", "--demo", "shop/no-such-pod", "--exit-status"]),
        Some(1)
    );
    assert_eq!(
        code(&["explain", "--demo", "batch/report-huge", "--exit-status=yes"]),
        Some(2)
    );
    // the report is written either way
    let o = run(&["explain", "--demo", "batch/report-huge", "--exit-status", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["outcome"], "Unschedulable");
}

/// The fix hints in explain's JSON: each change with its command and the engine's answer after
/// it; none for a schedulable pod; `--no-fixes` leaves the key out.
#[test]
fn explain_json_carries_the_checked_fix_hints() {
    let json = |args: &[&str]| -> serde_json::Value {
        let o = run(args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let v = json(&["explain", "--demo", "batch/report-huge", "-o", "json"]);
    assert_eq!(
        v["fixes"][2],
        serde_json::json!({
            "reason": "node(s) had untolerated taint(s)",
            "kind": "Tolerate",
            "change": "tolerate dra=present:NoSchedule (pool-dra-a1, pool-dra-b1)",
            "command": r#"kubectl patch pod report-huge -n batch --type=json -p '[{"op":"add","path":"/spec/tolerations","value":[{"key":"dra","operator":"Equal","value":"present","effect":"NoSchedule"}]}]'"#,
            "note": "tolerations can only be added to an existing pod; add them to its template too",
            "after": {"result": "Binds", "nodes": ["pool-dra-b1"]}
        })
    );
    let kinds = |v: &serde_json::Value| -> Vec<String> {
        v["fixes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap().to_string())
            .collect()
    };
    // the smallest change first: the taint that keeps pods off the DRA pool is the last resort
    assert_eq!(kinds(&v), ["LowerRequests", "BiggerNode", "Tolerate"]);
    assert_eq!(v["fixes"][0]["command"], serde_json::Value::Null);
    // preemption already places the pod: the first entry says so, checked like the others
    let v = json(&["explain", "--demo", "shop/payments-api", "-o", "json"]);
    assert_eq!(
        kinds(&v),
        [
            "Preempt",
            "LowerRequests",
            "Uncordon",
            "FreshNode",
            "BiggerNode",
            "Tolerate"
        ]
    );
    assert_eq!(
        v["fixes"][0]["change"],
        "the pod will fit by preempting 1 victim on pool-general-a3 (batch/etl-nightly-0)"
    );
    assert_eq!(
        v["fixes"][0]["after"],
        serde_json::json!({"result": "Binds", "nodes": ["pool-general-a3"]})
    );
    // a pod with no fix found: the key says so with []
    let v = json(&["explain", "--demo", "shop/orders-db-0", "-o", "json"]);
    assert_eq!(v["fixes"], serde_json::json!([]));
    // schedulable: no key
    let v = json(&["explain", "--demo", "shop/search-indexer", "-o", "json"]);
    assert!(v.get("fixes").is_none(), "{v}");
    // --no-fixes: no key, and no "To fix" in the text
    let v = json(&["explain", "--demo", "batch/report-huge", "-o", "json", "--no-fixes"]);
    assert!(v.get("fixes").is_none());
    let o = run(&["explain", "--demo", "batch/report-huge", "--no-fixes"]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("To fix"));
    let o = run(&["explain", "--demo", "batch/report-huge"]);
    let text = String::from_utf8_lossy(&o.stdout);
    let fix = text.find("To fix (each change made on a copy").expect("the fix block");
    let cluster = text.find("Cluster: PodScheduled=False").expect("the cluster lines");
    assert!(fix < cluster, "the fixes come before the Cluster lines");
}

/// A pod held before the queue never gets a PodScheduled condition or an event from the
/// scheduler: its verdict says who holds it and why, and no `Message:` line pretends upstream
/// wrote one (the scheduling gates' message is the API server's condition, so it stays). The
/// JSON lists the PreEnqueue plugins up to the one that rejects: the queue runs none after it.
#[test]
fn a_pod_held_before_the_queue_has_no_message_and_no_plugin_after_the_rejection() {
    let o = run(&["explain", "--demo", "ml/eval-batch"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "Pod ml/eval-batch  (profile default-scheduler, scheduler 1.37.0, 14 nodes)\n\
         Verdict: Held before the queue by DynamicResources: could not find ResourceClaim \"ml/eval-gpu\"\n\
         To fix (each change made on a copy and checked by running the engine again):\n  \
         create ResourceClaim ml/eval-gpu (the pod's claim gpu names it) → not checked: its device requests are yours to say\n    \
         for: could not find ResourceClaim \"ml/eval-gpu\"\n    \
         note: its device requests are yours to say: a ResourceClaim named eval-gpu in namespace ml (kubectl create -f), or a resourceClaimTemplateName on the pod's claim gpu instead\n"
    );
    let o = run(&["explain", "--demo", "shop/checkout-canary"]);
    let text = String::from_utf8_lossy(&o.stdout);
    let head: Vec<&str> = text.lines().take(3).collect();
    assert_eq!(
        head,
        [
            "Pod shop/checkout-canary  (profile default-scheduler, scheduler 1.37.0, 14 nodes)",
            "Verdict: Held before the queue by SchedulingGates: waiting for scheduling gates: [acme.io/canary-approval]",
            "Message: Scheduling is blocked due to non-empty scheduling gates",
        ]
    );
    for (pod, statuses) in [
        (
            "ml/eval-batch",
            serde_json::json!([
                {"plugin": "SchedulingGates", "code": "Success"},
                {"plugin": "DynamicResources", "code": "UnschedulableAndUnresolvable",
                 "reasons": ["could not find ResourceClaim \"ml/eval-gpu\""]},
            ]),
        ),
        // DynamicResources, after SchedulingGates in the profile, never runs for a gated pod
        (
            "shop/checkout-canary",
            serde_json::json!([
                {"plugin": "SchedulingGates", "code": "UnschedulableAndUnresolvable",
                 "reasons": ["waiting for scheduling gates: [acme.io/canary-approval]"]},
            ]),
        ),
    ] {
        let o = run(&["explain", "--demo", pod, "-o", "json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let got: Vec<serde_json::Value> = v["preEnqueue"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let mut s = s.clone();
                s.as_object_mut()
                    .unwrap()
                    .retain(|k, _| ["plugin", "code", "reasons"].contains(&k.as_str()));
                s
            })
            .collect();
        assert_eq!(serde_json::Value::Array(got), statuses, "{pod}");
        assert_eq!(v["outcome"], "HeldBeforeQueue", "{pod}");
    }
}

/// A gang's member says the group's story right under its own verdict, in the same words as
/// the TUI's list, pod view and gang screen.
#[test]
fn a_gang_member_says_the_groups_story_under_its_verdict() {
    let o = run(&["explain", "--demo", "ml/ddp-worker-0"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let head: Vec<&str> = text.lines().take(3).collect();
    assert_eq!(
        head,
        [
            "Pod ml/ddp-worker-0  (profile scheduler-plugins-scheduler, scheduler 1.37.0, 14 nodes)",
            "Verdict: Waiting at Permit on pool-gpu-a1: one or more plugins asked to wait and no plugin rejected pod \"ddp-worker-0\"",
            "Gang: gang ml/ddp-job: 3/4 fit, blocked by ml/ddp-worker-3",
        ]
    );
}

/// A pod whose PodScheduled condition carries the message 1.30 and 1.31 write (they count no
/// status for a node PreFilter left out): explain at 1.36 names the releases that write it,
/// in the text and in the JSON's `cluster.reproducedBy`; the same pod with 1.36's own
/// message tries nothing.
#[test]
fn a_differing_recorded_message_names_the_releases_that_write_it() {
    let dir = temp_dir("reproduce");
    let preempt = "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.";
    let fixture = "fixtures/recorded-message.yaml";
    let text = std::fs::read_to_string(fixture).expect("fixture");
    let at_1_30 = format!("0/2 nodes are available: 1 Insufficient cpu. {preempt}");
    assert!(text.contains(&at_1_30));
    let write = |message: &str| {
        let path = dir.path().join("recorded.yaml");
        std::fs::write(&path, text.replace(&at_1_30, message)).expect("write");
        path
    };
    let old = fixture;
    let o = run(&[
        "explain",
        "--snapshot",
        old,
        "a/p",
        "--scheduler-version",
        "1.36",
        "--no-fixes",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(
            "Note: the cluster's message is what 1.31 (default-scheduler), 1.30 (default-scheduler) writes: the cluster's scheduler may run one of those releases\n"
        ),
        "{text}"
    );
    let o = run(&[
        "explain",
        "--snapshot",
        old,
        "a/p",
        "--scheduler-version",
        "1.36",
        "-o",
        "json",
        "--no-fixes",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let rep = &v["cluster"]["reproducedBy"];
    let versions: Vec<&str> = rep["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .map(|c| c["schedulerVersion"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(versions.len(), 2, "{rep}");
    assert!(
        versions[0].starts_with("1.31.") && versions[1].starts_with("1.30."),
        "{rep}"
    );
    assert_eq!(rep["profilesTried"], serde_json::json!(["scheduler-plugins-scheduler"]));
    assert!(
        rep["releasesTried"][0]
            .as_str()
            .unwrap_or_default()
            .starts_with("1.36.")
    );
    // 1.36's own wording: agrees, nothing tried
    let own = write(&format!(
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't satisfy plugin(s) [NodeAffinity]. no new claims to deallocate, {preempt}"
    ));
    let o = run(&[
        "explain",
        "--snapshot",
        own.to_str().expect("utf-8"),
        "a/p",
        "--scheduler-version",
        "1.36",
        "-o",
        "json",
        "--no-fixes",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["cluster"]["agrees"], serde_json::json!(true));
    assert!(v["cluster"].get("reproducedBy").is_none());
}

/// `explain --start-node`: on 150 generated nodes every one fits; upstream stops after 100
/// feasible nodes, and from index 20 the JSON names what it found and where the next cycle
/// starts; without it the note says sampling applies.
#[test]
fn explain_start_node_reproduces_the_sampled_search() {
    let dir = temp_dir("sampling");
    let path = crate::scratch::uniform_nodes_snapshot(dir.path(), 150);
    let path = path.to_str().expect("utf-8");
    let o = run(&["explain", "--snapshot", path, "a/p", "--start-node", "20", "-o", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let s = &v["sampling"];
    assert_eq!(s["nodesToFind"], 100);
    assert_eq!(s["startNodeIndex"], 20);
    assert_eq!(s["processedNodes"], 100);
    assert_eq!(s["nextStartNodeIndex"], 120);
    assert_eq!(s["found"][0], "n020");
    assert_eq!(s["found"][99], "n119");
    assert_eq!(v["score"].as_array().map(Vec::len), Some(100));
    let o = run(&["explain", "--snapshot", path, "a/p"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("kube-scheduler stops filtering after 100 feasible nodes (adaptive percentageOfNodesToScore: 49 % of 150 nodes)"),
        "{text}"
    );
}
