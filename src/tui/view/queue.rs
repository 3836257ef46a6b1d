//! The queue screen (`:queue`): where every pending pod waits in the scheduling queue, and,
//! for the selected pod, what would move it on. Pods held before the queue get no event and
//! no condition from the scheduler: this is where the TUI says why.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::columns::{self, Col, Give};
use super::{ViewState, block, selectable_table};
use crate::app::{App, QueueView};
use crate::engine::queue::Pool;
use crate::tui::theme::Theme;

/// Draws the queue screen.
pub(super) fn render(app: &App, v: &QueueView, theme: &Theme, view: &mut ViewState, frame: &mut Frame<'_>, area: Rect) {
    let rows = app.queue_rows();
    let held = rows
        .iter()
        .filter(|r| r.1.as_ref().is_some_and(|e| e.pool == Pool::HeldBeforeQueue))
        .count();
    let b = block(
        theme,
        Line::from(vec![
            Span::raw(format!(" Queue ({} pending) ", rows.len())),
            Span::styled(format!("· {held} held before the queue "), theme.muted),
        ]),
    );
    let inner = b.inner(area);
    frame.render_widget(b, area);
    if rows.is_empty() {
        frame.render_widget(Paragraph::new(Span::styled("No pending pod.", theme.muted)), inner);
        return;
    }
    let [table_area, detail_area] =
        Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(inner);
    let style_of = |p: Pool| match p {
        Pool::Active => theme.ok,
        Pool::WaitingAtPermit | Pool::OtherScheduler | Pool::ErrorBackoff => theme.warn,
        Pool::HeldBeforeQueue | Pool::Unschedulable => theme.fail,
    };
    // the columns as wide as their widest value; WHY answers the screen's question and keeps
    // the room its values need, up to a third of the width (30 cells at least): the plugins are
    // cut, then left out (the detail below names them), then the pod's name and where it
    // waits are cut (cut text ends in `…`).
    let text_w = |f: &dyn Fn(&crate::engine::queue::QueueEntry) -> String| {
        rows.iter()
            .filter_map(|r| r.1.as_ref())
            .map(|e| columns::width(&f(e)))
            .max()
            .unwrap_or(0)
    };
    let pod_w = rows.iter().map(|r| columns::width(&r.0.to_string())).max().unwrap_or(3);
    let where_w = text_w(&|e| e.pool.describe().to_string()).max("explaining…".len());
    let plugins_w = text_w(&|e| e.plugins.join(","));
    let why_w = text_w(&|e| e.reason.clone()).max("WHY".len());
    let specs = [
        Col::text(pod_w.clamp(3, 48), 16),
        Col::text(where_w, 10),
        Col::text(plugins_w.max("PLUGINS".len()), 8),
        Col::text(0, 0),
    ];
    let total = usize::from(table_area.width);
    let steps = [Give::Cut(2), Give::Drop(2), Give::Cut(0), Give::Cut(1)];
    let fitted = columns::fit(total, 1, &specs, 3, why_w.min((total / 3).max(30)), &steps);
    let cell = |i: usize, line: Line<'static>| fitted[i].map(|w| Cell::from(columns::cut_line(line, w)));
    let table_rows: Vec<Row<'_>> = rows
        .iter()
        .map(|(k, e)| {
            let cells = match e {
                Some(e) => [
                    cell(0, Line::from(Span::styled(k.to_string(), theme.accent))),
                    cell(
                        1,
                        Line::from(Span::styled(e.pool.describe().to_string(), style_of(e.pool))),
                    ),
                    cell(2, Line::from(Span::styled(e.plugins.join(","), theme.muted))),
                    cell(3, Line::from(e.reason.clone())),
                ],
                None => [
                    cell(0, Line::from(Span::styled(k.to_string(), theme.accent))),
                    cell(1, Line::from(Span::styled("explaining…", theme.muted))),
                    cell(2, Line::from("")),
                    cell(3, Line::from("")),
                ],
            };
            Row::new(cells.into_iter().flatten())
        })
        .collect();
    let widths: Vec<Constraint> = fitted
        .iter()
        .flatten()
        .map(|&w| Constraint::Length(u16::try_from(w).unwrap_or(u16::MAX)))
        .collect();
    let header: Vec<String> = ["POD", "WHERE", "PLUGINS", "WHY"]
        .iter()
        .zip(&fitted)
        .filter_map(|(h, w)| w.map(|w| columns::cut(h, w).into_owned()))
        .collect();
    let table = Table::new(table_rows, widths)
        .header(Row::new(header).style(theme.header))
        .row_highlight_style(theme.selected)
        .column_spacing(1);
    let sel = selectable_table(view, frame, table, table_area, v.selected, rows.len());
    let mut lines = Vec::new();
    if let Some((k, Some(e))) = rows.get(sel) {
        lines.push(Line::from(vec![
            Span::styled(k.to_string(), theme.accent),
            Span::styled(format!(" · {}", e.pool.describe()), style_of(e.pool)),
        ]));
        if !e.writes_event && e.pool == Pool::HeldBeforeQueue {
            lines.push(Line::from(Span::styled(
                "No FailedScheduling event and no PodScheduled condition: the scheduler writes none for a pod it holds before the queue.",
                theme.warn,
            )));
        }
        if !e.plugins.is_empty() {
            lines.push(Line::from(vec![
                Span::styled("plugins: ", theme.muted),
                Span::raw(e.plugins.join(", ")),
            ]));
        }
        if let Some(b) = &e.backoff {
            lines.push(Line::from(Span::styled(format!("backoff {b}"), theme.muted)));
        }
        if !e.requeue_on.is_empty() {
            lines.push(Line::from(Span::styled("Moves on when:", theme.header)));
            lines.extend(e.requeue_on.iter().map(|r| Line::from(format!("  {r}"))));
        }
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), detail_area);
}
