//! RemovePodsViolatingNodeTaints
//! (pkg/framework/plugins/removepodsviolatingnodetaints/node_taint.go): node by node, the
//! pods (the plugin's namespaces and labelSelector, both evictor filters) that do not
//! tolerate every taint of the node with effect NoSchedule (and PreferNoSchedule with
//! includePreferNoSchedule), among the taints includedTaints keeps (all when unset) and
//! excludedTaints does not drop (`key` or `key=value`). A node limit moves on to the next
//! node; the total limit ends the plugin.

use std::sync::Arc;

use super::Ctx;
use super::limits::EvictError;
use super::pods::PodFilter;
use super::policy::NodeTaintsArgs;
use crate::engine::plugins::helper::find_untolerated_taint;
use crate::model::{Node, Taint};

fn named(list: &[String], t: &Taint) -> bool {
    list.iter()
        .any(|x| *x == t.key || (!t.value.is_empty() && *x == format!("{}={}", t.key, t.value)))
}

/// Whether the plugin looks at this taint.
pub fn considered(args: &NodeTaintsArgs, t: &Taint) -> bool {
    let effect = t.effect == "NoSchedule" || (args.include_prefer_no_schedule && t.effect == "PreferNoSchedule");
    let excluded = args.excluded_taints.as_deref().is_some_and(|l| named(l, t));
    let included = args.included_taints.as_deref().is_none_or(|l| named(l, t));
    effect && !excluded && included
}

/// Deschedule.
pub fn deschedule(ctx: &mut Ctx<'_>, args: &NodeTaintsArgs, nodes: &[Arc<Node>]) {
    let filter = PodFilter::new(args.common.namespaces.as_ref(), args.common.label_selector.as_ref());
    'nodes: for n in nodes {
        for p in ctx.pods_on(&n.name) {
            if filter.rejects(&p).is_some() {
                continue;
            }
            let Some(t) = find_untolerated_taint(&n.taints, &p.tolerations, true, |t| considered(args, t)) else {
                continue;
            };
            let reason = format!(
                "does not tolerate taint {}{}:{} of node {}",
                t.key,
                if t.value.is_empty() {
                    String::new()
                } else {
                    format!("={}", t.value)
                },
                t.effect,
                n.name
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
