//! Upstream scheduler releases whose behaviour the engine reproduces. Where releases differ
//! (messages, default plugins, feature gates), the engine asks the version.
//!
//! Patch releases: "1.30" is v1.30.6 (the conformance corpus). The newer minors follow their
//! latest patch release: where a fix was cherry-picked into a later patch, the minor has it
//! (each method says so). Sources read: v1.31.2 and v1.31.8, v1.32.5, v1.33.3 (plus the
//! v1.33.6 release notes), v1.34.1 and v1.34.7.

use std::fmt;
use std::str::FromStr;

/// A kube-scheduler minor release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Minor version (1.`minor`).
    pub minor: u32,
}

impl Version {
    /// A pod's requests as this release computes them (`PodRequests`): the status-reported
    /// container resources from 1.33 and the pod-level requests from 1.34, when the pod has
    /// them. Every front end shows these, so a node's usage adds up as the scheduler's does.
    pub fn requests_of(self, pod: &crate::model::Pod) -> &crate::model::resources::PodRequests {
        if self.pod_level_resources()
            && let Some(r) = &pod.requests_pod_level
        {
            return r;
        }
        if self.pod_requests_use_status()
            && let Some(r) = &pod.requests_status
        {
            return r;
        }
        &pod.requests
    }

    /// The oldest release reproduced.
    pub const OLDEST: Version = Version { minor: 30 };
    /// The newest release reproduced (the default).
    pub const NEWEST: Version = Version { minor: 34 };

    /// 1.30: in-tree EBSLimits/GCEPDLimits/AzureDiskLimits in the default profile.
    pub fn has_in_tree_volume_limits(self) -> bool {
        self.minor <= 30
    }

    /// TaintToleration names the first untolerated taint in its reason ("node(s) had
    /// untolerated taint {key: value}") up to 1.33; upstream #134740 (1.35, cherry-picked to
    /// 1.34 as #135023: v1.34.1 still names it, v1.34.7 does not) prints "node(s) had
    /// untolerated taint(s)". v1.31.8, v1.32.5 and v1.33.3 name the taint.
    pub fn taint_reason_lists_taint(self) -> bool {
        self.minor <= 33
    }

    /// MatchLabelKeysInPodAffinity is on (beta) from 1.31.
    pub fn match_label_keys_in_pod_affinity(self) -> bool {
        self.minor >= 31
    }

    /// 1.31+: `RunPreFilterPlugins` keeps the plugins whose PreFilterResult narrowed the nodes in
    /// a set, so "node(s) didn't satisfy plugin(s) [...] simultaneously" lists them sorted by
    /// name (and they count as unschedulable plugins); 1.30 lists them in execution order
    /// (framework/runtime/framework.go).
    pub fn prefilter_result_plugins_sorted(self) -> bool {
        self.minor >= 31
    }

    /// 1.32+: `Diagnosis.NodeToStatus` has an absent-nodes status (framework/types.go, upstream
    /// #126022). Nodes a PreFilterResult leaves out get "node(s) didn't satisfy plugin(s)
    /// [...]" (UnschedulableAndUnresolvable, schedule_one.go `findNodesThatFitPod`), which
    /// `FitError.Error` counts once per absent node; DefaultPreemption's "no candidate" message
    /// counts every node of the snapshot, the ones it did not try as "Preemption is not helpful
    /// for scheduling". Before, absent nodes have no status and are not counted.
    pub fn absent_nodes_status(self) -> bool {
        self.minor >= 32
    }

    /// 1.30: VolumeBinding's PreFilter narrows the nodes to those named by the hostname node
    /// affinity of the local PVs bound to the pod's claims (`GetEligibleNodes`, upstream
    /// #109877). 1.32.0 removed it (framework/plugins/volumebinding/binder.go) and a 1.31 patch
    /// did too (v1.31.2 has it, v1.31.8 does not).
    pub fn volume_binding_eligible_nodes(self) -> bool {
        self.minor <= 30
    }

    /// 1.33+: NodeResourcesBalancedAllocation's PreScore returns Skip for a pod that requests
    /// none of its resources (best effort), so its Score does not run
    /// (noderesources/balanced_allocation.go `isBestEffortPod`).
    pub fn balanced_allocation_skips_best_effort(self) -> bool {
        self.minor >= 33
    }

    /// 1.34+: NodeResourcesFit's Filter returns UnschedulableAndUnresolvable when the pod asks
    /// for more of a resource than the node's allocatable, as preemption cannot help there
    /// (noderesources/fit.go `fitsRequest`, upstream #131345); before, always Unschedulable.
    pub fn fit_unresolvable_beyond_allocatable(self) -> bool {
        self.minor >= 34
    }

    /// 1.33+: the host ports of restartable (sidecar) init containers count, for the incoming
    /// pod's NodePorts check and for the ports a node's pods hold (scheduler/util
    /// `GetHostPorts`, framework/types.go `updateUsedPorts`): upstream #132040 in 1.34.0,
    /// cherry-picked to 1.33 as #133390 (in v1.33.6, not in v1.33.3). Before, regular
    /// containers only.
    pub fn sidecar_host_ports(self) -> bool {
        self.minor >= 33
    }

    /// 1.30: a configuration may enable the in-tree volume limits plugins (EBSLimits,
    /// GCEPDLimits, AzureDiskLimits). 1.31 dropped them from the default profile and its
    /// configuration validation rejects them ("was invalid in version ...",
    /// apis/config/validation `invalidPluginsByVersion`); 1.32 removed their code
    /// (nodevolumelimits/non_csi.go) and registry entries.
    pub fn in_tree_volume_limits_registered(self) -> bool {
        self.minor <= 30
    }

    /// 1.30 and 1.31: NodeVolumeLimits also takes a driver's limit from the node's allocatable
    /// `attachable-volumes-csi-<driver>` when its CSINode gives no count; from 1.32 only the
    /// CSINode's `allocatable.count` sets limits (nodevolumelimits/csi.go `getVolumeLimits`).
    pub fn csi_limits_from_node_allocatable(self) -> bool {
        self.minor <= 31
    }

    /// 1.32+: NodeVolumeLimits also counts the CSI volumes that storage.k8s.io/v1
    /// VolumeAttachments attach to the node (nodevolumelimits/csi.go `Filter` and
    /// `getNodeVolumeAttachmentInfo`, new in 1.32.0, no feature gate): each attachment whose
    /// `spec.nodeName` is the node, with an attacher and a `source.persistentVolumeName` naming
    /// an existing PV with a `csi` source, is the volume `<attacher>/<volumeHandle>` of the
    /// attacher's limit, counted unless a pod on the node already uses that volume
    /// (`status.attached` is not looked at; inline-spec attachments are not counted). 1.30 and
    /// 1.31 do not read VolumeAttachments.
    pub fn csi_limits_count_volume_attachments(self) -> bool {
        self.minor >= 32
    }

    /// 1.33+: VolumeBinding says "node(s) didn't match PersistentVolume's node affinity" where
    /// 1.30-1.32 say "node(s) had volume node affinity conflict" (volumebinding/binder.go
    /// `ErrReasonNodeConflict`).
    pub fn pv_node_affinity_reason_renamed(self) -> bool {
        self.minor >= 33
    }

    /// 1.31+: VolumeBinding's `FindMatchingVolume` looks at volumeAttributesClassName
    /// (component-helpers/storage/volume/pv_helpers.go). With the VolumeAttributesClass gate
    /// off (1.31-1.33, beta off by default) a claim naming one is an error and PVs naming one
    /// are skipped; with it on (GA in 1.34) claim and PV must name the same class. 1.30 ignores
    /// the field.
    pub fn volume_binding_checks_attributes_class(self) -> bool {
        self.minor >= 31
    }

    /// 1.34+: the VolumeAttributesClass feature gate is on (GA).
    pub fn volume_attributes_class_enabled(self) -> bool {
        self.minor >= 34
    }

    /// 1.34+: VolumeRestrictions' ReadWriteOncePod reason reads "node(s) unavailable due to
    /// PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
    /// (volumerestrictions/volume_restrictions.go `ErrReasonReadWriteOncePodConflict`).
    pub fn rwop_reason_renamed(self) -> bool {
        self.minor >= 34
    }

    /// 1.32+: a pod's non-zero CPU and memory requests (what scoring counts for a pod on a
    /// node) come from `PodRequests` with `NonMissingContainerRequests`
    /// (framework/types.go `calculateResource`): restartable init containers add to the sum.
    /// 1.30 and 1.31 count them only through the init-container maximum.
    pub fn non_zero_requests_count_sidecars(self) -> bool {
        self.minor >= 32
    }

    /// 1.33+: InPlacePodVerticalScaling is on (beta), so a pod's requests take the larger of
    /// spec, status and allocated requests of each container whose status reports resources
    /// (component-helpers/resource `UseStatusResources`).
    pub fn pod_requests_use_status(self) -> bool {
        self.minor >= 33
    }

    /// 1.34+: PodLevelResources is on (beta): spec.resources.requests (cpu, memory,
    /// hugepages-*) stand for the pod's requests of those resources, for NodeResourcesFit,
    /// scoring and the node's accounting (component-helpers/resource `PodRequests`).
    pub fn pod_level_resources(self) -> bool {
        self.minor >= 34
    }

    /// 1.33+: VolumeBindingArgs with a `shape` and the storage-capacity scoring gate off name
    /// StorageCapacityScoring (it replaced VolumeCapacityPriority) in the error
    /// (apis/config/validation/validation_pluginargs.go).
    pub fn storage_capacity_scoring_gate_name(self) -> &'static str {
        if self.minor >= 33 {
            "StorageCapacityScoring"
        } else {
            "VolumeCapacityPriority"
        }
    }

    /// 1.34+: `validateFunctionShape` says "values must be sorted in increasing order" (before:
    /// "utilization values must be sorted in increasing order").
    pub fn shape_order_message(self) -> &'static str {
        if self.minor >= 34 {
            "values must be sorted in increasing order"
        } else {
            "utilization values must be sorted in increasing order"
        }
    }

    /// 1.34+: DynamicResourceAllocation is GA and on: DynamicResources is in the default
    /// profile (before DefaultPreemption, apis/config/v1/default_plugins.go) and enabled.
    pub fn dynamic_resource_allocation(self) -> bool {
        self.minor >= 34
    }

    /// Clamps a server's minor to the supported range.
    pub fn clamp_minor(minor: u32) -> Version {
        Version {
            minor: minor.clamp(Self::OLDEST.minor, Self::NEWEST.minor),
        }
    }
}

impl Default for Version {
    fn default() -> Self {
        Version::NEWEST
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

impl FromStr for Version {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim().trim_start_matches('v');
        let mut it = t.split('.');
        let (maj, min) = (it.next(), it.next());
        let bad = || {
            format!(
                "'{s}' is not a supported scheduler version (use 1.{} to 1.{}, e.g. 1.30)",
                Self::OLDEST.minor,
                Self::NEWEST.minor
            )
        };
        if maj != Some("1") {
            return Err(bad());
        }
        let minor: u32 = min.and_then(|m| m.parse().ok()).ok_or_else(bad)?;
        if !(Self::OLDEST.minor..=Self::NEWEST.minor).contains(&minor) {
            return Err(bad());
        }
        Ok(Version { minor })
    }
}
