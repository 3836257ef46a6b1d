//! Snapshot files: a YAML or JSON file holding a `kind: List`, several `---`-separated
//! documents, a JSON array, or a directory of such files, with objects as
//! `kubectl get -o yaml` prints them. Kinds the engine does not use are counted and skipped.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::model::{Cluster, ModelError, Object, ObjectKey, Origin};

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
    let mut warnings = Vec::new();
    let objects = read_objects(path, &mut warnings)?;
    let mut c = Cluster::build(objects)?;
    c.warnings.splice(0..0, warnings);
    Ok(c)
}

/// Reads a snapshot from text (for embedded fixtures and tests); `name` is used in messages.
pub fn load_str(name: &str, text: &str) -> Result<Cluster, LoadError> {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    parse_text(name, text, &mut out, &mut warnings, None)?;
    let mut c = Cluster::build(out)?;
    c.warnings.splice(0..0, warnings);
    Ok(c)
}

#[allow(clippy::result_large_err)]
/// As `load_path`, keeping every document as read in `Cluster::source_documents` so the
/// cluster can be saved back without losing objects or fields (`super::save`).
pub fn load_path_keeping_documents(path: &Path) -> Result<Cluster, LoadError> {
    let mut warnings = Vec::new();
    let mut raw = Vec::new();
    let objects = read_objects_keeping(path, &mut warnings, Some(&mut raw))?;
    let mut c = Cluster::build(objects)?;
    c.warnings.splice(0..0, warnings);
    c.source_documents = raw;
    Ok(c)
}

#[allow(clippy::result_large_err)]
/// As `load_str`, keeping every document as read (see `load_path_keeping_documents`).
pub fn load_str_keeping_documents(name: &str, text: &str) -> Result<Cluster, LoadError> {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let mut raw = Vec::new();
    parse_text(name, text, &mut out, &mut warnings, Some(&mut raw))?;
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
    parse_text(name, text, &mut out, warnings, None)?;
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
    mut raw: Option<&mut Vec<Value>>,
) -> Result<Vec<(Origin, Object)>, LoadError> {
    let io = |e| LoadError::Io {
        path: path.display().to_string(),
        source: e,
    };
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
        let text = std::fs::read_to_string(&f).map_err(|e| LoadError::Io {
            path: f.display().to_string(),
            source: e,
        })?;
        parse_text(&f.display().to_string(), &text, &mut out, warnings, raw.as_deref_mut())?;
    }
    Ok(out)
}

fn parse_text(
    name: &str,
    text: &str,
    out: &mut Vec<(Origin, Object)>,
    warnings: &mut Vec<String>,
    mut raw: Option<&mut Vec<Value>>,
) -> Result<(), LoadError> {
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

/// Resource-list keys whose numbers YAML may have left unquoted (`cpu: 2`).
const QUANTITY_MAPS: &[&str] = &[
    "requests",
    "limits",
    "capacity",
    "allocatable",
    "overhead",
    "minResources",
    "storage",
];

fn quote_quantities(v: &mut Value, in_list: bool) {
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

fn push_object(
    name: &str,
    index: &mut usize,
    mut v: Value,
    out: &mut Vec<(Origin, Object)>,
    warnings: &mut Vec<String>,
    raw: Option<&mut Vec<Value>>,
) -> Result<(), LoadError> {
    if let Some(r) = raw {
        r.push(v.clone());
    }
    let doc = *index;
    *index += 1;
    let origin = Origin {
        file: name.to_string(),
        doc,
    };
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
    let api_version = m.get("apiVersion").and_then(Value::as_str).unwrap_or("").to_string();
    // A namespaced object without a namespace lands in "default", as `kubectl apply` puts it.
    const CLUSTER_SCOPED: &[&str] = &[
        "Node",
        "Namespace",
        "PriorityClass",
        "PersistentVolume",
        "StorageClass",
        "CSINode",
        "CSIDriver",
    ];
    if !CLUSTER_SCOPED.contains(&kind.as_str())
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
    let o = &origin;
    let obj = match kind.as_str() {
        "Node" => Object::Node(typed_object(v, o, &kind, &key, &mut unknown)?),
        "Pod" => Object::Pod(typed_object(v, o, &kind, &key, &mut unknown)?),
        "Namespace" => Object::Namespace(typed_object(v, o, &kind, &key, &mut unknown)?),
        "PriorityClass" => Object::PriorityClass(typed_object(v, o, &kind, &key, &mut unknown)?),
        "PodDisruptionBudget" if api_version == "policy/v1" || api_version.is_empty() => {
            Object::Pdb(typed_object(v, o, &kind, &key, &mut unknown)?)
        }
        "PersistentVolume" => Object::Pv(typed_object(v, o, &kind, &key, &mut unknown)?),
        "PersistentVolumeClaim" => Object::Pvc(typed_object(v, o, &kind, &key, &mut unknown)?),
        "StorageClass" => Object::StorageClass(typed_object(v, o, &kind, &key, &mut unknown)?),
        "CSINode" => Object::CsiNode(typed_object(v, o, &kind, &key, &mut unknown)?),
        "CSIDriver" => Object::CsiDriver(typed_object(v, o, &kind, &key, &mut unknown)?),
        "CSIStorageCapacity" => Object::CsiStorageCapacity(typed_object(v, o, &kind, &key, &mut unknown)?),
        "Service" => Object::Service(typed_object(v, o, &kind, &key, &mut unknown)?),
        "ReplicaSet" => Object::ReplicaSet(typed_object(v, o, &kind, &key, &mut unknown)?),
        "StatefulSet" => Object::StatefulSet(typed_object(v, o, &kind, &key, &mut unknown)?),
        "ReplicationController" => Object::ReplicationController(typed_object(v, o, &kind, &key, &mut unknown)?),
        "PodGroup"
            if api_version.starts_with("scheduling.x-k8s.io/")
                || api_version.starts_with("scheduling.sigs.k8s.io/") =>
        {
            Object::PodGroup(typed_object(v, o, &kind, &key, &mut unknown)?)
        }
        _ => {
            out.push((origin, Object::Skipped(kind)));
            return Ok(());
        }
    };
    for f in unknown {
        warnings.push(format!("{origin}: {kind} {key}: unknown field '{f}' (ignored)"));
    }
    out.push((origin, obj));
    Ok(())
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
    use super::*;

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
}
