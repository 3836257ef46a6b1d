//! The kinds a release's kube-scheduler reads (with its gates) that a live server does not
//! serve: each is a visible warning on every answer, never a silent absence (a 1.33 server
//! without resource.k8s.io/v1, a 1.36 cluster without the scheduling.k8s.io/v1alpha2 API its
//! GangScheduling reads, a profile with Coscheduling on a cluster without the PodGroup CRD).

use std::collections::BTreeSet;

use super::{Change, Features, Gate};

/// The scheduler-plugins Permit plugin that reads the PodGroup CRD.
pub const COSCHEDULING: &str = "Coscheduling";
use crate::model::kinds::Kind;

/// Whether kube-apiserver 1.`minor` streams lists by default (`watch` with
/// `sendInitialEvents=true`, its WatchList gate): beta and on in 1.32, off again in 1.33, on
/// from 1.34 (staging/src/k8s.io/apiserver/pkg/features/kube_features.go).
pub fn api_server_streams_lists(minor: u32) -> bool {
    minor == 32 || minor >= 34
}

/// The kinds `features`' scheduler reads that are served only with a feature or a CRD, each
/// with what reads it; `coscheduling`: a profile runs Coscheduling.
pub fn read_kinds(features: &Features, coscheduling: bool) -> Vec<(Kind, &'static str)> {
    let mut v = Vec::new();
    if features.on(Gate::DynamicResourceAllocation) {
        for k in [
            Kind::DeviceClass,
            Kind::ResourceSlice,
            Kind::ResourceClaim,
            Kind::ResourceClaimTemplate,
        ] {
            v.push((k, "DynamicResources (DynamicResourceAllocation)"));
        }
    }
    if features.on(Gate::GenericWorkload) {
        let why = "GangScheduling (GenericWorkload)";
        if features.has(Change::GangSchedulingReadsV1Beta1PodGroups) {
            v.push((Kind::PodGroupV1Beta1, why));
            if features.on(Gate::CompositePodGroup) {
                v.push((Kind::CompositePodGroup, "GangScheduling (CompositePodGroup)"));
            }
        } else if features.has(Change::GangSchedulingReadsPodGroups) {
            v.push((Kind::SchedulingPodGroup, why));
        } else {
            v.push((Kind::WorkloadV1Alpha1, why));
        }
    }
    if coscheduling {
        v.push((Kind::PodGroup, "Coscheduling (a profile's Permit plugin)"));
    }
    v
}

/// One warning per reader whose kinds the server does not serve (empty for a snapshot file,
/// whose `not_served` is empty); `permit`: the Permit plugins of the pod's profile (the
/// PodGroup CRD matters to Coscheduling).
pub fn unserved_warnings(features: &Features, not_served: &BTreeSet<Kind>, permit: &[&str]) -> Vec<String> {
    let mut by_reader: Vec<(&'static str, Vec<Kind>)> = Vec::new();
    for (k, why) in read_kinds(features, permit.contains(&COSCHEDULING)) {
        if !not_served.contains(&k) {
            continue;
        }
        match by_reader.iter_mut().find(|(w, _)| *w == why) {
            Some((_, ks)) => ks.push(k),
            None => by_reader.push((why, vec![k])),
        }
    }
    by_reader
        .into_iter()
        .map(|(why, kinds)| {
            let names: Vec<String> = kinds
                .iter()
                .map(|k| format!("{} ({})", k.plural(), k.api_version()))
                .collect();
            let effect = match kinds[0] {
                Kind::DeviceClass | Kind::ResourceSlice | Kind::ResourceClaim | Kind::ResourceClaimTemplate => {
                    "no claim, class or device is known, so a pod with resource claims is held as if its claims did not exist"
                }
                Kind::PodGroup => "a gang member's PodGroup is never found",
                _ => "a gang member's group is never found",
            };
            format!(
                "the server does not serve {}, which kube-scheduler 1.{} reads in {why}: {effect} (check the API server's --runtime-config and feature gates, or the CRD)",
                names.join(", "),
                features.release().minor
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::release::{FeatureGates, Release};

    #[test]
    fn each_release_warns_about_the_kinds_it_reads() {
        let all: BTreeSet<Kind> = Kind::ALL.into_iter().filter(|k| k.discovered()).collect();
        // 1.33: DRA is off by default, so nothing it reads is missing
        assert!(unserved_warnings(&Release::at(33).into(), &all, &[]).is_empty());
        let f = Features::with_gates(
            Release::at(33),
            &FeatureGates::parse("DynamicResourceAllocation=true").unwrap(),
        )
        .unwrap();
        assert_eq!(
            unserved_warnings(&f, &all, &[]),
            vec!["the server does not serve deviceclasses (resource.k8s.io/v1), resourceslices (resource.k8s.io/v1), resourceclaims (resource.k8s.io/v1), resourceclaimtemplates (resource.k8s.io/v1), which kube-scheduler 1.33 reads in DynamicResources (DynamicResourceAllocation): no claim, class or device is known, so a pod with resource claims is held as if its claims did not exist (check the API server's --runtime-config and feature gates, or the CRD)".to_string()]
        );
        // the gang API of each release
        let gang = |minor: u32| {
            // 1.37 folded GangScheduling into GenericWorkload
            let gates = if minor < 37 {
                "GenericWorkload=true,GangScheduling=true"
            } else {
                "GenericWorkload=true"
            };
            let f = Features::with_gates(Release::at(minor), &FeatureGates::parse(gates).unwrap()).unwrap();
            read_kinds(&f, false)
                .into_iter()
                .filter(|(_, why)| why.starts_with("GangScheduling"))
                .map(|(k, _)| k.api_version())
                .collect::<Vec<_>>()
        };
        assert_eq!(gang(35), vec!["scheduling.k8s.io/v1alpha1"]);
        assert_eq!(gang(36), vec!["scheduling.k8s.io/v1alpha2"]);
        assert_eq!(gang(37), vec!["scheduling.k8s.io/v1beta1"]);
        // 1.38 keeps v1beta1 PodGroups, and CompositePodGroup v1alpha3 behind its gate
        assert_eq!(gang(38), vec!["scheduling.k8s.io/v1beta1"]);
        let f = Features::with_gates(
            Release::at(38),
            &FeatureGates::parse("GenericWorkload=true,CompositePodGroup=true").unwrap(),
        )
        .unwrap();
        let kinds: Vec<&str> = read_kinds(&f, false).iter().map(|(k, _)| k.api_version()).collect();
        assert_eq!(
            kinds,
            vec![
                "resource.k8s.io/v1",
                "resource.k8s.io/v1",
                "resource.k8s.io/v1",
                "resource.k8s.io/v1",
                "scheduling.k8s.io/v1beta1",
                "scheduling.k8s.io/v1alpha3"
            ]
        );
        // DynamicResourceAllocation is gone at 1.38 and DRA stays on
        assert!(Features::new(Release::at(38)).on(Gate::DynamicResourceAllocation));
        // served kinds give no warning; Coscheduling reads the CRD
        assert!(unserved_warnings(&Release::at(36).into(), &BTreeSet::new(), &[COSCHEDULING]).is_empty());
        let w = unserved_warnings(
            &Release::at(36).into(),
            &BTreeSet::from([Kind::PodGroup]),
            &[COSCHEDULING],
        );
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with(
                "the server does not serve podgroups (scheduling.x-k8s.io/v1alpha1), which kube-scheduler"
            ),
            "{w:?}"
        );
    }
}
