//! An immutable list shared by reference count behind one pointer: eight bytes where an
//! `Arc<[T]>` takes sixteen (its length lives in the allocation, triomphe's `ThinArc`), and no
//! allocation at all for an empty list.
//!
//! Every pod carries its labels and tolerations; at 100,000 pods the eight bytes saved on each
//! are what bring `Arc<Pod>` from mimalloc's 224-byte bin to its 192-byte one
//! (`model::size_tests`). It reads as the slice it holds (`Deref<Target = [T]>`), compares,
//! orders and hashes as that slice (so a set of lists can be searched with a slice, as
//! [`super::share::share`] does), and is made from a `Vec` or an iterator.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use triomphe::ThinArc;

/// An immutable shared list (see the module).
pub struct List<T>(Option<ThinArc<(), T>>);

impl<T> List<T> {
    /// No entries.
    pub const fn new() -> Self {
        List(None)
    }

    /// The entries.
    pub fn as_slice(&self) -> &[T] {
        match &self.0 {
            Some(a) => &a.slice,
            None => &[],
        }
    }

    /// Whether the two share one allocation (two empty lists do: neither has one).
    pub fn shares(&self, other: &List<T>) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => std::ptr::eq(a.ptr(), b.ptr()),
            (None, None) => true,
            _ => false,
        }
    }
}

impl<T> Default for List<T> {
    fn default() -> Self {
        List::new()
    }
}

impl<T> Clone for List<T> {
    fn clone(&self) -> Self {
        List(self.0.clone())
    }
}

impl<T> Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> Borrow<[T]> for List<T> {
    fn borrow(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> From<Vec<T>> for List<T> {
    fn from(v: Vec<T>) -> Self {
        if v.is_empty() {
            List(None)
        } else {
            List(Some(ThinArc::from_header_and_iter((), v.into_iter())))
        }
    }
}

impl<'a, T> IntoIterator for &'a List<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T> FromIterator<T> for List<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        iter.into_iter().collect::<Vec<T>>().into()
    }
}

impl<T: PartialEq> PartialEq for List<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq> Eq for List<T> {}

impl<T: PartialOrd> PartialOrd for List<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.as_slice().partial_cmp(other.as_slice())
    }
}

impl<T: Ord> Ord for List<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_slice().cmp(other.as_slice())
    }
}

/// The slice's hash, which [`Borrow<[T]>`] requires.
impl<T: Hash> Hash for List<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl<T: fmt::Debug> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::hash::BuildHasher;

    use super::*;

    #[test]
    fn a_list_is_one_pointer_and_an_empty_one_allocates_nothing() {
        assert_eq!(std::mem::size_of::<List<(String, String)>>(), 8);
        let empty: List<u32> = Vec::new().into();
        assert!(empty.0.is_none() && empty.is_empty() && empty.shares(&List::new()));
    }

    #[test]
    fn a_list_reads_compares_and_hashes_as_its_slice() {
        let a: List<u32> = vec![3, 1, 2].into();
        let b: List<u32> = [3, 1, 2].into_iter().collect();
        assert_eq!((&*a, a.len(), a[1]), (&[3, 1, 2][..], 3, 1));
        assert!(a == b && !a.shares(&b), "equal, two allocations");
        assert!(a.clone().shares(&a), "a clone shares");
        assert!(a < List::from(vec![3, 2]) && List::from(vec![3]) < a);
        let h = std::collections::hash_map::RandomState::new();
        assert_eq!(h.hash_one(&a), h.hash_one(&[3u32, 1, 2][..]));
        let set: HashSet<List<u32>> = [a.clone()].into_iter().collect();
        assert!(set.get(&[3u32, 1, 2][..]).is_some_and(|l| l.shares(&a)));
        assert_eq!(format!("{a:?}"), "[3, 1, 2]");
    }
}
