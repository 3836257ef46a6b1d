//! Panels of the points that run once per cycle (PreEnqueue, QueueSort, PreFilter, PreScore)
//! and of the binding cycle (Reserve, Permit, PreBind, Bind, PostBind): each plugin's status,
//! and at a plugin step what the plugin read from this pod, as the engine's trace states it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{ViewState, block, record_rows};
use crate::app::App;
use crate::app::stepper::{Pipeline, Point, PointState, Step};
use crate::engine::framework::status::Code;
use crate::engine::framework::trace::{BindingOutcome, Explanation, PluginStatus};
use crate::engine::plugins::names;
use crate::tui::theme::{Theme, marked};

fn code_style(theme: &Theme, c: Code) -> Style {
    match c {
        Code::Success => theme.ok,
        Code::Skip => theme.muted,
        Code::Wait | Code::Pending => theme.warn,
        Code::Error | Code::Unschedulable | Code::UnschedulableAndUnresolvable => theme.fail,
    }
}

fn statuses(ex: &Explanation, point: Point) -> &[PluginStatus] {
    match point {
        Point::PreEnqueue => &ex.pre_enqueue,
        Point::PreFilter => &ex.pre_filter,
        Point::PreScore => &ex.pre_score,
        _ => &[],
    }
}

/// Draws the panel of a once-per-cycle or binding-cycle point.
#[allow(clippy::too_many_arguments)]
pub(super) fn render(
    app: &App,
    ex: &Explanation,
    pl: &Pipeline,
    step: &Step,
    theme: &Theme,
    view: &mut ViewState,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    let Some(stage) = pl.stage(step.point) else {
        return;
    };
    let title = match pl.plugin(step) {
        Some(p) => format!(" {} › {p} ", step.point.name()),
        None => format!(" {} · {} ", step.point.name(), stage.state.describe()),
    };
    let b = block(theme, title);
    let inner = b.inner(area);
    frame.render_widget(b, area);
    if stage.state == PointState::NotReached {
        let stop = pl
            .stages
            .iter()
            .find(|s| s.state == PointState::Failed)
            .map(|s| s.point.name());
        let msg = match (stop, &ex.waiting_for_scheduler) {
            (_, Some(s)) => {
                format!("No profile serves schedulerName '{s}': no scheduler of this profile set runs for the pod.")
            }
            (Some(p), None) => format!("Not reached: the cycle stopped at {p}."),
            (None, None) => "Not reached.".to_string(),
        };
        let mut lines = vec![Line::from(Span::styled(msg, theme.muted))];
        if !stage.plugins.is_empty() {
            lines.push(Line::from(Span::styled(
                format!("plugins here: {}", stage.plugins.join(", ")),
                theme.muted,
            )));
        }
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
        return;
    }
    match step.point {
        Point::QueueSort => queue(app, ex, theme, frame, inner),
        Point::PreEnqueue | Point::PreFilter | Point::PreScore => {
            let sts = statuses(ex, step.point);
            match pl.plugin(step) {
                None => status_table(ex, &stage.plugins, sts, step.point, theme, view, frame, inner),
                Some(p) => {
                    let mut lines = Vec::new();
                    match sts.iter().find(|s| s.plugin == p) {
                        Some(s) => {
                            let mut spans = vec![
                                Span::styled("status: ", theme.muted),
                                Span::styled(s.code.as_str(), code_style(theme, s.code)),
                            ];
                            if !s.reasons.is_empty() {
                                spans.push(Span::raw(format!("  {}", s.reasons.join(", "))));
                            }
                            lines.push(Line::from(spans));
                            if s.code == Code::Skip {
                                lines.push(Line::from(Span::styled(
                                    "Skip: nothing to check for this pod; its Filter/Score is skipped too.",
                                    theme.muted,
                                )));
                            }
                        }
                        None => lines.push(Line::from(Span::styled(
                            "not run (an earlier plugin stopped the cycle)",
                            theme.muted,
                        ))),
                    }
                    if p == names::DYNAMIC_RESOURCES {
                        let d = super::dra::lines(ex, theme);
                        if !d.is_empty() {
                            lines.push(Line::from(""));
                            lines.extend(d);
                        }
                    }
                    // the pod's own spread constraints: every domain, and Score's arithmetic
                    if p == names::POD_TOPOLOGY_SPREAD
                        && let Some(t) = &ex.topology_spread
                    {
                        lines.push(Line::from(""));
                        lines.push(Line::from(Span::styled(
                            "Every domain's matching pods, and Score's arithmetic:",
                            theme.header,
                        )));
                        lines.extend(
                            crate::explain::text::spread_lines(t)
                                .into_iter()
                                .map(|l| Line::from(format!("  {l}"))),
                        );
                    }
                    // What the plugin stated it read, from the values it computed with.
                    let facts = sts.iter().find(|s| s.plugin == p).map_or(&[][..], |s| &s.facts[..]);
                    if !facts.is_empty() {
                        lines.push(Line::from(""));
                        lines.push(Line::from(Span::styled("What it reads from the pod:", theme.header)));
                        lines.extend(facts.iter().map(|f| Line::from(format!("  {}: {}", f.label, f.value))));
                    }
                    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
                }
            }
        }
        _ => later(app, ex, pl, step, theme, frame, inner),
    }
}

#[allow(clippy::too_many_arguments)]
fn status_table(
    ex: &Explanation,
    plugins: &[String],
    sts: &[PluginStatus],
    point: Point,
    theme: &Theme,
    view: &mut ViewState,
    frame: &mut Frame<'_>,
    area: Rect,
) {
    let mut extra: Vec<Line<'_>> = Vec::new();
    if point == Point::PreFilter {
        if let Some(n) = &ex.pre_filter_node_names {
            extra.push(Line::from(vec![
                Span::styled("PreFilter narrowed the nodes to: ", theme.muted),
                Span::raw(if n.is_empty() {
                    "(none)".to_string()
                } else {
                    n.join(", ")
                }),
            ]));
        }
        if let Some((n, ok)) = &ex.nominated_node {
            extra.push(Line::from(vec![
                Span::styled("nominated node tried first: ", theme.muted),
                Span::styled(n.clone(), if *ok { theme.ok } else { theme.fail }),
            ]));
        }
    }
    let rows: Vec<Row<'_>> = plugins
        .iter()
        .map(|p| match sts.iter().find(|s| &s.plugin == p) {
            Some(s) => Row::new(vec![
                Cell::from(Span::styled(p.clone(), theme.accent)),
                Cell::from(Span::styled(s.code.as_str(), code_style(theme, s.code))),
                Cell::from(s.reasons.join(", ")),
            ]),
            None => Row::new(vec![
                Cell::from(Span::styled(p.clone(), theme.muted)),
                Cell::from(Span::styled("not run", theme.muted)),
                Cell::from(""),
            ]),
        })
        .collect();
    // reasons of the plugins that stopped the pod, whole (the table cuts them)
    for s in sts
        .iter()
        .filter(|s| !matches!(s.code, Code::Success | Code::Skip) && !s.reasons.is_empty())
    {
        extra.push(Line::from(vec![
            Span::styled(format!("{}: ", s.plugin), theme.accent),
            Span::styled(s.reasons.join(", "), code_style(theme, s.code)),
        ]));
    }
    let width = usize::from(area.width.max(1));
    let extra_h = u16::try_from(extra.iter().map(|l| l.width().div_ceil(width).max(1)).sum::<usize>())
        .unwrap_or(0)
        .min(area.height / 2);
    // the table, then the notes right below it
    let table_h = u16::try_from(rows.len().max(1) + 1).unwrap_or(u16::MAX);
    let [t_area, _, e_area, _] = Layout::vertical([
        Constraint::Length(table_h),
        Constraint::Length(u16::from(extra_h > 0)),
        Constraint::Length(extra_h),
        Constraint::Min(0),
    ])
    .areas(area);
    if rows.is_empty() {
        frame.render_widget(
            Paragraph::new(Span::styled("No plugin at this point in the profile.", theme.muted)),
            t_area,
        );
    } else {
        let pw = plugins.iter().map(|p| p.chars().count()).max().unwrap_or(6).max(6);
        let cw = sts.iter().map(|s| s.code.as_str().len()).max().unwrap_or(7).max(7);
        let w = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
        let table = Table::new(
            rows,
            [
                Constraint::Length(w(pw)),
                Constraint::Length(w(cw)),
                Constraint::Min(10),
            ],
        )
        .header(Row::new(vec!["PLUGIN", "STATUS", "REASONS"]).style(theme.header))
        .column_spacing(1);
        frame.render_widget(table, t_area);
        record_rows(view, t_area, 0);
    }
    frame.render_widget(Paragraph::new(extra).wrap(Wrap { trim: false }), e_area);
}

fn queue(app: &App, ex: &Explanation, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let q = app.pending_pods();
    let pos = q.iter().position(|p| p.key == ex.pod);
    let mut lines = vec![
        Line::from(Span::styled(
            "PrioritySort: higher priority first, then the pod that has waited longer (then name, here).",
            theme.muted,
        )),
        Line::from(match pos {
            Some(i) => format!("{} is #{} of {} pending pod(s).", ex.pod, i + 1, q.len()),
            None => format!("{} is not in the queue.", ex.pod),
        }),
        Line::from(""),
    ];
    let room = usize::from(area.height).saturating_sub(lines.len());
    let start = pos.map_or(0, |i| i.saturating_sub(room / 2));
    for (i, p) in q.iter().enumerate().skip(start).take(room) {
        let me = p.key == ex.pod;
        let aside = if p.gated {
            "  (gated: waits outside the active queue)".to_string()
        } else if app.profile(p.scheduler_name()).is_none() {
            format!("  (schedulerName {}: another scheduler's queue)", p.scheduler_name())
        } else {
            String::new()
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{:>4}. ", i + 1), theme.muted),
            Span::styled(
                p.key.to_string(),
                if me {
                    marked(theme.accent, theme.selected)
                } else {
                    theme.accent
                },
            ),
            Span::styled(format!("  priority {}{aside}", p.priority), theme.muted),
        ]));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

#[allow(clippy::too_many_arguments)]
fn later(app: &App, ex: &Explanation, pl: &Pipeline, step: &Step, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let stage = pl.stage(step.point);
    let plugins = stage.map(|s| s.plugins.clone()).unwrap_or_default();
    let node = ex.selected.first().cloned().unwrap_or_default();
    let not_run: Vec<String> = app
        .profile(&ex.profile)
        .map(|f| {
            f.not_implemented
                .iter()
                .filter(|n| later_point_of(n) == Some(step.point))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let mut lines = vec![Line::from(vec![
        Span::styled("plugins: ", theme.muted),
        Span::raw(if plugins.is_empty() && not_run.is_empty() {
            "none in this profile".to_string()
        } else {
            plugins
                .iter()
                .cloned()
                .chain(not_run.iter().map(|n| format!("{n} (not reproduced by the engine)")))
                .collect::<Vec<_>>()
                .join(", ")
        }),
    ])];
    if let Some(p) = pl.plugin(step) {
        lines.push(Line::from(Span::styled(
            format!("{p} would run here once the pod is assigned to {node}."),
            theme.muted,
        )));
    }
    lines.push(Line::from(""));
    match step.point {
        Point::Bind => {
            lines.push(Line::from(vec![
                Span::raw("The pod would be bound to "),
                Span::styled(node.clone(), theme.winner),
                Span::raw("."),
            ]));
            if ex.selected.len() > 1 {
                lines.push(Line::from(Span::styled(
                    format!(
                        "{} nodes tie ({}); upstream picks one of them at random.",
                        ex.selected.len(),
                        ex.selected.join(", ")
                    ),
                    theme.tie,
                )));
            }
            lines.push(Line::from(Span::styled(
                format!(
                    "write: POST /api/v1/namespaces/{}/pods/{}/binding  target: Node {node}",
                    ex.pod.namespace, ex.pod.name
                ),
                theme.muted,
            )));
            lines.push(Line::from(vec![
                Span::styled("b", theme.key),
                Span::raw(" binds it (in memory for a snapshot)"),
            ]));
        }
        Point::Permit => permit(ex, &plugins, theme, &mut lines),
        Point::Reserve => lines.push(Line::from(format!(
            "Reserve assumes the pod on {node}: its requests count there for the next pods until binding ends."
        ))),
        Point::PreBind => lines.push(Line::from(
            "PreBind binds volumes and other resources before the pod is bound.",
        )),
        Point::PostBind => lines.push(Line::from(
            "PostBind runs after a successful bind; nothing here affects placement.",
        )),
        _ => {}
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

/// The binding-cycle point of the in-tree plugins that only act there.
fn later_point_of(plugin: &str) -> Option<Point> {
    match plugin {
        names::DEFAULT_BINDER => Some(Point::Bind),
        names::VOLUME_BINDING => Some(Point::PreBind),
        names::COSCHEDULING => Some(Point::Permit),
        _ => None,
    }
}

/// Seconds for display: `10s`, `2.5s`.
fn secs(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{}.{}s", ms / 1000, (ms % 1000) / 100)
    }
}

/// Permit: each plugin's verdict, and the gang (quorum, members waiting with the time they have
/// left, members not scheduled yet), all from the trace.
fn permit(ex: &Explanation, plugins: &[String], theme: &Theme, lines: &mut Vec<Line<'_>>) {
    let cycle = ex.binding_cycle.as_ref();
    for p in cycle.map(|b| b.permit.as_slice()).unwrap_or_default() {
        let mut spans = vec![
            Span::styled(format!("{:<16}", p.plugin), theme.accent),
            Span::styled(
                p.code.as_str().to_string(),
                if p.code == Code::Success { theme.ok } else { theme.warn },
            ),
        ];
        if let Some(t) = p.timeout_ms {
            spans.push(Span::raw(format!("  waits up to {}", secs(t))));
        }
        if !p.reasons.is_empty() {
            spans.push(Span::raw(format!("  {}", p.reasons.join(", "))));
        }
        lines.push(Line::from(spans));
        for n in &p.notes {
            lines.push(Line::from(Span::styled(format!("  {n}"), theme.muted)));
        }
    }
    let Some(g) = &ex.gang else {
        if plugins.is_empty() {
            lines.push(Line::from("No Permit plugin: the pod goes straight to binding."));
        } else if cycle.is_none_or(|b| b.permit.is_empty()) {
            lines.push(Line::from("The pod is in no PodGroup: Permit approves it at once."));
        }
        return;
    };
    if !g.found {
        lines.push(Line::from(Span::styled(
            format!("PodGroup '{}' does not exist: {} rejects its pods.", g.group, g.plugin),
            theme.warn,
        )));
        return;
    }
    lines.push(Line::from(vec![
        Span::styled("PodGroup ", theme.muted),
        Span::styled(g.group.clone(), theme.accent),
        Span::raw(format!(
            ": quorum (minMember) {}, {} member pod(s), {} other(s) already on a node, permit timeout {}",
            g.min_member,
            g.members,
            g.assigned,
            secs(g.timeout_ms)
        )),
    ]));
    if g.waiting.is_empty() {
        lines.push(Line::from("No member is waiting at Permit."));
    }
    for w in &g.waiting {
        lines.push(Line::from(vec![
            Span::raw("waiting at Permit: "),
            Span::styled(w.pod.to_string(), theme.accent),
            Span::raw(format!(" on {} (waited {}, ", w.node, secs(w.waited_ms))),
            Span::styled(format!("{} left", secs(w.time_left_ms)), theme.warn),
            Span::raw(")"),
        ]));
    }
    if !g.unplaced.is_empty() {
        let names: Vec<String> = g.unplaced.iter().map(|k| k.name.to_string()).collect();
        lines.push(Line::from(format!("not scheduled yet: {}", names.join(", "))));
    }
    let quorum = usize::try_from(g.min_member).unwrap_or(0);
    match cycle.map(|b| b.outcome) {
        Some(BindingOutcome::Waiting) => {
            let more = quorum.saturating_sub(g.assigned + 1);
            let node = cycle.map_or("", |b| b.node.as_str());
            lines.push(Line::from(Span::styled(
                format!(
                    "This pod would wait at Permit on {node} for up to {}: {more} more member(s) must reach a node in that time, or the whole gang is rejected and retried.",
                    secs(g.timeout_ms)
                ),
                theme.warn,
            )));
        }
        Some(BindingOutcome::Bound) => lines.push(Line::from(Span::styled(
            if g.waiting.is_empty() {
                "With this pod the group reaches quorum: Permit allows it.".to_string()
            } else {
                format!(
                    "With this pod the group reaches quorum: Permit allows it and the {} waiting member(s).",
                    g.waiting.len()
                )
            },
            theme.ok,
        ))),
        Some(BindingOutcome::Rejected | BindingOutcome::Error) => {
            if let Some(m) = cycle.and_then(|b| b.message.clone()) {
                lines.push(Line::from(Span::styled(m, theme.fail)));
            }
        }
        None => lines.push(Line::from(Span::styled(
            "The pod does not reach Permit (no node fits); the group's state is shown as it is now.",
            theme.muted,
        ))),
    }
    lines.push(Line::from(vec![
        Span::styled("m", theme.key),
        Span::styled(
            " the gang as a whole: every pending member tried in turn, whether the quorum is reached, who blocks it",
            theme.muted,
        ),
    ]));
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use crate::app::stepper::{Pipeline, Point, Step};
    use crate::app::{Action, App, Screen, SourceInfo, SourceKind, load_sync, update, update_sync};
    use crate::engine::{Features, Release};
    use crate::tui::theme;
    use crate::tui::view::{ViewState, render};

    /// A 4-CPU node; `big` asks for 5 CPUs at pod level over a 1-CPU container; `side` has a
    /// sidecar (restartable init container) with 2 CPUs and host port 8080 beside a 1-CPU app
    /// container without ports.
    const CLUSTER: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 4Gi, pods: "10"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: big, namespace: a}
  spec:
    resources: {requests: {cpu: "5"}}
    containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: side, namespace: a}
  spec:
    initContainers:
    - {name: proxy, image: i, restartPolicy: Always, ports: [{containerPort: 8080, hostPort: 8080}], resources: {requests: {cpu: "2"}}}
    containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
"#;

    fn app(minor: u32) -> App {
        let mut a = App::new(
            SourceInfo {
                kind: SourceKind::Snapshot,
                name: "facts.yaml".into(),
            },
            false,
        );
        a.features = Arc::new(Features::new(Release::at(minor)));
        update(&mut a, Action::Tick { now: 1_714_557_600 });
        load_sync(
            &mut a,
            crate::source::file::load_str("facts.yaml", CLUSTER).expect("fixture"),
        );
        a
    }

    /// The screen of `pod` at the step of `plugin` at `point`, as text.
    fn screen(a: &mut App, pod: &str, point: Point, plugin: &str) -> String {
        a.screens.clear();
        a.pods.selected = crate::app::pod_list::rows(a)
            .iter()
            .position(|r| r.pod.key.name == pod)
            .expect("row");
        update_sync(a, Action::Open);
        let Some(Screen::Pod(v)) = a.screen() else {
            panic!("pod view expected")
        };
        let Some(Ok(ex)) = a.explanation(&v.pod) else {
            panic!("explained")
        };
        let pl = Pipeline::new(ex, a.profile(&ex.profile));
        let i = pl
            .stage(point)
            .and_then(|s| s.plugins.iter().position(|p| p == plugin))
            .expect("plugin step");
        if let Some(Screen::Pod(v)) = a.screens.last_mut() {
            v.step = Some(Step { point, plugin: Some(i) });
        }
        let th = theme::load(None).expect("theme").0;
        let mut t = Terminal::new(TestBackend::new(200, 50)).expect("terminal");
        let mut view = ViewState::default();
        t.draw(|f| render(a, &th, &mut view, f)).expect("draw");
        let buf = t.backend().buffer().clone();
        (0..buf.area.height)
            .map(|y| (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The PodTopologySpread steps of a pod with its own constraints show every domain with
    /// its matching pods, and at PreScore Score's arithmetic, as `explain` writes them.
    #[test]
    fn spread_steps_show_every_domain_and_the_score_arithmetic() {
        const SPREAD: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a1, labels: {kubernetes.io/hostname: a1, zone: a}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b1, labels: {kubernetes.io/hostname: b1, zone: b}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: w0, namespace: a, labels: {app: w}}, spec: {nodeName: a1, containers: [{name: c, image: i}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: w1, namespace: a, labels: {app: w}}, spec: {nodeName: a1, containers: [{name: c, image: i}]}}
- apiVersion: v1
  kind: Pod
  metadata: {name: new, namespace: a, labels: {app: w}}
  spec:
    containers: [{name: c, image: i}]
    topologySpreadConstraints:
    - {maxSkew: 3, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: w}}}
    - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: w}}}
"#;
        let mut a = App::new(
            SourceInfo {
                kind: SourceKind::Snapshot,
                name: "spread.yaml".into(),
            },
            false,
        );
        a.features = Arc::new(Features::new(Release::at(34)));
        update(&mut a, Action::Tick { now: 1_714_557_600 });
        load_sync(
            &mut a,
            crate::source::file::load_str("spread.yaml", SPREAD).expect("fixture"),
        );
        let s = screen(&mut a, "new", Point::PreFilter, "PodTopologySpread");
        for line in [
            "Every domain's matching pods, and Score's arithmetic:",
            "  DoNotSchedule on zone, maxSkew 3, minDomains 1 (the pod matches its selector: +1 where it goes); global minimum 0:",
            "    DOMAIN  MATCHING PODS",
            "    a       2",
            "    b       0",
            // a: 2 × ln(4) = 2.7726 → 3; b: 0 → 0; normalized 100 × (3 + 0 - s) / 3
            "  ScheduleAnyway on zone, maxSkew 1; Score weight ln(2 domain(s) + 2) = 1.3863:",
            "    a1  2 × 1.3863 + 0 = 2.7726 → raw 3 → normalized 100 × (3 + 0 - 3) / 3 = 0",
            "    b1  0 × 1.3863 + 0 = 0.0000 → raw 0 → normalized 100 × (3 + 0 - 0) / 3 = 100",
        ] {
            assert!(s.contains(line), "{line:?} not in:\n{s}");
        }
    }

    fn pod<'a>(a: &'a App, name: &str) -> &'a crate::model::Pod {
        a.cluster.pods.iter().find(|p| p.key.name == name).expect("pod")
    }

    /// The facts come from the engine's trace, so they follow the release: pod-level
    /// requests from 1.34 and sidecars' host ports from 1.34, where the pod's own fields (what
    /// the panel used to read) say otherwise.
    #[test]
    fn plugin_facts_are_the_values_the_engine_computed_with() {
        let mut a = app(34);
        // What the panel read before: the containers' sum, 1 CPU.
        assert_eq!(pod(&a, "big").requests.list.get("cpu"), Some(&1000));
        let s = screen(&mut a, "big", Point::PreFilter, "NodeResourcesFit");
        assert!(s.contains("effective requests: cpu 5"), "{s}");
        assert!(
            s.contains("counted from: the pod-level spec.resources (PodLevelResources)"),
            "{s}"
        );
        let Some(Ok(ex)) = a.explanation(&crate::model::ObjectKey::new("a", "big")) else {
            panic!("explained")
        };
        assert!(
            ex.message.as_deref().is_some_and(|m| m.contains("1 Insufficient cpu")),
            "the engine rejects the 5 CPUs: {:?}",
            ex.message
        );
        // Before 1.34 the pod-level requests do not count: the container's 1 CPU.
        let mut old = app(33);
        let s = screen(&mut old, "big", Point::PreFilter, "NodeResourcesFit");
        assert!(s.contains("effective requests: cpu 1 "), "{s}");
        assert!(!s.contains("counted from"), "{s}");

        // The sidecar: its host port counts at 1.34 (the pod's regular containers have none),
        // BalancedAllocation scores the requests as they are (sidecar + app: 3 CPUs), Fit with
        // the 200Mi memory default filled in per container (sidecar and app: 400Mi).
        assert!(pod(&a, "side").host_ports().is_empty());
        let s = screen(&mut a, "side", Point::PreFilter, "NodePorts");
        assert!(s.contains("host ports: 8080/TCP"), "{s}");
        let s = screen(&mut a, "side", Point::PreScore, "NodeResourcesBalancedAllocation");
        assert!(
            s.contains("requests for scoring (as requested, no defaults): cpu 3, memory 0"),
            "{s}"
        );
        let s = screen(&mut a, "side", Point::PreScore, "NodeResourcesFit");
        assert!(
            s.contains("requests for scoring (cpu and memory defaults filled in): cpu 3, memory 400Mi"),
            "{s}"
        );
        let s = screen(&mut old, "side", Point::PreFilter, "NodePorts");
        assert!(s.contains("host ports: none (the plugin skips)"), "{s}");
    }
}
