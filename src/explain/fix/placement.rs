//! Fix hints about where the pod may go: preemption already placing it, existing pods'
//! anti-affinity, node labels for its selector, host ports, its own (anti-)affinity terms
//! made preferred, a relaxed spread constraint.

use std::collections::BTreeMap;

use super::{Change, Fix, immutable, json, only, owner, reason_of};
use crate::engine::trace::{Explanation, FilterDetail, NodeFilter};
use crate::model::{Cluster, Node, ObjectKey, Pod};

/// "The pod will fit by preempting N victims on X": PostFilter nominated a node.
pub(super) fn preemption_fix(pod: &Pod, ex: &Explanation) -> Option<Fix> {
    let pf = ex.post_filter.as_ref()?;
    let node = pf.nominated_node.clone()?;
    let n = pf.victims.len();
    let mut names: Vec<String> = pf.victims.iter().take(3).map(ToString::to_string).collect();
    if n > 3 {
        names.push(format!("{} more", n - 3));
    }
    // upstream's words for it: the PostFilter part of the condition message
    let reason = ex
        .message
        .as_deref()
        .and_then(|m| m.split_once(". preemption: "))
        .map_or_else(
            || format!("{} nominates {node}", pf.plugin),
            |(_, p)| format!("preemption: {p}"),
        );
    let mut note = format!(
        "nothing to change: kube-scheduler deletes the victims itself and binds the pod there once they are gone (`kschedtui preempt -n {} {}` does it now); the changes below avoid the evictions",
        pod.key.namespace, pod.key.name
    );
    if let Some(c) = pf.candidates.iter().find(|c| c.selected)
        && !c.violated_pdbs.is_empty()
    {
        let p: Vec<String> = c.violated_pdbs.iter().map(ToString::to_string).collect();
        note.push_str(&format!("; the evictions violate PDB {}", p.join(", ")));
    }
    if pf.random_tie.len() > 1 {
        note.push_str(&format!(
            "; upstream picks among {} at random (they tie on every criterion)",
            pf.random_tie.join(", ")
        ));
    }
    Some(Fix {
        reason,
        text: format!(
            "the pod will fit by preempting {n} victim{} on {node} ({})",
            if n == 1 { "" } else { "s" },
            names.join(", ")
        ),
        command: None,
        note: Some(note),
        change: Change::Preempt {
            node,
            victims: pf.victims.clone(),
        },
    })
}

/// The existing pods whose required anti-affinity matches the pod, read from the rejecting
/// plugin's detail lines on a node: (pod, the node it runs on).
pub(super) fn anti_affinity_holders(f: &NodeFilter) -> Vec<(ObjectKey, String)> {
    let mut out = Vec::new();
    for line in f.detail.get() {
        let Some(rest) = line.strip_prefix("existing pods in ") else {
            continue;
        };
        let Some((_, rest)) = rest.split_once(" whose required anti-affinity matches this pod: ") else {
            continue;
        };
        let names = rest.rsplit_once(" (").map_or(rest, |(n, _)| n);
        for item in names.split(", ") {
            if let Some((pod, node)) = item.strip_suffix(')').and_then(|i| i.split_once(" (node ")) {
                let key = ObjectKey::parse(pod, "");
                if !out.iter().any(|(k, _)| *k == key) {
                    out.push((key, node.to_string()));
                }
            }
        }
    }
    out
}

/// Existing pods' required anti-affinity: on the node failing only InterPodAffinity for it
/// with the fewest such pods, name them and where they run; checked with them gone.
pub(super) fn existing_anti_affinity_fix(cluster: &Cluster, ex: &Explanation) -> Option<Fix> {
    let (f, holders) = only(ex, "InterPodAffinity")
        .into_iter()
        .filter(|f| reason_of(f, "InterPodAffinity").contains("existing pods anti-affinity"))
        .map(|f| (f, anti_affinity_holders(f)))
        .filter(|(_, h)| !h.is_empty() && h.iter().all(|(k, _)| cluster.pod(k).is_some()))
        .min_by_key(|(_, h)| h.len())?;
    let names: Vec<String> = holders.iter().map(|(k, n)| format!("{k} on {n}")).collect();
    Some(Fix {
        reason: reason_of(f, "InterPodAffinity"),
        text: format!(
            "the required anti-affinity of {} keeps the pod off {}",
            names.join(", "),
            f.node
        ),
        command: None,
        note: Some("their terms match this pod's labels, on purpose or not: change this pod's labels, or make their owners' term preferred; the check moves them off (removes them from the copy)".into()),
        change: Change::ExistingAntiAffinity {
            node: f.node.to_string(),
            pods: holders.into_iter().map(|(k, _)| k).collect(),
        },
    })
}

/// Labels the kubelet or the cloud provider sets from what the node is.
pub(super) const DESCRIPTIVE: &[&str] = &[
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "node.kubernetes.io/instance-type",
    "beta.kubernetes.io/instance-type",
    "kubernetes.io/arch",
    "kubernetes.io/os",
];

/// Labels that make `node` match the pod's nodeSelector and the first required node affinity
/// term made only of `In` expressions (None when something else is needed).
pub(super) fn labels_for(pod: &Pod, node: &Node) -> Option<Vec<(String, String)>> {
    let spec = pod.spec();
    let mut want: BTreeMap<String, String> = spec.node_selector.clone().unwrap_or_default();
    if let Some(terms) = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref())
        .map(|r| &r.node_selector_terms)
        && let Some(term) = terms.first()
    {
        if term.match_fields.as_ref().is_some_and(|f| !f.is_empty()) {
            return None;
        }
        for e in term.match_expressions.iter().flatten() {
            let values = e.values.clone().unwrap_or_default();
            match e.operator.as_str() {
                "In" => {
                    let have = node.labels.get(&e.key);
                    if !have.is_some_and(|h| values.iter().any(|v| v == h)) {
                        want.insert(e.key.clone(), values.first()?.clone());
                    }
                }
                _ => {
                    // NotIn, Exists, DoesNotExist, Gt, Lt: not made true by one label here
                    return None;
                }
            }
        }
    }
    let missing: Vec<(String, String)> = want
        .into_iter()
        .filter(|(k, v)| node.labels.get(k) != Some(v))
        .collect();
    // the pod asks for one node by name: another node is no answer
    if missing.iter().any(|(k, _)| k == "kubernetes.io/hostname") {
        return None;
    }
    (!missing.is_empty()).then_some(missing)
}

/// Free the host port on the first node that fails only NodePorts: the bound pods holding it.
pub(super) fn ports_fix(cluster: &Cluster, pod: &Pod, ex: &Explanation) -> Option<Fix> {
    let f = only(ex, "NodePorts").into_iter().next()?;
    let want: Vec<&crate::model::HostPort> = pod.host_ports().iter().chain(pod.sidecar_host_ports()).collect();
    let mut holders = Vec::new();
    let mut ports = Vec::new();
    for p in cluster
        .pods
        .iter()
        .filter(|p| p.node_name.as_deref() == Some(&f.node) && !p.is_finished())
    {
        let used: Vec<crate::model::HostPort> = p.host_ports().iter().chain(p.sidecar_host_ports()).cloned().collect();
        let clash: Vec<String> = want
            .iter()
            .filter(|w| crate::engine::plugins::node_ports::conflicts(&used, w))
            .map(|w| format!("{}/{}", w.protocol, w.port))
            .collect();
        if !clash.is_empty() {
            holders.push(p.key.clone());
            ports.extend(clash);
        }
    }
    if holders.is_empty() {
        return None;
    }
    ports.sort();
    ports.dedup();
    let names: Vec<String> = holders.iter().map(ToString::to_string).collect();
    let commands: Vec<String> = holders
        .iter()
        .map(|k| format!("kubectl delete pod {} -n {}", k.name, k.namespace))
        .collect();
    Some(Fix {
        reason: reason_of(f, "NodePorts"),
        text: format!(
            "free host port {} on {}: delete {} (holds it)",
            ports.join(", "),
            f.node,
            names.join(", ")
        ),
        command: Some(commands.join(" && ")),
        note: Some("the pod holding the port is usually an older copy of this one (a DaemonSet rollout): its owner recreates it unless it is gone from the owner too".into()),
        change: Change::DeletePods(holders),
    })
}

/// The pod's own required (anti-)affinity terms, each made preferred, when some node fails only
/// InterPodAffinity because of them (the existing pods' anti-affinity is theirs to change).
pub(super) fn affinity_fixes(pod: &Pod, ex: &Explanation) -> Vec<Fix> {
    let nodes = only(ex, "InterPodAffinity");
    let reasons: Vec<String> = nodes.iter().map(|f| reason_of(f, "InterPodAffinity")).collect();
    let aff = pod.spec().affinity.as_ref();
    let mut out = Vec::new();
    for (anti, marker) in [
        (true, "didn't match pod anti-affinity rules"),
        (false, "didn't match pod affinity rules"),
    ] {
        let Some(reason) = reasons.iter().find(|r| r.contains(marker)) else {
            continue;
        };
        let terms = if anti {
            aff.and_then(|a| a.pod_anti_affinity.as_ref())
                .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref())
        } else {
            aff.and_then(|a| a.pod_affinity.as_ref())
                .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref())
        };
        for (index, t) in terms.into_iter().flatten().enumerate().take(4) {
            let selector = t
                .label_selector
                .as_ref()
                .and_then(|s| s.match_labels.as_ref())
                .map(|m| m.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","))
                .filter(|s| !s.is_empty())
                .map(|s| format!(", {s}"))
                .unwrap_or_default();
            let kind = if anti { "anti-affinity" } else { "affinity" };
            out.push(Fix {
                reason: reason.clone(),
                text: format!(
                    "make the pod's required {kind} term ({}{selector}) preferred",
                    t.topology_key
                ),
                command: None,
                note: Some(immutable(pod, "affinity")),
                change: Change::PreferTerm { anti, index },
            });
        }
    }
    out
}

/// Relax the first failing DoNotSchedule spread constraint to the smallest skew a node needs.
pub(super) fn spread_fix(pod: &Pod, ex: &Explanation) -> Option<Fix> {
    let nodes = only(ex, "PodTopologySpread");
    let mut best: Option<(i64, String, &str)> = None;
    for f in &nodes {
        for d in &f.details {
            let FilterDetail::TopologySpread(checks) = d;
            if let Some(c) = checks.iter().find(|c| !c.satisfied)
                && let Some(skew) = c.skew
                && best.as_ref().is_none_or(|(s, _, _)| skew < *s)
            {
                best = Some((skew, c.topology_key.clone(), &f.node));
            }
        }
    }
    let (skew, key, node) = best?;
    let constraints = pod.spec().topology_spread_constraints.as_ref()?;
    let (i, c) = constraints
        .iter()
        .enumerate()
        .find(|(_, c)| c.topology_key == key && c.when_unsatisfiable == "DoNotSchedule")?;
    let to = i32::try_from(skew).ok()?;
    let reason = nodes
        .iter()
        .find(|f| f.node == node)
        .map(|f| reason_of(f, "PodTopologySpread"))?;
    Some(Fix {
        reason,
        text: format!("relax the spread constraint on {key}: maxSkew {} → {to}", c.max_skew),
        command: owner(pod).map(|(kind, o)| {
            let patch = serde_json::json!([{"op": "replace", "path": format!("/spec/template/spec/topologySpreadConstraints/{i}/maxSkew"), "value": to}]);
            format!("kubectl patch {kind} {o} -n {} --type=json -p '{}'", pod.key.namespace, json(&patch))
        }),
        note: Some(immutable(pod, "topologySpreadConstraints")),
        change: Change::MaxSkew(i, key, to),
    })
}
