//! The `:deschedule FILE` screen's data: the descheduler dry run of a policy on the cluster
//! as it is now, as rows (one per plugin, then one per pod it considered, with where the
//! evicted pod's replacement lands or why the pod stays). Computed from the engine's report
//! by [`rows_of`]; the run itself is an [`Effect::Deschedule`](super::Effect) (it reads the
//! policy file).

use crate::engine::deschedule::Outcome;
use crate::engine::deschedule::reschedule::Landing;
use crate::explain::deschedule::{DryRun, landing_text, outcome_name, outcome_why};
use crate::model::ObjectKey;

/// What a row shows, for its style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// A plugin's run (the rows below it are its pods).
    Plugin,
    /// Evicted; the replacement lands on another node.
    Moved,
    /// Evicted; the replacement returns to the same node.
    SameNode,
    /// Evicted; the replacement stays Pending (or waits, or is held).
    Pending,
    /// Evicted; nothing recreates it.
    NotRecreated,
    /// Not evicted: protected, cut by a limit, refused, or skipped.
    Kept,
}

/// One row of the screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescheduleRow {
    /// `profile · point · plugin`.
    pub plugin: String,
    /// The pod (None on a plugin row).
    pub pod: Option<ObjectKey>,
    /// The pod's node.
    pub node: String,
    /// `Evicted`, `Protected`, `Limited`, `Refused`, `Skipped`; on a plugin row, its tally.
    pub outcome: String,
    /// For an evicted pod where its replacement lands; otherwise why the pod stays.
    pub result: String,
    /// What it is.
    pub kind: RowKind,
    /// The lines of the detail panel: the rule and numbers, the outcome, the landing; on a
    /// plugin row, the plugin's notes.
    pub detail: Vec<String>,
}

/// A finished dry run, as shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescheduleReport {
    /// One line: the time, the nodes, the limits (the policy file is the screen's title).
    pub header: String,
    /// One line: how the evictions end.
    pub summary: String,
    /// The rows.
    pub rows: Vec<DescheduleRow>,
}

/// `:deschedule FILE`: the run asked for, and its result once it arrived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescheduleState {
    /// The policy file, as typed.
    pub path: String,
    /// The cluster generation it runs on.
    pub generation: u64,
    /// None while it runs; the report, or why there is none.
    pub result: Option<Result<DescheduleReport, String>>,
}

impl DescheduleState {
    /// The rows (none while running or after an error).
    pub fn rows(&self) -> &[DescheduleRow] {
        match &self.result {
            Some(Ok(r)) => &r.rows,
            _ => &[],
        }
    }
}

/// The screen's rows from the engine's report.
pub fn rows_of(d: &DryRun) -> DescheduleReport {
    let c = &d.cycle;
    let limits: Vec<String> = crate::explain::deschedule::LIMIT_NAMES
        .iter()
        .zip(d.limits)
        .filter_map(|(n, v)| v.map(|v| format!("{n} {v}")))
        .collect();
    let header = format!(
        "at {} · {} node(s) · limits: {}",
        c.now,
        c.nodes.len(),
        if limits.is_empty() {
            "none".to_string()
        } else {
            limits.join(", ")
        }
    );
    let mut rows = Vec::new();
    if let Some(why) = &c.skipped {
        return DescheduleReport {
            header,
            summary: why.clone(),
            rows,
        };
    }
    for r in &c.runs {
        let plugin = format!("{} · {} · {}", r.profile, r.point.name(), r.plugin);
        let evicted = r.candidates.iter().filter(|x| x.outcome == Outcome::Evicted).count();
        let kept = r.candidates.len() - evicted;
        let mut notes = r.notes.clone();
        notes.extend(r.error.iter().map(|e| format!("error: {e}")));
        if notes.is_empty() && r.candidates.is_empty() {
            notes.push("No pod qualifies: the plugin evicts nothing on this cluster.".into());
        }
        rows.push(DescheduleRow {
            plugin: plugin.clone(),
            pod: None,
            node: String::new(),
            outcome: if r.candidates.is_empty() {
                "no candidate".into()
            } else {
                format!("{evicted} evicted, {kept} kept")
            },
            result: String::new(),
            kind: RowKind::Plugin,
            detail: notes,
        });
        for x in &r.candidates {
            let mut detail = vec![format!("{} on {}: {}", x.pod, x.node, x.reason)];
            let (kind, result) = match (&x.outcome, d.replacement_of(&x.pod)) {
                (Outcome::Evicted, Some(rep)) => {
                    let kind = match &rep.landing {
                        Landing::Node { same: false, .. } => RowKind::Moved,
                        Landing::Node { same: true, .. } => RowKind::SameNode,
                        Landing::NotRecreated(_) => RowKind::NotRecreated,
                        Landing::Pending(_) | Landing::Waiting(_) | Landing::Held(_) => RowKind::Pending,
                    };
                    let owner = rep.owner.as_ref().map(|o| format!(" by {o}")).unwrap_or_default();
                    match &rep.replacement {
                        Some(k) => detail.push(format!("Evicted in memory; recreated{owner} as {k}")),
                        None => detail.push("Evicted in memory".into()),
                    }
                    let text = landing_text(rep);
                    detail.push(text.clone());
                    (kind, text)
                }
                (Outcome::Evicted, None) => (RowKind::Pending, "evicted".into()),
                (o, _) => {
                    let why = outcome_why(o);
                    detail.push(why.clone());
                    (RowKind::Kept, why)
                }
            };
            rows.push(DescheduleRow {
                plugin: plugin.clone(),
                pod: Some(x.pod.clone()),
                node: x.node.clone(),
                outcome: outcome_name(&x.outcome).to_string(),
                result,
                kind,
                detail,
            });
        }
    }
    let k = d.counts(None);
    let summary = format!(
        "{} evicted: {} moved, {} back on the same node, {} Pending, {} not recreated",
        k.evicted,
        k.moved,
        k.same_node,
        k.pending + k.other,
        k.not_recreated
    );
    DescheduleReport { header, summary, rows }
}
