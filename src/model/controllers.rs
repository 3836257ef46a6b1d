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

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::batch::v1 as batch;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::resource::v1 as dra;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference};
use serde_json::Value;

use super::kinds::{Kind, ParseWith};
use super::selector::{NodeSelectorMatcher, Selector};
use super::{Cluster, Object, Origin, Toleration};

/// `names.MaxGeneratedNameLength`: 63 minus the 5 random characters.
const MAX_GENERATED_NAME_LENGTH: usize = 58;

/// The alphabet of apimachinery's `rand.String` and `SafeEncodeString`.
const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

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

/// A uid derived from what it names (a real one is random).
pub fn derived_uid(kind: &str, namespace: &str, name: &str) -> String {
    let h1 = super::fnv1a(0xcbf2_9ce4_8422_2325, format!("{kind}/{namespace}/{name}").as_bytes());
    let h2 = super::fnv1a(h1 ^ 0x9e37_79b9_7f4a_7c15, name.as_bytes());
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        h1 >> 32,
        (h1 >> 16) & 0xffff,
        h1 & 0xfff,
        h2 >> 52,
        h2 & 0xffff_ffff_ffff
    )
}

/// FNV-32a (`hash/fnv.New32a`).
fn fnv32a(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(*b)).wrapping_mul(0x0100_0193))
}

/// FNV-32 (`hash/fnv.New32`): multiply, then xor.
fn fnv32(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(0x811c_9dc5u32, |h, b| h.wrapping_mul(0x0100_0193) ^ u32::from(*b))
}

/// `rand.SafeEncodeString`.
pub fn safe_encode(s: &str) -> String {
    s.chars()
        .map(|c| ALPHANUMS[(c as usize) % ALPHANUMS.len()] as char)
        .collect()
}

/// JSON as Go's `json.Marshal` writes a map: keys sorted, no spaces, `<`, `>`, `&`, U+2028
/// and U+2029 escaped.
pub fn go_json(v: &Value) -> String {
    fn string(s: &str, out: &mut String) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
    }
    fn walk(v: &Value, out: &mut String) {
        match v {
            Value::Object(m) => {
                out.push('{');
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    string(k, out);
                    out.push(':');
                    walk(&m[k], out);
                }
                out.push('}');
            }
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    walk(x, out);
                }
                out.push(']');
            }
            Value::String(s) => string(s, out),
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    walk(v, &mut out);
    out
}

/// `controller.ComputeHash`'s shape: FNV-32a of the template (here its JSON), the collision
/// count's 8 little-endian bytes, `SafeEncodeString` of the decimal sum.
pub fn template_hash(template: &core::PodTemplateSpec, collision: Option<i32>) -> String {
    let json = go_json(&serde_json::to_value(template).unwrap_or(Value::Null));
    let mut bytes = json.into_bytes();
    if let Some(c) = collision {
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&u32::from_ne_bytes(c.to_ne_bytes()).to_le_bytes());
        bytes.extend_from_slice(&b);
    }
    safe_encode(&fnv32a(&bytes).to_string())
}

/// A StatefulSet's revision hash (`history.HashControllerRevision` of `getPatch`): FNV-32 of
/// `{"spec":{"template":{…,"$patch":"replace"}}}`, then the collision count in decimal.
pub fn statefulset_revision_hash(template: &core::PodTemplateSpec, collision: Option<i32>) -> String {
    let mut t = serde_json::to_value(template).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut t {
        m.insert("$patch".into(), Value::String("replace".into()));
    }
    let patch = serde_json::json!({"spec": {"template": t}});
    let mut bytes = go_json(&patch).into_bytes();
    if let Some(c) = collision {
        bytes.extend_from_slice(c.to_string().as_bytes());
    }
    safe_encode(&fnv32(&bytes).to_string())
}

/// The 5 characters `rand.String(5)` would draw, derived from `seed` instead.
pub fn derived_suffix(seed: &str) -> String {
    let mut h = super::fnv1a(0xcbf2_9ce4_8422_2325, seed.as_bytes());
    let mut out = String::with_capacity(5);
    let mut left = 12;
    while out.len() < 5 {
        if left == 0 {
            h = super::fnv1a(h, b"more");
            left = 12;
        }
        let idx = (h & 0x1f) as usize;
        if idx < ALPHANUMS.len() {
            out.push(ALPHANUMS[idx] as char);
        }
        h >>= 5;
        left -= 1;
    }
    out
}

/// `SimpleNameGenerator.GenerateName` with a derived suffix: the base cut to 58 characters.
fn generated(base: &str, seed: &str) -> String {
    let base: String = base.chars().take(MAX_GENERATED_NAME_LENGTH).collect();
    format!("{base}{}", derived_suffix(seed))
}

fn controller_ref(api: &str, kind: &str, name: &str, uid: &str) -> OwnerReference {
    OwnerReference {
        api_version: api.into(),
        kind: kind.into(),
        name: name.into(),
        uid: uid.into(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

fn with_label(mut t: core::PodTemplateSpec, k: &str, v: &str) -> core::PodTemplateSpec {
    t.metadata
        .get_or_insert_with(Default::default)
        .labels
        .get_or_insert_with(Default::default)
        .insert(k.into(), v.into());
    t
}

fn selector_with(s: &LabelSelector, k: &str, v: &str) -> LabelSelector {
    let mut s = s.clone();
    s.match_labels
        .get_or_insert_with(Default::default)
        .insert(k.into(), v.into());
    s
}

/// The labels the API server's Job strategy adds to a Job's template (`generateSelector`),
/// unless `manualSelector`.
fn job_template(job: &batch::JobSpec, name: &str, uid: &str) -> core::PodTemplateSpec {
    let mut t = job.template.clone();
    if job.manual_selector != Some(true) {
        let labels = t
            .metadata
            .get_or_insert_with(Default::default)
            .labels
            .get_or_insert_with(Default::default);
        for k in ["job-name", "batch.kubernetes.io/job-name"] {
            labels.entry(k.into()).or_insert_with(|| name.into());
        }
        for k in ["controller-uid", "batch.kubernetes.io/controller-uid"] {
            labels.entry(k.into()).or_insert_with(|| uid.into());
        }
    }
    t
}

/// The Job a CronJob's run creates (`getJobFromTemplate2`): named `<cronjob>-<minutes>`.
fn cronjob_job(cj: &batch::CronJob, namespace: &str, name: &str, cj_uid: &str, scheduled: i64) -> batch::Job {
    let jt = cj.spec.job_template.clone();
    let scheduled = scheduled - scheduled.rem_euclid(60);
    let job_name = format!("{name}-{}", scheduled.div_euclid(60));
    let mut meta = jt.metadata.unwrap_or_default();
    meta.name = Some(job_name.clone());
    meta.namespace = Some(namespace.into());
    meta.uid = Some(derived_uid("Job", namespace, &job_name));
    let ts = k8s_openapi::jiff::Timestamp::from_second(scheduled).map_or_else(|_| String::new(), |t| t.to_string());
    meta.annotations
        .get_or_insert_with(Default::default)
        .insert("batch.kubernetes.io/cronjob-scheduled-timestamp".into(), ts);
    meta.owner_references = Some(vec![controller_ref("batch/v1", "CronJob", name, cj_uid)]);
    batch::Job {
        metadata: meta,
        spec: jt.spec,
        status: None,
    }
}

/// `NodeShouldRunDaemonPod`'s predicates on a node for the DaemonSet's pod: the template's
/// required node affinity and nodeSelector match, and no NoSchedule or NoExecute taint goes
/// untolerated (with the tolerations the controller adds).
fn daemon_runs_on(spec: &core::PodSpec, node: &super::Node, comparison_operators: bool) -> bool {
    if let Some(n) = spec.node_name.as_deref().filter(|n| !n.is_empty())
        && n != node.name
    {
        return false;
    }
    if let Some(sel) = &spec.node_selector
        && !Selector::from_map(sel).matches(&node.labels)
    {
        return false;
    }
    if let Some(req) = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|na| na.required_during_scheduling_ignored_during_execution.as_ref())
        && !NodeSelectorMatcher::new(req).matches(&node.labels, &node.name)
    {
        return false;
    }
    let tolerations: Vec<Toleration> = spec
        .tolerations
        .iter()
        .flatten()
        .map(|t| Toleration {
            key: t.key.clone().unwrap_or_default(),
            operator: t.operator.clone().unwrap_or_default(),
            value: t.value.clone().unwrap_or_default(),
            effect: t.effect.clone().unwrap_or_default(),
        })
        .collect();
    node.taints
        .iter()
        .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
        .all(|t| Toleration::any_tolerates(&tolerations, t, comparison_operators))
}

/// `AddOrUpdateDaemonPodTolerations`.
fn daemon_tolerations(spec: &mut core::PodSpec) {
    let mut add = vec![
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ];
    if spec.host_network == Some(true) {
        add.push(("node.kubernetes.io/network-unavailable", "NoSchedule"));
    }
    let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
    for (key, effect) in add {
        let t = core::Toleration {
            key: Some(key.into()),
            operator: Some("Exists".into()),
            effect: Some(effect.into()),
            value: None,
            toleration_seconds: None,
        };
        // `AddOrUpdateTolerationInPodSpec`: one with the same key, operator, value and effect
        // is replaced, else it is added
        match tolerations
            .iter_mut()
            .find(|x| x.key == t.key && x.effect == t.effect && x.operator == t.operator && x.value == t.value)
        {
            Some(x) => *x = t,
            None => tolerations.push(t),
        }
    }
}

/// `ReplaceDaemonSetPodNodeNameNodeAffinity`.
fn daemon_affinity(spec: &mut core::PodSpec, node: &str) {
    let term = core::NodeSelectorTerm {
        match_expressions: None,
        match_fields: Some(vec![core::NodeSelectorRequirement {
            key: "metadata.name".into(),
            operator: "In".into(),
            values: Some(vec![node.into()]),
        }]),
    };
    let affinity = spec.affinity.get_or_insert_with(Default::default);
    let na = affinity.node_affinity.get_or_insert_with(Default::default);
    match &mut na.required_during_scheduling_ignored_during_execution {
        Some(req) => req.node_selector_terms = vec![term],
        None => {
            na.required_during_scheduling_ignored_during_execution = Some(core::NodeSelector {
                node_selector_terms: vec![term],
            });
        }
    }
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

/// The ResourceClaims the resourceclaim controller creates for a pod's
/// `resourceClaimTemplateName` entries, and the pod's `status.resourceClaimStatuses` naming
/// them; an error names a template that does not exist.
pub fn claims_from_templates(
    pod: &mut core::Pod,
    templates: &BTreeMap<super::ObjectKey, dra::ResourceClaimTemplate>,
    taken: &dyn Fn(&str) -> bool,
) -> Result<Vec<dra::ResourceClaim>, String> {
    let ns = pod.metadata.namespace.clone().unwrap_or_default();
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    let uid = pod.metadata.uid.clone().unwrap_or_default();
    let mut out = Vec::new();
    let mut statuses = Vec::new();
    for pc in pod.spec.iter().flat_map(|s| s.resource_claims.iter().flatten()) {
        let Some(tname) = &pc.resource_claim_template_name else {
            continue;
        };
        let Some(t) = templates.get(&super::ObjectKey::new(ns.as_str(), tname.as_str())) else {
            return Err(format!(
                "resource claim template \"{tname}\" of pod {ns}/{pod_name} (claim {}) does not exist",
                pc.name
            ));
        };
        let mut base = format!("{pod_name}-{}-", pc.name);
        let max_base = 57;
        if base.len() > max_base {
            let total = base.len();
            base = format!(
                "{}-{}",
                &pod_name[..pod_name.len() * max_base / total],
                &pc.name[..pc.name.len() * max_base / total]
            );
        }
        let mut attempt = 0usize;
        let name = loop {
            let n = format!("{base}{}", derived_suffix(&format!("{base}/{attempt}")));
            if !taken(&n)
                && !out
                    .iter()
                    .any(|c: &dra::ResourceClaim| c.metadata.name.as_deref() == Some(&n))
            {
                break n;
            }
            attempt += 1;
        };
        let tspec = t.spec.clone().unwrap_or_default();
        let tmeta = tspec.metadata.clone().unwrap_or_default();
        let mut annotations = tmeta.annotations.unwrap_or_default();
        annotations.insert("resource.kubernetes.io/pod-claim-name".into(), pc.name.clone());
        out.push(dra::ResourceClaim {
            metadata: ObjectMeta {
                name: Some(name.clone()),
                namespace: Some(ns.clone()),
                uid: Some(derived_uid("ResourceClaim", &ns, &name)),
                labels: tmeta.labels,
                annotations: Some(annotations),
                owner_references: Some(vec![OwnerReference {
                    api_version: "v1".into(),
                    kind: "Pod".into(),
                    name: pod_name.clone(),
                    uid: uid.clone(),
                    controller: Some(true),
                    block_owner_deletion: Some(true),
                }]),
                ..Default::default()
            },
            spec: tspec.spec,
            status: None,
        });
        statuses.push(core::PodResourceClaimStatus {
            name: pc.name.clone(),
            resource_claim_name: Some(name),
        });
    }
    if !statuses.is_empty() {
        pod.status.get_or_insert_with(Default::default).resource_claim_statuses = Some(statuses);
    }
    Ok(out)
}

/// What became of a StatefulSet's claim when it was created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimBinding {
    /// Its class binds WaitForFirstConsumer: VolumeBinding binds or provisions it where the
    /// pod lands.
    WaitForFirstConsumer(String),
    /// Immediate: bound at once to an existing PersistentVolume (the smallest that matches).
    BoundTo(String),
    /// Immediate: provisioned at once (the volume made here, named `pvc-<uid>`); true when
    /// the class has allowedTopologies (given to the volume as its node affinity).
    Provisioned(String, bool),
    /// Immediate, and no volume matches and the class provisions none: it stays unbound.
    Unbound(String),
    /// Already exists (a StatefulSet's claims outlive its pods).
    Existing,
}

/// The DefaultStorageClass admission plugin: a claim without `storageClassName` gets the
/// default class (annotated `storageclass.kubernetes.io/is-default-class: "true"`, the newest
/// if several).
pub fn default_storage_class(claim: &mut core::PersistentVolumeClaim, cluster: &Cluster) {
    let spec = claim.spec.get_or_insert_with(Default::default);
    if spec.storage_class_name.is_some() {
        return;
    }
    let default = cluster
        .storage_classes
        .values()
        .filter(|c| {
            c.metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get("storageclass.kubernetes.io/is-default-class"))
                .is_some_and(|v| v == "true")
        })
        .max_by(|a, b| {
            a.metadata
                .creation_timestamp
                .as_ref()
                .map(|t| t.0)
                .cmp(&b.metadata.creation_timestamp.as_ref().map(|t| t.0))
                .then_with(|| b.metadata.name.cmp(&a.metadata.name))
        });
    if let Some(c) = default {
        spec.storage_class_name = c.metadata.name.clone();
    }
}

/// What the PersistentVolume controller does with a new claim of an Immediate class before
/// any pod uses it: binds the smallest Available volume that matches (class, capacity,
/// access modes, volume mode), else provisions one (kschedtui gives the new volume the
/// class's `allowedTopologies` as its node affinity, every allowed zone, where a real
/// provisioner picks one of them), else leaves it unbound. A WaitForFirstConsumer class is
/// left to VolumeBinding. Returns the new volume, if one is made or bound.
pub fn bind_immediate(
    claim: &mut core::PersistentVolumeClaim,
    cluster: &Cluster,
    taken_volumes: &BTreeSet<String>,
) -> (ClaimBinding, Option<core::PersistentVolume>) {
    let cname = claim.metadata.name.clone().unwrap_or_default();
    let ns = claim.metadata.namespace.clone().unwrap_or_default();
    let spec = claim.spec.clone().unwrap_or_default();
    let class_name = spec.storage_class_name.clone().unwrap_or_default();
    let class = cluster.storage_classes.get(&class_name);
    if class.and_then(|c| c.volume_binding_mode.as_deref()) == Some("WaitForFirstConsumer") {
        return (ClaimBinding::WaitForFirstConsumer(class_name), None);
    }
    let request = spec
        .resources
        .as_ref()
        .and_then(|r| r.requests.as_ref())
        .and_then(|r| r.get("storage"))
        .and_then(|q| super::quantity::Quantity::parse(&q.0).ok())
        .unwrap_or_default();
    let modes: BTreeSet<&String> = spec.access_modes.iter().flatten().collect();
    let mode = spec.volume_mode.clone().unwrap_or_else(|| "Filesystem".into());
    let claim_ref = core::ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("PersistentVolumeClaim".into()),
        name: Some(cname.clone()),
        namespace: Some(ns.clone()),
        uid: claim.metadata.uid.clone(),
        ..Default::default()
    };
    let capacity = |pv: &core::PersistentVolume| {
        pv.spec
            .as_ref()
            .and_then(|s| s.capacity.as_ref())
            .and_then(|c| c.get("storage"))
            .and_then(|q| super::quantity::Quantity::parse(&q.0).ok())
            .unwrap_or_default()
    };
    let matching = cluster
        .pvs
        .values()
        .filter(|pv| {
            let s = pv.spec.clone().unwrap_or_default();
            let name = pv.metadata.name.clone().unwrap_or_default();
            s.claim_ref.is_none()
                && !taken_volumes.contains(&name)
                && s.storage_class_name.clone().unwrap_or_default() == class_name
                && capacity(pv) >= request
                && modes.iter().all(|m| s.access_modes.iter().flatten().any(|x| x == *m))
                && s.volume_mode.clone().unwrap_or_else(|| "Filesystem".into()) == mode
        })
        .min_by(|a, b| {
            capacity(a)
                .cmp(&capacity(b))
                .then_with(|| a.metadata.name.cmp(&b.metadata.name))
        });
    let bind = |claim: &mut core::PersistentVolumeClaim, pv: &mut core::PersistentVolume| {
        let pvname = pv.metadata.name.clone().unwrap_or_default();
        pv.spec.get_or_insert_with(Default::default).claim_ref = Some(claim_ref.clone());
        pv.status = Some(core::PersistentVolumeStatus {
            phase: Some("Bound".into()),
            ..Default::default()
        });
        claim.spec.get_or_insert_with(Default::default).volume_name = Some(pvname);
        claim
            .metadata
            .annotations
            .get_or_insert_with(Default::default)
            .insert(super::write::ANN_BIND_COMPLETED.into(), "yes".into());
        claim.status = Some(core::PersistentVolumeClaimStatus {
            phase: Some("Bound".into()),
            access_modes: spec.access_modes.clone(),
            capacity: pv.spec.as_ref().and_then(|s| s.capacity.clone()),
            ..Default::default()
        });
    };
    if let Some(pv) = matching {
        let mut pv = pv.clone();
        bind(claim, &mut pv);
        let name = pv.metadata.name.clone().unwrap_or_default();
        return (ClaimBinding::BoundTo(name), Some(pv));
    }
    let provisioner = class.map(|c| c.provisioner.clone()).unwrap_or_default();
    if class.is_none() || provisioner.is_empty() || provisioner == "kubernetes.io/no-provisioner" {
        return (ClaimBinding::Unbound(class_name), None);
    }
    let pvname = format!("pvc-{}", claim.metadata.uid.clone().unwrap_or_default());
    let affinity = class
        .and_then(|c| c.allowed_topologies.as_ref())
        .map(|terms| core::VolumeNodeAffinity {
            required: Some(core::NodeSelector {
                node_selector_terms: terms
                    .iter()
                    .map(|t| core::NodeSelectorTerm {
                        match_expressions: Some(
                            t.match_label_expressions
                                .iter()
                                .flatten()
                                .map(|e| core::NodeSelectorRequirement {
                                    key: e.key.clone(),
                                    operator: "In".into(),
                                    values: Some(e.values.clone()),
                                })
                                .collect(),
                        ),
                        match_fields: None,
                    })
                    .collect(),
            }),
        });
    let mut pv = core::PersistentVolume {
        metadata: ObjectMeta {
            name: Some(pvname.clone()),
            annotations: Some([("pv.kubernetes.io/provisioned-by".to_string(), provisioner.clone())].into()),
            ..Default::default()
        },
        spec: Some(core::PersistentVolumeSpec {
            access_modes: spec.access_modes.clone(),
            capacity: spec.resources.as_ref().and_then(|r| r.requests.clone()),
            storage_class_name: Some(class_name.clone()),
            persistent_volume_reclaim_policy: class
                .and_then(|c| c.reclaim_policy.clone())
                .or_else(|| Some("Delete".into())),
            volume_mode: Some(mode),
            node_affinity: affinity,
            csi: Some(core::CSIPersistentVolumeSource {
                driver: provisioner,
                volume_handle: pvname.clone(),
                ..Default::default()
            }),
            ..Default::default()
        }),
        status: None,
    };
    bind(claim, &mut pv);
    let topology = class.is_some_and(|c| c.allowed_topologies.as_ref().is_some_and(|t| !t.is_empty()));
    (ClaimBinding::Provisioned(pvname, topology), Some(pv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::file::load_str;
    use crate::source::manifests::read_str;

    const NODES: &str = r"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/os: linux, zone: a}}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/os: linux, zone: b}}, spec: {taints: [{key: gpu, effect: NoSchedule}]}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3, labels: {kubernetes.io/os: windows, zone: a}}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
- {apiVersion: v1, kind: Node, metadata: {name: n4, labels: {kubernetes.io/os: linux, zone: c}}, spec: {unschedulable: true, taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
- {apiVersion: v1, kind: Node, metadata: {name: n5, labels: {kubernetes.io/os: linux, zone: c}}, spec: {taints: [{key: evict-me, effect: NoExecute}, {key: soft, effect: PreferNoSchedule}]}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
";

    fn expander(text: &str) -> Expander {
        let m = read_str("t.yaml", text, "default").expect("manifests");
        let c = load_str("nodes", NODES).expect("nodes");
        Expander::new(&m.workloads[0], &c, false, 1_700_000_000)
    }

    fn labels(p: &core::Pod) -> BTreeMap<String, String> {
        p.metadata.labels.clone().unwrap_or_default()
    }

    fn owner(p: &core::Pod) -> (String, String, Option<bool>, Option<bool>) {
        let o = &p.metadata.owner_references.as_ref().expect("owner")[0];
        (o.kind.clone(), o.name.clone(), o.controller, o.block_owner_deletion)
    }

    const DEPLOY: &str = r"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {a: b}}
    spec: {containers: [{name: c, image: nginx}]}
";

    #[test]
    fn a_deployment_makes_a_replicaset_named_by_the_template_hash_and_pods_named_after_it() {
        let e = expander(DEPLOY);
        assert_eq!(e.count(), 3);
        let Object::ReplicaSet(rs) = &e.owners[0] else {
            panic!("a ReplicaSet")
        };
        let hash = template_hash(
            &serde_yaml::from_str(
                "{metadata: {labels: {app: web}, annotations: {a: b}}, spec: {containers: [{name: c, image: nginx}]}}",
            )
            .unwrap(),
            None,
        );
        assert!(!hash.is_empty() && hash.len() <= 10, "{hash}");
        assert!(hash.bytes().all(|b| ALPHANUMS.contains(&b)), "{hash}");
        let rs_name = format!("web-{hash}");
        assert_eq!(rs.metadata.name.as_deref(), Some(rs_name.as_str()));
        assert_eq!(
            rs.spec.selector.match_labels.clone().unwrap(),
            BTreeMap::from([
                ("app".to_string(), "web".to_string()),
                ("pod-template-hash".into(), hash.clone())
            ])
        );
        assert_eq!(rs.metadata.owner_references.as_ref().unwrap()[0].kind, "Deployment");
        let p = e.replica(0, &|_| false).pod;
        let name = p.metadata.name.clone().unwrap();
        assert!(name.starts_with(&format!("{rs_name}-")), "{name}");
        assert_eq!(name.len(), rs_name.len() + 6);
        assert_eq!(
            labels(&p),
            BTreeMap::from([
                ("app".to_string(), "web".to_string()),
                ("pod-template-hash".into(), hash)
            ])
        );
        assert_eq!(p.metadata.annotations.clone().unwrap()["a"], "b");
        assert_eq!(p.metadata.namespace.as_deref(), Some("shop"));
        assert_eq!(owner(&p), ("ReplicaSet".into(), rs_name, Some(true), Some(true)));
        // the same replica is the same pod; a name taken is drawn again
        assert_eq!(e.replica(0, &|_| false).pod.metadata.name.unwrap(), name);
        let other = e.replica(0, &|n| n == name).pod.metadata.name.unwrap();
        assert_ne!(other, name);
        assert_ne!(e.replica(1, &|_| false).pod.metadata.name.unwrap(), name);
    }

    #[test]
    fn generated_names_are_cut_to_58_characters_before_the_suffix() {
        let long = "a".repeat(70);
        let g = generated(&format!("{long}-"), "x");
        assert_eq!(g.len(), 63);
        assert!(g.starts_with(&"a".repeat(58)));
        assert!(derived_suffix("x").bytes().all(|b| ALPHANUMS.contains(&b)));
    }

    #[test]
    fn safe_encode_and_fnv_are_apimachinerys() {
        // rand.SafeEncodeString("0123456789"): alphanums[c % 27]
        assert_eq!(safe_encode("0123456789"), "456789bcdf");
        // hash/fnv test vectors
        assert_eq!(fnv32a(b"a"), 0xe40c_292c);
        assert_eq!(fnv32(b"a"), 0x050c_5d7e);
        assert_eq!(
            go_json(&serde_json::json!({"b": 1, "a": "<&>"})),
            r#"{"a":"\u003c\u0026\u003e","b":1}"#
        );
    }

    #[test]
    fn a_statefulset_names_its_pods_by_ordinal_with_identity_labels_and_claims() {
        let e = expander(
            r"
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  replicas: 2
  ordinals: {start: 3}
  serviceName: db-headless
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: pg}]
      volumes: [{name: data, emptyDir: {}}, {name: scratch, emptyDir: {}}]
  volumeClaimTemplates:
  - metadata: {name: data, labels: {tier: storage}}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
",
        );
        let c = e.replica(1, &|_| false);
        let p = &c.pod;
        assert_eq!(p.metadata.name.as_deref(), Some("db-4"));
        let l = labels(p);
        assert_eq!(l["statefulset.kubernetes.io/pod-name"], "db-4");
        assert_eq!(l["apps.kubernetes.io/pod-index"], "4");
        assert!(l["controller-revision-hash"].starts_with("db-"), "{l:?}");
        let spec = p.spec.as_ref().unwrap();
        assert_eq!(spec.hostname.as_deref(), Some("db-4"));
        assert_eq!(spec.subdomain.as_deref(), Some("db-headless"));
        // the claim's volume replaces the template's volume of that name, first
        let vols: Vec<(String, Option<String>)> = spec
            .volumes
            .iter()
            .flatten()
            .map(|v| {
                (
                    v.name.clone(),
                    v.persistent_volume_claim.as_ref().map(|c| c.claim_name.clone()),
                )
            })
            .collect();
        assert_eq!(
            vols,
            vec![
                ("data".to_string(), Some("data-db-4".to_string())),
                ("scratch".into(), None)
            ]
        );
        assert_eq!(c.claims.len(), 1);
        assert_eq!(c.claims[0].metadata.name.as_deref(), Some("data-db-4"));
        assert_eq!(
            c.claims[0].metadata.labels.clone().unwrap(),
            BTreeMap::from([("tier".to_string(), "storage".to_string()), ("app".into(), "db".into())])
        );
        assert_eq!(owner(p), ("StatefulSet".into(), "db".into(), Some(true), Some(true)));
        // OrderedReady: created after the one before it
        assert_eq!(c.after.as_deref(), Some("db-3"));
        assert_eq!(e.replica(0, &|_| false).after, None);
    }

    #[test]
    fn a_daemonset_has_a_pod_per_eligible_node_pinned_by_match_fields_with_its_tolerations() {
        let e = expander(
            r"
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a, b, c]}]}]
      containers: [{name: c, image: agent}]
",
        );
        // n2: untolerated gpu NoSchedule; n3: windows; n5: untolerated NoExecute.
        // n4 is cordoned: the controller's tolerations tolerate the unschedulable taint.
        assert_eq!(e.count(), 2);
        let c = e.replica(1, &|_| false);
        assert_eq!(c.node.as_deref(), Some("n4"));
        let spec = c.pod.spec.clone().unwrap();
        let req = spec
            .affinity
            .unwrap()
            .node_affinity
            .unwrap()
            .required_during_scheduling_ignored_during_execution
            .unwrap();
        assert_eq!(req.node_selector_terms.len(), 1);
        let f = &req.node_selector_terms[0].match_fields.as_ref().unwrap()[0];
        assert_eq!((f.key.as_str(), f.operator.as_str()), ("metadata.name", "In"));
        assert_eq!(f.values.clone().unwrap(), vec!["n4".to_string()]);
        let tol: Vec<(String, String)> = spec
            .tolerations
            .unwrap()
            .iter()
            .map(|t| (t.key.clone().unwrap(), t.effect.clone().unwrap()))
            .collect();
        assert_eq!(
            tol,
            [
                ("node.kubernetes.io/not-ready", "NoExecute"),
                ("node.kubernetes.io/unreachable", "NoExecute"),
                ("node.kubernetes.io/disk-pressure", "NoSchedule"),
                ("node.kubernetes.io/memory-pressure", "NoSchedule"),
                ("node.kubernetes.io/pid-pressure", "NoSchedule"),
                ("node.kubernetes.io/unschedulable", "NoSchedule"),
            ]
            .map(|(k, e)| (k.to_string(), e.to_string()))
        );
        let l = labels(&c.pod);
        assert_eq!(l["pod-template-generation"], "1");
        // the decimal FNV-32 safe-encoded: up to 10 characters of the alphabet
        let h = &l["controller-revision-hash"];
        assert!(
            !h.is_empty() && h.len() <= 10 && h.bytes().all(|b| ALPHANUMS.contains(&b)),
            "{h}"
        );
        assert_eq!(owner(&c.pod).0, "DaemonSet");
    }

    const JOB: &str = r"
apiVersion: batch/v1
kind: Job
metadata: {name: render, namespace: batch}
spec:
  completionMode: Indexed
  completions: 5
  parallelism: 3
  template:
    metadata: {labels: {app: render}}
    spec: {restartPolicy: Never, containers: [{name: c, image: r}]}
";

    #[test]
    fn an_indexed_job_makes_min_parallelism_completions_pods_with_their_completion_index() {
        let e = expander(JOB);
        assert_eq!(e.count(), 3);
        let p = e.replica(2, &|_| false).pod;
        let name = p.metadata.name.clone().unwrap();
        assert!(
            name.starts_with("render-2-") && name.len() == "render-2-".len() + 5,
            "{name}"
        );
        let uid = derived_uid("Job", "batch", "render");
        let l = labels(&p);
        for (k, v) in [
            ("job-name", "render"),
            ("batch.kubernetes.io/job-name", "render"),
            ("controller-uid", uid.as_str()),
            ("batch.kubernetes.io/controller-uid", uid.as_str()),
            ("batch.kubernetes.io/job-completion-index", "2"),
            ("app", "render"),
        ] {
            assert_eq!(l.get(k).map(String::as_str), Some(v), "{k}");
        }
        assert_eq!(
            p.metadata.annotations.clone().unwrap()["batch.kubernetes.io/job-completion-index"],
            "2"
        );
        assert_eq!(
            p.metadata.finalizers.clone().unwrap(),
            vec!["batch.kubernetes.io/job-tracking".to_string()]
        );
        let spec = p.spec.clone().unwrap();
        assert_eq!(spec.hostname.as_deref(), Some("render-2"));
        let env = &spec.containers[0].env.as_ref().unwrap()[0];
        assert_eq!(env.name, "JOB_COMPLETION_INDEX");
        assert_eq!(owner(&p), ("Job".into(), "render".into(), Some(true), Some(true)));
        // upstream's podGenerateNameWithIndex keeps the index when the name is long
        let long = format!("{}-{}", "j".repeat(60), "x");
        let e = expander(&JOB.replace("name: render", &format!("name: {long}")));
        let n = e.replica(1, &|_| false).pod.metadata.name.unwrap();
        assert_eq!(n.len(), 63, "{n}");
        assert!(n.starts_with(&format!("{}-1-", &long[..55])), "{n}");
    }

    #[test]
    fn a_suspended_job_and_a_non_indexed_one() {
        assert_eq!(
            expander(&JOB.replace("parallelism: 3", "parallelism: 3\n  suspend: true")).count(),
            0
        );
        let e = expander(&JOB.replace("completionMode: Indexed\n  ", ""));
        let p = e.replica(0, &|_| false).pod;
        let name = p.metadata.name.unwrap();
        assert!(name.starts_with("render-") && name.len() == 12, "{name}");
        assert!(p.metadata.annotations.is_none());
    }

    #[test]
    fn a_cronjob_runs_one_job_named_for_the_minute() {
        let e = expander(
            r"
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: batch}
spec:
  schedule: '0 3 * * *'
  jobTemplate:
    metadata: {labels: {kind: nightly}}
    spec:
      template:
        spec: {restartPolicy: OnFailure, containers: [{name: c, image: x}]}
",
        );
        // 1_700_000_000 s is 28,333,333 minutes and 20 s
        let p = e.replica(0, &|_| false).pod;
        assert_eq!(owner(&p).1, "nightly-28333333");
        assert!(p.metadata.name.clone().unwrap().starts_with("nightly-28333333-"));
        assert_eq!(labels(&p)["batch.kubernetes.io/job-name"], "nightly-28333333");
    }

    #[test]
    fn claims_from_templates_are_named_pod_claim_suffix_and_recorded_in_the_pod_status() {
        let mut pod: core::Pod = serde_yaml::from_str(
            "{metadata: {name: web-abc12, namespace: ml, uid: u1}, spec: {containers: [], resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}, {name: shared, resourceClaimName: team}]}}",
        )
        .unwrap();
        let t: dra::ResourceClaimTemplate = serde_yaml::from_str(
            "{metadata: {name: one-gpu, namespace: ml}, spec: {metadata: {labels: {x: y}}, spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}}}",
        )
        .unwrap();
        let templates = BTreeMap::from([(super::super::ObjectKey::new("ml", "one-gpu"), t)]);
        let claims = claims_from_templates(&mut pod, &templates, &|_| false).unwrap();
        assert_eq!(claims.len(), 1);
        let name = claims[0].metadata.name.clone().unwrap();
        assert!(
            name.starts_with("web-abc12-gpu-") && name.len() == "web-abc12-gpu-".len() + 5,
            "{name}"
        );
        assert_eq!(
            claims[0].metadata.annotations.clone().unwrap()["resource.kubernetes.io/pod-claim-name"],
            "gpu"
        );
        assert_eq!(claims[0].metadata.labels.clone().unwrap()["x"], "y");
        let o = &claims[0].metadata.owner_references.as_ref().unwrap()[0];
        assert_eq!(
            (o.kind.as_str(), o.name.as_str(), o.uid.as_str()),
            ("Pod", "web-abc12", "u1")
        );
        let st = pod.status.unwrap().resource_claim_statuses.unwrap();
        assert_eq!(st.len(), 1);
        assert_eq!(
            (st[0].name.as_str(), st[0].resource_claim_name.as_deref()),
            ("gpu", Some(name.as_str()))
        );
        // long names are shortened in proportion, as the controller does
        let mut long: core::Pod = serde_yaml::from_str(&format!(
            "{{metadata: {{name: {}, namespace: ml}}, spec: {{containers: [], resourceClaims: [{{name: {}, resourceClaimTemplateName: one-gpu}}]}}}}",
            "p".repeat(60),
            "c".repeat(20)
        ))
        .unwrap();
        let n = claims_from_templates(&mut long, &templates, &|_| false).unwrap()[0]
            .metadata
            .name
            .clone()
            .unwrap();
        // generateName "ppp…-ccc…-" is 82 characters: 60*57/82 = 41 p's, 20*57/82 = 13 c's
        assert_eq!(n, format!("{}-{}{}", "p".repeat(41), "c".repeat(13), &n[55..]));
        let missing = claims_from_templates(&mut long, &BTreeMap::new(), &|_| false).unwrap_err();
        assert!(missing.contains("resource claim template \"one-gpu\""), "{missing}");
    }

    #[test]
    fn manifests_are_sorted_into_workloads_objects_and_skipped_kinds() {
        let m = read_str(
            "m.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n",
            "ns1",
        );
        // no workload at all is an error
        assert!(m.is_err());
        let m = read_str(
            "m.yaml",
            &format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cfg}}\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {{name: hi}}\nvalue: 5\n---\n{}", DEPLOY.replace("namespace: shop", "")),
            "ns1",
        )
        .unwrap();
        assert_eq!(m.workloads.len(), 1);
        assert_eq!(m.workloads[0].namespace, "ns1");
        assert_eq!(m.objects.len(), 1);
        assert_eq!(m.skipped, vec!["ConfigMap cfg".to_string()]);
        let err = read_str(
            "m.yaml",
            "apiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: d}\n",
            "x",
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("apiVersion 'apps/v1beta2' is not one kschedtui reads"),
            "{err}"
        );
        let err = read_str(
            "m.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {selector: {}, template: {spec: {containers: [{name: c, resources: {requests: {cpu: [1]}}}]}}}\n",
            "x",
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("field 'spec.template.spec.containers[0].resources.requests.cpu'"),
            "{err}"
        );
    }
}
