//! RemovePodsViolatingNodeTaints
//! (pkg/framework/plugins/removepodsviolatingnodetaints/node_taint.go): node by node, the
//! pods (the plugin's namespaces and labelSelector, both evictor filters) that do not
//! tolerate every taint of the node with effect NoSchedule (and PreferNoSchedule with
//! includePreferNoSchedule), among the taints includedTaints keeps (all when unset) and
//! excludedTaints does not drop (`key` or `key=value`). A node limit moves on to the next
//! node; the total limit ends the plugin.

use std::sync::Arc;

use super::pods::PodFilter;
use super::policy::NodeTaintsArgs;
use super::{Ctx, Next};
use crate::engine::plugins::helper::find_untolerated_taint;
use crate::model::{Node, Taint};

fn named(list: &[String], t: &Taint) -> bool {
    list.iter()
        .any(|x| *x == t.key || (!t.value.is_empty() && *x == format!("{}={}", t.key, t.value)))
}

/// Whether the plugin looks at this taint.
pub fn considered(args: &NodeTaintsArgs, t: &Taint) -> bool {
    let effect = t.effect == "NoSchedule" || (args.include_prefer_no_schedule && t.effect == "PreferNoSchedule");
    let excluded = args.excluded_taints.as_deref().is_some_and(|l| named(l, t));
    let included = args.included_taints.as_deref().is_none_or(|l| named(l, t));
    effect && !excluded && included
}

/// Deschedule.
pub fn deschedule(ctx: &mut Ctx<'_>, args: &NodeTaintsArgs, nodes: &[Arc<Node>]) {
    let filter = PodFilter::new(args.common.namespaces.as_ref(), args.common.label_selector.as_ref());
    'nodes: for n in nodes {
        for p in ctx.pods_on(&n.name) {
            if filter.rejects(&p).is_some() {
                continue;
            }
            let Some(t) = find_untolerated_taint(&n.taints, &p.tolerations, true, |t| considered(args, t)) else {
                continue;
            };
            let reason = format!(
                "does not tolerate taint {}{}:{} of node {}",
                t.key,
                if t.value.is_empty() {
                    String::new()
                } else {
                    format!("={}", t.value)
                },
                t.effect,
                n.name
            );
            match ctx.filter_and_evict(&p, reason) {
                Next::Evicted | Next::Pod => {}
                Next::Node => continue 'nodes,
                Next::Stop => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! node_taint_test.go at v0.36, TestDeletePodsViolatingNodeTaints: every case, each
    //! asserting the pods evicted (upstream asserts the count; its comments name the pods).

    use k8s_openapi::api::core::v1 as core;
    use serde_json::{Value, json};

    use crate::engine::deschedule::policy::{NODE_TAINTS, SYSTEM_CRITICAL_PRIORITY};
    use crate::engine::deschedule::testutil::*;

    /// `buildTestNode`: 2000m, 3000, 10 pods.
    fn n(name: &str) -> core::Node {
        node(name, 2000, 3000, 10)
    }

    /// `withTestTaint1`.
    fn test_taint(n: core::Node) -> core::Node {
        taint(n, "testTaint1", "test1", "NoSchedule")
    }

    /// `withTestingTaint1`: upstream's `createNoScheduleTaint` ignores its key and value
    /// arguments, so this is testTaint1=test1 as well.
    fn testing_taint(n: core::Node) -> core::Node {
        taint(n, "testTaint1", "test1", "NoSchedule")
    }

    /// `withPreferNoScheduleTestTaint1`.
    fn prefer_taint(n: core::Node) -> core::Node {
        taint(n, "testTaint1", "test1", "PreferNoSchedule")
    }

    /// `buildTestPodWithNormalOwnerRef`: 100m.
    fn p(name: &str, node: &str) -> core::Pod {
        normal_owned(pod(name, 100, 0, node))
    }

    /// `withTestTaintToleration1`.
    fn tolerates(p: core::Pod) -> core::Pod {
        tolerate(p, "testTaint1", "test1", "NoSchedule")
    }

    /// `withTestTaintXToleration1`.
    fn tolerates_x(p: core::Pod) -> core::Pod {
        tolerate(p, "testTaintX1", "testX1", "NoSchedule")
    }

    /// `withKubeSystemCriticalPod`.
    fn critical(p: core::Pod) -> core::Pod {
        priority(in_namespace(p, "kube-system"), SYSTEM_CRITICAL_PRIORITY)
    }

    fn run(nodes: Vec<core::Node>, pods: Vec<core::Pod>, args: Value, evictor: Value, limits: Value) -> Vec<String> {
        let pol = policy_with_limits("deschedule", NODE_TAINTS, args, evictor, limits);
        evicted(cluster(nodes, pods), &pol, 0).0
    }

    fn simple(nodes: Vec<core::Node>, pods: Vec<core::Pod>, args: Value) -> Vec<String> {
        run(nodes, pods, args, json!({}), json!({}))
    }

    fn three(second: core::Pod) -> Vec<core::Pod> {
        vec![tolerates(p("p1", "n1")), second, tolerates(p("p3", "n1"))]
    }

    fn p5_p6() -> Vec<core::Pod> {
        vec![tolerates(p("p1", "n1")), p("p5", "n1"), p("p6", "n1")]
    }

    fn critical_set(last: core::Pod) -> Vec<core::Pod> {
        vec![
            critical(p("p7", "n2")),
            owned_by(pod("p8", 100, 0, "n2"), &[("DaemonSet", "")]),
            last,
            mirror(p("p10", "n2")),
        ]
    }

    /// "Pods not tolerating node taint should be evicted"
    #[test]
    fn pods_not_tolerating_the_taint() {
        assert_eq!(
            simple(vec![test_taint(n("n1"))], three(p("p2", "n1")), json!({})),
            vec!["p2"]
        );
    }

    /// "Pods with tolerations but not tolerating node taint should be evicted"
    #[test]
    fn pods_with_other_tolerations() {
        let pods = vec![
            tolerates(p("p1", "n1")),
            tolerates(p("p3", "n1")),
            tolerates_x(p("p4", "n1")),
        ];
        assert_eq!(simple(vec![test_taint(n("n1"))], pods, json!({})), vec!["p4"]);
    }

    /// "Only <maxNoOfPodsToEvictTotal> number of Pods not tolerating node taint should be evicted"
    #[test]
    fn max_total() {
        let got = run(
            vec![test_taint(n("n1"))],
            p5_p6(),
            json!({}),
            json!({}),
            json!({"maxNoOfPodsToEvictPerNode": 2, "maxNoOfPodsToEvictTotal": 1}),
        );
        assert_eq!(got, vec!["p5"]);
    }

    /// "Only <maxPodsToEvictPerNode> number of Pods not tolerating node taint should be evicted"
    #[test]
    fn max_per_node() {
        let got = run(
            vec![test_taint(n("n1"))],
            p5_p6(),
            json!({}),
            json!({}),
            json!({"maxNoOfPodsToEvictPerNode": 1}),
        );
        assert_eq!(got, vec!["p5"]);
    }

    /// "Only <maxNoOfPodsToEvictPerNamespace> number of Pods not tolerating node taint should be
    /// evicted" (twice upstream)
    #[test]
    fn max_per_namespace() {
        let got = run(
            vec![test_taint(n("n1"))],
            p5_p6(),
            json!({}),
            json!({}),
            json!({"maxNoOfPodsToEvictPerNamespace": 1}),
        );
        assert_eq!(got, vec!["p5"]);
    }

    /// "Critical pods not tolerating node taint should not be evicted"
    #[test]
    fn critical_pods_stay() {
        let pods = critical_set(with_local_storage(p("p9", "n2")));
        assert!(simple(vec![testing_taint(n("n2"))], pods, json!({})).is_empty());
    }

    /// "Critical pods except storage pods not tolerating node taint should not be evicted"
    #[test]
    fn critical_pods_stay_but_local_storage_goes() {
        let pods = critical_set(with_local_storage(p("p9", "n2")));
        let got = run(
            vec![testing_taint(n("n2"))],
            pods,
            json!({}),
            json!({"evictLocalStoragePods": true}),
            json!({}),
        );
        assert_eq!(got, vec!["p9"]);
    }

    /// "Critical and non critical pods, only non critical pods not tolerating node taint should be evicted"
    #[test]
    fn only_non_critical_pods_go() {
        let pods = critical_set(p("p11", "n2"));
        assert_eq!(simple(vec![testing_taint(n("n2"))], pods, json!({})), vec!["p11"]);
    }

    /// "Critical and non critical pods, pods not tolerating node taint should be evicted even if
    /// they are critical"
    #[test]
    fn critical_pods_go_with_evict_system_critical_pods() {
        let pods = vec![
            p("p2", "n1"),
            critical(p("p7", "n2")),
            with_local_storage(p("p9", "n2")),
            mirror(p("p10", "n2")),
        ];
        let got = run(
            vec![test_taint(n("n1")), testing_taint(n("n2"))],
            pods,
            json!({}),
            json!({"evictSystemCriticalPods": true}),
            json!({}),
        );
        assert_eq!(got, vec!["p2", "p7"]);
    }

    fn node_fit(nodes: Vec<core::Node>, pods: Vec<core::Pod>) -> Vec<String> {
        run(nodes, pods, json!({}), json!({"nodeFit": true}), json!({}))
    }

    /// "Pod p2 doesn't tolerate taint on it's node, but also doesn't tolerate taints on other nodes"
    #[test]
    fn node_fit_other_nodes_tainted() {
        let nodes = vec![test_taint(n("n1")), testing_taint(n("n2"))];
        assert!(node_fit(nodes, three(p("p2", "n1"))).is_empty());
    }

    /// "Pod p12 doesn't tolerate taint on it's node, but other nodes don't match it's selector"
    #[test]
    fn node_fit_other_nodes_do_not_match_the_selector() {
        let pods = vec![
            tolerates(p("p1", "n1")),
            tolerates(p("p3", "n1")),
            node_selector(p("p11", "n2"), &[("datacenter", "west")]),
        ];
        let nodes = vec![test_taint(n("n1")), node_labels(n("n3"), &[("datacenter", "east")])];
        assert!(node_fit(nodes, pods).is_empty());
    }

    /// "Pod p2 doesn't tolerate taint on it's node, but other nodes are unschedulable"
    #[test]
    fn node_fit_other_nodes_unschedulable() {
        let nodes = vec![test_taint(n("n1")), unschedulable(n("n4"))];
        assert!(node_fit(nodes, three(p("p2", "n1"))).is_empty());
    }

    fn p13() -> core::Pod {
        tolerate(p("p13", "n5"), "testTaint0", "test0", "PreferNoSchedule")
    }

    /// "Pods not tolerating PreferNoSchedule node taint should not be evicted when not enabled"
    #[test]
    fn prefer_no_schedule_ignored_by_default() {
        assert!(simple(vec![prefer_taint(n("n5"))], vec![p13()], json!({})).is_empty());
    }

    /// "Pods not tolerating PreferNoSchedule node taint should be evicted when enabled"
    #[test]
    fn prefer_no_schedule_included() {
        let got = simple(
            vec![prefer_taint(n("n5"))],
            vec![p13()],
            json!({"includePreferNoSchedule": true}),
        );
        assert_eq!(got, vec!["p13"]);
    }

    /// "Pods not tolerating excluded node taints (by key) should not be evicted"
    #[test]
    fn excluded_by_key() {
        let got = simple(
            vec![test_taint(n("n1"))],
            vec![p("p2", "n1")],
            json!({"excludedTaints": ["excludedTaint1", "testTaint1"]}),
        );
        assert!(got.is_empty());
    }

    /// "Pods not tolerating excluded node taints (by key and value) should not be evicted"
    #[test]
    fn excluded_by_key_and_value() {
        let got = simple(
            vec![test_taint(n("n1"))],
            vec![p("p2", "n1")],
            json!({"excludedTaints": ["testTaint1=test1"]}),
        );
        assert!(got.is_empty());
    }

    /// "The excluded taint matches the key of node1's taint, but does not match the value"
    #[test]
    fn excluded_value_differs() {
        let got = simple(
            vec![test_taint(n("n1"))],
            vec![p("p2", "n1")],
            json!({"excludedTaints": ["testTaint1=test2"]}),
        );
        assert_eq!(got, vec!["p2"]);
    }

    /// "Critical and non critical pods, pods not tolerating node taint can't be evicted because
    /// the only available node does not have enough resources."
    #[test]
    fn node_fit_only_other_node_too_small() {
        let pods = vec![
            p("p2", "n1"),
            critical(p("p7", "n2")),
            with_local_storage(p("p9", "n2")),
            mirror(p("p10", "n2")),
        ];
        let nodes = vec![test_taint(n("n1")), prefer_taint(node("n6", 1, 1, 1))];
        let got = run(
            nodes,
            pods,
            json!({}),
            json!({"evictSystemCriticalPods": true, "nodeFit": true}),
            json!({}),
        );
        assert!(got.is_empty());
    }

    fn both_taints(n: core::Node) -> core::Node {
        testing_taint(test_taint(n))
    }

    /// "Pods tolerating included taints should not get evicted even with other taints present"
    #[test]
    fn included_taint_tolerated() {
        let got = simple(
            vec![both_taints(n("n7"))],
            vec![tolerates(p("p1", "n1"))],
            json!({"includedTaints": ["testTaint1=test1"]}),
        );
        assert!(got.is_empty());
    }

    /// "Pods not tolerating not included taints should not get evicted"
    #[test]
    fn taint_not_included() {
        let pods = vec![tolerates(p("p1", "n1")), p("p2", "n1"), tolerates_x(p("p4", "n1"))];
        let got = simple(
            vec![test_taint(n("n1"))],
            pods,
            json!({"includedTaints": ["testTaint2=test2"]}),
        );
        assert!(got.is_empty());
    }

    /// "Pods tolerating includedTaint should not get evicted. Pods not tolerating includedTaints
    /// should get evicted"
    #[test]
    fn included_taint_not_tolerated() {
        let got = simple(
            vec![test_taint(n("n1"))],
            three(p("p2", "n1")),
            json!({"includedTaints": ["testTaint1=test1"]}),
        );
        assert_eq!(got, vec!["p2"]);
    }

    /// "Pods not tolerating all taints are evicted when includedTaints is empty". Upstream's
    /// comment says p14 goes; but both node taints are testTaint1=test1 (see
    /// [`testing_taint`]) and `addTolerationToPod` replaces p15's tolerations with
    /// testingTaint1, so p14 tolerates the node and p15 is the one evicted (count 1 either way).
    #[test]
    fn all_taints_included_by_default() {
        let mut p15 = tolerates(p("p15", "n7"));
        p15.spec.as_mut().unwrap().tolerations = None;
        let p15 = tolerate(p15, "testingTaint1", "testing1", "NoSchedule");
        let pods = vec![tolerates(p("p14", "n7")), p15];
        assert_eq!(simple(vec![both_taints(n("n7"))], pods, json!({})), vec!["p15"]);
    }
}
