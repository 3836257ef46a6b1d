//! What the scheduler knows about pods and nodes during a cycle (framework/types.go):
//! `PodInfo` with its parsed affinity terms, `NodeInfo` with per-node aggregates, both cheap to
//! clone so the runner can evaluate "what if these pods were added or removed".

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;

use crate::engine::release::{Change, Features, Gate};
use crate::model::resources::Resource;
use crate::model::selector::{Labels, Selector};
use crate::model::{HostPort, Node, Pod};

/// A parsed pod affinity term (`framework.AffinityTerm`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AffinityTerm {
    /// Namespaces listed (or the pod's own when neither list nor selector is given).
    pub namespaces: BTreeSet<String>,
    /// Label selector for pods.
    pub selector: Selector,
    /// Topology key.
    pub topology_key: String,
    /// Namespace selector (Nothing when absent).
    pub namespace_selector: Selector,
}

impl AffinityTerm {
    /// Builds a term for `pod` as `newAffinityTerm` does. With `merge_label_keys`, the term's
    /// matchLabelKeys / mismatchLabelKeys are merged into the selector (what the API server does
    /// from 1.31 on, when MatchLabelKeysInPodAffinity is on).
    ///
    /// A term read from a cluster that merged them already (1.31+: the API server appends the
    /// requirements at the pod's creation and stores the result) is not merged again: merging
    /// twice would require the label's value at creation and its value now, which differ once
    /// the label changed. It is recognised by a matchLabelKeys key its selector names (the API
    /// server refuses a pod naming a key in both), or, with mismatchLabelKeys only, by a
    /// single-value `NotIn` requirement on each of them.
    pub fn new(pod: &Pod, t: &core::PodAffinityTerm, merge_label_keys: bool) -> Self {
        let mut selector = Selector::from_label_selector(t.label_selector.as_ref());
        if merge_label_keys && t.label_selector.is_some() && !Self::merged_already(t) {
            use crate::model::selector::{Op, Requirement};
            for k in t.match_label_keys.iter().flatten() {
                if let Some(v) = pod.labels.get(k) {
                    selector.push(Requirement {
                        key: k.clone(),
                        op: Op::In,
                        values: vec![v.clone()],
                    });
                }
            }
            for k in t.mismatch_label_keys.iter().flatten() {
                if let Some(v) = pod.labels.get(k) {
                    selector.push(Requirement {
                        key: k.clone(),
                        op: Op::NotIn,
                        values: vec![v.clone()],
                    });
                }
            }
        }
        let listed = t.namespaces.clone().unwrap_or_default();
        let namespaces = if listed.is_empty() && t.namespace_selector.is_none() {
            [pod.key.namespace.to_string()].into()
        } else {
            listed.into_iter().collect()
        };
        AffinityTerm {
            namespaces,
            selector,
            topology_key: t.topology_key.clone(),
            namespace_selector: Selector::from_label_selector(t.namespace_selector.as_ref()),
        }
    }

    /// True when the term's selector already holds what the API server merges from its
    /// matchLabelKeys / mismatchLabelKeys (see [`AffinityTerm::new`]).
    pub fn merged_already(t: &core::PodAffinityTerm) -> bool {
        let Some(sel) = &t.label_selector else {
            return false;
        };
        let exprs = sel.match_expressions.as_deref().unwrap_or_default();
        let named = |k: &String| {
            exprs.iter().any(|e| &e.key == k) || sel.match_labels.as_ref().is_some_and(|m| m.contains_key(k))
        };
        let match_keys = t.match_label_keys.as_deref().unwrap_or_default();
        if !match_keys.is_empty() {
            return match_keys.iter().any(named);
        }
        let mismatch_keys = t.mismatch_label_keys.as_deref().unwrap_or_default();
        !mismatch_keys.is_empty()
            && mismatch_keys.iter().all(|k| {
                exprs
                    .iter()
                    .any(|e| &e.key == k && e.operator == "NotIn" && e.values.as_ref().is_some_and(|v| v.len() == 1))
            })
    }

    /// `AffinityTerm.Matches`: namespace listed or selected, and labels selected.
    pub fn matches(&self, pod: &Pod, ns_labels: &Labels) -> bool {
        (self.namespaces.contains(pod.key.namespace.as_str()) || self.namespace_selector.matches(ns_labels))
            && self.selector.matches(&pod.labels)
    }
}

/// A weighted term (preferred affinity).
#[derive(Clone, Debug)]
pub struct WeightedAffinityTerm {
    /// The term.
    pub term: AffinityTerm,
    /// Its weight.
    pub weight: i32,
}

/// Which of the pod's request sums a release uses (`PodRequests`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestsOf {
    /// The containers' spec.
    Spec,
    /// Spec with the status-reported container resources (InPlacePodVerticalScaling).
    Status,
    /// The pod-level spec.resources (PodLevelResources).
    PodLevel,
    /// The pod-level requests with the pod's status resources
    /// (InPlacePodLevelResourcesVerticalScaling).
    PodLevelStatus,
    /// 1.37's "max of sums" of a pod whose status reports resources, computed for the release
    /// ([`Change::PodRequestsMaxOfSums`]).
    Own,
}

/// A pod with its affinity terms parsed once.
#[derive(Clone, Debug)]
pub struct PodInfo {
    /// Which requests the release counts for the pod.
    pub requests_of: RequestsOf,
    /// Whether the node accounts the pod's requests with the defaults filled in per container
    /// (`non_missing`) rather than the non-zero sums: read from the requests by
    /// [`PodInfo::non0`], not copied here (16 bytes a pod: `Arc<PodInfo>` fits 48, not 64).
    non0_from_missing: bool,
    /// Whether the node holds the restartable init containers' host ports for the pod too
    /// (from 1.34, `util.GetHostPorts`; [`PodInfo::host_ports`]).
    sidecar_ports: bool,
    /// The pod.
    pub pod: Arc<Pod>,
    /// The pod's affinity and anti-affinity terms and its own requests; None when it has
    /// neither (most pods: a PodInfo is kept for every pod of the cluster, and four empty lists
    /// cost 96 bytes). Shared by the pods whose terms are the same ([`SharedTerms`]).
    extra: Option<Arc<Extra>>,
}

/// What few pods' infos have, boxed together.
#[derive(Clone, Debug, Default)]
struct Extra {
    terms: PodTerms,
    /// The requests computed for this release when they are none of the pod's precomputed
    /// ones ([`RequestsOf::Own`]).
    own_requests: Option<crate::model::resources::PodRequests>,
}

impl Extra {
    /// The pod's parsed affinity terms; None when it has none.
    fn of(pod: &Pod, merge_label_keys: bool) -> Option<Extra> {
        let aff = pod.affinity.as_deref();
        let p = pod;
        let req = |v: Option<&Vec<core::PodAffinityTerm>>| -> Vec<AffinityTerm> {
            v.into_iter()
                .flatten()
                .map(|t| AffinityTerm::new(p, t, merge_label_keys))
                .collect()
        };
        let pref = |v: Option<&Vec<core::WeightedPodAffinityTerm>>| -> Vec<WeightedAffinityTerm> {
            v.into_iter()
                .flatten()
                .map(|w| WeightedAffinityTerm {
                    term: AffinityTerm::new(p, &w.pod_affinity_term, merge_label_keys),
                    weight: w.weight,
                })
                .collect()
        };
        let pa = aff.and_then(|a| a.pod_affinity.as_ref());
        let paa = aff.and_then(|a| a.pod_anti_affinity.as_ref());
        let required_affinity = req(pa.and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref()));
        let required_anti_affinity =
            req(paa.and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref()));
        let preferred_affinity = pref(pa.and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref()));
        let preferred_anti_affinity =
            pref(paa.and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref()));
        let terms = PodTerms {
            required_affinity,
            required_anti_affinity,
            preferred_affinity,
            preferred_anti_affinity,
        };
        let none = terms.required_affinity.is_empty()
            && terms.required_anti_affinity.is_empty()
            && terms.preferred_affinity.is_empty()
            && terms.preferred_anti_affinity.is_empty();
        (!none).then_some(Extra {
            terms,
            own_requests: None,
        })
    }
}

/// The affinity terms of the pods a walk met lately, for the pods after them that have the
/// same: one template's pods share one `Arc` of their affinity ([`Pod::affinity`]), and in a
/// namespace their terms are the same unless matchLabelKeys / mismatchLabelKeys take values
/// from each pod's labels (then each pod's are its own). Parsed once, held once: a tenth of
/// the page faults of loading a large snapshot went with it.
#[derive(Default)]
pub(crate) struct SharedTerms {
    recent: Vec<Shared>,
}

/// One of [`SharedTerms`]: the affinity (held, so its address is not another's meanwhile),
/// the namespace, whether label keys were merged, the terms.
type Shared = (Arc<core::Affinity>, crate::model::EcoString, bool, Option<Arc<Extra>>);

impl SharedTerms {
    /// How many [`SharedTerms`] keeps.
    const KEEP: usize = 8;

    fn extra_of(&mut self, pod: &Pod, merge_label_keys: bool) -> Option<Arc<Extra>> {
        let aff = pod.affinity.as_ref()?;
        if uses_label_keys(aff) {
            return Extra::of(pod, merge_label_keys).map(Arc::new);
        }
        let ns = &pod.key.namespace;
        if let Some((.., e)) = self
            .recent
            .iter()
            .find(|(a, n, m, _)| Arc::ptr_eq(a, aff) && n == ns && *m == merge_label_keys)
        {
            return e.clone();
        }
        let e = Extra::of(pod, merge_label_keys).map(Arc::new);
        if self.recent.len() == Self::KEEP {
            self.recent.remove(0);
        }
        self.recent.push((aff.clone(), ns.clone(), merge_label_keys, e.clone()));
        e
    }
}

/// Whether a term of the affinity takes values from the pod's labels.
fn uses_label_keys(aff: &core::Affinity) -> bool {
    let keys = |t: &core::PodAffinityTerm| {
        t.match_label_keys.as_ref().is_some_and(|k| !k.is_empty())
            || t.mismatch_label_keys.as_ref().is_some_and(|k| !k.is_empty())
    };
    let any = |req: Option<&Vec<core::PodAffinityTerm>>, pref: Option<&Vec<core::WeightedPodAffinityTerm>>| {
        req.into_iter().flatten().any(keys) || pref.into_iter().flatten().any(|w| keys(&w.pod_affinity_term))
    };
    aff.pod_affinity.as_ref().is_some_and(|a| {
        any(
            a.required_during_scheduling_ignored_during_execution.as_ref(),
            a.preferred_during_scheduling_ignored_during_execution.as_ref(),
        )
    }) || aff.pod_anti_affinity.as_ref().is_some_and(|a| {
        any(
            a.required_during_scheduling_ignored_during_execution.as_ref(),
            a.preferred_during_scheduling_ignored_during_execution.as_ref(),
        )
    })
}

/// A pod's inter-pod affinity terms.
#[derive(Clone, Debug, Default)]
struct PodTerms {
    required_affinity: Vec<AffinityTerm>,
    required_anti_affinity: Vec<AffinityTerm>,
    preferred_affinity: Vec<WeightedAffinityTerm>,
    preferred_anti_affinity: Vec<WeightedAffinityTerm>,
}

impl PodInfo {
    /// The host ports NodePorts checks and the node holds for the pod: the regular
    /// containers' and, from 1.34, first the restartable init containers'. Read from the pod,
    /// not copied into every info.
    pub fn host_ports(&self) -> impl Iterator<Item = &HostPort> + Clone {
        let sidecars = if self.sidecar_ports {
            self.pod.sidecar_host_ports()
        } else {
            &[]
        };
        sidecars.iter().chain(self.pod.host_ports())
    }

    /// The pod as a release sees it: affinity terms with matchLabelKeys merged
    /// (MatchLabelKeysInPodAffinity), the host ports it holds (sidecars' too with
    /// [`Change::SidecarHostPorts`]), the requests it counts and their non-zero form.
    pub fn with_features(pod: Arc<Pod>, features: &Features) -> Self {
        Self::with_features_sharing(pod, features, &mut SharedTerms::default())
    }

    /// As [`PodInfo::with_features`], the terms taken from `shared` when a pod met lately
    /// had the same ones.
    pub(crate) fn with_features_sharing(pod: Arc<Pod>, features: &Features, shared: &mut SharedTerms) -> Self {
        let extra = shared.extra_of(&pod, features.on(Gate::MatchLabelKeysInPodAffinity));
        let mut pi = PodInfo::with_extra(pod, extra);
        pi.sidecar_ports = features.has(Change::SidecarHostPorts);
        let pod_level = features.on(Gate::PodLevelResources);
        if features.has(Change::PodRequestsMaxOfSums)
            && features.on(Gate::InPlacePodVerticalScaling)
            && let Some(sr) = pi.pod.status_resources()
        {
            Arc::make_mut(pi.extra.get_or_insert_default()).own_requests = Some(features.requests_v137(sr));
        }
        pi.requests_of = if pi.extra.as_ref().is_some_and(|e| e.own_requests.is_some()) {
            RequestsOf::Own
        } else if pod_level
            && features.on(Gate::InPlacePodLevelResourcesVerticalScaling)
            && pi.pod.requests_pod_level_status().is_some()
        {
            RequestsOf::PodLevelStatus
        } else if pod_level && pi.pod.requests_pod_level().is_some() {
            RequestsOf::PodLevel
        } else if features.on(Gate::InPlacePodVerticalScaling) && pi.pod.requests_status().is_some() {
            RequestsOf::Status
        } else {
            RequestsOf::Spec
        };
        // 1.30-1.31: per container with init containers as a maximum; from 1.32 (spec
        // requests only) `PodRequests` with the defaults filled in per container.
        pi.non0_from_missing = pi.requests_of == RequestsOf::Own
            || (features.has(Change::NonZeroRequestsCountSidecars) && pi.requests_of == RequestsOf::Spec);
        pi
    }

    /// Parses a pod's affinity (the host ports of its regular containers only, as 1.30-1.33).
    pub fn new(pod: Arc<Pod>, merge_label_keys: bool) -> Self {
        let extra = Extra::of(&pod, merge_label_keys).map(Arc::new);
        PodInfo::with_extra(pod, extra)
    }

    fn with_extra(pod: Arc<Pod>, extra: Option<Arc<Extra>>) -> Self {
        PodInfo {
            requests_of: RequestsOf::Spec,
            non0_from_missing: false,
            sidecar_ports: false,
            extra,
            pod,
        }
    }

    /// Required pod affinity terms.
    pub fn required_affinity(&self) -> &[AffinityTerm] {
        self.extra.as_ref().map_or(&[], |e| &e.terms.required_affinity)
    }

    /// Required pod anti-affinity terms.
    pub fn required_anti_affinity(&self) -> &[AffinityTerm] {
        self.extra.as_ref().map_or(&[], |e| &e.terms.required_anti_affinity)
    }

    /// Preferred pod affinity terms.
    pub fn preferred_affinity(&self) -> &[WeightedAffinityTerm] {
        self.extra.as_ref().map_or(&[], |e| &e.terms.preferred_affinity)
    }

    /// Preferred pod anti-affinity terms.
    pub fn preferred_anti_affinity(&self) -> &[WeightedAffinityTerm] {
        self.extra.as_ref().map_or(&[], |e| &e.terms.preferred_anti_affinity)
    }

    /// The pod's requests as its release computes them (`PodRequests`).
    pub fn requests(&self) -> &crate::model::resources::PodRequests {
        match self.requests_of {
            RequestsOf::PodLevel => self.pod.requests_pod_level().unwrap_or(&self.pod.requests),
            RequestsOf::PodLevelStatus => self.pod.requests_pod_level_status().unwrap_or(&self.pod.requests),
            RequestsOf::Status => self.pod.requests_status().unwrap_or(&self.pod.requests),
            RequestsOf::Own => self
                .extra
                .as_ref()
                .and_then(|e| e.own_requests.as_ref())
                .unwrap_or(&self.pod.requests),
            RequestsOf::Spec => &self.pod.requests,
        }
    }

    /// The non-zero CPU (milli) and memory requests the node accounts for the pod.
    pub fn non0(&self) -> (i64, i64) {
        let r = self.requests();
        if self.non0_from_missing {
            let get = |k: &str| r.non_missing.get(k).copied().unwrap_or(0);
            (get("cpu"), get("memory"))
        } else {
            (r.non0_cpu, r.non0_mem)
        }
    }

    /// True when the pod has any pod affinity or anti-affinity (`PodsWithAffinity`).
    pub fn has_affinity(&self) -> bool {
        let a = self.pod.affinity.as_deref();
        a.is_some_and(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some())
    }

    /// True when the pod has required anti-affinity terms.
    pub fn has_required_anti_affinity(&self) -> bool {
        !self.required_anti_affinity().is_empty()
    }
}

/// Per-node aggregates (`framework.NodeInfo`).
#[derive(Clone, Debug)]
pub struct NodeInfo {
    /// The node.
    pub node: Arc<Node>,
    /// Pods on the node (bound or assumed).
    pub pods: Vec<Arc<PodInfo>>,
    /// Sum of the pods' requests.
    pub requested: Resource,
    /// Sum of the pods' non-zero requests (cpu and memory only).
    pub non_zero_requested: Resource,
    /// Host ports in use.
    pub used_ports: Vec<HostPort>,
    /// PVCs used by pods on the node, `namespace/name` → pod count.
    pub pvc_ref_counts: BTreeMap<String, usize>,
    /// Number of pods with pod affinity or anti-affinity.
    pub pods_with_affinity: usize,
    /// Number of pods with required anti-affinity.
    pub pods_with_required_anti_affinity: usize,
    /// The pods with pod affinity or anti-affinity (`PodsWithAffinity`).
    pub affinity_pods: Vec<Arc<PodInfo>>,
    /// The pods with required anti-affinity (`PodsWithRequiredAntiAffinity`).
    pub required_anti_affinity_pods: Vec<Arc<PodInfo>>,
}

impl NodeInfo {
    /// An empty node.
    pub fn new(node: Arc<Node>) -> Self {
        NodeInfo {
            node,
            pods: Vec::new(),
            requested: Resource::default(),
            non_zero_requested: Resource::default(),
            used_ports: Vec::new(),
            pvc_ref_counts: BTreeMap::new(),
            pods_with_affinity: 0,
            pods_with_required_anti_affinity: 0,
            affinity_pods: Vec::new(),
            required_anti_affinity_pods: Vec::new(),
        }
    }

    /// Node name.
    pub fn name(&self) -> &str {
        &self.node.name
    }

    /// Allocatable resources.
    pub fn allocatable(&self) -> &Resource {
        &self.node.allocatable
    }

    fn update(&mut self, pi: &PodInfo, sign: i64) {
        let p = &pi.pod;
        let (non0_cpu, non0_mem) = pi.non0();
        self.requested.add_scaled(&pi.requests().resource, sign);
        // saturating, as the requests themselves (model::resources): absurd amounts never panic
        let nz = &mut self.non_zero_requested;
        nz.milli_cpu = nz.milli_cpu.saturating_add(sign.saturating_mul(non0_cpu));
        nz.memory = nz.memory.saturating_add(sign.saturating_mul(non0_mem));
        if pi.has_affinity() {
            self.pods_with_affinity = self.pods_with_affinity.saturating_add_signed(sign as isize);
        }
        if pi.has_required_anti_affinity() {
            self.pods_with_required_anti_affinity = self
                .pods_with_required_anti_affinity
                .saturating_add_signed(sign as isize);
        }
        for hp in pi.host_ports() {
            if sign > 0 {
                self.used_ports.push(hp.clone());
            } else if let Some(i) = self.used_ports.iter().position(|x| x == hp) {
                self.used_ports.remove(i);
            }
        }
        for claim in p.pvc_claims() {
            {
                let k = format!("{}/{}", p.key.namespace, claim);
                if sign > 0 {
                    *self.pvc_ref_counts.entry(k).or_insert(0) += 1;
                } else if let Some(n) = self.pvc_ref_counts.get_mut(&k) {
                    *n -= 1;
                    if *n == 0 {
                        self.pvc_ref_counts.remove(&k);
                    }
                }
            }
        }
    }

    /// `NodeInfo.AddPodInfo`.
    pub fn add_pod(&mut self, pi: Arc<PodInfo>) {
        self.update(&pi, 1);
        if pi.has_affinity() {
            self.affinity_pods.push(pi.clone());
        }
        if pi.has_required_anti_affinity() {
            self.required_anti_affinity_pods.push(pi.clone());
        }
        self.pods.push(pi);
    }

    /// `NodeInfo.RemovePod` by uid (the pod's, [`Pod::same_uid`]); false when the pod is not
    /// on the node.
    pub fn remove_pod(&mut self, pod: &Pod) -> bool {
        let Some(i) = self.pods.iter().position(|p| p.pod.same_uid(pod)) else {
            return false;
        };
        let pi = self.pods.remove(i);
        self.update(&pi, -1);
        self.affinity_pods.retain(|p| !p.pod.same_uid(pod));
        self.required_anti_affinity_pods.retain(|p| !p.pod.same_uid(pod));
        true
    }
}

#[cfg(test)]
mod tests {
    /// A snapshot holds an `Arc<PodInfo>` per pod: 48 bytes fit mimalloc's 48-byte bin (the
    /// host ports are read from the pod, not copied into every info: 96 before; own requests
    /// in the box of affinity terms and a `OnceBox` of images: 80 before; the non-zero
    /// requests read from the requests: 64 before).
    #[test]
    fn an_arc_pod_info_fits_the_48_byte_bin() {
        let arc = std::mem::size_of::<super::PodInfo>() + 2 * std::mem::size_of::<usize>();
        assert!(arc <= 48, "Arc<PodInfo> is {arc} bytes");
    }

    use std::sync::Arc;

    use crate::engine::framework::snapshot::Snapshot;
    use crate::source::file::load_str;

    /// One 8-CPU node running `p` (its spec, status and conditions as given).
    fn node_with(pod: &str) -> String {
        format!(
            r#"
apiVersion: v1
kind: List
items:
- {{apiVersion: v1, kind: Node, metadata: {{name: n}}, status: {{allocatable: {{cpu: "8", memory: 16Gi, pods: "10"}}}}}}
- apiVersion: v1
  kind: Pod
  metadata: {{name: p, namespace: a}}
{pod}
"#
        )
    }

    fn requested(text: &str, minor: u32) -> (i64, i64, i64) {
        let snap = Snapshot::new(
            Arc::new(load_str("t", text).unwrap()),
            crate::testkit::builders::rel(minor),
        );
        let n = snap.node("n").expect("node");
        (
            n.requested.milli_cpu,
            n.non_zero_requested.milli_cpu,
            n.non_zero_requested.memory,
        )
    }

    /// A pod without inter-pod terms keeps no box for them; one with terms reads each list
    /// from it, in spec order.
    #[test]
    fn affinity_terms_are_kept_only_for_pods_that_have_some() {
        let text = node_with(
            r#"  spec:
    nodeName: n
    containers: [{name: c, image: i}]
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - {topologyKey: zone, labelSelector: {matchLabels: {app: a}}}
        - {topologyKey: rack, labelSelector: {matchLabels: {app: b}}}
        preferredDuringSchedulingIgnoredDuringExecution:
        - {weight: 7, podAffinityTerm: {topologyKey: host, labelSelector: {matchLabels: {app: c}}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: plain, namespace: a}
  spec: {nodeName: n, containers: [{name: c, image: i}]}"#,
        );
        let snap = Snapshot::new(
            Arc::new(load_str("t", &text).expect("load")),
            crate::testkit::builders::rel(34),
        );
        let n = snap.node("n").expect("node");
        let of = |name: &str| n.pods.iter().find(|p| p.pod.key.name == name).expect("pod");
        let (p, plain) = (of("p"), of("plain"));
        assert!(plain.extra.is_none());
        assert!(plain.required_affinity().is_empty() && plain.preferred_anti_affinity().is_empty());
        assert!(p.required_affinity().is_empty() && p.preferred_affinity().is_empty());
        let keys: Vec<&str> = p
            .required_anti_affinity()
            .iter()
            .map(|t| t.topology_key.as_str())
            .collect();
        assert_eq!(keys, ["zone", "rack"]);
        let pref: Vec<(&str, i32)> = p
            .preferred_anti_affinity()
            .iter()
            .map(|w| (w.term.topology_key.as_str(), w.weight))
            .collect();
        assert_eq!(pref, [("host", 7)]);
        assert!(p.has_required_anti_affinity() && !plain.has_required_anti_affinity());
    }

    #[test]
    fn sidecar_counts_in_the_non_zero_sum_from_1_32() {
        let text = node_with(
            r#"  spec:
    nodeName: n
    initContainers: [{name: s, image: i, restartPolicy: Always, resources: {requests: {cpu: "1", memory: 1Gi}}}]
    containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]"#,
        );
        assert_eq!(requested(&text, 31), (2000, 1000, 1 << 30));
        assert_eq!(requested(&text, 32), (2000, 2000, 2 << 30));
    }

    #[test]
    fn status_resources_count_from_1_33() {
        // A resize from 1 to 2 CPUs in progress: the kubelet reports 2 (actual and allocated).
        let resizing = |condition: &str| {
            node_with(&format!(
                r#"  spec:
    nodeName: n
    containers: [{{name: c, image: i, resources: {{requests: {{cpu: "3", memory: 1Gi}}}}}}]
  status:
    conditions: [{condition}]
    containerStatuses:
    - {{name: c, image: i, imageID: "", ready: true, restartCount: 0, resources: {{requests: {{cpu: "2", memory: 1Gi}}}}, allocatedResources: {{cpu: "2", memory: 1Gi}}}}"#
            ))
        };
        // Spec asks 3: the larger of spec, status and allocated.
        let text = resizing("");
        assert_eq!(requested(&text, 32).0, 3000, "1.32 reads the spec only");
        assert_eq!(requested(&text, 33).0, 3000);
        // An infeasible resize: status and allocated only.
        let text = resizing("{type: PodResizePending, status: \"True\", reason: Infeasible}");
        assert_eq!(requested(&text, 32).0, 3000);
        assert_eq!(requested(&text, 33).0, 2000);
        assert_eq!(requested(&text, 34).0, 2000);
    }

    #[test]
    fn pod_level_requests_count_from_1_34() {
        let text = node_with(
            r#"  spec:
    nodeName: n
    resources: {requests: {cpu: "4", memory: 2Gi}}
    containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}, {name: d, image: i}]"#,
        );
        // 1.33: the containers' 1 CPU; non-zero adds 100m for the container without requests.
        assert_eq!(requested(&text, 33), (1000, 1100, 2 * 200 * 1024 * 1024));
        // 1.34: the pod-level 4 CPU and 2Gi stand for the pod.
        assert_eq!(requested(&text, 34), (4000, 4000, 2 << 30));
    }

    /// 1.36 (InPlacePodLevelResourcesVerticalScaling, beta): a bound pod's pod-level requests
    /// take its status resources when larger (status and allocated only while the resize is
    /// infeasible).
    #[test]
    fn pod_level_status_resources_count_from_1_36() {
        let pod = |condition: &str| {
            node_with(&format!(
                r#"  spec:
    nodeName: n
    resources: {{requests: {{cpu: "1", memory: 1Gi}}}}
    containers: [{{name: c, image: i}}]
  status:
    conditions: [{condition}]
    resources: {{requests: {{cpu: "2"}}}}
    allocatedResources: {{cpu: 1500m}}"#
            ))
        };
        let text = pod("");
        assert_eq!(requested(&text, 35).0, 1000, "1.35: the gate is alpha, off");
        assert_eq!(requested(&text, 36).0, 2000);
        // Infeasible: the larger of status and allocated, the spec left out.
        let text = pod("{type: PodResizePending, status: \"True\", reason: Infeasible}");
        assert_eq!(requested(&text, 36).0, 2000);
        // Memory is only in the spec: infeasible drops it to the status' (none: zero).
        let snap = Snapshot::new(
            Arc::new(load_str("t", &text).unwrap()),
            crate::testkit::builders::rel(36),
        );
        assert_eq!(snap.node("n").expect("node").requested.memory, 0);
    }

    /// component-helpers TestAggregateContainerRequestsAndLimits and
    /// TestPodRequestsAndLimitsVerticalScalingWrappers (1.37, #140047): a pod's status resources
    /// count as the larger of the sums, not the sum of the per-container maxima.
    #[test]
    fn status_resources_count_as_the_larger_sum_from_1_37() {
        let pod =
            |spec: &str, status: &str| node_with(&format!("  spec:\n    nodeName: n\n{spec}\n  status:\n{status}"));
        // "max of sums (requests)": spec 1 + 2, allocated 2 + 1: 3 (1.36: 2 + 2).
        let text = pod(
            "    containers: [{name: c1, image: i, resources: {requests: {cpu: \"1\"}}}, {name: c2, image: i, resources: {requests: {cpu: \"2\"}}}]",
            "    containerStatuses:\n    - {name: c1, image: i, imageID: \"\", ready: true, restartCount: 0, allocatedResources: {cpu: \"2\"}, resources: {requests: {cpu: \"2\"}}}\n    - {name: c2, image: i, imageID: \"\", ready: true, restartCount: 0, allocatedResources: {cpu: \"1\"}, resources: {requests: {cpu: \"1\"}}}",
        );
        assert_eq!(requested(&text, 36).0, 4000);
        assert_eq!(requested(&text, 37).0, 3000);
        // "status-only requests": no spec request, status 2.
        let text = pod(
            "    containers: [{name: c1, image: i}]",
            "    containerStatuses:\n    - {name: c1, image: i, imageID: \"\", ready: true, restartCount: 0, resources: {requests: {cpu: \"2\"}}}",
        );
        assert_eq!(requested(&text, 37).0, 2000);
        // "sidecar status-only": a restartable init container reporting 2.
        let text = pod(
            "    initContainers: [{name: s, image: i, restartPolicy: Always}]\n    containers: [{name: c1, image: i}]",
            "    initContainerStatuses:\n    - {name: s, image: i, imageID: \"\", ready: true, restartCount: 0, resources: {requests: {cpu: \"2\"}}}",
        );
        assert_eq!(requested(&text, 37).0, 2000);
        // "PLR direct from pod status": the pod's own status maps stand for the containers'.
        let text = pod(
            "    containers: [{name: c1, image: i, resources: {requests: {cpu: \"1\"}}}]",
            "    allocatedResources: {cpu: \"4\"}\n    resources: {requests: {cpu: \"3\"}}",
        );
        assert_eq!(requested(&text, 37).0, 4000);
        // "PLR fallback (pod alloc nil)": the containers' status then.
        let text = pod(
            "    containers: [{name: c1, image: i, resources: {requests: {cpu: \"1\"}}}]",
            "    resources: {requests: {cpu: \"3\"}}\n    containerStatuses:\n    - {name: c1, image: i, imageID: \"\", ready: true, restartCount: 0, allocatedResources: {cpu: \"6\"}, resources: {requests: {cpu: \"5\"}}}",
        );
        assert_eq!(requested(&text, 37).0, 6000);
        // Vertical scaling wrappers: pod-level spec 2, status 3.5 allocated 3 → 3.5; infeasible
        // with spec 10, status 4, allocated 3 → 4.
        let text = pod(
            "    resources: {requests: {cpu: \"2\"}}\n    containers: [{name: c1, image: i, resources: {requests: {cpu: \"1\"}}}]",
            "    allocatedResources: {cpu: \"3\"}\n    resources: {requests: {cpu: 3500m}}",
        );
        assert_eq!(requested(&text, 37).0, 3500);
        let text = pod(
            "    resources: {requests: {cpu: \"10\"}}\n    containers: [{name: c1, image: i, resources: {requests: {cpu: \"1\"}}}]",
            "    conditions: [{type: PodResizePending, status: \"True\", reason: Infeasible}]\n    allocatedResources: {cpu: \"3\"}\n    resources: {requests: {cpu: \"4\"}}",
        );
        assert_eq!(requested(&text, 37).0, 4000);
    }

    /// The pods of one namespace with the same affinity share its parsed terms; a pod of
    /// another namespace gets its own (defaulted to its namespace), and so does each pod whose
    /// terms take values from its labels (matchLabelKeys).
    #[test]
    fn pods_with_the_same_affinity_share_its_terms() {
        let anti = "affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: w}}, topologyKey: kubernetes.io/hostname}]}}";
        let keyed = "affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: w}}, matchLabelKeys: [v], topologyKey: kubernetes.io/hostname}]}}";
        let pod = |ns: &str, name: &str, v: &str, aff: &str| {
            format!(
                "- {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: {ns}, labels: {{app: w, v: '{v}'}}}}, spec: {{nodeName: n, {aff}, containers: [{{name: c}}]}}}}\n"
            )
        };
        let text = format!(
            "apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: Node, metadata: {{name: n}}, status: {{allocatable: {{cpu: '8', pods: '10'}}}}}}\n{}{}{}{}{}",
            pod("a", "p1", "1", anti),
            pod("a", "p2", "1", anti),
            pod("b", "p3", "1", anti),
            pod("a", "k1", "1", keyed),
            pod("a", "k2", "2", keyed),
        );
        let snap = Snapshot::new(
            Arc::new(load_str("t", &text).unwrap()),
            crate::testkit::builders::rel(34),
        );
        let info = |ns: &str, name: &str| {
            snap.pod_infos
                .get(&crate::model::ObjectKey::new(ns, name))
                .unwrap()
                .clone()
        };
        let (p1, p2, p3, k1, k2) = (
            info("a", "p1"),
            info("a", "p2"),
            info("b", "p3"),
            info("a", "k1"),
            info("a", "k2"),
        );
        let extra = |pi: &PodInfoArc| pi.extra.clone().expect("terms");
        assert!(Arc::ptr_eq(
            &p1.pod.affinity.clone().unwrap(),
            &p3.pod.affinity.clone().unwrap()
        ));
        assert!(Arc::ptr_eq(&extra(&p1), &extra(&p2)));
        assert!(!Arc::ptr_eq(&extra(&p1), &extra(&p3)));
        let namespaces = |pi: &PodInfoArc| {
            pi.required_anti_affinity()[0]
                .namespaces
                .iter()
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(
            (namespaces(&p1), namespaces(&p3)),
            (vec!["a".to_string()], vec!["b".to_string()])
        );
        assert!(!Arc::ptr_eq(&extra(&k1), &extra(&k2)));
        let selector = |pi: &PodInfoArc| format!("{:?}", pi.required_affinity()[0].selector);
        assert!(
            selector(&k1).contains("\"1\"") && selector(&k2).contains("\"2\""),
            "{} / {}",
            selector(&k1),
            selector(&k2)
        );
    }

    type PodInfoArc = Arc<super::PodInfo>;
}
