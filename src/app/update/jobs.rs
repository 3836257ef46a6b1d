//! Explain jobs: which pods are explained, in what order, and the gang passes asked for.

use std::sync::Arc;

use crate::app::{App, Effect, ExplainJob, FixJob, Load, Screen, fix};
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
    let mut pods: Vec<ObjectKey> = app.pending_pods().iter().map(|p| p.key.clone()).collect();
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

/// A pod of a gang was explained: its group's pass is asked for, once per group (the pod
/// list, the member's view and the gang screen tell the group's story from it). Not with a
/// `:profile` override, which explains every pod with a profile its group was not made for.
pub(super) fn gang_pass_job(app: &mut App, pod: &ObjectKey) -> Option<Effect> {
    if app.profile_override.is_some() {
        return None;
    }
    let group = app.summary(pod)?.as_ref().ok()?.gang.clone()?;
    if app.gang_asked.contains_key(&group) {
        return None;
    }
    app.gang_asked.insert(group, pod.clone());
    group_job(app, pod.clone())
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

/// Asks for the fixes of the pod on screen (pod view or fixes screen) once it is explained
/// and not scheduled, unless they are known or being checked.
pub(super) fn fix_jobs(app: &mut App) -> Vec<Effect> {
    if app.load != Load::Ready {
        return Vec::new();
    }
    let pod = match app.screen() {
        Some(Screen::Pod(v)) => v.pod.clone(),
        Some(Screen::Fixes(v)) => v.pod.clone(),
        _ => return Vec::new(),
    };
    if app.fixes.contains_key(&pod) {
        return Vec::new();
    }
    let Some(Ok(ex)) = app.explanation(&pod) else {
        return Vec::new();
    };
    if ex.schedulable() {
        return Vec::new();
    }
    let fixes = fix::candidates(&app.cluster, &app.usage, &app.features, &app.profiles, ex);
    if fixes.is_empty() {
        app.fixes.insert(pod, Some(Arc::new(Vec::new())));
        return Vec::new();
    }
    app.fixes.insert(pod.clone(), None);
    vec![Effect::Fixes(FixJob {
        generation: app.generation,
        cluster: app.cluster.clone(),
        profiles: app.profiles.clone(),
        features: app.features.clone(),
        profile: app.profile_override.clone(),
        pod,
        fixes,
    })]
}
