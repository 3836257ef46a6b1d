//! Port of framework/plugins/nodevolumelimits (v1.30.6): `NodeVolumeLimits` (csi.go) counts
//! the CSI volumes a node would attach against the CSINode / node allocatable limits; the
//! in-tree `EBSLimits`, `GCEPDLimits` and `AzureDiskLimits` (non_csi.go, default profile of 1.30
//! only) count in-tree volumes. utils.go lives here.

pub(crate) mod csi;
pub(crate) mod non_csi;

use std::collections::BTreeMap;

use super::volume_helpers::ATTACHABLE_VOLUMES_PREFIX;
use crate::engine::framework::node_info::NodeInfo;

/// Reason when a node would exceed a volume limit.
pub(crate) const ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED: &str = "node(s) exceed max volume count";

/// Prefix of the volume ids given to claims whose PV is not known yet (upstream draws 32
/// random characters per plugin instance; any fixed, unique prefix behaves the same).
pub(crate) const UNBOUND_VOLUME_ID_PREFIX: &str = "kschedtui-unbound-volume";

/// `volumeLimits`: the node's allocatable `attachable-volumes-*` resources.
pub(crate) fn volume_limits(node: &NodeInfo) -> BTreeMap<String, i64> {
    node.allocatable()
        .scalar
        .iter()
        .filter(|(k, _)| k.starts_with(ATTACHABLE_VOLUMES_PREFIX))
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

/// A failure while collecting volumes: "not found" errors make the node
/// UnschedulableAndUnresolvable, the others are internal errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VolumeError {
    pub message: String,
    pub not_found: bool,
}

impl VolumeError {
    fn other(message: String) -> Self {
        VolumeError {
            message,
            not_found: false,
        }
    }

    fn status(self) -> crate::engine::framework::status::Status {
        use crate::engine::framework::status::Status;
        if self.not_found {
            Status::unresolvable(self.message)
        } else {
            Status::error(self.message)
        }
    }
}
