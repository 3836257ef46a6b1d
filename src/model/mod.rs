//! Cluster data built once from a snapshot: objects, quantities, selectors and the per-object
//! facts the scheduler reads on every cycle (requests, priority, ports, images). No scheduling
//! logic and no I/O live here; what the API server's admission ([`admission`]) and the workload
//! controllers ([`controllers`]) make of a manifest is data too.

pub mod admission;
pub mod apiserver;
mod cluster;
pub mod controllers;
pub mod dra_versions;
pub mod event;
mod interner;
pub mod kinds;
pub mod labels;
pub mod list;
pub mod live_update;
pub(crate) mod mutate;
mod node;
mod pod;
pub(crate) mod quantity;
pub(crate) mod resources;
pub(crate) mod selector;
mod share;
pub use interner::Interner;
pub mod stored;
pub(crate) mod validation;
pub(crate) mod workload;
pub mod write;

pub use ecow::EcoString;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::storage::v1 as storage;
use k8s_openapi::api::{apps::v1 as apps, events::v1 as events, policy::v1 as policy, scheduling::v1 as sched};
use k8s_openapi::jiff::Timestamp;
use serde::{Deserialize, Serialize};

pub use labels::Labels;
use quantity::Quantity;
use resources::{PodRequests, PodResourceSpec, Resource, ResourceList, pod_requests, pod_requests_v132};

/// `namespace/name` of a namespaced object (namespace empty for cluster-scoped ones). Each
/// part is an `EcoString` (16 bytes; ordered, hashed and serialized as its text): up to 15
/// bytes it is held inline, so the keys of pods with short names allocate nothing, and a key is
/// 32 bytes, not 48.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ObjectKey {
    /// Namespace ("" for cluster-scoped objects).
    pub namespace: EcoString,
    /// Name.
    pub name: EcoString,
}

impl ObjectKey {
    /// A key.
    pub fn new(namespace: impl Into<EcoString>, name: impl Into<EcoString>) -> Self {
        ObjectKey {
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// Parses `ns/name`, or `name` with a default namespace.
    pub fn parse(s: &str, default_ns: &str) -> Self {
        match s.split_once('/') {
            Some((ns, n)) => ObjectKey::new(ns, n),
            None => ObjectKey::new(default_ns, s),
        }
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.is_empty() {
            write!(f, "(unnamed)")
        } else if self.namespace.is_empty() {
            write!(f, "{}", self.name)
        } else {
            write!(f, "{}/{}", self.namespace, self.name)
        }
    }
}

/// Where an object came from, for error messages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// File path (or "<live>"), shared by every object of the file (a snapshot of a million
    /// pods holds one copy of its path, not a million).
    pub file: ThinStr,
    /// 0-based document index within the file (items of a List count individually).
    pub doc: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (document {})", self.file, self.doc)
    }
}

/// A problem with a snapshot object, naming the object and the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {kind} {key}: field '{field}': {message}")]
pub struct ModelError {
    /// Where the object came from.
    pub origin: Origin,
    /// Kind of the object.
    pub kind: String,
    /// Its namespace/name.
    pub key: ObjectKey,
    /// Path of the offending field.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

pub use kinds::Object;

pub(crate) fn meta_key(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> ObjectKey {
    // from the strs: a short namespace or name is held inline (no allocation at all)
    ObjectKey::new(
        m.namespace.as_deref().unwrap_or_default(),
        m.name.as_deref().unwrap_or_default(),
    )
}

/// Converts a k8s resource list, naming the field on a bad quantity.
fn resource_list(
    rl: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
    field: &str,
) -> Result<ResourceList, (String, String)> {
    let mut out = ResourceList::new();
    for (k, v) in rl.into_iter().flatten() {
        let q = Quantity::parse(&v.0).map_err(|e| (format!("{field}.{k}"), e.to_string()))?;
        out.insert(k.clone(), q);
    }
    Ok(out)
}

/// Text shared in one pointer (8 bytes, not the 16 of an `Arc<str>`): a pod's spec.nodeName,
/// shared by the pods of a node ([`Pod::node_name`]); a file's name, shared by its objects
/// ([`Origin::file`]); a priority class name while pods are read. Reads, compares and
/// hashes as its text.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThinStr(Arc<Box<str>>);

impl ThinStr {
    /// Whether the two are one shared name (not only equal).
    pub fn shares(&self, other: &ThinStr) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::ops::Deref for ThinStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for ThinStr {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for ThinStr {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for ThinStr {
    fn from(s: &str) -> Self {
        ThinStr(Arc::new(s.into()))
    }
}

impl From<String> for ThinStr {
    fn from(s: String) -> Self {
        ThinStr(Arc::new(s.into_boxed_str()))
    }
}

impl fmt::Debug for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self.0, f)
    }
}

impl fmt::Display for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// FNV-1a's 64-bit offset basis: the hash of no bytes.
pub const FNV1A_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a (64 bits) of `bytes` continued from the hash `h` (start from [`FNV1A_OFFSET`]).
pub fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// FNV-1a of an image name: the key a node's images are searched by
/// ([`Node::image_size_hashed`]).
pub fn image_name_hash(name: &str) -> u64 {
    fnv1a(FNV1A_OFFSET, name.as_bytes())
}

pub use cluster::*;
pub use node::*;
pub use pod::*;

#[cfg(test)]
mod size_tests;
