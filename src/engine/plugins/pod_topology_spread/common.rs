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
pub const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";
/// `v1.LabelTopologyZone`.
pub const LABEL_TOPOLOGY_ZONE: &str = "topology.kubernetes.io/zone";
/// `v1.DoNotSchedule`.
pub const DO_NOT_SCHEDULE: &str = "DoNotSchedule";
/// `v1.ScheduleAnyway`.
pub const SCHEDULE_ANYWAY: &str = "ScheduleAnyway";
/// `v1.NodeInclusionPolicyHonor`.
pub const HONOR: &str = "Honor";
/// `v1.NodeInclusionPolicyIgnore`.
pub const IGNORE: &str = "Ignore";

/// A spread constraint with its selector parsed (`topologySpreadConstraint`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
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
}

impl Constraint {
    /// `matchNodeInclusionPolicies`: whether the node counts as a domain member for this pod.
    pub fn includes_node(&self, pod: &Pod, node: &Node, required: &RequiredNodeAffinity) -> bool {
        if self.honor_node_affinity && !required.matches(&node.labels, &node.name) {
            return false;
        }
        if self.honor_node_taints
            && find_untolerated_taint(&node.taints, &pod.tolerations, |t| {
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
pub fn label_selector_as_selector(ls: Option<&LabelSelector>) -> Result<Selector, String> {
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
            Some(e)
                if !["In", "NotIn", "Exists", "DoesNotExist"].contains(&e.operator.as_str()) =>
            {
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
pub fn filter_constraints(
    constraints: &[core::TopologySpreadConstraint],
    pod_labels: &Labels,
    action: &str,
) -> Result<Vec<Constraint>, String> {
    let mut out = Vec::new();
    for c in constraints
        .iter()
        .filter(|c| c.when_unsatisfiable == action)
    {
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
        });
    }
    Ok(out)
}

/// The controller owner reference of an object (`metav1.GetControllerOfNoCopy`).
fn controller_of(
    pod: &Pod,
) -> Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference> {
    pod.obj
        .metadata
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true))
}

fn meta_is(
    m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    ns: &str,
    name: &str,
) -> bool {
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
pub fn default_selector(cluster: &Cluster, pod: &Pod) -> Selector {
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
pub fn node_has_all_keys(labels: &Labels, constraints: &[Constraint]) -> bool {
    constraints
        .iter()
        .all(|c| labels.contains_key(&c.topology_key))
}

/// `countPodsMatchSelector`: pods of the namespace, not terminating, that the selector
/// matches; an empty selector counts nothing.
pub fn count_matching(pods: &[std::sync::Arc<PodInfo>], selector: &Selector, ns: &str) -> i64 {
    if selector.is_empty() {
        return 0;
    }
    pods.iter()
        .filter(|p| {
            !p.pod.terminating && p.pod.key.namespace == ns && selector.matches(&p.pod.labels)
        })
        .count() as i64
}

/// Counts on one node.
pub fn count_on_node(node: &NodeInfo, selector: &Selector, ns: &str) -> i64 {
    count_matching(&node.pods, selector, ns)
}

/// The count slots and each constraint's slot. Up to 1.32 upstream keys its counts by topology
/// key, so constraints that share a key share their counts; from 1.33 (kubernetes#129119) every
/// constraint has its own. Only pods the API server rejects (two constraints with the same key
/// and action) can tell the difference.
pub fn key_slots(constraints: &[Constraint], per_constraint: bool) -> (Vec<String>, Vec<usize>) {
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
