//! The pods of a snapshot as one interned table (not upstream: upstream walks every pod's
//! label map): labels, namespaces and terminating flags laid out node by node, and an
//! inverted index from (namespace, label) to the pods holding it. Built once per snapshot in
//! [`super::snapshot::Snapshot::new`] and shared by the plugins that count matching pods
//! (InterPodAffinity, PodTopologySpread), so a cold explanation costs what a warm one does.

use std::sync::Arc;

use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::model::Node;
use crate::model::selector::{Op, Selector};

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
    pub(crate) fn counts_per_node(
        &self,
        selector: &Selector,
        compiled: &CompiledSelector,
        ns: &str,
    ) -> Option<Vec<i64>> {
        let nodes = self.node_start.len() - 1;
        if selector.is_empty() {
            return Some(vec![0; nodes]);
        }
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
