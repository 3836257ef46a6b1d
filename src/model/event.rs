//! Changes to a cluster as a source reports them ([`ClusterEvent`]), and the store they apply
//! to ([`ClusterState`]): every object the engine uses, keyed by kind and `namespace/name`,
//! with the resourceVersion last seen per kind. A [`Cluster`] is built from the store on demand,
//! so each explanation runs on a frozen copy while the store keeps changing; a cluster built
//! from it is brought up to date object by object by `super::live_update`.
//!
//! A live source sends its pods and nodes already read into the model ([`Item::Pod`],
//! [`Item::Node`]: the facts the engine reads, the object kept as compact text and decoded
//! only when asked), so the store holds them as the file loader's cluster does and building a
//! cluster from it shares them instead of reading every object again; every other object is
//! kept typed ([`Item::Object`]).
//!
//! Pure data: no I/O, no clock, no async. Sources (files, live clusters) produce the events;
//! front ends apply them.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use ecow::EcoString;

use super::{Cluster, Interner, ModelError, Node, Object, ObjectKey, Origin, Pod, ReadObject, ReadPod};

/// The `Origin` file name of objects read from a live cluster.
pub const LIVE_ORIGIN: &str = "<live>";

pub use super::kinds::Kind;

/// The reason of a [`ClusterEvent::Replaced`] the user asked for (Ctrl-r), as opposed to one
/// a source sends when it finds the cluster is another one.
pub const RELIST_ASKED: &str = "Ctrl-r";

/// An object as a store keeps it.
#[derive(Clone, Debug)]
pub enum Item {
    /// Typed, as read: every kind but the pods and nodes a live source reads, and a pod or
    /// node the model refused (building the cluster then words the error).
    Object(Object),
    /// A pod read into the model, its priority resolved when a cluster is built.
    Pod {
        /// The pod.
        pod: ReadPod,
        /// metadata.resourceVersion (held inline: a resourceVersion is a number).
        resource_version: EcoString,
    },
    /// A node read into the model.
    Node {
        /// The node.
        node: Arc<Node>,
        /// metadata.uid (the model's node has none).
        uid: Box<str>,
        /// metadata.resourceVersion.
        resource_version: EcoString,
    },
}

impl From<Object> for Item {
    fn from(o: Object) -> Self {
        Item::Object(o)
    }
}

impl Item {
    /// Reads a pod or a node into the model (the other kinds stay typed). `text` is the
    /// object's compact JSON, kept as the stored object's text (a slice of `file` when it lies
    /// there); `again` gives the typed object once more when the model refuses it (reading
    /// consumed it), to be kept typed so that building a cluster words the error.
    pub fn read(
        obj: Object,
        text: Option<&str>,
        file: Option<&bytes::Bytes>,
        intern: &mut Interner,
        again: impl FnOnce() -> Object,
    ) -> Item {
        match obj {
            Object::Pod(p) => {
                let resource_version = p.metadata.resource_version.as_deref().unwrap_or_default().into();
                match Pod::read(p, text, file, intern) {
                    Ok(pod) => Item::Pod { pod, resource_version },
                    Err(_) => Item::Object(again()),
                }
            }
            Object::Node(n) => {
                let resource_version = n.metadata.resource_version.as_deref().unwrap_or_default().into();
                let uid = n.metadata.uid.as_deref().unwrap_or_default().into();
                match Node::read(*n, text, file, intern) {
                    Ok(node) => Item::Node {
                        node: Arc::new(node),
                        uid,
                        resource_version,
                    },
                    Err(_) => Item::Object(again()),
                }
            }
            other => Item::Object(other),
        }
    }

    /// The kind (None for a skipped object).
    pub fn kind(&self) -> Option<Kind> {
        match self {
            Item::Object(o) => o.kind(),
            Item::Pod { .. } => Some(Kind::Pod),
            Item::Node { .. } => Some(Kind::Node),
        }
    }

    /// `namespace/name`.
    pub fn key(&self) -> ObjectKey {
        match self {
            Item::Object(o) => o.key(),
            Item::Pod { pod, .. } => pod.pod.key.clone(),
            Item::Node { node, .. } => ObjectKey::new("", node.name.as_str()),
        }
    }

    /// metadata.uid, when it has one.
    pub fn uid(&self) -> Option<&str> {
        match self {
            Item::Object(o) => o.meta().uid.as_deref(),
            Item::Pod { pod, .. } => Some(&*pod.pod.uid),
            Item::Node { uid, .. } => Some(&**uid),
        }
        .filter(|u| !u.is_empty())
    }

    /// metadata.resourceVersion, when it has one.
    pub fn resource_version(&self) -> Option<&str> {
        match self {
            Item::Object(o) => o.meta().resource_version.as_deref(),
            Item::Pod { resource_version, .. } | Item::Node { resource_version, .. } => Some(resource_version.as_str()),
        }
        .filter(|r| !r.is_empty())
    }

    /// The typed object: borrowed when it is kept typed, decoded (a copy) for a pod or a node
    /// read into the model.
    pub fn object(&self) -> Cow<'_, Object> {
        match self {
            Item::Object(o) => Cow::Borrowed(o),
            Item::Pod { pod, .. } => Cow::Owned(Object::Pod(pod.pod.obj.clone().into_box())),
            Item::Node { node, .. } => Cow::Owned(Object::Node(node.obj.clone().into_box())),
        }
    }

    /// The pod's object, when this is a pod: decoded once and kept (for the few pods a write
    /// reads).
    pub fn pod_object(&self) -> Option<&k8s_openapi::api::core::v1::Pod> {
        match self {
            Item::Object(Object::Pod(p)) => Some(p),
            Item::Pod { pod, .. } => Some(&pod.pod.obj),
            _ => None,
        }
    }

    /// Where the text of a pod or node read into the model is, for [`super::stored::pack`];
    /// None for a typed object or once the object is shared.
    pub fn slot(&mut self) -> Option<super::stored::Slot<'_>> {
        match self {
            Item::Object(_) => None,
            Item::Pod { pod, .. } => Arc::get_mut(&mut pod.pod).map(|p| p.obj.slot()),
            Item::Node { node, .. } => Arc::get_mut(node).map(|n| n.obj.slot()),
        }
    }
}

/// One change reported by a source.
#[derive(Clone, Debug)]
pub enum ClusterEvent {
    /// An object was added or modified (watch ADDED / MODIFIED).
    Applied(Box<Item>),
    /// An object was deleted (watch DELETED); the last known state.
    Deleted(Box<Item>),
    /// Every object of a kind was listed again (after 410 Gone): replaces them all.
    Resynced {
        /// Kind.
        kind: Kind,
        /// The complete new set.
        objects: Vec<Item>,
        /// The list's resourceVersion.
        resource_version: String,
    },
    /// The watch moved on without a change (watch BOOKMARK).
    Bookmark {
        /// Kind.
        kind: Kind,
        /// The bookmark's resourceVersion.
        resource_version: String,
    },
    /// The watch of a kind broke; the view of that kind may be out of date until it resumes.
    Stale {
        /// Kind.
        kind: Kind,
        /// What happened, one line.
        reason: String,
    },
    /// The watch of a kind is running again after being stale.
    Resumed {
        /// Kind.
        kind: Kind,
        /// The resourceVersion it resumed from.
        resource_version: String,
    },
    /// Every kind was listed again (the cluster was recreated under the same URL, or the user
    /// asked for it): the new state replaces the whole store.
    Replaced {
        /// Why, one line.
        reason: String,
        /// The new state.
        state: Box<ClusterState>,
    },
}

impl ClusterEvent {
    /// The kind the event is about.
    pub fn kind(&self) -> Option<Kind> {
        match self {
            ClusterEvent::Applied(o) | ClusterEvent::Deleted(o) => o.kind(),
            ClusterEvent::Resynced { kind, .. }
            | ClusterEvent::Bookmark { kind, .. }
            | ClusterEvent::Stale { kind, .. }
            | ClusterEvent::Resumed { kind, .. } => Some(*kind),
            ClusterEvent::Replaced { .. } => None,
        }
    }
}

/// Every object of a cluster, as a source last reported it.
#[derive(Clone, Debug, Default)]
pub struct ClusterState {
    objects: BTreeMap<(Kind, ObjectKey), (Origin, Item)>,
    /// The last resourceVersion seen per kind (list, object, bookmark).
    pub resource_versions: BTreeMap<Kind, String>,
    /// Kinds whose watch is broken, with the reason.
    pub stale: BTreeMap<Kind, String>,
    /// Kinds read but not used, with counts (from snapshot files).
    pub skipped: BTreeMap<String, usize>,
    /// Optional kinds ([`Kind::optional`]) the source could not read (events or
    /// VolumeAttachments a live cluster refuses to list), with why; the others are required,
    /// and a failure to read them fails the load.
    pub unreadable: BTreeMap<Kind, String>,
    /// The kinds served only with a feature or a CRD ([`Kind::discovered`]) that a live
    /// server does not serve (API discovery).
    pub not_served: std::collections::BTreeSet<Kind>,
    /// The version of resource.k8s.io a live server serves the DRA kinds in, when it serves
    /// them ("v1", or "v1beta2"/"v1beta1" on 1.32 and 1.33, converted to v1 as read).
    pub dra_version: Option<String>,
    /// Bumped by every event that changed an object; lets a front end see that the cluster
    /// changed since an explanation was computed.
    pub generation: u64,
}

impl ClusterState {
    /// An empty state.
    pub fn new() -> Self {
        Self::default()
    }

    /// A state holding objects read from a file (later objects of the same kind and key win;
    /// [`Cluster::build`] reports such duplicates, so validate with it first).
    pub fn from_objects(objects: impl IntoIterator<Item = (Origin, Object)>) -> Self {
        let mut s = ClusterState::default();
        for (origin, obj) in objects {
            s.insert(origin, obj);
        }
        s
    }

    fn insert(&mut self, origin: Origin, obj: Object) {
        match obj.kind() {
            Some(kind) => {
                self.objects.insert((kind, obj.key()), (origin, Item::Object(obj)));
            }
            None => {
                if let Object::Skipped(k) = obj {
                    *self.skipped.entry(k).or_insert(0) += 1;
                }
            }
        }
    }

    fn live_origin() -> Origin {
        Origin {
            file: LIVE_ORIGIN.into(),
            doc: 0,
        }
    }

    fn note_version(&mut self, kind: Kind, obj: &Item) {
        if let Some(rv) = obj.resource_version() {
            self.resource_versions.insert(kind, rv.to_string());
        }
    }

    /// Applies an event. Returns true when an object changed.
    pub fn apply(&mut self, ev: ClusterEvent) -> bool {
        let changed = match ev {
            ClusterEvent::Applied(obj) => {
                let Some(kind) = obj.kind() else { return false };
                self.stale.remove(&kind);
                self.unreadable.remove(&kind);
                self.note_version(kind, &obj);
                let origin = Self::live_origin();
                self.objects.insert((kind, obj.key()), (origin, *obj));
                true
            }
            ClusterEvent::Deleted(obj) => {
                let Some(kind) = obj.kind() else { return false };
                self.stale.remove(&kind);
                self.note_version(kind, &obj);
                self.objects.remove(&(kind, obj.key())).is_some()
            }
            ClusterEvent::Resynced {
                kind,
                objects,
                resource_version,
            } => {
                self.stale.remove(&kind);
                self.unreadable.remove(&kind);
                self.objects.retain(|(k, _), _| *k != kind);
                for o in objects {
                    if o.kind() == Some(kind) {
                        self.objects.insert((kind, o.key()), (Self::live_origin(), o));
                    }
                }
                if !resource_version.is_empty() {
                    self.resource_versions.insert(kind, resource_version);
                }
                true
            }
            ClusterEvent::Bookmark { kind, resource_version } | ClusterEvent::Resumed { kind, resource_version } => {
                self.stale.remove(&kind);
                if !resource_version.is_empty() {
                    self.resource_versions.insert(kind, resource_version);
                }
                false
            }
            ClusterEvent::Stale { kind, reason } => {
                self.stale.insert(kind, reason);
                false
            }
            ClusterEvent::Replaced { state, .. } => {
                let generation = self.generation;
                *self = *state;
                self.generation = generation;
                true
            }
        };
        if changed {
            self.generation += 1;
        }
        changed
    }

    /// Objects in snapshot order (kind, then namespace/name), typed: pods and nodes read
    /// into the model are decoded, one at a time.
    pub fn objects(&self) -> impl Iterator<Item = Cow<'_, Object>> {
        self.objects.values().map(|(_, o)| o.object())
    }

    /// Objects of one kind, as they are kept.
    pub fn items_of(&self, kind: Kind) -> impl Iterator<Item = &Item> {
        self.objects
            .range((kind, ObjectKey::default())..)
            .take_while(move |((k, _), _)| *k == kind)
            .map(|(_, (_, o))| o)
    }

    /// Objects of one kind, typed (see [`ClusterState::objects`]).
    pub fn objects_of(&self, kind: Kind) -> impl Iterator<Item = Cow<'_, Object>> {
        self.items_of(kind).map(Item::object)
    }

    /// One object, as it is kept.
    pub fn item(&self, kind: Kind, key: &ObjectKey) -> Option<&Item> {
        self.objects.get(&(kind, key.clone())).map(|(_, o)| o)
    }

    /// One object, typed (see [`ClusterState::objects`]).
    pub fn get(&self, kind: Kind, key: &ObjectKey) -> Option<Cow<'_, Object>> {
        self.item(kind, key).map(Item::object)
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// True when there is no object.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// True when some kind's watch is broken.
    pub fn is_stale(&self) -> bool {
        !self.stale.is_empty()
    }

    /// `kind=resourceVersion` pairs, for reports ("Node=1200 Pod=1234 ...").
    pub fn resource_version_summary(&self) -> String {
        self.resource_versions
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Builds the cluster the engine reads. Objects from a live cluster are numbered by their
    /// position, so a message names "<live> (document N)" as it would name a snapshot item.
    pub fn to_cluster(&self) -> Result<Cluster, ModelError> {
        // the pods and nodes read into the model are shared with the cluster, not read again
        let mut objects = Vec::new();
        let mut read = Vec::new();
        for (i, (origin, o)) in self.objects.values().enumerate() {
            let mut origin = origin.clone();
            if &*origin.file == LIVE_ORIGIN {
                origin.doc = i;
            }
            match o {
                Item::Object(o) => objects.push((origin, o.clone())),
                Item::Pod { pod, .. } => read.push((origin, ReadObject::Pod(pod.clone()))),
                Item::Node { node, .. } => read.push((origin, ReadObject::Node(node.clone()))),
            }
        }
        let mut c = Cluster::build_with_pods(objects, read)?;
        for (k, n) in &self.skipped {
            *c.skipped.entry(k.clone()).or_insert(0) += n;
        }
        c.events_unreadable = self.unreadable.get(&Kind::Event).cloned();
        c.not_served = self.not_served.clone();
        c.dra_version = self.dra_version.clone();
        for (kind, why) in &self.unreadable {
            c.warnings.extend(super::unreadable_warning(*kind, why));
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1 as core;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    fn pod(ns: &str, name: &str, rv: &str, node: Option<&str>) -> Object {
        Object::Pod(Box::new(core::Pod {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some(ns.into()),
                resource_version: Some(rv.into()),
                ..Default::default()
            },
            spec: Some(core::PodSpec {
                node_name: node.map(Into::into),
                ..Default::default()
            }),
            ..Default::default()
        }))
    }

    fn node(name: &str, rv: &str) -> Object {
        Object::Node(Box::new(core::Node {
            metadata: ObjectMeta {
                name: Some(name.into()),
                resource_version: Some(rv.into()),
                ..Default::default()
            },
            ..Default::default()
        }))
    }

    #[test]
    fn applied_then_deleted_tracks_objects_versions_and_generation() {
        let mut s = ClusterState::new();
        assert!(s.apply(ClusterEvent::Applied(Box::new(Item::from(pod("a", "p", "10", None))))));
        assert!(s.apply(ClusterEvent::Applied(Box::new(Item::from(pod(
            "a",
            "p",
            "11",
            Some("n1")
        ))))));
        assert_eq!(s.len(), 1);
        assert_eq!(s.resource_versions[&Kind::Pod], "11");
        let c = s.to_cluster().unwrap();
        assert_eq!(c.pods[0].node_name.as_deref(), Some("n1"));
        assert!(s.apply(ClusterEvent::Deleted(Box::new(Item::from(pod(
            "a",
            "p",
            "12",
            Some("n1")
        ))))));
        assert!(s.is_empty());
        assert_eq!(s.resource_versions[&Kind::Pod], "12");
        assert_eq!(s.generation, 3);
        // Deleting an object that is not there changes nothing.
        assert!(!s.apply(ClusterEvent::Deleted(Box::new(Item::from(pod("a", "p", "13", None))))));
        assert_eq!(s.generation, 3);
    }

    #[test]
    fn resynced_replaces_only_its_kind() {
        let mut s = ClusterState::new();
        s.apply(ClusterEvent::Applied(Box::new(Item::from(node("n1", "5")))));
        s.apply(ClusterEvent::Applied(Box::new(Item::from(pod("a", "old", "6", None)))));
        s.apply(ClusterEvent::Resynced {
            kind: Kind::Pod,
            objects: vec![pod("a", "new", "9", None).into(), pod("b", "x", "9", None).into()],
            resource_version: "20".into(),
        });
        let keys: Vec<String> = s.objects_of(Kind::Pod).map(|o| o.key().to_string()).collect();
        assert_eq!(keys, ["a/new", "b/x"]);
        assert_eq!(s.objects_of(Kind::Node).count(), 1);
        assert_eq!(s.resource_versions[&Kind::Pod], "20");
        assert_eq!(s.resource_version_summary(), "Node=5 Pod=20");
    }

    #[test]
    fn stale_until_the_kind_reports_again() {
        let mut s = ClusterState::new();
        s.apply(ClusterEvent::Stale {
            kind: Kind::Pod,
            reason: "connection reset".into(),
        });
        s.apply(ClusterEvent::Stale {
            kind: Kind::Node,
            reason: "timeout".into(),
        });
        assert!(s.is_stale());
        assert!(!s.apply(ClusterEvent::Bookmark {
            kind: Kind::Pod,
            resource_version: "7".into()
        }));
        assert_eq!(s.stale.keys().copied().collect::<Vec<_>>(), [Kind::Node]);
        s.apply(ClusterEvent::Resumed {
            kind: Kind::Node,
            resource_version: "8".into(),
        });
        assert!(!s.is_stale());
        assert_eq!(s.resource_versions[&Kind::Node], "8");
        assert_eq!(s.generation, 0);
    }

    #[test]
    fn live_objects_are_numbered_in_messages() {
        let mut s = ClusterState::new();
        s.apply(ClusterEvent::Applied(Box::new(Item::from(node("n1", "1")))));
        let mut bad = core::Node {
            metadata: ObjectMeta {
                name: Some("n2".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        bad.status = Some(core::NodeStatus {
            allocatable: Some(
                [(
                    "cpu".to_string(),
                    k8s_openapi::apimachinery::pkg::api::resource::Quantity("x".into()),
                )]
                .into(),
            ),
            ..Default::default()
        });
        s.apply(ClusterEvent::Applied(Box::new(Item::from(Object::Node(Box::new(bad))))));
        let e = s.to_cluster().unwrap_err();
        assert_eq!(
            e.origin,
            Origin {
                file: "<live>".into(),
                doc: 1
            }
        );
        assert_eq!(e.field, "status.allocatable.cpu");
    }

    fn failed_scheduling(name: &str, pod: &str, rv: &str, message: &str) -> Object {
        Object::Event(Box::new(core::Event {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("a".into()),
                resource_version: Some(rv.into()),
                ..Default::default()
            },
            involved_object: core::ObjectReference {
                kind: Some("Pod".into()),
                namespace: Some("a".into()),
                name: Some(pod.into()),
                ..Default::default()
            },
            reason: Some("FailedScheduling".into()),
            message: Some(message.into()),
            count: Some(2),
            ..Default::default()
        }))
    }

    #[test]
    fn events_are_held_and_carried_to_the_cluster_with_why_they_were_unreadable() {
        let mut s = ClusterState::new();
        s.apply(ClusterEvent::Applied(Box::new(Item::from(pod("a", "p", "1", None)))));
        s.unreadable.insert(Kind::Event, "403 Forbidden".into());
        assert_eq!(
            s.to_cluster().unwrap().events_unreadable.as_deref(),
            Some("403 Forbidden")
        );
        // A list of events that succeeds (a later resync) makes them readable again.
        s.apply(ClusterEvent::Resynced {
            kind: Kind::Event,
            objects: vec![failed_scheduling("p.1", "p", "5", "first").into()],
            resource_version: "5".into(),
        });
        s.apply(ClusterEvent::Applied(Box::new(Item::from(failed_scheduling(
            "p.2", "p", "6", "second",
        )))));
        assert_eq!(s.objects_of(Kind::Event).count(), 2);
        assert_eq!(s.resource_versions[&Kind::Event], "6");
        let c = s.to_cluster().unwrap();
        assert_eq!(c.events_unreadable, None);
        let msgs: Vec<&str> = c.scheduling_events[&ObjectKey::new("a", "p")]
            .iter()
            .map(|e| e.message.as_str())
            .collect();
        // Neither has a time: ordered by name.
        assert_eq!(msgs, ["first", "second"]);
        assert_eq!(failed_scheduling("p.1", "p", "5", "m").to_json()["apiVersion"], "v1");
        assert!(s.apply(ClusterEvent::Deleted(Box::new(Item::from(failed_scheduling(
            "p.1", "p", "7", "first"
        ))))));
        assert_eq!(
            s.to_cluster().unwrap().scheduling_events[&ObjectKey::new("a", "p")].len(),
            1
        );
    }

    #[test]
    fn to_json_sets_api_version_and_kind_first() {
        let v = pod("a", "p", "1", None).to_json();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys[..2], ["apiVersion", "kind"]);
        assert_eq!(v["apiVersion"], "v1");
        assert_eq!(v["kind"], "Pod");
        let pg = Object::PodGroup(Box::default()).to_json();
        assert_eq!(pg["apiVersion"], "scheduling.x-k8s.io/v1alpha1");
        let keys: Vec<&String> = pg.as_object().unwrap().keys().collect();
        assert_eq!(keys[..2], ["apiVersion", "kind"]);
    }
}
