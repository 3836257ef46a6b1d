//! Feature gates: the ones the scheduler reads ([`Gate`], named exactly as upstream names
//! them) and every gate kube-scheduler accepts, with its stage, default and lock per release
//! (the table in `gate_table.rs`).

use super::Release;
use super::gate_table::GATE_TABLE;

/// A gate's maturity (component-base featuregate `prerelease`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Alpha.
    Alpha,
    /// Beta.
    Beta,
    /// GA.
    Ga,
    /// Deprecated.
    Deprecated,
    /// Pre-alpha: known but not settable.
    PreAlpha,
}

impl Stage {
    /// Upstream's spelling ("ALPHA", "BETA", "" for GA, "DEPRECATED").
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Alpha => "ALPHA",
            Stage::Beta => "BETA",
            Stage::Ga => "GA",
            Stage::Deprecated => "DEPRECATED",
            Stage::PreAlpha => "PRE-ALPHA",
        }
    }
}

/// A gate at one release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GateSpec {
    /// Maturity.
    pub stage: Stage,
    /// On by default.
    pub default: bool,
    /// Locked to its default (setting the other value is an error).
    pub locked: bool,
}

/// The spec of gate `name` at `release`; None when that release does not know the gate.
pub fn spec(name: &str, release: Release) -> Option<GateSpec> {
    let i = GATE_TABLE.binary_search_by(|(n, _)| (*n).cmp(name)).ok()?;
    parse_cell(GATE_TABLE[i].1, release.column())
}

/// Whether `release` no longer knows a gate that an earlier release had GA and locked on:
/// upstream removes a gate only after locking it, and its behaviour stays (1.38's
/// DynamicResourceAllocation, MatchLabelKeysInPodAffinity, PodSchedulingReadiness).
pub fn gone_on(gate: Gate, release: Release) -> bool {
    if spec(gate.name(), release).is_some() {
        return false;
    }
    Release::known()
        .iter()
        .rev()
        .filter(|r| r.minor() < release.minor())
        .find_map(|r| spec(gate.name(), *r))
        .is_some_and(|s| s.stage == Stage::Ga && s.default && s.locked)
}

/// Every gate `release` knows, sorted by name.
pub fn known_at(release: Release) -> impl Iterator<Item = (&'static str, GateSpec)> {
    GATE_TABLE
        .iter()
        .filter_map(move |(n, cells)| parse_cell(cells, release.column()).map(|s| (*n, s)))
}

fn parse_cell(cells: &str, column: usize) -> Option<GateSpec> {
    let cell = cells.split_whitespace().nth(column)?;
    let mut c = cell.chars();
    let stage = match c.next()? {
        'A' => Stage::Alpha,
        'B' => Stage::Beta,
        'G' => Stage::Ga,
        'D' => Stage::Deprecated,
        'P' => Stage::PreAlpha,
        _ => return None,
    };
    let default = c.next()? == '+';
    let locked = c.next() == Some('!');
    Some(GateSpec { stage, default, locked })
}

macro_rules! gates {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        /// A feature gate the scheduler reads, named as upstream names it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[allow(clippy::enum_variant_names)]
        pub enum Gate {
            $($(#[$doc])* $name,)*
        }

        impl Gate {
            /// Every gate the scheduler reads.
            pub const ALL: &'static [Gate] = &[$(Gate::$name,)*];

            /// Upstream's name.
            pub fn name(self) -> &'static str {
                match self {
                    $(Gate::$name => stringify!($name),)*
                }
            }
        }
    };
}

gates! {
    /// The API server clears status.nominatedNodeName on a binding (read by the in-memory API
    /// server, `model::apiserver`).
    ClearingNominatedNodeNameAfterBinding,
    /// DRA: the DynamicResources plugin (GA 1.34, locked from 1.35).
    DynamicResourceAllocation,
    /// DRA: admin access requests may take devices in use.
    DRAAdminAccess,
    /// DRA: `firstAvailable` subrequests (and DynamicResources' score from 1.35).
    DRAPrioritizedList,
    /// DRA: device taints and request tolerations.
    DRADeviceTaints,
    /// DRA: DeviceTaintRule objects.
    DRADeviceTaintRules,
    /// DRA: partitionable devices and shared counters.
    DRAPartitionableDevices,
    /// DRA: consumable capacity.
    DRAConsumableCapacity,
    /// DRA: binding conditions at PreBind.
    DRADeviceBindingConditions,
    /// DRA: ResourceClaim status.devices.
    DRAResourceClaimDeviceStatus,
    /// DRA: extended resources backed by device classes.
    DRAExtendedResource,
    /// DRA: per-node Filter timeout.
    DRASchedulerFilterTimeout,
    /// DRA: list-typed device attributes.
    DRAListTypeAttributes,
    /// DRA: node allocatable resources backed by DRA.
    DRANodeAllocatableResources,
    /// DRA: ResourceClaims for whole pod groups.
    DRAWorkloadResourceClaims,
    /// VolumeAttributesClass matching in VolumeBinding.
    VolumeAttributesClass,
    /// NodeVolumeLimits scaling (CSIDriverMissingOnNode / CSINodeMissing).
    VolumeLimitScaling,
    /// PodTopologySpread nodeAffinityPolicy / nodeTaintsPolicy.
    NodeInclusionPolicyInPodTopologySpread,
    /// PodTopologySpread matchLabelKeys.
    MatchLabelKeysInPodTopologySpread,
    /// Pod (anti-)affinity matchLabelKeys / mismatchLabelKeys.
    MatchLabelKeysInPodAffinity,
    /// Pod requests read from container status resources.
    InPlacePodVerticalScaling,
    /// Pod-level resources resized in place.
    InPlacePodLevelResourcesVerticalScaling,
    /// Restartable init containers.
    SidecarContainers,
    /// Queueing hints.
    SchedulerQueueingHints,
    /// Preemption's API calls run asynchronously (DefaultPreemption's PreEnqueue).
    SchedulerAsyncPreemption,
    /// The queue pops from backoffQ when activeQ is empty.
    SchedulerPopFromBackoffQ,
    /// The scheduler's API calls are asynchronous.
    SchedulerAsyncAPICalls,
    /// Pod-level spec.resources.
    PodLevelResources,
    /// VolumeBinding scores by storage capacity (1.33+ name).
    StorageCapacityScoring,
    /// VolumeBinding scores by storage capacity (1.30-1.32 name).
    VolumeCapacityPriority,
    /// The NodeDeclaredFeatures plugin.
    NodeDeclaredFeatures,
    /// The GangScheduling plugin.
    GangScheduling,
    /// The Workload API.
    GenericWorkload,
    /// Toleration operators Gt and Lt.
    TaintTolerationComparisonOperators,
    /// Topology-aware placements for pod groups.
    TopologyAwareWorkloadScheduling,
    /// Workload-aware preemption.
    WorkloadAwarePreemption,
    /// Opportunistic batching of same-signature pods.
    OpportunisticBatching,
    /// NominatedNodeName set for expected placements.
    NominatedNodeNameForExpectation,
    /// Portworx CSI migration (NodeVolumeLimits' in-tree translation).
    CSIMigrationPortworx,
    /// Image volumes (ImageLocality counts them).
    ImageVolume,
    /// Containers' RestartAllContainers restart-policy rules.
    RestartAllContainersOnContainerExits,
    /// hostNetwork with user namespaces.
    UserNamespacesHostNetworkSupport,
    /// Composite pod groups.
    CompositePodGroup,
    /// PreemptionPolicy per pod group.
    PodGroupPreemptionPolicy,
    /// DeferredPodScheduling: preemption for pods whose in-place resize is deferred.
    InPlacePodVerticalScalingSchedulerPreemption,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_every_row_has_a_cell_per_release() {
        let names: Vec<&str> = GATE_TABLE.iter().map(|(n, _)| *n).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
        for (n, cells) in GATE_TABLE {
            let cells: Vec<&str> = cells.split_whitespace().collect();
            assert_eq!(cells.len(), super::super::gate_table::COLUMNS, "{n}");
            for c in cells {
                assert!(c == "--" || parse_cell(c, 0).is_some(), "{n}: {c}");
            }
        }
    }

    #[test]
    fn gates_fit_the_bitset() {
        assert!(Gate::ALL.len() <= 64);
    }

    #[test]
    fn every_gate_the_scheduler_reads_is_in_the_table() {
        for g in Gate::ALL {
            assert!(
                GATE_TABLE.binary_search_by(|(n, _)| (*n).cmp(g.name())).is_ok(),
                "{}",
                g.name()
            );
        }
    }

    #[test]
    fn specs_follow_upstream() {
        let r = |s: &str| s.parse::<Release>().unwrap();
        let dra = |s| spec("DynamicResourceAllocation", r(s)).unwrap();
        assert_eq!(
            dra("1.33"),
            GateSpec {
                stage: Stage::Beta,
                default: false,
                locked: false
            }
        );
        assert_eq!(
            dra("1.34"),
            GateSpec {
                stage: Stage::Ga,
                default: true,
                locked: false
            }
        );
        assert_eq!(spec("NodeDeclaredFeatures", r("1.34")), None);
        assert_eq!(spec("PodLevelResources", r("1.31")), None);
        assert_eq!(
            spec("PodLevelResources", r("1.32")),
            Some(GateSpec {
                stage: Stage::Alpha,
                default: false,
                locked: false
            })
        );
    }
}
