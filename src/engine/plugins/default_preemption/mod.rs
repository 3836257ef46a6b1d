//! Port of framework/plugins/defaultpreemption/default_preemption.go and
//! framework/preemption/preemption.go (v1.30.6): the PostFilter plugin that, when no node fits,
//! looks for a node where evicting lower-priority pods would let the pod in, and nominates it.
//!
//! Split: this file holds the plugin (args, eligibility, `Preempt`), `victims.rs` the per-node
//! dry run (`SelectVictimsOnNode`, PDB grouping) and `candidates.rs` the node walk and the
//! choice among candidates (`DryRunPreemption`, `pickOneNodeForPreemption`).
//!
//! Upstream draws a random offset into the node list and runs the dry run in parallel; here the
//! walk starts at offset 0, visits nodes in name order one at a time, and after upstream's
//! criteria the smallest node name wins. A bound pod without `status.startTime` counts as started
//! at 2099-01-01T00:00:00Z (upstream uses the current time).
//!
//! Version differences reproduced:
//! - 1.31+: the victims of a node are sorted again (most important first) after the reprieve
//!   when some violate a PDB and some do not (upstream #128307: in 1.31.3+ and 1.30.7+, not in
//!   1.30.6, the release "1.30" reproduces),
//!   which changes which victim the "highest priority" criterion looks at.
//! - 1.32+: a nominated node that has no status in the Filter result counts as
//!   UnschedulableAndUnresolvable (NodeToStatus with an absent-nodes status, upstream #126022),
//!   so the terminating-victims check is skipped for it; before, it reads as Success.
//! - 1.32+: when no node is a candidate, the message counts every node of the snapshot and the
//!   nodes the dry run did not try as "Preemption is not helpful for scheduling" (the
//!   absent-nodes status); before, it counts the statuses it collected.
//! - 1.32+: the plugin also sits at PreEnqueue (asynchronous preemption); a snapshot has no
//!   preemption in flight, so it always lets the pod in.

mod candidates;
mod group_victims;
mod victims;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::fit_error::fit_error_message;
use crate::engine::framework::node_info::PodInfo;
use crate::engine::framework::plugin::{Ctx, Plugin, PluginSlots, PluginsRunner, PostFilterPlugin, PreEnqueuePlugin};
use crate::engine::framework::status::{Code, Status};
use crate::engine::framework::trace::PostFilterTrace;
use crate::engine::release::{Change, Features, Gate};
use crate::model::{Cluster, Pod};

pub(crate) use candidates::{dry_run_preemption, nodes_where_preemption_might_help, pick_one_node_for_preemption};
pub(crate) use victims::{pdb_covers, pod_start_time_nanos};

/// Status of a node whose dry run found no lower-priority pod.
pub(crate) const ERR_NO_VICTIMS: &str = "No preemption victims found for incoming pod";
/// Status of a node that Filter marked UnschedulableAndUnresolvable (or did not evaluate).
pub(crate) const ERR_NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
/// The pod may not preempt: `preemptionPolicy: Never`.
pub(crate) const NOT_ELIGIBLE_NEVER: &str = "not eligible due to preemptionPolicy=Never.";
/// The pod already preempted and its victims are still terminating on the nominated node.
pub(crate) const NOT_ELIGIBLE_TERMINATING: &str = "not eligible due to a terminating pod on the nominated node.";
/// Prefix of every non-empty status message of the plugin.
pub(crate) const MESSAGE_PREFIX: &str = "preemption: ";

/// `DefaultPreemptionArgs` as written in a KubeSchedulerConfiguration (v1).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Args {
    /// Minimum candidates as a percentage of the nodes (default 10).
    #[serde(default)]
    pub min_candidate_nodes_percentage: Option<i32>,
    /// Minimum candidates as an absolute number (default 100).
    #[serde(default)]
    pub min_candidate_nodes_absolute: Option<i32>,
}

/// `ValidateDefaultPreemptionArgs`: the error text upstream's config validation prints.
pub(crate) fn validate_args(percentage: i32, absolute: i32) -> Result<(), String> {
    let mut errs = Vec::new();
    if !(0..=100).contains(&percentage) {
        errs.push(format!(
            "minCandidateNodesPercentage: Invalid value: {percentage}: not in valid range [0, 100]"
        ));
    }
    if absolute < 0 {
        errs.push(format!(
            "minCandidateNodesAbsolute: Invalid value: {absolute}: not in valid range [0, inf)"
        ));
    }
    if percentage == 0 && absolute == 0 {
        errs.push(format!(
            "minCandidateNodesPercentage: Invalid value: {percentage}: cannot be zero at the same time as minCandidateNodesAbsolute"
        ));
        errs.push(format!(
            "minCandidateNodesAbsolute: Invalid value: {absolute}: cannot be zero at the same time as minCandidateNodesPercentage"
        ));
    }
    match errs.len() {
        0 => Ok(()),
        1 => Err(errs.remove(0)),
        _ => Err(format!("[{}]", errs.join(", "))),
    }
}

/// DefaultPreemption.
pub(crate) struct DefaultPreemption {
    /// minCandidateNodesPercentage.
    pub min_candidate_nodes_percentage: i32,
    /// minCandidateNodesAbsolute.
    pub min_candidate_nodes_absolute: i32,
    /// Nodes outside PreFilter's set have a status ([`Change::AbsentNodesStatus`]).
    pub absent_nodes_status: bool,
    /// Victims re-sorted after the reprieve ([`Change::PreemptionVictimsResorted`]).
    pub sort_victims: bool,
    /// PDBs cover the pods their selector selects ([`Change::PdbSelectorAsDefined`]).
    pub pdb_selector_as_defined: bool,
    /// TopologyAwareWorkloadScheduling (1.36): no pod-by-pod preemption for a pod whose
    /// PodGroup has schedulingConstraints.
    pub topology_aware_workload: bool,
    /// WorkloadAwarePreemption (1.36; GenericWorkload from 1.37): no pod-by-pod preemption for
    /// any pod of a pod group (the group's cycle preempts instead, see
    /// [`crate::engine::group_preemption`]).
    pub workload_aware_preemption: bool,
    /// [`Change::PreemptionSuccessMessage`] (1.37): a found candidate is a Success with a message.
    pub success_message: bool,
    /// [`Change::PodGroupVictims`] with GenericWorkload (1.37): PodGroup members are victims with
    /// their group's priority, an `all`-mode group one victim ([`group_victims`]).
    pub group_victims: bool,
}

impl DefaultPreemption {
    /// The plugin with default args.
    pub(crate) fn new(features: &Features) -> Self {
        DefaultPreemption {
            min_candidate_nodes_percentage: 10,
            min_candidate_nodes_absolute: 100,
            absent_nodes_status: features.has(Change::AbsentNodesStatus),
            sort_victims: features.has(Change::PreemptionVictimsResorted),
            pdb_selector_as_defined: features.has(Change::PdbSelectorAsDefined),
            topology_aware_workload: features.on(Gate::TopologyAwareWorkloadScheduling),
            workload_aware_preemption: features.workload_aware_preemption(),
            success_message: features.has(Change::PreemptionSuccessMessage),
            group_victims: features.has(Change::PodGroupVictims) && features.on(Gate::GenericWorkload),
        }
    }

    /// `calculateNumCandidates`: how many candidates the dry run looks for.
    pub(crate) fn calculate_num_candidates(&self, num_nodes: usize) -> usize {
        let num = i64::try_from(num_nodes).unwrap_or(i64::MAX);
        let mut n = num * i64::from(self.min_candidate_nodes_percentage) / 100;
        n = n.max(i64::from(self.min_candidate_nodes_absolute));
        n = n.min(num);
        usize::try_from(n).unwrap_or(0)
    }

    /// `PodEligibleToPreemptOthers`. `nominated_code` is the Filter status code of the pod's
    /// `status.nominatedNodeName` (None when the pod has none).
    pub(crate) fn pod_eligible_to_preempt_others(
        &self,
        cx: &Ctx<'_>,
        pod: &Pod,
        nominated_code: Option<Code>,
    ) -> Result<(), &'static str> {
        if preemption_never(pod, &cx.snapshot.cluster) {
            return Err(NOT_ELIGIBLE_NEVER);
        }
        if let Some(nn) = pod.nominated_node_name() {
            if nominated_code == Some(Code::UnschedulableAndUnresolvable) {
                return Ok(());
            }
            // the priority of a pod on the node as a victim: its PodGroup's with PodGroup
            // victims (1.37), else its own
            let victim_priority = |p: &Pod| -> i32 {
                if !self.group_victims {
                    return p.priority;
                }
                p.scheduling_group()
                    .and_then(|g| {
                        cx.snapshot
                            .cluster
                            .pod_groups_v1beta1
                            .get(&crate::model::ObjectKey::new(p.key.namespace.as_str(), g))
                    })
                    .map_or(p.priority, |pg| pg.priority(&cx.snapshot.cluster.priority_classes))
            };
            if let Some(ni) = cx.snapshot.node(nn)
                && ni
                    .pods
                    .iter()
                    .any(|p| victim_priority(&p.pod) < pod.priority && terminating_by_preemption(&p.pod))
            {
                return Err(NOT_ELIGIBLE_TERMINATING);
            }
        }
        Ok(())
    }

    /// `Evaluator.Preempt`, recording what it does into `trace`. The status is the one before
    /// the plugin adds its "preemption: " prefix.
    fn preempt(
        &self,
        cx: &Ctx<'_>,
        fw: &dyn PluginsRunner,
        state: &CycleState,
        pod: &PodInfo,
        statuses: &BTreeMap<String, Status>,
        trace: &mut PostFilterTrace,
    ) -> Status {
        // 1) Eligibility.
        let nominated_code = pod.pod.nominated_node_name().map(|nn| {
            statuses.get(nn).map_or(
                if self.absent_nodes_status {
                    Code::UnschedulableAndUnresolvable
                } else {
                    Code::Success
                },
                |s| s.code,
            )
        });
        if let Err(msg) = self.pod_eligible_to_preempt_others(cx, &pod.pod, nominated_code) {
            return Status::unschedulable(msg);
        }
        // 2) Candidates.
        let all = &cx.snapshot.nodes;
        if all.is_empty() {
            return Status::error("no nodes available");
        }
        let (potential, unresolvable) = nodes_where_preemption_might_help(all, statuses);
        // The dry run's statuses (1.32+ `NodeToStatus` explicit entries), then with the
        // "not helpful" ones (the 1.30 map).
        let mut dry_statuses: BTreeMap<String, Status> = BTreeMap::new();
        let mut candidates = Vec::new();
        let mut errors = Vec::new();
        if !potential.is_empty() {
            let wanted = self.calculate_num_candidates(potential.len());
            trace.candidates_wanted = Some(wanted);
            let rules = victims::VictimRules {
                sort_victims: self.sort_victims,
                pdb_selector_as_defined: self.pdb_selector_as_defined,
            };
            let dry = dry_run_preemption(
                cx,
                fw,
                state,
                pod,
                &potential,
                &cx.snapshot.cluster.pdbs,
                wanted,
                rules,
                self.group_victims,
            );
            for n in &dry.not_evaluated {
                trace.node_notes.push((
                    n.clone(),
                    format!("not evaluated: the dry run had found {wanted} candidate(s) already"),
                ));
            }
            for c in &dry.dropped {
                trace.node_notes.push((
                    c.name.clone(),
                    format!("candidate dropped: the list of {wanted} candidates was full"),
                ));
            }
            dry_statuses = dry.statuses;
            candidates = dry.candidates;
            errors = dry.errors;
        }
        let mut node_statuses = dry_statuses.clone();
        for (n, s) in unresolvable {
            node_statuses.insert(n, s);
        }
        for (n, s) in &node_statuses {
            trace.node_notes.push((n.clone(), s.message()));
        }
        trace.node_notes.sort();
        if !errors.is_empty() && candidates.is_empty() {
            return Status::error(aggregate_errors(&errors));
        }
        if candidates.is_empty() {
            let msg = if self.absent_nodes_status {
                let absent = Status::unresolvable(ERR_NOT_HELPFUL);
                fit_error_message(all.len(), None, &dry_statuses, Some(&absent), "")
            } else {
                fit_error_message(node_statuses.len(), None, &node_statuses, None, "")
            };
            return Status::unschedulable(msg);
        }
        // 4) The best candidate.
        let pick = pick_one_node_for_preemption(&candidates);
        for (i, c) in candidates.iter().enumerate() {
            trace.candidates.push(crate::engine::framework::trace::Candidate {
                node: c.name.clone(),
                victims: c.victims.iter().map(|v| v.pod.key.clone()).collect(),
                pdb_violations: c.pdb_violations,
                note: pick.notes[i].clone(),
                victim_priorities: c.victims.iter().map(|v| v.pod.priority).collect(),
                selected: i == pick.index,
                criterion: pick.criteria[i].clone(),
                violated_pdbs: victims::violated_pdbs(
                    c.victims.iter().map(|v| &*v.pod),
                    &cx.snapshot.cluster.pdbs,
                    self.pdb_selector_as_defined,
                ),
            });
        }
        trace.candidates.sort_by(|a, b| a.node.cmp(&b.node));
        trace.random_tie = trace
            .candidates
            .iter()
            .filter(|c| c.criterion == candidates::TIE_ON_EVERY_CRITERION)
            .map(|c| c.node.clone())
            .collect();
        if trace.random_tie.len() < 2 {
            trace.random_tie.clear();
        }
        let best = &candidates[pick.index];
        trace.nominated_node = Some(best.name.clone());
        trace.victims = best.victims.iter().map(|v| v.pod.key.clone()).collect();
        if self.success_message {
            // 1.37 (#140180): Preempt's success says where and how many pods go
            return Status::new(
                Code::Success,
                [format!(
                    "found a potential placement for pod on node {}, preempting {} victims",
                    best.name,
                    best.victims.len()
                )],
            );
        }
        Status::success()
    }
}

/// `utilerrors.NewAggregate(errs).Error()`: one message alone, several in brackets
/// (duplicates once).
fn aggregate_errors(errs: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for e in errs {
        if !seen.contains(&e.as_str()) {
            seen.push(e);
        }
    }
    if seen.len() == 1 {
        seen[0].to_string()
    } else {
        format!("[{}]", seen.join(", "))
    }
}

/// `spec.preemptionPolicy == Never`. When the pod does not say, the policy of its
/// PriorityClass (or of the global default class) applies, as the Priority admission plugin
/// would have written it into the pod.
pub(crate) fn preemption_never(pod: &Pod, cluster: &Cluster) -> bool {
    let spec = pod.spec();
    if let Some(p) = &spec.preemption_policy {
        return p == "Never";
    }
    let class = match spec.priority_class_name.as_deref().filter(|n| !n.is_empty()) {
        Some(name) => cluster.priority_classes.get(name),
        None if spec.priority.is_none() => cluster
            .priority_classes
            .values()
            .find(|c| c.global_default == Some(true)),
        None => None,
    };
    class.and_then(|c| c.preemption_policy.as_deref()) == Some("Never")
}

/// `podTerminatingByPreemption` with PodDisruptionConditions on (beta and on by default in
/// 1.30, GA later): a pod being deleted whose first DisruptionTarget condition says
/// PreemptionByScheduler.
pub(crate) fn terminating_by_preemption(p: &Pod) -> bool {
    if !p.terminating {
        return false;
    }
    let conditions = p.obj.status.as_ref().and_then(|s| s.conditions.as_ref());
    for c in conditions.into_iter().flatten() {
        if c.type_ == "DisruptionTarget" {
            return c.status == "True" && c.reason.as_deref() == Some("PreemptionByScheduler");
        }
    }
    false
}

impl Plugin for DefaultPreemption {
    fn name(&self) -> &'static str {
        names::DEFAULT_PREEMPTION
    }
}

impl PostFilterPlugin for DefaultPreemption {
    fn post_filter(
        &self,
        cx: &Ctx<'_>,
        fw: &dyn PluginsRunner,
        state: &CycleState,
        pod: &PodInfo,
        statuses: &BTreeMap<String, Status>,
    ) -> (PostFilterTrace, Status) {
        let mut trace = PostFilterTrace::default();
        if let Some(s) = self.pod_group_refusal(cx, pod) {
            return (trace, s);
        }
        let s = self.preempt(cx, fw, state, pod, statuses, &mut trace);
        let msg = s.message();
        if msg.is_empty() {
            return (trace, s);
        }
        (trace, Status::new(s.code, [format!("{MESSAGE_PREFIX}{msg}")]))
    }
}

impl DefaultPreemption {
    /// The 1.36 refusals for a pod of a pod group, before any candidate is looked for: with
    /// TopologyAwareWorkloadScheduling, a group with schedulingConstraints (preempting once
    /// per placement is not supported) or a group that does not exist; with
    /// WorkloadAwarePreemption, any group (the group's own cycle preempts instead).
    fn pod_group_refusal(&self, cx: &Ctx<'_>, pod: &PodInfo) -> Option<Status> {
        let group = pod.pod.scheduling_group()?;
        if self.topology_aware_workload {
            let key = crate::model::ObjectKey::new(pod.pod.key.namespace.as_str(), group);
            match cx.snapshot.cluster.scheduling_pod_groups.get(&key) {
                None => return Some(Status::unschedulable(POD_GROUP_NOT_FOUND)),
                Some(pg) if pg.spec.scheduling_constraints.is_some() => {
                    return Some(Status::unschedulable(NOT_ELIGIBLE_PLACEMENT));
                }
                Some(_) => {}
            }
        }
        self.workload_aware_preemption
            .then(|| Status::unschedulable(NOT_ELIGIBLE_WORKLOAD_AWARE))
    }
}

/// PostFilter's status for a pod whose PodGroup is missing (TopologyAwareWorkloadScheduling).
pub(crate) const POD_GROUP_NOT_FOUND: &str = "preemption: pod group for pod not found";
/// PostFilter's status for a pod whose PodGroup has schedulingConstraints
/// (TopologyAwareWorkloadScheduling).
pub(crate) const NOT_ELIGIBLE_PLACEMENT: &str =
    "preemption: not eligible due to placement-based pod group scheduling limitation";
/// PostFilter's status for a pod of a pod group with WorkloadAwarePreemption.
pub(crate) const NOT_ELIGIBLE_WORKLOAD_AWARE: &str =
    "preemption: not eligible due to workload aware preemption enabled";

impl PreEnqueuePlugin for DefaultPreemption {
    fn pre_enqueue(&self, _: &Ctx<'_>, _pod: &PodInfo) -> Status {
        Status::success()
    }
}

/// Registers DefaultPreemption.
pub(crate) fn register(args: &Value, features: &Features) -> Result<PluginSlots, String> {
    let a: Args = super::decode_args(args)?;
    let pl = DefaultPreemption {
        min_candidate_nodes_percentage: a.min_candidate_nodes_percentage.unwrap_or(10),
        min_candidate_nodes_absolute: a.min_candidate_nodes_absolute.unwrap_or(100),
        ..DefaultPreemption::new(features)
    };
    validate_args(pl.min_candidate_nodes_percentage, pl.min_candidate_nodes_absolute)?;
    let pl = Arc::new(pl);
    let pre_enqueue: Option<Arc<dyn PreEnqueuePlugin>> = features
        .has(Change::DefaultPreemptionPreEnqueue)
        .then(|| pl.clone() as Arc<dyn PreEnqueuePlugin>);
    Ok(PluginSlots {
        post_filter: Some(pl),
        pre_enqueue,
        ..Default::default()
    })
}
