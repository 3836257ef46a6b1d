//! The fast path for JSON snapshots: a `List` (or an array) whose items are deserialized
//! straight from their text into the typed objects, without building a `serde_json::Value`
//! tree of the whole file.
//!
//! It only ever returns a result the general path would also give: whenever an item is not
//! a plain, well-formed object of a known kind (a number where a quantity is expected, an
//! unknown field, no name, ...) that item goes through the general per-object code
//! (`push_object`) on its own `Value`; and on any error at all the whole file is handed back
//! (`None`) to the general path, so error messages and their order stay exactly the same.

use std::borrow::Cow;
use std::fmt;
use std::sync::mpsc;

use serde::de::{DeserializeOwned, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Bytes, Kind, Object, Origin, ParseWith, cluster_scoped, field_path, push_object};
use crate::model::{Interner, Node, Pod, ReadObject, stored};

/// A top-level `{"kind": "...List", "items": [...]}`; other keys are parsed (so numbers
/// are range-checked as the general path does) and dropped.
struct ListDoc<'a> {
    kind: Option<Value>,
    items: Option<Vec<&'a RawValue>>,
}

impl<'de> Deserialize<'de> for ListDoc<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ListDoc<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a List object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<ListDoc<'de>, A::Error> {
                let mut doc = ListDoc {
                    kind: None,
                    items: None,
                };
                let (mut seen_kind, mut seen_items) = (false, false);
                while let Some(k) = m.next_key::<Cow<'de, str>>()? {
                    match k.as_ref() {
                        // A repeated key: let the general path decide what it means.
                        "kind" if seen_kind => return Err(serde::de::Error::custom("duplicate key")),
                        "items" if seen_items => return Err(serde::de::Error::custom("duplicate key")),
                        "kind" => {
                            seen_kind = true;
                            doc.kind = Some(m.next_value()?);
                        }
                        "items" => {
                            seen_items = true;
                            doc.items = m.next_value()?;
                        }
                        _ => {
                            m.next_value::<Value>()?;
                        }
                    }
                }
                Ok(doc)
            }
        }
        d.deserialize_map(V)
    }
}

/// The two fields that choose the type of an item (an apiVersion that is not a string
/// sends the item to the general path, which words the error).
#[derive(Deserialize)]
struct Peek<'a> {
    #[serde(borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(rename = "apiVersion", borrow)]
    api_version: Option<Cow<'a, str>>,
}

/// Parses a whole JSON snapshot, or gives up (`None`).
pub(super) fn parse(
    name: &str,
    text: &str,
    file: Option<&Bytes>,
    out: &mut Vec<(Origin, Object)>,
    warnings: &mut Vec<String>,
    mut pods: Option<&mut Vec<(Origin, ReadObject)>>,
) -> Option<()> {
    let raw: Vec<&RawValue> = if text.trim_start().starts_with('[') {
        serde_json::from_str(text).ok()?
    } else {
        let doc: ListDoc<'_> = serde_json::from_str(text).ok()?;
        if !doc
            .kind
            .as_ref()
            .and_then(Value::as_str)
            .is_some_and(|k| k.ends_with("List"))
        {
            return None;
        }
        doc.items.unwrap_or_default()
    };
    let items: Vec<&str> = raw.iter().map(|r| r.get()).collect();
    let chunks = parse_chunks(name, 0, &items, pods.is_some().then_some(file))?;
    // One allocation of the right size, not a doubling one.
    out.reserve(chunks.iter().map(|c| c.out.len()).sum());
    if let Some(p) = pods.as_deref_mut() {
        p.reserve(chunks.iter().map(|c| c.read.len()).sum());
    }
    for c in chunks {
        out.extend(c.out);
        warnings.extend(c.warnings);
        if let Some(p) = pods.as_deref_mut() {
            p.extend(c.read);
        }
    }
    Some(())
}

/// What one run over a slice of the items gives.
#[derive(Default)]
struct Chunk {
    out: Vec<(Origin, Object)>,
    warnings: Vec<String>,
    /// The pods and nodes read into the model.
    read: Vec<(Origin, ReadObject)>,
    /// The document number after the chunk's last item.
    end: usize,
}

/// How many items are read between two packings of the objects read (the texts copied
/// out of a file's text wait that long for their memory to be used again).
const PACK_EVERY: usize = 4096;

/// Packs the texts of the objects read since `packed` (see [`stored::pack`]): compressed
/// together, they no longer hold the buffer of the file they were read from.
pub(super) fn pack_from(read: &mut [(Origin, ReadObject)], packed: &mut usize, intern: &mut Interner) {
    stored::pack(
        read[*packed..].iter_mut().filter_map(|(_, r)| r.slot()),
        &mut intern.pack,
    );
    *packed = read.len();
}

/// Lists of fewer items are read on one thread (starting threads costs more than it saves).
pub(super) const PARALLEL_FROM: usize = 4096;

/// Reads the items in order, on as many threads as the machine has (at most 8), each
/// taking a contiguous slice; the results are joined in order, so they are exactly those of
/// one run from the first item to the last. With `to_model`, pods and nodes are read into
/// the model, their texts packed (taken from the file's buffer when there is one).
fn parse_chunks(name: &str, base: usize, items: &[&str], to_model: Option<Option<&Bytes>>) -> Option<Vec<Chunk>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    if threads < 2 || items.len() < PARALLEL_FROM {
        return Some(vec![run(name, base, items, to_model, &mut Interner::default())?]);
    }
    let per = items.len().div_ceil(threads);
    let chunks: Vec<Option<Chunk>> = std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(per)
            .enumerate()
            .map(|(i, slice)| s.spawn(move || run(name, base + i * per, slice, to_model, &mut Interner::default())))
            .collect();
        handles.into_iter().map(|h| h.join().ok().flatten()).collect()
    });
    let chunks: Vec<Chunk> = chunks.into_iter().collect::<Option<_>>()?;
    // Each chunk numbered its documents from its first item's position; that is right
    // only when every earlier item was one document (an item that is itself a List is
    // several). Otherwise read again on one thread.
    let mut next = base;
    for (i, c) in chunks.iter().enumerate() {
        if c.end != base + (i * per + per).min(items.len()) || next != base + i * per {
            return Some(vec![run(name, base, items, to_model, &mut Interner::default())?]);
        }
        next = c.end;
    }
    Some(chunks)
}

/// How much of a file [`stream`] reads at a time after a first piece of 64 KiB (which
/// tells a List from anything else): a thirty-second of the file, from 256 KiB to 1 MiB.
/// Two pieces are in memory, one being read into the model and the next being read from
/// the file, and each of their pages costs a fault when first written: a small file's
/// load is mostly those faults, so its pieces are small. A large file keeps 1 MiB: smaller
/// pieces there took faults away but not kernel time (the workers wake twice as often).
pub(super) fn piece_for(file_len: u64) -> usize {
    const MIN: usize = 256 << 10;
    const MAX: usize = 1 << 20;
    usize::try_from(file_len / 32).map_or(MAX, |p| p.clamp(MIN, MAX))
}

/// Reads a JSON List file a piece at a time through two buffers used in turn, its pods and
/// nodes into the model (packed, so no piece is held once read): the objects a whole-file
/// read gives, without a buffer the size of the file (its fresh pages were a large share of
/// a load). While the piece's items are read into the model on other threads, this one
/// reads and splits the next piece. `Ok(Some(info))` with the List's top-level
/// [`crate::source::snapshot::INFO_KEY`] value, if any;
/// `Ok(None)` when the file is not a List the scanner reads or an item is not read
/// cleanly: the caller then reads it whole on the general path, which gives the same
/// objects or words the error (what this added to the lists is the caller's to remove).
pub(super) fn stream(
    path: &std::path::Path,
    name: &str,
    out: &mut Vec<(Origin, Object)>,
    warnings: &mut Vec<String>,
    pods: &mut Vec<(Origin, ReadObject)>,
) -> std::io::Result<Option<Option<serde_json::Value>>> {
    stream_in(path, name, out, warnings, pods, |len| (64 << 10, piece_for(len)))
}

/// [`stream`] with the sizes of the first piece and the next ones, given the file's length.
pub(super) fn stream_in(
    path: &std::path::Path,
    name: &str,
    out: &mut Vec<(Origin, Object)>,
    warnings: &mut Vec<String>,
    pods: &mut Vec<(Origin, ReadObject)>,
    sizes: impl FnOnce(u64) -> (usize, usize),
) -> std::io::Result<Option<Option<serde_json::Value>>> {
    let mut file = std::fs::File::open(path)?;
    // Room for an object per 256 bytes of the file, as a doubling list would end up with,
    // without its copies (room never written costs no page).
    let len = file.metadata()?.len();
    let (first, piece_size) = sizes(len);
    pods.reserve(usize::try_from(len / 256).unwrap_or(0));
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    std::thread::scope(|s| {
        // The same threads read every piece: their allocator heaps and the label and
        // request lists each shares (its own `Interner`, dropped at the end) last the whole
        // file.
        let (done_tx, done) = mpsc::channel();
        let (workers, handles): (Vec<_>, Vec<_>) = (0..threads)
            .map(|w| {
                let (tx, jobs) = mpsc::channel::<Job>();
                let done_tx = done_tx.clone();
                let h = s.spawn(move || {
                    let mut intern = Interner::default();
                    for Job { piece, items, base } in jobs {
                        let mut report = Report {
                            w,
                            done: &done_tx,
                            sent: false,
                        };
                        let c = items
                            .iter()
                            .map(|r| std::str::from_utf8(&piece[r.clone()]).ok())
                            .collect::<Option<Vec<&str>>>()
                            .and_then(|t| run(name, base, &t, Some(Some(&piece)), &mut intern))
                            .filter(|c| c.end == base + items.len());
                        // Dropped before saying so, so the piece's buffer can be used again.
                        drop(piece);
                        report.sent = done_tx.send((w, c)).is_ok();
                    }
                });
                (tx, h)
            })
            .collect();
        drop(done_tx);
        let r = feed(&mut file, (first, piece_size), &workers, &done, out, warnings, pods);
        drop(workers);
        // A worker that panicked said so (no chunk): the file is then read whole.
        for h in handles {
            let _ = h.join();
        }
        r
    })
}

/// A piece of a file for a worker: its items from `base` on.
struct Job {
    piece: Bytes,
    items: Vec<std::ops::Range<usize>>,
    base: usize,
}

/// What a worker read, sent when it is done (or when it panics: then no chunk).
type Done = (usize, Option<Chunk>);

/// Says a worker is done with a job, even if it panicked while reading it.
struct Report<'a> {
    w: usize,
    done: &'a mpsc::Sender<Done>,
    sent: bool,
}

impl Drop for Report<'_> {
    fn drop(&mut self) {
        if !self.sent {
            let _ = self.done.send((self.w, None));
        }
    }
}

/// Reads the file a piece at a time, hands each piece's items to the workers (split
/// evenly, in order) and, while they read them, reads and splits the next piece; then
/// adds what they read to the lists, in order.
fn feed(
    file: &mut std::fs::File,
    (first, piece_size): (usize, usize),
    workers: &[mpsc::Sender<Job>],
    done: &mpsc::Receiver<Done>,
    out: &mut Vec<(Origin, Object)>,
    warnings: &mut Vec<String>,
    pods: &mut Vec<(Origin, ReadObject)>,
) -> std::io::Result<Option<Option<serde_json::Value>>> {
    use std::io::Read;

    use crate::source::json_list::{ListScanner, Scan};

    let mut scanner = ListScanner::new();
    let (mut buf, mut spare): (Vec<u8>, Vec<u8>) = (Vec::new(), Vec::new());
    let mut want = first;
    // Documents are numbered as if each item were one; an item that is itself a List is
    // several, and then the file is read whole.
    let mut next_doc = 0;
    // The piece the workers are reading, and how many of them have a part of it.
    let mut reading: Option<(Bytes, usize)> = None;
    loop {
        let room = want.saturating_sub(buf.len());
        buf.reserve_exact(room);
        let got = (&mut *file).take(room as u64).read_to_end(&mut buf)?;
        let eof = got < room;
        let (items, keep_from, end) = match scanner.scan(&buf, eof) {
            Scan::GiveUp => return Ok(None),
            Scan::More { items, keep_from } => (items, keep_from, false),
            Scan::Done { items } => (items, buf.len(), true),
        };
        // What is not complete yet goes on in the other buffer; this one is handed over.
        let mut next = std::mem::take(&mut spare);
        next.clear();
        next.extend_from_slice(&buf[keep_from..]);
        scanner.shift(keep_from);
        let piece = Bytes::from(std::mem::replace(&mut buf, next));
        if let Some((prev, parts)) = reading.take() {
            if !collect(done, parts, out, warnings, pods) {
                return Ok(None);
            }
            // Packed, the objects hold no slice of it: its buffer is used again.
            if let Ok(b) = prev.try_into_mut() {
                spare = b.into();
            }
        }
        if !items.is_empty() {
            let per = items.len().div_ceil(workers.len());
            let mut parts = 0;
            for (w, part) in items.chunks(per).enumerate() {
                let job = Job {
                    piece: piece.clone(),
                    items: part.to_vec(),
                    base: next_doc,
                };
                next_doc += part.len();
                if workers[w].send(job).is_err() {
                    return Ok(None);
                }
                parts += 1;
            }
            reading = Some((piece, parts));
        }
        if end {
            let parts = reading.map_or(0, |r| r.1);
            return Ok(collect(done, parts, out, warnings, pods).then(|| scanner.take_info()));
        }
        if eof {
            // The scanner ends every scan at the end of the text with Done or GiveUp.
            return Ok(None);
        }
        // A value longer than a piece: read on past it.
        want = piece_size.max(buf.len() + piece_size / 2);
    }
}

/// Waits for the `parts` workers reading a piece and adds what they read to the lists, in
/// order; false when one did not read its part cleanly.
fn collect(
    done: &mpsc::Receiver<Done>,
    parts: usize,
    out: &mut Vec<(Origin, Object)>,
    warnings: &mut Vec<String>,
    pods: &mut Vec<(Origin, ReadObject)>,
) -> bool {
    let mut chunks: Vec<Option<Chunk>> = (0..parts).map(|_| None).collect();
    for _ in 0..parts {
        match done.recv() {
            Ok((w, Some(c))) if w < parts => chunks[w] = Some(c),
            _ => return false,
        }
    }
    for c in chunks.into_iter().flatten() {
        out.extend(c.out);
        warnings.extend(c.warnings);
        pods.extend(c.read);
    }
    true
}

/// The chunk of `items`, numbered from `start`; the pods and nodes read share what
/// `intern` holds.
fn run(
    name: &str,
    start: usize,
    items: &[&str],
    to_model: Option<Option<&Bytes>>,
    intern: &mut Interner,
) -> Option<Chunk> {
    let file: crate::model::ThinStr = name.into();
    let mut c = Chunk {
        end: start,
        // Room for every item at once: a doubling list of 50,000 copies itself into fresh
        // pages at every step (capacity never written costs no page).
        read: Vec::with_capacity(if to_model.is_some() { items.len() } else { 0 }),
        ..Chunk::default()
    };
    let mut index = start;
    let mut packed = 0;
    for (i, it) in items.iter().enumerate() {
        item(&file, &mut index, it, &mut c, to_model, intern)?;
        if i % PACK_EVERY == PACK_EVERY - 1 {
            pack_from(&mut c.read, &mut packed, intern);
        }
    }
    pack_from(&mut c.read, &mut packed, intern);
    c.end = index;
    Some(c)
}

fn item(
    name: &crate::model::ThinStr,
    index: &mut usize,
    s: &str,
    c: &mut Chunk,
    to_model: Option<Option<&Bytes>>,
    intern: &mut Interner,
) -> Option<()> {
    if s.starts_with('{')
        && let Ok(p) = serde_json::from_str::<Peek<'_>>(s)
        && let Some(kind) = p.kind.as_deref()
    {
        let api_version = p.api_version.as_deref().unwrap_or("");
        if let Some((obj, as_written)) = typed(kind, api_version, s) {
            let origin = Origin {
                file: name.clone(),
                doc: *index,
            };
            *index += 1;
            // Pods and nodes are read into the model at once: the typed object is dropped
            // here (its memory used again for the next one) instead of waiting, with every
            // other, for the cluster to be built. Should reading fail, Cluster::build
            // words the error: it is handed the typed object again.
            match obj {
                Object::Pod(pod) if let Some(file) = to_model => {
                    match Pod::read(pod, as_written.then_some(s), file, intern) {
                        Ok(r) => c.read.push((origin, ReadObject::Pod(r))),
                        Err(_) => c.out.push((origin, typed(kind, api_version, s)?.0)),
                    }
                }
                Object::Node(node) if let Some(file) = to_model => {
                    match Node::read(*node, as_written.then_some(s), file, intern) {
                        Ok(n) => c.read.push((origin, ReadObject::Node(std::sync::Arc::new(n)))),
                        Err(_) => c.out.push((origin, typed(kind, api_version, s)?.0)),
                    }
                }
                obj => c.out.push((origin, obj)),
            }
            return Some(());
        }
    }
    let v: Value = serde_json::from_str(s).ok()?;
    push_object(name, index, v, &mut c.out, &mut c.warnings, None).ok()
}

/// The typed object, when it reads cleanly: no unknown field, a name, every quantity a
/// string; and whether the text says all of it (false when the namespace was defaulted).
/// A kind the engine does not use is parsed (as the general path does) and skipped.
fn typed(kind: &str, api_version: &str, s: &str) -> Option<(Object, bool)> {
    // a List inside the List (flattened) and an apiVersion refused: the general path
    if super::is_list_kind(kind)
        || Kind::unread_api_version(kind, api_version).is_some()
        || api_version.starts_with("resource.k8s.io/v1beta")
    {
        return None;
    }
    let mut obj = match Kind::of_document(kind, api_version) {
        // Events take the general path (two API versions, most of them skipped).
        Some(Kind::Event) => return None,
        Some(k) => k.parse(Text(s)).ok()?,
        None if kind == "Event" => return None,
        None => {
            serde_json::from_str::<Value>(s).ok()?;
            return Some((Object::Skipped(kind.to_string()), true));
        }
    };
    let md = obj.meta_mut()?;
    // No name (or no metadata at all): the general path words the error.
    md.name.as_ref()?;
    let mut as_written = true;
    if !cluster_scoped(kind) && md.namespace.as_deref().is_none_or(str::is_empty) {
        md.namespace = Some("default".into());
        as_written = false;
    }
    Some((obj, as_written))
}

/// Deserializes from JSON text; `None` on any error or unknown field.
fn de<T: DeserializeOwned>(s: &str) -> Option<T> {
    let mut unknown = false;
    let mut jd = serde_json::Deserializer::from_str(s);
    let mut note = |p: serde_ignored::Path<'_>| {
        if !matches!(field_path(&p).as_str(), "apiVersion" | "kind") {
            unknown = true;
        }
    };
    let t = T::deserialize(serde_ignored::Deserializer::new(&mut jd, &mut note)).ok()?;
    jd.end().ok()?;
    (!unknown).then_some(t)
}

/// JSON text to parse into a kind's type.
struct Text<'a>(&'a str);

impl ParseWith for Text<'_> {
    type Error = ();
    fn parse<T: DeserializeOwned>(self) -> Result<T, ()> {
        de(self.0).ok_or(())
    }
}
