//! The native gang-scheduling API (KEP-4671) in the versions the scheduler reads: 1.35's
//! `scheduling.k8s.io/v1alpha1` Workload (`spec.podGroups[].policy`, pods linked by
//! `spec.workloadRef`), 1.36's `scheduling.k8s.io/v1alpha2` PodGroup (`spec.schedulingPolicy`,
//! pods linked by `spec.schedulingGroup.podGroupName`) and Workload (`spec.podGroupTemplates`,
//! which the 1.36 scheduler does not read). Fields the scheduler does not read are kept as
//! they are, so saving a snapshot loses nothing.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The annotation a 1.35 pod's `spec.workloadRef` is kept in once read (the Kubernetes types
/// kschedtui builds on know only the 1.36+ `spec.schedulingGroup`).
pub const WORKLOAD_REF_ANNOTATION: &str = "kschedtui.dev/spec.workloadRef";

/// A pod group's policy: `basic` (no constraint) or `gang` with its quorum.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SchedulingPolicy {
    /// `basic: {}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic: Option<Value>,
    /// `gang: {minCount}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gang: Option<GangPolicy>,
}

/// `gang`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GangPolicy {
    /// How many members must be scheduled together.
    #[serde(default)]
    pub min_count: i32,
}

/// A v1alpha1 Workload's pod group.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadPodGroup {
    /// Name.
    pub name: String,
    /// Policy.
    #[serde(default)]
    pub policy: SchedulingPolicy,
}

/// A v1alpha2 Workload's pod group template.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupTemplate {
    /// Name.
    pub name: String,
    /// Policy.
    #[serde(default)]
    pub scheduling_policy: SchedulingPolicy,
    /// The fields the scheduler does not read.
    #[serde(flatten)]
    pub rest: BTreeMap<String, Value>,
}

/// A Workload's spec (v1alpha1 `podGroups`, v1alpha2 `podGroupTemplates`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadSpec {
    /// v1alpha1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_groups: Option<Vec<WorkloadPodGroup>>,
    /// v1alpha2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_group_templates: Option<Vec<PodGroupTemplate>>,
    /// The fields the scheduler does not read (controllerRef).
    #[serde(flatten)]
    pub rest: BTreeMap<String, Value>,
}

/// `scheduling.k8s.io/v1alpha1` Workload (1.35).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct WorkloadV1Alpha1 {
    /// Metadata.
    pub metadata: ObjectMeta,
    /// Spec.
    #[serde(default)]
    pub spec: WorkloadSpec,
}

/// `scheduling.k8s.io/v1alpha2` Workload (1.36; not read by its scheduler).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct WorkloadV1Alpha2 {
    /// Metadata.
    pub metadata: ObjectMeta,
    /// Spec.
    #[serde(default)]
    pub spec: WorkloadSpec,
}

/// A v1alpha2 PodGroup's spec.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SchedulingPodGroupSpec {
    /// Policy.
    #[serde(default)]
    pub scheduling_policy: SchedulingPolicy,
    /// The fields the scheduler does not read (podGroupTemplateRef, constraints, claims, ...).
    #[serde(flatten)]
    pub rest: BTreeMap<String, Value>,
}

/// `scheduling.k8s.io/v1alpha2` PodGroup (1.36): the runtime group its scheduler reads.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct SchedulingPodGroup {
    /// Metadata.
    pub metadata: ObjectMeta,
    /// Spec.
    #[serde(default)]
    pub spec: SchedulingPodGroupSpec,
    /// Status (conditions the scheduler writes), kept as read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

/// A 1.35 pod's `spec.workloadRef`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadRef {
    /// The Workload's name.
    pub name: String,
    /// The pod group of the Workload.
    #[serde(default)]
    pub pod_group: String,
    /// The replica of the group ("" when omitted).
    #[serde(default)]
    pub pod_group_replica_key: String,
}

impl WorkloadV1Alpha1 {
    /// The policy of pod group `name` (the first of that name).
    pub fn policy(&self, name: &str) -> Option<&SchedulingPolicy> {
        self.spec
            .pod_groups
            .iter()
            .flatten()
            .find(|g| g.name == name)
            .map(|g| &g.policy)
    }
}
