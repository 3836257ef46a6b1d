//! Table tests transcribed from upstream's defaultpreemption/default_preemption_test.go
//! (TestPostFilter, TestDryRunPreemption, TestSelectBestCandidate, TestPodEligibleToPreemptOthers,
//! TestPreempt) and preemption/preemption_test.go (TestNodesWherePreemptionMightHelp), with the
//! plugins the default profile has instead of a hand-registered NodeResourcesFit. Where upstream
//! draws a random offset, the expectation is the one of offset 0 (said in the case).
//! Start times are whole seconds (upstream's epoch+N ns cannot be written in a snapshot).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use super::candidates::{CRITERIA, CandidateNode};
use super::victims::{filter_pods_with_pdb_violation, more_important_pod, pod_start_time_nanos, violated_pdbs};
use super::*;
use crate::engine::Framework;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::PreFilterPlugin;
use crate::engine::framework::snapshot::Snapshot;
use crate::engine::framework::trace::Explanation;
use crate::engine::release::{Change, Features, Release};
use crate::model::{Object, ObjectKey, Origin};

const SMALL: (&str, &str) = ("100m", "100");
const MEDIUM: (&str, &str) = ("200m", "200");
const LARGE: (&str, &str) = ("300m", "300");
const VERY_LARGE: (&str, &str) = ("500m", "500");
const NODE_RES: (&str, &str) = ("200m", "400");

const NEG: i32 = -100;
const LOW: i32 = 0;
const MID: i32 = 100;
const HIGH: i32 = 1000;
const VERY_HIGH: i32 = 10000;

const V130: Release = Release::at(30);
const V131: Release = Release::at(31);

#[derive(Clone)]
struct PodB {
    name: String,
    node: Option<String>,
    prio: Option<i32>,
    req: Option<(&'static str, &'static str)>,
    labels: BTreeMap<String, String>,
    start: Option<i64>,
    nominated: Option<String>,
    policy: Option<&'static str>,
    class: Option<&'static str>,
    terminating: bool,
    preempted: bool,
}

fn pod(name: &str) -> PodB {
    PodB {
        name: name.into(),
        node: None,
        prio: None,
        req: None,
        labels: BTreeMap::new(),
        start: None,
        nominated: None,
        policy: None,
        class: None,
        terminating: false,
        preempted: false,
    }
}

impl PodB {
    fn node(mut self, n: &str) -> Self {
        self.node = Some(n.into());
        self
    }
    fn prio(mut self, p: i32) -> Self {
        self.prio = Some(p);
        self
    }
    fn req(mut self, r: (&'static str, &'static str)) -> Self {
        self.req = Some(r);
        self
    }
    fn label(mut self, k: &str, v: &str) -> Self {
        self.labels.insert(k.into(), v.into());
        self
    }
    /// status.startTime as seconds after the epoch.
    fn start(mut self, secs: i64) -> Self {
        self.start = Some(secs);
        self
    }
    fn nominated(mut self, n: &str) -> Self {
        self.nominated = Some(n.into());
        self
    }
    fn policy(mut self, p: &'static str) -> Self {
        self.policy = Some(p);
        self
    }
    fn class(mut self, c: &'static str) -> Self {
        self.class = Some(c);
        self
    }
    fn terminating(mut self) -> Self {
        self.terminating = true;
        self
    }
    /// The DisruptionTarget condition preemption writes on its victims.
    fn preempted(mut self) -> Self {
        self.preempted = true;
        self
    }
    fn obj(&self) -> Value {
        let mut meta = json!({"name": self.name, "namespace": "default", "uid": self.name});
        if !self.labels.is_empty() {
            meta["labels"] = json!(self.labels);
        }
        if self.terminating {
            meta["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
        }
        let mut c = json!({"name": "c", "image": "img"});
        if let Some((cpu, mem)) = self.req {
            c["resources"] = json!({"requests": {"cpu": cpu, "memory": mem}});
        }
        let mut spec = json!({"containers": [c]});
        if let Some(n) = &self.node {
            spec["nodeName"] = json!(n);
        }
        if let Some(p) = self.prio {
            spec["priority"] = json!(p);
        }
        if let Some(p) = self.policy {
            spec["preemptionPolicy"] = json!(p);
        }
        if let Some(c) = self.class {
            spec["priorityClassName"] = json!(c);
        }
        let mut status = json!({"phase": if self.node.is_some() { "Running" } else { "Pending" }});
        if let Some(s) = self.start {
            status["startTime"] = json!(k8s_openapi::jiff::Timestamp::from_second(s).expect("time").to_string());
        }
        if let Some(n) = &self.nominated {
            status["nominatedNodeName"] = json!(n);
        }
        if self.preempted {
            status["conditions"] = json!([{"type": "DisruptionTarget", "status": "True",
                "reason": "PreemptionByScheduler"}]);
        }
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status})
    }
}

/// A node with `pods` pod slots (upstream's MakeNode().Capacity() puts 32).
fn node_with(name: &str, res: (&str, &str), pods: u32, labels: &[(&str, &str)]) -> Value {
    let cap = json!({"cpu": res.0, "memory": res.1, "pods": pods.to_string()});
    let labels: BTreeMap<&str, &str> = labels.iter().copied().collect();
    json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {"capacity": cap, "allocatable": cap}})
}

fn node(name: &str, res: (&str, &str)) -> Value {
    node_with(name, res, 32, &[])
}

/// A node with one pod slot and nothing else (upstream's `onePodRes`).
fn one_pod_node(name: &str) -> Value {
    let cap = json!({"pods": "1"});
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
        "status": {"capacity": cap, "allocatable": cap}})
}

fn pdb(name: &str, label: (&str, &str), status: Option<Value>) -> Value {
    let mut o = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"matchLabels": {label.0: label.1}}}});
    if let Some(s) = status {
        o["status"] = s;
    }
    o
}

fn pdb_status(allowed: i32, disrupted: &[&str]) -> Value {
    let d: BTreeMap<&str, &str> = disrupted.iter().map(|n| (*n, "2024-01-01T00:00:00Z")).collect();
    json!({"disruptionsAllowed": allowed, "currentHealthy": 0, "desiredHealthy": 0,
        "expectedPods": 0, "disruptedPods": d})
}

struct World {
    snap: Snapshot,
    fw: Framework,
    version: Release,
}

/// A typed model object from its JSON form (the engine does not use the snapshot loader).
fn typed(v: Value) -> (Origin, Object) {
    let o = match v["kind"].as_str().expect("kind") {
        "Node" => Object::Node(serde_json::from_value(v).expect("node")),
        "Pod" => Object::Pod(serde_json::from_value(v).expect("pod")),
        "PodDisruptionBudget" => Object::PodDisruptionBudget(serde_json::from_value(v).expect("pdb")),
        "PriorityClass" => Object::PriorityClass(serde_json::from_value(v).expect("class")),
        k => panic!("no test object of kind {k}"),
    };
    (Origin::default(), o)
}

fn world_v(objs: Vec<Value>, version: Release) -> World {
    let cluster = Cluster::build(objs.into_iter().map(typed).collect()).expect("cluster");
    let snap = Snapshot::new(Arc::new(cluster), version);
    let fw = Framework::default_profile(version).expect("profile");
    World { snap, fw, version }
}

fn world(objs: Vec<Value>) -> World {
    world_v(objs, V130)
}

fn objs(nodes: Vec<Value>, pods: &[PodB]) -> Vec<Value> {
    let mut v = nodes;
    v.extend(pods.iter().map(PodB::obj));
    v
}

fn names(keys: &[ObjectKey]) -> Vec<String> {
    keys.iter().map(|k| k.name.to_string()).collect()
}

impl World {
    fn pi(&self, name: &str) -> Arc<PodInfo> {
        self.snap.pod_infos[&ObjectKey::new("default", name)].clone()
    }

    /// The cycle state after PreFilter, as upstream's tests prepare it.
    fn state(&self, pod: &PodInfo) -> CycleState {
        let cx = Ctx { snapshot: &self.snap };
        let mut state = CycleState::default();
        for pl in &self.fw.pre_filter {
            let (_, s) = pl.pre_filter(&cx, &mut state, pod);
            if s.is_skip() {
                state.skip_filter.insert(pl.name());
            }
        }
        state
    }

    fn plugin(&self) -> DefaultPreemption {
        DefaultPreemption::new(&self.version.into())
    }

    fn post_filter_with(
        &self,
        pl: &DefaultPreemption,
        name: &str,
        statuses: &[(&str, Code)],
    ) -> (PostFilterTrace, Status) {
        let pod = self.pi(name);
        let state = self.state(&pod);
        let m: BTreeMap<String, Status> = statuses
            .iter()
            .map(|(n, c)| ((*n).to_string(), Status::new(*c, Vec::<String>::new())))
            .collect();
        pl.post_filter(&Ctx { snapshot: &self.snap }, &self.fw, &state, &pod, &m)
    }

    fn post_filter(&self, name: &str, statuses: &[(&str, Code)]) -> (PostFilterTrace, Status) {
        self.post_filter_with(&self.plugin(), name, statuses)
    }

    /// DryRunPreemption over every node, sorted as upstream's test sorts its result.
    fn dry_run(&self, pl: &DefaultPreemption, name: &str) -> Vec<(String, Vec<String>, usize)> {
        let pod = self.pi(name);
        let state = self.state(&pod);
        let nodes: Vec<&NodeInfo> = self.snap.nodes.iter().collect();
        let cx = Ctx { snapshot: &self.snap };
        let wanted = pl.calculate_num_candidates(nodes.len());
        let dry = dry_run_preemption(
            &cx,
            &self.fw,
            &state,
            &pod,
            &nodes,
            &self.snap.cluster.pdbs,
            wanted,
            super::victims::VictimRules {
                sort_victims: Features::new(self.version).has(Change::PreemptionVictimsResorted),
                pdb_selector_as_defined: pl.pdb_selector_as_defined,
            },
            pl.group_victims,
        );
        let mut out: Vec<(String, Vec<String>, usize)> = dry
            .candidates
            .iter()
            .map(|c| {
                let mut v: Vec<String> = c.victims.iter().map(|p| p.pod.key.name.to_string()).collect();
                v.sort();
                (c.name.clone(), v, c.pdb_violations)
            })
            .collect();
        out.sort();
        out
    }

    fn explain(&self, name: &str) -> Explanation {
        crate::engine::framework::runner::explain(
            &self.snap,
            std::slice::from_ref(&self.fw),
            &ObjectKey::new("default", name),
        )
        .expect("explain")
    }
}

fn cand(node: &str, victims: &[&str], pdb: usize) -> (String, Vec<String>, usize) {
    (node.into(), victims.iter().map(|v| (*v).to_string()).collect(), pdb)
}

// ---------------------------------------------------------------------------------------------
// TestPostFilter

#[test]
fn post_filter_higher_priority_pod_can_be_made_schedulable() {
    let w = world(objs(
        vec![one_pod_node("node1")],
        &[pod("p").prio(HIGH), pod("p1").node("node1")],
    ));
    let (t, s) = w.post_filter("p", &[("node1", Code::Unschedulable)]);
    assert_eq!(s, Status::success());
    assert_eq!(t.nominated_node.as_deref(), Some("node1"));
    assert_eq!(names(&t.victims), vec!["p1"]);
}

#[test]
fn post_filter_success_names_the_placement_from_1_37() {
    // #140180 (1.37.0): "pod can be made schedulable" now carries Preempt's success message,
    // which the FitError appends after the histogram, as 1.37 clusters print it:
    // "0/3 nodes are available: 3 Insufficient cpu. preemption: found a potential placement
    // for pod on node X, preempting 1 victims"
    let objects = objs(
        vec![one_pod_node("node1")],
        &[pod("p").prio(HIGH), pod("p1").node("node1")],
    );
    let w = world_v(objects.clone(), Release::at(37));
    let (t, s) = w.post_filter("p", &[("node1", Code::Unschedulable)]);
    assert_eq!(
        s,
        Status::new(
            Code::Success,
            ["preemption: found a potential placement for pod on node node1, preempting 1 victims"]
        )
    );
    assert_eq!(t.nominated_node.as_deref(), Some("node1"));
    let ex = w.explain("p");
    assert_eq!(
        ex.message.as_deref(),
        Some(
            "0/1 nodes are available: 1 Too many pods. preemption: found a potential placement for pod on node node1, preempting 1 victims"
        )
    );
    // 1.36 wrote nothing after the histogram
    let w = world_v(objects, Release::at(36));
    assert_eq!(
        w.explain("p").message.as_deref(),
        Some("0/1 nodes are available: 1 Too many pods.")
    );
}

#[test]
fn post_filter_pod_with_tied_priority_is_still_unschedulable() {
    let w = world(objs(vec![one_pod_node("node1")], &[pod("p"), pod("p1").node("node1")]));
    let (t, s) = w.post_filter("p", &[("node1", Code::Unschedulable)]);
    assert_eq!(
        s,
        Status::unschedulable("preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")
    );
    assert_eq!(t.nominated_node, None);
    assert_eq!(
        t.node_notes,
        vec![(
            "node1".to_string(),
            "No preemption victims found for incoming pod".to_string()
        )]
    );
}

#[test]
fn post_filter_respects_unresolvable_and_absent_statuses() {
    let w = world(objs(
        vec![one_pod_node("node1")],
        &[pod("p").prio(HIGH), pod("p1").node("node1")],
    ));
    let want =
        Status::unschedulable("preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
    assert_eq!(
        w.post_filter("p", &[("node1", Code::UnschedulableAndUnresolvable)]).1,
        want
    );
    assert_eq!(w.post_filter("p", &[]).1, want);
}

#[test]
fn post_filter_pod_can_be_made_schedulable_on_one_node() {
    let w = world(objs(
        vec![one_pod_node("node1"), one_pod_node("node2")],
        &[
            pod("p").prio(MID),
            pod("p1").prio(HIGH).node("node1"),
            pod("p2").prio(LOW).node("node2"),
        ],
    ));
    let (t, s) = w.post_filter("p", &[("node1", Code::Unschedulable), ("node2", Code::Unschedulable)]);
    assert!(s.is_success());
    assert_eq!(t.nominated_node.as_deref(), Some("node2"));
}

/// kubernetes#141785 (1.38): an empty-selector PDB with no disruption left covers node1's
/// unlabeled victim. Up to 1.37 preemption ignored it and took node1 (the lower highest victim
/// priority); 1.38 counts the violation and takes node2, whose victim no PDB covers.
#[test]
fn post_filter_counts_a_pdb_with_an_empty_selector_from_1_38() {
    let mk = |minor| {
        let mut all = pdb("all", ("x", "y"), Some(pdb_status(0, &[])));
        all["spec"]["selector"] = json!({});
        let mut o = objs(
            vec![one_pod_node("node1"), one_pod_node("node2"), all],
            &[pod("p").prio(HIGH), pod("v1").prio(LOW).node("node1")],
        );
        let mut v2 = pod("v2").prio(MID).node("node2").obj();
        v2["metadata"]["namespace"] = json!("other");
        o.push(v2);
        world_v(o, Release::at(minor))
    };
    let statuses = [("node1", Code::Unschedulable), ("node2", Code::Unschedulable)];
    for (minor, node, violations) in [(37, "node1", 0), (38, "node2", 1)] {
        let w = mk(minor);
        let (t, s) = w.post_filter("p", &statuses);
        assert!(s.is_success(), "1.{minor}: {s:?}");
        assert_eq!(t.nominated_node.as_deref(), Some(node), "1.{minor}");
        let dry = w.dry_run(&w.plugin(), "p");
        let v1 = dry.iter().find(|(n, ..)| n == "node1").expect("node1");
        assert_eq!(v1.2, violations, "1.{minor}: {dry:?}");
    }
}

/// "pod can be made schedulable on minHighestPriority node": upstream's case was written for the
/// fix that sorts victims after the reprieve (1.31+). In 1.30.6 node1's first victim is the
/// PDB-violating low-priority pod, so node1 wins the second criterion.
#[test]
fn post_filter_min_highest_priority_node_depends_on_victim_order_by_version() {
    let mk = |v| {
        world_v(
            objs(
                vec![
                    one_pod_node("node1"),
                    one_pod_node("node2"),
                    pdb("violating-pdb", ("pdb", "violating"), None),
                    pdb(
                        "non-violating-pdb",
                        ("pdb", "non-violating"),
                        Some(pdb_status(i32::MAX, &[])),
                    ),
                ],
                &[
                    pod("p").prio(VERY_HIGH),
                    pod("p1").label("pdb", "non-violating").prio(HIGH).node("node1"),
                    pod("p2").label("pdb", "violating").prio(LOW).node("node1"),
                    pod("p3").label("pdb", "violating").prio(MID).node("node2"),
                ],
            ),
            v,
        )
    };
    let st = [("node1", Code::Unschedulable), ("node2", Code::Unschedulable)];
    let (t, s) = mk(V131).post_filter("p", &st);
    assert!(s.is_success());
    assert_eq!(t.nominated_node.as_deref(), Some("node2"));
    let n1 = &t.candidates[0];
    assert_eq!(
        (names(&n1.victims), n1.pdb_violations),
        (vec!["p1".into(), "p2".into()], 1)
    );
    assert_eq!(n1.criterion, CRITERIA[1]);

    let (t, s) = mk(V130).post_filter("p", &st);
    assert!(s.is_success());
    assert_eq!(t.nominated_node.as_deref(), Some("node1"));
    let n1 = &t.candidates[0];
    assert_eq!(names(&n1.victims), vec!["p2", "p1"]);
    assert_eq!(n1.victim_priorities, vec![LOW, HIGH]);
    assert!(n1.selected);
    assert_eq!(n1.criterion, CRITERIA[1]);
}

#[test]
fn post_filter_no_candidate_not_enough_resource_after_removing_low_priority_pods() {
    let w = world(objs(
        vec![node("node1", NODE_RES), node("node2", NODE_RES)],
        &[
            pod("p").prio(HIGH).req(LARGE),
            pod("p1").node("node1"),
            pod("p2").node("node2"),
        ],
    ));
    let (t, s) = w.post_filter("p", &[("node1", Code::Unschedulable), ("node2", Code::Unschedulable)]);
    assert_eq!(
        s,
        Status::unschedulable("preemption: 0/2 nodes are available: 2 Insufficient cpu.")
    );
    assert_eq!(t.candidates_wanted, Some(2));
}

#[test]
fn post_filter_no_candidate_with_mixed_reasons() {
    let w = world(objs(
        vec![one_pod_node("node1"), node("node2", NODE_RES), one_pod_node("node3")],
        &[
            pod("p").prio(HIGH).req(LARGE),
            pod("p1").node("node1").prio(HIGH),
            pod("p2").node("node2"),
            pod("p3").node("node3").prio(HIGH),
        ],
    ));
    let st = [
        ("node1", Code::Unschedulable),
        ("node2", Code::Unschedulable),
        ("node3", Code::Unschedulable),
    ];
    assert_eq!(
        w.post_filter("p", &st).1,
        Status::unschedulable(
            "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming pod."
        )
    );
}

#[test]
fn post_filter_no_candidate_two_unresolvable_nodes_and_two_without_cpu() {
    let w = world(objs(
        vec![
            node("node1", NODE_RES),
            node("node2", NODE_RES),
            node("node3", NODE_RES),
            node("node4", NODE_RES),
        ],
        &[
            pod("p").prio(HIGH).req(LARGE),
            pod("p1").node("node1"),
            pod("p2").node("node2"),
        ],
    ));
    let st = [
        ("node1", Code::Unschedulable),
        ("node2", Code::Unschedulable),
        ("node4", Code::UnschedulableAndUnresolvable),
    ];
    assert_eq!(
        w.post_filter("p", &st).1,
        Status::unschedulable(
            "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling."
        )
    );
}

/// upstream's TestPlugin: a PreFilter whose AddPod/RemovePod fail on nodes labelled error=true.
struct ErrorExtensions;

impl Plugin for ErrorExtensions {
    fn name(&self) -> &'static str {
        "test-plugin"
    }
}

impl PreFilterPlugin for ErrorExtensions {
    fn pre_filter(
        &self,
        _: &Ctx<'_>,
        _: &mut CycleState,
        _: &PodInfo,
    ) -> (Option<std::collections::BTreeSet<String>>, Status) {
        (None, Status::success())
    }
    fn has_extensions(&self) -> bool {
        true
    }
    fn add_pod(&self, _: &Ctx<'_>, _: &mut CycleState, pod: &PodInfo, _: &PodInfo, node: &NodeInfo) -> Status {
        if node.node.labels.get("error").map(String::as_str) == Some("true") {
            return Status::error(format!("failed to add pod: {}", pod.pod.key.name));
        }
        Status::success()
    }
    fn remove_pod(&self, _: &Ctx<'_>, _: &mut CycleState, pod: &PodInfo, _: &PodInfo, node: &NodeInfo) -> Status {
        if node.node.labels.get("error").map(String::as_str) == Some("true") {
            return Status::error(format!("failed to remove pod: {}", pod.pod.key.name));
        }
        Status::success()
    }
}

#[test]
fn post_filter_extension_errors() {
    // "only one node but failed with TestPlugin"
    let mut w = world(objs(
        vec![node_with("node1", LARGE, 32, &[("error", "true")])],
        &[pod("p").prio(HIGH).req(LARGE), pod("p1").node("node1")],
    ));
    w.fw.pre_filter.push(Arc::new(ErrorExtensions));
    let (_, s) = w.post_filter("p", &[("node1", Code::Unschedulable)]);
    assert_eq!(s.code, Code::Error);
    assert_eq!(
        s.reasons,
        vec!["preemption: running RemovePod on PreFilter plugin \"test-plugin\": failed to remove pod: p"]
    );

    // "one failed with TestPlugin and the other pass"
    let mut w = world(objs(
        vec![
            node_with("node1", LARGE, 32, &[("error", "true")]),
            node("node2", LARGE),
        ],
        &[
            pod("p").prio(HIGH).req(LARGE),
            pod("p1").node("node1"),
            pod("p2").node("node2").req(MEDIUM),
        ],
    ));
    w.fw.pre_filter.push(Arc::new(ErrorExtensions));
    let (t, s) = w.post_filter("p", &[("node1", Code::Unschedulable), ("node2", Code::Unschedulable)]);
    assert!(s.is_success());
    assert_eq!(t.nominated_node.as_deref(), Some("node2"));
}

// ---------------------------------------------------------------------------------------------
// TestDryRunPreemption

fn two_nodes(pods: &[PodB]) -> World {
    world(objs(vec![node("node1", VERY_LARGE), node("node2", VERY_LARGE)], pods))
}

#[test]
fn dry_run_fits_on_both_nodes_when_lower_priority_pods_are_preempted() {
    let w = two_nodes(&[
        pod("p").prio(HIGH).req(LARGE),
        pod("p1").node("node1").prio(MID).req(LARGE),
        pod("p2").node("node2").prio(MID).req(LARGE),
    ]);
    assert_eq!(
        w.dry_run(&w.plugin(), "p"),
        vec![cand("node1", &["p1"], 0), cand("node2", &["p2"], 0)]
    );
}

#[test]
fn dry_run_no_preemption_when_running_pods_have_higher_priority() {
    let w = two_nodes(&[
        pod("p").prio(LOW).req(LARGE),
        pod("p1").node("node1").prio(MID).req(LARGE),
        pod("p2").node("node2").prio(MID).req(LARGE),
    ]);
    assert_eq!(w.dry_run(&w.plugin(), "p"), vec![]);
}

#[test]
fn dry_run_medium_priority_pod_is_preempted_but_small_lower_one_stays() {
    let w = two_nodes(&[
        pod("p").prio(HIGH).req(LARGE),
        pod("p1.1").node("node1").prio(LOW).req(SMALL),
        pod("p1.2").node("node1").prio(MID).req(LARGE),
        pod("p2").node("node2").prio(MID).req(LARGE),
    ]);
    assert_eq!(
        w.dry_run(&w.plugin(), "p"),
        vec![cand("node1", &["p1.2"], 0), cand("node2", &["p2"], 0)]
    );
}

#[test]
fn dry_run_mixed_priority_pods_are_preempted() {
    let w = two_nodes(&[
        pod("p").prio(HIGH).req(LARGE),
        pod("p1.1").node("node1").prio(MID).req(SMALL),
        pod("p1.2").node("node1").prio(LOW).req(SMALL),
        pod("p1.3").node("node1").prio(MID).req(MEDIUM),
        pod("p1.4").node("node1").prio(HIGH).req(SMALL),
        pod("p2").node("node2").prio(HIGH).req(LARGE),
    ]);
    assert_eq!(w.dry_run(&w.plugin(), "p"), vec![cand("node1", &["p1.2", "p1.3"], 0)]);
}

#[test]
fn dry_run_equal_priorities_pick_the_later_started_pod() {
    let w = two_nodes(&[
        pod("p").prio(HIGH).req(LARGE),
        pod("p1.1").node("node1").prio(LOW).req(SMALL).start(5),
        pod("p1.2").node("node1").prio(LOW).req(SMALL).start(4),
        pod("p1.3").node("node1").prio(MID).req(MEDIUM).start(3),
        pod("p1.4").node("node1").prio(HIGH).req(SMALL).start(2),
        pod("p2").node("node2").prio(HIGH).req(LARGE).start(1),
    ]);
    assert_eq!(w.dry_run(&w.plugin(), "p"), vec![cand("node1", &["p1.1", "p1.3"], 0)]);
}

fn pdb_world(disrupted: &[&str], n: usize) -> World {
    let mut pods = vec![pod("p").prio(HIGH).req(VERY_LARGE)];
    for i in 1..=n {
        pods.push(
            pod(&format!("p1.{i}"))
                .node("node1")
                .label("app", "foo")
                .prio(MID)
                .req(MEDIUM),
        );
    }
    world(objs(
        vec![
            node("node1", VERY_LARGE),
            pdb("pdb", ("app", "foo"), Some(pdb_status(1, disrupted))),
        ],
        &pods,
    ))
}

#[test]
fn dry_run_violation_of_the_same_pdb() {
    let w = pdb_world(&[], 2);
    assert_eq!(w.dry_run(&w.plugin(), "p"), vec![cand("node1", &["p1.1", "p1.2"], 1)]);
}

#[test]
fn dry_run_pdb_disrupted_pods_not_among_the_victims() {
    let w = pdb_world(&["p2"], 2);
    assert_eq!(w.dry_run(&w.plugin(), "p"), vec![cand("node1", &["p1.1", "p1.2"], 1)]);
}

#[test]
fn dry_run_pdb_disrupted_victim_does_not_count() {
    let w = pdb_world(&["p1.2"], 2);
    assert_eq!(w.dry_run(&w.plugin(), "p"), vec![cand("node1", &["p1.1", "p1.2"], 0)]);
}

#[test]
fn dry_run_pdb_disrupted_victim_is_non_violating_among_three() {
    let w = pdb_world(&["p1.3"], 3);
    assert_eq!(
        w.dry_run(&w.plugin(), "p"),
        vec![cand("node1", &["p1.1", "p1.2", "p1.3"], 1)]
    );
}

fn five_nodes(prios: [i32; 5], labelled: &[usize]) -> World {
    let mut o: Vec<Value> = (1..=5).map(|i| node(&format!("node{i}"), VERY_LARGE)).collect();
    o.push(pdb("pdb", ("app", "foo"), Some(pdb_status(0, &[]))));
    let mut pods = vec![pod("p").prio(HIGH).req(LARGE)];
    for (i, p) in prios.iter().enumerate() {
        let mut b = pod(&format!("p{}", i + 1))
            .node(&format!("node{}", i + 1))
            .prio(*p)
            .req(LARGE);
        if labelled.contains(&(i + 1)) {
            b = b.label("app", "foo");
        }
        pods.push(b);
    }
    world(objs(o, &pods))
}

fn args(pct: i32, abs: i32) -> DefaultPreemption {
    DefaultPreemption {
        min_candidate_nodes_percentage: pct,
        min_candidate_nodes_absolute: abs,
        ..DefaultPreemption::new(&V130.into())
    }
}

/// Upstream's seed gives offset 4 (node5, node1); offset 0 walks node1, node2.
#[test]
fn dry_run_all_nodes_are_candidates_but_args_limit_to_two() {
    let w = five_nodes([MID; 5], &[]);
    assert_eq!(
        w.dry_run(&args(40, 1), "p"),
        vec![cand("node1", &["p1"], 0), cand("node2", &["p2"], 0)]
    );
}

/// Upstream (offset 4) visits node5 (no), node1, node2 (no), node3; offset 0 visits node1,
/// node2 (no), node3.
#[test]
fn dry_run_some_nodes_are_not_candidates_args_limit_to_two() {
    let w = five_nodes([MID, VERY_HIGH, MID, MID, VERY_HIGH], &[]);
    assert_eq!(
        w.dry_run(&args(40, 1), "p"),
        vec![cand("node1", &["p1"], 0), cand("node3", &["p3"], 0)]
    );
}

/// The walk goes past numCandidates until a PDB-free candidate is found (offset 0: node1 and
/// node2 violate, node3 does not; node4 and node5 are not visited).
#[test]
fn dry_run_looks_past_num_candidates_until_a_pdb_free_node() {
    let w = five_nodes([MID; 5], &[1, 2, 5]);
    assert_eq!(
        w.dry_run(&args(40, 2), "p"),
        vec![
            cand("node1", &["p1"], 1),
            cand("node2", &["p2"], 1),
            cand("node3", &["p3"], 0)
        ]
    );
    let pod = w.pi("p");
    let state = w.state(&pod);
    let nodes: Vec<&NodeInfo> = w.snap.nodes.iter().collect();
    let dry = dry_run_preemption(
        &Ctx { snapshot: &w.snap },
        &w.fw,
        &state,
        &pod,
        &nodes,
        &w.snap.cluster.pdbs,
        2,
        super::victims::VictimRules::default(),
        false,
    );
    let order: Vec<&str> = dry.candidates.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(order, vec!["node3", "node1", "node2"], "PDB-free candidates first");
    assert_eq!(dry.not_evaluated, vec!["node4", "node5"]);
}

// ---------------------------------------------------------------------------------------------
// TestSelectBestCandidate

fn best(nodes: &[&str], preemptor: PodB, pods: &[PodB]) -> (String, PostFilterTrace) {
    let mut all = vec![preemptor.clone()];
    all.extend(pods.iter().cloned());
    let w = world(objs(nodes.iter().map(|n| node(n, VERY_LARGE)).collect(), &all));
    let st: Vec<(&str, Code)> = nodes.iter().map(|n| (*n, Code::Unschedulable)).collect();
    let (t, s) = w.post_filter(&preemptor.name, &st);
    assert!(s.is_success(), "{s:?}");
    (t.nominated_node.clone().expect("nominated"), t)
}

#[test]
fn select_best_candidate_tie_goes_to_the_smallest_node_name() {
    let (n, t) = best(
        &["node1", "node2"],
        pod("p").prio(HIGH).req(LARGE),
        &[
            pod("p1").node("node1").prio(MID).req(LARGE).start(0),
            pod("p2").node("node2").prio(MID).req(LARGE).start(0),
        ],
    );
    assert_eq!(n, "node1");
    assert_eq!(t.candidates[1].criterion, "tie on every criterion: smallest node name");
    assert!(!t.candidates[1].selected);
    // upstream takes one of the fully tied candidates at random
    assert_eq!(t.random_tie, ["node1", "node2"]);
    let pods = [
        pod("p").prio(HIGH).req(LARGE),
        pod("p1").node("node1").prio(MID).req(LARGE).start(0),
        pod("p2").node("node2").prio(MID).req(LARGE).start(0),
    ];
    let w = world(objs(vec![node("node1", VERY_LARGE), node("node2", VERY_LARGE)], &pods));
    let ex = w.explain("p");
    let text = crate::explain::text::render(&ex);
    assert!(
        text.contains("  node1, node2 tie on every criterion of pickOneNodeForPreemption: upstream takes one of them at random (the first of a Go map's iteration); kschedtui shows node1, the smallest name\n"),
        "{text}"
    );
    assert_eq!(
        crate::explain::json::to_value(&ex)["postFilter"]["randomTie"],
        json!(["node1", "node2"])
    );
}

/// A tie broken by a criterion is not random: no `random_tie`.
#[test]
fn select_best_candidate_decided_by_a_criterion_has_no_random_tie() {
    let (n, t) = best(
        &["node1", "node2", "node3"],
        pod("p").prio(HIGH).req(LARGE),
        &[
            pod("p1").node("node1").prio(MID).req(LARGE).start(0),
            pod("p2").node("node2").prio(LOW).req(LARGE).start(0),
            pod("p3").node("node3").prio(MID).req(LARGE).start(0),
        ],
    );
    assert_eq!(n, "node2");
    assert!(t.random_tie.is_empty(), "{:?}", t.random_tie);
}

#[test]
fn select_best_candidate_min_highest_priority() {
    let (n, _) = best(
        &["node1", "node2", "node3"],
        pod("p").prio(HIGH).req(VERY_LARGE),
        &[
            pod("p1.1").node("node1").prio(MID).req(MEDIUM).start(0),
            pod("p1.2").node("node1").prio(MID).req(LARGE).start(0),
            pod("p2.1").node("node2").prio(MID).req(MEDIUM).start(0),
            pod("p2.2").node("node2").prio(LOW).req(MEDIUM).start(0),
            pod("p3.1").node("node3").prio(LOW).req(MEDIUM).start(0),
            pod("p3.2").node("node3").prio(LOW).req(MEDIUM).start(0),
        ],
    );
    assert_eq!(n, "node3");
}

#[test]
fn select_best_candidate_min_sum_of_priorities() {
    let (n, t) = best(
        &["node1", "node2", "node3"],
        pod("p").prio(HIGH).req(VERY_LARGE),
        &[
            pod("p1.1").node("node1").prio(MID).req(MEDIUM).start(0),
            pod("p1.2").node("node1").prio(MID).req(LARGE).start(0),
            pod("p2.1").node("node2").prio(MID).req(LARGE).start(0),
            pod("p2.2").node("node2").prio(LOW).req(MEDIUM).start(0),
            pod("p3.1").node("node3").prio(MID).req(MEDIUM).start(0),
            pod("p3.2").node("node3").prio(MID).req(MEDIUM).start(0),
        ],
    );
    assert_eq!(n, "node2");
    let c = t.candidates.iter().find(|c| c.node == "node2").expect("node2");
    assert_eq!(c.criterion, CRITERIA[2]);
}

#[test]
fn select_best_candidate_min_number_of_pods() {
    let (n, t) = best(
        &["node1", "node2", "node3"],
        pod("p").prio(HIGH).req(VERY_LARGE),
        &[
            pod("p1.1").node("node1").prio(MID).req(SMALL).start(0),
            pod("p1.2").node("node1").prio(NEG).req(SMALL).start(0),
            pod("p1.3").node("node1").prio(MID).req(SMALL).start(0),
            pod("p1.4").node("node1").prio(NEG).req(SMALL).start(0),
            pod("p2.1").node("node2").prio(MID).req(LARGE).start(0),
            pod("p2.2").node("node2").prio(NEG).req(MEDIUM).start(0),
            pod("p3.1").node("node3").prio(MID).req(MEDIUM).start(0),
            pod("p3.2").node("node3").prio(NEG).req(SMALL).start(0),
            pod("p3.3").node("node3").prio(LOW).req(SMALL).start(0),
        ],
    );
    assert_eq!(n, "node2");
    // The sum adds 2^31 per victim, so with equal highest priorities the node with fewer
    // victims already wins on the sum.
    let c = t.candidates.iter().find(|c| c.node == "node2").expect("node2");
    assert_eq!(c.criterion, CRITERIA[2]);
}

#[test]
fn select_best_candidate_sum_of_adjusted_priorities() {
    let (n, _) = best(
        &["node1", "node2", "node3"],
        pod("p").prio(HIGH).req(VERY_LARGE),
        &[
            pod("p1.1").node("node1").prio(MID).req(SMALL).start(0),
            pod("p1.2").node("node1").prio(NEG).req(SMALL).start(0),
            pod("p1.3").node("node1").prio(NEG).req(SMALL).start(0),
            pod("p2.1").node("node2").prio(MID).req(LARGE).start(0),
            pod("p2.2").node("node2").prio(NEG).req(MEDIUM).start(0),
            pod("p3.1").node("node3").prio(MID).req(MEDIUM).start(0),
            pod("p3.2").node("node3").prio(NEG).req(SMALL).start(0),
            pod("p3.3").node("node3").prio(LOW).req(SMALL).start(0),
        ],
    );
    assert_eq!(n, "node2");
}

#[test]
fn select_best_candidate_non_overlapping_criteria() {
    let (n, _) = best(
        &["node1", "node2", "node3", "node4"],
        pod("p").prio(VERY_HIGH).req(VERY_LARGE),
        &[
            pod("p1.1").node("node1").prio(MID).req(SMALL).start(0),
            pod("p1.2").node("node1").prio(LOW).req(SMALL).start(0),
            pod("p1.3").node("node1").prio(LOW).req(SMALL).start(0),
            pod("p2.1").node("node2").prio(HIGH).req(LARGE).start(0),
            pod("p3.1").node("node3").prio(MID).req(MEDIUM).start(0),
            pod("p3.2").node("node3").prio(LOW).req(SMALL).start(0),
            pod("p3.3").node("node3").prio(LOW).req(SMALL).start(0),
            pod("p3.4").node("node3").prio(LOW).req(MEDIUM).start(0),
            pod("p4.1").node("node4").prio(MID).req(MEDIUM).start(0),
            pod("p4.2").node("node4").prio(MID).req(SMALL).start(0),
            pod("p4.3").node("node4").prio(MID).req(SMALL).start(0),
            pod("p4.4").node("node4").prio(NEG).req(SMALL).start(0),
        ],
    );
    assert_eq!(n, "node1");
}

#[test]
fn select_best_candidate_latest_start_time_per_node() {
    let (n, t) = best(
        &["node1", "node2", "node3"],
        pod("p").prio(HIGH).req(VERY_LARGE),
        &[
            pod("p1.1").node("node1").prio(MID).req(MEDIUM).start(2),
            pod("p1.2").node("node1").prio(MID).req(MEDIUM).start(2),
            pod("p2.1").node("node2").prio(MID).req(MEDIUM).start(3),
            pod("p2.2").node("node2").prio(MID).req(MEDIUM).start(3),
            pod("p3.1").node("node3").prio(MID).req(MEDIUM).start(1),
            pod("p3.2").node("node3").prio(MID).req(MEDIUM).start(1),
        ],
    );
    assert_eq!(n, "node2");
    let c = t.candidates.iter().find(|c| c.node == "node2").expect("node2");
    assert_eq!(c.criterion, CRITERIA[4]);
    assert!(c.note.contains("1970-01-01T00:00:03Z"), "{}", c.note);
}

#[test]
fn select_best_candidate_latest_start_time_all_pods_different() {
    let (n, _) = best(
        &["node1", "node2", "node3"],
        pod("p").prio(HIGH).req(VERY_LARGE),
        &[
            pod("p1.1").node("node1").prio(MID).req(MEDIUM).start(4),
            pod("p1.2").node("node1").prio(MID).req(MEDIUM).start(2),
            pod("p2.1").node("node2").prio(MID).req(MEDIUM).start(5),
            pod("p2.2").node("node2").prio(MID).req(MEDIUM).start(1),
            pod("p3.1").node("node3").prio(MID).req(MEDIUM).start(3),
            pod("p3.2").node("node3").prio(MID).req(MEDIUM).start(6),
        ],
    );
    assert_eq!(n, "node3");
}

#[test]
fn select_best_candidate_start_time_of_highest_priority_victims_only() {
    let (n, _) = best(
        &["node1", "node2", "node3"],
        pod("p").prio(HIGH).req(VERY_LARGE),
        &[
            pod("p1.1").node("node1").prio(LOW).req(MEDIUM).start(4),
            pod("p1.2").node("node1").prio(MID).req(MEDIUM).start(2),
            pod("p2.1").node("node2").prio(MID).req(MEDIUM).start(6),
            pod("p2.2").node("node2").prio(LOW).req(MEDIUM).start(1),
            pod("p3.1").node("node3").prio(LOW).req(MEDIUM).start(3),
            pod("p3.2").node("node3").prio(MID).req(MEDIUM).start(5),
        ],
    );
    assert_eq!(n, "node2");
}

/// A victim without status.startTime counts as started in 2099, so it is the latest.
#[test]
fn select_best_candidate_missing_start_time_counts_as_2099() {
    let (n, t) = best(
        &["node1", "node2"],
        pod("p").prio(HIGH).req(VERY_LARGE),
        &[
            pod("p1").node("node1").prio(MID).req(VERY_LARGE).start(4_000_000_000),
            pod("p2").node("node2").prio(MID).req(VERY_LARGE),
        ],
    );
    assert_eq!(n, "node2");
    assert!(t.candidates[1].note.contains("2099"), "{}", t.candidates[1].note);
}

#[test]
fn select_best_candidate_fewest_pdb_violations_first() {
    let w = world(objs(
        vec![
            node("node1", VERY_LARGE),
            node("node2", VERY_LARGE),
            pdb("pdb", ("app", "foo"), None),
        ],
        &[
            pod("p").prio(HIGH).req(VERY_LARGE),
            pod("p1").node("node1").label("app", "foo").prio(LOW).req(SMALL),
            pod("p2").node("node2").prio(MID).req(VERY_LARGE),
        ],
    ));
    let (t, s) = w.post_filter("p", &[("node1", Code::Unschedulable), ("node2", Code::Unschedulable)]);
    assert!(s.is_success());
    // A PDB without status allows no disruption: p1 violates it.
    assert_eq!(t.nominated_node.as_deref(), Some("node2"));
    assert_eq!(t.candidates[0].pdb_violations, 1);
    assert_eq!(t.candidates[0].criterion, CRITERIA[0]);
    assert_eq!(
        t.candidates[0].note,
        "lost on fewest PDB violations: 1 where the best is 0"
    );
    // the PDB the victim set violates, by name; none for node2's
    assert_eq!(
        t.candidates[0].violated_pdbs,
        [crate::model::ObjectKey::new("default", "pdb")]
    );
    assert!(t.candidates[1].violated_pdbs.is_empty());
}

/// A victim set violates a PDB when it evicts more of the pods the PDB covers (not already
/// disrupted) than the PDB allows; other namespaces' PDBs and PDBs with room are not named.
#[test]
fn violated_pdbs_count_the_covered_victims_against_disruptions_allowed() {
    let w = world(objs(
        vec![
            node("node1", VERY_LARGE),
            pdb("one-left", ("app", "foo"), Some(pdb_status(1, &[]))),
            pdb("room", ("app", "bar"), Some(pdb_status(2, &[]))),
            pdb("disrupted", ("app", "baz"), Some(pdb_status(0, &["b1"]))),
        ],
        &[
            pod("f1").node("node1").label("app", "foo"),
            pod("f2").node("node1").label("app", "foo"),
            pod("b1").node("node1").label("app", "baz"),
            pod("r1").node("node1").label("app", "bar"),
        ],
    ));
    let c = &w.snap.cluster;
    let pods = |names: &[&str]| -> Vec<crate::model::Pod> {
        names
            .iter()
            .map(|n| (**c.pod(&crate::model::ObjectKey::new("default", *n)).expect("pod")).clone())
            .collect()
    };
    let key = |n: &str| crate::model::ObjectKey::new("default", n);
    let v = pods(&["f1", "f2", "b1", "r1"]);
    assert_eq!(violated_pdbs(v.iter(), &c.pdbs, false), [key("one-left")]);
    // one foo pod alone is within the budget
    let v = pods(&["f1", "b1"]);
    assert!(violated_pdbs(v.iter(), &c.pdbs, false).is_empty());
}

// ---------------------------------------------------------------------------------------------
// TestPodEligibleToPreemptOthers

#[test]
fn pod_eligible_to_preempt_others() {
    type Case = (&'static str, PodB, Vec<PodB>, Option<Code>, bool);
    let cases: Vec<Case> = vec![
        (
            "pod with nominated node whose status is UnschedulableAndUnresolvable",
            pod("p").prio(HIGH).nominated("node1"),
            vec![pod("p1").prio(LOW).node("node1").terminating().preempted()],
            Some(Code::UnschedulableAndUnresolvable),
            true,
        ),
        ("pod without nominated node", pod("p").prio(HIGH), vec![], None, true),
        (
            "pod with 'PreemptNever' preemption policy",
            pod("p").prio(HIGH).policy("Never"),
            vec![],
            None,
            false,
        ),
        (
            "preemption victim terminating, as the DisruptionTarget condition says",
            pod("p").prio(HIGH).nominated("node1"),
            vec![pod("p1").prio(LOW).node("node1").terminating().preempted()],
            Some(Code::Success),
            false,
        ),
        (
            "non-victim pods terminating",
            pod("p").prio(HIGH).nominated("node1"),
            vec![pod("p1").prio(LOW).node("node1").terminating()],
            Some(Code::Success),
            true,
        ),
        (
            "terminating victim of higher priority does not count",
            pod("p").prio(LOW).nominated("node1"),
            vec![pod("p1").prio(HIGH).node("node1").terminating().preempted()],
            Some(Code::Unschedulable),
            true,
        ),
    ];
    for (name, p, others, code, want) in cases {
        let mut all = vec![p.clone()];
        all.extend(others);
        let w = world(objs(vec![node("node1", VERY_LARGE)], &all));
        let got = w
            .plugin()
            .pod_eligible_to_preempt_others(&Ctx { snapshot: &w.snap }, &w.pi("p").pod, code)
            .is_ok();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn preemption_policy_comes_from_the_priority_class_when_the_pod_has_none() {
    let class = json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": "np"}, "value": 1000, "preemptionPolicy": "Never"});
    let w = world(objs(
        vec![node("node1", VERY_LARGE), class],
        &[
            pod("p").class("np").req(VERY_LARGE),
            pod("p1").node("node1").prio(LOW).req(SMALL),
        ],
    ));
    let (_, s) = w.post_filter("p", &[("node1", Code::Unschedulable)]);
    assert_eq!(
        s,
        Status::unschedulable("preemption: not eligible due to preemptionPolicy=Never.")
    );
}

/// The nominated node has no Filter status (it was not evaluated): up to 1.31 that reads as
/// Success and the terminating victim blocks preemption; from 1.32 it reads as
/// UnschedulableAndUnresolvable and the pod may preempt again.
#[test]
fn absent_nominated_node_status_by_version() {
    let mk = |v| {
        world_v(
            objs(
                vec![node("node1", VERY_LARGE), node("node2", VERY_LARGE)],
                &[
                    pod("p").prio(HIGH).req(LARGE).nominated("node1"),
                    pod("p1").prio(LOW).node("node1").terminating().preempted(),
                    pod("p2").prio(LOW).node("node2").req(LARGE),
                ],
            ),
            v,
        )
    };
    let st = [("node2", Code::Unschedulable)];
    for v in [V130, V131] {
        assert_eq!(
            mk(v).post_filter("p", &st).1,
            Status::unschedulable("preemption: not eligible due to a terminating pod on the nominated node.")
        );
    }
    let (t, s) = mk(Release::at(32)).post_filter("p", &st);
    assert!(s.is_success());
    assert_eq!(t.nominated_node.as_deref(), Some("node2"));
}

// ---------------------------------------------------------------------------------------------
// TestNodesWherePreemptionMightHelp (by status code, as upstream decides)

#[test]
fn nodes_where_preemption_might_help_cases() {
    use Code::{Unschedulable as U, UnschedulableAndUnresolvable as UU};
    type Case = (&'static str, Vec<(&'static str, Code)>, Vec<&'static str>);
    let cases: Vec<Case> = vec![
        (
            "no node should be attempted",
            vec![("node1", UU), ("node2", UU), ("node3", UU), ("node4", UU)],
            vec![],
        ),
        (
            "anti-affinity (Unschedulable) is tried, absent node4 is not",
            vec![("node1", U), ("node2", UU), ("node3", UU)],
            vec!["node1"],
        ),
        (
            "mix of failed predicates",
            vec![("node1", UU), ("node2", U)],
            vec!["node2"],
        ),
        (
            "topology spread (Unschedulable) is tried",
            vec![("node1", U), ("node2", UU), ("node3", U)],
            vec!["node1", "node3"],
        ),
        (
            "UnschedulableAndUnresolvable is skipped, Unschedulable is tried",
            vec![("node2", UU), ("node3", U), ("node4", UU)],
            vec!["node3"],
        ),
    ];
    let w = world(
        ["node1", "node2", "node3", "node4"]
            .iter()
            .map(|n| node(n, VERY_LARGE))
            .collect(),
    );
    for (name, st, want) in cases {
        let m: BTreeMap<String, Status> = st
            .iter()
            .map(|(n, c)| ((*n).to_string(), Status::new(*c, ["x"])))
            .collect();
        let (pot, unres) = nodes_where_preemption_might_help(&w.snap.nodes, &m);
        let got: Vec<&str> = pot.iter().map(|n| n.name()).collect();
        assert_eq!(got, want, "{name}");
        assert_eq!(unres.len() + got.len(), 4, "{name}");
        assert!(unres.values().all(|s| s.reasons == vec![ERR_NOT_HELPFUL]), "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// TestPreempt, through the whole cycle

fn preempt_world(policy: Option<&'static str>) -> World {
    let mut p = pod("p").prio(HIGH).req(VERY_LARGE);
    if let Some(pol) = policy {
        p = p.policy(pol);
    }
    world(objs(
        vec![
            node("node1", VERY_LARGE),
            node("node2", VERY_LARGE),
            node("node3", VERY_LARGE),
        ],
        &[
            p,
            pod("p1.1").node("node1").prio(LOW).req(SMALL),
            pod("p1.2").node("node1").prio(LOW).req(SMALL),
            pod("p2.1").node("node2").prio(HIGH).req(LARGE),
            pod("p3.1").node("node3").prio(MID).req(MEDIUM),
        ],
    ))
}

#[test]
fn preempt_basic_logic_and_nil_policy() {
    for policy in [Some("PreemptLowerPriority"), None] {
        let ex = preempt_world(policy).explain("p");
        let pf = ex.post_filter.as_ref().expect("postFilter");
        assert_eq!(pf.code, Some(Code::Success));
        assert_eq!(pf.nominated_node.as_deref(), Some("node1"));
        let mut v = names(&pf.victims);
        v.sort();
        assert_eq!(v, vec!["p1.1", "p1.2"]);
        assert_eq!(pf.message, "");
        // Successful preemption adds nothing to the FitError message.
        assert_eq!(
            ex.message.as_deref(),
            Some("0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory.")
        );
    }
}

#[test]
fn preempt_not_when_the_pod_never_preempts() {
    let ex = preempt_world(Some("Never")).explain("p");
    let pf = ex.post_filter.as_ref().expect("postFilter");
    assert_eq!(pf.code, Some(Code::Unschedulable));
    assert_eq!(pf.nominated_node, None);
    assert_eq!(pf.message, "preemption: not eligible due to preemptionPolicy=Never.");
    assert_eq!(
        ex.message.as_deref(),
        Some(
            "0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory. preemption: not eligible due to preemptionPolicy=Never."
        )
    );
}

/// The FitError of a failed preemption follows the filter one; nodes Filter marked
/// UnschedulableAndUnresolvable are "not helpful" and no dry run happens.
#[test]
fn failed_preemption_message_through_the_cycle() {
    let mut o = objs(
        vec![
            node("node1", NODE_RES),
            node_with("node2", VERY_LARGE, 32, &[("zone", "b")]),
        ],
        &[pod("p1").node("node1").prio(LOW)],
    );
    let mut q = pod("q").prio(HIGH).req(LARGE).obj();
    q["spec"]["nodeSelector"] = json!({"zone": "a"});
    o.push(q);
    let ex = world(o).explain("q");
    assert_eq!(
        ex.message.as_deref(),
        Some(
            "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
        )
    );
    let pf = ex.post_filter.expect("postFilter");
    assert_eq!(pf.code, Some(Code::Unschedulable));
    assert_eq!(pf.candidates_wanted, None);
}

#[test]
fn failed_preemption_lists_dry_run_reasons() {
    let w = world(objs(
        vec![node("node1", NODE_RES), one_pod_node("node2")],
        &[
            pod("p").prio(HIGH).req(LARGE),
            pod("p1").node("node1").prio(LOW),
            pod("p2").node("node2").prio(HIGH),
        ],
    ));
    let ex = w.explain("p");
    assert_eq!(
        ex.message.as_deref(),
        Some(
            "0/2 nodes are available: 1 Insufficient memory, 1 Too many pods, 2 Insufficient cpu. preemption: 0/2 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod."
        )
    );
}

/// A pod nominated by an earlier preemption whose victims are still terminating waits.
#[test]
fn terminating_victims_on_the_nominated_node_through_the_cycle() {
    let w = world(objs(
        vec![node("node1", VERY_LARGE)],
        &[
            pod("p").prio(HIGH).req(VERY_LARGE).nominated("node1"),
            pod("v").node("node1").prio(LOW).req(SMALL).terminating().preempted(),
        ],
    ));
    let ex = w.explain("p");
    assert_eq!(
        ex.message.as_deref(),
        Some(
            "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory. preemption: not eligible due to a terminating pod on the nominated node."
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Args, candidate count, helpers

#[test]
fn calculate_num_candidates_table() {
    // (nodes, percentage, absolute, want)
    for (nodes, pct, abs, want) in [
        (10, 10, 100, 10),
        (1000, 10, 100, 100),
        (5000, 10, 100, 500),
        (5, 40, 1, 2),
        (5, 40, 2, 2),
        (5, 0, 3, 3),
        (3, 100, 0, 3),
        (0, 10, 100, 0),
    ] {
        assert_eq!(
            args(pct, abs).calculate_num_candidates(nodes),
            want,
            "{nodes} {pct} {abs}"
        );
    }
}

#[test]
fn args_decode_default_and_validate() {
    let slots = register(&Value::Null, &V130.into()).expect("defaults");
    assert!(slots.post_filter.is_some() && slots.pre_enqueue.is_none());
    let slots = register(&Value::Null, &Release::at(32).into()).expect("defaults");
    assert!(slots.pre_enqueue.is_some());
    assert!(
        register(
            &json!({"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1}),
            &V130.into()
        )
        .is_ok()
    );
    let err = |v: Value| register(&v, &V130.into()).err().expect("error");
    assert_eq!(
        err(json!({"minCandidateNodesPercentage": 101})),
        "minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]"
    );
    assert_eq!(
        err(json!({"minCandidateNodesAbsolute": -1})),
        "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"
    );
    assert_eq!(
        err(json!({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0})),
        "[minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute, minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage]"
    );
    assert!(err(json!({"minCandidates": 1})).contains("minCandidates"));
}

#[test]
fn aggregate_errors_as_upstream() {
    assert_eq!(aggregate_errors(&["a".into()]), "a");
    assert_eq!(aggregate_errors(&["a".into(), "a".into()]), "a");
    assert_eq!(aggregate_errors(&["a".into(), "b".into()]), "[a, b]");
}

#[test]
fn filter_pods_with_pdb_violation_keeps_order_and_skips_other_namespaces_and_empty_selectors() {
    let mut other_ns = pdb("other", ("app", "foo"), Some(pdb_status(0, &[])));
    other_ns["metadata"]["namespace"] = json!("kube-system");
    let mut empty = pdb("empty", ("app", "foo"), Some(pdb_status(0, &[])));
    empty["spec"]["selector"] = json!({});
    let w = world(objs(
        vec![
            node("node1", VERY_LARGE),
            other_ns,
            empty,
            pdb("one", ("app", "foo"), Some(pdb_status(1, &[]))),
        ],
        &[
            pod("a").node("node1").label("app", "foo"),
            pod("b").node("node1"),
            pod("c").node("node1").label("app", "foo"),
            pod("d").node("node1").label("app", "bar"),
        ],
    ));
    let pods: Vec<Arc<PodInfo>> = ["d", "c", "b", "a"].iter().map(|n| w.pi(n)).collect();
    let (v, nv) = filter_pods_with_pdb_violation(&pods, &w.snap.cluster.pdbs, false);
    let n = |x: &[Arc<PodInfo>]| x.iter().map(|p| p.pod.key.name.clone()).collect::<Vec<_>>();
    assert_eq!(n(&v), vec!["a"]);
    assert_eq!(n(&nv), vec!["d", "c", "b"]);
    // kubernetes#141785 (1.38): the empty selector covers the four pods, unlabeled b too, and
    // none of its budget of 0 is left for them.
    let (v, nv) = filter_pods_with_pdb_violation(&pods, &w.snap.cluster.pdbs, true);
    assert_eq!(n(&v), vec!["d", "c", "b", "a"]);
    assert!(nv.is_empty());
}

#[test]
fn more_important_pod_orders_by_priority_then_start() {
    let w = world(objs(
        vec![node("node1", VERY_LARGE)],
        &[
            pod("a").node("node1").prio(MID).start(10),
            pod("b").node("node1").prio(MID).start(5),
            pod("c").node("node1").prio(HIGH),
            pod("d").node("node1").prio(MID),
        ],
    ));
    let p = |n: &str| w.pi(n).pod.clone();
    assert!(more_important_pod(&p("c"), &p("a")));
    assert!(more_important_pod(&p("b"), &p("a")));
    assert!(more_important_pod(&p("a"), &p("d")), "no startTime counts as 2099");
    assert!(!more_important_pod(&p("d"), &p("d")));
    assert_eq!(pod_start_time_nanos(&p("d")), 4_070_908_800 * 1_000_000_000);
}

/// Criterion 4 decides only when the sums tie, which needs a victim of priority -2^31 (it adds 0
/// to the shifted sum).
#[test]
fn pick_one_node_fewest_victims_and_final_tie() {
    let w = world(objs(
        vec![node("a", VERY_LARGE)],
        &[
            pod("x1").node("a").prio(MID).start(1),
            pod("x2").node("a").prio(i32::MIN).start(1),
            pod("y1").node("a").prio(MID).start(1),
            pod("z1").node("a").prio(MID).start(1),
        ],
    ));
    let c = |name: &str, v: &[&str]| CandidateNode {
        name: name.into(),
        victims: v.iter().map(|n| w.pi(n)).collect(),
        pdb_violations: 0,
    };
    let pick = pick_one_node_for_preemption(&[c("n1", &["x1", "x2"]), c("n2", &["y1"])]);
    assert_eq!(pick.index, 1);
    assert_eq!(pick.criteria, vec![CRITERIA[3].to_string(), CRITERIA[3].to_string()]);
    assert_eq!(pick.notes[0], "lost on fewest victims: 2 where the best is 1");
    // Equal on everything: the smallest name, whatever the order of the candidates.
    let pick = pick_one_node_for_preemption(&[c("n3", &["z1"]), c("n2", &["y1"])]);
    assert_eq!(pick.index, 1);
    assert_eq!(pick.notes[1], "selected: tied on every criterion, smallest node name");
    let pick = pick_one_node_for_preemption(&[c("only", &["z1"])]);
    assert_eq!(
        (pick.index, pick.notes[0].as_str()),
        (0, "selected: the only candidate")
    );
}

// ---------------------------------------------------------------------------------------------
// RunPreFilterPlugins as the runner reproduces it, as far as PostFilter depends on it.

/// A PreFilter plugin returning a fixed node set and status.
struct FakePreFilter {
    name: &'static str,
    nodes: Option<&'static [&'static str]>,
    status: Status,
}

impl Plugin for FakePreFilter {
    fn name(&self) -> &'static str {
        self.name
    }
}

impl PreFilterPlugin for FakePreFilter {
    fn pre_filter(
        &self,
        _: &Ctx<'_>,
        _: &mut CycleState,
        _: &PodInfo,
    ) -> (Option<std::collections::BTreeSet<String>>, Status) {
        (
            self.nodes.map(|n| n.iter().map(|s| (*s).to_string()).collect()),
            self.status.clone(),
        )
    }
}

/// An Unschedulable PreFilter status lets the other PreFilter plugins run, then marks every node
/// with it; preemption then dry-runs every node (upstream #119770).
#[test]
fn prefilter_unschedulable_runs_the_remaining_prefilters_then_preemption() {
    let mut w = world(objs(
        vec![node("node1", VERY_LARGE), node("node2", VERY_LARGE)],
        &[pod("p").prio(HIGH).req(SMALL)],
    ));
    let n = w.fw.pre_filter.len();
    w.fw.pre_filter.insert(
        0,
        Arc::new(FakePreFilter {
            name: "Gang",
            nodes: None,
            status: Status::unschedulable("gang incomplete"),
        }),
    );
    let ex = w.explain("p");
    assert_eq!(ex.pre_filter.len(), n + 1, "the other PreFilter plugins still ran");
    assert_eq!(
        ex.message.as_deref(),
        Some(
            "0/2 nodes are available: gang incomplete. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
        )
    );
    assert!(
        ex.filter
            .iter()
            .all(|f| f.failure.as_ref().is_some_and(|x| x.plugin == "Gang"))
    );
}

/// Plugins whose node sets do not intersect are named in execution order.
#[test]
fn prefilter_empty_intersection_names_plugins_in_execution_order() {
    let mut w = world(objs(
        vec![node("a", VERY_LARGE), node("b", VERY_LARGE)],
        &[pod("p").prio(HIGH).req(SMALL)],
    ));
    w.fw.pre_filter.insert(
        0,
        Arc::new(FakePreFilter {
            name: "Zeta",
            nodes: Some(&["a"]),
            status: Status::success(),
        }),
    );
    w.fw.pre_filter.insert(
        1,
        Arc::new(FakePreFilter {
            name: "Alpha",
            nodes: Some(&["b"]),
            status: Status::success(),
        }),
    );
    let ex = w.explain("p");
    assert_eq!(
        ex.message.as_deref(),
        Some(
            "0/2 nodes are available: node(s) didn't satisfy plugin(s) [Zeta Alpha] simultaneously. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
        )
    );
}
