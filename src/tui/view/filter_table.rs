//! The Filter panel: reason counts as in upstream's message, then the node table — nodes that
//! fit, then those that nearly fit (with what they miss), then the rest. At a plugin step the
//! table shows what that one plugin did on each node.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{ViewState, block, columns, record_rows, wrap};
use crate::app::analysis::{self, FilterClass, FilterRow};
use crate::app::stepper::{Pipeline, Point};
use crate::app::{App, PodView};
use crate::engine::framework::trace::Explanation;
use crate::tui::theme::Theme;

fn class_style(theme: &Theme, c: FilterClass) -> Style {
    match c {
        FilterClass::Fit => theme.ok,
        FilterClass::NearlyFit => theme.warn,
        FilterClass::NoFit | FilterClass::TooSmall => theme.fail,
        FilterClass::Excluded => theme.muted,
    }
}

fn reason_text(r: &FilterRow<'_>, all: bool) -> String {
    let mut s = if all && !r.entry.all_failures.is_empty() {
        r.entry
            .all_failures
            .iter()
            .map(|f| f.reasons.join(", "))
            .collect::<Vec<_>>()
            .join(" | ")
    } else {
        r.reason()
    };
    if !r.missing.is_empty() {
        let m: Vec<String> = r.missing.iter().map(ToString::to_string).collect();
        s = if s.is_empty() {
            m.join(", ")
        } else {
            format!("{s} — {}", m.join(", "))
        };
    }
    if !r.entry.rejected_by_nominated_pods.is_empty() {
        let n: Vec<String> = r
            .entry
            .rejected_by_nominated_pods
            .iter()
            .map(ToString::to_string)
            .collect();
        s.push_str(&format!(" (only with nominated pods: {})", n.join(", ")));
    }
    s
}

fn plugin_text(r: &FilterRow<'_>, all: bool) -> String {
    if all && r.entry.all_failures.len() > 1 {
        r.entry
            .all_failures
            .iter()
            .map(|f| f.plugin)
            .collect::<Vec<_>>()
            .join(", ")
    } else if r.entry.excluded_by_prefilter {
        "(PreFilter)".into()
    } else {
        r.plugin().to_string()
    }
}

/// What one Filter plugin did on a node: (verdict, style, detail).
fn at_plugin(r: &FilterRow<'_>, plugin: &str, order: &[String], theme: &Theme) -> (String, Style, String) {
    let idx = |p: &str| order.iter().position(|x| x == p);
    let also = r
        .entry
        .all_failures
        .iter()
        .find(|f| f.plugin == plugin)
        .map(|f| f.reasons.join(", "));
    if r.entry.excluded_by_prefilter {
        return ("not run".into(), theme.muted, "excluded by PreFilter".into());
    }
    let first = r.entry.failure.as_ref();
    match first {
        Some(f) if f.plugin == plugin => ("rejects".into(), theme.fail, f.reasons.join(", ")),
        Some(f) if idx(f.plugin).is_none() => (
            "not run".into(),
            theme.muted,
            format!("rejected at PreFilter by {}", f.plugin),
        ),
        Some(f) if idx(f.plugin) < idx(plugin) => {
            let mut d = format!("rejected earlier by {}", f.plugin);
            if let Some(a) = also {
                d.push_str(&format!("; would also fail: {a}"));
            }
            ("not run".into(), theme.muted, d)
        }
        _ => match also {
            Some(a) => ("fails".into(), theme.fail, format!("{a} (diagnostic pass)")),
            None => {
                let d = first.map_or(String::new(), |f| format!("rejected later by {}", f.plugin));
                ("passes".into(), theme.ok, d)
            }
        },
    }
}

/// Draws the Filter panel.
#[allow(clippy::too_many_arguments)]
pub(super) fn render(
    app: &App,
    ex: &Explanation,
    v: &PodView,
    pl: &Pipeline,
    plugin: Option<&str>,
    theme: &Theme,
    view: &mut ViewState,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    let rows = analysis::filter_rows(&app.cluster, &app.usage, &app.features, ex, v.filter_sort, &v.query);
    let feasible = ex.filter.iter().filter(|f| f.feasible).count();
    let mut title = vec![Span::raw(format!(" Filter · {feasible}/{} nodes fit", ex.filter.len()))];
    title.push(Span::styled(format!(" · sort {}", v.filter_sort.name()), theme.muted));
    if v.all_failures {
        title.push(Span::styled(" · all failing plugins", theme.warn));
    }
    if !v.query.is_empty() {
        title.push(Span::styled(format!(" · /{}", v.query), theme.search_match));
    }
    title.push(Span::raw(" "));
    let b = block(theme, Line::from(title));
    let inner = b.inner(area);
    frame.render_widget(b, area);
    if ex.filter.is_empty() {
        let msg = ex.message.clone().unwrap_or_else(|| "Filter did not run.".into());
        frame.render_widget(
            Paragraph::new(Span::styled(msg, theme.muted)).wrap(Wrap { trim: false }),
            inner,
        );
        return;
    }
    let order = pl.stage(Point::Filter).map(|s| s.plugins.clone()).unwrap_or_default();
    // the summary line: reason counts, or what this plugin did
    let summary: Line<'_> = match plugin {
        None => {
            let counts = analysis::reason_counts(ex);
            let mut spans = Vec::new();
            for (i, (r, n)) in counts.iter().enumerate() {
                if i > 0 {
                    spans.push(Span::styled(" · ", theme.muted));
                }
                spans.push(Span::styled(format!("{n}× "), theme.key));
                spans.push(Span::raw(r.clone()));
            }
            if spans.is_empty() {
                spans.push(Span::styled("every node passed every filter", theme.ok));
            }
            Line::from(spans)
        }
        Some(p) => {
            let rejected = ex
                .filter
                .iter()
                .filter(|f| f.failure.as_ref().is_some_and(|x| x.plugin == p))
                .count();
            let would = ex
                .filter
                .iter()
                .filter(|f| f.all_failures.iter().any(|x| x.plugin == p))
                .count();
            Line::from(vec![
                Span::styled(p.to_string(), theme.accent),
                Span::raw(format!(
                    " rejected {rejected} node(s) first; {would} node(s) fail it in the diagnostic pass"
                )),
            ])
        }
    };
    let summary_h = if inner.width > 0 {
        let w: usize = summary.spans.iter().map(|s| s.content.chars().count()).sum();
        u16::try_from(w.div_ceil(usize::from(inner.width)).clamp(1, 3)).unwrap_or(1)
    } else {
        1
    };
    let [sum_area, table_area] = Layout::vertical([Constraint::Length(summary_h), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(summary).wrap(Wrap { trim: false }), sum_area);
    let node_w = rows
        .iter()
        .map(|r| r.entry.node.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 32);
    let show_zone = inner.width >= 90 && rows.iter().any(|r| !r.zone.is_empty());
    let zone_w = rows
        .iter()
        .map(|r| r.zone.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 16);
    let sel = v.selected.min(rows.len().saturating_sub(1));
    // the last column's width: what the fixed columns and the spacing leave
    let fixed = node_w
        + if show_zone { zone_w + 1 } else { 0 }
        + 1
        + match plugin {
            // verdict, plugin(s), and the spaces between the columns
            None if v.all_failures => 9 + 1 + 34 + 1,
            None => 9 + 1 + 18 + 1,
            Some(_) => 8 + 1,
        };
    let last_w = usize::from(table_area.width).saturating_sub(fixed).max(10);
    // the selected row with its detail must fit below the header, or the table draws nothing
    // of it (80×24 leaves a few lines): its detail lines are cut to the room there is
    let room = usize::from(table_area.height).saturating_sub(2).min(DETAIL_MAX);
    let mut expanded = None;
    let table_rows: Vec<Row<'_>> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            // what does not fit its column ends in `…`
            let mut cells = vec![Cell::from(Span::styled(
                columns::cut(r.entry.node.as_str(), node_w).into_owned(),
                theme.accent,
            ))];
            if show_zone {
                cells.push(Cell::from(Span::styled(
                    columns::cut(&r.zone, zone_w).into_owned(),
                    theme.muted,
                )));
            }
            let (last, style) = match plugin {
                None => {
                    let style = class_style(theme, r.class);
                    cells.push(Cell::from(Span::styled(r.class.label(), style)));
                    let plugin_w = if v.all_failures { 34 } else { 18 };
                    cells.push(Cell::from(
                        columns::cut(&plugin_text(r, v.all_failures), plugin_w).into_owned(),
                    ));
                    (reason_text(r, v.all_failures), style)
                }
                Some(p) => {
                    let (verdict, style, detail) = at_plugin(r, p, &order, theme);
                    cells.push(Cell::from(Span::styled(verdict, style)));
                    (detail, style)
                }
            };
            // the selected row opens up: the node's detail from the trace, wrapped
            let extra = if i == sel {
                detail_lines(r, plugin, last_w, room)
            } else {
                Vec::new()
            };
            if extra.is_empty() {
                cells.push(Cell::from(Span::styled(
                    columns::cut(&last, last_w).into_owned(),
                    style,
                )));
                return Row::new(cells);
            }
            let mut lines = vec![Line::from(Span::styled(
                columns::cut(&last, last_w).into_owned(),
                style,
            ))];
            lines.extend(extra.into_iter().map(|l| Line::from(Span::styled(l, theme.muted))));
            let h = lines.len();
            expanded = Some((i, h - 1));
            cells.push(Cell::from(ratatui::text::Text::from(lines)));
            Row::new(cells).height(u16::try_from(h).unwrap_or(1))
        })
        .collect();
    let mut widths = vec![Constraint::Length(u16::try_from(node_w).unwrap_or(32))];
    let mut header = vec!["NODE".to_string()];
    if show_zone {
        widths.push(Constraint::Length(u16::try_from(zone_w).unwrap_or(16)));
        header.push("ZONE".into());
    }
    match plugin {
        None => {
            let plugin_w = if v.all_failures { 34 } else { 18 };
            widths.extend([Constraint::Length(9), Constraint::Length(plugin_w), Constraint::Min(10)]);
            header.extend([
                "VERDICT".into(),
                if v.all_failures {
                    "FAILING PLUGINS"
                } else {
                    "FIRST FAILURE"
                }
                .into(),
                "REASON".into(),
            ]);
        }
        Some(_) => {
            widths.extend([Constraint::Length(8), Constraint::Min(10)]);
            header.extend(["HERE".into(), "DETAIL".into()]);
        }
    }
    if rows.is_empty() {
        frame.render_widget(
            Paragraph::new(Span::styled("No node matches the filter (Esc clears it).", theme.muted)),
            table_area,
        );
        return;
    }
    let table = Table::new(table_rows, widths)
        .header(Row::new(header).style(theme.header))
        .row_highlight_style(theme.selected)
        .column_spacing(1);
    view.panel.select(Some(sel));
    frame.render_stateful_widget(table, table_area, &mut view.panel);
    record_rows(view, table_area, view.panel.offset());
    view.rows_expanded = expanded;
}

/// Most lines the selected row opens up to (the node view shows everything).
const DETAIL_MAX: usize = 8;

/// The selected row's detail lines, wrapped to the column, `room` of them at most: at the
/// Filter summary every line the trace holds for the node, at a plugin step that plugin's
/// lines.
fn detail_lines(r: &FilterRow<'_>, plugin: Option<&str>, width: usize, room: usize) -> Vec<String> {
    let first = r.plugin();
    let mut out = Vec::new();
    for d in analysis::node_detail(r.entry) {
        if plugin.is_some_and(|p| p != d.plugin) {
            continue;
        }
        let text = if plugin.is_none() && d.plugin != first && !d.plugin.is_empty() {
            format!("{}: {}", d.plugin, d.text)
        } else {
            d.text
        };
        out.extend(wrap(&format!("↳ {text}"), width, DETAIL_MAX));
    }
    if out.len() > room {
        out.truncate(room.saturating_sub(1));
        if room > 0 {
            out.extend(wrap("… (Enter: the node view shows it all)", width, 1));
        }
    }
    out
}
