//! Port of framework/plugins/nodevolumelimits/non_csi.go (v1.30.6): the in-tree
//! `EBSLimits`, `GCEPDLimits` and `AzureDiskLimits` plugins (default profile of 1.30 only). They
//! count the pod's in-tree volumes of their kind (inline, or PVs, or unbound claims whose class
//! uses the in-tree provisioner) plus those already on the node against the node's limit, and
//! stand aside on nodes whose CSINode says the plugin is migrated to CSI.

use std::collections::BTreeSet;
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use serde_json::Value;

use super::{ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, UNBOUND_VOLUME_ID_PREFIX, VolumeError, volume_limits};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, FilterPlugin, Plugin, PluginSlots, PreFilterPlugin};
use crate::engine::framework::status::Status;
use crate::engine::plugins::csi_translation::Migration;
use crate::engine::plugins::csi_translation::{InTree, limits_migration_on};
use crate::engine::plugins::names;
use crate::engine::plugins::volume_helpers::{
    claim_volume_name, ephemeral_claim_name, get_pvc, pvc_not_found, volume_is_for_pod,
};
use crate::engine::release::Features;
use crate::model::{Cluster, Pod};

/// Default limit of GCE PD volumes per node.
pub(crate) const DEFAULT_MAX_GCE_PD_VOLUMES: i64 = 16;
/// Default limit of Azure Disk volumes per node.
pub(crate) const DEFAULT_MAX_AZURE_DISK_VOLUMES: i64 = 16;
/// Default limit of EBS volumes per node.
pub(crate) const DEFAULT_MAX_EBS_VOLUMES: i64 = 39;
/// Default limit of EBS volumes on Nitro instance types.
pub(crate) const DEFAULT_MAX_EBS_NITRO_VOLUMES: i64 = 25;

/// The in-tree volume kind a plugin counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// AWS EBS (`EBSLimits`).
    Ebs,
    /// GCE PD (`GCEPDLimits`).
    GcePd,
    /// Azure Disk (`AzureDiskLimits`).
    AzureDisk,
}

impl Kind {
    fn plugin_name(self) -> &'static str {
        match self {
            Kind::Ebs => names::EBS_LIMITS,
            Kind::GcePd => names::GCE_PD_LIMITS,
            Kind::AzureDisk => names::AZURE_DISK_LIMITS,
        }
    }

    fn in_tree(self) -> InTree {
        match self {
            Kind::Ebs => InTree::AwsEbs,
            Kind::GcePd => InTree::GcePd,
            Kind::AzureDisk => InTree::AzureDisk,
        }
    }

    /// The node allocatable resource that overrides the default limit.
    pub(crate) fn limit_key(self) -> &'static str {
        match self {
            Kind::Ebs => "attachable-volumes-aws-ebs",
            Kind::GcePd => "attachable-volumes-gce-pd",
            Kind::AzureDisk => "attachable-volumes-azure-disk",
        }
    }

    /// `FilterVolume`: the id of an inline volume of this kind.
    fn volume_id(self, v: &core::Volume) -> Option<String> {
        match self {
            Kind::Ebs => v.aws_elastic_block_store.as_ref().map(|s| s.volume_id.clone()),
            Kind::GcePd => v.gce_persistent_disk.as_ref().map(|s| s.pd_name.clone()),
            Kind::AzureDisk => v.azure_disk.as_ref().map(|s| s.disk_name.clone()),
        }
    }

    /// `FilterPersistentVolume`: the id of a PV of this kind.
    fn pv_id(self, pv: &core::PersistentVolume) -> Option<String> {
        let s = pv.spec.as_ref()?;
        match self {
            Kind::Ebs => s.aws_elastic_block_store.as_ref().map(|s| s.volume_id.clone()),
            Kind::GcePd => s.gce_persistent_disk.as_ref().map(|s| s.pd_name.clone()),
            Kind::AzureDisk => s.azure_disk.as_ref().map(|s| s.disk_name.clone()),
        }
    }

    /// The default limit for a node (`getMaxVolumeFunc`; the KUBE_MAX_PD_VOLS environment
    /// variable of the scheduler process is not known here and not read).
    fn default_limit(self, node: &NodeInfo) -> i64 {
        match self {
            Kind::Ebs => {
                let labels = &node.node.labels;
                // Upstream takes whichever instance-type label its map iteration finds first.
                let t = labels
                    .get("node.kubernetes.io/instance-type")
                    .or_else(|| labels.get("beta.kubernetes.io/instance-type"))
                    .map(String::as_str)
                    .unwrap_or("");
                max_ebs_volumes(t)
            }
            Kind::GcePd => DEFAULT_MAX_GCE_PD_VOLUMES,
            Kind::AzureDisk => DEFAULT_MAX_AZURE_DISK_VOLUMES,
        }
    }
}

/// `getMaxEBSVolume`: Nitro instance types (`^[cmr]5.*|t3|z1d`) have a lower default.
pub(crate) fn max_ebs_volumes(instance_type: &str) -> i64 {
    let nitro = ["c5", "m5", "r5"].iter().any(|p| instance_type.starts_with(p))
        || instance_type.contains("t3")
        || instance_type.contains("z1d");
    if nitro {
        DEFAULT_MAX_EBS_NITRO_VOLUMES
    } else {
        DEFAULT_MAX_EBS_VOLUMES
    }
}

/// One of the in-tree limits plugins.
pub(crate) struct NonCsiLimits {
    kind: Kind,
    migration: Migration,
}

impl Plugin for NonCsiLimits {
    fn name(&self) -> &'static str {
        self.kind.plugin_name()
    }
}

impl PreFilterPlugin for NonCsiLimits {
    fn pre_filter(&self, _: &Ctx<'_>, _: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        let relevant =
            pod.pod.spec().volumes.iter().flatten().any(|v| {
                self.kind.volume_id(v).is_some() || v.persistent_volume_claim.is_some() || v.ephemeral.is_some()
            });
        if relevant {
            (None, Status::success())
        } else {
            (None, Status::skip())
        }
    }
}

impl FilterPlugin for NonCsiLimits {
    fn filter(&self, cx: &Ctx<'_>, _: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        if pod.pod.spec().volumes.as_ref().is_none_or(Vec::is_empty) {
            return Status::success();
        }
        let cluster = &cx.snapshot.cluster;
        let mut new_volumes = BTreeSet::new();
        if let Err(e) = self.filter_volumes(cluster, &pod.pod, true, &mut new_volumes) {
            return e.status();
        }
        if new_volumes.is_empty() {
            return Status::success();
        }
        let csi_node = cluster.csi_nodes.get(node.name());
        if limits_migration_on(csi_node, self.kind.in_tree(), self.migration) {
            return Status::success();
        }
        let mut existing = BTreeSet::new();
        for p in &node.pods {
            if let Err(e) = self.filter_volumes(cluster, &p.pod, false, &mut existing) {
                return Status::error(e.message);
            }
        }
        for k in &existing {
            new_volumes.remove(k);
        }
        let mut max = self.kind.default_limit(node);
        if let Some(v) = volume_limits(node).get(self.kind.limit_key()) {
            max = *v;
        }
        let total = i64::try_from(existing.len() + new_volumes.len()).unwrap_or(i64::MAX);
        if total > max {
            return Status::unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED);
        }
        Status::success()
    }
}

impl NonCsiLimits {
    /// `filterVolumes`: the ids of the pod's volumes of this kind.
    fn filter_volumes(
        &self,
        cluster: &Cluster,
        pod: &Pod,
        new_pod: bool,
        out: &mut BTreeSet<String>,
    ) -> Result<(), VolumeError> {
        for v in pod.spec().volumes.iter().flatten() {
            if let Some(id) = self.kind.volume_id(v) {
                out.insert(id);
                continue;
            }
            let (claim, ephemeral) = match (&v.persistent_volume_claim, &v.ephemeral) {
                (Some(c), _) => (c.claim_name.clone(), false),
                (None, Some(_)) => (ephemeral_claim_name(pod, v), true),
                _ => continue,
            };
            if claim.is_empty() {
                return Err(VolumeError::other("PersistentVolumeClaim had no name".into()));
            }
            let pv_id = format!("{UNBOUND_VOLUME_ID_PREFIX}-{}/{claim}", pod.key.namespace);
            let Some(pvc) = get_pvc(cluster, &pod.key.namespace, &claim) else {
                if new_pod {
                    return Err(VolumeError {
                        message: format!(
                            "looking up PVC {}/{claim}: {}",
                            pod.key.namespace,
                            pvc_not_found(&claim)
                        ),
                        not_found: true,
                    });
                }
                continue;
            };
            if ephemeral {
                volume_is_for_pod(pod, pvc).map_err(VolumeError::other)?;
            }
            let pv_name = claim_volume_name(pvc);
            let pv = (!pv_name.is_empty()).then(|| cluster.pvs.get(pv_name)).flatten();
            match pv {
                None => {
                    if self.matches_provisioner(cluster, pvc) {
                        out.insert(pv_id);
                    }
                }
                Some(pv) => {
                    if let Some(id) = self.kind.pv_id(pv) {
                        out.insert(id);
                    }
                }
            }
        }
        Ok(())
    }

    /// `matchProvisioner`: the claim's spec.storageClassName names a class provisioned by
    /// this in-tree plugin.
    fn matches_provisioner(&self, cluster: &Cluster, pvc: &core::PersistentVolumeClaim) -> bool {
        let Some(class) = pvc.spec.as_ref().and_then(|s| s.storage_class_name.as_ref()) else {
            return false;
        };
        cluster
            .storage_classes
            .get(class)
            .is_some_and(|sc| sc.provisioner == self.kind.in_tree().in_tree_name())
    }
}

fn register_kind(kind: Kind, features: &Features) -> PluginSlots {
    let p = Arc::new(NonCsiLimits {
        kind,
        migration: Migration::of(features),
    });
    PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p),
        ..Default::default()
    }
}

/// Registers EBSLimits.
pub(crate) fn register_ebs(_: &Value, features: &Features) -> Result<PluginSlots, String> {
    Ok(register_kind(Kind::Ebs, features))
}

/// Registers GCEPDLimits.
pub(crate) fn register_gce_pd(_: &Value, features: &Features) -> Result<PluginSlots, String> {
    Ok(register_kind(Kind::GcePd, features))
}

/// Registers AzureDiskLimits.
pub(crate) fn register_azure_disk(_: &Value, features: &Features) -> Result<PluginSlots, String> {
    Ok(register_kind(Kind::AzureDisk, features))
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

    use super::*;
    use crate::engine::framework::status::Code;
    use crate::engine::plugins::volume_helpers::testutil::*;

    const NODE: &str = "node-for-max-pd-test-1";

    /// (name, new pod, existing pods, limit, expected PreFilter code and Filter status)
    type LimitCase = (&'static str, Pod, Vec<Pod>, i64, (Code, Status));

    fn inline(kind: Kind, id: &str) -> core::Volume {
        let mut v = core::Volume {
            name: format!("v-{id}"),
            ..Default::default()
        };
        match kind {
            Kind::Ebs => {
                v.aws_elastic_block_store = Some(core::AWSElasticBlockStoreVolumeSource {
                    volume_id: id.into(),
                    ..Default::default()
                })
            }
            Kind::GcePd => {
                v.gce_persistent_disk = Some(core::GCEPersistentDiskVolumeSource {
                    pd_name: id.into(),
                    ..Default::default()
                })
            }
            Kind::AzureDisk => {
                v.azure_disk = Some(core::AzureDiskVolumeSource {
                    disk_name: id.into(),
                    ..Default::default()
                })
            }
        }
        v
    }

    fn host_path() -> core::Volume {
        core::Volume {
            name: "hp".into(),
            host_path: Some(Default::default()),
            ..Default::default()
        }
    }

    fn vols_pod(vols: Vec<core::Volume>) -> Pod {
        pod("", "p", vols)
    }

    fn claims_pod(claims: &[&str]) -> Pod {
        vols_pod(
            claims
                .iter()
                .enumerate()
                .map(|(i, c)| pvc_vol(&format!("c{i}"), c))
                .collect(),
        )
    }

    /// non_csi_test.go fixtures: claims and PVs named after the filter (all fake PVs are EBS).
    fn world(filter: &str, provisioner: &str, existing: Vec<Pod>, max_vols: i64, limit_key: &str) -> World {
        let limit = max_vols.to_string();
        let mut w = World {
            nodes: vec![node_alloc(NODE, &[], &[(limit_key, &limit)])],
            ..Default::default()
        };
        let claim = |name: &str, pv: &str, class: &str| {
            let mut c = with_class(pvc("", name), class);
            if !pv.is_empty() {
                c.spec.get_or_insert_with(Default::default).volume_name = Some(pv.into());
            }
            c
        };
        let some = format!("some{filter}Vol");
        let some_non = format!("someNon{filter}Vol");
        w.pvcs = vec![
            claim(&some, &some, filter),
            claim(&some_non, &some_non, filter),
            claim("pvcWithDeletedPV", "pvcWithDeletedPV", filter),
            claim("anotherPVCWithDeletedPV", "anotherPVCWithDeletedPV", filter),
            claim("unboundPVC", "", filter),
            claim("anotherUnboundPVC", "", filter),
            claim("unboundPVCWithDefaultSCPod", "", "standard-sc"),
            claim("unboundPVCWithInvalidSCPod", "", "invalid-sc"),
        ];
        let mut ebs_pv = pv(&some);
        ebs_pv.spec.get_or_insert_with(Default::default).aws_elastic_block_store =
            Some(core::AWSElasticBlockStoreVolumeSource {
                volume_id: format!("{}Vol", filter.to_lowercase()),
                ..Default::default()
            });
        w.pvs = vec![ebs_pv, pv(&some_non)];
        w.classes = vec![class(filter, "Immediate", provisioner)];
        for (i, mut p) in existing.into_iter().enumerate() {
            p.key.name = format!("existing-{i}").into();
            p.uid = format!("existing-{i}").into();
            p.node_name = Some(NODE.into());
            w.pods.push(p);
        }
        w
    }

    fn run(kind: Kind, w: World, new_pod: Pod) -> (Code, Status) {
        let s = w.snapshot();
        let cx = Ctx { snapshot: &s };
        let pl = NonCsiLimits {
            kind,
            migration: Migration::default(),
        };
        let p = info(new_pod);
        let mut state = CycleState::default();
        let (_, pre) = pl.pre_filter(&cx, &mut state, &p);
        if pre.is_skip() {
            return (Code::Skip, Status::success());
        }
        (pre.code, pl.filter(&cx, &state, &p, node_info(&s, NODE)))
    }

    #[test]
    fn ebs_limits_table() {
        // non_csi_test.go TestEBSLimits
        let k = Kind::Ebs;
        let one = || vols_pod(vec![inline(k, "ovp")]);
        let two = || vols_pod(vec![inline(k, "tvp1"), inline(k, "tvp2")]);
        let split = || vols_pod(vec![host_path(), inline(k, "svp")]);
        let non_applicable = || vols_pod(vec![host_path()]);
        let empty = || vols_pod(vec![]);
        let one_pvc = || claims_pod(&["someEBSVol"]);
        let split_pvc = || claims_pod(&["someNonEBSVol", "someEBSVol"]);
        let deleted_pvc = || claims_pod(&["deletedPVC"]);
        let two_deleted_pvc = || claims_pod(&["deletedPVC", "anotherDeletedPVC"]);
        let deleted_pv = || claims_pod(&["pvcWithDeletedPV"]);
        let another_deleted_pv = || claims_pod(&["anotherPVCWithDeletedPV"]);
        let unbound = || claims_pod(&["unboundPVC"]);
        let another_unbound = || claims_pod(&["anotherUnboundPVC"]);
        let ok = (Code::Success, Status::success());
        let exceeded = (
            Code::Success,
            Status::unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED),
        );
        let cases: Vec<LimitCase> = vec![
            (
                "fits when capacity >= new volumes",
                one(),
                vec![two(), one()],
                4,
                ok.clone(),
            ),
            (
                "doesn't fit when capacity < new volumes",
                two(),
                vec![one()],
                2,
                exceeded.clone(),
            ),
            ("new pod ignores non-EBS volumes", split(), vec![two()], 3, ok.clone()),
            (
                "existing pods ignore non-EBS volumes",
                two(),
                vec![split(), non_applicable(), empty()],
                3,
                ok.clone(),
            ),
            (
                "new pod counts EBS-backed PVCs",
                one_pvc(),
                vec![split(), non_applicable(), empty()],
                3,
                ok.clone(),
            ),
            (
                "new pod ignores PVCs not backed by EBS",
                split_pvc(),
                vec![split(), one()],
                3,
                ok.clone(),
            ),
            (
                "existing pods count EBS-backed PVCs",
                two(),
                vec![one(), one_pvc()],
                3,
                exceeded.clone(),
            ),
            (
                "already-mounted volumes are ok",
                two(),
                vec![one(), two(), one_pvc()],
                4,
                ok.clone(),
            ),
            (
                "same volumes counted once",
                split(),
                vec![one(), one(), one_pvc()],
                3,
                ok.clone(),
            ),
            (
                "missing PVC not counted (limit 1)",
                one_pvc(),
                vec![one(), deleted_pvc()],
                1,
                exceeded.clone(),
            ),
            (
                "missing PVC not counted (limit 2)",
                one_pvc(),
                vec![one(), deleted_pvc()],
                2,
                ok.clone(),
            ),
            (
                "two missing PVCs not counted",
                one_pvc(),
                vec![one(), two_deleted_pvc()],
                2,
                ok.clone(),
            ),
            (
                "unbound PVC with invalid SC",
                claims_pod(&["unboundPVCWithInvalidSCPod"]),
                vec![one()],
                1,
                ok.clone(),
            ),
            (
                "unbound PVC of another provisioner",
                claims_pod(&["unboundPVCWithDefaultSCPod"]),
                vec![one()],
                1,
                ok.clone(),
            ),
            (
                "missing PV counted (limit 2)",
                one_pvc(),
                vec![one(), deleted_pv()],
                2,
                exceeded.clone(),
            ),
            (
                "missing PV counted (limit 3)",
                one_pvc(),
                vec![one(), deleted_pv()],
                3,
                ok.clone(),
            ),
            (
                "same missing PV counted once",
                deleted_pv(),
                vec![one(), deleted_pv()],
                2,
                ok.clone(),
            ),
            (
                "different missing PVs counted twice",
                another_deleted_pv(),
                vec![one(), deleted_pv()],
                2,
                exceeded.clone(),
            ),
            (
                "unbound PVC counted (limit 2)",
                one_pvc(),
                vec![one(), unbound()],
                2,
                exceeded.clone(),
            ),
            (
                "unbound PVC counted (limit 3)",
                one_pvc(),
                vec![one(), unbound()],
                3,
                ok.clone(),
            ),
            (
                "same unbound PVC counted once",
                unbound(),
                vec![one(), unbound()],
                2,
                ok.clone(),
            ),
            (
                "different unbound PVCs counted twice",
                another_unbound(),
                vec![one(), unbound()],
                2,
                exceeded.clone(),
            ),
        ];
        for (name, new_pod, existing, max, want) in cases {
            let w = world("EBS", "kubernetes.io/aws-ebs", existing, max, k.limit_key());
            assert_eq!(run(k, w, new_pod), want, "{name}");
        }
        let cm = vols_pod(vec![
            core::Volume {
                name: "c".into(),
                config_map: Some(Default::default()),
                ..Default::default()
            },
            core::Volume {
                name: "s".into(),
                secret: Some(Default::default()),
                ..Default::default()
            },
        ]);
        let w = world("EBS", "kubernetes.io/aws-ebs", vec![two(), one()], 4, k.limit_key());
        assert_eq!(run(k, w, cm).0, Code::Skip, "only configmaps and secrets");
    }

    #[test]
    fn gce_and_azure_tables() {
        // TestGCEPDLimits / TestAzureDiskLimits: the fake PVs are EBS, inline disks have empty
        // names, so every case fits.
        for k in [Kind::GcePd, Kind::AzureDisk] {
            let filter = if k == Kind::GcePd { "GCE" } else { "AzureDisk" };
            let one = || vols_pod(vec![inline(k, "")]);
            let two = || vols_pod(vec![inline(k, ""), inline(k, "")]);
            let split = || vols_pod(vec![host_path(), inline(k, "")]);
            let one_pvc = || claims_pod(&[&format!("some{filter}Vol")]);
            let cases: Vec<(Pod, Vec<Pod>, i64)> = vec![
                (one(), vec![two(), one()], 4),
                (two(), vec![one()], 2),
                (split(), vec![two()], 3),
                (one_pvc(), vec![split()], 3),
                (two(), vec![one(), one_pvc()], 3),
                (one_pvc(), vec![one(), claims_pod(&["unboundPVC"])], 2),
                (
                    claims_pod(&["anotherUnboundPVC"]),
                    vec![one(), claims_pod(&["unboundPVC"])],
                    2,
                ),
            ];
            for (i, (new_pod, existing, max)) in cases.into_iter().enumerate() {
                let w = world(filter, "", existing, max, k.limit_key());
                assert_eq!(
                    run(k, w, new_pod),
                    (Code::Success, Status::success()),
                    "{filter} case {i}"
                );
            }
        }
    }

    fn eph_pod() -> Pod {
        let mut p = pod("test", "abc", vec![ephemeral_vol("xyz")]);
        p.obj.metadata.uid = Some("12345".into());
        p
    }

    fn eph_claim(owned: bool) -> core::PersistentVolumeClaim {
        let mut c = with_class(pvc("test", "abc-xyz"), "GCE");
        c.spec.get_or_insert_with(Default::default).volume_name = Some("missing".into());
        if owned {
            c.metadata.owner_references = Some(vec![OwnerReference {
                kind: "Pod".into(),
                name: "abc".into(),
                uid: "12345".into(),
                controller: Some(true),
                ..Default::default()
            }]);
        }
        c
    }

    #[test]
    fn ephemeral_limits() {
        // TestEphemeralLimits (filter GCE, provisioner kubernetes.io/gce-pd)
        let k = Kind::GcePd;
        let w = |extra: Vec<core::PersistentVolumeClaim>, max: i64| {
            let mut w = world("GCE", "kubernetes.io/gce-pd", vec![], max, k.limit_key());
            w.pvcs.extend(extra);
            w
        };
        assert_eq!(
            run(k, w(vec![], 0), eph_pod()),
            (
                Code::Success,
                Status::unresolvable("looking up PVC test/abc-xyz: persistentvolumeclaim \"abc-xyz\" not found")
            ),
            "volume missing"
        );
        assert_eq!(
            run(k, w(vec![eph_claim(false)], 0), eph_pod()),
            (
                Code::Success,
                Status::error("PVC test/abc-xyz was not created for pod test/abc (pod is not owner)")
            ),
            "volume not owned"
        );
        assert_eq!(
            run(k, w(vec![eph_claim(true)], 1), eph_pod()),
            (Code::Success, Status::success()),
            "allowed"
        );
        assert_eq!(
            run(k, w(vec![eph_claim(true)], 0), eph_pod()),
            (
                Code::Success,
                Status::unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
            ),
            "exceeds limit"
        );
    }

    #[test]
    fn migrated_nodes_and_defaults() {
        // A CSINode means EBS is migrated: the in-tree plugin stands aside.
        let k = Kind::Ebs;
        let mut w = world("EBS", "kubernetes.io/aws-ebs", vec![], 0, k.limit_key());
        w.csi_nodes.push(k8s_openapi::api::storage::v1::CSINode {
            metadata: meta("", NODE),
            ..Default::default()
        });
        assert_eq!(
            run(k, w, vols_pod(vec![inline(k, "a")])),
            (Code::Success, Status::success())
        );
        // Default limits: Nitro types get 25.
        assert_eq!(max_ebs_volumes("m5.large"), 25);
        assert_eq!(max_ebs_volumes("t3.medium"), 25);
        assert_eq!(max_ebs_volumes("x1.z1d"), 25);
        assert_eq!(max_ebs_volumes("m4.large"), 39);
        assert_eq!(max_ebs_volumes(""), 39);
        let s = World {
            nodes: vec![node("n", &[("node.kubernetes.io/instance-type", "c5.xlarge")])],
            ..Default::default()
        }
        .snapshot();
        assert_eq!(Kind::Ebs.default_limit(node_info(&s, "n")), 25);
        assert_eq!(Kind::GcePd.default_limit(node_info(&s, "n")), 16);
    }
}
