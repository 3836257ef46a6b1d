//! VolumeBinding at Reserve, Unreserve, PreBindPreFlight and PreBind (volume_binding.go;
//! binder.go `AssumePodVolumes`, `BindPodVolumes`, `bindAPIUpdate`, `checkBindings`):
//!
//! - Reserve assumes the volumes Filter found for the node: a pod whose claims are all bound
//!   (or that has none) is `allBound`; otherwise each static binding's PersistentVolume gets
//!   `spec.claimRef` (and `pv.kubernetes.io/bound-by-controller`), each claim to provision the
//!   `volume.kubernetes.io/selected-node` annotation, in memory.
//! - PreBindPreFlight (1.34+): Skip when `allBound`.
//! - PreBind sends what Reserve assumed: a PUT of every PersistentVolume (static bindings, in
//!   Filter's order: by the claims' requested size), then a PUT of every claim to provision,
//!   then waits, reading the claims every second for at most `bindTimeoutSeconds`, until each
//!   is bound (`spec.volumeName` set and `pv.kubernetes.io/bind-completed` there). kschedtui
//!   records these requests in the trace; they are sent only when a user binds the pod.
//! - Unreserve reverts the assumed objects (in memory: nothing was written).

use super::binder::PodVolumes;
use super::{STATE_KEY, StateData, VolumeBinding};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::PodInfo;
use crate::engine::framework::plugin::{Ctx, PreBindOut, PreBindPlugin, ReservePlugin};
use crate::engine::framework::status::Status;
use crate::engine::plugins::names;
use crate::engine::plugins::volume_helpers::claim_class;
use crate::model::ObjectKey;
use crate::model::write::{AwaitVolumes, AwaitedClaim, Edit, Target, Update, WriteRequest};

static RESERVED_KEY: &str = "VolumeBinding/reserved";

/// What Reserve assumed for the node (`podVolumesByNode[node]` after `AssumePodVolumes`).
#[derive(Clone, Debug)]
struct Reserved {
    /// Every claim is bound, or the pod has none: nothing to write.
    all_bound: bool,
    /// The volumes to bind and the claims to provision.
    volumes: PodVolumes,
}

fn key_of(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> ObjectKey {
    ObjectKey::new(
        m.namespace.clone().unwrap_or_default(),
        m.name.clone().unwrap_or_default(),
    )
}

impl ReservePlugin for VolumeBinding {
    fn reserve(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        node: &str,
        notes: &mut Vec<String>,
    ) -> Status {
        let claims = match state.read::<StateData>(STATE_KEY) {
            Some(s) if !s.no_claims && !s.claims.unbound_delay_binding.is_empty() => s.claims.clone(),
            Some(s) => {
                notes.push(if s.no_claims {
                    "no PersistentVolumeClaims: all volumes bound, nothing to assume".to_string()
                } else {
                    "every claim is bound: nothing to assume".to_string()
                });
                state.write(
                    RESERVED_KEY,
                    Reserved {
                        all_bound: true,
                        volumes: PodVolumes::default(),
                    },
                );
                return Status::success();
            }
            None => {
                // PreFilter did not run VolumeBinding's state (not in the profile's PreFilter):
                // upstream finds no volumes for the node and takes the pod as all bound
                state.write(
                    RESERVED_KEY,
                    Reserved {
                        all_bound: true,
                        volumes: PodVolumes::default(),
                    },
                );
                return Status::success();
            }
        };
        let Some(info) = cx.snapshot.node(node) else {
            return Status::error(format!("node {node:?} not found"));
        };
        let found = match self.find(cx, &claims, pod, info) {
            Ok(f) => f,
            Err(e) => return Status::error(e),
        };
        for b in &found.volumes.static_bindings {
            notes.push(format!(
                "assumes PersistentVolume {} bound to claim {} (spec.claimRef) for node '{node}'",
                b.pv.metadata.name.as_deref().unwrap_or_default(),
                key_of(&b.pvc.metadata)
            ));
        }
        for p in &found.volumes.dynamic_provisions {
            notes.push(format!(
                "assumes claim {} annotated volume.kubernetes.io/selected-node={node} (WaitForFirstConsumer)",
                key_of(&p.pvc.metadata)
            ));
        }
        state.write(
            RESERVED_KEY,
            Reserved {
                all_bound: false,
                volumes: found.volumes,
            },
        );
        Status::success()
    }

    fn unreserve(&self, _: &Ctx<'_>, state: &mut CycleState, _: &PodInfo, _: &str, notes: &mut Vec<String>) {
        let Some(r) = state.read::<Reserved>(RESERVED_KEY) else {
            return;
        };
        let mut names: Vec<String> = r
            .volumes
            .static_bindings
            .iter()
            .map(|b| format!("PersistentVolume {}", b.pv.metadata.name.as_deref().unwrap_or_default()))
            .collect();
        names.extend(
            r.volumes
                .dynamic_provisions
                .iter()
                .map(|p| format!("claim {}", key_of(&p.pvc.metadata))),
        );
        if !names.is_empty() {
            notes.push(format!("reverts the assumed {}", names.join(", ")));
        }
    }
}

impl PreBindPlugin for VolumeBinding {
    /// Skip when every claim is bound (`allBound`), or the pod has none.
    fn pre_bind_pre_flight(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo) -> bool {
        state.read::<Reserved>(RESERVED_KEY).is_some_and(|r| !r.all_bound)
    }

    fn pre_bind(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        node: &str,
        out: &mut PreBindOut,
    ) -> Status {
        let Some(r) = state.read::<Reserved>(RESERVED_KEY) else {
            return Status::error(if self.gates.node_affinity_reason_renamed {
                format!("no pod volume found for node {node:?}")
            } else {
                format!("no pod volumes found for node {node:?}")
            });
        };
        if r.all_bound {
            out.notes.push("all volumes bound: nothing to bind".into());
            return Status::success();
        }
        let pod_key = pod.pod.key.clone();
        let mut awaited = Vec::new();
        for b in &r.volumes.static_bindings {
            let claim = key_of(&b.pvc.metadata);
            let pv = b.pv.metadata.name.clone().unwrap_or_default();
            out.writes.push(WriteRequest::Update(Box::new(Update {
                plugin: names::VOLUME_BINDING,
                pod: pod_key.clone(),
                target: Target::PersistentVolume,
                key: ObjectKey::new("", pv.as_str()),
                status: false,
                edit: Edit::ClaimRef {
                    claim: claim.clone(),
                    uid: b.pvc.metadata.uid.clone().unwrap_or_default(),
                    resource_version: b.pvc.metadata.resource_version.clone().unwrap_or_default(),
                },
            })));
            awaited.push(AwaitedClaim {
                claim,
                volume: Some(pv),
                provisioner: String::new(),
            });
        }
        for p in &r.volumes.dynamic_provisions {
            let claim = key_of(&p.pvc.metadata);
            let provisioner = cx
                .snapshot
                .cluster
                .storage_classes
                .get(&claim_class(&p.pvc))
                .map(|c| c.provisioner.clone())
                .unwrap_or_default();
            out.writes.push(WriteRequest::Update(Box::new(Update {
                plugin: names::VOLUME_BINDING,
                pod: pod_key.clone(),
                target: Target::PersistentVolumeClaim,
                key: claim.clone(),
                status: false,
                edit: Edit::SelectedNode { node: node.to_string() },
            })));
            awaited.push(AwaitedClaim {
                claim,
                volume: None,
                provisioner,
            });
        }
        for c in &awaited {
            out.notes.push(match (&c.volume, c.provisioner.as_str()) {
                (Some(v), _) => format!(
                    "binds PersistentVolume {v} to claim {} (PUT of the volume with spec.claimRef), then waits until the PersistentVolume controller has bound the claim",
                    c.claim
                ),
                (None, prov) => format!(
                    "sets volume.kubernetes.io/selected-node={node} on claim {} (PUT of the claim) for provisioning{}, then waits until the claim is bound",
                    c.claim,
                    if prov.is_empty() { String::new() } else { format!(" by {prov}") }
                ),
            });
        }
        out.writes.push(WriteRequest::AwaitVolumes(Box::new(AwaitVolumes {
            pod: pod_key,
            node: node.to_string(),
            claims: awaited,
            timeout_secs: self.bind_timeout_secs,
        })));
        Status::success()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::engine::framework::runner::explain;
    use crate::engine::framework::snapshot::Snapshot;
    use crate::engine::framework::trace::BindingOutcome;
    use crate::engine::{Release, build_profiles};
    use crate::model::ObjectKey;
    use crate::source::file::load_str;

    const CLUSTER: &str = r"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: wait}, provisioner: ebs.csi.aws.com, volumeBindingMode: WaitForFirstConsumer}
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: local}, provisioner: kubernetes.io/no-provisioner, volumeBindingMode: WaitForFirstConsumer}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-small, resourceVersion: '5'}
  spec: {capacity: {storage: 5Gi}, accessModes: [ReadWriteOnce], storageClassName: local}
  status: {phase: Available}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-big}
  spec: {capacity: {storage: 50Gi}, accessModes: [ReadWriteOnce], storageClassName: local}
  status: {phase: Available}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: logs, namespace: ns, uid: u-logs, resourceVersion: '12'}
  spec: {storageClassName: local, accessModes: [ReadWriteOnce], resources: {requests: {storage: 4Gi}}}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data, namespace: ns, uid: u-data}
  spec: {storageClassName: wait, accessModes: [ReadWriteOnce], resources: {requests: {storage: 20Gi}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: db, namespace: ns, uid: u-db}
  spec:
    containers: [{name: c, image: i}]
    volumes:
    - {name: a, persistentVolumeClaim: {claimName: data}}
    - {name: b, persistentVolumeClaim: {claimName: logs}}
";

    fn writes_at(text: &str, minor: u32) -> (bool, Vec<String>) {
        let v = Release::at(minor);
        let snap = Snapshot::new(Arc::new(load_str("t", text).unwrap()), v);
        let ex = explain(&snap, &build_profiles(None, v).unwrap(), &ObjectKey::new("ns", "db")).unwrap();
        let b = ex.binding_cycle.expect("a binding cycle");
        assert_eq!(b.outcome, BindingOutcome::Bound);
        (b.nominates, b.writes.iter().map(|w| w.describe(false)).collect())
    }

    #[test]
    fn pre_bind_puts_the_volumes_then_the_claims_then_waits() {
        // volume_binding.go PreBind → bindAPIUpdate: every PV of a static binding (the smallest
        // matching one), then every claim to provision, then checkBindings every second
        let (nominates, writes) = writes_at(CLUSTER, 36);
        assert!(nominates, "NominatedNodeNameForExpectation: a PreBind plugin has work");
        assert_eq!(
            writes,
            vec![
                r#"PUT /api/v1/persistentvolumes/pv-small {"metadata":{"annotations":{"pv.kubernetes.io/bound-by-controller":"yes"}},"spec":{"claimRef":{"kind":"PersistentVolumeClaim","namespace":"ns","name":"logs","uid":"u-logs","apiVersion":"v1","resourceVersion":"12"}}} (the object as read when sent, with these fields changed)"#,
                r#"PUT /api/v1/namespaces/ns/persistentvolumeclaims/data {"metadata":{"annotations":{"volume.kubernetes.io/selected-node":"n1"}}} (the object as read when sent, with these fields changed)"#,
                "GET every second, for at most 600 s, until bound (spec.volumeName set, annotation pv.kubernetes.io/bind-completed): /api/v1/namespaces/ns/persistentvolumeclaims/logs (the PersistentVolume controller binds it to pv-small), /api/v1/namespaces/ns/persistentvolumeclaims/data (provisioner ebs.csi.aws.com creates its volume)",
            ]
        );
        // 1.34 writes the same, without the nomination first (the gate is alpha there)
        let (nominates, writes34) = writes_at(CLUSTER, 34);
        assert!(!nominates);
        assert_eq!(writes34, writes);
    }

    #[test]
    fn bound_claims_and_bind_timeout_seconds() {
        // every claim bound: PreBindPreFlight skips, nothing is written, no nomination
        let bound = CLUSTER
            .replace(
                "metadata: {name: logs, namespace: ns, uid: u-logs, resourceVersion: '12'}",
                "metadata: {name: logs, namespace: ns, annotations: {pv.kubernetes.io/bind-completed: 'yes'}}",
            )
            .replace(
                "spec: {storageClassName: local, accessModes: [ReadWriteOnce], resources: {requests: {storage: 4Gi}}}",
                "spec: {volumeName: pv-small, storageClassName: local, accessModes: [ReadWriteOnce], resources: {requests: {storage: 4Gi}}}",
            )
            .replace("- {name: a, persistentVolumeClaim: {claimName: data}}\n", "");
        let (nominates, writes) = writes_at(&bound, 36);
        assert_eq!((nominates, writes), (false, Vec::<String>::new()));
    }
}
