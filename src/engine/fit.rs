//! Will it fit: workloads placed before they exist. The manifests' objects are added to a copy
//! of the cluster, each workload's pods are created as its controllers and the API server's
//! admission would create them ([`crate::model::controllers`], [`crate::model::admission`]),
//! then placed by the queue simulation ([`super::simulate`]): in queue order, each placement
//! applied before the next, gangs all or nothing (a member waiting at Permit when the run
//! ends is not scheduled), on the cluster as it is (bound pods, and nominated pods as the
//! queue counts them). Preemption is not applied unless asked (`preempt`); the first
//! unschedulable replica of each workload is explained on the cluster at the end, with what
//! preemption would do for it.
//!
//! The pods are created one second apart after the newest pod of the cluster (the queue
//! orders pods of equal priority by creation), in manifest order; a CronJob's run is for the
//! minute of the first of them.
//!
//! `max`: the largest number of replicas of a workload that fit, by placing them (anti-affinity
//! and spread decide, not arithmetic). Linear search: replicas are created and scheduled one at
//! a time until one does not fit (each decision applied before the next replica is created:
//! `max + 1` placements, the least any search by placing can make, where a binary search would
//! place O(max · log max) pods). When every replica bound at its first attempt, placing the
//! first `max` replicas at once makes the same decisions in the same order (same priority,
//! creation order, nothing else changes between them), so the answer stands; otherwise (a
//! gang waiting for its quorum, a preemption, a retry) a full placement of `max` replicas
//! confirms it, and when it does not, a binary search over full placements below it finds the
//! largest count that does. Each workload's maximum is searched alone: the manifests' other
//! workloads are not placed then (their objects are).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use super::framework::runner;
use super::framework::runtime::Framework;
use super::framework::snapshot::Snapshot;
use super::framework::trace::Explanation;
use super::release::{Features, Gate};
use super::simulate::{AttemptOutcome, Detail, FinalState, Placer, SimOptions, simulate};
use crate::model::admission::{Admission, Refusal};
use crate::model::controllers::{
    ClaimBinding, Expander, Manifests, Workload, WorkloadKind, bind_immediate, claims_from_templates,
    default_storage_class,
};
use crate::model::{Cluster, Object, ObjectKey, Pod};

/// What to place and how.
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// Every workload's replicas (a DaemonSet keeps one per eligible node).
    pub replicas: Option<usize>,
    /// Search the largest number of replicas of each workload that fit.
    pub max: bool,
    /// Apply preemptions as `simulate` does.
    pub preempt: bool,
    /// Schedule the cluster's pending pods first.
    pub after_pending: bool,
    /// Passes over the queue at most.
    pub max_passes: usize,
    /// The most replicas `max` places (a bound on the search).
    pub max_limit: usize,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            replicas: None,
            max: false,
            preempt: false,
            after_pending: false,
            max_passes: SimOptions::default().max_passes,
            max_limit: 100_000,
        }
    }
}

/// Where one replica ended up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplicaResult {
    /// Bound to the node.
    Bound {
        /// The node.
        node: String,
    },
    /// Assumed on the node, waiting at Permit for its gang when the run ended (not scheduled:
    /// a gang is all or nothing).
    Waiting {
        /// The node.
        node: String,
    },
    /// Pending: the PodScheduled message.
    Pending {
        /// The message.
        message: String,
        /// status.nominatedNodeName at the end.
        nominated: Option<String>,
    },
    /// Held before the queue by a PreEnqueue plugin.
    Held {
        /// The plugin.
        plugin: String,
        /// Its message.
        message: String,
    },
    /// No profile serves its schedulerName.
    NoProfile {
        /// The schedulerName.
        scheduler_name: String,
    },
    /// Refused at admission (or its claim was): never created.
    Refused {
        /// The admission plugin.
        plugin: String,
        /// The API server's message.
        message: String,
    },
    /// Not created by its controller (a StatefulSet's OrderedReady waiting for the pod
    /// before it).
    NotCreated {
        /// Why.
        message: String,
    },
}

impl ReplicaResult {
    /// True when bound.
    pub fn scheduled(&self) -> bool {
        matches!(self, ReplicaResult::Bound { .. })
    }

    /// The result's name in the JSON (`Bound`, `Waiting`, `Pending`, `Held`, `NoProfile`,
    /// `Refused`, `NotCreated`).
    pub fn name(&self) -> &'static str {
        match self {
            ReplicaResult::Bound { .. } => "Bound",
            ReplicaResult::Waiting { .. } => "Waiting",
            ReplicaResult::Pending { .. } => "Pending",
            ReplicaResult::Held { .. } => "Held",
            ReplicaResult::NoProfile { .. } => "NoProfile",
            ReplicaResult::Refused { .. } => "Refused",
            ReplicaResult::NotCreated { .. } => "NotCreated",
        }
    }

    /// Why it is not scheduled (None when bound).
    pub fn message(&self) -> Option<String> {
        match self {
            ReplicaResult::Bound { .. } => None,
            ReplicaResult::Waiting { node } => Some(format!(
                "waits at Permit on {node} for its gang, whose quorum is not reached: a gang is placed all or nothing"
            )),
            ReplicaResult::Pending { message, .. } => Some(message.clone()),
            ReplicaResult::Held { plugin, message } => Some(format!("held before the queue by {plugin}: {message}")),
            ReplicaResult::NoProfile { scheduler_name } => Some(format!(
                "no profile serves schedulerName '{scheduler_name}': another scheduler would have to place it"
            )),
            ReplicaResult::Refused { message, .. } | ReplicaResult::NotCreated { message } => Some(message.clone()),
        }
    }
}

/// One replica.
#[derive(Clone, Debug)]
pub struct Replica {
    /// The pod.
    pub pod: ObjectKey,
    /// What became of it.
    pub result: ReplicaResult,
}

/// What preemption would do (without `--preempt`) or did for a replica.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preemption {
    /// The node it would be nominated to (None: preemption does not help).
    pub node: Option<String>,
    /// The pods it would evict there.
    pub victims: Vec<ObjectKey>,
    /// PostFilter's message when it does not help.
    pub message: String,
}

/// The first replica of a workload that is not scheduled.
#[derive(Clone, Debug)]
pub struct Unschedulable {
    /// The pod (None: refused before it had a name of its own... never: the name is made
    /// before admission).
    pub pod: ObjectKey,
    /// The exact message: the PodScheduled condition's, or the API server's refusal.
    pub message: String,
    /// Its explanation on the cluster at the end (none for a pod that was never created).
    pub explanation: Option<Box<Explanation>>,
    /// What preemption would do for it.
    pub preemption: Option<Preemption>,
}

/// How the largest count was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxMethod {
    /// Linear, every replica bound at its first attempt.
    Linear,
    /// Linear, confirmed by a full placement of that many replicas.
    LinearConfirmed,
    /// Linear, then a binary search over full placements below it (the linear count did not
    /// all fit when placed together).
    LinearThenBinary,
}

impl MaxMethod {
    /// Its name in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            MaxMethod::Linear => "linear",
            MaxMethod::LinearConfirmed => "linearConfirmed",
            MaxMethod::LinearThenBinary => "linearThenBinary",
        }
    }
}

/// The `max` search of a workload.
#[derive(Clone, Debug)]
pub struct MaxSearch {
    /// The largest number of replicas that fit.
    pub max: usize,
    /// How it was found.
    pub method: MaxMethod,
    /// Pods placed by the search (attempts of the linear run and of the full placements).
    pub placements: usize,
    /// Why one more does not fit (the next replica's message).
    pub next: String,
    /// True when the search stopped at the limit, not at a replica that does not fit.
    pub limited: bool,
}

/// One workload's answer.
#[derive(Clone, Debug)]
pub struct WorkloadFit {
    /// Its kind.
    pub kind: WorkloadKind,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// The replicas placed (the spec's, `--replicas`, or a DaemonSet's eligible nodes).
    pub replicas: usize,
    /// Every replica, in creation order.
    pub pods: Vec<Replica>,
    /// A StatefulSet's claims and what became of them.
    pub claims: Vec<(ObjectKey, ClaimBinding)>,
    /// The ResourceClaims made from templates.
    pub resource_claims: Vec<ObjectKey>,
    /// How its pods were made (approximations named).
    pub notes: Vec<String>,
    /// The pod template its replicas were made from (with the controllers' labels; a
    /// DaemonSet's with the tolerations its controller adds).
    pub template: Box<k8s_openapi::api::core::v1::PodTemplateSpec>,
    /// The first replica not scheduled.
    pub unschedulable: Option<Unschedulable>,
    /// `max`.
    pub max: Option<MaxSearch>,
}

impl WorkloadFit {
    /// Replicas bound.
    pub fn scheduled(&self) -> usize {
        self.pods.iter().filter(|p| p.result.scheduled()).count()
    }

    /// Replicas not bound.
    pub fn unscheduled(&self) -> usize {
        self.replicas - self.scheduled()
    }

    /// The nodes of the bound replicas, with their counts.
    pub fn nodes(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for p in &self.pods {
            if let ReplicaResult::Bound { node } = &p.result {
                *out.entry(node.clone()).or_default() += 1;
            }
        }
        out
    }
}

/// The answer.
pub struct FitReport {
    /// Each workload, in manifest order.
    pub workloads: Vec<WorkloadFit>,
    /// What was approximated, and what the manifests brought along.
    pub notes: Vec<String>,
    /// Manifest kinds the scheduler does not read.
    pub skipped: Vec<String>,
    /// `after_pending`: the pending pods scheduled first (bound, of).
    pub pending_first: Option<(usize, usize)>,
    /// Pods deleted by preemptions (with `preempt`).
    pub evicted: Vec<ObjectKey>,
    /// The cluster at the end of the placement.
    pub snapshot: Snapshot,
}

/// Adds the manifests' objects to the cluster as `kubectl apply` would store them (an object
/// of the same kind and name is replaced).
fn apply_objects(cluster: &mut Cluster, objects: &[(crate::model::Origin, Object)]) -> Vec<String> {
    let mut notes = Vec::new();
    for (_, obj) in objects {
        let key = obj.key();
        let kind = obj.kind().map_or("", |k| k.name());
        let same = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
            m.namespace.clone().unwrap_or_default() == *key.namespace && m.name.clone().unwrap_or_default() == *key.name
        };
        match obj.clone() {
            Object::Namespace(n) => {
                cluster.namespaces.insert(
                    key.name.to_string(),
                    n.metadata.labels.map(crate::model::Labels::from).unwrap_or_default(),
                );
            }
            Object::StorageClass(mut s) => {
                if s.volume_binding_mode.is_none() {
                    s.volume_binding_mode = Some("Immediate".into());
                }
                cluster.storage_classes.insert(key.name.to_string(), *s);
            }
            // a claim of the manifests: DefaultStorageClass, then an Immediate class binds or
            // provisions it at once, as the StatefulSet's claims are; a claim the cluster has
            // stays as it is (its spec cannot change once bound)
            Object::PersistentVolumeClaim(_) if cluster.pvcs.contains_key(&key) => {}
            Object::PersistentVolumeClaim(mut c) => {
                if c.metadata.uid.is_none() {
                    c.metadata.uid = Some(crate::model::controllers::derived_uid(
                        "PersistentVolumeClaim",
                        &key.namespace,
                        &key.name,
                    ));
                }
                default_storage_class(&mut c, cluster);
                let (_, pv) = bind_immediate(&mut c, cluster, &BTreeSet::new());
                if let Some(pv) = pv {
                    cluster.pvs.insert(pv.metadata.name.clone().unwrap_or_default(), pv);
                }
                cluster.pvcs.insert(key.clone(), *c);
            }
            other => {
                cluster
                    .pdbs
                    .retain(|x| !(kind == "PodDisruptionBudget" && same(&x.metadata)));
                cluster.services.retain(|x| !(kind == "Service" && same(&x.metadata)));
                cluster
                    .limit_ranges
                    .retain(|x| !(kind == "LimitRange" && same(&x.metadata)));
                cluster
                    .resource_quotas
                    .retain(|x| !(kind == "ResourceQuota" && same(&x.metadata)));
                cluster
                    .pod_groups
                    .retain(|x| !(kind == "PodGroup" && same(&x.metadata)));
                cluster
                    .replication_controllers
                    .retain(|x| !(kind == "ReplicationController" && same(&x.metadata)));
                let _ = crate::model::kinds::store(cluster, key.clone(), other);
            }
        }
        notes.push(format!("{kind} {key}"));
    }
    cluster.pdbs.sort_by_key(|p| crate::model::meta_key(&p.metadata));
    notes
}

/// A replica made and admitted into `cluster`, or what stopped it.
struct Made {
    key: ObjectKey,
    after: Option<ObjectKey>,
    claims: Vec<(ObjectKey, ClaimBinding)>,
    resource_claims: Vec<ObjectKey>,
    note: Option<String>,
}

/// Creates replica `i`: its StatefulSet claims (DefaultStorageClass, quota, Immediate binding),
/// the pod (admission), its ResourceClaims from templates, created at `at` (Unix seconds). A
/// `mark` annotates the pod [`WHAT_IF_ANNOTATION`]`: mark` (the TUI's `:fit`).
fn make_replica(
    cluster: &mut Cluster,
    admission: &mut Admission,
    exp: &Expander,
    i: usize,
    at: i64,
    mark: Option<&str>,
) -> Result<Made, (ObjectKey, ReplicaResult)> {
    let ns = exp.namespace.clone();
    let created = exp.replica(i, &|n| cluster.pod(&ObjectKey::new(ns.as_str(), n)).is_some());
    let mut pod = created.pod;
    if let Some(m) = mark {
        pod.metadata
            .annotations
            .get_or_insert_with(Default::default)
            .insert(WHAT_IF_ANNOTATION.into(), m.into());
    }
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    let key = ObjectKey::new(ns.as_str(), pod_name.as_str());
    let refused = |plugin: &str, message: String| {
        (
            key.clone(),
            ReplicaResult::Refused {
                plugin: plugin.into(),
                message,
            },
        )
    };
    if cluster.pod(&key).is_some() {
        return Err(refused(
            "",
            format!("pods \"{pod_name}\" already exists: the cluster has a pod of that name in {ns}"),
        ));
    }
    let mut claims = Vec::new();
    let taken: BTreeSet<String> = BTreeSet::new();
    for mut c in created.claims {
        let ckey = crate::model::meta_key(&c.metadata);
        if cluster.pvcs.contains_key(&ckey) {
            claims.push((ckey, ClaimBinding::Existing));
            continue;
        }
        default_storage_class(&mut c, cluster);
        if let Err(r) = admission.admit_claim(&c) {
            return Err(refused(
                r.plugin,
                format!(
                    "create Claim {} for Pod {pod_name} in StatefulSet {} failed error: {}",
                    ckey.name, exp.name, r.message
                ),
            ));
        }
        let (binding, pv) = bind_immediate(&mut c, cluster, &taken);
        if let Some(pv) = pv {
            cluster.pvs.insert(pv.metadata.name.clone().unwrap_or_default(), pv);
        }
        cluster.pvcs.insert(ckey.clone(), c);
        claims.push((ckey, binding));
    }
    let admitted = admission
        .admit_pod(&mut pod)
        .map_err(|r: Refusal| refused(r.plugin, r.message))?;
    pod.metadata.creation_timestamp = k8s_openapi::jiff::Timestamp::from_second(at).ok().map(Time);
    let mut note = None;
    let mut resource_claims = Vec::new();
    let templates = &cluster.resource_claim_templates;
    let claims_taken = |n: &str| cluster.resource_claims.contains_key(&ObjectKey::new(ns.as_str(), n));
    match claims_from_templates(&mut pod, templates, &claims_taken) {
        Ok(list) => {
            for c in list {
                let ckey = crate::model::meta_key(&c.metadata);
                resource_claims.push(ckey.clone());
                cluster.resource_claims.insert(ckey, c);
            }
        }
        Err(e) => {
            note = Some(format!(
                "{e}: the resourceclaim controller cannot create it, the pod waits"
            ))
        }
    }
    let priority = admitted.priority;
    let model = Pod::from_obj(pod, |_| priority)
        .map_err(|(field, message)| refused("", format!("pod {key}: field '{field}': {message}")))?;
    cluster.create_pod(model).map_err(|e| refused("", e.to_string()))?;
    Ok(Made {
        key,
        after: created.after.map(|a| ObjectKey::new(ns.as_str(), a.as_str())),
        claims,
        resource_claims,
        note,
    })
}

/// The time the first pod is created at: a second after the newest pod (or the epoch of
/// 2024 for a cluster without creation times).
fn first_creation(cluster: &Cluster) -> i64 {
    cluster
        .pods
        .iter()
        .filter_map(|p| p.creation())
        .map(|t| t.as_second())
        .max()
        .map_or(1_704_067_200, |s| s + 1)
}

/// The workloads' pods made on `cluster`: per workload its expander, replicas and what was
/// made or refused, and every made pod's `after`.
struct Created {
    expanders: Vec<Expander>,
    per_workload: Vec<Vec<Result<Made, (ObjectKey, ReplicaResult)>>>,
}

fn create_all(
    cluster: &mut Cluster,
    admission: &mut Admission,
    workloads: &[(&Workload, Option<usize>)],
    features: &Features,
    start: i64,
    mark: Option<&str>,
) -> Created {
    let cmp = features.on(Gate::TaintTolerationComparisonOperators);
    let mut at = start;
    let mut out = Created {
        expanders: Vec::new(),
        per_workload: Vec::new(),
    };
    for (w, replicas) in workloads {
        let mut exp = Expander::new(w, cluster, cmp, start);
        if let Some(n) = replicas {
            exp.set_replicas(*n);
        }
        for o in &exp.owners {
            let _ = crate::model::kinds::store(cluster, o.key(), o.clone());
        }
        let mut made = Vec::new();
        for i in 0..exp.count() {
            made.push(make_replica(cluster, admission, &exp, i, at, mark));
            at += 1;
        }
        out.expanders.push(exp);
        out.per_workload.push(made);
    }
    out
}

/// The result of a replica from the simulation's final state.
fn result_of(
    state: Option<&FinalState>,
    cluster: &Cluster,
    key: &ObjectKey,
    after: Option<&ObjectKey>,
) -> ReplicaResult {
    if let Some(p) = cluster.pod(key)
        && let Some(n) = &p.node_name
        && !matches!(state, Some(FinalState::Waiting(_)))
    {
        return ReplicaResult::Bound { node: n.to_string() };
    }
    if let Some(before) = after
        && cluster.pod(before).is_none_or(|p| p.node_name.is_none())
    {
        return ReplicaResult::NotCreated {
            message: format!(
                "not created: the StatefulSet's OrderedReady policy creates {} once {} is Running and Ready, and it is not scheduled",
                key.name, before.name
            ),
        };
    }
    match state {
        Some(FinalState::Bound { node, .. }) => ReplicaResult::Bound { node: node.clone() },
        Some(FinalState::Waiting(node)) => ReplicaResult::Waiting { node: node.clone() },
        Some(FinalState::Pending { message, nominated }) => ReplicaResult::Pending {
            message: message.clone(),
            nominated: nominated.clone(),
        },
        Some(FinalState::Held { plugin, message }) => ReplicaResult::Held {
            plugin: plugin.clone(),
            message: message.clone(),
        },
        Some(FinalState::NoProfile(s)) => ReplicaResult::NoProfile {
            scheduler_name: s.clone(),
        },
        Some(FinalState::Deleted) | None => ReplicaResult::Pending {
            message: "not attempted".into(),
            nominated: None,
        },
    }
}

/// Places `workloads` (each with its replicas, None: its spec's) on `cluster`: the pods made,
/// the simulation run; per workload its replicas' results.
struct Placed {
    created: Created,
    results: Vec<Vec<Replica>>,
    snapshot: Snapshot,
    evicted: Vec<ObjectKey>,
    attempts: usize,
}

fn place(
    mut cluster: Cluster,
    workloads: &[(&Workload, Option<usize>)],
    profiles: &[Framework],
    features: &Features,
    opts: &FitOptions,
) -> Placed {
    let mut admission = Admission::new(&cluster);
    let start = first_creation(&cluster);
    let created = create_all(&mut cluster, &mut admission, workloads, features, start, None);
    let mut only = BTreeSet::new();
    let mut after = BTreeMap::new();
    for m in created.per_workload.iter().flatten().flatten() {
        only.insert(m.key.clone());
        if let Some(a) = &m.after {
            after.insert(m.key.clone(), a.clone());
        }
    }
    let report = simulate(
        cluster,
        profiles,
        features,
        SimOptions {
            max_passes: opts.max_passes,
            only: Some(only),
            placement: None,
            detail: Detail::Summary,
            preempt: opts.preempt,
            after: after.clone(),
            start_node: None,
        },
    );
    let attempts = report
        .events
        .iter()
        .filter(|e| matches!(e.kind, super::simulate::EventKind::Attempt { .. }))
        .count();
    let states: BTreeMap<&ObjectKey, &FinalState> = report.pods.iter().map(|(k, s)| (k, s)).collect();
    let results = created
        .per_workload
        .iter()
        .map(|made| {
            made.iter()
                .map(|m| match m {
                    Ok(m) => Replica {
                        pod: m.key.clone(),
                        result: result_of(
                            states.get(&m.key).copied(),
                            &report.snapshot.cluster,
                            &m.key,
                            after.get(&m.key),
                        ),
                    },
                    Err((k, r)) => Replica {
                        pod: k.clone(),
                        result: r.clone(),
                    },
                })
                .collect()
        })
        .collect();
    Placed {
        created,
        results,
        evicted: report.evicted.clone(),
        snapshot: report.snapshot,
        attempts,
    }
}

/// The annotation on the what-if pods the TUI's `:fit FILE` adds (its value: `fit FILE`).
pub const WHAT_IF_ANNOTATION: &str = "kschedtui.io/what-if";

/// In [`WhatIf::made`]: an existing PersistentVolume an Immediate claim was bound to (clearing
/// makes it Available again).
pub const BOUND_VOLUME: &str = "BoundPersistentVolume";

/// What `:fit FILE` adds to the TUI's cluster: the manifests' objects and every workload's
/// pods, made and admitted as [`fit`] makes them, left pending (not placed: the TUI explains
/// each one where the cluster is).
pub struct WhatIf {
    /// The cluster with them.
    pub cluster: Cluster,
    /// The pods added (marked with [`WHAT_IF_ANNOTATION`]), in creation order.
    pub pods: Vec<ObjectKey>,
    /// The claims, volumes and ResourceClaims made for them, and the owners (a Deployment's
    /// ReplicaSet, a StatefulSet): `(kind, key)`.
    pub made: Vec<(&'static str, ObjectKey)>,
    /// Replicas refused at admission, with the API server's message.
    pub refused: Vec<(ObjectKey, String)>,
}

/// Adds the manifests' objects and workloads to `cluster`, the pods pending and marked
/// [`WHAT_IF_ANNOTATION`]`: mark`, made as [`fit`] makes them (same names, admission, claims).
pub fn what_if(cluster: &Cluster, manifests: &Manifests, features: &Features, mark: &str) -> WhatIf {
    let mut cluster = cluster.clone();
    apply_objects(&mut cluster, &manifests.objects);
    let mut admission = Admission::new(&cluster);
    let start = first_creation(&cluster);
    let workloads: Vec<(&Workload, Option<usize>)> = manifests.workloads.iter().map(|w| (w, None)).collect();
    let created = create_all(&mut cluster, &mut admission, &workloads, features, start, Some(mark));
    let mut out = WhatIf {
        cluster: Cluster::default(),
        pods: Vec::new(),
        made: Vec::new(),
        refused: Vec::new(),
    };
    for (exp, made) in created.expanders.iter().zip(created.per_workload) {
        for o in &exp.owners {
            let kind = if matches!(o, Object::StatefulSet(_)) {
                "StatefulSet"
            } else {
                "ReplicaSet"
            };
            out.made.push((kind, o.key()));
        }
        for m in made {
            match m {
                Ok(m) => {
                    for (k, b) in m.claims {
                        if matches!(b, ClaimBinding::Existing) {
                            continue;
                        }
                        match &b {
                            ClaimBinding::Provisioned(pv, _) => {
                                out.made.push(("PersistentVolume", ObjectKey::new("", pv.as_str())));
                            }
                            ClaimBinding::BoundTo(pv) => {
                                out.made.push((BOUND_VOLUME, ObjectKey::new("", pv.as_str())));
                            }
                            _ => {}
                        }
                        out.made.push(("PersistentVolumeClaim", k));
                    }
                    out.made
                        .extend(m.resource_claims.into_iter().map(|k| ("ResourceClaim", k)));
                    out.pods.push(m.key);
                }
                Err((k, r)) => out.refused.push((k, r.message().unwrap_or_default())),
            }
        }
    }
    out.cluster = cluster;
    out
}

/// The cluster without what [`what_if`] added: its pods, their claims, the volumes provisioned
/// for them (a volume an Immediate claim was bound to is Available again), their
/// ResourceClaims and the workloads' owners (a Deployment's ReplicaSet, a StatefulSet). The
/// manifests' other objects (a PriorityClass, a quota, a template) stay.
pub fn clear_what_if(cluster: &Cluster, pods: &[ObjectKey], made: &[(&'static str, ObjectKey)]) -> Cluster {
    let mut c = cluster.clone();
    let gone: BTreeSet<&ObjectKey> = pods.iter().collect();
    c.pods.retain(|p| !gone.contains(&p.key));
    for (kind, k) in made {
        let same = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| crate::model::meta_key(m) == *k;
        match *kind {
            "PersistentVolumeClaim" => {
                c.pvcs.remove(k);
            }
            "PersistentVolume" => {
                c.pvs.remove(k.name.as_str());
            }
            BOUND_VOLUME => {
                if let Some(pv) = c.pvs.get_mut(k.name.as_str()) {
                    if let Some(s) = pv.spec.as_mut() {
                        s.claim_ref = None;
                    }
                    pv.status = Some(k8s_openapi::api::core::v1::PersistentVolumeStatus {
                        phase: Some("Available".into()),
                        ..Default::default()
                    });
                }
            }
            "ResourceClaim" => {
                c.resource_claims.remove(k);
            }
            "ReplicaSet" => c.replica_sets.retain(|x| !same(&x.metadata)),
            "StatefulSet" => c.stateful_sets.retain(|x| !same(&x.metadata)),
            _ => {}
        }
    }
    c
}

/// Places the manifests' workloads on `cluster`.
pub fn fit(
    cluster: Cluster,
    manifests: &Manifests,
    profiles: &[Framework],
    features: &Features,
    opts: &FitOptions,
) -> FitReport {
    let mut cluster = cluster;
    let mut notes = Vec::new();
    let brought = apply_objects(&mut cluster, &manifests.objects);
    if !brought.is_empty() {
        notes.push(format!("added with the workloads: {}", brought.join(", ")));
    }
    let mut pending_first = None;
    let mut evicted = Vec::new();
    if opts.after_pending {
        let pending = cluster.pods.iter().filter(|p| p.is_pending()).count();
        let r = simulate(
            cluster,
            profiles,
            features,
            SimOptions {
                max_passes: opts.max_passes,
                detail: Detail::Summary,
                preempt: opts.preempt,
                ..Default::default()
            },
        );
        let bound = r
            .pods
            .iter()
            .filter(|(_, s)| matches!(s, FinalState::Bound { .. }))
            .count();
        pending_first = Some((bound, pending));
        evicted.extend(r.evicted.iter().cloned());
        cluster = Arc::try_unwrap(r.snapshot.cluster).unwrap_or_else(|c| (*c).clone());
    }
    notes.extend(Admission::new(&cluster).notes().iter().cloned());
    let base = opts.max.then(|| cluster.clone());
    let workloads: Vec<(&Workload, Option<usize>)> = manifests.workloads.iter().map(|w| (w, opts.replicas)).collect();
    let placed = place(cluster, &workloads, profiles, features, opts);
    evicted.extend(placed.evicted.iter().cloned());
    let mut snapshot = placed.snapshot;
    // the explanations at the end are whole ones
    snapshot.decisions_only = false;
    let mut out = Vec::new();
    for ((exp, made), pods) in placed
        .created
        .expanders
        .iter()
        .zip(&placed.created.per_workload)
        .zip(placed.results)
    {
        let mut w = WorkloadFit {
            kind: exp.kind,
            namespace: exp.namespace.clone(),
            name: exp.name.clone(),
            replicas: exp.count(),
            pods,
            claims: Vec::new(),
            resource_claims: Vec::new(),
            notes: exp.notes.clone(),
            template: Box::new(exp.template().clone()),
            unschedulable: None,
            max: None,
        };
        for m in made.iter().flatten() {
            w.claims.extend(m.claims.iter().cloned());
            w.resource_claims.extend(m.resource_claims.iter().cloned());
            w.notes.extend(m.note.iter().cloned());
        }
        if opts.replicas.is_some() && exp.per_node() {
            w.notes
                .push("a DaemonSet has one pod per eligible node: --replicas does not apply to it".into());
        }
        w.unschedulable = first_unschedulable(&w.pods, &snapshot, profiles, opts.preempt);
        out.push(w);
    }
    if let Some(base) = base {
        for (w, manifest) in out.iter_mut().zip(&manifests.workloads) {
            if w.kind == WorkloadKind::DaemonSet {
                w.notes
                    .push("--max: a DaemonSet has one pod per eligible node; its maximum is the pods that fit".into());
                w.max = Some(MaxSearch {
                    max: w.scheduled(),
                    method: MaxMethod::Linear,
                    placements: 0,
                    next: String::new(),
                    limited: false,
                });
                continue;
            }
            w.max = Some(max_replicas(&base, manifest, profiles, features, opts));
        }
    }
    FitReport {
        workloads: out,
        notes,
        skipped: manifests.skipped.clone(),
        pending_first,
        evicted,
        snapshot,
    }
}

/// The first replica not scheduled, explained on the cluster at the end.
fn first_unschedulable(
    pods: &[Replica],
    snapshot: &Snapshot,
    profiles: &[Framework],
    preempt: bool,
) -> Option<Unschedulable> {
    let r = pods.iter().find(|p| !p.result.scheduled())?;
    let message = r.result.message().unwrap_or_default();
    let explanation = snapshot
        .cluster
        .pod(&r.pod)
        .filter(|p| p.is_pending())
        .and_then(|_| runner::explain(snapshot, profiles, &r.pod).ok());
    let preemption = explanation.as_ref().and_then(|ex| {
        ex.post_filter.as_ref().map(|pf| Preemption {
            node: pf.nominated_node.clone(),
            victims: pf.victims.clone(),
            message: pf.message.clone(),
        })
    });
    let message = match (&r.result, explanation.as_ref().and_then(|e| e.message.clone())) {
        (ReplicaResult::Pending { .. }, Some(m)) if !preempt || m.starts_with("0/") => m,
        _ => message,
    };
    Some(Unschedulable {
        pod: r.pod.clone(),
        message,
        explanation: explanation.map(Box::new),
        preemption,
    })
}

/// The message of an attempt that did not place the pod.
fn attempt_message(o: &AttemptOutcome) -> String {
    match o {
        AttemptOutcome::Unschedulable(m)
        | AttemptOutcome::Error(m)
        | AttemptOutcome::Rejected { message: m, .. }
        | AttemptOutcome::Preempting { message: m, .. } => m.clone(),
        AttemptOutcome::Held { plugin, message } => format!("held before the queue by {plugin}: {message}"),
        AttemptOutcome::NoProfile(s) => format!("no profile serves schedulerName '{s}'"),
        AttemptOutcome::Bound(n) | AttemptOutcome::Waiting(n) => format!("placed on {n}"),
    }
}

/// `max` for one workload, alone on `base`.
fn max_replicas(
    base: &Cluster,
    w: &Workload,
    profiles: &[Framework],
    features: &Features,
    opts: &FitOptions,
) -> MaxSearch {
    let cmp = features.on(Gate::TaintTolerationComparisonOperators);
    let mut admission = Admission::new(base);
    let start = first_creation(base);
    let exp = Expander::new(w, base, cmp, start);
    let mut placer = Placer::new(base.clone(), profiles, features.clone(), opts.preempt);
    placer.create(|c| {
        for o in &exp.owners {
            let _ = crate::model::kinds::store(c, o.key(), o.clone());
        }
        ((), Vec::new())
    });
    let mut placed = 0usize;
    let mut attempts = 0usize;
    let mut first_try = true;
    let mut next = String::new();
    let mut limited = true;
    for i in 0..opts.max_limit {
        let made = placer.create(|c| {
            match make_replica(c, &mut admission, &exp, i, start + i64::try_from(i).unwrap_or(0), None) {
                Ok(m) => {
                    let k = m.key.clone();
                    (Ok(m), vec![k])
                }
                Err(e) => (Err(e), Vec::new()),
            }
        });
        let m = match made {
            Ok(m) => m,
            Err((_, r)) => {
                next = r.message().unwrap_or_default();
                limited = false;
                break;
            }
        };
        attempts += 1;
        let mut outcome = placer.attempt(&m.key);
        if opts.preempt && matches!(outcome, Some(AttemptOutcome::Preempting { .. })) {
            // the victims are gone: the next attempt binds it where it was nominated
            first_try = false;
            attempts += 1;
            outcome = placer.attempt(&m.key);
        }
        match outcome {
            Some(AttemptOutcome::Bound(_)) => placed += 1,
            Some(AttemptOutcome::Waiting(_)) => {
                first_try = false;
                placed += 1;
            }
            Some(o) => {
                next = attempt_message(&o);
                limited = false;
                break;
            }
            None => {
                next = "not attempted".into();
                limited = false;
                break;
            }
        }
    }
    drop(placer);
    if first_try {
        return MaxSearch {
            max: placed,
            method: MaxMethod::Linear,
            placements: attempts,
            next,
            limited,
        };
    }
    // confirm with a full placement of that many, else search below it
    let fits = |n: usize, attempts: &mut usize| -> bool {
        let p = place(base.clone(), &[(w, Some(n))], profiles, features, opts);
        *attempts += p.attempts;
        p.results[0].iter().all(|r| r.result.scheduled())
    };
    if placed == 0 || fits(placed, &mut attempts) {
        return MaxSearch {
            max: placed,
            method: MaxMethod::LinearConfirmed,
            placements: attempts,
            next,
            limited,
        };
    }
    let (mut lo, mut hi) = (0usize, placed - 1);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid, &mut attempts) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    MaxSearch {
        max: lo,
        method: MaxMethod::LinearThenBinary,
        placements: attempts,
        next: format!(
            "{} placed one at a time, but not all of them when placed together (a gang's quorum, a preemption or a retry changes the decisions)",
            placed
        ),
        limited: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Release, build_profiles};
    use crate::model::controllers::derived_uid;
    use crate::source::file::load_str;
    use crate::source::manifests::read_str;

    /// `n` nodes `n0`… of `cpu` cpus in zones from `zones` (round robin).
    fn nodes(n: usize, cpu: &str, zones: &[&str]) -> String {
        (0..n)
            .map(|i| {
                format!(
                    "- {{apiVersion: v1, kind: Node, metadata: {{name: n{i}, labels: {{kubernetes.io/hostname: n{i}, topology.kubernetes.io/zone: {}}}}}, status: {{allocatable: {{cpu: '{cpu}', memory: 64Gi, pods: '50'}}}}}}\n",
                    zones[i % zones.len()]
                )
            })
            .collect()
    }

    fn run(cluster: &str, manifests: &str, opts: FitOptions) -> FitReport {
        let c = load_str("c.yaml", &format!("apiVersion: v1\nkind: List\nitems:\n{cluster}")).expect("cluster");
        let m = read_str("m.yaml", manifests, "default").expect("manifests");
        let v = Release::NEWEST;
        let profiles = build_profiles(None, v).unwrap();
        fit(c, &m, &profiles, &Features::from(v), &opts)
    }

    fn deployment(replicas: usize, cpu: &str, extra: &str) -> String {
        format!(
            r"
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: default}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: c, image: web, resources: {{requests: {{cpu: '{cpu}'}}}}}}]
{extra}"
        )
    }

    const ANTI: &str = "      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n          - {labelSelector: {matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname}\n";

    #[test]
    fn replicas_are_placed_in_queue_order_and_the_first_that_does_not_fit_is_explained() {
        let r = run(&nodes(2, "2", &["a"]), &deployment(5, "1", ""), FitOptions::default());
        let w = &r.workloads[0];
        assert_eq!((w.replicas, w.scheduled(), w.unscheduled()), (5, 4, 1));
        assert_eq!(w.nodes(), BTreeMap::from([("n0".to_string(), 2), ("n1".into(), 2)]));
        let u = w.unschedulable.as_ref().unwrap();
        assert_eq!(u.pod, w.pods[4].pod);
        assert_eq!(
            u.message,
            "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
        );
        assert!(u.explanation.is_some());
    }

    #[test]
    fn max_with_anti_affinity_is_the_nodes_not_the_capacity() {
        let opts = FitOptions {
            max: true,
            ..Default::default()
        };
        let r = run(&nodes(4, "8", &["a"]), &deployment(2, "1", ANTI), opts);
        let m = r.workloads[0].max.as_ref().unwrap();
        // 8 cpus a node would hold 32 replicas by arithmetic; anti-affinity allows one a node
        assert_eq!((m.max, m.method, m.placements), (4, MaxMethod::Linear, 5));
        assert!(m.next.contains("didn't match pod anti-affinity rules"), "{}", m.next);
        assert!(!m.limited);
        assert_eq!(
            r.workloads[0].scheduled(),
            2,
            "the replicas asked for are placed as well"
        );
    }

    #[test]
    fn max_with_topology_spread_stops_where_the_skew_would_be_exceeded() {
        // zone a has three nodes, zone b one; each node holds one replica. By capacity 4 fit;
        // with maxSkew 1 across the zones the 4th would make a:3 b:1.
        let spread = "      topologySpreadConstraints:\n      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}\n";
        let opts = FitOptions {
            max: true,
            ..Default::default()
        };
        let r = run(&nodes(4, "1", &["a", "a", "a", "b"]), &deployment(1, "1", spread), opts);
        let m = r.workloads[0].max.as_ref().unwrap();
        assert_eq!(m.max, 3);
        assert!(
            m.next.contains("didn't match pod topology spread constraints"),
            "{}",
            m.next
        );
    }

    #[test]
    fn a_gang_is_all_or_nothing() {
        let gang = |members: usize| {
            format!(
                r"
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {{name: train, namespace: default}}
spec: {{minMember: 3}}
---
apiVersion: batch/v1
kind: Job
metadata: {{name: train, namespace: default}}
spec:
  parallelism: {members}
  completions: {members}
  completionMode: Indexed
  template:
    metadata: {{labels: {{scheduling.x-k8s.io/pod-group: train}}}}
    spec:
      schedulerName: scheduler-plugins-scheduler
      restartPolicy: Never
      containers: [{{name: c, image: t, resources: {{requests: {{cpu: '1'}}}}}}]
"
            )
        };
        // room for 2 members of 3: none is scheduled
        let r = run(&nodes(2, "1", &["a"]), &gang(3), FitOptions::default());
        let w = &r.workloads[0];
        assert_eq!((w.replicas, w.scheduled()), (3, 0));
        assert!(w.unschedulable.is_some());
        // room for 3: all three
        let r = run(&nodes(3, "1", &["a"]), &gang(3), FitOptions::default());
        assert_eq!(r.workloads[0].scheduled(), 3);
    }

    #[test]
    fn each_replica_gets_its_own_claim_from_the_template_and_devices_are_not_shared() {
        let cluster = format!(
            "{}- {{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {{name: gpu}}, spec: {{selectors: [{{cel: {{expression: 'device.driver == \"gpu.example.com\"'}}}}]}}}}\n- apiVersion: resource.k8s.io/v1\n  kind: ResourceSlice\n  metadata: {{name: n0-gpus}}\n  spec:\n    driver: gpu.example.com\n    nodeName: n0\n    pool: {{name: n0, generation: 1, resourceSliceCount: 1}}\n    devices: [{{name: gpu-0}}, {{name: gpu-1}}]\n",
            nodes(1, "16", &["a"])
        );
        let manifests = format!(
            "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {{name: one-gpu, namespace: default}}\nspec:\n  spec:\n    devices:\n      requests: [{{name: g, exactly: {{deviceClassName: gpu}}}}]\n---\n{}",
            deployment(
                3,
                "1",
                "      resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]\n"
            )
        );
        let r = run(&cluster, &manifests, FitOptions::default());
        let w = &r.workloads[0];
        assert_eq!(w.resource_claims.len(), 3);
        // two devices: the third replica's claim cannot be allocated (each placement's
        // allocation is applied before the next)
        assert_eq!(w.scheduled(), 2);
        let u = w.unschedulable.as_ref().unwrap();
        assert!(u.message.contains("cannot allocate all claims"), "{}", u.message);
        let allocated = r
            .snapshot
            .cluster
            .resource_claims
            .values()
            .filter(|c| c.status.as_ref().is_some_and(|s| s.allocation.is_some()))
            .count();
        assert_eq!(allocated, 2);
    }

    const STS: &str = r"
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: db, resources: {requests: {cpu: '1'}}}]}
";

    #[test]
    fn ordered_ready_creates_no_pod_after_one_that_does_not_fit() {
        let r = run(&nodes(1, "1", &["a"]), STS, FitOptions::default());
        let results: Vec<&str> = r.workloads[0].pods.iter().map(|p| p.result.name()).collect();
        assert_eq!(results, ["Bound", "Pending", "NotCreated"]);
        assert!(
            r.workloads[0].pods[2]
                .result
                .message()
                .unwrap()
                .contains("OrderedReady policy creates db-2 once db-1 is Running and Ready")
        );
        let r = run(
            &nodes(1, "1", &["a"]),
            &STS.replace("replicas: 3", "replicas: 3\n  podManagementPolicy: Parallel"),
            FitOptions::default(),
        );
        let results: Vec<&str> = r.workloads[0].pods.iter().map(|p| p.result.name()).collect();
        assert_eq!(results, ["Bound", "Pending", "Pending"]);
    }

    const VICTIM: &str = "- {apiVersion: v1, kind: Pod, metadata: {name: low, namespace: batch}, spec: {nodeName: n0, priority: -10, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}\n";

    #[test]
    fn preemption_is_only_said_unless_asked_for() {
        let cluster = format!("{}{VICTIM}", nodes(1, "1", &["a"]));
        let r = run(&cluster, &deployment(1, "1", ""), FitOptions::default());
        let w = &r.workloads[0];
        assert_eq!(w.scheduled(), 0);
        let p = w.unschedulable.as_ref().unwrap().preemption.as_ref().unwrap();
        assert_eq!(p.node.as_deref(), Some("n0"));
        assert_eq!(p.victims, vec![ObjectKey::new("batch", "low")]);
        assert!(r.evicted.is_empty());
        let r = run(
            &cluster,
            &deployment(1, "1", ""),
            FitOptions {
                preempt: true,
                ..Default::default()
            },
        );
        assert_eq!(r.workloads[0].scheduled(), 1);
        assert_eq!(r.evicted, vec![ObjectKey::new("batch", "low")]);
    }

    #[test]
    fn after_pending_lets_the_pending_pods_go_first() {
        let pending = "- {apiVersion: v1, kind: Pod, metadata: {name: waiting, namespace: other}, spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}\n";
        let cluster = format!("{}{pending}", nodes(1, "1", &["a"]));
        let r = run(&cluster, &deployment(1, "1", ""), FitOptions::default());
        assert_eq!(r.workloads[0].scheduled(), 1);
        let r = run(
            &cluster,
            &deployment(1, "1", ""),
            FitOptions {
                after_pending: true,
                ..Default::default()
            },
        );
        assert_eq!(r.pending_first, Some((1, 1)));
        assert_eq!(r.workloads[0].scheduled(), 0);
    }

    /// A claim of the manifests is bound as the volume controllers would: an Immediate class
    /// provisions it at once (its pod then schedules), a WaitForFirstConsumer one where its pod
    /// lands; a claim the cluster has already stays as it is.
    #[test]
    fn a_claim_of_the_manifests_is_provisioned_by_its_class() {
        let manifests = |mode: &str| {
            format!(
                "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {{name: fast, annotations: {{storageclass.kubernetes.io/is-default-class: 'true'}}}}\nprovisioner: csi.example.com\nvolumeBindingMode: {mode}\n---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: data, namespace: default}}\nspec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 1Gi}}}}}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {{name: db, namespace: default}}\nspec:\n  containers: [{{name: c, image: db}}]\n  volumes: [{{name: d, persistentVolumeClaim: {{claimName: data}}}}]\n"
            )
        };
        let key = ObjectKey::new("default", "data");
        let r = run(&nodes(1, "1", &["a"]), &manifests("Immediate"), FitOptions::default());
        assert_eq!(r.workloads[0].scheduled(), 1);
        let c = &r.snapshot.cluster.pvcs[&key];
        // DefaultStorageClass gave it the default class; the provisioner made its volume
        let spec = c.spec.clone().unwrap();
        assert_eq!(spec.storage_class_name.as_deref(), Some("fast"));
        let pv = spec.volume_name.expect("bound at once");
        assert_eq!(
            pv,
            format!("pvc-{}", derived_uid("PersistentVolumeClaim", "default", "data"))
        );
        assert_eq!(
            r.snapshot.cluster.pvs[&pv]
                .spec
                .as_ref()
                .unwrap()
                .claim_ref
                .as_ref()
                .unwrap()
                .name
                .as_deref(),
            Some("data")
        );
        let r = run(
            &nodes(1, "1", &["a"]),
            &manifests("WaitForFirstConsumer"),
            FitOptions::default(),
        );
        assert_eq!(r.workloads[0].scheduled(), 1);
        let c = &r.snapshot.cluster.pvcs[&key];
        assert_eq!(
            c.metadata
                .annotations
                .as_ref()
                .unwrap()
                .get(crate::model::write::ANN_SELECTED_NODE)
                .map(String::as_str),
            Some("n0")
        );
    }

    #[test]
    fn quota_refusals_and_replicas_override() {
        let quota = "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: default}\nspec: {hard: {pods: '2'}}\n---\n";
        let r = run(
            &nodes(4, "4", &["a"]),
            &format!("{quota}{}", deployment(3, "1", "")),
            FitOptions {
                replicas: Some(4),
                ..Default::default()
            },
        );
        let w = &r.workloads[0];
        assert_eq!((w.replicas, w.scheduled()), (4, 2));
        assert_eq!(w.pods[2].result.name(), "Refused");
        let u = w.unschedulable.as_ref().unwrap();
        assert_eq!(
            u.message,
            format!(
                "pods \"{}\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2",
                w.pods[2].pod.name
            )
        );
        assert!(u.explanation.is_none());
    }

    /// A Deployment of the namespace `bench` with `replicas` of `spec` (the pod spec's lines
    /// after its containers, indented for `spec:`) and `container` (the container's extra
    /// fields).
    fn bench_deployment(replicas: usize, container: &str, spec: &str) -> String {
        format!(
            r"
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web-next, namespace: bench}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web-next}}}}
  template:
    metadata: {{labels: {{app: web-next}}}}
    spec:
      containers: [{{name: web, image: web:2, resources: {{requests: {{cpu: 500m, memory: 512Mi}}}}{container}}}]
{spec}"
        )
    }

    /// Placements carry the snapshot's index from one to the next (the pod table built again
    /// after many binds, the required anti-affinity terms added bind by bind) and
    /// PodTopologySpread scores on the index's value ids: each replica's whole explanation
    /// (every node's Filter verdicts, every score, the message) on the snapshot as the
    /// placements left it equals its explanation on a snapshot built afresh from the same
    /// cluster, on generated clusters (zones, racks, taints, images, pods with preferred
    /// anti-affinity) with anti-affinity, spread, resources, ports and tolerations; so does its
    /// explanation that keeps decisions only, with the node-local Filter verdicts kept from the
    /// last replica's (`framework::memo`); and `fit` and `fit --max` place the replicas on
    /// those nodes.
    #[test]
    fn placements_on_the_kept_index_equal_placements_on_a_fresh_snapshot() {
        use crate::engine::framework::memo::{FilterMemo, ScoreMemo};
        use crate::engine::framework::snapshot::Snapshot;
        use crate::engine::framework::trace::BindingOutcome;
        use crate::source::generate::{GenSpec, generate};
        let anti_host = "      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n          - {labelSelector: {matchLabels: {app: web-next}}, topologyKey: kubernetes.io/hostname}\n";
        let anti_rack = "      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n          - {labelSelector: {matchLabels: {app: web-next}}, topologyKey: rack}\n          preferredDuringSchedulingIgnoredDuringExecution:\n          - {weight: 40, podAffinityTerm: {labelSelector: {matchLabels: {app: web}}, topologyKey: topology.kubernetes.io/zone}}\n";
        let spread = "      topologySpreadConstraints:\n      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web-next}}}\n      - {maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web-next}}}\n";
        let tolerate = "      tolerations: [{key: dedicated, operator: Equal, value: infra, effect: NoSchedule}]\n";
        let cases: Vec<(u64, String)> = vec![
            (1, bench_deployment(40, "", anti_host)),
            (2, bench_deployment(40, "", &format!("{spread}{tolerate}"))),
            (
                3,
                bench_deployment(30, ", ports: [{containerPort: 80, hostPort: 8080}]", tolerate),
            ),
            (4, bench_deployment(30, "", &format!("{anti_rack}{tolerate}"))),
            (5, bench_deployment(60, "", "")),
        ];
        let v = Release::NEWEST;
        let profiles = build_profiles(None, v).unwrap();
        let features = Features::from(v);
        let cmp = features.on(Gate::TaintTolerationComparisonOperators);
        for (seed, manifest) in &cases {
            let text = generate(GenSpec::new(24, 240, *seed)).to_string();
            let cluster = load_str("g.json", &text).expect("cluster");
            let m = read_str("m.yaml", manifest, "bench").expect("manifests");
            let w = &m.workloads[0];
            let start = first_creation(&cluster);
            let exp = Expander::new(w, &cluster, cmp, start);
            let mut admission = Admission::new(&cluster);
            let mut snap = Snapshot::new(Arc::new(cluster.clone()), features.clone());
            snap.create_with(|c| {
                for o in &exp.owners {
                    let _ = crate::model::kinds::store(c, o.key(), o.clone());
                }
                ((), Vec::new())
            });
            let mut nodes = Vec::new();
            let mut rebuilt = 0;
            for i in 0..exp.count() {
                let at = start + i64::try_from(i).unwrap();
                let key = snap.create_with(|c| {
                    let m = make_replica(c, &mut admission, &exp, i, at, None).expect("replica");
                    (m.key.clone(), vec![m.key])
                });
                let kept = runner::explain(&snap, &profiles, &key).expect("explain");
                let fresh = Snapshot::new(snap.cluster.clone(), features.clone());
                let plain = runner::explain(&fresh, &profiles, &key).expect("explain");
                assert_eq!(kept, plain, "seed {seed}, replica {i}");
                // decisions only (the simulator's and fit's cycles): the node-local Filter
                // verdicts kept from the last replica's cycle on the nodes no bind changed
                snap.decisions_only = true;
                let lean = runner::explain(&snap, &profiles, &key).expect("explain");
                snap.decisions_only = false;
                let mut fresh = Snapshot::new(snap.cluster.clone(), features.clone());
                fresh.decisions_only = true;
                let lean_plain = runner::explain(&fresh, &profiles, &key).expect("explain");
                assert_eq!(lean, lean_plain, "seed {seed}, replica {i}: decisions only");
                let (verdicts, cycles) = FilterMemo::kept(&snap.filter_memo);
                assert!(verdicts > 0, "seed {seed}: verdicts kept");
                assert_eq!(
                    cycles,
                    i + 1,
                    "seed {seed}: one pod shape, kept from replica to replica"
                );
                if !lean.score.is_empty() {
                    let (scores, cycles) = ScoreMemo::kept(&snap.score_memo);
                    assert!(scores > 0, "seed {seed}: raw scores kept");
                    assert_eq!(cycles, i + 1, "seed {seed}: scores kept from replica to replica");
                }
                let Some(b) = kept.binding_cycle.filter(|b| b.outcome == BindingOutcome::Bound) else {
                    break;
                };
                let table = snap.index.pods.clone();
                snap.bind_pod(&key, &b.node).expect("bind");
                rebuilt += usize::from(!table.same_table(&snap.index.pods));
                nodes.push(b.node);
            }
            assert!(!nodes.is_empty(), "seed {seed}: some replicas fit");
            assert!(rebuilt > 0, "seed {seed}: the pod table was built again");
            let r = fit(cluster.clone(), &m, &profiles, &features, &FitOptions::default());
            let placed: Vec<String> = r.workloads[0]
                .pods
                .iter()
                .filter_map(|p| match &p.result {
                    ReplicaResult::Bound { node } => Some(node.clone()),
                    _ => None,
                })
                .collect();
            assert_eq!(placed, nodes, "seed {seed}: fit");
            let opts = FitOptions {
                max: true,
                max_limit: nodes.len() + 5,
                ..Default::default()
            };
            let r = fit(cluster, &m, &profiles, &features, &opts);
            let max = r.workloads[0].max.as_ref().expect("max");
            if nodes.len() < exp.count() {
                assert_eq!(max.max, nodes.len(), "seed {seed}: fit --max");
            }
        }
    }
}
