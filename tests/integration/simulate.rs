//! Queue simulation and gang scheduling on the bundled fixtures: the seeds' gang example
//! (fixtures/gang.yaml), a small queue (fixtures/queue.yaml), the demo cluster, and the
//! `simulate --write` round trip.

use crate::scratch::temp_dir;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use kschedtui::engine::simulate::{AttemptOutcome, EventKind, FinalState, SimOptions, SimReport, simulate};
use kschedtui::engine::trace::BindingOutcome;
use kschedtui::engine::{self, Release, Snapshot};
use kschedtui::model::{Cluster, ObjectKey, Pod};
use kschedtui::source::{file, save};

fn load(path: &str) -> Cluster {
    file::load_path_keeping_documents(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

fn run(cluster: Cluster) -> SimReport {
    let v = Release::NEWEST;
    let profiles = engine::build_profiles(None, v).unwrap();
    simulate(cluster, &profiles, v, SimOptions::default())
}

fn k(ns: &str, name: &str) -> ObjectKey {
    ObjectKey::new(ns, name)
}

fn workers() -> Vec<ObjectKey> {
    (0..4).map(|i| k("ml", &format!("worker-{i}"))).collect()
}

fn final_state<'a>(r: &'a SimReport, key: &ObjectKey) -> &'a FinalState {
    &r.pods.iter().find(|(k, _)| k == key).unwrap().1
}

fn gpus_requested(r: &SimReport, node: &str) -> i64 {
    r.snapshot
        .node(node)
        .unwrap()
        .requested
        .scalar
        .get("nvidia.com/gpu")
        .copied()
        .unwrap_or(0)
}

/// Replaces a pod's object (and its model) in the cluster.
fn edit_pod(c: &mut Cluster, key: &ObjectKey, f: impl FnOnce(&mut k8s_openapi::api::core::v1::Pod)) {
    let i = c.pods.iter().position(|p| &p.key == key).unwrap();
    let mut obj = c.pods[i].obj.clone();
    f(&mut obj);
    let prio = c.pods[i].priority;
    c.pods[i] = Arc::new(Pod::from_obj(obj.into_box(), |_| prio).unwrap());
}

#[test]
fn gang_of_four_with_three_free_gpu_nodes_binds_none_and_holds_no_gpu() {
    let r = run(load("fixtures/gang.yaml"));
    assert!(r.converged);
    for w in workers() {
        assert!(
            matches!(final_state(&r, &w), FinalState::Pending { .. }),
            "{w}: {:?}",
            final_state(&r, &w)
        );
        assert!(r.snapshot.cluster.pod(&w).unwrap().node_name.is_none(), "{w}");
    }
    for n in ["gpu-1", "gpu-2", "gpu-3"] {
        assert_eq!(gpus_requested(&r, n), 0, "{n} holds no GPU");
    }
    assert_eq!(gpus_requested(&r, "gpu-4"), 1, "the other job keeps its GPU");
    // The three that fit waited at Permit and were rejected when the fourth failed Filter.
    let waited: Vec<(String, String)> = r
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Attempt {
                outcome: AttemptOutcome::Waiting(n),
                ..
            } => Some((e.pod.name.to_string(), n.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        waited,
        vec![
            ("worker-0".into(), "gpu-1".into()),
            ("worker-1".into(), "gpu-2".into()),
            ("worker-2".into(), "gpu-3".into())
        ]
    );
    for w in &workers()[..3] {
        assert_eq!(
            final_state(&r, w),
            &FinalState::Pending {
                message: "0/1 nodes are available: 1 optimistic rejection in PostFilter.".into(),
                nominated: None
            }
        );
    }
    let FinalState::Pending { message, .. } = final_state(&r, &k("ml", "worker-3")) else {
        panic!("worker-3 pending")
    };
    assert!(
        message.starts_with("0/5 nodes are available: 5 Insufficient nvidia.com/gpu."),
        "{message}"
    );
    assert!(
        message.ends_with(
            "PodGroup ml/training-job gets rejected due to Pod worker-3 is unschedulable even after PostFilter"
        ),
        "{message}"
    );
}

#[test]
fn gang_of_four_with_four_free_gpu_nodes_binds_all_four() {
    let mut c = load("fixtures/gang.yaml");
    c.evict_pod(&k("ml", "other-job-0")).unwrap();
    let r = run(c);
    let mut nodes = Vec::new();
    for w in workers() {
        match final_state(&r, &w) {
            FinalState::Bound { node, at_ms } => {
                assert_eq!(*at_ms, 0, "{w}");
                nodes.push(node.clone());
            }
            other => panic!("{w}: {other:?}"),
        }
    }
    assert_eq!(nodes, vec!["gpu-1", "gpu-2", "gpu-3", "gpu-4"]);
    for n in ["gpu-1", "gpu-2", "gpu-3", "gpu-4"] {
        assert_eq!(gpus_requested(&r, n), 1, "{n}");
    }
    // worker-3 reached the quorum: its Permit succeeded and allowed the three waiting members.
    let ex = r
        .events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Attempt { explanation, .. } if e.pod.name == "worker-3" => Some(explanation),
            _ => None,
        })
        .unwrap();
    let b = ex.binding_cycle.as_ref().unwrap();
    assert_eq!(b.outcome, BindingOutcome::Bound);
    assert_eq!(
        b.permit[0].notes.last().unwrap(),
        "quorum reached: 4 of minMember 4 assigned with this pod"
    );
    let g = ex.gang.as_ref().unwrap();
    assert_eq!((g.min_member, g.members, g.assigned), (4, 4, 3));
    assert_eq!(
        g.waiting.len(),
        3,
        "the three members still waiting when worker-3 was explained"
    );
    let ended: Vec<String> = r
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::WaitEnded { trace } if trace.outcome == BindingOutcome::Bound => Some(e.pod.name.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(ended, vec!["worker-0", "worker-1", "worker-2"]);
}

#[test]
fn gang_min_resources_short_of_gpus_is_rejected_at_pre_filter() {
    let mut c = load("fixtures/gang.yaml");
    c.pod_groups[0].spec.min_resources = Some(
        [(
            "nvidia.com/gpu".to_string(),
            k8s_openapi::apimachinery::pkg::api::resource::Quantity("4".into()),
        )]
        .into(),
    );
    let r = run(c);
    for w in workers() {
        let FinalState::Pending { message, .. } = final_state(&r, &w) else {
            panic!("{w}")
        };
        assert!(
            message
                .starts_with("0/5 nodes are available: resource gap: map[nvidia.com/gpu:{{1 0} {<nil>}  DecimalSI}]."),
            "{message}"
        );
    }
    assert!(!r.events.iter().any(|e| matches!(
        &e.kind,
        EventKind::Attempt {
            outcome: AttemptOutcome::Waiting(_),
            ..
        }
    )));
}

#[test]
fn gang_waits_time_out_on_the_simulated_clock() {
    // The fourth worker is gated: the other three wait at Permit until the timeout (the
    // profile's permitWaitingTimeSeconds 10, or the PodGroup's scheduleTimeoutSeconds).
    for (timeout, want) in [(None, "10s"), (Some(30), "30s")] {
        let mut c = load("fixtures/gang.yaml");
        edit_pod(&mut c, &k("ml", "worker-3"), |p| {
            p.spec.as_mut().unwrap().scheduling_gates = Some(vec![k8s_openapi::api::core::v1::PodSchedulingGate {
                name: "example.com/hold".into(),
            }]);
        });
        c.pod_groups[0].spec.schedule_timeout_seconds = timeout;
        let r = run(c);
        assert!(r.converged);
        let msg =
            format!("0/1 nodes are available: 1 rejected due to timeout after waiting {want} at plugin Coscheduling.");
        for w in &workers()[..3] {
            assert_eq!(
                final_state(&r, w),
                &FinalState::Pending {
                    message: msg.clone(),
                    nominated: None
                },
                "{w}"
            );
        }
        assert_eq!(final_state(&r, &k("ml", "worker-3")), &gated());
        let timeout_ms: u64 = want.trim_end_matches('s').parse::<u64>().unwrap() * 1000;
        // Waiting from t=0 (pass 1) and again from t=1s (pass 2) would each end at their deadline;
        // the first wait ends exactly at the timeout.
        let first_end = r
            .events
            .iter()
            .find(|e| matches!(&e.kind, EventKind::WaitEnded { .. }))
            .unwrap();
        assert_eq!(first_end.at_ms, timeout_ms);
        for n in ["gpu-1", "gpu-2", "gpu-3"] {
            assert_eq!(gpus_requested(&r, n), 0, "{n}");
        }
    }
}

#[test]
fn queue_order_and_a_placement_that_changes_the_next_verdict() {
    let c = load("fixtures/queue.yaml");
    // On the snapshot as loaded, small-b fits n1.
    let v = Release::NEWEST;
    let profiles = engine::build_profiles(None, v).unwrap();
    let snap = Snapshot::new(Arc::new(c.clone()), v);
    let ex = engine::explain(&snap, &profiles, &k("default", "small-b")).unwrap();
    assert_eq!(ex.selected, vec!["n1".to_string()]);
    let b = ex.binding_cycle.as_ref().unwrap();
    assert_eq!(b.outcome, BindingOutcome::Bound);
    assert_eq!(
        b.bind[0].notes,
        vec!["would POST /api/v1/namespaces/default/pods/small-b/binding with target Node 'n1'".to_string()]
    );
    let r = run(c);
    let order: Vec<String> = r.pods.iter().map(|(k, _)| k.name.to_string()).collect();
    assert_eq!(order, vec!["big", "small-a", "small-b", "checkout"]);
    assert_eq!(
        final_state(&r, &k("default", "big")),
        &FinalState::Bound {
            node: "n1".into(),
            at_ms: 0
        }
    );
    assert_eq!(
        final_state(&r, &k("default", "small-a")),
        &FinalState::Bound {
            node: "n2".into(),
            at_ms: 0
        }
    );
    let FinalState::Pending { message, nominated } = final_state(&r, &k("default", "small-b")) else {
        panic!("small-b pending")
    };
    assert!(
        message.starts_with("0/2 nodes are available: 2 Insufficient cpu."),
        "{message}"
    );
    assert_eq!(nominated, &None);
    assert_eq!(final_state(&r, &k("default", "checkout")), &gated());
    assert_eq!(r.snapshot.node("n1").unwrap().requested.milli_cpu, 1500);
    assert_eq!(r.snapshot.node("n2").unwrap().requested.milli_cpu, 1000);
    assert!(r.converged);
    assert_eq!(r.passes, 2, "a second pass retries small-b and changes nothing");
}

#[test]
fn write_round_trip_keeps_every_object_and_field() {
    let c = load("fixtures/queue.yaml");
    let r = run(c.clone());
    let dir_guard = temp_dir("sim");
    let dir = dir_guard.path();
    let out = dir.join("out.yaml");
    save::save_path(&r.snapshot.cluster, &out).unwrap();
    let back = file::load_path_keeping_documents(&out).unwrap();
    // Same objects: every pod (with its placement), node, and skipped kind.
    let pods = |c: &Cluster| -> Vec<(ObjectKey, Option<kschedtui::model::ThinStr>)> {
        c.pods.iter().map(|p| (p.key.clone(), p.node_name.clone())).collect()
    };
    assert_eq!(pods(&back), pods(&r.snapshot.cluster));
    assert_eq!(back.nodes.len(), c.nodes.len());
    assert_eq!(back.skipped, c.skipped);
    assert_eq!(back.source_documents.len(), c.source_documents.len());
    // Documents nobody scheduled are written back exactly as read.
    for (a, b) in c.source_documents.iter().zip(&back.source_documents) {
        let name = a["metadata"]["name"].as_str().unwrap();
        if matches!(name, "big" | "small-a") {
            assert_eq!(
                b["spec"]["nodeName"].as_str(),
                a["metadata"]["name"]
                    .as_str()
                    .map(|n| if n == "big" { "n1" } else { "n2" })
            );
            assert_eq!(b["metadata"], a["metadata"], "{name}: metadata untouched");
            assert_eq!(b["status"]["conditions"][0]["type"], "PodScheduled");
        } else {
            assert_eq!(a, b, "{name}");
        }
    }
    assert_eq!(
        back.pod(&k("default", "checkout"))
            .unwrap()
            .obj
            .spec
            .as_ref()
            .unwrap()
            .scheduling_gates
            .as_ref()
            .unwrap()
            .len(),
        1
    );
    // Simulating the written snapshot changes nothing more, and writing it again gives the
    // same file.
    let r2 = run(back);
    assert!(r2.events.iter().all(|e| !matches!(
        &e.kind,
        EventKind::Attempt {
            outcome: AttemptOutcome::Bound(_),
            ..
        }
    )));
    assert_eq!(
        save::to_text(&r2.snapshot.cluster, false).unwrap(),
        std::fs::read_to_string(&out).unwrap()
    );
}

#[test]
fn simulate_command_writes_a_snapshot_that_loads_again() {
    let dir_guard = temp_dir("cli-sim");
    let dir = dir_guard.path();
    let out = dir.join("gang-out.yaml");
    let o = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(["simulate", "--snapshot", "fixtures/gang.yaml", "-o", "json", "--write"])
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["kind"], "Simulation");
    assert_eq!(v["converged"], true);
    let results: Vec<&str> = v["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["result"].as_str().unwrap())
        .collect();
    assert_eq!(results, vec!["Pending"; 4]);
    let first = &v["events"][0];
    assert_eq!(first["outcome"], "Waiting");
    assert_eq!(first["explanation"]["bindingCycle"]["outcome"], "Waiting");
    assert_eq!(first["explanation"]["gang"]["minMember"], 4);
    assert_eq!(first["explanation"]["gang"]["timeoutMs"], 10_000);
    let back = file::load_path(&out).unwrap();
    let orig = file::load_path(Path::new(&format!("{}/fixtures/gang.yaml", env!("CARGO_MANIFEST_DIR")))).unwrap();
    assert_eq!(back.pods.len(), orig.pods.len());
    assert_eq!(back.pod_groups.len(), 1);
    assert_eq!(back.pod_groups[0].spec.min_member, 4);
}

#[test]
fn demo_cluster_simulates_with_gang_waits() {
    let c = file::load_str_keeping_documents("demo", kschedtui::cli::DEMO_SNAPSHOT).unwrap();
    let r = run(c);
    assert!(r.converged);
    let waits = r
        .events
        .iter()
        .filter(|e| {
            e.pod.name.starts_with("ddp-worker")
                && matches!(
                    &e.kind,
                    EventKind::Attempt {
                        outcome: AttemptOutcome::Waiting(_),
                        ..
                    }
                )
        })
        .count();
    assert!(waits >= 3, "the demo's gang waits at Permit ({waits})");
    for i in 0..4 {
        assert!(
            !matches!(
                final_state(&r, &k("ml", &format!("ddp-worker-{i}"))),
                FinalState::Bound { .. }
            ),
            "three free GPUs cannot hold a gang of four"
        );
    }
}

fn gated() -> FinalState {
    FinalState::Held {
        plugin: "SchedulingGates".into(),
        message: "Scheduling is blocked due to non-empty scheduling gates".into(),
    }
}

/// NominatedNodeNameForExpectation (beta, on from 1.35): a pod PreBind has work for (its
/// ResourceClaims) gets its node as status.nominatedNodeName before it binds, and the binding
/// clears it again (ClearingNominatedNodeNameAfterBinding); 1.34 has neither.
#[test]
fn the_binding_cycle_nominates_a_pod_with_claims_from_1_35() {
    let pod = k("ml", "infer-l4");
    let events_at = |minor: &str| {
        let v: Release = minor.parse().unwrap();
        let profiles = engine::build_profiles(None, v).unwrap();
        let r = simulate(load("fixtures/demo.yaml"), &profiles, v, SimOptions::default());
        let kinds: Vec<String> = r
            .events
            .iter()
            .filter(|e| e.pod == pod)
            .map(|e| match &e.kind {
                EventKind::NominatedForExpectation { node } => format!("nominated {node}"),
                EventKind::Attempt { outcome, .. } => format!("{outcome:?}"),
                other => format!("{other:?}"),
            })
            .collect();
        let nominated = r
            .snapshot
            .cluster
            .pod(&pod)
            .unwrap()
            .nominated_node_name()
            .map(str::to_string);
        (kinds, nominated)
    };
    let (kinds, nominated) = events_at("1.36");
    assert_eq!(kinds, ["Bound(\"pool-dra-b1\")", "nominated pool-dra-b1"]);
    assert_eq!(nominated, None, "the binding cleared it");
    let (kinds, _) = events_at("1.34");
    assert_eq!(kinds, ["Bound(\"pool-dra-b1\")"]);
}

/// The summary report (what `simulate -o text` and the benchmark run) has the same timeline
/// and final states as the full one and drops only the per-node traces.
#[test]
fn summary_detail_keeps_the_timeline_and_drops_the_node_traces() {
    use kschedtui::engine::simulate::Detail;
    let v = Release::NEWEST;
    let profiles = engine::build_profiles(None, v).unwrap();
    let demo = file::load_str_keeping_documents("demo", kschedtui::cli::DEMO_SNAPSHOT).unwrap();
    for c in [demo, load("fixtures/gang.yaml"), load("fixtures/queue.yaml")] {
        let full = simulate(c.clone(), &profiles, v, SimOptions::default());
        let opts = SimOptions {
            detail: Detail::Summary,
            ..SimOptions::default()
        };
        let summary = simulate(c, &profiles, v, opts);
        assert_eq!(full.pods, summary.pods);
        assert_eq!(full.events.len(), summary.events.len());
        let mut attempts_with_nodes = 0;
        for (f, s) in full.events.iter().zip(&summary.events) {
            assert_eq!((f.pass, f.at_ms, &f.pod), (s.pass, s.at_ms, &s.pod));
            match (&f.kind, &s.kind) {
                (
                    EventKind::Attempt {
                        outcome: fo,
                        explanation: fe,
                        ..
                    },
                    EventKind::Attempt {
                        outcome: so,
                        explanation: se,
                        ..
                    },
                ) => {
                    assert_eq!(fo, so, "{}", f.pod);
                    assert_eq!(fe.selected, se.selected);
                    assert_eq!(fe.message, se.message);
                    assert_eq!(fe.gang.is_some(), se.gang.is_some());
                    assert!(se.filter.is_empty() && se.score.is_empty());
                    attempts_with_nodes += usize::from(!fe.filter.is_empty());
                }
                (fk, sk) => assert_eq!(std::mem::discriminant(fk), std::mem::discriminant(sk), "{}", f.pod),
            }
        }
        assert!(attempts_with_nodes > 0, "the full report keeps the Filter verdicts");
    }
}
