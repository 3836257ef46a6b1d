//! Port of noderesources/fit.go (v1.30.6): the Filter that checks requests against allocatable
//! minus what is requested on the node, and the Score with the configured strategy.
//! 1.34+: the Filter says UnschedulableAndUnresolvable when a request alone exceeds the
//! node's allocatable.

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::resource_allocation::{
    Kind, ResourceSpec, ShapePoint, defaulted, kinds, least_allocated, most_allocated, pod_request_list,
    requested_to_capacity_ratio, vectors,
};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo, RequestsOf};
use crate::engine::framework::plugin::{
    Ctx, FilterPlugin, PlacementScorePlugin, Plugin, PluginSlots, PodGroupAssignments, PodGroupView, PreFilterPlugin,
    PreScorePlugin, ScorePlugin, ScoreResult, Signing, score_each,
};
use crate::engine::framework::status::{Code, Reason, Status};
use crate::engine::framework::trace::{Fact, amounts};
use crate::engine::plugins::names;
use crate::engine::release::{Change, Features};
use crate::model::resources::{Resource, is_extended_resource};

/// Scoring strategy types.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub(crate) enum StrategyType {
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
pub(crate) struct RtcrArgs {
    /// Shape points.
    #[serde(default)]
    pub shape: Vec<ShapePoint>,
}

/// scoringStrategy.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ScoringStrategy {
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
pub(crate) struct Args {
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
pub(crate) struct Fit {
    ignored_resources: HashSet<String>,
    ignored_groups: HashSet<String>,
    strategy: StrategyType,
    resources: Vec<ResourceSpec>,
    /// How each of `resources` is read off a node.
    kinds: Vec<Kind>,
    shape: Vec<ShapePoint>,
    /// [`Change::FitUnresolvableBeyondAllocatable`].
    unresolvable_beyond_allocatable: bool,
    /// DRAExtendedResource: extended resources a DeviceClass maps are left to
    /// DynamicResources on nodes without them.
    dra_extended_resources: bool,
    /// [`Change::SignatureRefusedOnlyForDraBackedRequests`].
    signature_checks_dra_use: bool,
}

static PRE_FILTER_KEY: &str = "PreFilterNodeResourcesFit";
static PRE_SCORE_KEY: &str = "PreScoreNodeResourcesFit";

/// One resource the node lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InsufficientResource {
    /// Resource name.
    pub resource: Reason,
    /// Reason text (fixed for the pod count, cpu, memory and ephemeral storage).
    pub reason: Reason,
    /// Requested by the pod.
    pub requested: i64,
    /// Already used on the node.
    pub used: i64,
    /// Allocatable.
    pub capacity: i64,
    /// The request alone exceeds the allocatable (1.34+ `InsufficientResource.Unresolvable`;
    /// never set for the pod count).
    pub unresolvable: bool,
}

/// `fitsRequest`; `delegated` says which extended resources DynamicResources serves on the
/// node instead (DRAExtendedResource).
pub(crate) fn fits_request(
    req: &Resource,
    node: &NodeInfo,
    ignored: &HashSet<String>,
    groups: &HashSet<String>,
    delegated: &dyn Fn(&str) -> bool,
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
            unresolvable: false,
        });
    }
    if req.milli_cpu == 0 && req.memory == 0 && req.ephemeral_storage == 0 && req.scalar.is_empty() {
        return out;
    }
    let used = &node.requested;
    let mut check = |name: &'static str, reason: &'static str, want: i64, have: i64, in_use: i64| {
        if want > 0 && want > have.wrapping_sub(in_use) {
            out.push(InsufficientResource {
                resource: name.into(),
                reason: reason.into(),
                requested: want,
                used: in_use,
                capacity: have,
                unresolvable: want > have,
            });
        }
    };
    check(
        "cpu",
        "Insufficient cpu",
        req.milli_cpu,
        alloc.milli_cpu,
        used.milli_cpu,
    );
    check("memory", "Insufficient memory", req.memory, alloc.memory, used.memory);
    check(
        "ephemeral-storage",
        "Insufficient ephemeral-storage",
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
        if delegated(name) {
            continue;
        }
        let have = alloc.scalar.get(name).copied().unwrap_or(0);
        let in_use = used.scalar.get(name).copied().unwrap_or(0);
        if *q > have.wrapping_sub(in_use) {
            out.push(InsufficientResource {
                resource: name.clone().into(),
                reason: format!("Insufficient {name}").into(),
                requested: *q,
                used: in_use,
                capacity: have,
                unresolvable: *q > have,
            });
        }
    }
    out
}

impl Plugin for Fit {
    fn name(&self) -> &'static str {
        names::NODE_RESOURCES_FIT
    }

    fn sign_pod(&self, cx: &Ctx<'_>, pod: &PodInfo) -> Signing {
        super::sign_resources(cx, pod, self.dra_extended_resources, self.signature_checks_dra_use)
    }
}

impl PreFilterPlugin for Fit {
    fn pre_filter(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        state.write(PRE_FILTER_KEY, pod.requests().resource.clone());
        (None, Status::success())
    }

    fn pre_filter_facts(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo) -> Vec<Fact> {
        let Some(req) = state.read::<Resource>(PRE_FILTER_KEY) else {
            return Vec::new();
        };
        let natives = [
            ("cpu", req.milli_cpu),
            ("memory", req.memory),
            ("ephemeral-storage", req.ephemeral_storage),
        ];
        let scalars = req.scalar.iter().map(|(k, v)| (k.as_str(), *v));
        let list = amounts(natives.into_iter().chain(scalars).filter(|(_, v)| *v != 0));
        let mut facts = vec![Fact::list("effective requests", &list, "")];
        facts.extend(requests_source(pod).map(|s| Fact::new("counted from", s)));
        facts
    }
}

/// Where the release takes the pod's requests from, when not from the containers' spec.
pub(crate) fn requests_source(pod: &PodInfo) -> Option<&'static str> {
    match pod.requests_of {
        RequestsOf::Spec => None,
        RequestsOf::Status => Some("the containers' allocated resources (in-place resize)"),
        RequestsOf::PodLevel => Some("the pod-level spec.resources (PodLevelResources)"),
        RequestsOf::PodLevelStatus => Some("the pod-level resources in the pod's status (in-place pod-level resize)"),
        RequestsOf::Own => Some("the largest of the spec's, allocated and actuated requests (in-place resize)"),
    }
}

impl FilterPlugin for Fit {
    fn filter(&self, cx: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> Status {
        let Some(req) = state.read::<Resource>(PRE_FILTER_KEY) else {
            return Status::error(format!("error reading {PRE_FILTER_KEY:?} from cycleState: not found"));
        };
        let cluster = &cx.snapshot.cluster;
        let delegated = |name: &str| {
            self.dra_extended_resources
                && crate::engine::plugins::dynamic_resources::delegated_to_dra(
                    cluster,
                    name,
                    node.allocatable().scalar.get(name).copied(),
                )
        };
        let insufficient = fits_request(req, node, &self.ignored_resources, &self.ignored_groups, &delegated);
        if insufficient.is_empty() {
            return Status::success();
        }
        let code = if self.unresolvable_beyond_allocatable && insufficient.iter().any(|i| i.unresolvable) {
            Code::UnschedulableAndUnresolvable
        } else {
            Code::Unschedulable
        };
        Status::new(code, insufficient.into_iter().map(|i| i.reason))
    }

    /// Reads only the node's requested and allocatable resources and the pod's requests,
    /// unless extended resources may be delegated to DRA (the cluster's DeviceClasses).
    fn node_local(&self) -> bool {
        !self.dra_extended_resources
    }
}

impl PreScorePlugin for Fit {
    fn pre_score(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo, _: &[&NodeInfo]) -> Status {
        state.write(PRE_SCORE_KEY, pod_request_list(pod, &self.resources, false));
        Status::success()
    }

    fn pre_score_facts(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo) -> Vec<Fact> {
        let Some(reqs) = state.read::<Vec<i64>>(PRE_SCORE_KEY) else {
            return Vec::new();
        };
        vec![
            Fact::list(
                "requests for scoring (cpu and memory defaults filled in)",
                &scored_amounts(&self.resources, reqs),
                "",
            ),
            Fact::new("scoring strategy", format!("{:?}", self.strategy)),
        ]
    }
}

/// The scored resources with the pod's request of each.
pub(crate) fn scored_amounts(resources: &[ResourceSpec], reqs: &[i64]) -> Vec<String> {
    amounts(resources.iter().map(|r| r.name.as_str()).zip(reqs.iter().copied()))
}

impl Fit {
    /// The pod's requests for scoring: PreScore's, or computed when PreScore did not run.
    fn scoring_requests<'a>(&self, state: &'a CycleState, pod: &PodInfo) -> std::borrow::Cow<'a, [i64]> {
        match state.read::<Vec<i64>>(PRE_SCORE_KEY) {
            Some(r) => r.as_slice().into(),
            None => pod_request_list(pod, &self.resources, false).into(),
        }
    }

    /// The node's score for a pod requesting `reqs`.
    #[inline]
    fn score_with(&self, reqs: &[i64], node: &NodeInfo) -> i64 {
        let (requested, allocatable) = vectors(node, &self.resources, &self.kinds, reqs, false);
        match self.strategy {
            StrategyType::LeastAllocated => least_allocated(&self.resources, &requested, &allocatable),
            StrategyType::MostAllocated => most_allocated(&self.resources, &requested, &allocatable),
            StrategyType::RequestedToCapacityRatio => {
                requested_to_capacity_ratio(&self.resources, &self.shape, &requested, &allocatable)
            }
        }
    }
}

impl ScorePlugin for Fit {
    /// Reads only the node's requested and allocatable resources and the pod's requests.
    fn node_local(&self) -> bool {
        true
    }

    fn score(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> ScoreResult {
        Ok(self.score_with(&self.scoring_requests(state, pod), node))
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
        let reqs = self.scoring_requests(state, pod);
        score_each(nodes, out, |node| self.score_with(&reqs, node))
    }
}

/// `ValidateNodeResourcesFitArgs` (apis/config/validation/validation_pluginargs.go) on the
/// defaulted args: the errors as field.ErrorList prints them.
fn validate(a: &Args, strategy: &ScoringStrategy, resources: &[ResourceSpec], features: &Features) -> Vec<String> {
    use crate::model::selector::is_qualified_name;
    let mut errs = Vec::new();
    for (i, r) in a.ignored_resources.iter().enumerate() {
        if !is_qualified_name(r) {
            errs.push(format!(
                "ignoredResources[{i}]: Invalid value: {r:?}: not a qualified name"
            ));
        }
    }
    for (i, g) in a.ignored_resource_groups.iter().enumerate() {
        if g.contains('/') {
            errs.push(format!(
                "ignoredResourceGroups[{i}]: Invalid value: {g:?}: resource group name can't contain '/'"
            ));
        }
        if !is_qualified_name(g) {
            errs.push(format!(
                "ignoredResourceGroups[{i}]: Invalid value: {g:?}: not a qualified name"
            ));
        }
    }
    errs.extend(super::resource_allocation::validate_resources(
        resources,
        "scoringStrategy.resources",
    ));
    let rtcr = strategy.kind == StrategyType::RequestedToCapacityRatio;
    if features.has(Change::FitArgsRequestedToCapacityRatioChecked) {
        const PATH: &str = "scoringStrategy.requestedToCapacityRatio";
        match (&strategy.requested_to_capacity_ratio, rtcr) {
            (None, true) => errs.push(format!(
                "{PATH}: Required value: must be specified when type is RequestedToCapacityRatio"
            )),
            (Some(r), true) => errs.extend(super::resource_allocation::validate_shape(
                &r.shape,
                &format!("{PATH}.shape"),
                features,
            )),
            (Some(_), false) => errs.push(format!(
                "{PATH}: Forbidden: must be nil when type is not RequestedToCapacityRatio"
            )),
            (None, false) => {}
        }
    } else if let Some(r) = &strategy.requested_to_capacity_ratio {
        errs.extend(super::resource_allocation::validate_shape(
            &r.shape,
            "scoringStrategy.shape",
            features,
        ));
    } else if rtcr {
        // Upstream 1.30-1.35 accept this and then crash in NewFit (nil shape, fixed by
        // #132120); kschedtui refuses it instead, naming the missing field.
        errs.push("scoringStrategy.shape: Required value: at least one point must be specified".into());
    }
    errs
}

/// Registers NodeResourcesFit.
pub(crate) fn register(args: &Value, features: &Features) -> Result<PluginSlots, String> {
    let a: Args = crate::engine::plugins::decode_args(args)?;
    let strategy = a.scoring_strategy.clone().unwrap_or_default();
    let resources = defaulted(strategy.resources.clone());
    let errs = validate(&a, &strategy, &resources, features);
    match errs.len() {
        0 => {}
        1 => return Err(errs[0].clone()),
        _ => return Err(format!("[{}]", errs.join(", "))),
    }
    let placement = features
        .on(crate::engine::release::Gate::TopologyAwareWorkloadScheduling)
        .then(|| {
            Arc::new(FitPlacement {
                resources: resources.clone(),
            }) as Arc<dyn PlacementScorePlugin>
        });
    let p = Arc::new(Fit {
        ignored_resources: a.ignored_resources.into_iter().collect(),
        ignored_groups: a.ignored_resource_groups.into_iter().collect(),
        strategy: strategy.kind,
        kinds: kinds(&resources),
        resources,
        shape: strategy
            .requested_to_capacity_ratio
            .map(|r| r.shape)
            .unwrap_or_default(),
        unresolvable_beyond_allocatable: features.has(Change::FitUnresolvableBeyondAllocatable),
        dra_extended_resources: features.on(crate::engine::release::Gate::DRAExtendedResource),
        signature_checks_dra_use: features.has(Change::SignatureRefusedOnlyForDraBackedRequests),
    });
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p.clone()),
        pre_score: Some(p.clone()),
        score: Some(p),
        placement_score: placement,
        ..Default::default()
    })
}

/// NodeResourcesFit's `ScorePlacement` (1.36, with TopologyAwareWorkloadScheduling): the
/// MostAllocated score of the whole placement, every node's allocatable and requests summed
/// with the requests of the members proposed in it, whatever the Score strategy (upstream
/// builds a MostAllocated scorer on the strategy's resources for it). No normalization.
struct FitPlacement {
    resources: Vec<ResourceSpec>,
}

impl Plugin for FitPlacement {
    fn name(&self) -> &'static str {
        names::NODE_RESOURCES_FIT
    }
}

impl PlacementScorePlugin for FitPlacement {
    fn score_placement(&self, cx: &Ctx<'_>, _group: &PodGroupView, a: &PodGroupAssignments<'_>) -> Result<i64, Status> {
        Ok(placement_most_allocated(cx, &self.resources, a))
    }
}

/// `resourceAllocationScorer.scorePlacement` with the MostAllocated scorer (non-zero
/// requests for cpu and memory, as a scorer without `useRequested`).
fn placement_most_allocated(cx: &Ctx<'_>, resources: &[ResourceSpec], a: &PodGroupAssignments<'_>) -> i64 {
    let n = resources.len();
    let mut requested = vec![0i64; n];
    for (pod, _) in &a.proposed {
        for (i, r) in pod_request_list(pod, resources, false).into_iter().enumerate() {
            requested[i] = requested[i].saturating_add(r);
        }
    }
    let mut allocatable = vec![0i64; n];
    for name in &a.placement.nodes {
        let Some(node) = cx.snapshot.node(name) else { continue };
        for (i, r) in resources.iter().enumerate() {
            // The node's own allocatable and requests (the group's requests only decide
            // whether an extended resource is skipped).
            let (alloc, with) = super::resource_allocation::allocatable_and_requested(
                node,
                Kind::of(&r.name),
                &r.name,
                requested[i],
                false,
            );
            if alloc == 0 {
                continue;
            }
            let allocated = with.wrapping_sub(requested[i]);
            allocatable[i] = allocatable[i].saturating_add(alloc);
            requested[i] = requested[i].saturating_add(allocated);
        }
    }
    most_allocated(resources, &requested, &allocatable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Release;
    use crate::testkit::builders::*;
    use k8s_openapi::api::core::v1 as core;

    const EXT_A: &str = "example.com/aaa";
    const EXT_B: &str = "example.com/bbb";
    const K8S_IO_A: &str = "kubernetes.io/something";
    const K8S_IO_B: &str = "subdomain.kubernetes.io/something";
    const HUGE_A: &str = "hugepages-2Mi";

    /// A `framework.Resource` literal of the upstream tests: (milliCPU, memory, ephemeral, scalars).
    type R = (i64, i64, i64, &'static [(&'static str, i64)]);

    const fn r(cpu: i64, mem: i64) -> R {
        (cpu, mem, 0, &[])
    }

    /// fit_test.go newResourcePod: one container per usage, each requesting cpu, memory, pods
    /// and ephemeral-storage explicitly (zeros included) plus the scalars.
    fn containers(usage: &[R]) -> Vec<core::Container> {
        usage
            .iter()
            .enumerate()
            .map(|(i, (cpu, mem, eph, scalars))| {
                let mut reqs = vec![
                    ("cpu".to_string(), format!("{cpu}m")),
                    ("memory".to_string(), mem.to_string()),
                    ("pods".to_string(), "0".to_string()),
                    ("ephemeral-storage".to_string(), eph.to_string()),
                ];
                reqs.extend(scalars.iter().map(|(n, q)| ((*n).to_string(), q.to_string())));
                let reqs: Vec<(&str, &str)> = reqs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                container_req(&format!("c{i}"), &reqs)
            })
            .collect()
    }

    fn res_pod(usage: &[R]) -> PodBuilder {
        containers(usage).into_iter().fold(pod("p"), PodBuilder::raw_container)
    }

    fn res_init_pod(usage: &[R], init: &[R]) -> PodBuilder {
        containers(init)
            .into_iter()
            .fold(res_pod(usage), PodBuilder::raw_init_container)
    }

    /// makeResources / makeAllocatableResources(milliCPU, memory, pods, extendedA, storage, hugePageA).
    fn make_node(cpu: i64, mem: i64, pods: i64, ext_a: i64, storage: i64, huge_a: i64) -> core::Node {
        let v = [
            ("cpu", format!("{cpu}m")),
            ("memory", mem.to_string()),
            ("pods", pods.to_string()),
            (EXT_A, ext_a.to_string()),
            ("ephemeral-storage", storage.to_string()),
            (HUGE_A, huge_a.to_string()),
        ];
        let items: Vec<(&str, &str)> = v.iter().map(|(k, v)| (*k, v.as_str())).collect();
        node("n").resources(&items).obj()
    }

    fn insufficient(resource: &str, requested: i64, used: i64, capacity: i64) -> InsufficientResource {
        let reason = if resource == "pods" {
            "Too many pods".to_string()
        } else {
            format!("Insufficient {resource}")
        };
        InsufficientResource {
            resource: resource.to_string().into(),
            reason: reason.into(),
            requested,
            used,
            capacity,
            // fit_test.go (1.34+) marks every shortage whose request alone exceeds the capacity.
            unresolvable: resource != "pods" && requested > capacity,
        }
    }

    /// Runs PreFilter + Filter and fitsRequest for one pod on node `n` holding `existing`, in
    /// 1.30 (always Unschedulable) and 1.34 (UnschedulableAndUnresolvable when a request alone
    /// exceeds the allocatable, fit_test.go TestEnoughRequests `wantStatus`).
    fn check(
        name: &str,
        node: core::Node,
        p: core::Pod,
        existing: core::Pod,
        args: Value,
        want: &[InsufficientResource],
    ) {
        for v in [V1_30, Release::at(34)] {
            let snap = snapshot(vec![node.clone()], vec![existing.clone()], v);
            let slots = plugin(names::NODE_RESOURCES_FIT, args.clone(), v);
            let got = run_filter(&slots, &snap, &p, true);
            assert_eq!(
                got.pre_filter.as_ref().map(|x| &x.1),
                Some(&Status::success()),
                "{name}"
            );
            let code = if Features::new(v).has(Change::FitUnresolvableBeyondAllocatable)
                && want.iter().any(|w| w.unresolvable)
            {
                Code::UnschedulableAndUnresolvable
            } else {
                Code::Unschedulable
            };
            let want_status = if want.is_empty() {
                Status::success()
            } else {
                Status::new(code, want.iter().map(|w| w.reason.clone()))
            };
            assert_eq!(got.on("n"), &want_status, "{name} ({v})");
        }
        let snap = snapshot(vec![node], vec![existing], V1_30);
        let a: Args = crate::engine::plugins::decode_args(&args).expect("args");
        let pi = pod_info(&p, V1_30);
        let ins = fits_request(
            &pi.pod.requests.resource,
            &snap.nodes[0],
            &a.ignored_resources.into_iter().collect(),
            &a.ignored_resource_groups.into_iter().collect(),
            &|_| false,
        );
        assert_eq!(ins, want, "{name} (insufficient resources)");
    }

    /// fit_test.go TestEnoughRequests (v1.30).
    #[test]
    fn enough_requests_cases_from_upstream() {
        let cpu = |req, used| insufficient("cpu", req, used, 10);
        let mem = |req, used| insufficient("memory", req, used, 20);
        let null = Value::Null;
        #[allow(clippy::type_complexity)]
        let cases: Vec<(&str, core::Pod, R, Value, Vec<InsufficientResource>)> = vec![
            (
                "no resources requested always fits",
                pod("p").obj(),
                r(10, 20),
                null.clone(),
                vec![],
            ),
            (
                "too many resources fails",
                res_pod(&[r(1, 1)]).obj(),
                r(10, 20),
                null.clone(),
                vec![cpu(1, 10), mem(1, 20)],
            ),
            (
                "too many resources fails due to init container cpu",
                res_init_pod(&[r(1, 1)], &[r(3, 1)]).obj(),
                r(8, 19),
                null.clone(),
                vec![cpu(3, 8)],
            ),
            (
                "too many resources fails due to highest init container cpu",
                res_init_pod(&[r(1, 1)], &[r(3, 1), r(2, 1)]).obj(),
                r(8, 19),
                null.clone(),
                vec![cpu(3, 8)],
            ),
            (
                "too many resources fails due to init container memory",
                res_init_pod(&[r(1, 1)], &[r(1, 3)]).obj(),
                r(9, 19),
                null.clone(),
                vec![mem(3, 19)],
            ),
            (
                "too many resources fails due to highest init container memory",
                res_init_pod(&[r(1, 1)], &[r(1, 3), r(1, 2)]).obj(),
                r(9, 19),
                null.clone(),
                vec![mem(3, 19)],
            ),
            (
                "init container fits because it's the max, not sum, of containers and init containers",
                res_init_pod(&[r(1, 1)], &[r(1, 1)]).obj(),
                r(9, 19),
                null.clone(),
                vec![],
            ),
            (
                "multiple init containers fit because it's the max, not sum, of containers and init containers",
                res_init_pod(&[r(1, 1)], &[r(1, 1), r(1, 1)]).obj(),
                r(9, 19),
                null.clone(),
                vec![],
            ),
            (
                "both resources fit",
                res_pod(&[r(1, 1)]).obj(),
                r(5, 5),
                null.clone(),
                vec![],
            ),
            (
                "one resource memory fits",
                res_pod(&[r(2, 1)]).obj(),
                r(9, 5),
                null.clone(),
                vec![cpu(2, 9)],
            ),
            (
                "one resource cpu fits",
                res_pod(&[r(1, 2)]).obj(),
                r(5, 19),
                null.clone(),
                vec![mem(2, 19)],
            ),
            (
                "equal edge case",
                res_pod(&[r(5, 1)]).obj(),
                r(5, 19),
                null.clone(),
                vec![],
            ),
            (
                "equal edge case for init container",
                res_init_pod(&[r(4, 1)], &[r(5, 1)]).obj(),
                r(5, 19),
                null.clone(),
                vec![],
            ),
            (
                "extended resource fits",
                res_pod(&[(0, 0, 0, &[(EXT_A, 1)])]).obj(),
                r(0, 0),
                null.clone(),
                vec![],
            ),
            (
                "extended resource fits for init container",
                res_init_pod(&[r(0, 0)], &[(0, 0, 0, &[(EXT_A, 1)])]).obj(),
                r(0, 0),
                null.clone(),
                vec![],
            ),
            (
                "extended resource capacity enforced",
                res_pod(&[(1, 1, 0, &[(EXT_A, 10)])]).obj(),
                (0, 0, 0, &[(EXT_A, 0)]),
                null.clone(),
                vec![insufficient(EXT_A, 10, 0, 5)],
            ),
            (
                "extended resource capacity enforced for init container",
                res_init_pod(&[r(0, 0)], &[(1, 1, 0, &[(EXT_A, 10)])]).obj(),
                (0, 0, 0, &[(EXT_A, 0)]),
                null.clone(),
                vec![insufficient(EXT_A, 10, 0, 5)],
            ),
            (
                "extended resource allocatable enforced",
                res_pod(&[(1, 1, 0, &[(EXT_A, 1)])]).obj(),
                (0, 0, 0, &[(EXT_A, 5)]),
                null.clone(),
                vec![insufficient(EXT_A, 1, 5, 5)],
            ),
            (
                "extended resource allocatable enforced for init container",
                res_init_pod(&[r(0, 0)], &[(1, 1, 0, &[(EXT_A, 1)])]).obj(),
                (0, 0, 0, &[(EXT_A, 5)]),
                null.clone(),
                vec![insufficient(EXT_A, 1, 5, 5)],
            ),
            (
                "extended resource allocatable enforced for multiple containers",
                res_pod(&[(1, 1, 0, &[(EXT_A, 3)]), (1, 1, 0, &[(EXT_A, 3)])]).obj(),
                (0, 0, 0, &[(EXT_A, 2)]),
                null.clone(),
                vec![insufficient(EXT_A, 6, 2, 5)],
            ),
            (
                "extended resource allocatable admits multiple init containers",
                res_init_pod(&[r(0, 0)], &[(1, 1, 0, &[(EXT_A, 3)]), (1, 1, 0, &[(EXT_A, 3)])]).obj(),
                (0, 0, 0, &[(EXT_A, 2)]),
                null.clone(),
                vec![],
            ),
            (
                "extended resource allocatable enforced for multiple init containers",
                res_init_pod(&[r(0, 0)], &[(1, 1, 0, &[(EXT_A, 6)]), (1, 1, 0, &[(EXT_A, 3)])]).obj(),
                (0, 0, 0, &[(EXT_A, 2)]),
                null.clone(),
                vec![insufficient(EXT_A, 6, 2, 5)],
            ),
            (
                "extended resource allocatable enforced for unknown resource",
                res_pod(&[(1, 1, 0, &[(EXT_B, 1)])]).obj(),
                r(0, 0),
                null.clone(),
                vec![insufficient(EXT_B, 1, 0, 0)],
            ),
            (
                "extended resource allocatable enforced for unknown resource for init container",
                res_init_pod(&[r(0, 0)], &[(1, 1, 0, &[(EXT_B, 1)])]).obj(),
                r(0, 0),
                null.clone(),
                vec![insufficient(EXT_B, 1, 0, 0)],
            ),
            (
                "kubernetes.io resource capacity enforced",
                res_pod(&[(1, 1, 0, &[(K8S_IO_A, 10)])]).obj(),
                r(0, 0),
                null.clone(),
                vec![insufficient(K8S_IO_A, 10, 0, 0)],
            ),
            (
                "kubernetes.io resource capacity enforced for init container",
                res_init_pod(&[r(0, 0)], &[(1, 1, 0, &[(K8S_IO_B, 10)])]).obj(),
                r(0, 0),
                null.clone(),
                vec![insufficient(K8S_IO_B, 10, 0, 0)],
            ),
            (
                "hugepages resource capacity enforced",
                res_pod(&[(1, 1, 0, &[(HUGE_A, 10)])]).obj(),
                (0, 0, 0, &[(HUGE_A, 0)]),
                null.clone(),
                vec![insufficient(HUGE_A, 10, 0, 5)],
            ),
            (
                "hugepages resource capacity enforced for init container",
                res_init_pod(&[r(0, 0)], &[(1, 1, 0, &[(HUGE_A, 10)])]).obj(),
                (0, 0, 0, &[(HUGE_A, 0)]),
                null.clone(),
                vec![insufficient(HUGE_A, 10, 0, 5)],
            ),
            (
                "hugepages resource allocatable enforced for multiple containers",
                res_pod(&[(1, 1, 0, &[(HUGE_A, 3)]), (1, 1, 0, &[(HUGE_A, 3)])]).obj(),
                (0, 0, 0, &[(HUGE_A, 2)]),
                null.clone(),
                vec![insufficient(HUGE_A, 6, 2, 5)],
            ),
            (
                "skip checking ignored extended resource",
                res_pod(&[(1, 1, 0, &[(EXT_B, 1)])]).obj(),
                r(0, 0),
                serde_json::json!({"ignoredResources": ["example.com/bbb"]}),
                vec![],
            ),
            (
                "resources + pod overhead fits",
                res_pod(&[r(1, 1)]).overhead(&[("cpu", "3m"), ("memory", "13")]).obj(),
                r(5, 5),
                null.clone(),
                vec![],
            ),
            (
                "requests + overhead does not fit for memory",
                res_pod(&[r(1, 1)]).overhead(&[("cpu", "1m"), ("memory", "15")]).obj(),
                r(5, 5),
                null.clone(),
                vec![mem(16, 5)],
            ),
            (
                "skip checking ignored extended resource via resource groups",
                res_pod(&[(1, 1, 0, &[(EXT_B, 1), (K8S_IO_A, 1)])]).obj(),
                r(0, 0),
                serde_json::json!({"ignoredResourceGroups": ["example.com"]}),
                vec![insufficient(K8S_IO_A, 1, 0, 0)],
            ),
            (
                "skip checking extended resource request with quantity zero via resource groups",
                res_pod(&[(1, 1, 0, &[(EXT_A, 0)])]).obj(),
                (0, 0, 0, &[(EXT_A, 6)]),
                null.clone(),
                vec![],
            ),
            (
                "skip checking resource request with quantity zero",
                res_pod(&[(0, 0, 0, &[(EXT_A, 1)])]).obj(),
                (20, 30, 0, &[(EXT_A, 1)]),
                null.clone(),
                vec![],
            ),
        ];
        assert_eq!(cases.len(), 35);
        for (name, p, existing, args, want) in cases {
            let existing = res_pod(&[existing]).node("n").obj();
            check(name, make_node(10, 20, 32, 5, 20, 5), p, existing, args, &want);
        }
    }

    /// fit_test.go TestNotEnoughRequests: a node allowing one pod already runs one.
    #[test]
    fn not_enough_requests_cases_from_upstream() {
        let cases: Vec<(&str, core::Pod, R)> = vec![
            (
                "even without specified resources, predicate fails when there's no space for additional pod",
                pod("p").obj(),
                r(10, 20),
            ),
            (
                "even if both resources fit, predicate fails when there's no space for additional pod",
                res_pod(&[r(1, 1)]).obj(),
                r(5, 5),
            ),
            (
                "even for equal edge case, predicate fails when there's no space for additional pod",
                res_pod(&[r(5, 1)]).obj(),
                r(5, 19),
            ),
            (
                "even for equal edge case, predicate fails when there's no space for additional pod due to init container",
                res_init_pod(&[r(5, 1)], &[r(5, 1)]).obj(),
                r(5, 19),
            ),
        ];
        for (name, p, existing) in cases {
            let n = node("n")
                .resources(&[("cpu", "10m"), ("memory", "20"), ("pods", "1")])
                .obj();
            let existing = res_pod(&[existing]).node("n").obj();
            check(name, n, p, existing, Value::Null, &[insufficient("pods", 1, 1, 1)]);
        }
    }

    /// fit_test.go TestStorageRequests.
    #[test]
    fn storage_requests_cases_from_upstream() {
        let cases: Vec<(&str, core::Pod, R, Vec<InsufficientResource>)> = vec![
            (
                "empty storage requested, and pod fits",
                res_pod(&[r(1, 1)]).obj(),
                r(2, 10),
                vec![],
            ),
            (
                "storage ephemeral local storage request exceeds allocatable",
                res_pod(&[(0, 0, 25, &[])]).obj(),
                r(2, 2),
                vec![insufficient("ephemeral-storage", 25, 0, 20)],
            ),
            (
                "ephemeral local storage is sufficient",
                res_init_pod(&[(0, 0, 5, &[])], &[]).obj(),
                (2, 2, 10, &[]),
                vec![],
            ),
            ("pod fits", res_pod(&[(0, 0, 10, &[])]).obj(), r(2, 2), vec![]),
        ];
        for (name, p, existing, want) in cases {
            let existing = res_pod(&[existing]).node("n").obj();
            check(name, make_node(10, 20, 32, 5, 20, 5), p, existing, Value::Null, &want);
        }
    }

    /// fit_test.go TestPreFilterDisabled: Filter without PreFilter's state is an error.
    #[test]
    fn filter_without_pre_filter_state_is_an_error() {
        let snap = snapshot(vec![node("n").obj()], vec![], V1_30);
        let got = run_filter(
            &plugin(names::NODE_RESOURCES_FIT, Value::Null, V1_30),
            &snap,
            &pod("p").obj(),
            false,
        );
        assert_eq!(
            got.on("n"),
            &Status::error("error reading \"PreFilterNodeResourcesFit\" from cycleState: not found")
        );
    }

    /// fit_test.go TestRestartableInitContainers (sidecars enabled, as in 1.30 by default).
    #[test]
    fn restartable_init_containers_are_allowed() {
        let p = pod("p")
            .container("regular")
            .raw_init_container(core::Container {
                name: "restartable-init".into(),
                restart_policy: Some("Always".into()),
                ..Default::default()
            })
            .obj();
        let n = node("n")
            .resources(&[("cpu", "0"), ("memory", "0"), ("pods", "1")])
            .obj();
        let snap = snapshot(vec![n], vec![], V1_30);
        let got = run_filter(&plugin(names::NODE_RESOURCES_FIT, Value::Null, V1_30), &snap, &p, true);
        assert_eq!(got.pre_filter.as_ref().map(|x| &x.1), Some(&Status::success()));
        assert_eq!(got.on("n"), &Status::success());
    }

    fn strategy(kind: &str, resources: Value, shape: Option<Value>) -> Value {
        let mut s = serde_json::json!({"type": kind, "resources": resources});
        if let Some(shape) = shape {
            s["requestedToCapacityRatio"] = serde_json::json!({ "shape": shape });
        }
        serde_json::json!({ "scoringStrategy": s })
    }

    fn default_resources() -> Value {
        serde_json::json!([{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}])
    }

    /// fit_test.go TestFitScore.
    #[test]
    fn fit_score_cases_from_upstream() {
        let rtcr = |shape: Value| strategy("RequestedToCapacityRatio", default_resources(), Some(shape));
        let down = serde_json::json!([{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]);
        let up = serde_json::json!([{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]);
        let most = strategy("MostAllocated", default_resources(), None);
        let least = strategy("LeastAllocated", default_resources(), None);
        let cases = [
            (
                "test case for ScoringStrategy RequestedToCapacityRatio case1",
                ("3000", "5000"),
                rtcr(down.clone()),
                [10, 32],
                true,
            ),
            (
                "test case for ScoringStrategy RequestedToCapacityRatio case2",
                ("3000", "5000"),
                rtcr(up),
                [95, 68],
                true,
            ),
            (
                "test case for ScoringStrategy MostAllocated",
                ("1000", "2000"),
                most.clone(),
                [67, 36],
                true,
            ),
            (
                "test case for ScoringStrategy LeastAllocated",
                ("1000", "2000"),
                least.clone(),
                [32, 63],
                true,
            ),
            (
                "test case for ScoringStrategy RequestedToCapacityRatio case1 if PreScore is not called",
                ("3000", "5000"),
                rtcr(down),
                [10, 32],
                false,
            ),
            (
                "test case for ScoringStrategy MostAllocated if PreScore is not called",
                ("1000", "2000"),
                most,
                [67, 36],
                false,
            ),
            (
                "test case for ScoringStrategy LeastAllocated if PreScore is not called",
                ("1000", "2000"),
                least,
                [32, 63],
                false,
            ),
        ];
        for (name, (cpu, mem), args, want, run_pre_score) in cases {
            let snap = snapshot(
                vec![
                    node("node1").capacity(&[("cpu", "4000"), ("memory", "10000")]).obj(),
                    node("node2").capacity(&[("cpu", "6000"), ("memory", "10000")]).obj(),
                ],
                vec![
                    pod("").node("node1").req(&[("cpu", "2000"), ("memory", "4000")]).obj(),
                    pod("").node("node2").req(&[("cpu", "1000"), ("memory", "2000")]).obj(),
                ],
                V1_30,
            );
            let p = pod("p").req(&[("cpu", cpu), ("memory", mem)]).obj();
            let got = run_score(
                &plugin(names::NODE_RESOURCES_FIT, args, V1_30),
                &snap,
                &p,
                run_pre_score,
            );
            assert_eq!(got.raw, want, "{name}");
        }
    }

    /// The weight and shape validation of ValidateNodeResourcesFitArgs, as the v1 config sees
    /// it (a zero weight is defaulted to 1 before validation).
    #[test]
    fn scoring_strategy_validation() {
        let res = |w: i64| serde_json::json!([{"name": "memory", "weight": w}, {"name": "cpu", "weight": 1}]);
        let err = |v: Value| try_plugin(names::NODE_RESOURCES_FIT, v, V1_30).err();
        for kind in ["LeastAllocated", "MostAllocated"] {
            // least/most_allocated_test.go "resource with negative weight"
            assert_eq!(
                err(strategy(kind, res(-1), None)).as_deref(),
                Some(
                    "scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not in valid range (0, 100]"
                )
            );
            // "resource weight larger than MaxNodeScore"
            assert_eq!(
                err(strategy(kind, res(101), None)).as_deref(),
                Some(
                    "scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of memory not in valid range (0, 100]"
                )
            );
            assert_eq!(err(strategy(kind, res(0), None)), None, "weight 0 is defaulted to 1");
        }
        let shape = |s: Value| strategy("RequestedToCapacityRatio", default_resources(), Some(s));
        assert_eq!(
            err(shape(serde_json::json!([]))).as_deref(),
            Some("scoringStrategy.shape: Required value: at least one point must be specified")
        );
        assert_eq!(
            err(shape(
                serde_json::json!([{"utilization": 50, "score": 1}, {"utilization": 50, "score": 2}])
            ))
            .as_deref(),
            Some(
                "scoringStrategy.shape[1].utilization: Invalid value: 50: utilization values must be sorted in increasing order"
            )
        );
        // validation_pluginargs.go validateFunctionShape, 1.34 wording.
        let unsorted = serde_json::json!({"scoringStrategy": {"type": "RequestedToCapacityRatio",
            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
            "requestedToCapacityRatio": {"shape": [{"utilization": 50, "score": 1}, {"utilization": 50, "score": 2}]}}});
        assert_eq!(
            register(&unsorted, &Release::at(34).into()).err().as_deref(),
            Some("scoringStrategy.shape[1].utilization: Invalid value: 50: values must be sorted in increasing order")
        );
        assert_eq!(
            err(shape(serde_json::json!([{"utilization": 0, "score": 11}]))).as_deref(),
            Some("scoringStrategy.shape[0].score: Invalid value: 11: not in valid range [0, 10]")
        );
        assert!(err(serde_json::json!({"ignoredResourceGroups": ["example.com/x"]})).is_some());
        // 1.36 (#132120): the shape sits under requestedToCapacityRatio, which the type needs
        // and other types must not have.
        let v36 = |v: Value| register(&v, &Release::at(36).into()).err();
        assert_eq!(
            v36(unsorted.clone()).as_deref(),
            Some(
                "scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 50: values must be sorted in increasing order"
            )
        );
        assert_eq!(
            v36(serde_json::json!({"scoringStrategy": {"type": "RequestedToCapacityRatio"}})).as_deref(),
            Some(
                "scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio"
            )
        );
        assert_eq!(
            v36(serde_json::json!({"scoringStrategy": {"type": "MostAllocated",
                "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 1}]}}}))
            .as_deref(),
            Some(
                "scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio"
            )
        );
    }

    /// fit_test.go TestEnoughRequests (1.34) cases whose `wantStatus` is
    /// UnschedulableAndUnresolvable, next to one that stays Unschedulable.
    #[test]
    fn unresolvable_when_a_request_exceeds_allocatable_from_1_34() {
        let v34 = Release::at(34);
        let cases: Vec<(&str, core::Pod, R, Code)> = vec![
            (
                "extended resource capacity enforced",
                res_pod(&[(1, 1, 0, &[(EXT_A, 10)])]).obj(),
                (0, 0, 0, &[(EXT_A, 0)]),
                Code::UnschedulableAndUnresolvable,
            ),
            (
                "extended resource allocatable enforced",
                res_pod(&[(1, 1, 0, &[(EXT_A, 1)])]).obj(),
                (0, 0, 0, &[(EXT_A, 5)]),
                Code::Unschedulable,
            ),
            (
                "extended resource allocatable enforced for multiple containers",
                res_pod(&[(1, 1, 0, &[(EXT_A, 3)]), (1, 1, 0, &[(EXT_A, 3)])]).obj(),
                (0, 0, 0, &[(EXT_A, 2)]),
                Code::UnschedulableAndUnresolvable,
            ),
            (
                "extended resource allocatable enforced for unknown resource",
                res_pod(&[(1, 1, 0, &[(EXT_B, 1)])]).obj(),
                r(0, 0),
                Code::UnschedulableAndUnresolvable,
            ),
            (
                "too many resources fails",
                res_pod(&[r(1, 1)]).obj(),
                r(10, 20),
                Code::Unschedulable,
            ),
        ];
        for (name, p, existing, code) in cases {
            let existing = res_pod(&[existing]).node("n").obj();
            for (v, want) in [(V1_30, Code::Unschedulable), (v34, code)] {
                let snap = snapshot(vec![make_node(10, 20, 32, 5, 20, 5)], vec![existing.clone()], v);
                let slots = plugin(names::NODE_RESOURCES_FIT, Value::Null, v);
                let got = run_filter(&slots, &snap, &p, true);
                assert_eq!(got.on("n").code, want, "{name} ({v})");
            }
        }
    }

    /// fit_test.go TestRestartableInitContainers (1.34): a sidecar plus a container asking
    /// 3m of a 2m node is UnschedulableAndUnresolvable.
    #[test]
    fn sidecar_total_beyond_allocatable_is_unresolvable_from_1_34() {
        let node = make_node(2, 0, 1, 0, 0, 0);
        let sidecar = core::Container {
            name: "sidecar".into(),
            restart_policy: Some("Always".into()),
            resources: Some(core::ResourceRequirements {
                requests: Some(
                    [(
                        "cpu".to_string(),
                        k8s_openapi::apimachinery::pkg::api::resource::Quantity("2m".into()),
                    )]
                    .into(),
                ),
                ..Default::default()
            }),
            ..Default::default()
        };
        let p = pod("p")
            .raw_container(container_req("c", &[("cpu", "1m")]))
            .raw_init_container(sidecar)
            .obj();
        for (v, want) in [
            (V1_30, Code::Unschedulable),
            (Release::at(34), Code::UnschedulableAndUnresolvable),
        ] {
            let snap = snapshot(vec![node.clone()], vec![], v);
            let slots = plugin(names::NODE_RESOURCES_FIT, Value::Null, v);
            let got = run_filter(&slots, &snap, &p, true);
            assert_eq!(got.on("n"), &Status::new(want, ["Insufficient cpu"]), "{v}");
        }
    }

    /// The PreFilter facts are the requests the release counts: an infeasible in-place resize
    /// (spec 3 CPUs, allocated 2) counts the allocated 2 from 1.33, the spec before.
    #[test]
    fn pre_filter_facts_state_the_requests_the_release_counts() {
        let text = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: a}
  spec:
    containers: [{name: c, image: i, resources: {requests: {cpu: "3", memory: 1Gi}}}]
  status:
    conditions: [{type: PodResizePending, status: "True", reason: Infeasible}]
    containerStatuses:
    - {name: c, image: i, imageID: "", ready: true, restartCount: 0, resources: {requests: {cpu: "2", memory: 1Gi}}, allocatedResources: {cpu: "2", memory: 1Gi}}
"#;
        let facts = |minor: u32| {
            let v = Release::at(minor);
            let snap = crate::engine::Snapshot::new(Arc::new(crate::source::file::load_str("t", text).unwrap()), v);
            let profiles = crate::engine::build_profiles(None, v).unwrap();
            let ex = crate::engine::explain(&snap, &profiles, &crate::model::ObjectKey::new("a", "p")).unwrap();
            let st = ex
                .pre_filter
                .iter()
                .find(|s| s.plugin == names::NODE_RESOURCES_FIT)
                .unwrap();
            st.facts
                .iter()
                .map(|f| format!("{}: {}", f.label, f.value))
                .collect::<Vec<_>>()
        };
        assert_eq!(facts(32), vec!["effective requests: cpu 3, memory 1Gi"]);
        assert_eq!(
            facts(34),
            vec![
                "effective requests: cpu 2, memory 1Gi",
                "counted from: the containers' allocated resources (in-place resize)"
            ]
        );
    }
}
