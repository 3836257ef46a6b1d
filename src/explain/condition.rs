//! Beside kschedtui's verdict, what the cluster's own scheduler wrote about the pod: its
//! PodScheduled condition and its FailedScheduling events, and a note when they disagree with
//! kschedtui (a kschedtui bug to report, or a scheduler running another profile or release).
//!
//! What upstream writes (v1.30.6 `handleSchedulingFailure` in schedule_one.go): on every failed
//! attempt, a Warning event with reason FailedScheduling whose message is the status message
//! cut to 1024 bytes (`truncateMessage`: the first 1020 bytes and " ..."), then the PodScheduled
//! condition (status False, reason Unschedulable for a rejection, SchedulerError for an error)
//! with the whole message. So the newest event and the condition carry the same text. A
//! SchedulerError is not compared with kschedtui's verdict: after the scheduler chose a node, it
//! is a binding-cycle plugin's error ([`chosen_node_failure`]: a Bind or PreBind write the API
//! server refused, a Reserve or Permit failure), said as such. A pod
//! being deleted gets a FailedScheduling event "skip schedule deleting pod: NS/NAME" and no
//! condition; a bound pod gets a Scheduled event, which is not read (its FailedScheduling
//! events are history, and kschedtui does not explain bound pods).

use std::borrow::Cow;

use k8s_openapi::api::core::v1::PodCondition;
use k8s_openapi::jiff::Timestamp;
use serde_json::{Map, Value, json};

use crate::engine::framework::trace::{BindingOutcome, Explanation};
use crate::model::{Cluster, Pod, SchedulingEvent};

/// The longest event message the API server accepts (`NoteLengthLimit`, in bytes).
pub(crate) const NOTE_LENGTH_LIMIT: usize = 1024;

/// Events listed in the text (the JSON lists them all).
const TEXT_EVENTS: usize = 5;

/// A message as upstream's `truncateMessage` puts it in an event: unchanged up to 1024 bytes,
/// else the first 1020 bytes and " ...". The cut is by bytes, as Go slices strings; the bytes
/// of a character it splits come back from the API server as one U+FFFD each (Go's JSON
/// encoder replaces every invalid byte so).
pub(crate) fn event_message(message: &str) -> Cow<'_, str> {
    if message.len() <= NOTE_LENGTH_LIMIT {
        return Cow::Borrowed(message);
    }
    let cut = NOTE_LENGTH_LIMIT - " ...".len();
    let mut boundary = cut;
    while !message.is_char_boundary(boundary) {
        boundary -= 1;
    }
    let mut s = message[..boundary].to_string();
    s.extend(std::iter::repeat_n('\u{FFFD}', cut - boundary));
    s.push_str(" ...");
    Cow::Owned(s)
}

/// A SchedulerError recorded after the scheduler chose a node: one of the plugins that run
/// on the chosen node (Reserve, Permit, PreBindPreFlight, PreBind, Bind) failed. Upstream
/// records the error of such a plugin as `running <Point> plugin "<Name>": <error>` (for
/// PreBindPreFlight `running PreBindPreFlight "<Name>": <error>`), where the error of PreBind and
/// Bind is the API server's refusal of the write (an admission webhook, a conflict, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChosenNodeFailure<'a> {
    /// The extension point ("Bind", "PreBind", ...).
    pub point: &'a str,
    /// The plugin.
    pub plugin: &'a str,
    /// The error, as the plugin returned it.
    pub error: &'a str,
    /// The node the error names (`node "NAME"`), if it names one.
    pub node: Option<&'a str>,
}

impl ChosenNodeFailure<'_> {
    /// True when the failure is a write the API server refused (PreBind, Bind).
    pub(crate) fn is_refused_write(&self) -> bool {
        matches!(self.point, "PreBind" | "Bind")
    }
}

/// Reads a SchedulerError message of the binding cycle (None for any other message).
pub(crate) fn chosen_node_failure(message: &str) -> Option<ChosenNodeFailure<'_>> {
    let rest = message.strip_prefix("running ")?;
    let (point, rest) = rest.split_once(' ')?;
    if !matches!(point, "Reserve" | "Permit" | "PreBindPreFlight" | "PreBind" | "Bind") {
        return None;
    }
    let rest = rest.strip_prefix("plugin ").unwrap_or(rest);
    let rest = rest.strip_prefix('"')?;
    let (plugin, error) = rest.split_once("\": ")?;
    let node = error.find("node \"").and_then(|i| {
        let after = &error[i + "node \"".len()..];
        after.split_once('"').map(|(n, _)| n).filter(|n| !n.is_empty())
    });
    Some(ChosenNodeFailure {
        point,
        plugin,
        error,
        node,
    })
}

/// The note for a SchedulerError condition: what the scheduler did, the refusal, and whether
/// kschedtui picks the node the refusal names.
fn scheduler_error_note(message: &str, ex: &Explanation) -> String {
    let Some(f) = chosen_node_failure(message) else {
        return format!(
            "the cluster's scheduler failed with an error (SchedulerError), not a verdict on the nodes: not compared; it said: {message}"
        );
    };
    let what = if f.is_refused_write() {
        format!(
            "the cluster's scheduler chose a node for the pod and the API server refused the write of its {} plugin {}: {}",
            f.point, f.plugin, f.error
        )
    } else {
        format!(
            "the cluster's scheduler chose a node for the pod, then its {} plugin {} failed: {}",
            f.point, f.plugin, f.error
        )
    };
    let ours = match ex.selected.as_slice() {
        [] => "kschedtui finds no node for the pod now".to_string(),
        [one] => format!("kschedtui picks node {one}"),
        many => format!("kschedtui picks one of nodes {}", many.join(", ")),
    };
    let same = match f.node {
        Some(n) if ex.selected.iter().any(|s| s == n) => {
            format!("; the refusal names node {n}, which kschedtui picks too")
        }
        Some(n) if !ex.selected.is_empty() => format!("; the refusal names node {n}, not the one kschedtui picks"),
        Some(n) => format!("; the refusal names node {n}"),
        None => String::new(),
    };
    format!("{what} (not a verdict on the nodes: not compared; {ours}{same})")
}

/// The same, short, for the TUI's one line.
#[cfg(any(feature = "tui", test))]
fn scheduler_error_brief(message: &str, ex: &Explanation) -> String {
    let Some(f) = chosen_node_failure(message) else {
        return format!("SchedulerError (an error, not compared): {message}");
    };
    let what = if f.is_refused_write() {
        format!(
            "the scheduler chose a node, the API server refused its {} ({}): {}",
            f.point, f.plugin, f.error
        )
    } else {
        format!(
            "the scheduler chose a node, then {} ({}) failed: {}",
            f.point, f.plugin, f.error
        )
    };
    let ours = match (f.node, ex.selected.as_slice()) {
        (_, []) => "; kschedtui finds no node now".to_string(),
        (Some(n), sel) if sel.iter().any(|s| s == n) => format!("; kschedtui picks {n} too"),
        (_, [one]) => format!("; kschedtui picks {one}"),
        (_, many) => format!("; kschedtui picks one of {}", many.join(", ")),
    };
    format!("{what}{ours}")
}

/// What kschedtui says the cluster's scheduler would record for the pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Expected<'a> {
    /// This failure message (condition; the event carries it truncated).
    Message(&'a str),
    /// A node: the scheduler would bind the pod and record no failure.
    Binds,
    /// Nothing kschedtui can compare, and why.
    Nothing(&'static str),
}

pub(super) fn expected(ex: &Explanation) -> Expected<'_> {
    if ex.waiting_for_scheduler.is_some() {
        return Expected::Nothing("kschedtui has no profile for the pod's schedulerName");
    }
    if ex
        .pre_enqueue
        .iter()
        .any(|s| s.code != crate::engine::framework::status::Code::Success)
    {
        return Expected::Nothing("the pod is held at PreEnqueue, which the scheduler does not record");
    }
    if let Some(b) = &ex.binding_cycle {
        return match b.outcome {
            BindingOutcome::Bound => Expected::Binds,
            BindingOutcome::Waiting => Expected::Nothing("the pod would wait at Permit, which records nothing yet"),
            BindingOutcome::Rejected | BindingOutcome::Error => {
                Expected::Message(b.message.as_deref().unwrap_or_default())
            }
        };
    }
    match &ex.message {
        Some(m) => Expected::Message(m),
        None => Expected::Binds,
    }
}

/// The pod's PodScheduled condition, the FailedScheduling events about it, and how they
/// compare with kschedtui's verdict.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ClusterVerdict<'a> {
    /// The PodScheduled condition, if the pod has one.
    pub condition: Option<&'a PodCondition>,
    /// FailedScheduling events about the pod, newest first.
    pub events: Vec<&'a SchedulingEvent>,
    /// Why events could not be read, if so.
    pub events_unreadable: Option<&'a str>,
    /// Whether the condition's message is kschedtui's (None: not compared).
    pub condition_agrees: Option<bool>,
    /// Whether the newest event's message is kschedtui's (None: not compared).
    pub event_agrees: Option<bool>,
    /// Remarks, one line each (disagreement, staleness, what was not compared).
    pub notes: Vec<String>,
    /// kschedtui finds a node for the pod (so a recorded failure disagrees whatever its text).
    pub kschedtui_finds_a_node: bool,
}

impl ClusterVerdict<'_> {
    /// True when every source compared agrees; None when nothing was compared.
    pub(crate) fn agrees(&self) -> Option<bool> {
        match (self.condition_agrees, self.event_agrees) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(true) && b.unwrap_or(true)),
        }
    }
}

fn time(t: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>) -> Option<Timestamp> {
    t.map(|t| t.0)
}

/// The newest change to the cluster kschedtui can date, other than `pod`'s own: a node or
/// pod created, or a pod bound (its PodScheduled=True transition). On equal times the first
/// found wins (nodes by name, then pods by key), so the text is stable.
fn last_dated_change(cluster: &Cluster, pod: &Pod) -> Option<(Timestamp, String)> {
    let mut best: Option<(Timestamp, String)> = None;
    let mut consider = |t: Option<Timestamp>, what: &dyn Fn() -> String| {
        if let Some(t) = t
            && best.as_ref().is_none_or(|(b, _)| t > *b)
        {
            best = Some((t, what()));
        }
    };
    for n in &cluster.nodes {
        consider(time(n.obj.metadata.creation_timestamp.as_ref()), &|| {
            format!("node {} created", n.name)
        });
    }
    for p in cluster.pods.iter().filter(|p| p.key != pod.key) {
        consider(time(p.obj.metadata.creation_timestamp.as_ref()), &|| {
            format!("pod {} created", p.key)
        });
        let bound = p
            .obj
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .and_then(|c| c.iter().find(|c| c.type_ == "PodScheduled" && c.status == "True"))
            .and_then(|c| time(c.last_transition_time.as_ref()));
        consider(bound, &|| format!("pod {} bound", p.key));
    }
    best
}

/// Names the disagreeing sources.
fn which(condition: bool, event: bool) -> &'static str {
    match (condition, event) {
        (true, true) => "the condition and the newest FailedScheduling event",
        (true, false) => "the condition",
        _ => "the newest FailedScheduling event",
    }
}

/// Compares what the cluster's scheduler wrote about the pod with kschedtui's verdict. None
/// when there is nothing to show: the pod has no PodScheduled condition, no FailedScheduling
/// event, and events were readable.
pub(crate) fn compare<'a>(cluster: &'a Cluster, ex: &Explanation) -> Option<ClusterVerdict<'a>> {
    let pod = cluster.pod(&ex.pod)?;
    let condition = pod
        .obj
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|c| c.iter().find(|c| c.type_ == "PodScheduled"));
    let events = cluster.scheduling_events_of(pod);
    let events_unreadable = cluster.events_unreadable.as_deref();
    if condition.is_none() && events.is_empty() && events_unreadable.is_none() {
        return None;
    }
    let mut v = ClusterVerdict {
        condition,
        events,
        events_unreadable,
        condition_agrees: None,
        event_agrees: None,
        notes: Vec::new(),
        kschedtui_finds_a_node: false,
    };
    if pod.node_name.is_some() {
        // Bound: the events are history and kschedtui has no verdict to compare.
        return Some(v);
    }
    let want = expected(ex);
    v.kschedtui_finds_a_node = want == Expected::Binds;
    // A SchedulerError is an error, not a verdict on the nodes: the condition (and the newest
    // event when it carries the same text) is not compared; a note says what happened.
    let scheduler_error = condition
        .filter(|c| c.status == "False" && c.reason.as_deref() == Some("SchedulerError"))
        .map(|c| c.message.as_deref().unwrap_or_default());
    if let Some(m) = scheduler_error {
        v.notes.push(scheduler_error_note(m, ex));
    }
    // The sources that record a scheduling failure, with their messages.
    let cond_msg = condition
        .filter(|c| c.status == "False" && c.reason.as_deref() == Some("Unschedulable"))
        .map(|c| c.message.as_deref().unwrap_or_default());
    let skip_deleting = format!("skip schedule deleting pod: {}/{}", pod.key.namespace, pod.key.name);
    let newest = v.events.first().copied();
    let event_msg = match newest {
        Some(e) if e.message == skip_deleting => {
            v.notes.push(
                "the newest FailedScheduling event says the scheduler skipped the pod because it is being deleted"
                    .into(),
            );
            None
        }
        Some(e) if scheduler_error.is_some_and(|m| event_message(m) == e.message) => None,
        Some(e) => Some(e.message.as_str()),
        None => None,
    };
    match want {
        Expected::Message(m) => {
            v.condition_agrees = cond_msg.map(|c| c == m);
            v.event_agrees = event_msg.map(|e| e == event_message(m));
        }
        Expected::Binds => {
            v.condition_agrees = cond_msg.map(|_| false);
            v.event_agrees = event_msg.map(|_| false);
        }
        Expected::Nothing(why) => {
            if cond_msg.is_some() || event_msg.is_some() {
                v.notes.push(format!("not compared: {why}"));
            }
        }
    }
    let (cond_differs, event_differs) = (v.condition_agrees == Some(false), v.event_agrees == Some(false));
    if cond_differs || event_differs {
        let who = which(cond_differs, event_differs);
        v.notes.push(if want == Expected::Binds {
            format!(
                "the cluster's scheduler did not schedule the pod ({who}) but kschedtui finds a node: the cluster changed since, or the scheduler runs another profile or release"
            )
        } else {
            format!(
                "the cluster's scheduler wrote a different message ({who}): a kschedtui bug to report, or a scheduler running another profile or release"
            )
        });
    }
    if let Some(e) = newest
        && event_msg.is_some()
    {
        if !e.component.is_empty() && e.component != pod.scheduler_name() {
            v.notes.push(format!(
                "the newest FailedScheduling event was reported by '{}', not by the pod's scheduler '{}'",
                e.component,
                pod.scheduler_name()
            ));
        }
        if let Some(when) = e.when() {
            if let Some(t) = condition.and_then(|c| time(c.last_transition_time.as_ref()))
                && when < t
            {
                v.notes.push(format!(
                    "the newest FailedScheduling event ({when}) is older than the condition's last transition ({t})"
                ));
            }
            if (cond_differs || event_differs)
                && let Some((t, what)) = last_dated_change(cluster, pod)
                && when < t
            {
                v.notes.push(format!(
                    "the newest FailedScheduling event ({when}) is older than the last change kschedtui can date ({what} at {t}): it may describe the cluster before that change"
                ));
            }
        }
    }
    Some(v)
}

/// One event, as a text line's parenthesis: "x3, last 2026-11-29T08:20:00Z, default-scheduler".
fn event_facts(e: &SchedulingEvent) -> String {
    let mut parts = vec![format!("x{}", e.count)];
    if let Some(t) = e.when() {
        parts.push(format!("last {t}"));
    }
    if !e.component.is_empty() {
        parts.push(e.component.clone());
    }
    parts.join(", ")
}

/// The pod's PodScheduled condition and FailedScheduling events as the cluster's scheduler
/// wrote them, one line each, and a note per disagreement with kschedtui (empty when there is
/// nothing to show).
pub(crate) fn cluster_verdict(cluster: &Cluster, ex: &Explanation) -> String {
    let Some(v) = compare(cluster, ex) else {
        return String::new();
    };
    let mut s = String::new();
    let mut cond_message = None;
    if let Some(c) = v.condition {
        let reason = c.reason.clone().unwrap_or_default();
        let message = c.message.clone().unwrap_or_default();
        s += &format!("Cluster: PodScheduled={}", c.status);
        if !reason.is_empty() {
            s += &format!(" ({reason})");
        }
        if !message.is_empty() {
            s += &format!(": {message}");
            cond_message = Some(message);
        }
        s.push('\n');
    }
    for e in v.events.iter().take(TEXT_EVENTS) {
        let same = cond_message.as_deref().is_some_and(|m| event_message(m) == e.message);
        let text = if same {
            "same message as the condition"
        } else {
            e.message.as_str()
        };
        s += &format!("Cluster: FailedScheduling ({}): {text}\n", event_facts(e));
    }
    if v.events.len() > TEXT_EVENTS {
        let n = v.events.len() - TEXT_EVENTS;
        s += &format!(
            "Cluster: and {n} older FailedScheduling event{}\n",
            if n == 1 { "" } else { "s" }
        );
    }
    if let Some(why) = v.events_unreadable {
        s += &format!("Cluster: events: not readable ({why})\n");
    }
    for n in &v.notes {
        s += &format!("Note: {n}\n");
    }
    s
}

/// The same in one line, for the TUI's pod view (beside kschedtui's verdict, where a few lines
/// fit): whether the cluster's scheduler agrees, and what it wrote when it does not. The bool
/// is the agreement (None: nothing compared). None when there is nothing to show.
#[cfg(any(feature = "tui", test))]
pub(crate) fn cluster_brief(cluster: &Cluster, ex: &Explanation) -> Option<(String, Option<bool>)> {
    let v = compare(cluster, ex)?;
    let newest = v.events.first();
    let mut facts: Vec<String> = Vec::new();
    if let Some(c) = v.condition {
        facts.push(match &c.reason {
            Some(r) if !r.is_empty() => format!("PodScheduled={} ({r})", c.status),
            _ => format!("PodScheduled={}", c.status),
        });
    }
    if let Some(e) = newest {
        let older = match v.events.len() - 1 {
            0 => String::new(),
            n => format!(" (+{n} older)"),
        };
        facts.push(format!("FailedScheduling {}{older}", event_facts(e)));
    }
    if let Some(why) = v.events_unreadable {
        facts.push(format!("events not readable ({why})"));
    }
    let agrees = v.agrees();
    if let Some(c) = v
        .condition
        .filter(|c| c.status == "False" && c.reason.as_deref() == Some("SchedulerError"))
    {
        // what the scheduler did comes first; an event that disagrees is said after it
        let differs = if v.event_agrees == Some(false) {
            "; the newest FailedScheduling event differs from kschedtui"
        } else {
            ""
        };
        return Some((
            format!(
                "Cluster: {}{differs}",
                scheduler_error_brief(c.message.as_deref().unwrap_or_default(), ex)
            ),
            agrees,
        ));
    }
    let text = match agrees {
        Some(false) => {
            let (cond, event) = (v.condition_agrees == Some(false), v.event_agrees == Some(false));
            let who = which(cond, event);
            let says = if cond && event { "say" } else { "says" };
            if v.kschedtui_finds_a_node {
                format!("Cluster differs: {who} {says} the pod did not fit, kschedtui finds a node")
            } else {
                let said = match (event, newest, v.condition) {
                    (true, Some(e), _) => e.message.clone(),
                    (_, _, Some(c)) => c.message.clone().unwrap_or_default(),
                    _ => String::new(),
                };
                format!("Cluster differs: {who} {says}: {said}")
            }
        }
        Some(true) => format!("Cluster agrees: {}", facts.join("; ")),
        None => format!("Cluster: {}", facts.join("; ")),
    };
    Some((text, agrees))
}

/// The optional `cluster` key of `explain -o json` (see [`crate::explain::json`]); None when
/// the pod has no PodScheduled condition and no FailedScheduling event, and events were
/// readable.
pub(crate) fn cluster_json(cluster: &Cluster, ex: &Explanation) -> Option<Value> {
    let v = compare(cluster, ex)?;
    let mut o = Map::new();
    if let Some(c) = v.condition {
        let mut m = Map::new();
        m.insert("status".into(), json!(c.status));
        if let Some(r) = &c.reason {
            m.insert("reason".into(), json!(r));
        }
        if let Some(msg) = &c.message {
            m.insert("message".into(), json!(msg));
        }
        if let Some(t) = time(c.last_transition_time.as_ref()) {
            m.insert("lastTransitionTime".into(), json!(t.to_string()));
        }
        if let Some(a) = v.condition_agrees {
            m.insert("agrees".into(), json!(a));
        }
        o.insert("podScheduled".into(), Value::Object(m));
    }
    let events: Vec<Value> = v
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut m = Map::new();
            m.insert("name".into(), json!(e.key.name));
            m.insert("count".into(), json!(e.count));
            if let Some(t) = e.first {
                m.insert("firstTime".into(), json!(t.to_string()));
            }
            if let Some(t) = e.last {
                m.insert("lastTime".into(), json!(t.to_string()));
            }
            m.insert("reportingComponent".into(), json!(e.component));
            m.insert("type".into(), json!(e.type_));
            m.insert("message".into(), json!(e.message));
            if i == 0
                && let Some(a) = v.event_agrees
            {
                m.insert("agrees".into(), json!(a));
            }
            Value::Object(m)
        })
        .collect();
    o.insert("failedSchedulingEvents".into(), Value::Array(events));
    if let Some(why) = v.events_unreadable {
        o.insert("eventsUnreadable".into(), json!(why));
    }
    if let Some(a) = v.agrees() {
        o.insert("agrees".into(), json!(a));
    }
    if !v.notes.is_empty() {
        o.insert("notes".into(), json!(v.notes));
    }
    Some(Value::Object(o))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::engine::{Release, Snapshot, build_profiles, explain};
    use crate::model::ObjectKey;
    use crate::source::file::load_str;

    const NO_PREEMPTION: &str = "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.";

    fn cluster_with(condition: &str, extra: &str) -> Cluster {
        cluster_on("1", condition, extra)
    }

    /// Node n1 with `cpu` allocatable, pod a/p requesting 2 cpu with the condition, and `extra`.
    fn cluster_on(cpu: &str, condition: &str, extra: &str) -> Cluster {
        load_str(
            "t",
            &format!(
                r#"
apiVersion: v1
kind: List
items:
- {{apiVersion: v1, kind: Node, metadata: {{name: n1, creationTimestamp: "2026-01-01T00:00:00Z"}}, status: {{allocatable: {{cpu: "{cpu}", pods: "10"}}}}}}
- apiVersion: v1
  kind: Pod
  metadata: {{name: p, namespace: a, uid: u-p, creationTimestamp: "2026-01-01T01:00:00Z"}}
  spec: {{containers: [{{name: c, image: i, resources: {{requests: {{cpu: "2"}}}}}}]}}
  status: {{conditions: [{condition}]}}
{extra}"#
            ),
        )
        .unwrap()
    }

    fn cluster(condition: &str) -> Cluster {
        cluster_with(condition, "")
    }

    /// A core v1 event about pod a/p, as the old event API recorded it.
    fn core_event(name: &str, message: &str, count: i32, last: &str) -> String {
        format!(
            r#"- apiVersion: v1
  kind: Event
  metadata: {{name: {name}, namespace: a, creationTimestamp: "2026-01-01T01:00:01Z"}}
  involvedObject: {{kind: Pod, namespace: a, name: p, uid: u-p, apiVersion: v1}}
  reason: FailedScheduling
  message: "{message}"
  source: {{component: default-scheduler}}
  firstTimestamp: "2026-01-01T01:00:01Z"
  lastTimestamp: "{last}"
  count: {count}
  type: Warning
"#
        )
    }

    fn verdict(c: Cluster) -> (String, Option<String>, Option<Value>) {
        let v = Release::OLDEST;
        let snap = Snapshot::new(Arc::new(c), v);
        let ex = explain(&snap, &build_profiles(None, v).unwrap(), &ObjectKey::new("a", "p")).unwrap();
        (
            cluster_verdict(&snap.cluster, &ex),
            ex.message.clone(),
            cluster_json(&snap.cluster, &ex),
        )
    }

    fn unschedulable(msg: &str) -> String {
        format!(
            "{{type: PodScheduled, status: \"False\", reason: Unschedulable, message: \"{msg}\", lastTransitionTime: \"2026-01-01T01:00:01Z\"}}"
        )
    }

    #[test]
    fn kschedtuis_message_is_the_one_upstream_writes() {
        let (_, msg, _) = verdict(cluster("{type: Ready, status: \"False\"}"));
        assert_eq!(msg.as_deref(), Some(NO_PREEMPTION));
    }

    #[test]
    fn the_same_message_gets_no_note() {
        let c = cluster(&unschedulable(NO_PREEMPTION));
        let (text, _, json) = verdict(c);
        assert_eq!(
            text,
            format!("Cluster: PodScheduled=False (Unschedulable): {NO_PREEMPTION}\n")
        );
        assert_eq!(
            json.unwrap(),
            json!({
                "podScheduled": {"status": "False", "reason": "Unschedulable", "message": NO_PREEMPTION,
                                 "lastTransitionTime": "2026-01-01T01:00:01Z", "agrees": true},
                "failedSchedulingEvents": [],
                "agrees": true,
            })
        );
    }

    #[test]
    fn a_different_message_is_flagged() {
        let c = cluster(&unschedulable("0/1 nodes are available: 1 Too many pods."));
        assert_eq!(
            verdict(c).0,
            "Cluster: PodScheduled=False (Unschedulable): 0/1 nodes are available: 1 Too many pods.\nNote: the cluster's scheduler wrote a different message (the condition): a kschedtui bug to report, or a scheduler running another profile or release\n"
        );
    }

    #[test]
    fn no_condition_no_event_no_line() {
        let (text, _, json) = verdict(cluster("{type: Ready, status: \"False\"}"));
        assert_eq!(text, "");
        assert_eq!(json, None);
    }

    #[test]
    fn an_agreeing_event_is_listed_without_repeating_the_condition() {
        let c = cluster_with(
            &unschedulable(NO_PREEMPTION),
            &core_event("p.1", NO_PREEMPTION, 4, "2026-01-01T01:05:00Z"),
        );
        let (text, _, json) = verdict(c);
        assert_eq!(
            text,
            format!(
                "Cluster: PodScheduled=False (Unschedulable): {NO_PREEMPTION}\nCluster: FailedScheduling (x4, last 2026-01-01T01:05:00Z, default-scheduler): same message as the condition\n"
            )
        );
        let json = json.unwrap();
        assert_eq!(
            json["failedSchedulingEvents"],
            json!([{"name": "p.1", "count": 4, "firstTime": "2026-01-01T01:00:01Z", "lastTime": "2026-01-01T01:05:00Z",
                    "reportingComponent": "default-scheduler", "type": "Warning", "message": NO_PREEMPTION, "agrees": true}])
        );
        assert_eq!(json["agrees"], json!(true));
        assert_eq!(json.get("notes"), None);
    }

    #[test]
    fn an_event_from_an_older_scheduler_disagrees_and_events_are_newest_first() {
        // The newest event carries an older release's text (no "preemption:" part); the
        // condition agrees with kschedtui.
        let old = "0/1 nodes are available: 1 Insufficient cpu.";
        let mut extra = core_event("p.1", old, 2, "2026-01-01T01:09:00Z");
        extra += &core_event(
            "p.0",
            "0/1 nodes are available: 1 node(s) were unschedulable.",
            1,
            "2026-01-01T01:00:01Z",
        );
        let c = cluster_with(&unschedulable(NO_PREEMPTION), &extra);
        let (text, _, json) = verdict(c);
        assert_eq!(
            text,
            format!(
                "Cluster: PodScheduled=False (Unschedulable): {NO_PREEMPTION}\n\
                 Cluster: FailedScheduling (x2, last 2026-01-01T01:09:00Z, default-scheduler): {old}\n\
                 Cluster: FailedScheduling (x1, last 2026-01-01T01:00:01Z, default-scheduler): 0/1 nodes are available: 1 node(s) were unschedulable.\n\
                 Note: the cluster's scheduler wrote a different message (the newest FailedScheduling event): a kschedtui bug to report, or a scheduler running another profile or release\n"
            )
        );
        let json = json.unwrap();
        assert_eq!(json["podScheduled"]["agrees"], json!(true));
        assert_eq!(json["failedSchedulingEvents"][0]["agrees"], json!(false));
        assert_eq!(json["failedSchedulingEvents"][1].get("agrees"), None);
        assert_eq!(json["agrees"], json!(false));
        assert_eq!(
            json["notes"],
            json!([
                "the cluster's scheduler wrote a different message (the newest FailedScheduling event): a kschedtui bug to report, or a scheduler running another profile or release"
            ])
        );
    }

    #[test]
    fn a_pod_kschedtui_can_place_disagrees_with_both_and_a_stale_event_is_dated() {
        // A second node, created after the event, gives the pod room.
        let extra = core_event(
            "p.1",
            "0/1 nodes are available: 1 Insufficient cpu.",
            1,
            "2026-01-01T01:00:01Z",
        ) + "- {apiVersion: v1, kind: Node, metadata: {name: n2, creationTimestamp: \"2026-01-01T02:00:00Z\"}, status: {allocatable: {cpu: \"4\", pods: \"10\"}}}\n";
        let c = cluster_with(&unschedulable("0/1 nodes are available: 1 Insufficient cpu."), &extra);
        let (text, msg, json) = verdict(c);
        assert_eq!(msg, None);
        assert_eq!(
            text,
            "Cluster: PodScheduled=False (Unschedulable): 0/1 nodes are available: 1 Insufficient cpu.\n\
             Cluster: FailedScheduling (x1, last 2026-01-01T01:00:01Z, default-scheduler): same message as the condition\n\
             Note: the cluster's scheduler did not schedule the pod (the condition and the newest FailedScheduling event) but kschedtui finds a node: the cluster changed since, or the scheduler runs another profile or release\n\
             Note: the newest FailedScheduling event (2026-01-01T01:00:01Z) is older than the last change kschedtui can date (node n2 created at 2026-01-01T02:00:00Z): it may describe the cluster before that change\n"
        );
        assert_eq!(json.unwrap()["agrees"], json!(false));
    }

    #[test]
    fn events_api_events_are_read_and_an_event_older_than_the_transition_is_noted() {
        // events.k8s.io/v1: regarding, note, series, eventTime, reportingController.
        let extra = format!(
            r#"- apiVersion: events.k8s.io/v1
  kind: Event
  metadata: {{name: p.2, namespace: a}}
  regarding: {{kind: Pod, namespace: a, name: p, uid: u-p}}
  reason: FailedScheduling
  note: "{NO_PREEMPTION}"
  action: Scheduling
  eventTime: "2026-01-01T00:30:00.000001Z"
  series: {{count: 7, lastObservedTime: "2026-01-01T00:59:00.500000Z"}}
  reportingController: default-scheduler
  reportingInstance: default-scheduler-cp-1
  type: Warning
"#
        );
        let c = cluster_with(&unschedulable(NO_PREEMPTION), &extra);
        let (text, _, json) = verdict(c);
        assert_eq!(
            text,
            format!(
                "Cluster: PodScheduled=False (Unschedulable): {NO_PREEMPTION}\n\
                 Cluster: FailedScheduling (x7, last 2026-01-01T00:59:00.5Z, default-scheduler): same message as the condition\n\
                 Note: the newest FailedScheduling event (2026-01-01T00:59:00.5Z) is older than the condition's last transition (2026-01-01T01:00:01Z)\n"
            )
        );
        let json = json.unwrap();
        assert_eq!(
            json["failedSchedulingEvents"][0]["firstTime"],
            "2026-01-01T00:30:00.000001Z"
        );
        assert_eq!(json["agrees"], json!(true));
    }

    #[test]
    fn events_of_an_earlier_pod_of_the_same_name_and_other_reasons_are_left_out() {
        let mut extra = core_event("p.1", "old", 1, "2026-01-01T01:00:01Z").replace("uid: u-p", "uid: u-old");
        extra += &core_event("p.2", "Successfully assigned a/p to n1", 1, "2026-01-01T01:00:01Z")
            .replace("FailedScheduling", "Scheduled");
        let (text, _, json) = verdict(cluster_with("{type: Ready, status: \"False\"}", &extra));
        assert_eq!(text, "");
        assert_eq!(json, None);
    }

    #[test]
    fn unreadable_events_are_said_and_a_deleting_pod_is_not_compared() {
        let mut c = cluster_with(
            "{type: Ready, status: \"False\"}",
            &core_event("p.1", "skip schedule deleting pod: a/p", 1, "2026-01-01T01:00:01Z"),
        );
        let (text, _, json) = verdict(c.clone());
        assert_eq!(
            text,
            "Cluster: FailedScheduling (x1, last 2026-01-01T01:00:01Z, default-scheduler): skip schedule deleting pod: a/p\n\
             Note: the newest FailedScheduling event says the scheduler skipped the pod because it is being deleted\n"
        );
        assert_eq!(json.unwrap().get("agrees"), None);
        c.scheduling_events.clear();
        c.events_unreadable = Some("403 Forbidden: events is forbidden".into());
        let (text, _, json) = verdict(c);
        assert_eq!(
            text,
            "Cluster: events: not readable (403 Forbidden: events is forbidden)\n"
        );
        assert_eq!(
            json.unwrap(),
            json!({"failedSchedulingEvents": [], "eventsUnreadable": "403 Forbidden: events is forbidden"})
        );
    }

    #[test]
    fn only_five_events_are_listed_in_the_text() {
        let extra: String = (0..7)
            .map(|i| core_event(&format!("p.{i}"), NO_PREEMPTION, 1, &format!("2026-01-01T01:0{i}:30Z")))
            .collect();
        let (text, _, json) = verdict(cluster_with("{type: Ready, status: \"False\"}", &extra));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 6, "{text}");
        assert!(lines[0].contains("last 2026-01-01T01:06:30Z"), "{text}");
        assert_eq!(lines[5], "Cluster: and 2 older FailedScheduling events");
        assert_eq!(json.unwrap()["failedSchedulingEvents"].as_array().unwrap().len(), 7);
    }

    fn brief(c: Cluster) -> Option<(String, Option<bool>)> {
        let v = Release::OLDEST;
        let snap = Snapshot::new(Arc::new(c), v);
        let ex = explain(&snap, &build_profiles(None, v).unwrap(), &ObjectKey::new("a", "p")).unwrap();
        cluster_brief(&snap.cluster, &ex)
    }

    #[test]
    fn the_brief_line_says_agreement_or_what_differs() {
        assert_eq!(brief(cluster("{type: Ready, status: \"False\"}")), None);
        let mut extra = core_event("p.1", NO_PREEMPTION, 4, "2026-01-01T01:05:00Z");
        extra += &core_event("p.0", NO_PREEMPTION, 1, "2026-01-01T01:01:00Z");
        assert_eq!(
            brief(cluster_with(&unschedulable(NO_PREEMPTION), &extra)),
            Some((
                "Cluster agrees: PodScheduled=False (Unschedulable); FailedScheduling x4, last 2026-01-01T01:05:00Z, default-scheduler (+1 older)".into(),
                Some(true)
            ))
        );
        let old = "0/1 nodes are available: 1 Insufficient cpu.";
        assert_eq!(
            brief(cluster_with(
                &unschedulable(NO_PREEMPTION),
                &core_event("p.1", old, 2, "2026-01-01T01:09:00Z")
            )),
            Some((
                format!("Cluster differs: the newest FailedScheduling event says: {old}"),
                Some(false)
            ))
        );
        assert_eq!(
            brief(cluster(&unschedulable(old))),
            Some((format!("Cluster differs: the condition says: {old}"), Some(false)))
        );
        let roomy =
            "- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: \"4\", pods: \"10\"}}}\n";
        assert_eq!(
            brief(cluster_with(&unschedulable(old), roomy)),
            Some((
                "Cluster differs: the condition says the pod did not fit, kschedtui finds a node".into(),
                Some(false)
            ))
        );
        let mut c = cluster("{type: Ready, status: \"False\"}");
        c.events_unreadable = Some("403 Forbidden".into());
        assert_eq!(
            brief(c),
            Some(("Cluster: events not readable (403 Forbidden)".into(), None))
        );
    }

    #[test]
    fn event_messages_are_cut_as_upstream_cuts_them() {
        let short = "a".repeat(1024);
        assert_eq!(event_message(&short), short);
        let long = "b".repeat(1025);
        let cut = event_message(&long);
        assert_eq!(cut.len(), 1024);
        assert!(cut.ends_with("b ..."));
        // A three-byte character across the cut at byte 1020: its two bytes before the cut
        // come back as two replacement characters.
        let s = "c".repeat(1018) + "€" + &"d".repeat(10);
        assert_eq!(event_message(&s), "c".repeat(1018) + "\u{FFFD}\u{FFFD} ...");
    }

    /// A pod that fits on n1, with a PodScheduled condition.
    fn fitting(condition: &str) -> Cluster {
        cluster_on("4", condition, "")
    }

    #[test]
    fn binding_cycle_errors_are_read_as_upstream_writes_them() {
        let f = chosen_node_failure(
            r#"running Bind plugin "DefaultBinder": Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n2""#,
        )
        .unwrap();
        assert_eq!(
            f,
            ChosenNodeFailure {
                point: "Bind",
                plugin: "DefaultBinder",
                error: r#"Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n2""#,
                node: Some("n2"),
            }
        );
        assert!(f.is_refused_write());
        let f = chosen_node_failure(
            r#"running PreBind plugin "VolumeBinding": binding volumes: pv "pv-1" node affinity doesn't match node "n1": no matching NodeSelectorTerms"#,
        )
        .unwrap();
        assert_eq!((f.point, f.plugin, f.node), ("PreBind", "VolumeBinding", Some("n1")));
        let f = chosen_node_failure(r#"running PreBindPreFlight "DynamicResources": claim gone"#).unwrap();
        assert_eq!(
            (f.point, f.plugin, f.error, f.node),
            ("PreBindPreFlight", "DynamicResources", "claim gone", None)
        );
        assert!(!f.is_refused_write());
        assert_eq!(
            chosen_node_failure(r#"running "NodeAffinity" filter plugin: boom"#),
            None
        );
        assert_eq!(chosen_node_failure("0/1 nodes are available: 1 Too many pods."), None);
    }

    #[test]
    fn a_refused_bind_says_the_scheduler_chose_a_node_and_the_write_was_refused() {
        let cond = r#"{type: PodScheduled, status: "False", reason: SchedulerError, message: "running Bind plugin \"DefaultBinder\": admission webhook \"bind-guard.example.com\" denied the request: pods may not be bound to node \"n1\" during maintenance", lastTransitionTime: "2026-01-01T01:00:02Z"}"#;
        let (text, ours, json) = verdict(fitting(cond));
        assert_eq!(ours, None);
        assert_eq!(
            text,
            "Cluster: PodScheduled=False (SchedulerError): running Bind plugin \"DefaultBinder\": admission webhook \"bind-guard.example.com\" denied the request: pods may not be bound to node \"n1\" during maintenance\n\
             Note: the cluster's scheduler chose a node for the pod and the API server refused the write of its Bind plugin DefaultBinder: admission webhook \"bind-guard.example.com\" denied the request: pods may not be bound to node \"n1\" during maintenance (not a verdict on the nodes: not compared; kschedtui picks node n1; the refusal names node n1, which kschedtui picks too)\n"
        );
        let json = json.unwrap();
        assert_eq!(json.get("agrees"), None);
        assert_eq!(json["podScheduled"].get("agrees"), None);
        let c = fitting(cond);
        let v = Release::OLDEST;
        let snap = Snapshot::new(Arc::new(c), v);
        let ex = explain(&snap, &build_profiles(None, v).unwrap(), &ObjectKey::new("a", "p")).unwrap();
        let (brief, agrees) = cluster_brief(&snap.cluster, &ex).unwrap();
        assert_eq!(agrees, None);
        assert_eq!(
            brief,
            "Cluster: the scheduler chose a node, the API server refused its Bind (DefaultBinder): admission webhook \"bind-guard.example.com\" denied the request: pods may not be bound to node \"n1\" during maintenance; kschedtui picks n1 too"
        );
    }

    #[test]
    fn a_prebind_error_naming_another_node_and_a_pod_that_no_longer_fits() {
        let cond = r#"{type: PodScheduled, status: "False", reason: SchedulerError, message: "running PreBind plugin \"VolumeBinding\": binding volumes: pv \"pv-1\" node affinity doesn't match node \"n9\""}"#;
        let (text, _, _) = verdict(fitting(cond));
        assert!(
            text.ends_with("(not a verdict on the nodes: not compared; kschedtui picks node n1; the refusal names node n9, not the one kschedtui picks)\n"),
            "{text}"
        );
        // the pod no longer fits anywhere (cpu 2 on a 1-cpu node)
        let (text, _, _) = verdict(cluster(cond));
        assert!(
            text.ends_with("(not a verdict on the nodes: not compared; kschedtui finds no node for the pod now; the refusal names node n9)\n"),
            "{text}"
        );
        assert!(!text.contains("did not schedule"), "{text}");
        let cond = r#"{type: PodScheduled, status: "False", reason: SchedulerError, message: "running \"NodeAffinity\" filter plugin: boom"}"#;
        let (text, _, _) = verdict(fitting(cond));
        assert!(
            text.ends_with("Note: the cluster's scheduler failed with an error (SchedulerError), not a verdict on the nodes: not compared; it said: running \"NodeAffinity\" filter plugin: boom\n"),
            "{text}"
        );
    }
}
