//! Plugin names (framework/plugins/names/names.go); the few the framework refers to live in
//! `framework::names` and are re-exported here.
#![allow(missing_docs)]

pub(crate) use crate::engine::framework::names::{DEFAULT_PREEMPTION, DYNAMIC_RESOURCES, SCHEDULING_GATES};

pub(crate) const PRIORITY_SORT: &str = "PrioritySort";
pub(crate) const DEFAULT_BINDER: &str = "DefaultBinder";
pub(crate) const DEFERRED_POD_SCHEDULING: &str = "DeferredPodScheduling";
pub(crate) const GANG_SCHEDULING: &str = "GangScheduling";
pub(crate) const IMAGE_LOCALITY: &str = "ImageLocality";
pub(crate) const INTER_POD_AFFINITY: &str = "InterPodAffinity";
pub(crate) const NODE_AFFINITY: &str = "NodeAffinity";
pub(crate) const NODE_DECLARED_FEATURES: &str = "NodeDeclaredFeatures";
pub(crate) const NODE_NAME: &str = "NodeName";
pub(crate) const NODE_PORTS: &str = "NodePorts";
pub(crate) const NODE_RESOURCES_BALANCED_ALLOCATION: &str = "NodeResourcesBalancedAllocation";
pub(crate) const NODE_RESOURCES_FIT: &str = "NodeResourcesFit";
pub(crate) const NODE_UNSCHEDULABLE: &str = "NodeUnschedulable";
pub(crate) const NODE_VOLUME_LIMITS: &str = "NodeVolumeLimits";
pub(crate) const AZURE_DISK_LIMITS: &str = "AzureDiskLimits";
pub(crate) const EBS_LIMITS: &str = "EBSLimits";
pub(crate) const GCE_PD_LIMITS: &str = "GCEPDLimits";
pub(crate) const POD_TOPOLOGY_SPREAD: &str = "PodTopologySpread";
pub(crate) const TAINT_TOLERATION: &str = "TaintToleration";
pub(crate) const VOLUME_BINDING: &str = "VolumeBinding";
pub(crate) const VOLUME_RESTRICTIONS: &str = "VolumeRestrictions";
pub(crate) const VOLUME_ZONE: &str = "VolumeZone";
/// scheduler-plugins' gang scheduling.
pub(crate) const COSCHEDULING: &str = "Coscheduling";
/// 1.36's TopologyAwareWorkloadScheduling: the placement generator.
pub(crate) const TOPOLOGY_PLACEMENT_GENERATOR: &str = "TopologyPlacementGenerator";
/// 1.36's TopologyAwareWorkloadScheduling: the placement scorer counting the group's pods.
pub(crate) const POD_GROUP_PODS_COUNT: &str = "PodGroupPodsCount";
