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

use serde::Serialize;

use crate::model::kinds::Kind;
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
    /// PUT of a PersistentVolume, a PersistentVolumeClaim or a ResourceClaim (or its status)
    /// that a PreBind plugin changes before the pod is bound: the object as the cluster holds
    /// it, with [`Update::edit`] made.
    Update(Box<Update>),
    /// VolumeBinding's wait after its updates: the claims are read again until every one is
    /// bound, for at most `bindTimeoutSeconds`; the pod is bound only then.
    AwaitVolumes(Box<AwaitVolumes>),
}

/// In an explanation's JSON a request is `{method, path, summary, body}`: the body as sent
/// (for an update, the fields it changes on the object as read; null for the wait, which
/// reads).
impl Serialize for WriteRequest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("WriteRequest", 4)?;
        st.serialize_field("method", self.method())?;
        st.serialize_field("path", &self.path())?;
        st.serialize_field("summary", &self.summary())?;
        st.serialize_field("body", &self.body(false, "<now>"))?;
        st.end()
    }
}

/// The annotation VolumeBinding puts on a WaitForFirstConsumer claim to ask for a volume on the
/// chosen node (`volume.AnnSelectedNode`).
mod report;
mod update;

pub use report::*;
pub use update::*;

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
        if !self.group.is_empty() {
            write!(f, ".{}", self.group)?;
        }
        if !self.subresource.is_empty() {
            write!(f, "/{}", self.subresource)?;
        }
        if self.namespace.is_empty() {
            write!(f, " (cluster-scoped)")
        } else {
            write!(f, " in namespace '{}'", self.namespace)
        }
    }
}

impl WriteRequest {
    /// The pod the request is about (for a PreBind update or wait, the pod being bound).
    pub fn pod(&self) -> &ObjectKey {
        match self {
            WriteRequest::Bind { pod, .. }
            | WriteRequest::MarkDisruptionTarget { pod, .. }
            | WriteRequest::Delete { pod, .. }
            | WriteRequest::Evict { pod, .. }
            | WriteRequest::Nominate { pod, .. } => pod,
            WriteRequest::Update(u) => &u.pod,
            WriteRequest::AwaitVolumes(w) => &w.pod,
        }
    }

    /// The object the request writes (or, for the wait, reads): its kind as `kubectl get`
    /// names it, and its key.
    pub fn object(&self) -> (&'static str, &ObjectKey) {
        match self {
            WriteRequest::Update(u) => (u.target.kubectl(), &u.key),
            WriteRequest::AwaitVolumes(w) => ("pvc", w.claims.first().map_or(&w.pod, |c| &c.claim)),
            _ => ("pod", self.pod()),
        }
    }

    /// HTTP method (GET for the wait, which reads the claims until they are bound).
    pub fn method(&self) -> &'static str {
        match self {
            WriteRequest::Bind { .. } | WriteRequest::Evict { .. } => "POST",
            WriteRequest::MarkDisruptionTarget { .. } | WriteRequest::Nominate { .. } => "PATCH",
            WriteRequest::Delete { .. } => "DELETE",
            WriteRequest::Update(_) => "PUT",
            WriteRequest::AwaitVolumes(_) => "GET",
        }
    }

    /// Path, without the query; a ResourceClaim's at resource.k8s.io/v1 (a live source sends
    /// it at the version its server serves: [`WriteRequest::path_at`]).
    pub fn path(&self) -> String {
        self.path_at("v1")
    }

    /// Path, with `version` for the resource.k8s.io group.
    pub fn path_at(&self, version: &str) -> String {
        let p = self.pod();
        let base = format!("/api/v1/namespaces/{}/pods/{}", p.namespace, p.name);
        match self {
            WriteRequest::Bind { .. } => base + "/binding",
            WriteRequest::Evict { .. } => base + "/eviction",
            WriteRequest::MarkDisruptionTarget { .. } | WriteRequest::Nominate { .. } => base + "/status",
            WriteRequest::Delete { .. } => base,
            WriteRequest::Update(u) => {
                let path = u.target.path(&u.key, version);
                if u.status { path + "/status" } else { path }
            }
            WriteRequest::AwaitVolumes(w) => match w.claims.first() {
                Some(c) => Target::PersistentVolumeClaim.path(&c.claim, "v1"),
                None => base,
            },
        }
    }

    /// Path with the query (`?dryRun=All` in dry-run mode).
    pub fn path_and_query(&self, dry_run: bool) -> String {
        if dry_run && !matches!(self, WriteRequest::AwaitVolumes(_)) {
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
    /// For an update it is the part of the object the plugin changes (the whole object, as
    /// read when sent, goes with it); the wait has none.
    pub fn body(&self, dry_run: bool, now: &str) -> Value {
        let p = self.pod();
        let preconditions = |uid: &Option<String>| uid.as_ref().map(|u| json!({ "uid": u }));
        match self {
            WriteRequest::Bind { uid, node, .. } => {
                let mut meta = json!({ "name": p.name, "namespace": p.namespace });
                if let Some(u) = uid {
                    meta["uid"] = json!(u);
                }
                // DefaultBinder's v1.Binding: the target names the node only
                json!({
                    "apiVersion": "v1",
                    "kind": "Binding",
                    "metadata": meta,
                    "target": { "kind": "Node", "name": node },
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
            WriteRequest::Update(u) => u.edit.fragment(),
            WriteRequest::AwaitVolumes(_) => Value::Null,
        }
    }

    /// The permission the request needs.
    pub fn access(&self) -> AccessCheck {
        let p = self.pod();
        let pod = |verb, subresource| AccessCheck {
            verb,
            group: "",
            resource: "pods",
            subresource,
            namespace: p.namespace.to_string(),
            name: p.name.to_string(),
        };
        match self {
            WriteRequest::Bind { .. } => pod("create", "binding"),
            WriteRequest::Evict { .. } => pod("create", "eviction"),
            WriteRequest::MarkDisruptionTarget { .. } | WriteRequest::Nominate { .. } => pod("patch", "status"),
            WriteRequest::Delete { .. } => pod("delete", ""),
            WriteRequest::Update(u) => AccessCheck {
                verb: "update",
                group: u.target.group(),
                resource: u.target.resource(),
                subresource: if u.status { "status" } else { "" },
                namespace: u.key.namespace.to_string(),
                name: u.key.name.to_string(),
            },
            WriteRequest::AwaitVolumes(w) => {
                let c = w.claims.first().map_or(p, |c| &c.claim);
                AccessCheck {
                    verb: "get",
                    group: "",
                    resource: "persistentvolumeclaims",
                    subresource: "",
                    namespace: c.namespace.to_string(),
                    name: c.name.to_string(),
                }
            }
        }
    }

    /// One line saying what the request does.
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
            WriteRequest::Update(u) => {
                let what = match &u.edit {
                    Edit::ClaimRef { claim, .. } => {
                        format!("bind PersistentVolume {} to claim {claim}", u.key.name)
                    }
                    Edit::SelectedNode { node } => format!(
                        "annotate claim {} {ANN_SELECTED_NODE}={node} (provision a volume there)",
                        u.key
                    ),
                    Edit::DeleteProtection => {
                        format!("add finalizer {CLAIM_FINALIZER} to ResourceClaim {}", u.key)
                    }
                    Edit::Reserve {
                        allocation: Some(_), ..
                    } => format!("allocate ResourceClaim {} and reserve it for {}", u.key, u.pod),
                    Edit::Reserve { allocation: None, .. } => {
                        format!("reserve ResourceClaim {} for {}", u.key, u.pod)
                    }
                };
                format!("{} PreBind: {what}", u.plugin)
            }
            WriteRequest::AwaitVolumes(w) => {
                let names: Vec<String> = w.claims.iter().map(|c| c.claim.to_string()).collect();
                format!(
                    "VolumeBinding PreBind: wait until claim(s) {} are bound (at most {} s)",
                    names.join(", "),
                    w.timeout_secs
                )
            }
        }
    }

    /// The request as it will be sent: method, path and body. An update sends the whole
    /// object as the server holds it when sent, with the fields shown changed.
    pub fn describe(&self, dry_run: bool) -> String {
        match self {
            WriteRequest::Update(_) => format!(
                "{} {} {} (the object as read when sent, with these fields changed)",
                self.method(),
                self.path_and_query(dry_run),
                self.body(dry_run, "<now>")
            ),
            WriteRequest::AwaitVolumes(w) => {
                let each: Vec<String> = w
                    .claims
                    .iter()
                    .map(|c| {
                        let by = match (&c.volume, c.provisioner.as_str()) {
                            (Some(v), _) => format!("the PersistentVolume controller binds it to {v}"),
                            (None, "") => "a provisioner creates its volume".to_string(),
                            (None, p) => format!("provisioner {p} creates its volume"),
                        };
                        format!("{} ({by})", Target::PersistentVolumeClaim.path(&c.claim, "v1"))
                    })
                    .collect();
                format!(
                    "GET every second, for at most {} s, until bound (spec.volumeName set, annotation {ANN_BIND_COMPLETED}): {}",
                    w.timeout_secs,
                    each.join(", ")
                )
            }
            _ => format!(
                "{} {} {}",
                self.method(),
                self.path_and_query(dry_run),
                self.body(dry_run, "<now>")
            ),
        }
    }

    /// Whether a failure stops the plan (clearing another pod's nomination does not).
    pub fn critical(&self) -> bool {
        !matches!(self, WriteRequest::Nominate { node: None, .. })
    }

    /// How to undo the request once it succeeded, when it changed something a failure later
    /// in the plan would leave behind (the PreBind updates); None otherwise.
    pub fn undo(&self) -> Option<String> {
        match self {
            WriteRequest::Update(u) => u.edit.undo(u.target, &u.key),
            WriteRequest::Nominate { pod, node: Some(_) } => Some(format!(
                "kubectl patch pod {} -n {} --subresource=status --type=merge -p '{{\"status\":{{\"nominatedNodeName\":null}}}}'",
                pod.name, pod.namespace
            )),
            _ => None,
        }
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
    /// The scheduler would write something before binding that kschedtui cannot plan.
    #[error(
        "binding {pod} as the scheduler does needs writes kschedtui cannot make: {what}; nothing was sent (let the cluster's scheduler bind it)"
    )]
    Unplanned {
        /// The pod.
        pod: ObjectKey,
        /// What cannot be planned.
        what: String,
    },
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
    /// A victim is not bound to any node.
    #[error("victim {victim} is not running on a node (preempting on '{node}')")]
    VictimNotOnNode {
        /// Victim.
        victim: ObjectKey,
        /// Node.
        node: String,
    },
    /// The pod's resource claims need writes before a binding (DynamicResources' PreBind:
    /// the allocation and the pod in reservedFor) and the node chosen fails Filter, so the
    /// engine planned none.
    #[error(
        "pod {pod} uses ResourceClaim(s) {} that the scheduler allocates and reserves for it before binding, and the node fails Filter, so no allocation can be planned there; binding it would start the pod without its devices (bind it to a node that passes Filter, or allocate the claims first)",
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

/// What the engine's binding cycle writes for a pod on a node before the Binding: whether it
/// sets `status.nominatedNodeName` first (NominatedNodeNameForExpectation, 1.35+ by default:
/// the pod waits at Permit or a PreBind plugin has work), and the PreBind plugins' requests in
/// profile order (VolumeBinding's volume and claim updates and its wait, DynamicResources'
/// claim updates).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BindingWrites {
    /// Nominate the node first.
    pub nominate: bool,
    /// The PreBind requests.
    pub pre_bind: Vec<WriteRequest>,
    /// What PreBind would also write that kschedtui cannot plan: the bind is refused.
    pub unplanned: Vec<String>,
}

/// Plans binding `pod` to `node` as kube-scheduler's binding cycle does: the nomination, the
/// PreBind writes `writes` gives (from the engine's binding cycle on that node), then the
/// Binding. Without `writes` (the engine did not run the cycle there: a node that fails
/// Filter, bound with `--force`), only the Binding is sent, and a pod whose claims still need
/// the scheduler's writes is refused.
pub fn bind_plan(
    cluster: &Cluster,
    pod: &ObjectKey,
    node: &str,
    writes: Option<&BindingWrites>,
) -> Result<Plan, PlanError> {
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
    let mut requests = Vec::new();
    match writes {
        Some(w) if !w.unplanned.is_empty() => {
            return Err(PlanError::Unplanned {
                pod: pod.clone(),
                what: w.unplanned.join("; "),
            });
        }
        Some(w) => {
            if w.nominate && p.nominated_node_name() != Some(node) {
                requests.push(WriteRequest::Nominate {
                    pod: pod.clone(),
                    node: Some(node.to_string()),
                });
            }
            requests.extend(w.pre_bind.iter().cloned());
        }
        None => {
            let claims = claims_needing_writes(cluster, p);
            if !claims.is_empty() {
                return Err(PlanError::ClaimsNeedWrites {
                    pod: pod.clone(),
                    claims,
                });
            }
        }
    }
    let uid = p.obj.metadata.uid.clone();
    requests.push(WriteRequest::Bind {
        pod: pod.clone(),
        uid,
        node: node.to_string(),
    });
    let extra = requests.len() - 1;
    Ok(Plan {
        action: if extra == 0 {
            format!("bind {pod} to node '{node}'")
        } else {
            format!("bind {pod} to node '{node}' after the scheduler's {extra} earlier write(s)")
        },
        requests,
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
        // a victim is on the node, or (1.37, a PodGroup with disruptionMode all) a member of
        // the same group on another node
        if vp.node_name.is_none() {
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

#[cfg(test)]
mod tests;
