//! Fix hints for DRA: the ResourceClaims a pod names that do not exist, and a claim's request
//! changed to the devices a node has.

use super::{Change, Fix, only};
use crate::engine::framework::status::Code;
use crate::engine::trace::{DraNode, DraRequestOnNode, Explanation};
use crate::model::{Cluster, ObjectKey, Pod};

/// The claims the pod names that do not exist, when DynamicResources holds or rejects the pod
/// for it: one "create it" each.
pub(super) fn missing_claims(cluster: &Cluster, pod: &Pod, ex: &Explanation) -> Vec<Fix> {
    let blocked = ex
        .pre_enqueue
        .iter()
        .chain(ex.pre_filter.iter())
        .find(|s| s.plugin == "DynamicResources" && !matches!(s.code, Code::Success | Code::Skip));
    let Some(status) = blocked else {
        return Vec::new();
    };
    let ns = &pod.key.namespace;
    pod.spec()
        .resource_claims
        .iter()
        .flatten()
        .filter_map(|pc| {
            let name = pc.resource_claim_name.as_ref()?;
            let claim = ObjectKey::new(ns.clone(), name.clone());
            if cluster.resource_claims.contains_key(&claim) {
                return None;
            }
            Some(Fix {
                reason: status.reasons.join(", "),
                text: format!(
                    "create ResourceClaim {claim} (the pod's claim {} names it)",
                    pc.name
                ),
                command: None,
                note: Some(format!(
                    "its device requests are yours to say: a ResourceClaim named {name} in namespace {ns} (kubectl create -f), or a resourceClaimTemplateName on the pod's claim {} instead",
                    pc.name
                )),
                change: Change::CreateClaim {
                    claim,
                    pod_claim: pc.name.clone(),
                },
            })
        })
        .collect()
}

/// Devices as `a, b (ResourceSlice s)`, grouped by slice, the first four named.
pub(super) fn devices_phrase(devices: &[(String, String)]) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for (slice, d) in devices.iter().take(4) {
        match groups.iter_mut().find(|(s, _)| s == slice) {
            Some((_, v)) => v.push(d),
            None => groups.push((slice.clone(), vec![d])),
        }
    }
    let mut s = groups
        .iter()
        .map(|(slice, d)| format!("{} (ResourceSlice {slice})", d.join(", ")))
        .collect::<Vec<_>>()
        .join(", ");
    if devices.len() > 4 {
        s.push_str(&format!(" and {} more", devices.len() - 4));
    }
    s
}

/// DRA claims that cannot be allocated on the nodes failing only DynamicResources: for each
/// request short of devices, the devices a node would give if the request's selectors went
/// (none match them but some of the class do) or if it asked for fewer (the node's usable
/// ones); or, when no node checked has a device of the request's DeviceClass, that.
pub(super) fn dra_fixes(pod: &Pod, ex: &Explanation) -> Vec<Fix> {
    let Some(dra) = &ex.dra else { return Vec::new() };
    let failing = only(ex, "DynamicResources");
    let mut out = Vec::new();
    let mut labels: Vec<&str> = Vec::new();
    for n in dra.nodes.iter().filter(|n| failing.iter().any(|f| f.node == n.node)) {
        for r in &n.requests {
            if !labels.contains(&r.request.as_str()) {
                labels.push(&r.request);
            }
        }
    }
    let note = |claim: &ObjectKey| {
        format!(
            "a ResourceClaim's spec cannot change once created: create {claim} again with the change (for a claim made from a ResourceClaimTemplate, change the template and recreate the pod)"
        )
    };
    let mut no_class: Vec<String> = Vec::new();
    for label in labels {
        // claim/request only: a firstAvailable subrequest is left as it is
        let Some((claim_name, request)) = label.split_once('/').filter(|(_, r)| !r.contains('/')) else {
            continue;
        };
        let claim = ObjectKey::new(pod.key.namespace.clone(), claim_name);
        let on = |n: &'_ DraNode| n.requests.iter().find(|r| r.request == label).cloned();
        let everywhere: Vec<(&str, DraRequestOnNode)> = dra
            .nodes
            .iter()
            .filter_map(|n| Some((n.node.as_str(), on(n)?)))
            .collect();
        let Some(class) = everywhere.first().map(|(_, r)| r.class.clone()) else {
            continue;
        };
        if everywhere.iter().any(|(_, r)| r.error.is_some()) {
            continue;
        }
        if everywhere.iter().all(|(_, r)| r.class_match == 0) {
            if !no_class.contains(&class) {
                let devices: usize = everywhere.iter().map(|(_, r)| r.devices).sum();
                out.push(Fix {
                    reason: DRA_CANNOT_ALLOCATE.into(),
                    text: format!(
                        "no device of DeviceClass {class} exists ({devices} device(s) on the {} node(s) checked, none of the class; claim {claim} request {request})",
                        everywhere.len()
                    ),
                    command: None,
                    note: Some(format!(
                        "a node with such devices and their driver's ResourceSlices, or a request for another DeviceClass (kubectl get deviceclass {class} -o yaml shows its selectors)"
                    )),
                    change: Change::NoDeviceOfClass(class.clone()),
                });
                no_class.push(class.clone());
            }
            continue;
        }
        let short: Vec<(&str, &DraRequestOnNode)> = everywhere
            .iter()
            .filter(|(n, _)| failing.iter().any(|f| f.node == *n))
            .filter(|(_, r)| r.wanted.parse::<usize>().is_ok_and(|w| r.usable < w))
            .map(|(n, r)| (*n, r))
            .collect();
        // the selectors leave out every device of the class on a node that has some
        if let Some((node, r)) = short.iter().find(|(_, r)| r.selector_match == 0 && r.class_match > 0) {
            out.push(Fix {
                reason: DRA_CANNOT_ALLOCATE.into(),
                text: format!(
                    "drop the selectors of request {request} of claim {claim}: {} of class {class} on {node} would match",
                    devices_phrase(&r.unselected)
                ),
                command: None,
                note: Some(note(&claim)),
                change: Change::ClaimRequest {
                    claim: claim.clone(),
                    request: request.to_string(),
                    drop_selectors: true,
                    count: None,
                },
            });
            continue;
        }
        // fewer devices: the node with the most usable ones
        if let Some((node, r)) = short
            .iter()
            .filter(|(_, r)| r.usable > 0)
            .max_by(|a, b| a.1.usable.cmp(&b.1.usable).then(b.0.cmp(a.0)))
        {
            let to = i64::try_from(r.usable).unwrap_or(i64::MAX);
            out.push(Fix {
                reason: DRA_CANNOT_ALLOCATE.into(),
                text: format!(
                    "ask for {to} device{} instead of {} in request {request} of claim {claim}: {} usable on {node}",
                    if to == 1 { "" } else { "s" },
                    r.wanted,
                    devices_phrase(&r.usable_devices)
                ),
                command: None,
                note: Some(note(&claim)),
                change: Change::ClaimRequest {
                    claim: claim.clone(),
                    request: request.to_string(),
                    drop_selectors: false,
                    count: Some(to),
                },
            });
        }
    }
    out
}

/// DynamicResources' Filter reason.
pub(super) const DRA_CANNOT_ALLOCATE: &str = "cannot allocate all claims";
