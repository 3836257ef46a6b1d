//! The gang screen (`m` or `:gang`): the pod's group as a whole. Its pending members are
//! scheduled one after another on the cluster as it is (each sees the ones placed before it);
//! the screen says whether the group reaches its quorum, which member blocks it, and how long
//! the members that fit wait at Permit.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{ViewState, block, selectable_table};
use crate::app::{App, GangView};
use crate::engine::framework::handle::go_duration;
use crate::engine::group_cycle::{GroupOutcome, MemberResult};
use crate::tui::theme::Theme;

/// Draws the gang screen.
/// Most lines of placements the screen's head shows (the member table keeps its room).
const PLACEMENT_LINES: usize = 6;

pub(super) fn render(app: &App, v: &GangView, theme: &Theme, view: &mut ViewState, frame: &mut Frame<'_>, area: Rect) {
    let notice = |frame: &mut Frame<'_>, text: String, style| {
        let b = block(theme, format!(" Gang of {} ", v.pod));
        let inner = b.inner(area);
        frame.render_widget(b, area);
        frame.render_widget(
            Paragraph::new(Span::styled(text, style)).wrap(Wrap { trim: false }),
            inner,
        );
    };
    let g = match app.groups.get(&v.pod) {
        Some(Some(Ok(Some(g)))) => g.clone(),
        Some(Some(Ok(None))) => {
            let msg = format!("{} is in no gang: no Permit plugin of its profile groups it.", v.pod);
            return notice(frame, msg, theme.muted);
        }
        Some(Some(Err(e))) => return notice(frame, format!("The group could not be scheduled: {e}"), theme.fail),
        _ => {
            let msg = "Scheduling the group's pending members one after another…".to_string();
            return notice(frame, msg, theme.muted);
        }
    };
    let t = &g.gang;
    let b = block(
        theme,
        Line::from(vec![
            Span::raw(format!(" Gang {} ", t.group.split(" (").next().unwrap_or(&t.group))),
            Span::styled(format!("· {} ", t.plugin), theme.muted),
        ]),
    );
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let complete = matches!(g.outcome, GroupOutcome::Completes);
    let mut head = vec![
        // the story the pod list and every member's view tell
        Line::from(Span::styled(g.headline(), if complete { theme.ok } else { theme.fail })),
        Line::from(vec![
            Span::styled("quorum ", theme.muted),
            Span::raw(format!("minMember {}", t.min_member)),
            Span::styled(" · members ", theme.muted),
            Span::raw(t.members.to_string()),
            Span::styled(" · already on a node ", theme.muted),
            Span::raw(g.bound_before.to_string()),
            Span::styled(" · Permit timeout ", theme.muted),
            Span::raw(go_duration(std::time::Duration::from_millis(t.timeout_ms))),
        ]),
        Line::from(Span::styled(g.verdict(), if complete { theme.ok } else { theme.fail })),
    ];
    if !t.waiting.is_empty() {
        let w: Vec<String> = t
            .waiting
            .iter()
            .map(|w| {
                format!(
                    "{} on {} ({} left)",
                    w.pod,
                    w.node,
                    go_duration(std::time::Duration::from_millis(w.time_left_ms))
                )
            })
            .collect();
        head.push(Line::from(vec![
            Span::styled("waiting at Permit now: ", theme.muted),
            Span::raw(w.join(", ")),
        ]));
    }
    if let Some(p) = &g.placements {
        // 1.36's TopologyAwareWorkloadScheduling: the placements the group was tried in
        let lines = crate::explain::group::placement_lines(p);
        let shown = if lines.len() > PLACEMENT_LINES {
            PLACEMENT_LINES - 1
        } else {
            lines.len()
        };
        let more = lines.len() - shown;
        head.extend(
            lines
                .into_iter()
                .take(shown)
                .map(|l| Line::from(Span::styled(l, theme.muted))),
        );
        if more > 0 {
            head.push(Line::from(Span::styled(
                format!("  … {more} more line(s): `kschedtui explain` lists every placement"),
                theme.muted,
            )));
        }
    }
    if let Some(p) = &g.preemption {
        // workload-aware preemption: the group's victims, or why it cannot preempt
        head.extend(
            crate::explain::group::preemption_lines(p)
                .into_iter()
                .map(|l| Line::from(Span::styled(l, theme.muted))),
        );
    }
    let head = Paragraph::new(head).wrap(Wrap { trim: false });
    // the head's height as wrapped at this width, and a blank line
    let head_h = u16::try_from(head.line_count(inner.width) + 1).unwrap_or(4);
    let [head_area, table_area, detail_area] =
        Layout::vertical([Constraint::Length(head_h), Constraint::Min(3), Constraint::Length(5)]).areas(inner);
    frame.render_widget(head, head_area);
    let blockers: &[_] = match &g.outcome {
        GroupOutcome::Short { blockers, .. } => blockers,
        _ => &[],
    };
    let style_of = |r: &MemberResult| match r {
        MemberResult::Bound { .. } => theme.ok,
        MemberResult::Waiting { .. }
        | MemberResult::Released { .. }
        | MemberResult::Rejected { .. }
        | MemberResult::Preempting { .. } => theme.warn,
        _ => theme.fail,
    };
    let state_of = |r: &MemberResult| match r {
        MemberResult::Bound { .. } => "binds",
        MemberResult::Waiting { .. } => "waits at Permit",
        MemberResult::Released { .. } => "fits, released",
        MemberResult::Rejected { .. } => "fits, rejected with the group",
        MemberResult::Held { .. } => "held",
        MemberResult::Preempting { .. } => "preempts",
        MemberResult::Unschedulable { .. } => "fits nowhere",
        MemberResult::NotScheduled { .. } => "not scheduled",
    };
    let rows: Vec<Row<'_>> = g
        .members
        .iter()
        .map(|m| {
            let mark = if blockers.contains(&m.pod) {
                "blocks the group"
            } else {
                ""
            };
            Row::new(vec![
                Cell::from(Span::styled(m.pod.to_string(), theme.accent)),
                Cell::from(Span::styled(state_of(&m.result), style_of(&m.result))),
                Cell::from(Span::styled(mark, theme.fail)),
                Cell::from(m.result.describe()),
            ])
        })
        .collect();
    let pod_w = g
        .members
        .iter()
        .map(|m| m.pod.to_string().chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, 48);
    let table = Table::new(
        rows,
        [
            Constraint::Length(u16::try_from(pod_w).unwrap_or(48)),
            Constraint::Length(15),
            Constraint::Length(16),
            Constraint::Min(10),
        ],
    )
    .header(Row::new(["MEMBER", "IN THE PASS", "", "WHAT HAPPENS"]).style(theme.header))
    .row_highlight_style(theme.selected)
    .column_spacing(1);
    if g.members.is_empty() {
        frame.render_widget(
            Paragraph::new(Span::styled("No pending member.", theme.muted)),
            table_area,
        );
        return;
    }
    let sel = selectable_table(view, frame, table, table_area, v.selected, g.members.len());
    let m = &g.members[sel];
    let detail = vec![
        Line::from(vec![
            Span::styled(m.pod.to_string(), theme.accent),
            Span::styled("  (Enter: its trip through the scheduler)", theme.muted),
        ]),
        Line::from(m.result.describe()),
    ];
    frame.render_widget(Paragraph::new(detail).wrap(Wrap { trim: false }), detail_area);
}
