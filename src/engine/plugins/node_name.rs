//! Port of framework/plugins/nodename/node_name.go (v1.30.6).

use std::sync::Arc;

use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, FilterPlugin, Plugin, PluginSlots, Signing};
use crate::engine::framework::status::Status;
use crate::engine::release::Features;

/// Reason when spec.nodeName names another node.
pub(crate) const ERR_REASON: &str = "node(s) didn't match the requested node name";

/// NodeName.
pub(crate) struct NodeName;

impl Plugin for NodeName {
    fn name(&self) -> &'static str {
        names::NODE_NAME
    }

    fn sign_pod(&self, _: &Ctx<'_>, _: &PodInfo) -> Signing {
        Signing::Signed
    }
}

impl FilterPlugin for NodeName {
    fn filter(&self, _: &Ctx<'_>, _: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        match pod.pod.spec().node_name.as_deref() {
            Some(n) if !n.is_empty() && n != node.name() => Status::unresolvable(ERR_REASON),
            _ => Status::success(),
        }
    }

    /// Reads only the pod's spec.nodeName and the node's name.
    fn node_local(&self) -> bool {
        true
    }
}

/// Registers NodeName.
pub(crate) fn register(_: &Value, _: &Features) -> Result<PluginSlots, String> {
    Ok(PluginSlots {
        filter: Some(Arc::new(NodeName)),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::builders::*;

    /// node_name_test.go TestNodeName.
    #[test]
    fn filter_cases_from_upstream() {
        let cases = [
            ("no host specified", pod("p").obj(), "n", Status::success()),
            ("host matches", pod("p").node("foo").obj(), "foo", Status::success()),
            (
                "host doesn't match",
                pod("p").node("bar").obj(),
                "foo",
                Status::unresolvable(ERR_REASON),
            ),
        ];
        for (name, p, node_name, want) in cases {
            let snap = snapshot(vec![node(node_name).obj()], vec![], V1_30);
            let got = run_filter(&plugin(names::NODE_NAME, Value::Null, V1_30), &snap, &p, true);
            assert_eq!(got.on(node_name), &want, "{name}");
        }
        assert_eq!(ERR_REASON, "node(s) didn't match the requested node name");
    }
}
