//! The pods of a snapshot as one interned table (not upstream: upstream walks every pod's
//! label map): labels, namespaces and terminating flags laid out node by node, and an
//! inverted index from (namespace, label) to the pods holding it. Built once per snapshot
//! (`Snapshot::new`), so a cold explanation costs what a warm one does, and asked through
//! two questions: the pods matching a pod affinity term, node by node
//! ([`pods_matching_all`], InterPodAffinity), and `countPodsMatchSelector` on a node
//! ([`PodCounter`], PodTopologySpread). Each answers as the walk over every pod does (the
//! walk is what they do without a table).
//!
//! Pods bound after the table was built (a simulation's or `fit`'s placements, which only add
//! pods to nodes) leave it valid for the pods it holds: each node's first pods are its rows,
//! and the pods after them are matched one by one ([`PodTable::added`]), so a placement does
//! not cost a table built again or a walk over every pod. A pod leaving a node drops it.

use std::sync::Arc;

use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::model::selector::{Op, Selector};
use crate::model::{Cluster, Node, Pod};

/// FNV-1a, for the string interner of [`PodTable`] (short label strings, no untrusted
/// adversary: the snapshot is the user's own).
#[derive(Default)]
pub(crate) struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let h = if self.0 == 0 {
            crate::model::FNV1A_OFFSET
        } else {
            self.0
        };
        self.0 = crate::model::fnv1a(h, bytes);
    }
}

/// A `HashMap` hasher for short strings of the user's own snapshot ([`Fnv`]).
pub(crate) type FnvBuild = std::hash::BuildHasherDefault<Fnv>;

/// A selector compiled against a [`PodTable`]: label keys and values as interned ids.
#[derive(Clone, Debug)]
pub(crate) enum CompiledSelector {
    /// Matches nothing.
    Nothing,
    /// All requirements must hold.
    Reqs(Vec<CompiledReq>),
    /// The selector uses an operator the table cannot evaluate: count with the selector.
    Fallback,
}

/// One compiled requirement.
#[derive(Clone, Debug)]
pub(crate) struct CompiledReq {
    key: Option<u32>,
    op: Op,
    values: Vec<u32>,
}

/// The top bit of a row's namespace id: the pod is terminating.
const TERMINATING: u32 = 1 << 31;

/// The labels, namespaces and terminating flags of every pod on every node of a snapshot,
/// interned and laid out node by node (each distinct label set once, as the pods of a
/// template share theirs), so counting the pods a selector matches touches contiguous memory
/// instead of every pod's label map. Built once per cluster.
#[derive(Debug, Default)]
pub(crate) struct PodTable {
    strings: std::collections::HashMap<String, u32, std::hash::BuildHasherDefault<Fnv>>,
    node_start: Vec<u32>,
    /// Each row's namespace id, [`TERMINATING`] set when its pod is terminating.
    row_ns: Vec<u32>,
    /// Each row's label set: an index into `label_sets`.
    row_set: Vec<u32>,
    /// Each distinct label set (the pods of a template have one): where its labels are in
    /// `labels`, sorted by key.
    label_sets: Vec<(u32, u32)>,
    labels: Vec<(u32, u32)>,
    /// The node of each row.
    row_node: Vec<u32>,
    /// (namespace, label key, label value) → the rows holding that label, ascending: an
    /// inverted index, so a selector with an `In` requirement visits only the pods that can
    /// match it instead of every pod of the cluster.
    postings: std::collections::HashMap<(u32, u32, u32), Vec<u32>, std::hash::BuildHasherDefault<Fnv>>,
    /// The namespace ids that hold at least one pod, ascending.
    namespaces: Vec<u32>,
    /// The pod of each row, and the node of each node index: what a row names.
    pods: Vec<Arc<PodInfo>>,
    nodes: Vec<Arc<Node>>,
}

impl PodTable {
    /// The labels of a label set, sorted by key.
    fn set_labels(&self, set: u32) -> &[(u32, u32)] {
        let (start, end) = self.label_sets[set as usize];
        &self.labels[start as usize..end as usize]
    }

    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.strings.get(s) {
            return id;
        }
        let id = self.strings.len() as u32;
        self.strings.insert(s.to_string(), id);
        id
    }

    /// Builds the table from the snapshot's nodes: the rows and their labels first, then each
    /// posting list at its final length (lists grown by doubling cost their copies' pages).
    pub(crate) fn build(nodes: &[NodeInfo]) -> Self {
        let pods: usize = nodes.iter().map(|n| n.pods.len()).sum();
        let mut t = PodTable {
            node_start: Vec::with_capacity(nodes.len() + 1),
            row_ns: Vec::with_capacity(pods),
            row_set: Vec::with_capacity(pods),
            row_node: Vec::with_capacity(pods),
            pods: Vec::with_capacity(pods),
            nodes: nodes.iter().map(|n| n.node.clone()).collect(),
            ..Default::default()
        };
        t.node_start.push(0);
        let mut last_ns: Option<(&str, u32)> = None;
        // How many rows hold each (namespace, key, value).
        let mut sizes: std::collections::HashMap<(u32, u32, u32), u32, FnvBuild> = Default::default();
        // The label sets met so far (the pods of a template share theirs), by their text.
        let mut sets: std::collections::HashMap<&crate::model::Labels, u32, FnvBuild> = Default::default();
        for n in nodes {
            for p in &n.pods {
                let name = p.pod.key.namespace.as_str();
                let ns = match last_ns {
                    Some((s, id)) if s == name => id,
                    _ => {
                        let id = t.intern(name);
                        last_ns = Some((name, id));
                        id
                    }
                };
                let set = match sets.get(&p.pod.labels) {
                    Some(&set) => set,
                    None => {
                        let start = t.labels.len();
                        for (k, v) in &p.pod.labels {
                            let (k, v) = (t.intern(k), t.intern(v));
                            t.labels.push((k, v));
                        }
                        t.labels[start..].sort_unstable();
                        let set = t.label_sets.len() as u32;
                        t.label_sets.push((start as u32, t.labels.len() as u32));
                        sets.insert(&p.pod.labels, set);
                        set
                    }
                };
                t.row_set.push(set);
                for &(k, v) in t.set_labels(set) {
                    *sizes.entry((ns, k, v)).or_default() += 1;
                }
                t.row_node.push(t.node_start.len() as u32 - 1);
                if !t.namespaces.contains(&ns) {
                    t.namespaces.push(ns);
                }
                t.row_ns.push(if p.pod.terminating { ns | TERMINATING } else { ns });
                t.pods.push(p.clone());
            }
            t.node_start.push(t.row_ns.len() as u32);
        }
        drop(sets);
        t.postings.reserve(sizes.len());
        for (key, n) in sizes {
            t.postings.insert(key, Vec::with_capacity(n as usize));
        }
        let (postings, sets, labels) = (&mut t.postings, &t.label_sets, &t.labels);
        for (row, (&set, &ns)) in t.row_set.iter().zip(&t.row_ns).enumerate() {
            let ns = ns & !TERMINATING;
            let (start, end) = sets[set as usize];
            for &(k, v) in &labels[start as usize..end as usize] {
                if let Some(list) = postings.get_mut(&(ns, k, v)) {
                    list.push(row as u32);
                }
            }
        }
        t.namespaces.sort_unstable();
        t
    }

    /// The rows in the namespaces `ns` (None: every namespace) whose labels satisfy `reqs`,
    /// ascending. None when no `In` requirement narrows the search (every row would have to
    /// be tried).
    pub(crate) fn matching_rows(&self, reqs: &[CompiledReq], ns: Option<&[u32]>) -> Option<Vec<u32>> {
        let (mut rows, chosen) = self.candidates(reqs, ns)?;
        // The candidates satisfy the chosen requirement and the namespaces already.
        let rest: Vec<CompiledReq> = reqs
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != chosen)
            .map(|(_, r)| r.clone())
            .collect();
        if !rest.is_empty() {
            rows.retain(|&r| self.row_matches(r as usize, &rest));
        }
        Some(rows)
    }

    /// The rows that can satisfy `reqs` in the namespaces `ns` (None: every namespace),
    /// ascending: the postings of the `In` requirement that names the fewest pods (its index
    /// in `reqs`; None when a requirement names a key no pod has, so nothing matches). None
    /// when no `In` requirement narrows the search (every row is a candidate).
    fn candidates(&self, reqs: &[CompiledReq], ns: Option<&[u32]>) -> Option<(Vec<u32>, Option<usize>)> {
        let all = self.namespaces.as_slice();
        let ns = ns.unwrap_or(all);
        let mut best: Option<(usize, usize, &CompiledReq)> = None;
        for (i, r) in reqs.iter().enumerate().filter(|(_, r)| r.op == Op::In) {
            let Some(k) = r.key else {
                return Some((Vec::new(), None));
            };
            let n: usize = ns
                .iter()
                .flat_map(|&n| r.values.iter().map(move |&v| (n, k, v)))
                .filter_map(|key| self.postings.get(&key).map(Vec::len))
                .sum();
            if best.is_none_or(|(m, _, _)| n < m) {
                best = Some((n, i, r));
            }
        }
        let (n, i, r) = best?;
        let k = r.key?;
        let lists: Vec<&[u32]> = ns
            .iter()
            .flat_map(|&nsid| r.values.iter().map(move |&v| (nsid, k, v)))
            .filter_map(|key| self.postings.get(&key).map(Vec::as_slice))
            .collect();
        Some((merge_disjoint(lists, n), Some(i)))
    }

    /// How many rows (pods) the table holds.
    pub(crate) fn rows(&self) -> usize {
        self.row_ns.len()
    }

    /// The pod of a row and the node it runs on.
    pub(crate) fn row_pod(&self, row: usize) -> (&Arc<PodInfo>, &Arc<Node>) {
        (&self.pods[row], &self.nodes[self.row_node[row] as usize])
    }

    /// The node index of a row.
    pub(crate) fn row_node(&self, row: usize) -> usize {
        self.row_node[row] as usize
    }

    /// Whether the pod of a row is terminating.
    pub(crate) fn row_terminating(&self, row: usize) -> bool {
        self.row_ns[row] & TERMINATING != 0
    }

    /// `countPodsMatchSelector` on every node at once (index = node index), when the compiled
    /// selector has an `In` requirement to narrow the search; None otherwise.
    pub(crate) fn counts_per_node(&self, compiled: &CompiledSelector, ns: &str) -> Option<Vec<i64>> {
        let nodes = self.node_start.len() - 1;
        let reqs = match compiled {
            CompiledSelector::Nothing => return Some(vec![0; nodes]),
            CompiledSelector::Fallback => return None,
            CompiledSelector::Reqs(r) => r,
        };
        let Some(&nsid) = self.strings.get(ns) else {
            return Some(vec![0; nodes]);
        };
        let rows = self.matching_rows(reqs, Some(&[nsid]))?;
        let mut counts = vec![0i64; nodes];
        for row in rows {
            if !self.row_terminating(row as usize) {
                counts[self.row_node[row as usize] as usize] += 1;
            }
        }
        Some(counts)
    }

    /// Whether the table holds the first pods of each of these nodes, the pods added since
    /// coming after them (see [`PodTables::appended`]: the snapshot keeps a table only while
    /// pods are only added to its nodes).
    pub(crate) fn covers(&self, nodes: &[NodeInfo]) -> bool {
        self.node_start.len() == nodes.len() + 1
            && nodes
                .iter()
                .enumerate()
                .all(|(i, n)| (self.node_start[i + 1] - self.node_start[i]) as usize <= n.pods.len())
    }

    /// The pods of `nodes` added after the table was built, node by node in node order (the
    /// node's index and its pods after its rows); empty when there are none.
    pub(crate) fn added<'a>(&self, nodes: &'a [NodeInfo]) -> Vec<(usize, &'a [Arc<PodInfo>])> {
        let total: usize = nodes.iter().map(|n| n.pods.len()).sum();
        if total == self.rows() {
            return Vec::new();
        }
        nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| {
                let held = self.node_rows(i).len();
                (n.pods.len() > held).then(|| (i, &n.pods[held..]))
            })
            .collect()
    }

    /// Whether the table still describes these nodes (same number of nodes and of pods on each).
    pub(crate) fn fits(&self, nodes: &[NodeInfo]) -> bool {
        self.node_start.len() == nodes.len() + 1
            && nodes
                .iter()
                .enumerate()
                .all(|(i, n)| (self.node_start[i + 1] - self.node_start[i]) as usize == n.pods.len())
    }

    /// Compiles a selector.
    pub(crate) fn compile(&self, s: &Selector) -> CompiledSelector {
        match s {
            Selector::Nothing => CompiledSelector::Nothing,
            Selector::Requirements(reqs) => {
                let mut out = Vec::with_capacity(reqs.len());
                for r in reqs {
                    if matches!(r.op, Op::Gt | Op::Lt) {
                        return CompiledSelector::Fallback;
                    }
                    out.push(CompiledReq {
                        key: self.strings.get(&r.key).copied(),
                        op: r.op,
                        values: r.values.iter().filter_map(|v| self.strings.get(v).copied()).collect(),
                    });
                }
                CompiledSelector::Reqs(out)
            }
        }
    }

    fn row_matches(&self, row: usize, reqs: &[CompiledReq]) -> bool {
        let labels = self.set_labels(self.row_set[row]);
        reqs.iter().all(|r| {
            let v = r
                .key
                .and_then(|k| labels.iter().find(|(lk, _)| *lk == k).map(|(_, v)| *v));
            match r.op {
                Op::In => v.is_some_and(|v| r.values.contains(&v)),
                Op::NotIn => v.is_none_or(|v| !r.values.contains(&v)),
                Op::Exists => v.is_some(),
                Op::DoesNotExist => v.is_none(),
                Op::Gt | Op::Lt => false,
            }
        })
    }

    /// The id of an interned string (None when no pod uses it).
    pub(crate) fn id(&self, s: &str) -> Option<u32> {
        self.strings.get(s).copied()
    }

    /// The rows of the node at `node_idx`, in the order of its `pods`.
    pub(crate) fn node_rows(&self, node_idx: usize) -> std::ops::Range<usize> {
        self.node_start[node_idx] as usize..self.node_start[node_idx + 1] as usize
    }

    /// The namespace id of a row.
    pub(crate) fn row_ns(&self, row: usize) -> u32 {
        self.row_ns[row] & !TERMINATING
    }

    /// Whether the labels of a row satisfy every compiled requirement (terminating or not).
    pub(crate) fn row_labels_match(&self, row: usize, reqs: &[CompiledReq]) -> bool {
        self.row_matches(row, reqs)
    }
}

/// The snapshot's pod table: the one built with the snapshot, or after its pods changed
/// (`snapshot_update`) one built again, once counting passes keep asking for it.
#[derive(Debug, Default)]
pub(crate) struct PodTables {
    /// Built with the snapshot; None once its pods changed.
    built: Option<Arc<PodTable>>,
    /// Pods added since `built` was built ([`PodTables::appended`]), which counting passes
    /// walk one by one.
    added: usize,
    /// Built after a change, for the cluster it was built from.
    cache: Arc<PodTableCache>,
}

impl PodTables {
    /// The table built with a snapshot.
    pub(crate) fn new(table: PodTable) -> Self {
        PodTables {
            built: Some(Arc::new(table)),
            added: 0,
            cache: Arc::default(),
        }
    }

    /// The same after the snapshot's pods changed: the table is built again when needed.
    pub(crate) fn changed(&self) -> Self {
        PodTables {
            built: None,
            added: 0,
            cache: self.cache.clone(),
        }
    }

    /// The same after `n` pods were only added (bound or assumed, or created pending; none
    /// removed): the table built with the snapshot still holds each node's first pods, the
    /// added ones come after them ([`PodTable::added`]).
    pub(crate) fn appended(&self, n: usize) -> Self {
        PodTables {
            built: self.built.clone(),
            added: self.added + n,
            cache: self.cache.clone(),
        }
    }

    /// Whether both hold the same table (or none).
    #[cfg(test)]
    pub(crate) fn same_table(&self, other: &PodTables) -> bool {
        match (&self.built, &other.built) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        }
    }

    /// Whether the table should be built again: more pods were added since it was built than
    /// are worth walking one by one at each counting pass (a placement's passes walk them
    /// several times; building a table costs about two walks of all its rows). A table
    /// built again holds each node's pods in the same order as the old one followed by the
    /// added ones, so every count and every list of pods is the same either way.
    pub(crate) fn worth_rebuilding(&self) -> bool {
        self.built
            .as_ref()
            .is_some_and(|t| self.added > t.rows() / REBUILD_AFTER_ONE_IN + REBUILD_AFTER_AT_LEAST)
    }

    /// The table of the snapshot (`cluster`, `nodes`): the one built with it (which may hold
    /// only each node's first pods, see [`PodTables::appended`]); after a change, None for the
    /// first counting passes (which count pod by pod), then one built again and reused while
    /// the cluster and its pods per node are the same.
    pub(crate) fn get(&self, cluster: &Arc<Cluster>, nodes: &[NodeInfo]) -> Option<Arc<PodTable>> {
        match &self.built {
            Some(t) => Some(t.clone()),
            None => self.cache.get(cluster, nodes),
        }
    }
}

/// The table is built again once the pods added since it was built exceed one in this many
/// of its rows ...
const REBUILD_AFTER_ONE_IN: usize = 128;
/// ... plus this many (a small cluster's table is rebuilt after a few binds).
const REBUILD_AFTER_AT_LEAST: usize = 8;

/// A [`PodTable`] cached for the cluster it was built from. The `Weak` keeps the cluster's
/// allocation, so no other cluster can take its address while it is cached.
#[derive(Debug, Default)]
struct PodTableCache {
    slot: std::sync::Mutex<CacheSlot>,
}

type CacheSlot = Option<(std::sync::Weak<Cluster>, u32, Option<Arc<PodTable>>)>;

/// Counting passes over a cluster made pod by pod before the table is built: building it
/// costs about two such passes, and one explanation makes one or two.
const PASSES_BEFORE_TABLE: u32 = 2;

impl PodTableCache {
    fn get(&self, cluster: &Arc<Cluster>, nodes: &[NodeInfo]) -> Option<Arc<PodTable>> {
        let mut slot = self.slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let same = slot
            .as_ref()
            .is_some_and(|(w, _, _)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(cluster)));
        if !same {
            *slot = Some((Arc::downgrade(cluster), 1, None));
            return None;
        }
        if let Some((_, passes, table)) = slot.as_mut() {
            if let Some(t) = table
                && t.fits(nodes)
            {
                return Some(t.clone());
            }
            if *passes < PASSES_BEFORE_TABLE {
                *passes += 1;
                return None;
            }
        }
        let t = Arc::new(PodTable::build(nodes));
        *slot = Some((Arc::downgrade(cluster), PASSES_BEFORE_TABLE, Some(t.clone())));
        Some(t)
    }
}

/// A pod (anti-)affinity term as the index matches pods against it: its label selector and
/// the namespaces it looks in (None: every namespace).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PodTerm<'a> {
    pub(crate) selector: &'a Selector,
    pub(crate) namespaces: Option<&'a std::collections::BTreeSet<String>>,
}

impl PodTerm<'_> {
    /// Whether the pod is in one of the term's namespaces and its labels match the selector.
    pub(crate) fn matches(&self, pod: &Pod) -> bool {
        // Most pods fail the selector: test it before the namespace.
        self.selector.matches(&pod.labels) && self.namespaces.is_none_or(|n| n.contains(pod.key.namespace.as_str()))
    }
}

/// A [`PodTerm`] compiled against a [`PodTable`].
enum TermMatcher {
    /// Evaluated on the pod itself (the table cannot evaluate the selector).
    Pod,
    /// Matches no pod.
    Nothing,
    /// Evaluated on the interned row.
    Table {
        reqs: Vec<CompiledReq>,
        namespaces: Option<Vec<u32>>,
    },
}

impl TermMatcher {
    fn new(table: &PodTable, t: &PodTerm<'_>) -> Self {
        match table.compile(t.selector) {
            CompiledSelector::Fallback => TermMatcher::Pod,
            CompiledSelector::Nothing => TermMatcher::Nothing,
            CompiledSelector::Reqs(reqs) => TermMatcher::Table {
                reqs,
                namespaces: t.namespaces.map(|ns| ns.iter().filter_map(|n| table.id(n)).collect()),
            },
        }
    }

    /// `t.matches` for the pod at `row` of the table.
    fn matches(&self, table: &PodTable, t: &PodTerm<'_>, row: usize) -> bool {
        match self {
            TermMatcher::Pod => t.matches(&table.row_pod(row).0.pod),
            TermMatcher::Nothing => false,
            TermMatcher::Table { reqs, namespaces } => {
                table.row_labels_match(row, reqs)
                    && namespaces.as_ref().is_none_or(|ns| ns.contains(&table.row_ns(row)))
            }
        }
    }

    /// The rows the term matches, from the table's label index (None: the term cannot be
    /// narrowed and every row must be tried).
    fn candidates(&self, table: &PodTable) -> Option<Vec<u32>> {
        match self {
            TermMatcher::Nothing => Some(Vec::new()),
            TermMatcher::Pod => None,
            TermMatcher::Table { reqs, namespaces } => table.matching_rows(reqs, namespaces.as_deref()),
        }
    }
}

/// Pods found by the index, in node order, each with its node: listed, or as rows of the pod
/// table they were found in (kept as found: no pod is touched until one is named).
#[derive(Debug)]
pub(crate) enum MatchedPods {
    /// The pods with their nodes.
    Listed(Vec<(Arc<PodInfo>, Arc<Node>)>),
    /// Rows of a pod table.
    Rows(Arc<PodTable>, Vec<u32>),
}

impl Default for MatchedPods {
    fn default() -> Self {
        MatchedPods::Listed(Vec::new())
    }
}

impl MatchedPods {
    /// Calls `f` with each row's node index, pod and node, in order (rows of a table only:
    /// what [`table_matching_all`] finds).
    fn for_each_row(&self, mut f: impl FnMut(usize, &Arc<PodInfo>, &Arc<Node>)) {
        if let MatchedPods::Rows(t, rows) = self {
            for &r in rows {
                let (p, n) = t.row_pod(r as usize);
                f(t.row_node(r as usize), p, n);
            }
        }
    }

    /// Calls `f` with each pod and its node, in order.
    pub(crate) fn for_each(&self, mut f: impl FnMut(&Arc<PodInfo>, &Arc<Node>)) {
        match self {
            MatchedPods::Listed(v) => v.iter().for_each(|(p, n)| f(p, n)),
            MatchedPods::Rows(t, rows) => rows.iter().for_each(|&r| {
                let (p, n) = t.row_pod(r as usize);
                f(p, n);
            }),
        }
    }
}

/// The pods of the snapshot's nodes that match every one of some terms.
#[derive(Debug, Default)]
pub(crate) struct PodMatches {
    /// Per node holding any, in node order: the node's index and how many.
    pub(crate) per_node: Vec<(usize, i64)>,
    /// The pods, in node order (when asked for).
    pub(crate) pods: MatchedPods,
}

/// The pods on `nodes` (the snapshot's, `table` its pod table if any) that match all of
/// `terms` (none when there are no terms), node by node; `keep` keeps the pods themselves.
pub(crate) fn pods_matching_all(
    nodes: &[NodeInfo],
    table: Option<&Arc<PodTable>>,
    terms: &[PodTerm<'_>],
    keep: bool,
) -> PodMatches {
    if terms.is_empty() {
        return PodMatches::default();
    }
    let Some(table) = table.filter(|t| t.covers(nodes)) else {
        return walk(nodes, terms, keep);
    };
    let held = table_matching_all(table, terms, keep);
    // the pods added after the table was built, matched one by one
    let added: Vec<(usize, Vec<&Arc<PodInfo>>)> = table
        .added(nodes)
        .into_iter()
        .map(|(i, pods)| {
            (
                i,
                pods.iter()
                    .filter(|p| terms.iter().all(|t| t.matches(&p.pod)))
                    .collect::<Vec<_>>(),
            )
        })
        .filter(|(_, found)| !found.is_empty())
        .collect();
    if added.is_empty() {
        return held;
    }
    // both in node order: each node's rows, then its added pods
    let mut per_node: Vec<(usize, i64)> = Vec::new();
    let (mut a, mut b) = (held.per_node.iter().peekable(), added.iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(&&(i, n)), Some((j, found))) if i == *j => {
                a.next();
                b.next();
                (i, n + found.len() as i64)
            }
            (Some(&&(i, n)), Some((j, _))) if i < *j => {
                a.next();
                (i, n)
            }
            (Some(&&(i, n)), None) => {
                a.next();
                (i, n)
            }
            (_, Some((j, found))) => {
                let x = (*j, found.len() as i64);
                b.next();
                x
            }
            (None, None) => break,
        };
        per_node.push(next);
    }
    let pods = if keep {
        let mut listed: Vec<(Arc<PodInfo>, Arc<Node>)> = Vec::new();
        let mut rest = added.iter().peekable();
        let mut push_added = |upto: Option<usize>, listed: &mut Vec<(Arc<PodInfo>, Arc<Node>)>| {
            while let Some((j, found)) = rest.next_if(|(j, _)| upto.is_none_or(|u| *j < u)) {
                listed.extend(found.iter().map(|p| ((*p).clone(), nodes[*j].node.clone())));
            }
        };
        let mut last: Option<usize> = None;
        held.pods.for_each_row(|row_node, p, n| {
            if last != Some(row_node) {
                if let Some(l) = last {
                    push_added(Some(l + 1), &mut listed);
                }
                push_added(Some(row_node), &mut listed);
                last = Some(row_node);
            }
            listed.push((p.clone(), n.clone()));
        });
        push_added(None, &mut listed);
        MatchedPods::Listed(listed)
    } else {
        MatchedPods::default()
    };
    PodMatches { per_node, pods }
}

/// [`pods_matching_all`] on the pods the table holds.
fn table_matching_all(table: &Arc<PodTable>, terms: &[PodTerm<'_>], keep: bool) -> PodMatches {
    let m: Vec<TermMatcher> = terms.iter().map(|t| TermMatcher::new(table, t)).collect();
    if m.iter().any(|m| matches!(m, TermMatcher::Nothing)) {
        return PodMatches::default();
    }
    // The narrowest term's candidate rows, checked against the other terms; every row when no
    // term narrows the search.
    let lists: Vec<(usize, Vec<u32>)> = m
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.candidates(table).map(|rows| (i, rows)))
        .collect();
    let narrowest = lists.into_iter().min_by_key(|(_, rows)| rows.len());
    let (chosen, mut rows) = match narrowest {
        Some((i, rows)) => (Some(i), rows),
        None => (None, (0..table.rows() as u32).collect()),
    };
    rows.retain(|&r| {
        m.iter()
            .zip(terms)
            .enumerate()
            .all(|(i, (m, t))| Some(i) == chosen || m.matches(table, t, r as usize))
    });
    let mut per_node: Vec<(usize, i64)> = Vec::new();
    for &r in &rows {
        let n = table.row_node(r as usize);
        match per_node.last_mut() {
            Some((last, count)) if *last == n => *count += 1,
            _ => per_node.push((n, 1)),
        }
    }
    let pods = if keep {
        MatchedPods::Rows(table.clone(), rows)
    } else {
        MatchedPods::default()
    };
    PodMatches { per_node, pods }
}

/// [`pods_matching_all`] pod by pod.
fn walk(nodes: &[NodeInfo], terms: &[PodTerm<'_>], keep: bool) -> PodMatches {
    let mut out = PodMatches::default();
    let mut listed = Vec::new();
    for (ni, node) in nodes.iter().enumerate() {
        let mut n = 0;
        for p in &node.pods {
            if terms.iter().all(|t| t.matches(&p.pod)) {
                n += 1;
                if keep {
                    listed.push((p.clone(), node.node.clone()));
                }
            }
        }
        if n > 0 {
            out.per_node.push((ni, n));
        }
    }
    out.pods = MatchedPods::Listed(listed);
    out
}

/// `countPodsMatchSelector`: the pods of the namespace, not terminating, that the selector
/// matches (a selector that matches nothing counts nothing; the release's own rule for an
/// empty selector is the caller's, PodTopologySpread's `counting_selector`).
pub(crate) fn count_matching(pods: &[Arc<PodInfo>], selector: &Selector, ns: &str) -> i64 {
    pods.iter()
        .filter(|p| !p.pod.terminating && p.pod.key.namespace == ns && selector.matches(&p.pod.labels))
        .count() as i64
}

/// `countPodsMatchSelector` of some selectors in one namespace on the snapshot's nodes: from
/// the pod table with the selectors compiled once (every node at once when a selector can be
/// narrowed), or pod by pod.
#[derive(Debug)]
pub(crate) struct PodCounter {
    table: Option<Arc<PodTable>>,
    selectors: Vec<(Selector, CompiledSelector)>,
    ns: String,
    /// Per selector, the count of every node when the table computed them at once.
    per_node: Vec<Option<Vec<i64>>>,
}

impl PodCounter {
    /// A counter of `selectors` in the namespace `ns`; `table`: the snapshot's pod table.
    pub(crate) fn new<'a>(
        table: Option<Arc<PodTable>>,
        selectors: impl Iterator<Item = &'a Selector>,
        ns: &str,
    ) -> Self {
        let selectors: Vec<(Selector, CompiledSelector)> = selectors
            .map(|s| {
                let compiled = table.as_ref().map_or(CompiledSelector::Fallback, |t| t.compile(s));
                (s.clone(), compiled)
            })
            .collect();
        let per_node = selectors
            .iter()
            .map(|(_, compiled)| table.as_ref().and_then(|t| t.counts_per_node(compiled, ns)))
            .collect();
        PodCounter {
            table,
            selectors,
            ns: ns.to_string(),
            per_node,
        }
    }

    /// The matching pods of selector `i` on `node`, the snapshot's node at `at` (None: a node
    /// that is not the snapshot's, counted pod by pod).
    pub(crate) fn count(&self, node: &NodeInfo, at: Option<usize>, i: usize) -> i64 {
        let (sel, _) = &self.selectors[i];
        let (Some(at), Some(table)) = (at, &self.table) else {
            return count_matching(&node.pods, sel, &self.ns);
        };
        // the node's pods added after the table was built, counted one by one
        let held = table.node_rows(at).len();
        let added = node.pods.get(held..).map_or(0, |p| count_matching(p, sel, &self.ns));
        added + self.held_count(table, at, i)
    }

    /// [`PodCounter::count`] of the pods the table holds on the node at `at`.
    fn held_count(&self, table: &PodTable, at: usize, i: usize) -> i64 {
        let (sel, compiled) = &self.selectors[i];
        if let Some(Some(counts)) = self.per_node.get(i)
            && let Some(&n) = counts.get(at)
        {
            return n;
        }
        let reqs = match compiled {
            CompiledSelector::Nothing => return 0,
            CompiledSelector::Fallback => {
                let rows = table.node_rows(at);
                return rows
                    .filter(|&r| {
                        let p = &table.row_pod(r).0.pod;
                        !p.terminating && p.key.namespace == self.ns && sel.matches(&p.labels)
                    })
                    .count() as i64;
            }
            CompiledSelector::Reqs(r) => r,
        };
        let Some(ns) = table.id(&self.ns) else {
            return 0;
        };
        table
            .node_rows(at)
            .filter(|&r| !table.row_terminating(r) && table.row_ns(r) == ns && table.row_labels_match(r, reqs))
            .count() as i64
    }
}

/// The union of ascending lists that share no element (posting lists of distinct namespaces,
/// or of distinct values of one key: a pod has one value per key), ascending, `n` elements in
/// all: merged two by two, smallest first, so each step is linear.
fn merge_disjoint(mut lists: Vec<&[u32]>, n: usize) -> Vec<u32> {
    match lists.len() {
        0 => return Vec::new(),
        1 => return lists[0].to_vec(),
        _ => {}
    }
    lists.sort_by_key(|l| l.len());
    let mut out: Vec<u32> = Vec::with_capacity(n);
    out.extend_from_slice(lists[0]);
    let mut next: Vec<u32> = Vec::with_capacity(n);
    for l in &lists[1..] {
        next.clear();
        let (a, b) = (out.as_slice(), *l);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i] < b[j] {
                next.push(a[i]);
                i += 1;
            } else {
                next.push(b[j]);
                j += 1;
            }
        }
        next.extend_from_slice(&a[i..]);
        next.extend_from_slice(&b[j..]);
        std::mem::swap(&mut out, &mut next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::merge_disjoint;
    use proptest::prelude::*;

    #[test]
    fn merge_disjoint_interleaves_ascending_lists() {
        let (a, b, c) = ([1, 5, 9], [2, 3, 10, 11], [0, 4]);
        assert_eq!(merge_disjoint(vec![&a, &b, &c], 9), vec![0, 1, 2, 3, 4, 5, 9, 10, 11]);
        assert_eq!(merge_disjoint(vec![&b], 4), vec![2, 3, 10, 11]);
        assert_eq!(merge_disjoint(vec![], 0), Vec::<u32>::new());
        assert_eq!(merge_disjoint(vec![&[], &a], 3), vec![1, 5, 9]);
    }

    proptest! {
        /// Splitting a set of rows into ascending lists at random and merging them gives the
        /// set back, ascending.
        #[test]
        fn merge_disjoint_is_the_sorted_union(
            rows in proptest::collection::btree_set(0u32..5000, 0..300),
            cuts in proptest::collection::vec(0usize..6, 0..300),
        ) {
            let mut lists: Vec<Vec<u32>> = vec![Vec::new(); 6];
            for (k, r) in rows.iter().enumerate() {
                lists[cuts.get(k).copied().unwrap_or(0)].push(*r);
            }
            let slices: Vec<&[u32]> = lists.iter().map(Vec::as_slice).collect();
            let want: Vec<u32> = rows.iter().copied().collect();
            prop_assert_eq!(merge_disjoint(slices, want.len()), want);
        }
    }
}
