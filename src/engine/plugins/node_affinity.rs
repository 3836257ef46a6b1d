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
use crate::engine::framework::index::NodeMatcher;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{
    Ctx, FilterPlugin, NodeScore, Plugin, PluginSlots, PreFilterPlugin, PreScorePlugin, ScorePlugin, ScoreResult,
    Signing,
};
use crate::engine::framework::status::Status;
use crate::engine::framework::trace::Fact;
use crate::engine::release::Features;
use crate::model::selector::{Labels, NodeSelectorMatcher, NodeTerm};

/// Reason when the pod's own selector or affinity does not match.
pub(crate) const ERR_REASON_POD: &str = "node(s) didn't match Pod's node affinity/selector";
/// Reason when the profile's addedAffinity does not match.
pub(crate) const ERR_REASON_ENFORCED: &str = "node(s) didn't match scheduler-enforced node affinity";
/// Reason when matchFields terms pin no node at all.
pub(crate) const ERR_REASON_CONFLICT: &str = "pod affinity terms conflict";

/// NodeAffinityArgs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Args {
    /// addedAffinity.
    #[serde(default)]
    pub added_affinity: Option<core::NodeAffinity>,
}

/// Preferred terms with weights.
/// Whether a preferred term counts in Score: a weight and at least one requirement.
fn scores(t: &core::PreferredSchedulingTerm) -> bool {
    t.weight != 0
        && (t.preference.match_expressions.as_ref().is_some_and(|v| !v.is_empty())
            || t.preference.match_fields.as_ref().is_some_and(|v| !v.is_empty()))
}

/// A node selector term in words: `zone In [a, b] and metadata.name In [n1]`.
fn describe_term(t: &core::NodeSelectorTerm) -> String {
    let parts: Vec<String> = t
        .match_expressions
        .iter()
        .flatten()
        .chain(t.match_fields.iter().flatten())
        .map(|r| match r.values.as_deref() {
            Some(v) if !v.is_empty() => format!("{} {} [{}]", r.key, r.operator, v.join(", ")),
            _ => format!("{} {}", r.key, r.operator),
        })
        .collect();
    if parts.is_empty() {
        "an empty term".to_string()
    } else {
        parts.join(" and ")
    }
}

/// Required terms in words, ORed; None without terms.
fn describe_required(sel: Option<&core::NodeSelector>) -> Option<String> {
    let terms: Vec<String> = sel
        .into_iter()
        .flat_map(|s| s.node_selector_terms.iter())
        .map(|t| format!("({})", describe_term(t)))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" or "))
}

/// The preferred terms that count, in words, with their weights; None without any.
fn describe_preferred(terms: &[core::PreferredSchedulingTerm]) -> Option<String> {
    let terms: Vec<String> = terms
        .iter()
        .filter(|t| scores(t))
        .map(|t| format!("weight {}: ({})", t.weight, describe_term(&t.preference)))
        .collect();
    (!terms.is_empty()).then(|| terms.join("; "))
}

#[derive(Clone, Debug, Default)]
pub(crate) struct PreferredTerms(Vec<(NodeTerm, i64)>);

impl PreferredTerms {
    fn new(terms: &[core::PreferredSchedulingTerm]) -> Self {
        PreferredTerms(
            terms
                .iter()
                .filter(|t| scores(t))
                .map(|t| (NodeTerm::new(&t.preference), i64::from(t.weight)))
                .collect(),
        )
    }

    /// Sum of the weights of matching terms.
    pub(crate) fn score(&self, labels: &Labels, name: &str) -> i64 {
        self.0
            .iter()
            .filter(|(t, _)| t.matches(labels, name))
            .map(|(_, w)| w)
            .sum()
    }
}

/// NodeAffinity.
pub(crate) struct NodeAffinity {
    added_required: Option<NodeSelectorMatcher>,
    added_preferred: Option<PreferredTerms>,
    /// addedAffinity in words, for the trace: (required, preferred).
    added_text: (Option<String>, Option<String>),
}

static PRE_FILTER_KEY: &str = "PreFilterNodeAffinity";
static PRE_SCORE_KEY: &str = "PreScoreNodeAffinity";

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

    fn sign_pod(&self, _: &Ctx<'_>, _: &PodInfo) -> Signing {
        Signing::Signed
    }
}

impl PreFilterPlugin for NodeAffinity {
    fn pre_filter(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        let spec = pod.pod.spec();
        let required = spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref());
        if required.is_none() && self.added_required.is_none() && spec.node_selector.is_none() {
            return (None, Status::skip());
        }
        state.write(PRE_FILTER_KEY, cx.snapshot.node_matcher(pod));
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

    fn pre_filter_facts(&self, _: &Ctx<'_>, _: &CycleState, pod: &PodInfo) -> Vec<Fact> {
        self.required_facts(pod)
    }
}

impl NodeAffinity {
    /// What PreFilter reads: the nodeSelector, the required terms and addedAffinity's.
    fn required_facts(&self, pod: &PodInfo) -> Vec<Fact> {
        let spec = pod.pod.spec();
        let selector: Vec<String> = spec
            .node_selector
            .iter()
            .flatten()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let required = spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref());
        let mut facts = vec![
            Fact::list("nodeSelector", &selector, ""),
            Fact::new(
                "required node affinity",
                describe_required(required).unwrap_or_else(|| "none".into()),
            ),
        ];
        if let Some(a) = &self.added_text.0 {
            facts.push(Fact::new("addedAffinity required (profile)", a.clone()));
        }
        facts
    }
}

impl FilterPlugin for NodeAffinity {
    fn filter(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        let n = &node.node;
        if let Some(a) = &self.added_required
            && !a.matches(&n.labels, &n.name)
        {
            return Status::unresolvable(ERR_REASON_ENFORCED);
        }
        let at = cx.snapshot.indexed(node);
        let ok = match state.read::<NodeMatcher>(PRE_FILTER_KEY) {
            Some(r) => r.matches(at),
            None => cx.snapshot.node_matcher(pod).matches(at),
        };
        if ok {
            Status::success()
        } else {
            Status::unresolvable(ERR_REASON_POD)
        }
    }

    /// Reads only the node's labels and name (a snapshot's nodes never change) and the pod's terms.
    fn node_local(&self) -> bool {
        true
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

    fn pre_score_facts(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo) -> Vec<Fact> {
        let label = "preferred node affinity";
        if state.read::<PreferredTerms>(PRE_SCORE_KEY).is_none() {
            return vec![Fact::new(label, "none (the plugin skips)")];
        }
        let own = pod
            .pod
            .spec()
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|n| n.preferred_during_scheduling_ignored_during_execution.as_deref())
            .and_then(describe_preferred);
        let mut facts = vec![Fact::new(label, own.unwrap_or_else(|| "none".into()))];
        if let Some(a) = &self.added_text.1 {
            facts.push(Fact::new("addedAffinity preferred (profile)", a.clone()));
        }
        facts
    }
}

impl ScorePlugin for NodeAffinity {
    /// Reads only the node's labels and name and the pod's preferred terms.
    fn node_local(&self) -> bool {
        true
    }

    fn score(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> ScoreResult {
        let n = &node.node;
        let mut count = self.added_preferred.as_ref().map_or(0, |p| p.score(&n.labels, &n.name));
        match state.read::<PreferredTerms>(PRE_SCORE_KEY) {
            Some(p) => count += p.score(&n.labels, &n.name),
            None => count += preferred_of(pod).map_or(0, |p| p.score(&n.labels, &n.name)),
        }
        Ok(count)
    }
    fn has_normalize(&self) -> bool {
        true
    }
    fn normalize(&self, _: &Ctx<'_>, _: &CycleState, _: &PodInfo, scores: &mut [NodeScore<'_>]) -> Status {
        default_normalize_score(MAX_NODE_SCORE, false, scores);
        Status::success()
    }
}

/// Registers NodeAffinity.
pub(crate) fn register(args: &Value, _: &Features) -> Result<PluginSlots, String> {
    let a: Args = super::decode_args(args)?;
    let added = a.added_affinity.unwrap_or_default();
    let added_required = added
        .required_during_scheduling_ignored_during_execution
        .as_ref()
        .map(NodeSelectorMatcher::new);
    if let Some(i) = added_required
        .as_ref()
        .and_then(|m| m.terms.iter().position(|t| !t.is_valid()))
    {
        return Err(format!(
            "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}]: Invalid value: the term does not parse as a node selector"
        ));
    }
    let preferred = added
        .preferred_during_scheduling_ignored_during_execution
        .unwrap_or_default();
    if let Some(i) = preferred
        .iter()
        .position(|t| t.weight != 0 && !NodeTerm::new(&t.preference).is_valid())
    {
        return Err(format!(
            "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[{i}]: Invalid value: the term does not parse as a node selector"
        ));
    }
    let added_text = (
        describe_required(added.required_during_scheduling_ignored_during_execution.as_ref()),
        describe_preferred(&preferred),
    );
    let p = Arc::new(NodeAffinity {
        added_required,
        added_preferred: (!preferred.is_empty()).then(|| PreferredTerms::new(&preferred)),
        added_text,
    });
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p.clone()),
        pre_score: Some(p.clone()),
        score: Some(p),
        ..Default::default()
    })
}

#[cfg(test)]
#[allow(clippy::type_complexity)] // case tables
mod tests {
    use super::*;
    use crate::testkit::builders::*;
    use k8s_openapi::api::core::v1::Pod as K8sPod;

    fn names_set(v: &[&str]) -> Option<BTreeSet<String>> {
        Some(v.iter().map(|s| (*s).to_string()).collect())
    }

    fn added_required(terms: Vec<core::NodeSelectorTerm>) -> Value {
        serde_json::json!({ "addedAffinity": core::NodeAffinity {
            required_during_scheduling_ignored_during_execution: Some(selector(terms)),
            ..Default::default()
        }})
    }

    fn added_preferred(terms: Vec<core::PreferredSchedulingTerm>) -> Value {
        serde_json::json!({ "addedAffinity": core::NodeAffinity {
            preferred_during_scheduling_ignored_during_execution: Some(terms),
            ..Default::default()
        }})
    }

    fn name_in(n: &str) -> core::NodeSelectorRequirement {
        nsr("metadata.name", "In", &[n])
    }

    struct FilterCase {
        name: &'static str,
        pod: K8sPod,
        labels: &'static [(&'static str, &'static str)],
        node_name: &'static str,
        want: Option<&'static str>,
        want_pre_filter: Option<Status>,
        want_pre_filter_result: Option<BTreeSet<String>>,
        args: Value,
        run_pre_filter: bool,
    }

    fn case(name: &'static str, pod: K8sPod, labels: &'static [(&'static str, &'static str)]) -> FilterCase {
        FilterCase {
            name,
            pod,
            labels,
            node_name: "",
            want: None,
            want_pre_filter: None,
            want_pre_filter_result: None,
            args: Value::Null,
            run_pre_filter: true,
        }
    }

    fn req_pod(terms: Vec<core::NodeSelectorTerm>) -> K8sPod {
        pod("").required_terms(terms).obj()
    }

    fn expr(key: &str, op: &str, vals: &[&str]) -> core::NodeSelectorTerm {
        term(vec![nsr(key, op, vals)], vec![])
    }

    /// node_affinity_test.go TestNodeAffinity.
    #[test]
    fn filter_cases_from_upstream() {
        let pod_reason = Some(ERR_REASON_POD);
        let cases = vec![
            FilterCase {
                want: pod_reason,
                ..case("missing labels", pod("").node_selector(&[("foo", "bar")]).obj(), &[])
            },
            case(
                "same labels",
                pod("").node_selector(&[("foo", "bar")]).obj(),
                &[("foo", "bar")],
            ),
            case(
                "node labels are superset",
                pod("").node_selector(&[("foo", "bar")]).obj(),
                &[("foo", "bar"), ("baz", "blah")],
            ),
            FilterCase {
                want: pod_reason,
                ..case(
                    "node labels are subset",
                    pod("").node_selector(&[("foo", "bar"), ("baz", "blah")]).obj(),
                    &[("foo", "bar")],
                )
            },
            case(
                "Pod with matchExpressions using In operator that matches the existing node",
                req_pod(vec![expr("foo", "In", &["bar", "value2"])]),
                &[("foo", "bar")],
            ),
            case(
                "Pod with matchExpressions using Gt operator that matches the existing node",
                req_pod(vec![expr("kernel-version", "Gt", &["0204"])]),
                &[("kernel-version", "0206")],
            ),
            case(
                "Pod with matchExpressions using NotIn operator that matches the existing node",
                req_pod(vec![expr("mem-type", "NotIn", &["DDR", "DDR2"])]),
                &[("mem-type", "DDR3")],
            ),
            case(
                "Pod with matchExpressions using Exists operator that matches the existing node",
                req_pod(vec![expr("GPU", "Exists", &[])]),
                &[("GPU", "NVIDIA-GRID-K1")],
            ),
            FilterCase {
                want: pod_reason,
                ..case(
                    "Pod with affinity that don't match node's labels won't schedule onto the node",
                    req_pod(vec![expr("foo", "In", &["value1", "value2"])]),
                    &[("foo", "bar")],
                )
            },
            FilterCase {
                want: pod_reason,
                ..case(
                    "Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
                    req_pod(vec![term(vec![], vec![])]),
                    &[("foo", "bar")],
                )
            },
            FilterCase {
                want_pre_filter: Some(Status::skip()),
                ..case(
                    "Pod with no Affinity will schedule onto a node",
                    pod("").obj(),
                    &[("foo", "bar")],
                )
            },
            FilterCase {
                want_pre_filter: Some(Status::skip()),
                ..case(
                    "Pod with Affinity but nil NodeSelector will schedule onto a node",
                    pod("").node_affinity(core::NodeAffinity::default()).obj(),
                    &[("foo", "bar")],
                )
            },
            case(
                "Pod with multiple matchExpressions ANDed that matches the existing node",
                req_pod(vec![term(
                    vec![nsr("GPU", "Exists", &[]), nsr("GPU", "NotIn", &["AMD", "INTER"])],
                    vec![],
                )]),
                &[("GPU", "NVIDIA-GRID-K1")],
            ),
            FilterCase {
                want: pod_reason,
                ..case(
                    "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
                    req_pod(vec![term(
                        vec![nsr("GPU", "Exists", &[]), nsr("GPU", "In", &["AMD", "INTER"])],
                        vec![],
                    )]),
                    &[("GPU", "NVIDIA-GRID-K1")],
                )
            },
            case(
                "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
                req_pod(vec![
                    expr("foo", "In", &["bar", "value2"]),
                    expr("diffkey", "In", &["wrong", "value2"]),
                ]),
                &[("foo", "bar")],
            ),
            case(
                "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node",
                pod("")
                    .node_selector(&[("foo", "bar")])
                    .required_terms(vec![expr("foo", "Exists", &[])])
                    .obj(),
                &[("foo", "bar")],
            ),
            FilterCase {
                want: pod_reason,
                ..case(
                    "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, won't schedule onto the node",
                    pod("")
                        .node_selector(&[("foo", "bar")])
                        .required_terms(vec![expr("foo", "Exists", &[])])
                        .obj(),
                    &[("foo", "barrrrrr")],
                )
            },
            FilterCase {
                want: pod_reason,
                ..case(
                    "Pod with an invalid value in Affinity term won't be scheduled onto the node",
                    req_pod(vec![expr("foo", "NotIn", &["invalid value: ___@#$%^"])]),
                    &[("foo", "bar")],
                )
            },
            FilterCase {
                node_name: "node1",
                want_pre_filter_result: names_set(&["node1"]),
                ..case(
                    "Pod with matchFields using In operator that matches the existing node",
                    req_pod(vec![term(vec![], vec![name_in("node1")])]),
                    &[],
                )
            },
            FilterCase {
                node_name: "node2",
                want: pod_reason,
                want_pre_filter_result: names_set(&["node1"]),
                ..case(
                    "Pod with matchFields using In operator that does not match the existing node",
                    req_pod(vec![term(vec![], vec![name_in("node1")])]),
                    &[],
                )
            },
            FilterCase {
                node_name: "node2",
                ..case(
                    "Pod with two terms: matchFields does not match, but matchExpressions matches",
                    req_pod(vec![
                        term(vec![], vec![name_in("node1"), name_in("node2")]),
                        expr("foo", "In", &["bar"]),
                    ]),
                    &[("foo", "bar")],
                )
            },
            FilterCase {
                node_name: "node2",
                want: pod_reason,
                want_pre_filter_result: names_set(&["node1"]),
                ..case(
                    "Pod with one term: matchFields does not match, but matchExpressions matches",
                    req_pod(vec![term(vec![nsr("foo", "In", &["bar"])], vec![name_in("node1")])]),
                    &[("foo", "bar")],
                )
            },
            FilterCase {
                node_name: "node1",
                want_pre_filter_result: names_set(&["node1"]),
                ..case(
                    "Pod with one term: both matchFields and matchExpressions match",
                    req_pod(vec![term(vec![nsr("foo", "In", &["bar"])], vec![name_in("node1")])]),
                    &[("foo", "bar")],
                )
            },
            FilterCase {
                node_name: "node2",
                want: pod_reason,
                ..case(
                    "Pod with two terms: both matchFields and matchExpressions do not match",
                    req_pod(vec![
                        term(vec![], vec![name_in("node1")]),
                        expr("foo", "In", &["not-match-to-bar"]),
                    ]),
                    &[("foo", "bar")],
                )
            },
            FilterCase {
                node_name: "node2",
                want_pre_filter_result: names_set(&["node1", "node2"]),
                ..case(
                    "Pod with two terms of node.Name affinity",
                    req_pod(vec![
                        term(vec![], vec![name_in("node1")]),
                        term(vec![], vec![name_in("node2")]),
                    ]),
                    &[],
                )
            },
            FilterCase {
                node_name: "node2",
                want: pod_reason,
                want_pre_filter: Some(Status::unresolvable(ERR_REASON_CONFLICT)),
                ..case(
                    "Pod with two conflicting mach field requirements",
                    req_pod(vec![term(vec![], vec![name_in("node1"), name_in("node2")])]),
                    &[("foo", "bar")],
                )
            },
            FilterCase {
                node_name: "node2",
                args: added_required(vec![term(vec![], vec![name_in("node2")])]),
                ..case(
                    "Matches added affinity and Pod's node affinity",
                    req_pod(vec![expr("zone", "In", &["foo"])]),
                    &[("zone", "foo")],
                )
            },
            FilterCase {
                node_name: "node2",
                want: pod_reason,
                args: added_required(vec![term(vec![], vec![name_in("node2")])]),
                ..case(
                    "Matches added affinity but not Pod's node affinity",
                    req_pod(vec![expr("zone", "In", &["bar"])]),
                    &[("zone", "foo")],
                )
            },
            FilterCase {
                node_name: "node2",
                want: Some(ERR_REASON_ENFORCED),
                args: added_required(vec![expr("zone", "In", &["bar"])]),
                ..case("Doesn't match added affinity", pod("").obj(), &[("zone", "foo")])
            },
            FilterCase {
                run_pre_filter: false,
                ..case(
                    "Matches node selector correctly even if PreFilter is not called",
                    pod("").node_selector(&[("foo", "bar")]).obj(),
                    &[("foo", "bar"), ("baz", "blah")],
                )
            },
            FilterCase {
                run_pre_filter: false,
                ..case(
                    "Matches node affinity correctly even if PreFilter is not called",
                    req_pod(vec![term(
                        vec![nsr("GPU", "Exists", &[]), nsr("GPU", "NotIn", &["AMD", "INTER"])],
                        vec![],
                    )]),
                    &[("GPU", "NVIDIA-GRID-K1")],
                )
            },
        ];
        assert_eq!(cases.len(), 31);
        for c in cases {
            let n = node(c.node_name).labels(c.labels).obj();
            let snap = snapshot(vec![n], vec![], V1_30);
            let p = plugin(names::NODE_AFFINITY, c.args.clone(), V1_30);
            // Filter runs even after a rejecting or skipping PreFilter, as in the upstream test.
            let got = run_filter(&p, &snap, &c.pod, c.run_pre_filter);
            let filter = match &got.pre_filter {
                Some((_, s)) if s.is_skip() => run_filter(&p, &snap, &c.pod, false).filter,
                _ => got.filter.clone(),
            };
            if c.run_pre_filter {
                let (res, st) = got.pre_filter.clone().expect("PreFilter ran");
                assert_eq!(
                    st,
                    c.want_pre_filter.clone().unwrap_or_default(),
                    "{} (PreFilter status)",
                    c.name
                );
                assert_eq!(res, c.want_pre_filter_result, "{} (PreFilter result)", c.name);
            }
            let want = c.want.map_or_else(Status::success, Status::unresolvable);
            assert_eq!(filter[0].1, want, "{}", c.name);
        }
    }

    fn pref(weight: i32, reqs: Vec<core::NodeSelectorRequirement>) -> core::PreferredSchedulingTerm {
        preferred(weight, term(reqs, vec![]))
    }

    /// node_affinity_test.go TestNodeAffinityPriority: PreScore, Score, NormalizeScore.
    #[test]
    fn score_cases_from_upstream() {
        let label1: &[(&str, &str)] = &[("foo", "bar")];
        let label2: &[(&str, &str)] = &[("key", "value")];
        let label3: &[(&str, &str)] = &[("az", "az1")];
        let label4: &[(&str, &str)] = &[("abc", "az11"), ("def", "az22")];
        let label5: &[(&str, &str)] = &[("foo", "bar"), ("key", "value"), ("az", "az1")];
        let affinity1 = || vec![pref(2, vec![nsr("foo", "In", &["bar"])])];
        let affinity2 = || {
            vec![
                pref(2, vec![nsr("foo", "In", &["bar"])]),
                pref(4, vec![nsr("key", "In", &["value"])]),
                pref(
                    5,
                    vec![
                        nsr("foo", "In", &["bar"]),
                        nsr("key", "In", &["value"]),
                        nsr("az", "In", &["az1"]),
                    ],
                ),
            ]
        };
        type Nodes<'a> = Vec<(&'static str, &'a [(&'a str, &'a str)])>;
        let cases: Vec<(&str, K8sPod, Nodes<'_>, Vec<(&str, i64)>, Value, bool)> = vec![
            (
                "no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero",
                pod("").preferred_terms(affinity1()).obj(),
                vec![("node1", label4), ("node2", label2), ("node3", label3)],
                vec![("node1", 0), ("node2", 0), ("node3", 0)],
                Value::Null,
                true,
            ),
            (
                "only node1 matches the preferred scheduling requirements of pod",
                pod("").preferred_terms(affinity1()).obj(),
                vec![("node1", label1), ("node2", label2), ("node3", label3)],
                vec![("node1", 100), ("node2", 0), ("node3", 0)],
                Value::Null,
                true,
            ),
            (
                "all nodes matches the preferred scheduling requirements of pod but with different priorities ",
                pod("").preferred_terms(affinity2()).obj(),
                vec![("node1", label1), ("node5", label5), ("node2", label2)],
                vec![("node1", 18), ("node5", 100), ("node2", 36)],
                Value::Null,
                true,
            ),
            (
                "added affinity",
                pod("").obj(),
                vec![("node1", label1), ("node2", label2)],
                vec![("node1", 100), ("node2", 0)],
                added_preferred(affinity1()),
                true,
            ),
            (
                "added affinity and pod has default affinity",
                pod("").preferred_terms(affinity1()).obj(),
                vec![("node1", label1), ("node2", label2), ("node3", label5)],
                vec![("node1", 40), ("node2", 60), ("node3", 100)],
                added_preferred(vec![pref(3, vec![nsr("key", "In", &["value"])])]),
                true,
            ),
            (
                "calculate the priorities correctly even if PreScore is not called",
                pod("").preferred_terms(affinity2()).obj(),
                vec![("node1", label1), ("node5", label5), ("node2", label2)],
                vec![("node1", 18), ("node5", 100), ("node2", 36)],
                Value::Null,
                false,
            ),
        ];
        for (name, p, nodes, want, args, run_pre_score) in cases {
            let snap = snapshot(
                nodes.iter().map(|(n, l)| node(n).labels(l).obj()).collect(),
                vec![],
                V1_30,
            );
            let got = run_score(&plugin(names::NODE_AFFINITY, args, V1_30), &snap, &p, run_pre_score);
            if run_pre_score {
                assert_eq!(got.pre_score, Some(Status::success()), "{name}");
            }
            for (node_name, score) in want {
                let i = snap.node_index(node_name).expect("node");
                assert_eq!(got.normalized[i], score, "{name}: {node_name}");
            }
        }
    }

    /// "all nodes are same priority as NodeAffinity is nil": since PreScore learnt to Skip,
    /// such a pod is not scored at all; without PreScore every node scores 0.
    #[test]
    fn pod_without_preferences_is_skipped_at_pre_score() {
        let snap = snapshot(
            vec![
                node("node1").label("foo", "bar").obj(),
                node("node2").label("key", "value").obj(),
                node("node3").label("az", "az1").obj(),
            ],
            vec![],
            V1_30,
        );
        let p = plugin(names::NODE_AFFINITY, Value::Null, V1_30);
        let got = run_score(&p, &snap, &pod("").obj(), true);
        assert_eq!(got.pre_score, Some(Status::skip()));
        assert_eq!(run_score(&p, &snap, &pod("").obj(), false).normalized, vec![0, 0, 0]);
    }

    /// component-helpers nodeaffinity_test.go TestPodMatchesNodeSelectorAndAffinityTerms, on
    /// the snapshot index's `NodeMatcher` (nodeSelector and required node affinity together).
    #[test]
    fn required_node_affinity_cases_from_component_helpers() {
        type L = &'static [(&'static str, &'static str)];
        let gpu_and = |op: &str, vals: &[&str]| {
            req_pod(vec![term(
                vec![nsr("GPU", "Exists", &[]), nsr("GPU", op, vals)],
                vec![],
            )])
        };
        let cases: Vec<(&str, K8sPod, L, &str, bool)> = vec![
            ("no selector", pod("").obj(), &[], "", true),
            (
                "missing labels",
                pod("").node_selector(&[("foo", "bar")]).obj(),
                &[],
                "",
                false,
            ),
            (
                "same labels",
                pod("").node_selector(&[("foo", "bar")]).obj(),
                &[("foo", "bar")],
                "",
                true,
            ),
            (
                "node labels are superset",
                pod("").node_selector(&[("foo", "bar")]).obj(),
                &[("foo", "bar"), ("baz", "blah")],
                "",
                true,
            ),
            (
                "node labels are subset",
                pod("").node_selector(&[("foo", "bar"), ("baz", "blah")]).obj(),
                &[("foo", "bar")],
                "",
                false,
            ),
            (
                "Pod with matchExpressions using In operator that matches the existing node",
                req_pod(vec![expr("foo", "In", &["bar", "value2"])]),
                &[("foo", "bar")],
                "",
                true,
            ),
            (
                "Pod with matchExpressions using Gt operator that matches the existing node",
                req_pod(vec![expr("kernel-version", "Gt", &["0204"])]),
                &[("kernel-version", "0206")],
                "",
                true,
            ),
            (
                "Pod with matchExpressions using NotIn operator that matches the existing node",
                req_pod(vec![expr("mem-type", "NotIn", &["DDR", "DDR2"])]),
                &[("mem-type", "DDR3")],
                "",
                true,
            ),
            (
                "Pod with matchExpressions using Exists operator that matches the existing node",
                req_pod(vec![expr("GPU", "Exists", &[])]),
                &[("GPU", "NVIDIA-GRID-K1")],
                "",
                true,
            ),
            (
                "Pod with affinity that don't match node's labels won't schedule onto the node",
                req_pod(vec![expr("foo", "In", &["value1", "value2"])]),
                &[("foo", "bar")],
                "",
                false,
            ),
            (
                "Pod with a nil []NodeSelectorTerm in affinity, can't match the node's labels and won't schedule onto the node",
                req_pod(vec![]),
                &[("foo", "bar")],
                "",
                false,
            ),
            (
                "Pod with an empty []NodeSelectorTerm in affinity, can't match the node's labels and won't schedule onto the node",
                req_pod(vec![]),
                &[("foo", "bar")],
                "",
                false,
            ),
            (
                "Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
                req_pod(vec![term(vec![], vec![])]),
                &[("foo", "bar")],
                "",
                false,
            ),
            (
                "Pod with no Affinity will schedule onto a node",
                pod("").obj(),
                &[("foo", "bar")],
                "",
                true,
            ),
            (
                "Pod with Affinity but nil NodeSelector will schedule onto a node",
                pod("").node_affinity(core::NodeAffinity::default()).obj(),
                &[("foo", "bar")],
                "",
                true,
            ),
            (
                "Pod with multiple matchExpressions ANDed that matches the existing node",
                gpu_and("NotIn", &["AMD", "INTER"]),
                &[("GPU", "NVIDIA-GRID-K1")],
                "",
                true,
            ),
            (
                "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
                gpu_and("In", &["AMD", "INTER"]),
                &[("GPU", "NVIDIA-GRID-K1")],
                "",
                false,
            ),
            (
                "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
                req_pod(vec![
                    expr("foo", "In", &["bar", "value2"]),
                    expr("diffkey", "In", &["wrong", "value2"]),
                ]),
                &[("foo", "bar")],
                "",
                true,
            ),
            (
                "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node",
                pod("")
                    .node_selector(&[("foo", "bar")])
                    .required_terms(vec![expr("foo", "Exists", &[])])
                    .obj(),
                &[("foo", "bar")],
                "",
                true,
            ),
            (
                "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, won't schedule onto the node",
                pod("")
                    .node_selector(&[("foo", "bar")])
                    .required_terms(vec![expr("foo", "Exists", &[])])
                    .obj(),
                &[("foo", "barrrrrr")],
                "",
                false,
            ),
            (
                "Pod with an invalid value in Affinity term won't be scheduled onto the node",
                req_pod(vec![expr("foo", "NotIn", &["invalid value: ___@#$%^"])]),
                &[("foo", "bar")],
                "",
                false,
            ),
            (
                "Pod with matchFields using In operator that matches the existing node",
                req_pod(vec![term(vec![], vec![name_in("node_1")])]),
                &[],
                "node_1",
                true,
            ),
            (
                "Pod with matchFields using In operator that does not match the existing node",
                req_pod(vec![term(vec![], vec![name_in("node_1")])]),
                &[],
                "node_2",
                false,
            ),
            (
                "Pod with two terms: matchFields does not match, but matchExpressions matches",
                req_pod(vec![term(vec![], vec![name_in("node_1")]), expr("foo", "In", &["bar"])]),
                &[("foo", "bar")],
                "node_2",
                true,
            ),
            (
                "Pod with one term: matchFields does not match, but matchExpressions matches",
                req_pod(vec![term(vec![nsr("foo", "In", &["bar"])], vec![name_in("node_1")])]),
                &[("foo", "bar")],
                "node_2",
                false,
            ),
            (
                "Pod with one term: both matchFields and matchExpressions match",
                req_pod(vec![term(vec![nsr("foo", "In", &["bar"])], vec![name_in("node_1")])]),
                &[("foo", "bar")],
                "node_1",
                true,
            ),
            (
                "Pod with two terms: both matchFields and matchExpressions do not match",
                req_pod(vec![
                    term(vec![], vec![name_in("node_1")]),
                    expr("foo", "In", &["not-match-to-bar"]),
                ]),
                &[("foo", "bar")],
                "node_2",
                false,
            ),
        ];
        for (name, p, labels, node_name, want) in cases {
            let cols = crate::engine::framework::index::LabelColumns::default();
            let r = NodeMatcher::required(&cols, &pod_info(&p, V1_30).pod);
            let labels: Labels = labels
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect();
            assert_eq!(r.matches_labels(&labels, node_name), want, "{name}");
        }
    }

    /// component-helpers nodeaffinity_test.go TestPreferredSchedulingTermsScore (the valid cases).
    #[test]
    fn preferred_terms_score_cases_from_component_helpers() {
        let labels: Labels = [("label_1".to_string(), "label_1_val".to_string())].into();
        // "invalid field selector but no weight, error not reported"
        let zero = PreferredTerms::new(&[preferred(
            0,
            term(vec![], vec![nsr("metadata.name", "In", &["host_1", "host_2"])]),
        )]);
        assert_eq!(zero.score(&labels, "host_1"), 0);
        // "first and third term match"
        let terms = PreferredTerms::new(&[
            preferred(5, term(vec![], vec![name_in("host_1")])),
            preferred(
                7,
                term(vec![nsr("unknown_label", "In", &["unknown_label_val"])], vec![]),
            ),
            preferred(11, term(vec![nsr("label_1", "In", &["label_1_val"])], vec![])),
        ]);
        assert_eq!(terms.score(&labels, "host_1"), 16);
    }

    /// An empty addedAffinity.preferredDuringSchedulingIgnoredDuringExecution adds no terms, so
    /// PreScore still skips a pod without preferences (`len(terms) != 0` in New).
    #[test]
    fn empty_added_preferred_terms_do_not_disable_skip() {
        let snap = snapshot(vec![node("n").obj()], vec![], V1_30);
        let p = plugin(names::NODE_AFFINITY, added_preferred(vec![]), V1_30);
        assert_eq!(
            run_score(&p, &snap, &pod("").obj(), true).pre_score,
            Some(Status::skip())
        );
    }

    /// New fails on an addedAffinity that does not parse (ValidateNodeAffinityArgs).
    #[test]
    fn invalid_added_affinity_is_rejected() {
        let bad_required = added_required(vec![expr("invalid key", "In", &["x"])]);
        assert!(try_plugin(names::NODE_AFFINITY, bad_required, V1_30).is_err());
        let bad_preferred = added_preferred(vec![preferred(1, expr("k", "Gt", &["x"]))]);
        assert!(try_plugin(names::NODE_AFFINITY, bad_preferred, V1_30).is_err());
        let fine = added_required(vec![expr("zone", "In", &["a"])]);
        assert!(try_plugin(names::NODE_AFFINITY, fine, V1_30).is_ok());
    }
}
