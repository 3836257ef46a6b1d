//! Port of framework/plugins/podtopologyspread/scoring.go (v1.30.6): PreScore counts matching
//! pods per topology domain of the ScheduleAnyway constraints over all nodes (hostname
//! constraints are counted per node in Score), Score sums `count * log(domains + 2) +
//! maxSkew - 1` per constraint, and NormalizeScore maps fewer matches to higher scores.
//!
//! Domains are the snapshot index's value ids of the key ([`IndexedNode::pair`]), counted by id
//! ([`ValueCounts`]), as the Filter side's are: upstream's `map[topologyPair]*int64`, read
//! per node with no string compared or hashed. The counting pass over all nodes is cut into
//! pieces counted in parallel (unless the snapshot is serial) and added up: sums, the same
//! whatever the cut.

use std::collections::HashSet;
use std::sync::Arc;

use super::common::{Constraint, LABEL_HOSTNAME, key_slots};
use crate::engine::framework::index::pods::PodCounter;
use crate::engine::framework::index::{IndexedNode, Key, LabelColumns, ValueCounts};
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::NodeScore;
use crate::engine::framework::snapshot::Snapshot;
use crate::engine::plugins::helper::MAX_NODE_SCORE;

/// Cycle-state key (`"PreScore" + Name`).
pub(crate) static PRE_SCORE_KEY: &str = "PreScorePodTopologySpread";

/// What PreScore computed (`preScoreState`).
#[derive(Clone, Debug)]
pub(crate) struct PreScoreState {
    /// The ScheduleAnyway constraints.
    pub constraints: Arc<Vec<Constraint>>,
    /// Each constraint's topology-key slot (1.30 keys counts by topology pair).
    pub slots: Arc<Vec<usize>>,
    /// Each slot's topology key, as the snapshot's index reads it.
    keys: Arc<Vec<Key>>,
    /// Feasible nodes missing a required topology key: scored 0.
    pub ignored: Arc<HashSet<String>>,
    /// Per key slot: domain → matching pods, for the domains of feasible nodes, by the
    /// domain's id ([`domain`]).
    counts: Arc<Vec<ValueCounts>>,
    /// Per constraint: `log(domains + 2)`.
    pub weights: Arc<Vec<f64>>,
    /// Counts the constraints' matching pods on a node (PreScore, and hostname constraints in
    /// Score).
    pub counter: Arc<PodCounter>,
    /// The snapshot's label columns the ids are of.
    labels: Arc<LabelColumns>,
}

/// `topologyNormalizingWeight`.
pub(crate) fn topology_normalizing_weight(size: usize) -> f64 {
    (size as f64 + 2.0).ln()
}

/// `scoreForCount`.
pub(crate) fn score_for_count(cnt: i64, max_skew: i32, weight: f64) -> f64 {
    cnt as f64 * weight + f64::from(max_skew - 1)
}

/// The ids a key's domains take: its column's values, and one more for the nodes without the
/// key when no node has the value "" (see [`domain`]).
fn domain_ids(labels: &LabelColumns, key: &Key) -> usize {
    key.column().map_or(1, |c| labels.column_by_index(c).len_values() + 1)
}

/// The domain of a node for `key` as upstream keys its pair (`node.Labels[key]`: a node without
/// the key is in the domain ""): the id of the node's value; for a node without the key, the
/// id of "" when some node has that value, else the id after the column's values. A copy's
/// value that no node of the snapshot has is in no domain (copies are not scored).
fn domain(labels: &LabelColumns, node: IndexedNode<'_>, key: &Key) -> u32 {
    let Some(c) = key.column() else { return 0 };
    match node.pair(key) {
        Some(p) => p.value,
        None => {
            let col = labels.column_by_index(c);
            col.id_of("").unwrap_or(col.len_values() as u32)
        }
    }
}

/// The value of a domain id of `key` (for the trace).
fn domain_name<'a>(labels: &'a LabelColumns, key: &Key, id: u32) -> &'a str {
    key.column()
        .map(|c| labels.column_by_index(c))
        .filter(|col| (id as usize) < col.len_values())
        .map_or("", |col| col.value(id))
}

impl PreScoreState {
    /// `initPreScoreState` over the feasible nodes, then the counting pass over all the
    /// snapshot's nodes; `counter` counts each constraint's matching pods on a node.
    pub(crate) fn compute(
        snap: &Snapshot,
        pod: &PodInfo,
        constraints: Vec<Constraint>,
        feasible: &[&NodeInfo],
        require_all_topologies: bool,
        per_constraint: bool,
        counter: PodCounter,
    ) -> Self {
        let labels = snap.labels();
        let (slot_names, slots) = key_slots(&constraints, per_constraint);
        let keys: Vec<Key> = slot_names.iter().map(|k| labels.key(k)).collect();
        // `nodeLabelsMatchSpreadConstraints`: the node has every constraint's topology key
        let has_all_keys = |node: IndexedNode<'_>| keys.iter().all(|k| node.pair(k).is_some());
        let mut ignored: HashSet<String> = HashSet::new();
        let mut counts: Vec<ValueCounts> = keys.iter().map(|k| ValueCounts::new(domain_ids(labels, k))).collect();
        let mut topo_size = vec![0usize; constraints.len()];
        for n in feasible {
            let at = snap.indexed(n);
            if require_all_topologies && !has_all_keys(at) {
                ignored.insert(n.name().to_string());
                continue;
            }
            for (i, c) in constraints.iter().enumerate() {
                if c.topology_key == LABEL_HOSTNAME {
                    continue;
                }
                let slot = &mut counts[slots[i]];
                let d = domain(labels, at, &keys[slots[i]]);
                if !slot.has(d) {
                    slot.add(d, 0);
                    topo_size[i] += 1;
                }
            }
        }
        let weights = constraints
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let size = if c.topology_key == LABEL_HOSTNAME {
                    feasible.len() - ignored.len()
                } else {
                    topo_size[i]
                };
                topology_normalizing_weight(size)
            })
            .collect();
        let required = snap.node_matcher(pod);
        let entered = &counts;
        let count_piece = |start: usize, piece: &[NodeInfo]| -> Vec<Vec<i64>> {
            let mut add: Vec<Vec<i64>> = entered.iter().map(|c| vec![0; c.capacity()]).collect();
            for n_idx in start..start + piece.len() {
                let at = snap.indexed_at(n_idx);
                if require_all_topologies && !has_all_keys(at) {
                    continue;
                }
                for (i, c) in constraints.iter().enumerate() {
                    if !c.includes_node(&pod.pod, at, &required) {
                        continue;
                    }
                    let slot = slots[i];
                    let d = domain(labels, at, &keys[slot]);
                    if !entered[slot].has(d) {
                        continue;
                    }
                    add[slot][d as usize] += counter.count(&snap.nodes[n_idx], Some(n_idx), i);
                }
            }
            add
        };
        let pieces = crate::engine::framework::parallel::map_pieces(snap.serial, &snap.nodes, count_piece);
        for piece in pieces {
            for (slot, add) in piece.iter().enumerate() {
                for (d, n) in add.iter().enumerate() {
                    if *n != 0 {
                        counts[slot].add(d as u32, *n);
                    }
                }
            }
        }
        PreScoreState {
            constraints: Arc::new(constraints),
            slots: Arc::new(slots),
            keys: Arc::new(keys),
            ignored: Arc::new(ignored),
            counts: Arc::new(counts),
            weights: Arc::new(weights),
            counter: Arc::new(counter),
            labels: labels.clone(),
        }
    }

    /// Score of one feasible node; `count_here(constraint index)` is the number of matching
    /// pods on the node, used for hostname constraints.
    pub(crate) fn score(&self, node: IndexedNode<'_>, count_here: &dyn Fn(usize) -> i64) -> i64 {
        if !self.ignored.is_empty() && self.ignored.contains(node.node().name.as_str()) {
            return 0;
        }
        let mut score = 0.0;
        for (i, c) in self.constraints.iter().enumerate() {
            let slot = self.slots[i];
            let Some(pair) = node.pair(&self.keys[slot]) else {
                continue;
            };
            let cnt = if c.topology_key == LABEL_HOSTNAME {
                count_here(i)
            } else {
                self.counts[slot].get(pair.value)
            };
            score += score_for_count(cnt, c.max_skew, self.weights[i]);
        }
        // Go's math.Round rounds half away from zero, as f64::round does.
        score.round() as i64
    }

    /// The count of constraint `i`'s domain of `node` (None: the node lacks the key), as
    /// Score reads it; hostname constraints are counted on the node by `count_here`.
    pub(crate) fn count_of(&self, node: IndexedNode<'_>, i: usize, count_here: &dyn Fn(usize) -> i64) -> Option<i64> {
        let slot = self.slots[i];
        let pair = node.pair(&self.keys[slot])?;
        Some(if self.constraints[i].topology_key == LABEL_HOSTNAME {
            count_here(i)
        } else {
            self.counts[slot].get(pair.value)
        })
    }

    /// Constraint `i`'s domains with their counts, by value, sorted (for the trace).
    pub(crate) fn domain_counts(&self, i: usize) -> Vec<(String, i64)> {
        let key = &self.keys[self.slots[i]];
        let mut v: Vec<(String, i64)> = self.counts[self.slots[i]]
            .iter()
            .map(|(id, n)| (domain_name(&self.labels, key, id).to_string(), n))
            .collect();
        v.sort();
        v
    }

    /// NormalizeScore: ignored nodes get 0, the others `100 * (max + min - s) / max`.
    pub(crate) fn normalize(&self, scores: &mut [NodeScore<'_>]) {
        const INVALID: i64 = -1;
        let mut min = i64::MAX;
        let mut max = 0i64;
        for s in scores.iter_mut() {
            if self.ignored.contains(s.name.as_ref()) {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testkit::{NodeB, PodB, exists, node, pod, snapshot, snapshot_at};
    use super::super::{PodTopologySpread, system_default_constraints};
    use super::*;
    use crate::engine::framework::cycle_state::CycleState;
    use crate::engine::framework::plugin::{Ctx, PreScorePlugin, ScorePlugin};
    use crate::engine::framework::snapshot::Snapshot;
    use crate::engine::framework::status::Code;
    use crate::engine::release::Release;
    use crate::model::ObjectKey;

    const SA: &str = "ScheduleAnyway";
    const HOST: &str = "kubernetes.io/hostname";

    fn host(n: &str) -> NodeB {
        node(n).label(HOST, n)
    }

    fn pods_on(spec: &[(&str, usize)], extra: &[&str]) -> Vec<PodB> {
        let mut out = Vec::new();
        for (n, k) in spec {
            let short = n.trim_start_matches("node-");
            for i in 1..=*k {
                let p = pod(&format!("p-{short}{i}")).node(n).label("foo", "");
                out.push(extra.iter().fold(p, |p, l| p.label(l, "")));
            }
        }
        out
    }

    /// PreScore over the `feasible` nodes, then Score and NormalizeScore, as upstream's
    /// TestPodTopologySpreadScore does (nodes + failedNodes make the snapshot).
    fn scores_with(pl: &PodTopologySpread, snap: &Snapshot, feasible: &[&str]) -> (Code, Vec<(String, i64)>) {
        let pi = snap.pod_infos[&ObjectKey::new("default", "p")].clone();
        let cx = Ctx { snapshot: snap };
        let nodes: Vec<&NodeInfo> = feasible.iter().map(|n| snap.node(n).expect("node")).collect();
        let mut state = CycleState::default();
        let s = pl.pre_score(&cx, &mut state, &pi, &nodes);
        if !s.is_success() {
            return (s.code, Vec::new());
        }
        let mut out: Vec<NodeScore> = nodes
            .iter()
            .map(|n| {
                let v = pl.score(&cx, &state, &pi, n).expect("Score");
                NodeScore {
                    name: n.name().into(),
                    score: v,
                }
            })
            .collect();
        assert!(pl.normalize(&cx, &state, &pi, &mut out).is_success());
        (
            Code::Success,
            out.into_iter().map(|s| (s.name.into_owned(), s.score)).collect(),
        )
    }

    fn scores(snap: &Snapshot, feasible: &[&str]) -> Vec<(String, i64)> {
        let (code, s) = scores_with(&PodTopologySpread::new(Vec::new(), false), snap, feasible);
        assert_eq!(code, Code::Success);
        s
    }

    fn want(v: &[(&str, i64)]) -> Vec<(String, i64)> {
        v.iter().map(|(n, s)| ((*n).to_string(), *s)).collect()
    }

    fn p1(key: &str, max_skew: i32, sel: serde_json::Value) -> PodB {
        pod("p").label("foo", "").spread(max_skew, key, SA, sel)
    }

    #[test]
    fn normalizing_weight_and_score_for_count() {
        assert!((topology_normalizing_weight(3) - 5f64.ln()).abs() < 1e-12);
        assert!((score_for_count(2, 3, 1.5) - 5.0).abs() < 1e-12);
    }

    // scoring_test.go TestPodTopologySpreadScore.
    #[test]
    fn score_cases_one_constraint_on_node() {
        let four = || vec![host("node-a"), host("node-b"), host("node-c"), host("node-d")];
        let with = |p: PodB, mut v: Vec<PodB>| {
            v.push(p);
            v
        };
        // one constraint on node, no existing pods
        let snap = snapshot(
            vec![host("node-a"), host("node-b")],
            vec![p1(HOST, 1, exists("foo"))],
            vec![],
        );
        assert_eq!(
            scores(&snap, &["node-a", "node-b"]),
            want(&[("node-a", 100), ("node-b", 100)])
        );
        // only one node is candidate
        let snap = snapshot(
            vec![host("node-a"), host("node-b")],
            with(
                p1(HOST, 1, exists("foo")),
                pods_on(&[("node-a", 2), ("node-b", 1)], &[]),
            ),
            vec![],
        );
        assert_eq!(scores(&snap, &["node-a"]), want(&[("node-a", 100)]));
        // all nodes have the same number of matching pods
        let snap = snapshot(
            vec![host("node-a"), host("node-b")],
            with(
                p1(HOST, 1, exists("foo")),
                pods_on(&[("node-a", 1), ("node-b", 1)], &[]),
            ),
            vec![],
        );
        assert_eq!(
            scores(&snap, &["node-a", "node-b"]),
            want(&[("node-a", 100), ("node-b", 100)])
        );
        let all4 = ["node-a", "node-b", "node-c", "node-d"];
        let s2103 = || pods_on(&[("node-a", 2), ("node-b", 1), ("node-d", 3)], &[]);
        // all 4 nodes are candidates, spread 2/1/0/3
        let snap = snapshot(four(), with(p1(HOST, 1, exists("foo")), s2103()), vec![]);
        assert_eq!(
            scores(&snap, &all4),
            want(&[("node-a", 20), ("node-b", 60), ("node-c", 100), ("node-d", 0)])
        );
        // null selector
        let snap = snapshot(four(), with(p1(HOST, 1, json!(null)), s2103()), vec![]);
        assert_eq!(
            scores(&snap, &all4),
            want(&[("node-a", 100), ("node-b", 100), ("node-c", 100), ("node-d", 100)])
        );
        // maxSkew=2
        let snap = snapshot(four(), with(p1(HOST, 2, exists("foo")), s2103()), vec![]);
        assert_eq!(
            scores(&snap, &all4),
            want(&[("node-a", 33), ("node-b", 66), ("node-c", 100), ("node-d", 16)])
        );
        // maxSkew=3, spread 4/3/2/1
        let s4321 = || pods_on(&[("node-a", 4), ("node-b", 3), ("node-c", 2), ("node-d", 1)], &[]);
        let snap = snapshot(four(), with(p1(HOST, 3, exists("foo")), s4321()), vec![]);
        assert_eq!(
            scores(&snap, &all4),
            want(&[("node-a", 44), ("node-b", 66), ("node-c", 77), ("node-d", 100)])
        );
        // system defaulting, nodes don't have zone, pods match service
        let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "default"},
                         "spec": {"selector": {"foo": ""}}});
        let snap = snapshot(four(), with(pod("p").label("foo", ""), s4321()), vec![svc]);
        let sys = PodTopologySpread::new(system_default_constraints(), true);
        let (code, got) = scores_with(&sys, &snap, &all4);
        assert_eq!(code, Code::Success);
        assert_eq!(
            got,
            want(&[("node-a", 44), ("node-b", 66), ("node-c", 77), ("node-d", 100)])
        );
        // 3 out of 4 nodes are candidates: 4/2/1/~3~
        let axy = || pods_on(&[("node-a", 4), ("node-b", 2), ("node-x", 1), ("node-y", 3)], &[]);
        let snap = snapshot(
            vec![host("node-a"), host("node-b"), host("node-x"), host("node-y")],
            with(p1(HOST, 1, exists("foo")), axy()),
            vec![],
        );
        assert_eq!(
            scores(&snap, &["node-a", "node-b", "node-x"]),
            want(&[("node-a", 33), ("node-b", 83), ("node-x", 100)])
        );
        // one candidate doesn't have the topology key: ignored, scored 0
        let snap = snapshot(
            vec![
                host("node-a"),
                node("node-b").label("n", "node-b"),
                host("node-x"),
                host("node-y"),
            ],
            with(p1(HOST, 1, exists("foo")), axy()),
            vec![],
        );
        assert_eq!(
            scores(&snap, &["node-a", "node-b", "node-x"]),
            want(&[("node-a", 16), ("node-b", 0), ("node-x", 100)])
        );
    }

    fn zh(n: &str, z: &str) -> NodeB {
        node(n).label("zone", z).label(HOST, n)
    }

    #[test]
    fn score_cases_zones() {
        let with = |p: PodB, mut v: Vec<PodB>| {
            v.push(p);
            v
        };
        let nodes4 = || {
            vec![
                zh("node-a", "zone1"),
                zh("node-b", "zone1"),
                zh("node-x", "zone2"),
                zh("node-y", "zone2"),
            ]
        };
        // one constraint on zone, 3 out of 4 nodes are candidates
        let snap = snapshot(
            nodes4(),
            with(
                p1("zone", 1, exists("foo")),
                pods_on(&[("node-a", 4), ("node-b", 2), ("node-x", 1), ("node-y", 3)], &[]),
            ),
            vec![],
        );
        assert_eq!(
            scores(&snap, &["node-a", "node-b", "node-x"]),
            want(&[("node-a", 75), ("node-b", 75), ("node-x", 100)])
        );
        // two Constraints on zone and node, 2 out of 4 nodes are candidates: 2/~1~/2/~4~
        let snap = snapshot(
            nodes4(),
            with(
                pod("p")
                    .label("foo", "")
                    .spread(1, "zone", SA, exists("foo"))
                    .spread(1, HOST, SA, exists("foo")),
                pods_on(&[("node-a", 2), ("node-b", 1), ("node-x", 2), ("node-y", 4)], &[]),
            ),
            vec![],
        );
        assert_eq!(
            scores(&snap, &["node-a", "node-x"]),
            want(&[("node-a", 100), ("node-x", 63)])
        );
        // two Constraints on zone and node, with different labelSelectors
        let snap = snapshot(
            nodes4(),
            vec![
                pod("p")
                    .label("foo", "")
                    .label("bar", "")
                    .spread(1, "zone", SA, exists("foo"))
                    .spread(1, HOST, SA, exists("bar")),
                pod("p-a1").node("node-a").label("foo", ""),
                pod("p-b1").node("node-b").label("foo", "").label("bar", ""),
                pod("p-y1").node("node-y").label("foo", ""),
                pod("p-y2").node("node-y").label("bar", ""),
            ],
            vec![],
        );
        assert_eq!(
            scores(&snap, &["node-a", "node-b", "node-x", "node-y"]),
            want(&[("node-a", 60), ("node-b", 20), ("node-x", 100), ("node-y", 60)])
        );
    }

    // "two Constraints on zone, 2 out of 4 nodes are candidates": the same key twice (rejected by
    // the API server). 1.30 shares the counts of a topology pair (zone1 5, zone2 4) and counts
    // the second constraint's domains as 0, so node-a gets 80; 1.33+ counts per constraint: 85.
    #[test]
    fn two_soft_constraints_on_the_same_key_by_version() {
        let mk = |minor: u32| {
            snapshot_at(
                vec![
                    node("node-a").label("zone", "zone1"),
                    node("node-b").label("zone", "zone1"),
                    node("node-x").label("zone", "zone2"),
                    node("node-y").label("zone", "zone2"),
                ],
                vec![
                    pod("p")
                        .label("foo", "")
                        .label("bar", "")
                        .spread(1, "zone", SA, exists("foo"))
                        .spread(1, "zone", SA, exists("bar")),
                    pod("p-a1").node("node-a").label("foo", "").label("bar", ""),
                    pod("p-a2").node("node-a").label("foo", ""),
                    pod("p-b1").node("node-b").label("foo", "").label("bar", ""),
                    pod("p-y1").node("node-y").label("foo", ""),
                    pod("p-y2").node("node-y").label("foo", "").label("bar", ""),
                    pod("p-y3").node("node-y").label("foo", ""),
                ],
                vec![],
                minor,
            )
        };
        assert_eq!(
            scores(&mk(30), &["node-a", "node-x"]),
            want(&[("node-a", 80), ("node-x", 100)])
        );
        let pl = PodTopologySpread::new(Vec::new(), false).with_features(&Release::at(33).into());
        assert_eq!(
            scores_with(&pl, &mk(33), &["node-a", "node-x"]).1,
            want(&[("node-a", 85), ("node-x", 100)])
        );
    }

    #[test]
    fn system_default_constraints_need_a_selecting_object() {
        let rs = |sel: serde_json::Value| {
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs1", "namespace": "default"},
                   "spec": {"selector": sel, "template": {}}})
        };
        let nodes = || {
            vec![
                node("node-a")
                    .label(HOST, "node-a")
                    .label("topology.kubernetes.io/zone", "mars"),
                node("node-b")
                    .label(HOST, "node-b")
                    .label("topology.kubernetes.io/zone", "mars"),
                node("node-c").label(HOST, "node-c"),
                node("node-d").label(HOST, "node-d"),
            ]
        };
        let sys = PodTopologySpread::new(system_default_constraints(), true);
        let all = ["node-a", "node-b", "node-c", "node-d"];
        // No Service or controller selects the pod: Skip.
        let snap = snapshot(nodes(), vec![pod("p").label("foo", "tar")], vec![]);
        assert_eq!(scores_with(&sys, &snap, &all).0, Code::Skip);
        // The controller ReplicaSet is missing: Skip (TestPreScoreSkip).
        let snap = snapshot(
            nodes(),
            vec![pod("p").label("foo", "bar").owner("apps/v1", "ReplicaSet", "rs2")],
            vec![rs(exists("tar"))],
        );
        assert_eq!(scores_with(&sys, &snap, &all).0, Code::Skip);
        // "system default constraints and a replicaset" (TestPreScoreStateEmptyNodes): nodes
        // without a zone form the "" zone, and are not ignored.
        let snap = snapshot(
            nodes(),
            vec![
                pod("p").label("foo", "tar").owner("apps/v1", "ReplicaSet", "rs1"),
                pod("q-a").node("node-a").label("foo", "x"),
                pod("q-c").node("node-c").label("foo", "x"),
                pod("q-c2").node("node-c").label("foo", "x"),
            ],
            vec![rs(exists("foo"))],
        );
        let pi = snap.pod_infos[&ObjectKey::new("default", "p")].clone();
        let cx = Ctx { snapshot: &snap };
        let feasible: Vec<&NodeInfo> = snap.nodes.iter().collect();
        let mut state = CycleState::default();
        assert!(sys.pre_score(&cx, &mut state, &pi, &feasible).is_success());
        let s = state.read::<PreScoreState>(PRE_SCORE_KEY).expect("state");
        assert!(s.ignored.is_empty());
        assert_eq!(
            s.constraints
                .iter()
                .map(|c| (c.topology_key.as_str(), c.max_skew))
                .collect::<Vec<_>>(),
            vec![(HOST, 3), ("topology.kubernetes.io/zone", 5)]
        );
        assert_eq!(s.domain_counts(1), vec![(String::new(), 2), ("mars".to_string(), 1)]);
        assert!((s.weights[0] - topology_normalizing_weight(4)).abs() < 1e-12);
        assert!((s.weights[1] - topology_normalizing_weight(2)).abs() < 1e-12);
        // node-a: 1 on the node * ln6 + (3 - 1), plus 1 in zone mars * ln4 + (5 - 1).
        let score = |i: usize| s.score(snap.indexed_at(i), &|c| s.counter.count(&snap.nodes[i], Some(i), c));
        assert_eq!(score(0), 9);
        // node-c lacks the zone label: Score skips that constraint (its "" zone only widened the
        // zone count): 2 * ln6 + 2.
        assert_eq!(score(2), 6);
    }

    #[test]
    fn list_defaulting_constraints_and_own_constraints_win() {
        // "default constraints and a replicaset": only the ScheduleAnyway defaults are scored.
        let rs = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs1", "namespace": "default"},
                        "spec": {"selector": exists("foo"), "template": {}}});
        let defaults: Vec<k8s_openapi::api::core::v1::TopologySpreadConstraint> = serde_json::from_value(json!([
            {"maxSkew": 1, "topologyKey": HOST, "whenUnsatisfiable": SA},
            {"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule"},
            {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": SA},
        ]))
        .expect("constraints");
        let pl = PodTopologySpread::new(defaults.clone(), false);
        let snap = snapshot(
            vec![
                node("node-a")
                    .label("rack", "rack1")
                    .label(HOST, "node-a")
                    .label("planet", "mars"),
            ],
            vec![
                pod("p")
                    .label("foo", "tar")
                    .label("baz", "sup")
                    .owner("apps/v1", "ReplicaSet", "rs1"),
            ],
            vec![rs.clone()],
        );
        let pi = snap.pod_infos[&ObjectKey::new("default", "p")].clone();
        let cx = Ctx { snapshot: &snap };
        let mut state = CycleState::default();
        let feasible: Vec<&NodeInfo> = snap.nodes.iter().collect();
        assert!(pl.pre_score(&cx, &mut state, &pi, &feasible).is_success());
        let s = state.read::<PreScoreState>(PRE_SCORE_KEY).expect("state");
        assert_eq!(
            s.constraints
                .iter()
                .map(|c| c.topology_key.as_str())
                .collect::<Vec<_>>(),
            vec![HOST, "planet"]
        );
        assert!(s.constraints.iter().all(|c| c.selector.matches(&pi.pod.labels)));
        // The DoNotSchedule default applies at PreFilter.
        let mut fstate = CycleState::default();
        use crate::engine::framework::plugin::PreFilterPlugin;
        assert!(pl.pre_filter(&cx, &mut fstate, &pi).1.is_success());
        // "default constraints and a replicaset, but pod has constraints": the pod's own win.
        let snap = snapshot(
            vec![node("node-a").label("planet", "mars").label("galaxy", "andromeda")],
            vec![
                pod("p")
                    .label("foo", "bar")
                    .label("baz", "sup")
                    .owner("apps/v1", "ReplicaSet", "rs1")
                    .spread(1, "zone", "DoNotSchedule", exists("bar"))
                    .spread(2, "planet", SA, json!({"matchLabels": {"baz": "sup"}})),
            ],
            vec![rs],
        );
        let pi = snap.pod_infos[&ObjectKey::new("default", "p")].clone();
        let cx = Ctx { snapshot: &snap };
        let mut state = CycleState::default();
        let feasible: Vec<&NodeInfo> = snap.nodes.iter().collect();
        assert!(
            PodTopologySpread::new(defaults, false)
                .pre_score(&cx, &mut state, &pi, &feasible)
                .is_success()
        );
        let s = state.read::<PreScoreState>(PRE_SCORE_KEY).expect("state");
        assert_eq!(
            s.constraints
                .iter()
                .map(|c| (c.topology_key.as_str(), c.max_skew))
                .collect::<Vec<_>>(),
            vec![("planet", 2)]
        );
    }

    #[test]
    fn prescore_skips_without_soft_constraints_or_nodes() {
        let snap = snapshot(vec![host("node-a"), host("node-b")], vec![pod("p")], vec![]);
        let pl = PodTopologySpread::new(Vec::new(), false);
        assert_eq!(scores_with(&pl, &snap, &["node-a", "node-b"]).0, Code::Skip);
        let snap = snapshot(vec![], vec![pod("p").spread(1, HOST, SA, exists("foo"))], vec![]);
        assert_eq!(scores_with(&pl, &snap, &[]).0, Code::Skip);
    }

    #[test]
    fn prescore_node_inclusion_policies() {
        // "NodeAffinityPolicy honored/ignored with labelSelectors" with pods on the nodes: the
        // node outside the pod's nodeSelector is not counted unless the policy is Ignore.
        let nodes = || {
            vec![
                zh("node-a", "zone1").label("foo", ""),
                zh("node-b", "zone1").label("foo", ""),
                zh("node-x", "zone2"),
            ]
        };
        let pods = |c: serde_json::Value| {
            vec![
                pod("p").label("foo", "").node_selector("foo", "").constraint(c),
                pod("q-a").node("node-a").label("bar", ""),
                pod("q-x").node("node-x").label("bar", ""),
            ]
        };
        let c = |policy: Option<&str>| {
            let mut v =
                json!({"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": SA, "labelSelector": exists("bar")});
            if let Some(p) = policy {
                v["nodeAffinityPolicy"] = json!(p);
            }
            v
        };
        let count = |snap: &Snapshot| {
            let pi = snap.pod_infos[&ObjectKey::new("default", "p")].clone();
            let cx = Ctx { snapshot: snap };
            let mut state = CycleState::default();
            let feasible: Vec<&NodeInfo> = snap.nodes.iter().collect();
            assert!(
                PodTopologySpread::new(Vec::new(), false)
                    .pre_score(&cx, &mut state, &pi, &feasible)
                    .is_success()
            );
            let s = state.read::<PreScoreState>(PRE_SCORE_KEY).expect("state");
            let m: std::collections::BTreeMap<String, i64> = s.domain_counts(0).into_iter().collect();
            m
        };
        assert_eq!(
            count(&snapshot(nodes(), pods(c(None)), vec![])),
            [("zone1".to_string(), 1), ("zone2".to_string(), 0)]
                .into_iter()
                .collect()
        );
        assert_eq!(
            count(&snapshot(nodes(), pods(c(Some("Ignore"))), vec![])),
            [("zone1".to_string(), 1), ("zone2".to_string(), 1)]
                .into_iter()
                .collect()
        );
    }

    // kubernetes#141340 (1.38): Score counts with `labelSelector: {}` too (zone1 2 pods, zone2
    // 1: raw scores round(2 ln 4) = 3 and round(ln 4) = 1, normalized 33 and 100); up to 1.37
    // every node counted 0 and scored 100.
    #[test]
    fn release_1_38_scores_with_an_empty_label_selector() {
        let mk = |minor| {
            snapshot_at(
                vec![
                    node("node-a").label("zone", "zone1"),
                    node("node-b").label("zone", "zone1"),
                    node("node-x").label("zone", "zone2"),
                    node("node-y").label("zone", "zone2"),
                ],
                vec![
                    pod("p").spread(1, "zone", SA, json!({})),
                    pod("a1").node("node-a").label("foo", ""),
                    pod("b1").node("node-b"),
                    pod("y1").node("node-y").label("bar", ""),
                ],
                vec![],
                minor,
            )
        };
        let all = ["node-a", "node-b", "node-x", "node-y"];
        for minor in [37, 38] {
            let pl = PodTopologySpread::new(Vec::new(), false).with_features(&Release::at(minor).into());
            let got = scores_with(&pl, &mk(minor), &all).1;
            let want_ = if minor == 37 {
                want(&[("node-a", 100), ("node-b", 100), ("node-x", 100), ("node-y", 100)])
            } else {
                want(&[("node-a", 33), ("node-b", 33), ("node-x", 100), ("node-y", 100)])
            };
            assert_eq!(got, want_, "1.{minor}");
        }
    }
}
