//! Plugin traits, one per extension point (framework/interface.go). A plugin implements the
//! points it takes part in; its module's `register` puts it into the matching slots.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::cycle_state::CycleState;
use super::node_info::{NodeInfo, PodInfo};
use super::snapshot::Snapshot;
use super::status::Status;
use crate::engine::framework::trace::{Fact, Lines};

/// What every plugin call can see besides its arguments.
pub struct Ctx<'a> {
    /// The cycle's snapshot.
    pub snapshot: &'a Snapshot,
}

/// A plugin's answer to `SignPlugin.SignPod` (1.35+, opportunistic batching).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signing {
    /// The plugin does not implement SignPlugin.
    NotSignPlugin,
    /// kschedtui has not read whether it does at this release.
    Unknown,
    /// It signs the pod.
    Signed,
    /// It refuses to sign the pod, with upstream's reason.
    Refused(&'static str),
}

/// A plugin.
pub trait Plugin: Send + Sync {
    /// The upstream name.
    fn name(&self) -> &'static str;

    /// `SignPod` (opportunistic batching); only the answer, not the signature itself.
    fn sign_pod(&self, _cx: &Ctx<'_>, _pod: &PodInfo) -> Signing {
        Signing::NotSignPlugin
    }
}

/// PreEnqueue: may keep a pod out of the active queue.
pub trait PreEnqueuePlugin: Plugin {
    /// Success lets the pod in.
    fn pre_enqueue(&self, cx: &Ctx<'_>, pod: &PodInfo) -> Status;
    /// kschedtui extra (not upstream): what the plugin read from the pod, for the trace.
    fn pre_enqueue_facts(&self, _cx: &Ctx<'_>, _pod: &PodInfo) -> Vec<Fact> {
        Vec::new()
    }
    /// As [`PermitPlugin::gang`], for a plugin that groups pods without a Permit (GangScheduling,
    /// whose Permit 1.38 removed).
    fn gang(&self, _cx: &Ctx<'_>, _pod: &PodInfo) -> Option<crate::engine::framework::trace::GangTrace> {
        None
    }
    /// As [`PermitPlugin::finish_gang`].
    fn finish_gang(
        &self,
        _gang: &mut crate::engine::framework::trace::GangTrace,
        _queued: bool,
        _placed: bool,
    ) -> Option<String> {
        None
    }
}

/// PreFilter, with its optional AddPod/RemovePod extensions.
pub trait PreFilterPlugin: Plugin {
    /// Returns the node names the pod may go to (None: all) and a status.
    fn pre_filter(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status);
    /// True when `add_pod`/`remove_pod` do something.
    fn has_extensions(&self) -> bool {
        false
    }
    /// kschedtui extra (not upstream): what the plugin read from the pod, stated from what its
    /// `pre_filter` computed (`state` is the cycle state right after it), for the trace.
    fn pre_filter_facts(&self, _cx: &Ctx<'_>, _state: &CycleState, _pod: &PodInfo) -> Vec<Fact> {
        Vec::new()
    }
    /// What the plugin could not evaluate for this pod (a note for the explanation), if
    /// anything.
    fn note(&self, _pod: &PodInfo) -> Option<String> {
        None
    }
    /// kschedtui extra (not upstream): adds this plugin's own account of the pod to the
    /// explanation once the cycle ran (DynamicResources: the claims, node by node).
    fn trace(&self, _cx: &Ctx<'_>, _pod: &PodInfo, _ex: &mut crate::engine::framework::trace::Explanation) {}
    /// Updates the state as if `add` ran on `node`.
    fn add_pod(
        &self,
        _cx: &Ctx<'_>,
        _state: &mut CycleState,
        _pod: &PodInfo,
        _add: &PodInfo,
        _node: &NodeInfo,
    ) -> Status {
        Status::success()
    }
    /// Updates the state as if `rm` left `node`.
    fn remove_pod(
        &self,
        _cx: &Ctx<'_>,
        _state: &mut CycleState,
        _pod: &PodInfo,
        _rm: &PodInfo,
        _node: &NodeInfo,
    ) -> Status {
        Status::success()
    }
}

/// Filter.
pub trait FilterPlugin: Plugin {
    /// Success when the pod may run on the node.
    fn filter(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status;
    /// kschedtui extra (not upstream): facts behind this plugin's rejection of `node` (which
    /// pods, which term), for the trace. Called only for the plugin that rejected the node;
    /// may be written when first read ([`Lines::lazy`]).
    fn failure_detail(&self, _cx: &Ctx<'_>, _state: &CycleState, _pod: &PodInfo, _node: &NodeInfo) -> Lines {
        Lines::default()
    }
    /// kschedtui extra (not upstream): the verdict reads only the pod, the cycle state
    /// PreFilter wrote from the pod, and the node's own NodeInfo, so a cycle of the same pod
    /// may keep it for the nodes no bind changed ([`crate::engine::framework::memo`]).
    fn node_local(&self) -> bool {
        false
    }
    /// Diagnostic only: the numbers behind the verdict on a node where the plugin failed.
    fn filter_detail(
        &self,
        _cx: &Ctx<'_>,
        _state: &CycleState,
        _pod: &PodInfo,
        _node: &NodeInfo,
    ) -> Option<crate::engine::framework::trace::FilterDetail> {
        None
    }
}

/// PreScore.
pub trait PreScorePlugin: Plugin {
    /// Prepares scoring over the feasible nodes; Skip means Score is not called.
    fn pre_score(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, nodes: &[&NodeInfo]) -> Status;
    /// kschedtui extra (not upstream): what the plugin read from the pod, stated from what its
    /// `pre_score` computed (`state` is the cycle state right after it), for the trace.
    fn pre_score_facts(&self, _cx: &Ctx<'_>, _state: &CycleState, _pod: &PodInfo) -> Vec<Fact> {
        Vec::new()
    }
}

/// A node's score from one plugin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeScore<'a> {
    /// Node name (the node's own, borrowed, in a cycle).
    pub name: std::borrow::Cow<'a, str>,
    /// Score.
    pub score: i64,
}

/// What Score gives for a node: its raw score, or the status it failed with. Any status but
/// Success is an error upstream; boxed, because the success path is then two registers, not a
/// 72-byte record written by every plugin for every node and read back by the runner.
pub type ScoreResult = Result<i64, Box<Status>>;

/// `out` filled with `score` of each of `nodes`, in order: the body of a `score_nodes` whose
/// plugin read what it needs once for the piece and cannot fail past that.
pub fn score_each(nodes: &[&NodeInfo], out: &mut [i64], score: impl Fn(&NodeInfo) -> i64) -> Result<(), Box<Status>> {
    for (node, slot) in nodes.iter().zip(out) {
        *slot = score(node);
    }
    Ok(())
}

/// Score, with the optional NormalizeScore extension.
pub trait ScorePlugin: Plugin {
    /// Raw score of the node.
    fn score(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> ScoreResult;
    /// Score of each of `nodes` into `out` (as long as `nodes`), in order, up to the first node
    /// whose Score fails: then that status. The runner calls this once per piece of the nodes,
    /// so a plugin's Score is called directly (not through the trait object) node after node,
    /// and a plugin may read its cycle state once for the piece.
    fn score_nodes(
        &self,
        cx: &Ctx<'_>,
        state: &CycleState,
        pod: &PodInfo,
        nodes: &[&NodeInfo],
        out: &mut [i64],
    ) -> Result<(), Box<Status>> {
        for (node, slot) in nodes.iter().zip(out) {
            *slot = self.score(cx, state, pod, node)?;
        }
        Ok(())
    }
    /// True when, in the cycle whose state is `state`, Score gives (0, Success) on every node
    /// (a pod with nothing the plugin scores): the runner then does not call it node by node.
    fn scores_zero_everywhere(&self, _state: &CycleState, _pod: &PodInfo) -> bool {
        false
    }
    /// kschedtui extra (not upstream): the raw score reads only the pod, the cycle state
    /// PreScore wrote from the pod (not from the feasible nodes), and the node's own NodeInfo,
    /// so a cycle of the same pod may keep it for the nodes no bind changed
    /// ([`crate::engine::framework::memo`]).
    fn node_local(&self) -> bool {
        false
    }
    /// True when `normalize` changes scores.
    fn has_normalize(&self) -> bool {
        false
    }
    /// NormalizeScore over all feasible nodes.
    fn normalize(&self, _cx: &Ctx<'_>, _state: &CycleState, _pod: &PodInfo, _scores: &mut [NodeScore<'_>]) -> Status {
        Status::success()
    }
}

/// What the framework runs for a plugin that re-checks the pod on hypothetical nodes
/// (`PluginsRunner` of framework/interface.go): preemption removes and adds pods on a copy of a
/// node and asks whether the pod fits there.
pub trait PluginsRunner: Sync {
    /// `RunPreFilterExtensionAddPod`: updates the cycle state as if `add` ran on `node`.
    fn run_pre_filter_extension_add_pod(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        add: &PodInfo,
        node: &NodeInfo,
    ) -> Status;
    /// `RunPreFilterExtensionRemovePod`: updates the cycle state as if `rm` left `node`.
    fn run_pre_filter_extension_remove_pod(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        rm: &PodInfo,
        node: &NodeInfo,
    ) -> Status;
    /// `RunFilterPluginsWithNominatedPods`: the pod's Filter verdict on `node`.
    fn run_filter_plugins_with_nominated_pods(
        &self,
        cx: &Ctx<'_>,
        state: &CycleState,
        pod: &PodInfo,
        node: &NodeInfo,
    ) -> Status;
}

/// PostFilter (preemption): gets the framework to re-run filters on hypothetical nodes.
pub trait PostFilterPlugin: Plugin {
    /// Tries to make the pod schedulable later; `runner` re-runs the profile's PreFilter
    /// extensions and filters.
    fn post_filter(
        &self,
        cx: &Ctx<'_>,
        runner: &dyn PluginsRunner,
        state: &CycleState,
        pod: &PodInfo,
        statuses: &BTreeMap<String, Status>,
    ) -> (crate::engine::framework::trace::PostFilterTrace, Status);
}

/// QueueSort: the order of the scheduling queue (`Less`).
pub trait QueueSortPlugin: Plugin {
    /// Orders two queued pods: `Less` means `a` is popped first.
    fn compare(
        &self,
        cluster: &crate::model::Cluster,
        a: &crate::model::Pod,
        b: &crate::model::Pod,
    ) -> std::cmp::Ordering;
}

/// Reserve, with its Unreserve rollback (run in reverse order when a later step fails).
pub trait ReservePlugin: Plugin {
    /// Reserves resources for the pod on `node`; `notes` gets trace-only remarks.
    fn reserve(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        node: &str,
        notes: &mut Vec<String>,
    ) -> Status;
    /// Undoes `reserve`; must not fail.
    fn unreserve(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, node: &str, notes: &mut Vec<String>);
}

/// Permit: Success, Wait (with the longest time to wait), or a rejection.
pub trait PermitPlugin: Plugin {
    /// The verdict and, with `Code::Wait`, how long the pod may wait.
    fn permit(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        node: &str,
        notes: &mut Vec<String>,
    ) -> (Status, std::time::Duration);
    /// A description of the pod's gang (group, quorum, waiting members) for the trace, when the
    /// plugin groups pods.
    fn gang(&self, _cx: &Ctx<'_>, _pod: &PodInfo) -> Option<crate::engine::framework::trace::GangTrace> {
        None
    }
    /// Completes the gang trace this plugin gave ([`Self::gang`]) once the pod's own attempt
    /// is known: `queued` when PreEnqueue let the pod into the queue, `placed` when it found a
    /// node and got past Reserve. Returns a note for the explanation, if any.
    fn finish_gang(
        &self,
        _gang: &mut crate::engine::framework::trace::GangTrace,
        _queued: bool,
        _placed: bool,
    ) -> Option<String> {
        None
    }
}

/// PreBind.
pub trait PreBindPlugin: Plugin {
    /// Runs before the binding; a failure aborts it. What upstream's plugin would send to the
    /// API server goes into `out.writes` (kschedtui sends them only when a user binds).
    fn pre_bind(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, node: &str, out: &mut PreBindOut)
    -> Status;

    /// `PreBindPreFlight` (1.35+): whether PreBind has work for the pod (false: Skip).
    fn pre_bind_pre_flight(&self, _cx: &Ctx<'_>, _state: &CycleState, _pod: &PodInfo) -> bool {
        true
    }
}

/// What a PreBind plugin records.
#[derive(Debug, Default)]
pub struct PreBindOut {
    /// kschedtui's remarks on what the plugin does (not upstream text).
    pub notes: Vec<String>,
    /// The requests the plugin sends before the binding, in order.
    pub writes: Vec<crate::model::write::WriteRequest>,
    /// What the plugin would write that kschedtui cannot plan (named, so a bind is refused
    /// rather than sent without it).
    pub unplanned: Vec<String>,
}

/// Bind: the first plugin that does not return Skip binds the pod.
pub trait BindPlugin: Plugin {
    /// Binds (in kschedtui: describes the API call it would make).
    fn bind(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, node: &str, notes: &mut Vec<String>) -> Status;
}

/// PostBind: informational, after a successful bind.
pub trait PostBindPlugin: Plugin {
    /// Runs after the binding.
    fn post_bind(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, node: &str, notes: &mut Vec<String>);
}

/// A set of candidate nodes for a pod group (`fwk.Placement`, 1.36's
/// TopologyAwareWorkloadScheduling): one topology domain, or every node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Its name (the domain; empty for the whole cluster).
    pub name: String,
    /// Node names, in the snapshot's order.
    pub nodes: Vec<String>,
}

/// The pod group a placement plugin works for (`fwk.PodGroupInfo` with its
/// `PodGroupState`).
#[derive(Clone, Debug)]
pub struct PodGroupView {
    /// namespace/name of the PodGroup.
    pub key: crate::model::ObjectKey,
    /// Members already scheduled (bound, or assumed on a node), with their nodes.
    pub scheduled: Vec<(crate::model::ObjectKey, String)>,
}

/// A placement with the nodes the group's members were proposed in it
/// (`fwk.PodGroupAssignments`).
pub struct PodGroupAssignments<'a> {
    /// The placement.
    pub placement: &'a Placement,
    /// Each member that found a node in it, with the node.
    pub proposed: Vec<(Arc<PodInfo>, String)>,
}

/// PlacementGenerate: splits the parent placement (every node) into the placements a pod
/// group is tried in.
pub trait PlacementGeneratePlugin: Plugin {
    /// The placements, or the status that stops the group's cycle.
    fn generate_placements(
        &self,
        cx: &Ctx<'_>,
        group: &PodGroupView,
        parent: &Placement,
    ) -> Result<Vec<Placement>, Status>;
}

/// PlacementScore, with its optional NormalizePlacementScore.
pub trait PlacementScorePlugin: Plugin {
    /// The raw score of one placement's assignments.
    fn score_placement(&self, cx: &Ctx<'_>, group: &PodGroupView, a: &PodGroupAssignments<'_>) -> Result<i64, Status>;
    /// NormalizePlacementScore over every placement's score, when the plugin has it (None:
    /// no extension).
    fn normalize_placement_scores(&self, _group: &PodGroupView, _scores: &mut [i64]) -> Option<Result<(), Status>> {
        None
    }
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
    /// Names of later points the plugin takes part in (Reserve, Permit, PreBind, Bind, PostBind)
    /// without an implementation below (listed in the trace only).
    pub later: Vec<&'static str>,
    /// A QueueSort implementation (with `queue_sort`).
    pub queue_sorter: Option<Arc<dyn QueueSortPlugin>>,
    /// Reserve.
    pub reserve: Option<Arc<dyn ReservePlugin>>,
    /// Permit.
    pub permit: Option<Arc<dyn PermitPlugin>>,
    /// PreBind.
    pub pre_bind: Option<Arc<dyn PreBindPlugin>>,
    /// Bind.
    pub bind: Option<Arc<dyn BindPlugin>>,
    /// PostBind.
    pub post_bind: Option<Arc<dyn PostBindPlugin>>,
    /// PlacementGenerate (1.36).
    pub placement_generate: Option<Arc<dyn PlacementGeneratePlugin>>,
    /// PlacementScore (1.36).
    pub placement_score: Option<Arc<dyn PlacementScorePlugin>>,
    /// Set for a plugin of the profile that the engine does not reproduce yet: it takes part
    /// in no extension point and every explanation says so.
    pub not_implemented: bool,
}
