//! The dry run on one node (`SelectVictimsOnNode` of default_preemption.go, v1.30.6) and the
//! PDB grouping it uses (`filterPodsWithPDBViolation`), with the pod ordering of
//! scheduler/util (`MoreImportantPod`, `GetPodStartTime`).

use std::cmp::Ordering;
use std::sync::Arc;

use k8s_openapi::api::policy::v1::PodDisruptionBudget;

use super::ERR_NO_VICTIMS;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, PluginsRunner};
use crate::engine::framework::status::Status;
#[cfg(doc)]
use crate::engine::release::Change;
use crate::model::Pod;
use crate::model::selector::Selector;

/// 2099-01-01T00:00:00Z in nanoseconds: the start time of a pod without `status.startTime`.
pub(super) const NO_START_TIME_NANOS: i128 = 4_070_908_800 * 1_000_000_000;

/// `GetPodStartTime` as nanoseconds since the epoch (see [`NO_START_TIME_NANOS`]).
pub(crate) fn pod_start_time_nanos(p: &Pod) -> i128 {
    p.obj
        .status
        .as_ref()
        .and_then(|s| s.start_time.as_ref())
        .map_or(NO_START_TIME_NANOS, |t| t.0.as_nanosecond())
}

/// `MoreImportantPod`: higher priority first, then the one that started earlier.
pub(super) fn more_important_pod(a: &Pod, b: &Pod) -> bool {
    if a.priority != b.priority {
        return a.priority > b.priority;
    }
    pod_start_time_nanos(a) < pod_start_time_nanos(b)
}

/// Sorts most important first. Go's `sort.Slice` is an insertion sort up to 12 elements, which
/// keeps equal pods in their order; a stable sort does the same.
fn sort_by_importance(v: &mut [Arc<PodInfo>]) {
    v.sort_by(|a, b| {
        if more_important_pod(&a.pod, &b.pod) {
            Ordering::Less
        } else if more_important_pod(&b.pod, &a.pod) {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    });
}

/// How a release picks victims where releases differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct VictimRules {
    /// Victims sorted again after the reprieve ([`Change::PreemptionVictimsResorted`], 1.31+).
    pub sort_victims: bool,
    /// A PDB covers the pods its selector selects ([`Change::PdbSelectorAsDefined`], 1.38):
    /// `{}` every pod of the namespace, unlabeled ones too.
    pub pdb_selector_as_defined: bool,
}

/// Whether a PDB whose spec.selector parsed to `selector` covers `pod` when preemption counts
/// violations. Up to 1.37 a pod without labels and a selector without requirements (`{}`, which
/// selects every pod) were never matched; from 1.38 (kubernetes#141785) the selector decides
/// (a nil one matches nothing).
pub(crate) fn pdb_covers(selector: &Selector, pod: &Pod, as_defined: bool) -> bool {
    if as_defined {
        selector.matches(&pod.labels)
    } else {
        !pod.labels.is_empty() && !selector.is_empty() && selector.matches(&pod.labels)
    }
}

/// `filterPodsWithPDBViolation`: splits the pods (order kept) into those whose eviction would
/// exceed a PDB's `status.disruptionsAllowed` and the others. A pod listed in a PDB's
/// `status.disruptedPods` does not count against it; a PDB without status allows nothing.
/// `as_defined`: [`pdb_covers`].
pub(super) fn filter_pods_with_pdb_violation(
    pods: &[Arc<PodInfo>],
    pdbs: &[PodDisruptionBudget],
    as_defined: bool,
) -> (Vec<Arc<PodInfo>>, Vec<Arc<PodInfo>>) {
    let mut allowed: Vec<i32> = pdbs
        .iter()
        .map(|p| p.status.as_ref().and_then(|s| s.disruptions_allowed).unwrap_or(0))
        .collect();
    let selectors: Vec<Selector> = pdbs
        .iter()
        .map(|p| Selector::from_label_selector(p.spec.as_ref().and_then(|s| s.selector.as_ref())))
        .collect();
    let mut violating = Vec::new();
    let mut non_violating = Vec::new();
    for pi in pods {
        let pod = &pi.pod;
        let mut violated = false;
        {
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
                    violated = true;
                }
            }
        }
        if violated {
            violating.push(pi.clone());
        } else {
            non_violating.push(pi.clone());
        }
    }
    (violating, non_violating)
}

/// The PDBs evicting exactly `victims` violates: those of a victim's namespace covering more
/// of the victims (not already in their status.disruptedPods) than their
/// status.disruptionsAllowed (a PDB without status allows none), by key.
pub(crate) fn violated_pdbs<'a>(
    victims: impl Iterator<Item = &'a Pod> + Clone,
    pdbs: &[PodDisruptionBudget],
    as_defined: bool,
) -> Vec<crate::model::ObjectKey> {
    let mut out: Vec<crate::model::ObjectKey> = pdbs
        .iter()
        .filter(|pdb| {
            let selector = Selector::from_label_selector(pdb.spec.as_ref().and_then(|s| s.selector.as_ref()));
            let ns = pdb.metadata.namespace.as_deref().unwrap_or_default();
            let disrupted = pdb.status.as_ref().and_then(|s| s.disrupted_pods.as_ref());
            let covered = victims
                .clone()
                .filter(|p| p.key.namespace == ns && pdb_covers(&selector, p, as_defined))
                .filter(|p| !disrupted.is_some_and(|m| m.contains_key(p.key.name.as_str())))
                .count();
            let allowed = pdb.status.as_ref().and_then(|s| s.disruptions_allowed).unwrap_or(0);
            covered > 0 && i64::try_from(covered).unwrap_or(i64::MAX) > i64::from(allowed)
        })
        .map(|pdb| {
            crate::model::ObjectKey::new(
                pdb.metadata.namespace.clone().unwrap_or_default(),
                pdb.metadata.name.clone().unwrap_or_default(),
            )
        })
        .collect();
    out.sort();
    out
}

/// What the dry run found on a node.
#[derive(Clone, Debug)]
pub(super) struct Selection {
    /// Pods to evict, in upstream's order.
    pub victims: Vec<Arc<PodInfo>>,
    /// How many of them violate a PDB.
    pub pdb_violations: usize,
}

fn remove_victim(
    cx: &Ctx<'_>,
    fw: &dyn PluginsRunner,
    state: &mut CycleState,
    pod: &PodInfo,
    node: &mut NodeInfo,
    victim: &PodInfo,
) -> Result<(), Status> {
    if !node.remove_pod(&victim.pod) {
        return Err(Status::error(format!(
            "no corresponding pod {} in pods of node {}",
            victim.pod.key.name,
            node.name()
        )));
    }
    let s = fw.run_pre_filter_extension_remove_pod(cx, state, pod, victim, node);
    if s.is_success() {
        Ok(())
    } else {
        Err(Status::error(s.message()))
    }
}

fn add_back(
    cx: &Ctx<'_>,
    fw: &dyn PluginsRunner,
    state: &mut CycleState,
    pod: &PodInfo,
    node: &mut NodeInfo,
    victim: &Arc<PodInfo>,
) -> Result<(), Status> {
    node.add_pod(victim.clone());
    let s = fw.run_pre_filter_extension_add_pod(cx, state, pod, victim, node);
    if s.is_success() {
        Ok(())
    } else {
        Err(Status::error(s.message()))
    }
}

/// `SelectVictimsOnNode` on a copy of the node and of the cycle state: removes every
/// lower-priority pod, checks that the pod then fits (Filter with nominated pods), and adds
/// back as many as possible — PDB-violating ones first, most important first in each group.
/// `Err` carries the status that makes the node unsuitable. With `rules.sort_victims` (1.31+)
/// the victims are sorted again when both groups were non-empty.
#[allow(clippy::too_many_arguments)]
pub(super) fn select_victims_on_node(
    cx: &Ctx<'_>,
    fw: &dyn PluginsRunner,
    state: &mut CycleState,
    pod: &PodInfo,
    node: &mut NodeInfo,
    pdbs: &[PodDisruptionBudget],
    rules: VictimRules,
) -> Result<Selection, Status> {
    let prio = pod.pod.priority;
    let mut potential: Vec<Arc<PodInfo>> = node.pods.iter().filter(|p| p.pod.priority < prio).cloned().collect();
    for v in &potential {
        remove_victim(cx, fw, state, pod, node, v)?;
    }
    if potential.is_empty() {
        return Err(Status::unresolvable(ERR_NO_VICTIMS));
    }
    let s = fw.run_filter_plugins_with_nominated_pods(cx, state, pod, node);
    if !s.is_success() {
        return Err(s);
    }
    sort_by_importance(&mut potential);
    let (violating, non_violating) = filter_pods_with_pdb_violation(&potential, pdbs, rules.pdb_selector_as_defined);
    let mut victims: Vec<Arc<PodInfo>> = Vec::new();
    let mut pdb_violations = 0;
    for (group, counts) in [(&violating, true), (&non_violating, false)] {
        for v in group {
            add_back(cx, fw, state, pod, node, v)?;
            let fits = fw
                .run_filter_plugins_with_nominated_pods(cx, state, pod, node)
                .is_success();
            if !fits {
                remove_victim(cx, fw, state, pod, node, v)?;
                victims.push(v.clone());
                if counts {
                    pdb_violations += 1;
                }
            }
        }
    }
    if rules.sort_victims && !violating.is_empty() && !non_violating.is_empty() {
        sort_by_importance(&mut victims);
    }
    Ok(Selection {
        victims,
        pdb_violations,
    })
}
