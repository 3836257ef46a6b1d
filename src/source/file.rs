//! Snapshot files: a YAML or JSON file holding a `kind: List`, several `---`-separated
//! documents, a JSON array, or a directory of such files, with objects as
//! `kubectl get -o yaml` prints them. Kinds the engine does not use are counted and skipped.

use std::path::{Path, PathBuf};

use bytes::Bytes;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::model::kinds::{Kind, ParseWith};
use crate::model::{Cluster, ModelError, Object, ObjectKey, Origin, ReadObject};

/// Why a snapshot could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file or directory could not be read.
    #[error("cannot read snapshot '{path}'")]
    Io {
        /// Path.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// The input holds no object at all.
    #[error(
        "{path}: {what}: there is nothing to explain (a snapshot needs at least one object, e.g. a Node and a Pod)"
    )]
    Empty {
        /// Path.
        path: String,
        /// What was found instead.
        what: String,
    },
    /// The text is not YAML/JSON.
    #[error("{path}: document {doc}: not valid {format}: {message}")]
    Syntax {
        /// Path.
        path: String,
        /// Document index.
        doc: usize,
        /// YAML or JSON.
        format: &'static str,
        /// Parser message (with line and column).
        message: String,
    },
    /// A document is not a Kubernetes object.
    #[error("{path}: document {doc}: {message}")]
    Shape {
        /// Path.
        path: String,
        /// Document index.
        doc: usize,
        /// What is wrong.
        message: String,
    },
    /// An object has a field of the wrong type.
    #[error("{origin}: {kind} {key}: field '{field}': {message}")]
    Field {
        /// Where.
        origin: Origin,
        /// Kind.
        kind: String,
        /// Object.
        key: ObjectKey,
        /// Field path.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// An object is inconsistent (bad quantity, missing name, duplicate).
    #[error(transparent)]
    Model(#[from] ModelError),
}

/// Reads a snapshot file or directory into a cluster.
/// A single file's top-level [`crate::source::snapshot::INFO_KEY`] value is kept in
/// [`Cluster::recorded_info`], found in the same read.
pub fn load_path(path: &Path) -> Result<Cluster, LoadError> {
    let mut warnings = Vec::new();
    let mut pods = Vec::new();
    let mut info = None;
    let objects = read_all(path, &mut warnings, None, Some(&mut pods), Some(&mut info))?;
    let mut c = Cluster::build_with_pods(objects, pods)?;
    c.warnings.splice(0..0, warnings);
    c.recorded_info = info;
    Ok(c)
}

/// Reads a snapshot from text (for embedded fixtures and tests); `name` is used in messages.
pub fn load_str(name: &str, text: &str) -> Result<Cluster, LoadError> {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let mut pods = Vec::new();
    parse_text(name, text, None, &mut out, &mut warnings, None, Some(&mut pods))?;
    let mut c = Cluster::build_with_pods(out, pods)?;
    c.warnings.splice(0..0, warnings);
    Ok(c)
}

#[allow(clippy::result_large_err)]
/// As `load_path`, keeping every document as read in `Cluster::source_documents` so the
/// cluster can be saved back without losing objects or fields (`super::save`), and
/// [`Cluster::recorded_info`] as [`load_path`] does.
pub fn load_path_keeping_documents(path: &Path) -> Result<Cluster, LoadError> {
    let mut warnings = Vec::new();
    let mut raw = Vec::new();
    let mut info = None;
    let objects = read_all(path, &mut warnings, Some(&mut raw), None, Some(&mut info))?;
    let mut c = Cluster::build(objects)?;
    c.warnings.splice(0..0, warnings);
    c.source_documents = raw;
    c.recorded_info = info;
    Ok(c)
}

#[allow(clippy::result_large_err)]
/// As `load_str`, keeping every document as read (see `load_path_keeping_documents`).
pub fn load_str_keeping_documents(name: &str, text: &str) -> Result<Cluster, LoadError> {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let mut raw = Vec::new();
    parse_text(name, text, None, &mut out, &mut warnings, Some(&mut raw), None)?;
    let mut c = Cluster::build(out)?;
    c.warnings.splice(0..0, warnings);
    c.source_documents = raw;
    Ok(c)
}

/// Reads every object of a snapshot given as text; `name` is used in messages. Unknown
/// fields are reported in `warnings`, as by [`read_objects`].
pub fn read_objects_str(
    name: &str,
    text: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<(Origin, Object)>, LoadError> {
    let mut out = Vec::new();
    parse_text(name, text, None, &mut out, warnings, None, None)?;
    Ok(out)
}

/// Reads every object of a file or directory (sorted file names, not recursive).
/// Fields the object types do not know are reported in `warnings` (a typo such as
/// `resorces` is ignored by the scheduler too, but the user should hear of it).
pub fn read_objects(path: &Path, warnings: &mut Vec<String>) -> Result<Vec<(Origin, Object)>, LoadError> {
    read_objects_keeping(path, warnings, None)
}

#[allow(clippy::result_large_err)]
/// As `read_objects`; with `raw`, also collects every object document as read (List items
/// individually), before any conversion.
pub fn read_objects_keeping(
    path: &Path,
    warnings: &mut Vec<String>,
    raw: Option<&mut Vec<Value>>,
) -> Result<Vec<(Origin, Object)>, LoadError> {
    read_all(path, warnings, raw, None, None)
}

#[allow(clippy::result_large_err, clippy::type_complexity)]
/// As [`read_objects`], with the pods of JSON lists already read into the model (what
/// [`Cluster::build_with_pods`] takes): [`load_path`] in two steps.
pub fn read_objects_and_pods(
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<(Vec<(Origin, Object)>, Vec<(Origin, ReadObject)>), LoadError> {
    let mut pods = Vec::new();
    let objects = read_all(path, warnings, None, Some(&mut pods), None)?;
    Ok((objects, pods))
}

/// As `read_objects_keeping`; with `pods`, the pods of JSON lists are read into the model as
/// they are parsed ([`Cluster::build_with_pods`] takes them) instead of being returned typed;
/// with `info`, a single file's top-level [`crate::source::snapshot::INFO_KEY`] value, from
/// the same read (a pipe can be read only once).
fn read_all(
    path: &Path,
    warnings: &mut Vec<String>,
    mut raw: Option<&mut Vec<Value>>,
    mut pods: Option<&mut Vec<(Origin, ReadObject)>>,
    mut info: Option<&mut Option<Value>>,
) -> Result<Vec<(Origin, Object)>, LoadError> {
    let io = |e| LoadError::Io {
        path: path.display().to_string(),
        source: e,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        info = None;
    }
    let mut files: Vec<PathBuf> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    if meta.is_dir() {
        for e in std::fs::read_dir(path).map_err(io)? {
            let p = e.map_err(io)?.path();
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if p.is_dir() {
                skipped.push(format!("{name}/ (a directory: not read recursively)"));
            } else if name.ends_with(".config.yaml") {
                skipped.push(format!("{name} (a scheduler config: pass it with --config)"));
            } else if matches!(ext, "yaml" | "yml" | "json") {
                files.push(p);
            } else {
                skipped.push(format!("{name} (not .yaml, .yml or .json)"));
            }
        }
        files.sort();
        skipped.sort();
    } else {
        files.push(path.to_path_buf());
    }
    let mut out = Vec::new();
    let mut empty_files = Vec::new();
    for f in &files {
        let read_err = |e| LoadError::Io {
            path: f.display().to_string(),
            source: e,
        };
        // A JSON List is read a piece at a time; what that does not read is read whole below.
        // Only a regular file: a pipe (`<(kubectl get ...)`) cannot be read again from the start.
        if raw.is_none()
            && let Some(p) = pods.as_deref_mut()
            && std::fs::metadata(f).is_ok_and(|m| m.is_file())
        {
            let (n_out, n_warn, n_pods) = (out.len(), warnings.len(), p.len());
            if let Some(found) =
                json_fast::stream(f, &f.display().to_string(), &mut out, warnings, p).map_err(read_err)?
            {
                if let Some(i) = info.as_deref_mut() {
                    *i = found;
                }
                continue;
            }
            out.truncate(n_out);
            warnings.truncate(n_warn);
            p.truncate(n_pods);
        }
        // Read as `read_to_string` does (the same error for text that is not UTF-8), into a
        // buffer the stored pods can share; a pipe or a device only up to a limit.
        let file = Bytes::from(super::input::read_limited(f, super::input::SNAPSHOT_LIMIT).map_err(read_err)?);
        let text = std::str::from_utf8(&file).map_err(|_| {
            read_err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            ))
        })?;
        let text = super::input::strip_bom(text);
        if let Some(i) = info.as_deref_mut() {
            *i = crate::source::snapshot::info_in_text(text);
        }
        let before = out.len() + pods.as_ref().map_or(0, |p| p.len());
        parse_text(
            &f.display().to_string(),
            text,
            Some(&file),
            &mut out,
            warnings,
            raw.as_deref_mut(),
            pods.as_deref_mut(),
        )?;
        if out.len() + pods.as_ref().map_or(0, |p| p.len()) == before && text.trim().is_empty() {
            empty_files.push(
                f.file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or_default(),
            );
        }
    }
    let read: Vec<String> = files
        .iter()
        .map(|f| {
            f.file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default()
        })
        .collect();
    if out.is_empty() && pods.as_ref().is_none_or(|p| p.is_empty()) {
        let what = if !meta.is_dir() {
            if empty_files.is_empty() {
                "the file holds no object".to_string()
            } else {
                "the file is empty".to_string()
            }
        } else if files.is_empty() && skipped.is_empty() {
            "the directory is empty".to_string()
        } else if files.is_empty() {
            format!(
                "the directory has no .yaml, .yml or .json file (skipped: {})",
                skipped.join(", ")
            )
        } else {
            format!("no object in the {} file(s) read ({})", files.len(), read.join(", "))
        };
        return Err(LoadError::Empty {
            path: path.display().to_string(),
            what,
        });
    }
    if meta.is_dir() && !skipped.is_empty() {
        warnings.push(format!(
            "{}: read {} file(s) ({}); skipped {}: {}",
            path.display(),
            files.len(),
            read.join(", "),
            skipped.len(),
            skipped.join(", ")
        ));
    }
    if !empty_files.is_empty() && meta.is_dir() {
        warnings.push(format!("{}: empty file(s): {}", path.display(), empty_files.join(", ")));
    }
    Ok(out)
}

/// Reads the objects of one file's text; `file` is the buffer `text` is (when it was read
/// from a file), which the pods and nodes read on the JSON fast path take their text from
/// without a copy until they are packed.
fn parse_text(
    name: &str,
    text: &str,
    file: Option<&Bytes>,
    out: &mut Vec<(Origin, Object)>,
    warnings: &mut Vec<String>,
    mut raw: Option<&mut Vec<Value>>,
    mut pods: Option<&mut Vec<(Origin, ReadObject)>>,
) -> Result<(), LoadError> {
    let text = super::input::strip_bom(text);
    let trimmed = text.trim_start();
    let looks_json = trimmed.starts_with('{') || trimmed.starts_with('[');
    // JSON's parser limits its depth itself, in linear time; YAML's takes time quadratic in
    // the depth of flow collections, so the depth is checked first
    if !looks_json && let Err(deep) = super::input::check_nesting(text) {
        return Err(LoadError::Syntax {
            path: name.into(),
            doc: deep.doc,
            format: "YAML",
            message: deep.to_string(),
        });
    }
    // merge keys (`<<: *anchor`) are resolved on the general path only
    let merges = !looks_json && super::input::may_merge(text);
    if looks_json && raw.is_none() {
        let (n_out, n_warn) = (out.len(), warnings.len());
        let n_pods = pods.as_ref().map_or(0, |p| p.len());
        if json_fast::parse(name, text, file, out, warnings, pods.as_deref_mut()).is_some() {
            return Ok(());
        }
        // The fast path gave up: start over on the general path, which gives the same result
        // (and the same error, if any).
        out.truncate(n_out);
        warnings.truncate(n_warn);
        if let Some(p) = pods.as_deref_mut() {
            p.truncate(n_pods);
        }
    }
    if !looks_json && !merges && raw.is_none() {
        let (n_out, n_warn) = (out.len(), warnings.len());
        let n_pods = pods.as_ref().map_or(0, |p| p.len());
        if yaml_stream::parse(name, text, out, warnings, pods.as_deref_mut()).is_some() {
            return Ok(());
        }
        out.truncate(n_out);
        warnings.truncate(n_warn);
        if let Some(p) = pods.as_mut() {
            p.truncate(n_pods);
        }
    }
    let mut docs: Vec<Value> = Vec::new();
    if looks_json {
        let v: Value = serde_json::from_str(text).map_err(|e| LoadError::Syntax {
            path: name.into(),
            doc: 0,
            format: "JSON",
            message: e.to_string(),
        })?;
        docs.push(v);
    } else {
        for (i, d) in serde_yaml::Deserializer::from_str(text).enumerate() {
            let mut v = Value::deserialize(d).map_err(|e| LoadError::Syntax {
                path: name.into(),
                doc: i,
                format: "YAML",
                message: e.to_string(),
            })?;
            if merges {
                super::input::resolve_merge_keys(&mut v).map_err(|message| LoadError::Shape {
                    path: name.into(),
                    doc: i,
                    message,
                })?;
            }
            docs.push(v);
        }
    }
    let mut index = 0usize;
    for d in docs {
        match d {
            Value::Null => {}
            Value::Array(items) => {
                for it in items {
                    push_object(name, &mut index, it, out, warnings, raw.as_deref_mut())?;
                }
            }
            Value::Object(ref m)
                if m.get("kind")
                    .and_then(Value::as_str)
                    .is_some_and(|k| k.ends_with("List")) =>
            {
                let Value::Object(mut m) = d else { continue };
                match m.remove("items") {
                    Some(Value::Array(items)) => {
                        for it in items {
                            push_object(name, &mut index, it, out, warnings, raw.as_deref_mut())?;
                        }
                    }
                    Some(Value::Null) | None => {}
                    Some(_) => {
                        return Err(LoadError::Shape {
                            path: name.into(),
                            doc: index,
                            message: "a List's 'items' must be a sequence".into(),
                        });
                    }
                }
            }
            other => push_object(name, &mut index, other, out, warnings, raw.as_deref_mut())?,
        }
    }
    Ok(())
}

/// Resource-list keys whose numbers YAML may have left unquoted (`cpu: 2`): a container's
/// requests and limits, a node's capacity, overheads (a pod's, a RuntimeClass's `podFixed`),
/// a ResourceQuota's `hard` and `used`, a LimitRange item's `default`, `defaultRequest`, `max`,
/// `min` and `maxLimitRequestRatio`.
const QUANTITY_MAPS: &[&str] = &[
    "requests",
    "limits",
    "capacity",
    "allocatable",
    "overhead",
    "podFixed",
    "minResources",
    "storage",
    "hard",
    "used",
    "default",
    "defaultRequest",
    "max",
    "min",
    "maxLimitRequestRatio",
];

/// Quotes the numbers of the resource lists of an object (see [`QUANTITY_MAPS`]).
pub(crate) fn quote_quantities(v: &mut Value, in_list: bool) {
    match v {
        Value::Object(m) => {
            for (k, child) in m.iter_mut() {
                let is_list = QUANTITY_MAPS.contains(&k.as_str());
                if in_list && let Value::Number(n) = child {
                    *child = Value::String(n.to_string());
                    continue;
                }
                quote_quantities(child, is_list);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| quote_quantities(x, false)),
        _ => {}
    }
}

/// True for a kind without a namespace (an unknown kind is taken as namespaced): a namespaced
/// object without one lands in "default", as `kubectl apply` puts it.
fn cluster_scoped(kind: &str) -> bool {
    Kind::named(kind).is_some_and(|k| !k.namespaced())
}

/// The fast path for JSON snapshots: a `List` (or an array) whose items are deserialized
/// straight from their text into the typed objects, without building a `serde_json::Value`
/// tree of the whole file.
///
/// It only ever returns a result the general path would also give: whenever an item is not
/// a plain, well-formed object of a known kind (a number where a quantity is expected, an
/// unknown field, no name, ...) that item goes through the general per-object code
/// (`push_object`) on its own `Value`; and on any error at all the whole file is handed back
/// (`None`) to the general path, so error messages and their order stay exactly the same.
mod json_fast {
    use std::borrow::Cow;
    use std::fmt;
    use std::sync::mpsc;

    use serde::de::{DeserializeOwned, MapAccess, Visitor};
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;
    use serde_json::value::RawValue;

    use super::{Bytes, Kind, Object, Origin, ParseWith, cluster_scoped, field_path, push_object};
    use crate::model::{Node, Pod, ReadObject, stored};

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
    pub(super) fn pack_from(read: &mut [(Origin, ReadObject)], packed: &mut usize) {
        stored::pack(read[*packed..].iter_mut().filter_map(|(_, r)| r.slot()));
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
            return Some(vec![run(name, base, items, to_model)?]);
        }
        let per = items.len().div_ceil(threads);
        let chunks: Vec<Option<Chunk>> = std::thread::scope(|s| {
            let handles: Vec<_> = items
                .chunks(per)
                .enumerate()
                .map(|(i, slice)| s.spawn(move || run(name, base + i * per, slice, to_model)))
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
                return Some(vec![run(name, base, items, to_model)?]);
            }
            next = c.end;
        }
        Some(chunks)
    }

    /// How much of a file [`stream`] reads at a time after a first piece of 64 KiB (which
    /// tells a List from anything else): a thirty-second of the file, from 256 KiB to 1 MiB.
    /// Two pieces are in memory, one being read into the model and the next being read from
    /// the file, and each of their pages costs a fault when first written: at 1,000 nodes
    /// (a 7.5 MB file) 1 MiB pieces were 700 of the load's 4,000 faults more than 256 KiB
    /// ones. A large file keeps 1 MiB: smaller pieces there took faults away but not kernel
    /// time (the workers wake twice as often).
    pub(super) fn piece_for(file_len: u64) -> usize {
        const MIN: usize = 256 << 10;
        const MAX: usize = 1 << 20;
        usize::try_from(file_len / 32).map_or(MAX, |p| p.clamp(MIN, MAX))
    }

    /// Reads a JSON List file a piece at a time through two buffers used in turn, its pods and
    /// nodes into the model (packed, so no piece is held once read): the objects a whole-file
    /// read gives, without a buffer the size of the file (at 100,000 pods, 38 MB of fresh
    /// pages). While the piece's items are read into the model on other threads, this one
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
            // request lists they share ([`crate::model::Labels::shared`]) last the whole file.
            let (done_tx, done) = mpsc::channel();
            let (workers, handles): (Vec<_>, Vec<_>) = (0..threads)
                .map(|w| {
                    let (tx, jobs) = mpsc::channel::<Job>();
                    let done_tx = done_tx.clone();
                    let h = s.spawn(move || {
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
                                .and_then(|t| run(name, base, &t, Some(Some(&piece))))
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

    fn run(name: &str, start: usize, items: &[&str], to_model: Option<Option<&Bytes>>) -> Option<Chunk> {
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
            item(&file, &mut index, it, &mut c, to_model)?;
            if i % PACK_EVERY == PACK_EVERY - 1 {
                pack_from(&mut c.read, &mut packed);
            }
        }
        pack_from(&mut c.read, &mut packed);
        c.end = index;
        Some(c)
    }

    fn item(
        name: &crate::model::ThinStr,
        index: &mut usize,
        s: &str,
        c: &mut Chunk,
        to_model: Option<Option<&Bytes>>,
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
                        match Pod::read(pod, as_written.then_some(s), file) {
                            Ok(r) => c.read.push((origin, ReadObject::Pod(r))),
                            Err(_) => c.out.push((origin, typed(kind, api_version, s)?.0)),
                        }
                    }
                    Object::Node(node) if let Some(file) = to_model => {
                        match Node::read(*node, as_written.then_some(s), file) {
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
}

/// The streaming path for YAML snapshots: each item of a `List` is read into a `Value` and
/// converted at once, so the whole file never sits in memory as one `Value` tree.
///
/// Same contract as [`json_fast`]: every object goes through the general per-object code
/// (`push_object`) on the same `Value` the general path would build, and on any error, or
/// when a document is not what it first looked like, the whole file is handed back (`None`)
/// to the general path, which gives the same result and the same error.
mod yaml_stream {
    use std::fmt;

    use serde::Deserializer;
    use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
    use serde_json::{Map, Value};

    use super::{Object, Origin, push_object};
    use crate::model::{Pod, ReadObject};

    struct State<'s> {
        name: &'s str,
        index: usize,
        out: &'s mut Vec<(Origin, Object)>,
        warnings: &'s mut Vec<String>,
    }

    fn give_up<E: serde::de::Error>() -> E {
        E::custom("handed back to the general path")
    }

    impl State<'_> {
        fn push<E: serde::de::Error>(&mut self, v: Value) -> Result<(), E> {
            push_object(self.name, &mut self.index, v, self.out, self.warnings, None).map_err(|_| give_up())
        }
    }

    /// Parses a whole YAML snapshot, or gives up (`None`).
    pub(super) fn parse(
        name: &str,
        text: &str,
        out: &mut Vec<(Origin, Object)>,
        warnings: &mut Vec<String>,
        mut pods: Option<&mut Vec<(Origin, ReadObject)>>,
    ) -> Option<()> {
        if let Some(items) = split_list(text) {
            // A List whose items are a block sequence at column 0: each run of items is parsed
            // on its own, so the YAML parser never holds the events of the whole file (it
            // reads a document's events in full before handing out the first value), and the
            // runs are spread over the cores.
            for part in parse_items(name, text, &items, pods.is_some())? {
                out.extend(part.out);
                warnings.extend(part.warnings);
                if let Some(p) = pods.as_deref_mut() {
                    p.extend(part.pods);
                }
            }
            return Some(());
        }
        let mut st = State {
            name,
            index: 0,
            out,
            warnings,
        };
        for d in serde_yaml::Deserializer::from_str(text) {
            d.deserialize_any(Doc(&mut st)).ok()?;
        }
        Some(())
    }

    /// Items parsed per YAML parser run.
    const CHUNK: usize = 512;

    /// What one thread's run over a slice of the items gives.
    #[derive(Default)]
    struct Part {
        out: Vec<(Origin, Object)>,
        warnings: Vec<String>,
        pods: Vec<(Origin, ReadObject)>,
        /// The document number after the slice's last item.
        end: usize,
    }

    /// The items in order, on as many threads as the machine has (at most 8), each taking a
    /// contiguous slice numbered from its first item's position; the parts are exactly those
    /// of one run from the first item to the last, or that run itself when an item is not one
    /// document (a List inside the List) and the numbering cannot be known up front.
    fn parse_items(name: &str, text: &str, items: &[std::ops::Range<usize>], read_pods: bool) -> Option<Vec<Part>> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
        if threads < 2 || items.len() < 4 * CHUNK {
            return Some(vec![run(name, text, 0, items, read_pods)?]);
        }
        let per = items.len().div_ceil(threads);
        let parts: Vec<Option<Part>> = std::thread::scope(|s| {
            let handles: Vec<_> = items
                .chunks(per)
                .enumerate()
                .map(|(i, slice)| s.spawn(move || run(name, text, i * per, slice, read_pods)))
                .collect();
            handles.into_iter().map(|h| h.join().ok().flatten()).collect()
        });
        let parts: Vec<Part> = parts.into_iter().collect::<Option<_>>()?;
        let one_each = parts
            .iter()
            .enumerate()
            .all(|(i, p)| p.end == (i * per + per).min(items.len()));
        if !one_each {
            return Some(vec![run(name, text, 0, items, read_pods)?]);
        }
        Some(parts)
    }

    /// The items of `slice` read in runs of [`CHUNK`], numbered from `start`; the pods read
    /// into the model at once when `read_pods` (as the JSON fast path does).
    fn run(name: &str, text: &str, start: usize, slice: &[std::ops::Range<usize>], read_pods: bool) -> Option<Part> {
        let mut p = Part::default();
        let mut index = start;
        let mut packed = 0;
        for chunk in slice.chunks(CHUNK) {
            let (from, to) = (chunk[0].start, chunk[chunk.len() - 1].end);
            let vs: Vec<Value> = serde_yaml::from_str(&text[from..to]).ok()?;
            if vs.len() != chunk.len() {
                return None;
            }
            for v in vs {
                let before = p.out.len();
                push_object(name, &mut index, v, &mut p.out, &mut p.warnings, None).ok()?;
                if !read_pods || p.out.len() != before + 1 || !matches!(p.out[before].1, Object::Pod(_)) {
                    continue;
                }
                if let Some((origin, Object::Pod(pod))) = p.out.pop() {
                    // a pod the model refuses: the general path reads the file again and
                    // Cluster::build words the error
                    p.pods.push((origin, ReadObject::Pod(Pod::read(pod, None, None).ok()?)));
                }
            }
            super::json_fast::pack_from(&mut p.pods, &mut packed);
        }
        p.end = index;
        Some(p)
    }

    /// Where each item of a single-document `kind: List` is, when the file has the shape
    /// `kubectl get -o yaml` and kschedtui write: a column-0 `items:` line followed by a
    /// block sequence whose entries start with `- ` at column 0, the other top-level keys
    /// (apiVersion, kind: ...List, metadata) before or after it. None for anything else
    /// (several documents, flow style, an indented sequence, no List), which the general
    /// streaming parser then reads. A shape this misjudges (an alias to an anchor in another
    /// item, say) fails to parse and the whole file goes to the general path too.
    pub(super) fn split_list(text: &str) -> Option<Vec<std::ops::Range<usize>>> {
        let mut items: Vec<std::ops::Range<usize>> = Vec::new();
        let mut rest = String::new();
        let mut state = 0u8; // 0: before items, 1: in items, 2: after items
        let mut pos = 0usize;
        for line in text.split_inclusive('\n') {
            let start = pos;
            pos += line.len();
            let body = line.trim_end_matches(['\n', '\r']);
            if body == "---" && start == 0 {
                continue;
            }
            if body.starts_with("---") || body.starts_with("...") || body.starts_with('%') {
                return None;
            }
            match state {
                0 => {
                    if body.trim_end() == "items:" {
                        state = 1;
                    } else {
                        rest.push_str(line);
                    }
                }
                1 => {
                    if body.starts_with("- ") || body == "-" {
                        if let Some(last) = items.last_mut() {
                            last.end = start;
                        }
                        items.push(start..pos);
                    } else if body.is_empty() || body.starts_with(' ') || body.starts_with('#') {
                        // inside the current item (or before the first: only blanks and
                        // comments are allowed there)
                        match items.last_mut() {
                            Some(last) => last.end = pos,
                            None if body.trim().is_empty() || body.trim_start().starts_with('#') => {}
                            None => return None,
                        }
                    } else {
                        state = 2;
                        rest.push_str(line);
                    }
                }
                _ => rest.push_str(line),
            }
        }
        if items.is_empty() {
            return None;
        }
        // the keys around the items must make a List
        let head: serde_yaml::Mapping = serde_yaml::from_str(&rest).ok()?;
        let kind = head.get("kind").and_then(serde_yaml::Value::as_str)?;
        if !kind.ends_with("List") || head.contains_key("items") {
            return None;
        }
        Some(items)
    }

    /// One document: null (skipped), a sequence of objects, a List, or one object.
    struct Doc<'a, 's>(&'a mut State<'s>);

    impl<'de> Visitor<'de> for Doc<'_, '_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a Kubernetes object, a List or a sequence of objects")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
            Items(self.0).visit_seq(seq)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
            let mut map = Map::new();
            let mut streamed = false;
            while let Some(k) = m.next_key::<String>()? {
                if k == "items" {
                    if streamed {
                        return Err(give_up());
                    }
                    // Converted before `kind` is known (kubectl writes `items` first); if this
                    // turns out not to be a List, the general path starts over.
                    m.next_value_seed(Items(&mut *self.0))?;
                    streamed = true;
                } else {
                    let v: Value = m.next_value()?;
                    map.insert(k, v);
                }
            }
            let is_list = map
                .get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| k.ends_with("List"));
            match (is_list, streamed) {
                (true, _) => Ok(()),
                (false, false) => self.0.push(Value::Object(map)),
                (false, true) => Err(give_up()),
            }
        }
    }

    /// A List's `items`: a sequence of objects (or null).
    struct Items<'a, 's>(&'a mut State<'s>);

    impl<'de> DeserializeSeed<'de> for Items<'_, '_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Items<'_, '_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a sequence of objects")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while let Some(v) = seq.next_element::<Value>()? {
                self.0.push(v)?;
            }
            Ok(())
        }
    }
}

/// True for a `List` object (`kind: List`, `PodList`, ...): its items are objects of their own.
fn is_list(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str).is_some_and(is_list_kind)
}

/// True for the kind of a `List`.
fn is_list_kind(kind: &str) -> bool {
    kind.ends_with("List")
}

/// Reads one object; a `List` inside a List is flattened, as kubectl does, into its items.
fn push_object(
    name: &str,
    index: &mut usize,
    mut v: Value,
    out: &mut Vec<(Origin, Object)>,
    warnings: &mut Vec<String>,
    mut raw: Option<&mut Vec<Value>>,
) -> Result<(), LoadError> {
    if is_list(&v)
        && let Value::Object(m) = &mut v
    {
        return match m.remove("items") {
            Some(Value::Array(items)) => {
                for it in items {
                    push_object(name, index, it, out, warnings, raw.as_deref_mut())?;
                }
                Ok(())
            }
            Some(Value::Null) | None => Ok(()),
            Some(_) => Err(LoadError::Shape {
                path: name.into(),
                doc: *index,
                message: "a List's 'items' must be a sequence".into(),
            }),
        };
    }
    if let Some(r) = raw {
        r.push(v.clone());
    }
    let doc = *index;
    *index += 1;
    let origin = Origin { file: name.into(), doc };
    let Value::Object(m) = &v else {
        return Err(LoadError::Shape {
            path: name.into(),
            doc,
            message: "expected a Kubernetes object (a mapping with apiVersion and kind)".into(),
        });
    };
    let Some(kind) = m.get("kind").and_then(Value::as_str).map(str::to_string) else {
        return Err(LoadError::Shape {
            path: name.into(),
            doc,
            message: "object has no 'kind'".into(),
        });
    };
    let mut api_version = m.get("apiVersion").and_then(Value::as_str).unwrap_or("").to_string();
    // DRA objects written at resource.k8s.io/v1beta1 or v1beta2 (a 1.32 or 1.33 cluster) are
    // read in v1's shape, as a live source reads them
    if let Some(version) = api_version.strip_prefix("resource.k8s.io/")
        && matches!(version, "v1beta1" | "v1beta2")
        && let Some(k) = Kind::of_document(&kind, "resource.k8s.io/v1")
    {
        crate::model::dra_versions::to_v1(k, version, &mut v);
        api_version = "resource.k8s.io/v1".into();
    }
    // A namespaced object without a namespace lands in "default", as `kubectl apply` puts it.
    if !cluster_scoped(&kind)
        && let Value::Object(m) = &mut v
        && let Some(Value::Object(md)) = m.get_mut("metadata")
        && md.get("namespace").and_then(Value::as_str).is_none_or(str::is_empty)
    {
        md.insert("namespace".into(), Value::String("default".into()));
    }
    let key = {
        let md = v.get("metadata");
        let s = |f: &str| {
            md.and_then(|x| x.get(f))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        ObjectKey::new(s("namespace"), s("name"))
    };
    // CSINode's `drivers[].allocatable.count` is an integer, not a quantity; a
    // CSIStorageCapacity's quantities are top-level fields.
    match kind.as_str() {
        "CSINode" => {}
        "CSIStorageCapacity" => {
            if let Value::Object(m) = &mut v {
                for f in ["capacity", "maximumVolumeSize"] {
                    if let Some(Value::Number(n)) = m.get(f) {
                        let q = Value::String(n.to_string());
                        m.insert(f.to_string(), q);
                    }
                }
            }
        }
        _ => quote_quantities(&mut v, false),
    }
    // A 1.35 pod's spec.workloadRef (gone from the 1.36+ types) is kept in an annotation.
    if kind == "Pod"
        && let Some(r) = v
            .get_mut("spec")
            .and_then(Value::as_object_mut)
            .and_then(|m| m.remove("workloadRef"))
        && let Some(md) = v.get_mut("metadata").and_then(Value::as_object_mut)
    {
        let ann = md
            .entry("annotations")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Value::Object(a) = ann {
            a.insert(
                crate::model::workload::WORKLOAD_REF_ANNOTATION.into(),
                Value::String(r.to_string()),
            );
        }
    }
    let mut unknown: Vec<String> = Vec::new();
    fn typed_object<T: DeserializeOwned>(
        v: Value,
        origin: &Origin,
        kind: &str,
        key: &ObjectKey,
        unknown: &mut Vec<String>,
    ) -> Result<T, LoadError> {
        let mut note = |path: serde_ignored::Path<'_>| {
            let p = field_path(&path);
            if !matches!(p.as_str(), "apiVersion" | "kind") {
                unknown.push(p);
            }
        };
        let de = serde_ignored::Deserializer::new(v, &mut note);
        serde_path_to_error::deserialize(de).map_err(|e| LoadError::Field {
            origin: origin.clone(),
            kind: kind.to_string(),
            key: key.clone(),
            field: e.path().to_string(),
            message: e.inner().to_string(),
        })
    }
    /// A JSON value to parse into a kind's type, noting unknown fields.
    struct Typed<'a> {
        v: Value,
        origin: &'a Origin,
        kind: &'a str,
        key: &'a ObjectKey,
        unknown: &'a mut Vec<String>,
    }
    impl ParseWith for Typed<'_> {
        type Error = LoadError;
        fn parse<T: DeserializeOwned>(self) -> Result<T, LoadError> {
            typed_object(self.v, self.origin, self.kind, self.key, self.unknown)
        }
    }
    let o = &origin;
    let obj = match Kind::of_document(&kind, &api_version) {
        Some(Kind::Event) => failed_scheduling(typed_object(v, o, &kind, &key, &mut unknown)?),
        None if kind == "Event" && api_version.starts_with("events.k8s.io/") => {
            failed_scheduling(crate::model::core_event(typed_object(v, o, &kind, &key, &mut unknown)?))
        }
        Some(k) => k.parse(Typed {
            v,
            origin: o,
            kind: &kind,
            key: &key,
            unknown: &mut unknown,
        })?,
        None => {
            if let Some(accepted) = Kind::unread_api_version(&kind, &api_version) {
                return Err(LoadError::Field {
                    origin,
                    kind,
                    key,
                    field: "apiVersion".into(),
                    message: format!(
                        "'{api_version}' is not an apiVersion kschedtui reads for this kind (it reads {})",
                        accepted.join(", ")
                    ),
                });
            }
            out.push((origin, Object::Skipped(kind)));
            return Ok(());
        }
    };
    if matches!(obj, Object::Skipped(_)) {
        // An event that is not kept (not FailedScheduling, not about a pod) is ignored whole.
        unknown.clear();
    }
    for f in unknown {
        warnings.push(format!("{origin}: {kind} {key}: unknown field '{f}' (ignored)"));
    }
    out.push((origin, obj));
    Ok(())
}

/// An event is kept when it is a FailedScheduling event about a pod; any other event is
/// skipped like a kind the engine does not use (counted, no warning, its unknown fields not
/// reported either).
fn failed_scheduling(e: k8s_openapi::api::core::v1::Event) -> Object {
    if crate::model::SchedulingEvent::from_event(&e).is_some() {
        Object::Event(Box::new(e))
    } else {
        Object::Skipped("Event".into())
    }
}

/// A field path as a user writes it: `spec.containers[0].resorces`.
fn field_path(p: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match p {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", field_path(parent)),
        Path::Map { parent, key } => {
            let head = field_path(parent);
            if head.is_empty() {
                key.clone()
            } else {
                format!("{head}.{key}")
            }
        }
        Path::Some { parent } | Path::NewtypeStruct { parent } | Path::NewtypeVariant { parent } => field_path(parent),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Reads `text` on the general path (asked to keep the documents, it never takes the fast
    /// ones) and on the default path; both answers, objects and warnings or error, rendered.
    fn both_paths(text: &str) -> (String, String) {
        let run = |keep: bool| {
            let mut out = Vec::new();
            let mut warnings = Vec::new();
            let mut raw = Vec::new();
            let r = parse_text("t", text, None, &mut out, &mut warnings, keep.then_some(&mut raw), None);
            match r {
                Ok(()) => format!("{out:?}\n{warnings:?}"),
                Err(e) => format!("error: {e}"),
            }
        };
        (run(true), run(false))
    }

    const JSON_LIST: &str = r#"{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[
{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"zone":"a"}},
 "spec":{"taints":[{"key":"k","value":"v","effect":"NoSchedule"}]},
 "status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},"images":[{"names":["img:1"],"sizeBytes":1000}]}},
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","labels":{"app":"web"}},
 "spec":{"nodeName":"n1","containers":[{"name":"c","image":"img:1","resources":{"requests":{"cpu":"500m"}}}],
  "affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
   {"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}]}}},
 "status":{"phase":"Running"}},
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p2","namespace":""},"spec":{"containers":[{"name":"c"}]}},
{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"b"}},
{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"pdb","namespace":"team"},
 "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}}}
]}"#;

    const PARALLEL_FROM_FOR_TESTS: usize = json_fast::PARALLEL_FROM;

    /// The cluster as the general path builds it (typed objects, then `Cluster::build`).
    fn general_cluster(text: &str) -> Result<Cluster, String> {
        let (mut out, mut warnings, mut raw) = (Vec::new(), Vec::new(), Vec::new());
        parse_text("t", text, None, &mut out, &mut warnings, Some(&mut raw), None).map_err(|e| e.to_string())?;
        let mut c = Cluster::build(out).map_err(|e| e.to_string())?;
        c.warnings.splice(0..0, warnings);
        Ok(c)
    }

    fn summary(c: &Cluster) -> String {
        format!(
            "{:?}\n{:?}\n{:?}\n{:?}",
            c.nodes, c.pods, c.warnings, c.priority_classes
        )
    }

    #[test]
    fn json_lists_read_on_several_threads_with_pods_read_at_once_build_the_general_paths_cluster() {
        use crate::source::generate::{GenSpec, generate};
        let mut v = generate(GenSpec {
            pending: 20,
            failing: 12,
            ..GenSpec::new(40, 4200, 7)
        });
        // a priority class, a pod naming it, a pod naming a missing one, a pod without a
        // namespace (its text does not say all of it)
        let items = v["items"].as_array_mut().unwrap();
        items.insert(
            3,
            json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "high"}, "value": 1000}),
        );
        items.push(
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "hi", "namespace": "x"},
            "spec": {"priorityClassName": "high", "containers": [{"name": "c"}]}}),
        );
        items.push(
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "lost", "namespace": "x"},
            "spec": {"priorityClassName": "nope", "containers": [{"name": "c"}]}}),
        );
        items.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nons"},
            "spec": {"containers": [{"name": "c"}]}}));
        assert!(items.len() > PARALLEL_FROM_FOR_TESTS);
        let text = serde_json::to_string_pretty(&v).unwrap();
        let fast = load_str("t", &text).unwrap();
        let general = general_cluster(&text).unwrap();
        assert_eq!(fast.pods.len(), 4200 + 20 + 12 + 1 + 3);
        assert_eq!(summary(&fast), summary(&general));
        let hi = fast.pod(&ObjectKey::new("x", "hi")).unwrap();
        assert_eq!(hi.priority, 1000);
        assert!(
            fast.warnings
                .iter()
                .any(|w| w.contains("'nope' names no PriorityClass"))
        );
        assert_eq!(
            fast.pod(&ObjectKey::new("default", "nons"))
                .unwrap()
                .obj
                .metadata
                .namespace
                .as_deref(),
            Some("default")
        );
        // a duplicate pod is the same error on both paths
        let items = v["items"].as_array_mut().unwrap();
        let dup = items.iter().filter(|i| i["kind"] == "Pod").nth(2000).unwrap().clone();
        items.push(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "extra"}}));
        items.push(dup);
        let text = serde_json::to_string(&v).unwrap();
        let e = load_str("t", &text).unwrap_err().to_string();
        assert_eq!(e, general_cluster(&text).unwrap_err());
        assert!(e.contains("duplicate object: Pod"), "{e}");
        // a duplicate node is the same error on both paths, whether the later one is read at
        // once or (a field the types do not know) through the general per-object code
        let items = v["items"].as_array_mut().unwrap();
        items.pop();
        let node = items.iter().find(|i| i["kind"] == "Node").unwrap().clone();
        let mut odd = node.clone();
        odd["spec"]["notAField"] = json!(1);
        for again in [node, odd] {
            let items = v["items"].as_array_mut().unwrap();
            items.push(again);
            let text = serde_json::to_string(&v).unwrap();
            let e = load_str("t", &text).unwrap_err().to_string();
            assert_eq!(e, general_cluster(&text).unwrap_err());
            assert!(e.contains("duplicate object: Node node-"), "{e}");
            v["items"].as_array_mut().unwrap().pop();
        }
    }

    #[test]
    fn yaml_lists_read_on_several_threads_with_pods_read_at_once_build_the_general_paths_cluster() {
        use crate::source::generate::{GenSpec, generate};
        let mut v = generate(GenSpec {
            pending: 20,
            failing: 12,
            ..GenSpec::new(40, 4200, 9)
        });
        let items = v["items"].as_array_mut().unwrap();
        items.insert(
            3,
            json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "high"}, "value": 1000}),
        );
        items.push(
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "hi", "namespace": "x"},
            "spec": {"priorityClassName": "high", "containers": [{"name": "c"}]}}),
        );
        items.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nons"},
            "spec": {"containers": [{"name": "c"}]}}));
        let text = serde_yaml::to_string(&v).unwrap();
        let parts = yaml_stream::split_list(&text).expect("items at column 0");
        assert!(parts.len() > 4 * 512, "enough items for several threads");
        let fast = load_str("t", &text).unwrap();
        let general = general_cluster(&text).unwrap();
        assert_eq!(fast.pods.len(), 4200 + 20 + 12 + 1 + 2);
        assert_eq!(summary(&fast), summary(&general));
        assert_eq!(fast.pod(&ObjectKey::new("x", "hi")).unwrap().priority, 1000);
        // a List inside the List numbers the documents after it differently: read in one run
        let mut nested = v.clone();
        nested["items"].as_array_mut().unwrap().insert(
            10,
            json!({"apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n1"}},
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n2"}}]}),
        );
        let dup = nested["items"][3000].clone();
        nested["items"].as_array_mut().unwrap().push(dup);
        let text = serde_yaml::to_string(&nested).unwrap();
        let e = load_str("t", &text).unwrap_err().to_string();
        assert_eq!(e, general_cluster(&text).unwrap_err());
        assert!(e.contains("duplicate object: Pod"), "{e}");
        // a pod the model refuses far into the list: the same error as the general path's
        let mut bad = v;
        bad["items"][3500]["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "1.5.3"}});
        let text = serde_yaml::to_string(&bad).unwrap();
        let e = load_str("t", &text).unwrap_err().to_string();
        assert_eq!(e, general_cluster(&text).unwrap_err());
        assert!(e.contains("document 3500"), "{e}");
    }

    #[test]
    fn json_fast_path_reads_clean_lists_as_the_general_path_does() {
        let mut out = Vec::new();
        let mut warnings = Vec::new();
        assert!(json_fast::parse("t", JSON_LIST, None, &mut out, &mut warnings, None).is_some());
        assert_eq!(out.len(), 5);
        // Namespaced objects without a namespace land in "default"; nodes stay cluster-scoped.
        let Object::Pod(p2) = &out[2].1 else { panic!("a pod") };
        assert_eq!(p2.metadata.namespace.as_deref(), Some("default"));
        let Object::Node(n1) = &out[0].1 else { panic!("a node") };
        assert_eq!(n1.metadata.namespace, None);
        assert!(matches!(&out[3].1, Object::Skipped(k) if k == "ConfigMap"));
        assert_eq!(out[4].0.doc, 4);
        let (general, fast) = both_paths(JSON_LIST);
        assert_eq!(general, fast);
        // The same objects as a bare array.
        let items = JSON_LIST
            .split_once(r#""items":"#)
            .map(|(_, r)| r.trim_end().trim_end_matches('}'))
            .unwrap();
        let (general, fast) = both_paths(items);
        assert_eq!(general, fast);
    }

    #[test]
    fn pods_and_nodes_read_from_a_file_are_packed_and_let_its_buffer_go() {
        let pod = |name: &str, sep: &str| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{sep}{{"name":"{name}","namespace":"ns"}},"spec":{{"containers":[{{"name":"c","image":"i"}}]}}}}"#
            )
        };
        let node = r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"zone":"a"}}}"#;
        let (a, b) = (pod("a", ""), pod("b", " "));
        let file = Bytes::from(format!(r#"{{"kind":"List","items":[{a},{node},{b}]}}"#).into_bytes());
        let text = std::str::from_utf8(&file).unwrap();
        let (mut out, mut warnings, mut read) = (Vec::new(), Vec::new(), Vec::new());
        parse_text("t", text, Some(&file), &mut out, &mut warnings, None, Some(&mut read)).unwrap();
        assert!(out.is_empty(), "every object was read into the model");
        fn json(r: &ReadObject) -> String {
            match r {
                ReadObject::Pod(p) => p.pod.obj.json(),
                ReadObject::Node(n) => n.obj.json(),
            }
            .unwrap()
            .into_owned()
        }
        let docs: Vec<usize> = read.iter().map(|(o, _)| o.doc).collect();
        assert_eq!(docs, [0, 1, 2]);
        let ReadObject::Node(n) = &read[1].1 else {
            panic!("a node")
        };
        assert_eq!(
            (n.name.as_str(), n.labels.get("zone").map(String::as_str)),
            ("n1", Some("a"))
        );
        assert!(!n.obj.is_decoded(), "the node keeps its text, not its typed object");
        // Each keeps its compact text (minified when the file's was not) ...
        let texts: Vec<String> = read.iter().map(|(_, r)| json(r)).collect();
        assert_eq!(texts, [a.clone(), node.to_string(), pod("b", "")]);
        // ... packed: nothing holds the file's buffer any more.
        assert!(file.is_unique(), "the file's buffer is let go");
        let ReadObject::Pod(p) = &read[2].1 else {
            panic!("a pod")
        };
        assert_eq!(p.pod.obj.metadata.name.as_deref(), Some("b"));
        // Without a buffer (text given in memory) the same texts are read.
        let mut read2 = Vec::new();
        parse_text("t", text, None, &mut out, &mut warnings, None, Some(&mut read2)).unwrap();
        assert_eq!(read2.iter().map(|(_, r)| json(r)).collect::<Vec<_>>(), texts);
    }

    /// A snapshot file with what the pieces must get right: a pod longer than a piece, a
    /// priority class read before the pods naming it, a pod without a namespace, a node.
    fn streamed_snapshot() -> String {
        use crate::source::generate::{GenSpec, generate};
        let mut v = generate(GenSpec {
            pending: 5,
            ..GenSpec::new(6, 120, 3)
        });
        let items = v["items"].as_array_mut().unwrap();
        items.insert(
            2,
            json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "high"}, "value": 1000}),
        );
        items.insert(
            60,
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "long", "namespace": "x",
            "annotations": {"note": "x".repeat(5000)}},
            "spec": {"priorityClassName": "high", "containers": [{"name": "c"}]}}),
        );
        items.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nons"},
            "spec": {"containers": [{"name": "c"}]}}));
        serde_json::to_string(&v).unwrap()
    }

    /// A new file holding `text`, removed when the path drops.
    fn scratch_file(tag: &str, text: &str) -> tempfile::TempPath {
        let path = tempfile::Builder::new()
            .prefix(&format!("kschedtui-file-{tag}-"))
            .suffix(".json")
            .tempfile()
            .unwrap()
            .into_temp_path();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// What reading `text` from a file in pieces of `sizes` gives (None: left to the general
    /// path), as the cluster built from it and the document number of each pod and node.
    fn streamed(text: &str, sizes: (usize, usize)) -> Option<(Result<String, String>, Vec<usize>)> {
        let path = scratch_file("pieces", text);
        let (mut out, mut warnings, mut read) = (Vec::new(), Vec::new(), Vec::new());
        let r = json_fast::stream_in(&path, "t", &mut out, &mut warnings, &mut read, |_| sizes);
        drop(path);
        r.unwrap()?;
        let docs = read.iter().map(|(o, _)| o.doc).collect();
        let built = Cluster::build_with_pods(out, read)
            .map_err(|e| e.to_string())
            .map(|mut c| {
                c.warnings.splice(0..0, warnings);
                summary(&c)
            });
        Some((built, docs))
    }

    #[test]
    fn a_file_is_read_in_pieces_of_a_thirty_second_of_it_from_256_kib_to_1_mib() {
        assert_eq!(json_fast::piece_for(0), 256 << 10);
        // 1,000 nodes and 20,000 pods as `generate` writes them.
        assert_eq!(json_fast::piece_for(7_561_070), 256 << 10);
        assert_eq!(json_fast::piece_for(16 << 20), 512 << 10);
        assert_eq!(json_fast::piece_for((32 << 20) + 31), 1 << 20);
        assert_eq!(json_fast::piece_for(38_000_000), 1 << 20);
        assert_eq!(json_fast::piece_for(u64::MAX), 1 << 20);
    }

    #[test]
    fn a_json_list_read_from_a_file_in_pieces_builds_the_cluster_a_whole_read_builds() {
        let text = streamed_snapshot();
        let (mut out, mut warnings, mut read) = (Vec::new(), Vec::new(), Vec::new());
        parse_text("t", &text, None, &mut out, &mut warnings, None, Some(&mut read)).unwrap();
        let whole_docs: Vec<usize> = read.iter().map(|(o, _)| o.doc).collect();
        let want = summary(&general_cluster(&text).unwrap());
        for sizes in [(64, 1024), (1000, 4096), (64 << 10, 4 << 20)] {
            let (got, docs) = streamed(&text, sizes).expect("a List");
            assert_eq!(got.as_ref(), Ok(&want), "pieces of {sizes:?}");
            assert_eq!(docs, whole_docs, "pieces of {sizes:?}");
        }
        // Pretty-printed, the same objects.
        let pretty = serde_json::to_string_pretty(&serde_json::from_str::<Value>(&text).unwrap()).unwrap();
        assert_eq!(streamed(&pretty, (64, 1024)).expect("a List").0, Ok(want));
    }

    #[test]
    fn a_file_not_read_cleanly_in_pieces_is_read_whole_with_the_same_result() {
        let text = streamed_snapshot();
        // Text that is not JSON near the end: the pieces read before it are let go, and
        // loading the file says what loading the text says. So does a pod with no name (read
        // in pieces, refused when the cluster is built).
        for (what, with) in [
            (r#"{"name":"nons"}"#, r#"{"name":"nons",}"#),
            (r#"{"name":"nons"}"#, "{}"),
        ] {
            let bad = text.replacen(what, with, 1);
            assert_ne!(bad, text);
            if with == "{}" {
                assert!(streamed(&bad, (64, 1024)).is_some_and(|(r, _)| r.is_err()));
            } else {
                assert_eq!(streamed(&bad, (64, 1024)), None);
            }
            let path = scratch_file("whole", &bad);
            let name = path.display().to_string();
            let from_file = load_path(&path).map(|c| summary(&c)).map_err(|e| e.to_string());
            let from_text = load_str(&name, &bad).map(|c| summary(&c)).map_err(|e| e.to_string());
            assert!(from_file.is_err(), "{from_file:?}");
            assert_eq!(from_file, from_text);
        }
        let path = scratch_file("whole", &text);
        let name = path.display().to_string();
        // Not a List, or not JSON: left to the general path.
        assert_eq!(streamed(r#"{"kind":"Pod","metadata":{"name":"a"}}"#, (64, 1024)), None);
        assert_eq!(streamed("kind: List\nitems: []\n", (64, 1024)), None);
        // A file read whole and one read in pieces load alike.
        std::fs::write(&path, &text).unwrap();
        assert_eq!(
            load_path(&path).map(|c| summary(&c)).map_err(|e| e.to_string()),
            load_str(&name, &text).map(|c| summary(&c)).map_err(|e| e.to_string())
        );
    }

    /// A snapshot given as a pipe (`--snapshot <(kubectl get ... -o yaml)`) is read once,
    /// whole: YAML and JSON alike.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_snapshot_read_from_a_pipe_loads_as_the_same_text_does() {
        use std::io::Write;
        use std::os::fd::AsRawFd;
        let yaml = serde_yaml::to_string(&serde_json::from_str::<Value>(&streamed_snapshot()).unwrap()).unwrap();
        for text in [yaml, streamed_snapshot()] {
            let (reader, mut writer) = std::io::pipe().unwrap();
            let path = PathBuf::from(format!("/proc/self/fd/{}", reader.as_raw_fd()));
            let feed = {
                let text = text.clone();
                std::thread::spawn(move || writer.write_all(text.as_bytes()))
            };
            let got = load_path(&path).map(|c| summary(&c)).map_err(|e| e.to_string());
            feed.join().unwrap().unwrap();
            let want = load_str(&path.display().to_string(), &text)
                .map(|c| summary(&c))
                .map_err(|e| e.to_string());
            assert!(got.is_ok(), "{got:?}");
            assert_eq!(got, want);
        }
    }

    #[test]
    fn json_fast_path_hands_back_what_it_does_not_read_cleanly() {
        let cases = [
            // A number where a quantity goes: the item takes the general path, same result.
            JSON_LIST.replace(r#""cpu":"500m""#, r#""cpu":2"#),
            // An unknown field: the same warning.
            JSON_LIST.replace(r#""image":"img:1","#, r#""image":"img:1","resorces":{},"#),
            // A bad quantity: the same error.
            JSON_LIST.replace(r#""cpu":"500m""#, r#""cpu":"1.5.3""#),
            // The wrong type: the same error.
            JSON_LIST.replace(r#""containers":[{"name":"c"}]"#, r#""containers":{"name":"c"}"#),
            // A number out of range in an ignored place: the general path's syntax error.
            JSON_LIST.replace(r#""data":{"a":"b"}"#, r#""data":{"a":1e400}"#),
            JSON_LIST.replace(r#""resourceVersion":"""#, r#""resourceVersion":1e400"#),
            // No name; not an object; no kind; a duplicate.
            JSON_LIST.replace(r#""name":"p1","#, ""),
            JSON_LIST.replace(
                r#"{"apiVersion":"v1","kind":"ConfigMap","#,
                r#"null, {"apiVersion":"v1","kind":"ConfigMap","#,
            ),
            JSON_LIST.replace(r#""kind":"ConfigMap","#, ""),
            JSON_LIST.replace(r#""name":"p2""#, r#""name":"p1""#),
            // Not a List, items not a sequence, repeated keys, invalid JSON.
            JSON_LIST.replacen(r#""kind":"List""#, r#""kind":"Thing""#, 1),
            JSON_LIST.replacen(r#""kind":"List""#, r#""kind":"List","items":3"#, 1),
            JSON_LIST.replacen(r#""kind":"List""#, r#""kind":"List","kind":"NodeList""#, 1),
            JSON_LIST.replace(r#""kind":"Pod","#, r#""kind":"Pod","kind":"Pod","#),
            JSON_LIST.replace("]}", "]"),
        ];
        for (i, text) in cases.iter().enumerate() {
            assert_ne!(text, JSON_LIST, "case {i} changes the text");
            let (general, fast) = both_paths(text);
            assert_eq!(general, fast, "case {i}");
        }
        let (warned, _) = both_paths(&cases[1]);
        assert!(
            warned.contains("unknown field 'spec.containers[0].resorces'"),
            "{warned}"
        );
        let (failed, _) = both_paths(&cases[4]);
        assert!(failed.starts_with("error: t: document 0: not valid JSON"), "{failed}");
    }

    #[test]
    fn yaml_stream_reads_as_the_general_path_does() {
        let list = "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n  status: {allocatable: {cpu: 4}}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}\nkind: List\n";
        let cases = [
            list.to_string(),
            format!("---\n{list}---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: ns}}\n---\n"),
            format!("{list}---\n- apiVersion: v1\n  kind: Pod\n  metadata: {{name: q}}\n"),
            list.replace("kind: List", "kind: Thing"),
            list.replace("kind: List", "kind: List\nitems: ~"),
            list.replace("cpu: 1}", "cpu: 1, resorces: 2}"),
            list.replace("cpu: 1}", "cpu: 1.5.3}"),
            list.replace("name: p}", "name: p, labels: {a: 1}}"),
            format!("{list}---\n: bad: [\n"),
            "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nitems: []\n".to_string(),
            "items: ~\nkind: PodList\n".to_string(),
            "just text\n".to_string(),
        ];
        for (i, text) in cases.iter().enumerate() {
            let (general, fast) = both_paths(text);
            assert_eq!(general, fast, "case {i}");
        }
        let mut out = Vec::new();
        assert!(yaml_stream::parse("t", list, &mut out, &mut Vec::new(), None).is_some());
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn yaml_lists_read_item_by_item_give_what_the_general_path_gives() {
        // kubectl's shape: items first, comments, a block scalar, blank lines inside items
        let kubectl = "apiVersion: v1\nitems:\n# the nodes\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n    annotations:\n      note: |\n        - not an item\n\n        still the note\n  status: {allocatable: {cpu: 4}}\n\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}\nkind: List\nmetadata:\n  resourceVersion: \"\"\n";
        let many: String = (0..1100)
            .map(|i| {
                format!(
                    "- apiVersion: v1\n  kind: Pod\n  metadata: {{name: p{i}}}\n  spec: {{containers: [{{name: c}}]}}\n"
                )
            })
            .collect();
        let cases = [
            kubectl.to_string(),
            format!("---\n{kubectl}"),
            format!("apiVersion: v1\nkind: List\nitems:\n{many}"),
            // an alias to an anchor in another item: read by the general path
            "kind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: &m {name: n1}\n- apiVersion: v1\n  kind: Namespace\n  metadata: *m\n".to_string(),
            // an error in the 600th item names the same document
            format!("kind: List\nitems:\n{}", many.replace("name: p599}", "name: p599, labels: {a: [}")),
            format!("kind: List\nitems:\n{}", many.replace("name: c}", "name: c, resources: {requests: {cpu: 1.5.3}}}")),
            // not a List after all
            format!("kind: Thing\nitems:\n{many}"),
            // indented items
            "kind: List\nitems:\n  - apiVersion: v1\n    kind: Namespace\n    metadata: {name: a}\n".to_string(),
        ];
        for (i, text) in cases.iter().enumerate() {
            let (general, fast) = both_paths(text);
            assert_eq!(general, fast, "case {i}");
        }
        // the item-by-item reader takes the kubectl shape and leaves the others
        let items = yaml_stream::split_list(kubectl).expect("kubectl's shape");
        assert_eq!(items.len(), 2);
        assert!(kubectl[items[0].clone()].starts_with("- apiVersion: v1\n  kind: Node"));
        assert!(kubectl[items[1].clone()].ends_with("requests: {cpu: 1}}}]}\n"));
        assert_eq!(yaml_stream::split_list(&cases[3]).map(|v| v.len()), Some(2));
        assert_eq!(yaml_stream::split_list(&cases[6]), None);
        assert_eq!(yaml_stream::split_list(&cases[7]), None);
        let mut out = Vec::new();
        let text = format!("apiVersion: v1\nkind: List\nitems:\n{many}");
        assert!(yaml_stream::parse("t", &text, &mut out, &mut Vec::new(), None).is_some());
        assert_eq!(out.len(), 1100);
        assert_eq!(out[1099].0.doc, 1099);
    }

    #[test]
    fn storage_objects_load_with_integer_counts_and_quantities() {
        let text = r#"
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-00}
spec:
  drivers:
  - name: csi.example.com
    nodeID: node-00
    allocatable: {count: 2}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: csi.example.com}
spec: {storageCapacity: true}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap, namespace: kube-system}
storageClassName: fast
nodeTopology: {matchLabels: {zone: a}}
capacity: 1Ti
maximumVolumeSize: 100
"#;
        let c = load_str("t.yaml", text).expect("loads");
        let count = c.csi_nodes["node-00"].spec.drivers[0]
            .allocatable
            .as_ref()
            .and_then(|a| a.count);
        assert_eq!(count, Some(2));
        assert_eq!(c.csi_drivers["csi.example.com"].spec.storage_capacity, Some(true));
        let cap = &c.csi_storage_capacities[0];
        assert_eq!(cap.capacity.as_ref().map(|q| q.0.as_str()), Some("1Ti"));
        assert_eq!(cap.maximum_volume_size.as_ref().map(|q| q.0.as_str()), Some("100"));
    }

    #[test]
    fn volume_attachments_load_on_both_paths_and_warn_of_unknown_fields() {
        let json = r#"{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"csi-0a1b","resourceVersion":"7"},
 "spec":{"attacher":"ebs.csi.aws.com","nodeName":"node-1","source":{"persistentVolumeName":"pv-1"}},
 "status":{"attached":true,"attachmentMetadata":{"devicePath":"/dev/xvdba"}}},
{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"csi-inline"},
 "spec":{"attacher":"ebs.csi.aws.com","nodeName":"node-1",
  "source":{"inlineVolumeSpec":{"capacity":{"storage":5},"csi":{"driver":"ebs.csi.aws.com","volumeHandle":"vol-9"}}}}}
]}"#;
        let (general, fast) = both_paths(json);
        assert_eq!(general, fast);
        assert!(!general.starts_with("error"), "{general}");
        let mut warnings = Vec::new();
        let out = read_objects_str("t.json", json, &mut warnings).unwrap();
        assert_eq!(warnings, Vec::<String>::new());
        let Object::VolumeAttachment(va) = &out[0].1 else {
            panic!("a VolumeAttachment")
        };
        // Cluster-scoped: no namespace is filled in.
        assert_eq!(va.metadata.namespace, None);
        assert_eq!(va.spec.source.persistent_volume_name.as_deref(), Some("pv-1"));
        assert_eq!(va.status.as_ref().map(|s| s.attached), Some(true));
        let Object::VolumeAttachment(inline) = &out[1].1 else {
            panic!("a VolumeAttachment")
        };
        let spec = inline.spec.source.inline_volume_spec.as_ref().unwrap();
        assert_eq!(spec.capacity.as_ref().unwrap()["storage"].0, "5");
        // An unknown field: the same warning on both paths.
        let typo = json.replace(
            r#""nodeName":"node-1","source":{"persistentVolumeName""#,
            r#""nodeNmae":"x","nodeName":"node-1","source":{"persistentVolumeName""#,
        );
        assert_ne!(typo, json);
        let (general, fast) = both_paths(&typo);
        assert_eq!(general, fast);
        assert!(
            general.contains("VolumeAttachment csi-0a1b: unknown field 'spec.nodeNmae' (ignored)"),
            "{general}"
        );
        // YAML, general path, into the cluster by name.
        let yaml = r#"
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: csi-0a1b}
spec:
  attacher: ebs.csi.aws.com
  nodeName: node-1
  source: {persistentVolumeName: pv-1}
status: {attached: false}
"#;
        let c = load_str("t.yaml", yaml).expect("loads");
        let va = &c.volume_attachments["csi-0a1b"];
        assert_eq!(va.spec.node_name, "node-1");
        assert_eq!(va.status.as_ref().map(|s| s.attached), Some(false));
        assert_eq!(c.warnings, Vec::<String>::new());
    }

    #[test]
    fn failed_scheduling_events_of_both_apis_load_and_other_events_are_skipped_quietly() {
        let text = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a, uid: u1}, spec: {containers: [{name: c}]}}
- apiVersion: v1
  kind: Event
  metadata: {name: p.1, namespace: a}
  involvedObject: {kind: Pod, namespace: a, name: p, uid: u1}
  reason: FailedScheduling
  message: "0/3 nodes are available: 3 Insufficient cpu."
  source: {component: default-scheduler}
  count: 2
  firstTimestamp: "2026-01-01T00:00:00Z"
  lastTimestamp: "2026-01-01T00:05:00Z"
  reportingComponent: ""
  type: Warning
  mesage: typo
- apiVersion: events.k8s.io/v1
  kind: Event
  metadata: {name: p.2, namespace: a}
  regarding: {kind: Pod, namespace: a, name: p, uid: u1}
  reason: FailedScheduling
  note: "0/3 nodes are available: 3 Insufficient memory."
  eventTime: "2026-01-01T00:06:00.000000Z"
  reportingController: default-scheduler
  reportingInstance: default-scheduler-cp-1
  deprecatedCount: 3
  type: Warning
  notes: typo
- apiVersion: v1
  kind: Event
  metadata: {name: p.3, namespace: a}
  involvedObject: {kind: Pod, namespace: a, name: p}
  reason: Scheduled
  message: Successfully assigned a/p to n1
  ignoredWithTheEvent: 1
- apiVersion: v1
  kind: Event
  metadata: {name: n1.1, namespace: default}
  involvedObject: {kind: Node, name: n1}
  reason: FailedScheduling
  message: not about a pod
"#;
        let c = load_str("t.yaml", text).expect("loads");
        let events: Vec<_> = c.scheduling_events[&ObjectKey::new("a", "p")].iter().collect();
        assert_eq!(events.len(), 2);
        // Newest first: the events.k8s.io one (00:06) before the core one (00:05).
        assert_eq!(events[0].key.name, "p.2");
        assert_eq!(events[0].message, "0/3 nodes are available: 3 Insufficient memory.");
        assert_eq!(
            (events[0].count, events[0].component.as_str()),
            (3, "default-scheduler")
        );
        assert_eq!(
            events[0].last.map(|t| t.to_string()).as_deref(),
            Some("2026-01-01T00:06:00Z")
        );
        assert_eq!(events[1].key.name, "p.1");
        assert_eq!(
            (events[1].count, events[1].component.as_str()),
            (2, "default-scheduler")
        );
        assert_eq!(
            events[1].first.map(|t| t.to_string()).as_deref(),
            Some("2026-01-01T00:00:00Z")
        );
        assert_eq!(
            events[1].last.map(|t| t.to_string()).as_deref(),
            Some("2026-01-01T00:05:00Z")
        );
        assert_eq!(events[1].pod_uid.as_deref(), Some("u1"));
        // Other events are skipped whole: counted, no warning, not even for an unknown field.
        assert_eq!(c.skipped.get("Event"), Some(&2));
        assert_eq!(
            c.warnings,
            [
                "t.yaml (document 1): Event a/p.1: unknown field 'mesage' (ignored)",
                "t.yaml (document 2): Event a/p.2: unknown field 'notes' (ignored)",
            ]
        );
        // The JSON fast path hands events to the general path: the same objects and warnings.
        let v: serde_json::Value = serde_yaml::from_str(text).unwrap();
        let (general, fast) = both_paths(&serde_json::to_string(&v).unwrap());
        assert_eq!(general, fast);
        assert!(general.contains("unknown field 'mesage'"), "{general}");
    }

    #[test]
    fn the_same_event_read_through_both_apis_is_kept_once() {
        let text = r#"
- apiVersion: v1
  kind: Event
  metadata: {name: p.1, namespace: a}
  involvedObject: {kind: Pod, namespace: a, name: p}
  reason: FailedScheduling
  message: m
- apiVersion: events.k8s.io/v1
  kind: Event
  metadata: {name: p.1, namespace: a}
  regarding: {kind: Pod, namespace: a, name: p}
  reason: FailedScheduling
  note: m
"#;
        let c = load_str("t.yaml", text).expect("no duplicate error for events");
        assert_eq!(c.scheduling_events[&ObjectKey::new("a", "p")].len(), 1);
    }

    /// The objects read, as names with their kind and document, for comparing paths.
    fn read_names(c: &Cluster) -> Vec<String> {
        let mut v: Vec<String> = c
            .nodes
            .iter()
            .map(|n| format!("Node {}", n.name))
            .chain(c.pods.iter().map(|p| format!("Pod {}", p.key)))
            .collect();
        v.sort();
        v
    }

    /// kubectl flattens a List inside a List; so does every path of the loader: YAML as
    /// kubectl writes it (read item by item), YAML streamed, the YAML general path, JSON's fast
    /// path (from text and from a file read a piece at a time) and its general path, and the
    /// documents kept for saving back.
    #[test]
    fn a_list_inside_a_list_is_flattened() {
        let want = ["Node n1", "Node n2", "Pod default/p", "Pod default/q"];
        let inner = serde_json::json!({"apiVersion": "v1", "kind": "NodeList", "items": [
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "2", "pods": "10"}}},
            {"apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}, "status": {"allocatable": {"cpu": "2", "pods": "10"}}}]}]});
        let pod = |n: &str| serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": n, "namespace": "default"}, "spec": {"containers": [{"name": "c"}]}});
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [pod("p"), inner, pod("q")]});
        let json = serde_json::to_string(&list).unwrap();
        let yaml = crate::source::yaml::to_string(&list);
        assert!(yaml_stream::split_list(&yaml).is_some(), "kubectl's layout:\n{yaml}");
        let several = format!("---\n{yaml}---\n");
        let array = serde_json::to_string(&list["items"]).unwrap();
        for (what, text) in [
            ("yaml", &yaml),
            ("yaml, several documents", &several),
            ("json", &json),
            ("json array", &array),
        ] {
            let c = load_str(what, text).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(read_names(&c), want, "{what}");
            let kept = load_str_keeping_documents(what, text).unwrap();
            assert_eq!(read_names(&kept), want, "{what}, documents kept");
            let kinds: Vec<&str> = kept
                .source_documents
                .iter()
                .map(|d| d["kind"].as_str().unwrap())
                .collect();
            assert_eq!(
                kinds,
                ["Pod", "Node", "Node", "Pod"],
                "{what}: the items, not the Lists"
            );
        }
        // a file read a piece at a time: the nested List sends it to the general path
        let f = scratch_file("nested", &json);
        assert_eq!(read_names(&load_path(&f).unwrap()), want);
        // the pod after the nested List is numbered after the List's items
        let e = load_str(
            "t.json",
            &json.replace("\"name\":\"q\"", "\"name\":\"q\",\"labels\":{\"a\":1}"),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.json (document 3): Pod default/q: field 'metadata.labels.a'"),
            "{e}"
        );
        // a nested List whose items are not a sequence
        let bad = serde_json::json!({"kind": "List", "items": [{"kind": "List", "items": "x"}]});
        assert_eq!(
            load_str("b.json", &bad.to_string()).unwrap_err().to_string(),
            "b.json: document 0: a List's 'items' must be a sequence"
        );
    }

    /// A UTF-8 byte order mark at the start of a file is skipped (kubectl skips it), on every
    /// path: YAML, JSON from text, a JSON file.
    #[test]
    fn a_byte_order_mark_is_skipped() {
        let yaml = "\u{feff}apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {containers: [{name: c}]}\n";
        assert_eq!(
            read_names(&load_str("t.yaml", yaml).unwrap()),
            ["Node n1", "Pod default/p"]
        );
        assert_eq!(
            read_names(&load_str_keeping_documents("t.yaml", yaml).unwrap()),
            ["Node n1", "Pod default/p"]
        );
        let json = format!("\u{feff}{JSON_LIST}");
        assert_eq!(read_names(&load_str("t.json", &json).unwrap()).len(), 3);
        let f = scratch_file("bom", &json);
        let c = load_path(&f).unwrap();
        assert_eq!(read_names(&c), ["Node n1", "Pod default/p1", "Pod default/p2"]);
    }

    /// YAML merge keys are resolved as kubectl's YAML decoder resolves them (on the general
    /// path, whatever the layout), a bad one named with its path.
    #[test]
    fn merge_keys_are_resolved() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- &node\n  apiVersion: v1\n  kind: Node\n  metadata: {name: n1, labels: {zone: a}}\n  status: {allocatable: {cpu: 2, pods: 10}}\n- <<: *node\n  metadata: {name: n2}\n- apiVersion: v1\n  kind: Pod\n  metadata: &meta {name: p, namespace: default}\n  spec: {containers: [{name: c}]}\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    <<: *meta\n    name: q\n  spec: {containers: [{name: c}]}\n";
        let c = load_str("t.yaml", text).unwrap();
        assert_eq!(read_names(&c), ["Node n1", "Node n2", "Pod default/p", "Pod default/q"]);
        let n2 = c.nodes.iter().find(|n| n.name == "n2").unwrap();
        assert_eq!(n2.allocatable.milli_cpu, 2000);
        assert_eq!(n2.obj.metadata.labels, None, "metadata is n2's own, not merged into");
        let bad = text.replace("- <<: *node", "- <<: node");
        assert_eq!(
            load_str("t.yaml", &bad).unwrap_err().to_string(),
            "t.yaml: document 0: items[1].<<: a merge key takes a mapping or a list of mappings, not a string"
        );
    }

    /// An apiVersion kschedtui does not read for a kind it reads is named, with the ones it
    /// reads, on the YAML and JSON paths; another API's kind of the same name is skipped.
    #[test]
    fn an_api_version_not_read_is_named() {
        let yaml = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n- apiVersion: v99\n  kind: Pod\n  metadata: {name: p, namespace: default}\n  spec: {containers: [{name: c}]}\n";
        let want = "t (document 1): Pod default/p: field 'apiVersion': 'v99' is not an apiVersion kschedtui reads for this kind (it reads v1)";
        assert_eq!(load_str("t", yaml).unwrap_err().to_string(), want);
        let v: Value = serde_yaml::from_str(yaml).unwrap();
        assert_eq!(load_str("t", &v.to_string()).unwrap_err().to_string(), want);
        let f = scratch_file("v99", &v.to_string());
        let e = load_path(&f).unwrap_err().to_string();
        assert!(e.ends_with("Pod default/p: field 'apiVersion': 'v99' is not an apiVersion kschedtui reads for this kind (it reads v1)"), "{e}");
        let pdb = yaml.replace("v99\n  kind: Pod", "policy/v1beta1\n  kind: PodDisruptionBudget");
        assert_eq!(
            load_str("t", &pdb).unwrap_err().to_string(),
            "t (document 1): PodDisruptionBudget default/p: field 'apiVersion': 'policy/v1beta1' is not an apiVersion kschedtui reads for this kind (it reads policy/v1)"
        );
        let knative = yaml.replace("v99\n  kind: Pod", "serving.knative.dev/v1\n  kind: Service");
        let c = load_str("t", &knative).unwrap();
        assert_eq!(c.skipped.get("Service"), Some(&1));
    }

    /// Deep nesting is refused before the YAML parser sees it, in a moment, naming the line.
    #[test]
    fn deep_yaml_nesting_is_refused_before_parsing() {
        let text = format!("apiVersion: v1\nkind: Pod\nmetadata: {}\n", "[".repeat(200_000));
        let t = std::time::Instant::now();
        assert_eq!(
            load_str("deep.yaml", &text).unwrap_err().to_string(),
            "deep.yaml: document 0: not valid YAML: nested deeper than 512 levels at line 3 (kschedtui reads at most 512 levels of sequences and mappings inside each other; real manifests use a few dozen)"
        );
        assert!(t.elapsed() < std::time::Duration::from_secs(2), "{:?}", t.elapsed());
    }
}
