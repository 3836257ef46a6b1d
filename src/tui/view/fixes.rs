//! The fixes screen (`f` in the pod view, `:fix`): one change per blocking reason, each made on
//! a copy of the cluster and checked by running the engine again; below, the selected fix's
//! reason, the command that makes it and what the command cannot say.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{ViewState, block, selectable_table, spinner};
use crate::app::fix::Outcome;
use crate::app::{App, FixesView};
use crate::tui::theme::Theme;

/// Draws the fixes screen.
pub(super) fn render(app: &App, v: &FixesView, theme: &Theme, view: &mut ViewState, frame: &mut Frame<'_>, area: Rect) {
    let rows = app.fix_rows(&v.pod);
    let b = block(
        theme,
        Line::from(vec![
            Span::raw(" To fix "),
            Span::styled(v.pod.to_string(), theme.accent),
            Span::styled(" · each change checked by the engine ", theme.muted),
        ]),
    );
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let verdict = match app.explanation(&v.pod) {
        Some(Ok(ex)) => ex.verdict(),
        Some(Err(e)) => e.clone(),
        None => String::new(),
    };
    let [verdict_area, table_area, detail_area] =
        Layout::vertical([Constraint::Length(2), Constraint::Min(3), Constraint::Length(8)]).areas(inner);
    frame.render_widget(
        Paragraph::new(Line::from(Span::styled(verdict, theme.fail))).wrap(Wrap { trim: false }),
        verdict_area,
    );
    match app.fixes.get(&v.pod) {
        Some(None) | None => {
            frame.render_widget(
                Paragraph::new(Span::styled(
                    format!("{} checking each change with the engine…", spinner(app, view)),
                    theme.warn,
                )),
                table_area,
            );
            return;
        }
        Some(Some(_)) if rows.is_empty() => {
            frame.render_widget(
                Paragraph::new(Span::styled(
                    "No single change found: every node fails for more than one reason, or for a reason kschedtui proposes no change for (volumes, a DRA claim's constraints). The Filter step shows each node's reasons.",
                    theme.muted,
                ))
                .wrap(Wrap { trim: false }),
                table_area,
            );
            return;
        }
        Some(Some(_)) => {}
    }
    // narrow: the reason gives way to the change (the detail below names it)
    let wide = inner.width >= 120;
    let table_rows: Vec<Row<'_>> = rows
        .iter()
        .map(|f| {
            let (mark, style) = match f.outcome {
                Outcome::Binds(_) => ("✓", theme.ok),
                Outcome::NotEnough(_) => ("✗", theme.warn),
                Outcome::Failed(_) => ("!", theme.fail),
                Outcome::Unchecked(_) => ("?", theme.muted),
            };
            let mut cells = vec![Cell::from(Span::styled(mark, style))];
            if wide {
                cells.push(Cell::from(f.fix.reason.clone()));
            }
            cells.push(Cell::from(Span::styled(f.line(), style)));
            Row::new(cells)
        })
        .collect();
    let reason_w = rows
        .iter()
        .map(|f| f.fix.reason.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(10, usize::from(inner.width / 3));
    let mut widths = vec![Constraint::Length(1)];
    let mut header = vec![""];
    if wide {
        widths.push(Constraint::Length(u16::try_from(reason_w).unwrap_or(20)));
        header.push("BLOCKED BY");
    }
    widths.push(Constraint::Min(10));
    header.push("CHANGE → ENGINE'S ANSWER");
    let table = Table::new(table_rows, widths)
        .header(Row::new(header).style(theme.header))
        .row_highlight_style(theme.selected)
        .column_spacing(1);
    let sel = selectable_table(view, frame, table, table_area, v.selected, rows.len());
    let f = &rows[sel];
    let mut lines = vec![
        Line::from(vec![
            Span::styled("blocked by: ", theme.muted),
            Span::raw(f.fix.reason.clone()),
        ]),
        Line::from(Span::styled(f.line(), theme.base)),
    ];
    match &f.fix.command {
        Some(c) => lines.push(Line::from(vec![Span::styled("$ ", theme.muted), Span::raw(c.clone())])),
        None => lines.push(Line::from(Span::styled(
            "no kubectl command makes this change",
            theme.muted,
        ))),
    }
    if let Some(n) = &f.fix.note {
        lines.push(Line::from(Span::styled(n.clone(), theme.muted)));
    }
    lines.push(Line::from(vec![
        Span::styled("Enter", theme.key),
        Span::raw(" tries it in memory · "),
        Span::styled("c", theme.key),
        Span::raw(" copies the command"),
    ]));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), detail_area);
}
