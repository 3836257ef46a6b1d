//! Counts per topology pair (a label key and a value some node has), kept by the pair's ids in
//! the snapshot's label columns: what upstream keeps in `map[topologyPair]int64`
//! (InterPodAffinity, [`PairCounts`]) or `map[string]int` per key (PodTopologySpread,
//! [`ValueCounts`]), read per node with no string hashed.

use std::sync::Arc;

use super::labels::LabelColumns;

/// A node's value of a label key, as ids in the snapshot's label columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Pair {
    pub(crate) column: u32,
    pub(crate) value: u32,
}

/// The value id of a value no node of the snapshot has (a node that is not the snapshot's):
/// counted nowhere.
pub(crate) const FOREIGN: u32 = u32::MAX;

/// The counts of the values of one key, by value id. A value is entered when first counted
/// (with 0 too: PodTopologySpread's domains), and left when [`ValueCounts::add_or_remove`]
/// brings it to 0 (InterPodAffinity's pairs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ValueCounts {
    counts: Vec<Option<i64>>,
    entered: usize,
}

impl ValueCounts {
    /// Counts for the values of a column of `values` distinct values.
    pub(crate) fn new(values: usize) -> Self {
        ValueCounts {
            counts: vec![None; values],
            entered: 0,
        }
    }

    /// The count of a value (0 when not entered).
    #[inline]
    pub(crate) fn get(&self, value: u32) -> i64 {
        self.counts.get(value as usize).copied().flatten().unwrap_or(0)
    }

    /// Whether the value is entered.
    #[inline]
    pub(crate) fn has(&self, value: u32) -> bool {
        self.counts.get(value as usize).is_some_and(Option::is_some)
    }

    /// Adds `n` to a value, entering it (with `n`, even 0) when first seen; the new count.
    pub(crate) fn add(&mut self, value: u32, n: i64) -> i64 {
        let Some(slot) = self.counts.get_mut(value as usize) else {
            return n;
        };
        match slot {
            Some(c) => {
                *c += n;
                *c
            }
            None => {
                *slot = Some(n);
                self.entered += 1;
                n
            }
        }
    }

    /// Adds `n` to a value and leaves it out when its count comes to 0.
    pub(crate) fn add_or_remove(&mut self, value: u32, n: i64) {
        if n == 0 {
            return;
        }
        if self.add(value, n) == 0 {
            self.counts[value as usize] = None;
            self.entered -= 1;
        }
    }

    /// How many values the counts hold room for (the column's values).
    pub(crate) fn capacity(&self) -> usize {
        self.counts.len()
    }

    /// How many values are entered.
    pub(crate) fn len(&self) -> usize {
        self.entered
    }

    /// The entered values with their counts, by id.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, i64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter_map(|(id, c)| c.map(|c| (id as u32, c)))
    }

    /// Adds another piece's counts (each value entered in either is entered).
    pub(crate) fn merge(&mut self, other: &ValueCounts) {
        for (id, n) in other.iter() {
            self.add(id, n);
        }
    }
}

/// Counts per topology pair, pairs at 0 left out (`topologyToMatchedTermCount`).
#[derive(Clone, Debug)]
pub(crate) struct PairCounts {
    labels: Arc<LabelColumns>,
    /// Per column with a pair counted: its counts.
    keys: Vec<(u32, ValueCounts)>,
}

impl PartialEq for PairCounts {
    fn eq(&self, other: &Self) -> bool {
        self.pairs() == other.pairs()
    }
}

impl Eq for PairCounts {}

impl PairCounts {
    /// No pair counted, on the snapshot's label columns.
    pub(crate) fn new(labels: &Arc<LabelColumns>) -> Self {
        PairCounts {
            labels: labels.clone(),
            keys: Vec::new(),
        }
    }

    /// Adds `delta` to a pair (a pair of a node that is not the snapshot's is not counted).
    pub(crate) fn add(&mut self, pair: Pair, delta: i64) {
        if delta == 0 || pair.value == FOREIGN {
            return;
        }
        let i = match self.keys.iter().position(|(c, _)| *c == pair.column) {
            Some(i) => i,
            None => {
                let values = self.labels.column_by_index(pair.column).len_values();
                self.keys.push((pair.column, ValueCounts::new(values)));
                self.keys.len() - 1
            }
        };
        let counts = &mut self.keys[i].1;
        counts.add_or_remove(pair.value, delta);
        if counts.len() == 0 {
            self.keys.swap_remove(i);
        }
    }

    /// The count of a pair.
    #[inline]
    pub(crate) fn get(&self, pair: Pair) -> i64 {
        self.keys
            .iter()
            .find(|(c, _)| *c == pair.column)
            .map_or(0, |(_, counts)| counts.get(pair.value))
    }

    /// The count of a pair by its key and value (for the trace).
    pub(crate) fn get_named(&self, key: &str, value: &str) -> i64 {
        let Some((column, col)) = self.labels.column_at(key) else {
            return 0;
        };
        col.id_of(value).map_or(0, |value| self.get(Pair { column, value }))
    }

    /// Whether no pair is counted.
    pub(crate) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The columns with a pair counted.
    pub(crate) fn columns(&self) -> impl Iterator<Item = u32> + '_ {
        self.keys.iter().map(|(c, _)| *c)
    }

    /// The keys with a pair counted, sorted.
    pub(crate) fn keys_sorted(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.keys.iter().map(|(c, _)| self.labels.key_name(*c)).collect();
        v.sort_unstable();
        v
    }

    /// Every pair counted, by name, sorted.
    pub(crate) fn pairs(&self) -> Vec<(&str, &str, i64)> {
        let mut v: Vec<(&str, &str, i64)> = self
            .keys
            .iter()
            .flat_map(|(c, counts)| {
                let col = self.labels.column_by_index(*c);
                let key = self.labels.key_name(*c);
                counts.iter().map(move |(id, n)| (key, col.value(id), n))
            })
            .collect();
        v.sort_unstable();
        v
    }

    /// [`PairCounts::pairs`] owned.
    #[cfg(test)]
    pub(crate) fn sorted(&self) -> Vec<(String, String, i64)> {
        self.pairs()
            .into_iter()
            .map(|(k, v, n)| (k.to_string(), v.to_string(), n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::framework::index::IndexedNode;
    use crate::model::selector::tests::labels;

    fn node(name: &str, pairs: &[(&str, &str)]) -> crate::model::Node {
        let obj = serde_json::from_value(serde_json::json!({
            "metadata": {"name": name, "labels": pairs.iter().copied().collect::<std::collections::BTreeMap<_, _>>()},
        }))
        .expect("node");
        crate::model::Node::from_obj(obj).expect("model")
    }

    /// Pairs at 0 are left out, as upstream deletes them from its map.
    #[test]
    fn pair_counts_drop_zero_pairs() {
        let nodes = [labels(&[("zone", "z1")]), labels(&[("zone", "z2")])];
        let cols = Arc::new(LabelColumns::build(nodes.iter()));
        let (z1, z2) = (
            cols.column("zone").unwrap().id_of("z1").unwrap(),
            cols.column("zone").unwrap().id_of("z2").unwrap(),
        );
        let column = cols.column_at("zone").unwrap().0;
        let mut c = PairCounts::new(&cols);
        c.add(Pair { column, value: z1 }, 2);
        c.add(Pair { column, value: z2 }, 1);
        c.add(Pair { column, value: z1 }, -2);
        assert_eq!(c.sorted(), vec![("zone".into(), "z2".into(), 1)]);
        assert_eq!(
            (
                c.get_named("zone", "z2"),
                c.get_named("zone", "z9"),
                c.get_named("x", "z2")
            ),
            (1, 0, 0)
        );
        c.add(Pair { column, value: z2 }, -1);
        assert!(c.is_empty());
        c.add(Pair { column, value: z1 }, 0);
        c.add(Pair { column, value: FOREIGN }, 3);
        assert!(c.is_empty());
    }

    /// A node read by position and a copy read from its labels have the same pairs; a value no
    /// node of the snapshot has is a pair counted nowhere.
    #[test]
    fn a_copy_has_the_pairs_of_its_position() {
        let nodes = [
            node("a", &[("zone", "z1"), ("host", "a")]),
            node("b", &[("zone", "z2")]),
            node("c", &[]),
        ];
        let cols = LabelColumns::build(nodes.iter().map(|n| &n.labels));
        for key in ["zone", "host", "rack"] {
            let k = cols.key(key);
            for (i, n) in nodes.iter().enumerate() {
                let at = IndexedNode::at(&cols, n, i).pair(&k);
                assert_eq!(at, IndexedNode::copy(&cols, n).pair(&k), "{key} on {}", n.name);
                assert_eq!(at, IndexedNode::copy(&cols, n).pair_named(key), "{key} on {}", n.name);
                let value = at.map(|p| cols.column_by_index(p.column).value(p.value));
                assert_eq!(value, n.labels.get(key).map(String::as_str), "{key} on {}", n.name);
            }
        }
        let stranger = node("d", &[("zone", "z9")]);
        let p = IndexedNode::copy(&cols, &stranger)
            .pair(&cols.key("zone"))
            .expect("has the key");
        assert_eq!(p.value, FOREIGN);
        let mut v = ValueCounts::new(2);
        assert_eq!((v.add(p.value, 4), v.get(p.value), v.len()), (4, 0, 0));
    }

    /// Values are entered when first counted, with 0 too; merged pieces add up.
    #[test]
    fn value_counts_enter_values_and_merge() {
        let mut a = ValueCounts::new(3);
        a.add(0, 0);
        a.add(2, 5);
        let mut b = ValueCounts::new(3);
        b.add(2, 1);
        b.add(1, 2);
        a.merge(&b);
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![(0, 0), (1, 2), (2, 6)]);
        assert_eq!((a.len(), a.has(0), a.get(0)), (3, true, 0));
        a.add_or_remove(1, -2);
        assert_eq!((a.len(), a.has(1)), (2, false));
    }
}
