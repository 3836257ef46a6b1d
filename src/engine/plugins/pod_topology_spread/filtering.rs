//! Port of framework/plugins/podtopologyspread/filtering.go (v1.30.6): PreFilter counts the
//! matching pods per topology domain once over all nodes, AddPod/RemovePod update those
//! counts for nominated pods and preemption, and Filter checks
//! `matchNum + selfMatch - globalMin <= maxSkew` for every DoNotSchedule constraint.

use std::collections::HashMap;
use std::sync::Arc;

use super::common::{Constraint, count_on_node, key_slots, node_has_all_keys};
use super::{ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH};
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::status::Status;
use crate::engine::plugins::node_affinity::RequiredNodeAffinity;
use crate::engine::trace::SpreadCheck;

/// Cycle-state key (`"PreFilter" + Name`).
pub const PRE_FILTER_KEY: &str = "PreFilterPodTopologySpread";

/// The two domains with the fewest matching pods (`criticalPaths`). Only the first minimum is
/// exact after AddPod/RemovePod, as upstream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CriticalPaths(pub [(String, i64); 2]);

impl CriticalPaths {
    fn new() -> Self {
        CriticalPaths([(String::new(), i64::from(i32::MAX)), (String::new(), i64::from(i32::MAX))])
    }

    /// `criticalPaths.update`.
    pub fn update(&mut self, value: &str, num: i64) {
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
    pub fn min(&self) -> i64 {
        self.0[0].1
    }
}

/// What PreFilter computed (`preFilterState`). Counts are kept per topology key, as 1.30 does.
#[derive(Clone, Debug)]
pub struct PreFilterState {
    /// The DoNotSchedule constraints (shared: they never change during the cycle).
    pub constraints: Arc<Vec<Constraint>>,
    /// Each constraint's topology-key slot.
    pub slots: Arc<Vec<usize>>,
    /// Whether the incoming pod matches each constraint's selector.
    pub self_match: Arc<Vec<bool>>,
    /// Per key slot: topology value → matching pods (`TpPairToMatchNum`).
    pub counts: Vec<HashMap<String, i64>>,
    /// Per key slot: the critical paths.
    pub paths: Vec<CriticalPaths>,
    /// Per key slot: the number of domains found at PreFilter (`TpKeyToDomainsNum`); 0 means
    /// upstream has no entry and skips the constraint.
    pub domains: Arc<Vec<usize>>,
}

impl PreFilterState {
    /// `calPreFilterState` over every node of the snapshot.
    pub fn compute(pod: &PodInfo, constraints: Vec<Constraint>, nodes: &[NodeInfo]) -> Self {
        let (keys, slots) = key_slots(&constraints);
        let required = RequiredNodeAffinity::of(pod);
        let ns = pod.pod.key.namespace.as_str();
        let mut counts: Vec<HashMap<String, i64>> = vec![HashMap::new(); keys.len()];
        let mut per_node: Vec<Option<i64>> = vec![None; keys.len()];
        for ni in nodes {
            let node = &ni.node;
            if !node_has_all_keys(&node.labels, &constraints) {
                continue;
            }
            per_node.iter_mut().for_each(|v| *v = None);
            for (i, c) in constraints.iter().enumerate() {
                if !c.includes_node(&pod.pod, node, &required) {
                    continue;
                }
                per_node[slots[i]] = Some(count_on_node(ni, &c.selector, ns));
            }
            for (slot, v) in per_node.iter().enumerate() {
                if let Some(n) = v {
                    let value = node.labels.get(&keys[slot]).cloned().unwrap_or_default();
                    *counts[slot].entry(value).or_insert(0) += n;
                }
            }
        }
        let domains: Vec<usize> = counts.iter().map(HashMap::len).collect();
        let mut paths = vec![CriticalPaths::new(); keys.len()];
        for (slot, m) in counts.iter().enumerate() {
            // Upstream walks a Go map (random order); walk values sorted so ties resolve the same
            // way every run. The minimum itself does not depend on the order.
            let mut vals: Vec<(&String, &i64)> = m.iter().collect();
            vals.sort();
            for (v, n) in vals {
                paths[slot].update(v, *n);
            }
        }
        let self_match = constraints.iter().map(|c| c.selector.matches(&pod.pod.labels)).collect();
        PreFilterState {
            constraints: Arc::new(constraints),
            slots: Arc::new(slots),
            self_match: Arc::new(self_match),
            counts,
            paths,
            domains: Arc::new(domains),
        }
    }

    /// `updateWithPod`: counts `other` (added with +1, removed with -1) on `node`.
    pub fn update_with_pod(&mut self, pod: &PodInfo, other: &PodInfo, node: &NodeInfo, delta: i64) {
        if other.pod.key.namespace != pod.pod.key.namespace {
            return;
        }
        let n = &node.node;
        if !node_has_all_keys(&n.labels, &self.constraints) {
            return;
        }
        let required = RequiredNodeAffinity::of(pod);
        let constraints = self.constraints.clone();
        for (i, c) in constraints.iter().enumerate() {
            if !c.selector.matches(&other.pod.labels) || !c.includes_node(&pod.pod, n, &required) {
                continue;
            }
            let slot = self.slots[i];
            let value = n.labels.get(&c.topology_key).cloned().unwrap_or_default();
            let e = self.counts[slot].entry(value.clone()).or_insert(0);
            *e += delta;
            let num = *e;
            self.paths[slot].update(&value, num);
        }
    }

    /// `minMatchNum`: the global minimum, 0 when fewer domains than minDomains exist; None when
    /// upstream finds no domain for the key (it then skips the constraint).
    pub fn min_match(&self, i: usize) -> Option<i64> {
        let slot = self.slots[i];
        let domains = self.domains[slot];
        if domains == 0 {
            return None;
        }
        let c = &self.constraints[i];
        Some(if (domains as i64) < i64::from(c.min_domains) { 0 } else { self.paths[slot].min() })
    }

    /// Filter on one node.
    pub fn filter(&self, node: &NodeInfo) -> Status {
        for (i, c) in self.constraints.iter().enumerate() {
            let Some(value) = node.node.labels.get(&c.topology_key) else {
                return Status::unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH);
            };
            let Some(min) = self.min_match(i) else { continue };
            let self_num = i64::from(self.self_match[i]);
            let num = self.counts[self.slots[i]].get(value).copied().unwrap_or(0);
            if num + self_num - min > i64::from(c.max_skew) {
                return Status::unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH);
            }
        }
        Status::success()
    }

    /// The numbers behind Filter's verdict on one node, for every constraint, up to the first
    /// that fails (Filter stops there).
    pub fn explain(&self, node: &NodeInfo) -> Vec<SpreadCheck> {
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
                match_num: value.map_or(0, |v| self.counts[slot].get(v).copied().unwrap_or(0)),
                self_match,
                global_min: self.min_match(i),
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
}
