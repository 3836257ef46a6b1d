//! The DRA panel of the pod view: the pod's resource claims, and for each node that has
//! devices what they give each request (how the candidates narrow down, the devices that
//! nearly fit, the allocation that would be made).

use ratatui::text::{Line, Span};

use crate::engine::framework::trace::{DraTrace, Explanation};
use crate::tui::theme::Theme;

/// The panel's lines (none for a pod without claims).
pub(super) fn lines(ex: &Explanation, theme: &Theme) -> Vec<Line<'static>> {
    let Some(d) = &ex.dra else {
        return Vec::new();
    };
    claims_lines(d, theme)
}

fn claims_lines(d: &DraTrace, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled("Resource claims:", theme.header))];
    for c in &d.claims {
        let name = match &c.claim {
            Some(k) => format!("{} → {k}", c.pod_claim),
            None if c.pod_claim.is_empty() => "extended resources".to_string(),
            None => c.pod_claim.clone(),
        };
        let style = if c.state.starts_with("allocated") || c.state == "to allocate" {
            theme.muted
        } else {
            theme.fail
        };
        out.push(Line::from(vec![
            Span::raw(format!("  {name}: ")),
            Span::styled(c.state.clone(), style),
        ]));
        for r in &c.requests {
            out.push(Line::from(Span::styled(format!("    {r}"), theme.muted)));
        }
        if !c.devices.is_empty() {
            out.push(Line::from(format!("    devices: {}", c.devices.join(", "))));
        }
        if !c.reserved_for.is_empty() {
            out.push(Line::from(format!("    reserved for: {}", c.reserved_for.join(", "))));
        }
    }
    let with_devices: Vec<_> = d
        .nodes
        .iter()
        .filter(|n| n.requests.iter().any(|r| r.devices > 0) || !n.verdict.contains("(the node already failed"))
        .collect();
    if !with_devices.is_empty() {
        out.push(Line::from(""));
        out.push(Line::from(Span::styled("Nodes with devices:", theme.header)));
    }
    for n in &with_devices {
        let style = if n.allocation.is_empty() { theme.fail } else { theme.ok };
        out.push(Line::from(vec![
            Span::styled(format!("  {}: ", n.node), theme.accent),
            Span::styled(n.verdict.clone(), style),
        ]));
        for r in &n.requests {
            out.push(Line::from(format!("    {}", r.summary())));
            for x in &r.near {
                out.push(Line::from(Span::styled(format!("      {x}"), theme.muted)));
            }
        }
        if !n.allocation.is_empty() {
            out.push(Line::from(Span::styled(
                format!("    would get {}", n.allocation.join(", ")),
                theme.ok,
            )));
        }
    }
    let hidden = d.nodes.len() - with_devices.len();
    if hidden > 0 {
        out.push(Line::from(Span::styled(
            format!("  ({hidden} more node(s) without devices, rejected by other plugins)"),
            theme.muted,
        )));
    }
    out
}
