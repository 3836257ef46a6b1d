//! Work over the nodes of a cycle spread across the machine's cores (upstream's
//! `parallelize.Until`): the items are cut into one contiguous piece per core and mapped on
//! rayon's pool, and the results come back in the order of the input, so the answer is the
//! same as a walk in order, only sooner. Two shapes over one pool and one cut: a result per
//! item ([`map`], written in place into one list) or per piece ([`map_pieces`], for work that
//! keeps state per piece). The pool's threads are started once and parked between calls;
//! starting threads per call cost a clone, a new stack's page faults and an exit per Filter
//! and per Score, thousands of times in a simulation.

use rayon::prelude::*;

use std::sync::OnceLock;

/// Below this many items a walk in order is cheaper than waking the pool.
const MIN_ITEMS: usize = 256;

/// The fewest items a thread takes (a node's plugins take about a microsecond).
const MIN_PIECE: usize = 128;

/// The cores this process may use.
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The pool that maps the pieces; None when it cannot be started (the walk is then done on
/// this thread).
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(cores())
            .thread_name(|i| format!("kschedtui-nodes-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// How many pieces `items` are cut into (1: walked on this thread).
fn pieces(serial: bool, items: usize) -> usize {
    if serial || items < MIN_ITEMS {
        return 1;
    }
    cores().min(items / MIN_PIECE).max(1)
}

/// The pool and the size of a piece when `len` items are worth spreading (not `serial`).
fn spread(serial: bool, len: usize) -> Option<(&'static rayon::ThreadPool, usize)> {
    let pieces = pieces(serial, len);
    // the pool is started by the first call that has work for it
    let pool = (pieces > 1).then(pool).flatten()?;
    Some((pool, len.div_ceil(pieces)))
}

/// `f` of every item, in the order of `items` (written in place into one list); on this
/// thread when `serial`. A panic in any piece is the caller's, as it would be in a walk.
pub(crate) fn map<T: Sync, R: Send>(serial: bool, items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    match spread(serial, items.len()) {
        Some((pool, size)) => pool.install(|| items.par_iter().with_min_len(size).map(f).collect()),
        None => items.iter().map(f).collect(),
    }
}

/// `f(start, piece)` of each of the pieces `items` is cut into (`start`: the position of the
/// piece's first item), in order; one result when the walk is on this thread. For work that
/// keeps per-piece state, such as a column per plugin, counts to add up, or what the items of
/// a piece can share.
pub(crate) fn map_pieces<T: Sync, R: Send>(
    serial: bool,
    items: &[T],
    f: impl Fn(usize, &[T]) -> R + Sync + Send,
) -> Vec<R> {
    match spread(serial, items.len()) {
        Some((pool, size)) => pool.install(|| {
            items
                .par_chunks(size)
                .enumerate()
                .map(|(k, piece)| f(k * size, piece))
                .collect()
        }),
        None => vec![f(0, items)],
    }
}

/// `a()` and `b()`, on two cores when there are (and not `serial`), else one after the other.
pub(crate) fn join<A: Send, B: Send>(
    serial: bool,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    match (!serial && cores() > 1).then(pool).flatten() {
        Some(pool) => pool.join(a, b),
        None => (a(), b()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_input_order_at_every_size() {
        for n in [0, 1, MIN_ITEMS - 1, MIN_ITEMS, 10 * MIN_PIECE + 7] {
            let items: Vec<usize> = (0..n).collect();
            let expected: Vec<usize> = items.iter().map(|i| i * 3 + 1).collect();
            for serial in [false, true] {
                assert_eq!(
                    map(serial, &items, |i| i * 3 + 1),
                    expected,
                    "{n} items, serial {serial}"
                );
                let pieces = map_pieces(serial, &items, |start, piece: &[usize]| {
                    assert_eq!(piece.first(), items.get(start), "{n} items: a piece's start");
                    piece.to_vec()
                });
                assert!(
                    pieces.iter().all(|p| !p.is_empty()) || n == 0,
                    "{n} items: an empty piece"
                );
                assert!(pieces.len() <= cores().max(1), "{n} items: {} pieces", pieces.len());
                assert!(
                    serial || n >= MIN_ITEMS || pieces.len() == 1,
                    "{n} items: one piece below the threshold"
                );
                assert_eq!(pieces.concat(), items, "{n} items in pieces, serial {serial}");
            }
        }
    }

    #[test]
    fn join_gives_both_results_in_their_places() {
        for serial in [false, true] {
            let items: Vec<u64> = (0..1000).collect();
            let (a, b) = join(serial, || items.iter().sum::<u64>(), || items.len());
            assert_eq!((a, b), (499_500, 1000), "serial {serial}");
        }
    }

    #[test]
    fn a_panic_in_any_piece_is_the_callers_and_the_pool_serves_the_next_call() {
        let items: Vec<usize> = (0..10 * MIN_PIECE).collect();
        let last = items.len() - 1;
        for by_piece in [false, true] {
            let caught = std::panic::catch_unwind(|| {
                let f = |i: &usize| {
                    assert!(*i != last, "item {i}");
                    *i
                };
                if by_piece {
                    map_pieces(false, &items, |_, piece: &[usize]| piece.iter().map(f).sum::<usize>())
                } else {
                    map(false, &items, f)
                }
            });
            let err = caught.expect_err("the last piece panics");
            let text = err.downcast_ref::<String>().cloned().unwrap_or_default();
            assert!(text.contains(&format!("item {last}")), "{text}");
            assert_eq!(map(false, &items, |i| i + 1)[last], last + 1);
        }
    }
}
