//! Builders for the descheduler's unit tests, after upstream's test helpers
//! (test/test_utils.go `BuildTestNode`, `BuildTestPod`, `SetRSOwnerRef`, ...).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference, Time};
use k8s_openapi::jiff::Timestamp;

use super::policy::{self, Policy};
use super::{CycleReport, cycle};
use crate::model::kinds::Object;
use crate::model::{Cluster, Origin};

/// `BuildTestNode(name, millicpu, mem, pods)`.
pub fn node(name: &str, milli_cpu: i64, mem: i64, pods: i64) -> core::Node {
    let mut alloc = BTreeMap::new();
    alloc.insert("cpu".to_string(), Quantity(format!("{milli_cpu}m")));
    alloc.insert("memory".to_string(), Quantity(mem.to_string()));
    alloc.insert("pods".to_string(), Quantity(pods.to_string()));
    core::Node {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        spec: Some(core::NodeSpec::default()),
        status: Some(core::NodeStatus {
            allocatable: Some(alloc.clone()),
            capacity: Some(alloc),
            conditions: Some(vec![core::NodeCondition {
                type_: "Ready".into(),
                status: "True".into(),
                ..Default::default()
            }]),
            ..Default::default()
        }),
    }
}

/// `BuildTestPod(name, millicpu, mem, nodeName)`: no owner, created at the epoch, running.
pub fn pod(name: &str, milli_cpu: i64, mem: i64, node: &str) -> core::Pod {
    let mut req = BTreeMap::new();
    if milli_cpu > 0 {
        req.insert("cpu".to_string(), Quantity(format!("{milli_cpu}m")));
    }
    if mem > 0 {
        req.insert("memory".to_string(), Quantity(mem.to_string()));
    }
    core::Pod {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("default".into()),
            uid: Some(format!("uid-{name}")),
            creation_timestamp: Some(Time(Timestamp::UNIX_EPOCH)),
            ..Default::default()
        },
        spec: Some(core::PodSpec {
            node_name: (!node.is_empty()).then(|| node.to_string()),
            containers: vec![core::Container {
                name: "c".into(),
                image: Some("img".into()),
                resources: Some(core::ResourceRequirements {
                    requests: Some(req),
                    ..Default::default()
                }),
                ..Default::default()
            }],
            ..Default::default()
        }),
        status: Some(core::PodStatus {
            phase: Some("Running".into()),
            ..Default::default()
        }),
    }
}

/// `SetRSOwnerRef`.
#[allow(dead_code)]
pub fn rs_owned(mut p: core::Pod) -> core::Pod {
    p.metadata.owner_references = Some(vec![owner("ReplicaSet", "replicaset-1")]);
    p
}

/// `SetNormalOwnerRef` (an owner of kind Pod).
pub fn normal_owned(mut p: core::Pod) -> core::Pod {
    p.metadata.owner_references = Some(vec![owner("Pod", "")]);
    p
}

/// `SetPodPriority`.
pub fn priority(mut p: core::Pod, v: i32) -> core::Pod {
    p.spec.get_or_insert_with(Default::default).priority = Some(v);
    p
}

/// Labels.
pub fn labels(mut p: core::Pod, kv: &[(&str, &str)]) -> core::Pod {
    p.metadata.labels = Some(kv.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect());
    p
}

/// Node labels.
pub fn node_labels(mut n: core::Node, kv: &[(&str, &str)]) -> core::Node {
    n.metadata.labels = Some(kv.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect());
    n
}

/// `SetPodAntiAffinity(pod, key, value)`: required, key In [value], topologyKey region.
pub fn anti_affinity(mut p: core::Pod, key: &str, value: &str) -> core::Pod {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};
    p.spec.get_or_insert_with(Default::default).affinity = Some(core::Affinity {
        pod_anti_affinity: Some(core::PodAntiAffinity {
            required_during_scheduling_ignored_during_execution: Some(vec![core::PodAffinityTerm {
                label_selector: Some(LabelSelector {
                    match_expressions: Some(vec![LabelSelectorRequirement {
                        key: key.into(),
                        operator: "In".into(),
                        values: Some(vec![value.into()]),
                    }]),
                    ..Default::default()
                }),
                topology_key: "region".into(),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        ..Default::default()
    });
    p
}

/// An owner reference.
pub fn owner(kind: &str, name: &str) -> OwnerReference {
    OwnerReference {
        api_version: "v1".into(),
        kind: kind.into(),
        name: name.into(),
        uid: format!("uid-{kind}-{name}"),
        controller: Some(true),
        ..Default::default()
    }
}

/// The cluster of these objects.
pub fn cluster(nodes: Vec<core::Node>, pods: Vec<core::Pod>) -> Cluster {
    let o = || Origin {
        file: "test".into(),
        doc: 0,
    };
    let mut objs: Vec<(Origin, Object)> = nodes.into_iter().map(|n| (o(), Object::Node(Box::new(n)))).collect();
    objs.extend(pods.into_iter().map(|p| (o(), Object::Pod(Box::new(p)))));
    Cluster::build(objs).unwrap_or_default()
}

/// A one-profile policy enabling `plugin` at `point` with `args` (JSON), and DefaultEvictor
/// `evictor` args.
pub fn policy(point: &str, plugin: &str, args: serde_json::Value, evictor: serde_json::Value) -> Policy {
    policy_with_limits(point, plugin, args, evictor, serde_json::json!({}))
}

/// As [`policy`], with top-level fields (limits) merged in.
pub fn policy_with_limits(
    point: &str,
    plugin: &str,
    args: serde_json::Value,
    evictor: serde_json::Value,
    top: serde_json::Value,
) -> Policy {
    let mut doc = serde_json::json!({
        "apiVersion": "descheduler/v1alpha2",
        "kind": "DeschedulerPolicy",
        "profiles": [{
            "name": "test",
            "pluginConfig": [
                {"name": "DefaultEvictor", "args": evictor},
                {"name": plugin, "args": args},
            ],
            "plugins": {point: {"enabled": [plugin]}},
        }],
    });
    if let (Some(d), Some(t)) = (doc.as_object_mut(), top.as_object()) {
        for (k, v) in t {
            d.insert(k.clone(), v.clone());
        }
    }
    match policy::read(&doc) {
        Ok((p, _)) => p,
        Err(e) => panic!("test policy: {e}"),
    }
}

/// Runs a cycle at `now` (seconds after the epoch) and returns the evicted pods' names in order.
pub fn evicted(c: Cluster, p: &Policy, now_secs: i64) -> (Vec<String>, CycleReport) {
    let now = Timestamp::from_second(now_secs).unwrap_or(Timestamp::UNIX_EPOCH);
    let r = match cycle(c, p, now, false) {
        Ok(r) => r,
        Err(e) => panic!("cycle: {e}"),
    };
    (r.evicted.iter().map(|(p, _)| p.key.name.clone()).collect(), r)
}
