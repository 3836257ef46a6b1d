//! Rendering: pure functions of `&App` and the theme that lay out widgets. [`ViewState`] holds
//! only ratatui widget state and where things were drawn (for mouse hit-testing), nothing of the
//! domain. One file per panel.

mod columns;
mod deschedule;
mod dialogs;
mod dra;
mod filter_table;
mod fixes;
mod gang;
mod help;
mod log;
mod node_list;
mod node_view;
mod pipeline;
mod pod_list;
mod pod_view;
mod postfilter;
mod queue;
mod score_matrix;
mod steps;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph, TableState};

use super::theme::Theme;
use crate::app::{App, Load, Mode, Screen, SourceKind, StatusKind, keymap};

/// Widget state and hit areas from the last frame.
#[derive(Debug, Default)]
pub struct ViewState {
    /// The pod list's table state.
    pub pods: TableState,
    /// The pod view panel's table state.
    pub panel: TableState,
    /// The node list's table state.
    pub nodes: TableState,
    /// Where the main table's rows were drawn (below its header).
    pub rows_area: Option<Rect>,
    /// The first row shown in `rows_area`.
    pub rows_offset: usize,
    /// A row drawn taller than one line (the Filter table's selected row with its detail):
    /// its index and how many lines it takes beyond the first.
    pub rows_expanded: Option<(usize, usize)>,
    /// Where each pipeline point was drawn.
    pub points: Vec<Rect>,
    /// A spinner was drawn: the next tick changes the frame.
    pub animated: bool,
    /// The clocks drawn (pod ages) read the same until this time (Unix seconds); None: the
    /// frame shows no clock.
    pub still_until: Option<i64>,
}

impl ViewState {
    /// True when the last frame, drawn again at `now`, would differ only because time passed:
    /// a spinner turns, or an age it shows changed.
    pub fn stale_at(&self, now: i64) -> bool {
        self.animated || self.still_until.is_some_and(|t| now >= t)
    }

    /// Notes a clock on screen that changes at `t`.
    pub fn clock_until(&mut self, t: Option<i64>) {
        if let Some(t) = t {
            self.still_until = Some(self.still_until.map_or(t, |u| u.min(t)));
        }
    }
}

impl ViewState {
    /// The row index under a screen position, if it is on the main table.
    pub fn row_at(&self, x: u16, y: u16) -> Option<usize> {
        let a = self.rows_area?;
        if !(x >= a.x && x < a.x + a.width && y >= a.y && y < a.y + a.height) {
            return None;
        }
        let line = usize::from(y - a.y);
        let row = self.rows_offset + line;
        Some(match self.rows_expanded {
            // lines below a taller row belong to the rows after it
            Some((r, extra)) if r >= self.rows_offset && row > r => {
                if row <= r + extra {
                    r
                } else {
                    row - extra
                }
            }
            _ => row,
        })
    }

    /// The pipeline point under a screen position.
    pub fn point_at(&self, x: u16, y: u16) -> Option<usize> {
        self.points
            .iter()
            .position(|r| x >= r.x && x < r.x + r.width && y == r.y)
    }
}

/// Spinner frames.
const SPINNER: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];

/// The spinner frame for the app's tick count (noted in `view`: the frame changes each tick).
pub fn spinner(app: &App, view: &mut ViewState) -> &'static str {
    view.animated = true;
    SPINNER[usize::try_from(app.ticks % 8).unwrap_or(0)]
}

/// A bordered block with a title.
pub fn block<'a>(theme: &Theme, title: impl Into<Line<'a>>) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(theme.border)
        .title(title.into().style(theme.title))
}

/// A rectangle of at most `w`×`h` centred in `area`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// Draws the whole screen.
pub fn render(app: &App, theme: &Theme, view: &mut ViewState, frame: &mut Frame<'_>) {
    let area = frame.area();
    frame.render_widget(Block::default().style(theme.base), area);
    view.rows_area = None;
    view.points.clear();
    view.animated = false;
    view.still_until = None;
    let [top, body, bottom] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(status_height(app, area.width)),
    ])
    .areas(area);
    header(app, theme, view, frame, top);
    match &app.load {
        Load::Loading => dialogs::loading(app, theme, view, frame, body),
        Load::Failed(e) => dialogs::failed(e, theme, frame, body),
        Load::Ready => match app.screen() {
            None => pod_list::render(app, theme, view, frame, body),
            Some(Screen::Pod(v)) => pod_view::render(app, v, theme, view, frame, body),
            Some(Screen::Node(v)) => node_view::render(app, v, theme, frame, body),
            Some(Screen::Nodes(v)) => node_list::render(app, v, theme, view, frame, body),
            Some(Screen::Queue(v)) => queue::render(app, v, theme, view, frame, body),
            Some(Screen::Gang(v)) => gang::render(app, v, theme, view, frame, body),
            Some(Screen::Deschedule(v)) => deschedule::render(app, v, theme, view, frame, body),
            Some(Screen::Events(v)) => log::events(app, v, theme, view, frame, body),
            Some(Screen::Messages(v)) => log::messages(app, v, theme, view, frame, body),
            Some(Screen::Text(v)) => log::text(v, theme, frame, body),
            Some(Screen::Fixes(v)) => fixes::render(app, v, theme, view, frame, body),
        },
    }
    status_bar(app, theme, frame, bottom);
    match &app.mode {
        Mode::Help { scroll } => help::render(app, *scroll, theme, frame, body),
        Mode::Confirm(p) => dialogs::confirm(app, p, theme, frame, body),
        Mode::ConfirmQuit => dialogs::confirm_quit(app, theme, frame, body),
        Mode::Edit(form) => dialogs::edit_form(form, theme, frame, body),
        Mode::Normal | Mode::Search | Mode::Command(_) => {}
    }
}

fn header(app: &App, theme: &Theme, view: &mut ViewState, frame: &mut Frame<'_>, area: Rect) {
    let narrow = area.width < 120;
    let sep = Span::styled(" │ ", theme.muted);
    let source = match app.source.kind {
        SourceKind::Demo if narrow => "demo".to_string(),
        SourceKind::Demo => "demo cluster (embedded snapshot)".to_string(),
        SourceKind::Snapshot if narrow => std::path::Path::new(&app.source.name)
            .file_name()
            .map_or_else(|| app.source.name.clone(), |f| f.to_string_lossy().into_owned()),
        SourceKind::Snapshot => format!("snapshot {}", app.source.name),
        // on a narrow terminal the context's name is enough (the server URL makes room for
        // the live / read-only / dry-run indicators)
        SourceKind::Live if narrow => app
            .source
            .name
            .split_once(" (")
            .map_or_else(|| app.source.name.clone(), |(c, _)| c.to_string()),
        SourceKind::Live => app.source.name.clone(),
    };
    // most important first: what runs out of room on a narrow terminal is the least useful
    let mut items: Vec<Vec<Span<'_>>> = vec![vec![Span::styled(source, theme.header)]];
    // the STALE item's place and its short form
    let mut stale_short: Option<(usize, Vec<Span<'_>>)> = None;
    if app.load == Load::Ready {
        let pending = app.pending_count();
        items.push(vec![Span::raw(format!("{} nodes", app.cluster.nodes.len()))]);
        items.push(vec![
            Span::raw(format!("{} pods, ", app.cluster.pods.len())),
            Span::styled(
                format!("{pending} pending"),
                if pending > 0 { theme.warn } else { theme.ok },
            ),
        ]);
        let left = app.explaining();
        if left > 0 {
            items.push(vec![Span::styled(
                format!("{} explaining {}/{}", spinner(app, view), app.queued - left, app.queued),
                theme.warn,
            )]);
        }
        if let Some(p) = &app.profile_override {
            items.push(vec![Span::styled(format!("profile {p} (what-if)"), theme.warn)]);
        }
        if let Some(f) = app.fit.as_ref().filter(|f| f.asked.is_none()) {
            items.push(vec![Span::styled(
                format!("what-if: {} pod(s) of {}", f.pods.len(), f.path),
                theme.warn,
            )]);
        }
        if !app.changes.is_empty() {
            let n = app.changes.len();
            items.push(match &app.saved {
                Some((path, saved)) if *saved == n => vec![Span::styled(
                    format!("{n} in-memory change(s), saved to {path}"),
                    theme.muted,
                )],
                _ if narrow => vec![Span::styled(format!("{n} unsaved change(s)"), theme.warn)],
                _ => vec![Span::styled(
                    format!("{n} in-memory change(s), unsaved (:w FILE)"),
                    theme.warn,
                )],
            });
        }
        if let Some(l) = &app.live {
            let stale = app.stale_kinds();
            if !stale.is_empty() {
                let kinds: Vec<&str> = stale.iter().map(|(k, _)| k.as_str()).collect();
                items.push(vec![Span::styled(
                    format!("STALE: {} watch broken, retrying", kinds.join(", ")),
                    theme.fail,
                )]);
                // when the kinds do not fit, their number (`:messages` names them and says why)
                stale_short = Some((
                    items.len() - 1,
                    vec![Span::styled(
                        format!(
                            "STALE ({} kind{})",
                            stale.len(),
                            if stale.len() == 1 { "" } else { "s" }
                        ),
                        theme.fail,
                    )],
                ));
            } else if !l.follow {
                items.push(vec![Span::styled(
                    if narrow {
                        format!("FROZEN, {} change(s)", l.changes_since)
                    } else {
                        format!(
                            "FROZEN at rv {}, {} change(s) since (Ctrl-r re-runs, F follows)",
                            l.seen_rv, l.changes_since
                        )
                    },
                    theme.warn,
                )]);
            } else if l.dirty || app.explaining() > 0 {
                items.push(vec![Span::styled("cluster changed, updating", theme.warn)]);
            } else if narrow {
                items.push(vec![Span::styled("live", theme.ok)]);
            } else {
                items.push(vec![Span::styled(format!("live at rv {}", l.seen_rv), theme.ok)]);
            }
            if l.write_mode == crate::source::write::WriteMode::DryRun {
                items.push(vec![Span::styled("dry-run=server", theme.muted)]);
            }
        }
        let unserved = app.unserved_kinds();
        if !unserved.is_empty() {
            // kinds the release's scheduler reads that the server does not serve: the
            // answers lack them (each explanation's notes say which and why)
            items.push(vec![Span::styled(
                if narrow {
                    format!("NOT SERVED: {} kind(s)", unserved.len())
                } else {
                    format!("NOT SERVED: {}", unserved.join(", "))
                },
                theme.fail,
            )]);
        }
        if app.readonly {
            items.push(vec![Span::styled("read-only", theme.muted)]);
        }
        // a configuration's extenders are not called: every answer lacks their part
        let extenders = app.profiles.first().map_or(0, |p| p.config_notes.len());
        if extenders > 0 {
            items.push(vec![Span::styled(
                format!("{extenders} extender(s) not called"),
                theme.warn,
            )]);
        }
        if let Some(ns) = &app.pods.namespace {
            items.push(vec![Span::styled(format!("ns {ns}"), theme.accent)]);
        } else if !narrow {
            items.push(vec![Span::raw("all namespaces")]);
        }
        if app.features.note().is_some() {
            // A release kschedtui explains as another one: said always, even when narrow.
            items.push(vec![Span::styled(
                format!("scheduler {} (nearest known release)", app.features.describe()),
                theme.warn,
            )]);
        } else if !narrow {
            items.push(vec![Span::styled(
                format!("scheduler {}", app.features.describe()),
                theme.muted,
            )]);
        }
    }
    // what does not fit is left out by whole fields (never cut mid-word or mid-version), the
    // least important first, and a trailing "…" says something was left out
    let avail = usize::from(area.width);
    let width = |items: &[Vec<Span<'_>>], more: bool| -> usize {
        let w: usize = items.iter().map(|i| 3 + i.iter().map(Span::width).sum::<usize>()).sum();
        " kschedtui".len() + w + if more { 4 } else { 0 }
    };
    let mut more = false;
    if width(&items, false) > avail
        && app.source.kind == SourceKind::Live
        && let Some((context, _)) = app.source.name.split_once(" (")
    {
        // the server's URL goes first: the context still names the cluster
        items[0] = vec![Span::styled(context.to_string(), theme.header)];
    }
    // the view's state (live, frozen, stale), the mode (dry-run, read-only) and a release
    // explained as another stay longest
    let kept = |i: &Vec<Span<'_>>| {
        i.first().is_some_and(|s| {
            let c = s.content.as_ref();
            ["STALE", "FROZEN", "live", "cluster changed", "NOT SERVED"]
                .iter()
                .any(|p| c.starts_with(p))
                || c == "dry-run=server"
                || c == "read-only"
                || c.ends_with("extender(s) not called")
                || c.ends_with("(nearest known release)")
        })
    };
    // 0. the broken watches' kinds are named only when they fit beside the fields that stay
    // longest (the source's name cut to 12 characters); else `STALE (N kinds)`, never dropped
    if let Some((at, short)) = stale_short
        && width(&items, false) > avail
    {
        let source_min = items[0].iter().map(Span::width).sum::<usize>().min(13);
        let kept_width = width(
            &items
                .iter()
                .enumerate()
                .filter(|(i, it)| *i > 0 && kept(it))
                .map(|(_, it)| it.clone())
                .collect::<Vec<_>>(),
            true,
        ) + 3
            + source_min;
        if kept_width > avail {
            items[at] = short;
        }
    }
    // 1. the other fields, from the end
    while width(&items, more) > avail
        && let Some(at) = (1..items.len()).rev().find(|&i| !kept(&items[i]))
    {
        items.remove(at);
        more = true;
    }
    // 2. the source's name is cut (with an ellipsis, to 12 characters at least) before the
    // view's state and the mode go; 3. then those, from the end; 4. then the name to what is left
    let source_text: String = items[0].iter().map(|s| s.content.to_string()).collect();
    let cut_source = |items: &mut Vec<Vec<Span<'_>>>, more: bool, min: usize| {
        let shown: usize = items[0].iter().map(Span::width).sum();
        let room = avail.saturating_sub(width(items, more) - shown);
        if room < source_text.chars().count() {
            let keep = room.saturating_sub(1).max(min);
            let cut: String = source_text.chars().take(keep).collect();
            items[0] = vec![Span::styled(format!("{cut}…"), theme.header)];
        }
    };
    cut_source(&mut items, more, 12);
    while items.len() > 1 && width(&items, more) > avail {
        items.pop();
        more = true;
    }
    cut_source(&mut items, more, 0);
    let mut spans = vec![Span::styled(" kschedtui", theme.accent)];
    for item in items {
        spans.push(sep.clone());
        spans.extend(item);
    }
    if more {
        spans.push(Span::styled(" │ …", theme.muted));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(theme.status), area);
}

fn status_bar(app: &App, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let line = match &app.mode {
        Mode::Search => {
            let q = match app.screen() {
                None => app.pods.query.as_str(),
                Some(s) => s.query().unwrap_or(""),
            };
            Line::from(vec![
                Span::styled("/", theme.key),
                Span::raw(q.to_string()),
                Span::styled("▏", theme.accent),
                Span::styled("   Enter keep · Esc clear", theme.muted),
            ])
        }
        Mode::Command(text) => Line::from(vec![
            Span::styled(":", theme.key),
            Span::raw(text.clone()),
            Span::styled("▏", theme.accent),
            Span::styled(format!("   {}", crate::app::update::command::hint(text)), theme.muted),
        ]),
        _ => match &app.status {
            Some(s) => {
                let style = if s.kind == StatusKind::Error {
                    theme.status_error
                } else {
                    theme.status
                };
                let lines: Vec<Line<'_>> = wrap(&s.text, usize::from(area.width).saturating_sub(1), STATUS_LINES)
                    .into_iter()
                    .map(|l| Line::from(Span::styled(format!(" {l}"), style)))
                    .collect();
                frame.render_widget(Paragraph::new(lines).style(theme.status), area);
                return;
            }
            None => hints_line(app, theme, area.width),
        },
    };
    frame.render_widget(Paragraph::new(line).style(theme.status), area);
}

/// The most lines a status message takes: the failures of live writes (which victims went
/// and which did not, what to check after a timeout) must stay readable at 80 columns.
pub const STATUS_LINES: usize = 4;

/// The status bar's height: one line, or what the message needs wrapped, up to [`STATUS_LINES`].
pub fn status_height(app: &App, width: u16) -> u16 {
    match (&app.mode, &app.status) {
        (Mode::Search | Mode::Command(_), _) | (_, None) => 1,
        (_, Some(s)) => u16::try_from(wrap(&s.text, usize::from(width).saturating_sub(1), STATUS_LINES).len())
            .unwrap_or(1)
            .max(1),
    }
}

/// Display width of a text.
fn width_of(s: &str) -> usize {
    Span::raw(s).width()
}

/// Word-wraps `text` into lines at most `width` wide, at most `max` of them; a word wider than
/// a line is split; when the text does not fit, the last line ends with `…`.
pub fn wrap(text: &str, width: usize, max: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let sep = usize::from(!cur.is_empty());
        if width_of(&cur) + sep + width_of(word) <= width {
            if sep == 1 {
                cur.push(' ');
            }
            cur.push_str(word);
            continue;
        }
        if !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
        }
        // a word wider than a line is split where it reaches the edge
        for c in word.chars() {
            let mut buf = [0u8; 4];
            if width_of(&cur) + width_of(c.encode_utf8(&mut buf)) > width {
                lines.push(std::mem::take(&mut cur));
            }
            cur.push(c);
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    if lines.len() > max && max > 0 {
        lines.truncate(max);
        if let Some(last) = lines.last_mut() {
            while !last.is_empty() && width_of(last) + 1 > width {
                last.pop();
            }
            last.push('…');
        }
    }
    lines
}

/// Marks a wrapped text cut at the bottom of `area`: its last cells say there is more and
/// which key shows it (`… w: whole`; with `w` on, the text is longer than half the screen).
pub(super) fn more_mark(theme: &Theme, frame: &mut Frame<'_>, area: Rect, whole: bool) {
    let mark = if whole {
        " … (longer than the screen) "
    } else {
        " … w: whole "
    };
    let w = u16::try_from(mark.chars().count()).unwrap_or(u16::MAX).min(area.width);
    if area.height == 0 || w == 0 {
        return;
    }
    let at = Rect {
        x: area.x + area.width - w,
        y: area.y + area.height - 1,
        width: w,
        height: 1,
    };
    frame.render_widget(Paragraph::new(Span::styled(mark, theme.key)), at);
}

/// The key hints that fit, in table order; a hint too wide is left out and the next ones
/// tried, and `? help` (which lists every key) keeps its place at the end when any are left out.
fn hints_line<'a>(app: &App, theme: &Theme, width: u16) -> Line<'a> {
    let all = keymap::hints(app);
    let cost = |(k, h): &(String, &str)| k.chars().count() + h.chars().count() + 3;
    let total: usize = 1 + all.iter().map(cost).sum::<usize>();
    let help = all.iter().position(|x| x.1 == "help");
    let reserve = match help {
        Some(i) if total > usize::from(width) => all.get(i).map_or(0, cost),
        _ => 0,
    };
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1usize;
    let mut shown = Vec::new();
    for (i, x) in all.iter().enumerate() {
        let room = if help.is_some_and(|h| i < h) { reserve } else { 0 };
        if used + cost(x) + room > usize::from(width) {
            continue;
        }
        used += cost(x);
        shown.push(i);
    }
    for (i, (k, h)) in all.into_iter().enumerate() {
        if shown.contains(&i) {
            spans.push(Span::styled(k, theme.key));
            spans.push(Span::styled(format!(" {h}  "), theme.status));
        }
    }
    Line::from(spans)
}

/// The rows `[start, end)` a table of `len` one-line rows shows in `height` lines with `selected`
/// in view, starting from the last frame's `offset`: as ratatui's `Table` scrolls, so a list can
/// build only the rows on screen and scroll as the whole table would.
pub fn window(offset: usize, selected: usize, len: usize, height: usize) -> (usize, usize) {
    if len == 0 || height == 0 {
        return (0, 0);
    }
    let last = len - 1;
    let mut start = offset.min(last).min(selected);
    let mut end = (start + height).min(len);
    let selected = selected.min(last);
    if selected >= end {
        end = selected + 1;
        start = end - height;
    }
    (start, end)
}

/// Records where a table's rows were drawn (the area below a one-line header) for clicks.
/// Draws a table of `len` rows (at least one) with row `selected` highlighted (clamped), and
/// records where its rows are for the mouse; the selected row's index.
pub(super) fn selectable_table(
    view: &mut ViewState,
    frame: &mut Frame<'_>,
    table: ratatui::widgets::Table<'_>,
    area: Rect,
    selected: usize,
    len: usize,
) -> usize {
    let sel = selected.min(len.saturating_sub(1));
    view.nodes.select(Some(sel));
    frame.render_stateful_widget(table, area, &mut view.nodes);
    record_rows(view, area, view.nodes.offset());
    sel
}

pub fn record_rows(view: &mut ViewState, table_area: Rect, offset: usize) {
    view.rows_area = Some(Rect {
        y: table_area.y + 1,
        height: table_area.height.saturating_sub(1),
        ..table_area
    });
    view.rows_offset = offset;
    view.rows_expanded = None;
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::app::SourceInfo;

    /// The screen's rows as text.
    fn rows(app: &App, w: u16, h: u16) -> Vec<String> {
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        let theme = crate::tui::theme::load(None).expect("theme").0;
        t.draw(|f| render(app, &theme, &mut ViewState::default(), f))
            .expect("draw");
        let buf = t.backend().buffer().clone();
        (0..h)
            .map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect())
            .collect()
    }

    fn app() -> App {
        App::new(
            SourceInfo {
                kind: SourceKind::Live,
                name: "context 'mock'".into(),
            },
            false,
        )
    }

    /// Attached to the live state of fixtures/tui-test.yaml, asking to preempt api-1 for batch-1.
    fn live_confirm() -> App {
        let state =
            crate::source::fixture::FixtureSource::from_str("t", include_str!("../../../fixtures/tui-test.yaml"))
                .expect("fixture")
                .state();
        let mut a = app();
        let profiles = crate::engine::build_profiles(None, &*a.features).expect("profiles");
        let features = a.features.clone();
        crate::app::update(
            &mut a,
            crate::app::Action::Attached(Box::new(Ok(crate::app::Attached {
                state,
                profiles,
                features,
                write_mode: crate::source::write::WriteMode::Enabled,
            }))),
        );
        a.mode = Mode::Confirm(crate::app::Pending::Preempt {
            pod: crate::model::ObjectKey::new("default", "batch-1"),
            node: "node-a".into(),
            victims: vec![crate::model::ObjectKey::new("default", "api-1")],
        });
        a
    }

    #[test]
    fn the_loading_screen_shows_a_line_per_kind_listed_and_keeps_the_newest_when_short() {
        let mut a = app();
        let kinds = [
            "namespaces",
            "priorityclasses",
            "nodes",
            "storageclasses",
            "csinodes",
            "csidrivers",
            "csistoragecapacities",
            "persistentvolumes",
            "persistentvolumeclaims",
            "volumeattachments",
            "deviceclasses",
            "resourceslices",
            "devicetaintrules",
            "resourceclaims",
            "resourceclaimtemplates",
            "poddisruptionbudgets",
            "services",
            "replicasets",
            "statefulsets",
            "replicationcontrollers",
            "podgroups",
            "pods",
        ];
        for (i, kind) in kinds.iter().enumerate() {
            let last = i + 1 == kinds.len();
            crate::app::update_sync(
                &mut a,
                crate::app::Action::LoadProgress(crate::app::ListProgress {
                    kind: (*kind).into(),
                    items: if last { 12_500 } else { i * 10 },
                    pages: if last { 25 } else { 1 },
                    done: !last,
                }),
            );
        }
        let text = |w, h| {
            rows(&a, w, h)
                .iter()
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty())
                .collect::<Vec<_>>()
        };
        // 160x48: every kind, the last one still being listed
        let tall = text(160, 48);
        let at = |rows: &[String], what: &str| {
            rows.iter()
                .find(|r| r.contains(what))
                .unwrap_or_else(|| panic!("no {what} in {rows:#?}"))
                .clone()
        };
        assert!(at(&tall, "namespaces").starts_with("│  ✓ namespaces"), "{tall:#?}");
        // names in one column, counts right-aligned in the next
        let nodes = format!("✓ nodes{}20  1 page(s)", " ".repeat(22));
        assert!(at(&tall, "nodes ").contains(&nodes), "{tall:#?}");
        let pods = format!(" pods{}12500  25 page(s) so far", " ".repeat(20));
        assert!(at(&tall, "pods").contains(&pods), "{tall:#?}");
        assert!(!tall.iter().any(|r| r.contains("listed before")));
        // 80x24: the newest kinds, the first ones counted in one line
        let short = text(80, 24);
        assert!(at(&short, "loading context 'mock'").contains("loading context 'mock'…"));
        let before = at(&short, "listed before");
        let shown = short.iter().filter(|r| r.contains(" page(s)")).count();
        let hidden: usize = before.split_whitespace().find_map(|w| w.parse().ok()).expect("a count");
        assert_eq!(hidden + shown, kinds.len(), "{short:#?}");
        assert!(at(&short, "pods").contains("12500  25 page(s) so far"), "{short:#?}");
        assert!(!short.iter().any(|r| r.contains("namespaces")));
    }

    #[test]
    fn a_narrow_live_header_names_the_context_without_the_server_and_keeps_the_indicators() {
        let state =
            crate::source::fixture::FixtureSource::from_str("t", include_str!("../../../fixtures/tui-test.yaml"))
                .expect("fixture")
                .state();
        let mut a = app();
        a.source.name = "context 'kind-dev' (https://127.0.0.1:6443)".into();
        let profiles = crate::engine::build_profiles(None, &*a.features).expect("profiles");
        let features = a.features.clone();
        crate::app::update_sync(
            &mut a,
            crate::app::Action::Attached(Box::new(Ok(crate::app::Attached {
                state,
                profiles,
                features,
                write_mode: crate::source::write::WriteMode::Enabled,
            }))),
        );
        a.readonly = true;
        assert_eq!(
            rows(&a, 80, 24)[0].trim_end(),
            " kschedtui │ context 'kind-dev' │ 4 nodes │ 6 pods, 4 pending │ live │ read-only"
        );
        assert!(rows(&a, 160, 24)[0].starts_with(" kschedtui │ context 'kind-dev' (https://127.0.0.1:6443) │ 4 nodes"));
    }

    #[test]
    fn the_confirmation_keeps_its_footer_when_the_requests_do_not_fit() {
        let a = live_confirm();
        let text = |h: u16| rows(&a, 80, h).join("\n");
        // 80x24: every request, the warning and the keys
        let s = text(24);
        for want in [
            "Preempt 1 pod(s) on node-a for default/batch-1?",
            "  1. PATCH /api/v1/namespaces/default/pods/api-1/status",
            "  2. DELETE /api/v1/namespaces/default/pods/api-1",
            "  3. PATCH /api/v1/namespaces/default/pods/batch-1/status",
            "These requests are sent to the live cluster, in this order; a failure stops",
            "y confirm   n/Esc/Enter cancel",
        ] {
            assert!(s.contains(want), "{want}:\n{s}");
        }
        assert!(!s.contains("not shown"), "{s}");
        // 80x16: the last requests give way and say so; the footer stays
        let s = text(16);
        for want in [
            "  1. PATCH /api/v1/namespaces/default/pods/api-1/status",
            "  … 2 more request(s) not shown: enlarge the terminal to see them all",
            "These requests are sent to the live cluster, in this order; a failure stops",
            "y confirm   n/Esc/Enter cancel",
        ] {
            assert!(s.contains(want), "{want}:\n{s}");
        }
        assert!(!s.contains("2. DELETE"), "{s}");
    }

    #[test]
    fn wrap_breaks_at_spaces_splits_long_words_and_marks_what_is_cut() {
        assert_eq!(wrap("a bb ccc dddd", 6, 3), ["a bb", "ccc", "dddd"]);
        assert_eq!(wrap("abcdefghij k", 4, 5), ["abcd", "efgh", "ij k"]);
        assert_eq!(wrap("one two three four", 9, 2), ["one two", "three…"]);
        assert_eq!(wrap("one two three four", 5, 1), ["one…"]);
        assert_eq!(wrap("", 10, 3), [""]);
        assert_eq!(wrap("fits", 10, 3), ["fits"]);
    }

    #[test]
    fn a_long_status_message_wraps_onto_up_to_three_lines_at_80_columns() {
        let mut a = app();
        let msg = "preemption incomplete: removed 1 of 2 victim(s) (default/batch-1); not removed: default/batch-2; the node was not nominated: 'delete default/batch-2' failed (500 InternalError): etcdserver: request timed out";
        a.error(msg);
        assert_eq!(status_height(&a, 80), 3);
        let r = rows(&a, 80, 24);
        let bottom: Vec<&str> = r[21..].iter().map(|l| l.trim_end()).collect();
        assert_eq!(
            bottom,
            [
                " preemption incomplete: removed 1 of 2 victim(s) (default/batch-1); not removed:",
                " default/batch-2; the node was not nominated: 'delete default/batch-2' failed",
                " (500 InternalError): etcdserver: request timed out",
            ]
        );
        // the body gives up the rows the message takes
        assert!(!r[20].contains("preemption"), "{r:?}");
        // a short message keeps one line
        a.info("done: bind shop/web to node 'node-a'");
        assert_eq!(status_height(&a, 80), 1);
        let r = rows(&a, 80, 24);
        assert_eq!(r[23].trim_end(), " done: bind shop/web to node 'node-a'");
        // a message longer than four lines ends with an ellipsis on the fourth
        a.error("word ".repeat(80));
        let r = rows(&a, 80, 24);
        assert_eq!(status_height(&a, 80), 4);
        assert!(r[23].ends_with(" wor…"), "{r:?}");
        assert!(r[20].starts_with(" word word"), "{r:?}");
    }

    #[test]
    fn the_window_is_what_the_table_shows() {
        use ratatui::widgets::{Row, Table};
        for len in 0..7usize {
            for height in 1..5u16 {
                for offset in 0..8usize {
                    for selected in 0..8usize {
                        let rows: Vec<Row<'_>> = (0..len).map(|i| Row::new(vec![i.to_string()])).collect();
                        let mut st = TableState::default().with_offset(offset).with_selected(Some(selected));
                        let mut t = Terminal::new(TestBackend::new(4, height + 1)).expect("terminal");
                        t.draw(|f| {
                            let table = Table::new(rows, [Constraint::Length(3)]).header(Row::new(vec!["H"]));
                            f.render_stateful_widget(table, f.area(), &mut st);
                        })
                        .expect("draw");
                        let (start, end) = window(offset, selected, len, usize::from(height));
                        let case = format!("len {len} height {height} offset {offset} selected {selected}");
                        if len > 0 {
                            assert_eq!(start, st.offset(), "{case}");
                        }
                        // the rows drawn are the window's
                        let buf = t.backend().buffer();
                        let drawn: Vec<String> = (1..=height)
                            .map(|y| buf[(0, y)].symbol().to_string())
                            .filter(|s| s.trim() != "")
                            .collect();
                        let want: Vec<String> = (start..end).map(|i| i.to_string()).collect();
                        assert_eq!(drawn, want, "{case}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_frame_goes_stale_when_its_spinner_turns_or_an_age_it_shows_moves() {
        let mut v = ViewState::default();
        assert!(!v.stale_at(100));
        v.clock_until(Some(160));
        v.clock_until(Some(130));
        v.clock_until(None);
        assert_eq!(v.still_until, Some(130));
        assert!(!v.stale_at(129));
        assert!(v.stale_at(130));
        let mut w = ViewState {
            animated: true,
            ..ViewState::default()
        };
        assert!(w.stale_at(0));
        w.animated = false;
        assert!(!w.stale_at(0));
    }
}
