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
pub(crate) fn node(name: &str, milli_cpu: i64, mem: i64, pods: i64) -> core::Node {
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
pub(crate) fn pod(name: &str, milli_cpu: i64, mem: i64, node: &str) -> core::Pod {
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
pub(crate) fn rs_owned(mut p: core::Pod) -> core::Pod {
    p.metadata.owner_references = Some(vec![owner("ReplicaSet", "replicaset-1")]);
    p
}

/// `SetNormalOwnerRef` (an owner of kind Pod).
pub(crate) fn normal_owned(mut p: core::Pod) -> core::Pod {
    p.metadata.owner_references = Some(vec![owner("Pod", "")]);
    p
}

/// `SetPodPriority`.
pub(crate) fn priority(mut p: core::Pod, v: i32) -> core::Pod {
    p.spec.get_or_insert_with(Default::default).priority = Some(v);
    p
}

/// Labels.
pub(crate) fn labels(mut p: core::Pod, kv: &[(&str, &str)]) -> core::Pod {
    p.metadata.labels = Some(kv.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect());
    p
}

/// Node labels.
pub(crate) fn node_labels(mut n: core::Node, kv: &[(&str, &str)]) -> core::Node {
    n.metadata.labels = Some(kv.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect());
    n
}

/// `SetPodAntiAffinity(pod, key, value)`: required, key In [value], topologyKey region.
pub(crate) fn anti_affinity(mut p: core::Pod, key: &str, value: &str) -> core::Pod {
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
pub(crate) fn owner(kind: &str, name: &str) -> OwnerReference {
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
pub(crate) fn cluster(nodes: Vec<core::Node>, pods: Vec<core::Pod>) -> Cluster {
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
pub(crate) fn policy(point: &str, plugin: &str, args: serde_json::Value, evictor: serde_json::Value) -> Policy {
    policy_with_limits(point, plugin, args, evictor, serde_json::json!({}))
}

/// As [`policy`], with top-level fields (limits) merged in.
pub(crate) fn policy_with_limits(
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
pub(crate) fn evicted(c: Cluster, p: &Policy, now_secs: i64) -> (Vec<String>, CycleReport) {
    let now = Timestamp::from_second(now_secs).unwrap_or(Timestamp::UNIX_EPOCH);
    let r = match cycle(c, p, now, false) {
        Ok(r) => r,
        Err(e) => panic!("cycle: {e}"),
    };
    (r.evicted.iter().map(|(p, _)| p.key.name.to_string()).collect(), r)
}

/// Sets the namespace.
pub(crate) fn in_namespace(mut p: core::Pod, ns: &str) -> core::Pod {
    p.metadata.namespace = Some(ns.into());
    p
}

/// spec.nodeSelector.
pub(crate) fn node_selector(mut p: core::Pod, kv: &[(&str, &str)]) -> core::Pod {
    p.spec.get_or_insert_with(Default::default).node_selector =
        Some(kv.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect());
    p
}

/// A required node affinity of one term with one expression (`key op values`).
pub(crate) fn required_node_affinity(mut p: core::Pod, key: &str, op: &str, values: &[&str]) -> core::Pod {
    p.spec.get_or_insert_with(Default::default).affinity = Some(core::Affinity {
        node_affinity: Some(core::NodeAffinity {
            required_during_scheduling_ignored_during_execution: Some(core::NodeSelector {
                node_selector_terms: vec![core::NodeSelectorTerm {
                    match_expressions: Some(vec![core::NodeSelectorRequirement {
                        key: key.into(),
                        operator: op.into(),
                        values: (!values.is_empty()).then(|| values.iter().map(|v| (*v).to_string()).collect()),
                    }]),
                    ..Default::default()
                }],
            }),
            ..Default::default()
        }),
        ..Default::default()
    });
    p
}

/// Adds a toleration (`operator` Equal when a value is given, Exists otherwise).
pub(crate) fn tolerate(mut p: core::Pod, key: &str, value: &str, effect: &str) -> core::Pod {
    p.spec
        .get_or_insert_with(Default::default)
        .tolerations
        .get_or_insert_with(Vec::new)
        .push(core::Toleration {
            key: (!key.is_empty()).then(|| key.to_string()),
            value: (!value.is_empty()).then(|| value.to_string()),
            operator: Some(if value.is_empty() { "Exists" } else { "Equal" }.into()),
            effect: (!effect.is_empty()).then(|| effect.to_string()),
            ..Default::default()
        });
    p
}

/// Adds a taint to the node.
pub(crate) fn taint(mut n: core::Node, key: &str, value: &str, effect: &str) -> core::Node {
    n.spec
        .get_or_insert_with(Default::default)
        .taints
        .get_or_insert_with(Vec::new)
        .push(core::Taint {
            key: key.into(),
            value: (!value.is_empty()).then(|| value.to_string()),
            effect: effect.into(),
            ..Default::default()
        });
    n
}

/// `SetNodeUnschedulable`.
pub(crate) fn unschedulable(mut n: core::Node) -> core::Node {
    n.spec.get_or_insert_with(Default::default).unschedulable = Some(true);
    n
}

/// Sets metadata.deletionTimestamp (the pod is terminating).
pub(crate) fn terminating(mut p: core::Pod) -> core::Pod {
    p.metadata.deletion_timestamp = Some(Time(Timestamp::UNIX_EPOCH));
    p
}

/// Annotations.
pub(crate) fn annotations(mut p: core::Pod, kv: &[(&str, &str)]) -> core::Pod {
    p.metadata
        .annotations
        .get_or_insert_with(BTreeMap::new)
        .extend(kv.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())));
    p
}

/// Owner references of the given kinds and names (`SetDSOwnerRef`, `SetSSOwnerRef`, ...).
pub(crate) fn owned_by(mut p: core::Pod, refs: &[(&str, &str)]) -> core::Pod {
    p.metadata.owner_references = Some(refs.iter().map(|(k, n)| owner(k, n)).collect());
    p
}

/// Sets status.phase.
pub(crate) fn phase(mut p: core::Pod, phase: &str) -> core::Pod {
    p.status.get_or_insert_with(Default::default).phase = Some(phase.into());
    p
}

/// A topology spread constraint with a matchLabels selector.
pub(crate) fn spread_constraint(
    max_skew: i32,
    topology_key: &str,
    when: &str,
    match_labels: &[(&str, &str)],
) -> core::TopologySpreadConstraint {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
    core::TopologySpreadConstraint {
        max_skew,
        topology_key: topology_key.into(),
        when_unsatisfiable: when.into(),
        label_selector: Some(LabelSelector {
            match_labels: Some(
                match_labels
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                    .collect(),
            ),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The model pods of these objects, in key order.
pub(crate) fn model_pods(pods: Vec<core::Pod>) -> Vec<std::sync::Arc<crate::model::Pod>> {
    cluster(Vec::new(), pods).pods
}

/// The cluster of these nodes, pods and other objects.
pub(crate) fn cluster_with(nodes: Vec<core::Node>, pods: Vec<core::Pod>, others: Vec<Object>) -> Cluster {
    let o = || Origin {
        file: "test".into(),
        doc: 0,
    };
    let mut objs: Vec<(Origin, Object)> = nodes.into_iter().map(|n| (o(), Object::Node(Box::new(n)))).collect();
    objs.extend(pods.into_iter().map(|p| (o(), Object::Pod(Box::new(p)))));
    objs.extend(others.into_iter().map(|x| (o(), x)));
    Cluster::build(objs).unwrap_or_default()
}

/// A DefaultEvictor's arguments, decoded, validated and defaulted from JSON.
pub(crate) fn evictor_args(args: serde_json::Value) -> policy::EvictorArgs {
    let doc = serde_json::json!({
        "apiVersion": "descheduler/v1alpha2",
        "kind": "DeschedulerPolicy",
        "profiles": [{"name": "test", "pluginConfig": [{"name": "DefaultEvictor", "args": args}]}],
    });
    match policy::read(&doc) {
        Ok((p, _)) => p.profiles[0].evictor_args(),
        Err(e) => panic!("test evictor args: {e}"),
    }
}

/// `BuildTestPDB(name, app)`: namespace default, selector app=APP, maxUnavailable 1.
pub(crate) fn pdb(name: &str, app: &str) -> Object {
    let v = serde_json::json!({
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": app}}, "maxUnavailable": 1},
    });
    Object::PodDisruptionBudget(Box::new(serde_json::from_value(v).unwrap_or_default()))
}

/// `BuildTestPVC(name, storageClass)`: namespace default.
pub(crate) fn pvc(name: &str, storage_class: &str) -> Object {
    let v = serde_json::json!({
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
                 "resources": {"requests": {"storage": "1Gi"}}},
    });
    Object::PersistentVolumeClaim(Box::new(serde_json::from_value(v).unwrap_or_default()))
}

/// `BuildTestNamespace(name)`: labelled kubernetes.io/metadata.name=NAME.
pub(crate) fn namespace(name: &str) -> Object {
    let v = serde_json::json!({
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
    });
    Object::Namespace(Box::new(serde_json::from_value(v).unwrap_or_default()))
}

/// A pod volume claiming `claim`.
pub(crate) fn with_pvc(mut p: core::Pod, claim: &str) -> core::Pod {
    p.spec
        .get_or_insert_with(Default::default)
        .volumes
        .get_or_insert_with(Vec::new)
        .push(core::Volume {
            name: format!("pvc-{claim}"),
            persistent_volume_claim: Some(core::PersistentVolumeClaimVolumeSource {
                claim_name: claim.into(),
                ..Default::default()
            }),
            ..Default::default()
        });
    p
}

/// `SetHostPathEmptyDirVolumeSource`.
pub(crate) fn with_local_storage(mut p: core::Pod) -> core::Pod {
    p.spec.get_or_insert_with(Default::default).volumes = Some(vec![core::Volume {
        name: "sample".into(),
        host_path: Some(core::HostPathVolumeSource {
            path: "somePath".into(),
            ..Default::default()
        }),
        empty_dir: Some(core::EmptyDirVolumeSource::default()),
        ..Default::default()
    }]);
    p
}

/// `SetMirrorPodAnnotation`.
pub(crate) fn mirror(p: core::Pod) -> core::Pod {
    annotations(
        p,
        &[
            (
                "kubernetes.io/created-by",
                "{\"kind\":\"SerializedReference\",\"apiVersion\":\"v1\",\"reference\":{\"kind\":\"Pod\"}}",
            ),
            ("kubernetes.io/config.source", "api"),
            ("kubernetes.io/config.mirror", "mirror"),
        ],
    )
}

/// status.startTime, `secs` seconds after the epoch.
pub(crate) fn started(mut p: core::Pod, secs: i64) -> core::Pod {
    p.status.get_or_insert_with(Default::default).start_time =
        Some(Time(Timestamp::from_second(secs).unwrap_or(Timestamp::UNIX_EPOCH)));
    p
}

/// A namespace with kubernetes.io/metadata.name and these labels.
pub(crate) fn namespace_labelled(name: &str, kv: &[(&str, &str)]) -> Object {
    let mut labels = serde_json::Map::new();
    labels.insert("kubernetes.io/metadata.name".into(), name.into());
    for (k, v) in kv {
        labels.insert((*k).into(), (*v).into());
    }
    let v = serde_json::json!({
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": labels},
    });
    Object::Namespace(Box::new(serde_json::from_value(v).unwrap_or_default()))
}
