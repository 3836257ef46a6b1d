//! Port of framework/plugins/tainttoleration/taint_toleration.go (v1.30.6, with the 1.31+
//! reason text keyed by version).

use std::sync::Arc;

use serde_json::Value;

use super::helper::{MAX_NODE_SCORE, default_normalize_score, find_untolerated_taint};
use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{
    Ctx, FilterPlugin, NodeScore, Plugin, PluginSlots, PreScorePlugin, ScorePlugin,
};
use crate::engine::framework::status::Status;
use crate::engine::version::Version;
use crate::model::Toleration;

/// TaintToleration.
pub struct TaintToleration {
    version: Version,
}

const PRE_SCORE_KEY: &str = "PreScoreTaintToleration";

#[derive(Clone)]
struct PreScoreState {
    tolerations_prefer_no_schedule: Vec<Toleration>,
}

impl Plugin for TaintToleration {
    fn name(&self) -> &'static str {
        names::TAINT_TOLERATION
    }
}

impl FilterPlugin for TaintToleration {
    fn filter(&self, _: &Ctx<'_>, _: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        let t = find_untolerated_taint(&node.node.taints, &pod.pod.tolerations, |t| {
            t.effect == "NoSchedule" || t.effect == "NoExecute"
        });
        match t {
            None => Status::success(),
            Some(t) if self.version.taint_reason_lists_taint() => {
                Status::unresolvable(format!("node(s) had untolerated taint {{{}: {}}}", t.key, t.value))
            }
            Some(_) => Status::unresolvable("node(s) had untolerated taint(s)"),
        }
    }
}

impl PreScorePlugin for TaintToleration {
    fn pre_score(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, _: &[&NodeInfo]) -> Status {
        let tolerations_prefer_no_schedule = pod
            .pod
            .tolerations
            .iter()
            .filter(|t| t.effect.is_empty() || t.effect == "PreferNoSchedule")
            .cloned()
            .collect();
        state.write(
            PRE_SCORE_KEY,
            PreScoreState {
                tolerations_prefer_no_schedule,
            },
        );
        Status::success()
    }
}

impl ScorePlugin for TaintToleration {
    fn score(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> (i64, Status) {
        let Some(s) = state.read::<PreScoreState>(PRE_SCORE_KEY) else {
            return (
                0,
                Status::error("reading \"PreScoreTaintToleration\" from cycleState: not found"),
            );
        };
        let count = node
            .node
            .taints
            .iter()
            .filter(|t| t.effect == "PreferNoSchedule")
            .filter(|t| !s.tolerations_prefer_no_schedule.iter().any(|tol| tol.tolerates(t)))
            .count();
        (count as i64, Status::success())
    }
    fn has_normalize(&self) -> bool {
        true
    }
    fn normalize(&self, _: &Ctx<'_>, _: &CycleState, _: &PodInfo, scores: &mut [NodeScore]) -> Status {
        default_normalize_score(MAX_NODE_SCORE, true, scores);
        Status::success()
    }
}

/// Registers TaintToleration.
pub fn register(_: &Value, version: Version) -> Result<PluginSlots, String> {
    let p = Arc::new(TaintToleration { version });
    Ok(PluginSlots {
        filter: Some(p.clone()),
        pre_score: Some(p.clone()),
        score: Some(p),
        ..Default::default()
    })
}
