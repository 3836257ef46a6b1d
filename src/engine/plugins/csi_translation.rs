//! The parts of k8s.io/csi-translation-lib (v1.30.6: translate.go, plugins/*.go) the volume
//! plugins use: which in-tree volume sources migrate to which CSI driver, the migration
//! switches (`isCSIMigrationOn` of nodevolumelimits/utils.go, `isCSIMigrationOnForPlugin` of
//! volumebinding/binder.go), and the PV / inline volume translation (driver, volume handle and
//! topology keys) for the plugins whose migration can be on.

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::storage::v1 as storage;

use super::volume_helpers::migrated_plugins_on_node;
use crate::engine::release::{Change, Features, Gate};

/// `topology.kubernetes.io/zone`.
pub(crate) const LABEL_TOPOLOGY_ZONE: &str = "topology.kubernetes.io/zone";
/// `topology.kubernetes.io/region`.
pub(crate) const LABEL_TOPOLOGY_REGION: &str = "topology.kubernetes.io/region";
/// `failure-domain.beta.kubernetes.io/zone`.
pub(crate) const LABEL_BETA_ZONE: &str = "failure-domain.beta.kubernetes.io/zone";
/// `failure-domain.beta.kubernetes.io/region`.
pub(crate) const LABEL_BETA_REGION: &str = "failure-domain.beta.kubernetes.io/region";
/// Separator of several zones in one label value.
pub(crate) const LABEL_MULTI_ZONE_DELIMITER: &str = "__";
const UNSPECIFIED: &str = "UNSPECIFIED";

/// An in-tree volume plugin known to the translation library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InTree {
    /// kubernetes.io/gce-pd
    GcePd,
    /// kubernetes.io/aws-ebs
    AwsEbs,
    /// kubernetes.io/cinder
    Cinder,
    /// kubernetes.io/azure-disk
    AzureDisk,
    /// kubernetes.io/azure-file
    AzureFile,
    /// kubernetes.io/vsphere-volume
    VSphere,
    /// kubernetes.io/portworx-volume
    Portworx,
    /// kubernetes.io/rbd
    Rbd,
}

const ALL: [InTree; 8] = [
    InTree::GcePd,
    InTree::AwsEbs,
    InTree::Cinder,
    InTree::AzureDisk,
    InTree::AzureFile,
    InTree::VSphere,
    InTree::Portworx,
    InTree::Rbd,
];

impl InTree {
    /// The in-tree plugin name.
    pub(crate) fn in_tree_name(self) -> &'static str {
        match self {
            InTree::GcePd => "kubernetes.io/gce-pd",
            InTree::AwsEbs => "kubernetes.io/aws-ebs",
            InTree::Cinder => "kubernetes.io/cinder",
            InTree::AzureDisk => "kubernetes.io/azure-disk",
            InTree::AzureFile => "kubernetes.io/azure-file",
            InTree::VSphere => "kubernetes.io/vsphere-volume",
            InTree::Portworx => "kubernetes.io/portworx-volume",
            InTree::Rbd => "kubernetes.io/rbd",
        }
    }

    /// The CSI driver it migrates to.
    pub(crate) fn csi_driver(self) -> &'static str {
        match self {
            InTree::GcePd => "pd.csi.storage.gke.io",
            InTree::AwsEbs => "ebs.csi.aws.com",
            InTree::Cinder => "cinder.csi.openstack.org",
            InTree::AzureDisk => "disk.csi.azure.com",
            InTree::AzureFile => "file.csi.azure.com",
            InTree::VSphere => "csi.vsphere.vmware.com",
            InTree::Portworx => "pxd.portworx.com",
            InTree::Rbd => "rbd.csi.ceph.com",
        }
    }

    fn supports_pv(self, s: &core::PersistentVolumeSpec) -> bool {
        match self {
            InTree::GcePd => s.gce_persistent_disk.is_some(),
            InTree::AwsEbs => s.aws_elastic_block_store.is_some(),
            InTree::Cinder => s.cinder.is_some(),
            InTree::AzureDisk => s.azure_disk.is_some(),
            InTree::AzureFile => s.azure_file.is_some(),
            InTree::VSphere => s.vsphere_volume.is_some(),
            InTree::Portworx => s.portworx_volume.is_some(),
            InTree::Rbd => s.rbd.is_some(),
        }
    }

    fn supports_inline(self, v: &core::Volume) -> bool {
        match self {
            InTree::GcePd => v.gce_persistent_disk.is_some(),
            InTree::AwsEbs => v.aws_elastic_block_store.is_some(),
            InTree::Cinder => v.cinder.is_some(),
            InTree::AzureDisk => v.azure_disk.is_some(),
            InTree::AzureFile => v.azure_file.is_some(),
            InTree::VSphere => v.vsphere_volume.is_some(),
            InTree::Portworx => v.portworx_volume.is_some(),
            InTree::Rbd => v.rbd.is_some(),
        }
    }

    /// The plugin's migration feature gate (true for the always-migrated ones).
    pub(crate) fn migration_gate(self, m: Migration) -> bool {
        match self {
            InTree::AwsEbs | InTree::GcePd | InTree::AzureDisk | InTree::Cinder => true,
            // CSIMigrationPortworx: beta, off in 1.30; on by default from 1.31.
            InTree::Portworx => m.portworx,
            // CSIMigrationRBD: off (deprecated in 1.28, removed in 1.31).
            InTree::Rbd => false,
            InTree::AzureFile | InTree::VSphere => false,
        }
    }
}

/// The CSI migration gates a release has on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Migration {
    /// CSIMigrationPortworx (gone in 1.36, where Portworx is always migrated).
    pub portworx: bool,
    /// NodeVolumeLimits counts Portworx volumes as migrated without the CSINode annotation
    /// ([`Change::PortworxAlwaysMigrated`]).
    pub portworx_always: bool,
}

impl Migration {
    /// The gates of these features.
    pub(crate) fn of(features: &Features) -> Migration {
        let always = features.has(Change::PortworxAlwaysMigrated);
        Migration {
            portworx: features.on(Gate::CSIMigrationPortworx) || always,
            portworx_always: always,
        }
    }
}

/// `IsPVMigratable` / `GetInTreePluginNameFromSpec(pv, nil)`.
pub(crate) fn pv_plugin(pv: &core::PersistentVolume) -> Option<InTree> {
    let s = pv.spec.as_ref()?;
    ALL.into_iter().find(|p| p.supports_pv(s))
}

/// `IsInlineMigratable` / `GetInTreePluginNameFromSpec(nil, vol)`.
pub(crate) fn inline_plugin(vol: &core::Volume) -> Option<InTree> {
    ALL.into_iter().find(|p| p.supports_inline(vol))
}

/// `IsMigratableIntreePluginByName` / `GetCSINameFromInTreeName`.
pub(crate) fn plugin_by_in_tree_name(name: &str) -> Option<InTree> {
    ALL.into_iter().find(|p| p.in_tree_name() == name)
}

/// nodevolumelimits' `isCSIMigrationOn`: a CSINode must exist; AWS EBS, GCE PD, Azure Disk and
/// Cinder count as migrated on any node with a CSINode; Portworx and RBD need their gate and
/// the plugin in the CSINode's migrated-plugins annotation; others are not migrated.
pub(crate) fn limits_migration_on(csi_node: Option<&storage::CSINode>, plugin: InTree, m: Migration) -> bool {
    if csi_node.is_none() {
        return false;
    }
    match plugin {
        InTree::AwsEbs | InTree::GcePd | InTree::AzureDisk | InTree::Cinder => true,
        InTree::Portworx if m.portworx_always => true,
        InTree::Portworx | InTree::Rbd => {
            plugin.migration_gate(m) && migrated_plugins_on_node(csi_node, plugin.in_tree_name())
        }
        InTree::AzureFile | InTree::VSphere => false,
    }
}

/// volumebinding's `tryTranslatePVToCSI`: the PV translated to CSI when its plugin's migration
/// is on and the node's CSINode lists the plugin as migrated; otherwise the PV unchanged.
pub(crate) fn binder_translate_pv<'a>(
    pv: &'a core::PersistentVolume,
    csi_node: Option<&storage::CSINode>,
    m: Migration,
) -> Result<std::borrow::Cow<'a, core::PersistentVolume>, String> {
    let Some(plugin) = pv_plugin(pv) else {
        return Ok(std::borrow::Cow::Borrowed(pv));
    };
    if !plugin.migration_gate(m) || !migrated_plugins_on_node(csi_node, plugin.in_tree_name()) {
        return Ok(std::borrow::Cow::Borrowed(pv));
    }
    translate_pv(pv)
        .map(std::borrow::Cow::Owned)
        .map_err(|e| format!("could not translate pv: {e}"))
}

/// `TranslateInTreePVToCSI` for the plugins whose migration can be on (AWS EBS, GCE PD, Azure
/// Disk, Cinder, Portworx): a copy with a CSI source and CSI topology keys.
pub(crate) fn translate_pv(pv: &core::PersistentVolume) -> Result<core::PersistentVolume, String> {
    let mut out = pv.clone();
    let name = pv.metadata.name.clone().unwrap_or_default();
    let Some(plugin) = pv_plugin(pv) else {
        return Err(format!("could not find in-tree plugin translation logic for {name:?}"));
    };
    let labels = pv.metadata.labels.clone().unwrap_or_default();
    let spec = out.spec.get_or_insert_with(Default::default);
    let (handle, topology_key) = match plugin {
        InTree::AwsEbs => {
            let src = spec.aws_elastic_block_store.take().unwrap_or_default();
            let h = ebs_volume_id(&src.volume_id)
                .map_err(|e| format!("failed to translate Kubernetes ID to EBS Volume ID {e}"))?;
            (h, Some("topology.ebs.csi.aws.com/zone"))
        }
        InTree::GcePd => {
            let src = spec.gce_persistent_disk.take().unwrap_or_default();
            let mut zones_label = labels.get(LABEL_BETA_ZONE).cloned().unwrap_or_default();
            if zones_label.is_empty() {
                zones_label = labels.get(LABEL_TOPOLOGY_ZONE).cloned().unwrap_or_default();
            }
            let zones: Vec<&str> = zones_label.split(LABEL_MULTI_ZONE_DELIMITER).collect();
            let h = if zones.len() == 1 && !zones[0].is_empty() {
                format!("projects/{UNSPECIFIED}/zones/{}/disks/{}", zones[0], src.pd_name)
            } else if zones.len() > 1 {
                let region =
                    gce_region_from_zones(&zones).map_err(|e| format!("failed to get region from zones: {e}"))?;
                format!("projects/{UNSPECIFIED}/regions/{region}/disks/{}", src.pd_name)
            } else {
                format!("projects/{UNSPECIFIED}/zones/{UNSPECIFIED}/disks/{}", src.pd_name)
            };
            (h, Some("topology.gke.io/zone"))
        }
        InTree::AzureDisk => {
            let src = spec.azure_disk.take().unwrap_or_default();
            check_azure_kind(src.kind.as_deref())?;
            (src.disk_uri, None)
        }
        InTree::Cinder => {
            let src = spec.cinder.take().unwrap_or_default();
            (src.volume_id, Some("topology.cinder.csi.openstack.org/zone"))
        }
        InTree::Portworx => {
            let src = spec.portworx_volume.take().unwrap_or_default();
            (src.volume_id, None)
        }
        other => {
            return Err(format!(
                "translation of {} volumes to CSI is not reproduced (its migration is off in every supported release)",
                other.in_tree_name()
            ));
        }
    };
    spec.csi = Some(core::CSIPersistentVolumeSource {
        driver: plugin.csi_driver().to_string(),
        volume_handle: handle,
        ..Default::default()
    });
    if let Some(key) = topology_key {
        translate_topology_to_csi(&mut out, key);
    }
    Ok(out)
}

/// `TranslateInTreeInlineVolumeToCSI`, reduced to the volume handle of the translated PV.
pub(crate) fn translate_inline_handle(vol: &core::Volume) -> Result<String, String> {
    let Some(plugin) = inline_plugin(vol) else {
        return Err(format!(
            "could not find in-tree plugin translation logic for {:?}",
            vol.name
        ));
    };
    match plugin {
        InTree::AwsEbs => {
            let src = vol
                .aws_elastic_block_store
                .as_ref()
                .map(|s| s.volume_id.as_str())
                .unwrap_or("");
            ebs_volume_id(src).map_err(|e| format!("failed to translate Kubernetes ID to EBS Volume ID {e}"))
        }
        InTree::GcePd => {
            let pd = vol
                .gce_persistent_disk
                .as_ref()
                .map(|s| s.pd_name.as_str())
                .unwrap_or("");
            Ok(format!("projects/{UNSPECIFIED}/zones/{UNSPECIFIED}/disks/{pd}"))
        }
        InTree::AzureDisk => {
            let src = vol.azure_disk.clone().unwrap_or_default();
            check_azure_kind(src.kind.as_deref())?;
            Ok(src.disk_uri)
        }
        InTree::Cinder => Ok(vol.cinder.as_ref().map(|s| s.volume_id.clone()).unwrap_or_default()),
        InTree::Portworx => Ok(vol
            .portworx_volume
            .as_ref()
            .map(|s| s.volume_id.clone())
            .unwrap_or_default()),
        other => Err(format!(
            "translation of inline {} volumes to CSI is not reproduced (its migration is off in every supported release)",
            other.in_tree_name()
        )),
    }
}

/// Azure Disk migration supports managed disks only. The API server defaults an absent kind
/// to `Shared`.
fn check_azure_kind(kind: Option<&str>) -> Result<(), String> {
    let k = kind.unwrap_or("Shared");
    if k.eq_ignore_ascii_case("Managed") {
        Ok(())
    } else {
        Err(format!("kind({k}) is not supported in csi migration"))
    }
}

/// `KubernetesVolumeIDToEBSVolumeID`: `aws://<zone>/<vol-id>`, `aws:///<vol-id>` or `<vol-id>`.
pub(crate) fn ebs_volume_id(id: &str) -> Result<String, String> {
    let Some(rest) = id.strip_prefix("aws://") else {
        return Ok(id.to_string());
    };
    let path = match rest.find('/') {
        Some(i) => &rest[i..],
        None => "",
    };
    let aws_id = path.trim_matches('/');
    if !aws_id.starts_with("vol-") || aws_id.contains('/') {
        return Err(format!("Invalid format for AWS volume ({id})"));
    }
    Ok(aws_id.to_string())
}

fn gce_region_from_zones(zones: &[&str]) -> Result<String, String> {
    let mut regions = std::collections::BTreeSet::new();
    for z in zones {
        let parts: Vec<&str> = z.split('-').collect();
        if parts.len() != 3 {
            return Err(format!(
                "zone in unexpected format, expected: {{locale}}-{{region}}-{{zone}}, got: {z}"
            ));
        }
        regions.insert(format!("{}-{}", parts[0], parts[1]));
    }
    if regions.len() != 1 {
        return Err(format!("multiple or no regions gotten from zones, got: {regions:?}"));
    }
    Ok(regions.into_iter().next().unwrap_or_default())
}

fn terms_mut(pv: &mut core::PersistentVolume) -> Option<&mut Vec<core::NodeSelectorTerm>> {
    let t = &mut pv
        .spec
        .as_mut()?
        .node_affinity
        .as_mut()?
        .required
        .as_mut()?
        .node_selector_terms;
    (!t.is_empty()).then_some(t)
}

fn topology_key_exists(pv: &core::PersistentVolume, key: &str) -> bool {
    pv.spec
        .as_ref()
        .and_then(|s| s.node_affinity.as_ref())
        .and_then(|a| a.required.as_ref())
        .is_some_and(|r| {
            r.node_selector_terms
                .iter()
                .flat_map(|t| t.match_expressions.iter().flatten())
                .any(|e| e.key == key)
        })
}

fn topology_values(pv: &core::PersistentVolume, key: &str) -> Vec<String> {
    let mut v: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    if let Some(r) = pv
        .spec
        .as_ref()
        .and_then(|s| s.node_affinity.as_ref())
        .and_then(|a| a.required.as_ref())
    {
        for e in r
            .node_selector_terms
            .iter()
            .flat_map(|t| t.match_expressions.iter().flatten())
        {
            if e.key == key {
                v.extend(e.values.iter().flatten().cloned());
            }
        }
    }
    v.into_iter().collect()
}

fn replace_topology(pv: &mut core::PersistentVolume, old: &str, new: &str) {
    if let Some(terms) = terms_mut(pv) {
        for e in terms.iter_mut().flat_map(|t| t.match_expressions.iter_mut().flatten()) {
            if e.key == old {
                e.key = new.to_string();
            }
        }
    }
}

fn add_topology(pv: &mut core::PersistentVolume, key: &str, zones: &[&str]) {
    let zones: std::collections::BTreeSet<String> = zones
        .iter()
        .map(|z| z.trim())
        .filter(|z| !z.is_empty())
        .map(str::to_string)
        .collect();
    if zones.is_empty() {
        return;
    }
    let spec = pv.spec.get_or_insert_with(Default::default);
    let req = spec
        .node_affinity
        .get_or_insert_with(Default::default)
        .required
        .get_or_insert_with(Default::default);
    if req.node_selector_terms.is_empty() {
        req.node_selector_terms.push(core::NodeSelectorTerm::default());
    }
    for t in &mut req.node_selector_terms {
        t.match_expressions
            .get_or_insert_with(Vec::new)
            .push(core::NodeSelectorRequirement {
                key: key.to_string(),
                operator: "In".into(),
                values: Some(zones.iter().cloned().collect()),
            });
    }
}

/// `translateTopologyFromInTreeToCSI`.
fn translate_topology_to_csi(pv: &mut core::PersistentVolume, csi_key: &str) {
    let labels = pv.metadata.labels.clone().unwrap_or_default();
    let (zone_label, region_label) = if topology_key_exists(pv, LABEL_TOPOLOGY_ZONE) {
        (LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION)
    } else if topology_key_exists(pv, LABEL_BETA_ZONE) {
        (LABEL_BETA_ZONE, LABEL_BETA_REGION)
    } else if labels.contains_key(LABEL_TOPOLOGY_ZONE) {
        (LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION)
    } else if labels.contains_key(LABEL_BETA_ZONE) {
        (LABEL_BETA_ZONE, LABEL_BETA_REGION)
    } else {
        (LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION)
    };
    if !topology_values(pv, zone_label).is_empty() {
        replace_topology(pv, zone_label, csi_key);
    } else if let Some(l) = labels.get(zone_label) {
        let zones: Vec<&str> = l.split(LABEL_MULTI_ZONE_DELIMITER).collect();
        add_topology(pv, csi_key, &zones);
    }
    if region_label == LABEL_BETA_REGION && !topology_values(pv, region_label).is_empty() {
        replace_topology(pv, region_label, LABEL_TOPOLOGY_REGION);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ebs_ids() {
        // csi-translation-lib/plugins/aws_ebs_test.go TestKubernetesVolumeIDToEBSVolumeID
        assert_eq!(
            ebs_volume_id("aws://us-east-1a/vol-01234567").as_deref(),
            Ok("vol-01234567")
        );
        assert_eq!(ebs_volume_id("aws:///vol-01234567").as_deref(), Ok("vol-01234567"));
        assert_eq!(ebs_volume_id("vol-01234567").as_deref(), Ok("vol-01234567"));
        assert!(ebs_volume_id("aws://us-east-1a/01234567").is_err());
    }

    fn ebs_pv(labels: &[(&str, &str)], terms: Vec<core::NodeSelectorTerm>) -> core::PersistentVolume {
        core::PersistentVolume {
            metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                name: Some("pv".into()),
                labels: Some(
                    labels
                        .iter()
                        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                        .collect(),
                ),
                ..Default::default()
            },
            spec: Some(core::PersistentVolumeSpec {
                aws_elastic_block_store: Some(core::AWSElasticBlockStoreVolumeSource {
                    volume_id: "aws://us-east-1a/vol-1".into(),
                    ..Default::default()
                }),
                node_affinity: (!terms.is_empty()).then_some(core::VolumeNodeAffinity {
                    required: Some(core::NodeSelector {
                        node_selector_terms: terms,
                    }),
                }),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn exprs(pv: &core::PersistentVolume) -> Vec<(String, Vec<String>)> {
        pv.spec
            .as_ref()
            .and_then(|s| s.node_affinity.as_ref())
            .and_then(|a| a.required.as_ref())
            .map(|r| {
                r.node_selector_terms
                    .iter()
                    .flat_map(|t| t.match_expressions.iter().flatten())
                    .map(|e| (e.key.clone(), e.values.clone().unwrap_or_default()))
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn pv_translation_moves_topology() {
        // From the zone label: a CSI topology term is added.
        let pv = ebs_pv(&[(LABEL_BETA_ZONE, "us-east-1a")], vec![]);
        let t = translate_pv(&pv).expect("translates");
        let csi = t.spec.as_ref().and_then(|s| s.csi.clone()).expect("csi");
        assert_eq!(
            (csi.driver.as_str(), csi.volume_handle.as_str()),
            ("ebs.csi.aws.com", "vol-1")
        );
        assert!(t.spec.as_ref().is_some_and(|s| s.aws_elastic_block_store.is_none()));
        assert_eq!(
            exprs(&t),
            vec![(
                "topology.ebs.csi.aws.com/zone".to_string(),
                vec!["us-east-1a".to_string()]
            )]
        );
        // From node affinity: the zone key is renamed, beta region moved to GA.
        let term = core::NodeSelectorTerm {
            match_expressions: Some(vec![
                core::NodeSelectorRequirement {
                    key: LABEL_BETA_ZONE.into(),
                    operator: "In".into(),
                    values: Some(vec!["z1".into()]),
                },
                core::NodeSelectorRequirement {
                    key: LABEL_BETA_REGION.into(),
                    operator: "In".into(),
                    values: Some(vec!["r1".into()]),
                },
            ]),
            match_fields: None,
        };
        let t = translate_pv(&ebs_pv(&[], vec![term])).expect("translates");
        assert_eq!(
            exprs(&t),
            vec![
                ("topology.ebs.csi.aws.com/zone".to_string(), vec!["z1".to_string()]),
                (LABEL_TOPOLOGY_REGION.to_string(), vec!["r1".to_string()]),
            ]
        );
    }

    #[test]
    fn gce_handles() {
        let mut pv = ebs_pv(&[(LABEL_TOPOLOGY_ZONE, "us-central1-a__us-central1-b")], vec![]);
        if let Some(s) = pv.spec.as_mut() {
            s.aws_elastic_block_store = None;
            s.gce_persistent_disk = Some(core::GCEPersistentDiskVolumeSource {
                pd_name: "disk".into(),
                ..Default::default()
            });
        }
        let t = translate_pv(&pv).expect("translates");
        assert_eq!(
            t.spec.and_then(|s| s.csi).map(|c| c.volume_handle).as_deref(),
            Some("projects/UNSPECIFIED/regions/us-central1/disks/disk")
        );
        let vol = core::Volume {
            name: "v".into(),
            gce_persistent_disk: Some(core::GCEPersistentDiskVolumeSource {
                pd_name: "d".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(
            translate_inline_handle(&vol).as_deref(),
            Ok("projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d")
        );
    }

    #[test]
    fn azure_disk_needs_managed_kind() {
        let mut vol = core::Volume {
            name: "v".into(),
            azure_disk: Some(core::AzureDiskVolumeSource {
                disk_uri: "uri".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(
            translate_inline_handle(&vol),
            Err("kind(Shared) is not supported in csi migration".into())
        );
        if let Some(a) = vol.azure_disk.as_mut() {
            a.kind = Some("Managed".into());
        }
        assert_eq!(translate_inline_handle(&vol).as_deref(), Ok("uri"));
    }

    #[test]
    fn migration_switches() {
        let v30 = Migration::of(&crate::engine::release::Release::at(30).into());
        let v31 = Migration::of(&crate::engine::release::Release::at(31).into());
        let node = storage::CSINode::default();
        assert!(!limits_migration_on(None, InTree::AwsEbs, v30));
        assert!(limits_migration_on(Some(&node), InTree::AwsEbs, v30));
        assert!(!limits_migration_on(Some(&node), InTree::AzureFile, v30));
        let mut annotated = storage::CSINode::default();
        annotated.metadata.annotations = Some(
            [(
                super::super::volume_helpers::ANN_MIGRATED_PLUGINS.to_string(),
                "kubernetes.io/portworx-volume".to_string(),
            )]
            .into(),
        );
        assert!(!limits_migration_on(Some(&annotated), InTree::Portworx, v30));
        assert!(limits_migration_on(Some(&annotated), InTree::Portworx, v31));
        // 1.35 needs the annotation; 1.36 (#135322) counts Portworx as migrated on any CSINode.
        let v35 = Migration::of(&crate::engine::release::Release::at(35).into());
        let v36 = Migration::of(&crate::engine::release::Release::at(36).into());
        assert!(!limits_migration_on(Some(&node), InTree::Portworx, v35));
        assert!(limits_migration_on(Some(&node), InTree::Portworx, v36));
        assert!(!limits_migration_on(None, InTree::Portworx, v36));
        assert_eq!(plugin_by_in_tree_name("kubernetes.io/gce-pd"), Some(InTree::GcePd));
        assert_eq!(plugin_by_in_tree_name("example.com/x"), None);
    }
}
