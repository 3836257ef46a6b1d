//! Port of framework/plugins/podtopologyspread/common.go and helper/spread.go (v1.30.6): the
//! parsed constraint, node inclusion policies, the selector merge of matchLabelKeys, the
//! system-default selector built from the pod's Services and controllers, and pod counting.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::plugins::helper::find_untolerated_taint;
use crate::engine::plugins::node_affinity::RequiredNodeAffinity;
use crate::model::selector::{Labels, Op, Requirement, Selector};
use crate::model::{Cluster, Node, Pod};

/// `v1.LabelHostname`.
pub(crate) const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";
/// `v1.LabelTopologyZone`.
pub(crate) const LABEL_TOPOLOGY_ZONE: &str = "topology.kubernetes.io/zone";
/// `v1.DoNotSchedule`.
pub(crate) const DO_NOT_SCHEDULE: &str = "DoNotSchedule";
/// `v1.ScheduleAnyway`.
pub(crate) const SCHEDULE_ANYWAY: &str = "ScheduleAnyway";
/// `v1.NodeInclusionPolicyHonor`.
pub(crate) const HONOR: &str = "Honor";

/// A spread constraint with its selector parsed (`topologySpreadConstraint`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Constraint {
    /// maxSkew.
    pub max_skew: i32,
    /// topologyKey.
    pub topology_key: String,
    /// labelSelector, with matchLabelKeys merged in (or the default selector).
    pub selector: Selector,
    /// minDomains (1 when unset).
    pub min_domains: i32,
    /// nodeAffinityPolicy is Honor (the default).
    pub honor_node_affinity: bool,
    /// nodeTaintsPolicy is Honor (default Ignore).
    pub honor_node_taints: bool,
    /// Tolerations may use Lt and Gt (TaintTolerationComparisonOperators).
    pub taint_comparison_operators: bool,
}

impl Constraint {
    /// `matchNodeInclusionPolicies`: whether the node counts as a domain member for this pod.
    pub(crate) fn includes_node(&self, pod: &Pod, node: &Node, required: &RequiredNodeAffinity) -> bool {
        if self.honor_node_affinity && !required.matches(&node.labels, &node.name) {
            return false;
        }
        if self.honor_node_taints
            && find_untolerated_taint(&node.taints, &pod.tolerations, self.taint_comparison_operators, |t| {
                t.effect == "NoSchedule" || t.effect == "NoExecute"
            })
            .is_some()
        {
            return false;
        }
        true
    }
}

/// `metav1.LabelSelectorAsSelector` with its error: nil is Nothing, an empty selector is
/// Everything, a malformed requirement is an error.
pub(crate) fn label_selector_as_selector(ls: Option<&LabelSelector>) -> Result<Selector, String> {
    let Some(l) = ls else {
        return Ok(Selector::Nothing);
    };
    let s = Selector::from_label_selector(Some(l));
    if s.is_nothing() {
        let bad = l.match_expressions.iter().flatten().find(|e| {
            Selector::from_label_selector(Some(&LabelSelector {
                match_labels: None,
                match_expressions: Some(vec![(*e).clone()]),
            }))
            .is_nothing()
        });
        return Err(match bad {
            Some(e) if !["In", "NotIn", "Exists", "DoesNotExist"].contains(&e.operator.as_str()) => {
                format!("{:?} is not a valid label selector operator", e.operator)
            }
            Some(e) => format!(
                "invalid label selector requirement on key {:?} with operator {:?}",
                e.key, e.operator
            ),
            None => "invalid label selector".to_string(),
        });
    }
    Ok(s)
}

/// `mergeLabelSetWithSelector`: the pod's values of matchLabelKeys as `In` requirements, then
/// the selector's own requirements. A selector that matches nothing stays as it is.
fn merge_label_set(match_labels: &BTreeMap<String, String>, s: Selector) -> Selector {
    match s {
        Selector::Nothing => Selector::Nothing,
        Selector::Requirements(reqs) => {
            let mut out: Vec<Requirement> = match_labels
                .iter()
                .map(|(k, v)| Requirement {
                    key: k.clone(),
                    op: Op::In,
                    values: vec![v.clone()],
                })
                .collect();
            out.extend(reqs);
            Selector::Requirements(out)
        }
    }
}

/// `filterTopologySpreadConstraints`: the constraints with `whenUnsatisfiable == action`,
/// parsed, with matchLabelKeys merged (MatchLabelKeysInPodTopologySpread is on by default from
/// 1.27) and the node inclusion policies defaulted (Honor affinity, Ignore taints).
pub(crate) fn filter_constraints(
    constraints: &[core::TopologySpreadConstraint],
    pod_labels: &Labels,
    action: &str,
) -> Result<Vec<Constraint>, String> {
    let mut out = Vec::new();
    for c in constraints.iter().filter(|c| c.when_unsatisfiable == action) {
        let mut selector = label_selector_as_selector(c.label_selector.as_ref())?;
        let keys = c.match_label_keys.as_deref().unwrap_or_default();
        if !keys.is_empty() {
            let ml: BTreeMap<String, String> = keys
                .iter()
                .filter_map(|k| pod_labels.get(k).map(|v| (k.clone(), v.clone())))
                .collect();
            if !ml.is_empty() {
                selector = merge_label_set(&ml, selector);
            }
        }
        out.push(Constraint {
            max_skew: c.max_skew,
            topology_key: c.topology_key.clone(),
            selector,
            min_domains: c.min_domains.unwrap_or(1),
            honor_node_affinity: c.node_affinity_policy.as_deref().is_none_or(|p| p == HONOR),
            honor_node_taints: c.node_taints_policy.as_deref() == Some(HONOR),
            taint_comparison_operators: false,
        });
    }
    Ok(out)
}

/// The controller owner reference of an object (`metav1.GetControllerOfNoCopy`).
fn controller_of(pod: &Pod) -> Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference> {
    pod.obj
        .metadata
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true))
}

fn meta_is(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta, ns: &str, name: &str) -> bool {
    m.namespace.as_deref().unwrap_or_default() == ns && m.name.as_deref() == Some(name)
}

/// Appends a label selector's requirements (`selector.Add(other.Requirements()...)`); a
/// selector that matches nothing or fails to parse adds nothing.
fn add_requirements(selector: &mut Vec<Requirement>, ls: &LabelSelector) {
    if let Ok(Selector::Requirements(r)) = label_selector_as_selector(Some(ls)) {
        selector.extend(r);
    }
}

/// `helper.DefaultSelector`: the union of the selectors of the Services in the pod's namespace
/// that select it, and of its controlling ReplicationController, ReplicaSet or StatefulSet.
pub(crate) fn default_selector(cluster: &Cluster, pod: &Pod) -> Selector {
    let ns = pod.key.namespace.as_str();
    let mut set: BTreeMap<String, String> = BTreeMap::new();
    for svc in &cluster.services {
        if svc.metadata.namespace.as_deref().unwrap_or_default() != ns {
            continue;
        }
        let Some(sel) = svc.spec.as_ref().and_then(|s| s.selector.as_ref()) else {
            continue;
        };
        if Selector::from_map(sel).matches(&pod.labels) {
            set.extend(sel.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    let as_reqs = |set: &BTreeMap<String, String>| -> Vec<Requirement> {
        set.iter()
            .map(|(k, v)| Requirement {
                key: k.clone(),
                op: Op::In,
                values: vec![v.clone()],
            })
            .collect()
    };
    let mut reqs = as_reqs(&set);
    let Some(owner) = controller_of(pod) else {
        return Selector::Requirements(reqs);
    };
    match (owner.api_version.as_str(), owner.kind.as_str()) {
        ("v1", "ReplicationController") => {
            if let Some(rc) = cluster
                .replication_controllers
                .iter()
                .find(|r| meta_is(&r.metadata, ns, &owner.name))
            {
                if let Some(sel) = rc.spec.as_ref().and_then(|s| s.selector.as_ref()) {
                    set.extend(sel.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                reqs = as_reqs(&set);
            }
        }
        ("apps/v1", "ReplicaSet") => {
            if let Some(rs) = cluster
                .replica_sets
                .iter()
                .find(|r| meta_is(&r.metadata, ns, &owner.name))
            {
                add_requirements(&mut reqs, &rs.spec.selector);
            }
        }
        ("apps/v1", "StatefulSet") => {
            if let Some(ss) = cluster
                .stateful_sets
                .iter()
                .find(|r| meta_is(&r.metadata, ns, &owner.name))
            {
                add_requirements(&mut reqs, &ss.spec.selector);
            }
        }
        _ => {}
    }
    Selector::Requirements(reqs)
}

/// `nodeLabelsMatchSpreadConstraints`: the node has every constraint's topology key.
pub(crate) fn node_has_all_keys(labels: &Labels, constraints: &[Constraint]) -> bool {
    constraints.iter().all(|c| labels.contains_key(&c.topology_key))
}

/// `countPodsMatchSelector`: pods of the namespace, not terminating, that the selector
/// matches; an empty selector counts nothing.
pub(crate) fn count_matching(pods: &[std::sync::Arc<PodInfo>], selector: &Selector, ns: &str) -> i64 {
    if selector.is_empty() {
        return 0;
    }
    pods.iter()
        .filter(|p| !p.pod.terminating && p.pod.key.namespace == ns && selector.matches(&p.pod.labels))
        .count() as i64
}

/// Counts on one node.
pub(crate) fn count_on_node(node: &NodeInfo, selector: &Selector, ns: &str) -> i64 {
    count_matching(&node.pods, selector, ns)
}

/// The count slots and each constraint's slot. Up to 1.32 upstream keys its counts by topology
/// key, so constraints that share a key share their counts; from 1.33 (kubernetes#129119) every
/// constraint has its own. Only pods the API server rejects (two constraints with the same key
/// and action) can tell the difference.
pub(crate) fn key_slots(constraints: &[Constraint], per_constraint: bool) -> (Vec<String>, Vec<usize>) {
    let mut keys: Vec<String> = Vec::new();
    let mut slots = Vec::with_capacity(constraints.len());
    for c in constraints {
        let shared = if per_constraint {
            None
        } else {
            keys.iter().position(|k| *k == c.topology_key)
        };
        match shared {
            Some(i) => slots.push(i),
            None => {
                keys.push(c.topology_key.clone());
                slots.push(keys.len() - 1);
            }
        }
    }
    (keys, slots)
}

/// FNV-1a, for the string interner of [`PodTable`] (short label strings, no untrusted
/// adversary: the snapshot is the user's own).
#[derive(Default)]
pub(crate) struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// A selector compiled against a [`PodTable`]: label keys and values as interned ids.
#[derive(Clone, Debug)]
pub(crate) enum CompiledSelector {
    /// Matches nothing.
    Nothing,
    /// All requirements must hold.
    Reqs(Vec<CompiledReq>),
    /// The selector uses an operator the table cannot evaluate: count with the selector.
    Fallback,
}

/// One compiled requirement.
#[derive(Clone, Debug)]
pub(crate) struct CompiledReq {
    key: Option<u32>,
    op: Op,
    values: Vec<u32>,
}

/// One pod of a node, in a [`PodTable`].
#[derive(Clone, Copy, Debug)]
struct Row {
    ns: u32,
    terminating: bool,
    start: u32,
    len: u32,
}

/// The labels, namespaces and terminating flags of every pod on every node of a snapshot,
/// interned and laid out node by node, so counting the pods a selector matches touches
/// contiguous memory instead of every pod's label map. Built once per cluster.
#[derive(Debug, Default)]
pub(crate) struct PodTable {
    strings: std::collections::HashMap<String, u32, std::hash::BuildHasherDefault<Fnv>>,
    node_start: Vec<u32>,
    rows: Vec<Row>,
    labels: Vec<(u32, u32)>,
}

impl PodTable {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.strings.get(s) {
            return id;
        }
        let id = self.strings.len() as u32;
        self.strings.insert(s.to_string(), id);
        id
    }

    /// Builds the table from the snapshot's nodes.
    pub(crate) fn build(nodes: &[NodeInfo]) -> Self {
        let pods: usize = nodes.iter().map(|n| n.pods.len()).sum();
        let mut t = PodTable {
            node_start: Vec::with_capacity(nodes.len() + 1),
            rows: Vec::with_capacity(pods),
            labels: Vec::with_capacity(pods * 4),
            ..Default::default()
        };
        t.node_start.push(0);
        let mut last_ns: Option<(&str, u32)> = None;
        for n in nodes {
            for p in &n.pods {
                let name = p.pod.key.namespace.as_str();
                let ns = match last_ns {
                    Some((s, id)) if s == name => id,
                    _ => {
                        let id = t.intern(name);
                        last_ns = Some((name, id));
                        id
                    }
                };
                let start = t.labels.len() as u32;
                for (k, v) in &p.pod.labels {
                    let (k, v) = (t.intern(k), t.intern(v));
                    t.labels.push((k, v));
                }
                t.labels[start as usize..].sort_unstable();
                let len = t.labels.len() as u32 - start;
                t.rows.push(Row {
                    ns,
                    terminating: p.pod.terminating,
                    start,
                    len,
                });
            }
            t.node_start.push(t.rows.len() as u32);
        }
        t
    }

    /// Whether the table still describes these nodes (same number of nodes and of pods on each).
    pub(crate) fn fits(&self, nodes: &[NodeInfo]) -> bool {
        self.node_start.len() == nodes.len() + 1
            && nodes
                .iter()
                .enumerate()
                .all(|(i, n)| (self.node_start[i + 1] - self.node_start[i]) as usize == n.pods.len())
    }

    /// Compiles a selector.
    pub(crate) fn compile(&self, s: &Selector) -> CompiledSelector {
        match s {
            Selector::Nothing => CompiledSelector::Nothing,
            Selector::Requirements(reqs) => {
                let mut out = Vec::with_capacity(reqs.len());
                for r in reqs {
                    if matches!(r.op, Op::Gt | Op::Lt) {
                        return CompiledSelector::Fallback;
                    }
                    out.push(CompiledReq {
                        key: self.strings.get(&r.key).copied(),
                        op: r.op,
                        values: r.values.iter().filter_map(|v| self.strings.get(v).copied()).collect(),
                    });
                }
                CompiledSelector::Reqs(out)
            }
        }
    }

    fn row_matches(&self, row: &Row, reqs: &[CompiledReq]) -> bool {
        let labels = &self.labels[row.start as usize..(row.start + row.len) as usize];
        reqs.iter().all(|r| {
            let v = r
                .key
                .and_then(|k| labels.iter().find(|(lk, _)| *lk == k).map(|(_, v)| *v));
            match r.op {
                Op::In => v.is_some_and(|v| r.values.contains(&v)),
                Op::NotIn => v.is_none_or(|v| !r.values.contains(&v)),
                Op::Exists => v.is_some(),
                Op::DoesNotExist => v.is_none(),
                Op::Gt | Op::Lt => false,
            }
        })
    }

    /// The id of an interned string (None when no pod uses it).
    pub(crate) fn id(&self, s: &str) -> Option<u32> {
        self.strings.get(s).copied()
    }

    /// The rows of the node at `node_idx`, in the order of its `pods`.
    pub(crate) fn node_rows(&self, node_idx: usize) -> std::ops::Range<usize> {
        self.node_start[node_idx] as usize..self.node_start[node_idx + 1] as usize
    }

    /// The namespace id of a row.
    pub(crate) fn row_ns(&self, row: usize) -> u32 {
        self.rows[row].ns
    }

    /// Whether the labels of a row satisfy every compiled requirement (terminating or not).
    pub(crate) fn row_labels_match(&self, row: usize, reqs: &[CompiledReq]) -> bool {
        self.row_matches(&self.rows[row], reqs)
    }

    /// `countPodsMatchSelector` on the node at `node_idx` of the snapshot the table was built
    /// from. `selector` is the uncompiled form (for the empty check and the fallback).
    pub(crate) fn count(
        &self,
        node: &NodeInfo,
        node_idx: usize,
        selector: &Selector,
        compiled: &CompiledSelector,
        ns: &str,
    ) -> i64 {
        if selector.is_empty() {
            return 0;
        }
        let reqs = match compiled {
            CompiledSelector::Nothing => return 0,
            CompiledSelector::Fallback => return count_on_node(node, selector, ns),
            CompiledSelector::Reqs(r) => r,
        };
        let Some(&ns) = self.strings.get(ns) else {
            return 0;
        };
        let rows = &self.rows[self.node_start[node_idx] as usize..self.node_start[node_idx + 1] as usize];
        rows.iter()
            .filter(|r| !r.terminating && r.ns == ns && self.row_matches(r, reqs))
            .count() as i64
    }
}

/// Counts the matching pods of each constraint of a cycle on a snapshot node: from the pod
/// table with the selectors compiled once, or pod by pod when there is no table.
#[derive(Debug)]
pub(crate) struct Counter {
    table: Option<std::sync::Arc<PodTable>>,
    selectors: Vec<(Selector, CompiledSelector)>,
}

impl Counter {
    /// A counter for these constraints.
    pub(crate) fn new(table: Option<std::sync::Arc<PodTable>>, constraints: &[Constraint]) -> Self {
        let selectors = constraints
            .iter()
            .map(|c| {
                let compiled = table
                    .as_ref()
                    .map_or(CompiledSelector::Fallback, |t| t.compile(&c.selector));
                (c.selector.clone(), compiled)
            })
            .collect();
        Counter { table, selectors }
    }

    /// Matching pods of constraint `i` on `node`, the snapshot's node at `node_idx`.
    pub(crate) fn count(&self, node: &NodeInfo, node_idx: usize, i: usize, ns: &str) -> i64 {
        let (sel, compiled) = &self.selectors[i];
        match &self.table {
            Some(t) => t.count(node, node_idx, sel, compiled, ns),
            None => count_on_node(node, sel, ns),
        }
    }
}

/// A [`PodTable`] cached for the cluster it was built from. The `Weak` keeps the cluster's
/// allocation, so no other cluster can take its address while it is cached.
#[derive(Debug, Default)]
pub(crate) struct PodTableCache {
    slot: std::sync::Mutex<CacheSlot>,
}

type CacheSlot = Option<(std::sync::Weak<Cluster>, u32, Option<std::sync::Arc<PodTable>>)>;

/// Counting passes over a cluster made pod by pod before the table is built: building it
/// costs about two such passes, and one explanation makes one or two.
const PASSES_BEFORE_TABLE: u32 = 2;

impl PodTableCache {
    /// The table of this snapshot. The first counting passes over a cluster get None and count
    /// pod by pod; the next builds the table, which is then reused while the snapshot's cluster
    /// and its pods per node are the same.
    pub(crate) fn get(
        &self,
        snapshot: &crate::engine::framework::snapshot::Snapshot,
    ) -> Option<std::sync::Arc<PodTable>> {
        let mut slot = self.slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let same = slot
            .as_ref()
            .is_some_and(|(w, _, _)| std::ptr::eq(w.as_ptr(), std::sync::Arc::as_ptr(&snapshot.cluster)));
        if !same {
            *slot = Some((std::sync::Arc::downgrade(&snapshot.cluster), 1, None));
            return None;
        }
        if let Some((_, passes, table)) = slot.as_mut() {
            if let Some(t) = table
                && t.fits(&snapshot.nodes)
            {
                return Some(t.clone());
            }
            if *passes < PASSES_BEFORE_TABLE {
                *passes += 1;
                return None;
            }
        }
        let t = std::sync::Arc::new(PodTable::build(&snapshot.nodes));
        *slot = Some((
            std::sync::Arc::downgrade(&snapshot.cluster),
            PASSES_BEFORE_TABLE,
            Some(t.clone()),
        ));
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testkit::{node, pod, snapshot};
    use super::*;

    // The pod table counts exactly what countPodsMatchSelector counts, selector by selector.
    #[test]
    fn pod_table_counts_like_count_pods_match_selector() {
        let snap = snapshot(
            vec![node("n1"), node("n2"), node("n3")],
            vec![
                pod("a").node("n1").label("app", "web").label("tier", "fe"),
                pod("b").node("n1").label("app", "web"),
                pod("c").node("n1").label("app", "db").terminating(),
                pod("d").ns("other").node("n1").label("app", "web"),
                pod("e").node("n2").label("tier", "be"),
                pod("f").node("n2"),
                pod("g").node("n3").label("app", "web").label("zone", ""),
            ],
            vec![],
        );
        let table = PodTable::build(&snap.nodes);
        assert!(table.fits(&snap.nodes));
        let sels = [
            json!(null),
            json!({}),
            json!({"matchLabels": {"app": "web"}}),
            json!({"matchLabels": {"app": "web", "tier": "fe"}}),
            json!({"matchLabels": {"app": "unknown"}}),
            json!({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["db", "nope"]}]}),
            json!({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}),
            json!({"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}),
            json!({"matchExpressions": [{"key": "missing", "operator": "DoesNotExist"}]}),
            json!({"matchExpressions": [{"key": "zone", "operator": "In", "values": [""]}]}),
        ];
        for v in sels {
            let ls: Option<LabelSelector> = serde_json::from_value(v.clone()).expect("selector");
            let sel = label_selector_as_selector(ls.as_ref()).expect("valid");
            let compiled = table.compile(&sel);
            for ns in ["default", "other", "absent"] {
                for (i, n) in snap.nodes.iter().enumerate() {
                    assert_eq!(
                        table.count(n, i, &sel, &compiled, ns),
                        count_on_node(n, &sel, ns),
                        "{v} {ns} {}",
                        n.name()
                    );
                }
            }
        }
        // Counting example: app=web in default on n1 is a and b (c is terminating, d elsewhere).
        let sel = Selector::from_map(&[("app".to_string(), "web".to_string())].into());
        assert_eq!(table.count(&snap.nodes[0], 0, &sel, &table.compile(&sel), "default"), 2);
    }

    #[test]
    fn pod_table_cache_builds_on_third_use_and_follows_the_cluster() {
        let snap = snapshot(vec![node("n1")], vec![pod("a").node("n1").label("app", "web")], vec![]);
        let cache = PodTableCache::default();
        assert!(cache.get(&snap).is_none());
        assert!(cache.get(&snap).is_none());
        let t1 = cache.get(&snap).expect("built on third use");
        let t2 = cache.get(&snap).expect("reused");
        assert!(std::sync::Arc::ptr_eq(&t1, &t2));
        let other = snapshot(vec![node("n1")], vec![], vec![]);
        assert!(cache.get(&other).is_none());
        assert!(cache.get(&other).is_none());
        let t3 = cache.get(&other).expect("rebuilt for the other cluster");
        assert!(t3.fits(&other.nodes) && !t3.fits(&snap.nodes));
    }
}
