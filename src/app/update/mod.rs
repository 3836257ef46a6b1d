//! `update(&mut App, Action) -> Vec<Effect>`: the only place the app changes. No I/O, no clock,
//! no threads: engine runs and the editor are returned as effects.
//!
//! [`update`] dispatches by action and input mode to the modules by concern:
//! - `data`: arriving data (a cluster loaded or attached, watch events, explanations).
//! - `jobs`: explain jobs and gang passes.
//! - `nav`: normal-mode keys, the selection, screens, the stepper, the search box.
//! - [`command`]: the `:` command line and its one table ([`COMMANDS`]).
//! - `write`: bind and preempt (confirm, plan, report) and the permission checks.
//! - `edit`: the inline what-if form.

pub mod command;
mod data;
mod edit;
mod jobs;
mod nav;
mod rehearsal;
mod write;

use super::{Action, App, Effect, Mode, StatusKind};

pub use command::COMMANDS;
pub use data::remaining_victims;
pub use nav::pod_view_rows;
pub use write::{action_access, offered_requests};

use command::command;
use data::{on_attached, on_explained, on_loaded, on_replaced, refresh_live};
use edit::edit;
use nav::{normal, search};
use write::{access_checks, confirm, on_written};

/// Rows moved by PageUp/PageDown.
pub const PAGE: usize = 10;
/// Rows moved by one mouse-wheel notch.
pub const SCROLL: usize = 3;

/// Applies one action.
pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    let explained = matches!(action, Action::Explained { .. });
    let mut effects = apply(app, action);
    // the rows are computed here, when what they depend on changed, never while drawing
    app.refresh_rows_after(!explained);
    effects.extend(access_checks(app));
    effects.extend(jobs::fix_jobs(app));
    effects
}

/// A kind as its watch's resource: `pods`, `podgroups (scheduling.x-k8s.io/v1alpha1)` (the
/// group and version beside the plural when it is not the core API: several kinds share one).
fn resource(kind: crate::model::event::Kind) -> String {
    match kind.api_version() {
        "v1" => kind.plural().to_string(),
        api => format!("{} ({api})", kind.plural()),
    }
}

/// What `:messages` keeps about the watches that broke or resumed with an event: which kind
/// and why.
fn stale_changes(
    was: &[crate::model::event::Kind],
    state: &crate::model::event::ClusterState,
) -> Vec<(StatusKind, String)> {
    let mut said = Vec::new();
    for (kind, why) in &state.stale {
        if !was.contains(kind) {
            said.push((
                StatusKind::Error,
                format!(
                    "the watch of {} is broken ({why}): the view is STALE for them, retrying",
                    resource(*kind)
                ),
            ));
        }
    }
    for kind in was.iter().filter(|k| !state.stale.contains_key(k)) {
        let rv = state.resource_versions.get(kind).map_or("", String::as_str);
        said.push((
            StatusKind::Info,
            format!("the watch of {} resumed at resourceVersion {rv}", resource(*kind)),
        ));
    }
    said
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
            match app.progress.iter_mut().find(|q| q.kind == p.kind) {
                Some(q) => *q = p,
                None => app.progress.push(p),
            }
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
            let mut said = Vec::new();
            if let Some(l) = &mut app.live {
                l.events += 1;
                let events_only = ev.kind() == Some(crate::model::event::Kind::Event);
                let was_stale: Vec<crate::model::event::Kind> = l.state.stale.keys().copied().collect();
                l.unapplied.note(&l.state, &ev);
                if l.state.apply(*ev) {
                    l.changes_since += 1;
                    if events_only {
                        l.events_dirty = true;
                    } else {
                        l.dirty = true;
                    }
                }
                said = stale_changes(&was_stale, &l.state);
            }
            // the header names the broken watches while they fit (else `STALE (N kinds)`):
            // `:messages` keeps which kinds and why
            for (kind, text) in said {
                app.log(kind, text);
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
        Action::Contexts(c) => {
            app.contexts = Some(c);
            Vec::new()
        }
        Action::CopyFailed(why) => {
            app.error(format!("could not copy to the clipboard: {why}"));
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
            on_explained(app, generation, pod.clone(), result);
            if generation != app.generation {
                return Vec::new();
            }
            jobs::gang_pass_job(app, &pod).into_iter().collect()
        }
        Action::Exported { path, result } => {
            match result {
                Ok(()) => app.info(format!(
                    "exported {} in-memory change(s) to {path}: kubectl commands, then the objects' YAML",
                    app.changes.len()
                )),
                Err(e) => app.error(e),
            }
            Vec::new()
        }
        Action::FixesVerified {
            generation,
            pod,
            result,
        } => {
            if generation == app.generation {
                app.fixes.insert(pod, Some(std::sync::Arc::new(result)));
            }
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
        Action::FitMade {
            generation,
            path,
            result,
        } => command::on_fit_made(app, generation, &path, result),
        Action::Descheduled {
            generation,
            path,
            result,
        } => {
            command::on_descheduled(app, generation, &path, result);
            Vec::new()
        }
        Action::Edited { target, result } => edit::edited(app, target, result),
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
        Mode::ConfirmQuit => {
            match other {
                Action::Confirm => app.should_quit = true,
                Action::Cancel | Action::Back => app.info(format!(
                    "not quitting; {} in-memory change(s) unsaved (:w FILE saves them)",
                    app.unsaved().len()
                )),
                _ => app.mode = Mode::ConfirmQuit,
            }
            Vec::new()
        }
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

#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;
    use crate::model::Cluster;

    /// `set_cluster` for tests.
    pub(crate) fn set_cluster(app: &mut App, c: Cluster) -> Vec<Effect> {
        super::data::set_cluster(app, c, "test change".into())
    }
}
