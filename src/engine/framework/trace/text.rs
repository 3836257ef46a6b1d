//! The texts a record holds: a plugin's lines about a rejection (written when first read), a
//! plugin's status, and a node's name shared with the snapshot's node.

use super::*;

/// Lines of text a plugin gives about a rejection, written out when first read: an
/// explanation holds one per rejected node (thousands at scale) and most are never looked at,
/// since the TUI shows one node at a time. Reads as a `[String]`.
#[derive(Clone, Default)]
pub struct Lines {
    /// (Boxed: 16 bytes where a `OnceLock` of the list takes 32, and a Filter record per
    /// node holds one.)
    #[allow(clippy::box_collection)]
    text: std::sync::OnceLock<Box<Vec<String>>>,
    make: Option<Make>,
}

/// What writes a node's lines when they are first read: one for a whole cycle, shared by
/// every node it rejected, so a rejected node costs two reference counts, not an allocation.
pub trait NodeLines: Send + Sync {
    /// The lines about `node`.
    fn lines(&self, node: &crate::model::Node) -> Vec<String>;
}

#[derive(Clone)]
pub(super) enum Make {
    Once(Arc<dyn Fn() -> Vec<String> + Send + Sync>),
    ForNode(Arc<dyn NodeLines>, Arc<crate::model::Node>),
}

impl Lines {
    /// Lines written by `make` when first read.
    pub fn lazy(make: impl Fn() -> Vec<String> + Send + Sync + 'static) -> Self {
        Lines {
            text: std::sync::OnceLock::new(),
            make: Some(Make::Once(Arc::new(make))),
        }
    }

    /// Lines about `node` written by `source` when first read.
    pub fn for_node(source: Arc<dyn NodeLines>, node: Arc<crate::model::Node>) -> Self {
        Lines {
            text: std::sync::OnceLock::new(),
            make: Some(Make::ForNode(source, node)),
        }
    }

    /// The lines.
    pub fn get(&self) -> &[String] {
        self.text.get_or_init(|| {
            Box::new(match &self.make {
                None => Vec::new(),
                Some(Make::Once(m)) => m(),
                Some(Make::ForNode(source, node)) => source.lines(node),
            })
        })
    }
}

impl From<Vec<String>> for Lines {
    fn from(v: Vec<String>) -> Self {
        Lines {
            text: std::sync::OnceLock::from(Box::new(v)),
            make: None,
        }
    }
}

impl std::ops::Deref for Lines {
    type Target = [String];
    fn deref(&self) -> &[String] {
        self.get()
    }
}

impl<'a> IntoIterator for &'a Lines {
    type Item = &'a String;
    type IntoIter = std::slice::Iter<'a, String>;
    fn into_iter(self) -> Self::IntoIter {
        self.get().iter()
    }
}

impl PartialEq for Lines {
    fn eq(&self, o: &Lines) -> bool {
        self.get() == o.get()
    }
}

impl Eq for Lines {}

impl PartialEq<Vec<String>> for Lines {
    fn eq(&self, o: &Vec<String>) -> bool {
        self.get() == o.as_slice()
    }
}

impl std::fmt::Debug for Lines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.get()).finish()
    }
}

impl Serialize for Lines {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(s)
    }
}

/// A plugin's status at a point that runs once per cycle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PluginStatus {
    /// Plugin.
    pub plugin: String,
    /// Code.
    pub code: Code,
    /// Reasons.
    pub reasons: Vec<String>,
    /// What the plugin read from the pod at this point, stated from the values it computed
    /// with (kschedtui extra, PreEnqueue, PreFilter and PreScore; not in the explain JSON).
    #[serde(skip)]
    pub facts: Vec<Fact>,
}

impl PluginStatus {
    /// From a status.
    pub fn new(plugin: &str, s: &Status) -> Self {
        PluginStatus {
            plugin: plugin.to_string(),
            code: s.code,
            reasons: s.reasons.to_strings(),
            facts: Vec::new(),
        }
    }

    /// With what the plugin read.
    pub fn with_facts(mut self, facts: Vec<Fact>) -> Self {
        self.facts = facts;
        self
    }
}

/// A node's name in a Filter record: the snapshot's node itself, shared (one reference count,
/// on the line of the node every filter reads anyway, instead of a copy of the name per node
/// and per explanation), or a name alone. Reads, compares, orders, hashes and serializes as
/// the name.
#[derive(Clone)]
pub struct NodeName(NameOf);

#[derive(Clone)]
pub(super) enum NameOf {
    Node(Arc<crate::model::Node>),
    Text(Arc<str>),
}

impl NodeName {
    /// The name of `node`, sharing it.
    pub fn of(node: &Arc<crate::model::Node>) -> Self {
        NodeName(NameOf::Node(node.clone()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            NameOf::Node(n) => &n.name,
            NameOf::Text(t) => t,
        }
    }
}

impl From<&str> for NodeName {
    fn from(s: &str) -> Self {
        NodeName(NameOf::Text(s.into()))
    }
}

impl From<String> for NodeName {
    fn from(s: String) -> Self {
        NodeName(NameOf::Text(s.into()))
    }
}

impl std::ops::Deref for NodeName {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for NodeName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for NodeName {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for NodeName {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for NodeName {}

impl PartialEq<str> for NodeName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for NodeName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for NodeName {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<NodeName> for str {
    fn eq(&self, other: &NodeName) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<NodeName> for &str {
    fn eq(&self, other: &NodeName) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<NodeName> for String {
    fn eq(&self, other: &NodeName) -> bool {
        self == other.as_str()
    }
}

impl PartialOrd for NodeName {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for NodeName {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for NodeName {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_str().hash(h);
    }
}

impl std::fmt::Debug for NodeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for NodeName {
    /// The name, with the width, fill and alignment a format asks for (`{:<w$}` in a table),
    /// as a `str` would be.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl Serialize for NodeName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}
