//! `SelectVictimsOnNode` with PodGroup victims (1.37, #137981; GenericWorkload on): the pods
//! of a PodGroup are victims with the group's priority, and a group whose `disruptionMode` is
//! `all` is one victim made of every scheduled member, on whatever node (preemption/types.go
//! `getCrossNodesVictims`, `Victim`, `DomainVictim`; default_preemption.go
//! `SelectVictimsOnNode`, `isPreemptionAllowedAcrossAllVictimNodes`; `MoreImportantVictim`).
//!
//! Only the main node's NodeInfo changes; a member on another node goes through the PreFilter
//! extensions (RemovePod, AddPod) with its own node's NodeInfo, so plugins that keep cycle state
//! about it (spread, affinity) count it out, while Filter runs on the main node alone.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::policy::v1::PodDisruptionBudget;

use super::ERR_NO_VICTIMS;
use super::victims::{Selection, VictimRules, pdb_covers, pod_start_time_nanos};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, PluginsRunner};
use crate::engine::framework::status::Status;
use crate::model::ObjectKey;
use crate::model::selector::Selector;

/// A preemption unit: one pod, or every scheduled pod of an `all`-mode PodGroup.
#[derive(Clone, Debug)]
pub(super) struct Victim {
    /// Its pods (the group's scheduled members in pod order).
    pub pods: Vec<Arc<PodInfo>>,
    /// The PodGroup's priority for a pod of a found group, else the pod's.
    pub priority: i32,
    /// `IsPodGroup`: its first pod names a scheduling group.
    pub is_group: bool,
    /// The earliest start time of its pods (ns).
    earliest: i128,
}

impl Victim {
    fn new(pods: Vec<Arc<PodInfo>>, priority: i32) -> Self {
        let earliest = pods
            .iter()
            .map(|p| pod_start_time_nanos(&p.pod))
            .min()
            .unwrap_or(i128::MAX);
        let is_group = pods.first().is_some_and(|p| p.pod.scheduling_group().is_some());
        Victim {
            pods,
            priority,
            is_group,
            earliest,
        }
    }
}

/// `MoreImportantVictim` with GenericWorkload: higher priority; then a PodGroup before a pod;
/// two pods: the one that started earlier; two groups: the bigger, then the one that started
/// earlier.
fn importance(a: &Victim, b: &Victim) -> Ordering {
    if a.priority != b.priority {
        return b.priority.cmp(&a.priority);
    }
    if a.is_group != b.is_group {
        return if a.is_group { Ordering::Less } else { Ordering::Greater };
    }
    if a.is_group && a.pods.len() != b.pods.len() {
        return b.pods.len().cmp(&a.pods.len());
    }
    a.earliest.cmp(&b.earliest)
}

/// The victims of the pods on `node` (`getCrossNodesVictims` over the one node): each pod on
/// its own with its group's priority, except the members of an `all`-mode group, which are one
/// victim with every scheduled member of the group; each pod and group once, in pod order.
pub(super) fn victims_on(cx: &Ctx<'_>, node: &NodeInfo) -> Vec<Victim> {
    let cluster = &cx.snapshot.cluster;
    let mut seen_pods: BTreeSet<ObjectKey> = BTreeSet::new();
    let mut seen_groups: BTreeSet<ObjectKey> = BTreeSet::new();
    let mut out = Vec::new();
    for pi in &node.pods {
        let group = pi.pod.scheduling_group().and_then(|g| {
            let key = ObjectKey::new(pi.pod.key.namespace.as_str(), g);
            cluster.pod_groups_v1beta1.get(&key).map(|pg| (key, pg))
        });
        match group {
            Some((key, pg)) if pg.disruption_all() => {
                if !seen_groups.insert(key.clone()) {
                    continue;
                }
                // `PodGroupStates().ScheduledPods()`: the group's members on a node
                let members: Vec<Arc<PodInfo>> = cluster
                    .pods
                    .iter()
                    .filter(|p| {
                        p.node_name.is_some()
                            && !p.is_finished()
                            && p.key.namespace == key.namespace
                            && p.scheduling_group() == Some(key.name.as_str())
                    })
                    .filter_map(|p| cx.snapshot.pod_infos.get(&p.key).cloned())
                    .collect();
                let members = if members.is_empty() { vec![pi.clone()] } else { members };
                out.push(Victim::new(members, pg.priority(&cluster.priority_classes)));
            }
            group => {
                if !seen_pods.insert(pi.pod.key.clone()) {
                    continue;
                }
                let priority = group.map_or(pi.pod.priority, |(_, pg)| pg.priority(&cluster.priority_classes));
                out.push(Victim::new(vec![pi.clone()], priority));
            }
        }
    }
    out
}

/// `FilterVictimsWithPDBViolation`: the victims (order kept) with how many of their pods would
/// exceed a PDB's `status.disruptionsAllowed`, and the others. `as_defined`: [`pdb_covers`].
fn filter_victims_with_pdb_violation(
    victims: &[Victim],
    pdbs: &[PodDisruptionBudget],
    as_defined: bool,
) -> (Vec<(Victim, usize)>, Vec<Victim>) {
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
    for v in victims {
        let mut count = 0;
        for pi in &v.pods {
            let pod = &pi.pod;
            let mut violated = false;
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
            if violated {
                count += 1;
            }
        }
        if count > 0 {
            violating.push((v.clone(), count));
        } else {
            non_violating.push(v.clone());
        }
    }
    (violating, non_violating)
}

/// The nodes of a victim's pods other than the main one, as the snapshot has them.
fn remote_nodes<'a>(cx: &Ctx<'a>, v: &Victim, main: &str) -> BTreeMap<String, &'a NodeInfo> {
    v.pods
        .iter()
        .filter_map(|p| p.pod.node_name.as_deref())
        .filter(|n| *n != main)
        .filter_map(|n| cx.snapshot.node(n).map(|ni| (n.to_string(), ni)))
        .collect()
}

fn remove(
    cx: &Ctx<'_>,
    fw: &dyn PluginsRunner,
    state: &mut CycleState,
    pod: &PodInfo,
    node: &mut NodeInfo,
    v: &Victim,
) -> Result<(), Status> {
    let main = node.name().to_string();
    let remote = remote_nodes(cx, v, &main);
    for pi in &v.pods {
        let on = pi.pod.node_name.as_deref().unwrap_or_default();
        let s = if on == main {
            if !node.remove_pod(&pi.pod) {
                return Err(Status::error(format!(
                    "no corresponding pod {} in pods of node {main}",
                    pi.pod.key.name
                )));
            }
            fw.run_pre_filter_extension_remove_pod(cx, state, pod, pi, node)
        } else {
            match remote.get(on) {
                Some(ni) => fw.run_pre_filter_extension_remove_pod(cx, state, pod, pi, ni),
                None => Status::success(),
            }
        };
        if !s.is_success() {
            return Err(Status::error(s.message()));
        }
    }
    Ok(())
}

fn add_back(
    cx: &Ctx<'_>,
    fw: &dyn PluginsRunner,
    state: &mut CycleState,
    pod: &PodInfo,
    node: &mut NodeInfo,
    v: &Victim,
) -> Result<(), Status> {
    let main = node.name().to_string();
    let remote = remote_nodes(cx, v, &main);
    for pi in &v.pods {
        let on = pi.pod.node_name.as_deref().unwrap_or_default();
        let s = if on == main {
            node.add_pod(pi.clone());
            fw.run_pre_filter_extension_add_pod(cx, state, pod, pi, node)
        } else {
            match remote.get(on) {
                Some(ni) => fw.run_pre_filter_extension_add_pod(cx, state, pod, pi, ni),
                None => Status::success(),
            }
        };
        if !s.is_success() {
            return Err(Status::error(s.message()));
        }
    }
    Ok(())
}

/// `SelectVictimsOnNode` with PodGroup victims; see the module's comment. `rules` as in
/// the pod-only walk (re-sort when both PDB groups had victims).
pub(super) fn select_group_victims_on_node(
    cx: &Ctx<'_>,
    fw: &dyn PluginsRunner,
    state: &mut CycleState,
    pod: &PodInfo,
    node: &mut NodeInfo,
    pdbs: &[PodDisruptionBudget],
    rules: VictimRules,
) -> Result<Selection, Status> {
    let prio = pod.pod.priority;
    // isPreemptionAllowedAcrossAllVictimNodes: the default IsEligiblePod allows every node
    let mut potential: Vec<Victim> = victims_on(cx, node).into_iter().filter(|v| v.priority < prio).collect();
    if potential.is_empty() {
        return Err(Status::unresolvable(ERR_NO_VICTIMS));
    }
    for v in &potential {
        remove(cx, fw, state, pod, node, v)?;
    }
    let s = fw.run_filter_plugins_with_nominated_pods(cx, state, pod, node);
    if !s.is_success() {
        return Err(s);
    }
    potential.sort_by(importance);
    let (violating, non_violating) = filter_victims_with_pdb_violation(&potential, pdbs, rules.pdb_selector_as_defined);
    let mut chosen: Vec<Victim> = Vec::new();
    let mut pdb_violations = 0;
    let mut reprieve = |v: &Victim, chosen: &mut Vec<Victim>| -> Result<bool, Status> {
        add_back(cx, fw, state, pod, node, v)?;
        let fits = fw
            .run_filter_plugins_with_nominated_pods(cx, state, pod, node)
            .is_success();
        if !fits {
            remove(cx, fw, state, pod, node, v)?;
            chosen.push(v.clone());
        }
        Ok(fits)
    };
    for (v, count) in &violating {
        if !reprieve(v, &mut chosen)? {
            pdb_violations += count;
        }
    }
    for v in &non_violating {
        reprieve(v, &mut chosen)?;
    }
    if rules.sort_victims && !violating.is_empty() && !non_violating.is_empty() {
        chosen.sort_by(importance);
    }
    Ok(Selection {
        victims: chosen.into_iter().flat_map(|v| v.pods).collect(),
        pdb_violations,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::engine::framework::runner::explain;
    use crate::engine::framework::snapshot::Snapshot;
    use crate::engine::release::{FeatureGates, Features, Release};
    use crate::engine::{build_profiles, trace::Explanation};
    use crate::model::ObjectKey;
    use crate::source::file::load_str;

    /// n1 (2 cpu): g0 of PodGroup pg (priority 10) and x (priority 50), 1 cpu each; n2 (1 cpu):
    /// g1 of pg. The preemptor p (priority 100) asks for 1 cpu.
    fn cluster(mode: &str) -> String {
        format!(
            r"
apiVersion: v1
kind: List
items:
- {{apiVersion: v1, kind: Node, metadata: {{name: n1}}, status: {{allocatable: {{cpu: '2', memory: 4Gi, pods: '10'}}}}}}
- {{apiVersion: v1, kind: Node, metadata: {{name: n2}}, status: {{allocatable: {{cpu: '1', memory: 4Gi, pods: '10'}}}}}}
- {{apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {{name: pg, namespace: a, uid: u-pg}}, spec: {{priority: 10, disruptionMode: {mode}, schedulingPolicy: {{basic: {{}}}}}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: g0, namespace: a, uid: u-g0}}, spec: {{nodeName: n1, priority: 10, schedulingGroup: {{podGroupName: pg}}, containers: [{{name: c, image: i, resources: {{requests: {{cpu: '1'}}}}}}]}}, status: {{phase: Running, startTime: '2024-01-01T00:00:00Z'}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: g1, namespace: a, uid: u-g1}}, spec: {{nodeName: n2, priority: 10, schedulingGroup: {{podGroupName: pg}}, containers: [{{name: c, image: i, resources: {{requests: {{cpu: '1'}}}}}}]}}, status: {{phase: Running, startTime: '2024-01-01T00:00:01Z'}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: x, namespace: a, uid: u-x}}, spec: {{nodeName: n1, priority: 50, containers: [{{name: c, image: i, resources: {{requests: {{cpu: '1'}}}}}}]}}, status: {{phase: Running, startTime: '2024-01-01T00:00:00Z'}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: p, namespace: a, uid: u-p}}, spec: {{priority: 100, containers: [{{name: c, image: i, resources: {{requests: {{cpu: '2'}}}}}}]}}}}
"
        )
    }

    fn explain_with(text: &str, minor: u32, gates: &str) -> Explanation {
        let f = Features::with_gates(Release::at(minor), &FeatureGates::parse(gates).unwrap()).unwrap();
        let snap = Snapshot::new(Arc::new(load_str("t", text).unwrap()), f.clone());
        explain(&snap, &build_profiles(None, &f).unwrap(), &ObjectKey::new("a", "p")).unwrap()
    }

    fn victims(ex: &Explanation) -> (Option<String>, Vec<String>) {
        let pf = ex.post_filter.as_ref().expect("PostFilter ran");
        (
            pf.nominated_node.clone(),
            pf.victims.iter().map(|v| v.name.to_string()).collect(),
        )
    }

    #[test]
    fn a_group_with_disruption_mode_all_goes_whole_from_every_node() {
        // p needs n1's 2 cpus: x (priority 50) and the group pg (priority 10) must both go;
        // the group is one victim, so its member on n2 goes too
        let ex = explain_with(&cluster("{all: {}}"), 37, "GenericWorkload=true");
        assert_eq!(
            victims(&ex),
            (Some("n1".into()), vec!["x".into(), "g0".into(), "g1".into()])
        );
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 3 victims"
            )
        );
    }

    #[test]
    fn single_mode_members_are_victims_alone_with_the_group_s_priority() {
        // single (the default): g0 alone is a victim on n1, ranked by pg's priority
        let ex = explain_with(&cluster("{single: {}}"), 37, "GenericWorkload=true");
        assert_eq!(victims(&ex), (Some("n1".into()), vec!["x".into(), "g0".into()]));
        // GenericWorkload off (1.37's default) and 1.36: pods on their own, as before
        let ex = explain_with(&cluster("{all: {}}"), 37, "");
        assert_eq!(victims(&ex), (Some("n1".into()), vec!["x".into(), "g0".into()]));
    }
}
