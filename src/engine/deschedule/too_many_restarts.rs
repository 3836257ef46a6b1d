//! RemovePodsHavingTooManyRestarts
//! (pkg/framework/plugins/removepodshavingtoomanyrestarts/toomanyrestarts.go): node by node,
//! the pods (the plugin's namespaces and labelSelector, both evictor filters, every phase)
//! whose containers restarted at least podRestartThreshold times in all (init containers too
//! with includingInitContainers), in one of the states when given (the phase, or a container
//! waiting reason), most restarts first. A node limit moves on to the next node; the total
//! limit ends the plugin.

use std::sync::Arc;

use super::pods::PodFilter;
use super::policy::TooManyRestartsArgs;
use super::{Ctx, Next};
use crate::model::{Node, Pod};

/// `getPodTotalRestarts`.
pub fn restarts(p: &Pod, init: bool) -> i32 {
    let st = p.obj.status.as_ref();
    let sum = |v: Option<&Vec<k8s_openapi::api::core::v1::ContainerStatus>>| -> i32 {
        v.into_iter().flatten().map(|c| c.restart_count).sum()
    };
    let mut n = sum(st.and_then(|s| s.container_statuses.as_ref()));
    if init {
        n += sum(st.and_then(|s| s.init_container_statuses.as_ref()));
    }
    n
}

fn waiting_in(p: &Pod, states: &[String], init: bool) -> bool {
    let st = p.obj.status.as_ref();
    let has = |v: Option<&Vec<k8s_openapi::api::core::v1::ContainerStatus>>| {
        v.into_iter().flatten().any(|c| {
            c.state
                .as_ref()
                .and_then(|s| s.waiting.as_ref())
                .and_then(|w| w.reason.as_ref())
                .is_some_and(|r| states.contains(r))
        })
    };
    has(st.and_then(|s| s.container_statuses.as_ref()))
        || (init && has(st.and_then(|s| s.init_container_statuses.as_ref())))
}

/// Deschedule.
pub fn deschedule(ctx: &mut Ctx<'_>, args: &TooManyRestartsArgs, nodes: &[Arc<Node>]) {
    let filter = PodFilter::new(args.common.namespaces.as_ref(), args.common.label_selector.as_ref());
    let init = args.including_init_containers;
    'nodes: for n in nodes {
        let mut pods: Vec<(i32, Arc<Pod>)> = ctx
            .all_pods_on(&n.name)
            .into_iter()
            .filter(|p| filter.rejects(p).is_none())
            .map(|p| (restarts(&p, init), p))
            .filter(|(r, _)| *r >= args.pod_restart_threshold)
            .filter(|(_, p)| {
                args.states.is_empty()
                    || args.states.iter().any(|s| s == p.phase())
                    || waiting_in(p, &args.states, init)
            })
            .collect();
        pods.sort_by_key(|(r, _)| std::cmp::Reverse(*r));
        for (r, p) in pods {
            let reason = format!(
                "{r} container restarts >= podRestartThreshold {}",
                args.pod_restart_threshold
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
    //! toomanyrestarts_test.go at v0.36, TestRemovePodsHavingTooManyRestarts: every case, each
    //! asserting the pods evicted in order (upstream asserts the count).

    use k8s_openapi::api::core::v1 as core;
    use serde_json::{Value, json};

    use crate::engine::deschedule::policy::TOO_MANY_RESTARTS;
    use crate::engine::deschedule::testutil::*;

    fn restarts(n: i32) -> core::ContainerStatus {
        core::ContainerStatus {
            name: "c".into(),
            restart_count: n,
            ..Default::default()
        }
    }

    /// `initPods(apply)`: pod-0 .. pod-9 on node1, pod-i with 5i init and 2 × 10i container
    /// restarts; pod-6 a DaemonSet pod, pod-7 with local storage, pod-8 a mirror pod; two
    /// CPU consumers on node4 and node5.
    fn init_pods(apply: impl Fn(&mut core::Pod)) -> Vec<core::Pod> {
        let mut out = Vec::new();
        for i in 0..=9 {
            let mut p = normal_owned(pod(&format!("pod-{i}"), 100, 0, "node1"));
            p.status = Some(core::PodStatus {
                init_container_statuses: Some(vec![restarts(5 * i)]),
                container_statuses: Some(vec![restarts(10 * i), restarts(10 * i)]),
                ..Default::default()
            });
            p = match i {
                6 => owned_by(p, &[("DaemonSet", "")]),
                7 => with_local_storage(p),
                8 => mirror(p),
                _ => p,
            };
            apply(&mut p);
            out.push(p);
        }
        out.push(normal_owned(pod("CPU-consumer-1", 150, 100, "node4")));
        out.push(normal_owned(pod("CPU-consumer-2", 150, 100, "node5")));
        out
    }

    fn plain() -> Vec<core::Pod> {
        init_pods(|_| {})
    }

    fn n(name: &str) -> core::Node {
        node(name, 2000, 3000, 10)
    }

    fn run(nodes: Vec<core::Node>, pods: Vec<core::Pod>, args: Value, limits: Value, node_fit: bool) -> Vec<String> {
        let pol = policy_with_limits(
            "deschedule",
            TOO_MANY_RESTARTS,
            args,
            json!({"nodeFit": node_fit}),
            limits,
        );
        evicted(cluster(nodes, pods), &pol, 0).0
    }

    fn threshold(t: i32, init: bool) -> Value {
        json!({"podRestartThreshold": t, "includingInitContainers": init})
    }

    fn simple(t: i32, init: bool) -> Vec<String> {
        run(vec![n("node1")], plain(), threshold(t, init), json!({}), false)
    }

    const SIX: [&str; 6] = ["pod-9", "pod-5", "pod-4", "pod-3", "pod-2", "pod-1"];
    const THREE: [&str; 3] = ["pod-9", "pod-5", "pod-4"];

    /// "All pods have total restarts under threshold, no pod evictions"
    #[test]
    fn under_threshold() {
        assert!(simple(10000, true).is_empty());
    }

    /// "Some pods have total restarts bigger than threshold"
    #[test]
    fn bigger_than_threshold() {
        assert_eq!(simple(1, true), SIX);
    }

    /// "Nine pods have total restarts equals threshold(includingInitContainers=true), 6 pod evictions"
    #[test]
    fn equal_threshold_25_with_init() {
        assert_eq!(simple(25, true), SIX);
    }

    /// "Nine pods have total restarts equals threshold(includingInitContainers=false), 5 pod evictions"
    #[test]
    fn equal_threshold_25_without_init() {
        assert_eq!(simple(25, false), SIX[..5]);
    }

    /// "All pods have total restarts equals threshold(includingInitContainers=true), 6 pod evictions"
    #[test]
    fn equal_threshold_20_with_init() {
        assert_eq!(simple(20, true), SIX);
    }

    /// "Nine pods have total restarts equals threshold(includingInitContainers=false), 6 pod evictions"
    #[test]
    fn equal_threshold_20_without_init() {
        assert_eq!(simple(20, false), SIX);
    }

    /// "Five pods have total restarts bigger than threshold(includingInitContainers=true), but only 1 pod eviction"
    #[test]
    fn only_the_unprotected_pod_above_126() {
        assert_eq!(simple(5 * 25 + 1, true), vec!["pod-9"]);
    }

    /// "Five pods have total restarts bigger than threshold(includingInitContainers=false), but only 1 pod eviction"
    #[test]
    fn only_the_unprotected_pod_above_101() {
        assert_eq!(simple(5 * 20 + 1, false), vec!["pod-9"]);
    }

    /// "All pods have total restarts equals threshold(maxPodsToEvictPerNode=3), 3 pod evictions"
    #[test]
    fn max_per_node_3() {
        let got = run(
            vec![n("node1")],
            plain(),
            threshold(1, true),
            json!({"maxNoOfPodsToEvictPerNode": 3}),
            false,
        );
        assert_eq!(got, THREE);
    }

    /// "All pods have total restarts equals threshold(maxNoOfPodsToEvictPerNamespace=3), 3 pod evictions"
    #[test]
    fn max_per_namespace_3() {
        let got = run(
            vec![n("node1")],
            plain(),
            threshold(1, true),
            json!({"maxNoOfPodsToEvictPerNamespace": 3}),
            false,
        );
        assert_eq!(got, THREE);
    }

    fn node_fit_with(other: core::Node) -> Vec<String> {
        run(
            vec![n("node1"), other],
            plain(),
            threshold(1, true),
            json!({"maxNoOfPodsToEvictPerNode": 3}),
            true,
        )
    }

    /// "All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other
    /// node is tainted, 0 pod evictions"
    #[test]
    fn node_fit_other_node_tainted() {
        assert!(node_fit_with(taint(n("node2"), "hardware", "gpu", "NoSchedule")).is_empty());
    }

    /// "... but the only other node is not schedulable, 0 pod evictions"
    #[test]
    fn node_fit_other_node_unschedulable() {
        assert!(node_fit_with(unschedulable(n("node3"))).is_empty());
    }

    /// "... but the only other node does not have enough CPU, 0 pod evictions"
    #[test]
    fn node_fit_other_node_without_cpu() {
        assert!(node_fit_with(node("node4", 200, 3000, 10)).is_empty());
    }

    /// "... but the only other node has enough CPU, 3 pod evictions"
    #[test]
    fn node_fit_other_node_with_cpu() {
        assert_eq!(node_fit_with(n("node5")), THREE);
    }

    fn states(pods: Vec<core::Pod>, nodes: Vec<core::Node>, args: Value, node_fit: bool) -> Vec<String> {
        run(nodes, pods, args, json!({"maxNoOfPodsToEvictPerNode": 3}), node_fit)
    }

    fn waiting(reason: &str) -> Option<core::ContainerState> {
        Some(core::ContainerState {
            waiting: Some(core::ContainerStateWaiting {
                reason: Some(reason.into()),
                ..Default::default()
            }),
            ..Default::default()
        })
    }

    /// "pods are in CrashLoopBackOff with states=CrashLoopBackOff, 3 pod evictions"
    #[test]
    fn crash_loop_back_off_state() {
        let pods = init_pods(|p| {
            if let Some(cs) = p.status.as_mut().and_then(|s| s.container_statuses.as_mut()) {
                cs[0].state = waiting("CrashLoopBackOff");
            }
        });
        let args = json!({"podRestartThreshold": 1, "states": ["CrashLoopBackOff"]});
        assert_eq!(states(pods, vec![n("node1"), n("node5")], args, true), THREE);
    }

    /// "pods without CrashLoopBackOff with states=CrashLoopBackOff, 0 pod evictions"
    #[test]
    fn crash_loop_back_off_state_not_met() {
        let args = json!({"podRestartThreshold": 1, "states": ["CrashLoopBackOff"]});
        assert!(states(plain(), vec![n("node1"), n("node5")], args, true).is_empty());
    }

    fn in_phase(phase: &str) -> Vec<core::Pod> {
        init_pods(|p| p.status.get_or_insert_with(Default::default).phase = Some(phase.into()))
    }

    /// "pods running with state=Running, 3 pod evictions"
    #[test]
    fn running_state() {
        let args = json!({"podRestartThreshold": 1, "states": ["Running"]});
        assert_eq!(states(in_phase("Running"), vec![n("node1")], args, false), THREE);
    }

    /// "pods pending with state=Running, 0 pod evictions"
    #[test]
    fn pending_pods_with_running_state() {
        let args = json!({"podRestartThreshold": 1, "states": ["Running"]});
        assert!(states(in_phase("Pending"), vec![n("node1")], args, false).is_empty());
    }

    fn init_waiting() -> Vec<core::Pod> {
        init_pods(|p| {
            p.status.get_or_insert_with(Default::default).init_container_statuses = Some(vec![core::ContainerStatus {
                name: "c".into(),
                state: waiting("CrashLoopBackOff"),
                ..Default::default()
            }]);
        })
    }

    /// "pods pending with initContainer with states=CrashLoopBackOff
    /// threshold(includingInitContainers=true), 3 pod evictions"
    #[test]
    fn init_container_crash_loop_included() {
        let args = json!({"podRestartThreshold": 1, "states": ["CrashLoopBackOff"], "includingInitContainers": true});
        assert_eq!(states(init_waiting(), vec![n("node1")], args, false), THREE);
    }

    /// "pods pending with initContainer with states=CrashLoopBackOff
    /// threshold(includingInitContainers=false), 0 pod evictions"
    #[test]
    fn init_container_crash_loop_not_included() {
        let args = json!({"podRestartThreshold": 1, "states": ["CrashLoopBackOff"], "includingInitContainers": false});
        assert!(states(init_waiting(), vec![n("node1")], args, false).is_empty());
    }
}
