//! Port of framework/plugins/schedulinggates/scheduling_gates.go (v1.30.6).

use std::sync::Arc;

use serde_json::Value;

use super::names;
use crate::engine::framework::node_info::PodInfo;
use crate::engine::framework::plugin::{Ctx, Plugin, PluginSlots, PreEnqueuePlugin};
use crate::engine::framework::status::Status;
use crate::engine::framework::trace::Fact;
use crate::engine::release::Features;

/// SchedulingGates.
pub(crate) struct SchedulingGates;

/// The names of the pod's scheduling gates.
fn gates_of(pod: &PodInfo) -> Vec<String> {
    pod.pod
        .spec()
        .scheduling_gates
        .iter()
        .flatten()
        .map(|g| g.name.clone())
        .collect()
}

impl Plugin for SchedulingGates {
    fn name(&self) -> &'static str {
        names::SCHEDULING_GATES
    }
}

impl PreEnqueuePlugin for SchedulingGates {
    fn pre_enqueue(&self, _: &Ctx<'_>, pod: &PodInfo) -> Status {
        let gates = gates_of(pod);
        if gates.is_empty() {
            return Status::success();
        }
        Status::unresolvable(format!("waiting for scheduling gates: [{}]", gates.join(" ")))
    }

    fn pre_enqueue_facts(&self, _: &Ctx<'_>, pod: &PodInfo) -> Vec<Fact> {
        let gates = gates_of(pod);
        vec![Fact::list("schedulingGates", &gates, "")]
    }
}

/// Registers SchedulingGates.
pub(crate) fn register(_: &Value, _: &Features) -> Result<PluginSlots, String> {
    Ok(PluginSlots {
        pre_enqueue: Some(Arc::new(SchedulingGates)),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::builders::*;

    /// scheduling_gates_test.go TestPreEnqueue.
    #[test]
    fn pre_enqueue_cases_from_upstream() {
        let cases = [
            ("pod does not carry scheduling gates", pod("p").obj(), Status::success()),
            (
                "pod carries scheduling gates",
                pod("p").scheduling_gates(&["foo", "bar"]).obj(),
                Status::unresolvable("waiting for scheduling gates: [foo bar]"),
            ),
        ];
        for (name, p, want) in cases {
            let slots = plugin(names::SCHEDULING_GATES, Value::Null, V1_30);
            let snap = crate::engine::framework::snapshot::Snapshot::new(Default::default(), V1_30);
            let got = slots
                .pre_enqueue
                .as_ref()
                .expect("PreEnqueue")
                .pre_enqueue(&Ctx { snapshot: &snap }, &pod_info(&p, V1_30));
            assert_eq!(got, want, "{name}");
        }
    }
}
