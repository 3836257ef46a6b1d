//! A gang as one unit: the pending members of the pod's group scheduled one after the other
//! on the same cluster (each one sees the members placed before it), as the queue would take
//! them, and whether the group reaches its quorum.
//!
//! An explanation answers for one pod alone, as upstream's own framework does; a gang is only
//! understood as a whole: which members fit, which wait at Permit for how long, and which one
//! keeps the group from ever completing. This is one pass of the queue simulation
//! ([`super::simulate`]) restricted to the group's pending members; the other pending pods are
//! left as they are (nominated pods keep their place). It works for Coscheduling
//! (scheduler-plugins) and for the native GangScheduling plugin alike; 1.36's pod-group cycle
//! takes the members in the same order (priority, then queue time) with the same effect on the
//! snapshot; as 1.36's `podGroupSchedulingDefaultAlgorithm` (v1.36.2), a native PodGroup's cycle
//! is Unschedulable when none of its pending members finds a node, even with its quorum met
//! (a basic policy, or bound members enough). When workload-aware preemption is on (1.36
//! WorkloadAwarePreemption, 1.37 GenericWorkload) and a native PodGroup's cycle ends
//! Unschedulable, the group then preempts as a whole ([`super::group_preemption`]), each trial
//! of its algorithm being this pass on the cluster without the victims tried.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Serialize;

use super::framework::placement::{self, PlacementScores};
use super::framework::plugin::{Ctx, Placement, PodGroupAssignments, PodGroupView};
use super::framework::runner::{self, EngineError};
use super::framework::runtime::Framework;
use super::framework::snapshot::Snapshot;
use super::framework::status::Code;
use super::framework::trace::GangTrace;
use super::group_preemption::{self, GroupAttempt, GroupPreemption, MemberNode};
use super::plugins::gang_scheduling::placement_feasible;
use super::release::{Change, Features, Gate};
use super::simulate::{AttemptOutcome, Detail, EventKind, FinalState, SimOptions, simulate};
use crate::model::{Cluster, ObjectKey};

/// What became of one pending member in the group's pass.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "result")]
pub enum MemberResult {
    /// Bound: the group reached its quorum and Permit allowed it.
    Bound {
        /// Node.
        node: String,
    },
    /// Assumed on the node, waiting at Permit for the quorum.
    Waiting {
        /// Node.
        node: String,
    },
    /// Held before the queue by a PreEnqueue plugin.
    Held {
        /// Plugin.
        plugin: String,
        /// Message.
        message: String,
    },
    /// No node fits; preemption nominated a node (victims deleted first).
    Preempting {
        /// Nominated node.
        node: String,
        /// Victims.
        victims: Vec<ObjectKey>,
        /// The PodScheduled message.
        message: String,
    },
    /// It waited at Permit on the node, then was rejected while the group was short (another
    /// member failed, or the wait timed out): the message it got.
    Released {
        /// The node it waited on.
        node: String,
        /// The rejection.
        message: String,
    },
    /// 1.38 (no Permit): it fit, and the pod-group cycle rejected it with the group when
    /// PlacementFeasible found the quorum out of reach: the group's status.
    Rejected {
        /// The node it fit on.
        node: String,
        /// PlacementFeasible's status.
        message: String,
    },
    /// No node fits (or Reserve/Permit rejected it): the PodScheduled message.
    Unschedulable {
        /// Message.
        message: String,
    },
    /// Not attempted (no profile serves it, or an error): why.
    NotScheduled {
        /// Why.
        message: String,
    },
}

impl MemberResult {
    /// True when the member holds a node for the group (bound or waiting).
    pub fn placed(&self) -> bool {
        matches!(self, MemberResult::Bound { .. } | MemberResult::Waiting { .. })
    }

    /// True when the member found a node (even if the group's failure released it).
    pub fn fits(&self) -> bool {
        self.placed() || matches!(self, MemberResult::Released { .. } | MemberResult::Rejected { .. })
    }

    /// One line.
    pub fn describe(&self) -> String {
        match self {
            MemberResult::Bound { node } => format!("binds to {node}"),
            MemberResult::Waiting { node } => format!("waits at Permit on {node}"),
            MemberResult::Held { plugin, message } => format!("held before the queue by {plugin}: {message}"),
            MemberResult::Preempting { node, victims, .. } => {
                let v: Vec<String> = victims.iter().map(ToString::to_string).collect();
                format!(
                    "preempts on {node} (victims: {}), then waits for them to go",
                    v.join(", ")
                )
            }
            MemberResult::Released { node, message } => {
                format!("fits on {node} and waited at Permit, then was rejected: {message}")
            }
            MemberResult::Rejected { node, message } => {
                format!("fits on {node}, then the pod-group cycle rejected it with the group: {message}")
            }
            MemberResult::Unschedulable { message } => format!("unschedulable: {message}"),
            MemberResult::NotScheduled { message } => message.clone(),
        }
    }
}

/// One member.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    /// The pod.
    pub pod: ObjectKey,
    /// What became of it.
    #[serde(flatten)]
    pub result: MemberResult,
}

/// Whether the group completes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum GroupOutcome {
    /// The quorum is reached: the placed members bind.
    Completes,
    /// The group object (PodGroup, Workload) does not exist.
    NoGroupObject,
    /// Fewer members exist than the quorum: more pods must be created.
    TooFewMembers {
        /// Members that exist (not finished).
        have: usize,
        /// The quorum.
        need: usize,
    },
    /// Not enough members fit: the placed ones wait at Permit until the timeout, then are
    /// rejected and retried; the blockers are the members that could not be placed.
    Short {
        /// Members bound before plus members that fit now.
        placed: usize,
        /// The quorum.
        need: usize,
        /// Pending members that fit nowhere (held, unschedulable, preempting).
        blockers: Vec<ObjectKey>,
    },
    /// 1.36's placement algorithm stopped before any member was tried (the placements
    /// could not be generated or scored).
    NoPlacement {
        /// The status.
        message: String,
        /// Its code (Unschedulable lets workload-aware preemption run).
        #[serde(skip)]
        code: Code,
    },
}

/// The group's pass.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupCycle {
    /// The gang as the pod's Permit plugin sees it.
    #[serde(skip)]
    pub gang: GangTrace,
    /// Members already on a node before the pass.
    pub bound_before: usize,
    /// Pending members in the order they were tried.
    pub members: Vec<Member>,
    /// The outcome.
    pub outcome: GroupOutcome,
    /// 1.36's TopologyAwareWorkloadScheduling: the placements the group was tried in (the
    /// members and outcome above are the chosen placement's, or the first placement's when
    /// the group fits in none, as upstream reports it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placements: Option<PlacementsTrace>,
    /// Workload-aware preemption (1.36 WorkloadAwarePreemption, 1.37 GenericWorkload): run when
    /// the native pod group does not fit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption: Option<GroupPreemption>,
    /// 1.38: GangScheduling has no Permit, so nothing waits for the quorum (#141182).
    #[serde(skip)]
    pub without_permit: bool,
}

/// The placements of a pod-group cycle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementsTrace {
    /// The profile's PlacementGenerate plugin (None: the one placement of every node).
    pub generator: Option<String>,
    /// The PodGroup's topology key (schedulingConstraints.topology[0].key).
    pub topology_key: Option<String>,
    /// Each placement and what became of the group in it, in domain order.
    pub tried: Vec<PlacementTry>,
    /// The PlacementScore scores, when more than one placement fits.
    pub scores: Vec<PlacementScores>,
    /// The placement chosen (None when none fits).
    pub chosen: Option<String>,
    /// Placements tied at the best score (upstream picks one of them at random; kschedtui
    /// answers with the first and lists them all).
    pub tied: Vec<String>,
    /// The group's status when it fits nowhere, or the error that stopped the cycle.
    pub message: Option<String>,
}

/// The group in one placement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementTry {
    /// The placement (the domain).
    pub name: String,
    /// Its nodes.
    pub nodes: Vec<String>,
    /// Whether the group completes in it.
    pub fits: bool,
    /// The group's verdict in it.
    pub verdict: String,
    /// Its members' results in it.
    pub members: Vec<Member>,
}

impl GroupCycle {
    /// The group's story in a few words, the same wherever a member is shown (the pod list's
    /// column, the head of a member's view, its text report): `gang NAME: 3/4 fit, blocked by
    /// POD` (members placed or fitting of the quorum).
    pub fn headline(&self) -> String {
        let g = &self.gang;
        let name = g.group.split(" (").next().unwrap_or(&g.group);
        let what = match &self.outcome {
            GroupOutcome::Completes => format!(
                "{}/{} placed, completes",
                self.bound_before + self.members.iter().filter(|m| m.result.placed()).count(),
                g.min_member
            ),
            GroupOutcome::NoGroupObject => "no group object, no member is scheduled".into(),
            GroupOutcome::NoPlacement { message, .. } => format!("no placement: {message}"),
            GroupOutcome::TooFewMembers { have, need } => format!("{have}/{need} members exist"),
            GroupOutcome::Short { placed, need, .. }
                if placed >= need && !self.members.iter().any(|m| m.result.fits()) =>
            {
                "no pending member finds a node".into()
            }
            GroupOutcome::Short { placed, need, blockers } => {
                let b: Vec<String> = blockers.iter().map(ToString::to_string).collect();
                format!("{placed}/{need} fit, blocked by {}", b.join(", "))
            }
        };
        format!("gang {name}: {what}")
    }

    /// The group completes: its members bind.
    pub fn completes(&self) -> bool {
        matches!(self.outcome, GroupOutcome::Completes)
    }

    /// One line for the outcome.
    pub fn verdict(&self) -> String {
        let g = &self.gang;
        match &self.outcome {
            GroupOutcome::Completes if self.without_permit => format!(
                "the group completes: {} of minMember {} placed, PlacementFeasible is satisfied",
                self.bound_before + self.members.iter().filter(|m| m.result.placed()).count(),
                g.min_member
            ),
            GroupOutcome::Completes => format!(
                "the group completes: {} of minMember {} placed, Permit allows them all",
                self.bound_before + self.members.iter().filter(|m| m.result.placed()).count(),
                g.min_member
            ),
            GroupOutcome::NoGroupObject => format!("the group {} does not exist: no member is scheduled", g.group),
            GroupOutcome::NoPlacement { message, .. } => {
                format!("the group's cycle stops before any member is tried: {message}")
            }
            GroupOutcome::TooFewMembers { have, need } => format!(
                "the group can never complete as it is: {have} member(s) exist, minMember is {need}; {} more pod(s) must be created",
                need - have
            ),
            // 1.36's pod-group cycle with its quorum met but no member of this cycle placed.
            GroupOutcome::Short { placed, need, blockers }
                if placed >= need && !self.members.iter().any(|m| m.result.fits()) =>
            {
                let b: Vec<String> = blockers.iter().map(ToString::to_string).collect();
                format!(
                    "the group's cycle fails: none of its pending members finds a node ({}), and the pod-group algorithm needs one through Permit (pod group is unschedulable)",
                    b.join(", ")
                )
            }
            GroupOutcome::Short { placed, need, blockers } if self.without_permit => {
                let b: Vec<String> = blockers.iter().map(ToString::to_string).collect();
                format!(
                    "the group does not complete: {placed} of minMember {need} fit; blocked by {}; the pod-group cycle ends when PlacementFeasible finds minCount out of reach and binds none of its members (no Permit wait since 1.38)",
                    b.join(", ")
                )
            }
            GroupOutcome::Short { placed, need, blockers } => {
                let b: Vec<String> = blockers.iter().map(ToString::to_string).collect();
                format!(
                    "the group does not complete: {placed} of minMember {need} fit; blocked by {}; the members that fit wait at Permit for at most {} (or until a member fails) and are then rejected and retried",
                    b.join(", "),
                    super::framework::handle::go_duration(std::time::Duration::from_millis(g.timeout_ms))
                )
            }
        }
    }
}

/// Runs the group's pass for `pod` on `cluster`; `None` when the pod belongs to no gang (no
/// Permit plugin of its profile groups it).
pub fn group_cycle(
    cluster: &Cluster,
    profiles: &[Framework],
    features: &Features,
    pod: &ObjectKey,
) -> Result<Option<GroupCycle>, EngineError> {
    let snap = Snapshot::new(Arc::new(cluster.clone()), features);
    let ex = runner::explain(&snap, profiles, pod)?;
    Ok(ex
        .gang
        .map(|gang| group_cycle_of(cluster, profiles, features, pod, gang)))
}

/// As [`group_cycle`], for a pod whose explanation already gave its gang. With 1.36's
/// TopologyAwareWorkloadScheduling on, a native pod group is tried in every placement the
/// profile generates and the best-scored placement where it fits is the answer
/// (`podGroupSchedulingPlacementAlgorithm`).
pub fn group_cycle_of(
    cluster: &Cluster,
    profiles: &[Framework],
    features: &Features,
    pod: &ObjectKey,
    gang: GangTrace,
) -> GroupCycle {
    let native = cluster
        .pods
        .iter()
        .find(|p| p.key == *pod)
        .and_then(|p| p.scheduling_group().map(|g| (p, g.to_string())));
    let mut r = match &native {
        Some((p, group)) if features.on(Gate::TopologyAwareWorkloadScheduling) => {
            let fw = profiles.iter().find(|f| f.name == p.scheduler_name());
            match fw {
                Some(fw) => placement_cycle(cluster, profiles, features, pod, gang, fw, group),
                None => pass(cluster, profiles, features, pod, gang, None),
            }
        }
        _ => pass(cluster, profiles, features, pod, gang, None),
    };
    // `podGroupCycle`: workload-aware preemption runs when the group's status is Unschedulable.
    if let Some((p, group)) = native
        && features.workload_aware_preemption()
        && matches!(
            r.outcome,
            GroupOutcome::Short { .. }
                | GroupOutcome::NoPlacement {
                    code: Code::Unschedulable,
                    ..
                }
        )
    {
        let key = ObjectKey::new(p.key.namespace.as_str(), &group);
        r.preemption = Some(preempt_for_group(cluster, profiles, features, pod, &key, &r));
    }
    r
}

/// Workload-aware preemption for the group of `r` (see [`group_preemption`]): the group's
/// algorithm is this module's pass over the members on the cluster without the victims tried
/// (for a group without topology constraints 1.36's placement algorithm has the one placement
/// of every node, which is this pass).
fn preempt_for_group(
    cluster: &Cluster,
    profiles: &[Framework],
    features: &Features,
    pod: &ObjectKey,
    group: &ObjectKey,
    r: &GroupCycle,
) -> GroupPreemption {
    // The members the cycle took from the queue (not those held before it).
    let queued: Vec<ObjectKey> = r
        .members
        .iter()
        .filter(|m| !matches!(m.result, MemberResult::Held { .. } | MemberResult::NotScheduled { .. }))
        .map(|m| m.pod.clone())
        .collect();
    // The members that fit in the cycle, on the node it found for them (nominated on success).
    let feasible: Vec<MemberNode> = r
        .members
        .iter()
        .filter_map(|m| match &m.result {
            MemberResult::Bound { node }
            | MemberResult::Waiting { node }
            | MemberResult::Released { node, .. }
            | MemberResult::Rejected { node, .. } => Some(MemberNode {
                pod: m.pod.clone(),
                node: node.clone(),
            }),
            _ => None,
        })
        .collect();
    let tas = features.on(Gate::TopologyAwareWorkloadScheduling);
    let status = match &r.outcome {
        GroupOutcome::NoPlacement { message, .. } => message.clone(),
        _ => r
            .placements
            .as_ref()
            .and_then(|p| p.message.clone())
            .unwrap_or_else(|| group_preemption::POD_GROUP_UNSCHEDULABLE.to_string()),
    };
    // Without topology constraints the placement algorithm has one placement of every node.
    let unschedulable = if tas {
        format!(
            "0/1 placements are available, first placement status: {}",
            group_preemption::POD_GROUP_UNSCHEDULABLE
        )
    } else {
        group_preemption::POD_GROUP_UNSCHEDULABLE.to_string()
    };
    // The profile of the members (`frameworkForPodGroup`).
    let scheduler = cluster
        .pods
        .iter()
        .find(|p| p.key == *pod)
        .map(|p| p.scheduler_name().to_string())
        .unwrap_or_default();
    let post_filter = profiles
        .iter()
        .find(|f| f.name == scheduler)
        .is_some_and(group_preemption::has_pod_group_post_filter);
    let gang = r.gang.clone();
    let mut fits =
        |c: &Cluster| pass(c, profiles, features, pod, gang.clone(), None).outcome == GroupOutcome::Completes;
    let attempt = GroupAttempt {
        group,
        queued: &queued,
        status: &status,
        unschedulable: &unschedulable,
        feasible,
        post_filter,
    };
    group_preemption::preempt(cluster, features, attempt, &mut fits)
}

/// The message of a group that fits in no placement (`0/%d placements are available`), with
/// the default algorithm's own status as the first placement's.
fn no_placement_message(n: usize) -> String {
    format!("0/{n} placements are available, first placement status: pod group is unschedulable")
}

/// 1.36's placement algorithm for the pod's group.
fn placement_cycle(
    cluster: &Cluster,
    profiles: &[Framework],
    features: &Features,
    pod: &ObjectKey,
    gang: GangTrace,
    fw: &Framework,
    group: &str,
) -> GroupCycle {
    let snap = Snapshot::new(Arc::new(cluster.clone()), features);
    let cx = Ctx { snapshot: &snap };
    let scheduled: Vec<(ObjectKey, String)> = cluster
        .pods
        .iter()
        .filter(|m| m.key.namespace == pod.namespace && m.scheduling_group() == Some(group) && !m.is_finished())
        .filter_map(|m| m.node_name.as_deref().map(|n| (m.key.clone(), n.to_string())))
        .collect();
    let view = PodGroupView {
        key: ObjectKey::new(pod.namespace.as_str(), group),
        scheduled,
    };
    let topology_key = cluster
        .scheduling_pod_groups
        .get(&view.key)
        .and_then(|pg| pg.spec.topology_key().map(str::to_string));
    let mut trace = PlacementsTrace {
        generator: fw.placement_generate.first().map(|p| p.name().to_string()),
        topology_key,
        tried: Vec::new(),
        scores: Vec::new(),
        chosen: None,
        tied: Vec::new(),
        message: None,
    };
    let nodes: Vec<String> = snap.nodes.iter().map(|n| n.name().to_string()).collect();
    let all = nodes.len();
    let placements = match placement::generate(&cx, fw, &view, nodes) {
        Ok(p) => p,
        Err(s) => {
            trace.message = Some(s.message());
            return GroupCycle {
                bound_before: gang.assigned.saturating_sub(gang.waiting.len()),
                outcome: GroupOutcome::NoPlacement {
                    message: s.message(),
                    code: s.code,
                },
                gang,
                members: Vec::new(),
                placements: Some(trace),
                preemption: None,
                without_permit: features.has(Change::GangSchedulingWithoutPermit),
            };
        }
    };
    let mut results: Vec<(Placement, GroupCycle)> = Vec::new();
    for pl in placements {
        // A placement of every node is no placement (`AssumePlacement`).
        let set = (pl.nodes.len() != all).then(|| pl.nodes.iter().cloned().collect());
        let r = pass(cluster, profiles, features, pod, gang.clone(), set);
        results.push((pl, r));
    }
    trace.tried = results
        .iter()
        .map(|(pl, r)| PlacementTry {
            name: pl.name.clone(),
            nodes: pl.nodes.clone(),
            fits: r.outcome == GroupOutcome::Completes,
            verdict: r.verdict(),
            members: r.members.clone(),
        })
        .collect();
    let fitting: Vec<usize> = (0..results.len())
        .filter(|&i| results[i].1.outcome == GroupOutcome::Completes)
        .collect();
    let chosen = match fitting.as_slice() {
        [] => {
            trace.message = Some(no_placement_message(results.len()));
            0
        }
        [one] => *one,
        many => {
            let assignments: Vec<PodGroupAssignments<'_>> = many
                .iter()
                .map(|&i| {
                    let (pl, r) = &results[i];
                    PodGroupAssignments {
                        placement: pl,
                        proposed: r
                            .members
                            .iter()
                            .filter_map(|m| {
                                let node = match &m.result {
                                    MemberResult::Bound { node } | MemberResult::Waiting { node } => node,
                                    _ => return None,
                                };
                                Some((snap.pod_infos.get(&m.pod)?.clone(), node.clone()))
                            })
                            .collect(),
                    }
                })
                .collect();
            match placement::score(&cx, fw, &view, &assignments) {
                Ok(scores) => {
                    let best = scores.iter().map(|s| s.total).max().unwrap_or(0);
                    trace.tied = scores
                        .iter()
                        .filter(|s| s.total == best)
                        .map(|s| s.placement.clone())
                        .collect();
                    let first = scores.iter().position(|s| s.total == best).unwrap_or(0);
                    trace.scores = scores;
                    many[first]
                }
                Err(s) => {
                    trace.message = Some(s.message());
                    let (_, r) = &results[many[0]];
                    return GroupCycle {
                        bound_before: r.bound_before,
                        outcome: GroupOutcome::NoPlacement {
                            message: s.message(),
                            code: s.code,
                        },
                        gang,
                        members: Vec::new(),
                        placements: Some(trace),
                        preemption: None,
                        without_permit: features.has(Change::GangSchedulingWithoutPermit),
                    };
                }
            }
        }
    };
    let Some((pl, mut r)) = results.into_iter().nth(chosen) else {
        return pass(cluster, profiles, features, pod, gang, None);
    };
    if !fitting.is_empty() {
        trace.chosen = Some(pl.name);
    }
    r.placements = Some(trace);
    r
}

/// One pass of the group's pending members, filtered and scored on `placement`'s nodes only
/// (None: every node).
fn pass(
    cluster: &Cluster,
    profiles: &[Framework],
    features: &Features,
    pod: &ObjectKey,
    gang: GangTrace,
    placement: Option<BTreeSet<String>>,
) -> GroupCycle {
    let bound_before = gang.assigned.saturating_sub(gang.waiting.len());
    let mut only: BTreeSet<ObjectKey> = gang.unplaced.iter().cloned().collect();
    only.insert(pod.clone());
    only.extend(gang.waiting.iter().map(|w| w.pod.clone()));
    let report = simulate(
        cluster.clone(),
        profiles,
        features,
        SimOptions {
            max_passes: 1,
            only: Some(only),
            placement,
            detail: Detail::Summary,
            ..Default::default()
        },
    );
    let first_wait = |k: &ObjectKey| {
        report.events.iter().find_map(|e| match &e.kind {
            EventKind::Attempt {
                outcome: AttemptOutcome::Waiting(node),
                ..
            } if e.pod == *k => Some(node.clone()),
            _ => None,
        })
    };
    let members: Vec<Member> = report
        .pods
        .iter()
        .map(|(k, st)| {
            let result = match st {
                FinalState::Bound { node, .. } => MemberResult::Bound { node: node.clone() },
                FinalState::Waiting(node) => MemberResult::Waiting { node: node.clone() },
                FinalState::Held { plugin, message } => MemberResult::Held {
                    plugin: plugin.clone(),
                    message: message.clone(),
                },
                FinalState::NoProfile(s) => MemberResult::NotScheduled {
                    message: format!("no profile serves schedulerName '{s}'"),
                },
                FinalState::Deleted => MemberResult::NotScheduled {
                    message: "deleted by a preemption of another member".into(),
                },
                FinalState::Pending { message, .. } if first_wait(k).is_some() => MemberResult::Released {
                    node: first_wait(k).unwrap_or_default(),
                    message: message.clone(),
                },
                FinalState::Pending { message, .. } => {
                    let preempting = report.events.iter().rev().find_map(|e| match &e.kind {
                        EventKind::Attempt {
                            outcome: AttemptOutcome::Preempting { node, victims, .. },
                            ..
                        } if e.pod == *k => Some((node.clone(), victims.clone())),
                        _ => None,
                    });
                    match preempting {
                        Some((node, victims)) => MemberResult::Preempting {
                            node,
                            victims,
                            message: message.clone(),
                        },
                        None => MemberResult::Unschedulable {
                            message: message.clone(),
                        },
                    }
                }
            };
            Member { pod: k.clone(), result }
        })
        .collect();
    let need = usize::try_from(gang.min_member).unwrap_or(0);
    let placed = bound_before + members.iter().filter(|m| m.result.fits()).count();
    // 1.36's pod-group algorithm (`podGroupSchedulingDefaultAlgorithm`) succeeds only when a
    // member of this cycle passes Permit: a quorum met by bound pods alone (or a basic policy's
    // minimum of 0) is not enough when none of the members finds a node.
    let native = cluster
        .pods
        .iter()
        .any(|p| p.key == *pod && p.scheduling_group().is_some());
    let outcome = if !gang.found {
        GroupOutcome::NoGroupObject
    } else if gang.members < need {
        GroupOutcome::TooFewMembers {
            have: gang.members,
            need,
        }
    } else if placed >= need
        && !members.iter().any(|m| matches!(m.result, MemberResult::Waiting { .. }))
        && (!native || members.is_empty() || members.iter().any(|m| m.result.fits()))
    {
        GroupOutcome::Completes
    } else {
        GroupOutcome::Short {
            placed,
            need,
            blockers: members
                .iter()
                .filter(|m| !m.result.fits())
                .map(|m| m.pod.clone())
                .collect(),
        }
    };
    // Coscheduling keeps its Permit: only a native PodGroup's members go without one.
    let without_permit = native && features.has(Change::GangSchedulingWithoutPermit);
    let mut members = members;
    if without_permit && matches!(outcome, GroupOutcome::Short { .. }) {
        // No Permit holds the members that fit: the pod-group cycle's PlacementFeasible,
        // with every member tried and the quorum short, fails the group, and none binds.
        let min = i32::try_from(need).unwrap_or(i32::MAX);
        let message = placement_feasible(min, placed, 0).reasons.join(", ");
        for m in &mut members {
            if let MemberResult::Bound { node } = &m.result {
                m.result = MemberResult::Rejected {
                    node: node.clone(),
                    message: message.clone(),
                };
            }
        }
    }
    GroupCycle {
        gang,
        bound_before,
        members,
        outcome,
        placements: None,
        preemption: None,
        without_permit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::build_profiles;
    use crate::engine::release::{FeatureGates, Release};
    use crate::source::file::load_str;

    fn features() -> Features {
        let g = FeatureGates::parse("GenericWorkload=true,GangScheduling=true").unwrap();
        Features::with_gates(Release::at(35), &g).unwrap()
    }

    /// One node with 4 cpu, a Workload `train` whose group `workers` needs `min` members, and
    /// pods `(name, cpu, nodeName)`.
    fn cluster(min: u32, pods: &[(&str, &str, Option<&str>)]) -> Cluster {
        let mut text = format!(
            "apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: Node, metadata: {{name: n1}}, status: {{allocatable: {{cpu: '4', memory: 8Gi, pods: '10'}}}}}}\n- {{apiVersion: scheduling.k8s.io/v1alpha1, kind: Workload, metadata: {{name: train, namespace: ml}}, spec: {{podGroups: [{{name: workers, policy: {{gang: {{minCount: {min}}}}}}}]}}}}\n"
        );
        for (name, cpu, node) in pods {
            let node = node.map(|n| format!(", nodeName: {n}")).unwrap_or_default();
            text.push_str(&format!(
                "- {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: ml, uid: u-{name}}}, spec: {{containers: [{{name: c, image: i, resources: {{requests: {{cpu: '{cpu}'}}}}}}]{node}, workloadRef: {{name: train, podGroup: workers}}}}}}\n"
            ));
        }
        load_str("t", &text).unwrap()
    }

    fn run(c: &Cluster, pod: &str) -> GroupCycle {
        let f = features();
        let profiles = build_profiles(None, f.clone()).unwrap();
        group_cycle(c, &profiles, &f, &ObjectKey::new("ml", pod))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn a_group_that_fits_completes_and_every_member_binds() {
        let c = cluster(3, &[("w0", "1", None), ("w1", "1", None), ("w2", "1", Some("n1"))]);
        let g = run(&c, "w0");
        assert_eq!(g.bound_before, 1);
        assert_eq!(g.outcome, GroupOutcome::Completes);
        assert_eq!(
            g.members,
            vec![
                Member {
                    pod: ObjectKey::new("ml", "w0"),
                    result: MemberResult::Bound { node: "n1".into() }
                },
                Member {
                    pod: ObjectKey::new("ml", "w1"),
                    result: MemberResult::Bound { node: "n1".into() }
                },
            ]
        );
        assert_eq!(
            g.verdict(),
            "the group completes: 3 of minMember 3 placed, Permit allows them all"
        );
    }

    /// A v1beta1 PodGroup of minCount 3 on one 4-cpu node, members w0 (2 cpu), w1 (1), w2 (2).
    fn short_pod_group(minor: u32) -> GroupCycle {
        let mut text = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}\n- {apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {name: g, namespace: ml}, spec: {schedulingPolicy: {gang: {minCount: 3}}}}\n".to_string();
        for (name, cpu) in [("w0", "2"), ("w1", "1"), ("w2", "2")] {
            text.push_str(&format!(
                "- {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: ml, uid: u-{name}}}, spec: {{containers: [{{name: c, image: i, resources: {{requests: {{cpu: '{cpu}'}}}}}}], schedulingGroup: {{podGroupName: g}}}}}}\n"
            ));
        }
        let c = load_str("t", &text).unwrap();
        let f = Features::with_gates(
            Release::at(minor),
            &FeatureGates::parse("GenericWorkload=true").unwrap(),
        )
        .unwrap();
        let profiles = build_profiles(None, f.clone()).unwrap();
        group_cycle(&c, &profiles, &f, &ObjectKey::new("ml", "w1"))
            .unwrap()
            .unwrap()
    }

    // kubernetes#141182 (1.38): without GangScheduling's Permit nothing waits for the quorum;
    // the members that fit are rejected with the group (PlacementFeasible: every member tried,
    // 2 of 3 scheduled), where 1.37 holds them at Permit.
    #[test]
    fn release_1_38_rejects_the_members_of_a_short_group_instead_of_holding_them() {
        let g = short_pod_group(37);
        let results: Vec<&MemberResult> = g.members.iter().map(|m| &m.result).collect();
        assert_eq!(results[0], &MemberResult::Waiting { node: "n1".into() });
        assert!(g.verdict().contains("wait at Permit"), "{}", g.verdict());
        let g = short_pod_group(38);
        let results: Vec<&MemberResult> = g.members.iter().map(|m| &m.result).collect();
        let rejected = MemberResult::Rejected {
            node: "n1".into(),
            message: "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining".into(),
        };
        assert_eq!(results[..2], [&rejected, &rejected]);
        assert!(matches!(results[2], MemberResult::Unschedulable { .. }), "{results:?}");
        assert_eq!(
            g.outcome,
            GroupOutcome::Short {
                placed: 2,
                need: 3,
                blockers: vec![ObjectKey::new("ml", "w2")]
            }
        );
        assert_eq!(
            g.verdict(),
            "the group does not complete: 2 of minMember 3 fit; blocked by ml/w2; the pod-group cycle ends when PlacementFeasible finds minCount out of reach and binds none of its members (no Permit wait since 1.38)"
        );
    }

    #[test]
    fn the_member_that_fits_nowhere_is_named_and_the_others_wait_at_permit() {
        // w0 and w1 take 3 of the 4 cpu; w2 needs 2 more: it blocks the group.
        let c = cluster(3, &[("w0", "2", None), ("w1", "1", None), ("w2", "2", None)]);
        let g = run(&c, "w1");
        let waiting: Vec<&MemberResult> = g.members.iter().map(|m| &m.result).collect();
        assert_eq!(waiting[0], &MemberResult::Waiting { node: "n1".into() });
        assert_eq!(waiting[1], &MemberResult::Waiting { node: "n1".into() });
        assert!(
            matches!(waiting[2], MemberResult::Unschedulable { message } if message.starts_with("0/1 nodes are available: 1 Insufficient cpu.")),
            "{waiting:?}"
        );
        assert_eq!(
            g.outcome,
            GroupOutcome::Short {
                placed: 2,
                need: 3,
                blockers: vec![ObjectKey::new("ml", "w2")]
            }
        );
        assert!(
            g.verdict().contains("2 of minMember 3 fit; blocked by ml/w2"),
            "{}",
            g.verdict()
        );
        assert!(g.verdict().contains("at most 5m0s"), "{}", g.verdict());
    }

    #[test]
    fn too_few_members_says_how_many_pods_are_missing() {
        let c = cluster(4, &[("w0", "1", None), ("w1", "1", None)]);
        let g = run(&c, "w0");
        assert_eq!(g.outcome, GroupOutcome::TooFewMembers { have: 2, need: 4 });
        assert!(matches!(&g.members[0].result, MemberResult::Held { plugin, .. } if plugin == "GangScheduling"));
        assert_eq!(
            g.verdict(),
            "the group can never complete as it is: 2 member(s) exist, minMember is 4; 2 more pod(s) must be created"
        );
    }

    #[test]
    fn a_pod_without_a_gang_has_no_group_cycle() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}\n- {apiVersion: v1, kind: Pod, metadata: {name: solo, namespace: ml}, spec: {containers: [{name: c, image: i}]}}\n";
        let c = load_str("t", text).unwrap();
        let f = features();
        let profiles = build_profiles(None, f.clone()).unwrap();
        assert_eq!(
            group_cycle(&c, &profiles, &f, &ObjectKey::new("ml", "solo")).unwrap(),
            None
        );
    }

    /// 1.36 with TopologyAwareWorkloadScheduling: nodes `(name, zone, cpu)`, a PodGroup
    /// `workers` (minCount `min`, topology key `zone` unless `key` is None) and its members
    /// `(name, cpu, nodeName)`.
    fn tas_cluster(
        nodes: &[(&str, Option<&str>, &str)],
        min: u32,
        key: Option<&str>,
        pods: &[(&str, &str, Option<&str>)],
    ) -> Cluster {
        let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
        for (n, zone, cpu) in nodes {
            let labels = zone.map(|z| format!(", labels: {{zone: {z}}}")).unwrap_or_default();
            text.push_str(&format!(
                "- {{apiVersion: v1, kind: Node, metadata: {{name: {n}{labels}}}, status: {{allocatable: {{cpu: '{cpu}', memory: 8Gi, pods: '10'}}}}}}\n"
            ));
        }
        let constraints = key
            .map(|k| format!(", schedulingConstraints: {{topology: [{{key: {k}}}]}}"))
            .unwrap_or_default();
        text.push_str(&format!(
            "- {{apiVersion: scheduling.k8s.io/v1alpha2, kind: PodGroup, metadata: {{name: workers, namespace: ml}}, spec: {{schedulingPolicy: {{gang: {{minCount: {min}}}}}{constraints}}}}}\n"
        ));
        for (name, cpu, node) in pods {
            let node = node.map(|n| format!(", nodeName: {n}")).unwrap_or_default();
            text.push_str(&format!(
                "- {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: ml, uid: u-{name}}}, spec: {{containers: [{{name: c, image: i, resources: {{requests: {{cpu: '{cpu}'}}}}}}]{node}, schedulingGroup: {{podGroupName: workers}}}}}}\n"
            ));
        }
        load_str("t", &text).unwrap()
    }

    fn tas_features() -> Features {
        let g = FeatureGates::parse("GenericWorkload=true,GangScheduling=true,TopologyAwareWorkloadScheduling=true")
            .unwrap();
        Features::with_gates(Release::at(36), &g).unwrap()
    }

    fn tas_run(c: &Cluster, pod: &str) -> GroupCycle {
        let f = tas_features();
        let profiles = build_profiles(None, f.clone()).unwrap();
        group_cycle(c, &profiles, &f, &ObjectKey::new("ml", pod))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn the_default_profile_of_1_36_with_tas_has_the_placement_plugins() {
        let fw = Framework::default_profile(tas_features()).unwrap();
        let generate: Vec<&str> = fw.placement_generate.iter().map(|p| p.name()).collect();
        assert_eq!(generate, vec!["TopologyPlacementGenerator"]);
        let score: Vec<(&str, i64)> = fw.placement_score.iter().map(|(p, w)| (p.name(), *w)).collect();
        assert_eq!(score, vec![("NodeResourcesFit", 1), ("PodGroupPodsCount", 1)]);
        let off = Framework::default_profile(features()).unwrap();
        assert!(off.placement_generate.is_empty() && off.placement_score.is_empty());
    }

    #[test]
    fn a_group_is_placed_in_the_only_domain_where_it_fits() {
        // zone-a: two 4-cpu nodes hold three 2-cpu members; zone-b's one node holds two.
        let c = tas_cluster(
            &[
                ("a1", Some("zone-a"), "4"),
                ("a2", Some("zone-a"), "4"),
                ("b1", Some("zone-b"), "4"),
                ("x", None, "64"),
            ],
            3,
            Some("zone"),
            &[("w0", "2", None), ("w1", "2", None), ("w2", "2", None)],
        );
        let g = tas_run(&c, "w0");
        let p = g.placements.as_ref().unwrap();
        assert_eq!(p.generator.as_deref(), Some("TopologyPlacementGenerator"));
        assert_eq!(p.topology_key.as_deref(), Some("zone"));
        // The node without the label belongs to no placement.
        let tried: Vec<(&str, Vec<&str>, bool)> = p
            .tried
            .iter()
            .map(|t| (t.name.as_str(), t.nodes.iter().map(String::as_str).collect(), t.fits))
            .collect();
        assert_eq!(
            tried,
            vec![("zone-a", vec!["a1", "a2"], true), ("zone-b", vec!["b1"], false)]
        );
        assert_eq!(p.chosen.as_deref(), Some("zone-a"));
        assert!(p.scores.is_empty(), "one placement fits: no scoring");
        assert_eq!(g.outcome, GroupOutcome::Completes);
        let nodes: Vec<&str> = g
            .members
            .iter()
            .map(|m| match &m.result {
                MemberResult::Bound { node } => node.as_str(),
                other => panic!("{other:?}"),
            })
            .collect();
        // LeastAllocated spreads the members; the tie for the third goes to the first node.
        assert_eq!(nodes, vec!["a1", "a2", "a1"]);
        // In zone-b the third member finds no node among the placement's one node.
        let b = &p.tried[1];
        assert!(
            matches!(&b.members[2].result, MemberResult::Unschedulable { message } if message.starts_with("0/1 nodes are available: 1 Insufficient cpu.")),
            "{:?}",
            b.members[2]
        );
    }

    #[test]
    fn placements_where_the_group_fits_are_scored_and_the_best_is_chosen() {
        // Both zones hold the three 1-cpu members. NodeResourcesFit's placement score is
        // MostAllocated over the whole placement (cpu and memory, weights 1), the members'
        // memory counted at the non-zero default of 200Mi:
        // zone-a: cpu 3000/8000 → 37, memory 3×200Mi / 16Gi → 3, (37+3)/2 = 20;
        // zone-b: cpu 3000/8000 → 37, memory 3×200Mi / 8Gi → 7, (37+7)/2 = 22.
        // PodGroupPodsCount: 3 pods in each → 100 after normalization.
        let c = tas_cluster(
            &[
                ("a1", Some("zone-a"), "4"),
                ("a2", Some("zone-a"), "4"),
                ("b1", Some("zone-b"), "8"),
            ],
            3,
            Some("zone"),
            &[("w0", "1", None), ("w1", "1", None), ("w2", "1", None)],
        );
        let g = tas_run(&c, "w1");
        let p = g.placements.as_ref().unwrap();
        type PluginScores<'a> = Vec<(&'a str, i64, i64, i64)>;
        let scores: Vec<(&str, PluginScores<'_>, i64)> = p
            .scores
            .iter()
            .map(|s| {
                (
                    s.placement.as_str(),
                    s.scores
                        .iter()
                        .map(|x| (x.plugin.as_str(), x.raw, x.normalized, x.weighted))
                        .collect(),
                    s.total,
                )
            })
            .collect();
        assert_eq!(
            scores,
            vec![
                (
                    "zone-a",
                    vec![("NodeResourcesFit", 20, 20, 20), ("PodGroupPodsCount", 3, 100, 100)],
                    120
                ),
                (
                    "zone-b",
                    vec![("NodeResourcesFit", 22, 22, 22), ("PodGroupPodsCount", 3, 100, 100)],
                    122
                ),
            ]
        );
        assert_eq!(p.chosen.as_deref(), Some("zone-b"));
        assert_eq!(p.tied, vec!["zone-b".to_string()]);
        assert!(
            g.members
                .iter()
                .all(|m| m.result == MemberResult::Bound { node: "b1".into() })
        );
        let text = crate::explain::group::render(&g);
        assert!(text.contains("zone-b (1 node(s)): the group fits  ← chosen"), "{text}");
        assert!(
            text.contains("score 122: NodeResourcesFit 22 → 22 ×w = 22, PodGroupPodsCount 3 → 100 ×w = 100"),
            "{text}"
        );
    }

    #[test]
    fn scheduled_members_pin_the_domain_and_a_group_that_fits_nowhere_says_so() {
        // w0 is bound in zone-b: only zone-b is a placement, and its node is full.
        let c = tas_cluster(
            &[("a1", Some("zone-a"), "8"), ("b1", Some("zone-b"), "2")],
            3,
            Some("zone"),
            &[("w0", "2", Some("b1")), ("w1", "2", None), ("w2", "2", None)],
        );
        let g = tas_run(&c, "w1");
        let p = g.placements.as_ref().unwrap();
        let names: Vec<&str> = p.tried.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, vec!["zone-b"]);
        assert_eq!(p.chosen, None);
        assert_eq!(
            p.message.as_deref(),
            Some("0/1 placements are available, first placement status: pod group is unschedulable")
        );
        assert!(
            matches!(g.outcome, GroupOutcome::Short { placed: 1, need: 3, .. }),
            "{:?}",
            g.outcome
        );
    }

    #[test]
    fn members_in_two_domains_stop_the_cycle_with_upstreams_error() {
        let c = tas_cluster(
            &[("a1", Some("zone-a"), "8"), ("b1", Some("zone-b"), "8")],
            3,
            Some("zone"),
            &[("w0", "1", Some("a1")), ("w1", "1", Some("b1")), ("w2", "1", None)],
        );
        let g = tas_run(&c, "w2");
        assert_eq!(
            g.outcome,
            GroupOutcome::NoPlacement {
                message: "cannot determine domain for already scheduled pods: more than 1 domain found for pod group: zone-a, zone-b".into(),
                code: Code::Error,
            }
        );
        assert!(g.members.is_empty());
    }

    #[test]
    fn without_a_topology_constraint_the_group_has_one_placement_of_every_node() {
        let c = tas_cluster(
            &[("a1", Some("zone-a"), "2"), ("b1", Some("zone-b"), "2")],
            2,
            None,
            &[("w0", "2", None), ("w1", "2", None)],
        );
        let g = tas_run(&c, "w0");
        let p = g.placements.as_ref().unwrap();
        assert_eq!(p.topology_key, None);
        assert_eq!(p.tried.len(), 1);
        assert_eq!(p.tried[0].nodes, vec!["a1".to_string(), "b1".to_string()]);
        assert_eq!(g.outcome, GroupOutcome::Completes);
    }

    #[test]
    fn default_preemption_is_off_for_placement_groups_and_with_workload_aware_preemption() {
        use crate::engine::plugins::default_preemption::{NOT_ELIGIBLE_PLACEMENT, NOT_ELIGIBLE_WORKLOAD_AWARE};
        let c = tas_cluster(&[("a1", Some("zone-a"), "1")], 1, Some("zone"), &[("w0", "4", None)]);
        let f = tas_features();
        let profiles = build_profiles(None, f.clone()).unwrap();
        let snap = Snapshot::new(Arc::new(c.clone()), &f);
        let ex = runner::explain(&snap, &profiles, &ObjectKey::new("ml", "w0")).unwrap();
        assert_eq!(
            ex.post_filter.as_ref().map(|p| p.message.as_str()),
            Some(NOT_ELIGIBLE_PLACEMENT)
        );
        let g = FeatureGates::parse("GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true").unwrap();
        let f = Features::with_gates(Release::at(36), &g).unwrap();
        let profiles = build_profiles(None, f.clone()).unwrap();
        let snap = Snapshot::new(Arc::new(c), &f);
        let ex = runner::explain(&snap, &profiles, &ObjectKey::new("ml", "w0")).unwrap();
        assert_eq!(
            ex.post_filter.as_ref().map(|p| p.message.as_str()),
            Some(NOT_ELIGIBLE_WORKLOAD_AWARE)
        );
    }

    /// Workload-aware preemption (engine::group_preemption).
    mod workload_aware_preemption {
        use super::*;
        use crate::engine::group_preemption::{self as wap, MemberNode, PreemptionVictim};

        /// A bound pod `(name, cpu, priority, startTime, extra spec/metadata)`.
        fn bound(name: &str, cpu: &str, prio: i32, start: Option<&str>, labels: &str) -> String {
            let status = start
                .map(|t| format!(", status: {{startTime: '{t}'}}"))
                .unwrap_or_default();
            format!(
                "- {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: ml, uid: u-{name}{labels}}}, spec: {{priority: {prio}, nodeName: n1, containers: [{{name: c, image: i, resources: {{requests: {{cpu: '{cpu}'}}}}}}]}}{status}}}\n"
            )
        }

        /// A member of PodGroup `group` (pending unless `node`).
        fn member(name: &str, group: &str, cpu: &str, extra: &str) -> String {
            format!(
                "- {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: ml, uid: u-{name}}}, spec: {{priority: 100{extra}, containers: [{{name: c, image: i, resources: {{requests: {{cpu: '{cpu}'}}}}}}], schedulingGroup: {{podGroupName: {group}}}}}}}\n"
            )
        }

        fn cluster(node_cpu: &str, objects: &str) -> Cluster {
            let text = format!(
                "apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: Node, metadata: {{name: n1}}, status: {{allocatable: {{cpu: '{node_cpu}', memory: 8Gi, pods: '20'}}}}}}\n{objects}"
            );
            load_str("t", &text).unwrap()
        }

        /// 1.36's PodGroup `name` (v1alpha2) with `spec` fields.
        fn pg36(name: &str, spec: &str) -> String {
            format!(
                "- {{apiVersion: scheduling.k8s.io/v1alpha2, kind: PodGroup, metadata: {{name: {name}, namespace: ml, uid: uid-{name}}}, spec: {{{spec}}}}}\n"
            )
        }

        fn features36(gates: &str) -> Features {
            Features::with_gates(Release::at(36), &FeatureGates::parse(gates).unwrap()).unwrap()
        }

        const WAP36: &str = "GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true";

        fn cycle(c: &Cluster, f: &Features, pod: &str) -> GroupCycle {
            let profiles = build_profiles(None, f.clone()).unwrap();
            group_cycle(c, &profiles, f, &ObjectKey::new("ml", pod))
                .unwrap()
                .unwrap()
        }

        fn key(n: &str) -> ObjectKey {
            ObjectKey::new("ml", n)
        }

        fn lone(n: &str, prio: i32) -> PreemptionVictim {
            PreemptionVictim {
                pod_group: None,
                pods: vec![key(n)],
                priority: prio,
                violates_pdb: false,
            }
        }

        const GANG2: &str = "priority: 100, schedulingPolicy: {gang: {minCount: 2}}";

        #[test]
        fn the_group_preempts_every_lower_priority_pod_it_needs_and_waits() {
            let objects = format!(
                "{}{}{}{}{}",
                pg36("workers", GANG2),
                bound("l1", "2", 0, None, ""),
                bound("l2", "2", 0, None, ""),
                member("w0", "workers", "2", ""),
                member("w1", "workers", "2", "")
            );
            let c = cluster("4", &objects);
            // Without the gate the group is short and nothing is preempted.
            let g = cycle(&c, &features36("GenericWorkload=true,GangScheduling=true"), "w0");
            assert!(matches!(g.outcome, GroupOutcome::Short { .. }), "{:?}", g.outcome);
            assert_eq!(g.preemption, None);
            let g = cycle(&c, &features36(WAP36), "w0");
            let p = g.preemption.as_ref().unwrap();
            assert_eq!((p.code, p.priority), (Code::Success, 100));
            assert_eq!(p.victims, vec![lone("l1", 0), lone("l2", 0)]);
            // No member found a node in the cycle: none is nominated.
            assert_eq!(p.nominated, vec![]);
            assert_eq!(p.condition, "pod group is unschedulable");
            assert_eq!(
                p.events,
                vec![
                    "ml/l1: Preempted by podgroup uid-workers on node cluster".to_string(),
                    "ml/l2: Preempted by podgroup uid-workers on node cluster".to_string()
                ]
            );
            let text = crate::explain::group::render(&g);
            assert!(
                text.contains("Workload-aware preemption by PodGroup ml/workers (priority 100):"),
                "{text}"
            );
            assert!(
                text.contains("the PodGroup's condition: Unschedulable \"pod group is unschedulable\""),
                "{text}"
            );
            let json = crate::explain::group::to_json(&g);
            assert_eq!(json["preemption"]["victims"][0]["pods"][0]["name"], "l1");
            assert_eq!(json["preemption"]["code"], "Success");
        }

        #[test]
        fn the_members_that_fit_in_the_cycle_are_nominated_where_they_fit() {
            // 6 cpu, 4 taken by l1 and l2: w0 fits in the cycle, w1 does not; evicting l2 alone
            // is enough (l1, found first, is reprieved first). w0 is nominated to the node the
            // cycle found, not to one of the trials'.
            let objects = format!(
                "{}{}{}{}{}",
                pg36("workers", GANG2),
                bound("l1", "2", 0, None, ""),
                bound("l2", "2", 0, None, ""),
                member("w0", "workers", "2", ""),
                member("w1", "workers", "2", "")
            );
            let g = cycle(&cluster("6", &objects), &features36(WAP36), "w0");
            let p = g.preemption.as_ref().unwrap();
            assert_eq!(p.victims, vec![lone("l2", 0)]);
            assert_eq!(
                p.nominated,
                vec![MemberNode {
                    pod: key("w0"),
                    node: "n1".into()
                }]
            );
            let text = crate::explain::group::render(&g);
            assert!(
                text.contains("nominated where the cycle found them a node: ml/w0 → n1"),
                "{text}"
            );
            let json = crate::explain::group::to_json(&g);
            assert_eq!(json["preemption"]["nominated"][0]["node"], "n1");
        }

        /// The profile decides: DefaultPreemption must be one of its plugins (at any extension
        /// point) to be the pod-group PostFilter.
        #[test]
        fn a_profile_without_default_preemption_does_not_preempt_for_the_group() {
            let objects = format!(
                "{}{}{}{}",
                pg36("workers", GANG2),
                bound("l1", "4", 0, None, ""),
                member("w0", "workers", "2", ""),
                member("w1", "workers", "2", "")
            );
            let c = cluster("4", &objects);
            let f = features36(WAP36);
            let with = |plugins: &str| {
                let cfg = crate::engine::SchedulerConfig::parse(&format!(
                    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n  plugins: {plugins}\n"
                ))
                .unwrap();
                let profiles = build_profiles(Some(&cfg), f.clone()).unwrap();
                group_cycle(&c, &profiles, &f, &key("w0")).unwrap().unwrap()
            };
            let g = with("{multiPoint: {disabled: [{name: DefaultPreemption}]}}");
            let p = g.preemption.as_ref().unwrap();
            assert_eq!((p.code, p.message.as_str()), (Code::Unschedulable, wap::NOT_REGISTERED));
            assert_eq!(
                p.condition,
                "pod group is unschedulable, default preemption plugin is not registered, workload aware preemption is disabled"
            );
            // Off at PostFilter only, it is still built for PreEnqueue: the group preempts.
            let g = with("{postFilter: {disabled: [{name: DefaultPreemption}]}}");
            let p = g.preemption.as_ref().unwrap();
            assert_eq!((p.code, p.victims.clone()), (Code::Success, vec![lone("l1", 0)]));
        }

        /// Upstream's integration test `TestWorkloadAwarePreemptionInvocation`
        /// (test/integration/scheduler, the 1.36 cycle): four priority-10 pods fill the 4-cpu
        /// node, PodGroup pg1 (priority 100, disruptionMode PodGroup, minCount 3) has three
        /// 1-cpu pods; the low pods get "Preempted by podgroup" events. One low pod is enough
        /// to keep: the first found is reprieved.
        #[test]
        fn upstream_workload_aware_preemption_invocation() {
            let low: String = (1..=4).map(|i| bound(&format!("low-{i}"), "1", 10, None, "")).collect();
            let high: String = (1..=3).map(|i| member(&format!("high-{i}"), "pg1", "1", "")).collect();
            let objects = format!(
                "{}{low}{high}",
                pg36(
                    "pg1",
                    "priority: 100, disruptionMode: PodGroup, schedulingPolicy: {gang: {minCount: 3}}"
                )
            );
            let g = cycle(&cluster("4", &objects), &features36(WAP36), "high-1");
            let p = g.preemption.as_ref().unwrap();
            assert_eq!(p.code, Code::Success);
            assert_eq!(p.victims, vec![lone("low-2", 10), lone("low-3", 10), lone("low-4", 10)]);
            assert_eq!(
                p.events,
                [
                    "ml/low-2: Preempted by podgroup uid-pg1 on node cluster",
                    "ml/low-3: Preempted by podgroup uid-pg1 on node cluster",
                    "ml/low-4: Preempted by podgroup uid-pg1 on node cluster"
                ]
            );
        }

        /// A basic-policy PodGroup (minimum 0) or a gang whose quorum bound pods already meet:
        /// 1.36's algorithm still needs a member of the cycle through Permit, so a cycle where
        /// none finds a node is Unschedulable and the group preempts.
        #[test]
        fn a_cycle_where_no_member_fits_is_unschedulable_even_with_its_quorum_met() {
            let objects = format!(
                "{}{}{}",
                pg36("workers", "priority: 100, schedulingPolicy: {basic: {}}"),
                bound("l1", "4", 0, None, ""),
                member("w0", "workers", "2", "")
            );
            let c = cluster("4", &objects);
            let g = cycle(&c, &features36("GenericWorkload=true,GangScheduling=true"), "w0");
            assert_eq!(
                g.outcome,
                GroupOutcome::Short {
                    placed: 0,
                    need: 0,
                    blockers: vec![key("w0")]
                }
            );
            assert_eq!(
                g.verdict(),
                "the group's cycle fails: none of its pending members finds a node (ml/w0), and the pod-group algorithm needs one through Permit (pod group is unschedulable)"
            );
            let g = cycle(&c, &features36(WAP36), "w0");
            let p = g.preemption.as_ref().unwrap();
            assert_eq!((p.code, p.victims.clone()), (Code::Success, vec![lone("l1", 0)]));
            // With room for the member the group completes.
            let g = cycle(&cluster("6", &objects), &features36(WAP36), "w0");
            assert_eq!(g.outcome, GroupOutcome::Completes);
            assert_eq!(g.preemption, None);
        }

        #[test]
        fn the_more_important_victim_is_reprieved_first() {
            // The group needs 2 of the 4 cpu; the earlier-started small pod goes back first and
            // the group still fits, the big one cannot.
            let objects = format!(
                "{}{}{}{}",
                pg36("workers", "priority: 100, schedulingPolicy: {gang: {minCount: 1}}"),
                bound("small", "1", 0, Some("2020-01-01T00:00:00Z"), ""),
                bound("big", "3", 0, Some("2021-01-01T00:00:00Z"), ""),
                member("w0", "workers", "2", "")
            );
            let g = cycle(&cluster("4", &objects), &features36(WAP36), "w0");
            assert_eq!(g.preemption.as_ref().unwrap().victims, vec![lone("big", 0)]);
        }

        #[test]
        fn a_pod_group_with_disruption_mode_pod_group_is_evicted_as_a_unit() {
            // batch (priority 10) runs b0 and b1; the filler f (priority 50) is more important and
            // goes back first; one cpu is enough for w0, yet both of batch's pods are evicted.
            let objects = format!(
                "{}{}{}{}{}{}",
                pg36("workers", "priority: 100, schedulingPolicy: {gang: {minCount: 1}}"),
                pg36(
                    "batch",
                    "priority: 10, disruptionMode: PodGroup, schedulingPolicy: {basic: {}}"
                ),
                bound("b0", "1", 0, None, "").replace(
                    "priority: 0, nodeName",
                    "priority: 0, schedulingGroup: {podGroupName: batch}, nodeName"
                ),
                bound("b1", "1", 0, None, "").replace(
                    "priority: 0, nodeName",
                    "priority: 0, schedulingGroup: {podGroupName: batch}, nodeName"
                ),
                bound("f", "2", 50, None, ""),
                member("w0", "workers", "1", "")
            );
            let g = cycle(&cluster("4", &objects), &features36(WAP36), "w0");
            let p = g.preemption.as_ref().unwrap();
            assert_eq!(
                p.victims,
                vec![PreemptionVictim {
                    pod_group: Some(key("batch")),
                    pods: vec![key("b0"), key("b1")],
                    priority: 10,
                    violates_pdb: false,
                }]
            );
            // With disruptionMode Pod each pod is a victim on its own, with its own priority.
            let objects = objects.replace("disruptionMode: PodGroup, ", "disruptionMode: Pod, ");
            let g = cycle(&cluster("4", &objects), &features36(WAP36), "w0");
            let p = g.preemption.as_ref().unwrap();
            let pods: Vec<Vec<ObjectKey>> = p.victims.iter().map(|v| v.pods.clone()).collect();
            assert_eq!(
                pods,
                vec![vec![key("b1")]],
                "b0 (a pod group's pod, found first) goes back first"
            );
        }

        #[test]
        fn pdb_violating_victims_are_reprieved_before_the_others() {
            let pdb = "- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: db, namespace: ml}, spec: {selector: {matchLabels: {app: db}}}, status: {disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1}}\n";
            let objects = format!(
                "{}{}{}{}",
                pg36("workers", "priority: 100, schedulingPolicy: {gang: {minCount: 1}}"),
                bound("free", "1", 0, Some("2020-01-01T00:00:00Z"), ""),
                bound("guarded", "1", 0, Some("2021-01-01T00:00:00Z"), ", labels: {app: db}"),
                member("w0", "workers", "1", "")
            );
            let g = cycle(&cluster("2", &objects), &features36(WAP36), "w0");
            // Without a PDB the earlier-started pod is reprieved first.
            assert_eq!(g.preemption.as_ref().unwrap().victims, vec![lone("guarded", 0)]);
            let g = cycle(&cluster("2", &format!("{objects}{pdb}")), &features36(WAP36), "w0");
            assert_eq!(g.preemption.as_ref().unwrap().victims, vec![lone("free", 0)]);
        }

        #[test]
        fn refusals_and_their_messages() {
            let base = format!(
                "{}{}{}{}",
                pg36("workers", GANG2),
                bound("l1", "2", 200, None, ""),
                member("w0", "workers", "2", ""),
                member("w1", "workers", "2", "")
            );
            let g = cycle(&cluster("2", &base), &features36(WAP36), "w0");
            let p = g.preemption.as_ref().unwrap();
            assert_eq!(
                (p.code, p.message.as_str()),
                (Code::UnschedulableAndUnresolvable, wap::NO_VICTIMS)
            );
            assert_eq!(
                p.condition,
                "pod group is unschedulable, No preemption victims found for incoming preemptor"
            );
            // Evicting every lower-priority pod is not enough: the algorithm's own status.
            let small = base.replace("priority: 200", "priority: 0");
            let g = cycle(&cluster("3", &small), &features36(WAP36), "w0");
            let p = g.preemption.as_ref().unwrap();
            assert_eq!(
                (p.code, p.message.as_str()),
                (Code::Unschedulable, "pod group is unschedulable")
            );
            assert_eq!(p.condition, "pod group is unschedulable, pod group is unschedulable");
            // A member that may not preempt.
            let never = small.replace(
                "name: w1, namespace: ml, uid: u-w1}, spec: {priority: 100",
                "name: w1, namespace: ml, uid: u-w1}, spec: {priority: 100, preemptionPolicy: Never",
            );
            let g = cycle(&cluster("4", &never), &features36(WAP36), "w0");
            assert_eq!(g.preemption.as_ref().unwrap().message, wap::NOT_ELIGIBLE_NEVER);
            // A PodGroup with topology constraints (TopologyAwareWorkloadScheduling on).
            let constrained = small.replace(
                GANG2,
                &format!("{GANG2}, schedulingConstraints: {{topology: [{{key: zone}}]}}"),
            );
            let f = features36(&format!("{WAP36},TopologyAwareWorkloadScheduling=true"));
            let c = cluster("4", &constrained.replace("name: n1}", "name: n1, labels: {zone: a}}"));
            let g = cycle(&c, &f, "w0");
            let p = g.preemption.as_ref().unwrap();
            assert_eq!(
                (p.code, p.message.as_str()),
                (Code::Unschedulable, wap::NOT_SUPPORTED_WITH_CONSTRAINTS)
            );
            // The zone cannot hold the group: placement generation is Unschedulable already.
            assert_eq!(
                p.condition,
                "no feasible placements found, workload aware preemption is not supported for pod groups with scheduling constraints"
            );
        }

        #[test]
        fn release_1_37_generic_workload_turns_it_on_with_v1beta1_pod_groups() {
            let objects = format!(
                "- {{apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {{name: workers, namespace: ml, uid: uid-workers}}, spec: {{{GANG2}}}}}\n- {{apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {{name: batch, namespace: ml}}, spec: {{priority: 5, disruptionMode: {{all: {{}}}}, schedulingPolicy: {{basic: {{}}}}}}}}\n{}{}{}{}",
                bound("b0", "2", 0, None, "").replace(
                    "priority: 0, nodeName",
                    "priority: 0, schedulingGroup: {podGroupName: batch}, nodeName"
                ),
                bound("b1", "2", 0, None, "").replace(
                    "priority: 0, nodeName",
                    "priority: 0, schedulingGroup: {podGroupName: batch}, nodeName"
                ),
                member("w0", "workers", "2", ""),
                member("w1", "workers", "2", "")
            );
            let f =
                Features::with_gates(Release::at(37), &FeatureGates::parse("GenericWorkload=true").unwrap()).unwrap();
            assert!(f.workload_aware_preemption());
            assert!(!crate::engine::release::Features::from(Release::at(37)).workload_aware_preemption());
            let g = cycle(&cluster("4", &objects), &f, "w0");
            let p = g.preemption.as_ref().unwrap();
            assert_eq!(p.code, Code::Success);
            assert_eq!(
                p.victims,
                vec![PreemptionVictim {
                    pod_group: Some(key("batch")),
                    pods: vec![key("b0"), key("b1")],
                    priority: 5,
                    violates_pdb: false,
                }]
            );
            // DefaultPreemption refuses pod-by-pod preemption for the members.
            let snap = Snapshot::new(Arc::new(cluster("4", &objects)), &f);
            let profiles = build_profiles(None, f.clone()).unwrap();
            let ex = runner::explain(&snap, &profiles, &key("w0")).unwrap();
            assert_eq!(
                ex.post_filter.as_ref().map(|p| p.message.as_str()),
                Some(crate::engine::plugins::default_preemption::NOT_ELIGIBLE_WORKLOAD_AWARE)
            );
        }
    }
}
