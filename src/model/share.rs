//! Sharing equal lists made on one thread: a pod's labels and requests are nearly always those
//! of many other pods (one ReplicaSet, one template), so the loader keeps one list of each and
//! clones it (a reference count) instead of allocating another.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::Hash;

/// How many distinct lists a thread keeps per kind before it starts afresh (so a thread that
/// reads a long stream of different lists does not keep them all).
pub(crate) const PER_THREAD: usize = 4096;

/// The value in `set` (a thread's own) equal to `value` (compared as a `K`: a list as its
/// entries, a value as itself) if one was made lately, else `make(value)`, kept in `set` for the
/// next equal one.
pub(crate) fn share<T, V, K>(set: &mut HashSet<T>, value: V, make: impl FnOnce(V) -> T) -> T
where
    T: Borrow<K> + Hash + Eq + Clone,
    V: Borrow<K>,
    K: Hash + Eq + ?Sized,
{
    share_up_to(set, value, make, PER_THREAD)
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

/// How many distinct values of a kind that has no hash a thread keeps ([`share_recent`]): they
/// are compared one by one.
pub(crate) const RECENT: usize = 32;

/// The value in `recent` (a thread's own) equal to `value` if one was kept lately, else a copy
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
