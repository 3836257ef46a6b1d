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

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::names;
use super::pod_topology_spread::common::PodTableCache;
use crate::engine::framework::index::labels::LabelColumns;
use crate::engine::framework::index::pods::FnvBuild;
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
    /// The snapshot's pods, interned for fast term matching at PreFilter (built once per
    /// cluster, shared by the clones of the plugin).
    pub(crate) pods: Arc<PodTableCache>,
}

impl Default for InterPodAffinity {
    fn default() -> Self {
        InterPodAffinity {
            hard_pod_affinity_weight: DEFAULT_HARD_POD_AFFINITY_WEIGHT,
            ignore_preferred_terms_of_existing_pods: false,
            pods: Arc::default(),
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
        // Most pods fail the selector: test it before the namespace.
        self.selector.matches(&pod.labels)
            && (self.all_namespaces || self.namespaces.contains(pod.key.namespace.as_str()))
    }
}

/// `podMatchesAllAffinityTerms`: false for no terms.
pub(crate) fn matches_all(terms: &[MergedTerm], pod: &Pod) -> bool {
    !terms.is_empty() && terms.iter().all(|t| t.matches(pod))
}

/// `topologyToMatchedTermCount`: topology key → value → count. Only non-zero counts are kept,
/// so `is_empty` means "no pair counted" as upstream's `len(map) == 0`.
///
/// Counted from a snapshot's nodes, a key's values are kept by id of the snapshot's label
/// columns ([`TopologyCounts::add_at`]: no string hashed or copied per node); counted from a
/// node's labels (or once a value the columns do not hold comes), by text. Either way the
/// same pairs and counts.
#[derive(Clone, Debug, Default)]
pub(crate) struct TopologyCounts {
    by_text: HashMap<String, HashMap<String, i64, FnvBuild>, FnvBuild>,
    /// Keys counted by value id (none of them also in `by_text`).
    by_id: Vec<IdCounts>,
    /// The columns the ids are of.
    columns: Option<Arc<LabelColumns>>,
}

/// One key's counts by value id.
#[derive(Clone, Debug)]
struct IdCounts {
    key: String,
    column: u32,
    counts: Vec<i64>,
    nonzero: usize,
}

impl PartialEq for TopologyCounts {
    fn eq(&self, other: &Self) -> bool {
        self.pairs() == other.pairs()
    }
}

impl Eq for TopologyCounts {}

impl TopologyCounts {
    /// Adds `delta` to the pair, dropping it when it reaches zero.
    pub(crate) fn add(&mut self, key: &str, value: &str, delta: i64) {
        if delta == 0 {
            return;
        }
        if let Some(i) = self.by_id.iter().position(|c| c.key == key) {
            let column = self
                .columns
                .as_ref()
                .and_then(|cols| cols.column_by_index(self.by_id[i].column).id_of(value));
            match column {
                Some(id) => return self.add_id(i, id, delta),
                None => self.move_to_text(i),
            }
        }
        if !self.by_text.contains_key(key) {
            self.by_text.insert(key.to_string(), HashMap::default());
        }
        let Some(inner) = self.by_text.get_mut(key) else {
            return;
        };
        let n = match inner.get_mut(value) {
            Some(n) => {
                *n += delta;
                *n
            }
            None => {
                inner.insert(value.to_string(), delta);
                delta
            }
        };
        if n == 0 {
            inner.remove(value);
            if inner.is_empty() {
                self.by_text.remove(key);
            }
        }
    }

    /// [`TopologyCounts::add`] for the value the node at `node` of `cols` has for the key of
    /// `column` (`key`; a column from [`LabelColumns::column_at`]); nothing when the node
    /// lacks the key.
    pub(crate) fn add_at(&mut self, cols: &Arc<LabelColumns>, column: u32, key: &str, node: usize, delta: i64) {
        let Some(id) = cols.column_by_index(column).id(node) else {
            return;
        };
        if delta == 0 {
            return;
        }
        let same = match &self.columns {
            Some(c) => c.stamp() == cols.stamp(),
            None => {
                self.columns = Some(cols.clone());
                true
            }
        };
        if !same || (!self.by_text.is_empty() && self.by_text.contains_key(key)) {
            return self.add(key, cols.column_by_index(column).value(id), delta);
        }
        let i = match self.by_id.iter().position(|c| c.column == column) {
            Some(i) => i,
            None => {
                self.by_id.push(IdCounts {
                    key: key.to_string(),
                    column,
                    counts: vec![0; cols.column_by_index(column).len_values()],
                    nonzero: 0,
                });
                self.by_id.len() - 1
            }
        };
        self.add_id(i, id, delta);
    }

    fn add_id(&mut self, i: usize, id: u32, delta: i64) {
        let c = &mut self.by_id[i];
        let n = &mut c.counts[id as usize];
        let was = *n;
        *n += delta;
        match (was == 0, *n == 0) {
            (true, false) => c.nonzero += 1,
            (false, true) => c.nonzero -= 1,
            _ => {}
        }
        if c.nonzero == 0 {
            self.by_id.swap_remove(i);
        }
    }

    /// Moves a key counted by id to the counts by text.
    fn move_to_text(&mut self, i: usize) {
        let c = self.by_id.swap_remove(i);
        let Some(cols) = &self.columns else { return };
        let col = cols.column_by_index(c.column);
        let inner: HashMap<String, i64, FnvBuild> = (0..c.counts.len() as u32)
            .filter(|&id| c.counts[id as usize] != 0)
            .map(|id| (col.value(id).to_string(), c.counts[id as usize]))
            .collect();
        self.by_text.insert(c.key, inner);
    }

    /// `update`: adds `delta` to the node's pair for `key`, if the node has that label.
    pub(crate) fn update(&mut self, node_labels: &Labels, key: &str, delta: i64) {
        if let Some(v) = node_labels.get(key) {
            self.add(key, v, delta);
        }
    }

    /// The count of a pair (0 when absent).
    pub(crate) fn get(&self, key: &str, value: &str) -> i64 {
        if let Some(c) = self.by_id.iter().find(|c| c.key == key) {
            let cols = self.columns.as_ref().map(|cols| cols.column_by_index(c.column));
            return cols
                .and_then(|col| col.id_of(value))
                .map_or(0, |id| c.counts[id as usize]);
        }
        self.by_text.get(key).and_then(|m| m.get(value)).copied().unwrap_or(0)
    }

    /// Per value id of `cols`' column for `key`, whether the count is above zero, when the key
    /// is counted by id on these columns.
    pub(crate) fn positive_by_id(&self, cols: &LabelColumns, key: &str) -> Option<Box<[bool]>> {
        let same = self.columns.as_ref().is_some_and(|c| c.stamp() == cols.stamp());
        let c = self.by_id.iter().find(|c| c.key == key).filter(|_| same)?;
        Some(c.counts.iter().map(|&n| n > 0).collect())
    }

    /// No pair counted.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_text.is_empty() && self.by_id.is_empty()
    }

    /// Topology keys with counts, in no particular order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.by_text
            .keys()
            .map(String::as_str)
            .chain(self.by_id.iter().map(|c| c.key.as_str()))
    }

    /// Topology keys with counts, sorted.
    pub(crate) fn keys_sorted(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.keys().collect();
        v.sort_unstable();
        v
    }

    /// The values counted for a key, with their counts (non-zero), in no particular order.
    pub(crate) fn values_of(&self, key: &str) -> Vec<(&str, i64)> {
        if let Some(c) = self.by_id.iter().find(|c| c.key == key) {
            let Some(cols) = &self.columns else { return Vec::new() };
            let col = cols.column_by_index(c.column);
            return (0..c.counts.len() as u32)
                .filter(|&id| c.counts[id as usize] != 0)
                .map(|id| (col.value(id), c.counts[id as usize]))
                .collect();
        }
        self.by_text
            .get(key)
            .into_iter()
            .flatten()
            .map(|(v, n)| (v.as_str(), *n))
            .collect()
    }

    /// Every pair, sorted.
    fn pairs(&self) -> Vec<(&str, &str, i64)> {
        let mut v: Vec<(&str, &str, i64)> = self
            .keys()
            .flat_map(|k| self.values_of(k).into_iter().map(move |(v, n)| (k, v, n)))
            .collect();
        v.sort_unstable();
        v
    }

    /// Every pair, sorted (tests and traces).
    #[cfg(test)]
    pub(crate) fn sorted(&self) -> Vec<(String, String, i64)> {
        self.pairs()
            .into_iter()
            .map(|(k, v, n)| (k.to_string(), v.to_string(), n))
            .collect()
    }
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
        pods: Arc::default(),
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

    #[test]
    fn counts_drop_zero_pairs() {
        let mut c = TopologyCounts::default();
        c.add("zone", "z1", 2);
        c.add("zone", "z2", 1);
        c.add("zone", "z1", -2);
        assert_eq!(c.sorted(), vec![("zone".into(), "z2".into(), 1)]);
        c.add("zone", "z2", -1);
        assert!(c.is_empty());
        c.add("zone", "z1", 0);
        assert!(c.is_empty());
    }

    /// Counted by value id of label columns, by text, or both for one key: the same pairs.
    #[test]
    fn counts_by_column_id_are_the_counts_by_text() {
        let labels = |z: &str, h: &str| -> Labels {
            [("zone", z), ("host", h)]
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect()
        };
        let nodes = [labels("z1", "h1"), labels("z2", "h2"), labels("z1", "h3")];
        let cols = Arc::new(LabelColumns::build(nodes.iter()));
        let zone = cols.column_at("zone").unwrap().0;
        let (mut by_id, mut by_text) = (TopologyCounts::default(), TopologyCounts::default());
        for (node, n) in [(0, 2), (1, 1), (2, 3), (1, -1)] {
            by_id.add_at(&cols, zone, "zone", node, n);
            by_text.update(&nodes[node], "zone", n);
        }
        assert_eq!(by_id.sorted(), vec![("zone".into(), "z1".into(), 5)]);
        assert_eq!(by_id, by_text);
        assert_eq!(
            (
                by_id.get("zone", "z1"),
                by_id.get("zone", "z2"),
                by_id.get("zone", "z9")
            ),
            (5, 0, 0)
        );
        assert_eq!(&*by_id.positive_by_id(&cols, "zone").unwrap(), &[true, false]);
        assert!(by_text.positive_by_id(&cols, "zone").is_none());
        // A value no node has moves the key to text, with what it had.
        by_id.add("zone", "z9", 4);
        by_text.add("zone", "z9", 4);
        assert_eq!(by_id, by_text);
        assert!(by_id.positive_by_id(&cols, "zone").is_none());
        by_id.add_at(&cols, zone, "zone", 1, 2);
        assert_eq!(by_id.get("zone", "z2"), 2);
        // Dropped at zero: empty again.
        for (v, n) in [("z1", -5), ("z9", -4), ("z2", -2)] {
            by_id.add("zone", v, n);
        }
        assert!(by_id.is_empty());
        let host = cols.column_at("host").unwrap().0;
        by_id.add_at(&cols, host, "host", 2, 1);
        assert_eq!(by_id.keys_sorted(), vec!["host"]);
        by_id.add("host", "h3", -1);
        assert!(by_id.is_empty());
    }
}
