//! The pod list: which pods are shown (namespace, fuzzy search with match positions for
//! highlighting), in which order (pending pods first in scheduling-queue order by default), and
//! the one-line reason of each pending pod taken from its explanation.
//!
//! The rows are computed when their inputs change, never per frame: [`PodRows`] is kept in the
//! app and refreshed by `update` (what each pod needs of the list once per cluster; the
//! namespace and sort order once per change of them; the search once per character, narrowing
//! the rows already matched when the text only grew). Moving the cursor and drawing read it.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::sync::{Arc, Weak};

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::{App, format};
use crate::engine::Features;
use crate::engine::trace::Explanation;
use crate::model::{Cluster, Pod};

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

/// True when `pattern` is a subsequence of `choice`, compared as skim compares (ASCII case
/// ignored unless the pattern has an ASCII capital): exactly when [`SkimMatcherV2`] matches,
/// without computing a score or allocating.
fn subsequence(choice: impl Iterator<Item = char>, pattern: &str, case_sensitive: bool) -> bool {
    let mut want = pattern.chars().peekable();
    for c in choice {
        let Some(&p) = want.peek() else { break };
        if if case_sensitive {
            c == p
        } else {
            c.eq_ignore_ascii_case(&p)
        } {
            want.next();
        }
    }
    want.peek().is_none()
}

/// [`subsequence`] on a whole text, byte by byte when the pattern is ASCII (a byte of a
/// multi-byte character is never ASCII, so it never matches an ASCII pattern character).
fn text_subsequence(text: &str, pattern: &str, case_sensitive: bool) -> bool {
    if !pattern.is_ascii() {
        return subsequence(text.chars(), pattern, case_sensitive);
    }
    let want = pattern.as_bytes();
    let mut at = 0;
    for &b in text.as_bytes() {
        let Some(&p) = want.get(at) else { break };
        if if case_sensitive {
            b == p
        } else {
            b.eq_ignore_ascii_case(&p)
        } {
            at += 1;
        }
    }
    at == want.len()
}

/// Whether a fuzzy search `query` matches `text` (the node list, the pod list): what
/// `SkimMatcherV2::default().fuzzy_match(text, query).is_some()` says.
pub fn fuzzy_hit(text: &str, query: &str) -> bool {
    query.is_empty() || text_subsequence(text, query, query.chars().any(|c| c.is_ascii_uppercase()))
}

/// Whether the pod list's search matches a pod: on its name, or on `namespace/name` when the
/// query holds a `/` (what [`matches`] says, without the positions).
pub fn is_match(pod: &Pod, query: &str) -> bool {
    if query.is_empty() {
        return true;
    }
    let case_sensitive = query.chars().any(|c| c.is_ascii_uppercase());
    if query.contains('/') {
        let full = pod
            .key
            .namespace
            .chars()
            .chain(std::iter::once('/'))
            .chain(pod.key.name.chars());
        subsequence(full, query, case_sensitive)
    } else {
        subsequence(pod.key.name.chars(), query, case_sensitive)
    }
}

/// What the list needs of one pod, computed once per cluster.
#[derive(Clone, Copy, Debug, Default)]
struct PodMeta {
    /// Characters of the namespace and of the name.
    ns_w: u16,
    name_w: u16,
    /// Characters of the CPU and memory requests as shown.
    cpu_w: u16,
    mem_w: u16,
    /// Where `namespace/name` starts in [`PodRows::keys`], its length and the namespace's
    /// (bytes).
    key_at: usize,
    key_len: usize,
    ns_len: usize,
    /// Waiting for a node.
    pending: bool,
    /// Pending, bound or finished (0, 1, 2: the queue order's groups).
    group: u8,
    /// Priority.
    priority: i32,
    /// Where the creation timestamp is in [`PodRows::keys`] (None: the pod has none).
    created: Option<(usize, usize)>,
    /// The scheduler name's place among the cluster's scheduler names, sorted.
    scheduler: u32,
}

fn chars_u16(s: &str) -> u16 {
    u16::try_from(s.chars().count()).unwrap_or(u16::MAX)
}

/// The widest value of each column over the rows shown (before the columns' limits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PodWidths {
    /// Namespace.
    pub namespace: usize,
    /// Name.
    pub name: usize,
    /// CPU requests.
    pub cpu: usize,
    /// Memory requests.
    pub mem: usize,
}

/// The pod list's rows as displayed, with what the list shows about them; kept in
/// [`App::pod_rows`](super::App) and refreshed by `update` when the cluster, the release, the
/// namespace, the sort order or the search change.
#[derive(Clone, Debug, Default)]
pub struct PodRows {
    /// The cluster and release it was computed from (a `Weak` keeps the address from being
    /// reused while it is compared).
    cluster: Weak<Cluster>,
    features: Weak<Features>,
    /// Per pod of `cluster.pods`.
    meta: Vec<PodMeta>,
    /// Every pod's `namespace/name` and creation timestamp, back to back: the search and the
    /// sort read this one buffer instead of every pod scattered in memory.
    keys: String,
    /// `cluster.pods` is in key order (as the model builds it), so a row's index orders it by
    /// key; otherwise the sort compares the pods themselves.
    key_sorted: bool,
    /// The namespaces that have pods, sorted.
    namespaces: Vec<String>,
    /// Pending pods in the cluster.
    cluster_pending: usize,
    /// The namespace, sort order and direction `base` was computed for.
    base_key: Option<(Option<String>, SortKey, bool)>,
    /// Indices into `cluster.pods` of the namespace's pods, sorted.
    base: Vec<usize>,
    /// The search `order` was computed for.
    query: String,
    /// Indices into `cluster.pods` of the rows shown, in display order.
    order: Vec<usize>,
    /// Pending pods among the rows.
    pending: usize,
    /// Column widths over the rows.
    widths: PodWidths,
}

impl PodRows {
    fn same_cluster(&self, app: &App) -> bool {
        std::ptr::eq(self.cluster.as_ptr(), Arc::as_ptr(&app.cluster))
            && std::ptr::eq(self.features.as_ptr(), Arc::as_ptr(&app.features))
    }

    fn base_key_of(app: &App) -> (Option<String>, SortKey, bool) {
        (app.pods.namespace.clone(), app.pods.sort, app.pods.reverse)
    }

    fn base_is(&self, app: &App) -> bool {
        self.base_key.as_ref().is_some_and(|(ns, sort, rev)| {
            *ns == app.pods.namespace && *sort == app.pods.sort && *rev == app.pods.reverse
        })
    }

    /// True when the rows are those of the app as it is.
    pub fn is_current(&self, app: &App) -> bool {
        self.same_cluster(app) && self.base_is(app) && self.query == app.pods.query
    }

    /// Brings the rows up to date with the app, recomputing only what changed.
    pub fn refresh(&mut self, app: &App) {
        let mut changed = false;
        if !self.same_cluster(app) {
            self.cluster = Arc::downgrade(&app.cluster);
            self.features = Arc::downgrade(&app.features);
            let mut keys = String::new();
            let mut schedulers: Vec<&str> = app.cluster.pods.iter().map(|p| p.scheduler_name.as_str()).collect();
            schedulers.sort_unstable();
            schedulers.dedup();
            self.meta = app
                .cluster
                .pods
                .iter()
                .map(|p| {
                    let r = app.features.requests_of(p);
                    let key_at = keys.len();
                    keys.push_str(&p.key.namespace);
                    keys.push('/');
                    keys.push_str(&p.key.name);
                    let key_len = keys.len() - key_at;
                    let created = p.creation.as_deref().map(|c| {
                        let at = keys.len();
                        keys.push_str(c);
                        (at, c.len())
                    });
                    PodMeta {
                        ns_w: chars_u16(&p.key.namespace),
                        name_w: chars_u16(&p.key.name),
                        cpu_w: chars_u16(&format::cpu(r.resource.milli_cpu)),
                        mem_w: chars_u16(&format::bytes(r.resource.memory)),
                        key_at,
                        key_len,
                        ns_len: p.key.namespace.len(),
                        pending: p.is_pending(),
                        group: group(p),
                        priority: p.priority,
                        created,
                        scheduler: schedulers
                            .binary_search(&p.scheduler_name.as_str())
                            .map_or(0, |i| u32::try_from(i).unwrap_or(u32::MAX)),
                    }
                })
                .collect();
            self.key_sorted = app.cluster.pods.windows(2).all(|w| w[0].key < w[1].key);
            self.keys = keys;
            let mut ns: Vec<String> = Vec::new();
            for p in &app.cluster.pods {
                if ns.last() != Some(&p.key.namespace) {
                    ns.push(p.key.namespace.clone());
                }
            }
            ns.sort();
            ns.dedup();
            self.namespaces = ns;
            self.cluster_pending = self.meta.iter().filter(|m| m.pending).count();
            changed = true;
        }
        if changed || !self.base_is(app) {
            self.base = if self.key_sorted { self.sorted(app) } else { sorted(app) };
            self.base_key = Some(Self::base_key_of(app));
            changed = true;
        }
        if changed || self.query != app.pods.query {
            let q = app.pods.query.as_str();
            // a longer search matches a subset of what the shorter one matched, in the same
            // order (on the same text: the name, or namespace/name once there is a '/')
            let narrowing =
                !changed && q.starts_with(self.query.as_str()) && q.contains('/') == self.query.contains('/');
            let from = if narrowing {
                std::mem::take(&mut self.order)
            } else {
                self.base.clone()
            };
            let mut order = from;
            if !q.is_empty() {
                let case_sensitive = q.chars().any(|c| c.is_ascii_uppercase());
                let whole_key = q.contains('/');
                let (keys, meta) = (&self.keys, &self.meta);
                order.retain(|&i| {
                    meta.get(i).is_some_and(|m| {
                        let from = if whole_key { m.key_at } else { m.key_at + m.ns_len + 1 };
                        keys.get(from..m.key_at + m.key_len)
                            .is_some_and(|text| text_subsequence(text, q, case_sensitive))
                    })
                });
            }
            self.order = order;
            self.query = q.to_string();
            let mut w = PodWidths::default();
            let mut pending = 0;
            for &i in &self.order {
                let m = self.meta.get(i).copied().unwrap_or_default();
                w.namespace = w.namespace.max(usize::from(m.ns_w));
                w.name = w.name.max(usize::from(m.name_w));
                w.cpu = w.cpu.max(usize::from(m.cpu_w));
                w.mem = w.mem.max(usize::from(m.mem_w));
                pending += usize::from(m.pending);
            }
            self.widths = w;
            self.pending = pending;
        }
    }

    /// What [`sorted`] gives, from what was kept of each pod (when `cluster.pods` is in key
    /// order, so the index stands for the key).
    fn sorted(&self, app: &App) -> Vec<usize> {
        let st = &app.pods;
        let (m, keys) = (&self.meta, &self.keys);
        let ns_of = |i: usize| m.get(i).and_then(|m| keys.get(m.key_at..m.key_at + m.ns_len));
        let mut idx: Vec<usize> = (0..m.len())
            .filter(|&i| st.namespace.as_deref().is_none_or(|ns| ns_of(i) == Some(ns)))
            .collect();
        let created = |x: &PodMeta| x.created.and_then(|(at, len)| keys.get(at..at + len));
        let queue_order = |a: usize, x: &PodMeta, b: usize, y: &PodMeta| {
            y.priority
                .cmp(&x.priority)
                .then_with(|| created(x).cmp(&created(y)))
                .then(a.cmp(&b))
        };
        let meta = |i: usize| m.get(i).copied().unwrap_or_default();
        match st.sort {
            // the rows are in key order already
            SortKey::Name => {}
            SortKey::Queue => idx.sort_by(|&a, &b| {
                let (x, y) = (meta(a), meta(b));
                x.group.cmp(&y.group).then_with(|| {
                    if x.pending {
                        queue_order(a, &x, b, &y)
                    } else {
                        a.cmp(&b)
                    }
                })
            }),
            SortKey::Age => idx.sort_by(|&a, &b| {
                let (x, y) = (meta(a), meta(b));
                created(&y)
                    .unwrap_or_default()
                    .cmp(created(&x).unwrap_or_default())
                    .then(a.cmp(&b))
            }),
            SortKey::Priority => idx.sort_by(|&a, &b| meta(b).priority.cmp(&meta(a).priority).then(a.cmp(&b))),
            SortKey::Scheduler => idx.sort_by(|&a, &b| {
                let (x, y) = (meta(a), meta(b));
                x.scheduler
                    .cmp(&y.scheduler)
                    .then(x.group.cmp(&y.group))
                    .then_with(|| queue_order(a, &x, b, &y))
            }),
        }
        if st.reverse {
            idx.reverse();
        }
        idx
    }

    /// How many rows are shown.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True when no row is shown.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The pod at a row.
    pub fn pod<'a>(&self, app: &'a App, row: usize) -> Option<&'a Arc<Pod>> {
        self.order.get(row).and_then(|&i| app.cluster.pods.get(i))
    }

    /// The pods of rows `range`, in display order.
    pub fn pods<'a>(&'a self, app: &'a App, range: std::ops::Range<usize>) -> impl Iterator<Item = &'a Arc<Pod>> + 'a {
        let end = range.end.min(self.order.len());
        let start = range.start.min(end);
        self.order[start..end].iter().filter_map(|&i| app.cluster.pods.get(i))
    }

    /// Pending pods among the rows.
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// Pending pods in the whole cluster.
    pub fn cluster_pending(&self) -> usize {
        self.cluster_pending
    }

    /// The widest value of each column over the rows.
    pub fn widths(&self) -> PodWidths {
        self.widths
    }

    /// The namespaces that have pods, sorted.
    pub fn namespaces(&self) -> &[String] {
        &self.namespaces
    }
}

/// The rows of the app as it is: the kept ones when current, computed otherwise (after a
/// change made outside `update`, as tests do).
pub fn current(app: &App) -> Cow<'_, PodRows> {
    if app.pod_rows.is_current(app) {
        Cow::Borrowed(&app.pod_rows)
    } else {
        let mut r = PodRows::default();
        r.refresh(app);
        Cow::Owned(r)
    }
}

/// Brings the app's rows up to date (called by `update` after every action).
pub fn refresh(app: &mut App) {
    let mut rows = std::mem::take(&mut app.pod_rows);
    rows.refresh(app);
    app.pod_rows = rows;
}

/// Indices of the namespace's pods in display order (before the search), comparing the pods
/// themselves (for a cluster whose pods are not in key order; the reference of the tests).
fn sorted(app: &App) -> Vec<usize> {
    let st = &app.pods;
    let pods = &app.cluster.pods;
    let mut idx: Vec<usize> = (0..pods.len())
        .filter(|&i| st.namespace.as_ref().is_none_or(|ns| &pods[i].key.namespace == ns))
        .collect();
    fn created(p: &Pod) -> &str {
        p.creation.as_deref().unwrap_or_default()
    }
    idx.sort_by(|&a, &b| {
        let (a, b) = (&*pods[a], &*pods[b]);
        match st.sort {
            SortKey::Queue => group(a).cmp(&group(b)).then_with(|| {
                if a.is_pending() {
                    queue_order(a, b)
                } else {
                    a.key.cmp(&b.key)
                }
            }),
            SortKey::Name => a.key.cmp(&b.key),
            SortKey::Age => created(b).cmp(created(a)).then_with(|| a.key.cmp(&b.key)),
            SortKey::Priority => b.priority.cmp(&a.priority).then_with(|| a.key.cmp(&b.key)),
            SortKey::Scheduler => a
                .scheduler_name
                .cmp(&b.scheduler_name)
                .then_with(|| group(a).cmp(&group(b)))
                .then_with(|| queue_order(a, b)),
        }
    });
    if st.reverse {
        idx.reverse();
    }
    idx
}

/// Every row as displayed, with the search's match positions (tests and small lists; the list
/// itself draws only the rows on screen).
pub fn rows(app: &App) -> Vec<PodRow> {
    let matcher = SkimMatcherV2::default();
    let r = current(app);
    r.pods(app, 0..r.len())
        .map(|p| {
            let (ns_hits, name_hits) = matches(&matcher, p, &app.pods.query).unwrap_or_default();
            PodRow {
                pod: p.clone(),
                ns_hits,
                name_hits,
            }
        })
        .collect()
}

/// The namespaces that have pods, sorted.
pub fn namespaces(app: &App) -> Vec<String> {
    current(app).namespaces().to_vec()
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, .. proptest::prelude::ProptestConfig::default() })]

        /// The list's own match test says what skim says, for names, patterns with capitals
        /// (case-sensitive), slashes and non-ASCII letters.
        #[test]
        fn fuzzy_hit_agrees_with_skim(text in "[a-cA-C/é0-]{0,12}", query in "[a-cA-C/é]{0,4}") {
            let m = SkimMatcherV2::default();
            proptest::prop_assert_eq!(fuzzy_hit(&text, &query), m.fuzzy_match(&text, &query).is_some());
        }
    }

    /// A generated cluster: 20 nodes, 400 pods in three namespaces.
    fn generated() -> App {
        let v = crate::source::generate::generate(crate::source::generate::GenSpec::new(20, 400, 7));
        let mut a = App::new(
            crate::app::SourceInfo {
                kind: crate::app::SourceKind::Snapshot,
                name: "gen.json".into(),
            },
            false,
        );
        crate::app::load_sync(
            &mut a,
            crate::source::file::load_str("gen.json", &serde_json::to_string(&v).expect("json")).expect("generated"),
        );
        a
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, .. proptest::prelude::ProptestConfig::default() })]

        /// Whatever is typed, erased and re-sorted, the kept rows are the rows the matcher and
        /// the sort order give.
        #[test]
        fn kept_rows_follow_any_search(keys in proptest::collection::vec(0usize..12, 1..24)) {
            use crate::app::{Action, update};
            let mut a = generated();
            update(&mut a, Action::SearchStart);
            let m = SkimMatcherV2::default();
            for k in keys {
                let x = match k {
                    0..=6 => Action::Input(['w', 'e', 'b', '/', '1', 'T', '-'][k]),
                    7 | 8 => Action::Backspace,
                    9 => Action::ClearInput,
                    10 => Action::CycleSort,
                    _ => Action::ReverseSort,
                };
                update(&mut a, x);
                if a.mode != crate::app::Mode::Search {
                    update(&mut a, Action::SearchStart);
                }
                let reference: Vec<usize> = sorted(&a)
                    .into_iter()
                    .filter(|&i| matches(&m, &a.cluster.pods[i], &a.pods.query).is_some())
                    .collect();
                proptest::prop_assert_eq!(&a.pod_rows.order, &reference, "query {:?}", a.pods.query);
            }
        }
    }

    #[test]
    fn the_sort_from_what_was_kept_is_the_sort_of_the_pods() {
        for mut a in [app(), generated()] {
            let mut kept = PodRows::default();
            kept.refresh(&a);
            assert!(kept.key_sorted);
            for ns in [None, Some("data"), Some("team-a")] {
                for sort in [
                    SortKey::Queue,
                    SortKey::Name,
                    SortKey::Age,
                    SortKey::Priority,
                    SortKey::Scheduler,
                ] {
                    for reverse in [false, true] {
                        a.pods.namespace = ns.map(str::to_string);
                        a.pods.sort = sort;
                        a.pods.reverse = reverse;
                        assert_eq!(kept.sorted(&a), sorted(&a), "{ns:?} {sort:?} {reverse}");
                    }
                }
            }
        }
    }

    #[test]
    fn is_match_agrees_with_the_positions() {
        let m = SkimMatcherV2::default();
        let p = pod("default", "web-2");
        for q in ["", "wb", "zz", "def/w", "DEF/w", "t/w", "/", "w/", "W", "eb-2"] {
            assert_eq!(is_match(&p, q), matches(&m, &p, q).is_some(), "{q:?}");
        }
    }

    fn app() -> App {
        crate::app::tui_test_app()
    }

    fn shown(a: &App) -> Vec<String> {
        let r = &a.pod_rows;
        r.pods(a, 0..r.len()).map(|p| p.key.to_string()).collect()
    }

    #[test]
    fn the_kept_rows_are_the_rows_computed_afresh_after_every_action() {
        use crate::app::{Action, update};
        let mut a = app();
        let mut steps: Vec<Action> = vec![Action::SearchStart];
        steps.extend("e-1".chars().map(Action::Input));
        steps.extend([
            Action::Backspace,
            Action::Backspace,
            Action::Input('/'),
            Action::Input('d'),
        ]);
        steps.extend([Action::ClearInput, Action::Input('D'), Action::Submit]);
        steps.extend([
            Action::CycleSort,
            Action::ReverseSort,
            Action::CycleSort,
            Action::NextNamespace,
        ]);
        steps.extend([Action::SearchStart, Action::Input('a'), Action::Submit, Action::Cancel]);
        steps.extend([Action::AllNamespaces, Action::CycleSort, Action::CycleSort]);
        for (i, x) in steps.into_iter().enumerate() {
            update(&mut a, x);
            assert!(a.pod_rows.is_current(&a), "step {i}");
            let mut fresh = PodRows::default();
            fresh.refresh(&a);
            assert_eq!(a.pod_rows.order, fresh.order, "step {i}: query {:?}", a.pods.query);
            assert_eq!(a.pod_rows.pending, fresh.pending, "step {i}");
            assert_eq!(a.pod_rows.widths, fresh.widths, "step {i}");
            // what the list showed before it kept its rows: every pod the matcher matches, in order
            let m = SkimMatcherV2::default();
            let reference: Vec<String> = sorted(&a)
                .into_iter()
                .map(|i| &a.cluster.pods[i])
                .filter(|p| matches(&m, p, &a.pods.query).is_some())
                .map(|p| p.key.to_string())
                .collect();
            assert_eq!(shown(&a), reference, "step {i}");
        }
    }

    #[test]
    fn a_search_that_only_grows_narrows_the_rows_it_had_and_the_widths_follow() {
        use crate::app::{Action, update};
        let mut a = app();
        update(&mut a, Action::SearchStart);
        update(&mut a, Action::Input('b'));
        assert_eq!(shown(&a), vec!["default/web-2", "default/batch-1", "data/db-0"]);
        update(&mut a, Action::Input('a'));
        assert_eq!(shown(&a), vec!["default/batch-1"]);
        assert_eq!(a.pod_rows.widths().name, "batch-1".len());
        assert_eq!(a.pod_rows.widths().namespace, "default".len());
        assert_eq!(a.pod_rows.pending(), 1);
        // the whole key once there is a '/': a shorter search on names is no superset of it
        update(&mut a, Action::ClearInput);
        for c in "data/".chars() {
            update(&mut a, Action::Input(c));
        }
        assert_eq!(shown(&a), vec!["data/etl-1", "data/db-0"]);
        assert_eq!(a.pod_rows.cluster_pending(), 4);
    }

    #[test]
    fn moving_the_cursor_keeps_the_rows_as_they_were() {
        use crate::app::{Action, update};
        let mut a = app();
        let before = a.pod_rows.order.as_ptr();
        for x in [
            Action::Down,
            Action::Down,
            Action::PageDown,
            Action::Up,
            Action::Bottom,
            Action::Top,
        ] {
            update(&mut a, x);
            assert_eq!(a.pod_rows.order.as_ptr(), before, "the rows were not computed again");
        }
        // a change of the cluster computes them again
        let c = (*a.cluster).clone();
        crate::app::update::tests_support::set_cluster(&mut a, c);
        crate::app::update(&mut a, Action::Tick { now: 0 });
        assert!(a.pod_rows.is_current(&a));
        assert_eq!(shown(&a).len(), 6);
    }

    #[test]
    fn rows_read_after_a_change_outside_update_are_the_cluster_as_it_is() {
        let mut a = app();
        a.pods.query = "etl".into();
        assert!(!a.pod_rows.is_current(&a));
        assert_eq!(
            rows(&a).iter().map(|r| r.pod.key.to_string()).collect::<Vec<_>>(),
            vec!["data/etl-1"]
        );
        assert_eq!(a.pending_count(), 4);
        a.refresh_rows();
        assert_eq!(shown(&a), vec!["data/etl-1"]);
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
