//! The in-tree plugins, one module per upstream package, and the registry that builds them by
//! name (framework/plugins/registry.go).

pub mod csi_translation;
pub mod helper;
pub mod names;
pub mod volume_helpers;

pub mod coscheduling;
pub mod default_binder;
pub mod default_preemption;
pub mod dynamic_resources;
pub mod image_locality;
pub mod inter_pod_affinity;
pub mod node_affinity;
pub mod node_name;
pub mod node_ports;
pub mod node_resources;
pub mod node_unschedulable;
pub mod node_volume_limits;
pub mod pod_topology_spread;
pub mod queue_sort;
pub mod scheduling_gates;
pub mod taint_toleration;
pub mod volume_binding;
pub mod volume_binding_cycle;
pub mod volume_restrictions;
pub mod volume_zone;

use serde_json::Value;

use super::framework::plugin::PluginSlots;
use super::version::Version;

/// Why a plugin could not be built.
#[derive(Debug)]
pub enum InstantiateError {
    /// No plugin of that name.
    Unknown,
    /// Its args are wrong.
    Args(String),
}

type Factory = fn(&Value, Version) -> Result<PluginSlots, String>;

/// VolumeBinding: PreFilter/Filter/Score from volume_binding, Reserve/PreBind from
/// volume_binding_cycle.
fn volume_binding(args: &Value, version: Version) -> Result<PluginSlots, String> {
    let mut s = volume_binding::register(args, version)?;
    volume_binding_cycle::extend(&mut s);
    Ok(s)
}

/// name → factory.
fn registry() -> Vec<(&'static str, Factory)> {
    vec![
        (names::PRIORITY_SORT, queue_sort::register),
        (names::SCHEDULING_GATES, scheduling_gates::register),
        (names::NODE_UNSCHEDULABLE, node_unschedulable::register),
        (names::NODE_NAME, node_name::register),
        (names::TAINT_TOLERATION, taint_toleration::register),
        (names::NODE_AFFINITY, node_affinity::register),
        (names::NODE_PORTS, node_ports::register),
        (names::NODE_RESOURCES_FIT, node_resources::fit::register),
        (
            names::NODE_RESOURCES_BALANCED_ALLOCATION,
            node_resources::balanced_allocation::register,
        ),
        (names::IMAGE_LOCALITY, image_locality::register),
        (names::VOLUME_RESTRICTIONS, volume_restrictions::register),
        (names::EBS_LIMITS, node_volume_limits::non_csi::register_ebs),
        (names::GCE_PD_LIMITS, node_volume_limits::non_csi::register_gce_pd),
        (
            names::AZURE_DISK_LIMITS,
            node_volume_limits::non_csi::register_azure_disk,
        ),
        (names::NODE_VOLUME_LIMITS, node_volume_limits::csi::register),
        (names::VOLUME_BINDING, volume_binding),
        (names::VOLUME_ZONE, volume_zone::register),
        (names::POD_TOPOLOGY_SPREAD, pod_topology_spread::register),
        (names::INTER_POD_AFFINITY, inter_pod_affinity::register),
        (names::DEFAULT_PREEMPTION, default_preemption::register),
        (names::DEFAULT_BINDER, default_binder::register),
        (names::COSCHEDULING, coscheduling::register),
        (names::DYNAMIC_RESOURCES, dynamic_resources::register),
    ]
}

/// Whether release `version` accepts the plugin in a configuration: from 1.31 the in-tree
/// volume limits plugins are rejected (validation in 1.31, gone from the registry in 1.32).
fn registered_in(name: &str, version: Version) -> bool {
    version.in_tree_volume_limits_registered()
        || ![names::EBS_LIMITS, names::GCE_PD_LIMITS, names::AZURE_DISK_LIMITS].contains(&name)
}

/// Builds a plugin by name.
pub fn instantiate(name: &str, args: &Value, version: Version) -> Result<PluginSlots, InstantiateError> {
    let f = registry()
        .into_iter()
        .filter(|(n, _)| registered_in(n, version))
        .find(|(n, _)| *n == name)
        .map(|(_, f)| f)
        .ok_or(InstantiateError::Unknown)?;
    f(args, version).map_err(InstantiateError::Args)
}

/// Every plugin name the registry knows.
pub fn known_plugins() -> Vec<&'static str> {
    registry().into_iter().map(|(n, _)| n).collect()
}

/// Every plugin name release `version` registers.
pub fn known_plugins_at(version: Version) -> Vec<&'static str> {
    registry()
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| registered_in(n, version))
        .collect()
}

/// Decodes a plugin's args (null → defaults), rejecting unknown fields.
pub fn decode_args<T: serde::de::DeserializeOwned + Default>(args: &Value) -> Result<T, String> {
    if args.is_null() {
        return Ok(T::default());
    }
    let mut a = args.clone();
    if let Value::Object(m) = &mut a {
        m.remove("apiVersion");
        m.remove("kind");
    }
    serde_path_to_error::deserialize(a).map_err(|e| format!("field '{}': {}", e.path(), e.inner()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-tree volume limits plugins can be configured in 1.30 only: 1.31's validation
    /// rejects them (`invalidPluginsByVersion`), 1.32 removed them from registry.go.
    #[test]
    fn in_tree_volume_limits_are_accepted_in_1_30_only() {
        for name in [names::EBS_LIMITS, names::GCE_PD_LIMITS, names::AZURE_DISK_LIMITS] {
            assert!(instantiate(name, &Value::Null, Version::OLDEST).is_ok(), "{name} 1.30");
            assert!(known_plugins_at(Version::OLDEST).contains(&name));
            for minor in [31, 32, 34] {
                assert!(
                    matches!(
                        instantiate(name, &Value::Null, Version { minor }),
                        Err(InstantiateError::Unknown)
                    ),
                    "{name} 1.{minor}"
                );
                assert!(!known_plugins_at(Version { minor }).contains(&name));
            }
        }
        assert!(instantiate(names::NODE_VOLUME_LIMITS, &Value::Null, Version { minor: 34 }).is_ok());
    }
}
