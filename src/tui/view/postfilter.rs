//! The PostFilter panel: what preemption found — the nominated node and its victims, every
//! candidate node with its victims and PDB violations, and why other nodes could not help.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{ViewState, block, record_rows};
use crate::app::App;
use crate::app::stepper::{Pipeline, Point, PointState};
use crate::engine::framework::trace::Explanation;
use crate::tui::theme::Theme;

/// Draws the PostFilter panel.
#[allow(clippy::too_many_arguments)]
pub(super) fn render(
    _app: &App,
    ex: &Explanation,
    pl: &Pipeline,
    plugin: Option<&str>,
    selected: usize,
    theme: &Theme,
    view: &mut ViewState,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    let name = ex
        .post_filter
        .as_ref()
        .map_or_else(|| plugin.unwrap_or("").to_string(), |p| p.plugin.clone());
    let b = block(
        theme,
        format!(
            " PostFilter{} ",
            if name.is_empty() {
                String::new()
            } else {
                format!(" · {name}")
            }
        ),
    );
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let Some(pf) = &ex.post_filter else {
        let state = pl.stage(Point::PostFilter).map(|s| s.state);
        let mut lines = vec![Line::from(Span::styled(
            match state {
                Some(PointState::Skipped) if ex.schedulable() => "Not needed: at least one node passed Filter.",
                Some(PointState::NotReached) => "Not reached.",
                _ => "No PostFilter result: preemption was not attempted.",
            },
            theme.muted,
        ))];
        for n in ex
            .notes
            .iter()
            .filter(|n| n.contains("PostFilter") || n.contains("Preemption"))
        {
            lines.push(Line::from(Span::styled(format!("note: {n}"), theme.warn)));
        }
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
        return;
    };
    let mut lines = vec![Line::from(vec![
        Span::styled("status: ", theme.muted),
        Span::raw(pf.code.map_or("-", |c| c.as_str()).to_string()),
    ])];
    match &pf.nominated_node {
        Some(n) => {
            let v: Vec<String> = pf.victims.iter().map(ToString::to_string).collect();
            lines.push(Line::from(vec![
                Span::styled("nominated node: ", theme.muted),
                Span::styled(n.clone(), theme.ok),
                Span::styled(" · victims: ", theme.muted),
                Span::styled(if v.is_empty() { "none".into() } else { v.join(", ") }, theme.warn),
                Span::styled("   (x preempts)", theme.key),
            ]));
        }
        None if !pf.message.is_empty() => lines.push(Line::from(Span::styled(pf.message.clone(), theme.fail))),
        None => {}
    }
    if !pf.random_tie.is_empty() {
        // tied on every criterion of pickOneNodeForPreemption: kschedtui shows the first
        lines.push(Line::from(vec![
            Span::styled("random tie: ", theme.muted),
            Span::styled(pf.random_tie.join(", "), theme.warn),
            Span::styled(" (upstream picks one at random)", theme.muted),
        ]));
    }
    let head_h = u16::try_from(lines.len()).unwrap_or(2);
    let notes: Vec<Line<'_>> = pf
        .node_notes
        .iter()
        .map(|(n, r)| {
            Line::from(vec![
                Span::styled(format!("{n}: "), theme.accent),
                Span::styled(r.clone(), theme.muted),
            ])
        })
        .collect();
    let notes_h = u16::try_from(notes.len().min(6)).unwrap_or(6);
    let [h_area, t_area, n_area] = Layout::vertical([
        Constraint::Length(head_h),
        Constraint::Min(0),
        Constraint::Length(notes_h),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), h_area);
    frame.render_widget(Paragraph::new(notes), n_area);
    if pf.candidates.is_empty() {
        frame.render_widget(Paragraph::new(Span::styled("No candidate node.", theme.muted)), t_area);
        return;
    }
    let rows: Vec<Row<'_>> = pf
        .candidates
        .iter()
        .map(|c| {
            let chosen = pf.nominated_node.as_deref() == Some(c.node.as_str());
            let v: Vec<String> = c.victims.iter().map(ToString::to_string).collect();
            Row::new(vec![
                Cell::from(Span::styled(
                    c.node.clone(),
                    if chosen { theme.winner } else { theme.accent },
                )),
                Cell::from(v.join(", ")),
                Cell::from(Span::styled(
                    pdb_cell(c),
                    if c.pdb_violations > 0 { theme.fail } else { theme.muted },
                )),
                Cell::from(Span::styled(c.note.clone(), theme.muted)),
            ])
        })
        .collect();
    let node_w = pf
        .candidates
        .iter()
        .map(|c| c.node.chars().count())
        .max()
        .unwrap_or(9)
        .clamp(9, 28);
    let pdb_w = pf
        .candidates
        .iter()
        .map(|c| pdb_cell(c).chars().count())
        .max()
        .unwrap_or(3)
        .clamp(3, 32);
    let table = Table::new(
        rows,
        [
            Constraint::Length(u16::try_from(node_w).unwrap_or(28)),
            Constraint::Percentage(35),
            Constraint::Length(u16::try_from(pdb_w).unwrap_or(32)),
            Constraint::Min(10),
        ],
    )
    .header(Row::new(vec!["CANDIDATE", "VICTIMS", "PDB", "DECIDING CRITERION"]).style(theme.header))
    .row_highlight_style(theme.selected)
    .column_spacing(1);
    view.panel.select(Some(selected.min(pf.candidates.len() - 1)));
    frame.render_stateful_widget(table, t_area, &mut view.panel);
    record_rows(view, t_area, view.panel.offset());
}

/// A candidate's PDB column: how many of its victims' PodDisruptionBudgets it would violate,
/// and which ("1 shop/payments-pdb").
fn pdb_cell(c: &crate::engine::framework::trace::Candidate) -> String {
    if c.violated_pdbs.is_empty() {
        return c.pdb_violations.to_string();
    }
    let names: Vec<String> = c.violated_pdbs.iter().map(ToString::to_string).collect();
    format!("{} {}", c.pdb_violations, names.join(", "))
}
