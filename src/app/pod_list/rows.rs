//! The kept rows ([`PodRows`]): computed whole when the
//! cluster is replaced, changed pod by pod when a watch's events are applied.

use std::cmp::Ordering;
use std::sync::{Arc, Weak};

use super::search::{Search, find_part, text_subsequence};
use super::{ReasonFilter, SortKey, group, reason_keeps, sort_key, sorted};
use crate::app::{App, format};
use crate::engine::Features;
use crate::model::{Cluster, Pod};

/// Pods coming or going in one refresh up to which the rows are changed one pod at a time
/// (each shifts the later indices); more, and the rows are computed whole.
pub(super) const ONE_BY_ONE: usize = 16;

/// Pods changed in one refresh up to which the rows are changed one pod at a time.
pub(super) const CHANGED_AT_MOST: usize = 1024;

/// True when a CPU amount is whole cores.
pub(super) fn whole_cores(milli: i64) -> bool {
    milli % 1000 == 0
}

/// The CPU column's unit when `milli_pods` pods request a CPU amount that is not whole cores
/// (what [`format::CpuUnit::of`] says of every pod's).
pub(super) fn unit_of(milli_pods: usize) -> format::CpuUnit {
    if milli_pods == 0 {
        format::CpuUnit::Cores
    } else {
        format::CpuUnit::Milli
    }
}

/// What the list needs of a pod; its `namespace/name` appended to `keys`, the widths of its
/// amounts from `cpu_w` and `mem_w`.
pub(super) fn meta_of(
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
pub(super) fn covers(m: &PodMeta, old: &PodMeta) -> bool {
    m.ns_w >= old.ns_w
        && m.name_w >= old.name_w
        && m.cpu_w >= old.cpu_w
        && m.mem_w >= old.mem_w
        && m.scheduler == old.scheduler
}

/// The order of the rows `a` and `b` (indices into `meta`) under `sort` (not reversed), for
/// every sort but the reason's (which reads the explanations: see [`PodRows::sort_indices`]);
/// ties broken by index, which is the key's order: a total order.
pub(super) fn compare(meta: &[PodMeta], keys: &str, sort: SortKey, a: usize, b: usize) -> Ordering {
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
pub(super) fn search_keeps(search: &Search<'_>, keys: &str, m: &PodMeta, p: &Pod) -> bool {
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
pub(super) struct PodMeta {
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

pub(super) fn chars_u16(s: &str) -> u16 {
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
pub(super) type BaseKey = (Option<String>, SortKey, bool, bool, Option<ReasonFilter>);

/// The pod list's rows as displayed, with what the list shows about them; kept in
/// [`App::pod_rows`](super::App) and refreshed by `update` when the cluster, the release, the
/// namespace, the sort order or the search change.
#[derive(Clone, Debug, Default)]
pub struct PodRows {
    /// The cluster and release it was computed from (a `Weak` keeps the address from being
    /// reused while it is compared).
    pub(super) cluster: Weak<Cluster>,
    pub(super) features: Weak<Features>,
    /// Per pod of `cluster.pods`.
    pub(super) meta: Vec<PodMeta>,
    /// Every pod's `namespace/name`, back to back: the search and the name sort read this one
    /// buffer instead of every pod scattered in memory.
    pub(super) keys: String,
    /// `cluster.pods` is in key order (as the model builds it), so a row's index orders it by
    /// key; otherwise the sort compares the pods themselves.
    pub(super) key_sorted: bool,
    /// The namespaces that have pods, sorted.
    pub(super) namespaces: Vec<String>,
    /// Pending pods in the cluster.
    pub(super) cluster_pending: usize,
    /// The namespace, sort order, direction and filters `base` was computed for.
    pub(super) base_key: Option<BaseKey>,
    /// [`App::reasons`](super::App) when `base` was computed from the reasons (sorted or
    /// filtered by them; None otherwise).
    pub(super) reasons_at: Option<u64>,
    /// Indices into `cluster.pods` of the namespace's pods, sorted.
    pub(super) base: Vec<usize>,
    /// The search `order` was computed for.
    pub(super) query: String,
    /// Indices into `cluster.pods` of the rows shown, in display order.
    pub(super) order: Vec<usize>,
    /// Pending pods among the rows.
    pub(super) pending: usize,
    /// Column widths over the rows.
    pub(super) widths: PodWidths,
    /// The CPU column's unit, over every pod of the cluster.
    pub(super) cpu_unit: format::CpuUnit,
    /// Characters of each scheduler name, by its place among the cluster's (as `PodMeta::scheduler`).
    pub(super) scheduler_w: Vec<u16>,
    /// Every pod in the last sort's order (unfiltered, not reversed), with the sort and, for
    /// the reason sort, the [`App::reasons`](super::App) it is for: the same key again
    /// (reverse), Ctrl-z, `r` and the namespace filter or reverse it instead of sorting
    /// 100,000 pods again.
    pub(super) full_order: Option<(SortKey, u64, Vec<usize>)>,
    /// Pods per namespace (`namespaces` are its keys), kept as pods come and go.
    pub(super) ns_pods: std::collections::BTreeMap<String, usize>,
    /// Pods per scheduler name, the names sorted (`PodMeta::scheduler` is a place here).
    pub(super) schedulers: Vec<(String, usize)>,
    /// Pods whose CPU request is not whole cores (the CPU unit is millicores while any is).
    pub(super) milli_pods: usize,
    /// Bytes of `keys` no row reads (the keys of pods gone since the last whole refresh).
    pub(super) keys_unused: usize,
    /// How many times the rows were computed from every pod of a cluster.
    pub(super) whole: u64,
}

impl PodRows {
    pub(super) fn same_cluster(&self, app: &App) -> bool {
        self.is_of(&app.cluster, &app.features)
    }

    /// True when the rows were computed for this cluster and release.
    pub fn is_of(&self, cluster: &Arc<Cluster>, features: &Arc<Features>) -> bool {
        std::ptr::eq(self.cluster.as_ptr(), Arc::as_ptr(cluster))
            && std::ptr::eq(self.features.as_ptr(), Arc::as_ptr(features))
    }

    pub(super) fn base_key_of(app: &App) -> BaseKey {
        let p = &app.pods;
        (p.namespace.clone(), p.sort, p.reverse, p.pending_only, p.reason.clone())
    }

    pub(super) fn base_is(&self, app: &App) -> bool {
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
    pub(super) fn measure(&mut self) {
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
    pub(super) fn widen(&mut self, m: &PodMeta) {
        let w = &mut self.widths;
        w.namespace = w.namespace.max(usize::from(m.ns_w));
        w.name = w.name.max(usize::from(m.name_w));
        w.cpu = w.cpu.max(usize::from(m.cpu_w));
        w.mem = w.mem.max(usize::from(m.mem_w));
        let sw = self.scheduler_w.get(m.scheduler as usize).copied().unwrap_or(0);
        w.scheduler = w.scheduler.max(usize::from(sw));
    }

    /// True when a row's column is as wide as the widest: the widths may narrow without it.
    pub(super) fn sets_a_width(&self, m: &PodMeta) -> bool {
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
    pub(super) fn count(&mut self, p: &Pod, m: &PodMeta, add: bool) -> bool {
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
    pub(super) fn count_ns(&mut self, ns: &str, add: bool) -> bool {
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
    pub(super) fn shift(&mut self, i: usize, inserted: bool) {
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
    pub(super) fn base_keeps(&self, app: &App, m: &PodMeta) -> bool {
        let st = &app.pods;
        let ns = self.keys.get(m.key_at..m.key_at + m.ns_len);
        st.namespace.as_deref().is_none_or(|n| ns == Some(n)) && (!st.pending_only || m.pending)
    }

    /// True when the rows shown have the pod (`m` its row's data, `p` the pod).
    pub(super) fn order_has(&self, app: &App, m: &PodMeta, p: &Pod, search: &Search<'_>) -> bool {
        self.base_key.is_some() && self.base_keeps(app, m) && search_keeps(search, &self.keys, m, p)
    }

    /// Takes the pod at `i` (`m` its row's data, `p` the pod) out of the sorted rows; false
    /// when a list that must hold it does not.
    pub(super) fn take_out(&mut self, app: &App, i: usize, m: &PodMeta, p: &Pod, search: &Search<'_>) -> bool {
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
    pub(super) fn put_in(&mut self, app: &App, i: usize, m: &PodMeta, p: &Pod, search: &Search<'_>) {
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
    pub(super) fn kept(&self, app: &App) -> Vec<usize> {
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
    pub(super) fn ordered(&mut self, app: &App) -> Vec<usize> {
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
    pub(super) fn sorted(&self, app: &App) -> Vec<usize> {
        self.sort_indices(app, self.kept(app), app.pods.sort, app.pods.reverse)
    }

    /// `idx` in the order of `sort` (reversed with `reverse`).
    pub(super) fn sort_indices(&self, app: &App, mut idx: Vec<usize>, sort: SortKey, reverse: bool) -> Vec<usize> {
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
