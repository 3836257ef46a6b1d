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
//! snapshot.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Serialize;

use super::framework::runner::{self, EngineError};
use super::framework::runtime::Framework;
use super::framework::snapshot::Snapshot;
use super::release::Features;
use super::simulate::{AttemptOutcome, EventKind, FinalState, SimOptions, simulate};
use super::trace::GangTrace;
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
        self.placed() || matches!(self, MemberResult::Released { .. })
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
}

impl GroupCycle {
    /// One line for the outcome.
    pub fn verdict(&self) -> String {
        let g = &self.gang;
        match &self.outcome {
            GroupOutcome::Completes => format!(
                "the group completes: {} of minMember {} placed, Permit allows them all",
                self.bound_before + self.members.iter().filter(|m| m.result.placed()).count(),
                g.min_member
            ),
            GroupOutcome::NoGroupObject => format!("the group {} does not exist: no member is scheduled", g.group),
            GroupOutcome::TooFewMembers { have, need } => format!(
                "the group can never complete as it is: {have} member(s) exist, minMember is {need}; {} more pod(s) must be created",
                need - have
            ),
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

/// As [`group_cycle`], for a pod whose explanation already gave its gang.
pub fn group_cycle_of(
    cluster: &Cluster,
    profiles: &[Framework],
    features: &Features,
    pod: &ObjectKey,
    gang: GangTrace,
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
    let outcome = if !gang.found {
        GroupOutcome::NoGroupObject
    } else if gang.members < need {
        GroupOutcome::TooFewMembers {
            have: gang.members,
            need,
        }
    } else if placed >= need && !members.iter().any(|m| matches!(m.result, MemberResult::Waiting { .. })) {
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
    GroupCycle {
        gang,
        bound_before,
        members,
        outcome,
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
}
