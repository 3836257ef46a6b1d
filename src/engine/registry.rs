//! The in-tree registry (framework/plugins/registry.go `NewInTreeRegistry`): plugin name →
//! factory, with the releases that register each plugin. It sits above the framework and the
//! plugins: the framework never names a plugin module, and no plugin reaches the registry.

use serde_json::Value;

use super::framework::plugin::PluginSlots;
use super::plugins::names;
use super::plugins::{
    coscheduling, default_binder, default_preemption, deferred_pod_scheduling, dynamic_resources, gang_scheduling,
    image_locality, inter_pod_affinity, node_affinity, node_declared_features, node_name, node_ports, node_resources,
    node_unschedulable, node_volume_limits, pod_group_pods_count, pod_topology_spread, queue_sort, scheduling_gates,
    taint_toleration, topology_placement, volume_binding, volume_restrictions, volume_zone,
};
use super::release::{Change, Cond, Features};

/// Why a plugin could not be built.
#[derive(Debug)]
pub(crate) enum InstantiateError {
    /// No plugin of that name.
    Unknown,
    /// Its args are wrong.
    Args(String),
}

type Factory = fn(&Value, &Features) -> Result<PluginSlots, String>;

/// VolumeBinding (every extension point it has).
fn volume_binding(args: &Value, features: &Features) -> Result<PluginSlots, String> {
    volume_binding::register(args, features)
}

/// The in-tree volume limits plugins: registered in 1.30 only (1.31's validation rejects
/// them, 1.32 removed them from registry.go).
const IN_TREE_LIMITS: &[Cond] = &[Cond::Lacks(Change::InTreeVolumeLimitsRemoved)];

/// NodeDeclaredFeatures is registered from 1.35 (the release that has its gate).
const KNOWS_NODE_DECLARED_FEATURES: &[Cond] = &[Cond::Knows(crate::engine::release::Gate::NodeDeclaredFeatures)];

/// GangScheduling is registered from 1.35 (the release with the Workload API).
const KNOWS_GENERIC_WORKLOAD: &[Cond] = &[Cond::Knows(crate::engine::release::Gate::GenericWorkload)];

/// TopologyPlacementGenerator and PodGroupPodsCount are registered from 1.36 (the release
/// with TopologyAwareWorkloadScheduling).
const KNOWS_TOPOLOGY_AWARE_WORKLOAD: &[Cond] = &[Cond::Knows(
    crate::engine::release::Gate::TopologyAwareWorkloadScheduling,
)];

/// DeferredPodScheduling is registered from 1.37.
const KNOWS_DEFERRED_POD_SCHEDULING: &[Cond] = &[Cond::Knows(
    crate::engine::release::Gate::InPlacePodVerticalScalingSchedulerPreemption,
)];

/// name → factory, with the conditions under which a release registers the plugin.
fn registry() -> Vec<(&'static str, Factory, &'static [Cond])> {
    let always: &'static [Cond] = &[];
    vec![
        (names::PRIORITY_SORT, queue_sort::register, always),
        (names::SCHEDULING_GATES, scheduling_gates::register, always),
        (names::NODE_UNSCHEDULABLE, node_unschedulable::register, always),
        (names::NODE_NAME, node_name::register, always),
        (names::TAINT_TOLERATION, taint_toleration::register, always),
        (names::NODE_AFFINITY, node_affinity::register, always),
        (names::NODE_PORTS, node_ports::register, always),
        (names::NODE_RESOURCES_FIT, node_resources::fit::register, always),
        (
            names::NODE_RESOURCES_BALANCED_ALLOCATION,
            node_resources::balanced_allocation::register,
            always,
        ),
        (names::IMAGE_LOCALITY, image_locality::register, always),
        (names::VOLUME_RESTRICTIONS, volume_restrictions::register, always),
        (
            names::EBS_LIMITS,
            node_volume_limits::non_csi::register_ebs,
            IN_TREE_LIMITS,
        ),
        (
            names::GCE_PD_LIMITS,
            node_volume_limits::non_csi::register_gce_pd,
            IN_TREE_LIMITS,
        ),
        (
            names::AZURE_DISK_LIMITS,
            node_volume_limits::non_csi::register_azure_disk,
            IN_TREE_LIMITS,
        ),
        (names::NODE_VOLUME_LIMITS, node_volume_limits::csi::register, always),
        (names::VOLUME_BINDING, volume_binding, always),
        (names::VOLUME_ZONE, volume_zone::register, always),
        (names::POD_TOPOLOGY_SPREAD, pod_topology_spread::register, always),
        (names::INTER_POD_AFFINITY, inter_pod_affinity::register, always),
        (names::DEFAULT_PREEMPTION, default_preemption::register, always),
        (names::DEFAULT_BINDER, default_binder::register, always),
        (names::COSCHEDULING, coscheduling::register, always),
        (names::DYNAMIC_RESOURCES, dynamic_resources::register, always),
        (
            names::GANG_SCHEDULING,
            gang_scheduling::register,
            KNOWS_GENERIC_WORKLOAD,
        ),
        (
            names::NODE_DECLARED_FEATURES,
            node_declared_features::register,
            KNOWS_NODE_DECLARED_FEATURES,
        ),
        (
            names::TOPOLOGY_PLACEMENT_GENERATOR,
            topology_placement::register,
            KNOWS_TOPOLOGY_AWARE_WORKLOAD,
        ),
        (
            names::POD_GROUP_PODS_COUNT,
            pod_group_pods_count::register,
            KNOWS_TOPOLOGY_AWARE_WORKLOAD,
        ),
        (
            names::DEFERRED_POD_SCHEDULING,
            deferred_pod_scheduling::register,
            KNOWS_DEFERRED_POD_SCHEDULING,
        ),
    ]
}

/// Builds a plugin by name, as the release registers it.
pub(crate) fn instantiate(name: &str, args: &Value, features: &Features) -> Result<PluginSlots, InstantiateError> {
    let f = registry()
        .into_iter()
        .filter(|(_, _, when)| when.iter().all(|c| c.holds(features)))
        .find(|(n, _, _)| *n == name)
        .map(|(_, f, _)| f)
        .ok_or(InstantiateError::Unknown)?;
    f(args, features).map_err(InstantiateError::Args)
}

/// Every plugin name the registry knows (at some release).
pub(crate) fn known_plugins() -> Vec<&'static str> {
    registry().into_iter().map(|(n, _, _)| n).collect()
}

/// Every plugin name the release registers.
pub(crate) fn known_plugins_at(features: &Features) -> Vec<&'static str> {
    registry()
        .into_iter()
        .filter(|(_, _, when)| when.iter().all(|c| c.holds(features)))
        .map(|(n, _, _)| n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::release::Release;
    use crate::testkit::builders::rel;

    /// The in-tree volume limits plugins can be configured in 1.30 only: 1.31's validation
    /// rejects them (`invalidPluginsByVersion`), 1.32 removed them from registry.go.
    #[test]
    fn in_tree_volume_limits_are_accepted_in_1_30_only() {
        for name in [names::EBS_LIMITS, names::GCE_PD_LIMITS, names::AZURE_DISK_LIMITS] {
            let oldest = Features::new(Release::OLDEST);
            assert!(instantiate(name, &Value::Null, &oldest).is_ok(), "{name} 1.30");
            assert!(known_plugins_at(&oldest).contains(&name));
            for minor in [31, 32, 34] {
                assert!(
                    matches!(
                        instantiate(name, &Value::Null, &rel(minor).into()),
                        Err(InstantiateError::Unknown)
                    ),
                    "{name} 1.{minor}"
                );
                assert!(!known_plugins_at(&rel(minor).into()).contains(&name));
            }
        }
        assert!(instantiate(names::NODE_VOLUME_LIMITS, &Value::Null, &rel(34).into()).is_ok());
    }
}
