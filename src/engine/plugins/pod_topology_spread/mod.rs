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
    per_constraint_counts: bool,
}

/// From 1.33 (kubernetes#129119) the counts are kept per constraint, not per topology key.
pub fn counts_per_constraint(v: Version) -> bool {
    v.minor >= 33
}

impl PodTopologySpread {
    /// A plugin with explicit defaults, as 1.30 behaves (for tests and `register`).
    pub fn new(default_constraints: Vec<core::TopologySpreadConstraint>, system_defaulted: bool) -> Self {
        PodTopologySpread { default_constraints, system_defaulted, per_constraint_counts: false }
    }

    /// The same plugin as another release behaves.
    #[must_use]
    pub fn for_version(mut self, v: Version) -> Self {
        self.per_constraint_counts = counts_per_constraint(v);
        self
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
        state.write(PRE_FILTER_KEY, PreFilterState::compute(pod, constraints, &cx.snapshot.nodes, self.per_constraint_counts));
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
        state.write(PRE_SCORE_KEY, PreScoreState::compute(pod, constraints, nodes, all, require_all, self.per_constraint_counts));
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
pub fn register(args: &Value, version: Version) -> Result<PluginSlots, String> {
    let mut a: Args = super::decode_args(args)?;
    if a.defaulting_type.is_empty() {
        a.defaulting_type = SYSTEM_DEFAULTING.into();
    }
    validate(&a)?;
    let system = a.defaulting_type == SYSTEM_DEFAULTING;
    let defaults = if system { system_default_constraints() } else { a.default_constraints };
    let p = Arc::new(PodTopologySpread::new(defaults, system).for_version(version));
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p.clone()),
        pre_score: Some(p.clone()),
        score: Some(p),
        ..Default::default()
    })
}


/// Builders for the tests of this plugin (after upstream's `st.MakePod()` / `st.MakeNode()`).
#[cfg(test)]
pub(crate) mod testkit {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use serde_json::{Value, json};

    use crate::engine::framework::snapshot::Snapshot;
    use crate::engine::version::Version;
    use crate::model::Cluster;

    /// A pod under construction (JSON, as kubectl prints it).
    #[derive(Clone)]
    pub struct PodB(pub Value);

    /// A pod named `name` in namespace default.
    pub fn pod(name: &str) -> PodB {
        PodB(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": name, "labels": {}},
            "spec": {"containers": [{"name": "c", "image": "i"}]},
            "status": {"phase": "Pending"},
        }))
    }

    impl PodB {
        pub fn ns(mut self, ns: &str) -> Self {
            self.0["metadata"]["namespace"] = json!(ns);
            self.0["metadata"]["uid"] = json!(format!("{ns}/{}", self.0["metadata"]["name"].as_str().unwrap_or("")));
            self
        }
        pub fn label(mut self, k: &str, v: &str) -> Self {
            self.0["metadata"]["labels"][k] = json!(v);
            self
        }
        pub fn node(mut self, n: &str) -> Self {
            self.0["spec"]["nodeName"] = json!(n);
            self.0["status"]["phase"] = json!("Running");
            self
        }
        pub fn nominated(mut self, n: &str) -> Self {
            self.0["status"]["nominatedNodeName"] = json!(n);
            self
        }
        pub fn priority(mut self, p: i32) -> Self {
            self.0["spec"]["priority"] = json!(p);
            self
        }
        pub fn terminating(mut self) -> Self {
            self.0["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
            self
        }
        /// A constraint given as JSON (labelSelector, minDomains, policies, matchLabelKeys).
        pub fn constraint(mut self, c: Value) -> Self {
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
        pub fn spread(self, max_skew: i32, key: &str, when: &str, selector: Value) -> Self {
            let mut c = json!({"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when});
            if !selector.is_null() {
                c["labelSelector"] = selector;
            }
            self.constraint(c)
        }
        /// `NodeAffinityIn(key, values, required)`.
        pub fn node_affinity_in(mut self, key: &str, values: &[&str]) -> Self {
            self.0["spec"]["affinity"] = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": values}]}]}}});
            self
        }
        /// `NodeAffinityNotIn(key, values, required)`.
        pub fn node_affinity_not_in(mut self, key: &str, values: &[&str]) -> Self {
            self.0["spec"]["affinity"] = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "NotIn", "values": values}]}]}}});
            self
        }
        pub fn node_selector(mut self, k: &str, v: &str) -> Self {
            self.0["spec"]["nodeSelector"] = json!({k: v});
            self
        }
        pub fn toleration(mut self, key: &str) -> Self {
            self.0["spec"]["tolerations"] = json!([{"key": key, "operator": "Exists", "effect": "NoSchedule"}]);
            self
        }
        pub fn owner(mut self, api_version: &str, kind: &str, name: &str) -> Self {
            self.0["metadata"]["ownerReferences"] =
                json!([{"apiVersion": api_version, "kind": kind, "name": name, "uid": name, "controller": true}]);
            self
        }
        pub fn req_cpu(mut self, cpu: &str) -> Self {
            self.0["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": cpu}});
            self
        }
    }

    /// A node under construction.
    #[derive(Clone)]
    pub struct NodeB(pub Value);

    /// A node named `name` with room for 110 pods.
    pub fn node(name: &str) -> NodeB {
        NodeB(json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {}},
            "status": {"allocatable": {"cpu": "32", "memory": "64Gi", "pods": "110"}},
        }))
    }

    impl NodeB {
        pub fn label(mut self, k: &str, v: &str) -> Self {
            self.0["metadata"]["labels"][k] = json!(v);
            self
        }
        pub fn taint(mut self, k: &str, v: &str, effect: &str) -> Self {
            self.0["spec"] = json!({"taints": [{"key": k, "value": v, "effect": effect}]});
            self
        }
    }

    /// `st.MakeLabelSelector().Exists(key)`.
    pub fn exists(key: &str) -> Value {
        json!({"matchExpressions": [{"key": key, "operator": "Exists"}]})
    }

    /// `st.MakeLabelSelector().Label(k, v)`.
    pub fn label_sel(k: &str, v: &str) -> Value {
        json!({"matchLabels": {k: v}})
    }

    /// A cluster from objects.
    pub fn cluster(objects: Vec<Value>) -> Cluster {
        let text = json!({"apiVersion": "v1", "kind": "List", "items": objects}).to_string();
        crate::source::file::load_str("test", &text).expect("test cluster loads")
    }

    /// A 1.30 snapshot of nodes, pods and other objects.
    pub fn snapshot(nodes: Vec<NodeB>, pods: Vec<PodB>, other: Vec<Value>) -> Snapshot {
        snapshot_at(nodes, pods, other, 30)
    }

    /// A snapshot for scheduler 1.`minor`.
    pub fn snapshot_at(nodes: Vec<NodeB>, pods: Vec<PodB>, other: Vec<Value>, minor: u32) -> Snapshot {
        let mut objs: Vec<Value> = nodes.into_iter().map(|n| n.0).collect();
        objs.extend(pods.into_iter().map(|p| p.0));
        objs.extend(other);
        Snapshot::new(Arc::new(cluster(objs)), Version { minor })
    }

    /// The four nodes most upstream cases use: zone1 {node-a, node-b}, zone2 {node-x, node-y}.
    pub fn four_nodes() -> Vec<NodeB> {
        [("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"), ("node-y", "zone2")]
            .iter()
            .map(|(n, z)| node(n).label("zone", z).label("node", n))
            .collect()
    }

    /// `n` pods named `prefix<i>` with label foo on `node`.
    pub fn foo_pods(prefix: &str, node_name: &str, n: usize) -> Vec<PodB> {
        (1..=n).map(|i| pod(&format!("{prefix}{i}")).node(node_name).label("foo", "")).collect()
    }

    /// Sorted map helper for expectations.
    pub fn want<V: Clone>(items: &[(&str, V)]) -> BTreeMap<String, V> {
        items.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect()
    }
}
