//! resource.k8s.io objects of older versions in the shape of v1, the version the engine
//! reads (the hand-written conversions of k8s.io/dynamic-resource-allocation's
//! `api/v1beta1/conversion.go`; v1beta2 and v1 have the same JSON shape). A 1.32 or 1.33
//! server serves DRA at v1beta1 (and v1beta2 from 1.33) only; a snapshot may hold objects
//! written at either.
//!
//! v1beta1 → v1:
//! - a claim's (or a template's claim's) device request with any of `deviceClassName`,
//!   `selectors`, `allocationMode`, `count`, `adminAccess`, `tolerations`, `capacity` set gets
//!   them under `exactly` (`firstAvailable` is the same in both);
//! - a ResourceSlice's devices have their `basic` fields at the top level, and the slice's
//!   `nodeName: ""` and `allNodes: false` mean unset.

use serde_json::{Map, Value};

use super::kinds::Kind;

/// The fields of a v1beta1 DeviceRequest that v1 holds under `exactly`.
const EXACT_FIELDS: [&str; 7] = [
    "deviceClassName",
    "selectors",
    "allocationMode",
    "count",
    "adminAccess",
    "tolerations",
    "capacity",
];

/// Converts `obj`, an object of `kind` at resource.k8s.io/`version`, to v1 in place (its
/// apiVersion included). Other kinds and versions are left as they are.
pub fn to_v1(kind: Kind, version: &str, obj: &mut Value) {
    if !matches!(version, "v1beta1" | "v1beta2") {
        return;
    }
    let dra = match kind {
        Kind::ResourceClaim => {
            if version == "v1beta1" {
                requests_to_v1(&mut obj["spec"]["devices"]["requests"]);
            }
            true
        }
        Kind::ResourceClaimTemplate => {
            if version == "v1beta1" {
                requests_to_v1(&mut obj["spec"]["spec"]["devices"]["requests"]);
            }
            true
        }
        Kind::ResourceSlice => {
            if version == "v1beta1" {
                slice_to_v1(obj);
            }
            true
        }
        Kind::DeviceClass => true,
        _ => false,
    };
    if dra && let Some(m) = obj.as_object_mut() {
        m.insert("apiVersion".into(), Value::from("resource.k8s.io/v1"));
    }
}

fn is_set(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        Value::Number(n) => n.as_i64() != Some(0),
        _ => true,
    }
}

fn requests_to_v1(requests: &mut Value) {
    let Some(list) = requests.as_array_mut() else {
        return;
    };
    for r in list {
        let Some(m) = r.as_object_mut() else { continue };
        if m.contains_key("exactly") {
            continue;
        }
        let any = EXACT_FIELDS.iter().any(|f| m.get(*f).is_some_and(is_set));
        let mut exactly = Map::new();
        for f in EXACT_FIELDS {
            if let Some(v) = m.remove(f)
                && is_set(&v)
            {
                exactly.insert(f.to_string(), v);
            }
        }
        if any {
            m.insert("exactly".into(), Value::Object(exactly));
        }
    }
}

fn slice_to_v1(obj: &mut Value) {
    let spec = &mut obj["spec"];
    if let Some(m) = spec.as_object_mut() {
        if m.get("nodeName").is_some_and(|v| v.as_str() == Some("")) {
            m.remove("nodeName");
        }
        if m.get("allNodes").is_some_and(|v| v == &Value::Bool(false)) {
            m.remove("allNodes");
        }
    }
    let Some(devices) = spec["devices"].as_array_mut() else {
        return;
    };
    for d in devices {
        let Some(m) = d.as_object_mut() else { continue };
        if let Some(Value::Object(basic)) = m.remove("basic") {
            for (k, v) in basic {
                m.entry(k).or_insert(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_v1beta1_claim_gets_its_request_fields_under_exactly() {
        let mut c = json!({
            "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
            "metadata": {"name": "c", "namespace": "ml"},
            "spec": {"devices": {"requests": [
                {"name": "gpu", "deviceClassName": "gpu.example.com", "count": 2, "allocationMode": "ExactCount",
                 "selectors": [{"cel": {"expression": "true"}}]},
                {"name": "alt", "firstAvailable": [{"name": "a", "deviceClassName": "x"}]},
            ]}}
        });
        to_v1(Kind::ResourceClaim, "v1beta1", &mut c);
        assert_eq!(
            c,
            json!({
                "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": {"name": "c", "namespace": "ml"},
                "spec": {"devices": {"requests": [
                    {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "count": 2,
                     "allocationMode": "ExactCount", "selectors": [{"cel": {"expression": "true"}}]}},
                    {"name": "alt", "firstAvailable": [{"name": "a", "deviceClassName": "x"}]},
                ]}}
            })
        );
        let typed: k8s_openapi::api::resource::v1::ResourceClaim = serde_json::from_value(c).unwrap();
        let r = &typed.spec.unwrap().devices.unwrap().requests.unwrap()[0];
        assert_eq!(r.exactly.as_ref().unwrap().count, Some(2));
    }

    #[test]
    fn a_v1beta1_template_and_slice_are_converted() {
        let mut t = json!({"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaimTemplate",
            "spec": {"spec": {"devices": {"requests": [{"name": "r", "deviceClassName": "c"}]}}}});
        to_v1(Kind::ResourceClaimTemplate, "v1beta1", &mut t);
        assert_eq!(
            t["spec"]["spec"]["devices"]["requests"][0],
            json!({"name": "r", "exactly": {"deviceClassName": "c"}})
        );
        let mut s = json!({"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice",
            "spec": {"driver": "d", "nodeName": "", "allNodes": true, "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "gpu-0", "basic": {"attributes": {"model": {"string": "L4"}},
                                  "capacity": {"memory": {"value": "24Gi"}}}}, {"name": "bare"}]}});
        to_v1(Kind::ResourceSlice, "v1beta1", &mut s);
        assert_eq!(
            s["spec"],
            json!({"driver": "d", "allNodes": true, "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                   "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "L4"}},
                                "capacity": {"memory": {"value": "24Gi"}}}, {"name": "bare"}]})
        );
        assert_eq!(s["apiVersion"], "resource.k8s.io/v1");
    }

    #[test]
    fn v1beta2_and_other_kinds_keep_their_shape() {
        let before = json!({"apiVersion": "resource.k8s.io/v1beta2", "kind": "ResourceClaim",
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c"}}]}}});
        let mut c = before.clone();
        to_v1(Kind::ResourceClaim, "v1beta2", &mut c);
        assert_eq!(c["spec"], before["spec"]);
        assert_eq!(c["apiVersion"], "resource.k8s.io/v1");
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "spec": {"nodeName": ""}});
        let mut p = pod.clone();
        to_v1(Kind::Pod, "v1beta1", &mut p);
        assert_eq!(p, pod);
    }

    #[test]
    fn a_snapshot_of_a_1_32_cluster_reads_its_v1beta1_objects_as_v1() {
        let c = crate::source::file::load_str(
            "t",
            r"
apiVersion: v1
kind: List
items:
- apiVersion: resource.k8s.io/v1beta1
  kind: ResourceClaim
  metadata: {name: gpu, namespace: ml}
  spec: {devices: {requests: [{name: r, deviceClassName: gpu.example.com, count: 2}]}}
- apiVersion: resource.k8s.io/v1beta1
  kind: ResourceSlice
  metadata: {name: s}
  spec: {driver: d, nodeName: n1, pool: {name: p, generation: 1, resourceSliceCount: 1}, devices: [{name: g0, basic: {attributes: {model: {string: L4}}}}]}
",
        )
        .unwrap();
        let claim = &c.resource_claims[&crate::model::ObjectKey::new("ml", "gpu")];
        let r = &claim
            .spec
            .as_ref()
            .unwrap()
            .devices
            .as_ref()
            .unwrap()
            .requests
            .as_ref()
            .unwrap()[0];
        assert_eq!(
            r.exactly.as_ref().map(|e| e.device_class_name.as_str()),
            Some("gpu.example.com")
        );
        assert_eq!(r.exactly.as_ref().and_then(|e| e.count), Some(2));
        let d = &c.resource_slices["s"].spec.devices.as_ref().unwrap()[0];
        assert!(d.attributes.as_ref().is_some_and(|a| a.contains_key("model")));
    }
}
