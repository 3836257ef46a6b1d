//! Port of framework/plugins/podtopologyspread/common.go and helper/spread.go (v1.30.6): the
//! parsed constraint, node inclusion policies, the selector merge of matchLabelKeys, the
//! system-default selector built from the pod's Services and controllers, and pod counting.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::engine::framework::index::labels::LabelColumns;
pub(crate) use crate::engine::framework::index::pods::{CompiledSelector, PodTable};
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
        self.includes_node_at(pod, node, required, None)
    }

    /// [`Constraint::includes_node`]; `at`: the snapshot's label columns and the node's
    /// position in them (the same answer, read from the columns).
    pub(crate) fn includes_node_at(
        &self,
        pod: &Pod,
        node: &Node,
        required: &RequiredNodeAffinity,
        at: Option<(&LabelColumns, usize)>,
    ) -> bool {
        if self.honor_node_affinity && !required.matches_at(at, &node.labels, &node.name) {
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

/// `countPodsMatchSelector` on the node at `node_idx` of the snapshot the table was built
/// from. `selector` is the uncompiled form (for the empty check and the fallback).
pub(crate) fn table_count(
    table: &PodTable,
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
    let Some(ns) = table.id(ns) else {
        return 0;
    };
    table
        .node_rows(node_idx)
        .filter(|&r| !table.row_terminating(r) && table.row_ns(r) == ns && table.row_labels_match(r, reqs))
        .count() as i64
}

/// Counts the matching pods of each constraint of a cycle on a snapshot node: from the pod
/// table with the selectors compiled once, or pod by pod when there is no table.
#[derive(Debug)]
pub(crate) struct Counter {
    table: Option<std::sync::Arc<PodTable>>,
    selectors: Vec<(Selector, CompiledSelector)>,
    /// The namespace counted in, and per constraint the counts of every node when the table
    /// could compute them at once.
    ns: String,
    per_node: Vec<Option<Vec<i64>>>,
}

impl Counter {
    /// A counter for these constraints.
    pub(crate) fn new(table: Option<std::sync::Arc<PodTable>>, constraints: &[Constraint], ns: &str) -> Self {
        let selectors: Vec<(Selector, CompiledSelector)> = constraints
            .iter()
            .map(|c| {
                let compiled = table
                    .as_ref()
                    .map_or(CompiledSelector::Fallback, |t| t.compile(&c.selector));
                (c.selector.clone(), compiled)
            })
            .collect();
        let per_node = selectors
            .iter()
            .map(|(sel, compiled)| table.as_ref().and_then(|t| t.counts_per_node(sel, compiled, ns)))
            .collect();
        Counter {
            table,
            selectors,
            ns: ns.to_string(),
            per_node,
        }
    }

    /// Matching pods of constraint `i` on `node`, the snapshot's node at `node_idx`, in
    /// namespace `ns`.
    pub(crate) fn count(&self, node: &NodeInfo, node_idx: usize, i: usize, ns: &str) -> i64 {
        if ns == self.ns
            && let Some(Some(counts)) = self.per_node.get(i)
            && let Some(&n) = counts.get(node_idx)
        {
            return n;
        }
        let (sel, compiled) = &self.selectors[i];
        match &self.table {
            Some(t) => table_count(t, node, node_idx, sel, compiled, ns),
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
        if let Some(t) = &snapshot.pod_table {
            return Some(t.clone());
        }
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
            // An In requirement narrows; the others are checked on what it found.
            json!({"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}),
            json!({"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "db"]},
                {"key": "app", "operator": "NotIn", "values": ["db"]}]}),
            json!({"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "db"]},
                {"key": "tier", "operator": "In", "values": ["fe", "be"]}]}),
        ];
        for v in sels {
            let ls: Option<LabelSelector> = serde_json::from_value(v.clone()).expect("selector");
            let sel = label_selector_as_selector(ls.as_ref()).expect("valid");
            let compiled = table.compile(&sel);
            // Every namespace: the rows the index finds are exactly the rows that match.
            if let CompiledSelector::Reqs(reqs) = &compiled
                && let Some(rows) = table.matching_rows(reqs, None)
            {
                let all: Vec<u32> = (0..7u32)
                    .filter(|&r| table.row_labels_match(r as usize, reqs))
                    .collect();
                assert_eq!(rows, all, "{v}: rows in every namespace");
            }
            for ns in ["default", "other", "absent"] {
                // The label index counts every node at once, when an In requirement narrows it.
                let per_node = table.counts_per_node(&sel, &compiled, ns);
                for (i, n) in snap.nodes.iter().enumerate() {
                    assert_eq!(
                        table_count(&table, n, i, &sel, &compiled, ns),
                        count_on_node(n, &sel, ns),
                        "{v} {ns} {}",
                        n.name()
                    );
                    if let Some(c) = &per_node {
                        assert_eq!(c[i], count_on_node(n, &sel, ns), "index: {v} {ns} {}", n.name());
                    }
                }
            }
        }
        // Counting example: app=web in default on n1 is a and b (c is terminating, d elsewhere).
        let sel = Selector::from_map(&[("app".to_string(), "web".to_string())].into());
        assert_eq!(
            table_count(&table, &snap.nodes[0], 0, &sel, &table.compile(&sel), "default"),
            2
        );
        assert_eq!(
            table
                .counts_per_node(&sel, &table.compile(&sel), "default")
                .map(|c| c[0]),
            Some(2)
        );
    }

    #[test]
    fn pod_table_cache_builds_on_third_use_and_follows_the_cluster() {
        let mut snap = snapshot(vec![node("n1")], vec![pod("a").node("n1").label("app", "web")], vec![]);
        let cache = PodTableCache::default();
        // A snapshot as built carries its table: the first use already has it.
        let built = snap.pod_table.clone().expect("built with the snapshot");
        assert!(std::sync::Arc::ptr_eq(
            &cache.get(&snap).expect("the snapshot's"),
            &built
        ));
        // A changed snapshot has none: the cache counts passes, then builds one.
        snap.pod_table = None;
        assert!(cache.get(&snap).is_none());
        assert!(cache.get(&snap).is_none());
        let t1 = cache.get(&snap).expect("built on third use");
        let t2 = cache.get(&snap).expect("reused");
        assert!(std::sync::Arc::ptr_eq(&t1, &t2));
        let mut other = snapshot(vec![node("n1")], vec![], vec![]);
        other.pod_table = None;
        assert!(cache.get(&other).is_none());
        assert!(cache.get(&other).is_none());
        let t3 = cache.get(&other).expect("rebuilt for the other cluster");
        assert!(t3.fits(&other.nodes) && !t3.fits(&snap.nodes));
    }
}
