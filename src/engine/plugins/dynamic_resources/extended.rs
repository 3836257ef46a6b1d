//! Extended resources backed by DRA (DRAExtendedResource, on by default from 1.36): a
//! container request of `example.com/gpu` (a DeviceClass's `spec.extendedResourceName`) or of
//! `deviceclass.resource.kubernetes.io/<class>` that a node lacks in allocatable is served by
//! devices of that class (dynamicresources/extendeddynamicresources.go, the scheduler's
//! `ExtendedResourceCache`, noderesources/fit.go `shouldDelegateResourceToDRA`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::resource::v1 as dra;

use crate::model::Cluster;
use crate::model::resources::is_extended_resource;

/// The implicit extended resource name of every class.
pub(crate) const IMPLICIT_PREFIX: &str = "deviceclass.resource.kubernetes.io/";
/// The annotation of the claim the scheduler creates for a pod's extended resources.
pub(crate) const CLAIM_ANNOTATION: &str = "resource.kubernetes.io/extended-resource-claim";
/// The in-memory claim's name until the scheduler creates it.
pub(crate) const SPECIAL_CLAIM_NAME: &str = "<extended-resources>";

/// `IsDRAExtendedResourceName`: an extended resource name or an implicit class name.
pub(crate) fn is_dra_extended_name(name: &str) -> bool {
    name.starts_with(IMPLICIT_PREFIX) || is_extended_resource(name)
}

/// The DeviceClass serving extended resource `name`, if any: the implicit name of every
/// class, and each class's `extendedResourceName` (when two classes name the same resource,
/// the newer one wins, on a tie the lower name).
pub(crate) fn device_class_for<'a>(cluster: &'a Cluster, name: &str) -> Option<&'a dra::DeviceClass> {
    if let Some(class) = name.strip_prefix(IMPLICIT_PREFIX) {
        return cluster.device_classes.get(class);
    }
    let mut best: Option<&dra::DeviceClass> = None;
    for c in cluster.device_classes.values() {
        if c.spec.as_ref().and_then(|s| s.extended_resource_name.as_deref()) != Some(name) {
            continue;
        }
        best = match best {
            None => Some(c),
            Some(b) => {
                let (tc, tb) = (&c.metadata.creation_timestamp, &b.metadata.creation_timestamp);
                let newer = tc.as_ref().map(|t| t.0) > tb.as_ref().map(|t| t.0);
                let tie = tc.as_ref().map(|t| t.0) == tb.as_ref().map(|t| t.0);
                if newer || (tie && c.metadata.name < b.metadata.name) {
                    Some(c)
                } else {
                    Some(b)
                }
            }
        };
    }
    best
}

/// One device request the scheduler builds for a container's extended resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ExtendedRequest {
    /// `container-<i>-request-<j>`.
    pub name: String,
    /// The class.
    pub class: String,
    /// How many devices.
    pub count: i64,
}

/// `createRequestsAndMappings`: the requests of the node's extended-resource claim for the
/// resources `wanted` (name → quantity) the node leaves to DRA. Long-lived containers (regular
/// ones and restartable init containers) get a request each; of the other init containers,
/// only the largest request is kept (the first on ties), less what later long-lived
/// containers already hold.
pub(crate) fn requests_for(cluster: &Cluster, pod: &core::Pod, wanted: &BTreeMap<String, i64>) -> Vec<ExtendedRequest> {
    let spec = pod.spec.as_ref();
    let init = spec.and_then(|s| s.init_containers.as_deref()).unwrap_or(&[]);
    let regular = spec.map_or(&[][..], |s| s.containers.as_slice());
    let all: Vec<(&core::Container, bool)> = init
        .iter()
        .map(|c| (c, c.restart_policy.as_deref() == Some("Always")))
        .chain(regular.iter().map(|c| (c, true)))
        .collect();
    let mut out = Vec::new();
    for name in wanted.keys() {
        let Some(class) = device_class_for(cluster, name) else {
            continue;
        };
        let class_name = class.metadata.name.clone().unwrap_or_default();
        let make = |i: usize, reuse: &[Option<ExtendedRequest>]| -> Option<ExtendedRequest> {
            let c = all[i].0;
            let reqs = c.resources.as_ref().and_then(|r| r.requests.as_ref())?;
            let q = reqs.get(name)?;
            let qty = crate::model::quantity::Quantity::parse(&q.0).ok()?;
            if qty.milli_value() % 1000 != 0 {
                return None;
            }
            let qty = qty.value();
            if qty <= 0 {
                return None;
            }
            let mut sum = 0;
            for r in reuse.iter().flatten() {
                sum += r.count;
                if sum >= qty {
                    return None;
                }
            }
            let idx = reqs.keys().position(|k| k == name).unwrap_or(0);
            Some(ExtendedRequest {
                name: format!("container-{i}-request-{idx}"),
                class: class_name.clone(),
                count: qty - sum,
            })
        };
        let mut long: Vec<Option<ExtendedRequest>> = vec![None; all.len()];
        for i in 0..all.len() {
            if all[i].1 {
                long[i] = make(i, &[]);
            }
        }
        let mut max_short: Option<ExtendedRequest> = None;
        for i in 0..all.len() {
            if all[i].1 {
                continue;
            }
            if let Some(r) = make(i, &long[i..])
                && max_short.as_ref().is_none_or(|m| r.count > m.count)
            {
                max_short = Some(r);
            }
        }
        out.extend(max_short);
        out.extend(long.into_iter().flatten());
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The device claim of those requests (ExactCount of each class).
pub(crate) fn device_claim(requests: &[ExtendedRequest]) -> dra::DeviceClaim {
    dra::DeviceClaim {
        requests: Some(
            requests
                .iter()
                .map(|r| dra::DeviceRequest {
                    name: r.name.clone(),
                    exactly: Some(dra::ExactDeviceRequest {
                        device_class_name: r.class.clone(),
                        allocation_mode: Some("ExactCount".into()),
                        count: Some(r.count),
                        ..Default::default()
                    }),
                    first_available: None,
                })
                .collect(),
        ),
        constraints: None,
        config: None,
    }
}
