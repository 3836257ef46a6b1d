//! Existing pods' pod-affinity terms that can score an incoming pod (InterPodAffinity's
//! PreScore: required affinity terms weighted `hardPodAffinityWeight`, preferred affinity and
//! anti-affinity terms), grouped by term (not upstream: upstream matches every existing pod's
//! terms against the incoming pod). Pods of one workload carry equal terms, so an incoming pod
//! is matched once per distinct term instead of once per pod. Built with the snapshot, like
//! [`super::pods::PodTable`], and rebuilt when a pod with such terms changes
//! (`snapshot_update`).

use std::collections::HashMap;

use crate::engine::framework::node_info::{AffinityTerm, NodeInfo};

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
