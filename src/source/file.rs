//! Snapshot files: a YAML or JSON file holding a `kind: List`, several `---`-separated
//! documents, a JSON array, or a directory of such files, with objects as
//! `kubectl get -o yaml` prints them. Kinds the engine does not use are counted and skipped.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use crate::model::{Cluster, ModelError, Object, ObjectKey, Origin};

/// Why a snapshot could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file or directory could not be read.
    #[error("cannot read snapshot '{path}': {source}")]
    Io {
        /// Path.
        path: String,
        /// Cause.
        source: std::io::Error,
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
pub fn load_path(path: &Path) -> Result<Cluster, LoadError> {
    let objects = read_objects(path)?;
    Ok(Cluster::build(objects)?)
}

/// Reads a snapshot from text (for embedded fixtures and tests); `name` is used in messages.
pub fn load_str(name: &str, text: &str) -> Result<Cluster, LoadError> {
    let mut out = Vec::new();
    parse_text(name, text, &mut out)?;
    Ok(Cluster::build(out)?)
}

/// Reads every object of a snapshot given as text; `name` is used in messages.
pub fn read_objects_str(name: &str, text: &str) -> Result<Vec<(Origin, Object)>, LoadError> {
    let mut out = Vec::new();
    parse_text(name, text, &mut out)?;
    Ok(out)
}

/// Reads every object of a file or directory (sorted file names, not recursive).
pub fn read_objects(path: &Path) -> Result<Vec<(Origin, Object)>, LoadError> {
    let io = |e| LoadError::Io { path: path.display().to_string(), source: e };
    let meta = std::fs::metadata(path).map_err(io)?;
    let mut files: Vec<PathBuf> = Vec::new();
    if meta.is_dir() {
        for e in std::fs::read_dir(path).map_err(io)? {
            let p = e.map_err(io)?.path();
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if matches!(ext, "yaml" | "yml" | "json") && !p.to_string_lossy().ends_with(".config.yaml") {
                files.push(p);
            }
        }
        files.sort();
    } else {
        files.push(path.to_path_buf());
    }
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f)
            .map_err(|e| LoadError::Io { path: f.display().to_string(), source: e })?;
        parse_text(&f.display().to_string(), &text, &mut out)?;
    }
    Ok(out)
}

fn parse_text(name: &str, text: &str, out: &mut Vec<(Origin, Object)>) -> Result<(), LoadError> {
    let trimmed = text.trim_start();
    let looks_json = trimmed.starts_with('{') || trimmed.starts_with('[');
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
            let v = Value::deserialize(d).map_err(|e| LoadError::Syntax {
                path: name.into(),
                doc: i,
                format: "YAML",
                message: e.to_string(),
            })?;
            docs.push(v);
        }
    }
    let mut index = 0usize;
    for d in docs {
        match d {
            Value::Null => {}
            Value::Array(items) => {
                for it in items {
                    push_object(name, &mut index, it, out)?;
                }
            }
            Value::Object(ref m) if m.get("kind").and_then(Value::as_str).is_some_and(|k| k.ends_with("List")) => {
                let Value::Object(mut m) = d else { continue };
                match m.remove("items") {
                    Some(Value::Array(items)) => {
                        for it in items {
                            push_object(name, &mut index, it, out)?;
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
            other => push_object(name, &mut index, other, out)?,
        }
    }
    Ok(())
}

/// Resource-list keys whose numbers YAML may have left unquoted (`cpu: 2`).
const QUANTITY_MAPS: &[&str] = &["requests", "limits", "capacity", "allocatable", "overhead", "minResources", "storage"];

fn quote_quantities(v: &mut Value, in_list: bool) {
    match v {
        Value::Object(m) => {
            for (k, child) in m.iter_mut() {
                let is_list = QUANTITY_MAPS.contains(&k.as_str());
                // CSINode `allocatable: {count: N}` is an integer, not a quantity.
                if in_list && k != "count" && let Value::Number(n) = child {
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

fn push_object(name: &str, index: &mut usize, mut v: Value, out: &mut Vec<(Origin, Object)>) -> Result<(), LoadError> {
    let doc = *index;
    *index += 1;
    let origin = Origin { file: name.to_string(), doc };
    let Value::Object(m) = &v else {
        return Err(LoadError::Shape {
            path: name.into(),
            doc,
            message: "expected a Kubernetes object (a mapping with apiVersion and kind)".into(),
        });
    };
    let Some(kind) = m.get("kind").and_then(Value::as_str).map(str::to_string) else {
        return Err(LoadError::Shape { path: name.into(), doc, message: "object has no 'kind'".into() });
    };
    let api_version = m.get("apiVersion").and_then(Value::as_str).unwrap_or("").to_string();
    let key = {
        let md = m.get("metadata");
        let s = |f: &str| md.and_then(|x| x.get(f)).and_then(Value::as_str).unwrap_or("").to_string();
        ObjectKey::new(s("namespace"), s("name"))
    };
    quote_quantities(&mut v, false);
    fn typed<T: DeserializeOwned>(v: Value, origin: &Origin, kind: &str, key: &ObjectKey) -> Result<T, LoadError> {
        serde_path_to_error::deserialize(v).map_err(|e| LoadError::Field {
            origin: origin.clone(),
            kind: kind.to_string(),
            key: key.clone(),
            field: e.path().to_string(),
            message: e.inner().to_string(),
        })
    }
    let o = &origin;
    let obj = match kind.as_str() {
        "Node" => Object::Node(typed(v, o, &kind, &key)?),
        "Pod" => Object::Pod(typed(v, o, &kind, &key)?),
        "Namespace" => Object::Namespace(typed(v, o, &kind, &key)?),
        "PriorityClass" => Object::PriorityClass(typed(v, o, &kind, &key)?),
        "PodDisruptionBudget" if api_version == "policy/v1" || api_version.is_empty() => {
            Object::Pdb(typed(v, o, &kind, &key)?)
        }
        "PersistentVolume" => Object::Pv(typed(v, o, &kind, &key)?),
        "PersistentVolumeClaim" => Object::Pvc(typed(v, o, &kind, &key)?),
        "StorageClass" => Object::StorageClass(typed(v, o, &kind, &key)?),
        "CSINode" => Object::CsiNode(typed(v, o, &kind, &key)?),
        "Service" => Object::Service(typed(v, o, &kind, &key)?),
        "ReplicaSet" => Object::ReplicaSet(typed(v, o, &kind, &key)?),
        "StatefulSet" => Object::StatefulSet(typed(v, o, &kind, &key)?),
        "ReplicationController" => Object::ReplicationController(typed(v, o, &kind, &key)?),
        "PodGroup" if api_version.starts_with("scheduling.x-k8s.io/") || api_version.starts_with("scheduling.sigs.k8s.io/") => {
            Object::PodGroup(typed(v, o, &kind, &key)?)
        }
        _ => {
            out.push((origin, Object::Skipped(kind)));
            return Ok(());
        }
    };
    out.push((origin, obj));
    Ok(())
}

