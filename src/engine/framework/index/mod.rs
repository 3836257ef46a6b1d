//! What a snapshot builds once so that plugins need not walk every node and every pod for each
//! pod they schedule (not upstream: upstream's plugins walk the NodeInfos' label maps and pod
//! lists). The snapshot owns it ([`Index`]); plugins ask it the questions upstream answers by
//! walking, and write each verdict one way, as upstream does:
//!
//! - a node's value of a label key, as the pair counts are kept by ([`IndexedNode::pair`],
//!   [`PairCounts`], [`ValueCounts`]), and its images ([`IndexedNode::image`]);
//! - whether a node matches a node selector compiled once per pod ([`NodeMatcher`]);
//! - the pods that match a term or a selector, node by node ([`pods`]);
//! - the existing pods' scoring affinity terms and required anti-affinity terms, grouped
//!   ([`terms`]).
//!
//! Each answer equals the walk's; the tests of each module hold it against the walk. A node is
//! read by its position among the snapshot's nodes; a copy of a node (preemption's dry runs)
//! is read from its own labels and images, with the same answers.

pub(crate) mod counts;
pub(crate) mod images;
pub(crate) mod labels;
pub(crate) mod pods;
pub(crate) mod terms;

use std::sync::Arc;

pub(crate) use counts::{Pair, PairCounts, ValueCounts};
pub(crate) use labels::{Key, LabelColumns, NodeMatcher};

use crate::model::Node;

/// The snapshot's index: built with it, shared by its clones.
#[derive(Clone, Debug)]
pub(crate) struct Index {
    /// The nodes' labels as columns; the nodes of a snapshot never change, nor do these.
    pub(crate) labels: Arc<LabelColumns>,
    /// The nodes' images by name.
    pub(crate) images: Arc<images::ImageIndex>,
    /// The bound pods interned with their label index: built with the snapshot, and again
    /// when counting passes ask for it after the pods changed.
    pub(crate) pods: Arc<pods::PodTables>,
    /// The existing pods' scoring affinity terms, rebuilt when a pod with such terms changes.
    pub(crate) terms: Arc<terms::ScoringTerms>,
    /// The existing pods' required anti-affinity terms, grouped.
    pub(crate) anti_terms: Arc<terms::AntiAffinityTerms>,
}

/// A node as the index reads it: by its position among the snapshot's nodes, or, for a copy,
/// from its own labels and images.
#[derive(Clone, Copy)]
pub(crate) struct IndexedNode<'a> {
    node: &'a Node,
    labels: &'a LabelColumns,
    at: Option<usize>,
}

impl<'a> IndexedNode<'a> {
    /// The node at position `at` of the snapshot whose label columns are `labels`.
    pub(crate) fn at(labels: &'a LabelColumns, node: &'a Node, at: usize) -> Self {
        IndexedNode {
            node,
            labels,
            at: Some(at),
        }
    }

    /// A node read from its own labels and images (a copy of one of the snapshot's nodes).
    pub(crate) fn copy(labels: &'a LabelColumns, node: &'a Node) -> Self {
        IndexedNode { node, labels, at: None }
    }

    /// The node.
    pub(crate) fn node(&self) -> &'a Node {
        self.node
    }

    /// Its position among the snapshot's nodes (None for a copy).
    pub(crate) fn position(&self) -> Option<usize> {
        self.at
    }

    /// The node's pair for `key` (None: the node lacks the key).
    #[inline]
    pub(crate) fn pair(&self, key: &Key) -> Option<Pair> {
        self.pair_in(key.column()?, key.name())
    }

    /// The node's pair for the key of a column.
    #[inline]
    pub(crate) fn pair_at(&self, column: u32) -> Option<Pair> {
        self.pair_in(column, self.labels.key_name(column))
    }

    /// The node's pair for a key given by name.
    pub(crate) fn pair_named(&self, key: &str) -> Option<Pair> {
        self.pair_in(self.labels.column_at(key)?.0, key)
    }

    #[inline]
    fn pair_in(&self, column: u32, name: &str) -> Option<Pair> {
        let col = self.labels.column_by_index(column);
        let value = match self.at {
            Some(i) => col.id(i)?,
            None => col.id_of(self.node.labels.get(name)?).unwrap_or(counts::FOREIGN),
        };
        Some(Pair { column, value })
    }

    /// The size of an image on the node and how many of the snapshot's nodes list it (None
    /// when the node does not list it); `image` is the snapshot's entry for the name.
    pub(crate) fn image(&self, name: &str, hash: u64, image: Option<&images::Image>) -> Option<(i64, usize)> {
        match self.at {
            Some(i) => image.and_then(|im| im.on_node(i)),
            None => self
                .node
                .image_size_hashed(name, hash)
                .map(|size| (size, image.map_or(0, images::Image::node_count))),
        }
    }
}
