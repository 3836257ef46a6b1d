//! A node as the engine reads it: its labels, taints, allocatable resources and images.

use super::*;

/// A taint, as the scheduler reads it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Taint {
    /// Key.
    pub key: String,
    /// Value ("" when absent).
    pub value: String,
    /// NoSchedule, PreferNoSchedule or NoExecute.
    pub effect: String,
}

/// A node and the facts the scheduler reads from it.
///
/// Laid out in the order written (`repr(C)`): what every Filter reads of every node (name,
/// labels, taints, unschedulable) sits in the first cache line, beside the `Arc`'s counts,
/// instead of wherever the compiler puts it (the object as read was a kilobyte and a half
/// inline then; it is kept as text now). At tens of thousands of nodes a cycle's nodes no
/// longer fit the cache, and each line read counts (docs/performance.md).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Node {
    /// metadata.name.
    pub name: String,
    /// metadata.labels.
    pub labels: Labels,
    /// spec.taints.
    pub taints: Vec<Taint>,
    /// spec.unschedulable.
    pub unschedulable: bool,
    /// status.allocatable (defaulted from capacity).
    pub allocatable: Resource,
    /// status.images: (names, sizeBytes).
    /// Each entry's names are shared with the nodes the loader read lately that list the same
    /// (a cluster's nodes pull the same few images: their own copies would repeat them all).
    pub images: Box<[(list::List<String>, i64)]>,
    /// Every image name of `images` as (its [`image_name_hash`], entry, position in its names),
    /// sorted by hash then name, one per name: the last entry listing it, as the scheduler's
    /// ImageStates map keeps it. A lookup compares integers, and one name at the end.
    image_index: Vec<(u64, u32, u32)>,
    /// The object as read, decoded when read (see [`stored::Stored`]): nothing the engine reads
    /// on every cycle comes from it.
    pub obj: stored::Stored<core::Node>,
}

/// See [`Node::image_index`].
fn image_index(images: &[(list::List<String>, i64)]) -> Vec<(u64, u32, u32)> {
    let mut idx: Vec<(u64, u32, u32)> = images
        .iter()
        .enumerate()
        .flat_map(|(e, (names, _))| {
            names
                .iter()
                .enumerate()
                .map(move |(k, n)| (image_name_hash(n), e as u32, k as u32))
        })
        .collect();
    let name = |&(_, e, k): &(u64, u32, u32)| images[e as usize].0[k as usize].as_str();
    // by hash and name, the later entry first, so dedup keeps the entry that wins
    idx.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| name(a).cmp(name(b))).then(b.1.cmp(&a.1)));
    idx.dedup_by(|a, b| a.0 == b.0 && name(a) == name(b));
    idx
}

impl Node {
    /// The size of the image named `name` on the node (the last status.images entry listing
    /// it), as ImageLocality reads the node's ImageStates.
    pub fn image_size(&self, name: &str) -> Option<i64> {
        self.image_size_hashed(name, image_name_hash(name))
    }

    /// [`Node::image_size`] of a name whose [`image_name_hash`] is `hash`.
    pub fn image_size_hashed(&self, name: &str, hash: u64) -> Option<i64> {
        let i = self
            .image_index
            .binary_search_by(|&(h, e, k)| {
                h.cmp(&hash)
                    .then_with(|| self.images[e as usize].0[k as usize].as_str().cmp(name))
            })
            .ok()?;
        Some(self.images[self.image_index[i].1 as usize].1)
    }

    /// Builds the node model (sharing nothing with other nodes).
    pub fn from_obj(obj: core::Node) -> Result<Self, (String, String)> {
        Self::read(obj, None, None, &mut Interner::default())
    }

    /// As [`Node::from_obj`]; with `text` (the object's JSON, which decodes to `obj`) the
    /// stored object keeps that text (a slice of `file` when it lies there and is compact)
    /// and drops the typed form, as [`Pod::read`] does; its image name lists are shared with
    /// the equal lists of the nodes `intern` read before.
    pub fn read(
        obj: core::Node,
        text: Option<&str>,
        file: Option<&bytes::Bytes>,
        intern: &mut Interner,
    ) -> Result<Self, (String, String)> {
        let name = obj.metadata.name.clone().unwrap_or_default();
        let labels = obj.metadata.labels.clone().unwrap_or_default();
        let spec = obj.spec.as_ref();
        let taints = spec
            .and_then(|s| s.taints.as_ref())
            .into_iter()
            .flatten()
            .map(|t| Taint {
                key: t.key.clone(),
                value: t.value.clone().unwrap_or_default(),
                effect: t.effect.clone(),
            })
            .collect();
        let unschedulable = spec.and_then(|s| s.unschedulable).unwrap_or(false);
        let status = obj.status.as_ref();
        let alloc = match status.and_then(|s| s.allocatable.as_ref()) {
            Some(a) => resource_list(Some(a), "status.allocatable")?,
            None => resource_list(status.and_then(|s| s.capacity.as_ref()), "status.capacity")?,
        };
        let images: Box<[(list::List<String>, i64)]> = status
            .and_then(|s| s.images.as_ref())
            .into_iter()
            .flatten()
            .map(|i| {
                let names = match i.names.as_deref() {
                    None | Some([]) => list::List::new(),
                    Some(names) => share::share::<_, _, [_]>(&mut intern.image_names, names, |n| n.to_vec().into()),
                };
                (names, i.size_bytes.unwrap_or(0))
            })
            .collect();
        let image_index = image_index(&images);
        Ok(Node {
            image_index,
            name,
            labels: labels.into(),
            taints,
            unschedulable,
            allocatable: Resource::from_list(&alloc),
            images,
            obj: match text {
                Some(t) => stored::Stored::from_json_in(t, file),
                None => stored::Stored::typed(obj),
            },
        })
    }
}
