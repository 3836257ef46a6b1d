//! Port of framework/plugins/podtopologyspread/plugin.go (v1.30.6): PodTopologySpread at
//! PreFilter/Filter (DoNotSchedule constraints, with AddPod/RemovePod), PreScore/Score
//! (ScheduleAnyway constraints) and the args (`defaultConstraints`, `defaultingType`).
//!
//! Newer releases, as far as upstream's newer sources show, keep the same scheduler behaviour:
//! the scheduler still merges matchLabelKeys into the selector (from 1.34 the API server also
//! merges them into the stored labelSelector, which changes nothing for matching), the node
//! inclusion policies keep their defaults (Honor affinity, Ignore taints; GA in 1.33), and the
//! counts are kept per constraint instead of per topology key, which only matters for two
//! constraints with the same key and action, which the API server rejects. So no difference is
//! keyed by version here.

pub mod common;
pub mod filtering;
pub mod scoring;

use std::collections::BTreeSet;
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use serde::Deserialize;
use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{
    Ctx, FilterPlugin, NodeScore, Plugin, PluginSlots, PreFilterPlugin, PreScorePlugin, ScorePlugin,
};
use crate::engine::framework::status::Status;
use crate::engine::trace::FilterDetail;
use crate::engine::version::Version;
use crate::model::Cluster;
use common::{
    Constraint, DO_NOT_SCHEDULE, LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE, SCHEDULE_ANYWAY, default_selector,
    filter_constraints,
};
use filtering::{PRE_FILTER_KEY, PreFilterState};
use scoring::{PRE_SCORE_KEY, PreScoreState};

/// `ErrReasonConstraintsNotMatch`.
pub const ERR_REASON_CONSTRAINTS_NOT_MATCH: &str = "node(s) didn't match pod topology spread constraints";
/// `ErrReasonNodeLabelNotMatch`.
pub const ERR_REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

/// `config.SystemDefaulting`.
pub const SYSTEM_DEFAULTING: &str = "System";
/// `config.ListDefaulting`.
pub const LIST_DEFAULTING: &str = "List";

/// PodTopologySpreadArgs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// defaultConstraints (only with defaultingType List).
    #[serde(default)]
    pub default_constraints: Vec<core::TopologySpreadConstraint>,
    /// defaultingType: System (default) or List.
    #[serde(default)]
    pub defaulting_type: String,
}

/// `systemDefaultConstraints`.
pub fn system_default_constraints() -> Vec<core::TopologySpreadConstraint> {
    vec![
        core::TopologySpreadConstraint {
            topology_key: LABEL_HOSTNAME.into(),
            when_unsatisfiable: SCHEDULE_ANYWAY.into(),
            max_skew: 3,
            ..Default::default()
        },
        core::TopologySpreadConstraint {
            topology_key: LABEL_TOPOLOGY_ZONE.into(),
            when_unsatisfiable: SCHEDULE_ANYWAY.into(),
            max_skew: 5,
            ..Default::default()
        },
    ]
}

fn is_label_name(k: &str) -> bool {
    let (prefix, name) = match k.rsplit_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, k),
    };
    let name_ok = !name.is_empty()
        && name.len() <= 63
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().last().is_some_and(|c| c.is_ascii_alphanumeric());
    let prefix_ok = prefix.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|l| {
                !l.is_empty()
                    && l.len() <= 63
                    && l.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    && !l.starts_with('-')
                    && !l.ends_with('-')
            })
    });
    name_ok && prefix_ok
}

/// `ValidatePodTopologySpreadArgs`, with field paths as upstream prints them.
fn validate(a: &Args) -> Result<(), String> {
    let mut errs: Vec<String> = Vec::new();
    let dt = a.defaulting_type.as_str();
    if dt != SYSTEM_DEFAULTING && dt != LIST_DEFAULTING {
        errs.push(format!("defaultingType: Unsupported value: {dt:?}: supported values: \"System\", \"List\""));
    } else if dt == SYSTEM_DEFAULTING && !a.default_constraints.is_empty() {
        errs.push("defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty".into());
    }
    for (i, c) in a.default_constraints.iter().enumerate() {
        let p = format!("defaultConstraints[{i}]");
        if c.max_skew <= 0 {
            errs.push(format!("{p}.maxSkew: Invalid value: {}: not in valid range (0, inf)", c.max_skew));
        }
        if c.topology_key.is_empty() {
            errs.push(format!("{p}.topologyKey: Required value: can not be empty"));
        } else if !is_label_name(&c.topology_key) {
            errs.push(format!("{p}.topologyKey: Invalid value: {:?}: not a valid label name", c.topology_key));
        }
        match c.when_unsatisfiable.as_str() {
            "" => errs.push(format!("{p}.whenUnsatisfiable: Required value: can not be empty")),
            DO_NOT_SCHEDULE | SCHEDULE_ANYWAY => {}
            w => errs.push(format!(
                "{p}.whenUnsatisfiable: Unsupported value: {w:?}: supported values: \"DoNotSchedule\", \"ScheduleAnyway\""
            )),
        }
        if c.label_selector.is_some() {
            errs.push(format!(
                "{p}.labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod"
            ));
        }
        if a.default_constraints[..i]
            .iter()
            .any(|o| o.topology_key == c.topology_key && o.when_unsatisfiable == c.when_unsatisfiable)
        {
            errs.push(format!(
                "{p}: Duplicate value: \"{{{}, {}}}\"",
                c.topology_key, c.when_unsatisfiable
            ));
        }
    }
    match errs.len() {
        0 => Ok(()),
        1 => Err(errs.remove(0)),
        _ => Err(format!("[{}]", errs.join(", "))),
    }
}

/// PodTopologySpread.
pub struct PodTopologySpread {
    default_constraints: Vec<core::TopologySpreadConstraint>,
    system_defaulted: bool,
}

impl PodTopologySpread {
    /// A plugin with explicit defaults (for tests and `register`).
    pub fn new(default_constraints: Vec<core::TopologySpreadConstraint>, system_defaulted: bool) -> Self {
        PodTopologySpread { default_constraints, system_defaulted }
    }

    /// `buildDefaultConstraints`.
    fn build_default_constraints(&self, cluster: &Cluster, pod: &PodInfo, action: &str) -> Result<Vec<Constraint>, String> {
        let mut cs = filter_constraints(&self.default_constraints, &pod.pod.labels, action)?;
        if cs.is_empty() {
            return Ok(cs);
        }
        let selector = default_selector(cluster, &pod.pod);
        if selector.is_empty() {
            return Ok(Vec::new());
        }
        for c in &mut cs {
            c.selector = selector.clone();
        }
        Ok(cs)
    }

    /// The pod's constraints of one action, or the default ones when it has none.
    fn constraints(&self, cluster: &Cluster, pod: &PodInfo, action: &str) -> Result<Vec<Constraint>, String> {
        let (hard, soft) = (action == DO_NOT_SCHEDULE, action == SCHEDULE_ANYWAY);
        let kind = if hard { "hard" } else if soft { "soft" } else { action };
        let own = pod.pod.spec().topology_spread_constraints.as_deref().unwrap_or_default();
        if own.is_empty() {
            self.build_default_constraints(cluster, pod, action)
                .map_err(|e| format!("setting default {kind} topology spread constraints: {e}"))
        } else {
            filter_constraints(own, &pod.pod.labels, action)
                .map_err(|e| format!("obtaining pod's {kind} topology spread constraints: {e}"))
        }
    }
}

fn not_found(key: &str) -> Status {
    Status::error(format!("reading {key:?} from cycleState: not found"))
}

impl Plugin for PodTopologySpread {
    fn name(&self) -> &'static str {
        names::POD_TOPOLOGY_SPREAD
    }
}

impl PreFilterPlugin for PodTopologySpread {
    fn pre_filter(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        let constraints = match self.constraints(&cx.snapshot.cluster, pod, DO_NOT_SCHEDULE) {
            Ok(c) => c,
            Err(e) => return (None, Status::error(format!("get constraints from pod: {e}"))),
        };
        if constraints.is_empty() {
            return (None, Status::skip());
        }
        state.write(PRE_FILTER_KEY, PreFilterState::compute(pod, constraints, &cx.snapshot.nodes));
        (None, Status::success())
    }

    fn has_extensions(&self) -> bool {
        true
    }

    fn add_pod(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, add: &PodInfo, node: &NodeInfo) -> Status {
        let Some(s) = state.read_mut::<PreFilterState>(PRE_FILTER_KEY) else { return not_found(PRE_FILTER_KEY) };
        s.update_with_pod(pod, add, node, 1);
        Status::success()
    }

    fn remove_pod(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, rm: &PodInfo, node: &NodeInfo) -> Status {
        let Some(s) = state.read_mut::<PreFilterState>(PRE_FILTER_KEY) else { return not_found(PRE_FILTER_KEY) };
        s.update_with_pod(pod, rm, node, -1);
        Status::success()
    }
}

impl FilterPlugin for PodTopologySpread {
    fn filter(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> Status {
        match state.read::<PreFilterState>(PRE_FILTER_KEY) {
            Some(s) => s.filter(node),
            None => not_found(PRE_FILTER_KEY),
        }
    }

    fn filter_detail(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> Option<FilterDetail> {
        state.read::<PreFilterState>(PRE_FILTER_KEY).map(|s| FilterDetail::TopologySpread(s.explain(node)))
    }
}

impl PreScorePlugin for PodTopologySpread {
    fn pre_score(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, nodes: &[&NodeInfo]) -> Status {
        let all = &cx.snapshot.nodes;
        if all.is_empty() {
            return Status::skip();
        }
        let own = pod.pod.spec().topology_spread_constraints.as_ref().is_some_and(|v| !v.is_empty());
        let require_all = own || !self.system_defaulted;
        let constraints = match self.constraints(&cx.snapshot.cluster, pod, SCHEDULE_ANYWAY) {
            Ok(c) => c,
            Err(e) => return Status::error(format!("calculating preScoreState: {e}")),
        };
        if constraints.is_empty() {
            return Status::skip();
        }
        state.write(PRE_SCORE_KEY, PreScoreState::compute(pod, constraints, nodes, all, require_all));
        Status::success()
    }
}

impl ScorePlugin for PodTopologySpread {
    fn score(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> (i64, Status) {
        match state.read::<PreScoreState>(PRE_SCORE_KEY) {
            Some(s) => (s.score(pod, node), Status::success()),
            None => (0, Status::error(format!("error reading {PRE_SCORE_KEY:?} from cycleState: not found"))),
        }
    }

    fn has_normalize(&self) -> bool {
        true
    }

    fn normalize(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, scores: &mut [NodeScore]) -> Status {
        match state.read::<PreScoreState>(PRE_SCORE_KEY) {
            Some(s) => {
                s.normalize(scores);
                Status::success()
            }
            None => Status::error(format!("error reading {PRE_SCORE_KEY:?} from cycleState: not found")),
        }
    }
}

/// Registers PodTopologySpread.
pub fn register(args: &Value, _: Version) -> Result<PluginSlots, String> {
    let mut a: Args = super::decode_args(args)?;
    if a.defaulting_type.is_empty() {
        a.defaulting_type = SYSTEM_DEFAULTING.into();
    }
    validate(&a)?;
    let system = a.defaulting_type == SYSTEM_DEFAULTING;
    let defaults = if system { system_default_constraints() } else { a.default_constraints };
    let p = Arc::new(PodTopologySpread::new(defaults, system));
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p.clone()),
        pre_score: Some(p.clone()),
        score: Some(p),
        ..Default::default()
    })
}

