//! The pod list: pending pods first with the one-line reason from their explanation, search
//! matches highlighted.

use fuzzy_matcher::skim::SkimMatcherV2;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState, Wrap};

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
    let mut columns = vec!["", "NAMESPACE", "NAME", "AGE", "PRIO"];
    if wide {
        columns.push("SCHEDULER");
    }
    columns.extend(["CPU", "MEM", pod_list::REASON_HEADER]);
    // the sorted column carries the direction, as in k9s: NAME↑, CPU↓
    let sorted = app.pods.sort.column();
    let header: Vec<String> = columns
        .iter()
        .map(|c| match sorted {
            Some(s) if s == *c => format!("{c}{}", app.pods.sort.arrow(app.pods.reverse)),
            _ => (*c).to_string(),
        })
        .collect();
    let w = rows.widths();
    let ns_w = w.namespace.clamp(9, 16);
    let name_w = w.name.clamp(4, if wide { 36 } else { 20 });
    // the request columns are as wide as their widest value, so no unit is cut ("953.7Mi")
    let cpu_w = w.cpu.max(6);
    let mem_w = w.mem.max(6);
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
    let matcher = SkimMatcherV2::default();
    let table_rows: Vec<Row<'_>> = rows
        .pods(app, start..end)
        .map(|p| {
            let (ns_hits, name_hits) = pod_list::matches(&matcher, p, &app.pods.query).unwrap_or_default();
            view.clock_until(format::age_changes_at(p.creation().map(|t| t.as_second()), app.now));
            let requests = app.features.requests_of(p);
            let mut cells = vec![
                Cell::from(state_glyph(app, p, theme)),
                Cell::from(highlighted(&p.key.namespace, &ns_hits, theme.muted, theme.search_match)),
                Cell::from(highlighted(&p.key.name, &name_hits, theme.accent, theme.search_match)),
                Cell::from(format::age(p.creation().map(|t| t.as_second()), app.now)),
                Cell::from(p.priority.to_string()),
            ];
            if wide {
                cells.push(Cell::from(Span::styled(p.scheduler_name().to_string(), theme.muted)));
            }
            cells.push(Cell::from(rows.cpu_unit().show(requests.resource.milli_cpu)));
            cells.push(Cell::from(format::bytes(requests.resource.memory)));
            cells.push(Cell::from(Span::styled(
                pod_list::status_line(app, p),
                reason_style(app, p, theme),
            )));
            Row::new(cells)
        })
        .collect();
    let mut widths = vec![
        Constraint::Length(1),
        Constraint::Length(u16::try_from(ns_w).unwrap_or(16)),
        Constraint::Length(u16::try_from(name_w).unwrap_or(20)),
        Constraint::Length(4),
        Constraint::Length(6),
    ];
    if wide {
        widths.push(Constraint::Length(18));
    }
    widths.extend([
        Constraint::Length(u16::try_from(cpu_w).unwrap_or(6)),
        Constraint::Length(u16::try_from(mem_w).unwrap_or(6)),
        Constraint::Min(10),
    ]);
    let table = Table::new(table_rows, widths)
        .header(Row::new(header).style(theme.header))
        .row_highlight_style(theme.selected)
        .column_spacing(1);
    let mut shown = TableState::default().with_selected(Some(sel - start));
    frame.render_stateful_widget(table, table_area, &mut shown);
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
