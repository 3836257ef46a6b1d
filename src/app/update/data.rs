//! Arriving data: a cluster loaded or attached, live watch events applied at a tick, a
//! cluster replaced (relisted or edited in memory, Ctrl-r), explanations arriving, and the
//! preemptors whose victims are gone after a rebuild.

use super::jobs::explain_all;
use crate::app::analysis::{node_usage, node_usage_and_unplaced, update_usage};
use crate::app::diff::diff;
use crate::app::stepper::{Pipeline, PointState};
use crate::app::{App, Attached, AwaitingVictims, Effect, Explained, LiveView, Load, Loaded, Screen, Summary};
use crate::model::live_update::Unapplied;
use crate::model::write::WriteMode;
use crate::model::{Cluster, ObjectKey};
use std::sync::Arc;

pub(super) fn on_loaded(app: &mut App, r: Result<Loaded, String>) -> Vec<Effect> {
    match r {
        Ok(l) => {
            // the cluster's, then what the configuration has that is not run (its extenders,
            // the same for every profile)
            let mut warnings = l.cluster.warnings.clone();
            if let Some(fw) = l.profiles.first() {
                warnings.extend(fw.config_notes.iter().cloned());
            }
            for w in &warnings {
                app.log(crate::app::StatusKind::Warning, w.clone());
            }
            // the status line names the first; :messages keeps them all
            match warnings.len() {
                0 => {}
                1 => {
                    app.status = Some(crate::app::StatusMsg {
                        kind: crate::app::StatusKind::Warning,
                        text: format!("warning: {}", warnings[0]),
                    })
                }
                n => {
                    app.status = Some(crate::app::StatusMsg {
                        kind: crate::app::StatusKind::Warning,
                        text: format!("{n} warnings (:messages lists them); the first: {}", warnings[0]),
                    })
                }
            }
            let (usage, unplaced) = node_usage_and_unplaced(&l.cluster, &l.features);
            app.usage = usage;
            if let Some(live) = &mut app.live {
                live.unplaced = unplaced;
            }
            app.cluster = Arc::new(l.cluster);
            app.profiles = Arc::new(l.profiles);
            app.features = l.features.clone();
            app.load = Load::Ready;
            app.generation += 1;
            clear_explanations(app);
            check_start_namespace(app);
            explain_all(app)
        }
        Err(e) => {
            app.load = Load::Failed(e);
            Vec::new()
        }
    }
}

pub(super) fn on_attached(app: &mut App, r: Result<Attached, String>) -> Vec<Effect> {
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
    let seen_rv = crate::app::newest_rv(&a.state);
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
        unapplied: Unapplied::default(),
        unplaced: std::collections::BTreeMap::new(),
    });
    app.progress.clear();
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
pub(super) fn refresh_live(app: &mut App) -> Vec<Effect> {
    rebuild_live(app, false)
}

/// Rebuilds the cluster from the live store: at a tick when it changed and the view follows
/// the cluster, or at once when `force` (Ctrl-r: every pending pod is explained again, and
/// what-if edits are dropped). The changes the watch events made are applied to the cluster
/// shown object by object (and to the usage per node), unless forced or they cannot be (see
/// `model::live_update`): then the whole cluster is built again from the store.
pub(super) fn rebuild_live(app: &mut App, force: bool) -> Vec<Effect> {
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
    l.seen_rv = crate::app::newest_rv(&l.state);
    let unapplied = std::mem::take(&mut l.unapplied);
    // the pod list's rows and the pending pods follow the cluster changed pod by pod when they
    // are of the cluster before the changes
    let rows_current = app.pod_rows.is_of(&app.cluster, &app.features);
    let pending_current = app.pending.is_current(&app.cluster);
    let mut updated = None;
    if !force && !unapplied.is_whole() {
        // the cluster shown is taken, not copied, unless an explanation still reads it
        let mut cluster = Arc::try_unwrap(std::mem::take(&mut app.cluster)).unwrap_or_else(|c| (*c).clone());
        updated = l.state.update_cluster(&mut cluster, &unapplied);
        app.cluster = Arc::new(cluster);
    }
    match &updated {
        Some(u) => update_usage(&mut app.usage, &mut l.unplaced, u, &app.features),
        None => {
            let cluster = match l.state.to_cluster() {
                Ok(c) => c,
                Err(e) => {
                    // the changes are not in the cluster shown: the next rebuild is whole
                    l.unapplied.set_whole();
                    app.error(format!("the cluster changed into something kschedtui cannot read: {e}"));
                    return Vec::new();
                }
            };
            let (usage, unplaced) = node_usage_and_unplaced(&cluster, &app.features);
            app.usage = usage;
            l.unplaced = unplaced;
            app.cluster = Arc::new(cluster);
        }
    }
    if let Some(u) = &updated {
        if pending_current {
            app.pending.apply(&app.cluster, &u.pods);
        }
        if rows_current {
            let mut rows = std::mem::take(&mut app.pod_rows);
            // when they cannot be, the refresh computes them whole
            let _applied = rows.apply(app, &u.pods);
            app.pod_rows = rows;
        }
    }
    app.pending.refresh(&app.cluster);
    // the what-if pods of :fit were in the cluster replaced now
    if app.fit.as_ref().is_some_and(|f| f.asked.is_none()) {
        app.fit = None;
    }
    if events_only {
        // The explanations stand: only what the pod view shows beside them changed.
        return Vec::new();
    }
    app.generation += 1;
    check_awaiting(app);
    let cluster = app.cluster.clone();
    let pending = |k: &ObjectKey| cluster.pod(k).is_some_and(|p| p.is_pending());
    app.explanations.retain(|k, _| pending(k));
    app.recent.retain(|k| pending(k));
    app.summaries.clear();
    // the gangs' passes were made on the cluster as it was
    app.groups.clear();
    app.gang_asked.clear();
    app.reasons += 1;
    explain_all(app)
}

pub(super) fn on_explained(app: &mut App, generation: u64, pod: ObjectKey, result: Explained) {
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
    app.reasons += 1;
    app.explanations.insert(pod.clone(), result);
    app.recent.retain(|k| *k != pod);
    app.recent.push_back(pod);
    // keep memory bounded on big clusters: drop the oldest full explanations not on screen
    let pinned = app.pinned();
    let keep = crate::app::full_keep(app.cluster.nodes.len());
    while app.explanations.len() > keep + pinned.len() {
        let Some(i) = app.recent.iter().position(|k| !pinned.contains(k)) else {
            break;
        };
        if let Some(k) = app.recent.remove(i) {
            app.explanations.remove(&k);
        }
    }
}

/// `-n NS` names a namespace the cluster does not have: the same error as `:ns NS`, and the
/// list shows every namespace instead of an empty one.
fn check_start_namespace(app: &mut App) {
    let Some(ns) = app.pods.namespace.clone() else { return };
    let all = crate::app::pod_list::namespaces(app);
    if all.contains(&ns) || app.cluster.namespaces.contains_key(&ns) {
        return;
    }
    app.pods.namespace = None;
    app.error(format!(
        "unknown namespace '{ns}' given with -n (namespaces with pods: {}); showing all namespaces",
        all.join(", ")
    ));
}

/// Forgets every explanation (the cluster changed).
pub(super) fn clear_explanations(app: &mut App) {
    app.explanations.clear();
    app.groups.clear();
    app.gang_asked.clear();
    app.fixes.clear();
    app.summaries.clear();
    app.reasons += 1;
    app.recent.clear();
}

/// Every kind was listed again (Ctrl-r, or the cluster was recreated under the same URL):
/// the store was replaced, so every pending pod is explained again on it, what-if edits are
/// dropped (they were made on objects that may be gone) and the next write uses its uids.
pub(super) fn on_replaced(app: &mut App, reason: &str) -> Vec<Effect> {
    let dropped = app.changes.len();
    let fx = rebuild_live(app, true);
    app.changes.clear();
    app.baseline = None;
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

/// Replaces the cluster after an in-memory change and re-explains.
pub(crate) fn set_cluster(app: &mut App, cluster: Cluster, change: String) -> Vec<Effect> {
    app.diff_base = app.focused_pod().and_then(|k| match app.explanations.get(&k) {
        Some(Ok(ex)) => Some(ex.clone()),
        _ => None,
    });
    app.diff = None;
    app.usage = node_usage(&cluster, &app.features);
    if let Some(l) = &mut app.live {
        // the cluster shown is no longer the store's
        l.unapplied.set_whole();
    }
    if app.baseline.is_none() {
        app.baseline = Some(app.cluster.clone());
    }
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

/// After a rebuild of the live cluster: preemptors whose victims are all gone are offered
/// for binding; preemptors that were bound or went away are forgotten.
pub(super) fn check_awaiting(app: &mut App) {
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

/// Ctrl-r: explains every pending pod again on the cluster as it is now (live: every kind is
/// listed again, never resumed from the watch, and what-if edits are dropped; a snapshot: the
/// same cluster).
pub(super) fn rerun(app: &mut App) -> Vec<Effect> {
    if app.load != Load::Ready {
        return Vec::new();
    }
    if app.live.is_some() {
        let dropped = app.changes.len();
        let mut fx = rebuild_live(app, true);
        fx.push(Effect::Relist);
        app.changes.clear();
        app.baseline = None;
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
