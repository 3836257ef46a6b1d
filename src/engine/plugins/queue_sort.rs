//! Port of framework/plugins/queuesort/priority_sort.go (v1.30.6): higher priority first, then
//! the earlier queue timestamp. A snapshot has no queue timestamps, so the pod's
//! creationTimestamp stands in for it and the key breaks the remaining ties (the same order as
//! `Cluster::pending_pods`).

use std::cmp::Ordering;
use std::sync::Arc;

use serde_json::Value;

use super::names;
use crate::engine::framework::plugin::{Plugin, PluginSlots, QueueSortPlugin};
use crate::engine::release::Features;
use crate::model::{Cluster, Pod};

/// PrioritySort.
pub(crate) struct PrioritySort;

impl Plugin for PrioritySort {
    fn name(&self) -> &'static str {
        names::PRIORITY_SORT
    }
}

impl QueueSortPlugin for PrioritySort {
    fn compare(&self, _: &Cluster, a: &Pod, b: &Pod) -> Ordering {
        b.priority
            .cmp(&a.priority)
            .then_with(|| a.cmp_creation(b))
            .then_with(|| a.key.cmp(&b.key))
    }
}

/// Registers PrioritySort.
pub(crate) fn register(_: &Value, _: &Features) -> Result<PluginSlots, String> {
    Ok(PluginSlots {
        queue_sort: true,
        queue_sorter: Some(Arc::new(PrioritySort)),
        ..Default::default()
    })
}
