//! Port of noderesources/resource_allocation.go, least_allocated.go, most_allocated.go and
//! requested_to_capacity_ratio.go (v1.30.6): the per-resource scorers.

use serde::Deserialize;

use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::plugins::helper::MAX_NODE_SCORE;
use crate::model::resources::is_scalar_resource;

/// A resource and its weight (`config.ResourceSpec`).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ResourceSpec {
    /// Resource name.
    pub name: String,
    /// Weight (0 defaults to 1).
    #[serde(default)]
    pub weight: i64,
}

/// cpu and memory, weight 1 each.
pub fn default_resources() -> Vec<ResourceSpec> {
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
pub fn defaulted(mut r: Vec<ResourceSpec>) -> Vec<ResourceSpec> {
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

/// The pod's request for each resource (`calculatePodResourceRequestList`).
pub fn pod_request_list(pod: &PodInfo, resources: &[ResourceSpec], use_requested: bool) -> Vec<i64> {
    let reqs = &pod.pod.requests;
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

/// `calculateResourceAllocatableRequest`: (allocatable, requested including the pod).
pub fn allocatable_and_requested(node: &NodeInfo, resource: &str, pod_request: i64, use_requested: bool) -> (i64, i64) {
    let requested = if use_requested {
        &node.requested
    } else {
        &node.non_zero_requested
    };
    if pod_request == 0 && is_scalar_resource(resource) {
        return (0, 0);
    }
    let alloc = node.allocatable();
    match resource {
        "cpu" => (alloc.milli_cpu, requested.milli_cpu + pod_request),
        "memory" => (alloc.memory, requested.memory + pod_request),
        "ephemeral-storage" => (alloc.ephemeral_storage, node.requested.ephemeral_storage + pod_request),
        other => match alloc.scalar.get(other) {
            Some(a) => (*a, node.requested.scalar.get(other).copied().unwrap_or(0) + pod_request),
            None => (0, 0),
        },
    }
}

/// Requested and allocatable vectors for a node (`resourceAllocationScorer.score` inputs).
pub fn vectors(
    node: &NodeInfo,
    resources: &[ResourceSpec],
    pod_requests: &[i64],
    use_requested: bool,
) -> (Vec<i64>, Vec<i64>) {
    let mut requested = vec![0; resources.len()];
    let mut allocatable = vec![0; resources.len()];
    for (i, r) in resources.iter().enumerate() {
        let (a, q) = allocatable_and_requested(node, &r.name, pod_requests[i], use_requested);
        if a == 0 {
            continue;
        }
        allocatable[i] = a;
        requested[i] = q;
    }
    (requested, allocatable)
}

fn least_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    (capacity - requested) * MAX_NODE_SCORE / capacity
}

fn most_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 {
        return 0;
    }
    requested.min(capacity) * MAX_NODE_SCORE / capacity
}

fn weighted(resources: &[ResourceSpec], requested: &[i64], allocatable: &[i64], f: impl Fn(i64, i64) -> i64) -> i64 {
    let (mut score, mut weights) = (0i64, 0i64);
    for i in 0..requested.len() {
        if allocatable[i] == 0 {
            continue;
        }
        score += f(requested[i], allocatable[i]) * resources[i].weight;
        weights += resources[i].weight;
    }
    if weights == 0 { 0 } else { score / weights }
}

/// LeastAllocated.
pub fn least_allocated(resources: &[ResourceSpec], requested: &[i64], allocatable: &[i64]) -> i64 {
    weighted(resources, requested, allocatable, least_requested_score)
}

/// MostAllocated.
pub fn most_allocated(resources: &[ResourceSpec], requested: &[i64], allocatable: &[i64]) -> i64 {
    weighted(resources, requested, allocatable, most_requested_score)
}

/// A point of the utilization → score shape.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ShapePoint {
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
pub fn requested_to_capacity_ratio(
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
            broken_linear(&pts, req * 100 / cap)
        }
    };
    let (mut score, mut weights) = (0i64, 0i64);
    for i in 0..requested.len() {
        if allocatable[i] == 0 {
            continue;
        }
        let s = f(requested[i], allocatable[i]);
        if s > 0 {
            score += s * resources[i].weight;
            weights += resources[i].weight;
        }
    }
    if weights == 0 {
        0
    } else {
        (score as f64 / weights as f64).round() as i64
    }
}

/// BalancedAllocation's scorer: 100 × (1 − standard deviation of the fractions).
pub fn balanced(requested: &[i64], allocatable: &[i64]) -> i64 {
    let mut fractions = Vec::new();
    let mut total = 0.0f64;
    for i in 0..requested.len() {
        if allocatable[i] == 0 {
            continue;
        }
        let f = (requested[i] as f64 / allocatable[i] as f64).min(1.0);
        total += f;
        fractions.push(f);
    }
    let std = match fractions.len() {
        2 => ((fractions[0] - fractions[1]) / 2.0).abs(),
        n if n > 2 => {
            let mean = total / n as f64;
            (fractions.iter().map(|f| (f - mean) * (f - mean)).sum::<f64>() / n as f64).sqrt()
        }
        _ => 0.0,
    };
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

#[cfg(test)]
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
}
