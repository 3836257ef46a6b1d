//! Port of noderesources/fit.go (v1.30.6): the Filter that checks requests against allocatable
//! minus what is requested on the node, and the Score with the configured strategy.

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::resource_allocation::{
    ResourceSpec, ShapePoint, defaulted, least_allocated, most_allocated, pod_request_list,
    requested_to_capacity_ratio, vectors,
};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{
    Ctx, FilterPlugin, Plugin, PluginSlots, PreFilterPlugin, PreScorePlugin, ScorePlugin,
};
use crate::engine::framework::status::Status;
use crate::engine::plugins::names;
use crate::engine::version::Version;
use crate::model::resources::{Resource, is_extended_resource};

/// Scoring strategy types.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub enum StrategyType {
    /// Prefer emptier nodes.
    #[default]
    LeastAllocated,
    /// Prefer fuller nodes (bin packing).
    MostAllocated,
    /// A utilization → score shape.
    RequestedToCapacityRatio,
}

/// requestedToCapacityRatio args.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RtcrArgs {
    /// Shape points.
    #[serde(default)]
    pub shape: Vec<ShapePoint>,
}

/// scoringStrategy.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScoringStrategy {
    /// Type.
    #[serde(default, rename = "type")]
    pub kind: StrategyType,
    /// Resources and weights.
    #[serde(default)]
    pub resources: Vec<ResourceSpec>,
    /// Shape for RequestedToCapacityRatio.
    #[serde(default)]
    pub requested_to_capacity_ratio: Option<RtcrArgs>,
}

/// NodeResourcesFitArgs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// Extended resources not checked.
    #[serde(default)]
    pub ignored_resources: Vec<String>,
    /// Extended resource groups (domain prefixes) not checked.
    #[serde(default)]
    pub ignored_resource_groups: Vec<String>,
    /// Scoring strategy.
    #[serde(default)]
    pub scoring_strategy: Option<ScoringStrategy>,
}

/// NodeResourcesFit.
pub struct Fit {
    ignored_resources: HashSet<String>,
    ignored_groups: HashSet<String>,
    strategy: StrategyType,
    resources: Vec<ResourceSpec>,
    shape: Vec<ShapePoint>,
}

const PRE_FILTER_KEY: &str = "PreFilterNodeResourcesFit";
const PRE_SCORE_KEY: &str = "PreScoreNodeResourcesFit";

/// One resource the node lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InsufficientResource {
    /// Resource name.
    pub resource: String,
    /// Reason text.
    pub reason: String,
    /// Requested by the pod.
    pub requested: i64,
    /// Already used on the node.
    pub used: i64,
    /// Allocatable.
    pub capacity: i64,
}

/// `fitsRequest`.
pub fn fits_request(
    req: &Resource,
    node: &NodeInfo,
    ignored: &HashSet<String>,
    groups: &HashSet<String>,
) -> Vec<InsufficientResource> {
    let mut out = Vec::new();
    let alloc = node.allocatable();
    let allowed = alloc.allowed_pod_number;
    if node.pods.len() as i64 + 1 > allowed {
        out.push(InsufficientResource {
            resource: "pods".into(),
            reason: "Too many pods".into(),
            requested: 1,
            used: node.pods.len() as i64,
            capacity: allowed,
        });
    }
    if req.milli_cpu == 0 && req.memory == 0 && req.ephemeral_storage == 0 && req.scalar.is_empty() {
        return out;
    }
    let used = &node.requested;
    let mut check = |name: &str, want: i64, have: i64, in_use: i64| {
        if want > 0 && want > have - in_use {
            out.push(InsufficientResource {
                resource: name.into(),
                reason: format!("Insufficient {name}"),
                requested: want,
                used: in_use,
                capacity: have,
            });
        }
    };
    check("cpu", req.milli_cpu, alloc.milli_cpu, used.milli_cpu);
    check("memory", req.memory, alloc.memory, used.memory);
    check(
        "ephemeral-storage",
        req.ephemeral_storage,
        alloc.ephemeral_storage,
        used.ephemeral_storage,
    );
    for (name, q) in &req.scalar {
        if *q == 0 {
            continue;
        }
        if is_extended_resource(name) {
            let prefix = name.split('/').next().unwrap_or("");
            if ignored.contains(name) || groups.contains(prefix) {
                continue;
            }
        }
        let have = alloc.scalar.get(name).copied().unwrap_or(0);
        let in_use = used.scalar.get(name).copied().unwrap_or(0);
        if *q > have - in_use {
            out.push(InsufficientResource {
                resource: name.clone(),
                reason: format!("Insufficient {name}"),
                requested: *q,
                used: in_use,
                capacity: have,
            });
        }
    }
    out
}

impl Plugin for Fit {
    fn name(&self) -> &'static str {
        names::NODE_RESOURCES_FIT
    }
}

impl PreFilterPlugin for Fit {
    fn pre_filter(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        state.write(PRE_FILTER_KEY, pod.pod.requests.resource.clone());
        (None, Status::success())
    }
}

impl FilterPlugin for Fit {
    fn filter(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        let req = state
            .read::<Resource>(PRE_FILTER_KEY)
            .unwrap_or(&pod.pod.requests.resource);
        let insufficient = fits_request(req, node, &self.ignored_resources, &self.ignored_groups);
        if insufficient.is_empty() {
            return Status::success();
        }
        Status::new(
            crate::engine::framework::status::Code::Unschedulable,
            insufficient.into_iter().map(|i| i.reason),
        )
    }
}

impl PreScorePlugin for Fit {
    fn pre_score(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, _: &[&NodeInfo]) -> Status {
        state.write(PRE_SCORE_KEY, pod_request_list(pod, &self.resources, false));
        Status::success()
    }
}

impl ScorePlugin for Fit {
    fn score(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> (i64, Status) {
        let reqs = match state.read::<Vec<i64>>(PRE_SCORE_KEY) {
            Some(r) => r.clone(),
            None => pod_request_list(pod, &self.resources, false),
        };
        let (requested, allocatable) = vectors(node, &self.resources, &reqs, false);
        let s = match self.strategy {
            StrategyType::LeastAllocated => least_allocated(&self.resources, &requested, &allocatable),
            StrategyType::MostAllocated => most_allocated(&self.resources, &requested, &allocatable),
            StrategyType::RequestedToCapacityRatio => {
                requested_to_capacity_ratio(&self.resources, &self.shape, &requested, &allocatable)
            }
        };
        (s, Status::success())
    }
}

/// Registers NodeResourcesFit.
pub fn register(args: &Value, _: Version) -> Result<PluginSlots, String> {
    let a: Args = crate::engine::plugins::decode_args(args)?;
    let strategy = a.scoring_strategy.unwrap_or_default();
    if strategy.kind == StrategyType::RequestedToCapacityRatio
        && strategy
            .requested_to_capacity_ratio
            .as_ref()
            .is_none_or(|r| r.shape.is_empty())
    {
        return Err("scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point".into());
    }
    let p = Arc::new(Fit {
        ignored_resources: a.ignored_resources.into_iter().collect(),
        ignored_groups: a.ignored_resource_groups.into_iter().collect(),
        strategy: strategy.kind,
        resources: defaulted(strategy.resources),
        shape: strategy
            .requested_to_capacity_ratio
            .map(|r| r.shape)
            .unwrap_or_default(),
    });
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p.clone()),
        pre_score: Some(p.clone()),
        score: Some(p),
        ..Default::default()
    })
}
