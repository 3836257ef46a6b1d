//! The placement extension points of 1.36's pod-group cycle (framework/runtime/framework.go
//! `RunPlacementGeneratePlugins`, `RunPlacementScorePlugins`): the placements a group is
//! tried in, and the weighted scores of the placements where it fits.

use serde::Serialize;

use super::plugin::{Ctx, Placement, PodGroupAssignments, PodGroupView};
use super::runtime::Framework;
use super::status::{Code, Status};

/// The lowest and highest placement scores (`fwk.MinScore`, `fwk.MaxScore`).
const MIN_SCORE: i64 = 0;
const MAX_SCORE: i64 = 100;

/// The placements for a group: the profile's one PlacementGenerate plugin applied to every
/// node (`nodes`), or the single placement of every node when the profile has none.
pub fn generate(
    cx: &Ctx<'_>,
    fw: &Framework,
    group: &PodGroupView,
    nodes: Vec<String>,
) -> Result<Vec<Placement>, Status> {
    let parent = Placement {
        name: String::new(),
        nodes,
    };
    let Some(pl) = fw.placement_generate.first() else {
        return Ok(vec![parent]);
    };
    match pl.generate_placements(cx, group, &parent) {
        Err(s) => Err(s.with_plugin(pl.name())),
        Ok(v) if v.is_empty() => Err(Status::unschedulable("no feasible placements found").with_plugin(pl.name())),
        Ok(v) => Ok(v),
    }
}

/// One plugin's score of one placement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementPluginScore {
    /// Plugin.
    pub plugin: String,
    /// ScorePlacement's value.
    pub raw: i64,
    /// After NormalizePlacementScore (= raw without it).
    pub normalized: i64,
    /// normalized × weight.
    pub weighted: i64,
}

/// A placement's scores.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementScores {
    /// The placement.
    pub placement: String,
    /// Per plugin, in profile order.
    pub scores: Vec<PlacementPluginScore>,
    /// The sum of the weighted scores.
    pub total: i64,
}

/// Scores every placement's assignments: each plugin's raw score, its normalization over all
/// placements, the range check, the weights. Errors carry upstream's wrapping messages.
pub fn score(
    cx: &Ctx<'_>,
    fw: &Framework,
    group: &PodGroupView,
    assignments: &[PodGroupAssignments<'_>],
) -> Result<Vec<PlacementScores>, Status> {
    let mut per_plugin: Vec<(Vec<i64>, Vec<i64>)> = Vec::with_capacity(fw.placement_score.len());
    for (pl, _) in &fw.placement_score {
        let mut raw = Vec::with_capacity(assignments.len());
        for a in assignments {
            match pl.score_placement(cx, group, a) {
                Ok(v) => raw.push(v),
                Err(s) => {
                    return Err(Status::new(
                        Code::Error,
                        [format!(
                            "running PlacementScore plugins: plugin {:?} failed with: {}",
                            pl.name(),
                            s.message()
                        )],
                    ));
                }
            }
        }
        per_plugin.push((raw.clone(), raw));
    }
    for ((pl, _), (_, normalized)) in fw.placement_score.iter().zip(per_plugin.iter_mut()) {
        if let Some(Err(s)) = pl.normalize_placement_scores(group, normalized) {
            return Err(Status::new(
                Code::Error,
                [format!(
                    "running NormalizePlacementScore on PlacementScore plugins: plugin {:?} failed with: {}",
                    pl.name(),
                    s.message()
                )],
            ));
        }
    }
    let mut out = Vec::with_capacity(assignments.len());
    for (i, a) in assignments.iter().enumerate() {
        let mut scores = Vec::with_capacity(fw.placement_score.len());
        let mut total = 0i64;
        for ((pl, weight), (raw, normalized)) in fw.placement_score.iter().zip(&per_plugin) {
            let n = normalized[i];
            if !(MIN_SCORE..=MAX_SCORE).contains(&n) {
                return Err(Status::new(
                    Code::Error,
                    [format!(
                        "applying score defaultWeights on PlacementScore plugins: plugin {:?} returns an invalid score {n}, it should in the range of [{MIN_SCORE}, {MAX_SCORE}] after normalizing",
                        pl.name()
                    )],
                ));
            }
            let weighted = n.saturating_mul(*weight);
            total = total.saturating_add(weighted);
            scores.push(PlacementPluginScore {
                plugin: pl.name().to_string(),
                raw: raw[i],
                normalized: n,
                weighted,
            });
        }
        out.push(PlacementScores {
            placement: a.placement.name.clone(),
            scores,
            total,
        });
    }
    Ok(out)
}
