//! The descheduler dry run screen (`:deschedule FILE`): per plugin, the pods it considered,
//! and for each the landing node of its replacement, the same node it returns to, the
//! Pending reason, or why the pod stays; the selected row's rule, numbers and outcome below.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{ViewState, block, selectable_table, spinner};
use crate::app::deschedule::RowKind;
use crate::app::{App, DescheduleView};
use crate::tui::theme::Theme;

/// Draws the dry run screen.
pub(crate) fn render(
    app: &App,
    v: &DescheduleView,
    theme: &Theme,
    view: &mut ViewState,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    let Some(state) = &app.deschedule else {
        return;
    };
    let stale = state.generation != app.generation;
    let mut title = vec![Span::raw(format!(" Descheduler dry run · {} ", state.path))];
    if stale {
        title.push(Span::styled("· cluster changed since: run it again ", theme.warn));
    }
    let b = block(theme, Line::from(title));
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let report = match &state.result {
        None => {
            let s = spinner(app, view);
            let text = format!("{s} Running the policy's cycle and scheduling the replacements (in memory)…");
            frame.render_widget(Paragraph::new(Span::styled(text, theme.muted)), inner);
            return;
        }
        Some(Err(e)) => {
            frame.render_widget(
                Paragraph::new(Span::styled(e.clone(), theme.fail)).wrap(Wrap { trim: false }),
                inner,
            );
            return;
        }
        Some(Ok(r)) => r,
    };
    // the table as tall as its rows (at most 60% of the screen), the detail panel below
    let table_h = u16::try_from(report.rows.len() + 1)
        .unwrap_or(u16::MAX)
        .min(inner.height.saturating_sub(2) * 3 / 5)
        .max(2);
    let [head_area, table_area, _, detail_area] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(table_h),
        Constraint::Length(1),
        Constraint::Min(3),
    ])
    .areas(inner);
    frame.render_widget(
        Paragraph::new(vec![
            Line::from(Span::styled(report.header.clone(), theme.muted)),
            Line::from(report.summary.clone()),
        ]),
        head_area,
    );
    if report.rows.is_empty() {
        frame.render_widget(Paragraph::new(Span::styled("No plugin ran.", theme.muted)), table_area);
        return;
    }
    let style_of = |k: RowKind| match k {
        RowKind::Plugin => theme.header,
        RowKind::Moved => theme.ok,
        RowKind::SameNode | RowKind::NotRecreated => theme.warn,
        RowKind::Pending => theme.fail,
        RowKind::Kept => theme.muted,
    };
    let rows: Vec<Row<'_>> = report
        .rows
        .iter()
        .map(|r| match &r.pod {
            None => {
                // `profile · point · plugin`: the plugin first, the rest with the tally
                let (rest, name) = r.plugin.rsplit_once(" · ").unwrap_or(("", r.plugin.as_str()));
                Row::new(vec![
                    Cell::from(Span::styled(name.to_string(), theme.header)),
                    Cell::from(""),
                    Cell::from(""),
                    Cell::from(Span::styled(format!("{rest}: {}", r.outcome), theme.muted)),
                ])
            }
            Some(k) => Row::new(vec![
                Cell::from(Span::styled(format!("  {k}"), theme.accent)),
                Cell::from(r.node.clone()),
                Cell::from(Span::styled(r.outcome.clone(), style_of(r.kind))),
                Cell::from(Span::styled(r.result.clone(), style_of(r.kind))),
            ]),
        })
        .collect();
    let pod_w = report
        .rows
        .iter()
        .filter_map(|r| r.pod.as_ref().map(|k| k.to_string().chars().count() + 2))
        .max()
        .unwrap_or(5)
        .clamp(5, 40);
    let node_w = report
        .rows
        .iter()
        .map(|r| r.node.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 24);
    let table = Table::new(
        rows,
        [
            Constraint::Length(u16::try_from(pod_w).unwrap_or(40)),
            Constraint::Length(u16::try_from(node_w).unwrap_or(24)),
            Constraint::Length(9),
            Constraint::Min(10),
        ],
    )
    .header(Row::new(["POD", "NODE", "OUTCOME", "LANDS / WHY"]).style(theme.header))
    .row_highlight_style(theme.selected)
    .column_spacing(1);
    let sel = selectable_table(view, frame, table, table_area, v.selected, report.rows.len());
    let mut lines = Vec::new();
    if let Some(r) = report.rows.get(sel) {
        lines.push(Line::from(Span::styled(r.plugin.clone(), theme.header)));
        lines.extend(r.detail.iter().map(|d| Line::from(d.clone())));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), detail_area);
}
