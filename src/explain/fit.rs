//! `kschedtui fit`'s answer ([`crate::engine::fit`]) as text and as the JSON of
//! docs/fit-json.md (`kind: Fit`): per workload its replicas, how many are scheduled, the
//! nodes with their counts, and for the first replica that is not scheduled the exact message,
//! the decisive reason ([`super::reason`]), what preemption would do and the fix hints
//! ([`super::fix`], checked by the engine on the cluster as the placement left it).

use std::fmt::Write;

use serde_json::{Value, json};

use super::fix::{Hints, Verified};
use crate::engine::fit::{FitReport, ReplicaResult, WorkloadFit};
use crate::engine::{Features, Framework};
use crate::model::ObjectKey;
use crate::model::controllers::ClaimBinding;

/// The answer with what is derived from it for the reports: each workload's decisive reason
/// and fix hints.
pub struct Answer<'a> {
    /// The placement.
    pub report: &'a FitReport,
    /// The release reproduced.
    pub scheduler: String,
    /// What the manifests were (file names).
    pub source: String,
    /// The cluster they were placed on (`the demo cluster`, a file, a context).
    pub cluster: String,
    /// Preemption applied.
    pub preempt: bool,
    /// Each workload's decisive reason (None: all scheduled).
    pub reasons: Vec<Option<String>>,
    /// Each workload's fix hints (None: all scheduled, or not asked for).
    pub fixes: Vec<Option<Vec<Verified>>>,
}

impl<'a> Answer<'a> {
    /// The answer to `report`; with `fixes`, each workload's first unschedulable replica gets
    /// its fix hints (each runs the engine again on a changed copy of the cluster).
    pub fn new(
        report: &'a FitReport,
        features: &Features,
        profiles: &[Framework],
        fixes: bool,
        source: String,
        cluster: String,
        preempt: bool,
    ) -> Self {
        let hints = fixes.then(|| Hints::new(&report.snapshot.cluster, features, profiles));
        let mut reasons = Vec::new();
        let mut all = Vec::new();
        for w in &report.workloads {
            let ex = w.unschedulable.as_ref().and_then(|u| u.explanation.as_deref());
            reasons.push(match (&w.unschedulable, ex) {
                (Some(_), Some(ex)) => Some(super::reason::decisive(ex).text),
                (Some(u), None) => Some(short_refusal(&u.message)),
                (None, _) => None,
            });
            all.push(match (&hints, ex) {
                (Some(h), Some(ex)) if !ex.schedulable() => Some(h.of(ex, None)),
                _ => None,
            });
        }
        Answer {
            report,
            scheduler: features.describe(),
            source,
            cluster,
            preempt,
            reasons,
            fixes: all,
        }
    }

    /// True when every replica of every workload is scheduled.
    pub fn all_fit(&self) -> bool {
        self.report.workloads.iter().all(|w| w.unscheduled() == 0)
    }
}

/// A refusal's reason in a few words.
fn short_refusal(message: &str) -> String {
    if let Some(rest) = message.split("is forbidden: ").nth(1) {
        if let Some(q) = rest.strip_prefix("exceeded quota: ") {
            return format!("quota {} exceeded", q.split(',').next().unwrap_or_default());
        }
        return rest.split(':').next().unwrap_or(rest).to_string();
    }
    if message.starts_with("not created") {
        return "not created (OrderedReady)".into();
    }
    message.to_string()
}

fn pod(k: &ObjectKey) -> Value {
    json!({"namespace": k.namespace, "name": k.name})
}

fn binding_json(b: &ClaimBinding) -> (&'static str, Value) {
    match b {
        ClaimBinding::WaitForFirstConsumer(class) => ("WaitForFirstConsumer", json!(class)),
        ClaimBinding::BoundTo(pv) => ("BoundToExisting", json!(pv)),
        ClaimBinding::Provisioned(pv, _) => ("ProvisionedImmediately", json!(pv)),
        ClaimBinding::Unbound(class) => ("Unbound", json!(class)),
        ClaimBinding::Existing => ("Existing", Value::Null),
    }
}

fn binding_text(b: &ClaimBinding) -> String {
    match b {
        ClaimBinding::WaitForFirstConsumer(c) => {
            format!("class {c} binds WaitForFirstConsumer: bound or provisioned where the pod lands")
        }
        ClaimBinding::BoundTo(pv) => format!("Immediate: bound at once to the existing volume {pv}"),
        ClaimBinding::Provisioned(pv, true) => format!(
            "Immediate: provisioned at once as {pv} (given the class's allowedTopologies as node affinity; a real provisioner picks one zone of them)"
        ),
        ClaimBinding::Provisioned(pv, false) => {
            format!(
                "Immediate: provisioned at once as {pv} (the class has no allowedTopologies: usable from every node)"
            )
        }
        ClaimBinding::Unbound(c) => {
            format!("Immediate, class '{c}': no volume matches and none is provisioned; it stays unbound")
        }
        ClaimBinding::Existing => "exists already (a StatefulSet's claims outlive its pods)".into(),
    }
}

/// One workload as JSON.
fn workload_json(w: &WorkloadFit, reason: Option<&String>, fixes: Option<&Vec<Verified>>) -> Value {
    let u = w.unschedulable.as_ref();
    let mut m = serde_json::Map::new();
    m.insert("kind".into(), json!(w.kind.name()));
    m.insert("namespace".into(), json!(w.namespace));
    m.insert("name".into(), json!(w.name));
    m.insert("replicas".into(), json!(w.replicas));
    m.insert("scheduled".into(), json!(w.scheduled()));
    m.insert("unschedulable".into(), json!(w.unscheduled()));
    m.insert("nodes".into(), json!(w.nodes()));
    m.insert("message".into(), json!(u.map(|u| u.message.clone())));
    m.insert("reason".into(), json!(reason));
    m.insert("pod".into(), u.map_or(Value::Null, |u| pod(&u.pod)));
    m.insert(
        "preemption".into(),
        u.and_then(|u| u.preemption.as_ref()).map_or(Value::Null, |p| {
            json!({
                "node": p.node,
                "victims": p.victims.iter().map(pod).collect::<Vec<_>>(),
                "message": p.message,
            })
        }),
    );
    if let Some(f) = fixes {
        m.insert("fixes".into(), super::fix::to_json(f));
    }
    if let Some(x) = &w.max {
        m.insert("maxReplicas".into(), json!(x.max));
        m.insert(
            "maxSearch".into(),
            json!({
                "method": x.method.name(),
                "placements": x.placements,
                "next": x.next,
                "limited": x.limited,
            }),
        );
    }
    m.insert(
        "pods".into(),
        Value::Array(
            w.pods
                .iter()
                .map(|r| {
                    let mut p = serde_json::Map::new();
                    p.insert("pod".into(), pod(&r.pod));
                    p.insert("result".into(), json!(r.result.name()));
                    match &r.result {
                        ReplicaResult::Bound { node } | ReplicaResult::Waiting { node } => {
                            p.insert("node".into(), json!(node));
                        }
                        ReplicaResult::Pending { nominated, .. } => {
                            p.insert("nominatedNode".into(), json!(nominated));
                        }
                        ReplicaResult::Refused { plugin, .. } => {
                            p.insert("plugin".into(), json!(plugin));
                        }
                        _ => {}
                    }
                    if let Some(msg) = r.result.message()
                        && !matches!(r.result, ReplicaResult::Waiting { .. })
                    {
                        p.insert("message".into(), json!(msg));
                    }
                    Value::Object(p)
                })
                .collect(),
        ),
    );
    m.insert(
        "claims".into(),
        Value::Array(
            w.claims
                .iter()
                .map(|(k, b)| {
                    let (binding, detail) = binding_json(b);
                    json!({"claim": pod(k), "binding": binding, "detail": detail})
                })
                .collect(),
        ),
    );
    m.insert(
        "resourceClaims".into(),
        Value::Array(w.resource_claims.iter().map(pod).collect()),
    );
    m.insert("notes".into(), json!(w.notes));
    Value::Object(m)
}

/// The whole answer as JSON (docs/fit-json.md).
pub fn to_json(a: &Answer<'_>) -> Value {
    let r = a.report;
    json!({
        "apiVersion": "kschedtui/v1",
        "kind": "Fit",
        "schedulerVersion": a.scheduler,
        "preempt": a.preempt,
        "afterPending": r.pending_first.map(|(bound, pending)| json!({"bound": bound, "pending": pending})),
        "notes": r.notes,
        "skipped": r.skipped,
        "workloads": r
            .workloads
            .iter()
            .zip(&a.reasons)
            .zip(&a.fixes)
            .map(|((w, reason), fixes)| workload_json(w, reason.as_ref(), fixes.as_ref()))
            .collect::<Vec<_>>(),
        "evicted": r.evicted.iter().map(pod).collect::<Vec<_>>(),
    })
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}\n")).collect()
}

/// The text report.
pub fn render(a: &Answer<'_>) -> String {
    let r = a.report;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Fit of {} on {} (scheduler {}, {} node(s))",
        a.source,
        a.cluster,
        a.scheduler,
        r.snapshot.nodes.len()
    );
    let _ = writeln!(
        s,
        "Placed in queue order on a copy of the cluster, each placement applied before the next; nothing is sent."
    );
    if a.preempt {
        let _ = writeln!(
            s,
            "Preemption is applied (--preempt): victims deleted in memory, as simulate does."
        );
    } else {
        let _ = writeln!(
            s,
            "Preemption is not applied: for a replica that does not fit, what it would do is said (--preempt applies it)."
        );
    }
    if let Some((bound, pending)) = r.pending_first {
        let _ = writeln!(
            s,
            "The cluster's pending pods were scheduled first (--after-pending): {bound} of {pending} bound."
        );
    }
    for (i, w) in r.workloads.iter().enumerate() {
        let _ = writeln!(s);
        let what = if w.kind == crate::model::controllers::WorkloadKind::DaemonSet {
            "pods (one per eligible node)"
        } else {
            "replicas"
        };
        let _ = write!(
            s,
            "{} {}/{}: {} of {} {what} scheduled",
            w.kind,
            w.namespace,
            w.name,
            w.scheduled(),
            w.replicas
        );
        if w.unscheduled() > 0 {
            let _ = write!(s, ", {} unschedulable", w.unscheduled());
        }
        s.push('\n');
        let nodes = w.nodes();
        if !nodes.is_empty() {
            let list: Vec<String> = nodes.iter().map(|(n, c)| format!("{n} ×{c}")).collect();
            let _ = writeln!(s, "  nodes: {}", list.join(", "));
        }
        for (k, b) in &w.claims {
            let _ = writeln!(s, "  claim {}: {}", k.name, binding_text(b));
        }
        if !w.resource_claims.is_empty() {
            let names: Vec<&str> = w.resource_claims.iter().map(|k| k.name.as_str()).collect();
            let _ = writeln!(s, "  ResourceClaims from templates: {}", names.join(", "));
        }
        if let Some(u) = &w.unschedulable {
            let _ = writeln!(s, "  first unschedulable: {}", u.pod);
            for l in u.message.lines() {
                let _ = writeln!(s, "    {l}");
            }
            if let Some(reason) = &a.reasons[i] {
                let _ = writeln!(s, "    reason: {reason}");
            }
            match &u.preemption {
                Some(p) if p.node.is_some() => {
                    let victims: Vec<String> = p.victims.iter().map(ToString::to_string).collect();
                    let verb = if a.preempt {
                        "preempts"
                    } else {
                        "preemption would evict"
                    };
                    let _ = writeln!(
                        s,
                        "    {verb} {} on {} for it",
                        if victims.is_empty() {
                            "nothing".to_string()
                        } else {
                            victims.join(", ")
                        },
                        p.node.as_deref().unwrap_or_default()
                    );
                }
                Some(p) if !p.message.is_empty() => {
                    let _ = writeln!(s, "    preemption would not help: {}", p.message);
                }
                _ => {}
            }
            if let Some(f) = a.fixes[i].as_ref().filter(|f| !f.is_empty()) {
                s.push_str(&indent(&super::fix::render(f), "  "));
                let _ = writeln!(s, "    (a change to a replica is made in the workload's pod template)");
            }
        }
        if let Some(x) = &w.max {
            let method = match x.method {
                crate::engine::fit::MaxMethod::Linear => "linear search, every replica bound at its first attempt",
                crate::engine::fit::MaxMethod::LinearConfirmed => {
                    "linear search, confirmed by placing that many at once"
                }
                crate::engine::fit::MaxMethod::LinearThenBinary => {
                    "linear search, then a binary search over placements below it"
                }
            };
            let _ = writeln!(s, "  max replicas: {} ({method}; {} placement(s))", x.max, x.placements);
            if x.limited {
                let _ = writeln!(s, "    the search stopped at its limit (--max-limit)");
            } else if !x.next.is_empty() {
                let _ = writeln!(s, "    one more: {}", x.next.lines().next().unwrap_or_default());
            }
        }
        for n in &w.notes {
            let _ = writeln!(s, "  note: {n}");
        }
    }
    if !r.evicted.is_empty() {
        let v: Vec<String> = r.evicted.iter().map(ToString::to_string).collect();
        let _ = writeln!(s, "\nEvicted by preemption (in memory): {}", v.join(", "));
    }
    for n in &r.notes {
        let _ = writeln!(s, "note: {n}");
    }
    if !r.skipped.is_empty() {
        let _ = writeln!(s, "note: not read by the scheduler, skipped: {}", r.skipped.join(", "));
    }
    let total: usize = r.workloads.iter().map(|w| w.replicas).sum();
    let scheduled: usize = r.workloads.iter().map(WorkloadFit::scheduled).sum();
    let _ = writeln!(
        s,
        "\nSummary: {} workload(s), {scheduled} of {total} replica(s) scheduled{}",
        r.workloads.len(),
        if scheduled == total { "" } else { "; exit status 3" }
    );
    s
}
