//! The scheduling queue as upstream keeps it (backend/queue/scheduling_queue.go): where a
//! pending pod waits after what its last attempt found, and what moves it on. Pure: it reads
//! an [`Explanation`] and the cluster's FailedScheduling events.
//!
//! - Held before the queue: a PreEnqueue plugin rejected the pod (scheduling gates, a gang
//!   short of members, a missing Workload or PodGroup, a ResourceClaim not created yet). The
//!   pod sits in unschedulablePods with that gating plugin; upstream writes no event and no
//!   condition (the API server's "Scheduling is blocked" condition for gates aside), and the
//!   5-minute flush skips it: only an event the gating plugin registered, or an update of the
//!   pod, moves it.
//! - Unschedulable: a cycle ran and plugins rejected the pod; it waits in unschedulablePods
//!   until an event one of those plugins registered (queueing hints, [`requeue_events`])
//!   says Queue, or 5 minutes pass.
//! - Backoff after an error (no rejecting plugin): podErrorBackoffQ, retried after 1 s
//!   doubling to 10 s.
//! - Active: the next attempt would schedule it; Waiting: it waits at Permit on a node.
//! - Not this scheduler's: no profile serves its schedulerName.

use serde::Serialize;

use crate::engine::framework::status::Code;
use crate::engine::framework::trace::Explanation;
use crate::engine::plugins::names;

/// Where a pod waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Pool {
    /// Rejected at PreEnqueue: never reaches a scheduling cycle, no event is written.
    HeldBeforeQueue,
    /// A cycle rejected it: waits for an event that may make it schedulable.
    Unschedulable,
    /// The attempt ended in an error: retried after a backoff.
    ErrorBackoff,
    /// The next attempt would place it.
    Active,
    /// Assumed on a node, waiting at Permit for its gang.
    WaitingAtPermit,
    /// No profile of this scheduler serves its schedulerName.
    OtherScheduler,
}

impl Pool {
    /// Short words for tables.
    pub fn describe(self) -> &'static str {
        match self {
            Pool::HeldBeforeQueue => "held before the queue",
            Pool::Unschedulable => "unschedulable",
            Pool::ErrorBackoff => "error backoff",
            Pool::Active => "active",
            Pool::WaitingAtPermit => "waiting at Permit",
            Pool::OtherScheduler => "another scheduler's",
        }
    }
}

/// One pending pod's place in the queue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueEntry {
    /// The pod (`{namespace, name}` in the JSON, as everywhere).
    pub pod: crate::model::ObjectKey,
    /// Where it waits.
    pub pool: Pool,
    /// The gating (PreEnqueue) plugin, or the plugins that rejected it in its cycle.
    pub plugins: Vec<String>,
    /// Why, one line (the rejecting message).
    pub reason: String,
    /// What moves it back toward the active queue.
    pub requeue_on: Vec<String>,
    /// Whether upstream writes a FailedScheduling event and a PodScheduled condition for it.
    pub writes_event: bool,
    /// The backoff before its next attempt, from the attempts its events count (unschedulable
    /// and error pods).
    pub backoff: Option<String>,
}

/// `podInitialBackoffSeconds` and `podMaxBackoffSeconds` (defaults).
const INITIAL_BACKOFF_S: u64 = 1;
const MAX_BACKOFF_S: u64 = 10;

/// The backoff after `attempts` failed attempts: 1 s doubling, at most 10 s.
pub fn backoff_seconds(attempts: u32) -> u64 {
    if attempts == 0 {
        return 0;
    }
    let shift = attempts.saturating_sub(1).min(16);
    (INITIAL_BACKOFF_S << shift).min(MAX_BACKOFF_S)
}

/// The cluster events a plugin registers for a pod it rejected (EventsToRegister with their
/// queueing hints, 1.34-1.36), in words.
pub fn requeue_events(plugin: &str) -> &'static [&'static str] {
    match plugin {
        names::SCHEDULING_GATES => &["the pod's scheduling gates are removed"],
        names::NODE_UNSCHEDULABLE => &[
            "a schedulable node is added, or a node is uncordoned",
            "the pod gains a toleration of node.kubernetes.io/unschedulable",
        ],
        names::NODE_NAME => &["a node is added"],
        names::TAINT_TOLERATION => &[
            "a node it tolerates is added, or a node's taints change so it tolerates them",
            "the pod's tolerations change",
        ],
        names::NODE_AFFINITY => &["a node matching its affinity is added, or a node's labels change to match"],
        names::NODE_PORTS => &["a pod using a conflicting host port is deleted", "a node is added"],
        names::NODE_RESOURCES_FIT => &[
            "a pod on a node is deleted or scaled down",
            "a node it fits is added, or a node's allocatable grows",
        ],
        names::VOLUME_RESTRICTIONS => &[
            "a pod with a conflicting volume is deleted",
            "a node is added",
            "one of its PVCs is created",
        ],
        names::NODE_VOLUME_LIMITS => &[
            "a CSINode is added or its limits grow",
            "a pod with volumes is deleted, or a VolumeAttachment is deleted",
            "one of its PVCs is created",
        ],
        names::VOLUME_BINDING => &[
            "a StorageClass is added or its allowedTopologies change",
            "one of its PVCs, or a PV, is added or updated",
            "a node is added or its labels change",
            "CSIStorageCapacity appears or grows",
        ],
        names::VOLUME_ZONE => &[
            "a WaitForFirstConsumer StorageClass is added",
            "a node is added or its labels change",
            "one of its PVCs or a PV's topology changes",
        ],
        names::POD_TOPOLOGY_SPREAD => &[
            "a pod its constraints select is added, deleted or relabelled",
            "a node with its topology keys is added, deleted, relabelled or retainted",
        ],
        names::INTER_POD_AFFINITY => &[
            "a pod its affinity terms select is added or relabelled, or one its anti-affinity selects is deleted",
            "a node with the terms' topology keys is added or relabelled",
        ],
        names::DYNAMIC_RESOURCES => &[
            "one of its ResourceClaims is created, deallocated or changes status",
            "a ResourceSlice or DeviceClass is added or updated",
            "a node is added, relabelled or its allocatable changes",
        ],
        names::NODE_DECLARED_FEATURES => &["a node is added or its declared features change"],
        names::GANG_SCHEDULING => &[
            "another member of its group is created",
            "its Workload (1.35) or PodGroup (1.36+) is created",
            "its PodGroup's gang minCount is lowered (1.37)",
        ],
        names::DEFAULT_PREEMPTION => &["its own preemption finishes"],
        _ => &["any cluster change (the plugin registers no events)"],
    }
}

/// Where the explained pod waits; `attempts` is how many failed attempts its FailedScheduling
/// events count (None without events).
pub fn entry(ex: &Explanation, attempts: Option<u32>) -> QueueEntry {
    let pod = ex.pod.clone();
    let message = ex.message.clone().unwrap_or_default();
    if ex.waiting_for_scheduler.is_some() {
        return QueueEntry {
            pod,
            pool: Pool::OtherScheduler,
            plugins: Vec::new(),
            reason: message,
            requeue_on: vec!["a scheduler serving its schedulerName".to_string()],
            writes_event: false,
            backoff: None,
        };
    }
    if let Some(g) = ex.pre_enqueue.iter().find(|s| !matches!(s.code, Code::Success)) {
        return QueueEntry {
            pod,
            pool: Pool::HeldBeforeQueue,
            plugins: vec![g.plugin.clone()],
            reason: g.reasons.join(", "),
            requeue_on: requeue_events(&g.plugin).iter().map(|s| (*s).to_string()).collect(),
            writes_event: false,
            backoff: None,
        };
    }
    if let Some(h) = ex.gang.as_ref().and_then(|g| g.held_with.as_ref()) {
        // 1.37: the pod group is one queue entity, held while any member is.
        return QueueEntry {
            pod,
            pool: Pool::HeldBeforeQueue,
            plugins: vec![h.plugin.clone()],
            reason: format!("its pod group waits for member {}: {}", h.pod, h.reason),
            requeue_on: requeue_events(&h.plugin).iter().map(|s| (*s).to_string()).collect(),
            writes_event: false,
            backoff: None,
        };
    }
    if ex.schedulable() {
        let waiting = ex
            .binding_cycle
            .as_ref()
            .is_some_and(|b| b.permit.iter().any(|p| p.code == Code::Wait));
        return QueueEntry {
            pod,
            pool: if waiting { Pool::WaitingAtPermit } else { Pool::Active },
            plugins: Vec::new(),
            reason: if waiting {
                format!("would wait at Permit on {}", ex.selected[0])
            } else {
                format!("would bind to {}", ex.selected.join(" or "))
            },
            requeue_on: Vec::new(),
            writes_event: false,
            backoff: None,
        };
    }
    // The plugins that rejected it in the cycle: PreFilter rejections and each node's
    // rejecting Filter plugin (an error leaves none).
    let mut plugins: Vec<String> = Vec::new();
    for s in &ex.pre_filter {
        if matches!(s.code, Code::Unschedulable | Code::UnschedulableAndUnresolvable) && !plugins.contains(&s.plugin) {
            plugins.push(s.plugin.clone());
        }
    }
    for f in &ex.filter {
        if let Some(fl) = &f.failure
            && !fl.plugin.is_empty()
            && matches!(fl.code, Code::Unschedulable | Code::UnschedulableAndUnresolvable)
            && !plugins.iter().any(|p| p == fl.plugin)
        {
            plugins.push(fl.plugin.to_string());
        }
    }
    let backoff = attempts.map(|n| format!("{}s after {n} attempt(s)", backoff_seconds(n)));
    if plugins.is_empty() {
        return QueueEntry {
            pod,
            pool: Pool::ErrorBackoff,
            plugins,
            reason: message,
            requeue_on: vec!["the backoff running out (1 s doubling to 10 s)".to_string()],
            writes_event: true,
            backoff,
        };
    }
    let mut requeue_on: Vec<String> = Vec::new();
    for p in &plugins {
        for e in requeue_events(p) {
            let line = format!("{p}: {e}");
            if !requeue_on.contains(&line) {
                requeue_on.push(line);
            }
        }
    }
    if let Some(n) = ex.post_filter.as_ref().and_then(|p| p.nominated_node.clone()) {
        requeue_on.insert(
            0,
            format!("its preemption victims on {n} are gone (it is nominated there and retried once they are deleted)"),
        );
    }
    requeue_on.push("5 minutes without such an event (the leftover flush)".to_string());
    QueueEntry {
        pod,
        pool: Pool::Unschedulable,
        plugins,
        reason: message,
        requeue_on,
        writes_event: true,
        backoff,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_one_second_to_ten() {
        let got: Vec<u64> = (0..7).map(backoff_seconds).collect();
        assert_eq!(got, vec![0, 1, 2, 4, 8, 10, 10]);
        assert_eq!(backoff_seconds(u32::MAX), 10);
    }
}
