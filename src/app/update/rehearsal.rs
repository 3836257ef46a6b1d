//! A confirmed bind or preemption in snapshot mode: the same plan a live cluster would get
//! ([`App::plan`]), executed by the one in-memory API server ([`crate::model::apiserver`])
//! with the release's behaviour, so the TUI, `kschedtui bind|preempt --snapshot` and
//! `simulate` change a cluster the same way; the report says what each request did.

use super::data::set_cluster;
use crate::app::{App, Effect, Pending};
use crate::model::apiserver;
use crate::model::write::{Plan, Removal, Report, Step, WriteMode};

/// What the snapshot note says: nothing left the process.
pub(super) const SNAPSHOT_NOTE: &str =
    "snapshot mode: nothing was sent to a cluster; the change stays in memory (the file is unchanged)";

fn first_failure(report: &Report) -> Option<String> {
    report
        .steps
        .iter()
        .zip(&report.plan.requests)
        .find_map(|(s, r)| match s {
            Step::Failed(e) if r.critical() => Some(e.to_string()),
            _ => None,
        })
}

fn names(v: &[crate::model::ObjectKey]) -> String {
    if v.is_empty() {
        return "none".to_string();
    }
    v.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// Executes the plan in memory and reports it as the status line.
pub(super) fn rehearse(app: &mut App, pending: &Pending, plan: &Plan) -> Vec<Effect> {
    let mut cluster = (*app.cluster).clone();
    let report = apiserver::execute(&mut cluster, plan, WriteMode::Enabled, &app.features.server_options());
    let removed = report.victims_removed();
    let failure = first_failure(&report);
    match (pending, failure) {
        (Pending::Bind { pod, node, .. }, None) => {
            let what = format!("bound {pod} to {node}");
            // where a real cluster would wait for a controller (a provisioner), say so
            let waits: String = report
                .steps
                .iter()
                .filter_map(|s| match s {
                    Step::Done(crate::model::write::Outcome::NotWaited(why)) => Some(format!("; {why}")),
                    _ => None,
                })
                .collect();
            let effects = set_cluster(app, cluster, what.clone());
            app.diff_base = None;
            app.screens.clear();
            app.info(format!("{what}{waits} — {SNAPSHOT_NOTE}"));
            effects
        }
        (Pending::Bind { pod, node, .. }, Some(e)) => {
            app.error(format!("cannot bind {pod} to {node}: {e} — {SNAPSHOT_NOTE}"));
            Vec::new()
        }
        (Pending::Preempt { pod, node, victims }, None) => {
            let what = match app.removal {
                Removal::Evict => {
                    format!(
                        "preempted for {pod} on {node}: evicted {} (Eviction API)",
                        names(victims)
                    )
                }
                Removal::Delete => format!("preempted for {pod} on {node}: deleted {}", names(victims)),
            };
            let effects = set_cluster(app, cluster, what.clone());
            app.info(format!("{what} — {SNAPSHOT_NOTE}"));
            effects
        }
        (Pending::Preempt { pod, node, victims }, Some(refusal)) => {
            let left: Vec<_> = victims.iter().filter(|v| !removed.contains(v)).cloned().collect();
            let verb = match app.removal {
                Removal::Evict => "evicted",
                Removal::Delete => "deleted",
            };
            let what = format!(
                "preemption incomplete: {verb} {} of {} victim(s) ({}); not {verb}: {}; {node} was not nominated: {refusal}",
                removed.len(),
                victims.len(),
                names(&removed),
                names(&left)
            );
            // what was applied stays applied, as on a live cluster
            let effects = if removed.is_empty() {
                Vec::new()
            } else {
                set_cluster(app, cluster, format!("{verb} {} for {pod}", names(&removed)))
            };
            app.error(format!("{what} — {SNAPSHOT_NOTE}"));
            effects
        }
    }
}
