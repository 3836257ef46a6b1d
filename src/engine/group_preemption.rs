//! Workload-aware preemption (KEP-5710): when a pod group's cycle finds the group unschedulable,
//! the group as a whole preempts lower-priority pods and pod groups across the whole cluster.
//!
//! Reproduces k8s.io/kubernetes v1.36.2 (read in the kubernetes/autoscaler vendor tree at commit
//! 74a7d3b15e, `cluster-autoscaler/vendor/k8s.io/kubernetes`, whose go.mod pins v1.36.2):
//! - `pkg/scheduler/schedule_one_podgroup.go` (`podGroupCycle`, `runWorkloadAwarePreemption`,
//!   `submitPodGroupAlgorithmResult`): preemption runs only when the gate is on and the pod-group
//!   algorithm's status code is exactly Unschedulable. Refusals, in order: a profile without
//!   DefaultPreemption ("default preemption plugin is not registered, workload aware preemption
//!   is disabled"), a missing PodGroup (Error "failed to get pod group object: ..."), a PodGroup
//!   whose `schedulingConstraints.topology` is not empty ("workload aware preemption is not
//!   supported for pod groups with scheduling constraints"). An Error replaces the group's status;
//!   any other failure is appended to it (`AppendReason(status.String())`: "<status>, <refusal>"),
//!   and that message is the PodGroupScheduled=False condition (reason Unschedulable). On success
//!   the group keeps its own status ("pod group is unschedulable", or 1.36's placements message)
//!   and waits on the preemption: each member that fit in the cycle is nominated to the node the
//!   cycle found for it and gets that status as its PodScheduled message; the other members keep
//!   their own status and nomination. A PodGroup already PodGroupScheduled=True keeps its
//!   condition (`updatePodGroupCondition` never regresses it).
//! - `pkg/scheduler/framework/runtime/framework.go`: DefaultPreemption is the pod-group PostFilter
//!   when it is one of the profile's plugins (at any extension point).
//! - `pkg/scheduler/framework/preemption/podgrouppreemption.go` (`Preempt`,
//!   `selectVictimsOnDomain`, `isPreemptionAllowed`, `preemptorEligibleToPreemptOthers`,
//!   `moreImportantVictim`), `types.go` (`newPodGroupPreemptor`, `newDomainForWorkloadPreemption`,
//!   `isPodGroupPreemptiblePod`, `newVictim`, `victim.IsPodGroup`), `preemption.go`
//!   (`filterVictimsWithPDBViolation`).
//! - `pkg/scheduler/framework/preemption/executor.go` (`actuatePodGroupPreemption`,
//!   `prepareCandidate`, `PreemptPod`): the candidate is named "cluster"; a victim already being
//!   deleted (deletionTimestamp) is skipped; every other one gets the DisruptionTarget condition
//!   "<schedulerName of the first member>: preempting to accommodate a higher priority podgroup"
//!   and the event "Preempted by podgroup <PodGroup uid> on node cluster"; lower-priority pods
//!   nominated to the node "cluster" (none) lose their nomination.
//! - `pkg/scheduler/util/utils.go` (`PodGroupPriority`: `spec.priority`, 0 when unset;
//!   `GetPodStartTime`).
//!
//! The algorithm: the preemptor is the PodGroup with its priority and its queued members; one
//! member with `preemptionPolicy: Never` makes the whole group ineligible ("not eligible due to
//! preemptionPolicy=Never."; 1.36.2 has no check for terminating pods on nominated nodes). Every
//! pod on a node is a victim on its own, with its own priority, except the pods of a PodGroup whose
//! `disruptionMode` is `PodGroup`: they are one victim with the PodGroup's priority, whose start
//! time is the first of its pods found (nodes in snapshot order, then pods; later pods do not
//! update it). The victims of lower priority than the group are all removed and the group's
//! algorithm runs again (its Unschedulable status is returned as is); if the group fits, the
//! victims are sorted most important first (higher priority; a pod of a pod group before a lone
//! pod; lone pods by earlier start; groups by more pods, then earlier start) and reprieved one by
//! one, the PDB-violating ones first, a victim staying removed when the group no longer fits with
//! it back. A victim violates a PDB when one of its pods takes a PDB below zero disruptions; a
//! pod's walk over the PDBs stops at the first one it violates, and so does the victim's walk
//! over its pods (the pods after it spend no budget).
//!
//! kschedtui's choices where upstream is not deterministic (the project's rule: map and random
//! orders are replaced by the snapshot's order): the victims are found in the snapshot's node
//! order (by name) and, on a node, in its pod order; upstream builds them in its node list's order
//! but then takes them out of a map, and its sort is not stable, so victims tied on every
//! criterion keep the found order here. A pod without `status.startTime` counts as started at
//! 2099-01-01T00:00:00Z (the project's preemption rule; upstream reads the clock once per victim
//! as it builds them, so such pods are later than every started pod and ordered as found, which
//! the found-order tie rule gives too). The PDBs are walked in the snapshot's order (upstream
//! lists them from an informer). A PodGroup without `spec.priority` takes the value the Priority
//! admission would have written from its `priorityClassName` (or the global default), as the
//! loader does for pods; a PodGroup without `metadata.uid` is named by its key in the event, as
//! pods are.
//!
//! At 1.37 (GenericWorkload on, the gates merged) the same algorithm is applied to v1beta1
//! PodGroups, whose `disruptionMode` is an object (`{all: {}}` groups the pods), keeping two
//! traits of the newer upstream evaluators this was first ported from (a lower-priority pod
//! terminating by preemption on a member's nominated node makes the group ineligible, and every
//! pod of a victim spends the PDB budgets); 1.37's own evaluator (which checks each member's
//! proposed node with Filter and nominates the members on those nodes) is not reproduced exactly.

use std::cmp::Ordering;

use serde::Serialize;
use serde_json::Value;

use super::framework::runtime::{Framework, POINTS};
use super::framework::status::Code;
use super::plugins::default_preemption::{
    pdb_covers, pod_start_time_nanos, preemption_never, terminating_by_preemption,
};
use super::plugins::names;
use super::release::{Change, Features};
use crate::model::selector::Selector;
use crate::model::{Cluster, ObjectKey, Pod};

/// The group's status when the profile has no DefaultPreemption (no pod-group PostFilter).
pub const NOT_REGISTERED: &str = "default preemption plugin is not registered, workload aware preemption is disabled";
/// The group's status when preemption is refused for a PodGroup with topology constraints.
pub const NOT_SUPPORTED_WITH_CONSTRAINTS: &str =
    "workload aware preemption is not supported for pod groups with scheduling constraints";
/// No lower-priority victim anywhere.
pub const NO_VICTIMS: &str = "No preemption victims found for incoming preemptor";
/// A member has `preemptionPolicy: Never`.
pub const NOT_ELIGIBLE_NEVER: &str = "not eligible due to preemptionPolicy=Never.";
/// 1.37 only (see the module doc): a lower-priority pod is terminating by preemption on a
/// member's nominated node.
pub const NOT_ELIGIBLE_TERMINATING: &str = "not eligible due to a terminating pod on the nominated node.";
/// The pod-group algorithm's own status when the group does not fit (`errPodGroupUnschedulable`).
pub const POD_GROUP_UNSCHEDULABLE: &str = "pod group is unschedulable";

/// Whether `profile` has DefaultPreemption at any extension point, which makes it the pod-group
/// PostFilter (`frameworkImpl` registers it from the plugins it built).
pub fn has_pod_group_post_filter(profile: &Framework) -> bool {
    POINTS
        .iter()
        .any(|p| profile.plugins_at(p).contains(&names::DEFAULT_PREEMPTION))
}

/// One victim: a lone pod, or every pod on a node of a PodGroup preempted as a unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreemptionVictim {
    /// The PodGroup evicted as a unit (disruptionMode PodGroup), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_group: Option<ObjectKey>,
    /// Its pods.
    pub pods: Vec<ObjectKey>,
    /// The victim's priority (the PodGroup's for a group).
    pub priority: i32,
    /// Whether evicting it violates a PodDisruptionBudget.
    pub violates_pdb: bool,
}

/// A member and a node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberNode {
    /// The member.
    pub pod: ObjectKey,
    /// Its node.
    pub node: String,
}

/// The pod group's preemption.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupPreemption {
    /// The preemptor PodGroup.
    pub pod_group: ObjectKey,
    /// Its priority.
    pub priority: i32,
    /// Success when victims were chosen, else the refusal's code.
    pub code: Code,
    /// The refusal (absent on success).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// The group's status after the attempt: the PodGroupScheduled=False condition's message
    /// (SchedulerError's for an Error), and on success the PodScheduled message of the
    /// nominated members.
    pub condition: String,
    /// The PodGroup already has PodGroupScheduled=True: upstream leaves that condition as it is.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub condition_kept: bool,
    /// The victims, most important first.
    pub victims: Vec<PreemptionVictim>,
    /// On success, the members that fit in the cycle, nominated to the nodes it found for them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nominated: Vec<MemberNode>,
    /// The events the victims get ("Preempted by podgroup ... on node cluster"); a victim
    /// already being deleted gets none.
    pub events: Vec<String>,
}

impl GroupPreemption {
    /// The victim pods, in eviction order.
    pub fn victim_pods(&self) -> Vec<ObjectKey> {
        self.victims.iter().flat_map(|v| v.pods.clone()).collect()
    }
}

/// What the pod-group cycle hands to workload-aware preemption.
pub struct GroupAttempt<'a> {
    /// The PodGroup.
    pub group: &'a ObjectKey,
    /// Its queued members (the preemptor's pods).
    pub queued: &'a [ObjectKey],
    /// The cycle's status message (Unschedulable).
    pub status: &'a str,
    /// The algorithm's status when the group does not fit even with every victim gone.
    pub unschedulable: &'a str,
    /// The members that fit in the cycle, with their nodes (nominated on success).
    pub feasible: Vec<MemberNode>,
    /// Whether the profile has DefaultPreemption ([`has_pod_group_post_filter`]).
    pub post_filter: bool,
}

/// A victim while being selected.
struct Candidate<'c> {
    pod_group: Option<ObjectKey>,
    pods: Vec<&'c Pod>,
    priority: i32,
    /// `IsPodGroup`: the first pod names a scheduling group.
    is_pod_group: bool,
    /// The start of the first pod found (nanoseconds).
    earliest: i128,
}

/// The PodGroup object's fields workload-aware preemption reads, per release.
struct GroupFacts {
    uid: String,
    priority: i32,
    /// disruptionMode PodGroup (1.36) / `{all: {}}` (1.37).
    atomic: bool,
    constrained: bool,
    /// status.conditions has PodGroupScheduled=True.
    scheduled: bool,
}

/// `PodGroupPriority`: `spec.priority`; unset, what the Priority admission writes from
/// `priorityClassName`, as the loader does for pods (an unknown or empty class: the global
/// default, else 0).
fn group_priority(cluster: &Cluster, rest: &std::collections::BTreeMap<String, Value>) -> i32 {
    if let Some(p) = rest.get("priority").and_then(Value::as_i64) {
        return i32::try_from(p).unwrap_or(0);
    }
    let global_default = || {
        cluster
            .priority_classes
            .values()
            .filter(|p| p.global_default == Some(true))
            .map(|p| p.value.unwrap_or(0))
            .max()
            .unwrap_or(0)
    };
    match rest
        .get("priorityClassName")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
    {
        Some(c) => match cluster.priority_classes.get(c) {
            Some(pc) => pc.value.unwrap_or(0),
            None => global_default(),
        },
        None => global_default(),
    }
}

/// Whether a PodGroup's status has the condition PodGroupScheduled=True.
fn scheduled_true(status: Option<&Value>) -> bool {
    status
        .and_then(|s| s.get("conditions"))
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter().any(|c| {
                c.get("type").and_then(Value::as_str) == Some("PodGroupScheduled")
                    && c.get("status").and_then(Value::as_str) == Some("True")
            })
        })
}

/// Whether the release reads v1beta1 PodGroups (1.37).
fn v1beta1(features: &Features) -> bool {
    features.has(Change::GangSchedulingReadsV1Beta1PodGroups)
}

/// The PodGroup `key` as the release reads it (v1alpha2 at 1.36, v1beta1 at 1.37).
fn group_facts(cluster: &Cluster, features: &Features, key: &ObjectKey) -> Option<GroupFacts> {
    let uid = |u: Option<&str>| u.map_or_else(|| key.to_string(), str::to_string);
    if v1beta1(features) {
        let pg = cluster.pod_groups_v1beta1.get(key)?;
        let rest = &pg.spec.rest;
        Some(GroupFacts {
            uid: uid(pg.metadata.uid.as_deref()),
            priority: group_priority(cluster, rest),
            atomic: rest
                .get("disruptionMode")
                .and_then(|m| m.get("all"))
                .is_some_and(|a| !a.is_null()),
            constrained: rest
                .get("schedulingConstraints")
                .and_then(|c| c.get("topology"))
                .and_then(Value::as_array)
                .is_some_and(|t| !t.is_empty()),
            scheduled: scheduled_true(pg.status.as_ref()),
        })
    } else {
        let pg = cluster.scheduling_pod_groups.get(key)?;
        let rest = &pg.spec.rest;
        Some(GroupFacts {
            uid: uid(pg.metadata.uid.as_deref()),
            priority: group_priority(cluster, rest),
            atomic: rest.get("disruptionMode").and_then(Value::as_str) == Some("PodGroup"),
            constrained: pg
                .spec
                .scheduling_constraints
                .as_ref()
                .is_some_and(|c| !c.topology.is_empty()),
            scheduled: scheduled_true(pg.status.as_ref()),
        })
    }
}

/// `moreImportantVictim` as an ordering (Less: `a` is more important).
fn importance(a: &Candidate<'_>, b: &Candidate<'_>) -> Ordering {
    if a.priority != b.priority {
        return b.priority.cmp(&a.priority);
    }
    if a.is_pod_group != b.is_pod_group {
        return if a.is_pod_group {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    if !a.is_pod_group {
        return a.earliest.cmp(&b.earliest);
    }
    if a.pods.len() != b.pods.len() {
        return b.pods.len().cmp(&a.pods.len());
    }
    a.earliest.cmp(&b.earliest)
}

/// `filterVictimsWithPDBViolation`: whether each victim violates a PDB, the budgets spent across
/// the victims in order. A pod the PDB does not cover (`pdb_covers`, `as_defined` from 1.38:
/// up to 1.37 a pod without labels and an empty selector never match) and a pod in
/// `disruptedPods` do not count; a pod's walk over the PDBs stops at the first one it violates and
/// a victim's walk over its pods stops at its first violating pod (`every_pod`, 1.37: every pod
/// spends the budgets).
fn violating(victims: &[Candidate<'_>], cluster: &Cluster, every_pod: bool, as_defined: bool) -> Vec<bool> {
    let pdbs = &cluster.pdbs;
    let mut allowed: Vec<i32> = pdbs
        .iter()
        .map(|p| p.status.as_ref().and_then(|s| s.disruptions_allowed).unwrap_or(0))
        .collect();
    let selectors: Vec<Selector> = pdbs
        .iter()
        .map(|p| Selector::from_label_selector(p.spec.as_ref().and_then(|s| s.selector.as_ref())))
        .collect();
    let mut pod_violates = |pod: &Pod| {
        for (i, pdb) in pdbs.iter().enumerate() {
            if pdb.metadata.namespace.as_deref().unwrap_or_default() != pod.key.namespace {
                continue;
            }
            if !pdb_covers(&selectors[i], pod, as_defined) {
                continue;
            }
            let disrupted = pdb
                .status
                .as_ref()
                .and_then(|s| s.disrupted_pods.as_ref())
                .is_some_and(|m| m.contains_key(pod.key.name.as_str()));
            if disrupted {
                continue;
            }
            allowed[i] -= 1;
            if allowed[i] < 0 {
                return true;
            }
        }
        false
    };
    victims
        .iter()
        .map(|v| {
            if every_pod {
                // Every pod spends the budgets: count them all, no short circuit.
                v.pods.iter().filter(|p| pod_violates(p)).count() > 0
            } else {
                v.pods.iter().any(|p| pod_violates(p))
            }
        })
        .collect()
}

/// The pods on `node` (not finished), as its NodeInfo holds them, in the snapshot's order.
fn bound_on<'c>(cluster: &'c Cluster, node: &'c str) -> impl Iterator<Item = &'c Pod> + 'c {
    cluster
        .pods
        .iter()
        .map(|p| &**p)
        .filter(move |p| p.node_name.as_deref() == Some(node) && !p.is_finished())
}

/// `newDomainForWorkloadPreemption`: every pod on a node a victim on its own, a
/// disruptionMode-PodGroup group's pods one victim.
fn domain<'c>(cluster: &'c Cluster, features: &Features) -> Vec<Candidate<'c>> {
    let mut all: Vec<Candidate<'c>> = Vec::new();
    for node in &cluster.nodes {
        for p in bound_on(cluster, &node.name) {
            let grouped = p
                .scheduling_group()
                .map(|g| ObjectKey::new(p.key.namespace.as_str(), g))
                .and_then(|k| group_facts(cluster, features, &k).map(|f| (k, f)))
                .filter(|(_, f)| f.atomic);
            match grouped {
                // Only the first pod's start counts (`newVictim` runs once, later pods are
                // appended).
                Some((k, f)) => match all.iter_mut().find(|c| c.pod_group.as_ref() == Some(&k)) {
                    Some(c) => c.pods.push(p),
                    None => all.push(Candidate {
                        pod_group: Some(k),
                        pods: vec![p],
                        priority: f.priority,
                        is_pod_group: true,
                        earliest: pod_start_time_nanos(p),
                    }),
                },
                None => all.push(Candidate {
                    pod_group: None,
                    pods: vec![p],
                    priority: p.priority,
                    is_pod_group: p.scheduling_group().is_some(),
                    earliest: pod_start_time_nanos(p),
                }),
            }
        }
    }
    all
}

/// What the caller's pod-group algorithm says of a cluster: whether the group fits.
pub type GroupFits<'f> = dyn FnMut(&Cluster) -> bool + 'f;

/// Runs workload-aware preemption for the pod group of `attempt` after its cycle ended
/// Unschedulable; `fits` runs the group's algorithm (without PostFilter) on a cluster.
pub fn preempt(
    cluster: &Cluster,
    features: &Features,
    attempt: GroupAttempt<'_>,
    fits: &mut GroupFits<'_>,
) -> GroupPreemption {
    let group = attempt.group;
    let facts = group_facts(cluster, features, group);
    let priority = facts.as_ref().map_or(0, |f| f.priority);
    let mut out = GroupPreemption {
        pod_group: group.clone(),
        priority,
        code: Code::Success,
        message: String::new(),
        condition: attempt.status.to_string(),
        condition_kept: facts.as_ref().is_some_and(|f| f.scheduled),
        victims: Vec::new(),
        nominated: Vec::new(),
        events: Vec::new(),
    };
    let status = attempt.status;
    let refuse = |mut out: GroupPreemption, code: Code, message: String| {
        // An Error replaces the group's status; anything else is appended to it.
        out.condition = if code == Code::Error {
            message.clone()
        } else {
            format!("{status}, {message}")
        };
        out.code = code;
        out.message = message;
        out
    };
    if !attempt.post_filter {
        return refuse(out, Code::Unschedulable, NOT_REGISTERED.to_string());
    }
    let Some(facts) = facts else {
        // The lister's NotFound (unreachable here: GangScheduling's PreEnqueue holds the members
        // of a missing PodGroup, so its cycle does not run).
        return refuse(
            out,
            Code::Error,
            format!(
                "failed to get pod group object: podgroup.scheduling.k8s.io {:?} not found",
                group.name
            ),
        );
    };
    if facts.constrained {
        return refuse(out, Code::Unschedulable, NOT_SUPPORTED_WITH_CONSTRAINTS.to_string());
    }
    let members: Vec<&Pod> = attempt
        .queued
        .iter()
        .filter_map(|k| cluster.pods.iter().find(|p| p.key == *k).map(|p| &**p))
        .collect();
    if members.iter().any(|p| preemption_never(p, cluster)) {
        return refuse(out, Code::Unschedulable, NOT_ELIGIBLE_NEVER.to_string());
    }
    if v1beta1(features) {
        // 1.37 (see the module doc): a pod of a PodGroup counts with its group's priority.
        let effective = |p: &Pod| -> i32 {
            p.scheduling_group()
                .and_then(|g| group_facts(cluster, features, &ObjectKey::new(p.key.namespace.as_str(), g)))
                .map_or(p.priority, |f| f.priority)
        };
        let nominated: std::collections::BTreeSet<&str> =
            members.iter().filter_map(|p| p.nominated_node_name()).collect();
        for n in nominated {
            if bound_on(cluster, n).any(|p| effective(p) < priority && terminating_by_preemption(p)) {
                return refuse(out, Code::Unschedulable, NOT_ELIGIBLE_TERMINATING.to_string());
            }
        }
    }
    let mut potential: Vec<Candidate<'_>> = domain(cluster, features)
        .into_iter()
        .filter(|c| c.priority < priority)
        .collect();
    if potential.is_empty() {
        return refuse(out, Code::UnschedulableAndUnresolvable, NO_VICTIMS.to_string());
    }
    let without = |removed: &[&Candidate<'_>]| {
        let mut c = cluster.clone();
        c.pods
            .retain(|p| !removed.iter().any(|v| v.pods.iter().any(|q| q.key == p.key)));
        c
    };
    let all_removed: Vec<&Candidate<'_>> = potential.iter().collect();
    if !fits(&without(&all_removed)) {
        return refuse(out, Code::Unschedulable, attempt.unschedulable.to_string());
    }
    potential.sort_by(importance);
    let flags = violating(
        &potential,
        cluster,
        v1beta1(features),
        features.has(Change::PdbSelectorAsDefined),
    );
    let order: Vec<usize> = (0..potential.len())
        .filter(|&i| flags[i])
        .chain((0..potential.len()).filter(|&i| !flags[i]))
        .collect();
    let mut removed: Vec<usize> = (0..potential.len()).collect();
    for i in order {
        let trial: Vec<&Candidate<'_>> = removed.iter().filter(|&&j| j != i).map(|&j| &potential[j]).collect();
        if fits(&without(&trial)) {
            removed.retain(|&j| j != i);
        }
    }
    // Sorted by importance again: `removed` keeps `potential`'s order.
    for &i in &removed {
        let v = &potential[i];
        out.victims.push(PreemptionVictim {
            pod_group: v.pod_group.clone(),
            pods: v.pods.iter().map(|p| p.key.clone()).collect(),
            priority: v.priority,
            violates_pdb: flags[i],
        });
        for p in v.pods.iter().filter(|p| !p.terminating) {
            out.events.push(format!(
                "{}: Preempted by podgroup {} on node cluster",
                p.key, facts.uid
            ));
        }
    }
    out.nominated = attempt.feasible;
    out
}

/// The DisruptionTarget condition message a victim gets (`PreemptPod`), `scheduler_name` being
/// the first member's.
pub fn disruption_message(scheduler_name: &str) -> String {
    format!("{scheduler_name}: preempting to accommodate a higher priority podgroup")
}

#[cfg(test)]
mod tests {
    //! Upstream's tables, transcribed: `TestPodGroupEvaluator_SelectVictimsOnDomain`,
    //! `TestMoreImportantVictim` (pkg/scheduler/framework/preemption/podgrouppreemption_test.go)
    //! and `TestFilterVictimsWithPDBViolation` (its preemption tests), kubernetes/kubernetes
    //! master of the 1.36 cycle (v1alpha2 PodGroups, `newDomainForWorkloadPreemption` with the
    //! PodGroup lister, `newPodGroupPreemptor(pg, pods)`), keeping the cases whose logic is
    //! v1.36.2's (the later "Gang scheduling"/"Basic scheduling" cases test a
    //! maxScheduledCount reprieve rule that v1.36.2 does not have). The scheduling function is
    //! upstream's mock: each rule gives `capacity` slots on its node when none of its blocking
    //! pods is there, and the group fits when the slots reach its member count.
    use super::*;
    use crate::engine::release::{FeatureGates, Release};
    use crate::source::file::load_str;

    const LOW: i32 = 0;
    const MID: i32 = 100;
    const HIGH: i32 = 1000;

    /// A pod in namespace `default` (`node`: bound there; `group`: spec.schedulingGroup;
    /// `start`: status.startTime in seconds since the epoch).
    #[derive(Default, Clone, Copy)]
    struct P<'a> {
        name: &'a str,
        node: Option<&'a str>,
        priority: i32,
        group: Option<&'a str>,
        start: Option<i64>,
        labels: &'a str,
        never: bool,
    }

    fn p(name: &str, node: &str, priority: i32) -> P<'static> {
        P {
            name: Box::leak(name.to_string().into_boxed_str()),
            node: Some(Box::leak(node.to_string().into_boxed_str())),
            priority,
            ..P::default()
        }
    }

    impl<'a> P<'a> {
        fn group(mut self, g: &'a str) -> Self {
            self.group = Some(g);
            self
        }
        fn start(mut self, s: i64) -> Self {
            self.start = Some(s);
            self
        }
        fn labels(mut self, l: &'a str) -> Self {
            self.labels = l;
            self
        }
        fn yaml(&self) -> String {
            let node = self.node.map(|n| format!(", nodeName: {n}")).unwrap_or_default();
            let group = self
                .group
                .map(|g| format!(", schedulingGroup: {{podGroupName: {g}}}"))
                .unwrap_or_default();
            let never = if self.never { ", preemptionPolicy: Never" } else { "" };
            let status = self
                .start
                .map(|s| {
                    // Seconds after the epoch, within its first day.
                    let t = format!("1970-01-01T{:02}:{:02}:{:02}Z", s / 3600, (s / 60) % 60, s % 60);
                    format!(", status: {{startTime: '{t}'}}")
                })
                .unwrap_or_default();
            let labels = if self.labels.is_empty() {
                String::new()
            } else {
                format!(", labels: {{{}}}", self.labels)
            };
            format!(
                "- {{apiVersion: v1, kind: Pod, metadata: {{name: {}, namespace: default, uid: u-{}{labels}}}, spec: {{priority: {}{never}{node}{group}, containers: [{{name: c, image: i}}]}}{status}}}\n",
                self.name, self.name, self.priority
            )
        }
    }

    /// A v1alpha2 PodGroup (`mode`: spec.disruptionMode).
    fn pg(name: &str, priority: Option<i32>, mode: Option<&str>) -> String {
        let priority = priority.map(|p| format!("priority: {p}, ")).unwrap_or_default();
        let mode = mode.map(|m| format!("disruptionMode: {m}, ")).unwrap_or_default();
        format!(
            "- {{apiVersion: scheduling.k8s.io/v1alpha2, kind: PodGroup, metadata: {{name: {name}, namespace: default, uid: uid-{name}}}, spec: {{{priority}{mode}schedulingPolicy: {{basic: {{}}}}}}}}\n"
        )
    }

    /// A PDB over `app=foo` (or `selector`) in namespace default.
    fn pdb(name: &str, selector: &str, allowed: i32, disrupted: &str) -> String {
        let disrupted = if disrupted.is_empty() {
            String::new()
        } else {
            format!(", disruptedPods: {{{disrupted}: '2026-01-01T00:00:00Z'}}")
        };
        format!(
            "- {{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {{name: {name}, namespace: default}}, spec: {{selector: {selector}}}, status: {{disruptionsAllowed: {allowed}, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0{disrupted}}}}}\n"
        )
    }

    fn load(nodes: &[&str], objects: &str) -> Cluster {
        let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
        for n in nodes {
            text.push_str(&format!(
                "- {{apiVersion: v1, kind: Node, metadata: {{name: {n}}}, status: {{allocatable: {{cpu: '4', memory: 8Gi, pods: '20'}}}}}}\n"
            ));
        }
        text.push_str(objects);
        load_str("t", &text).unwrap()
    }

    fn features36() -> Features {
        let g = FeatureGates::parse("GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true").unwrap();
        Features::with_gates(Release::at(36), &g).unwrap()
    }

    /// One of upstream's blocking rules.
    struct Rule<'a> {
        node: &'a str,
        capacity: usize,
        blocking: &'a [&'a str],
    }

    fn r<'a>(node: &'a str, capacity: usize, blocking: &'a [&'a str]) -> Rule<'a> {
        Rule {
            node,
            capacity,
            blocking,
        }
    }

    /// One table case: the cluster (nodes, victims' pods, their PodGroups, PDBs), the preemptor
    /// PodGroup `preemptor-pg` with its priority and members, the rules.
    struct Case<'a> {
        nodes: &'a [&'a str],
        pods: Vec<P<'a>>,
        extra: String,
        preemptor_priority: i32,
        members: Vec<P<'a>>,
        rules: Vec<Rule<'a>>,
    }

    fn run(c: &Case<'_>) -> GroupPreemption {
        let mut objects: String = c.pods.iter().map(P::yaml).collect();
        objects.push_str(&c.extra);
        objects.push_str(&pg("preemptor-pg", Some(c.preemptor_priority), None));
        for m in &c.members {
            objects.push_str(
                &P {
                    node: None,
                    ..m.group("preemptor-pg")
                }
                .yaml(),
            );
        }
        let cluster = load(c.nodes, &objects);
        let queued: Vec<ObjectKey> = c.members.iter().map(|m| ObjectKey::new("default", m.name)).collect();
        let needed = c.members.len();
        let mut fits = |cl: &Cluster| {
            let slots: usize = c
                .rules
                .iter()
                .filter(|rule| cl.nodes.iter().any(|n| n.name == rule.node))
                .filter(|rule| {
                    !cl.pods.iter().any(|q| {
                        q.node_name.as_deref() == Some(rule.node) && rule.blocking.contains(&q.key.name.as_str())
                    })
                })
                .map(|rule| rule.capacity)
                .sum();
            slots >= needed
        };
        let attempt = GroupAttempt {
            group: &ObjectKey::new("default", "preemptor-pg"),
            queued: &queued,
            status: POD_GROUP_UNSCHEDULABLE,
            unschedulable: POD_GROUP_UNSCHEDULABLE,
            feasible: Vec::new(),
            post_filter: true,
        };
        preempt(&cluster, &features36(), attempt, &mut fits)
    }

    fn victim_names(g: &GroupPreemption) -> Vec<String> {
        g.victim_pods().into_iter().map(|k| k.name.into()).collect()
    }

    fn member(name: &'static str, priority: i32) -> P<'static> {
        P {
            name,
            priority,
            ..P::default()
        }
    }

    fn ok(c: Case<'_>, want: &[&str]) {
        let g = run(&c);
        assert_eq!((g.code, g.message.as_str()), (Code::Success, ""));
        assert_eq!(victim_names(&g), want);
    }

    fn refused(c: Case<'_>, code: Code, message: &str) {
        let g = run(&c);
        assert_eq!((g.code, g.message.as_str()), (code, message));
        assert!(g.victims.is_empty());
    }

    #[test]
    fn mix_of_no_group_and_single_pod_groups() {
        ok(
            Case {
                nodes: &["node1", "node2", "node3"],
                pods: vec![
                    p("p1", "node1", LOW),
                    p("p2", "node2", LOW).group("pg1"),
                    p("p3", "node3", LOW).group("pg2"),
                ],
                extra: pg("pg1", None, Some("Pod")) + &pg("pg2", None, Some("Pod")),
                preemptor_priority: HIGH,
                members: vec![member("p", HIGH)],
                rules: vec![r("node1", 1, &["p1"]), r("node2", 1, &["p2"]), r("node3", 1, &["p3"])],
            },
            // p1 is less important than p2 because it is not part of a pod group.
            &["p1"],
        );
    }

    #[test]
    fn priority_shared_group_vs_no_group() {
        ok(
            Case {
                nodes: &["node1", "node2", "node3"],
                pods: vec![
                    p("p1", "node1", LOW).group("pg1").start(1),
                    p("p2", "node2", LOW).group("pg1").start(0),
                    p("p3", "node3", MID),
                ],
                extra: pg("pg1", None, Some("Pod")),
                preemptor_priority: HIGH,
                members: vec![member("p", HIGH)],
                rules: vec![r("node1", 1, &["p1"]), r("node2", 1, &["p2"]), r("node3", 1, &["p3"])],
            },
            // p1 is less important than p2: it started later.
            &["p1"],
        );
    }

    #[test]
    fn shared_group_preempt_separately() {
        ok(
            Case {
                nodes: &["node1", "node2"],
                pods: vec![
                    p("p1", "node1", LOW).group("pg1").start(1),
                    p("p2", "node2", LOW).group("pg1").start(0),
                ],
                extra: pg("pg1", None, Some("Pod")),
                preemptor_priority: HIGH,
                members: vec![member("p", HIGH)],
                rules: vec![r("node1", 1, &["p1"]), r("node2", 1, &["p2"])],
            },
            &["p1"],
        );
    }

    #[test]
    fn complex_mixed_shared_different_and_no_groups() {
        ok(
            Case {
                nodes: &["node1", "node2", "node3", "node4", "node5"],
                pods: vec![
                    p("p1", "node1", LOW).group("pg1").start(2),
                    p("p2", "node2", LOW).group("pg1").start(1),
                    p("p3", "node3", LOW).group("pg2").start(0),
                    p("p4", "node4", MID),
                    p("p5", "node5", HIGH).group("pg3").start(0),
                ],
                extra: pg("pg1", None, Some("Pod")) + &pg("pg2", None, Some("Pod")) + &pg("pg3", None, Some("Pod")),
                preemptor_priority: HIGH,
                members: vec![member("p-1", HIGH), member("p-2", HIGH), member("p-3", HIGH)],
                rules: vec![
                    r("node1", 1, &["p1"]),
                    r("node2", 1, &["p2"]),
                    r("node3", 1, &["p3"]),
                    r("node4", 1, &["p4"]),
                    r("node5", 1, &["p5"]),
                ],
            },
            // Most important first: p3 (earliest), p2, p1; p4 (mid) is reprieved.
            &["p3", "p2", "p1"],
        );
    }

    #[test]
    fn pdb_mixed_groups() {
        ok(
            Case {
                nodes: &["node1", "node2"],
                pods: vec![
                    p("victim-pdb", "node1", LOW).group("pg1").labels("app: foo"),
                    p("victim-no-pdb", "node2", LOW).group("pg1"),
                ],
                extra: pdb("foo", "{matchLabels: {app: foo}}", 0, ""),
                preemptor_priority: HIGH,
                members: vec![member("p", HIGH)],
                rules: vec![r("node1", 1, &["victim-pdb"]), r("node2", 1, &["victim-no-pdb"])],
            },
            &["victim-no-pdb"],
        );
    }

    #[test]
    fn pod_group_with_preempt_never_does_not_perform_preemption() {
        refused(
            Case {
                nodes: &["node1", "node2", "node3"],
                pods: vec![
                    p("p1", "node1", LOW),
                    p("p2", "node2", LOW).group("pg1"),
                    p("p3", "node3", LOW).group("pg2"),
                ],
                extra: pg("pg1", Some(LOW), Some("Pod")) + &pg("pg2", Some(LOW), Some("Pod")),
                preemptor_priority: HIGH,
                members: vec![
                    P {
                        never: true,
                        ..member("p-1", HIGH)
                    },
                    member("p-2", HIGH),
                ],
                rules: vec![r("node1", 1, &["p1"]), r("node2", 1, &["p2"]), r("node3", 1, &["p3"])],
            },
            Code::Unschedulable,
            NOT_ELIGIBLE_NEVER,
        );
    }

    #[test]
    fn preempt_single_lower_priority_pod() {
        ok(
            Case {
                nodes: &["node1"],
                pods: vec![p("p1", "node1", LOW)],
                extra: String::new(),
                preemptor_priority: HIGH,
                members: vec![member("p", HIGH)],
                rules: vec![r("node1", 1, &["p1"])],
            },
            &["p1"],
        );
    }

    #[test]
    fn priority_prefer_lower_priority_victim() {
        ok(
            Case {
                nodes: &["node1"],
                pods: vec![p("p1", "node1", LOW), p("p2", "node1", MID), p("p3", "node1", HIGH)],
                extra: String::new(),
                preemptor_priority: HIGH,
                members: vec![member("p", HIGH)],
                rules: vec![r("node1", 1, &["p1"]), r("node1", 1, &["p2"]), r("node1", 1, &["p3"])],
            },
            &["p1"],
        );
    }

    #[test]
    fn efficiency_preempt_minimum_number_of_victims() {
        ok(
            Case {
                nodes: &["node1"],
                pods: vec![
                    p("p1", "node1", LOW),
                    p("p2", "node1", LOW),
                    p("p3", "node1", LOW),
                    p("p4", "node1", LOW),
                ],
                extra: String::new(),
                preemptor_priority: HIGH,
                members: vec![member("p", HIGH)],
                rules: vec![r("node1", 1, &["p1", "p2"]), r("node1", 1, &["p1"])],
            },
            &["p1"],
        );
    }

    #[test]
    fn pdb_prefer_non_violating_victim() {
        ok(
            Case {
                nodes: &["node1"],
                pods: vec![
                    p("victim-pdb", "node1", LOW).labels("app: foo"),
                    p("victim-no-pdb", "node1", LOW),
                ],
                extra: pdb("foo", "{matchLabels: {app: foo}}", 0, ""),
                preemptor_priority: HIGH,
                members: vec![member("p", HIGH)],
                rules: vec![r("node1", 1, &["victim-pdb"]), r("node1", 1, &["victim-no-pdb"])],
            },
            &["victim-no-pdb"],
        );
    }

    #[test]
    fn pdb_prefer_lower_priority_pod_when_every_victim_violates() {
        let c = Case {
            nodes: &["node1"],
            pods: vec![
                p("p1", "node1", LOW).labels("app: foo"),
                p("p2", "node1", MID).labels("app: foo"),
            ],
            extra: pdb("foo", "{matchLabels: {app: foo}}", 0, ""),
            preemptor_priority: HIGH,
            members: vec![member("p", HIGH)],
            rules: vec![r("node1", 1, &["p1"]), r("node1", 1, &["p2"])],
        };
        let g = run(&c);
        assert_eq!(victim_names(&g), ["p1"]);
        assert!(g.victims[0].violates_pdb);
    }

    #[test]
    fn pod_group_preempt_group_as_a_whole() {
        let g = run(&Case {
            nodes: &["node1", "node2"],
            pods: vec![p("p1", "node1", LOW).group("pg1"), p("p2", "node2", LOW).group("pg1")],
            extra: pg("pg1", Some(LOW), Some("PodGroup")),
            preemptor_priority: HIGH,
            members: vec![member("p", HIGH)],
            rules: vec![r("node1", 1, &["p1"])],
        });
        assert_eq!(
            g.victims,
            vec![PreemptionVictim {
                pod_group: Some(ObjectKey::new("default", "pg1")),
                pods: vec![ObjectKey::new("default", "p1"), ObjectKey::new("default", "p2")],
                priority: LOW,
                violates_pdb: false,
            }]
        );
        assert_eq!(
            g.events,
            [
                "default/p1: Preempted by podgroup uid-preemptor-pg on node cluster",
                "default/p2: Preempted by podgroup uid-preemptor-pg on node cluster"
            ]
        );
    }

    #[test]
    fn pod_group_prefer_single_pod_over_pod_group() {
        for name in [
            "Prefer single pod over podGroup for preemption candidate",
            "Prefer preempting single pod over group of same priority",
        ] {
            let g = run(&Case {
                nodes: &["node1"],
                pods: vec![
                    p("p1", "node1", LOW),
                    p("g1-1", "node1", LOW).group("pg1"),
                    p("g1-2", "node1", LOW).group("pg1"),
                ],
                extra: pg("pg1", Some(LOW), Some("PodGroup")),
                preemptor_priority: HIGH,
                members: vec![member("p", HIGH)],
                rules: vec![r("node1", 1, &["g1-1", "g1-2"]), r("node1", 1, &["p1"])],
            });
            assert_eq!(victim_names(&g), ["p1"], "{name}");
        }
    }

    #[test]
    fn pod_group_preempt_group_as_a_whole_on_single_node() {
        ok(
            Case {
                nodes: &["node1"],
                pods: vec![
                    p("g1-1", "node1", LOW).group("pg1"),
                    p("g1-2", "node1", LOW).group("pg1"),
                    p("p1", "node1", MID),
                ],
                extra: pg("pg1", Some(LOW), Some("PodGroup")),
                preemptor_priority: HIGH,
                members: vec![member("p", HIGH)],
                // Only g1-1 blocks; both of pg1's pods go.
                rules: vec![r("node1", 1, &["g1-1"])],
            },
            &["g1-1", "g1-2"],
        );
    }

    #[test]
    fn pdb_unit_violation_if_any_member_violates() {
        ok(
            Case {
                nodes: &["node1"],
                pods: vec![
                    p("g1-1", "node1", LOW).group("pg1").labels("app: foo"),
                    p("g1-2", "node1", LOW).group("pg1"),
                    p("p1", "node1", LOW),
                ],
                extra: pg("pg1", Some(LOW), Some("PodGroup")) + &pdb("foo", "{matchLabels: {app: foo}}", 0, ""),
                preemptor_priority: HIGH,
                members: vec![member("p", HIGH)],
                rules: vec![r("node1", 1, &["g1-1"]), r("node1", 1, &["p1"])],
            },
            // pg1 violates the PDB through g1-1 and is reprieved first.
            &["p1"],
        );
    }

    #[test]
    fn failures_without_lower_priority_victims() {
        refused(
            Case {
                nodes: &["node1"],
                pods: vec![p("p1", "node1", HIGH)],
                extra: String::new(),
                preemptor_priority: MID,
                members: vec![member("p", MID)],
                rules: vec![r("node1", 0, &["p1"])],
            },
            Code::UnschedulableAndUnresolvable,
            NO_VICTIMS,
        );
        refused(
            Case {
                nodes: &["node1"],
                pods: vec![],
                extra: String::new(),
                preemptor_priority: MID,
                members: vec![member("p", MID)],
                rules: vec![],
            },
            Code::UnschedulableAndUnresolvable,
            NO_VICTIMS,
        );
    }

    #[test]
    fn priority_divergence_between_pod_groups_and_their_pods() {
        let two = |pods_prio: i32, pg_prio: i32, preemptor: i32, member_prio: i32| Case {
            nodes: &["node1", "node2"],
            pods: vec![
                p("p1", "node1", pods_prio).group("pg1"),
                p("p2", "node2", pods_prio).group("pg1"),
            ],
            extra: pg("pg1", Some(pg_prio), Some("PodGroup")),
            preemptor_priority: preemptor,
            members: vec![member("p", member_prio)],
            rules: vec![r("node1", 1, &["p1"])],
        };
        // The victim PodGroup's priority counts, not its pods'.
        ok(two(HIGH, MID, HIGH, HIGH), &["p1", "p2"]);
        refused(two(LOW, MID, MID, MID), Code::UnschedulableAndUnresolvable, NO_VICTIMS);
        // The preemptor PodGroup's priority counts, not its members'.
        ok(two(MID, MID, HIGH, LOW), &["p1", "p2"]);
        refused(two(MID, MID, LOW, HIGH), Code::UnschedulableAndUnresolvable, NO_VICTIMS);
    }

    #[test]
    fn the_group_does_not_fit_even_without_every_victim() {
        let g = run(&Case {
            nodes: &["node1"],
            pods: vec![p("p1", "node1", LOW)],
            extra: String::new(),
            preemptor_priority: HIGH,
            members: vec![member("p-1", HIGH), member("p-2", HIGH)],
            rules: vec![r("node1", 1, &["p1"])],
        });
        assert_eq!(
            (g.code, g.message.as_str()),
            (Code::Unschedulable, POD_GROUP_UNSCHEDULABLE)
        );
        assert_eq!(g.condition, "pod group is unschedulable, pod group is unschedulable");
    }

    #[test]
    fn a_terminating_pod_on_a_nominated_node_does_not_make_the_group_ineligible() {
        // v1.36.2 checks only preemptionPolicy; the victim being deleted already gets no event.
        let terminating = "- {apiVersion: v1, kind: Pod, metadata: {name: victim, namespace: default, uid: u-victim, deletionTimestamp: '2026-01-01T00:00:00Z'}, spec: {priority: 0, nodeName: node2, containers: [{name: c, image: i}]}, status: {conditions: [{type: DisruptionTarget, status: 'True', reason: PreemptionByScheduler}]}}\n";
        let c = Case {
            nodes: &["node1", "node2"],
            pods: vec![p("other-victim", "node1", LOW)],
            extra: terminating.to_string(),
            preemptor_priority: HIGH,
            members: vec![member("p1", HIGH), member("p2", HIGH)],
            rules: vec![r("node1", 1, &["other-victim"]), r("node2", 1, &["victim"])],
        };
        let g = run(&c);
        assert_eq!(g.code, Code::Success);
        assert_eq!(victim_names(&g), ["other-victim", "victim"]);
        assert_eq!(
            g.events,
            ["default/other-victim: Preempted by podgroup uid-preemptor-pg on node cluster"]
        );
        // The same with the member nominated to node2, where the victim terminates.
        let mut objects: String = c.pods.iter().map(P::yaml).collect();
        objects.push_str(&c.extra);
        objects.push_str(&pg("preemptor-pg", Some(HIGH), None));
        objects.push_str(
            "- {apiVersion: v1, kind: Pod, metadata: {name: p1, namespace: default}, spec: {priority: 1000, schedulingGroup: {podGroupName: preemptor-pg}, containers: [{name: c, image: i}]}, status: {nominatedNodeName: node2}}\n",
        );
        let cluster = load(c.nodes, &objects);
        let queued = [ObjectKey::new("default", "p1")];
        let attempt = GroupAttempt {
            group: &ObjectKey::new("default", "preemptor-pg"),
            queued: &queued,
            status: POD_GROUP_UNSCHEDULABLE,
            unschedulable: POD_GROUP_UNSCHEDULABLE,
            feasible: Vec::new(),
            post_filter: true,
        };
        let g = preempt(&cluster, &features36(), attempt, &mut |_: &Cluster| true);
        assert_eq!(g.code, Code::Success);
    }

    #[test]
    fn refusals_before_any_victim_is_looked_for() {
        let cluster = load(
            &["node1"],
            &(p("p1", "node1", LOW).yaml() + &pg("preemptor-pg", Some(HIGH), None)),
        );
        let attempt = |post_filter: bool, group: &'static str| GroupAttempt {
            group: Box::leak(Box::new(ObjectKey::new("default", group))),
            queued: &[],
            status: "pod group is unschedulable",
            unschedulable: POD_GROUP_UNSCHEDULABLE,
            feasible: Vec::new(),
            post_filter,
        };
        let g = preempt(
            &cluster,
            &features36(),
            attempt(false, "preemptor-pg"),
            &mut |_: &Cluster| true,
        );
        assert_eq!((g.code, g.message.as_str()), (Code::Unschedulable, NOT_REGISTERED));
        assert_eq!(
            g.condition,
            "pod group is unschedulable, default preemption plugin is not registered, workload aware preemption is disabled"
        );
        // An Error replaces the group's status.
        let g = preempt(&cluster, &features36(), attempt(true, "gone"), &mut |_: &Cluster| true);
        assert_eq!(g.code, Code::Error);
        assert_eq!(
            g.condition,
            "failed to get pod group object: podgroup.scheduling.k8s.io \"gone\" not found"
        );
    }

    #[test]
    fn a_pod_group_scheduled_before_keeps_its_condition() {
        let group = pg("preemptor-pg", Some(HIGH), None).replace(
            "schedulingPolicy: {basic: {}}}}",
            "schedulingPolicy: {basic: {}}}, status: {conditions: [{type: PodGroupScheduled, status: 'True', reason: Scheduled, message: '', lastTransitionTime: '2026-01-01T00:00:00Z'}]}}",
        );
        assert_ne!(group, pg("preemptor-pg", Some(HIGH), None));
        let cluster = load(&["node1"], &(p("p1", "node1", LOW).yaml() + &group));
        let attempt = GroupAttempt {
            group: &ObjectKey::new("default", "preemptor-pg"),
            queued: &[],
            status: POD_GROUP_UNSCHEDULABLE,
            unschedulable: POD_GROUP_UNSCHEDULABLE,
            feasible: Vec::new(),
            post_filter: true,
        };
        let g = preempt(&cluster, &features36(), attempt, &mut |_: &Cluster| true);
        assert!(g.condition_kept);
        assert_eq!(serde_json::to_value(&g).unwrap()["conditionKept"], true);
    }

    /// `TestMoreImportantVictim`.
    #[test]
    fn more_important_victim() {
        let cluster = load(&["n"], &(p("a", "n", 0).yaml() + &p("b", "n", 0).yaml()));
        let (a, b) = (&*cluster.pods[0], &*cluster.pods[1]);
        let v = |priority: i32, group: bool, size: usize, earliest: i128| Candidate {
            pod_group: None,
            pods: [a, b].into_iter().take(size).collect(),
            priority,
            is_pod_group: group,
            earliest,
        };
        let (now, before) = (1000, 500);
        let cases = [
            ("vi1 has higher priority", v(20, false, 1, 0), v(10, false, 1, 0), true),
            ("vi2 has higher priority", v(10, false, 1, 0), v(20, false, 1, 0), false),
            (
                "vi1 is PG, vi2 is Pod, same priority",
                v(10, true, 1, 0),
                v(10, false, 1, 0),
                true,
            ),
            (
                "vi1 is Pod, vi2 is PG, same priority",
                v(10, false, 1, 0),
                v(10, true, 1, 0),
                false,
            ),
            (
                "both Pods, vi1 older",
                v(10, false, 1, before),
                v(10, false, 1, now),
                true,
            ),
            (
                "both Pods, vi2 older",
                v(10, false, 1, now),
                v(10, false, 1, before),
                false,
            ),
            ("both PGs, vi1 larger", v(10, true, 2, 0), v(10, true, 1, 0), true),
            ("both PGs, vi2 larger", v(10, true, 1, 0), v(10, true, 2, 0), false),
            (
                "both PGs, same size, vi1 older",
                v(10, true, 2, before),
                v(10, true, 2, now),
                true,
            ),
            (
                "both PGs, same size, vi2 older",
                v(10, true, 2, now),
                v(10, true, 2, before),
                false,
            ),
        ];
        for (name, vi1, vi2, want) in cases {
            assert_eq!(importance(&vi1, &vi2) == Ordering::Less, want, "{name}");
        }
    }

    /// A PodGroup victim's start is its first pod's (nodes by name, then pods), not the earliest.
    #[test]
    fn a_group_victim_starts_when_its_first_pod_found_started() {
        let objects = [
            p("g1", "n1", LOW).group("g").start(2020),
            p("h1", "n1", LOW).group("h").start(2015),
            p("g2", "n2", LOW).group("g").start(2010),
            p("h2", "n2", LOW).group("h").start(2015),
        ]
        .iter()
        .map(P::yaml)
        .collect::<String>()
            + &pg("g", Some(LOW), Some("PodGroup"))
            + &pg("h", Some(LOW), Some("PodGroup"));
        let cluster = load(&["n1", "n2"], &objects);
        let mut d = domain(&cluster, &features36());
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].earliest, 2020 * 1_000_000_000);
        d.sort_by(importance);
        let order: Vec<String> = d.iter().map(|c| c.pod_group.clone().unwrap().name.into()).collect();
        assert_eq!(order, ["h", "g"]);
    }

    /// `TestFilterVictimsWithPDBViolation`, plus the walk stopping at a victim's first violating
    /// pod.
    #[test]
    fn filter_victims_with_pdb_violation() {
        let pods = [
            p("np1", "n", 0).labels("app: foo"),
            p("p1", "n", 0).labels("app: foo"),
            p("p2", "n", 0).labels("app: foo"),
            p("pm", "n", 0).labels("app: foo, tier: backend"),
            p("a1", "n", 0).labels("x: 'y'"),
            p("a2", "n", 0).labels("app: foo"),
            p("u1", "n", 0),
        ];
        let objects: String = pods.iter().map(P::yaml).collect();
        let objects = objects.replacen("namespace: default", "namespace: other", 1);
        let check_at = |pdbs: &str, victims: &[&[&str]], want: &[bool], every_pod: bool, as_defined: bool| {
            let cluster = load(&["n"], &format!("{objects}{pdbs}"));
            let find = |n: &str| &**cluster.pods.iter().find(|q| q.key.name == n).unwrap();
            let cands: Vec<Candidate<'_>> = victims
                .iter()
                .map(|names| Candidate {
                    pod_group: None,
                    pods: names.iter().map(|n| find(n)).collect(),
                    priority: 0,
                    is_pod_group: false,
                    earliest: 0,
                })
                .collect();
            assert_eq!(
                violating(&cands, &cluster, every_pod, as_defined),
                want,
                "{pdbs} {victims:?}"
            );
        };
        let check = |pdbs: &str, victims: &[&[&str]], want: &[bool], every_pod: bool| {
            check_at(pdbs, victims, want, every_pod, false);
        };
        let foo = |allowed: i32| pdb("foo", "{matchLabels: {app: foo}}", allowed, "");
        // no victims, no PDBs
        check("", &[], &[], false);
        // a victim with no matching PDB (another namespace, another selector)
        check(
            &pdb("bar", "{matchLabels: {app: bar}}", 0, ""),
            &[&["np1"]],
            &[false],
            false,
        );
        // matching PDB, adequate DisruptionsAllowed / none
        check(&foo(1), &[&["p1"]], &[false], false);
        check(&foo(0), &[&["p1"]], &[true], false);
        // a pod group victim with two pods, all violating / none
        check(&foo(0), &[&["p1", "p2"]], &[true], false);
        check(&foo(2), &[&["p1", "p2"]], &[false], false);
        // two victims spending the same budget
        check(&foo(1), &[&["p1"], &["p2"]], &[false, true], false);
        // a pod in DisruptedPods is ignored
        check(
            &pdb("foo", "{matchLabels: {app: foo}}", 0, "p1"),
            &[&["p1"]],
            &[false],
            false,
        );
        // a PDB with an empty selector matches nothing
        check(&pdb("foo", "{}", 0, ""), &[&["p1"]], &[false], false);
        // multiple PDBs: the second one is violated
        check(
            &(foo(1) + &pdb("backend", "{matchLabels: {tier: backend}}", 0, "")),
            &[&["pm"]],
            &[true],
            false,
        );
        // v1.36.2: the victim's walk stops at a1 (violating x=y), a2 spends nothing and the next
        // victim still has app=foo's disruption; 1.37 spends a2's too.
        let two = pdb("xy", "{matchLabels: {x: 'y'}}", 0, "") + &foo(1);
        check(&two, &[&["a1", "a2"], &["p1"]], &[true, false], false);
        check(&two, &[&["a1", "a2"], &["p1"]], &[true, true], true);
        // kubernetes#141785 (1.38): an empty selector covers every pod of the namespace, an
        // unlabeled one too; a nil selector still covers none.
        check_at(&pdb("foo", "{}", 0, ""), &[&["p1"]], &[true], true, true);
        check_at(&pdb("foo", "{}", 0, ""), &[&["u1"]], &[true], true, true);
        check_at(&pdb("foo", "{}", 0, ""), &[&["u1"]], &[false], true, false);
        check_at(
            &pdb("foo", "{}", 1, ""),
            &[&["p1"], &["u1"]],
            &[false, true],
            true,
            true,
        );
        check_at(
            &pdb("foo", "null", 0, ""),
            &[&["p1"], &["u1"]],
            &[false, false],
            true,
            true,
        );
    }
}
