//! The queue screen (`:queue`): where every pending pod waits in the scheduling queue, and,
//! for the selected pod, what would move it on. Pods held before the queue get no event and
//! no condition from the scheduler: this is where the TUI says why.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

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
    let table_rows: Vec<Row<'_>> = rows
        .iter()
        .map(|(k, e)| match e {
            Some(e) => Row::new(vec![
                Cell::from(Span::styled(k.to_string(), theme.accent)),
                Cell::from(Span::styled(e.pool.describe(), style_of(e.pool))),
                Cell::from(Span::styled(e.plugins.join(","), theme.muted)),
                Cell::from(e.reason.clone()),
            ]),
            None => Row::new(vec![
                Cell::from(Span::styled(k.to_string(), theme.accent)),
                Cell::from(Span::styled("explaining…", theme.muted)),
                Cell::from(""),
                Cell::from(""),
            ]),
        })
        .collect();
    let pod_w = rows
        .iter()
        .map(|r| r.0.to_string().chars().count())
        .max()
        .unwrap_or(3)
        .clamp(3, 48);
    let table = Table::new(
        table_rows,
        [
            Constraint::Length(u16::try_from(pod_w).unwrap_or(48)),
            Constraint::Length(21),
            Constraint::Length(24),
            Constraint::Min(10),
        ],
    )
    .header(Row::new(["POD", "WHERE", "PLUGINS", "WHY"]).style(theme.header))
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
