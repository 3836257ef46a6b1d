//! Port of framework/plugins/tainttoleration/taint_toleration.go (v1.30.6, with the 1.34
//! reason text, which no longer names the taint, keyed by version).

use std::sync::Arc;

use serde_json::Value;

use super::helper::{MAX_NODE_SCORE, default_normalize_score, find_untolerated_taint};
use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{
    Ctx, FilterPlugin, NodeScore, Plugin, PluginSlots, PreScorePlugin, ScorePlugin, ScoreResult, Signing, score_each,
};
use crate::engine::framework::status::Status;
use crate::engine::framework::trace::Fact;
use crate::engine::release::{Change, Features, Gate};
use crate::model::Toleration;

/// TaintToleration.
pub(crate) struct TaintToleration {
    /// The reason names the first untolerated taint (before [`Change::TaintReasonWithoutTaint`]).
    reason_names_taint: bool,
    /// Tolerations may use Lt and Gt (TaintTolerationComparisonOperators).
    comparison_operators: bool,
}

static PRE_SCORE_KEY: &str = "PreScoreTaintToleration";

#[derive(Clone)]
struct PreScoreState {
    tolerations_prefer_no_schedule: Vec<Toleration>,
}

/// A toleration in words: `key=value:Effect`, `key:Effect` for Exists (`*` for every key),
/// `key Lt 5` for the comparison operators.
fn describe(t: &Toleration) -> String {
    let mut s = match t.operator.as_str() {
        "Exists" if t.key.is_empty() => "*".to_string(),
        "Exists" => t.key.clone(),
        "" | "Equal" => format!("{}={}", t.key, t.value),
        op => format!("{} {op} {}", t.key, t.value),
    };
    if !t.effect.is_empty() {
        s.push(':');
        s.push_str(&t.effect);
    }
    s
}

impl Plugin for TaintToleration {
    fn name(&self) -> &'static str {
        names::TAINT_TOLERATION
    }

    fn sign_pod(&self, _: &Ctx<'_>, _: &PodInfo) -> Signing {
        Signing::Signed
    }
}

impl FilterPlugin for TaintToleration {
    fn filter(&self, _: &Ctx<'_>, _: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        let t = find_untolerated_taint(
            &node.node.taints,
            &pod.pod.tolerations,
            self.comparison_operators,
            |t| t.effect == "NoSchedule" || t.effect == "NoExecute",
        );
        match t {
            None => Status::success(),
            Some(t) if self.reason_names_taint => {
                Status::unresolvable(format!("node(s) had untolerated taint {{{}: {}}}", t.key, t.value))
            }
            Some(_) => Status::unresolvable("node(s) had untolerated taint(s)"),
        }
    }

    /// Reads only the node's taints and the pod's tolerations.
    fn node_local(&self) -> bool {
        true
    }
}

impl PreScorePlugin for TaintToleration {
    fn pre_score(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, _: &[&NodeInfo]) -> Status {
        let tolerations_prefer_no_schedule = pod
            .pod
            .tolerations
            .iter()
            .filter(|t| t.effect.is_empty() || t.effect == "PreferNoSchedule")
            .cloned()
            .collect();
        state.write(
            PRE_SCORE_KEY,
            PreScoreState {
                tolerations_prefer_no_schedule,
            },
        );
        Status::success()
    }

    fn pre_score_facts(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo) -> Vec<Fact> {
        let all: Vec<String> = pod.pod.tolerations.iter().map(describe).collect();
        let scored: Vec<String> = state
            .read::<PreScoreState>(PRE_SCORE_KEY)
            .into_iter()
            .flat_map(|s| s.tolerations_prefer_no_schedule.iter())
            .map(describe)
            .collect();
        vec![
            Fact::list("tolerations", &all, ""),
            Fact::list("tolerations of PreferNoSchedule taints (scoring)", &scored, ""),
        ]
    }
}

impl TaintToleration {
    /// PreScore's state, or Score's error without it.
    fn pre_score_state<'a>(&self, state: &'a CycleState) -> Result<&'a PreScoreState, Box<Status>> {
        state.read::<PreScoreState>(PRE_SCORE_KEY).ok_or_else(|| {
            Box::new(Status::error(
                "reading \"PreScoreTaintToleration\" from cycleState: not found",
            ))
        })
    }

    /// The node's PreferNoSchedule taints the pod does not tolerate.
    #[inline]
    fn score_with(&self, s: &PreScoreState, node: &NodeInfo) -> i64 {
        node.node
            .taints
            .iter()
            .filter(|t| t.effect == "PreferNoSchedule")
            .filter(|t| !Toleration::any_tolerates(&s.tolerations_prefer_no_schedule, t, self.comparison_operators))
            .count() as i64
    }
}

impl ScorePlugin for TaintToleration {
    /// Reads only the node's taints and the pod's tolerations.
    fn node_local(&self) -> bool {
        true
    }

    fn score(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> ScoreResult {
        Ok(self.score_with(self.pre_score_state(state)?, node))
    }

    fn score_nodes(
        &self,
        _: &Ctx<'_>,
        state: &CycleState,
        _: &PodInfo,
        nodes: &[&NodeInfo],
        out: &mut [i64],
    ) -> Result<(), Box<Status>> {
        if nodes.is_empty() {
            return Ok(());
        }
        // the state read once for the piece
        let s = self.pre_score_state(state)?;
        score_each(nodes, out, |node| self.score_with(s, node))
    }

    fn has_normalize(&self) -> bool {
        true
    }
    fn normalize(&self, _: &Ctx<'_>, _: &CycleState, _: &PodInfo, scores: &mut [NodeScore<'_>]) -> Status {
        default_normalize_score(MAX_NODE_SCORE, true, scores);
        Status::success()
    }
}

/// Registers TaintToleration.
pub(crate) fn register(_: &Value, features: &Features) -> Result<PluginSlots, String> {
    let p = Arc::new(TaintToleration {
        reason_names_taint: !features.has(Change::TaintReasonWithoutTaint),
        comparison_operators: features.on(Gate::TaintTolerationComparisonOperators),
    });
    Ok(PluginSlots {
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
    use crate::engine::framework::status::Code;
    use crate::testkit::builders::*;

    const NS: &str = "NoSchedule";
    const PNS: &str = "PreferNoSchedule";

    type Tol = (&'static str, &'static str, &'static str, &'static str);
    type Tnt = (&'static str, &'static str, &'static str);

    fn pod_with(tols: &[Tol]) -> k8s_openapi::api::core::v1::Pod {
        pod("pod1")
            .tolerations(tols.iter().map(|(k, o, v, e)| toleration(k, o, v, e)).collect())
            .obj()
    }

    fn node_with(name: &str, taints: &[Tnt]) -> k8s_openapi::api::core::v1::Node {
        taints.iter().fold(node(name), |b, (k, v, e)| b.taint(k, v, e)).obj()
    }

    /// taint_toleration_test.go TestTaintTolerationScore (v1.30): PreScore, Score, Normalize.
    #[test]
    fn score_cases_from_upstream() {
        let cases: &[(&str, &[Tol], &[(&str, &[Tnt])], &[i64])] = &[
            (
                "node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
                &[("foo", "Equal", "bar", PNS)],
                &[("nodeA", &[("foo", "bar", PNS)]), ("nodeB", &[("foo", "blah", PNS)])],
                &[100, 0],
            ),
            (
                "the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many tolerable taints a node has",
                &[("cpu-type", "Equal", "arm64", PNS), ("disk-type", "Equal", "ssd", PNS)],
                &[
                    ("nodeA", &[]),
                    ("nodeB", &[("cpu-type", "arm64", PNS)]),
                    ("nodeC", &[("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS)]),
                ],
                &[100, 100, 100],
            ),
            (
                "the more intolerable taints a node has, the lower score it gets.",
                &[("foo", "Equal", "bar", PNS)],
                &[
                    ("nodeA", &[]),
                    ("nodeB", &[("cpu-type", "arm64", PNS)]),
                    ("nodeC", &[("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS)]),
                ],
                &[100, 50, 0],
            ),
            (
                "only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations priority function",
                &[("cpu-type", "Equal", "arm64", NS), ("disk-type", "Equal", "ssd", NS)],
                &[
                    ("nodeA", &[]),
                    ("nodeB", &[("cpu-type", "arm64", NS)]),
                    ("nodeC", &[("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS)]),
                ],
                &[100, 100, 0],
            ),
            (
                "Default behaviour No taints and tolerations, lands on node with no taints",
                &[],
                &[("nodeA", &[]), ("nodeB", &[("cpu-type", "arm64", PNS)])],
                &[100, 0],
            ),
        ];
        for version in [V1_30, V_NEWEST] {
            for (name, tols, nodes, want) in cases {
                let snap = snapshot(nodes.iter().map(|(n, t)| node_with(n, t)).collect(), vec![], version);
                let p = plugin(names::TAINT_TOLERATION, Value::Null, version);
                let got = run_score(&p, &snap, &pod_with(tols), true);
                assert_eq!(got.pre_score, Some(Status::success()), "{name}");
                assert_eq!(got.normalized, *want, "{version} {name}");
            }
        }
    }

    /// taint_toleration_test.go TestTaintTolerationFilter: the reason names the taint up to
    /// 1.33 (v1.31.8, v1.32.5, v1.33.3 read), from 1.34 (#134740 cherry-picked) it does not.
    #[test]
    fn filter_cases_from_upstream() {
        let cases: &[(&str, &[Tol], &[Tnt], Option<&str>)] = &[
            (
                "A pod having no tolerations can't be scheduled onto a node with nonempty taints",
                &[],
                &[("dedicated", "user1", NS)],
                Some("node(s) had untolerated taint {dedicated: user1}"),
            ),
            (
                "A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
                &[("dedicated", "", "user1", NS)],
                &[("dedicated", "user1", NS)],
                None,
            ),
            (
                "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
                &[("dedicated", "Equal", "user2", NS)],
                &[("dedicated", "user1", NS)],
                Some("node(s) had untolerated taint {dedicated: user1}"),
            ),
            (
                "A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node",
                &[("foo", "Exists", "", NS)],
                &[("foo", "bar", NS)],
                None,
            ),
            (
                "A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled onto the node",
                &[("dedicated", "Equal", "user2", NS), ("foo", "Exists", "", NS)],
                &[("dedicated", "user2", NS), ("foo", "bar", NS)],
                None,
            ),
            (
                "A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, can't be scheduled onto the node",
                &[("foo", "Equal", "bar", PNS)],
                &[("foo", "bar", NS)],
                Some("node(s) had untolerated taint {foo: bar}"),
            ),
            (
                "The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
                &[("foo", "Equal", "bar", "")],
                &[("foo", "bar", NS)],
                None,
            ),
            (
                "The pod has a toleration that key and value don't match the taint on the node, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
                &[("dedicated", "Equal", "user2", NS)],
                &[("dedicated", "user1", PNS)],
                None,
            ),
            (
                "The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
                &[],
                &[("dedicated", "user1", PNS)],
                None,
            ),
        ];
        for version in [V1_30, rel(31), rel(33), V_NEWEST] {
            for (name, tols, taints, want) in cases {
                let snap = snapshot(vec![node_with("nodeA", taints)], vec![], version);
                let p = plugin(names::TAINT_TOLERATION, Value::Null, version);
                let got = run_filter(&p, &snap, &pod_with(tols), true);
                let want = match want {
                    None => Status::success(),
                    Some(m) if !Features::new(version).has(Change::TaintReasonWithoutTaint) => Status::unresolvable(*m),
                    Some(_) => Status::unresolvable("node(s) had untolerated taint(s)"),
                };
                assert_eq!(got.on("nodeA"), &want, "{version} {name}");
                assert_eq!(want.code == Code::Success, got.on("nodeA").is_success());
            }
        }
    }

    /// The reason shows up in the framework's status, stamped with the plugin, with the first
    /// untolerated NoSchedule/NoExecute taint (PreferNoSchedule ones are skipped).
    #[test]
    fn framework_reports_first_untolerated_hard_taint() {
        let n = node("n1")
            .capacity(&[("cpu", "1")])
            .taint("soft", "x", PNS)
            .taint("a", "1", "NoExecute")
            .taint("b", "2", NS)
            .obj();
        let snap = snapshot(vec![n], vec![], V1_30);
        let got = framework_filter(&default_framework(V1_30), &snap, &pod("p").obj());
        assert_eq!(
            got[0].1,
            Status::unresolvable("node(s) had untolerated taint {a: 1}").with_plugin(names::TAINT_TOLERATION)
        );
    }

    /// 1.35+ TaintTolerationComparisonOperators (alpha, off): Gt and Lt tolerate a taint whose
    /// value is above, or below, the toleration's, as decimal integers; off, they tolerate
    /// nothing (1.34 behaviour).
    #[test]
    fn comparison_operators_behind_their_gate() {
        let on = crate::engine::release::Features::with_gates(
            rel(35),
            &crate::engine::release::FeatureGates::parse("TaintTolerationComparisonOperators=true").unwrap(),
        )
        .unwrap();
        let off = crate::engine::release::Features::new(rel(35));
        let cases: &[(&str, &str, &str, bool)] = &[
            ("Gt", "5", "10", true),
            ("Gt", "5", "5", false),
            ("Lt", "5", "3", true),
            ("Lt", "5", "-3", true),
            ("Lt", "5", "03", false),
            ("Lt", "5", "+3", false),
            ("Gt", "-0", "10", false),
            ("Gt", "1", "99999999999999999999", false),
        ];
        for (op, tol, taint, want) in cases {
            let nodes = vec![node_with("nodeA", &[("limit", taint, "NoSchedule")])];
            let p = pod_with(&[("limit", op, tol, "NoSchedule")]);
            for (f, expect) in [(&on, *want), (&off, false)] {
                let snap = snapshot(nodes.clone(), vec![], f);
                let pl = plugin(names::TAINT_TOLERATION, Value::Null, f);
                let got = run_filter(&pl, &snap, &p, true);
                assert_eq!(
                    got.on("nodeA").is_success(),
                    expect,
                    "{op} {tol} vs {taint} (gate {})",
                    f.on(crate::engine::release::Gate::TaintTolerationComparisonOperators)
                );
            }
        }
    }
}
