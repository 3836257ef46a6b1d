//! `kschedtui queue`: where every pending pod waits in the scheduling queue and what moves it
//! on, as text or JSON (see [`crate::engine::queue`]).

use std::fmt::Write;

use serde_json::{Value, json};

use crate::engine::framework::trace::Explanation;
use crate::engine::queue::{QueueEntry, entry};
use crate::model::Cluster;

/// The entries of the explained pods, in their order, with the attempts their
/// FailedScheduling events count.
pub(crate) fn entries(cluster: &Cluster, explanations: &[Explanation]) -> Vec<QueueEntry> {
    explanations
        .iter()
        .map(|ex| {
            let attempts = cluster
                .scheduling_events
                .get(&ex.pod)
                .and_then(|e| e.first())
                .map(|e| u32::try_from(e.count.max(1)).unwrap_or(1));
            entry(ex, attempts)
        })
        .collect()
}

/// The report as text: a table, then per pod what moves it.
pub(crate) fn render(entries: &[QueueEntry]) -> String {
    let mut s = String::new();
    if entries.is_empty() {
        return "no pending pods\n".into();
    }
    let w = entries
        .iter()
        .map(|e| e.pod.to_string().len())
        .max()
        .unwrap_or(3)
        .max(3);
    let pw = entries
        .iter()
        .map(|e| e.plugins.join(",").len())
        .max()
        .unwrap_or(7)
        .clamp(7, 40);
    let _ = writeln!(s, "{:<w$}  {:<22} {:<pw$}  WHY", "POD", "WHERE", "PLUGINS");
    for e in entries {
        let mut plugins = e.plugins.join(",");
        if plugins.len() > pw {
            plugins = format!("{} +{}", e.plugins[0], e.plugins.len() - 1);
        }
        let _ = writeln!(
            s,
            "{:<w$}  {:<22} {:<pw$}  {}",
            e.pod.to_string(),
            e.pool.describe(),
            plugins,
            short(&e.reason, 110)
        );
    }
    for e in entries.iter().filter(|e| !e.requeue_on.is_empty()) {
        let _ = writeln!(s, "\n{} ({}):", e.pod, e.pool.describe());
        if e.plugins.len() > 1 {
            let _ = writeln!(s, "  rejected by {}", e.plugins.join(", "));
        }
        if !e.writes_event {
            let _ = writeln!(
                s,
                "  no FailedScheduling event and no PodScheduled condition: the scheduler writes none for it"
            );
        }
        if let Some(b) = &e.backoff {
            let _ = writeln!(s, "  backoff {b}");
        }
        for r in &e.requeue_on {
            let _ = writeln!(s, "  moves on when {r}");
        }
    }
    s
}

/// `text` cut at `n` characters (with "…").
fn short(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        return text.to_string();
    }
    let cut: String = text.chars().take(n - 1).collect();
    format!("{cut}…")
}

/// The report as JSON: `{"apiVersion": "kschedtui/v1", "kind": "Queue", "pods": [...]}`.
pub(crate) fn to_json(entries: &[QueueEntry], release: &str) -> Value {
    json!({
        "apiVersion": "kschedtui/v1",
        "kind": "Queue",
        "schedulerVersion": release,
        "pods": entries,
    })
}
