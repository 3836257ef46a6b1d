//! Workloads before they exist: the manifests `kschedtui fit` reads, and the pods (with the
//! claims they bring) their controllers would create, named, labelled and owned as the
//! controllers of kubernetes/kubernetes do it (pkg/controller/{deployment, replicaset,
//! statefulset, daemon, job, cronjob, resourceclaim}, `controller.GetPodFromTemplate`), so the
//! scheduler sees what it would see after `kubectl apply`.
//!
//! - Deployment: a ReplicaSet `<deployment>-<hash>` whose pods carry `pod-template-hash`, its
//!   selector with it; the pods `<replicaset>-<5 characters>`, owned by the ReplicaSet.
//! - ReplicaSet: `<replicaset>-<5 characters>`, owned by it.
//! - StatefulSet: `<sts>-<ordinal>` from `spec.ordinals.start`, labels
//!   `controller-revision-hash: <sts>-<hash>`, `statefulset.kubernetes.io/pod-name`,
//!   `apps.kubernetes.io/pod-index`, hostname and subdomain, and a PersistentVolumeClaim
//!   `<template>-<sts>-<ordinal>` per `volumeClaimTemplates` entry (labelled with the
//!   selector's matchLabels) mounted as the template's volume. OrderedReady (the default)
//!   creates a pod only once the one before it is Running and Ready.
//! - DaemonSet: one pod per node its controller's `NodeShouldRunDaemonPod` accepts (the
//!   template's required node affinity and nodeSelector, and the NoSchedule/NoExecute taints
//!   it does not tolerate), with the tolerations `AddOrUpdateDaemonPodTolerations` adds and its
//!   required node affinity replaced by `matchFields: metadata.name In [NODE]`
//!   (`ReplaceDaemonSetPodNodeNameNodeAffinity`); labels `controller-revision-hash` and
//!   `pod-template-generation: "1"`.
//! - Job: the labels the API server adds to a Job's template (`job-name`,
//!   `batch.kubernetes.io/job-name`, `controller-uid`, `batch.kubernetes.io/controller-uid`),
//!   `min(parallelism, completions)` pods with the finalizer `batch.kubernetes.io/job-tracking`;
//!   Indexed ones named `<job>-<index>-<5 characters>` with the completion index as annotation,
//!   label (`batch.kubernetes.io/job-completion-index`), `JOB_COMPLETION_INDEX` and hostname
//!   `<job>-<index>`. A suspended Job creates none.
//! - CronJob: one run of its jobTemplate, the Job `<cronjob>-<minutes since the epoch>` owned by
//!   it with the `batch.kubernetes.io/cronjob-scheduled-timestamp` annotation.
//! - Pod: the pod itself.
//!
//! A pod's claims from `resourceClaimTemplateName` are created as the resourceclaim controller
//! creates them: `<pod>-<claim>-<5 characters>` (the two names shortened in proportion past 57
//! characters), owned by the pod, annotated `resource.kubernetes.io/pod-claim-name`, and named in
//! the pod's `status.resourceClaimStatuses`.
//!
//! What is not the controllers' exactly, by design (the output names it):
//! - the 5 random characters of a generated name are derived from the name and the replica's
//!   index (upstream draws them at random from the same alphabet), so a run is reproducible;
//! - a template hash (`pod-template-hash`, a DaemonSet's `controller-revision-hash`) is
//!   upstream's alphabet and length but FNV-32a of the template's JSON, not of Go's `spew` dump
//!   of the API server's defaulted object; a StatefulSet's revision is upstream's FNV-32 of the
//!   revision's JSON patch, of the template as written (the API server's defaults would change
//!   it);
//! - uids are derived from kind, namespace and name.
//!
//! Here: the manifests read into workloads and the [`Expander`] that makes their pods; names,
//! uids and hashes are in `naming`, the controllers' template changes in `templates`, the
//! claims a pod brings in `claims`.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::batch::v1 as batch;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use serde_json::Value;

use super::kinds::{Kind, ParseWith};
use super::{Cluster, Object, Origin};

mod claims;
mod naming;
mod templates;

pub use claims::{ClaimBinding, bind_immediate, claims_from_templates, default_storage_class};
use naming::{MAX_GENERATED_NAME_LENGTH, controller_ref, generated};
pub use naming::{derived_suffix, derived_uid, go_json, safe_encode, statefulset_revision_hash, template_hash};
use templates::{
    cronjob_job, daemon_affinity, daemon_runs_on, daemon_tolerations, job_template, selector_with, with_label,
};

/// The workload kinds `fit` creates pods for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WorkloadKind {
    /// A bare pod.
    Pod,
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
    /// batch/v1 CronJob (one run).
    CronJob,
}

impl WorkloadKind {
    /// The `kind`.
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Pod => "Pod",
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::ReplicaSet => "ReplicaSet",
            WorkloadKind::StatefulSet => "StatefulSet",
            WorkloadKind::DaemonSet => "DaemonSet",
            WorkloadKind::Job => "Job",
            WorkloadKind::CronJob => "CronJob",
        }
    }

    /// The kind of a document, by `kind` and `apiVersion`.
    fn of(kind: &str, api: &str) -> Option<Self> {
        Some(match (kind, api) {
            ("Deployment", "apps/v1") => WorkloadKind::Deployment,
            ("ReplicaSet", "apps/v1") => WorkloadKind::ReplicaSet,
            ("StatefulSet", "apps/v1") => WorkloadKind::StatefulSet,
            ("DaemonSet", "apps/v1") => WorkloadKind::DaemonSet,
            ("Job", "batch/v1") => WorkloadKind::Job,
            ("CronJob", "batch/v1") => WorkloadKind::CronJob,
            ("Pod", "v1" | "") => WorkloadKind::Pod,
            _ => return None,
        })
    }
}

impl std::fmt::Display for WorkloadKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A workload's object as read.
#[derive(Clone, Debug)]
pub enum Spec {
    /// A pod.
    Pod(Box<core::Pod>),
    /// A Deployment.
    Deployment(Box<apps::Deployment>),
    /// A ReplicaSet.
    ReplicaSet(Box<apps::ReplicaSet>),
    /// A StatefulSet.
    StatefulSet(Box<apps::StatefulSet>),
    /// A DaemonSet.
    DaemonSet(Box<apps::DaemonSet>),
    /// A Job.
    Job(Box<batch::Job>),
    /// A CronJob.
    CronJob(Box<batch::CronJob>),
}

/// One workload of the manifests.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Where it was read.
    pub origin: Origin,
    /// Its namespace (the manifest's, else `-n`'s, else `default`).
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// The object.
    pub spec: Spec,
}

impl Workload {
    /// Its kind.
    pub fn kind(&self) -> WorkloadKind {
        match &self.spec {
            Spec::Pod(_) => WorkloadKind::Pod,
            Spec::Deployment(_) => WorkloadKind::Deployment,
            Spec::ReplicaSet(_) => WorkloadKind::ReplicaSet,
            Spec::StatefulSet(_) => WorkloadKind::StatefulSet,
            Spec::DaemonSet(_) => WorkloadKind::DaemonSet,
            Spec::Job(_) => WorkloadKind::Job,
            Spec::CronJob(_) => WorkloadKind::CronJob,
        }
    }

    /// The pod template's spec and the path of the template in the object.
    fn template(&self) -> (&'static str, Option<&core::PodSpec>) {
        match &self.spec {
            Spec::Pod(p) => ("", p.spec.as_ref()),
            Spec::Deployment(d) => ("spec.template.", d.spec.template.spec.as_ref()),
            Spec::ReplicaSet(r) => ("spec.template.", r.spec.template.as_ref().and_then(|t| t.spec.as_ref())),
            Spec::StatefulSet(s) => ("spec.template.", s.spec.template.spec.as_ref()),
            Spec::DaemonSet(d) => ("spec.template.", d.spec.template.spec.as_ref()),
            Spec::Job(j) => ("spec.template.", j.spec.as_ref().and_then(|s| s.template.spec.as_ref())),
            Spec::CronJob(c) => (
                "spec.jobTemplate.spec.template.",
                c.spec.job_template.spec.as_ref().and_then(|s| s.template.spec.as_ref()),
            ),
        }
    }

    /// The template's quantities read as the model reads a pod's (the API server would refuse
    /// the object otherwise): an error names the field.
    fn check(&self) -> Result<(), String> {
        let (prefix, spec) = self.template();
        let pod = core::Pod {
            spec: spec.cloned(),
            ..Default::default()
        };
        super::Pod::from_obj(pod, |_| 0)
            .map(|_| ())
            .map_err(|(field, message)| {
                format!(
                    "{} {}/{}: field '{prefix}{field}': {message}",
                    self.kind(),
                    self.namespace,
                    self.name
                )
            })
    }

    /// `Kind namespace/name`.
    pub fn describe(&self) -> String {
        format!("{} {}/{}", self.kind(), self.namespace, self.name)
    }

    /// The replicas its spec asks for (None: a DaemonSet, one per eligible node).
    pub fn replicas(&self) -> Option<usize> {
        let n = |r: Option<i32>| usize::try_from(r.unwrap_or(1)).unwrap_or(0);
        match &self.spec {
            Spec::Pod(_) => Some(1),
            Spec::Deployment(d) => Some(n(d.spec.replicas)),
            Spec::ReplicaSet(r) => Some(n(r.spec.replicas)),
            Spec::StatefulSet(s) => Some(n(s.spec.replicas)),
            Spec::DaemonSet(_) => None,
            Spec::Job(j) => Some(job_active(j.spec.as_ref())),
            Spec::CronJob(c) => Some(job_active(c.spec.job_template.spec.as_ref())),
        }
    }
}

/// The pods a Job keeps active at first: `min(parallelism, completions)` (parallelism 1 by
/// default), none while suspended.
fn job_active(spec: Option<&batch::JobSpec>) -> usize {
    let Some(s) = spec else { return 1 };
    if s.suspend == Some(true) {
        return 0;
    }
    let p = s.parallelism.unwrap_or(1);
    let n = match s.completions {
        Some(c) => p.min(c),
        None => p,
    };
    usize::try_from(n).unwrap_or(0)
}

/// The manifests read: the workloads, the objects they bring along (added to the cluster as
/// they are), and what was skipped.
#[derive(Clone, Debug, Default)]
pub struct Manifests {
    /// The workloads, in input order.
    pub workloads: Vec<Workload>,
    /// The objects to add to the cluster (claims, templates, classes, gangs, namespaces, …).
    pub objects: Vec<(Origin, Object)>,
    /// Kinds the scheduler does not read (`ConfigMap web-config`).
    pub skipped: Vec<String>,
}

/// A manifest that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct ManifestError {
    /// Where.
    pub origin: Origin,
    /// What is wrong (naming the object and the field).
    pub message: String,
}

fn typed<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
    serde_path_to_error::deserialize(v)
}

struct FromValue(Value);

impl ParseWith for FromValue {
    type Error = serde_path_to_error::Error<serde_json::Error>;
    fn parse<T: serde::de::DeserializeOwned>(self) -> Result<T, Self::Error> {
        typed(self.0)
    }
}

/// Sorts the documents read from manifest files into workloads and objects. A namespaced
/// object without a namespace gets `namespace`, as `kubectl apply -n` does.
pub fn read(docs: Vec<(Origin, Value)>, namespace: &str) -> Result<Manifests, ManifestError> {
    let mut out = Manifests::default();
    let mut seen = BTreeSet::new();
    for (origin, mut v) in docs {
        let err = |message: String| ManifestError {
            origin: origin.clone(),
            message,
        };
        let kind = v.get("kind").and_then(Value::as_str).unwrap_or("").to_string();
        let api = v.get("apiVersion").and_then(Value::as_str).unwrap_or("").to_string();
        let name = v
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if kind.is_empty() {
            return Err(err("no 'kind': not a Kubernetes object".into()));
        }
        if name.is_empty() {
            return Err(err(format!(
                "{kind}: field 'metadata.name' is missing; every object needs a name"
            )));
        }
        if let Some(wk) = WorkloadKind::of(&kind, &api) {
            let ns = set_namespace(&mut v, namespace);
            if !seen.insert((wk, ns.clone(), name.clone())) {
                return Err(err(format!("{kind} {ns}/{name}: given twice")));
            }
            let bad = |e: serde_path_to_error::Error<serde_json::Error>| {
                err(format!("{kind} {ns}/{name}: field '{}': {}", e.path(), e.inner()))
            };
            let spec = match wk {
                WorkloadKind::Pod => Spec::Pod(typed(v).map_err(bad)?),
                WorkloadKind::Deployment => Spec::Deployment(typed(v).map_err(bad)?),
                WorkloadKind::ReplicaSet => Spec::ReplicaSet(typed(v).map_err(bad)?),
                WorkloadKind::StatefulSet => Spec::StatefulSet(typed(v).map_err(bad)?),
                WorkloadKind::DaemonSet => Spec::DaemonSet(typed(v).map_err(bad)?),
                WorkloadKind::Job => Spec::Job(typed(v).map_err(bad)?),
                WorkloadKind::CronJob => Spec::CronJob(typed(v).map_err(bad)?),
            };
            let w = Workload {
                origin: origin.clone(),
                namespace: ns,
                name,
                spec,
            };
            w.check().map_err(&err)?;
            out.workloads.push(w);
            continue;
        }
        if ["Deployment", "DaemonSet", "Job", "CronJob"].contains(&kind.as_str()) {
            return Err(err(format!(
                "{kind} {name}: apiVersion '{api}' is not one kschedtui reads for it (it reads {})",
                if kind.ends_with("Job") { "batch/v1" } else { "apps/v1" }
            )));
        }
        match Kind::of_document(&kind, &api) {
            Some(Kind::Node) => {
                return Err(err(format!(
                    "Node {name}: fit places workloads on the cluster; a Node belongs in the snapshot, not in the manifests"
                )));
            }
            Some(Kind::Event) => out.skipped.push(format!("{kind} {name}")),
            Some(k) => {
                if k.namespaced() {
                    set_namespace(&mut v, namespace);
                }
                let obj = k
                    .parse(FromValue(v))
                    .map_err(|e| err(format!("{kind} {name}: field '{}': {}", e.path(), e.inner())))?;
                out.objects.push((origin, obj));
            }
            None => {
                if let Some(read) = Kind::unread_api_version(&kind, &api) {
                    return Err(err(format!(
                        "{kind} {name}: apiVersion '{api}' is not one kschedtui reads for it (it reads {})",
                        read.join(", ")
                    )));
                }
                out.skipped.push(format!("{kind} {name}"));
            }
        }
    }
    Ok(out)
}

fn set_namespace(v: &mut Value, default: &str) -> String {
    let ns = v
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .unwrap_or(default)
        .to_string();
    if let Some(Value::Object(m)) = v.get_mut("metadata") {
        m.insert("namespace".into(), Value::String(ns.clone()));
    }
    ns
}

/// One pod a controller creates, not admitted yet.
#[derive(Clone, Debug)]
pub struct Created {
    /// The pod (named, labelled, owned, in its namespace).
    pub pod: core::Pod,
    /// The StatefulSet's PersistentVolumeClaims for it, created before it (those that do not
    /// exist yet).
    pub claims: Vec<core::PersistentVolumeClaim>,
    /// OrderedReady: the pod that must be Running and Ready before this one is created.
    pub after: Option<String>,
    /// The node a DaemonSet pod is for.
    pub node: Option<String>,
}

/// What creates a workload's pods, one replica at a time.
#[derive(Clone, Debug)]
pub struct Expander {
    /// The workload.
    pub kind: WorkloadKind,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// The objects its controller chain creates besides pods (a Deployment's ReplicaSet, a
    /// CronJob's Job), added to the cluster.
    pub owners: Vec<Object>,
    /// What is worth saying about how the pods were made.
    pub notes: Vec<String>,
    /// The pod template, as the last controller of the chain uses it (labels added).
    template: core::PodTemplateSpec,
    /// The controller reference every pod carries.
    owner: Option<OwnerReference>,
    /// The generateName (`<owner>-`), or None for pods named by ordinal or by the manifest.
    generate_name: Option<String>,
    how: How,
    count: usize,
}

#[derive(Clone, Debug)]
enum How {
    Pod,
    Replicas,
    StatefulSet {
        set: Box<apps::StatefulSet>,
        start: usize,
        ordered: bool,
    },
    DaemonSet {
        nodes: Vec<String>,
    },
    Job {
        indexed: bool,
        job: String,
    },
}

impl Expander {
    /// How the workload's controllers create its pods on `cluster`; `scheduled` is the time a
    /// CronJob's run is for (Unix seconds).
    pub fn new(w: &Workload, cluster: &Cluster, comparison_operators: bool, scheduled: i64) -> Self {
        let ns = w.namespace.clone();
        let name = w.name.clone();
        let mut e = Expander {
            kind: w.kind(),
            namespace: ns.clone(),
            name: name.clone(),
            owners: Vec::new(),
            notes: Vec::new(),
            template: core::PodTemplateSpec::default(),
            owner: None,
            generate_name: None,
            how: How::Replicas,
            count: w.replicas().unwrap_or(0),
        };
        let uid = derived_uid(w.kind().name(), &ns, &name);
        match &w.spec {
            Spec::Pod(p) => {
                e.template = core::PodTemplateSpec {
                    metadata: Some(p.metadata.clone()),
                    spec: p.spec.clone(),
                };
                e.how = How::Pod;
            }
            Spec::Deployment(d) => {
                let spec = d.spec.clone();
                let collision = d.status.as_ref().and_then(|s| s.collision_count);
                let hash = template_hash(&spec.template, collision);
                let rs_name = format!("{name}-{hash}");
                let rs_uid = derived_uid("ReplicaSet", &ns, &rs_name);
                let template = with_label(spec.template.clone(), "pod-template-hash", &hash);
                let rs = apps::ReplicaSet {
                    metadata: ObjectMeta {
                        name: Some(rs_name.clone()),
                        namespace: Some(ns.clone()),
                        uid: Some(rs_uid.clone()),
                        labels: template.metadata.as_ref().and_then(|m| m.labels.clone()),
                        annotations: Some([("deployment.kubernetes.io/revision".to_string(), "1".to_string())].into()),
                        owner_references: Some(vec![controller_ref("apps/v1", "Deployment", &name, &uid)]),
                        ..Default::default()
                    },
                    spec: apps::ReplicaSetSpec {
                        replicas: spec.replicas.or(Some(1)),
                        selector: selector_with(&spec.selector, "pod-template-hash", &hash),
                        template: Some(template.clone()),
                        min_ready_seconds: spec.min_ready_seconds,
                    },
                    status: None,
                };
                e.owners.push(Object::ReplicaSet(Box::new(rs)));
                e.owner = Some(controller_ref("apps/v1", "ReplicaSet", &rs_name, &rs_uid));
                e.generate_name = Some(format!("{rs_name}-"));
                e.template = template;
                e.notes.push(format!(
                    "ReplicaSet {rs_name}: pod-template-hash {hash} is FNV-32a of the template's JSON (upstream hashes Go's dump of the stored object: the value differs, the form is the same)"
                ));
            }
            Spec::ReplicaSet(r) => {
                let spec = r.spec.clone();
                e.template = spec.template.unwrap_or_default();
                e.owners.push(Object::ReplicaSet(Box::new(apps::ReplicaSet {
                    metadata: ObjectMeta {
                        uid: Some(uid.clone()),
                        ..r.metadata.clone()
                    },
                    ..(**r).clone()
                })));
                e.owner = Some(controller_ref("apps/v1", "ReplicaSet", &name, &uid));
                e.generate_name = Some(format!("{name}-"));
            }
            Spec::StatefulSet(s) => {
                let spec = s.spec.clone();
                let collision = s.status.as_ref().and_then(|s| s.collision_count);
                let hash = statefulset_revision_hash(&spec.template, collision);
                let revision = format!("{name}-{hash}");
                e.template = with_label(spec.template.clone(), "controller-revision-hash", &revision);
                e.owner = Some(controller_ref("apps/v1", "StatefulSet", &name, &uid));
                let ordered = spec.pod_management_policy.as_deref() != Some("Parallel");
                let start = spec
                    .ordinals
                    .as_ref()
                    .and_then(|o| o.start)
                    .and_then(|s| usize::try_from(s).ok())
                    .unwrap_or(0);
                e.owners.push(Object::StatefulSet(Box::new(apps::StatefulSet {
                    metadata: ObjectMeta {
                        uid: Some(uid.clone()),
                        ..s.metadata.clone()
                    },
                    ..(**s).clone()
                })));
                e.notes.push(format!(
                    "controller-revision-hash {revision}: upstream's FNV-32 of the revision's patch, of the template as written (the API server's defaults would change the value)"
                ));
                if ordered {
                    e.notes.push(
                        "OrderedReady: each pod is created once the one before it is Running and Ready (a placed pod is taken as running and ready)"
                            .into(),
                    );
                }
                e.how = How::StatefulSet {
                    set: s.clone(),
                    start,
                    ordered,
                };
            }
            Spec::DaemonSet(d) => {
                let spec = d.spec.clone();
                let collision = d.status.as_ref().and_then(|s| s.collision_count);
                let hash = template_hash(&spec.template, collision);
                let mut template = with_label(spec.template.clone(), "pod-template-generation", "1");
                template = with_label(template, "controller-revision-hash", &hash);
                let pod_spec = template.spec.get_or_insert_with(Default::default);
                daemon_tolerations(pod_spec);
                let nodes: Vec<String> = cluster
                    .nodes
                    .iter()
                    .filter(|n| daemon_runs_on(pod_spec, n, comparison_operators))
                    .map(|n| n.name.clone())
                    .collect();
                let skipped = cluster.nodes.len() - nodes.len();
                if skipped > 0 {
                    e.notes.push(format!(
                        "{} of {} node(s) are eligible for the DaemonSet (its node selector, required node affinity and untolerated NoSchedule/NoExecute taints leave out {skipped})",
                        nodes.len(),
                        cluster.nodes.len()
                    ));
                }
                e.notes.push(format!(
                    "controller-revision-hash {hash} is FNV-32a of the template's JSON (upstream hashes Go's dump of the stored object: the value differs, the form is the same)"
                ));
                e.count = nodes.len();
                e.template = template;
                e.owner = Some(controller_ref("apps/v1", "DaemonSet", &name, &uid));
                e.generate_name = Some(format!("{name}-"));
                e.how = How::DaemonSet { nodes };
            }
            Spec::Job(j) => {
                let spec = j.spec.clone().unwrap_or_default();
                e.set_job(&spec, &name, &uid);
            }
            Spec::CronJob(c) => {
                let job = cronjob_job(c, &ns, &name, &uid, scheduled);
                let job_name = job.metadata.name.clone().unwrap_or_default();
                let job_uid = job.metadata.uid.clone().unwrap_or_default();
                let spec = job.spec.clone().unwrap_or_default();
                e.set_job(&spec, &job_name, &job_uid);
                e.notes.push(format!(
                    "one run of the CronJob: its Job {job_name}, named for the scheduled time {} (the minute the pods are created; the schedule itself is not evaluated)",
                    job.metadata
                        .annotations
                        .as_ref()
                        .and_then(|a| a.get("batch.kubernetes.io/cronjob-scheduled-timestamp"))
                        .cloned()
                        .unwrap_or_default()
                ));
                if c.spec.suspend == Some(true) {
                    e.notes
                        .push("the CronJob is suspended: kschedtui places one run of it anyway".into());
                }
            }
        }
        let strip = e.how_is_template();
        if let Some(t) = &mut e.template.metadata
            && strip
        {
            // a template's own name and namespace are not the pods'
            t.name = None;
            t.namespace = None;
        }
        e
    }

    fn how_is_template(&self) -> bool {
        !matches!(self.how, How::Pod)
    }

    fn set_job(&mut self, spec: &batch::JobSpec, name: &str, uid: &str) {
        self.template = job_template(spec, name, uid);
        self.owner = Some(controller_ref("batch/v1", "Job", name, uid));
        let indexed = spec.completion_mode.as_deref() == Some("Indexed");
        self.generate_name = Some(format!("{name}-"));
        self.count = job_active(Some(spec));
        if spec.suspend == Some(true) {
            self.notes
                .push(format!("Job {name} is suspended: its controller creates no pod"));
        }
        self.how = How::Job {
            indexed,
            job: name.to_string(),
        };
    }

    /// How many pods the controllers create (a DaemonSet: one per eligible node).
    pub fn count(&self) -> usize {
        self.count
    }

    /// Sets the number of replicas (`--replicas`, `--max`); a DaemonSet keeps one per node.
    pub fn set_replicas(&mut self, n: usize) {
        if !matches!(self.how, How::DaemonSet { .. }) {
            self.count = n;
        }
    }

    /// The pod template its pods are made from (the controllers' labels added).
    pub fn template(&self) -> &core::PodTemplateSpec {
        &self.template
    }

    /// True for a DaemonSet (its pods are per node, not a count).
    pub fn per_node(&self) -> bool {
        matches!(self.how, How::DaemonSet { .. })
    }

    /// The pod of replica `i` (0-based), named so it is not one of `taken`.
    pub fn replica(&self, i: usize, taken: &dyn Fn(&str) -> bool) -> Created {
        let tm = self.template.metadata.clone().unwrap_or_default();
        let mut meta = if matches!(self.how, How::Pod) {
            // a bare pod keeps its own metadata
            ObjectMeta {
                namespace: Some(self.namespace.clone()),
                uid: None,
                resource_version: None,
                creation_timestamp: None,
                ..tm
            }
        } else {
            ObjectMeta {
                namespace: Some(self.namespace.clone()),
                labels: tm.labels.clone(),
                annotations: tm.annotations.clone(),
                finalizers: tm.finalizers.clone(),
                owner_references: self.owner.clone().map(|o| vec![o]),
                ..Default::default()
            }
        };
        let mut spec = self.template.spec.clone().unwrap_or_default();
        let mut claims = Vec::new();
        let mut after = None;
        let mut node = None;
        let name = match &self.how {
            How::Pod => {
                if i == 0 {
                    self.name.clone()
                } else {
                    format!("{}-{}", self.name, i + 1)
                }
            }
            How::Replicas => self.unique(self.generate_name.as_deref().unwrap_or(""), i, taken),
            How::DaemonSet { nodes } => {
                let n = nodes.get(i).cloned().unwrap_or_default();
                daemon_affinity(&mut spec, &n);
                node = Some(n);
                self.unique(self.generate_name.as_deref().unwrap_or(""), i, taken)
            }
            How::Job { indexed, job } => {
                let fin = meta.finalizers.get_or_insert_with(Vec::new);
                if !fin.iter().any(|f| f == "batch.kubernetes.io/job-tracking") {
                    fin.push("batch.kubernetes.io/job-tracking".into());
                }
                if *indexed {
                    let idx = i.to_string();
                    meta.annotations
                        .get_or_insert_with(Default::default)
                        .insert("batch.kubernetes.io/job-completion-index".into(), idx.clone());
                    meta.labels
                        .get_or_insert_with(Default::default)
                        .insert("batch.kubernetes.io/job-completion-index".into(), idx.clone());
                    spec.hostname = Some(format!("{job}-{i}"));
                    for c in &mut spec.containers {
                        add_completion_index_env(c);
                    }
                    for c in spec.init_containers.iter_mut().flatten() {
                        add_completion_index_env(c);
                    }
                    let append = format!("-{i}-");
                    let mut prefix = format!("{job}{append}");
                    if prefix.len() > MAX_GENERATED_NAME_LENGTH {
                        let keep = MAX_GENERATED_NAME_LENGTH - append.len();
                        prefix = format!("{}{append}", job.chars().take(keep).collect::<String>());
                    }
                    self.unique(&prefix, i, taken)
                } else {
                    self.unique(self.generate_name.as_deref().unwrap_or(""), i, taken)
                }
            }
            How::StatefulSet { set, start, ordered } => {
                let ordinal = start + i;
                let pod = format!("{}-{ordinal}", self.name);
                let labels = meta.labels.get_or_insert_with(Default::default);
                labels.insert("statefulset.kubernetes.io/pod-name".into(), pod.clone());
                labels.insert("apps.kubernetes.io/pod-index".into(), ordinal.to_string());
                let s = set.spec.clone();
                spec.hostname = Some(pod.clone());
                spec.subdomain = s.service_name.clone().filter(|x| !x.is_empty());
                // `updateStorage`: the claims' volumes first, then the template's others
                let mut volumes = Vec::new();
                let mut names = BTreeSet::new();
                for t in s.volume_claim_templates.iter().flatten() {
                    let tname = t.metadata.name.clone().unwrap_or_default();
                    let claim = format!("{tname}-{}-{ordinal}", self.name);
                    let mut c = t.clone();
                    c.metadata.name = Some(claim.clone());
                    c.metadata.namespace = Some(self.namespace.clone());
                    let labels = c.metadata.labels.get_or_insert_with(Default::default);
                    for (k, v) in s.selector.match_labels.iter().flatten() {
                        labels.insert(k.clone(), v.clone());
                    }
                    c.metadata.uid = Some(derived_uid("PersistentVolumeClaim", &self.namespace, &claim));
                    c.status = Some(core::PersistentVolumeClaimStatus {
                        phase: Some("Pending".into()),
                        ..Default::default()
                    });
                    claims.push(c);
                    names.insert(tname.clone());
                    volumes.push(core::Volume {
                        name: tname,
                        persistent_volume_claim: Some(core::PersistentVolumeClaimVolumeSource {
                            claim_name: claim,
                            read_only: Some(false),
                        }),
                        ..Default::default()
                    });
                }
                for v in spec.volumes.iter().flatten() {
                    if !names.contains(&v.name) {
                        volumes.push(v.clone());
                    }
                }
                if !volumes.is_empty() {
                    spec.volumes = Some(volumes);
                }
                if *ordered && i > 0 {
                    after = Some(format!("{}-{}", self.name, ordinal - 1));
                }
                pod
            }
        };
        meta.uid = Some(derived_uid("Pod", &self.namespace, &name));
        meta.name = Some(name);
        if meta.labels.as_ref().is_some_and(BTreeMap::is_empty) {
            meta.labels = None;
        }
        Created {
            pod: core::Pod {
                metadata: meta,
                spec: Some(spec),
                status: Some(core::PodStatus {
                    phase: Some("Pending".into()),
                    ..Default::default()
                }),
            },
            claims,
            after,
            node,
        }
    }

    /// `<generateName><5 characters>` not taken.
    fn unique(&self, prefix: &str, i: usize, taken: &dyn Fn(&str) -> bool) -> String {
        let mut attempt = 0usize;
        loop {
            let name = generated(prefix, &format!("{prefix}{i}/{attempt}"));
            if !taken(&name) {
                return name;
            }
            attempt += 1;
        }
    }
}

fn add_completion_index_env(c: &mut core::Container) {
    let env = c.env.get_or_insert_with(Vec::new);
    if env.iter().any(|e| e.name == "JOB_COMPLETION_INDEX") {
        return;
    }
    env.push(core::EnvVar {
        name: "JOB_COMPLETION_INDEX".into(),
        value: None,
        value_from: Some(core::EnvVarSource {
            field_ref: Some(core::ObjectFieldSelector {
                api_version: None,
                field_path: "metadata.annotations['batch.kubernetes.io/job-completion-index']".into(),
            }),
            ..Default::default()
        }),
    });
}

#[cfg(test)]
mod tests;
