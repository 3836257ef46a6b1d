//! Watch events applied to the cluster shown object by object give the cluster, the usage
//! per node and the explanations a whole build from the store gives.

use super::super::*;
use crate::model::event::{ClusterEvent, ClusterState, Item};
use crate::model::{Interner, Object};
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use proptest::prelude::*;

/// The nodes the events name: two of the fixture's, three it does not have.
const NODES: [&str; 5] = ["node-a", "node-b", "node-x", "node-y", "node-z"];

/// The pods the events name: four of the fixture's, two it does not have.
const PODS: [(&str, &str); 6] = [
    ("default", "api-1"),
    ("default", "batch-1"),
    ("default", "p1"),
    ("data", "p2"),
    ("data", "db-0"),
    ("default", "web-2"),
];

/// The app attached to the fixture's objects as a live cluster.
fn attached(state: ClusterState) -> App {
    super::live_app_with(state, crate::model::write::WriteMode::Enabled)
}

/// The fixture's objects, as the live store the tests' app attached to holds them.
fn fixture() -> ClusterState {
    super::live_app(crate::model::write::WriteMode::Enabled)
        .live
        .expect("live")
        .state
}

fn meta(ns: &str, name: &str, rv: u64) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        namespace: (!ns.is_empty()).then(|| ns.into()),
        resource_version: Some(rv.to_string()),
        uid: Some(format!("uid-{ns}-{name}")),
        labels: Some([("app".to_string(), name.to_string())].into()),
        ..Default::default()
    }
}

/// A pod or node as a live source keeps it (read into the model), or typed.
fn item(obj: Object, typed: bool) -> Item {
    if typed {
        return Item::from(obj);
    }
    let again = obj.clone();
    Item::read(obj, None, None, &mut Interner::default(), || again)
}

/// One watch event, or a step of the TUI.
#[derive(Clone, Debug)]
enum Op {
    /// A pod added or modified: bound to `NODES[node]` or pending, requesting `cpu`
    /// milli-cores, finished or not, priorityClassName none, `high` or one the cluster lacks.
    Pod {
        which: usize,
        node: Option<usize>,
        cpu: u32,
        finished: bool,
        class: u8,
        typed: bool,
    },
    DeletePod(usize),
    /// A node added or modified, with `cpu` cores allocatable.
    Node {
        which: usize,
        cpu: u32,
        typed: bool,
    },
    DeleteNode(usize),
    /// A FailedScheduling event about `PODS[pod]`, last seen at second `at`.
    Event {
        which: usize,
        pod: usize,
        at: u8,
    },
    DeleteEvent(usize),
    /// The PriorityClass `high` given another value (every pod's priority may change: a whole
    /// build).
    Class(i32),
    /// A namespace's labels changed.
    Namespace(bool),
    Tick,
    /// `F`: the view frozen, or following again.
    Follow,
    /// The pod list's order, filters or search changed.
    List(ListOp),
}

/// A change of the pod list's state.
#[derive(Clone, Debug)]
enum ListOp {
    /// Sorted by `SortKey::ALL[i]`.
    Sort(usize),
    Reverse,
    Namespace(Option<&'static str>),
    PendingOnly,
    Query(&'static str),
    /// Kept: the pods whose reason column says `on node` (or every pod again).
    Reason,
}

fn list_op() -> impl Strategy<Value = ListOp> {
    prop_oneof![
        3 => (0..pod_list::SortKey::ALL.len()).prop_map(ListOp::Sort),
        1 => Just(ListOp::Reverse),
        1 => proptest::sample::select(vec![None, Some("default"), Some("data")]).prop_map(ListOp::Namespace),
        1 => Just(ListOp::PendingOnly),
        2 => proptest::sample::select(vec!["", "1", "p", "-f dfl/b", "data/", "-l app=p1", "B"]).prop_map(ListOp::Query),
        1 => Just(ListOp::Reason),
    ]
}

/// Changes the pod list's state as its keys would, and refreshes the rows.
fn list(a: &mut App, op: &ListOp) {
    let p = &mut a.pods;
    match *op {
        ListOp::Sort(i) => p.sort = pod_list::SortKey::ALL[i],
        ListOp::Reverse => p.reverse = !p.reverse,
        ListOp::Namespace(ns) => p.namespace = ns.map(String::from),
        ListOp::PendingOnly => p.pending_only = !p.pending_only,
        ListOp::Query(q) => p.query = q.to_string(),
        ListOp::Reason => {
            p.reason = match p.reason {
                Some(_) => None,
                None => Some(pod_list::ReasonFilter::Text("on node".into())),
            }
        }
    }
    a.refresh_rows();
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..PODS.len(), proptest::option::of(0..NODES.len()), 1..3000u32, proptest::bool::weighted(0.2), 0..3u8, any::<bool>())
            .prop_map(|(which, node, cpu, finished, class, typed)| Op::Pod { which, node, cpu, finished, class, typed }),
        2 => (0..PODS.len()).prop_map(Op::DeletePod),
        2 => (0..NODES.len(), 1..8u32, any::<bool>()).prop_map(|(which, cpu, typed)| Op::Node { which, cpu, typed }),
        2 => (0..NODES.len()).prop_map(Op::DeleteNode),
        2 => (0..4usize, 0..PODS.len(), 0..4u8).prop_map(|(which, pod, at)| Op::Event { which, pod, at }),
        1 => (0..4usize).prop_map(Op::DeleteEvent),
        1 => (0..2000i32).prop_map(Op::Class),
        1 => any::<bool>().prop_map(Op::Namespace),
        3 => Just(Op::Tick),
        1 => Just(Op::Follow),
        3 => list_op().prop_map(Op::List),
    ]
}

fn pod(which: usize, node: Option<usize>, cpu: u32, finished: bool, class: u8, rv: u64) -> Object {
    let (ns, name) = PODS[which];
    Object::Pod(Box::new(core::Pod {
        metadata: ObjectMeta {
            creation_timestamp: Some(Time(
                k8s_openapi::jiff::Timestamp::from_second(1_714_550_400 + i64::try_from(which).unwrap_or(0))
                    .expect("time"),
            )),
            ..meta(ns, name, rv)
        },
        spec: Some(core::PodSpec {
            node_name: node.map(|n| NODES[n].to_string()),
            priority_class_name: match class {
                0 => None,
                1 => Some("high".into()),
                _ => Some("missing".into()),
            },
            containers: vec![core::Container {
                name: "c".into(),
                image: Some("nginx:1.27".into()),
                resources: Some(core::ResourceRequirements {
                    requests: Some(
                        [
                            ("cpu".to_string(), Quantity(format!("{cpu}m"))),
                            ("memory".to_string(), Quantity("256Mi".into())),
                        ]
                        .into(),
                    ),
                    ..Default::default()
                }),
                ..Default::default()
            }],
            ..Default::default()
        }),
        status: Some(core::PodStatus {
            phase: Some(
                if finished {
                    "Succeeded"
                } else if node.is_some() {
                    "Running"
                } else {
                    "Pending"
                }
                .into(),
            ),
            ..Default::default()
        }),
    }))
}

fn node(which: usize, cpu: u32, rv: u64) -> Object {
    let name = NODES[which];
    Object::Node(Box::new(core::Node {
        metadata: ObjectMeta {
            labels: Some(
                [
                    ("kubernetes.io/hostname".to_string(), name.to_string()),
                    ("topology.kubernetes.io/zone".to_string(), format!("zone-{}", which % 2)),
                ]
                .into(),
            ),
            ..meta("", name, rv)
        },
        status: Some(core::NodeStatus {
            allocatable: Some(
                [
                    ("cpu".to_string(), Quantity(cpu.to_string())),
                    ("memory".to_string(), Quantity("8Gi".into())),
                    ("pods".to_string(), Quantity("110".into())),
                ]
                .into(),
            ),
            ..Default::default()
        }),
        ..Default::default()
    }))
}

fn event(which: usize, pod: usize, at: u8, rv: u64) -> Object {
    let (ns, name) = PODS[pod];
    Object::Event(Box::new(core::Event {
        metadata: meta(ns, &format!("ev-{which}"), rv),
        involved_object: core::ObjectReference {
            kind: Some("Pod".into()),
            namespace: Some(ns.into()),
            name: Some(name.into()),
            ..Default::default()
        },
        reason: Some("FailedScheduling".into()),
        message: Some(format!("0/{at} nodes are available")),
        last_timestamp: Some(Time(
            k8s_openapi::jiff::Timestamp::from_second(1_714_560_000 + i64::from(at)).expect("time"),
        )),
        ..Default::default()
    }))
}

/// The watch event of `op` (None for a step of the TUI).
fn watch_event(op: &Op, rv: u64) -> Option<ClusterEvent> {
    let applied = |i: Item| Some(ClusterEvent::Applied(Box::new(i)));
    let deleted = |i: Item| Some(ClusterEvent::Deleted(Box::new(i)));
    match *op {
        Op::Pod {
            which,
            node,
            cpu,
            finished,
            class,
            typed,
        } => applied(item(pod(which, node, cpu, finished, class, rv), typed)),
        Op::DeletePod(which) => deleted(item(pod(which, None, 1, false, 0, rv), true)),
        Op::Node { which, cpu, typed } => applied(item(node(which, cpu, rv), typed)),
        Op::DeleteNode(which) => deleted(item(node(which, 1, rv), false)),
        Op::Event { which, pod, at } => applied(Item::from(event(which, pod, at, rv))),
        Op::DeleteEvent(which) => deleted(Item::from(event(which, 0, 0, rv))),
        Op::Class(value) => applied(Item::from(Object::PriorityClass(Box::new(
            k8s_openapi::api::scheduling::v1::PriorityClass {
                metadata: meta("", "high", rv),
                value: Some(value),
                ..Default::default()
            },
        )))),
        Op::Namespace(labelled) => applied(Item::from(Object::Namespace(Box::new(core::Namespace {
            metadata: ObjectMeta {
                labels: labelled.then(|| [("team".to_string(), "data".to_string())].into()),
                ..meta("", "data", rv)
            },
            ..Default::default()
        })))),
        Op::Tick | Op::Follow | Op::List(_) => None,
    }
}

/// The explanations of the pending pods, as JSON, by pod.
fn explained(a: &App) -> BTreeMap<ObjectKey, Result<serde_json::Value, String>> {
    a.cluster
        .pending_pods()
        .iter()
        .filter_map(|p| {
            let ex = a.explanations.get(&p.key)?;
            Some((
                p.key.clone(),
                ex.as_ref()
                    .map(|e| crate::explain::json::to_value(e))
                    .map_err(Clone::clone),
            ))
        })
        .collect()
}

/// Applies `ops` to a live app attached to the fixture, follows the cluster again and ticks;
/// returns the app.
fn run_ops(ops: &[Op]) -> App {
    let mut a = attached(fixture());
    for (i, op) in ops.iter().enumerate() {
        let now = 1_714_600_000 + i64::try_from(i).unwrap_or(0);
        match watch_event(op, 3000 + u64::try_from(i).unwrap_or(0)) {
            Some(ev) => {
                update_sync(&mut a, Action::Cluster(Box::new(ev)));
            }
            None if matches!(op, Op::Tick) => {
                update_sync(&mut a, Action::Tick { now });
            }
            None if matches!(op, Op::List(_)) => {
                if let Op::List(l) = op {
                    list(&mut a, l);
                }
            }
            None => {
                update_sync(&mut a, Action::ToggleFollow);
            }
        }
    }
    if !a.live.as_ref().is_some_and(|l| l.follow) {
        update_sync(&mut a, Action::ToggleFollow);
    }
    update_sync(&mut a, Action::Tick { now: 1_714_700_000 });
    // the reasons that arrived since are applied to the rows, as the next tick does
    a.refresh_rows();
    a
}

/// `shown` and `whole` are the same text; else the first line that differs, with the lines
/// before it.
fn same(what: &str, shown: &str, whole: &str) -> Result<(), TestCaseError> {
    let (a, b): (Vec<&str>, Vec<&str>) = (shown.lines().collect(), whole.lines().collect());
    if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
        let from = i.saturating_sub(12);
        return Err(TestCaseError::fail(format!(
            "{what}: line {i} differs\n{}\nshown: {:?}\nwhole: {:?}",
            b[from..i.min(b.len())].join("\n"),
            a.get(i),
            b.get(i)
        )));
    }
    Ok(())
}

/// The pod list's rows kept by `a` are those computed afresh from its cluster, and its
/// pending pods those of `whole` (a whole build of its store), in queue order.
fn same_rows(a: &App, whole: &Cluster) -> Result<(), TestCaseError> {
    prop_assert!(a.pod_rows.is_current(a));
    let mut fresh = pod_list::PodRows::default();
    fresh.refresh(a, true);
    same("pod rows", &a.pod_rows.digest(a), &fresh.digest(a))?;
    prop_assert!(a.pending.is_current(&a.cluster));
    let kept: Vec<String> = a.pending.pods().iter().map(|p| p.key.to_string()).collect();
    let want: Vec<String> = whole.pending_pods().iter().map(|p| p.key.to_string()).collect();
    prop_assert_eq!(kept, want);
    Ok(())
}

/// What `a` shows equals what a whole build of its store gives: the cluster (its warnings
/// aside: they stay those of the last whole build), the usage per node, the pods bound to
/// nodes the cluster lacks, the pod list's rows and pending pods, and the explanations of the
/// pending pods.
fn same_as_whole(a: &App) -> Result<(), TestCaseError> {
    let l = a.live.as_ref().expect("live");
    let Ok(mut whole) = l.state.to_cluster() else {
        // the store holds an object the model refuses: nothing is shown of it
        return Ok(());
    };
    let mut shown = (*a.cluster).clone();
    whole.warnings.clear();
    shown.warnings.clear();
    same("cluster", &format!("{shown:#?}"), &format!("{whole:#?}"))?;
    let (usage, unplaced) = analysis::node_usage_and_unplaced(&whole, &a.features);
    same("usage", &format!("{:#?}", a.usage), &format!("{usage:#?}"))?;
    same("unplaced", &format!("{:#?}", l.unplaced), &format!("{unplaced:#?}"))?;
    same_rows(a, &whole)?;
    let fresh = attached(l.state.clone());
    prop_assert_eq!(explained(a), explained(&fresh));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    /// Any sequence of pod, node, event, namespace and PriorityClass events, with ticks and
    /// frozen views between them, leaves the app where a whole build of the store does.
    #[test]
    fn events_applied_one_by_one_equal_a_whole_build(ops in proptest::collection::vec(op(), 1..40)) {
        let a = run_ops(&ops);
        same_as_whole(&a)?;
    }
}

#[test]
fn a_pod_event_changes_that_pod_only_and_its_node_usage() {
    let mut a = attached(fixture());
    let before = a.cluster.clone();
    let untouched = |c: &Cluster| c.pod(&ObjectKey::new("data", "db-0")).cloned().expect("db-0");
    let db0 = untouched(&before);
    drop(before);
    // batch-1 bound to node-a by the cluster's scheduler
    update_sync(
        &mut a,
        Action::Cluster(Box::new(ClusterEvent::Applied(Box::new(item(
            pod(1, Some(0), 1500, false, 0, 3000),
            false,
        ))))),
    );
    update_sync(&mut a, Action::Tick { now: 1 });
    // applied to the cluster shown: the other pods are the same objects, not built again
    assert!(Arc::ptr_eq(&untouched(&a.cluster), &db0));
    let l = a.live.as_ref().expect("live");
    assert!(l.unapplied.is_empty());
    assert_eq!(
        a.pod(&ObjectKey::new("default", "batch-1"))
            .expect("batch-1")
            .node_name
            .as_deref(),
        Some("node-a")
    );
    // node-a: api-1 (3 cpus) and batch-1 (1500m)
    let u = &a.usage["node-a"];
    assert_eq!(u.requested.milli_cpu, 4500);
    assert_eq!(
        u.pods_iter().map(|p| p.key.to_string()).collect::<Vec<_>>(),
        ["default/api-1", "default/batch-1"]
    );
    // a pod bound to a node the cluster lacks is counted there when the node comes
    update_sync(
        &mut a,
        Action::Cluster(Box::new(ClusterEvent::Applied(Box::new(item(
            pod(2, Some(2), 700, false, 0, 3001),
            false,
        ))))),
    );
    update_sync(&mut a, Action::Tick { now: 2 });
    assert!(!a.usage.contains_key("node-x"));
    assert_eq!(
        a.live.as_ref().expect("live").unplaced["node-x"]
            .iter()
            .map(|p| p.key.to_string())
            .collect::<Vec<_>>(),
        ["default/p1"]
    );
    update_sync(
        &mut a,
        Action::Cluster(Box::new(ClusterEvent::Applied(Box::new(item(node(2, 4, 3002), false))))),
    );
    update_sync(&mut a, Action::Tick { now: 3 });
    assert_eq!(a.usage["node-x"].requested.milli_cpu, 700);
    assert!(a.live.as_ref().expect("live").unplaced.is_empty());
    same_as_whole(&a).expect("same as a whole build");
}

#[test]
fn a_priority_class_makes_the_next_rebuild_whole_then_events_are_noted_one_by_one() {
    let mut a = attached(fixture());
    let noted = |a: &App| {
        let u = &a.live.as_ref().expect("live").unapplied;
        (u.is_whole(), u.len())
    };
    let ev = watch_event(&Op::Class(5), 3000).expect("event");
    update_sync(&mut a, Action::Cluster(Box::new(ev)));
    assert_eq!(noted(&a), (true, 0));
    update_sync(&mut a, Action::Tick { now: 1 });
    assert_eq!(noted(&a), (false, 0));
    assert_eq!(a.pod(&ObjectKey::new("default", "web-2")).expect("web-2").priority, 5);
    same_as_whole(&a).expect("same as a whole build");
    for (i, op) in [Op::DeleteNode(1), Op::DeletePod(0), Op::DeletePod(0)]
        .iter()
        .enumerate()
    {
        let ev = watch_event(op, 3001 + i as u64).expect("event");
        update_sync(&mut a, Action::Cluster(Box::new(ev)));
    }
    // one key per object changed
    assert_eq!(noted(&a), (false, 2));
    update_sync(&mut a, Action::Tick { now: 2 });
    assert_eq!(noted(&a), (false, 0));
    assert!(a.pod(&ObjectKey::new("default", "api-1")).is_none());
    assert!(a.cluster.node("node-b").is_none());
    // db-0 is bound to node-b, gone: counted nowhere
    assert!(!a.usage.contains_key("node-b"));
    assert_eq!(
        a.live.as_ref().expect("live").unplaced["node-b"]
            .iter()
            .map(|p| p.key.to_string())
            .collect::<Vec<_>>(),
        ["data/db-0"]
    );
    same_as_whole(&a).expect("same as a whole build");
}

/// The pod list's rows as shown (keys) and the pending pods in queue order.
fn rows_and_queue(a: &App) -> (Vec<String>, Vec<String>) {
    (
        pod_list::rows(a).iter().map(|r| r.pod.key.to_string()).collect(),
        a.pending_pods().iter().map(|p| p.key.to_string()).collect(),
    )
}

#[test]
fn pod_events_move_their_rows_and_queue_places_without_a_whole_build() {
    let mut a = attached(fixture());
    let builds = |a: &App| (a.pod_rows.whole_builds(), a.pending.whole_builds());
    let at_start = builds(&a);
    let tick = |a: &mut App, op: Op, now: i64| {
        let ev = watch_event(&op, 3000 + u64::try_from(now).unwrap_or(0)).expect("event");
        update_sync(a, Action::Cluster(Box::new(ev)));
        update_sync(a, Action::Tick { now });
    };
    assert_eq!(
        rows_and_queue(&a),
        (
            vec![
                "default/web-2",
                "data/etl-1",
                "default/batch-1",
                "default/gated-1",
                "data/db-0",
                "default/api-1"
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            vec!["default/web-2", "data/etl-1", "default/batch-1", "default/gated-1"]
                .into_iter()
                .map(String::from)
                .collect()
        )
    );
    // batch-1 given the class `high` (1000) and created at 08:00:01: first in the queue,
    // before web-2 (1000, 09:50)
    tick(
        &mut a,
        Op::Pod {
            which: 1,
            node: None,
            cpu: 100,
            finished: false,
            class: 1,
            typed: false,
        },
        1,
    );
    let (rows, queue) = rows_and_queue(&a);
    assert_eq!(
        queue,
        ["default/batch-1", "default/web-2", "data/etl-1", "default/gated-1"]
    );
    assert_eq!(rows[..4], queue[..]);
    // web-2 bound: a bound row, after db-0 and api-1 (bound pods in key order)
    tick(
        &mut a,
        Op::Pod {
            which: 5,
            node: Some(0),
            cpu: 100,
            finished: false,
            class: 1,
            typed: false,
        },
        2,
    );
    assert_eq!(
        rows_and_queue(&a),
        (
            vec![
                "default/batch-1",
                "data/etl-1",
                "default/gated-1",
                "data/db-0",
                "default/api-1",
                "default/web-2"
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            vec!["default/batch-1", "data/etl-1", "default/gated-1"]
                .into_iter()
                .map(String::from)
                .collect()
        )
    );
    // a new pending pod p1 (priority 0, created 08:00:02: before etl-1, 09:00), and api-1 gone
    tick(
        &mut a,
        Op::Pod {
            which: 2,
            node: None,
            cpu: 100,
            finished: false,
            class: 0,
            typed: false,
        },
        3,
    );
    tick(&mut a, Op::DeletePod(0), 4);
    assert_eq!(
        rows_and_queue(&a),
        (
            vec![
                "default/batch-1",
                "default/p1",
                "data/etl-1",
                "default/gated-1",
                "data/db-0",
                "default/web-2"
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            vec!["default/batch-1", "default/p1", "data/etl-1", "default/gated-1"]
                .into_iter()
                .map(String::from)
                .collect()
        )
    );
    // reversed, sorted by name, then a pod changed: still changed pod by pod
    a.pods.sort = pod_list::SortKey::Name;
    a.pods.reverse = true;
    a.refresh_rows();
    tick(&mut a, Op::DeletePod(1), 5);
    assert_eq!(
        rows_and_queue(&a).0,
        [
            "default/web-2",
            "default/p1",
            "default/gated-1",
            "data/etl-1",
            "data/db-0"
        ]
    );
    // every change above was applied pod by pod: neither was computed from every pod again
    assert_eq!(builds(&a), at_start);
    same_as_whole(&a).expect("same as a whole build");
}
