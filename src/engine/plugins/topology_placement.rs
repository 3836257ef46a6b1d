//! TopologyPlacementGenerator (1.36, framework/plugins/topologyaware, behind
//! TopologyAwareWorkloadScheduling): the placements a pod group is tried in are the domains of
//! its PodGroup's first `schedulingConstraints.topology` key.
//!
//! - A group without a topology constraint gets the parent placement (every node) unchanged.
//! - Nodes without the label belong to no placement.
//! - Once members are scheduled, only their domain remains; members in two domains, or on a
//!   node without the label, are an error that stops the group's cycle.
//!
//! Upstream builds the placements from a map, so their order is Go's map order; kschedtui
//! lists them by domain name (the pod-group cycle reports every placement, and ties between
//! placements are reported whole, so the order changes no answer).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::names;
use crate::engine::framework::plugin::{Ctx, Placement, PlacementGeneratePlugin, Plugin, PluginSlots, PodGroupView};
use crate::engine::framework::status::{Code, Status};
use crate::engine::release::Features;

/// The plugin.
pub(crate) struct TopologyPlacement;

impl Plugin for TopologyPlacement {
    fn name(&self) -> &'static str {
        names::TOPOLOGY_PLACEMENT_GENERATOR
    }
}

/// `AsStatus(err)`: an Error status with the message.
fn error(message: String) -> Status {
    Status::new(Code::Error, [message])
}

impl PlacementGeneratePlugin for TopologyPlacement {
    fn generate_placements(
        &self,
        cx: &Ctx<'_>,
        group: &PodGroupView,
        parent: &Placement,
    ) -> Result<Vec<Placement>, Status> {
        let Some(pg) = cx.snapshot.cluster.scheduling_pod_groups.get(&group.key) else {
            return Err(error(format!(
                "podgroup.scheduling.k8s.io \"{}\" not found",
                group.key.name
            )));
        };
        let Some(key) = pg.spec.topology_key() else {
            return Ok(vec![parent.clone()]);
        };
        let mut required: Option<String> = None;
        for (pod, node) in &group.scheduled {
            let Some(n) = cx.snapshot.node(node) else {
                return Err(error(format!(
                    "cannot determine domain for already scheduled pods: getting node for pod {pod}: nodeinfo not found for node name \"{node}\""
                )));
            };
            let Some(domain) = n.node.labels.get(key) else {
                return Err(error(format!(
                    "cannot determine domain for already scheduled pods: no topology domain found for pod {pod}"
                )));
            };
            match &required {
                Some(d) if d != domain => {
                    return Err(error(format!(
                        "cannot determine domain for already scheduled pods: more than 1 domain found for pod group: {d}, {domain}"
                    )));
                }
                _ => required = Some(domain.clone()),
            }
        }
        let mut domains: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for name in &parent.nodes {
            let Some(n) = cx.snapshot.node(name) else { continue };
            if let Some(domain) = n.node.labels.get(key)
                && required.as_deref().is_none_or(|r| r == domain)
            {
                domains.entry(domain.as_str()).or_default().push(name.clone());
            }
        }
        Ok(domains
            .into_iter()
            .map(|(d, nodes)| Placement {
                name: d.to_string(),
                nodes,
            })
            .collect())
    }
}

/// Registers TopologyPlacementGenerator (no args).
pub(crate) fn register(_: &Value, _: &Features) -> Result<PluginSlots, String> {
    Ok(PluginSlots {
        placement_generate: Some(Arc::new(TopologyPlacement)),
        ..Default::default()
    })
}
