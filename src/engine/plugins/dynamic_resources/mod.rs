//! Port of framework/plugins/dynamicresources (dynamicresources.go and
//! extendeddynamicresources.go, v1.34.7, v1.35.7, v1.36.2): Dynamic Resource Allocation. In
//! the default profile from 1.34 (DynamicResourceAllocation GA), inserted before
//! DefaultPreemption; a Score plugin with weight 2 from 1.35.
//!
//! - PreEnqueue: the pod's claims must exist (`could not find ResourceClaim "ns/name"`), be
//!   created for template claims (`pod "ns/pod": ResourceClaim not created yet`), not be
//!   deleted (`resourceclaim "name" is being deleted`), and a template claim must be owned by
//!   the pod (`... was not created for pod ...`, `Pod` from 1.36).
//! - PreFilter: Skip without claims; an unallocated claim's request naming a DeviceClass that
//!   does not exist rejects the pod on every node (`request r: device class c does not
//!   exist`). An allocated claim pins the pod to its allocation's node selector.
//! - Filter: the claims still to allocate are allocated together on the node by the
//!   structured allocator ([`allocator`]): `cannot allocate all claims` when they do not fit,
//!   which beats `resourceclaim not available on the node` (an allocated claim elsewhere);
//!   allocator errors (CEL errors, All-mode pool problems) are Filter errors, which end the
//!   scheduling attempt.
//! - PostFilter: deallocates one allocated claim not available on the rejected nodes that no
//!   other pod uses (`deallocation of ResourceClaim completed`), else `still not
//!   schedulable`; `no new claims to deallocate` for a pod without claims; the framework
//!   joins the message before DefaultPreemption's.
//! - Score (1.35+): the sum of `8 - i` over the `firstAvailable` subrequests chosen (index
//!   `i`), normalized to 100 by the highest.
//! - Reserve and PreBind: what would be written (each claim's allocation and the pod in its
//!   `reservedFor`).
//! - 1.36 (DRAExtendedResource): container requests of extended resources a node lacks that a
//!   DeviceClass maps ([`extended`]) become one more claim, allocated with the others.
//!
//! The explanation also gets the pod's claims node by node ([`crate::engine::framework::trace::DraTrace`]):
//! how each request's candidate devices narrow down and why a node failed.

pub(crate) mod allocator;
mod bind;
pub(crate) mod cel;
pub(crate) mod extended;
#[cfg(test)]
mod upstream_tests;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use k8s_openapi::api::resource::v1 as dra;
use serde::Deserialize;
use serde_json::Value;

use self::allocator::{
    AllocFeatures, AllocatedState, ClaimToAllocate, DeviceResult, FIRST_AVAILABLE_MAX, Generation, Implementation,
    Inputs, NodeView, Outcome, Rules,
};
use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{
    Ctx, FilterPlugin, NodeScore, Plugin, PluginSlots, PluginsRunner, PostFilterPlugin, PreBindOut, PreBindPlugin,
    PreEnqueuePlugin, PreFilterPlugin, ReservePlugin, ScorePlugin, ScoreResult, Signing,
};
use crate::engine::framework::status::{Code, Status};
use crate::engine::framework::trace::{
    DraClaim, DraNode, DraRequestOnNode, DraTrace, Explanation, Lines, PostFilterTrace,
};
use crate::engine::release::{Change, Features, Gate};
use crate::model::selector::NodeSelectorMatcher;
use crate::model::write::{Edit, Target, Update, WriteRequest};
use crate::model::{Cluster, ObjectKey, Pod};

static STATE_KEY: &str = "PreFilterDynamicResources";

/// PostFilter's answer for a pod without claims.
pub(crate) const NO_NEW_CLAIMS: &str = "no new claims to deallocate";
/// PostFilter's answer when the gate is off.
pub(crate) const PLUGIN_DISABLED: &str = "plugin disabled";
/// `fwk.ErrNotFound`: the cycle state has no entry for the plugin.
pub(crate) const STATE_NOT_FOUND: &str = "not found";
/// PostFilter: nothing to deallocate helps.
pub(crate) const STILL_NOT_SCHEDULABLE: &str = "still not schedulable";
/// PostFilter: an allocated claim was released.
pub(crate) const DEALLOCATED: &str = "deallocation of ResourceClaim completed";
/// PostFilter: the pod's extended-resource claim from an earlier attempt was deleted.
pub(crate) const DELETED: &str = "deletion of ResourceClaim completed";
/// Filter: the claims to allocate do not fit on the node.
pub(crate) const CANNOT_ALLOCATE: &str = "cannot allocate all claims";
/// Filter: an allocated claim's node selector leaves the node out.
pub(crate) const NOT_AVAILABLE: &str = "resourceclaim not available on the node";
/// Filter (1.35+): nothing fits and a pool on the node is invalid.
pub(crate) const INVALID_POOLS: &str = "invalid resource pools were encountered";

/// `DynamicResourcesArgs` (v1). Decoded so a configuration with these args is read as
/// kube-scheduler reads it (unknown fields refused); neither timeout changes a verdict the
/// engine computes (it has no clock), so neither is read after decoding.
#[derive(Clone, Debug, Default, Deserialize)]
#[allow(dead_code, reason = "the timeouts are decoded, not used: the engine has no clock")]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Args {
    /// filterTimeout (a duration; DRASchedulerFilterTimeout).
    #[serde(default)]
    pub filter_timeout: Option<String>,
    /// bindingTimeout (1.35+; DRADeviceBindingConditions).
    #[serde(default)]
    pub binding_timeout: Option<String>,
}

/// What PreFilter recorded.
#[derive(Clone, Debug, Default)]
struct StateData {
    /// The claims (user claims in spec order, the extended-resource claim last); empty until
    /// PreFilter got through, which is what PostFilter checks.
    claims: Vec<Arc<dra::ResourceClaim>>,
    /// Index of the extended-resource claim in `claims`.
    ext: Option<usize>,
    /// The pod has claims of its own (not only extended resources).
    user_claims: bool,
    /// Per claim: the node selector of its allocation.
    available_on: Vec<Option<NodeSelectorMatcher>>,
    /// Devices in use, when some claim needs allocating (the allocator runs).
    allocated: Option<Arc<AllocatedState>>,
    /// The pod's extended resources (1.36).
    pod_scalar: BTreeMap<String, i64>,
    /// What Filter found per node (shared by every copy of the state, as upstream's state is
    /// one pointer).
    per_node: Arc<Mutex<BTreeMap<String, NodeResult>>>,
}

#[derive(Clone, Debug, Default)]
struct NodeResult {
    /// Claims (indexes) whose allocation leaves the node out.
    unavailable: Vec<usize>,
    /// The new allocations, per claim to allocate.
    results: Option<Vec<Vec<DeviceResult>>>,
}

/// DynamicResources.
pub(crate) struct DynamicResources {
    enabled: bool,
    /// Score counts `firstAvailable` choices (1.35+; at 1.36 only with DRAPrioritizedList).
    scores: bool,
    /// [`Change::DraScoreIndexesNewAllocations`].
    score_fixed: bool,
    /// [`Change::DynamicResourcesPostFilterWithoutReasons`].
    silent_post_filter: bool,
    /// [`Change::DraClaimOwnerTextCapitalized`].
    owner_text_pod: bool,
    /// DRAExtendedResource.
    extended: bool,
    /// DRAPrioritizedList.
    prioritized_list: bool,
    /// Binding conditions are checked (DRADeviceBindingConditions and
    /// DRAResourceClaimDeviceStatus).
    binding: bool,
    rules: Rules,
    /// [`Change::DraCelErrorNamesDevice`].
    cel_error_names_device: bool,
    /// [`Change::DraAllModePoolFailsNode`].
    all_mode_pool_fails_node: bool,
    /// [`Change::DraLiveShareBlocksDedicated`].
    live_share_blocks_dedicated: bool,
    /// [`Change::DraCapacityNamesQualified`].
    qualified_capacity_names: bool,
    /// The allocator generation and implementation (the allocation result's shape).
    generation: Generation,
    implementation: Implementation,
    features: AllocFeatures,
    cel: cel::Compiler,
}

fn has_claims(pod: &Pod) -> bool {
    pod.obj
        .spec
        .as_ref()
        .and_then(|s| s.resource_claims.as_ref())
        .is_some_and(|c| !c.is_empty())
}

fn kobj(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> String {
    let name = m.name.as_deref().unwrap_or("");
    match m.namespace.as_deref().filter(|n| !n.is_empty()) {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    }
}

/// `foreachPodResourceClaim`: the pod's claims in spec order (a template claim not created on
/// purpose is left out), or the first reason one cannot be used.
pub(crate) fn pod_claims<'c>(
    cluster: &'c Cluster,
    pod: &Pod,
    owner_text_pod: bool,
) -> Result<Vec<(String, &'c dra::ResourceClaim)>, String> {
    let spec_claims = pod
        .obj
        .spec
        .as_ref()
        .and_then(|s| s.resource_claims.as_deref())
        .unwrap_or(&[]);
    let statuses = pod
        .obj
        .status
        .as_ref()
        .and_then(|s| s.resource_claim_statuses.as_deref())
        .unwrap_or(&[]);
    let ns = &pod.key.namespace;
    let mut out = Vec::new();
    for pc in spec_claims {
        let (name, check_owner) = if let Some(n) = &pc.resource_claim_name {
            (Some(n.clone()), false)
        } else if pc.resource_claim_template_name.is_some() {
            match statuses.iter().find(|s| s.name == pc.name) {
                Some(s) => (s.resource_claim_name.clone(), true),
                None => return Err(format!("pod \"{}\": ResourceClaim not created yet", pod.key)),
            }
        } else {
            return Err(format!(
                "pod \"{}\", spec.resourceClaim {:?}: none of the supported fields are set",
                pod.key, pc.name
            ));
        };
        let Some(name) = name else { continue };
        let key = ObjectKey::new(ns.clone(), name.clone());
        let Some(claim) = cluster.resource_claims.get(&key) else {
            return Err(format!("could not find ResourceClaim \"{ns}/{name}\""));
        };
        if claim.metadata.deletion_timestamp.is_some() {
            return Err(format!("resourceclaim {name:?} is being deleted"));
        }
        if check_owner {
            let owner_uid = claim
                .metadata
                .owner_references
                .iter()
                .flatten()
                .find(|r| r.controller == Some(true))
                .map(|r| r.uid.as_str());
            let same_ns = claim.metadata.namespace.as_deref().unwrap_or("") == ns;
            if !same_ns || !owner_uid.is_some_and(|u| pod.has_uid(u)) {
                let (w1, w2) = if owner_text_pod { ("Pod", "Pod") } else { ("pod", "pod") };
                return Err(format!(
                    "ResourceClaim {} was not created for {w1} {} ({w2} is not owner)",
                    kobj(&claim.metadata),
                    pod.key
                ));
            }
        }
        out.push((pc.name.clone(), claim));
    }
    Ok(out)
}

fn devices(c: &dra::ResourceClaim) -> Option<&dra::DeviceClaim> {
    c.spec.as_ref().and_then(|s| s.devices.as_ref())
}

fn allocation(c: &dra::ResourceClaim) -> Option<&dra::AllocationResult> {
    c.status.as_ref().and_then(|s| s.allocation.as_ref())
}

fn reserved_for(c: &dra::ResourceClaim) -> &[dra::ResourceClaimConsumerReference] {
    c.status.as_ref().and_then(|s| s.reserved_for.as_deref()).unwrap_or(&[])
}

impl DynamicResources {
    fn inputs<'a>(
        &'a self,
        cluster: &'a Cluster,
        allocated: &'a AllocatedState,
        slices: &'a [&'a dra::ResourceSlice],
    ) -> Inputs<'a> {
        Inputs {
            rules: self.rules,
            features: self.features,
            allocated,
            classes: &cluster.device_classes,
            slices,
            cel: &self.cel,
            cel_error_names_device: self.cel_error_names_device,
            all_mode_pool_fails_node: self.all_mode_pool_fails_node,
            live_share_blocks_dedicated: self.live_share_blocks_dedicated,
            qualified_capacity_names: self.qualified_capacity_names,
        }
    }

    /// `validateDeviceClass`.
    fn validate_class(&self, cluster: &Cluster, class: &str, request: &str) -> Status {
        if class.is_empty() {
            return Status::error(format!("request {request}: unsupported request type"));
        }
        if !cluster.device_classes.contains_key(class) {
            return Status::unresolvable(format!("request {request}: device class {class} does not exist"));
        }
        Status::success()
    }

    /// The pod's extended resources a DeviceClass maps (1.36), and the claim that carries
    /// them: the one the scheduler created in an earlier attempt, or a new one.
    fn extended_claim(&self, cluster: &Cluster, pod: &PodInfo) -> Option<(BTreeMap<String, i64>, dra::ResourceClaim)> {
        if !self.extended {
            return None;
        }
        let reqs = &pod.requests().list;
        let mapped = reqs.iter().any(|(name, q)| {
            *q != 0 && extended::is_dra_extended_name(name) && extended::device_class_for(cluster, name).is_some()
        });
        if !mapped {
            return None;
        }
        let scalar: BTreeMap<String, i64> = pod
            .requests()
            .resource
            .scalar
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        let p = &pod.pod;
        let existing = cluster.resource_claims.values().find(|c| {
            c.metadata.namespace.as_deref() == Some(p.key.namespace.as_str())
                && c.metadata
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get(extended::CLAIM_ANNOTATION))
                    .is_some_and(|v| v == "true")
                && c.metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|r| r.name == p.key.name && r.controller == Some(true) && p.has_uid(&r.uid))
        });
        let claim = match existing {
            Some(c) => c.clone(),
            None => dra::ResourceClaim {
                metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                    namespace: Some(p.key.namespace.to_string()),
                    name: Some(extended::SPECIAL_CLAIM_NAME.into()),
                    generate_name: Some(format!("{}-extended-resources-", p.key.name)),
                    annotations: Some([(extended::CLAIM_ANNOTATION.to_string(), "true".to_string())].into()),
                    ..Default::default()
                },
                spec: Some(dra::ResourceClaimSpec::default()),
                status: None,
            },
        };
        Some((scalar, claim))
    }

    /// `filterExtendedResources`: the node's extended-resource claim, or a rejection, or
    /// nothing to do.
    fn node_extended_claim(
        &self,
        cluster: &Cluster,
        s: &StateData,
        pod: &PodInfo,
        node: &NodeInfo,
    ) -> Result<Option<dra::ResourceClaim>, Status> {
        let Some(ei) = s.ext else { return Ok(None) };
        let ext = &s.claims[ei];
        if devices(ext).and_then(|d| d.requests.as_ref()).is_some() {
            return Err(Status::unresolvable("cannot schedule extended resource claim"));
        }
        let alloc = &node.allocatable().scalar;
        let mut wanted = BTreeMap::new();
        for (name, q) in &s.pod_scalar {
            if *q == 0 || !extended::is_dra_extended_name(name) {
                continue;
            }
            let have = alloc.get(name);
            if extended::device_class_for(cluster, name).is_some() && have.copied().unwrap_or(0) == 0 {
                wanted.insert(name.clone(), *q);
            } else if have.is_none() {
                return Err(Status::unresolvable("cannot fit resource"));
            }
        }
        if !s.user_claims && wanted.is_empty() {
            return Ok(None);
        }
        if allocation(ext).is_some() {
            return Ok(None);
        }
        let mut c = (**ext).clone();
        let requests = extended::requests_for(cluster, &pod.pod.obj, &wanted);
        c.spec.get_or_insert_with(Default::default).devices = Some(extended::device_claim(&requests));
        Ok(Some(c))
    }

    /// The allocation attempt on a node: (the claims to allocate, the outcome), or None when
    /// there is nothing to allocate.
    fn attempt(
        &self,
        cx: &Ctx<'_>,
        s: &StateData,
        pod: &PodInfo,
        node: &NodeInfo,
    ) -> Result<Option<(Vec<dra::ResourceClaim>, Outcome)>, Status> {
        let cluster = &cx.snapshot.cluster;
        let node_ext = self.node_extended_claim(cluster, s, pod, node)?;
        let Some(allocated) = &s.allocated else {
            return Ok(None);
        };
        let mut to_alloc: Vec<dra::ResourceClaim> = Vec::new();
        for (i, c) in s.claims.iter().enumerate() {
            if allocation(c).is_some() {
                continue;
            }
            if Some(i) == s.ext {
                if let Some(n) = &node_ext {
                    to_alloc.push(n.clone());
                }
                continue;
            }
            to_alloc.push((**c).clone());
        }
        let slices: Vec<&dra::ResourceSlice> = cluster.resource_slices.values().collect();
        let inputs = self.inputs(cluster, allocated, &slices);
        let empty = dra::DeviceClaim::default();
        let claims: Vec<ClaimToAllocate<'_>> = to_alloc
            .iter()
            .map(|c| ClaimToAllocate {
                key: kobj(&c.metadata),
                spec: devices(c).unwrap_or(&empty),
            })
            .collect();
        let view = NodeView {
            name: node.name(),
            labels: &node.node.labels,
        };
        let outcome = allocator::allocate(&inputs, &view, &claims);
        drop(claims);
        Ok(Some((to_alloc, outcome)))
    }

    /// `isClaimReadyForBinding` failing with an error, or not ready: the claim cannot be used
    /// on any node. Timeouts are not modelled (a snapshot has no clock here).
    fn binding_failed(&self, c: &dra::ResourceClaim) -> bool {
        if !self.binding {
            return false;
        }
        let Some(results) = allocation(c)
            .and_then(|a| a.devices.as_ref())
            .and_then(|d| d.results.as_ref())
        else {
            return false;
        };
        let statuses = c.status.as_ref().and_then(|s| s.devices.as_deref()).unwrap_or(&[]);
        results.iter().any(|r| {
            let failure = r.binding_failure_conditions.as_deref().unwrap_or(&[]);
            if r.binding_conditions.as_ref().is_none_or(Vec::is_empty) {
                return false;
            }
            let Some(st) = statuses
                .iter()
                .find(|d| d.driver == r.driver && d.pool == r.pool && d.device == r.device)
            else {
                return false;
            };
            st.conditions
                .iter()
                .flatten()
                .any(|cond| failure.contains(&cond.type_) && cond.status == "True")
        })
    }
}

impl Plugin for DynamicResources {
    fn name(&self) -> &'static str {
        names::DYNAMIC_RESOURCES
    }

    fn sign_pod(&self, _: &Ctx<'_>, pod: &PodInfo) -> Signing {
        if pod.pod.spec().resource_claims.as_ref().is_some_and(|c| !c.is_empty()) {
            return Signing::Refused("pods with dra resource claims are not signable");
        }
        Signing::Signed
    }
}

impl PreEnqueuePlugin for DynamicResources {
    fn pre_enqueue(&self, cx: &Ctx<'_>, pod: &PodInfo) -> Status {
        if !self.enabled || !has_claims(&pod.pod) {
            return Status::success();
        }
        match pod_claims(&cx.snapshot.cluster, &pod.pod, self.owner_text_pod) {
            Ok(_) => Status::success(),
            Err(e) => Status::unresolvable(e),
        }
    }
}

impl PreFilterPlugin for DynamicResources {
    fn pre_filter(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        if !self.enabled {
            return (None, Status::skip());
        }
        let cluster = &cx.snapshot.cluster;
        state.write(STATE_KEY, StateData::default());
        let user = match pod_claims(cluster, &pod.pod, self.owner_text_pod) {
            Ok(c) => c,
            Err(e) => return (None, Status::unresolvable(e)),
        };
        let ext = self.extended_claim(cluster, pod);
        let mut claims: Vec<Arc<dra::ResourceClaim>> = user.iter().map(|(_, c)| Arc::new((*c).clone())).collect();
        let mut s = StateData {
            user_claims: !claims.is_empty(),
            ..Default::default()
        };
        if let Some((scalar, c)) = ext {
            s.ext = Some(claims.len());
            s.pod_scalar = scalar;
            claims.push(Arc::new(c));
        }
        if claims.is_empty() {
            return (None, Status::skip());
        }
        let mut to_allocate = 0;
        for (i, c) in claims.iter().enumerate() {
            if let Some(a) = allocation(c) {
                s.available_on
                    .push(a.node_selector.as_ref().map(NodeSelectorMatcher::new));
                continue;
            }
            s.available_on.push(None);
            to_allocate += 1;
            if Some(i) == s.ext {
                continue;
            }
            for r in devices(c).into_iter().flat_map(|d| d.requests.iter().flatten()) {
                if let Some(e) = &r.exactly {
                    let st = self.validate_class(cluster, &e.device_class_name, &r.name);
                    if !st.is_success() {
                        return (None, st);
                    }
                } else if let Some(subs) = r.first_available.as_ref().filter(|f| !f.is_empty()) {
                    if !self.prioritized_list {
                        return (
                            None,
                            Status::unresolvable(format!(
                                "resource claim {}, request {}: has subrequests, but the DRAPrioritizedList feature is disabled",
                                kobj(&c.metadata),
                                r.name
                            )),
                        );
                    }
                    for sub in subs {
                        let st =
                            self.validate_class(cluster, &sub.device_class_name, &format!("{}/{}", r.name, sub.name));
                        if !st.is_success() {
                            return (None, st);
                        }
                    }
                } else {
                    return (
                        None,
                        Status::unresolvable(format!(
                            "resource claim {}, request {}: unknown request type",
                            kobj(&c.metadata),
                            r.name
                        )),
                    );
                }
            }
        }
        if to_allocate > 0 {
            s.allocated = Some(Arc::new(AllocatedState::gather(
                cluster.resource_claims.values(),
                self.features.consumable_capacity && self.rules != Rules::V135,
            )));
        }
        s.claims = claims;
        state.write(STATE_KEY, s);
        (None, Status::success())
    }

    fn trace(&self, cx: &Ctx<'_>, pod: &PodInfo, ex: &mut Explanation) {
        if self.enabled && (has_claims(&pod.pod) || self.extended_claim(&cx.snapshot.cluster, pod).is_some()) {
            ex.dra = Some(self.explain(cx, pod, ex));
        }
    }
}

impl FilterPlugin for DynamicResources {
    fn failure_detail(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Lines {
        self.detail(cx, state, pod, node).into()
    }

    fn filter(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        let Some(s) = state.read::<StateData>(STATE_KEY) else {
            return Status::success();
        };
        if s.claims.is_empty() {
            return Status::success();
        }
        let mut unavailable = Vec::new();
        for (i, c) in s.claims.iter().enumerate() {
            if let Some(m) = &s.available_on[i]
                && !m.matches(&node.node.labels, node.name())
            {
                unavailable.push(i);
                continue;
            }
            if allocation(c).is_some() && self.binding_failed(c) {
                unavailable.push(i);
            }
        }
        let attempt = match self.attempt(cx, s, pod, node) {
            Ok(a) => a,
            Err(st) => return st,
        };
        if !s.user_claims
            && s.ext.is_some()
            && attempt.as_ref().is_none_or(|(c, _)| c.is_empty())
            && unavailable.is_empty()
        {
            // Only extended resources, and the node serves them itself.
            return Status::success();
        }
        let mut results = None;
        if let Some((_, outcome)) = attempt {
            match outcome {
                Outcome::Allocated(r) => results = Some(r),
                Outcome::Unsatisfiable => return Status::unresolvable(CANNOT_ALLOCATE),
                Outcome::InvalidPools => return Status::unresolvable(INVALID_POOLS),
                Outcome::FailedOnNode(e) => return Status::unresolvable(e),
                Outcome::Error(e) => return Status::error(e),
            }
        }
        let mut per_node = s.per_node.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !unavailable.is_empty() {
            per_node.insert(
                node.name().to_string(),
                NodeResult {
                    unavailable,
                    results: None,
                },
            );
            return Status::unresolvable(NOT_AVAILABLE);
        }
        per_node.insert(
            node.name().to_string(),
            NodeResult {
                unavailable: Vec::new(),
                results,
            },
        );
        Status::success()
    }
}

impl DynamicResources {
    /// kschedtui extra: why the node failed, request by request.
    fn detail(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Vec<String> {
        let Some(s) = state.read::<StateData>(STATE_KEY) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, c) in s.claims.iter().enumerate() {
            if let Some(m) = &s.available_on[i]
                && !m.matches(&node.node.labels, node.name())
            {
                out.push(format!(
                    "claim {} is allocated to devices of other nodes",
                    kobj(&c.metadata)
                ));
            }
        }
        let users = device_users(&cx.snapshot.cluster);
        if let Some(n) = self.node_trace(cx, s, pod, node, &users) {
            for r in &n.requests {
                out.push(r.summary());
                out.extend(r.near.iter().take(4).map(|x| format!("  {x}")));
            }
            if let Some(hint) = n.verdict.strip_prefix(&format!("{CANNOT_ALLOCATE}: ")) {
                out.push(hint.to_string());
            }
        }
        out
    }
}

impl PostFilterPlugin for DynamicResources {
    fn post_filter(
        &self,
        _: &Ctx<'_>,
        _: &dyn PluginsRunner,
        state: &CycleState,
        pod: &PodInfo,
        statuses: &BTreeMap<String, Status>,
    ) -> (PostFilterTrace, Status) {
        let trace = PostFilterTrace::default();
        let reject = |reason: &'static str| {
            if self.silent_post_filter && reason != DEALLOCATED && reason != DELETED {
                Status::new(Code::Unschedulable, Vec::<String>::new())
            } else {
                Status::unschedulable(reason)
            }
        };
        if !self.enabled {
            return (trace, reject(PLUGIN_DISABLED));
        }
        let Some(s) = state.read::<StateData>(STATE_KEY) else {
            return (trace, Status::error(STATE_NOT_FOUND));
        };
        if s.claims.is_empty() {
            return (trace, reject(NO_NEW_CLAIMS));
        }
        // The claims not available on the nodes this plugin rejected.
        let per_node = s.per_node.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut unavailable: BTreeSet<usize> = BTreeSet::new();
        for (node, st) in statuses {
            if st.plugin == names::DYNAMIC_RESOURCES
                && let Some(r) = per_node.get(node)
            {
                unavailable.extend(r.unavailable.iter().copied());
            }
        }
        let ext_real = s
            .ext
            .map(|i| &s.claims[i])
            .filter(|c| c.metadata.name.as_deref() != Some(extended::SPECIAL_CLAIM_NAME));
        for i in unavailable {
            if Some(i) == s.ext {
                if ext_real.is_some() {
                    break;
                }
                continue;
            }
            let r = reserved_for(&s.claims[i]);
            if r.is_empty() || (r.len() == 1 && pod.pod.has_uid(&r[0].uid)) {
                return (trace, reject(DEALLOCATED));
            }
        }
        if ext_real.is_some() {
            return (trace, reject(DELETED));
        }
        (trace, reject(STILL_NOT_SCHEDULABLE))
    }
}

impl ScorePlugin for DynamicResources {
    fn scores_zero_everywhere(&self, state: &CycleState, _: &PodInfo) -> bool {
        !self.enabled || !self.scores || state.read::<StateData>(STATE_KEY).is_some_and(|s| s.claims.is_empty())
    }

    fn score(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> ScoreResult {
        if !self.enabled || !self.scores {
            return Ok(0);
        }
        let Some(s) = state.read::<StateData>(STATE_KEY) else {
            return Err(Box::new(Status::error(STATE_NOT_FOUND)));
        };
        if s.claims.is_empty() {
            return Ok(0);
        }
        let per_node = s.per_node.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(results) = per_node.get(node.name()).and_then(|r| r.results.as_ref()) else {
            return Ok(0);
        };
        self.compute_score(s, results).map_err(|e| Box::new(Status::error(e)))
    }

    fn has_normalize(&self) -> bool {
        true
    }

    /// `DefaultNormalizeScore(100, false)`: each score × 100 / the highest (unchanged when all
    /// are 0).
    fn normalize(&self, _: &Ctx<'_>, _: &CycleState, _: &PodInfo, scores: &mut [NodeScore<'_>]) -> Status {
        super::helper::default_normalize_score(super::helper::MAX_NODE_SCORE, false, scores);
        Status::success()
    }
}

impl DynamicResources {
    /// `computeScore`: `8 - i` for each claim's chosen `firstAvailable` subrequest `i`.
    fn compute_score(&self, s: &StateData, results: &[Vec<DeviceResult>]) -> Result<i64, String> {
        let mut score = 0;
        let mut k = 0;
        for (i, c) in s.claims.iter().enumerate() {
            let chosen: BTreeSet<String> = if self.score_fixed {
                match allocation(c) {
                    Some(a) => allocated_requests(a),
                    None => {
                        let r = results.get(k).ok_or_else(|| {
                            format!(
                                "number of allocations {} is smaller than number of claims needing allocation",
                                results.len()
                            )
                        })?;
                        k += 1;
                        r.iter().map(|d| d.request.clone()).collect()
                    }
                }
            } else {
                let r = results.get(i).ok_or_else(|| {
                    format!(
                        "number of allocations {} is smaller than number of claims",
                        results.len()
                    )
                })?;
                r.iter().map(|d| d.request.clone()).collect()
            };
            let chosen: BTreeSet<&str> = chosen
                .iter()
                .map(String::as_str)
                .filter(|r| r.split('/').count() == 2)
                .collect();
            for r in devices(c).into_iter().flat_map(|d| d.requests.iter().flatten()) {
                if r.exactly.is_some() {
                    continue;
                }
                for (i, sub) in r.first_available.iter().flatten().enumerate() {
                    if chosen.contains(format!("{}/{}", r.name, sub.name).as_str()) {
                        score += FIRST_AVAILABLE_MAX - i as i64;
                    }
                }
            }
        }
        Ok(score)
    }
}

fn allocated_requests(a: &dra::AllocationResult) -> BTreeSet<String> {
    a.devices
        .iter()
        .flat_map(|d| d.results.iter().flatten())
        .map(|r| r.request.clone())
        .collect()
}

impl ReservePlugin for DynamicResources {
    fn reserve(&self, _: &Ctx<'_>, state: &mut CycleState, _: &PodInfo, node: &str, notes: &mut Vec<String>) -> Status {
        let Some(s) = state.read::<StateData>(STATE_KEY) else {
            return Status::success();
        };
        if s.claims.is_empty() || s.allocated.is_none() {
            return Status::success();
        }
        let per_node = s.per_node.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match per_node.get(node).and_then(|r| r.results.as_ref()) {
            Some(r) => {
                let n: usize = r.iter().map(Vec::len).sum();
                notes.push(format!(
                    "DynamicResources: {} claim(s) allocated on {node} in memory ({n} device(s)); nothing is written before PreBind",
                    r.len()
                ));
                Status::success()
            }
            None if s.ext.is_some() && !s.user_claims => Status::success(),
            None => Status::error("claim allocation not found for node"),
        }
    }

    fn unreserve(&self, _: &Ctx<'_>, _: &mut CycleState, _: &PodInfo, _: &str, _: &mut Vec<String>) {}
}

impl PreBindPlugin for DynamicResources {
    /// Skip for a pod without claims.
    fn pre_bind_pre_flight(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo) -> bool {
        state.read::<StateData>(STATE_KEY).is_some_and(|s| !s.claims.is_empty())
    }

    fn pre_bind(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        node: &str,
        out: &mut PreBindOut,
    ) -> Status {
        // Nothing to write for a pod without claims (upstream's PreBindPreFlight skips it).
        let Some(s) = state.read::<StateData>(STATE_KEY) else {
            return Status::success();
        };
        if s.claims.is_empty() {
            return Status::success();
        }
        let per_node = s.per_node.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let results = per_node.get(node).and_then(|r| r.results.clone()).unwrap_or_default();
        let shape = bind::ResultShape {
            generation: self.generation,
            implementation: self.implementation,
            binding_conditions: self.features.binding_conditions,
            device_status: self.features.device_status,
        };
        let mut k = 0;
        for (i, c) in s.claims.iter().enumerate() {
            let name = kobj(&c.metadata);
            let key = ObjectKey::new(
                c.metadata.namespace.clone().unwrap_or_default(),
                c.metadata.name.clone().unwrap_or_default(),
            );
            let reserved = reserved_for(c).iter().any(|r| pod.pod.has_uid(&r.uid));
            let allocate = allocation(c).is_none();
            let devices = if allocate {
                let d = results.get(k).cloned().unwrap_or_default();
                k += 1;
                Some(d)
            } else {
                None
            };
            if s.ext == Some(i) {
                if devices.as_ref().is_some_and(|d| !d.is_empty()) {
                    out.unplanned.push(
                        "the claim for the pod's extended resources served by DRA (DynamicResources creates it, allocates it and records it in the pod's status.extendedResourceClaimStatus; kschedtui does not plan that creation)".to_string(),
                    );
                }
                continue;
            }
            if reserved {
                continue;
            }
            let pod_name = pod.pod.key.name.to_string();
            let pod_uid = pod.pod.obj.metadata.uid.clone().unwrap_or_default();
            let update = |status: bool, edit: Edit| {
                WriteRequest::Update(Box::new(Update {
                    plugin: names::DYNAMIC_RESOURCES,
                    pod: pod.pod.key.clone(),
                    target: Target::ResourceClaim,
                    key: key.clone(),
                    status,
                    edit,
                }))
            };
            let allocation_value = match &devices {
                Some(d) => {
                    if d.iter().any(|r| r.shared) {
                        out.unplanned.push(format!(
                            "claim {name} gets a share of a device that allows multiple allocations (consumable capacity): its shareID and consumedCapacity are not planned by kschedtui"
                        ));
                        continue;
                    }
                    if shape.generation >= allocator::Generation::G134
                        && self.binding
                        && d.iter().any(|r| !r.binding_conditions.is_empty())
                    {
                        out.unplanned.push(format!(
                            "claim {name} gets a device with binding conditions, which PreBind waits for (up to the plugin's bindingTimeout); kschedtui does not wait for device binding conditions"
                        ));
                        continue;
                    }
                    match bind::allocation_result(&cx.snapshot.cluster, c, d, node, shape) {
                        Ok(a) => Some(a),
                        Err(e) => return Status::error(e),
                    }
                }
                None => None,
            };
            let devs = devices
                .as_ref()
                .map(|d| {
                    d.iter()
                        .map(|r| format!("{}: {}/{}/{}", r.request, r.driver, r.pool, r.device))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            let has_finalizer = c
                .metadata
                .finalizers
                .iter()
                .flatten()
                .any(|f| f == crate::model::write::CLAIM_FINALIZER);
            if allocation_value.is_some() && !has_finalizer {
                out.writes.push(update(false, Edit::DeleteProtection));
            }
            out.notes.push(if allocation_value.is_some() {
                format!(
                    "writes ResourceClaim {name}: the finalizer {}, then status.allocation [{devs}] and the pod in status.reservedFor",
                    crate::model::write::CLAIM_FINALIZER
                )
            } else {
                format!("writes ResourceClaim {name}: the pod {} in status.reservedFor", pod.pod.key)
            });
            out.writes.push(update(
                true,
                Edit::Reserve {
                    allocation: allocation_value,
                    pod_name,
                    pod_uid,
                    timestamp: self.binding,
                },
            ));
        }
        Status::success()
    }
}

/// One device a node can use, for the node view.
#[cfg(feature = "tui")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NodeDevice {
    /// `driver/pool/device`.
    pub id: String,
    /// Its attributes and capacities, short (`model H100, numa 0, memory 80Gi`).
    pub summary: String,
    /// The claim it is allocated to, if any.
    pub used_by: Option<String>,
    /// Its taints (`key=value:Effect`).
    pub taints: Vec<String>,
}

/// The devices of the ResourceSlices a node sees (the newest generation of each pool), with
/// who uses them.
#[cfg(feature = "tui")]
pub(crate) fn node_devices(cluster: &Cluster, node: &str, labels: &crate::model::Labels) -> Vec<NodeDevice> {
    let slices: Vec<&dra::ResourceSlice> = cluster.resource_slices.values().collect();
    let view = NodeView { name: node, labels };
    let f = AllocFeatures {
        partitionable: true,
        ..Default::default()
    };
    let users = device_users(cluster);
    let mut out = Vec::new();
    for p in allocator::gather_pools(&view, &slices, Rules::V136, &f) {
        for (slice, d) in p.devices() {
            let mut parts: Vec<String> = Vec::new();
            for (k, a) in d.attributes.iter().flatten() {
                let (_, id) = cel::split_name(k, &slice.spec.driver);
                let v = a
                    .string
                    .clone()
                    .or_else(|| a.version.clone())
                    .or_else(|| a.int.map(|i| i.to_string()))
                    .or_else(|| a.bool.map(|b| b.to_string()))
                    .unwrap_or_default();
                parts.push(format!("{id} {v}"));
            }
            for (k, c) in d.capacity.iter().flatten() {
                let (_, id) = cel::split_name(k, &slice.spec.driver);
                parts.push(format!("{id} {}", c.value.0));
            }
            let key = (p.driver.to_string(), p.name.to_string(), d.name.clone());
            out.push(NodeDevice {
                id: format!("{}/{}/{}", p.driver, p.name, d.name),
                summary: parts.join(", "),
                used_by: users.get(&key).cloned(),
                taints: d
                    .taints
                    .iter()
                    .flatten()
                    .map(|t| format!("{}={}:{}", t.key, t.value.as_deref().unwrap_or(""), t.effect))
                    .collect(),
            });
        }
    }
    out
}

/// Which claim uses each allocated device (admin access aside).
fn device_users(cluster: &Cluster) -> BTreeMap<(String, String, String), String> {
    cluster
        .resource_claims
        .values()
        .flat_map(|c| {
            let name = kobj(&c.metadata);
            allocation(c)
                .and_then(|a| a.devices.as_ref())
                .and_then(|d| d.results.as_ref())
                .into_iter()
                .flatten()
                .filter(|r| r.admin_access != Some(true))
                .map(move |r| ((r.driver.clone(), r.pool.clone(), r.device.clone()), name.clone()))
        })
        .collect()
}

/// A request's shape for the trace: `gpu: 2 of gpu.example.com where <selectors>`.
fn request_line(r: &dra::DeviceRequest) -> String {
    let one = |mode: Option<&str>, count: Option<i64>, class: &str, sels: Option<&Vec<dra::DeviceSelector>>| {
        let n = match mode.unwrap_or("ExactCount") {
            "All" => "all".to_string(),
            _ => count.unwrap_or(1).to_string(),
        };
        let sels: Vec<&str> = sels
            .iter()
            .flat_map(|s| s.iter())
            .filter_map(|s| s.cel.as_ref().map(|c| c.expression.as_str()))
            .collect();
        if sels.is_empty() {
            format!("{n} of {class}")
        } else {
            format!("{n} of {class} where {}", sels.join(" && "))
        }
    };
    if let Some(e) = &r.exactly {
        let mut s = format!(
            "{}: {}",
            r.name,
            one(
                e.allocation_mode.as_deref(),
                e.count,
                &e.device_class_name,
                e.selectors.as_ref()
            )
        );
        if e.admin_access == Some(true) {
            s.push_str(" (admin access)");
        }
        return s;
    }
    let subs: Vec<String> = r
        .first_available
        .iter()
        .flatten()
        .map(|s| {
            format!(
                "{}: {}",
                s.name,
                one(
                    s.allocation_mode.as_deref(),
                    s.count,
                    &s.device_class_name,
                    s.selectors.as_ref()
                )
            )
        })
        .collect();
    format!("{}: first available of [{}]", r.name, subs.join("; "))
}

impl DynamicResources {
    /// The trace: the pod's claims, and per node what its devices give each request.
    fn explain(&self, cx: &Ctx<'_>, pod: &PodInfo, ex: &Explanation) -> DraTrace {
        let cluster = &cx.snapshot.cluster;
        let mut t = DraTrace::default();
        let user = match pod_claims(cluster, &pod.pod, self.owner_text_pod) {
            Ok(c) => c,
            Err(e) => {
                t.claims.push(DraClaim {
                    state: e,
                    ..Default::default()
                });
                return t;
            }
        };
        let users = device_users(cluster);
        for (pc, c) in &user {
            let state = match allocation(c) {
                Some(a) => {
                    let on = a
                        .node_selector
                        .as_ref()
                        .map(|s| {
                            let nodes: Vec<&str> = cx
                                .snapshot
                                .nodes
                                .iter()
                                .filter(|n| NodeSelectorMatcher::new(s).matches(&n.node.labels, n.name()))
                                .map(|n| n.name())
                                .collect();
                            format!(
                                "on {}",
                                if nodes.is_empty() {
                                    "no node".to_string()
                                } else {
                                    nodes.join(", ")
                                }
                            )
                        })
                        .unwrap_or_else(|| "on every node".to_string());
                    format!("allocated, usable {on}")
                }
                None => "to allocate".to_string(),
            };
            t.claims.push(DraClaim {
                pod_claim: pc.clone(),
                claim: Some(ObjectKey::new(
                    c.metadata.namespace.clone().unwrap_or_default(),
                    c.metadata.name.clone().unwrap_or_default(),
                )),
                state,
                reserved_for: reserved_for(c)
                    .iter()
                    .map(|r| format!("{} {}", r.resource, r.name))
                    .collect(),
                requests: devices(c)
                    .into_iter()
                    .flat_map(|d| d.requests.iter().flatten())
                    .map(request_line)
                    .collect(),
                devices: allocation(c)
                    .and_then(|a| a.devices.as_ref())
                    .and_then(|d| d.results.as_ref())
                    .into_iter()
                    .flatten()
                    .map(|r| format!("{}: {}/{}/{}", r.request, r.driver, r.pool, r.device))
                    .collect(),
            });
        }
        let ext = self.extended_claim(cluster, pod);
        if let Some((scalar, _)) = &ext {
            let names: Vec<String> = scalar
                .iter()
                .filter(|(n, q)| **q != 0 && extended::device_class_for(cluster, n).is_some())
                .map(|(n, q)| format!("{n}: {q}"))
                .collect();
            t.claims.push(DraClaim {
                state: format!(
                    "extended resources served by DeviceClasses where a node lacks them ({})",
                    names.join(", ")
                ),
                ..Default::default()
            });
        }
        // Per node: the allocation attempt and how each request's devices narrow down.
        let mut state = CycleState::default();
        let (_, st) = self.pre_filter(cx, &mut state, pod);
        if !st.is_success() {
            return t;
        }
        let Some(s) = state.read::<StateData>(STATE_KEY).cloned() else {
            return t;
        };
        if s.allocated.is_none() {
            return t;
        }
        for n in &cx.snapshot.nodes {
            let decided_elsewhere = ex
                .filter
                .iter()
                .find(|f| f.node == n.name())
                .and_then(|f| f.failure.as_ref())
                .filter(|f| f.plugin != names::DYNAMIC_RESOURCES && !f.plugin.is_empty())
                .map(|f| f.plugin);
            if let Some(mut node) = self.node_trace(cx, &s, pod, n, &users) {
                if let Some(p) = decided_elsewhere {
                    node.verdict.push_str(&format!(" (the node already failed {p})"));
                }
                t.nodes.push(node);
            }
        }
        t
    }

    /// The allocation attempt on one node, and how each request's devices narrow down there.
    fn node_trace(
        &self,
        cx: &Ctx<'_>,
        s: &StateData,
        pod: &PodInfo,
        n: &NodeInfo,
        users: &BTreeMap<(String, String, String), String>,
    ) -> Option<DraNode> {
        let cluster = &cx.snapshot.cluster;
        let allocated = s.allocated.clone()?;
        let slices: Vec<&dra::ResourceSlice> = cluster.resource_slices.values().collect();
        {
            let (claims, outcome) = match self.attempt(cx, s, pod, n) {
                Ok(Some(x)) => x,
                Ok(None) => return None,
                Err(st) => {
                    return Some(DraNode {
                        node: n.name().to_string(),
                        verdict: st.message(),
                        ..Default::default()
                    });
                }
            };
            let mut node = DraNode {
                node: n.name().to_string(),
                ..Default::default()
            };
            node.verdict = match &outcome {
                Outcome::Allocated(r) => {
                    for (c, devs) in claims.iter().zip(r) {
                        for d in devs {
                            node.allocation.push(format!(
                                "{}/{}: {}/{}/{}",
                                c.metadata.name.as_deref().unwrap_or(""),
                                d.request,
                                d.driver,
                                d.pool,
                                d.device
                            ));
                        }
                    }
                    "the claims fit".to_string()
                }
                Outcome::Unsatisfiable => CANNOT_ALLOCATE.to_string(),
                Outcome::InvalidPools => INVALID_POOLS.to_string(),
                Outcome::FailedOnNode(e) => e.clone(),
                Outcome::Error(e) => format!("error: {e}"),
            };
            let view = NodeView {
                name: n.name(),
                labels: &n.node.labels,
            };
            let inputs = self.inputs(cluster, &allocated, &slices);
            for c in &claims {
                node.requests.extend(diagnose(
                    &inputs,
                    &view,
                    c,
                    users,
                    self.features.device_taints,
                    self.rules,
                ));
            }
            if matches!(outcome, Outcome::Unsatisfiable) && !node.requests.is_empty() {
                let enough = node.requests.iter().all(|r| match r.wanted.parse::<usize>() {
                    Ok(n) => r.usable >= n,
                    Err(_) => r.usable > 0,
                });
                let alternatives = node.requests.iter().any(|r| r.request.matches('/').count() > 1);
                if enough && !alternatives {
                    let constraints: Vec<String> = claims
                        .iter()
                        .flat_map(|c| devices(c).into_iter().flat_map(|d| d.constraints.iter().flatten()))
                        .map(|c| match (&c.match_attribute, &c.distinct_attribute) {
                            (Some(a), _) => format!("matchAttribute {a}"),
                            (_, Some(a)) => format!("distinctAttribute {a}"),
                            _ => "a constraint".to_string(),
                        })
                        .collect();
                    node.verdict.push_str(&if constraints.is_empty() {
                        ": each request has devices of its own, but not all of them at once".to_string()
                    } else {
                        format!(
                            ": each request has devices of its own, but no choice satisfies {}",
                            constraints.join(" and ")
                        )
                    });
                }
            }
            Some(node)
        }
    }
}

/// How many nearly matching devices a request lists.
const NEAR_LIMIT: usize = 8;

/// The attribute and capacity values of a device that selectors read
/// (`device.attributes["dom"].name`, `device.capacity["dom"].name`): `model H100, memory 80Gi`.
fn selected_values(sels: Option<&Vec<dra::DeviceSelector>>, driver: &str, d: &dra::Device) -> String {
    let mut out: Vec<String> = Vec::new();
    for s in sels.iter().flat_map(|s| s.iter()).filter_map(|s| s.cel.as_ref()) {
        let e = &s.expression;
        for (map, quoted) in [("attributes", true), ("capacity", false)] {
            let pat = format!("{map}[");
            let mut rest = e.as_str();
            while let Some(i) = rest.find(&pat) {
                rest = &rest[i + pat.len()..];
                let Some(q) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
                    continue;
                };
                let Some(end) = rest[1..].find(q) else { break };
                let dom = &rest[1..=end];
                rest = &rest[end + 2..];
                let Some(after) = rest.strip_prefix("].") else { continue };
                let id: String = after
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if id.is_empty() {
                    continue;
                }
                let full = if dom == driver {
                    id.clone()
                } else {
                    format!("{dom}/{id}")
                };
                let value = if quoted {
                    d.attributes
                        .as_ref()
                        .and_then(|a| a.get(&full).or_else(|| a.get(&format!("{dom}/{id}"))))
                        .map(|a| {
                            a.string
                                .clone()
                                .or_else(|| a.version.clone())
                                .or_else(|| a.int.map(|i| i.to_string()))
                                .or_else(|| a.bool.map(|b| b.to_string()))
                                .unwrap_or_default()
                        })
                } else {
                    d.capacity
                        .as_ref()
                        .and_then(|c| c.get(&full).or_else(|| c.get(&format!("{dom}/{id}"))))
                        .map(|c| c.value.0.clone())
                };
                let item = format!("{id} {}", value.unwrap_or_else(|| "(none)".to_string()));
                if !out.contains(&item) {
                    out.push(item);
                }
            }
        }
    }
    out.join(", ")
}

/// How many devices a request's diagnosis names per list (for the fix hints).
const DEVICES_LISTED: usize = 16;

/// How a node's devices narrow down for each request of a claim, one request at a time
/// (constraints between requests and devices taken by the pod's other requests aside).
fn diagnose(
    inp: &Inputs<'_>,
    node: &NodeView<'_>,
    claim: &dra::ResourceClaim,
    users: &BTreeMap<(String, String, String), String>,
    taints: bool,
    rules: Rules,
) -> Vec<DraRequestOnNode> {
    let pools = allocator::gather_pools(node, inp.slices, rules, &inp.features);
    let cname = claim.metadata.name.clone().unwrap_or_default();
    let ckey = kobj(&claim.metadata);
    let mut domains = BTreeSet::new();
    for c in inp.classes.values() {
        for s in allocator::class_selectors(c) {
            if let Some(x) = &s.cel {
                cel::indexed_domains(&x.expression, &mut domains);
            }
        }
    }
    let mut out = Vec::new();
    let mut one = |label: String,
                   wanted: String,
                   class: &str,
                   sels: Option<&Vec<dra::DeviceSelector>>,
                   tolerations: Option<&Vec<dra::DeviceToleration>>,
                   admin: bool| {
        let mut domains = domains.clone();
        for s in sels.iter().flat_map(|s| s.iter()) {
            if let Some(x) = &s.cel {
                cel::indexed_domains(&x.expression, &mut domains);
            }
        }
        let mut r = DraRequestOnNode {
            request: label,
            wanted,
            class: class.to_string(),
            ..Default::default()
        };
        let slice_device =
            |slice: &dra::ResourceSlice, d: &str| (slice.metadata.name.clone().unwrap_or_default(), d.to_string());
        let Some(class) = inp.classes.get(class) else {
            r.error = Some(format!("device class {class} does not exist"));
            out.push(r);
            return;
        };
        for p in &pools {
            if p.incomplete || p.invalid.is_some() {
                continue;
            }
            for (slice, d) in p.devices() {
                r.devices += 1;
                let v = cel::DeviceValue::new(&slice.spec.driver, d, &domains, false);
                let mut ok = true;
                for (i, s) in allocator::class_selectors(class).enumerate() {
                    let Some(x) = &s.cel else { continue };
                    match inp.cel.matches(&x.expression, &v) {
                        Ok(true) => {}
                        Ok(false) => ok = false,
                        Err(e) => {
                            r.error.get_or_insert(format!(
                                "class {}: selector #{i}: {e}",
                                class.metadata.name.as_deref().unwrap_or("")
                            ));
                            ok = false;
                        }
                    }
                    if !ok {
                        break;
                    }
                }
                if !ok {
                    continue;
                }
                r.class_match += 1;
                for (i, s) in sels.iter().flat_map(|s| s.iter()).enumerate() {
                    let Some(x) = &s.cel else { continue };
                    match inp.cel.matches(&x.expression, &v) {
                        Ok(true) => {}
                        Ok(false) => ok = false,
                        Err(e) => {
                            r.error.get_or_insert(format!("claim {ckey}: selector #{i}: {e}"));
                            ok = false;
                        }
                    }
                    if !ok {
                        break;
                    }
                }
                if !ok {
                    if r.unselected.len() < DEVICES_LISTED {
                        r.unselected.push(slice_device(slice, &d.name));
                    }
                    // Nearly: of the class, but the request's selectors leave it out; show
                    // the values they read.
                    if r.near.len() < NEAR_LIMIT {
                        let shown = selected_values(sels, &slice.spec.driver, d);
                        if !shown.is_empty() {
                            r.near.push(format!("{}: {shown}", d.name));
                        }
                    }
                    continue;
                }
                r.selector_match += 1;
                let id = (p.driver.to_string(), p.name.to_string(), d.name.clone());
                if !admin && inp.allocated.devices.contains(&id) {
                    let by = users.get(&id).map(String::as_str).unwrap_or("another claim");
                    r.near.push(format!("{}: in use by {by}", d.name));
                    continue;
                }
                r.free += 1;
                let untolerated = d.taints.iter().flatten().find(|t| {
                    taints
                        && (rules == Rules::V134 || matches!(t.effect.as_str(), "NoSchedule" | "NoExecute"))
                        && !tolerations.iter().flat_map(|v| v.iter()).any(|tol| {
                            tol.effect.as_deref().is_none_or(|e| e.is_empty() || e == t.effect)
                                && tol.key.as_deref().is_none_or(|k| k.is_empty() || k == t.key)
                                && match tol.operator.as_deref().unwrap_or("Equal") {
                                    "" | "Equal" => {
                                        tol.value.as_deref().unwrap_or("") == t.value.as_deref().unwrap_or("")
                                    }
                                    "Exists" => true,
                                    _ => false,
                                }
                        })
                });
                if let Some(t) = untolerated {
                    r.near.push(format!(
                        "{}: tainted {}={}:{}",
                        d.name,
                        t.key,
                        t.value.as_deref().unwrap_or(""),
                        t.effect
                    ));
                    continue;
                }
                r.usable += 1;
                if r.usable_devices.len() < DEVICES_LISTED {
                    r.usable_devices.push(slice_device(slice, &d.name));
                }
            }
        }
        out.push(r);
    };
    for req in devices(claim).into_iter().flat_map(|d| d.requests.iter().flatten()) {
        if let Some(e) = &req.exactly {
            let wanted = match e.allocation_mode.as_deref() {
                Some("All") => "all".to_string(),
                _ => e.count.unwrap_or(1).to_string(),
            };
            one(
                format!("{cname}/{}", req.name),
                wanted,
                &e.device_class_name,
                e.selectors.as_ref(),
                e.tolerations.as_ref(),
                e.admin_access == Some(true),
            );
        }
        for sub in req.first_available.iter().flatten() {
            let wanted = match sub.allocation_mode.as_deref() {
                Some("All") => "all".to_string(),
                _ => sub.count.unwrap_or(1).to_string(),
            };
            one(
                format!("{cname}/{}/{}", req.name, sub.name),
                wanted,
                &sub.device_class_name,
                sub.selectors.as_ref(),
                sub.tolerations.as_ref(),
                false,
            );
        }
    }
    out
}

/// The allocator's code generation and features of a release.
fn allocator_of(features: &Features) -> (Rules, Implementation, AllocFeatures, Generation) {
    let f = AllocFeatures {
        admin_access: features.on(Gate::DRAAdminAccess),
        prioritized_list: features.on(Gate::DRAPrioritizedList),
        partitionable: features.on(Gate::DRAPartitionableDevices),
        device_taints: features.on(Gate::DRADeviceTaints),
        binding_conditions: features.on(Gate::DRADeviceBindingConditions),
        device_status: features.on(Gate::DRAResourceClaimDeviceStatus),
        consumable_capacity: features.on(Gate::DRAConsumableCapacity),
    };
    let g = if features.has(Change::DraAllocatorPromoted) {
        Generation::G136
    } else if features.has(Change::DraAllocatorSkipsIncompletePools) {
        Generation::G135
    } else {
        Generation::G134
    };
    let implementation = Implementation::select(g, &f);
    (Rules::of(g, implementation), implementation, f, g)
}

/// Registers DynamicResources.
pub(crate) fn register(args: &Value, features: &Features) -> Result<PluginSlots, String> {
    let _: Args = super::decode_args(args)?;
    let enabled = features.on(Gate::DynamicResourceAllocation);
    let has_score = features.has(Change::DynamicResourcesScores);
    let prioritized_list = features.on(Gate::DRAPrioritizedList);
    // 1.36 returns 0 without DRAPrioritizedList; 1.35 does not check, and without the gate
    // no claim can get a subrequest allocated, so the score is 0 either way.
    let scores = has_score && prioritized_list;
    let (rules, implementation, alloc, generation) = allocator_of(features);
    let p = Arc::new(DynamicResources {
        enabled,
        scores,
        score_fixed: features.has(Change::DraScoreIndexesNewAllocations),
        silent_post_filter: features.has(Change::DynamicResourcesPostFilterWithoutReasons),
        owner_text_pod: features.has(Change::DraClaimOwnerTextCapitalized),
        extended: features.on(Gate::DRAExtendedResource),
        prioritized_list,
        binding: features.on(Gate::DRADeviceBindingConditions) && features.on(Gate::DRAResourceClaimDeviceStatus),
        rules,
        cel_error_names_device: features.has(Change::DraCelErrorNamesDevice),
        all_mode_pool_fails_node: features.has(Change::DraAllModePoolFailsNode),
        live_share_blocks_dedicated: features.has(Change::DraLiveShareBlocksDedicated),
        qualified_capacity_names: features.has(Change::DraCapacityNamesQualified),
        generation,
        implementation,
        features: alloc,
        cel: cel::Compiler::default(),
    });
    Ok(PluginSlots {
        pre_enqueue: Some(p.clone()),
        pre_filter: Some(p.clone()),
        filter: Some(p.clone()),
        score: has_score.then(|| p.clone() as Arc<dyn ScorePlugin>),
        post_filter: Some(p.clone()),
        reserve: Some(p.clone()),
        pre_bind: Some(p),
        ..Default::default()
    })
}

/// Whether NodeResourcesFit leaves extended resource `name` to DynamicResources on a node
/// with `allocatable` of it (`shouldDelegateResourceToDRA`, DRAExtendedResource).
pub(crate) fn delegated_to_dra(cluster: &Cluster, name: &str, allocatable: Option<i64>) -> bool {
    allocatable.is_none_or(|a| a <= 0) && extended::device_class_for(cluster, name).is_some()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::engine::Framework;
    use crate::engine::framework::runner::explain;
    use crate::engine::framework::snapshot::Snapshot;
    use crate::engine::framework::trace::Explanation;
    use crate::engine::{Release, build_profiles};
    use crate::model::ObjectKey;
    use crate::source::file::load_str;

    /// One 1-CPU node; `p` asks for 2 CPUs (and `extra` spec fields).
    fn cluster(extra: &str, objects: &str) -> String {
        format!(
            r#"
apiVersion: v1
kind: List
items:
- {{apiVersion: v1, kind: Node, metadata: {{name: n1}}, status: {{allocatable: {{cpu: "1", memory: 4Gi, pods: "10"}}}}}}
{objects}
- apiVersion: v1
  kind: Pod
  metadata: {{name: p, namespace: a}}
  spec:
    containers: [{{name: c, image: i, resources: {{requests: {{cpu: "2"}}}}}}]{extra}
"#
        )
    }

    fn explain_at(text: &str, minor: u32) -> Explanation {
        let v = Release::at(minor);
        let snap = Snapshot::new(Arc::new(load_str("t", text).unwrap()), v);
        explain(&snap, &build_profiles(None, v).unwrap(), &ObjectKey::new("a", "p")).unwrap()
    }

    #[test]
    fn no_claims_postfilter_speaks_before_preemption_in_1_34() {
        // dynamicresources.go PostFilter: "no new claims to deallocate" (Unschedulable), which
        // RunPostFilterPlugins joins with DefaultPreemption's message.
        let text = cluster("", "");
        let ex = explain_at(&text, 34);
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
            )
        );
        let dra = ex
            .pre_filter
            .iter()
            .find(|p| p.plugin == names::DYNAMIC_RESOURCES)
            .expect("ran");
        assert_eq!(dra.code, Code::Skip);
        // 1.37 (#140222): the rejection carries no reason, so nothing comes before "preemption:".
        let ex = explain_at(&text, 37);
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
            )
        );
        // 1.33: not in the default profile.
        let ex = explain_at(&text, 33);
        assert!(ex.pre_filter.iter().all(|p| p.plugin != names::DYNAMIC_RESOURCES));
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
            )
        );
    }

    #[test]
    fn earlier_prefilter_rejection_leaves_no_state_in_1_34() {
        // An earlier PreFilter plugin (VolumeBinding) rejects for good, so DynamicResources'
        // PreFilter never runs and its PostFilter fails reading the cycle state: the Error ends
        // PostFilter and its text is the message's PostFilter part.
        let objects = r#"- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data, namespace: a}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}"#;
        let text = cluster(
            "\n    volumes: [{name: v, persistentVolumeClaim: {claimName: data}}]",
            objects,
        );
        let ex = explain_at(&text, 34);
        assert_eq!(
            ex.message.as_deref(),
            Some("0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found")
        );
        let pf = ex.post_filter.as_ref().expect("postfilter");
        assert_eq!(
            (pf.plugin.as_str(), pf.code),
            (names::DYNAMIC_RESOURCES, Some(Code::Error))
        );
        let ex = explain_at(&text, 33);
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
            )
        );
    }

    #[test]
    fn disabled_before_1_34() {
        // With the gate off (1.30-1.33) a profile naming the plugin gets Skip and "plugin
        // disabled".
        let slots = register(&Value::Null, &Release::at(33).into()).expect("registers");
        let text = cluster("", "");
        let snap = Snapshot::new(Arc::new(load_str("t", &text).unwrap()), Release::at(33));
        let cx = Ctx { snapshot: &snap };
        let pod = snap.pod_infos[&ObjectKey::new("a", "p")].clone();
        let mut state = CycleState::default();
        let pf = slots.pre_filter.expect("prefilter");
        assert_eq!(pf.pre_filter(&cx, &mut state, &pod).1, Status::skip());
        let fw = Framework::default_profile(Release::at(33)).expect("profile");
        let (_, s) = slots
            .post_filter
            .expect("postfilter")
            .post_filter(&cx, &fw, &state, &pod, &Default::default());
        assert_eq!(s, Status::unschedulable(PLUGIN_DISABLED));
        assert!(register(&serde_json::json!({"filterTimeout": "10s"}), &Release::at(34).into()).is_ok());
        assert!(register(&serde_json::json!({"other": 1}), &Release::at(34).into()).is_err());
    }

    /// A two-node GPU cluster: n1 with gpu-0 (a100, 80Gi) and gpu-1 (l4, 24Gi), n2 with
    /// gpu-2 (a100); class gpu.example.com selects the driver. `objects` and the pod's
    /// `claims` (spec.resourceClaims entries) are added.
    fn gpus(objects: &str, claims: &str, status: &str) -> String {
        format!(
            r#"
apiVersion: v1
kind: List
items:
- {{apiVersion: v1, kind: Node, metadata: {{name: n1, labels: {{rack: r1}}}}, status: {{allocatable: {{cpu: "8", memory: 16Gi, pods: "10"}}}}}}
- {{apiVersion: v1, kind: Node, metadata: {{name: n2, labels: {{rack: r2}}}}, status: {{allocatable: {{cpu: "8", memory: 16Gi, pods: "10"}}}}}}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {{name: gpu.example.com}}
  spec: {{selectors: [{{cel: {{expression: 'device.driver == "gpu.example.com"'}}}}]}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {{name: n1-gpus}}
  spec:
    driver: gpu.example.com
    nodeName: n1
    pool: {{name: n1, generation: 1, resourceSliceCount: 1}}
    devices:
    - {{name: gpu-0, attributes: {{model: {{string: a100}}, numa: {{int: 0}}}}, capacity: {{memory: {{value: 80Gi}}}}}}
    - {{name: gpu-1, attributes: {{model: {{string: l4}}, numa: {{int: 1}}}}, capacity: {{memory: {{value: 24Gi}}}}, taints: [{{key: maintenance, value: "true", effect: NoSchedule}}]}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {{name: n2-gpus}}
  spec:
    driver: gpu.example.com
    nodeName: n2
    pool: {{name: n2, generation: 1, resourceSliceCount: 1}}
    devices:
    - {{name: gpu-2, attributes: {{model: {{string: a100}}, numa: {{int: 0}}}}, capacity: {{memory: {{value: 80Gi}}}}}}
{objects}
- apiVersion: v1
  kind: Pod
  metadata: {{name: p, namespace: a, uid: pod-uid}}
  spec:
    containers: [{{name: c, image: i, resources: {{requests: {{cpu: "1"}}}}}}]
    resourceClaims: [{claims}]
  status: {{{status}}}
"#
        )
    }

    /// A ResourceClaim `name` in namespace a with one request.
    fn claim(name: &str, request: &str, status: &str) -> String {
        format!(
            "- {{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {{name: {name}, namespace: a}}, spec: {{devices: {{requests: [{request}]}}}}{status}}}"
        )
    }

    fn explain_text(text: &str, minor: u32) -> Explanation {
        let v = Release::at(minor);
        let snap = Snapshot::new(Arc::new(load_str("t", text).unwrap()), v);
        explain(&snap, &build_profiles(None, v).unwrap(), &ObjectKey::new("a", "p")).unwrap()
    }

    const ONE_GPU: &str =
        "{name: gpu, exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}}";

    // kubernetes#141898 (1.38): `All` over n1's pool, incomplete (it announces 2 slices and has
    // 1), fails node n1 only (UnschedulableAndUnresolvable with the allocator's text), and the
    // pod goes to n2; up to 1.37 the error ended the attempt.
    #[test]
    fn release_1_38_an_all_request_over_an_incomplete_pool_fails_that_node_only() {
        let all = "{name: gpu, exactly: {deviceClassName: gpu.example.com, allocationMode: All}}";
        let text = gpus(&claim("gpus", all, ""), "{name: gpus, resourceClaimName: gpus}", "").replace(
            "pool: {name: n1, generation: 1, resourceSliceCount: 1}",
            "pool: {name: n1, generation: 1, resourceSliceCount: 2}",
        );
        let why = "claim a/gpus, request gpu: asks for all devices, but resource pool gpu.example.com/n1 is currently being updated";
        let ex = explain_text(&text, 37);
        assert!(ex.selected.is_empty());
        assert_eq!(
            ex.message,
            Some(format!("running \"DynamicResources\" filter plugin: {why}"))
        );
        let ex = explain_text(&text, 38);
        assert_eq!(ex.selected, vec!["n2".to_string()]);
        let n1 = ex.filter.iter().find(|f| f.node == "n1").expect("n1");
        let f = n1.failure.as_ref().expect("n1 fails");
        assert_eq!(
            (
                f.plugin,
                f.code,
                f.reasons.iter().map(|r| r.to_string()).collect::<Vec<_>>()
            ),
            (
                names::DYNAMIC_RESOURCES,
                Code::UnschedulableAndUnresolvable,
                vec![why.to_string()]
            )
        );
    }

    #[test]
    fn pre_enqueue_names_the_claim_that_cannot_be_used() {
        // foreachPodResourceClaim, in spec order, first failure wins.
        let missing = gpus("", "{name: gpu, resourceClaimName: nope}", "");
        let ex = explain_text(&missing, 34);
        assert_eq!(ex.message.as_deref(), Some("could not find ResourceClaim \"a/nope\""));
        assert!(ex.pre_filter.is_empty(), "a rejected pod never reaches PreFilter");
        let template = gpus("", "{name: gpu, resourceClaimTemplateName: t}", "");
        assert_eq!(
            explain_text(&template, 35).message.as_deref(),
            Some("pod \"a/p\": ResourceClaim not created yet")
        );
        let deleting = gpus(
            "- {apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c, namespace: a, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [x]}, spec: {devices: {requests: []}}}",
            "{name: gpu, resourceClaimName: c}",
            "",
        );
        assert_eq!(
            explain_text(&deleting, 36).message.as_deref(),
            Some("resourceclaim \"c\" is being deleted")
        );
        // A template claim owned by another pod: the wording changes at 1.36.
        let foreign = gpus(
            "- {apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: p-gpu-x, namespace: a, ownerReferences: [{apiVersion: v1, kind: Pod, name: other, uid: other-uid, controller: true}]}, spec: {devices: {requests: []}}}",
            "{name: gpu, resourceClaimTemplateName: t}",
            "resourceClaimStatuses: [{name: gpu, resourceClaimName: p-gpu-x}]",
        );
        assert_eq!(
            explain_text(&foreign, 35).message.as_deref(),
            Some("ResourceClaim a/p-gpu-x was not created for pod a/p (pod is not owner)")
        );
        assert_eq!(
            explain_text(&foreign, 36).message.as_deref(),
            Some("ResourceClaim a/p-gpu-x was not created for Pod a/p (Pod is not owner)")
        );
        // A template claim the controller did not create on purpose is ignored.
        let skipped = gpus(
            "",
            "{name: gpu, resourceClaimTemplateName: t}",
            "resourceClaimStatuses: [{name: gpu}]",
        );
        let ex = explain_text(&skipped, 36);
        assert_eq!(ex.selected, vec!["n1".to_string(), "n2".to_string()]);
    }

    #[test]
    fn a_missing_device_class_rejects_every_node_at_prefilter() {
        let text = gpus(
            &claim(
                "c",
                "{name: accel, exactly: {deviceClassName: tpu.example.com, allocationMode: ExactCount, count: 1}}",
                "",
            ),
            "{name: gpu, resourceClaimName: c}",
            "",
        );
        let ex = explain_text(&text, 34);
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/2 nodes are available: request accel: device class tpu.example.com does not exist. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
            )
        );
    }

    #[test]
    fn filter_allocates_per_node_and_reports_cannot_allocate() {
        // Two a100s wanted: no node has two.
        let two = "{name: gpu, exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 2, selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].model == \"a100\"'}}]}}";
        let text = gpus(&claim("c", two, ""), "{name: gpu, resourceClaimName: c}", "");
        let ex = explain_text(&text, 35);
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
            )
        );
        // The trace says why: n1 has one a100 (and an l4 the selector leaves out).
        let dra = ex.dra.as_ref().expect("trace");
        let n1 = dra.nodes.iter().find(|n| n.node == "n1").unwrap();
        assert_eq!(n1.verdict, CANNOT_ALLOCATE);
        let r = &n1.requests[0];
        assert_eq!(
            (
                r.request.as_str(),
                r.wanted.as_str(),
                r.devices,
                r.class_match,
                r.selector_match,
                r.usable
            ),
            ("c/gpu", "2", 2, 2, 1, 1)
        );
        // One GPU fits on both nodes: both are selected (DynamicResources scores 0).
        let text = gpus(&claim("c", ONE_GPU, ""), "{name: gpu, resourceClaimName: c}", "");
        let ex = explain_text(&text, 35);
        assert_eq!(ex.selected, vec!["n1".to_string(), "n2".to_string()]);
        let dra = ex.dra.as_ref().expect("trace");
        assert_eq!(
            dra.nodes[1].allocation,
            vec!["c/gpu: gpu.example.com/n2/gpu-2".to_string()]
        );
    }

    #[test]
    fn device_taints_count_from_1_36() {
        // Only the tainted l4 matches; DRADeviceTaints is on from 1.36.
        let l4 = "{name: gpu, exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1, selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].model == \"l4\"'}}]}}";
        let text = gpus(&claim("c", l4, ""), "{name: gpu, resourceClaimName: c}", "");
        assert_eq!(explain_text(&text, 35).selected, vec!["n1".to_string()]);
        let ex = explain_text(&text, 36);
        assert!(ex.selected.is_empty());
        let n1 = ex
            .dra
            .as_ref()
            .unwrap()
            .nodes
            .iter()
            .find(|n| n.node == "n1")
            .unwrap()
            .clone();
        assert_eq!(
            n1.requests[0].near,
            vec![
                "gpu-0: model a100".to_string(),
                "gpu-1: tainted maintenance=true:NoSchedule".to_string()
            ]
        );
        // A toleration lets it through.
        let tolerated = "{name: gpu, exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1, tolerations: [{key: maintenance, operator: Exists}], selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].model == \"l4\"'}}]}}";
        let text = gpus(&claim("c", tolerated, ""), "{name: gpu, resourceClaimName: c}", "");
        assert_eq!(explain_text(&text, 36).selected, vec!["n1".to_string()]);
    }

    #[test]
    fn an_allocated_claim_pins_the_pod_and_postfilter_deallocates_an_unused_one() {
        let allocated = r#", status: {allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, pool: n2, device: gpu-2}]}, nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n2]}]}]}}}"#;
        let text = gpus(&claim("c", ONE_GPU, allocated), "{name: gpu, resourceClaimName: c}", "");
        let ex = explain_text(&text, 34);
        assert_eq!(ex.selected, vec!["n2".to_string()]);
        // No node has the cpu: Filter never reaches DynamicResources, nothing to deallocate.
        let full = text.replace("requests: {cpu: \"1\"}", "requests: {cpu: \"9\"}");
        assert_eq!(
            explain_text(&full, 34).message.as_deref(),
            Some(
                "0/2 nodes are available: 2 Insufficient cpu. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
            )
        );
        // With cpu to spare on n1 only, n1 fails the claim's node selector.
        let text = gpus(&claim("c", ONE_GPU, allocated), "{name: gpu, resourceClaimName: c}", "").replace(
            "name: n2, labels: {rack: r2}}, status: {allocatable: {cpu: \"8\"",
            "name: n2, labels: {rack: r2}}, status: {allocatable: {cpu: \"0\"",
        );
        let ex = explain_text(&text, 34);
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/2 nodes are available: 1 Insufficient cpu, 1 resourceclaim not available on the node. deallocation of ResourceClaim completed, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
            )
        );
        // Reserved for another pod: nothing to deallocate.
        let reserved = allocated.replace(
            "}}}",
            "}}, reservedFor: [{resource: pods, name: other, uid: other-uid}]}",
        );
        let text = text.replace(allocated, &reserved);
        let ex = explain_text(&text, 34);
        assert!(
            ex.message
                .as_deref()
                .unwrap()
                .contains("node. still not schedulable, preemption:"),
            "{:?}",
            ex.message
        );
    }

    #[test]
    fn first_available_subrequests_score_from_1_35() {
        // h100 first (no node has one), then a100: the a100 is subrequest 1, worth 8 - 1 = 7.
        let fa = "{name: gpu, firstAvailable: [{name: h100, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1, selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].model == \"h100\"'}}]}, {name: a100, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1, selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].model == \"a100\"'}}]}]}";
        let text = gpus(&claim("c", fa, ""), "{name: gpu, resourceClaimName: c}", "");
        let ex = explain_text(&text, 35);
        for s in &ex.score {
            let d = s.plugins.iter().find(|p| p.plugin == names::DYNAMIC_RESOURCES).unwrap();
            assert_eq!((d.raw, d.normalized, d.weight), (7, 100, 2), "{}", s.node);
        }
        let ex = explain_text(&text, 34);
        assert!(
            ex.score
                .iter()
                .all(|s| s.plugins.iter().all(|p| p.plugin != names::DYNAMIC_RESOURCES))
        );
    }

    #[test]
    fn match_attribute_constraints_and_cel_errors() {
        // Two devices with the same numa node: n1's two GPUs differ (0 and 1).
        let two = "{name: gpu, exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 2, tolerations: [{operator: Exists}]}}], constraints: [{matchAttribute: gpu.example.com/numa}";
        let text = gpus(&claim("c", two, ""), "{name: gpu, resourceClaimName: c}", "");
        let ex = explain_text(&text, 36);
        assert!(
            ex.message
                .as_deref()
                .unwrap()
                .starts_with("0/2 nodes are available: 2 cannot allocate all claims.")
        );
        // A selector reading an attribute the device lacks is an error that ends the attempt.
        let bad = "{name: gpu, exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1, selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].migCapable'}}]}}";
        let text = gpus(&claim("c", bad, ""), "{name: gpu, resourceClaimName: c}", "");
        let ex = explain_text(&text, 35);
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "running \"DynamicResources\" filter plugin: claim a/c: selector #0: CEL runtime error: no such key: migCapable"
            )
        );
        // 1.37 (#136709): the device is named and a missing key gets the hint
        let ex = explain_text(&text, 37);
        let m = ex.message.unwrap();
        assert!(
            m.starts_with("running \"DynamicResources\" filter plugin: claim a/c: selector #0 on device gpu.example.com/")
                && m.ends_with(": CEL runtime error: no such key: migCapable. consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields"),
            "{m}"
        );
    }

    #[test]
    fn extended_resources_go_to_devices_from_1_36() {
        let text = gpus("", "", "")
            .replace("    resourceClaims: []\n", "")
            .replace(
                "requests: {cpu: \"1\"}",
                "requests: {cpu: \"1\", example.com/gpu: \"1\"}, limits: {example.com/gpu: \"1\"}",
            )
            .replace(
                "metadata: {name: gpu.example.com}\n  spec: {",
                "metadata: {name: gpu.example.com}\n  spec: {extendedResourceName: example.com/gpu, ",
            );
        let ex = explain_text(&text, 35);
        assert_eq!(
            ex.message.as_deref().map(|m| m.split('.').next().unwrap()),
            Some("0/2 nodes are available: 2 Insufficient example")
        );
        let ex = explain_text(&text, 36);
        assert_eq!(
            ex.selected,
            vec!["n1".to_string(), "n2".to_string()],
            "{:?}",
            ex.message
        );
        assert_eq!(
            ex.dra.as_ref().unwrap().nodes[0].allocation,
            vec!["<extended-resources>/container-0-request-1: gpu.example.com/n1/gpu-0".to_string()]
        );
    }
}
