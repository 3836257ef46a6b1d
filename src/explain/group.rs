//! The gang as a whole (see [`crate::engine::group_cycle`]), as text and as the optional
//! `groupCycle` key of `explain -o json`.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::engine::group_cycle::{GroupCycle, GroupOutcome};

/// The text section.
pub fn render(g: &GroupCycle) -> String {
    let t = &g.gang;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nGang as a whole ({}; its pending members tried one after another, {} already on a node):",
        t.plugin, g.bound_before
    );
    let _ = writeln!(s, "  {}", g.verdict());
    let w = g
        .members
        .iter()
        .map(|m| m.pod.to_string().chars().count())
        .max()
        .unwrap_or(3);
    for m in &g.members {
        let blocker = match &g.outcome {
            GroupOutcome::Short { blockers, .. } if blockers.contains(&m.pod) => "  ← blocks the group",
            _ => "",
        };
        let _ = writeln!(s, "  {:<w$}  {}{blocker}", m.pod.to_string(), m.result.describe());
    }
    s
}

/// The JSON value of the `groupCycle` key.
pub fn to_json(g: &GroupCycle) -> Value {
    let t = &g.gang;
    json!({
        "plugin": t.plugin,
        "group": t.group,
        "minMember": t.min_member,
        "members": t.members,
        "boundBefore": g.bound_before,
        "timeoutMs": t.timeout_ms,
        "tried": g.members,
        "outcome": g.outcome,
        "verdict": g.verdict(),
    })
}
