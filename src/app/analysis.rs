//! Facts the panels show that the trace does not spell out: what each node has requested, what a
//! node that nearly fits is missing ("needs 250m more cpu"), reason counts, and the rows of the
//! Filter and Score tables in display order. Pure functions of the cluster and the explanation.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::FilterSort;
use crate::engine::Features;
use crate::engine::framework::trace::{Explanation, FilterDetail, NodeFilter, NodeScoreTrace};
use crate::engine::plugins::names;
pub(crate) use crate::explain::usage::NodeUsage;
pub(crate) use crate::explain::usage::{
    Missing, Unplaced, missing, node_usage, node_usage_and_unplaced, nominated_usage,
};
use crate::model::live_update::Updated;
use crate::model::resources::Resource;
use crate::model::{Cluster, Node, ObjectKey, Pod};

/// Label holding a node's zone.
pub(crate) const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

/// A node's standing at Filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum FilterClass {
    /// Passed every filter.
    Fit,
    /// Failed only NodeResourcesFit: more resources would make it fit.
    NearlyFit,
    /// Failed for other reasons.
    NoFit,
    /// Failed only NodeResourcesFit, asking more than the node has at all: it never fits.
    TooSmall,
    /// PreFilter left the node out; no filter ran.
    Excluded,
}

impl FilterClass {
    /// Short label.
    pub(crate) fn label(self) -> &'static str {
        match self {
            FilterClass::Fit => "fit",
            FilterClass::NearlyFit => "nearly",
            FilterClass::NoFit => "no fit",
            FilterClass::TooSmall => "too small",
            FilterClass::Excluded => "excluded",
        }
    }
}

/// One row of the Filter table.
#[derive(Clone, Debug)]
pub(crate) struct FilterRow<'a> {
    /// The trace entry.
    pub entry: &'a NodeFilter,
    /// Its class.
    pub class: FilterClass,
    /// What is missing (for nearly-fit and resource failures).
    pub missing: Vec<Missing>,
    /// The node's zone label ("" when absent).
    pub zone: String,
}

impl FilterRow<'_> {
    /// The first failing plugin ("" when none).
    pub(crate) fn plugin(&self) -> &str {
        self.entry.failure.as_ref().map_or("", |f| f.plugin)
    }

    /// The first failure's reasons, joined.
    pub(crate) fn reason(&self) -> String {
        match &self.entry.failure {
            Some(f) => f.reasons.join(", "),
            None if self.entry.excluded_by_prefilter => "not in PreFilter's node set".into(),
            None => String::new(),
        }
    }
}

/// Classifies a node's filter entry.
pub(crate) fn classify(entry: &NodeFilter) -> FilterClass {
    if entry.feasible {
        FilterClass::Fit
    } else if entry.excluded_by_prefilter {
        FilterClass::Excluded
    } else if entry
        .failure
        .as_ref()
        .is_some_and(|f| f.plugin == names::NODE_RESOURCES_FIT)
        && entry.all_failures.iter().all(|f| f.plugin == names::NODE_RESOURCES_FIT)
    {
        FilterClass::NearlyFit
    } else {
        FilterClass::NoFit
    }
}

/// [`classify`], knowing what the pod asks: a node that fails only on resources is nearly
/// fitting only when it could hold the pod at all (else [`FilterClass::TooSmall`]).
pub(crate) fn class_with(entry: &NodeFilter, missing: &[Missing]) -> FilterClass {
    match classify(entry) {
        FilterClass::NearlyFit if missing.iter().any(|m| m.beyond.is_some()) => FilterClass::TooSmall,
        c => c,
    }
}

/// [`class_with`] for one node, computing what it misses only when it could be nearly fitting.
pub(crate) fn class_for(
    entry: &NodeFilter,
    pod: Option<&Pod>,
    node: Option<&Node>,
    usage: Option<&NodeUsage>,
    nominated: Option<&NodeUsage>,
    features: &Features,
) -> FilterClass {
    match (classify(entry), pod, node) {
        (FilterClass::NearlyFit, Some(p), Some(n)) => class_with(entry, &missing(p, n, usage, nominated, features)),
        (c, _, _) => c,
    }
}

/// The Filter table rows, filtered by `query` (fuzzy, on node, zone, plugin and reason) and
/// sorted by `sort`.
pub(crate) fn filter_rows<'a>(
    cluster: &Cluster,
    usage: &BTreeMap<String, NodeUsage>,
    features: &Features,
    ex: &'a Explanation,
    sort: FilterSort,
    query: &str,
) -> Vec<FilterRow<'a>> {
    let pod = cluster.pod(&ex.pod);
    let nominated = pod.map(|p| nominated_usage(cluster, p, features)).unwrap_or_default();
    let matcher = SkimMatcherV2::default();
    let mut rows: Vec<FilterRow<'a>> = ex
        .filter
        .iter()
        .map(|entry| {
            let node = cluster.node(&entry.node);
            let zone = node.and_then(|n| n.labels.get(ZONE_LABEL).cloned()).unwrap_or_default();
            let resource_failure = entry.all_failures.iter().any(|f| f.plugin == names::NODE_RESOURCES_FIT);
            let missing = match (pod, node) {
                (Some(p), Some(n)) if resource_failure => missing(
                    p,
                    n,
                    usage.get(entry.node.as_str()),
                    nominated.get(entry.node.as_str()),
                    features,
                ),
                _ => Vec::new(),
            };
            let class = class_with(entry, &missing);
            FilterRow {
                entry,
                class,
                missing,
                zone,
            }
        })
        .filter(|r| {
            query.is_empty() || {
                let hay = format!("{} {} {} {}", r.entry.node, r.zone, r.plugin(), r.reason());
                matcher.fuzzy_match(&hay, query).is_some()
            }
        })
        .collect();
    let shortfall = |r: &FilterRow<'_>| r.missing.iter().map(|m| m.per_mille).max().unwrap_or(0);
    match sort {
        FilterSort::Fit => rows.sort_by(|a, b| {
            a.class
                .cmp(&b.class)
                .then_with(|| shortfall(a).cmp(&shortfall(b)))
                .then_with(|| a.entry.node.cmp(&b.entry.node))
        }),
        FilterSort::Name => rows.sort_by(|a, b| a.entry.node.cmp(&b.entry.node)),
        FilterSort::Plugin => {
            rows.sort_by(|a, b| a.plugin().cmp(b.plugin()).then_with(|| a.entry.node.cmp(&b.entry.node)))
        }
        FilterSort::Zone => rows.sort_by(|a, b| a.zone.cmp(&b.zone).then_with(|| a.entry.node.cmp(&b.entry.node))),
    }
    rows
}

/// One line of what a failing filter plugin knows about a node (from the engine's trace).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DetailLine {
    /// The plugin that stated it.
    pub plugin: String,
    /// The line.
    pub text: String,
}

/// The per-node facts behind a Filter verdict, as the engine's trace states them: the
/// rejecting plugin's detail (which pods' anti-affinity terms match, why no pod matches an
/// affinity term, which claim a volume reason is about) and PodTopologySpread's arithmetic for
/// each constraint that fails (domain count, global minimum, skew against maxSkew). The same
/// lines `explain -o text` prints under the node.
pub(crate) fn node_detail(entry: &NodeFilter) -> Vec<DetailLine> {
    let first = entry.failure.as_ref().map_or("", |f| f.plugin);
    let mut out: Vec<DetailLine> = entry
        .detail
        .iter()
        .map(|d| DetailLine {
            plugin: first.to_string(),
            text: d.clone(),
        })
        .collect();
    for d in &entry.details {
        match d {
            FilterDetail::TopologySpread(checks) => {
                out.extend(checks.iter().filter(|c| !c.satisfied).map(|c| DetailLine {
                    plugin: names::POD_TOPOLOGY_SPREAD.to_string(),
                    text: format!("spread: {}", crate::explain::text::spread_line(c)),
                }));
            }
        }
    }
    out
}

/// How many nodes failed with each reason (first failures, as upstream's message counts them),
/// most frequent first, then by reason.
pub(crate) fn reason_counts(ex: &Explanation) -> Vec<(String, usize)> {
    let mut m: BTreeMap<String, usize> = BTreeMap::new();
    for f in &ex.filter {
        if let Some(fl) = &f.failure {
            for r in &fl.reasons {
                *m.entry(r.to_string()).or_insert(0) += 1;
            }
        } else if f.excluded_by_prefilter {
            *m.entry("not in PreFilter's node set".into()).or_insert(0) += 1;
        }
    }
    let mut v: Vec<(String, usize)> = m.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// Score rows by total (highest first), then node name.
pub(crate) fn score_rows(ex: &Explanation) -> Vec<&NodeScoreTrace> {
    let mut v: Vec<&NodeScoreTrace> = ex.score.iter().collect();
    v.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.node.cmp(&b.node)));
    v
}

/// The Score plugins in profile order (those present in the trace), then any others.
pub(crate) fn score_plugins(ex: &Explanation, profile_order: &[&str]) -> Vec<String> {
    let mut present: Vec<String> = Vec::new();
    for p in ex.score.iter().flat_map(|n| n.plugins.iter()) {
        if !present.iter().any(|q| q == p.plugin) {
            present.push(p.plugin.to_string());
        }
    }
    let mut out: Vec<String> = profile_order
        .iter()
        .filter(|p| present.iter().any(|x| x == *p))
        .map(|p| (*p).to_string())
        .collect();
    for p in present {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// A plugin name's capitals (`NodeResourcesFit` → `NRF`), or its first letters.
pub(crate) fn abbreviate(p: &str) -> String {
    let caps: String = p.chars().filter(char::is_ascii_uppercase).collect();
    if caps.len() >= 2 {
        caps
    } else {
        p.chars().take(6).collect()
    }
}

/// The rank of a node among the scored nodes (1 = best), ties sharing a rank.
pub(crate) fn score_rank(ex: &Explanation, node: &str) -> Option<usize> {
    let total = ex.score.iter().find(|s| s.node == node)?.total;
    Some(1 + ex.score.iter().filter(|s| s.total > total).count())
}

/// Applies to `usage` and `unplaced` (of the cluster before `updated`) what `updated` changed in
/// the cluster's pods and nodes: each pod changed is taken from its node's pods and put in its
/// new node's, and the requests of each node whose pods changed are summed again (in the
/// order a whole [`node_usage`] sums them, so that the sums are the same).
pub(crate) fn update_usage(
    usage: &mut BTreeMap<String, NodeUsage>,
    unplaced: &mut Unplaced,
    updated: &Updated,
    features: &Features,
) {
    let mut touched: BTreeSet<String> = BTreeSet::new();
    for (name, before, after) in &updated.nodes {
        match (before, after) {
            (false, true) => {
                let pods = unplaced.remove(name).unwrap_or_default();
                usage.insert(
                    name.clone(),
                    NodeUsage {
                        requested: Resource::default(),
                        pods,
                    },
                );
                touched.insert(name.clone());
            }
            (true, false) => {
                if let Some(u) = usage.remove(name)
                    && !u.pods.is_empty()
                {
                    unplaced.insert(name.clone(), u.pods);
                }
            }
            _ => {}
        }
    }
    let counted = |p: &Option<Arc<Pod>>| {
        p.as_ref()
            .filter(|p| !p.is_finished())
            .and_then(|p| Some((p.node_name.as_deref()?.to_string(), p.clone())))
    };
    for (before, after) in &updated.pods {
        if let Some((node, p)) = counted(before) {
            if let Some(u) = usage.get_mut(&node) {
                remove_pod(&mut u.pods, &p.key);
                touched.insert(node);
            } else if let Some(v) = unplaced.get_mut(&node) {
                remove_pod(v, &p.key);
                if v.is_empty() {
                    unplaced.remove(&node);
                }
            }
        }
        if let Some((node, p)) = counted(after) {
            if let Some(u) = usage.get_mut(&node) {
                insert_pod(&mut u.pods, p);
                touched.insert(node);
            } else {
                insert_pod(unplaced.entry(node).or_default(), p);
            }
        }
    }
    for name in &touched {
        if let Some(u) = usage.get_mut(name) {
            sum(u, features);
        }
    }
}

/// Takes the pod of `key` out of `pods` (sorted by key).
fn remove_pod(pods: &mut Vec<Arc<Pod>>, key: &ObjectKey) {
    if let Ok(i) = pods.binary_search_by(|p| p.key.cmp(key)) {
        pods.remove(i);
    }
}

/// Puts `pod` in `pods` (sorted by key), in place of the pod of its key.
fn insert_pod(pods: &mut Vec<Arc<Pod>>, pod: Arc<Pod>) {
    match pods.binary_search_by(|p| p.key.cmp(&pod.key)) {
        Ok(i) => pods[i] = pod,
        Err(i) => pods.insert(i, pod),
    }
}

/// Sums the requests of `u`'s pods again.
fn sum(u: &mut NodeUsage, features: &Features) {
    let mut requested = Resource::default();
    for p in &u.pods {
        requested.add_scaled(&features.requests_of(p).resource, 1);
    }
    u.requested = requested;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Release;
    use crate::model::ObjectKey;
    use crate::model::resources::Resource;
    use crate::source::file;

    /// The keys of a usage's pods.
    fn keys(u: &NodeUsage) -> Vec<ObjectKey> {
        u.pods_iter().map(|p| p.key.clone()).collect()
    }

    const FIXTURE: &str = include_str!("../../fixtures/tui-test.yaml");

    fn cluster() -> Cluster {
        file::load_str("tui-test.yaml", FIXTURE).expect("fixture loads")
    }

    #[test]
    fn usage_sums_bound_pods() {
        let c = cluster();
        let u = node_usage(&c, &Release::OLDEST.into());
        assert_eq!(u["node-a"].requested.milli_cpu, 3000);
        assert_eq!(keys(&u["node-a"]), vec![ObjectKey::new("default", "api-1")]);
        assert_eq!(u["node-b"].requested.milli_cpu, 2750);
        assert!(u["node-c"].pods.is_empty());
    }

    #[test]
    fn missing_cpu_is_request_minus_free() {
        let c = cluster();
        let u = node_usage(&c, &Release::OLDEST.into());
        let pod = c.pod(&ObjectKey::new("default", "batch-1")).expect("pod");
        let b = c.node("node-b").expect("node");
        let m = missing(pod, b, u.get("node-b"), None, &Release::OLDEST.into());
        // 1500m requested, 4000m - 2750m = 1250m free
        assert_eq!(
            m,
            vec![Missing {
                resource: "cpu".into(),
                amount: 250,
                per_mille: 166,
                beyond: None,
            }]
        );
        assert_eq!(m[0].to_string(), "needs 250m more cpu");
        let a = c.node("node-a").expect("node");
        assert_eq!(
            missing(pod, a, u.get("node-a"), None, &Release::OLDEST.into())[0].to_string(),
            "needs 500m more cpu"
        );
        let cn = c.node("node-c").expect("node");
        assert!(missing(pod, cn, u.get("node-c"), None, &Release::OLDEST.into()).is_empty());
    }

    #[test]
    fn missing_memory_and_pod_slots() {
        let c = cluster();
        let pod = c.pod(&ObjectKey::new("default", "batch-1")).expect("pod");
        let mut node = (**c.node("node-a").expect("node")).clone();
        node.allocatable.allowed_pod_number = 1;
        node.allocatable.memory = 1536 * 1024 * 1024;
        let u = NodeUsage {
            requested: Resource {
                memory: 1024 * 1024 * 1024,
                ..Default::default()
            },
            pods: vec![c.pods[0].clone()],
        };
        let m: Vec<String> = missing(pod, &node, Some(&u), None, &Release::OLDEST.into())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(m, vec!["needs 1 more pod slot", "needs 512Mi more memory"]);
    }

    #[test]
    fn a_request_beyond_allocatable_is_never_nearly_fitting() {
        let c = cluster();
        let pod = c.pod(&ObjectKey::new("default", "batch-1")).expect("pod");
        let mut node = (**c.node("node-c").expect("node")).clone();
        // 1500m asked of a 1-core node; no memory, no pod slot at all
        node.allocatable.milli_cpu = 1000;
        node.allocatable.memory = 0;
        node.allocatable.allowed_pod_number = 0;
        let m: Vec<String> = missing(pod, &node, None, None, &Release::OLDEST.into())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            m,
            [
                "the node allows 0 pod(s)",
                "asks 1500m cpu; the node has 1 allocatable",
                "asks 1Gi memory; the node has none"
            ]
        );
        let failure = crate::engine::framework::trace::FilterFailure {
            plugin: names::NODE_RESOURCES_FIT,
            code: crate::engine::framework::status::Code::Unschedulable,
            reasons: ["Insufficient cpu"].into_iter().collect(),
        };
        let entry = NodeFilter {
            node: "node-c".into(),
            feasible: false,
            failure: Some(failure.clone()),
            excluded_by_prefilter: false,
            rejected_by_nominated_pods: Vec::new(),
            all_failures: vec![failure],
            detail: Default::default(),
            details: Vec::new(),
        };
        let m = missing(pod, &node, None, None, &Release::OLDEST.into());
        assert_eq!(class_with(&entry, &m), FilterClass::TooSmall);
        // what the free capacity lacks only: nearly
        let near = missing(pod, &node, None, None, &Release::OLDEST.into())
            .into_iter()
            .map(|mut x| {
                x.beyond = None;
                x
            })
            .collect::<Vec<_>>();
        assert_eq!(class_with(&entry, &near), FilterClass::NearlyFit);
    }

    #[test]
    fn nominated_pods_of_at_least_the_pods_priority_count_as_the_engine_counts_them() {
        let mut c = cluster();
        let pod = c.pod(&ObjectKey::new("default", "batch-1")).expect("pod").clone();
        // web-2 (priority 1000) nominated to node-c, not bound; a low-priority one too
        let mut high = (**c.pod(&ObjectKey::new("default", "web-2")).expect("pod")).clone();
        high.node_name = None;
        high.set_nominated_node_name(Some("node-c".into()));
        let mut low = high.clone();
        low.key = ObjectKey::new("default", "low");
        low.priority = -1;
        c.pods = vec![std::sync::Arc::new(high), std::sync::Arc::new(low), pod.clone()];
        c.pods.sort_by(|a, b| a.key.cmp(&b.key));
        let nom = nominated_usage(&c, &pod, &Release::OLDEST.into());
        assert_eq!(keys(&nom["node-c"]), vec![ObjectKey::new("default", "web-2")]);
        assert_eq!(nom["node-c"].requested.milli_cpu, 500);
    }
}

#[cfg(test)]
mod version_tests {
    use super::*;
    use crate::engine::Release;
    use crate::model::ObjectKey;
    use crate::source::file;

    /// A bound pod with pod-level requests (PodLevelResources) and a pending one.
    const CLUSTER: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: bound, namespace: a}
  spec:
    nodeName: n1
    resources: {requests: {cpu: "3", memory: 1Gi}}
    containers: [{name: c, image: i, resources: {requests: {cpu: 500m}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: a}
  spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]}
"#;

    #[test]
    fn usage_and_shortfall_follow_the_release_s_pod_requests() {
        let c = file::load_str("t", CLUSTER).expect("loads");
        let (old, new) = (Release::OLDEST, Release::NEWEST);
        assert_eq!(node_usage(&c, &old.into())["n1"].requested.milli_cpu, 500);
        assert_eq!(
            node_usage(&c, &new.into())["n1"].requested.milli_cpu,
            3000,
            "pod-level requests from 1.34"
        );
        let pod = c.pod(&ObjectKey::new("a", "p")).expect("pod");
        let node = c.node("n1").expect("node");
        let u = node_usage(&c, &new.into());
        let m: Vec<String> = missing(pod, node, u.get("n1"), None, &new.into())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(m, vec!["needs 1 more cpu".to_string()]);
        let u = node_usage(&c, &old.into());
        assert!(missing(pod, node, u.get("n1"), None, &old.into()).is_empty());
    }
}
