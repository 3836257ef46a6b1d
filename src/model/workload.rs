//! The native gang-scheduling API (KEP-4671) in the versions the scheduler reads: 1.35's
//! `scheduling.k8s.io/v1alpha1` Workload (`spec.podGroups[].policy`, pods linked by
//! `spec.workloadRef`), 1.36's `scheduling.k8s.io/v1alpha2` PodGroup (`spec.schedulingPolicy`,
//! pods linked by `spec.schedulingGroup.podGroupName`) and Workload (`spec.podGroupTemplates`,
//! which the 1.36 scheduler does not read), and 1.37's `scheduling.k8s.io/v1beta1` PodGroup
//! (`spec.schedulingPolicy`, `spec.parentCompositePodGroupName`) and Workload, and
//! `scheduling.k8s.io/v1alpha3` CompositePodGroup (`spec.schedulingPolicy.gang.minGroupCount`).
//! Fields the scheduler does not read are kept as they are, so saving a snapshot loses nothing.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The annotation a 1.35 pod's `spec.workloadRef` is kept in once read (the Kubernetes types
/// kschedtui builds on know only the 1.36+ `spec.schedulingGroup`).
pub(crate) const WORKLOAD_REF_ANNOTATION: &str = "kschedtui.dev/spec.workloadRef";

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
    /// schedulingConstraints (1.36's TopologyAwareWorkloadScheduling reads the first topology
    /// key; DefaultPreemption only whether the field is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduling_constraints: Option<PodGroupSchedulingConstraints>,
    /// The fields the scheduler does not read (podGroupTemplateRef, claims, ...).
    #[serde(flatten)]
    pub rest: BTreeMap<String, Value>,
}

/// A PodGroup's schedulingConstraints (v1alpha2).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupSchedulingConstraints {
    /// topology: the placements are the domains of the first entry's key.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub topology: Vec<TopologyConstraint>,
    /// The fields the scheduler does not read.
    #[serde(flatten)]
    pub rest: BTreeMap<String, Value>,
}

/// One topology constraint of a PodGroup.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopologyConstraint {
    /// The node label key whose values are the domains.
    #[serde(default)]
    pub key: String,
    /// The fields the scheduler does not read.
    #[serde(flatten)]
    pub rest: BTreeMap<String, Value>,
}

impl SchedulingPodGroupSpec {
    /// The topology key placements are generated for (`getTopologyKey`: the first entry).
    pub fn topology_key(&self) -> Option<&str> {
        self.scheduling_constraints
            .as_ref()
            .and_then(|c| c.topology.first())
            .map(|t| t.key.as_str())
    }
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

/// `scheduling.k8s.io/v1beta1` Workload (1.37; not read by its GangScheduling plugin).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct WorkloadV1Beta1 {
    /// Metadata.
    pub metadata: ObjectMeta,
    /// Spec (`podGroupTemplates`; `compositePodGroupTemplates` and the rest kept as read).
    #[serde(default)]
    pub spec: WorkloadSpec,
}

/// A v1beta1 PodGroup's spec.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupV1Beta1Spec {
    /// The CompositePodGroup this group belongs to (read only with CompositePodGroup on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_composite_pod_group_name: Option<String>,
    /// Policy.
    #[serde(default)]
    pub scheduling_policy: SchedulingPolicy,
    /// The fields the scheduler does not read (workloadRef, constraints, claims, ...).
    #[serde(flatten)]
    pub rest: BTreeMap<String, Value>,
}

/// `scheduling.k8s.io/v1beta1` PodGroup (1.37): the runtime group its scheduler reads.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct PodGroupV1Beta1 {
    /// Metadata.
    pub metadata: ObjectMeta,
    /// Spec.
    #[serde(default)]
    pub spec: PodGroupV1Beta1Spec,
    /// Status (conditions the scheduler writes), kept as read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

impl PodGroupV1Beta1 {
    /// `disruptionMode: {all: {}}`: the group's pods are disrupted together (1.37; the default
    /// is `single`).
    pub fn disruption_all(&self) -> bool {
        self.spec
            .rest
            .get("disruptionMode")
            .and_then(|m| m.get("all"))
            .is_some_and(|a| !a.is_null())
    }

    /// `util.PodGroupPriority`: `spec.priority`; unset, what the Priority admission writes from
    /// `priorityClassName` (an unknown or empty class: the global default, else 0).
    pub fn priority(&self, classes: &BTreeMap<String, k8s_openapi::api::scheduling::v1::PriorityClass>) -> i32 {
        let rest = &self.spec.rest;
        if let Some(p) = rest.get("priority").and_then(Value::as_i64) {
            return i32::try_from(p).unwrap_or(0);
        }
        let global_default = || {
            classes
                .values()
                .filter(|p| p.global_default == Some(true))
                .map(|p| p.value.unwrap_or(0))
                .max()
                .unwrap_or(0)
        };
        match rest
            .get("priorityClassName")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
        {
            Some(c) => classes.get(c).map_or_else(global_default, |pc| pc.value.unwrap_or(0)),
            None => global_default(),
        }
    }
}

/// A CompositePodGroup's policy: `basic` or `gang` with a quorum of child groups.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompositeSchedulingPolicy {
    /// `basic: {}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic: Option<Value>,
    /// `gang: {minGroupCount}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gang: Option<CompositeGangPolicy>,
}

/// A CompositePodGroup's `gang`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompositeGangPolicy {
    /// How many child groups must be schedulable together.
    #[serde(default)]
    pub min_group_count: i32,
}

/// A CompositePodGroup's spec.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompositePodGroupSpec {
    /// The CompositePodGroup above this one, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_composite_pod_group_name: Option<String>,
    /// Policy.
    #[serde(default)]
    pub scheduling_policy: CompositeSchedulingPolicy,
    /// The fields the scheduler does not read (workloadRef, constraints, ...).
    #[serde(flatten)]
    pub rest: BTreeMap<String, Value>,
}

/// `scheduling.k8s.io/v1alpha3` CompositePodGroup (1.37, gate CompositePodGroup): a group of
/// PodGroups and CompositePodGroups.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct CompositePodGroupV1Alpha3 {
    /// Metadata.
    pub metadata: ObjectMeta,
    /// Spec.
    #[serde(default)]
    pub spec: CompositePodGroupSpec,
    /// Status, kept as read.
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
