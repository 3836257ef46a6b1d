//! Opportunistic batching (1.35+, gate `OpportunisticBatching`, beta and on): whether
//! kube-scheduler can sign the pod (framework/runtime/framework.go `computeBatchablePlugins`,
//! `SignPod`). kschedtui does not reproduce the batching itself: it depends on wall-clock time
//! (a hint is reused only within 500 ms of the previous cycle) and on which pod the real
//! scheduler handled just before. It says when the real scheduler may have taken that path.
//!
//! A profile signs pods only when every PreFilter, Filter, PreScore and Score plugin implements
//! SignPlugin and there are no extenders; a pod is signed only when each of those plugins signs
//! it. When a signed pod follows, in the very next cycle of the profile and within 500 ms, a
//! pod with the same signature that was placed, and Filter now rejects the node that pod got,
//! the next node of that cycle's ranking is tried alone and, if it passes Filter, chosen
//! without scoring (framework/runtime/batch.go).

use super::plugin::{Ctx, Plugin, Signing};
use super::runtime::Framework;
use crate::engine::framework::node_info::PodInfo;
pub use crate::engine::framework::trace::Batching;
use crate::engine::release::Gate;

/// The profile's PreFilter, Filter, PreScore and Score plugins, each once, in that order (the
/// order `computeBatchablePlugins` collects them, which is the order they sign in).
fn candidates(fw: &Framework) -> Vec<&dyn Plugin> {
    let all = fw
        .pre_filter
        .iter()
        .map(|p| p.as_ref() as &dyn Plugin)
        .chain(fw.filter.iter().map(|p| p.as_ref() as &dyn Plugin))
        .chain(fw.pre_score.iter().map(|p| p.as_ref() as &dyn Plugin))
        .chain(fw.score.iter().map(|(p, _)| p.as_ref() as &dyn Plugin));
    let mut out: Vec<&dyn Plugin> = Vec::new();
    for p in all {
        if !out.iter().any(|q| q.name() == p.name()) {
            out.push(p);
        }
    }
    out
}

/// Whether batching applies to the pod; `None` when the release or gates have no batching.
pub fn batching(fw: &Framework, cx: &Ctx<'_>, pod: &PodInfo) -> Option<Batching> {
    if !fw.features.on(Gate::OpportunisticBatching) {
        return None;
    }
    let plugins = candidates(fw);
    let mut unsigned = Vec::new();
    let mut unknown = Vec::new();
    for p in &plugins {
        match p.sign_pod(cx, pod) {
            Signing::NotSignPlugin => unsigned.push(p.name().to_string()),
            Signing::Unknown => unknown.push(p.name().to_string()),
            _ => {}
        }
    }
    if !unsigned.is_empty() {
        return Some(Batching::ProfileUnsigned { plugins: unsigned });
    }
    for p in &plugins {
        if let Signing::Refused(reason) = p.sign_pod(cx, pod) {
            return Some(Batching::Unsigned {
                plugin: p.name().to_string(),
                reason: reason.to_string(),
            });
        }
    }
    if !unknown.is_empty() {
        return Some(Batching::Unknown { plugins: unknown });
    }
    Some(Batching::Signed)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::engine::framework::snapshot::Snapshot;
    use crate::engine::release::{Features, Release};
    use crate::engine::{SchedulerConfig, build_profiles, explain};
    use crate::model::ObjectKey;
    use crate::source::file::load_str;

    const CLUSTER: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: plain, namespace: a, labels: {app: x}}
  spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: anti, namespace: a, labels: {app: x}}
  spec:
    containers: [{name: c, image: i}]
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - {labelSelector: {matchLabels: {app: x}}, topologyKey: kubernetes.io/hostname}
"#;

    /// PodTopologySpread without default constraints: the profile can sign pods.
    const NO_DEFAULT_SPREAD: &str = r#"
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: PodTopologySpread
    args: {defaultingType: List}
"#;

    fn batching_of(pod: &str, minor: &str, config: Option<&str>) -> Option<Batching> {
        let f = Features::new(minor.parse::<Release>().unwrap());
        let snap = Snapshot::new(Arc::new(load_str("t", CLUSTER).unwrap()), &f);
        let cfg = config.map(|c| SchedulerConfig::parse(c).unwrap());
        let profiles = build_profiles(cfg.as_ref(), &f).unwrap();
        explain(&snap, &profiles, &ObjectKey::new("a", pod)).unwrap().batching
    }

    #[test]
    fn the_default_profile_signs_no_pod_and_1_34_has_no_batching() {
        assert_eq!(
            batching_of("plain", "1.35", None),
            Some(Batching::Unsigned {
                plugin: "PodTopologySpread".into(),
                reason: "pods with default topology constraints are not signable".into()
            })
        );
        assert_eq!(batching_of("plain", "1.34", None), None);
    }

    #[test]
    fn without_default_spread_a_plain_pod_is_signed_and_anti_affinity_is_not() {
        assert_eq!(
            batching_of("plain", "1.35", Some(NO_DEFAULT_SPREAD)),
            Some(Batching::Signed)
        );
        assert_eq!(
            batching_of("plain", "1.36", Some(NO_DEFAULT_SPREAD)),
            Some(Batching::Signed)
        );
        assert_eq!(
            batching_of("anti", "1.35", Some(NO_DEFAULT_SPREAD)),
            Some(Batching::Unsigned {
                plugin: "InterPodAffinity".into(),
                reason: "pods with InterPodAffinity are not signable".into()
            })
        );
        // 1.37's default profile has no DeferredPodScheduling unless its gate is on
        assert_eq!(
            batching_of("plain", "1.37", Some(NO_DEFAULT_SPREAD)),
            Some(Batching::Signed)
        );
    }

    #[test]
    fn dra_extended_resources_refuse_every_pod_in_1_35_and_only_dra_backed_ones_from_1_36() {
        let with_gate = |minor: &str| {
            let f = Features::with_gates(
                minor.parse::<Release>().unwrap(),
                &crate::engine::release::FeatureGates::parse("DRAExtendedResource=true").unwrap(),
            )
            .unwrap();
            let snap = Snapshot::new(Arc::new(load_str("t", CLUSTER).unwrap()), &f);
            let cfg = SchedulerConfig::parse(NO_DEFAULT_SPREAD).unwrap();
            let profiles = build_profiles(Some(&cfg), &f).unwrap();
            explain(&snap, &profiles, &ObjectKey::new("a", "plain"))
                .unwrap()
                .batching
        };
        assert_eq!(
            with_gate("1.35"),
            Some(Batching::Unsigned {
                plugin: "NodeResourcesFit".into(),
                reason: "signature disabled when dra extended resources enabled".into()
            })
        );
        assert_eq!(with_gate("1.36"), Some(Batching::Signed));
    }
}
