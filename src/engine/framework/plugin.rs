//! Plugin traits, one per extension point (framework/interface.go). A plugin implements the
//! points it takes part in; its module's `register` puts it into the matching slots.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::cycle_state::CycleState;
use super::node_info::{NodeInfo, PodInfo};
use super::snapshot::Snapshot;
use super::status::Status;

/// What every plugin call can see besides its arguments.
pub struct Ctx<'a> {
    /// The cycle's snapshot.
    pub snapshot: &'a Snapshot,
}

/// A plugin.
pub trait Plugin: Send + Sync {
    /// The upstream name.
    fn name(&self) -> &'static str;
}

/// PreEnqueue: may keep a pod out of the active queue.
pub trait PreEnqueuePlugin: Plugin {
    /// Success lets the pod in.
    fn pre_enqueue(&self, pod: &PodInfo) -> Status;
}

/// PreFilter, with its optional AddPod/RemovePod extensions.
pub trait PreFilterPlugin: Plugin {
    /// Returns the node names the pod may go to (None: all) and a status.
    fn pre_filter(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status);
    /// True when `add_pod`/`remove_pod` do something.
    fn has_extensions(&self) -> bool {
        false
    }
    /// Updates the state as if `add` ran on `node`.
    fn add_pod(&self, _cx: &Ctx<'_>, _state: &mut CycleState, _pod: &PodInfo, _add: &PodInfo, _node: &NodeInfo) -> Status {
        Status::success()
    }
    /// Updates the state as if `rm` left `node`.
    fn remove_pod(&self, _cx: &Ctx<'_>, _state: &mut CycleState, _pod: &PodInfo, _rm: &PodInfo, _node: &NodeInfo) -> Status {
        Status::success()
    }
}

/// Filter.
pub trait FilterPlugin: Plugin {
    /// Success when the pod may run on the node.
    fn filter(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status;
    /// Diagnostic only: the numbers behind the verdict on a node where the plugin failed.
    fn filter_detail(
        &self,
        _cx: &Ctx<'_>,
        _state: &CycleState,
        _pod: &PodInfo,
        _node: &NodeInfo,
    ) -> Option<crate::engine::trace::FilterDetail> {
        None
    }
}

/// PreScore.
pub trait PreScorePlugin: Plugin {
    /// Prepares scoring over the feasible nodes; Skip means Score is not called.
    fn pre_score(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, nodes: &[&NodeInfo]) -> Status;
}

/// A node's score from one plugin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeScore {
    /// Node name.
    pub name: String,
    /// Score.
    pub score: i64,
}

/// Score, with the optional NormalizeScore extension.
pub trait ScorePlugin: Plugin {
    /// Raw score of the node.
    fn score(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> (i64, Status);
    /// True when `normalize` changes scores.
    fn has_normalize(&self) -> bool {
        false
    }
    /// NormalizeScore over all feasible nodes.
    fn normalize(&self, _cx: &Ctx<'_>, _state: &CycleState, _pod: &PodInfo, _scores: &mut [NodeScore]) -> Status {
        Status::success()
    }
}

/// PostFilter (preemption): gets the framework to re-run filters on hypothetical nodes.
pub trait PostFilterPlugin: Plugin {
    /// Tries to make the pod schedulable later.
    fn post_filter(
        &self,
        cx: &Ctx<'_>,
        fw: &super::profile::Framework,
        state: &CycleState,
        pod: &PodInfo,
        statuses: &BTreeMap<String, Status>,
    ) -> (crate::engine::trace::PostFilterTrace, Status);
}

/// The slots a plugin fills.
#[derive(Default, Clone)]
pub struct PluginSlots {
    /// PreEnqueue.
    pub pre_enqueue: Option<Arc<dyn PreEnqueuePlugin>>,
    /// QueueSort (PrioritySort is the only one; it has no state).
    pub queue_sort: bool,
    /// PreFilter.
    pub pre_filter: Option<Arc<dyn PreFilterPlugin>>,
    /// Filter.
    pub filter: Option<Arc<dyn FilterPlugin>>,
    /// PostFilter.
    pub post_filter: Option<Arc<dyn PostFilterPlugin>>,
    /// PreScore.
    pub pre_score: Option<Arc<dyn PreScorePlugin>>,
    /// Score.
    pub score: Option<Arc<dyn ScorePlugin>>,
    /// Names of later points the plugin takes part in (Reserve, Permit, PreBind, Bind, PostBind).
    pub later: Vec<&'static str>,
    /// Set for a plugin of the profile that the engine does not reproduce yet: it takes part
    /// in no extension point and every explanation says so.
    pub not_implemented: bool,
}
