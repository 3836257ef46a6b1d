//! Existing pods' pod-affinity terms that can score an incoming pod (InterPodAffinity's
//! PreScore: required affinity terms weighted `hardPodAffinityWeight`, preferred affinity and
//! anti-affinity terms), grouped by term (not upstream: upstream matches every existing pod's
//! terms against the incoming pod). Pods of one workload carry equal terms, so an incoming pod
//! is matched once per distinct term instead of once per pod. Built with the snapshot, like
//! [`super::pods::PodTable`], and rebuilt when a pod with such terms changes
//! (`snapshot_update`).

use std::collections::HashMap;

use crate::engine::framework::node_info::{AffinityTerm, NodeInfo, PodInfo};

/// What one use of a term adds to its topology pair when the incoming pod matches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Weight {
    /// A required affinity term: `hardPodAffinityWeight` (when positive).
    Hard,
    /// A preferred term's weight, negative for anti-affinity.
    Preferred(i64),
}

/// One existing pod's term.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TermUse {
    /// The node the pod runs on (index into the snapshot's nodes).
    pub node: u32,
    /// The term (index into [`ScoringTerms::terms`]).
    pub term: u32,
    /// What it adds.
    pub weight: Weight,
}

/// The terms and their uses, node by node.
#[derive(Debug, Default)]
pub(crate) struct ScoringTerms {
    /// The distinct terms.
    pub terms: Vec<AffinityTerm>,
    /// Every use, in node order.
    pub uses: Vec<TermUse>,
}

impl ScoringTerms {
    /// Gathers the terms of the pods with affinity on `nodes`.
    pub(crate) fn build(nodes: &[NodeInfo]) -> Self {
        let mut ids: HashMap<&AffinityTerm, u32> = HashMap::new();
        let mut terms: Vec<&AffinityTerm> = Vec::new();
        let mut uses = Vec::new();
        for (ni, node) in nodes.iter().enumerate() {
            for ep in &node.affinity_pods {
                let required = ep.required_affinity().iter().map(|t| (t, Weight::Hard));
                let preferred = ep
                    .preferred_affinity()
                    .iter()
                    .map(|w| (&w.term, Weight::Preferred(i64::from(w.weight))));
                let anti = ep
                    .preferred_anti_affinity()
                    .iter()
                    .map(|w| (&w.term, Weight::Preferred(-i64::from(w.weight))));
                for (t, weight) in required.chain(preferred).chain(anti) {
                    let id = *ids.entry(t).or_insert_with(|| {
                        terms.push(t);
                        (terms.len() - 1) as u32
                    });
                    uses.push(TermUse {
                        node: ni as u32,
                        term: id,
                        weight,
                    });
                }
            }
        }
        ScoringTerms {
            terms: terms.into_iter().cloned().collect(),
            uses,
        }
    }
}

/// One existing pod's required anti-affinity term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AntiUse {
    /// The node the pod runs on (index into the snapshot's nodes).
    pub node: u32,
    /// The pod's position among the node's pods with required anti-affinity.
    pub pod: u32,
    /// The term's position among the pod's required anti-affinity terms.
    pub at: u32,
    /// The term (index into [`AntiAffinityTerms::terms`]).
    pub term: u32,
}

/// The existing pods' required anti-affinity terms (InterPodAffinity's PreFilter,
/// `getExistingAntiAffinityCounts`), grouped by term like [`ScoringTerms`] (not upstream:
/// upstream matches every existing pod's terms against the incoming pod): the replicas of a
/// workload carry equal terms, so an incoming pod is matched once per distinct term. Built
/// with the snapshot; a pod bound or assumed adds its uses, any other change of a pod with
/// such terms builds them again (`snapshot_update`).
#[derive(Clone, Debug, Default)]
pub(crate) struct AntiAffinityTerms {
    /// The distinct terms.
    pub terms: Vec<AffinityTerm>,
    ids: HashMap<AffinityTerm, u32>,
    /// Every use, in node order, then in the order of the node's pods and of their terms
    /// (the order of a walk over the nodes' pods with required anti-affinity).
    pub uses: Vec<AntiUse>,
}

impl AntiAffinityTerms {
    /// Gathers the required anti-affinity terms of the pods on `nodes`.
    pub(crate) fn build(nodes: &[NodeInfo]) -> Self {
        let mut t = AntiAffinityTerms::default();
        for (ni, node) in nodes.iter().enumerate() {
            for (pi, ep) in node.required_anti_affinity_pods.iter().enumerate() {
                t.push(ni, pi, ep);
            }
        }
        t
    }

    fn push(&mut self, node: usize, pod: usize, ep: &PodInfo) {
        for (at, term) in ep.required_anti_affinity().iter().enumerate() {
            let id = match self.ids.get(term) {
                Some(&id) => id,
                None => {
                    let id = self.terms.len() as u32;
                    self.terms.push(term.clone());
                    self.ids.insert(term.clone(), id);
                    id
                }
            };
            self.uses.push(AntiUse {
                node: node as u32,
                pod: pod as u32,
                at: at as u32,
                term: id,
            });
        }
    }

    /// The same after `ep` was added to node `node` as its last pod with required
    /// anti-affinity (at position `pod` among them): its uses come after the node's others.
    pub(crate) fn add(&mut self, node: usize, pod: usize, ep: &PodInfo) {
        let after = self.uses.partition_point(|u| u.node as usize <= node);
        let mut rest = self.uses.split_off(after);
        self.push(node, pod, ep);
        self.uses.append(&mut rest);
    }
}
