//! Making a change on a copy of the cluster: the pod, node or objects edited and the
//! cluster built again, refusing what validation would refuse.

use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use super::resources::{daemon_pods, lower_request};
use super::{Change, quantity};
use crate::model::validation;
use crate::model::{Cluster, Node, ObjectKey, Pod};

/// The cluster with the change made.
pub fn apply(cluster: &Cluster, key: &ObjectKey, change: &Change) -> Result<Cluster, String> {
    let pod = cluster
        .pod(key)
        .ok_or_else(|| format!("pod '{key}' is not in the snapshot"))?;
    let node_obj = |n: &str| -> Result<core::Node, String> {
        cluster
            .node(n)
            .map(|x| (*x.obj).clone())
            .ok_or_else(|| format!("node '{n}' is not in the snapshot"))
    };
    match change {
        Change::RemoveGates(_) => {
            let mut obj = pod.obj.clone();
            obj.spec.get_or_insert_with(Default::default).scheduling_gates = None;
            replace_pod(cluster, obj.into_box())
        }
        Change::Tolerate(taints) => {
            let mut obj = pod.obj.clone();
            let tols = obj
                .spec
                .get_or_insert_with(Default::default)
                .tolerations
                .get_or_insert_with(Vec::new);
            for t in taints {
                tols.push(core::Toleration {
                    key: Some(t.key.clone()),
                    operator: Some(if t.value.is_empty() { "Exists" } else { "Equal" }.into()),
                    value: (!t.value.is_empty()).then(|| t.value.clone()),
                    effect: Some(t.effect.clone()),
                    toleration_seconds: None,
                });
            }
            replace_pod(cluster, obj.into_box())
        }
        Change::Uncordon(n) => {
            let mut obj = node_obj(n)?;
            obj.spec.get_or_insert_with(Default::default).unschedulable = None;
            replace_node(cluster, obj)
        }
        Change::LabelNode(n, labels) => {
            let mut obj = node_obj(n)?;
            let l = obj.metadata.labels.get_or_insert_with(Default::default);
            for (k, v) in labels {
                l.insert(k.clone(), v.clone());
            }
            replace_node(cluster, obj)
        }
        Change::LowerRequests(_, to) => {
            let mut obj = pod.obj.clone();
            for (r, _, by) in to {
                lower_request(pod, &mut obj, r, *by)?;
            }
            replace_pod(cluster, obj.into_box())
        }
        Change::FreshNode { like, name } => add_fresh_node(cluster, like, name),
        Change::BiggerNode(n, more) => {
            let node = cluster
                .node(n)
                .ok_or_else(|| format!("node '{n}' is not in the snapshot"))?;
            let mut obj = (*node.obj).clone();
            let status = obj.status.get_or_insert_with(Default::default);
            for (r, by) in more {
                let v = node.allocatable.get(r) + by;
                for list in [&mut status.allocatable, &mut status.capacity] {
                    let m = list.get_or_insert_with(Default::default);
                    let cap = if r == "pods" { v.to_string() } else { quantity(r, v) };
                    m.insert(r.clone(), K8sQuantity(cap));
                }
            }
            replace_node(cluster, obj)
        }
        Change::MaxSkew(i, topology, to) => {
            let mut obj = pod.obj.clone();
            let c = obj
                .spec
                .as_mut()
                .and_then(|s| s.topology_spread_constraints.as_mut())
                .and_then(|c| c.get_mut(*i))
                .filter(|c| c.topology_key == *topology)
                .ok_or_else(|| format!("pod {key}: spec.topologySpreadConstraints[{i}] is not on {topology}"))?;
            c.max_skew = *to;
            replace_pod(cluster, obj.into_box())
        }
        Change::DeletePods(keys) => {
            let mut c = cluster.clone();
            c.pods.retain(|p| !keys.contains(&p.key));
            Ok(c)
        }
        Change::CreateClaim { claim, .. } => {
            Err(format!("ResourceClaim {claim}: its device requests are yours to say"))
        }
        Change::NoDeviceOfClass(class) => Err(format!("DeviceClass {class}: no change to make")),
        Change::ClaimRequest {
            claim,
            request,
            drop_selectors,
            count,
        } => {
            let mut c = cluster.clone();
            let missing = || format!("ResourceClaim {claim} has no request {request}");
            let obj = c
                .resource_claims
                .get_mut(claim)
                .ok_or_else(|| format!("ResourceClaim '{claim}' is not in the snapshot"))?;
            let exactly = obj
                .spec
                .as_mut()
                .and_then(|s| s.devices.as_mut())
                .and_then(|d| d.requests.as_mut())
                .and_then(|r| r.iter_mut().find(|r| r.name == *request))
                .and_then(|r| r.exactly.as_mut())
                .ok_or_else(missing)?;
            if *drop_selectors {
                exactly.selectors = None;
            }
            if let Some(n) = count {
                exactly.count = Some(*n);
                exactly.allocation_mode = Some("ExactCount".into());
            }
            Ok(c)
        }
        Change::ExistingAntiAffinity { pods, .. } => {
            let mut c = cluster.clone();
            c.pods.retain(|p| !pods.contains(&p.key));
            Ok(c)
        }
        Change::Preempt { node, victims } => {
            let mut c = cluster.clone();
            c.pods.retain(|p| !victims.contains(&p.key));
            c.set_nominated_node(key, Some(node)).map_err(|e| e.to_string())?;
            Ok(c)
        }
        Change::PreferTerm { anti, index } => {
            let mut obj = pod.obj.clone();
            let missing = || format!("pod {key}: no required pod (anti-)affinity term {index}");
            let a = obj
                .spec
                .as_mut()
                .and_then(|s| s.affinity.as_mut())
                .ok_or_else(missing)?;
            let (required, preferred) = if *anti {
                let x = a.pod_anti_affinity.as_mut().ok_or_else(missing)?;
                (
                    &mut x.required_during_scheduling_ignored_during_execution,
                    &mut x.preferred_during_scheduling_ignored_during_execution,
                )
            } else {
                let x = a.pod_affinity.as_mut().ok_or_else(missing)?;
                (
                    &mut x.required_during_scheduling_ignored_during_execution,
                    &mut x.preferred_during_scheduling_ignored_during_execution,
                )
            };
            let terms = required.as_mut().filter(|t| *index < t.len()).ok_or_else(missing)?;
            let term = terms.remove(*index);
            preferred
                .get_or_insert_with(Vec::new)
                .push(core::WeightedPodAffinityTerm {
                    pod_affinity_term: term,
                    weight: 100,
                });
            replace_pod(cluster, obj.into_box())
        }
        Change::SchedulerName(s) => {
            let mut obj = pod.obj.clone();
            obj.spec.get_or_insert_with(Default::default).scheduler_name = Some(s.clone());
            replace_pod(cluster, obj.into_box())
        }
    }
}

/// The priority the model would resolve for a pod without spec.priority.
pub(super) fn priority_resolver(cluster: &Cluster) -> impl FnMut(Option<&str>) -> i32 + '_ {
    let global_default = cluster.global_default_priority().unwrap_or(0);
    move |class| match class {
        Some(name) if !name.is_empty() => cluster
            .priority_classes
            .get(name)
            .map_or(global_default, |pc| pc.value.unwrap_or(0)),
        _ => global_default,
    }
}

pub(crate) fn meta_key(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> ObjectKey {
    ObjectKey::new(
        m.namespace.clone().unwrap_or_default(),
        m.name.clone().unwrap_or_default(),
    )
}

/// Refuses an edit that makes the object one the API server would refuse: the errors the
/// edited object has and the object as it was did not, in the API server's words. (An object
/// loaded that way was a load warning; an edit of another of its fields goes through.)
pub(super) fn refuse(what: &str, before: &[String], after: Vec<String>) -> Result<(), String> {
    let new: Vec<String> = after.into_iter().filter(|e| !before.contains(e)).collect();
    if new.is_empty() {
        return Ok(());
    }
    Err(format!("{what}: the API server would refuse it: {}", new.join("; ")))
}

/// The cluster with a pod object replaced (rebuilt through the model), for any release.
pub(crate) fn replace_pod(cluster: &Cluster, obj: impl Into<Box<core::Pod>>) -> Result<Cluster, String> {
    replace_pod_as(cluster, obj, validation::Accept::ANY_RELEASE)
}

/// The cluster with a pod object replaced (rebuilt through the model), unless the API server
/// would refuse the pod as changed (with what `accept` allows).
pub(crate) fn replace_pod_as(
    cluster: &Cluster,
    obj: impl Into<Box<core::Pod>>,
    accept: validation::Accept,
) -> Result<Cluster, String> {
    let obj: Box<core::Pod> = obj.into();
    let key = meta_key(&obj.metadata);
    let i = cluster
        .pods
        .binary_search_by(|p| p.key.cmp(&key))
        .map_err(|_| format!("pod '{key}' is not in the snapshot"))?;
    refuse(
        &format!("pod {key}"),
        &validation::pod(&cluster.pods[i].obj, accept),
        validation::pod(&obj, accept),
    )?;
    let pod =
        Pod::from_obj(obj, priority_resolver(cluster)).map_err(|(f, m)| format!("pod {key}: field '{f}': {m}"))?;
    let mut c = cluster.clone();
    c.pods[i] = Arc::new(pod);
    Ok(c)
}

/// The cluster with a node `name` made like `like`: its object with the new name (and
/// hostname label), its CSINode and node-local ResourceSlices copied, and its DaemonSet pods
/// copied onto it (their node affinity naming `like` renamed, as the DaemonSet controller
/// writes it for each node).
pub(super) fn add_fresh_node(cluster: &Cluster, like: &str, name: &str) -> Result<Cluster, String> {
    let node = cluster
        .node(like)
        .ok_or_else(|| format!("node '{like}' is not in the snapshot"))?;
    let mut obj = (*node.obj).clone();
    obj.metadata.name = Some(name.to_string());
    obj.metadata.uid = None;
    obj.metadata.resource_version = None;
    obj.metadata.creation_timestamp = None;
    if let Some(l) = obj.metadata.labels.as_mut()
        && l.contains_key("kubernetes.io/hostname")
    {
        l.insert("kubernetes.io/hostname".into(), name.to_string());
    }
    if let Some(spec) = obj.spec.as_mut() {
        spec.provider_id = None;
        spec.unschedulable = None;
    }
    let fresh = Node::from_obj(obj).map_err(|(f, m)| format!("node {name}: field '{f}': {m}"))?;
    let mut c = cluster.clone();
    let at = c
        .nodes
        .binary_search_by(|n| n.name.as_str().cmp(name))
        .err()
        .ok_or_else(|| format!("node '{name}' is already in the snapshot"))?;
    c.nodes.insert(at, Arc::new(fresh));
    if let Some(mut csi) = cluster.csi_nodes.get(like).cloned() {
        csi.metadata.name = Some(name.to_string());
        csi.metadata.uid = None;
        c.csi_nodes.insert(name.to_string(), csi);
    }
    for (slice_name, slice) in &cluster.resource_slices {
        if slice.spec.node_name.as_deref() == Some(like) {
            let mut s = slice.clone();
            let new_name = format!("{name}-{slice_name}");
            s.metadata.name = Some(new_name.clone());
            s.metadata.uid = None;
            s.spec.node_name = Some(name.to_string());
            s.spec.pool.name = format!("{name}-{}", s.spec.pool.name);
            c.resource_slices.insert(new_name, s);
        }
    }
    for p in daemon_pods(cluster, like) {
        let mut o = p.obj.clone();
        // named after its DaemonSet and the node, as "<daemonset>-<suffix>" names it
        let ds = o
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|r| r.kind == "DaemonSet")
            .map_or_else(|| p.key.name.to_string(), |r| r.name.clone());
        let pod_name = format!("{ds}-{name}");
        o.metadata.name = Some(pod_name.clone());
        o.metadata.uid = None;
        let spec = o.spec.get_or_insert_with(Default::default);
        spec.node_name = Some(name.to_string());
        let terms = spec
            .affinity
            .as_mut()
            .and_then(|a| a.node_affinity.as_mut())
            .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_mut());
        for t in terms.into_iter().flat_map(|r| r.node_selector_terms.iter_mut()) {
            for m in t.match_fields.iter_mut().flatten() {
                for v in m.values.iter_mut().flatten() {
                    if v == like {
                        *v = name.to_string();
                    }
                }
            }
        }
        let pod = Pod::from_obj(o.into_box(), priority_resolver(cluster))
            .map_err(|(f, m)| format!("pod {}/{pod_name}: field '{f}': {m}", p.key.namespace))?;
        let at = c
            .pods
            .binary_search_by(|q| q.key.cmp(&pod.key))
            .err()
            .ok_or_else(|| format!("pod {} is already in the snapshot", pod.key))?;
        c.pods.insert(at, Arc::new(pod));
    }
    Ok(c)
}

/// The cluster with a node object replaced (rebuilt through the model), unless the API server
/// would refuse the node as changed.
pub(crate) fn replace_node(cluster: &Cluster, obj: core::Node) -> Result<Cluster, String> {
    let name = obj.metadata.name.clone().unwrap_or_default();
    let i = cluster
        .nodes
        .binary_search_by(|n| n.name.as_str().cmp(&name))
        .map_err(|_| format!("node '{name}' is not in the snapshot"))?;
    refuse(
        &format!("node {name}"),
        &cluster.nodes[i].refused,
        validation::node(&obj),
    )?;
    let node = Node::from_obj(obj).map_err(|(f, m)| format!("node {name}: field '{f}': {m}"))?;
    let mut c = cluster.clone();
    c.nodes[i] = Arc::new(node);
    Ok(c)
}
