//! Port of framework/plugins/volumebinding/volume_binding.go (v1.30.6): `VolumeBinding`.
//! PreFilter checks that the pod's claims exist and are usable, rejects unbound Immediate
//! claims and (1.30, 1.31 only) narrows the nodes to those the bound local PVs allow; Filter checks bound PVs'
//! node affinity and, for WaitForFirstConsumer claims, that a PV can be bound or provisioned on
//! the node. Score exists only with the VolumeCapacityPriority gate, which is off in every
//! supported release, so PreScore returns Skip. Reserve and PreBind are in [`cycle`].

pub(crate) mod binder;
mod cycle;
pub(crate) mod scorer;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use self::binder::{Binder, PodVolumeClaims, get_eligible_nodes, get_pod_volume_claims, volume_claim};
use self::scorer::{Scorer, ShapePoint, StorageResource};
use super::names;
use super::volume_helpers::{claim_name, claim_volume_name, get_pvc, pvc_not_found, volume_is_for_pod};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{
    Ctx, FilterPlugin, Plugin, PluginSlots, PreFilterPlugin, PreScorePlugin, ScorePlugin, ScoreResult, Signing,
};
use crate::engine::framework::status::{Code, Status};
use crate::engine::framework::trace::Lines;
use crate::engine::release::{Change, Features, Gate};
use crate::model::Pod;

/// PreFilter reason for claims that should be bound already.
pub(crate) const ERR_REASON_UNBOUND_IMMEDIATE: &str = "pod has unbound immediate PersistentVolumeClaims";

static STATE_KEY: &str = "VolumeBinding";

/// `config.MaxCustomPriorityScore`.
const MAX_CUSTOM_PRIORITY_SCORE: i64 = 10;

/// Whether VolumeBinding scores by capacity: VolumeCapacityPriority (1.30–1.32) or its
/// successor StorageCapacityScoring (1.33+).
fn volume_capacity_priority(f: &Features) -> bool {
    f.on(Gate::VolumeCapacityPriority) || f.on(Gate::StorageCapacityScoring)
}

/// The gate the shape validation error names.
fn capacity_gate_name(f: &Features) -> &'static str {
    if f.has(Change::StorageCapacityScoringGateName) {
        "StorageCapacityScoring"
    } else {
        "VolumeCapacityPriority"
    }
}

/// A shape point of VolumeBindingArgs.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct UtilizationShapePoint {
    /// Utilization (0..=100).
    pub utilization: i32,
    /// Score (0..=10).
    pub score: i32,
}

/// VolumeBindingArgs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Args {
    /// bindTimeoutSeconds (default 600).
    #[serde(default)]
    pub bind_timeout_seconds: Option<i64>,
    /// shape (VolumeCapacityPriority only).
    #[serde(default)]
    pub shape: Option<Vec<UtilizationShapePoint>>,
}

/// The cycle state: the pod's claims, sorted by PreFilter.
#[derive(Clone, Debug)]
struct StateData {
    claims: Arc<PodVolumeClaims>,
    /// The pod has no PersistentVolumeClaim: PreFilter skipped, Filter kept no volumes for
    /// any node, so Score finds no node's volumes and gives 0 without looking.
    no_claims: bool,
}

/// VolumeBinding.
pub(crate) struct VolumeBinding {
    /// StorageCapacityScoring (1.33+): PreScore always lets Score run, and Score counts the
    /// CSIStorageCapacity of dynamic provisions when there is no static binding.
    storage_capacity_scoring: bool,
    gates: binder::BinderGates,
    /// PreFilter narrows the nodes to those of bound local PVs (until
    /// [`Change::VolumeBindingEligibleNodesRemoved`]).
    eligible_nodes: bool,
    scorer: Option<Scorer>,
    /// `bindTimeoutSeconds`: how long PreBind waits for the claims to be bound.
    bind_timeout_secs: u64,
}

impl Plugin for VolumeBinding {
    fn name(&self) -> &'static str {
        names::VOLUME_BINDING
    }

    fn sign_pod(&self, _: &Ctx<'_>, _: &PodInfo) -> Signing {
        Signing::Signed
    }
}

/// `podHasPVCs`: Ok(false) when the pod uses no claim; Err(message) for a claim that is
/// missing, lost, being deleted, or an ephemeral claim the pod does not own.
fn pod_has_pvcs(cluster: &crate::model::Cluster, pod: &Pod) -> Result<bool, String> {
    let mut has = false;
    for vol in pod.spec().volumes.iter().flatten() {
        let Some((name, ephemeral)) = volume_claim(pod, vol) else {
            continue;
        };
        has = true;
        let Some(pvc) = get_pvc(cluster, &pod.key.namespace, &name) else {
            if ephemeral {
                return Err(format!(
                    "waiting for ephemeral volume controller to create the persistentvolumeclaim {name:?}"
                ));
            }
            return Err(pvc_not_found(&name));
        };
        if pvc.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Lost") {
            return Err(format!(
                "persistentvolumeclaim {:?} bound to non-existent persistentvolume {:?}",
                claim_name(pvc),
                claim_volume_name(pvc)
            ));
        }
        if pvc.metadata.deletion_timestamp.is_some() {
            return Err(format!("persistentvolumeclaim {:?} is being deleted", claim_name(pvc)));
        }
        if ephemeral {
            volume_is_for_pod(pod, pvc)?;
        }
    }
    Ok(has)
}

impl PreFilterPlugin for VolumeBinding {
    fn pre_filter_facts(
        &self,
        cx: &Ctx<'_>,
        _: &CycleState,
        pod: &PodInfo,
    ) -> Vec<crate::engine::framework::trace::Fact> {
        let mut facts = vec![crate::engine::plugins::volume_helpers::claims_fact(&pod.pod, true)];
        // the claims that should be bound already, with their class (what the reason is about)
        if let Ok(c) = get_pod_volume_claims(&cx.snapshot.cluster, &pod.pod)
            && !c.unbound_immediate.is_empty()
        {
            let items: Vec<String> = c
                .unbound_immediate
                .iter()
                .map(|pvc| {
                    let phase = pvc
                        .status
                        .as_ref()
                        .and_then(|s| s.phase.as_deref())
                        .unwrap_or("Pending");
                    format!("{}, phase {phase}", claim_label(pvc))
                })
                .collect();
            facts.push(crate::engine::framework::trace::Fact::list(
                "unbound claims of Immediate classes (the provisioner or the PV controller should have bound them)",
                &items,
                "",
            ));
        }
        facts
    }

    fn pre_filter(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        let cluster = &cx.snapshot.cluster;
        match pod_has_pvcs(cluster, &pod.pod) {
            Err(e) => return (None, Status::unresolvable(e)),
            Ok(false) => {
                // Upstream writes an empty state before the Skip, so PreScore and Score find it.
                state.write(
                    STATE_KEY,
                    StateData {
                        claims: Arc::new(PodVolumeClaims::default()),
                        no_claims: true,
                    },
                );
                return (None, Status::skip());
            }
            Ok(true) => {}
        }
        let claims = match get_pod_volume_claims(cluster, &pod.pod) {
            Ok(c) => c,
            Err(e) => return (None, Status::error(e)),
        };
        if !claims.unbound_immediate.is_empty() {
            return (
                None,
                Status::new(Code::UnschedulableAndUnresolvable, [ERR_REASON_UNBOUND_IMMEDIATE]),
            );
        }
        let eligible = if self.eligible_nodes {
            get_eligible_nodes(cluster, &claims.bound)
        } else {
            None
        };
        state.write(
            STATE_KEY,
            StateData {
                claims: Arc::new(claims),
                no_claims: false,
            },
        );
        (eligible, Status::success())
    }
}

impl VolumeBinding {
    fn find(
        &self,
        cx: &Ctx<'_>,
        claims: &PodVolumeClaims,
        pod: &PodInfo,
        node: &NodeInfo,
    ) -> Result<binder::FindResult, String> {
        Binder {
            cluster: &cx.snapshot.cluster,
            gates: self.gates,
        }
        .find_pod_volumes(&pod.pod, claims, &node.node)
    }
}

fn state_error() -> Status {
    Status::error(format!("error reading {STATE_KEY:?} from cycleState: not found"))
}

/// `PersistentVolumeClaim ns/name (StorageClass sc)`, as the detail names a claim.
fn claim_label(pvc: &k8s_openapi::api::core::v1::PersistentVolumeClaim) -> String {
    let class = pvc
        .spec
        .as_ref()
        .and_then(|s| s.storage_class_name.as_deref())
        .filter(|c| !c.is_empty())
        .unwrap_or("none");
    format!(
        "PersistentVolumeClaim {}/{} (StorageClass {class})",
        super::volume_helpers::claim_namespace(pvc),
        claim_name(pvc)
    )
}

impl FilterPlugin for VolumeBinding {
    fn filter(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        let Some(s) = state.read::<StateData>(STATE_KEY) else {
            return state_error();
        };
        match self.find(cx, &s.claims, pod, node) {
            Err(e) => Status::error(e),
            Ok(r) if r.reasons.is_empty() => Status::success(),
            Ok(r) => Status::new(Code::UnschedulableAndUnresolvable, r.reasons),
        }
    }

    /// Which claim each reason is about: the same check run on each claim alone.
    fn failure_detail(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Lines {
        let Some(s) = state.read::<StateData>(STATE_KEY) else {
            return Lines::default();
        };
        let mut out = Vec::new();
        for pvc in &s.claims.bound {
            let one = PodVolumeClaims {
                bound: vec![pvc.clone()],
                ..PodVolumeClaims::default()
            };
            if let Ok(r) = self.find(cx, &one, pod, node)
                && !r.reasons.is_empty()
            {
                out.push(format!(
                    "{} is bound to PersistentVolume {}: {}",
                    claim_label(pvc),
                    claim_volume_name(pvc),
                    r.reasons.join(", ")
                ));
            }
        }
        for pvc in &s.claims.unbound_delay_binding {
            let one = PodVolumeClaims {
                unbound_delay_binding: vec![pvc.clone()],
                unbound_volumes_delay_binding: s.claims.unbound_volumes_delay_binding.clone(),
                ..PodVolumeClaims::default()
            };
            if let Ok(r) = self.find(cx, &one, pod, node)
                && !r.reasons.is_empty()
            {
                out.push(format!(
                    "{} (WaitForFirstConsumer, unbound): {}",
                    claim_label(pvc),
                    r.reasons.join(", ")
                ));
            }
        }
        out.into()
    }
}

impl PreScorePlugin for VolumeBinding {
    fn pre_score(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, nodes: &[&NodeInfo]) -> Status {
        if self.scorer.is_none() {
            return Status::skip();
        }
        let Some(s) = state.read::<StateData>(STATE_KEY) else {
            return state_error();
        };
        if self.storage_capacity_scoring {
            return Status::success();
        }
        // Upstream remembers whether Filter found static bindings on any node it passed.
        let has_static = nodes.iter().any(|n| {
            self.find(cx, &s.claims, pod, n)
                .is_ok_and(|r| r.reasons.is_empty() && !r.volumes.static_bindings.is_empty())
        });
        if has_static { Status::success() } else { Status::skip() }
    }
}

impl ScorePlugin for VolumeBinding {
    fn scores_zero_everywhere(&self, state: &CycleState, _: &PodInfo) -> bool {
        self.scorer.is_none() || state.read::<StateData>(STATE_KEY).is_some_and(|s| s.no_claims)
    }

    fn score(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> ScoreResult {
        let Some(scorer) = &self.scorer else {
            return Ok(0);
        };
        let Some(s) = state.read::<StateData>(STATE_KEY) else {
            return Err(Box::new(state_error()));
        };
        if s.no_claims {
            return Ok(0);
        }
        let Ok(r) = self.find(cx, &s.claims, pod, node) else {
            return Ok(0);
        };
        if !r.reasons.is_empty() {
            // Filter kept no volumes for a node it rejected (not scored upstream either).
            return Ok(0);
        }
        let mut classes: BTreeMap<String, StorageResource> = BTreeMap::new();
        if !r.volumes.static_bindings.is_empty() || !self.storage_capacity_scoring {
            for b in &r.volumes.static_bindings {
                let (req, cap) = b.storage_resource();
                let e = classes.entry(b.storage_class_name()).or_default();
                e.requested += req;
                e.capacity += cap;
            }
        } else {
            for p in &r.volumes.dynamic_provisions {
                let Some(capacity) = p.node_capacity else {
                    continue;
                };
                let e = classes.entry(super::volume_helpers::claim_class(&p.pvc)).or_default();
                // Assigned, not added: two claims of one class share the class' capacity.
                e.capacity = capacity;
                e.requested += super::volume_helpers::claim_storage_request(&p.pvc).map_or(0, |q| q.value());
            }
        }
        Ok(scorer.score(&classes))
    }
}

fn validate_shape(shape: &[UtilizationShapePoint], features: &Features) -> Result<(), String> {
    if shape.is_empty() {
        return Err("shape: Required value: at least one point must be specified".into());
    }
    for i in 1..shape.len() {
        if shape[i - 1].utilization >= shape[i].utilization {
            return Err(format!(
                "shape[{i}].utilization: Invalid value: {}: {}",
                shape[i].utilization,
                crate::engine::plugins::node_resources::resource_allocation::shape_order_message(features)
            ));
        }
    }
    for (i, p) in shape.iter().enumerate() {
        if !(0..=100).contains(&p.utilization) {
            return Err(format!(
                "shape[{i}].utilization: Invalid value: {}: not in valid range [0, 100]",
                p.utilization
            ));
        }
        if !(0..=10).contains(&p.score) {
            return Err(format!(
                "shape[{i}].score: Invalid value: {}: not in valid range [0, 10]",
                p.score
            ));
        }
    }
    Ok(())
}

fn build(a: Args, features: &Features, capacity_priority: bool) -> Result<VolumeBinding, String> {
    let timeout = a.bind_timeout_seconds.unwrap_or(600);
    if timeout < 0 {
        return Err(format!(
            "bindTimeoutSeconds: Invalid value: {timeout}: invalid BindTimeoutSeconds, should not be a negative value"
        ));
    }
    let storage_capacity_scoring = features.on(Gate::StorageCapacityScoring);
    let scorer = if capacity_priority {
        // SetDefaults_VolumeBindingArgs: VolumeCapacityPriority preferred full nodes,
        // StorageCapacityScoring (1.33+) prefers the most free capacity.
        let (low, high) = if storage_capacity_scoring { (10, 0) } else { (0, 10) };
        let shape = match a.shape {
            Some(s) if !s.is_empty() => s,
            _ => vec![
                UtilizationShapePoint {
                    utilization: 0,
                    score: low,
                },
                UtilizationShapePoint {
                    utilization: 100,
                    score: high,
                },
            ],
        };
        validate_shape(&shape, features)?;
        Some(Scorer::new(
            shape
                .iter()
                .map(|p| ShapePoint {
                    utilization: i64::from(p.utilization),
                    score: i64::from(p.score) * (super::helper::MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE),
                })
                .collect(),
        ))
    } else {
        if a.shape.is_some() {
            return Err(format!(
                "shape: Invalid value: the shape points: unexpected field `shape`, remove it or turn on the feature gate {}",
                capacity_gate_name(features)
            ));
        }
        None
    };
    Ok(VolumeBinding {
        storage_capacity_scoring,
        gates: binder::BinderGates::of(features),
        eligible_nodes: !features.has(Change::VolumeBindingEligibleNodesRemoved),
        scorer,
        bind_timeout_secs: u64::try_from(timeout).unwrap_or(0),
    })
}

/// Registers VolumeBinding.
pub(crate) fn register(args: &Value, features: &Features) -> Result<PluginSlots, String> {
    let a: Args = super::decode_args(args)?;
    let p = Arc::new(build(a, features, volume_capacity_priority(features))?);
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p.clone()),
        pre_score: Some(p.clone()),
        score: Some(p.clone()),
        reserve: Some(p.clone()),
        pre_bind: Some(p),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests;
