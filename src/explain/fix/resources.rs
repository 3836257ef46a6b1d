//! Fix hints about resources: a lowered request, a bigger node, a fresh node of the pool.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use super::{Change, Fix, immutable, only, owner, quantity, reason_of};
use crate::engine::Features;
use crate::engine::trace::{Explanation, NodeFilter};
use crate::explain::usage::{self as analysis, NodeUsage};
use crate::model::{Cluster, Pod};

/// Lower the pod's requests to fit the node that needs least, and a node like it with more.
pub(super) fn resource_fixes(
    cluster: &Cluster,
    usage: &BTreeMap<String, NodeUsage>,
    features: &Features,
    pod: &Pod,
    ex: &Explanation,
    out: &mut Vec<Fix>,
) {
    let nominated = analysis::nominated_usage(cluster, pod, features);
    let mut best: Option<(i64, &NodeFilter, Vec<analysis::Missing>)> = None;
    for f in only(ex, "NodeResourcesFit") {
        let Some(node) = cluster.node(&f.node) else { continue };
        let m = analysis::missing(
            pod,
            node,
            usage.get(f.node.as_str()),
            nominated.get(f.node.as_str()),
            features,
        );
        if m.is_empty() {
            continue;
        }
        let worst = m.iter().map(|x| x.per_mille).max().unwrap_or(0);
        if best.as_ref().is_none_or(|(w, _, _)| worst < *w) {
            best = Some((worst, f, m));
        }
    }
    let Some((_, f, missing)) = best else { return };
    let reason = reason_of(f, "NodeResourcesFit");
    let requests = features.requests_of(pod);
    let lower: Vec<(String, i64, i64)> = missing
        .iter()
        .filter(|m| m.resource != "pods")
        .map(|m| {
            let have = requests.list.get(&m.resource).copied().unwrap_or(0);
            (m.resource.clone(), have - m.amount, m.amount)
        })
        .collect();
    if lower.len() == missing.len() && lower.iter().all(|(_, v, _)| *v > 0) {
        let text: Vec<String> = lower
            .iter()
            .map(|(r, v, _)| format!("{r} to ≤ {}", quantity(r, *v)))
            .collect();
        let container = pod
            .spec()
            .containers
            .first()
            .map(|c| c.name.clone())
            .unwrap_or_default();
        let reqs: Vec<String> = lower
            .iter()
            .map(|(r, v, _)| format!("{r}={}", quantity(r, *v)))
            .collect();
        out.push(Fix {
            reason: reason.clone(),
            text: format!("lower {} to fit {}", text.join(", "), f.node),
            command: owner(pod).map(|(kind, o)| {
                format!(
                    "kubectl set resources {kind} {o} -n {} -c {container} --requests={}",
                    pod.key.namespace,
                    reqs.join(",")
                )
            }),
            note: Some(immutable(pod, "requests")),
            change: Change::LowerRequests(f.node.to_string(), lower),
        });
    }
    if let Some(fresh) = fresh_node_fix(cluster, features, pod, f, &reason) {
        out.push(fresh);
    }
    let more: Vec<(String, i64)> = missing.iter().map(|m| (m.resource.clone(), m.amount)).collect();
    let text: Vec<String> = more
        .iter()
        .map(|(r, v)| {
            if r == "pods" {
                format!("{v} more pod slot{}", if *v == 1 { "" } else { "s" })
            } else {
                format!("{} more {r}", quantity(r, *v))
            }
        })
        .collect();
    out.push(Fix {
        reason,
        text: format!("a node like {} with {} would fit", f.node, text.join(" and ")),
        command: None,
        note: Some("capacity: a bigger instance type in the node pool, or fewer pods on the node".into()),
        change: Change::BiggerNode(f.node.to_string(), more),
    });
}

/// The DaemonSet pods bound to `node` (a fresh node of its pool runs them too).
pub(super) fn daemon_pods<'a>(cluster: &'a Cluster, node: &str) -> impl Iterator<Item = &'a Arc<Pod>> {
    cluster.pods.iter().filter(move |p| {
        p.node_name.as_deref() == Some(node)
            && !p.is_finished()
            && p.obj
                .metadata
                .owner_references
                .iter()
                .flatten()
                .any(|r| r.kind == "DaemonSet" && r.controller == Some(true))
    })
}

/// Whether the pod asks for one node by name (its hostname label or `metadata.name`): a new
/// node is no answer then.
pub(super) fn pinned_to_a_node(pod: &Pod) -> bool {
    let Some(spec) = pod.obj.spec.as_ref() else {
        return false;
    };
    if spec
        .node_selector
        .as_ref()
        .is_some_and(|s| s.contains_key("kubernetes.io/hostname"))
    {
        return true;
    }
    let terms = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref());
    terms.is_some_and(|r| {
        !r.node_selector_terms.is_empty()
            && r.node_selector_terms.iter().all(|t| {
                t.match_fields.iter().flatten().any(|m| m.key == "metadata.name")
                    || t.match_expressions
                        .iter()
                        .flatten()
                        .any(|m| m.key == "kubernetes.io/hostname" && m.operator == "In")
            })
    })
}

/// A fresh node like the one the pod needs least on, when the pod and that node's DaemonSet
/// pods fit its allocatable, the pod is not pinned to a node by name, and the node runs pods
/// other than its DaemonSet's (else a fresh one is the same node): named `<node>-fresh` (a
/// number added while taken).
pub(super) fn fresh_node_fix(
    cluster: &Cluster,
    features: &Features,
    pod: &Pod,
    f: &NodeFilter,
    reason: &str,
) -> Option<Fix> {
    let like = f.node.as_str();
    let node = cluster.node(like)?;
    if pinned_to_a_node(pod) {
        return None;
    }
    let mut need = features.requests_of(pod).resource.clone();
    let mut daemons: usize = 0;
    for d in daemon_pods(cluster, like) {
        daemons += 1;
        let r = &features.requests_of(d).resource;
        need.milli_cpu += r.milli_cpu;
        need.memory += r.memory;
        need.ephemeral_storage += r.ephemeral_storage;
        for (k, v) in &r.scalar {
            *need.scalar.entry(k.clone()).or_default() += v;
        }
    }
    let have = &node.allocatable;
    let fits = need.milli_cpu <= have.milli_cpu
        && need.memory <= have.memory
        && need.ephemeral_storage <= have.ephemeral_storage
        && i64::try_from(daemons).unwrap_or(i64::MAX) < have.allowed_pod_number
        && need
            .scalar
            .iter()
            .all(|(k, v)| *v <= have.scalar.get(k).copied().unwrap_or(0));
    if !fits {
        return None;
    }
    let others = cluster
        .pods
        .iter()
        .filter(|p| p.node_name.as_deref() == Some(like) && !p.is_finished())
        .count()
        - daemons;
    if others == 0 {
        return None;
    }
    let name = std::iter::once(format!("{like}-fresh"))
        .chain((2..).map(|i| format!("{like}-fresh-{i}")))
        .find(|n| cluster.node(n).is_none())?;
    Some(Fix {
        reason: reason.to_string(),
        text: match daemons {
            0 => format!("a fresh node like {like} (its labels, taints and allocatable) would fit"),
            n => format!(
                "a fresh node like {like} (its labels, taints and allocatable, with its {n} DaemonSet pod{}) would fit",
                if n == 1 { "" } else { "s" }
            ),
        },
        command: None,
        note: Some(format!(
            "capacity: scale the node pool of {like} up by one node (as the cluster autoscaler would)"
        )),
        change: Change::FreshNode {
            like: like.to_string(),
            name,
        },
    })
}

pub(super) fn set_request(reqs: &mut Option<BTreeMap<String, K8sQuantity>>, resource: &str, v: i64) {
    reqs.get_or_insert_with(Default::default)
        .insert(resource.to_string(), K8sQuantity(quantity(resource, v)));
}

/// Lowers the pod object's effective request of `resource` by `by`: on the pod-level
/// resources when set, else on the regular containers, largest request first.
pub(super) fn lower_request(pod: &Pod, obj: &mut core::Pod, resource: &str, by: i64) -> Result<(), String> {
    let spec = obj.spec.get_or_insert_with(Default::default);
    let read = |r: Option<&BTreeMap<String, K8sQuantity>>| -> i64 {
        r.and_then(|m| m.get(resource))
            .and_then(|q| crate::model::quantity::Quantity::parse(&q.0).ok())
            .map(|q| if resource == "cpu" { q.milli_value() } else { q.value() })
            .unwrap_or(0)
    };
    if let Some(res) = spec.resources.as_mut()
        && res.requests.as_ref().is_some_and(|r| r.contains_key(resource))
    {
        let have = read(res.requests.as_ref());
        set_request(&mut res.requests, resource, (have - by).max(0));
        return Ok(());
    }
    let mut left = by;
    let mut order: Vec<(usize, i64)> = spec
        .containers
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let r = c.resources.as_ref();
            let req = read(r.and_then(|r| r.requests.as_ref()));
            (
                i,
                if req > 0 {
                    req
                } else {
                    read(r.and_then(|r| r.limits.as_ref()))
                },
            )
        })
        .collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (i, have) in order {
        if left <= 0 {
            break;
        }
        let take = left.min(have);
        if take <= 0 {
            continue;
        }
        let c = &mut spec.containers[i];
        let res = c.resources.get_or_insert_with(Default::default);
        set_request(&mut res.requests, resource, have - take);
        left -= take;
    }
    if left > 0 {
        return Err(format!(
            "pod {}: its containers request too little {resource} to lower it by {}",
            pod.key,
            quantity(resource, by)
        ));
    }
    Ok(())
}
