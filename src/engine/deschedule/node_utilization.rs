//! LowNodeUtilization and HighNodeUtilization on requests
//! (pkg/framework/plugins/nodeutilization: lownodeutilization.go, highnodeutilization.go,
//! nodeutilization.go, classifier, normalizer, usageclients.go `requestedUsageClient`).
//!
//! Usage of a node: the requests of its unfinished pods (cpu in millicores, memory in bytes,
//! pods counted), in percent of allocatable (capacity when allocatable is empty). Each node is
//! classified by the first group it falls in: under-utilized (every threshold resource at or
//! below its threshold; an unschedulable node is not under-utilized for
//! LowNodeUtilization), then over-utilized (LowNodeUtilization: some resource above its
//! target threshold; HighNodeUtilization: any schedulable node). Pods move from the source
//! nodes (Low: the over-utilized, most used first; High: the under-utilized, least used first)
//! while the destinations have room: evictable pods from lowest priority, skipping those that
//! tolerate no destination's taints, each eviction taking its requests off the source and off
//! the destinations' total room. Ties of the node sort (unstable upstream) go by name.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::Ctx;
use super::evictor::requests;
use super::limits::EvictError;
use super::pods::{PodFilter, sort_by_priority_low_to_high};
use super::policy::{HighNodeUtilizationArgs, LowNodeUtilizationArgs, Namespaces, Thresholds};
use crate::model::{Node, Pod, Taint, Toleration};

type Usage = BTreeMap<String, i64>;

/// A classified node.
#[derive(Clone, Debug)]
struct NodeInfo {
    node: Arc<Node>,
    usage: Usage,
    pods: Vec<Arc<Pod>>,
    available: Usage,
    why: String,
}

fn extended(names: &[String]) -> Vec<String> {
    let mut v: Vec<String> = names.to_vec();
    for n in ["cpu", "memory", "pods"] {
        if !v.iter().any(|x| x == n) {
            v.push(n.into());
        }
    }
    v.sort();
    v
}

/// The node's allocatable of a resource (capacity when allocatable is empty); None when the
/// node lists neither.
fn capacity(n: &Node, name: &str) -> Option<i64> {
    let st = n.obj.status.as_ref()?;
    let alloc = st.allocatable.as_ref().filter(|a| !a.is_empty());
    let list = alloc.or(st.capacity.as_ref())?;
    let q = crate::model::quantity::Quantity::parse(&list.get(name)?.0).ok()?;
    Some(if name == "cpu" { q.milli_value() } else { q.value() })
}

fn node_usage(pods: &[Arc<Pod>], names: &[String]) -> Usage {
    names
        .iter()
        .map(|n| {
            let v = if n == "pods" {
                pods.len() as i64
            } else {
                pods.iter().map(|p| requests(p).get(n).copied().unwrap_or(0)).sum()
            };
            (n.clone(), v)
        })
        .collect()
}

fn percentages(n: &Node, usage: &Usage) -> BTreeMap<String, f64> {
    usage
        .iter()
        .filter_map(|(name, used)| {
            let cap = capacity(n, name)?;
            let pct = if cap > 0 {
                *used as f64 / cap as f64 * 100.0
            } else {
                0.0
            };
            Some((name.clone(), pct))
        })
        .collect()
}

/// A percentage as the report shows it: whole when whole, else one decimal.
pub fn pct(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}%", v.round())
    } else {
        format!("{v:.1}%")
    }
}

fn below(usage: &BTreeMap<String, f64>, t: &Thresholds) -> bool {
    t.iter().all(|(n, v)| usage.get(n).copied().unwrap_or(0.0) <= *v)
}

fn above(usage: &BTreeMap<String, f64>, t: &Thresholds) -> Option<String> {
    let over: Vec<String> = t
        .iter()
        .filter(|(n, v)| usage.get(*n).copied().unwrap_or(0.0) > **v)
        .map(|(n, v)| {
            format!(
                "{n} {} requested > {}",
                pct(usage.get(n).copied().unwrap_or(0.0)),
                pct(*v)
            )
        })
        .collect();
    (!over.is_empty()).then(|| over.join(", "))
}

/// `capNodeCapacitiesToThreshold`.
fn cap_to(n: &Node, t: &Thresholds, names: &[String]) -> Usage {
    names
        .iter()
        .map(|name| {
            let v = match (capacity(n, name), t.get(name)) {
                (None, _) => 0,
                (Some(c), None) => c,
                (Some(c), Some(p)) => (p * 0.01 * c as f64) as i64,
            };
            (name.clone(), v)
        })
        .collect()
}

fn describe(usage: &BTreeMap<String, f64>) -> String {
    usage
        .iter()
        .map(|(n, v)| format!("{n} {}", pct(*v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `PodToleratesTaints`: some destination whose taints the pod tolerates, all of them.
fn tolerates_some(tolerations: &[Toleration], dest: &[(String, Vec<Taint>)]) -> bool {
    dest.iter().any(|(_, taints)| {
        tolerations.len() >= taints.len() && taints.iter().all(|t| Toleration::any_tolerates(tolerations, t, true))
    })
}

fn sort_by_usage(nodes: &mut [NodeInfo], ascending: bool) {
    nodes.sort_by(|a, b| {
        let sum = |u: &Usage| u.values().sum::<i64>();
        let (x, y) = (sum(&a.usage), sum(&b.usage));
        let o = if ascending { x.cmp(&y) } else { y.cmp(&x) };
        o.then_with(|| a.node.name.cmp(&b.node.name))
    });
}

struct Move<'a> {
    names: &'a [String],
    excluded: Option<&'a Namespaces>,
    node_limit: Option<u64>,
    /// Low: whether the source is still above its target, and the room left.
    low: bool,
    only_thresholding: Option<Vec<String>>,
}

fn continue_eviction(m: &Move<'_>, n: &NodeInfo, total: &Usage) -> bool {
    if m.low
        && !n
            .usage
            .iter()
            .any(|(k, v)| n.available.get(k).copied().unwrap_or(0) < *v)
    {
        return false;
    }
    total.values().all(|v| *v > 0)
}

fn requests_any(p: &Pod, names: &[String]) -> bool {
    let spec = p.spec();
    spec.containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .any(|c| {
            c.resources
                .as_ref()
                .and_then(|r| r.requests.as_ref())
                .is_some_and(|r| names.iter().any(|n| r.contains_key(n)))
        })
}

/// `evictPodsFromSourceNodes`.
fn evict_from(ctx: &mut Ctx<'_>, m: &Move<'_>, sources: Vec<NodeInfo>, dests: &[NodeInfo]) {
    let mut total: Usage = m.names.iter().map(|n| (n.clone(), 0)).collect();
    for d in dests {
        for n in m.names {
            let v = d.available.get(n).copied().unwrap_or(0) - d.usage.get(n).copied().unwrap_or(0);
            *total.entry(n.clone()).or_insert(0) += v;
        }
    }
    ctx.note(format!(
        "room on the destination nodes: {}",
        total
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let dest_taints: Vec<(String, Vec<Taint>)> = dests
        .iter()
        .map(|d| (d.node.name.clone(), d.node.taints.clone()))
        .collect();
    let exclude = PodFilter::new(
        m.excluded
            .map(|n| Namespaces {
                include: Vec::new(),
                exclude: n.exclude.clone(),
            })
            .as_ref(),
        None,
    );
    for mut src in sources {
        let mut removable: Vec<Arc<Pod>> = Vec::new();
        for p in &src.pods {
            let extra = m.only_thresholding.as_ref().is_none_or(|names| requests_any(p, names));
            match ctx.filter(p) {
                Ok(()) if extra => removable.push(p.clone()),
                Ok(()) => {}
                Err(why) => ctx.protected(p, src.why.clone(), why),
            }
        }
        if removable.is_empty() {
            ctx.note(format!("{}: no removable pods on node, try next node", src.node.name));
            continue;
        }
        sort_by_priority_low_to_high(&mut removable);
        if !continue_eviction(m, &src, &total) {
            continue;
        }
        let mut count = 0u64;
        for p in removable {
            if m.node_limit.is_some_and(|l| count >= l) {
                break;
            }
            if !tolerates_some(&p.tolerations, &dest_taints) {
                ctx.skipped(
                    &p,
                    src.why.clone(),
                    "does not tolerate the taints of any destination node".into(),
                );
                continue;
            }
            if let Some(why) = exclude.rejects(&p) {
                ctx.skipped(&p, src.why.clone(), format!("{why} (evictableNamespaces)"));
                continue;
            }
            if let Err(why) = ctx.pre_eviction_filter(&p) {
                ctx.protected(&p, src.why.clone(), vec![why]);
                continue;
            }
            let reqs = requests(&p).clone();
            match ctx.evict(&p, src.why.clone()) {
                Ok(()) => {}
                Err(EvictError::Total) => return,
                Err(EvictError::Node) => break,
                Err(_) => continue,
            }
            count += 1;
            for (name, room) in total.iter_mut() {
                let d = if name == "pods" {
                    1
                } else {
                    reqs.get(name).copied().unwrap_or(0)
                };
                *room -= d;
                if let Some(u) = src.usage.get_mut(name) {
                    *u -= d;
                }
            }
            if !continue_eviction(m, &src, &total) {
                break;
            }
        }
    }
}

/// A node, its usage, its percentages and its unfinished pods.
type NodeSnapshot = (Arc<Node>, Usage, BTreeMap<String, f64>, Vec<Arc<Pod>>);

fn snapshot(ctx: &Ctx<'_>, nodes: &[Arc<Node>], names: &[String]) -> Vec<NodeSnapshot> {
    nodes
        .iter()
        .map(|n| {
            let pods = ctx.pods_on(&n.name);
            let u = node_usage(&pods, names);
            let p = percentages(n, &u);
            (n.clone(), u, p, pods)
        })
        .collect()
}

/// LowNodeUtilization.
pub fn low(ctx: &mut Ctx<'_>, args: &LowNodeUtilizationArgs, nodes: &[Arc<Node>]) {
    let names: Vec<String> = args.thresholds.keys().cloned().collect();
    let ext = extended(&names);
    let snap = snapshot(ctx, nodes, &ext);
    let (low_t, high_t): (Thresholds, Thresholds) = if args.use_deviation_thresholds {
        let mut avg = Thresholds::new();
        for name in &names {
            let vals: Vec<f64> = snap.iter().filter_map(|(_, _, p, _)| p.get(name).copied()).collect();
            let a = if vals.is_empty() {
                0.0
            } else {
                vals.iter().sum::<f64>() / vals.len() as f64
            };
            avg.insert(name.clone(), a);
        }
        let clamp = |v: f64| v.clamp(0.0, 100.0);
        let lo = names
            .iter()
            .map(|n| {
                (
                    n.clone(),
                    clamp(avg[n] - args.thresholds.get(n).copied().unwrap_or(0.0)),
                )
            })
            .collect();
        let hi = names
            .iter()
            .map(|n| {
                (
                    n.clone(),
                    clamp(avg[n] + args.target_thresholds.get(n).copied().unwrap_or(0.0)),
                )
            })
            .collect();
        ctx.note(format!("average usage: {}", describe(&avg)));
        (lo, hi)
    } else {
        (args.thresholds.clone(), args.target_thresholds.clone())
    };
    ctx.note(format!(
        "under-utilized: every one of {} at or below {}; over-utilized: any above {}",
        names.join(", "),
        describe(&low_t),
        describe(&high_t)
    ));
    let mut lows = Vec::new();
    let mut highs = Vec::new();
    for (n, usage, p, pods) in snap {
        let shown = if args.use_deviation_thresholds {
            p.iter()
                .filter(|(k, _)| names.contains(k))
                .map(|(k, v)| (k.clone(), *v))
                .collect()
        } else {
            p.clone()
        };
        let info = |why: String| NodeInfo {
            node: n.clone(),
            usage: usage.clone(),
            pods: pods.clone(),
            available: cap_to(&n, &high_t, &ext),
            why,
        };
        if !n.unschedulable && below(&shown, &low_t) {
            ctx.note(format!("{}: {} → underutilized", n.name, describe(&shown)));
            lows.push(info(String::new()));
        } else if let Some(over) = above(&shown, &high_t) {
            ctx.note(format!("{}: {} → overutilized ({over})", n.name, describe(&shown)));
            highs.push(info(format!(
                "node {} {}{}",
                n.name,
                over,
                if args.use_deviation_thresholds {
                    " (deviation target)"
                } else {
                    " targetThreshold"
                }
            )));
        } else {
            ctx.note(format!("{}: {} → appropriately utilized", n.name, describe(&shown)));
        }
    }
    if stops_on_underutilized(ctx, lows.len(), nodes.len(), args.number_of_nodes) {
        return;
    }
    if highs.is_empty() {
        ctx.note("All nodes are under target utilization, nothing to do here".into());
        return;
    }
    sort_by_usage(&mut highs, false);
    let m = Move {
        names: &ext,
        excluded: args.evictable_namespaces.as_ref(),
        node_limit: args.eviction_limit_node,
        low: true,
        only_thresholding: None,
    };
    evict_from(ctx, &m, highs, &lows);
}

/// HighNodeUtilization.
pub fn high(ctx: &mut Ctx<'_>, args: &HighNodeUtilizationArgs, nodes: &[Arc<Node>]) {
    let names: Vec<String> = args.thresholds.keys().cloned().collect();
    let ext = extended(&names);
    let high_t: Thresholds = names.iter().map(|n| (n.clone(), 100.0)).collect();
    let snap = snapshot(ctx, nodes, &ext);
    ctx.note(format!(
        "under-utilized: every one of {} at or below {}",
        names.join(", "),
        describe(&args.thresholds)
    ));
    let mut lows = Vec::new();
    let mut sched = Vec::new();
    for (n, usage, p, pods) in snap {
        let info = |why: String| NodeInfo {
            node: n.clone(),
            usage: usage.clone(),
            pods: pods.clone(),
            available: cap_to(&n, &high_t, &ext),
            why,
        };
        if below(&p, &args.thresholds) {
            ctx.note(format!("{}: {} → underutilized", n.name, describe(&p)));
            let detail: Vec<String> = args
                .thresholds
                .iter()
                .map(|(k, v)| format!("{k} {} requested <= {}", pct(p.get(k).copied().unwrap_or(0.0)), pct(*v)))
                .collect();
            lows.push(info(format!(
                "node {} underutilized: {} threshold",
                n.name,
                detail.join(", ")
            )));
        } else if !n.unschedulable {
            ctx.note(format!("{}: {} → can take pods", n.name, describe(&p)));
            sched.push(info(String::new()));
        } else {
            ctx.note(format!("{}: {} → unschedulable", n.name, describe(&p)));
        }
    }
    if stops_on_underutilized(ctx, lows.len(), nodes.len(), args.number_of_nodes) {
        return;
    }
    if sched.is_empty() {
        ctx.note("No node is available to schedule the pods, nothing to do here".into());
        return;
    }
    sort_by_usage(&mut lows, true);
    let only = args
        .eviction_modes
        .iter()
        .any(|m| m == "OnlyThresholdingResources")
        .then(|| names.clone());
    let m = Move {
        names: &ext,
        excluded: args.evictable_namespaces.as_ref(),
        node_limit: None,
        low: false,
        only_thresholding: only,
    };
    evict_from(ctx, &m, lows, &sched);
}

/// The checks both utilization plugins make on the count of underutilized nodes before
/// moving anything (none, at most numberOfNodes, all of them); true, with upstream's note, when
/// one of them stops the plugin.
fn stops_on_underutilized(ctx: &mut Ctx<'_>, lows: usize, nodes: usize, number_of_nodes: i64) -> bool {
    let note = if lows == 0 {
        "No node is underutilized, nothing to do here, you might tune your thresholds further".to_string()
    } else if i64::try_from(lows).unwrap_or(i64::MAX) <= number_of_nodes {
        format!(
            "Number of nodes underutilized ({lows}) is less or equal than NumberOfNodes ({number_of_nodes}), nothing to do here"
        )
    } else if lows == nodes {
        "All nodes are underutilized, nothing to do here".to_string()
    } else {
        return false;
    };
    ctx.note(note);
    true
}

#[cfg(test)]
mod tests {
    //! lownodeutilization_test.go and highnodeutilization_test.go at v0.36 (the request-based
    //! cases: TestLowNodeUtilization, TestLowNodeUtilizationWithTaints,
    //! TestHighNodeUtilization, TestHighNodeUtilizationWithTaints), each asserting the pods
    //! evicted (upstream asserts the count, and names them for some cases). Upstream's
    //! DefaultEvictor has nodeFit on in these tables except HighNodeUtilizationWithTaints.

    use k8s_openapi::api::core::v1 as core;
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use serde_json::{Value, json};

    use crate::engine::deschedule::policy::{HIGH_NODE_UTILIZATION, LOW_NODE_UTILIZATION, SYSTEM_CRITICAL_PRIORITY};
    use crate::engine::deschedule::testutil::*;

    const EXT: &str = "example.com/foo";
    const LOW: i32 = 0;
    const HIGH: i32 = 10000;

    /// `SetNodeExtendedResource`.
    fn with_ext(mut n: core::Node, v: i64) -> core::Node {
        let st = n.status.as_mut().unwrap();
        for list in [st.capacity.as_mut().unwrap(), st.allocatable.as_mut().unwrap()] {
            list.insert(EXT.into(), Quantity(v.to_string()));
        }
        n
    }

    /// `SetPodExtendedResourceRequest`.
    fn req_ext(mut p: core::Pod, v: i64) -> core::Pod {
        let c = &mut p.spec.as_mut().unwrap().containers[0];
        c.resources
            .get_or_insert_with(Default::default)
            .requests
            .get_or_insert_with(Default::default)
            .insert(EXT.into(), Quantity(v.to_string()));
        p
    }

    /// `MakeBestEffortPod`.
    fn best_effort(mut p: core::Pod) -> core::Pod {
        p.spec.as_mut().unwrap().containers[0].resources = None;
        p
    }

    fn rs(name: &str, cpu: i64, mem: i64, node: &str) -> core::Pod {
        rs_owned(pod(name, cpu, mem, node))
    }

    /// p6 (a DaemonSet pod), p7 (local storage, mirror), p8 (system critical) on `node`.
    fn unevictable(node: &str, cpu: i64, mem: i64) -> Vec<core::Pod> {
        vec![
            owned_by(pod("p6", cpu, mem, node), &[("DaemonSet", "")]),
            mirror(with_local_storage(normal_owned(pod("p7", cpu, mem, node)))),
            priority(
                in_namespace(normal_owned(pod("p8", cpu, mem, node)), "kube-system"),
                SYSTEM_CRITICAL_PRIORITY,
            ),
        ]
    }

    fn three_nodes() -> Vec<core::Node> {
        vec![
            node("n1", 4000, 3000, 9),
            node("n2", 4000, 3000, 10),
            unschedulable(node("n3", 4000, 3000, 10)),
        ]
    }

    /// p1 .. p5 (ReplicaSet, 400m) and the unevictable pods on n1, p9 on n2.
    fn standard() -> Vec<core::Pod> {
        let mut pods: Vec<core::Pod> = (1..=5).map(|i| rs(&format!("p{i}"), 400, 0, "n1")).collect();
        pods.extend(unevictable("n1", 400, 0));
        pods.push(rs("p9", 400, 0, "n2"));
        pods
    }

    fn cpu_pods(t: i64, tt: i64) -> Value {
        json!({"thresholds": {"cpu": t, "pods": t}, "targetThresholds": {"cpu": tt, "pods": tt}})
    }

    fn low(nodes: Vec<core::Node>, pods: Vec<core::Pod>, args: Value) -> Vec<String> {
        low_with(nodes, pods, args, json!({}))
    }

    fn low_with(nodes: Vec<core::Node>, pods: Vec<core::Pod>, args: Value, limits: Value) -> Vec<String> {
        let pol = policy_with_limits("balance", LOW_NODE_UTILIZATION, args, json!({"nodeFit": true}), limits);
        evicted(cluster(nodes, pods), &pol, 0).0
    }

    // ---- TestLowNodeUtilization ----

    /// "no evictable pods"
    #[test]
    fn low_no_evictable_pods() {
        let mut pods: Vec<core::Pod> = (1..=4)
            .map(|i| owned_by(pod(&format!("p{i}"), 400, 0, "n1"), &[("DaemonSet", "")]))
            .collect();
        pods.push(mirror(with_local_storage(normal_owned(pod("p5", 400, 0, "n1")))));
        pods.push(priority(
            in_namespace(pod("p6", 400, 0, "n1"), "kube-system"),
            SYSTEM_CRITICAL_PRIORITY,
        ));
        pods.push(rs("p9", 400, 0, "n2"));
        assert!(low(three_nodes(), pods, cpu_pods(30, 50)).is_empty());
    }

    /// "without priorities" and "without priorities stop when cpu capacity is depleted" (the same
    /// case on requests)
    #[test]
    fn low_without_priorities() {
        assert_eq!(
            low(three_nodes(), standard(), cpu_pods(30, 50)),
            vec!["p1", "p2", "p3", "p4"]
        );
    }

    /// "without priorities, but excluding namespaces"
    #[test]
    fn low_excluding_namespaces() {
        let mut pods: Vec<core::Pod> = (1..=5)
            .map(|i| in_namespace(normal_owned(pod(&format!("p{i}"), 400, 0, "n1")), "namespace1"))
            .collect();
        pods.extend(unevictable("n1", 400, 0));
        pods.push(rs("p9", 400, 0, "n2"));
        let mut args = cpu_pods(30, 50);
        args["evictableNamespaces"] = json!({"exclude": ["namespace1"]});
        assert!(low(three_nodes(), pods, args).is_empty());
    }

    /// "with priorities": the low-priority p5 first
    #[test]
    fn low_with_priorities() {
        let mut pods: Vec<core::Pod> = (1..=4)
            .map(|i| priority(rs(&format!("p{i}"), 400, 0, "n1"), HIGH))
            .collect();
        pods.push(priority(rs("p5", 400, 0, "n1"), LOW));
        pods.extend(unevictable("n1", 400, 0));
        pods.push(rs("p9", 400, 0, "n2"));
        assert_eq!(low(three_nodes(), pods, cpu_pods(30, 50)), vec!["p5", "p1", "p2", "p3"]);
    }

    /// "without priorities evicting best-effort pods only" (upstream names p1, p2, p4, p5)
    #[test]
    fn low_best_effort_first() {
        let mut pods: Vec<core::Pod> = (1..=5)
            .map(|i| {
                let p = rs(&format!("p{i}"), 400, 0, "n1");
                if i == 3 { p } else { best_effort(p) }
            })
            .collect();
        pods.extend(unevictable("n1", 400, 0));
        pods.push(rs("p9", 400, 0, "n2"));
        assert_eq!(low(three_nodes(), pods, cpu_pods(30, 50)), vec!["p1", "p2", "p4", "p5"]);
    }

    fn ext_args(t: i64, tt: i64) -> Value {
        json!({"thresholds": {"pods": t, EXT: t}, "targetThresholds": {"pods": tt, EXT: tt}})
    }

    /// "with extended resource": only 3 before n2's extended resource room is used up
    #[test]
    fn low_extended_resource() {
        let mut pods: Vec<core::Pod> = (1..=5).map(|i| req_ext(rs(&format!("p{i}"), 0, 0, "n1"), 1)).collect();
        pods.push(req_ext(normal_owned(pod("p6", 0, 0, "n1")), 1));
        pods.push(mirror(with_local_storage(req_ext(
            normal_owned(pod("p7", 0, 0, "n1")),
            1,
        ))));
        pods.push(priority(
            in_namespace(req_ext(normal_owned(pod("p8", 0, 0, "n1")), 1), "kube-system"),
            SYSTEM_CRITICAL_PRIORITY,
        ));
        pods.push(req_ext(rs("p9", 0, 0, "n2"), 1));
        let nodes = vec![
            with_ext(node("n1", 4000, 3000, 9), 8),
            with_ext(node("n2", 4000, 3000, 10), 8),
            unschedulable(node("n3", 4000, 3000, 10)),
        ];
        assert_eq!(low(nodes, pods, ext_args(30, 50)), vec!["p1", "p2", "p3"]);
    }

    /// "with extended resource in some of nodes"
    #[test]
    fn low_extended_resource_in_some_nodes() {
        let pods = vec![req_ext(rs("p1", 0, 0, "n1"), 1), rs("p9", 0, 0, "n2")];
        let nodes = vec![
            with_ext(node("n1", 4000, 3000, 9), 8),
            node("n2", 4000, 3000, 10),
            unschedulable(node("n3", 4000, 3000, 10)),
        ];
        assert!(low(nodes, pods, ext_args(30, 50)).is_empty());
    }

    /// "with extended resource in some of nodes with deviation"
    #[test]
    fn low_extended_resource_with_deviation() {
        let pods = vec![
            req_ext(rs("p1", 0, 0, "n1"), 1),
            req_ext(rs("p2", 0, 0, "n2"), 7),
            rs("p3", 0, 0, "n2"),
            rs("p8", 0, 0, "n3"),
            rs("p9", 0, 0, "n3"),
        ];
        let nodes = vec![
            with_ext(node("n1", 4000, 3000, 10), 8),
            with_ext(node("n2", 4000, 3000, 10), 8),
            unschedulable(node("n3", 4000, 3000, 10)),
        ];
        let args = json!({"useDeviationThresholds": true,
            "thresholds": {"pods": 5, EXT: 10}, "targetThresholds": {"pods": 5, EXT: 10}});
        assert_eq!(low(nodes, pods, args), vec!["p2"]);
    }

    /// "without priorities, but only other node is unschedulable"
    #[test]
    fn low_only_other_node_unschedulable() {
        let mut pods: Vec<core::Pod> = (1..=5).map(|i| rs(&format!("p{i}"), 400, 0, "n1")).collect();
        pods.extend(unevictable("n1", 400, 0));
        let nodes = vec![node("n1", 4000, 3000, 9), unschedulable(node("n2", 4000, 3000, 10))];
        assert!(low(nodes, pods, cpu_pods(30, 50)).is_empty());
    }

    fn west_pods(affinity: bool) -> Vec<core::Pod> {
        let mut pods: Vec<core::Pod> = (1..=3).map(|i| rs(&format!("p{i}"), 400, 0, "n1")).collect();
        for name in ["p4", "p5"] {
            let p = normal_owned(pod(name, 400, 0, "n1"));
            pods.push(if affinity {
                required_node_affinity(p, "datacenter", "In", &["west"])
            } else {
                node_selector(p, &[("datacenter", "west")])
            });
        }
        pods.extend(unevictable("n1", 400, 0));
        pods
    }

    fn east_n2() -> Vec<core::Node> {
        vec![
            node("n1", 4000, 3000, 9),
            node_labels(node("n2", 4000, 3000, 10), &[("datacenter", "east")]),
        ]
    }

    /// "without priorities, but only other node doesn't match pod node selector for p4 and p5"
    #[test]
    fn low_node_selector_does_not_match() {
        assert_eq!(
            low(east_n2(), west_pods(false), cpu_pods(30, 50)),
            vec!["p1", "p2", "p3"]
        );
    }

    /// "without priorities, but only other node doesn't match pod node affinity for p4 and p5"
    /// and "without priorities different evictions for requested and actual resources" (the same
    /// case on requests)
    #[test]
    fn low_node_affinity_does_not_match() {
        let mut pods = west_pods(true);
        pods.push(rs("p9", 0, 0, "n2"));
        assert_eq!(low(east_n2(), pods, cpu_pods(30, 50)), vec!["p1", "p2", "p3"]);
    }

    fn deviation() -> Value {
        json!({"useDeviationThresholds": true,
            "thresholds": {"cpu": 5, "pods": 5}, "targetThresholds": {"cpu": 5, "pods": 5}})
    }

    /// "deviation thresholds"
    #[test]
    fn low_deviation_thresholds() {
        assert_eq!(low(three_nodes(), standard(), deviation()), vec!["p1", "p2"]);
    }

    /// "deviation thresholds and overevicting memory"
    #[test]
    fn low_deviation_thresholds_memory_full() {
        let mut pods: Vec<core::Pod> = (1..=5).map(|i| rs(&format!("p{i}"), 400, 375, "n1")).collect();
        pods.extend(unevictable("n1", 400, 375));
        pods.push(rs("p9", 400, 3000, "n2"));
        let nodes = vec![
            node("n1", 4000, 3000, 10),
            node("n2", 4000, 3000, 10),
            unschedulable(node("n3", 4000, 3000, 10)),
        ];
        assert!(low(nodes, pods, deviation()).is_empty());
    }

    /// "without priorities with node eviction limit"
    #[test]
    fn low_eviction_limit_per_node() {
        let mut args = cpu_pods(30, 50);
        args["evictionLimits"] = json!({"node": 2});
        assert_eq!(low(three_nodes(), standard(), args), vec!["p1", "p2"]);
    }

    // ---- TestLowNodeUtilizationWithTaints ----

    fn n1_pods(last: core::Pod) -> Vec<core::Pod> {
        let mut pods: Vec<core::Pod> = (1..=7).map(|i| rs(&format!("pod_{i}_n1"), 200, 0, "n1")).collect();
        pods.push(last);
        pods
    }

    fn tolerate_pod() -> core::Pod {
        let mut p = rs("tolerate_pod", 200, 0, "n1");
        p.spec.as_mut().unwrap().tolerations = Some(vec![core::Toleration {
            key: Some("key".into()),
            value: Some("value".into()),
            ..Default::default()
        }]);
        p
    }

    fn n3_tainted() -> core::Node {
        taint(node("n3", 1000, 3000, 10), "key", "value", "NoSchedule")
    }

    fn low_taints(nodes: Vec<core::Node>, pods: Vec<core::Pod>, per_node: u64) -> Vec<String> {
        low_with(
            nodes,
            pods,
            json!({"thresholds": {"pods": 20}, "targetThresholds": {"pods": 70}}),
            json!({"maxNoOfPodsToEvictPerNode": per_node}),
        )
    }

    /// "No taints"
    #[test]
    fn low_taints_none() {
        let mut pods = n1_pods(rs("pod_8_n1", 200, 0, "n1"));
        pods.push(rs("pod_9_n2", 200, 0, "n2"));
        let nodes = vec![
            node("n1", 2000, 3000, 10),
            node("n2", 1000, 3000, 10),
            node("n3", 1000, 3000, 10),
        ];
        assert_eq!(low_taints(nodes, pods, 1), vec!["pod_1_n1"]);
    }

    /// "No pod tolerates node taint"
    #[test]
    fn low_taints_not_tolerated() {
        let mut pods = n1_pods(rs("pod_8_n1", 200, 0, "n1"));
        pods.push(rs("pod_9_n3", 200, 0, "n3"));
        assert!(low_taints(vec![node("n1", 2000, 3000, 10), n3_tainted()], pods, 0).is_empty());
    }

    /// "Pod which tolerates node taint"
    #[test]
    fn low_taints_tolerated() {
        let mut pods = n1_pods(tolerate_pod());
        pods.push(rs("pod_9_n3", 200, 0, "n3"));
        assert_eq!(
            low_taints(vec![node("n1", 2000, 3000, 10), n3_tainted()], pods, 1),
            vec!["tolerate_pod"]
        );
    }

    /// "Pod which tolerates node taint, set maxPodsToEvictTotal(0), should not be expelled"
    /// (upstream's evictor gets a per-node limit of 0)
    #[test]
    fn low_taints_tolerated_limit_0() {
        let mut pods = n1_pods(tolerate_pod());
        pods.push(rs("pod_9_n3", 200, 0, "n3"));
        assert!(low_taints(vec![node("n1", 2000, 3000, 10), n3_tainted()], pods, 0).is_empty());
    }

    // ---- TestHighNodeUtilization ----

    fn high(nodes: Vec<core::Node>, pods: Vec<core::Pod>, args: Value) -> Vec<String> {
        high_with(nodes, pods, args, json!({"nodeFit": true}), json!({}))
    }

    fn high_with(
        nodes: Vec<core::Node>,
        pods: Vec<core::Pod>,
        args: Value,
        evictor: Value,
        limits: Value,
    ) -> Vec<String> {
        let pol = policy_with_limits("balance", HIGH_NODE_UTILIZATION, args, evictor, limits);
        evicted(cluster(nodes, pods), &pol, 0).0
    }

    fn ht(cpu: i64, pods: Option<i64>) -> Value {
        match pods {
            Some(p) => json!({"thresholds": {"cpu": cpu, "pods": p}}),
            None => json!({"thresholds": {"cpu": cpu}}),
        }
    }

    /// "no node below threshold usage"
    #[test]
    fn high_no_node_below_threshold() {
        let pods = (1..=9)
            .map(|i| rs(&format!("p{i}"), 400, 0, ["n1", "n2", "n3"][(i - 1) / 3]))
            .collect();
        let nodes = vec![
            node("n1", 4000, 3000, 10),
            node("n2", 4000, 3000, 10),
            node("n3", 4000, 3000, 10),
        ];
        assert!(high(nodes, pods, ht(20, Some(20))).is_empty());
    }

    /// "no evictable pods"
    #[test]
    fn high_no_evictable_pods() {
        let mut pods = vec![
            mirror(with_local_storage(normal_owned(pod("p1", 400, 0, "n1")))),
            priority(
                in_namespace(normal_owned(pod("p2", 400, 0, "n1")), "kube-system"),
                SYSTEM_CRITICAL_PRIORITY,
            ),
            owned_by(pod("p3", 400, 0, "n2"), &[("DaemonSet", "")]),
            owned_by(pod("p4", 400, 0, "n2"), &[("DaemonSet", "")]),
        ];
        pods.extend((5..=8).map(|i| rs(&format!("p{i}"), 400, 0, "n3")));
        let nodes = vec![
            node("n1", 4000, 3000, 9),
            node("n2", 4000, 3000, 10),
            node("n3", 4000, 3000, 10),
        ];
        assert!(high(nodes, pods, ht(40, Some(40))).is_empty());
    }

    /// "no node to schedule evicted pods"
    #[test]
    fn high_no_node_to_schedule_on() {
        let pods = vec![
            rs("p1", 400, 0, "n1"),
            rs("p2", 400, 0, "n2"),
            rs("p3", 400, 0, "n3"),
            rs("p4", 400, 0, "n3"),
            rs("p5", 400, 0, "n3"),
        ];
        let nodes = vec![
            node("n1", 4000, 3000, 10),
            node("n2", 4000, 3000, 10),
            unschedulable(node("n3", 4000, 3000, 10)),
        ];
        assert!(high(nodes, pods, ht(20, Some(20))).is_empty());
    }

    /// "without priorities" (upstream names p1 and p7)
    #[test]
    fn high_without_priorities() {
        let mut pods = vec![
            rs("p1", 400, 0, "n1"),
            priority(
                in_namespace(normal_owned(pod("p2", 400, 0, "n1")), "kube-system"),
                SYSTEM_CRITICAL_PRIORITY,
            ),
        ];
        pods.extend((3..=6).map(|i| rs(&format!("p{i}"), 400, 0, "n2")));
        pods.push(rs("p7", 400, 0, "n3"));
        let nodes = vec![
            node("n1", 4000, 3000, 10),
            node("n2", 4000, 3000, 10),
            unschedulable(node("n3", 4000, 3000, 10)),
        ];
        assert_eq!(high(nodes, pods, ht(30, Some(30))), vec!["p7", "p1"]);
    }

    /// "without priorities stop when resource capacity is depleted"
    #[test]
    fn high_stop_when_capacity_is_depleted() {
        let mut pods = vec![rs("p1", 400, 0, "n1")];
        pods.extend((2..=5).map(|i| rs(&format!("p{i}"), 400, 0, "n2")));
        pods.push(rs("p6", 400, 0, "n3"));
        let nodes = vec![
            node("n1", 2000, 3000, 10),
            node("n2", 2000, 3000, 10),
            unschedulable(node("n3", 2000, 3000, 10)),
        ];
        assert_eq!(high(nodes, pods, ht(30, Some(30))).len(), 1);
    }

    /// "with priorities" (upstream names p1)
    #[test]
    fn high_with_priorities() {
        let mut pods = vec![
            priority(rs("p1", 400, 0, "n1"), LOW),
            priority(rs("p2", 400, 0, "n1"), HIGH),
        ];
        pods.extend((5..=8).map(|i| rs(&format!("p{i}"), 400, 0, "n2")));
        pods.push(owned_by(pod("p9", 400, 0, "n3"), &[("DaemonSet", "")]));
        let nodes = vec![
            node("n1", 4000, 3000, 10),
            node("n2", 2000, 3000, 10),
            unschedulable(node("n3", 2000, 3000, 10)),
        ];
        assert_eq!(high(nodes, pods, ht(30, None)), vec!["p1"]);
    }

    /// "without priorities evicting best-effort pods only" (upstream names p1)
    #[test]
    fn high_best_effort_first() {
        let mut pods = vec![best_effort(rs("p1", 0, 0, "n1")), rs("p2", 400, 0, "n1")];
        pods.extend((3..=6).map(|i| rs(&format!("p{i}"), 400, 0, "n2")));
        let nodes = vec![
            node("n1", 3000, 3000, 10),
            node("n2", 3000, 3000, 5),
            unschedulable(node("n3", 3000, 3000, 10)),
        ];
        assert_eq!(high(nodes, pods, ht(30, None)), vec!["p1"]);
    }

    /// "with extended resource" (upstream names p1 and p2)
    #[test]
    fn high_extended_resource() {
        let mut pods = vec![req_ext(rs("p1", 100, 0, "n1"), 1), req_ext(rs("p2", 100, 0, "n1"), 1)];
        pods.extend((3..=6).map(|i| req_ext(rs(&format!("p{i}"), 500, 0, "n2"), 1)));
        let nodes = vec![
            with_ext(node("n1", 4000, 3000, 10), 8),
            with_ext(node("n2", 4000, 3000, 10), 8),
            unschedulable(node("n3", 4000, 3000, 10)),
        ];
        let args = json!({"thresholds": {"cpu": 20, EXT: 40}});
        assert_eq!(high(nodes, pods, args), vec!["p1", "p2"]);
    }

    /// "with extended resource in some of nodes"
    #[test]
    fn high_extended_resource_in_some_nodes() {
        let mut pods = vec![req_ext(rs("p1", 100, 0, "n1"), 1), req_ext(rs("p2", 100, 0, "n1"), 1)];
        pods.extend((3..=6).map(|i| rs(&format!("p{i}"), 500, 0, "n2")));
        let nodes = vec![
            with_ext(node("n1", 4000, 3000, 10), 8),
            node("n2", 4000, 3000, 10),
            unschedulable(node("n3", 4000, 3000, 10)),
        ];
        let args = json!({"thresholds": {"cpu": 40, EXT: 40}});
        assert!(high(nodes, pods, args).is_empty());
    }

    fn selector_case(n1_labelled: bool) -> Vec<String> {
        let mut pods: Vec<core::Pod> = (1..=3).map(|i| rs(&format!("p{i}"), 400, 0, "n1")).collect();
        pods.push(owned_by(pod("p4", 400, 0, "n1"), &[("DaemonSet", "")]));
        pods.push(node_selector(rs("p5", 400, 0, "n2"), &[("datacenter", "west")]));
        let n1 = node("n1", 4000, 3000, 9);
        let n1 = if n1_labelled {
            node_labels(n1, &[("datacenter", "west")])
        } else {
            n1
        };
        high(vec![n1, node("n2", 4000, 3000, 10)], pods, ht(30, Some(30)))
    }

    /// "Other node match pod node selector"
    #[test]
    fn high_other_node_matches_selector() {
        assert_eq!(selector_case(true), vec!["p5"]);
    }

    /// "Other node does not match pod node selector"
    #[test]
    fn high_other_node_does_not_match_selector() {
        assert!(selector_case(false).is_empty());
    }

    /// "Other node does not have enough Memory" (twice upstream)
    #[test]
    fn high_other_node_without_memory() {
        let mut pods: Vec<core::Pod> = (1..=3).map(|i| rs(&format!("p{i}"), 400, 50, "n1")).collect();
        pods.push(owned_by(pod("p4", 400, 50, "n1"), &[("DaemonSet", "")]));
        pods.push(rs("p5", 400, 100, "n2"));
        let nodes = vec![node("n1", 4000, 200, 9), node("n2", 4000, 3000, 10)];
        assert!(high(nodes, pods, ht(30, Some(30))).is_empty());
    }

    /// "with extended resource threshold and no extended resource pods"
    #[test]
    fn high_only_thresholding_resources() {
        let mut pods = vec![req_ext(rs("p1", 100, 0, "n1"), 3), req_ext(rs("p2", 100, 0, "n1"), 3)];
        pods.extend((3..=6).map(|i| rs(&format!("p{i}"), 500, 0, "n2")));
        let nodes = ["n1", "n2", "n3"]
            .iter()
            .map(|n| with_ext(node(n, 4000, 3000, 10), 10))
            .collect();
        let args = json!({"thresholds": {EXT: 40}, "evictionModes": ["OnlyThresholdingResources"]});
        assert!(high(nodes, pods, args).is_empty());
    }

    // ---- TestHighNodeUtilizationWithTaints ----

    fn high_taints(nodes: Vec<core::Node>, pods: Vec<core::Pod>, per_node: u64) -> Vec<String> {
        high_with(
            nodes,
            pods,
            ht(40, None),
            json!({}),
            json!({"maxNoOfPodsToEvictPerNode": per_node}),
        )
    }

    /// "No taints"
    #[test]
    fn high_taints_none() {
        let mut pods: Vec<core::Pod> = (1..=3).map(|i| rs(&format!("pod_{i}_n1"), 200, 0, "n1")).collect();
        pods.push(rs("pod_4_n2", 200, 0, "n2"));
        let nodes = vec![
            node("n1", 1000, 3000, 10),
            node("n2", 1000, 3000, 10),
            node("n3", 1000, 3000, 10),
        ];
        assert_eq!(high_taints(nodes, pods, 1), vec!["pod_4_n2"]);
    }

    /// "No pod tolerates node taint"
    #[test]
    fn high_taints_not_tolerated() {
        let pods = vec![rs("pod_1_n1", 200, 0, "n1"), rs("pod_2_n3", 200, 0, "n3")];
        assert!(high_taints(vec![node("n1", 1000, 3000, 10), n3_tainted()], pods, 0).is_empty());
    }

    /// "Pod which tolerates node taint"
    #[test]
    fn high_taints_tolerated() {
        let pods = vec![
            rs("pod_1_n1", 100, 0, "n1"),
            tolerate_pod(),
            rs("pod_9_n3", 500, 0, "n3"),
        ];
        assert_eq!(
            high_taints(vec![node("n1", 1000, 3000, 10), n3_tainted()], pods, 1),
            vec!["tolerate_pod"]
        );
    }
}
