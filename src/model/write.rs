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
pub const ANN_SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";
/// The annotation on a PersistentVolume bound by a controller (the scheduler counts as one):
/// `pv.kubernetes.io/bound-by-controller`.
pub const ANN_BOUND_BY_CONTROLLER: &str = "pv.kubernetes.io/bound-by-controller";
/// The annotation the PersistentVolume controller sets once it has bound a claim:
/// `pv.kubernetes.io/bind-completed`.
pub const ANN_BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
/// The finalizer DynamicResources adds to a claim before allocating it
/// (`resourceapi.Finalizer`).
pub const CLAIM_FINALIZER: &str = "resource.kubernetes.io/delete-protection";

/// An object a PreBind plugin updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Target {
    /// A PersistentVolume (cluster-scoped).
    PersistentVolume,
    /// A PersistentVolumeClaim.
    PersistentVolumeClaim,
    /// A ResourceClaim (resource.k8s.io).
    ResourceClaim,
}

impl Target {
    /// The kind.
    pub fn kind(self) -> Kind {
        match self {
            Target::PersistentVolume => Kind::PersistentVolume,
            Target::PersistentVolumeClaim => Kind::PersistentVolumeClaim,
            Target::ResourceClaim => Kind::ResourceClaim,
        }
    }

    /// The resource in API paths and access reviews.
    pub fn resource(self) -> &'static str {
        self.kind().plural()
    }

    /// The API group ("" for core).
    pub fn group(self) -> &'static str {
        match self {
            Target::PersistentVolume | Target::PersistentVolumeClaim => "",
            Target::ResourceClaim => "resource.k8s.io",
        }
    }

    /// What `kubectl get` calls it.
    pub fn kubectl(self) -> &'static str {
        match self {
            Target::PersistentVolume => "pv",
            Target::PersistentVolumeClaim => "pvc",
            Target::ResourceClaim => "resourceclaim",
        }
    }

    /// The path of an object of this kind, at the group version `version` (the one the
    /// server serves).
    pub fn path(self, key: &ObjectKey, version: &str) -> String {
        let prefix = match self.group() {
            "" => "/api/v1".to_string(),
            g => format!("/apis/{g}/{version}"),
        };
        if key.namespace.is_empty() {
            format!("{prefix}/{}/{}", self.resource(), key.name)
        } else {
            format!("{prefix}/namespaces/{}/{}/{}", key.namespace, self.resource(), key.name)
        }
    }
}

/// What a PreBind plugin changes on an object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "change", rename_all = "camelCase")]
pub enum Edit {
    /// VolumeBinding binds a PersistentVolume to an unbound claim (`GetBindVolumeToClaim`):
    /// `spec.claimRef` names the claim as the scheduler last read it, and the volume gets
    /// the annotation `pv.kubernetes.io/bound-by-controller: "yes"`.
    #[serde(rename_all = "camelCase")]
    ClaimRef {
        /// The claim.
        claim: ObjectKey,
        /// Its uid.
        uid: String,
        /// Its resourceVersion.
        resource_version: String,
    },
    /// VolumeBinding asks for a volume on the node: the claim's
    /// `volume.kubernetes.io/selected-node` annotation.
    #[serde(rename_all = "camelCase")]
    SelectedNode {
        /// The node.
        node: String,
    },
    /// DynamicResources protects a claim it is about to allocate: the finalizer
    /// `resource.kubernetes.io/delete-protection`.
    DeleteProtection,
    /// DynamicResources writes a claim's status: the allocation it found (None when the claim
    /// was allocated already) and the pod appended to `reservedFor`.
    #[serde(rename_all = "camelCase")]
    Reserve {
        /// `status.allocation` (an AllocationResult), when the claim is allocated now.
        allocation: Option<Value>,
        /// The pod's name.
        pod_name: String,
        /// The pod's uid.
        pod_uid: String,
        /// `status.allocation.allocationTimestamp` is set to the time of sending when it has
        /// none (DRADeviceBindingConditions and DRAResourceClaimDeviceStatus, 1.36 by default).
        timestamp: bool,
    },
}

impl Edit {
    /// The fields the edit sets, as a JSON fragment of the object (for the plan).
    pub fn fragment(&self) -> Value {
        match self {
            Edit::ClaimRef {
                claim,
                uid,
                resource_version,
            } => json!({
                "metadata": { "annotations": { ANN_BOUND_BY_CONTROLLER: "yes" } },
                "spec": { "claimRef": claim_ref(claim, uid, resource_version) },
            }),
            Edit::SelectedNode { node } => json!({
                "metadata": { "annotations": { ANN_SELECTED_NODE: node } },
            }),
            Edit::DeleteProtection => json!({ "metadata": { "finalizers": [CLAIM_FINALIZER] } }),
            Edit::Reserve {
                allocation,
                pod_name,
                pod_uid,
                timestamp,
            } => {
                let mut st = json!({});
                if let Some(a) = allocation {
                    st["allocation"] = a.clone();
                }
                if *timestamp {
                    st["allocation"]["allocationTimestamp"] = json!("<now>");
                }
                st["reservedFor"] = json!([{ "resource": "pods", "name": pod_name, "uid": pod_uid }]);
                json!({ "status": st })
            }
        }
    }

    /// Makes the change on `obj` (the object's JSON as the server holds it); `now` is the
    /// RFC 3339 time of sending. False when there was nothing to change (the volume already
    /// names the claim, the finalizer is there).
    pub fn apply(&self, obj: &mut Value, now: &str) -> bool {
        fn annotations(obj: &mut Value) -> &mut serde_json::Map<String, Value> {
            let meta = ensure_object(obj, "metadata");
            let a = ensure_object(meta, "annotations");
            match a {
                Value::Object(m) => m,
                _ => unreachable_object(),
            }
        }
        match self {
            Edit::ClaimRef {
                claim,
                uid,
                resource_version,
            } => {
                let spec = ensure_object(obj, "spec");
                let r = &spec["claimRef"];
                let same_name =
                    r.is_object() && r["name"] == json!(claim.name) && r["namespace"] == json!(claim.namespace);
                // IsVolumeBoundToClaim: a claimRef without a uid (a user's pre-binding) counts
                let bound = same_name && (r["uid"].as_str().unwrap_or("").is_empty() || r["uid"] == json!(uid));
                let same_ref = same_name && r["uid"] == json!(uid);
                let mut changed = false;
                if !same_ref {
                    spec["claimRef"] = claim_ref(claim, uid, resource_version);
                    changed = true;
                }
                let a = annotations(obj);
                if !bound && !a.contains_key(ANN_BOUND_BY_CONTROLLER) {
                    a.insert(ANN_BOUND_BY_CONTROLLER.into(), json!("yes"));
                    changed = true;
                }
                changed
            }
            Edit::SelectedNode { node } => {
                let a = annotations(obj);
                let changed = a.get(ANN_SELECTED_NODE) != Some(&json!(node));
                a.insert(ANN_SELECTED_NODE.into(), json!(node));
                changed
            }
            Edit::DeleteProtection => {
                let meta = ensure_object(obj, "metadata");
                if !meta["finalizers"].is_array() {
                    meta["finalizers"] = json!([]);
                }
                let f = meta["finalizers"]
                    .as_array_mut()
                    .map(std::mem::take)
                    .unwrap_or_default();
                let has = f.iter().any(|x| x == CLAIM_FINALIZER);
                let mut f = f;
                if !has {
                    f.push(json!(CLAIM_FINALIZER));
                }
                meta["finalizers"] = Value::Array(f);
                !has
            }
            Edit::Reserve {
                allocation,
                pod_name,
                pod_uid,
                timestamp,
            } => {
                let st = ensure_object(obj, "status");
                if let Some(a) = allocation {
                    st["allocation"] = a.clone();
                }
                if *timestamp
                    && !now.is_empty()
                    && st["allocation"].is_object()
                    && st["allocation"]["allocationTimestamp"].is_null()
                {
                    st["allocation"]["allocationTimestamp"] = json!(now);
                }
                if !st["reservedFor"].is_array() {
                    st["reservedFor"] = json!([]);
                }
                if let Some(r) = st["reservedFor"].as_array_mut() {
                    r.push(json!({ "resource": "pods", "name": pod_name, "uid": pod_uid }));
                }
                true
            }
        }
    }

    /// How to undo the change once written, as a command (None when it cannot be undone by
    /// hand: a claim's allocation is for the scheduler to release).
    pub fn undo(&self, target: Target, key: &ObjectKey) -> Option<String> {
        let ns = if key.namespace.is_empty() {
            String::new()
        } else {
            format!(" -n {}", key.namespace)
        };
        match self {
            Edit::ClaimRef { .. } => Some(format!(
                "kubectl patch {} {}{ns} --type=json -p '[{{\"op\":\"remove\",\"path\":\"/spec/claimRef\"}}]' && kubectl annotate {} {}{ns} {ANN_BOUND_BY_CONTROLLER}-",
                target.kubectl(),
                key.name,
                target.kubectl(),
                key.name
            )),
            Edit::SelectedNode { .. } => Some(format!(
                "kubectl annotate {} {}{ns} {ANN_SELECTED_NODE}-",
                target.kubectl(),
                key.name
            )),
            Edit::DeleteProtection => None,
            Edit::Reserve { allocation, .. } => Some(format!(
                "kubectl patch {} {}{ns} --subresource=status --type=merge -p '{{\"status\":{{{}\"reservedFor\":null}}}}'",
                target.kubectl(),
                key.name,
                if allocation.is_some() {
                    "\"allocation\":null,"
                } else {
                    ""
                }
            )),
        }
    }
}

/// `spec.claimRef` of a volume bound to `claim` (`reference.GetReference` of the claim).
fn claim_ref(claim: &ObjectKey, uid: &str, resource_version: &str) -> Value {
    json!({
        "kind": "PersistentVolumeClaim",
        "namespace": claim.namespace,
        "name": claim.name,
        "uid": uid,
        "apiVersion": "v1",
        "resourceVersion": resource_version,
    })
}

/// `obj[key]`, made an object when it is missing or not one.
fn ensure_object<'a>(obj: &'a mut Value, key: &str) -> &'a mut Value {
    if !obj.is_object() {
        *obj = json!({});
    }
    if !obj[key].is_object() {
        obj[key] = json!({});
    }
    &mut obj[key]
}

fn unreachable_object() -> &'static mut serde_json::Map<String, Value> {
    // ensure_object always leaves an object; this is never reached, and hands out a fresh
    // map rather than panicking
    Box::leak(Box::default())
}

/// One object a PreBind plugin updates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Update {
    /// The plugin (VolumeBinding, DynamicResources).
    pub plugin: &'static str,
    /// The pod being bound.
    pub pod: ObjectKey,
    /// What is updated.
    pub target: Target,
    /// Its namespace/name (namespace empty for a PersistentVolume).
    pub key: ObjectKey,
    /// Whether the status subresource is written (a ResourceClaim's allocation).
    pub status: bool,
    /// The change.
    pub edit: Edit,
}

/// A claim VolumeBinding waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AwaitedClaim {
    /// The claim.
    pub claim: ObjectKey,
    /// The volume it is being bound to (a static binding), or None (dynamic provisioning).
    pub volume: Option<String>,
    /// The provisioner asked for a volume ("" for a static binding or when unknown).
    pub provisioner: String,
}

/// VolumeBinding's wait (`BindPodVolumes` after `bindAPIUpdate`): every claim must become
/// bound (its `spec.volumeName` set and the `pv.kubernetes.io/bind-completed` annotation
/// there, the PersistentVolume controller's mark) and stay on the node selected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AwaitVolumes {
    /// The pod being bound.
    pub pod: ObjectKey,
    /// Its node.
    pub node: String,
    /// The claims, in the order the plugin updated them.
    pub claims: Vec<AwaitedClaim>,
    /// How long to wait (VolumeBindingArgs `bindTimeoutSeconds`, 600 by default).
    pub timeout_secs: u64,
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
    /// VolumeBinding's wait ended with every claim bound, after this many seconds.
    Waited {
        /// Seconds.
        secs: u64,
    },
    /// Not waited for: in memory no controller binds claims (what a real cluster would do
    /// there).
    NotWaited(String),
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
        "no answer within {secs}s to '{what}'; it may or may not have been applied: check with `kubectl get {kind}{} {}`",
        if .pod.namespace.is_empty() { String::new() } else { format!(" -n {}", .pod.namespace) },
        .pod.name
    )]
    Timeout {
        /// The request.
        what: String,
        /// The object written, as `kubectl get` names its kind (pod, pv, pvc, resourceclaim).
        kind: &'static str,
        /// The object written (a pod for the pod requests).
        pod: ObjectKey,
        /// Seconds waited.
        secs: u64,
    },
    /// 404 on a PreBind update: the object is gone.
    #[error("{kind} {key} no longer exists (404 Not Found); refresh and try again")]
    ObjectNotFound {
        /// Its kind (PersistentVolume, ...).
        kind: &'static str,
        /// Its key.
        key: ObjectKey,
    },
    /// VolumeBinding's wait ended without every claim bound: upstream's PreBind error
    /// (`binding volumes: context deadline exceeded`, `binding volumes: provisioning failed
    /// for PVC "C"`), with what kschedtui saw of the claims.
    #[error("running PreBind plugin \"VolumeBinding\": binding volumes: {message}{}", detail(.state))]
    VolumesNotBound {
        /// Upstream's reason after `binding volumes: `.
        message: String,
        /// The claims' state and their last events, as kschedtui saw them.
        state: String,
    },
    /// The user interrupted a wait (Ctrl-C).
    #[error("interrupted while {what}; the writes already made stay")]
    Interrupted {
        /// What was being waited for.
        what: String,
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
                && matches!(s, Step::Failed(WriteError::Timeout { kind: "pod", .. }))
        })
    }

    fn victim_gone(&self, v: &ObjectKey) -> bool {
        self.plan.requests.iter().zip(&self.steps).any(|(r, s)| {
            r.pod() == v
                && match s {
                    Step::Done(Outcome::AlreadyGone) | Step::SkippedGone => true,
                    Step::Done(Outcome::Waited { .. } | Outcome::NotWaited(_)) => false,
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
                Step::Done(Outcome::Waited { secs }) => format!("every claim bound after {secs} s"),
                Step::Done(Outcome::NotWaited(why)) => format!("not waited for: {why}"),
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
        let undo = self.undo();
        if !dry_run && !self.ok() && !undo.is_empty() {
            out += "written before the failure, and how to undo it (the cluster's scheduler may also retry the pod and undo or reuse them):\n";
            for (summary, cmd) in undo {
                out += &format!("  {summary}: {cmd}\n");
            }
        }
        out
    }

    /// The requests that succeeded and changed something a later failure leaves behind, with
    /// the command that undoes each, in reverse order (undo the last first).
    pub fn undo(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self
            .plan
            .requests
            .iter()
            .zip(&self.steps)
            .filter(|(_, s)| matches!(s, Step::Done(Outcome::Done { .. })))
            .filter_map(|(r, _)| r.undo().map(|u| (r.summary(), u)))
            .collect();
        v.reverse();
        v
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
        let e = bind_plan(&c, &k("a/p"), "n1", None).unwrap_err();
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
        assert!(bind_plan(&c, &k("a/p"), "n1", None).is_ok());
    }

    #[test]
    fn bind_plan_posts_a_binding_with_the_pod_uid() {
        let c = load_str("t", CLUSTER).unwrap();
        let p = bind_plan(&c, &k("a/high"), "n1", None).unwrap();
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
                   "target": {"kind": "Node", "name": "n1"}})
        );
        assert_eq!(r.access().to_string(), "create pods/binding in namespace 'a'");
        assert_eq!(
            bind_plan(&c, &k("a/low"), "n1", None),
            Err(PlanError::AlreadyBound {
                pod: k("a/low"),
                node: "n1".into()
            })
        );
        assert_eq!(
            bind_plan(&c, &k("a/high"), "nope", None),
            Err(PlanError::NoNode("nope".into()))
        );
        assert_eq!(
            bind_plan(&c, &k("a/none"), "n1", None),
            Err(PlanError::NoPod(k("a/none")))
        );
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
            kind: "pod",
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
                    kind: "pod",
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
                kind: "pod",
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

    fn pv_update(edit: Edit) -> WriteRequest {
        WriteRequest::Update(Box::new(Update {
            plugin: "VolumeBinding",
            pod: k("shop/db-0"),
            target: Target::PersistentVolume,
            key: ObjectKey::new("", "pv-1"),
            status: false,
            edit,
        }))
    }

    fn claim_ref_edit() -> Edit {
        Edit::ClaimRef {
            claim: k("shop/data"),
            uid: "u-data".into(),
            resource_version: "41".into(),
        }
    }

    #[test]
    fn a_volume_gets_the_claim_ref_and_the_bound_by_controller_annotation() {
        // GetBindVolumeToClaim: an available volume gets the full claimRef and the annotation
        let mut pv =
            json!({"metadata": {"name": "pv-1", "resourceVersion": "7"}, "spec": {"capacity": {"storage": "10Gi"}}});
        assert!(claim_ref_edit().apply(&mut pv, "t"));
        assert_eq!(
            pv,
            json!({
                "metadata": {"name": "pv-1", "resourceVersion": "7",
                             "annotations": {"pv.kubernetes.io/bound-by-controller": "yes"}},
                "spec": {"capacity": {"storage": "10Gi"},
                         "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "shop", "name": "data",
                                      "uid": "u-data", "apiVersion": "v1", "resourceVersion": "41"}},
            })
        );
        // a volume the user pre-bound to the claim (no uid) gets the full ref, no annotation
        let mut pv = json!({"metadata": {"name": "pv-1"},
                            "spec": {"claimRef": {"namespace": "shop", "name": "data"}}});
        assert!(claim_ref_edit().apply(&mut pv, "t"));
        assert_eq!(pv["metadata"]["annotations"], json!({}));
        assert_eq!(pv["spec"]["claimRef"]["uid"], "u-data");
        // already bound to this very claim: nothing changes (the PUT is still sent)
        let before = pv.clone();
        assert!(!claim_ref_edit().apply(&mut pv, "t"));
        assert_eq!(pv, before);
    }

    #[test]
    fn claims_get_the_selected_node_and_resource_claims_the_finalizer_and_reservation() {
        let mut pvc = json!({"metadata": {"name": "data", "annotations": {"x": "y"}}});
        assert!(Edit::SelectedNode { node: "n1".into() }.apply(&mut pvc, "t"));
        assert_eq!(
            pvc["metadata"]["annotations"],
            json!({"x": "y", "volume.kubernetes.io/selected-node": "n1"})
        );
        let mut rc = json!({"metadata": {"name": "gpu", "finalizers": ["other"]}, "spec": {}});
        assert!(Edit::DeleteProtection.apply(&mut rc, "t"));
        assert!(!Edit::DeleteProtection.apply(&mut rc, "t"));
        assert_eq!(
            rc["metadata"]["finalizers"],
            json!(["other", "resource.kubernetes.io/delete-protection"])
        );
        let alloc = json!({"devices": {"results": [{"request": "gpu", "driver": "d", "pool": "p", "device": "g0"}]}});
        let reserve = Edit::Reserve {
            allocation: Some(alloc.clone()),
            pod_name: "infer".into(),
            pod_uid: "u-infer".into(),
            timestamp: true,
        };
        assert!(reserve.apply(&mut rc, "2026-12-07T12:00:00Z"));
        let mut want = alloc;
        want["allocationTimestamp"] = json!("2026-12-07T12:00:00Z");
        assert_eq!(
            rc["status"],
            json!({"allocation": want, "reservedFor": [{"resource": "pods", "name": "infer", "uid": "u-infer"}]})
        );
        // without a clock (in memory) no timestamp is written
        let mut rc2 = json!({});
        reserve.apply(&mut rc2, "");
        assert!(rc2["status"]["allocation"]["allocationTimestamp"].is_null());
    }

    #[test]
    fn a_bind_plan_nominates_then_sends_the_pre_bind_writes_then_the_binding() {
        let c = load_str("t", CLUSTER).unwrap();
        let writes = BindingWrites {
            nominate: true,
            pre_bind: vec![pv_update(claim_ref_edit())],
            unplanned: Vec::new(),
        };
        let plan = bind_plan(&c, &k("a/high"), "n1", Some(&writes)).unwrap();
        let lines: Vec<String> = plan.requests.iter().map(|r| r.describe(false)).collect();
        assert_eq!(
            lines,
            vec![
                r#"PATCH /api/v1/namespaces/a/pods/high/status {"status":{"nominatedNodeName":"n1"}}"#.to_string(),
                r#"PUT /api/v1/persistentvolumes/pv-1 {"metadata":{"annotations":{"pv.kubernetes.io/bound-by-controller":"yes"}},"spec":{"claimRef":{"kind":"PersistentVolumeClaim","namespace":"shop","name":"data","uid":"u-data","apiVersion":"v1","resourceVersion":"41"}}} (the object as read when sent, with these fields changed)"#.to_string(),
                r#"POST /api/v1/namespaces/a/pods/high/binding {"apiVersion":"v1","kind":"Binding","metadata":{"name":"high","namespace":"a","uid":"u-high"},"target":{"kind":"Node","name":"n1"}}"#.to_string(),
            ]
        );
        assert_eq!(
            plan.action,
            "bind a/high to node 'n1' after the scheduler's 2 earlier write(s)"
        );
        assert_eq!(
            plan.requests[1].access().to_string(),
            "update persistentvolumes (cluster-scoped)"
        );
        // what cannot be planned refuses the bind
        let refused = BindingWrites {
            unplanned: vec!["claim x gets a share".into()],
            ..writes
        };
        assert_eq!(
            bind_plan(&c, &k("a/high"), "n1", Some(&refused))
                .unwrap_err()
                .to_string(),
            "binding a/high as the scheduler does needs writes kschedtui cannot make: claim x gets a share; nothing was sent (let the cluster's scheduler bind it)"
        );
    }

    #[test]
    fn a_failure_part_way_says_what_was_written_and_how_to_undo_it() {
        let c = load_str("t", CLUSTER).unwrap();
        let writes = BindingWrites {
            nominate: false,
            pre_bind: vec![
                pv_update(claim_ref_edit()),
                WriteRequest::Update(Box::new(Update {
                    plugin: "VolumeBinding",
                    pod: k("a/high"),
                    target: Target::PersistentVolumeClaim,
                    key: k("a/scratch"),
                    status: false,
                    edit: Edit::SelectedNode { node: "n1".into() },
                })),
                WriteRequest::AwaitVolumes(Box::new(AwaitVolumes {
                    pod: k("a/high"),
                    node: "n1".into(),
                    claims: vec![AwaitedClaim {
                        claim: k("a/scratch"),
                        volume: None,
                        provisioner: "ebs.csi.aws.com".into(),
                    }],
                    timeout_secs: 600,
                })),
            ],
            unplanned: Vec::new(),
        };
        let plan = bind_plan(&c, &k("a/high"), "n1", Some(&writes)).unwrap();
        let report = Report {
            plan,
            steps: vec![
                Step::Done(Outcome::Done { code: 200 }),
                Step::Done(Outcome::Done { code: 200 }),
                Step::Failed(WriteError::VolumesNotBound {
                    message: "context deadline exceeded".into(),
                    state: "still unbound: a/scratch Pending".into(),
                }),
                Step::NotSent,
            ],
        };
        assert!(!report.ok());
        assert_eq!(
            report.render(false),
            "  1. VolumeBinding PreBind: bind PersistentVolume pv-1 to claim shop/data: ok (200)\n\
             \x20 2. VolumeBinding PreBind: annotate claim a/scratch volume.kubernetes.io/selected-node=n1 (provision a volume there): ok (200)\n\
             \x20 3. VolumeBinding PreBind: wait until claim(s) a/scratch are bound (at most 600 s): FAILED: running PreBind plugin \"VolumeBinding\": binding volumes: context deadline exceeded: still unbound: a/scratch Pending\n\
             \x20 4. bind a/high to node 'n1': not sent: an earlier request failed\n\
             written before the failure, and how to undo it (the cluster's scheduler may also retry the pod and undo or reuse them):\n\
             \x20 VolumeBinding PreBind: annotate claim a/scratch volume.kubernetes.io/selected-node=n1 (provision a volume there): kubectl annotate pvc scratch -n a volume.kubernetes.io/selected-node-\n\
             \x20 VolumeBinding PreBind: bind PersistentVolume pv-1 to claim shop/data: kubectl patch pv pv-1 --type=json -p '[{\"op\":\"remove\",\"path\":\"/spec/claimRef\"}]' && kubectl annotate pv pv-1 pv.kubernetes.io/bound-by-controller-\n"
        );
    }
}
