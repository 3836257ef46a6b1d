//! Runs one scheduling attempt for a pod and records the trace: PreEnqueue, PreFilter, Filter
//! (with nominated pods, as `RunFilterPluginsWithNominatedPods`), PostFilter, PreScore, Score,
//! and the node selection (schedule_one.go, framework/runtime/framework.go), deterministically:
//! every node is evaluated in name order and ties are reported, not sampled.

use smallvec::SmallVec;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::cycle_state::CycleState;
use super::fit_error::fit_error_message;
use super::node_info::{NodeInfo, PodInfo};
use super::parallel;
use super::plugin::{Ctx, NodeScore, PluginsRunner};
use super::runtime::Framework;
use super::snapshot::Snapshot;
use super::status::{Code, Status};
use crate::engine::framework::trace::{
    Explanation, FilterFailure, HeldMember, Lines, NodeFilter, NodeName, NodeScoreTrace, PluginScore, PluginStatus,
};
use crate::engine::release::Change;
use crate::model::ObjectKey;

/// Message of a pod held back by scheduling gates (scheduling_queue.go).
pub const GATED_MESSAGE: &str = "Scheduling is blocked due to non-empty scheduling gates";
/// `ErrNoNodesAvailable`.
pub const NO_NODES_MESSAGE: &str = "no nodes available to schedule pods";

/// Why a pod could not be explained.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// No such pod.
    #[error("pod '{0}' is not in the snapshot{1}")]
    PodNotFound(ObjectKey, String),
    /// The pod is already on a node.
    #[error("pod '{0}' is not pending: spec.nodeName is '{1}'")]
    AlreadyBound(ObjectKey, String),
    /// The pod has finished.
    #[error("pod '{0}' is not pending: status.phase is '{1}'")]
    Finished(ObjectKey, String),
    /// No profile of that name.
    #[error("no scheduler profile named '{0}' (profiles: {1})")]
    UnknownProfile(String, String),
    /// The profiles were built for other features than the snapshot (a caller's mistake).
    #[error("the profiles reproduce {0} but the snapshot was built for {1}")]
    FeaturesMismatch(String, String),
}

impl Framework {
    /// `RunPreFilterExtensionAddPod` over the plugins not skipped.
    pub fn add_pod_ext(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        add: &PodInfo,
        node: &NodeInfo,
    ) -> Status {
        for pl in &self.pre_filter {
            if !pl.has_extensions() || state.skip_filter.contains(pl.name()) {
                continue;
            }
            let s = pl.add_pod(cx, state, pod, add, node);
            if !s.is_success() {
                return Status::error(format!(
                    "running AddPod on PreFilter plugin {:?}: {}",
                    pl.name(),
                    s.message()
                ));
            }
        }
        Status::success()
    }

    /// `RunPreFilterExtensionRemovePod` over the plugins not skipped.
    pub fn remove_pod_ext(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        rm: &PodInfo,
        node: &NodeInfo,
    ) -> Status {
        for pl in &self.pre_filter {
            if !pl.has_extensions() || state.skip_filter.contains(pl.name()) {
                continue;
            }
            let s = pl.remove_pod(cx, state, pod, rm, node);
            if !s.is_success() {
                return Status::error(format!(
                    "running RemovePod on PreFilter plugin {:?}: {}",
                    pl.name(),
                    s.message()
                ));
            }
        }
        Status::success()
    }

    /// `RunFilterPlugins`: stops at the first failing plugin and stamps it.
    pub fn run_filters(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        for pl in &self.filter {
            if state.skip_filter.contains(pl.name()) {
                continue;
            }
            let s = pl.filter(cx, state, pod, node);
            if !s.is_success() {
                let s = if s.is_rejected() {
                    s
                } else {
                    Status::error(format!("running {:?} filter plugin: {}", pl.name(), s.message()))
                };
                return s.with_plugin(pl.name());
            }
        }
        Status::success()
    }

    /// `RunFilterPluginsWithNominatedPods`. Returns the status and the nominated pods that
    /// were counted on the node when it failed only because of them.
    pub fn run_filters_with_nominated(
        &self,
        cx: &Ctx<'_>,
        state: &CycleState,
        pod: &PodInfo,
        node: &NodeInfo,
    ) -> (Status, Vec<ObjectKey>) {
        let nominated = nominated_on(cx, pod, node);
        if nominated.is_empty() {
            return (self.run_filters(cx, state, pod, node), Vec::new());
        }
        let mut state2 = state.clone();
        let mut node2 = node.clone();
        for p in &nominated {
            node2.add_pod((*p).clone());
            let s = self.add_pod_ext(cx, &mut state2, pod, p, &node2);
            if !s.is_success() {
                return (s, Vec::new());
            }
        }
        let s = self.run_filters(cx, &state2, pod, &node2);
        if !s.is_success() {
            let keys = if self.run_filters(cx, state, pod, node).is_success() {
                nominated.iter().map(|p| p.pod.key.clone()).collect()
            } else {
                Vec::new()
            };
            return (s, keys);
        }
        (self.run_filters(cx, state, pod, node), Vec::new())
    }

    /// `RunFilterPlugins` with the plugins PreFilter skipped given by position (`skip`, looked
    /// up once per cycle rather than per node).
    fn run_filters_skipping(
        &self,
        cx: &Ctx<'_>,
        state: &CycleState,
        pod: &PodInfo,
        node: &NodeInfo,
        skip: &[bool],
    ) -> Status {
        for (pl, _) in self.filter.iter().zip(skip).filter(|(_, s)| !**s) {
            let s = pl.filter(cx, state, pod, node);
            if !s.is_success() {
                let s = if s.is_rejected() {
                    s
                } else {
                    Status::error(format!("running {:?} filter plugin: {}", pl.name(), s.message()))
                };
                return s.with_plugin(pl.name());
            }
        }
        Status::success()
    }

    /// `RunFilterPlugins` and the diagnostic pass in one walk: the status `run_filters`
    /// returns, and every filter plugin's failure on the node (as `all_filter_failures`).
    fn run_filters_all(
        &self,
        cx: &Ctx<'_>,
        state: &CycleState,
        pod: &PodInfo,
        node: &NodeInfo,
        skip: &[bool],
    ) -> (Status, Vec<FilterFailure>) {
        let mut first: Option<Status> = None;
        // gathered inline, then moved to a list of exactly their number (`exactly`)
        let mut all: SmallVec<[FilterFailure; 4]> = SmallVec::new();
        for (pl, _) in self.filter.iter().zip(skip).filter(|(_, s)| !**s) {
            let s = pl.filter(cx, state, pod, node);
            if s.is_success() {
                continue;
            }
            if first.is_none() {
                let f = if s.is_rejected() {
                    s.clone()
                } else {
                    Status::error(format!("running {:?} filter plugin: {}", pl.name(), s.message()))
                };
                first = Some(f.with_plugin(pl.name()));
            }
            all.push(FilterFailure {
                plugin: pl.name(),
                code: s.code,
                reasons: s.reasons,
            });
        }
        (first.unwrap_or_else(Status::success), exactly(all))
    }

    /// The rejecting filter plugin's `failure_detail` for the trace.
    fn failure_detail(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo, plugin: &str) -> Lines {
        self.filter
            .iter()
            .find(|pl| pl.name() == plugin)
            .map(|pl| pl.failure_detail(cx, state, pod, node))
            .unwrap_or_default()
    }

    /// Diagnostic numbers from the plugins that failed on the node (without nominated pods).
    fn filter_details(
        &self,
        cx: &Ctx<'_>,
        state: &CycleState,
        pod: &PodInfo,
        node: &NodeInfo,
        failures: &[FilterFailure],
    ) -> Vec<crate::engine::framework::trace::FilterDetail> {
        self.filter
            .iter()
            .filter(|pl| failures.iter().any(|f| f.plugin == pl.name()))
            .filter_map(|pl| pl.filter_detail(cx, state, pod, node))
            .collect()
    }

    /// The diagnostic pass: every filter plugin's failure on the node.
    fn all_filter_failures(
        &self,
        cx: &Ctx<'_>,
        state: &CycleState,
        pod: &PodInfo,
        node: &NodeInfo,
        skip: &[bool],
    ) -> Vec<FilterFailure> {
        let all: SmallVec<[FilterFailure; 4]> = self
            .filter
            .iter()
            .zip(skip)
            .filter(|(_, s)| !**s)
            .filter_map(|(pl, _)| {
                let s = pl.filter(cx, state, pod, node);
                (!s.is_success()).then(|| FilterFailure {
                    plugin: pl.name(),
                    code: s.code,
                    reasons: s.reasons,
                })
            })
            .collect();
        exactly(all)
    }
}

/// A node's failures, gathered inline, in a list of exactly their number: a node fails one
/// or two plugins, and a list grown by pushes (or collected) holds room for four, 256 bytes
/// per rejected node, thousands per explanation.
fn exactly(all: SmallVec<[FilterFailure; 4]>) -> Vec<FilterFailure> {
    let mut out = Vec::with_capacity(all.len());
    out.extend(all);
    out
}

impl PluginsRunner for Framework {
    fn run_pre_filter_extension_add_pod(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        add: &PodInfo,
        node: &NodeInfo,
    ) -> Status {
        self.add_pod_ext(cx, state, pod, add, node)
    }

    fn run_pre_filter_extension_remove_pod(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        rm: &PodInfo,
        node: &NodeInfo,
    ) -> Status {
        self.remove_pod_ext(cx, state, pod, rm, node)
    }

    fn run_filter_plugins_with_nominated_pods(
        &self,
        cx: &Ctx<'_>,
        state: &CycleState,
        pod: &PodInfo,
        node: &NodeInfo,
    ) -> Status {
        self.run_filters_with_nominated(cx, state, pod, node).0
    }
}

/// The nominated pods `RunFilterPluginsWithNominatedPods` adds to the node: those of equal or
/// higher priority than the pod, other than the pod itself.
fn nominated_on<'a>(cx: &Ctx<'a>, pod: &PodInfo, node: &NodeInfo) -> Vec<&'a Arc<PodInfo>> {
    cx.snapshot
        .nominated_on(node.name())
        .filter(|p| p.pod.priority >= pod.pod.priority && !p.pod.same_uid(&pod.pod))
        .collect()
}

/// The plugins whose PreFilterResult narrowed the nodes, as upstream prints them: in execution
/// order (1.30) or sorted by name (a set, 1.31+).
fn prefilter_result_plugins<'a>(with_nodes: &[&'a str], sorted: bool) -> Vec<&'a str> {
    let mut list = with_nodes.to_vec();
    if sorted {
        list.sort_unstable();
        list.dedup();
    }
    list
}

/// Explains one pod: runs the whole scheduling cycle of the profile that serves it.
pub fn explain(snapshot: &Snapshot, profiles: &[Framework], key: &ObjectKey) -> Result<Explanation, EngineError> {
    explain_as(snapshot, profiles, key, None)
}

/// Explains one pod with the profile named `profile` instead of the one its schedulerName
/// picks (a what-if: "how would that profile schedule it"); `None` is [`explain`]. The
/// explanation records the profile used and, in its notes, the pod's own schedulerName.
pub fn explain_as(
    snapshot: &Snapshot,
    profiles: &[Framework],
    key: &ObjectKey,
    profile: Option<&str>,
) -> Result<Explanation, EngineError> {
    let Some(pod) = snapshot.cluster.pod(key) else {
        let hint = snapshot
            .cluster
            .pods
            .iter()
            .find(|p| p.key.name == key.name)
            .map(|p| format!(" (a pod of that name is in namespace '{}')", p.key.namespace))
            .unwrap_or_default();
        return Err(EngineError::PodNotFound(key.clone(), hint));
    };
    if pod.is_finished() {
        return Err(EngineError::Finished(key.clone(), pod.phase().to_string()));
    }
    if let Some(n) = &pod.node_name {
        return Err(EngineError::AlreadyBound(key.clone(), n.to_string()));
    }
    let pi = snapshot
        .pod_infos
        .get(key)
        .cloned()
        .unwrap_or_else(|| Arc::new(PodInfo::with_features(pod.clone(), &snapshot.features)));
    if let Some(name) = profile
        && !profiles.iter().any(|f| f.name == name)
    {
        return Err(EngineError::UnknownProfile(
            name.to_string(),
            profiles.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", "),
        ));
    }
    let wanted = profile.unwrap_or(pod.scheduler_name());
    let mut ex = Explanation::empty(
        key.clone(),
        wanted.to_string(),
        &snapshot.features,
        snapshot.num_nodes_in_placement(),
    );
    if let Some(n) = snapshot.features.note() {
        ex.notes.push(n.to_string());
    }
    admit_nominated(snapshot, profiles);
    if wanted != pod.scheduler_name() {
        ex.notes.push(format!(
            "explained with profile '{wanted}' (a what-if); the pod's schedulerName is '{}'",
            pod.scheduler_name()
        ));
    }
    if let Some(fw) = profiles.iter().find(|f| *f.features != *snapshot.features) {
        return Err(EngineError::FeaturesMismatch(
            fw.features.describe(),
            snapshot.features.describe(),
        ));
    }
    if !snapshot.cluster.not_served.is_empty() {
        // what the release reads that the server does not serve (the CRD of Coscheduling
        // only when the pod's own profile runs it)
        let permit = profiles
            .iter()
            .find(|f| f.name == wanted)
            .map(|f| f.plugins_at("Permit"))
            .unwrap_or_default();
        ex.notes.extend(crate::engine::release::served::unserved_warnings(
            &snapshot.features,
            &snapshot.cluster.not_served,
            &permit,
        ));
    }
    let Some(fw) = profiles.iter().find(|f| f.name == wanted) else {
        ex.waiting_for_scheduler = Some(pod.scheduler_name().to_string());
        ex.message = Some(format!(
            "no scheduler profile serves schedulerName '{}' (profiles: {}); the pod waits for a scheduler of that name",
            pod.scheduler_name(),
            profiles.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ")
        ));
        return Ok(ex);
    };
    let has_claims = pod
        .obj
        .spec
        .as_ref()
        .and_then(|s| s.resource_claims.as_ref())
        .is_some_and(|c| !c.is_empty());
    if has_claims
        && !fw
            .pre_filter
            .iter()
            .any(|p| p.name() == super::names::DYNAMIC_RESOURCES)
    {
        ex.notes.push(format!(
            "the pod has spec.resourceClaims but DynamicResourceAllocation is off at {} (its default there), so the claims are ignored as the scheduler ignores them; an API server with the gate off drops the field, so a cluster that kept it has the gate on: pass --feature-gates DynamicResourceAllocation=true",
            snapshot.features.release()
        ));
    }
    if let Some(group) = pod.scheduling_group() {
        use crate::engine::release::Gate;
        let f = &snapshot.features;
        let parent = snapshot
            .cluster
            .pod_groups_v1beta1
            .get(&ObjectKey::new(pod.key.namespace.clone(), group))
            .and_then(|g| g.spec.parent_composite_pod_group_name.as_deref());
        if f.on(Gate::CompositePodGroup)
            && f.has(crate::engine::release::Change::GangSchedulingReadsV1Beta1PodGroups)
            && let Some(parent) = parent
        {
            ex.notes.push(format!(
                "PodGroup {}/{group} belongs to CompositePodGroup {}/{parent}: {} the tree's quorum; the tree's own pod-group cycle (PlacementFeasible over its child groups) is not reproduced, so PlacementFeasible is shown for the pod's PodGroup alone",
                pod.key.namespace,
                pod.key.namespace,
                if f.has(crate::engine::release::Change::GangSchedulingWithoutPermit) {
                    "PreEnqueue checks"
                } else {
                    "PreEnqueue and Permit check"
                }
            ));
        }
        if f.on(Gate::TopologyAwareWorkloadScheduling) {
            ex.notes.push(
                "TopologyAwareWorkloadScheduling is on: this pod is explained against every node, as upstream's framework answers for one pod; its pod group's cycle tries the members in each placement (topology domain) and picks the best one, shown with the group as a whole".to_string(),
            );
        }
        if f.workload_aware_preemption() {
            ex.notes.push(
                "workload-aware preemption is on: pod-by-pod preemption is off for this pod (DefaultPreemption's PostFilter refuses it); when its pod group does not fit, the group's cycle preempts for the whole group, shown with the group as a whole".to_string(),
            );
            if f.has(crate::engine::release::Change::GangSchedulingReadsV1Beta1PodGroups) {
                let r = f.release().short();
                ex.notes.push(format!(
                    "not exact at {r}: the group's preemption is 1.36.2's algorithm applied to v1beta1 PodGroups; {r}'s own evaluator (it also runs Filter on each member's node, nominates the members there and can take CompositePodGroups as victims) is not in the sources kschedtui was built from, so its victims may differ"
                ));
            }
        }
    }
    snapshot.handle.set_profile(&fw.name);
    snapshot
        .handle
        .set_profiles(profiles.iter().map(|f| f.name.clone()).collect());
    super::binding::gang_trace(&Ctx { snapshot }, fw, &pi, &mut ex);
    run_cycle(snapshot, fw, &pi, &mut ex);
    ex.batching = super::batching::batching(fw, &Ctx { snapshot }, &pi);
    if let Some(g) = ex.gang.as_mut() {
        // The pod found a node when its binding cycle got past Reserve.
        let placed = ex
            .binding_cycle
            .as_ref()
            .is_some_and(|b| b.stopped_at.as_deref() != Some("Reserve"));
        let mut queued = ex.pre_enqueue.iter().all(|p| p.code == Code::Success);
        if queued && g.placement_feasible.is_some() {
            // 1.37 queues a pod group as one entity, held before the queue while any member is.
            if let Some(h) = held_sibling(snapshot, fw, &g.unplaced) {
                let group = g.group.split(" (").next().unwrap_or(&g.group);
                ex.notes.push(format!(
                    "{} queues {group} as one entity and holds it before the queue while any member is held: {} is held by {} ({}), so no member of the group is tried",
                    snapshot.features.release().short(),
                    h.pod,
                    h.plugin,
                    h.reason
                ));
                g.held_with = Some(h);
                queued = false;
            }
        }
        // The plugin that gave the trace: at PreEnqueue (GangScheduling) or at Permit
        // (Coscheduling); the other's default adds nothing.
        let note = fw
            .pre_enqueue
            .iter()
            .find(|p| p.name() == g.plugin)
            .and_then(|p| p.finish_gang(g, queued, placed))
            .or_else(|| {
                fw.permit
                    .iter()
                    .find(|p| p.name() == g.plugin)
                    .and_then(|p| p.finish_gang(g, queued, placed))
            });
        ex.notes.extend(note);
    }
    let cx = Ctx { snapshot };
    for pl in &fw.pre_filter {
        pl.trace(&cx, &pi, &mut ex);
    }
    Ok(ex)
}

/// Works out, once per snapshot, which nominated pods the queue holds: a candidate whose
/// schedulerName no profile serves, or that its profile's PreEnqueue plugins reject
/// (scheduling gates, a DRA claim missing or not owned, a gang short of members), never enters
/// activeQ and is not a nominated pod for anyone else.
fn admit_nominated(snapshot: &Snapshot, profiles: &[Framework]) {
    snapshot.not_in_queue.get_or_init(|| {
        let cx = Ctx { snapshot };
        let mut out = BTreeSet::new();
        for pi in snapshot.nominated.values().flatten() {
            let admitted = profiles
                .iter()
                .find(|f| f.name == pi.pod.scheduler_name())
                .is_some_and(|fw| fw.pre_enqueue.iter().all(|pl| pl.pre_enqueue(&cx, pi).is_success()));
            if !admitted {
                out.insert(pi.pod.key.clone());
            }
        }
        Arc::new(out)
    });
}

/// The first of `members` (a 1.37 pod group's other pending members) a PreEnqueue plugin
/// holds: the whole group waits with it.
fn held_sibling(snapshot: &Snapshot, fw: &Framework, members: &[ObjectKey]) -> Option<HeldMember> {
    let cx = Ctx { snapshot };
    members.iter().find_map(|k| {
        let pi = snapshot.pod_infos.get(k)?;
        fw.pre_enqueue.iter().find_map(|pl| {
            let s = pl.pre_enqueue(&cx, pi);
            (!s.is_success()).then(|| HeldMember {
                pod: k.clone(),
                plugin: pl.name().to_string(),
                reason: s.message(),
            })
        })
    })
}

/// The node `newSortedNodeScores(...).Pop()` returns for scores in this order: Go's
/// `container/heap` `Init` (sift-down from n/2-1 to 0) with `Less(i, j) = total i > total j`
/// (the randomizer is 0 without extenders, so ties never compare less), then the root.
fn heap_root(totals: &[i64]) -> Option<usize> {
    let n = totals.len();
    if n == 0 {
        return None;
    }
    let mut h: Vec<usize> = (0..n).collect();
    let less = |h: &[usize], a: usize, b: usize| totals[h[a]] > totals[h[b]];
    for start in (0..n / 2).rev() {
        let mut i = start;
        loop {
            let j1 = 2 * i + 1;
            if j1 >= n {
                break;
            }
            let mut j = j1;
            if j1 + 1 < n && less(&h, j1 + 1, j1) {
                j = j1 + 1;
            }
            if !less(&h, j, i) {
                break;
            }
            h.swap(i, j);
            i = j;
        }
    }
    Some(h[0])
}

/// One scheduling cycle of `pi` (`schedulingCycle` of schedule_one.go), one function per
/// extension point; each records its part of the trace and says whether the cycle goes on.
fn run_cycle(snapshot: &Snapshot, fw: &Framework, pi: &Arc<PodInfo>, ex: &mut Explanation) {
    let cx = Ctx { snapshot };
    let pod = &**pi;
    for n in &fw.not_implemented {
        ex.notes.push(format!(
            "plugin {n} is in the profile but not implemented yet: it was not run"
        ));
    }
    ex.notes.extend(fw.config_notes.iter().cloned());
    if !run_pre_enqueue(&cx, fw, pod, ex) {
        return;
    }
    if snapshot.nodes.is_empty() {
        ex.message = Some(NO_NODES_MESSAGE.to_string());
        return;
    }
    let mut state = CycleState::default();
    let pre = run_pre_filter(&cx, fw, &mut state, pod, ex);
    ex.pre_filter_node_names = pre.nodes.as_ref().map(|s| s.iter().cloned().collect());
    if let Some(rejection) = pre.rejection {
        reject_on_every_node(&cx, fw, &state, pi, &rejection, ex);
        return;
    }
    let absent = absent_status(&pre, &snapshot.features);
    let Some(filtered) = run_filter(&cx, fw, &state, pod, pre.nodes.as_ref(), absent.as_ref(), ex) else {
        return;
    };
    if filtered.feasible.is_empty() {
        let statuses = filtered.statuses(ex);
        run_post_filter(&cx, fw, &state, pi, &statuses, absent.as_ref(), None, ex);
        return;
    }
    let feasible = sample(&cx, fw, pre.nodes.as_ref(), filtered.feasible, ex);
    let nodes: Vec<&NodeInfo> = feasible.iter().map(|&i| &snapshot.nodes[i]).collect();
    if !run_pre_score(&cx, fw, &mut state, pod, &nodes, ex) {
        return;
    }
    let Some(scores) = run_score(&cx, fw, &state, pod, &nodes, &feasible, ex) else {
        return;
    };
    ex.score.extend(scores);
    select_host(fw, ex, snapshot.decisions_only);
    if let Some(note) = ex.sampling.as_ref().and_then(|s| s.note(&ex.selected)) {
        ex.notes.push(note);
    }
    ex.later_points = ["Reserve", "Permit", "PreBind", "Bind", "PostBind"]
        .iter()
        .map(|p| {
            (
                (*p).to_string(),
                fw.plugins_at(p).iter().map(|s| (*s).to_string()).collect(),
            )
        })
        .collect();
    // Reserve, Permit, PreBind, Bind and PostBind, one function per point in binding.rs.
    super::binding::run_binding_cycle(&cx, fw, &mut state, pi, ex);
}

/// percentageOfNodesToScore (`findNodesThatPassFilters`): the nodes searched are those in
/// the placement and in PreFilter's set, in the node tree's order; the search stops after
/// `numFeasibleNodesToFind` feasible nodes (one for a profile without Score plugins). From a
/// start index (`Snapshot::start_node`) only the nodes found go on to Score, as upstream's;
/// without one every feasible node does, and the trace says what sampling would do. Nothing
/// is sampled when the nominated node passed (upstream returns it alone).
fn sample(
    cx: &Ctx<'_>,
    fw: &Framework,
    prefilter: Option<&BTreeSet<String>>,
    feasible: Vec<usize>,
    ex: &mut Explanation,
) -> Vec<usize> {
    use super::sampling::{SamplingTrace, search};
    let snapshot = cx.snapshot;
    if matches!(ex.nominated_node, Some((_, true))) {
        return feasible;
    }
    let searched_node = |i: usize| {
        let name = snapshot.nodes[i].name();
        snapshot.in_placement(name) && prefilter.is_none_or(|s| s.contains(name))
    };
    let searched = match prefilter {
        None if snapshot.placement.is_none() => snapshot.nodes.len(),
        _ => (0..snapshot.nodes.len()).filter(|&i| searched_node(i)).count(),
    };
    let no_scoring = fw.score.is_empty();
    let nodes_to_find = if no_scoring {
        1
    } else {
        fw.percentage.nodes_to_find(searched)
    };
    if nodes_to_find >= searched && snapshot.start_node.is_none() {
        return feasible;
    }
    let mut trace = SamplingTrace {
        configured: fw.percentage.configured(),
        percentage: fw.percentage.effective(searched),
        searched,
        nodes_to_find,
        feasible: feasible.len(),
        no_scoring,
        start: snapshot.start_node,
        found: None,
        processed: None,
        next_start: None,
    };
    let Some(start) = snapshot.start_node else {
        ex.sampling = Some(trace);
        return feasible;
    };
    // `feasible` is in node order, ascending
    let order: Vec<usize> = snapshot
        .tree_order()
        .iter()
        .copied()
        .filter(|&i| searched_node(i))
        .collect();
    let all = snapshot.num_nodes_in_placement();
    if prefilter.is_some() {
        ex.notes.push(
            "PreFilter narrowed the nodes: kube-scheduler walks its set in Go's map order, which is random, so the feasible nodes it finds from the start index can differ from these".into(),
        );
    }
    let found = search(&order, start, nodes_to_find, |i| feasible.binary_search(&i).is_ok());
    trace.found = Some(
        found
            .found
            .iter()
            .map(|&i| snapshot.nodes[i].name().to_string())
            .collect(),
    );
    trace.processed = Some(found.processed);
    trace.next_start = Some((start + found.processed) % all.max(1));
    ex.sampling = Some(trace);
    let mut kept = found.found;
    kept.sort_unstable();
    kept
}

/// PreEnqueue: the profile's plugins in order, up to and including the first that rejects
/// the pod (the queue's `runPreEnqueuePlugins` returns there: the plugins after it never run,
/// so the trace has no verdict of theirs). False when the pod stays out of the queue.
fn run_pre_enqueue(cx: &Ctx<'_>, fw: &Framework, pod: &PodInfo, ex: &mut Explanation) -> bool {
    for pl in &fw.pre_enqueue {
        let s = pl.pre_enqueue(cx, pod);
        ex.pre_enqueue
            .push(PluginStatus::new(pl.name(), &s).with_facts(pl.pre_enqueue_facts(cx, pod)));
        if s.is_success() {
            continue;
        }
        // The API server writes the gated message; other plugins' rejections leave no
        // condition upstream, their own message is what explains the pod.
        ex.message = Some(if pl.name() == super::names::SCHEDULING_GATES {
            GATED_MESSAGE.to_string()
        } else {
            s.message()
        });
        return false;
    }
    true
}

/// What PreFilter leaves for the points after it.
struct PreFilterOutcome {
    /// The nodes the plugins' results leave (their intersection); None: every node.
    nodes: Option<BTreeSet<String>>,
    /// The plugins that narrowed the node set, in execution order (upstream prints them so).
    with_nodes: Vec<&'static str>,
    /// The status that rejects the pod on every node, if a plugin rejected it.
    rejection: Option<Status>,
}

/// PreFilter (`RunPreFilterPlugins`): records every plugin's status, the plugins that Skip
/// (their Filter is skipped too) and the node set the results leave.
fn run_pre_filter(
    cx: &Ctx<'_>,
    fw: &Framework,
    state: &mut CycleState,
    pod: &PodInfo,
    ex: &mut Explanation,
) -> PreFilterOutcome {
    let mut out = PreFilterOutcome {
        nodes: None,
        with_nodes: Vec::new(),
        rejection: None,
    };
    // An Unschedulable PreFilter status does not stop the other PreFilter plugins (upstream
    // #119770): the last one is returned unless a later plugin rejects for good.
    let mut unschedulable: Option<Status> = None;
    for pl in &fw.pre_filter {
        let (r, s) = pl.pre_filter(cx, state, pod);
        ex.pre_filter
            .push(PluginStatus::new(pl.name(), &s).with_facts(pl.pre_filter_facts(cx, state, pod)));
        ex.notes.extend(pl.note(pod));
        if s.is_skip() {
            state.skip_filter.insert(pl.name());
            continue;
        }
        if s.code == Code::Unschedulable {
            unschedulable = Some(s.with_plugin(pl.name()));
            continue;
        }
        if !s.is_success() {
            let s = if s.is_rejected() {
                s.with_plugin(pl.name())
            } else {
                Status::error(format!("running PreFilter plugin {:?}: {}", pl.name(), s.message()))
                    .with_plugin(pl.name())
            };
            out.rejection = Some(s);
            break;
        }
        if let Some(nodes) = r {
            out.with_nodes.push(pl.name());
            out.nodes = Some(match out.nodes {
                None => nodes,
                Some(prev) => prev.intersection(&nodes).cloned().collect(),
            });
            if out.nodes.as_ref().is_some_and(BTreeSet::is_empty) {
                let sorted = cx.snapshot.features.has(Change::PreFilterResultPluginsSorted);
                let list = prefilter_result_plugins(&out.with_nodes, sorted);
                let msg = if list.len() == 1 {
                    format!("node(s) didn't satisfy plugin {}", list[0])
                } else {
                    format!("node(s) didn't satisfy plugin(s) [{}] simultaneously", list.join(" "))
                };
                out.rejection = Some(Status::unresolvable(msg));
                break;
            }
        }
    }
    if out.rejection.is_none() {
        out.rejection = unschedulable;
    }
    out
}

/// The status of the nodes PreFilter's result leaves out (1.32+; none before).
fn absent_status(pre: &PreFilterOutcome, features: &crate::engine::release::Features) -> Option<Status> {
    pre.nodes
        .as_ref()
        .filter(|_| features.has(Change::AbsentNodesStatus))
        .map(|_| {
            Status::unresolvable(format!(
                "node(s) didn't satisfy plugin(s) [{}]",
                prefilter_result_plugins(&pre.with_nodes, true).join(" ")
            ))
        })
}

/// A PreFilter rejection: an Error ends the cycle with its message; otherwise every node gets
/// the status and PostFilter runs with PreFilter's message.
fn reject_on_every_node(
    cx: &Ctx<'_>,
    fw: &Framework,
    state: &CycleState,
    pi: &Arc<PodInfo>,
    rejection: &Status,
    ex: &mut Explanation,
) {
    if rejection.code == Code::Error {
        ex.message = Some(rejection.message());
        return;
    }
    let mut statuses: BTreeMap<String, Status> = BTreeMap::new();
    for n in &cx.snapshot.nodes {
        statuses.insert(n.name().to_string(), rejection.clone());
        ex.filter.push(NodeFilter {
            node: NodeName::of(&n.node),
            feasible: false,
            failure: Some(FilterFailure {
                plugin: rejection.plugin,
                code: rejection.code,
                reasons: rejection.reasons.clone(),
            }),
            excluded_by_prefilter: false,
            rejected_by_nominated_pods: Vec::new(),
            all_failures: Vec::new(),
            detail: Lines::default(),
            details: Vec::new(),
        });
    }
    let pre_msg = rejection.message();
    run_post_filter(cx, fw, state, pi, &statuses, None, Some(&pre_msg), ex);
}

mod filter;
mod score;

use filter::*;
use score::*;

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::engine::framework::plugin::ScoreResult;
    use crate::engine::{Release, build_profiles};
    use crate::source::file::load_str;

    const CLUSTER: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: a}
  spec: {schedulerName: my-scheduler, containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}
"#;

    /// A Score plugin that fails on the nodes named in `fails` (with the node in the reason).
    struct Failing(&'static str, &'static [&'static str]);

    impl super::super::plugin::Plugin for Failing {
        fn name(&self) -> &'static str {
            self.0
        }
    }

    impl super::super::plugin::ScorePlugin for Failing {
        fn score(&self, _: &Ctx<'_>, _: &CycleState, _: &PodInfo, node: &NodeInfo) -> ScoreResult {
            if self.1.contains(&node.name()) {
                Err(Box::new(Status::error(format!("{} broke on {}", self.0, node.name()))))
            } else {
                Ok(1)
            }
        }
    }

    /// Score's first error is the first plugin with a failing node, at its first failing node,
    /// whether the nodes are scored in order or on every core (300 nodes: split).
    #[test]
    fn a_score_error_names_the_first_failing_plugin_at_its_first_failing_node() {
        let v = Release::NEWEST;
        for (n, serial) in [(3, true), (300, false), (300, true)] {
            let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
            for i in 0..n {
                text.push_str(&format!(
                    "- {{apiVersion: v1, kind: Node, metadata: {{name: n{i:03}}}, status: {{allocatable: {{cpu: '2', memory: 4Gi, pods: '10'}}}}}}\n"
                ));
            }
            text.push_str(
                "- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: [{name: c}]}}\n",
            );
            let mut snap = Snapshot::new(Arc::new(load_str("t", &text).unwrap()), v);
            snap.serial = serial;
            let mut fw = Framework::default_profile(v).unwrap();
            // the later plugin fails on an earlier node; the earlier plugin on two later ones
            fw.score = vec![
                (Arc::new(Failing("ScoreA", &["n200", "n002", "n001"])), 1),
                (Arc::new(Failing("ScoreB", &["n000"])), 1),
            ];
            let ex = explain(&snap, &[fw], &ObjectKey::new("a", "p")).unwrap();
            assert_eq!(
                ex.message.as_deref(),
                Some("running Score plugin \"ScoreA\": ScoreA broke on n001"),
                "{n} nodes, serial {serial}"
            );
            assert!(ex.score.is_empty() && ex.selected.is_empty());
        }
    }

    fn setup() -> (Snapshot, Vec<Framework>) {
        let v = Release::OLDEST;
        let snap = Snapshot::new(Arc::new(load_str("t", CLUSTER).unwrap()), v);
        (snap, build_profiles(None, v).unwrap())
    }

    #[test]
    fn explain_as_runs_the_named_profile_and_says_so() {
        let (snap, profiles) = setup();
        let key = ObjectKey::new("a", "p");
        let own = explain(&snap, &profiles, &key).unwrap();
        assert_eq!(own.waiting_for_scheduler.as_deref(), Some("my-scheduler"));
        assert_eq!(own.profile, "my-scheduler");
        let ex = explain_as(&snap, &profiles, &key, Some("default-scheduler")).unwrap();
        assert_eq!(ex.profile, "default-scheduler");
        assert_eq!(ex.waiting_for_scheduler, None);
        assert_eq!(ex.selected, vec!["n1".to_string()]);
        assert_eq!(
            ex.notes,
            vec!["explained with profile 'default-scheduler' (a what-if); the pod's schedulerName is 'my-scheduler'"]
        );
    }

    #[test]
    fn explain_as_an_unknown_profile_names_the_profiles() {
        let (snap, profiles) = setup();
        let err = explain_as(&snap, &profiles, &ObjectKey::new("a", "p"), Some("nope")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no scheduler profile named 'nope' (profiles: default-scheduler, scheduler-plugins-scheduler)"
        );
    }

    /// Two 4-CPU nodes, each with a 3-CPU pod of the same priority (no victims); `p` asks for
    /// 2 CPUs and, by a `metadata.name` field selector, for the nodes in `names` (NodeAffinity's
    /// PreFilterResult).
    fn narrowed(names: &str, nominated: Option<&str>) -> String {
        let status = nominated.map_or(String::new(), |n| format!("\n  status: {{nominatedNodeName: {n}}}"));
        format!(
            r#"
apiVersion: v1
kind: List
items:
- {{apiVersion: v1, kind: Node, metadata: {{name: node1}}, status: {{allocatable: {{cpu: "4", memory: 4Gi, pods: "10"}}}}}}
- {{apiVersion: v1, kind: Node, metadata: {{name: node2}}, status: {{allocatable: {{cpu: "4", memory: 4Gi, pods: "10"}}}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: busy1, namespace: a}}, spec: {{nodeName: node1, containers: [{{name: c, image: i, resources: {{requests: {{cpu: "3"}}}}}}]}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: busy2, namespace: a}}, spec: {{nodeName: node2, containers: [{{name: c, image: i, resources: {{requests: {{cpu: "3"}}}}}}]}}}}
- apiVersion: v1
  kind: Pod
  metadata: {{name: p, namespace: a}}
  spec:
    containers: [{{name: c, image: i, resources: {{requests: {{cpu: "2"}}}}}}]
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchFields: [{{key: metadata.name, operator: In, values: [{names}]}}]{status}
"#
        )
    }

    #[test]
    fn the_heap_root_among_ties_is_gos() {
        // (totals in visiting order, the index container/heap puts at the root)
        for (totals, want) in [
            (vec![10, 20, 20], 1),
            (vec![10, 10, 20, 20], 3),
            (vec![20, 20], 0),
            (vec![5, 20, 10, 20], 1),
            (vec![7], 0),
        ] {
            assert_eq!(heap_root(&totals), Some(want), "{totals:?}");
        }
        assert_eq!(heap_root(&[]), None);
    }

    fn explain_at(text: &str, minor: u32) -> Explanation {
        let v = Release::at(minor);
        let snap = Snapshot::new(Arc::new(load_str("t", text).unwrap()), v);
        let profiles = build_profiles(None, v).unwrap();
        explain(&snap, &profiles, &ObjectKey::new("a", "p")).unwrap()
    }

    const PREEMPT_ONE_TRIED: &str = "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.";

    /// The PostFilter part of the message: from 1.34 DynamicResources speaks first.
    fn post(minor: u32, preemption: &str) -> String {
        if crate::engine::release::Features::new(Release::at(minor))
            .on(crate::engine::release::Gate::DynamicResourceAllocation)
        {
            format!("no new claims to deallocate, {preemption}")
        } else {
            preemption.to_string()
        }
    }

    #[test]
    fn nodes_left_out_by_prefilter_result_count_from_1_32() {
        // schedule_one_test.go "test some nodes are filtered out by prefilter plugin and other
        // are filtered out by filter plugin": 1.32+ gives the left-out node the absent status
        // "node(s) didn't satisfy plugin(s) [<plugin>]", which FitError.Error counts.
        let text = narrowed("node2", None);
        for minor in [30, 31] {
            let ex = explain_at(&text, minor);
            assert_eq!(
                ex.message.as_deref(),
                Some(format!("0/2 nodes are available: 1 Insufficient cpu. {PREEMPT_ONE_TRIED}").as_str()),
                "1.{minor}"
            );
            assert_eq!(ex.filter[0].node, "node1");
            assert!(ex.filter[0].excluded_by_prefilter);
            assert_eq!(ex.filter[0].failure, None, "1.{minor}: no status");
        }
        for minor in [32, 33, 34] {
            let ex = explain_at(&text, minor);
            assert_eq!(
                ex.message.as_deref(),
                Some(
                    format!(
                        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't satisfy plugin(s) [NodeAffinity]. {}",
                        post(minor, PREEMPT_ONE_TRIED)
                    )
                    .as_str()
                ),
                "1.{minor}"
            );
            assert!(ex.filter[0].excluded_by_prefilter);
            assert_eq!(
                ex.filter[0].failure,
                Some(FilterFailure {
                    plugin: "",
                    code: Code::UnschedulableAndUnresolvable,
                    reasons: ["node(s) didn't satisfy plugin(s) [NodeAffinity]"]
                        .into_iter()
                        .collect(),
                }),
                "1.{minor}"
            );
            // PostFilter tried node2 only (node1 is UnschedulableAndUnresolvable).
            let pf = ex.post_filter.as_ref().expect("postfilter");
            assert_eq!(
                pf.node_notes,
                vec![
                    (
                        "node1".to_string(),
                        "Preemption is not helpful for scheduling".to_string()
                    ),
                    (
                        "node2".to_string(),
                        "No preemption victims found for incoming pod".to_string()
                    ),
                ]
            );
        }
    }

    #[test]
    fn prefilter_result_naming_no_existing_node() {
        // schedule_one_test.go "test prefilter plugin returned an invalid node": no node is
        // evaluated; 1.32+ counts both as absent.
        let text = narrowed("ghost", None);
        assert_eq!(
            explain_at(&text, 30).message.as_deref(),
            Some(
                "0/2 nodes are available: preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
            )
        );
        assert_eq!(
            explain_at(&text, 32).message.as_deref(),
            Some(
                "0/2 nodes are available: 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
            )
        );
    }

    #[test]
    fn nominated_node_outside_prefilter_result_is_filtered() {
        // evaluateNominatedNode runs before the nodes are narrowed to PreFilterResult, so the
        // nominated node keeps its Filter status (and is not absent in 1.32+).
        let text = narrowed("node2", Some("node1"));
        for minor in [30, 32, 34] {
            let ex = explain_at(&text, minor);
            assert_eq!(
                ex.message.as_deref(),
                Some(
                    format!(
                        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector. {}",
                        post(minor, PREEMPT_ONE_TRIED)
                    )
                    .as_str()
                ),
                "1.{minor}"
            );
            assert!(!ex.filter[0].excluded_by_prefilter);
            assert_eq!(ex.filter[0].failure.as_ref().map(|f| f.plugin), Some("NodeAffinity"));
            assert_eq!(ex.nominated_node, Some(("node1".to_string(), false)));
        }
    }

    #[test]
    fn simultaneously_lists_plugins_in_order_then_sorted() {
        // framework.go RunPreFilterPlugins: a slice in 1.30, a set (sets.List) from 1.31.
        let order = ["VolumeBinding", "NodeAffinity"];
        assert_eq!(
            prefilter_result_plugins(&order, false),
            vec!["VolumeBinding", "NodeAffinity"]
        );
        assert_eq!(
            prefilter_result_plugins(&order, true),
            vec!["NodeAffinity", "VolumeBinding"]
        );
    }

    #[test]
    fn pod_level_requests_decide_fit_from_1_34() {
        // component-helpers PodRequests with PodLevelResources (on from 1.34): the pod-level
        // 4 CPUs, not the container's 1, meet NodeResourcesFit.
        let text = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: node1}, status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: a}
  spec:
    resources: {requests: {cpu: "4"}}
    containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
"#;
        assert_eq!(explain_at(text, 33).selected, vec!["node1".to_string()]);
        let ex = explain_at(text, 34);
        assert!(ex.selected.is_empty());
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
            )
        );
    }

    /// `n` nodes named n000… in three zones (a, b, c by index modulo 3), the ones in `cordoned`
    /// unschedulable, and pending pods p0… asking for 100m each.
    fn zoned(n: usize, cordoned: &[usize], pods: usize) -> Snapshot {
        let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
        for i in 0..n {
            let zone = ["a", "b", "c"][i % 3];
            let cordon = if cordoned.contains(&i) {
                ", spec: {unschedulable: true}"
            } else {
                ""
            };
            text.push_str(&format!(
                "- {{apiVersion: v1, kind: Node, metadata: {{name: n{i:03}, labels: {{topology.kubernetes.io/zone: {zone}}}}}{cordon}, status: {{allocatable: {{cpu: '2', memory: 4Gi, pods: '10'}}}}}}\n"
            ));
        }
        for i in 0..pods {
            text.push_str(&format!(
                "- {{apiVersion: v1, kind: Pod, metadata: {{name: p{i}, namespace: a}}, spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}}}\n"
            ));
        }
        Snapshot::new(Arc::new(load_str("t", &text).unwrap()), Release::NEWEST)
    }

    /// 150 nodes, every one feasible: upstream stops at 100 (adaptive 49 % of 150 is 73, at
    /// least 100). Without a start index every node is scored and the trace says so; from
    /// index 5 the first 100 nodes of the node tree (zones a, b, c in turn) are the ones
    /// scored, the 101st feasible node is checked but not counted, and the next cycle starts at
    /// 105.
    #[test]
    fn percentage_of_nodes_to_score_stops_the_search_from_a_start_index() {
        let profiles = build_profiles(None, Release::NEWEST).unwrap();
        let pod = ObjectKey::new("a", "p0");
        let mut snap = zoned(150, &[], 1);
        let ex = explain(&snap, &profiles, &pod).unwrap();
        let t = ex.sampling.clone().expect("sampled");
        assert_eq!(
            (t.configured, t.percentage, t.searched, t.nodes_to_find, t.feasible),
            (0, 49, 150, 100, 150)
        );
        assert!(t.applies() && t.found.is_none() && t.next_start.is_none());
        assert_eq!(ex.score.len(), 150);
        assert!(
            ex.notes.iter().any(|n| n.starts_with(
                "kube-scheduler stops filtering after 100 feasible nodes (adaptive percentageOfNodesToScore: 49 % of 150 nodes)"
            )),
            "{:?}",
            ex.notes
        );
        snap.start_node = Some(5);
        let ex = explain(&snap, &profiles, &pod).unwrap();
        let t = ex.sampling.clone().expect("sampled");
        let found = t.found.clone().unwrap();
        // the tree: n000 (a), n001 (b), n002 (c), n003 (a), ...: name order here
        assert_eq!(found.len(), 100);
        assert_eq!(found[0], "n005");
        assert_eq!(found[99], "n104");
        assert_eq!((t.processed, t.next_start), (Some(100), Some(105)));
        assert_eq!(ex.score.len(), 100);
        let mut scored: Vec<String> = ex.score.iter().map(|s| s.node.to_string()).collect();
        scored.sort();
        let mut want = found;
        want.sort();
        assert_eq!(scored, want);
        assert!(ex.selected.iter().all(|n| want.contains(n)));
    }

    /// Failed nodes checked before the search stops count as processed; a search that wraps
    /// past the end of the node list goes on from its start; a cordoned start node fails.
    #[test]
    fn processed_nodes_count_the_failures_before_the_stop() {
        let profiles = build_profiles(None, Release::NEWEST).unwrap();
        let pod = ObjectKey::new("a", "p0");
        // n140..n149 cordoned: a search from 140 finds nothing there, then wraps to n000
        let cordoned: Vec<usize> = (140..150).collect();
        let mut snap = zoned(150, &cordoned, 1);
        snap.start_node = Some(140);
        let ex = explain(&snap, &profiles, &pod).unwrap();
        let t = ex.sampling.clone().expect("sampled");
        assert_eq!(t.feasible, 140);
        let found = t.found.unwrap();
        assert_eq!((found[0].as_str(), found[99].as_str()), ("n000", "n099"));
        // 10 failures and 100 found: the next cycle starts at (140 + 110) % 150
        assert_eq!((t.processed, t.next_start), (Some(110), Some(100)));
    }

    /// Under 100 nodes every node is searched: no trace without a start index; with one the
    /// search covers them all and the next cycle starts where this one did.
    #[test]
    fn small_clusters_search_every_node() {
        let profiles = build_profiles(None, Release::NEWEST).unwrap();
        let pod = ObjectKey::new("a", "p0");
        let mut snap = zoned(30, &[], 1);
        assert!(explain(&snap, &profiles, &pod).unwrap().sampling.is_none());
        snap.start_node = Some(7);
        let ex = explain(&snap, &profiles, &pod).unwrap();
        let t = ex.sampling.unwrap();
        assert!(!t.applies());
        assert_eq!((t.nodes_to_find, t.processed, t.next_start), (30, Some(30), Some(7)));
        assert_eq!(ex.score.len(), 30);
    }

    /// A profile without Score plugins (`hasScoring` false): upstream stops at the first
    /// feasible node, whatever the cluster's size.
    #[test]
    fn without_score_plugins_the_first_feasible_node_is_taken() {
        let v = Release::NEWEST;
        let mut fw = Framework::default_profile(v).unwrap();
        fw.score.clear();
        let pod = ObjectKey::new("a", "p0");
        let mut snap = zoned(9, &[4], 1);
        let ex = explain(&snap, std::slice::from_ref(&fw), &pod).unwrap();
        let t = ex.sampling.clone().unwrap();
        assert!(t.no_scoring && t.applies() && t.nodes_to_find == 1 && t.feasible == 8);
        assert_eq!(ex.selected.len(), 8, "every feasible node ties without a start index");
        assert!(
            ex.notes
                .iter()
                .any(|n| n.starts_with("the profile has no Score plugin"))
        );
        snap.start_node = Some(4);
        let ex = explain(&snap, std::slice::from_ref(&fw), &pod).unwrap();
        // n004 is cordoned; the node tree of 9 nodes in zones a, b, c is n000, n001, …
        assert_eq!(ex.selected, vec!["n005".to_string()]);
        let t = ex.sampling.unwrap();
        assert_eq!((t.processed, t.next_start), (Some(2), Some(6)));
    }

    /// The node tree puts zones in turn: with zones given by index modulo 3 but names that
    /// sort the zones apart, the search from 0 alternates zones.
    #[test]
    fn the_search_walks_the_node_tree_not_the_names() {
        let profiles = build_profiles(None, Release::NEWEST).unwrap();
        let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
        for z in ["a", "b"] {
            for i in 0..60 {
                text.push_str(&format!(
                    "- {{apiVersion: v1, kind: Node, metadata: {{name: {z}{i:02}, labels: {{topology.kubernetes.io/zone: {z}}}}}, status: {{allocatable: {{cpu: '2', memory: 4Gi, pods: '10'}}}}}}\n"
                ));
            }
        }
        text.push_str(
            "- {apiVersion: v1, kind: Pod, metadata: {name: p0, namespace: a}, spec: {containers: [{name: c}]}}\n",
        );
        let mut snap = Snapshot::new(Arc::new(load_str("t", &text).unwrap()), Release::NEWEST);
        snap.start_node = Some(0);
        let ex = explain(&snap, &profiles, &ObjectKey::new("a", "p0")).unwrap();
        let found = ex.sampling.unwrap().found.unwrap();
        assert_eq!(&found[..4], ["a00", "b00", "a01", "b01"]);
        assert_eq!(found[99], "b49");
    }
}
