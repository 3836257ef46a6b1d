//! The pod view: the verdict, the pipeline bar, where the stepper is, and the panel of the
//! current step (or the what-if diff).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{ViewState, block, filter_table, pipeline, postfilter, score_matrix, spinner, steps};
use crate::app::diff::Sign;
use crate::app::stepper::{Pipeline, Point, Step};
use crate::app::{Access, App, PodView, format};
use crate::engine::framework::trace::Explanation;
use crate::tui::theme::Theme;

/// What an extension point does, in one sentence.
pub(super) fn describe(point: Point) -> &'static str {
    match point {
        Point::PreEnqueue => "gates the pod before it may enter the queue",
        Point::QueueSort => "orders the pods waiting in the active queue",
        Point::PreFilter => "once per cycle: checks the pod, may narrow nodes",
        Point::Filter => "per node; the first failing plugin rejects it",
        Point::PostFilter => "no node fits: preemption looks for victims",
        Point::PreScore => "once before Score: precomputes state",
        Point::Score => "per feasible node; weighted sum, highest wins",
        Point::Reserve => "binding cycle: reserves the node's resources",
        Point::Permit => "approves, denies or delays binding (gangs)",
        Point::PreBind => "work before binding (volumes)",
        Point::Bind => "writes the binding to the API server",
        Point::PostBind => "informational, after a successful bind",
    }
}

fn verdict_style(ex: &Explanation, theme: &Theme) -> ratatui::style::Style {
    if ex.schedulable() {
        theme.ok
    } else if ex.waiting_for_scheduler.is_some() {
        theme.warn
    } else {
        theme.fail
    }
}

/// Draws the pod view.
pub(super) fn render(app: &App, v: &PodView, theme: &Theme, view: &mut ViewState, frame: &mut Frame<'_>, area: Rect) {
    let pod = app.pod(&v.pod);
    let mut title = vec![Span::raw(" Pod "), Span::styled(v.pod.to_string(), theme.accent)];
    if let Some(p) = pod {
        title.push(Span::styled(
            format!(
                " · priority {} · {} · cpu {} mem {} ",
                p.priority,
                p.scheduler_name(),
                format::cpu(app.features.requests_of(p).resource.milli_cpu),
                format::bytes(app.features.requests_of(p).resource.memory)
            ),
            theme.muted,
        ));
        if crate::app::pod_list::is_what_if(app, p) {
            title.push(Span::styled("(what-if: :fit) ", theme.warn));
        }
    }
    let b = block(theme, Line::from(title));
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let Some(p) = pod else {
        frame.render_widget(
            Paragraph::new(Span::styled("The pod is no longer in the cluster.", theme.fail)),
            inner,
        );
        return;
    };
    let ex = match app.explanation(&v.pod) {
        Some(Ok(ex)) => ex,
        Some(Err(e)) => {
            let lines = vec![
                Line::from(Span::styled(e.clone(), theme.warn)),
                Line::from(""),
                Line::from(Span::styled(
                    match &p.node_name {
                        Some(n) => format!("It runs on {n}. Press Esc to go back, :nodes to see the nodes."),
                        None => "Press Esc to go back.".to_string(),
                    },
                    theme.muted,
                )),
            ];
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
            return;
        }
        None if p.node_name.is_some() => {
            let n = p.node_name.as_deref().unwrap_or_default().to_string();
            frame.render_widget(
                Paragraph::new(vec![
                    Line::from(vec![Span::raw("Bound to "), Span::styled(n, theme.ok), Span::raw(".")]),
                    Line::from(Span::styled(
                        "Only pending pods have a scheduling trace. Esc goes back.",
                        theme.muted,
                    )),
                ]),
                inner,
            );
            return;
        }
        None => {
            frame.render_widget(
                Paragraph::new(Span::styled(
                    format!("{} explaining {}…", spinner(app, view), v.pod),
                    theme.warn,
                )),
                inner,
            );
            return;
        }
    };
    let pl = Pipeline::new(ex, app.profile(&ex.profile));
    let step = v.step.clone().unwrap_or_else(|| pl.decisive());
    let bar_h = pipeline::height(&pl, inner.width);
    // a gang member: the group's story first (alone, a member that fits waits at Permit)
    let gang = app.gang_pass(&v.pod);
    let verdict = match gang {
        Some(g) => format!("{}; this pod alone: {}", g.headline(), ex.verdict()),
        None => ex.verdict(),
    };
    // beside kschedtui's verdict, one line on what the cluster's scheduler wrote (its
    // PodScheduled condition and FailedScheduling events) and whether they agree
    let cluster = crate::explain::condition::cluster_brief(&app.cluster, ex);
    // two lines each, cut with a mark; `w`: whole, up to a third of the screen each
    let most = if app.whole {
        usize::from(inner.height / 3).max(2)
    } else {
        2
    };
    let needs = |s: &str| {
        Paragraph::new(s)
            .wrap(Wrap { trim: false })
            .line_count(inner.width)
            .max(1)
    };
    let verdict_n = needs(&verdict);
    let cluster_n = cluster.as_ref().map_or(0, |(s, _)| needs(s));
    let verdict_h = u16::try_from(verdict_n.min(most)).unwrap_or(2);
    let cluster_h = u16::try_from(cluster_n.min(most)).unwrap_or(2);
    let actions = actions_line(app, &v.pod, theme);
    // a refusal naming every missing permission wraps inside the box (up to 10 rows)
    let actions_h = actions.as_ref().map_or(0, |l| {
        u16::try_from(l.width().div_ceil(usize::from(inner.width.max(1))).clamp(1, 10)).unwrap_or(1)
    });
    let fix = fix_line(app, ex, theme, view);
    let [
        verdict_area,
        cluster_area,
        fix_area,
        actions_area,
        bar_area,
        crumb_area,
        panel,
    ] = Layout::vertical([
        Constraint::Length(verdict_h),
        Constraint::Length(cluster_h),
        Constraint::Length(u16::from(fix.is_some())),
        Constraint::Length(actions_h),
        Constraint::Length(bar_h),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(inner);
    frame.render_widget(
        Paragraph::new(Line::from(Span::styled(
            verdict,
            if gang.is_some_and(|g| !g.completes()) {
                theme.fail
            } else {
                verdict_style(ex, theme)
            },
        )))
        .wrap(Wrap { trim: false }),
        verdict_area,
    );
    if verdict_n > usize::from(verdict_h) {
        super::more_mark(theme, frame, verdict_area, app.whole);
    }
    if let Some((text, agrees)) = cluster {
        let style = if agrees == Some(false) { theme.warn } else { theme.muted };
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(text, style))).wrap(Wrap { trim: false }),
            cluster_area,
        );
        if cluster_n > usize::from(cluster_h) {
            super::more_mark(theme, frame, cluster_area, app.whole);
        }
    }
    if let Some(l) = fix {
        frame.render_widget(Paragraph::new(l), fix_area);
    }
    if let Some(l) = actions {
        frame.render_widget(Paragraph::new(l).wrap(Wrap { trim: false }), actions_area);
    }
    pipeline::render(&pl, &step, theme, view, frame, bar_area);
    crumb(&pl, &step, theme, frame, crumb_area);
    if v.show_diff
        && let Some(d) = &app.diff
    {
        diff_panel(d, theme, frame, panel);
        return;
    }
    let plugin = pl.plugin(&step);
    match step.point {
        Point::Filter => filter_table::render(app, ex, v, &pl, plugin, theme, view, frame, panel),
        Point::Score => score_matrix::render(app, ex, v, plugin, theme, view, frame, panel),
        Point::PostFilter => postfilter::render(app, ex, &pl, plugin, v.selected, theme, view, frame, panel),
        _ => steps::render(app, ex, &pl, &step, theme, view, frame, panel),
    }
}

/// "to fix: …": the first fix the engine says binds the pod (else the first), and how many
/// more `f` lists; None for a pod that would be scheduled.
fn fix_line(app: &App, ex: &Explanation, theme: &Theme, view: &mut ViewState) -> Option<Line<'static>> {
    if ex.schedulable() {
        return None;
    }
    let mut spans = vec![Span::styled("to fix", theme.header)];
    match app.fixes.get(&ex.pod) {
        Some(Some(rows)) if rows.is_empty() => {
            spans.push(Span::styled(": no single change found (f says why)", theme.muted));
        }
        Some(Some(rows)) => {
            let best = rows.iter().find(|f| f.works()).unwrap_or(&rows[0]);
            let style = if best.works() { theme.ok } else { theme.warn };
            let works = rows.iter().filter(|f| f.works()).count();
            // the count first: a narrow screen cuts the end of the line, f shows it whole
            spans.push(Span::styled(
                format!(" (f: {works} of {} work): ", rows.len()),
                theme.muted,
            ));
            spans.push(Span::styled(best.line(), style));
        }
        _ => spans.push(Span::styled(": ", theme.muted)),
    }
    if matches!(app.fixes.get(&ex.pod), Some(None) | None) {
        spans.push(Span::styled(
            format!("{} checking changes with the engine…", spinner(app, view)),
            theme.muted,
        ));
    }
    Some(Line::from(spans))
}

/// On a live cluster: whether the actions on this pod are allowed (checked before they are
/// offered), and a preemption sent for it that waits for its victims to go.
fn actions_line(app: &App, pod: &crate::model::ObjectKey, theme: &Theme) -> Option<Line<'static>> {
    let live = app.live.as_ref()?;
    let mut spans: Vec<Span<'static>> = Vec::new();
    if let Some(w) = live.awaiting.iter().find(|w| w.pod == *pod) {
        let left = crate::app::update::remaining_victims(&app.cluster, w);
        if left.is_empty() {
            spans.push(Span::styled(
                format!("victims gone: b binds (nominated {})", w.node),
                theme.ok,
            ));
        } else {
            let names: Vec<String> = left.iter().map(|k| k.name.to_string()).collect();
            spans.push(Span::styled(
                format!(
                    "preempted: waiting for {} of {} victim(s) to go ({})",
                    left.len(),
                    w.victims.len(),
                    names.join(", ")
                ),
                theme.warn,
            ));
        }
    }
    for (key, action) in [("b", "bind"), ("x", "preempt")] {
        let Some(a) = crate::app::update::action_access(app, action) else {
            continue;
        };
        if !spans.is_empty() {
            spans.push(Span::styled(" · ", theme.muted));
        }
        spans.push(Span::styled(key, theme.key));
        spans.push(Span::raw(format!(" {action}: ")));
        spans.push(match a {
            Access::Allowed => Span::styled("allowed", theme.ok),
            Access::Checking => Span::styled("checking permission…", theme.muted),
            Access::Denied(why) => Span::styled(why, theme.fail),
            Access::Unknown(why) => Span::styled(why, theme.warn),
        });
    }
    (!spans.is_empty()).then(|| Line::from(spans))
}

fn crumb(pl: &Pipeline, step: &Step, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let (i, n) = pl.position(step);
    let state = pl.stage(step.point).map_or("", |s| s.state.describe());
    let mut spans = vec![
        Span::styled(format!("step {i}/{n} "), theme.muted),
        Span::styled(step.point.name(), theme.header),
    ];
    match pl.plugin(step) {
        Some(p) => {
            spans.push(Span::styled(" › ", theme.muted));
            spans.push(Span::styled(p.to_string(), theme.accent));
        }
        None => {
            spans.push(Span::styled(format!(" ({state}): "), theme.muted));
            spans.push(Span::raw(describe(step.point)));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn diff_panel(d: &crate::app::diff::TraceDiff, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let b = block(theme, format!(" What-if diff (d hides) · {} ", d.change));
    let mut lines = vec![
        Line::from(vec![Span::styled("before: ", theme.muted), Span::raw(d.before.clone())]),
        Line::from(vec![
            Span::styled("after:  ", theme.muted),
            Span::styled(d.after.clone(), theme.accent),
        ]),
        Line::from(""),
    ];
    if d.lines.is_empty() {
        lines.push(Line::from(Span::styled("The trace did not change.", theme.muted)));
    }
    for l in &d.lines {
        let (mark, style) = match l.sign {
            Sign::Better => ("+ ", theme.ok),
            Sign::Worse => ("- ", theme.fail),
            Sign::Changed => ("~ ", theme.warn),
        };
        lines.push(Line::from(vec![
            Span::styled(mark, style),
            Span::styled(l.text.clone(), style),
        ]));
    }
    frame.render_widget(Paragraph::new(lines).block(b).wrap(Wrap { trim: false }), area);
}
