//! VolumeBinding at Reserve, Unreserve and PreBind (framework/plugins/volumebinding/
//! volume_binding.go, v1.30.6), as far as kschedtui reproduces them without VolumeBinding's
//! PreFilter/Filter state (those live in their own module):
//!
//! - a pod without PersistentVolumeClaims (PreFilter wrote an empty state and returned Skip):
//!   Reserve marks all volumes bound and succeeds, PreBind has nothing to bind and succeeds;
//! - a pod whose claims are all bound: the same;
//! - a pod with unbound WaitForFirstConsumer claims: Reserve assumes them (succeeds) and PreBind
//!   binds them (succeeds); the trace names each claim and what upstream does with it (bind the
//!   PersistentVolume Filter matched, or ask the provisioner for a volume on the node via the
//!   `volume.kubernetes.io/selected-node` annotation). Which PersistentVolume matches is
//!   VolumeBinding Filter's decision and is not repeated here; the simulator does not change
//!   PersistentVolumes or claims.
//!
//! These functions are added to whatever VolumeBinding registers for the earlier points.

use std::sync::Arc;

use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::PodInfo;
use crate::engine::framework::plugin::{Ctx, Plugin, PluginSlots, PreBindPlugin, ReservePlugin};
use crate::engine::framework::status::Status;
use crate::engine::plugins::names;
use crate::model::{Cluster, ObjectKey, Pod};

static STATE_KEY: &str = "kschedtui/VolumeBindingCycle";

/// What VolumeBinding does with one claim at Reserve/PreBind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ClaimPlan {
    /// Already bound (spec.volumeName set): nothing to do.
    Bound(ObjectKey, String),
    /// Unbound with delayed binding: bind a matching PV or provision one on the node.
    Delayed {
        /// The claim.
        claim: ObjectKey,
        /// Its StorageClass.
        class: String,
        /// The class's provisioner ("" when unknown).
        provisioner: String,
    },
    /// Missing, or unbound with Immediate binding: VolumeBinding PreFilter rejects the pod
    /// upstream before this point.
    RejectedEarlier(ObjectKey, &'static str),
}

/// The claims a pod references (`persistentVolumeClaim` volumes and generic ephemeral volumes,
/// whose claim is `<pod>-<volume>`), in volume order.
pub(crate) fn pod_claims(pod: &Pod) -> Vec<ObjectKey> {
    pod.spec()
        .volumes
        .iter()
        .flatten()
        .filter_map(|v| {
            if let Some(c) = &v.persistent_volume_claim {
                Some(ObjectKey::new(pod.key.namespace.clone(), c.claim_name.clone()))
            } else {
                v.ephemeral
                    .as_ref()
                    .map(|_| ObjectKey::new(pod.key.namespace.clone(), format!("{}-{}", pod.key.name, v.name)))
            }
        })
        .collect()
}

/// The plan for each of the pod's claims.
pub(crate) fn plan(cluster: &Cluster, pod: &Pod) -> Vec<ClaimPlan> {
    pod_claims(pod)
        .into_iter()
        .map(|k| {
            let Some(pvc) = cluster.pvcs.get(&k) else {
                return ClaimPlan::RejectedEarlier(k, "not found");
            };
            let spec = pvc.spec.clone().unwrap_or_default();
            if let Some(v) = spec.volume_name.filter(|v| !v.is_empty()) {
                return ClaimPlan::Bound(k, v);
            }
            let class = spec.storage_class_name.unwrap_or_default();
            let sc = cluster.storage_classes.get(&class);
            let delayed = sc.is_some_and(|s| s.volume_binding_mode.as_deref() == Some("WaitForFirstConsumer"));
            if !delayed {
                return ClaimPlan::RejectedEarlier(k, "unbound with Immediate binding");
            }
            ClaimPlan::Delayed {
                claim: k,
                class,
                provisioner: sc.map(|s| s.provisioner.clone()).unwrap_or_default(),
            }
        })
        .collect()
}

/// VolumeBinding's Reserve and PreBind.
pub(crate) struct VolumeBindingCycle;

impl Plugin for VolumeBindingCycle {
    fn name(&self) -> &'static str {
        names::VOLUME_BINDING
    }
}

impl ReservePlugin for VolumeBindingCycle {
    fn reserve(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        node: &str,
        notes: &mut Vec<String>,
    ) -> Status {
        let p = plan(&cx.snapshot.cluster, &pod.pod);
        if p.is_empty() {
            notes.push("no PersistentVolumeClaims: all volumes bound, nothing to assume".into());
        }
        for c in &p {
            notes.push(match c {
                ClaimPlan::Bound(k, v) => format!("claim {k} is bound to {v}: nothing to assume"),
                ClaimPlan::Delayed { claim, .. } => {
                    format!("assumes claim {claim} (WaitForFirstConsumer) for node '{node}'")
                }
                ClaimPlan::RejectedEarlier(k, why) => {
                    format!("claim {k} is {why}: VolumeBinding PreFilter rejects this pod upstream")
                }
            });
        }
        state.write(STATE_KEY, p);
        Status::success()
    }

    fn unreserve(&self, _: &Ctx<'_>, state: &mut CycleState, _: &PodInfo, _: &str, notes: &mut Vec<String>) {
        let delayed: Vec<String> = state
            .read::<Vec<ClaimPlan>>(STATE_KEY)
            .into_iter()
            .flatten()
            .filter_map(|c| match c {
                ClaimPlan::Delayed { claim, .. } => Some(claim.to_string()),
                _ => None,
            })
            .collect();
        if !delayed.is_empty() {
            notes.push(format!("reverts the assumed claims {}", delayed.join(", ")));
        }
    }
}

impl PreBindPlugin for VolumeBindingCycle {
    /// Skip when every claim is bound (AllBound), or the pod has none.
    fn pre_bind_pre_flight(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo) -> bool {
        let p = match state.read::<Vec<ClaimPlan>>(STATE_KEY) {
            Some(p) => p.clone(),
            None => plan(&cx.snapshot.cluster, &pod.pod),
        };
        p.iter().any(|c| matches!(c, ClaimPlan::Delayed { .. }))
    }

    fn pre_bind(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        node: &str,
        notes: &mut Vec<String>,
    ) -> Status {
        let p = match state.read::<Vec<ClaimPlan>>(STATE_KEY) {
            Some(p) => p.clone(),
            None => plan(&cx.snapshot.cluster, &pod.pod),
        };
        let delayed: Vec<&ClaimPlan> = p.iter().filter(|c| matches!(c, ClaimPlan::Delayed { .. })).collect();
        if delayed.is_empty() {
            notes.push("all volumes bound: nothing to bind".into());
        }
        for c in delayed {
            if let ClaimPlan::Delayed {
                claim,
                class,
                provisioner,
            } = c
            {
                let prov = if provisioner.is_empty() {
                    String::new()
                } else {
                    format!(" by {provisioner}")
                };
                notes.push(format!(
                    "binds claim {claim} (StorageClass '{class}'): to the PersistentVolume Filter matched on '{node}', or, with none, sets volume.kubernetes.io/selected-node={node} for provisioning{prov}, then waits until the claim is bound"
                ));
            }
        }
        Status::success()
    }
}

/// Adds VolumeBinding's Reserve and PreBind to the slots its module registers.
pub(crate) fn extend(slots: &mut PluginSlots) {
    let pl = Arc::new(VolumeBindingCycle);
    slots.reserve = Some(pl.clone());
    slots.pre_bind = Some(pl);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::file::load_str;

    #[test]
    fn claims_are_planned_by_binding_state_and_mode() {
        let c = load_str(
            "t",
            r"
apiVersion: v1
kind: List
items:
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: wait}, provisioner: ebs.csi.aws.com, volumeBindingMode: WaitForFirstConsumer}
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: now}, provisioner: x}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: bound, namespace: ns}, spec: {volumeName: pv-1, storageClassName: wait}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: late, namespace: ns}, spec: {storageClassName: wait}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: imm, namespace: ns}, spec: {storageClassName: now}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: p-scratch, namespace: ns}, spec: {storageClassName: wait}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: ns}
  spec:
    containers: [{name: c}]
    volumes:
    - {name: a, persistentVolumeClaim: {claimName: bound}}
    - {name: b, persistentVolumeClaim: {claimName: late}}
    - {name: c, persistentVolumeClaim: {claimName: imm}}
    - {name: d, persistentVolumeClaim: {claimName: gone}}
    - {name: scratch, ephemeral: {volumeClaimTemplate: {spec: {}}}}
    - {name: e, emptyDir: {}}
",
        )
        .unwrap();
        let pod = c.pod(&ObjectKey::new("ns", "p")).unwrap();
        let k = |n: &str| ObjectKey::new("ns", n);
        assert_eq!(
            plan(&c, pod),
            vec![
                ClaimPlan::Bound(k("bound"), "pv-1".into()),
                ClaimPlan::Delayed {
                    claim: k("late"),
                    class: "wait".into(),
                    provisioner: "ebs.csi.aws.com".into()
                },
                ClaimPlan::RejectedEarlier(k("imm"), "unbound with Immediate binding"),
                ClaimPlan::RejectedEarlier(k("gone"), "not found"),
                ClaimPlan::Delayed {
                    claim: k("p-scratch"),
                    class: "wait".into(),
                    provisioner: "ebs.csi.aws.com".into()
                },
            ]
        );
    }
}
