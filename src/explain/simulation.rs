//! Renders a queue simulation (`kschedtui simulate`): the timeline of attempts, waits,
//! preemptions and bindings, each pending pod's result, and the nodes at the end; as text or
//! as JSON (`kind: Simulation`, each attempt carrying its explain-json-v1 object).

use std::fmt::Write;

use serde_json::{Map, Value, json};

use super::json::Each;
use crate::engine::framework::node_info::NodeInfo;
use crate::engine::framework::trace::BindingOutcome;
use crate::engine::simulate::{AttemptOutcome, EventKind, FinalState, SimReport};
use crate::model::ObjectKey;

fn secs(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{}.{:03}s", ms / 1000, ms % 1000)
            .trim_end_matches('0')
            .to_string()
    }
}

fn key(k: &ObjectKey) -> Value {
    json!({"namespace": k.namespace, "name": k.name})
}

fn outcome_fields(o: &AttemptOutcome, m: &mut Map<String, Value>) {
    let (name, node, message) = match o {
        AttemptOutcome::Bound(n) => ("Bound", Some(n), None),
        AttemptOutcome::Waiting(n) => ("Waiting", Some(n), None),
        AttemptOutcome::Unschedulable(msg) => ("Unschedulable", None, Some(msg)),
        AttemptOutcome::Preempting { node, victims, message } => {
            m.insert("victims".into(), Value::Array(victims.iter().map(key).collect()));
            ("Preempting", Some(node), Some(message))
        }
        AttemptOutcome::Rejected { node, point, message } => {
            m.insert("point".into(), json!(point));
            ("Rejected", Some(node), Some(message))
        }
        AttemptOutcome::Error(msg) => ("Error", None, Some(msg)),
        AttemptOutcome::Held { plugin, message } => {
            m.insert("plugin".into(), json!(plugin));
            (held_name(plugin), None, Some(message))
        }
        AttemptOutcome::NoProfile(s) => {
            m.insert("schedulerName".into(), json!(s));
            ("NoProfile", None, None)
        }
    };
    m.insert("outcome".into(), json!(name));
    if let Some(n) = node {
        m.insert("node".into(), json!(n));
    }
    if let Some(msg) = message {
        m.insert("message".into(), json!(msg));
    }
}

fn node_json(n: &NodeInfo) -> Value {
    let a = n.allocatable();
    let r = &n.requested;
    let mut scalar_req = Map::new();
    let mut scalar_alloc = Map::new();
    for (k, v) in &a.scalar {
        scalar_alloc.insert(k.clone(), json!(v));
        scalar_req.insert(k.clone(), json!(r.scalar.get(k).copied().unwrap_or(0)));
    }
    json!({
        "node": n.name(),
        "pods": n.pods.len(),
        "requested": {"cpuMilli": r.milli_cpu, "memoryBytes": r.memory, "scalar": scalar_req},
        "allocatable": {"cpuMilli": a.milli_cpu, "memoryBytes": a.memory, "pods": a.allowed_pod_number, "scalar": scalar_alloc},
    })
}

/// The report as JSON (`kind: Simulation`), made as it is serialized: each event, pod and node
/// when it is written, each attempt's explanation an [`super::json::Document`] (its per-node
/// lists a node at a time), so a long run's report, hundreds of megabytes of text, is never
/// held whole.
pub(crate) struct Report<'a>(pub &'a SimReport);

impl serde::Serialize for Report<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let r = self.0;
        let mut m = s.serialize_map(Some(10))?;
        m.serialize_entry("apiVersion", "kschedtui/v1")?;
        m.serialize_entry("kind", "Simulation")?;
        m.serialize_entry("schedulerVersion", &r.snapshot.features.describe())?;
        m.serialize_entry("passes", &r.passes)?;
        m.serialize_entry("converged", &r.converged)?;
        m.serialize_entry("endMs", &r.end_ms)?;
        m.serialize_entry("events", &Each(&r.events, EventJson))?;
        m.serialize_entry(
            "pods",
            &Each(&r.pods, |p: &(ObjectKey, FinalState)| pod_json(&p.0, &p.1)),
        )?;
        m.serialize_entry("evicted", &Each(&r.evicted, key))?;
        m.serialize_entry("nodes", &Each(&r.snapshot.nodes, node_json))?;
        m.end()
    }
}

/// One event of the timeline: its fields, then an attempt's explanation.
struct EventJson<'a>(&'a crate::engine::simulate::SimEvent);

impl serde::Serialize for EventJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let e = self.0;
        let mut explanation_of = None;
        let mut m = Map::new();
        m.insert("pass".into(), json!(e.pass));
        m.insert("atMs".into(), json!(e.at_ms));
        m.insert("pod".into(), key(&e.pod));
        match &e.kind {
            EventKind::Attempt {
                profile,
                outcome,
                explanation,
            } => {
                m.insert("event".into(), json!("Attempt"));
                m.insert("profile".into(), json!(profile));
                outcome_fields(outcome, &mut m);
                explanation_of = Some(explanation);
            }
            EventKind::WaitEnded { trace } => {
                m.insert("event".into(), json!("WaitEnded"));
                m.insert("outcome".into(), json!(trace.outcome.as_str()));
                m.insert("node".into(), json!(trace.node));
                if let Some(msg) = &trace.message {
                    m.insert("message".into(), json!(msg));
                }
                m.insert("bindingCycle".into(), super::json::binding_cycle(trace));
            }
            EventKind::Evicted { node, by } => {
                m.insert("event".into(), json!("Evicted"));
                m.insert("node".into(), json!(node));
                m.insert("by".into(), key(by));
            }
            EventKind::NominationCleared { node } => {
                m.insert("event".into(), json!("NominationCleared"));
                m.insert("node".into(), json!(node));
            }
            EventKind::NominatedForExpectation { node } => {
                m.insert("event".into(), json!("NominatedForExpectation"));
                m.insert("node".into(), json!(node));
            }
        }
        let mut out = s.serialize_map(Some(m.len() + usize::from(explanation_of.is_some())))?;
        for (k, v) in &m {
            out.serialize_entry(k, v)?;
        }
        if let Some(ex) = explanation_of {
            out.serialize_entry("explanation", &super::json::Document::new(ex))?;
        }
        out.end()
    }
}

/// A pending pod's result.
fn pod_json(k: &ObjectKey, s: &FinalState) -> Value {
    let mut m = Map::new();
    m.insert("pod".into(), key(k));
    match s {
        FinalState::Bound { node, at_ms } => {
            m.insert("result".into(), json!("Bound"));
            m.insert("node".into(), json!(node));
            m.insert("atMs".into(), json!(at_ms));
        }
        FinalState::Waiting(n) => {
            m.insert("result".into(), json!("Waiting"));
            m.insert("node".into(), json!(n));
        }
        FinalState::Pending { message, nominated } => {
            m.insert("result".into(), json!("Pending"));
            m.insert("message".into(), json!(message));
            m.insert("nominatedNode".into(), json!(nominated));
        }
        FinalState::Held { plugin, message } => {
            m.insert("result".into(), json!(held_name(plugin)));
            m.insert("plugin".into(), json!(plugin));
            m.insert("message".into(), json!(message));
        }
        FinalState::NoProfile(s) => {
            m.insert("result".into(), json!("NoProfile"));
            m.insert("schedulerName".into(), json!(s));
        }
        FinalState::Deleted => {
            m.insert("result".into(), json!("Deleted"));
        }
    }
    Value::Object(m)
}

fn cores(milli: i64) -> String {
    if milli % 1000 == 0 {
        format!("{}", milli / 1000)
    } else {
        format!("{}m", milli)
    }
}

fn gib(bytes: i64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let g = bytes as f64 / f64::from(1u32 << 30);
    format!("{g:.1}Gi")
}

/// The report as text.
pub(crate) fn render(r: &SimReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Simulated {} pending pod(s) on {} node(s), scheduler {}: {} pass(es){}, simulated time {}",
        r.pods.len(),
        r.snapshot.nodes.len(),
        r.snapshot.features.describe(),
        r.passes,
        if r.converged {
            ""
        } else {
            " (stopped before the queue settled)"
        },
        secs(r.end_ms)
    );
    if r.pods.is_empty() {
        return s;
    }
    let _ = writeln!(s, "\nTimeline:");
    for e in &r.events {
        let head = format!("  [pass {}, t={}] {}", e.pass, secs(e.at_ms), e.pod);
        match &e.kind {
            EventKind::Attempt {
                profile,
                outcome,
                explanation,
            } => {
                let what = match outcome {
                    AttemptOutcome::Bound(n) => format!("bound to {n}"),
                    AttemptOutcome::Waiting(n) => {
                        let gang = explanation
                            .gang
                            .as_ref()
                            .map(|g| {
                                format!(
                                    " (gang {}: {} of minMember {} assigned with this pod; times out after {})",
                                    g.group,
                                    g.assigned + 1,
                                    g.min_member,
                                    secs(g.timeout_ms)
                                )
                            })
                            .unwrap_or_default();
                        format!("assumed on {n}, waiting at Permit{gang}")
                    }
                    AttemptOutcome::Unschedulable(m) => format!("unschedulable: {m}"),
                    AttemptOutcome::Preempting { node, victims, message } => {
                        let v: Vec<String> = victims.iter().map(ToString::to_string).collect();
                        format!("preempts on {node} (victims: {}); nominated: {message}", v.join(", "))
                    }
                    AttemptOutcome::Rejected { node, point, message } => {
                        format!("{point} rejected it on {node}: {message}")
                    }
                    AttemptOutcome::Error(m) => format!("error: {m}"),
                    AttemptOutcome::Held { plugin, message } => held_text(plugin, message),
                    AttemptOutcome::NoProfile(n) => format!("no profile serves schedulerName '{n}'"),
                };
                let prof = if profile.is_empty() {
                    String::new()
                } else {
                    format!(" ({profile})")
                };
                let _ = writeln!(s, "{head}{prof}: {what}");
            }
            EventKind::WaitEnded { trace } => {
                let what = match trace.outcome {
                    BindingOutcome::Bound => format!("wait ended with Allow: bound to {}", trace.node),
                    _ => format!(
                        "wait on {} ended: {}; forgotten, back to the queue",
                        trace.node,
                        trace.message.clone().unwrap_or_default()
                    ),
                };
                let _ = writeln!(s, "{head}: {what}");
            }
            EventKind::Evicted { node, by } => {
                let _ = writeln!(s, "{head}: deleted from {node} (preemption victim of {by})");
            }
            EventKind::NominationCleared { node } => {
                let _ = writeln!(s, "{head}: nominated node {node} cleared");
            }
            EventKind::NominatedForExpectation { node } => {
                let _ = writeln!(
                    s,
                    "{head}: status.nominatedNodeName set to {node} by the binding cycle (NominatedNodeNameForExpectation)"
                );
            }
        }
    }
    let _ = writeln!(s, "\nResult:");
    let w = r
        .pods
        .iter()
        .map(|(k, _)| k.to_string().len())
        .max()
        .unwrap_or(3)
        .max(3);
    for (k, st) in &r.pods {
        let line = match st {
            FinalState::Bound { node, at_ms } => format!("Bound      {node} (t={})", secs(*at_ms)),
            FinalState::Waiting(n) => format!("Waiting    at Permit on {n}"),
            FinalState::Pending { message, nominated } => {
                let nom = nominated
                    .as_ref()
                    .map(|n| format!(" [nominated {n}]"))
                    .unwrap_or_default();
                format!("Pending    {message}{nom}")
            }
            FinalState::Held { plugin, message } => format!("Held       {}", held_text(plugin, message)),
            FinalState::NoProfile(n) => format!("Pending    no profile serves schedulerName '{n}'"),
            FinalState::Deleted => "Deleted".into(),
        };
        let _ = writeln!(s, "  {:<w$}  {line}", k.to_string());
    }
    if !r.evicted.is_empty() {
        let v: Vec<String> = r.evicted.iter().map(ToString::to_string).collect();
        let _ = writeln!(s, "\nDeleted by preemption: {}", v.join(", "));
    }
    let _ = writeln!(s, "\nNodes at the end:");
    let nw = r
        .snapshot
        .nodes
        .iter()
        .map(|n| n.name().len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        s,
        "  {:<nw$}  {:>5}  {:>15}  {:>17}  OTHER",
        "NODE", "PODS", "CPU req/alloc", "MEMORY req/alloc"
    );
    for n in &r.snapshot.nodes {
        let a = n.allocatable();
        let other: Vec<String> = a
            .scalar
            .iter()
            .map(|(k, v)| format!("{k} {}/{v}", n.requested.scalar.get(k).copied().unwrap_or(0)))
            .collect();
        let _ = writeln!(
            s,
            "  {:<nw$}  {:>5}  {:>15}  {:>17}  {}",
            n.name(),
            n.pods.len(),
            format!("{}/{}", cores(n.requested.milli_cpu), cores(a.milli_cpu)),
            format!("{}/{}", gib(n.requested.memory), gib(a.memory)),
            other.join(", ")
        );
    }
    s
}

/// "Gated" for scheduling gates (the name the JSON always had), "HeldBeforeQueue" for the
/// other PreEnqueue plugins.
fn held_name(plugin: &str) -> &'static str {
    if plugin == "SchedulingGates" {
        "Gated"
    } else {
        "HeldBeforeQueue"
    }
}

fn held_text(plugin: &str, message: &str) -> String {
    if plugin == "SchedulingGates" {
        "held back by scheduling gates".into()
    } else {
        format!("held before the queue by {plugin}: {message}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::simulate::{SimOptions, simulate};
    use crate::engine::{self, Release};

    #[test]
    fn the_written_report_is_its_value_with_each_attempts_explanation_last() {
        // The gang fixture: attempts that bind, wait at Permit and time out, and preemption.
        for fixture in ["gang.yaml", "gang-preemption.yaml", "queue.yaml"] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures")
                .join(fixture);
            let cluster = crate::source::file::load_path(&path).unwrap();
            let profiles = engine::build_profiles(None, Release::NEWEST).unwrap();
            let report = simulate(cluster, &profiles, Release::NEWEST, SimOptions::default());
            let written = serde_json::to_string_pretty(&Report(&report)).unwrap();
            let value: Value = serde_json::from_str(&written).unwrap();
            // Writing the tree gives the same bytes, in JSON and in YAML.
            assert_eq!(serde_json::to_string_pretty(&value).unwrap(), written, "{fixture}");
            assert_eq!(
                serde_yaml::to_string(&Report(&report)).unwrap(),
                serde_yaml::to_string(&value).unwrap(),
                "{fixture}"
            );
            let top: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(
                top,
                [
                    "apiVersion",
                    "kind",
                    "schedulerVersion",
                    "passes",
                    "converged",
                    "endMs",
                    "events",
                    "pods",
                    "evicted",
                    "nodes"
                ]
            );
            assert_eq!(value["events"].as_array().unwrap().len(), report.events.len());
            assert_eq!(value["nodes"].as_array().unwrap().len(), report.snapshot.nodes.len());
            let mut attempts = 0;
            for (e, v) in report.events.iter().zip(value["events"].as_array().unwrap()) {
                if let EventKind::Attempt { explanation, .. } = &e.kind {
                    attempts += 1;
                    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
                    assert_eq!(keys.last().map(|k| k.as_str()), Some("explanation"));
                    assert_eq!(v["explanation"], super::super::json::to_value(explanation), "{fixture}");
                }
            }
            assert!(attempts > 1, "{fixture}");
        }
    }
}
