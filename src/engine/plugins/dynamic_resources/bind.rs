//! DynamicResources at PreBind (dynamicresources.go `PreBind` and `bindClaim`, 1.34–1.36;
//! the structured allocator's result, `structured/allocator*.go`): what the scheduler writes
//! for each of the pod's claims not yet reserved for it, in `spec.resourceClaims` order:
//!
//! - a claim the scheduler allocated: a PUT of the claim adding the finalizer
//!   `resource.kubernetes.io/delete-protection` (when it lacks it), then a PUT of its status
//!   with `allocation` and the pod appended to `reservedFor`;
//! - a claim allocated already: the status PUT appending the pod to `reservedFor` only.
//!
//! The AllocationResult is the allocator's: one `devices.results` entry per device in
//! allocation order (`request`, `driver`, `pool`, `device`, `adminAccess` when asked for; the
//! request's `tolerations` from 1.35's incubating allocator on; the device's binding
//! conditions when DRADeviceBindingConditions is on), `devices.config` (the classes' configs,
//! then the claim's), and `nodeSelector` (`createNodeSelector`).

use serde_json::{Map, Value, json};

use super::allocator::{DeviceResult, Generation, Implementation, Placement};
use super::dra;
use crate::model::Cluster;

/// What the allocation result carries at a release.
#[derive(Clone, Copy, Debug)]
pub(super) struct ResultShape {
    /// The allocator generation.
    pub generation: Generation,
    /// The implementation the release's gates select.
    pub implementation: Implementation,
    /// DRADeviceBindingConditions.
    pub binding_conditions: bool,
    /// DRAResourceClaimDeviceStatus.
    pub device_status: bool,
}

impl ResultShape {
    /// Results carry the request's tolerations: 1.35's incubating and experimental
    /// allocators, every allocator from 1.36.
    fn tolerations(self) -> bool {
        match self.generation {
            Generation::G134 => false,
            Generation::G135 => self.implementation != Implementation::Stable,
            Generation::G136 => true,
        }
    }

    /// Results carry the device's binding conditions: the allocators that support them, with
    /// the gates on (1.34's experimental needs DRADeviceBindingConditions only).
    fn binding_conditions(self) -> bool {
        match self.generation {
            Generation::G134 => self.binding_conditions && self.implementation == Implementation::Experimental,
            _ => self.binding_conditions && self.device_status && self.implementation != Implementation::Stable,
        }
    }

    /// The node selector names the node the pod is scheduled to (rather than the slice's
    /// node name), and a device that binds to a node pins the allocation to it: 1.34's and
    /// 1.35's experimental allocators, 1.36's incubating and experimental.
    fn target_node(self) -> bool {
        match self.generation {
            Generation::G134 | Generation::G135 => self.implementation == Implementation::Experimental,
            Generation::G136 => self.implementation != Implementation::Stable,
        }
    }
}

/// The class a result's request (`req` or `req/sub`) was allocated from.
fn class_of<'c>(claim: &'c dra::ResourceClaim, request: &str) -> Option<&'c str> {
    let (base, sub) = match request.split_once('/') {
        Some((b, s)) => (b, Some(s)),
        None => (request, None),
    };
    let req = claim
        .spec
        .as_ref()?
        .devices
        .as_ref()?
        .requests
        .iter()
        .flatten()
        .find(|r| r.name == base)?;
    match sub {
        Some(s) => req
            .first_available
            .iter()
            .flatten()
            .find(|x| x.name == s)
            .map(|x| x.device_class_name.as_str()),
        None => req.exactly.as_ref().map(|e| e.device_class_name.as_str()),
    }
}

/// `createNodeSelector` over the allocated devices: the first device bound to one node pins
/// the allocation to it; otherwise the single-term selectors of the devices are merged; a
/// device for all nodes adds nothing. None: usable on every node.
pub(super) fn node_selector(results: &[DeviceResult], node: &str, shape: ResultShape) -> Result<Option<Value>, String> {
    let pin = |name: &str| json!({ "nodeSelectorTerms": [{ "matchFields": [{ "key": "metadata.name", "operator": "In", "values": [name] }] }] });
    let mut fields: Vec<Value> = Vec::new();
    let mut exprs: Vec<Value> = Vec::new();
    for r in results {
        if shape.target_node() && r.binds_to_node {
            return Ok(Some(pin(node)));
        }
        match &r.placement {
            Placement::Node(n) => return Ok(Some(pin(if shape.target_node() { node } else { n }))),
            Placement::Selector(sel) => {
                let terms = sel["nodeSelectorTerms"].as_array().cloned().unwrap_or_default();
                if terms.len() != 1 {
                    return Err(format!(
                        "unsupported ResourceSlice.NodeSelector with {} terms",
                        terms.len()
                    ));
                }
                for (src, dst) in [("matchFields", &mut fields), ("matchExpressions", &mut exprs)] {
                    for req in terms[0][src].as_array().into_iter().flatten() {
                        if !dst.iter().any(|x| same_requirement(x, req)) {
                            dst.push(req.clone());
                        }
                    }
                }
            }
            Placement::AllNodes => {}
        }
    }
    if fields.is_empty() && exprs.is_empty() {
        return Ok(None);
    }
    let mut term = Map::new();
    if !exprs.is_empty() {
        term.insert("matchExpressions".into(), Value::Array(exprs));
    }
    if !fields.is_empty() {
        term.insert("matchFields".into(), Value::Array(fields));
    }
    Ok(Some(json!({ "nodeSelectorTerms": [Value::Object(term)] })))
}

/// Two node selector requirements are the same: key, operator and the same set of values.
fn same_requirement(a: &Value, b: &Value) -> bool {
    let values = |v: &Value| {
        let mut s: Vec<String> = v["values"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect();
        s.sort();
        s.dedup();
        s
    };
    a["key"] == b["key"] && a["operator"] == b["operator"] && values(a) == values(b)
}

/// The claim's `status.allocation` for the allocator's `results` on `node`.
pub(super) fn allocation_result(
    cluster: &Cluster,
    claim: &dra::ResourceClaim,
    results: &[DeviceResult],
    node: &str,
    shape: ResultShape,
) -> Result<Value, String> {
    let mut out_results = Vec::new();
    for r in results {
        let mut e = json!({
            "request": r.request,
            "driver": r.driver,
            "pool": r.pool,
            "device": r.device,
        });
        if r.admin_access {
            e["adminAccess"] = json!(true);
        }
        if shape.tolerations() && !r.tolerations.is_empty() {
            e["tolerations"] = Value::Array(r.tolerations.clone());
        }
        if shape.binding_conditions() {
            if !r.binding_conditions.is_empty() {
                e["bindingConditions"] = json!(r.binding_conditions);
            }
            if !r.binding_failure_conditions.is_empty() {
                e["bindingFailureConditions"] = json!(r.binding_failure_conditions);
            }
        }
        out_results.push(e);
    }
    // The classes' configs once per class, naming the requests allocated from it, in request
    // order; then the claim's own configs, one copy per request they name (a config for every
    // request once).
    let mut config: Vec<Value> = Vec::new();
    let mut by_class: Vec<(String, usize)> = Vec::new();
    let mut requests_done: Vec<&str> = Vec::new();
    for r in results {
        if requests_done.contains(&r.request.as_str()) {
            continue;
        }
        requests_done.push(&r.request);
        let Some(class) = class_of(claim, &r.request) else {
            continue;
        };
        let Some(dc) = cluster.device_classes.get(class) else {
            continue;
        };
        let configs = dc.spec.as_ref().and_then(|s| s.config.as_deref()).unwrap_or(&[]);
        match by_class.iter().find(|(c, _)| c == class) {
            Some((_, first)) => {
                for k in 0..configs.len() {
                    if let Some(list) = config[first + k]["requests"].as_array_mut() {
                        list.push(json!(r.request));
                    }
                }
            }
            None => {
                by_class.push((class.to_string(), config.len()));
                for c in configs {
                    let mut e = serde_json::to_value(c).unwrap_or_default();
                    e["source"] = json!("FromClass");
                    e["requests"] = json!([r.request]);
                    config.push(e);
                }
            }
        }
    }
    let spec = claim.spec.as_ref().and_then(|s| s.devices.as_ref());
    for c in spec.and_then(|d| d.config.as_deref()).unwrap_or(&[]) {
        let mut e = serde_json::to_value(c).unwrap_or_default();
        e["source"] = json!("FromClaim");
        let named = c.requests.as_deref().unwrap_or(&[]);
        if named.is_empty() {
            config.push(e);
            continue;
        }
        for req in spec.and_then(|d| d.requests.as_deref()).unwrap_or(&[]) {
            let chosen = results
                .iter()
                .find(|r| r.request == req.name || r.request.starts_with(&format!("{}/", req.name)))
                .map(|r| r.request.as_str());
            if named.iter().any(|n| *n == req.name || Some(n.as_str()) == chosen) {
                config.push(e.clone());
            }
        }
    }
    let mut devices = json!({ "results": out_results });
    if !config.is_empty() {
        devices["config"] = Value::Array(config);
    }
    let mut a = json!({ "devices": devices });
    if let Some(sel) = node_selector(results, node, shape)? {
        a["nodeSelector"] = sel;
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use crate::engine::framework::runner::explain;
    use crate::engine::framework::snapshot::Snapshot;
    use crate::engine::framework::trace::BindingOutcome;
    use crate::engine::{Release, build_profiles};
    use crate::model::ObjectKey;
    use crate::model::write::{Edit, WriteRequest};
    use crate::source::file::load_str;

    const CLUSTER: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu}
  spec:
    selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
    config: [{opaque: {driver: gpu.example.com, parameters: {mode: shared}}}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: n1-gpus}
  spec:
    driver: gpu.example.com
    nodeName: n1
    pool: {name: n1, generation: 1, resourceSliceCount: 1}
    devices: [{name: gpu-0}, {name: gpu-1}, {name: gpu-2}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: train, namespace: ml, uid: u-train}
  spec:
    devices:
      requests:
      - {name: a, exactly: {deviceClassName: gpu, count: 1}}
      - {name: b, exactly: {deviceClassName: gpu, count: 1, tolerations: [{key: t, operator: Exists}]}}
      config: [{requests: [b], opaque: {driver: gpu.example.com, parameters: {x: 1}}}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: shared, namespace: ml, finalizers: [resource.kubernetes.io/delete-protection]}
  spec:
    devices:
      requests: [{name: r, exactly: {deviceClassName: gpu, count: 1}}]
  status:
    allocation:
      devices: {results: [{request: r, driver: gpu.example.com, pool: n1, device: gpu-2}]}
      nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]}
    reservedFor: [{resource: pods, name: other, uid: u-other}]
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: ml, uid: u-p}
  spec:
    containers: [{name: c, image: i}]
    resourceClaims: [{name: t, resourceClaimName: train}, {name: s, resourceClaimName: shared}]
"#;

    fn writes_at(minor: u32) -> Vec<WriteRequest> {
        let v = Release::at(minor);
        let snap = Snapshot::new(Arc::new(load_str("t", CLUSTER).unwrap()), v);
        let ex = explain(&snap, &build_profiles(None, v).unwrap(), &ObjectKey::new("ml", "p")).unwrap();
        let b = ex.binding_cycle.expect("a binding cycle");
        assert_eq!(b.outcome, BindingOutcome::Bound, "{:?}", ex.message);
        assert!(b.unplanned.is_empty(), "{:?}", b.unplanned);
        b.writes
    }

    #[test]
    fn pre_bind_protects_allocates_and_reserves_each_claim_in_spec_order() {
        let w = writes_at(36);
        let summaries: Vec<String> = w.iter().map(WriteRequest::summary).collect();
        assert_eq!(
            summaries,
            vec![
                "DynamicResources PreBind: add finalizer resource.kubernetes.io/delete-protection to ResourceClaim ml/train",
                "DynamicResources PreBind: allocate ResourceClaim ml/train and reserve it for ml/p",
                "DynamicResources PreBind: reserve ResourceClaim ml/shared for ml/p",
            ]
        );
        assert_eq!(
            w[1].path(),
            "/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/train/status"
        );
        let WriteRequest::Update(u) = &w[1] else { panic!() };
        let Edit::Reserve {
            allocation: Some(a),
            timestamp,
            ..
        } = &u.edit
        else {
            panic!("{:?}", u.edit)
        };
        // 1.36: both binding-condition gates are on, so the allocation gets its timestamp
        assert!(*timestamp);
        assert_eq!(
            a,
            &json!({
                "devices": {
                    "results": [
                        {"request": "a", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"},
                        {"request": "b", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-1",
                         "tolerations": [{"key": "t", "operator": "Exists"}]},
                    ],
                    "config": [
                        {"opaque": {"driver": "gpu.example.com", "parameters": {"mode": "shared"}},
                         "source": "FromClass", "requests": ["a", "b"]},
                        {"requests": ["b"], "opaque": {"driver": "gpu.example.com", "parameters": {"x": 1}},
                         "source": "FromClaim"},
                    ],
                },
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]},
            })
        );
        let WriteRequest::Update(u) = &w[2] else { panic!() };
        assert_eq!(
            u.edit,
            Edit::Reserve {
                allocation: None,
                pod_name: "p".into(),
                pod_uid: "u-p".into(),
                timestamp: true,
            }
        );
    }

    #[test]
    fn the_result_shape_follows_the_release() {
        // 1.34: no tolerations in the results, no timestamp (binding conditions are alpha)
        let w = writes_at(34);
        let WriteRequest::Update(u) = &w[1] else { panic!() };
        let Edit::Reserve {
            allocation: Some(a),
            timestamp,
            ..
        } = &u.edit
        else {
            panic!()
        };
        assert!(!*timestamp);
        assert!(a["devices"]["results"][1].get("tolerations").is_none(), "{a}");
    }
}
