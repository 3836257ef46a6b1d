//! RemoveFailedPods (pkg/framework/plugins/removefailedpods/failedpods.go): node by node,
//! the pods in phase Failed (the plugin's namespaces and labelSelector, both evictor filters)
//! at least minPodLifetimeSeconds old (3600 by default), whose owner kinds are not excluded,
//! with one of the reasons (container waiting/terminated reasons, the pod's status.reason,
//! the init containers' with includingInitContainers) and exit codes when those are given. A
//! node limit moves on to the next node; the total limit ends the plugin.

use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;

use super::Ctx;
use super::limits::EvictError;
use super::pods::{PodFilter, age_seconds, created, go_duration, owner_refs};
use super::policy::FailedPodsArgs;
use crate::model::{Node, Pod};

fn reasons(statuses: Option<&Vec<core::ContainerStatus>>) -> Vec<String> {
    let mut out = Vec::new();
    for cs in statuses.into_iter().flatten() {
        let st = cs.state.as_ref();
        if let Some(r) = st
            .and_then(|s| s.waiting.as_ref())
            .and_then(|w| w.reason.clone())
            .filter(|r| !r.is_empty())
        {
            out.push(r);
        }
        if let Some(r) = st
            .and_then(|s| s.terminated.as_ref())
            .and_then(|t| t.reason.clone())
            .filter(|r| !r.is_empty())
        {
            out.push(r);
        }
    }
    out
}

/// Exit codes of the terminated containers.
pub fn exit_codes(statuses: Option<&Vec<core::ContainerStatus>>) -> Vec<i32> {
    statuses
        .into_iter()
        .flatten()
        .filter_map(|cs| cs.state.as_ref()?.terminated.as_ref().map(|t| t.exit_code))
        .collect()
}

/// `validateCanEvict`: Ok with what qualifies the pod, or why it does not.
fn can_evict(p: &Pod, a: &FailedPodsArgs, now: k8s_openapi::jiff::Timestamp) -> Result<String, String> {
    let mut errs = Vec::new();
    let age = age_seconds(created(p), now).max(0);
    if let Some(min) = a.min_pod_lifetime_seconds
        && (age as u64) < min
    {
        errs.push(format!("pod does not exceed the min age seconds of {min}"));
    }
    for o in owner_refs(p) {
        if a.exclude_owner_kinds.contains(&o.kind) {
            errs.push(format!("pod's owner kind of {} is excluded", o.kind));
        }
    }
    let st = p.obj.status.as_ref();
    if !a.reasons.is_empty() {
        let mut rs = reasons(st.and_then(|s| s.container_statuses.as_ref()));
        if let Some(r) = st.and_then(|s| s.reason.clone()).filter(|r| !r.is_empty()) {
            rs.push(r);
        }
        if a.including_init_containers {
            rs.extend(reasons(st.and_then(|s| s.init_container_statuses.as_ref())));
        }
        if !rs.iter().any(|r| a.reasons.contains(r)) {
            errs.push("pod does not match any of the reasons".into());
        }
    }
    if !a.exit_codes.is_empty() {
        let mut codes = exit_codes(st.and_then(|s| s.container_statuses.as_ref()));
        if a.including_init_containers {
            codes.extend(exit_codes(st.and_then(|s| s.init_container_statuses.as_ref())));
        }
        if !codes.iter().any(|c| a.exit_codes.contains(c)) {
            errs.push("pod does not match any of the exitCodes".into());
        }
    }
    if !errs.is_empty() {
        return Err(errs.join(", "));
    }
    let reason = st.and_then(|s| s.reason.clone()).filter(|r| !r.is_empty());
    Ok(format!(
        "phase Failed{}, age {}{}",
        reason.map(|r| format!(" ({r})")).unwrap_or_default(),
        go_duration(age as f64),
        a.min_pod_lifetime_seconds
            .map(|m| format!(" >= minPodLifetimeSeconds {m}"))
            .unwrap_or_default()
    ))
}

/// Deschedule.
pub fn deschedule(ctx: &mut Ctx<'_>, args: &FailedPodsArgs, nodes: &[Arc<Node>]) {
    let filter = PodFilter::new(args.common.namespaces.as_ref(), args.common.label_selector.as_ref());
    'nodes: for n in nodes {
        for p in ctx.all_pods_on(&n.name) {
            if p.phase != "Failed" || filter.rejects(&p).is_some() {
                continue;
            }
            let Ok(reason) = can_evict(&p, args, ctx.now) else {
                continue;
            };
            if let Err(why) = ctx.both_filters(&p) {
                ctx.protected(&p, reason, why);
                continue;
            }
            match ctx.evict(&p, reason) {
                Ok(()) => {}
                Err(EvictError::Node) => continue 'nodes,
                Err(EvictError::Total) => return,
                Err(_) => {}
            }
        }
    }
}
