//! Port of noderesources/balanced_allocation.go (v1.30.6).

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::resource_allocation::{ResourceSpec, balanced, defaulted, pod_request_list, vectors};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, Plugin, PluginSlots, PreScorePlugin, ScorePlugin};
use crate::engine::framework::status::Status;
use crate::engine::plugins::names;
use crate::engine::version::Version;

/// NodeResourcesBalancedAllocationArgs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Resources and weights.
    #[serde(default)]
    pub resources: Vec<ResourceSpec>,
}

/// NodeResourcesBalancedAllocation.
pub struct BalancedAllocation {
    resources: Vec<ResourceSpec>,
}

const PRE_SCORE_KEY: &str = "PreScoreNodeResourcesBalancedAllocation";

impl Plugin for BalancedAllocation {
    fn name(&self) -> &'static str {
        names::NODE_RESOURCES_BALANCED_ALLOCATION
    }
}

impl PreScorePlugin for BalancedAllocation {
    fn pre_score(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, _: &[&NodeInfo]) -> Status {
        state.write(PRE_SCORE_KEY, pod_request_list(pod, &self.resources, true));
        Status::success()
    }
}

impl ScorePlugin for BalancedAllocation {
    fn score(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> (i64, Status) {
        let reqs = match state.read::<Vec<i64>>(PRE_SCORE_KEY) {
            Some(r) => r.clone(),
            None => pod_request_list(pod, &self.resources, true),
        };
        let (requested, allocatable) = vectors(node, &self.resources, &reqs, true);
        (balanced(&requested, &allocatable), Status::success())
    }
}

/// Registers NodeResourcesBalancedAllocation.
pub fn register(args: &Value, _: Version) -> Result<PluginSlots, String> {
    let a: Args = crate::engine::plugins::decode_args(args)?;
    let p = Arc::new(BalancedAllocation {
        resources: defaulted(a.resources),
    });
    Ok(PluginSlots {
        pre_score: Some(p.clone()),
        score: Some(p),
        ..Default::default()
    })
}
