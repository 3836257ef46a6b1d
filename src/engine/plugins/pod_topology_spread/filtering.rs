//! Port of framework/plugins/podtopologyspread/filtering.go (v1.30.6): PreFilter counts the
//! matching pods per topology domain once over all nodes, AddPod/RemovePod update those
//! counts for nominated pods and preemption, and Filter checks
//! `matchNum + selfMatch - globalMin <= maxSkew` for every DoNotSchedule constraint.
//!
//! Domains are the snapshot index's pairs ([`IndexedNode::pair`]), counted by value id
//! ([`ValueCounts`]); the critical paths name them, as upstream's do.

use std::sync::Arc;

use super::common::{Constraint, key_slots};
use super::{ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH};
use crate::engine::framework::index::{IndexedNode, Key, LabelColumns, NodeMatcher, ValueCounts};
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::snapshot::Snapshot;
use crate::engine::framework::status::Status;
use crate::engine::framework::trace::SpreadCheck;

/// Cycle-state key (`"PreFilter" + Name`).
pub(crate) static PRE_FILTER_KEY: &str = "PreFilterPodTopologySpread";

/// The two domains with the fewest matching pods (`criticalPaths`). Only the first minimum is
/// exact after AddPod/RemovePod, as upstream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CriticalPaths(pub [(String, i64); 2]);

impl CriticalPaths {
    fn new() -> Self {
        CriticalPaths([
            (String::new(), i64::from(i32::MAX)),
            (String::new(), i64::from(i32::MAX)),
        ])
    }

    /// `criticalPaths.update`.
    pub(crate) fn update(&mut self, value: &str, num: i64) {
        let p = &mut self.0;
        let i = if value == p[0].0 {
            Some(0)
        } else if value == p[1].0 {
            Some(1)
        } else {
            None
        };
        match i {
            Some(i) => {
                p[i].1 = num;
                if p[0].1 > p[1].1 {
                    p.swap(0, 1);
                }
            }
            None => {
                if num < p[0].1 {
                    p[1] = p[0].clone();
                    p[0] = (value.to_string(), num);
                } else if num < p[1].1 {
                    p[1] = (value.to_string(), num);
                }
            }
        }
    }

    /// The minimum matching number.
    pub(crate) fn min(&self) -> i64 {
        self.0[0].1
    }
}

/// What PreFilter computed (`preFilterState`). Counts are kept per topology key, as 1.30 does.
#[derive(Clone, Debug)]
pub(crate) struct PreFilterState {
    /// The DoNotSchedule constraints (shared: they never change during the cycle).
    pub constraints: Arc<Vec<Constraint>>,
    /// Each constraint's topology key, as the snapshot's index reads it.
    keys: Arc<Vec<Key>>,
    /// Each constraint's topology-key slot.
    pub slots: Arc<Vec<usize>>,
    /// Whether the incoming pod matches each constraint's selector.
    pub self_match: Arc<Vec<bool>>,
    /// Per key slot: topology value → matching pods (`TpPairToMatchNum`), by value id.
    pub counts: Vec<ValueCounts>,
    /// Per key slot: the critical paths.
    pub paths: Vec<CriticalPaths>,
    /// Per key slot: the number of domains found at PreFilter (`TpKeyToDomainsNum`); 0 means
    /// 1.30 has no entry and skips the constraint.
    pub domains: Arc<Vec<usize>>,
    /// 1.33+: one slot per constraint, and no skipping for a key without domains.
    pub per_constraint: bool,
    /// The pod's required node affinity, for nodeAffinityPolicy Honor.
    required: Arc<NodeMatcher>,
    /// The snapshot's label columns the value ids are of.
    labels: Arc<LabelColumns>,
}

/// `nodeLabelsMatchSpreadConstraints` on the keys of the constraints: the node's pair of each
/// (None: it lacks one).
fn pairs_of_all(node: IndexedNode<'_>, keys: &[Key], out: &mut [u32]) -> bool {
    for (v, k) in out.iter_mut().zip(keys) {
        match node.pair(k) {
            Some(p) => *v = p.value,
            None => return false,
        }
    }
    true
}

impl PreFilterState {
    /// `calPreFilterState` over every node of the snapshot; `count(node index, constraint
    /// index)` is `countPodsMatchSelector` of that constraint on that node.
    /// The nodes are counted in pieces in parallel (unless `serial`), each piece into its own
    /// counts, which are then added up: sums, so the same whatever the cut.
    pub(crate) fn compute(
        snap: &Snapshot,
        pod: &PodInfo,
        constraints: Vec<Constraint>,
        per_constraint: bool,
        serial: bool,
        count: &(dyn Fn(usize, usize) -> i64 + Sync),
    ) -> Self {
        let labels = &snap.index.labels;
        let (slot_keys, slots) = key_slots(&constraints, per_constraint);
        let slot_keys: Vec<Key> = slot_keys.iter().map(|k| labels.key(k)).collect();
        let keys: Vec<Key> = constraints.iter().map(|c| labels.key(&c.topology_key)).collect();
        let required = snap.node_matcher(pod);
        let empty = || -> Vec<ValueCounts> {
            slot_keys
                .iter()
                .map(|k| ValueCounts::new(k.column().map_or(0, |c| labels.column_by_index(c).len_values())))
                .collect()
        };
        let count_piece = |start: usize, piece: &[NodeInfo]| -> Vec<ValueCounts> {
            let mut counts = empty();
            let mut values = vec![0u32; slot_keys.len()];
            let mut per_node: Vec<Option<i64>> = vec![None; slot_keys.len()];
            for n_idx in start..start + piece.len() {
                let node = snap.indexed_at(n_idx);
                if !pairs_of_all(node, &slot_keys, &mut values) {
                    continue;
                }
                per_node.iter_mut().for_each(|v| *v = None);
                for (i, c) in constraints.iter().enumerate() {
                    if c.includes_node(&pod.pod, node, &required) {
                        per_node[slots[i]] = Some(count(n_idx, i));
                    }
                }
                for (slot, v) in per_node.iter().enumerate() {
                    if let Some(n) = v {
                        counts[slot].add(values[slot], *n);
                    }
                }
            }
            counts
        };
        let mut pieces = crate::engine::framework::parallel::map_pieces(serial, &snap.nodes, count_piece).into_iter();
        let mut counts = pieces.next().unwrap_or_else(empty);
        for piece in pieces {
            for (into, from) in counts.iter_mut().zip(&piece) {
                into.merge(from);
            }
        }
        let domains: Vec<usize> = counts.iter().map(ValueCounts::len).collect();
        let mut paths = vec![CriticalPaths::new(); slot_keys.len()];
        for (slot, m) in counts.iter().enumerate() {
            let Some(col) = slot_keys[slot].column().map(|c| labels.column_by_index(c)) else {
                continue;
            };
            // Upstream walks a Go map (random order); walk values sorted so ties resolve the same
            // way every run. The minimum itself does not depend on the order.
            let mut vals: Vec<(&str, i64)> = m.iter().map(|(id, n)| (col.value(id), n)).collect();
            vals.sort_unstable();
            for (v, n) in vals {
                paths[slot].update(v, n);
            }
        }
        let self_match = constraints
            .iter()
            .map(|c| c.selector.matches(&pod.pod.labels))
            .collect();
        PreFilterState {
            constraints: Arc::new(constraints),
            keys: Arc::new(keys),
            slots: Arc::new(slots),
            self_match: Arc::new(self_match),
            counts,
            paths,
            domains: Arc::new(domains),
            per_constraint,
            required: Arc::new(required),
            labels: labels.clone(),
        }
    }

    /// `updateWithPod`: counts `other` (added with +1, removed with -1) on `node`.
    pub(crate) fn update_with_pod(&mut self, pod: &PodInfo, other: &PodInfo, node: IndexedNode<'_>, delta: i64) {
        if other.pod.key.namespace != pod.pod.key.namespace {
            return;
        }
        let mut values = vec![0u32; self.keys.len()];
        if !pairs_of_all(node, &self.keys, &mut values) {
            return;
        }
        let constraints = self.constraints.clone();
        for (i, c) in constraints.iter().enumerate() {
            if !c.selector.matches(&other.pod.labels) || !c.includes_node(&pod.pod, node, &self.required) {
                continue;
            }
            let slot = self.slots[i];
            let num = self.counts[slot].add(values[i], delta);
            let value = self.value_name(i, values[i]);
            self.paths[slot].update(&value, num);
        }
    }

    /// The name of a value id of constraint `i`'s key.
    fn value_name(&self, i: usize, id: u32) -> String {
        self.keys[i]
            .column()
            .map(|c| self.labels.column_by_index(c))
            .filter(|col| (id as usize) < col.len_values())
            .map_or_else(String::new, |col| col.value(id).to_string())
    }

    /// `minMatchNum`: the global minimum, 0 when fewer domains than minDomains exist; None when
    /// upstream finds no domain for the key (it then skips the constraint).
    pub(crate) fn min_match(&self, i: usize) -> Option<i64> {
        let slot = self.slots[i];
        let domains = self.domains[slot];
        if domains == 0 && !self.per_constraint {
            return None;
        }
        let c = &self.constraints[i];
        Some(if (domains as i64) < i64::from(c.min_domains) {
            0
        } else {
            self.paths[slot].min()
        })
    }

    /// Filter on one node.
    pub(crate) fn filter(&self, node: IndexedNode<'_>) -> Status {
        for (i, c) in self.constraints.iter().enumerate() {
            let Some(pair) = node.pair(&self.keys[i]) else {
                return Status::unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH);
            };
            let Some(min) = self.min_match(i) else {
                continue;
            };
            let self_num = i64::from(self.self_match[i]);
            let num = self.counts[self.slots[i]].get(pair.value);
            if num + self_num - min > i64::from(c.max_skew) {
                return Status::unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH);
            }
        }
        Status::success()
    }

    /// The numbers behind Filter's verdict on one node, for every constraint, up to the first
    /// that fails (Filter stops there).
    pub(crate) fn explain(&self, node: &NodeInfo) -> Vec<SpreadCheck> {
        let at = IndexedNode::copy(&self.labels, &node.node);
        let mut out = Vec::new();
        for (i, c) in self.constraints.iter().enumerate() {
            let slot = self.slots[i];
            let value = node.node.labels.get(&c.topology_key);
            let self_match = self.self_match[i];
            let mut check = SpreadCheck {
                topology_key: c.topology_key.clone(),
                when_unsatisfiable: super::common::DO_NOT_SCHEDULE.to_string(),
                max_skew: c.max_skew,
                min_domains: c.min_domains,
                domains: self.domains[slot],
                domain: value.cloned(),
                match_num: at.pair(&self.keys[i]).map_or(0, |p| self.counts[slot].get(p.value)),
                self_match,
                global_min: self.min_match(i),
                global_min_domain: (self.domains[slot] >= c.min_domains.max(0) as usize && self.domains[slot] > 0)
                    .then(|| self.paths[slot].0[0].0.clone()),
                skew: None,
                satisfied: false,
            };
            if value.is_none() {
                out.push(check);
                break;
            }
            match check.global_min {
                None => check.satisfied = true,
                Some(min) => {
                    let skew = check.match_num + i64::from(self_match) - min;
                    check.skew = Some(skew);
                    check.satisfied = skew <= i64::from(c.max_skew);
                }
            }
            let stop = !check.satisfied;
            out.push(check);
            if stop {
                break;
            }
        }
        out
    }

    /// Every domain of constraint `i` with its matching pods, by value name.
    pub(crate) fn domain_counts(&self, i: usize) -> Vec<(String, i64)> {
        let mut v: Vec<(String, i64)> = self.counts[self.slots[i]]
            .iter()
            .map(|(id, n)| (self.value_name(i, id), n))
            .collect();
        v.sort();
        v
    }

    /// The counts of a slot by value name.
    #[cfg(test)]
    pub(crate) fn counts_named(&self, slot: usize) -> std::collections::BTreeMap<String, i64> {
        let i = self
            .slots
            .iter()
            .position(|&s| s == slot)
            .expect("a constraint of the slot");
        self.counts[slot]
            .iter()
            .map(|(id, n)| (self.value_name(i, id), n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::super::PodTopologySpread;
    use super::super::testkit::{exists, foo_pods, four_nodes, label_sel, node, pod, snapshot, want};
    use super::*;
    use crate::engine::framework::cycle_state::CycleState;
    use crate::engine::framework::plugin::{Ctx, FilterPlugin, PreFilterPlugin};
    use crate::engine::framework::snapshot::Snapshot;
    use crate::engine::framework::status::Code;
    use crate::model::ObjectKey;

    const DNS: &str = "DoNotSchedule";
    const SA: &str = "ScheduleAnyway";

    fn plugin() -> PodTopologySpread {
        // DefaultingType List with no constraints, as upstream's table tests set it up.
        PodTopologySpread::new(Vec::new(), false)
    }

    fn prefilter(snap: &Snapshot) -> (CycleState, Status) {
        let pi = snap.pod_infos[&ObjectKey::new("default", "p")].clone();
        let mut state = CycleState::default();
        let (_, s) = plugin().pre_filter(&Ctx { snapshot: snap }, &mut state, &pi);
        (state, s)
    }

    /// Runs PreFilter then Filter on every node, as upstream's TestSingleConstraint does.
    fn codes(snap: &Snapshot) -> BTreeMap<String, Code> {
        let pi = snap.pod_infos[&ObjectKey::new("default", "p")].clone();
        let (state, s) = prefilter(snap);
        assert!(s.is_success(), "prefilter: {s:?}");
        let cx = Ctx { snapshot: snap };
        snap.nodes
            .iter()
            .map(|n| {
                let got = plugin().filter(&cx, &state, &pi, n);
                // By position in the index; a copy of the node is read from its labels.
                assert_eq!(got, plugin().filter(&cx, &state, &pi, &n.clone()), "{}", n.name());
                (n.name().to_string(), got.code)
            })
            .collect()
    }

    fn state_of(snap: &Snapshot) -> PreFilterState {
        let (state, s) = prefilter(snap);
        assert!(s.is_success(), "prefilter: {s:?}");
        let got = state.read::<PreFilterState>(PRE_FILTER_KEY).expect("state").clone();
        // PreFilter counts on the snapshot's index; upstream's walk over the nodes' label maps
        // gives the same counts.
        let pi = snap.pod_infos[&ObjectKey::new("default", "p")].clone();
        let walk = walked_counts(snap, &pi, &got);
        let counts: Vec<BTreeMap<String, i64>> = (0..got.counts.len()).map(|slot| got.counts_named(slot)).collect();
        assert_eq!(walk, counts);
        got
    }

    /// `calPreFilterState`'s counts as upstream walks them: each node with every key, each
    /// constraint that includes it, its pods counted with `countPodsMatchSelector`.
    fn walked_counts(snap: &Snapshot, pi: &PodInfo, s: &PreFilterState) -> Vec<BTreeMap<String, i64>> {
        let ns = pi.pod.key.namespace.as_str();
        let required = snap.node_matcher(pi);
        let mut out = vec![BTreeMap::new(); s.counts.len()];
        for (i, n) in snap.nodes.iter().enumerate() {
            if !s
                .constraints
                .iter()
                .all(|c| n.node.labels.contains_key(&c.topology_key))
            {
                continue;
            }
            let mut per_slot: Vec<Option<i64>> = vec![None; s.counts.len()];
            for (ci, c) in s.constraints.iter().enumerate() {
                if c.includes_node(&pi.pod, snap.indexed_at(i), &required) {
                    per_slot[s.slots[ci]] = Some(crate::engine::framework::index::pods::count_matching(
                        &n.pods,
                        &c.selector,
                        ns,
                    ));
                }
            }
            for (slot, v) in per_slot.into_iter().enumerate() {
                if let Some(v) = v {
                    let c = s.constraints[s.slots.iter().position(|&x| x == slot).expect("slot")]
                        .topology_key
                        .clone();
                    *out[slot]
                        .entry(n.node.labels.get(&c).cloned().unwrap_or_default())
                        .or_insert(0) += v;
                }
            }
        }
        out
    }

    fn counts(s: &PreFilterState, slot: usize) -> BTreeMap<String, i64> {
        s.counts_named(slot)
    }

    use Code::{Success as OK, Unschedulable as U, UnschedulableAndUnresolvable as UU};

    #[test]
    fn critical_paths_update_keeps_the_minimum() {
        let mut p = CriticalPaths::new();
        for (v, n) in [("zone1", 3), ("zone2", 4), ("zone3", 0)] {
            p.update(v, n);
        }
        assert_eq!(p.0, [("zone3".to_string(), 0), ("zone1".to_string(), 3)]);
        p.update("zone3", 5);
        assert_eq!(p.0, [("zone1".to_string(), 3), ("zone3".to_string(), 5)]);
    }

    // filtering_test.go TestPreFilterState (counts and critical paths).
    #[test]
    fn prefilter_state_cases() {
        // clean cluster with one spreadConstraint
        let s = state_of(&snapshot(
            four_nodes(),
            vec![
                pod("p")
                    .label("foo", "")
                    .spread(5, "zone", DNS, label_sel("foo", "bar")),
            ],
            vec![],
        ));
        assert_eq!(counts(&s, 0), want(&[("zone1", 0), ("zone2", 0)]));
        assert_eq!(s.paths[0].min(), 0);
        assert_eq!(s.constraints[0].max_skew, 5);
        assert_eq!(s.constraints[0].min_domains, 1);
        assert!(s.constraints[0].honor_node_affinity && !s.constraints[0].honor_node_taints);
        assert!(!s.self_match[0]);

        // normal case with one spreadConstraint
        let mut pods = vec![pod("p").label("foo", "").spread(1, "zone", DNS, exists("foo"))];
        pods.extend(foo_pods("p-a", "node-a", 2));
        pods.extend(foo_pods("p-b", "node-b", 1));
        pods.extend(foo_pods("p-y", "node-y", 2));
        let s = state_of(&snapshot(four_nodes(), pods, vec![]));
        assert_eq!(counts(&s, 0), want(&[("zone1", 3), ("zone2", 2)]));
        assert_eq!(s.paths[0].0, [("zone2".to_string(), 2), ("zone1".to_string(), 3)]);

        // normal case with null label selector: nothing matches, counts are all 0
        let mut pods = vec![pod("p").label("foo", "").spread(1, "zone", DNS, json!(null))];
        pods.extend(foo_pods("p-a", "node-a", 2));
        pods.extend(foo_pods("p-y", "node-y", 2));
        let s = state_of(&snapshot(four_nodes(), pods, vec![]));
        assert_eq!(counts(&s, 0), want(&[("zone1", 0), ("zone2", 0)]));
        assert_eq!(s.constraints[0].selector, crate::model::selector::Selector::Nothing);

        // normal case with one spreadConstraint, on a 3-zone cluster
        let mut nodes = four_nodes();
        nodes.push(node("node-o").label("zone", "zone3").label("node", "node-o"));
        nodes.push(node("node-p").label("zone", "zone3").label("node", "node-p"));
        let mut pods = vec![pod("p").label("foo", "").spread(1, "zone", DNS, exists("foo"))];
        pods.extend(foo_pods("p-a", "node-a", 2));
        pods.extend(foo_pods("p-b", "node-b", 1));
        pods.extend(foo_pods("p-y", "node-y", 2));
        let s = state_of(&snapshot(nodes, pods, vec![]));
        assert_eq!(counts(&s, 0), want(&[("zone1", 3), ("zone2", 2), ("zone3", 0)]));
        assert_eq!(s.paths[0].0, [("zone3".to_string(), 0), ("zone2".to_string(), 2)]);

        // namespace mismatch doesn't count
        let pods = vec![
            pod("p").label("foo", "").spread(1, "zone", DNS, exists("foo")),
            pod("p-a1").node("node-a").label("foo", ""),
            pod("p-a2").ns("ns1").node("node-a").label("foo", ""),
            pod("p-b1").node("node-b").label("foo", ""),
            pod("p-y1").ns("ns2").node("node-y").label("foo", ""),
            pod("p-y2").node("node-y").label("foo", ""),
        ];
        let s = state_of(&snapshot(four_nodes(), pods, vec![]));
        assert_eq!(counts(&s, 0), want(&[("zone1", 2), ("zone2", 1)]));

        // normal case with two spreadConstraints
        let mut pods =
            vec![
                pod("p")
                    .label("foo", "")
                    .spread(1, "zone", DNS, exists("foo"))
                    .spread(1, "node", DNS, exists("foo")),
            ];
        pods.extend(foo_pods("p-a", "node-a", 2));
        pods.extend(foo_pods("p-b", "node-b", 1));
        pods.extend(foo_pods("p-y", "node-y", 4));
        let s = state_of(&snapshot(four_nodes(), pods, vec![]));
        assert_eq!(counts(&s, 0), want(&[("zone1", 3), ("zone2", 4)]));
        assert_eq!(
            counts(&s, 1),
            want(&[("node-a", 2), ("node-b", 1), ("node-x", 0), ("node-y", 4)])
        );
        assert_eq!(s.paths[0].0, [("zone1".to_string(), 3), ("zone2".to_string(), 4)]);
        assert_eq!(s.paths[1].0, [("node-x".to_string(), 0), ("node-b".to_string(), 1)]);

        // soft spreadConstraints should be bypassed
        let mut nodes = four_nodes();
        nodes.remove(2);
        let mut pods = vec![
            pod("p")
                .label("foo", "")
                .spread(1, "zone", SA, exists("foo"))
                .spread(1, "zone", DNS, exists("foo"))
                .spread(1, "node", SA, exists("foo"))
                .spread(1, "node", DNS, exists("foo")),
        ];
        pods.extend(foo_pods("p-a", "node-a", 2));
        pods.extend(foo_pods("p-b", "node-b", 1));
        pods.extend(foo_pods("p-y", "node-y", 4));
        let s = state_of(&snapshot(nodes, pods, vec![]));
        assert_eq!(s.constraints.len(), 2);
        assert_eq!(counts(&s, 0), want(&[("zone1", 3), ("zone2", 4)]));
        assert_eq!(counts(&s, 1), want(&[("node-a", 2), ("node-b", 1), ("node-y", 4)]));

        // different labelSelectors - simple version
        let mut nodes = four_nodes();
        nodes.remove(2);
        let pods = vec![
            pod("p")
                .label("foo", "")
                .label("bar", "")
                .spread(1, "zone", DNS, exists("foo"))
                .spread(1, "node", DNS, exists("bar")),
            pod("p-a").node("node-a").label("foo", ""),
            pod("p-b").node("node-b").label("bar", ""),
        ];
        let s = state_of(&snapshot(nodes, pods, vec![]));
        assert_eq!(counts(&s, 0), want(&[("zone1", 1), ("zone2", 0)]));
        assert_eq!(counts(&s, 1), want(&[("node-a", 0), ("node-b", 1), ("node-y", 0)]));
        assert_eq!(s.paths[0].min(), 0);
        assert_eq!(s.paths[1].min(), 0);
    }

    #[test]
    fn prefilter_state_node_inclusion_policies() {
        // NodeAffinityPolicy honored with nodeAffinity: node-b (foo=bar) is left out.
        let nodes = vec![
            node("node-a").label("zone", "zone1").label("foo", ""),
            node("node-b").label("zone", "zone1").label("foo", "bar"),
            node("node-x").label("zone", "zone2").label("foo", ""),
        ];
        let pods = || {
            vec![
                pod("p-a").node("node-a").label("foo", ""),
                pod("p-b").node("node-b").label("foo", ""),
                pod("p-x").node("node-x").label("foo", ""),
            ]
        };
        let mut with = pods();
        with.push(pod("p").label("foo", "").node_affinity_not_in("foo", &["bar"]).spread(
            1,
            "zone",
            DNS,
            exists("foo"),
        ));
        let s = state_of(&snapshot(nodes.clone(), with, vec![]));
        assert_eq!(counts(&s, 0), want(&[("zone1", 1), ("zone2", 1)]));
        // NodeAffinityPolicy ignored: node-b counts.
        let mut with = pods();
        with.push(
            pod("p")
                .label("foo", "")
                .node_affinity_not_in("foo", &["bar"])
                .constraint(json!({
            "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": DNS, "labelSelector": exists("foo"),
            "nodeAffinityPolicy": "Ignore"})),
        );
        let s = state_of(&snapshot(nodes, with, vec![]));
        assert_eq!(counts(&s, 0), want(&[("zone1", 2), ("zone2", 1)]));

        // NodeTaintsPolicy honored: the tainted node is left out unless tolerated.
        let tnodes = vec![
            node("node-a").label("zone", "zone1"),
            node("node-b")
                .label("zone", "zone1")
                .taint("node.kubernetes.io/unschedulable", "", "NoSchedule"),
            node("node-x").label("zone", "zone2"),
        ];
        let honor = json!({"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": DNS,
            "labelSelector": exists("foo"), "nodeTaintsPolicy": "Honor"});
        let mut with = pods();
        with.push(pod("p").label("foo", "").constraint(honor.clone()));
        let s = state_of(&snapshot(tnodes.clone(), with, vec![]));
        assert_eq!(counts(&s, 0), want(&[("zone1", 1), ("zone2", 1)]));
        let mut with = pods();
        with.push(
            pod("p")
                .label("foo", "")
                .toleration("node.kubernetes.io/unschedulable")
                .constraint(honor),
        );
        let s = state_of(&snapshot(tnodes.clone(), with, vec![]));
        assert_eq!(counts(&s, 0), want(&[("zone1", 2), ("zone2", 1)]));
        // NodeTaintsPolicy ignored (default): counted.
        let mut with = pods();
        with.push(pod("p").label("foo", "").spread(1, "zone", DNS, exists("foo")));
        let s = state_of(&snapshot(tnodes, with, vec![]));
        assert_eq!(counts(&s, 0), want(&[("zone1", 2), ("zone2", 1)]));
    }

    #[test]
    fn prefilter_match_label_keys_merge_into_selector() {
        // matchLabelKeys: only pods with the incoming pod's value of "bar" are counted.
        let pods = vec![
            pod("p").label("foo", "").label("bar", "a").constraint(json!({
                "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": DNS,
                "labelSelector": exists("foo"), "matchLabelKeys": ["bar", "missing"]})),
            pod("p-a1").node("node-a").label("foo", "").label("bar", "a"),
            pod("p-a2").node("node-a").label("foo", "").label("bar", "b"),
            pod("p-x1").node("node-x").label("foo", ""),
        ];
        let s = state_of(&snapshot(four_nodes(), pods, vec![]));
        assert_eq!(counts(&s, 0), want(&[("zone1", 1), ("zone2", 0)]));
        assert!(s.self_match[0]);
        // An empty labelSelector with matchLabelKeys selects by the keys alone.
        let pods = vec![
            pod("p").label("bar", "a").constraint(json!({
                "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": DNS,
                "labelSelector": {}, "matchLabelKeys": ["bar"]})),
            pod("p-a1").node("node-a").label("bar", "a"),
            pod("p-x1").node("node-x").label("bar", "b"),
        ];
        let s = state_of(&snapshot(four_nodes(), pods, vec![]));
        assert_eq!(counts(&s, 0), want(&[("zone1", 1), ("zone2", 0)]));
    }

    #[test]
    fn prefilter_skip_without_hard_constraints_and_error_on_bad_selector() {
        let snap = snapshot(
            four_nodes(),
            vec![pod("p").label("foo", "").spread(1, "zone", SA, exists("foo"))],
            vec![],
        );
        assert_eq!(prefilter(&snap).1.code, Code::Skip);
        let snap = snapshot(four_nodes(), vec![pod("p").label("foo", "")], vec![]);
        assert_eq!(prefilter(&snap).1.code, Code::Skip);
        let snap = snapshot(
            four_nodes(),
            vec![pod("p").spread(
                1,
                "zone",
                DNS,
                json!({"matchExpressions": [{"key": "k", "operator": "Bad"}]}),
            )],
            vec![],
        );
        let (_, s) = prefilter(&snap);
        assert_eq!(s.code, Code::Error);
        assert_eq!(
            s.message(),
            "get constraints from pod: obtaining pod's hard topology spread constraints: \"Bad\" is not a valid label selector operator"
        );
    }

    // filtering_test.go TestSingleConstraint.
    #[test]
    fn single_constraint_cases() {
        let p = || pod("p").label("foo", "");
        let a2b1y3 = || {
            let mut v = foo_pods("p-a", "node-a", 2);
            v.extend(foo_pods("p-b", "node-b", 1));
            v.extend(foo_pods("p-y", "node-y", 3));
            v
        };
        let with = |p: super::super::testkit::PodB, mut v: Vec<super::super::testkit::PodB>| {
            v.push(p);
            v
        };
        let all = |c: Code| want(&[("node-a", c), ("node-b", c), ("node-x", c), ("node-y", c)]);
        let cases: Vec<(&str, Snapshot, BTreeMap<String, Code>)> = vec![
            (
                "no existing pods",
                snapshot(four_nodes(), vec![p().spread(1, "zone", DNS, exists("foo"))], vec![]),
                all(OK),
            ),
            (
                "no existing pods, incoming pod doesn't match itself",
                snapshot(four_nodes(), vec![p().spread(1, "zone", DNS, exists("bar"))], vec![]),
                all(OK),
            ),
            (
                "existing pods in a different namespace do not count",
                snapshot(
                    four_nodes(),
                    vec![
                        p().spread(1, "zone", DNS, exists("foo")),
                        pod("p-a1").ns("ns1").node("node-a").label("foo", ""),
                        pod("p-b1").ns("ns2").node("node-a").label("foo", ""),
                        pod("p-x1").node("node-x").label("foo", ""),
                        pod("p-y1").node("node-y").label("foo", ""),
                    ],
                    vec![],
                ),
                want(&[("node-a", OK), ("node-b", OK), ("node-x", U), ("node-y", U)]),
            ),
            (
                "existing pods do not match null selector",
                snapshot(
                    four_nodes(),
                    with(
                        p().spread(1, "zone", DNS, json!(null)),
                        vec![
                            pod("p-x1").node("node-x").label("foo", ""),
                            pod("p-y1").node("node-y").label("foo", ""),
                        ],
                    ),
                    vec![],
                ),
                all(OK),
            ),
            (
                "pods spread across zones as 3/3, all nodes fit",
                snapshot(
                    four_nodes(),
                    with(p().spread(1, "zone", DNS, exists("foo")), a2b1y3()),
                    vec![],
                ),
                all(OK),
            ),
            (
                "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
                snapshot(
                    vec![
                        node("node-a").label("zone", "zone1").label("node", "node-a"),
                        node("node-b").label("zon", "zone1").label("node", "node-b"),
                        node("node-x").label("zone", "zone2").label("node", "node-x"),
                        node("node-y").label("zone", "zone2").label("node", "node-y"),
                    ],
                    with(
                        p().spread(1, "zone", DNS, exists("foo")),
                        vec![
                            pod("p-a1").node("node-a").label("foo", ""),
                            pod("p-b1").node("node-b").label("foo", ""),
                            pod("p-x1").node("node-x").label("foo", ""),
                            pod("p-y1").node("node-y").label("foo", ""),
                        ],
                    ),
                    vec![],
                ),
                want(&[("node-a", OK), ("node-b", UU), ("node-x", U), ("node-y", U)]),
            ),
            (
                "pod cannot be scheduled as all nodes don't have label 'rack'",
                snapshot(
                    vec![
                        node("node-a").label("zone", "zone1").label("node", "node-a"),
                        node("node-x").label("zone", "zone2").label("node", "node-x"),
                    ],
                    vec![p().spread(1, "rack", DNS, exists("foo"))],
                    vec![],
                ),
                want(&[("node-a", UU), ("node-x", UU)]),
            ),
            (
                "pods spread across nodes as 2/1/0/3, only node-x fits",
                snapshot(
                    four_nodes(),
                    with(p().spread(1, "node", DNS, exists("foo")), a2b1y3()),
                    vec![],
                ),
                want(&[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", U)]),
            ),
            (
                "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
                snapshot(
                    four_nodes(),
                    with(p().spread(2, "node", DNS, exists("foo")), a2b1y3()),
                    vec![],
                ),
                want(&[("node-a", U), ("node-b", OK), ("node-x", OK), ("node-y", U)]),
            ),
            (
                "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
                snapshot(
                    four_nodes(),
                    with(
                        pod("p").label("bar", "").spread(1, "node", DNS, exists("foo")),
                        a2b1y3(),
                    ),
                    vec![],
                ),
                want(&[("node-a", U), ("node-b", OK), ("node-x", OK), ("node-y", U)]),
            ),
            (
                "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
                snapshot(
                    four_nodes(),
                    with(
                        p().node_affinity_in("node", &["node-a", "node-y"])
                            .spread(1, "node", DNS, exists("foo")),
                        a2b1y3(),
                    ),
                    vec![],
                ),
                want(&[("node-a", OK), ("node-b", OK), ("node-x", OK), ("node-y", U)]),
            ),
            (
                "terminating Pods should be excluded",
                snapshot(
                    vec![
                        node("node-a").label("node", "node-a"),
                        node("node-b").label("node", "node-b"),
                    ],
                    vec![
                        p().spread(1, "node", DNS, exists("foo")),
                        pod("p-a").node("node-a").label("foo", "").terminating(),
                        pod("p-b").node("node-b").label("foo", ""),
                    ],
                    vec![],
                ),
                want(&[("node-a", OK), ("node-b", U)]),
            ),
            (
                "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
                snapshot(
                    four_nodes(),
                    vec![
                        p().node_affinity_not_in("node", &["node-b"])
                            .spread(1, "zone", DNS, exists("foo")),
                        pod("p-b1").node("node-b").label("foo", ""),
                        pod("p-b2").node("node-b").label("foo", ""),
                        pod("p-y1").node("node-y").label("foo", ""),
                    ],
                    vec![],
                ),
                want(&[("node-a", OK), ("node-b", OK), ("node-x", U), ("node-y", U)]),
            ),
        ];
        for (name, snap, expected) in cases {
            assert_eq!(codes(&snap), expected, "{name}");
        }
    }

    fn min_domains(max_skew: i32, key: &str, min: i32) -> serde_json::Value {
        json!({"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": DNS,
               "labelSelector": exists("foo"), "minDomains": min})
    }

    // filtering_test.go TestSingleConstraint: minDomains and node inclusion policy cases.
    #[test]
    fn single_constraint_min_domains_and_policies() {
        let three = || {
            vec![
                node("node-a").label("node", "node-a"),
                node("node-b").label("node", "node-b"),
                node("node-c").label("node", "node-c"),
            ]
        };
        let two_two_one = |c: serde_json::Value| {
            let mut v = vec![pod("p").label("foo", "").constraint(c)];
            v.extend(foo_pods("p-a", "node-a", 2));
            v.extend(foo_pods("p-b", "node-b", 2));
            v.extend(foo_pods("p-c", "node-c", 1));
            v
        };
        assert_eq!(
            codes(&snapshot(three(), two_two_one(min_domains(2, "node", 4)), vec![])),
            want(&[("node-a", U), ("node-b", U), ("node-c", OK)]),
            "2/2/1, maxSkew 2, domains < minDomains: only the third node fits"
        );
        assert_eq!(
            codes(&snapshot(three(), two_two_one(min_domains(2, "node", 2)), vec![])),
            want(&[("node-a", OK), ("node-b", OK), ("node-c", OK)]),
            "2/2/1, maxSkew 2, domains > minDomains: all fit"
        );
        let zone21 = |c: serde_json::Value| {
            vec![
                pod("p").label("foo", "").constraint(c),
                pod("p-b1").node("node-a").label("foo", ""),
                pod("p-b2").node("node-b").label("foo", ""),
                pod("p-y1").node("node-y").label("foo", ""),
            ]
        };
        assert_eq!(
            codes(&snapshot(four_nodes(), zone21(min_domains(2, "zone", 3)), vec![])),
            want(&[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", OK)]),
            "zones 2/1, maxSkew 2, domains < minDomains"
        );
        assert_eq!(
            codes(&snapshot(four_nodes(), zone21(min_domains(2, "zone", 1)), vec![])),
            want(&[("node-a", OK), ("node-b", OK), ("node-x", OK), ("node-y", OK)]),
            "zones 2/1, maxSkew 2, domains > minDomains"
        );

        let foo_nodes = || {
            vec![
                node("node-a").label("node", "node-a").label("foo", ""),
                node("node-b").label("node", "node-b").label("foo", ""),
                node("node-x").label("node", "node-x").label("foo", ""),
                node("node-y").label("node", "node-y"),
            ]
        };
        let spread_pods = |p: super::super::testkit::PodB| {
            vec![
                p,
                pod("p-b1").node("node-a").label("foo", ""),
                pod("p-b2").node("node-b").label("foo", ""),
                pod("p-y1").node("node-y").label("foo", ""),
            ]
        };
        let node_c = |policy: Option<(&str, &str)>| {
            let mut c =
                json!({"maxSkew": 1, "topologyKey": "node", "whenUnsatisfiable": DNS, "labelSelector": exists("foo")});
            if let Some((k, v)) = policy {
                c[k] = json!(v);
            }
            c
        };
        let honored = want(&[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", OK)]);
        let ignored = want(&[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", U)]);
        let p = || pod("p").label("foo", "");
        assert_eq!(
            codes(&snapshot(
                foo_nodes(),
                spread_pods(p().node_selector("foo", "").constraint(node_c(None))),
                vec![]
            )),
            honored,
            "NodeAffinityPolicy honored with labelSelectors"
        );
        assert_eq!(
            codes(&snapshot(
                foo_nodes(),
                spread_pods(
                    p().node_selector("foo", "")
                        .constraint(node_c(Some(("nodeAffinityPolicy", "Ignore"))))
                ),
                vec![]
            )),
            ignored,
            "NodeAffinityPolicy ignored with labelSelectors"
        );
        assert_eq!(
            codes(&snapshot(
                foo_nodes(),
                spread_pods(p().node_affinity_in("foo", &[""]).constraint(node_c(None))),
                vec![]
            )),
            honored,
            "NodeAffinityPolicy honored with nodeAffinity"
        );
        assert_eq!(
            codes(&snapshot(
                foo_nodes(),
                spread_pods(
                    p().node_affinity_in("foo", &[""])
                        .constraint(node_c(Some(("nodeAffinityPolicy", "Ignore"))))
                ),
                vec![]
            )),
            ignored,
            "NodeAffinityPolicy ignored with nodeAffinity"
        );
        let mut tainted = foo_nodes();
        tainted[3] = node("node-y")
            .label("node", "node-y")
            .taint("node.kubernetes.io/unschedulable", "", "NoSchedule");
        assert_eq!(
            codes(&snapshot(
                tainted.clone(),
                spread_pods(p().constraint(node_c(Some(("nodeTaintsPolicy", "Honor"))))),
                vec![]
            )),
            honored,
            "NodeTaintsPolicy honored"
        );
        assert_eq!(
            codes(&snapshot(tainted, spread_pods(p().constraint(node_c(None))), vec![])),
            ignored,
            "NodeTaintsPolicy ignored"
        );
    }

    // filtering_test.go TestMultipleConstraints.
    #[test]
    fn multiple_constraints_cases() {
        let two = |p: super::super::testkit::PodB, zone: serde_json::Value, node_c: serde_json::Value| {
            p.constraint(zone).constraint(node_c)
        };
        let c = |key: &str, sel: &str, extra: &[(&str, &str)]| {
            let mut v =
                json!({"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": DNS, "labelSelector": exists(sel)});
            for (k, val) in extra {
                v[*k] = json!(val);
            }
            v
        };
        let foo = || pod("p").label("foo", "");
        let foobar = || pod("p").label("foo", "").label("bar", "");
        let on = |name: &str, n: &str, labels: &[&str]| labels.iter().fold(pod(name).node(n), |p, l| p.label(l, ""));
        let foo_nodes = |y_taint: bool, b_foo: bool, y_foo: bool| {
            let mut y = node("node-y").label("zone", "zone2").label("node", "node-y");
            if y_foo {
                y = y.label("foo", "");
            }
            if y_taint {
                y = y.taint("node.kubernetes.io/unschedulable", "", "NoSchedule");
            }
            let mut b = node("node-b").label("zone", "zone1").label("node", "node-b");
            if b_foo {
                b = b.label("foo", "");
            }
            vec![
                node("node-a")
                    .label("zone", "zone1")
                    .label("node", "node-a")
                    .label("foo", ""),
                b,
                node("node-x")
                    .label("zone", "zone2")
                    .label("node", "node-x")
                    .label("foo", ""),
                y,
            ]
        };
        let abyfoo = || {
            vec![
                on("p-a1", "node-a", &["foo"]),
                on("p-b1", "node-b", &["foo"]),
                on("p-y1", "node-y", &["foo"]),
            ]
        };
        let with = |p: super::super::testkit::PodB, mut v: Vec<super::super::testkit::PodB>| {
            v.insert(0, p);
            v
        };
        let cases: Vec<(&str, Snapshot, [Code; 4])> = vec![
            (
                "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
                snapshot(
                    four_nodes(),
                    with(two(foo(), c("zone", "foo", &[]), c("node", "foo", &[])), {
                        let mut v = foo_pods("p-a", "node-a", 2);
                        v.extend(foo_pods("p-b", "node-b", 1));
                        v.extend(foo_pods("p-y", "node-y", 3));
                        v
                    }),
                    vec![],
                ),
                [U, U, OK, U],
            ),
            (
                "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
                snapshot(
                    four_nodes(),
                    with(two(foo(), c("zone", "foo", &[]), c("node", "foo", &[])), {
                        let mut v = foo_pods("p-a", "node-a", 2);
                        v.extend(foo_pods("p-b", "node-b", 1));
                        v.extend(foo_pods("p-y", "node-y", 4));
                        v
                    }),
                    vec![],
                ),
                [U, U, U, U],
            ),
            (
                "Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
                snapshot(
                    four_nodes(),
                    with(
                        two(foobar(), c("zone", "foo", &[]), c("node", "bar", &[])),
                        vec![on("p-a1", "node-a", &["foo"]), on("p-y1", "node-y", &["bar"])],
                    ),
                    vec![],
                ),
                [U, U, OK, U],
            ),
            (
                "Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
                snapshot(
                    four_nodes(),
                    with(
                        two(foobar(), c("zone", "foo", &[]), c("node", "bar", &[])),
                        vec![
                            on("p-a1", "node-a", &["foo"]),
                            on("p-x1", "node-x", &["bar"]),
                            on("p-y1", "node-y", &["bar"]),
                        ],
                    ),
                    vec![],
                ),
                [U, U, U, U],
            ),
            (
                "Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
                snapshot(
                    four_nodes(),
                    with(
                        two(foobar(), c("zone", "foo", &[]), c("node", "bar", &[])),
                        vec![
                            on("p-a1", "node-a", &["foo"]),
                            on("p-a2", "node-a", &["foo", "bar"]),
                            on("p-y1", "node-y", &["foo"]),
                            on("p-y2", "node-y", &["foo", "bar"]),
                            on("p-y3", "node-y", &["foo"]),
                        ],
                    ),
                    vec![],
                ),
                [U, OK, U, U],
            ),
            (
                "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
                snapshot(
                    four_nodes(),
                    with(
                        two(pod("p").label("bar", ""), c("zone", "foo", &[]), c("node", "bar", &[])),
                        vec![
                            on("p-a1", "node-a", &["foo"]),
                            on("p-x1", "node-x", &["bar"]),
                            on("p-y1", "node-y", &["bar"]),
                        ],
                    ),
                    vec![],
                ),
                [OK, OK, U, U],
            ),
            (
                "two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
                snapshot(
                    vec![
                        node("node-a").label("zone", "zone1").label("node", "node-a"),
                        node("node-b").label("zone", "zone1").label("node", "node-b"),
                        node("node-x").label("zone", "zone2"),
                        node("node-y").label("zone", "zone2").label("node", "node-y"),
                    ],
                    with(
                        two(foo(), c("zone", "foo", &[]), c("node", "foo", &[])),
                        vec![on("p-a1", "node-a", &["foo"]), on("p-y3", "node-y", &["foo"])],
                    ),
                    vec![],
                ),
                [U, OK, UU, U],
            ),
            (
                "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
                snapshot(
                    foo_nodes(false, true, false),
                    with(
                        two(
                            foo().node_selector("foo", ""),
                            c("zone", "foo", &[]),
                            c("node", "foo", &[("nodeAffinityPolicy", "Ignore")]),
                        ),
                        abyfoo(),
                    ),
                    vec![],
                ),
                [U, U, OK, U],
            ),
            (
                "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
                snapshot(
                    foo_nodes(true, true, false),
                    with(
                        two(
                            foo(),
                            c("zone", "foo", &[("nodeTaintsPolicy", "Honor")]),
                            c("node", "foo", &[]),
                        ),
                        abyfoo(),
                    ),
                    vec![],
                ),
                [U, U, OK, U],
            ),
            (
                "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
                snapshot(
                    foo_nodes(true, false, true),
                    with(
                        two(
                            foo().node_selector("foo", ""),
                            c("zone", "foo", &[]),
                            c("node", "foo", &[]),
                        ),
                        abyfoo(),
                    ),
                    vec![],
                ),
                [U, OK, OK, U],
            ),
            (
                "two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
                snapshot(
                    foo_nodes(true, false, true),
                    with(
                        two(
                            foo().node_selector("foo", ""),
                            c("zone", "foo", &[("nodeTaintsPolicy", "Honor")]),
                            c("node", "foo", &[("nodeAffinityPolicy", "Ignore")]),
                        ),
                        abyfoo(),
                    ),
                    vec![],
                ),
                [U, U, OK, U],
            ),
        ];
        for (name, snap, expected) in cases {
            let names = ["node-a", "node-b", "node-x", "node-y"];
            let w: BTreeMap<String, Code> = names.iter().zip(expected).map(|(n, c)| ((*n).to_string(), c)).collect();
            assert_eq!(codes(&snap), w, "{name}");
        }
    }

    // "two Constraints on zone, spreads = [3/3, 2/1]": two constraints with the same key (the
    // API server rejects such pods). 1.30 keeps one count per topology key, where the last
    // constraint's count of a node wins, so both see zones 3/3 and every node fits; from 1.33
    // (kubernetes#129119) each constraint has its own counts and zone1 fails the bar one.
    #[test]
    fn two_constraints_on_the_same_key_by_version() {
        let pods = || {
            vec![
                pod("p")
                    .label("foo", "")
                    .label("bar", "")
                    .spread(1, "zone", DNS, exists("bar"))
                    .spread(1, "zone", DNS, exists("foo")),
                pod("p-a1").node("node-a").label("foo", "").label("bar", ""),
                pod("p-a2").node("node-a").label("foo", ""),
                pod("p-b1").node("node-b").label("foo", "").label("bar", ""),
                pod("p-y1").node("node-y").label("foo", ""),
                pod("p-y2").node("node-y").label("foo", "").label("bar", ""),
                pod("p-y3").node("node-y").label("foo", ""),
            ]
        };
        assert_eq!(
            codes(&snapshot(four_nodes(), pods(), vec![])),
            want(&[("node-a", OK), ("node-b", OK), ("node-x", OK), ("node-y", OK)])
        );
        let snap = super::super::testkit::snapshot_at(four_nodes(), pods(), vec![], 33);
        let pl =
            PodTopologySpread::new(Vec::new(), false).with_features(&crate::engine::release::Release::at(33).into());
        let pi = snap.pod_infos[&ObjectKey::new("default", "p")].clone();
        let mut state = CycleState::default();
        let cx = Ctx { snapshot: &snap };
        assert!(pl.pre_filter(&cx, &mut state, &pi).1.is_success());
        let got: BTreeMap<String, Code> = snap
            .nodes
            .iter()
            .map(|n| (n.name().to_string(), pl.filter(&cx, &state, &pi, n).code))
            .collect();
        assert_eq!(
            got,
            want(&[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", OK)])
        );
    }

    #[test]
    fn filter_reasons_are_upstreams() {
        let snap = snapshot(
            vec![
                node("node-a").label("zone", "z1"),
                node("node-b"),
                node("node-c").label("zone", "z2"),
            ],
            vec![
                pod("p").label("foo", "").spread(1, "zone", DNS, exists("foo")),
                pod("p-a1").node("node-a").label("foo", ""),
            ],
            vec![],
        );
        let pi = snap.pod_infos[&ObjectKey::new("default", "p")].clone();
        let (state, _) = prefilter(&snap);
        let cx = Ctx { snapshot: &snap };
        let got: Vec<Status> = snap
            .nodes
            .iter()
            .map(|n| plugin().filter(&cx, &state, &pi, n))
            .collect();
        assert_eq!(
            got[0],
            Status::unschedulable("node(s) didn't match pod topology spread constraints")
        );
        assert_eq!(
            got[1],
            Status::unresolvable("node(s) didn't match pod topology spread constraints (missing required label)")
        );
        assert!(got[2].is_success());
        // The trace numbers of the failing node.
        let s = state.read::<PreFilterState>(PRE_FILTER_KEY).expect("state");
        let c = &s.explain(&snap.nodes[0])[0];
        assert_eq!(
            (
                c.domain.as_deref(),
                c.match_num,
                c.self_match,
                c.global_min,
                c.skew,
                c.satisfied,
                c.domains
            ),
            (Some("z1"), 1, true, Some(0), Some(2), false, 2)
        );
        assert_eq!(c.global_min_domain.as_deref(), Some("z2"));
        assert_eq!(s.explain(&snap.nodes[1])[0].domain, None);
        // Filter without PreFilter state is an error, as upstream.
        let empty = CycleState::default();
        assert_eq!(
            plugin().filter(&cx, &empty, &pi, &snap.nodes[0]),
            Status::error("reading \"PreFilterPodTopologySpread\" from cycleState: not found")
        );
    }

    // filtering_test.go TestPreFilterStateAddPod / TestPreFilterStateRemovePod (selected cases).
    #[test]
    fn add_and_remove_pod_update_counts() {
        let pl = plugin();
        let nodes = || {
            vec![
                node("node-a").label("zone", "zone1").label("node", "node-a"),
                node("node-b").label("zone", "zone1").label("node", "node-b"),
                node("node-x").label("zone", "zone2").label("node", "node-x"),
            ]
        };
        let incoming = || {
            pod("p")
                .label("foo", "")
                .spread(1, "zone", DNS, exists("foo"))
                .spread(1, "node", DNS, exists("foo"))
        };
        // node a and b both impact current min match
        let snap = snapshot(
            nodes(),
            vec![
                incoming(),
                pod("p-b1").node("node-b").label("foo", ""),
                pod("added").label("foo", ""),
            ],
            vec![],
        );
        let pi = snap.pod_infos[&ObjectKey::new("default", "p")].clone();
        let added = snap.pod_infos[&ObjectKey::new("default", "added")].clone();
        let (mut state, _) = prefilter(&snap);
        let cx = Ctx { snapshot: &snap };
        assert!(pl.add_pod(&cx, &mut state, &pi, &added, &snap.nodes[0]).is_success());
        let s = state.read::<PreFilterState>(PRE_FILTER_KEY).expect("state");
        assert_eq!(counts(s, 0), want(&[("zone1", 2), ("zone2", 0)]));
        assert_eq!(counts(s, 1), want(&[("node-a", 1), ("node-b", 1), ("node-x", 0)]));
        assert_eq!(s.paths[0].0, [("zone2".to_string(), 0), ("zone1".to_string(), 2)]);
        assert_eq!(s.paths[1].0, [("node-x".to_string(), 0), ("node-a".to_string(), 1)]);
        // A pod of another namespace or that does not match changes nothing.
        let snap2 = snapshot(
            nodes(),
            vec![
                incoming(),
                pod("other").ns("ns1").label("foo", ""),
                pod("nomatch").label("bar", ""),
            ],
            vec![],
        );
        let pi2 = snap2.pod_infos[&ObjectKey::new("default", "p")].clone();
        let (mut st2, _) = prefilter(&snap2);
        let cx2 = Ctx { snapshot: &snap2 };
        for k in [ObjectKey::new("ns1", "other"), ObjectKey::new("default", "nomatch")] {
            let o = snap2.pod_infos[&k].clone();
            assert!(pl.add_pod(&cx2, &mut st2, &pi2, &o, &snap2.nodes[0]).is_success());
        }
        let s2 = st2.read::<PreFilterState>(PRE_FILTER_KEY).expect("state");
        assert_eq!(counts(s2, 0), want(&[("zone1", 0), ("zone2", 0)]));
        // RemovePod: the removed pod's domain drops and becomes the minimum.
        let snap3 = snapshot(
            nodes(),
            vec![
                incoming(),
                pod("p-a1").node("node-a").label("foo", ""),
                pod("p-x1").node("node-x").label("foo", ""),
                pod("p-x2").node("node-x").label("foo", ""),
            ],
            vec![],
        );
        let pi3 = snap3.pod_infos[&ObjectKey::new("default", "p")].clone();
        let rm = snap3.pod_infos[&ObjectKey::new("default", "p-a1")].clone();
        let (mut st3, _) = prefilter(&snap3);
        let cx3 = Ctx { snapshot: &snap3 };
        assert!(pl.remove_pod(&cx3, &mut st3, &pi3, &rm, &snap3.nodes[0]).is_success());
        let s3 = st3.read::<PreFilterState>(PRE_FILTER_KEY).expect("state");
        assert_eq!(counts(s3, 0), want(&[("zone1", 0), ("zone2", 2)]));
        assert_eq!(s3.paths[0].min(), 0);
        assert_eq!(counts(s3, 1), want(&[("node-a", 0), ("node-b", 0), ("node-x", 2)]));
    }

    #[test]
    fn nominated_pods_count_through_add_pod_in_the_runner() {
        use crate::engine::Framework;
        use crate::engine::framework::runner::explain;
        use crate::engine::release::Release;
        // zone1: node-a, zone2: node-x. A nominated pod of equal priority on node-x makes zone2
        // as full as zone1, so with maxSkew 1 node-x fails only with the nominated pod counted.
        let snap = snapshot(
            vec![
                node("node-a").label("zone", "zone1"),
                node("node-x").label("zone", "zone2"),
            ],
            vec![
                pod("p").label("foo", "").spread(1, "zone", DNS, exists("foo")),
                pod("p-a1").node("node-a").label("foo", ""),
                pod("nom").label("foo", "").nominated("node-x").priority(0),
                pod("p-x1").node("node-x").label("foo", ""),
            ],
            vec![],
        );
        let fw = Framework::default_profile(Release::at(30)).expect("profile");
        let ex = explain(&snap, &[fw], &ObjectKey::new("default", "p")).expect("explain");
        let fx = ex.filter.iter().find(|f| f.node == "node-x").expect("node-x");
        assert!(!fx.feasible);
        assert_eq!(fx.failure.as_ref().map(|f| f.plugin), Some("PodTopologySpread"));
        assert_eq!(fx.rejected_by_nominated_pods, vec![ObjectKey::new("default", "nom")]);
        assert!(ex.filter.iter().find(|f| f.node == "node-a").expect("node-a").feasible);
    }

    // kubernetes#141340 (1.38): `labelSelector: {}` counts every pod of the pod's namespace,
    // unlabeled ones too; up to 1.37 countPodsMatchSelector counted none for it, so such a
    // constraint never rejected a node (issue #141339). A nil selector counts none at both.
    #[test]
    fn release_1_38_an_empty_label_selector_counts_every_pod_of_the_namespace() {
        let pods = |sel: serde_json::Value| {
            let mut v = vec![pod("p").label("foo", "").spread(1, "zone", DNS, sel)];
            v.extend(foo_pods("p-a", "node-a", 2));
            v.push(pod("plain").node("node-b"));
            v.extend(foo_pods("p-y", "node-y", 2));
            v.push(pod("q").ns("other").node("node-x").label("foo", ""));
            v
        };
        let run = |sel: serde_json::Value, minor: u32| {
            let snap = super::super::testkit::snapshot_at(four_nodes(), pods(sel), vec![], minor);
            let pl = PodTopologySpread::new(Vec::new(), false)
                .with_features(&crate::engine::release::Release::at(minor).into());
            let pi = snap.pod_infos[&ObjectKey::new("default", "p")].clone();
            let mut state = CycleState::default();
            let cx = Ctx { snapshot: &snap };
            assert!(pl.pre_filter(&cx, &mut state, &pi).1.is_success());
            let s = state.read::<PreFilterState>(PRE_FILTER_KEY).expect("state").clone();
            let codes: BTreeMap<String, Code> = snap
                .nodes
                .iter()
                .map(|n| (n.name().to_string(), pl.filter(&cx, &state, &pi, n).code))
                .collect();
            (counts(&s, 0), codes)
        };
        let (ok, u) = (Code::Success, Code::Unschedulable);
        let all_ok = || {
            [("node-a", ok), ("node-b", ok), ("node-x", ok), ("node-y", ok)]
                .map(|(n, c)| (n.to_string(), c))
                .into()
        };
        assert_eq!(run(json!({}), 37), (want(&[("zone1", 0), ("zone2", 0)]), all_ok()));
        assert_eq!(
            run(json!({}), 38),
            (
                want(&[("zone1", 3), ("zone2", 2)]),
                [("node-a", u), ("node-b", u), ("node-x", ok), ("node-y", ok)]
                    .map(|(n, c)| (n.to_string(), c))
                    .into()
            )
        );
        for minor in [37, 38] {
            assert_eq!(run(json!(null), minor), (want(&[("zone1", 0), ("zone2", 0)]), all_ok()));
        }
    }
}
