//! The snapshot's pods by key, keyed by the pod's own key.
//!
//! A `BTreeMap<ObjectKey, Arc<PodInfo>>` held a copy of every pod's namespace and name beside
//! the pointer (two strings and a 56-byte entry per pod, and two string copies per pod while
//! the snapshot is built). Here the infos themselves are kept in
//! one list sorted by their pods' keys and searched by halving: 8 bytes a pod, where a
//! `BTreeSet` of them took about 14 in its nodes and a list of them again while it was built.
//! Inserting a pod that is not in yet or removing one moves the entries after it (a what-if or
//! a watched change, not once per pod of a snapshot, and moving pointers is cheap); replacing a pod's info, as binding and assuming do, is a search.

use std::fmt;
use std::sync::Arc;

use super::node_info::PodInfo;
use crate::model::ObjectKey;

/// The pods' infos by their pods' keys (a map's reading API: get, index, insert, remove, keys,
/// values, len).
#[derive(Clone, Default)]
pub struct PodInfos(Vec<Arc<PodInfo>>);

impl PodInfos {
    /// Where the pod with this key is, or would go.
    fn find(&self, key: &ObjectKey) -> Result<usize, usize> {
        self.0.binary_search_by(|pi| pi.pod.key.cmp(key))
    }

    /// The info of the pod with this key.
    pub fn get(&self, key: &ObjectKey) -> Option<&Arc<PodInfo>> {
        self.find(key).ok().map(|i| &self.0[i])
    }

    /// Whether a pod with this key is in.
    pub fn contains_key(&self, key: &ObjectKey) -> bool {
        self.find(key).is_ok()
    }

    /// Adds the info under its pod's key, replacing the one there; returns the replaced one.
    pub fn insert(&mut self, info: Arc<PodInfo>) -> Option<Arc<PodInfo>> {
        match self.find(&info.pod.key) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i], info)),
            Err(i) => {
                self.0.insert(i, info);
                None
            }
        }
    }

    /// Takes out the info of the pod with this key.
    pub fn remove(&mut self, key: &ObjectKey) -> Option<Arc<PodInfo>> {
        self.find(key).ok().map(|i| self.0.remove(i))
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &ObjectKey> {
        self.0.iter().map(|pi| &pi.pod.key)
    }

    /// The infos, in their keys' order.
    pub fn values(&self) -> impl Iterator<Item = &Arc<PodInfo>> {
        self.0.iter()
    }

    /// How many pods.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::ops::Index<&ObjectKey> for PodInfos {
    type Output = Arc<PodInfo>;

    /// The info of the pod with this key; panics when there is none (as a map's index does).
    fn index(&self, key: &ObjectKey) -> &Arc<PodInfo> {
        match self.get(key) {
            Some(pi) => pi,
            None => panic!("no pod {key} in the snapshot"),
        }
    }
}

impl FromIterator<Arc<PodInfo>> for PodInfos {
    /// The infos by key (input in key order, as a snapshot's pods are, is not sorted again);
    /// of two with the same key the last one stays, as a map collects.
    fn from_iter<I: IntoIterator<Item = Arc<PodInfo>>>(iter: I) -> Self {
        let mut v: Vec<Arc<PodInfo>> = iter.into_iter().collect();
        if !v.is_sorted_by(|a, b| a.pod.key < b.pod.key) {
            v = crate::model::labels::sorted_last_wins(v.into_iter().map(|pi| (pi.pod.key.clone(), pi)).collect())
                .into_iter()
                .map(|(_, pi)| pi)
                .collect();
        }
        PodInfos(v)
    }
}

impl fmt::Debug for PodInfos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.iter().map(|pi| (&pi.pod.key, pi)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use k8s_openapi::api::core::v1 as core;
    use serde_json::json;

    use super::*;
    use crate::model::Pod;

    fn info(ns: &str, name: &str, node: &str) -> Arc<PodInfo> {
        let obj: core::Pod = serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": ns},
            "spec": {"nodeName": node, "containers": [{"name": "c"}]}
        }))
        .unwrap();
        Arc::new(PodInfo::new(Arc::new(Pod::from_obj(obj, |_| 0).unwrap()), false))
    }

    /// What the map it replaced gives for the same steps: (key, the info's node).
    fn view(s: &PodInfos) -> Vec<(ObjectKey, Option<crate::model::ThinStr>)> {
        s.values()
            .map(|pi| (pi.pod.key.clone(), pi.pod.node_name.clone()))
            .collect()
    }

    #[test]
    fn reads_and_changes_like_a_map_by_the_pods_keys() {
        let steps = [("b", "p", "n1"), ("a", "q", "n1"), ("b", "a", "n2"), ("a", "q", "n3")];
        let s: PodInfos = steps.iter().map(|(ns, n, node)| info(ns, n, node)).collect();
        let m: BTreeMap<ObjectKey, Arc<PodInfo>> = steps
            .iter()
            .map(|(ns, n, node)| (ObjectKey::new(*ns, *n), info(ns, n, node)))
            .collect();
        let mview: Vec<_> = m
            .values()
            .map(|pi| (pi.pod.key.clone(), pi.pod.node_name.clone()))
            .collect();
        // in key order, the last of two with the same key kept
        assert_eq!(view(&s), mview);
        assert_eq!(view(&s)[0], (ObjectKey::new("a", "q"), Some("n3".into())));
        assert_eq!(s.len(), 3);
        assert_eq!(
            s.keys().cloned().collect::<Vec<_>>(),
            m.keys().cloned().collect::<Vec<_>>()
        );
        let k = ObjectKey::new("b", "p");
        assert_eq!(s.get(&k).map(|pi| pi.pod.key.clone()), Some(k.clone()));
        assert_eq!(s[&k].pod.node_name.as_deref(), Some("n1"));
        assert!(s.get(&ObjectKey::new("b", "zz")).is_none());
        let mut s = s;
        let old = s.insert(info("b", "p", "n9")).unwrap();
        assert_eq!(old.pod.node_name.as_deref(), Some("n1"));
        assert_eq!(s[&k].pod.node_name.as_deref(), Some("n9"));
        assert!(s.insert(info("c", "r", "n1")).is_none());
        assert_eq!(s.remove(&k).map(|pi| pi.pod.key.clone()), Some(k.clone()));
        assert!(!s.contains_key(&k) && s.remove(&k).is_none());
        assert_eq!(
            s.keys().map(ToString::to_string).collect::<Vec<_>>(),
            ["a/q", "b/a", "c/r"]
        );
        assert!(!s.is_empty() && PodInfos::default().is_empty());
    }
}
