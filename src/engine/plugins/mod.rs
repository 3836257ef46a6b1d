//! The in-tree plugins, one module per upstream package, and their shared helpers. They see
//! the framework only; `engine::registry` builds them by name.

pub mod csi_translation;
pub mod helper;
pub mod names;
pub mod volume_helpers;

pub mod coscheduling;
pub mod default_binder;
pub mod default_preemption;
pub mod deferred_pod_scheduling;
pub mod dynamic_resources;
pub mod gang_scheduling;
pub mod image_locality;
pub mod inter_pod_affinity;
pub mod node_affinity;
pub mod node_declared_features;
pub mod node_name;
pub mod node_ports;
pub mod node_resources;
pub mod node_unschedulable;
pub mod node_volume_limits;
pub mod pod_group_pods_count;
pub mod pod_topology_spread;
pub mod queue_sort;
pub mod scheduling_gates;
pub mod taint_toleration;
pub mod topology_placement;
pub mod volume_binding;
pub mod volume_binding_cycle;
pub mod volume_restrictions;
pub mod volume_zone;

use serde_json::Value;

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
