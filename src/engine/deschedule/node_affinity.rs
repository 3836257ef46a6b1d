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
            // Upstream lists the node's pods through its filters first, then evicts them: the
            // checks below all see the node as it was before this node's evictions.
            let mut chosen = Vec::new();
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
                chosen.push((p, reason));
            }
            for (p, reason) in chosen {
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

#[cfg(test)]
mod tests {
    //! node_affinity_test.go at v0.36, TestRemovePodsViolatingNodeAffinity: every case, each
    //! asserting the pods evicted (upstream asserts the count).

    use k8s_openapi::api::core::v1 as core;
    use serde_json::{Value, json};

    use super::{PREFERRED, REQUIRED};
    use crate::engine::deschedule::policy::NODE_AFFINITY;
    use crate::engine::deschedule::testutil::*;

    const KEY: &str = "kubernetes.io/desiredNode";
    const WITH: &str = "nodeWithLabels";
    const WITHOUT: &str = "nodeWithoutLabels";

    fn with_labels() -> core::Node {
        node_labels(node(WITH, 2000, 3000, 10), &[(KEY, "yes")])
    }

    fn without_labels() -> core::Node {
        node(WITHOUT, 2000, 3000, 10)
    }

    /// `buildUnschedulableNodeWithLabels`.
    fn unschedulable_with_labels() -> core::Node {
        unschedulable(node_labels(
            node("unschedulableNodeWithLabels", 2000, 3000, 10),
            &[(KEY, "yes")],
        ))
    }

    /// `addPodsToNode`: podWithNodeAffinity (of `kind`), pod1, pod2, all owned.
    fn pods_on(node_name: &str, deleting: bool, kind: &str) -> Vec<core::Pod> {
        let mut with = normal_owned(pod("podWithNodeAffinity", 100, 0, node_name));
        let term = core::NodeSelectorTerm {
            match_expressions: Some(vec![core::NodeSelectorRequirement {
                key: KEY.into(),
                operator: "In".into(),
                values: Some(vec!["yes".into()]),
            }]),
            ..Default::default()
        };
        let mut aff = core::NodeAffinity::default();
        if kind == REQUIRED {
            aff.required_during_scheduling_ignored_during_execution = Some(core::NodeSelector {
                node_selector_terms: vec![term],
            });
        } else if kind == PREFERRED {
            aff.preferred_during_scheduling_ignored_during_execution = Some(vec![core::PreferredSchedulingTerm {
                weight: 10,
                preference: term,
            }]);
        }
        with.spec.as_mut().unwrap().affinity = Some(core::Affinity {
            node_affinity: Some(aff),
            ..Default::default()
        });
        let mut out = vec![
            with,
            normal_owned(pod("pod1", 100, 0, node_name)),
            normal_owned(pod("pod2", 100, 0, node_name)),
        ];
        if deleting {
            out = out.into_iter().map(terminating).collect();
        }
        out
    }

    fn run(kind: &str, nodes: Vec<core::Node>, pods: Vec<core::Pod>, limits: Value, node_fit: bool) -> Vec<String> {
        let pol = policy_with_limits(
            "deschedule",
            NODE_AFFINITY,
            json!({"nodeAffinityType": [kind]}),
            json!({"nodeFit": node_fit}),
            limits,
        );
        evicted(cluster(nodes, pods), &pol, 0).0
    }

    fn both() -> Vec<core::Node> {
        vec![without_labels(), with_labels()]
    }

    /// The cases upstream runs for both types, with the limits given.
    fn violating(kind: &str, deleting: bool, limits: Value) -> Vec<String> {
        run(kind, both(), pods_on(WITHOUT, deleting, kind), limits, false)
    }

    /// "Invalid Affinity type, should not evict any pods"
    #[test]
    fn invalid_affinity_type() {
        let kind = "requiredDuringSchedulingRequiredDuringExecution";
        assert!(run(kind, both(), pods_on(WITHOUT, false, kind), json!({}), false).is_empty());
    }

    /// "Pod is correctly scheduled on node, no eviction expected [required affinity]"
    #[test]
    fn correctly_scheduled_required() {
        let got = run(
            REQUIRED,
            vec![with_labels()],
            pods_on(WITH, false, REQUIRED),
            json!({}),
            false,
        );
        assert!(got.is_empty());
    }

    /// "Pod is correctly scheduled on node, no eviction expected [preferred affinity]"
    #[test]
    fn correctly_scheduled_preferred() {
        let got = run(
            PREFERRED,
            vec![with_labels()],
            pods_on(WITH, false, PREFERRED),
            json!({}),
            false,
        );
        assert!(got.is_empty());
    }

    /// "Pod is scheduled on node without matching labels, another schedulable node available,
    /// should be evicted"
    #[test]
    fn violating_required() {
        assert_eq!(violating(REQUIRED, false, json!({})), vec!["podWithNodeAffinity"]);
    }

    /// "Pod is scheduled on node without matching labels, another schedulable node available with
    /// better fit, should be evicted"
    #[test]
    fn violating_preferred() {
        assert_eq!(violating(PREFERRED, false, json!({})), vec!["podWithNodeAffinity"]);
    }

    /// "... maxPodsToEvictPerNode set to 1, should be evicted [required affinity]" and
    /// "[preferred affinity]"
    #[test]
    fn max_per_node_1() {
        for kind in [REQUIRED, PREFERRED] {
            let got = violating(kind, false, json!({"maxNoOfPodsToEvictPerNode": 1}));
            assert_eq!(got, vec!["podWithNodeAffinity"], "{kind}");
        }
    }

    /// "... maxPodsToEvictPerNode set to 0, should be not evicted [required affinity]" and
    /// "[preferred affinity]"
    #[test]
    fn max_per_node_0() {
        for kind in [REQUIRED, PREFERRED] {
            assert!(
                violating(kind, false, json!({"maxNoOfPodsToEvictPerNode": 0})).is_empty(),
                "{kind}"
            );
        }
    }

    /// "... maxPodsToEvictPerNode set to 1, no pod evicted since pod terminating [required
    /// affinity]" and "[preferred affinity]"
    #[test]
    fn max_per_node_1_terminating() {
        for kind in [REQUIRED, PREFERRED] {
            assert!(
                violating(kind, true, json!({"maxNoOfPodsToEvictPerNode": 1})).is_empty(),
                "{kind}"
            );
        }
    }

    /// "... maxNoOfPodsToEvictPerNamespace set to 1, should be evicted [required affinity]" and
    /// "[preferred affinity]"
    #[test]
    fn max_per_namespace_1() {
        for kind in [REQUIRED, PREFERRED] {
            let got = violating(kind, false, json!({"maxNoOfPodsToEvictPerNamespace": 1}));
            assert_eq!(got, vec!["podWithNodeAffinity"], "{kind}");
        }
    }

    /// "... maxNoOfPodsToEvictTotal set to 0, should not be evicted [required affinity]"
    #[test]
    fn max_total_0() {
        let limits = json!({"maxNoOfPodsToEvictPerNamespace": 1, "maxNoOfPodsToEvictTotal": 0});
        assert!(violating(REQUIRED, false, limits).is_empty());
    }

    /// "... maxNoOfPodsToEvictPerNamespace set to 0, should not be evicted [required affinity]"
    /// and "[preferred affinity]"
    #[test]
    fn max_per_namespace_0() {
        for kind in [REQUIRED, PREFERRED] {
            assert!(
                violating(kind, false, json!({"maxNoOfPodsToEvictPerNamespace": 0})).is_empty(),
                "{kind}"
            );
        }
    }

    /// "... maxNoOfPodsToEvictPerNamespace set to 1, no pod evicted since pod terminting
    /// [required affinity]" and "[preferred affinity]"
    #[test]
    fn max_per_namespace_1_terminating() {
        for kind in [REQUIRED, PREFERRED] {
            let got = violating(kind, true, json!({"maxNoOfPodsToEvictPerNamespace": 1}));
            assert!(got.is_empty(), "{kind}");
        }
    }

    /// "Pod is scheduled on node without matching labels, but no node where pod fits is
    /// available, should not evict [required affinity]" and "[preferred affinity]"
    #[test]
    fn no_node_where_the_pod_fits() {
        for kind in [REQUIRED, PREFERRED] {
            let nodes = vec![without_labels(), unschedulable_with_labels()];
            let got = run(kind, nodes, pods_on(WITHOUT, false, kind), json!({}), true);
            assert!(got.is_empty(), "{kind}");
        }
    }

    /// "Pod is scheduled on node without matching labels, and unschedulable node where pod could
    /// fit is available, should not evict [required affinity]" and "[preferred affinity]"
    #[test]
    fn pods_node_not_in_the_cycle() {
        for kind in [REQUIRED, PREFERRED] {
            let nodes = vec![with_labels(), unschedulable_with_labels()];
            let got = run(
                kind,
                nodes,
                pods_on(WITHOUT, false, kind),
                json!({"maxNoOfPodsToEvictPerNode": 1}),
                true,
            );
            assert!(got.is_empty(), "{kind}");
        }
    }
}
