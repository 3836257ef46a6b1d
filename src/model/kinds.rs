//! The one table of the Kubernetes kinds kschedtui reads: one row per kind, with its Rust
//! type, `kind` and `apiVersion`, the API versions a snapshot may spell it in, the resource
//! name in API paths, whether it is namespaced, whether a live cluster may refuse to list it
//! (optional) without failing the load, the anonymizer's placeholder prefix, and the
//! [`Cluster`](super::Cluster) field it is stored in.
//!
//! Everything that goes over the kinds is generated from [`kind_rows!`]: the [`Kind`] and
//! [`Object`] enums, metadata access, JSON output, the snapshot parsers' dispatch
//! ([`Kind::parse`]), storing into and listing out of a cluster ([`store`],
//! [`stored_documents`]), and (in `source::live`) the types listed and watched live. Adding a
//! kind is one row here (and, when its store is `[]`, the hand-written lines in
//! `Cluster::build` and `source::save` that give it a special shape); a test round-trips
//! every kind through load → save → load.
//!
//! The rows are passed to a callback macro (`kind_rows!(callback!(args))`), the way kube-core
//! lists resources, so every consumer sees the same rows.

use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::DeserializeOwned;

use super::{Cluster, ObjectKey};

/// Calls `$cb! { ($args) rows }` with every kind's row, in the order a snapshot lists them.
///
/// A row: `Variant { ty, kind, api, accepts, plural, namespaced, optional, discover, anon, store,
/// doc }`
/// where `accepts` lists the `apiVersion`s a snapshot may use (`"group/"` matches any version
/// of the group, `""` a missing apiVersion; an empty list accepts anything), `anon` is the
/// anonymizer's prefix, and `store` is `[field]` when the objects are kept as they are in that
/// [`Cluster`] field, `[]` when `Cluster::build` gives them their own shape.
macro_rules! kind_rows {
    ($($cb:ident)::+ ! ($($args:tt)*)) => {
        $($cb)::+! { ($($args)*)
            Namespace { ty: k8s_openapi::api::core::v1::Namespace, kind: "Namespace", api: "v1",
                accepts: [], plural: "namespaces", namespaced: false, optional: false, discover: false,
                anon: "ns", store: [], doc: "Namespace (only its labels are kept)." }
            PriorityClass { ty: k8s_openapi::api::scheduling::v1::PriorityClass, kind: "PriorityClass",
                api: "scheduling.k8s.io/v1", accepts: [], plural: "priorityclasses",
                namespaced: false, optional: false, discover: false, anon: "pc", store: [priority_classes],
                doc: "PriorityClass." }
            Node { ty: k8s_openapi::api::core::v1::Node, kind: "Node", api: "v1", accepts: [],
                plural: "nodes", namespaced: false, optional: false, discover: false, anon: "node", store: [],
                doc: "Node (indexed into the model's `Node`)." }
            StorageClass { ty: k8s_openapi::api::storage::v1::StorageClass, kind: "StorageClass",
                api: "storage.k8s.io/v1", accepts: [], plural: "storageclasses",
                namespaced: false, optional: false, discover: false, anon: "sc", store: [storage_classes],
                doc: "StorageClass." }
            CsiNode { ty: k8s_openapi::api::storage::v1::CSINode, kind: "CSINode",
                api: "storage.k8s.io/v1", accepts: [], plural: "csinodes", namespaced: false,
                optional: false, discover: false, anon: "node", store: [csi_nodes], doc: "CSINode." }
            CsiDriver { ty: k8s_openapi::api::storage::v1::CSIDriver, kind: "CSIDriver",
                api: "storage.k8s.io/v1", accepts: [], plural: "csidrivers", namespaced: false,
                optional: false, discover: false, anon: "", store: [csi_drivers],
                doc: "CSIDriver (named after its driver, which is kept as it is)." }
            CsiStorageCapacity { ty: k8s_openapi::api::storage::v1::CSIStorageCapacity,
                kind: "CSIStorageCapacity", api: "storage.k8s.io/v1", accepts: [],
                plural: "csistoragecapacities", namespaced: true, optional: false, discover: false, anon: "csisc",
                store: [csi_storage_capacities], doc: "CSIStorageCapacity." }
            PersistentVolume { ty: k8s_openapi::api::core::v1::PersistentVolume,
                kind: "PersistentVolume", api: "v1", accepts: [], plural: "persistentvolumes",
                namespaced: false, optional: false, discover: false, anon: "pv", store: [pvs],
                doc: "PersistentVolume." }
            PersistentVolumeClaim { ty: k8s_openapi::api::core::v1::PersistentVolumeClaim,
                kind: "PersistentVolumeClaim", api: "v1", accepts: [],
                plural: "persistentvolumeclaims", namespaced: true, optional: false, discover: false, anon: "pvc",
                store: [pvcs], doc: "PersistentVolumeClaim." }
            VolumeAttachment { ty: k8s_openapi::api::storage::v1::VolumeAttachment,
                kind: "VolumeAttachment", api: "storage.k8s.io/v1", accepts: [],
                plural: "volumeattachments", namespaced: false, optional: true, discover: false, anon: "va",
                store: [volume_attachments],
                doc: "VolumeAttachment (optional: NodeVolumeLimits counts them from 1.32)." }
            DeviceClass { ty: k8s_openapi::api::resource::v1::DeviceClass, kind: "DeviceClass",
                api: "resource.k8s.io/v1", accepts: ["resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"],
                plural: "deviceclasses", namespaced: false, optional: true, discover: true, anon: "dc",
                store: [device_classes],
                doc: "DeviceClass (optional: a cluster without DRA serves none)." }
            ResourceSlice { ty: k8s_openapi::api::resource::v1::ResourceSlice, kind: "ResourceSlice",
                api: "resource.k8s.io/v1", accepts: ["resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"],
                plural: "resourceslices", namespaced: false, optional: true, discover: true, anon: "slice",
                store: [resource_slices], doc: "ResourceSlice (optional, as DeviceClass)." }
            DeviceTaintRule { ty: k8s_openapi::api::resource::v1alpha3::DeviceTaintRule,
                kind: "DeviceTaintRule", api: "resource.k8s.io/v1alpha3",
                accepts: ["resource.k8s.io/v1alpha3"], plural: "devicetaintrules",
                namespaced: false, optional: true, discover: true, anon: "dtr", store: [device_taint_rules],
                doc: "DeviceTaintRule (alpha; optional)." }
            ResourceClaim { ty: k8s_openapi::api::resource::v1::ResourceClaim, kind: "ResourceClaim",
                api: "resource.k8s.io/v1", accepts: ["resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"],
                plural: "resourceclaims", namespaced: true, optional: true, discover: true, anon: "claim",
                store: [resource_claims], doc: "ResourceClaim (optional, as DeviceClass)." }
            ResourceClaimTemplate { ty: k8s_openapi::api::resource::v1::ResourceClaimTemplate,
                kind: "ResourceClaimTemplate", api: "resource.k8s.io/v1",
                accepts: ["resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"],
                plural: "resourceclaimtemplates", namespaced: true, optional: true, discover: true, anon: "rct",
                store: [resource_claim_templates],
                doc: "ResourceClaimTemplate (optional, as DeviceClass)." }
            PodDisruptionBudget { ty: k8s_openapi::api::policy::v1::PodDisruptionBudget,
                kind: "PodDisruptionBudget", api: "policy/v1", accepts: ["policy/v1", ""],
                plural: "poddisruptionbudgets", namespaced: true, optional: false, discover: false, anon: "pdb",
                store: [pdbs], doc: "PodDisruptionBudget (policy/v1 only)." }
            LimitRange { ty: k8s_openapi::api::core::v1::LimitRange, kind: "LimitRange", api: "v1",
                accepts: [], plural: "limitranges", namespaced: true, optional: true, discover: false,
                anon: "lr", store: [limit_ranges],
                doc: "LimitRange (optional: read by `fit`'s admission, LimitRanger's defaults)." }
            ResourceQuota { ty: k8s_openapi::api::core::v1::ResourceQuota, kind: "ResourceQuota",
                api: "v1", accepts: [], plural: "resourcequotas", namespaced: true, optional: true,
                discover: false, anon: "quota", store: [resource_quotas],
                doc: "ResourceQuota (optional: read by `fit`'s admission)." }
            RuntimeClass { ty: k8s_openapi::api::node::v1::RuntimeClass, kind: "RuntimeClass",
                api: "node.k8s.io/v1", accepts: [], plural: "runtimeclasses", namespaced: false,
                optional: true, discover: false, anon: "runtimeclass", store: [runtime_classes],
                doc: "RuntimeClass (optional: read by `fit`'s admission, its overhead and scheduling)." }
            Service { ty: k8s_openapi::api::core::v1::Service, kind: "Service", api: "v1",
                accepts: [], plural: "services", namespaced: true, optional: false, discover: false, anon: "svc",
                store: [services], doc: "Service." }
            ReplicaSet { ty: k8s_openapi::api::apps::v1::ReplicaSet, kind: "ReplicaSet",
                api: "apps/v1", accepts: [], plural: "replicasets", namespaced: true,
                optional: false, discover: false, anon: "rs", store: [replica_sets], doc: "ReplicaSet." }
            StatefulSet { ty: k8s_openapi::api::apps::v1::StatefulSet, kind: "StatefulSet",
                api: "apps/v1", accepts: [], plural: "statefulsets", namespaced: true,
                optional: false, discover: false, anon: "sts", store: [stateful_sets], doc: "StatefulSet." }
            ReplicationController { ty: k8s_openapi::api::core::v1::ReplicationController,
                kind: "ReplicationController", api: "v1", accepts: [],
                plural: "replicationcontrollers", namespaced: true, optional: false, discover: false, anon: "rc",
                store: [replication_controllers], doc: "ReplicationController." }
            PodGroup { ty: $crate::model::PodGroup, kind: "PodGroup",
                api: "scheduling.x-k8s.io/v1alpha1",
                accepts: ["scheduling.x-k8s.io/", "scheduling.sigs.k8s.io/"], plural: "podgroups",
                namespaced: true, optional: false, discover: true, anon: "pg", store: [pod_groups],
                doc: "PodGroup of the scheduler-plugins Coscheduling CRD." }
            WorkloadV1Alpha1 { ty: $crate::model::workload::WorkloadV1Alpha1, kind: "Workload",
                api: "scheduling.k8s.io/v1alpha1", accepts: ["scheduling.k8s.io/v1alpha1"],
                plural: "workloads", namespaced: true, optional: true, discover: true, anon: "wl",
                store: [workloads_v1alpha1],
                doc: "Workload of 1.35's gang scheduling (scheduling.k8s.io/v1alpha1)." }
            WorkloadV1Alpha2 { ty: $crate::model::workload::WorkloadV1Alpha2, kind: "Workload",
                api: "scheduling.k8s.io/v1alpha2", accepts: ["scheduling.k8s.io/v1alpha2"],
                plural: "workloads", namespaced: true, optional: true, discover: true, anon: "wl",
                store: [workloads_v1alpha2],
                doc: "Workload of 1.36 (scheduling.k8s.io/v1alpha2; its scheduler reads the PodGroups)." }
            SchedulingPodGroup { ty: $crate::model::workload::SchedulingPodGroup, kind: "PodGroup",
                api: "scheduling.k8s.io/v1alpha2", accepts: ["scheduling.k8s.io/v1alpha2"],
                plural: "podgroups", namespaced: true, optional: true, discover: true, anon: "pg",
                store: [scheduling_pod_groups],
                doc: "PodGroup of 1.36's gang scheduling (scheduling.k8s.io/v1alpha2)." }
            WorkloadV1Beta1 { ty: $crate::model::workload::WorkloadV1Beta1, kind: "Workload",
                api: "scheduling.k8s.io/v1beta1", accepts: ["scheduling.k8s.io/v1beta1"],
                plural: "workloads", namespaced: true, optional: true, discover: true, anon: "wl",
                store: [workloads_v1beta1],
                doc: "Workload of 1.37 (scheduling.k8s.io/v1beta1; its scheduler reads the PodGroups)." }
            PodGroupV1Beta1 { ty: $crate::model::workload::PodGroupV1Beta1, kind: "PodGroup",
                api: "scheduling.k8s.io/v1beta1", accepts: ["scheduling.k8s.io/v1beta1"],
                plural: "podgroups", namespaced: true, optional: true, discover: true, anon: "pg",
                store: [pod_groups_v1beta1],
                doc: "PodGroup of 1.37's gang scheduling (scheduling.k8s.io/v1beta1)." }
            CompositePodGroup { ty: $crate::model::workload::CompositePodGroupV1Alpha3,
                kind: "CompositePodGroup", api: "scheduling.k8s.io/v1alpha3",
                accepts: ["scheduling.k8s.io/v1alpha3"], plural: "compositepodgroups", namespaced: true,
                optional: true, discover: true, anon: "cpg", store: [composite_pod_groups],
                doc: "CompositePodGroup of 1.37 (scheduling.k8s.io/v1alpha3, gate CompositePodGroup)." }
            Pod { ty: k8s_openapi::api::core::v1::Pod, kind: "Pod", api: "v1", accepts: [],
                plural: "pods", namespaced: true, optional: false, discover: false, anon: "pod", store: [],
                doc: "Pod (indexed into the model's `Pod`)." }
            Event { ty: k8s_openapi::api::core::v1::Event, kind: "Event", api: "v1",
                accepts: ["v1", ""], plural: "events", namespaced: true, optional: true, discover: false,
                anon: "event", store: [],
                doc: "Event (core v1; only FailedScheduling events about pods are kept; an events.k8s.io/v1 Event is read into this shape)." }
        }
    };
}
#[cfg_attr(not(feature = "live"), allow(unused_imports))]
pub(crate) use kind_rows;

/// The generated items over every row.
macro_rules! define_kinds {
    (() $( $V:ident { ty: $ty:ty, kind: $kind:literal, api: $api:literal, accepts: [$($acc:literal),*],
        plural: $plural:literal, namespaced: $ns:literal, optional: $opt:literal, discover: $disc:literal, anon: $anon:literal,
        store: [$($field:ident)?], doc: $doc:literal } )* ) => {
        /// The kinds the engine reads, in the order a snapshot lists them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Kind {
            $( #[doc = $doc] $V, )*
        }

        impl Kind {
            /// How many kinds there are.
            pub const COUNT: usize = [$(Kind::$V),*].len();
            /// Every kind, in snapshot order.
            pub const ALL: [Kind; Kind::COUNT] = [$(Kind::$V),*];

            /// The `kind` field.
            pub fn name(self) -> &'static str {
                match self { $( Kind::$V => $kind, )* }
            }

            /// The `apiVersion` the engine reads and writes this kind in.
            pub fn api_version(self) -> &'static str {
                match self { $( Kind::$V => $api, )* }
            }

            /// The resource name in API paths (`pods`, `csinodes`, ...).
            pub fn plural(self) -> &'static str {
                match self { $( Kind::$V => $plural, )* }
            }

            /// True for kinds that live in a namespace.
            pub fn namespaced(self) -> bool {
                match self { $( Kind::$V => $ns, )* }
            }

            /// True for the kinds a live cluster may refuse to list (or not serve at all)
            /// without failing the load: the FailedScheduling events (only shown), the
            /// VolumeAttachments (NodeVolumeLimits counts them from 1.32) and the DRA kinds (a
            /// cluster without DRA has none).
            pub fn optional(self) -> bool {
                match self { $( Kind::$V => $opt, )* }
            }

            /// True for the kinds a cluster serves only with a feature or a CRD (DRA, PodGroup):
            /// a live source checks API discovery first and skips them when not served.
            pub fn discovered(self) -> bool {
                match self { $( Kind::$V => $disc, )* }
            }

            /// The anonymizer's placeholder prefix ("" when names are kept).
            pub fn anon_prefix(self) -> &'static str {
                match self { $( Kind::$V => $anon, )* }
            }

            /// The `apiVersion`s a snapshot may spell this kind in.
            fn accepts(self) -> &'static [&'static str] {
                match self { $( Kind::$V => &[$($acc),*], )* }
            }

            /// Parses one object of this kind with `p`.
            pub fn parse<P: ParseWith>(self, p: P) -> Result<Object, P::Error> {
                Ok(match self { $( Kind::$V => Object::$V(Box::new(p.parse::<$ty>()?)), )* })
            }
        }

        /// One object read from a snapshot or a live cluster, typed.
        #[derive(Clone, Debug)]
        pub enum Object {
            $( #[doc = $doc] $V(Box<$ty>), )*
            /// A kind the engine does not use (counted, then dropped).
            Skipped(String),
        }

        impl Object {
            /// The kind (None for [`Object::Skipped`]).
            pub fn kind(&self) -> Option<Kind> {
                match self {
                    $( Object::$V(_) => Some(Kind::$V), )*
                    Object::Skipped(_) => None,
                }
            }

            /// The object's metadata (empty for [`Object::Skipped`]).
            pub fn meta(&self) -> &ObjectMeta {
                match self {
                    $( Object::$V(x) => &x.metadata, )*
                    Object::Skipped(_) => &EMPTY_META,
                }
            }

            /// The object's metadata, mutable (None for [`Object::Skipped`]).
            pub fn meta_mut(&mut self) -> Option<&mut ObjectMeta> {
                match self {
                    $( Object::$V(x) => Some(&mut x.metadata), )*
                    Object::Skipped(_) => None,
                }
            }

            /// The object as JSON (without apiVersion and kind).
            fn bare_json(&self) -> serde_json::Value {
                // Serializing these types cannot fail: they hold only strings, numbers, maps
                // and lists.
                match self {
                    $( Object::$V(x) => serde_json::to_value(x).unwrap_or(serde_json::Value::Null), )*
                    Object::Skipped(k) => serde_json::json!({ "kind": k }),
                }
            }
        }

        /// Stores `obj` in its [`Cluster`] field; hands it back when its kind has its own
        /// shape there (store `[]`), for `Cluster::build` to index.
        pub(crate) fn store(c: &mut Cluster, key: ObjectKey, obj: Object) -> Result<(), Object> {
            match obj {
                $( $( Object::$V(x) => {
                    Stored::put(&mut c.$field, key, *x);
                    Ok(())
                } )? )*
                other => Err(other),
            }
        }

        /// Puts `obj` in its [`Cluster`] field in place of the object of the same key (a list
        /// stays sorted by key, as `Cluster::build` leaves it); hands it back when its kind has
        /// its own shape there (store `[]`).
        pub(crate) fn replace(c: &mut Cluster, key: ObjectKey, obj: Object) -> Result<(), Object> {
            match obj {
                $( $( Object::$V(x) => {
                    Stored::replace(&mut c.$field, key, *x, |o: &$ty| super::meta_key(&o.metadata));
                    Ok(())
                } )? )*
                other => Err(other),
            }
        }

        /// True when the objects of `kind` are kept as they are in a [`Cluster`] field (store
        /// `[field]`).
        pub(crate) fn kept_as_is(kind: Kind) -> bool {
            match kind {
                $( $( Kind::$V => !stringify!($field).is_empty(), )? )*
                #[allow(unreachable_patterns)]
                _ => false,
            }
        }

        /// Takes the object of `kind` and `key` out of its [`Cluster`] field. False when its
        /// kind has its own shape there (store `[]`): nothing was done.
        pub(crate) fn unstore(c: &mut Cluster, kind: Kind, key: &ObjectKey) -> bool {
            match kind {
                $( $( Kind::$V => {
                    Stored::remove(&mut c.$field, key, |o: &$ty| super::meta_key(&o.metadata));
                    true
                } )? )*
                #[allow(unreachable_patterns)]
                _ => false,
            }
        }

        /// The stored objects of `kind` as typed documents (apiVersion and kind first), or
        /// None when its kind has its own shape in the cluster (store `[]`).
        pub(crate) fn stored_documents(c: &Cluster, kind: Kind) -> Option<Vec<serde_json::Value>> {
            match kind {
                $( $( Kind::$V => Some(
                    Stored::items(&c.$field)
                        .map(|o| Object::$V(Box::new(o.clone())).to_json())
                        .collect(),
                ), )? )*
                #[allow(unreachable_patterns)]
                _ => None,
            }
        }
    };
}

kind_rows!(define_kinds!());

static EMPTY_META: ObjectMeta = ObjectMeta {
    annotations: None,
    creation_timestamp: None,
    deletion_grace_period_seconds: None,
    deletion_timestamp: None,
    finalizers: None,
    generate_name: None,
    generation: None,
    labels: None,
    managed_fields: None,
    name: None,
    namespace: None,
    owner_references: None,
    resource_version: None,
    self_link: None,
    uid: None,
};

/// Deserializes one object into a kind's type (the snapshot parsers implement it: from a
/// JSON value with unknown-field notes, or from text on the fast path).
pub trait ParseWith {
    /// The parser's error.
    type Error;
    /// Deserializes into `T`.
    fn parse<T: DeserializeOwned>(self) -> Result<T, Self::Error>;
}

impl Kind {
    /// The kind of a document with this `kind` and `apiVersion`, if the engine reads it. A row
    /// with no `accepts` (the k8s-openapi types, which check the apiVersion themselves) takes
    /// its own apiVersion or none.
    pub fn of_document(kind: &str, api_version: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| {
            k.name() == kind && {
                let acc = k.accepts();
                if acc.is_empty() {
                    api_version.is_empty() || api_version == k.api_version()
                } else {
                    acc.iter().any(|a| {
                        if a.ends_with('/') {
                            api_version.starts_with(a)
                        } else {
                            api_version == *a
                        }
                    })
                }
            }
        })
    }

    /// The apiVersions kschedtui reads `kind` in (`group/*` for any version of a group), when
    /// a document's `api_version` is not one of them but is of the same API group as one of them
    /// (`v99` for a Pod, `policy/v1beta1` for a PodDisruptionBudget): such a document is
    /// refused, saying so, rather than skipped or misread. None when the document is read
    /// ([`Kind::of_document`]), and when its group is another API's (another CRD's `PodGroup`,
    /// a Knative `Service`): that is a kind the engine does not use, skipped as any other.
    pub fn unread_api_version(kind: &str, api_version: &str) -> Option<Vec<String>> {
        if Kind::of_document(kind, api_version).is_some() {
            return None;
        }
        fn group(v: &str) -> &str {
            v.rsplit_once('/').map_or("", |(g, _)| g)
        }
        let mut accepted: Vec<String> = Vec::new();
        let mut same_group = false;
        for k in Kind::ALL.into_iter().filter(|k| k.name() == kind) {
            let own = [k.api_version()];
            let acc = if k.accepts().is_empty() { &own[..] } else { k.accepts() };
            for a in acc.iter().filter(|a| !a.is_empty()) {
                same_group |= group(a) == group(api_version);
                let shown = if a.ends_with('/') {
                    format!("{a}*")
                } else {
                    (*a).to_string()
                };
                if !accepted.contains(&shown) {
                    accepted.push(shown);
                }
            }
        }
        (same_group && !api_version.is_empty()).then_some(accepted)
    }

    /// The kind named `kind` (its `kind` field), whatever its API version.
    pub fn named(kind: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == kind)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Object {
    /// `namespace/name`.
    pub fn key(&self) -> ObjectKey {
        super::meta_key(self.meta())
    }

    /// The object as JSON with `apiVersion` and `kind` set, as `kubectl get -o json` prints it.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = self.bare_json();
        if let (Some(kind), serde_json::Value::Object(m)) = (self.kind(), &mut v) {
            // apiVersion and kind first, as the API server writes them (whether or not the
            // map keeps insertion order).
            let rest = std::mem::take(m);
            m.insert("apiVersion".into(), kind.api_version().into());
            m.insert("kind".into(), kind.name().into());
            for (k, x) in rest {
                if k != "apiVersion" && k != "kind" {
                    m.insert(k, x);
                }
            }
        }
        v
    }
}

impl Object {
    /// Removes the values of the containers' environment variables (`env[].value` and
    /// `env[].valueFrom`; the names stay) of a pod and of the pod templates of ReplicaSets,
    /// StatefulSets and ReplicationControllers. The scheduler never reads them, and they hold
    /// passwords and tokens: a live source drops them as it reads, so no snapshot, saved file
    /// or screen shows them. `envFrom` names ConfigMaps and Secrets, not values: kept.
    pub fn drop_env_values(&mut self) {
        use k8s_openapi::api::core::v1::PodSpec;
        fn spec(s: &mut PodSpec) {
            let containers = s.containers.iter_mut().chain(s.init_containers.iter_mut().flatten());
            let envs = containers.filter_map(|c| c.env.as_mut()).chain(
                s.ephemeral_containers
                    .iter_mut()
                    .flatten()
                    .filter_map(|c| c.env.as_mut()),
            );
            for env in envs {
                for e in env.iter_mut() {
                    e.value = None;
                    e.value_from = None;
                }
            }
        }
        let template = match self {
            Object::Pod(p) => p.spec.as_mut(),
            Object::ReplicaSet(r) => r.spec.template.as_mut().and_then(|t| t.spec.as_mut()),
            Object::StatefulSet(s) => s.spec.template.spec.as_mut(),
            Object::ReplicationController(r) => r.spec.as_mut().and_then(|s| s.template.as_mut()?.spec.as_mut()),
            _ => None,
        };
        if let Some(s) = template {
            spec(s);
        }
    }
}

/// A [`Cluster`] field objects are kept in as they are: by name, by `namespace/name`, or in
/// a list (sorted by `Cluster::build`).
trait Stored<T> {
    fn put(&mut self, key: ObjectKey, obj: T);
    fn items(&self) -> Box<dyn Iterator<Item = &T> + '_>;
    /// Puts `obj` in place of the object of `key`, a list kept sorted by `key_of`.
    fn replace(&mut self, key: ObjectKey, obj: T, key_of: fn(&T) -> ObjectKey);
    /// Removes the object of `key`, if there.
    fn remove(&mut self, key: &ObjectKey, key_of: fn(&T) -> ObjectKey);
}

impl<T> Stored<T> for BTreeMap<String, T> {
    fn put(&mut self, key: ObjectKey, obj: T) {
        self.insert(key.name.into(), obj);
    }
    fn items(&self) -> Box<dyn Iterator<Item = &T> + '_> {
        Box::new(self.values())
    }
    fn replace(&mut self, key: ObjectKey, obj: T, _: fn(&T) -> ObjectKey) {
        self.put(key, obj);
    }
    fn remove(&mut self, key: &ObjectKey, _: fn(&T) -> ObjectKey) {
        BTreeMap::remove(self, key.name.as_str());
    }
}

impl<T> Stored<T> for BTreeMap<ObjectKey, T> {
    fn put(&mut self, key: ObjectKey, obj: T) {
        self.insert(key, obj);
    }
    fn items(&self) -> Box<dyn Iterator<Item = &T> + '_> {
        Box::new(self.values())
    }
    fn replace(&mut self, key: ObjectKey, obj: T, _: fn(&T) -> ObjectKey) {
        self.insert(key, obj);
    }
    fn remove(&mut self, key: &ObjectKey, _: fn(&T) -> ObjectKey) {
        BTreeMap::remove(self, key);
    }
}

impl<T> Stored<T> for Vec<T> {
    fn put(&mut self, _key: ObjectKey, obj: T) {
        self.push(obj);
    }
    fn items(&self) -> Box<dyn Iterator<Item = &T> + '_> {
        Box::new(self.iter())
    }
    fn replace(&mut self, key: ObjectKey, obj: T, key_of: fn(&T) -> ObjectKey) {
        match self.binary_search_by(|o| key_of(o).cmp(&key)) {
            Ok(i) => self[i] = obj,
            Err(i) => self.insert(i, obj),
        }
    }
    fn remove(&mut self, key: &ObjectKey, key_of: fn(&T) -> ObjectKey) {
        if let Ok(i) = self.binary_search_by(|o| key_of(o).cmp(key)) {
            Vec::remove(self, i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_matched_by_kind_and_api_version() {
        assert_eq!(Kind::of_document("Pod", "v1"), Some(Kind::Pod));
        assert_eq!(Kind::of_document("Pod", ""), Some(Kind::Pod));
        assert_eq!(Kind::of_document("PodDisruptionBudget", "policy/v1beta1"), None);
        assert_eq!(
            Kind::of_document("PodDisruptionBudget", ""),
            Some(Kind::PodDisruptionBudget)
        );
        assert_eq!(
            Kind::of_document("PodGroup", "scheduling.x-k8s.io/v1alpha1"),
            Some(Kind::PodGroup)
        );
        assert_eq!(Kind::of_document("PodGroup", ""), None);
        assert_eq!(
            Kind::of_document("ResourceClaim", "resource.k8s.io/v1"),
            Some(Kind::ResourceClaim)
        );
        // 1.32's version, converted as it is read (model::dra_versions); 1.31's alpha is not read
        assert_eq!(
            Kind::of_document("ResourceClaim", "resource.k8s.io/v1beta1"),
            Some(Kind::ResourceClaim)
        );
        assert_eq!(Kind::of_document("ResourceClaim", "resource.k8s.io/v1alpha3"), None);
        assert_eq!(Kind::of_document("ConfigMap", "v1"), None);
        // a k8s-openapi type is read in its own apiVersion only
        assert_eq!(Kind::of_document("Pod", "v99"), None);
        assert_eq!(Kind::of_document("Service", "serving.knative.dev/v1"), None);
    }

    #[test]
    fn a_version_kschedtui_does_not_read_of_a_group_it_reads_is_named() {
        let unread = |k, v| Kind::unread_api_version(k, v);
        assert_eq!(unread("Pod", "v99"), Some(vec!["v1".to_string()]));
        assert_eq!(unread("Pod", "v1"), None);
        assert_eq!(unread("Pod", ""), None);
        assert_eq!(unread("ReplicaSet", "apps/v1beta2"), Some(vec!["apps/v1".to_string()]));
        assert_eq!(
            unread("PodDisruptionBudget", "policy/v1beta1"),
            Some(vec!["policy/v1".to_string()])
        );
        assert_eq!(
            unread("ResourceSlice", "resource.k8s.io/v1alpha3"),
            Some(vec![
                "resource.k8s.io/v1".to_string(),
                "resource.k8s.io/v1beta2".to_string(),
                "resource.k8s.io/v1beta1".to_string()
            ])
        );
        assert_eq!(
            unread("PodGroup", "scheduling.k8s.io/v1alpha1"),
            Some(
                [
                    "scheduling.x-k8s.io/*",
                    "scheduling.sigs.k8s.io/*",
                    "scheduling.k8s.io/v1alpha2",
                    "scheduling.k8s.io/v1beta1"
                ]
                .map(String::from)
                .to_vec()
            )
        );
        // another API's kind of the same name, and kinds the engine does not use: skipped
        assert_eq!(unread("Service", "serving.knative.dev/v1"), None);
        assert_eq!(unread("PodGroup", "scheduling.volcano.sh/v1beta1"), None);
        assert_eq!(unread("ConfigMap", "v99"), None);
    }

    #[test]
    fn every_kind_has_distinct_names_and_a_plural_of_its_name() {
        let mut seen = std::collections::BTreeSet::new();
        for k in Kind::ALL {
            assert!(seen.insert((k.name(), k.api_version())), "{k} twice");
            let stem = k.name().to_ascii_lowercase();
            assert!(
                k.plural().starts_with(stem.trim_end_matches('y')),
                "{k}: {}",
                k.plural()
            );
            assert!(Kind::of_document(k.name(), k.api_version()) == Some(k), "{k}");
        }
    }
}
