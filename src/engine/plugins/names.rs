//! Plugin names (framework/plugins/names/names.go); the few the framework refers to live in
//! `framework::names` and are re-exported here.
#![allow(missing_docs)]

pub use crate::engine::framework::names::{DEFAULT_PREEMPTION, DYNAMIC_RESOURCES, SCHEDULING_GATES};

pub const PRIORITY_SORT: &str = "PrioritySort";
pub const DEFAULT_BINDER: &str = "DefaultBinder";
pub const DEFERRED_POD_SCHEDULING: &str = "DeferredPodScheduling";
pub const GANG_SCHEDULING: &str = "GangScheduling";
pub const IMAGE_LOCALITY: &str = "ImageLocality";
pub const INTER_POD_AFFINITY: &str = "InterPodAffinity";
pub const NODE_AFFINITY: &str = "NodeAffinity";
pub const NODE_DECLARED_FEATURES: &str = "NodeDeclaredFeatures";
pub const NODE_NAME: &str = "NodeName";
pub const NODE_PORTS: &str = "NodePorts";
pub const NODE_RESOURCES_BALANCED_ALLOCATION: &str = "NodeResourcesBalancedAllocation";
pub const NODE_RESOURCES_FIT: &str = "NodeResourcesFit";
pub const NODE_UNSCHEDULABLE: &str = "NodeUnschedulable";
pub const NODE_VOLUME_LIMITS: &str = "NodeVolumeLimits";
pub const AZURE_DISK_LIMITS: &str = "AzureDiskLimits";
pub const CINDER_LIMITS: &str = "CinderLimits";
pub const EBS_LIMITS: &str = "EBSLimits";
pub const GCE_PD_LIMITS: &str = "GCEPDLimits";
pub const POD_TOPOLOGY_SPREAD: &str = "PodTopologySpread";
pub const TAINT_TOLERATION: &str = "TaintToleration";
pub const VOLUME_BINDING: &str = "VolumeBinding";
pub const VOLUME_RESTRICTIONS: &str = "VolumeRestrictions";
pub const VOLUME_ZONE: &str = "VolumeZone";
/// scheduler-plugins' gang scheduling.
pub const COSCHEDULING: &str = "Coscheduling";
/// 1.36's TopologyAwareWorkloadScheduling: the placement generator.
pub const TOPOLOGY_PLACEMENT_GENERATOR: &str = "TopologyPlacementGenerator";
/// 1.36's TopologyAwareWorkloadScheduling: the placement scorer counting the group's pods.
pub const POD_GROUP_PODS_COUNT: &str = "PodGroupPodsCount";
