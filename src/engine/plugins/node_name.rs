//! Port of framework/plugins/nodename/node_name.go (v1.30.6).

use std::sync::Arc;

use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, FilterPlugin, Plugin, PluginSlots};
use crate::engine::framework::status::Status;
use crate::engine::version::Version;

/// Reason when spec.nodeName names another node.
pub const ERR_REASON: &str = "node(s) didn't match the requested node name";

/// NodeName.
pub struct NodeName;

impl Plugin for NodeName {
    fn name(&self) -> &'static str {
        names::NODE_NAME
    }
}

impl FilterPlugin for NodeName {
    fn filter(&self, _: &Ctx<'_>, _: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        match pod.pod.spec().node_name.as_deref() {
            Some(n) if !n.is_empty() && n != node.name() => Status::unresolvable(ERR_REASON),
            _ => Status::success(),
        }
    }
}

/// Registers NodeName.
pub fn register(_: &Value, _: Version) -> Result<PluginSlots, String> {
    Ok(PluginSlots {
        filter: Some(Arc::new(NodeName)),
        ..Default::default()
    })
}
