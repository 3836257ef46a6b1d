//! Port of framework/plugins/gangscheduling (v1.35.7, v1.36.2, v1.37): native gang scheduling
//! (KEP-4671), in the default profile when the GangScheduling gate is on (1.35, 1.36; from 1.37
//! with GenericWorkload, the GangScheduling gate being gone).
//!
//! - 1.35: a pod names its group with `spec.workloadRef` (Workload, pod group, replica key);
//!   the policy is the Workload's pod group's. 1.36: `spec.schedulingGroup.podGroupName` names
//!   a PodGroup object (scheduling.k8s.io/v1alpha2), whose `spec.schedulingPolicy` is the
//!   policy; 1.37 the same with a scheduling.k8s.io/v1beta1 PodGroup.
//! - PreEnqueue: the Workload (PodGroup) must exist, the pod group must be in the Workload
//!   (1.35), and a gang needs `minCount` members known to the scheduler ("waiting for minCount
//!   pods from a gang to appear in scheduling queue"); all UnschedulableAndUnresolvable, and
//!   upstream writes no event or condition for them. 1.37 keeps 1.36's messages, the
//!   "pods's" typo included (it is fixed on master after 1.37).
//! - Permit: a gang member waits until `minCount` members are assumed or bound ("waiting for
//!   minCount pods from a gang to be waiting on permit" for 5 minutes from the group's first
//!   wait at 1.35; "... to be scheduled", 5 minutes, at 1.36 and 1.37: upstream removed Permit
//!   only after 1.37), and then allows the waiting ones.
//!   1.38 has no Permit (#141182): nothing waits, the pod goes on to bind.
//! - Reserve (1.35 only) moves the pod to the group's assumed members; Unreserve back.
//! - PlacementFeasible (1.37, 1.38): in the pod-group cycle, before any member is tried and after
//!   each, the group needs `minCount` (1 for a basic group) scheduled members: fewer scheduled
//!   and remaining than that is Unschedulable ("minCount (N) cannot be satisfied: S scheduled,
//!   R remaining"), which ends the cycle; fewer scheduled is Wait ("... is not yet satisfied:
//!   ..."). The trace gives its verdict before any member and after this pod's attempt.
//!
//! Who counts: the non-terminal pods of the snapshot in the same group (1.35: every pod,
//! 1.36+: bound pods and the pending pods of a schedulerName this scheduler serves); at Permit,
//! the bound ones, those waiting at Permit, and the pod itself.
//!
//! - CompositePodGroup (1.37, alpha gate CompositePodGroup; gangscheduling.go at the v1.37
//!   version that still has Permit and the "pods's" typo, with its `TestGangSchedulingFlow`):
//!   a PodGroup naming `parentCompositePodGroupName` is ready only when the root of its
//!   hierarchy is: the root needs `minGroupCount` (1 for a basic policy) ready children, a child
//!   PodGroup being ready with `minCount` (1 for basic) pods, a child CompositePodGroup when its
//!   own tree is (`isCPGTreeReady`). PreEnqueue counts every member the scheduler knows,
//!   Permit the scheduled ones with this pod; both say "waiting for composite pod group
//!   \"<root>\" tree to meet quorum" (UnschedulableAndUnresolvable, Wait for 5 minutes), and a
//!   Permit that completes the tree allows every waiting pod of it. With the gate on, a missing
//!   PodGroup fails the hierarchy snapshot ("failed to build hierarchy snapshot: pod group object
//!   not found in state for podgroup/<ns>/<name>"), a hierarchy without its root "... composite pod
//!   group object not found in state for compositepodgroup/<ns>/<parent>". Upstream later
//!   replaced this walk with an incremental hierarchy_tracker.go (active pods per PodGroup,
//!   ready children per CompositePodGroup, the same counts) together with dropping Permit and
//!   fixing the typo, i.e. after the v1.37.0 kschedtui reproduces.
//!
//! Not reproduced: the pod-group scheduling cycle itself (each member is explained alone, as
//! upstream's answers for one pod are; the group as a whole is [`crate::engine::group_cycle`],
//! with 1.36's placements and workload-aware preemption there), and a CompositePodGroup
//! hierarchy's own pod-group cycle (PlacementFeasible with `minGroupCount` over child groups:
//! the trace gives the PodGroup's); the explanation says so when they would apply.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::PodInfo;
use crate::engine::framework::plugin::{Ctx, PermitPlugin, Plugin, PluginSlots, PreEnqueuePlugin, ReservePlugin};
use crate::engine::framework::status::{Code, Status};
use crate::engine::framework::trace::{GangTrace, PlacementCheck, PlacementFeasibleTrace};
use crate::engine::release::{Change, Features};
use crate::model::workload::{SchedulingPolicy, WorkloadRef};
use crate::model::{Cluster, ObjectKey, Pod};

/// `DefaultSchedulingTimeoutDuration` / `permitTimeoutDuration`.
pub(crate) const PERMIT_TIMEOUT: Duration = Duration::from_secs(5 * 60);
/// PreEnqueue: fewer members than the quorum.
pub(crate) const WAITING_FOR_MEMBERS: &str = "waiting for minCount pods from a gang to appear in scheduling queue";
/// Permit (1.35).
pub(crate) const WAITING_ON_PERMIT_135: &str = "waiting for minCount pods from a gang to be waiting on permit";
/// Permit (1.36, 1.37).
pub(crate) const WAITING_ON_PERMIT_136: &str = "waiting for minCount pods from a gang to be scheduled";

/// PlacementFeasible (1.37): the verdict for a group needing `min_count` scheduled members, with
/// `scheduled` of them scheduled (bound or assumed) and `remaining` still to try.
pub(crate) fn placement_feasible(min_count: i32, scheduled: usize, remaining: usize) -> Status {
    let (s, r) = (scheduled as i64, remaining as i64);
    let min = i64::from(min_count);
    if s + r < min {
        Status::new(
            Code::Unschedulable,
            [format!(
                "minCount ({min}) cannot be satisfied: {s} scheduled, {r} remaining"
            )],
        )
    } else if s < min {
        Status::new(
            Code::Wait,
            [format!(
                "minCount ({min}) is not yet satisfied: {s} scheduled, {r} remaining"
            )],
        )
    } else {
        Status::success()
    }
}

/// The trace's PlacementFeasible check.
pub(crate) fn placement_check(min_count: i32, scheduled: usize, remaining: usize) -> PlacementCheck {
    let s = placement_feasible(min_count, scheduled, remaining);
    PlacementCheck {
        scheduled,
        remaining,
        code: s.code,
        reason: s.reasons.join(", "),
    }
}

/// Completes 1.37's PlacementFeasible trace once the pod's own attempt is known: `queued` when
/// PreEnqueue let it into the queue (else no pod-group cycle runs and the check is dropped),
/// `placed` when it found a node and was assumed and reserved there. Returns the note to add
/// when the pod-group cycle would not try any member.
pub(crate) fn finish_placement_feasible(
    gang: &mut GangTrace,
    queued: bool,
    placed: bool,
    release: &str,
) -> Option<String> {
    if !queued {
        gang.placement_feasible = None;
    }
    let pf = gang.placement_feasible.as_mut()?;
    if pf.before.code == Code::Unschedulable {
        pf.after_this_pod = None;
        return Some(format!(
            "{release}'s pod-group cycle tries no member of {}: PlacementFeasible returns Unschedulable before the first (\"{}\"), and every member fails with that status",
            gang.group, pf.before.reason
        ));
    }
    let scheduled = pf.before.scheduled + usize::from(placed);
    let remaining = pf.before.remaining.saturating_sub(1);
    pf.after_this_pod = Some(placement_check(pf.min_count, scheduled, remaining));
    None
}

/// A pod's group, as the release links it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Group {
    /// 1.35: namespace and workloadRef.
    Workload(String, WorkloadRef),
    /// 1.36: namespace and PodGroup name.
    PodGroup(String, String),
}

impl Group {
    /// `namespace/name` of the object naming it (Workload or PodGroup), with the group.
    pub(crate) fn describe(&self) -> String {
        match self {
            Group::Workload(ns, r) if r.pod_group_replica_key.is_empty() => {
                format!("Workload {ns}/{} pod group {}", r.name, r.pod_group)
            }
            Group::Workload(ns, r) => format!(
                "Workload {ns}/{} pod group {} replica {}",
                r.name, r.pod_group, r.pod_group_replica_key
            ),
            Group::PodGroup(ns, n) => format!("PodGroup {ns}/{n}"),
        }
    }
}

/// GangScheduling.
pub(crate) struct GangScheduling {
    /// 1.36's PodGroup API ([`Change::GangSchedulingReadsPodGroups`]).
    pod_groups: bool,
    /// 1.37's v1beta1 PodGroups ([`Change::GangSchedulingReadsV1Beta1PodGroups`]).
    v1beta1: bool,
    /// 1.37's PlacementFeasible ([`Change::GangSchedulingPlacementFeasible`]).
    placement_feasible: bool,
    /// "1.37": the release, as the explanation names it.
    release: String,
    /// 1.37's CompositePodGroup hierarchies (the alpha CompositePodGroup gate).
    composite: bool,
}

/// PreEnqueue and Permit for a PodGroup under a CompositePodGroup: the root's tree has not met
/// its quorum (`checkCPGHierarchyReadiness` / `permitPodForHierarchy`).
pub(crate) fn waiting_for_tree(root: &str) -> String {
    format!("waiting for composite pod group {root:?} tree to meet quorum")
}

/// `WorkloadMaxTreeDepth`: how many levels the walk up to the root follows.
const MAX_TREE_DEPTH: usize = 5;

/// Which pods of a PodGroup count towards its quorum in a hierarchy: PreEnqueue counts every
/// member the scheduler knows (`AllPodsCount`), Permit the scheduled ones (`ScheduledPodsCount`:
/// bound or assumed, this pod included).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Readiness {
    Known,
    Scheduled,
}

impl GangScheduling {
    /// The pod's group, if it has one.
    pub(crate) fn group_of(&self, pod: &Pod) -> Option<Group> {
        if self.pod_groups {
            pod.scheduling_group()
                .map(|n| Group::PodGroup(pod.key.namespace.to_string(), n.to_string()))
        } else {
            pod.workload_ref()
                .map(|r| Group::Workload(pod.key.namespace.to_string(), r))
        }
    }

    /// The group's policy, or why it cannot be found (PreEnqueue's message).
    fn policy<'c>(&self, cluster: &'c Cluster, g: &Group) -> Result<&'c SchedulingPolicy, String> {
        match g {
            Group::Workload(ns, r) => {
                let Some(w) = cluster
                    .workloads_v1alpha1
                    .get(&ObjectKey::new(ns.clone(), r.name.clone()))
                else {
                    return Err(format!(
                        "waiting for pods's workload {:?} to appear in scheduling queue",
                        r.name
                    ));
                };
                w.policy(&r.pod_group)
                    .ok_or_else(|| format!("pod group {:?} doesn't exist for a workload {:?}", r.pod_group, r.name))
            }
            Group::PodGroup(ns, n) => {
                let key = ObjectKey::new(ns.clone(), n.clone());
                let policy = if self.v1beta1 {
                    cluster
                        .pod_groups_v1beta1
                        .get(&key)
                        .map(|pg| &pg.spec.scheduling_policy)
                } else {
                    cluster
                        .scheduling_pod_groups
                        .get(&key)
                        .map(|pg| &pg.spec.scheduling_policy)
                };
                policy.ok_or_else(|| format!("waiting for pods's pod group {n:?} to appear in scheduling queue"))
            }
        }
    }

    /// The group's members the scheduler knows: (all, bound).
    fn members<'c>(&self, cx: &Ctx<'c>, g: &Group) -> (Vec<&'c Pod>, Vec<&'c Pod>) {
        let handle = &cx.snapshot.handle;
        let all: Vec<&Pod> = cx
            .snapshot
            .cluster
            .pods
            .iter()
            .map(|p| &**p)
            .filter(|p| !p.is_finished())
            .filter(|p| self.group_of(p).as_ref() == Some(g))
            .filter(|p| !self.pod_groups || p.node_name.is_some() || handle.serves(p.scheduler_name()))
            .collect();
        // A pod waiting at Permit is assumed on its node (nodeName set in the snapshot): it
        // counts once, as waiting.
        let bound = all
            .iter()
            .copied()
            .filter(|p| p.node_name.is_some() && !handle.is_waiting(&p.key))
            .collect();
        (all, bound)
    }

    /// With hierarchies on, a missing PodGroup fails the hierarchy snapshot first
    /// (`BuildHierarchySnapshotFromPod`), with this message.
    fn missing_group_message(&self, g: &Group) -> Option<String> {
        match g {
            Group::PodGroup(ns, n) if self.composite => Some(format!(
                "failed to build hierarchy snapshot: pod group object not found in state for podgroup/{ns}/{n}"
            )),
            _ => None,
        }
    }

    /// The parent CompositePodGroup of the pod's v1beta1 PodGroup, when hierarchies are on.
    fn parent_of(&self, cluster: &Cluster, g: &Group) -> Option<String> {
        let Group::PodGroup(ns, n) = g else { return None };
        if !self.composite {
            return None;
        }
        cluster
            .pod_groups_v1beta1
            .get(&ObjectKey::new(ns.clone(), n.clone()))?
            .spec
            .parent_composite_pod_group_name
            .clone()
    }

    /// The root of the hierarchy above CompositePodGroup `start` (`GetRootKeyForGroup`): None
    /// when a CompositePodGroup on the way is missing, or the chain is deeper than
    /// `WorkloadMaxTreeDepth` or loops.
    fn composite_root(cluster: &Cluster, ns: &str, start: &str) -> Option<String> {
        let mut current = start.to_string();
        for _ in 0..MAX_TREE_DEPTH {
            let cpg = cluster.composite_pod_groups.get(&ObjectKey::new(ns, &current))?;
            match &cpg.spec.parent_composite_pod_group_name {
                Some(parent) => current = parent.clone(),
                None => return Some(current),
            }
        }
        None
    }

    /// How many of PodGroup `name`'s pods count for `readiness` (the pod itself included when it
    /// belongs to that group).
    fn group_count(&self, cx: &Ctx<'_>, pi: &PodInfo, ns: &str, name: &str, readiness: Readiness) -> usize {
        let g = Group::PodGroup(ns.to_string(), name.to_string());
        let (all, bound) = self.members(cx, &g);
        let own = self.group_of(&pi.pod).as_ref() == Some(&g);
        match readiness {
            Readiness::Known => all.len() + usize::from(own && !all.iter().any(|p| p.key == pi.pod.key)),
            Readiness::Scheduled => {
                let waiting = cx
                    .snapshot
                    .handle
                    .waiting_pods()
                    .into_iter()
                    .filter(|w| w.pod.key != pi.pod.key && self.group_of(&w.pod).as_ref() == Some(&g))
                    .count();
                let bound = bound.iter().filter(|p| p.key != pi.pod.key).count();
                bound + waiting + usize::from(own)
            }
        }
    }

    /// `isCPGTreeReady`: CompositePodGroup `name` has at least its `minGroupCount` (1 for a basic
    /// policy) ready children, a child PodGroup being ready with `minCount` (1 for basic) pods
    /// counted by `readiness`, a child CompositePodGroup when its own tree is ready.
    fn tree_ready(&self, cx: &Ctx<'_>, pi: &PodInfo, ns: &str, name: &str, readiness: Readiness, depth: usize) -> bool {
        let cluster = &cx.snapshot.cluster;
        let Some(cpg) = cluster.composite_pod_groups.get(&ObjectKey::new(ns, name)) else {
            return false;
        };
        if depth > MAX_TREE_DEPTH {
            return false;
        }
        let need = cpg
            .spec
            .scheduling_policy
            .gang
            .as_ref()
            .map_or(1, |g| g.min_group_count);
        let mut ready: i64 = 0;
        for (k, pg) in &cluster.pod_groups_v1beta1 {
            if k.namespace == ns && pg.spec.parent_composite_pod_group_name.as_deref() == Some(name) {
                let min = pg.spec.scheduling_policy.gang.as_ref().map_or(1, |g| g.min_count);
                if self.group_count(cx, pi, ns, &k.name, readiness) as i64 >= i64::from(min) {
                    ready += 1;
                }
            }
        }
        for (k, c) in &cluster.composite_pod_groups {
            if k.namespace == ns
                && c.spec.parent_composite_pod_group_name.as_deref() == Some(name)
                && self.tree_ready(cx, pi, ns, &k.name, readiness, depth + 1)
            {
                ready += 1;
            }
        }
        ready >= i64::from(need)
    }

    /// The PodGroups of the tree under CompositePodGroup `name`.
    fn tree_pod_groups(cluster: &Cluster, ns: &str, name: &str, depth: usize, out: &mut Vec<String>) {
        if depth > MAX_TREE_DEPTH {
            return;
        }
        for (k, pg) in &cluster.pod_groups_v1beta1 {
            if k.namespace == ns && pg.spec.parent_composite_pod_group_name.as_deref() == Some(name) {
                out.push(k.name.to_string());
            }
        }
        for (k, c) in &cluster.composite_pod_groups {
            if k.namespace == ns && c.spec.parent_composite_pod_group_name.as_deref() == Some(name) {
                Self::tree_pod_groups(cluster, ns, &k.name, depth + 1, out);
            }
        }
    }

    /// The hierarchy's verdict for a pod whose PodGroup names `parent`: None when the root's tree
    /// meets its quorum, else the status (`checkCPGHierarchyReadiness`; `code` is the one for a
    /// tree short of its quorum).
    fn tree_short(
        &self,
        cx: &Ctx<'_>,
        pi: &PodInfo,
        ns: &str,
        parent: &str,
        readiness: Readiness,
        code: Code,
    ) -> Option<Status> {
        match Self::composite_root(&cx.snapshot.cluster, ns, parent) {
            Some(root) if self.tree_ready(cx, pi, ns, &root, readiness, 1) => None,
            Some(root) => Some(Status::new(code, [waiting_for_tree(&root)])),
            None => Some(Status::new(
                Code::UnschedulableAndUnresolvable,
                [format!(
                    "failed to build hierarchy snapshot: composite pod group object not found in state for compositepodgroup/{ns}/{parent}"
                )],
            )),
        }
    }

    /// `permitPodForHierarchy`: the pod waits until the root's tree meets its quorum with the
    /// scheduled (bound or assumed) pods counted, then every waiting pod of the tree is allowed.
    fn permit_hierarchy(
        &self,
        cx: &Ctx<'_>,
        pi: &PodInfo,
        ns: &str,
        parent: &str,
        notes: &mut Vec<String>,
    ) -> (Status, Duration) {
        match self.tree_short(cx, pi, ns, parent, Readiness::Scheduled, Code::Wait) {
            Some(s) if s.code == Code::Wait => {
                notes.push(format!(
                    "the CompositePodGroup tree above {ns}/{parent} has fewer than its root's minGroupCount ready child groups with this pod scheduled"
                ));
                return (s, PERMIT_TIMEOUT);
            }
            // A hierarchy without a root: upstream returns the error as is (such a pod is held
            // at PreEnqueue and never reaches Permit).
            Some(s) => return (Status::error(s.message()), Duration::ZERO),
            None => {}
        }
        let cluster = &cx.snapshot.cluster;
        let root = Self::composite_root(cluster, ns, parent).unwrap_or_else(|| parent.to_string());
        let mut groups = Vec::new();
        Self::tree_pod_groups(cluster, ns, &root, 1, &mut groups);
        let handle = &cx.snapshot.handle;
        for w in handle.waiting_pods() {
            let in_tree =
                matches!(self.group_of(&w.pod), Some(Group::PodGroup(wns, n)) if wns == ns && groups.contains(&n));
            if w.pod.key != pi.pod.key && in_tree {
                handle.allow(&w.pod.key, names::GANG_SCHEDULING);
                notes.push(format!("allowed waiting member {}", w.pod.key));
            }
        }
        notes.push(format!(
            "CompositePodGroup {ns}/{root} meets its quorum with this pod: every waiting pod of its tree is allowed"
        ));
        (Status::success(), Duration::ZERO)
    }
}

impl Plugin for GangScheduling {
    fn name(&self) -> &'static str {
        names::GANG_SCHEDULING
    }
}

impl PreEnqueuePlugin for GangScheduling {
    fn pre_enqueue(&self, cx: &Ctx<'_>, pi: &PodInfo) -> Status {
        let Some(g) = self.group_of(&pi.pod) else {
            return Status::success();
        };
        let policy = match self.policy(&cx.snapshot.cluster, &g) {
            Ok(p) => p,
            Err(e) => return Status::unresolvable(self.missing_group_message(&g).unwrap_or(e)),
        };
        if let (Some(parent), Group::PodGroup(ns, _)) = (self.parent_of(&cx.snapshot.cluster, &g), &g) {
            // Under a CompositePodGroup only the root's tree quorum decides.
            return self
                .tree_short(
                    cx,
                    pi,
                    ns,
                    &parent,
                    Readiness::Known,
                    Code::UnschedulableAndUnresolvable,
                )
                .unwrap_or_else(Status::success);
        }
        let Some(gang) = &policy.gang else {
            return Status::success();
        };
        let (all, _) = self.members(cx, &g);
        // The pod itself is known to the scheduler once it is in the queue.
        let known = all.len() + usize::from(!all.iter().any(|p| p.key == pi.pod.key));
        if (known as i64) < i64::from(gang.min_count) {
            return Status::unresolvable(WAITING_FOR_MEMBERS);
        }
        Status::success()
    }

    fn finish_gang(&self, gang: &mut GangTrace, queued: bool, placed: bool) -> Option<String> {
        finish_placement_feasible(gang, queued, placed, &self.release)
    }

    fn gang(&self, cx: &Ctx<'_>, pi: &PodInfo) -> Option<GangTrace> {
        let g = self.group_of(&pi.pod)?;
        let policy = self.policy(&cx.snapshot.cluster, &g).ok();
        let (all, bound) = self.members(cx, &g);
        let handle = &cx.snapshot.handle;
        let now = handle.now_ms();
        let waiting: Vec<_> = handle
            .waiting_pods()
            .into_iter()
            .filter(|w| w.pod.key != pi.pod.key && self.group_of(&w.pod).as_ref() == Some(&g))
            .collect();
        let group = if self.placement_feasible {
            format!(
                "{} ({} schedules the members together in a pod-group cycle; each is explained alone, with PlacementFeasible's verdict before any member and after this one)",
                g.describe(),
                self.release
            )
        } else if self.pod_groups {
            format!(
                "{} (1.36 schedules the members together in a pod-group cycle; each is explained alone, as upstream answers for one pod)",
                g.describe()
            )
        } else {
            g.describe()
        };
        let group = match (self.parent_of(&cx.snapshot.cluster, &g), &g) {
            (Some(parent), Group::PodGroup(ns, _)) => {
                let root = Self::composite_root(&cx.snapshot.cluster, ns, &parent);
                format!(
                    "{group}; under CompositePodGroup {ns}/{parent} (root: {}): PreEnqueue and Permit check the root's tree quorum (minGroupCount ready child groups)",
                    root.map_or_else(|| "not found".to_string(), |r| format!("{ns}/{r}"))
                )
            }
            _ => group,
        };
        let placement_feasible = match policy {
            Some(pol) if self.placement_feasible => {
                // The cycle tries the group's pending members this scheduler serves that are not
                // already assumed (waiting at Permit), this pod among them.
                let pending = all
                    .iter()
                    .filter(|p| p.node_name.is_none() && !waiting.iter().any(|w| w.pod.key == p.key))
                    .count();
                let remaining = pending + usize::from(!all.iter().any(|p| p.key == pi.pod.key));
                let min_count = pol.gang.as_ref().map_or(1, |gp| gp.min_count);
                Some(PlacementFeasibleTrace {
                    min_count,
                    before: placement_check(min_count, bound.len() + waiting.len(), remaining),
                    after_this_pod: None,
                })
            }
            _ => None,
        };
        Some(GangTrace {
            plugin: names::GANG_SCHEDULING.to_string(),
            group,
            found: policy.is_some(),
            min_member: policy.and_then(|p| p.gang.as_ref()).map_or(0, |gp| gp.min_count),
            members: all.len(),
            assigned: bound.len() + waiting.len(),
            timeout_ms: PERMIT_TIMEOUT.as_millis() as u64,
            waiting: waiting.iter().map(|w| w.member(now)).collect(),
            unplaced: all
                .iter()
                .filter(|p| p.node_name.is_none() && p.key != pi.pod.key)
                .filter(|p| !waiting.iter().any(|w| w.pod.key == p.key))
                .map(|p| p.key.clone())
                .collect(),
            placement_feasible,
            held_with: None,
        })
    }
}

impl ReservePlugin for GangScheduling {
    fn reserve(&self, _: &Ctx<'_>, _: &mut CycleState, pi: &PodInfo, _: &str, notes: &mut Vec<String>) -> Status {
        if let Some(g) = self.group_of(&pi.pod) {
            notes.push(format!("{} counts the pod as assumed", g.describe()));
        }
        Status::success()
    }

    fn unreserve(&self, _: &Ctx<'_>, _: &mut CycleState, _: &PodInfo, _: &str, _: &mut Vec<String>) {}
}

impl PermitPlugin for GangScheduling {
    fn permit(
        &self,
        cx: &Ctx<'_>,
        _: &mut CycleState,
        pi: &PodInfo,
        _: &str,
        notes: &mut Vec<String>,
    ) -> (Status, Duration) {
        let Some(g) = self.group_of(&pi.pod) else {
            return (Status::success(), Duration::ZERO);
        };
        let policy = match self.policy(&cx.snapshot.cluster, &g) {
            Ok(p) => p,
            Err(e) => {
                let e = match (&g, self.missing_group_message(&g)) {
                    (_, Some(m)) => m,
                    (Group::PodGroup(ns, n), None) => format!("failed to get podGroup {ns}/{n}: {e}"),
                    (Group::Workload(..), None) => e,
                };
                return (Status::error(e), Duration::ZERO);
            }
        };
        if let (Some(parent), Group::PodGroup(ns, _)) = (self.parent_of(&cx.snapshot.cluster, &g), &g) {
            return self.permit_hierarchy(cx, pi, ns, &parent, notes);
        }
        let Some(gang) = &policy.gang else {
            return (Status::success(), Duration::ZERO);
        };
        let (_, bound) = self.members(cx, &g);
        let handle = &cx.snapshot.handle;
        let waiting: Vec<_> = handle
            .waiting_pods()
            .into_iter()
            .filter(|w| w.pod.key != pi.pod.key && self.group_of(&w.pod).as_ref() == Some(&g))
            .collect();
        let scheduled = bound.len() + waiting.len() + 1;
        if (scheduled as i64) < i64::from(gang.min_count) {
            notes.push(format!(
                "{} has {scheduled} of minCount {} scheduled with this pod ({} bound, {} waiting at Permit)",
                g.describe(),
                gang.min_count,
                bound.len(),
                waiting.len()
            ));
            let (reason, timeout) = if self.pod_groups {
                (WAITING_ON_PERMIT_136, PERMIT_TIMEOUT)
            } else {
                // The group's deadline is set by its first wait; later members get the rest.
                let now = handle.now_ms();
                let first = waiting.iter().map(|w| w.since_ms).min().unwrap_or(now);
                let left = (first + PERMIT_TIMEOUT.as_millis() as u64).saturating_sub(now);
                let left = if left == 0 {
                    PERMIT_TIMEOUT.as_millis() as u64
                } else {
                    left
                };
                (WAITING_ON_PERMIT_135, Duration::from_millis(left))
            };
            return (Status::new(Code::Wait, [reason]), timeout);
        }
        for w in &waiting {
            handle.allow(&w.pod.key, names::GANG_SCHEDULING);
            notes.push(format!("allowed waiting member {}", w.pod.key));
        }
        notes.push(format!(
            "{} reaches minCount {} with this pod",
            g.describe(),
            gang.min_count
        ));
        (Status::success(), Duration::ZERO)
    }
}

/// Registers GangScheduling.
pub(crate) fn register(args: &Value, features: &Features) -> Result<PluginSlots, String> {
    if !args.is_null() && args.as_object().is_none_or(|m| !m.is_empty()) {
        return Err("GangScheduling takes no arguments".into());
    }
    let pod_groups = features.has(Change::GangSchedulingReadsPodGroups);
    let p = Arc::new(GangScheduling {
        pod_groups,
        v1beta1: features.has(Change::GangSchedulingReadsV1Beta1PodGroups),
        placement_feasible: features.has(Change::GangSchedulingPlacementFeasible),
        release: features.release().short(),
        composite: features.has(Change::GangSchedulingReadsV1Beta1PodGroups)
            && features.on(crate::engine::release::Gate::CompositePodGroup),
    });
    // 1.38 (#141182) drops Permit: PlacementFeasible already checks the quorum in the pod-group
    // cycle.
    let permit = !features.has(Change::GangSchedulingWithoutPermit);
    Ok(PluginSlots {
        pre_enqueue: Some(p.clone()),
        reserve: (!pod_groups).then(|| p.clone() as Arc<dyn ReservePlugin>),
        permit: permit.then_some(p),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::engine::build_profiles;
    use crate::engine::framework::runner::explain;
    use crate::engine::framework::snapshot::Snapshot;
    use crate::engine::framework::trace::Explanation;
    use crate::engine::release::{FeatureGates, Release};
    use crate::source::file::load_str;

    fn features(minor: u32) -> Features {
        let with = |gates: &str| {
            FeatureGates::parse(gates)
                .ok()
                .and_then(|g| Features::with_gates(Release::at(minor), &g).ok())
        };
        // 1.37 has no GangScheduling gate: GenericWorkload alone puts the plugin in the profile.
        with("GenericWorkload=true,GangScheduling=true")
            .or_else(|| with("GenericWorkload=true"))
            .unwrap()
    }

    /// Two nodes; `objects` and pods (YAML list items) added.
    fn run(objects: &str, pod: &str, minor: u32) -> Explanation {
        let text = format!(
            "apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: Node, metadata: {{name: n1}}, status: {{allocatable: {{cpu: '8', memory: 8Gi, pods: '10'}}}}}}\n{objects}"
        );
        let f = features(minor);
        let snap = Snapshot::new(Arc::new(load_str("t", &text).unwrap()), f.clone());
        explain(&snap, &build_profiles(None, f).unwrap(), &ObjectKey::parse(pod, "ml")).unwrap()
    }

    fn member(name: &str, link: &str, node: Option<&str>) -> String {
        let node = node.map(|n| format!(", nodeName: {n}")).unwrap_or_default();
        format!(
            "- {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: ml, uid: u-{name}}}, spec: {{containers: [{{name: c, image: i}}]{node}, {link}}}}}\n"
        )
    }

    const REF: &str = "workloadRef: {name: train, podGroup: workers}";
    const WORKLOAD: &str = "- {apiVersion: scheduling.k8s.io/v1alpha1, kind: Workload, metadata: {name: train, namespace: ml}, spec: {podGroups: [{name: workers, policy: {gang: {minCount: 3}}}]}}\n";

    fn gang_verdict(ex: &Explanation, point: &str) -> Option<(Code, Vec<String>)> {
        let list: Vec<(String, Code, Vec<String>)> = match point {
            "PreEnqueue" => ex
                .pre_enqueue
                .iter()
                .map(|s| (s.plugin.clone(), s.code, s.reasons.clone()))
                .collect(),
            _ => ex
                .binding_cycle
                .iter()
                .flat_map(|b| b.permit.iter())
                .map(|s| (s.plugin.clone(), s.code, s.reasons.clone()))
                .collect(),
        };
        list.into_iter()
            .find(|(p, ..)| p == names::GANG_SCHEDULING)
            .map(|(_, c, r)| (c, r))
    }

    #[test]
    fn pre_enqueue_1_35_workload_missing_group_missing_and_quorum() {
        let ex = run(&member("w0", REF, None), "w0", 35);
        assert_eq!(
            ex.message.as_deref(),
            Some("waiting for pods's workload \"train\" to appear in scheduling queue")
        );
        let other = WORKLOAD.replace("name: workers", "name: leaders");
        let ex = run(&format!("{other}{}", member("w0", REF, None)), "w0", 35);
        assert_eq!(
            ex.message.as_deref(),
            Some("pod group \"workers\" doesn't exist for a workload \"train\"")
        );
        // Two members known of minCount 3 (a terminal one does not count).
        let done = member("w2", REF, Some("n1")).replace("}}\n", "}, status: {phase: Succeeded}}\n");
        let ex = run(
            &format!("{WORKLOAD}{}{}{done}", member("w0", REF, None), member("w1", REF, None)),
            "w0",
            35,
        );
        assert_eq!(ex.message.as_deref(), Some(WAITING_FOR_MEMBERS));
        assert!(ex.pre_filter.is_empty(), "no cycle for a pod held before the queue");
    }

    #[test]
    fn permit_waits_for_min_count_and_counts_bound_members() {
        let pods = format!(
            "{WORKLOAD}{}{}{}",
            member("w0", REF, None),
            member("w1", REF, None),
            member("w2", REF, Some("n1"))
        );
        let ex = run(&pods, "w0", 35);
        assert_eq!(
            gang_verdict(&ex, "Permit"),
            Some((Code::Wait, vec![WAITING_ON_PERMIT_135.to_string()]))
        );
        let b = ex.binding_cycle.as_ref().unwrap();
        assert_eq!(b.permit[0].timeout_ms, Some(300_000));
        // A second bound member: 2 bound + this pod reach minCount 3.
        let pods = pods.replace(
            "name: w1, namespace: ml, uid: u-w1}, spec: {containers: [{name: c, image: i}]",
            "name: w1, namespace: ml, uid: u-w1}, spec: {containers: [{name: c, image: i}], nodeName: n1",
        );
        let ex = run(&pods, "w0", 35);
        assert_eq!(gang_verdict(&ex, "Permit"), Some((Code::Success, vec![])));
        // A replica key is a group of its own.
        let other = REF.replace("workers}", "workers, podGroupReplicaKey: r1}");
        let ex = run(
            &format!(
                "{WORKLOAD}{}{}{}",
                member("w0", &other, None),
                member("w1", REF, None),
                member("w2", REF, None)
            ),
            "w0",
            35,
        );
        assert_eq!(ex.message.as_deref(), Some(WAITING_FOR_MEMBERS));
    }

    #[test]
    fn release_1_36_reads_pod_groups_and_the_scheduler_s_own_pods() {
        let link = "schedulingGroup: {podGroupName: train-workers}";
        let pg = "- {apiVersion: scheduling.k8s.io/v1alpha2, kind: PodGroup, metadata: {name: train-workers, namespace: ml}, spec: {schedulingPolicy: {gang: {minCount: 2}}}}\n";
        let ex = run(&member("w0", link, None), "w0", 36);
        assert_eq!(
            ex.message.as_deref(),
            Some("waiting for pods's pod group \"train-workers\" to appear in scheduling queue")
        );
        // A pending member of a schedulerName no profile serves is not counted at 1.36.
        let foreign = member("w1", link, None).replace("containers:", "schedulerName: volcano, containers:");
        let ex = run(&format!("{pg}{}{foreign}", member("w0", link, None)), "w0", 36);
        assert_eq!(ex.message.as_deref(), Some(WAITING_FOR_MEMBERS));
        let ex = run(
            &format!("{pg}{}{}", member("w0", link, None), member("w1", link, None)),
            "w0",
            36,
        );
        assert_eq!(
            gang_verdict(&ex, "Permit"),
            Some((Code::Wait, vec![WAITING_ON_PERMIT_136.to_string()]))
        );
        // 1.35 ignores schedulingGroup: the pod has no group there.
        let ex = run(&format!("{pg}{}", member("w0", link, None)), "w0", 35);
        assert_eq!(gang_verdict(&ex, "Permit"), Some((Code::Success, vec![])));
        // Basic policy: no constraint.
        let basic = pg.replace("gang: {minCount: 2}", "basic: {}");
        let ex = run(&format!("{basic}{}", member("w0", link, None)), "w0", 36);
        assert_eq!(gang_verdict(&ex, "PreEnqueue"), Some((Code::Success, vec![])));
        assert_eq!(gang_verdict(&ex, "Permit"), Some((Code::Success, vec![])));
    }

    const LINK: &str = "schedulingGroup: {podGroupName: train-workers}";

    fn pod_group_137(policy: &str) -> String {
        format!(
            "- {{apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {{name: train-workers, namespace: ml}}, spec: {{schedulingPolicy: {{{policy}}}}}}}\n"
        )
    }

    fn placement(ex: &Explanation) -> Option<(i32, PlacementCheck, Option<PlacementCheck>)> {
        let pf = ex.gang.as_ref()?.placement_feasible.as_ref()?;
        Some((pf.min_count, pf.before.clone(), pf.after_this_pod.clone()))
    }

    fn check(scheduled: usize, remaining: usize, code: Code, reason: &str) -> PlacementCheck {
        PlacementCheck {
            scheduled,
            remaining,
            code,
            reason: reason.to_string(),
        }
    }

    #[test]
    fn placement_feasible_messages() {
        let s = placement_feasible(3, 1, 1);
        assert_eq!(s.code, Code::Unschedulable);
        assert_eq!(
            s.reasons,
            vec!["minCount (3) cannot be satisfied: 1 scheduled, 1 remaining"]
        );
        let s = placement_feasible(3, 1, 2);
        assert_eq!(s.code, Code::Wait);
        assert_eq!(
            s.reasons,
            vec!["minCount (3) is not yet satisfied: 1 scheduled, 2 remaining"]
        );
        let s = placement_feasible(3, 3, 0);
        assert_eq!((s.code, s.reasons.to_strings()), (Code::Success, Vec::<String>::new()));
        // A basic group's quorum is 1.
        let s = placement_feasible(1, 0, 1);
        assert_eq!(
            s.reasons,
            vec!["minCount (1) is not yet satisfied: 0 scheduled, 1 remaining"]
        );
    }

    #[test]
    fn release_1_37_reads_v1beta1_pod_groups_with_1_36_pre_enqueue_messages() {
        let ex = run(&member("w0", LINK, None), "w0", 37);
        // The "pods's" typo is still in v1.37.0 (fixed on master afterwards).
        assert_eq!(
            ex.message.as_deref(),
            Some("waiting for pods's pod group \"train-workers\" to appear in scheduling queue")
        );
        assert_eq!(
            gang_verdict(&ex, "PreEnqueue").map(|v| v.0),
            Some(Code::UnschedulableAndUnresolvable)
        );
        assert_eq!(
            placement(&ex),
            None,
            "no pod-group cycle for a pod held before the queue"
        );
        // A v1alpha2 PodGroup is not read at 1.37 (the version is no longer served).
        let old = pod_group_137("gang: {minCount: 2}").replace("v1beta1", "v1alpha2");
        let ex = run(&format!("{old}{}", member("w0", LINK, None)), "w0", 37);
        assert_eq!(
            ex.message.as_deref(),
            Some("waiting for pods's pod group \"train-workers\" to appear in scheduling queue")
        );
        let ex = run(
            &format!("{}{}", pod_group_137("gang: {minCount: 2}"), member("w0", LINK, None)),
            "w0",
            37,
        );
        assert_eq!(ex.message.as_deref(), Some(WAITING_FOR_MEMBERS));
        // 1.36 does not read a v1beta1 PodGroup.
        let ex = run(
            &format!("{}{}", pod_group_137("gang: {minCount: 1}"), member("w0", LINK, None)),
            "w0",
            36,
        );
        assert_eq!(
            ex.message.as_deref(),
            Some("waiting for pods's pod group \"train-workers\" to appear in scheduling queue")
        );
    }

    #[test]
    fn release_1_37_permit_waits_and_placement_feasible_counts_scheduled_and_remaining() {
        let pods = format!(
            "{}{}{}{}",
            pod_group_137("gang: {minCount: 3}"),
            member("w0", LINK, None),
            member("w1", LINK, None),
            member("w2", LINK, Some("n1"))
        );
        let ex = run(&pods, "w0", 37);
        assert_eq!(gang_verdict(&ex, "PreEnqueue"), Some((Code::Success, vec![])));
        // Permit is still in v1.37.0, with 1.36's reason and timeout.
        assert_eq!(
            gang_verdict(&ex, "Permit"),
            Some((Code::Wait, vec![WAITING_ON_PERMIT_136.to_string()]))
        );
        assert_eq!(ex.binding_cycle.as_ref().unwrap().permit[0].timeout_ms, Some(300_000));
        assert_eq!(
            placement(&ex),
            Some((
                3,
                check(
                    1,
                    2,
                    Code::Wait,
                    "minCount (3) is not yet satisfied: 1 scheduled, 2 remaining"
                ),
                Some(check(
                    2,
                    1,
                    Code::Wait,
                    "minCount (3) is not yet satisfied: 2 scheduled, 1 remaining"
                )),
            ))
        );
        // Two bound members: this pod completes the gang.
        let pods = pods.replace(
            "name: w1, namespace: ml, uid: u-w1}, spec: {containers: [{name: c, image: i}]",
            "name: w1, namespace: ml, uid: u-w1}, spec: {containers: [{name: c, image: i}], nodeName: n1",
        );
        let ex = run(&pods, "w0", 37);
        assert_eq!(gang_verdict(&ex, "Permit"), Some((Code::Success, vec![])));
        assert_eq!(
            placement(&ex),
            Some((
                3,
                check(
                    2,
                    1,
                    Code::Wait,
                    "minCount (3) is not yet satisfied: 2 scheduled, 1 remaining"
                ),
                Some(check(3, 0, Code::Success, "")),
            ))
        );
    }

    // kubernetes#141182 (1.38): the case of release_1_37_permit_waits_... without Permit: the
    // member that 1.37 holds at Permit ("... to be scheduled", 5 minutes) goes on to bind, and
    // PlacementFeasible counts as at 1.37.
    #[test]
    fn release_1_38_has_no_permit_and_keeps_placement_feasible() {
        let pods = format!(
            "{}{}{}{}",
            pod_group_137("gang: {minCount: 3}"),
            member("w0", LINK, None),
            member("w1", LINK, None),
            member("w2", LINK, Some("n1"))
        );
        let ex = run(&pods, "w0", 38);
        assert_eq!(gang_verdict(&ex, "PreEnqueue"), Some((Code::Success, vec![])));
        assert_eq!(gang_verdict(&ex, "Permit"), None);
        let b = ex.binding_cycle.as_ref().expect("binding cycle");
        assert!(b.permit.iter().all(|p| p.plugin != "GangScheduling"), "{:?}", b.permit);
        assert_eq!(
            placement(&ex),
            Some((
                3,
                check(
                    1,
                    2,
                    Code::Wait,
                    "minCount (3) is not yet satisfied: 1 scheduled, 2 remaining"
                ),
                Some(check(
                    2,
                    1,
                    Code::Wait,
                    "minCount (3) is not yet satisfied: 2 scheduled, 1 remaining"
                )),
            ))
        );
        // The profile's Permit plugins: GangScheduling at 1.37, none at 1.38.
        let permit_plugins = |minor| {
            let profiles = build_profiles(None, features(minor)).unwrap();
            profiles[0].permit.iter().map(|p| p.name()).collect::<Vec<_>>()
        };
        assert_eq!(permit_plugins(37), vec!["GangScheduling"]);
        assert!(permit_plugins(38).is_empty());
    }

    #[test]
    fn release_1_37_a_member_that_fits_nowhere_leaves_the_quorum_unreachable() {
        let big = member("w0", LINK, None).replace(
            "containers: [{name: c, image: i}]",
            "containers: [{name: c, image: i, resources: {requests: {cpu: '64'}}}]",
        );
        let pods = format!(
            "{}{big}{}",
            pod_group_137("gang: {minCount: 2}"),
            member("w1", LINK, None)
        );
        let ex = run(&pods, "w0", 37);
        assert_eq!(
            placement(&ex),
            Some((
                2,
                check(
                    0,
                    2,
                    Code::Wait,
                    "minCount (2) is not yet satisfied: 0 scheduled, 2 remaining"
                ),
                Some(check(
                    0,
                    1,
                    Code::Unschedulable,
                    "minCount (2) cannot be satisfied: 0 scheduled, 1 remaining"
                )),
            ))
        );
        assert!(ex.binding_cycle.is_none());
        // A basic group needs one scheduled member.
        let ex = run(
            &format!("{}{}", pod_group_137("basic: {}"), member("w0", LINK, None)),
            "w0",
            37,
        );
        assert_eq!(gang_verdict(&ex, "Permit"), Some((Code::Success, vec![])));
        assert_eq!(
            placement(&ex),
            Some((
                1,
                check(
                    0,
                    1,
                    Code::Wait,
                    "minCount (1) is not yet satisfied: 0 scheduled, 1 remaining"
                ),
                Some(check(1, 0, Code::Success, "")),
            ))
        );
    }

    #[test]
    fn release_1_37_holds_the_group_while_a_member_is_held() {
        let gated = member("w1", LINK, None).replace("containers:", "schedulingGates: [{name: quota}], containers:");
        let pods = format!(
            "{}{}{gated}",
            pod_group_137("gang: {minCount: 2}"),
            member("w0", LINK, None)
        );
        let ex = run(&pods, "w0", 37);
        // The pod itself passes PreEnqueue (two members known), but its group waits for w1.
        assert_eq!(gang_verdict(&ex, "PreEnqueue"), Some((Code::Success, vec![])));
        assert!(
            ex.notes.contains(&"1.37 queues PodGroup ml/train-workers as one entity and holds it before the queue while any member is held: ml/w1 is held by SchedulingGates (waiting for scheduling gates: [quota]), so no member of the group is tried".to_string()),
            "{:?}",
            ex.notes
        );
        assert_eq!(placement(&ex), None);
        assert_eq!(
            ex.gang.as_ref().and_then(|g| g.held_with.clone()),
            Some(crate::engine::framework::trace::HeldMember {
                pod: ObjectKey::new("ml", "w1"),
                plugin: names::SCHEDULING_GATES.to_string(),
                reason: "waiting for scheduling gates: [quota]".to_string(),
            })
        );
        let q = crate::engine::queue::entry(&ex, None);
        assert_eq!(q.pool, crate::engine::queue::Pool::HeldBeforeQueue);
        assert_eq!(q.plugins, vec![names::SCHEDULING_GATES.to_string()]);
        assert_eq!(
            q.reason,
            "its pod group waits for member ml/w1: waiting for scheduling gates: [quota]"
        );
        // 1.36 schedules members one by one: no such hold.
        let pods136 = pods.replace("v1beta1", "v1alpha2");
        let ex = run(&pods136, "w0", 36);
        assert!(ex.notes.iter().all(|n| !n.contains("one entity")), "{:?}", ex.notes);
    }

    #[test]
    fn release_1_37_without_generic_workload_has_no_gang_scheduling() {
        let pods = format!("{}{}", pod_group_137("gang: {minCount: 3}"), member("w0", LINK, None));
        let text = format!(
            "apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: Node, metadata: {{name: n1}}, status: {{allocatable: {{cpu: '8', memory: 8Gi, pods: '10'}}}}}}\n{pods}"
        );
        let f: Features = Release::at(37).into();
        let snap = Snapshot::new(Arc::new(load_str("t", &text).unwrap()), f.clone());
        let ex = explain(&snap, &build_profiles(None, f).unwrap(), &ObjectKey::parse("w0", "ml")).unwrap();
        assert_eq!(gang_verdict(&ex, "PreEnqueue"), None);
        assert_eq!(ex.gang, None);
        assert_eq!(ex.binding_cycle.as_ref().map(|b| b.node.as_str()), Some("n1"));
        // GangScheduling is not a 1.37 gate.
        assert!(
            FeatureGates::parse("GangScheduling=true")
                .ok()
                .and_then(|g| Features::with_gates(Release::at(37), &g).ok())
                .is_none()
        );
    }

    #[test]
    fn not_in_the_profile_without_the_gates() {
        let f: Features = Release::at(36).into();
        let fw = build_profiles(None, f).unwrap();
        assert!(fw[0].plugins_at("Permit").iter().all(|p| *p != names::GANG_SCHEDULING));
        let fw = build_profiles(None, features(36)).unwrap();
        assert_eq!(fw[0].plugins_at("Permit"), vec![names::GANG_SCHEDULING]);
    }

    /// Upstream's `TestGangSchedulingFlow` hierarchy (gangscheduling_test.go, the v1.37
    /// version with Permit): CompositePodGroup cpg-root (gang, minGroupCount 2) over cpg-sub1
    /// (gang 2: pg1..pg3, minCount 1), cpg-sub2 (basic: pg4 basic, pg5 minCount 1) and cpg-sub3
    /// (gang 2: pg6, pg7, minCount 1), in namespace ns1; a second tree cpg-basic-root (basic)
    /// over pg-basic-1 and pg-basic-2 (minCount 2).
    mod composite {
        use super::*;

        fn cpg(name: &str, parent: Option<&str>, policy: &str) -> String {
            let parent = parent
                .map(|p| format!("parentCompositePodGroupName: {p}, "))
                .unwrap_or_default();
            format!(
                "- {{apiVersion: scheduling.k8s.io/v1alpha3, kind: CompositePodGroup, metadata: {{name: {name}, namespace: ns1}}, spec: {{{parent}schedulingPolicy: {{{policy}}}}}}}\n"
            )
        }

        fn pg(name: &str, parent: &str, policy: &str) -> String {
            format!(
                "- {{apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {{name: {name}, namespace: ns1}}, spec: {{parentCompositePodGroupName: {parent}, schedulingPolicy: {{{policy}}}}}}}\n"
            )
        }

        fn pod(name: &str, group: &str, node: Option<&str>) -> String {
            let node = node.map(|n| format!(", nodeName: {n}")).unwrap_or_default();
            format!(
                "- {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: ns1, uid: {name}}}, spec: {{containers: [{{name: c, image: i}}]{node}, schedulingGroup: {{podGroupName: {group}}}}}}}\n"
            )
        }

        fn tree() -> String {
            let one = "gang: {minCount: 1}";
            [
                cpg("cpg-root", None, "gang: {minGroupCount: 2}"),
                cpg("cpg-sub1", Some("cpg-root"), "gang: {minGroupCount: 2}"),
                cpg("cpg-sub2", Some("cpg-root"), "basic: {}"),
                cpg("cpg-sub3", Some("cpg-root"), "gang: {minGroupCount: 2}"),
                pg("pg1-cpg", "cpg-sub1", one),
                pg("pg2-cpg", "cpg-sub1", one),
                pg("pg3-cpg", "cpg-sub1", one),
                pg("pg4-cpg", "cpg-sub2", "basic: {}"),
                pg("pg5-cpg", "cpg-sub2", one),
                pg("pg6-cpg", "cpg-sub3", one),
                pg("pg7-cpg", "cpg-sub3", one),
            ]
            .concat()
        }

        fn basic_tree() -> String {
            [
                cpg("cpg-basic-root", None, "basic: {}"),
                pg("pg-basic-1", "cpg-basic-root", "gang: {minCount: 2}"),
                pg("pg-basic-2", "cpg-basic-root", "gang: {minCount: 2}"),
            ]
            .concat()
        }

        /// `objects` at 1.37 with GenericWorkload and, when `cpg`, CompositePodGroup on.
        fn run37(objects: &str, pod: &str, cpg: bool) -> Explanation {
            let text = format!(
                "apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: Node, metadata: {{name: n1}}, status: {{allocatable: {{cpu: '8', memory: 8Gi, pods: '20'}}}}}}\n{objects}"
            );
            let gates = if cpg {
                "GenericWorkload=true,CompositePodGroup=true"
            } else {
                "GenericWorkload=true"
            };
            let f = Features::with_gates(Release::at(37), &FeatureGates::parse(gates).unwrap()).unwrap();
            let snap = Snapshot::new(Arc::new(load_str("t", &text).unwrap()), f.clone());
            explain(&snap, &build_profiles(None, f).unwrap(), &ObjectKey::new("ns1", pod)).unwrap()
        }

        fn tree_waits(root: &str) -> Vec<String> {
            vec![format!(
                "waiting for composite pod group \"{root}\" tree to meet quorum"
            )]
        }

        #[test]
        fn cpg_hierarchical_stage_1_no_pods_tree_not_ready() {
            let objects = format!("{}{}", tree(), pod("p1-cpg", "pg1-cpg", None));
            let ex = run37(&objects, "p1-cpg", true);
            assert_eq!(
                gang_verdict(&ex, "PreEnqueue"),
                Some((Code::UnschedulableAndUnresolvable, tree_waits("cpg-root")))
            );
            assert_eq!(
                ex.message.as_deref(),
                Some("waiting for composite pod group \"cpg-root\" tree to meet quorum")
            );
            // what is not reproduced at 1.37 is said in the explanation
            let tree_note = |ex: &Explanation| {
                ex.notes.iter().any(|n| {
                    n.starts_with("PodGroup ns1/pg1-cpg belongs to CompositePodGroup ns1/")
                        && n.contains("is not reproduced")
                })
            };
            let wap_note = |ex: &Explanation| {
                ex.notes
                    .iter()
                    .any(|n| n.starts_with("not exact at 1.37: the group's preemption"))
            };
            assert!(tree_note(&ex), "{:?}", ex.notes);
            assert!(wap_note(&ex), "{:?}", ex.notes);
            // CPG=false: the parent is ignored, pg1-cpg's minCount 1 is met by the pod itself.
            let ex = run37(&objects, "p1-cpg", false);
            assert!(!tree_note(&ex), "{:?}", ex.notes);
            assert_eq!(gang_verdict(&ex, "PreEnqueue"), Some((Code::Success, vec![])));
            assert_eq!(gang_verdict(&ex, "Permit"), Some((Code::Success, vec![])));
        }

        #[test]
        fn cpg_hierarchical_stage_2_add_p6_cpg_sub1_ready_but_root_not_ready() {
            let objects = format!(
                "{}{}{}{}",
                tree(),
                pod("p1-cpg", "pg1-cpg", None),
                pod("p2-cpg", "pg2-cpg", None),
                pod("p6-cpg", "pg6-cpg", None)
            );
            let ex = run37(&objects, "p6-cpg", true);
            assert_eq!(
                gang_verdict(&ex, "PreEnqueue"),
                Some((Code::UnschedulableAndUnresolvable, tree_waits("cpg-root")))
            );
            let ex = run37(&objects, "p6-cpg", false);
            assert_eq!(gang_verdict(&ex, "PreEnqueue"), Some((Code::Success, vec![])));
            assert_eq!(gang_verdict(&ex, "Permit"), Some((Code::Success, vec![])));
        }

        #[test]
        fn cpg_hierarchical_stage_3_add_p4_root_becomes_ready() {
            // p1, p2 and p6 are scheduled (upstream: waiting on Permit; both count as scheduled).
            let objects = format!(
                "{}{}{}{}{}",
                tree(),
                pod("p1-cpg", "pg1-cpg", Some("n1")),
                pod("p2-cpg", "pg2-cpg", Some("n1")),
                pod("p6-cpg", "pg6-cpg", Some("n1")),
                pod("p4-cpg", "pg4-cpg", None)
            );
            let ex = run37(&objects, "p4-cpg", true);
            assert_eq!(gang_verdict(&ex, "PreEnqueue"), Some((Code::Success, vec![])));
            assert_eq!(gang_verdict(&ex, "Permit"), Some((Code::Success, vec![])));
            let ex = run37(&objects, "p4-cpg", false);
            assert_eq!(gang_verdict(&ex, "PreEnqueue"), Some((Code::Success, vec![])));
        }

        #[test]
        fn cpg_permit_wait_hierarchical_gang_waits_at_permit_if_gang_isnt_fully_scheduled() {
            let objects = format!(
                "{}{}{}{}{}",
                tree(),
                pod("p1-cpg", "pg1-cpg", None),
                pod("p2-cpg", "pg2-cpg", None),
                pod("p6-cpg", "pg6-cpg", None),
                pod("p4-cpg", "pg4-cpg", None)
            );
            let ex = run37(&objects, "p4-cpg", true);
            assert_eq!(gang_verdict(&ex, "PreEnqueue"), Some((Code::Success, vec![])));
            assert_eq!(gang_verdict(&ex, "Permit"), Some((Code::Wait, tree_waits("cpg-root"))));
            assert_eq!(ex.binding_cycle.as_ref().unwrap().permit[0].timeout_ms, Some(300_000));
            let ex = run37(&objects, "p4-cpg", false);
            assert_eq!(gang_verdict(&ex, "Permit"), Some((Code::Success, vec![])));
        }

        #[test]
        fn cpg_basic_with_gang_stage_1_pg1_ready_root_ready() {
            let objects = format!(
                "{}{}{}{}",
                basic_tree(),
                pod("p1_1", "pg-basic-1", None),
                pod("p1_2", "pg-basic-1", None),
                pod("p2_1", "pg-basic-2", None)
            );
            // The basic root needs one ready child: pg-basic-1 has its two pods, so p2_1 is
            // queued although its own group has one of two; at Permit nothing else is scheduled.
            let ex = run37(&objects, "p2_1", true);
            assert_eq!(gang_verdict(&ex, "PreEnqueue"), Some((Code::Success, vec![])));
            assert_eq!(
                gang_verdict(&ex, "Permit"),
                Some((Code::Wait, tree_waits("cpg-basic-root")))
            );
            let ex = run37(&objects, "p2_1", false);
            assert_eq!(
                gang_verdict(&ex, "PreEnqueue"),
                Some((
                    Code::UnschedulableAndUnresolvable,
                    vec![WAITING_FOR_MEMBERS.to_string()]
                ))
            );
        }

        #[test]
        fn gang_pod_fails_pre_enqueue_when_pod_group_is_not_yet_created() {
            let ex = run37(&pod("p1", "pg1", None), "p1", true);
            assert_eq!(
                ex.message.as_deref(),
                Some("failed to build hierarchy snapshot: pod group object not found in state for podgroup/ns1/pg1")
            );
            let ex = run37(&pod("p1", "pg1", None), "p1", false);
            assert_eq!(
                ex.message.as_deref(),
                Some("waiting for pods's pod group \"pg1\" to appear in scheduling queue")
            );
        }

        #[test]
        fn root_missing_fails_the_hierarchy_snapshot() {
            let objects = format!("{}{}", pg("leaf", "child", "basic: {}"), pod("p", "leaf", None));
            let ex = run37(&objects, "p", true);
            assert_eq!(
                gang_verdict(&ex, "PreEnqueue"),
                Some((
                    Code::UnschedulableAndUnresolvable,
                    vec!["failed to build hierarchy snapshot: composite pod group object not found in state for compositepodgroup/ns1/child".to_string()]
                ))
            );
            // A nested child ready under a root short of its quorum.
            let objects = format!(
                "{}{}{}{}",
                cpg("root", None, "gang: {minGroupCount: 2}"),
                cpg("child", Some("root"), "basic: {}"),
                pg("leaf", "child", "basic: {}"),
                pod("p", "leaf", None)
            );
            let ex = run37(&objects, "p", true);
            assert_eq!(
                gang_verdict(&ex, "PreEnqueue"),
                Some((Code::UnschedulableAndUnresolvable, tree_waits("root")))
            );
            // Another ready child meets the root's gang.
            let objects = format!(
                "{objects}{}{}",
                pg("other", "root", "basic: {}"),
                pod("o", "other", None)
            );
            let ex = run37(&objects, "p", true);
            assert_eq!(gang_verdict(&ex, "PreEnqueue"), Some((Code::Success, vec![])));
            assert!(
                ex.gang
                    .as_ref()
                    .unwrap()
                    .group
                    .contains("under CompositePodGroup ns1/child (root: ns1/root)"),
                "{:?}",
                ex.gang
            );
        }
    }
}
