//! RemovePodsViolatingNodeAffinity
//! (pkg/framework/plugins/removepodsviolatingnodeaffinity/node_affinity.go): for each
//! nodeAffinityType in the order given, node by node, the pods (the plugin's namespaces and
//! labelSelector, both evictor filters) whose affinity the node no longer satisfies and that
//! fit some node (`PodFitsAnyNode`):
//! - requiredDuringSchedulingIgnoredDuringExecution: the node does not match the pod's
//!   nodeSelector and required node affinity;
//! - preferredDuringSchedulingIgnoredDuringExecution: some node scores a higher sum of
//!   matching preference weights than the pod's node.
//!
//! A node limit moves on to the next node; the total limit ends the plugin. An unknown type
//! is logged and skipped, as upstream.

use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;

use super::Ctx;
use super::evictor::{fits_any_node, matches_node_selector};
use super::limits::EvictError;
use super::pods::PodFilter;
use super::policy::NodeAffinityArgs;
use crate::model::selector::NodeTerm;
use crate::model::{Node, Pod};

const REQUIRED: &str = "requiredDuringSchedulingIgnoredDuringExecution";
const PREFERRED: &str = "preferredDuringSchedulingIgnoredDuringExecution";

fn node_affinity(p: &Pod) -> Option<&core::NodeAffinity> {
    p.spec().affinity.as_ref()?.node_affinity.as_ref()
}

/// `GetNodeWeightGivenPodPreferredAffinity`: the sum of the weights of the preferences the
/// node matches.
pub fn preferred_weight(p: &Pod, n: &Node) -> i32 {
    node_affinity(p)
        .and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref())
        .into_iter()
        .flatten()
        .filter(|t| NodeTerm::new(&t.preference).matches(&n.labels, &n.name))
        .map(|t| t.weight)
        .sum()
}

/// Deschedule.
pub fn deschedule(ctx: &mut Ctx<'_>, args: &NodeAffinityArgs, nodes: &[Arc<Node>]) {
    let filter = PodFilter::new(args.common.namespaces.as_ref(), args.common.label_selector.as_ref());
    for kind in &args.node_affinity_type {
        if kind != REQUIRED && kind != PREFERRED {
            ctx.note(format!("Invalid nodeAffinityType \"{kind}\" (skipped, as upstream)"));
            continue;
        }
        'nodes: for n in nodes {
            for p in ctx.pods_on(&n.name) {
                if filter.rejects(&p).is_some() {
                    continue;
                }
                let reason = if kind == REQUIRED {
                    let has = node_affinity(&p)
                        .is_some_and(|a| a.required_during_scheduling_ignored_during_execution.is_some());
                    if !has || matches_node_selector(&p, n) {
                        continue;
                    }
                    format!("node {} no longer matches its required node affinity", n.name)
                } else {
                    let has = node_affinity(&p)
                        .and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref())
                        .is_some_and(|v| !v.is_empty());
                    if !has {
                        continue;
                    }
                    let here = preferred_weight(&p, n);
                    let best = nodes
                        .iter()
                        .map(|m| (preferred_weight(&p, m), m))
                        .fold((0, None), |acc, (w, m)| if w > acc.0 { (w, Some(m)) } else { acc });
                    if best.0 <= here {
                        continue;
                    }
                    format!(
                        "preferred node affinity weight {here} on {} < {} on {}",
                        n.name,
                        best.0,
                        best.1.map_or("", |m| m.name.as_str())
                    )
                };
                if let Err(why) = ctx.both_filters(&p) {
                    ctx.protected(&p, reason, why);
                    continue;
                }
                if !fits_any_node(&ctx.by_node, &p, nodes) {
                    ctx.skipped(&p, reason, "fits no node (PodFitsAnyNode)".into());
                    continue;
                }
                match ctx.evict(&p, reason) {
                    Ok(()) => {}
                    Err(EvictError::Node) => continue 'nodes,
                    Err(EvictError::Total) => return,
                    Err(_) => {}
                }
            }
        }
    }
}
