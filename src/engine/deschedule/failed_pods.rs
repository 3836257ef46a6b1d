//! RemoveFailedPods (pkg/framework/plugins/removefailedpods/failedpods.go): node by node,
//! the pods in phase Failed (the plugin's namespaces and labelSelector, both evictor filters)
//! at least minPodLifetimeSeconds old (3600 by default), whose owner kinds are not excluded,
//! with one of the reasons (container waiting/terminated reasons, the pod's status.reason,
//! the init containers' with includingInitContainers) and exit codes when those are given. A
//! node limit moves on to the next node; the total limit ends the plugin.

use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;

use super::pods::{PodFilter, age_seconds, created, go_duration, owner_refs};
use super::policy::FailedPodsArgs;
use super::{Ctx, Next};
use crate::model::{Node, Pod};

fn reasons(statuses: Option<&Vec<core::ContainerStatus>>) -> Vec<String> {
    let mut out = Vec::new();
    for cs in statuses.into_iter().flatten() {
        let st = cs.state.as_ref();
        if let Some(r) = st
            .and_then(|s| s.waiting.as_ref())
            .and_then(|w| w.reason.clone())
            .filter(|r| !r.is_empty())
        {
            out.push(r);
        }
        if let Some(r) = st
            .and_then(|s| s.terminated.as_ref())
            .and_then(|t| t.reason.clone())
            .filter(|r| !r.is_empty())
        {
            out.push(r);
        }
    }
    out
}

/// Exit codes of the terminated containers.
pub fn exit_codes(statuses: Option<&Vec<core::ContainerStatus>>) -> Vec<i32> {
    statuses
        .into_iter()
        .flatten()
        .filter_map(|cs| cs.state.as_ref()?.terminated.as_ref().map(|t| t.exit_code))
        .collect()
}

/// `validateCanEvict`: Ok with what qualifies the pod, or why it does not.
fn can_evict(p: &Pod, a: &FailedPodsArgs, now: k8s_openapi::jiff::Timestamp) -> Result<String, String> {
    let mut errs = Vec::new();
    let age = age_seconds(created(p), now).max(0);
    if let Some(min) = a.min_pod_lifetime_seconds
        && (age as u64) < min
    {
        errs.push(format!("pod does not exceed the min age seconds of {min}"));
    }
    for o in owner_refs(p) {
        if a.exclude_owner_kinds.contains(&o.kind) {
            errs.push(format!("pod's owner kind of {} is excluded", o.kind));
        }
    }
    let st = p.obj.status.as_ref();
    if !a.reasons.is_empty() {
        let mut rs = reasons(st.and_then(|s| s.container_statuses.as_ref()));
        if let Some(r) = st.and_then(|s| s.reason.clone()).filter(|r| !r.is_empty()) {
            rs.push(r);
        }
        if a.including_init_containers {
            rs.extend(reasons(st.and_then(|s| s.init_container_statuses.as_ref())));
        }
        if !rs.iter().any(|r| a.reasons.contains(r)) {
            errs.push("pod does not match any of the reasons".into());
        }
    }
    if !a.exit_codes.is_empty() {
        let mut codes = exit_codes(st.and_then(|s| s.container_statuses.as_ref()));
        if a.including_init_containers {
            codes.extend(exit_codes(st.and_then(|s| s.init_container_statuses.as_ref())));
        }
        if !codes.iter().any(|c| a.exit_codes.contains(c)) {
            errs.push("pod does not match any of the exitCodes".into());
        }
    }
    if !errs.is_empty() {
        return Err(errs.join(", "));
    }
    let reason = st.and_then(|s| s.reason.clone()).filter(|r| !r.is_empty());
    Ok(format!(
        "phase Failed{}, age {}{}",
        reason.map(|r| format!(" ({r})")).unwrap_or_default(),
        go_duration(age as f64),
        a.min_pod_lifetime_seconds
            .map(|m| format!(" >= minPodLifetimeSeconds {m}"))
            .unwrap_or_default()
    ))
}

/// Deschedule.
pub fn deschedule(ctx: &mut Ctx<'_>, args: &FailedPodsArgs, nodes: &[Arc<Node>]) {
    let filter = PodFilter::new(args.common.namespaces.as_ref(), args.common.label_selector.as_ref());
    'nodes: for n in nodes {
        for p in ctx.all_pods_on(&n.name) {
            if p.phase() != "Failed" || filter.rejects(&p).is_some() {
                continue;
            }
            let Ok(reason) = can_evict(&p, args, ctx.now) else {
                continue;
            };
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
    //! failedpods_test.go at v0.36, TestRemoveFailedPods: every case, each asserting the pods
    //! evicted (upstream asserts the count). Upstream calls the plugin with its arguments as
    //! written (no defaults), so minPodLifetimeSeconds is given as 0 where a case leaves it
    //! unset; its pods are created "now".

    use k8s_openapi::api::core::v1 as core;
    use serde_json::{Value, json};

    use crate::engine::deschedule::policy::REMOVE_FAILED_PODS;
    use crate::engine::deschedule::testutil::*;

    /// A container state: terminated (reason, exit code) or waiting (reason).
    enum State {
        Terminated(&'static str, i32),
        Waiting(&'static str),
    }

    fn status(s: &State) -> core::ContainerStatus {
        let state = match s {
            State::Terminated(r, code) => core::ContainerState {
                terminated: Some(core::ContainerStateTerminated {
                    reason: (!r.is_empty()).then(|| (*r).to_string()),
                    exit_code: *code,
                    ..Default::default()
                }),
                ..Default::default()
            },
            State::Waiting(r) => core::ContainerState {
                waiting: Some(core::ContainerStateWaiting {
                    reason: Some((*r).to_string()),
                    ..Default::default()
                }),
                ..Default::default()
            },
        };
        core::ContainerStatus {
            name: "c".into(),
            state: Some(state),
            ..Default::default()
        }
    }

    /// `newPodStatus(reason, phase, init, container)` and `buildTestPod`: 1m, 1 byte, owned by a
    /// ReplicaSet.
    fn fp(
        name: &str,
        node: &str,
        reason: &str,
        phase: &str,
        init: Option<State>,
        container: Option<State>,
    ) -> core::Pod {
        let mut st = core::PodStatus {
            reason: (!reason.is_empty()).then(|| reason.to_string()),
            phase: (!phase.is_empty()).then(|| phase.to_string()),
            ..Default::default()
        };
        if let Some(s) = &init {
            st.init_container_statuses = Some(vec![status(s)]);
            st.phase = Some("Failed".into());
        }
        if let Some(s) = &container {
            st.container_statuses = Some(vec![status(s)]);
            st.phase = Some("Failed".into());
        }
        let mut p = rs_owned(pod(name, 1, 1, node));
        p.status = Some(st);
        p
    }

    fn terminated(name: &str, node: &str, reason: &'static str, code: i32) -> core::Pod {
        fp(name, node, "", "", None, Some(State::Terminated(reason, code)))
    }

    fn init_terminated(name: &str, reason: &'static str, code: i32) -> core::Pod {
        fp(name, "node1", "", "", Some(State::Terminated(reason, code)), None)
    }

    fn node1() -> Vec<core::Node> {
        vec![node("node1", 2000, 3000, 10)]
    }

    /// `createRemoveFailedPodsArgs(includingInitContainers, reasons, exitCodes, excludeKinds,
    /// minAge)`.
    fn args(init: bool, reasons: &[&str], codes: &[i32], exclude: &[&str], min_age: u64) -> Value {
        json!({
            "includingInitContainers": init,
            "reasons": reasons,
            "exitCodes": codes,
            "excludeOwnerKinds": exclude,
            "minPodLifetimeSeconds": min_age,
        })
    }

    fn none() -> Value {
        args(false, &[], &[], &[], 0)
    }

    fn run(nodes: Vec<core::Node>, pods: Vec<core::Pod>, args: Value, node_fit: bool) -> Vec<String> {
        let pol = policy("deschedule", REMOVE_FAILED_PODS, args, json!({"nodeFit": node_fit}));
        evicted(cluster(nodes, pods), &pol, 0).0
    }

    /// "default empty args, 0 failures, 0 evictions" and "0 failures, 0 evictions"
    #[test]
    fn no_failures() {
        assert!(run(node1(), vec![], json!({}), false).is_empty());
        assert!(run(node1(), vec![], none(), false).is_empty());
    }

    /// "1 container terminated with reason NodeAffinity, 1 eviction"
    #[test]
    fn terminated_node_affinity() {
        let pods = vec![terminated("p1", "node1", "NodeAffinity", 0)];
        assert_eq!(run(node1(), pods, none(), false), vec!["p1"]);
    }

    /// "1 container terminated with exitCode 1, 1 eviction"
    #[test]
    fn exit_code_1() {
        let pods = vec![terminated("p1", "node1", "", 1)];
        assert_eq!(run(node1(), pods, args(false, &[], &[1], &[], 0), false), vec!["p1"]);
    }

    /// "1 container terminated with exitCode 1, reason NodeAffinity, 1 eviction"
    #[test]
    fn exit_code_1_with_reason() {
        let pods = vec![terminated("p1", "node1", "NodeAffinity", 1)];
        assert_eq!(run(node1(), pods, args(false, &[], &[1], &[], 0), false), vec!["p1"]);
    }

    /// "1 container terminated with exitCode 1, expected exitCode 2, 0 eviction"
    #[test]
    fn exit_code_mismatch() {
        let pods = vec![terminated("p1", "node1", "", 1)];
        assert!(run(node1(), pods, args(false, &[], &[2], &[], 0), false).is_empty());
    }

    /// "2 containers terminated with exitCode 1 and 2 respectively, 2 evictions"
    #[test]
    fn two_exit_codes() {
        let pods = vec![terminated("p1", "node1", "", 1), terminated("p2", "node1", "", 2)];
        assert_eq!(
            run(node1(), pods, args(false, &[], &[1, 2, 3], &[], 0), false),
            vec!["p1", "p2"]
        );
    }

    /// "2 containers terminated with exitCode 1 and 2 respectively, expected exitCode 1, 1 eviction"
    #[test]
    fn two_exit_codes_one_expected() {
        let pods = vec![terminated("p1", "node1", "", 1), terminated("p2", "node1", "", 2)];
        assert_eq!(run(node1(), pods, args(false, &[], &[1], &[], 0), false), vec!["p1"]);
    }

    /// "1 init container terminated with reason NodeAffinity, 1 eviction"
    #[test]
    fn init_container_node_affinity() {
        let pods = vec![init_terminated("p1", "NodeAffinity", 0)];
        assert_eq!(run(node1(), pods, args(true, &[], &[], &[], 0), false), vec!["p1"]);
    }

    /// "1 init container terminated with exitCode 1, 1 eviction" (upstream sets the code on a
    /// regular container)
    #[test]
    fn init_exit_code_1() {
        let pods = vec![terminated("p1", "node1", "", 1)];
        assert_eq!(run(node1(), pods, args(true, &[], &[1], &[], 0), false), vec!["p1"]);
    }

    /// "1 init container terminated with exitCode 2, expected 1, 0 eviction"
    #[test]
    fn init_exit_code_mismatch() {
        let pods = vec![terminated("p1", "node1", "", 2)];
        assert!(run(node1(), pods, args(true, &[], &[1], &[], 0), false).is_empty());
    }

    /// "1 init container waiting with reason CreateContainerConfigError, 1 eviction"
    #[test]
    fn init_waiting() {
        let pods = vec![fp(
            "p1",
            "node1",
            "",
            "",
            Some(State::Waiting("CreateContainerConfigError")),
            None,
        )];
        assert_eq!(run(node1(), pods, args(true, &[], &[], &[], 0), false), vec!["p1"]);
    }

    /// "2 init container waiting with reason CreateContainerConfigError, 2 nodes, 2 evictions"
    #[test]
    fn two_nodes() {
        let nodes = vec![node("node1", 2000, 3000, 10), node("node2", 2000, 3000, 10)];
        let t = || Some(State::Terminated("CreateContainerConfigError", 0));
        let pods = vec![
            fp("p1", "node1", "", "", t(), None),
            fp("p2", "node2", "", "", t(), None),
        ];
        assert_eq!(run(nodes, pods, args(true, &[], &[], &[], 0), false), vec!["p1", "p2"]);
    }

    /// "include reason=CreateContainerConfigError, 1 container terminated with reason
    /// CreateContainerConfigError, 1 eviction"
    #[test]
    fn reason_included() {
        let pods = vec![terminated("p1", "node1", "CreateContainerConfigError", 0)];
        let a = args(false, &["CreateContainerConfigError"], &[], &[], 0);
        assert_eq!(run(node1(), pods, a, false), vec!["p1"]);
    }

    /// "include reason=CreateContainerConfigError+NodeAffinity, 1 container terminated with reason
    /// CreateContainerConfigError, 1 eviction"
    #[test]
    fn one_of_the_reasons() {
        let pods = vec![terminated("p1", "node1", "CreateContainerConfigError", 0)];
        let a = args(false, &["CreateContainerConfigError", "NodeAffinity"], &[], &[], 0);
        assert_eq!(run(node1(), pods, a, false), vec!["p1"]);
    }

    /// "include reason=CreateContainerConfigError, 1 container terminated with reason NodeAffinity, 0 eviction"
    #[test]
    fn reason_not_included() {
        let pods = vec![terminated("p1", "node1", "NodeAffinity", 0)];
        let a = args(false, &["CreateContainerConfigError"], &[], &[], 0);
        assert!(run(node1(), pods, a, false).is_empty());
    }

    /// "include init container=false, 1 init container waiting with reason
    /// CreateContainerConfigError, 0 eviction"
    #[test]
    fn init_containers_not_included() {
        let pods = vec![fp(
            "p1",
            "node1",
            "",
            "",
            Some(State::Waiting("CreateContainerConfigError")),
            None,
        )];
        let a = args(false, &["CreateContainerConfigError"], &[], &[], 0);
        assert!(run(node1(), pods, a, false).is_empty());
    }

    /// "lifetime 1 hour, 1 container terminated with reason NodeAffinity, 0 eviction"
    #[test]
    fn younger_than_min_lifetime() {
        let pods = vec![terminated("p1", "node1", "NodeAffinity", 0)];
        assert!(run(node1(), pods, args(false, &[], &[], &[], 3600), false).is_empty());
    }

    /// Not upstream: the default minPodLifetimeSeconds (3600) applies when the field is absent.
    #[test]
    fn default_min_lifetime() {
        let pods = || vec![terminated("p1", "node1", "NodeAffinity", 0)];
        let pol = policy("deschedule", REMOVE_FAILED_PODS, json!({}), json!({}));
        assert!(evicted(cluster(node1(), pods()), &pol, 3599).0.is_empty());
        assert_eq!(evicted(cluster(node1(), pods()), &pol, 3600).0, vec!["p1"]);
    }

    /// "nodeFit=true, 1 unschedulable node, 1 container terminated with reason NodeAffinity, 0 eviction"
    #[test]
    fn node_fit_unschedulable() {
        let nodes = vec![
            node("node1", 2000, 3000, 10),
            unschedulable(node("node2", 2000, 2000, 10)),
        ];
        let pods = vec![terminated("p1", "node1", "NodeAffinity", 0)];
        assert!(run(nodes, pods, none(), true).is_empty());
    }

    /// "nodeFit=true, only available node does not have enough resources, 1 container terminated
    /// with reason CreateContainerConfigError, 0 eviction"
    #[test]
    fn node_fit_not_enough_resources() {
        let nodes = vec![node("node1", 1, 1, 10), node("node2", 0, 0, 10)];
        let pods = vec![terminated("p1", "node1", "CreateContainerConfigError", 0)];
        let a = args(false, &["CreateContainerConfigError"], &[], &[], 0);
        assert!(run(nodes, pods, a, true).is_empty());
    }

    /// "excluded owner kind=ReplicaSet, 1 init container terminated with owner kind=ReplicaSet, 0 eviction"
    #[test]
    fn owner_kind_excluded() {
        let pods = vec![init_terminated("p1", "NodeAffinity", 0)];
        assert!(run(node1(), pods, args(true, &[], &[], &["ReplicaSet"], 0), false).is_empty());
    }

    /// "excluded owner kind=DaemonSet, 1 init container terminated with owner kind=ReplicaSet, 1 eviction"
    #[test]
    fn other_owner_kind_excluded() {
        let pods = vec![init_terminated("p1", "NodeAffinity", 0)];
        assert_eq!(
            run(node1(), pods, args(true, &[], &[], &["DaemonSet"], 0), false),
            vec!["p1"]
        );
    }

    /// "excluded owner kind=DaemonSet, 1 init container terminated with owner kind=ReplicaSet, 1
    /// pod in termination; nothing should be moved"
    #[test]
    fn terminating_pod() {
        let pods = vec![terminating(init_terminated("p1", "NodeAffinity", 0))];
        assert!(run(node1(), pods, args(true, &[], &[], &["DaemonSet"], 0), false).is_empty());
    }

    /// "1 container terminated with reason ShutDown, 0 evictions" (nodeFit, no other node)
    #[test]
    fn shutdown_node_fit_without_other_node() {
        let pods = vec![fp("p1", "node1", "Shutdown", "Failed", None, None)];
        assert!(run(node1(), pods, none(), true).is_empty());
    }

    /// "include reason=Shutdown, 2 containers terminated with reason ShutDown, 2 evictions"
    #[test]
    fn shutdown_reason() {
        let pods = vec![
            fp("p1", "node1", "Shutdown", "Failed", None, None),
            fp("p2", "node1", "Shutdown", "Failed", None, None),
        ];
        assert_eq!(
            run(node1(), pods, args(false, &["Shutdown"], &[], &[], 0), false),
            vec!["p1", "p2"]
        );
    }
}
