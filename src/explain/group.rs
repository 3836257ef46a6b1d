//! The gang as a whole (see [`crate::engine::group_cycle`]), as text and as the optional
//! `groupCycle` key of `explain -o json`.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::engine::group_cycle::{GroupCycle, GroupOutcome};

/// The text section.
pub(crate) fn render(g: &GroupCycle) -> String {
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
    if let Some(p) = &g.placements {
        render_placements(&mut s, p);
    }
    if let Some(p) = &g.preemption {
        for l in preemption_lines(p) {
            let _ = writeln!(s, "  {l}");
        }
    }
    s
}

/// Workload-aware preemption of the group as lines (the text report and the TUI's gang screen).
pub(crate) fn preemption_lines(p: &crate::engine::group_preemption::GroupPreemption) -> Vec<String> {
    use crate::engine::framework::status::Code;
    let mut out = vec![format!(
        "Workload-aware preemption by PodGroup {} (priority {}):",
        p.pod_group, p.priority
    )];
    let condition = if p.condition_kept {
        format!(
            "the PodGroup keeps its PodGroupScheduled=True condition (the cycle's status: {:?})",
            p.condition
        )
    } else if p.code == Code::Error {
        format!("the PodGroup's condition: SchedulerError {:?}", p.condition)
    } else {
        format!("the PodGroup's condition: Unschedulable {:?}", p.condition)
    };
    if p.code != Code::Success {
        out.push(format!("  not possible ({}): {}", p.code.as_str(), p.message));
        out.push(format!("  {condition}"));
        return out;
    }
    out.push(format!(
        "  preempts {} victim(s), most important first:",
        p.victims.len()
    ));
    for v in &p.victims {
        let pods: Vec<String> = v.pods.iter().map(ToString::to_string).collect();
        let what = match &v.pod_group {
            Some(g) => format!("PodGroup {g} as a unit: {}", pods.join(", ")),
            None => pods.join(", "),
        };
        let pdb = if v.violates_pdb { ", violates a PDB" } else { "" };
        out.push(format!("    {what} (priority {}{pdb})", v.priority));
    }
    out.push("  the group stays Unschedulable and waits for the victims to go".to_string());
    if !p.nominated.is_empty() {
        let m: Vec<String> = p.nominated.iter().map(|m| format!("{} → {}", m.pod, m.node)).collect();
        out.push(format!(
            "  nominated where the cycle found them a node: {}",
            m.join(", ")
        ));
    }
    out.push(format!("  {condition}"));
    out
}

/// The placements of 1.36's TopologyAwareWorkloadScheduling, indented under the gang.
fn render_placements(s: &mut String, p: &crate::engine::group_cycle::PlacementsTrace) {
    for l in placement_lines(p) {
        let _ = writeln!(s, "  {l}");
    }
}

/// The placements of 1.36's TopologyAwareWorkloadScheduling as lines (the text report and
/// the TUI's gang screen): the generator, each placement with its verdict and scores, the
/// ties, the group's status when none fits.
pub(crate) fn placement_lines(p: &crate::engine::group_cycle::PlacementsTrace) -> Vec<String> {
    let mut out = Vec::new();
    let by = match (&p.generator, &p.topology_key) {
        (Some(g), Some(k)) => format!("{g}, domains of {k}"),
        (Some(g), None) => format!("{g}; the PodGroup has no topology constraint: one placement of every node"),
        (None, _) => "no PlacementGenerate plugin: one placement of every node".to_string(),
    };
    out.push(format!("Placements ({by}):"));
    for t in &p.tried {
        let name = if t.name.is_empty() {
            "(every node)"
        } else {
            t.name.as_str()
        };
        let mark = match &p.chosen {
            Some(c) if *c == t.name => "  ← chosen",
            _ => "",
        };
        out.push(format!(
            "  {name} ({} node(s)): {}{mark}",
            t.nodes.len(),
            if t.fits {
                "the group fits"
            } else {
                "the group does not fit"
            }
        ));
        if let Some(sc) = p.scores.iter().find(|x| x.placement == t.name) {
            let parts: Vec<String> = sc
                .scores
                .iter()
                .map(|x| format!("{} {} → {} ×w = {}", x.plugin, x.raw, x.normalized, x.weighted))
                .collect();
            out.push(format!("    score {}: {}", sc.total, parts.join(", ")));
        }
    }
    if p.tied.len() > 1 {
        out.push(format!(
            "  tied at the best score: {} (upstream picks one at random; shown: the first)",
            p.tied.join(", ")
        ));
    }
    if let Some(m) = &p.message {
        out.push(format!("  {m}"));
    }
    out
}

/// The JSON value of the `groupCycle` key.
pub(crate) fn to_json(g: &GroupCycle) -> Value {
    let t = &g.gang;
    let mut v = json!({
        "plugin": t.plugin,
        "group": t.group,
        "minMember": t.min_member,
        "members": t.members,
        "boundBefore": g.bound_before,
        "timeoutMs": t.timeout_ms,
        "tried": g.members,
        "outcome": g.outcome,
        "verdict": g.verdict(),
    });
    if let (Some(p), Value::Object(m)) = (&g.placements, &mut v) {
        m.insert("placements".into(), serde_json::to_value(p).unwrap_or(Value::Null));
    }
    if let (Some(p), Value::Object(m)) = (&g.preemption, &mut v) {
        m.insert("preemption".into(), serde_json::to_value(p).unwrap_or(Value::Null));
    }
    v
}
