//! The node view: allocatable vs requested per resource as gauges (with the pod's request on
//! top), why the pod does or does not fit, taints (and whether the pod tolerates them), labels
//! and the pods on the node.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::block;
use crate::app::analysis::{self, NodeUsage, ZONE_LABEL};
use crate::app::{App, NodeView, format};
use crate::model::{Node, Pod};
use crate::tui::theme::Theme;

fn gauge_text(name: &str, alloc: i64, used: i64, add: i64) -> String {
    let pct = |v: i64| {
        if alloc > 0 {
            format!("{}%", v * 100 / alloc)
        } else {
            "-".into()
        }
    };
    // one unit on the line: `1500m / 8000m`, not `1500m / 8`
    let unit = format::CpuUnit::of([used, alloc, add]);
    let show = |v: i64| {
        if name == "cpu" {
            unit.show(v)
        } else {
            format::amount(name, v)
        }
    };
    let mut t = format!(" {} / {} ({})", show(used), show(alloc), pct(used));
    if add > 0 {
        t.push_str(&format!(" +{} → {}", show(add), pct(used + add)));
    }
    t
}

fn gauge<'a>(name: &str, alloc: i64, used: i64, add: i64, bar_w: usize, theme: &Theme) -> Line<'a> {
    let label = format!("{:<18}", format::ellipsize(name, 17));
    let text = gauge_text(name, alloc, used, add);
    let scale = |v: i64| -> usize {
        if alloc <= 0 {
            return if v > 0 { bar_w } else { 0 };
        }
        usize::try_from(v.max(0).min(alloc) * i64::try_from(bar_w).unwrap_or(0) / alloc).unwrap_or(0)
    };
    let u = scale(used);
    let total = scale(used + add).max(u + usize::from(add > 0 && u < bar_w));
    let over = used + add > alloc;
    Line::from(vec![
        Span::styled(label, theme.header),
        Span::styled("█".repeat(u), theme.gauge),
        Span::styled("▒".repeat(total - u), if over { theme.gauge_over } else { theme.ok }),
        Span::styled("░".repeat(bar_w.saturating_sub(total)), theme.muted),
        Span::styled(text, if over && add > 0 { theme.fail } else { theme.base }),
    ])
}

fn why<'a>(app: &App, node: &Node, pod: &Pod, theme: &Theme) -> Vec<Line<'a>> {
    let mut lines = vec![Line::from(vec![
        Span::styled("Why ", theme.header),
        Span::styled(pod.key.to_string(), theme.accent),
        Span::styled(" here?", theme.header),
    ])];
    match app.explanation(&pod.key) {
        Some(Ok(ex)) => match ex.filter.iter().find(|f| f.node == node.name) {
            Some(f) if f.feasible => {
                let rank = analysis::score_rank(ex, &node.name);
                let total = ex.score.iter().find(|s| s.node == node.name).map(|s| s.total);
                let winner = ex.selected.iter().any(|s| s == &node.name);
                lines.push(Line::from(Span::styled(
                    match (total, rank) {
                        (Some(t), Some(r)) => format!(
                            "fits; score {t}, rank {r} of {}{}",
                            ex.score.len(),
                            if winner { " — the scheduler's choice" } else { "" }
                        ),
                        _ => "fits".to_string(),
                    },
                    theme.ok,
                )));
            }
            Some(f) => {
                let nominated = analysis::nominated_usage(&app.cluster, pod, &app.features);
                let class = analysis::class_for(
                    f,
                    Some(pod),
                    Some(node),
                    app.usage.get(&node.name),
                    nominated.get(&node.name),
                    &app.features,
                );
                let style = if class == analysis::FilterClass::NearlyFit {
                    theme.warn
                } else {
                    theme.fail
                };
                if f.excluded_by_prefilter {
                    lines.push(Line::from(Span::styled(
                        "excluded: not in PreFilter's node set",
                        theme.muted,
                    )));
                }
                if let Some(fl) = &f.failure {
                    lines.push(Line::from(vec![
                        Span::styled("rejected by ", theme.muted),
                        Span::styled(
                            if fl.plugin.is_empty() {
                                "PreFilter".to_string()
                            } else {
                                fl.plugin.to_string()
                            },
                            style,
                        ),
                        Span::styled(format!(": {}", fl.reasons.join(", ")), style),
                    ]));
                }
                let first = f.failure.as_ref().map_or("", |x| x.plugin);
                for d in analysis::node_detail(f) {
                    let text = if d.plugin == first || d.plugin.is_empty() {
                        format!("  ↳ {}", d.text)
                    } else {
                        format!("  ↳ {}: {}", d.plugin, d.text)
                    };
                    lines.push(Line::from(Span::styled(text, theme.muted)));
                }
                for a in f.all_failures.iter().skip(1) {
                    lines.push(Line::from(Span::styled(
                        format!("also fails {}: {}", a.plugin, a.reasons.join(", ")),
                        theme.muted,
                    )));
                }
                for m in analysis::missing(
                    pod,
                    node,
                    app.usage.get(&node.name),
                    nominated.get(&node.name),
                    &app.features,
                ) {
                    lines.push(Line::from(Span::styled(m.to_string(), theme.warn)));
                }
            }
            None => lines.push(Line::from(Span::styled("no Filter verdict for this node", theme.muted))),
        },
        Some(Err(e)) => lines.push(Line::from(Span::styled(e.clone(), theme.muted))),
        None => lines.push(Line::from(Span::styled("explaining…", theme.muted))),
    }
    lines
}

/// Draws the node view: a title, then the resources, devices and verdict (left) beside the
/// taints, labels and pods (right), or one under the other on a narrow terminal.
pub(super) fn render(app: &App, v: &NodeView, theme: &Theme, frame: &mut Frame<'_>, area: Rect) {
    let Some(node) = app.cluster.node(&v.node) else {
        let b = block(theme, format!(" Node {} ", v.node));
        frame.render_widget(Paragraph::new("The node is not in the cluster.").block(b), area);
        return;
    };
    let usage = app.usage.get(&node.name).cloned().unwrap_or_default();
    let b = block(theme, title(node, &usage, theme));
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let pod = v.pod.as_ref().and_then(|k| app.pod(k)).filter(|p| p.is_pending());
    let wide = inner.width >= 120;
    let [left_area, right_area] = if wide {
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(inner)
    } else {
        [inner, Rect::default()]
    };
    let mut left = resources(app, node, &usage, pod.map(|p| &**p), left_area.width, theme);
    left.extend(devices(app, node, theme));
    if let Some(p) = pod {
        left.push(Line::from(""));
        left.extend(why(app, node, p, theme));
    }
    let right = taints_labels_pods(app, node, &usage, pod.map(|p| &**p), theme);
    // never scroll past the end (the app does not know the content height)
    let clamp = |n: usize| {
        v.scroll
            .min(u16::try_from(n.saturating_sub(usize::from(inner.height))).unwrap_or(u16::MAX))
    };
    if wide {
        let s = clamp(left.len().max(right.len()));
        frame.render_widget(
            Paragraph::new(left).wrap(Wrap { trim: false }).scroll((s, 0)),
            left_area,
        );
        frame.render_widget(
            Paragraph::new(right).wrap(Wrap { trim: false }).scroll((s, 0)),
            right_area,
        );
    } else {
        left.push(Line::from(""));
        left.extend(right);
        let s = clamp(left.len());
        frame.render_widget(Paragraph::new(left).wrap(Wrap { trim: false }).scroll((s, 0)), inner);
    }
}

/// The view's title: the node, its zone, its pods, whether it is cordoned.
fn title(node: &Node, usage: &NodeUsage, theme: &Theme) -> Line<'static> {
    let zone = node.labels.get(ZONE_LABEL).cloned().unwrap_or_else(|| "no zone".into());
    let mut title = vec![
        Span::raw(" Node "),
        Span::styled(node.name.clone(), theme.accent),
        Span::styled(format!(" · {zone} · {} pod(s)", usage.pods.len()), theme.muted),
    ];
    if node.unschedulable {
        title.push(Span::styled(" · cordoned", theme.fail));
    }
    title.push(Span::raw(" "));
    Line::from(title)
}

/// Allocatable against requested, a gauge per resource (the pod's request shown on it), in a
/// column `width` wide.
fn resources(
    app: &App,
    node: &Node,
    usage: &NodeUsage,
    pod: Option<&Pod>,
    width: u16,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut left = vec![Line::from(vec![
        Span::styled("Allocatable vs requested", theme.header),
        Span::styled(
            match pod {
                Some(p) => format!("  (▒ = {}'s request)", p.key.name),
                None => String::new(),
            },
            theme.muted,
        ),
    ])];
    let pod_extra = pod
        .map(|p| {
            app.features
                .requests_of(p)
                .list
                .keys()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let gauges: Vec<(String, i64, i64, i64)> = format::resource_names(&node.allocatable, pod_extra)
        .into_iter()
        .map(|name| {
            let alloc = node.allocatable.get(&name);
            let used = if name == "pods" {
                i64::try_from(usage.pods.len()).unwrap_or(0)
            } else {
                usage.requested.get(&name)
            };
            let add = match pod {
                Some(_) if name == "pods" => 1,
                Some(p) => app.features.requests_of(p).list.get(&name).copied().unwrap_or(0),
                None => 0,
            };
            (name, alloc, used, add)
        })
        .collect();
    let text_w = gauges
        .iter()
        .map(|(n, a, u, d)| gauge_text(n, *a, *u, *d).chars().count())
        .max()
        .unwrap_or(0);
    let bar_w = usize::from(width).saturating_sub(18 + text_w + 3).clamp(4, 40);
    for (name, alloc, used, add) in &gauges {
        left.push(gauge(name, *alloc, *used, *add, bar_w, theme));
    }
    left
}

/// The node's DRA devices, free or used by a claim, and their taints.
fn devices(app: &App, node: &Node, theme: &Theme) -> Vec<Line<'static>> {
    let mut left = Vec::new();
    let devices = crate::engine::plugins::dynamic_resources::node_devices(&app.cluster, &node.name, &node.labels);
    if !devices.is_empty() {
        let free = devices.iter().filter(|d| d.used_by.is_none()).count();
        left.push(Line::from(""));
        left.push(Line::from(vec![
            Span::styled("Devices (DRA)", theme.header),
            Span::styled(format!("  {free} of {} free", devices.len()), theme.muted),
        ]));
        for d in &devices {
            let name = d.id.rsplit('/').next().unwrap_or(&d.id);
            let mut spans = vec![
                Span::raw(format!("  {name} ")),
                Span::styled(d.summary.clone(), theme.muted),
            ];
            match &d.used_by {
                Some(c) => spans.push(Span::styled(format!("  used by {c}"), theme.warn)),
                None => spans.push(Span::styled("  free", theme.ok)),
            }
            for t in &d.taints {
                spans.push(Span::styled(format!("  tainted {t}"), theme.fail));
            }
            left.push(Line::from(spans));
        }
    }
    left
}

/// The node's taints (tolerated or not by the pod), labels and pods.
fn taints_labels_pods(
    app: &App,
    node: &Node,
    usage: &NodeUsage,
    pod: Option<&Pod>,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut right = vec![Line::from(Span::styled("Taints", theme.header))];
    if node.taints.is_empty() {
        right.push(Line::from(Span::styled("  none", theme.muted)));
    }
    for t in &node.taints {
        let text = if t.value.is_empty() {
            format!("  {}:{}", t.key, t.effect)
        } else {
            format!("  {}={}:{}", t.key, t.value, t.effect)
        };
        let mut spans = vec![Span::raw(text)];
        if let Some(p) = pod {
            let ok = crate::model::Toleration::any_tolerates(
                &p.tolerations,
                t,
                app.features.on(crate::engine::Gate::TaintTolerationComparisonOperators),
            );
            spans.push(if ok {
                Span::styled("  tolerated", theme.ok)
            } else {
                Span::styled("  not tolerated", theme.fail)
            });
        }
        right.push(Line::from(spans));
    }
    if node.unschedulable {
        right.push(Line::from(Span::styled(
            "  spec.unschedulable: true (cordoned)",
            theme.fail,
        )));
    }
    right.push(Line::from(Span::styled("Labels", theme.header)));
    for (k, val) in &node.labels {
        right.push(Line::from(vec![
            Span::styled(format!("  {k}"), theme.muted),
            Span::raw(format!("={val}")),
        ]));
    }
    right.push(Line::from(Span::styled(
        format!("Pods ({})", usage.pods.len()),
        theme.header,
    )));
    if usage.pods.is_empty() {
        right.push(Line::from(Span::styled("  none", theme.muted)));
    }
    let pods = usage.pods_iter();
    let unit = format::CpuUnit::of(pods.clone().map(|p| app.features.requests_of(p).resource.milli_cpu));
    for p in pods {
        let r = &app.features.requests_of(p).resource;
        right.push(Line::from(vec![
            Span::styled(format!("  {}", p.key), theme.accent),
            Span::styled(
                format!(
                    "  cpu {} mem {} prio {}",
                    unit.show(r.milli_cpu),
                    format::bytes(r.memory),
                    p.priority
                ),
                theme.muted,
            ),
        ]));
    }
    right
}
