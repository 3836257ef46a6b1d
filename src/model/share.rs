//! Sharing equal lists made by one loader: a pod's labels and requests are nearly always those
//! of many other pods (one ReplicaSet, one template), so the loader keeps one list of each and
//! clones it (a reference count) instead of allocating another. The loader owns the
//! [`super::Interner`] (one per piece of a parallel read) and drops it with the load: what a read
//! makes depends only on what that loader read before it, never on which thread ran last, and
//! nothing is kept once the load is done.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::Hash;

/// How many distinct lists an interner keeps per kind before it starts afresh (so a loader
/// that reads a long stream of different lists does not keep them all).
pub(crate) const PER_KIND: usize = 4096;

/// The value in `set` (an interner's) equal to `value` (compared as a `K`: a list as its
/// entries, a value as itself) if one was made lately, else `make(value)`, kept in `set` for the
/// next equal one.
pub(crate) fn share<T, V, K>(set: &mut HashSet<T>, value: V, make: impl FnOnce(V) -> T) -> T
where
    T: Borrow<K> + Hash + Eq + Clone,
    V: Borrow<K>,
    K: Hash + Eq + ?Sized,
{
    share_up_to(set, value, make, PER_KIND)
}

/// [`share`] keeping up to `cap` values (for a kind with as many values as a cluster has
/// nodes, each shared by the few pods of one node).
pub(crate) fn share_up_to<T, V, K>(set: &mut HashSet<T>, value: V, make: impl FnOnce(V) -> T, cap: usize) -> T
where
    T: Borrow<K> + Hash + Eq + Clone,
    V: Borrow<K>,
    K: Hash + Eq + ?Sized,
{
    if let Some(t) = set.get(value.borrow()) {
        return t.clone();
    }
    if set.len() >= cap {
        set.clear();
    }
    let t = make(value);
    set.insert(t.clone());
    t
}

/// How many distinct values of a kind that has no hash an interner keeps ([`share_recent`]):
/// they are compared one by one.
pub(crate) const RECENT: usize = 32;

/// The value in `recent` (an interner's) equal to `value` if one was kept lately, else a copy
/// of `value` in a new `Arc`, kept in `recent` (the oldest let go past [`RECENT`]).
pub(crate) fn share_recent<T: PartialEq + Clone>(recent: &mut Vec<std::sync::Arc<T>>, value: &T) -> std::sync::Arc<T> {
    if let Some(t) = recent.iter().find(|t| ***t == *value) {
        return t.clone();
    }
    if recent.len() >= RECENT {
        recent.remove(0);
    }
    let t = std::sync::Arc::new(value.clone());
    recent.push(t.clone());
    t
}
