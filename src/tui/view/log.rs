//! The events screen (`:events`, `E` in the pod view): FailedScheduling events as
//! `kubectl describe` lists them (type, reason, age with count, from, message), and the
//! messages screen (`:messages`): every status message and load warning, newest first.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{ViewState, block, selectable_table};
use crate::app::format::{event_interval, human_duration_changes_at};
use crate::app::{App, EventsView, MessagesView, StatusKind, TextView};
use crate::tui::theme::Theme;

/// Draws the events screen.
pub(super) fn events(
    app: &App,
    v: &EventsView,
    theme: &Theme,
    view: &mut ViewState,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    let rows = app.event_rows(v.pod.as_ref());
    let title = match &v.pod {
        Some(p) => format!(" Events of {p} ({}) ", rows.len()),
        None => format!(" Events: FailedScheduling of every pod ({}) ", rows.len()),
    };
    let b = block(theme, Line::from(Span::raw(title)));
    let inner = b.inner(area);
    frame.render_widget(b, area);
    if rows.is_empty() {
        let mut lines = vec![Line::from(Span::styled(
            "No FailedScheduling event (kubectl describe: Events: <none>).",
            theme.muted,
        ))];
        if let Some(why) = &app.cluster.events_unreadable {
            lines.push(Line::from(Span::styled(
                format!("Events could not be read: {why}"),
                theme.warn,
            )));
        }
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
        return;
    }
    if let Some(now) = app.now {
        for e in &rows {
            for t in [e.first, e.last].into_iter().flatten() {
                view.clock_until(Some(human_duration_changes_at(t.as_second(), now)));
            }
        }
    }
    let [table_area, detail_area] = Layout::vertical([Constraint::Min(3), Constraint::Length(5)]).areas(inner);
    let every = v.pod.is_none();
    // narrow: FROM gives way to the message (the detail below names the event)
    let from = inner.width >= 120;
    let ages: Vec<String> = rows.iter().map(|e| event_interval(e, app.now)).collect();
    let table_rows: Vec<Row<'_>> = rows
        .iter()
        .zip(&ages)
        .map(|(e, age)| {
            let mut cells = Vec::new();
            if every {
                cells.push(Cell::from(Span::styled(e.pod.to_string(), theme.accent)));
            }
            let type_style = if e.type_ == "Warning" { theme.warn } else { theme.base };
            cells.extend([
                Cell::from(Span::styled(e.type_.clone(), type_style)),
                Cell::from(e.reason.clone()),
                Cell::from(age.clone()),
            ]);
            if from {
                cells.push(Cell::from(Span::styled(e.component.clone(), theme.muted)));
            }
            cells.push(Cell::from(e.message.trim().to_string()));
            Row::new(cells)
        })
        .collect();
    let width = |v: &mut dyn Iterator<Item = usize>, min: usize, max: usize| {
        u16::try_from(v.max().unwrap_or(min).clamp(min, max)).unwrap_or(8)
    };
    let mut widths = Vec::new();
    let mut header = Vec::new();
    if every {
        widths.push(Constraint::Length(width(
            &mut rows.iter().map(|e| e.pod.to_string().chars().count()),
            3,
            40,
        )));
        header.push("POD");
    }
    widths.extend([
        Constraint::Length(width(&mut rows.iter().map(|e| e.type_.chars().count()), 4, 10)),
        Constraint::Length(width(&mut rows.iter().map(|e| e.reason.chars().count()), 6, 20)),
        Constraint::Length(width(&mut ages.iter().map(|a| a.chars().count()), 3, 24)),
    ]);
    header.extend(["TYPE", "REASON", "AGE"]);
    if from {
        widths.push(Constraint::Length(width(
            &mut rows.iter().map(|e| e.component.chars().count()),
            4,
            24,
        )));
        header.push("FROM");
    }
    widths.push(Constraint::Min(10));
    header.push("MESSAGE");
    let table = Table::new(table_rows, widths)
        .header(Row::new(header).style(theme.header))
        .row_highlight_style(theme.selected)
        .column_spacing(if from { 2 } else { 1 });
    let sel = selectable_table(view, frame, table, table_area, v.selected, rows.len());
    let e = rows[sel];
    let lines = vec![
        Line::from(vec![
            Span::styled(e.pod.to_string(), theme.accent),
            Span::styled(
                format!(
                    " · {} · {} · from {} · event {}",
                    e.reason, ages[sel], e.component, e.key
                ),
                theme.muted,
            ),
        ]),
        Line::from(Span::raw(e.message.trim().to_string())),
    ];
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), detail_area);
}

/// Draws the messages screen, newest first.
pub(super) fn messages(
    app: &App,
    v: &MessagesView,
    theme: &Theme,
    view: &mut ViewState,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    let n = app.messages.len();
    let mut title = format!(" Messages ({n}, newest first) ");
    if app.messages_dropped > 0 {
        title = format!(" Messages ({n}, newest first; {} older dropped) ", app.messages_dropped);
    }
    let b = block(theme, Line::from(Span::raw(title)));
    let inner = b.inner(area);
    frame.render_widget(b, area);
    if n == 0 {
        frame.render_widget(Paragraph::new(Span::styled("No message yet.", theme.muted)), inner);
        return;
    }
    let [table_area, detail_area] = Layout::vertical([Constraint::Min(3), Constraint::Length(5)]).areas(inner);
    let style_of = |k: StatusKind| match k {
        StatusKind::Info => theme.muted,
        StatusKind::Warning => theme.warn,
        StatusKind::Error => theme.fail,
    };
    let clock = |at: Option<i64>| {
        at.and_then(|s| k8s_openapi::jiff::Timestamp::from_second(s).ok())
            .map_or_else(|| "-".to_string(), |t| t.strftime("%H:%M:%S").to_string())
    };
    let table_rows: Vec<Row<'_>> = app
        .messages
        .iter()
        .rev()
        .map(|m| {
            Row::new(vec![
                Cell::from(Span::styled(clock(m.at), theme.muted)),
                Cell::from(Span::styled(m.kind.word(), style_of(m.kind))),
                Cell::from(m.text.clone()),
            ])
        })
        .collect();
    let table = Table::new(
        table_rows,
        [Constraint::Length(8), Constraint::Length(7), Constraint::Min(10)],
    )
    .header(Row::new(["UTC", "KIND", "MESSAGE"]).style(theme.header))
    .row_highlight_style(theme.selected)
    .column_spacing(1);
    let sel = selectable_table(view, frame, table, table_area, v.selected, n);
    if let Some(m) = app.messages.iter().rev().nth(sel) {
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(m.text.clone(), style_of(m.kind)))).wrap(Wrap { trim: false }),
            detail_area,
        );
    }
}

/// Draws a read-only text (an object's YAML) from its scroll line.
pub(super) fn text(v: &TextView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let n = v.lines.len();
    // never past the end: the last screenful stays whole
    let height = usize::from(area.height.saturating_sub(2));
    let first = v.scroll.min(n.saturating_sub(height));
    let b = block(
        theme,
        Line::from(vec![
            Span::raw(format!(" {} ", v.title)),
            Span::styled(format!("· line {} of {n} ", first + 1), theme.muted),
        ]),
    );
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let lines: Vec<Line<'_>> = v.lines[first..]
        .iter()
        .take(usize::from(inner.height))
        .map(|l| yaml_line(l, theme))
        .collect();
    // long lines wrap (a message, an annotation), nothing is cut
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// A YAML line with its key (`  name:`, `- name:`) in the header colour.
fn yaml_line<'a>(l: &'a str, theme: &Theme) -> Line<'a> {
    let body = l.trim_start();
    let body = body.strip_prefix("- ").unwrap_or(body);
    let at = l.len() - body.len();
    match body.split_once(':') {
        Some((k, rest))
            if !k.is_empty() && !k.contains([' ', '"', '\'']) && (rest.is_empty() || rest.starts_with(' ')) =>
        {
            Line::from(vec![
                Span::raw(&l[..at]),
                Span::styled(&l[at..at + k.len() + 1], theme.header),
                Span::raw(&l[at + k.len() + 1..]),
            ])
        }
        _ => Line::from(Span::raw(l)),
    }
}
