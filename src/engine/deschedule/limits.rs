//! The pod evictor's limits (pkg/descheduler/evictions/evictions.go `EvictPod`,
//! errors.go): the total, per-node and per-namespace counts of one cycle, checked in that
//! order before the eviction is sent, counted only when it succeeds. The eviction itself goes
//! through the in-memory Eviction API, which honours PodDisruptionBudgets; a refusal is
//! reported with upstream's wording (`error when evicting pod (ignoring) "NAME": ...`).

use std::collections::BTreeMap;

use super::policy::Policy;
use crate::model::mutate::ChangeError;
use crate::model::write::WriteError;
use crate::model::{Cluster, Pod};

/// Why an eviction did not happen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvictError {
    /// `EvictionNodeLimitError`.
    #[error("maximum number of evicted pods per node reached")]
    Node,
    /// `EvictionNamespaceLimitError`.
    #[error("maximum number of evicted pods per namespace reached")]
    Namespace,
    /// `EvictionTotalLimitError`.
    #[error("maximum number of evicted pods per a descheduling cycle reached")]
    Total,
    /// The API refused the eviction.
    #[error("{0}")]
    Failed(String),
}

/// The limits and this cycle's counts.
#[derive(Clone, Debug, Default)]
pub struct PodEvictor {
    /// maxNoOfPodsToEvictPerNode.
    pub per_node: Option<u64>,
    /// maxNoOfPodsToEvictPerNamespace.
    pub per_namespace: Option<u64>,
    /// maxNoOfPodsToEvictTotal.
    pub total: Option<u64>,
    node_count: BTreeMap<String, u64>,
    namespace_count: BTreeMap<String, u64>,
    total_count: u64,
}

impl PodEvictor {
    /// The policy's limits, counts at zero.
    pub fn new(p: &Policy) -> Self {
        PodEvictor {
            per_node: p.max_per_node,
            per_namespace: p.max_per_namespace,
            total: p.max_total,
            ..Default::default()
        }
    }

    /// Pods evicted so far.
    pub fn total_evicted(&self) -> u64 {
        self.total_count
    }

    /// `EvictPod`: checks the limits, sends the eviction, counts it.
    pub fn evict(&mut self, cluster: &mut Cluster, pod: &Pod) -> Result<(), EvictError> {
        if self.total.is_some_and(|m| self.total_count + 1 > m) {
            return Err(EvictError::Total);
        }
        let node = pod.node_name.as_deref().unwrap_or_default().to_string();
        if !node.is_empty()
            && self
                .per_node
                .is_some_and(|m| self.node_count.get(&node).copied().unwrap_or(0) + 1 > m)
        {
            return Err(EvictError::Node);
        }
        let ns = &pod.key.namespace;
        if self
            .per_namespace
            .is_some_and(|m| self.namespace_count.get(ns.as_str()).copied().unwrap_or(0) + 1 > m)
        {
            return Err(EvictError::Namespace);
        }
        cluster
            .evict_pod_via_eviction_api(&pod.key)
            .map_err(|e| EvictError::Failed(refusal(pod, &e)))?;
        if !node.is_empty() {
            *self.node_count.entry(node).or_insert(0) += 1;
        }
        *self.namespace_count.entry(ns.to_string()).or_insert(0) += 1;
        self.total_count += 1;
        Ok(())
    }
}

/// `evictPod`'s wrapping of the API's answer.
fn refusal(pod: &Pod, e: &ChangeError) -> String {
    match e {
        ChangeError::Refused(WriteError::PdbBlocked { message, .. }) => format!(
            "error when evicting pod (ignoring) \"{}\": Cannot evict pod as it would violate the pod's disruption budget. {message}",
            pod.key.name
        ),
        ChangeError::NoPod(_) => format!("pod not found when evicting \"{}\": {e}", pod.key.name),
        other => other.to_string(),
    }
}
