//! What a workload's pods bring: ResourceClaims from templates, PersistentVolumeClaims given
//! their default class and bound as the PV controller would bind an Immediate claim.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::resource::v1 as dra;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

use super::naming::{derived_suffix, derived_uid};
use crate::model::Cluster;

/// The ResourceClaims the resourceclaim controller creates for a pod's
/// `resourceClaimTemplateName` entries, and the pod's `status.resourceClaimStatuses` naming
/// them; an error names a template that does not exist.
pub fn claims_from_templates(
    pod: &mut core::Pod,
    templates: &BTreeMap<crate::model::ObjectKey, dra::ResourceClaimTemplate>,
    taken: &dyn Fn(&str) -> bool,
) -> Result<Vec<dra::ResourceClaim>, String> {
    let ns = pod.metadata.namespace.clone().unwrap_or_default();
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    let uid = pod.metadata.uid.clone().unwrap_or_default();
    let mut out = Vec::new();
    let mut statuses = Vec::new();
    for pc in pod.spec.iter().flat_map(|s| s.resource_claims.iter().flatten()) {
        let Some(tname) = &pc.resource_claim_template_name else {
            continue;
        };
        let Some(t) = templates.get(&crate::model::ObjectKey::new(ns.as_str(), tname.as_str())) else {
            return Err(format!(
                "resource claim template \"{tname}\" of pod {ns}/{pod_name} (claim {}) does not exist",
                pc.name
            ));
        };
        let mut base = format!("{pod_name}-{}-", pc.name);
        let max_base = 57;
        if base.len() > max_base {
            let total = base.len();
            base = format!(
                "{}-{}",
                &pod_name[..pod_name.len() * max_base / total],
                &pc.name[..pc.name.len() * max_base / total]
            );
        }
        let mut attempt = 0usize;
        let name = loop {
            let n = format!("{base}{}", derived_suffix(&format!("{base}/{attempt}")));
            if !taken(&n)
                && !out
                    .iter()
                    .any(|c: &dra::ResourceClaim| c.metadata.name.as_deref() == Some(&n))
            {
                break n;
            }
            attempt += 1;
        };
        let tspec = t.spec.clone().unwrap_or_default();
        let tmeta = tspec.metadata.clone().unwrap_or_default();
        let mut annotations = tmeta.annotations.unwrap_or_default();
        annotations.insert("resource.kubernetes.io/pod-claim-name".into(), pc.name.clone());
        out.push(dra::ResourceClaim {
            metadata: ObjectMeta {
                name: Some(name.clone()),
                namespace: Some(ns.clone()),
                uid: Some(derived_uid("ResourceClaim", &ns, &name)),
                labels: tmeta.labels,
                annotations: Some(annotations),
                owner_references: Some(vec![OwnerReference {
                    api_version: "v1".into(),
                    kind: "Pod".into(),
                    name: pod_name.clone(),
                    uid: uid.clone(),
                    controller: Some(true),
                    block_owner_deletion: Some(true),
                }]),
                ..Default::default()
            },
            spec: tspec.spec,
            status: None,
        });
        statuses.push(core::PodResourceClaimStatus {
            name: pc.name.clone(),
            resource_claim_name: Some(name),
        });
    }
    if !statuses.is_empty() {
        pod.status.get_or_insert_with(Default::default).resource_claim_statuses = Some(statuses);
    }
    Ok(out)
}

/// What became of a StatefulSet's claim when it was created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimBinding {
    /// Its class binds WaitForFirstConsumer: VolumeBinding binds or provisions it where the
    /// pod lands.
    WaitForFirstConsumer(String),
    /// Immediate: bound at once to an existing PersistentVolume (the smallest that matches).
    BoundTo(String),
    /// Immediate: provisioned at once (the volume made here, named `pvc-<uid>`); true when
    /// the class has allowedTopologies (given to the volume as its node affinity).
    Provisioned(String, bool),
    /// Immediate, and no volume matches and the class provisions none: it stays unbound.
    Unbound(String),
    /// Already exists (a StatefulSet's claims outlive its pods).
    Existing,
}

/// The DefaultStorageClass admission plugin: a claim without `storageClassName` gets the
/// default class (annotated `storageclass.kubernetes.io/is-default-class: "true"`, the newest
/// if several).
pub fn default_storage_class(claim: &mut core::PersistentVolumeClaim, cluster: &Cluster) {
    let spec = claim.spec.get_or_insert_with(Default::default);
    if spec.storage_class_name.is_some() {
        return;
    }
    let default = cluster
        .storage_classes
        .values()
        .filter(|c| {
            c.metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get("storageclass.kubernetes.io/is-default-class"))
                .is_some_and(|v| v == "true")
        })
        .max_by(|a, b| {
            a.metadata
                .creation_timestamp
                .as_ref()
                .map(|t| t.0)
                .cmp(&b.metadata.creation_timestamp.as_ref().map(|t| t.0))
                .then_with(|| b.metadata.name.cmp(&a.metadata.name))
        });
    if let Some(c) = default {
        spec.storage_class_name = c.metadata.name.clone();
    }
}

/// What the PersistentVolume controller does with a new claim of an Immediate class before
/// any pod uses it: binds the smallest Available volume that matches (class, capacity,
/// access modes, volume mode), else provisions one (kschedtui gives the new volume the
/// class's `allowedTopologies` as its node affinity, every allowed zone, where a real
/// provisioner picks one of them), else leaves it unbound. A WaitForFirstConsumer class is
/// left to VolumeBinding. Returns the new volume, if one is made or bound.
pub fn bind_immediate(
    claim: &mut core::PersistentVolumeClaim,
    cluster: &Cluster,
    taken_volumes: &BTreeSet<String>,
) -> (ClaimBinding, Option<core::PersistentVolume>) {
    let cname = claim.metadata.name.clone().unwrap_or_default();
    let ns = claim.metadata.namespace.clone().unwrap_or_default();
    let spec = claim.spec.clone().unwrap_or_default();
    let class_name = spec.storage_class_name.clone().unwrap_or_default();
    let class = cluster.storage_classes.get(&class_name);
    if class.and_then(|c| c.volume_binding_mode.as_deref()) == Some("WaitForFirstConsumer") {
        return (ClaimBinding::WaitForFirstConsumer(class_name), None);
    }
    let request = spec
        .resources
        .as_ref()
        .and_then(|r| r.requests.as_ref())
        .and_then(|r| r.get("storage"))
        .and_then(|q| crate::model::quantity::Quantity::parse(&q.0).ok())
        .unwrap_or_default();
    let modes: BTreeSet<&String> = spec.access_modes.iter().flatten().collect();
    let mode = spec.volume_mode.clone().unwrap_or_else(|| "Filesystem".into());
    let claim_ref = core::ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("PersistentVolumeClaim".into()),
        name: Some(cname.clone()),
        namespace: Some(ns.clone()),
        uid: claim.metadata.uid.clone(),
        ..Default::default()
    };
    let capacity = |pv: &core::PersistentVolume| {
        pv.spec
            .as_ref()
            .and_then(|s| s.capacity.as_ref())
            .and_then(|c| c.get("storage"))
            .and_then(|q| crate::model::quantity::Quantity::parse(&q.0).ok())
            .unwrap_or_default()
    };
    let matching = cluster
        .pvs
        .values()
        .filter(|pv| {
            let s = pv.spec.clone().unwrap_or_default();
            let name = pv.metadata.name.clone().unwrap_or_default();
            s.claim_ref.is_none()
                && !taken_volumes.contains(&name)
                && s.storage_class_name.clone().unwrap_or_default() == class_name
                && capacity(pv) >= request
                && modes.iter().all(|m| s.access_modes.iter().flatten().any(|x| x == *m))
                && s.volume_mode.clone().unwrap_or_else(|| "Filesystem".into()) == mode
        })
        .min_by(|a, b| {
            capacity(a)
                .cmp(&capacity(b))
                .then_with(|| a.metadata.name.cmp(&b.metadata.name))
        });
    let bind = |claim: &mut core::PersistentVolumeClaim, pv: &mut core::PersistentVolume| {
        let pvname = pv.metadata.name.clone().unwrap_or_default();
        pv.spec.get_or_insert_with(Default::default).claim_ref = Some(claim_ref.clone());
        pv.status = Some(core::PersistentVolumeStatus {
            phase: Some("Bound".into()),
            ..Default::default()
        });
        claim.spec.get_or_insert_with(Default::default).volume_name = Some(pvname);
        claim
            .metadata
            .annotations
            .get_or_insert_with(Default::default)
            .insert(crate::model::write::ANN_BIND_COMPLETED.into(), "yes".into());
        claim.status = Some(core::PersistentVolumeClaimStatus {
            phase: Some("Bound".into()),
            access_modes: spec.access_modes.clone(),
            capacity: pv.spec.as_ref().and_then(|s| s.capacity.clone()),
            ..Default::default()
        });
    };
    if let Some(pv) = matching {
        let mut pv = pv.clone();
        bind(claim, &mut pv);
        let name = pv.metadata.name.clone().unwrap_or_default();
        return (ClaimBinding::BoundTo(name), Some(pv));
    }
    let provisioner = class.map(|c| c.provisioner.clone()).unwrap_or_default();
    if class.is_none() || provisioner.is_empty() || provisioner == "kubernetes.io/no-provisioner" {
        return (ClaimBinding::Unbound(class_name), None);
    }
    let pvname = format!("pvc-{}", claim.metadata.uid.clone().unwrap_or_default());
    let affinity = class
        .and_then(|c| c.allowed_topologies.as_ref())
        .map(|terms| core::VolumeNodeAffinity {
            required: Some(core::NodeSelector {
                node_selector_terms: terms
                    .iter()
                    .map(|t| core::NodeSelectorTerm {
                        match_expressions: Some(
                            t.match_label_expressions
                                .iter()
                                .flatten()
                                .map(|e| core::NodeSelectorRequirement {
                                    key: e.key.clone(),
                                    operator: "In".into(),
                                    values: Some(e.values.clone()),
                                })
                                .collect(),
                        ),
                        match_fields: None,
                    })
                    .collect(),
            }),
        });
    let mut pv = core::PersistentVolume {
        metadata: ObjectMeta {
            name: Some(pvname.clone()),
            annotations: Some([("pv.kubernetes.io/provisioned-by".to_string(), provisioner.clone())].into()),
            ..Default::default()
        },
        spec: Some(core::PersistentVolumeSpec {
            access_modes: spec.access_modes.clone(),
            capacity: spec.resources.as_ref().and_then(|r| r.requests.clone()),
            storage_class_name: Some(class_name.clone()),
            persistent_volume_reclaim_policy: class
                .and_then(|c| c.reclaim_policy.clone())
                .or_else(|| Some("Delete".into())),
            volume_mode: Some(mode),
            node_affinity: affinity,
            csi: Some(core::CSIPersistentVolumeSource {
                driver: provisioner,
                volume_handle: pvname.clone(),
                ..Default::default()
            }),
            ..Default::default()
        }),
        status: None,
    };
    bind(claim, &mut pv);
    let topology = class.is_some_and(|c| c.allowed_topologies.as_ref().is_some_and(|t| !t.is_empty()));
    (ClaimBinding::Provisioned(pvname, topology), Some(pv))
}
