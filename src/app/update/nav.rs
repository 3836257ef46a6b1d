//! Navigation: the keys of normal mode, moving the selection, opening and closing screens,
//! stepping through the pipeline, and the search box.

use super::data::{refresh_live, rerun, set_cluster};
use super::edit::edit_target;
use super::jobs::{group_job, job};
use super::write::{request_bind, request_preempt};
use super::{PAGE, SCROLL};
use crate::app::analysis;
use crate::app::pod_list;
use crate::app::stepper::{Pipeline, Point, Step};
use crate::app::whatif::{self, EditTarget};
use crate::app::{Action, App, Effect, Load, Mode, NodeView, PodView, Screen};
use crate::model::ObjectKey;

/// Opens the fixes screen of the focused pod (`f`, `:fix`); the fixes are asked for by
/// `fix_jobs` after the update.
pub(super) fn open_fixes(app: &mut App) -> Vec<Effect> {
    let Some(pod) = app.focused_pod() else {
        app.info("no pod selected");
        return Vec::new();
    };
    match app.explanation(&pod) {
        Some(Ok(ex))
            if ex.gang.is_some()
                && ex.schedulable()
                && !ex
                    .binding_cycle
                    .as_ref()
                    .is_none_or(|b| b.outcome == crate::engine::framework::trace::BindingOutcome::Bound) =>
        {
            app.info(format!(
                "{pod}: {}; its gang decides: m shows the group, its quorum and who blocks it",
                ex.verdict()
            ));
        }
        Some(Ok(ex)) if ex.schedulable() => {
            app.info(format!("{pod} would be scheduled: {}; nothing to fix", ex.verdict()));
        }
        Some(Err(e)) => app.error(format!("{pod} could not be explained: {e}")),
        None if app.pod(&pod).is_some_and(|p| p.node_name.is_some()) => {
            app.info(format!("{pod} is bound: nothing to fix"));
        }
        known => {
            let explain = known.is_none() && app.pod(&pod).is_some_and(|p| p.is_pending());
            if !matches!(app.screen(), Some(Screen::Fixes(v)) if v.pod == pod) {
                app.screens.push(Screen::Fixes(crate::app::FixesView {
                    pod: pod.clone(),
                    selected: 0,
                }));
            }
            if explain {
                // its full explanation was dropped (or not made yet): this pod first
                return vec![job(app, vec![pod])];
            }
        }
    }
    Vec::new()
}

/// Enter on the fixes screen: the selected fix as an in-memory what-if, back at the pod view.
fn apply_fix(app: &mut App, v: &crate::app::FixesView) -> Vec<Effect> {
    let Some(fix) = app.fix_rows(&v.pod).get(v.selected).map(|f| f.fix.clone()) else {
        app.info("no fix selected");
        return Vec::new();
    };
    match crate::app::fix::apply(&app.cluster, &v.pod, &fix.change) {
        Ok(c) => {
            app.screens.pop();
            set_cluster(app, c, format!("fix for {}: {}", v.pod, fix.text))
        }
        Err(e) => {
            app.error(e);
            Vec::new()
        }
    }
}

/// Opens the gang screen of the focused pod (`m`, `:gang`).
pub(super) fn open_gang(app: &mut App) -> Vec<Effect> {
    let Some(pod) = app.focused_pod() else {
        app.info("no pod selected");
        return Vec::new();
    };
    match app.explanation(&pod) {
        Some(Ok(ex)) if ex.gang.is_none() => {
            app.info(format!(
                "{pod} is in no gang: no Permit plugin of its profile groups it"
            ));
            return Vec::new();
        }
        Some(Err(e)) => {
            app.error(format!("{pod} could not be explained: {e}"));
            return Vec::new();
        }
        _ => {}
    }
    if !matches!(app.screen(), Some(Screen::Gang(v)) if v.pod == pod) {
        app.screens.push(Screen::Gang(crate::app::GangView {
            pod: pod.clone(),
            selected: 0,
        }));
    }
    group_job(app, pod).into_iter().collect()
}

pub(super) fn pipeline_of(app: &App, pod: &ObjectKey) -> Option<Pipeline> {
    match app.explanation(pod) {
        Some(Ok(ex)) => Some(Pipeline::new(ex, app.profile(&ex.profile))),
        _ => None,
    }
}

/// Node names of the pod view's table rows, in display order (None for rows that are not nodes).
pub fn pod_view_rows(app: &App, v: &PodView) -> Vec<Option<String>> {
    let Some(Ok(ex)) = app.explanation(&v.pod) else {
        return Vec::new();
    };
    let Some(step) = &v.step else {
        return Vec::new();
    };
    match step.point {
        Point::Filter => analysis::filter_rows(&app.cluster, &app.usage, &app.features, ex, v.filter_sort, &v.query)
            .iter()
            .map(|r| Some(r.entry.node.to_string()))
            .collect(),
        Point::Score => analysis::score_rows(ex).iter().map(|r| Some(r.node.clone())).collect(),
        Point::PostFilter => ex
            .post_filter
            .as_ref()
            .map(|pf| pf.candidates.iter().map(|c| Some(c.node.clone())).collect())
            .unwrap_or_default(),
        Point::PreFilter => vec![None; ex.pre_filter.len()],
        Point::PreScore => vec![None; ex.pre_score.len()],
        Point::PreEnqueue => vec![None; ex.pre_enqueue.len()],
        _ => Vec::new(),
    }
}

pub(super) fn row_count(app: &App) -> usize {
    match app.screen() {
        None => app.pod_rows().len(),
        Some(Screen::Pod(v)) => pod_view_rows(app, v).len(),
        // the node view scrolls; it has no rows to select
        Some(Screen::Node(_)) => 0,
        Some(Screen::Nodes(v)) => app.node_rows(v).len(),
        Some(Screen::Queue(_)) => app.queue_rows().len(),
        Some(Screen::Gang(v)) => app.gang_rows(&v.pod).len(),
        Some(Screen::Deschedule(_)) => app.deschedule_rows().len(),
        Some(Screen::Events(v)) => app.event_rows(v.pod.as_ref()).len(),
        Some(Screen::Messages(_)) => app.messages.len(),
        Some(Screen::Text(v)) => v.lines.len(),
        Some(Screen::Fixes(v)) => app.fix_rows(&v.pod).len(),
    }
}

/// The selected row of the top screen (the node view scrolls instead and has none).
pub(super) fn selected_mut(app: &mut App) -> Option<&mut usize> {
    match app.screens.last_mut() {
        None => Some(&mut app.pods.selected),
        Some(Screen::Pod(v)) => Some(&mut v.selected),
        Some(Screen::Nodes(v)) => Some(&mut v.selected),
        Some(Screen::Queue(v)) => Some(&mut v.selected),
        Some(Screen::Gang(v)) => Some(&mut v.selected),
        Some(Screen::Deschedule(v)) => Some(&mut v.selected),
        Some(Screen::Events(v)) => Some(&mut v.selected),
        Some(Screen::Messages(v)) => Some(&mut v.selected),
        Some(Screen::Text(v)) => Some(&mut v.scroll),
        Some(Screen::Fixes(v)) => Some(&mut v.selected),
        Some(Screen::Node(_)) => None,
    }
}

pub(super) fn move_by(app: &mut App, delta: isize) {
    if let Some(Screen::Node(v)) = app.screens.last_mut() {
        v.scroll = if delta < 0 {
            v.scroll
                .saturating_sub(u16::try_from(delta.unsigned_abs()).unwrap_or(u16::MAX))
        } else {
            v.scroll
                .saturating_add(u16::try_from(delta.unsigned_abs()).unwrap_or(u16::MAX))
        };
        return;
    }
    let n = row_count(app);
    if let Some(sel) = selected_mut(app) {
        *sel = if n == 0 {
            0
        } else {
            sel.saturating_add_signed(delta).min(n - 1)
        };
    }
}

pub(super) fn move_to(app: &mut App, top: bool) {
    if let Some(Screen::Node(v)) = app.screens.last_mut() {
        v.scroll = if top { 0 } else { v.scroll.saturating_add(1000) };
        return;
    }
    let n = row_count(app);
    if let Some(sel) = selected_mut(app) {
        *sel = if top { 0 } else { n.saturating_sub(1) };
    }
}

pub(super) fn open_pod(app: &mut App, key: ObjectKey) -> Vec<Effect> {
    let mut v = PodView::new(key.clone());
    if let Some(p) = pipeline_of(app, &key) {
        v.step = Some(p.decisive());
    }
    app.screens.push(Screen::Pod(v));
    let pending = app.pod(&key).is_some_and(|p| p.is_pending());
    if pending && app.explanation(&key).is_none() {
        // jump the queue: this pod first, on its own job
        return vec![job(app, vec![key])];
    }
    Vec::new()
}

pub(super) fn open(app: &mut App) -> Vec<Effect> {
    match app.screen().cloned() {
        None => {
            let key = app.pod_rows().pod(app, app.pods.selected).map(|p| p.key.clone());
            if let Some(k) = key {
                return open_pod(app, k);
            }
        }
        Some(Screen::Pod(v)) => {
            let rows = pod_view_rows(app, &v);
            match rows.get(v.selected) {
                Some(Some(node)) => {
                    app.screens.push(Screen::Node(NodeView {
                        node: node.clone(),
                        pod: Some(v.pod.clone()),
                        scroll: 0,
                    }));
                }
                _ => app.info("nothing to open here: step to Filter, Score or PostFilter and pick a node row"),
            }
        }
        Some(Screen::Nodes(v)) => {
            let node = app.node_rows(&v).node(app, v.selected).map(|n| n.name.clone());
            if let Some(n) = node {
                app.screens.push(Screen::Node(NodeView {
                    node: n,
                    pod: v.pod.clone(),
                    scroll: 0,
                }));
            }
        }
        Some(Screen::Queue(v)) => {
            if let Some((key, _)) = app.queue_rows().get(v.selected).cloned() {
                return open_pod(app, key);
            }
        }
        Some(Screen::Gang(v)) => {
            if let Some(key) = app.gang_rows(&v.pod).get(v.selected).cloned() {
                return open_pod(app, key);
            }
        }
        Some(Screen::Deschedule(v)) => match app.deschedule_rows().get(v.selected).map(|r| r.pod.clone()) {
            Some(Some(key)) if app.pod(&key).is_some() => return open_pod(app, key),
            Some(Some(key)) => app.info(format!("{key} is not in the cluster any more")),
            Some(None) => app.info("a plugin row: pick one of its pods to open it"),
            None => {}
        },
        Some(Screen::Events(v)) => {
            let key = app.event_rows(v.pod.as_ref()).get(v.selected).map(|e| e.pod.clone());
            match key {
                Some(k) if v.pod.is_some() => app.info(format!("the events of {k}: q goes back to it")),
                Some(k) if app.pod(&k).is_some() => return open_pod(app, k),
                Some(k) => app.info(format!("{k} is not in the cluster any more")),
                None => {}
            }
        }
        Some(Screen::Fixes(v)) => return apply_fix(app, &v),
        Some(Screen::Node(_) | Screen::Messages(_) | Screen::Text(_)) => {}
    }
    Vec::new()
}

pub(super) fn step(app: &mut App, f: impl Fn(&Pipeline, &Step) -> Step) {
    let Some(Screen::Pod(v)) = app.screens.last() else {
        return;
    };
    let Some(p) = pipeline_of(app, &v.pod) else {
        return;
    };
    let cur = v.step.clone().unwrap_or_else(|| p.decisive());
    let next = f(&p, &cur);
    if let Some(Screen::Pod(v)) = app.screens.last_mut() {
        if v.step.as_ref() != Some(&next) {
            v.selected = 0;
        }
        v.step = Some(next);
    }
}

pub(super) fn normal(app: &mut App, action: Action) -> Vec<Effect> {
    if let Load::Failed(_) | Load::Loading = app.load {
        match action {
            Action::Back | Action::Cancel => app.should_quit = true,
            Action::Help => app.mode = Mode::Help { scroll: 0 },
            _ => {}
        }
        return Vec::new();
    }
    match action {
        Action::UnknownKey(c) => app.info(format!("no key '{c}' on this screen: ? lists its keys")),
        Action::Up => move_by(app, -1),
        Action::Down => move_by(app, 1),
        Action::ScrollUp => move_by(app, -(SCROLL as isize)),
        Action::ScrollDown => move_by(app, SCROLL as isize),
        Action::PageUp => move_by(app, -(PAGE as isize)),
        Action::PageDown => move_by(app, PAGE as isize),
        Action::Top => move_to(app, true),
        Action::Bottom => move_to(app, false),
        Action::ClickRow(i) => return click_row(app, i),
        Action::ClickPoint(i) => {
            step(app, |p, cur| {
                p.stages.get(i).map_or_else(|| cur.clone(), |s| Step::at(s.point))
            });
        }
        Action::Open => return open(app),
        Action::OpenGang => return open_gang(app),
        Action::OpenFixes => return open_fixes(app),
        Action::OpenEvents => open_events(app, false),
        Action::Copy => return copy(app),
        Action::ShowYaml => show_yaml(app),
        Action::Describe => describe(app),
        // back one screen (the guard pops it); at the pod list, quit
        Action::Back if app.screens.pop().is_none() => app.request_quit(),
        Action::Back => {}
        Action::Cancel => cancel(app),
        Action::Help => app.mode = Mode::Help { scroll: 0 },
        Action::CommandStart => app.mode = Mode::Command(String::new()),
        Action::SearchStart => search_start(app),
        Action::StepNext => step(app, Pipeline::next),
        Action::StepPrev => step(app, Pipeline::prev),
        Action::PointNext => step(app, Pipeline::next_point),
        Action::PointPrev => step(app, Pipeline::prev_point),
        Action::RunToEnd => step(app, |p, _| p.end()),
        Action::Restart => step(app, |p, _| {
            p.steps()
                .first()
                .cloned()
                .unwrap_or_else(|| Step::at(Point::PreEnqueue))
        }),
        Action::ToggleAllFailures => {
            if let Some(Screen::Pod(v)) = app.screens.last_mut() {
                v.all_failures = !v.all_failures;
            }
        }
        Action::CycleSort => cycle_sort(app),
        Action::ReverseSort if app.screen().is_none() => app.pods.reverse = !app.pods.reverse,
        Action::SortPods(key) if app.screen().is_none() => {
            let p = &mut app.pods;
            // k9s: the same column again reverses it
            p.reverse = p.sort == key && !p.reverse;
            p.sort = key;
            p.selected = 0;
        }
        Action::SortNodes(key) => {
            if let Some(Screen::Nodes(v)) = app.screens.last_mut() {
                v.reverse = v.sort == key && !v.reverse;
                v.sort = key;
                v.selected = 0;
            }
        }
        Action::TogglePendingOnly if app.screen().is_none() => {
            app.pods.pending_only = !app.pods.pending_only;
            app.pods.selected = 0;
        }
        Action::SameReason if app.screen().is_none() => same_reason(app),
        Action::ToggleWhole => app.whole = !app.whole,
        Action::CycleScoreMode => {
            if let Some(Screen::Pod(v)) = app.screens.last_mut() {
                v.score_mode = v.score_mode.next();
            }
        }
        Action::ToggleDiff => toggle_diff(app),
        Action::NextNamespace => next_namespace(app),
        Action::AllNamespaces => {
            app.pods.namespace = None;
            app.pods.selected = 0;
        }
        Action::Rerun => return rerun(app),
        Action::ToggleFollow => return toggle_follow(app),
        Action::RequestBind => request_bind(app),
        Action::RequestPreempt => request_preempt(app),
        Action::EditInline => edit_inline(app),
        Action::EditExternal => return edit_external(app),
        Action::ToggleCordon => return toggle_cordon(app),
        _ => {}
    }
    Vec::new()
}

/// A click on row `i`: selects it, or opens it when it is selected already (not on a node's
/// screen, whose rows are not objects).
fn click_row(app: &mut App, i: usize) -> Vec<Effect> {
    if matches!(app.screen(), Some(Screen::Node(_))) {
        return Vec::new();
    }
    if i < row_count(app)
        && let Some(sel) = selected_mut(app)
    {
        if *sel == i {
            return open(app);
        }
        *sel = i;
    }
    Vec::new()
}

/// Esc: back one screen; at the pod list, clear the search and the reason filter (never quit).
fn cancel(app: &mut App) {
    let popped = app.screens.pop().is_some();
    if !popped {
        app.pods.query.clear();
        app.pods.reason = None;
        app.pods.selected = 0;
    }
}

/// `/`: searching, where the screen has something to search.
fn search_start(app: &mut App) {
    let ok = match app.screen() {
        None => true,
        Some(Screen::Pod(v)) => v.step.as_ref().is_some_and(|s| s.point == Point::Filter),
        Some(s) => s.query().is_some(),
    };
    if ok {
        app.mode = Mode::Search;
    }
}

/// `s`: the pod list's or the Filter table's next sort order.
fn cycle_sort(app: &mut App) {
    match app.screens.last_mut() {
        None => {
            app.pods.sort = app.pods.sort.next();
            app.pods.selected = 0;
        }
        Some(Screen::Pod(v)) => {
            v.filter_sort = v.filter_sort.next();
            v.selected = 0;
        }
        _ => {}
    }
}

/// The diff of the trace before and after the last what-if, shown or hidden.
fn toggle_diff(app: &mut App) {
    if app.diff.is_none() {
        app.info("no diff yet: make a what-if edit (i or e) and the new trace is compared with the old");
    } else if let Some(Screen::Pod(v)) = app.screens.last_mut() {
        v.show_diff = !v.show_diff;
    }
}

/// The pod list's next namespace (after the last, every namespace).
fn next_namespace(app: &mut App) {
    let all = pod_list::namespaces(app);
    app.pods.namespace = match &app.pods.namespace {
        None => all.first().cloned(),
        Some(cur) => all.iter().position(|n| n == cur).and_then(|i| all.get(i + 1)).cloned(),
    };
    app.pods.selected = 0;
}

/// `F`: following a live cluster's changes, or freezing the view.
fn toggle_follow(app: &mut App) -> Vec<Effect> {
    match &mut app.live {
        Some(l) => {
            l.follow = !l.follow;
            let (follow, n) = (l.follow, l.changes_since);
            app.info(if follow {
                "following the cluster: changes are applied as they arrive".to_string()
            } else {
                format!(
                    "view frozen: the explanations stay on this state ({n} change(s) not applied yet); Ctrl-r re-runs on the cluster as it is, F follows it again"
                )
            });
            if follow {
                return refresh_live(app);
            }
        }
        None => app.error("a snapshot does not change on its own: there is nothing to follow"),
    }
    Vec::new()
}

/// `i`: the selected pod's or node's what-if form.
fn edit_inline(app: &mut App) {
    if let Some(t) = edit_target(app) {
        let form = match &t {
            EditTarget::Pod(k) => app.pod(k).map(|p| whatif::pod_form(p)),
            EditTarget::Node(n) => app.cluster.node(n).map(|n| whatif::node_form(n)),
        };
        if let Some(f) = form {
            app.mode = Mode::Edit(f);
        }
    }
}

/// `e`: the selected pod's or node's YAML in $EDITOR.
fn edit_external(app: &mut App) -> Vec<Effect> {
    if let Some(t) = edit_target(app) {
        match whatif::to_yaml(&app.cluster, &t) {
            Ok(text) => return vec![Effect::OpenEditor { target: t, text }],
            Err(e) => app.error(e),
        }
    }
    Vec::new()
}

/// `c` on a node's screen: the node cordoned or uncordoned, in memory.
fn toggle_cordon(app: &mut App) -> Vec<Effect> {
    if let Some(Screen::Node(v)) = app.screen() {
        let n = v.node.clone();
        match whatif::toggle_cordon(&app.cluster, &n) {
            Ok((c, what)) => return set_cluster(app, c, what),
            Err(e) => app.error(e),
        }
    }
    Vec::new()
}

/// `r`: only the pods with the selected pod's decisive reason (its node count left out), the
/// selection staying on that pod; `r` again (or with any reason filter set) shows every pod.
fn same_reason(app: &mut App) {
    let selected = app.pod_rows().pod(app, app.pods.selected).cloned();
    if app.pods.reason.take().is_none() {
        let Some(pod) = &selected else {
            app.info("no pod selected");
            return;
        };
        let key = pod_list::reason_key(app, pod).1.into_owned();
        app.pods.reason = Some(pod_list::ReasonFilter::Same(key));
    }
    app.refresh_rows();
    let rows = &app.pod_rows;
    app.pods.selected = selected
        .and_then(|s| (0..rows.len()).find(|&i| rows.pod(app, i).is_some_and(|p| p.key == s.key)))
        .unwrap_or(0);
}

pub(super) fn search(app: &mut App, action: Action) {
    let query = match app.screens.last_mut() {
        None => &mut app.pods.query,
        Some(s) => match s.query_mut() {
            Some(q) => q,
            None => return,
        },
    };
    let mut keep = true;
    match action {
        Action::Input(c) => query.push(c),
        Action::Backspace => {
            query.pop();
        }
        Action::ClearInput => query.clear(),
        Action::Submit => keep = false,
        Action::Cancel => {
            query.clear();
            keep = false;
        }
        _ => {}
    }
    if let Some(sel) = selected_mut(app) {
        *sel = 0;
    }
    if keep {
        app.mode = Mode::Search;
    }
}

/// The events screen: the focused pod's FailedScheduling events, or (`all`, or no pod in
/// focus) every pod's.
pub(super) fn open_events(app: &mut App, all: bool) {
    let pod = if all { None } else { app.focused_pod() };
    app.screens
        .push(Screen::Events(crate::app::EventsView { pod, selected: 0 }));
}

/// What `c` copies on the top screen: the pod view's verdict, the selected node's name in the
/// node list and the node view, the selected event's message, the selected message; else the
/// focused pod's `namespace/name`.
fn copy(app: &mut App) -> Vec<Effect> {
    let text = match app.screen() {
        Some(Screen::Pod(v)) => match app.explanation(&v.pod) {
            Some(Ok(ex)) => Some(ex.verdict()),
            _ => Some(v.pod.to_string()),
        },
        Some(Screen::Node(v)) => Some(v.node.clone()),
        Some(Screen::Nodes(v)) => app.node_rows(v).node(app, v.selected).map(|n| n.name.clone()),
        Some(Screen::Events(v)) => app
            .event_rows(v.pod.as_ref())
            .get(v.selected)
            .map(|e| e.message.trim().to_string()),
        Some(Screen::Messages(v)) => app.messages.iter().rev().nth(v.selected).map(|m| m.text.clone()),
        Some(Screen::Text(v)) => Some(v.lines.join("\n")),
        Some(Screen::Fixes(v)) => app
            .fix_rows(&v.pod)
            .get(v.selected)
            .map(|f| f.fix.command.clone().unwrap_or_else(|| f.fix.text.clone())),
        _ => app.focused_pod().map(|k| k.to_string()),
    };
    match text {
        Some(t) if !t.is_empty() => {
            let shown: String = t.chars().take(60).collect();
            let more = if shown.len() < t.len() { "…" } else { "" };
            app.info(format!(
                "copied '{shown}{more}' to the clipboard (OSC 52: the terminal must allow it; in tmux, set-clipboard on)"
            ));
            vec![Effect::Copy(t)]
        }
        _ => {
            app.info("nothing to copy here");
            Vec::new()
        }
    }
}

/// `y`: the selected pod's or node's YAML, as the cluster has it now (in-memory changes
/// included), on a read-only screen.
fn show_yaml(app: &mut App) {
    let Some(target) = edit_target(app) else {
        app.info("no pod or node selected");
        return;
    };
    match whatif::to_yaml(&app.cluster, &target) {
        Ok(text) => app.screens.push(Screen::Text(crate::app::TextView {
            title: format!("{target} · YAML"),
            lines: text.lines().map(str::to_string).collect(),
            scroll: 0,
        })),
        Err(e) => app.error(e),
    }
}

/// `d`: the selected pod or node as `kubectl describe` lays it out, on a read-only screen.
fn describe(app: &mut App) {
    let Some(target) = edit_target(app) else {
        app.info("no pod or node selected");
        return;
    };
    let lines = match &target {
        EditTarget::Pod(k) => crate::app::describe::pod(app, k),
        EditTarget::Node(n) => crate::app::describe::node(app, n),
    };
    match lines {
        Some(lines) => app.screens.push(Screen::Text(crate::app::TextView {
            title: format!("{target} · describe"),
            lines,
            scroll: 0,
        })),
        None => app.error(format!("{target} is not in the cluster any more")),
    }
}
