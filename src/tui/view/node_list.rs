//! The node list (`:nodes`): capacity use per node and, when a pod is in focus, whether it fits.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};

use super::{ViewState, block, record_rows, window};
use crate::app::analysis::{ZONE_LABEL, class_for, nominated_usage};
use crate::app::node_list::{cpu_text, mem_text};
use crate::app::{App, NodeList};
use crate::tui::theme::Theme;

/// Draws the node list: only the rows on screen are built (the rows and the column widths are
/// kept in the app).
pub(super) fn render(app: &App, v: &NodeList, theme: &Theme, view: &mut ViewState, frame: &mut Frame<'_>, area: Rect) {
    let rows = app.node_rows(v);
    let ex = v.pod.as_ref().and_then(|k| match app.explanation(k) {
        Some(Ok(ex)) => Some(ex.clone()),
        _ => None,
    });
    let mut title = vec![
        Span::raw(format!(" Nodes ({}) ", rows.len())),
        Span::styled(
            format!("· sort {}{} ", v.sort.name(), v.sort.arrow(v.reverse)),
            theme.muted,
        ),
    ];
    if let Some(e) = &ex {
        title.push(Span::styled(format!("· fit of {} ", e.pod), theme.muted));
    }
    if !v.query.is_empty() {
        title.push(Span::styled(format!("· /{} ", v.query), theme.search_match));
    }
    let b = block(theme, Line::from(title));
    let inner = b.inner(area);
    frame.render_widget(b, area);
    if rows.is_empty() {
        frame.render_widget(Paragraph::new(Span::styled("No node.", theme.muted)), inner);
        return;
    }
    let wide = inner.width >= 110;
    // the request columns are as wide as their widest value, so no unit is cut ("953.7Mi 100%")
    let w = rows.widths();
    let sel = v.selected.min(rows.len() - 1);
    let (start, end) = window(
        view.nodes.offset(),
        sel,
        rows.len(),
        usize::from(inner.height.saturating_sub(1)),
    );
    let focus = v.pod.as_ref().and_then(|k| app.pod(k));
    let nominated = focus
        .map(|p| nominated_usage(&app.cluster, p, &app.features))
        .unwrap_or_default();
    let table_rows: Vec<Row<'_>> = rows
        .nodes(app, start..end)
        .map(|n| {
            let u = app.usage.get(&n.name);
            let a = &n.allocatable;
            let mut cells = vec![
                Cell::from(Span::styled(n.name.clone(), theme.accent)),
                Cell::from(Span::styled(
                    n.labels.get(ZONE_LABEL).cloned().unwrap_or_default(),
                    theme.muted,
                )),
                Cell::from(cpu_text(n, u, rows.cpu_unit())),
                Cell::from(mem_text(n, u)),
                Cell::from(format!("{}/{}", u.map_or(0, |u| u.pods.len()), a.allowed_pod_number)),
            ];
            if wide {
                let t: Vec<String> = n.taints.iter().map(|t| format!("{}:{}", t.key, t.effect)).collect();
                cells.push(Cell::from(Span::styled(t.join(", "), theme.muted)));
            }
            let fit = ex
                .as_ref()
                .and_then(|e| e.filter.iter().find(|f| f.node == n.name))
                .map(|f| {
                    let c = class_for(
                        f,
                        focus.map(|p| &**p),
                        Some(n),
                        app.usage.get(&n.name),
                        nominated.get(&n.name),
                        &app.features,
                    );
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
    let node_w = w.node.clamp(4, 32);
    let mut widths = vec![
        Constraint::Length(u16::try_from(node_w).unwrap_or(32)),
        Constraint::Length(8),
        Constraint::Length(u16::try_from(w.cpu.max(15)).unwrap_or(15)),
        Constraint::Length(u16::try_from(w.mem.max(11)).unwrap_or(11)),
        Constraint::Length(8),
    ];
    let mut header = vec!["NODE", "ZONE", "CPU REQ", "MEM REQ", "PODS"];
    if wide {
        widths.push(Constraint::Length(36));
        header.push("TAINTS");
    }
    widths.push(Constraint::Min(8));
    header.push(if ex.is_some() { "STATE / FIT" } else { "STATE" });
    // the sorted column carries the direction, as in k9s
    let header: Vec<String> = header
        .into_iter()
        .map(|c| {
            if c.starts_with(v.sort.column()) {
                format!("{c}{}", v.sort.arrow(v.reverse))
            } else {
                c.to_string()
            }
        })
        .collect();
    let table = Table::new(table_rows, widths)
        .header(Row::new(header).style(theme.header))
        .row_highlight_style(theme.selected)
        .column_spacing(1);
    let mut shown = TableState::default().with_selected(Some(sel - start));
    frame.render_stateful_widget(table, inner, &mut shown);
    view.nodes.select(Some(sel));
    *view.nodes.offset_mut() = start;
    record_rows(view, inner, start);
}
