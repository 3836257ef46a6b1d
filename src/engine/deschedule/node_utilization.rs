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
    if lows.is_empty() {
        ctx.note("No node is underutilized, nothing to do here, you might tune your thresholds further".into());
        return;
    }
    if lows.len() as i64 <= args.number_of_nodes {
        ctx.note(format!(
            "Number of nodes underutilized ({}) is less or equal than NumberOfNodes ({}), nothing to do here",
            lows.len(),
            args.number_of_nodes
        ));
        return;
    }
    if lows.len() == nodes.len() {
        ctx.note("All nodes are underutilized, nothing to do here".into());
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
    if lows.is_empty() {
        ctx.note("No node is underutilized, nothing to do here, you might tune your thresholds further".into());
        return;
    }
    if lows.len() as i64 <= args.number_of_nodes {
        ctx.note(format!(
            "Number of nodes underutilized ({}) is less or equal than NumberOfNodes ({}), nothing to do here",
            lows.len(),
            args.number_of_nodes
        ));
        return;
    }
    if lows.len() == nodes.len() {
        ctx.note("All nodes are underutilized, nothing to do here".into());
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
