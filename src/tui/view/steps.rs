//! Panels of the points that run once per cycle (PreEnqueue, QueueSort, PreFilter, PreScore)
//! and of the binding cycle (Reserve, Permit, PreBind, Bind, PostBind): each plugin's status,
//! and at a plugin step what the plugin reads from this pod.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{ViewState, block, record_rows};
use crate::app::stepper::{Pipeline, Point, PointState, Step};
use crate::app::whatif::format_toleration;
use crate::app::{App, format};
use crate::engine::framework::status::Code;
use crate::engine::plugins::names;
use crate::engine::trace::{BindingOutcome, Explanation, PluginStatus};
use crate::model::Pod;
use crate::tui::theme::Theme;

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

/// What a plugin reads from the pod (what its PreFilter/PreScore precomputes), in words.
pub fn facts(plugin: &str, pod: &Pod) -> Vec<String> {
    let spec = pod.spec();
    let none = |s: &str| format!("{s}: none");
    match plugin {
        names::NODE_RESOURCES_FIT => {
            let r: Vec<String> = pod
                .requests
                .list
                .iter()
                .map(|(k, v)| format!("{k} {}", format::amount(k, *v)))
                .collect();
            vec![if r.is_empty() {
                none("effective requests")
            } else {
                format!("effective requests: {}", r.join(", "))
            }]
        }
        names::NODE_RESOURCES_BALANCED_ALLOCATION => vec![format!(
            "requests used for scoring (non-zero defaults): cpu {}, memory {}",
            format::cpu(pod.requests.non0_cpu),
            format::bytes(pod.requests.non0_mem)
        )],
        names::NODE_PORTS => {
            let p: Vec<String> = pod
                .host_ports
                .iter()
                .map(|h| format!("{}/{}", h.port, h.protocol))
                .collect();
            vec![if p.is_empty() {
                "host ports: none (the plugin skips)".into()
            } else {
                format!("host ports: {}", p.join(", "))
            }]
        }
        names::NODE_AFFINITY => {
            let sel = spec
                .node_selector
                .iter()
                .flatten()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>();
            let na = spec.affinity.as_ref().and_then(|a| a.node_affinity.as_ref());
            let req = na
                .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref())
                .map_or(0, |r| r.node_selector_terms.len());
            let pref = na
                .and_then(|n| n.preferred_during_scheduling_ignored_during_execution.as_ref())
                .map_or(0, Vec::len);
            vec![
                if sel.is_empty() {
                    none("nodeSelector")
                } else {
                    format!("nodeSelector: {}", sel.join(", "))
                },
                format!("required node affinity terms: {req}; preferred: {pref}"),
            ]
        }
        names::TAINT_TOLERATION | names::NODE_UNSCHEDULABLE => {
            let t: Vec<String> = spec.tolerations.iter().flatten().map(format_toleration).collect();
            vec![if t.is_empty() {
                none("tolerations")
            } else {
                format!("tolerations: {}", t.join(", "))
            }]
        }
        names::POD_TOPOLOGY_SPREAD => {
            let c: Vec<String> = spec
                .topology_spread_constraints
                .iter()
                .flatten()
                .map(|c| format!("{} maxSkew {} {}", c.topology_key, c.max_skew, c.when_unsatisfiable))
                .collect();
            vec![if c.is_empty() {
                none("topologySpreadConstraints (defaults may apply)")
            } else {
                format!("constraints: {}", c.join("; "))
            }]
        }
        names::INTER_POD_AFFINITY => {
            let a = spec.affinity.as_ref();
            let n = |v: Option<usize>| v.unwrap_or(0);
            let pa = a.and_then(|a| a.pod_affinity.as_ref());
            let paa = a.and_then(|a| a.pod_anti_affinity.as_ref());
            vec![format!(
                "pod affinity terms: {} required, {} preferred; anti-affinity: {} required, {} preferred",
                n(pa.and_then(|x| x
                    .required_during_scheduling_ignored_during_execution
                    .as_ref()
                    .map(Vec::len))),
                n(pa.and_then(|x| x
                    .preferred_during_scheduling_ignored_during_execution
                    .as_ref()
                    .map(Vec::len))),
                n(paa.and_then(|x| x
                    .required_during_scheduling_ignored_during_execution
                    .as_ref()
                    .map(Vec::len))),
                n(paa.and_then(|x| x
                    .preferred_during_scheduling_ignored_during_execution
                    .as_ref()
                    .map(Vec::len))),
            )]
        }
        names::VOLUME_BINDING | names::VOLUME_RESTRICTIONS | names::VOLUME_ZONE | names::NODE_VOLUME_LIMITS => {
            let c: Vec<String> = spec
                .volumes
                .iter()
                .flatten()
                .filter_map(|v| v.persistent_volume_claim.as_ref().map(|c| c.claim_name.clone()))
                .collect();
            vec![if c.is_empty() {
                none("PersistentVolumeClaims")
            } else {
                format!("PersistentVolumeClaims: {}", c.join(", "))
            }]
        }
        names::SCHEDULING_GATES => {
            let g: Vec<String> = spec.scheduling_gates.iter().flatten().map(|g| g.name.clone()).collect();
            vec![if g.is_empty() {
                none("schedulingGates")
            } else {
                format!("schedulingGates: {}", g.join(", "))
            }]
        }
        names::IMAGE_LOCALITY => {
            let i: Vec<String> = spec.containers.iter().filter_map(|c| c.image.clone()).collect();
            vec![format!("images: {}", i.join(", "))]
        }
        names::PRIORITY_SORT => vec![format!("priority {}", pod.priority)],
        _ => Vec::new(),
    }
}

/// Draws the panel of a once-per-cycle or binding-cycle point.
#[allow(clippy::too_many_arguments)]
pub fn render(
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
    let pod = app.pod(&ex.pod);
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
                    if let Some(pod) = pod {
                        let f = facts(p, pod);
                        if !f.is_empty() {
                            lines.push(Line::from(""));
                            lines.push(Line::from(Span::styled("What it reads from the pod:", theme.header)));
                            lines.extend(f.into_iter().map(|x| Line::from(format!("  {x}"))));
                        }
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
    let q = app.cluster.pending_pods();
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
        } else if app.profile(&p.scheduler_name).is_none() {
            format!("  (schedulerName {}: another scheduler's queue)", p.scheduler_name)
        } else {
            String::new()
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{:>4}. ", i + 1), theme.muted),
            Span::styled(
                p.key.to_string(),
                if me {
                    theme.selected.patch(theme.accent)
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
        let names: Vec<String> = g.unplaced.iter().map(|k| k.name.clone()).collect();
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
