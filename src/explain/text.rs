//! The human report of `kschedtui explain -o text`: the verdict first, then the upstream
//! message, the node table and the top of the score table.

use crate::engine::framework::batching::Batching;
use std::collections::BTreeMap;
use std::fmt::Write;

use crate::engine::framework::status::Code;
use crate::engine::framework::trace::{Explanation, FilterDetail, SpreadCheck};
use crate::engine::group_cycle::GroupCycle;
use crate::engine::plugins::names;

/// How many nodes the score table shows.
pub(crate) const TOP_NODES: usize = 10;

/// A pod a PreEnqueue plugin other than SchedulingGates holds (or, 1.37, whose pod group a
/// member holds): kube-scheduler writes no PodScheduled condition and no event for it.
fn held_without_condition(ex: &Explanation) -> bool {
    ex.pre_enqueue
        .iter()
        .find(|p| p.code != Code::Success)
        .is_some_and(|p| p.plugin != names::SCHEDULING_GATES)
        || ex.gang.as_ref().is_some_and(|g| g.held_with.is_some())
}

/// Renders one explanation of a pod whose gang's pass is `group`: the group's story right
/// under the pod's own verdict (alone, a member that fits waits at Permit; what becomes of it
/// is the group's), the same line the TUI's list, pod view and gang screen show.
pub(crate) fn render_in_group(ex: &Explanation, group: Option<&GroupCycle>) -> String {
    let s = render(ex);
    let Some(g) = group else { return s };
    let Some(at) = s
        .find("\nVerdict: ")
        .and_then(|i| s[i + 1..].find('\n').map(|j| i + 1 + j + 1))
    else {
        return s;
    };
    format!("{}Gang: {}\n{}", &s[..at], g.headline(), &s[at..])
}

/// Renders one explanation.
pub(crate) fn render(ex: &Explanation) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Pod {}  (profile {}, scheduler {}{}, {} nodes)",
        ex.pod,
        ex.profile,
        ex.release,
        if ex.feature_gates.is_empty() {
            String::new()
        } else {
            format!(" with {}", ex.feature_gates)
        },
        ex.node_count
    );
    let _ = writeln!(s, "Verdict: {}", ex.verdict());
    // the PodScheduled message upstream writes; a pod held before the queue gets none (the
    // scheduling gates' is the API server's), its verdict says why it is held
    if let Some(m) = &ex.message
        && !held_without_condition(ex)
    {
        let _ = writeln!(s, "Message: {m}");
    }
    for n in &ex.notes {
        let _ = writeln!(s, "Note: {n}");
    }
    // only when the real scheduler may have taken the batching path (the JSON always says)
    if let Some(b @ (Batching::Signed | Batching::Unknown { .. })) = &ex.batching
        && ex.waiting_for_scheduler.is_none()
    {
        let _ = writeln!(s, "Note: {}", b.describe());
    }
    if ex.waiting_for_scheduler.is_some() || ex.filter.is_empty() {
        return s;
    }
    if !ex.pre_filter.is_empty() {
        let _ = writeln!(s, "\nPreFilter:");
        for p in &ex.pre_filter {
            let reasons = if p.reasons.is_empty() {
                String::new()
            } else {
                format!("  {}", p.reasons.join(", "))
            };
            let _ = writeln!(s, "  {:<34} {}{}", p.plugin, p.code.as_str(), reasons);
        }
        if let Some(n) = &ex.pre_filter_node_names {
            let _ = writeln!(
                s,
                "  PreFilter narrowed the nodes to: {}",
                if n.is_empty() { "(none)".into() } else { n.join(", ") }
            );
        }
    }
    let feasible = ex.filter.iter().filter(|f| f.feasible).count();
    let _ = writeln!(s, "\nFilter: {feasible}/{} nodes feasible", ex.filter.len());
    let w = ex.filter.iter().map(|f| f.node.len()).max().unwrap_or(4).max(4);
    let _ = writeln!(s, "  {:<w$}  {:<10} {:<26} REASON", "NODE", "VERDICT", "PLUGIN");
    for f in &ex.filter {
        let (verdict, plugin, reason) = match &f.failure {
            None if f.feasible => ("fit", String::new(), String::new()),
            None => (
                "excluded",
                "(PreFilter)".to_string(),
                "not in PreFilter's node set".to_string(),
            ),
            Some(fl) => ("no fit", fl.plugin.to_string(), fl.reasons.join(", ")),
        };
        let _ = write!(s, "  {:<w$}  {:<10} {:<26} {}", f.node, verdict, plugin, reason);
        if !f.rejected_by_nominated_pods.is_empty() {
            let names: Vec<String> = f.rejected_by_nominated_pods.iter().map(ToString::to_string).collect();
            let _ = write!(s, "  (only with nominated pods: {})", names.join(", "));
        }
        if f.all_failures.len() > 1 {
            let more: Vec<&str> = f.all_failures.iter().skip(1).map(|a| a.plugin).collect();
            let _ = write!(s, "  (also: {})", more.join(", "));
        }
        let _ = writeln!(s);
        for d in &f.detail {
            let _ = writeln!(s, "  {:<w$}    - {d}", "");
        }
        for d in &f.details {
            match d {
                FilterDetail::TopologySpread(checks) => {
                    for c in checks.iter().filter(|c| !c.satisfied) {
                        let _ = writeln!(s, "  {:<w$}    spread: {}", "", spread_line(c));
                    }
                }
            }
        }
    }
    if let Some(pf) = &ex.post_filter {
        let _ = writeln!(
            s,
            "\nPostFilter ({}): {}",
            pf.plugin,
            pf.code.map_or("", |c| c.as_str())
        );
        if let Some(n) = &pf.nominated_node {
            let v: Vec<String> = pf.victims.iter().map(ToString::to_string).collect();
            let _ = writeln!(s, "  nominated node {n}; victims: {}", v.join(", "));
        } else if !pf.message.is_empty() {
            let _ = writeln!(s, "  {}", pf.message);
        }
        for c in &pf.candidates {
            let v: Vec<String> = c.victims.iter().map(ToString::to_string).collect();
            let pdbs = if c.violated_pdbs.is_empty() {
                String::new()
            } else {
                let p: Vec<String> = c.violated_pdbs.iter().map(ToString::to_string).collect();
                format!(" (violates PDB {})", p.join(", "))
            };
            let _ = writeln!(
                s,
                "  candidate {}: victims [{}], PDB violations {}{pdbs}; {}",
                c.node,
                v.join(", "),
                c.pdb_violations,
                c.note
            );
        }
        if let [first, ..] = pf.random_tie.as_slice() {
            let _ = writeln!(
                s,
                "  {} tie on every criterion of pickOneNodeForPreemption: upstream takes one of them at random (the first of a Go map's iteration); kschedtui shows {first}, the smallest name",
                pf.random_tie.join(", ")
            );
        }
        for (node, status) in &pf.node_notes {
            let _ = writeln!(s, "  dry run on {node}: {status}");
        }
    }
    render_dra(&mut s, ex);
    render_spread(&mut s, ex);
    render_cycle(&mut s, ex);
    if !ex.score.is_empty() {
        let mut plugins: Vec<&str> = Vec::new();
        for p in ex.score.iter().flat_map(|n| n.plugins.iter()) {
            if !plugins.contains(&p.plugin) {
                plugins.push(p.plugin);
            }
        }
        let mut rows: Vec<_> = ex.score.iter().collect();
        rows.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.node.cmp(&b.node)));
        let _ = writeln!(
            s,
            "\nScore (weighted; top {} of {} feasible nodes):",
            TOP_NODES.min(rows.len()),
            rows.len()
        );
        let abbrev: BTreeMap<&str, String> = plugins.iter().map(|p| (*p, abbreviate(p))).collect();
        let _ = write!(s, "  {:<w$}  {:>6}", "NODE", "TOTAL");
        for p in &plugins {
            let _ = write!(s, " {:>9}", abbrev[p]);
        }
        let _ = writeln!(s);
        for r in rows.iter().take(TOP_NODES) {
            let mark = if ex.selected.contains(&r.node) { "*" } else { " " };
            let _ = write!(s, "{mark} {:<w$}  {:>6}", r.node, r.total);
            for p in &plugins {
                let v = r
                    .plugins
                    .iter()
                    .find(|x| x.plugin == *p)
                    .map_or("-".to_string(), |x| x.weighted.to_string());
                let _ = write!(s, " {v:>9}");
            }
            let _ = writeln!(s);
        }
        let legend: Vec<String> = plugins.iter().map(|p| format!("{}={p}", abbrev[p])).collect();
        let _ = writeln!(s, "  ({})", legend.join(", "));
    }
    s
}

/// Seconds for display: `10s`, `2.5s`.
fn secs(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", ms as f64 / 1000.0)
    }
}

/// The pod's resource claims and what the nodes could give them, compactly: for each node
/// DynamicResources could decide on, the verdict and, per request, how the devices narrow
/// down (devices → class → selectors → free → usable), with the devices that nearly fit.
fn render_dra(s: &mut String, ex: &Explanation) {
    let Some(d) = &ex.dra else { return };
    let _ = writeln!(s, "\nResource claims (DynamicResources):");
    for c in &d.claims {
        let name = match &c.claim {
            Some(k) => format!("{} ({k})", c.pod_claim),
            None if c.pod_claim.is_empty() => "extended resources".to_string(),
            None => c.pod_claim.clone(),
        };
        let _ = writeln!(s, "  {name}: {}", c.state);
        for r in &c.requests {
            let _ = writeln!(s, "    request {r}");
        }
        if !c.devices.is_empty() {
            let _ = writeln!(s, "    devices {}", c.devices.join(", "));
        }
        if !c.reserved_for.is_empty() {
            let _ = writeln!(s, "    reserved for {}", c.reserved_for.join(", "));
        }
    }
    // Nodes another plugin rejected and that have no devices at all are counted, not listed.
    let quiet = |n: &crate::engine::framework::trace::DraNode| {
        n.verdict.contains("(the node already failed") && n.requests.iter().all(|r| r.devices == 0)
    };
    let hidden = d.nodes.iter().filter(|n| quiet(n)).count();
    for n in d.nodes.iter().filter(|n| !quiet(n)) {
        let _ = writeln!(s, "  {}: {}", n.node, n.verdict);
        for r in &n.requests {
            let _ = writeln!(s, "    {}", r.summary());
            for x in &r.near {
                let _ = writeln!(s, "      {x}");
            }
        }
        if !n.allocation.is_empty() {
            let _ = writeln!(s, "    would get {}", n.allocation.join(", "));
        }
    }
    if hidden > 0 {
        let _ = writeln!(
            s,
            "  ({hidden} more node(s) without devices, rejected by other plugins)"
        );
    }
}

/// A weight in millionths with four decimals (`1.3863`).
fn weight(micros: i64) -> String {
    format!("{:.4}", micros as f64 / 1e6)
}

/// PodTopologySpread for a pod with its own constraints: each constraint's domains with their
/// matching pods, then Score's arithmetic per scored node, raw then normalized.
fn render_spread(s: &mut String, ex: &Explanation) {
    let Some(t) = &ex.topology_spread else { return };
    let _ = writeln!(s, "\nTopology spread (PodTopologySpread, the pod's own constraints):");
    for l in spread_lines(t) {
        let _ = writeln!(s, "  {l}");
    }
}

/// The spread section's lines, without the heading or the indent (the TUI's PodTopologySpread
/// steps show the same).
pub(crate) fn spread_lines(t: &crate::engine::framework::trace::SpreadTrace) -> Vec<String> {
    let mut s = String::new();
    let mut soft = Vec::new();
    for c in &t.constraints {
        let mut head = format!("{} on {}, maxSkew {}", c.when_unsatisfiable, c.topology_key, c.max_skew);
        match c.weight_micros {
            None => {
                head.push_str(&format!(", minDomains {}", c.min_domains));
                if c.self_match {
                    head.push_str(" (the pod matches its selector: +1 where it goes)");
                }
                match c.global_min {
                    Some(m) => head.push_str(&format!("; global minimum {m}")),
                    None => head.push_str("; no domain found: upstream skips it"),
                }
            }
            Some(w) => {
                head.push_str(&format!(
                    "; Score weight ln({} domain(s) + 2) = {}",
                    c.domains.len(),
                    weight(w)
                ));
                soft.push(c);
            }
        }
        let _ = writeln!(s, "{head}:");
        let width = c
            .domains
            .iter()
            .map(|(d, _)| d.chars().count())
            .max()
            .unwrap_or(0)
            .max(6);
        let _ = writeln!(s, "  {:<width$}  MATCHING PODS", "DOMAIN");
        for (d, n) in &c.domains {
            let _ = writeln!(s, "  {d:<width$}  {n}");
        }
    }
    if t.scores.is_empty() {
        return s.lines().map(str::to_string).collect();
    }
    match t.normalize {
        Some((min, max)) if max > 0 => {
            let _ = writeln!(
                s,
                "Score: raw = round(Σ count × weight + maxSkew - 1); normalized = 100 × (max {max} + min {min} - raw) / max {max}:"
            );
        }
        _ => {
            let _ = writeln!(
                s,
                "Score: raw = round(Σ count × weight + maxSkew - 1); every raw score is 0, so each node gets 100:"
            );
        }
    }
    let width = t.scores.iter().map(|x| x.node.chars().count()).max().unwrap_or(0);
    for x in &t.scores {
        if x.ignored {
            let _ = writeln!(s, "  {:<width$}  lacks a topology key: 0", x.node);
            continue;
        }
        let terms: Vec<String> = soft
            .iter()
            .zip(&x.counts)
            .filter_map(|(c, n)| {
                n.map(|n| format!("{n} × {} + {}", weight(c.weight_micros.unwrap_or(0)), c.max_skew - 1))
            })
            .collect();
        let sum = if terms.is_empty() {
            "0".to_string()
        } else {
            terms.join(" + ")
        };
        let norm = match t.normalize {
            Some((min, max)) if max > 0 => format!("100 × ({max} + {min} - {}) / {max} = {}", x.raw, x.normalized),
            _ => format!("{}", x.normalized),
        };
        let _ = writeln!(
            s,
            "  {:<width$}  {sum} = {} → raw {} → normalized {norm}",
            x.node,
            weight(x.sum_micros),
            x.raw
        );
    }
    s.lines().map(str::to_string).collect()
}

/// The gang and the binding cycle.
fn render_cycle(s: &mut String, ex: &Explanation) {
    if let Some(g) = &ex.gang {
        let _ = writeln!(s, "\nGang ({}): group {}", g.plugin, g.group);
        if g.found {
            let _ = writeln!(
                s,
                "  minMember {}, {} member pod(s), {} other member(s) already on a node, permit timeout {}",
                g.min_member,
                g.members,
                g.assigned,
                secs(g.timeout_ms)
            );
        } else {
            let _ = writeln!(s, "  the PodGroup object does not exist");
        }
        for w in &g.waiting {
            let _ = writeln!(
                s,
                "  waiting at Permit: {} on {} (waited {}, {} left)",
                w.pod,
                w.node,
                secs(w.waited_ms),
                secs(w.time_left_ms)
            );
        }
        if !g.unplaced.is_empty() {
            let names: Vec<String> = g.unplaced.iter().map(ToString::to_string).collect();
            let _ = writeln!(s, "  not scheduled yet: {}", names.join(", "));
        }
        if let Some(pf) = &g.placement_feasible {
            let checks = std::iter::once(("before any member", &pf.before))
                .chain(pf.after_this_pod.as_ref().map(|a| ("after this pod", a)));
            for (when, c) in checks {
                let reason = if c.reason.is_empty() {
                    String::new()
                } else {
                    format!("  {}", c.reason)
                };
                let _ = writeln!(
                    s,
                    "  PlacementFeasible {when}: {} ({} scheduled, {} remaining, minCount {}){reason}",
                    c.code.as_str(),
                    c.scheduled,
                    c.remaining,
                    pf.min_count
                );
            }
        }
    }
    let Some(b) = &ex.binding_cycle else {
        return;
    };
    let tie = if ex.host_pick.is_some() {
        format!(
            " (kube-scheduler's pick among the tied nodes when they pass Filter in name order; also tied: {}; on a real cluster the order, and so the pick, depends on which filter worker finishes first)",
            b.tied_with.join(", ")
        )
    } else if b.tied_with.is_empty() {
        String::new()
    } else {
        format!(" (first of the tied nodes; also {})", b.tied_with.join(", "))
    };
    let _ = writeln!(s, "\nBinding cycle on {}{tie}: {}", b.node, b.outcome.as_str());
    let points = [
        ("Reserve", &b.reserve),
        ("Permit", &b.permit),
        ("PreBind", &b.pre_bind),
        ("Bind", &b.bind),
        ("PostBind", &b.post_bind),
        ("Unreserve", &b.unreserve),
    ];
    for (point, list) in points {
        for p in list {
            let mut line = format!("  {point:<10} {:<22} {}", p.plugin, p.code.as_str());
            if let Some(t) = p.timeout_ms {
                let _ = write!(line, " (up to {})", secs(t));
            }
            if !p.reasons.is_empty() {
                let _ = write!(line, "  {}", p.reasons.join(", "));
            }
            let _ = writeln!(s, "{line}");
            for n in &p.notes {
                let _ = writeln!(s, "  {:<10} {:<22} - {n}", "", "");
            }
        }
        if point == "Permit"
            && let Some(w) = &b.wait_result
        {
            let r = if w.reasons.is_empty() {
                String::new()
            } else {
                format!("  {}", w.reasons.join(", "))
            };
            let _ = writeln!(s, "  {:<10} {:<22} {}{r}", "WaitOnPermit", w.plugin, w.code.as_str());
        }
    }
    for (p, plugins) in &b.after_wait {
        let list = if plugins.is_empty() {
            "(no plugins)".to_string()
        } else {
            plugins.join(", ")
        };
        let _ = writeln!(s, "  after the wait: {p} {list}");
    }
    if let Some(m) = &b.message {
        let _ = writeln!(s, "  {m}");
    }
}

fn abbreviate(p: &str) -> String {
    let caps: String = p.chars().filter(|c| c.is_ascii_uppercase()).collect();
    if caps.len() >= 2 {
        caps
    } else {
        p.chars().take(9).collect()
    }
}

/// One failing PodTopologySpread constraint in words and numbers.
pub(crate) fn spread_line(c: &SpreadCheck) -> String {
    let Some(domain) = &c.domain else {
        return format!("node has no label '{}'", c.topology_key);
    };
    let min = c.global_min.unwrap_or(0);
    let min_note = if c.domains < c.min_domains.max(0) as usize {
        format!(
            " ({} of minDomains {} domains exist, so the minimum counts as 0)",
            c.domains, c.min_domains
        )
    } else if let Some(d) = &c.global_min_domain {
        format!(" (in {d})")
    } else {
        String::new()
    };
    format!(
        "{}={}: {} matching pod(s){} - global minimum {}{} = skew {} > maxSkew {}",
        c.topology_key,
        domain,
        c.match_num,
        if c.self_match { " + 1 (this pod)" } else { "" },
        min,
        min_note,
        c.skew.unwrap_or(0),
        c.max_skew
    )
}
