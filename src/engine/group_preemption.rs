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
//! kschedtui's choices where upstream is not deterministic (documented rule of the project:
//! map and random orders are replaced by the snapshot's order): the victims are found in node-name
//! order and, on a node, in the snapshot's pod order (upstream takes them from a map); victims
//! tied on every criterion keep that order (upstream's sort is not stable); the PDBs are walked in
//! the snapshot's order (upstream lists them from an informer); a pod without `status.startTime`
//! counts as started at 2099-01-01T00:00:00Z (upstream takes the current time, the project's
//! preemption rule); a PodGroup without `spec.priority` takes the value the Priority admission
//! would have written from its `priorityClassName` (or the global default), as pods do; a PodGroup
//! without `metadata.uid` is named by its key in the event, as pods are.
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
use super::plugins::default_preemption::{pod_start_time_nanos, preemption_never, terminating_by_preemption};
use super::plugins::names;
use super::release::{Change, Features, Gate};
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

/// Whether workload-aware preemption is on: the WorkloadAwarePreemption gate (1.36), or
/// GenericWorkload once the gang gates merged into it (1.37, #139520).
pub fn enabled(features: &Features) -> bool {
    features.on(Gate::WorkloadAwarePreemption)
        || (features.has(Change::GangGatesMergedIntoGenericWorkload) && features.on(Gate::GenericWorkload))
}

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
/// the victims in order. A pod without labels, a nil, empty or unparsable selector and a pod in
/// `disruptedPods` do not count; a pod's walk over the PDBs stops at the first one it violates and
/// a victim's walk over its pods stops at its first violating pod (`every_pod`, 1.37: every pod
/// spends the budgets).
fn violating(victims: &[Candidate<'_>], cluster: &Cluster, every_pod: bool) -> Vec<bool> {
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
        if pod.labels.is_empty() {
            return false;
        }
        for (i, pdb) in pdbs.iter().enumerate() {
            if pdb.metadata.namespace.as_deref().unwrap_or_default() != pod.key.namespace {
                continue;
            }
            let empty = matches!(&selectors[i], Selector::Requirements(r) if r.is_empty());
            if empty || !selectors[i].matches(&pod.labels) {
                continue;
            }
            let disrupted = pdb
                .status
                .as_ref()
                .and_then(|s| s.disrupted_pods.as_ref())
                .is_some_and(|m| m.contains_key(&pod.key.name));
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
                v.pods.iter().fold(false, |any, p| pod_violates(p) || any)
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
                .map(|g| ObjectKey::new(&p.key.namespace, g))
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
                .and_then(|g| group_facts(cluster, features, &ObjectKey::new(&p.key.namespace, g)))
                .map_or(p.priority, |f| f.priority)
        };
        let nominated: std::collections::BTreeSet<&str> = members
            .iter()
            .filter_map(|p| p.nominated_node_name.as_deref())
            .collect();
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
    let flags = violating(&potential, cluster, v1beta1(features));
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
