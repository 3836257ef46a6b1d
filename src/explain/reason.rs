//! The *decisive* reason a pending pod is where it is, in a few words, computed from its
//! explanation: the TUI pod list's reason column and `fit`'s reason of its first unschedulable
//! replica. Upstream's whole message (its reasons in alphabetical
//! order, `0/14 nodes are available: 1 node(s) were unschedulable, 4 Insufficient memory, …`)
//! stays in the pod view and in the list's detail line.
//!
//! The decisive reason is the first of these that applies:
//!
//! 1. No profile serves the pod's schedulerName: `unknown scheduler 'volcano'`.
//! 2. A PreEnqueue plugin holds the pod: `held before the queue: WHAT`, where WHAT is
//!    `gate NAME` (`gates A, B`) for scheduling gates, `claim NS/NAME missing` for a
//!    ResourceClaim that does not exist, `no Workload NAME` / `no PodGroup NAME` for a gang's
//!    missing object, `gang N/M` while a native gang has N of its minCount M pods, and
//!    otherwise `PLUGIN: its first reason`. A 1.37 gang held because one of its members is:
//!    `held before the queue: gang member NAME`.
//! 3. The binding cycle stopped: a gang waiting at Permit for its quorum is `gang N/M`
//!    (N: members scheduled with this pod, M: minCount); another wait is
//!    `waits at Permit (PLUGIN)`; a rejection is `rejected at POINT: MESSAGE`.
//! 4. A node fits: `fits: would bind to NODE`, or `fits: N nodes tie (A, B, C, …)`.
//! 5. Coscheduling's PreFilter finds too few pods in the group: `gang N/M` (N: pods of the group,
//!    M: minMember).
//! 6. A PreFilter plugin rejected the pod before any node was tried: its first reason
//!    shortened by [`short`] (`unbound immediate PVC`), without a node count.
//! 7. Filter rejected every node: the reason whose removal alone would make the pod fit
//!    ([`sole_blocker`](crate::explain::blocking::sole_blocker)), else the reason that
//!    excludes the most nodes, counting each node's
//!    reasons as upstream's message counts them (the first failing plugin's reasons), as
//!    `COUNT× SHORT`. Nodes that PreFilter's node set left out (a DaemonSet pod names its node)
//!    are counted only when no other node was rejected: the pod chose them away, they are not
//!    what blocks it. Ties go to the reason that comes first in byte order of upstream's text,
//!    the order upstream's message lists them in. SHORT is upstream's reason shortened by
//!    [`short`] (`node(s) didn't match pod anti-affinity rules` → `anti-affinity`). When
//!    preemption would help, `; preempt K on NODE` follows.
//! 8. Otherwise upstream's message, without its `0/N nodes are available: ` prefix.
//!
//! What `r` (the same reason) compares is [`Decisive::key`]: the text without the node count
//! and without the preemption that follows, so every pod Insufficient cpu is kept whatever the
//! number of nodes it is short on.

use std::ops::Range;

use crate::engine::framework::status::Code;
use crate::engine::framework::trace::{BindingOutcome, Explanation};
use crate::engine::plugins::names;

/// A decisive reason: the column's text, and where in it the reason itself is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decisive {
    /// What the column shows.
    pub text: String,
    /// Bytes of `text` that name the reason (no node count, no preemption after it).
    pub key: Range<usize>,
    /// Nodes the reason excludes (0 when it is not a Filter reason).
    pub nodes: usize,
}

impl Decisive {
    fn plain(text: String) -> Self {
        let key = 0..text.len();
        Decisive { text, key, nodes: 0 }
    }

    /// The reason without the node count or the preemption after it.
    pub fn key(&self) -> &str {
        self.text.get(self.key.clone()).unwrap_or(&self.text)
    }
}

/// Upstream's reason in a few words (the pod list's column); unknown reasons lose their
/// `node(s) ` prefix only.
pub fn short(reason: &str) -> String {
    const TABLE: &[(&str, &str)] = &[
        ("node(s) didn't match pod anti-affinity rules", "anti-affinity"),
        (
            "node(s) didn't satisfy existing pods anti-affinity rules",
            "existing pods' anti-affinity",
        ),
        ("node(s) didn't match pod affinity rules", "pod affinity"),
        (
            "node(s) didn't match Pod's node affinity/selector",
            "node affinity/selector",
        ),
        (
            "node(s) didn't match pod topology spread constraints (missing required label)",
            "spread: missing topology label",
        ),
        (
            "node(s) didn't match pod topology spread constraints",
            "topology spread",
        ),
        (
            "node(s) didn't have free ports for the requested pod ports",
            "host port in use",
        ),
        ("node(s) didn't match the requested node name", "not the pod's nodeName"),
        ("node(s) were unschedulable", "cordoned"),
        (
            "node(s) had volume node affinity conflict",
            "volume node affinity conflict",
        ),
        (
            "node(s) didn't find available persistent volumes to bind",
            "no PV to bind",
        ),
        ("node(s) had no available volume zone", "no volume in the zone"),
        ("node(s) exceed max volume count", "max volume count"),
        (
            "pod has unbound immediate PersistentVolumeClaims",
            "unbound immediate PVC",
        ),
        ("cannot allocate all claims", "cannot allocate all claims"),
    ];
    if let Some((_, s)) = TABLE.iter().find(|(r, _)| *r == reason) {
        return (*s).to_string();
    }
    // "node(s) had untolerated taint {dedicated: gpu}", "node(s) had untolerated taint(s)"
    if let Some(rest) = reason.strip_prefix("node(s) had untolerated taint") {
        return format!("untolerated taint{rest}");
    }
    // "node(s) didn't satisfy plugin(s) [NodeAffinity]": outside PreFilter's node set
    if let Some(rest) = reason.strip_prefix("node(s) didn't satisfy plugin") {
        let plugins = rest.trim_start_matches("(s)").trim();
        return format!("outside {plugins}'s nodes");
    }
    reason
        .strip_prefix("node(s) had ")
        .or_else(|| reason.strip_prefix("node(s) "))
        .unwrap_or(reason)
        .to_string()
}

/// What a PreEnqueue plugin's hold is about, in a few words.
fn held(ex: &Explanation, plugin: &str, reason: &str) -> String {
    if let Some(list) = reason
        .strip_prefix("waiting for scheduling gates: [")
        .and_then(|r| r.strip_suffix(']'))
    {
        let gates: Vec<&str> = list.split_whitespace().collect();
        return match gates.as_slice() {
            [g] => format!("gate {g}"),
            _ => format!("gates {}", gates.join(", ")),
        };
    }
    if let Some(claim) = reason
        .strip_prefix("could not find ResourceClaim \"")
        .and_then(|r| r.strip_suffix('"'))
    {
        return format!("claim {claim} missing");
    }
    if let Some(name) = reason
        .strip_prefix("waiting for pods's workload \"")
        .and_then(|r| r.strip_suffix("\" to appear in scheduling queue"))
    {
        return format!("no Workload {name}");
    }
    if let Some(name) = reason
        .strip_prefix("waiting for pods's pod group \"")
        .and_then(|r| r.strip_suffix("\" to appear in scheduling queue"))
    {
        return format!("no PodGroup {name}");
    }
    if plugin == names::GANG_SCHEDULING
        && let Some(g) = &ex.gang
    {
        return format!("gang {}/{}", g.members, g.min_member);
    }
    format!("{plugin}: {reason}")
}

/// The decisive reason of an explanation (the module comment says which).
pub fn decisive(ex: &Explanation) -> Decisive {
    if let Some(s) = &ex.waiting_for_scheduler {
        return Decisive::plain(format!("unknown scheduler '{s}'"));
    }
    if let Some(p) = ex.pre_enqueue.iter().find(|s| s.code != Code::Success) {
        let reason = p.reasons.first().map_or("", String::as_str);
        return Decisive::plain(format!("held before the queue: {}", held(ex, &p.plugin, reason)));
    }
    if let Some(h) = ex.gang.as_ref().and_then(|g| g.held_with.as_ref()) {
        return Decisive::plain(format!("held before the queue: gang member {}", h.pod.name));
    }
    if let Some(b) = &ex.binding_cycle {
        match b.outcome {
            BindingOutcome::Bound => {}
            BindingOutcome::Waiting => {
                let plugin = b
                    .permit
                    .iter()
                    .find(|p| p.code == Code::Wait)
                    .map_or("", |p| p.plugin.as_str());
                return Decisive::plain(match &ex.gang {
                    Some(g) => format!("gang {}/{}", g.assigned + 1, g.min_member),
                    None => format!("waits at Permit ({plugin})"),
                });
            }
            BindingOutcome::Rejected | BindingOutcome::Error => {
                return Decisive::plain(format!(
                    "rejected at {}: {}",
                    b.stopped_at.as_deref().unwrap_or("the binding cycle"),
                    b.message.as_deref().unwrap_or_default()
                ));
            }
        }
    }
    if ex.schedulable() {
        return Decisive::plain(if let [node] = ex.selected.as_slice() {
            format!("fits: would bind to {node}")
        } else {
            let mut names = ex.selected.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
            if ex.selected.len() > 3 {
                names.push_str(", …");
            }
            format!("fits: {} nodes tie ({names})", ex.selected.len())
        });
    }
    if let Some(g) = &ex.gang
        && ex.pre_filter.iter().any(|p| {
            p.plugin == names::COSCHEDULING
                && matches!(p.code, Code::Unschedulable | Code::UnschedulableAndUnresolvable)
        })
        && i64::try_from(g.members).unwrap_or(i64::MAX) < i64::from(g.min_member)
    {
        return Decisive::plain(format!("gang {}/{}", g.members, g.min_member));
    }
    if let Some(p) = ex
        .pre_filter
        .iter()
        .find(|p| matches!(p.code, Code::Unschedulable | Code::UnschedulableAndUnresolvable))
    {
        // PreFilter rejected the pod before any node was tried: the reason is the pod's, not
        // the nodes' (upstream's message carries no count either)
        return Decisive::plain(short(p.reasons.first().map_or(p.plugin.as_str(), String::as_str)));
    }
    if let Some((reason, n)) = crate::explain::blocking::sole_blocker(ex).or_else(|| most_excluding(ex)) {
        let short = short(reason);
        let lead = format!("{n}× ");
        let key = lead.len()..lead.len() + short.len();
        let mut text = lead + &short;
        if let Some(pf) = &ex.post_filter
            && let Some(node) = &pf.nominated_node
        {
            text.push_str(&format!("; preempt {} on {node}", pf.victims.len()));
        }
        return Decisive { text, key, nodes: n };
    }
    Decisive::plain(upstream_line(ex))
}

/// The reason that excludes the most nodes, with how many (ties: the first in byte order).
fn most_excluding(ex: &Explanation) -> Option<(&str, usize)> {
    let count = |prefilter: bool| {
        let mut m: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for f in ex.filter.iter().filter(|f| f.excluded_by_prefilter == prefilter) {
            if let Some(fl) = &f.failure {
                for r in &fl.reasons {
                    *m.entry(r.as_ref()).or_insert(0) += 1;
                }
            }
        }
        // the BTreeMap is in byte order: max_by keeps the last of equals, so compare reversed
        m.into_iter().max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))
    };
    count(false).or_else(|| count(true))
}

/// Upstream's message as one line (the list's detail line, under the decisive reason):
/// without the `0/N nodes are available: ` prefix and the final period; "" for a pod that fits
/// (the decisive reason says all).
pub fn upstream_line(ex: &Explanation) -> String {
    if let Some(s) = &ex.waiting_for_scheduler {
        return format!("no profile serves schedulerName '{s}'");
    }
    if let Some(g) = ex.pre_enqueue.iter().find(|s| s.code != Code::Success) {
        return format!("held before the queue: {}", g.reasons.join(", "));
    }
    if let Some(w) = ex
        .binding_cycle
        .as_ref()
        .and_then(|b| b.permit.iter().find(|p| p.code == Code::Wait).map(|p| (b, p)))
    {
        let gang = ex
            .gang
            .as_ref()
            .map(|g| format!(": {} of {} scheduled", g.assigned + 1, g.min_member))
            .unwrap_or_default();
        return format!("gang: waits at Permit ({}) on {}{gang}", w.1.plugin, w.0.node);
    }
    if ex.schedulable() {
        return String::new();
    }
    match &ex.message {
        Some(m) => m
            .strip_prefix(&format!("0/{} nodes are available: ", ex.node_count))
            .map_or_else(
                || m.clone(),
                |rest| format!("0/{} nodes: {}", ex.node_count, rest.trim_end_matches('.')),
            ),
        None => String::new(),
    }
}
