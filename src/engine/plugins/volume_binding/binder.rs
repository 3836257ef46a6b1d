//! Port of the scheduling half of volumebinding/binder.go (v1.30.6) and of
//! `FindMatchingVolume` (component-helpers/storage/volume/pv_helpers.go): sorting the pod's
//! claims into bound / unbound-immediate / unbound-delayed, the nodes bound local PVs pin, and
//! per node whether bound PVs' node affinity matches, an available PV can be bound, or the class
//! can provision there (allowed topologies, CSIStorageCapacity). Assume, bind and revert are
//! cluster writes and are not reproduced.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::storage::v1 as storage;

use crate::engine::plugins::csi_translation::Migration;
use crate::engine::plugins::csi_translation::binder_translate_pv;
use crate::engine::plugins::volume_helpers::{
    ANN_SELECTED_NODE, NOT_SUPPORTED_PROVISIONER, annotation, claim_access_modes, claim_class, claim_name,
    claim_namespace, claim_storage_request, claim_volume_name, ephemeral_claim_name, get_pvc, is_pvc_fully_bound,
    local_pv_node_names, match_topology_selector_terms, pv_class, pv_node_affinity_matches, pv_storage_capacity,
    volume_is_for_pod,
};
use crate::engine::release::{Change, Features, Gate};
use crate::model::quantity::Quantity;
use crate::model::selector::{Labels, Selector};
use crate::model::{Cluster, Node, Pod};

/// Reason: no PV can be bound and the class cannot provision on the node.
pub(crate) const ERR_REASON_BIND_CONFLICT: &str = "node(s) didn't find available persistent volumes to bind";
/// Reason: a bound PV's node affinity excludes the node.
pub(crate) const ERR_REASON_NODE_CONFLICT: &str = "node(s) had volume node affinity conflict";
/// The same reason from 1.33 on.
pub(crate) const ERR_REASON_NODE_CONFLICT_1_33: &str = "node(s) didn't match PersistentVolume's node affinity";
/// Reason: no CSIStorageCapacity reachable from the node is large enough.
pub(crate) const ERR_REASON_NOT_ENOUGH_SPACE: &str = "node(s) did not have enough free storage";
/// Reason: a bound claim names a PV that does not exist.
pub(crate) const ERR_REASON_PV_NOT_EXIST: &str =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";

/// The pod's claims, sorted (`PodVolumeClaims`).
#[derive(Clone, Debug, Default)]
pub(crate) struct PodVolumeClaims {
    /// Fully bound claims.
    pub bound: Vec<core::PersistentVolumeClaim>,
    /// Unbound claims of WaitForFirstConsumer classes.
    pub unbound_delay_binding: Vec<core::PersistentVolumeClaim>,
    /// Unbound claims that should have been bound already.
    pub unbound_immediate: Vec<core::PersistentVolumeClaim>,
    /// Class → the PVs of that class (by name), for the delayed claims.
    pub unbound_volumes_delay_binding: BTreeMap<String, Vec<core::PersistentVolume>>,
}

/// A PV chosen for a claim.
#[derive(Clone, Debug)]
pub(crate) struct BindingInfo {
    /// The claim.
    pub pvc: core::PersistentVolumeClaim,
    /// The PV.
    pub pv: core::PersistentVolume,
}

impl BindingInfo {
    /// `StorageClassName` (the PV's spec field).
    pub(crate) fn storage_class_name(&self) -> String {
        self.pv
            .spec
            .as_ref()
            .and_then(|s| s.storage_class_name.clone())
            .unwrap_or_default()
    }

    /// `StorageResource`: (requested, capacity) in bytes.
    pub(crate) fn storage_resource(&self) -> (i64, i64) {
        let req = claim_storage_request(&self.pvc).unwrap_or_default().value();
        (req, pv_storage_capacity(&self.pv).value())
    }
}

/// What a node would need done (`PodVolumes`).
#[derive(Clone, Debug, Default)]
pub(crate) struct PodVolumes {
    /// Claims matched to existing PVs.
    pub static_bindings: Vec<BindingInfo>,
    /// Claims to provision.
    pub dynamic_provisions: Vec<ProvisionInfo>,
}

/// A claim to provision (`DynamicProvision`).
#[derive(Clone, Debug)]
pub(crate) struct ProvisionInfo {
    /// The claim.
    pub pvc: core::PersistentVolumeClaim,
    /// The capacity bytes of the CSIStorageCapacity that had room for it on the node, when the
    /// driver tracks capacity (`NodeCapacity.Capacity`).
    pub node_capacity: Option<i64>,
}

/// The claim a volume uses: `(name, ephemeral)`; None for volumes without a claim.
pub(crate) fn volume_claim(pod: &Pod, vol: &core::Volume) -> Option<(String, bool)> {
    match (&vol.persistent_volume_claim, &vol.ephemeral) {
        (Some(c), _) => Some((c.claim_name.clone(), false)),
        (None, Some(_)) => Some((ephemeral_claim_name(pod, vol), true)),
        _ => None,
    }
}

/// `IsDelayBindingMode`.
fn is_delay_binding_mode(cluster: &Cluster, pvc: &core::PersistentVolumeClaim) -> Result<bool, String> {
    let class = claim_class(pvc);
    if class.is_empty() {
        return Ok(false);
    }
    let Some(sc) = cluster.storage_classes.get(&class) else {
        return Ok(false);
    };
    match sc.volume_binding_mode.as_deref() {
        None => Err(format!("VolumeBindingMode not set for StorageClass {class:?}")),
        Some(m) => Ok(m == "WaitForFirstConsumer"),
    }
}

/// `GetPodVolumeClaims`. The pod's claims exist (PreFilter checked them first).
pub(crate) fn get_pod_volume_claims(cluster: &Cluster, pod: &Pod) -> Result<PodVolumeClaims, String> {
    let mut out = PodVolumeClaims::default();
    for vol in pod.spec().volumes.iter().flatten() {
        let Some((name, ephemeral)) = volume_claim(pod, vol) else {
            continue;
        };
        let Some(pvc) = get_pvc(cluster, &pod.key.namespace, &name) else {
            return Err(format!(
                "error getting PVC \"{}/{name}\": persistentvolumeclaim \"{name}\" not found",
                pod.key.namespace
            ));
        };
        if ephemeral {
            volume_is_for_pod(pod, pvc)?;
        }
        if is_pvc_fully_bound(pvc) {
            out.bound.push(pvc.clone());
        } else if is_delay_binding_mode(cluster, pvc)? && claim_volume_name(pvc).is_empty() {
            out.unbound_delay_binding.push(pvc.clone());
        } else {
            out.unbound_immediate.push(pvc.clone());
        }
    }
    for pvc in &out.unbound_delay_binding {
        let class = claim_class(pvc);
        let pvs: Vec<core::PersistentVolume> = cluster
            .pvs
            .values()
            .filter(|pv| pv_class(pv) == class)
            .cloned()
            .collect();
        out.unbound_volumes_delay_binding.insert(class, pvs);
    }
    Ok(out)
}

/// `GetEligibleNodes`: the nodes the bound claims' local PVs allow (None: no restriction, or a
/// bound PV is missing).
pub(crate) fn get_eligible_nodes(cluster: &Cluster, bound: &[core::PersistentVolumeClaim]) -> Option<BTreeSet<String>> {
    let mut eligible: Option<BTreeSet<String>> = None;
    let mut missing = false;
    for pvc in bound {
        let Some(pv) = cluster.pvs.get(claim_volume_name(pvc)) else {
            missing = true;
            continue;
        };
        let names = local_pv_node_names(pv);
        if names.is_empty() {
            continue;
        }
        let set: BTreeSet<String> = names.into_iter().collect();
        eligible = Some(match eligible {
            None => set,
            Some(prev) => prev.intersection(&set).cloned().collect(),
        });
    }
    if missing { None } else { eligible }
}

/// The binder's view of the cluster for one node check.
pub(crate) struct Binder<'a> {
    /// The cluster.
    pub cluster: &'a Cluster,
    /// What the release does differently.
    pub gates: BinderGates,
}

/// What the binder does differently from release to release.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BinderGates {
    /// CSI migration gates.
    pub migration: Migration,
    /// [`Change::VolumeBindingChecksAttributesClass`].
    pub check_attributes_class: bool,
    /// The VolumeAttributesClass gate.
    pub attributes_class_enabled: bool,
    /// [`Change::PvNodeAffinityReasonRenamed`].
    pub node_affinity_reason_renamed: bool,
}

impl BinderGates {
    /// The binder of these features.
    pub(crate) fn of(f: &Features) -> BinderGates {
        BinderGates {
            migration: Migration::of(f),
            check_attributes_class: f.has(Change::VolumeBindingChecksAttributesClass),
            attributes_class_enabled: f.on(Gate::VolumeAttributesClass),
            node_affinity_reason_renamed: f.has(Change::PvNodeAffinityReasonRenamed),
        }
    }
}

/// `FindPodVolumes`' answer.
#[derive(Clone, Debug, Default)]
pub(crate) struct FindResult {
    /// What binding the pod on the node would take.
    pub volumes: PodVolumes,
    /// Conflict reasons, in upstream's order.
    pub reasons: Vec<&'static str>,
}

impl Binder<'_> {
    /// `FindPodVolumes` (the pod itself is only logged upstream).
    pub(crate) fn find_pod_volumes(
        &self,
        _pod: &Pod,
        claims: &PodVolumeClaims,
        node: &Node,
    ) -> Result<FindResult, String> {
        let mut unbound_satisfied = true;
        let mut bound_satisfied = true;
        let mut sufficient_storage = true;
        let mut bound_pvs_found = true;
        let mut result = FindResult::default();
        'find: {
            if !claims.bound.is_empty() {
                (bound_satisfied, bound_pvs_found) = self.check_bound_claims(&claims.bound, node)?;
            }
            if claims.unbound_delay_binding.is_empty() {
                break 'find;
            }
            let mut to_find = Vec::new();
            let mut to_provision = Vec::new();
            for claim in &claims.unbound_delay_binding {
                match annotation(&claim.metadata, ANN_SELECTED_NODE) {
                    Some(selected) if selected != node.name => {
                        unbound_satisfied = false;
                        break 'find;
                    }
                    Some(_) => to_provision.push(claim.clone()),
                    None => to_find.push(claim.clone()),
                }
            }
            if !to_find.is_empty() {
                let (found, bindings, unbound) =
                    find_matching_volumes(to_find, &claims.unbound_volumes_delay_binding, node, self.gates)?;
                unbound_satisfied = found;
                result.volumes.static_bindings = bindings;
                to_provision.extend(unbound);
            }
            if !to_provision.is_empty() {
                let (provision_ok, storage_ok, provisions) = self.check_volume_provisions(&to_provision, node)?;
                unbound_satisfied = provision_ok;
                sufficient_storage = storage_ok;
                result.volumes.dynamic_provisions = provisions;
            }
        }
        if !bound_satisfied {
            result.reasons.push(if self.gates.node_affinity_reason_renamed {
                ERR_REASON_NODE_CONFLICT_1_33
            } else {
                ERR_REASON_NODE_CONFLICT
            });
        }
        if !unbound_satisfied {
            result.reasons.push(ERR_REASON_BIND_CONFLICT);
        }
        if !sufficient_storage {
            result.reasons.push(ERR_REASON_NOT_ENOUGH_SPACE);
        }
        if !bound_pvs_found {
            result.reasons.push(ERR_REASON_PV_NOT_EXIST);
        }
        Ok(result)
    }

    /// `checkBoundClaims`: (node affinity satisfied, all PVs found).
    fn check_bound_claims(&self, claims: &[core::PersistentVolumeClaim], node: &Node) -> Result<(bool, bool), String> {
        let csi_node = self.cluster.csi_nodes.get(&node.name);
        for pvc in claims {
            let Some(pv) = self.cluster.pvs.get(claim_volume_name(pvc)) else {
                return Ok((true, false));
            };
            let pv = binder_translate_pv(pv, csi_node, self.gates.migration)?;
            if !pv_node_affinity_matches(&pv, &node.labels) {
                return Ok((false, true));
            }
        }
        Ok((true, true))
    }

    /// `checkVolumeProvisions`: (provisioning possible, enough storage, claims to provision).
    fn check_volume_provisions(
        &self,
        claims: &[core::PersistentVolumeClaim],
        node: &Node,
    ) -> Result<(bool, bool, Vec<ProvisionInfo>), String> {
        let mut provisions = Vec::new();
        for claim in claims {
            let class_name = claim_class(claim);
            if class_name.is_empty() {
                return Err(format!(
                    "no class for claim \"{}/{}\"",
                    claim_namespace(claim),
                    claim_name(claim)
                ));
            }
            let Some(class) = self.cluster.storage_classes.get(&class_name) else {
                return Err(format!("failed to find storage class {class_name:?}"));
            };
            let provisioner = class.provisioner.as_str();
            if provisioner.is_empty() || provisioner == NOT_SUPPORTED_PROVISIONER {
                return Ok((false, true, Vec::new()));
            }
            if !match_topology_selector_terms(class.allowed_topologies.as_deref(), &node.labels) {
                return Ok((false, true, Vec::new()));
            }
            let (enough, node_capacity) = self.has_enough_capacity(provisioner, claim, class, node);
            if !enough {
                return Ok((true, false, Vec::new()));
            }
            provisions.push(ProvisionInfo {
                pvc: claim.clone(),
                node_capacity,
            });
        }
        Ok((true, true, provisions))
    }

    /// `hasEnoughCapacity`: only drivers with `storageCapacity: true` are checked; the first
    /// matching CSIStorageCapacity (by namespace/name; upstream takes the lister's order) gives
    /// its capacity bytes.
    fn has_enough_capacity(
        &self,
        provisioner: &str,
        claim: &core::PersistentVolumeClaim,
        class: &storage::StorageClass,
        node: &Node,
    ) -> (bool, Option<i64>) {
        let Some(size) = claim_storage_request(claim) else {
            return (true, None);
        };
        let Some(driver) = self.cluster.csi_drivers.get(provisioner) else {
            return (true, None);
        };
        if driver.spec.storage_capacity != Some(true) {
            return (true, None);
        }
        let class_name = class.metadata.name.as_deref().unwrap_or("");
        let size = size.value();
        match self.cluster.csi_storage_capacities.iter().find(|c| {
            c.storage_class_name == class_name && capacity_sufficient(c, size) && node_has_access(&node.labels, c)
        }) {
            Some(c) => (
                true,
                Some(
                    c.capacity
                        .as_ref()
                        .and_then(|q| crate::model::quantity::Quantity::parse(&q.0).ok())
                        .map_or(0, |q| q.value()),
                ),
            ),
            None => (false, None),
        }
    }
}

/// `capacitySufficient`: maximumVolumeSize if set, else capacity, must hold the size.
fn capacity_sufficient(c: &storage::CSIStorageCapacity, size: i64) -> bool {
    let limit = c.maximum_volume_size.as_ref().or(c.capacity.as_ref());
    limit.is_some_and(|q| Quantity::parse(&q.0).unwrap_or_default().value() >= size)
}

/// `nodeHasAccess`: the capacity's node topology selects the node.
fn node_has_access(labels: &Labels, c: &storage::CSIStorageCapacity) -> bool {
    c.node_topology
        .as_ref()
        .is_some_and(|t| Selector::from_label_selector(Some(t)).matches(labels))
}

/// `IsVolumeBoundToClaim`.
fn is_volume_bound_to_claim(pv: &core::PersistentVolume, claim: &core::PersistentVolumeClaim) -> bool {
    let Some(r) = pv.spec.as_ref().and_then(|s| s.claim_ref.as_ref()) else {
        return false;
    };
    if r.name.as_deref().unwrap_or("") != claim_name(claim)
        || r.namespace.as_deref().unwrap_or("") != claim_namespace(claim)
    {
        return false;
    }
    let uid = r.uid.as_deref().unwrap_or("");
    uid.is_empty() || claim.metadata.uid.as_deref().unwrap_or("") == uid
}

fn volume_mode(m: Option<&String>) -> &str {
    m.map_or("Filesystem", String::as_str)
}

/// `CheckAccessModes`: every mode the claim asks for is offered by the PV.
fn check_access_modes(claim: &core::PersistentVolumeClaim, pv: &core::PersistentVolume) -> bool {
    let offered = pv.spec.as_ref().and_then(|s| s.access_modes.as_deref()).unwrap_or(&[]);
    claim_access_modes(claim).iter().all(|m| offered.contains(m))
}

/// True when a label selector parses (`LabelSelectorAsSelector` succeeds).
fn label_selector_valid(ls: &k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector) -> bool {
    !Selector::from_label_selector(Some(ls)).is_nothing()
}

/// `FindMatchingVolume` with `delayBinding` and a node: the smallest available PV of the
/// claim's class that is large enough, has the claim's volume mode and access modes, matches
/// the claim's selector and the node; a PV pre-bound to the claim wins (or ends the search
/// when its node affinity does not match).
///
/// From 1.31 the claim's and the PVs' volumeAttributesClassName count
/// ([`Change::VolumeBindingChecksAttributesClass`]).
pub(crate) fn find_matching_volume<'a>(
    claim: &core::PersistentVolumeClaim,
    volumes: &'a [core::PersistentVolume],
    node: &Node,
    excluded: &BTreeSet<String>,
    gates: BinderGates,
) -> Result<Option<&'a core::PersistentVolume>, String> {
    let check_vac = gates.check_attributes_class;
    let vac_enabled = gates.attributes_class_enabled;
    let claim_vac = claim
        .spec
        .as_ref()
        .and_then(|s| s.volume_attributes_class_name.as_deref())
        .unwrap_or("");
    if check_vac && !vac_enabled && !claim_vac.is_empty() {
        return Err(format!(
            "unsupported volumeAttributesClassName is set on claim {}/{} when the feature-gate VolumeAttributesClass is disabled",
            claim_namespace(claim),
            claim_name(claim)
        ));
    }
    let requested = claim_storage_request(claim).unwrap_or_default();
    let requested_class = claim_class(claim);
    let spec = claim.spec.clone().unwrap_or_default();
    let selector = match &spec.selector {
        Some(ls) if !label_selector_valid(ls) => {
            return Err(format!(
                "error creating internal label selector for claim: {}/{}: invalid label selector",
                claim_namespace(claim),
                claim_name(claim)
            ));
        }
        Some(ls) => Some(Selector::from_label_selector(Some(ls))),
        None => None,
    };
    let mut smallest: Option<(&core::PersistentVolume, Quantity)> = None;
    for pv in volumes {
        let name = pv.metadata.name.as_deref().unwrap_or("");
        if excluded.contains(name) {
            continue;
        }
        let pv_spec = pv.spec.as_ref();
        if pv_spec.and_then(|s| s.claim_ref.as_ref()).is_some() && !is_volume_bound_to_claim(pv, claim) {
            continue;
        }
        let qty = pv_storage_capacity(pv);
        if qty < requested {
            continue;
        }
        if volume_mode(spec.volume_mode.as_ref()) != volume_mode(pv_spec.and_then(|s| s.volume_mode.as_ref())) {
            continue;
        }
        if check_vac {
            let pv_vac = pv_spec
                .and_then(|s| s.volume_attributes_class_name.as_deref())
                .unwrap_or("");
            if (vac_enabled && claim_vac != pv_vac) || (!vac_enabled && !pv_vac.is_empty()) {
                continue;
            }
        }
        if pv.metadata.deletion_timestamp.is_some() {
            continue;
        }
        let affinity_ok = pv_node_affinity_matches(pv, &node.labels);
        if is_volume_bound_to_claim(pv, claim) {
            return Ok(affinity_ok.then_some(pv));
        }
        if pv.status.as_ref().and_then(|s| s.phase.as_deref()) != Some("Available") {
            continue;
        }
        if let Some(sel) = &selector
            && !sel.matches(pv.metadata.labels.as_ref().unwrap_or(&BTreeMap::new()))
        {
            continue;
        }
        if pv_class(pv) != requested_class {
            continue;
        }
        if !affinity_ok || !check_access_modes(claim, pv) {
            continue;
        }
        if smallest.as_ref().is_none_or(|(_, q)| *q > qty) {
            smallest = Some((pv, qty));
        }
    }
    Ok(smallest.map(|(pv, _)| pv))
}

/// `findMatchingVolumes`: (all matched, bindings, claims left to provision). Claims are tried
/// smallest request first; a PV is chosen once.
fn find_matching_volumes(
    mut claims: Vec<core::PersistentVolumeClaim>,
    volumes: &BTreeMap<String, Vec<core::PersistentVolume>>,
    node: &Node,
    gates: BinderGates,
) -> Result<(bool, Vec<BindingInfo>, Vec<core::PersistentVolumeClaim>), String> {
    claims.sort_by_key(|c| claim_storage_request(c).unwrap_or_default());
    let mut chosen = BTreeSet::new();
    let mut bindings = Vec::new();
    let mut unbound = Vec::new();
    let mut all = true;
    let empty = Vec::new();
    for pvc in claims {
        let pvs = volumes.get(&claim_class(&pvc)).unwrap_or(&empty);
        match find_matching_volume(&pvc, pvs, node, &chosen, gates)? {
            None => {
                unbound.push(pvc);
                all = false;
            }
            Some(pv) => {
                chosen.insert(pv.metadata.name.clone().unwrap_or_default());
                bindings.push(BindingInfo { pvc, pv: pv.clone() });
            }
        }
    }
    Ok((all, bindings, unbound))
}
