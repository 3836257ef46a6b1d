//! What each node has requested and what a node that nearly fits is missing for a pod
//! ("needs 250m more cpu"): the facts behind the fix hints ([`super::fix`]) and the TUI's
//! Filter table. Pure functions of the cluster.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::format;
use crate::engine::Features;
use crate::model::resources::Resource;
use crate::model::{Cluster, Node, Pod};

/// What the pods bound to a node request.
#[derive(Clone, Debug, Default)]
pub struct NodeUsage {
    /// Sum of the pods' effective requests.
    pub requested: Resource,
    /// The pods, in the cluster's order (by key). Shared with the cluster they were summed
    /// from (the app's: both are replaced, or updated, together), so that a pod added or
    /// removed elsewhere in the cluster leaves them as they are.
    pub pods: Vec<Arc<Pod>>,
}

/// The same sums of the same pods (by key).
impl PartialEq for NodeUsage {
    fn eq(&self, other: &Self) -> bool {
        self.requested == other.requested && self.pods.iter().map(|p| &p.key).eq(other.pods.iter().map(|p| &p.key))
    }
}

impl Eq for NodeUsage {}

impl NodeUsage {
    /// The pods.
    pub fn pods_iter(&self) -> impl Iterator<Item = &Pod> + Clone + '_ {
        self.pods.iter().map(|p| &**p)
    }
}

/// Requests and pods per node, counting every bound pod that has not finished (as the
/// scheduler's NodeInfo does).
pub(crate) fn node_usage(cluster: &Cluster, features: &Features) -> BTreeMap<String, NodeUsage> {
    node_usage_and_unplaced(cluster, features).0
}

/// The pods bound to a name no node of the cluster has, by that name (in the cluster's order):
/// not counted on any node until the node comes.
pub(crate) type Unplaced = BTreeMap<String, Vec<Arc<Pod>>>;

/// [`node_usage`], and the pods bound to a node the cluster does not have.
pub(crate) fn node_usage_and_unplaced(
    cluster: &Cluster,
    features: &Features,
) -> (BTreeMap<String, NodeUsage>, Unplaced) {
    // nodes found by name through a hash index (a 100,000-pod cluster looks a node up per pod)
    let index: std::collections::HashMap<&str, usize> = cluster
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect();
    let mut usage: Vec<NodeUsage> = cluster.nodes.iter().map(|_| NodeUsage::default()).collect();
    let mut unplaced = Unplaced::new();
    for p in &cluster.pods {
        if p.is_finished() {
            continue;
        }
        if let Some(n) = &p.node_name {
            match index.get(&**n).and_then(|&i| usage.get_mut(i)) {
                Some(u) => {
                    u.requested.add_scaled(&features.requests_of(p).resource, 1);
                    u.pods.push(p.clone());
                }
                None => unplaced.entry(n.to_string()).or_default().push(p.clone()),
            }
        }
    }
    (
        cluster.nodes.iter().map(|n| n.name.clone()).zip(usage).collect(),
        unplaced,
    )
}

/// One resource a node lacks for a pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Missing {
    /// Resource name ("pods" for pod slots).
    pub resource: String,
    /// How much more is needed (milli-cores for cpu, bytes for memory, count otherwise).
    pub amount: i64,
    /// The shortfall as a fraction of the request (for ordering), in parts per thousand.
    pub per_mille: i64,
    /// The pod asks more than the node's allocatable (or the node has none of it): no
    /// eviction or freed capacity would make it fit.
    pub beyond: Option<Beyond>,
}

/// A request beyond what a node has at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Beyond {
    /// What the pod asks.
    pub requested: i64,
    /// The node's allocatable.
    pub allocatable: i64,
}

/// The pods nominated to each node that NodeResourcesFit counts for `pod`, as the framework
/// adds them (RunFilterPluginsWithNominatedPods): not bound, priority at least the pod's, not
/// the pod itself.
pub(crate) fn nominated_usage(cluster: &Cluster, pod: &Pod, features: &Features) -> BTreeMap<String, NodeUsage> {
    let mut m: BTreeMap<String, NodeUsage> = BTreeMap::new();
    for p in &cluster.pods {
        if p.node_name.is_some() || p.is_finished() || p.key == pod.key || p.priority < pod.priority {
            continue;
        }
        if let Some(n) = p.nominated_node_name() {
            let u = m.entry(n.to_string()).or_default();
            u.requested.add_scaled(&features.requests_of(p).resource, 1);
            u.pods.push(p.clone());
        }
    }
    m
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(b) = self.beyond {
            return if self.resource == "pods" {
                write!(f, "the node allows {} pod(s)", b.allocatable)
            } else if b.allocatable <= 0 {
                write!(
                    f,
                    "asks {} {}; the node has none",
                    format::amount(&self.resource, b.requested),
                    self.resource
                )
            } else {
                write!(
                    f,
                    "asks {} {}; the node has {} allocatable",
                    format::amount(&self.resource, b.requested),
                    self.resource,
                    format::amount(&self.resource, b.allocatable)
                )
            };
        }
        if self.resource == "pods" {
            write!(
                f,
                "needs {} more pod slot{}",
                self.amount,
                if self.amount == 1 { "" } else { "s" }
            )
        } else {
            write!(
                f,
                "needs {} more {}",
                format::amount(&self.resource, self.amount),
                self.resource
            )
        }
    }
}

/// What `node` lacks for `pod`: each requested resource beyond allocatable minus what the
/// bound pods (`usage`) and the nominated pods NodeResourcesFit counts (`nominated`) request,
/// and a pod slot when the node is full. A request beyond the node's allocatable is marked
/// [`Beyond`].
pub(crate) fn missing(
    pod: &Pod,
    node: &Node,
    usage: Option<&NodeUsage>,
    nominated: Option<&NodeUsage>,
    features: &Features,
) -> Vec<Missing> {
    let empty = NodeUsage::default();
    let (u, nom) = (usage.unwrap_or(&empty), nominated.unwrap_or(&empty));
    let mut out = Vec::new();
    let allowed = node.allocatable.allowed_pod_number;
    let slots = allowed - i64::try_from(u.pods.len() + nom.pods.len()).unwrap_or(i64::MAX);
    if slots < 1 {
        out.push(Missing {
            resource: "pods".into(),
            amount: 1 - slots,
            per_mille: 1000,
            beyond: (allowed < 1).then_some(Beyond {
                requested: 1,
                allocatable: allowed,
            }),
        });
    }
    for (name, &req) in &features.requests_of(pod).list {
        if req <= 0 || name == "pods" {
            continue;
        }
        let alloc = node.allocatable.get(name);
        let free = alloc - u.requested.get(name) - nom.requested.get(name);
        if req > free {
            let amount = req - free.max(0);
            out.push(Missing {
                resource: name.to_string(),
                amount,
                per_mille: amount * 1000 / req,
                beyond: (req > alloc).then_some(Beyond {
                    requested: req,
                    allocatable: alloc,
                }),
            });
        }
    }
    out
}
