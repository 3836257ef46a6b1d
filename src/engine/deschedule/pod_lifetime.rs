//! PodLifeTime (pkg/framework/plugins/podlifetime/pod_lifetime.go): the pods of every node
//! (the plugin's namespaces and labelSelector, both evictor filters, every phase) older than
//! maxPodLifeTimeSeconds, in one of the states (phase, status.reason, container waiting or
//! terminated reasons; init and ephemeral containers when asked), of the owner kinds, with a
//! matching condition or exit code, when each is given; evicted oldest first. A node limit
//! skips that pod; the total limit ends the plugin.

use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::jiff::Timestamp;

use super::Ctx;
use super::failed_pods::exit_codes;
use super::limits::EvictError;
use super::pods::{PodFilter, age_seconds, created, go_duration, owner_refs};
use super::policy::PodLifeTimeArgs;
use crate::model::{Node, Pod};

fn state_reasons(v: Option<&Vec<core::ContainerStatus>>, states: &[String]) -> bool {
    v.into_iter().flatten().any(|c| {
        let st = c.state.as_ref();
        st.and_then(|s| s.waiting.as_ref())
            .and_then(|w| w.reason.as_ref())
            .is_some_and(|r| states.contains(r))
            || st
                .and_then(|s| s.terminated.as_ref())
                .and_then(|t| t.reason.as_ref())
                .is_some_and(|r| states.contains(r))
    })
}

/// The pod qualifies: why, or None.
fn qualifies(p: &Pod, a: &PodLifeTimeArgs, now: Timestamp) -> Option<String> {
    let mut why = Vec::new();
    let age = age_seconds(created(p), now);
    if let Some(max) = a.max_pod_life_time_seconds {
        if age < 0 || (age as u64) <= max {
            return None;
        }
        why.push(format!("age {} > maxPodLifeTimeSeconds {max}", go_duration(age as f64)));
    }
    let st = p.obj.status.as_ref();
    if !a.states.is_empty() {
        let reason = st.and_then(|s| s.reason.clone()).unwrap_or_default();
        let ok = a.states.contains(&p.phase)
            || a.states.contains(&reason)
            || state_reasons(st.and_then(|s| s.container_statuses.as_ref()), &a.states)
            || (a.including_init_containers
                && state_reasons(st.and_then(|s| s.init_container_statuses.as_ref()), &a.states))
            || (a.including_ephemeral_containers
                && state_reasons(st.and_then(|s| s.ephemeral_container_statuses.as_ref()), &a.states));
        if !ok {
            return None;
        }
        why.push(format!("in one of the states {}", a.states.join(", ")));
    }
    if let Some(k) = &a.owner_kinds {
        let kinds: Vec<&str> = owner_refs(p).iter().map(|o| o.kind.as_str()).collect();
        if !k.include.is_empty() {
            if !kinds.iter().any(|x| k.include.iter().any(|i| i == x)) {
                return None;
            }
        } else if kinds.iter().any(|x| k.exclude.iter().any(|e| e == x)) {
            return None;
        }
    }
    if !a.conditions.is_empty() {
        let conds = st.and_then(|s| s.conditions.as_ref());
        let hit = a.conditions.iter().any(|f| {
            conds.into_iter().flatten().any(|c| {
                if (!f.type_.is_empty() && c.type_ != f.type_)
                    || (!f.status.is_empty() && c.status != f.status)
                    || (!f.reason.is_empty() && c.reason.as_deref().unwrap_or("") != f.reason)
                {
                    return false;
                }
                match f.min_time_since_last_transition_seconds {
                    None => true,
                    Some(min) => c.last_transition_time.as_ref().is_some_and(|t| {
                        let idle = age_seconds(Some(t.0), now);
                        idle >= 0 && idle as u64 >= min
                    }),
                }
            })
        });
        if !hit {
            return None;
        }
        why.push("a condition matches".into());
    }
    if !a.exit_codes.is_empty() {
        let mut codes = exit_codes(st.and_then(|s| s.container_statuses.as_ref()));
        if a.including_init_containers {
            codes.extend(exit_codes(st.and_then(|s| s.init_container_statuses.as_ref())));
        }
        if !codes.iter().any(|c| a.exit_codes.contains(c)) {
            return None;
        }
        why.push("an exit code matches".into());
    }
    Some(why.join(", "))
}

/// Deschedule.
pub fn deschedule(ctx: &mut Ctx<'_>, args: &PodLifeTimeArgs, nodes: &[Arc<Node>]) {
    let filter = PodFilter::new(args.common.namespaces.as_ref(), args.common.label_selector.as_ref());
    let mut pods: Vec<(String, Arc<Pod>)> = Vec::new();
    for n in nodes {
        for p in ctx.all_pods_on(&n.name) {
            if filter.rejects(&p).is_some() {
                continue;
            }
            let Some(reason) = qualifies(&p, args, ctx.now) else {
                continue;
            };
            pods.push((reason, p));
        }
    }
    pods.sort_by_key(|(_, p)| created(p));
    for (reason, p) in pods {
        if let Err(why) = ctx.both_filters(&p) {
            ctx.protected(&p, reason, why);
            continue;
        }
        match ctx.evict(&p, reason) {
            Ok(()) | Err(EvictError::Node) => {}
            Err(EvictError::Total) => return,
            Err(_) => {}
        }
    }
}
