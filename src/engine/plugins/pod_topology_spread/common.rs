//! Port of framework/plugins/podtopologyspread/common.go and helper/spread.go (v1.30.6): the
//! parsed constraint, node inclusion policies, the selector merge of matchLabelKeys and the
//! system-default selector built from the pod's Services and controllers. Pods are counted
//! (`countPodsMatchSelector`) by the snapshot's index (`index::pods::PodCounter`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::engine::framework::index::{IndexedNode, NodeMatcher};
use crate::engine::plugins::helper::find_untolerated_taint;
use crate::model::selector::{Labels, Op, Requirement, Selector};
use crate::model::{Cluster, Pod};

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
    /// `matchNodeInclusionPolicies`: whether the node counts as a domain member for this pod;
    /// `required` is the pod's required node affinity.
    pub(crate) fn includes_node(&self, pod: &Pod, at: IndexedNode<'_>, required: &NodeMatcher) -> bool {
        if self.honor_node_affinity && !required.matches(at) {
            return false;
        }
        let node = at.node();
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use std::sync::Arc;

    use super::super::testkit::{node, pod, snapshot};
    use super::*;
    use crate::engine::framework::index::pods::{
        PodCounter, PodMatches, PodTable, PodTerm, count_matching, pods_matching_all,
    };

    // The index counts exactly what countPodsMatchSelector counts, selector by selector, and
    // finds the pods a term matches as the walk over every pod does.
    #[test]
    fn the_index_counts_and_matches_pods_as_the_walk() {
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
        let names = |m: &PodMatches| {
            let mut v = Vec::new();
            m.pods.for_each(|p, n| v.push(format!("{} {}", p.pod.key, n.name)));
            v
        };
        let full = Arc::new(PodTable::build(&snap.nodes));
        assert!(full.fits(&snap.nodes));
        // A table built before the last pod of n1 and n3 and both pods of n2 were added (what
        // a simulation's binds do): it holds each node's first pods, the others come after.
        let mut before = snap.nodes.clone();
        before[0].pods.truncate(3);
        before[1].pods.clear();
        before[2].pods.clear();
        let prefix = Arc::new(PodTable::build(&before));
        assert!(prefix.covers(&snap.nodes) && !prefix.fits(&snap.nodes));
        assert_eq!(
            prefix
                .added(&snap.nodes)
                .iter()
                .map(|(i, p)| (*i, p.len()))
                .collect::<Vec<_>>(),
            vec![(0, 1), (1, 2), (2, 1)]
        );
        assert!(full.added(&snap.nodes).is_empty());
        for table in [full, prefix] {
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
                for ns in ["default", "other", "absent"] {
                    let counter = PodCounter::new(Some(table.clone()), [&sel].into_iter(), ns);
                    let walk = PodCounter::new(None, [&sel].into_iter(), ns);
                    for (i, n) in snap.nodes.iter().enumerate() {
                        let want = count_matching(&n.pods, &sel, ns);
                        assert_eq!(counter.count(n, Some(i), 0), want, "{v} {ns} {}", n.name());
                        assert_eq!(walk.count(n, Some(i), 0), want, "walk: {v} {ns} {}", n.name());
                        assert_eq!(counter.count(&n.clone(), None, 0), want, "a copy: {v} {ns}");
                    }
                }
                let one: std::collections::BTreeSet<String> = ["other".to_string()].into();
                for namespaces in [None, Some(&one)] {
                    let terms = [PodTerm {
                        selector: &sel,
                        namespaces,
                    }];
                    let indexed = pods_matching_all(&snap.nodes, Some(&table), &terms, true);
                    let walked = pods_matching_all(&snap.nodes, None, &terms, true);
                    assert_eq!(indexed.per_node, walked.per_node, "{v} {namespaces:?}");
                    assert_eq!(names(&indexed), names(&walked), "{v} {namespaces:?}");
                }
            }
        }
        let table = Arc::new(PodTable::build(&snap.nodes));
        // Counting example: app=web in default on n1 is a and b (c is terminating, d elsewhere).
        let sel = Selector::from_map(&[("app".to_string(), "web".to_string())].into());
        let counter = PodCounter::new(Some(table.clone()), [&sel].into_iter(), "default");
        assert_eq!(counter.count(&snap.nodes[0], Some(0), 0), 2);
        // Two terms: pods that match both, in node order.
        let tier = Selector::from_map(&[("tier".to_string(), "fe".to_string())].into());
        let both = [&sel, &tier].map(|s| PodTerm {
            selector: s,
            namespaces: None,
        });
        let m = pods_matching_all(&snap.nodes, Some(&table), &both, true);
        assert_eq!(
            (names(&m), m.per_node),
            (vec!["default/a n1".to_string()], vec![(0, 1)])
        );
    }

    /// A bind only adds a pod to a node: the snapshot keeps its table (the pod counted after
    /// the node's rows); a pod leaving a node drops it.
    #[test]
    fn a_bind_keeps_the_table_and_a_pod_leaving_a_node_drops_it() {
        let mut snap = snapshot(
            vec![node("n1")],
            vec![pod("a").node("n1").label("app", "web"), pod("p").label("app", "web")],
            vec![],
        );
        let built = snap.pod_table().expect("built with the snapshot");
        let key = |n: &str| crate::model::ObjectKey::new("default", n);
        snap.bind_pod(&key("p"), "n1").expect("binds");
        let kept = snap.pod_table().expect("kept");
        assert!(Arc::ptr_eq(&kept, &built));
        assert!(kept.covers(&snap.nodes) && !kept.fits(&snap.nodes));
        let sel = Selector::from_map(&[("app".to_string(), "web".to_string())].into());
        let counter = PodCounter::new(Some(kept), [&sel].into_iter(), "default");
        assert_eq!(counter.count(&snap.nodes[0], Some(0), 0), 2);
        snap.evict_pod(&key("a")).expect("deletes");
        assert!(snap.pod_table().is_none());
    }

    #[test]
    fn the_pod_table_is_built_again_on_third_use_after_a_change() {
        let mut snap = snapshot(vec![node("n1")], vec![pod("a").node("n1").label("app", "web")], vec![]);
        // A snapshot as built carries its table: the first use already has it.
        let built = snap.pod_table().expect("built with the snapshot");
        assert!(Arc::ptr_eq(&snap.pod_table().expect("the snapshot's"), &built));
        // A changed snapshot has none: the index counts passes, then builds one.
        snap.index.pods = Arc::new(snap.index.pods.changed());
        assert!(snap.pod_table().is_none());
        assert!(snap.pod_table().is_none());
        let t1 = snap.pod_table().expect("built on third use");
        let t2 = snap.pod_table().expect("reused");
        assert!(Arc::ptr_eq(&t1, &t2));
        let mut other = snapshot(vec![node("n1")], vec![], vec![]);
        other.index.pods = Arc::new(snap.index.pods.changed());
        assert!(other.pod_table().is_none());
        assert!(other.pod_table().is_none());
        let t3 = other.pod_table().expect("rebuilt for the other cluster");
        assert!(t3.fits(&other.nodes) && !t3.fits(&snap.nodes));
    }
}
