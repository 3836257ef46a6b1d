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
//! The text is a [`Bytes`]: either a buffer of its own or a slice of the file the object was
//! read from (when that file's text is already compact), so a snapshot's pods keep the one
//! buffer the file was read into instead of a second copy of every pod (at 100,000 pods,
//! 35 MB and its page faults).

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A typed API object held as compact JSON, decoded on first read.
pub struct Stored<T> {
    /// The object's compact JSON (UTF-8: it is only ever made from a `str`); None once the
    /// object was changed through `DerefMut`.
    json: Option<Bytes>,
    /// The decoded object, once read (or the only copy once changed).
    typed: OnceLock<Box<T>>,
}

impl<T: Serialize + DeserializeOwned + Default> Stored<T> {
    /// Keeps `obj` as compact JSON and drops the typed form.
    pub fn new(obj: T) -> Self {
        match serde_json::to_string(&obj) {
            Ok(text) => Stored {
                json: Some(owned(text)),
                typed: OnceLock::new(),
            },
            // k8s-openapi objects always serialize; should one not, it stays typed.
            Err(_) => Self::typed(obj),
        }
    }

    /// Keeps `obj` typed (no text): for objects about to be changed or read at once.
    pub fn typed(obj: T) -> Self {
        Stored {
            json: None,
            typed: OnceLock::from(Box::new(obj)),
        }
    }

    /// Wraps JSON text already known to decode into `T` (the text of an object that was just
    /// parsed as `T`), keeping it as it is. Whitespace outside strings is removed.
    pub fn from_json(text: &str) -> Self {
        Stored {
            json: Some(owned(minify(text))),
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
                json: Some(file.slice(start - lo..end - lo)),
                typed: OnceLock::new(),
            }
        } else {
            Self::from_json(text)
        }
    }

    /// The object's compact JSON text, when it still has one (not changed since it was read).
    pub fn json(&self) -> Option<&str> {
        self.json.as_deref().map(as_str)
    }

    /// Whether the typed object has been decoded (or is the only copy).
    pub fn is_decoded(&self) -> bool {
        self.typed.get().is_some()
    }

    /// The typed object, taken out.
    pub fn into_inner(mut self) -> T {
        match self.typed.take() {
            Some(b) => *b,
            None => decode(self.json().unwrap_or("{}")),
        }
    }

    /// The typed object, taken out and boxed.
    pub fn into_box(mut self) -> Box<T> {
        match self.typed.take() {
            Some(b) => b,
            None => Box::new(decode(self.json().unwrap_or("{}"))),
        }
    }

    fn get(&self) -> &T {
        self.typed.get_or_init(|| Box::new(decode(self.json().unwrap_or("{}"))))
    }
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
    b.iter().any(|c| matches!(c, b' ' | b'\n' | b'\r' | b'\t'))
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
            let t = decode(self.json().unwrap_or("{}"));
            self.typed = OnceLock::from(Box::new(t));
        }
        self.json = None;
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
        match &self.json {
            Some(j) => Stored {
                json: Some(j.clone()),
                typed: OnceLock::new(),
            },
            None => Stored::typed(self.get().clone()),
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
        assert_eq!(s.json(), Some(serde_json::to_string(&pod()).unwrap().as_str()));
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
            s.json(),
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
        assert_eq!(sa.json(), Some(a));
        assert!(inside(sa.json().unwrap()), "compact text is not copied");
        // Text with spaces is minified into a buffer of its own.
        let sb: Stored<core::Pod> = Stored::from_json_in(b, Some(&file));
        assert_eq!(sb.json(), Some(r#"{"metadata":{"name":"b"}}"#));
        assert!(!inside(sb.json().unwrap()));
        // Text that is not in the buffer is copied, not sliced.
        let elsewhere = a.to_string();
        let sc: Stored<core::Pod> = Stored::from_json_in(&elsewhere, Some(&file));
        assert_eq!(sc.json(), Some(a));
        assert!(!inside(sc.json().unwrap()));
        // Without a buffer, the text is minified into its own, as `from_json` does.
        let sd: Stored<core::Pod> = Stored::from_json_in(b, None);
        assert_eq!(sd.json(), Some(r#"{"metadata":{"name":"b"}}"#));
        assert!(!inside(sd.json().unwrap()));
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
}
