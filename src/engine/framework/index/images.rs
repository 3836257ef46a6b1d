//! The nodes' images by name, built once per snapshot (not upstream: upstream's NodeInfo holds
//! an ImageStates map per node and a count of nodes per image): for each image name, the nodes
//! that list it with its size there, in node order. ImageLocality's Score of a node is then a
//! search in one short, shared list per image of the pod instead of a search in the node's own
//! image list, which at thousands of nodes is a cache miss per step.

use std::collections::HashMap;

use super::pods::FnvBuild;
use crate::model::{Node, image_name_hash};

/// One image name: the nodes that list it (by index in the snapshot's node order) with the
/// size of the image on each.
#[derive(Clone, Debug)]
pub(crate) struct Image {
    name: String,
    sizes: Vec<(u32, i64)>,
}

impl Image {
    /// The image's size on the node at `node` in the snapshot's order, and how many nodes
    /// list it; None when that node does not list it.
    pub(crate) fn on_node(&self, node: usize) -> Option<(i64, usize)> {
        let k = self.sizes.binary_search_by_key(&(node as u32), |&(n, _)| n).ok()?;
        Some((self.sizes[k].1, self.sizes.len()))
    }

    /// How many nodes list the image.
    pub(crate) fn node_count(&self) -> usize {
        self.sizes.len()
    }
}

/// Every node image of a snapshot, by name.
#[derive(Clone, Debug, Default)]
pub(crate) struct ImageIndex {
    by_hash: HashMap<u64, smallvec::SmallVec<[Image; 1]>, FnvBuild>,
}

impl ImageIndex {
    /// The index of `nodes` (in the snapshot's order). A node listing a name in two entries
    /// of status.images has the later entry's size, as its ImageStates map would.
    pub(crate) fn build<'a>(nodes: impl IntoIterator<Item = &'a Node>) -> Self {
        let mut t = ImageIndex::default();
        for (i, node) in nodes.into_iter().enumerate() {
            let i = i as u32;
            for (names, size) in &node.images {
                for name in names {
                    let list = t.by_hash.entry(image_name_hash(name)).or_default();
                    let image = match list.iter().position(|im| im.name == *name) {
                        Some(k) => &mut list[k],
                        None => {
                            list.push(Image {
                                name: name.clone(),
                                sizes: Vec::new(),
                            });
                            let last = list.len() - 1;
                            &mut list[last]
                        }
                    };
                    match image.sizes.last_mut() {
                        Some((n, s)) if *n == i => *s = *size,
                        _ => image.sizes.push((i, *size)),
                    }
                }
            }
        }
        t
    }

    /// The image `name` (whose `image_name_hash` is `hash`), when some node lists it.
    pub(crate) fn image(&self, name: &str, hash: u64) -> Option<&Image> {
        self.by_hash.get(&hash)?.iter().find(|im| im.name == name)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn node(name: &str, images: serde_json::Value) -> Node {
        let obj = serde_json::from_value(json!({
            "metadata": {"name": name},
            "status": {"images": images}
        }))
        .expect("node");
        Node::from_obj(obj).expect("model")
    }

    /// The index answers what each node's own list answers, with the count of nodes.
    #[test]
    fn sizes_and_counts_match_each_nodes_own_images() {
        let nodes = [
            node(
                "a",
                json!([{"names": ["web:1", "reg/web:1"], "sizeBytes": 100},
                       {"names": ["db:2"], "sizeBytes": 7},
                       {"names": ["web:1"], "sizeBytes": 300}]),
            ),
            node("b", json!([])),
            node("c", json!([{"names": ["db:2", "db:2"], "sizeBytes": 9}])),
        ];
        let idx = ImageIndex::build(&nodes);
        let on_node = |name: &str, h: u64, i: usize| idx.image(name, h).and_then(|im| im.on_node(i));
        for name in ["web:1", "reg/web:1", "db:2", "cache:3"] {
            let h = image_name_hash(name);
            let count = nodes.iter().filter(|n| n.image_size(name).is_some()).count();
            assert_eq!(idx.image(name, h).map_or(0, Image::node_count), count, "{name}");
            for (i, n) in nodes.iter().enumerate() {
                assert_eq!(
                    on_node(name, h, i).map(|(s, _)| s),
                    n.image_size(name),
                    "{name} on {}",
                    n.name
                );
            }
        }
        let h = image_name_hash("web:1");
        assert_eq!(on_node("web:1", h, 0), Some((300, 1)), "the later entry wins");
        assert_eq!(on_node("db:2", image_name_hash("db:2"), 2), Some((9, 2)));
        assert!(idx.image("cache:3", image_name_hash("cache:3")).is_none());
    }
}
