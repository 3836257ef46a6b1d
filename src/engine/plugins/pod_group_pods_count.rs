//! PodGroupPodsCount (1.36, framework/plugins/podgrouppodscount, behind
//! TopologyAwareWorkloadScheduling): a placement scores the number of the group's pods it
//! would hold (already scheduled plus proposed in it), normalized to 0–100 against the best
//! placement.

use std::sync::Arc;

use serde_json::Value;

use super::names;
use crate::engine::framework::plugin::{
    Ctx, PlacementScorePlugin, Plugin, PluginSlots, PodGroupAssignments, PodGroupView,
};
use crate::engine::framework::status::{Code, Status};
use crate::engine::release::Features;

/// The plugin.
pub(crate) struct PodGroupPodsCount;

impl Plugin for PodGroupPodsCount {
    fn name(&self) -> &'static str {
        names::POD_GROUP_PODS_COUNT
    }
}

/// The lowest and highest scores (`fwk.MinScore`, `fwk.MaxScore`).
const MIN_SCORE: i64 = 0;
const MAX_SCORE: i64 = 100;

impl PlacementScorePlugin for PodGroupPodsCount {
    fn score_placement(&self, _cx: &Ctx<'_>, group: &PodGroupView, a: &PodGroupAssignments<'_>) -> Result<i64, Status> {
        Ok(i64::try_from(group.scheduled.len() + a.proposed.len()).unwrap_or(i64::MAX))
    }

    fn normalize_placement_scores(&self, _group: &PodGroupView, scores: &mut [i64]) -> Option<Result<(), Status>> {
        let max = scores.iter().copied().max().unwrap_or(0).max(0);
        if max == 0 {
            return Some(Err(Status::new(
                Code::Error,
                ["no pods from pod group are assigned to any of the candidate placements".to_string()],
            )));
        }
        for s in scores.iter_mut() {
            *s = MIN_SCORE + s.saturating_mul(MAX_SCORE - MIN_SCORE) / max;
        }
        Some(Ok(()))
    }
}

/// Registers PodGroupPodsCount (no args).
pub(crate) fn register(_: &Value, _: &Features) -> Result<PluginSlots, String> {
    Ok(PluginSlots {
        placement_score: Some(Arc::new(PodGroupPodsCount)),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ObjectKey;

    #[test]
    fn scores_are_normalized_against_the_best_placement() {
        let g = PodGroupView {
            key: ObjectKey::new("ml", "pg"),
            scheduled: vec![],
        };
        let mut s = vec![3, 4, 1];
        assert!(matches!(
            PodGroupPodsCount.normalize_placement_scores(&g, &mut s),
            Some(Ok(()))
        ));
        // 3 × 100 / 4 = 75, 1 × 100 / 4 = 25 (integer division, as upstream's int64).
        assert_eq!(s, vec![75, 100, 25]);
        let mut z = vec![0, 0];
        let err = PodGroupPodsCount.normalize_placement_scores(&g, &mut z);
        assert!(
            matches!(&err, Some(Err(st)) if st.message() == "no pods from pod group are assigned to any of the candidate placements"),
            "{:?}",
            err.map(|r| r.err().map(|e| e.message()))
        );
    }
}
