//! The descheduler dry run as a report (`kschedtui deschedule`, the TUI's `:deschedule`): per
//! profile and plugin, the pods it considered, why each qualifies (the plugin's rule and
//! numbers), what the DefaultEvictor protects and why, what the eviction limits cut and what
//! a PodDisruptionBudget refused; then the evictions applied in memory and each evicted
//! pod's replacement scheduled by the engine (`simulate`'s queue): the node it lands on, the
//! same node it returns to, or Pending with the scheduler's message. As text, or as JSON
//! (`kind: DeschedulerDryRun`, every key in docs/deschedule-json.md).
//!
//! Nothing here writes anywhere: [`run`] works on a copy of the cluster in memory.

use std::fmt::Write;

use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

use crate::engine::deschedule::policy::Policy;
use crate::engine::deschedule::reschedule::{Landing, Replacement, reschedule};
use crate::engine::deschedule::{Candidate, CycleError, CycleReport, Outcome, PluginRun, run_cycle};
use crate::engine::framework::trace::Explanation;
use crate::engine::simulate::{EventKind, SimOptions, SimReport};
use crate::engine::{Features, Framework};
use crate::model::{Cluster, ObjectKey};

/// A dry run: the cycle, the replacements and their scheduling.
#[derive(Clone, Debug)]
pub struct DryRun {
    /// The policy file, as named.
    pub policy: String,
    /// The scheduler release reproduced for the rescheduling (`Features::describe`).
    pub scheduler: String,
    /// The policy's limits: maxNoOfPodsToEvictPerNode, PerNamespace, Total.
    pub limits: [Option<u64>; 3],
    /// Policy fields read but not reproduced (field, value).
    pub unreproduced: Vec<(String, String)>,
    /// The descheduling cycle.
    pub cycle: CycleReport,
    /// Each evicted pod's replacement and where it lands, in eviction order.
    pub replacements: Vec<Replacement>,
    /// The scheduling of the replacements (None when none was created).
    pub sim: Option<SimReport>,
}

/// Runs the policy's cycle on `cluster` at `now`, then schedules the replacements with
/// `profiles`; `policy_name` names the file in the report.
pub fn run(
    cluster: Cluster,
    policy_name: &str,
    policy: &Policy,
    unreproduced: &[(String, String)],
    now: Timestamp,
    profiles: &[Framework],
    features: &Features,
) -> Result<DryRun, CycleError> {
    let cycle = run_cycle(cluster, policy, now)?;
    let (replacements, sim) = reschedule(&cycle, profiles, features, SimOptions::default().max_passes);
    Ok(DryRun {
        policy: policy_name.to_string(),
        scheduler: features.describe(),
        limits: [policy.max_per_node, policy.max_per_namespace, policy.max_total],
        unreproduced: unreproduced.to_vec(),
        cycle,
        replacements,
        sim,
    })
}

/// The names of the limits, in [`DryRun::limits`] order.
pub const LIMIT_NAMES: [&str; 3] = [
    "maxNoOfPodsToEvictPerNode",
    "maxNoOfPodsToEvictPerNamespace",
    "maxNoOfPodsToEvictTotal",
];

impl DryRun {
    /// The last explanation of a replacement's scheduling (its last attempt).
    pub fn explanation(&self, replacement: &ObjectKey) -> Option<&Explanation> {
        self.sim.as_ref()?.events.iter().rev().find_map(|e| match &e.kind {
            EventKind::Attempt { explanation, .. } if e.pod == *replacement => Some(&**explanation),
            _ => None,
        })
    }

    /// The replacement of an evicted pod.
    pub fn replacement_of(&self, evicted: &ObjectKey) -> Option<&Replacement> {
        self.replacements.iter().find(|r| r.evicted == *evicted)
    }

    /// How the evictions of `ns` (every namespace for None) end.
    pub fn counts(&self, ns: Option<&str>) -> Counts {
        let mut c = Counts::default();
        for r in self.replacements.iter().filter(|r| in_ns(&r.evicted, ns)) {
            c.evicted += 1;
            match &r.landing {
                Landing::Node { same: false, .. } => c.moved += 1,
                Landing::Node { same: true, .. } => c.same_node += 1,
                Landing::Pending(_) => c.pending += 1,
                Landing::NotRecreated(_) => c.not_recreated += 1,
                Landing::Waiting(_) | Landing::Held(_) => c.other += 1,
            }
        }
        c
    }
}

/// How the evictions ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Pods evicted.
    pub evicted: usize,
    /// Replacements bound to another node.
    pub moved: usize,
    /// Replacements bound to the node the evicted pod ran on.
    pub same_node: usize,
    /// Replacements left Pending.
    pub pending: usize,
    /// Evicted pods nothing recreates.
    pub not_recreated: usize,
    /// Replacements waiting at Permit or held before the queue.
    pub other: usize,
}

fn in_ns(k: &ObjectKey, ns: Option<&str>) -> bool {
    ns.is_none_or(|n| k.namespace == n)
}

/// The outcome's name in the report (`Evicted`, `Protected`, `Limited`, `Refused`, `Skipped`).
pub fn outcome_name(o: &Outcome) -> &'static str {
    match o {
        Outcome::Evicted => "Evicted",
        Outcome::Protected(_) => "Protected",
        Outcome::Limited(_) => "Limited",
        Outcome::Failed(_) => "Refused",
        Outcome::Skipped(_) => "Skipped",
    }
}

/// Why the outcome is what it is, one line (empty for an eviction).
pub fn outcome_why(o: &Outcome) -> String {
    match o {
        Outcome::Evicted => String::new(),
        Outcome::Protected(why) => format!("protected by DefaultEvictor: {}", why.join("; ")),
        Outcome::Limited(m) => format!("cut by the eviction limits: {m}"),
        Outcome::Failed(m) => format!("the eviction was refused: {m}"),
        Outcome::Skipped(m) => format!("skipped by the plugin: {m}"),
    }
}

/// Where a replacement lands, one line (`moves to node-2`, `Pending: 0/3 nodes ...`).
pub fn landing_text(r: &Replacement) -> String {
    match &r.landing {
        Landing::Node { node, same: false } => format!("moves to {node}"),
        Landing::Node { node, same: true } => format!("returns to the same node {node}"),
        Landing::Pending(m) => format!("Pending: {m}"),
        Landing::Waiting(n) => format!("waits at Permit on {n}"),
        Landing::Held(m) => format!("held before the queue: {m}"),
        Landing::NotRecreated(why) => format!("not recreated: {why}"),
    }
}

fn run_title(r: &PluginRun) -> String {
    format!("Profile {} · {} · {}", r.profile, r.point.name(), r.plugin)
}

fn tally(cands: &[&Candidate]) -> String {
    let mut parts = Vec::new();
    for (name, word) in [
        ("Evicted", "evicted"),
        ("Protected", "protected"),
        ("Limited", "cut by the limits"),
        ("Refused", "refused"),
        ("Skipped", "skipped"),
    ] {
        let n = cands.iter().filter(|c| outcome_name(&c.outcome) == name).count();
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    if parts.is_empty() {
        "no candidate".into()
    } else {
        parts.join(", ")
    }
}

/// The report as text; `ns` keeps only the pods of one namespace (the cycle itself ran on the
/// whole cluster).
pub fn render(d: &DryRun, ns: Option<&str>) -> String {
    let mut s = String::new();
    let c = &d.cycle;
    let _ = writeln!(
        s,
        "Descheduler dry run of {} at {} (scheduler {}; {} node(s): {})",
        d.policy,
        c.now,
        d.scheduler,
        c.nodes.len(),
        c.nodes.join(", ")
    );
    let _ = writeln!(
        s,
        "Nothing is sent to the cluster: the evictions are applied in memory, then each evicted pod's replacement is scheduled."
    );
    if let Some(n) = ns {
        let _ = writeln!(
            s,
            "Only the pods of namespace {n} are shown (the cycle ran on the whole cluster)."
        );
    }
    let limits: Vec<String> = LIMIT_NAMES
        .iter()
        .zip(d.limits)
        .filter_map(|(n, v)| v.map(|v| format!("{n} {v}")))
        .collect();
    let _ = writeln!(
        s,
        "Limits: {}",
        if limits.is_empty() {
            "none".to_string()
        } else {
            limits.join(", ")
        }
    );
    for (field, value) in &d.unreproduced {
        let _ = writeln!(s, "Not reproduced (ignored): {field} = {value}");
    }
    if let Some(why) = &c.skipped {
        let _ = writeln!(s, "\n{why}");
        return s;
    }
    for r in &c.runs {
        let cands: Vec<&Candidate> = r.candidates.iter().filter(|x| in_ns(&x.pod, ns)).collect();
        let _ = writeln!(s, "\n{}: {}", run_title(r), tally(&cands));
        for n in &r.notes {
            let _ = writeln!(s, "  · {n}");
        }
        if let Some(e) = &r.error {
            let _ = writeln!(s, "  error: {e}");
        }
        for x in cands {
            let _ = writeln!(
                s,
                "  {:<10} {} on {}: {}",
                outcome_name(&x.outcome),
                x.pod,
                x.node,
                x.reason
            );
            let why = outcome_why(&x.outcome);
            if !why.is_empty() {
                let _ = writeln!(s, "  {:<10} {why}", "");
            }
        }
    }
    let reps: Vec<&Replacement> = d.replacements.iter().filter(|r| in_ns(&r.evicted, ns)).collect();
    if reps.is_empty() {
        let _ = writeln!(s, "\nNo pod is evicted.");
        return s;
    }
    let _ = writeln!(
        s,
        "\nEvicted in memory: {}; their replacements, scheduled in the scheduler's queue order:",
        reps.len()
    );
    for r in &reps {
        let owner = r.owner.as_ref().map(|o| format!(" ({o})")).unwrap_or_default();
        let to = r.replacement.as_ref().map(|k| format!(" → {k}")).unwrap_or_default();
        let _ = writeln!(
            s,
            "  {}{owner} from {} by {}{to}: {}",
            r.evicted,
            r.from,
            r.plugin,
            landing_text(r)
        );
    }
    if let Some(sim) = &d.sim
        && !sim.evicted.is_empty()
    {
        let v: Vec<String> = sim.evicted.iter().map(ToString::to_string).collect();
        let _ = writeln!(s, "Deleted by preemption while rescheduling: {}", v.join(", "));
    }
    let k = d.counts(ns);
    let _ = writeln!(
        s,
        "\nSummary: {} evicted: {} move(s) to another node, {} return(s) to the same node, {} Pending, {} not recreated{}",
        k.evicted,
        k.moved,
        k.same_node,
        k.pending,
        k.not_recreated,
        if k.other > 0 {
            format!(", {} waiting or held", k.other)
        } else {
            String::new()
        }
    );
    s
}

fn key(k: &ObjectKey) -> Value {
    json!({"namespace": k.namespace, "name": k.name})
}

fn candidate_json(c: &Candidate) -> Value {
    let why: Vec<String> = match &c.outcome {
        Outcome::Evicted => Vec::new(),
        Outcome::Protected(v) => v.clone(),
        Outcome::Limited(m) | Outcome::Failed(m) | Outcome::Skipped(m) => vec![m.clone()],
    };
    json!({
        "pod": key(&c.pod),
        "node": c.node,
        "reason": c.reason,
        "outcome": outcome_name(&c.outcome),
        "why": why,
    })
}

fn replacement_json(d: &DryRun, r: &Replacement) -> Value {
    let (result, node, message) = match &r.landing {
        Landing::Node { node, same: false } => ("Moved", Some(node.clone()), None),
        Landing::Node { node, same: true } => ("SameNode", Some(node.clone()), None),
        Landing::Pending(m) => ("Pending", None, Some(m.clone())),
        Landing::Waiting(n) => ("Waiting", Some(n.clone()), None),
        Landing::Held(m) => ("Held", None, Some(m.clone())),
        Landing::NotRecreated(m) => ("NotRecreated", None, Some(m.clone())),
    };
    let explanation = match &r.landing {
        Landing::Node { .. } | Landing::NotRecreated(_) => None,
        _ => r
            .replacement
            .as_ref()
            .and_then(|k| d.explanation(k))
            .map(super::json::to_value),
    };
    json!({
        "pod": key(&r.evicted),
        "node": r.from,
        "plugin": r.plugin,
        "owner": r.owner,
        "replacement": r.replacement.as_ref().map(key),
        "result": result,
        "landingNode": node,
        "message": message,
        "explanation": explanation,
    })
}

/// The report as JSON (docs/deschedule-json.md); `ns` as in [`render`].
pub fn to_json(d: &DryRun, ns: Option<&str>) -> Value {
    let c = &d.cycle;
    let plugins: Vec<Value> = c
        .runs
        .iter()
        .map(|r| {
            let cands: Vec<&Candidate> = r.candidates.iter().filter(|x| in_ns(&x.pod, ns)).collect();
            json!({
                "profile": r.profile,
                "extensionPoint": r.point.name(),
                "plugin": r.plugin,
                "notes": r.notes,
                "error": r.error,
                "candidates": cands.iter().map(|x| candidate_json(x)).collect::<Vec<_>>(),
                "evicted": cands.iter().filter(|x| x.outcome == Outcome::Evicted).count(),
            })
        })
        .collect();
    let k = d.counts(ns);
    let mut limits = serde_json::Map::new();
    for (n, v) in LIMIT_NAMES.iter().zip(d.limits) {
        limits.insert((*n).to_string(), json!(v));
    }
    json!({
        "apiVersion": "kschedtui/v1",
        "kind": "DeschedulerDryRun",
        "policy": d.policy,
        "now": c.now.to_string(),
        "schedulerVersion": d.scheduler,
        "namespace": ns,
        "limits": limits,
        "unreproduced": d.unreproduced.iter().map(|(f, v)| json!({"field": f, "value": v})).collect::<Vec<_>>(),
        "nodes": c.nodes,
        "skipped": c.skipped,
        "plugins": plugins,
        "evictions": d.replacements.iter().filter(|r| in_ns(&r.evicted, ns)).map(|r| replacement_json(d, r)).collect::<Vec<_>>(),
        "preempted": d.sim.as_ref().map(|s| s.evicted.iter().map(key).collect::<Vec<_>>()).unwrap_or_default(),
        "summary": {
            "evicted": k.evicted,
            "moved": k.moved,
            "sameNode": k.same_node,
            "pending": k.pending,
            "notRecreated": k.not_recreated,
            "waitingOrHeld": k.other,
        },
    })
}
