//! Work over the nodes of a cycle spread across the machine's cores (upstream's
//! `parallelize.Until` with its 16 workers): the results come back in the order of the input,
//! so the answer is the same as a walk in order, only sooner.

use rayon::prelude::*;

/// Below this many items a walk in order is cheaper than handing out work.
const MIN_ITEMS: usize = 256;

/// The fewest items a worker takes at once (a node's plugins take about a microsecond).
const MIN_CHUNK: usize = 128;

/// `f` of every item, in the order of `items`; on this thread when `serial`.
pub(crate) fn map<T: Sync, R: Send>(serial: bool, items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    if serial || items.len() < MIN_ITEMS {
        return items.iter().map(f).collect();
    }
    items.par_iter().with_min_len(MIN_CHUNK).map(f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_input_order_at_every_size() {
        for n in [0, 1, MIN_ITEMS - 1, MIN_ITEMS, 10 * MIN_CHUNK + 7] {
            let items: Vec<usize> = (0..n).collect();
            let expected: Vec<usize> = items.iter().map(|i| i * 3 + 1).collect();
            assert_eq!(map(false, &items, |i| i * 3 + 1), expected, "{n} items");
            assert_eq!(map(true, &items, |i| i * 3 + 1), expected, "{n} items, serial");
        }
    }
}
