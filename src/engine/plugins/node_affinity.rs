//! Port of framework/plugins/nodeaffinity/node_affinity.go (v1.30.6): nodeSelector and
//! required node affinity at PreFilter/Filter (with matchFields narrowing the node set),
//! preferred terms at PreScore/Score, and the profile's `addedAffinity`.

use std::collections::BTreeSet;
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use serde::Deserialize;
use serde_json::Value;

use super::helper::{MAX_NODE_SCORE, default_normalize_score};
use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{
    Ctx, FilterPlugin, NodeScore, Plugin, PluginSlots, PreFilterPlugin, PreScorePlugin, ScorePlugin,
};
use crate::engine::framework::status::Status;
use crate::engine::version::Version;
use crate::model::selector::{Labels, NodeSelectorMatcher, NodeTerm, Selector};

/// Reason when the pod's own selector or affinity does not match.
pub const ERR_REASON_POD: &str = "node(s) didn't match Pod's node affinity/selector";
/// Reason when the profile's addedAffinity does not match.
pub const ERR_REASON_ENFORCED: &str = "node(s) didn't match scheduler-enforced node affinity";
/// Reason when matchFields terms pin no node at all.
pub const ERR_REASON_CONFLICT: &str = "pod affinity terms conflict";

/// NodeAffinityArgs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// addedAffinity.
    #[serde(default)]
    pub added_affinity: Option<core::NodeAffinity>,
}

/// Preferred terms with weights.
#[derive(Clone, Debug, Default)]
pub struct PreferredTerms(Vec<(NodeTerm, i64)>);

impl PreferredTerms {
    fn new(terms: &[core::PreferredSchedulingTerm]) -> Self {
        PreferredTerms(
            terms
                .iter()
                .filter(|t| {
                    t.weight != 0
                        && (t.preference.match_expressions.as_ref().is_some_and(|v| !v.is_empty())
                            || t.preference.match_fields.as_ref().is_some_and(|v| !v.is_empty()))
                })
                .map(|t| (NodeTerm::new(&t.preference), i64::from(t.weight)))
                .collect(),
        )
    }

    /// Sum of the weights of matching terms.
    pub fn score(&self, labels: &Labels, name: &str) -> i64 {
        self.0
            .iter()
            .filter(|(t, _)| t.matches(labels, name))
            .map(|(_, w)| w)
            .sum()
    }
}

/// NodeAffinity.
pub struct NodeAffinity {
    added_required: Option<NodeSelectorMatcher>,
    added_preferred: Option<PreferredTerms>,
}

const PRE_FILTER_KEY: &str = "PreFilterNodeAffinity";
const PRE_SCORE_KEY: &str = "PreScoreNodeAffinity";

/// The pod's required node selector and affinity (`GetRequiredNodeAffinity`).
#[derive(Clone, Debug)]
pub struct RequiredNodeAffinity {
    label_selector: Option<Selector>,
    node_selector: Option<NodeSelectorMatcher>,
}

impl RequiredNodeAffinity {
    /// From the pod.
    pub fn of(pod: &PodInfo) -> Self {
        let spec = pod.pod.spec();
        let label_selector = spec
            .node_selector
            .as_ref()
            .filter(|m| !m.is_empty())
            .map(Selector::from_map);
        let node_selector = spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref())
            .map(NodeSelectorMatcher::new);
        RequiredNodeAffinity {
            label_selector,
            node_selector,
        }
    }

    /// Whether the node matches.
    pub fn matches(&self, labels: &Labels, name: &str) -> bool {
        if let Some(s) = &self.label_selector
            && !s.matches(labels)
        {
            return false;
        }
        self.node_selector.as_ref().is_none_or(|ns| ns.matches(labels, name))
    }
}

fn preferred_of(pod: &PodInfo) -> Option<PreferredTerms> {
    pod.pod
        .spec()
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.preferred_during_scheduling_ignored_during_execution.as_ref())
        .map(|t| PreferredTerms::new(t))
}

impl Plugin for NodeAffinity {
    fn name(&self) -> &'static str {
        names::NODE_AFFINITY
    }
}

impl PreFilterPlugin for NodeAffinity {
    fn pre_filter(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        let spec = pod.pod.spec();
        let required = spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref());
        if required.is_none() && self.added_required.is_none() && spec.node_selector.is_none() {
            return (None, Status::skip());
        }
        state.write(PRE_FILTER_KEY, RequiredNodeAffinity::of(pod));
        let Some(required) = required else {
            return (None, Status::success());
        };
        if required.node_selector_terms.is_empty() {
            return (None, Status::success());
        }
        let mut node_names: Option<BTreeSet<String>> = None;
        for t in &required.node_selector_terms {
            let mut term_names: Option<BTreeSet<String>> = None;
            for r in t.match_fields.iter().flatten() {
                if r.key == "metadata.name" && r.operator == "In" {
                    let s: BTreeSet<String> = r.values.iter().flatten().cloned().collect();
                    term_names = Some(match term_names {
                        None => s,
                        Some(prev) => prev.intersection(&s).cloned().collect(),
                    });
                }
            }
            let Some(term_names) = term_names else {
                return (None, Status::success());
            };
            node_names = Some(match node_names {
                None => term_names,
                Some(prev) => prev.union(&term_names).cloned().collect(),
            });
        }
        match node_names {
            Some(n) if n.is_empty() => (None, Status::unresolvable(ERR_REASON_CONFLICT)),
            Some(n) => (Some(n), Status::success()),
            None => (None, Status::success()),
        }
    }
}

impl FilterPlugin for NodeAffinity {
    fn filter(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        let n = &node.node;
        if let Some(a) = &self.added_required
            && !a.matches(&n.labels, &n.name)
        {
            return Status::unresolvable(ERR_REASON_ENFORCED);
        }
        let ok = match state.read::<RequiredNodeAffinity>(PRE_FILTER_KEY) {
            Some(r) => r.matches(&n.labels, &n.name),
            None => RequiredNodeAffinity::of(pod).matches(&n.labels, &n.name),
        };
        if ok {
            Status::success()
        } else {
            Status::unresolvable(ERR_REASON_POD)
        }
    }
}

impl PreScorePlugin for NodeAffinity {
    fn pre_score(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, nodes: &[&NodeInfo]) -> Status {
        if nodes.is_empty() {
            return Status::success();
        }
        let pref = preferred_of(pod);
        if pref.is_none() && self.added_preferred.is_none() {
            return Status::skip();
        }
        state.write(PRE_SCORE_KEY, pref.unwrap_or_default());
        Status::success()
    }
}

impl ScorePlugin for NodeAffinity {
    fn score(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> (i64, Status) {
        let n = &node.node;
        let mut count = self.added_preferred.as_ref().map_or(0, |p| p.score(&n.labels, &n.name));
        match state.read::<PreferredTerms>(PRE_SCORE_KEY) {
            Some(p) => count += p.score(&n.labels, &n.name),
            None => count += preferred_of(pod).map_or(0, |p| p.score(&n.labels, &n.name)),
        }
        (count, Status::success())
    }
    fn has_normalize(&self) -> bool {
        true
    }
    fn normalize(&self, _: &Ctx<'_>, _: &CycleState, _: &PodInfo, scores: &mut [NodeScore]) -> Status {
        default_normalize_score(MAX_NODE_SCORE, false, scores);
        Status::success()
    }
}

/// Registers NodeAffinity.
pub fn register(args: &Value, _: Version) -> Result<PluginSlots, String> {
    let a: Args = super::decode_args(args)?;
    let added = a.added_affinity.unwrap_or_default();
    let p = Arc::new(NodeAffinity {
        added_required: added
            .required_during_scheduling_ignored_during_execution
            .as_ref()
            .map(NodeSelectorMatcher::new),
        added_preferred: added
            .preferred_during_scheduling_ignored_during_execution
            .as_ref()
            .map(|t| PreferredTerms::new(t)),
    });
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p.clone()),
        pre_score: Some(p.clone()),
        score: Some(p),
        ..Default::default()
    })
}
