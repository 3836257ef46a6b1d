//! The node walk of preemption.go (v1.30.6): which nodes preemption might help
//! (`nodesWherePreemptionMightHelp`), the dry run over them (`DryRunPreemption`, made
//! sequential from offset 0 in node-name order) and the choice among the candidates
//! (`pickOneNodeForPreemption`, ties after its criteria going to the smallest node name).

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::policy::v1::PodDisruptionBudget;

use super::ERR_NOT_HELPFUL;
use super::victims::{VictimRules, pod_start_time_nanos, select_victims_on_node};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::parallel;
use crate::engine::framework::plugin::{Ctx, PluginsRunner};
use crate::engine::framework::status::{Code, Status};

/// `nodesWherePreemptionMightHelp`: the nodes Filter marked Unschedulable (in node order), and
/// a "Preemption is not helpful for scheduling" status for every node marked
/// UnschedulableAndUnresolvable or absent from `statuses`.
pub(crate) fn nodes_where_preemption_might_help<'a>(
    nodes: &'a [NodeInfo],
    statuses: &BTreeMap<String, Status>,
) -> (Vec<&'a NodeInfo>, BTreeMap<String, Status>) {
    let mut potential = Vec::new();
    let mut unresolvable = BTreeMap::new();
    for n in nodes {
        match statuses.get(n.name()).map(|s| s.code) {
            Some(Code::Unschedulable) => potential.push(n),
            None | Some(Code::UnschedulableAndUnresolvable) => {
                unresolvable.insert(n.name().to_string(), Status::unresolvable(ERR_NOT_HELPFUL));
            }
            Some(_) => {}
        }
    }
    (potential, unresolvable)
}

/// A node where preemption would make room.
#[derive(Clone, Debug)]
pub(crate) struct CandidateNode {
    /// Node name.
    pub name: String,
    /// Pods to evict, in upstream's order.
    pub victims: Vec<Arc<PodInfo>>,
    /// Victims whose eviction violates a PDB.
    pub pdb_violations: usize,
}

/// What `DryRunPreemption` returns.
#[derive(Clone, Debug, Default)]
pub(crate) struct DryRun {
    /// Candidates without PDB violations, then those with.
    pub candidates: Vec<CandidateNode>,
    /// Statuses of the evaluated nodes that are not candidates.
    pub statuses: BTreeMap<String, Status>,
    /// Messages of the Error statuses among them.
    pub errors: Vec<String>,
    /// Nodes not evaluated because enough candidates had been found.
    pub not_evaluated: Vec<String>,
    /// Candidates found but not kept because their list was full.
    pub dropped: Vec<CandidateNode>,
}

/// The nodes a dry run tries at once (in parallel when the snapshot allows it).
const DRY_RUN_PIECE: usize = 512;

/// `DryRunPreemption` with offset 0, the nodes taken in the given order: each node and the
/// cycle state are copied, `SelectVictimsOnNode` runs on the copies, and the walk stops once at
/// least one PDB-free candidate is known and `wanted` candidates are kept (nodes are tried
/// [`DRY_RUN_PIECE`] at a time; the results past the stop are not read). Each of the two
/// candidate lists keeps at most `wanted` entries, as upstream's fixed-size lists do.
#[allow(clippy::too_many_arguments)]
pub(crate) fn dry_run_preemption(
    cx: &Ctx<'_>,
    fw: &dyn PluginsRunner,
    state: &CycleState,
    pod: &PodInfo,
    potential: &[&NodeInfo],
    pdbs: &[PodDisruptionBudget],
    wanted: usize,
    rules: VictimRules,
    group_victims: bool,
) -> DryRun {
    let mut non_violating: Vec<CandidateNode> = Vec::new();
    let mut violating: Vec<CandidateNode> = Vec::new();
    let mut out = DryRun::default();
    let mut stopped = false;
    // Each node's dry run works on its own copies, so a piece of the nodes is tried in
    // parallel and the results taken in node order, up to where enough candidates were found
    // (the nodes tried past that point are dropped unread: the answer is the walk's).
    let try_node = |node: &&NodeInfo| {
        let mut node_copy = (*node).clone();
        let mut state_copy = state.clone();
        if group_victims {
            super::group_victims::select_group_victims_on_node(
                cx,
                fw,
                &mut state_copy,
                pod,
                &mut node_copy,
                pdbs,
                rules,
            )
        } else {
            select_victims_on_node(cx, fw, &mut state_copy, pod, &mut node_copy, pdbs, rules)
        }
    };
    for piece in potential.chunks(DRY_RUN_PIECE) {
        let tried = if stopped {
            Vec::new()
        } else {
            parallel::map(cx.snapshot.serial, piece, try_node)
        };
        let mut tried = tried.into_iter();
        for node in piece {
            let name = node.name().to_string();
            let result = match tried.next() {
                Some(r) if !stopped => r,
                _ => {
                    out.not_evaluated.push(name);
                    continue;
                }
            };
            let status = match result {
                Ok(sel) if !sel.victims.is_empty() => {
                    let c = CandidateNode {
                        name,
                        victims: sel.victims,
                        pdb_violations: sel.pdb_violations,
                    };
                    let list = if c.pdb_violations == 0 {
                        &mut non_violating
                    } else {
                        &mut violating
                    };
                    if list.len() < wanted {
                        list.push(c);
                    } else {
                        out.dropped.push(c);
                    }
                    if !non_violating.is_empty() && non_violating.len() + violating.len() >= wanted {
                        stopped = true;
                    }
                    continue;
                }
                Ok(_) => Status::error(format!("expected at least one victim pod on node {name:?}")),
                Err(s) => s,
            };
            if status.code == Code::Error {
                out.errors.push(status.message());
            }
            out.statuses.insert(name, status);
        }
    }
    non_violating.extend(violating);
    out.candidates = non_violating;
    out
}

/// The criteria of `pickOneNodeForPreemption`, in order, as the trace names them. The second
/// reads the priority of the first victim in upstream's order, which in 1.30 is not always the
/// highest one: PDB-violating victims come first.
pub(super) const CRITERIA: [&str; 5] = [
    "fewest PDB violations",
    "lowest highest-victim priority",
    "smallest sum of victim priorities",
    "fewest victims",
    "latest start time of the highest-priority victims",
];

/// The choice among candidates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PickResult {
    /// Index of the chosen candidate.
    pub index: usize,
    /// Per candidate: the criterion that decided for or against it.
    pub criteria: Vec<String>,
    /// Per candidate: a sentence for the trace.
    pub notes: Vec<String>,
}

/// `GetEarliestPodStartTime`: the earliest start among the victims of the highest priority.
fn earliest_start_of_highest(victims: &[Arc<PodInfo>]) -> i128 {
    let Some(first) = victims.first() else { return i128::MIN };
    let mut max_prio = first.pod.priority;
    let mut earliest = pod_start_time_nanos(&first.pod);
    for v in victims {
        let p = v.pod.priority;
        if p == max_prio {
            earliest = earliest.min(pod_start_time_nanos(&v.pod));
        } else if p > max_prio {
            max_prio = p;
            earliest = pod_start_time_nanos(&v.pod);
        }
    }
    earliest
}

/// The score of a candidate under criterion `i` (higher is better), as upstream computes it.
fn score(c: &CandidateNode, i: usize) -> i128 {
    match i {
        0 => -(c.pdb_violations as i128),
        1 => -i128::from(c.victims.first().map_or(0, |v| v.pod.priority)),
        2 => -c
            .victims
            .iter()
            .map(|v| i128::from(v.pod.priority) + i128::from(i32::MAX) + 1)
            .sum::<i128>(),
        3 => -(c.victims.len() as i128),
        _ => earliest_start_of_highest(&c.victims),
    }
}

/// The value of criterion `i` as the trace shows it.
fn shown(c: &CandidateNode, i: usize) -> String {
    match i {
        0 => c.pdb_violations.to_string(),
        1 => c.victims.first().map_or(0, |v| v.pod.priority).to_string(),
        2 => c
            .victims
            .iter()
            .map(|v| i64::from(v.pod.priority))
            .sum::<i64>()
            .to_string(),
        3 => c.victims.len().to_string(),
        _ => {
            let n = earliest_start_of_highest(&c.victims);
            if n == super::victims::NO_START_TIME_NANOS {
                "no startTime (counted as 2099-01-01T00:00:00Z)".to_string()
            } else {
                k8s_openapi::jiff::Timestamp::from_nanosecond(n).map_or_else(|_| n.to_string(), |t| t.to_string())
            }
        }
    }
}

/// The criterion of candidates tied after every rule of `pickOneNodeForPreemption`.
pub(crate) const TIE_ON_EVERY_CRITERION: &str = "tie on every criterion: smallest node name";

/// `SelectCandidate` + `pickOneNodeForPreemption`. One candidate is taken as is; otherwise the
/// candidates are ranked in node-name order by upstream's criteria, and a tie after all of them
/// goes to the smallest node name.
pub(crate) fn pick_one_node_for_preemption(candidates: &[CandidateNode]) -> PickResult {
    let n = candidates.len();
    let mut criteria = vec![String::new(); n];
    let mut notes = vec![String::new(); n];
    if n == 1 {
        notes[0] = "selected: the only candidate".into();
        return PickResult {
            index: 0,
            criteria,
            notes,
        };
    }
    let mut remaining: Vec<usize> = (0..n).collect();
    remaining.sort_by(|&a, &b| candidates[a].name.cmp(&candidates[b].name));
    for (ci, cname) in CRITERIA.iter().enumerate() {
        let best = remaining.iter().map(|&i| score(&candidates[i], ci)).max().unwrap_or(0);
        let (keep, drop): (Vec<usize>, Vec<usize>) =
            remaining.iter().partition(|&&i| score(&candidates[i], ci) == best);
        let best_shown = shown(&candidates[keep[0]], ci);
        for i in drop {
            criteria[i] = (*cname).to_string();
            notes[i] = format!(
                "lost on {cname}: {} where the best is {best_shown}",
                shown(&candidates[i], ci)
            );
        }
        if keep.len() == 1 {
            criteria[keep[0]] = (*cname).to_string();
            notes[keep[0]] = format!("selected: {cname} ({best_shown})");
            return PickResult {
                index: keep[0],
                criteria,
                notes,
            };
        }
        remaining = keep;
    }
    let tie = TIE_ON_EVERY_CRITERION;
    for (k, &i) in remaining.iter().enumerate() {
        criteria[i] = tie.to_string();
        notes[i] = if k == 0 {
            "selected: tied on every criterion, smallest node name".to_string()
        } else {
            "lost: tied on every criterion, a smaller node name wins".to_string()
        };
    }
    PickResult {
        index: remaining[0],
        criteria,
        notes,
    }
}
