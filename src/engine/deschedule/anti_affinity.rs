//! RemovePodsViolatingInterPodAntiAffinity
//! (pkg/framework/plugins/removepodsviolatinginterpodantiaffinity/pod_antiaffinity.go,
//! pkg/utils/predicates.go `CheckPodsWithAntiAffinityExist`): node by node, the pods of the
//! node (the plugin's namespaces and labelSelector) from lowest priority up; a pod whose
//! required anti-affinity term matches another listed pod on a node with the same value of the
//! term's topology key (or the same node) is evicted if the evictor allows it, and is then no
//! longer counted against the others. A node limit moves on to the next node; the total limit
//! ends the plugin.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::evictor::anti_affinity_terms;
use super::pods::{PodFilter, sort_by_priority_low_to_high};
use super::policy::Common;
use super::{Ctx, Next};
use crate::model::{Node, Pod};

/// The pod on a node sharing the topology value that the candidate's anti-affinity rejects,
/// with the topology key; None when there is none.
fn violation(
    cand: &Pod,
    by_ns: &BTreeMap<String, Vec<Arc<Pod>>>,
    nodes: &BTreeMap<&str, &Arc<Node>>,
) -> Option<(Arc<Pod>, String)> {
    let here = nodes.get(cand.node_name.as_deref()?)?;
    for (namespaces, selector, key) in anti_affinity_terms(cand) {
        for ns in &namespaces {
            for other in by_ns.get(ns).into_iter().flatten() {
                if other.key.name == cand.key.name
                    || !namespaces.contains(other.key.namespace.as_str())
                    || !selector.matches(&other.labels)
                {
                    continue;
                }
                let Some(there) = other.node_name.as_deref().and_then(|n| nodes.get(n)) else {
                    continue;
                };
                let same = here.name == there.name
                    || matches!((here.labels.get(&key), there.labels.get(&key)), (Some(a), Some(b)) if a == b);
                if same {
                    return Some((other.clone(), key));
                }
            }
        }
    }
    None
}

/// Deschedule.
pub fn deschedule(ctx: &mut Ctx<'_>, args: &Common, nodes: &[Arc<Node>]) {
    let filter = PodFilter::new(args.namespaces.as_ref(), args.label_selector.as_ref());
    let mut by_ns: BTreeMap<String, Vec<Arc<Pod>>> = BTreeMap::new();
    let mut by_node: BTreeMap<String, Vec<Arc<Pod>>> = BTreeMap::new();
    for n in nodes {
        for p in ctx.pods_on(&n.name) {
            if filter.rejects(&p).is_none() {
                by_ns.entry(p.key.namespace.to_string()).or_default().push(p.clone());
                by_node.entry(n.name.clone()).or_default().push(p);
            }
        }
    }
    let node_map: BTreeMap<&str, &Arc<Node>> = nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    'nodes: for n in nodes {
        let mut pods = by_node.remove(&n.name).unwrap_or_default();
        sort_by_priority_low_to_high(&mut pods);
        for p in pods {
            let Some((other, key)) = violation(&p, &by_ns, &node_map) else {
                continue;
            };
            let reason = format!(
                "violates anti-affinity with {} on {} (topologyKey {key})",
                other.key,
                other.node_name.as_deref().unwrap_or_default()
            );
            match ctx.filter_and_evict(&p, reason) {
                Next::Evicted => {
                    if let Some(list) = by_ns.get_mut(p.key.namespace.as_str()) {
                        list.retain(|x| x.key.name != p.key.name);
                    }
                }
                Next::Pod => {}
                Next::Node => continue 'nodes,
                Next::Stop => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::engine::deschedule::policy::INTER_POD_ANTI_AFFINITY;
    use crate::engine::deschedule::testutil::*;

    fn n1() -> k8s_openapi::api::core::v1::Node {
        node_labels(node("n1", 2000, 3000, 10), &[("region", "main-region")])
    }
    fn p(name: &str) -> k8s_openapi::api::core::v1::Pod {
        pod(name, 100, 0, "n1")
    }
    fn with_anti(name: &str) -> k8s_openapi::api::core::v1::Pod {
        anti_affinity(normal_owned(p(name)), "foo", "bar")
    }
    fn p2() -> k8s_openapi::api::core::v1::Pod {
        labels(normal_owned(p("p2")), &[("foo", "bar")])
    }
    fn non_evictable() -> k8s_openapi::api::core::v1::Pod {
        labels(priority(p("non-evict"), 2_000_000_000), &[("foo", "bar")])
    }

    fn run(
        pods: Vec<k8s_openapi::api::core::v1::Pod>,
        nodes: Vec<k8s_openapi::api::core::v1::Node>,
        limits: serde_json::Value,
        node_fit: bool,
    ) -> Vec<String> {
        let pol = policy_with_limits(
            "deschedule",
            INTER_POD_ANTI_AFFINITY,
            json!({}),
            json!({"nodeFit": node_fit}),
            limits,
        );
        evicted(cluster(nodes, pods), &pol, 0).0
    }

    fn four() -> Vec<k8s_openapi::api::core::v1::Pod> {
        vec![with_anti("p1"), p2(), with_anti("p3"), with_anti("p4")]
    }

    fn p8() -> k8s_openapi::api::core::v1::Pod {
        let mut p8 = p("p8");
        p8.spec.as_mut().unwrap().node_selector = Some([("datacenter".to_string(), "west".to_string())].into());
        p8
    }

    // pod_antiaffinity_test.go TestPodAntiAffinity (v0.36): every case, each asserting the
    // pods evicted (upstream asserts the count).

    /// "Maximum pods to evict - 0"
    #[test]
    fn maximum_pods_to_evict_0() {
        assert_eq!(run(four(), vec![n1()], json!({}), false), vec!["p1", "p3", "p4"]);
    }

    /// "Maximum pods to evict - 3"
    #[test]
    fn maximum_pods_to_evict_3() {
        let got = run(four(), vec![n1()], json!({"maxNoOfPodsToEvictPerNode": 3}), false);
        assert_eq!(got, vec!["p1", "p3", "p4"]);
    }

    /// "Maximum pods to evict (maxPodsToEvictPerNamespace=3) - 3"
    #[test]
    fn maximum_pods_to_evict_per_namespace_3() {
        let got = run(four(), vec![n1()], json!({"maxNoOfPodsToEvictPerNamespace": 3}), false);
        assert_eq!(got, vec!["p1", "p3", "p4"]);
    }

    /// "Maximum pods to evict (maxNoOfPodsToEvictTotal)"
    #[test]
    fn maximum_pods_to_evict_total() {
        let limits = json!({"maxNoOfPodsToEvictPerNamespace": 3, "maxNoOfPodsToEvictTotal": 1});
        assert_eq!(run(four(), vec![n1()], limits, false), vec!["p1"]);
    }

    /// "Evict only 1 pod after sorting"
    #[test]
    fn evict_only_one_pod_after_sorting() {
        let pods = vec![
            priority(
                anti_affinity(labels(normal_owned(p("p5")), &[("foo", "bar")]), "foo1", "bar1"),
                100,
            ),
            priority(
                anti_affinity(labels(normal_owned(p("p6")), &[("foo", "bar")]), "foo1", "bar1"),
                50,
            ),
            priority(
                anti_affinity(labels(normal_owned(p("p7")), &[("foo1", "bar1")]), "foo", "bar"),
                0,
            ),
        ];
        assert_eq!(run(pods, vec![n1()], json!({}), false), vec!["p7"]);
    }

    /// "Evicts pod that conflicts with critical pod (but does not evict critical pod)" (twice
    /// upstream)
    #[test]
    fn evicts_pod_conflicting_with_critical_pod() {
        let got = run(
            vec![with_anti("p1"), non_evictable()],
            vec![n1()],
            json!({"maxNoOfPodsToEvictPerNode": 1}),
            false,
        );
        assert_eq!(got, vec!["p1"]);
    }

    /// "Won't evict pods because node selectors don't match available nodes"
    #[test]
    fn node_selectors_do_not_match_available_nodes() {
        let nodes = vec![n1(), node_labels(node("n2", 2000, 3000, 10), &[("datacenter", "east")])];
        let got = run(
            vec![p8(), non_evictable()],
            nodes,
            json!({"maxNoOfPodsToEvictPerNode": 1}),
            true,
        );
        assert!(got.is_empty());
    }

    /// "Won't evict pods because only other node is not schedulable"
    #[test]
    fn only_other_node_unschedulable() {
        let nodes = vec![n1(), unschedulable(node("n3", 2000, 3000, 10))];
        let got = run(
            vec![p8(), non_evictable()],
            nodes,
            json!({"maxNoOfPodsToEvictPerNode": 1}),
            true,
        );
        assert!(got.is_empty());
    }

    /// "No pod to evicted since all pod terminating"
    #[test]
    fn all_pods_terminating() {
        let pods = vec![terminating(with_anti("p9")), terminating(with_anti("p10"))];
        assert!(run(pods, vec![n1()], json!({}), false).is_empty());
    }

    /// "Won't evict pods because only other node doesn't have enough resources"
    #[test]
    fn only_other_node_without_resources() {
        let got = run(
            four(),
            vec![n1(), node("n4", 2, 2, 1)],
            json!({"maxNoOfPodsToEvictPerNode": 3}),
            true,
        );
        assert!(got.is_empty());
    }

    /// "Evict pod violating anti-affinity among different node (all pods have anti-affinity)"
    #[test]
    fn violation_across_nodes() {
        let pods = vec![
            with_anti("p1"),
            labels(normal_owned(pod("p11", 100, 0, "n5")), &[("foo", "bar")]),
        ];
        let nodes = vec![
            n1(),
            node_labels(node("n5", 200, 3000, 10), &[("region", "main-region")]),
        ];
        assert_eq!(run(pods, nodes, json!({}), false), vec!["p1"]);
    }

    #[test]
    fn reason_names_the_other_pod_and_node() {
        let pol = policy("deschedule", INTER_POD_ANTI_AFFINITY, json!({}), json!({}));
        let (_, r) = evicted(cluster(vec![n1()], vec![with_anti("p1"), p2()]), &pol, 0);
        assert_eq!(
            r.runs[0].candidates[0].reason,
            "violates anti-affinity with default/p2 on n1 (topologyKey region)"
        );
    }
}
