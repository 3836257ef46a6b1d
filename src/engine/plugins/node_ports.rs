//! Port of framework/plugins/nodeports/node_ports.go (v1.30.6).

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, FilterPlugin, Plugin, PluginSlots, PreFilterPlugin};
use crate::engine::framework::status::Status;
use crate::engine::version::Version;
use crate::model::HostPort;

/// Reason when a host port is taken.
pub const ERR_REASON: &str = "node(s) didn't have free ports for the requested pod ports";

/// NodePorts.
pub struct NodePorts;

fn sanitize(p: &HostPort) -> (String, String, i32) {
    let ip = if p.ip.is_empty() {
        "0.0.0.0".to_string()
    } else {
        p.ip.clone()
    };
    let proto = if p.protocol.is_empty() {
        "TCP".to_string()
    } else {
        p.protocol.clone()
    };
    (ip, proto, p.port)
}

/// `HostPortInfo.CheckConflict`.
pub fn conflicts(used: &[HostPort], want: &HostPort) -> bool {
    if want.port <= 0 {
        return false;
    }
    let (ip, proto, port) = sanitize(want);
    used.iter().map(sanitize).any(|(uip, uproto, uport)| {
        uproto == proto && uport == port && (ip == "0.0.0.0" || uip == "0.0.0.0" || uip == ip)
    })
}

impl Plugin for NodePorts {
    fn name(&self) -> &'static str {
        names::NODE_PORTS
    }
}

impl PreFilterPlugin for NodePorts {
    fn pre_filter(&self, _: &Ctx<'_>, _: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        if pod.pod.host_ports.is_empty() {
            return (None, Status::skip());
        }
        (None, Status::success())
    }
}

impl FilterPlugin for NodePorts {
    fn filter(&self, _: &Ctx<'_>, _: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        if pod.pod.host_ports.iter().any(|p| conflicts(&node.used_ports, p)) {
            return Status::unschedulable(ERR_REASON);
        }
        Status::success()
    }
}

/// Registers NodePorts.
pub fn register(_: &Value, _: Version) -> Result<PluginSlots, String> {
    let p = Arc::new(NodePorts);
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hp(ip: &str, proto: &str, port: i32) -> HostPort {
        HostPort {
            ip: ip.into(),
            protocol: proto.into(),
            port,
        }
    }

    #[test]
    fn conflict_rules_match_host_port_info() {
        // framework/types_test.go TestHostPortInfo_Check
        let used = vec![hp("127.0.0.1", "TCP", 80)];
        assert!(conflicts(&used, &hp("127.0.0.1", "TCP", 80)));
        assert!(!conflicts(&used, &hp("127.0.0.1", "UDP", 80)));
        assert!(!conflicts(&used, &hp("127.0.0.2", "TCP", 80)));
        assert!(conflicts(&used, &hp("", "TCP", 80)));
        let all = vec![hp("0.0.0.0", "TCP", 80)];
        assert!(conflicts(&all, &hp("127.0.0.1", "TCP", 80)));
        assert!(!conflicts(&all, &hp("127.0.0.1", "TCP", 81)));
    }
}
