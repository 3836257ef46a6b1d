//! Port of framework/plugins/podtopologyspread/scoring.go (v1.30.6): PreScore counts matching
//! pods per topology domain of the ScheduleAnyway constraints over all nodes (hostname
//! constraints are counted per node in Score), Score sums `count * log(domains + 2) +
//! maxSkew - 1` per constraint, and NormalizeScore maps fewer matches to higher scores.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::common::{Constraint, LABEL_HOSTNAME, count_on_node, key_slots, node_has_all_keys};
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::NodeScore;
use crate::engine::plugins::helper::MAX_NODE_SCORE;
use crate::engine::plugins::node_affinity::RequiredNodeAffinity;

/// Cycle-state key (`"PreScore" + Name`).
pub const PRE_SCORE_KEY: &str = "PreScorePodTopologySpread";

/// What PreScore computed (`preScoreState`).
#[derive(Clone, Debug)]
pub struct PreScoreState {
    /// The ScheduleAnyway constraints.
    pub constraints: Arc<Vec<Constraint>>,
    /// Each constraint's topology-key slot (1.30 keys counts by topology pair).
    pub slots: Arc<Vec<usize>>,
    /// Feasible nodes missing a required topology key: scored 0.
    pub ignored: Arc<HashSet<String>>,
    /// Per key slot: topology value → matching pods, for the domains of feasible nodes.
    pub counts: Arc<Vec<HashMap<String, i64>>>,
    /// Per constraint: `log(domains + 2)`.
    pub weights: Arc<Vec<f64>>,
}

/// `topologyNormalizingWeight`.
pub fn topology_normalizing_weight(size: usize) -> f64 {
    (size as f64 + 2.0).ln()
}

/// `scoreForCount`.
pub fn score_for_count(cnt: i64, max_skew: i32, weight: f64) -> f64 {
    cnt as f64 * weight + f64::from(max_skew - 1)
}

impl PreScoreState {
    /// `initPreScoreState` over the feasible nodes, then the counting pass over all nodes.
    pub fn compute(
        pod: &PodInfo,
        constraints: Vec<Constraint>,
        feasible: &[&NodeInfo],
        all: &[NodeInfo],
        require_all_topologies: bool,
        per_constraint: bool,
    ) -> Self {
        let (keys, slots) = key_slots(&constraints, per_constraint);
        let mut ignored: HashSet<String> = HashSet::new();
        let mut counts: Vec<HashMap<String, i64>> = vec![HashMap::new(); keys.len()];
        let mut topo_size = vec![0usize; constraints.len()];
        for n in feasible {
            let labels = &n.node.labels;
            if require_all_topologies && !node_has_all_keys(labels, &constraints) {
                ignored.insert(n.name().to_string());
                continue;
            }
            for (i, c) in constraints.iter().enumerate() {
                if c.topology_key == LABEL_HOSTNAME {
                    continue;
                }
                let value = labels.get(&c.topology_key).cloned().unwrap_or_default();
                let m = &mut counts[slots[i]];
                if !m.contains_key(&value) {
                    m.insert(value, 0);
                    topo_size[i] += 1;
                }
            }
        }
        let weights = constraints
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let size =
                    if c.topology_key == LABEL_HOSTNAME { feasible.len() - ignored.len() } else { topo_size[i] };
                topology_normalizing_weight(size)
            })
            .collect();
        let required = RequiredNodeAffinity::of(pod);
        let ns = pod.pod.key.namespace.as_str();
        for ni in all {
            let node = &ni.node;
            if require_all_topologies && !node_has_all_keys(&node.labels, &constraints) {
                continue;
            }
            for (i, c) in constraints.iter().enumerate() {
                if !c.includes_node(&pod.pod, node, &required) {
                    continue;
                }
                let value = node.labels.get(&c.topology_key).map_or("", String::as_str);
                if !counts[slots[i]].contains_key(value) {
                    continue;
                }
                let n = count_on_node(ni, &c.selector, ns);
                if let Some(e) = counts[slots[i]].get_mut(value) {
                    *e += n;
                }
            }
        }
        PreScoreState {
            constraints: Arc::new(constraints),
            slots: Arc::new(slots),
            ignored: Arc::new(ignored),
            counts: Arc::new(counts),
            weights: Arc::new(weights),
        }
    }

    /// Score of one feasible node.
    pub fn score(&self, pod: &PodInfo, node: &NodeInfo) -> i64 {
        if self.ignored.contains(node.name()) {
            return 0;
        }
        let mut score = 0.0;
        for (i, c) in self.constraints.iter().enumerate() {
            let Some(value) = node.node.labels.get(&c.topology_key) else { continue };
            let cnt = if c.topology_key == LABEL_HOSTNAME {
                count_on_node(node, &c.selector, &pod.pod.key.namespace)
            } else {
                self.counts[self.slots[i]].get(value).copied().unwrap_or(0)
            };
            score += score_for_count(cnt, c.max_skew, self.weights[i]);
        }
        // Go's math.Round rounds half away from zero, as f64::round does.
        score.round() as i64
    }

    /// NormalizeScore: ignored nodes get 0, the others `100 * (max + min - s) / max`.
    pub fn normalize(&self, scores: &mut [NodeScore]) {
        const INVALID: i64 = -1;
        let mut min = i64::MAX;
        let mut max = 0i64;
        for s in scores.iter_mut() {
            if self.ignored.contains(&s.name) {
                s.score = INVALID;
                continue;
            }
            min = min.min(s.score);
            max = max.max(s.score);
        }
        for s in scores.iter_mut() {
            if s.score == INVALID {
                s.score = 0;
            } else if max == 0 {
                s.score = MAX_NODE_SCORE;
            } else {
                s.score = MAX_NODE_SCORE * (max + min - s.score) / max;
            }
        }
    }
}
