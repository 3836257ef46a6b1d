//! Work over the nodes of a cycle spread across the machine's cores (upstream's
//! `parallelize.Until`): the items are cut into one contiguous piece per core, this thread
//! takes the first, scoped threads the others, and the results come back in the order of the
//! input, so the answer is the same as a walk in order, only sooner. Threads are started per
//! call (tens of microseconds against milliseconds of work) rather than kept in a pool: a pool's
//! idle workers spin for work and, on a machine with few cores, take time from the thread
//! running the serial parts of a cycle.

use std::sync::OnceLock;

/// Below this many items a walk in order is cheaper than starting threads.
const MIN_ITEMS: usize = 256;

/// The fewest items a thread takes (a node's plugins take about a microsecond).
const MIN_PIECE: usize = 128;

/// The cores this process may use.
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `f` of every item, in the order of `items`; on this thread when `serial`.
pub(crate) fn map<T: Sync, R: Send>(serial: bool, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let pieces = cores().min(items.len() / MIN_PIECE);
    if serial || items.len() < MIN_ITEMS || pieces < 2 {
        return items.iter().map(f).collect();
    }
    let size = items.len().div_ceil(pieces);
    let f = &f;
    std::thread::scope(|s| {
        let mut chunks = items.chunks(size);
        let first = chunks.next().unwrap_or_default();
        let others: Vec<_> = chunks
            .map(|c| s.spawn(move || c.iter().map(f).collect::<Vec<R>>()))
            .collect();
        let mut out: Vec<R> = Vec::with_capacity(items.len());
        out.extend(first.iter().map(f));
        for h in others {
            match h.join() {
                Ok(part) => out.extend(part),
                // a panic in a piece is the caller's panic, as it would be in a walk
                Err(p) => std::panic::resume_unwind(p),
            }
        }
        out
    })
}

/// As [`map`], with every result written in place into one list made up front (no piece's
/// own list to join, so at 65,000 nodes a cycle's records are not copied a second time).
pub(crate) fn map_in_place<T: Sync, R: Send + Default>(
    serial: bool,
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let pieces = cores().min(items.len() / MIN_PIECE);
    if serial || items.len() < MIN_ITEMS || pieces < 2 {
        return items.iter().map(f).collect();
    }
    let size = items.len().div_ceil(pieces);
    let mut out: Vec<R> = std::iter::repeat_with(R::default).take(items.len()).collect();
    let f = &f;
    let fill = move |(slots, piece): (&mut [R], &[T])| {
        for (slot, item) in slots.iter_mut().zip(piece) {
            *slot = f(item);
        }
    };
    std::thread::scope(|s| {
        let mut pieces = out.chunks_mut(size).zip(items.chunks(size));
        let first = pieces.next();
        let others: Vec<_> = pieces.map(|p| s.spawn(move || fill(p))).collect();
        if let Some(p) = first {
            fill(p);
        }
        for h in others {
            if let Err(p) = h.join() {
                std::panic::resume_unwind(p);
            }
        }
    });
    out
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
        }
    }
}
