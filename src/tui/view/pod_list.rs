//! The pod list: pending pods first with the one-line reason from their explanation, search
//! matches highlighted.

use fuzzy_matcher::skim::SkimMatcherV2;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState, Wrap};

use super::columns::{self, Col, Give};
use super::{ViewState, block, record_rows, window};
use crate::app::pod_list;
use crate::app::{App, format};
use crate::model::Pod;
use crate::tui::theme::Theme;

/// Text with the characters at `hits` in the match style.
pub(super) fn highlighted<'a>(text: &str, hits: &[usize], base: Style, hit: Style) -> Line<'a> {
    if hits.is_empty() {
        return Line::from(Span::styled(text.to_string(), base));
    }
    let spans: Vec<Span<'a>> = text
        .chars()
        .enumerate()
        .map(|(i, c)| Span::styled(c.to_string(), if hits.contains(&i) { hit } else { base }))
        .collect();
    Line::from(spans)
}

fn state_glyph(app: &App, pod: &Pod, theme: &Theme) -> Span<'static> {
    if pod.is_finished() {
        return Span::styled("·", theme.muted);
    }
    if pod.node_name.is_some() {
        return Span::styled("●", theme.ok);
    }
    if app.gang_pass(&pod.key).is_some_and(|g| !g.completes()) {
        return Span::styled("✗", theme.fail);
    }
    match app.summary(&pod.key) {
        Some(Ok(s)) if s.schedulable => Span::styled("◐", theme.warn),
        Some(Ok(s)) if s.waiting => Span::styled("…", theme.muted),
        Some(_) => Span::styled("✗", theme.fail),
        None => Span::styled("?", theme.muted),
    }
}

fn reason_style(app: &App, pod: &Pod, theme: &Theme) -> Style {
    if pod.node_name.is_some() || pod.is_finished() {
        return theme.muted;
    }
    if app.gang_pass(&pod.key).is_some_and(|g| !g.completes()) {
        return theme.fail;
    }
    match app.summary(&pod.key) {
        Some(Ok(s)) if s.schedulable => theme.warn,
        Some(Ok(s)) if s.waiting => theme.muted,
        Some(_) => theme.fail,
        None => theme.muted,
    }
}

/// The list's columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    Glyph,
    Namespace,
    Name,
    Age,
    Prio,
    Scheduler,
    Cpu,
    Mem,
    Reason,
}

impl Column {
    /// The header in `w` cells (the namespace's is `NS` when `NAMESPACE` does not fit).
    fn header(self, w: usize) -> &'static str {
        match self {
            Column::Glyph => "",
            Column::Namespace if w < "NAMESPACE".len() => "NS",
            Column::Namespace => "NAMESPACE",
            Column::Name => "NAME",
            Column::Age => "AGE",
            Column::Prio => "PRIO",
            Column::Scheduler => "SCHEDULER",
            Column::Cpu => "CPU",
            Column::Mem => "MEM",
            Column::Reason => pod_list::REASON_HEADER,
        }
    }
}

/// Draws the list: only the rows on screen are built (the rows, their count and the column
/// widths are kept in the app).
pub(super) fn render(app: &App, theme: &Theme, view: &mut ViewState, frame: &mut Frame<'_>, area: Rect) {
    let rows = app.pod_rows();
    let wide = area.width >= 110;
    let pending = rows.pending();
    let mut title = vec![
        Span::raw(" Pods "),
        Span::styled(format!("{} shown, {pending} pending", rows.len()), theme.muted),
        Span::styled(
            format!(" · sort {}", app.pods.sort.describe(app.pods.reverse)),
            theme.muted,
        ),
    ];
    if app.pods.pending_only {
        title.push(Span::styled(" · pending only", theme.accent));
    }
    if let Some(f) = &app.pods.reason {
        title.push(Span::styled(format!(" · {}", f.describe()), theme.search_match));
    }
    if !app.pods.query.is_empty() {
        title.push(Span::styled(format!(" · /{}", app.pods.query), theme.search_match));
        if let pod_list::Search::Labels(Err(e)) = pod_list::Search::of(&app.pods.query) {
            title.push(Span::styled(format!(" ({e})"), theme.fail));
        }
    }
    if let Some(ns) = &app.pods.namespace {
        title.push(Span::styled(format!(" · ns {ns}"), theme.accent));
    }
    title.push(Span::raw(" "));
    let b = block(theme, Line::from(title));
    let inner = b.inner(area);
    frame.render_widget(b, area);
    if rows.is_empty() {
        let msg = if app.cluster.pods.is_empty() {
            "The snapshot has no pods."
        } else {
            "No pod matches. Esc clears the search and the reason filter; 0 shows all namespaces; Ctrl-z every pod."
        };
        frame.render_widget(ratatui::widgets::Paragraph::new(Span::styled(msg, theme.muted)), inner);
        return;
    }
    let sel = app.pods.selected.min(rows.len().saturating_sub(1));
    // the selected pending pod's decisive reason whole (the column cuts it on narrow
    // terminals) and upstream's message; `w` shows all of it, otherwise three lines at most
    let detail = rows.pod(app, sel).filter(|p| p.is_pending()).map(|p| {
        let mut spans = vec![
            Span::styled(format!("{}: ", p.key), theme.accent),
            Span::styled(pod_list::column_text(app, p).into_owned(), reason_style(app, p, theme)),
        ];
        if let Some(Ok(s)) = app.summary(&p.key)
            && !s.upstream.is_empty()
            && s.upstream != s.line
        {
            spans.push(Span::styled(format!(" · upstream: {}", s.upstream), theme.muted));
        }
        spans.push(Span::styled("  (Enter: why, step by step)", theme.muted));
        Paragraph::new(Line::from(spans)).wrap(Wrap { trim: false })
    });
    let needed = detail.as_ref().map_or(0, |d| d.line_count(inner.width));
    let most = if app.whole {
        usize::from(inner.height / 2).max(3)
    } else {
        3
    };
    let detail_h = u16::try_from(needed.min(most)).unwrap_or(3);
    let [table_area, gap, detail_area] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(u16::from(detail_h > 0)),
        Constraint::Length(detail_h),
    ])
    .areas(inner);
    // the rows on screen, below the header, scrolled as the table would scroll them
    let (start, end) = window(
        view.pods.offset(),
        sel,
        rows.len(),
        usize::from(table_area.height.saturating_sub(1)),
    );
    // the columns as wide as their widest value; the reason column answers the list's question
    // and keeps the room its values on screen need, up to a third of the width (30 cells at
    // least): the scheduler's name is cut, then left out, then the age, then the namespace is
    // cut, then the name (cut text ends in `…`). Priorities and requests are never cut.
    let w = rows.widths();
    let age_w = rows
        .pods(app, start..end)
        .map(|p| {
            format::age(p.creation().map(|t| t.as_second()), app.now)
                .chars()
                .count()
        })
        .max()
        .unwrap_or(3)
        .max(3);
    // priorities as the rows on screen have them (a system-cluster-critical 2000000000 takes
    // its ten cells where it is shown)
    let prio_w = rows
        .pods(app, start..end)
        .map(|p| p.priority.to_string().len())
        .max()
        .unwrap_or(1);
    let reason_w = rows
        .pods(app, start..end)
        .map(|p| columns::width(&pod_list::column_text(app, p)))
        .max()
        .unwrap_or(0)
        .max(pod_list::REASON_HEADER.chars().count() + 1);
    // the sorted column carries the direction, as in k9s: NAME↑, CPU↓
    let sorted = app.pods.sort.column();
    let head_w = |c: Column| {
        let h = c.header(usize::MAX);
        h.len() + usize::from(sorted == Some(h))
    };
    // (column, its width and how far it may be cut)
    let mut cols = vec![
        (Column::Glyph, Col::number(1)),
        (
            Column::Namespace,
            Col::text(w.namespace.clamp(9, 16).max(head_w(Column::Namespace)), 6),
        ),
        (
            Column::Name,
            Col::text(w.name.clamp(4, 36).max(head_w(Column::Name)), 16),
        ),
        (Column::Age, Col::number(age_w.max(head_w(Column::Age)))),
        (Column::Prio, Col::number(prio_w.max(head_w(Column::Prio)))),
    ];
    if wide {
        cols.push((
            Column::Scheduler,
            Col::text(w.scheduler.clamp(9, 28).max(head_w(Column::Scheduler)), 12),
        ));
    }
    cols.extend([
        (Column::Cpu, Col::number(w.cpu.max(head_w(Column::Cpu)))),
        (Column::Mem, Col::number(w.mem.max(head_w(Column::Mem)))),
        (Column::Reason, Col::text(0, 0)),
    ]);
    let at = |c: Column| cols.iter().position(|x| x.0 == c);
    let steps: Vec<Give> = [
        (Column::Scheduler, false),
        (Column::Scheduler, true),
        (Column::Age, true),
        (Column::Namespace, false),
        (Column::Name, false),
    ]
    .into_iter()
    .filter_map(|(c, drop)| at(c).map(|i| if drop { Give::Drop(i) } else { Give::Cut(i) }))
    .collect();
    let total = usize::from(table_area.width);
    let specs: Vec<Col> = cols.iter().map(|c| c.1).collect();
    let answer_min = reason_w.min((total / 3).max(30));
    let shown: Vec<(Column, usize)> = columns::fit(total, 1, &specs, cols.len() - 1, answer_min, &steps)
        .into_iter()
        .zip(&cols)
        .filter_map(|(x, c)| x.map(|x| (c.0, x)))
        .collect();
    let header: Vec<String> = shown
        .iter()
        .map(|&(c, cw)| {
            let name = c.header(cw);
            let text = match sorted {
                Some(s) if s == c.header(usize::MAX) => format!("{name}{}", app.pods.sort.arrow(app.pods.reverse)),
                _ => name.to_string(),
            };
            columns::cut(&text, cw).into_owned()
        })
        .collect();
    let matcher = SkimMatcherV2::default();
    let table_rows: Vec<Row<'_>> = rows
        .pods(app, start..end)
        .map(|p| {
            let (ns_hits, name_hits) = pod_list::matches(&matcher, p, &app.pods.query).unwrap_or_default();
            view.clock_until(format::age_changes_at(p.creation().map(|t| t.as_second()), app.now));
            let requests = app.features.requests_of(p);
            let cell = |&(c, cw): &(Column, usize)| {
                let line = match c {
                    Column::Glyph => Line::from(state_glyph(app, p, theme)),
                    Column::Namespace => highlighted(&p.key.namespace, &ns_hits, theme.muted, theme.search_match),
                    Column::Name => highlighted(&p.key.name, &name_hits, theme.accent, theme.search_match),
                    Column::Age => Line::from(format::age(p.creation().map(|t| t.as_second()), app.now)),
                    Column::Prio => Line::from(p.priority.to_string()),
                    Column::Scheduler => Line::from(Span::styled(p.scheduler_name().to_string(), theme.muted)),
                    Column::Cpu => Line::from(rows.cpu_unit().show(requests.resource.milli_cpu)),
                    Column::Mem => Line::from(format::bytes(requests.resource.memory)),
                    Column::Reason => {
                        Line::from(Span::styled(pod_list::status_line(app, p), reason_style(app, p, theme)))
                    }
                };
                Cell::from(columns::cut_line(line, cw))
            };
            Row::new(shown.iter().map(cell))
        })
        .collect();
    let widths: Vec<Constraint> = shown
        .iter()
        .map(|&(_, cw)| Constraint::Length(u16::try_from(cw).unwrap_or(u16::MAX)))
        .collect();
    let table = Table::new(table_rows, widths)
        .header(Row::new(header).style(theme.header))
        .row_highlight_style(theme.selected)
        .column_spacing(1);
    let mut state = TableState::default().with_selected(Some(sel - start));
    frame.render_stateful_widget(table, table_area, &mut state);
    view.pods.select(Some(sel));
    *view.pods.offset_mut() = start;
    record_rows(view, table_area, start);
    if let Some(d) = detail {
        frame.render_widget(
            Paragraph::new("─".repeat(usize::from(gap.width))).style(theme.border),
            gap,
        );
        frame.render_widget(d, detail_area);
        if needed > usize::from(detail_h) {
            super::more_mark(theme, frame, detail_area, app.whole);
        }
    }
}
