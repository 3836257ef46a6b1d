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
use crate::model::resources::Amounts;
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
        } else if owners.is_empty() && pod.phase() != "Failed" {
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
            let labels = cluster.namespaces.get(pod.key.namespace.as_str());
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
        let key = crate::model::ObjectKey::new(pod.key.namespace.as_str(), &c.claim_name);
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
                None => std::iter::once(pod.key.namespace.to_string()).collect(),
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
            .any(|p| p.key.name != pod.key.name && ns.contains(p.key.namespace.as_str()) && sel.matches(&p.labels));
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
pub fn requests(pod: &Pod) -> &Amounts {
    match pod.requests_pod_level() {
        Some(r) => &r.list,
        None => &pod.requests.list,
    }
}

/// `fitsRequest`: every requested resource (and pods) within what the node has left.
fn fits_request(on_node: &[&Arc<Pod>], pod: &Pod, node: &Node) -> Result<(), String> {
    let want = requests(pod);
    let mut pods_left = 0;
    let mut names: Vec<&str> = vec!["pods"];
    names.extend(want.keys().filter(|n| *n != "pods"));
    for name in &names {
        let used: i64 = if *name == "pods" {
            on_node.len() as i64
        } else {
            on_node
                .iter()
                .map(|p| requests(p).get(name).copied().unwrap_or(0))
                .sum()
        };
        let basic = matches!(*name, "cpu" | "memory" | "pods");
        let allocatable = node.allocatable.get(name);
        let has = basic || node_has(node, name);
        let available = if has { allocatable - used } else { 0 };
        let req = want.get(name).copied().unwrap_or(0);
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

#[cfg(test)]
mod tests {
    //! defaultevictor_test.go at v0.36: TestDefaultEvictorFilter and
    //! TestDefaultEvictorPreEvictionFilter (every case: whether the pod passes), and
    //! TestGetEffectivePodProtections_TableDriven.

    use k8s_openapi::api::core::v1 as core;
    use serde_json::{Value, json};

    use super::*;
    use crate::engine::deschedule::testutil::*;
    use crate::model::kinds::Object;

    /// `buildTestPod(name, node1)`: 400m.
    fn p(name: &str) -> core::Pod {
        pod(name, 400, 0, "node1")
    }

    /// Whether the DefaultEvictor built from `args` lets the first pod through Filter, at
    /// `now` seconds.
    fn filter_at(args: Value, pods: Vec<core::Pod>, others: Vec<Object>, now: i64) -> bool {
        let name = pods[0].metadata.name.clone().unwrap();
        let c = cluster_with(vec![node("node1", 1000, 2000, 13)], pods, others);
        let ev = Evictor::new(&evictor_args(args), &c).unwrap();
        let pod = c.pods.iter().find(|x| x.key.name == name).unwrap().clone();
        ev.filter(&c, &pod, Timestamp::from_second(now).unwrap()).is_ok()
    }

    fn filter(args: Value, pods: Vec<core::Pod>) -> bool {
        filter_at(args, pods, Vec::new(), 0)
    }

    /// Whether it lets the first pod through PreEvictionFilter.
    fn pre_eviction(args: Value, nodes: Vec<core::Node>, pods: Vec<core::Pod>, others: Vec<Object>) -> bool {
        let name = pods[0].metadata.name.clone().unwrap();
        let c = cluster_with(nodes, pods, others);
        let ev = Evictor::new(&evictor_args(args), &c).unwrap();
        let pod = c.pods.iter().find(|x| x.key.name == name).unwrap().clone();
        ev.pre_eviction_filter(&c, &super::super::index_by_node(&c), &pod)
            .is_ok()
    }

    const EVICT: (&str, &str) = ("descheduler.alpha.kubernetes.io/evict", "true");

    fn gpu(n: core::Node) -> core::Node {
        taint(n, "hardware", "gpu", "NoSchedule")
    }

    fn east(n: core::Node) -> core::Node {
        node_labels(n, &[("datacenter", "east")])
    }

    fn two(f: fn(core::Node) -> core::Node) -> Vec<core::Node> {
        vec![f(node("node2", 1000, 2000, 13)), f(node("node3", 1000, 2000, 13))]
    }

    // ---- TestDefaultEvictorPreEvictionFilter ----

    /// "Pod with no tolerations running on normal node, all other nodes tainted"
    #[test]
    fn pre_eviction_no_tolerations_other_nodes_tainted() {
        assert!(!pre_eviction(
            json!({"nodeFit": true}),
            two(gpu),
            vec![normal_owned(p("p1"))],
            vec![]
        ));
    }

    /// "Pod with correct tolerations running on normal node, all other nodes tainted"
    #[test]
    fn pre_eviction_correct_tolerations() {
        let pod = tolerate(normal_owned(p("p1")), "hardware", "gpu", "NoSchedule");
        assert!(pre_eviction(json!({"nodeFit": true}), two(gpu), vec![pod], vec![]));
    }

    /// "Pod with incorrect node selector"
    #[test]
    fn pre_eviction_incorrect_node_selector() {
        let pod = node_selector(normal_owned(p("p1")), &[("datacenter", "fail")]);
        assert!(!pre_eviction(json!({"nodeFit": true}), two(east), vec![pod], vec![]));
    }

    /// "Pod with correct node selector"
    #[test]
    fn pre_eviction_correct_node_selector() {
        let pod = node_selector(normal_owned(p("p1")), &[("datacenter", "east")]);
        assert!(pre_eviction(json!({"nodeFit": true}), two(east), vec![pod], vec![]));
    }

    fn small_pod() -> core::Pod {
        node_selector(normal_owned(pod("p1", 12, 8, "node1")), &[("datacenter", "east")])
    }

    /// "Pod with correct node selector, but only available node doesn't have enough CPU"
    #[test]
    fn pre_eviction_not_enough_cpu() {
        let nodes = vec![
            east(node("node2-TEST", 10, 16, 10)),
            east(node("node3-TEST", 10, 16, 10)),
        ];
        assert!(!pre_eviction(
            json!({"nodeFit": true}),
            nodes,
            vec![small_pod()],
            vec![]
        ));
    }

    /// "Pod with correct node selector, and one node has enough memory"
    #[test]
    fn pre_eviction_one_node_has_enough_memory() {
        let nodes = vec![east(node("node2", 100, 16, 10)), east(node("node3", 100, 20, 10))];
        let pods = vec![
            small_pod(),
            labels(pod("node2-pod-10GB-mem", 20, 10, "node2"), &[("test", "true")]),
            labels(pod("node3-pod-10GB-mem", 20, 10, "node3"), &[("test", "true")]),
        ];
        assert!(pre_eviction(json!({"nodeFit": true}), nodes, pods, vec![]));
    }

    /// "Pod with correct node selector, but both nodes don't have enough memory"
    #[test]
    fn pre_eviction_no_node_has_enough_memory() {
        let nodes = vec![east(node("node2", 100, 16, 10)), east(node("node3", 100, 16, 10))];
        let pods = vec![
            small_pod(),
            labels(pod("node2-pod-10GB-mem", 10, 10, "node2"), &[("test", "true")]),
            labels(pod("node3-pod-10GB-mem", 10, 10, "node3"), &[("test", "true")]),
        ];
        assert!(!pre_eviction(json!({"nodeFit": true}), nodes, pods, vec![]));
    }

    /// "Pod with incorrect node selector, but nodefit false, should still be evicted"
    #[test]
    fn pre_eviction_incorrect_node_selector_without_node_fit() {
        let pod = node_selector(normal_owned(p("p1")), &[("datacenter", "fail")]);
        assert!(pre_eviction(json!({}), two(east), vec![pod], vec![]));
    }

    fn ns_selector() -> Value {
        json!({"nodeFit": true, "namespaceLabelSelector": {"matchLabels": {"kubernetes.io/metadata.name": "test"}}})
    }

    /// "Pod with namespace matched namespace selector, should be evicted"
    #[test]
    fn pre_eviction_namespace_matches_selector() {
        let pod = in_namespace(node_selector(normal_owned(p("p1")), &[("datacenter", "east")]), "test");
        let nss = vec![namespace("default"), namespace("test")];
        assert!(pre_eviction(ns_selector(), two(east), vec![pod], nss));
    }

    /// "Pod with namespace does not matched namespace selector, should not be evicted"
    #[test]
    fn pre_eviction_namespace_does_not_match_selector() {
        let pod = node_selector(normal_owned(p("p1")), &[("datacenter", "fail")]);
        let nss = vec![namespace("default"), namespace("test")];
        assert!(!pre_eviction(ns_selector(), two(east), vec![pod], nss));
    }

    /// Not upstream: a pod that fits passes nodeFit but not a namespace selector it misses.
    #[test]
    fn pre_eviction_namespace_selector_alone_refuses() {
        let pod = node_selector(normal_owned(p("p1")), &[("datacenter", "east")]);
        let nss = vec![namespace("default"), namespace("test")];
        let c = cluster_with(two(east), vec![pod], nss);
        let ev = Evictor::new(&evictor_args(ns_selector()), &c).unwrap();
        assert_eq!(
            ev.pre_eviction_filter(&c, &super::super::index_by_node(&c), &c.pods[0]),
            Err("pod namespace do not match the namespaceLabelSelector filter in the policy parameter".into())
        );
    }

    // ---- TestDefaultEvictorFilter ----

    /// "Failed pod eviction with no ownerRefs" (bare_pod_failed)
    #[test]
    fn failed_bare_pod_protected_by_default() {
        assert!(!filter(json!({}), vec![phase(p("bare_pod_failed"), "Failed")]));
    }

    /// "Normal pod eviction with no ownerRefs and evictFailedBarePods enabled"
    #[test]
    fn running_bare_pod_with_evict_failed_bare_pods() {
        assert!(!filter(json!({"evictFailedBarePods": true}), vec![p("bare_pod")]));
    }

    /// "Failed pod eviction with no ownerRefs" (bare_pod_failed_but_can_be_evicted)
    #[test]
    fn failed_bare_pod_with_evict_failed_bare_pods() {
        let pod = phase(p("bare_pod_failed_but_can_be_evicted"), "Failed");
        assert!(filter(json!({"evictFailedBarePods": true}), vec![pod]));
    }

    /// "Normal pod eviction with normal ownerRefs"
    #[test]
    fn owned_pod() {
        assert!(filter(json!({}), vec![normal_owned(p("p1"))]));
    }

    /// "Normal pod eviction with normal ownerRefs and descheduler.alpha.kubernetes.io/evict annotation"
    #[test]
    fn owned_pod_with_evict_annotation() {
        assert!(filter(json!({}), vec![annotations(normal_owned(p("p2")), &[EVICT])]));
    }

    /// "Normal pod eviction with normal ownerRefs and
    /// descheduler.alpha.kubernetes.io/prefer-no-eviction annotation (preference)"
    #[test]
    fn prefer_no_eviction_annotation_preferred() {
        let pod = annotations(normal_owned(p("p2")), &[(NO_EVICTION_ANNOTATION, "")]);
        assert!(filter(json!({}), vec![pod]));
    }

    /// "... prefer-no-eviction annotation (mandatory)"
    #[test]
    fn prefer_no_eviction_annotation_mandatory() {
        let pod = annotations(normal_owned(p("p2")), &[(NO_EVICTION_ANNOTATION, "")]);
        assert!(!filter(json!({"noEvictionPolicy": "Mandatory"}), vec![pod]));
    }

    /// "Normal pod eviction with replicaSet ownerRefs and descheduler.alpha.kubernetes.io/evict annotation"
    #[test]
    fn replica_set_pod_with_evict_annotation() {
        assert!(filter(json!({}), vec![annotations(rs_owned(p("p4")), &[EVICT])]));
    }

    /// "Normal pod eviction with statefulSet ownerRefs and descheduler.alpha.kubernetes.io/evict annotation"
    #[test]
    fn stateful_set_pod_with_evict_annotation() {
        let pod = annotations(owned_by(p("p19"), &[("StatefulSet", "statefulset-1")]), &[EVICT]);
        assert!(filter(json!({}), vec![pod]));
    }

    /// "Pod not evicted because it is bound to a PV and evictLocalStoragePods = false"
    #[test]
    fn local_storage_protected() {
        assert!(!filter(json!({}), vec![with_local_storage(normal_owned(p("p5")))]));
    }

    /// "Pod is evicted because it is bound to a PV and evictLocalStoragePods = true"
    #[test]
    fn local_storage_with_evict_local_storage_pods() {
        let pod = with_local_storage(normal_owned(p("p6")));
        assert!(filter(json!({"evictLocalStoragePods": true}), vec![pod]));
    }

    /// "Pod is evicted because it is bound to a PV and evictLocalStoragePods = false, but it has
    /// scheduler.alpha.kubernetes.io/evict annotation"
    #[test]
    fn local_storage_with_evict_annotation() {
        let pod = with_local_storage(annotations(normal_owned(p("p7")), &[EVICT]));
        assert!(filter(json!({}), vec![pod]));
    }

    /// "Pod not evicted because it is part of a daemonSet"
    #[test]
    fn daemon_set_pod_protected() {
        assert!(!filter(json!({}), vec![owned_by(p("p8"), &[("DaemonSet", "")])]));
    }

    /// "Pod is evicted because it is part of a daemonSet, but it has scheduler.alpha.kubernetes.io/evict annotation"
    #[test]
    fn daemon_set_pod_with_evict_annotation() {
        let pod = annotations(owned_by(p("p9"), &[("DaemonSet", "")]), &[EVICT]);
        assert!(filter(json!({}), vec![pod]));
    }

    /// "Pod not evicted because it is a mirror poddsa"
    #[test]
    fn mirror_pod_protected() {
        assert!(!filter(json!({}), vec![mirror(normal_owned(p("p10")))]));
    }

    /// "Pod is evicted because it is a mirror pod, but it has scheduler.alpha.kubernetes.io/evict annotation"
    #[test]
    fn mirror_pod_with_evict_annotation() {
        let pod = annotations(mirror(normal_owned(p("p11"))), &[EVICT]);
        assert!(filter(json!({}), vec![pod]));
    }

    /// "Pod not evicted because it has system critical priority"
    #[test]
    fn system_critical_pod_protected() {
        let pod = priority(normal_owned(p("p12")), SYSTEM_CRITICAL_PRIORITY);
        assert!(!filter(json!({}), vec![pod]));
    }

    /// "Pod is evicted because it has system critical priority, but it has scheduler.alpha.kubernetes.io/evict annotation"
    #[test]
    fn system_critical_pod_with_evict_annotation() {
        let pod = annotations(priority(normal_owned(p("p13")), SYSTEM_CRITICAL_PRIORITY), &[EVICT]);
        assert!(filter(json!({}), vec![pod]));
    }

    /// "Pod not evicted because it has a priority higher than the configured priority threshold"
    #[test]
    fn priority_above_threshold_protected() {
        let pod = priority(normal_owned(p("p14")), 900);
        assert!(!filter(json!({"priorityThreshold": {"value": 800}}), vec![pod]));
    }

    /// "Pod is evicted because it has a priority higher than the configured priority threshold,
    /// but it has scheduler.alpha.kubernetes.io/evict annotation"
    #[test]
    fn priority_above_threshold_with_evict_annotation() {
        let pod = annotations(priority(normal_owned(p("p15")), 900), &[EVICT]);
        assert!(filter(json!({"priorityThreshold": {"value": 800}}), vec![pod]));
    }

    /// "Pod is evicted because it has system critical priority, but evictSystemCriticalPods = true"
    #[test]
    fn system_critical_pod_with_evict_system_critical_pods() {
        let pod = priority(normal_owned(p("p16")), SYSTEM_CRITICAL_PRIORITY);
        assert!(filter(json!({"evictSystemCriticalPods": true}), vec![pod]));
    }

    /// "Pod is evicted because it has a priority higher than the configured priority threshold,
    /// but evictSystemCriticalPods = true"
    #[test]
    fn priority_above_threshold_with_evict_system_critical_pods() {
        let pod = priority(normal_owned(p("p17")), 900);
        let args = json!({"evictSystemCriticalPods": true, "priorityThreshold": {"value": 800}});
        assert!(filter(args, vec![pod]));
    }

    /// "Pod with no tolerations running on normal node, all other nodes tainted, no
    /// PreEvictionFilter, should ignore nodeFit"
    #[test]
    fn filter_ignores_node_fit() {
        assert!(filter(json!({"nodeFit": true}), vec![normal_owned(p("p1"))]));
    }

    fn same_owner(name: &str) -> core::Pod {
        normal_owned(pod(name, 1, 1, "node1"))
    }

    /// "minReplicas of 2, owner with 2 replicas, evicts"
    #[test]
    fn min_replicas_2_owner_with_2() {
        assert!(filter(
            json!({"minReplicas": 2}),
            vec![same_owner("p1"), same_owner("p2")]
        ));
    }

    /// "minReplicas of 3, owner with 2 replicas, no eviction"
    #[test]
    fn min_replicas_3_owner_with_2() {
        assert!(!filter(
            json!({"minReplicas": 3}),
            vec![same_owner("p1"), same_owner("p2")]
        ));
    }

    /// "minReplicas of 2, multiple owners, no eviction" (upstream expects the pod to pass: the
    /// check applies to pods with exactly one owner)
    #[test]
    fn min_replicas_multiple_owners() {
        let mut p1 = same_owner("p1");
        let refs = p1.metadata.owner_references.clone().unwrap();
        let mut second = refs[0].clone();
        second.uid = "another".into();
        p1.metadata.owner_references = Some(vec![refs[0].clone(), second]);
        let mut p2 = same_owner("p2");
        p2.metadata.owner_references.as_mut().unwrap()[0].uid = "another".into();
        assert!(filter(json!({"minReplicas": 2}), vec![p1, p2]));
    }

    const NOW: i64 = 100_000;

    /// "minPodAge of 50, pod created 10 minutes ago, no eviction"
    #[test]
    fn min_pod_age_not_reached() {
        let pod = started(same_owner("p1"), NOW - 600);
        assert!(!filter_at(json!({"minPodAge": "50m"}), vec![pod], vec![], NOW));
    }

    /// "minPodAge of 50, pod created 60 minutes ago, evicts"
    #[test]
    fn min_pod_age_reached() {
        let pod = started(same_owner("p1"), NOW - 3600);
        assert!(filter_at(json!({"minPodAge": "50m"}), vec![pod], vec![], NOW));
    }

    /// "nil minPodAge, pod created 60 minutes ago, evicts"
    #[test]
    fn min_pod_age_unset() {
        let pod = started(same_owner("p1"), NOW - 3600);
        assert!(filter_at(json!({}), vec![pod], vec![], NOW));
    }

    /// "ignorePodsWithoutPDB, pod with no PDBs, no eviction"
    #[test]
    fn ignore_pods_without_pdb_no_pdb() {
        let pod = labels(same_owner("p1"), &[("app", "foo")]);
        assert!(!filter(json!({"ignorePodsWithoutPDB": true}), vec![pod]));
    }

    /// "ignorePodsWithoutPDB, pod with PDBs, evicts"
    #[test]
    fn ignore_pods_without_pdb_with_pdb() {
        let pod = labels(same_owner("p1"), &[("app", "foo")]);
        assert!(filter_at(
            json!({"ignorePodsWithoutPDB": true}),
            vec![pod],
            vec![pdb("pdb1", "foo")],
            0
        ));
    }

    /// "ignorePvcPods is set, pod with PVC, not evicts"
    #[test]
    fn ignore_pvc_pods_set() {
        let pod = with_pvc(normal_owned(p("p15")), "foo");
        assert!(!filter(json!({"ignorePvcPods": true}), vec![pod]));
    }

    /// "ignorePvcPods is not set, pod with PVC, evicts"
    #[test]
    fn ignore_pvc_pods_unset() {
        assert!(filter(json!({}), vec![with_pvc(normal_owned(p("p15")), "foo")]));
    }

    /// "Pod with local storage is evicted because 'PodsWithLocalStorage' is in DefaultDisabled"
    #[test]
    fn local_storage_default_disabled() {
        let mut pod = normal_owned(p("p18"));
        pod.spec.as_mut().unwrap().volumes = Some(vec![core::Volume {
            name: "local-storage".into(),
            empty_dir: Some(core::EmptyDirVolumeSource::default()),
            ..Default::default()
        }]);
        let args = json!({"podProtections": {"defaultDisabled": ["PodsWithLocalStorage"]}});
        assert!(filter(args, vec![pod]));
    }

    /// "DaemonSet pod is evicted because 'DaemonSetPods' is in DefaultDisabled"
    #[test]
    fn daemon_set_default_disabled() {
        let pod = owned_by(p("p19"), &[("DaemonSet", "daemonset-test")]);
        let args = json!({"podProtections": {"defaultDisabled": ["DaemonSetPods"]}});
        assert!(filter(args, vec![pod]));
    }

    /// "Pod with PVC is not evicted because 'PodsWithPVC' is in ExtraEnabled"
    #[test]
    fn pvc_extra_enabled() {
        let pod = with_pvc(normal_owned(p("p20")), "foo");
        assert!(!filter(
            json!({"podProtections": {"extraEnabled": ["PodsWithPVC"]}}),
            vec![pod]
        ));
    }

    /// "Pod without PDB is not evicted because 'PodsWithoutPDB' is in ExtraEnabled"
    #[test]
    fn without_pdb_extra_enabled() {
        let args = json!({"podProtections": {"extraEnabled": ["PodsWithoutPDB"]}});
        assert!(!filter(args, vec![normal_owned(p("p21"))]));
    }

    /// "Pod with ResourceClaims is not evicted because 'PodsWithResourceClaims' is in ExtraEnabled"
    #[test]
    fn resource_claims_extra_enabled() {
        let mut pod = normal_owned(p("p20"));
        pod.spec.as_mut().unwrap().resource_claims = Some(vec![core::PodResourceClaim {
            name: "test-claim".into(),
            resource_claim_name: Some("test-resource-claim".into()),
            ..Default::default()
        }]);
        let args = json!({"podProtections": {"extraEnabled": ["PodsWithResourceClaims"]}});
        assert!(!filter(args, vec![pod]));
    }

    fn protected_classes(names: &[&str]) -> Value {
        let classes: Vec<Value> = names.iter().map(|n| json!({"name": n})).collect();
        json!({"podProtections": {"extraEnabled": ["PodsWithPVC"],
            "config": {"PodsWithPVC": {"protectedStorageClasses": classes}}}})
    }

    /// "Pod using StorageClass is not evicted because 'PodsWithPVC' is in ExtraEnabled"
    #[test]
    fn protected_storage_class() {
        let pod = with_pvc(normal_owned(p("p23")), "foo");
        assert!(!filter_at(
            protected_classes(&["standard"]),
            vec![pod],
            vec![pvc("foo", "standard")],
            0
        ));
    }

    /// "Pod using unprotected StorageClass is evicted even though 'PodsWithPVC' is in ExtraEnabled"
    #[test]
    fn unprotected_storage_class() {
        let pod = with_pvc(normal_owned(p("p24")), "foo");
        assert!(filter_at(
            protected_classes(&["protected"]),
            vec![pod],
            vec![pvc("foo", "unprotected")],
            0
        ));
    }

    /// "Pod using unexisting PVC is not evicted because we cannot determine if storage class is
    /// protected or not"
    #[test]
    fn missing_pvc_with_protected_classes() {
        let pod = with_pvc(normal_owned(p("p25")), "foo");
        assert!(!filter_at(protected_classes(&["protected"]), vec![pod], vec![], 0));
    }

    /// "Pod using protected and unprotected StorageClasses is not evicted"
    #[test]
    fn protected_and_unprotected_storage_classes() {
        let pod = with_pvc(with_pvc(normal_owned(p("p26")), "protected"), "unprotected");
        let pvcs = vec![pvc("protected", "protected"), pvc("unprotected", "unprotected")];
        assert!(!filter_at(protected_classes(&["protected"]), vec![pod], pvcs, 0));
    }

    /// Not upstream: every refusing check is reported, in upstream's order.
    #[test]
    fn filter_reports_every_refusal() {
        let pod = with_local_storage(priority(
            owned_by(p("p"), &[("DaemonSet", "")]),
            SYSTEM_CRITICAL_PRIORITY,
        ));
        let c = cluster_with(vec![node("node1", 1000, 2000, 13)], vec![pod], vec![]);
        let ev = Evictor::new(&evictor_args(json!({})), &c).unwrap();
        assert_eq!(
            ev.filter(&c, &c.pods[0], Timestamp::UNIX_EPOCH),
            Err(vec![
                "pod has system critical priority and is protected against eviction".to_string(),
                "pod has higher priority than specified priority class threshold".to_string(),
                "pod has local storage and is protected against eviction".to_string(),
                "daemonset pods are protected against eviction".to_string(),
            ])
        );
    }

    /// "Normal pod eviction with replicaSet ownerRefs" and "Normal pod eviction with statefulSet
    /// ownerRefs" (upstream gives both pods a Pod owner)
    #[test]
    fn owned_pods_p3_p18() {
        assert!(filter(json!({}), vec![normal_owned(p("p3"))]));
        assert!(filter(json!({}), vec![normal_owned(p("p18"))]));
    }

    /// "Pod is evicted because it has system critical priority, but evictSystemCriticalPods =
    /// true and it has scheduler.alpha.kubernetes.io/evict annotation"
    #[test]
    fn system_critical_pod_with_evict_system_critical_pods_and_annotation() {
        let pod = annotations(priority(normal_owned(p("p16")), SYSTEM_CRITICAL_PRIORITY), &[EVICT]);
        assert!(filter(json!({"evictSystemCriticalPods": true}), vec![pod]));
    }

    /// "Pod is evicted because it has a priority higher than the configured priority threshold,
    /// but evictSystemCriticalPods = true and it has scheduler.alpha.kubernetes.io/evict annotation"
    #[test]
    fn priority_above_threshold_with_evict_system_critical_pods_and_annotation() {
        let pod = annotations(priority(normal_owned(p("p17")), 900), &[EVICT]);
        let args = json!({"evictSystemCriticalPods": true, "priorityThreshold": {"value": 800}});
        assert!(filter(args, vec![pod]));
    }

    // ---- TestNamespaceLabelSelectorAllOperations, TestMultipleProfilesWithDifferentNamespaceLabelSelectors ----

    fn ns_pods() -> (Vec<core::Pod>, Vec<Object>) {
        let pods = ["ns-prod", "ns-staging", "ns-test", "ns-nolabels", "ns-backend"]
            .iter()
            .map(|ns| {
                in_namespace(
                    normal_owned(pod(&format!("pod-in-{}", &ns[3..]), 100, 100, "node1")),
                    ns,
                )
            })
            .collect();
        let nss = vec![
            namespace_labelled("ns-prod", &[("env", "prod"), ("tier", "frontend")]),
            namespace_labelled("ns-staging", &[("env", "staging"), ("tier", "backend")]),
            namespace_labelled("ns-test", &[("env", "test")]),
            namespace_labelled("ns-nolabels", &[]),
            namespace_labelled("ns-backend", &[("team", "backend")]),
        ];
        (pods, nss)
    }

    /// The pods (by namespace) the namespaceLabelSelector lets through PreEvictionFilter.
    fn passing(selector: Value) -> Vec<String> {
        let (pods, nss) = ns_pods();
        let c = cluster_with(vec![node("node1", 1000, 2000, 10)], pods, nss);
        let ev = Evictor::new(&evictor_args(json!({"namespaceLabelSelector": selector})), &c).unwrap();
        let by_node = super::super::index_by_node(&c);
        c.pods
            .iter()
            .filter(|p| ev.pre_eviction_filter(&c, &by_node, p).is_ok())
            .map(|p| p.key.namespace.to_string())
            .collect()
    }

    /// "MatchLabels and MatchExpressions In"
    #[test]
    fn namespace_selector_match_labels_and_in() {
        let sel = json!({"matchLabels": {"tier": "frontend"},
            "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "staging"]}]});
        assert_eq!(passing(sel), vec!["ns-prod"]);
    }

    /// "MatchLabels and MatchExpressions Exists"
    #[test]
    fn namespace_selector_match_labels_and_exists() {
        let sel = json!({"matchLabels": {"tier": "backend"},
            "matchExpressions": [{"key": "env", "operator": "Exists"}]});
        assert_eq!(passing(sel), vec!["ns-staging"]);
    }

    /// "Exists and In"
    #[test]
    fn namespace_selector_exists_and_in() {
        let sel = json!({"matchExpressions": [{"key": "tier", "operator": "Exists"},
            {"key": "env", "operator": "In", "values": ["staging"]}]});
        assert_eq!(passing(sel), vec!["ns-staging"]);
    }

    /// "DoesNotExist" (upstream's ns-backend is not part of this table)
    #[test]
    fn namespace_selector_does_not_exist() {
        let sel = json!({"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]});
        assert_eq!(passing(sel), vec!["ns-backend", "ns-nolabels", "ns-test"]);
    }

    /// "NotIn" (ns-backend and ns-nolabels, not in upstream's table, have no env label)
    #[test]
    fn namespace_selector_not_in() {
        let sel = json!({"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["prod", "test"]}]});
        assert_eq!(passing(sel), vec!["ns-backend", "ns-nolabels", "ns-staging"]);
    }

    /// TestMultipleProfilesWithDifferentNamespaceLabelSelectors "profile1" and "profile2"
    #[test]
    fn namespace_selectors_of_two_profiles() {
        assert_eq!(passing(json!({"matchLabels": {"env": "prod"}})), vec!["ns-prod"]);
        assert_eq!(passing(json!({"matchLabels": {"team": "backend"}})), vec!["ns-backend"]);
    }

    // ---- TestGetEffectivePodProtections_TableDriven ----

    fn effective(args: Value) -> Vec<String> {
        effective_protections(&evictor_args(args)).into_iter().collect()
    }

    const DEFAULTS: [&str; 4] = [
        "DaemonSetPods",
        "FailedBarePods",
        "PodsWithLocalStorage",
        "SystemCriticalPods",
    ];

    fn set(v: &[&str]) -> Vec<String> {
        let mut out: Vec<String> = v.iter().map(|s| (*s).to_string()).collect();
        out.sort();
        out
    }

    /// "NewConfig_EmptyConfig_ReturnsDefault"
    #[test]
    fn protections_empty_config() {
        assert_eq!(effective(json!({})), set(&DEFAULTS));
    }

    /// "NewConfig_DisableOneDefault_ReturnsDefaultMinusOne"
    #[test]
    fn protections_disable_one_default() {
        let got = effective(json!({"podProtections": {"defaultDisabled": ["PodsWithLocalStorage"]}}));
        assert_eq!(got, set(&["DaemonSetPods", "FailedBarePods", "SystemCriticalPods"]));
    }

    /// "NewConfig_DisableMultipleDefaults_ReturnsDefaultMinusMultiple"
    #[test]
    fn protections_disable_multiple_defaults() {
        let got = effective(json!({"podProtections": {"defaultDisabled": ["DaemonSetPods", "SystemCriticalPods"]}}));
        assert_eq!(got, set(&["PodsWithLocalStorage", "FailedBarePods"]));
    }

    /// "NewConfig_EnableOneExtra_ReturnsDefaultPlusOne"
    #[test]
    fn protections_enable_one_extra() {
        let got = effective(json!({"podProtections": {"extraEnabled": ["PodsWithPVC"]}}));
        let mut want = DEFAULTS.to_vec();
        want.push("PodsWithPVC");
        assert_eq!(got, set(&want));
    }

    /// "NewConfig_EnableMultipleExtra_ReturnsDefaultPlusMultiple"
    #[test]
    fn protections_enable_multiple_extra() {
        let got = effective(json!({"podProtections": {"extraEnabled": ["PodsWithPVC", "PodsWithoutPDB"]}}));
        let mut want = DEFAULTS.to_vec();
        want.extend(["PodsWithPVC", "PodsWithoutPDB"]);
        assert_eq!(got, set(&want));
    }

    /// "NewConfig_DisableAndEnable_ReturnsModifiedSet"
    #[test]
    fn protections_disable_and_enable() {
        let got = effective(json!({"podProtections": {
            "defaultDisabled": ["FailedBarePods", "DaemonSetPods"],
            "extraEnabled": ["PodsWithPVC"]}}));
        assert_eq!(got, set(&["PodsWithLocalStorage", "SystemCriticalPods", "PodsWithPVC"]));
    }

    /// "NewConfig_DisableAndEnable_ReturnsModifiedSet" (the second, with resource claims)
    #[test]
    fn protections_disable_and_enable_with_resource_claims() {
        let got = effective(json!({"podProtections": {
            "defaultDisabled": ["FailedBarePods", "DaemonSetPods"],
            "extraEnabled": ["PodsWithPVC", "PodsWithResourceClaims"]}}));
        assert_eq!(
            got,
            set(&[
                "PodsWithLocalStorage",
                "SystemCriticalPods",
                "PodsWithPVC",
                "PodsWithResourceClaims"
            ])
        );
    }

    /// "NewConfig_EnableOneExtra(PodsWithResourceClaims)_ReturnsDefaultPlusOne"
    #[test]
    fn protections_enable_resource_claims() {
        let got = effective(json!({"podProtections": {"extraEnabled": ["PodsWithResourceClaims"]}}));
        let mut want = DEFAULTS.to_vec();
        want.push("PodsWithResourceClaims");
        assert_eq!(got, set(&want));
    }
}
