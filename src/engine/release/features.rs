//! [`Features`]: a release and its feature gates, resolved once from `--feature-gates`
//! (kube-scheduler's syntax, parsing and validation messages, component-base featuregate),
//! then handed to every plugin at registration.

use std::collections::{BTreeMap, BTreeSet};

use super::Release;
use super::changes::Change;
use super::gates::{self, Gate, GateSpec, Stage};

/// Why `--feature-gates` was refused; the texts are upstream's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FeatureError {
    /// "Gate" without "=value".
    #[error("--feature-gates: missing bool value for {0}")]
    MissingValue(String),
    /// A value strconv.ParseBool refuses.
    #[error("--feature-gates: invalid value of {0}={1}, err: strconv.ParseBool: parsing \"{1}\": invalid syntax")]
    InvalidValue(String, String),
    /// A gate the release does not know.
    #[error("--feature-gates: unrecognized feature gate: {0} (kube-scheduler {1} does not know it)")]
    Unknown(String, Release),
    /// A gate locked to its default.
    #[error("--feature-gates: cannot set feature gate {0} to {1}, feature is locked to {2} (kube-scheduler {3})")]
    Locked(String, bool, bool, Release),
    /// An enabled gate whose dependencies are off.
    #[error("--feature-gates: {0} is enabled, but depends on features that are disabled: [{1}]")]
    Dependency(String, String),
}

/// `--feature-gates` as given: gate name → value, in the order written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeatureGates(Vec<(String, bool)>);

impl FeatureGates {
    /// No overrides.
    pub fn none() -> Self {
        FeatureGates(Vec::new())
    }

    /// Parses "A=true,B=false" as kube-scheduler does (empty items skipped, spaces trimmed,
    /// values as Go's strconv.ParseBool reads them; a later entry for a gate wins).
    pub fn parse(s: &str) -> Result<Self, FeatureError> {
        let mut out: Vec<(String, bool)> = Vec::new();
        for item in s.split(',') {
            if item.is_empty() {
                continue;
            }
            let mut kv = item.splitn(2, '=');
            let k = kv.next().unwrap_or_default().trim().to_string();
            let Some(v) = kv.next() else {
                return Err(FeatureError::MissingValue(k));
            };
            let v = v.trim();
            let b = match v {
                "1" | "t" | "T" | "TRUE" | "true" | "True" => true,
                "0" | "f" | "F" | "FALSE" | "false" | "False" => false,
                _ => return Err(FeatureError::InvalidValue(k, v.to_string())),
            };
            out.retain(|(n, _)| *n != k);
            out.push((k, b));
        }
        Ok(FeatureGates(out))
    }

    /// The overrides, in the order given.
    pub fn entries(&self) -> &[(String, bool)] {
        &self.0
    }

    /// True without overrides.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Display for FeatureGates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let items: Vec<String> = self.0.iter().map(|(k, v)| format!("{k}={v}")).collect();
        f.write_str(&items.join(","))
    }
}

/// Gates that other gates need on (pkg/features/kube_features.go
/// `defaultKubernetesFeatureGateDependencies`, from 1.35; 1.37 as 1.36).
const DEPENDENCIES_1_35: &[(&str, &str)] = &[
    ("AuthorizeNodeWithSelectors", "AuthorizeWithSelectors"),
    ("ClusterTrustBundleProjection", "ClusterTrustBundle"),
    ("DRAAdminAccess", "DynamicResourceAllocation"),
    ("DRAConsumableCapacity", "DynamicResourceAllocation"),
    (
        "DRADeviceBindingConditions",
        "DynamicResourceAllocation DRAResourceClaimDeviceStatus",
    ),
    ("DRADeviceTaintRules", "DRADeviceTaints "),
    ("DRADeviceTaints", "DynamicResourceAllocation"),
    ("DRAExtendedResource", "DynamicResourceAllocation"),
    ("DRAPartitionableDevices", "DynamicResourceAllocation"),
    ("DRAPrioritizedList", "DynamicResourceAllocation"),
    ("DRASchedulerFilterTimeout", "DynamicResourceAllocation"),
    ("DisableAllocatorDualWrite", "MultiCIDRServiceAllocator"),
    ("GangScheduling", "GenericWorkload"),
    ("GracefulNodeShutdownBasedOnPodPriority", "GracefulNodeShutdown"),
    (
        "InPlacePodLevelResourcesVerticalScaling",
        "InPlacePodVerticalScaling PodLevelResources NodeDeclaredFeatures",
    ),
    ("InPlacePodVerticalScalingAllocatedStatus", "InPlacePodVerticalScaling"),
    ("InPlacePodVerticalScalingExclusiveCPUs", "InPlacePodVerticalScaling"),
    (
        "InPlacePodVerticalScalingExclusiveMemory",
        "InPlacePodVerticalScaling MemoryManager",
    ),
    (
        "MatchLabelKeysInPodTopologySpreadSelectorMerge",
        "MatchLabelKeysInPodTopologySpread",
    ),
    ("PodCertificateRequest", "AuthorizeNodeWithSelectors"),
    ("PodLifecycleSleepActionAllowZero", "PodLifecycleSleepAction"),
    ("ProcMountType", "UserNamespacesSupport"),
    ("ResourceHealthStatus", "DynamicResourceAllocation"),
    (
        "RestartAllContainersOnContainerExits",
        "ContainerRestartRules NodeDeclaredFeatures",
    ),
    (
        "ServiceAccountTokenNodeBinding",
        "ServiceAccountTokenNodeBindingValidation",
    ),
    ("UserNamespacesHostNetworkSupport", "UserNamespacesSupport"),
    ("WindowsCPUAndMemoryAffinity", "MemoryManager"),
    ("WindowsGracefulNodeShutdown", "GracefulNodeShutdown"),
];

/// As [`DEPENDENCIES_1_35`], for 1.36 and 1.37.
const DEPENDENCIES_1_36: &[(&str, &str)] = &[
    ("AuthorizeNodeWithSelectors", "AuthorizeWithSelectors"),
    ("ClusterTrustBundleProjection", "ClusterTrustBundle"),
    ("DRAAdminAccess", "DynamicResourceAllocation"),
    ("DRAConsumableCapacity", "DynamicResourceAllocation"),
    (
        "DRADeviceBindingConditions",
        "DynamicResourceAllocation DRAResourceClaimDeviceStatus",
    ),
    ("DRADeviceTaintRules", "DRADeviceTaints "),
    ("DRADeviceTaints", "DynamicResourceAllocation"),
    ("DRAExtendedResource", "DynamicResourceAllocation"),
    ("DRAListTypeAttributes", "DynamicResourceAllocation"),
    ("DRANodeAllocatableResources", "DynamicResourceAllocation"),
    ("DRAPartitionableDevices", "DynamicResourceAllocation"),
    ("DRAPrioritizedList", "DynamicResourceAllocation"),
    (
        "DRAResourceClaimGranularStatusAuthorization",
        "DynamicResourceAllocation DRAResourceClaimDeviceStatus",
    ),
    ("DRAResourcePoolStatus", "DynamicResourceAllocation"),
    ("DRASchedulerFilterTimeout", "DynamicResourceAllocation"),
    ("DRAWorkloadResourceClaims", "DynamicResourceAllocation GenericWorkload"),
    ("DisableAllocatorDualWrite", "MultiCIDRServiceAllocator"),
    ("ExtendWebSocketsToKubelet", "NodeDeclaredFeatures"),
    ("GangScheduling", "GenericWorkload"),
    ("GracefulNodeShutdownBasedOnPodPriority", "GracefulNodeShutdown"),
    ("ImageVolumeWithDigest", "ImageVolume"),
    (
        "InPlacePodLevelResourcesVerticalScaling",
        "InPlacePodVerticalScaling PodLevelResources NodeDeclaredFeatures",
    ),
    ("InPlacePodVerticalScalingExclusiveCPUs", "InPlacePodVerticalScaling"),
    ("InPlacePodVerticalScalingExclusiveMemory", "InPlacePodVerticalScaling"),
    (
        "InPlacePodVerticalScalingInitContainers",
        "InPlacePodVerticalScaling NodeDeclaredFeatures",
    ),
    (
        "MatchLabelKeysInPodTopologySpreadSelectorMerge",
        "MatchLabelKeysInPodTopologySpread",
    ),
    ("PodCertificateRequest", "AuthorizeNodeWithSelectors"),
    ("PodLevelResourceManagers", "PodLevelResources"),
    ("PodLifecycleSleepActionAllowZero", "PodLifecycleSleepAction"),
    ("ProcMountType", "UserNamespacesSupport"),
    ("ResourceHealthStatus", "DynamicResourceAllocation"),
    ("ResourceHealthStatusMessage", "ResourceHealthStatus"),
    (
        "RestartAllContainersOnContainerExits",
        "ContainerRestartRules NodeDeclaredFeatures",
    ),
    (
        "ServiceAccountTokenNodeBinding",
        "ServiceAccountTokenNodeBindingValidation",
    ),
    ("StaleControllerConsistencyDaemonSet", "AtomicFIFO"),
    ("StaleControllerConsistencyJob", "AtomicFIFO"),
    ("StaleControllerConsistencyReplicaSet", "AtomicFIFO"),
    ("StaleControllerConsistencyStatefulSet", "AtomicFIFO"),
    ("TopologyAwareWorkloadScheduling", "GenericWorkload"),
    (
        "UserNamespacesHostNetworkSupport",
        "UserNamespacesSupport NodeDeclaredFeatures",
    ),
    ("WindowsGracefulNodeShutdown", "GracefulNodeShutdown"),
    ("WorkloadAwarePreemption", "GangScheduling"),
    ("WorkloadWithJob", "GenericWorkload"),
];

/// The special gates that set every alpha or beta gate not named explicitly.
const ALL_ALPHA: &str = "AllAlpha";
const ALL_BETA: &str = "AllBeta";

fn bits(gates: impl Iterator<Item = Gate>) -> u64 {
    gates.fold(0, |acc, g| acc | (1 << g as u64))
}

/// A release with its feature gates resolved: what every plugin and front end asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Features {
    release: Release,
    /// Said in every explanation when set (a release explained as another one).
    note: Option<String>,
    /// Bit `g as usize` set for each gate on.
    enabled: u64,
    overrides: FeatureGates,
}

impl From<Release> for Features {
    fn from(release: Release) -> Self {
        Features::new(release)
    }
}

impl From<&Features> for Features {
    fn from(f: &Features) -> Self {
        f.clone()
    }
}

impl Default for Features {
    fn default() -> Self {
        Features::new(Release::NEWEST)
    }
}

impl Features {
    /// The release with its default gates.
    pub fn new(release: Release) -> Features {
        let enabled = bits(
            Gate::ALL
                .iter()
                .copied()
                .filter(|g| gates::spec(g.name(), release).is_some_and(|s| s.default) || gates::gone_on(*g, release)),
        );
        Features {
            release,
            note: None,
            enabled,
            overrides: FeatureGates::none(),
        }
    }

    /// The release with `--feature-gates` applied and validated as kube-scheduler validates
    /// them (the first unknown gate by name, every locked gate, then dependencies).
    pub fn with_gates(release: Release, overrides: &FeatureGates) -> Result<Features, FeatureError> {
        let mut values: BTreeMap<&str, bool> = gates::known_at(release).map(|(n, s)| (n, s.default)).collect();
        let specs: BTreeMap<&str, GateSpec> = gates::known_at(release).collect();
        let mut sorted: Vec<&(String, bool)> = overrides.entries().iter().collect();
        sorted.sort();
        let named: BTreeSet<&str> = sorted.iter().map(|(k, _)| k.as_str()).collect();
        if let Some((k, _)) = sorted
            .iter()
            .find(|(k, _)| !specs.contains_key(k.as_str()) && k != ALL_ALPHA && k != ALL_BETA)
        {
            return Err(FeatureError::Unknown(k.clone(), release));
        }
        for (k, v) in &sorted {
            if let Some(s) = specs.get(k.as_str())
                && s.locked
                && s.default != *v
            {
                return Err(FeatureError::Locked(k.clone(), *v, s.default, release));
            }
        }
        for (k, v) in &sorted {
            let stage = match k.as_str() {
                ALL_ALPHA => Some(Stage::Alpha),
                ALL_BETA => Some(Stage::Beta),
                _ => None,
            };
            match stage {
                Some(stage) => {
                    for (n, s) in &specs {
                        if s.stage == stage && !named.contains(n) {
                            values.insert(n, *v);
                        }
                    }
                }
                None => {
                    if let Some((n, _)) = specs.get_key_value(k.as_str()) {
                        values.insert(n, *v);
                    }
                }
            }
        }
        let deps = match release.minor() {
            ..=34 => &[][..],
            35 => DEPENDENCIES_1_35,
            _ => DEPENDENCIES_1_36,
        };
        for (feature, needs) in deps {
            if !values.get(feature).copied().unwrap_or(false) {
                continue;
            }
            let off: Vec<&str> = needs
                .split_whitespace()
                .filter(|d| values.get(d).is_some_and(|on| !on))
                .collect();
            if !off.is_empty() {
                return Err(FeatureError::Dependency((*feature).to_string(), off.join(" ")));
            }
        }
        let enabled = bits(
            Gate::ALL
                .iter()
                .copied()
                .filter(|g| values.get(g.name()).copied().unwrap_or(false) || gates::gone_on(*g, release)),
        );
        Ok(Features {
            release,
            note: None,
            enabled,
            overrides: overrides.clone(),
        })
    }

    /// What every explanation says about the release (e.g. a server newer than the newest
    /// release known, explained as that one).
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// Sets that note.
    pub fn set_note(&mut self, note: String) {
        self.note = Some(note);
    }

    /// The release.
    pub fn release(&self) -> Release {
        self.release
    }

    /// Whether a gate is on (a gate upstream removed after locking it on stays on: its
    /// behaviour is the release's).
    pub fn on(&self, gate: Gate) -> bool {
        self.enabled & (1 << gate as u64) != 0
    }

    /// How the in-memory API server behaves at this release and gates.
    pub fn server_options(&self) -> crate::model::apiserver::ServerOptions {
        crate::model::apiserver::ServerOptions {
            clear_nomination_on_bind: self.on(Gate::ClearingNominatedNodeNameAfterBinding),
        }
    }

    /// Whether workload-aware preemption is on: the WorkloadAwarePreemption gate (1.36), or
    /// GenericWorkload once the gang gates merged into it (1.37, #139520).
    pub fn workload_aware_preemption(&self) -> bool {
        self.on(Gate::WorkloadAwarePreemption)
            || (self.has(Change::GangGatesMergedIntoGenericWorkload) && self.on(Gate::GenericWorkload))
    }

    /// Whether the release has an ungated change.
    pub fn has(&self, change: Change) -> bool {
        change.spec().in_release(self.release)
    }

    /// The `--feature-gates` overrides applied.
    pub fn overrides(&self) -> &FeatureGates {
        &self.overrides
    }

    /// "1.35.7" or "1.35.7 with NodeDeclaredFeatures=true".
    pub fn describe(&self) -> String {
        if self.overrides.is_empty() {
            self.release.to_string()
        } else {
            format!("{} with {}", self.release, self.overrides)
        }
    }

    /// 1.37's requests of a pod whose status reports resources (the larger of the sums of spec,
    /// actuated and allocated requests; [`Change::PodRequestsMaxOfSums`]).
    pub fn requests_v137(
        &self,
        status: &crate::model::resources::StatusResources,
    ) -> crate::model::resources::PodRequests {
        crate::model::resources::pod_requests_v137(
            status,
            self.on(Gate::PodLevelResources),
            self.on(Gate::InPlacePodLevelResourcesVerticalScaling),
            &mut crate::model::resources::RequestPool::default(),
        )
    }

    /// A pod's requests as this release computes them (`PodRequests`): the status-reported
    /// container resources with InPlacePodVerticalScaling and the pod-level requests with
    /// PodLevelResources, when the pod has them. Every front end shows these, so a node's
    /// usage adds up as the scheduler's does.
    pub fn requests_of<'a>(
        &self,
        pod: &'a crate::model::Pod,
    ) -> std::borrow::Cow<'a, crate::model::resources::PodRequests> {
        use std::borrow::Cow;
        if self.has(Change::PodRequestsMaxOfSums)
            && self.on(Gate::InPlacePodVerticalScaling)
            && let Some(sr) = pod.status_resources()
        {
            return Cow::Owned(self.requests_v137(sr));
        }
        Cow::Borrowed(self.requests_of_precomputed(pod))
    }

    fn requests_of_precomputed<'a>(&self, pod: &'a crate::model::Pod) -> &'a crate::model::resources::PodRequests {
        if self.on(Gate::PodLevelResources) {
            if self.on(Gate::InPlacePodLevelResourcesVerticalScaling)
                && let Some(r) = pod.requests_pod_level_status()
            {
                return r;
            }
            if let Some(r) = pod.requests_pod_level() {
                return r;
            }
        }
        if self.on(Gate::InPlacePodVerticalScaling)
            && let Some(r) = pod.requests_status()
        {
            return r;
        }
        &pod.requests
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Release {
        s.parse().unwrap()
    }

    fn with(rel: &str, gates: &str) -> Result<Features, String> {
        FeatureGates::parse(gates)
            .and_then(|g| Features::with_gates(r(rel), &g))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_follow_the_release() {
        assert!(!Features::new(r("1.33")).on(Gate::DynamicResourceAllocation));
        assert!(Features::new(r("1.34")).on(Gate::DynamicResourceAllocation));
    }

    #[test]
    fn overrides_turn_gates_on_and_off() {
        let f = with("1.34", "DRAExtendedResource=true").unwrap();
        assert!(f.on(Gate::DRAExtendedResource));
        assert_eq!(f.describe(), "1.34.7 with DRAExtendedResource=true");
        let f = with("1.34", "DRAPrioritizedList=false, PodLevelResources=True").unwrap();
        assert!(!f.on(Gate::DRAPrioritizedList) && f.on(Gate::PodLevelResources));
        let f = with("1.33", "AllAlpha=true").unwrap();
        assert!(f.on(Gate::DRAPartitionableDevices) && f.on(Gate::DRADeviceTaints));
        let f = with("1.33", "AllAlpha=true,DRADeviceTaints=false").unwrap();
        assert!(f.on(Gate::DRAPartitionableDevices) && !f.on(Gate::DRADeviceTaints));
    }

    #[test]
    fn gates_removed_after_ga_are_refused_and_stay_on() {
        // 1.38 removed DynamicResourceAllocation (#141946), MatchLabelKeysInPodAffinity and
        // PodSchedulingReadiness, and locked DRADeviceTaints and DRADeviceTaintRules (#140256).
        assert_eq!(
            with("1.38", "DynamicResourceAllocation=true").unwrap_err(),
            "--feature-gates: unrecognized feature gate: DynamicResourceAllocation (kube-scheduler 1.38.0 does not know it)"
        );
        assert_eq!(
            with("1.38", "DRADeviceTaints=false").unwrap_err(),
            "--feature-gates: cannot set feature gate DRADeviceTaints to false, feature is locked to true (kube-scheduler 1.38.0)"
        );
        assert!(with("1.37", "DRADeviceTaints=false,DRADeviceTaintRules=false").is_ok());
        let f = with("1.38", "DRAConsumableCapacity=false").unwrap();
        assert!(f.on(Gate::DynamicResourceAllocation) && f.on(Gate::MatchLabelKeysInPodAffinity));
        assert!(f.on(Gate::DRADeviceTaints) && f.on(Gate::DRADeviceTaintRules));
        // a gate removed before GA stays off
        assert!(!Features::new(r("1.37")).on(Gate::GangScheduling));
    }

    #[test]
    fn bad_overrides_give_upstreams_messages() {
        assert_eq!(
            with("1.34", "Nope=true").unwrap_err(),
            "--feature-gates: unrecognized feature gate: Nope (kube-scheduler 1.34.7 does not know it)"
        );
        assert_eq!(
            with("1.34", "PodLevelResources").unwrap_err(),
            "--feature-gates: missing bool value for PodLevelResources"
        );
        assert_eq!(
            with("1.34", "PodLevelResources=yes").unwrap_err(),
            "--feature-gates: invalid value of PodLevelResources=yes, err: strconv.ParseBool: parsing \"yes\": invalid syntax"
        );
        assert_eq!(
            with("1.34", "SchedulerQueueingHints=false").unwrap_err(),
            "--feature-gates: cannot set feature gate SchedulerQueueingHints to false, feature is locked to true (kube-scheduler 1.34.7)"
        );
        assert_eq!(
            with("1.30", "PodLevelResources=true").unwrap_err(),
            "--feature-gates: unrecognized feature gate: PodLevelResources (kube-scheduler 1.30.6 does not know it)"
        );
    }
}
