//! Port of framework/plugins/nodeunschedulable/node_unschedulable.go (v1.30.6).

use std::sync::Arc;

use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, FilterPlugin, Plugin, PluginSlots};
use crate::engine::framework::status::Status;
use crate::engine::version::Version;
use crate::model::Taint;

/// Reason when the node is cordoned.
pub const ERR_REASON_UNSCHEDULABLE: &str = "node(s) were unschedulable";

/// NodeUnschedulable.
pub struct NodeUnschedulable;

impl Plugin for NodeUnschedulable {
    fn name(&self) -> &'static str {
        names::NODE_UNSCHEDULABLE
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
        if pod.pod.tolerations.iter().any(|t| t.tolerates(&taint)) {
            return Status::success();
        }
        Status::unresolvable(ERR_REASON_UNSCHEDULABLE)
    }
}

/// Registers NodeUnschedulable.
pub fn register(_: &Value, _: Version) -> Result<PluginSlots, String> {
    Ok(PluginSlots {
        filter: Some(Arc::new(NodeUnschedulable)),
        ..Default::default()
    })
}
