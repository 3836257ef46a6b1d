//! Workload-aware preemption (KEP-5710): when a pod group's cycle finds the group unschedulable,
//! the group as a whole preempts lower-priority pods and pod groups across the whole cluster.
//!
//! Ported from kubernetes/kubernetes at the commit whose CHANGELOG-1.36.md ends at v1.36.0
//! (008b3652959c, the newest 1.36 source reachable here; v1.36.2 itself could not be pinned):
//! - `pkg/scheduler/schedule_one_podgroup.go` (`podGroupCycle`, `runWorkloadAwarePreemption`):
//!   preemption runs only when the pod-group cycle's status is Unschedulable; a PodGroup with
//!   `schedulingConstraints.topology` is refused ("workload aware preemption is not supported for
//!   pod groups with scheduling constraints"); a failure's message is appended to the group's
//!   status (`AppendReason(status.String())`, which is the PodGroupScheduled=False condition
//!   message); a success leaves the group Unschedulable and waiting on the preemption.
//! - `pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`
//!   (`PodGroupPostFilter`) and `pkg/scheduler/framework/preemption/podgrouppreemption.go`
//!   (`PodGroupEvaluator.Preempt`, `selectVictimsOnDomain`, `preemptorEligibleToPreemptOthers`,
//!   `moreImportantVictim`), with the domain and victims of the same era (the v1alpha2 version of
//!   `newDomainForWorkloadPreemption`, `isPodGroupPreemptiblePod`, `newPodGroupPreemptor`).
//! - `pkg/scheduler/framework/preemption/executor.go` (`actuatePodGroupPreemption`: the
//!   candidate is named "cluster"; each victim gets the event "Preempted by podgroup <uid> on node
//!   cluster" and the DisruptionTarget condition "<scheduler>: preempting to accommodate a higher
//!   priority podgroup").
//! - `pkg/scheduler/util` `PodGroupPriority` (spec.priority, 0 when unset).
//!
//! The algorithm: the preemptor is the PodGroup with its priority and its queued members. A
//! member with `preemptionPolicy: Never` makes the group ineligible; so does a lower-priority pod
//! terminating by preemption on a member's nominated node. Every bound pod of the cluster is a
//! victim on its own (with its own priority), except the pods of a PodGroup whose
//! `disruptionMode` is `PodGroup`, which are one victim with the PodGroup's priority. The
//! victims of lower priority than the group are all removed and the group's cycle is run again;
//! if the group fits, the victims are sorted most important first (priority; a pod group's pod
//! before a lone pod; lone pods by earlier start; groups by more pods, then earlier start) and
//! reprieved one by one, the PDB-violating ones first, a victim staying removed when the group no
//! longer fits with it back.
//!
//! kschedtui's choices where upstream is not deterministic or not reachable: victims tied on
//! every criterion keep the order they were found in (nodes by name, pods as listed); a pod
//! without `status.startTime` counts as started at 2099-01-01T00:00:00Z (the corpus rule for
//! preemption); a PodGroup without `spec.priority` takes its `priorityClassName`'s value (or the
//! global default) as the Priority admission would have written it. Upstream's 1.36 evaluator
//! may have searched the non-violating victims by priority tier before reprieving them one by one
//! (an older version does, a newer one does not; the one at the commit above was not readable);
//! both give the same victims whenever a group that fits keeps fitting with fewer victims back.
//! At 1.37 (GenericWorkload on) the same algorithm is applied to v1beta1 PodGroups, whose
//! `disruptionMode` is an object (`{all: {}}` groups the pods); 1.37's evaluator checks each
//! member's proposed node with Filter instead of running the cycle again and nominates the
//! members on those nodes: that version is not reproduced exactly.

use std::cmp::Ordering;

use serde::Serialize;
use serde_json::Value;

use super::framework::status::Code;
use super::plugins::default_preemption::{pod_start_time_nanos, preemption_never, terminating_by_preemption};
use super::release::{Change, Features, Gate};
use crate::model::selector::Selector;
use crate::model::{Cluster, ObjectKey, Pod};

/// The group's status when preemption is refused for a PodGroup with topology constraints.
pub const NOT_SUPPORTED_WITH_CONSTRAINTS: &str =
    "workload aware preemption is not supported for pod groups with scheduling constraints";
/// No lower-priority victim anywhere.
pub const NO_VICTIMS: &str = "No preemption victims found for incoming preemptor";
/// A member has `preemptionPolicy: Never`.
pub const NOT_ELIGIBLE_NEVER: &str = "not eligible due to preemptionPolicy=Never.";
/// A lower-priority pod is terminating by preemption on a member's nominated node.
pub const NOT_ELIGIBLE_TERMINATING: &str = "not eligible due to a terminating pod on the nominated node.";
/// The pod-group algorithm's own status when the group does not fit (`errPodGroupUnschedulable`).
pub const POD_GROUP_UNSCHEDULABLE: &str = "pod group is unschedulable";

/// Whether workload-aware preemption is on: the WorkloadAwarePreemption gate (1.36), or
/// GenericWorkload once the gang gates merged into it (1.37, #139520).
pub fn enabled(features: &Features) -> bool {
    features.on(Gate::WorkloadAwarePreemption)
        || (features.has(Change::GangGatesMergedIntoGenericWorkload) && features.on(Gate::GenericWorkload))
}

/// One victim: a lone pod, or every bound pod of a PodGroup preempted as a unit.
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

/// Where a member lands once the victims are gone.
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
    /// The PodGroupScheduled=False condition's message after the attempt.
    pub condition: String,
    /// The victims, most important first.
    pub victims: Vec<PreemptionVictim>,
    /// Where the members land once the victims are gone (upstream's last successful run).
    pub members: Vec<MemberNode>,
    /// The events each victim pod gets ("Preempted by podgroup ... on node cluster").
    pub events: Vec<String>,
}

impl GroupPreemption {
    /// The victim pods, in eviction order.
    pub fn victim_pods(&self) -> Vec<ObjectKey> {
        self.victims.iter().flat_map(|v| v.pods.clone()).collect()
    }
}

/// A victim while being selected.
struct Candidate<'c> {
    pod_group: Option<ObjectKey>,
    pods: Vec<&'c Pod>,
    priority: i32,
    /// `IsPodGroup`: the first pod names a scheduling group.
    is_pod_group: bool,
    /// The earliest start among the pods (nanoseconds).
    earliest: i128,
}

/// The PodGroup object's fields workload-aware preemption reads, per release.
struct GroupFacts {
    uid: String,
    priority: i32,
    /// disruptionMode PodGroup (1.36) / `{all: {}}` (1.37).
    atomic: bool,
    constrained: bool,
}

fn rest_facts(
    cluster: &Cluster,
    key: &ObjectKey,
    rest: &std::collections::BTreeMap<String, Value>,
    uid: Option<&str>,
    atomic: bool,
    constrained: bool,
) -> GroupFacts {
    let priority = match rest.get("priority").and_then(Value::as_i64) {
        Some(p) => i32::try_from(p).unwrap_or(0),
        None => {
            let class = rest
                .get("priorityClassName")
                .and_then(Value::as_str)
                .filter(|c| !c.is_empty());
            match class {
                Some(c) => cluster.priority_classes.get(c).and_then(|pc| pc.value).unwrap_or(0),
                None => cluster
                    .priority_classes
                    .values()
                    .filter(|p| p.global_default == Some(true))
                    .filter_map(|p| p.value)
                    .max()
                    .unwrap_or(0),
            }
        }
    };
    GroupFacts {
        uid: uid.map_or_else(|| key.to_string(), str::to_string),
        priority,
        atomic,
        constrained,
    }
}

/// The PodGroup `key` as the release reads it (v1alpha2 at 1.36, v1beta1 at 1.37).
fn group_facts(cluster: &Cluster, features: &Features, key: &ObjectKey) -> Option<GroupFacts> {
    if features.has(Change::GangSchedulingReadsV1Beta1PodGroups) {
        let pg = cluster.pod_groups_v1beta1.get(key)?;
        let rest = &pg.spec.rest;
        let atomic = rest
            .get("disruptionMode")
            .and_then(|m| m.get("all"))
            .is_some_and(|a| !a.is_null());
        let constrained = rest
            .get("schedulingConstraints")
            .and_then(|c| c.get("topology"))
            .and_then(Value::as_array)
            .is_some_and(|t| !t.is_empty());
        Some(rest_facts(
            cluster,
            key,
            rest,
            pg.metadata.uid.as_deref(),
            atomic,
            constrained,
        ))
    } else {
        let pg = cluster.scheduling_pod_groups.get(key)?;
        let rest = &pg.spec.rest;
        let atomic = rest.get("disruptionMode").and_then(Value::as_str) == Some("PodGroup");
        let constrained = pg
            .spec
            .scheduling_constraints
            .as_ref()
            .is_some_and(|c| !c.topology.is_empty());
        Some(rest_facts(
            cluster,
            key,
            rest,
            pg.metadata.uid.as_deref(),
            atomic,
            constrained,
        ))
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

/// `filterVictimsWithPDBViolation` for victims: a victim violates when any of its pods would
/// take a PDB below zero disruptions (each PDB's budget spent across the victims in order, a
/// pod's walk over the PDBs stopping at the first it violates; a pod without labels, an empty or
/// unparsable selector and a pod in `disruptedPods` do not count).
fn violating(victims: &[Candidate<'_>], cluster: &Cluster) -> Vec<bool> {
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
    // Every pod of a victim spends the budgets, even after one of them violated.
    let mut out = Vec::with_capacity(victims.len());
    for v in victims {
        let mut violations = 0;
        for p in &v.pods {
            if pod_violates(p) {
                violations += 1;
            }
        }
        out.push(violations > 0);
    }
    out
}

/// The pods bound to `node` (not finished), as its NodeInfo holds them.
fn bound_on<'c>(cluster: &'c Cluster, node: &'c str) -> impl Iterator<Item = &'c Pod> + 'c {
    cluster
        .pods
        .iter()
        .map(|p| &**p)
        .filter(move |p| p.node_name.as_deref() == Some(node) && !p.is_finished())
}

/// What the caller's pod-group algorithm says of a cluster: where the members land when the
/// group fits (None when it does not).
pub type GroupFits<'f> = dyn FnMut(&Cluster) -> Option<Vec<MemberNode>> + 'f;

/// Runs workload-aware preemption for PodGroup `group` whose queued members are `queued`, after
/// the pod-group cycle ended with `group_status` (its Unschedulable message). `unschedulable` is
/// the algorithm's status when the group does not fit even with every victim gone.
pub fn preempt(
    cluster: &Cluster,
    features: &Features,
    group: &ObjectKey,
    queued: &[ObjectKey],
    group_status: &str,
    unschedulable: &str,
    fits: &mut GroupFits<'_>,
) -> GroupPreemption {
    let facts = group_facts(cluster, features, group);
    let priority = facts.as_ref().map_or(0, |f| f.priority);
    let mut out = GroupPreemption {
        pod_group: group.clone(),
        priority,
        code: Code::Success,
        message: String::new(),
        condition: group_status.to_string(),
        victims: Vec::new(),
        members: Vec::new(),
        events: Vec::new(),
    };
    let refuse = |mut out: GroupPreemption, code: Code, message: &str| {
        out.code = code;
        out.message = message.to_string();
        out.condition = format!("{group_status}, {message}");
        out
    };
    let Some(facts) = facts else {
        // The group's cycle does not run without its PodGroup (PreEnqueue holds the members).
        return refuse(out, Code::Error, "failed to get pod group object");
    };
    if facts.constrained {
        return refuse(out, Code::Unschedulable, NOT_SUPPORTED_WITH_CONSTRAINTS);
    }
    let members: Vec<&Pod> = queued
        .iter()
        .filter_map(|k| cluster.pods.iter().find(|p| p.key == *k).map(|p| &**p))
        .collect();
    if members.iter().any(|p| preemption_never(p, cluster)) {
        return refuse(out, Code::Unschedulable, NOT_ELIGIBLE_NEVER);
    }
    // `getPodPriority`: a pod of a PodGroup counts with its group's priority.
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
            return refuse(out, Code::Unschedulable, NOT_ELIGIBLE_TERMINATING);
        }
    }
    // The domain: every node's pods, a disruptionMode-PodGroup group as one victim.
    let mut all: Vec<Candidate<'_>> = Vec::new();
    for node in &cluster.nodes {
        for p in bound_on(cluster, &node.name) {
            let key = p.scheduling_group().map(|g| ObjectKey::new(&p.key.namespace, g));
            let grouped = key
                .as_ref()
                .and_then(|k| group_facts(cluster, features, k).map(|f| (k.clone(), f)))
                .filter(|(_, f)| f.atomic);
            let start = pod_start_time_nanos(p);
            match grouped {
                Some((k, f)) => match all.iter_mut().find(|c| c.pod_group.as_ref() == Some(&k)) {
                    Some(c) => {
                        c.pods.push(p);
                        c.earliest = c.earliest.min(start);
                    }
                    None => all.push(Candidate {
                        pod_group: Some(k),
                        pods: vec![p],
                        priority: f.priority,
                        is_pod_group: true,
                        earliest: start,
                    }),
                },
                None => all.push(Candidate {
                    pod_group: None,
                    pods: vec![p],
                    priority: p.priority,
                    is_pod_group: p.scheduling_group().is_some(),
                    earliest: start,
                }),
            }
        }
    }
    let mut potential: Vec<Candidate<'_>> = all.into_iter().filter(|c| c.priority < priority).collect();
    if potential.is_empty() {
        return refuse(out, Code::UnschedulableAndUnresolvable, NO_VICTIMS);
    }
    let without = |removed: &[&Candidate<'_>]| {
        let mut c = cluster.clone();
        c.pods
            .retain(|p| !removed.iter().any(|v| v.pods.iter().any(|q| q.key == p.key)));
        c
    };
    let all_removed: Vec<&Candidate<'_>> = potential.iter().collect();
    let Some(mut last_fit) = fits(&without(&all_removed)) else {
        return refuse(out, Code::Unschedulable, unschedulable);
    };
    potential.sort_by(importance);
    let flags = violating(&potential, cluster);
    let order: Vec<usize> = (0..potential.len())
        .filter(|&i| flags[i])
        .chain((0..potential.len()).filter(|&i| !flags[i]))
        .collect();
    let mut removed: Vec<usize> = (0..potential.len()).collect();
    for i in order {
        let trial: Vec<&Candidate<'_>> = removed.iter().filter(|&&j| j != i).map(|&j| &potential[j]).collect();
        if let Some(f) = fits(&without(&trial)) {
            removed.retain(|&j| j != i);
            last_fit = f;
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
        for p in &v.pods {
            out.events.push(format!(
                "{}: Preempted by podgroup {} on node cluster",
                p.key, facts.uid
            ));
        }
    }
    out.members = last_fit;
    out
}

/// The DisruptionTarget condition message a victim gets (`PreemptPod`).
pub fn disruption_message(scheduler_name: &str) -> String {
    format!("{scheduler_name}: preempting to accommodate a higher priority podgroup")
}
