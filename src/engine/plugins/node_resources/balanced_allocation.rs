//! Port of noderesources/balanced_allocation.go (v1.30.6; v1.33.3 and v1.36.2 where they
//! differ). 1.33+: PreScore returns Skip for a pod that requests none of the plugin's
//! resources, so the plugin does not score it. 1.36+: the score is how much the pod improves
//! the node's balance (`balanced_improvement`), not the balance with the pod.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::resource_allocation::{
    Amounts, Kind, ResourceSpec, balanced, balanced_improvement, defaulted, kinds, pod_request_list, vectors,
};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{
    Ctx, Plugin, PluginSlots, PreScorePlugin, ScorePlugin, ScoreResult, Signing, score_each,
};
use crate::engine::framework::status::Status;
use crate::engine::framework::trace::Fact;
use crate::engine::plugins::names;
use crate::engine::release::{Change, Features};

/// NodeResourcesBalancedAllocationArgs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Args {
    /// Resources and weights.
    #[serde(default)]
    pub resources: Vec<ResourceSpec>,
}

/// NodeResourcesBalancedAllocation.
pub(crate) struct BalancedAllocation {
    resources: Vec<ResourceSpec>,
    /// How each of `resources` is read off a node.
    kinds: Vec<Kind>,
    /// PreScore skips best-effort pods ([`Change::BalancedAllocationSkipsBestEffort`]).
    skips_best_effort: bool,
    /// The 1.36 scorer ([`Change::BalancedAllocationScoresImprovement`]).
    scores_improvement: bool,
    /// DRAExtendedResource (the signature, opportunistic batching).
    dra_extended_resources: bool,
    /// [`Change::SignatureRefusedOnlyForDraBackedRequests`].
    signature_checks_dra_use: bool,
}

static PRE_SCORE_KEY: &str = "PreScoreNodeResourcesBalancedAllocation";

impl Plugin for BalancedAllocation {
    fn name(&self) -> &'static str {
        names::NODE_RESOURCES_BALANCED_ALLOCATION
    }

    fn sign_pod(&self, cx: &Ctx<'_>, pod: &PodInfo) -> Signing {
        super::sign_resources(cx, pod, self.dra_extended_resources, self.signature_checks_dra_use)
    }
}

impl PreScorePlugin for BalancedAllocation {
    fn pre_score(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, _: &[&NodeInfo]) -> Status {
        let reqs = pod_request_list(pod, &self.resources, true);
        if self.skips_best_effort && reqs.iter().all(|r| *r == 0) {
            return Status::skip();
        }
        state.write(PRE_SCORE_KEY, reqs);
        Status::success()
    }

    fn pre_score_facts(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo) -> Vec<Fact> {
        let label = "requests for scoring (as requested, no defaults)";
        vec![match state.read::<Vec<i64>>(PRE_SCORE_KEY) {
            Some(reqs) => Fact::list(label, &super::fit::scored_amounts(&self.resources, reqs), ""),
            None => Fact::new(label, "none (a best-effort pod: the plugin skips)"),
        }]
    }
}

impl BalancedAllocation {
    /// The pod's requests for scoring: PreScore's, or computed when PreScore did not run; None
    /// for a best-effort pod the plugin skips (it scores 0).
    fn scoring_requests<'a>(&self, state: &'a CycleState, pod: &PodInfo) -> Option<std::borrow::Cow<'a, [i64]>> {
        match state.read::<Vec<i64>>(PRE_SCORE_KEY) {
            Some(r) => Some(r.as_slice().into()),
            None => {
                let computed = pod_request_list(pod, &self.resources, true);
                (!(self.skips_best_effort && computed.iter().all(|x| *x == 0))).then_some(computed.into())
            }
        }
    }

    /// The node's score for a pod requesting `reqs`.
    #[inline]
    fn score_with(&self, reqs: &[i64], node: &NodeInfo) -> i64 {
        let (requested, allocatable) = vectors(node, &self.resources, &self.kinds, reqs, true);
        if !self.scores_improvement {
            return balanced(&requested, &allocatable);
        }
        // the node's usage without the pod (0 where `vectors` skipped the resource)
        let mut allocated: Amounts = requested.clone();
        for ((used, alloc), req) in allocated.iter_mut().zip(&allocatable).zip(reqs) {
            *used = if *alloc == 0 { 0 } else { used.wrapping_sub(*req) };
        }
        balanced_improvement(&requested, &allocated, &allocatable)
    }
}

impl ScorePlugin for BalancedAllocation {
    /// Reads only the node's requested and allocatable resources and the pod's requests.
    fn node_local(&self) -> bool {
        true
    }

    fn score(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> ScoreResult {
        Ok(self
            .scoring_requests(state, pod)
            .map_or(0, |reqs| self.score_with(&reqs, node)))
    }

    fn score_nodes(
        &self,
        _: &Ctx<'_>,
        state: &CycleState,
        pod: &PodInfo,
        nodes: &[&NodeInfo],
        out: &mut [i64],
    ) -> Result<(), Box<Status>> {
        // the requests read once for the piece
        let Some(reqs) = self.scoring_requests(state, pod) else {
            out.fill(0);
            return Ok(());
        };
        score_each(nodes, out, |node| self.score_with(&reqs, node))
    }
}

/// Registers NodeResourcesBalancedAllocation.
pub(crate) fn register(args: &Value, features: &Features) -> Result<PluginSlots, String> {
    let a: Args = crate::engine::plugins::decode_args(args)?;
    let resources = defaulted(a.resources);
    // ValidateNodeResourcesBalancedAllocationArgs: no duplicates, every weight exactly 1.
    let mut errs = Vec::new();
    for (i, r) in resources.iter().enumerate() {
        if resources[..i].iter().any(|x| x.name == r.name) {
            errs.push(format!("resources[{i}].name: Duplicate value: {:?}", r.name));
        }
        if r.weight != 1 {
            errs.push(format!("resources[{i}].weight: Invalid value: {}: must be 1", r.weight));
        }
    }
    match errs.len() {
        0 => {}
        1 => return Err(errs.remove(0)),
        _ => return Err(format!("[{}]", errs.join(", "))),
    }
    let p = Arc::new(BalancedAllocation {
        kinds: kinds(&resources),
        resources,
        skips_best_effort: features.has(Change::BalancedAllocationSkipsBestEffort),
        scores_improvement: features.has(Change::BalancedAllocationScoresImprovement),
        dra_extended_resources: features.on(crate::engine::release::Gate::DRAExtendedResource),
        signature_checks_dra_use: features.has(Change::SignatureRefusedOnlyForDraBackedRequests),
    });
    Ok(PluginSlots {
        pre_score: Some(p.clone()),
        score: Some(p),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Release;
    use crate::testkit::builders::*;
    use k8s_openapi::api::core::v1 as core;
    use serde_json::json;

    /// balanced_allocation_test.go's pod specs.
    fn cpu_and_memory_and_gpu() -> PodBuilder {
        pod("")
            .req(&[("cpu", "1000m"), ("memory", "2000")])
            .req(&[("cpu", "2000m"), ("memory", "3000"), ("nvidia.com/gpu", "3")])
            .node("node1")
    }

    fn cpu_only(node_name: &str) -> PodBuilder {
        pod("")
            .req(&[("cpu", "1000m"), ("memory", "0")])
            .req(&[("cpu", "2000m"), ("memory", "0")])
            .node(node_name)
    }

    fn cpu_and_memory() -> PodBuilder {
        pod("")
            .req(&[("cpu", "1000m"), ("memory", "2000")])
            .req(&[("cpu", "2000m"), ("memory", "3000")])
            .node("node2")
    }

    /// test_util.go makeNode(name, milliCPU, memory, extended).
    fn make_node(name: &str, milli_cpu: i64, memory: i64, gpu: Option<i64>) -> core::Node {
        let cpu = format!("{milli_cpu}m");
        let mem = memory.to_string();
        let gpu = gpu.map(|g| g.to_string());
        let mut items = vec![("cpu", cpu.as_str()), ("memory", mem.as_str())];
        if let Some(g) = &gpu {
            items.push(("nvidia.com/gpu", g.as_str()));
        }
        node(name).resources(&items).obj()
    }

    /// balanced_allocation_test.go TestNodeResourcesBalancedAllocation (the 1.30 cases).
    #[test]
    fn balanced_allocation_cases_from_upstream() {
        let cpu_mem = json!({"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]});
        let with_gpu = json!({"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
            {"name": "nvidia.com/gpu", "weight": 1}]});
        let existing = || vec![cpu_only("node1").obj(), cpu_and_memory().obj()];
        #[allow(clippy::type_complexity)]
        let cases: Vec<(&str, core::Pod, Vec<core::Node>, Vec<core::Pod>, [i64; 2], Value, bool)> = vec![
            (
                // 1.30 has no best-effort Skip at PreScore: both fractions are 0, std 0.
                "nothing scheduled, nothing requested",
                pod("p").obj(),
                vec![
                    make_node("node1", 4000, 10000, None),
                    make_node("node2", 4000, 10000, None),
                ],
                vec![],
                [100, 100],
                cpu_mem.clone(),
                true,
            ),
            (
                "nothing scheduled, resources requested, differently sized nodes",
                cpu_and_memory().obj(),
                vec![
                    make_node("node1", 4000, 10000, None),
                    make_node("node2", 6000, 10000, None),
                ],
                vec![],
                [87, 100],
                cpu_mem.clone(),
                true,
            ),
            (
                "resources requested, pods scheduled with resources",
                cpu_and_memory().obj(),
                vec![
                    make_node("node1", 10000, 20000, None),
                    make_node("node2", 10000, 20000, None),
                ],
                existing(),
                [82, 95],
                cpu_mem.clone(),
                true,
            ),
            (
                "resources requested, pods scheduled with resources, differently sized nodes",
                cpu_and_memory().obj(),
                vec![
                    make_node("node1", 10000, 20000, None),
                    make_node("node2", 10000, 50000, None),
                ],
                existing(),
                [82, 80],
                cpu_mem.clone(),
                true,
            ),
            (
                "requested resources at node capacity",
                cpu_only("node1").obj(),
                vec![
                    make_node("node1", 6000, 10000, None),
                    make_node("node2", 6000, 10000, None),
                ],
                existing(),
                [50, 75],
                cpu_mem.clone(),
                true,
            ),
            (
                "include scalar resource on a node for balanced resource allocation",
                pod("p").req(&[("memory", "0"), ("nvidia.com/gpu", "1")]).obj(),
                vec![
                    make_node("node1", 3500, 40000, Some(8)),
                    make_node("node2", 3500, 40000, Some(8)),
                ],
                vec![cpu_and_memory().obj(), cpu_and_memory_and_gpu().obj()],
                [70, 65],
                with_gpu.clone(),
                true,
            ),
            (
                "node without the scalar resource should skip the scalar resource",
                cpu_and_memory().obj(),
                vec![
                    make_node("node1", 3500, 40000, Some(8)),
                    make_node("node2", 3500, 40000, None),
                ],
                vec![],
                [63, 63],
                with_gpu,
                true,
            ),
            (
                "resources requested, pods scheduled with resources if PreScore not called",
                cpu_and_memory().obj(),
                vec![
                    make_node("node1", 10000, 20000, None),
                    make_node("node2", 10000, 20000, None),
                ],
                existing(),
                [82, 95],
                cpu_mem,
                false,
            ),
        ];
        for (name, p, nodes, existing, want, args, run_pre_score) in cases {
            let snap = snapshot(nodes, existing, V1_30);
            let got = run_score(
                &plugin(names::NODE_RESOURCES_BALANCED_ALLOCATION, args, V1_30),
                &snap,
                &p,
                run_pre_score,
            );
            if run_pre_score {
                assert_eq!(got.pre_score, Some(Status::success()), "{name}");
            }
            assert_eq!(got.raw, want, "{name}");
        }
    }

    /// balanced_allocation_test.go (1.33+) "nothing scheduled, nothing requested, skip in
    /// PreScore": a best-effort pod makes PreScore return Skip; with PreScore not run, Score
    /// gives 0. 1.30-1.32 score it (100 on both nodes, see the 1.30 table).
    #[test]
    fn best_effort_pod_skips_from_1_33() {
        let args = json!({"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]});
        let nodes = || {
            vec![
                make_node("node1", 4000, 10000, None),
                make_node("node2", 4000, 10000, None),
            ]
        };
        for minor in [30, 32] {
            let v = Release::at(minor);
            let snap = snapshot(nodes(), vec![], v);
            let pl = plugin(names::NODE_RESOURCES_BALANCED_ALLOCATION, args.clone(), v);
            let got = run_score(&pl, &snap, &pod("p").obj(), true);
            assert_eq!(got.pre_score, Some(Status::success()), "1.{minor}");
            assert_eq!(got.raw, vec![100, 100], "1.{minor}");
        }
        for minor in [33, 34] {
            let v = Release::at(minor);
            let snap = snapshot(nodes(), vec![], v);
            let pl = plugin(names::NODE_RESOURCES_BALANCED_ALLOCATION, args.clone(), v);
            let got = run_score(&pl, &snap, &pod("p").obj(), true);
            assert_eq!(got.pre_score, Some(Status::skip()), "1.{minor}");
            assert_eq!(
                run_score(&pl, &snap, &pod("p").obj(), false).raw,
                vec![0, 0],
                "1.{minor}"
            );
            // A pod with requests is still scored.
            let got = run_score(&pl, &snap, &cpu_and_memory().obj(), true);
            assert_eq!(got.pre_score, Some(Status::success()), "1.{minor}");
        }
    }

    /// ValidateNodeResourcesBalancedAllocationArgs: weight must be 1, names unique.
    #[test]
    fn args_validation() {
        let err = |v: Value| try_plugin(names::NODE_RESOURCES_BALANCED_ALLOCATION, v, V1_30).err();
        assert_eq!(
            err(json!({"resources": [{"name": "cpu", "weight": 2}]})).as_deref(),
            Some("resources[0].weight: Invalid value: 2: must be 1")
        );
        assert_eq!(
            err(json!({"resources": [{"name": "cpu"}, {"name": "cpu"}]})).as_deref(),
            Some("resources[1].name: Duplicate value: \"cpu\"")
        );
        assert_eq!(err(json!({"resources": [{"name": "cpu", "weight": 0}]})), None);
    }
}
