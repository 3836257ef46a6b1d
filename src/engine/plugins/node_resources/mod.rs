//! Port of framework/plugins/noderesources (v1.30.6): Fit with its scoring strategies, and
//! BalancedAllocation.

pub(crate) mod balanced_allocation;
pub(crate) mod fit;
pub(crate) mod resource_allocation;

use crate::engine::framework::node_info::PodInfo;
use crate::engine::framework::plugin::{Ctx, Signing};

/// Fit's and BalancedAllocation's `SignPod`: with DRAExtendedResource on, 1.35 signs no pod;
/// from 1.36 only a pod requesting an extended resource a DeviceClass maps is refused.
fn sign_resources(cx: &Ctx<'_>, pod: &PodInfo, dra_extended: bool, checks_use: bool) -> Signing {
    if !dra_extended {
        return Signing::Signed;
    }
    if !checks_use {
        return Signing::Refused("signature disabled when dra extended resources enabled");
    }
    let cluster = &cx.snapshot.cluster;
    let backed = pod.requests().resource.scalar.iter().any(|(name, q)| {
        *q != 0 && crate::engine::plugins::dynamic_resources::extended::device_class_for(cluster, name).is_some()
    });
    if backed {
        Signing::Refused("signature disabled when dra extended resources are used in the cluster")
    } else {
        Signing::Signed
    }
}
