//! Port of framework/plugins/nodeunschedulable/node_unschedulable.go (v1.30.6).

use std::sync::Arc;

use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, FilterPlugin, Plugin, PluginSlots, Signing};
use crate::engine::framework::status::Status;
use crate::engine::release::{Features, Gate};
use crate::model::{Taint, Toleration};

/// Reason when the node is cordoned.
pub(crate) const ERR_REASON_UNSCHEDULABLE: &str = "node(s) were unschedulable";

/// NodeUnschedulable.
pub(crate) struct NodeUnschedulable {
    /// Tolerations may use Lt and Gt (TaintTolerationComparisonOperators).
    comparison_operators: bool,
}

impl Plugin for NodeUnschedulable {
    fn name(&self) -> &'static str {
        names::NODE_UNSCHEDULABLE
    }

    fn sign_pod(&self, _: &Ctx<'_>, _: &PodInfo) -> Signing {
        Signing::Signed
    }
}

impl FilterPlugin for NodeUnschedulable {
    fn filter(&self, _: &Ctx<'_>, _: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        if !node.node.unschedulable {
            return Status::success();
        }
        let taint = Taint {
            key: "node.kubernetes.io/unschedulable".into(),
            value: String::new(),
            effect: "NoSchedule".into(),
        };
        if Toleration::any_tolerates(&pod.pod.tolerations, &taint, self.comparison_operators) {
            return Status::success();
        }
        Status::unresolvable(ERR_REASON_UNSCHEDULABLE)
    }

    /// Reads only the node's spec and the pod's tolerations.
    fn node_local(&self) -> bool {
        true
    }
}

/// Registers NodeUnschedulable.
pub(crate) fn register(_: &Value, features: &Features) -> Result<PluginSlots, String> {
    Ok(PluginSlots {
        filter: Some(Arc::new(NodeUnschedulable {
            comparison_operators: features.on(Gate::TaintTolerationComparisonOperators),
        })),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::builders::*;

    /// node_unschedulable_test.go TestNodeUnschedulable.
    #[test]
    fn filter_cases_from_upstream() {
        let cases = [
            (
                "Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)",
                pod("p").obj(),
                true,
                Status::unresolvable(ERR_REASON_UNSCHEDULABLE),
            ),
            ("Schedule pod to normal node", pod("p").obj(), false, Status::success()),
            (
                "Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
                pod("p")
                    .toleration("node.kubernetes.io/unschedulable", "", "", "NoSchedule")
                    .obj(),
                true,
                Status::success(),
            ),
        ];
        for (name, p, unschedulable, want) in cases {
            let snap = snapshot(vec![node("n").unschedulable(unschedulable).obj()], vec![], V1_30);
            let got = run_filter(&plugin(names::NODE_UNSCHEDULABLE, Value::Null, V1_30), &snap, &p, true);
            assert_eq!(got.on("n"), &want, "{name}");
        }
        assert_eq!(ERR_REASON_UNSCHEDULABLE, "node(s) were unschedulable");
    }

    /// The toleration is checked as `ToleratesTaint` does: an Exists toleration without key
    /// tolerates it, one for another effect does not.
    #[test]
    fn toleration_semantics() {
        let cases = [
            (pod("p").toleration("", "Exists", "", "").obj(), true),
            (
                pod("p")
                    .toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoExecute")
                    .obj(),
                false,
            ),
            (
                pod("p")
                    .toleration("node.kubernetes.io/unschedulable", "Equal", "x", "NoSchedule")
                    .obj(),
                false,
            ),
        ];
        for (p, ok) in cases {
            let snap = snapshot(vec![node("n").unschedulable(true).obj()], vec![], V1_30);
            let got = run_filter(&plugin(names::NODE_UNSCHEDULABLE, Value::Null, V1_30), &snap, &p, true);
            assert_eq!(got.on("n").is_success(), ok, "{:?}", p.spec);
        }
    }
}
