//! Port of framework/plugins/interpodaffinity/filtering.go (v1.30.6): PreFilter counts, per
//! topology pair, the existing pods that match the incoming pod's required (anti-)affinity
//! terms and the existing pods whose required anti-affinity terms match the incoming pod;
//! AddPod/RemovePod keep those counts in step for nominated pods and preemption; Filter only
//! looks the node's pairs up.
//!
//! Besides upstream's counts, PreFilter keeps a few example pods per pair (`Witnesses`, shared
//! and never updated by AddPod/RemovePod) so the trace can name the pods behind a rejection.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, OnceLock};

use super::{InterPodAffinity, MergedTerm, TopologyCounts, matches_all};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::index::labels::LabelColumns;
use crate::engine::framework::index::pods::{CompiledReq, CompiledSelector, PodTable};
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
    pub existing_anti_affinity: TopologyCounts,
    /// Pairs holding pods that match all the incoming pod's required affinity terms.
    pub affinity: TopologyCounts,
    /// Pairs holding pods that match the incoming pod's required anti-affinity terms.
    pub anti_affinity: TopologyCounts,
    /// The incoming pod's terms.
    pub terms: Arc<IncomingTerms>,
    /// Labels of the incoming pod's namespace.
    pub namespace_labels: Arc<Labels>,
    /// Example pods for the trace.
    pub witnesses: Arc<Witnesses>,
    /// The three counts as tables on the snapshot's label columns (None once AddPod or
    /// RemovePod changed the counts, or when built without a snapshot's columns).
    pub(crate) by_columns: Option<Arc<CountedValues>>,
}

/// Which values of one topology key are counted above zero, by value id of the key's column.
#[derive(Debug)]
struct CountedColumn {
    /// The key's column; None: no node has the key.
    column: Option<u32>,
    positive: Box<[bool]>,
}

impl CountedColumn {
    fn new(cols: &LabelColumns, counts: &TopologyCounts, key: &str) -> Self {
        let Some((column, col)) = cols.column_at(key) else {
            return CountedColumn {
                column: None,
                positive: Box::default(),
            };
        };
        let positive = counts.positive_by_id(cols, key).unwrap_or_else(|| {
            let mut positive = vec![false; col.len_values()].into_boxed_slice();
            for (value, n) in counts.values_of(key) {
                if let Some(id) = col.id_of(value) {
                    positive[id as usize] = n > 0;
                }
            }
            positive
        });
        CountedColumn {
            column: Some(column),
            positive,
        }
    }

    /// None: the node lacks the key; else whether its value is counted above zero.
    #[inline]
    fn at(&self, cols: &LabelColumns, node: usize) -> Option<bool> {
        let id = cols.column_by_index(self.column?).id(node)?;
        Some(self.positive[id as usize])
    }
}

/// [`PreFilterState`]'s counts read per node from label columns: what Filter asks of them,
/// with no label map searched and no string hashed.
#[derive(Debug)]
pub(crate) struct CountedValues {
    stamp: u64,
    /// Per incoming affinity term.
    affinity: Vec<CountedColumn>,
    /// Per incoming anti-affinity term.
    anti_affinity: Vec<CountedColumn>,
    /// Per topology key of the existing pods' counts.
    existing: Vec<CountedColumn>,
}

impl CountedValues {
    fn new(s: &PreFilterState, cols: &LabelColumns) -> Self {
        CountedValues {
            stamp: cols.stamp(),
            affinity: s
                .terms
                .affinity
                .iter()
                .map(|t| CountedColumn::new(cols, &s.affinity, &t.topology_key))
                .collect(),
            anti_affinity: s
                .terms
                .anti_affinity
                .iter()
                .map(|t| CountedColumn::new(cols, &s.anti_affinity, &t.topology_key))
                .collect(),
            existing: s
                .existing_anti_affinity
                .keys()
                .map(|k| CountedColumn::new(cols, &s.existing_anti_affinity, k))
                .collect(),
        }
    }

    /// [`filter_with_state`] for the node at `node` of the columns.
    fn filter(&self, s: &PreFilterState, cols: &LabelColumns, node: usize) -> Status {
        let mut pods_exist = true;
        for c in &self.affinity {
            match c.at(cols, node) {
                None => return affinity_rules_not_match(),
                Some(false) => pods_exist = false,
                Some(true) => {}
            }
        }
        if !(pods_exist || (s.affinity.is_empty() && s.terms.matches_own_affinity)) {
            return affinity_rules_not_match();
        }
        if !s.anti_affinity.is_empty() && self.anti_affinity.iter().any(|c| c.at(cols, node) == Some(true)) {
            return anti_affinity_rules_not_match();
        }
        if !s.existing_anti_affinity.is_empty() && self.existing.iter().any(|c| c.at(cols, node) == Some(true)) {
            return existing_anti_affinity_rules_not_match();
        }
        Status::success()
    }
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

/// Pods matching a term, in node order: listed, or as rows of the pod table they were found in
/// (kept as found: no pod is touched until a rejection is explained).
#[derive(Debug)]
pub(crate) enum MatchedPods {
    /// The pods with their nodes.
    Listed(Vec<WitnessPod>),
    /// Rows of a pod table.
    Rows(Arc<PodTable>, Vec<u32>),
}

impl Default for MatchedPods {
    fn default() -> Self {
        MatchedPods::Listed(Vec::new())
    }
}

impl MatchedPods {
    /// Calls `f` with each pod and its node, in order.
    fn for_each(&self, mut f: impl FnMut(&Arc<PodInfo>, &Arc<crate::model::Node>)) {
        match self {
            MatchedPods::Listed(v) => v.iter().for_each(|w| f(&w.pod, &w.node)),
            MatchedPods::Rows(t, rows) => rows.iter().for_each(|&r| {
                let (p, n) = t.row_pod(r as usize);
                f(p, n);
            }),
        }
    }
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
    /// `updateWithPod`: counts `p` on a node with `node_labels` `multiplier` times.
    fn update_with_pod(&mut self, incoming: &Pod, p: &PodInfo, node_labels: &Labels, multiplier: i64) {
        self.by_columns = None;
        for t in p.required_anti_affinity() {
            if t.matches(incoming, &self.namespace_labels) {
                self.existing_anti_affinity
                    .update(node_labels, &t.topology_key, multiplier);
            }
        }
        if matches_all(&self.terms.affinity, &p.pod) {
            for t in &self.terms.affinity {
                self.affinity.update(node_labels, &t.topology_key, multiplier);
            }
        }
        for t in &self.terms.anti_affinity {
            if t.matches(&p.pod) {
                self.anti_affinity.update(node_labels, &t.topology_key, multiplier);
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
fn existing_anti_affinity_counts(
    snap: &Snapshot,
    incoming: &Pod,
    ns_labels: &Labels,
    w: &mut Witnesses,
) -> TopologyCounts {
    // The (node, pod, term) triples whose term matches the incoming pod, found over the nodes
    // in pieces in parallel (the walk reads every node; matches are few), then counted in
    // node order, so the witnesses kept are the first ones as in a walk in order.
    let found = crate::engine::framework::parallel::map_pieces(snap.serial, &snap.nodes, |start, piece| {
        let mut out: Vec<(usize, usize, usize)> = Vec::new();
        for (ni, node) in (start..).zip(piece) {
            if node.pods_with_required_anti_affinity == 0 {
                continue;
            }
            for (pi, ep) in node.required_anti_affinity_pods.iter().enumerate() {
                for (ti, t) in ep.required_anti_affinity().iter().enumerate() {
                    if t.matches(incoming, ns_labels) {
                        out.push((ni, pi, ti));
                    }
                }
            }
        }
        out
    });
    let mut counts = TopologyCounts::default();
    for (ni, pi, ti) in found.into_iter().flatten() {
        let node = &snap.nodes[ni];
        let ep = &node.required_anti_affinity_pods[pi];
        let t = &ep.required_anti_affinity()[ti];
        let Some(v) = node.node.labels.get(&t.topology_key) else {
            continue;
        };
        counts.add(&t.topology_key, v, 1);
        if !w.existing.contains_key(&t.topology_key) {
            w.existing.insert(t.topology_key.clone(), HashMap::new());
        }
        if let Some(inner) = w.existing.get_mut(&t.topology_key) {
            add_witness(inner, v, 1, std::iter::once_with(|| witness(ep, node)));
        }
    }
    counts
}

/// A merged term compiled against a [`PodTable`]; None when the table cannot evaluate it.
struct TableTerm {
    reqs: Vec<CompiledReq>,
    all_namespaces: bool,
    namespaces: Vec<u32>,
}

/// Whether a merged term matches the pod of a table row, if the table can tell.
enum TermMatcher<'a> {
    /// Evaluated on the pod itself.
    Pod,
    /// Matches no pod.
    Nothing,
    /// Evaluated on the interned row.
    Table(&'a PodTable, TableTerm),
}

impl<'a> TermMatcher<'a> {
    fn new(table: Option<&'a PodTable>, t: &MergedTerm) -> Self {
        let Some(table) = table else { return TermMatcher::Pod };
        match table.compile(&t.selector) {
            CompiledSelector::Fallback => TermMatcher::Pod,
            CompiledSelector::Nothing => TermMatcher::Nothing,
            CompiledSelector::Reqs(reqs) => TermMatcher::Table(
                table,
                TableTerm {
                    reqs,
                    all_namespaces: t.all_namespaces,
                    namespaces: t.namespaces.iter().filter_map(|n| table.id(n)).collect(),
                },
            ),
        }
    }

    /// `t.matches(pod)` for the pod at `row` of the table (`pod` itself when no table).
    fn matches(&self, t: &MergedTerm, pod: &Pod, row: usize) -> bool {
        match self {
            TermMatcher::Pod => t.matches(pod),
            TermMatcher::Nothing => false,
            TermMatcher::Table(table, c) => {
                table.row_labels_match(row, &c.reqs) && (c.all_namespaces || c.namespaces.contains(&table.row_ns(row)))
            }
        }
    }
}

/// The label column of each incoming term's topology key, in the snapshot's label columns:
/// the terms' counts are kept by value id.
struct TermKeys<'a> {
    cols: &'a Arc<LabelColumns>,
    affinity: Vec<Option<u32>>,
    anti_affinity: Vec<Option<u32>>,
}

impl<'a> TermKeys<'a> {
    fn new(snap: &'a Snapshot, terms: &IncomingTerms) -> Self {
        let cols = &snap.node_labels;
        let column = |t: &MergedTerm| cols.column_at(&t.topology_key).map(|(c, _)| c);
        TermKeys {
            cols,
            affinity: terms.affinity.iter().map(column).collect(),
            anti_affinity: terms.anti_affinity.iter().map(column).collect(),
        }
    }

    /// Adds `n` to the pair of the snapshot's node at `node` for `key` (its `column`; None: no
    /// node has the key), if the node has the key: `counts.update(node labels, key, n)`.
    fn add(&self, counts: &mut TopologyCounts, column: Option<u32>, key: &str, node: usize, n: i64) {
        if let Some(c) = column {
            counts.add_at(self.cols, c, key, node, n);
        }
    }
}

/// `getIncomingAffinityAntiAffinityCounts`, over every node.
#[cfg(test)]
fn incoming_counts(snap: &Snapshot, terms: &IncomingTerms, w: &mut Witnesses) -> (TopologyCounts, TopologyCounts) {
    incoming_counts_with(snap, terms, w, None)
}

/// `getIncomingAffinityAntiAffinityCounts`, over every node, matching on the pod table of
/// the snapshot when there is one (same answers, interned labels instead of label maps).
fn incoming_counts_with(
    snap: &Snapshot,
    terms: &IncomingTerms,
    w: &mut Witnesses,
    shared: Option<&Arc<PodTable>>,
) -> (TopologyCounts, TopologyCounts) {
    let mut affinity = TopologyCounts::default();
    let mut anti = TopologyCounts::default();
    let keys = TermKeys::new(snap, terms);
    if terms.affinity.is_empty() && terms.anti_affinity.is_empty() {
        return (affinity, anti);
    }
    let shared = shared.filter(|t| t.fits(&snap.nodes));
    let table = shared.map(|t| &**t);
    let aff_m: Vec<TermMatcher<'_>> = terms.affinity.iter().map(|t| TermMatcher::new(table, t)).collect();
    let anti_m: Vec<TermMatcher<'_>> = terms.anti_affinity.iter().map(|t| TermMatcher::new(table, t)).collect();
    if let Some(out) = indexed_counts(snap, terms, w, shared, &aff_m, &anti_m) {
        return out;
    }
    let mut anti_matches = vec![0i64; terms.anti_affinity.len()];
    for (ni, node) in snap.nodes.iter().enumerate() {
        if node.pods.is_empty() {
            continue;
        }
        let first_row = table.map_or(0, |t| t.node_rows(ni).start);
        let mut aff_matches = 0i64;
        anti_matches.iter_mut().for_each(|n| *n = 0);
        for (j, p) in node.pods.iter().enumerate() {
            let row = first_row + j;
            // podMatchesAllAffinityTerms: false for no terms.
            if !terms.affinity.is_empty()
                && terms
                    .affinity
                    .iter()
                    .zip(&aff_m)
                    .all(|(t, m)| m.matches(t, &p.pod, row))
            {
                aff_matches += 1;
            }
            for (i, (t, m)) in terms.anti_affinity.iter().zip(&anti_m).enumerate() {
                if m.matches(t, &p.pod, row) {
                    anti_matches[i] += 1;
                }
            }
        }
        w.affinity_matches += aff_matches;
        if aff_matches > 0 {
            for (t, c) in terms.affinity.iter().zip(&keys.affinity) {
                keys.add(&mut affinity, *c, &t.topology_key, ni, aff_matches);
            }
        }
        for (i, t) in terms.anti_affinity.iter().enumerate() {
            if anti_matches[i] == 0 {
                continue;
            }
            let m = &anti_m[i];
            let names = node
                .pods
                .iter()
                .enumerate()
                .filter(|(j, p)| m.matches(t, &p.pod, first_row + j))
                .map(|(_, p)| witness(p, node));
            if let MatchedPods::Listed(list) = &mut w.anti_pods[i] {
                list.extend(names);
            }
            keys.add(&mut anti, keys.anti_affinity[i], &t.topology_key, ni, anti_matches[i]);
        }
    }
    (affinity, anti)
}

/// The rows a term matches, from the table's label index (None: the term cannot be narrowed
/// and every pod must be tried).
fn term_candidates(m: &TermMatcher<'_>) -> Option<Vec<u32>> {
    match m {
        TermMatcher::Nothing => Some(Vec::new()),
        TermMatcher::Pod => None,
        TermMatcher::Table(table, c) => {
            let ns = (!c.all_namespaces).then_some(c.namespaces.as_slice());
            table.matching_rows(&c.reqs, ns)
        }
    }
}

/// [`incoming_counts_with`] from the label index: only the pods that can match a term are
/// visited, then counted per node and walked in node order as the full scan does (same
/// counts, same witnesses). None when a term cannot be narrowed.
fn indexed_counts(
    snap: &Snapshot,
    terms: &IncomingTerms,
    w: &mut Witnesses,
    shared: Option<&Arc<PodTable>>,
    aff_m: &[TermMatcher<'_>],
    anti_m: &[TermMatcher<'_>],
) -> Option<(TopologyCounts, TopologyCounts)> {
    if aff_m.iter().chain(anti_m).all(|m| matches!(m, TermMatcher::Nothing)) {
        return Some((TopologyCounts::default(), TopologyCounts::default()));
    }
    if aff_m.iter().chain(anti_m).all(|m| !matches!(m, TermMatcher::Table(..))) {
        return None;
    }
    let shared = shared?;
    let table: &PodTable = shared;
    // Affinity: a pod must match every term: the narrowest term's rows, checked against the
    // other terms.
    let aff_rows: Vec<u32> = if terms.affinity.is_empty() {
        Vec::new()
    } else {
        let lists: Vec<Vec<u32>> = aff_m.iter().map(term_candidates).collect::<Option<_>>()?;
        let narrowest = (0..lists.len()).min_by_key(|&i| lists[i].len()).unwrap_or(0);
        let mut lists = lists;
        let mut rows = std::mem::take(&mut lists[narrowest]);
        if terms.affinity.len() > 1 {
            rows.retain(|&r| {
                let p = &table.row_pod(r as usize).0.pod;
                terms
                    .affinity
                    .iter()
                    .zip(aff_m)
                    .enumerate()
                    .all(|(i, (t, m))| i == narrowest || m.matches(t, p, r as usize))
            });
        }
        rows
    };
    let anti_rows: Vec<Vec<u32>> = anti_m.iter().map(term_candidates).collect::<Option<_>>()?;
    let mut affinity = TopologyCounts::default();
    let mut anti = TopologyCounts::default();
    let keys = TermKeys::new(snap, terms);
    // Per node, in node order: the affinity matches, then each anti-affinity term's.
    let mut i_aff = 0;
    let mut i_anti = vec![0usize; anti_rows.len()];
    // Rows ascend node by node, so the next node is the least at the lists' cursors.
    let next_node = |i_aff: usize, i_anti: &[usize]| -> Option<usize> {
        std::iter::once(aff_rows.get(i_aff))
            .chain(anti_rows.iter().zip(i_anti).map(|(rows, &i)| rows.get(i)))
            .flatten()
            .map(|&r| table.row_node(r as usize))
            .min()
    };
    while let Some(ni) = next_node(i_aff, &i_anti) {
        let take = |rows: &[u32], at: &mut usize| -> std::ops::Range<usize> {
            let start = *at;
            while *at < rows.len() && table.row_node(rows[*at] as usize) == ni {
                *at += 1;
            }
            start..*at
        };
        let aff_matches = take(&aff_rows, &mut i_aff).len() as i64;
        w.affinity_matches += aff_matches;
        if aff_matches > 0 {
            for (t, c) in terms.affinity.iter().zip(&keys.affinity) {
                keys.add(&mut affinity, *c, &t.topology_key, ni, aff_matches);
            }
        }
        for (i, t) in terms.anti_affinity.iter().enumerate() {
            let range = take(&anti_rows[i], &mut i_anti[i]);
            if range.is_empty() {
                continue;
            }
            keys.add(
                &mut anti,
                keys.anti_affinity[i],
                &t.topology_key,
                ni,
                range.len() as i64,
            );
        }
    }
    for (dst, rows) in w.anti_pods.iter_mut().zip(anti_rows) {
        *dst = MatchedPods::Rows(shared.clone(), rows);
    }
    Some((affinity, anti))
}

/// Builds the PreFilter state (None for Skip).
#[cfg(test)]
pub(crate) fn build_state(snap: &Snapshot, pod: &PodInfo) -> Option<PreFilterState> {
    build_state_with(snap, pod, None)
}

/// Builds the PreFilter state (None for Skip), matching the incoming pod's terms on the pod
/// table when given one.
pub(crate) fn build_state_with(
    snap: &Snapshot,
    pod: &PodInfo,
    table: Option<&Arc<PodTable>>,
) -> Option<PreFilterState> {
    let ns = &snap.cluster.namespaces;
    let affinity: Vec<MergedTerm> = pod.required_affinity().iter().map(|t| MergedTerm::new(t, ns)).collect();
    let anti_affinity: Vec<MergedTerm> = pod
        .required_anti_affinity()
        .iter()
        .map(|t| MergedTerm::new(t, ns))
        .collect();
    let matches_own_affinity = matches_all(&affinity, &pod.pod);
    let terms = IncomingTerms {
        affinity,
        anti_affinity,
        matches_own_affinity,
    };
    let namespace_labels = snap.namespace_labels(&pod.pod.key.namespace).clone();
    let mut w = Witnesses {
        anti_pods: (0..terms.anti_affinity.len()).map(|_| MatchedPods::default()).collect(),
        ..Default::default()
    };
    let existing = existing_anti_affinity_counts(snap, &pod.pod, &namespace_labels, &mut w);
    let (aff, anti) = incoming_counts_with(snap, &terms, &mut w, table);
    if existing.is_empty() && terms.affinity.is_empty() && terms.anti_affinity.is_empty() {
        return None;
    }
    let mut s = PreFilterState {
        existing_anti_affinity: existing,
        affinity: aff,
        anti_affinity: anti,
        terms: Arc::new(terms),
        namespace_labels: Arc::new(namespace_labels),
        witnesses: Arc::new(w),
        by_columns: None,
    };
    s.by_columns = Some(Arc::new(CountedValues::new(&s, &snap.node_labels)));
    Some(s)
}

fn missing_state() -> Status {
    Status::error(format!("error reading {PRE_FILTER_KEY:?} from cycleState: not found"))
}

/// `satisfyPodAffinity`.
fn satisfy_pod_affinity(s: &PreFilterState, labels: &Labels) -> bool {
    let mut pods_exist = true;
    for t in &s.terms.affinity {
        match labels.get(&t.topology_key) {
            Some(v) => {
                if s.affinity.get(&t.topology_key, v) <= 0 {
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
fn satisfy_pod_anti_affinity(s: &PreFilterState, labels: &Labels) -> bool {
    if s.anti_affinity.is_empty() {
        return true;
    }
    !s.terms.anti_affinity.iter().any(|t| {
        labels
            .get(&t.topology_key)
            .is_some_and(|v| s.anti_affinity.get(&t.topology_key, v) > 0)
    })
}

/// `satisfyExistingPodsAntiAffinity`: no pair of the node's labels is counted. Walks the
/// counted topology keys (few) instead of the node's labels (many); same pairs either way.
fn satisfy_existing_pods_anti_affinity(s: &PreFilterState, labels: &Labels) -> bool {
    if s.existing_anti_affinity.is_empty() {
        return true;
    }
    !s.existing_anti_affinity
        .keys()
        .any(|k| labels.get(k).is_some_and(|v| s.existing_anti_affinity.get(k, v) > 0))
}

/// The Filter verdict on a node given the state.
pub(crate) fn filter_with_state(s: &PreFilterState, labels: &Labels) -> Status {
    if !satisfy_pod_affinity(s, labels) {
        return affinity_rules_not_match();
    }
    if !satisfy_pod_anti_affinity(s, labels) {
        return anti_affinity_rules_not_match();
    }
    if !satisfy_existing_pods_anti_affinity(s, labels) {
        return existing_anti_affinity_rules_not_match();
    }
    Status::success()
}

/// [`filter_with_state`]; `at`: the snapshot's label columns and the node's position in them
/// (the same verdict, read from the columns when the state's counts are tabled on them).
pub(crate) fn filter_with_state_at(s: &PreFilterState, at: Option<(&LabelColumns, usize)>, labels: &Labels) -> Status {
    if let (Some(c), Some((cols, i))) = (&s.by_columns, at)
        && c.stamp == cols.stamp()
    {
        return c.filter(s, cols, i);
    }
    filter_with_state(s, labels)
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
pub(crate) fn failure_detail(s: &PreFilterState, labels: &Labels) -> Vec<String> {
    let mut out = Vec::new();
    let w = &s.witnesses;
    if !satisfy_pod_affinity(s, labels) {
        for (i, t) in s.terms.affinity.iter().enumerate() {
            let tk = &t.topology_key;
            match labels.get(tk) {
                None => out.push(format!(
                    "required pod affinity term {i}: the node has no label '{tk}' (its topologyKey)"
                )),
                Some(v) if s.affinity.get(tk, v) <= 0 => {
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
    if !satisfy_pod_anti_affinity(s, labels) {
        for (i, t) in s.terms.anti_affinity.iter().enumerate() {
            let tk = &t.topology_key;
            let Some(v) = labels.get(tk) else { continue };
            if s.anti_affinity.get(tk, v) <= 0 {
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
    if !satisfy_existing_pods_anti_affinity(s, labels) {
        for k in s.existing_anti_affinity.keys_sorted() {
            let Some(v) = labels.get(k) else { continue };
            if s.existing_anti_affinity.get(k, v) <= 0 {
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
        let table = self.pods.get(cx.snapshot);
        match build_state_with(cx.snapshot, pod, table.as_ref()) {
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

    fn add_pod(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, add: &PodInfo, node: &NodeInfo) -> Status {
        let Some(s) = state.read_mut::<Arc<PreFilterState>>(PRE_FILTER_KEY) else {
            return missing_state();
        };
        Arc::make_mut(s).update_with_pod(&pod.pod, add, &node.node.labels, 1);
        Status::success()
    }

    fn remove_pod(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, rm: &PodInfo, node: &NodeInfo) -> Status {
        let Some(s) = state.read_mut::<Arc<PreFilterState>>(PRE_FILTER_KEY) else {
            return missing_state();
        };
        Arc::make_mut(s).update_with_pod(&pod.pod, rm, &node.node.labels, -1);
        Status::success()
    }
}

impl FilterPlugin for InterPodAffinity {
    fn filter(&self, cx: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> Status {
        match state.read::<Arc<PreFilterState>>(PRE_FILTER_KEY) {
            Some(s) => filter_with_state_at(s, cx.snapshot.node_columns(node), &node.node.labels),
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
        failure_detail(self, &node.labels)
    }
}

#[cfg(test)]
#[path = "filtering_tests.rs"]
mod tests;
