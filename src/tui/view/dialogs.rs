//! Dialogs and full-body messages: loading, load failure, confirmation of a write or of quitting
//! with unsaved changes, and the inline what-if form.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::{ViewState, block, centered, spinner};
use crate::app::whatif::EditForm;
use crate::app::{App, Pending, SourceKind};
use crate::tui::theme::Theme;

/// The body while the cluster loads: the source, then a line per kind listed so far (the
/// newest last; the oldest left out when the screen is short).
pub(super) fn loading(app: &App, theme: &Theme, view: &mut ViewState, frame: &mut Frame<'_>, area: Rect) {
    let spin = spinner(app, view);
    let mut lines = vec![Line::from(Span::styled(
        format!("{spin} loading {}…", app.source.name),
        theme.warn,
    ))];
    // the box's border and the first line leave this many lines for the kinds
    let room = usize::from(area.height.saturating_sub(3)).max(1);
    let hidden = if app.progress.len() > room {
        app.progress.len() + 1 - room
    } else {
        0
    };
    if hidden > 0 {
        lines.push(Line::from(Span::styled(
            format!("  ✓ {hidden} kind(s) listed before"),
            theme.muted,
        )));
    }
    let shown = &app.progress[hidden..];
    let name_w = shown.iter().map(|p| p.kind.chars().count()).max().unwrap_or(0);
    let count_w = shown.iter().map(|p| p.items.to_string().len()).max().unwrap_or(0);
    for p in shown {
        let (mark, style, pages) = if p.done {
            ("✓", theme.ok, format!("{} page(s)", p.pages))
        } else {
            (spin, theme.warn, format!("{} page(s) so far", p.pages))
        };
        lines.push(Line::from(vec![
            Span::styled(format!("  {mark} "), style),
            Span::raw(format!("{:<name_w$}  {:>count_w$}  ", p.kind, p.items)),
            Span::styled(pages, theme.muted),
        ]));
    }
    let w = lines.iter().map(Line::width).max().unwrap_or(20) + 4;
    let h = lines.len() + 2;
    let r = centered(
        area,
        u16::try_from(w).unwrap_or(u16::MAX),
        u16::try_from(h).unwrap_or(u16::MAX),
    );
    frame.render_widget(Clear, r);
    frame.render_widget(Paragraph::new(lines).block(block(theme, "")), r);
}

/// The body when loading failed.
pub(super) fn failed(e: &str, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let lines = vec![
        Line::from(Span::styled("The cluster could not be loaded:", theme.header)),
        Line::from(""),
        Line::from(Span::styled(e.to_string(), theme.fail)),
        Line::from(""),
        Line::from(vec![Span::styled("q", theme.key), Span::raw(" quits")]),
    ];
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(theme, " Error ")),
        area,
    );
}

/// The confirmation of a write, listing the exact writes.
pub(super) fn confirm(app: &App, p: &Pending, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let mut lines = Vec::new();
    if let Pending::Bind { warning: Some(w), .. } = p {
        lines.push(Line::from(Span::styled(format!("⚠ {w}"), theme.warn)));
        lines.push(Line::from(""));
    }
    lines.push(Line::from(Span::styled("Writes:", theme.header)));
    let writes: Vec<Line<'_>> = app
        .confirm_writes(p)
        .into_iter()
        .map(|w| Line::from(Span::raw(format!("  {w}"))))
        .collect();
    let head = std::mem::take(&mut lines);
    lines.push(Line::from(""));
    match app.source.kind {
        SourceKind::Snapshot | SourceKind::Demo => {
            lines.push(Line::from(Span::styled(
                "Snapshot mode: nothing is sent to a cluster. The change stays in memory",
                theme.accent,
            )));
            lines.push(Line::from(Span::styled(
                "(the snapshot file is not modified; :w FILE saves it) and the scheduler runs again.",
                theme.accent,
            )));
        }
        SourceKind::Live => {
            let dry = app
                .live
                .as_ref()
                .is_some_and(|l| l.write_mode == crate::source::write::WriteMode::DryRun);
            lines.push(Line::from(Span::styled(
                if dry {
                    "Sent to the cluster as server-side dry runs (dryRun=All): nothing changes."
                } else {
                    "These requests are sent to the live cluster, in this order; a failure stops the rest."
                },
                theme.warn,
            )));
        }
    }
    lines.push(Line::from(""));
    lines.push(Line::from(vec![
        Span::styled("y", theme.key),
        Span::raw(" confirm   "),
        Span::styled("n", theme.key),
        Span::raw("/"),
        Span::styled("Esc", theme.key),
        Span::raw("/"),
        Span::styled("Enter", theme.key),
        Span::raw(" cancel"),
    ]));
    let footer = lines;
    let width = head
        .iter()
        .chain(&writes)
        .chain(&footer)
        .map(Line::width)
        .max()
        .unwrap_or(40)
        .saturating_add(4);
    let popup_w = u16::try_from(width).unwrap_or(100).max(50).min(area.width);
    // the height the wrapped text needs; on a small terminal the last requests give way, said
    // so, and the footer (where the writes go, the keys) always shows
    let height = |ls: &[Line<'_>]| {
        Paragraph::new(ls.to_vec())
            .wrap(Wrap { trim: false })
            .line_count(popup_w.saturating_sub(2))
    };
    let room = usize::from(area.height.saturating_sub(2));
    let mut shown = writes.len();
    let lines = loop {
        let mut ls = head.clone();
        ls.extend(writes[..shown].iter().cloned());
        if shown < writes.len() {
            ls.push(Line::from(Span::styled(
                format!(
                    "  … {} more request(s) not shown: enlarge the terminal to see them all",
                    writes.len() - shown
                ),
                theme.warn,
            )));
        }
        ls.extend(footer.iter().cloned());
        if shown == 0 || height(&ls) <= room {
            break ls;
        }
        shown -= 1;
    };
    let popup = centered(area, popup_w, u16::try_from(height(&lines) + 2).unwrap_or(u16::MAX));
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines)
            .style(theme.popup)
            .wrap(Wrap { trim: false })
            .block(block(theme, format!(" {} ", p.title())).style(theme.popup)),
        popup,
    );
}

/// `q` with unsaved in-memory changes: which changes would be lost, and how to keep them.
pub(super) fn confirm_quit(app: &App, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let unsaved = app.unsaved();
    let mut lines = vec![Line::from(Span::styled(
        format!("{} in-memory change(s) are not saved:", unsaved.len()),
        theme.header,
    ))];
    let room = usize::from(area.height.saturating_sub(9)).max(1);
    for c in unsaved.iter().take(room) {
        lines.push(Line::from(Span::raw(format!("  {c}"))));
    }
    if unsaved.len() > room {
        lines.push(Line::from(Span::styled(
            format!("  … {} more", unsaved.len() - room),
            theme.muted,
        )));
    }
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "Quitting loses them. :w FILE saves the cluster with them first; :q! quits without asking.",
        theme.warn,
    )));
    lines.push(Line::from(""));
    lines.push(Line::from(vec![
        Span::styled("y", theme.key),
        Span::raw(" quit   "),
        Span::styled("n", theme.key),
        Span::raw("/"),
        Span::styled("Esc", theme.key),
        Span::raw("/"),
        Span::styled("Enter", theme.key),
        Span::raw(" stay"),
    ]));
    let width = lines.iter().map(Line::width).max().unwrap_or(40).saturating_add(4);
    let popup_w = u16::try_from(width).unwrap_or(100).max(40).min(area.width);
    let h = Paragraph::new(lines.clone())
        .wrap(Wrap { trim: false })
        .line_count(popup_w.saturating_sub(2));
    let popup = centered(area, popup_w, u16::try_from(h + 2).unwrap_or(u16::MAX));
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines)
            .style(theme.popup)
            .wrap(Wrap { trim: false })
            .block(block(theme, " Quit without saving? ").style(theme.popup)),
        popup,
    );
}

/// The inline what-if form.
pub(super) fn edit_form(form: &EditForm, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let label_w = form.fields.iter().map(|f| f.label.chars().count()).max().unwrap_or(8) + 2;
    let mut lines = vec![
        Line::from(Span::styled(
            "Edit the fields; Enter re-runs the scheduler on the changed copy (nothing is written).",
            theme.muted,
        )),
        Line::from(""),
    ];
    for (i, f) in form.fields.iter().enumerate() {
        let focused = i == form.focus;
        let mut spans = vec![
            Span::styled(
                format!("{:<label_w$}", f.label),
                if focused { theme.accent } else { theme.header },
            ),
            Span::styled(f.value.clone(), if focused { theme.selected } else { theme.base }),
        ];
        if focused {
            spans.push(Span::styled("▏", theme.accent));
        }
        lines.push(Line::from(spans));
        if focused {
            lines.push(Line::from(Span::styled(
                format!("{:label_w$}{}", "", f.hint),
                theme.muted,
            )));
        }
    }
    if let Some(e) = &form.error {
        lines.push(Line::from(""));
        lines.push(Line::from(Span::styled(e.clone(), theme.fail)));
    }
    lines.push(Line::from(""));
    lines.push(Line::from(vec![
        Span::styled("Enter", theme.key),
        Span::raw(" apply  "),
        Span::styled("Tab/↓", theme.key),
        Span::raw(" next field  "),
        Span::styled("Ctrl-u", theme.key),
        Span::raw(" clear  "),
        Span::styled("Esc", theme.key),
        Span::raw(" cancel"),
    ]));
    let popup = centered(
        area,
        area.width.saturating_sub(4).min(100),
        u16::try_from(lines.len() + 4).unwrap_or(16),
    );
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines)
            .style(theme.popup)
            .wrap(Wrap { trim: false })
            .block(block(theme, format!(" What-if: {} ", form.target)).style(theme.popup)),
        popup,
    );
}
