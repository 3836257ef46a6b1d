//! The default profile per release as data (apis/config/v1/default_plugins.go
//! `getDefaultPlugins` and `applyFeatureGates`): every plugin of the multiPoint list in order,
//! with its score weight and the conditions under which the release includes it.

use super::{Change, Features, Gate};

/// When a row applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    /// The gate is on.
    On(Gate),
    /// The gate is off.
    Off(Gate),
    /// The release has the change.
    Has(Change),
    /// The release does not have the change.
    Lacks(Change),
    /// The release knows the gate (whatever its value).
    Knows(Gate),
}

impl Cond {
    /// Whether the condition holds for these features.
    pub fn holds(self, f: &Features) -> bool {
        match self {
            Cond::On(g) => f.on(g),
            Cond::Off(g) => !f.on(g),
            Cond::Has(c) => f.has(c),
            Cond::Lacks(c) => !f.has(c),
            Cond::Knows(g) => super::gates::spec(g.name(), f.release()).is_some(),
        }
    }
}

/// One plugin of the default multiPoint list.
#[derive(Clone, Copy, Debug)]
pub struct DefaultPlugin {
    /// Plugin name.
    pub name: &'static str,
    /// Score weight (0: none given).
    pub weight: i64,
    /// All must hold for the release to include the row.
    pub when: &'static [Cond],
}

const fn row(name: &'static str, weight: i64, when: &'static [Cond]) -> DefaultPlugin {
    DefaultPlugin { name, weight, when }
}

/// The default multiPoint plugins in upstream's order.
pub const DEFAULT_PROFILE: &[DefaultPlugin] = &[
    row("SchedulingGates", 0, &[]),
    row("PrioritySort", 0, &[]),
    row("NodeUnschedulable", 0, &[]),
    row("NodeName", 0, &[]),
    row("TaintToleration", 3, &[]),
    row("NodeAffinity", 2, &[]),
    row("NodePorts", 0, &[]),
    // `applyPodResizePreemption` (1.37): just before NodeResourcesFit.
    row(
        "DeferredPodScheduling",
        0,
        &[Cond::On(Gate::InPlacePodVerticalScalingSchedulerPreemption)],
    ),
    row("NodeResourcesFit", 1, &[]),
    row("VolumeRestrictions", 0, &[]),
    row("EBSLimits", 0, &[Cond::Lacks(Change::InTreeVolumeLimitsRemoved)]),
    row("GCEPDLimits", 0, &[Cond::Lacks(Change::InTreeVolumeLimitsRemoved)]),
    row("NodeVolumeLimits", 0, &[]),
    row("AzureDiskLimits", 0, &[Cond::Lacks(Change::InTreeVolumeLimitsRemoved)]),
    row("VolumeBinding", 0, &[]),
    row("VolumeZone", 0, &[]),
    row("PodTopologySpread", 2, &[]),
    row("InterPodAffinity", 2, &[]),
    // `applyDynamicResources`: before DefaultPreemption when DynamicResourceAllocation is on;
    // weight 2 once it scores.
    row(
        "DynamicResources",
        0,
        &[
            Cond::On(Gate::DynamicResourceAllocation),
            Cond::Lacks(Change::DynamicResourcesScores),
        ],
    ),
    row(
        "DynamicResources",
        2,
        &[
            Cond::On(Gate::DynamicResourceAllocation),
            Cond::Has(Change::DynamicResourcesScores),
        ],
    ),
    row("DefaultPreemption", 0, &[]),
    row("NodeResourcesBalancedAllocation", 1, &[]),
    row("ImageLocality", 1, &[]),
    row("DefaultBinder", 0, &[]),
    // `applyFeatureGates` appends these.
    row("NodeDeclaredFeatures", 0, &[Cond::On(Gate::NodeDeclaredFeatures)]),
    row("GangScheduling", 0, &[Cond::On(Gate::GangScheduling)]),
    row(
        "GangScheduling",
        0,
        &[
            Cond::Has(Change::GangGatesMergedIntoGenericWorkload),
            Cond::On(Gate::GenericWorkload),
        ],
    ),
    // `applyTopologyAwareWorkloadScheduling` (1.36).
    row(
        "TopologyPlacementGenerator",
        0,
        &[Cond::On(Gate::TopologyAwareWorkloadScheduling)],
    ),
    row(
        "PodGroupPodsCount",
        1,
        &[Cond::On(Gate::TopologyAwareWorkloadScheduling)],
    ),
];

/// The default multiPoint plugins of a release: (name, weight).
pub fn default_plugins(f: &Features) -> Vec<(&'static str, i64)> {
    DEFAULT_PROFILE
        .iter()
        .filter(|r| r.when.iter().all(|c| c.holds(f)))
        .map(|r| (r.name, r.weight))
        .collect()
}
