//! The manifests of `kschedtui fit -f` read as `kubectl apply -f` reads them: a file, a
//! directory (its `.yaml`, `.yml` and `.json` files in name order, not recursively), or `-` for
//! the standard input; YAML documents separated by `---`, JSON, or a `List` (flattened, a List
//! in a List too). What every input goes through first ([`super::input`]: a byte order mark, a
//! nesting limit, merge keys) applies; numbers in resource lists are taken as quantities;
//! DRA objects at resource.k8s.io/v1beta1 or v1beta2 are read in v1's shape. The documents are
//! sorted into workloads and objects by [`crate::model::controllers::read`].

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::file::LoadError;
use crate::model::Origin;
use crate::model::controllers::{ManifestError, Manifests};
use crate::model::kinds::Kind;

/// Why the manifests could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ManifestsError {
    /// A file could not be read or parsed.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A document is not a usable manifest.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// Nothing to place.
    #[error("{0}: no workload (Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or CronJob) to place")]
    NoWorkload(String),
}

/// Reads the manifests of every `-f` in order (`-` is the standard input, read once).
pub fn read(paths: &[PathBuf], namespace: &str) -> Result<Manifests, ManifestsError> {
    let mut docs = Vec::new();
    for p in paths {
        read_path(p, &mut docs)?;
    }
    finish(docs, namespace, &names(paths))
}

/// Reads manifests given as text (the MCP tool's argument, tests); `name` in messages.
pub fn read_str(name: &str, text: &str, namespace: &str) -> Result<Manifests, ManifestsError> {
    let mut docs = Vec::new();
    parse(name, text, &mut docs)?;
    finish(docs, namespace, name)
}

fn names(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| {
            if p == Path::new("-") {
                "standard input".into()
            } else {
                p.display().to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn finish(docs: Vec<(Origin, Value)>, namespace: &str, what: &str) -> Result<Manifests, ManifestsError> {
    let m = crate::model::controllers::read(docs, namespace)?;
    if m.workloads.is_empty() {
        return Err(ManifestsError::NoWorkload(what.to_string()));
    }
    Ok(m)
}

fn read_path(path: &Path, docs: &mut Vec<(Origin, Value)>) -> Result<(), LoadError> {
    let io = |p: &Path, e| LoadError::Io {
        path: p.display().to_string(),
        source: e,
    };
    if path == Path::new("-") {
        use std::io::Read;
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .take(super::input::SNAPSHOT_LIMIT)
            .read_to_end(&mut buf)
            .map_err(|e| io(path, e))?;
        let text = String::from_utf8(buf).map_err(|_| {
            io(
                path,
                std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8"),
            )
        })?;
        return parse("standard input", &text, docs);
    }
    let meta = std::fs::metadata(path).map_err(|e| io(path, e))?;
    let mut files = Vec::new();
    if meta.is_dir() {
        for e in std::fs::read_dir(path).map_err(|e| io(path, e))? {
            let p = e.map_err(|e| io(path, e))?.path();
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if p.is_file() && matches!(ext, "yaml" | "yml" | "json") {
                files.push(p);
            }
        }
        files.sort();
        if files.is_empty() {
            return Err(LoadError::Empty {
                path: path.display().to_string(),
                what: "the directory has no .yaml, .yml or .json file".into(),
            });
        }
    } else {
        files.push(path.to_path_buf());
    }
    for f in files {
        let text = super::input::read_text_limited(&f, super::input::SNAPSHOT_LIMIT).map_err(|e| io(&f, e))?;
        parse(&f.display().to_string(), &text, docs)?;
    }
    Ok(())
}

/// The documents of one input's text.
fn parse(name: &str, text: &str, docs: &mut Vec<(Origin, Value)>) -> Result<(), LoadError> {
    let text = super::input::strip_bom(text);
    let trimmed = text.trim_start();
    let looks_json = trimmed.starts_with('{') || trimmed.starts_with('[');
    let mut values = Vec::new();
    if looks_json {
        let v: Value = serde_json::from_str(text).map_err(|e| LoadError::Syntax {
            path: name.into(),
            doc: 0,
            format: "JSON",
            message: e.to_string(),
        })?;
        values.push(v);
    } else {
        if let Err(deep) = super::input::check_nesting(text) {
            return Err(LoadError::Syntax {
                path: name.into(),
                doc: deep.doc,
                format: "YAML",
                message: deep.to_string(),
            });
        }
        let merges = super::input::may_merge(text);
        super::file::yaml_values(name, text, merges, &mut values)?;
    }
    let mut index = 0;
    for v in values {
        push(name, &mut index, v, docs)?;
    }
    Ok(())
}

fn push(name: &str, index: &mut usize, mut v: Value, docs: &mut Vec<(Origin, Value)>) -> Result<(), LoadError> {
    match v {
        Value::Null => return Ok(()),
        Value::Array(items) => {
            for it in items {
                push(name, index, it, docs)?;
            }
            return Ok(());
        }
        _ => {}
    }
    if v.get("kind")
        .and_then(Value::as_str)
        .is_some_and(|k| k.ends_with("List"))
        && let Value::Object(m) = &mut v
    {
        return match m.remove("items") {
            Some(Value::Array(items)) => {
                for it in items {
                    push(name, index, it, docs)?;
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
    let doc = *index;
    *index += 1;
    if !v.is_object() {
        return Err(LoadError::Shape {
            path: name.into(),
            doc,
            message: "expected a Kubernetes object (a mapping with apiVersion and kind)".into(),
        });
    }
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("").to_string();
    let api = v.get("apiVersion").and_then(Value::as_str).unwrap_or("").to_string();
    if let Some(version) = api.strip_prefix("resource.k8s.io/")
        && matches!(version, "v1beta1" | "v1beta2")
        && let Some(k) = Kind::of_document(&kind, "resource.k8s.io/v1")
    {
        crate::model::dra_versions::to_v1(k, version, &mut v);
    }
    if kind != "CSINode" {
        super::file::quote_quantities(&mut v, false);
    }
    docs.push((Origin { file: name.into(), doc }, v));
    Ok(())
}
