//! The in-tree plugins, one module per upstream package, and their shared helpers. They see
//! the framework only; `engine::registry` builds them by name.

pub(crate) mod csi_translation;
pub(crate) mod helper;
pub(crate) mod names;
pub(crate) mod volume_helpers;

pub(crate) mod coscheduling;
pub(crate) mod default_binder;
pub(crate) mod default_preemption;
pub(crate) mod deferred_pod_scheduling;
pub(crate) mod dynamic_resources;
pub(crate) mod gang_scheduling;
pub(crate) mod image_locality;
pub(crate) mod inter_pod_affinity;
pub(crate) mod node_affinity;
pub(crate) mod node_declared_features;
pub(crate) mod node_name;
pub(crate) mod node_ports;
pub(crate) mod node_resources;
pub(crate) mod node_unschedulable;
pub(crate) mod node_volume_limits;
pub(crate) mod pod_group_pods_count;
pub(crate) mod pod_topology_spread;
pub(crate) mod queue_sort;
pub(crate) mod scheduling_gates;
pub(crate) mod taint_toleration;
pub(crate) mod topology_placement;
pub(crate) mod volume_binding;
pub(crate) mod volume_restrictions;
pub(crate) mod volume_zone;

use serde_json::Value;

/// Decodes a plugin's args (null → defaults), rejecting unknown fields.
pub(crate) fn decode_args<T: serde::de::DeserializeOwned + Default>(args: &Value) -> Result<T, String> {
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
