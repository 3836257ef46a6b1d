//! The node list (`:nodes`): capacity use per node and, when a pod is in focus, whether it fits.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table};

use super::{ViewState, block, record_rows};
use crate::app::analysis::{ZONE_LABEL, classify};
use crate::app::update::node_list_rows;
use crate::app::{App, NodeList, format};
use crate::tui::theme::Theme;

fn pct(used: i64, alloc: i64) -> String {
    if alloc > 0 {
        format!("{}%", used * 100 / alloc)
    } else {
        "-".into()
    }
}

/// Draws the node list.
pub fn render(app: &App, v: &NodeList, theme: &Theme, view: &mut ViewState, frame: &mut Frame<'_>, area: Rect) {
    let names = node_list_rows(app, v);
    let ex = v.pod.as_ref().and_then(|k| match app.explanation(k) {
        Some(Ok(ex)) => Some(ex.clone()),
        _ => None,
    });
    let mut title = vec![Span::raw(format!(" Nodes ({}) ", names.len()))];
    if let Some(e) = &ex {
        title.push(Span::styled(format!("· fit of {} ", e.pod), theme.muted));
    }
    if !v.query.is_empty() {
        title.push(Span::styled(format!("· /{} ", v.query), theme.search_match));
    }
    let b = block(theme, Line::from(title));
    let inner = b.inner(area);
    frame.render_widget(b, area);
    if names.is_empty() {
        frame.render_widget(Paragraph::new(Span::styled("No node.", theme.muted)), inner);
        return;
    }
    let wide = inner.width >= 110;
    // the request columns are as wide as their widest value, so no unit is cut ("953.7Mi 100%")
    let (mut cpu_w, mut mem_w) = ("CPU REQ".len(), "MEM REQ".len());
    for n in names.iter().filter_map(|n| app.cluster.node(n)) {
        let u = app.usage.get(&n.name).cloned().unwrap_or_default();
        let a = &n.allocatable;
        cpu_w = cpu_w.max(
            format!(
                "{}/{} {}",
                format::cpu(u.requested.milli_cpu),
                format::cpu(a.milli_cpu),
                pct(u.requested.milli_cpu, a.milli_cpu)
            )
            .chars()
            .count(),
        );
        mem_w = mem_w.max(
            format!(
                "{} {}",
                format::bytes(u.requested.memory),
                pct(u.requested.memory, a.memory)
            )
            .chars()
            .count(),
        );
    }
    let rows: Vec<Row<'_>> = names
        .iter()
        .filter_map(|n| app.cluster.node(n))
        .map(|n| {
            let u = app.usage.get(&n.name).cloned().unwrap_or_default();
            let a = &n.allocatable;
            let mut cells = vec![
                Cell::from(Span::styled(n.name.clone(), theme.accent)),
                Cell::from(Span::styled(
                    n.labels.get(ZONE_LABEL).cloned().unwrap_or_default(),
                    theme.muted,
                )),
                Cell::from(format!(
                    "{}/{} {}",
                    format::cpu(u.requested.milli_cpu),
                    format::cpu(a.milli_cpu),
                    pct(u.requested.milli_cpu, a.milli_cpu)
                )),
                Cell::from(format!(
                    "{} {}",
                    format::bytes(u.requested.memory),
                    pct(u.requested.memory, a.memory)
                )),
                Cell::from(format!("{}/{}", u.pods.len(), a.allowed_pod_number)),
            ];
            if wide {
                let t: Vec<String> = n.taints.iter().map(|t| format!("{}:{}", t.key, t.effect)).collect();
                cells.push(Cell::from(Span::styled(t.join(", "), theme.muted)));
            }
            let fit = ex
                .as_ref()
                .and_then(|e| e.filter.iter().find(|f| f.node == n.name))
                .map(|f| {
                    let c = classify(f);
                    let style = match c {
                        crate::app::analysis::FilterClass::Fit => theme.ok,
                        crate::app::analysis::FilterClass::NearlyFit => theme.warn,
                        _ => theme.fail,
                    };
                    let what = f
                        .failure
                        .as_ref()
                        .map(|x| format!(" ({})", x.plugin))
                        .unwrap_or_default();
                    Span::styled(format!("{}{what}", c.label()), style)
                });
            let mut state = if n.unschedulable {
                vec![Span::styled("cordoned ", theme.fail)]
            } else {
                vec![]
            };
            state.extend(fit);
            cells.push(Cell::from(Line::from(state)));
            Row::new(cells)
        })
        .collect();
    let node_w = names.iter().map(|n| n.chars().count()).max().unwrap_or(4).clamp(4, 32);
    let mut widths = vec![
        Constraint::Length(u16::try_from(node_w).unwrap_or(32)),
        Constraint::Length(8),
        Constraint::Length(u16::try_from(cpu_w.max(15)).unwrap_or(15)),
        Constraint::Length(u16::try_from(mem_w.max(11)).unwrap_or(11)),
        Constraint::Length(8),
    ];
    let mut header = vec!["NODE", "ZONE", "CPU REQ", "MEM REQ", "PODS"];
    if wide {
        widths.push(Constraint::Length(36));
        header.push("TAINTS");
    }
    widths.push(Constraint::Min(8));
    header.push(if ex.is_some() { "STATE / FIT" } else { "STATE" });
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.header))
        .row_highlight_style(theme.selected)
        .column_spacing(1);
    view.nodes.select(Some(v.selected.min(names.len() - 1)));
    frame.render_stateful_widget(table, inner, &mut view.nodes);
    record_rows(view, inner, view.nodes.offset());
}
