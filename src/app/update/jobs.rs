//! Explain jobs: which pods are explained, in what order, and the gang passes asked for.

use super::data::{clear_explanations, rebuild_live};
use crate::app::{App, Effect, ExplainJob, Load, Screen};
use crate::model::ObjectKey;

pub(super) fn job(app: &App, pods: Vec<ObjectKey>) -> Effect {
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
pub(super) fn explain_all(app: &mut App) -> Vec<Effect> {
    // the focused pod is read from the rows of the cluster as it is now
    app.refresh_rows();
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
pub(super) fn group_job(app: &mut App, pod: ObjectKey) -> Option<Effect> {
    if app.groups.contains_key(&pod) {
        return None;
    }
    app.groups.insert(pod.clone(), None);
    Some(Effect::Group(crate::app::GroupJob {
        generation: app.generation,
        cluster: app.cluster.clone(),
        profiles: app.profiles.clone(),
        features: app.features.clone(),
        pod,
    }))
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
