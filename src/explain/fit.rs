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
use crate::model::controllers::{ClaimBinding, WorkloadKind};

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
                (Some(h), Some(ex)) if !ex.schedulable() => {
                    let owner = report.snapshot.cluster.pod(&ex.pod).and_then(|p| controller(p));
                    Some(
                        h.of(ex, None)
                            .into_iter()
                            .map(|v| for_workload(v, w, &ex.pod, owner.as_ref()))
                            .collect(),
                    )
                }
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

/// A pod's controller as kubectl names it (`replicaset`, its name).
fn controller(p: &crate::model::Pod) -> Option<(String, String)> {
    let refs = p.obj.metadata.owner_references.as_ref()?;
    let r = refs.iter().find(|r| r.controller == Some(true))?;
    Some((r.kind.to_lowercase(), r.name.clone()))
}

/// The workload's pod template for kubectl: its resource and the JSON pointer of the
/// template's pod spec in it.
fn template_of(w: &WorkloadFit) -> (String, &'static str) {
    let resource = w.kind.name().to_lowercase();
    let spec = match w.kind {
        WorkloadKind::Pod => "/spec",
        WorkloadKind::CronJob => "/spec/jobTemplate/spec/template/spec",
        _ => "/spec/template/spec",
    };
    (resource, spec)
}

/// A fix hint of a replica made for the workload: the replica and the object its controller
/// would make (a Deployment's ReplicaSet, a CronJob's Job) do not exist, so a command that
/// changes the pod or that owner changes the workload's pod template instead (the JSON
/// pointers moved there), and the note says to make the change in the manifest. Commands on
/// nodes and other pods stay as they are.
fn for_workload(mut v: Verified, w: &WorkloadFit, replica: &ObjectKey, owner: Option<&(String, String)>) -> Verified {
    let (resource, spec) = template_of(w);
    let ns = &w.namespace;
    let targets = |res: &str, name: &str| {
        (res == "pod" && name == replica.name.as_str()) || owner.is_some_and(|(k, n)| k == res && n == name)
    };
    let Some(command) = v.fix.command.clone() else {
        v.fix.note = v.fix.note.map(|n| manifest_note(&n, w, spec, false));
        return v;
    };
    let words: Vec<&str> = command.split_whitespace().collect();
    let retargeted = match words.as_slice() {
        ["kubectl", "patch", res, name, "-n", _, "--type=json", "-p", ..] if targets(res, name) => {
            let patch = command
                .find(" -p '")
                .and_then(|i| command.get(i + 5..command.len().saturating_sub(1)))
                .and_then(|text| serde_json::from_str::<Value>(&text.replace("'\\''", "'")).ok());
            patch.map(|patch| {
                let from = if *res == "pod" { "/spec" } else { "/spec/template/spec" };
                let template = w.template.spec.as_ref();
                let tolerations = template
                    .and_then(|s| s.tolerations.as_ref())
                    .is_some_and(|t| !t.is_empty());
                let mut ops = Vec::new();
                let mut appended = Vec::new();
                for mut op in patch.as_array().cloned().unwrap_or_default() {
                    if let Some(path) = op.get("path").and_then(Value::as_str).map(str::to_string)
                        && let Some(rest) = path.strip_prefix(from)
                    {
                        // the replica has the tolerations admission added; the template may
                        // have none to append to
                        if rest == "/tolerations/-" && !tolerations {
                            appended.push(op["value"].clone());
                            continue;
                        }
                        op["path"] = json!(format!("{spec}{rest}"));
                    }
                    ops.push(op);
                }
                if !appended.is_empty() {
                    ops.push(json!({"op": "add", "path": format!("{spec}/tolerations"), "value": appended}));
                }
                let patch = Value::Array(ops);
                let text = serde_json::to_string(&patch).unwrap_or_default().replace('\'', "'\\''");
                format!("kubectl patch {resource} {} -n {ns} --type=json -p '{text}'", w.name)
            })
        }
        ["kubectl", "set", "resources", res, name, rest @ ..] if targets(res, name) && w.kind != WorkloadKind::Pod => {
            let rest: Vec<&str> = rest.to_vec();
            Some(format!(
                "kubectl set resources {resource} {} {}",
                w.name,
                rest.join(" ")
            ))
        }
        ["kubectl", "set", "resources", res, name, ..] if targets(res, name) => None,
        _ => return v,
    };
    v.fix.note = Some(manifest_note(
        v.fix.note.as_deref().unwrap_or_default(),
        w,
        spec,
        retargeted.is_some(),
    ));
    v.fix.command = retargeted;
    v
}

/// The note of a change to the pod template: where to make it.
fn manifest_note(note: &str, w: &WorkloadFit, spec: &str, command: bool) -> String {
    let pod_field = note.contains("on an existing pod") || note.contains("can only be added to an existing pod");
    if !pod_field && !note.is_empty() {
        return note.to_string();
    }
    let path = spec.trim_start_matches('/').replace('/', ".");
    let what = if w.kind == WorkloadKind::Pod {
        "spec"
    } else {
        "pod template"
    };
    let mut text = format!(
        "a change to {} {}/{}'s {what} ({path}): make it in the manifest before applying it",
        w.kind, w.namespace, w.name
    );
    if command {
        text.push_str(&format!(
            " (the command makes it on a {} already in the cluster)",
            w.kind
        ));
    }
    text
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

/// Where a claim was bound or provisioned at the end: for a WaitForFirstConsumer claim the node
/// VolumeBinding's PreBind selected (its pod's node; the provisioner makes the volume there).
fn claim_node(report: &FitReport, claim: &ObjectKey, b: &ClaimBinding) -> Option<String> {
    if !matches!(b, ClaimBinding::WaitForFirstConsumer(_)) {
        return None;
    }
    report
        .snapshot
        .cluster
        .pvcs
        .get(claim)?
        .metadata
        .annotations
        .as_ref()?
        .get(crate::model::write::ANN_SELECTED_NODE)
        .cloned()
}

/// One workload as JSON.
fn workload_json(report: &FitReport, w: &WorkloadFit, reason: Option<&String>, fixes: Option<&Vec<Verified>>) -> Value {
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
                    json!({"claim": pod(k), "binding": binding, "detail": detail, "node": claim_node(report, k, b)})
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
            .map(|((w, reason), fixes)| workload_json(r, w, reason.as_ref(), fixes.as_ref()))
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
        let what = if w.kind == WorkloadKind::DaemonSet {
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
            let _ = write!(s, "  claim {}: {}", k.name, binding_text(b));
            if let Some(n) = claim_node(r, k, b) {
                let _ = write!(s, "; its pod landed on {n}: provisioned there");
            }
            s.push('\n');
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
