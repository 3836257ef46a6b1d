//! Port of framework/plugins/interpodaffinity/plugin.go (v1.30.6): the InterPodAffinity plugin,
//! its args, and what filtering and scoring share: the incoming pod's terms with their
//! namespaceSelector unrolled into namespace names, and counts per topology pair.
//!
//! Filtering (required terms, both directions) is in `filtering.rs`, scoring (preferred terms,
//! both directions, and existing pods' required affinity) in `scoring.rs`.
//!
//! matchLabelKeys / mismatchLabelKeys: the v1.30 scheduler never reads them; the API server
//! merges them into the label selector at pod creation when MatchLabelKeysInPodAffinity is on
//! (beta, on by default, from 1.31). `PodInfo::new` reproduces that merge for 1.31+ snapshots,
//! so the plugin only sees the merged selectors, as upstream does.

mod filtering;
mod scoring;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::names;
use crate::engine::framework::index::pods::PodTerm;
use crate::engine::framework::node_info::{AffinityTerm, PodInfo, WeightedAffinityTerm};
use crate::engine::framework::plugin::{Ctx, Plugin, PluginSlots, Signing};
use crate::engine::framework::trace::Fact;
use crate::engine::release::Features;
use crate::model::Pod;
use crate::model::selector::{Labels, Selector};

/// Default of `hardPodAffinityWeight` (v1 defaults).
pub(crate) const DEFAULT_HARD_POD_AFFINITY_WEIGHT: i32 = 1;

/// InterPodAffinityArgs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Args {
    /// Score weight of existing pods' required affinity terms that the incoming pod matches.
    #[serde(default)]
    pub hard_pod_affinity_weight: Option<i32>,
    /// Ignore existing pods' preferred terms unless the incoming pod has preferred terms.
    #[serde(default)]
    pub ignore_preferred_terms_of_existing_pods: bool,
}

/// InterPodAffinity.
#[derive(Clone, Debug)]
pub(crate) struct InterPodAffinity {
    /// hardPodAffinityWeight.
    pub hard_pod_affinity_weight: i32,
    /// ignorePreferredTermsOfExistingPods.
    pub ignore_preferred_terms_of_existing_pods: bool,
}

impl Default for InterPodAffinity {
    fn default() -> Self {
        InterPodAffinity {
            hard_pod_affinity_weight: DEFAULT_HARD_POD_AFFINITY_WEIGHT,
            ignore_preferred_terms_of_existing_pods: false,
        }
    }
}

impl Plugin for InterPodAffinity {
    fn name(&self) -> &'static str {
        names::INTER_POD_AFFINITY
    }

    fn sign_pod(&self, _: &Ctx<'_>, pod: &PodInfo) -> Signing {
        let affinity = pod.pod.spec().affinity.as_ref();
        if affinity.is_some_and(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some()) {
            return Signing::Refused("pods with InterPodAffinity are not signable");
        }
        Signing::Signed
    }
}

/// A term of the incoming pod with its namespaceSelector unrolled into namespace names
/// (`mergeAffinityTermNamespacesIfNotEmpty`): the selector is then either "all namespaces"
/// (an empty selector) or gone, so matching needs no namespace labels.
#[derive(Clone, Debug)]
pub(crate) struct MergedTerm {
    /// Namespaces listed, own namespace by default, plus those the selector picked.
    pub namespaces: BTreeSet<String>,
    /// The namespaceSelector was empty: every namespace matches.
    pub all_namespaces: bool,
    /// Label selector for pods.
    pub selector: Selector,
    /// Topology key.
    pub topology_key: String,
}

impl MergedTerm {
    /// Unrolls `t.namespace_selector` against the namespaces of the snapshot.
    pub(crate) fn new(t: &AffinityTerm, namespaces: &BTreeMap<String, Labels>) -> Self {
        let mut ns = t.namespaces.clone();
        let all_namespaces = t.namespace_selector.is_empty();
        if !all_namespaces && !t.namespace_selector.is_nothing() {
            for (name, labels) in namespaces {
                if t.namespace_selector.matches(labels) {
                    ns.insert(name.clone());
                }
            }
        }
        MergedTerm {
            namespaces: ns,
            all_namespaces,
            selector: t.selector.clone(),
            topology_key: t.topology_key.clone(),
        }
    }

    /// `AffinityTerm.Matches(pod, nil)` on the merged term.
    pub(crate) fn matches(&self, pod: &Pod) -> bool {
        self.pod_term().matches(pod)
    }

    /// The term as the snapshot's index matches pods against it.
    pub(crate) fn pod_term(&self) -> PodTerm<'_> {
        PodTerm {
            selector: &self.selector,
            namespaces: (!self.all_namespaces).then_some(&self.namespaces),
        }
    }
}

/// `podMatchesAllAffinityTerms`: false for no terms.
pub(crate) fn matches_all(terms: &[MergedTerm], pod: &Pod) -> bool {
    !terms.is_empty() && terms.iter().all(|t| t.matches(pod))
}

/// Required terms in words: `none`, or how many with their topology keys.
fn describe_required(terms: &[AffinityTerm]) -> String {
    if terms.is_empty() {
        return "none".into();
    }
    let keys: Vec<&str> = terms.iter().map(|t| t.topology_key.as_str()).collect();
    format!("{} term(s), topology keys {}", terms.len(), keys.join(", "))
}

/// Preferred terms in words: `none`, or each term's weight and topology key.
fn describe_preferred(terms: &[WeightedAffinityTerm]) -> String {
    if terms.is_empty() {
        return "none".into();
    }
    let items: Vec<String> = terms
        .iter()
        .map(|w| format!("weight {} on {}", w.weight, w.term.topology_key))
        .collect();
    items.join(", ")
}

/// What PreFilter reads from the pod: its required terms (matchLabelKeys merged as the
/// release merges them).
pub(crate) fn required_facts(pod: &PodInfo) -> Vec<Fact> {
    vec![
        Fact::new("required pod affinity", describe_required(pod.required_affinity())),
        Fact::new(
            "required pod anti-affinity",
            describe_required(pod.required_anti_affinity()),
        ),
    ]
}

/// What PreScore reads from the pod: its preferred terms.
pub(crate) fn preferred_facts(pod: &PodInfo) -> Vec<Fact> {
    vec![
        Fact::new("preferred pod affinity", describe_preferred(pod.preferred_affinity())),
        Fact::new(
            "preferred pod anti-affinity",
            describe_preferred(pod.preferred_anti_affinity()),
        ),
    ]
}

/// Registers InterPodAffinity.
pub(crate) fn register(args: &Value, _: &Features) -> Result<PluginSlots, String> {
    let a: Args = super::decode_args(args)?;
    let w = a.hard_pod_affinity_weight.unwrap_or(DEFAULT_HARD_POD_AFFINITY_WEIGHT);
    if !(0..=100).contains(&w) {
        return Err(format!(
            "hardPodAffinityWeight: Invalid value: {w}: not in valid range [0, 100]"
        ));
    }
    let p = Arc::new(InterPodAffinity {
        hard_pod_affinity_weight: w,
        ignore_preferred_terms_of_existing_pods: a.ignore_preferred_terms_of_existing_pods,
    });
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p.clone()),
        pre_score: Some(p.clone()),
        score: Some(p),
        ..Default::default()
    })
}

#[cfg(test)]
pub(crate) mod testkit;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Release;

    #[test]
    fn args_defaults_and_validation() {
        let s = register(&Value::Null, &Release::OLDEST.into()).expect("defaults");
        assert!(s.pre_filter.is_some() && s.filter.is_some() && s.pre_score.is_some() && s.score.is_some());
        assert!(
            register(
                &serde_json::json!({"hardPodAffinityWeight": 0}),
                &Release::OLDEST.into()
            )
            .is_ok()
        );
        assert!(
            register(
                &serde_json::json!({"hardPodAffinityWeight": 100}),
                &Release::OLDEST.into()
            )
            .is_ok()
        );
        assert_eq!(
            register(
                &serde_json::json!({"hardPodAffinityWeight": 101}),
                &Release::OLDEST.into()
            )
            .err(),
            Some("hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]".to_string())
        );
        assert_eq!(
            register(
                &serde_json::json!({"hardPodAffinityWeight": -1}),
                &Release::OLDEST.into()
            )
            .err(),
            Some("hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]".to_string())
        );
        assert!(register(&serde_json::json!({"bogus": 1}), &Release::OLDEST.into()).is_err());
        assert!(
            register(
                &serde_json::json!({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "InterPodAffinityArgs",
                    "ignorePreferredTermsOfExistingPods": true}),
                &Release::OLDEST.into()
            )
            .is_ok()
        );
    }
}
