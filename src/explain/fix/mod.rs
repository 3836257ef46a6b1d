//! "To fix" lines: for each reason that keeps a pod from a node, one change that would remove
//! it (drop the scheduling gates, tolerate a taint, uncordon a node, label a node for the
//! selector, lower a request, a node with more of a resource, relax a spread constraint, a
//! schedulerName a profile serves), made on a copy of the cluster and checked by running the
//! engine again on it. Each comes with the `kubectl` command that makes it where one exists,
//! and what to do where the field cannot change on a pod.
//!
//! Candidates come from the explanation alone (cheap, on the TUI's UI thread); [`verify`] runs
//! the engine once per candidate (in the TUI a background job, `Effect::Fixes`). `explain`
//! writes them in its text and JSON (`fixes`, [`to_json`]), the TUI on its fixes screen: one
//! implementation for both.
//!
//! Here: the changes, their ranking, the candidates from an explanation and their check. The
//! hints by kind are in `resources` (requests, bigger and fresh nodes), `placement` (preemption,
//! anti-affinity, labels, ports, affinity terms, spread) and `dra` (claims and devices); `apply`
//! makes a change on a copy of the cluster.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::format;
use super::usage::{self as analysis, NodeUsage};
use crate::engine::trace::{Explanation, NodeFilter};
use crate::engine::{self, Features, Framework, Snapshot};
use crate::model::{Cluster, ObjectKey, Pod, Taint};

pub(crate) mod apply;
mod dra;
mod placement;
mod resources;

pub use apply::apply;
use dra::{dra_fixes, missing_claims};
use placement::{
    DESCRIPTIVE, affinity_fixes, existing_anti_affinity_fix, labels_for, ports_fix, preemption_fix, spread_fix,
};
use resources::resource_fixes;

/// One change to the pod or to a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Remove every scheduling gate of the pod.
    RemoveGates(Vec<String>),
    /// Append tolerations for these taints to the pod.
    Tolerate(Vec<Taint>),
    /// Uncordon the node.
    Uncordon(String),
    /// Set these labels on the node.
    LabelNode(String, Vec<(String, String)>),
    /// Lower the pod's requests so that it fits the node: (resource, the new effective
    /// request, by how much).
    LowerRequests(String, Vec<(String, i64, i64)>),
    /// A new node like this one (its labels, taints and allocatable, a name of its own) with
    /// only the DaemonSet pods it runs: the node pool scaled up by one.
    FreshNode {
        /// The node it is made like.
        like: String,
        /// The new node's name.
        name: String,
    },
    /// The node with this much more allocatable of each resource.
    BiggerNode(String, Vec<(String, i64)>),
    /// Set maxSkew of the pod's topology spread constraint (index, topologyKey) to this value.
    MaxSkew(usize, String, i32),
    /// Set the pod's schedulerName.
    SchedulerName(String),
    /// Delete these bound pods (they hold a host port the pod asks for).
    DeletePods(Vec<ObjectKey>),
    /// Nothing to change: preemption already nominates `node` once `victims` are gone (made
    /// on the copy by deleting them and setting the pod's status.nominatedNodeName).
    Preempt {
        /// The nominated node.
        node: String,
        /// The victims, in upstream's order.
        victims: Vec<ObjectKey>,
    },
    /// Create the ResourceClaim the pod names (what it asks for is the user's to say: not
    /// checked).
    CreateClaim {
        /// The claim, named as the pod references it.
        claim: ObjectKey,
        /// The pod's name for it (`spec.resourceClaims[].name`).
        pod_claim: String,
    },
    /// Change one request of a ResourceClaim: drop its selectors, or ask for fewer devices.
    ClaimRequest {
        /// The claim.
        claim: ObjectKey,
        /// The request's name.
        request: String,
        /// Drop the request's selectors.
        drop_selectors: bool,
        /// The new exact count.
        count: Option<i64>,
    },
    /// No device of the DeviceClass exists on the nodes checked: nothing to change on a copy
    /// (not checked).
    NoDeviceOfClass(String),
    /// The existing pods whose required anti-affinity rejects the pod on the node, gone from
    /// it (made on the copy by removing them).
    ExistingAntiAffinity {
        /// The node.
        node: String,
        /// The pods.
        pods: Vec<ObjectKey>,
    },
    /// Make the pod's required (anti-)affinity term at this index a preferred one of weight 100.
    PreferTerm {
        /// The anti-affinity terms (else the affinity terms).
        anti: bool,
        /// Index in requiredDuringSchedulingIgnoredDuringExecution.
        index: usize,
    },
}

/// A change, what it is for, and how to make it on a real cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// The blocking reason it answers (upstream's words).
    pub reason: String,
    /// What to do, in a few words ("tolerate nvidia.com/gpu=present:NoSchedule").
    pub text: String,
    /// The change made on the copy.
    pub change: Change,
    /// The command that makes the change, when one exists.
    pub command: Option<String>,
    /// What the command cannot say (immutable pod fields, capacity).
    pub note: Option<String>,
}

/// What the engine says once the change is made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The pod would bind (the nodes it would go to; several on a tie).
    Binds(Vec<String>),
    /// Still not scheduled: the new verdict.
    NotEnough(String),
    /// The change could not be made or run.
    Failed(String),
    /// The change is the user's to describe (a claim's device requests) or there is none to
    /// make: not checked, and why.
    Unchecked(String),
}

/// A fix with the engine's answer on the changed cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The fix.
    pub fix: Fix,
    /// The engine's answer.
    pub outcome: Outcome,
}

impl Verified {
    /// The line shown: "to fix: … → would bind to X ✓" or "… → not enough: …".
    pub fn line(&self) -> String {
        match &self.outcome {
            Outcome::Binds(n) if n.len() == 1 => format!("{} → would bind to {} ✓", self.fix.text, n[0]),
            Outcome::Binds(n) => format!(
                "{} → would bind ({} nodes tie: {}) ✓",
                self.fix.text,
                n.len(),
                n.join(", ")
            ),
            Outcome::NotEnough(v) => format!("{} → not enough: {v}", self.fix.text),
            Outcome::Failed(e) => format!("{} → could not check: {e}", self.fix.text),
            Outcome::Unchecked(why) => format!("{} → not checked: {why}", self.fix.text),
        }
    }

    /// True when the engine binds the pod after the change.
    pub fn works(&self) -> bool {
        matches!(self.outcome, Outcome::Binds(_))
    }
}

/// The failures that count on a node: every plugin's (the diagnostic pass) or upstream's one.
fn failures(f: &NodeFilter) -> Vec<&str> {
    if f.all_failures.is_empty() {
        f.failure.iter().map(|x| x.plugin).collect()
    } else {
        f.all_failures.iter().map(|x| x.plugin).collect()
    }
}

/// Nodes that fail Filter only because of `plugin`, by name.
fn only<'a>(ex: &'a Explanation, plugin: &str) -> Vec<&'a NodeFilter> {
    ex.filter
        .iter()
        .filter(|f| !f.feasible && !f.excluded_by_prefilter)
        .filter(|f| {
            let p = failures(f);
            !p.is_empty() && p.iter().all(|x| *x == plugin)
        })
        .collect()
}

/// Reasons of `plugin` on the node.
fn reason_of(f: &NodeFilter, plugin: &str) -> String {
    f.all_failures
        .iter()
        .chain(f.failure.iter())
        .find(|x| x.plugin == plugin)
        .map(|x| x.reasons.join(", "))
        .unwrap_or_default()
}

/// How many nodes, said briefly.
fn nodes_phrase(nodes: &[&str]) -> String {
    match nodes {
        [one] => (*one).to_string(),
        [a, b] => format!("{a}, {b}"),
        [a, b, rest @ ..] => format!("{} nodes: {a}, {b}, …", rest.len() + 2),
        [] => String::new(),
    }
}

/// An exact Kubernetes quantity for an amount (never rounded up: a lowered request must fit).
pub(crate) fn quantity(resource: &str, v: i64) -> String {
    match resource {
        "cpu" => format::cpu(v),
        "memory" | "ephemeral-storage" => bytes_exact(v),
        r if r.starts_with("hugepages-") => bytes_exact(v),
        _ => v.to_string(),
    }
}

fn bytes_exact(v: i64) -> String {
    for (suffix, unit) in [("Gi", 1i64 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)] {
        if v != 0 && v % unit == 0 {
            return format!("{}{suffix}", v / unit);
        }
    }
    v.to_string()
}

fn taint_text(t: &Taint) -> String {
    if t.value.is_empty() {
        format!("{}:{}", t.key, t.effect)
    } else {
        format!("{}={}:{}", t.key, t.value, t.effect)
    }
}

/// The pod's controller, as `kind/name` for kubectl (None for a bare pod).
fn owner(pod: &Pod) -> Option<(String, String)> {
    let refs = pod.obj.metadata.owner_references.as_ref()?;
    let r = refs.iter().find(|r| r.controller == Some(true)).or(refs.first())?;
    Some((r.kind.to_lowercase(), r.name.clone()))
}

fn json(v: &serde_json::Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// The note for a change of a pod field that cannot change on an existing pod.
fn immutable(pod: &Pod, field: &str) -> String {
    match owner(pod) {
        Some((kind, name)) => format!(
            "{field} cannot change on an existing pod: change it in the pod template of its {kind} {name} (or the object that owns that), which replaces the pod"
        ),
        None => format!("{field} cannot change on an existing pod: recreate the pod with it"),
    }
}

/// Where a change ranks among the fixes, smallest first: the change that keeps what the
/// cluster's owners meant. The pod's own gates and schedulerName come alone. Preemption that
/// already places the pod needs no change. Then the pod asks for less, a cordoned node comes
/// back, the node pool grows by a node like one it has, the pod's spread is relaxed, a stale
/// holder of a host port goes, the pod's own required (anti-)affinity term becomes preferred or
/// its claim's device selectors go; last the changes that undo a decision someone took on
/// purpose: tolerating a taint that keeps pods away, moving the existing pods whose
/// anti-affinity rejects the pod, relabelling a node for the pod's selector. A DeviceClass
/// without devices has no change to make and comes after all. A missing claim comes alone.
pub fn rank(change: &Change) -> u8 {
    match change {
        Change::RemoveGates(_) | Change::SchedulerName(_) | Change::CreateClaim { .. } => 0,
        Change::Preempt { .. } => 1,
        Change::LowerRequests(..)
        | Change::ClaimRequest {
            drop_selectors: false, ..
        } => 2,
        Change::Uncordon(_) => 3,
        Change::FreshNode { .. } | Change::BiggerNode(..) => 4,
        Change::MaxSkew(..) => 5,
        Change::DeletePods(_) => 6,
        Change::PreferTerm { .. } | Change::ClaimRequest { .. } => 7,
        Change::Tolerate(_) | Change::ExistingAntiAffinity { .. } => 8,
        Change::LabelNode(..) => 9,
        Change::NoDeviceOfClass(_) => 10,
    }
}

/// Every fix the explanation suggests, at most one per blocking reason, smallest change first
/// ([`rank`]; the same rank keeps pipeline order).
pub fn candidates(
    cluster: &Cluster,
    usage: &BTreeMap<String, NodeUsage>,
    features: &Features,
    profiles: &[Framework],
    ex: &Explanation,
) -> Vec<Fix> {
    let mut out = unranked(cluster, usage, features, profiles, ex);
    out.sort_by_key(|f| rank(&f.change));
    out
}

/// The fixes in pipeline order.
fn unranked(
    cluster: &Cluster,
    usage: &BTreeMap<String, NodeUsage>,
    features: &Features,
    profiles: &[Framework],
    ex: &Explanation,
) -> Vec<Fix> {
    let Some(pod) = cluster.pod(&ex.pod) else {
        return Vec::new();
    };
    if ex.schedulable() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let ns = &pod.key.namespace;
    let name = &pod.key.name;
    if let Some(s) = &ex.waiting_for_scheduler
        && let Some(p) = profiles.first()
    {
        let to = p.name.clone();
        out.push(Fix {
            reason: format!("no profile serves schedulerName '{s}'"),
            text: format!("set schedulerName to {to} (or run the scheduler '{s}')"),
            command: owner(pod).map(|(kind, o)| {
                let patch =
                    serde_json::json!([{"op": "replace", "path": "/spec/template/spec/schedulerName", "value": to}]);
                format!("kubectl patch {kind} {o} -n {ns} --type=json -p '{}'", json(&patch))
            }),
            note: Some(immutable(pod, "schedulerName")),
            change: Change::SchedulerName(to),
        });
        return out;
    }
    if ex
        .pre_enqueue
        .iter()
        .any(|s| s.plugin == "SchedulingGates" && !s.reasons.is_empty())
    {
        let gates: Vec<String> = pod
            .spec()
            .scheduling_gates
            .iter()
            .flatten()
            .map(|g| g.name.clone())
            .collect();
        if !gates.is_empty() {
            let patch = serde_json::json!([{"op": "remove", "path": "/spec/schedulingGates"}]);
            out.push(Fix {
                reason: "Scheduling is blocked due to non-empty scheduling gates".into(),
                text: format!(
                    "remove gate{} {}",
                    if gates.len() == 1 { "" } else { "s" },
                    gates.join(", ")
                ),
                command: Some(format!(
                    "kubectl patch pod {name} -n {ns} --type=json -p '{}'",
                    json(&patch)
                )),
                note: Some("the controller that added a gate normally removes it when its condition holds".into()),
                change: Change::RemoveGates(gates),
            });
        }
        return out;
    }
    let claims = missing_claims(cluster, pod, ex);
    if !claims.is_empty() {
        return claims;
    }
    if let Some(fix) = preemption_fix(pod, ex) {
        out.push(fix);
    }
    // Taints: the set of untolerated taints shared by the most nodes failing only on them.
    let tainted = only(ex, "TaintToleration");
    let mut by_set: BTreeMap<Vec<Taint>, Vec<&str>> = BTreeMap::new();
    for f in &tainted {
        let Some(node) = cluster.node(&f.node) else { continue };
        let set: Vec<Taint> = node
            .taints
            .iter()
            .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
            .filter(|t| !pod.tolerations.iter().any(|tol| tol.tolerates(t)))
            .cloned()
            .collect();
        if !set.is_empty() {
            by_set.entry(set).or_default().push(&f.node);
        }
    }
    if let Some((set, nodes)) = by_set
        .into_iter()
        .max_by(|a, b| a.1.len().cmp(&b.1.len()).then(b.1.cmp(&a.1)))
    {
        let values: Vec<serde_json::Value> = set
            .iter()
            .map(|t| {
                let mut v =
                    serde_json::json!({"key": t.key, "operator": "Equal", "value": t.value, "effect": t.effect});
                if t.value.is_empty() {
                    v = serde_json::json!({"key": t.key, "operator": "Exists", "effect": t.effect});
                }
                v
            })
            .collect();
        let has = pod.spec().tolerations.as_ref().is_some_and(|t| !t.is_empty());
        let patch: Vec<serde_json::Value> = if has {
            values
                .iter()
                .map(|v| serde_json::json!({"op": "add", "path": "/spec/tolerations/-", "value": v}))
                .collect()
        } else {
            vec![serde_json::json!({"op": "add", "path": "/spec/tolerations", "value": values})]
        };
        let first = tainted
            .iter()
            .find(|f| f.node == nodes[0])
            .map(|f| reason_of(f, "TaintToleration"));
        out.push(Fix {
            reason: first.unwrap_or_default(),
            text: format!(
                "tolerate {} ({})",
                set.iter().map(taint_text).collect::<Vec<_>>().join(", "),
                nodes_phrase(&nodes)
            ),
            command: Some(format!(
                "kubectl patch pod {name} -n {ns} --type=json -p '{}'",
                json(&serde_json::Value::Array(patch))
            )),
            note: Some("tolerations can only be added to an existing pod; add them to its template too".into()),
            change: Change::Tolerate(set),
        });
    }
    if let Some(f) = only(ex, "NodeUnschedulable").first() {
        out.push(Fix {
            reason: reason_of(f, "NodeUnschedulable"),
            text: format!("uncordon {}", f.node),
            command: Some(format!("kubectl uncordon {}", f.node)),
            note: None,
            change: Change::Uncordon(f.node.to_string()),
        });
    }
    if let Some((f, labels)) = only(ex, "NodeAffinity")
        .into_iter()
        .filter_map(|f| Some((f, labels_for(pod, cluster.node(&f.node)?)?)))
        .next()
    {
        let pairs: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        // a label the kubelet or the cloud sets says what the node is: the fix is another node
        let describes = labels.iter().any(|(k, _)| DESCRIPTIVE.contains(&k.as_str()));
        out.push(Fix {
            reason: reason_of(f, "NodeAffinity"),
            text: if describes {
                format!("a node like {} with {} would fit", f.node, pairs.join(" "))
            } else {
                format!("label {} {}", f.node, pairs.join(" "))
            },
            command: (!describes).then(|| format!("kubectl label node {} {} --overwrite", f.node, pairs.join(" "))),
            note: describes.then(|| {
                "these labels are set by the kubelet or the cloud provider: add a node (pool) that has them".into()
            }),
            change: Change::LabelNode(f.node.to_string(), labels),
        });
    }
    if let Some(fix) = ports_fix(cluster, pod, ex) {
        out.push(fix);
    }
    out.extend(affinity_fixes(pod, ex));
    out.extend(existing_anti_affinity_fix(cluster, ex));
    out.extend(dra_fixes(pod, ex));
    resource_fixes(cluster, usage, features, pod, ex, &mut out);
    if let Some(fix) = spread_fix(pod, ex) {
        out.push(fix);
    }
    out
}

/// The fix hints of the explanations of one cluster: the nodes' usage is summed once for them
/// all.
pub struct Hints<'a> {
    cluster: &'a Cluster,
    features: &'a Features,
    profiles: &'a [Framework],
    usage: BTreeMap<String, NodeUsage>,
}

impl<'a> Hints<'a> {
    /// Hints on `cluster` with these profiles.
    pub fn new(cluster: &'a Cluster, features: &'a Features, profiles: &'a [Framework]) -> Self {
        Hints {
            cluster,
            features,
            profiles,
            usage: analysis::node_usage(cluster, features),
        }
    }

    /// The checked fixes of an explanation made with `profile` (None: the pod's own); none
    /// for a pod that is schedulable.
    pub fn of(&self, ex: &Explanation, profile: Option<&str>) -> Vec<Verified> {
        let fixes = candidates(self.cluster, &self.usage, self.features, self.profiles, ex);
        verify(self.cluster, self.profiles, self.features, profile, &ex.pod, fixes)
    }
}

impl Change {
    /// The kind of change, as the JSON names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Change::RemoveGates(_) => "RemoveSchedulingGates",
            Change::Tolerate(_) => "Tolerate",
            Change::Uncordon(_) => "Uncordon",
            Change::LabelNode(..) => "LabelNode",
            Change::LowerRequests(..) => "LowerRequests",
            Change::FreshNode { .. } => "FreshNode",
            Change::BiggerNode(..) => "BiggerNode",
            Change::MaxSkew(..) => "RelaxMaxSkew",
            Change::SchedulerName(_) => "SchedulerName",
            Change::DeletePods(_) => "DeletePods",
            Change::Preempt { .. } => "Preempt",
            Change::CreateClaim { .. } => "CreateClaim",
            Change::ClaimRequest { .. } => "ChangeClaimRequest",
            Change::NoDeviceOfClass(_) => "NoDeviceOfClass",
            Change::ExistingAntiAffinity { .. } => "ExistingPodsAntiAffinity",
            Change::PreferTerm { .. } => "PreferAffinityTerm",
        }
    }
}

/// The `fixes` key of an explanation: each fix with the change, the command and the engine's
/// answer after it (docs/explain-json.md).
pub fn to_json(fixes: &[Verified]) -> serde_json::Value {
    use serde_json::json;
    serde_json::Value::Array(
        fixes
            .iter()
            .map(|v| {
                let after = match &v.outcome {
                    Outcome::Binds(nodes) => json!({"result": "Binds", "nodes": nodes}),
                    Outcome::NotEnough(verdict) => json!({"result": "NotEnough", "verdict": verdict}),
                    Outcome::Failed(error) => json!({"result": "Failed", "error": error}),
                    Outcome::Unchecked(why) => json!({"result": "Unchecked", "why": why}),
                };
                json!({
                    "reason": v.fix.reason,
                    "kind": v.fix.change.kind(),
                    "change": v.fix.text,
                    "command": v.fix.command,
                    "note": v.fix.note,
                    "after": after,
                })
            })
            .collect(),
    )
}

/// The fixes as the text report ends with them ("" when there are none).
pub fn render(fixes: &[Verified]) -> String {
    use std::fmt::Write;
    if fixes.is_empty() {
        return String::new();
    }
    let mut s = String::from("To fix (each change made on a copy and checked by running the engine again):\n");
    for v in fixes {
        let _ = writeln!(s, "  {}", v.line());
        if !v.fix.reason.is_empty() {
            let _ = writeln!(s, "    for: {}", v.fix.reason);
        }
        if let Some(c) = &v.fix.command {
            let _ = writeln!(s, "    $ {c}");
        }
        if let Some(n) = &v.fix.note {
            let _ = writeln!(s, "    note: {n}");
        }
    }
    s
}

/// Makes each fix on a copy of the cluster and runs the engine on the pod again. The answer
/// ranks the fixes the engine says bind the pod before the others, each part smallest change
/// first ([`rank`]).
pub fn verify(
    cluster: &Cluster,
    profiles: &[Framework],
    features: &Features,
    profile: Option<&str>,
    pod: &ObjectKey,
    fixes: Vec<Fix>,
) -> Vec<Verified> {
    let mut out = fixes
        .into_iter()
        .map(|fix| {
            let unchecked = match &fix.change {
                Change::CreateClaim { .. } => Some("its device requests are yours to say"),
                Change::NoDeviceOfClass(_) => Some("no change of this cluster to make"),
                _ => None,
            };
            if let Some(why) = unchecked {
                return Verified {
                    fix,
                    outcome: Outcome::Unchecked(why.into()),
                };
            }
            let outcome = match apply(cluster, pod, &fix.change) {
                Err(e) => Outcome::Failed(e),
                Ok(changed) => {
                    let snap = Snapshot::new(Arc::new(changed), features);
                    match engine::explain_as(&snap, profiles, pod, profile) {
                        Err(e) => Outcome::Failed(e.to_string()),
                        Ok(ex)
                            if ex.schedulable()
                                && ex
                                    .binding_cycle
                                    .as_ref()
                                    .is_none_or(|b| b.outcome == engine::trace::BindingOutcome::Bound) =>
                        {
                            Outcome::Binds(ex.selected.clone())
                        }
                        Ok(ex) => Outcome::NotEnough(ex.verdict()),
                    }
                }
            };
            Verified { fix, outcome }
        })
        .collect::<Vec<_>>();
    out.sort_by_key(|v| (!v.works(), rank(&v.fix.change)));
    out
}

#[cfg(test)]
mod tests;
