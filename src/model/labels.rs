//! An object's labels: a map from key to value, held as one sorted allocation.
//!
//! Every pod carries its labels, and a pod has two or three. A `BTreeMap<String, String>`
//! puts even one label in a node with room for eleven (544 bytes), a sixth of a large
//! snapshot's heap. `Labels` keeps exactly its
//! entries in key order and reads like the map it replaces: `get`, `iter`, `keys`,
//! `contains_key`, iteration in key order, Debug and serialization as a map. Changes (`insert`,
//! `remove`) rebuild the list; they happen on what-if edits, not on every cycle.
//!
//! The list is shared: clones share it, and the pods read from a snapshot share the list of an
//! equal set of labels the loader read lately ([`Labels::shared`]). The pods of one
//! ReplicaSet carry the same labels: their own lists would be nearly all copies.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use serde::{Serialize, Serializer};

use super::list::List;

/// Labels of an object, in key order.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Labels(List<(String, String)>);

impl Labels {
    /// No labels.
    pub fn new() -> Self {
        Labels::default()
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&String> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    /// Whether `key` is set.
    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// The labels in key order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.0.iter())
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.0.iter().map(|(k, _)| k)
    }

    /// The values, in the order of their keys.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.0.iter().map(|(_, v)| v)
    }

    /// How many labels.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets `key` to `value`; the value it had, if any.
    pub fn insert(&mut self, key: String, value: String) -> Option<String> {
        let mut v = self.0.to_vec();
        let old = match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut v[i].1, value)),
            Err(i) => {
                v.insert(i, (key, value));
                None
            }
        };
        self.0 = v.into();
        old
    }

    /// Removes `key`; the value it had, if any.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        let i = self.find(key).ok()?;
        let mut v = self.0.to_vec();
        let (_, value) = v.remove(i);
        self.0 = v.into();
        Some(value)
    }

    /// The labels of `m`, sharing the list of an equal set the loader (`intern`) read lately
    /// instead of allocating another (for the objects of a snapshot, read by the thousand).
    pub fn shared(m: &BTreeMap<String, String>, pool: &mut HashSet<Labels>) -> Labels {
        if m.is_empty() {
            return Labels::default();
        }
        let entries: Vec<(String, String)> = m.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        super::share::share::<_, _, [_]>(pool, entries, |e| Labels(e.into()))
    }

    /// Whether the two share one list.
    #[cfg(test)]
    fn shares(&self, other: &Labels) -> bool {
        self.0.shares(&other.0)
    }
}

/// Lets the set of shared lists be searched with the entries of a list not made yet (the
/// derived `Hash` of `Labels` is that of its entries).
impl std::borrow::Borrow<[(String, String)]> for Labels {
    fn borrow(&self) -> &[(String, String)] {
        &self.0
    }
}

/// Iterator over labels in key order, as `(&key, &value)`.
#[derive(Clone, Debug)]
pub struct Iter<'a>(std::slice::Iter<'a, (String, String)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a String, &'a String);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Labels {
    type Item = (&'a String, &'a String);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl FromIterator<(String, String)> for Labels {
    /// In key order; of a repeated key the last value stays, as inserting into a map would.
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        Labels(sorted_last_wins(iter.into_iter().collect()).into())
    }
}

/// The entries sorted by key, one per key: of a repeated key the last one given, as inserting
/// them into a map one by one would leave.
pub(crate) fn sorted_last_wins<K: Ord, V>(mut v: Vec<(K, V)>) -> Vec<(K, V)> {
    // A stable sort keeps repeated keys in the order given; reversed, the last comes first
    // and dedup keeps it.
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v.reverse();
    v.dedup_by(|later, earlier| later.0 == earlier.0);
    v.reverse();
    v
}

impl From<BTreeMap<String, String>> for Labels {
    fn from(m: BTreeMap<String, String>) -> Self {
        // Already in key order, one entry per key.
        Labels(m.into_iter().collect())
    }
}

impl From<&BTreeMap<String, String>> for Labels {
    fn from(m: &BTreeMap<String, String>) -> Self {
        Labels(m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
    }
}

impl<const N: usize> From<[(String, String); N]> for Labels {
    fn from(items: [(String, String); N]) -> Self {
        items.into_iter().collect()
    }
}

impl fmt::Debug for Labels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Labels {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

/// What a selector reads of an object's labels: the model's [`Labels`], or the map a
/// k8s-openapi object (a PersistentVolume, a PodDisruptionBudget's pod) holds.
pub trait LabelSet {
    /// The value of `key`.
    fn label(&self, key: &str) -> Option<&str>;
}

impl LabelSet for Labels {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

impl LabelSet for BTreeMap<String, String> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(items: &[(&str, &str)]) -> BTreeMap<String, String> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    fn pairs(l: &Labels) -> Vec<(String, String)> {
        l.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// Built, changed and read, the labels say what the BTreeMap given the same steps says.
    #[test]
    fn labels_read_and_change_like_a_map() {
        let items = [("zone", "a"), ("app", "web"), ("tier", "x"), ("app", "api")];
        let mut l: Labels = items
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        let mut m = map(&items);
        assert_eq!(pairs(&l), pairs(&Labels::from(&m)));
        assert_eq!(l.get("app").map(String::as_str), Some("api"));
        assert_eq!(l.label("zone"), Some("a"));
        assert_eq!(l.get("missing"), None);
        assert!(l.contains_key("tier") && !l.contains_key("ti"));
        assert_eq!(
            l.keys().map(String::as_str).collect::<Vec<_>>(),
            ["app", "tier", "zone"]
        );
        assert_eq!(l.values().map(String::as_str).collect::<Vec<_>>(), ["api", "x", "a"]);
        assert_eq!((l.len(), l.is_empty(), Labels::new().is_empty()), (3, false, true));

        assert_eq!(l.insert("app".into(), "db".into()), m.insert("app".into(), "db".into()));
        assert_eq!(l.insert("b".into(), "1".into()), m.insert("b".into(), "1".into()));
        assert_eq!(l.remove("zone"), m.remove("zone"));
        assert_eq!(l.remove("zone"), m.remove("zone"));
        for (k, v) in [("a", "0"), ("tier", "y")] {
            assert_eq!(l.insert(k.into(), v.into()), m.insert(k.into(), v.into()));
        }
        assert_eq!(l, Labels::from(m.clone()));
        assert_eq!(
            pairs(&l),
            m.iter().map(|(k, v)| (k.clone(), v.clone())).collect::<Vec<_>>()
        );
        assert_eq!(format!("{l:?}"), format!("{m:?}"));
        assert_eq!(l.iter().next_back(), m.iter().next_back());
    }

    /// JSON and YAML write labels as the object's map, in key order.
    #[test]
    fn labels_serialize_as_a_map() {
        let l = Labels::from(map(&[("b", "2"), ("a", "1")]));
        assert_eq!(serde_json::to_string(&l).expect("json"), r#"{"a":"1","b":"2"}"#);
        assert_eq!(serde_yaml::to_string(&l).expect("yaml"), "a: '1'\nb: '2'\n");
    }

    /// Equal sets of labels read by one loader share one list; a change to one leaves the
    /// others as they were.
    #[test]
    fn equal_labels_read_by_a_loader_share_one_list_and_changes_stay_apart() {
        let mut intern = HashSet::new();
        let m = map(&[("app", "web"), ("pod-template-hash", "7c9f")]);
        let (mut a, b) = (Labels::shared(&m, &mut intern), Labels::shared(&m.clone(), &mut intern));
        assert!(a.shares(&b));
        let other = Labels::shared(&map(&[("app", "api")]), &mut intern);
        assert!(!other.shares(&a));
        assert_eq!(other.get("app").map(String::as_str), Some("api"));
        assert_eq!(a.insert("tier".into(), "front".into()), None);
        assert!(!a.shares(&b));
        assert_eq!(pairs(&b), pairs(&Labels::from(m.clone())));
        assert_eq!(a.get("tier").map(String::as_str), Some("front"));
        assert_eq!(b.get("tier"), None);
        assert_eq!(Labels::shared(&BTreeMap::new(), &mut intern), Labels::new());
        // Read by another loader (on this thread or any other): equal, a list of its own.
        let c = Labels::shared(&m, &mut HashSet::new());
        assert!(c == b && !c.shares(&b));
    }
}
