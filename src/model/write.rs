//! The only writes kschedtui ever makes, as data: binding a pod, and preempting for it
//! (marking and deleting, or evicting, the victims the engine chose, then nominating the
//! node). Pure: planning reads a [`Cluster`]; sending is done by a source
//! (`source::write::execute` for a live cluster) or by the in-memory API server
//! ([`super::apiserver`]), both through [`PlanRun`], so a plan stops, skips and reports the
//! same way wherever it runs.
//!
//! A write is planned as a list of [`WriteRequest`]s, shown to the user exactly as they will be
//! sent ([`WriteRequest::describe`]), checked for permission, confirmed, and executed in order;
//! the [`Report`] says what each request did, so nothing is half-done silently.
//!
//! Preemption follows upstream's `prepareCandidate` (framework/preemption/preemption.go,
//! v1.30.6): for each victim, add the `DisruptionTarget` condition (reason
//! `PreemptionByScheduler`) through the status subresource, then delete it; then clear
//! `status.nominatedNodeName` of lower-priority pods nominated to the same node; then the
//! preemptor's `status.nominatedNodeName` is set, as the scheduler does after PostFilter.
//! With [`Removal::Evict`] the victims go through the policy/v1 Eviction API instead, which
//! honours PodDisruptionBudgets (and adds its own DisruptionTarget condition).

use std::fmt;

use serde_json::{Value, json};

use crate::model::{Cluster, ObjectKey};

/// What happens to writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WriteMode {
    /// Writes are sent.
    #[default]
    Enabled,
    /// Writes are sent with `dryRun=All`: the API server validates and admits them, then
    /// discards them (`--dry-run=server`).
    DryRun,
    /// Nothing is ever sent (`--readonly`).
    ReadOnly,
}

/// How a preemption victim leaves its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Removal {
    /// Mark with DisruptionTarget, then DELETE (what kube-scheduler does; ignores PDBs, as the
    /// scheduler only prefers candidates that violate fewer of them).
    Delete,
    /// POST pods/{name}/eviction (policy/v1): the API server refuses when a PDB would be
    /// violated.
    Evict,
}

/// The reason kube-scheduler writes on the DisruptionTarget condition (v1.PodReasonPreemptionByScheduler).
pub const REASON_PREEMPTION_BY_SCHEDULER: &str = "PreemptionByScheduler";

/// One request to the API server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteRequest {
    /// POST /api/v1/namespaces/{ns}/pods/{name}/binding.
    Bind {
        /// The pod.
        pod: ObjectKey,
        /// metadata.uid, when known: the binding then fails if the pod was replaced.
        uid: Option<String>,
        /// Target node.
        node: String,
    },
    /// PATCH /api/v1/namespaces/{ns}/pods/{name}/status adding the DisruptionTarget condition.
    MarkDisruptionTarget {
        /// The victim.
        pod: ObjectKey,
        /// The preemptor's schedulerName (the condition message starts with it).
        scheduler_name: String,
    },
    /// DELETE /api/v1/namespaces/{ns}/pods/{name}.
    Delete {
        /// The pod.
        pod: ObjectKey,
        /// metadata.uid precondition, when known.
        uid: Option<String>,
    },
    /// POST /api/v1/namespaces/{ns}/pods/{name}/eviction.
    Evict {
        /// The pod.
        pod: ObjectKey,
        /// metadata.uid precondition, when known.
        uid: Option<String>,
    },
    /// PATCH /api/v1/namespaces/{ns}/pods/{name}/status setting (or, with None, clearing)
    /// status.nominatedNodeName.
    Nominate {
        /// The pod.
        pod: ObjectKey,
        /// The node, or None to clear.
        node: Option<String>,
    },
}

/// The permission a request needs, as a SelfSubjectAccessReview asks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessCheck {
    /// Verb (create, patch, delete).
    pub verb: &'static str,
    /// API group ("" for core).
    pub group: &'static str,
    /// Resource.
    pub resource: &'static str,
    /// Subresource ("" for none).
    pub subresource: &'static str,
    /// Namespace.
    pub namespace: String,
    /// Object name.
    pub name: String,
}

impl fmt::Display for AccessCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.verb, self.resource)?;
        if !self.subresource.is_empty() {
            write!(f, "/{}", self.subresource)?;
        }
        write!(f, " in namespace '{}'", self.namespace)
    }
}

impl WriteRequest {
    /// The pod the request is about.
    pub fn pod(&self) -> &ObjectKey {
        match self {
            WriteRequest::Bind { pod, .. }
            | WriteRequest::MarkDisruptionTarget { pod, .. }
            | WriteRequest::Delete { pod, .. }
            | WriteRequest::Evict { pod, .. }
            | WriteRequest::Nominate { pod, .. } => pod,
        }
    }

    /// HTTP method.
    pub fn method(&self) -> &'static str {
        match self {
            WriteRequest::Bind { .. } | WriteRequest::Evict { .. } => "POST",
            WriteRequest::MarkDisruptionTarget { .. } | WriteRequest::Nominate { .. } => "PATCH",
            WriteRequest::Delete { .. } => "DELETE",
        }
    }

    /// Path, without the query.
    pub fn path(&self) -> String {
        let p = self.pod();
        let base = format!("/api/v1/namespaces/{}/pods/{}", p.namespace, p.name);
        match self {
            WriteRequest::Bind { .. } => base + "/binding",
            WriteRequest::Evict { .. } => base + "/eviction",
            WriteRequest::MarkDisruptionTarget { .. } | WriteRequest::Nominate { .. } => base + "/status",
            WriteRequest::Delete { .. } => base,
        }
    }

    /// Path with the query (`?dryRun=All` in dry-run mode).
    pub fn path_and_query(&self, dry_run: bool) -> String {
        if dry_run {
            self.path() + "?dryRun=All"
        } else {
            self.path()
        }
    }

    /// Content-Type of the body.
    pub fn content_type(&self) -> &'static str {
        match self {
            WriteRequest::MarkDisruptionTarget { .. } | WriteRequest::Nominate { .. } => {
                "application/strategic-merge-patch+json"
            }
            _ => "application/json",
        }
    }

    /// The body. `now` is the RFC 3339 time written as the condition's lastTransitionTime.
    pub fn body(&self, dry_run: bool, now: &str) -> Value {
        let p = self.pod();
        let preconditions = |uid: &Option<String>| uid.as_ref().map(|u| json!({ "uid": u }));
        match self {
            WriteRequest::Bind { uid, node, .. } => {
                let mut meta = json!({ "name": p.name, "namespace": p.namespace });
                if let Some(u) = uid {
                    meta["uid"] = json!(u);
                }
                json!({
                    "apiVersion": "v1",
                    "kind": "Binding",
                    "metadata": meta,
                    "target": { "apiVersion": "v1", "kind": "Node", "name": node },
                })
            }
            WriteRequest::MarkDisruptionTarget { scheduler_name, .. } => json!({
                "status": { "conditions": [{
                    "type": "DisruptionTarget",
                    "status": "True",
                    "reason": REASON_PREEMPTION_BY_SCHEDULER,
                    "message": format!("{scheduler_name}: preempting to accommodate a higher priority pod"),
                    "lastTransitionTime": now,
                }]}
            }),
            WriteRequest::Delete { uid, .. } => {
                let mut b = json!({ "apiVersion": "v1", "kind": "DeleteOptions" });
                if let Some(pc) = preconditions(uid) {
                    b["preconditions"] = pc;
                }
                if dry_run {
                    b["dryRun"] = json!(["All"]);
                }
                b
            }
            WriteRequest::Evict { uid, .. } => {
                let mut opts = json!({});
                if let Some(pc) = preconditions(uid) {
                    opts["preconditions"] = pc;
                }
                if dry_run {
                    opts["dryRun"] = json!(["All"]);
                }
                json!({
                    "apiVersion": "policy/v1",
                    "kind": "Eviction",
                    "metadata": { "name": p.name, "namespace": p.namespace },
                    "deleteOptions": opts,
                })
            }
            WriteRequest::Nominate { node, .. } => {
                json!({ "status": { "nominatedNodeName": node } })
            }
        }
    }

    /// What the request needs to be allowed.
    pub fn access(&self) -> AccessCheck {
        let p = self.pod();
        let (verb, subresource) = match self {
            WriteRequest::Bind { .. } => ("create", "binding"),
            WriteRequest::Evict { .. } => ("create", "eviction"),
            WriteRequest::MarkDisruptionTarget { .. } | WriteRequest::Nominate { .. } => ("patch", "status"),
            WriteRequest::Delete { .. } => ("delete", ""),
        };
        AccessCheck {
            verb,
            group: "",
            resource: "pods",
            subresource,
            namespace: p.namespace.to_string(),
            name: p.name.to_string(),
        }
    }

    /// What the request does, in words.
    pub fn summary(&self) -> String {
        match self {
            WriteRequest::Bind { pod, node, .. } => format!("bind {pod} to node '{node}'"),
            WriteRequest::MarkDisruptionTarget { pod, .. } => {
                format!("mark {pod} with condition DisruptionTarget ({REASON_PREEMPTION_BY_SCHEDULER})")
            }
            WriteRequest::Delete { pod, .. } => format!("delete {pod}"),
            WriteRequest::Evict { pod, .. } => format!("evict {pod}"),
            WriteRequest::Nominate { pod, node: Some(n) } => {
                format!("set {pod} status.nominatedNodeName to '{n}'")
            }
            WriteRequest::Nominate { pod, node: None } => {
                format!("clear {pod} status.nominatedNodeName")
            }
        }
    }

    /// The request exactly as it will be sent: method, path and query, body (with
    /// `<now>` in place of the time).
    pub fn describe(&self, dry_run: bool) -> String {
        format!(
            "{} {} {}",
            self.method(),
            self.path_and_query(dry_run),
            self.body(dry_run, "<now>")
        )
    }

    /// True when a failure must stop the plan (every request but clearing another pod's
    /// nomination, which upstream also treats as not critical).
    pub fn critical(&self) -> bool {
        !matches!(self, WriteRequest::Nominate { node: None, .. })
    }
}

/// A planned action: the requests, in the order they are sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// What the plan does, one line.
    pub action: String,
    /// The requests.
    pub requests: Vec<WriteRequest>,
    /// The victims (preemption only), in request order.
    pub victims: Vec<ObjectKey>,
}

/// Why an action cannot be planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The pod is not in the cluster.
    #[error("pod {0} is not in the cluster")]
    NoPod(ObjectKey),
    /// The pod is already bound.
    #[error("pod {pod} is already bound to node '{node}'")]
    AlreadyBound {
        /// Pod.
        pod: ObjectKey,
        /// Its node.
        node: String,
    },
    /// The node is not in the cluster.
    #[error("node '{0}' is not in the cluster")]
    NoNode(String),
    /// A victim is not on the node.
    #[error("victim {victim} is not running on node '{node}'")]
    VictimNotOnNode {
        /// Victim.
        victim: ObjectKey,
        /// Node.
        node: String,
    },
    /// The pod's resource claims need writes before a binding (DynamicResources' PreBind:
    /// the allocation and the pod in reservedFor), which kschedtui does not make.
    #[error(
        "pod {pod} uses ResourceClaim(s) {} that the scheduler allocates and reserves for it before binding; kschedtui does not write claim allocations, so binding it here would start the pod without its devices (let the scheduler bind it, or allocate the claims first)",
        claims.join(", ")
    )]
    ClaimsNeedWrites {
        /// Pod.
        pod: ObjectKey,
        /// The claims (`namespace/name`) not allocated or not reserved for the pod.
        claims: Vec<String>,
    },
}

/// The pod's ResourceClaims that are not allocated, or not reserved for it.
fn claims_needing_writes(cluster: &Cluster, p: &crate::model::Pod) -> Vec<String> {
    let spec = p
        .obj
        .spec
        .as_ref()
        .and_then(|s| s.resource_claims.as_deref())
        .unwrap_or(&[]);
    let statuses = p
        .obj
        .status
        .as_ref()
        .and_then(|s| s.resource_claim_statuses.as_deref())
        .unwrap_or(&[]);
    let mut out = Vec::new();
    for pc in spec {
        let name = match (&pc.resource_claim_name, &pc.resource_claim_template_name) {
            (Some(n), _) => Some(n.clone()),
            (None, Some(_)) => statuses
                .iter()
                .find(|s| s.name == pc.name)
                .and_then(|s| s.resource_claim_name.clone()),
            _ => None,
        };
        let Some(name) = name else { continue };
        let key = ObjectKey::new(p.key.namespace.clone(), name);
        let ready = cluster.resource_claims.get(&key).is_some_and(|c| {
            let st = c.status.as_ref();
            st.and_then(|s| s.allocation.as_ref()).is_some()
                && st
                    .and_then(|s| s.reserved_for.as_ref())
                    .is_some_and(|r| r.iter().any(|r| p.has_uid(&r.uid)))
        });
        if !ready {
            out.push(key.to_string());
        }
    }
    out
}

/// Plans binding `pod` to `node`.
pub fn bind_plan(cluster: &Cluster, pod: &ObjectKey, node: &str) -> Result<Plan, PlanError> {
    let p = cluster.pod(pod).ok_or_else(|| PlanError::NoPod(pod.clone()))?;
    if let Some(n) = &p.node_name {
        return Err(PlanError::AlreadyBound {
            pod: pod.clone(),
            node: n.to_string(),
        });
    }
    if cluster.node(node).is_none() {
        return Err(PlanError::NoNode(node.to_string()));
    }
    let claims = claims_needing_writes(cluster, p);
    if !claims.is_empty() {
        return Err(PlanError::ClaimsNeedWrites {
            pod: pod.clone(),
            claims,
        });
    }
    let uid = p.obj.metadata.uid.clone();
    Ok(Plan {
        action: format!("bind {pod} to node '{node}'"),
        requests: vec![WriteRequest::Bind {
            pod: pod.clone(),
            uid,
            node: node.to_string(),
        }],
        victims: Vec::new(),
    })
}

/// Plans preempting `victims` on `node` for `preemptor`.
pub fn preempt_plan(
    cluster: &Cluster,
    preemptor: &ObjectKey,
    node: &str,
    victims: &[ObjectKey],
    how: Removal,
) -> Result<Plan, PlanError> {
    let p = cluster
        .pod(preemptor)
        .ok_or_else(|| PlanError::NoPod(preemptor.clone()))?;
    if let Some(n) = &p.node_name {
        return Err(PlanError::AlreadyBound {
            pod: preemptor.clone(),
            node: n.to_string(),
        });
    }
    if cluster.node(node).is_none() {
        return Err(PlanError::NoNode(node.to_string()));
    }
    let mut requests = Vec::new();
    for v in victims {
        let vp = cluster.pod(v).ok_or_else(|| PlanError::NoPod(v.clone()))?;
        if vp.node_name.as_deref() != Some(node) {
            return Err(PlanError::VictimNotOnNode {
                victim: v.clone(),
                node: node.to_string(),
            });
        }
        let uid = vp.obj.metadata.uid.clone();
        match how {
            Removal::Delete => {
                requests.push(WriteRequest::MarkDisruptionTarget {
                    pod: v.clone(),
                    scheduler_name: p.scheduler_name().to_string(),
                });
                requests.push(WriteRequest::Delete { pod: v.clone(), uid });
            }
            Removal::Evict => requests.push(WriteRequest::Evict { pod: v.clone(), uid }),
        }
    }
    // getLowerPriorityNominatedPods: pods nominated to the node with a lower priority.
    for other in &cluster.pods {
        if other.key != *preemptor
            && other.node_name.is_none()
            && other.nominated_node_name() == Some(node)
            && other.priority < p.priority
        {
            requests.push(WriteRequest::Nominate {
                pod: other.key.clone(),
                node: None,
            });
        }
    }
    requests.push(WriteRequest::Nominate {
        pod: preemptor.clone(),
        node: Some(node.to_string()),
    });
    let verb = match how {
        Removal::Delete => "delete",
        Removal::Evict => "evict",
    };
    Ok(Plan {
        action: format!(
            "preempt for {preemptor} on node '{node}': {verb} {} victim(s), then nominate the node",
            victims.len()
        ),
        requests,
        victims: victims.to_vec(),
    })
}

/// A successful answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The server accepted the request with this HTTP code (200, 201, 202).
    Done {
        /// HTTP status code.
        code: u16,
    },
    /// A delete or eviction found the pod already gone (404): the goal is reached.
    AlreadyGone,
}

/// Why a request failed. Each message is one line naming what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// `--readonly`.
    #[error("writes are disabled (--readonly); nothing was sent")]
    ReadOnly,
    /// 404 on a bind or patch.
    #[error("pod {pod} no longer exists (404 Not Found); refresh and try again")]
    NotFound {
        /// Pod.
        pod: ObjectKey,
    },
    /// 409 on a binding: the pod already has a node.
    #[error("pod {pod} is already bound to node '{node}' (409 Conflict); nothing to do")]
    AlreadyBound {
        /// Pod.
        pod: ObjectKey,
        /// Where it is bound ("unknown" when the server did not say).
        node: String,
    },
    /// Another 409 (a uid precondition failed: the pod was replaced).
    #[error("{message} (409 Conflict); refresh and try again")]
    Conflict {
        /// Server message.
        message: String,
    },
    /// 403, or a SelfSubjectAccessReview that says no.
    #[error("not allowed to {access} (403 Forbidden{}); ask a cluster admin for this permission", detail(.message))]
    Forbidden {
        /// The verb and resource.
        access: String,
        /// Server message or review reason.
        message: String,
    },
    /// A SelfSubjectAccessReview answered `allowed: false` (HTTP 201: the review itself was
    /// accepted; the permission is what is denied).
    #[error(
        "not allowed to {access}: permission denied (the SelfSubjectAccessReview answers allowed: false, {}); ask a cluster admin for this permission",
        if .reason.is_empty() { "no reason given".to_string() } else { format!("reason: {}", .reason) }
    )]
    Denied {
        /// The verb and resource.
        access: String,
        /// The review's `status.reason` ("" when it gives none).
        reason: String,
    },
    /// 429 from an Eviction: a PodDisruptionBudget refused it.
    #[error(
        "eviction of {pod} refused (429): {} does not allow it{}; wait for it to allow a disruption or preempt without --evict",
        match .pdb { Some(p) => format!("PodDisruptionBudget '{p}'"), None => "a PodDisruptionBudget".to_string() },
        detail(.message)
    )]
    PdbBlocked {
        /// Pod.
        pod: ObjectKey,
        /// The PDB, when the server named it.
        pdb: Option<String>,
        /// Server message.
        message: String,
    },
    /// 429 not caused by a PDB: the server is throttling.
    #[error("the API server is throttling requests (429 Too Many Requests{}); try again later", detail(.message))]
    TooManyRequests {
        /// Server message.
        message: String,
    },
    /// No answer in time.
    #[error(
        "no answer within {secs}s to '{what}'; it may or may not have been applied: check with `kubectl get pod -n {} {}`",
        .pod.namespace, .pod.name
    )]
    Timeout {
        /// The request.
        what: String,
        /// Pod.
        pod: ObjectKey,
        /// Seconds waited.
        secs: u64,
    },
    /// The server could not be reached, TLS failed, credentials were refused...
    #[error("{0}")]
    Transport(String),
    /// Any other answer.
    #[error("'{what}' failed ({code}{}){}", if .reason.is_empty() { String::new() } else { format!(" {}", .reason) }, detail(.message))]
    Api {
        /// The request.
        what: String,
        /// HTTP code.
        code: u16,
        /// Status reason.
        reason: String,
        /// Server message.
        message: String,
    },
}

fn detail(m: &str) -> String {
    if m.is_empty() { String::new() } else { format!(": {m}") }
}

/// What the policy/v1 Eviction API answers for a pod, given the cluster's
/// PodDisruptionBudgets: `Ok(Some(index))` when the PDB at `index` covers the pod and allows a
/// disruption (the caller then decrements its `status.disruptionsAllowed`), `Ok(None)` when no
/// PDB covers it, the 429 refusal when the covering PDB allows none, and the server's 500 when
/// several PDBs cover the pod. Used where kschedtui applies an eviction itself (snapshot mode,
/// the in-memory source); a live API server decides for itself.
pub fn eviction_answer(
    pod: &ObjectKey,
    labels: &std::collections::BTreeMap<String, String>,
    pdbs: &[k8s_openapi::api::policy::v1::PodDisruptionBudget],
    what: &str,
) -> Result<Option<usize>, WriteError> {
    let covering: Vec<usize> = pdbs
        .iter()
        .enumerate()
        .filter(|(_, b)| {
            b.metadata.namespace.as_deref() == Some(pod.namespace.as_str())
                && crate::model::selector::Selector::from_label_selector(
                    b.spec.as_ref().and_then(|s| s.selector.as_ref()),
                )
                .matches(labels)
        })
        .map(|(i, _)| i)
        .collect();
    match covering[..] {
        [] => Ok(None),
        [i] => {
            let b = &pdbs[i];
            let st = b.status.clone().unwrap_or_default();
            if st.disruptions_allowed.unwrap_or(0) <= 0 {
                let name = b.metadata.name.clone().unwrap_or_default();
                return Err(WriteError::PdbBlocked {
                    pod: pod.clone(),
                    pdb: Some(name.clone()),
                    message: format!(
                        "The disruption budget {name} needs {} healthy pods and has {} currently",
                        st.desired_healthy.unwrap_or(0),
                        st.current_healthy.unwrap_or(0)
                    ),
                });
            }
            Ok(Some(i))
        }
        _ => Err(WriteError::Api {
            what: what.to_string(),
            code: 500,
            reason: "InternalError".into(),
            message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
                .into(),
        }),
    }
}

/// What happened to one request of a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Sent and accepted.
    Done(Outcome),
    /// Sent and refused (or no answer).
    Failed(WriteError),
    /// Not sent: its pod was already gone.
    SkippedGone,
    /// Not sent: an earlier critical request failed.
    NotSent,
}

/// What executing a plan did, request by request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The plan.
    pub plan: Plan,
    /// One step per request, in plan order.
    pub steps: Vec<Step>,
}

impl Report {
    /// True when every request succeeded (or found its pod already gone).
    pub fn ok(&self) -> bool {
        self.steps.iter().zip(&self.plan.requests).all(|(s, r)| match s {
            Step::Done(_) | Step::SkippedGone => true,
            Step::Failed(_) => !r.critical(),
            Step::NotSent => false,
        })
    }

    /// Victims that are gone (removed now or already gone).
    pub fn victims_removed(&self) -> Vec<ObjectKey> {
        self.plan
            .victims
            .iter()
            .filter(|v| self.victim_gone(v))
            .cloned()
            .collect()
    }

    /// Victims whose delete or eviction got no answer in time: they may or may not be gone,
    /// so they are neither "removed" nor "remaining".
    pub fn victims_unknown(&self) -> Vec<ObjectKey> {
        self.plan
            .victims
            .iter()
            .filter(|v| self.victim_unknown(v))
            .cloned()
            .collect()
    }

    /// True when the victim was found already gone (404) rather than removed by this plan.
    pub fn victim_already_gone(&self, v: &ObjectKey) -> bool {
        self.plan
            .requests
            .iter()
            .zip(&self.steps)
            .any(|(r, s)| r.pod() == v && matches!(s, Step::Done(Outcome::AlreadyGone) | Step::SkippedGone))
    }

    /// Victims still there, with why.
    pub fn victims_remaining(&self) -> Vec<(ObjectKey, String)> {
        self.plan
            .victims
            .iter()
            .filter(|v| !self.victim_gone(v) && !self.victim_unknown(v))
            .map(|v| {
                let why = self
                    .plan
                    .requests
                    .iter()
                    .zip(&self.steps)
                    .filter(|(r, _)| r.pod() == v)
                    .find_map(|(_, s)| match s {
                        Step::Failed(e) => Some(e.to_string()),
                        _ => None,
                    })
                    .unwrap_or_else(|| "not attempted: an earlier request failed".to_string());
                (v.clone(), why)
            })
            .collect()
    }

    fn victim_unknown(&self, v: &ObjectKey) -> bool {
        self.plan.requests.iter().zip(&self.steps).any(|(r, s)| {
            r.pod() == v
                && matches!(r, WriteRequest::Delete { .. } | WriteRequest::Evict { .. })
                && matches!(s, Step::Failed(WriteError::Timeout { .. }))
        })
    }

    fn victim_gone(&self, v: &ObjectKey) -> bool {
        self.plan.requests.iter().zip(&self.steps).any(|(r, s)| {
            r.pod() == v
                && match s {
                    Step::Done(Outcome::AlreadyGone) | Step::SkippedGone => true,
                    Step::Done(Outcome::Done { .. }) => {
                        matches!(r, WriteRequest::Delete { .. } | WriteRequest::Evict { .. })
                    }
                    Step::Failed(_) | Step::NotSent => false,
                }
        })
    }

    /// One line per request, then (for preemptions) which victims went and which did not.
    pub fn render(&self, dry_run: bool) -> String {
        let mut out = String::new();
        for (i, (r, s)) in self.plan.requests.iter().zip(&self.steps).enumerate() {
            let line = match s {
                Step::Done(Outcome::Done { code }) => format!("ok ({code})"),
                Step::Done(Outcome::AlreadyGone) => "already gone (404)".to_string(),
                Step::Failed(e) if !r.critical() => format!("failed, not critical: {e}"),
                Step::Failed(e) => format!("FAILED: {e}"),
                Step::SkippedGone => "not sent: the pod is already gone".to_string(),
                Step::NotSent => "not sent: an earlier request failed".to_string(),
            };
            out += &format!("{:>3}. {}: {line}\n", i + 1, r.summary());
        }
        if !self.plan.victims.is_empty() {
            let removed: Vec<String> = self.victims_removed().iter().map(|k| k.to_string()).collect();
            let what = if dry_run {
                "would be removed (dry run)"
            } else {
                "removed"
            };
            out += &format!(
                "victims {what}: {}\n",
                if removed.is_empty() {
                    "none".to_string()
                } else {
                    removed.join(", ")
                }
            );
            for (v, why) in self.victims_remaining() {
                out += &format!("victim NOT removed: {v}: {why}\n");
            }
            for v in self.victims_unknown() {
                out += &format!(
                    "victim UNKNOWN: {v}: its removal got no answer; check with `kubectl get pod -n {} {}`\n",
                    v.namespace, v.name
                );
            }
        }
        out
    }
}

/// The bookkeeping of executing a plan, shared by every executor: a critical failure stops
/// the plan (later requests are [`Step::NotSent`]; upstream also stops preempting at the first
/// error), and requests for a pod found already gone are skipped.
#[derive(Debug, Default)]
pub struct PlanRun {
    steps: Vec<Step>,
    gone: Vec<ObjectKey>,
    stopped: bool,
}

impl PlanRun {
    /// True when `r` is to be sent now; otherwise its step is recorded as not sent.
    pub fn should_send(&mut self, r: &WriteRequest) -> bool {
        if self.stopped {
            self.steps.push(Step::NotSent);
            return false;
        }
        if self.gone.contains(r.pod()) {
            self.steps.push(Step::SkippedGone);
            return false;
        }
        true
    }

    /// Records the answer to a request that was sent.
    pub fn record(&mut self, r: &WriteRequest, answer: Result<Outcome, WriteError>) {
        let step = match answer {
            Ok(Outcome::AlreadyGone) => {
                self.gone.push(r.pod().clone());
                Step::Done(Outcome::AlreadyGone)
            }
            Ok(o) => Step::Done(o),
            Err(WriteError::NotFound { pod }) if matches!(r, WriteRequest::MarkDisruptionTarget { .. }) => {
                // The victim vanished before it could be marked: nothing left to delete.
                self.gone.push(pod);
                Step::Done(Outcome::AlreadyGone)
            }
            Err(e) => {
                self.stopped = r.critical();
                Step::Failed(e)
            }
        };
        self.steps.push(step);
    }

    /// The report of the plan.
    pub fn finish(self, plan: &Plan) -> Report {
        Report {
            plan: plan.clone(),
            steps: self.steps,
        }
    }
}

/// Finds the PodDisruptionBudget named in a 429 eviction answer ("The disruption budget NAME
/// needs ..."), as the API server's eviction handler words it.
pub fn pdb_from_message(message: &str) -> Option<String> {
    let rest = message.split("disruption budget ").nth(1)?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '.')
        .collect();
    if name.is_empty() { None } else { Some(name) }
}

/// Finds the node in a 409 binding answer (`pod NAME is already assigned to node "NODE"`).
pub fn node_from_conflict(message: &str) -> Option<String> {
    let rest = message.split("already assigned to node ").nth(1)?;
    let rest = rest.trim_start_matches(['"', '\\']);
    let node: String = rest.chars().take_while(|c| *c != '"' && *c != '\\').collect();
    if node.is_empty() { None } else { Some(node) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::file::load_str;

    const CLUSTER: &str = r#"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: low, namespace: a, uid: u-low}
  spec: {nodeName: n1, priority: 1, containers: [{name: c, image: i}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: low2, namespace: a, uid: u-low2}
  spec: {nodeName: n1, priority: 1, containers: [{name: c, image: i}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: high, namespace: a, uid: u-high}
  spec: {priority: 100, schedulerName: my-scheduler, containers: [{name: c, image: i}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: nominated-low, namespace: b}
  spec: {priority: 5, containers: [{name: c, image: i}]}
  status: {nominatedNodeName: n1}
- apiVersion: v1
  kind: Pod
  metadata: {name: nominated-higher, namespace: b}
  spec: {priority: 500, containers: [{name: c, image: i}]}
  status: {nominatedNodeName: n1}
"#;

    fn k(s: &str) -> ObjectKey {
        ObjectKey::parse(s, "")
    }

    #[test]
    fn a_pod_whose_claims_need_allocating_is_not_bound_without_them() {
        let text = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}}
- {apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: gpu, namespace: a}, spec: {devices: {requests: []}}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: ready, namespace: a}
  spec: {devices: {requests: []}}
  status: {allocation: {devices: {results: []}}, reservedFor: [{resource: pods, name: p, uid: u-p}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: a, uid: u-p}
  spec:
    containers: [{name: c, image: i}]
    resourceClaims: [{name: g, resourceClaimName: gpu}, {name: r, resourceClaimName: ready}]
"#;
        let c = load_str("t", text).unwrap();
        let e = bind_plan(&c, &k("a/p"), "n1").unwrap_err();
        assert!(matches!(&e, PlanError::ClaimsNeedWrites { claims, .. } if claims == &["a/gpu".to_string()]));
        assert!(
            e.to_string()
                .starts_with("pod a/p uses ResourceClaim(s) a/gpu that the scheduler allocates")
        );
        // With every claim allocated and reserved for it, the pod binds as any other.
        let c = load_str(
            "t",
            &text.replace("resourceClaimName: gpu}, ", "resourceClaimName: ready}, "),
        )
        .unwrap();
        assert!(bind_plan(&c, &k("a/p"), "n1").is_ok());
    }

    #[test]
    fn bind_plan_posts_a_binding_with_the_pod_uid() {
        let c = load_str("t", CLUSTER).unwrap();
        let p = bind_plan(&c, &k("a/high"), "n1").unwrap();
        assert_eq!(p.requests.len(), 1);
        let r = &p.requests[0];
        assert_eq!(r.method(), "POST");
        assert_eq!(
            r.path_and_query(true),
            "/api/v1/namespaces/a/pods/high/binding?dryRun=All"
        );
        assert_eq!(
            r.body(false, "t"),
            json!({"apiVersion": "v1", "kind": "Binding",
                   "metadata": {"name": "high", "namespace": "a", "uid": "u-high"},
                   "target": {"apiVersion": "v1", "kind": "Node", "name": "n1"}})
        );
        assert_eq!(r.access().to_string(), "create pods/binding in namespace 'a'");
        assert_eq!(
            bind_plan(&c, &k("a/low"), "n1"),
            Err(PlanError::AlreadyBound {
                pod: k("a/low"),
                node: "n1".into()
            })
        );
        assert_eq!(
            bind_plan(&c, &k("a/high"), "nope"),
            Err(PlanError::NoNode("nope".into()))
        );
        assert_eq!(bind_plan(&c, &k("a/none"), "n1"), Err(PlanError::NoPod(k("a/none"))));
    }

    #[test]
    fn preempt_plan_marks_then_deletes_each_victim_clears_lower_nominations_then_nominates() {
        let c = load_str("t", CLUSTER).unwrap();
        let p = preempt_plan(&c, &k("a/high"), "n1", &[k("a/low"), k("a/low2")], Removal::Delete).unwrap();
        let summaries: Vec<String> = p.requests.iter().map(WriteRequest::summary).collect();
        assert_eq!(
            summaries,
            [
                "mark a/low with condition DisruptionTarget (PreemptionByScheduler)",
                "delete a/low",
                "mark a/low2 with condition DisruptionTarget (PreemptionByScheduler)",
                "delete a/low2",
                "clear b/nominated-low status.nominatedNodeName",
                "set a/high status.nominatedNodeName to 'n1'",
            ]
        );
        let mark = p.requests[0].body(false, "2024-01-01T00:00:00Z");
        assert_eq!(
            mark["status"]["conditions"][0]["message"],
            "my-scheduler: preempting to accommodate a higher priority pod"
        );
        assert_eq!(mark["status"]["conditions"][0]["reason"], "PreemptionByScheduler");
        assert_eq!(
            p.requests[1].body(true, ""),
            json!({"apiVersion": "v1", "kind": "DeleteOptions",
                   "preconditions": {"uid": "u-low"}, "dryRun": ["All"]})
        );
        assert!(!p.requests[4].critical());
        assert_eq!(
            p.requests[5].body(false, ""),
            json!({"status": {"nominatedNodeName": "n1"}})
        );
        assert_eq!(
            p.requests[4].body(false, ""),
            json!({"status": {"nominatedNodeName": null}})
        );
    }

    #[test]
    fn preempt_plan_with_evict_posts_evictions() {
        let c = load_str("t", CLUSTER).unwrap();
        let p = preempt_plan(&c, &k("a/high"), "n1", &[k("a/low")], Removal::Evict).unwrap();
        assert_eq!(p.requests[0].path(), "/api/v1/namespaces/a/pods/low/eviction");
        assert_eq!(
            p.requests[0].body(true, ""),
            json!({"apiVersion": "policy/v1", "kind": "Eviction",
                   "metadata": {"name": "low", "namespace": "a"},
                   "deleteOptions": {"preconditions": {"uid": "u-low"}, "dryRun": ["All"]}})
        );
        assert_eq!(
            p.requests[0].access().to_string(),
            "create pods/eviction in namespace 'a'"
        );
        assert_eq!(
            preempt_plan(&c, &k("a/high"), "n1", &[k("b/nominated-low")], Removal::Evict),
            Err(PlanError::VictimNotOnNode {
                victim: k("b/nominated-low"),
                node: "n1".into()
            })
        );
    }

    #[test]
    fn report_names_removed_and_remaining_victims() {
        let c = load_str("t", CLUSTER).unwrap();
        let plan = preempt_plan(&c, &k("a/high"), "n1", &[k("a/low"), k("a/low2")], Removal::Evict).unwrap();
        let blocked = WriteError::PdbBlocked {
            pod: k("a/low2"),
            pdb: Some("web".into()),
            message: "The disruption budget web needs 2 healthy pods and has 2 currently".into(),
        };
        let r = Report {
            plan,
            steps: vec![
                Step::Done(Outcome::Done { code: 201 }),
                Step::Failed(blocked.clone()),
                Step::NotSent,
                Step::NotSent,
            ],
        };
        assert!(!r.ok());
        assert_eq!(r.victims_removed(), [k("a/low")]);
        assert_eq!(r.victims_remaining(), [(k("a/low2"), blocked.to_string())]);
        let text = r.render(false);
        assert!(text.contains("victims removed: a/low\n"), "{text}");
        assert!(text.contains("victim NOT removed: a/low2: eviction of a/low2 refused (429): PodDisruptionBudget 'web' does not allow it: The disruption budget web needs 2 healthy pods and has 2 currently; wait for it to allow a disruption or preempt without --evict"), "{text}");
    }

    #[test]
    fn report_tells_already_gone_and_unanswered_victims_apart() {
        let c = load_str("t", CLUSTER).unwrap();
        let plan = preempt_plan(&c, &k("a/high"), "n1", &[k("a/low"), k("a/low2")], Removal::Delete).unwrap();
        let timeout = WriteError::Timeout {
            what: "delete a/low2".into(),
            pod: k("a/low2"),
            secs: 1,
        };
        // low: its delete found it gone; low2: its delete got no answer
        let r = Report {
            plan: plan.clone(),
            steps: vec![
                Step::Done(Outcome::Done { code: 200 }),
                Step::Done(Outcome::AlreadyGone),
                Step::Done(Outcome::Done { code: 200 }),
                Step::Failed(timeout),
                Step::NotSent,
                Step::NotSent,
            ],
        };
        assert!(!r.ok());
        assert_eq!(r.victims_removed(), [k("a/low")]);
        assert!(r.victim_already_gone(&k("a/low")));
        assert!(!r.victim_already_gone(&k("a/low2")));
        assert_eq!(r.victims_unknown(), [k("a/low2")]);
        assert_eq!(r.victims_remaining(), [], "an unanswered delete is not 'not removed'");
        let text = r.render(false);
        assert!(text.contains("  2. delete a/low: already gone (404)\n"), "{text}");
        assert!(text.contains("victims removed: a/low\n"), "{text}");
        assert!(
            text.contains(
                "victim UNKNOWN: a/low2: its removal got no answer; check with `kubectl get pod -n a low2`\n"
            ),
            "{text}"
        );
        assert!(!text.contains("NOT removed"), "{text}");
        // a timed-out mark leaves the victim surely in place: its delete was never sent
        let r = Report {
            plan,
            steps: vec![
                Step::Failed(WriteError::Timeout {
                    what: "mark a/low".into(),
                    pod: k("a/low"),
                    secs: 1,
                }),
                Step::NotSent,
                Step::NotSent,
                Step::NotSent,
                Step::NotSent,
                Step::NotSent,
            ],
        };
        assert_eq!(r.victims_unknown(), []);
        assert_eq!(r.victims_remaining().len(), 2);
    }

    #[test]
    fn server_messages_are_parsed() {
        assert_eq!(
            pdb_from_message("The disruption budget web-pdb needs 2 healthy pods and has 2 currently"),
            Some("web-pdb".into())
        );
        assert_eq!(pdb_from_message("Cannot evict pod"), None);
        assert_eq!(
            node_from_conflict(
                r#"Operation cannot be fulfilled on pods/binding "web-1": pod web-1 is already assigned to node "node-2""#
            ),
            Some("node-2".into())
        );
        assert_eq!(node_from_conflict("conflict"), None);
    }

    #[test]
    fn error_messages_name_what_to_do() {
        assert_eq!(
            WriteError::Forbidden {
                access: "create pods/binding in namespace 'a'".into(),
                message: "User \"bob\" cannot create resource".into()
            }
            .to_string(),
            "not allowed to create pods/binding in namespace 'a' (403 Forbidden: User \"bob\" cannot create resource); ask a cluster admin for this permission"
        );
        assert_eq!(
            WriteError::Denied {
                access: "delete pods in namespace 'a'".into(),
                reason: String::new()
            }
            .to_string(),
            "not allowed to delete pods in namespace 'a': permission denied (the SelfSubjectAccessReview answers allowed: false, no reason given); ask a cluster admin for this permission"
        );
        assert_eq!(
            WriteError::AlreadyBound {
                pod: k("a/p"),
                node: "n2".into()
            }
            .to_string(),
            "pod a/p is already bound to node 'n2' (409 Conflict); nothing to do"
        );
        assert_eq!(
            WriteError::Timeout {
                what: "bind a/p to node 'n'".into(),
                pod: k("a/p"),
                secs: 5
            }
            .to_string(),
            "no answer within 5s to 'bind a/p to node 'n''; it may or may not have been applied: check with `kubectl get pod -n a p`"
        );
        assert_eq!(
            WriteError::Api {
                what: "delete a/p".into(),
                code: 500,
                reason: "InternalError".into(),
                message: "boom".into()
            }
            .to_string(),
            "'delete a/p' failed (500 InternalError): boom"
        );
    }
}
