//! The Score panel: a nodes × plugins matrix (raw, normalized or weighted values) with totals,
//! the winner and ties highlighted, and the top nodes' totals as bars stacked by plugin. At a
//! plugin step: that plugin's raw, normalized and weighted score on every node.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{ViewState, block, record_rows};
use crate::app::analysis::{abbreviate, score_plugins, score_rows};
use crate::app::{App, PodView, ScoreMode};
use crate::engine::framework::trace::{Explanation, NodeScoreTrace, PluginScore};
use crate::tui::theme::{Theme, marked};

fn heat(theme: &Theme, normalized: i64) -> Style {
    match normalized {
        67.. => theme.heat_high,
        34..67 => theme.heat_mid,
        _ => theme.heat_low,
    }
}

fn value(p: &PluginScore, mode: ScoreMode) -> i64 {
    match mode {
        ScoreMode::Raw => p.raw,
        ScoreMode::Normalized => p.normalized,
        ScoreMode::Weighted => p.weighted,
    }
}

fn row_style(ex: &Explanation, node: &str, theme: &Theme) -> Style {
    if ex.selected.iter().any(|s| s == node) {
        if ex.selected.len() > 1 { theme.tie } else { theme.winner }
    } else {
        Style::default()
    }
}

fn u16w(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// Draws the Score panel.
#[allow(clippy::too_many_arguments)]
pub(super) fn render(
    app: &App,
    ex: &Explanation,
    v: &PodView,
    plugin: Option<&str>,
    theme: &Theme,
    view: &mut ViewState,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    let rows = score_rows(ex);
    let ties = if ex.selected.len() > 1 {
        format!(" · {} nodes tie", ex.selected.len())
    } else {
        String::new()
    };
    let title = Line::from(vec![
        Span::raw(format!(" Score · {} feasible node(s){ties}", rows.len())),
        Span::styled(format!(" · values: {} (v) ", v.score_mode.name()), theme.muted),
    ]);
    let b = block(theme, title);
    let inner = b.inner(area);
    frame.render_widget(b, area);
    if rows.is_empty() {
        frame.render_widget(
            Paragraph::new(Span::styled("Score did not run: no node passed Filter.", theme.muted)),
            inner,
        );
        return;
    }
    let order: Vec<&str> = app
        .profile(&ex.profile)
        .map(|f| f.plugins_at("Score"))
        .unwrap_or_default();
    let plugins = score_plugins(ex, &order);
    let node_w = rows
        .iter()
        .map(|r| r.node.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 28);
    if let Some(p) = plugin {
        plugin_table(ex, &rows, p, node_w, v, theme, view, frame, inner);
        return;
    }
    let legend: Vec<Span<'_>> = plugins
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            let w = ex
                .score
                .first()
                .and_then(|n| n.plugins.iter().find(|x| x.plugin == p))
                .map_or(0, |x| x.weight);
            [
                Span::styled("■ ", Style::default().fg(theme.series_color(i))),
                Span::styled(abbreviate(p), theme.key),
                Span::styled(format!("={p}×{w}  "), theme.muted),
            ]
        })
        .collect();
    let legend_len: usize = legend.iter().map(|s| s.content.chars().count()).sum();
    let legend_h = u16w(legend_len.div_ceil(usize::from(inner.width.max(1))).clamp(1, 3));
    let matrix_h = u16w(rows.len() + 1).min(inner.height.saturating_sub(legend_h));
    let bars_h = inner.height.saturating_sub(matrix_h + legend_h + 1);
    let [m_area, l_area, _, b_area] = Layout::vertical([
        Constraint::Length(matrix_h),
        Constraint::Length(legend_h),
        Constraint::Length(u16::from(bars_h > 0)),
        Constraint::Min(0),
    ])
    .areas(inner);
    // the matrix
    let col_w: Vec<usize> = plugins.iter().map(|p| abbreviate(p).chars().count().max(5)).collect();
    let mut header = vec![Cell::from("NODE"), Cell::from("TOTAL")];
    header.extend(
        plugins
            .iter()
            .zip(&col_w)
            .map(|(p, &w)| Cell::from(format!("{:>w$}", abbreviate(p)))),
    );
    let table_rows: Vec<Row<'_>> = rows
        .iter()
        .map(|r| {
            let mut cells = vec![
                Cell::from(Span::styled(
                    r.node.clone(),
                    marked(theme.accent, row_style(ex, &r.node, theme)),
                )),
                Cell::from(Span::styled(format!("{:>5}", r.total), row_style(ex, &r.node, theme))),
            ];
            for (i, p) in plugins.iter().enumerate() {
                let w = col_w[i];
                cells.push(match r.plugins.iter().find(|x| x.plugin == p) {
                    Some(s) => Cell::from(Span::styled(
                        format!("{:>w$}", value(s, v.score_mode)),
                        heat(theme, s.normalized),
                    )),
                    None => Cell::from(Span::styled(format!("{:>w$}", "-"), theme.muted)),
                });
            }
            let mark = if ex.selected.iter().any(|s| s == &r.node) {
                Span::styled(
                    if ex.selected.len() > 1 { " tie" } else { " ◀ winner" },
                    row_style(ex, &r.node, theme),
                )
            } else {
                Span::raw("")
            };
            cells.push(Cell::from(mark));
            Row::new(cells)
        })
        .collect();
    let mut widths = vec![Constraint::Length(u16w(node_w)), Constraint::Length(5)];
    widths.extend(col_w.iter().map(|&w| Constraint::Length(u16w(w))));
    widths.push(Constraint::Min(0));
    let table = Table::new(table_rows, widths)
        .header(Row::new(header).style(theme.header))
        .row_highlight_style(theme.selected)
        .column_spacing(1);
    view.panel.select(Some(v.selected.min(rows.len() - 1)));
    frame.render_stateful_widget(table, m_area, &mut view.panel);
    record_rows(view, m_area, view.panel.offset());
    frame.render_widget(Paragraph::new(Line::from(legend)).wrap(Wrap { trim: false }), l_area);
    if bars_h > 0 {
        bars(&rows, &plugins, ex, node_w, theme, frame, b_area);
    }
}

const MONO_FILL: [&str; 4] = ["█", "▓", "▒", "░"];

fn bars(
    rows: &[&NodeScoreTrace],
    plugins: &[String],
    ex: &Explanation,
    node_w: usize,
    theme: &Theme,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    let max_total = rows.iter().map(|r| r.total).max().unwrap_or(0).max(1);
    let bar_w = usize::from(area.width).saturating_sub(node_w + 8);
    let n = usize::from(area.height).saturating_sub(1);
    let mut lines = vec![Line::from(Span::styled(
        format!("Top {} total(s), stacked by plugin (weighted):", n.min(rows.len())),
        theme.muted,
    ))];
    for r in rows.iter().take(n) {
        let mut spans = vec![
            Span::styled(
                format!("{:<node_w$} ", r.node),
                marked(theme.accent, row_style(ex, &r.node, theme)),
            ),
            Span::styled(format!("{:>5} ", r.total), row_style(ex, &r.node, theme)),
        ];
        let mut cum = 0i64;
        let mut drawn = 0usize;
        for (i, p) in plugins.iter().enumerate() {
            let Some(s) = r.plugins.iter().find(|x| x.plugin == p) else {
                continue;
            };
            cum += s.weighted.max(0);
            let end = usize::try_from(cum * i64::try_from(bar_w).unwrap_or(0) / max_total).unwrap_or(0);
            if end > drawn {
                let fill = if theme.series.len() <= 1 {
                    MONO_FILL[i % MONO_FILL.len()]
                } else {
                    "█"
                };
                spans.push(Span::styled(
                    fill.repeat(end - drawn),
                    Style::default().fg(theme.series_color(i)),
                ));
                drawn = end;
            }
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

#[allow(clippy::too_many_arguments)]
fn plugin_table(
    ex: &Explanation,
    rows: &[&NodeScoreTrace],
    plugin: &str,
    node_w: usize,
    v: &PodView,
    theme: &Theme,
    view: &mut ViewState,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    let ran = rows.iter().any(|r| r.plugins.iter().any(|x| x.plugin == plugin));
    let skipped = ex
        .pre_score
        .iter()
        .any(|s| s.plugin == plugin && s.code == crate::engine::framework::status::Code::Skip);
    let note = if ran {
        format!("{plugin}: Score() → NormalizeScore (0-100) → × weight")
    } else if skipped {
        format!("{plugin} returned Skip at PreScore: it does not score this pod")
    } else {
        format!("{plugin} did not score (not implemented or not in the trace)")
    };
    let [n_area, t_area] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
    frame.render_widget(Paragraph::new(Span::styled(note, theme.muted)), n_area);
    if !ran {
        return;
    }
    let bar_w = usize::from(area.width).saturating_sub(node_w + 40).clamp(0, 30);
    let table_rows: Vec<Row<'_>> = rows
        .iter()
        .map(|r| {
            let s = r.plugins.iter().find(|x| x.plugin == plugin);
            let num = |f: fn(&PluginScore) -> i64| s.map_or("-".to_string(), |s| f(s).to_string());
            let filled = s.map_or(0, |s| {
                usize::try_from(s.normalized.clamp(0, 100)).unwrap_or(0) * bar_w / 100
            });
            let heat_style = s.map_or(theme.muted, |s| heat(theme, s.normalized));
            Row::new(vec![
                Cell::from(Span::styled(
                    r.node.clone(),
                    marked(theme.accent, row_style(ex, &r.node, theme)),
                )),
                Cell::from(format!("{:>6}", num(|s| s.raw))),
                Cell::from(Span::styled(format!("{:>6}", num(|s| s.normalized)), heat_style)),
                Cell::from(format!("{:>3}", num(|s| s.weight))),
                Cell::from(Span::styled(format!("{:>6}", num(|s| s.weighted)), heat_style)),
                Cell::from(Span::styled(
                    "█".repeat(filled),
                    Style::default().fg(theme.series_color(0)),
                )),
            ])
        })
        .collect();
    let widths = [
        Constraint::Length(u16w(node_w)),
        Constraint::Length(6),
        Constraint::Length(6),
        Constraint::Length(3),
        Constraint::Length(6),
        Constraint::Min(0),
    ];
    let table = Table::new(table_rows, widths)
        .header(Row::new(vec!["NODE", "   RAW", "  NORM", "WT", " SCORE", "NORMALIZED 0-100"]).style(theme.header))
        .row_highlight_style(theme.selected)
        .column_spacing(1);
    view.panel.select(Some(v.selected.min(rows.len() - 1)));
    frame.render_stateful_widget(table, t_area, &mut view.panel);
    record_rows(view, t_area, view.panel.offset());
}
