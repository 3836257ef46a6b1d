//! PodLifeTime (pkg/framework/plugins/podlifetime/pod_lifetime.go): the pods of every node
//! (the plugin's namespaces and labelSelector, both evictor filters, every phase) older than
//! maxPodLifeTimeSeconds, in one of the states (phase, status.reason, container waiting or
//! terminated reasons; init and ephemeral containers when asked), of the owner kinds, with a
//! matching condition or exit code, when each is given; evicted oldest first. A node limit
//! skips that pod; the total limit ends the plugin.

use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::jiff::Timestamp;

use super::failed_pods::exit_codes;
use super::pods::{PodFilter, age_seconds, created, go_duration, owner_refs};
use super::policy::PodLifeTimeArgs;
use super::{Ctx, Next};
use crate::model::{Node, Pod};

fn state_reasons(v: Option<&Vec<core::ContainerStatus>>, states: &[String]) -> bool {
    v.into_iter().flatten().any(|c| {
        let st = c.state.as_ref();
        st.and_then(|s| s.waiting.as_ref())
            .and_then(|w| w.reason.as_ref())
            .is_some_and(|r| states.contains(r))
            || st
                .and_then(|s| s.terminated.as_ref())
                .and_then(|t| t.reason.as_ref())
                .is_some_and(|r| states.contains(r))
    })
}

/// The pod qualifies: why, or None.
fn qualifies(p: &Pod, a: &PodLifeTimeArgs, now: Timestamp) -> Option<String> {
    let mut why = Vec::new();
    let age = age_seconds(created(p), now);
    if let Some(max) = a.max_pod_life_time_seconds {
        if age < 0 || (age as u64) <= max {
            return None;
        }
        why.push(format!("age {} > maxPodLifeTimeSeconds {max}", go_duration(age as f64)));
    }
    let st = p.obj.status.as_ref();
    if !a.states.is_empty() {
        let reason = st.and_then(|s| s.reason.clone()).unwrap_or_default();
        let ok = a.states.iter().any(|s| s == p.phase())
            || a.states.contains(&reason)
            || state_reasons(st.and_then(|s| s.container_statuses.as_ref()), &a.states)
            || (a.including_init_containers
                && state_reasons(st.and_then(|s| s.init_container_statuses.as_ref()), &a.states))
            || (a.including_ephemeral_containers
                && state_reasons(st.and_then(|s| s.ephemeral_container_statuses.as_ref()), &a.states));
        if !ok {
            return None;
        }
        why.push(format!("in one of the states {}", a.states.join(", ")));
    }
    if let Some(k) = &a.owner_kinds {
        let kinds: Vec<&str> = owner_refs(p).iter().map(|o| o.kind.as_str()).collect();
        if !k.include.is_empty() {
            if !kinds.iter().any(|x| k.include.iter().any(|i| i == x)) {
                return None;
            }
        } else if kinds.iter().any(|x| k.exclude.iter().any(|e| e == x)) {
            return None;
        }
    }
    if !a.conditions.is_empty() {
        let conds = st.and_then(|s| s.conditions.as_ref());
        let hit = a.conditions.iter().any(|f| {
            conds.into_iter().flatten().any(|c| {
                if (!f.type_.is_empty() && c.type_ != f.type_)
                    || (!f.status.is_empty() && c.status != f.status)
                    || (!f.reason.is_empty() && c.reason.as_deref().unwrap_or("") != f.reason)
                {
                    return false;
                }
                match f.min_time_since_last_transition_seconds {
                    None => true,
                    Some(min) => c.last_transition_time.as_ref().is_some_and(|t| {
                        let idle = age_seconds(Some(t.0), now);
                        idle >= 0 && idle as u64 >= min
                    }),
                }
            })
        });
        if !hit {
            return None;
        }
        why.push("a condition matches".into());
    }
    if !a.exit_codes.is_empty() {
        let mut codes = exit_codes(st.and_then(|s| s.container_statuses.as_ref()));
        if a.including_init_containers {
            codes.extend(exit_codes(st.and_then(|s| s.init_container_statuses.as_ref())));
        }
        if !codes.iter().any(|c| a.exit_codes.contains(c)) {
            return None;
        }
        why.push("an exit code matches".into());
    }
    Some(why.join(", "))
}

/// Deschedule.
pub fn deschedule(ctx: &mut Ctx<'_>, args: &PodLifeTimeArgs, nodes: &[Arc<Node>]) {
    let filter = PodFilter::new(args.common.namespaces.as_ref(), args.common.label_selector.as_ref());
    let mut pods: Vec<(String, Arc<Pod>)> = Vec::new();
    for n in nodes {
        for p in ctx.all_pods_on(&n.name) {
            if filter.rejects(&p).is_some() {
                continue;
            }
            let Some(reason) = qualifies(&p, args, ctx.now) else {
                continue;
            };
            pods.push((reason, p));
        }
    }
    pods.sort_by_key(|(_, p)| created(p));
    for (reason, p) in pods {
        if ctx.filter_and_evict(&p, reason) == Next::Stop {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    //! pod_lifetime_test.go at v0.36: a case or more of each of its tables (TestPodLifeTime,
    //! _EvictorConfiguration, _GenericFiltering, _EvictionLimits, _ContainerWaitingReasons,
    //! _PodStatusReasons, _AgeThreshold, _PodPhaseStates, TestStatesWithTerminatedReasons,
    //! TestConditionFiltering, TestTransitionTimeFiltering, TestOwnerKindsFiltering,
    //! TestStatesWithEphemeralContainers, TestExitCodesFiltering, TestCombinedFilters), each
    //! asserting the pods evicted, oldest first. "Now" is [`NOW`]; upstream's 2009 creation
    //! time is the epoch here.

    use k8s_openapi::api::core::v1 as core;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use k8s_openapi::jiff::Timestamp;
    use serde_json::{Value, json};

    use crate::engine::deschedule::policy::POD_LIFE_TIME;
    use crate::engine::deschedule::testutil::*;

    const NOW: i64 = 1_000_000;
    const OLD: i64 = 0;
    const NEW: i64 = NOW;

    fn at(secs: i64) -> Time {
        Time(Timestamp::from_second(secs).unwrap())
    }

    /// `buildTestPodForNode1(name, creation)`: 100m, no owner.
    fn bare(name: &str, created: i64) -> core::Pod {
        let mut p = pod(name, 100, 0, "node1");
        p.metadata.creation_timestamp = Some(at(created));
        p
    }

    /// `buildTestPodWithRSOwnerRefForNode1`.
    fn rs(name: &str, created: i64) -> core::Pod {
        rs_owned(bare(name, created))
    }

    /// `buildTestPodWithRSOwnerRefWithPendingPhaseForNode1`.
    fn pending(name: &str, created: i64) -> core::Pod {
        phase(rs(name, created), "Pending")
    }

    fn container_statuses(mut p: core::Pod, which: &str, state: core::ContainerState) -> core::Pod {
        let cs = vec![core::ContainerStatus {
            name: "c".into(),
            state: Some(state),
            ..Default::default()
        }];
        let st = p.status.get_or_insert_with(Default::default);
        match which {
            "init" => st.init_container_statuses = Some(cs),
            "ephemeral" => st.ephemeral_container_statuses = Some(cs),
            _ => st.container_statuses = Some(cs),
        }
        p
    }

    fn waiting(reason: &str) -> core::ContainerState {
        core::ContainerState {
            waiting: Some(core::ContainerStateWaiting {
                reason: Some(reason.into()),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn terminated(reason: &str, code: i32) -> core::ContainerState {
        core::ContainerState {
            terminated: Some(core::ContainerStateTerminated {
                reason: (!reason.is_empty()).then(|| reason.to_string()),
                exit_code: code,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn status_reason(mut p: core::Pod, reason: &str) -> core::Pod {
        p.status.get_or_insert_with(Default::default).reason = Some(reason.into());
        p
    }

    fn conditions(mut p: core::Pod, cs: &[(&str, &str, &str, Option<i64>)]) -> core::Pod {
        p.status.get_or_insert_with(Default::default).conditions = Some(
            cs.iter()
                .map(|(t, s, r, when)| core::PodCondition {
                    type_: (*t).into(),
                    status: (*s).into(),
                    reason: (!r.is_empty()).then(|| (*r).to_string()),
                    last_transition_time: when.map(at),
                    ..Default::default()
                })
                .collect(),
        );
        p
    }

    /// `buildPod(name, node1)`: 1m, 1 byte, owned by a ReplicaSet.
    fn bp(name: &str) -> core::Pod {
        rs_owned(pod(name, 1, 1, "node1"))
    }

    fn job(p: core::Pod) -> core::Pod {
        owned_by(p, &[("Job", "job1")])
    }

    fn run_with(pods: Vec<core::Pod>, args: Value, evictor: Value, limits: Value) -> Vec<String> {
        let pol = policy_with_limits("deschedule", POD_LIFE_TIME, args, evictor, limits);
        evicted(cluster(vec![node("node1", 2000, 3000, 10)], pods), &pol, NOW).0
    }

    fn run(pods: Vec<core::Pod>, args: Value) -> Vec<String> {
        run_with(pods, args, json!({}), json!({}))
    }

    fn max600() -> Value {
        json!({"maxPodLifeTimeSeconds": 600})
    }

    fn max600_states(states: &[&str]) -> Value {
        json!({"maxPodLifeTimeSeconds": 600, "states": states})
    }

    /// TestPodLifeTime "No pod should be evicted since pod terminating"
    #[test]
    fn terminating_pods() {
        let pods = vec![terminating(rs("p14", OLD)), terminating(rs("p15", OLD))];
        let args = json!({"maxPodLifeTimeSeconds": 600, "labelSelector": {"matchLabels": {"foo": "bar"}}});
        assert!(run(pods, args).is_empty());
    }

    /// _EvictorConfiguration "Does not evict pvc pods with ignorePvcPods set to true"
    #[test]
    fn pvc_pods_with_ignore_pvc_pods() {
        let pods = vec![with_pvc(rs("p11", OLD), "foo")];
        assert!(run_with(pods, max600(), json!({"ignorePvcPods": true}), json!({})).is_empty());
    }

    /// _EvictorConfiguration "Evicts pvc pods with ignorePvcPods set to false (or unset)"
    #[test]
    fn pvc_pods_without_ignore_pvc_pods() {
        assert_eq!(run(vec![with_pvc(rs("p11", OLD), "foo")], max600()), vec!["p11"]);
    }

    /// _GenericFiltering "1 pod matching label selector should be evicted"
    #[test]
    fn label_selector() {
        let pods = vec![
            labels(rs("p12", OLD), &[("foo", "bar")]),
            labels(rs("p13", OLD), &[("foo", "bar1")]),
        ];
        let args = json!({"maxPodLifeTimeSeconds": 600, "labelSelector": {"matchLabels": {"foo": "bar"}}});
        assert_eq!(run(pods, args), vec!["p12"]);
    }

    /// _EvictionLimits "2 Oldest pods should be evicted when maxPodsToEvictPerNode and
    /// maxPodsToEvictPerNamespace are not set"
    #[test]
    fn two_oldest_without_limits() {
        let pods = vec![rs("p1", NEW), rs("p2", OLD), pending("p9", OLD)];
        assert_eq!(run(pods, max600()), vec!["p2", "p9"]);
    }

    fn limited(limits: Value) -> Vec<String> {
        run_with(vec![rs("p1", NEW), rs("p2", OLD)], max600(), json!({}), limits)
    }

    /// _EvictionLimits "1 Oldest pod should be evicted when maxPodsToEvictPerNamespace is set to 1"
    #[test]
    fn oldest_with_namespace_limit() {
        assert_eq!(limited(json!({"maxNoOfPodsToEvictPerNamespace": 1})), vec!["p2"]);
    }

    /// _EvictionLimits "1 Oldest pod should be evicted when maxPodsToEvictTotal is set to 1"
    #[test]
    fn oldest_with_total_limit() {
        let got = limited(json!({"maxNoOfPodsToEvictPerNamespace": 2, "maxNoOfPodsToEvictTotal": 1}));
        assert_eq!(got, vec!["p2"]);
    }

    /// _EvictionLimits "1 Oldest pod should be evicted when maxPodsToEvictPerNode is set to 1"
    #[test]
    fn oldest_with_node_limit() {
        assert_eq!(limited(json!({"maxNoOfPodsToEvictPerNode": 1})), vec!["p2"]);
    }

    /// Not upstream: with a node limit the oldest pods are evicted across nodes (a node at its
    /// limit skips only its own pods).
    #[test]
    fn node_limit_skips_only_that_node() {
        let mut other = rs("q1", 10);
        other.spec.as_mut().unwrap().node_name = Some("node2".into());
        let pods = vec![rs("p1", 5), rs("p2", OLD), other];
        let pol = policy_with_limits(
            "deschedule",
            POD_LIFE_TIME,
            max600(),
            json!({}),
            json!({"maxNoOfPodsToEvictPerNode": 1}),
        );
        let nodes = vec![node("node1", 2000, 3000, 10), node("node2", 2000, 3000, 10)];
        assert_eq!(evicted(cluster(nodes, pods), &pol, NOW).0, vec!["p2", "q1"]);
    }

    fn stuck(name: &str, reason: &str) -> core::Pod {
        let mut p = rs_owned(pod(name, 0, 0, "node1"));
        p.metadata.creation_timestamp = Some(at(OLD));
        container_statuses(p, "", waiting(reason))
    }

    /// _ContainerWaitingReasons "Two pods, one with ContainerCreating state. 1 should be evicted."
    #[test]
    fn container_creating() {
        let pods = vec![
            pending("p9", OLD),
            stuck("container-creating-stuck", "ContainerCreating"),
        ];
        assert_eq!(
            run(pods, max600_states(&["ContainerCreating"])),
            vec!["container-creating-stuck"]
        );
    }

    /// _ContainerWaitingReasons "Two pods, one with PodInitializing state. 1 should be evicted."
    #[test]
    fn pod_initializing() {
        let pods = vec![pending("p9", OLD), stuck("pod-initializing-stuck", "PodInitializing")];
        assert_eq!(
            run(pods, max600_states(&["PodInitializing"])),
            vec!["pod-initializing-stuck"]
        );
    }

    /// _ContainerWaitingReasons "1 pod with container status ImagePullBackOff should be
    /// evicted", "... CrashLoopBackOff ...", "... CreateContainerConfigError ...",
    /// "... ErrImagePull ...", "... CreateContainerError ...", "... InvalidImageName ..."
    #[test]
    fn container_waiting_reasons() {
        for reason in [
            "ImagePullBackOff",
            "CrashLoopBackOff",
            "CreateContainerConfigError",
            "ErrImagePull",
            "CreateContainerError",
            "InvalidImageName",
        ] {
            let pods = vec![container_statuses(pending("p9", OLD), "", waiting(reason))];
            assert_eq!(run(pods, max600_states(&[reason])), vec!["p9"], "{reason}");
        }
    }

    /// _ContainerWaitingReasons "1 pod with init container status CreateContainerError should
    /// not be evicted without includingInitContainers" and "... should be evicted with
    /// includingInitContainers"
    #[test]
    fn init_container_waiting_reason() {
        let p = || {
            vec![container_statuses(
                pending("p9", OLD),
                "init",
                waiting("CreateContainerError"),
            )]
        };
        assert!(run(p(), max600_states(&["CreateContainerError"])).is_empty());
        let args =
            json!({"maxPodLifeTimeSeconds": 600, "states": ["CreateContainerError"], "includingInitContainers": true});
        assert_eq!(run(p(), args), vec!["p9"]);
    }

    /// _ContainerWaitingReasons "1 pod with ephemeral container status CreateContainerError
    /// should not be evicted without includingEphemeralContainers" and "... should be evicted with
    /// includingEphemeralContainers"
    #[test]
    fn ephemeral_container_waiting_reason() {
        let p = || {
            vec![container_statuses(
                pending("p9", OLD),
                "ephemeral",
                waiting("CreateContainerError"),
            )]
        };
        assert!(run(p(), max600_states(&["CreateContainerError"])).is_empty());
        let args = json!({"maxPodLifeTimeSeconds": 600, "states": ["CreateContainerError"], "includingEphemeralContainers": true});
        assert_eq!(run(p(), args), vec!["p9"]);
    }

    /// _ContainerWaitingReasons "1 pod with ImagePullBackOff status should be ignored when States
    /// filter is ContainerCreating"
    #[test]
    fn other_waiting_reason_ignored() {
        let pods = vec![container_statuses(pending("p9", OLD), "", waiting("ImagePullBackOff"))];
        assert!(run(pods, max600_states(&["ContainerCreating"])).is_empty());
    }

    /// _PodStatusReasons "1 pod with pod status reason NodeLost should be evicted", "...
    /// NodeAffinity ...", "... Shutdown ...", "... UnexpectedAdmissionError ..."
    #[test]
    fn pod_status_reasons() {
        for reason in ["NodeLost", "NodeAffinity", "Shutdown", "UnexpectedAdmissionError"] {
            let pods = vec![status_reason(pending("p9", OLD), reason)];
            assert_eq!(run(pods, max600_states(&[reason])), vec!["p9"], "{reason}");
        }
    }

    /// _AgeThreshold "Two pods in the default namespace, 1 is new and 1 very is old. 1 should be evicted."
    #[test]
    fn one_new_one_old() {
        assert_eq!(run(vec![rs("p1", NEW), rs("p2", OLD)], max600()), vec!["p2"]);
    }

    /// _AgeThreshold "Two pods in the default namespace, 2 are new and 0 are old. 0 should be evicted."
    #[test]
    fn two_new() {
        assert!(run(vec![rs("p3", NEW), rs("p4", NEW)], max600()).is_empty());
    }

    /// _AgeThreshold "Two pods in the default namespace, 1 created 605 seconds ago. 1 should be evicted."
    #[test]
    fn created_605_seconds_ago() {
        assert_eq!(run(vec![rs("p5", NEW), rs("p6", NOW - 605)], max600()), vec!["p6"]);
    }

    /// _AgeThreshold "Two pods in the default namespace, 1 created 595 seconds ago. 0 should be evicted."
    #[test]
    fn created_595_seconds_ago() {
        assert!(run(vec![bare("p7", NEW), bare("p8", NOW - 595)], max600()).is_empty());
    }

    /// Not upstream: exactly maxPodLifeTimeSeconds old is not older than it.
    #[test]
    fn created_exactly_600_seconds_ago() {
        assert!(run(vec![rs("p", NOW - 600)], max600()).is_empty());
        assert_eq!(run(vec![rs("p", NOW - 601)], max600()), vec!["p"]);
    }

    /// _PodPhaseStates "Two old pods with different states. 1 should be evicted."
    #[test]
    fn pending_state() {
        let pods = vec![pending("p9", OLD), phase(rs("p10", OLD), "Running")];
        assert_eq!(run(pods, max600_states(&["Pending"])), vec!["p9"]);
    }

    /// _PodPhaseStates "1 pod with pod status phase v1.PodSucceeded should be evicted", "...
    /// v1.PodFailed ...", "... v1.PodUnknown ..."
    #[test]
    fn phase_states() {
        for ph in ["Succeeded", "Failed", "Unknown"] {
            assert_eq!(
                run(vec![phase(rs("p16", OLD), ph)], max600_states(&[ph])),
                vec!["p16"],
                "{ph}"
            );
        }
    }

    /// TestStatesWithTerminatedReasons "evict pod with matching terminated reason via states"
    #[test]
    fn terminated_reason_state() {
        let pods = vec![container_statuses(
            phase(bp("p1"), "Failed"),
            "",
            terminated("NodeAffinity", 0),
        )];
        assert_eq!(run(pods, json!({"states": ["NodeAffinity"]})), vec!["p1"]);
    }

    /// TestStatesWithTerminatedReasons "evict pod with matching pod status reason via states"
    #[test]
    fn status_reason_state() {
        let pods = vec![status_reason(phase(bp("p1"), "Failed"), "Shutdown")];
        assert_eq!(run(pods, json!({"states": ["Shutdown"]})), vec!["p1"]);
    }

    /// TestStatesWithTerminatedReasons "states matches terminated reason on init container" and
    /// "states does not match terminated reason on init container without flag"
    #[test]
    fn init_terminated_reason_state() {
        let p = || {
            vec![container_statuses(
                bp("p1"),
                "init",
                terminated("CreateContainerConfigError", 0),
            )]
        };
        let args = json!({"states": ["CreateContainerConfigError"], "includingInitContainers": true});
        assert_eq!(run(p(), args), vec!["p1"]);
        assert!(run(p(), json!({"states": ["CreateContainerConfigError"]})).is_empty());
    }

    const OLD_T: Option<i64> = Some(NOW - 7200);
    const NEW_T: Option<i64> = Some(NOW - 60);

    /// TestConditionFiltering "evict pod with matching condition reason"
    #[test]
    fn condition_reason() {
        let pods = vec![
            conditions(bp("p1"), &[("Initialized", "True", "PodCompleted", OLD_T)]),
            conditions(bp("p2"), &[("Initialized", "True", "OtherReason", OLD_T)]),
        ];
        let args = json!({"conditions": [{"reason": "PodCompleted", "status": "True"}]});
        assert_eq!(run(pods, args), vec!["p1"]);
    }

    /// TestConditionFiltering "evict pod matching condition type only"
    #[test]
    fn condition_type_only() {
        let pods = vec![conditions(bp("p1"), &[("Ready", "False", "", OLD_T)])];
        assert_eq!(run(pods, json!({"conditions": [{"type": "Ready"}]})), vec!["p1"]);
    }

    /// TestConditionFiltering "no matching conditions, 0 evictions"
    #[test]
    fn no_matching_condition() {
        let pods = vec![conditions(bp("p1"), &[("Ready", "True", "SomethingElse", None)])];
        assert!(run(pods, json!({"conditions": [{"reason": "PodCompleted"}]})).is_empty());
    }

    fn completed(name: &str, when: Option<i64>) -> core::Pod {
        conditions(
            phase(bp(name), "Succeeded"),
            &[
                ("Initialized", "True", "PodCompleted", when),
                ("Ready", "False", "PodCompleted", when),
            ],
        )
    }

    /// TestTransitionTimeFiltering "evict pod with old transition time"
    #[test]
    fn old_transition_time() {
        let args = json!({"states": ["Succeeded"], "conditions": [
            {"reason": "PodCompleted", "status": "True", "minTimeSinceLastTransitionSeconds": 300}]});
        assert_eq!(run(vec![completed("p1", OLD_T)], args), vec!["p1"]);
    }

    /// TestTransitionTimeFiltering "do not evict pod with recent transition time"
    #[test]
    fn recent_transition_time() {
        let pods = vec![conditions(
            phase(bp("p1"), "Succeeded"),
            &[("Ready", "False", "", NEW_T)],
        )];
        let args = json!({"states": ["Succeeded"], "conditions": [{"minTimeSinceLastTransitionSeconds": 14400}]});
        assert!(run(pods, args).is_empty());
    }

    /// TestTransitionTimeFiltering "transition time scoped to matching conditions only"
    #[test]
    fn transition_time_of_the_matching_condition() {
        let pods = vec![conditions(
            bp("p1"),
            &[
                ("Initialized", "", "PodCompleted", OLD_T),
                ("Ready", "", "OtherReason", NEW_T),
            ],
        )];
        let args = json!({"conditions": [{"reason": "PodCompleted", "minTimeSinceLastTransitionSeconds": 300}]});
        assert_eq!(run(pods, args), vec!["p1"]);
    }

    /// TestTransitionTimeFiltering "no conditions on pod, transition time filter returns false"
    #[test]
    fn no_conditions_with_transition_time() {
        let args = json!({"states": ["Running"], "conditions": [{"minTimeSinceLastTransitionSeconds": 300}]});
        assert!(run(vec![phase(bp("p1"), "Running")], args).is_empty());
    }

    /// TestOwnerKindsFiltering "exclude Job owner kind: Job-owned pod not evicted"
    #[test]
    fn exclude_job_owned() {
        let args = json!({"states": ["Failed"], "ownerKinds": {"exclude": ["Job"]}});
        assert!(run(vec![job(phase(bp("p1"), "Failed"))], args).is_empty());
    }

    /// TestOwnerKindsFiltering "exclude Job owner kind: non-Job pod still evicted"
    #[test]
    fn exclude_job_keeps_others() {
        let pods = vec![job(phase(bp("p1"), "Failed")), phase(bp("p2"), "Failed")];
        let args = json!({"states": ["Failed"], "ownerKinds": {"exclude": ["Job"]}});
        assert_eq!(run(pods, args), vec!["p2"]);
    }

    /// TestOwnerKindsFiltering "include only Job owner kind"
    #[test]
    fn include_job_only() {
        let pods = vec![job(phase(bp("p1"), "Failed")), phase(bp("p2"), "Failed")];
        let args = json!({"states": ["Failed"], "ownerKinds": {"include": ["Job"]}});
        assert_eq!(run(pods, args), vec!["p1"]);
    }

    /// TestStatesWithEphemeralContainers "states matches terminated reason on ephemeral
    /// container" and "states does not match ephemeral container without flag"
    #[test]
    fn ephemeral_terminated_reason() {
        let p = || vec![container_statuses(bp("p1"), "ephemeral", terminated("OOMKilled", 0))];
        let args = json!({"states": ["OOMKilled"], "includingEphemeralContainers": true});
        assert_eq!(run(p(), args), vec!["p1"]);
        assert!(run(p(), json!({"states": ["OOMKilled"]})).is_empty());
    }

    /// TestExitCodesFiltering "evict pod with matching exit code" and "exit code not matched, 0
    /// evictions"
    #[test]
    fn exit_codes() {
        let p = || vec![container_statuses(phase(bp("p1"), "Failed"), "", terminated("", 1))];
        assert_eq!(run(p(), json!({"states": ["Failed"], "exitCodes": [1]})), vec!["p1"]);
        assert!(run(p(), json!({"states": ["Failed"], "exitCodes": [2]})).is_empty());
    }

    /// TestCombinedFilters "user scenario: Succeeded + PodCompleted condition + transition time threshold"
    #[test]
    fn stale_completed_pods() {
        let pods = vec![
            completed("stale-completed", OLD_T),
            conditions(
                phase(bp("recent-completed"), "Succeeded"),
                &[("Initialized", "True", "PodCompleted", NEW_T)],
            ),
            phase(bp("running-pod"), "Running"),
        ];
        let args = json!({"states": ["Succeeded"], "conditions": [
            {"reason": "PodCompleted", "status": "True", "minTimeSinceLastTransitionSeconds": 300}]});
        assert_eq!(run(pods, args), vec!["stale-completed"]);
    }

    /// TestCombinedFilters "failed pod removal compat: Failed + min age + exclude Job"
    #[test]
    fn failed_pod_removal_compat() {
        let pods = vec![
            container_statuses(phase(bp("failed-rs"), "Failed"), "", terminated("Error", 0)),
            job(phase(bp("failed-job"), "Failed")),
        ];
        let args = json!({"states": ["Failed"], "maxPodLifeTimeSeconds": 0, "ownerKinds": {"exclude": ["Job"]}});
        assert_eq!(run(pods, args), vec!["failed-rs"]);
    }
}
