//! The node list's rows (`:nodes`): which nodes the search shows and how wide their columns
//! are, computed when the cluster or the search change (as [`pod_list`](super::pod_list) does
//! for pods), never per frame.

use std::borrow::Cow;
use std::sync::{Arc, Weak};

#[cfg(test)]
use super::analysis::classify;
use super::analysis::{FilterClass, NodeUsage, ZONE_LABEL, class_for, nominated_usage};
use super::pod_list::fuzzy_hit;
use super::{App, NodeList, format};
use crate::model::{Cluster, Node};

/// `used` as a percentage of `alloc` ("-" when nothing is allocatable).
pub(crate) fn pct(used: i64, alloc: i64) -> String {
    if alloc > 0 {
        format!("{}%", used * 100 / alloc)
    } else {
        "-".into()
    }
}

/// The CPU column of a node: requested/allocatable and the share ("1500m/8000m 18%"), in the
/// column's unit.
pub(crate) fn cpu_text(n: &Node, u: Option<&NodeUsage>, unit: format::CpuUnit) -> String {
    let used = u.map_or(0, |u| u.requested.milli_cpu);
    let a = n.allocatable.milli_cpu;
    format!("{}/{} {}", unit.show(used), unit.show(a), pct(used, a))
}

/// The unit of the node list's CPU column: over every node's requested and allocatable CPU.
pub(crate) fn cpu_unit(app: &App) -> format::CpuUnit {
    format::CpuUnit::of(app.cluster.nodes.iter().flat_map(|n| {
        [
            n.allocatable.milli_cpu,
            app.usage.get(&n.name).map_or(0, |u| u.requested.milli_cpu),
        ]
    }))
}

/// The memory column of a node: requested and the share ("953.7Mi 12%").
pub(crate) fn mem_text(n: &Node, u: Option<&NodeUsage>) -> String {
    let used = u.map_or(0, |u| u.requested.memory);
    format!("{} {}", format::bytes(used), pct(used, n.allocatable.memory))
}

/// Sort orders of the node list, one per column (k9s: Shift+letter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NodeSortKey {
    /// Name (the cluster's order).
    #[default]
    Name,
    /// Zone, then name.
    Zone,
    /// The largest share of allocatable CPU requested first.
    Cpu,
    /// The largest share of allocatable memory requested first.
    Memory,
    /// The most pods first.
    Pods,
    /// State and fit: with a pod in focus, the nodes that fit first, then those that nearly
    /// fit, those that do not, those PreFilter left out; schedulable before cordoned.
    State,
}

impl NodeSortKey {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            NodeSortKey::Name => "name",
            NodeSortKey::Zone => "zone",
            NodeSortKey::Cpu => "cpu",
            NodeSortKey::Memory => "memory",
            NodeSortKey::Pods => "pods",
            NodeSortKey::State => "state",
        }
    }

    /// The header of the column it sorts (TAINTS is not sorted).
    pub fn column(self) -> &'static str {
        match self {
            NodeSortKey::Name => "NODE",
            NodeSortKey::Zone => "ZONE",
            NodeSortKey::Cpu => "CPU REQ",
            NodeSortKey::Memory => "MEM REQ",
            NodeSortKey::Pods => "PODS",
            NodeSortKey::State => "STATE",
        }
    }

    /// The direction mark beside the sorted column: ↑ smallest value first, ↓ largest first.
    pub fn arrow(self, reverse: bool) -> &'static str {
        let descending = matches!(self, NodeSortKey::Cpu | NodeSortKey::Memory | NodeSortKey::Pods);
        if descending != reverse { "↓" } else { "↑" }
    }
}

/// What a node list's rows are computed for: the search, the sort and its direction, and the
/// focused pod's explanation when the rows are sorted by fit ([`App::reasons`](super::App)).
type NodeKey = (String, NodeSortKey, bool, Option<u64>);

fn node_key(app: &App, v: &NodeList) -> NodeKey {
    let fit = (v.sort == NodeSortKey::State && v.pod.is_some()).then_some(app.reasons);
    (v.query.clone(), v.sort, v.reverse, fit)
}

/// `a/b` against `c/d` without dividing (a node with nothing allocatable counts as 0%).
fn share_cmp((a, b): (i64, i64), (c, d): (i64, i64)) -> std::cmp::Ordering {
    let x = if b > 0 { i128::from(a) * i128::from(d.max(1)) } else { 0 };
    let y = if d > 0 { i128::from(c) * i128::from(b.max(1)) } else { 0 };
    x.cmp(&y)
}

/// The widest value of each column over the rows shown (before the columns' limits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeWidths {
    /// Node name.
    pub node: usize,
    /// CPU requests (at least the header's width).
    pub cpu: usize,
    /// Memory requests (at least the header's width).
    pub mem: usize,
    /// Zone label.
    pub zone: usize,
    /// Pods on the node and allowed (`3/110`).
    pub pods: usize,
    /// Taints as the list shows them (`key:Effect, …`).
    pub taints: usize,
}

/// The node list's rows, kept in the app and refreshed by `update` when the cluster or the
/// search of the node list on screen change.
#[derive(Clone, Debug, Default)]
pub struct NodeRows {
    /// The cluster it was computed from (a `Weak` keeps the address from being reused).
    cluster: Weak<Cluster>,
    /// The search, the sort and the direction it was computed for (None: never computed).
    key: Option<NodeKey>,
    /// Indices into `cluster.nodes` of the rows, in display order.
    order: Vec<usize>,
    /// Column widths over the rows.
    widths: NodeWidths,
    /// The CPU column's unit (over every node).
    cpu_unit: format::CpuUnit,
}

impl NodeRows {
    /// True when the rows are those of the list `v` on the app's cluster.
    pub fn is_current(&self, app: &App, v: &NodeList) -> bool {
        std::ptr::eq(self.cluster.as_ptr(), Arc::as_ptr(&app.cluster)) && self.key.as_ref() == Some(&node_key(app, v))
    }

    /// Brings the rows up to date with the list `v`.
    pub fn refresh(&mut self, app: &App, v: &NodeList) {
        if self.is_current(app, v) {
            return;
        }
        let nodes = &app.cluster.nodes;
        let same_cluster = std::ptr::eq(self.cluster.as_ptr(), Arc::as_ptr(&app.cluster));
        let key = node_key(app, v);
        // a longer search matches a subset of what the shorter one matched, in the same order
        let narrowing = same_cluster
            && self
                .key
                .as_ref()
                .is_some_and(|old| v.query.starts_with(&old.0) && (old.1, old.2, old.3) == (key.1, key.2, key.3));
        let mut order = if narrowing {
            std::mem::take(&mut self.order)
        } else {
            sorted(app, v)
        };
        order.retain(|&i| nodes.get(i).is_some_and(|n| fuzzy_hit(&n.name, &v.query)));
        let unit = cpu_unit(app);
        let mut w = NodeWidths {
            node: 0,
            cpu: "CPU REQ".len(),
            mem: "MEM REQ".len(),
            zone: 0,
            pods: 0,
            taints: 0,
        };
        for n in order.iter().filter_map(|&i| nodes.get(i)) {
            let u = app.usage.get(&n.name);
            w.node = w.node.max(n.name.chars().count());
            w.cpu = w.cpu.max(cpu_text(n, u, unit).chars().count());
            w.mem = w.mem.max(mem_text(n, u).chars().count());
            w.zone = w.zone.max(zone_of(n).chars().count());
            w.pods = w.pods.max(pods_text(n, u).chars().count());
            w.taints = w.taints.max(taints_text(n).chars().count());
        }
        self.cluster = Arc::downgrade(&app.cluster);
        self.key = Some(key);
        self.order = order;
        self.widths = w;
        self.cpu_unit = unit;
    }

    /// The CPU column's unit.
    pub fn cpu_unit(&self) -> format::CpuUnit {
        self.cpu_unit
    }

    /// How many rows are shown.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True when no row is shown.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The node at a row.
    pub fn node<'a>(&self, app: &'a App, row: usize) -> Option<&'a Node> {
        self.order
            .get(row)
            .and_then(|&i| app.cluster.nodes.get(i))
            .map(|n| &**n)
    }

    /// The nodes of rows `range`, in display order.
    pub fn nodes<'a>(&'a self, app: &'a App, range: std::ops::Range<usize>) -> impl Iterator<Item = &'a Node> + 'a {
        let end = range.end.min(self.order.len());
        let start = range.start.min(end);
        self.order[start..end]
            .iter()
            .filter_map(|&i| app.cluster.nodes.get(i))
            .map(|n| &**n)
    }

    /// The widest value of each column over the rows.
    pub fn widths(&self) -> NodeWidths {
        self.widths
    }
}

/// The node's zone (its `topology.kubernetes.io/zone` label; "" without one).
pub(crate) fn zone_of(n: &Node) -> &str {
    n.labels.get(ZONE_LABEL).map_or("", String::as_str)
}

/// The pods column: pods on the node and how many it allows.
pub(crate) fn pods_text(n: &Node, u: Option<&NodeUsage>) -> String {
    format!("{}/{}", u.map_or(0, |u| u.pods.len()), n.allocatable.allowed_pod_number)
}

/// The taints column: `key:Effect` of each taint.
pub(crate) fn taints_text(n: &Node) -> String {
    let t: Vec<String> = n.taints.iter().map(|t| format!("{}:{}", t.key, t.effect)).collect();
    t.join(", ")
}

/// Indices into `cluster.nodes` in the list's order (ties: the cluster's order, by name).
fn sorted(app: &App, v: &NodeList) -> Vec<usize> {
    let nodes = &app.cluster.nodes;
    let mut idx: Vec<usize> = (0..nodes.len()).collect();
    let usage = |n: &Node| app.usage.get(&n.name);
    let ex = v.pod.as_ref().and_then(|k| match app.explanation(k) {
        Some(Ok(ex)) => Some(ex),
        _ => None,
    });
    // with a pod in focus: the fit class of each node (nodes the trace does not name last),
    // looked up once per node, not once per comparison
    let by_node: std::collections::HashMap<&str, &crate::engine::framework::trace::NodeFilter> = ex
        .map(|e| e.filter.iter().map(|f| (f.node.as_str(), f)).collect())
        .unwrap_or_default();
    let focus = v.pod.as_ref().and_then(|k| app.pod(k));
    let nominated = focus
        .map(|p| nominated_usage(&app.cluster, p, &app.features))
        .unwrap_or_default();
    let classes: std::collections::HashMap<&str, FilterClass> = by_node
        .iter()
        .map(|(name, f)| {
            let node = app.cluster.node(name);
            let c = class_for(
                f,
                focus.map(|p| &**p),
                node.map(|n| &**n),
                app.usage.get(*name),
                nominated.get(*name),
                &app.features,
            );
            (*name, c)
        })
        .collect();
    let fit = |n: &Node| {
        classes.get(n.name.as_str()).map_or(5, |c| match c {
            FilterClass::Fit => 0,
            FilterClass::NearlyFit => 1,
            FilterClass::NoFit => 2,
            FilterClass::TooSmall => 3,
            FilterClass::Excluded => 4,
        })
    };
    let by_name = |a: &Node, b: &Node| a.name.cmp(&b.name);
    let node = |i: usize| nodes.get(i).map(|n| &**n);
    idx.sort_by(|&a, &b| {
        let (Some(a), Some(b)) = (node(a), node(b)) else {
            return a.cmp(&b);
        };
        let (ua, ub) = (usage(a), usage(b));
        match v.sort {
            NodeSortKey::Name => by_name(a, b),
            NodeSortKey::Zone => a
                .labels
                .get(ZONE_LABEL)
                .cmp(&b.labels.get(ZONE_LABEL))
                .then_with(|| by_name(a, b)),
            NodeSortKey::Cpu => share_cmp(
                (ub.map_or(0, |u| u.requested.milli_cpu), b.allocatable.milli_cpu),
                (ua.map_or(0, |u| u.requested.milli_cpu), a.allocatable.milli_cpu),
            )
            .then_with(|| by_name(a, b)),
            NodeSortKey::Memory => share_cmp(
                (ub.map_or(0, |u| u.requested.memory), b.allocatable.memory),
                (ua.map_or(0, |u| u.requested.memory), a.allocatable.memory),
            )
            .then_with(|| by_name(a, b)),
            NodeSortKey::Pods => ub
                .map_or(0, |u| u.pods.len())
                .cmp(&ua.map_or(0, |u| u.pods.len()))
                .then_with(|| by_name(a, b)),
            NodeSortKey::State => fit(a)
                .cmp(&fit(b))
                .then(a.unschedulable.cmp(&b.unschedulable))
                .then_with(|| by_name(a, b)),
        }
    });
    if v.reverse {
        idx.reverse();
    }
    idx
}

/// The rows of the node list `v`: the kept ones when current, computed otherwise.
pub(crate) fn current<'a>(app: &'a App, v: &NodeList) -> Cow<'a, NodeRows> {
    if app.node_rows.is_current(app, v) {
        Cow::Borrowed(&app.node_rows)
    } else {
        let mut r = NodeRows::default();
        r.refresh(app, v);
        Cow::Owned(r)
    }
}

/// Brings the app's node rows up to date with the node list on top, if any.
pub(crate) fn refresh(app: &mut App) {
    let Some(super::Screen::Nodes(v)) = app.screens.last() else {
        return;
    };
    if app.node_rows.is_current(app, v) {
        return;
    }
    let v = v.clone();
    let mut rows = std::mem::take(&mut app.node_rows);
    rows.refresh(app, &v);
    app.node_rows = rows;
}

/// Node names of the node list, in display order.
#[cfg(test)]
pub(crate) fn names(app: &App, v: &NodeList) -> Vec<String> {
    let r = current(app, v);
    r.nodes(app, 0..r.len()).map(|n| n.name.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Action, Screen, update};

    fn app() -> App {
        crate::app::tui_test_app()
    }

    fn list(a: &App) -> &NodeList {
        match a.screen() {
            Some(Screen::Nodes(v)) => v,
            _ => panic!("not in the node list"),
        }
    }

    #[test]
    fn the_node_list_keeps_its_rows_until_the_search_changes() {
        let mut a = app();
        update(&mut a, Action::CommandStart);
        for c in "nodes".chars() {
            update(&mut a, Action::Input(c));
        }
        update(&mut a, Action::Submit);
        assert!(a.node_rows.is_current(&a, list(&a)));
        assert_eq!(names(&a, list(&a)), vec!["node-a", "node-b", "node-c", "node-d"]);
        let before = a.node_rows.order.as_ptr();
        update(&mut a, Action::Down);
        update(&mut a, Action::Bottom);
        assert_eq!(
            a.node_rows.order.as_ptr(),
            before,
            "moving does not compute the rows again"
        );
        update(&mut a, Action::SearchStart);
        update(&mut a, Action::Input('c'));
        assert_eq!(names(&a, list(&a)), vec!["node-c"]);
        let mut fresh = NodeRows::default();
        fresh.refresh(&a, list(&a));
        assert_eq!(a.node_rows.order, fresh.order);
        assert_eq!(a.node_rows.widths(), fresh.widths());
        assert_eq!(a.node_rows.widths().node, "node-c".len());
        update(&mut a, Action::Backspace);
        assert_eq!(a.node_rows.len(), 4);
    }

    fn open_nodes(a: &mut App) {
        update(a, Action::CommandStart);
        for c in "nodes".chars() {
            update(a, Action::Input(c));
        }
        update(a, Action::Submit);
    }

    #[test]
    fn shift_letters_sort_the_node_list_and_the_same_letter_again_reverses() {
        let mut a = app();
        open_nodes(&mut a);
        let sort = |a: &mut App, k: NodeSortKey| {
            update(a, Action::SortNodes(k));
            let v = list(a);
            let n = names(a, v);
            (
                n.iter().map(String::as_str).collect::<Vec<_>>().join(" "),
                v.sort.arrow(v.reverse),
            )
        };
        let abcd = "node-a node-b node-c node-d".to_string();
        let dcba = "node-d node-c node-b node-a".to_string();
        // node-a 3/4 (75%), node-b 2750m/4 (68%), node-c 0/8, node-d 0/4 (ties: by name)
        assert_eq!(sort(&mut a, NodeSortKey::Cpu), (abcd.clone(), "↓"));
        assert_eq!(sort(&mut a, NodeSortKey::Cpu), (dcba.clone(), "↑"));
        assert_eq!(
            sort(&mut a, NodeSortKey::Memory).1,
            "↓",
            "another column starts in its own direction"
        );
        assert_eq!(sort(&mut a, NodeSortKey::Name), (abcd.clone(), "↑"));
        assert_eq!(sort(&mut a, NodeSortKey::Name), (dcba.clone(), "↓"));
        assert_eq!(sort(&mut a, NodeSortKey::Zone).0, abcd);
        assert_eq!(sort(&mut a, NodeSortKey::Pods).0, abcd);
        // a narrowing search keeps the order
        update(&mut a, Action::SortNodes(NodeSortKey::Pods));
        update(&mut a, Action::SearchStart);
        update(&mut a, Action::Input('-'));
        assert_eq!(names(&a, list(&a)), vec!["node-d", "node-c", "node-b", "node-a"]);
        let mut fresh = NodeRows::default();
        fresh.refresh(&a, list(&a));
        assert_eq!(a.node_rows.order, fresh.order);
    }

    #[test]
    fn the_state_sort_puts_the_nodes_the_focused_pod_fits_first() {
        let mut a = crate::app::tests_demo_app();
        let pod = crate::model::ObjectKey::new("ml", "infer-l4");
        a.screens.push(Screen::Nodes(NodeList {
            selected: 0,
            pod: Some(pod.clone()),
            query: String::new(),
            sort: NodeSortKey::State,
            reverse: false,
        }));
        a.refresh_rows();
        let Some(Ok(ex)) = a.explanation(&pod) else {
            panic!("explained")
        };
        let order = names(&a, list(&a));
        let class = |n: &str| ex.filter.iter().find(|f| f.node == n).map(classify);
        assert_eq!(class(&order[0]), Some(FilterClass::Fit), "{order:?}");
        let fits = order.iter().filter(|n| class(n) == Some(FilterClass::Fit)).count();
        assert!(fits >= 1);
        assert!(
            order[..fits].iter().all(|n| class(n) == Some(FilterClass::Fit)),
            "the fitting nodes first: {order:?}"
        );
        assert!(order[fits..].iter().all(|n| class(n) != Some(FilterClass::Fit)));
        // and by share of allocatable CPU requested, largest first
        update(&mut a, Action::SortNodes(NodeSortKey::Cpu));
        let order = names(&a, list(&a));
        let share = |n: &str| {
            let node = a.cluster.node(n).expect("node");
            (
                a.usage.get(n).map_or(0, |u| u.requested.milli_cpu),
                node.allocatable.milli_cpu,
            )
        };
        assert!(
            order
                .windows(2)
                .all(|w| share_cmp(share(&w[0]), share(&w[1])) != std::cmp::Ordering::Less),
            "{order:?}"
        );
    }

    #[test]
    fn the_columns_read_as_the_node_list_shows_them() {
        let a = app();
        let n = a.cluster.node("node-a").expect("node");
        let u = a.usage.get("node-a");
        // some node of the fixture requests part of a core: the column is in millicores
        assert_eq!(cpu_unit(&a), format::CpuUnit::Milli);
        assert_eq!(cpu_text(n, u, cpu_unit(&a)), "3000m/4000m 75%");
        assert_eq!(cpu_text(n, u, format::CpuUnit::Cores), "3/4 75%");
        assert_eq!(mem_text(n, u), "4Gi 50%");
        assert_eq!(cpu_text(n, None, format::CpuUnit::Cores), "0/4 0%");
        assert_eq!(pct(1, 0), "-");
    }
}
