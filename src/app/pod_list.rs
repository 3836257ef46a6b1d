//! The pod list: which pods are shown (namespace, fuzzy search with match positions for
//! highlighting), in which order (pending pods first in scheduling-queue order by default), and
//! the one-line reason of each pending pod taken from its explanation.

use std::cmp::Ordering;
use std::sync::Arc;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::App;
use crate::engine::trace::Explanation;
use crate::model::Pod;

/// Sort orders of the pod list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SortKey {
    /// Pending pods first in scheduling-queue order (priority, then age), then the others by name.
    #[default]
    Queue,
    /// Namespace/name.
    Name,
    /// Newest first.
    Age,
    /// Highest priority first.
    Priority,
    /// Scheduler name, then queue order.
    Scheduler,
}

impl SortKey {
    /// The next sort key.
    pub fn next(self) -> Self {
        match self {
            SortKey::Queue => SortKey::Name,
            SortKey::Name => SortKey::Age,
            SortKey::Age => SortKey::Priority,
            SortKey::Priority => SortKey::Scheduler,
            SortKey::Scheduler => SortKey::Queue,
        }
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Queue => "queue",
            SortKey::Name => "name",
            SortKey::Age => "age",
            SortKey::Priority => "priority",
            SortKey::Scheduler => "scheduler",
        }
    }
}

/// State of the pod list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodListState {
    /// Fuzzy search text (on `name`, or on `namespace/name` when it contains a `/`).
    pub query: String,
    /// Only this namespace (None: all).
    pub namespace: Option<String>,
    /// Sort order.
    pub sort: SortKey,
    /// Reverse the order.
    pub reverse: bool,
    /// Selected row.
    pub selected: usize,
}

/// A row of the pod list.
#[derive(Clone, Debug)]
pub struct PodRow {
    /// The pod.
    pub pod: Arc<Pod>,
    /// Character positions of search matches in the namespace.
    pub ns_hits: Vec<usize>,
    /// Character positions of search matches in the name.
    pub name_hits: Vec<usize>,
}

/// Scheduling-queue order (PrioritySort): higher priority, then earlier creation, then key.
fn queue_order(a: &Pod, b: &Pod) -> Ordering {
    b.priority
        .cmp(&a.priority)
        .then_with(|| a.creation.cmp(&b.creation))
        .then_with(|| a.key.cmp(&b.key))
}

/// Pending first, then bound, then finished.
fn group(p: &Pod) -> u8 {
    if p.is_pending() {
        0
    } else if p.is_finished() {
        2
    } else {
        1
    }
}

/// Fuzzy match of `query` against a pod: `(ns_hits, name_hits)`, or None when it does not match.
pub fn matches(matcher: &SkimMatcherV2, pod: &Pod, query: &str) -> Option<(Vec<usize>, Vec<usize>)> {
    if query.is_empty() {
        return Some((Vec::new(), Vec::new()));
    }
    if query.contains('/') {
        let full = format!("{}/{}", pod.key.namespace, pod.key.name);
        let (_, idx) = matcher.fuzzy_indices(&full, query)?;
        let ns_len = pod.key.namespace.chars().count();
        let ns = idx.iter().copied().filter(|&i| i < ns_len).collect();
        let name = idx.iter().filter(|&&i| i > ns_len).map(|&i| i - ns_len - 1).collect();
        Some((ns, name))
    } else {
        let (_, idx) = matcher.fuzzy_indices(&pod.key.name, query)?;
        Some((Vec::new(), idx))
    }
}

/// The rows as displayed.
pub fn rows(app: &App) -> Vec<PodRow> {
    let st = &app.pods;
    let matcher = SkimMatcherV2::default();
    let mut rows: Vec<PodRow> = app
        .cluster
        .pods
        .iter()
        .filter(|p| st.namespace.as_ref().is_none_or(|ns| &p.key.namespace == ns))
        .filter_map(|p| {
            matches(&matcher, p, &st.query).map(|(ns_hits, name_hits)| PodRow {
                pod: p.clone(),
                ns_hits,
                name_hits,
            })
        })
        .collect();
    let created = |p: &Pod| p.creation.clone().unwrap_or_default();
    rows.sort_by(|a, b| {
        let (a, b) = (&*a.pod, &*b.pod);
        match st.sort {
            SortKey::Queue => group(a).cmp(&group(b)).then_with(|| {
                if a.is_pending() {
                    queue_order(a, b)
                } else {
                    a.key.cmp(&b.key)
                }
            }),
            SortKey::Name => a.key.cmp(&b.key),
            SortKey::Age => created(b).cmp(&created(a)).then_with(|| a.key.cmp(&b.key)),
            SortKey::Priority => b.priority.cmp(&a.priority).then_with(|| a.key.cmp(&b.key)),
            SortKey::Scheduler => a
                .scheduler_name
                .cmp(&b.scheduler_name)
                .then_with(|| group(a).cmp(&group(b)))
                .then_with(|| queue_order(a, b)),
        }
    });
    if st.reverse {
        rows.reverse();
    }
    rows
}

/// The namespaces that have pods, sorted.
pub fn namespaces(app: &App) -> Vec<String> {
    let mut v: Vec<String> = app.cluster.pods.iter().map(|p| p.key.namespace.clone()).collect();
    v.sort();
    v.dedup();
    v
}

/// One line saying why a pending pod is where it is, from its explanation.
pub fn reason_line(ex: &Explanation) -> String {
    if let Some(s) = &ex.waiting_for_scheduler {
        return format!("no profile serves schedulerName '{s}'");
    }
    if let Some(g) = ex
        .pre_enqueue
        .iter()
        .find(|s| s.code != crate::engine::framework::status::Code::Success)
    {
        return format!("held before the queue: {}", g.reasons.join(", "));
    }
    if let Some(w) = ex.binding_cycle.as_ref().and_then(|b| {
        b.permit
            .iter()
            .find(|p| p.code == crate::engine::framework::status::Code::Wait)
    }) {
        let gang = ex
            .gang
            .as_ref()
            .map(|g| format!(": {} of {} scheduled", g.assigned + 1, g.min_member))
            .unwrap_or_default();
        return format!("gang: waits at Permit ({}) on {}{gang}", w.plugin, ex.selected[0]);
    }
    if ex.schedulable() {
        return if ex.selected.len() == 1 {
            format!("fits: would bind to {}", ex.selected[0])
        } else {
            let mut names = ex.selected.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
            if ex.selected.len() > 3 {
                names.push_str(", …");
            }
            format!("fits: {} nodes tie ({names})", ex.selected.len())
        };
    }
    if let Some(pf) = &ex.post_filter
        && let Some(n) = &pf.nominated_node
    {
        return format!("preemption: would evict {} pod(s) on {n}", pf.victims.len());
    }
    match &ex.message {
        Some(m) => m
            .strip_prefix(&format!("0/{} nodes are available: ", ex.node_count))
            .map_or_else(
                || m.clone(),
                |rest| format!("0/{} nodes: {}", ex.node_count, rest.trim_end_matches('.')),
            ),
        None => String::new(),
    }
}

/// The reason column of a pod: bound node, explanation summary, or progress.
pub fn status_line(app: &App, pod: &Pod) -> String {
    if pod.is_finished() {
        return format!("finished ({})", pod.phase);
    }
    if let Some(n) = &pod.node_name {
        return format!("on {n}");
    }
    match app.summary(&pod.key) {
        Some(Ok(s)) => s.line.clone(),
        Some(Err(e)) => e.clone(),
        None => "explaining…".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ObjectKey;
    use crate::source::file;

    fn pod(ns: &str, name: &str) -> Pod {
        let yaml = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: {ns}}}\nspec: {{containers: []}}\n"
        );
        let c = file::load_str("t", &yaml).expect("pod loads");
        (*c.pods[0]).clone()
    }

    #[test]
    fn fuzzy_match_on_name_and_full_key() {
        let m = SkimMatcherV2::default();
        let p = pod("default", "web-2");
        assert_eq!(matches(&m, &p, "wb"), Some((vec![], vec![0, 2])));
        assert_eq!(matches(&m, &p, "zz"), None);
        assert_eq!(matches(&m, &p, "def/w"), Some((vec![0, 1, 2], vec![0])));
        assert_eq!(matches(&m, &p, ""), Some((vec![], vec![])));
    }

    #[test]
    fn reason_line_strips_the_node_count_prefix() {
        let ex = Explanation {
            pod: ObjectKey::new("default", "p"),
            profile: "default-scheduler".into(),
            release: crate::engine::Release::OLDEST,
            feature_gates: String::new(),
            node_count: 4,
            waiting_for_scheduler: None,
            pre_enqueue: vec![],
            pre_filter: vec![],
            pre_filter_node_names: None,
            nominated_node: None,
            filter: vec![],
            pre_score: vec![],
            score: vec![],
            selected: vec![],
            host_pick: None,
            message: Some("0/4 nodes are available: 2 Insufficient cpu.".into()),
            post_filter: None,
            later_points: vec![],
            notes: vec![],
            binding_cycle: None,
            gang: None,
            dra: None,
            batching: None,
        };
        assert_eq!(reason_line(&ex), "0/4 nodes: 2 Insufficient cpu");
        let mut ok = ex.clone();
        ok.selected = vec!["node-a".into()];
        assert_eq!(reason_line(&ok), "fits: would bind to node-a");
        let mut w = ex;
        w.waiting_for_scheduler = Some("custom".into());
        assert_eq!(reason_line(&w), "no profile serves schedulerName 'custom'");
    }
}
