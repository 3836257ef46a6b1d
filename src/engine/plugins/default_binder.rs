//! Port of framework/plugins/defaultbinder/default_binder.go (v1.30.6): Bind creates the
//! `pods/{name}/binding` subresource with target Node `node`. kschedtui makes no API call here;
//! the trace says which call upstream makes, and the simulator applies the binding to the
//! snapshot.

use std::sync::Arc;

use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::PodInfo;
use crate::engine::framework::plugin::{BindPlugin, Ctx, Plugin, PluginSlots};
use crate::engine::framework::status::Status;
use crate::engine::release::Features;

/// DefaultBinder.
pub(crate) struct DefaultBinder;

impl Plugin for DefaultBinder {
    fn name(&self) -> &'static str {
        names::DEFAULT_BINDER
    }
}

/// The remark DefaultBinder's Bind leaves in the trace.
pub(crate) fn binding_note(pod: &PodInfo, node: &str) -> String {
    format!(
        "would POST /api/v1/namespaces/{}/pods/{}/binding with target Node '{node}'",
        pod.pod.key.namespace, pod.pod.key.name
    )
}

impl BindPlugin for DefaultBinder {
    fn bind(&self, _: &Ctx<'_>, _: &mut CycleState, pod: &PodInfo, node: &str, notes: &mut Vec<String>) -> Status {
        notes.push(binding_note(pod, node));
        Status::success()
    }
}

/// Registers DefaultBinder.
pub(crate) fn register(_: &Value, _: &Features) -> Result<PluginSlots, String> {
    Ok(PluginSlots {
        bind: Some(Arc::new(DefaultBinder)),
        ..Default::default()
    })
}
