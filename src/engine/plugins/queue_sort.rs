//! Port of framework/plugins/queuesort/priority_sort.go (v1.30.6): higher priority first, then
//! the earlier queue timestamp. The order itself lives in `Cluster::pending_pods`.

use serde_json::Value;

use crate::engine::framework::plugin::PluginSlots;
use crate::engine::version::Version;

/// Registers PrioritySort.
pub fn register(_: &Value, _: Version) -> Result<PluginSlots, String> {
    Ok(PluginSlots {
        queue_sort: true,
        ..Default::default()
    })
}
