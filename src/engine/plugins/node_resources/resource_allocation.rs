//! Port of noderesources/resource_allocation.go, least_allocated.go, most_allocated.go and
//! requested_to_capacity_ratio.go (v1.30.6): the per-resource scorers.

use serde::Deserialize;

use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::plugins::helper::MAX_NODE_SCORE;
use crate::model::resources::is_scalar_resource;

/// A resource and its weight (`config.ResourceSpec`).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResourceSpec {
    /// Resource name.
    pub name: String,
    /// Weight (0 defaults to 1).
    #[serde(default)]
    pub weight: i64,
}

/// cpu and memory, weight 1 each.
pub(crate) fn default_resources() -> Vec<ResourceSpec> {
    vec![
        ResourceSpec {
            name: "cpu".into(),
            weight: 1,
        },
        ResourceSpec {
            name: "memory".into(),
            weight: 1,
        },
    ]
}

/// Applies the v1 defaults: no resources → cpu and memory; weight 0 → 1.
pub(crate) fn defaulted(mut r: Vec<ResourceSpec>) -> Vec<ResourceSpec> {
    if r.is_empty() {
        r = default_resources();
    }
    for x in &mut r {
        if x.weight == 0 {
            x.weight = 1;
        }
    }
    r
}

/// `validateResources`: every weight in (0, 100].
pub(crate) fn validate_resources(resources: &[ResourceSpec], path: &str) -> Vec<String> {
    resources
        .iter()
        .enumerate()
        .filter(|(_, r)| r.weight <= 0 || r.weight > 100)
        .map(|(i, r)| {
            format!(
                "{path}[{i}].weight: Invalid value: {}: resource weight of {} not in valid range (0, 100]",
                r.weight, r.name
            )
        })
        .collect()
}

/// `validateFunctionShape`'s ordering message ([`Change::ShapeOrderMessage`]).
///
/// [`Change::ShapeOrderMessage`]: crate::engine::release::Change::ShapeOrderMessage
pub(crate) fn shape_order_message(features: &crate::engine::release::Features) -> &'static str {
    if features.has(crate::engine::release::Change::ShapeOrderMessage) {
        "values must be sorted in increasing order"
    } else {
        "utilization values must be sorted in increasing order"
    }
}

/// `validateFunctionShape`: at least one point, utilization strictly increasing, utilization
/// in [0, 100] and score in [0, 10].
pub(crate) fn validate_shape(
    shape: &[ShapePoint],
    path: &str,
    features: &crate::engine::release::Features,
) -> Vec<String> {
    if shape.is_empty() {
        return vec![format!("{path}: Required value: at least one point must be specified")];
    }
    let mut errs = Vec::new();
    if let Some(i) = (1..shape.len()).find(|&i| shape[i - 1].utilization >= shape[i].utilization) {
        errs.push(format!(
            "{path}[{i}].utilization: Invalid value: {}: {}",
            shape[i].utilization,
            shape_order_message(features)
        ));
    }
    for (i, p) in shape.iter().enumerate() {
        if !(0..=100).contains(&p.utilization) {
            errs.push(format!(
                "{path}[{i}].utilization: Invalid value: {}: not in valid range [0, 100]",
                p.utilization
            ));
        }
        if !(0..=10).contains(&p.score) {
            errs.push(format!(
                "{path}[{i}].score: Invalid value: {}: not in valid range [0, 10]",
                p.score
            ));
        }
    }
    errs
}

/// The pod's request for each resource (`calculatePodResourceRequestList`).
pub(crate) fn pod_request_list(pod: &PodInfo, resources: &[ResourceSpec], use_requested: bool) -> Vec<i64> {
    let reqs = pod.requests();
    resources
        .iter()
        .map(|r| {
            if use_requested {
                reqs.list.get(&r.name).copied().unwrap_or(0)
            } else {
                reqs.non_missing.get(&r.name).copied().unwrap_or(0)
            }
        })
        .collect()
}

/// How a scored resource is read off a node: decided once per profile from its name, not by
/// matching the name for every node and plugin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Cpu,
    Memory,
    EphemeralStorage,
    /// Any other name: from the node's scalar resources; `scalar` when the name is a scalar
    /// resource's (`IsScalarResourceName`), which is skipped when the pod requests none.
    Other {
        scalar: bool,
    },
}

impl Kind {
    /// The kind of the resource `name`.
    pub(crate) fn of(name: &str) -> Kind {
        match name {
            "cpu" => Kind::Cpu,
            "memory" => Kind::Memory,
            "ephemeral-storage" => Kind::EphemeralStorage,
            other => Kind::Other {
                scalar: is_scalar_resource(other),
            },
        }
    }
}

/// The kinds of `resources`, in order.
pub(crate) fn kinds(resources: &[ResourceSpec]) -> Vec<Kind> {
    resources.iter().map(|r| Kind::of(&r.name)).collect()
}

/// `calculateResourceAllocatableRequest`: (allocatable, requested including the pod) of the
/// resource `resource` of kind `kind`.
#[inline]
pub(crate) fn allocatable_and_requested(
    node: &NodeInfo,
    kind: Kind,
    resource: &str,
    pod_request: i64,
    use_requested: bool,
) -> (i64, i64) {
    let requested = if use_requested {
        &node.requested
    } else {
        &node.non_zero_requested
    };
    let alloc = node.allocatable();
    match kind {
        // Go's int64 sums wrap: so do these, for amounts past int64 (never in a real cluster)
        Kind::Cpu => (alloc.milli_cpu, requested.milli_cpu.wrapping_add(pod_request)),
        Kind::Memory => (alloc.memory, requested.memory.wrapping_add(pod_request)),
        Kind::EphemeralStorage => (
            alloc.ephemeral_storage,
            node.requested.ephemeral_storage.wrapping_add(pod_request),
        ),
        Kind::Other { scalar: true } if pod_request == 0 => (0, 0),
        Kind::Other { .. } => match alloc.scalar.get(resource) {
            Some(a) => (
                *a,
                node.requested
                    .scalar
                    .get(resource)
                    .copied()
                    .unwrap_or(0)
                    .wrapping_add(pod_request),
            ),
            None => (0, 0),
        },
    }
}

/// Amounts per scored resource (a profile scores a handful: held inline, no allocation per
/// node).
pub(crate) type Amounts = smallvec::SmallVec<[i64; INLINE]>;

/// How many scored resources [`Amounts`] holds inline.
const INLINE: usize = 4;

/// Requested and allocatable vectors for a node (`resourceAllocationScorer.score` inputs).
/// Inlined and filled by pushes: built in the caller's frame, not zeroed by a call and copied
/// back (which was most of its time, once per node and plugin).
#[inline]
pub(crate) fn vectors(
    node: &NodeInfo,
    resources: &[ResourceSpec],
    kinds: &[Kind],
    pod_requests: &[i64],
    use_requested: bool,
) -> (Amounts, Amounts) {
    let n = resources.len().min(kinds.len()).min(pod_requests.len());
    let each =
        (resources.iter().zip(kinds).zip(pod_requests)).map(|((r, kind), req)| {
            match allocatable_and_requested(node, *kind, &r.name, *req, use_requested) {
                (0, _) => (0, 0),
                (a, q) => (q, a),
            }
        });
    if n <= INLINE {
        // the common case (a profile scores a handful): filled as arrays, no check per push
        let (mut requested, mut allocatable) = ([0i64; INLINE], [0i64; INLINE]);
        for (i, (q, a)) in each.enumerate() {
            requested[i] = q;
            allocatable[i] = a;
        }
        return (
            Amounts::from_buf_and_len(requested, n),
            Amounts::from_buf_and_len(allocatable, n),
        );
    }
    each.unzip()
}

fn least_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    // int64 arithmetic as Go's: wraps past int64 (capacities near it), never panics
    capacity.wrapping_sub(requested).wrapping_mul(MAX_NODE_SCORE) / capacity
}

fn most_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 {
        return 0;
    }
    requested.min(capacity).wrapping_mul(MAX_NODE_SCORE) / capacity
}

fn weighted(resources: &[ResourceSpec], requested: &[i64], allocatable: &[i64], f: impl Fn(i64, i64) -> i64) -> i64 {
    let (mut score, mut weights) = (0i64, 0i64);
    for i in 0..requested.len() {
        if allocatable[i] == 0 {
            continue;
        }
        score = score.wrapping_add(f(requested[i], allocatable[i]).wrapping_mul(resources[i].weight));
        weights = weights.wrapping_add(resources[i].weight);
    }
    if weights == 0 { 0 } else { score.wrapping_div(weights) }
}

/// LeastAllocated.
pub(crate) fn least_allocated(resources: &[ResourceSpec], requested: &[i64], allocatable: &[i64]) -> i64 {
    weighted(resources, requested, allocatable, least_requested_score)
}

/// MostAllocated.
pub(crate) fn most_allocated(resources: &[ResourceSpec], requested: &[i64], allocatable: &[i64]) -> i64 {
    weighted(resources, requested, allocatable, most_requested_score)
}

/// A point of the utilization → score shape.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct ShapePoint {
    /// Utilization (0–100).
    pub utilization: i64,
    /// Score (0–10).
    pub score: i64,
}

/// `BuildBrokenLinearFunction` over (utilization, score×10) points.
fn broken_linear(shape: &[(i64, i64)], p: i64) -> i64 {
    for i in 0..shape.len() {
        if p <= shape[i].0 {
            if i == 0 {
                return shape[0].1;
            }
            return shape[i - 1].1
                + (shape[i].1 - shape[i - 1].1) * (p - shape[i - 1].0) / (shape[i].0 - shape[i - 1].0);
        }
    }
    shape.last().map_or(0, |s| s.1)
}

/// RequestedToCapacityRatio.
pub(crate) fn requested_to_capacity_ratio(
    resources: &[ResourceSpec],
    shape: &[ShapePoint],
    requested: &[i64],
    allocatable: &[i64],
) -> i64 {
    let pts: Vec<(i64, i64)> = shape
        .iter()
        .map(|p| (p.utilization, p.score * (MAX_NODE_SCORE / 10)))
        .collect();
    let f = |req: i64, cap: i64| {
        if cap == 0 || req > cap {
            broken_linear(&pts, 100)
        } else {
            broken_linear(&pts, req.wrapping_mul(100) / cap)
        }
    };
    let (mut score, mut weights) = (0i64, 0i64);
    for i in 0..requested.len() {
        if allocatable[i] == 0 {
            continue;
        }
        let s = f(requested[i], allocatable[i]);
        if s > 0 {
            score = score.wrapping_add(s.wrapping_mul(resources[i].weight));
            weights = weights.wrapping_add(resources[i].weight);
        }
    }
    if weights == 0 {
        0
    } else {
        (score as f64 / weights as f64).round() as i64
    }
}

/// BalancedAllocation's scorer: 100 × (1 − standard deviation of the fractions).
pub(crate) fn balanced(requested: &[i64], allocatable: &[i64]) -> i64 {
    // the fractions of the resources the node has, in order (computed where used, not kept)
    let fractions = || {
        (0..requested.len())
            .filter(|&i| allocatable[i] != 0)
            .map(|i| (requested[i] as f64 / allocatable[i] as f64).min(1.0))
    };
    let (n, total) = fractions().fold((0usize, 0.0f64), |(n, t), f| (n + 1, t + f));
    let std = match n {
        2 => {
            let mut two = fractions();
            let (a, b) = (two.next().unwrap_or(0.0), two.next().unwrap_or(0.0));
            ((a - b) / 2.0).abs()
        }
        n if n > 2 => {
            let mean = total / n as f64;
            (fractions().map(|f| (f - mean) * (f - mean)).sum::<f64>() / n as f64).sqrt()
        }
        _ => 0.0,
    };
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

/// 1.36 `balancedResourceScorer(requested, allocated, allocatable)`: how much the pod improves
/// the node's balance, `50 + (50 + balance with the pod - balance without it) / 2` (both
/// balances as [`balanced`]; Go's integer division truncates as Rust's does). `allocated` is the
/// node's usage without the pod, with the entries `vectors` skipped left at 0.
pub(crate) fn balanced_improvement(requested: &[i64], allocated: &[i64], allocatable: &[i64]) -> i64 {
    let with_pod = balanced(requested, allocatable);
    let without_pod = balanced(allocated, allocatable);
    MAX_NODE_SCORE / 2 + (MAX_NODE_SCORE / 2 + with_pod - without_pod) / 2
}

#[cfg(test)]
#[allow(clippy::type_complexity)] // case tables
mod tests {
    use super::*;

    #[test]
    fn least_and_most_allocated_match_upstream_examples() {
        // least_allocated_test.go "nothing scheduled, resources requested, differently sized
        // nodes": cpu 3000/4000, memory 5000/10000 → (25 + 50) / 2 = 37
        let r = default_resources();
        assert_eq!(least_allocated(&r, &[3000, 5000], &[4000, 10000]), 37);
        // most_allocated_test.go same inputs → (75 + 50) / 2 = 62
        assert_eq!(most_allocated(&r, &[3000, 5000], &[4000, 10000]), 62);
        // over capacity: least gives 0, most clamps to 100
        assert_eq!(least_allocated(&r, &[5000, 0], &[4000, 10000]), 50);
        assert_eq!(most_allocated(&r, &[5000, 0], &[4000, 10000]), 50);
    }

    #[test]
    fn balanced_allocation_examples() {
        // balanced_allocation_test.go: cpu 3000/4000 = .75, memory 5000/10000 = .5 → 1 - .125 = 87
        assert_eq!(balanced(&[3000, 5000], &[4000, 10000]), 87);
        assert_eq!(balanced(&[0, 0], &[4000, 10000]), 100);
    }

    /// The 1.36 scorer on nodes of cpu 4000m and memory 8Gi (balanced_allocation.go, upstream
    /// #135573): usage and pod → score.
    #[test]
    fn balance_improvement_examples() {
        const GI: i64 = 1 << 30;
        let alloc = [4000, 8 * GI];
        for (used, pod, want) in [
            ([1000, GI], [1000, 3 * GI], 78),
            ([1000, GI], [1000, 4 * GI], 75),
            ([2000, 0], [0, 4 * GI], 87),
            ([0, 0], [2000, 0], 62),
        ] {
            let requested = [used[0] + pod[0], used[1] + pod[1]];
            assert_eq!(
                balanced_improvement(&requested, &used, &alloc),
                want,
                "{used:?} + {pod:?}"
            );
        }
        // No resource with allocatable: both balances are 100.
        assert_eq!(balanced_improvement(&[0, 0], &[0, 0], &[0, 0]), 75);
    }

    #[test]
    fn requested_to_capacity_ratio_shape() {
        // requested_to_capacity_ratio_test.go: shape (0,0),(100,10), cpu+memory
        let shape = vec![
            ShapePoint {
                utilization: 0,
                score: 0,
            },
            ShapePoint {
                utilization: 100,
                score: 10,
            },
        ];
        let r = default_resources();
        assert_eq!(
            requested_to_capacity_ratio(&r, &shape, &[3000, 5000], &[4000, 10000]),
            63
        );
        assert_eq!(broken_linear(&[(0, 0), (100, 100)], 150), 100);
    }

    use crate::engine::plugins::names;
    use crate::testkit::builders::*;
    use k8s_openapi::api::core::v1 as core;
    use serde_json::{Value, json};

    type Res = &'static [(&'static str, &'static str)];

    fn n(name: &str, cap: Res) -> core::Node {
        node(name).capacity(cap).obj()
    }

    fn on(node_name: &str, req: Res) -> core::Pod {
        let p = pod("").node(node_name);
        if req.is_empty() { p.obj() } else { p.req(req).obj() }
    }

    fn two_containers() -> core::Pod {
        pod("p")
            .req(&[("cpu", "1000"), ("memory", "2000")])
            .req(&[("cpu", "2000"), ("memory", "3000")])
            .obj()
    }

    const EXT: &str = "abc.com/xyz";

    fn fit_args(kind: &str, resources: Value) -> Value {
        json!({"scoringStrategy": {"type": kind, "resources": resources}})
    }

    fn defaults() -> Value {
        json!([{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}])
    }

    fn extended_set() -> Value {
        json!([{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": EXT, "weight": 1}])
    }

    /// More scored resources than `Amounts` holds inline take the general path: the same
    /// amounts as each resource read on its own (the inline path), in order.
    #[test]
    fn vectors_beyond_the_inline_size_match_each_resource_alone() {
        let names = [
            "cpu",
            "memory",
            "ephemeral-storage",
            EXT,
            "hugepages-2Mi",
            "example.com/none",
        ];
        assert!(names.len() > INLINE);
        let snap = snapshot(
            vec![n(
                "node1",
                &[
                    ("cpu", "4000"),
                    ("memory", "10000"),
                    ("ephemeral-storage", "5000"),
                    (EXT, "8"),
                    ("hugepages-2Mi", "4Mi"),
                ],
            )],
            vec![on("node1", &[("cpu", "1000"), (EXT, "2")])],
            V1_30,
        );
        let node = &snap.nodes[0];
        let resources: Vec<ResourceSpec> = names
            .iter()
            .map(|name| ResourceSpec {
                name: name.to_string(),
                weight: 1,
            })
            .collect();
        let ks = kinds(&resources);
        let reqs = [500, 1000, 0, 1, 0, 3];
        for use_requested in [false, true] {
            let (requested, allocatable) = vectors(node, &resources, &ks, &reqs, use_requested);
            assert_eq!(requested.len(), names.len());
            for i in 0..names.len() {
                let (q, a) = vectors(node, &resources[i..=i], &ks[i..=i], &reqs[i..=i], use_requested);
                assert_eq!(
                    (requested[i], allocatable[i]),
                    (q[0], a[0]),
                    "{} (use_requested {use_requested})",
                    names[i]
                );
            }
            // hugepages requested 0: skipped as a scalar resource; an absent one reads 0
            assert_eq!((requested[4], allocatable[4]), (0, 0));
            assert_eq!((requested[5], allocatable[5]), (0, 0));
            assert_eq!(
                (requested[3], allocatable[3]),
                (3, 8),
                "the bound pod's 2 and the pod's 1"
            );
        }
    }

    /// Fit's Score (after PreScore) per node, in the order the nodes were given.
    fn fit_scores(
        args: Value,
        p: &core::Pod,
        nodes: Vec<core::Node>,
        existing: Vec<core::Pod>,
        pre_score: bool,
    ) -> Vec<i64> {
        let order: Vec<String> = nodes
            .iter()
            .map(|n| n.metadata.name.clone().unwrap_or_default())
            .collect();
        let snap = snapshot(nodes, existing, V1_30);
        let got = run_score(&plugin(names::NODE_RESOURCES_FIT, args, V1_30), &snap, p, pre_score);
        order
            .iter()
            .map(|name| got.raw[snap.node_index(name).expect("node")])
            .collect()
    }

    type Case = (
        &'static str,
        core::Pod,
        Vec<core::Node>,
        Vec<core::Pod>,
        Vec<i64>,
        Value,
    );

    /// least_allocated_test.go TestLeastAllocatedScoringStrategy (the cases a v1 config can
    /// express; the validation cases are in fit.rs).
    #[test]
    fn least_allocated_cases_from_upstream() {
        let cases: Vec<Case> = vec![
            (
                "nothing scheduled, nothing requested",
                pod("p").obj(),
                vec![
                    n("node1", &[("cpu", "4000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "4000"), ("memory", "10000")]),
                ],
                vec![],
                vec![100, 100],
                defaults(),
            ),
            (
                "nothing scheduled, resources requested, differently sized nodes",
                two_containers(),
                vec![
                    n("node1", &[("cpu", "4000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "6000"), ("memory", "10000")]),
                ],
                vec![],
                vec![37, 50],
                defaults(),
            ),
            (
                "no resources requested, pods scheduled",
                pod("p").obj(),
                vec![
                    n("node1", &[("cpu", "4000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "4000"), ("memory", "10000")]),
                ],
                vec![on("node1", &[]), on("node1", &[]), on("node2", &[]), on("node2", &[])],
                vec![100, 100],
                defaults(),
            ),
            (
                "no resources requested, pods scheduled with resources",
                pod("p").obj(),
                vec![
                    n("node1", &[("cpu", "10000"), ("memory", "20000")]),
                    n("node2", &[("cpu", "10000"), ("memory", "20000")]),
                ],
                vec![
                    on("node1", &[("cpu", "3000"), ("memory", "0")]),
                    on("node1", &[("cpu", "3000"), ("memory", "0")]),
                    on("node2", &[("cpu", "3000"), ("memory", "0")]),
                    on("node2", &[("cpu", "3000"), ("memory", "5000")]),
                ],
                vec![70, 57],
                defaults(),
            ),
            (
                "resources requested, pods scheduled with resources",
                two_containers(),
                vec![
                    n("node1", &[("cpu", "10000"), ("memory", "20000")]),
                    n("node2", &[("cpu", "10000"), ("memory", "20000")]),
                ],
                vec![
                    on("node1", &[("cpu", "3000"), ("memory", "0")]),
                    on("node2", &[("cpu", "3000"), ("memory", "5000")]),
                ],
                vec![57, 45],
                defaults(),
            ),
            (
                "resources requested, pods scheduled with resources, differently sized nodes",
                two_containers(),
                vec![
                    n("node1", &[("cpu", "10000"), ("memory", "20000")]),
                    n("node2", &[("cpu", "10000"), ("memory", "50000")]),
                ],
                vec![
                    on("node1", &[("cpu", "3000"), ("memory", "0")]),
                    on("node2", &[("cpu", "3000"), ("memory", "5000")]),
                ],
                vec![57, 60],
                defaults(),
            ),
            (
                "requested resources exceed node capacity",
                pod("p").req(&[("cpu", "3000"), ("memory", "0")]).obj(),
                vec![
                    n("node1", &[("cpu", "4000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "4000"), ("memory", "10000")]),
                ],
                vec![
                    on("node1", &[("cpu", "3000"), ("memory", "0")]),
                    on("node2", &[("cpu", "3000"), ("memory", "5000")]),
                ],
                vec![50, 25],
                defaults(),
            ),
            (
                "zero node resources, pods scheduled with resources",
                pod("p").obj(),
                vec![n("node1", &[]), n("node2", &[])],
                vec![
                    on("node1", &[("cpu", "3000"), ("memory", "0")]),
                    on("node2", &[("cpu", "3000"), ("memory", "5000")]),
                ],
                vec![0, 0],
                defaults(),
            ),
            (
                "nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes",
                two_containers(),
                vec![
                    n("node1", &[("cpu", "4000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "6000"), ("memory", "10000")]),
                ],
                vec![],
                vec![41, 50],
                json!([{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}]),
            ),
            (
                "bypass extended resource if the pod does not request",
                two_containers(),
                vec![
                    n("node1", &[("cpu", "6000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "6000"), ("memory", "10000"), (EXT, "4")]),
                ],
                vec![],
                vec![50, 50],
                extended_set(),
            ),
            (
                "honor extended resource if the pod requests",
                pod("p").req(&[("cpu", "3000"), ("memory", "5000"), (EXT, "2")]).obj(),
                vec![
                    n("node1", &[("cpu", "6000"), ("memory", "10000"), (EXT, "4")]),
                    n("node2", &[("cpu", "6000"), ("memory", "10000"), (EXT, "10")]),
                ],
                vec![],
                vec![50, 60],
                extended_set(),
            ),
            (
                "if the node doesn't have a resource",
                pod("p").req(&[("cpu", "3000"), ("memory", "4000")]).obj(),
                vec![
                    n("node1", &[("cpu", "6000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "6000"), ("memory", "10000"), (EXT, "4")]),
                ],
                vec![],
                vec![55, 55],
                json!([{"name": EXT, "weight": 2}, {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]),
            ),
        ];
        for (name, p, nodes, existing, want, resources) in cases {
            assert_eq!(
                fit_scores(fit_args("LeastAllocated", resources), &p, nodes, existing, true),
                want,
                "{name}"
            );
        }
    }

    /// most_allocated_test.go TestMostAllocatedScoringStrategy (the v1-expressible cases).
    #[test]
    fn most_allocated_cases_from_upstream() {
        let cases: Vec<Case> = vec![
            (
                "nothing scheduled, nothing requested",
                pod("p").obj(),
                vec![
                    n("node1", &[("cpu", "4000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "4000"), ("memory", "10000")]),
                ],
                vec![],
                vec![0, 0],
                defaults(),
            ),
            (
                "nothing scheduled, resources requested, differently sized nodes",
                two_containers(),
                vec![
                    n("node1", &[("cpu", "4000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "6000"), ("memory", "10000")]),
                ],
                vec![],
                vec![62, 50],
                defaults(),
            ),
            (
                "no resources requested, pods scheduled with resources",
                pod("p").obj(),
                vec![
                    n("node1", &[("cpu", "10000"), ("memory", "20000")]),
                    n("node2", &[("cpu", "10000"), ("memory", "20000")]),
                ],
                vec![
                    on("node1", &[("cpu", "3000"), ("memory", "0")]),
                    on("node1", &[("cpu", "3000"), ("memory", "0")]),
                    on("node2", &[("cpu", "3000"), ("memory", "0")]),
                    on("node2", &[("cpu", "3000"), ("memory", "5000")]),
                ],
                vec![30, 42],
                defaults(),
            ),
            (
                "resources requested, pods scheduled with resources",
                two_containers(),
                vec![
                    n("node1", &[("cpu", "10000"), ("memory", "20000")]),
                    n("node2", &[("cpu", "10000"), ("memory", "20000")]),
                ],
                vec![
                    on("node1", &[("cpu", "3000"), ("memory", "0")]),
                    on("node2", &[("cpu", "3000"), ("memory", "5000")]),
                ],
                vec![42, 55],
                defaults(),
            ),
            (
                "resources requested equal node capacity",
                pod("p")
                    .req(&[("cpu", "2000"), ("memory", "4000")])
                    .req(&[("cpu", "3000"), ("memory", "5000")])
                    .obj(),
                vec![
                    n("node1", &[("cpu", "5000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "10000"), ("memory", "9000")]),
                ],
                vec![],
                vec![95, 75],
                defaults(),
            ),
            (
                "nothing scheduled, resources requested, differently sized nodes (weights)",
                two_containers(),
                vec![
                    n("node1", &[("cpu", "4000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "6000"), ("memory", "10000")]),
                ],
                vec![],
                vec![58, 50],
                json!([{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}]),
            ),
            (
                "no resources requested, pods scheduled, nonzero request for resource",
                pod("p").container("container").obj(),
                vec![
                    n("node1", &[("cpu", "250m"), ("memory", "1000Mi")]),
                    n("node2", &[("cpu", "250m"), ("memory", "1000Mi")]),
                ],
                vec![
                    pod("").node("node1").container("container").obj(),
                    pod("").node("node1").container("container").obj(),
                ],
                vec![80, 30],
                defaults(),
            ),
            (
                "bypass extended resource if the pod does not request",
                two_containers(),
                vec![
                    n("node1", &[("cpu", "6000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "6000"), ("memory", "10000"), (EXT, "4")]),
                ],
                vec![],
                vec![50, 50],
                extended_set(),
            ),
            (
                "honor extended resource if the pod request",
                pod("p").req(&[("cpu", "3000"), ("memory", "5000"), (EXT, "2")]).obj(),
                vec![
                    n("node1", &[("cpu", "6000"), ("memory", "10000"), (EXT, "4")]),
                    n("node2", &[("cpu", "6000"), ("memory", "10000"), (EXT, "10")]),
                ],
                vec![],
                vec![50, 40],
                extended_set(),
            ),
            (
                "if the node doesn't have a resource",
                pod("p").req(&[("cpu", "3000"), ("memory", "4000")]).obj(),
                vec![
                    n("node1", &[("cpu", "6000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "6000"), ("memory", "10000"), (EXT, "4")]),
                ],
                vec![],
                vec![45, 45],
                json!([{"name": EXT, "weight": 2}, {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]),
            ),
        ];
        for (name, p, nodes, existing, want, resources) in cases {
            assert_eq!(
                fit_scores(fit_args("MostAllocated", resources), &p, nodes, existing, true),
                want,
                "{name}"
            );
        }
    }

    fn rtcr_args(resources: Value, shape: Value) -> Value {
        json!({"scoringStrategy": {"type": "RequestedToCapacityRatio", "resources": resources,
            "requestedToCapacityRatio": {"shape": shape}}})
    }

    /// requested_to_capacity_ratio_test.go TestRequestedToCapacityRatioScoringStrategy
    /// (Score without PreScore, as upstream runs it).
    #[test]
    fn requested_to_capacity_ratio_cases_from_upstream() {
        let shape = json!([{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]);
        let cases: Vec<Case> = vec![
            (
                "nothing scheduled, nothing requested (default - least requested nodes have priority)",
                pod("p").obj(),
                vec![
                    n("node1", &[("cpu", "4000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "4000"), ("memory", "10000")]),
                ],
                vec![on("node1", &[]), on("node1", &[])],
                vec![100, 100],
                shape.clone(),
            ),
            (
                "nothing scheduled, resources requested, differently sized nodes (default - least requested nodes have priority)",
                two_containers(),
                vec![
                    n("node1", &[("cpu", "4000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "6000"), ("memory", "10000")]),
                ],
                vec![on("node1", &[]), on("node1", &[])],
                vec![38, 50],
                shape.clone(),
            ),
            (
                "no resources requested, pods scheduled with resources (default - least requested nodes have priority)",
                pod("p").obj(),
                vec![
                    n("node1", &[("cpu", "4000"), ("memory", "10000")]),
                    n("node2", &[("cpu", "6000"), ("memory", "10000")]),
                ],
                vec![
                    on("node1", &[("cpu", "3000"), ("memory", "5000")]),
                    on("node2", &[("cpu", "3000"), ("memory", "5000")]),
                ],
                vec![38, 50],
                shape,
            ),
        ];
        for (name, p, nodes, existing, want, shape) in cases {
            assert_eq!(
                fit_scores(rtcr_args(defaults(), shape), &p, nodes, existing, false),
                want,
                "{name}"
            );
        }
    }

    /// requested_to_capacity_ratio_test.go TestBrokenLinearFunction.
    #[test]
    fn broken_linear_function_cases_from_upstream() {
        let cases: &[(&[(i64, i64)], &[(i64, i64)])] = &[
            (
                &[(10, 1), (90, 9)],
                &[
                    (-10, 1),
                    (0, 1),
                    (9, 1),
                    (10, 1),
                    (15, 1),
                    (19, 1),
                    (20, 2),
                    (89, 8),
                    (90, 9),
                    (99, 9),
                    (100, 9),
                    (110, 9),
                ],
            ),
            (
                &[(0, 2), (40, 10), (100, 0)],
                &[
                    (-10, 2),
                    (0, 2),
                    (20, 6),
                    (30, 8),
                    (40, 10),
                    (70, 5),
                    (100, 0),
                    (110, 0),
                ],
            ),
            (
                &[(0, 2), (40, 2), (100, 2)],
                &[(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)],
            ),
        ];
        for (points, assertions) in cases {
            for (p, want) in *assertions {
                assert_eq!(broken_linear(points, *p), *want, "{points:?} at {p}");
            }
        }
    }

    fn bin_node(name: &str, ext: &[(&str, &str)]) -> core::Node {
        let mut items = vec![("cpu", "4000m"), ("memory", "10485760000")];
        items.extend_from_slice(ext);
        node(name).resources(&items).obj()
    }

    /// requested_to_capacity_ratio_test.go TestResourceBinPackingSingleExtended and
    /// TestResourceBinPackingMultipleExtended.
    #[test]
    fn resource_bin_packing_cases_from_upstream() {
        let shape = json!([{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}]);
        let single = rtcr_args(json!([{"name": "intel.com/foo", "weight": 1}]), shape.clone());
        let foo2: Res = &[("intel.com/foo", "2")];
        let foo4: Res = &[("intel.com/foo", "4")];
        let single_nodes = || {
            vec![
                bin_node("node1", &[("intel.com/foo", "8")]),
                bin_node("node2", &[("intel.com/foo", "4")]),
            ]
        };
        let single_cases: Vec<(&str, core::Pod, Vec<core::Pod>, Vec<i64>)> = vec![
            (
                "nothing scheduled, nothing requested",
                pod("p").obj(),
                vec![],
                vec![0, 0],
            ),
            (
                "resources requested, pods scheduled with less resources",
                pod("p").req(foo2).obj(),
                vec![pod("").obj()],
                vec![2, 5],
            ),
            (
                "resources requested, pods scheduled with resources, on node with existing pod running ",
                pod("p").req(foo2).obj(),
                vec![on("node2", foo2)],
                vec![2, 10],
            ),
            (
                "resources requested, pods scheduled with more resources",
                pod("p").req(foo4).obj(),
                vec![pod("").obj()],
                vec![5, 10],
            ),
        ];
        for (name, p, existing, want) in single_cases {
            assert_eq!(
                fit_scores(single.clone(), &p, single_nodes(), existing, false),
                want,
                "single: {name}"
            );
        }

        let multi = rtcr_args(
            json!([{"name": "intel.com/foo", "weight": 3}, {"name": "intel.com/bar", "weight": 5}]),
            shape,
        );
        let multi_nodes = || {
            vec![
                bin_node("node1", &[("intel.com/foo", "8"), ("intel.com/bar", "4")]),
                bin_node("node2", &[("intel.com/foo", "4"), ("intel.com/bar", "8")]),
            ]
        };
        let pod1: Res = &[("intel.com/foo", "2"), ("intel.com/bar", "2")];
        let pod2: Res = &[("intel.com/foo", "4"), ("intel.com/bar", "2")];
        let multi_cases: Vec<(&str, core::Pod, Vec<core::Pod>, Vec<i64>)> = vec![
            (
                "nothing scheduled, nothing requested",
                pod("p").obj(),
                vec![],
                vec![0, 0],
            ),
            (
                "resources requested, pods scheduled with less resources",
                pod("p").req(pod1).obj(),
                vec![pod("").obj()],
                vec![4, 3],
            ),
            (
                "resources requested, pods scheduled with resources, on node with existing pod running ",
                pod("p").req(pod1).obj(),
                vec![on("node2", pod2)],
                vec![4, 7],
            ),
            (
                "resources requested, pods scheduled with more resources",
                pod("p").req(pod2).obj(),
                vec![pod("").obj()],
                vec![5, 5],
            ),
        ];
        for (name, p, existing, want) in multi_cases {
            assert_eq!(
                fit_scores(multi.clone(), &p, multi_nodes(), existing, false),
                want,
                "multiple: {name}"
            );
        }
    }
}
