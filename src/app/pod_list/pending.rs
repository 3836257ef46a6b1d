//! The pending pods in queue order, kept with the cluster they are of.

use std::cmp::Ordering;
use std::sync::{Arc, Weak};

use crate::model::queue_order;
use crate::model::{Cluster, Pod};

/// The pending pods in the scheduling queue's order ([`queue_order`]), kept with the cluster
/// they are of: built from every pod when the cluster is replaced, changed pod by pod when a
/// watch's events are applied to it ([`PendingPods::apply`]).
#[derive(Clone, Debug, Default)]
pub struct PendingPods {
    /// The cluster they are of (a `Weak` keeps the address from being reused while compared).
    pub(super) cluster: Weak<Cluster>,
    /// The pods.
    pub(super) pods: Vec<Arc<Pod>>,
    /// How many times they were found among every pod of a cluster and sorted.
    pub(super) whole: u64,
}

impl PendingPods {
    /// True when they are the pending pods of `cluster`.
    pub fn is_current(&self, cluster: &Arc<Cluster>) -> bool {
        std::ptr::eq(self.cluster.as_ptr(), Arc::as_ptr(cluster))
    }

    /// Brings them up to date with `cluster`: every pod walked and the pending ones sorted,
    /// unless they are current.
    pub fn refresh(&mut self, cluster: &Arc<Cluster>) {
        if self.is_current(cluster) {
            return;
        }
        self.pods = cluster.pending_pods().into_iter().cloned().collect();
        self.cluster = Arc::downgrade(cluster);
        self.whole += 1;
    }

    /// How many times they were found among every pod of a cluster and sorted (not changed pod
    /// by pod).
    pub fn whole_builds(&self) -> u64 {
        self.whole
    }

    /// Applies the pods a watch changed (each the cluster's version before and after, as
    /// [`ClusterState::update_cluster`](crate::model::event::ClusterState) reports them) to
    /// the pending pods of the cluster before them, now `cluster`: a pending version taken out
    /// and a pending one put in where the queue's order puts it. When one is not found (they
    /// were not that cluster's), they are left to be built whole at the next refresh.
    pub fn apply(&mut self, cluster: &Arc<Cluster>, changes: &[crate::model::live_update::Change<Pod>]) {
        for (before, after) in changes {
            if let Some(b) = before.as_ref().filter(|p| p.is_pending()) {
                match self.pods.binary_search_by(|x| queue_order(x, b)) {
                    Ok(at) => {
                        self.pods.remove(at);
                    }
                    Err(_) => {
                        self.cluster = Weak::new();
                        return;
                    }
                }
            }
            if let Some(a) = after.as_ref().filter(|p| p.is_pending()) {
                let at = self.pods.partition_point(|x| queue_order(x, a) == Ordering::Less);
                self.pods.insert(at, a.clone());
            }
        }
        self.cluster = Arc::downgrade(cluster);
    }

    /// The pods, in queue order.
    pub fn pods(&self) -> &[Arc<Pod>] {
        &self.pods
    }
}
