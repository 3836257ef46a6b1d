//! Port of framework/plugins/deferredpodscheduling (v1.37, behind the alpha gate
//! InPlacePodVerticalScalingSchedulerPreemption): a pod whose in-place resize the kubelet
//! deferred (condition PodResizePending, status True, reason Deferred) is put through a cycle
//! again, on its own node, so preemption can make room for the resize.
//!
//! - PreFilter: Skip unless the gate is on and the pod's resize is deferred.
//! - Filter: the pod's own node only ("pod assigned to different node"), and not a node whose
//!   `spec.podPreemptionPolicy.disableResizePreemption` lists anything ("node had resize
//!   preemption disabled"); both UnschedulableAndUnresolvable.
//! - Permit: a deferred pod that fits is not bound again: "pod resize fits, waiting for Kubelet
//!   actuation" (UnschedulableAndUnresolvable, no wait).
//!
//! kschedtui explains pending pods; a deferred pod is bound, so the plugin only ever answers
//! for explanations of a pod given explicitly as deferred (the plugin's own tests).

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{
    Ctx, FilterPlugin, PermitPlugin, Plugin, PluginSlots, PreFilterPlugin, Signing,
};
use crate::engine::framework::status::{Code, Status};
use crate::engine::release::{Features, Gate};

/// Filter reason: the pod is bound elsewhere.
pub(crate) const ERR_REASON_OTHER_NODE: &str = "pod assigned to different node";
/// Filter reason: the node disables resize preemption.
pub(crate) const ERR_REASON_NODE_DISABLES_RESIZE_PREEMPTION: &str = "node had resize preemption disabled";
/// Permit's answer for a deferred pod that fits.
pub(crate) const PERMIT_WAITING_FOR_KUBELET: &str = "pod resize fits, waiting for Kubelet actuation";

/// DeferredPodScheduling.
pub(crate) struct DeferredPodScheduling {
    enabled: bool,
}

/// `resource.IsPodResizeDeferred`.
pub(crate) fn is_resize_deferred(pod: &PodInfo) -> bool {
    pod.pod
        .obj
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .into_iter()
        .flatten()
        .any(|c| c.type_ == "PodResizePending" && c.status == "True" && c.reason.as_deref() == Some("Deferred"))
}

impl DeferredPodScheduling {
    fn applies(&self, pod: &PodInfo) -> bool {
        self.enabled && is_resize_deferred(pod)
    }
}

impl Plugin for DeferredPodScheduling {
    fn name(&self) -> &'static str {
        names::DEFERRED_POD_SCHEDULING
    }

    /// Whether 1.37's DeferredPodScheduling implements SignPlugin was not read (its source is
    /// not in the trees kschedtui reads 1.37 from).
    fn sign_pod(&self, _: &Ctx<'_>, _: &PodInfo) -> Signing {
        Signing::Unknown
    }
}

impl PreFilterPlugin for DeferredPodScheduling {
    fn pre_filter(&self, _: &Ctx<'_>, _: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        if self.applies(pod) {
            (None, Status::success())
        } else {
            (None, Status::skip())
        }
    }
}

impl FilterPlugin for DeferredPodScheduling {
    fn filter(&self, _: &Ctx<'_>, _: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        if !self.applies(pod) {
            return Status::success();
        }
        if pod.pod.node_name.as_deref().is_some_and(|n| n != node.name()) {
            return Status::new(Code::UnschedulableAndUnresolvable, [ERR_REASON_OTHER_NODE]);
        }
        let disabled = node
            .node
            .obj
            .spec
            .as_ref()
            .and_then(|s| s.pod_preemption_policy.as_ref())
            .and_then(|p| p.disable_resize_preemption.as_ref())
            .is_some_and(|l| !l.is_empty());
        if disabled {
            return Status::new(
                Code::UnschedulableAndUnresolvable,
                [ERR_REASON_NODE_DISABLES_RESIZE_PREEMPTION],
            );
        }
        Status::success()
    }
}

impl PermitPlugin for DeferredPodScheduling {
    fn permit(
        &self,
        _: &Ctx<'_>,
        _: &mut CycleState,
        pod: &PodInfo,
        _: &str,
        _: &mut Vec<String>,
    ) -> (Status, std::time::Duration) {
        if !self.applies(pod) {
            return (Status::success(), std::time::Duration::ZERO);
        }
        (
            Status::new(Code::UnschedulableAndUnresolvable, [PERMIT_WAITING_FOR_KUBELET]),
            std::time::Duration::ZERO,
        )
    }
}

/// Registers DeferredPodScheduling (it takes no args).
pub(crate) fn register(_: &Value, features: &Features) -> Result<PluginSlots, String> {
    let p = Arc::new(DeferredPodScheduling {
        enabled: features.on(Gate::InPlacePodVerticalScalingSchedulerPreemption),
    });
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p.clone()),
        permit: Some(p),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::release::{FeatureGates, Release};
    use crate::testkit::builders::*;

    fn pod1(deferred: bool) -> k8s_openapi::api::core::v1::Pod {
        let mut p = pod("pod1").node("node1").obj();
        if deferred {
            p.status.get_or_insert_with(Default::default).conditions =
                Some(vec![k8s_openapi::api::core::v1::PodCondition {
                    type_: "PodResizePending".into(),
                    status: "True".into(),
                    reason: Some("Deferred".into()),
                    ..Default::default()
                }]);
        }
        p
    }

    fn node_with_policy(name: &str, disable: Option<Vec<&str>>) -> k8s_openapi::api::core::v1::Node {
        let mut n = node(name).obj();
        if let Some(d) = disable {
            n.spec.get_or_insert_with(Default::default).pod_preemption_policy =
                Some(k8s_openapi::api::core::v1::NodePodPreemptionPolicy {
                    disable_resize_preemption: Some(d.iter().map(|s| (*s).to_string()).collect()),
                });
        }
        n
    }

    fn features(on: bool) -> Features {
        let g = if on {
            "InPlacePodVerticalScalingSchedulerPreemption=true"
        } else {
            ""
        };
        Features::with_gates(Release::at(37), &FeatureGates::parse(g).unwrap()).unwrap()
    }

    fn unresolvable(r: &str) -> Status {
        Status::new(Code::UnschedulableAndUnresolvable, [r.to_string()])
    }

    /// deferred_pod_scheduling_test.go TestPreFilter, TestFilter.
    #[test]
    fn pre_filter_and_filter_cases_from_upstream() {
        let pre = |on: bool, deferred: bool| {
            let f = features(on);
            let snap = snapshot(vec![node("node1").obj()], vec![], &f);
            let p = plugin(names::DEFERRED_POD_SCHEDULING, Value::Null, &f);
            run_filter(&p, &snap, &pod1(deferred), true).pre_filter.map(|x| x.1)
        };
        assert_eq!(pre(false, true), Some(Status::skip()), "gate off, deferred");
        assert_eq!(pre(true, false), Some(Status::skip()), "gate on, non-deferred");
        assert_eq!(pre(true, true), Some(Status::success()), "gate on, deferred");
        let filter = |on: bool, deferred: bool, node: k8s_openapi::api::core::v1::Node| {
            let f = features(on);
            let name = node.metadata.name.clone().unwrap();
            let snap = snapshot(vec![node], vec![], &f);
            let p = plugin(names::DEFERRED_POD_SCHEDULING, Value::Null, &f);
            run_filter(&p, &snap, &pod1(deferred), false).on(&name).clone()
        };
        let ok = Status::success();
        assert_eq!(
            filter(false, true, node_with_policy("node1", Some(vec!["policy1"]))),
            ok,
            "gate off"
        );
        assert_eq!(
            filter(true, false, node_with_policy("node1", Some(vec!["policy1"]))),
            ok,
            "non-deferred"
        );
        assert_eq!(
            filter(true, true, node_with_policy("node1", None)),
            ok,
            "node nil policy"
        );
        assert_eq!(
            filter(true, true, node_with_policy("node1", Some(vec![]))),
            ok,
            "empty disable list"
        );
        assert_eq!(
            filter(true, true, node_with_policy("node1", Some(vec!["policy1"]))),
            unresolvable(ERR_REASON_NODE_DISABLES_RESIZE_PREEMPTION),
            "disabled policy"
        );
        assert_eq!(
            filter(true, true, node_with_policy("node2", None)),
            unresolvable(ERR_REASON_OTHER_NODE),
            "node name mismatch"
        );
    }

    /// deferred_pod_scheduling_test.go TestPermit.
    #[test]
    fn permit_cases_from_upstream() {
        for (on, deferred, want) in [
            (false, true, Status::success()),
            (true, false, Status::success()),
            (true, true, unresolvable(PERMIT_WAITING_FOR_KUBELET)),
        ] {
            let f = features(on);
            let snap = snapshot(vec![node("node1").obj()], vec![], &f);
            let pl = DeferredPodScheduling {
                enabled: f.on(Gate::InPlacePodVerticalScalingSchedulerPreemption),
            };
            let pi = pod_info(&pod1(deferred), &f);
            let (s, wait) = pl.permit(
                &Ctx { snapshot: &snap },
                &mut CycleState::default(),
                &pi,
                "node1",
                &mut Vec::new(),
            );
            assert_eq!(
                (s, wait),
                (want, std::time::Duration::ZERO),
                "gate {on}, deferred {deferred}"
            );
        }
    }

    /// The profile places it just before NodeResourcesFit when the gate is on.
    #[test]
    fn profile_position() {
        let fw = crate::engine::Framework::default_profile(features(true)).unwrap();
        let filters = fw.plugins_at("Filter");
        let i = filters
            .iter()
            .position(|p| *p == names::DEFERRED_POD_SCHEDULING)
            .expect("in the profile");
        assert_eq!(filters[i + 1], names::NODE_RESOURCES_FIT);
        let fw = crate::engine::Framework::default_profile(features(false)).unwrap();
        assert!(!fw.plugins_at("Filter").contains(&names::DEFERRED_POD_SCHEDULING));
    }
}
