//! `update(&mut App, Action) -> Vec<Effect>`: the only place the app changes. No I/O, no clock,
//! no threads: engine runs and the editor are returned as effects.

use std::sync::Arc;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::analysis::{self, node_usage};
use super::diff::diff;
use super::pod_list;
use super::stepper::{Pipeline, Point, PointState, Step};
use super::whatif::{self, EditTarget};
use super::{
    Access, Action, App, Attached, AwaitingVictims, Effect, ExplainJob, Explained, FULL_KEEP, LiveView, Load, Loaded,
    Mode, NodeList, NodeView, Pending, PodView, Screen, Summary,
};
use crate::model::write::{Report, Step as WriteStep, WriteMode};
use crate::model::{Cluster, ObjectKey};

/// Rows moved by PageUp/PageDown.
pub const PAGE: usize = 10;
/// Rows moved by one mouse-wheel notch.
pub const SCROLL: usize = 3;

/// Applies one action.
pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    let mut effects = apply(app, action);
    effects.extend(access_checks(app));
    effects
}

fn apply(app: &mut App, action: Action) -> Vec<Effect> {
    match action {
        Action::Tick { now } => {
            app.now = Some(now);
            app.ticks = app.ticks.wrapping_add(1);
            // watch events are applied as they come; the engine runs at most once per tick
            refresh_live(app)
        }
        Action::Loaded(r) => on_loaded(app, *r),
        Action::LoadProgress(p) => {
            app.progress = Some(p);
            Vec::new()
        }
        Action::Attached(r) => on_attached(app, *r),
        Action::Cluster(ev) => {
            if let crate::model::event::ClusterEvent::Replaced { reason, .. } = &*ev {
                let reason = reason.clone();
                if let Some(l) = &mut app.live {
                    l.events += 1;
                    l.state.apply(*ev);
                }
                return on_replaced(app, &reason);
            }
            if let Some(l) = &mut app.live {
                l.events += 1;
                let events_only = ev.kind() == Some(crate::model::event::Kind::Event);
                if l.state.apply(*ev) {
                    l.changes_since += 1;
                    if events_only {
                        l.events_dirty = true;
                    } else {
                        l.dirty = true;
                    }
                }
            }
            Vec::new()
        }
        Action::WatchEnded(why) => {
            app.error(format!("the view no longer follows the cluster: {why}"));
            Vec::new()
        }
        Action::Written(r) => {
            // a uid precondition that failed: the pod shown is not the cluster's any more (it
            // was replaced, or the cluster recreated under the same URL): list everything again
            let stale_uid = matches!(&*r, Ok(report) if report.steps.iter().any(|s| matches!(
                s,
                crate::model::write::Step::Failed(crate::model::write::WriteError::Conflict { message })
                    if message.contains("UID in precondition") || message.contains("UID in the precondition")
            )));
            on_written(app, *r);
            if stale_uid && app.live.is_some() {
                if let Some(st) = &mut app.status {
                    st.text
                        .push_str(" (the pod's uid is not the cluster's: listing the cluster again)");
                }
                return vec![Effect::Relist];
            }
            Vec::new()
        }
        Action::AccessChecked { key, result } => {
            let now = app.now.unwrap_or_default();
            if let Some(l) = &mut app.live {
                l.access.insert(key, (result, now));
            }
            Vec::new()
        }
        Action::Saved { path, changes, result } => {
            match result {
                Ok(()) => {
                    app.info(format!(
                        "saved the cluster with {changes} in-memory change(s) to {path} (open it with --snapshot {path})"
                    ));
                    app.saved = Some((path, changes));
                }
                Err(e) => app.error(e),
            }
            Vec::new()
        }
        Action::Explained {
            generation,
            pod,
            result,
        } => {
            on_explained(app, generation, pod, result);
            Vec::new()
        }
        Action::GroupComputed {
            generation,
            pod,
            result,
        } => {
            if generation == app.generation {
                app.groups.insert(pod, Some(result));
            }
            Vec::new()
        }
        Action::Edited { target, result } => match result.and_then(|t| whatif::apply_yaml(&app.cluster, &target, &t)) {
            Ok((c, what)) => set_cluster(app, c, what),
            Err(e) => {
                app.error(e);
                Vec::new()
            }
        },
        Action::Quit => {
            app.should_quit = true;
            Vec::new()
        }
        Action::Fatal(msg) => {
            app.fatal = Some(msg);
            app.should_quit = true;
            Vec::new()
        }
        other => {
            // a message stays until the next thing the user does
            app.status = None;
            user_action(app, other)
        }
    }
}

/// A user intent, dispatched by input mode.
fn user_action(app: &mut App, other: Action) -> Vec<Effect> {
    match std::mem::take(&mut app.mode) {
        Mode::Normal => normal(app, other),
        Mode::Search => {
            search(app, other);
            Vec::new()
        }
        Mode::Command(text) => command(app, text, other),
        Mode::Confirm(p) => confirm(app, p, other),
        Mode::Help { scroll } => {
            app.mode = match other {
                Action::Down | Action::ScrollDown => Mode::Help {
                    scroll: scroll.saturating_add(1),
                },
                Action::Up | Action::ScrollUp => Mode::Help {
                    scroll: scroll.saturating_sub(1),
                },
                Action::PageDown => Mode::Help {
                    scroll: scroll.saturating_add(10),
                },
                Action::PageUp => Mode::Help {
                    scroll: scroll.saturating_sub(10),
                },
                Action::Cancel | Action::Help | Action::Back => Mode::Normal,
                _ => Mode::Help { scroll },
            };
            Vec::new()
        }
        Mode::Edit(form) => edit(app, form, other),
    }
}

fn on_loaded(app: &mut App, r: Result<Loaded, String>) -> Vec<Effect> {
    match r {
        Ok(l) => {
            match l.cluster.warnings.len() {
                0 => {}
                1 => app.info(format!("warning: {}", l.cluster.warnings[0])),
                n => app.info(format!("{n} warnings; the first: {}", l.cluster.warnings[0])),
            }
            app.usage = node_usage(&l.cluster, &l.features);
            app.cluster = Arc::new(l.cluster);
            app.profiles = Arc::new(l.profiles);
            app.features = l.features.clone();
            app.load = Load::Ready;
            app.generation += 1;
            clear_explanations(app);
            explain_all(app)
        }
        Err(e) => {
            app.load = Load::Failed(e);
            Vec::new()
        }
    }
}

fn on_attached(app: &mut App, r: Result<Attached, String>) -> Vec<Effect> {
    let a = match r {
        Ok(a) => a,
        Err(e) => return on_loaded(app, Err(e)),
    };
    let cluster = match a.state.to_cluster() {
        Ok(c) => c,
        Err(e) => {
            return on_loaded(
                app,
                Err(format!("the cluster's objects do not make a valid cluster: {e}")),
            );
        }
    };
    if a.write_mode == WriteMode::ReadOnly {
        app.readonly = true;
    }
    let seen_rv = super::newest_rv(&a.state);
    app.live = Some(LiveView {
        state: a.state,
        dirty: false,
        events_dirty: false,
        events: 0,
        write_mode: a.write_mode,
        writing: false,
        follow: true,
        changes_since: 0,
        seen_rv,
        access: std::collections::BTreeMap::new(),
        awaiting: Vec::new(),
    });
    app.progress = None;
    on_loaded(
        app,
        Ok(Loaded {
            cluster,
            profiles: a.profiles,
            features: a.features,
        }),
    )
}

/// Rebuilds the cluster from the live store when watch events changed it, and re-explains.
/// Explanations of pods still pending are kept on screen until their new ones arrive.
fn refresh_live(app: &mut App) -> Vec<Effect> {
    rebuild_live(app, false)
}

/// Rebuilds the cluster from the live store: at a tick when it changed and the view follows
/// the cluster, or at once when `force` (Ctrl-r: every pending pod is explained again, and
/// what-if edits are dropped).
fn rebuild_live(app: &mut App, force: bool) -> Vec<Effect> {
    let Some(l) = &mut app.live else {
        return Vec::new();
    };
    if app.load != Load::Ready || !(force || (l.follow && (l.dirty || l.events_dirty))) {
        return Vec::new();
    }
    let events_only = !force && !l.dirty;
    l.dirty = false;
    l.events_dirty = false;
    l.changes_since = 0;
    l.seen_rv = super::newest_rv(&l.state);
    let cluster = match l.state.to_cluster() {
        Ok(c) => c,
        Err(e) => {
            app.error(format!("the cluster changed into something kschedtui cannot read: {e}"));
            return Vec::new();
        }
    };
    if events_only {
        // The explanations stand: only what the pod view shows beside them changed.
        app.cluster = Arc::new(cluster);
        return Vec::new();
    }
    app.usage = node_usage(&cluster, &app.features);
    app.cluster = Arc::new(cluster);
    app.generation += 1;
    check_awaiting(app);
    let pending: Vec<ObjectKey> = app.cluster.pending_pods().iter().map(|p| p.key.clone()).collect();
    app.explanations.retain(|k, _| pending.contains(k));
    app.recent.retain(|k| pending.contains(k));
    app.summaries.clear();
    explain_all(app)
}

fn on_written(app: &mut App, r: Result<Report, String>) {
    let dry = app.live.as_ref().is_some_and(|l| l.write_mode == WriteMode::DryRun);
    if let Some(l) = &mut app.live {
        l.writing = false;
    }
    let report = match r {
        Ok(r) => r,
        Err(e) => {
            app.error(e);
            return;
        }
    };
    let suffix = if dry {
        " (server-side dry run: nothing changed)"
    } else {
        ""
    };
    // a victim found already gone was not removed by this plan: say so
    let names = |vs: &[ObjectKey]| -> String {
        if vs.is_empty() {
            return "none".to_string();
        }
        let v: Vec<String> = vs
            .iter()
            .map(|v| {
                if report.victim_already_gone(v) {
                    format!("{v} (already gone)")
                } else {
                    v.to_string()
                }
            })
            .collect();
        v.join(", ")
    };
    if report.ok() {
        let removed = report.victims_removed();
        // a request that may fail (clearing another pod's nomination) is still reported
        let minor: String = report
            .steps
            .iter()
            .map(|st| match st {
                WriteStep::Failed(e) => format!("; not critical: {e}"),
                _ => String::new(),
            })
            .collect();
        if removed.is_empty() {
            app.info(format!("done: {}{suffix}{minor}", report.plan.action));
        } else if dry {
            app.info(format!(
                "done: {}; victims that would be removed: {}{suffix}{minor}",
                report.plan.action,
                names(&removed)
            ));
        } else {
            app.info(format!(
                "done: {}; victims removed: {}; b will be offered once they are gone{minor}",
                report.plan.action,
                names(&removed)
            ));
            await_victims(app, &report);
        }
        return;
    }
    let first = report
        .steps
        .iter()
        .zip(&report.plan.requests)
        .find_map(|(st, r)| match st {
            WriteStep::Failed(e) if r.critical() => Some(e.to_string()),
            _ => None,
        })
        .unwrap_or_else(|| "a request failed".to_string());
    if report.plan.victims.is_empty() {
        app.error(first);
    } else {
        let removed = report.victims_removed();
        // a victim whose removal got no answer is neither: the failure that follows names it
        let left: Vec<ObjectKey> = report.victims_remaining().into_iter().map(|(v, _)| v).collect();
        app.error(format!(
            "preemption incomplete: removed {} of {} victim(s) ({}); not removed: {}; the node was not nominated: {first}",
            removed.len(),
            report.plan.victims.len(),
            names(&removed),
            names(&left),
        ));
    }
}

/// Remembers a sent preemption so its preemptor is offered for binding once the victims are
/// gone.
fn await_victims(app: &mut App, report: &Report) {
    use crate::model::write::WriteRequest;
    let Some((pod, node)) = report.plan.requests.iter().find_map(|r| match r {
        WriteRequest::Nominate { pod, node: Some(n) } => Some((pod.clone(), n.clone())),
        _ => None,
    }) else {
        return;
    };
    let victims = report
        .plan
        .requests
        .iter()
        .filter_map(|r| match r {
            WriteRequest::Delete { pod, uid } | WriteRequest::Evict { pod, uid } => Some((pod.clone(), uid.clone())),
            _ => None,
        })
        .collect();
    if let Some(l) = &mut app.live {
        l.awaiting.retain(|w| w.pod != pod);
        l.awaiting.push(AwaitingVictims {
            pod,
            node,
            victims,
            gone: false,
        });
        l.dirty = true;
    }
}

fn job(app: &App, pods: Vec<ObjectKey>) -> Effect {
    Effect::Explain(ExplainJob {
        generation: app.generation,
        cluster: app.cluster.clone(),
        profiles: app.profiles.clone(),
        features: app.features.clone(),
        pods,
        profile: app.profile_override.clone(),
    })
}

/// Queues every pending pod for explanation, the focused one first.
fn explain_all(app: &mut App) -> Vec<Effect> {
    let mut pods: Vec<ObjectKey> = app.cluster.pending_pods().iter().map(|p| p.key.clone()).collect();
    if let Some(f) = app.focused_pod()
        && let Some(i) = pods.iter().position(|k| *k == f)
    {
        let k = pods.remove(i);
        pods.insert(0, k);
    }
    app.queued = pods.len();
    let mut effects = if pods.is_empty() {
        Vec::new()
    } else {
        vec![job(app, pods)]
    };
    // A gang screen on the stack is computed again on the new cluster.
    let gangs: Vec<ObjectKey> = app
        .screens
        .iter()
        .filter_map(|s| match s {
            Screen::Gang(v) => Some(v.pod.clone()),
            _ => None,
        })
        .collect();
    for pod in gangs {
        effects.extend(group_job(app, pod));
    }
    effects
}

/// Asks for the gang's pass of `pod` unless it is known or being computed.
fn group_job(app: &mut App, pod: ObjectKey) -> Option<Effect> {
    if app.groups.contains_key(&pod) {
        return None;
    }
    app.groups.insert(pod.clone(), None);
    Some(Effect::Group(super::GroupJob {
        generation: app.generation,
        cluster: app.cluster.clone(),
        profiles: app.profiles.clone(),
        features: app.features.clone(),
        pod,
    }))
}

/// Opens the gang screen of the focused pod (`m`, `:gang`).
fn open_gang(app: &mut App) -> Vec<Effect> {
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
        app.screens.push(Screen::Gang(super::GangView {
            pod: pod.clone(),
            selected: 0,
        }));
    }
    group_job(app, pod).into_iter().collect()
}

fn on_explained(app: &mut App, generation: u64, pod: ObjectKey, result: Explained) {
    if generation != app.generation {
        return;
    }
    if let (Some(base), Ok(ex)) = (&app.diff_base, &result)
        && base.pod == pod
    {
        let change = app.changes.last().cloned().unwrap_or_default();
        app.diff = Some(diff(&change, base, ex));
        app.diff_base = None;
        if let Some(Screen::Pod(v)) = app.screens.last_mut()
            && v.pod == pod
        {
            v.show_diff = true;
        }
    }
    let pipeline = result
        .as_ref()
        .ok()
        .map(|ex| Pipeline::new(ex, app.profile(&ex.profile)));
    for s in &mut app.screens {
        if let Screen::Pod(v) = s
            && v.pod == pod
            && let Some(p) = &pipeline
        {
            // keep the user's step unless the new trace never gets there
            let reached = v
                .step
                .as_ref()
                .and_then(|st| p.stage(st.point))
                .is_some_and(|st| st.state != PointState::NotReached);
            if !reached {
                v.step = Some(p.decisive());
                v.selected = 0;
            }
        }
    }
    app.summaries.insert(
        pod.clone(),
        result.as_ref().map(|ex| Summary::of(ex)).map_err(Clone::clone),
    );
    app.explanations.insert(pod.clone(), result);
    app.recent.retain(|k| *k != pod);
    app.recent.push_back(pod);
    // keep memory bounded on big clusters: drop the oldest full explanations not on screen
    let pinned = app.pinned();
    while app.explanations.len() > FULL_KEEP + pinned.len() {
        let Some(i) = app.recent.iter().position(|k| !pinned.contains(k)) else {
            break;
        };
        if let Some(k) = app.recent.remove(i) {
            app.explanations.remove(&k);
        }
    }
}

/// Forgets every explanation (the cluster changed).
fn clear_explanations(app: &mut App) {
    app.explanations.clear();
    app.groups.clear();
    app.summaries.clear();
    app.recent.clear();
}

/// Every kind was listed again (Ctrl-r, or the cluster was recreated under the same URL):
/// the store was replaced, so every pending pod is explained again on it, what-if edits are
/// dropped (they were made on objects that may be gone) and the next write uses its uids.
fn on_replaced(app: &mut App, reason: &str) -> Vec<Effect> {
    let dropped = app.changes.len();
    let fx = rebuild_live(app, true);
    app.changes.clear();
    app.diff_base = None;
    app.diff = None;
    if let Some(l) = &mut app.live {
        // permissions are asked again of the cluster as it is now
        l.access.clear();
        if reason != crate::model::event::RELIST_ASKED {
            // another cluster: the victims awaited (matched by uid) are not in it
            l.awaiting.clear();
        }
    }
    let rv = app.live.as_ref().map(|l| l.seen_rv.clone()).unwrap_or_default();
    let dropped = if dropped > 0 {
        format!("; {dropped} what-if change(s) dropped")
    } else {
        String::new()
    };
    app.info(format!(
        "{reason}: listed every kind again (resourceVersion {rv}), re-running every pending pod{dropped}"
    ));
    fx
}

/// Ctrl-r: explains every pending pod again on the cluster as it is now (live: every kind is
/// listed again, never resumed from the watch, and what-if edits are dropped; a snapshot: the
/// same cluster).
fn rerun(app: &mut App) -> Vec<Effect> {
    if app.load != Load::Ready {
        return Vec::new();
    }
    if app.live.is_some() {
        let dropped = app.changes.len();
        let mut fx = rebuild_live(app, true);
        fx.push(Effect::Relist);
        app.changes.clear();
        app.diff_base = None;
        app.diff = None;
        let rv = app.live.as_ref().map(|l| l.seen_rv.clone()).unwrap_or_default();
        app.info(if dropped > 0 {
            format!(
                "listing the cluster again; re-running on it as it was (resourceVersion {rv}) meanwhile; {dropped} what-if change(s) dropped"
            )
        } else {
            format!("listing the cluster again; re-running on it as it was (resourceVersion {rv}) meanwhile")
        });
        return fx;
    }
    app.generation += 1;
    clear_explanations(app);
    app.info("re-running every pending pod on the snapshot (with the in-memory changes)");
    explain_all(app)
}

/// Replaces the cluster after an in-memory change and re-explains.
pub(crate) fn set_cluster(app: &mut App, cluster: Cluster, change: String) -> Vec<Effect> {
    app.diff_base = app.focused_pod().and_then(|k| match app.explanations.get(&k) {
        Some(Ok(ex)) => Some(ex.clone()),
        _ => None,
    });
    app.diff = None;
    app.usage = node_usage(&cluster, &app.features);
    app.cluster = Arc::new(cluster);
    app.generation += 1;
    clear_explanations(app);
    let froze = app
        .live
        .as_mut()
        .is_some_and(|l| std::mem::replace(&mut l.follow, false));
    app.info(if froze {
        format!(
            "{change} (in memory); re-running the scheduler; the view is frozen so the what-if stays (Ctrl-r re-runs on the live cluster and drops it)"
        )
    } else {
        format!("{change} (in memory); re-running the scheduler")
    });
    app.changes.push(change);
    for s in &mut app.screens {
        if let Screen::Pod(v) = s {
            v.show_diff = false;
        }
    }
    explain_all(app)
}

fn pipeline_of(app: &App, pod: &ObjectKey) -> Option<Pipeline> {
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
            .map(|r| Some(r.entry.node.clone()))
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

/// Node names of the node list, in display order.
pub fn node_list_rows(app: &App, v: &NodeList) -> Vec<String> {
    let m = SkimMatcherV2::default();
    app.cluster
        .nodes
        .iter()
        .filter(|n| v.query.is_empty() || m.fuzzy_match(&n.name, &v.query).is_some())
        .map(|n| n.name.clone())
        .collect()
}

fn row_count(app: &App) -> usize {
    match app.screen() {
        None => pod_list::rows(app).len(),
        Some(Screen::Pod(v)) => pod_view_rows(app, v).len(),
        // the node view scrolls; it has no rows to select
        Some(Screen::Node(_)) => 0,
        Some(Screen::Nodes(v)) => node_list_rows(app, v).len(),
        Some(Screen::Queue(_)) => app.queue_rows().len(),
        Some(Screen::Gang(v)) => app.gang_rows(&v.pod).len(),
    }
}

/// The selected row of the top screen (the node view scrolls instead and has none).
fn selected_mut(app: &mut App) -> Option<&mut usize> {
    match app.screens.last_mut() {
        None => Some(&mut app.pods.selected),
        Some(Screen::Pod(v)) => Some(&mut v.selected),
        Some(Screen::Nodes(v)) => Some(&mut v.selected),
        Some(Screen::Queue(v)) => Some(&mut v.selected),
        Some(Screen::Gang(v)) => Some(&mut v.selected),
        Some(Screen::Node(_)) => None,
    }
}

fn move_by(app: &mut App, delta: isize) {
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

fn move_to(app: &mut App, top: bool) {
    if let Some(Screen::Node(v)) = app.screens.last_mut() {
        v.scroll = if top { 0 } else { v.scroll.saturating_add(1000) };
        return;
    }
    let n = row_count(app);
    if let Some(sel) = selected_mut(app) {
        *sel = if top { 0 } else { n.saturating_sub(1) };
    }
}

fn open_pod(app: &mut App, key: ObjectKey) -> Vec<Effect> {
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

fn open(app: &mut App) -> Vec<Effect> {
    match app.screen().cloned() {
        None => {
            let rows = pod_list::rows(app);
            if let Some(r) = rows.get(app.pods.selected) {
                let k = r.pod.key.clone();
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
            if let Some(n) = node_list_rows(app, &v).get(v.selected) {
                app.screens.push(Screen::Node(NodeView {
                    node: n.clone(),
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
        Some(Screen::Node(_)) => {}
    }
    Vec::new()
}

fn step(app: &mut App, f: impl Fn(&Pipeline, &Step) -> Step) {
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

fn normal(app: &mut App, action: Action) -> Vec<Effect> {
    if let Load::Failed(_) | Load::Loading = app.load {
        match action {
            Action::Back | Action::Cancel => app.should_quit = true,
            Action::Help => app.mode = Mode::Help { scroll: 0 },
            _ => {}
        }
        return Vec::new();
    }
    match action {
        Action::Up => move_by(app, -1),
        Action::Down => move_by(app, 1),
        Action::ScrollUp => move_by(app, -(SCROLL as isize)),
        Action::ScrollDown => move_by(app, SCROLL as isize),
        Action::PageUp => move_by(app, -(PAGE as isize)),
        Action::PageDown => move_by(app, PAGE as isize),
        Action::Top => move_to(app, true),
        Action::Bottom => move_to(app, false),
        Action::ClickRow(i) => {
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
        }
        Action::ClickPoint(i) => {
            step(app, |p, cur| {
                p.stages.get(i).map_or_else(|| cur.clone(), |s| Step::at(s.point))
            });
        }
        Action::Open => return open(app),
        Action::OpenGang => return open_gang(app),
        Action::Back => {
            // back one screen; at the pod list, quit
            let popped = app.screens.pop().is_some();
            app.should_quit = !popped;
        }
        Action::Cancel => {
            // back one screen; at the pod list, clear the search (never quit)
            let popped = app.screens.pop().is_some();
            if !popped {
                app.pods.query.clear();
                app.pods.selected = 0;
            }
        }
        Action::Help => app.mode = Mode::Help { scroll: 0 },
        Action::CommandStart => app.mode = Mode::Command(String::new()),
        Action::SearchStart => {
            let ok = match app.screen() {
                None | Some(Screen::Nodes(_)) => true,
                Some(Screen::Pod(v)) => v.step.as_ref().is_some_and(|s| s.point == Point::Filter),
                Some(Screen::Node(_) | Screen::Queue(_) | Screen::Gang(_)) => false,
            };
            if ok {
                app.mode = Mode::Search;
            }
        }
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
        Action::CycleSort => match app.screens.last_mut() {
            None => {
                app.pods.sort = app.pods.sort.next();
                app.pods.selected = 0;
            }
            Some(Screen::Pod(v)) => {
                v.filter_sort = v.filter_sort.next();
                v.selected = 0;
            }
            _ => {}
        },
        Action::ReverseSort if app.screen().is_none() => app.pods.reverse = !app.pods.reverse,
        Action::CycleScoreMode => {
            if let Some(Screen::Pod(v)) = app.screens.last_mut() {
                v.score_mode = v.score_mode.next();
            }
        }
        Action::ToggleDiff => {
            if app.diff.is_none() {
                app.info("no diff yet: make a what-if edit (i or e) and the new trace is compared with the old");
            } else if let Some(Screen::Pod(v)) = app.screens.last_mut() {
                v.show_diff = !v.show_diff;
            }
        }
        Action::NextNamespace => {
            let all = pod_list::namespaces(app);
            app.pods.namespace = match &app.pods.namespace {
                None => all.first().cloned(),
                Some(cur) => all.iter().position(|n| n == cur).and_then(|i| all.get(i + 1)).cloned(),
            };
            app.pods.selected = 0;
        }
        Action::AllNamespaces => {
            app.pods.namespace = None;
            app.pods.selected = 0;
        }
        Action::Rerun => return rerun(app),
        Action::ToggleFollow => match &mut app.live {
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
        },
        Action::RequestBind => request_bind(app),
        Action::RequestPreempt => request_preempt(app),
        Action::EditInline => {
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
        Action::EditExternal => {
            if let Some(t) = edit_target(app) {
                match whatif::to_yaml(&app.cluster, &t) {
                    Ok(text) => return vec![Effect::OpenEditor { target: t, text }],
                    Err(e) => app.error(e),
                }
            }
        }
        Action::ToggleCordon => {
            if let Some(Screen::Node(v)) = app.screen() {
                let n = v.node.clone();
                match whatif::toggle_cordon(&app.cluster, &n) {
                    Ok((c, what)) => return set_cluster(app, c, what),
                    Err(e) => app.error(e),
                }
            }
        }
        _ => {}
    }
    Vec::new()
}

fn edit_target(app: &App) -> Option<EditTarget> {
    match app.screen() {
        None => pod_list::rows(app)
            .get(app.pods.selected)
            .map(|r| EditTarget::Pod(r.pod.key.clone())),
        Some(Screen::Pod(v)) => Some(EditTarget::Pod(v.pod.clone())),
        Some(Screen::Node(v)) => Some(EditTarget::Node(v.node.clone())),
        Some(Screen::Nodes(v)) => node_list_rows(app, v)
            .get(v.selected)
            .map(|n| EditTarget::Node(n.clone())),
        Some(Screen::Queue(v)) => app.queue_rows().get(v.selected).map(|r| EditTarget::Pod(r.0.clone())),
        Some(Screen::Gang(v)) => app
            .gang_rows(&v.pod)
            .get(v.selected)
            .map(|k| EditTarget::Pod(k.clone())),
    }
}

fn search(app: &mut App, action: Action) {
    let query = match app.screens.last_mut() {
        None => &mut app.pods.query,
        Some(Screen::Pod(v)) => &mut v.query,
        Some(Screen::Nodes(v)) => &mut v.query,
        Some(Screen::Node(_) | Screen::Queue(_) | Screen::Gang(_)) => return,
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

/// The commands of `:`.
pub const COMMANDS: &[&str] = &[
    ":pods",
    ":nodes",
    ":queue",
    ":gang",
    ":ns NAME",
    ":ns all",
    ":profile NAME",
    ":profile auto",
    ":w FILE",
    ":w! FILE",
    ":help",
    ":q",
];

fn command(app: &mut App, mut text: String, action: Action) -> Vec<Effect> {
    match action {
        Action::Input(c) => text.push(c),
        Action::Backspace => {
            text.pop();
        }
        Action::ClearInput => text.clear(),
        Action::Cancel => return Vec::new(),
        Action::Submit => return run_command(app, text.trim()),
        _ => {}
    }
    app.mode = Mode::Command(text);
    Vec::new()
}

fn run_command(app: &mut App, text: &str) -> Vec<Effect> {
    let mut words = text.split_whitespace();
    let cmd = words.next().unwrap_or_default();
    let arg = words.next();
    match cmd {
        "" => {}
        "q" | "q!" | "quit" | "qa" => app.should_quit = true,
        "pods" | "pod" | "po" => app.screens.clear(),
        "nodes" | "node" | "no" => {
            let pod = app.focused_pod();
            app.screens.push(Screen::Nodes(NodeList {
                selected: 0,
                pod,
                query: String::new(),
            }));
        }
        "queue" | "que" => app.screens.push(Screen::Queue(super::QueueView::default())),
        "gang" | "group" => return open_gang(app),
        "help" | "h" => app.mode = Mode::Help { scroll: 0 },
        "profile" | "profiles" => return profile_command(app, arg),
        "w" | "write" | "save" | "w!" | "write!" | "save!" => {
            let overwrite = cmd.ends_with('!');
            // the rest of the line is the file name (it may hold spaces)
            let path = text[cmd.len()..].trim();
            if path.is_empty() {
                app.error(format!(
                    "name the file: :{cmd} FILE (YAML, or JSON when it ends in .json; :w! replaces a file)"
                ));
            } else if app.load != Load::Ready {
                app.error("nothing to save yet: the cluster is still loading");
            } else {
                app.info(format!("saving to {path}…"));
                return vec![Effect::Save {
                    cluster: app.cluster.clone(),
                    path: path.into(),
                    overwrite,
                    changes: app.changes.len(),
                }];
            }
        }
        "ns" | "namespace" => match arg {
            None | Some("all" | "*") => {
                app.pods.namespace = None;
                app.screens.clear();
                app.info("all namespaces");
            }
            Some(ns) => {
                let all = pod_list::namespaces(app);
                if all.iter().any(|n| n == ns) || app.cluster.namespaces.contains_key(ns) {
                    app.pods.namespace = Some(ns.to_string());
                    app.pods.selected = 0;
                    app.screens.clear();
                    app.info(format!("namespace {ns}"));
                } else {
                    app.error(format!(
                        "unknown namespace '{ns}' (namespaces with pods: {})",
                        all.join(", ")
                    ));
                }
            }
        },
        other => app.error(format!(
            "unknown command ':{other}' (commands: {})",
            COMMANDS.join(", ")
        )),
    }
    Vec::new()
}

/// The requests the actions on the focused pod would send (bind to the node the engine
/// selects or the node view's node; preempt the victims PostFilter chose), for the permission
/// checks made before the actions are offered.
pub fn offered_requests(app: &App) -> Vec<(&'static str, crate::model::write::WriteRequest)> {
    let Some(pod) = app.focused_pod() else {
        return Vec::new();
    };
    let Some(Ok(summary)) = app.summary(&pod) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let node = match app.screen() {
        Some(Screen::Node(v)) if v.pod.as_ref() == Some(&pod) => Some(v.node.clone()),
        _ => summary.selected.first().cloned(),
    };
    if let Some(n) = node
        && let Ok(plan) = crate::model::write::bind_plan(&app.cluster, &pod, &n)
    {
        out.extend(plan.requests.into_iter().map(|r| ("bind", r)));
    }
    if let Some((n, victims)) = &summary.preemption
        && let Ok(plan) = crate::model::write::preempt_plan(&app.cluster, &pod, n, victims, app.removal)
    {
        out.extend(plan.requests.into_iter().map(|r| ("preempt", r)));
    }
    out
}

/// What the permission checks say about an action on the focused pod ("bind", "preempt"):
/// None when it is not offered or not on a live cluster; a refusal wins over a pending check.
pub fn action_access(app: &App, action: &str) -> Option<Access> {
    let l = app.live.as_ref()?;
    if app.readonly {
        return None;
    }
    let mut acc: Option<Access> = None;
    for (a, r) in offered_requests(app) {
        if a != action {
            continue;
        }
        let this = l
            .access
            .get(&super::access_key(&r))
            .map_or(Access::Checking, |(x, _)| x.clone());
        acc = Some(match (acc, this) {
            // every missing permission is named, as the CLI names them
            (Some(Access::Denied(a)), Access::Denied(b)) if a.contains(b.trim_end_matches(ASK_ADMIN)) => {
                Access::Denied(a)
            }
            (Some(Access::Denied(a)), Access::Denied(b)) => Access::Denied(join_denials(&a, &b)),
            (Some(Access::Denied(w)), _) | (_, Access::Denied(w)) => Access::Denied(w),
            (Some(Access::Unknown(w)), _) | (_, Access::Unknown(w)) => Access::Unknown(w),
            (Some(Access::Checking), _) | (_, Access::Checking) => Access::Checking,
            _ => Access::Allowed,
        });
    }
    acc
}

/// How a permission refusal ends.
const ASK_ADMIN: &str = "; ask a cluster admin for this permission";

/// Two refusals in one text, the advice said once at the end.
fn join_denials(a: &str, b: &str) -> String {
    let a = a
        .strip_suffix(ASK_ADMIN)
        .or_else(|| a.strip_suffix("; ask a cluster admin for these permissions"))
        .unwrap_or(a);
    match b.strip_suffix(ASK_ADMIN) {
        Some(b) => format!("{a}; {b}; ask a cluster admin for these permissions"),
        None => format!("{a}; {b}"),
    }
}

/// Asks for the permissions of the focused pod's actions not known yet (or known for longer
/// than [`ACCESS_TTL`](super::ACCESS_TTL)), on a live cluster that accepts writes.
fn access_checks(app: &mut App) -> Vec<Effect> {
    if app.readonly || app.load != Load::Ready || app.live.is_none() {
        return Vec::new();
    }
    let wanted = offered_requests(app);
    let now = app.now.unwrap_or_default();
    let Some(l) = &mut app.live else {
        return Vec::new();
    };
    let mut ask = Vec::new();
    for (_, r) in wanted {
        let key = super::access_key(&r);
        let fresh = l
            .access
            .get(&key)
            .is_some_and(|(a, t)| *a == Access::Checking || now - t < super::ACCESS_TTL);
        if !fresh {
            l.access.insert(key, (Access::Checking, now));
            ask.push(r);
        }
    }
    if ask.is_empty() {
        Vec::new()
    } else {
        vec![Effect::CheckAccess(ask)]
    }
}

/// After a rebuild of the live cluster: preemptors whose victims are all gone are offered
/// for binding; preemptors that were bound or went away are forgotten.
fn check_awaiting(app: &mut App) {
    let cluster = app.cluster.clone();
    let Some(l) = &mut app.live else { return };
    let mut offers = Vec::new();
    l.awaiting.retain_mut(|w| {
        let Some(p) = cluster.pod(&w.pod) else { return false };
        if p.node_name.is_some() {
            return false;
        }
        if !w.gone && remaining_victims(&cluster, w).is_empty() {
            w.gone = true;
            offers.push(format!(
                "the victims of {} are gone: press b to bind it (nominated node {}); the cluster's scheduler may bind it first",
                w.pod, w.node
            ));
        }
        true
    });
    if let Some(o) = offers.pop() {
        app.info(o);
    }
}

/// The victims of a sent preemption still in the cluster (same name and uid).
pub fn remaining_victims(cluster: &Cluster, w: &AwaitingVictims) -> Vec<ObjectKey> {
    w.victims
        .iter()
        .filter(|(k, uid)| {
            cluster
                .pod(k)
                .is_some_and(|p| uid.is_none() || p.obj.metadata.uid.as_ref() == uid.as_ref())
        })
        .map(|(k, _)| k.clone())
        .collect()
}

/// `:profile`: lists the profiles; `:profile NAME` explains every pod with that profile (a
/// what-if); `:profile auto` goes back to each pod's schedulerName.
fn profile_command(app: &mut App, arg: Option<&str>) -> Vec<Effect> {
    let names: Vec<&str> = app.profiles.iter().map(|f| f.name.as_str()).collect();
    let current = app
        .profile_override
        .as_deref()
        .unwrap_or("auto (each pod's schedulerName)");
    let wanted = match arg {
        None => {
            app.info(format!("profile: {current}; profiles: {}", names.join(", ")));
            return Vec::new();
        }
        Some("auto" | "-") => None,
        Some(name) if names.contains(&name) => Some(name.to_string()),
        Some(name) => {
            app.error(format!(
                "no scheduler profile named '{name}' (profiles: {}; :profile auto uses each pod's schedulerName)",
                names.join(", ")
            ));
            return Vec::new();
        }
    };
    if wanted == app.profile_override {
        app.info(format!("profile: {current} (unchanged)"));
        return Vec::new();
    }
    app.profile_override = wanted;
    app.generation += 1;
    clear_explanations(app);
    app.info(match &app.profile_override {
        Some(p) => format!("every pod is now explained with profile '{p}' (a what-if; :profile auto to undo)"),
        None => "every pod is explained with the profile its schedulerName picks".to_string(),
    });
    explain_all(app)
}

fn request_bind(app: &mut App) {
    if app.readonly {
        app.error("read-only mode (--readonly): binding is disabled");
        return;
    }
    if app.live.as_ref().is_some_and(|l| l.writing) {
        app.error("a write is still being sent; wait for its result");
        return;
    }
    let (pod, picked) = match app.screen() {
        Some(Screen::Node(v)) => match &v.pod {
            Some(p) => (p.clone(), Some(v.node.clone())),
            None => {
                app.error("open this node from a pod (Enter on a Filter row) to bind that pod here");
                return;
            }
        },
        _ => match app.focused_pod() {
            Some(p) => (p, None),
            None => return,
        },
    };
    let Some(p) = app.pod(&pod) else { return };
    if let Some(n) = &p.node_name {
        app.error(format!("pod {pod} is already on node {n}"));
        return;
    }
    if !p.is_pending() {
        app.error(format!("pod {pod} has finished ({})", p.phase));
        return;
    }
    let summary = match app.summary(&pod) {
        Some(Ok(s)) => s.clone(),
        Some(Err(e)) => {
            app.error(e.clone());
            return;
        }
        None => {
            app.error(format!("pod {pod} is still being explained; try again in a moment"));
            return;
        }
    };
    let (node, warning) = if let Some(node) = picked {
        let Some(Ok(ex)) = app.explanation(&pod) else {
            app.error(format!("pod {pod} is still being explained; try again in a moment"));
            return;
        };
        let warning = ex.why_not(&node);
        (node, warning)
    } else if let Some(first) = summary.selected.first() {
        let warning = (summary.selected.len() > 1).then(|| {
            format!(
                "{} nodes tie at the top ({}); the scheduler picks one at random, this binds to {first}",
                summary.selected.len(),
                summary.selected.join(", ")
            )
        });
        (first.clone(), warning)
    } else {
        app.error(format!(
            "no node fits {pod}; to bind anyway, open a node (Enter on a Filter row) and press b there"
        ));
        return;
    };
    if let Some(Access::Denied(why)) = action_access(app, "bind") {
        app.error(format!("cannot bind {pod}: {why}"));
        return;
    }
    // What the API server would refuse, or what a binding alone would get wrong (claims the
    // scheduler allocates first), is refused here, in snapshot mode too.
    if let Err(e) = crate::model::write::bind_plan(&app.cluster, &pod, &node) {
        app.error(format!("cannot bind: {e}"));
        return;
    }
    let waiting = app
        .live
        .as_ref()
        .and_then(|l| l.awaiting.iter().find(|w| w.pod == pod))
        .map(|w| remaining_victims(&app.cluster, w))
        .filter(|left| !left.is_empty());
    let warning = match (waiting, warning) {
        (Some(left), w) => {
            let names: Vec<String> = left.iter().map(ToString::to_string).collect();
            let mut text = format!(
                "victims still terminating: {}; binding before they are gone may fail on the node",
                names.join(", ")
            );
            if let Some(w) = w {
                text = format!("{w}; {text}");
            }
            Some(text)
        }
        (None, w) => w,
    };
    app.mode = Mode::Confirm(Pending::Bind { pod, node, warning });
}

fn request_preempt(app: &mut App) {
    if app.readonly {
        app.error("read-only mode (--readonly): preemption is disabled");
        return;
    }
    if app.live.as_ref().is_some_and(|l| l.writing) {
        app.error("a write is still being sent; wait for its result");
        return;
    }
    let Some(pod) = app.focused_pod() else { return };
    let summary = match app.summary(&pod) {
        Some(Ok(s)) => s.clone(),
        Some(Err(e)) => {
            app.error(e.clone());
            return;
        }
        None => {
            app.error(format!(
                "pod {pod} has no explanation (not pending, or still being explained)"
            ));
            return;
        }
    };
    match (summary.preemption, summary.preemption_failed) {
        (Some((node, victims)), _) => {
            if let Some(Access::Denied(why)) = action_access(app, "preempt") {
                app.error(format!("cannot preempt for {pod}: {why}"));
                return;
            }
            app.mode = Mode::Confirm(Pending::Preempt { pod, node, victims });
        }
        (None, Some(msg)) => app.error(format!(
            "preemption cannot help {pod}: {}",
            if msg.is_empty() {
                "PostFilter found no candidate node"
            } else {
                &msg
            }
        )),
        (None, None) if summary.schedulable => {
            app.error(format!("{pod} fits without preemption; press b to bind it"));
        }
        (None, None) => app.error(format!(
            "PostFilter did not run for {pod}: no preemption plugin produced a result"
        )),
    }
}

fn confirm(app: &mut App, pending: Pending, action: Action) -> Vec<Effect> {
    match action {
        Action::Confirm => {
            let plan = match app.plan(&pending) {
                Ok(plan) => plan,
                Err(e) => {
                    app.error(format!("{e}; nothing was sent"));
                    return Vec::new();
                }
            };
            if let Some(l) = &mut app.live {
                l.writing = true;
                app.info(format!("sending {} request(s): {}…", plan.requests.len(), plan.action));
                return vec![Effect::Write(plan)];
            }
            super::rehearsal::rehearse(app, &pending, &plan)
        }
        Action::Cancel | Action::Back => {
            app.info("cancelled; nothing changed");
            Vec::new()
        }
        _ => {
            app.mode = Mode::Confirm(pending);
            Vec::new()
        }
    }
}

fn edit(app: &mut App, mut form: whatif::EditForm, action: Action) -> Vec<Effect> {
    let n = form.fields.len();
    match action {
        Action::Input(c) => {
            if let Some(f) = form.fields.get_mut(form.focus) {
                f.value.push(c);
            }
        }
        Action::Backspace => {
            if let Some(f) = form.fields.get_mut(form.focus) {
                f.value.pop();
            }
        }
        Action::ClearInput => {
            if let Some(f) = form.fields.get_mut(form.focus) {
                f.value.clear();
            }
        }
        Action::FieldNext if n > 0 => form.focus = (form.focus + 1) % n,
        Action::FieldPrev if n > 0 => form.focus = (form.focus + n - 1) % n,
        Action::Cancel => return Vec::new(),
        Action::Submit => match whatif::apply_form(&app.cluster, &form) {
            Ok((c, what)) => return set_cluster(app, c, what),
            Err(e) => form.error = Some(e),
        },
        _ => {}
    }
    app.mode = Mode::Edit(form);
    Vec::new()
}

#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;

    /// `set_cluster` for tests.
    pub(crate) fn set_cluster(app: &mut App, c: Cluster) -> Vec<Effect> {
        super::set_cluster(app, c, "test change".into())
    }
}
