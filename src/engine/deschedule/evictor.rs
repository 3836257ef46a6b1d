//! DefaultEvictor (pkg/framework/plugins/defaultevictor: defaultevictor.go, constraints.go)
//! and the node checks it and the plugins use (pkg/descheduler/node/node.go `NodeFit`,
//! `PodFitsAnyNode`, `PodFitsAnyOtherNode`, `ReadyNodes`). Its Filter returns every check
//! that refuses the pod, with upstream's messages, in upstream's order: mirror, static,
//! terminating, then the protections (system-critical and the priority threshold, failed bare
//! pods, local storage, DaemonSet, PVCs, pods without a PDB, resource claims), the label
//! selector, minReplicas and minPodAge. Its PreEvictionFilter checks nodeFit and the
//! namespace label selector.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::jiff::Timestamp;

use super::pods::{self, EVICT_ANNOTATION, NO_EVICTION_ANNOTATION, owner_refs};
use super::policy::{EvictorArgs, SYSTEM_CRITICAL_PRIORITY};
use crate::engine::plugins::helper::find_untolerated_taint;
use crate::model::selector::Selector;
use crate::model::{Cluster, Node, Pod, Taint, Toleration};

/// The DefaultEvictor of one profile, its arguments resolved against the cluster.
#[derive(Clone, Debug)]
pub struct Evictor {
    args: EvictorArgs,
    /// The effective protections (`getEffectivePodProtections`).
    pub protections: BTreeSet<String>,
    /// The priority threshold (`GetPriorityValueFromPriorityThreshold`).
    pub threshold: i32,
    label_selector: Option<Selector>,
    namespace_selector: Option<Selector>,
    node_selector: Selector,
}

impl Evictor {
    /// Builds the evictor; the error is upstream's (`unable to get priority value from the
    /// priority class: ...`, `priority threshold can't be greater than 2000000000`).
    pub fn new(args: &EvictorArgs, cluster: &Cluster) -> Result<Self, String> {
        let threshold = match &args.priority_threshold {
            None => SYSTEM_CRITICAL_PRIORITY,
            Some(t) => match t.value {
                Some(v) => v,
                None if t.name.is_empty() => SYSTEM_CRITICAL_PRIORITY,
                None => match cluster.priority_classes.get(&t.name) {
                    Some(pc) => pc.value.unwrap_or(0),
                    None => {
                        return Err(format!(
                            "unable to get priority value from the priority class: priorityclasses.scheduling.k8s.io \"{}\" not found",
                            t.name
                        ));
                    }
                },
            },
        };
        if threshold > SYSTEM_CRITICAL_PRIORITY {
            return Err(format!(
                "priority threshold can't be greater than {SYSTEM_CRITICAL_PRIORITY}"
            ));
        }
        let node_selector =
            Selector::parse(&args.node_selector).map_err(|e| format!("DefaultEvictor nodeSelector: {e}"))?;
        let ls = args
            .label_selector
            .as_ref()
            .map(|l| Selector::from_label_selector(Some(l)))
            .filter(|s| !s.is_empty());
        let ns = args
            .namespace_label_selector
            .as_ref()
            .filter(|l| {
                l.match_labels.as_ref().is_some_and(|m| !m.is_empty())
                    || l.match_expressions.as_ref().is_some_and(|m| !m.is_empty())
            })
            .map(|l| Selector::from_label_selector(Some(l)));
        Ok(Evictor {
            protections: effective_protections(args),
            args: args.clone(),
            threshold,
            label_selector: ls,
            namespace_selector: ns,
            node_selector,
        })
    }

    fn on(&self, p: &str) -> bool {
        self.protections.contains(p)
    }

    /// `Filter`: Ok, or every check that refuses the pod.
    pub fn filter(&self, cluster: &Cluster, pod: &Pod, now: Timestamp) -> Result<(), Vec<String>> {
        if pods::has_annotation(pod, EVICT_ANNOTATION) {
            return Ok(());
        }
        if self.args.no_eviction_policy == "Mandatory" && pods::has_annotation(pod, NO_EVICTION_ANNOTATION) {
            return Err(vec![format!(
                "pod has the {NO_EVICTION_ANNOTATION} annotation and noEvictionPolicy is Mandatory"
            )]);
        }
        let mut errs = Vec::new();
        if pods::is_mirror(pod) {
            errs.push("pod is a mirror pod".into());
        }
        if pods::is_static(pod) {
            errs.push("pod is a static pod".into());
        }
        if pod.terminating {
            errs.push("pod is terminating".into());
        }
        if self.on("SystemCriticalPods") {
            if pod.priority >= SYSTEM_CRITICAL_PRIORITY {
                errs.push("pod has system critical priority and is protected against eviction".into());
            }
            if pod.priority >= self.threshold {
                errs.push("pod has higher priority than specified priority class threshold".into());
            }
        }
        let owners = owner_refs(pod);
        if self.on("FailedBarePods") {
            if owners.is_empty() {
                errs.push("pod does not have any ownerRefs".into());
            }
        } else if owners.is_empty() && pod.phase != "Failed" {
            errs.push("pod does not have any ownerRefs and is not in failed phase".into());
        }
        if self.on("PodsWithLocalStorage") && pods::has_local_storage(pod) {
            errs.push("pod has local storage and is protected against eviction".into());
        }
        if self.on("DaemonSetPods") && owners.iter().any(|o| o.kind == "DaemonSet") {
            errs.push("daemonset pods are protected against eviction".into());
        }
        if self.on("PodsWithPVC") {
            match self
                .args
                .pod_protections
                .protected_storage_classes
                .as_ref()
                .filter(|v| !v.is_empty())
            {
                None => {
                    if pods::has_pvc(pod) {
                        errs.push("pod with PVC is protected against eviction".into());
                    }
                }
                Some(protected) => match storage_classes(cluster, pod) {
                    Err(e) => errs.push(e),
                    Ok(classes) => {
                        if let Some(c) = classes.iter().find(|c| protected.contains(c)) {
                            errs.push(format!("pod using protected storage class \"{c}\""));
                        }
                    }
                },
            }
        }
        if self.on("PodsWithoutPDB") && !covered_by_pdb(cluster, pod) {
            errs.push("pod does not have a PodDisruptionBudget and is protected against eviction".into());
        }
        if self.on("PodsWithResourceClaims") && pods::has_resource_claims(pod) {
            errs.push("pod has ResourceClaims and descheduler is configured to protect ResourceClaims pods".into());
        }
        if let Some(s) = &self.label_selector
            && !s.matches(&pod.labels)
        {
            errs.push("pod labels do not match the labelSelector filter in the policy parameter".into());
        }
        if self.args.min_replicas > 1 && owners.len() == 1 {
            let uid = owners[0].uid.as_str();
            let n = cluster
                .pods
                .iter()
                .filter(|p| owner_refs(p).iter().any(|o| o.uid == uid))
                .count() as u64;
            if n < self.args.min_replicas {
                errs.push(format!(
                    "owner has {n} replicas which is less than minReplicas of {}",
                    self.args.min_replicas
                ));
            }
        }
        if let Some((secs, _)) = &self.args.min_pod_age {
            let started = pod.obj.status.as_ref().and_then(|s| s.start_time.as_ref()).map(|t| t.0);
            let young = match started {
                None => true,
                Some(t) => ((now.as_nanosecond() - t.as_nanosecond()) as f64) < secs * 1e9,
            };
            if young {
                errs.push(format!(
                    "pod age is not older than MinPodAge: {} seconds",
                    pods::go_duration(*secs)
                ));
            }
        }
        if errs.is_empty() { Ok(()) } else { Err(errs) }
    }

    /// `PreEvictionFilter`: nodeFit (the pod fits some other ready node of the evictor's
    /// nodeSelector), then the namespace label selector.
    pub fn pre_eviction_filter(
        &self,
        cluster: &Cluster,
        by_node: &BTreeMap<String, Vec<Arc<Pod>>>,
        pod: &Pod,
    ) -> Result<(), String> {
        if self.args.node_fit {
            let nodes: Vec<&Arc<Node>> = cluster
                .nodes
                .iter()
                .filter(|n| self.node_selector.matches(&n.labels) && super::is_ready(n))
                .collect();
            let mut why = Vec::new();
            let mut fits = false;
            for n in nodes {
                if pod.node_name.as_deref() == Some(n.name.as_str()) {
                    continue;
                }
                match node_fit(by_node, pod, n) {
                    Ok(()) => {
                        fits = true;
                        break;
                    }
                    Err(e) => why.push(format!("{}: {e}", n.name)),
                }
            }
            if !fits {
                return Err(format!(
                    "nodeFit: pod does not fit on any other node because of nodeSelector(s), Taint(s), or nodes marked as unschedulable ({})",
                    if why.is_empty() {
                        "no other ready node".to_string()
                    } else {
                        why.join("; ")
                    }
                ));
            }
        }
        if let Some(s) = &self.namespace_selector {
            let labels = cluster.namespaces.get(&pod.key.namespace);
            if !labels.is_some_and(|l| s.matches(l)) {
                return Err(
                    "pod namespace do not match the namespaceLabelSelector filter in the policy parameter".into(),
                );
            }
        }
        Ok(())
    }
}

/// `getEffectivePodProtections` (with the deprecated booleans when podProtections is unused).
pub fn effective_protections(a: &EvictorArgs) -> BTreeSet<String> {
    let pp = &a.pod_protections;
    let mut out = BTreeSet::new();
    if pp.default_disabled.is_empty() && pp.extra_enabled.is_empty() {
        for (off, name) in [
            (a.evict_local_storage_pods, "PodsWithLocalStorage"),
            (a.evict_daemon_set_pods, "DaemonSetPods"),
            (a.evict_system_critical_pods, "SystemCriticalPods"),
            (a.evict_failed_bare_pods, "FailedBarePods"),
        ] {
            if !off {
                out.insert(name.to_string());
            }
        }
        if a.ignore_pvc_pods {
            out.insert("PodsWithPVC".into());
        }
        if a.ignore_pods_without_pdb {
            out.insert("PodsWithoutPDB".into());
        }
        return out;
    }
    for name in [
        "PodsWithLocalStorage",
        "SystemCriticalPods",
        "FailedBarePods",
        "DaemonSetPods",
    ] {
        if !pp.default_disabled.iter().any(|d| d == name) {
            out.insert(name.to_string());
        }
    }
    out.extend(pp.extra_enabled.iter().cloned());
    out
}

fn storage_classes(cluster: &Cluster, pod: &Pod) -> Result<Vec<String>, String> {
    let mut out = BTreeSet::new();
    for v in pod.spec().volumes.iter().flatten() {
        let Some(c) = &v.persistent_volume_claim else { continue };
        let key = crate::model::ObjectKey::new(&pod.key.namespace, &c.claim_name);
        let Some(pvc) = cluster.pvcs.get(&key) else {
            return Err(format!(
                "failed to get persistent volume claim \"{}\"/\"{}\": persistentvolumeclaim \"{}\" not found",
                pod.key.namespace, c.claim_name, c.claim_name
            ));
        };
        match pvc.spec.as_ref().and_then(|s| s.storage_class_name.as_deref()) {
            Some(sc) if !sc.is_empty() => {
                out.insert(sc.to_string());
            }
            _ => {
                return Err(format!(
                    "failed to resolve storage class for pod \"{}\"/\"{}\"",
                    pod.key.namespace, c.claim_name
                ));
            }
        }
    }
    Ok(out.into_iter().collect())
}

/// `IsPodCoveredByPDB`: a PDB of the pod's namespace whose selector matches it.
pub fn covered_by_pdb(cluster: &Cluster, pod: &Pod) -> bool {
    cluster.pdbs.iter().any(|b| {
        b.metadata.namespace.as_deref() == Some(pod.key.namespace.as_str())
            && Selector::from_label_selector(b.spec.as_ref().and_then(|s| s.selector.as_ref())).matches(&pod.labels)
    })
}

/// `PodMatchNodeSelector`: nodeSelector and required node affinity.
pub fn matches_node_selector(pod: &Pod, node: &Node) -> bool {
    let spec = pod.spec();
    if let Some(ns) = spec.node_selector.as_ref().filter(|m| !m.is_empty())
        && !Selector::from_map(ns).matches(&node.labels)
    {
        return false;
    }
    spec.affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref())
        .is_none_or(|ns| crate::model::selector::NodeSelectorMatcher::new(ns).matches(&node.labels, &node.name))
}

/// The first of `taints` with effect NoSchedule or NoExecute the pod does not tolerate.
pub fn untolerated_hard_taint<'a>(tolerations: &[Toleration], taints: &'a [Taint]) -> Option<&'a Taint> {
    find_untolerated_taint(taints, tolerations, true, |t| {
        t.effect == "NoSchedule" || t.effect == "NoExecute"
    })
}

/// The pod's required anti-affinity terms, read the descheduler's way: namespaces from the
/// term (or the pod's own), the label selector (nil selects nothing), the topology key.
pub fn anti_affinity_terms(pod: &Pod) -> Vec<(BTreeSet<String>, Selector, String)> {
    pod.spec()
        .affinity
        .as_ref()
        .and_then(|a| a.pod_anti_affinity.as_ref())
        .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref())
        .into_iter()
        .flatten()
        .map(|t| {
            let ns: BTreeSet<String> = match t.namespaces.as_ref().filter(|n| !n.is_empty()) {
                Some(n) => n.iter().cloned().collect(),
                None => std::iter::once(pod.key.namespace.clone()).collect(),
            };
            (
                ns,
                Selector::from_label_selector(t.label_selector.as_ref()),
                t.topology_key.clone(),
            )
        })
        .collect()
}

/// `NodeFit`: Ok, or the first reason the pod does not fit the node.
pub fn node_fit(by_node: &BTreeMap<String, Vec<Arc<Pod>>>, pod: &Pod, node: &Node) -> Result<(), String> {
    if node.unschedulable {
        return Err("node is not schedulable".into());
    }
    if !matches_node_selector(pod, node) {
        return Err("pod node selector does not match the node label".into());
    }
    if untolerated_hard_taint(&pod.tolerations, &node.taints).is_some() {
        return Err("pod does not tolerate taints on the node".into());
    }
    let on_node: Vec<&Arc<Pod>> = by_node
        .get(&node.name)
        .into_iter()
        .flatten()
        .filter(|p| !p.is_finished())
        .collect();
    for (ns, sel, key) in anti_affinity_terms(pod) {
        let hit = on_node
            .iter()
            .any(|p| p.key.name != pod.key.name && ns.contains(&p.key.namespace) && sel.matches(&p.labels));
        if hit && node.labels.contains_key(&key) {
            return Err("pod matches inter-pod anti-affinity rule of other pod on node".into());
        }
    }
    if pod.node_name.as_deref() != Some(node.name.as_str()) {
        fits_request(&on_node, pod, node)?;
    }
    Ok(())
}

/// A pod's requests as the descheduler reads them (`PodRequests` with overhead; pod-level
/// requests when set): cpu in millicores, others in units.
pub fn requests(pod: &Pod) -> &BTreeMap<String, i64> {
    match &pod.requests_pod_level {
        Some(r) => &r.list,
        None => &pod.requests.list,
    }
}

/// `fitsRequest`: every requested resource (and pods) within what the node has left.
fn fits_request(on_node: &[&Arc<Pod>], pod: &Pod, node: &Node) -> Result<(), String> {
    let want = requests(pod);
    let mut pods_left = 0;
    let mut names: Vec<&str> = vec!["pods"];
    names.extend(want.keys().map(String::as_str).filter(|n| *n != "pods"));
    for name in &names {
        let used: i64 = if *name == "pods" {
            on_node.len() as i64
        } else {
            on_node
                .iter()
                .map(|p| requests(p).get(*name).copied().unwrap_or(0))
                .sum()
        };
        let basic = matches!(*name, "cpu" | "memory" | "pods");
        let allocatable = node.allocatable.get(name);
        let has = basic || node_has(node, name);
        let available = if has { allocatable - used } else { 0 };
        let req = want.get(*name).copied().unwrap_or(0);
        if req > available {
            return Err(format!("insufficient {name}"));
        }
        if *name == "pods" {
            pods_left = available;
        }
    }
    if pods_left <= 0 {
        return Err("insufficient pods".into());
    }
    Ok(())
}

fn node_has(node: &Node, name: &str) -> bool {
    let st = node.obj.status.as_ref();
    let alloc = st.and_then(|s| s.allocatable.as_ref()).filter(|a| !a.is_empty());
    let cap = st.and_then(|s| s.capacity.as_ref());
    alloc.or(cap).is_some_and(|m| m.contains_key(name))
}

/// `PodFitsAnyNode`.
pub fn fits_any_node(by_node: &BTreeMap<String, Vec<Arc<Pod>>>, pod: &Pod, nodes: &[Arc<Node>]) -> bool {
    nodes.iter().any(|n| node_fit(by_node, pod, n).is_ok())
}
