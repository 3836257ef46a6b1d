//! `kschedtui explain deploy/NAME` (also `rs/`, `sts/`, `ds/`, `job/`): a workload's pods as a
//! whole. Its pods are found as its controller owns them (a Deployment's through the
//! ReplicaSets it owns, or, without them in the cluster, the ReplicaSet `<name>-<its
//! pod-template-hash label>`; the others by their controller reference), then N of M pending,
//! grouped by their decisive reason ([`super::reason`]), each group with upstream's message of
//! its first pod.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::{Value, json};

use crate::engine::framework::trace::{Explanation, Outcome};
use crate::model::{Cluster, ObjectKey, Pod};

/// The owner kinds `explain` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnerKind {
    /// apps/v1 Deployment.
    Deployment,
    /// apps/v1 ReplicaSet.
    ReplicaSet,
    /// apps/v1 StatefulSet.
    StatefulSet,
    /// apps/v1 DaemonSet.
    DaemonSet,
    /// batch/v1 Job.
    Job,
}

impl OwnerKind {
    /// The `kind`.
    pub fn name(self) -> &'static str {
        match self {
            OwnerKind::Deployment => "Deployment",
            OwnerKind::ReplicaSet => "ReplicaSet",
            OwnerKind::StatefulSet => "StatefulSet",
            OwnerKind::DaemonSet => "DaemonSet",
            OwnerKind::Job => "Job",
        }
    }
}

/// `TYPE/NAME` as kubectl spells the types (`deploy`, `deployment`, `deployments`, `rs`,
/// `replicaset`, `sts`, `statefulset`, `ds`, `daemonset`, `job`, `jobs`, any case); None for a
/// pod (`NAMESPACE/NAME`).
pub fn parse(arg: &str) -> Option<(OwnerKind, &str)> {
    let (t, name) = arg.split_once('/')?;
    if name.is_empty() || name.contains('/') {
        return None;
    }
    let kind = match t.to_ascii_lowercase().as_str() {
        "deploy" | "deployment" | "deployments" => OwnerKind::Deployment,
        "rs" | "replicaset" | "replicasets" => OwnerKind::ReplicaSet,
        "sts" | "statefulset" | "statefulsets" => OwnerKind::StatefulSet,
        "ds" | "daemonset" | "daemonsets" => OwnerKind::DaemonSet,
        "job" | "jobs" => OwnerKind::Job,
        _ => return None,
    };
    Some((kind, name))
}

fn controller_of(p: &Pod) -> Option<(&str, &str)> {
    let refs = p.obj.metadata.owner_references.as_deref()?;
    let r = refs
        .iter()
        .find(|r| r.controller == Some(true))
        .or_else(|| refs.first())?;
    Some((r.kind.as_str(), r.name.as_str()))
}

/// The owner's pods (finished ones included), sorted by name.
pub fn pods_of<'a>(cluster: &'a Cluster, kind: OwnerKind, namespace: &str, name: &str) -> Vec<&'a Pod> {
    let in_ns = cluster.pods.iter().filter(|p| p.key.namespace == *namespace);
    let owned_by = |k: &str, n: &str, p: &Pod| controller_of(p).is_some_and(|(pk, pn)| pk == k && pn == n);
    match kind {
        OwnerKind::Deployment => {
            let sets: Vec<&str> = cluster
                .replica_sets
                .iter()
                .filter(|rs| {
                    rs.metadata.namespace.as_deref() == Some(namespace)
                        && rs
                            .metadata
                            .owner_references
                            .iter()
                            .flatten()
                            .any(|r| r.kind == "Deployment" && r.name == name && r.controller == Some(true))
                })
                .filter_map(|rs| rs.metadata.name.as_deref())
                .collect();
            in_ns
                .filter(|p| match controller_of(p) {
                    Some(("ReplicaSet", rs)) => {
                        sets.contains(&rs)
                            || p.labels
                                .get("pod-template-hash")
                                .is_some_and(|h| rs == format!("{name}-{h}"))
                    }
                    _ => false,
                })
                .map(|p| &**p)
                .collect()
        }
        other => in_ns
            .filter(|p| owned_by(other.name(), name, p))
            .map(|p| &**p)
            .collect(),
    }
}

/// Pending pods with the same decisive reason.
#[derive(Clone, Debug)]
pub struct Group {
    /// The decisive reason (the TUI's reason column).
    pub reason: String,
    /// Upstream's message of the group's first pod.
    pub message: String,
    /// The outcome of its first pod.
    pub outcome: Outcome,
    /// The pods, in name order.
    pub pods: Vec<ObjectKey>,
    /// The reason without node counts (what groups them).
    key: String,
}

/// An owner's pods as a whole.
#[derive(Clone, Debug)]
pub struct OwnerReport {
    /// The owner's kind.
    pub kind: OwnerKind,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// Its pods (not finished).
    pub pods: usize,
    /// How many of them are pending.
    pub pending: usize,
    /// Finished pods (not counted above).
    pub finished: usize,
    /// Bound pods per node.
    pub bound: BTreeMap<String, usize>,
    /// The pending pods grouped by decisive reason, the largest group first.
    pub groups: Vec<Group>,
}

impl OwnerReport {
    /// The report of `pods` with the explanations of its pending ones.
    pub fn new(kind: OwnerKind, namespace: &str, name: &str, pods: &[&Pod], explanations: &[Explanation]) -> Self {
        let mut bound = BTreeMap::new();
        let mut finished = 0;
        for p in pods {
            if p.is_finished() {
                finished += 1;
            } else if let Some(n) = &p.node_name {
                *bound.entry(n.to_string()).or_default() += 1;
            }
        }
        let mut groups: Vec<Group> = Vec::new();
        for ex in explanations {
            let d = super::reason::decisive(ex);
            let key = d.key().to_string();
            match groups.iter_mut().find(|g| g.key == key) {
                Some(g) => g.pods.push(ex.pod.clone()),
                None => groups.push(Group {
                    key,
                    reason: d.text.clone(),
                    message: ex.message.clone().unwrap_or_else(|| ex.verdict()),
                    outcome: ex.outcome(),
                    pods: vec![ex.pod.clone()],
                }),
            }
        }
        for g in &mut groups {
            g.pods.sort();
        }
        groups.sort_by(|a, b| b.pods.len().cmp(&a.pods.len()).then_with(|| a.reason.cmp(&b.reason)));
        OwnerReport {
            kind,
            namespace: namespace.to_string(),
            name: name.to_string(),
            pods: pods.len() - finished,
            pending: explanations.len(),
            finished,
            bound,
            groups,
        }
    }

    /// True when no pod of it is pending, or every pending one is schedulable.
    pub fn all_schedulable(&self) -> bool {
        self.groups.iter().all(|g| g.outcome == Outcome::Schedulable)
    }
}

/// The text report.
pub fn render(r: &OwnerReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} {}/{}: {} pod(s), {} of {} pending{}",
        r.kind.name(),
        r.namespace,
        r.name,
        r.pods,
        r.pending,
        r.pods,
        if r.finished > 0 {
            format!(" ({} finished, not counted)", r.finished)
        } else {
            String::new()
        }
    );
    if !r.bound.is_empty() {
        let b: Vec<String> = r.bound.iter().map(|(n, c)| format!("{n} ×{c}")).collect();
        let _ = writeln!(s, "  bound: {}", b.join(", "));
    }
    for g in &r.groups {
        let _ = writeln!(s, "\n  {} pod(s): {}", g.pods.len(), g.reason);
        let names: Vec<&str> = g.pods.iter().map(|k| k.name.as_str()).collect();
        let _ = writeln!(s, "    {}", names.join(", "));
        for l in g.message.lines() {
            let _ = writeln!(s, "    {l}");
        }
    }
    if let Some(g) = r.groups.first() {
        let _ = writeln!(
            s,
            "\nOne pod's whole pipeline: kschedtui explain {}",
            g.pods.first().map(ToString::to_string).unwrap_or_default()
        );
    }
    s
}

/// The JSON (docs/explain-json.md, "Owners").
pub fn to_json(r: &OwnerReport) -> Value {
    json!({
        "owner": {"kind": r.kind.name(), "namespace": r.namespace, "name": r.name},
        "pods": r.pods,
        "pending": r.pending,
        "finished": r.finished,
        "bound": r.bound,
        "groups": r.groups.iter().map(|g| json!({
            "reason": g.reason,
            "message": g.message,
            "outcome": g.outcome.as_str(),
            "pods": g.pods.iter().map(|k| json!({"namespace": k.namespace, "name": k.name})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}
