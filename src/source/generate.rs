//! Seeded, reproducible synthetic clusters for benchmarks and scale tests (`kschedtui
//! generate`): `nodes` nodes over zones and racks, `pods` bound pods with realistic requests
//! (some with pod affinity), and one pending pod with required node affinity, pod
//! anti-affinity and a topology spread constraint. On request also `pending` more pending pods
//! that fit (what `simulate` schedules in a throughput benchmark) and `failing` pending pods
//! cycling through the failure kinds of [`FAILURE_KINDS`] (what the pod list shows at scale).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde_json::{Value, json};

/// What to generate.
#[derive(Clone, Copy, Debug)]
pub struct GenSpec {
    /// Nodes.
    pub nodes: usize,
    /// Bound pods (none without a node to bind them to).
    pub pods: usize,
    /// Extra pending pods that fit (`bench/fit-NNNNNN`).
    pub pending: usize,
    /// Pending pods that cannot be scheduled, cycling through [`FAILURE_KINDS`]
    /// (`bench/KIND-NNNNNN`).
    pub failing: usize,
    /// Seed.
    pub seed: u64,
}

impl GenSpec {
    /// `nodes` nodes and `pods` bound pods, the one benchmark pending pod and nothing else.
    pub fn new(nodes: usize, pods: usize, seed: u64) -> Self {
        GenSpec {
            nodes,
            pods,
            pending: 0,
            failing: 0,
            seed,
        }
    }
}

/// The failure kinds of the generated failing pods, in the order they cycle: a cpu request
/// no node has, a memory request no node has, a node selector no node matches, a scheduling
/// gate (held before the queue), a scheduler no profile serves, and required anti-affinity
/// against every app (every node with a bound pod rejects it).
pub const FAILURE_KINDS: [&str; 6] = ["cpu", "memory", "selector", "gate", "scheduler", "anti-affinity"];

/// Namespace and name of the pending pod the generator adds.
pub const PENDING_POD: (&str, &str) = ("bench", "pending-0");

fn q(s: impl Into<String>) -> Quantity {
    Quantity(s.into())
}

fn labels(items: &[(&str, String)]) -> Option<BTreeMap<String, String>> {
    Some(items.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect())
}

/// Generates the cluster as a `kind: List` JSON value.
pub fn generate(spec: GenSpec) -> Value {
    let mut rng = fastrand::Rng::with_seed(spec.seed);
    let zones = ["zone-a", "zone-b", "zone-c", "zone-d", "zone-e"];
    let apps = ["web", "api", "cache", "db", "worker", "batch", "search", "auth"];
    let mut items: Vec<Value> = Vec::with_capacity(spec.nodes + spec.pods + 8);
    for ns in ["bench", "team-a", "team-b"] {
        items.push(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns}}}));
    }
    let mut node_names = Vec::with_capacity(spec.nodes);
    for i in 0..spec.nodes {
        let name = format!("node-{i:05}");
        let zone = zones[i % zones.len()].to_string();
        let cpu = [8, 16, 32, 64][rng.usize(0..4)];
        let mem_gi = cpu * 4;
        let mut taints = None;
        if rng.u32(0..100) < 3 {
            taints = Some(vec![core::Taint {
                key: "dedicated".into(),
                value: Some("infra".into()),
                effect: "NoSchedule".into(),
                ..Default::default()
            }]);
        }
        let images = (0..rng.usize(3..12))
            .map(|k| core::ContainerImage {
                names: Some(vec![format!("registry.example.com/{}:{}", apps[k % apps.len()], k % 3)]),
                size_bytes: Some(rng.i64(20_000_000..900_000_000)),
            })
            .collect();
        let alloc: BTreeMap<String, Quantity> = [
            ("cpu".to_string(), q(cpu.to_string())),
            ("memory".to_string(), q(format!("{mem_gi}Gi"))),
            ("pods".to_string(), q("110")),
            ("ephemeral-storage".to_string(), q("100Gi")),
        ]
        .into();
        let node = core::Node {
            metadata: ObjectMeta {
                name: Some(name.clone()),
                labels: labels(&[
                    ("kubernetes.io/hostname", name.clone()),
                    ("topology.kubernetes.io/zone", zone),
                    ("rack", format!("rack-{}", i % 40)),
                ]),
                ..Default::default()
            },
            spec: Some(core::NodeSpec {
                taints,
                unschedulable: Some(rng.u32(0..200) == 0),
                ..Default::default()
            }),
            status: Some(core::NodeStatus {
                capacity: Some(alloc.clone()),
                allocatable: Some(alloc),
                images: Some(images),
                ..Default::default()
            }),
        };
        let mut v = serde_json::to_value(&node).unwrap_or(Value::Null);
        v["apiVersion"] = json!("v1");
        v["kind"] = json!("Node");
        items.push(v);
        node_names.push(name);
    }
    // bound pods need a node (`generate` refuses --nodes 0 with --pods N)
    let bound = if node_names.is_empty() { 0 } else { spec.pods };
    for i in 0..bound {
        let app = apps[rng.usize(0..apps.len())];
        let ns = if i % 2 == 0 { "team-a" } else { "team-b" };
        let node = &node_names[rng.usize(0..node_names.len())];
        let mut affinity = None;
        if rng.u32(0..100) < 5 {
            affinity = Some(core::Affinity {
                pod_anti_affinity: Some(core::PodAntiAffinity {
                    preferred_during_scheduling_ignored_during_execution: Some(vec![core::WeightedPodAffinityTerm {
                        weight: 50,
                        pod_affinity_term: core::PodAffinityTerm {
                            label_selector: Some(LabelSelector {
                                match_labels: labels(&[("app", app.to_string())]),
                                ..Default::default()
                            }),
                            topology_key: "kubernetes.io/hostname".into(),
                            ..Default::default()
                        },
                    }]),
                    ..Default::default()
                }),
                ..Default::default()
            });
        }
        let pod = core::Pod {
            metadata: ObjectMeta {
                name: Some(format!("{app}-{i:06}")),
                namespace: Some(ns.into()),
                labels: labels(&[("app", app.to_string()), ("pod-template-hash", format!("{:x}", i % 97))]),
                ..Default::default()
            },
            spec: Some(core::PodSpec {
                node_name: Some(node.clone()),
                affinity,
                containers: vec![core::Container {
                    name: "main".into(),
                    image: Some(format!("registry.example.com/{app}:{}", i % 3)),
                    resources: Some(core::ResourceRequirements {
                        requests: Some(
                            [
                                ("cpu".to_string(), q(format!("{}m", rng.u32(1..20) * 25))),
                                ("memory".to_string(), q(format!("{}Mi", rng.u32(1..16) * 64))),
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
                phase: Some("Running".into()),
                ..Default::default()
            }),
        };
        let mut v = serde_json::to_value(&pod).unwrap_or(Value::Null);
        v["apiVersion"] = json!("v1");
        v["kind"] = json!("Pod");
        items.push(v);
    }
    let (ns, name) = PENDING_POD;
    items.push(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": "web"}},
        "spec": {
            "containers": [{"name": "main", "image": "registry.example.com/web:1",
                "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}}}],
            "affinity": {
                "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                        "values": ["zone-a", "zone-b", "zone-c"]}]}]}},
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname",
                     "namespaces": ["team-a", "team-b", "bench"]}]}
            },
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}]
        },
        "status": {"phase": "Pending"}
    }));
    for i in 0..spec.pending {
        let app = apps[rng.usize(0..apps.len())];
        let requests =
            json!({"cpu": format!("{}m", rng.u32(1..20) * 25), "memory": format!("{}Mi", rng.u32(1..16) * 64)});
        items.push(pending_pod(&format!("fit-{i:06}"), app, requests, json!({})));
    }
    for i in 0..spec.failing {
        let kind = FAILURE_KINDS[i % FAILURE_KINDS.len()];
        let app = apps[i % apps.len()];
        let small = json!({"cpu": "100m", "memory": "128Mi"});
        let (requests, extra) = match kind {
            "cpu" => (json!({"cpu": "200", "memory": "128Mi"}), json!({})),
            "memory" => (json!({"cpu": "100m", "memory": "10Ti"}), json!({})),
            "selector" => (small, json!({"nodeSelector": {"disktype": "nvme"}})),
            "gate" => (small, json!({"schedulingGates": [{"name": "example.com/approval"}]})),
            "scheduler" => (small, json!({"schedulerName": "custom-scheduler"})),
            _ => (
                small,
                json!({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": apps}]},
                     "topologyKey": "kubernetes.io/hostname", "namespaces": ["team-a", "team-b"]}]}}}),
            ),
        };
        items.push(pending_pod(&format!("{kind}-{i:06}"), app, requests, extra));
    }
    json!({"apiVersion": "v1", "kind": "List", "items": items})
}

/// A pending pod in the bench namespace with one container of `requests` and the `extra`
/// spec fields.
fn pending_pod(name: &str, app: &str, requests: Value, extra: Value) -> Value {
    let mut spec = json!({"containers": [{"name": "main", "image": format!("registry.example.com/{app}:1"),
        "resources": {"requests": requests}}]});
    if let (Some(s), Value::Object(e)) = (spec.as_object_mut(), extra) {
        s.extend(e);
    }
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": PENDING_POD.0, "labels": {"app": app}},
        "spec": spec,
        "status": {"phase": "Pending"}
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::engine::{self, Release, Snapshot};
    use crate::model::ObjectKey;

    /// Filter and Score spread over the cores give, pod for pod, the explanation of a walk in
    /// order on one thread (a cluster large enough to be split into several pieces of work).
    #[test]
    fn nodes_evaluated_in_parallel_explain_as_a_walk_in_order() {
        let spec = GenSpec {
            pending: 4,
            failing: 2 * FAILURE_KINDS.len(),
            ..GenSpec::new(700, 7000, 11)
        };
        let mut list = generate(spec);
        // a pod that preempts: victims on every large node, more candidates than wanted, so
        // the dry run stops part of the way through the nodes
        let mut urgent = pending_pod("urgent", "web", json!({"cpu": "64", "memory": "1Gi"}), json!({}));
        urgent["spec"]["priority"] = json!(1000);
        list["items"].as_array_mut().unwrap().push(urgent);
        let text = serde_json::to_string(&list).unwrap();
        let cluster = Arc::new(crate::source::file::load_str("g.json", &text).unwrap());
        let parallel = Snapshot::new(cluster.clone(), Release::NEWEST);
        let mut serial = Snapshot::new(cluster.clone(), Release::NEWEST);
        serial.serial = true;
        let profiles = engine::build_profiles(None, Release::NEWEST).unwrap();
        let (mut compared, mut filtered) = (0, 0);
        for p in cluster.pods.iter().filter(|p| p.is_pending()) {
            let a = engine::explain(&parallel, &profiles, &p.key).unwrap();
            let b = engine::explain(&serial, &profiles, &p.key).unwrap();
            assert_eq!(
                serde_json::to_value(&a).unwrap(),
                serde_json::to_value(&b).unwrap(),
                "{}",
                p.key
            );
            compared += 1;
            filtered += usize::from(a.filter.len() == 700);
        }
        assert_eq!(compared, 2 + 4 + 2 * FAILURE_KINDS.len());
        // all but the gated pods and those no profile serves went through Filter
        assert_eq!(filtered, compared - 4);
        let urgent = engine::explain(&parallel, &profiles, &ObjectKey::new("bench", "urgent")).unwrap();
        let pf = urgent.post_filter.as_ref().expect("preemption ran");
        assert!(pf.nominated_node.is_some(), "{}", pf.message);
        assert_eq!(pf.candidates_wanted, Some(100));
        assert!(
            pf.node_notes.iter().any(|(_, note)| note.contains("not evaluated")),
            "the dry run stopped early: {:?}",
            &pf.node_notes[..pf.node_notes.len().min(3)]
        );
    }

    /// Tracing the decisions only gives what a summarized full trace keeps: pod by pod, and
    /// over a whole simulation (binds, a preemption and its evictions, failures of every kind).
    #[test]
    fn decisions_only_keeps_what_a_summary_keeps() {
        use crate::engine::simulate::{Detail, EventKind, SimOptions, simulate};
        let spec = GenSpec {
            pending: 4,
            failing: FAILURE_KINDS.len(),
            ..GenSpec::new(300, 3000, 7)
        };
        let mut list = generate(spec);
        let mut urgent = pending_pod("urgent", "web", json!({"cpu": "64", "memory": "1Gi"}), json!({}));
        urgent["spec"]["priority"] = json!(1000);
        list["items"].as_array_mut().unwrap().push(urgent);
        let text = serde_json::to_string(&list).unwrap();
        let cluster = Arc::new(crate::source::file::load_str("g.json", &text).unwrap());
        let profiles = engine::build_profiles(None, Release::NEWEST).unwrap();
        let full = Snapshot::new(cluster.clone(), Release::NEWEST);
        let mut lean = Snapshot::new(cluster.clone(), Release::NEWEST);
        lean.decisions_only = true;
        let (mut diagnosed, mut scored) = (0, 0);
        for p in cluster.pods.iter().filter(|p| p.is_pending()) {
            let mut a = engine::explain(&full, &profiles, &p.key).unwrap();
            let mut b = engine::explain(&lean, &profiles, &p.key).unwrap();
            assert!(
                b.filter
                    .iter()
                    .all(|f| f.all_failures.is_empty() && f.details.is_empty())
            );
            assert!(b.score.iter().all(|s| s.plugins.is_empty()));
            // decisions only: the nodes with the top total, and the rejected nodes' records
            let best = a.score.iter().map(|s| s.total).max();
            assert_eq!(
                a.score
                    .iter()
                    .filter(|s| Some(s.total) == best)
                    .map(|s| (&s.node, s.total))
                    .collect::<Vec<_>>(),
                b.score.iter().map(|s| (&s.node, s.total)).collect::<Vec<_>>(),
                "{}",
                p.key
            );
            assert_eq!(
                format!(
                    "{:?}",
                    a.filter
                        .iter()
                        .filter(|f| !f.feasible)
                        .map(|f| (&f.node, &f.failure, f.excluded_by_prefilter))
                        .collect::<Vec<_>>()
                ),
                format!(
                    "{:?}",
                    b.filter
                        .iter()
                        .map(|f| (&f.node, &f.failure, f.excluded_by_prefilter))
                        .collect::<Vec<_>>()
                ),
                "{}",
                p.key
            );
            diagnosed += usize::from(a.filter.iter().any(|f| !f.all_failures.is_empty()));
            // a node's failures are held in a list of exactly their number, no spare room
            assert!(
                a.filter
                    .iter()
                    .all(|f| f.all_failures.capacity() == f.all_failures.len()),
                "{}",
                p.key
            );
            scored += usize::from(!a.score.is_empty());
            a.summarize();
            b.summarize();
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{}", p.key);
        }
        assert!(
            diagnosed >= FAILURE_KINDS.len() - 2 && scored >= 4,
            "{diagnosed} {scored}"
        );
        let run = |detail| {
            let opts = SimOptions {
                detail,
                ..SimOptions::default()
            };
            simulate((*cluster).clone(), &profiles, Release::NEWEST, opts)
        };
        let mut a = run(Detail::Full);
        let b = run(Detail::Summary);
        for e in &mut a.events {
            if let EventKind::Attempt { explanation, .. } = &mut e.kind {
                explanation.summarize();
            }
        }
        assert_eq!(format!("{:?}", a.events), format!("{:?}", b.events));
        assert_eq!(a.pods, b.pods);
        assert_eq!(a.evicted, b.evicted);
        assert!(!b.evicted.is_empty(), "the urgent pod preempted");
    }

    /// Every generated pending pod fails (or fits) for the reason its kind names, at the
    /// newest release.
    #[test]
    fn pending_and_failing_pods_fail_for_their_kind() {
        let spec = GenSpec {
            pending: 3,
            failing: FAILURE_KINDS.len(),
            ..GenSpec::new(12, 120, 5)
        };
        let text = serde_json::to_string(&generate(spec)).unwrap();
        let cluster = crate::source::file::load_str("g.json", &text).unwrap();
        assert_eq!(cluster.pods.iter().filter(|p| p.is_pending()).count(), 1 + 3 + 6);
        let snap = Snapshot::new(Arc::new(cluster), Release::NEWEST);
        let profiles = engine::build_profiles(None, Release::NEWEST).unwrap();
        let explain = |name: &str| engine::explain(&snap, &profiles, &ObjectKey::new("bench", name)).unwrap();
        for i in 0..3 {
            let ex = explain(&format!("fit-{i:06}"));
            assert!(ex.filter.iter().any(|f| f.feasible), "fit-{i:06}: {:?}", ex.message);
        }
        let message = |name: &str| explain(name).message.unwrap_or_default();
        assert!(
            message("cpu-000000").contains(" Insufficient cpu"),
            "{}",
            message("cpu-000000")
        );
        assert!(message("memory-000001").contains(" Insufficient memory"));
        assert!(message("selector-000002").contains("didn't match Pod's node affinity/selector"));
        let gated = explain("gate-000003");
        assert!(
            gated
                .pre_enqueue
                .iter()
                .any(|s| s.plugin == "SchedulingGates" && !s.reasons.is_empty()),
            "{:?}",
            gated.pre_enqueue
        );
        assert_eq!(
            explain("scheduler-000004").waiting_for_scheduler.as_deref(),
            Some("custom-scheduler")
        );
        assert!(message("anti-affinity-000005").contains("didn't match pod anti-affinity rules"));
    }
}
