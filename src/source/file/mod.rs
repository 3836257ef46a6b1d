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
        yaml_values(name, text, merges, &mut docs)?;
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

mod json_fast;

mod yaml_stream;

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

/// Every YAML document of `text` as a value, in order, appended to `out`; with `merges`, `<<`
/// merge keys resolved as kubectl's YAML reader does. The error names the file and document.
pub(crate) fn yaml_values(name: &str, text: &str, merges: bool, out: &mut Vec<Value>) -> Result<(), LoadError> {
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
        out.push(v);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
