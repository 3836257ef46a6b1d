//! The pod list: which pods are shown (namespace, fuzzy search with match positions for
//! highlighting, pending only, the reason filters of `r` and `:reason`), in which order
//! (pending pods first in scheduling-queue order by default, or by a column), and the decisive
//! reason of each pending pod ([`reason`](super::reason)) kept in its summary.
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
use crate::model::{Cluster, Pod};

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

/// What the pod list's `/` looks for, as k9s' filter does: a part of the pod's name (of
/// `namespace/name` when the text has a `/`), ASCII case ignored unless the text has a
/// capital; `-f TEXT` a fuzzy match (the letters in order, skim's rules); `-l SELECTOR` the
/// pods whose labels a label selector (`app=web,tier!=db`, `env in (a,b)`) selects.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Search<'a> {
    /// Every pod.
    All,
    /// A part of the name.
    Part(&'a str),
    /// A fuzzy match.
    Fuzzy(&'a str),
    /// A label selector (or why it does not parse: it selects nothing).
    Labels(Result<crate::model::selector::Selector, String>),
}

impl<'a> Search<'a> {
    /// The search a query asks for.
    pub(crate) fn of(query: &'a str) -> Search<'a> {
        if let Some(sel) = query.strip_prefix("-l ") {
            return Search::Labels(crate::model::selector::Selector::parse(sel.trim()));
        }
        if let Some(q) = query.strip_prefix("-f ") {
            return if q.is_empty() { Search::All } else { Search::Fuzzy(q) };
        }
        if query.is_empty() {
            Search::All
        } else {
            Search::Part(query)
        }
    }
}

/// Where `part` first occurs in `text` (ASCII case ignored unless `case_sensitive`), as a byte
/// offset.
fn find_part(text: &str, part: &str, case_sensitive: bool) -> Option<usize> {
    if case_sensitive {
        return text.find(part);
    }
    let (t, p) = (text.as_bytes(), part.as_bytes());
    if p.is_empty() {
        return Some(0);
    }
    // a byte of a multi-byte character is never ASCII: it only ever equals itself
    t.windows(p.len())
        .position(|w| w.eq_ignore_ascii_case(p))
        .filter(|&i| text.is_char_boundary(i))
}

/// The characters of `text` a part of it found at byte `at`, `len` bytes long, covers.
fn part_hits(text: &str, at: usize, len: usize) -> Vec<usize> {
    let first = text[..at].chars().count();
    (first..first + text[at..at + len].chars().count()).collect()
}

/// Whether the search matches a pod, and where: `(ns_hits, name_hits)` (character positions
/// to highlight), or None when it does not match.
pub fn matches(matcher: &SkimMatcherV2, pod: &Pod, query: &str) -> Option<(Vec<usize>, Vec<usize>)> {
    let query = match Search::of(query) {
        Search::All => return Some((Vec::new(), Vec::new())),
        Search::Labels(sel) => {
            return sel
                .ok()
                .filter(|s| s.matches(&pod.labels))
                .map(|_| (Vec::new(), Vec::new()));
        }
        Search::Part(q) => {
            let case_sensitive = q.chars().any(|c| c.is_ascii_uppercase());
            if q.contains('/') {
                let full = format!("{}/{}", pod.key.namespace, pod.key.name);
                let at = find_part(&full, q, case_sensitive)?;
                let idx = part_hits(&full, at, q.len());
                let ns_len = pod.key.namespace.chars().count();
                let ns = idx.iter().copied().filter(|&i| i < ns_len).collect();
                let name = idx.iter().filter(|&&i| i > ns_len).map(|&i| i - ns_len - 1).collect();
                return Some((ns, name));
            }
            let at = find_part(&pod.key.name, q, case_sensitive)?;
            return Some((Vec::new(), part_hits(&pod.key.name, at, q.len())));
        }
        Search::Fuzzy(q) => q,
    };
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
/// query holds a `/`, or on its labels (what [`matches`] says, without the positions).
pub fn is_match(pod: &Pod, query: &str) -> bool {
    let query = match Search::of(query) {
        Search::All => return true,
        Search::Labels(sel) => return sel.is_ok_and(|s| s.matches(&pod.labels)),
        Search::Part(q) => {
            let case_sensitive = q.chars().any(|c| c.is_ascii_uppercase());
            return if q.contains('/') {
                find_part(&format!("{}/{}", pod.key.namespace, pod.key.name), q, case_sensitive).is_some()
            } else {
                find_part(&pod.key.name, q, case_sensitive).is_some()
            };
        }
        Search::Fuzzy(q) => q,
    };
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

/// Pods coming or going in one refresh up to which the rows are changed one pod at a time
/// (each shifts the later indices); more, and the rows are computed whole.
const ONE_BY_ONE: usize = 16;

/// Pods changed in one refresh up to which the rows are changed one pod at a time.
const CHANGED_AT_MOST: usize = 1024;

/// True when a CPU amount is whole cores.
fn whole_cores(milli: i64) -> bool {
    milli % 1000 == 0
}

/// The CPU column's unit when `milli_pods` pods request a CPU amount that is not whole cores
/// (what [`format::CpuUnit::of`] says of every pod's).
fn unit_of(milli_pods: usize) -> format::CpuUnit {
    if milli_pods == 0 {
        format::CpuUnit::Cores
    } else {
        format::CpuUnit::Milli
    }
}

/// What the list needs of a pod; its `namespace/name` appended to `keys`, the widths of its
/// amounts from `cpu_w` and `mem_w`.
fn meta_of(
    p: &Pod,
    features: &Features,
    schedulers: &[(String, usize)],
    keys: &mut String,
    cpu_w: impl FnOnce(i64) -> u16,
    mem_w: impl FnOnce(i64) -> u16,
) -> PodMeta {
    let r = features.requests_of(p);
    let key_at = keys.len();
    keys.push_str(&p.key.namespace);
    keys.push('/');
    keys.push_str(&p.key.name);
    PodMeta {
        ns_w: chars_u16(&p.key.namespace),
        name_w: chars_u16(&p.key.name),
        cpu_w: cpu_w(r.resource.milli_cpu),
        mem_w: mem_w(r.resource.memory),
        key_at,
        key_len: keys.len() - key_at,
        ns_len: p.key.namespace.len(),
        pending: p.is_pending(),
        group: group(p),
        priority: p.priority,
        created: p.creation(),
        scheduler: schedulers
            .binary_search_by(|(s, _)| s.as_str().cmp(p.scheduler_name()))
            .map_or(0, |i| u32::try_from(i).unwrap_or(u32::MAX)),
        cpu: r.resource.milli_cpu,
        mem: r.resource.memory,
    }
}

/// True when the row `m` is at least as wide as `old` in every column.
fn covers(m: &PodMeta, old: &PodMeta) -> bool {
    m.ns_w >= old.ns_w
        && m.name_w >= old.name_w
        && m.cpu_w >= old.cpu_w
        && m.mem_w >= old.mem_w
        && m.scheduler == old.scheduler
}

/// The order of the rows `a` and `b` (indices into `meta`) under `sort` (not reversed), for
/// every sort but the reason's (which reads the explanations: see [`PodRows::sort_indices`]);
/// ties broken by index, which is the key's order: a total order.
fn compare(meta: &[PodMeta], keys: &str, sort: SortKey, a: usize, b: usize) -> Ordering {
    let m = |i: usize| meta.get(i).copied().unwrap_or_default();
    let name_of = |x: &PodMeta| keys.get(x.key_at + x.ns_len + 1..x.key_at + x.key_len);
    let queue_order = |x: &PodMeta, y: &PodMeta| {
        y.priority
            .cmp(&x.priority)
            .then_with(|| x.created.cmp(&y.created))
            .then(a.cmp(&b))
    };
    let (x, y) = (m(a), m(b));
    match sort {
        SortKey::Namespace | SortKey::Reason => a.cmp(&b),
        SortKey::Name => name_of(&x).cmp(&name_of(&y)).then(a.cmp(&b)),
        SortKey::Queue => x
            .group
            .cmp(&y.group)
            .then_with(|| if x.pending { queue_order(&x, &y) } else { a.cmp(&b) }),
        SortKey::Age => y.created.cmp(&x.created).then(a.cmp(&b)),
        SortKey::Priority => y.priority.cmp(&x.priority).then(a.cmp(&b)),
        SortKey::Scheduler => x
            .scheduler
            .cmp(&y.scheduler)
            .then(x.group.cmp(&y.group))
            .then_with(|| queue_order(&x, &y)),
        SortKey::Cpu => y.cpu.cmp(&x.cpu).then(a.cmp(&b)),
        SortKey::Memory => y.mem.cmp(&x.mem).then(a.cmp(&b)),
    }
}

/// Whether the search keeps a pod (`m` its row's data in `keys`): what
/// [`PodRows::refresh`] keeps of the rows, for one pod.
fn search_keeps(search: &Search<'_>, keys: &str, m: &PodMeta, p: &Pod) -> bool {
    let text_of = |whole_key: bool| {
        let from = if whole_key { m.key_at } else { m.key_at + m.ns_len + 1 };
        keys.get(from..m.key_at + m.key_len)
    };
    match search {
        Search::All => true,
        Search::Part(q) => {
            let case_sensitive = q.chars().any(|c| c.is_ascii_uppercase());
            text_of(q.contains('/')).is_some_and(|t| find_part(t, q, case_sensitive).is_some())
        }
        Search::Fuzzy(q) => {
            let case_sensitive = q.chars().any(|c| c.is_ascii_uppercase());
            text_of(q.contains('/')).is_some_and(|t| text_subsequence(t, q, case_sensitive))
        }
        Search::Labels(sel) => sel.as_ref().is_ok_and(|s| s.matches(&p.labels)),
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
    /// The pod's creation time (None: it has none), for the queue and age orders.
    created: Option<k8s_openapi::jiff::Timestamp>,
    /// The scheduler name's place among the cluster's scheduler names, sorted.
    scheduler: u32,
    /// CPU (millicores) and memory (bytes) requests.
    cpu: i64,
    mem: i64,
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
    /// Scheduler name.
    pub scheduler: usize,
}

/// What the list's base rows are computed for: namespace, sort, direction, pending-only and
/// the reason filter.
type BaseKey = (Option<String>, SortKey, bool, bool, Option<ReasonFilter>);

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
    /// Every pod's `namespace/name`, back to back: the search and the name sort read this one
    /// buffer instead of every pod scattered in memory.
    keys: String,
    /// `cluster.pods` is in key order (as the model builds it), so a row's index orders it by
    /// key; otherwise the sort compares the pods themselves.
    key_sorted: bool,
    /// The namespaces that have pods, sorted.
    namespaces: Vec<String>,
    /// Pending pods in the cluster.
    cluster_pending: usize,
    /// The namespace, sort order, direction and filters `base` was computed for.
    base_key: Option<BaseKey>,
    /// [`App::reasons`](super::App) when `base` was computed from the reasons (sorted or
    /// filtered by them; None otherwise).
    reasons_at: Option<u64>,
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
    /// The CPU column's unit, over every pod of the cluster.
    cpu_unit: format::CpuUnit,
    /// Characters of each scheduler name, by its place among the cluster's (as `PodMeta::scheduler`).
    scheduler_w: Vec<u16>,
    /// Every pod in the last sort's order (unfiltered, not reversed), with the sort and, for
    /// the reason sort, the [`App::reasons`](super::App) it is for: the same key again
    /// (reverse), Ctrl-z, `r` and the namespace filter or reverse it instead of sorting
    /// 100,000 pods again.
    full_order: Option<(SortKey, u64, Vec<usize>)>,
    /// Pods per namespace (`namespaces` are its keys), kept as pods come and go.
    ns_pods: std::collections::BTreeMap<String, usize>,
    /// Pods per scheduler name, the names sorted (`PodMeta::scheduler` is a place here).
    schedulers: Vec<(String, usize)>,
    /// Pods whose CPU request is not whole cores (the CPU unit is millicores while any is).
    milli_pods: usize,
    /// Bytes of `keys` no row reads (the keys of pods gone since the last whole refresh).
    keys_unused: usize,
    /// How many times the rows were computed from every pod of a cluster.
    whole: u64,
}

impl PodRows {
    fn same_cluster(&self, app: &App) -> bool {
        self.is_of(&app.cluster, &app.features)
    }

    /// True when the rows were computed for this cluster and release.
    pub fn is_of(&self, cluster: &Arc<Cluster>, features: &Arc<Features>) -> bool {
        std::ptr::eq(self.cluster.as_ptr(), Arc::as_ptr(cluster))
            && std::ptr::eq(self.features.as_ptr(), Arc::as_ptr(features))
    }

    fn base_key_of(app: &App) -> BaseKey {
        let p = &app.pods;
        (p.namespace.clone(), p.sort, p.reverse, p.pending_only, p.reason.clone())
    }

    fn base_is(&self, app: &App) -> bool {
        self.base_key.as_ref().is_some_and(|(ns, sort, rev, pending, reason)| {
            let p = &app.pods;
            *ns == p.namespace
                && *sort == p.sort
                && *rev == p.reverse
                && *pending == p.pending_only
                && *reason == p.reason
        })
    }

    /// True when the rows are those of the app as it is. Rows sorted or filtered by reason
    /// count as current while explanations arrive: they follow the new reasons at the next
    /// [`refresh`](Self::refresh) that applies them (the next tick or key), not at every arrival.
    pub fn is_current(&self, app: &App) -> bool {
        self.same_cluster(app) && self.base_is(app) && self.query == app.pods.query
    }

    /// The explanations' version the rows' reasons are from (None: the rows do not depend on
    /// reasons); the terminal redraws when a tick changes it.
    pub fn reasons_at(&self) -> Option<u64> {
        self.reasons_at
    }

    /// Brings the rows up to date with the app, recomputing only what changed; `reasons`: also
    /// re-sort and re-filter by reason when explanations arrived since (false while a burst of
    /// explanations is applied, so 100,000 arrivals do not sort 100,000 times).
    pub fn refresh(&mut self, app: &App, reasons: bool) {
        let mut changed = false;
        if !self.same_cluster(app) {
            self.cluster = Arc::downgrade(&app.cluster);
            self.features = Arc::downgrade(&app.features);
            let mut keys = String::new();
            // the few distinct scheduler names, in order (a map, not a sort of every pod's)
            let mut schedulers: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
            for p in &app.cluster.pods {
                *schedulers.entry(p.scheduler_name()).or_default() += 1;
            }
            self.schedulers = schedulers.into_iter().map(|(s, n)| (s.to_string(), n)).collect();
            // one unit for the CPU column, over every pod (it does not change as the list is
            // filtered or scrolled)
            self.milli_pods = app
                .cluster
                .pods
                .iter()
                .filter(|p| !whole_cores(app.features.requests_of(p).resource.milli_cpu))
                .count();
            self.cpu_unit = unit_of(self.milli_pods);
            let cpu_unit = self.cpu_unit;
            self.scheduler_w = self.schedulers.iter().map(|(s, _)| chars_u16(s)).collect();
            // widths of the amounts shown, formatted once per distinct amount (a big cluster
            // has few distinct requests)
            let mut cpu_widths: std::collections::HashMap<i64, u16> = std::collections::HashMap::new();
            let mut mem_widths: std::collections::HashMap<i64, u16> = std::collections::HashMap::new();
            let schedulers = &self.schedulers;
            self.meta = app
                .cluster
                .pods
                .iter()
                .map(|p| {
                    meta_of(
                        p,
                        &app.features,
                        schedulers,
                        &mut keys,
                        |cpu| *cpu_widths.entry(cpu).or_insert_with(|| chars_u16(&cpu_unit.show(cpu))),
                        |mem| *mem_widths.entry(mem).or_insert_with(|| chars_u16(&format::bytes(mem))),
                    )
                })
                .collect();
            self.key_sorted = app.cluster.pods.windows(2).all(|w| w[0].key < w[1].key);
            self.keys = keys;
            self.keys_unused = 0;
            // the pods of a namespace are together when they are in key order: counted by runs
            let mut ns_pods: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
            let mut run: Option<(&str, usize)> = None;
            for p in &app.cluster.pods {
                match &mut run {
                    Some((ns, n)) if *ns == p.key.namespace.as_str() => *n += 1,
                    _ => {
                        if let Some((ns, n)) = run.replace((p.key.namespace.as_str(), 1)) {
                            *ns_pods.entry(ns.to_string()).or_default() += n;
                        }
                    }
                }
            }
            if let Some((ns, n)) = run {
                *ns_pods.entry(ns.to_string()).or_default() += n;
            }
            self.namespaces = ns_pods.keys().cloned().collect();
            self.ns_pods = ns_pods;
            self.cluster_pending = self.meta.iter().filter(|m| m.pending).count();
            self.full_order = None;
            self.whole += 1;
            changed = true;
        }
        let stale_reasons = app.pods.by_reason() && reasons && self.reasons_at != Some(app.reasons);
        if changed || !self.base_is(app) || stale_reasons {
            self.base = if self.key_sorted {
                self.ordered(app)
            } else {
                sorted(app)
            };
            self.base_key = Some(Self::base_key_of(app));
            self.reasons_at = app.pods.by_reason().then_some(app.reasons);
            changed = true;
        }
        if changed || self.query != app.pods.query {
            let q = app.pods.query.as_str();
            let search = Search::of(q);
            // a longer text matches a subset of what the shorter one matched, in the same
            // order (on the same text: the name, or namespace/name once there is a '/'; in the
            // same mode); a label selector is matched anew
            let same_mode = |a: &Search<'_>, b: &Search<'_>| {
                matches!(
                    (a, b),
                    (Search::Part(_) | Search::All, Search::Part(_)) | (Search::Fuzzy(_), Search::Fuzzy(_))
                )
            };
            let narrowing = !changed
                && q.starts_with(self.query.as_str())
                && q.contains('/') == self.query.contains('/')
                && same_mode(&Search::of(&self.query), &search);
            let from = if narrowing {
                std::mem::take(&mut self.order)
            } else {
                self.base.clone()
            };
            let mut order = from;
            let (keys, meta) = (&self.keys, &self.meta);
            let text_of = |i: usize, whole_key: bool| {
                meta.get(i).and_then(|m| {
                    let from = if whole_key { m.key_at } else { m.key_at + m.ns_len + 1 };
                    keys.get(from..m.key_at + m.key_len)
                })
            };
            match &search {
                Search::All => {}
                Search::Part(q) => {
                    let case_sensitive = q.chars().any(|c| c.is_ascii_uppercase());
                    let whole_key = q.contains('/');
                    order.retain(|&i| text_of(i, whole_key).is_some_and(|t| find_part(t, q, case_sensitive).is_some()));
                }
                Search::Fuzzy(q) => {
                    let case_sensitive = q.chars().any(|c| c.is_ascii_uppercase());
                    let whole_key = q.contains('/');
                    order.retain(|&i| text_of(i, whole_key).is_some_and(|t| text_subsequence(t, q, case_sensitive)));
                }
                Search::Labels(sel) => {
                    let pods = &app.cluster.pods;
                    order.retain(|&i| {
                        sel.as_ref()
                            .is_ok_and(|s| pods.get(i).is_some_and(|p| s.matches(&p.labels)))
                    });
                }
            }
            self.order = order;
            self.query = q.to_string();
            self.measure();
        }
    }

    /// The column widths and the pending pods over the rows shown.
    fn measure(&mut self) {
        self.widths = PodWidths::default();
        self.pending = 0;
        for at in 0..self.order.len() {
            let m = self
                .order
                .get(at)
                .and_then(|&i| self.meta.get(i))
                .copied()
                .unwrap_or_default();
            self.widen(&m);
            self.pending += usize::from(m.pending);
        }
    }

    /// Widens the columns to a row's.
    fn widen(&mut self, m: &PodMeta) {
        let w = &mut self.widths;
        w.namespace = w.namespace.max(usize::from(m.ns_w));
        w.name = w.name.max(usize::from(m.name_w));
        w.cpu = w.cpu.max(usize::from(m.cpu_w));
        w.mem = w.mem.max(usize::from(m.mem_w));
        let sw = self.scheduler_w.get(m.scheduler as usize).copied().unwrap_or(0);
        w.scheduler = w.scheduler.max(usize::from(sw));
    }

    /// True when a row's column is as wide as the widest: the widths may narrow without it.
    fn sets_a_width(&self, m: &PodMeta) -> bool {
        let w = &self.widths;
        let sw = self.scheduler_w.get(m.scheduler as usize).copied().unwrap_or(0);
        usize::from(m.ns_w) == w.namespace
            || usize::from(m.name_w) == w.name
            || usize::from(m.cpu_w) == w.cpu
            || usize::from(m.mem_w) == w.mem
            || usize::from(sw) == w.scheduler
    }

    /// Applies the pods a watch changed (each the cluster's version before and after, in key
    /// order, as [`ClusterState::update_cluster`](crate::model::event::ClusterState) reports
    /// them) to rows computed for the cluster before them, now `app`'s: each pod's row taken
    /// out and put back where the whole [`refresh`](Self::refresh) would put it (a search of
    /// the sorted rows; a pod that comes or goes shifts the later indices), without walking or
    /// sorting every pod. False when they cannot be (the rows then stay those of the old
    /// cluster, partly changed, and the next refresh computes them whole): pods not in key
    /// order, many pods come or gone, a scheduler name or CPU unit that appears or goes.
    /// Rows sorted or filtered by reason are sorted again by the refresh (the reasons change
    /// with the cluster).
    pub fn apply(&mut self, app: &App, changes: &[crate::model::live_update::Change<Pod>]) -> bool {
        let moves = changes.iter().filter(|(b, a)| b.is_some() != a.is_some()).count();
        if !std::ptr::eq(self.features.as_ptr(), Arc::as_ptr(&app.features))
            || !self.key_sorted
            || moves > ONE_BY_ONE
            || changes.len() > CHANGED_AT_MOST
        {
            return false;
        }
        if app.pods.by_reason() || !self.base_is(app) {
            // the refresh computes them from every pod's order
            self.base_key = None;
        }
        if self
            .full_order
            .as_ref()
            .is_some_and(|(sort, _, _)| *sort == SortKey::Reason)
        {
            self.full_order = None;
        }
        let query = self.query.clone();
        let search = Search::of(&query);
        // the widths only narrow when a row as wide as the widest goes or narrows
        let mut narrower = false;
        for (before, after) in changes {
            let mut widest = None;
            let Some(key) = after.as_ref().or(before.as_ref()).map(|p| &p.key) else {
                continue;
            };
            let at = self.meta.binary_search_by(|m| {
                let ns = self.keys.get(m.key_at..m.key_at + m.ns_len).unwrap_or("");
                let name = self
                    .keys
                    .get(m.key_at + m.ns_len + 1..m.key_at + m.key_len)
                    .unwrap_or("");
                ns.cmp(key.namespace.as_str()).then_with(|| name.cmp(key.name.as_str()))
            });
            let i = match (at, before) {
                (Ok(i), Some(b)) => {
                    let Some(old) = self.meta.get(i).copied() else {
                        return false;
                    };
                    if !self.take_out(app, i, &old, b, &search) {
                        return false;
                    }
                    if self.sets_a_width(&old) && self.order_has(app, &old, b, &search) {
                        widest = Some(old);
                    }
                    if !self.count(b, &old, false) {
                        return false;
                    }
                    if after.is_none() {
                        // its key stays in `keys` until the next whole refresh
                        self.keys_unused += old.key_len;
                        self.meta.remove(i);
                        self.shift(i, false);
                        if !self.count_ns(&key.namespace, false) {
                            return false;
                        }
                    }
                    i
                }
                (Err(i), None) => {
                    if after.is_some() {
                        self.shift(i, true);
                        self.count_ns(&key.namespace, true);
                    }
                    i
                }
                // the rows are not those of the cluster before
                _ => return false,
            };
            if let Some(a) = after {
                if self
                    .schedulers
                    .binary_search_by(|(s, _)| s.as_str().cmp(a.scheduler_name()))
                    .is_err()
                {
                    // a scheduler name the cluster had no pod of
                    return false;
                }
                let unit = self.cpu_unit;
                let kept = self.keys.len();
                let mut m = meta_of(
                    a,
                    &app.features,
                    &self.schedulers,
                    &mut self.keys,
                    |cpu| chars_u16(&unit.show(cpu)),
                    |mem| chars_u16(&format::bytes(mem)),
                );
                if before.is_some() {
                    // the same key: its text is in `keys` already
                    self.keys.truncate(kept);
                    let Some(slot) = self.meta.get_mut(i) else { return false };
                    m.key_at = slot.key_at;
                    *slot = m;
                } else {
                    self.meta.insert(i, m);
                }
                if !self.count(a, &m, true) {
                    return false;
                }
                self.put_in(app, i, &m, a, &search);
                if widest.is_some_and(|old| self.order_has(app, &m, a, &search) && covers(&m, &old)) {
                    // still shown, as wide as it was in every column
                    widest = None;
                }
            }
            narrower |= widest.is_some();
        }
        if self.schedulers.iter().any(|(_, n)| *n == 0)
            || unit_of(self.milli_pods) != self.cpu_unit
            || self.keys_unused > self.keys.len() / 2
        {
            // the whole refresh numbers the names or formats the amounts otherwise, or
            // compacts the keys of the pods gone
            return false;
        }
        if narrower {
            self.measure();
        }
        self.cluster = Arc::downgrade(&app.cluster);
        true
    }

    /// Counts a pod's version in (`add`) or out of the cluster's totals; false when a total
    /// would go below zero (the rows were not the cluster's).
    fn count(&mut self, p: &Pod, m: &PodMeta, add: bool) -> bool {
        let step = |n: &mut usize, by: bool| {
            if !by {
                return true;
            }
            if add {
                *n += 1;
                true
            } else if let Some(less) = n.checked_sub(1) {
                *n = less;
                true
            } else {
                false
            }
        };
        let milli = !whole_cores(m.cpu);
        let mut ok = step(&mut self.cluster_pending, m.pending) && step(&mut self.milli_pods, milli);
        match self
            .schedulers
            .binary_search_by(|(s, _)| s.as_str().cmp(p.scheduler_name()))
        {
            Ok(at) => ok &= self.schedulers.get_mut(at).is_some_and(|(_, n)| step(n, true)),
            Err(_) => ok = false,
        }
        ok
    }

    /// Counts a pod in (`add`) or out of its namespace, the namespace listed while it has pods.
    fn count_ns(&mut self, ns: &str, add: bool) -> bool {
        if add {
            let n = self.ns_pods.entry(ns.to_string()).or_default();
            *n += 1;
            if *n == 1
                && let Err(at) = self.namespaces.binary_search_by(|x| x.as_str().cmp(ns))
            {
                self.namespaces.insert(at, ns.to_string());
            }
            return true;
        }
        let Some(n) = self.ns_pods.get_mut(ns) else {
            return false;
        };
        *n = n.saturating_sub(1);
        if *n == 0 {
            self.ns_pods.remove(ns);
            if let Ok(at) = self.namespaces.binary_search_by(|x| x.as_str().cmp(ns)) {
                self.namespaces.remove(at);
            }
        }
        true
    }

    /// Shifts the indices after a pod removed at `i` down, or from a pod inserted at `i` up.
    fn shift(&mut self, i: usize, inserted: bool) {
        let fix = |v: &mut Vec<usize>| {
            for x in v.iter_mut() {
                if inserted && *x >= i {
                    *x += 1;
                } else if !inserted && *x > i {
                    *x -= 1;
                }
            }
        };
        if let Some((_, _, v)) = &mut self.full_order {
            fix(v);
        }
        fix(&mut self.base);
        fix(&mut self.order);
    }

    /// True when the base rows keep the pod at `i` (the namespace and pending-only filters;
    /// the reason filter's rows are computed by the refresh).
    fn base_keeps(&self, app: &App, m: &PodMeta) -> bool {
        let st = &app.pods;
        let ns = self.keys.get(m.key_at..m.key_at + m.ns_len);
        st.namespace.as_deref().is_none_or(|n| ns == Some(n)) && (!st.pending_only || m.pending)
    }

    /// True when the rows shown have the pod (`m` its row's data, `p` the pod).
    fn order_has(&self, app: &App, m: &PodMeta, p: &Pod, search: &Search<'_>) -> bool {
        self.base_key.is_some() && self.base_keeps(app, m) && search_keeps(search, &self.keys, m, p)
    }

    /// Takes the pod at `i` (`m` its row's data, `p` the pod) out of the sorted rows; false
    /// when a list that must hold it does not.
    fn take_out(&mut self, app: &App, i: usize, m: &PodMeta, p: &Pod, search: &Search<'_>) -> bool {
        let in_base = self.base_key.is_some() && self.base_keeps(app, m);
        let in_order = self.order_has(app, m, p, search);
        let (meta, keys) = (&self.meta, &self.keys);
        let mut ok = true;
        if let Some((sort, _, v)) = &mut self.full_order {
            match v.binary_search_by(|&x| compare(meta, keys, *sort, x, i)) {
                Ok(at) => {
                    v.remove(at);
                }
                Err(_) => ok = false,
            }
        }
        let (sort, reverse) = (app.pods.sort, app.pods.reverse);
        let dir = |o: Ordering| if reverse { o.reverse() } else { o };
        for (v, has) in [(&mut self.base, in_base), (&mut self.order, in_order)] {
            if !has {
                continue;
            }
            match v.binary_search_by(|&x| dir(compare(meta, keys, sort, x, i))) {
                Ok(at) => {
                    v.remove(at);
                }
                Err(_) => ok = false,
            }
        }
        if in_order {
            self.pending = self.pending.saturating_sub(usize::from(m.pending));
        }
        ok
    }

    /// Puts the pod at `i` (its row's data `m`, already at `i`; `p` the pod) where it goes in
    /// the sorted rows.
    fn put_in(&mut self, app: &App, i: usize, m: &PodMeta, p: &Pod, search: &Search<'_>) {
        let in_base = self.base_key.is_some() && self.base_keeps(app, m);
        let in_order = self.order_has(app, m, p, search);
        let (meta, keys) = (&self.meta, &self.keys);
        if let Some((sort, _, v)) = &mut self.full_order {
            let at = v.partition_point(|&x| compare(meta, keys, *sort, x, i) == Ordering::Less);
            v.insert(at, i);
        }
        let (sort, reverse) = (app.pods.sort, app.pods.reverse);
        let dir = |o: Ordering| if reverse { o.reverse() } else { o };
        for (v, has) in [(&mut self.base, in_base), (&mut self.order, in_order)] {
            if has {
                let at = v.partition_point(|&x| dir(compare(meta, keys, sort, x, i)) == Ordering::Less);
                v.insert(at, i);
            }
        }
        if in_order {
            self.pending += usize::from(m.pending);
            self.widen(m);
        }
    }

    /// The rows the namespace, pending-only and reason filters keep, in index order.
    fn kept(&self, app: &App) -> Vec<usize> {
        let st = &app.pods;
        let (m, keys) = (&self.meta, &self.keys);
        let pods = &app.cluster.pods;
        let ns_of = |i: usize| m.get(i).and_then(|m| keys.get(m.key_at..m.key_at + m.ns_len));
        (0..m.len())
            .filter(|&i| st.namespace.as_deref().is_none_or(|ns| ns_of(i) == Some(ns)))
            .filter(|&i| !st.pending_only || m.get(i).is_some_and(|x| x.pending))
            .filter(|&i| {
                st.reason
                    .as_ref()
                    .is_none_or(|f| pods.get(i).is_some_and(|p| reason_keeps(app, p, f)))
            })
            .collect()
    }

    /// [`sorted`](Self::sorted) from every pod's order under the sort, kept until the sort
    /// (or, for the reason sort, the reasons) change: the kept rows in that order (reversed
    /// with `reverse`).
    fn ordered(&mut self, app: &App) -> Vec<usize> {
        let sort = app.pods.sort;
        let at = if sort == SortKey::Reason { app.reasons } else { 0 };
        if self.full_order.as_ref().is_none_or(|(s, a, _)| (*s, *a) != (sort, at)) {
            let all = self.sort_indices(app, (0..self.meta.len()).collect(), sort, false);
            self.full_order = Some((sort, at, all));
        }
        let mut keep = vec![false; self.meta.len()];
        for i in self.kept(app) {
            if let Some(k) = keep.get_mut(i) {
                *k = true;
            }
        }
        let mut idx: Vec<usize> = self
            .full_order
            .iter()
            .flat_map(|(_, _, v)| v.iter().copied())
            .filter(|&i| keep.get(i).copied().unwrap_or(false))
            .collect();
        if app.pods.reverse {
            idx.reverse();
        }
        idx
    }

    /// What [`sorted`] gives, from what was kept of each pod (when `cluster.pods` is in key
    /// order, so the index stands for the key), sorted afresh (the tests' reference for
    /// [`ordered`](Self::ordered)).
    #[cfg(test)]
    fn sorted(&self, app: &App) -> Vec<usize> {
        self.sort_indices(app, self.kept(app), app.pods.sort, app.pods.reverse)
    }

    /// `idx` in the order of `sort` (reversed with `reverse`).
    fn sort_indices(&self, app: &App, mut idx: Vec<usize>, sort: SortKey, reverse: bool) -> Vec<usize> {
        let (m, keys) = (&self.meta, &self.keys);
        let pods = &app.cluster.pods;
        let queue_order = |a: usize, x: &PodMeta, b: usize, y: &PodMeta| {
            y.priority
                .cmp(&x.priority)
                .then_with(|| x.created.cmp(&y.created))
                .then(a.cmp(&b))
        };
        let meta = |i: usize| m.get(i).copied().unwrap_or_default();
        match sort {
            // the rows are in key order already
            SortKey::Namespace => {}
            SortKey::Name
            | SortKey::Queue
            | SortKey::Age
            | SortKey::Priority
            | SortKey::Scheduler
            | SortKey::Cpu
            | SortKey::Memory => idx.sort_by(|&a, &b| compare(m, keys, sort, a, b)),
            SortKey::Reason => {
                // the sort keys, computed once per sort
                let mut rk: Vec<(u8, &str, usize)> = vec![(0, "", 0); m.len()];
                for &i in &idx {
                    if let (Some(p), Some(slot)) = (pods.get(i), rk.get_mut(i)) {
                        *slot = sort_key(app, p);
                    }
                }
                // one rank per distinct (group, reason): the sort compares integers, not
                // 100,000 strings (most of them node names of bound pods)
                let mut ids: std::collections::HashMap<(u8, &str), u32> = std::collections::HashMap::new();
                let mut id = vec![0u32; m.len()];
                for &i in &idx {
                    let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
                    if let (Some(k), Some(slot)) = (rk.get(i), id.get_mut(i)) {
                        *slot = *ids.entry((k.0, k.1)).or_insert(next);
                    }
                }
                let mut distinct: Vec<((u8, &str), u32)> = ids.into_iter().collect();
                distinct.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                let mut rank = vec![0u32; distinct.len()];
                for (r, (_, i)) in distinct.iter().enumerate() {
                    if let Some(slot) = rank.get_mut(*i as usize) {
                        *slot = u32::try_from(r).unwrap_or(u32::MAX);
                    }
                }
                let key = |i: usize| {
                    let r = id.get(i).and_then(|&d| rank.get(d as usize)).copied().unwrap_or(0);
                    (r, rk.get(i).map_or(0, |k| k.2))
                };
                idx.sort_by(|&a, &b| {
                    let (ka, kb) = (key(a), key(b));
                    ka.0.cmp(&kb.0).then(kb.1.cmp(&ka.1)).then_with(|| {
                        let (x, y) = (meta(a), meta(b));
                        if x.pending {
                            queue_order(a, &x, b, &y)
                        } else {
                            a.cmp(&b)
                        }
                    })
                });
            }
        }
        if reverse {
            idx.reverse();
        }
        idx
    }

    /// How many times the rows were computed from every pod of a cluster (not changed pod by
    /// pod).
    pub fn whole_builds(&self) -> u64 {
        self.whole
    }

    /// The rows, what is kept of every pod and the orders, as text (the tests compare rows kept
    /// pod by pod with rows computed afresh).
    #[cfg(test)]
    pub(crate) fn digest(&self, app: &App) -> String {
        let key = |i: usize| app.cluster.pods.get(i).map(|p| p.key.to_string()).unwrap_or_default();
        let keys = |v: &[usize]| v.iter().map(|&i| key(i)).collect::<Vec<_>>();
        let meta: Vec<String> = self
            .meta
            .iter()
            .map(|m| {
                let text = self.keys.get(m.key_at..m.key_at + m.key_len).unwrap_or("?");
                format!("{text} {:?}", PodMeta { key_at: 0, ..*m })
            })
            .collect();
        format!(
            "order {:#?}\nbase {:#?}\nfull {:#?}\nwidths {:?} pending {} of {} unit {:?}\nnamespaces {:?} {:?}\nschedulers {:?} {:?} milli {}\nkey sorted {} base key {:?} reasons {:?} query {:?}\nmeta {:#?}",
            keys(&self.order),
            keys(&self.base),
            self.full_order.as_ref().map(|(s, a, v)| (s, a, keys(v))),
            self.widths,
            self.pending,
            self.cluster_pending,
            self.cpu_unit,
            self.namespaces,
            self.ns_pods,
            self.schedulers,
            self.scheduler_w,
            self.milli_pods,
            self.key_sorted,
            self.base_key,
            self.reasons_at,
            self.query,
            meta
        )
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

    /// The CPU column's unit (one for every pod of the cluster).
    pub fn cpu_unit(&self) -> format::CpuUnit {
        self.cpu_unit
    }

    /// The namespaces that have pods, sorted.
    pub fn namespaces(&self) -> &[String] {
        &self.namespaces
    }
}

/// The pending pods in the scheduling queue's order ([`queue_order`]), kept with the cluster
/// they are of: built from every pod when the cluster is replaced, changed pod by pod when a
/// watch's events are applied to it ([`PendingPods::apply`]).
#[derive(Clone, Debug, Default)]
pub struct PendingPods {
    /// The cluster they are of (a `Weak` keeps the address from being reused while compared).
    cluster: Weak<Cluster>,
    /// The pods.
    pods: Vec<Arc<Pod>>,
    /// How many times they were found among every pod of a cluster and sorted.
    whole: u64,
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
mod tests {
    use super::*;
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
        assert_eq!(matches(&m, &p, "-f wb"), Some((vec![], vec![0, 2])));
        assert_eq!(matches(&m, &p, "-f zz"), None);
        assert_eq!(matches(&m, &p, "-f def/w"), Some((vec![0, 1, 2], vec![0])));
        assert_eq!(matches(&m, &p, ""), Some((vec![], vec![])));
        assert_eq!(matches(&m, &p, "-f "), Some((vec![], vec![])));
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
        app_of(crate::source::generate::GenSpec::new(20, 400, 7))
    }

    /// The app loaded with the cluster `spec` generates.
    fn app_of(spec: crate::source::generate::GenSpec) -> App {
        let v = crate::source::generate::generate(spec);
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
        fn kept_rows_follow_any_search(keys in proptest::collection::vec(0usize..15, 1..24)) {
            use crate::app::{Action, update};
            let mut a = generated();
            update(&mut a, Action::SearchStart);
            let m = SkimMatcherV2::default();
            for k in keys {
                let x = match k {
                    // `-f `, `-l ` switch the mode (a fuzzy match, a label selector)
                    0..=9 => Action::Input(['w', 'e', 'b', '/', '1', 'T', '-', 'f', 'l', ' '][k]),
                    10 | 11 => Action::Backspace,
                    12 => Action::ClearInput,
                    13 => Action::CycleSort,
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
            kept.refresh(&a, true);
            assert!(kept.key_sorted);
            for ns in [None, Some("data"), Some("team-a")] {
                for sort in SortKey::ALL {
                    for (reverse, pending_only) in [(false, false), (true, false), (false, true), (true, true)] {
                        a.pods.namespace = ns.map(str::to_string);
                        a.pods.sort = sort;
                        a.pods.reverse = reverse;
                        a.pods.pending_only = pending_only;
                        assert_eq!(kept.sorted(&a), sorted(&a), "{ns:?} {sort:?} {reverse} {pending_only}");
                        // from the kept order of every pod, filtered and reversed
                        assert_eq!(kept.ordered(&a), sorted(&a), "{ns:?} {sort:?} {reverse} {pending_only}");
                    }
                }
            }
        }
    }

    /// `/` finds a part of the name, as k9s' filter does (a fuzzy match is `-f`): the letters
    /// found are highlighted; a capital makes it case-sensitive; with a `/` it is found in
    /// `namespace/name`.
    #[test]
    fn a_search_finds_a_part_of_the_name() {
        let m = SkimMatcherV2::default();
        let p = pod("default", "web-2");
        assert_eq!(matches(&m, &p, "eb-"), Some((vec![], vec![1, 2, 3])));
        assert_eq!(matches(&m, &p, "EB"), None);
        assert_eq!(matches(&m, &p, "wb"), None, "not fuzzy");
        assert_eq!(matches(&m, &p, "lt/we"), Some((vec![5, 6], vec![0, 1])));
        assert_eq!(matches(&m, &p, "def/w"), None);
        let p = pod("shop", "Web-Frontend");
        assert_eq!(matches(&m, &p, "front"), Some((vec![], vec![4, 5, 6, 7, 8])));
        assert_eq!(matches(&m, &p, "Front"), Some((vec![], vec![4, 5, 6, 7, 8])));
        assert_eq!(matches(&m, &p, "FRONT"), None);
    }

    /// `/-l SELECTOR` keeps the pods the label selector selects; a selector that does not
    /// parse selects nothing.
    #[test]
    fn a_search_with_l_is_a_label_selector() {
        let m = SkimMatcherV2::default();
        let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: shop, labels: {app: web, tier: front}}\nspec: {containers: []}\n";
        let c = file::load_str("t", yaml).expect("pod loads");
        let p = (*c.pods[0]).clone();
        for (q, hit) in [
            ("-l app=web", true),
            ("-l app=web,tier!=db", true),
            ("-l app in (web,api)", true),
            ("-l app=api", false),
            ("-l !tier", false),
            ("-l app in (web", false),
        ] {
            assert_eq!(matches(&m, &p, q).is_some(), hit, "{q}");
            assert_eq!(is_match(&p, q), hit, "{q}");
        }
        assert!(matches!(Search::of("-l app in (web"), Search::Labels(Err(_))));
    }

    #[test]
    fn is_match_agrees_with_the_positions() {
        let m = SkimMatcherV2::default();
        let p = pod("default", "web-2");
        for q in [
            "", "wb", "zz", "def/w", "DEF/w", "t/w", "/", "w/", "W", "eb-2", "-f wb", "-f def/w", "-f DEF/w", "-l app",
            "-l !app",
        ] {
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
        steps.extend([
            Action::SortPods(SortKey::Cpu),
            Action::SortPods(SortKey::Cpu),
            Action::TogglePendingOnly,
            Action::SortPods(SortKey::Reason),
            Action::Down,
            Action::SameReason,
            Action::TogglePendingOnly,
            Action::SameReason,
            Action::SortPods(SortKey::Name),
        ]);
        for (i, x) in steps.into_iter().enumerate() {
            update(&mut a, x);
            assert!(a.pod_rows.is_current(&a), "step {i}");
            let mut fresh = PodRows::default();
            fresh.refresh(&a, true);
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

    /// A generated cluster with two pods of every failure kind and two that fit.
    fn failing() -> App {
        app_of(crate::source::generate::GenSpec {
            pending: 2,
            failing: 2 * crate::source::generate::FAILURE_KINDS.len(),
            ..crate::source::generate::GenSpec::new(12, 60, 5)
        })
    }

    fn names(a: &App) -> Vec<String> {
        let r = &a.pod_rows;
        r.pods(a, 0..r.len()).map(|p| p.key.name.to_string()).collect()
    }

    fn select(a: &mut App, name: &str) {
        a.pods.selected = names(a).iter().position(|n| n == name).expect("listed");
    }

    #[test]
    fn shift_letters_sort_by_their_column_and_the_same_letter_again_reverses() {
        use crate::app::{Action, update};
        let mut a = app();
        update(&mut a, Action::SortPods(SortKey::Name));
        assert_eq!(names(&a), ["api-1", "batch-1", "db-0", "etl-1", "gated-1", "web-2"]);
        assert_eq!(
            (a.pods.sort.describe(a.pods.reverse), a.pods.sort.arrow(a.pods.reverse)),
            ("name↑".to_string(), "↑")
        );
        update(&mut a, Action::SortPods(SortKey::Name));
        assert_eq!(names(&a), ["web-2", "gated-1", "etl-1", "db-0", "batch-1", "api-1"]);
        assert_eq!(a.pods.sort.describe(a.pods.reverse), "name↓");
        // another column starts in its own direction again
        update(&mut a, Action::SortPods(SortKey::Namespace));
        assert!(!a.pods.reverse);
        assert_eq!(
            shown(&a),
            [
                "data/db-0",
                "data/etl-1",
                "default/api-1",
                "default/batch-1",
                "default/gated-1",
                "default/web-2"
            ]
        );
        update(&mut a, Action::SortPods(SortKey::Cpu));
        assert_eq!(names(&a), ["api-1", "db-0", "batch-1", "web-2", "etl-1", "gated-1"]);
        assert_eq!(a.pods.sort.describe(a.pods.reverse), "cpu↓");
        update(&mut a, Action::SortPods(SortKey::Cpu));
        assert_eq!(names(&a), ["gated-1", "etl-1", "web-2", "batch-1", "db-0", "api-1"]);
        assert_eq!(a.pods.sort.describe(a.pods.reverse), "cpu↑");
        update(&mut a, Action::SortPods(SortKey::Memory));
        assert_eq!(names(&a), ["api-1", "db-0", "batch-1", "web-2", "etl-1", "gated-1"]);
        update(&mut a, Action::SortPods(SortKey::Priority));
        assert_eq!(names(&a)[0], "web-2", "priority 1000 first");
        assert_eq!(a.pods.sort.column(), Some("PRIO"));
        assert_eq!(SortKey::Queue.column(), None);
        assert_eq!(SortKey::Queue.describe(true), "queue reversed");
    }

    #[test]
    fn the_reason_sort_puts_the_same_decisive_reasons_together() {
        use crate::app::{Action, update};
        let mut a = failing();
        update(&mut a, Action::TogglePendingOnly);
        update(&mut a, Action::SortPods(SortKey::Reason));
        let keys: Vec<String> = a
            .pod_rows
            .pods(&a, 0..a.pod_rows.len())
            .map(|p| reason_key(&a, p).1.into_owned())
            .collect();
        let mut deduped = keys.clone();
        deduped.dedup();
        let mut sorted_keys = deduped.clone();
        sorted_keys.sort();
        sorted_keys.dedup();
        assert_eq!(deduped, sorted_keys, "each reason once, in byte order: {keys:?}");
        assert_eq!(names(&a)[..2], ["cpu-000000", "cpu-000006"]);
        update(&mut a, Action::SortPods(SortKey::Reason));
        assert_eq!(names(&a).last().map(String::as_str), Some("cpu-000000"));
    }

    #[test]
    fn ctrl_z_keeps_only_the_pending_pods_and_again_every_pod() {
        use crate::app::{Action, update};
        let mut a = app();
        update(&mut a, Action::TogglePendingOnly);
        assert_eq!(names(&a), ["web-2", "etl-1", "batch-1", "gated-1"]);
        assert!(a.pod_rows.pods(&a, 0..a.pod_rows.len()).all(|p| p.is_pending()));
        assert_eq!(a.pod_rows.pending(), 4);
        update(&mut a, Action::TogglePendingOnly);
        assert_eq!(names(&a).len(), 6);
    }

    #[test]
    fn r_keeps_the_selected_pods_reason_whatever_its_node_count_and_r_again_every_pod() {
        use crate::app::{Action, update};
        let mut a = failing();
        let all = names(&a).len();
        select(&mut a, "cpu-000006");
        update(&mut a, Action::SameReason);
        assert_eq!(a.pods.reason, Some(ReasonFilter::Same("Insufficient cpu".into())));
        assert_eq!(names(&a), ["cpu-000000", "cpu-000006"]);
        assert_eq!(
            names(&a)[a.pods.selected],
            "cpu-000006",
            "the selection stays on the pod"
        );
        assert_eq!(
            a.pods.reason.as_ref().map(ReasonFilter::describe).as_deref(),
            Some("reason = Insufficient cpu")
        );
        update(&mut a, Action::SameReason);
        assert_eq!(a.pods.reason, None);
        assert_eq!(names(&a).len(), all);
        assert_eq!(names(&a)[a.pods.selected], "cpu-000006");
        // a gated pod: every pod held by the same gate
        select(&mut a, "gate-000003");
        update(&mut a, Action::SameReason);
        assert_eq!(names(&a), ["gate-000003", "gate-000009"]);
        // Esc clears it as it clears the search
        update(&mut a, Action::Cancel);
        assert_eq!(names(&a).len(), all);
    }

    #[test]
    fn reason_command_filters_by_a_substring_and_alone_clears() {
        use crate::app::{Action, update};
        let mut a = failing();
        let all = names(&a).len();
        let command = |a: &mut App, text: &str| {
            update(a, Action::CommandStart);
            for c in text.chars() {
                update(a, Action::Input(c));
            }
            update(a, Action::Submit);
        };
        command(&mut a, "reason insufficient");
        assert_eq!(a.pods.reason, Some(ReasonFilter::Text("insufficient".into())));
        assert_eq!(
            names(&a),
            ["cpu-000000", "cpu-000006", "memory-000001", "memory-000007"]
        );
        command(&mut a, "reason held before");
        assert_eq!(names(&a), ["gate-000003", "gate-000009"]);
        command(&mut a, "reason on node-");
        assert!(names(&a).len() > 10, "bound pods' column is `on NODE`");
        command(&mut a, "reason");
        assert_eq!(a.pods.reason, None);
        assert_eq!(names(&a).len(), all);
    }

    /// Explanations arriving while the list is sorted by reason do not re-sort it each time:
    /// the next tick (or key) applies them all at once.
    #[test]
    fn a_burst_of_explanations_re_sorts_by_reason_once_at_the_next_tick() {
        use crate::app::{Action, update};
        let mut a = failing();
        update(&mut a, Action::SortPods(SortKey::Reason));
        let at = a.pod_rows.reasons_at();
        assert_eq!(at, Some(a.reasons));
        let before = a.pod_rows.order.as_ptr();
        let pods: Vec<_> = ["cpu-000000", "memory-000001", "gate-000003"]
            .iter()
            .map(|n| crate::model::ObjectKey::new("bench", *n))
            .collect();
        let generation = a.generation;
        for p in &pods {
            update(
                &mut a,
                Action::Explained {
                    generation,
                    pod: p.clone(),
                    result: Err("a failure".into()),
                },
            );
            assert_eq!(a.pod_rows.order.as_ptr(), before, "not re-sorted at each arrival");
            assert!(a.pod_rows.is_current(&a));
        }
        assert_eq!(a.pod_rows.reasons_at(), at);
        update(&mut a, Action::Tick { now: 1 });
        assert_eq!(a.pod_rows.reasons_at(), Some(a.reasons));
        let mut fresh = PodRows::default();
        fresh.refresh(&a, true);
        assert_eq!(a.pod_rows.order, fresh.order);
        // the three failures are together now, in queue order (one priority, no creation time:
        // by name)
        let n = names(&a);
        let i = n.iter().position(|x| x == "cpu-000000").expect("listed");
        assert_eq!(n[i..i + 3], ["cpu-000000", "gate-000003", "memory-000001"]);
    }

    /// The sort's borrowed key orders and filters as the owned one does.
    #[test]
    fn the_borrowed_sort_key_agrees_with_the_reason_key() {
        let a = failing();
        let pods: Vec<&Pod> = a.cluster.pods.iter().map(|p| &**p).collect();
        for p in &pods {
            let (g, k, n) = reason_key(&a, p);
            let (g2, _, n2) = sort_key(&a, p);
            assert_eq!((g, n), (g2, n2));
            assert!(reason_keeps(&a, p, &ReasonFilter::Same(k.into_owned())), "{}", p.key);
        }
        for w in pods.windows(2) {
            let (x, y) = (reason_key(&a, w[0]), reason_key(&a, w[1]));
            let (u, v) = (sort_key(&a, w[0]), sort_key(&a, w[1]));
            assert_eq!(x.cmp(&y), u.cmp(&v), "{} {}", w[0].key, w[1].key);
        }
    }
}
