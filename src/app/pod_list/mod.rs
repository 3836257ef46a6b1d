//! The pod list: which pods are shown (namespace, fuzzy search with match positions for
//! highlighting, pending only, the reason filters of `r` and `:reason`), in which order
//! (pending pods first in scheduling-queue order by default, or by a column), and the decisive
//! reason of each pending pod ([`reason`](super::reason)) kept in its summary.
//!
//! The rows are computed when their inputs change, never per frame: [`PodRows`] is kept in the
//! app and refreshed by `update` (what each pod needs of the list once per cluster; the
//! namespace and sort order once per change of them; the search once per character, narrowing
//! the rows already matched when the text only grew). Moving the cursor and drawing read it.

//!
//! Here: the sort keys, filters and what the screens read; the search is in `search`, the kept
//! rows in `rows`, the pending pods in `pending`.

use std::borrow::Cow;
use std::sync::Arc;

use fuzzy_matcher::skim::SkimMatcherV2;

use super::App;
use crate::model::Pod;

mod pending;
mod rows;
mod search;

/// Sort orders of the pod list: one per column (k9s: Shift+letter), and the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SortKey {
    /// Pending pods first in scheduling-queue order (priority, then age), then the others by name.
    #[default]
    Queue,
    /// Name, then namespace.
    Name,
    /// Namespace, then name.
    Namespace,
    /// Newest first.
    Age,
    /// Highest priority first.
    Priority,
    /// Scheduler name, then queue order.
    Scheduler,
    /// Largest CPU request first.
    Cpu,
    /// Largest memory request first.
    Memory,
    /// The reason column: pending pods with the same decisive reason together (reasons in byte
    /// order, the pods excluded by the most nodes first, then queue order), then bound pods by
    /// node, then finished pods.
    Reason,
}

impl SortKey {
    /// Every sort key, in the order `s` cycles through them.
    pub const ALL: [SortKey; 9] = [
        SortKey::Queue,
        SortKey::Name,
        SortKey::Namespace,
        SortKey::Age,
        SortKey::Priority,
        SortKey::Scheduler,
        SortKey::Cpu,
        SortKey::Memory,
        SortKey::Reason,
    ];

    /// The next sort key.
    pub fn next(self) -> Self {
        let i = Self::ALL.iter().position(|k| *k == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Queue => "queue",
            SortKey::Name => "name",
            SortKey::Namespace => "namespace",
            SortKey::Age => "age",
            SortKey::Priority => "priority",
            SortKey::Scheduler => "scheduler",
            SortKey::Cpu => "cpu",
            SortKey::Memory => "memory",
            SortKey::Reason => "reason",
        }
    }

    /// The header of the column it sorts (None: the queue has no column).
    pub fn column(self) -> Option<&'static str> {
        match self {
            SortKey::Queue => None,
            SortKey::Name => Some("NAME"),
            SortKey::Namespace => Some("NAMESPACE"),
            SortKey::Age => Some("AGE"),
            SortKey::Priority => Some("PRIO"),
            SortKey::Scheduler => Some("SCHEDULER"),
            SortKey::Cpu => Some("CPU"),
            SortKey::Memory => Some("MEM"),
            SortKey::Reason => Some(REASON_HEADER),
        }
    }
}

/// The reason column's header.
pub const REASON_HEADER: &str = "NODE / WHY PENDING";

impl SortKey {
    /// True when the key's own order is from the largest value down (priority, requests).
    pub fn descending(self) -> bool {
        matches!(self, SortKey::Priority | SortKey::Cpu | SortKey::Memory)
    }

    /// The direction mark beside the sorted column, as k9s draws it: ↑ smallest value first
    /// (names A to Z, the youngest age first), ↓ largest first.
    pub fn arrow(self, reverse: bool) -> &'static str {
        if self.descending() != reverse { "↓" } else { "↑" }
    }

    /// What the list's title says of the order: `queue`, `cpu↓`, `name↑`, `queue reversed`.
    pub fn describe(self, reverse: bool) -> String {
        match self.column() {
            Some(_) => format!("{}{}", self.name(), self.arrow(reverse)),
            None if reverse => format!("{} reversed", self.name()),
            None => self.name().to_string(),
        }
    }
}

/// Which reasons the list keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReasonFilter {
    /// `r`: exactly this decisive reason (its [key](crate::app::reason::Decisive::key): the
    /// node count left out).
    Same(String),
    /// `:reason TEXT`: the reason column contains this text (a substring, ASCII case ignored).
    Text(String),
}

impl ReasonFilter {
    /// As the list's title shows it.
    pub fn describe(&self) -> String {
        match self {
            ReasonFilter::Same(k) => format!("reason = {k}"),
            ReasonFilter::Text(t) => format!("reason ~ {t}"),
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
    /// Ctrl-z: only pending pods.
    pub pending_only: bool,
    /// `r`, `:reason`: only pods with this reason.
    pub reason: Option<ReasonFilter>,
    /// Selected row.
    pub selected: usize,
}

impl PodListState {
    /// Whether the rows depend on the explanations' reasons (sorted or filtered by them).
    pub fn by_reason(&self) -> bool {
        self.sort == SortKey::Reason || self.reason.is_some()
    }
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

use crate::model::queue_order;
pub use pending::PendingPods;
pub use rows::{PodRows, PodWidths};
pub(crate) use search::Search;
pub use search::{fuzzy_hit, is_match, matches};

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

/// The rows of the app as it is: the kept ones when current, computed otherwise (after a
/// change made outside `update`, as tests do).
pub fn current(app: &App) -> Cow<'_, PodRows> {
    if app.pod_rows.is_current(app) {
        Cow::Borrowed(&app.pod_rows)
    } else {
        let mut r = PodRows::default();
        r.refresh(app, true);
        Cow::Owned(r)
    }
}

/// Brings the app's rows up to date (called by `update` after every action; `reasons`: see
/// [`PodRows::refresh`]).
pub fn refresh(app: &mut App, reasons: bool) {
    let mut rows = std::mem::take(&mut app.pod_rows);
    rows.refresh(app, reasons);
    app.pod_rows = rows;
}

/// Indices of the namespace's pods in display order (before the search), comparing the pods
/// themselves (for a cluster whose pods are not in key order; the reference of the tests).
fn sorted(app: &App) -> Vec<usize> {
    let st = &app.pods;
    let pods = &app.cluster.pods;
    let mut idx: Vec<(usize, &Pod)> = pods
        .iter()
        .map(|p| &**p)
        .enumerate()
        .filter(|(_, p)| st.namespace.as_ref().is_none_or(|ns| &p.key.namespace == ns))
        .filter(|(_, p)| !st.pending_only || p.is_pending())
        .filter(|(_, p)| st.reason.as_ref().is_none_or(|f| reason_keeps(app, p, f)))
        .collect();
    let requests = |p: &Pod| {
        let r = app.features.requests_of(p);
        (r.resource.milli_cpu, r.resource.memory)
    };
    idx.sort_by(|&(_, a), &(_, b)| {
        let in_queue = |a: &Pod, b: &Pod| {
            if a.is_pending() {
                queue_order(a, b)
            } else {
                a.key.cmp(&b.key)
            }
        };
        match st.sort {
            SortKey::Queue => group(a).cmp(&group(b)).then_with(|| in_queue(a, b)),
            SortKey::Namespace => a.key.cmp(&b.key),
            SortKey::Name => a.key.name.cmp(&b.key.name).then_with(|| a.key.cmp(&b.key)),
            SortKey::Age => b.creation().cmp(&a.creation()).then_with(|| a.key.cmp(&b.key)),
            SortKey::Priority => b.priority.cmp(&a.priority).then_with(|| a.key.cmp(&b.key)),
            SortKey::Scheduler => a
                .scheduler_name()
                .cmp(b.scheduler_name())
                .then_with(|| group(a).cmp(&group(b)))
                .then_with(|| queue_order(a, b)),
            SortKey::Cpu => requests(b).0.cmp(&requests(a).0).then_with(|| a.key.cmp(&b.key)),
            SortKey::Memory => requests(b).1.cmp(&requests(a).1).then_with(|| a.key.cmp(&b.key)),
            SortKey::Reason => {
                let (x, y) = (sort_key(app, a), sort_key(app, b));
                x.0.cmp(&y.0)
                    .then_with(|| x.1.cmp(y.1))
                    .then(y.2.cmp(&x.2))
                    .then_with(|| in_queue(a, b))
            }
        }
    });
    if st.reverse {
        idx.reverse();
    }
    idx.into_iter().map(|(i, _)| i).collect()
}

/// What the reason sort and `r` compare of a pod: its group (pending, bound, finished), its
/// reason without the node count (the [decisive reason](crate::app::reason)'s key of a pending
/// pod; `on NODE`, `finished (PHASE)` of the others), and how many nodes the reason excludes.
pub fn reason_key<'a>(app: &'a App, pod: &'a Pod) -> (u8, Cow<'a, str>, usize) {
    if pod.is_finished() {
        return (2, Cow::Owned(format!("finished ({})", pod.phase())), 0);
    }
    if let Some(n) = &pod.node_name {
        return (1, Cow::Owned(format!("on {n}")), 0);
    }
    match app.summary(&pod.key) {
        Some(Ok(s)) => (0, Cow::Borrowed(s.reason_key()), s.nodes),
        Some(Err(e)) => (0, Cow::Borrowed(e.as_str()), 0),
        None => (0, Cow::Borrowed(EXPLAINING), 0),
    }
}

/// [`reason_key`] without allocating, for sorting 100,000 pods: the node of a bound pod, the
/// phase of a finished one (ordered as `on NODE`, `finished (PHASE)` are within their group).
fn sort_key<'a>(app: &'a App, pod: &'a Pod) -> (u8, &'a str, usize) {
    if pod.is_finished() {
        return (2, pod.phase(), 0);
    }
    if let Some(n) = &pod.node_name {
        return (1, &**n, 0);
    }
    match app.summary(&pod.key) {
        Some(Ok(s)) => (0, s.reason_key(), s.nodes),
        Some(Err(e)) => (0, e.as_str(), 0),
        None => (0, EXPLAINING, 0),
    }
}

/// The reason column of a pod still being explained.
const EXPLAINING: &str = "explaining…";

/// True when `hay` contains `needle`, ASCII case ignored.
fn contains_ignoring_case(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// Whether the reason filter keeps a pod.
fn reason_keeps(app: &App, pod: &Pod, f: &ReasonFilter) -> bool {
    match f {
        // what `reason_key` would say, compared without allocating it
        ReasonFilter::Same(k) => match sort_key(app, pod) {
            (0, key, _) => key == k.as_str(),
            (1, node, _) => k.strip_prefix("on ") == Some(node),
            (_, phase, _) => k.strip_prefix("finished (").and_then(|r| r.strip_suffix(')')) == Some(phase),
        },
        ReasonFilter::Text(t) => contains_ignoring_case(&column_text(app, pod), t),
    }
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

/// The reason column of a pod: bound node, its gang's story, the decisive reason, or progress.
pub fn column_text<'a>(app: &'a App, pod: &'a Pod) -> Cow<'a, str> {
    if pod.is_finished() {
        return Cow::Owned(format!("finished ({})", pod.phase()));
    }
    if let Some(n) = &pod.node_name {
        return Cow::Owned(format!("on {n}"));
    }
    // a gang member: its group's story once the group's pass is known (alone, every member
    // of a gang that fits would wait at Permit); a member held before the queue says so
    if let Some(g) = app.gang_pass(&pod.key)
        && !matches!(app.summary(&pod.key), Some(Ok(s)) if s.held)
    {
        return Cow::Owned(g.headline());
    }
    match app.summary(&pod.key) {
        Some(Ok(s)) => Cow::Borrowed(s.line.as_str()),
        Some(Err(e)) => Cow::Borrowed(e.as_str()),
        None => Cow::Borrowed(EXPLAINING),
    }
}

/// The reason column of a pod, owned; a what-if pod of `:fit` is marked `what-if ·`.
pub fn status_line(app: &App, pod: &Pod) -> String {
    let text = column_text(app, pod);
    if is_what_if(app, pod) {
        return format!("what-if · {text}");
    }
    text.into_owned()
}

/// True for a pod the last `:fit FILE` added (its object is annotated
/// `kschedtui.io/what-if` too, so a saved snapshot still says so; the app's list is asked here,
/// which does not decode the pod's object for every row drawn).
pub fn is_what_if(app: &App, pod: &Pod) -> bool {
    app.fit
        .as_ref()
        .is_some_and(|f| f.asked.is_none() && f.pods.contains(&pod.key))
}

#[cfg(test)]
mod tests;
