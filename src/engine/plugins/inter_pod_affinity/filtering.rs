//! Port of framework/plugins/interpodaffinity/filtering.go (v1.30.6): PreFilter counts, per
//! topology pair, the existing pods that match the incoming pod's required (anti-)affinity
//! terms and the existing pods whose required anti-affinity terms match the incoming pod;
//! AddPod/RemovePod keep those counts in step for nominated pods and preemption; Filter only
//! looks the node's pairs up.
//!
//! The pairs are the snapshot index's ([`IndexedNode::pair`], [`PairCounts`]), and the pods
//! matching a term are found through it ([`pods_matching_all`]). Besides upstream's counts,
//! PreFilter keeps a few example pods per pair (`Witnesses`, shared and never updated by
//! AddPod/RemovePod) so the trace can name the pods behind a rejection; a snapshot that keeps
//! decisions only (the simulator, `fit`) explains no rejection, so PreFilter only counts.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, OnceLock};

use super::{InterPodAffinity, MergedTerm, matches_all};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::index::pods::{MatchedPods, PodTerm, pods_matching_all};
use crate::engine::framework::index::{IndexedNode, Key, LabelColumns, PairCounts};
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, FilterPlugin, PreFilterPlugin};
use crate::engine::framework::snapshot::Snapshot;
use crate::engine::framework::status::{Code, Status};
use crate::engine::framework::trace::{Fact, Lines, NodeLines};
use crate::model::Pod;
use crate::model::selector::Labels;

/// The node's domain holds a pod whose required anti-affinity matches the incoming pod.
pub(super) const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";
/// The incoming pod's required affinity is not met on the node.
pub(super) const ERR_REASON_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod affinity rules";
/// The incoming pod's required anti-affinity is violated on the node.
pub(super) const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod anti-affinity rules";

/// `preFilterStateKey`.
pub(crate) static PRE_FILTER_KEY: &str = "PreFilterInterPodAffinity";

/// How many example pods the trace names per topology pair.
const WITNESS_LIMIT: usize = 3;

/// The incoming pod's required terms, merged, and whether the pod matches its own affinity.
#[derive(Debug)]
pub(crate) struct IncomingTerms {
    /// Required affinity terms.
    pub affinity: Vec<MergedTerm>,
    /// Required anti-affinity terms.
    pub anti_affinity: Vec<MergedTerm>,
    /// `podMatchesAllAffinityTerms(affinity, incoming pod)`.
    pub matches_own_affinity: bool,
    /// The topology key of each affinity term, as the snapshot's index reads it.
    affinity_keys: Vec<Key>,
    /// The same for each anti-affinity term.
    anti_affinity_keys: Vec<Key>,
}

impl IncomingTerms {
    /// The terms, with their topology keys read on the snapshot's label columns.
    fn new(
        labels: &LabelColumns,
        affinity: Vec<MergedTerm>,
        anti_affinity: Vec<MergedTerm>,
        matches_own_affinity: bool,
    ) -> Self {
        IncomingTerms {
            affinity_keys: affinity.iter().map(|t| labels.key(&t.topology_key)).collect(),
            anti_affinity_keys: anti_affinity.iter().map(|t| labels.key(&t.topology_key)).collect(),
            affinity,
            anti_affinity,
            matches_own_affinity,
        }
    }
}

/// Example pods behind a count.
#[derive(Clone, Debug, Default)]
pub(crate) struct Witness {
    /// Matches counted at PreFilter.
    pub count: i64,
    /// Up to `WITNESS_LIMIT` pods with their nodes (named only when shown).
    pub pods: Vec<WitnessPod>,
}

impl Witness {
    /// The pods as "namespace/name (node n)".
    pub(crate) fn names(&self) -> Vec<String> {
        self.pods.iter().map(ToString::to_string).collect()
    }
}

/// One example pod and the node it runs on: shared handles, formatted when shown, since most
/// witnesses are never shown.
#[derive(Clone, Debug)]
pub(crate) struct WitnessPod {
    pod: Arc<PodInfo>,
    node: Arc<crate::model::Node>,
}

impl WitnessPod {
    fn same(&self, o: &WitnessPod) -> bool {
        self.pod.pod.key == o.pod.pod.key && self.node.name == o.node.name
    }
}

impl std::fmt::Display for WitnessPod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (node {})", self.pod.pod.key, self.node.name)
    }
}

/// What PreFilter saw, for the trace.
#[derive(Debug, Default)]
pub(crate) struct Witnesses {
    /// Per incoming anti-affinity term: the pods matching it, in node order (the nodes
    /// without the term's topology label included).
    pub anti_pods: Vec<MatchedPods>,
    /// Per incoming anti-affinity term: topology value → matching pods, gathered from
    /// `anti_pods` when a rejection is first explained.
    anti: OnceLock<Vec<HashMap<String, Witness>>>,
    /// Topology key → value → existing pods whose anti-affinity matches the incoming pod.
    pub existing: HashMap<String, HashMap<String, Witness>>,
    /// Pods anywhere that match all of the incoming pod's affinity terms.
    pub affinity_matches: i64,
}

/// `preFilterState`.
#[derive(Clone, Debug)]
pub(crate) struct PreFilterState {
    /// Pairs holding existing pods whose required anti-affinity matches the incoming pod.
    pub existing_anti_affinity: PairCounts,
    /// Pairs holding pods that match all the incoming pod's required affinity terms.
    pub affinity: PairCounts,
    /// Pairs holding pods that match the incoming pod's required anti-affinity terms.
    pub anti_affinity: PairCounts,
    /// The incoming pod's terms.
    pub terms: Arc<IncomingTerms>,
    /// Labels of the incoming pod's namespace.
    pub namespace_labels: Arc<Labels>,
    /// Example pods for the trace.
    pub witnesses: Arc<Witnesses>,
    /// The snapshot's label columns the pairs are ids of.
    labels: Arc<LabelColumns>,
}

fn affinity_rules_not_match() -> Status {
    Status::new(
        Code::UnschedulableAndUnresolvable,
        [ERR_REASON_AFFINITY_RULES_NOT_MATCH],
    )
}

fn anti_affinity_rules_not_match() -> Status {
    Status::new(Code::Unschedulable, [ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH])
}

fn existing_anti_affinity_rules_not_match() -> Status {
    Status::new(Code::Unschedulable, [ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH])
}

impl Witnesses {
    /// Per incoming anti-affinity term (`terms`): topology value → the pods matching it there.
    pub(crate) fn anti(&self, terms: &[MergedTerm]) -> &[HashMap<String, Witness>] {
        self.anti.get_or_init(|| {
            terms
                .iter()
                .zip(&self.anti_pods)
                .map(|(t, pods)| {
                    let mut m: HashMap<String, Witness> = HashMap::new();
                    pods.for_each(|p, node| {
                        let Some(v) = node.labels.get(&t.topology_key) else {
                            return;
                        };
                        if !m.contains_key(v) {
                            m.insert(v.clone(), Witness::default());
                        }
                        if let Some(w) = m.get_mut(v) {
                            w.count += 1;
                            let known = |o: &WitnessPod| o.pod.pod.key == p.pod.key && o.node.name == node.name;
                            if w.pods.len() < WITNESS_LIMIT && !w.pods.iter().any(known) {
                                w.pods.push(WitnessPod {
                                    pod: p.clone(),
                                    node: node.clone(),
                                });
                            }
                        }
                    });
                    m
                })
                .collect()
        })
    }
}

impl PreFilterState {
    /// `updateWithPod`: counts `p` on `node` `multiplier` times.
    fn update_with_pod(&mut self, incoming: &Pod, p: &PodInfo, node: IndexedNode<'_>, multiplier: i64) {
        for t in p.required_anti_affinity() {
            if t.matches(incoming, &self.namespace_labels)
                && let Some(pair) = node.pair_named(&t.topology_key)
            {
                self.existing_anti_affinity.add(pair, multiplier);
            }
        }
        if matches_all(&self.terms.affinity, &p.pod) {
            for k in &self.terms.affinity_keys {
                if let Some(pair) = node.pair(k) {
                    self.affinity.add(pair, multiplier);
                }
            }
        }
        for (t, k) in self.terms.anti_affinity.iter().zip(&self.terms.anti_affinity_keys) {
            if t.matches(&p.pod)
                && let Some(pair) = node.pair(k)
            {
                self.anti_affinity.add(pair, multiplier);
            }
        }
    }
}

fn witness(p: &Arc<PodInfo>, node: &NodeInfo) -> WitnessPod {
    WitnessPod {
        pod: p.clone(),
        node: node.node.clone(),
    }
}

/// Counts `count` more matches for `value` and keeps up to `WITNESS_LIMIT` names from `names`
/// (taken lazily, not allocating once the witness is full or the value already known).
fn add_witness(m: &mut HashMap<String, Witness>, value: &str, count: i64, names: impl Iterator<Item = WitnessPod>) {
    let fill = |w: &mut Witness, names: &mut dyn Iterator<Item = WitnessPod>| {
        w.count += count;
        while w.pods.len() < WITNESS_LIMIT {
            let Some(n) = names.next() else { break };
            if !w.pods.iter().any(|p| p.same(&n)) {
                w.pods.push(n);
            }
        }
    };
    let mut names = names;
    if let Some(w) = m.get_mut(value) {
        fill(w, &mut names);
        return;
    }
    let mut w = Witness::default();
    fill(&mut w, &mut names);
    m.insert(value.to_string(), w);
}

/// `getExistingAntiAffinityCounts`, over the nodes holding pods with required anti-affinity.
/// Each distinct term of those pods is matched once against the incoming pod (the snapshot's
/// index groups them: the replicas of a workload carry equal terms), then the uses of the
/// matching ones are counted in node order, so the witnesses kept are the first ones as in a
/// walk over the nodes in order.
///
/// `w` None: no witness kept (a cycle that keeps decisions only never explains a rejection),
/// so the walk over the uses only counts.
fn existing_anti_affinity_counts(
    snap: &Snapshot,
    incoming: &Pod,
    ns_labels: &Labels,
    w: Option<&mut Witnesses>,
) -> PairCounts {
    let anti = &snap.index.anti_terms;
    let labels = snap.labels();
    // per distinct term: None when it does not match, else its topology key's column (None:
    // no node has the key)
    let matched: Vec<Option<Option<u32>>> = anti
        .terms
        .iter()
        .map(|t| {
            t.matches(incoming, ns_labels)
                .then(|| labels.column_at(&t.topology_key).map(|(c, _)| c))
        })
        .collect();
    let mut counts = PairCounts::new(labels);
    let Some(w) = w else {
        for u in &anti.uses {
            let Some(column) = matched[u.term as usize] else {
                continue;
            };
            if let Some(pair) = column.and_then(|c| snap.indexed_at(u.node as usize).pair_at(c)) {
                counts.add(pair, 1);
            }
        }
        return counts;
    };
    for u in &anti.uses {
        let Some(column) = matched[u.term as usize] else {
            continue;
        };
        let ni = u.node as usize;
        // the node's value of the term's topology key (none: the node lacks it)
        let Some(pair) = column.and_then(|c| snap.indexed_at(ni).pair_at(c)) else {
            continue;
        };
        let v = labels.column_by_index(pair.column).value(pair.value);
        counts.add(pair, 1);
        let node = &snap.nodes[ni];
        let ep = &node.required_anti_affinity_pods[u.pod as usize];
        let t = &ep.required_anti_affinity()[u.at as usize];
        if !w.existing.contains_key(&t.topology_key) {
            w.existing.insert(t.topology_key.clone(), HashMap::new());
        }
        if let Some(inner) = w.existing.get_mut(&t.topology_key) {
            add_witness(inner, v, 1, std::iter::once_with(|| witness(ep, node)));
        }
    }
    counts
}

/// `getIncomingAffinityAntiAffinityCounts`, over every node.
/// `keep`: the pods matching each anti-affinity term kept in `w` for the trace.
fn incoming_counts(snap: &Snapshot, terms: &IncomingTerms, w: &mut Witnesses, keep: bool) -> (PairCounts, PairCounts) {
    let mut affinity = PairCounts::new(snap.labels());
    let mut anti = PairCounts::new(snap.labels());
    if terms.affinity.is_empty() && terms.anti_affinity.is_empty() {
        return (affinity, anti);
    }
    let table = snap.pod_table();
    // podMatchesAllAffinityTerms on each pod (false for no terms).
    let all: Vec<PodTerm<'_>> = terms.affinity.iter().map(MergedTerm::pod_term).collect();
    for (ni, n) in pods_matching_all(&snap.nodes, table.as_ref(), &all, false).per_node {
        w.affinity_matches += n;
        let node = snap.indexed_at(ni);
        for k in &terms.affinity_keys {
            if let Some(pair) = node.pair(k) {
                affinity.add(pair, n);
            }
        }
    }
    for (i, (t, k)) in terms.anti_affinity.iter().zip(&terms.anti_affinity_keys).enumerate() {
        let found = pods_matching_all(&snap.nodes, table.as_ref(), &[t.pod_term()], keep);
        for (ni, n) in found.per_node {
            if let Some(pair) = snap.indexed_at(ni).pair(k) {
                anti.add(pair, n);
            }
        }
        w.anti_pods[i] = found.pods;
    }
    (affinity, anti)
}

/// Builds the PreFilter state (None for Skip).
pub(crate) fn build_state(snap: &Snapshot, pod: &PodInfo) -> Option<PreFilterState> {
    let ns = &snap.cluster.namespaces;
    let affinity: Vec<MergedTerm> = pod.required_affinity().iter().map(|t| MergedTerm::new(t, ns)).collect();
    let anti_affinity: Vec<MergedTerm> = pod
        .required_anti_affinity()
        .iter()
        .map(|t| MergedTerm::new(t, ns))
        .collect();
    let matches_own_affinity = matches_all(&affinity, &pod.pod);
    let labels = snap.labels();
    let terms = IncomingTerms::new(labels, affinity, anti_affinity, matches_own_affinity);
    let namespace_labels = snap.namespace_labels(&pod.pod.key.namespace).clone();
    let mut w = Witnesses {
        anti_pods: (0..terms.anti_affinity.len()).map(|_| MatchedPods::default()).collect(),
        ..Default::default()
    };
    // a cycle that keeps decisions only explains no rejection: no example pod is kept
    let keep = !snap.decisions_only;
    let existing = existing_anti_affinity_counts(snap, &pod.pod, &namespace_labels, keep.then_some(&mut w));
    let (aff, anti) = incoming_counts(snap, &terms, &mut w, keep);
    if existing.is_empty() && terms.affinity.is_empty() && terms.anti_affinity.is_empty() {
        return None;
    }
    Some(PreFilterState {
        existing_anti_affinity: existing,
        affinity: aff,
        anti_affinity: anti,
        terms: Arc::new(terms),
        namespace_labels: Arc::new(namespace_labels),
        witnesses: Arc::new(w),
        labels: labels.clone(),
    })
}

fn missing_state() -> Status {
    Status::error(format!("error reading {PRE_FILTER_KEY:?} from cycleState: not found"))
}

/// `satisfyPodAffinity`.
fn satisfy_pod_affinity(s: &PreFilterState, node: IndexedNode<'_>) -> bool {
    let mut pods_exist = true;
    for k in &s.terms.affinity_keys {
        match node.pair(k) {
            Some(pair) => {
                if s.affinity.get(pair) <= 0 {
                    pods_exist = false;
                }
            }
            None => return false,
        }
    }
    // The first pod of a group that has affinity to itself may go anywhere the topology
    // labels exist, when no pod in the cluster matches the terms yet.
    pods_exist || (s.affinity.is_empty() && s.terms.matches_own_affinity)
}

/// `satisfyPodAntiAffinity`.
fn satisfy_pod_anti_affinity(s: &PreFilterState, node: IndexedNode<'_>) -> bool {
    if s.anti_affinity.is_empty() {
        return true;
    }
    !s.terms
        .anti_affinity_keys
        .iter()
        .any(|k| node.pair(k).is_some_and(|pair| s.anti_affinity.get(pair) > 0))
}

/// `satisfyExistingPodsAntiAffinity`: no pair of the node's labels is counted. Walks the
/// counted topology keys (few) instead of the node's labels (many); same pairs either way.
fn satisfy_existing_pods_anti_affinity(s: &PreFilterState, node: IndexedNode<'_>) -> bool {
    if s.existing_anti_affinity.is_empty() {
        return true;
    }
    !s.existing_anti_affinity.columns().any(|c| {
        node.pair_at(c)
            .is_some_and(|pair| s.existing_anti_affinity.get(pair) > 0)
    })
}

/// The Filter verdict on a node given the state.
pub(crate) fn filter_with_state(s: &PreFilterState, node: IndexedNode<'_>) -> Status {
    if !satisfy_pod_affinity(s, node) {
        return affinity_rules_not_match();
    }
    if !satisfy_pod_anti_affinity(s, node) {
        return anti_affinity_rules_not_match();
    }
    if !satisfy_existing_pods_anti_affinity(s, node) {
        return existing_anti_affinity_rules_not_match();
    }
    Status::success()
}

fn examples(w: &Witness) -> String {
    let mut s = w.names().join(", ");
    if w.count > w.pods.len() as i64 {
        s.push_str(", ...");
    }
    s
}

/// Facts behind a rejection, for the trace (not upstream): which term failed on the node and
/// which pods in the node's topology domain caused it.
pub(crate) fn failure_detail(s: &PreFilterState, node: &crate::model::Node) -> Vec<String> {
    let mut out = Vec::new();
    let w = &s.witnesses;
    let at = IndexedNode::copy(&s.labels, node);
    let labels = &node.labels;
    if !satisfy_pod_affinity(s, at) {
        for (i, t) in s.terms.affinity.iter().enumerate() {
            let tk = &t.topology_key;
            match labels.get(tk) {
                None => out.push(format!(
                    "required pod affinity term {i}: the node has no label '{tk}' (its topologyKey)"
                )),
                Some(v) if s.affinity.get_named(tk, v) <= 0 => {
                    out.push(format!(
                        "required pod affinity term {i}: no pod matching all required affinity terms runs in {tk}={v}"
                    ));
                }
                Some(_) => {}
            }
        }
        if s.affinity.is_empty() && !s.terms.matches_own_affinity {
            let anywhere = if w.affinity_matches > 0 {
                format!(
                    "{} pod(s) match them but run on nodes without the topology labels",
                    w.affinity_matches
                )
            } else {
                "no pod in the cluster matches them".to_string()
            };
            out.push(format!(
                "{anywhere}; the pod's own labels do not match its terms, so it cannot start the group itself"
            ));
        }
        return out;
    }
    if !satisfy_pod_anti_affinity(s, at) {
        for (i, t) in s.terms.anti_affinity.iter().enumerate() {
            let tk = &t.topology_key;
            let Some(v) = labels.get(tk) else { continue };
            if s.anti_affinity.get_named(tk, v) <= 0 {
                continue;
            }
            if let Some(wit) = w.anti(&s.terms.anti_affinity).get(i).and_then(|m| m.get(v)) {
                out.push(format!(
                    "required pod anti-affinity term {i} matches {} pod(s) in {tk}={v}: {}",
                    wit.count,
                    examples(wit)
                ));
            }
        }
        return out;
    }
    if !satisfy_existing_pods_anti_affinity(s, at) {
        for k in s.existing_anti_affinity.keys_sorted() {
            let Some(v) = labels.get(k) else { continue };
            if s.existing_anti_affinity.get_named(k, v) <= 0 {
                continue;
            }
            if let Some(wit) = w.existing.get(k).and_then(|m| m.get(v)) {
                out.push(format!(
                    "existing pods in {k}={v} whose required anti-affinity matches this pod: {} ({} matching term(s))",
                    examples(wit),
                    wit.count
                ));
            }
        }
    }
    out
}

impl PreFilterPlugin for InterPodAffinity {
    fn pre_filter(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        match build_state(cx.snapshot, pod) {
            None => (None, Status::skip()),
            Some(s) => {
                state.write(PRE_FILTER_KEY, Arc::new(s));
                (None, Status::success())
            }
        }
    }

    fn pre_filter_facts(&self, _: &Ctx<'_>, _: &CycleState, pod: &PodInfo) -> Vec<Fact> {
        super::required_facts(pod)
    }

    fn has_extensions(&self) -> bool {
        true
    }

    fn add_pod(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, add: &PodInfo, node: &NodeInfo) -> Status {
        let Some(s) = state.read_mut::<Arc<PreFilterState>>(PRE_FILTER_KEY) else {
            return missing_state();
        };
        Arc::make_mut(s).update_with_pod(&pod.pod, add, cx.snapshot.indexed(node), 1);
        Status::success()
    }

    fn remove_pod(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, rm: &PodInfo, node: &NodeInfo) -> Status {
        let Some(s) = state.read_mut::<Arc<PreFilterState>>(PRE_FILTER_KEY) else {
            return missing_state();
        };
        Arc::make_mut(s).update_with_pod(&pod.pod, rm, cx.snapshot.indexed(node), -1);
        Status::success()
    }
}

impl FilterPlugin for InterPodAffinity {
    fn filter(&self, cx: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> Status {
        match state.read::<Arc<PreFilterState>>(PRE_FILTER_KEY) {
            Some(s) => filter_with_state(s, cx.snapshot.indexed(node)),
            None => missing_state(),
        }
    }

    /// Written when first read: the state as it is now (shared; AddPod/RemovePod copy it
    /// before changing it) and the node's labels.
    fn failure_detail(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> Lines {
        let Some(s) = state.read::<Arc<PreFilterState>>(PRE_FILTER_KEY).cloned() else {
            return Lines::default();
        };
        Lines::for_node(s, node.node.clone())
    }
}

impl NodeLines for PreFilterState {
    fn lines(&self, node: &crate::model::Node) -> Vec<String> {
        failure_detail(self, node)
    }
}

#[cfg(test)]
#[path = "filtering_tests.rs"]
mod tests;
