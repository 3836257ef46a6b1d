//! The pipeline bar: every extension point of the profile with what happened there, the
//! current step highlighted. One line when it fits; otherwise the scheduling cycle and the
//! binding cycle on two lines, with short names if still needed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::ViewState;
use crate::app::stepper::{Pipeline, Point, PointState, Stage, Step};
use crate::tui::theme::Theme;

/// Index of the first binding-cycle point.
fn binding_start(p: &Pipeline) -> usize {
    p.stages
        .iter()
        .position(|s| s.point == Point::Reserve)
        .unwrap_or(p.stages.len())
}

struct Shape {
    lines: Vec<Vec<usize>>,
    short: bool,
    padded: bool,
}

fn item_text(s: &Stage, short: bool, padded: bool) -> String {
    let name = if short { s.point.short() } else { s.point.name() };
    if padded {
        format!(" {} {name} ", s.state.mark())
    } else {
        format!("{}{name}", s.state.mark())
    }
}

fn line_width(p: &Pipeline, idx: &[usize], short: bool, padded: bool) -> usize {
    let items: usize = idx
        .iter()
        .map(|&i| item_text(&p.stages[i], short, padded).chars().count())
        .sum();
    items + idx.len().saturating_sub(1)
}

fn shape(p: &Pipeline, width: u16) -> Shape {
    let w = usize::from(width);
    let all: Vec<usize> = (0..p.stages.len()).collect();
    if line_width(p, &all, false, true) <= w {
        return Shape {
            lines: vec![all],
            short: false,
            padded: true,
        };
    }
    let b = binding_start(p);
    let two = vec![(0..b).collect::<Vec<_>>(), (b..p.stages.len()).collect()];
    for short in [false, true] {
        if two.iter().all(|l| line_width(p, l, short, false) <= w) {
            return Shape {
                lines: two,
                short,
                padded: false,
            };
        }
    }
    Shape {
        lines: two,
        short: true,
        padded: false,
    }
}

/// Lines the bar needs at this width.
pub(super) fn height(p: &Pipeline, width: u16) -> u16 {
    u16::try_from(shape(p, width).lines.len()).unwrap_or(2)
}

fn style_of(theme: &Theme, state: PointState) -> Style {
    match state {
        PointState::Passed => theme.step_pass,
        PointState::Failed => theme.step_fail,
        PointState::Skipped | PointState::NotReached | PointState::WouldRun => theme.step_idle,
    }
}

/// Draws the bar and records each point's area for clicks.
pub(super) fn render(
    p: &Pipeline,
    step: &Step,
    theme: &Theme,
    view: &mut ViewState,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    let sh = shape(p, area.width);
    view.points = vec![Rect::default(); p.stages.len()];
    let sep = if sh.padded { "›" } else { " " };
    let mut lines = Vec::new();
    for (row, idx) in sh.lines.iter().enumerate() {
        let mut spans = Vec::new();
        let mut x = area.x;
        for (k, &i) in idx.iter().enumerate() {
            if k > 0 {
                spans.push(Span::styled(sep, theme.muted));
                x = x.saturating_add(1);
            }
            let s = &p.stages[i];
            let text = item_text(s, sh.short, sh.padded);
            let w = u16::try_from(text.chars().count()).unwrap_or(0);
            let style = if s.point == step.point {
                theme.step_current
            } else {
                style_of(theme, s.state)
            };
            spans.push(Span::styled(text, style));
            let y = area.y + u16::try_from(row).unwrap_or(0);
            if y < area.y + area.height {
                view.points[i] = Rect {
                    x,
                    y,
                    width: w.min((area.x + area.width).saturating_sub(x)),
                    height: 1,
                };
            }
            x = x.saturating_add(w);
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), area);
}
