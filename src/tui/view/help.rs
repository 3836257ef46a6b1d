//! The `?` overlay, generated from the key table: the current screen's keys, then the global
//! ones, in table order.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::{block, centered};
use crate::app::update::COMMANDS;
use crate::app::{App, keymap};
use crate::tui::theme::Theme;

/// Draws the overlay.
pub(super) fn render(app: &App, scroll: u16, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let popup = centered(area, 84, area.height.saturating_sub(2).max(8));
    let mut lines = vec![Line::from(Span::styled(
        "Keys for this screen (the same table drives them). Esc or ? closes; j/k scroll.",
        theme.muted,
    ))];
    let key_w = 14;
    for (scope, rows) in keymap::help_sections(app) {
        lines.push(Line::from(""));
        lines.push(Line::from(Span::styled(scope.title(), theme.header)));
        for (k, h) in rows {
            lines.push(Line::from(vec![
                Span::styled(format!("  {k:<key_w$}"), theme.key),
                Span::raw(h),
            ]));
        }
    }
    if app.screen().is_none() {
        // what the pod list's first column says
        lines.push(Line::from(""));
        lines.push(Line::from(Span::styled("Pod list marks", theme.header)));
        for (glyph, style, what) in [
            (
                "✗",
                theme.fail,
                "not scheduled: no node fits, it is held, or its gang fails",
            ),
            (
                "◐",
                theme.warn,
                "pending, a node fits: the scheduler would bind it there",
            ),
            (
                "…",
                theme.muted,
                "waits for another scheduler: no profile serves its schedulerName",
            ),
            ("●", theme.ok, "bound to a node"),
            ("·", theme.muted, "finished (Succeeded or Failed)"),
            ("?", theme.muted, "not explained yet"),
        ] {
            lines.push(Line::from(vec![
                Span::styled(format!("  {glyph:<key_w$}"), style),
                Span::raw(what),
            ]));
        }
    }
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled("Commands", theme.header)));
    let cmd_w = COMMANDS
        .iter()
        .map(|c| c.synopsis().chars().count() + 2)
        .max()
        .unwrap_or(0)
        .max(key_w);
    for c in COMMANDS {
        lines.push(Line::from(vec![
            Span::styled(format!("  {:<cmd_w$}", c.synopsis()), theme.key),
            Span::raw(c.help),
        ]));
    }
    let max = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_sub(popup.height.saturating_sub(2));
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines)
            .style(theme.popup)
            .block(block(theme, " Help ").style(theme.popup))
            .scroll((scroll.min(max), 0)),
        popup,
    );
}
