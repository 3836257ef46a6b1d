//! The Rust type of each [`Kind`] the engine reads, and how its objects become model
//! [`Object`]s. Secrets and ConfigMaps are not among them: kschedtui never reads either.
//! Events are read through a field selector ([`EVENT_FIELD_SELECTOR`]): FailedScheduling
//! events about pods only.

use std::borrow::Cow;
use std::fmt::Debug;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::storage::v1 as storage;
use k8s_openapi::api::{apps::v1 as apps, policy::v1 as policy, scheduling::v1 as sched};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::DeserializeOwned;

use crate::model::event::Kind;
use crate::model::{Object, PodGroup};

/// A type the live source lists and watches.
pub trait LiveKind:
    kube::Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static
{
    /// Its kind.
    const KIND: Kind;
    /// The `fieldSelector` of its lists and watches, if it is not read whole.
    const FIELD_SELECTOR: Option<&'static str> = None;
    /// Wraps it.
    fn into_object(self) -> Object;
}

macro_rules! live_kind {
    ($t:ty, $kind:ident, $variant:ident) => {
        impl LiveKind for $t {
            const KIND: Kind = Kind::$kind;
            fn into_object(self) -> Object {
                Object::$variant(Box::new(self))
            }
        }
    };
}

live_kind!(core::Namespace, Namespace, Namespace);
live_kind!(sched::PriorityClass, PriorityClass, PriorityClass);
live_kind!(core::Node, Node, Node);
live_kind!(storage::StorageClass, StorageClass, StorageClass);
live_kind!(storage::CSINode, CsiNode, CsiNode);
live_kind!(storage::CSIDriver, CsiDriver, CsiDriver);
live_kind!(storage::CSIStorageCapacity, CsiStorageCapacity, CsiStorageCapacity);
live_kind!(core::PersistentVolume, PersistentVolume, Pv);
live_kind!(core::PersistentVolumeClaim, PersistentVolumeClaim, Pvc);
live_kind!(storage::VolumeAttachment, VolumeAttachment, VolumeAttachment);
live_kind!(policy::PodDisruptionBudget, PodDisruptionBudget, Pdb);
live_kind!(core::Service, Service, Service);
live_kind!(apps::ReplicaSet, ReplicaSet, ReplicaSet);
live_kind!(apps::StatefulSet, StatefulSet, StatefulSet);
live_kind!(
    core::ReplicationController,
    ReplicationController,
    ReplicationController
);
live_kind!(PodGroup, PodGroup, PodGroup);
live_kind!(core::Pod, Pod, Pod);

/// Events: only those kube-scheduler records when a pod does not fit. The API server selects
/// them (core v1 events support field selectors on `reason` and `involvedObject.kind`), so a
/// busy cluster's other events are never sent.
impl LiveKind for core::Event {
    const KIND: Kind = Kind::Event;
    const FIELD_SELECTOR: Option<&'static str> = Some(EVENT_FIELD_SELECTOR);
    fn into_object(self) -> Object {
        Object::Event(Box::new(self))
    }
}

/// The field selector events are listed and watched with.
pub const EVENT_FIELD_SELECTOR: &str = "involvedObject.kind=Pod,reason=FailedScheduling";

/// The scheduler-plugins PodGroup CRD's group and version.
pub const POD_GROUP_GROUP: &str = "scheduling.x-k8s.io";
/// Version.
pub const POD_GROUP_VERSION: &str = "v1alpha1";

impl kube::Resource for PodGroup {
    type DynamicType = ();
    type Scope = k8s_openapi::NamespaceResourceScope;

    fn kind(_: &()) -> Cow<'_, str> {
        "PodGroup".into()
    }
    fn group(_: &()) -> Cow<'_, str> {
        POD_GROUP_GROUP.into()
    }
    fn version(_: &()) -> Cow<'_, str> {
        POD_GROUP_VERSION.into()
    }
    fn plural(_: &()) -> Cow<'_, str> {
        "podgroups".into()
    }
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

/// Runs `$body` with `$K` bound to the Rust type of `$kind`.
macro_rules! with_kind {
    ($kind:expr, $K:ident => $body:expr) => {{
        use k8s_openapi::api::core::v1 as k_core;
        use k8s_openapi::api::{
            apps::v1 as k_apps, policy::v1 as k_policy, scheduling::v1 as k_sched, storage::v1 as k_storage,
        };
        use $crate::model::event::Kind as K_;
        match $kind {
            K_::Namespace => {
                type $K = k_core::Namespace;
                $body
            }
            K_::PriorityClass => {
                type $K = k_sched::PriorityClass;
                $body
            }
            K_::Node => {
                type $K = k_core::Node;
                $body
            }
            K_::StorageClass => {
                type $K = k_storage::StorageClass;
                $body
            }
            K_::CsiNode => {
                type $K = k_storage::CSINode;
                $body
            }
            K_::CsiDriver => {
                type $K = k_storage::CSIDriver;
                $body
            }
            K_::CsiStorageCapacity => {
                type $K = k_storage::CSIStorageCapacity;
                $body
            }
            K_::PersistentVolume => {
                type $K = k_core::PersistentVolume;
                $body
            }
            K_::PersistentVolumeClaim => {
                type $K = k_core::PersistentVolumeClaim;
                $body
            }
            K_::VolumeAttachment => {
                type $K = k_storage::VolumeAttachment;
                $body
            }
            K_::PodDisruptionBudget => {
                type $K = k_policy::PodDisruptionBudget;
                $body
            }
            K_::Service => {
                type $K = k_core::Service;
                $body
            }
            K_::ReplicaSet => {
                type $K = k_apps::ReplicaSet;
                $body
            }
            K_::StatefulSet => {
                type $K = k_apps::StatefulSet;
                $body
            }
            K_::ReplicationController => {
                type $K = k_core::ReplicationController;
                $body
            }
            K_::PodGroup => {
                type $K = $crate::model::PodGroup;
                $body
            }
            K_::Pod => {
                type $K = k_core::Pod;
                $body
            }
            K_::Event => {
                type $K = k_core::Event;
                $body
            }
        }
    }};
}
pub(crate) use with_kind;

#[cfg(test)]
mod tests {
    use super::*;

    fn url<K: LiveKind>(ns: Option<&str>) -> String {
        K::url_path(&(), ns)
    }

    #[test]
    fn every_kind_has_the_api_path_of_its_resource() {
        for kind in Kind::ALL {
            let (all, one) = with_kind!(kind, K => (url::<K>(None), url::<K>(Some("ns"))));
            let group_version = kind.api_version();
            let prefix = if group_version == "v1" {
                "/api/v1".to_string()
            } else {
                format!("/apis/{group_version}")
            };
            assert_eq!(all, format!("{prefix}/{}", kind.plural()), "{kind}");
            if kind.namespaced() {
                assert_eq!(one, format!("{prefix}/namespaces/ns/{}", kind.plural()), "{kind}");
            }
            assert_eq!(with_kind!(kind, K => K::KIND), kind);
        }
    }
}
