//! The Rust type of each [`Kind`] the engine reads, and how its objects become model
//! [`Object`]s. Secrets and ConfigMaps are not among them: kschedtui never reads either.
//! Events are read through a field selector ([`EVENT_FIELD_SELECTOR`]): FailedScheduling
//! events about pods only.

use std::borrow::Cow;
use std::fmt::Debug;

use k8s_openapi::api::core::v1 as core;
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

/// `LiveKind` for every row of the kinds table but events (below).
macro_rules! live_kinds {
    (() $( $V:ident { ty: $ty:ty, kind: $kind:literal, api: $api:literal, accepts: [$($acc:literal),*],
        plural: $plural:literal, namespaced: $ns:literal, optional: $opt:literal, discover: $disc:literal, anon: $anon:literal,
        store: [$($field:ident)?], doc: $doc:literal } )* ) => {
        $( live_kinds!(@one $V $ty); )*
    };
    (@one Event $ty:ty) => {};
    (@one $V:ident $ty:ty) => {
        impl LiveKind for $ty {
            const KIND: Kind = Kind::$V;
            fn into_object(self) -> Object {
                let mut o = Object::$V(Box::new(self));
                // environment values (passwords, tokens) never enter the model
                o.drop_env_values();
                o
            }
        }
    };
}
crate::model::kinds::kind_rows!(live_kinds!());

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

/// `kube::Resource` for a type of kschedtui's own (the native gang API k8s-openapi lacks).
macro_rules! own_resource {
    ($t:ty, $kind:literal, $group:literal, $version:literal, $plural:literal) => {
        impl kube::Resource for $t {
            type DynamicType = ();
            type Scope = k8s_openapi::NamespaceResourceScope;

            fn kind(_: &()) -> Cow<'_, str> {
                $kind.into()
            }
            fn group(_: &()) -> Cow<'_, str> {
                $group.into()
            }
            fn version(_: &()) -> Cow<'_, str> {
                $version.into()
            }
            fn plural(_: &()) -> Cow<'_, str> {
                $plural.into()
            }
            fn meta(&self) -> &ObjectMeta {
                &self.metadata
            }
            fn meta_mut(&mut self) -> &mut ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

own_resource!(
    crate::model::workload::WorkloadV1Alpha1,
    "Workload",
    "scheduling.k8s.io",
    "v1alpha1",
    "workloads"
);
own_resource!(
    crate::model::workload::WorkloadV1Alpha2,
    "Workload",
    "scheduling.k8s.io",
    "v1alpha2",
    "workloads"
);
own_resource!(
    crate::model::workload::SchedulingPodGroup,
    "PodGroup",
    "scheduling.k8s.io",
    "v1alpha2",
    "podgroups"
);
own_resource!(
    crate::model::workload::WorkloadV1Beta1,
    "Workload",
    "scheduling.k8s.io",
    "v1beta1",
    "workloads"
);
own_resource!(
    crate::model::workload::PodGroupV1Beta1,
    "PodGroup",
    "scheduling.k8s.io",
    "v1beta1",
    "podgroups"
);
own_resource!(
    crate::model::workload::CompositePodGroupV1Alpha3,
    "CompositePodGroup",
    "scheduling.k8s.io",
    "v1alpha3",
    "compositepodgroups"
);

/// The versions of resource.k8s.io a server may serve the DRA kinds in, newest first: v1
/// (1.34+), v1beta2 (1.33+, same shape as v1), v1beta1 (1.32+, converted).
pub const DRA_VERSIONS: [&str; 3] = ["v1", "v1beta2", "v1beta1"];

/// The DRA kinds read at resource.k8s.io/v1 (DeviceTaintRule has its own versions).
pub fn is_dra_v1_kind(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::DeviceClass | Kind::ResourceSlice | Kind::ResourceClaim | Kind::ResourceClaimTemplate
    )
}

/// A resource.k8s.io version older than v1 (the marker of [`Older`]).
pub trait OlderVersion: Clone + Debug + Send + Sync + 'static {
    /// The version.
    const VERSION: &'static str;
}

/// resource.k8s.io/v1beta2.
#[derive(Clone, Debug)]
pub struct V1Beta2;
impl OlderVersion for V1Beta2 {
    const VERSION: &'static str = "v1beta2";
}

/// resource.k8s.io/v1beta1.
#[derive(Clone, Debug)]
pub struct V1Beta1;
impl OlderVersion for V1Beta1 {
    const VERSION: &'static str = "v1beta1";
}

/// An object of kind `T` (read by the engine at v1) listed and watched at an older version
/// `V` of its group, and converted to v1 as it is decoded ([`crate::model::dra_versions`]).
#[derive(Clone, Debug)]
pub struct Older<T, V>(pub T, std::marker::PhantomData<V>);

impl<'de, T: LiveKind, V: OlderVersion> serde::Deserialize<'de> for Older<T, V> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut v = serde_json::Value::deserialize(d)?;
        crate::model::dra_versions::to_v1(T::KIND, V::VERSION, &mut v);
        let t = T::deserialize(v).map_err(serde::de::Error::custom)?;
        Ok(Older(t, std::marker::PhantomData))
    }
}

impl<T: LiveKind, V: OlderVersion> kube::Resource for Older<T, V> {
    type DynamicType = ();
    type Scope = T::Scope;

    fn kind(dt: &()) -> Cow<'_, str> {
        T::kind(dt)
    }
    fn group(dt: &()) -> Cow<'_, str> {
        T::group(dt)
    }
    fn version(_: &()) -> Cow<'_, str> {
        V::VERSION.into()
    }
    fn plural(dt: &()) -> Cow<'_, str> {
        T::plural(dt)
    }
    fn meta(&self) -> &ObjectMeta {
        self.0.meta()
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        self.0.meta_mut()
    }
}

impl<T: LiveKind, V: OlderVersion> LiveKind for Older<T, V> {
    const KIND: Kind = T::KIND;
    const FIELD_SELECTOR: Option<&'static str> = T::FIELD_SELECTOR;
    fn into_object(self) -> Object {
        self.0.into_object()
    }
}

/// Runs `$body` with `$K` bound to the type that reads `$kind` at resource.k8s.io version
/// `$version` (the kind's own type at v1, or for the DRA kinds [`Older`] at v1beta2/v1beta1).
macro_rules! with_served_kind {
    ($kind:expr, $version:expr, $K:ident => $body:expr) => {{
        use $crate::model::event::Kind as SK;
        use $crate::source::live::kinds::{Older, V1Beta1, V1Beta2};
        use k8s_openapi::api::resource::v1 as rv1;
        let kind = $kind;
        match ($version, kind) {
            ("v1beta2", SK::DeviceClass) => { type $K = Older<rv1::DeviceClass, V1Beta2>; $body }
            ("v1beta2", SK::ResourceSlice) => { type $K = Older<rv1::ResourceSlice, V1Beta2>; $body }
            ("v1beta2", SK::ResourceClaim) => { type $K = Older<rv1::ResourceClaim, V1Beta2>; $body }
            ("v1beta2", SK::ResourceClaimTemplate) => { type $K = Older<rv1::ResourceClaimTemplate, V1Beta2>; $body }
            ("v1beta1", SK::DeviceClass) => { type $K = Older<rv1::DeviceClass, V1Beta1>; $body }
            ("v1beta1", SK::ResourceSlice) => { type $K = Older<rv1::ResourceSlice, V1Beta1>; $body }
            ("v1beta1", SK::ResourceClaim) => { type $K = Older<rv1::ResourceClaim, V1Beta1>; $body }
            ("v1beta1", SK::ResourceClaimTemplate) => { type $K = Older<rv1::ResourceClaimTemplate, V1Beta1>; $body }
            _ => $crate::model::kinds::kind_rows!(crate::source::live::kinds::with_kind_match!(kind, $K => $body)),
        }
    }};
}
pub(crate) use with_served_kind;

/// The `match` of [`with_kind!`], over every row of the kinds table.
macro_rules! with_kind_match {
    (($kind:expr, $K:ident => $body:expr) $( $V:ident { ty: $ty:ty, kind: $k:literal, api: $api:literal,
        accepts: [$($acc:literal),*], plural: $plural:literal, namespaced: $ns:literal,
        optional: $opt:literal, discover: $disc:literal, anon: $anon:literal, store: [$($field:ident)?], doc: $doc:literal } )* ) => {
        match $kind {
            $( $crate::model::event::Kind::$V => {
                type $K = $ty;
                $body
            } )*
        }
    };
}
pub(crate) use with_kind_match;

/// Runs `$body` with `$K` bound to the Rust type of `$kind`.
#[cfg(test)]
macro_rules! with_kind {
    ($kind:expr, $K:ident => $body:expr) => {
        $crate::model::kinds::kind_rows!(crate::source::live::kinds::with_kind_match!($kind, $K => $body))
    };
}
#[cfg(test)]
#[allow(unused_imports)]
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
