//! Work over the nodes of a cycle spread across the machine's cores (upstream's
//! `parallelize.Until`): the items are cut into one contiguous piece per core, this thread
//! takes the first, the threads of one pool the others, and the results come back in the
//! order of the input, so the answer is the same as a walk in order, only sooner. The pool's
//! threads (one fewer than the cores: this thread is the other) are started once and parked
//! between calls; starting threads per call cost a clone, a new stack's page faults and an
//! exit per Filter and per Score, thousands of times in a simulation.

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

/// The pool that takes the pieces after the first; None when it cannot be started (the walk
/// is then done on this thread).
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(cores().saturating_sub(1).max(1))
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

/// `f` of every item, in the order of `items`; on this thread when `serial`.
pub(crate) fn map<T: Sync, R: Send>(serial: bool, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let pieces = pieces(serial, items.len());
    // the pool is started by the first call that has work for it
    let Some(pool) = (pieces > 1).then(pool).flatten() else {
        return items.iter().map(f).collect();
    };
    let size = items.len().div_ceil(pieces);
    let f = &f;
    let mut chunks = items.chunks(size);
    let first = chunks.next().unwrap_or_default();
    let mut parts: Vec<Vec<R>> = chunks.map(|_| Vec::new()).collect();
    let mut out: Vec<R> = Vec::with_capacity(items.len());
    // a panic in a piece is the caller's panic, as it would be in a walk
    pool.in_place_scope(|s| {
        for (part, chunk) in parts.iter_mut().zip(items.chunks(size).skip(1)) {
            s.spawn(move |_| *part = chunk.iter().map(f).collect());
        }
        out.extend(first.iter().map(f));
    });
    for part in parts {
        out.extend(part);
    }
    out
}

/// As [`map`], with every result written in place into one list made up front (no piece's
/// own list to join, so at 65,000 nodes a cycle's records are not copied a second time).
pub(crate) fn map_in_place<T: Sync, R: Send + Default>(
    serial: bool,
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    map_in_place_ahead(serial, items, |_| {}, f)
}

/// As [`map_in_place`], `f` given a state of the piece's own with each item (`S::default()`
/// per piece, dropped after it): for what the items of a piece can share, such as the parse
/// of what many of them hold alike.
pub(crate) fn map_in_place_with<T: Sync, S: Default, R: Send + Default>(
    serial: bool,
    items: &[T],
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    fill_in_place(serial, items, |slots, piece| {
        let mut state = S::default();
        for (slot, item) in slots.iter_mut().zip(piece) {
            *slot = f(&mut state, item);
        }
    })
}

/// How many items ahead of the one being mapped [`map_in_place_ahead`] calls `ahead` on.
const AHEAD: usize = 4;

/// As [`map_in_place`], calling `ahead` on the item [`AHEAD`] places further in the same
/// piece before mapping each item: for a hint to the memory system (a prefetch of what the
/// item points to), so the next items' data is on its way while this one is mapped.
pub(crate) fn map_in_place_ahead<T: Sync, R: Send + Default>(
    serial: bool,
    items: &[T],
    ahead: impl Fn(&T) + Sync,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    fill_in_place(serial, items, |slots, piece| {
        for (j, (slot, item)) in slots.iter_mut().zip(piece).enumerate() {
            if let Some(next) = piece.get(j + AHEAD) {
                ahead(next);
            }
            *slot = f(item);
        }
    })
}

/// One list of a result per item, made up front and filled piece by piece by `fill(slots,
/// piece)` (the slots of the piece's results, in order), on every core unless `serial`.
fn fill_in_place<T: Sync, R: Send + Default>(
    serial: bool,
    items: &[T],
    fill: impl Fn(&mut [R], &[T]) + Sync,
) -> Vec<R> {
    let mut out: Vec<R> = std::iter::repeat_with(R::default).take(items.len()).collect();
    let pieces = pieces(serial, items.len());
    // the pool is started by the first call that has work for it
    let Some(pool) = (pieces > 1).then(pool).flatten() else {
        fill(&mut out, items);
        return out;
    };
    let size = items.len().div_ceil(pieces);
    let fill = &fill;
    pool.in_place_scope(|s| {
        let mut parts = out.chunks_mut(size).zip(items.chunks(size));
        let first = parts.next();
        for (slots, piece) in parts {
            s.spawn(move |_| fill(slots, piece));
        }
        if let Some((slots, piece)) = first {
            fill(slots, piece);
        }
    });
    out
}

/// `f(start, piece)` of each of the pieces `items` is cut into (`start`: the position of the
/// piece's first item), in order; one result when the walk is on this thread. For work that
/// keeps per-piece state, such as a column per plugin or counts to add up.
pub(crate) fn map_pieces<T: Sync, R: Send + Default>(
    serial: bool,
    items: &[T],
    f: impl Fn(usize, &[T]) -> R + Sync,
) -> Vec<R> {
    let pieces = pieces(serial, items.len());
    // the pool is started by the first call that has work for it
    let Some(pool) = (pieces > 1).then(pool).flatten() else {
        return vec![f(0, items)];
    };
    let size = items.len().div_ceil(pieces);
    let mut out: Vec<R> = std::iter::repeat_with(R::default)
        .take(items.len().div_ceil(size))
        .collect();
    let f = &f;
    pool.in_place_scope(|s| {
        let mut jobs = out.iter_mut().zip(items.chunks(size)).enumerate();
        let first = jobs.next();
        for (k, (slot, piece)) in jobs {
            s.spawn(move |_| *slot = f(k * size, piece));
        }
        if let Some((_, (slot, piece))) = first {
            *slot = f(0, piece);
        }
    });
    out
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
            assert_eq!(map(false, &items, |i| i * 3 + 1), expected, "{n} items");
            assert_eq!(map(true, &items, |i| i * 3 + 1), expected, "{n} items, serial");
            assert_eq!(
                map_in_place(false, &items, |i| i * 3 + 1),
                expected,
                "{n} items, in place"
            );
            assert_eq!(
                map_in_place(true, &items, |i| i * 3 + 1),
                expected,
                "{n} items, in place, serial"
            );
            for serial in [false, true] {
                let seen = std::sync::atomic::AtomicUsize::new(0);
                let out = map_in_place_ahead(
                    serial,
                    &items,
                    |_| {
                        seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    },
                    |i| i * 3 + 1,
                );
                assert_eq!(out, expected, "{n} items, in place with a look ahead, serial {serial}");
                // every item but the first AHEAD of each piece is looked at once, ahead
                let looked = seen.into_inner();
                assert!(
                    looked <= n.saturating_sub(AHEAD) && looked + AHEAD * cores() >= n,
                    "{n}: {looked}"
                );
            }
            for serial in [false, true] {
                // the state is the piece's own: a count of the items it mapped before
                let out = map_in_place_with(serial, &items, |before: &mut usize, i| {
                    *before += 1;
                    (i * 3 + 1, *before)
                });
                let (values, counts): (Vec<usize>, Vec<usize>) = out.into_iter().unzip();
                assert_eq!(values, expected, "{n} items, in place with a state, serial {serial}");
                // a fresh state at each piece's start: the counts run 1..=len piece by piece
                let lens = map_pieces(serial, &items, |_, piece: &[usize]| piece.len());
                let runs: Vec<usize> = lens.iter().flat_map(|&len| 1..=len).collect();
                assert_eq!(counts, runs, "{n} items: one state a piece, serial {serial}");
                if serial || n < MIN_ITEMS {
                    assert_eq!(counts, (1..=n).collect::<Vec<_>>(), "{n} items: one state in all");
                }
            }
            for serial in [false, true] {
                let pieces = map_pieces(serial, &items, |start, piece: &[usize]| {
                    assert_eq!(piece.first(), items.get(start), "{n} items: a piece's start");
                    piece.to_vec()
                });
                assert!(
                    pieces.iter().all(|p| !p.is_empty()) || n == 0,
                    "{n} items: an empty piece"
                );
                assert!(pieces.len() <= cores().max(1), "{n} items: {} pieces", pieces.len());
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
        for in_place in [false, true] {
            let caught = std::panic::catch_unwind(|| {
                let f = |i: &usize| {
                    assert!(*i != last, "item {i}");
                    *i
                };
                if in_place {
                    map_in_place(false, &items, f)
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
