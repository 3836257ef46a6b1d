//! An API object kept as compact JSON text and decoded into its typed form only when a caller
//! reads it.
//!
//! A k8s-openapi `Pod` is about 2.5 KiB and each of its containers 2.3 KiB, mostly empty
//! `Option` fields, while the JSON of a typical pod is a few hundred bytes. The engine reads
//! the facts it needs on every cycle from the model's own fields (requests, labels, ports,
//! affinity, claims), so the typed object of a bound pod is wanted only for a YAML view, a
//! save, a what-if edit or a rarely used plugin path. Keeping the text and decoding on demand
//! cuts the memory of a 100,000-pod cluster by more than half.
//!
//! Reading decodes once and keeps the typed object next to the text; changing the object
//! (`DerefMut`) makes the typed object the only copy (the text is dropped, since it no
//! longer says the same thing). Clones share the text and leave the decoded copy behind.
//!
//! The text is a [`Bytes`]: either a buffer of its own or a slice of the buffer the object's
//! file was read into (when that text is already compact). The pods and nodes of a snapshot
//! are then packed ([`pack`]): the texts of objects read one after the other are compressed
//! together into blocks of about 32 KiB (LZ4), so they hold no part of the file's buffer, and
//! the loader reads a file a piece at a time through two buffers used in turn
//! (`source::file`) instead of into a buffer its size. A snapshot's JSON says the same keys
//! and values over and over, so LZ4 keeps it several times smaller, more so in larger blocks
//! up to LZ4's window; 32 KiB blocks keep unpacking one object cheap (docs/performance.md has
//! the sizes and peaks measured). Decoding a packed object unpacks its block; the block
//! unpacked last is kept, so reading objects in the order they were read unpacks each block
//! once.

use std::borrow::Cow;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A typed API object held as compact JSON, decoded on first read.
pub struct Stored<T> {
    /// The object's compact JSON; none once the object was changed through `DerefMut`.
    json: Text,
    /// The decoded object, once read (or the only copy once changed).
    typed: OnceLock<Box<T>>,
}

/// Where an object's text is: in a block, or nowhere (no text).
#[derive(Clone)]
struct Text {
    block: Option<Arc<Block>>,
    /// Where the text is in a packed block's text (a plain block is the text).
    start: u32,
    len: u32,
}

/// Text held for stored objects: 16 bytes each (an `Option<Arc>` and two `u32`s) keep a
/// [`Stored`] at 32 bytes, a pod's share of the 192-byte allocation of `Arc<Pod>`.
enum Block {
    /// One object's text, UTF-8 (it is only ever made from a `str`): a buffer of its own or a
    /// slice of a file's.
    Plain(Bytes),
    /// The texts of objects read one after the other, compressed together (LZ4 block format);
    /// `size` is the length of the texts, one after the other.
    Packed { lz4: Box<[u8]>, size: u32 },
}

impl Text {
    fn none() -> Text {
        Text {
            block: None,
            start: 0,
            len: 0,
        }
    }

    fn plain(b: Bytes) -> Text {
        Text {
            block: Some(Arc::new(Block::Plain(b))),
            start: 0,
            len: 0,
        }
    }

    fn is_some(&self) -> bool {
        self.block.is_some()
    }

    fn get(&self) -> Option<Cow<'_, str>> {
        let block = self.block.as_ref()?;
        Some(match &**block {
            Block::Plain(b) => Cow::Borrowed(as_str(b)),
            Block::Packed { .. } => Cow::Owned(block.span(self.start, self.len)),
        })
    }

    /// Whether the text is in a packed block.
    #[cfg(test)]
    fn is_packed(&self) -> bool {
        matches!(self.block.as_deref(), Some(Block::Packed { .. }))
    }
}

impl<T: Serialize + DeserializeOwned + Default> Stored<T> {
    /// Keeps `obj` as compact JSON and drops the typed form.
    pub fn new(obj: T) -> Self {
        match serde_json::to_string(&obj) {
            Ok(text) => Stored {
                json: Text::plain(owned(text)),
                typed: OnceLock::new(),
            },
            // k8s-openapi objects always serialize; should one not, it stays typed.
            Err(_) => Self::typed(obj),
        }
    }

    /// Keeps `obj` typed (no text): for objects about to be changed or read at once.
    pub fn typed(obj: T) -> Self {
        Stored {
            json: Text::none(),
            typed: OnceLock::from(Box::new(obj)),
        }
    }

    /// Wraps JSON text already known to decode into `T` (the text of an object that was just
    /// parsed as `T`), keeping it as it is. Whitespace outside strings is removed.
    pub fn from_json(text: &str) -> Self {
        Stored {
            json: Text::plain(owned(minify(text))),
            typed: OnceLock::new(),
        }
    }

    /// As [`Stored::from_json`] for text that may lie in `file` (the buffer a whole file was
    /// read into): when it does and is already compact it is kept as a slice of `file`, not
    /// copied.
    pub fn from_json_in(text: &str, file: Option<&Bytes>) -> Self {
        let Some(file) = file else {
            return Self::from_json(text);
        };
        let (start, end) = (text.as_ptr() as usize, text.as_ptr() as usize + text.len());
        let (lo, hi) = (file.as_ptr() as usize, file.as_ptr() as usize + file.len());
        if lo <= start && end <= hi && !has_space(text.as_bytes()) {
            Stored {
                json: Text::plain(file.slice(start - lo..end - lo)),
                typed: OnceLock::new(),
            }
        } else {
            Self::from_json(text)
        }
    }

    /// The object's compact JSON text, when it still has one (not changed since it was read).
    pub fn json(&self) -> Option<Cow<'_, str>> {
        self.json.get()
    }

    /// Whether the typed object has been decoded (or is the only copy).
    pub fn is_decoded(&self) -> bool {
        self.typed.get().is_some()
    }

    /// The typed object, taken out.
    pub fn into_inner(mut self) -> T {
        match self.typed.take() {
            Some(b) => *b,
            None => decode(&self.text()),
        }
    }

    /// The typed object, taken out and boxed.
    pub fn into_box(mut self) -> Box<T> {
        match self.typed.take() {
            Some(b) => b,
            None => Box::new(decode(&self.text())),
        }
    }

    /// Where this object's text is, for [`pack`].
    pub fn slot(&mut self) -> Slot<'_> {
        Slot(&mut self.json)
    }

    /// The text to decode (an empty object when there is none).
    fn text(&self) -> Cow<'_, str> {
        self.json.get().unwrap_or(Cow::Borrowed("{}"))
    }

    fn get(&self) -> &T {
        self.typed.get_or_init(|| Box::new(decode(&self.text())))
    }
}

/// How much text a block holds (it is closed at the first object that reaches this).
const BLOCK_TEXT: usize = 32 * 1024;

/// [`pack`]'s buffers, owned by the loader (in its `Interner`) and used again at every call:
/// fresh ones at every call (a loader packs every few thousand objects) are given back to the
/// system in between and cost a page fault per page each time.
#[derive(Debug, Default)]
pub struct PackBuffers {
    /// The texts of a block.
    text: Vec<u8>,
    /// Their compressed form.
    lz4: Vec<u8>,
}

/// The block unpacked last, and its text: objects are read back in order (a save, a YAML
/// view), so the next one is most often in the same block.
static UNPACKED: Mutex<(Weak<Block>, Vec<u8>)> = Mutex::new((Weak::new(), Vec::new()));

impl Block {
    /// `len` bytes from `start` of a packed block's text.
    fn span(self: &Arc<Self>, start: u32, len: u32) -> String {
        let mut unpacked = UNPACKED.lock().unwrap_or_else(PoisonError::into_inner);
        let (which, text) = &mut *unpacked;
        // A `Weak` keeps its block's allocation, so no other block can be at its address.
        if !std::ptr::eq(which.as_ptr(), Arc::as_ptr(self)) {
            let Block::Packed { lz4, size } = &**self else {
                return "{}".to_string();
            };
            text.clear();
            text.resize(*size as usize, 0);
            let n = lz4_flex::block::decompress_into(lz4, text);
            debug_assert!(
                matches!(n, Ok(n) if n == text.len()),
                "a packed block no longer unpacks: {n:?}"
            );
            if !matches!(n, Ok(n) if n == text.len()) {
                text.clear();
            }
            *which = Arc::downgrade(self);
        }
        let (start, len) = (start as usize, len as usize);
        text.get(start..start + len).map_or("{}", as_str).to_string()
    }
}

/// The place of one object's text, handed to [`pack`].
pub struct Slot<'a>(&'a mut Text);

/// Packs the texts of these objects, in the order given, into blocks of about
/// [`BLOCK_TEXT`] bytes (objects already packed, changed or typed are left as they are). Each
/// object then decodes as before; a file's buffer they were slices of is no longer held.
pub fn pack<'a>(slots: impl IntoIterator<Item = Slot<'a>>, buffers: &mut PackBuffers) {
    let PackBuffers { text, lz4 } = buffers;
    text.clear();
    text.reserve(2 * BLOCK_TEXT);
    let mut group: Vec<(&'a mut Text, u32, u32)> = Vec::new();
    for Slot(t) in slots {
        let Some(Block::Plain(b)) = t.block.as_deref() else {
            continue;
        };
        let (Ok(start), Ok(len)) = (u32::try_from(text.len()), u32::try_from(b.len())) else {
            continue;
        };
        if start.checked_add(len).is_none() {
            continue;
        }
        text.extend_from_slice(b);
        group.push((t, start, len));
        if text.len() >= BLOCK_TEXT {
            seal(&mut group, text, lz4);
        }
    }
    seal(&mut group, text, lz4);
}

/// Compresses the texts gathered and points their objects at the block.
fn seal(group: &mut Vec<(&mut Text, u32, u32)>, text: &mut Vec<u8>, lz4: &mut Vec<u8>) {
    if group.is_empty() {
        return;
    }
    lz4.clear();
    lz4.resize(lz4_flex::block::get_maximum_output_size(text.len()), 0);
    let Ok(n) = lz4_flex::block::compress_into(text, lz4) else {
        // Cannot happen with room for the worst case; the texts then stay as they were.
        group.clear();
        text.clear();
        return;
    };
    let block = Arc::new(Block::Packed {
        lz4: lz4[..n].into(),
        // `pack` keeps the texts' total within u32.
        size: u32::try_from(text.len()).unwrap_or(u32::MAX),
    });
    for (t, start, len) in group.drain(..) {
        *t = Text {
            block: Some(block.clone()),
            start,
            len,
        };
    }
    text.clear();
}

static DECODES: AtomicU64 = AtomicU64::new(0);

/// How many stored objects this process has decoded so far (the engine should decode only the
/// pods it explains: a test and the scale benchmark watch this).
pub fn decodes() -> u64 {
    DECODES.load(Ordering::Relaxed)
}

/// Decodes text that was produced from (or parsed as) a `T`. It cannot fail for such text; if
/// it somehow does, the default object stands in rather than a panic.
fn decode<T: DeserializeOwned + Default>(text: &str) -> T {
    DECODES.fetch_add(1, Ordering::Relaxed);
    let r = serde_json::from_str(text);
    debug_assert!(r.is_ok(), "stored JSON no longer decodes: {:?}", r.as_ref().err());
    r.unwrap_or_default()
}

/// Text of its own, without spare capacity (so `Bytes` takes the buffer as it is).
fn owned(text: String) -> Bytes {
    Bytes::from(text.into_bytes().into_boxed_slice())
}

/// The text of a `json` field: always UTF-8, since it is only ever made from a `str` (should
/// that ever not hold, an empty object reads instead of a panic).
fn as_str(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap_or("{}")
}

fn has_space(b: &[u8]) -> bool {
    memchr::memchr3(b' ', b'\n', b'\t', b).is_some() || memchr::memchr(b'\r', b).is_some()
}

/// Removes the whitespace outside strings of valid JSON text.
fn minify(text: &str) -> String {
    let b = text.as_bytes();
    if !has_space(b) {
        return text.to_string();
    }
    let mut out = Vec::with_capacity(b.len());
    let mut in_str = false;
    let mut escaped = false;
    for &c in b {
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_str = false;
            }
        } else if c == b'"' {
            in_str = true;
            out.push(c);
        } else if !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
            out.push(c);
        }
    }
    // Only ASCII whitespace was removed between tokens: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

impl<T: Serialize + DeserializeOwned + Default> Deref for Stored<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.get()
    }
}

impl<T: Serialize + DeserializeOwned + Default> DerefMut for Stored<T> {
    fn deref_mut(&mut self) -> &mut T {
        if self.typed.get().is_none() {
            let t = decode(&self.text());
            self.typed = OnceLock::from(Box::new(t));
        }
        self.json = Text::none();
        self.typed
            .get_mut()
            .map(Box::as_mut)
            .unwrap_or_else(|| unreachable_typed())
    }
}

/// `deref_mut` sets the typed object just before it reads it.
#[cold]
fn unreachable_typed<'a, T>() -> &'a mut T {
    unreachable!("Stored::deref_mut: the typed object was set above")
}

impl<T: Serialize + DeserializeOwned + Default + Clone> Clone for Stored<T> {
    fn clone(&self) -> Self {
        if self.json.is_some() {
            Stored {
                json: self.json.clone(),
                typed: OnceLock::new(),
            }
        } else {
            Stored::typed(self.get().clone())
        }
    }
}

impl<T: Serialize + DeserializeOwned + Default + fmt::Debug> fmt::Debug for Stored<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

impl<T: Serialize + DeserializeOwned + Default + PartialEq> PartialEq for Stored<T> {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<T: Serialize + DeserializeOwned + Default> Serialize for Stored<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(s)
    }
}

impl<T: Serialize + DeserializeOwned + Default> From<T> for Stored<T> {
    fn from(obj: T) -> Self {
        Stored::new(obj)
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1 as core;
    use serde_json::json;

    use super::*;

    fn pod() -> core::Pod {
        serde_json::from_value(json!({
            "metadata": {"name": "web-1", "namespace": "shop", "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "main", "image": "nginx",
                "resources": {"requests": {"cpu": "250m"}}}]}
        }))
        .unwrap()
    }

    #[test]
    fn a_stored_object_reads_back_as_it_was_and_decodes_once() {
        let s = Stored::new(pod());
        assert!(!s.is_decoded());
        assert_eq!(
            s.json().as_deref(),
            Some(serde_json::to_string(&pod()).unwrap().as_str())
        );
        assert_eq!(*s, pod());
        assert!(s.is_decoded());
        assert_eq!(s.metadata.name.as_deref(), Some("web-1"));
    }

    #[test]
    fn changing_it_drops_the_text_and_clones_keep_the_change() {
        let mut s = Stored::new(pod());
        let c = s.clone();
        s.metadata.name = Some("web-2".into());
        assert_eq!(s.json(), None);
        assert_eq!(s.metadata.name.as_deref(), Some("web-2"));
        let c2 = s.clone();
        assert_eq!(c2.metadata.name.as_deref(), Some("web-2"));
        // the clone made before the change still has the old object
        assert_eq!(c.metadata.name.as_deref(), Some("web-1"));
        assert!(!Stored::clone(&c).is_decoded());
        assert_eq!(c2.into_inner().metadata.name.as_deref(), Some("web-2"));
    }

    #[test]
    fn text_is_minified_outside_strings_only() {
        let text = "{\n  \"metadata\": {\"name\": \"a b\",\n \"annotations\": {\"k\": \"x \\\" \\n y\"}}\n}";
        let s: Stored<core::Pod> = Stored::from_json(text);
        assert_eq!(
            s.json().as_deref(),
            Some(r#"{"metadata":{"name":"a b","annotations":{"k":"x \" \n y"}}}"#)
        );
        assert_eq!(s.metadata.annotations.as_ref().unwrap()["k"], "x \" \n y");
    }

    #[test]
    fn compact_text_inside_a_file_buffer_is_kept_as_a_slice_of_it() {
        let file = Bytes::from(r#"[{"metadata":{"name":"a"}},{"metadata": {"name":"b"}}]"#.to_string().into_bytes());
        let whole = std::str::from_utf8(&file).unwrap();
        let (a, b) = (&whole[1..26], &whole[27..53]);
        assert_eq!(
            (a, b),
            (r#"{"metadata":{"name":"a"}}"#, r#"{"metadata": {"name":"b"}}"#)
        );
        let inside = |s: &str| whole.as_bytes().as_ptr_range().contains(&s.as_ptr());
        let sa: Stored<core::Pod> = Stored::from_json_in(a, Some(&file));
        assert_eq!(sa.json().as_deref(), Some(a));
        assert!(inside(&sa.json().unwrap()), "compact text is not copied");
        // Text with spaces is minified into a buffer of its own.
        let sb: Stored<core::Pod> = Stored::from_json_in(b, Some(&file));
        assert_eq!(sb.json().as_deref(), Some(r#"{"metadata":{"name":"b"}}"#));
        assert!(!inside(&sb.json().unwrap()));
        // Text that is not in the buffer is copied, not sliced.
        let elsewhere = a.to_string();
        let sc: Stored<core::Pod> = Stored::from_json_in(&elsewhere, Some(&file));
        assert_eq!(sc.json().as_deref(), Some(a));
        assert!(!inside(&sc.json().unwrap()));
        // Without a buffer, the text is minified into its own, as `from_json` does.
        let sd: Stored<core::Pod> = Stored::from_json_in(b, None);
        assert_eq!(sd.json().as_deref(), Some(r#"{"metadata":{"name":"b"}}"#));
        assert!(!inside(&sd.json().unwrap()));
        drop(file);
        // The slice keeps the buffer alive and decodes as the object.
        assert_eq!(sa.metadata.name.as_deref(), Some("a"));
        assert_eq!(sb.clone().into_inner().metadata.name.as_deref(), Some("b"));
    }

    #[test]
    fn serializing_writes_the_object() {
        let s = Stored::new(pod());
        assert_eq!(serde_json::to_value(&s).unwrap(), serde_json::to_value(pod()).unwrap());
    }

    /// A named pod as the JSON a snapshot would hold.
    fn named(i: usize) -> String {
        format!(
            r#"{{"metadata":{{"name":"web-{i}","namespace":"shop","labels":{{"app":"web"}}}},"spec":{{"containers":[{{"name":"main","image":"nginx"}}]}}}}"#
        )
    }

    #[test]
    fn packed_objects_decode_and_read_back_as_before_in_any_order() {
        let n = 3 * BLOCK_TEXT / named(0).len();
        let mut objs: Vec<Stored<core::Pod>> = (0..n).map(|i| Stored::from_json(&named(i))).collect();
        // One changed, one typed: left as they are.
        objs[1].metadata.name = Some("changed".into());
        objs[2] = Stored::typed(pod());
        pack(objs.iter_mut().map(Stored::slot), &mut PackBuffers::default());
        // Blocks in the order given, each closed at the first text that brings it to
        // BLOCK_TEXT bytes.
        let mut sizes: Vec<(*const Block, u32)> = Vec::new();
        for o in &objs {
            if let Some(block) = &o.json.block
                && let Block::Packed { size, .. } = **block
                && sizes.last().is_none_or(|l| l.0 != Arc::as_ptr(block))
            {
                sizes.push((Arc::as_ptr(block), size));
            }
        }
        let longest = named(n).len() as u32;
        assert!(sizes.len() >= 3, "{sizes:?}");
        for (_, size) in &sizes[..sizes.len() - 1] {
            assert!(
                (BLOCK_TEXT as u32..BLOCK_TEXT as u32 + longest).contains(size),
                "{sizes:?}"
            );
        }
        let total: usize = objs.iter().filter_map(|o| o.json()).map(|t| t.len()).sum();
        assert_eq!(sizes.iter().map(|s| s.1 as usize).sum::<usize>(), total);
        assert!(objs[0].json.is_packed() && !objs[0].is_decoded());
        assert_eq!((objs[1].json(), objs[2].json()), (None, None));
        assert_eq!(objs[1].metadata.name.as_deref(), Some("changed"));
        assert_eq!(*objs[2], pod());
        // Backwards, so every read unpacks a block other than the one read before.
        for i in (3..n).rev() {
            assert_eq!(objs[i].json().as_deref(), Some(named(i).as_str()));
            assert_eq!(objs[i].metadata.name.as_deref(), Some(format!("web-{i}").as_str()));
        }
        // Clones share the block; a change to one drops its text only.
        let mut c = objs[0].clone();
        assert!(c.json.is_packed());
        c.metadata.name = Some("x".into());
        assert_eq!(c.json(), None);
        assert_eq!(objs[0].json().as_deref(), Some(named(0).as_str()));
        assert_eq!(objs[0].clone().into_inner().metadata.name.as_deref(), Some("web-0"));
        // Packing again changes nothing.
        let before: Vec<_> = objs.iter().map(|o| o.json().map(Cow::into_owned)).collect();
        pack(objs.iter_mut().map(Stored::slot), &mut PackBuffers::default());
        assert_eq!(
            objs.iter().map(|o| o.json().map(Cow::into_owned)).collect::<Vec<_>>(),
            before
        );
    }

    #[test]
    fn a_packed_object_lets_the_file_it_was_read_from_go() {
        let file = Bytes::from(format!("[{}]", named(7)).into_bytes());
        let whole = std::str::from_utf8(&file).unwrap();
        let mut s: Stored<core::Pod> = Stored::from_json_in(&whole[1..whole.len() - 1], Some(&file));
        assert!(!file.is_unique(), "a slice of the file's buffer");
        pack([s.slot()], &mut PackBuffers::default());
        assert!(file.is_unique(), "packed: the buffer is let go");
        assert_eq!(s.json().as_deref(), Some(named(7).as_str()));
    }

    /// A pod holds one; a larger one crosses the pod's 192-byte allocation (model::size_tests).
    #[test]
    fn a_stored_object_is_32_bytes() {
        assert_eq!(std::mem::size_of::<Stored<core::Pod>>(), 32);
    }
}
