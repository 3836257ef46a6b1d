//! RemoveDuplicates (pkg/framework/plugins/removeduplicates/removeduplicates.go): pods of the
//! same owner with the same sorted container images, several on one node, are spread: per
//! owner, the feasible nodes are those at least one distinct placement (tolerations, required
//! node affinity, nodeSelector) of its pods can go to (hard taints tolerated, node selector
//! matched) when it can go to more than one; with fewer than two the owner is skipped;
//! otherwise every node keeps at most ceil(owner's pods / feasible nodes) and the rest are
//! evicted. Upstream walks owners and nodes in Go map order; kschedtui in name order.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::Ctx;
use super::evictor::{matches_node_selector, untolerated_hard_taint};
use super::limits::EvictError;
use super::pods::owner_refs;
use super::policy::{Namespaces, RemoveDuplicatesArgs};
use crate::model::{Node, Pod};

/// `podOwner`: namespace, kind, name and the joined sorted images.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Owner {
    namespace: String,
    kind: String,
    name: String,
    images: String,
}

fn images(p: &Pod) -> Vec<String> {
    let mut v: Vec<String> = p
        .spec()
        .containers
        .iter()
        .map(|c| c.image.clone().unwrap_or_default())
        .collect();
    v.sort();
    v
}

/// A pod's placement constraints, normalized for comparison (`TolerationsEqual`,
/// `NodeSelectorsEqual`, nodeSelector equality).
/// Tolerations (key, value, effect, operator), required node affinity, nodeSelector.
type Placement = (Vec<(String, String, String, String)>, String, String);

fn placement(p: &Pod) -> Placement {
    let mut tol: Vec<(String, String, String, String)> = p
        .tolerations
        .iter()
        .map(|t| (t.key.clone(), t.value.clone(), t.effect.clone(), t.operator.clone()))
        .collect();
    tol.sort();
    tol.dedup();
    let spec = p.spec();
    let required = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref())
        .map(|ns| {
            let mut terms: Vec<String> = ns
                .node_selector_terms
                .iter()
                .map(|t| {
                    let norm = |reqs: &Option<Vec<k8s_openapi::api::core::v1::NodeSelectorRequirement>>| {
                        let mut v: Vec<String> = reqs
                            .iter()
                            .flatten()
                            .map(|r| {
                                let mut vals = r.values.clone().unwrap_or_default();
                                vals.sort();
                                vals.dedup();
                                format!("{}|{}|{}", r.key, r.operator, vals.join(","))
                            })
                            .collect();
                        v.sort();
                        v.dedup();
                        v.join(";")
                    };
                    format!("{}#{}", norm(&t.match_expressions), norm(&t.match_fields))
                })
                .collect();
            terms.dedup();
            terms.join("/")
        })
        .unwrap_or_else(|| "<nil>".into());
    let ns = serde_json::to_string(&spec.node_selector).unwrap_or_default();
    (tol, required, ns)
}

/// `getTargetNodes`.
fn target_nodes(pods: &BTreeMap<String, Vec<Arc<Pod>>>, nodes: &[Arc<Node>]) -> BTreeSet<String> {
    let mut distinct: Vec<(_, Arc<Pod>)> = Vec::new();
    for p in pods.values().flatten() {
        let pl = placement(p);
        if !distinct.iter().any(|(d, _)| *d == pl) {
            distinct.push((pl, p.clone()));
        }
    }
    let mut out = BTreeSet::new();
    for (_, p) in distinct {
        let matching: Vec<&Arc<Node>> = nodes
            .iter()
            .filter(|n| untolerated_hard_taint(&p.tolerations, &n.taints).is_none() && matches_node_selector(&p, n))
            .collect();
        if matching.len() > 1 {
            out.extend(matching.iter().map(|n| n.name.clone()));
        }
    }
    out
}

/// Balance.
pub fn balance(ctx: &mut Ctx<'_>, args: &RemoveDuplicatesArgs, nodes: &[Arc<Node>]) {
    let mut duplicates: BTreeMap<Owner, BTreeMap<String, Vec<Arc<Pod>>>> = BTreeMap::new();
    let mut occurrences: BTreeMap<Owner, usize> = BTreeMap::new();
    for n in nodes {
        let mut seen: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
        for p in ctx.pods_on(&n.name) {
            if !Namespaces::admits(args.namespaces.as_ref(), &p.key.namespace) {
                continue;
            }
            let owners = owner_refs(&p);
            if owners.is_empty() || owners.iter().any(|o| args.exclude_owner_kinds.contains(&o.kind)) {
                continue;
            }
            if ctx.both_filters(&p).is_err() {
                continue;
            }
            let imgs = images(&p);
            let hash = imgs.join("#");
            let mut keys = Vec::new();
            for o in owners {
                let owner = Owner {
                    namespace: p.key.namespace.clone(),
                    kind: o.kind.clone(),
                    name: o.name.clone(),
                    images: hash.clone(),
                };
                *occurrences.entry(owner).or_insert(0) += 1;
                for i in &imgs {
                    keys.push(format!("{}/{}/{}/{i}", p.key.namespace, o.kind, o.name));
                }
            }
            keys.sort();
            let Some(first) = keys.first().cloned() else { continue };
            let entry = seen.entry(first).or_default();
            if entry.contains(&keys) {
                for o in owners {
                    let owner = Owner {
                        namespace: p.key.namespace.clone(),
                        kind: o.kind.clone(),
                        name: o.name.clone(),
                        images: hash.clone(),
                    };
                    duplicates
                        .entry(owner)
                        .or_default()
                        .entry(n.name.clone())
                        .or_default()
                        .push(p.clone());
                }
            } else {
                entry.push(keys);
            }
        }
    }
    for (owner, per_node) in &duplicates {
        let targets = target_nodes(per_node, nodes);
        let what = format!(
            "{} {}/{} (images {})",
            owner.kind, owner.namespace, owner.name, owner.images
        );
        if targets.len() < 2 {
            ctx.note(format!(
                "{what}: less than two feasible nodes for duplicates to land, skipping eviction"
            ));
            continue;
        }
        let total = occurrences.get(owner).copied().unwrap_or(0);
        let upper = total.div_ceil(targets.len());
        ctx.note(format!(
            "{what}: {total} pods over {} feasible nodes ({}): at most {upper} per node",
            targets.len(),
            targets.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
        'nodes: for (node, pods) in per_node {
            if pods.len() < upper {
                continue;
            }
            for p in &pods[upper.saturating_sub(1)..] {
                if ctx.cluster.pod(&p.key).is_none() {
                    continue;
                }
                let reason = format!(
                    "{} pods of {} {}/{} on {node} > ceil({total}/{}) = {upper}",
                    pods.len() + 1,
                    owner.kind,
                    owner.namespace,
                    owner.name,
                    targets.len()
                );
                match ctx.evict(p, reason) {
                    Ok(()) => {}
                    Err(EvictError::Node) => continue 'nodes,
                    Err(EvictError::Total) => return,
                    Err(_) => {}
                }
            }
        }
    }
}
