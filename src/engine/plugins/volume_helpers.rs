//! Storage helpers the volume plugins share, ported from v1.30.6's
//! component-helpers/storage/volume (pv_helpers.go, helpers.go),
//! component-helpers/storage/ephemeral, pkg/volume/util (attach limits, local PV node names),
//! pkg/apis/core/v1/helper (access modes, topology selector terms) and the lister "not found"
//! messages of apimachinery's `errors.NewNotFound`.

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::storage::v1 as storage;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use crate::model::quantity::Quantity;
use crate::model::selector::{Labels, Op, Requirement};
use crate::model::{Cluster, ObjectKey, Pod};

/// `pv.kubernetes.io/bind-completed`: the PV controller finished binding the claim.
pub(crate) const ANN_BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
/// `volume.kubernetes.io/selected-node`: the node chosen for delayed provisioning.
pub(crate) const ANN_SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";
/// The deprecated storage class annotation, which wins over the spec field.
pub(crate) const ANN_BETA_STORAGE_CLASS: &str = "volume.beta.kubernetes.io/storage-class";
/// Provisioner of classes that cannot provision dynamically.
pub(crate) const NOT_SUPPORTED_PROVISIONER: &str = "kubernetes.io/no-provisioner";
/// CSINode annotation listing the in-tree plugins migrated to CSI on the node.
pub(crate) const ANN_MIGRATED_PLUGINS: &str = "storage.alpha.kubernetes.io/migrated-plugins";
/// `kubernetes.io/hostname`.
pub(crate) const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";
/// Prefix of node allocatable resources that count attachable volumes.
pub(crate) const ATTACHABLE_VOLUMES_PREFIX: &str = "attachable-volumes-";
/// Prefix of CSI attach limit keys (`CSIAttachLimitPrefix`).
pub(crate) const CSI_ATTACH_LIMIT_PREFIX: &str = "attachable-volumes-csi-";
/// `ResourceNameLengthLimit` of pkg/volume/util.
const RESOURCE_NAME_LENGTH_LIMIT: usize = 63;

/// The lister's error for a missing PVC.
pub(crate) fn pvc_not_found(name: &str) -> String {
    format!("persistentvolumeclaim \"{name}\" not found")
}

/// The lister's error for a missing PV.
pub(crate) fn pv_not_found(name: &str) -> String {
    format!("persistentvolume \"{name}\" not found")
}

/// The lister's error for a missing StorageClass.
pub(crate) fn storage_class_not_found(name: &str) -> String {
    format!("storageclass.storage.k8s.io \"{name}\" not found")
}

/// A PVC of the pod's namespace by name.
pub(crate) fn get_pvc<'a>(
    cluster: &'a Cluster,
    namespace: &str,
    name: &str,
) -> Option<&'a core::PersistentVolumeClaim> {
    cluster.pvcs.get(&ObjectKey::new(namespace, name))
}

fn annotations(
    m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
) -> Option<&std::collections::BTreeMap<String, String>> {
    m.annotations.as_ref()
}

/// True when the object has the annotation (any value).
pub(crate) fn has_annotation(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta, key: &str) -> bool {
    annotations(m).is_some_and(|a| a.contains_key(key))
}

/// An annotation's value.
pub(crate) fn annotation<'a>(
    m: &'a k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    key: &str,
) -> Option<&'a str> {
    annotations(m).and_then(|a| a.get(key)).map(String::as_str)
}

/// `GetPersistentVolumeClaimClass`: the beta annotation, else spec.storageClassName, else "".
pub(crate) fn claim_class(pvc: &core::PersistentVolumeClaim) -> String {
    if let Some(c) = annotation(&pvc.metadata, ANN_BETA_STORAGE_CLASS) {
        return c.to_string();
    }
    pvc.spec
        .as_ref()
        .and_then(|s| s.storage_class_name.clone())
        .unwrap_or_default()
}

/// `GetPersistentVolumeClass`: the beta annotation, else spec.storageClassName.
pub(crate) fn pv_class(pv: &core::PersistentVolume) -> String {
    if let Some(c) = annotation(&pv.metadata, ANN_BETA_STORAGE_CLASS) {
        return c.to_string();
    }
    pv.spec
        .as_ref()
        .and_then(|s| s.storage_class_name.clone())
        .unwrap_or_default()
}

/// spec.volumeName of a claim ("" when unset).
pub(crate) fn claim_volume_name(pvc: &core::PersistentVolumeClaim) -> &str {
    pvc.spec.as_ref().and_then(|s| s.volume_name.as_deref()).unwrap_or("")
}

/// The claim's name.
pub(crate) fn claim_name(pvc: &core::PersistentVolumeClaim) -> &str {
    pvc.metadata.name.as_deref().unwrap_or("")
}

/// The claim's namespace.
pub(crate) fn claim_namespace(pvc: &core::PersistentVolumeClaim) -> &str {
    pvc.metadata.namespace.as_deref().unwrap_or("")
}

/// `isPVCFullyBound`: a volume name and the bind-completed annotation.
pub(crate) fn is_pvc_fully_bound(pvc: &core::PersistentVolumeClaim) -> bool {
    !claim_volume_name(pvc).is_empty() && has_annotation(&pvc.metadata, ANN_BIND_COMPLETED)
}

/// The claim's access modes.
pub(crate) fn claim_access_modes(pvc: &core::PersistentVolumeClaim) -> &[String] {
    pvc.spec.as_ref().and_then(|s| s.access_modes.as_deref()).unwrap_or(&[])
}

/// `resources.requests.storage` of a claim, if set.
pub(crate) fn claim_storage_request(pvc: &core::PersistentVolumeClaim) -> Option<Quantity> {
    pvc.spec
        .as_ref()
        .and_then(|s| s.resources.as_ref())
        .and_then(|r| r.requests.as_ref())
        .and_then(|r| r.get("storage"))
        .map(|q| Quantity::parse(&q.0).unwrap_or_default())
}

/// `capacity.storage` of a PV (zero when unset).
pub(crate) fn pv_storage_capacity(pv: &core::PersistentVolume) -> Quantity {
    pv.spec
        .as_ref()
        .and_then(|s| s.capacity.as_ref())
        .and_then(|c| c.get("storage"))
        .map(|q| Quantity::parse(&q.0).unwrap_or_default())
        .unwrap_or_default()
}

/// `ephemeral.VolumeClaimName`: `<pod>-<volume>`.
pub(crate) fn ephemeral_claim_name(pod: &Pod, vol: &core::Volume) -> String {
    format!("{}-{}", pod.key.name, vol.name)
}

/// The claims of the pod's volumes as a volume plugin reads them, for the trace: the
/// PersistentVolumeClaim volumes' and, with `ephemeral`, the generic ephemeral volumes'
/// (`<pod>-<volume>`).
pub(crate) fn claims_fact(pod: &Pod, ephemeral: bool) -> crate::engine::framework::trace::Fact {
    let names: Vec<String> = pod
        .spec()
        .volumes
        .iter()
        .flatten()
        .filter_map(|v| match (&v.persistent_volume_claim, &v.ephemeral) {
            (Some(c), _) => Some(c.claim_name.clone()),
            (None, Some(_)) if ephemeral => Some(format!("{} (ephemeral)", ephemeral_claim_name(pod, v))),
            _ => None,
        })
        .collect();
    crate::engine::framework::trace::Fact::list("PersistentVolumeClaims", &names, "")
}

/// `ephemeral.VolumeIsForPod`: the claim is in the pod's namespace and controlled by the pod.
pub(crate) fn volume_is_for_pod(pod: &Pod, pvc: &core::PersistentVolumeClaim) -> Result<(), String> {
    let pod_uid = pod.obj.metadata.uid.as_deref().unwrap_or("");
    let controlled = pvc
        .metadata
        .owner_references
        .iter()
        .flatten()
        .find(|r: &&OwnerReference| r.controller == Some(true))
        .is_some_and(|r| r.uid == pod_uid);
    if claim_namespace(pvc) != pod.key.namespace || !controlled {
        return Err(format!(
            "PVC {}/{} was not created for pod {}/{} (pod is not owner)",
            claim_namespace(pvc),
            claim_name(pvc),
            pod.key.namespace,
            pod.key.name
        ));
    }
    Ok(())
}

/// Parses a node selector requirement as `labels.NewRequirement` does for node selectors
/// (operators, value counts, integer values for Gt/Lt); None when it is invalid.
fn node_requirement(e: &core::NodeSelectorRequirement) -> Option<Requirement> {
    let values = e.values.clone().unwrap_or_default();
    let op = match e.operator.as_str() {
        "In" => Op::In,
        "NotIn" => Op::NotIn,
        "Exists" => Op::Exists,
        "DoesNotExist" => Op::DoesNotExist,
        "Gt" => Op::Gt,
        "Lt" => Op::Lt,
        _ => return None,
    };
    let ok = match op {
        Op::In | Op::NotIn => !values.is_empty(),
        Op::Exists | Op::DoesNotExist => values.is_empty(),
        Op::Gt | Op::Lt => values.len() == 1 && values[0].parse::<i64>().is_ok(),
    };
    ok.then(|| Requirement {
        key: e.key.clone(),
        op,
        values,
    })
}

/// True when a field requirement parses (`nodeSelectorRequirementsAsFieldSelector`).
fn field_requirement_ok(e: &core::NodeSelectorRequirement) -> bool {
    matches!(e.operator.as_str(), "In" | "NotIn") && e.values.as_ref().is_some_and(|v| v.len() == 1)
}

/// `CheckNodeAffinity` of a PV against node labels. Upstream matches a node object that has
/// labels but no name, so `matchFields` never rejects (an empty field set is not checked);
/// empty terms are skipped and a term that does not parse never matches.
pub(crate) fn pv_node_affinity_matches(pv: &core::PersistentVolume, labels: &Labels) -> bool {
    let Some(req) = pv
        .spec
        .as_ref()
        .and_then(|s| s.node_affinity.as_ref())
        .and_then(|a| a.required.as_ref())
    else {
        return true;
    };
    node_selector_matches_labels(req, labels)
}

/// `LazyErrorNodeSelector.Match` for a node that has labels and no name.
pub(crate) fn node_selector_matches_labels(sel: &core::NodeSelector, labels: &Labels) -> bool {
    for term in &sel.node_selector_terms {
        let exprs = term.match_expressions.as_deref().unwrap_or(&[]);
        let fields = term.match_fields.as_deref().unwrap_or(&[]);
        if exprs.is_empty() && fields.is_empty() {
            continue;
        }
        let reqs: Option<Vec<Requirement>> = exprs.iter().map(node_requirement).collect();
        let Some(reqs) = reqs else { continue };
        if !fields.iter().all(field_requirement_ok) {
            continue;
        }
        if reqs.iter().all(|r| r.matches(labels)) {
            return true;
        }
    }
    false
}

/// `GetLocalPersistentVolumeNodeNames`: the hostnames a PV's required node affinity pins
/// (`kubernetes.io/hostname In`), intersected within a term and unioned across terms; a term
/// without such an expression adds nothing. Sorted.
pub(crate) fn local_pv_node_names(pv: &core::PersistentVolume) -> Vec<String> {
    let Some(req) = pv
        .spec
        .as_ref()
        .and_then(|s| s.node_affinity.as_ref())
        .and_then(|a| a.required.as_ref())
    else {
        return Vec::new();
    };
    let mut result = std::collections::BTreeSet::new();
    for term in &req.node_selector_terms {
        let mut nodes: Option<std::collections::BTreeSet<String>> = None;
        for e in term.match_expressions.iter().flatten() {
            if e.key == LABEL_HOSTNAME && e.operator == "In" {
                let vals: std::collections::BTreeSet<String> = e.values.iter().flatten().cloned().collect();
                nodes = Some(match nodes {
                    None => vals,
                    Some(prev) => prev.intersection(&vals).cloned().collect(),
                });
            }
        }
        result.extend(nodes.into_iter().flatten());
    }
    result.into_iter().collect()
}

/// `v1helper.MatchTopologySelectorTerms`: no terms match everything; otherwise some term must
/// have every label expression satisfied (the label's value among the expression's values).
pub(crate) fn match_topology_selector_terms(terms: Option<&[core::TopologySelectorTerm]>, labels: &Labels) -> bool {
    let terms = terms.unwrap_or(&[]);
    if terms.is_empty() {
        return true;
    }
    terms.iter().any(|t| {
        t.match_label_expressions
            .iter()
            .flatten()
            .all(|e| !e.values.is_empty() && labels.get(&e.key).is_some_and(|v| e.values.iter().any(|x| x == v)))
    })
}

/// `ContainsAccessMode`.
pub(crate) fn contains_access_mode(modes: &[String], mode: &str) -> bool {
    modes.iter().any(|m| m == mode)
}

/// `GetCSIAttachLimitKey`: `attachable-volumes-csi-<driver>`, shortened with a SHA-1 suffix
/// when the key would reach 63 characters.
pub(crate) fn csi_attach_limit_key(driver: &str) -> String {
    if CSI_ATTACH_LIMIT_PREFIX.len() + driver.len() >= RESOURCE_NAME_LENGTH_LIMIT {
        let head: String = driver.bytes().take(23).map(char::from).collect();
        let digest = sha1(driver.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        return format!("{CSI_ATTACH_LIMIT_PREFIX}{head}{}", &hex[..16]);
    }
    format!("{CSI_ATTACH_LIMIT_PREFIX}{driver}")
}

/// The in-tree plugins a CSINode says are migrated (`storage.alpha.kubernetes.io/migrated-plugins`).
pub(crate) fn migrated_plugins_on_node(csi_node: Option<&storage::CSINode>, plugin: &str) -> bool {
    let Some(n) = csi_node else { return false };
    let Some(v) = annotation(&n.metadata, ANN_MIGRATED_PLUGINS) else {
        return false;
    };
    !v.is_empty() && v.split(',').any(|t| t == plugin)
}

/// SHA-1 (FIPS 180-4), only for the attach-limit key of long driver names.
fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0];
    let mut msg = data.to_vec();
    let bit_len = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bit_len.to_be_bytes());
    for chunk in msg.chunks(64) {
        let mut w = [0u32; 80];
        for (i, word) in chunk.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        h[0] = h[0].wrapping_add(a);
        h[1] = h[1].wrapping_add(b);
        h[2] = h[2].wrapping_add(c);
        h[3] = h[3].wrapping_add(d);
        h[4] = h[4].wrapping_add(e);
    }
    let mut out = [0u8; 20];
    for (i, v) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&v.to_be_bytes());
    }
    out
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Builders for the volume plugins' tests (the spirit of upstream's st.MakePod / MakePV).
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use k8s_openapi::api::core::v1 as core;
    use k8s_openapi::api::storage::v1 as storage;
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity as KQ;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use crate::engine::framework::node_info::{NodeInfo, PodInfo};
    use crate::engine::framework::snapshot::Snapshot;
    use crate::engine::release::Release;
    use crate::model::{Cluster, Node, ObjectKey, Pod};

    /// Object metadata with a name (and namespace).
    pub(crate) fn meta(ns: &str, name: &str) -> ObjectMeta {
        ObjectMeta {
            name: Some(name.into()),
            namespace: (!ns.is_empty()).then(|| ns.to_string()),
            ..Default::default()
        }
    }

    /// A pod in `ns` with volumes.
    pub(crate) fn pod(ns: &str, name: &str, volumes: Vec<core::Volume>) -> Pod {
        let obj = core::Pod {
            metadata: ObjectMeta {
                uid: Some(format!("uid-{name}")),
                ..meta(ns, name)
            },
            spec: Some(core::PodSpec {
                volumes: Some(volumes),
                ..Default::default()
            }),
            ..Default::default()
        };
        Pod::from_obj(obj, |_| 0).expect("pod")
    }

    /// A pod bound to `node`.
    pub(crate) fn pod_on(ns: &str, name: &str, node: &str, volumes: Vec<core::Volume>) -> Pod {
        let mut p = pod(ns, name, volumes);
        p.node_name = Some(node.into());
        if let Some(s) = p.obj.spec.as_mut() {
            s.node_name = Some(node.to_string());
        }
        p
    }

    /// A volume using a claim.
    pub(crate) fn pvc_vol(vol: &str, claim: &str) -> core::Volume {
        core::Volume {
            name: vol.into(),
            persistent_volume_claim: Some(core::PersistentVolumeClaimVolumeSource {
                claim_name: claim.into(),
                read_only: None,
            }),
            ..Default::default()
        }
    }

    /// An ephemeral volume.
    pub(crate) fn ephemeral_vol(vol: &str) -> core::Volume {
        core::Volume {
            name: vol.into(),
            ephemeral: Some(core::EphemeralVolumeSource {
                volume_claim_template: None,
            }),
            ..Default::default()
        }
    }

    /// A node with labels.
    pub(crate) fn node(name: &str, labels: &[(&str, &str)]) -> Node {
        node_alloc(name, labels, &[])
    }

    /// A node with labels and allocatable resources.
    pub(crate) fn node_alloc(name: &str, labels: &[(&str, &str)], alloc: &[(&str, &str)]) -> Node {
        let obj = core::Node {
            metadata: ObjectMeta {
                name: Some(name.into()),
                labels: Some(
                    labels
                        .iter()
                        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                        .collect(),
                ),
                ..Default::default()
            },
            status: Some(core::NodeStatus {
                allocatable: Some(
                    alloc
                        .iter()
                        .map(|(k, v)| ((*k).to_string(), KQ((*v).to_string())))
                        .collect(),
                ),
                ..Default::default()
            }),
            ..Default::default()
        };
        Node::from_obj(obj).expect("node")
    }

    /// A claim.
    pub(crate) fn pvc(ns: &str, name: &str) -> core::PersistentVolumeClaim {
        core::PersistentVolumeClaim {
            metadata: meta(ns, name),
            spec: Some(core::PersistentVolumeClaimSpec::default()),
            ..Default::default()
        }
    }

    /// Sets a claim's storage class.
    pub(crate) fn with_class(mut c: core::PersistentVolumeClaim, class: &str) -> core::PersistentVolumeClaim {
        c.spec.get_or_insert_with(Default::default).storage_class_name = Some(class.into());
        c
    }

    /// Sets a claim's volume name and marks it bound (bind-completed).
    pub(crate) fn bound_to(mut c: core::PersistentVolumeClaim, pv: &str) -> core::PersistentVolumeClaim {
        c.spec.get_or_insert_with(Default::default).volume_name = Some(pv.into());
        c.metadata
            .annotations
            .get_or_insert_with(BTreeMap::new)
            .insert(super::ANN_BIND_COMPLETED.into(), "yes".into());
        c
    }

    /// Sets a claim's access modes.
    pub(crate) fn with_modes(mut c: core::PersistentVolumeClaim, modes: &[&str]) -> core::PersistentVolumeClaim {
        c.spec.get_or_insert_with(Default::default).access_modes =
            Some(modes.iter().map(|m| (*m).to_string()).collect());
        c
    }

    /// Sets a claim's storage request.
    pub(crate) fn with_request(mut c: core::PersistentVolumeClaim, q: &str) -> core::PersistentVolumeClaim {
        c.spec.get_or_insert_with(Default::default).resources = Some(core::VolumeResourceRequirements {
            requests: Some([("storage".to_string(), KQ(q.into()))].into()),
            limits: None,
        });
        c
    }

    /// A PV.
    pub(crate) fn pv(name: &str) -> core::PersistentVolume {
        core::PersistentVolume {
            metadata: meta("", name),
            spec: Some(core::PersistentVolumeSpec::default()),
            ..Default::default()
        }
    }

    /// A VolumeAttachment of `attacher` on `node`, of the PV `pv` when given.
    pub(crate) fn volume_attachment(
        name: &str,
        node: &str,
        attacher: &str,
        pv: Option<&str>,
    ) -> storage::VolumeAttachment {
        storage::VolumeAttachment {
            metadata: meta("", name),
            spec: storage::VolumeAttachmentSpec {
                attacher: attacher.into(),
                node_name: node.into(),
                source: storage::VolumeAttachmentSource {
                    persistent_volume_name: pv.map(Into::into),
                    inline_volume_spec: None,
                },
            },
            status: None,
        }
    }

    /// A storage class.
    pub(crate) fn class(name: &str, mode: &str, provisioner: &str) -> storage::StorageClass {
        storage::StorageClass {
            metadata: meta("", name),
            provisioner: provisioner.into(),
            volume_binding_mode: Some(mode.into()),
            ..Default::default()
        }
    }

    /// Objects of a test cluster.
    #[derive(Default)]
    pub(crate) struct World {
        /// Nodes.
        pub nodes: Vec<Node>,
        /// Pods.
        pub pods: Vec<Pod>,
        /// Claims.
        pub pvcs: Vec<core::PersistentVolumeClaim>,
        /// Volumes.
        pub pvs: Vec<core::PersistentVolume>,
        /// Classes.
        pub classes: Vec<storage::StorageClass>,
        /// CSINodes.
        pub csi_nodes: Vec<storage::CSINode>,
        /// CSIDrivers.
        pub csi_drivers: Vec<storage::CSIDriver>,
        /// CSIStorageCapacities.
        pub capacities: Vec<storage::CSIStorageCapacity>,
        /// VolumeAttachments.
        pub volume_attachments: Vec<storage::VolumeAttachment>,
    }

    impl World {
        /// Builds the snapshot (version 1.30).
        pub(crate) fn snapshot(self) -> Snapshot {
            let mut c = Cluster::default();
            let mut nodes: Vec<Arc<Node>> = self.nodes.into_iter().map(Arc::new).collect();
            nodes.sort_by(|a, b| a.name.cmp(&b.name));
            c.nodes = nodes;
            let mut pods: Vec<Arc<Pod>> = self.pods.into_iter().map(Arc::new).collect();
            pods.sort_by(|a, b| a.key.cmp(&b.key));
            c.pods = pods;
            for p in self.pvcs {
                let k = ObjectKey::new(
                    p.metadata.namespace.clone().unwrap_or_default(),
                    p.metadata.name.clone().unwrap_or_default(),
                );
                c.pvcs.insert(k, p);
            }
            for p in self.pvs {
                c.pvs.insert(p.metadata.name.clone().unwrap_or_default(), p);
            }
            for s in self.classes {
                c.storage_classes.insert(s.metadata.name.clone().unwrap_or_default(), s);
            }
            for n in self.csi_nodes {
                c.csi_nodes.insert(n.metadata.name.clone().unwrap_or_default(), n);
            }
            for d in self.csi_drivers {
                c.csi_drivers.insert(d.metadata.name.clone().unwrap_or_default(), d);
            }
            c.csi_storage_capacities = self.capacities;
            for a in self.volume_attachments {
                c.volume_attachments
                    .insert(a.metadata.name.clone().unwrap_or_default(), a);
            }
            Snapshot::new(Arc::new(c), Release::OLDEST)
        }
    }

    /// A PodInfo for a pod that is not in any snapshot.
    pub(crate) fn info(p: Pod) -> PodInfo {
        PodInfo::new(Arc::new(p), false)
    }

    /// The NodeInfo of `name`.
    pub(crate) fn node_info<'a>(s: &'a Snapshot, name: &str) -> &'a NodeInfo {
        s.node(name).expect("node in snapshot")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha1_known_vectors() {
        let hex = |d: [u8; 20]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(hex(sha1(b"abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(hex(sha1(b"")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(
            hex(sha1(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        );
    }

    #[test]
    fn attach_limit_keys() {
        // pkg/volume/util/attach_limit_test.go
        assert_eq!(
            csi_attach_limit_key("com.amazon.ebs"),
            "attachable-volumes-csi-com.amazon.ebs"
        );
        let long = "com.amazonaws.ebs.csi.driver-foobarbaz-1234567890";
        let key = csi_attach_limit_key(long);
        // sha1(long) = d9031d05a5a4cb27...
        assert_eq!(key, "attachable-volumes-csi-com.amazonaws.ebs.csi.dd9031d05a5a4cb27");
        assert_eq!(key.len(), 23 + 23 + 16);
    }

    fn term(
        exprs: Vec<core::NodeSelectorRequirement>,
        fields: Vec<core::NodeSelectorRequirement>,
    ) -> core::NodeSelectorTerm {
        core::NodeSelectorTerm {
            match_expressions: (!exprs.is_empty()).then_some(exprs),
            match_fields: (!fields.is_empty()).then_some(fields),
        }
    }

    fn req(key: &str, op: &str, values: &[&str]) -> core::NodeSelectorRequirement {
        core::NodeSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: Some(values.iter().map(|v| (*v).to_string()).collect()),
        }
    }

    fn pv_with(terms: Vec<core::NodeSelectorTerm>) -> core::PersistentVolume {
        core::PersistentVolume {
            spec: Some(core::PersistentVolumeSpec {
                node_affinity: Some(core::VolumeNodeAffinity {
                    required: Some(core::NodeSelector {
                        node_selector_terms: terms,
                    }),
                }),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn labels(v: &[(&str, &str)]) -> Labels {
        v.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect()
    }

    #[test]
    fn pv_node_affinity_semantics() {
        // component-helpers/storage/volume/helpers_test.go TestCheckNodeAffinity
        let l = labels(&[("test-key1", "test-value1"), ("test-key2", "test-value2")]);
        assert!(
            pv_node_affinity_matches(&core::PersistentVolume::default(), &l),
            "no affinity"
        );
        let ok = pv_with(vec![term(
            vec![req("test-key1", "In", &["test-value1", "test-value3"])],
            vec![],
        )]);
        assert!(pv_node_affinity_matches(&ok, &l));
        let bad = pv_with(vec![term(vec![req("test-key1", "In", &["test-value3"])], vec![])]);
        assert!(!pv_node_affinity_matches(&bad, &l));
        let two = pv_with(vec![
            term(vec![req("test-key3", "In", &["test-value1"])], vec![]),
            term(vec![req("test-key2", "In", &["test-value2"])], vec![]),
        ]);
        assert!(pv_node_affinity_matches(&two, &l), "terms are ORed");
        let dne = pv_with(vec![term(vec![req("test-key3", "DoesNotExist", &[])], vec![])]);
        assert!(pv_node_affinity_matches(&dne, &l));
        // Fields are not checked: the matched node has no name.
        let fields_only = pv_with(vec![term(vec![], vec![req("metadata.name", "In", &["other"])])]);
        assert!(pv_node_affinity_matches(&fields_only, &l));
        // An empty term is skipped, so nothing matches.
        assert!(!pv_node_affinity_matches(&pv_with(vec![term(vec![], vec![])]), &l));
        // A term that does not parse never matches, another term still can.
        let broken = pv_with(vec![
            term(vec![req("test-key1", "In", &[])], vec![]),
            term(vec![req("test-key1", "Exists", &[])], vec![]),
        ]);
        assert!(pv_node_affinity_matches(&broken, &l));
    }

    #[test]
    fn local_pv_node_names_cases() {
        // pkg/volume/util/util_test.go TestGetLocalPersistentVolumeNodeNames
        assert!(local_pv_node_names(&core::PersistentVolume::default()).is_empty());
        let one = pv_with(vec![term(vec![req(LABEL_HOSTNAME, "In", &["node1"])], vec![])]);
        assert_eq!(local_pv_node_names(&one), vec!["node1"]);
        let other_key = pv_with(vec![term(vec![req("foo", "In", &["node1"])], vec![])]);
        assert!(local_pv_node_names(&other_key).is_empty());
        let intersect = pv_with(vec![term(
            vec![
                req(LABEL_HOSTNAME, "In", &["node1", "node2"]),
                req(LABEL_HOSTNAME, "In", &["node2", "node3"]),
            ],
            vec![],
        )]);
        assert_eq!(local_pv_node_names(&intersect), vec!["node2"]);
        let union = pv_with(vec![
            term(vec![req(LABEL_HOSTNAME, "In", &["node1"])], vec![]),
            term(vec![req(LABEL_HOSTNAME, "In", &["node2"])], vec![]),
            term(vec![req("foo", "In", &["bar"])], vec![]),
        ]);
        assert_eq!(local_pv_node_names(&union), vec!["node1", "node2"]);
        let not_in = pv_with(vec![term(vec![req(LABEL_HOSTNAME, "NotIn", &["node1"])], vec![])]);
        assert!(local_pv_node_names(&not_in).is_empty());
    }

    #[test]
    fn topology_selector_terms() {
        let l = labels(&[("zone", "a")]);
        assert!(match_topology_selector_terms(None, &l));
        let t = |k: &str, v: &[&str]| core::TopologySelectorTerm {
            match_label_expressions: Some(vec![core::TopologySelectorLabelRequirement {
                key: k.into(),
                values: v.iter().map(|x| (*x).to_string()).collect(),
            }]),
        };
        assert!(match_topology_selector_terms(
            Some(&[t("zone", &["b"]), t("zone", &["a", "c"])]),
            &l
        ));
        assert!(!match_topology_selector_terms(Some(&[t("zone", &["b"])]), &l));
        assert!(!match_topology_selector_terms(Some(&[t("region", &["a"])]), &l));
    }
}
