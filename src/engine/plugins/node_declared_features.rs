//! Port of framework/plugins/nodedeclaredfeatures/nodedeclaredfeatures.go (v1.35.4, v1.36.2)
//! with the part of k8s.io/component-helpers/nodedeclaredfeatures it calls: a pod requires
//! the node features its spec needs (`InferForPodScheduling`), a node passes when its
//! `status.declaredFeatures` has them all.
//!
//! - PreFilter: Skip when the gate is off or the pod requires nothing (Filter then does not
//!   run); else the requirements go into the cycle state.
//! - Filter: UnschedulableAndUnresolvable when the node lacks a requirement. 1.35 names the
//!   missing features; 1.36 ([`Change::NodeDeclaredFeaturesReasonRenamed`]) says "node(s) didn't
//!   match Pod's required features" and reads the node's list as a sorted one (a merge walk
//!   over the registered feature names: names it does not know are dropped, and an unsorted list
//!   can lose entries, as upstream's `TryMap`).
//!
//! What a pod requires: `RestartAllContainersOnContainerExits` when a container or init
//! container has a `restartPolicyRules` entry with action `RestartAllContainers`; from 1.36
//! also `UserNamespacesHostNetworkSupport` for `hostNetwork: true` with `hostUsers: false`. The
//! other registered features are inferred for pod updates only. From 1.37
//! ([`Change::NodeDeclaredFeaturesVolumeBindMountOptions`]) a volume mount with
//! `bindMountOptions` requires `VolumeBindMountOptions`, and four features join the registry.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, FilterPlugin, Plugin, PluginSlots, PreFilterPlugin, Signing};
use crate::engine::framework::status::{Code, Status};
use crate::engine::framework::trace::Lines;
use crate::engine::release::{Change, Features, Gate};

static STATE_KEY: &str = "PreFilterNodeDeclaredFeatures";

/// The 1.36 reason.
pub(crate) const ERR_REASON_UNSATISFIED: &str = "node(s) didn't match Pod's required features";
/// The feature a `RestartAllContainers` restart rule needs.
pub(crate) const RESTART_ALL_CONTAINERS: &str = "RestartAllContainersOnContainerExits";
/// The feature `hostNetwork` with `hostUsers: false` needs (1.36).
pub(crate) const USER_NAMESPACES_HOST_NETWORK: &str = "UserNamespacesHostNetworkSupport";

/// The feature a volume mount with `bindMountOptions` needs (1.37).
pub(crate) const VOLUME_BIND_MOUNT_OPTIONS: &str = "VolumeBindMountOptions";

/// The features 1.37's framework registers, sorted.
const REGISTERED_1_37: &[&str] = &[
    "DRANodeAllocatableResources",
    "DRAOptionalNodeOperations",
    "ExtendWebSocketsToKubelet",
    "InPlacePodLevelResourcesVerticalScaling",
    "InPlacePodVerticalScalingInitContainers",
    "InPlacePodVerticalScalingMemoryBackedVolumes",
    RESTART_ALL_CONTAINERS,
    USER_NAMESPACES_HOST_NETWORK,
    VOLUME_BIND_MOUNT_OPTIONS,
];

/// The features 1.36's framework registers, sorted (the bitmap's order).
const REGISTERED_1_36: &[&str] = &[
    "ExtendWebSocketsToKubelet",
    "InPlacePodLevelResourcesVerticalScaling",
    "InPlacePodVerticalScalingInitContainers",
    RESTART_ALL_CONTAINERS,
    USER_NAMESPACES_HOST_NETWORK,
];

/// NodeDeclaredFeatures.
pub(crate) struct NodeDeclaredFeatures {
    /// The gate is on (an inert plugin otherwise, as upstream's `New` builds it).
    enabled: bool,
    /// The 1.36 framework: bitmap over registered names, the new reason, user namespaces.
    v136: bool,
    /// The 1.37 registry (VolumeBindMountOptions).
    v137: bool,
}

/// The requirements of the pod, sorted by name.
fn requirements(pod: &PodInfo, v136: bool, v137: bool) -> Vec<&'static str> {
    let spec = pod.pod.spec();
    let restart_all = spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .flat_map(|c| c.restart_policy_rules.iter().flatten())
        .any(|r| r.action == "RestartAllContainers");
    let mut out = Vec::new();
    if restart_all {
        out.push(RESTART_ALL_CONTAINERS);
    }
    if v136 && spec.host_network == Some(true) && spec.host_users == Some(false) {
        out.push(USER_NAMESPACES_HOST_NETWORK);
    }
    if v137 {
        let mounts = spec
            .containers
            .iter()
            .chain(spec.init_containers.iter().flatten())
            .flat_map(|c| c.volume_mounts.iter().flatten())
            .chain(
                spec.ephemeral_containers
                    .iter()
                    .flatten()
                    .flat_map(|c| c.volume_mounts.iter().flatten()),
            );
        if mounts
            .into_iter()
            .any(|m| m.bind_mount_options.as_ref().is_some_and(|o| !o.is_empty()))
        {
            out.push(VOLUME_BIND_MOUNT_OPTIONS);
        }
    }
    out
}

/// The features the node declares, as the release reads them: 1.35 a set of every name, 1.36
/// the registered names found by a merge walk of the (expected sorted) list.
fn declared(node: &NodeInfo, v136: bool, v137: bool) -> BTreeSet<String> {
    let list: &[String] = node
        .node
        .obj
        .status
        .as_ref()
        .and_then(|s| s.declared_features.as_deref())
        .unwrap_or(&[]);
    if !v136 {
        return list.iter().cloned().collect();
    }
    let registered = if v137 { REGISTERED_1_37 } else { REGISTERED_1_36 };
    let mut out = BTreeSet::new();
    let (mut i, mut j) = (0, 0);
    while i < list.len() && j < registered.len() {
        match list[i].as_str().cmp(registered[j]) {
            std::cmp::Ordering::Equal => {
                out.insert(list[i].clone());
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
        }
    }
    out
}

#[derive(Clone, Debug)]
struct State {
    reqs: Vec<&'static str>,
}

impl Plugin for NodeDeclaredFeatures {
    fn name(&self) -> &'static str {
        names::NODE_DECLARED_FEATURES
    }

    fn sign_pod(&self, _: &Ctx<'_>, _: &PodInfo) -> Signing {
        Signing::Signed
    }
}

impl PreFilterPlugin for NodeDeclaredFeatures {
    fn pre_filter(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        if !self.enabled {
            return (None, Status::skip());
        }
        let reqs = requirements(pod, self.v136, self.v137);
        if reqs.is_empty() {
            return (None, Status::skip());
        }
        state.write(STATE_KEY, State { reqs });
        (None, Status::success())
    }
}

impl FilterPlugin for NodeDeclaredFeatures {
    fn filter(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> Status {
        if !self.enabled {
            return Status::success();
        }
        let Some(s) = state.read::<State>(STATE_KEY) else {
            return Status::error(format!("error reading {STATE_KEY:?} from cycle-state: not found"));
        };
        let have = declared(node, self.v136, self.v137);
        let missing: Vec<&str> = s.reqs.iter().copied().filter(|r| !have.contains(*r)).collect();
        if missing.is_empty() {
            return Status::success();
        }
        let reason = if self.v136 {
            ERR_REASON_UNSATISFIED.to_string()
        } else {
            format!(
                "node declared features check failed - unsatisfied requirements: {}",
                missing.join(", ")
            )
        };
        Status::new(Code::UnschedulableAndUnresolvable, [reason])
    }

    fn failure_detail(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> Lines {
        let Some(s) = state.read::<State>(STATE_KEY) else {
            return Lines::default();
        };
        let have = declared(node, self.v136, self.v137);
        let missing: Vec<&str> = s.reqs.iter().copied().filter(|r| !have.contains(*r)).collect();
        let list: Vec<&str> = have.iter().map(String::as_str).collect();
        vec![format!(
            "the pod requires {}; the node declares {}",
            missing.join(", "),
            if list.is_empty() {
                "no features".to_string()
            } else {
                list.join(", ")
            }
        )]
        .into()
    }
}

/// Registers NodeDeclaredFeatures (it takes no args).
pub(crate) fn register(_: &Value, features: &Features) -> Result<PluginSlots, String> {
    let p = Arc::new(NodeDeclaredFeatures {
        enabled: features.on(Gate::NodeDeclaredFeatures),
        v136: features.has(Change::NodeDeclaredFeaturesReasonRenamed),
        v137: features.has(Change::NodeDeclaredFeaturesVolumeBindMountOptions),
    });
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::release::{FeatureGates, Release};
    use crate::testkit::builders::*;

    fn pod_with(extra: serde_json::Value) -> k8s_openapi::api::core::v1::Pod {
        let mut p = serde_json::json!({
            "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i"}]}
        });
        merge(&mut p["spec"], extra);
        serde_json::from_value(p).expect("pod")
    }

    fn merge(a: &mut serde_json::Value, b: serde_json::Value) {
        if let (Some(a), serde_json::Value::Object(b)) = (a.as_object_mut(), b) {
            for (k, v) in b {
                a.insert(k, v);
            }
        }
    }

    fn node_declaring(name: &str, features: &[&str]) -> k8s_openapi::api::core::v1::Node {
        let mut n = node(name).obj();
        n.status.get_or_insert_with(Default::default).declared_features =
            Some(features.iter().map(|s| (*s).to_string()).collect());
        n
    }

    fn features(release: &str) -> Features {
        Features::with_gates(
            release.parse::<Release>().unwrap(),
            &FeatureGates::parse("NodeDeclaredFeatures=true").unwrap(),
        )
        .unwrap()
    }

    const RESTART_ALL: &str = r#"{"containers": [{"name": "c", "image": "i", "restartPolicyRules": [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}]}]}"#;

    #[test]
    fn pods_without_requirements_skip() {
        let f = features("1.36");
        let snap = snapshot(vec![node_declaring("n", &[])], vec![], &f);
        let p = plugin(names::NODE_DECLARED_FEATURES, Value::Null, &f);
        let got = run_filter(&p, &snap, &pod_with(serde_json::json!({"hostNetwork": true})), true);
        assert_eq!(got.pre_filter.map(|x| x.1), Some(Status::skip()));
        assert!(got.filter.is_empty());
    }

    #[test]
    fn restart_all_containers_needs_the_declared_feature_with_the_release_s_reason() {
        let pod = pod_with(serde_json::from_str(RESTART_ALL).unwrap());
        for (release, reason) in [
            (
                "1.35",
                "node declared features check failed - unsatisfied requirements: RestartAllContainersOnContainerExits",
            ),
            ("1.36", ERR_REASON_UNSATISFIED),
        ] {
            let f = features(release);
            let snap = snapshot(
                vec![
                    node_declaring("a", &["RestartAllContainersOnContainerExits"]),
                    node_declaring("b", &["GuaranteedQoSPodCPUResize"]),
                    node("c").obj(),
                ],
                vec![],
                &f,
            );
            let p = plugin(names::NODE_DECLARED_FEATURES, Value::Null, &f);
            let got = run_filter(&p, &snap, &pod, true);
            assert_eq!(got.on("a"), &Status::success(), "{release}");
            for n in ["b", "c"] {
                assert_eq!(
                    got.on(n),
                    &Status::new(Code::UnschedulableAndUnresolvable, [reason]),
                    "{release} {n}"
                );
            }
        }
    }

    #[test]
    fn user_namespaces_with_host_network_is_a_requirement_from_1_36() {
        let pod = pod_with(serde_json::json!({"hostNetwork": true, "hostUsers": false}));
        let p35 = PodInfo::new(Arc::new(model_pod(pod.clone())), false);
        assert!(requirements(&p35, false, false).is_empty());
        assert_eq!(requirements(&p35, true, false), vec![USER_NAMESPACES_HOST_NETWORK]);
    }

    #[test]
    fn the_1_36_merge_walk_drops_unknown_and_out_of_order_names() {
        let n = NodeInfo::new(Arc::new(
            crate::model::Node::from_obj(node_declaring(
                "n",
                &[
                    "UserNamespacesHostNetworkSupport",
                    "RestartAllContainersOnContainerExits",
                    "Zzz",
                ],
            ))
            .unwrap(),
        ));
        // Unsorted: the walk passes RestartAll... while looking for UserNamespaces...
        assert_eq!(
            declared(&n, true, false),
            ["UserNamespacesHostNetworkSupport".to_string()].into()
        );
        assert_eq!(declared(&n, false, false).len(), 3);
    }

    #[test]
    fn gate_off_is_inert() {
        let f = Features::new("1.35".parse().unwrap());
        let snap = snapshot(vec![node("n").obj()], vec![], &f);
        let p = plugin(names::NODE_DECLARED_FEATURES, Value::Null, &f);
        let pod = pod_with(serde_json::from_str(RESTART_ALL).unwrap());
        assert_eq!(
            run_filter(&p, &snap, &pod, true).pre_filter.map(|x| x.1),
            Some(Status::skip())
        );
    }

    /// 1.37 (NodeDeclaredFeatures GA): a mount with bindMountOptions requires
    /// VolumeBindMountOptions; 1.36 does not know the feature.
    #[test]
    fn bind_mount_options_require_their_feature_from_1_37() {
        let pod = pod_with(serde_json::json!({"containers": [{"name": "c", "image": "i",
            "volumeMounts": [{"name": "v", "mountPath": "/data", "bindMountOptions": ["noexec"]}]}]}));
        for (minor, want_b) in [
            (36, Status::success()),
            (
                37,
                Status::new(Code::UnschedulableAndUnresolvable, [ERR_REASON_UNSATISFIED]),
            ),
        ] {
            let f = Features::new(Release::at(minor));
            let snap = snapshot(
                vec![
                    node_declaring("a", &["VolumeBindMountOptions"]),
                    node_declaring("b", &[]),
                ],
                vec![],
                &f,
            );
            let p = plugin(names::NODE_DECLARED_FEATURES, Value::Null, &f);
            let got = run_filter(&p, &snap, &pod, true);
            if minor == 36 {
                assert_eq!(got.pre_filter.map(|x| x.1), Some(Status::skip()));
                continue;
            }
            assert_eq!(got.on("a"), &Status::success());
            assert_eq!(got.on("b"), &want_b);
        }
    }
}
