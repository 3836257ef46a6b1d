//! RemovePodsHavingTooManyRestarts
//! (pkg/framework/plugins/removepodshavingtoomanyrestarts/toomanyrestarts.go): node by node,
//! the pods (the plugin's namespaces and labelSelector, both evictor filters, every phase)
//! whose containers restarted at least podRestartThreshold times in all (init containers too
//! with includingInitContainers), in one of the states when given (the phase, or a container
//! waiting reason), most restarts first. A node limit moves on to the next node; the total
//! limit ends the plugin.

use std::sync::Arc;

use super::Ctx;
use super::limits::EvictError;
use super::pods::PodFilter;
use super::policy::TooManyRestartsArgs;
use crate::model::{Node, Pod};

/// `getPodTotalRestarts`.
pub fn restarts(p: &Pod, init: bool) -> i32 {
    let st = p.obj.status.as_ref();
    let sum = |v: Option<&Vec<k8s_openapi::api::core::v1::ContainerStatus>>| -> i32 {
        v.into_iter().flatten().map(|c| c.restart_count).sum()
    };
    let mut n = sum(st.and_then(|s| s.container_statuses.as_ref()));
    if init {
        n += sum(st.and_then(|s| s.init_container_statuses.as_ref()));
    }
    n
}

fn waiting_in(p: &Pod, states: &[String], init: bool) -> bool {
    let st = p.obj.status.as_ref();
    let has = |v: Option<&Vec<k8s_openapi::api::core::v1::ContainerStatus>>| {
        v.into_iter().flatten().any(|c| {
            c.state
                .as_ref()
                .and_then(|s| s.waiting.as_ref())
                .and_then(|w| w.reason.as_ref())
                .is_some_and(|r| states.contains(r))
        })
    };
    has(st.and_then(|s| s.container_statuses.as_ref()))
        || (init && has(st.and_then(|s| s.init_container_statuses.as_ref())))
}

/// Deschedule.
pub fn deschedule(ctx: &mut Ctx<'_>, args: &TooManyRestartsArgs, nodes: &[Arc<Node>]) {
    let filter = PodFilter::new(args.common.namespaces.as_ref(), args.common.label_selector.as_ref());
    let init = args.including_init_containers;
    'nodes: for n in nodes {
        let mut pods: Vec<(i32, Arc<Pod>)> = ctx
            .all_pods_on(&n.name)
            .into_iter()
            .filter(|p| filter.rejects(p).is_none())
            .map(|p| (restarts(&p, init), p))
            .filter(|(r, _)| *r >= args.pod_restart_threshold)
            .filter(|(_, p)| {
                args.states.is_empty() || args.states.contains(&p.phase) || waiting_in(p, &args.states, init)
            })
            .collect();
        pods.sort_by_key(|(r, _)| std::cmp::Reverse(*r));
        for (r, p) in pods {
            let reason = format!(
                "{r} container restarts >= podRestartThreshold {}",
                args.pod_restart_threshold
            );
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
