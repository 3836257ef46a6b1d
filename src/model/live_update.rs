//! A live store's changes applied to the cluster built from it, one object at a time
//! ([`ClusterState::update_cluster`]): what a watch event changed costs the work of that object
//! (a search of the sorted lists, a move of their tail when an object comes or goes), not a
//! build of the whole cluster ([`ClusterState::to_cluster`]).
//!
//! The [`Unapplied`] changes are noted as the events arrive, before the store applies them
//! (a FailedScheduling event's old version says which pod's list holds it), and applied when
//! the front end next shows the cluster. What cannot be applied one object at a time (a kind
//! listed again, a PriorityClass that changes the pods' priorities, an object the model
//! refuses, which the whole build words as an error) asks for the whole build.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::event::{ClusterEvent, ClusterState, Item, Kind};
use super::{Cluster, Interner, Labels, Node, Object, ObjectKey, Pod, SchedulingEvent, kinds};

/// How many changes an [`Unapplied`] keeps at least before it asks for the whole build; a
/// store of more objects keeps one per eight of them (a frozen view on a busy cluster would
/// otherwise keep a key per object).
const KEPT_AT_LEAST: usize = 1024;

/// Inserts and removals in one sorted list up to which each is made where it goes (a move of
/// the list's tail); more are merged into the list in one pass.
const ONE_BY_ONE: usize = 16;

/// The objects a store changed since a cluster was built from it, not yet applied to it.
#[derive(Clone, Debug, Default)]
pub struct Unapplied {
    /// The kinds and keys changed, with, for a FailedScheduling event, the pod its version in
    /// the cluster is about.
    keys: BTreeMap<(Kind, ObjectKey), Option<ObjectKey>>,
    /// The cluster must be built again whole.
    whole: bool,
}

impl Unapplied {
    /// Notes what `ev` changes in `state`; to be called before `state` applies it.
    pub fn note(&mut self, state: &ClusterState, ev: &ClusterEvent) {
        if self.whole {
            return;
        }
        match ev {
            ClusterEvent::Applied(item) | ClusterEvent::Deleted(item) => {
                let Some(kind) = item.kind() else { return };
                if kind == Kind::PriorityClass {
                    // every pod's priority may change with it
                    self.set_whole();
                    return;
                }
                let key = item.key();
                if !self.keys.contains_key(&(kind, key.clone())) {
                    let about = (kind == Kind::Event)
                        .then(|| state.item(kind, &key))
                        .flatten()
                        .and_then(event_pod);
                    self.keys.insert((kind, key), about);
                }
                if self.keys.len() > KEPT_AT_LEAST.max(state.len() / 8) {
                    self.set_whole();
                }
            }
            ClusterEvent::Resynced { .. } | ClusterEvent::Replaced { .. } => self.set_whole(),
            ClusterEvent::Bookmark { .. } | ClusterEvent::Stale { .. } | ClusterEvent::Resumed { .. } => {}
        }
    }

    /// The cluster is no longer the store's as of the last build (edited in memory, or never
    /// built from it): the next build is whole.
    pub fn set_whole(&mut self) {
        self.whole = true;
        self.keys.clear();
    }

    /// True when the next build must be whole.
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// How many objects changed.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        !self.whole && self.keys.is_empty()
    }
}

/// The pod a FailedScheduling event is about (None for any other object).
fn event_pod(item: &Item) -> Option<ObjectKey> {
    match item {
        Item::Object(Object::Event(e)) => SchedulingEvent::from_event(e).map(|r| r.pod),
        _ => None,
    }
}

/// An object of the cluster before a change and after it (None: absent).
pub type Change<T> = (Option<Arc<T>>, Option<Arc<T>>);

/// What [`ClusterState::update_cluster`] changed in the pods and nodes, for what is derived
/// from them (the TUI's usage per node).
#[derive(Clone, Debug, Default)]
pub struct Updated {
    /// Each pod changed: the cluster's version before, and after (None: absent).
    pub pods: Vec<Change<Pod>>,
    /// Each node changed: its name, whether the cluster had it before, and has it after.
    pub nodes: Vec<(String, bool, bool)>,
}

impl ClusterState {
    /// Applies `changes` (noted since `c` was built from this store by
    /// [`ClusterState::to_cluster`]) to `c`, one object at a time, so that `c` then equals the
    /// cluster `to_cluster` would build now, its warnings aside: they stay those of the last
    /// whole build (they number the objects by their place in the store, which every object
    /// added or removed changes). None when the changes must be applied by a whole build
    /// instead: `c` is then partly changed, to be replaced.
    pub fn update_cluster(&self, c: &mut Cluster, changes: &Unapplied) -> Option<Updated> {
        if changes.whole {
            return None;
        }
        let global_default = c.global_default_priority().unwrap_or(0);
        // what each change makes of the cluster, found before any is made: a change that
        // cannot be made one object at a time leaves the cluster as it was
        let mut pods = Vec::new();
        let mut nodes = Vec::new();
        let mut others = Vec::new();
        for ((kind, key), about) in &changes.keys {
            if key.name.is_empty() {
                // the whole build words the error, or names the unnamed event
                return None;
            }
            let item = self.item(*kind, key);
            match (kind, item) {
                (Kind::Pod, Some(item)) => {
                    let read = match item {
                        Item::Pod { pod, .. } => pod.clone(),
                        // kept typed (a snapshot's): read as the whole build reads it
                        Item::Object(Object::Pod(p)) => {
                            Pod::read(p.clone(), None, None, &mut Interner::default()).ok()?
                        }
                        // a pod the model refused: the whole build says why
                        Item::Object(_) | Item::Node { .. } => return None,
                    };
                    let pod = read.resolve(|class| match class {
                        Some(name) => c
                            .priority_classes
                            .get(name)
                            .map_or(global_default, |pc| pc.value.unwrap_or(0)),
                        None => global_default,
                    });
                    pods.push((key.clone(), Some(pod)));
                }
                (Kind::Pod, None) => pods.push((key.clone(), None)),
                (Kind::Node, Some(item)) => {
                    let node = match item {
                        Item::Node { node, .. } => node.clone(),
                        Item::Object(Object::Node(n)) => {
                            Arc::new(Node::read((**n).clone(), None, None, &mut Interner::default()).ok()?)
                        }
                        Item::Object(_) | Item::Pod { .. } => return None,
                    };
                    nodes.push((key.clone(), Some(node)));
                }
                (Kind::Node, None) => nodes.push((key.clone(), None)),
                (Kind::Namespace, Some(Item::Object(Object::Namespace(n)))) => {
                    let labels = n.metadata.labels.clone().map(Labels::from).unwrap_or_default();
                    others.push(Other::Namespace(key, Some(labels)));
                }
                (Kind::Namespace, None) => others.push(Other::Namespace(key, None)),
                (Kind::Event, Some(Item::Object(Object::Event(e)))) => {
                    others.push(Other::Event(
                        key,
                        about.as_ref(),
                        SchedulingEvent::from_event(e).map(Box::new),
                    ));
                }
                (Kind::Event, None) => others.push(Other::Event(key, about.as_ref(), None)),
                (_, Some(Item::Object(o))) if kinds::kept_as_is(*kind) => others.push(Other::Put(key, o)),
                (_, None) if kinds::kept_as_is(*kind) => others.push(Other::Remove(*kind, key)),
                _ => return None,
            }
        }
        for o in others {
            match o {
                Other::Namespace(key, Some(labels)) => {
                    c.namespaces.insert(key.name.to_string(), labels);
                }
                Other::Namespace(key, None) => {
                    c.namespaces.remove(key.name.as_str());
                }
                Other::Event(key, about, new) => update_event(c, key, about, new),
                Other::Put(key, o) => {
                    // kept as it is (checked above): stored
                    let _stored = kinds::replace(c, key.clone(), o.clone());
                    if o.kind() == Some(Kind::StorageClass)
                        && let Some(s) = c.storage_classes.get_mut(key.name.as_str())
                        && s.volume_binding_mode.is_none()
                    {
                        s.volume_binding_mode = Some("Immediate".into());
                    }
                }
                Other::Remove(kind, key) => {
                    kinds::unstore(c, kind, key);
                }
            }
        }
        let names: Vec<String> = nodes.iter().map(|(k, _)| k.name.to_string()).collect();
        let nodes = apply_sorted(
            &mut c.nodes,
            nodes,
            |n, k| n.name.as_str().cmp(k.name.as_str()),
            ONE_BY_ONE,
        )
        .into_iter()
        .zip(names)
        .map(|((before, after), name)| (name, before.is_some(), after.is_some()))
        .collect();
        let pods = apply_sorted(&mut c.pods, pods, |p, k| p.key.cmp(k), ONE_BY_ONE);
        c.events_unreadable = self.unreadable.get(&Kind::Event).cloned();
        c.not_served.clone_from(&self.not_served);
        c.dra_version.clone_from(&self.dra_version);
        Some(Updated { pods, nodes })
    }
}

/// A change to an object of another kind than pods and nodes.
enum Other<'a> {
    /// A namespace's labels, or None: gone.
    Namespace(&'a ObjectKey, Option<Labels>),
    /// A FailedScheduling event: the pod its old version was about, its new version.
    Event(&'a ObjectKey, Option<&'a ObjectKey>, Option<Box<SchedulingEvent>>),
    /// An object kept as it is in its cluster field.
    Put(&'a ObjectKey, &'a Object),
    /// An object kept as it is, gone.
    Remove(Kind, &'a ObjectKey),
}

/// Moves the FailedScheduling event `key` from the list of the pod it was about (`about`) to
/// the place of its new version (`new`) in its pod's list, newest first as the build orders
/// them.
fn update_event(c: &mut Cluster, key: &ObjectKey, about: Option<&ObjectKey>, new: Option<Box<SchedulingEvent>>) {
    if let Some(pod) = about
        && let Some(list) = c.scheduling_events.get_mut(pod)
    {
        list.retain(|e| e.key != *key);
        if list.is_empty() {
            c.scheduling_events.remove(pod);
        }
    }
    if let Some(e) = new.map(|e| *e) {
        let order = |a: &SchedulingEvent, b: &SchedulingEvent| b.when().cmp(&a.when()).then_with(|| a.key.cmp(&b.key));
        let list = c.scheduling_events.entry(e.pod.clone()).or_default();
        let at = list.partition_point(|x| order(x, &e) == Ordering::Less);
        list.insert(at, e);
    }
}

/// Applies `changes` (sorted by key, each the new version or None for gone) to `list`, sorted by
/// key (`cmp` compares an element with a key); returns each change's element before and after,
/// in the order of `changes`. Up to `one_by_one` inserts and removals are made where they go;
/// more are merged in one pass.
fn apply_sorted<T>(
    list: &mut Vec<Arc<T>>,
    changes: Vec<(ObjectKey, Option<Arc<T>>)>,
    cmp: impl Fn(&T, &ObjectKey) -> Ordering,
    one_by_one: usize,
) -> Vec<Change<T>> {
    let find = |list: &[Arc<T>], k: &ObjectKey| list.binary_search_by(|x| cmp(x, k));
    let mut out = Vec::with_capacity(changes.len());
    let mut moves = 0;
    for (k, new) in &changes {
        let before = find(list, k).ok().map(|i| list[i].clone());
        moves += usize::from(before.is_some() != new.is_some());
        out.push((before, new.clone()));
    }
    if moves <= one_by_one {
        for (k, new) in changes {
            match (find(list, &k), new) {
                (Ok(i), Some(n)) => list[i] = n,
                (Ok(i), None) => {
                    list.remove(i);
                }
                (Err(i), Some(n)) => list.insert(i, n),
                (Err(_), None) => {}
            }
        }
        return out;
    }
    // one pass over the list, its elements moved, not cloned
    let old = std::mem::take(list);
    list.reserve_exact(old.len() + moves);
    let mut rest = old.into_iter().peekable();
    for (k, new) in changes {
        while let Some(x) = rest.next_if(|x| cmp(x, &k) == Ordering::Less) {
            list.push(x);
        }
        let _replaced = rest.next_if(|x| cmp(x, &k) == Ordering::Equal);
        list.extend(new);
    }
    list.extend(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest::proptest! {
        #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

        /// Made one by one or merged, the changes leave the list a map of the same changes
        /// gives, and report each element before and after.
        #[test]
        fn sorted_changes_one_by_one_or_merged(
            start in proptest::collection::btree_set(0u8..40, 0..30),
            changes in proptest::collection::btree_map(0u8..40, proptest::option::of(100u32..200), 0..30),
        ) {
            let key = |k: u8| ObjectKey::new("ns", format!("k{k:02}"));
            let element = |k: u8, v: u32| Arc::new((key(k), v));
            let mut expected: BTreeMap<ObjectKey, u32> = start.iter().map(|&k| (key(k), u32::from(k))).collect();
            let mut before = Vec::new();
            for (&k, v) in &changes {
                before.push((expected.get(&key(k)).copied(), *v));
                match v {
                    Some(v) => expected.insert(key(k), *v),
                    None => expected.remove(&key(k)),
                };
            }
            for one_by_one in [0, usize::MAX] {
                let mut list: Vec<Arc<(ObjectKey, u32)>> = start.iter().map(|&k| element(k, u32::from(k))).collect();
                let ch = changes.iter().map(|(&k, v)| (key(k), v.map(|v| element(k, v)))).collect();
                let out = apply_sorted(&mut list, ch, |x, k| x.0.cmp(k), one_by_one);
                let got: Vec<(ObjectKey, u32)> = list.iter().map(|x| (**x).clone()).collect();
                let want: Vec<(ObjectKey, u32)> = expected.clone().into_iter().collect();
                prop_assert_eq!(got, want);
                let reported: Vec<(Option<u32>, Option<u32>)> =
                    out.iter().map(|(b, a)| (b.as_ref().map(|x| x.1), a.as_ref().map(|x| x.1))).collect();
                prop_assert_eq!(&reported, &before);
            }
        }
    }
}
