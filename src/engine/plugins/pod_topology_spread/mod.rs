//! Port of framework/plugins/podtopologyspread/plugin.go (v1.30.6): PodTopologySpread at
//! PreFilter/Filter (DoNotSchedule constraints, with AddPod/RemovePod), PreScore/Score
//! (ScheduleAnyway constraints) and the args (`defaultConstraints`, `defaultingType`).
//!
//! Newer releases, as far as upstream's newer sources show, keep the same scheduler behaviour:
//! the scheduler still merges matchLabelKeys into the selector (from 1.34 the API server also
//! merges them into the stored labelSelector, which changes nothing for matching), the node
//! inclusion policies keep their defaults (Honor affinity, Ignore taints; GA in 1.33), and the
//! counts are kept per constraint instead of per topology key, which only matters for two
//! constraints with the same key and action, which the API server rejects. 1.38 (#141340)
//! counts every pod of the namespace for `labelSelector: {}`, which up to 1.37 counted none.

pub(crate) mod common;
pub(crate) mod filtering;
pub(crate) mod scoring;

use std::collections::BTreeSet;
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use serde::Deserialize;
use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::index::pods::PodCounter;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{
    Ctx, FilterPlugin, NodeScore, Plugin, PluginSlots, PreFilterPlugin, PreScorePlugin, ScorePlugin, ScoreResult,
    Signing,
};
use crate::engine::framework::status::Status;
use crate::engine::framework::trace::{Explanation, Fact, FilterDetail, SpreadDomains, SpreadScore, SpreadTrace};
use crate::engine::release::{Change, Features};
use crate::model::Cluster;
use crate::model::selector::Selector;
use common::{
    Constraint, DO_NOT_SCHEDULE, LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE, SCHEDULE_ANYWAY, default_selector,
    filter_constraints,
};
use filtering::{PRE_FILTER_KEY, PreFilterState};
use scoring::{PRE_SCORE_KEY, PreScoreState};

/// `ErrReasonConstraintsNotMatch`.
pub(crate) const ERR_REASON_CONSTRAINTS_NOT_MATCH: &str = "node(s) didn't match pod topology spread constraints";
/// `ErrReasonNodeLabelNotMatch`.
pub(crate) const ERR_REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

/// `config.SystemDefaulting`.
pub(crate) const SYSTEM_DEFAULTING: &str = "System";
/// `config.ListDefaulting`.
pub(crate) const LIST_DEFAULTING: &str = "List";

/// PodTopologySpreadArgs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Args {
    /// defaultConstraints (only with defaultingType List).
    #[serde(default)]
    pub default_constraints: Vec<core::TopologySpreadConstraint>,
    /// defaultingType: System (default) or List.
    #[serde(default)]
    pub defaulting_type: String,
}

/// `systemDefaultConstraints`.
pub(crate) fn system_default_constraints() -> Vec<core::TopologySpreadConstraint> {
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
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().last().is_some_and(|c| c.is_ascii_alphanumeric());
    let prefix_ok = prefix.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|l| {
                !l.is_empty()
                    && l.len() <= 63
                    && l.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
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
        errs.push(format!(
            "defaultingType: Unsupported value: {dt:?}: supported values: \"System\", \"List\""
        ));
    } else if dt == SYSTEM_DEFAULTING && !a.default_constraints.is_empty() {
        errs.push("defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty".into());
    }
    for (i, c) in a.default_constraints.iter().enumerate() {
        let p = format!("defaultConstraints[{i}]");
        if c.max_skew <= 0 {
            errs.push(format!(
                "{p}.maxSkew: Invalid value: {}: not in valid range (0, inf)",
                c.max_skew
            ));
        }
        if c.topology_key.is_empty() {
            errs.push(format!("{p}.topologyKey: Required value: can not be empty"));
        } else if !is_label_name(&c.topology_key) {
            errs.push(format!(
                "{p}.topologyKey: Invalid value: {:?}: not a valid label name",
                c.topology_key
            ));
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
pub(crate) struct PodTopologySpread {
    default_constraints: Vec<core::TopologySpreadConstraint>,
    system_defaulted: bool,
    per_constraint_counts: bool,
    /// nodeTaintsPolicy Honor reads Lt and Gt tolerations (TaintTolerationComparisonOperators).
    taint_comparison_operators: bool,
    /// `labelSelector: {}` counts every pod of the namespace ([`Change::SpreadCountsEmptySelector`]);
    /// before, `countPodsMatchSelector` counted nothing for it.
    empty_selector_counts: bool,
}

impl PodTopologySpread {
    /// A plugin with explicit defaults, as 1.30 behaves (for tests and `register`).
    pub(crate) fn new(default_constraints: Vec<core::TopologySpreadConstraint>, system_defaulted: bool) -> Self {
        PodTopologySpread {
            default_constraints,
            system_defaulted,
            per_constraint_counts: false,
            taint_comparison_operators: false,
            empty_selector_counts: false,
        }
    }

    /// The same plugin as a release behaves: counts per constraint, not per topology key,
    /// with [`Change::SpreadCountsPerConstraint`]; an empty selector counts every pod with
    /// [`Change::SpreadCountsEmptySelector`].
    #[must_use]
    pub(crate) fn with_features(mut self, f: &Features) -> Self {
        self.per_constraint_counts = f.has(Change::SpreadCountsPerConstraint);
        self.empty_selector_counts = f.has(Change::SpreadCountsEmptySelector);
        self.taint_comparison_operators = f.on(crate::engine::release::Gate::TaintTolerationComparisonOperators);
        self
    }

    /// `buildDefaultConstraints`.
    fn build_default_constraints(
        &self,
        cluster: &Cluster,
        pod: &PodInfo,
        action: &str,
    ) -> Result<Vec<Constraint>, String> {
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

    /// `countPodsMatchSelector` of each constraint in the pod's namespace, on the snapshot's
    /// nodes, by the snapshot's index. Up to 1.37 it returned 0 for a selector without
    /// requirements (`selector.Empty()`), so `labelSelector: {}` counted nothing; from 1.38
    /// (kubernetes#141340) only a selector that matches nothing (nil) does.
    fn counter(&self, cx: &Ctx<'_>, pod: &PodInfo, constraints: &[Constraint]) -> PodCounter {
        let selectors: Vec<Selector> = constraints
            .iter()
            .map(|c| self.counting_selector(&c.selector))
            .collect();
        PodCounter::new(cx.snapshot.pod_table(), selectors.iter(), &pod.pod.key.namespace)
    }

    /// The selector `countPodsMatchSelector` counts with at this release.
    pub(crate) fn counting_selector(&self, selector: &Selector) -> Selector {
        if !self.empty_selector_counts && selector.is_empty() {
            Selector::Nothing
        } else {
            selector.clone()
        }
    }

    /// The pod's constraints of one action, or the default ones when it has none.
    fn constraints(&self, cluster: &Cluster, pod: &PodInfo, action: &str) -> Result<Vec<Constraint>, String> {
        let (hard, soft) = (action == DO_NOT_SCHEDULE, action == SCHEDULE_ANYWAY);
        let kind = if hard {
            "hard"
        } else if soft {
            "soft"
        } else {
            action
        };
        let own = pod
            .pod
            .spec()
            .topology_spread_constraints
            .as_deref()
            .unwrap_or_default();
        let mut cs = if own.is_empty() {
            self.build_default_constraints(cluster, pod, action)
                .map_err(|e| format!("setting default {kind} topology spread constraints: {e}"))
        } else {
            filter_constraints(own, &pod.pod.labels, action)
                .map_err(|e| format!("obtaining pod's {kind} topology spread constraints: {e}"))
        }?;
        for c in &mut cs {
            c.taint_comparison_operators = self.taint_comparison_operators;
        }
        Ok(cs)
    }
}

/// The constraints a point used, in words (`zone maxSkew 1 minDomains 2`), and where they came
/// from when the pod has none of its own.
fn constraint_facts(label: &str, pod: &PodInfo, constraints: Option<&[Constraint]>) -> Vec<Fact> {
    let Some(cs) = constraints else {
        return vec![Fact::new(label, "none (the plugin skips)")];
    };
    let items: Vec<String> = cs
        .iter()
        .map(|c| {
            let mut s = format!("{} maxSkew {}", c.topology_key, c.max_skew);
            if c.min_domains > 1 {
                s.push_str(&format!(" minDomains {}", c.min_domains));
            }
            s
        })
        .collect();
    let mut facts = vec![Fact::list(label, &items, "")];
    if !has_own_constraints(pod) {
        facts.push(Fact::new(
            "constraints from",
            "the profile's default constraints (the pod has none)",
        ));
    }
    facts
}

fn not_found(key: &str) -> Status {
    Status::error(format!("reading {key:?} from cycleState: not found"))
}

impl Plugin for PodTopologySpread {
    fn name(&self) -> &'static str {
        names::POD_TOPOLOGY_SPREAD
    }

    fn sign_pod(&self, _: &Ctx<'_>, pod: &PodInfo) -> Signing {
        if pod
            .pod
            .spec()
            .topology_spread_constraints
            .as_ref()
            .is_some_and(|c| !c.is_empty())
        {
            return Signing::Refused("pods with topology constraints are not signable");
        }
        if self.system_defaulted || !self.default_constraints.is_empty() {
            return Signing::Refused("pods with default topology constraints are not signable");
        }
        Signing::Signed
    }
}

impl PreFilterPlugin for PodTopologySpread {
    fn pre_filter(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        let constraints = match self.constraints(&cx.snapshot.cluster, pod, DO_NOT_SCHEDULE) {
            Ok(c) => c,
            Err(e) => {
                return (None, Status::error(format!("get constraints from pod: {e}")));
            }
        };
        if constraints.is_empty() {
            return (None, Status::skip());
        }
        let counter = self.counter(cx, pod, &constraints);
        let nodes = &cx.snapshot.nodes;
        state.write(
            PRE_FILTER_KEY,
            PreFilterState::compute(
                cx.snapshot,
                pod,
                constraints,
                self.per_constraint_counts,
                cx.snapshot.serial,
                &|n, i| counter.count(&nodes[n], Some(n), i),
            ),
        );
        (None, Status::success())
    }

    fn pre_filter_facts(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo) -> Vec<Fact> {
        let s = state.read::<PreFilterState>(PRE_FILTER_KEY);
        constraint_facts("DoNotSchedule constraints", pod, s.map(|s| s.constraints.as_slice()))
    }

    /// For a pod with its own constraints: every domain's matching pods per constraint and
    /// Score's arithmetic on the scored nodes, recomputed as PreFilter and PreScore compute
    /// them (system default constraints are left out: they would double the plugin's work on
    /// nearly every pod).
    fn trace(&self, cx: &Ctx<'_>, pod: &PodInfo, ex: &mut Explanation) {
        let own = has_own_constraints(pod);
        // no cycle ran (held before the queue, another scheduler): nothing to recompute
        let ran = ex.pre_filter.iter().any(|p| p.plugin == names::POD_TOPOLOGY_SPREAD);
        if !own || !ran {
            return;
        }
        let mut t = SpreadTrace::default();
        let nodes = &cx.snapshot.nodes;
        if let Ok(constraints) = self.constraints(&cx.snapshot.cluster, pod, DO_NOT_SCHEDULE)
            && !constraints.is_empty()
        {
            let counter = self.counter(cx, pod, &constraints);
            let s = PreFilterState::compute(
                cx.snapshot,
                pod,
                constraints,
                self.per_constraint_counts,
                true,
                &|n, i| counter.count(&nodes[n], Some(n), i),
            );
            for (i, c) in s.constraints.iter().enumerate() {
                t.constraints.push(SpreadDomains {
                    when_unsatisfiable: DO_NOT_SCHEDULE.to_string(),
                    topology_key: c.topology_key.clone(),
                    max_skew: c.max_skew,
                    min_domains: c.min_domains,
                    self_match: s.self_match[i],
                    domains: s.domain_counts(i),
                    global_min: s.min_match(i),
                    weight_micros: None,
                });
            }
        }
        let scored = ex.pre_score.iter().any(|p| {
            p.plugin == names::POD_TOPOLOGY_SPREAD && p.code == crate::engine::framework::status::Code::Success
        });
        if scored && let Ok(constraints) = self.constraints(&cx.snapshot.cluster, pod, SCHEDULE_ANYWAY) {
            let feasible: Vec<&NodeInfo> = ex.score.iter().filter_map(|n| cx.snapshot.node(&n.node)).collect();
            let counter = self.counter(cx, pod, &constraints);
            let s = PreScoreState::compute(
                cx.snapshot,
                pod,
                constraints,
                &feasible,
                true,
                self.per_constraint_counts,
                counter,
            );
            let here = |n: &NodeInfo, i: usize| {
                let at = cx.snapshot.node_index(n.name());
                s.counter.count(at.map_or(n, |x| &nodes[x]), at, i)
            };
            for (i, c) in s.constraints.iter().enumerate() {
                let domains = if c.topology_key == common::LABEL_HOSTNAME {
                    let mut v: Vec<(String, i64)> = feasible
                        .iter()
                        .filter(|n| !s.ignored.contains(n.name()))
                        .map(|n| (n.name().to_string(), here(n, i)))
                        .collect();
                    v.sort();
                    v
                } else {
                    s.domain_counts(i)
                };
                t.constraints.push(SpreadDomains {
                    when_unsatisfiable: SCHEDULE_ANYWAY.to_string(),
                    topology_key: c.topology_key.clone(),
                    max_skew: c.max_skew,
                    min_domains: c.min_domains,
                    self_match: false,
                    domains,
                    global_min: None,
                    weight_micros: Some(micros(s.weights[i])),
                });
            }
            for n in &feasible {
                let ignored = s.ignored.contains(n.name());
                let mut counts = Vec::new();
                let mut sum = 0.0;
                let at = cx.snapshot.indexed(n);
                for (i, c) in s.constraints.iter().enumerate() {
                    let cnt = s.count_of(at, i, &|i| here(n, i));
                    if let Some(cnt) = cnt {
                        sum += scoring::score_for_count(cnt, c.max_skew, s.weights[i]);
                    }
                    counts.push(cnt);
                }
                let normalized = ex
                    .score
                    .iter()
                    .find(|x| x.node == n.name())
                    .and_then(|x| x.plugins.iter().find(|p| p.plugin == names::POD_TOPOLOGY_SPREAD))
                    .map_or(0, |p| p.normalized);
                t.scores.push(SpreadScore {
                    node: n.name().to_string(),
                    ignored,
                    counts,
                    sum_micros: if ignored { 0 } else { micros(sum) },
                    raw: s.score(at, &|i| here(n, i)),
                    normalized,
                });
            }
            let raws = t.scores.iter().filter(|x| !x.ignored).map(|x| x.raw);
            t.normalize = raws.clone().min().zip(raws.max()).map(|(min, max)| (min, max.max(0)));
        }
        if !t.constraints.is_empty() {
            ex.topology_spread = Some(t);
        }
    }

    fn has_extensions(&self) -> bool {
        true
    }

    fn add_pod(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, add: &PodInfo, node: &NodeInfo) -> Status {
        let Some(s) = state.read_mut::<PreFilterState>(PRE_FILTER_KEY) else {
            return not_found(PRE_FILTER_KEY);
        };
        s.update_with_pod(pod, add, cx.snapshot.indexed(node), 1);
        Status::success()
    }

    fn remove_pod(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, rm: &PodInfo, node: &NodeInfo) -> Status {
        let Some(s) = state.read_mut::<PreFilterState>(PRE_FILTER_KEY) else {
            return not_found(PRE_FILTER_KEY);
        };
        s.update_with_pod(pod, rm, cx.snapshot.indexed(node), -1);
        Status::success()
    }
}

/// A weight in millionths, rounded.
fn micros(v: f64) -> i64 {
    (v * 1e6).round() as i64
}

impl FilterPlugin for PodTopologySpread {
    fn filter(&self, cx: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> Status {
        match state.read::<PreFilterState>(PRE_FILTER_KEY) {
            Some(s) => s.filter(cx.snapshot.indexed(node)),
            None => not_found(PRE_FILTER_KEY),
        }
    }

    fn filter_detail(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> Option<FilterDetail> {
        state
            .read::<PreFilterState>(PRE_FILTER_KEY)
            .map(|s| FilterDetail::TopologySpread(s.explain(node)))
    }
}

impl PreScorePlugin for PodTopologySpread {
    fn pre_score(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, nodes: &[&NodeInfo]) -> Status {
        let all = &cx.snapshot.nodes;
        if all.is_empty() {
            return Status::skip();
        }
        let own = pod
            .pod
            .spec()
            .topology_spread_constraints
            .as_ref()
            .is_some_and(|v| !v.is_empty());
        let require_all = own || !self.system_defaulted;
        let constraints = match self.constraints(&cx.snapshot.cluster, pod, SCHEDULE_ANYWAY) {
            Ok(c) => c,
            Err(e) => return Status::error(format!("calculating preScoreState: {e}")),
        };
        if constraints.is_empty() {
            return Status::skip();
        }
        let counter = self.counter(cx, pod, &constraints);
        let s = PreScoreState::compute(
            cx.snapshot,
            pod,
            constraints,
            nodes,
            require_all,
            self.per_constraint_counts,
            counter,
        );
        state.write(PRE_SCORE_KEY, s);
        Status::success()
    }

    fn pre_score_facts(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo) -> Vec<Fact> {
        let s = state.read::<PreScoreState>(PRE_SCORE_KEY);
        constraint_facts("ScheduleAnyway constraints", pod, s.map(|s| s.constraints.as_slice()))
    }
}

impl ScorePlugin for PodTopologySpread {
    fn score(&self, cx: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> ScoreResult {
        match state.read::<PreScoreState>(PRE_SCORE_KEY) {
            Some(s) => {
                // Upstream reads the node from the snapshot by name.
                let at = cx
                    .snapshot
                    .position_of(node)
                    .or_else(|| cx.snapshot.node_index(node.name()));
                let n = at.map_or(node, |i| &cx.snapshot.nodes[i]);
                Ok(s.score(cx.snapshot.indexed(node), &|i| s.counter.count(n, at, i)))
            }
            None => Err(Box::new(Status::error(format!(
                "error reading {PRE_SCORE_KEY:?} from cycleState: not found"
            )))),
        }
    }

    fn has_normalize(&self) -> bool {
        true
    }

    fn normalize(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, scores: &mut [NodeScore<'_>]) -> Status {
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
pub(crate) fn register(args: &Value, features: &Features) -> Result<PluginSlots, String> {
    let mut a: Args = super::decode_args(args)?;
    if a.defaulting_type.is_empty() {
        a.defaulting_type = SYSTEM_DEFAULTING.into();
    }
    validate(&a)?;
    let system = a.defaulting_type == SYSTEM_DEFAULTING;
    let defaults = if system {
        system_default_constraints()
    } else {
        a.default_constraints
    };
    let p = Arc::new(PodTopologySpread::new(defaults, system).with_features(features));
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p.clone()),
        pre_score: Some(p.clone()),
        score: Some(p),
        ..Default::default()
    })
}

/// The pod sets topologySpreadConstraints itself (else the system defaults apply).
fn has_own_constraints(pod: &PodInfo) -> bool {
    pod.pod
        .spec()
        .topology_spread_constraints
        .as_ref()
        .is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use crate::engine::Release;
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::testkit::{NodeB, PodB, node, pod, snapshot};
    use super::*;
    use crate::engine::Framework;
    use crate::engine::framework::runner::explain;
    use crate::engine::framework::status::Code;
    use crate::engine::framework::trace::Explanation;
    use crate::model::ObjectKey;

    const ZONE: &str = "topology.kubernetes.io/zone";

    fn zone_nodes(zones: &[&str], per_zone: usize) -> Vec<NodeB> {
        let mut v = Vec::new();
        for z in zones {
            for i in 1..=per_zone {
                let n = format!("{z}-node-{i}");
                v.push(node(&n).label(ZONE, z).label(LABEL_HOSTNAME, &n));
            }
        }
        v
    }

    fn replica(name: &str, c: serde_json::Value) -> PodB {
        pod(name).label("app", "web").req_cpu("100m").constraint(c)
    }

    fn run(nodes: Vec<NodeB>, pods: Vec<PodB>, key: &str) -> Explanation {
        let snap = snapshot(nodes, pods, vec![]);
        let fw = Framework::default_profile(Release::at(30)).expect("profile");
        explain(&snap, &[fw], &ObjectKey::new("default", key)).expect("explain")
    }

    // Seed: 5 replicas over 3 zones with maxSkew 1, scheduled one at a time, end up 2/2/1.
    #[test]
    fn five_replicas_over_three_zones_place_two_two_one() {
        let c = json!({"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
                       "labelSelector": {"matchLabels": {"app": "web"}}});
        let mut bound: Vec<PodB> = Vec::new();
        let mut per_zone: BTreeMap<String, usize> = BTreeMap::new();
        for i in 0..5 {
            let name = format!("web-{i}");
            let mut pods = bound.clone();
            pods.push(replica(&name, c.clone()));
            let ex = run(zone_nodes(&["zone-a", "zone-b", "zone-c"], 2), pods, &name);
            assert!(ex.schedulable(), "replica {i}: {:?}", ex.message);
            // The feasible nodes are exactly those of the zones with the fewest replicas.
            let min = ["zone-a", "zone-b", "zone-c"]
                .iter()
                .map(|z| per_zone.get(*z).copied().unwrap_or(0))
                .min();
            for f in &ex.filter {
                let z = f.node.split("-node-").next().unwrap_or_default();
                let here = per_zone.get(z).copied().unwrap_or(0);
                assert_eq!(f.feasible, Some(here) == min, "replica {i} node {}", f.node);
            }
            let target = ex.selected[0].clone();
            let z = target.split("-node-").next().unwrap_or_default().to_string();
            *per_zone.entry(z).or_insert(0) += 1;
            bound.push(replica(&name, c.clone()).node(&target));
        }
        let mut counts: Vec<usize> = per_zone.values().copied().collect();
        counts.sort_unstable();
        assert_eq!(counts, vec![1, 2, 2]);
        assert_eq!(per_zone.len(), 3);
    }

    fn min_domains_case(when: &str) -> Explanation {
        let c = json!({"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": when, "minDomains": 3,
                       "labelSelector": {"matchLabels": {"app": "web"}}});
        let mut pods = vec![
            replica("web-0", c.clone()).node("zone-a-node-1"),
            replica("web-1", c.clone()).node("zone-a-node-1"),
            replica("web-2", c.clone()).node("zone-b-node-1"),
        ];
        pods.push(replica("web-3", c));
        run(zone_nodes(&["zone-a", "zone-b"], 1), pods, "web-3")
    }

    // Seed: minDomains 3 on a 2-zone cluster with DoNotSchedule: the global minimum counts as 0,
    // every zone already holds a replica, so every node fails and the pod stays Pending.
    #[test]
    fn min_domains_on_two_zones_do_not_schedule_stays_pending() {
        let ex = min_domains_case("DoNotSchedule");
        assert!(!ex.schedulable());
        for f in &ex.filter {
            let fl = f.failure.as_ref().expect("failure");
            assert_eq!((fl.plugin, fl.code), ("PodTopologySpread", Code::Unschedulable));
            assert_eq!(fl.reasons, vec![ERR_REASON_CONSTRAINTS_NOT_MATCH.to_string()]);
        }
        let msg = ex.message.clone().unwrap_or_default();
        assert!(
            msg.starts_with("0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints."),
            "{msg}"
        );
        // The trace carries the numbers: zone-b has 1 replica, +1 for this pod, minimum 0.
        let fb = ex.filter.iter().find(|f| f.node == "zone-b-node-1").expect("node");
        let FilterDetail::TopologySpread(checks) = &fb.details[0];
        let c = &checks[0];
        assert_eq!(
            (
                c.domain.as_deref(),
                c.match_num,
                c.self_match,
                c.global_min,
                c.skew,
                c.domains,
                c.min_domains
            ),
            (Some("zone-b"), 1, true, Some(0), Some(2), 2, 3)
        );
        assert_eq!(c.global_min_domain, None);
        let text = crate::explain::text::render(&ex);
        assert!(
            text.contains("spread: topology.kubernetes.io/zone=zone-b: 1 matching pod(s) + 1 (this pod) - global minimum 0 (2 of minDomains 3 domains exist, so the minimum counts as 0) = skew 2 > maxSkew 1"),
            "{text}"
        );
        let v = crate::explain::json::to_value(&ex);
        assert_eq!(v["filter"][1]["topologySpread"][0]["globalMin"], json!(0));
        assert_eq!(v["filter"][1]["topologySpread"][0]["matchNum"], json!(1));
    }

    // Every domain of each constraint with its matching pods, and Score's arithmetic per
    // node: zone-a holds 2 replicas, zone-b 1 (and a node with no zone label, ignored).
    #[test]
    fn the_trace_counts_every_domain_and_shows_the_score_arithmetic() {
        let hard = json!({"maxSkew": 2, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
                          "labelSelector": {"matchLabels": {"app": "web"}}});
        let soft = json!({"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway",
                          "labelSelector": {"matchLabels": {"app": "web"}}});
        let both = |name: &str| replica(name, hard.clone()).constraint(soft.clone());
        let mut nodes = zone_nodes(&["zone-a", "zone-b", "zone-c"], 1);
        nodes.push(node("bare").label(LABEL_HOSTNAME, "bare"));
        let pods = vec![
            both("web-0").node("zone-a-node-1"),
            both("web-1").node("zone-a-node-1"),
            both("web-2").node("zone-b-node-1"),
            both("web-3"),
        ];
        let ex = run(nodes, pods, "web-3");
        let t = ex.topology_spread.clone().expect("trace");
        let d = |v: &[(&str, i64)]| v.iter().map(|(k, n)| ((*k).to_string(), *n)).collect::<Vec<_>>();
        assert_eq!(t.constraints.len(), 2);
        let h = &t.constraints[0];
        assert_eq!(
            (
                h.when_unsatisfiable.as_str(),
                h.max_skew,
                h.min_domains,
                h.self_match,
                h.global_min,
                h.weight_micros
            ),
            ("DoNotSchedule", 2, 1, true, Some(0), None)
        );
        assert_eq!(h.domains, d(&[("zone-a", 2), ("zone-b", 1), ("zone-c", 0)]));
        // zone-a: 2 + 1 - 0 = 3 > 2, so the feasible nodes are zone-b's and zone-c's (the bare
        // node lacks the key and fails Filter)
        let scored: Vec<&str> = t.scores.iter().map(|x| x.node.as_str()).collect();
        assert_eq!(scored, ["zone-b-node-1", "zone-c-node-1"]);
        let s = &t.constraints[1];
        assert_eq!(s.when_unsatisfiable, "ScheduleAnyway");
        // only the scored nodes' domains are counted, weight ln(2 + 2)
        assert_eq!(s.domains, d(&[("zone-b", 1), ("zone-c", 0)]));
        assert_eq!(s.weight_micros, Some(1_386_294));
        let rows: Vec<(Vec<Option<i64>>, i64, i64, i64)> = t
            .scores
            .iter()
            .map(|x| (x.counts.clone(), x.sum_micros, x.raw, x.normalized))
            .collect();
        // zone-b: 1 × 1.386294 + 0 = 1.386294 → 1; zone-c: 0 → 0; normalized 100 × (1 + 0 - s) / 1
        assert_eq!(rows, [(vec![Some(1)], 1_386_294, 1, 0), (vec![Some(0)], 0, 0, 100)]);
        assert_eq!(t.normalize, Some((0, 1)));
        // the raw and normalized scores are the ones Score recorded
        for x in &t.scores {
            let p = ex
                .score
                .iter()
                .find(|n| n.node == x.node)
                .and_then(|n| n.plugins.iter().find(|p| p.plugin == "PodTopologySpread"))
                .expect("score");
            assert_eq!((p.raw, p.normalized), (x.raw, x.normalized), "{}", x.node);
        }
        let text = crate::explain::text::render(&ex);
        let want = "Topology spread (PodTopologySpread, the pod's own constraints):
  DoNotSchedule on topology.kubernetes.io/zone, maxSkew 2, minDomains 1 (the pod matches its selector: +1 where it goes); global minimum 0:
    DOMAIN  MATCHING PODS
    zone-a  2
    zone-b  1
    zone-c  0
  ScheduleAnyway on topology.kubernetes.io/zone, maxSkew 1; Score weight ln(2 domain(s) + 2) = 1.3863:
    DOMAIN  MATCHING PODS
    zone-b  1
    zone-c  0
  Score: raw = round(Σ count × weight + maxSkew - 1); normalized = 100 × (max 1 + min 0 - raw) / max 1:
    zone-b-node-1  1 × 1.3863 + 0 = 1.3863 → raw 1 → normalized 100 × (1 + 0 - 1) / 1 = 0
    zone-c-node-1  0 × 1.3863 + 0 = 0.0000 → raw 0 → normalized 100 × (1 + 0 - 0) / 1 = 100
";
        assert!(text.contains(want), "{text}");
        let v = crate::explain::json::to_value(&ex);
        assert_eq!(
            v["topologySpread"]["constraints"][0]["domains"],
            json!([{"domain": "zone-a", "matchingPods": 2}, {"domain": "zone-b", "matchingPods": 1},
                   {"domain": "zone-c", "matchingPods": 0}])
        );
        assert_eq!(v["topologySpread"]["constraints"][1]["weight"], json!(1.386294));
        assert_eq!(
            v["topologySpread"]["scores"][0],
            json!({"node": "zone-b-node-1", "ignored": false, "counts": [1], "sum": 1.386294, "raw": 1, "normalized": 0})
        );
        assert_eq!(v["topologySpread"]["normalize"], json!({"min": 0, "max": 1}));
        // a pod held before the queue (no cycle ran) gets none either
        let mut gated = both("web-9");
        gated.0["spec"]["schedulingGates"] = json!([{"name": "example.com/hold"}]);
        let held = run(zone_nodes(&["zone-a"], 1), vec![gated], "web-9");
        assert!(held.pre_filter.is_empty(), "{:?}", held.pre_filter);
        assert_eq!(held.topology_spread, None);
        // a pod without constraints of its own gets no trace
        let plain = run(zone_nodes(&["zone-a"], 1), vec![pod("solo").req_cpu("100m")], "solo");
        assert_eq!(plain.topology_spread, None);
    }

    // Seed: the same with ScheduleAnyway schedules, and prefers the emptier zone.
    #[test]
    fn min_domains_with_schedule_anyway_prefers_the_emptier_zone() {
        let ex = min_domains_case("ScheduleAnyway");
        assert!(ex.schedulable());
        assert_eq!(ex.selected, vec!["zone-b-node-1".to_string()]);
        let pts = |n: &str| {
            ex.score
                .iter()
                .find(|s| s.node == n)
                .and_then(|s| s.plugins.iter().find(|p| p.plugin == "PodTopologySpread"))
                .cloned()
                .expect("score")
        };
        // raw: count * ln(2 + 2); zone-a 2 -> 3, zone-b 1 -> 1; normalized 100 * (3 + 1 - s) / 3.
        assert_eq!((pts("zone-a-node-1").raw, pts("zone-a-node-1").normalized), (3, 33));
        assert_eq!((pts("zone-b-node-1").raw, pts("zone-b-node-1").normalized), (1, 100));
        assert_eq!(pts("zone-b-node-1").weight, 2);
    }

    #[test]
    fn args_defaulting_and_validation() {
        assert!(register(&Value::Null, &Release::at(30).into()).is_ok());
        assert!(register(&json!({"defaultingType": "List"}), &Release::at(30).into()).is_ok());
        let list = json!({"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}]});
        assert!(register(&list, &Release::at(30).into()).is_ok());
        let err = |v: serde_json::Value| register(&v, &Release::at(30).into()).err().unwrap_or_default();
        assert_eq!(
            err(
                json!({"defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}]})
            ),
            "defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty"
        );
        assert_eq!(
            err(json!({"defaultingType": "Other"})),
            "defaultingType: Unsupported value: \"Other\": supported values: \"System\", \"List\""
        );
        assert_eq!(
            err(json!({"defaultingType": "List", "defaultConstraints": [
                {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"},
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                 "labelSelector": {"matchLabels": {"a": "b"}}}]})),
            "[defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf), \
             defaultConstraints[1].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod, \
             defaultConstraints[1]: Duplicate value: \"{zone, ScheduleAnyway}\"]"
        );
        assert!(err(json!({"unknown": 1})).contains("unknown field"));
    }

    #[test]
    fn default_selector_from_services_and_controllers() {
        let cluster = |objs: Vec<serde_json::Value>| super::testkit::cluster(objs);
        let p = |owner: Option<(&str, &str, &str)>| {
            let mut b = pod("p").label("app", "web").label("tier", "fe");
            if let Some((a, k, n)) = owner {
                b = b.owner(a, k, n);
            }
            b
        };
        let svc = |name: &str, ns: &str, sel: serde_json::Value| {
            json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": ns}, "spec": {"selector": sel}})
        };
        let c = cluster(vec![
            p(None).0,
            svc("s1", "default", json!({"app": "web"})),
            svc("s2", "default", json!({"tier": "fe"})),
            svc("s3", "default", json!({"app": "other"})),
            svc("s4", "other", json!({"app": "web", "x": "y"})),
        ]);
        let pod0 = c.pod(&ObjectKey::new("default", "p")).expect("pod").clone();
        let sel = default_selector(&c, &pod0);
        let mut l = pod0.labels.clone();
        assert!(sel.matches(&l));
        l.remove("tier");
        assert!(!sel.matches(&l));
        // No service and no controller: empty, so no default constraints.
        let c = cluster(vec![p(None).0]);
        assert!(default_selector(&c, &c.pods[0]).is_empty());
        // A ReplicaSet controller adds its selector; a ReplicationController merges its map.
        let c = cluster(vec![
            p(Some(("apps/v1", "ReplicaSet", "rs"))).0,
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "default"},
                   "spec": {"selector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["fe"]}]}}}),
        ]);
        let s = default_selector(&c, &c.pods[0]);
        assert!(!s.is_empty() && s.matches(&c.pods[0].labels));
        let c = cluster(vec![
            p(Some(("v1", "ReplicationController", "rc"))).0,
            json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc", "namespace": "default"},
                   "spec": {"selector": {"app": "web"}}}),
        ]);
        assert!(!default_selector(&c, &c.pods[0]).is_empty());
        // A StatefulSet of another apiVersion is not a supported controller.
        let c = cluster(vec![
            p(Some(("apps/v1beta1", "StatefulSet", "ss"))).0,
            json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "ss", "namespace": "default"},
                   "spec": {"selector": {"matchLabels": {"app": "web"}}, "serviceName": "s", "template": {}}}),
        ]);
        assert!(default_selector(&c, &c.pods[0]).is_empty());
        let c = cluster(vec![
            p(Some(("apps/v1", "StatefulSet", "ss"))).0,
            json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "ss", "namespace": "default"},
                   "spec": {"selector": {"matchLabels": {"app": "web"}}, "serviceName": "s", "template": {}}}),
        ]);
        assert!(!default_selector(&c, &c.pods[0]).is_empty());
    }
}

/// Builders for the tests of this plugin (after upstream's `st.MakePod()` / `st.MakeNode()`).
#[cfg(test)]
pub(crate) mod testkit {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use serde_json::{Value, json};

    use crate::engine::framework::snapshot::Snapshot;
    use crate::engine::release::Release;
    use crate::model::Cluster;

    /// A pod under construction (JSON, as kubectl prints it).
    #[derive(Clone)]
    pub(crate) struct PodB(pub Value);

    /// A pod named `name` in namespace default.
    pub(crate) fn pod(name: &str) -> PodB {
        PodB(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": name, "labels": {}},
            "spec": {"containers": [{"name": "c", "image": "i"}]},
            "status": {"phase": "Pending"},
        }))
    }

    impl PodB {
        pub(crate) fn ns(mut self, ns: &str) -> Self {
            self.0["metadata"]["namespace"] = json!(ns);
            self.0["metadata"]["uid"] = json!(format!("{ns}/{}", self.0["metadata"]["name"].as_str().unwrap_or("")));
            self
        }
        pub(crate) fn label(mut self, k: &str, v: &str) -> Self {
            self.0["metadata"]["labels"][k] = json!(v);
            self
        }
        pub(crate) fn node(mut self, n: &str) -> Self {
            self.0["spec"]["nodeName"] = json!(n);
            self.0["status"]["phase"] = json!("Running");
            self
        }
        pub(crate) fn nominated(mut self, n: &str) -> Self {
            self.0["status"]["nominatedNodeName"] = json!(n);
            self
        }
        pub(crate) fn priority(mut self, p: i32) -> Self {
            self.0["spec"]["priority"] = json!(p);
            self
        }
        pub(crate) fn terminating(mut self) -> Self {
            self.0["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
            self
        }
        /// A constraint given as JSON (labelSelector, minDomains, policies, matchLabelKeys).
        pub(crate) fn constraint(mut self, c: Value) -> Self {
            let spec = &mut self.0["spec"];
            if spec.get("topologySpreadConstraints").is_none() {
                spec["topologySpreadConstraints"] = json!([]);
            }
            if let Some(a) = spec["topologySpreadConstraints"].as_array_mut() {
                a.push(c);
            }
            self
        }
        /// `SpreadConstraint(maxSkew, key, when, selector, nil, nil, nil, nil)`.
        pub(crate) fn spread(self, max_skew: i32, key: &str, when: &str, selector: Value) -> Self {
            let mut c = json!({"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when});
            if !selector.is_null() {
                c["labelSelector"] = selector;
            }
            self.constraint(c)
        }
        /// `NodeAffinityIn(key, values, required)`.
        pub(crate) fn node_affinity_in(mut self, key: &str, values: &[&str]) -> Self {
            self.0["spec"]["affinity"] = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": values}]}]}}});
            self
        }
        /// `NodeAffinityNotIn(key, values, required)`.
        pub(crate) fn node_affinity_not_in(mut self, key: &str, values: &[&str]) -> Self {
            self.0["spec"]["affinity"] = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "NotIn", "values": values}]}]}}});
            self
        }
        pub(crate) fn node_selector(mut self, k: &str, v: &str) -> Self {
            self.0["spec"]["nodeSelector"] = json!({k: v});
            self
        }
        pub(crate) fn toleration(mut self, key: &str) -> Self {
            self.0["spec"]["tolerations"] = json!([{"key": key, "operator": "Exists", "effect": "NoSchedule"}]);
            self
        }
        pub(crate) fn owner(mut self, api_version: &str, kind: &str, name: &str) -> Self {
            self.0["metadata"]["ownerReferences"] =
                json!([{"apiVersion": api_version, "kind": kind, "name": name, "uid": name, "controller": true}]);
            self
        }
        pub(crate) fn req_cpu(mut self, cpu: &str) -> Self {
            self.0["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": cpu}});
            self
        }
    }

    /// A node under construction.
    #[derive(Clone)]
    pub(crate) struct NodeB(pub Value);

    /// A node named `name` with room for 110 pods.
    pub(crate) fn node(name: &str) -> NodeB {
        NodeB(json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {}},
            "status": {"allocatable": {"cpu": "32", "memory": "64Gi", "pods": "110"}},
        }))
    }

    impl NodeB {
        pub(crate) fn label(mut self, k: &str, v: &str) -> Self {
            self.0["metadata"]["labels"][k] = json!(v);
            self
        }
        pub(crate) fn taint(mut self, k: &str, v: &str, effect: &str) -> Self {
            self.0["spec"] = json!({"taints": [{"key": k, "value": v, "effect": effect}]});
            self
        }
    }

    /// `st.MakeLabelSelector().Exists(key)`.
    pub(crate) fn exists(key: &str) -> Value {
        json!({"matchExpressions": [{"key": key, "operator": "Exists"}]})
    }

    /// `st.MakeLabelSelector().Label(k, v)`.
    pub(crate) fn label_sel(k: &str, v: &str) -> Value {
        json!({"matchLabels": {k: v}})
    }

    /// A cluster from objects.
    pub(crate) fn cluster(objects: Vec<Value>) -> Cluster {
        let text = json!({"apiVersion": "v1", "kind": "List", "items": objects}).to_string();
        crate::source::file::load_str("test", &text).expect("test cluster loads")
    }

    /// A 1.30 snapshot of nodes, pods and other objects.
    pub(crate) fn snapshot(nodes: Vec<NodeB>, pods: Vec<PodB>, other: Vec<Value>) -> Snapshot {
        snapshot_at(nodes, pods, other, 30)
    }

    /// A snapshot for scheduler 1.`minor`.
    pub(crate) fn snapshot_at(nodes: Vec<NodeB>, pods: Vec<PodB>, other: Vec<Value>, minor: u32) -> Snapshot {
        let mut objs: Vec<Value> = nodes.into_iter().map(|n| n.0).collect();
        objs.extend(pods.into_iter().map(|p| p.0));
        objs.extend(other);
        Snapshot::new(Arc::new(cluster(objs)), Release::at(minor))
    }

    /// The four nodes most upstream cases use: zone1 {node-a, node-b}, zone2 {node-x, node-y}.
    pub(crate) fn four_nodes() -> Vec<NodeB> {
        [
            ("node-a", "zone1"),
            ("node-b", "zone1"),
            ("node-x", "zone2"),
            ("node-y", "zone2"),
        ]
        .iter()
        .map(|(n, z)| node(n).label("zone", z).label("node", n))
        .collect()
    }

    /// `n` pods named `prefix<i>` with label foo on `node`.
    pub(crate) fn foo_pods(prefix: &str, node_name: &str, n: usize) -> Vec<PodB> {
        (1..=n)
            .map(|i| pod(&format!("{prefix}{i}")).node(node_name).label("foo", ""))
            .collect()
    }

    /// Sorted map helper for expectations.
    pub(crate) fn want<V: Clone>(items: &[(&str, V)]) -> BTreeMap<String, V> {
        items.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect()
    }
}
