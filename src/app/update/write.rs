//! Writes: bind and preempt asked for, confirmed and planned, the reports of the live
//! cluster, and the permission checks made before the actions are offered.

use super::data::remaining_victims;
use crate::app::{Access, Action, App, AwaitingVictims, Effect, Load, Mode, Pending, Screen};
use crate::model::ObjectKey;
use crate::model::write::{Report, Step as WriteStep, WriteMode};

pub(super) fn on_written(app: &mut App, r: Result<Report, String>) {
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
pub(super) fn await_victims(app: &mut App, report: &Report) {
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
    // the node view's node, or the node the binding cycle binds the pod to (its writes known
    // without running the engine again)
    let planned = match app.screen() {
        Some(Screen::Node(v)) if v.pod.as_ref() == Some(&pod) => None,
        _ => summary
            .binding
            .as_ref()
            .map(|(n, w)| crate::model::write::bind_plan(&app.cluster, &pod, n, Some(w))),
    };
    let planned = planned.or_else(|| match app.screen() {
        Some(Screen::Node(v)) if v.pod.as_ref() == Some(&pod) => Some(
            app.binding_writes(&pod, &v.node)
                .map_err(|_| ())
                .and_then(|w| crate::model::write::bind_plan(&app.cluster, &pod, &v.node, w.as_ref()).map_err(|_| ()))
                .map_err(|()| crate::model::write::PlanError::NoNode(v.node.clone())),
        ),
        _ => None,
    });
    if let Some(Ok(plan)) = planned {
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
            .get(&crate::app::access_key(&r))
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
pub(super) fn join_denials(a: &str, b: &str) -> String {
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
/// than [`ACCESS_TTL`](crate::app::ACCESS_TTL)), on a live cluster that accepts writes.
pub(super) fn access_checks(app: &mut App) -> Vec<Effect> {
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
        let key = crate::app::access_key(&r);
        let fresh = l
            .access
            .get(&key)
            .is_some_and(|(a, t)| *a == Access::Checking || now - t < crate::app::ACCESS_TTL);
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

/// On a live cluster, a what-if pod of `:fit` does not exist on the server: nothing is sent
/// for it (binding it would be refused; evicting real pods for it would not be a what-if).
fn what_if_on_live(app: &App, pod: &ObjectKey, what: &str) -> Option<String> {
    let p = app.pod(pod)?;
    if app.live.is_none() || !crate::app::pod_list::is_what_if(app, p) {
        return None;
    }
    let path = app.fit.as_ref().map_or("FILE", |f| f.path.as_str());
    Some(format!(
        "cannot {what} {pod}: it is a what-if pod of :fit {path}, not on the cluster (kubectl apply -f {path} creates its workload)"
    ))
}

pub(super) fn request_bind(app: &mut App) {
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
    if let Some(e) = what_if_on_live(app, &pod, "bind") {
        app.error(e);
        return;
    }
    if !p.is_pending() {
        app.error(format!("pod {pod} has finished ({})", p.phase()));
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
    } else if let Some(first) = summary.host_pick.as_ref().or(summary.selected.first()) {
        let warning = (summary.selected.len() > 1).then(|| match &summary.host_pick {
            Some(pick) => format!(
                "{} nodes tie at the top ({}); kube-scheduler takes {pick} when they pass Filter in name order (on a real cluster the order can differ), this binds to {pick}",
                summary.selected.len(),
                summary.selected.join(", ")
            ),
            None => format!(
                "{} nodes tie at the top ({}); the scheduler picks one at random, this binds to {first}",
                summary.selected.len(),
                summary.selected.join(", ")
            ),
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
    // What the API server would refuse, a gang member binding alone, or what the scheduler
    // would write first that kschedtui cannot plan, is refused here, in snapshot mode too.
    let writes = match app.binding_writes(&pod, &node) {
        Ok(w) => w,
        Err(e) => {
            app.error(format!("cannot bind: {e}"));
            return;
        }
    };
    if let Err(e) = crate::model::write::bind_plan(&app.cluster, &pod, &node, writes.as_ref()) {
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

pub(super) fn request_preempt(app: &mut App) {
    if app.readonly {
        app.error("read-only mode (--readonly): preemption is disabled");
        return;
    }
    if app.live.as_ref().is_some_and(|l| l.writing) {
        app.error("a write is still being sent; wait for its result");
        return;
    }
    let Some(pod) = app.focused_pod() else { return };
    if let Some(e) = what_if_on_live(app, &pod, "preempt for") {
        app.error(e);
        return;
    }
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

pub(super) fn confirm(app: &mut App, pending: Pending, action: Action) -> Vec<Effect> {
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
