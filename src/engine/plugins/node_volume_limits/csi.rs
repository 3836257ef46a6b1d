//! Port of framework/plugins/nodevolumelimits/csi.go (v1.30.6): `NodeVolumeLimits`. The pod's
//! CSI volumes (PVCs, ephemeral claims, migrated in-tree volumes) that the node does not attach
//! yet, per driver, must fit the driver's limit (CSINode `allocatable.count`, else, in 1.30 and
//! 1.31 only, the node's `attachable-volumes-csi-<driver>` allocatable). From 1.32 (v1.32.5,
//! v1.33.3, v1.34.x read) the volumes the node's VolumeAttachments attach count too
//! ([`Version::csi_limits_count_volume_attachments`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::storage::v1 as storage;
use serde_json::Value;

use super::{ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, UNBOUND_VOLUME_ID_PREFIX, VolumeError, volume_limits};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, FilterPlugin, Plugin, PluginSlots, PreFilterPlugin, Signing};
use crate::engine::framework::status::Status;
use crate::engine::plugins::csi_translation::Migration;
use crate::engine::plugins::csi_translation::{
    inline_plugin, limits_migration_on, plugin_by_in_tree_name, pv_plugin, translate_inline_handle, translate_pv,
};
use crate::engine::plugins::names;
use crate::engine::plugins::volume_helpers::{
    claim_class, claim_volume_name, csi_attach_limit_key, ephemeral_claim_name, get_pvc, pvc_not_found,
    volume_is_for_pod,
};
use crate::engine::release::{Change, Features};
use crate::model::{Cluster, Pod};

/// NodeVolumeLimits.
pub(crate) struct CsiLimits {
    /// [`Change::CsiLimitsCountVolumeAttachments`].
    count_attachments: bool,
    /// Limits also from node allocatable (before [`Change::CsiLimitsFromCsiNodeOnly`]).
    from_node_allocatable: bool,
    /// CSI migration gates.
    migration: Migration,
    /// Refuse a node without a CSI driver the pod needs (VolumeLimitScaling).
    volume_limit_scaling: bool,
    /// ... only for a driver whose CSIDriver sets preventPodSchedulingIfMissing
    /// ([`Change::VolumeLimitScalingOptIn`]).
    driver_opt_in: bool,
}

impl CsiLimits {
    /// The plugin as a release behaves.
    pub(crate) fn new(f: &Features) -> Self {
        CsiLimits {
            count_attachments: f.has(Change::CsiLimitsCountVolumeAttachments),
            from_node_allocatable: !f.has(Change::CsiLimitsFromCsiNodeOnly),
            migration: Migration::of(f),
            volume_limit_scaling: f.on(crate::engine::release::Gate::VolumeLimitScaling),
            driver_opt_in: f.has(Change::VolumeLimitScalingOptIn),
        }
    }
}

impl Plugin for CsiLimits {
    fn name(&self) -> &'static str {
        names::NODE_VOLUME_LIMITS
    }

    fn sign_pod(&self, _: &Ctx<'_>, _: &PodInfo) -> Signing {
        Signing::Signed
    }
}

/// CycleState key of the VolumeAttachments grouped by node (1.32+), computed once per cycle.
static ATTACHMENTS_KEY: &str = "PreFilterNodeVolumeLimitsAttachments";

/// `<attacher>/<volumeHandle>` → limit key, per node.
type AttachmentsByNode = Arc<BTreeMap<String, BTreeMap<String, String>>>;

impl PreFilterPlugin for CsiLimits {
    fn pre_filter_facts(
        &self,
        _: &Ctx<'_>,
        _: &CycleState,
        pod: &PodInfo,
    ) -> Vec<crate::engine::framework::trace::Fact> {
        vec![crate::engine::plugins::volume_helpers::claims_fact(&pod.pod, true)]
    }

    fn pre_filter(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        let relevant = pod
            .pod
            .spec()
            .volumes
            .iter()
            .flatten()
            .any(|v| v.persistent_volume_claim.is_some() || v.ephemeral.is_some() || inline_plugin(v).is_some());
        if relevant {
            if self.count_attachments {
                let by_node: AttachmentsByNode = Arc::new(volume_attachment_volumes(&cx.snapshot.cluster));
                state.write(ATTACHMENTS_KEY, by_node);
            }
            (None, Status::success())
        } else {
            (None, Status::skip())
        }
    }
}

impl FilterPlugin for CsiLimits {
    fn filter(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        if pod.pod.spec().volumes.as_ref().is_none_or(Vec::is_empty) {
            return Status::success();
        }
        let cluster = &cx.snapshot.cluster;
        let csi_node = cluster.csi_nodes.get(node.name());
        let mut new_volumes = BTreeMap::new();
        if let Err(e) = self.attachable_volumes(cluster, &pod.pod, csi_node, true, &mut new_volumes) {
            return e.status();
        }
        if new_volumes.is_empty() {
            return Status::success();
        }
        if self.volume_limit_scaling {
            // Upstream walks a map (an unspecified order when several drivers are missing);
            // kschedtui reports the first by name.
            let drivers: BTreeSet<&str> = new_volumes
                .keys()
                .map(|u| u.split_once('/').map_or(u.as_str(), |(d, _)| d))
                .collect();
            for d in drivers {
                if !self.driver_on_node(cluster, d, csi_node) {
                    return Status::unschedulable(format!("{d} CSI driver is not installed on the node"));
                }
            }
        }
        let limits = volume_limits_with_csi_node(node, csi_node, self.from_node_allocatable);
        if limits.is_empty() {
            return Status::success();
        }
        let mut attached = BTreeMap::new();
        for existing in &node.pods {
            if let Err(e) = self.attachable_volumes(cluster, &existing.pod, csi_node, false, &mut attached) {
                return Status::error(e.message);
            }
        }
        let mut attached_count: BTreeMap<String, i64> = BTreeMap::new();
        for (unique, key) in &attached {
            new_volumes.remove(unique);
            *attached_count.entry(key.clone()).or_insert(0) += 1;
        }
        if self.count_attachments {
            // Not checked against the incoming pod's volumes: a volume the pod would use that
            // an attachment already holds counts on both sides, as upstream counts it.
            let computed;
            let by_node = match state.read::<AttachmentsByNode>(ATTACHMENTS_KEY) {
                Some(m) => m,
                None => {
                    computed = Arc::new(volume_attachment_volumes(cluster));
                    &computed
                }
            };
            for (unique, key) in by_node.get(node.name()).into_iter().flatten() {
                if !attached.contains_key(unique) {
                    *attached_count.entry(key.clone()).or_insert(0) += 1;
                }
            }
        }
        let mut new_count: BTreeMap<&str, i64> = BTreeMap::new();
        for key in new_volumes.values() {
            *new_count.entry(key.as_str()).or_insert(0) += 1;
        }
        for (key, count) in new_count {
            if let Some(max) = limits.get(key)
                && attached_count.get(key).copied().unwrap_or(0) + count > *max
            {
                return Status::unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED);
            }
        }
        Status::success()
    }
}

/// `getNodeVolumeAttachmentInfo` (1.32+) for every node at once: per node,
/// `<attacher>/<volumeHandle>` → limit key of the attacher, for each VolumeAttachment that has
/// an attacher and names a PV with a `csi` source (others, and those naming a missing PV, are
/// passed over). Upstream lists the attachments at each Filter call; grouping them once per
/// cycle gives the same counts.
fn volume_attachment_volumes(cluster: &Cluster) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for va in cluster.volume_attachments.values() {
        let spec = &va.spec;
        if spec.attacher.is_empty() {
            continue;
        }
        let Some(pv_name) = spec.source.persistent_volume_name.as_deref() else {
            continue;
        };
        let Some(csi) = cluster
            .pvs
            .get(pv_name)
            .and_then(|pv| pv.spec.as_ref())
            .and_then(|s| s.csi.as_ref())
        else {
            continue;
        };
        out.entry(spec.node_name.clone()).or_default().insert(
            format!("{}/{}", spec.attacher, csi.volume_handle),
            csi_attach_limit_key(&spec.attacher),
        );
    }
    out
}

/// `getVolumeLimits`: node allocatable limits (1.30, 1.31 only), overridden per driver by the
/// CSINode's counts.
pub(crate) fn volume_limits_with_csi_node(
    node: &NodeInfo,
    csi_node: Option<&storage::CSINode>,
    from_node_allocatable: bool,
) -> BTreeMap<String, i64> {
    let mut limits = if from_node_allocatable {
        volume_limits(node)
    } else {
        BTreeMap::new()
    };
    if let Some(n) = csi_node {
        for d in &n.spec.drivers {
            if let Some(count) = d.allocatable.as_ref().and_then(|a| a.count) {
                limits.insert(csi_attach_limit_key(&d.name), i64::from(count));
            }
        }
    }
    limits
}

impl CsiLimits {
    /// `checkCSIDriverOnNode`: a driver without a CSIDriver object may not be CSI, so it
    /// passes; 1.36+ pass a driver that does not opt in with preventPodSchedulingIfMissing;
    /// else the node's CSINode must list it.
    fn driver_on_node(&self, cluster: &Cluster, driver: &str, csi_node: Option<&storage::CSINode>) -> bool {
        let Some(d) = cluster.csi_drivers.get(driver) else {
            return true;
        };
        if self.driver_opt_in && d.spec.prevent_pod_scheduling_if_missing != Some(true) {
            return true;
        }
        csi_node.is_some_and(|n| n.spec.drivers.iter().any(|x| x.name == driver))
    }

    /// `filterAttachableVolumes`: `<driver>/<handle>` → limit key for each of the pod's volumes.
    fn attachable_volumes(
        &self,
        cluster: &Cluster,
        pod: &Pod,
        csi_node: Option<&storage::CSINode>,
        new_pod: bool,
        result: &mut BTreeMap<String, String>,
    ) -> Result<(), VolumeError> {
        for vol in pod.spec().volumes.iter().flatten() {
            let (claim, ephemeral) = match (&vol.persistent_volume_claim, &vol.ephemeral) {
                (Some(c), _) => (c.claim_name.clone(), false),
                (None, Some(_)) => (ephemeral_claim_name(pod, vol), true),
                _ => {
                    self.inline_volume(vol, csi_node, result)?;
                    continue;
                }
            };
            if claim.is_empty() {
                return Err(VolumeError::other("PersistentVolumeClaim had no name".into()));
            }
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
            let (driver, handle) = self.driver_info(cluster, csi_node, pvc);
            if driver.is_empty() || handle.is_empty() {
                continue;
            }
            let key = csi_attach_limit_key(&driver);
            result.insert(format!("{driver}/{handle}"), key);
        }
        Ok(())
    }

    /// `checkAttachableInlineVolume`.
    fn inline_volume(
        &self,
        vol: &core::Volume,
        csi_node: Option<&storage::CSINode>,
        result: &mut BTreeMap<String, String>,
    ) -> Result<(), VolumeError> {
        let Some(plugin) = inline_plugin(vol) else {
            return Ok(());
        };
        if !limits_migration_on(csi_node, plugin, self.migration) {
            return Ok(());
        }
        let handle = translate_inline_handle(vol)
            .map_err(|e| VolumeError::other(format!("converting volume({}) from inline to csi: {e}", vol.name)))?;
        let driver = plugin.csi_driver();
        result.insert(format!("{driver}/{handle}"), csi_attach_limit_key(driver));
        Ok(())
    }

    /// `getCSIDriverInfo`: the driver and volume handle of a claim's PV, or from its class.
    fn driver_info(
        &self,
        cluster: &Cluster,
        csi_node: Option<&storage::CSINode>,
        pvc: &core::PersistentVolumeClaim,
    ) -> (String, String) {
        let pv_name = claim_volume_name(pvc);
        if pv_name.is_empty() {
            return self.driver_info_from_class(cluster, csi_node, pvc);
        }
        let Some(pv) = cluster.pvs.get(pv_name) else {
            return self.driver_info_from_class(cluster, csi_node, pvc);
        };
        if let Some(csi) = pv.spec.as_ref().and_then(|s| s.csi.as_ref()) {
            return (csi.driver.clone(), csi.volume_handle.clone());
        }
        let Some(plugin) = pv_plugin(pv) else {
            return (String::new(), String::new());
        };
        if !limits_migration_on(csi_node, plugin, self.migration) {
            return (String::new(), String::new());
        }
        match translate_pv(pv).ok().and_then(|t| t.spec.and_then(|s| s.csi)) {
            Some(csi) => (csi.driver, csi.volume_handle),
            None => (String::new(), String::new()),
        }
    }

    /// `getCSIDriverInfoFromSC`.
    fn driver_info_from_class(
        &self,
        cluster: &Cluster,
        csi_node: Option<&storage::CSINode>,
        pvc: &core::PersistentVolumeClaim,
    ) -> (String, String) {
        let class = claim_class(pvc);
        if class.is_empty() {
            return (String::new(), String::new());
        }
        let Some(sc) = cluster.storage_classes.get(&class) else {
            return (String::new(), String::new());
        };
        let handle = format!(
            "{UNBOUND_VOLUME_ID_PREFIX}-{}/{}",
            pvc.metadata.namespace.as_deref().unwrap_or(""),
            pvc.metadata.name.as_deref().unwrap_or("")
        );
        if let Some(plugin) = plugin_by_in_tree_name(&sc.provisioner) {
            if !limits_migration_on(csi_node, plugin, self.migration) {
                return (String::new(), String::new());
            }
            return (plugin.csi_driver().to_string(), handle);
        }
        (sc.provisioner.clone(), handle)
    }
}

/// Registers NodeVolumeLimits (it takes no args).
pub(crate) fn register(_: &Value, features: &Features) -> Result<PluginSlots, String> {
    let p = Arc::new(CsiLimits::new(features));
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

    use super::*;
    use crate::engine::framework::status::Code;
    use crate::engine::plugins::volume_helpers::ANN_MIGRATED_PLUGINS;
    use crate::engine::plugins::volume_helpers::testutil::*;
    use crate::engine::release::Release;

    const EBS_CSI: &str = "ebs.csi.aws.com";
    const GCE_CSI: &str = "pd.csi.storage.gke.io";
    const EBS_IN_TREE: &str = "kubernetes.io/aws-ebs";
    const HOSTPATH_IN_TREE: &str = "kubernetes.io/hostpath";
    const NODE: &str = "node-for-max-pd-test-1";

    fn pvc_pod(name: &str, claims: &[&str]) -> Pod {
        let vols = claims
            .iter()
            .enumerate()
            .map(|(i, c)| pvc_vol(&format!("v{i}"), c))
            .collect();
        pod("", name, vols)
    }

    fn ebs_inline_pod(name: &str, id: &str) -> Pod {
        pod(
            "",
            name,
            vec![core::Volume {
                name: "inline".into(),
                aws_elastic_block_store: Some(core::AWSElasticBlockStoreVolumeSource {
                    volume_id: id.into(),
                    ..Default::default()
                }),
                ..Default::default()
            }],
        )
    }

    fn ephemeral_pod(name: &str, uid: &str, vols: &[&str]) -> Pod {
        let mut p = pod("test", name, vols.iter().map(|v| ephemeral_vol(v)).collect());
        p.obj.metadata.uid = Some(uid.into());
        p
    }

    fn ephemeral_claim(pod: &Pod, vol: &str, owned: bool) -> core::PersistentVolumeClaim {
        let mut c = with_class(self::pvc("test", &format!("{}-{vol}", pod.key.name)), "csi-sc");
        if owned {
            c.metadata.owner_references = Some(vec![OwnerReference {
                kind: "Pod".into(),
                name: pod.key.name.to_string(),
                uid: pod.obj.metadata.uid.clone().unwrap_or_default(),
                controller: Some(true),
                ..Default::default()
            }]);
        }
        c
    }

    /// The fixtures of csi_test.go: for each driver four PVs/PVCs `csi-<driver>-<j>`, plus
    /// `csi-4` (unbound, class csi-sc), `csi-5` (no class), `csi-6` (missing PV, class csi-sc).
    struct Case {
        new_pod: Pod,
        existing: Vec<Pod>,
        extra_claims: Vec<core::PersistentVolumeClaim>,
        max_vols: i32,
        drivers: &'static [&'static str],
        limit_source: &'static str,
        /// `vaCount`: for each driver, VolumeAttachments `va-<driver>-<j>` of the PVs
        /// `csi-<driver>-<j>` (j < va_count) on the test node, attached by the driver.
        va_count: usize,
        /// Further VolumeAttachments.
        vas: Vec<storage::VolumeAttachment>,
        version: Release,
        /// Gates over the version's defaults.
        gates: &'static str,
        /// A CSIDriver object for the first driver, with this preventPodSchedulingIfMissing.
        csi_driver: Option<bool>,
    }

    impl Case {
        fn new(
            new_pod: Pod,
            existing: Vec<Pod>,
            max_vols: i32,
            drivers: &'static [&'static str],
            limit_source: &'static str,
        ) -> Self {
            Case {
                new_pod,
                existing,
                extra_claims: vec![],
                max_vols,
                drivers,
                limit_source,
                va_count: 0,
                vas: vec![],
                version: Release::OLDEST,
                gates: "",
                csi_driver: None,
            }
        }
    }

    fn run(c: Case) -> (Code, Status) {
        let mut w = World {
            nodes: vec![node(NODE, &[])],
            ..Default::default()
        };
        for d in c.drivers {
            for j in 0..4 {
                let name = format!("csi-{d}-{j}");
                let mut v = pv(&name);
                let spec = v.spec.get_or_insert_with(Default::default);
                match *d {
                    EBS_IN_TREE => {
                        spec.aws_elastic_block_store = Some(core::AWSElasticBlockStoreVolumeSource {
                            volume_id: name.clone(),
                            ..Default::default()
                        })
                    }
                    HOSTPATH_IN_TREE => {
                        spec.host_path = Some(core::HostPathVolumeSource {
                            path: "/tmp".into(),
                            type_: None,
                        })
                    }
                    _ => {
                        spec.csi = Some(core::CSIPersistentVolumeSource {
                            driver: (*d).into(),
                            volume_handle: name.clone(),
                            ..Default::default()
                        })
                    }
                }
                w.pvs.push(v);
                let mut claim = pvc("", &name);
                claim.spec.get_or_insert_with(Default::default).volume_name = Some(name);
                w.pvcs.push(claim);
            }
        }
        w.pvcs.push(with_class(pvc("", "csi-4"), "csi-sc"));
        w.pvcs.push(pvc("", "csi-5"));
        let mut missing = with_class(pvc("", "csi-6"), "csi-sc");
        missing.spec.get_or_insert_with(Default::default).volume_name = Some("missing-in-action".into());
        w.pvcs.push(missing);
        w.pvcs.extend(c.extra_claims);
        for d in c.drivers {
            for j in 0..c.va_count {
                let pv = format!("csi-{d}-{j}");
                w.volume_attachments
                    .push(volume_attachment(&format!("va-{d}-{j}"), NODE, d, Some(&pv)));
            }
        }
        w.volume_attachments.extend(c.vas);
        w.classes.push(class("csi-sc", "Immediate", c.drivers[0]));
        if let Some(prevent) = c.csi_driver {
            w.csi_drivers.push(storage::CSIDriver {
                metadata: meta("", c.drivers[0]),
                spec: storage::CSIDriverSpec {
                    prevent_pod_scheduling_if_missing: Some(prevent),
                    ..Default::default()
                },
            });
        }
        if c.limit_source == "no-csi-driver" {
            w.csi_nodes.push(storage::CSINode {
                metadata: meta("", NODE),
                ..Default::default()
            });
        }
        let with_limits = match c.limit_source {
            "csinode" => Some(true),
            "csinode-with-no-limit" => Some(false),
            _ => None,
        };
        if let Some(limits) = with_limits {
            let mut n = storage::CSINode {
                metadata: meta("", NODE),
                ..Default::default()
            };
            n.metadata.annotations = Some(BTreeMap::from([(
                ANN_MIGRATED_PLUGINS.to_string(),
                EBS_IN_TREE.to_string(),
            )]));
            for d in c.drivers {
                n.spec.drivers.push(storage::CSINodeDriver {
                    name: (*d).into(),
                    node_id: NODE.into(),
                    allocatable: limits.then_some(storage::VolumeNodeResources {
                        count: Some(c.max_vols),
                    }),
                    topology_keys: None,
                });
            }
            w.csi_nodes.push(n);
        }
        for (i, mut p) in c.existing.into_iter().enumerate() {
            // Keep names (ephemeral claims are named after their pod) unless they repeat.
            if w.pods.iter().any(|q| q.key == p.key) {
                p.key.name = format!("existing-{i}").into();
            }
            p.uid = format!("existing-{i}").into();
            p.node_name = Some(NODE.into());
            w.pods.push(p);
        }
        let s = w.snapshot();
        let cx = Ctx { snapshot: &s };
        let features = crate::engine::release::Features::with_gates(
            c.version,
            &crate::engine::release::FeatureGates::parse(c.gates).expect("gates"),
        )
        .expect("features");
        let pl = CsiLimits::new(&features);
        let pod = info(c.new_pod);
        let mut state = CycleState::default();
        let (_, pre) = pl.pre_filter(&cx, &mut state, &pod);
        if pre.is_skip() {
            return (pre.code, Status::success());
        }
        (pre.code, pl.filter(&cx, &state, &pod, node_info(&s, NODE)))
    }

    /// csi_test.go TestVolumeLimitScalingGate (1.36 tests, the gate beta and on in 1.37): a
    /// driver whose CSIDriver opts in with preventPodSchedulingIfMissing must be on the node.
    #[test]
    #[allow(clippy::type_complexity)] // a case table
    fn volume_limit_scaling_gate() {
        let ebs = "ebs.csi.aws.com";
        let drivers: &'static [&'static str] = &["ebs.csi.aws.com"];
        let cases: &[(&str, &str, &str, i32, Option<bool>, Status)] = &[
            (
                "gate enabled - allow scheduling when CSIDriver exists but PreventPodSchedulingIfMissing is not set",
                "VolumeLimitScaling=true",
                "no-csi-driver",
                0,
                Some(false),
                Status::success(),
            ),
            (
                "gate enabled - fail when driver not installed and PreventPodSchedulingIfMissing is true",
                "VolumeLimitScaling=true",
                "no-csi-driver",
                0,
                Some(true),
                Status::unschedulable("ebs.csi.aws.com CSI driver is not installed on the node"),
            ),
            (
                "gate disabled - skip driver presence check (regardless of CSIDriver presence)",
                "",
                "no-csi-driver",
                0,
                Some(true),
                Status::success(),
            ),
            (
                "gate enabled - driver installed within limit",
                "VolumeLimitScaling=true",
                "csinode",
                2,
                Some(true),
                Status::success(),
            ),
            (
                "gate enabled - allow scheduling when CSIDriver object missing",
                "VolumeLimitScaling=true",
                "no-csi-driver",
                0,
                None,
                Status::success(),
            ),
        ];
        for (name, gates, source, limit, driver, want) in cases {
            let mut c = Case::new(
                pod("", "p", vec![pvc_vol("v", &format!("csi-{ebs}-0"))]),
                vec![],
                *limit,
                drivers,
                source,
            );
            c.version = Release::at(36);
            c.gates = gates;
            c.csi_driver = *driver;
            assert_eq!(run(c).1, *want, "{name}");
        }
        // 1.37: the gate is on by default.
        let mut c = Case::new(
            pod("", "p", vec![pvc_vol("v", &format!("csi-{ebs}-0"))]),
            vec![],
            0,
            drivers,
            "no-csi-driver",
        );
        c.version = Release::at(37);
        c.csi_driver = Some(true);
        assert_eq!(
            run(c).1,
            Status::unschedulable("ebs.csi.aws.com CSI driver is not installed on the node")
        );
        // 1.35's check ignores the opt-in: any CSIDriver object makes it required.
        let mut c = Case::new(
            pod("", "p", vec![pvc_vol("v", &format!("csi-{ebs}-0"))]),
            vec![],
            0,
            drivers,
            "no-csi-driver",
        );
        c.version = Release::at(35);
        c.gates = "VolumeLimitScaling=true";
        c.csi_driver = Some(false);
        assert_eq!(
            run(c).1,
            Status::unschedulable("ebs.csi.aws.com CSI driver is not installed on the node")
        );
    }

    fn all_versions() -> impl Iterator<Item = Release> {
        Release::known().iter().copied()
    }

    fn exceeded() -> Status {
        Status::unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
    }

    #[test]
    fn csi_limits_table() {
        // csi_test.go TestCSILimits, the cases without VolumeAttachments (see
        // `csi_limits_volume_attachments` for the others)
        let csi_ebs_one = || pvc_pod("csi-ebs-one", &["csi-ebs.csi.aws.com-0"]);
        let csi_ebs_two = || pvc_pod("csi-ebs-two", &["csi-ebs.csi.aws.com-1", "csi-ebs.csi.aws.com-2"]);
        let running = || pvc_pod("running", &["csi-ebs.csi.aws.com-3"]);
        let pending = || pvc_pod("pending", &["csi-4"]);
        let pending2 = || pvc_pod("pending2", &["csi-4"]);
        let missing_pv = || pvc_pod("missing-pv", &["csi-6"]);
        let no_sc = || pvc_pod("no-sc", &["csi-5"]);
        let gce_two = || {
            pvc_pod(
                "gce-two",
                &["csi-pd.csi.storage.gke.io-1", "csi-pd.csi.storage.gke.io-2"],
            )
        };
        let in_tree_one = || pvc_pod("in-tree-one", &["csi-kubernetes.io/aws-ebs-0"]);
        let in_tree_two = || {
            pvc_pod(
                "in-tree-two",
                &["csi-kubernetes.io/aws-ebs-1", "csi-kubernetes.io/aws-ebs-2"],
            )
        };
        let non_migratable = || pvc_pod("hostpath", &["csi-kubernetes.io/hostpath-0"]);
        let inline = || ebs_inline_pod("inline", "aws-inline1");
        let inline_same_id = || ebs_inline_pod("inline-same", "csi-ebs.csi.aws.com-1");
        let ebs: &[&str] = &[EBS_CSI];
        let ebs_gce: &[&str] = &[EBS_CSI, GCE_CSI];
        let migr: &[&str] = &[EBS_IN_TREE, EBS_CSI];
        let hostpath: &[&str] = &[HOSTPATH_IN_TREE, EBS_CSI];
        let ok = Status::success();
        // Without VolumeAttachments every release answers the same.
        let case = |name: &str, new_pod: Pod, existing: Vec<Pod>, max_vols, drivers, limit_source, want: Status| {
            for version in all_versions() {
                let mut c = Case::new(new_pod.clone(), existing.clone(), max_vols, drivers, limit_source);
                c.version = version;
                assert_eq!(run(c), (Code::Success, want.clone()), "{name} ({version})");
            }
        };
        case(
            "fits when limit >= new CSI volume",
            csi_ebs_one(),
            vec![running(), csi_ebs_two()],
            4,
            ebs,
            "csinode",
            ok.clone(),
        );
        case(
            "doesn't when limit <= CSI volumes",
            csi_ebs_one(),
            vec![running(), csi_ebs_two()],
            2,
            ebs,
            "csinode",
            exceeded(),
        );
        case(
            "driver without limits",
            csi_ebs_one(),
            vec![running(), csi_ebs_two()],
            2,
            ebs,
            "csinode-with-no-limit",
            ok.clone(),
        );
        case(
            "count pending PVCs",
            csi_ebs_one(),
            vec![pending(), csi_ebs_two()],
            2,
            ebs,
            "csinode",
            exceeded(),
        );
        case(
            "same pending PVC counted once",
            csi_ebs_one(),
            vec![pending(), pending2(), csi_ebs_two()],
            4,
            ebs,
            "csinode",
            ok.clone(),
        );
        case(
            "invalid PV name, valid SC",
            csi_ebs_one(),
            vec![missing_pv(), csi_ebs_two()],
            2,
            ebs,
            "csinode",
            exceeded(),
        );
        case(
            "missing SC not counted",
            csi_ebs_one(),
            vec![running(), no_sc()],
            2,
            ebs,
            "csinode",
            ok.clone(),
        );
        case(
            "same type counted",
            csi_ebs_one(),
            vec![gce_two(), csi_ebs_two()],
            2,
            ebs_gce,
            "csinode",
            exceeded(),
        );
        case(
            "different type not counted",
            gce_two(),
            vec![csi_ebs_two(), running()],
            2,
            ebs_gce,
            "csinode",
            ok.clone(),
        );
        case(
            "in-tree counted with migration",
            in_tree_one(),
            vec![in_tree_two()],
            2,
            migr,
            "csinode",
            exceeded(),
        );
        case("nil csi node", inline(), vec![in_tree_two()], 0, migr, "", ok.clone());
        case(
            "unbound in-tree counted with migration",
            pending(),
            vec![in_tree_two()],
            2,
            migr,
            "csinode",
            exceeded(),
        );
        case(
            "volume without reported limits",
            in_tree_one(),
            vec![in_tree_two()],
            2,
            migr,
            "csinode-with-no-limit",
            ok.clone(),
        );
        case(
            "non-migratable in-tree not counted",
            non_migratable(),
            vec![csi_ebs_two()],
            2,
            hostpath,
            "csinode",
            ok.clone(),
        );
        case(
            "in-tree inline counted",
            inline(),
            vec![in_tree_two()],
            2,
            migr,
            "csinode",
            exceeded(),
        );
        case(
            "in-tree and csi (scheduling in-tree)",
            in_tree_one(),
            vec![csi_ebs_two()],
            2,
            migr,
            "csinode",
            exceeded(),
        );
        case(
            "in-tree, inline and csi",
            inline(),
            vec![csi_ebs_two(), in_tree_one()],
            3,
            migr,
            "csinode",
            exceeded(),
        );
        case(
            "inline with the same CSI handle",
            inline_same_id(),
            vec![csi_ebs_two(), in_tree_one()],
            3,
            migr,
            "csinode",
            ok.clone(),
        );
        case(
            "in-tree and csi (scheduling csi)",
            csi_ebs_one(),
            vec![in_tree_two()],
            2,
            migr,
            "csinode",
            exceeded(),
        );
    }

    #[test]
    fn csi_limits_ephemeral_and_skip() {
        let eph = || ephemeral_pod("abc", "12345", &["xyz"]);
        let base = |new_pod: Pod, existing, extra, max_vols, limit_source| Case {
            extra_claims: extra,
            ..Case::new(new_pod, existing, max_vols, &[EBS_CSI], limit_source)
        };
        let got = run(base(eph(), vec![], vec![], 0, "csinode-with-no-limit"));
        assert_eq!(
            got,
            (
                Code::Success,
                Status::unresolvable("looking up PVC test/abc-xyz: persistentvolumeclaim \"abc-xyz\" not found")
            ),
            "ephemeral volume missing"
        );
        let not_owned = ephemeral_claim(&eph(), "xyz", false);
        let got = run(base(eph(), vec![], vec![not_owned], 0, "csinode-with-no-limit"));
        assert_eq!(
            got,
            (
                Code::Success,
                Status::error("PVC test/abc-xyz was not created for pod test/abc (pod is not owner)")
            ),
            "ephemeral volume not owned"
        );
        let owned = || ephemeral_claim(&eph(), "xyz", true);
        assert_eq!(
            run(base(eph(), vec![], vec![owned()], 0, "csinode-with-no-limit")),
            (Code::Success, Status::success())
        );
        let running = || pvc_pod("running", &["csi-ebs.csi.aws.com-3"]);
        let csi_ebs_two = || pvc_pod("csi-ebs-two", &["csi-ebs.csi.aws.com-1", "csi-ebs.csi.aws.com-2"]);
        let got = run(base(eph(), vec![running(), csi_ebs_two()], vec![owned()], 2, "csinode"));
        assert_eq!(got, (Code::Success, exceeded()), "ephemeral over the limit");
        let two = ephemeral_pod("abc", "12345II", &["x", "y"]);
        let claims = vec![ephemeral_claim(&two, "x", true), ephemeral_claim(&two, "y", true)];
        let got = run(base(
            pvc_pod("one", &["csi-ebs.csi.aws.com-0"]),
            vec![running(), two],
            claims,
            2,
            "csinode",
        ));
        assert_eq!(got, (Code::Success, exceeded()), "existing ephemeral volumes count");
        let existing = || vec![running(), eph(), csi_ebs_two()];
        let got = run(base(
            pvc_pod("one", &["csi-ebs.csi.aws.com-0"]),
            existing(),
            vec![owned()],
            3,
            "csinode",
        ));
        assert_eq!(got, (Code::Success, exceeded()));
        let got = run(base(
            pvc_pod("one", &["csi-ebs.csi.aws.com-0"]),
            existing(),
            vec![owned()],
            5,
            "csinode",
        ));
        assert_eq!(got, (Code::Success, Status::success()));
        // Only configmaps and secrets: PreFilter skips.
        let cm = pod(
            "",
            "cm",
            vec![
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
            ],
        );
        assert_eq!(run(base(cm, vec![], vec![], 2, "csinode")).0, Code::Skip);
        // An inline migratable volume among configmaps does not skip.
        let in_tree_two = pvc_pod(
            "in-tree-two",
            &["csi-kubernetes.io/aws-ebs-1", "csi-kubernetes.io/aws-ebs-2"],
        );
        let mut c = base(
            ebs_inline_pod("inline", "aws-inline1"),
            vec![in_tree_two],
            vec![],
            2,
            "csinode",
        );
        c.drivers = &[EBS_IN_TREE, EBS_CSI];
        assert_eq!(run(c), (Code::Success, exceeded()));
    }

    #[test]
    fn csi_limits_volume_attachments() {
        // csi_test.go TestCSILimits (1.32+), the cases with `vaCount`: with no pod on the node,
        // VolumeAttachments of csi-ebs.csi.aws.com-0 and -1 fill a limit of 2 (the incoming
        // pod's own volume -0 among them: attachments are not checked against the new pod's
        // volumes); one attachment leaves room. 1.30 and 1.31 read no VolumeAttachments.
        let csi_ebs_one = || pvc_pod("csi-ebs-one", &["csi-ebs.csi.aws.com-0"]);
        for version in all_versions() {
            let counts = Features::new(version).has(Change::CsiLimitsCountVolumeAttachments);
            let c = Case {
                va_count: 2,
                version,
                ..Case::new(csi_ebs_one(), vec![], 2, &[EBS_CSI], "csinode")
            };
            let want = if counts { exceeded() } else { Status::success() };
            assert_eq!(
                run(c),
                (Code::Success, want),
                "should count VolumeAttachments towards volume limit when no pods exist ({version})"
            );
            let c = Case {
                va_count: 1,
                version,
                ..Case::new(csi_ebs_one(), vec![], 2, &[EBS_CSI], "csinode")
            };
            assert_eq!(
                run(c),
                (Code::Success, Status::success()),
                "should schedule pod when VolumeAttachments count does not exceed limit ({version})"
            );
        }
    }

    #[test]
    fn csi_limits_which_volume_attachments_count() {
        // getNodeVolumeAttachmentInfo's rules, one attachment at a time, in 1.32-1.34: the new
        // pod's volume csi-ebs.csi.aws.com-0 fits a limit of 1 unless the attachment counts.
        let one = || pvc_pod("csi-ebs-one", &["csi-ebs.csi.aws.com-0"]);
        let migr: &'static [&'static str] = &[EBS_IN_TREE, EBS_CSI];
        let mut inline = volume_attachment("va-inline", NODE, EBS_CSI, None);
        inline.spec.source.inline_volume_spec = Some(core::PersistentVolumeSpec {
            csi: Some(core::CSIPersistentVolumeSource {
                driver: EBS_CSI.into(),
                volume_handle: "inline-handle".into(),
                ..Default::default()
            }),
            ..Default::default()
        });
        let mut detached = volume_attachment("va-detached", NODE, EBS_CSI, Some("csi-ebs.csi.aws.com-3"));
        detached.status = Some(storage::VolumeAttachmentStatus {
            attached: false,
            ..Default::default()
        });
        let cases: Vec<(&str, Vec<storage::VolumeAttachment>, bool)> = vec![
            (
                "on the node, CSI PV",
                vec![volume_attachment("va", NODE, EBS_CSI, Some("csi-ebs.csi.aws.com-3"))],
                true,
            ),
            ("status.attached false still counts", vec![detached], true),
            (
                "another node",
                vec![volume_attachment(
                    "va",
                    "other-node",
                    EBS_CSI,
                    Some("csi-ebs.csi.aws.com-3"),
                )],
                false,
            ),
            (
                "no attacher",
                vec![volume_attachment("va", NODE, "", Some("csi-ebs.csi.aws.com-3"))],
                false,
            ),
            ("inline volume spec, no PV name", vec![inline], false),
            (
                "PV missing",
                vec![volume_attachment("va", NODE, EBS_CSI, Some("no-such-pv"))],
                false,
            ),
            (
                "in-tree PV (not translated)",
                vec![volume_attachment(
                    "va",
                    NODE,
                    EBS_CSI,
                    Some("csi-kubernetes.io/aws-ebs-3"),
                )],
                false,
            ),
            (
                "counted for its attacher, not the PV's driver",
                vec![volume_attachment(
                    "va",
                    NODE,
                    "other.csi.example.com",
                    Some("csi-ebs.csi.aws.com-3"),
                )],
                false,
            ),
            (
                "two attachments of one volume count once",
                vec![
                    volume_attachment("va-a", NODE, EBS_CSI, Some("csi-ebs.csi.aws.com-3")),
                    volume_attachment("va-b", NODE, EBS_CSI, Some("csi-ebs.csi.aws.com-3")),
                ],
                true,
            ),
        ];
        for (name, vas, counts) in cases {
            for version in all_versions() {
                let c = Case {
                    vas: vas.clone(),
                    version,
                    ..Case::new(one(), vec![], 1, migr, "csinode")
                };
                let want = if counts && Features::new(version).has(Change::CsiLimitsCountVolumeAttachments) {
                    exceeded()
                } else {
                    Status::success()
                };
                assert_eq!(run(c), (Code::Success, want), "{name} ({version})");
            }
        }
        // Two attachments of one volume with a limit of 2: counted once, the pod fits.
        let vas = vec![
            volume_attachment("va-a", NODE, EBS_CSI, Some("csi-ebs.csi.aws.com-3")),
            volume_attachment("va-b", NODE, EBS_CSI, Some("csi-ebs.csi.aws.com-3")),
        ];
        for version in all_versions() {
            let c = Case {
                vas: vas.clone(),
                version,
                ..Case::new(one(), vec![], 2, migr, "csinode")
            };
            assert_eq!(run(c), (Code::Success, Status::success()), "deduplicated ({version})");
        }
    }

    #[test]
    fn csi_limits_volume_attachments_of_the_nodes_pods_count_once() {
        // An attachment of a volume a pod on the node uses is that pod's volume: not counted
        // again. One of another volume counts (1.32+).
        let existing = || vec![pvc_pod("running", &["csi-ebs.csi.aws.com-3"])];
        let new_pod = || pvc_pod("csi-ebs-one", &["csi-ebs.csi.aws.com-0"]);
        for version in all_versions() {
            let c = Case {
                vas: vec![volume_attachment("va", NODE, EBS_CSI, Some("csi-ebs.csi.aws.com-3"))],
                version,
                ..Case::new(new_pod(), existing(), 2, &[EBS_CSI], "csinode")
            };
            assert_eq!(run(c), (Code::Success, Status::success()), "same volume ({version})");
            let c = Case {
                vas: vec![volume_attachment("va", NODE, EBS_CSI, Some("csi-ebs.csi.aws.com-2"))],
                version,
                ..Case::new(new_pod(), existing(), 2, &[EBS_CSI], "csinode")
            };
            let want = if Features::new(version).has(Change::CsiLimitsCountVolumeAttachments) {
                exceeded()
            } else {
                Status::success()
            };
            assert_eq!(run(c), (Code::Success, want), "another volume ({version})");
        }
    }

    #[test]
    fn node_allocatable_limits_apply_without_csinode_counts() {
        let mut w = World {
            nodes: vec![node_alloc("n", &[], &[("attachable-volumes-csi-csi.example.com", "1")])],
            classes: vec![class("sc", "WaitForFirstConsumer", "csi.example.com")],
            pvcs: vec![
                with_class(pvc("default", "a"), "sc"),
                with_class(pvc("default", "b"), "sc"),
            ],
            ..Default::default()
        };
        w.pods.push(pod_on("default", "old", "n", vec![pvc_vol("v", "a")]));
        let s = w.snapshot();
        let cx = Ctx { snapshot: &s };
        let pl = CsiLimits::new(&Release::OLDEST.into());
        let state = CycleState::default();
        let p = info(pod("default", "p", vec![pvc_vol("v", "b")]));
        assert_eq!(pl.filter(&cx, &state, &p, node_info(&s, "n")), exceeded());
        let same = info(pod("default", "p2", vec![pvc_vol("v", "a")]));
        assert_eq!(
            pl.filter(&cx, &state, &same, node_info(&s, "n")),
            Status::success(),
            "already attached"
        );
        // 1.31 still reads the node's allocatable; 1.32 (getVolumeLimits over the CSINode only)
        // has no limit for the driver here.
        for (minor, want) in [(31, exceeded()), (32, Status::success()), (34, Status::success())] {
            let pl = CsiLimits::new(&Release::at(minor).into());
            assert_eq!(pl.filter(&cx, &state, &p, node_info(&s, "n")), want, "1.{minor}");
        }
    }
}
