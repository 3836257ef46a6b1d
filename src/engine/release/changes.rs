//! Ungated behaviour changes between releases: each with the upstream PR that made it, the
//! first minor whose .0 release has it, and the patch releases of older minors it was
//! cherry-picked into. `Features::has(Change::X)` says whether a release has it.

use super::Release;

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct ChangeSpec {
    /// The change.
    pub change: Change,
    /// Upstream PR(s), "#NNN".
    pub pr: &'static str,
    /// First minor whose .0 has it.
    pub since_minor: u32,
    /// Cherry-picks: (minor, first patch of that minor that has it).
    pub backports: &'static [(u32, u32)],
    /// What users see.
    pub what: &'static str,
}

impl ChangeSpec {
    /// Whether `release` has the change.
    pub fn in_release(&self, release: Release) -> bool {
        let (minor, patch) = (release.minor(), release.patch());
        minor >= self.since_minor || self.backports.iter().any(|&(m, p)| m == minor && patch >= p)
    }
}

macro_rules! changes {
    ($($(#[$doc:meta])* $name:ident { pr: $pr:expr, since: $since:expr, backports: $bp:expr, what: $what:expr $(,)? }),* $(,)?) => {
        /// An ungated behaviour change.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Change {
            $($(#[$doc])* $name,)*
        }

        /// The table, in the order of the enum.
        pub const CHANGES: &[ChangeSpec] = &[
            $(ChangeSpec { change: Change::$name, pr: $pr, since_minor: $since, backports: $bp, what: $what },)*
        ];

        impl Change {
            /// The change's name (the enum variant's).
            pub fn name(self) -> &'static str {
                match self {
                    $(Change::$name => stringify!($name),)*
                }
            }

            /// Its row.
            pub fn spec(self) -> &'static ChangeSpec {
                &CHANGES[self as usize]
            }
        }
    };
}

changes! {
    /// The in-tree EBSLimits, GCEPDLimits and AzureDiskLimits plugins leave the default profile
    /// and configuration validation rejects them ("was invalid in version"); 1.32 removes
    /// their code and registry entries (#124003).
    InTreeVolumeLimitsRemoved {
        pr: "#124500, #124003", since: 31, backports: &[],
        what: "EBSLimits, GCEPDLimits and AzureDiskLimits are gone from the profile and refused in a configuration",
    },
    /// Validation messages stop repeating the field's name in their detail (component-base's
    /// leaderElection: "must be greater than `RenewDeadline`", was "LeaseDuration must be
    /// greater than RenewDeadline").
    FieldDetailsWithoutFieldName {
        pr: "#132513", since: 34, backports: &[],
        what: "configuration validation details no longer repeat the field's name",
    },
    /// The configuration's plugin sets gain `placementGenerate` and `placementScore` (the
    /// pod-group cycle's placements); older decoders refuse them as unknown fields.
    PlacementExtensionPoints {
        pr: "#137083, #137201", since: 36, backports: &[],
        what: "a configuration may set placementGenerate and placementScore plugins",
    },
    /// TaintToleration's reason stops naming the first untolerated taint.
    TaintReasonWithoutTaint {
        pr: "#134740 (1.34: #135023)", since: 35, backports: &[(34, 2)],
        what: "TaintToleration says \"node(s) had untolerated taint(s)\" instead of naming the taint",
    },
    /// The plugins whose PreFilterResult narrowed the nodes are kept in a set, so the message
    /// lists them sorted by name.
    PreFilterResultPluginsSorted {
        pr: "#122251", since: 31, backports: &[],
        what: "\"node(s) didn't satisfy plugin(s) [...] simultaneously\" lists the plugins sorted",
    },
    /// Nodes a PreFilterResult leaves out get an absent-nodes status, counted in the message.
    AbsentNodesStatus {
        pr: "#126022", since: 32, backports: &[],
        what: "nodes outside PreFilter's set count as \"node(s) didn't satisfy plugin(s) [X]\"",
    },
    /// VolumeBinding's PreFilter stops narrowing the nodes to those of the pod's bound local
    /// PVs (`GetEligibleNodes`, added by #109877 in 1.27).
    VolumeBindingEligibleNodesRemoved {
        pr: "#125398 (1.31: #127584, 1.30: #127585)", since: 32, backports: &[(31, 3), (30, 7)],
        what: "VolumeBinding no longer narrows the nodes to those of bound local PVs",
    },
    /// BalancedAllocation's PreScore skips best-effort pods.
    BalancedAllocationSkipsBestEffort {
        pr: "#130260", since: 33, backports: &[],
        what: "NodeResourcesBalancedAllocation does not score pods without requests",
    },
    /// NodeResourcesFit: a request beyond the node's allocatable is unresolvable.
    FitUnresolvableBeyondAllocatable {
        pr: "#131345", since: 34, backports: &[],
        what: "NodeResourcesFit is UnschedulableAndUnresolvable for a request beyond allocatable",
    },
    /// The host ports of restartable init containers count.
    SidecarHostPorts {
        pr: "#132040 (1.33: #133390)", since: 34, backports: &[(33, 6)],
        what: "NodePorts counts the host ports of sidecar containers",
    },
    /// NodeVolumeLimits no longer reads node allocatable `attachable-volumes-csi-*`.
    CsiLimitsFromCsiNodeOnly {
        pr: "#127757 (with #124003)", since: 32, backports: &[],
        what: "CSI volume limits come from CSINode only",
    },
    /// NodeVolumeLimits counts the volumes VolumeAttachments attach to the node.
    CsiLimitsCountVolumeAttachments {
        pr: "#127757", since: 32, backports: &[],
        what: "NodeVolumeLimits counts VolumeAttachments",
    },
    /// VolumeBinding's node affinity reason is renamed.
    PvNodeAffinityReasonRenamed {
        pr: "#129887", since: 33, backports: &[],
        what: "\"node(s) didn't match PersistentVolume's node affinity\"",
    },
    /// VolumeBinding's FindMatchingVolume looks at volumeAttributesClassName.
    VolumeBindingChecksAttributesClass {
        pr: "#121902", since: 31, backports: &[],
        what: "PV matching compares volumeAttributesClassName",
    },
    /// VolumeRestrictions' ReadWriteOncePod reason is renamed.
    RwopReasonRenamed {
        pr: "#129145", since: 34, backports: &[],
        what: "\"node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod\"",
    },
    /// A pod's non-zero requests count its sidecars (PodRequests with
    /// NonMissingContainerRequests).
    NonZeroRequestsCountSidecars {
        pr: "#127878", since: 32, backports: &[],
        what: "scoring's non-zero requests include sidecar containers",
    },
    /// VolumeBindingArgs validation names StorageCapacityScoring.
    StorageCapacityScoringGateName {
        pr: "#128184", since: 33, backports: &[],
        what: "the shape validation error names StorageCapacityScoring",
    },
    /// `validateFunctionShape` drops "utilization" from its ordering message.
    ShapeOrderMessage {
        pr: "#132513", since: 34, backports: &[],
        what: "\"values must be sorted in increasing order\"",
    },
    /// Preemption re-sorts victims by importance after the reprieve.
    PreemptionVictimsResorted {
        pr: "#128307 (1.31: #128431, 1.30: #128434)", since: 32, backports: &[(31, 3), (30, 7)],
        what: "victims listed most important first",
    },
    /// PodTopologySpread keeps its counts per constraint, not per topology key.
    SpreadCountsPerConstraint {
        pr: "#129119", since: 33, backports: &[],
        what: "two spread constraints on one topology key are counted separately",
    },
    /// DefaultPreemption has a PreEnqueue extension point (it rejects only with
    /// SchedulerAsyncPreemption).
    DefaultPreemptionPreEnqueue {
        pr: "#128170", since: 32, backports: &[],
        what: "DefaultPreemption appears among the PreEnqueue plugins",
    },
    /// DynamicResources is a Score plugin (weight 2 in the default profile): the sum of
    /// `8 - index` of the chosen `firstAvailable` subrequests, normalized to 100 by the maximum.
    DynamicResourcesScores {
        pr: "#134711", since: 35, backports: &[],
        what: "DynamicResources scores nodes (0 for pods without claims) with weight 2",
    },
    /// A failed pod's nominatedNodeName is cleared also when the profile has no PostFilter.
    ClearsNominatedNodeWithoutPostFilter {
        pr: "#135007", since: 35, backports: &[],
        what: "a failing pod loses its nominated node even without PostFilter plugins",
    },
    /// NodeDeclaredFeatures' bitmap rewrite: the Filter reason no longer lists the features.
    NodeDeclaredFeaturesReasonRenamed {
        pr: "#136185", since: 36, backports: &[],
        what: "\"node(s) didn't match Pod's required features\"",
    },
    /// NodeResourcesBalancedAllocation scores how much the pod improves the node's balance:
    /// 50 + (50 + balance with the pod - balance without it) / 2.
    BalancedAllocationScoresImprovement {
        pr: "#135573", since: 36, backports: &[],
        what: "NodeResourcesBalancedAllocation scores the balance improvement (50 to 100)",
    },
    /// ImageLocality adds the images of image volumes (not to the threshold).
    ImageLocalityCountsImageVolumes {
        pr: "#130231", since: 36, backports: &[],
        what: "ImageLocality counts image volumes",
    },
    /// In-tree Portworx volumes are always CSI-migrated (the CSIMigrationPortworx gate is gone).
    PortworxAlwaysMigrated {
        pr: "#135322", since: 36, backports: &[],
        what: "Portworx volumes count as migrated without the CSINode annotation",
    },
    /// NodeResourcesFitArgs: RequestedToCapacityRatio must have requestedToCapacityRatio (and
    /// only it may), its shape errors under that path.
    FitArgsRequestedToCapacityRatioChecked {
        pr: "#132120", since: 36, backports: &[],
        what: "scoringStrategy.requestedToCapacityRatio is required for RequestedToCapacityRatio",
    },
    /// NodeVolumeLimits' driver check (VolumeLimitScaling) only refuses a node for a driver
    /// whose CSIDriver sets `preventPodSchedulingIfMissing`.
    VolumeLimitScalingOptIn {
        pr: "#135012 (1.35 check; the 1.36 opt-in PR was not identified)", since: 36, backports: &[],
        what: "the missing-driver check needs the CSIDriver's preventPodSchedulingIfMissing",
    },
    /// The GangScheduling and WorkloadAwarePreemption gates merge into GenericWorkload.
    GangGatesMergedIntoGenericWorkload {
        pr: "#139520", since: 37, backports: &[],
        what: "GangScheduling is in the profile with GenericWorkload alone",
    },
    /// DynamicResources' PostFilter rejections carry no reason ("no new claims to deallocate"
    /// is gone from the message).
    DynamicResourcesPostFilterWithoutReasons {
        pr: "#140222", since: 37, backports: &[],
        what: "the message no longer says \"no new claims to deallocate\" before \"preemption:\"",
    },
    /// A pod's status-reported resources count as the larger of the sums of spec, actuated and
    /// allocated requests, not the sum of per-container maxima.
    PodRequestsMaxOfSums {
        pr: "#140047", since: 37, backports: &[],
        what: "resized pods count max(sum of spec, sum of actuated, sum of allocated)",
    },
    /// NodeDeclaredFeatures registers four more features; volume mounts with
    /// `bindMountOptions` require VolumeBindMountOptions.
    NodeDeclaredFeaturesVolumeBindMountOptions {
        pr: "#139763 (GA; the VolumeBindMountOptions feature's own PR was not identified)", since: 37, backports: &[],
        what: "a volume mount with bindMountOptions needs a node declaring VolumeBindMountOptions",
    },
    /// A pod waiting at Permit that is preempted fails with an Error, not Unschedulable.
    PreemptedWaitingPodIsError {
        pr: "#135719", since: 36, backports: &[],
        what: "a preempted waiting pod gets \"waiting on permit for pod: preempted\" (Error)",
    },
    /// The DRA allocator (1.35 incubating) skips pools short of slices cluster-wide and
    /// invalid pools, and says "invalid resource pools were encountered" when an allocation
    /// fails where one is invalid; `distinctAttribute` constraints are an error.
    DraAllocatorSkipsIncompletePools {
        pr: "#134189", since: 35, backports: &[],
        what: "DRA: incomplete and invalid pools are skipped; \"invalid resource pools were encountered\"",
    },
    /// The 1.36 DRA allocator: the experimental code (distinctAttribute, consumable capacity,
    /// binding conditions) promoted to incubating, pools sorted by driver and name.
    DraAllocatorPromoted {
        pr: "#132522 (consumable capacity; the 1.36 promotion PR was not identified)", since: 36, backports: &[],
        what: "DRA: distinctAttribute works again, capacity requests are honoured with DRAConsumableCapacity",
    },
    /// A template claim the pod does not own: "... was not created for Pod ... (Pod is not owner)".
    DraClaimOwnerTextCapitalized {
        pr: "#136989", since: 36, backports: &[],
        what: "DRA: \"was not created for Pod <pod> (Pod is not owner)\"",
    },
    /// GangScheduling reads 1.36's PodGroup objects (scheduling.k8s.io/v1alpha2, pods linked by
    /// `spec.schedulingGroup`) instead of 1.35's Workloads (`spec.workloadRef`); no Reserve;
    /// Permit waits a constant 5 minutes.
    GangSchedulingReadsPodGroups {
        pr: "#134722 (1.35 plugin; the 1.36 PodGroup API PR was not identified)", since: 36, backports: &[],
        what: "gang pods name a PodGroup (spec.schedulingGroup); \"waiting for minCount pods from a gang to be scheduled\"",
    },
    /// A DRA selector's CEL runtime error names the device it was evaluated on, and a missing
    /// key gets the hint to use optional chaining or has().
    DraCelErrorNamesDevice {
        pr: "#136709", since: 37, backports: &[],
        what: "DRA: \"selector #i on device D: CEL runtime error: ...\", with a hint for a missing key",
    },
    /// ImageLocality's threshold counts the pod's image volumes with its containers (an image
    /// volume no longer scores above the same image in a container).
    ImageLocalityThresholdCountsImageVolumes {
        pr: "#138951", since: 37, backports: &[],
        what: "ImageLocality's threshold counts image volumes as containers",
    },
    /// With GenericWorkload, pod-by-pod DefaultPreemption takes PodGroup victims: a member is
    /// a victim with its group's priority, and a group whose `disruptionMode` is `all` is one
    /// victim made of every scheduled member, on any node.
    PodGroupVictims {
        pr: "#137981", since: 37, backports: &[],
        what: "preemption (GenericWorkload): PodGroup victims with the group's priority; disruptionMode all evicts the whole group",
    },
    /// When DefaultPreemption finds a node, its PostFilter status says so, and the FitError
    /// (the FailedScheduling event and the PodScheduled message) ends with it.
    PreemptionSuccessMessage {
        pr: "#140180", since: 37, backports: &[],
        what: "a preemptor's message ends with \"preemption: found a potential placement for pod on node N, preempting K victims\"",
    },
    /// GangScheduling reads 1.37's PodGroup objects in scheduling.k8s.io/v1beta1 (v1alpha2 is no
    /// longer served; a group may name a parent CompositePodGroup).
    GangSchedulingReadsV1Beta1PodGroups {
        pr: "#140184", since: 37, backports: &[],
        what: "gang pods' PodGroups are scheduling.k8s.io/v1beta1 objects",
    },
    /// GangScheduling's PlacementFeasible checks a pod group's minCount in the pod-group cycle,
    /// before any member is tried and after each one, and ends the cycle early when the members
    /// left cannot reach it (Permit is still there at 1.37).
    GangSchedulingPlacementFeasible {
        pr: "#138643 (run before any member: #140215)", since: 37, backports: &[],
        what: "\"minCount (N) cannot be satisfied: S scheduled, R remaining\" ends a pod group's cycle",
    },
    /// The host is the root of a max-heap of the scored nodes (`newSortedNodeScores`), not a
    /// uniform sample among the tied ones: without extenders, a deterministic function of the
    /// order the nodes passed Filter.
    HostSelectionHeap {
        pr: "#135231", since: 35, backports: &[],
        what: "among tied nodes, kube-scheduler takes the root of its score heap (deterministic for a visiting order), no longer a random one",
    },
    /// NodeResourcesFit and BalancedAllocation refuse to sign (opportunistic batching) only a
    /// pod requesting an extended resource a DeviceClass maps, not every pod, when
    /// DRAExtendedResource is on.
    SignatureRefusedOnlyForDraBackedRequests {
        pr: "#130653 (DRA extended resources; the 1.36 signature change PR was not identified)", since: 36, backports: &[],
        what: "batching: with DRAExtendedResource, only pods requesting a DRA-backed extended resource are not signed",
    },
    /// DynamicResources' Score reads an allocated claim's own allocation and indexes the new
    /// allocations by the claims that needed one (before, a pod mixing allocated and new
    /// claims failed to score).
    DraScoreIndexesNewAllocations {
        pr: "#139017 (1.35: #139362, 1.36: #139363)", since: 37, backports: &[(35, 6), (36, 2)],
        what: "DRA: a pod with allocated and new claims scores instead of failing",
    },
    /// PodTopologySpread's `countPodsMatchSelector` stops returning 0 for a selector without
    /// requirements: `labelSelector: {}` counts every pod of the namespace (a nil selector
    /// still counts none), in Filter and in Score.
    SpreadCountsEmptySelector {
        pr: "#141340", since: 38, backports: &[],
        what: "PodTopologySpread: `labelSelector: {}` counts every pod of the namespace (it counted none)",
    },
    /// GangScheduling has no Permit: no member waits for the others (no "waiting for minCount
    /// pods from a gang to be scheduled", no 5-minute timeout); PreEnqueue and PlacementFeasible
    /// remain.
    GangSchedulingWithoutPermit {
        pr: "#141182", since: 38, backports: &[],
        what: "GangScheduling has no Permit: no member waits for the quorum, the pod-group cycle's PlacementFeasible decides",
    },
    /// Preemption's PDB check matches a PDB's selector as the API defines it: `{}` covers every
    /// pod of the namespace, unlabeled ones too (up to 1.37 a selector without requirements and
    /// a pod without labels were never matched), in pod-by-pod and pod-group preemption.
    PdbSelectorAsDefined {
        pr: "#141785", since: 38, backports: &[],
        what: "preemption counts a PDB with an empty selector (it covers every pod of its namespace, unlabeled ones too)",
    },
    /// The DRA allocator's `All` request over an incomplete or invalid pool fails that node
    /// (the error wraps `ErrFailedAllocationOnNode`: UnschedulableAndUnresolvable with its text)
    /// instead of the scheduling attempt (Error).
    DraAllModePoolFailsNode {
        pr: "#141898", since: 38, backports: &[],
        what: "DRA: an `All` request over an incomplete or invalid pool fails that node, not the attempt",
    },
    /// The DRA allocator refuses a dedicated allocation of a device that does not allow
    /// multiple allocations while a share of it is live (a slice that stopped allowing them).
    DraLiveShareBlocksDedicated {
        pr: "#140798", since: 38, backports: &[],
        what: "DRA: a device still shared by a claim is in use, even once its slice stops allowing multiple allocations",
    },
    /// DRA consumable capacity: a requested capacity name matches the device's with or without
    /// the driver's domain (the fully-qualified one winning when both are published), and so do
    /// the names recorded in earlier allocations.
    DraCapacityNamesQualified {
        pr: "#142202", since: 38, backports: &[],
        what: "DRA: a capacity request may name the capacity with or without the driver's domain",
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_change_names_its_pr() {
        for c in CHANGES {
            assert!(c.pr.starts_with('#'), "{}", c.change.name());
        }
    }

    #[test]
    fn the_table_follows_the_enum() {
        for (i, c) in CHANGES.iter().enumerate() {
            assert_eq!(c.change as usize, i, "{}", c.change.name());
        }
    }

    #[test]
    fn a_backport_counts_from_its_patch() {
        let r = |s: &str| s.parse::<Release>().unwrap();
        let c = Change::SidecarHostPorts.spec();
        assert!(!c.in_release(r("1.33.3")));
        assert!(c.in_release(r("1.33.6")));
        assert!(c.in_release(r("1.34.0")));
        assert!(!c.in_release(r("1.32.9")));
        let e = Change::VolumeBindingEligibleNodesRemoved.spec();
        assert!(!e.in_release(r("1.30")));
        assert!(e.in_release(r("1.31.8")) && !e.in_release(r("1.31.2")) && !e.in_release(r("1.30.6")));
        assert!(e.in_release(r("1.32")));
    }
}
