//! The one in-memory API server: a write request applied to a cluster in memory exactly as
//! kube-apiserver's pod registry would apply it (registry/core/pod/storage: `BindingREST`,
//! `EvictionREST`, the status subresource and DELETE), with its preconditions and refusals.
//! Every place that changes a cluster in memory goes through [`respond`]: the snapshot source
//! (`source::fixture`, which also sends the watch events), the TUI in snapshot mode and
//! `kschedtui bind|preempt --snapshot` (both through [`execute`], the same plan and report as a
//! live cluster), and `simulate` (`Cluster::bind_pod`, `evict_pod`, `set_nominated_node`).
//!
//! What the server does, per request:
//! - binding: 404 for a missing pod; 409 when the binding's uid is not the pod's, when the pod
//!   is being deleted, already has a node, or still has scheduling gates; otherwise
//!   spec.nodeName, the `PodScheduled=True` condition, and (`ClearingNominatedNodeNameAfterBinding`,
//!   on from 1.35) status.nominatedNodeName cleared.
//! - status patches (DisruptionTarget, nominatedNodeName): strategic merge on the status, 404
//!   for a missing pod.
//! - DELETE: the uid precondition (409), a missing pod is already gone (404).
//! - eviction: PodDisruptionBudgets are ignored for a pod that is Pending, finished or being
//!   deleted; several covering PDBs are a 500; an unready pod passes without spending a
//!   disruption when the budget's `unhealthyPodEvictionPolicy` is AlwaysAllow or the
//!   application is healthy; a budget not yet observed at its generation, or with no
//!   disruption left, answers 429 with the server's cause; a negative budget is a 403;
//!   otherwise one disruption is spent and the pod deleted.
//!
//! A snapshot that recorded no status for a pod (hand-written ones often do not) has it
//! running and ready: no phase is not Pending, no conditions is not unready.
//!
//! Two simplifications, both deterministic on purpose (the same action gives the same file):
//! deletion completes at once (as if the kubelet had already stopped the pod; a live cluster
//! shows it Terminating first), and no timestamps are written (conditions keep the
//! lastTransitionTime they had, or have none; the PDB's `disruptedPods` map, which only the
//! PDB controller reads, is not filled).

use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;

use super::event::{ClusterEvent, ClusterState, Item, Kind};
use super::selector::Selector;
use super::write::{
    AwaitVolumes, Outcome, Plan, PlanRun, REASON_PREEMPTION_BY_SCHEDULER, Report, Target, Update, WriteError,
    WriteMode, WriteRequest,
};
use super::{Cluster, Object, ObjectKey, Pod};
use k8s_openapi::api::resource::v1::ResourceClaim;

/// How the server behaves where releases differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerOptions {
    /// `ClearingNominatedNodeNameAfterBinding` (beta, on by default from 1.35): a binding clears
    /// status.nominatedNodeName.
    pub clear_nomination_on_bind: bool,
}

/// One stored object changed by a request.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// The pod as it is now.
    Pod(Box<core::Pod>),
    /// The pod, deleted.
    PodDeleted(Box<core::Pod>),
    /// The budget as it is now.
    Pdb(Box<PodDisruptionBudget>),
    /// A PersistentVolume as it is now (VolumeBinding's PreBind).
    Volume(Box<core::PersistentVolume>),
    /// A PersistentVolumeClaim as it is now (VolumeBinding's PreBind).
    Claim(Box<core::PersistentVolumeClaim>),
    /// A ResourceClaim as it is now (DynamicResources' PreBind).
    ResourceClaim(Box<ResourceClaim>),
}

impl Change {
    /// The watch event a client of the server sees for the change.
    pub fn to_event(&self) -> ClusterEvent {
        match self {
            Change::Pod(p) => ClusterEvent::Applied(Box::new(Object::Pod(p.clone()).into())),
            Change::PodDeleted(p) => ClusterEvent::Deleted(Box::new(Object::Pod(p.clone()).into())),
            Change::Pdb(b) => ClusterEvent::Applied(Box::new(Object::PodDisruptionBudget(b.clone()).into())),
            Change::Volume(v) => ClusterEvent::Applied(Box::new(Object::PersistentVolume(v.clone()).into())),
            Change::Claim(c) => ClusterEvent::Applied(Box::new(Object::PersistentVolumeClaim(c.clone()).into())),
            Change::ResourceClaim(c) => ClusterEvent::Applied(Box::new(Object::ResourceClaim(c.clone()).into())),
        }
    }
}

/// What the server stores: pods and PodDisruptionBudgets, and the objects PreBind plugins
/// update (volumes, claims, resource claims), read and changed.
pub trait Store {
    /// The pod object.
    fn pod_object(&self, key: &ObjectKey) -> Option<&core::Pod>;
    /// The budgets of a namespace.
    fn pdbs_in(&self, namespace: &str) -> Vec<&PodDisruptionBudget>;
    /// A PersistentVolume, PersistentVolumeClaim or ResourceClaim as JSON (apiVersion and
    /// kind first).
    fn target_json(&self, target: Target, key: &ObjectKey) -> Option<serde_json::Value>;
    /// Stores a change.
    fn store(&mut self, change: Change);
}

impl Store for ClusterState {
    fn pod_object(&self, key: &ObjectKey) -> Option<&core::Pod> {
        self.item(Kind::Pod, key)?.pod_object()
    }

    fn pdbs_in(&self, namespace: &str) -> Vec<&PodDisruptionBudget> {
        self.items_of(Kind::PodDisruptionBudget)
            .filter_map(|o| match o {
                Item::Object(Object::PodDisruptionBudget(b)) if b.metadata.namespace.as_deref() == Some(namespace) => {
                    Some(&**b)
                }
                _ => None,
            })
            .collect()
    }

    fn target_json(&self, target: Target, key: &ObjectKey) -> Option<serde_json::Value> {
        self.get(target.kind(), key).map(|o| o.to_json())
    }

    fn store(&mut self, change: Change) {
        self.apply(change.to_event());
    }
}

impl Store for Cluster {
    fn pod_object(&self, key: &ObjectKey) -> Option<&core::Pod> {
        self.pod(key).map(|p| &*p.obj)
    }

    fn target_json(&self, target: Target, key: &ObjectKey) -> Option<serde_json::Value> {
        let obj = match target {
            Target::PersistentVolume => Object::PersistentVolume(Box::new(self.pvs.get(key.name.as_str())?.clone())),
            Target::PersistentVolumeClaim => Object::PersistentVolumeClaim(Box::new(self.pvcs.get(key)?.clone())),
            Target::ResourceClaim => Object::ResourceClaim(Box::new(self.resource_claims.get(key)?.clone())),
        };
        Some(obj.to_json())
    }

    fn pdbs_in(&self, namespace: &str) -> Vec<&PodDisruptionBudget> {
        self.pdbs
            .iter()
            .filter(|b| b.metadata.namespace.as_deref() == Some(namespace))
            .collect()
    }

    fn store(&mut self, change: Change) {
        match change {
            Change::Pod(obj) => {
                let key = meta_key(&obj.metadata);
                match self.pods.binary_search_by(|p| p.key.cmp(&key)) {
                    Ok(i) => {
                        // only scheduling fields change, so the priority resolved at load stays
                        let priority = self.pods[i].priority;
                        if let Ok(mut p) = Pod::from_obj(obj, |_| priority) {
                            p.priority = priority;
                            self.pods[i] = Arc::new(p);
                        }
                    }
                    Err(i) => {
                        if let Ok(p) = Pod::from_obj(obj, |_| 0) {
                            self.pods.insert(i, Arc::new(p));
                        }
                    }
                }
            }
            Change::PodDeleted(obj) => {
                let key = meta_key(&obj.metadata);
                if let Ok(i) = self.pods.binary_search_by(|p| p.key.cmp(&key)) {
                    self.pods.remove(i);
                }
            }
            Change::Volume(v) => {
                let name = v.metadata.name.clone().unwrap_or_default();
                self.pvs.insert(name, *v);
            }
            Change::Claim(c) => {
                self.pvcs.insert(meta_key(&c.metadata), *c);
            }
            Change::ResourceClaim(c) => {
                self.resource_claims.insert(meta_key(&c.metadata), *c);
            }
            Change::Pdb(b) => {
                let same = |x: &PodDisruptionBudget| {
                    x.metadata.namespace == b.metadata.namespace && x.metadata.name == b.metadata.name
                };
                match self.pdbs.iter_mut().find(|x| same(x)) {
                    Some(x) => *x = *b,
                    None => self.pdbs.push(*b),
                }
            }
        }
    }
}

fn meta_key(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> ObjectKey {
    ObjectKey::new(
        m.namespace.clone().unwrap_or_default(),
        m.name.clone().unwrap_or_default(),
    )
}

fn pod_of<S: Store + ?Sized>(store: &S, key: &ObjectKey) -> Result<core::Pod, WriteError> {
    store
        .pod_object(key)
        .cloned()
        .ok_or_else(|| WriteError::NotFound { pod: key.clone() })
}

/// `NewConflict(resource, name, err)`'s message.
fn conflict(resource: &str, name: &str, why: &str) -> WriteError {
    WriteError::Conflict {
        message: format!("Operation cannot be fulfilled on {resource} \"{name}\": {why}"),
    }
}

/// The storage layer's uid precondition.
fn check_uid(resource: &str, p: &core::Pod, uid: Option<&String>) -> Result<(), WriteError> {
    let actual = p.metadata.uid.clone().unwrap_or_default();
    match uid {
        Some(u) if *u != actual => Err(conflict(
            resource,
            p.metadata.name.as_deref().unwrap_or_default(),
            &format!("Precondition failed: UID in precondition: {u}, UID in object meta: {actual}"),
        )),
        _ => Ok(()),
    }
}

/// `podutil.UpdatePodCondition` without a clock: the condition replaced by type, keeping its
/// lastTransitionTime only when the status is unchanged.
fn update_condition(p: &mut core::Pod, type_: &str, status: &str, reason: &str, message: &str) {
    let conds = p
        .status
        .get_or_insert_with(Default::default)
        .conditions
        .get_or_insert_with(Vec::new);
    let mut c = core::PodCondition {
        type_: type_.to_string(),
        status: status.to_string(),
        reason: Some(reason.to_string()).filter(|r| !r.is_empty()),
        message: Some(message.to_string()).filter(|m| !m.is_empty()),
        ..Default::default()
    };
    match conds.iter_mut().find(|x| x.type_ == type_) {
        Some(x) => {
            if x.status == c.status {
                c.last_transition_time = x.last_transition_time.clone();
            }
            *x = c;
        }
        None => conds.push(c),
    }
}

/// A strategic merge patch of one condition (merge key `type`): the patched fields set, the
/// others kept.
fn merge_condition(p: &mut core::Pod, type_: &str, status: &str, reason: &str, message: &str) {
    let conds = p
        .status
        .get_or_insert_with(Default::default)
        .conditions
        .get_or_insert_with(Vec::new);
    let i = match conds.iter().position(|x| x.type_ == type_) {
        Some(i) => i,
        None => {
            conds.push(core::PodCondition {
                type_: type_.to_string(),
                ..Default::default()
            });
            conds.len() - 1
        }
    };
    let c = &mut conds[i];
    c.status = status.to_string();
    c.reason = Some(reason.to_string());
    c.message = Some(message.to_string());
}

/// status.phase; "" when the snapshot recorded none.
fn phase(p: &core::Pod) -> &str {
    p.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or("")
}

fn being_deleted(p: &core::Pod) -> bool {
    p.metadata.deletion_timestamp.is_some()
}

/// `podutil.IsPodReady`: the Ready condition is True. A pod whose snapshot recorded no
/// conditions at all is taken as ready (hand-written snapshots leave status out).
fn ready(p: &core::Pod) -> bool {
    match p.status.as_ref().and_then(|s| s.conditions.as_ref()) {
        None => true,
        Some(cs) => cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"),
    }
}

fn bind(
    store: &(impl Store + ?Sized),
    key: &ObjectKey,
    uid: Option<&String>,
    node: &str,
    opts: &ServerOptions,
) -> Result<(Outcome, Vec<Change>), WriteError> {
    let mut p = pod_of(store, key)?;
    check_uid("pods", &p, uid)?;
    let resource = "pods/binding";
    if being_deleted(&p) {
        return Err(conflict(
            resource,
            &key.name,
            &format!("pod {} is being deleted, cannot be assigned to a host", key.name),
        ));
    }
    let spec = p.spec.get_or_insert_with(Default::default);
    if let Some(n) = spec.node_name.as_ref().filter(|n| !n.is_empty()) {
        return Err(WriteError::AlreadyBound {
            pod: key.clone(),
            node: n.clone(),
        });
    }
    if spec.scheduling_gates.as_ref().is_some_and(|g| !g.is_empty()) {
        return Err(conflict(
            resource,
            &key.name,
            &format!("pod {} has non-empty .spec.schedulingGates", key.name),
        ));
    }
    spec.node_name = Some(node.to_string());
    if opts.clear_nomination_on_bind
        && let Some(st) = p.status.as_mut()
    {
        st.nominated_node_name = None;
    }
    update_condition(&mut p, "PodScheduled", "True", "", "");
    Ok((Outcome::Done { code: 201 }, vec![Change::Pod(Box::new(p))]))
}

fn evict(
    store: &(impl Store + ?Sized),
    key: &ObjectKey,
    uid: Option<&String>,
    what: &str,
) -> Result<(Outcome, Vec<Change>), WriteError> {
    let Some(p) = store.pod_object(key).cloned() else {
        return Ok((Outcome::AlreadyGone, Vec::new()));
    };
    let deleted = |p: core::Pod| -> Result<Vec<Change>, WriteError> {
        // addConditionAndDeletePod: the eviction's own uid check, then the delete
        let actual = p.metadata.uid.clone().unwrap_or_default();
        if let Some(u) = uid
            && *u != actual
        {
            return Err(conflict(
                "Pod",
                &key.name,
                &format!(
                    "the UID in the precondition ({u}) does not match the UID in record ({actual}). The object might have been deleted and then recreated"
                ),
            ));
        }
        Ok(vec![Change::PodDeleted(Box::new(p))])
    };
    // canIgnorePDB
    if matches!(phase(&p), "Succeeded" | "Failed" | "Pending") || being_deleted(&p) {
        return Ok((Outcome::Done { code: 201 }, deleted(p)?));
    }
    let labels = p.metadata.labels.clone().unwrap_or_default();
    let covering: Vec<&PodDisruptionBudget> = store
        .pdbs_in(&key.namespace)
        .into_iter()
        .filter(|b| Selector::from_label_selector(b.spec.as_ref().and_then(|s| s.selector.as_ref())).matches(&labels))
        .collect();
    let pdb = match covering[..] {
        [] => return Ok((Outcome::Done { code: 201 }, deleted(p)?)),
        [b] => b.clone(),
        _ => {
            return Err(WriteError::Api {
                what: what.to_string(),
                code: 500,
                reason: "InternalError".into(),
                message:
                    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
                        .into(),
            });
        }
    };
    let name = pdb.metadata.name.clone().unwrap_or_default();
    let st = pdb.status.clone().unwrap_or_default();
    let (allowed, desired, current) = (
        st.disruptions_allowed.unwrap_or(0),
        st.desired_healthy.unwrap_or(0),
        st.current_healthy.unwrap_or(0),
    );
    if !ready(&p) {
        let always = pdb
            .spec
            .as_ref()
            .and_then(|s| s.unhealthy_pod_eviction_policy.as_deref())
            == Some("AlwaysAllow");
        if always || (current >= desired && desired > 0) {
            // an unready pod does not count as healthy: deleting it spends no disruption
            return Ok((Outcome::Done { code: 201 }, deleted(p)?));
        }
    }
    // checkAndDecrement
    if st.observed_generation.unwrap_or(0) < pdb.metadata.generation.unwrap_or(0) {
        return Err(WriteError::PdbBlocked {
            pod: key.clone(),
            pdb: Some(name.clone()),
            message: format!("The disruption budget {name} is still being processed by the server."),
        });
    }
    if allowed < 0 {
        return Err(WriteError::Api {
            what: what.to_string(),
            code: 403,
            reason: "Forbidden".into(),
            message: format!(
                "poddisruptionbudgets.policy \"{name}\" is forbidden: pdb disruptions allowed is negative"
            ),
        });
    }
    if allowed == 0 {
        return Err(WriteError::PdbBlocked {
            pod: key.clone(),
            pdb: Some(name.clone()),
            message: format!(
                "The disruption budget {name} needs {} healthy pods and has {} currently",
                desired, current
            ),
        });
    }
    let mut b = pdb;
    let bst = b.status.get_or_insert_with(Default::default);
    bst.disruptions_allowed = Some(allowed - 1);
    if allowed == 1 {
        // UpdateDisruptionAllowedCondition, on the condition the PDB controller set
        let generation = bst.observed_generation;
        if let Some(c) = bst
            .conditions
            .as_mut()
            .and_then(|cs| cs.iter_mut().find(|c| c.type_ == "DisruptionAllowed"))
        {
            c.status = "False".into();
            c.reason = "InsufficientPods".into();
            c.message = String::new();
            c.observed_generation = generation;
        }
    }
    let mut changes = vec![Change::Pdb(Box::new(b))];
    changes.extend(deleted(p)?);
    Ok((Outcome::Done { code: 201 }, changes))
}

/// The server's answer to one request, and the objects it changes (nothing is stored).
pub fn respond(
    store: &(impl Store + ?Sized),
    req: &WriteRequest,
    opts: &ServerOptions,
) -> Result<(Outcome, Vec<Change>), WriteError> {
    let key = req.pod();
    match req {
        WriteRequest::Bind { uid, node, .. } => bind(store, key, uid.as_ref(), node, opts),
        WriteRequest::MarkDisruptionTarget { scheduler_name, .. } => {
            let mut p = pod_of(store, key)?;
            merge_condition(
                &mut p,
                "DisruptionTarget",
                "True",
                REASON_PREEMPTION_BY_SCHEDULER,
                &format!("{scheduler_name}: preempting to accommodate a higher priority pod"),
            );
            Ok((Outcome::Done { code: 200 }, vec![Change::Pod(Box::new(p))]))
        }
        WriteRequest::Nominate { node, .. } => {
            let mut p = pod_of(store, key)?;
            p.status.get_or_insert_with(Default::default).nominated_node_name = node.clone();
            Ok((Outcome::Done { code: 200 }, vec![Change::Pod(Box::new(p))]))
        }
        WriteRequest::Delete { uid, .. } => match store.pod_object(key) {
            None => Ok((Outcome::AlreadyGone, Vec::new())),
            Some(p) => {
                check_uid("pods", p, uid.as_ref())?;
                Ok((
                    Outcome::Done { code: 200 },
                    vec![Change::PodDeleted(Box::new(p.clone()))],
                ))
            }
        },
        WriteRequest::Evict { uid, .. } => evict(store, key, uid.as_ref(), &req.summary()),
        WriteRequest::Update(u) => update(store, u, &req.summary()),
        WriteRequest::AwaitVolumes(w) => Ok((Outcome::NotWaited(not_waited(w)), Vec::new())),
    }
}

/// A PUT of an object a PreBind plugin changed: the edit made on the object as stored (the
/// store keeps no resourceVersions to conflict on), with the checks of the objects'
/// strategies that matter here.
fn update(store: &(impl Store + ?Sized), u: &Update, what: &str) -> Result<(Outcome, Vec<Change>), WriteError> {
    let name = u.target.kind().name();
    let mut obj = store
        .target_json(u.target, &u.key)
        .ok_or_else(|| WriteError::ObjectNotFound {
            kind: name,
            key: u.key.clone(),
        })?;
    if u.target == Target::ResourceClaim && u.status {
        // resource.k8s.io validation: an allocation, once made, cannot change, and no new
        // reservation is accepted on a claim being deleted
        if let super::write::Edit::Reserve {
            allocation: Some(a), ..
        } = &u.edit
        {
            let current = &obj["status"]["allocation"];
            if !current.is_null() && current != a {
                return Err(WriteError::Api {
                    what: what.to_string(),
                    code: 422,
                    reason: "Invalid".into(),
                    message: format!(
                        "ResourceClaim.resource.k8s.io \"{}\" is invalid: status.allocation: Invalid value: field is immutable",
                        u.key.name
                    ),
                });
            }
        }
        if !obj["metadata"]["deletionTimestamp"].is_null() {
            return Err(WriteError::Api {
                what: what.to_string(),
                code: 422,
                reason: "Invalid".into(),
                message: format!(
                    "ResourceClaim.resource.k8s.io \"{}\" is invalid: status.reservedFor: Forbidden: new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set",
                    u.key.name
                ),
            });
        }
    }
    // no clock in memory: an allocation timestamp is left out, as conditions' times are
    u.edit.apply(&mut obj, "");
    let bad = |e: serde_json::Error| WriteError::Api {
        what: what.to_string(),
        code: 400,
        reason: "BadRequest".into(),
        message: format!("{name} {}: {e}", u.key),
    };
    let change = match u.target {
        Target::PersistentVolume => Change::Volume(Box::new(serde_json::from_value(obj).map_err(bad)?)),
        Target::PersistentVolumeClaim => Change::Claim(Box::new(serde_json::from_value(obj).map_err(bad)?)),
        Target::ResourceClaim => Change::ResourceClaim(Box::new(serde_json::from_value(obj).map_err(bad)?)),
    };
    Ok((Outcome::Done { code: 200 }, vec![change]))
}

/// What a real cluster would wait for where the in-memory server does not.
fn not_waited(w: &AwaitVolumes) -> String {
    let each: Vec<String> = w
        .claims
        .iter()
        .map(|c| match (&c.volume, c.provisioner.as_str()) {
            (Some(v), _) => format!("the PersistentVolume controller to bind {} to {v}", c.claim),
            (None, "") => format!("a provisioner to create a volume for {} on node '{}'", c.claim, w.node),
            (None, p) => format!(
                "provisioner {p} to create a volume for {} on node '{}'",
                c.claim, w.node
            ),
        })
        .collect();
    format!(
        "no controller runs in memory; a real cluster waits here (at most {} s) for {}, and binds the pod only then",
        w.timeout_secs,
        each.join(", ")
    )
}

/// Sends one request: answered by [`respond`], stored unless `mode` is a dry run; `--readonly`
/// refuses. Returns the changes stored (none in a dry run).
pub fn send(
    store: &mut (impl Store + ?Sized),
    req: &WriteRequest,
    mode: WriteMode,
    opts: &ServerOptions,
) -> Result<(Outcome, Vec<Change>), WriteError> {
    if mode == WriteMode::ReadOnly {
        return Err(WriteError::ReadOnly);
    }
    let (outcome, changes) = respond(store, req, opts)?;
    if mode == WriteMode::DryRun {
        return Ok((outcome, Vec::new()));
    }
    for c in &changes {
        store.store(c.clone());
    }
    Ok((outcome, changes))
}

/// Executes a plan on the store, request by request, with the stop and skip rules of a live
/// cluster ([`PlanRun`]).
pub fn execute(store: &mut (impl Store + ?Sized), plan: &Plan, mode: WriteMode, opts: &ServerOptions) -> Report {
    let mut run = PlanRun::default();
    for r in &plan.requests {
        if run.should_send(r) {
            let answer = send(store, r, mode, opts).map(|(o, _)| o);
            run.record(r, answer);
        }
    }
    run.finish(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::write::{Removal, Step, preempt_plan};
    use crate::source::file::{load_str, read_objects_str};

    const CLUSTER: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", pods: "10"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: db-0, namespace: a, uid: u-db0, labels: {app: db}}
  spec: {nodeName: n1, priority: 1, containers: [{name: c, image: i}]}
  status: {phase: Running, conditions: [{type: Ready, status: "True"}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: db-1, namespace: a, uid: u-db1, labels: {app: db}}
  spec: {nodeName: n1, priority: 1, containers: [{name: c, image: i}]}
  status: {phase: Running, conditions: [{type: Ready, status: "False"}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: a, uid: u-web, labels: {app: web}}
  spec: {nodeName: n1, priority: 1, containers: [{name: c, image: i}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: hi, namespace: a, uid: u-hi}
  spec: {priority: 10, containers: [{name: c, image: i}]}
  status:
    nominatedNodeName: n1
    conditions: [{type: PodScheduled, status: "False", reason: Unschedulable, message: "0/1 nodes are available"}]
- apiVersion: v1
  kind: Pod
  metadata: {name: gated, namespace: a, uid: u-g}
  spec: {schedulingGates: [{name: acme.io/wait}], containers: [{name: c, image: i}]}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: db, namespace: a, generation: 2}
  spec: {selector: {matchLabels: {app: db}}, minAvailable: 1}
  status:
    disruptionsAllowed: 1
    desiredHealthy: 1
    currentHealthy: 2
    expectedPods: 2
    observedGeneration: 2
    conditions: [{type: DisruptionAllowed, status: "True", reason: SufficientPods, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}]
"#;

    fn k(s: &str) -> ObjectKey {
        ObjectKey::parse(s, "")
    }

    fn cluster() -> Cluster {
        load_str("t", CLUSTER).unwrap()
    }

    fn state() -> ClusterState {
        let mut w = Vec::new();
        ClusterState::from_objects(read_objects_str("t", CLUSTER, &mut w).unwrap())
    }

    fn bind(pod: &str, uid: Option<&str>) -> WriteRequest {
        WriteRequest::Bind {
            pod: k(pod),
            uid: uid.map(str::to_string),
            node: "n1".into(),
        }
    }

    fn evict(pod: &str) -> WriteRequest {
        WriteRequest::Evict { pod: k(pod), uid: None }
    }

    const ON: ServerOptions = ServerOptions {
        clear_nomination_on_bind: true,
    };

    #[test]
    fn binding_sets_the_node_and_pod_scheduled_and_clears_the_nomination_where_the_release_does() {
        let mut c = cluster();
        send(&mut c, &bind("a/hi", Some("u-hi")), WriteMode::Enabled, &ON).unwrap();
        let p = c.pod(&k("a/hi")).unwrap();
        assert_eq!(p.node_name.as_deref(), Some("n1"));
        assert_eq!(p.nominated_node_name(), None);
        assert_eq!(p.priority, 10);
        let conds = p.obj.status.as_ref().unwrap().conditions.as_ref().unwrap();
        assert_eq!(conds.len(), 1);
        assert_eq!((conds[0].status.as_str(), conds[0].reason.as_deref()), ("True", None));
        let mut c = cluster();
        send(
            &mut c,
            &bind("a/hi", None),
            WriteMode::Enabled,
            &ServerOptions::default(),
        )
        .unwrap();
        assert_eq!(c.pod(&k("a/hi")).unwrap().nominated_node_name(), Some("n1"));
    }

    #[test]
    fn binding_refusals_are_the_servers() {
        let c = cluster();
        let opts = ServerOptions::default();
        assert_eq!(
            respond(&c, &bind("a/hi", Some("other")), &opts).unwrap_err(),
            WriteError::Conflict {
                message: "Operation cannot be fulfilled on pods \"hi\": Precondition failed: UID in precondition: other, UID in object meta: u-hi".into()
            }
        );
        assert_eq!(
            respond(&c, &bind("a/web", None), &opts).unwrap_err(),
            WriteError::AlreadyBound {
                pod: k("a/web"),
                node: "n1".into()
            }
        );
        assert_eq!(
            respond(&c, &bind("a/gated", None), &opts).unwrap_err(),
            WriteError::Conflict {
                message: "Operation cannot be fulfilled on pods/binding \"gated\": pod gated has non-empty .spec.schedulingGates".into()
            }
        );
        assert_eq!(
            respond(&c, &bind("a/nope", None), &opts).unwrap_err(),
            WriteError::NotFound { pod: k("a/nope") }
        );
        let mut deleting = c.pod(&k("a/hi")).unwrap().obj.clone();
        deleting.metadata.deletion_timestamp = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
            k8s_openapi::jiff::Timestamp::UNIX_EPOCH,
        ));
        let mut c2 = c.clone();
        c2.store(Change::Pod(deleting.into_box()));
        assert_eq!(
            respond(&c2, &bind("a/hi", None), &opts).unwrap_err(),
            WriteError::Conflict {
                message: "Operation cannot be fulfilled on pods/binding \"hi\": pod hi is being deleted, cannot be assigned to a host".into()
            }
        );
    }

    #[test]
    fn eviction_spends_a_disruption_then_the_budget_refuses() {
        let mut c = cluster();
        let opts = ServerOptions::default();
        send(&mut c, &evict("a/db-0"), WriteMode::Enabled, &opts).unwrap();
        assert!(c.pod(&k("a/db-0")).is_none());
        let st = c.pdbs[0].status.as_ref().unwrap();
        assert_eq!(st.disruptions_allowed, Some(0));
        let cond = &st.conditions.as_ref().unwrap()[0];
        assert_eq!(
            (cond.status.as_str(), cond.reason.as_str()),
            ("False", "InsufficientPods")
        );
        // db-1 is not ready and the application healthy (2 >= 1): deleted without a disruption
        send(&mut c, &evict("a/db-1"), WriteMode::Enabled, &opts).unwrap();
        assert!(c.pod(&k("a/db-1")).is_none());
        assert_eq!(c.pdbs[0].status.as_ref().unwrap().disruptions_allowed, Some(0));
    }

    #[test]
    fn eviction_refusals_are_the_servers() {
        let opts = ServerOptions::default();
        let with_status = |f: &dyn Fn(&mut k8s_openapi::api::policy::v1::PodDisruptionBudgetStatus)| {
            let mut c = cluster();
            f(c.pdbs[0].status.as_mut().unwrap());
            c
        };
        let c = with_status(&|s| s.disruptions_allowed = Some(0));
        assert_eq!(
            respond(&c, &evict("a/db-0"), &opts).unwrap_err(),
            WriteError::PdbBlocked {
                pod: k("a/db-0"),
                pdb: Some("db".into()),
                message: "The disruption budget db needs 1 healthy pods and has 2 currently".into()
            }
        );
        let c = with_status(&|s| s.observed_generation = Some(1));
        assert_eq!(
            respond(&c, &evict("a/db-0"), &opts).unwrap_err(),
            WriteError::PdbBlocked {
                pod: k("a/db-0"),
                pdb: Some("db".into()),
                message: "The disruption budget db is still being processed by the server.".into()
            }
        );
        let c = with_status(&|s| s.disruptions_allowed = Some(-1));
        assert!(matches!(
            respond(&c, &evict("a/db-0"), &opts).unwrap_err(),
            WriteError::Api { code: 403, message, .. } if message.ends_with("pdb disruptions allowed is negative")
        ));
        // a Pending pod is deleted without asking the budget
        let mut c = with_status(&|s| s.disruptions_allowed = Some(0));
        let mut pending = c.pod(&k("a/db-0")).unwrap().obj.clone();
        pending.status.as_mut().unwrap().phase = Some("Pending".into());
        c.store(Change::Pod(pending.into_box()));
        assert!(respond(&c, &evict("a/db-0"), &opts).is_ok());
        // two budgets cover db-0
        let mut c = cluster();
        let mut second = c.pdbs[0].clone();
        second.metadata.name = Some("db2".into());
        c.store(Change::Pdb(Box::new(second)));
        assert!(matches!(
            respond(&c, &evict("a/db-0"), &opts).unwrap_err(),
            WriteError::Api { code: 500, .. }
        ));
        // a gone pod is already evicted
        assert_eq!(respond(&c, &evict("a/nope"), &opts).unwrap().0, Outcome::AlreadyGone);
    }

    #[test]
    fn delete_checks_the_uid_and_dry_run_and_readonly_store_nothing() {
        let mut c = cluster();
        let opts = ServerOptions::default();
        let del = |uid: &str| WriteRequest::Delete {
            pod: k("a/web"),
            uid: Some(uid.into()),
        };
        assert!(matches!(
            send(&mut c, &del("x"), WriteMode::Enabled, &opts).unwrap_err(),
            WriteError::Conflict { message } if message.contains("UID in precondition: x, UID in object meta: u-web")
        ));
        assert_eq!(
            send(&mut c, &del("u-web"), WriteMode::DryRun, &opts).unwrap(),
            (Outcome::Done { code: 200 }, Vec::new())
        );
        assert_eq!(
            send(&mut c, &del("u-web"), WriteMode::ReadOnly, &opts).unwrap_err(),
            WriteError::ReadOnly
        );
        assert!(c.pod(&k("a/web")).is_some());
        send(&mut c, &del("u-web"), WriteMode::Enabled, &opts).unwrap();
        assert!(c.pod(&k("a/web")).is_none());
    }

    #[test]
    fn a_plan_gives_the_same_cluster_on_every_store() {
        let c0 = cluster();
        for how in [Removal::Delete, Removal::Evict] {
            let plan = preempt_plan(&c0, &k("a/hi"), "n1", &[k("a/web"), k("a/db-0")], how).unwrap();
            let mut c = c0.clone();
            let mut s = state();
            let r1 = execute(&mut c, &plan, WriteMode::Enabled, &ON);
            let r2 = execute(&mut s, &plan, WriteMode::Enabled, &ON);
            assert_eq!(r1, r2);
            assert!(r1.ok(), "{}", r1.render(false));
            assert_eq!(
                crate::source::save::to_list(&c),
                crate::source::save::to_list(&s.to_cluster().unwrap()),
                "{how:?}"
            );
            assert_eq!(c.pod(&k("a/hi")).unwrap().nominated_node_name(), Some("n1"));
            assert!(c.pod(&k("a/web")).is_none() && c.pod(&k("a/db-0")).is_none());
        }
        // the budget allows one disruption: evicting both db pods stops at the second
        let plan = preempt_plan(&c0, &k("a/hi"), "n1", &[k("a/db-0"), k("a/db-1")], Removal::Evict).unwrap();
        let mut c = c0.clone();
        let mut ready = c.pod(&k("a/db-1")).unwrap().obj.clone();
        ready.status.as_mut().unwrap().conditions.as_mut().unwrap()[0].status = "True".into();
        c.store(Change::Pod(ready.into_box()));
        let r = execute(&mut c, &plan, WriteMode::Enabled, &ON);
        assert!(matches!(r.steps[1], Step::Failed(WriteError::PdbBlocked { .. })));
        assert_eq!(r.steps[2], Step::NotSent);
        assert_eq!(r.victims_removed(), [k("a/db-0")]);
    }
}
