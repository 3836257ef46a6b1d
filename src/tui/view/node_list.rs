//! The node list (`:nodes`): capacity use per node and, when a pod is in focus, whether it fits.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};

use super::columns::{self, Col, Give};
use super::{ViewState, block, record_rows, window};
use crate::app::analysis::{class_for, nominated_usage};
use crate::app::node_list::{cpu_text, mem_text, pods_text, taints_text, zone_of};
use crate::app::{App, NodeList};
use crate::tui::theme::Theme;

/// The list's columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    Node,
    Zone,
    Cpu,
    Mem,
    Pods,
    Taints,
    State,
}

impl Column {
    /// The header (`fit`: a pod is in focus).
    fn header(self, fit: bool) -> &'static str {
        match self {
            Column::Node => "NODE",
            Column::Zone => "ZONE",
            Column::Cpu => "CPU REQ",
            Column::Mem => "MEM REQ",
            Column::Pods => "PODS",
            Column::Taints => "TAINTS",
            Column::State if fit => "STATE / FIT",
            Column::State => "STATE",
        }
    }
}

/// The most room the fit column keeps when the others give way: `nearly (NodeResourcesFit)`.
const STATE_MIN: usize = 25;

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
    // the columns as wide as their widest value; the fit of the pod in focus answers the
    // list's question and keeps the room its verdicts on screen need (up to "nearly
    // (NodeResourcesFit)"): the taints are cut, then left out, then the pod counts, the
    // memory and the CPU requests (numbers are never cut), then the zone and the node's name
    // are cut (cut text ends in `…`).
    let fit_of = |n: &crate::model::Node| -> Option<Span<'static>> {
        let f = ex.as_ref()?.filter.iter().find(|f| f.node == n.name)?;
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
        Some(Span::styled(format!("{}{what}", c.label()), style))
    };
    let state_of = |n: &crate::model::Node| -> Line<'static> {
        let mut state = if n.unschedulable {
            vec![Span::styled("cordoned ", theme.fail)]
        } else {
            vec![]
        };
        state.extend(fit_of(n));
        Line::from(state)
    };
    let state_w = rows
        .nodes(app, start..end)
        .map(|n| state_of(n).width())
        .max()
        .unwrap_or(0)
        .max(Column::State.header(ex.is_some()).len());
    // a header and the sort's direction beside it are never cut
    let head_w = |c: Column| {
        let h = c.header(ex.is_some());
        h.len() + usize::from(h.starts_with(v.sort.column()))
    };
    let mut cols = vec![
        (
            Column::Node,
            Col::text(w.node.clamp(4, 40).max(head_w(Column::Node)), 12),
        ),
        (Column::Zone, Col::text(w.zone.max(head_w(Column::Zone)), 8)),
        (Column::Cpu, Col::number(w.cpu.max(head_w(Column::Cpu)))),
        (Column::Mem, Col::number(w.mem.max(head_w(Column::Mem)))),
        (Column::Pods, Col::number(w.pods.max(head_w(Column::Pods)))),
    ];
    if wide {
        cols.push((
            Column::Taints,
            Col::text(w.taints.clamp(6, 40).max(head_w(Column::Taints)), 12),
        ));
    }
    cols.push((Column::State, Col::text(0, 0)));
    let at = |c: Column| cols.iter().position(|x| x.0 == c);
    let steps: Vec<Give> = [
        (Column::Taints, false),
        (Column::Taints, true),
        (Column::Pods, true),
        (Column::Mem, true),
        (Column::Cpu, true),
        (Column::Zone, false),
        (Column::Node, false),
    ]
    .into_iter()
    .filter_map(|(c, drop)| at(c).map(|i| if drop { Give::Drop(i) } else { Give::Cut(i) }))
    .collect();
    let total = usize::from(inner.width);
    let specs: Vec<Col> = cols.iter().map(|c| c.1).collect();
    let shown: Vec<(Column, usize)> = columns::fit(total, 1, &specs, cols.len() - 1, state_w.min(STATE_MIN), &steps)
        .into_iter()
        .zip(&cols)
        .filter_map(|(x, c)| x.map(|x| (c.0, x)))
        .collect();
    let table_rows: Vec<Row<'_>> = rows
        .nodes(app, start..end)
        .map(|n| {
            let u = app.usage.get(&n.name);
            let cell = |&(c, cw): &(Column, usize)| {
                let line = match c {
                    Column::Node => Line::from(Span::styled(n.name.clone(), theme.accent)),
                    Column::Zone => Line::from(Span::styled(zone_of(n).to_string(), theme.muted)),
                    Column::Cpu => Line::from(cpu_text(n, u, rows.cpu_unit())),
                    Column::Mem => Line::from(mem_text(n, u)),
                    Column::Pods => Line::from(pods_text(n, u)),
                    Column::Taints => Line::from(Span::styled(taints_text(n), theme.muted)),
                    Column::State => state_of(n),
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
    // the sorted column carries the direction, as in k9s
    let header: Vec<String> = shown
        .iter()
        .map(|&(c, cw)| {
            let name = c.header(ex.is_some());
            let text = if name.starts_with(v.sort.column()) {
                format!("{name}{}", v.sort.arrow(v.reverse))
            } else {
                name.to_string()
            };
            columns::cut(&text, cw).into_owned()
        })
        .collect();
    let table = Table::new(table_rows, widths)
        .header(Row::new(header).style(theme.header))
        .row_highlight_style(theme.selected)
        .column_spacing(1);
    let mut state = TableState::default().with_selected(Some(sel - start));
    frame.render_stateful_widget(table, inner, &mut state);
    view.nodes.select(Some(sel));
    *view.nodes.offset_mut() = start;
    record_rows(view, inner, start);
}
