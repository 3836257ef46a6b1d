//! Port of framework/plugins/interpodaffinity/scoring.go (v1.30.6): PreScore sums, per
//! topology pair, the weights of the incoming pod's preferred terms matched by existing pods
//! (anti-affinity negative), of existing pods' preferred terms matched by the incoming pod, and
//! `hardPodAffinityWeight` for existing pods' required affinity terms matched by the incoming
//! pod; Score adds the node's pairs; NormalizeScore maps [min, max] to [0, 100].

use std::collections::HashMap;
use std::sync::Arc;

use super::{InterPodAffinity, MergedTerm};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::index::pods::FnvBuild;
use crate::engine::framework::index::terms::{ScoringTerms, Weight};
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, NodeScore, PreScorePlugin, ScorePlugin, ScoreResult};
use crate::engine::framework::snapshot::Snapshot;
use crate::engine::framework::status::Status;
use crate::engine::framework::trace::Fact;
use crate::engine::plugins::helper::MAX_NODE_SCORE;
use crate::model::selector::Labels;

/// `preScoreStateKey`.
pub(crate) static PRE_SCORE_KEY: &str = "PreScoreInterPodAffinity";

/// `scoreMap`: topology key → value → summed weight. Entries are kept even when the sum is
/// zero: upstream skips Score only when no term matched at all.
pub(crate) type ScoreMap = HashMap<String, HashMap<String, i64, FnvBuild>, FnvBuild>;

/// `preScoreState`.
#[derive(Clone, Debug)]
pub(crate) struct PreScoreState {
    /// Summed weights per topology pair.
    pub topology_score: Arc<ScoreMap>,
}

fn add(m: &mut ScoreMap, key: &str, value: &str, delta: i64) {
    if !m.contains_key(key) {
        m.insert(key.to_string(), HashMap::default());
    }
    if let Some(inner) = m.get_mut(key) {
        match inner.get_mut(value) {
            Some(n) => *n += delta,
            None => {
                inner.insert(value.to_string(), delta);
            }
        }
    }
}

/// The PreScore computation: None when there is nothing to score (Skip).
pub(crate) fn build_score_map(pl: &InterPodAffinity, cx: &Ctx<'_>, pod: &PodInfo) -> Option<ScoreMap> {
    let snap = cx.snapshot;
    let has_constraints = !pod.preferred_affinity().is_empty() || !pod.preferred_anti_affinity().is_empty();
    if pl.ignore_preferred_terms_of_existing_pods && !has_constraints {
        return None;
    }
    let ns = &snap.cluster.namespaces;
    let incoming: Vec<(MergedTerm, i64)> = pod
        .preferred_affinity()
        .iter()
        .map(|w| (MergedTerm::new(&w.term, ns), i64::from(w.weight)))
        .chain(
            pod.preferred_anti_affinity()
                .iter()
                .map(|w| (MergedTerm::new(&w.term, ns), -i64::from(w.weight))),
        )
        .collect();
    let ns_labels = snap.namespace_labels(&pod.pod.key.namespace);
    let hard = i64::from(pl.hard_pod_affinity_weight);
    let mut m = ScoreMap::default();
    // The existing pods' terms matched by the incoming pod: each distinct term once, from
    // the snapshot's index.
    add_existing(&mut m, &snap.index.terms, snap, pod, ns_labels, hard);
    if !has_constraints {
        return (!m.is_empty()).then_some(m);
    }
    // The incoming pod's preferred terms, matched by every pod on each node.
    for node in &snap.nodes {
        let labels = &node.node.labels;
        if labels.is_empty() || node.pods.is_empty() {
            continue;
        }
        for (t, w) in &incoming {
            let Some(v) = labels.get(&t.topology_key) else {
                continue;
            };
            let n = node.pods.iter().filter(|p| t.matches(&p.pod)).count() as i64;
            if n > 0 {
                add(&mut m, &t.topology_key, v, w * n);
            }
        }
    }
    (!m.is_empty()).then_some(m)
}

/// The existing pods' required affinity terms (weighted `hardPodAffinityWeight`) and
/// preferred terms that the incoming pod matches, grouped by term in the snapshot's index: the
/// same pairs and sums as matching every pod's terms (sums do not depend on the order).
fn add_existing(m: &mut ScoreMap, g: &ScoringTerms, snap: &Snapshot, pod: &PodInfo, ns_labels: &Labels, hard: i64) {
    let matched: Vec<bool> = g.terms.iter().map(|t| t.matches(&pod.pod, ns_labels)).collect();
    for u in &g.uses {
        if !matched[u.term as usize] {
            continue;
        }
        let delta = match u.weight {
            Weight::Hard if hard > 0 => hard,
            Weight::Hard => continue,
            Weight::Preferred(w) => w,
        };
        let t = &g.terms[u.term as usize];
        if let Some(v) = snap.nodes[u.node as usize].node.labels.get(&t.topology_key) {
            add(m, &t.topology_key, v, delta);
        }
    }
}

/// `Score`: the node's pairs summed.
pub(crate) fn score_node(m: &ScoreMap, node: &NodeInfo) -> i64 {
    let labels = &node.node.labels;
    m.iter()
        .filter_map(|(k, vals)| labels.get(k).and_then(|v| vals.get(v)))
        .sum()
}

/// `NormalizeScore`: min-max scaling to [0, 100], truncated as float64 → int64.
pub(crate) fn normalize(scores: &mut [NodeScore<'_>]) {
    let (Some(min), Some(max)) = (
        scores.iter().map(|s| s.score).min(),
        scores.iter().map(|s| s.score).max(),
    ) else {
        return;
    };
    let diff = max - min;
    for s in scores.iter_mut() {
        let f = if diff > 0 {
            MAX_NODE_SCORE as f64 * ((s.score - min) as f64 / diff as f64)
        } else {
            0.0
        };
        s.score = f as i64;
    }
}

impl PreScorePlugin for InterPodAffinity {
    fn pre_score(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, nodes: &[&NodeInfo]) -> Status {
        if nodes.is_empty() {
            return Status::skip();
        }
        match build_score_map(self, cx, pod) {
            None => Status::skip(),
            Some(m) => {
                state.write(
                    PRE_SCORE_KEY,
                    PreScoreState {
                        topology_score: Arc::new(m),
                    },
                );
                Status::success()
            }
        }
    }

    fn pre_score_facts(&self, _: &Ctx<'_>, _: &CycleState, pod: &PodInfo) -> Vec<Fact> {
        super::preferred_facts(pod)
    }
}

fn missing_state() -> Status {
    Status::error(format!("failed to read {PRE_SCORE_KEY:?} from cycleState: not found"))
}

impl ScorePlugin for InterPodAffinity {
    fn score(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> ScoreResult {
        match state.read::<PreScoreState>(PRE_SCORE_KEY) {
            Some(s) => Ok(score_node(&s.topology_score, node)),
            None => Err(Box::new(missing_state())),
        }
    }

    fn has_normalize(&self) -> bool {
        true
    }

    fn normalize(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, scores: &mut [NodeScore<'_>]) -> Status {
        let Some(s) = state.read::<PreScoreState>(PRE_SCORE_KEY) else {
            return missing_state();
        };
        if !s.topology_score.is_empty() {
            normalize(scores);
        }
        Status::success()
    }
}

#[cfg(test)]
#[path = "scoring_tests.rs"]
mod tests;
