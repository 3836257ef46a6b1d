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

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use super::format;
use super::usage::{self as analysis, NodeUsage};
use crate::engine::framework::status::Code;
use crate::engine::trace::{DraNode, DraRequestOnNode, Explanation, FilterDetail, NodeFilter};
use crate::engine::{self, Features, Framework, Snapshot};
use crate::model::validation;
use crate::model::{Cluster, Node, ObjectKey, Pod, Taint};

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

/// "The pod will fit by preempting N victims on X": PostFilter nominated a node.
fn preemption_fix(pod: &Pod, ex: &Explanation) -> Option<Fix> {
    let pf = ex.post_filter.as_ref()?;
    let node = pf.nominated_node.clone()?;
    let n = pf.victims.len();
    let mut names: Vec<String> = pf.victims.iter().take(3).map(ToString::to_string).collect();
    if n > 3 {
        names.push(format!("{} more", n - 3));
    }
    // upstream's words for it: the PostFilter part of the condition message
    let reason = ex
        .message
        .as_deref()
        .and_then(|m| m.split_once(". preemption: "))
        .map_or_else(
            || format!("{} nominates {node}", pf.plugin),
            |(_, p)| format!("preemption: {p}"),
        );
    let mut note = format!(
        "nothing to change: kube-scheduler deletes the victims itself and binds the pod there once they are gone (`kschedtui preempt -n {} {}` does it now); the changes below avoid the evictions",
        pod.key.namespace, pod.key.name
    );
    if let Some(c) = pf.candidates.iter().find(|c| c.selected)
        && !c.violated_pdbs.is_empty()
    {
        let p: Vec<String> = c.violated_pdbs.iter().map(ToString::to_string).collect();
        note.push_str(&format!("; the evictions violate PDB {}", p.join(", ")));
    }
    if pf.random_tie.len() > 1 {
        note.push_str(&format!(
            "; upstream picks among {} at random (they tie on every criterion)",
            pf.random_tie.join(", ")
        ));
    }
    Some(Fix {
        reason,
        text: format!(
            "the pod will fit by preempting {n} victim{} on {node} ({})",
            if n == 1 { "" } else { "s" },
            names.join(", ")
        ),
        command: None,
        note: Some(note),
        change: Change::Preempt {
            node,
            victims: pf.victims.clone(),
        },
    })
}

/// The claims the pod names that do not exist, when DynamicResources holds or rejects the pod
/// for it: one "create it" each.
fn missing_claims(cluster: &Cluster, pod: &Pod, ex: &Explanation) -> Vec<Fix> {
    let blocked = ex
        .pre_enqueue
        .iter()
        .chain(ex.pre_filter.iter())
        .find(|s| s.plugin == "DynamicResources" && !matches!(s.code, Code::Success | Code::Skip));
    let Some(status) = blocked else {
        return Vec::new();
    };
    let ns = &pod.key.namespace;
    pod.spec()
        .resource_claims
        .iter()
        .flatten()
        .filter_map(|pc| {
            let name = pc.resource_claim_name.as_ref()?;
            let claim = ObjectKey::new(ns.clone(), name.clone());
            if cluster.resource_claims.contains_key(&claim) {
                return None;
            }
            Some(Fix {
                reason: status.reasons.join(", "),
                text: format!(
                    "create ResourceClaim {claim} (the pod's claim {} names it)",
                    pc.name
                ),
                command: None,
                note: Some(format!(
                    "its device requests are yours to say: a ResourceClaim named {name} in namespace {ns} (kubectl create -f), or a resourceClaimTemplateName on the pod's claim {} instead",
                    pc.name
                )),
                change: Change::CreateClaim {
                    claim,
                    pod_claim: pc.name.clone(),
                },
            })
        })
        .collect()
}

/// Devices as `a, b (ResourceSlice s)`, grouped by slice, the first four named.
fn devices_phrase(devices: &[(String, String)]) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for (slice, d) in devices.iter().take(4) {
        match groups.iter_mut().find(|(s, _)| s == slice) {
            Some((_, v)) => v.push(d),
            None => groups.push((slice.clone(), vec![d])),
        }
    }
    let mut s = groups
        .iter()
        .map(|(slice, d)| format!("{} (ResourceSlice {slice})", d.join(", ")))
        .collect::<Vec<_>>()
        .join(", ");
    if devices.len() > 4 {
        s.push_str(&format!(" and {} more", devices.len() - 4));
    }
    s
}

/// DRA claims that cannot be allocated on the nodes failing only DynamicResources: for each
/// request short of devices, the devices a node would give if the request's selectors went
/// (none match them but some of the class do) or if it asked for fewer (the node's usable
/// ones); or, when no node checked has a device of the request's DeviceClass, that.
fn dra_fixes(pod: &Pod, ex: &Explanation) -> Vec<Fix> {
    let Some(dra) = &ex.dra else { return Vec::new() };
    let failing = only(ex, "DynamicResources");
    let mut out = Vec::new();
    let mut labels: Vec<&str> = Vec::new();
    for n in dra.nodes.iter().filter(|n| failing.iter().any(|f| f.node == n.node)) {
        for r in &n.requests {
            if !labels.contains(&r.request.as_str()) {
                labels.push(&r.request);
            }
        }
    }
    let note = |claim: &ObjectKey| {
        format!(
            "a ResourceClaim's spec cannot change once created: create {claim} again with the change (for a claim made from a ResourceClaimTemplate, change the template and recreate the pod)"
        )
    };
    let mut no_class: Vec<String> = Vec::new();
    for label in labels {
        // claim/request only: a firstAvailable subrequest is left as it is
        let Some((claim_name, request)) = label.split_once('/').filter(|(_, r)| !r.contains('/')) else {
            continue;
        };
        let claim = ObjectKey::new(pod.key.namespace.clone(), claim_name);
        let on = |n: &'_ DraNode| n.requests.iter().find(|r| r.request == label).cloned();
        let everywhere: Vec<(&str, DraRequestOnNode)> = dra
            .nodes
            .iter()
            .filter_map(|n| Some((n.node.as_str(), on(n)?)))
            .collect();
        let Some(class) = everywhere.first().map(|(_, r)| r.class.clone()) else {
            continue;
        };
        if everywhere.iter().any(|(_, r)| r.error.is_some()) {
            continue;
        }
        if everywhere.iter().all(|(_, r)| r.class_match == 0) {
            if !no_class.contains(&class) {
                let devices: usize = everywhere.iter().map(|(_, r)| r.devices).sum();
                out.push(Fix {
                    reason: DRA_CANNOT_ALLOCATE.into(),
                    text: format!(
                        "no device of DeviceClass {class} exists ({devices} device(s) on the {} node(s) checked, none of the class; claim {claim} request {request})",
                        everywhere.len()
                    ),
                    command: None,
                    note: Some(format!(
                        "a node with such devices and their driver's ResourceSlices, or a request for another DeviceClass (kubectl get deviceclass {class} -o yaml shows its selectors)"
                    )),
                    change: Change::NoDeviceOfClass(class.clone()),
                });
                no_class.push(class.clone());
            }
            continue;
        }
        let short: Vec<(&str, &DraRequestOnNode)> = everywhere
            .iter()
            .filter(|(n, _)| failing.iter().any(|f| f.node == *n))
            .filter(|(_, r)| r.wanted.parse::<usize>().is_ok_and(|w| r.usable < w))
            .map(|(n, r)| (*n, r))
            .collect();
        // the selectors leave out every device of the class on a node that has some
        if let Some((node, r)) = short.iter().find(|(_, r)| r.selector_match == 0 && r.class_match > 0) {
            out.push(Fix {
                reason: DRA_CANNOT_ALLOCATE.into(),
                text: format!(
                    "drop the selectors of request {request} of claim {claim}: {} of class {class} on {node} would match",
                    devices_phrase(&r.unselected)
                ),
                command: None,
                note: Some(note(&claim)),
                change: Change::ClaimRequest {
                    claim: claim.clone(),
                    request: request.to_string(),
                    drop_selectors: true,
                    count: None,
                },
            });
            continue;
        }
        // fewer devices: the node with the most usable ones
        if let Some((node, r)) = short
            .iter()
            .filter(|(_, r)| r.usable > 0)
            .max_by(|a, b| a.1.usable.cmp(&b.1.usable).then(b.0.cmp(a.0)))
        {
            let to = i64::try_from(r.usable).unwrap_or(i64::MAX);
            out.push(Fix {
                reason: DRA_CANNOT_ALLOCATE.into(),
                text: format!(
                    "ask for {to} device{} instead of {} in request {request} of claim {claim}: {} usable on {node}",
                    if to == 1 { "" } else { "s" },
                    r.wanted,
                    devices_phrase(&r.usable_devices)
                ),
                command: None,
                note: Some(note(&claim)),
                change: Change::ClaimRequest {
                    claim: claim.clone(),
                    request: request.to_string(),
                    drop_selectors: false,
                    count: Some(to),
                },
            });
        }
    }
    out
}

/// DynamicResources' Filter reason.
const DRA_CANNOT_ALLOCATE: &str = "cannot allocate all claims";

/// The existing pods whose required anti-affinity matches the pod, read from the rejecting
/// plugin's detail lines on a node: (pod, the node it runs on).
fn anti_affinity_holders(f: &NodeFilter) -> Vec<(ObjectKey, String)> {
    let mut out = Vec::new();
    for line in f.detail.get() {
        let Some(rest) = line.strip_prefix("existing pods in ") else {
            continue;
        };
        let Some((_, rest)) = rest.split_once(" whose required anti-affinity matches this pod: ") else {
            continue;
        };
        let names = rest.rsplit_once(" (").map_or(rest, |(n, _)| n);
        for item in names.split(", ") {
            if let Some((pod, node)) = item.strip_suffix(')').and_then(|i| i.split_once(" (node ")) {
                let key = ObjectKey::parse(pod, "");
                if !out.iter().any(|(k, _)| *k == key) {
                    out.push((key, node.to_string()));
                }
            }
        }
    }
    out
}

/// Existing pods' required anti-affinity: on the node failing only InterPodAffinity for it
/// with the fewest such pods, name them and where they run; checked with them gone.
fn existing_anti_affinity_fix(cluster: &Cluster, ex: &Explanation) -> Option<Fix> {
    let (f, holders) = only(ex, "InterPodAffinity")
        .into_iter()
        .filter(|f| reason_of(f, "InterPodAffinity").contains("existing pods anti-affinity"))
        .map(|f| (f, anti_affinity_holders(f)))
        .filter(|(_, h)| !h.is_empty() && h.iter().all(|(k, _)| cluster.pod(k).is_some()))
        .min_by_key(|(_, h)| h.len())?;
    let names: Vec<String> = holders.iter().map(|(k, n)| format!("{k} on {n}")).collect();
    Some(Fix {
        reason: reason_of(f, "InterPodAffinity"),
        text: format!(
            "the required anti-affinity of {} keeps the pod off {}",
            names.join(", "),
            f.node
        ),
        command: None,
        note: Some("their terms match this pod's labels, on purpose or not: change this pod's labels, or make their owners' term preferred; the check moves them off (removes them from the copy)".into()),
        change: Change::ExistingAntiAffinity {
            node: f.node.to_string(),
            pods: holders.into_iter().map(|(k, _)| k).collect(),
        },
    })
}

/// Labels the kubelet or the cloud provider sets from what the node is.
const DESCRIPTIVE: &[&str] = &[
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "node.kubernetes.io/instance-type",
    "beta.kubernetes.io/instance-type",
    "kubernetes.io/arch",
    "kubernetes.io/os",
];

/// Labels that make `node` match the pod's nodeSelector and the first required node affinity
/// term made only of `In` expressions (None when something else is needed).
fn labels_for(pod: &Pod, node: &Node) -> Option<Vec<(String, String)>> {
    let spec = pod.spec();
    let mut want: BTreeMap<String, String> = spec.node_selector.clone().unwrap_or_default();
    if let Some(terms) = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref())
        .map(|r| &r.node_selector_terms)
        && let Some(term) = terms.first()
    {
        if term.match_fields.as_ref().is_some_and(|f| !f.is_empty()) {
            return None;
        }
        for e in term.match_expressions.iter().flatten() {
            let values = e.values.clone().unwrap_or_default();
            match e.operator.as_str() {
                "In" => {
                    let have = node.labels.get(&e.key);
                    if !have.is_some_and(|h| values.iter().any(|v| v == h)) {
                        want.insert(e.key.clone(), values.first()?.clone());
                    }
                }
                _ => {
                    // NotIn, Exists, DoesNotExist, Gt, Lt: not made true by one label here
                    return None;
                }
            }
        }
    }
    let missing: Vec<(String, String)> = want
        .into_iter()
        .filter(|(k, v)| node.labels.get(k) != Some(v))
        .collect();
    // the pod asks for one node by name: another node is no answer
    if missing.iter().any(|(k, _)| k == "kubernetes.io/hostname") {
        return None;
    }
    (!missing.is_empty()).then_some(missing)
}

/// Lower the pod's requests to fit the node that needs least, and a node like it with more.
fn resource_fixes(
    cluster: &Cluster,
    usage: &BTreeMap<String, NodeUsage>,
    features: &Features,
    pod: &Pod,
    ex: &Explanation,
    out: &mut Vec<Fix>,
) {
    let nominated = analysis::nominated_usage(cluster, pod, features);
    let mut best: Option<(i64, &NodeFilter, Vec<analysis::Missing>)> = None;
    for f in only(ex, "NodeResourcesFit") {
        let Some(node) = cluster.node(&f.node) else { continue };
        let m = analysis::missing(
            pod,
            node,
            usage.get(f.node.as_str()),
            nominated.get(f.node.as_str()),
            features,
        );
        if m.is_empty() {
            continue;
        }
        let worst = m.iter().map(|x| x.per_mille).max().unwrap_or(0);
        if best.as_ref().is_none_or(|(w, _, _)| worst < *w) {
            best = Some((worst, f, m));
        }
    }
    let Some((_, f, missing)) = best else { return };
    let reason = reason_of(f, "NodeResourcesFit");
    let requests = features.requests_of(pod);
    let lower: Vec<(String, i64, i64)> = missing
        .iter()
        .filter(|m| m.resource != "pods")
        .map(|m| {
            let have = requests.list.get(&m.resource).copied().unwrap_or(0);
            (m.resource.clone(), have - m.amount, m.amount)
        })
        .collect();
    if lower.len() == missing.len() && lower.iter().all(|(_, v, _)| *v > 0) {
        let text: Vec<String> = lower
            .iter()
            .map(|(r, v, _)| format!("{r} to ≤ {}", quantity(r, *v)))
            .collect();
        let container = pod
            .spec()
            .containers
            .first()
            .map(|c| c.name.clone())
            .unwrap_or_default();
        let reqs: Vec<String> = lower
            .iter()
            .map(|(r, v, _)| format!("{r}={}", quantity(r, *v)))
            .collect();
        out.push(Fix {
            reason: reason.clone(),
            text: format!("lower {} to fit {}", text.join(", "), f.node),
            command: owner(pod).map(|(kind, o)| {
                format!(
                    "kubectl set resources {kind} {o} -n {} -c {container} --requests={}",
                    pod.key.namespace,
                    reqs.join(",")
                )
            }),
            note: Some(immutable(pod, "requests")),
            change: Change::LowerRequests(f.node.to_string(), lower),
        });
    }
    if let Some(fresh) = fresh_node_fix(cluster, features, pod, f, &reason) {
        out.push(fresh);
    }
    let more: Vec<(String, i64)> = missing.iter().map(|m| (m.resource.clone(), m.amount)).collect();
    let text: Vec<String> = more
        .iter()
        .map(|(r, v)| {
            if r == "pods" {
                format!("{v} more pod slot{}", if *v == 1 { "" } else { "s" })
            } else {
                format!("{} more {r}", quantity(r, *v))
            }
        })
        .collect();
    out.push(Fix {
        reason,
        text: format!("a node like {} with {} would fit", f.node, text.join(" and ")),
        command: None,
        note: Some("capacity: a bigger instance type in the node pool, or fewer pods on the node".into()),
        change: Change::BiggerNode(f.node.to_string(), more),
    });
}

/// The DaemonSet pods bound to `node` (a fresh node of its pool runs them too).
fn daemon_pods<'a>(cluster: &'a Cluster, node: &str) -> impl Iterator<Item = &'a Arc<Pod>> {
    cluster.pods.iter().filter(move |p| {
        p.node_name.as_deref() == Some(node)
            && !p.is_finished()
            && p.obj
                .metadata
                .owner_references
                .iter()
                .flatten()
                .any(|r| r.kind == "DaemonSet" && r.controller == Some(true))
    })
}

/// Whether the pod asks for one node by name (its hostname label or `metadata.name`): a new
/// node is no answer then.
fn pinned_to_a_node(pod: &Pod) -> bool {
    let Some(spec) = pod.obj.spec.as_ref() else {
        return false;
    };
    if spec
        .node_selector
        .as_ref()
        .is_some_and(|s| s.contains_key("kubernetes.io/hostname"))
    {
        return true;
    }
    let terms = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref());
    terms.is_some_and(|r| {
        !r.node_selector_terms.is_empty()
            && r.node_selector_terms.iter().all(|t| {
                t.match_fields.iter().flatten().any(|m| m.key == "metadata.name")
                    || t.match_expressions
                        .iter()
                        .flatten()
                        .any(|m| m.key == "kubernetes.io/hostname" && m.operator == "In")
            })
    })
}

/// A fresh node like the one the pod needs least on, when the pod and that node's DaemonSet
/// pods fit its allocatable, the pod is not pinned to a node by name, and the node runs pods
/// other than its DaemonSet's (else a fresh one is the same node): named `<node>-fresh` (a
/// number added while taken).
fn fresh_node_fix(cluster: &Cluster, features: &Features, pod: &Pod, f: &NodeFilter, reason: &str) -> Option<Fix> {
    let like = f.node.as_str();
    let node = cluster.node(like)?;
    if pinned_to_a_node(pod) {
        return None;
    }
    let mut need = features.requests_of(pod).resource.clone();
    let mut daemons: usize = 0;
    for d in daemon_pods(cluster, like) {
        daemons += 1;
        let r = &features.requests_of(d).resource;
        need.milli_cpu += r.milli_cpu;
        need.memory += r.memory;
        need.ephemeral_storage += r.ephemeral_storage;
        for (k, v) in &r.scalar {
            *need.scalar.entry(k.clone()).or_default() += v;
        }
    }
    let have = &node.allocatable;
    let fits = need.milli_cpu <= have.milli_cpu
        && need.memory <= have.memory
        && need.ephemeral_storage <= have.ephemeral_storage
        && i64::try_from(daemons).unwrap_or(i64::MAX) < have.allowed_pod_number
        && need
            .scalar
            .iter()
            .all(|(k, v)| *v <= have.scalar.get(k).copied().unwrap_or(0));
    if !fits {
        return None;
    }
    let others = cluster
        .pods
        .iter()
        .filter(|p| p.node_name.as_deref() == Some(like) && !p.is_finished())
        .count()
        - daemons;
    if others == 0 {
        return None;
    }
    let name = std::iter::once(format!("{like}-fresh"))
        .chain((2..).map(|i| format!("{like}-fresh-{i}")))
        .find(|n| cluster.node(n).is_none())?;
    Some(Fix {
        reason: reason.to_string(),
        text: match daemons {
            0 => format!("a fresh node like {like} (its labels, taints and allocatable) would fit"),
            n => format!(
                "a fresh node like {like} (its labels, taints and allocatable, with its {n} DaemonSet pod{}) would fit",
                if n == 1 { "" } else { "s" }
            ),
        },
        command: None,
        note: Some(format!(
            "capacity: scale the node pool of {like} up by one node (as the cluster autoscaler would)"
        )),
        change: Change::FreshNode {
            like: like.to_string(),
            name,
        },
    })
}

/// Free the host port on the first node that fails only NodePorts: the bound pods holding it.
fn ports_fix(cluster: &Cluster, pod: &Pod, ex: &Explanation) -> Option<Fix> {
    let f = only(ex, "NodePorts").into_iter().next()?;
    let want: Vec<&crate::model::HostPort> = pod.host_ports().iter().chain(pod.sidecar_host_ports()).collect();
    let mut holders = Vec::new();
    let mut ports = Vec::new();
    for p in cluster
        .pods
        .iter()
        .filter(|p| p.node_name.as_deref() == Some(&f.node) && !p.is_finished())
    {
        let used: Vec<crate::model::HostPort> = p.host_ports().iter().chain(p.sidecar_host_ports()).cloned().collect();
        let clash: Vec<String> = want
            .iter()
            .filter(|w| crate::engine::plugins::node_ports::conflicts(&used, w))
            .map(|w| format!("{}/{}", w.protocol, w.port))
            .collect();
        if !clash.is_empty() {
            holders.push(p.key.clone());
            ports.extend(clash);
        }
    }
    if holders.is_empty() {
        return None;
    }
    ports.sort();
    ports.dedup();
    let names: Vec<String> = holders.iter().map(ToString::to_string).collect();
    let commands: Vec<String> = holders
        .iter()
        .map(|k| format!("kubectl delete pod {} -n {}", k.name, k.namespace))
        .collect();
    Some(Fix {
        reason: reason_of(f, "NodePorts"),
        text: format!(
            "free host port {} on {}: delete {} (holds it)",
            ports.join(", "),
            f.node,
            names.join(", ")
        ),
        command: Some(commands.join(" && ")),
        note: Some("the pod holding the port is usually an older copy of this one (a DaemonSet rollout): its owner recreates it unless it is gone from the owner too".into()),
        change: Change::DeletePods(holders),
    })
}

/// The pod's own required (anti-)affinity terms, each made preferred, when some node fails only
/// InterPodAffinity because of them (the existing pods' anti-affinity is theirs to change).
fn affinity_fixes(pod: &Pod, ex: &Explanation) -> Vec<Fix> {
    let nodes = only(ex, "InterPodAffinity");
    let reasons: Vec<String> = nodes.iter().map(|f| reason_of(f, "InterPodAffinity")).collect();
    let aff = pod.spec().affinity.as_ref();
    let mut out = Vec::new();
    for (anti, marker) in [
        (true, "didn't match pod anti-affinity rules"),
        (false, "didn't match pod affinity rules"),
    ] {
        let Some(reason) = reasons.iter().find(|r| r.contains(marker)) else {
            continue;
        };
        let terms = if anti {
            aff.and_then(|a| a.pod_anti_affinity.as_ref())
                .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref())
        } else {
            aff.and_then(|a| a.pod_affinity.as_ref())
                .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref())
        };
        for (index, t) in terms.into_iter().flatten().enumerate().take(4) {
            let selector = t
                .label_selector
                .as_ref()
                .and_then(|s| s.match_labels.as_ref())
                .map(|m| m.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","))
                .filter(|s| !s.is_empty())
                .map(|s| format!(", {s}"))
                .unwrap_or_default();
            let kind = if anti { "anti-affinity" } else { "affinity" };
            out.push(Fix {
                reason: reason.clone(),
                text: format!(
                    "make the pod's required {kind} term ({}{selector}) preferred",
                    t.topology_key
                ),
                command: None,
                note: Some(immutable(pod, "affinity")),
                change: Change::PreferTerm { anti, index },
            });
        }
    }
    out
}

/// Relax the first failing DoNotSchedule spread constraint to the smallest skew a node needs.
fn spread_fix(pod: &Pod, ex: &Explanation) -> Option<Fix> {
    let nodes = only(ex, "PodTopologySpread");
    let mut best: Option<(i64, String, &str)> = None;
    for f in &nodes {
        for d in &f.details {
            let FilterDetail::TopologySpread(checks) = d;
            if let Some(c) = checks.iter().find(|c| !c.satisfied)
                && let Some(skew) = c.skew
                && best.as_ref().is_none_or(|(s, _, _)| skew < *s)
            {
                best = Some((skew, c.topology_key.clone(), &f.node));
            }
        }
    }
    let (skew, key, node) = best?;
    let constraints = pod.spec().topology_spread_constraints.as_ref()?;
    let (i, c) = constraints
        .iter()
        .enumerate()
        .find(|(_, c)| c.topology_key == key && c.when_unsatisfiable == "DoNotSchedule")?;
    let to = i32::try_from(skew).ok()?;
    let reason = nodes
        .iter()
        .find(|f| f.node == node)
        .map(|f| reason_of(f, "PodTopologySpread"))?;
    Some(Fix {
        reason,
        text: format!("relax the spread constraint on {key}: maxSkew {} → {to}", c.max_skew),
        command: owner(pod).map(|(kind, o)| {
            let patch = serde_json::json!([{"op": "replace", "path": format!("/spec/template/spec/topologySpreadConstraints/{i}/maxSkew"), "value": to}]);
            format!("kubectl patch {kind} {o} -n {} --type=json -p '{}'", pod.key.namespace, json(&patch))
        }),
        note: Some(immutable(pod, "topologySpreadConstraints")),
        change: Change::MaxSkew(i, key, to),
    })
}

fn set_request(reqs: &mut Option<BTreeMap<String, K8sQuantity>>, resource: &str, v: i64) {
    reqs.get_or_insert_with(Default::default)
        .insert(resource.to_string(), K8sQuantity(quantity(resource, v)));
}

/// Lowers the pod object's effective request of `resource` by `by`: on the pod-level
/// resources when set, else on the regular containers, largest request first.
fn lower_request(pod: &Pod, obj: &mut core::Pod, resource: &str, by: i64) -> Result<(), String> {
    let spec = obj.spec.get_or_insert_with(Default::default);
    let read = |r: Option<&BTreeMap<String, K8sQuantity>>| -> i64 {
        r.and_then(|m| m.get(resource))
            .and_then(|q| crate::model::quantity::Quantity::parse(&q.0).ok())
            .map(|q| if resource == "cpu" { q.milli_value() } else { q.value() })
            .unwrap_or(0)
    };
    if let Some(res) = spec.resources.as_mut()
        && res.requests.as_ref().is_some_and(|r| r.contains_key(resource))
    {
        let have = read(res.requests.as_ref());
        set_request(&mut res.requests, resource, (have - by).max(0));
        return Ok(());
    }
    let mut left = by;
    let mut order: Vec<(usize, i64)> = spec
        .containers
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let r = c.resources.as_ref();
            let req = read(r.and_then(|r| r.requests.as_ref()));
            (
                i,
                if req > 0 {
                    req
                } else {
                    read(r.and_then(|r| r.limits.as_ref()))
                },
            )
        })
        .collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (i, have) in order {
        if left <= 0 {
            break;
        }
        let take = left.min(have);
        if take <= 0 {
            continue;
        }
        let c = &mut spec.containers[i];
        let res = c.resources.get_or_insert_with(Default::default);
        set_request(&mut res.requests, resource, have - take);
        left -= take;
    }
    if left > 0 {
        return Err(format!(
            "pod {}: its containers request too little {resource} to lower it by {}",
            pod.key,
            quantity(resource, by)
        ));
    }
    Ok(())
}

/// The cluster with the change made.
pub fn apply(cluster: &Cluster, key: &ObjectKey, change: &Change) -> Result<Cluster, String> {
    let pod = cluster
        .pod(key)
        .ok_or_else(|| format!("pod '{key}' is not in the snapshot"))?;
    let node_obj = |n: &str| -> Result<core::Node, String> {
        cluster
            .node(n)
            .map(|x| (*x.obj).clone())
            .ok_or_else(|| format!("node '{n}' is not in the snapshot"))
    };
    match change {
        Change::RemoveGates(_) => {
            let mut obj = pod.obj.clone();
            obj.spec.get_or_insert_with(Default::default).scheduling_gates = None;
            replace_pod(cluster, obj.into_box())
        }
        Change::Tolerate(taints) => {
            let mut obj = pod.obj.clone();
            let tols = obj
                .spec
                .get_or_insert_with(Default::default)
                .tolerations
                .get_or_insert_with(Vec::new);
            for t in taints {
                tols.push(core::Toleration {
                    key: Some(t.key.clone()),
                    operator: Some(if t.value.is_empty() { "Exists" } else { "Equal" }.into()),
                    value: (!t.value.is_empty()).then(|| t.value.clone()),
                    effect: Some(t.effect.clone()),
                    toleration_seconds: None,
                });
            }
            replace_pod(cluster, obj.into_box())
        }
        Change::Uncordon(n) => {
            let mut obj = node_obj(n)?;
            obj.spec.get_or_insert_with(Default::default).unschedulable = None;
            replace_node(cluster, obj)
        }
        Change::LabelNode(n, labels) => {
            let mut obj = node_obj(n)?;
            let l = obj.metadata.labels.get_or_insert_with(Default::default);
            for (k, v) in labels {
                l.insert(k.clone(), v.clone());
            }
            replace_node(cluster, obj)
        }
        Change::LowerRequests(_, to) => {
            let mut obj = pod.obj.clone();
            for (r, _, by) in to {
                lower_request(pod, &mut obj, r, *by)?;
            }
            replace_pod(cluster, obj.into_box())
        }
        Change::FreshNode { like, name } => add_fresh_node(cluster, like, name),
        Change::BiggerNode(n, more) => {
            let node = cluster
                .node(n)
                .ok_or_else(|| format!("node '{n}' is not in the snapshot"))?;
            let mut obj = (*node.obj).clone();
            let status = obj.status.get_or_insert_with(Default::default);
            for (r, by) in more {
                let v = node.allocatable.get(r) + by;
                for list in [&mut status.allocatable, &mut status.capacity] {
                    let m = list.get_or_insert_with(Default::default);
                    let cap = if r == "pods" { v.to_string() } else { quantity(r, v) };
                    m.insert(r.clone(), K8sQuantity(cap));
                }
            }
            replace_node(cluster, obj)
        }
        Change::MaxSkew(i, topology, to) => {
            let mut obj = pod.obj.clone();
            let c = obj
                .spec
                .as_mut()
                .and_then(|s| s.topology_spread_constraints.as_mut())
                .and_then(|c| c.get_mut(*i))
                .filter(|c| c.topology_key == *topology)
                .ok_or_else(|| format!("pod {key}: spec.topologySpreadConstraints[{i}] is not on {topology}"))?;
            c.max_skew = *to;
            replace_pod(cluster, obj.into_box())
        }
        Change::DeletePods(keys) => {
            let mut c = cluster.clone();
            c.pods.retain(|p| !keys.contains(&p.key));
            Ok(c)
        }
        Change::CreateClaim { claim, .. } => {
            Err(format!("ResourceClaim {claim}: its device requests are yours to say"))
        }
        Change::NoDeviceOfClass(class) => Err(format!("DeviceClass {class}: no change to make")),
        Change::ClaimRequest {
            claim,
            request,
            drop_selectors,
            count,
        } => {
            let mut c = cluster.clone();
            let missing = || format!("ResourceClaim {claim} has no request {request}");
            let obj = c
                .resource_claims
                .get_mut(claim)
                .ok_or_else(|| format!("ResourceClaim '{claim}' is not in the snapshot"))?;
            let exactly = obj
                .spec
                .as_mut()
                .and_then(|s| s.devices.as_mut())
                .and_then(|d| d.requests.as_mut())
                .and_then(|r| r.iter_mut().find(|r| r.name == *request))
                .and_then(|r| r.exactly.as_mut())
                .ok_or_else(missing)?;
            if *drop_selectors {
                exactly.selectors = None;
            }
            if let Some(n) = count {
                exactly.count = Some(*n);
                exactly.allocation_mode = Some("ExactCount".into());
            }
            Ok(c)
        }
        Change::ExistingAntiAffinity { pods, .. } => {
            let mut c = cluster.clone();
            c.pods.retain(|p| !pods.contains(&p.key));
            Ok(c)
        }
        Change::Preempt { node, victims } => {
            let mut c = cluster.clone();
            c.pods.retain(|p| !victims.contains(&p.key));
            c.set_nominated_node(key, Some(node)).map_err(|e| e.to_string())?;
            Ok(c)
        }
        Change::PreferTerm { anti, index } => {
            let mut obj = pod.obj.clone();
            let missing = || format!("pod {key}: no required pod (anti-)affinity term {index}");
            let a = obj
                .spec
                .as_mut()
                .and_then(|s| s.affinity.as_mut())
                .ok_or_else(missing)?;
            let (required, preferred) = if *anti {
                let x = a.pod_anti_affinity.as_mut().ok_or_else(missing)?;
                (
                    &mut x.required_during_scheduling_ignored_during_execution,
                    &mut x.preferred_during_scheduling_ignored_during_execution,
                )
            } else {
                let x = a.pod_affinity.as_mut().ok_or_else(missing)?;
                (
                    &mut x.required_during_scheduling_ignored_during_execution,
                    &mut x.preferred_during_scheduling_ignored_during_execution,
                )
            };
            let terms = required.as_mut().filter(|t| *index < t.len()).ok_or_else(missing)?;
            let term = terms.remove(*index);
            preferred
                .get_or_insert_with(Vec::new)
                .push(core::WeightedPodAffinityTerm {
                    pod_affinity_term: term,
                    weight: 100,
                });
            replace_pod(cluster, obj.into_box())
        }
        Change::SchedulerName(s) => {
            let mut obj = pod.obj.clone();
            obj.spec.get_or_insert_with(Default::default).scheduler_name = Some(s.clone());
            replace_pod(cluster, obj.into_box())
        }
    }
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

/// The priority the model would resolve for a pod without spec.priority.
fn priority_resolver(cluster: &Cluster) -> impl FnMut(Option<&str>) -> i32 + '_ {
    let global_default = cluster.global_default_priority().unwrap_or(0);
    move |class| match class {
        Some(name) if !name.is_empty() => cluster
            .priority_classes
            .get(name)
            .map_or(global_default, |pc| pc.value.unwrap_or(0)),
        _ => global_default,
    }
}

pub(crate) fn meta_key(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> ObjectKey {
    ObjectKey::new(
        m.namespace.clone().unwrap_or_default(),
        m.name.clone().unwrap_or_default(),
    )
}

/// Refuses an edit that makes the object one the API server would refuse: the errors the
/// edited object has and the object as it was did not, in the API server's words. (An object
/// loaded that way was a load warning; an edit of another of its fields goes through.)
fn refuse(what: &str, before: &[String], after: Vec<String>) -> Result<(), String> {
    let new: Vec<String> = after.into_iter().filter(|e| !before.contains(e)).collect();
    if new.is_empty() {
        return Ok(());
    }
    Err(format!("{what}: the API server would refuse it: {}", new.join("; ")))
}

/// The cluster with a pod object replaced (rebuilt through the model), for any release.
pub(crate) fn replace_pod(cluster: &Cluster, obj: impl Into<Box<core::Pod>>) -> Result<Cluster, String> {
    replace_pod_as(cluster, obj, validation::Accept::ANY_RELEASE)
}

/// The cluster with a pod object replaced (rebuilt through the model), unless the API server
/// would refuse the pod as changed (with what `accept` allows).
pub(crate) fn replace_pod_as(
    cluster: &Cluster,
    obj: impl Into<Box<core::Pod>>,
    accept: validation::Accept,
) -> Result<Cluster, String> {
    let obj: Box<core::Pod> = obj.into();
    let key = meta_key(&obj.metadata);
    let i = cluster
        .pods
        .binary_search_by(|p| p.key.cmp(&key))
        .map_err(|_| format!("pod '{key}' is not in the snapshot"))?;
    refuse(
        &format!("pod {key}"),
        &validation::pod(&cluster.pods[i].obj, accept),
        validation::pod(&obj, accept),
    )?;
    let pod =
        Pod::from_obj(obj, priority_resolver(cluster)).map_err(|(f, m)| format!("pod {key}: field '{f}': {m}"))?;
    let mut c = cluster.clone();
    c.pods[i] = Arc::new(pod);
    Ok(c)
}

/// The cluster with a node `name` made like `like`: its object with the new name (and
/// hostname label), its CSINode and node-local ResourceSlices copied, and its DaemonSet pods
/// copied onto it (their node affinity naming `like` renamed, as the DaemonSet controller
/// writes it for each node).
fn add_fresh_node(cluster: &Cluster, like: &str, name: &str) -> Result<Cluster, String> {
    let node = cluster
        .node(like)
        .ok_or_else(|| format!("node '{like}' is not in the snapshot"))?;
    let mut obj = (*node.obj).clone();
    obj.metadata.name = Some(name.to_string());
    obj.metadata.uid = None;
    obj.metadata.resource_version = None;
    obj.metadata.creation_timestamp = None;
    if let Some(l) = obj.metadata.labels.as_mut()
        && l.contains_key("kubernetes.io/hostname")
    {
        l.insert("kubernetes.io/hostname".into(), name.to_string());
    }
    if let Some(spec) = obj.spec.as_mut() {
        spec.provider_id = None;
        spec.unschedulable = None;
    }
    let fresh = Node::from_obj(obj).map_err(|(f, m)| format!("node {name}: field '{f}': {m}"))?;
    let mut c = cluster.clone();
    let at = c
        .nodes
        .binary_search_by(|n| n.name.as_str().cmp(name))
        .err()
        .ok_or_else(|| format!("node '{name}' is already in the snapshot"))?;
    c.nodes.insert(at, Arc::new(fresh));
    if let Some(mut csi) = cluster.csi_nodes.get(like).cloned() {
        csi.metadata.name = Some(name.to_string());
        csi.metadata.uid = None;
        c.csi_nodes.insert(name.to_string(), csi);
    }
    for (slice_name, slice) in &cluster.resource_slices {
        if slice.spec.node_name.as_deref() == Some(like) {
            let mut s = slice.clone();
            let new_name = format!("{name}-{slice_name}");
            s.metadata.name = Some(new_name.clone());
            s.metadata.uid = None;
            s.spec.node_name = Some(name.to_string());
            s.spec.pool.name = format!("{name}-{}", s.spec.pool.name);
            c.resource_slices.insert(new_name, s);
        }
    }
    for p in daemon_pods(cluster, like) {
        let mut o = p.obj.clone();
        // named after its DaemonSet and the node, as "<daemonset>-<suffix>" names it
        let ds = o
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|r| r.kind == "DaemonSet")
            .map_or_else(|| p.key.name.to_string(), |r| r.name.clone());
        let pod_name = format!("{ds}-{name}");
        o.metadata.name = Some(pod_name.clone());
        o.metadata.uid = None;
        let spec = o.spec.get_or_insert_with(Default::default);
        spec.node_name = Some(name.to_string());
        let terms = spec
            .affinity
            .as_mut()
            .and_then(|a| a.node_affinity.as_mut())
            .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_mut());
        for t in terms.into_iter().flat_map(|r| r.node_selector_terms.iter_mut()) {
            for m in t.match_fields.iter_mut().flatten() {
                for v in m.values.iter_mut().flatten() {
                    if v == like {
                        *v = name.to_string();
                    }
                }
            }
        }
        let pod = Pod::from_obj(o.into_box(), priority_resolver(cluster))
            .map_err(|(f, m)| format!("pod {}/{pod_name}: field '{f}': {m}", p.key.namespace))?;
        let at = c
            .pods
            .binary_search_by(|q| q.key.cmp(&pod.key))
            .err()
            .ok_or_else(|| format!("pod {} is already in the snapshot", pod.key))?;
        c.pods.insert(at, Arc::new(pod));
    }
    Ok(c)
}

/// The cluster with a node object replaced (rebuilt through the model), unless the API server
/// would refuse the node as changed.
pub(crate) fn replace_node(cluster: &Cluster, obj: core::Node) -> Result<Cluster, String> {
    let name = obj.metadata.name.clone().unwrap_or_default();
    let i = cluster
        .nodes
        .binary_search_by(|n| n.name.as_str().cmp(&name))
        .map_err(|_| format!("node '{name}' is not in the snapshot"))?;
    refuse(
        &format!("node {name}"),
        &cluster.nodes[i].refused,
        validation::node(&obj),
    )?;
    let node = Node::from_obj(obj).map_err(|(f, m)| format!("node {name}: field '{f}': {m}"))?;
    let mut c = cluster.clone();
    c.nodes[i] = Arc::new(node);
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> (Cluster, Features, Vec<Framework>) {
        let c = crate::source::file::load_str("demo.yaml", include_str!("../../fixtures/demo.yaml")).expect("demo");
        let f = Features::new(crate::engine::Release::NEWEST);
        let p = engine::build_profiles(None, &f).expect("profiles");
        (c, f, p)
    }

    fn fixes_of(ns: &str, name: &str) -> Vec<Verified> {
        let (c, f, p) = demo();
        let key = ObjectKey::new(ns, name);
        let snap = Snapshot::new(Arc::new(c.clone()), &f);
        let ex = engine::explain(&snap, &p, &key).expect("explains");
        let usage = analysis::node_usage(&c, &f);
        verify(&c, &p, &f, None, &key, candidates(&c, &usage, &f, &p, &ex))
    }

    fn texts(v: &[Verified]) -> Vec<String> {
        v.iter().map(Verified::line).collect()
    }

    #[test]
    fn gates_fix_removes_them_and_the_pod_then_binds() {
        let v = fixes_of("shop", "checkout-canary");
        assert_eq!(
            texts(&v),
            [
                "remove gate acme.io/canary-approval → would bind (3 nodes tie: pool-general-a1, pool-general-a2, pool-general-c1) ✓"
            ]
        );
        assert_eq!(
            v[0].fix.command.as_deref(),
            Some(
                r#"kubectl patch pod checkout-canary -n shop --type=json -p '[{"op":"remove","path":"/spec/schedulingGates"}]'"#
            )
        );
        assert_eq!(
            v[0].fix.reason,
            "Scheduling is blocked due to non-empty scheduling gates"
        );
    }

    #[test]
    fn taints_and_resources_each_get_a_checked_fix_smallest_change_first() {
        let v = fixes_of("batch", "report-huge");
        assert_eq!(
            texts(&v),
            [
                "lower cpu to ≤ 6800m, memory to ≤ 29498Mi to fit pool-general-a1 → would bind to pool-general-a1 ✓",
                "a node like pool-general-a1 with 5200m more cpu and 19654Mi more memory would fit → would bind to pool-general-a1 ✓",
                "tolerate dra=present:NoSchedule (pool-dra-a1, pool-dra-b1) → would bind to pool-dra-b1 ✓",
            ]
        );
        assert_eq!(
            v[2].fix.command.as_deref(),
            Some(
                r#"kubectl patch pod report-huge -n batch --type=json -p '[{"op":"add","path":"/spec/tolerations","value":[{"key":"dra","operator":"Equal","value":"present","effect":"NoSchedule"}]}]'"#
            )
        );
        assert_eq!(v[0].fix.reason, "Insufficient cpu, Insufficient memory");
        // requests cannot change on a pod: no command for a bare pod, and the note says so
        assert_eq!(v[0].fix.command, None);
        assert_eq!(
            v[0].fix.note.as_deref(),
            Some("requests cannot change on an existing pod: recreate the pod with it")
        );
        // the lowered requests are exactly the shortfall: one millicore more no longer fits
        let (c, f, p) = demo();
        let key = ObjectKey::new("batch", "report-huge");
        let Change::LowerRequests(_, to) = &v[0].fix.change else {
            panic!("{:?}", v[0].fix.change)
        };
        let tighter = Change::LowerRequests(
            "pool-general-a1".into(),
            to.iter()
                .map(|(r, v, by)| {
                    if r == "cpu" {
                        (r.clone(), v + 1, by - 1)
                    } else {
                        (r.clone(), *v, *by)
                    }
                })
                .collect(),
        );
        let fix = Fix {
            change: tighter,
            ..v[0].fix.clone()
        };
        let out = verify(&c, &p, &f, None, &key, vec![fix]);
        assert!(matches!(&out[0].outcome, Outcome::NotEnough(_)), "{:?}", out[0].outcome);
    }

    #[test]
    fn a_change_that_does_not_help_says_not_enough_with_the_new_verdict() {
        let (c, f, p) = demo();
        let key = ObjectKey::new("batch", "report-huge");
        let fix = Fix {
            reason: String::new(),
            text: "uncordon pool-general-c3".into(),
            change: Change::Uncordon("pool-general-c3".into()),
            command: None,
            note: None,
        };
        let out = verify(&c, &p, &f, None, &key, vec![fix]);
        let Outcome::NotEnough(v) = &out[0].outcome else {
            panic!("{:?}", out[0].outcome)
        };
        assert!(v.starts_with("Unschedulable: 0/14 nodes are available:"), "{v}");
        assert!(!out[0].works());
        let bad = Fix {
            reason: String::new(),
            text: "uncordon nosuch".into(),
            change: Change::Uncordon("nosuch".into()),
            command: None,
            note: None,
        };
        let out = verify(&c, &p, &f, None, &key, vec![bad]);
        assert_eq!(
            out[0].line(),
            "uncordon nosuch → could not check: node 'nosuch' is not in the snapshot"
        );
        let skew = Change::MaxSkew(5, "zone".into(), 2);
        assert_eq!(
            apply(&c, &key, &skew).expect_err("no such constraint"),
            "pod batch/report-huge: spec.topologySpreadConstraints[5] is not on zone"
        );
    }

    #[test]
    fn node_affinity_fix_labels_only_what_a_label_can_change() {
        // a zone label says where the node is: the fix is a node there, with no command
        let v = fixes_of("shop", "cache-eu-north");
        assert_eq!(
            texts(&v),
            [
                "a node like pool-general-a1 with topology.kubernetes.io/zone=europe-north1-a would fit → would bind to pool-general-a1 ✓"
            ]
        );
        assert_eq!(v[0].fix.command, None);
        // a pod pinned to one node by hostname gets no "relabel another node", only the resources
        let v = fixes_of("shop", "ledger-audit");
        assert_eq!(
            texts(&v),
            [
                "lower cpu to ≤ 1800m to fit pool-general-c1 → would bind to pool-general-c1 ✓",
                "a node like pool-general-c1 with 200m more cpu would fit → would bind to pool-general-c1 ✓",
            ]
        );
    }

    /// A fresh node of the pool: the node's object under a new name and hostname, its
    /// DaemonSet pods (kube-proxy) copied onto it, its other pods not; the pod then binds
    /// there. A pod pinned to a node by hostname gets no fresh node.
    #[test]
    fn a_fresh_node_of_the_pool_carries_its_daemonset_pods_only() {
        let (c, f, p) = demo();
        let key = ObjectKey::new("shop", "payments-api");
        let change = Change::FreshNode {
            like: "pool-general-a1".into(),
            name: "pool-general-a1-fresh".into(),
        };
        let changed = apply(&c, &key, &change).expect("applies");
        let n = changed.node("pool-general-a1-fresh").expect("the new node");
        let old = c.node("pool-general-a1").expect("node");
        assert_eq!(n.allocatable, old.allocatable);
        assert_eq!(n.taints, old.taints);
        assert_eq!(
            n.labels.get("kubernetes.io/hostname").map(String::as_str),
            Some("pool-general-a1-fresh")
        );
        let on_it: Vec<String> = changed
            .pods
            .iter()
            .filter(|q| q.node_name.as_deref() == Some("pool-general-a1-fresh"))
            .map(|q| q.key.to_string())
            .collect();
        assert_eq!(on_it, ["kube-system/kube-proxy-pool-general-a1-fresh"]);
        assert_eq!(changed.nodes.len(), c.nodes.len() + 1);
        let snap = Snapshot::new(Arc::new(changed), &f);
        let ex = engine::explain(&snap, &p, &key).expect("explains");
        assert!(ex.schedulable());
        assert!(
            ex.filter
                .iter()
                .any(|x| x.node == "pool-general-a1-fresh" && x.feasible)
        );
        // ledger-audit asks for pool-general-c1 by hostname: no fresh node for it
        assert!(
            fixes_of("shop", "ledger-audit")
                .iter()
                .all(|v| !matches!(v.fix.change, Change::FreshNode { .. }))
        );
    }

    #[test]
    fn preemption_that_places_the_pod_comes_first_then_the_smallest_change() {
        let v = fixes_of("shop", "payments-api");
        assert_eq!(
            texts(&v),
            [
                "the pod will fit by preempting 1 victim on pool-general-a3 (batch/etl-nightly-0) → would bind to pool-general-a3 ✓",
                "lower cpu to ≤ 6800m to fit pool-general-a1 → would bind to pool-general-a1 ✓",
                "uncordon pool-general-c3 → would bind to pool-general-c3 ✓",
                "a fresh node like pool-general-a1 (its labels, taints and allocatable, with its 1 DaemonSet pod) would fit → would bind to pool-general-a1-fresh ✓",
                "a node like pool-general-a1 with 200m more cpu would fit → would bind to pool-general-a1 ✓",
                "tolerate dra=present:NoSchedule (pool-dra-a1, pool-dra-b1) → would bind to pool-dra-b1 ✓",
            ]
        );
        let kinds: Vec<&str> = v.iter().map(|f| f.fix.change.kind()).collect();
        assert_eq!(
            kinds,
            [
                "Preempt",
                "LowerRequests",
                "Uncordon",
                "FreshNode",
                "BiggerNode",
                "Tolerate"
            ]
        );
        assert_eq!(
            v[0].fix.reason,
            "preemption: found a potential placement for pod on node pool-general-a3, preempting 1 victims"
        );
        assert_eq!(v[0].fix.command, None);
        assert_eq!(
            v[0].fix.note.as_deref(),
            Some(
                "nothing to change: kube-scheduler deletes the victims itself and binds the pod there once they are gone (`kschedtui preempt -n shop payments-api` does it now); the changes below avoid the evictions; upstream picks among pool-general-a3, pool-general-b3, pool-general-c2 at random (they tie on every criterion)"
            )
        );
        // made on the copy: the victim gone, the pod nominated to the node
        let (c, _, _) = demo();
        let key = ObjectKey::new("shop", "payments-api");
        let changed = apply(&c, &key, &v[0].fix.change).expect("applies");
        assert!(changed.pod(&ObjectKey::new("batch", "etl-nightly-0")).is_none());
        assert_eq!(
            changed.pod(&key).expect("pod").nominated_node_name(),
            Some("pool-general-a3")
        );
        assert_eq!(v[2].fix.command.as_deref(), Some("kubectl uncordon pool-general-c3"));
        // no preemption fix for a pod preemption does not help
        assert!(
            fixes_of("batch", "report-huge")
                .iter()
                .all(|f| !matches!(f.fix.change, Change::Preempt { .. }))
        );
    }

    #[test]
    fn every_kind_of_change_has_its_rank_and_working_fixes_come_first() {
        let t = || Taint {
            key: "k".into(),
            value: String::new(),
            effect: "NoSchedule".into(),
        };
        let order = [
            Change::RemoveGates(vec!["g".into()]),
            Change::SchedulerName("s".into()),
            Change::Preempt {
                node: "n".into(),
                victims: Vec::new(),
            },
            Change::LowerRequests("n".into(), Vec::new()),
            Change::Uncordon("n".into()),
            Change::FreshNode {
                like: "n".into(),
                name: "n-fresh".into(),
            },
            Change::BiggerNode("n".into(), Vec::new()),
            Change::MaxSkew(0, "zone".into(), 2),
            Change::DeletePods(Vec::new()),
            Change::PreferTerm { anti: true, index: 0 },
            Change::Tolerate(vec![t()]),
            Change::LabelNode("n".into(), Vec::new()),
        ];
        let ranks: Vec<u8> = order.iter().map(rank).collect();
        assert_eq!(ranks, [0, 0, 1, 2, 3, 4, 4, 5, 6, 7, 8, 9]);
        // candidates come ranked: a taint fix found first in the pipeline goes last
        let (c, f, p) = demo();
        let key = ObjectKey::new("shop", "payments-api");
        let snap = Snapshot::new(Arc::new(c.clone()), &f);
        let ex = engine::explain(&snap, &p, &key).expect("explains");
        let usage = analysis::node_usage(&c, &f);
        let kinds: Vec<&str> = candidates(&c, &usage, &f, &p, &ex)
            .iter()
            .map(|x| x.change.kind())
            .collect();
        assert_eq!(
            kinds,
            [
                "Preempt",
                "LowerRequests",
                "Uncordon",
                "FreshNode",
                "BiggerNode",
                "Tolerate"
            ]
        );
        // a change the engine says does not bind goes after the ones that do, whatever its rank
        let fix = |text: &str, change: Change| Fix {
            reason: String::new(),
            text: text.into(),
            change,
            command: None,
            note: None,
        };
        let out = verify(
            &c,
            &p,
            &f,
            None,
            &key,
            vec![
                fix("uncordon pool-general-c3", Change::Uncordon("pool-general-c3".into())),
                fix(
                    "tolerate",
                    Change::Tolerate(vec![Taint {
                        key: "dra".into(),
                        value: "present".into(),
                        effect: "NoSchedule".into(),
                    }]),
                ),
                fix("uncordon pool-general-a1", Change::Uncordon("pool-general-a1".into())),
            ],
        );
        let lines: Vec<&str> = out.iter().map(|v| v.fix.text.as_str()).collect();
        assert_eq!(
            lines,
            ["uncordon pool-general-c3", "tolerate", "uncordon pool-general-a1"]
        );
        assert!(out[1].works() && !out[2].works());
    }

    #[test]
    fn uncordon_spread_scheduler_name_and_extended_resources() {
        let v = fixes_of("batch", "dedup-job");
        assert_eq!(
            texts(&v),
            [
                "relax the spread constraint on topology.kubernetes.io/zone: maxSkew 1 → 2 → would bind to pool-general-a2 ✓"
            ]
        );
        let v = fixes_of("batch", "spark-driver");
        assert_eq!(
            texts(&v),
            [
                "set schedulerName to default-scheduler (or run the scheduler 'volcano') → would bind (2 nodes tie: pool-general-a1, pool-general-c1) ✓"
            ]
        );
        let v = fixes_of("ml", "train-vit-gpu");
        assert_eq!(
            v[0].line(),
            "lower nvidia.com/gpu to ≤ 2 to fit pool-gpu-b1 → would bind to pool-gpu-b1 ✓"
        );
        // schedulable pods and pods failing several plugins everywhere get none
        assert!(fixes_of("shop", "search-indexer").is_empty());
        assert!(fixes_of("shop", "orders-db-0").is_empty());
    }

    #[test]
    fn host_ports_and_the_pods_own_affinity_terms() {
        let v = fixes_of("monitoring", "node-exporter-new");
        assert_eq!(
            texts(&v),
            [
                "free host port TCP/9100 on pool-general-a2: delete monitoring/node-exporter-agent (holds it) → would bind to pool-general-a2 ✓"
            ]
        );
        assert_eq!(
            v[0].fix.command.as_deref(),
            Some("kubectl delete pod node-exporter-agent -n monitoring")
        );
        assert_eq!(
            texts(&fixes_of("shop", "frontend-spread")),
            [
                "make the pod's required anti-affinity term (topology.kubernetes.io/zone, app=shop-web) preferred → would bind (2 nodes tie: pool-general-b1, pool-general-c1) ✓"
            ]
        );
        let v = fixes_of("shop", "sidecar-cache");
        assert_eq!(
            texts(&v),
            [
                "make the pod's required affinity term (kubernetes.io/hostname, app=redis-primary) preferred → would bind to pool-general-a2 ✓"
            ]
        );
        // the term moved: no required term left, one preferred of weight 100
        let (c, _, _) = demo();
        let key = ObjectKey::new("shop", "sidecar-cache");
        let changed = apply(&c, &key, &v[0].fix.change).expect("applies");
        let pa = changed
            .pod(&key)
            .expect("pod")
            .spec()
            .affinity
            .clone()
            .and_then(|a| a.pod_affinity)
            .expect("affinity");
        assert!(
            pa.required_during_scheduling_ignored_during_execution
                .unwrap_or_default()
                .is_empty()
        );
        assert_eq!(
            pa.preferred_during_scheduling_ignored_during_execution
                .expect("preferred")[0]
                .weight,
            100
        );
    }

    /// A fixture: db-0 on node-a, db-1 and db-2 on node-b, each with a required hostname
    /// anti-affinity against app=web; web-1 (app=web) is pending.
    const ANTI: &str = r#"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: node-b, labels: {kubernetes.io/hostname: node-b}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: db-0, namespace: data, labels: {app: db}}
  spec:
    nodeName: node-a
    containers: [{name: c, image: db}]
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchLabels: {app: web}}
          namespaces: [shop]
          topologyKey: kubernetes.io/hostname
- apiVersion: v1
  kind: Pod
  metadata: {name: db-1, namespace: data, labels: {app: db}}
  spec:
    nodeName: node-b
    containers: [{name: c, image: db}]
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchLabels: {app: web}}
          namespaces: [shop]
          topologyKey: kubernetes.io/hostname
- apiVersion: v1
  kind: Pod
  metadata: {name: db-2, namespace: data, labels: {app: db}}
  spec:
    nodeName: node-b
    containers: [{name: c, image: db}]
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchLabels: {app: web}}
          namespaces: [shop]
          topologyKey: kubernetes.io/hostname
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: shop, labels: {app: web}}
  spec:
    containers: [{name: c, image: web}]
"#;

    fn fixes_in(c: &Cluster, ns: &str, name: &str) -> Vec<Verified> {
        let f = Features::new(crate::engine::Release::NEWEST);
        let p = engine::build_profiles(None, &f).expect("profiles");
        let key = ObjectKey::new(ns, name);
        let snap = Snapshot::new(Arc::new(c.clone()), &f);
        let ex = engine::explain(&snap, &p, &key).expect("explains");
        let usage = analysis::node_usage(c, &f);
        verify(c, &p, &f, None, &key, candidates(c, &usage, &f, &p, &ex))
    }

    #[test]
    fn existing_pods_anti_affinity_names_the_pods_and_their_nodes() {
        let c = crate::source::file::load_str("anti.yaml", ANTI).expect("fixture");
        let v = fixes_in(&c, "shop", "web-1");
        assert_eq!(
            texts(&v),
            ["the required anti-affinity of data/db-0 on node-a keeps the pod off node-a → would bind to node-a ✓"]
        );
        assert_eq!(v[0].fix.change.kind(), "ExistingPodsAntiAffinity");
        assert_eq!(
            v[0].fix.reason,
            "node(s) didn't satisfy existing pods anti-affinity rules"
        );
        assert_eq!(
            v[0].fix.change,
            Change::ExistingAntiAffinity {
                node: "node-a".into(),
                pods: vec![ObjectKey::new("data", "db-0")],
            }
        );
        assert_eq!(v[0].fix.command, None);
    }

    #[test]
    fn dra_hints_name_the_claim_to_create_and_the_devices_that_would_match() {
        // a claim the pod names that does not exist: the one to create, not checked
        let v = fixes_of("ml", "eval-batch");
        assert_eq!(
            texts(&v),
            [
                "create ResourceClaim ml/eval-gpu (the pod's claim gpu names it) → not checked: its device requests are yours to say"
            ]
        );
        assert_eq!(v[0].fix.reason, r#"could not find ResourceClaim "ml/eval-gpu""#);
        assert_eq!(v[0].fix.change.kind(), "CreateClaim");
        assert_eq!(
            to_json(&v)[0]["after"],
            serde_json::json!({"result": "Unchecked", "why": "its device requests are yours to say"})
        );
        // no device matches the selector (model H200): the class's devices that would
        assert_eq!(
            texts(&fixes_of("ml", "llm-serve-h200")),
            [
                "drop the selectors of request gpu of claim ml/llm-serve-h200-gpu: gpu-0, gpu-1, gpu-2, gpu-3 (ResourceSlice pool-dra-a1-gpu.nvidia.com-x7k2p) of class gpu.nvidia.com on pool-dra-a1 would match → would bind to pool-dra-b1 ✓"
            ]
        );
        // too few usable devices: the count a node gives, and which
        let v = fixes_of("ml", "train-3gpu");
        assert_eq!(
            texts(&v),
            [
                "ask for 1 device instead of 3 in request gpus of claim ml/train-3gpu-gpus: gpu-2 (ResourceSlice pool-dra-a1-gpu.nvidia.com-x7k2p) usable on pool-dra-a1 → would bind to pool-dra-b1 ✓"
            ]
        );
        assert_eq!(
            v[0].fix.change,
            Change::ClaimRequest {
                claim: ObjectKey::new("ml", "train-3gpu-gpus"),
                request: "gpus".into(),
                drop_selectors: false,
                count: Some(1),
            }
        );
        assert_eq!(
            texts(&fixes_of("ml", "nccl-pair")),
            [
                "ask for 1 device instead of 2 in request gpus of claim ml/nccl-pair-gpus: gpu-2 (ResourceSlice pool-dra-a1-gpu.nvidia.com-x7k2p) usable on pool-dra-a1 → would bind to pool-dra-b1 ✓"
            ]
        );
    }

    #[test]
    fn a_device_class_without_devices_is_said_and_not_checked() {
        let (mut c, _, _) = demo();
        let class: k8s_openapi::api::resource::v1::DeviceClass = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "a100.nvidia.com"},
            "spec": {"selectors": [{"cel": {"expression": "device.attributes[\"gpu.nvidia.com\"].model == \"A100\""}}]}
        }))
        .expect("class");
        c.device_classes.insert("a100.nvidia.com".into(), class);
        let key = ObjectKey::new("ml", "train-3gpu-gpus");
        let claim = c.resource_claims.get_mut(&key).expect("claim");
        claim
            .spec
            .as_mut()
            .and_then(|s| s.devices.as_mut())
            .and_then(|d| d.requests.as_mut())
            .and_then(|r| r[0].exactly.as_mut())
            .expect("exactly")
            .device_class_name = "a100.nvidia.com".into();
        let v = fixes_in(&c, "ml", "train-3gpu");
        assert_eq!(
            texts(&v),
            [
                "no device of DeviceClass a100.nvidia.com exists (6 device(s) on the 14 node(s) checked, none of the class; claim ml/train-3gpu-gpus request gpus) → not checked: no change of this cluster to make"
            ]
        );
        assert_eq!(v[0].fix.change, Change::NoDeviceOfClass("a100.nvidia.com".into()));
        assert_eq!(rank(&v[0].fix.change), 10);
    }

    #[test]
    fn quantities_are_exact_and_never_rounded_up() {
        assert_eq!(quantity("memory", 29498 << 20), "29498Mi");
        assert_eq!(quantity("memory", (1 << 30) + 1), "1073741825");
        assert_eq!(quantity("cpu", 6800), "6800m");
        assert_eq!(quantity("cpu", 7000), "7");
        assert_eq!(quantity("nvidia.com/gpu", 2), "2");
    }

    #[test]
    fn owner_commands_target_the_pod_template() {
        let (mut c, f, p) = demo();
        let key = ObjectKey::new("batch", "dedup-job");
        let mut obj = c.pod(&key).expect("pod").obj.clone();
        obj.metadata.owner_references = Some(vec![k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
            api_version: "batch/v1".into(),
            kind: "Job".into(),
            name: "dedup".into(),
            uid: "u".into(),
            controller: Some(true),
            block_owner_deletion: None,
        }]);
        c = replace_pod(&c, obj.into_box()).expect("replaced");
        let snap = Snapshot::new(Arc::new(c.clone()), &f);
        let ex = engine::explain(&snap, &p, &key).expect("explains");
        let usage = analysis::node_usage(&c, &f);
        let fixes = candidates(&c, &usage, &f, &p, &ex);
        assert_eq!(
            fixes[0].command.as_deref(),
            Some(
                r#"kubectl patch job dedup -n batch --type=json -p '[{"op":"replace","path":"/spec/template/spec/topologySpreadConstraints/0/maxSkew","value":2}]'"#
            )
        );
        assert!(
            fixes[0]
                .note
                .as_deref()
                .is_some_and(|n| n.contains("pod template of its job dedup"))
        );
    }
}
