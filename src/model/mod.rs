//! Cluster data built once from a snapshot: objects, quantities, selectors and the per-object
//! facts the scheduler reads on every cycle (requests, priority, ports, images). No scheduling
//! logic and no I/O live here; what the API server's admission ([`admission`]) and the workload
//! controllers ([`controllers`]) make of a manifest is data too.

pub mod admission;
pub mod apiserver;
pub mod controllers;
pub mod dra_versions;
pub mod event;
pub mod kinds;
pub(crate) mod label_columns;
pub mod labels;
pub mod list;
pub(crate) mod mutate;
pub(crate) mod quantity;
pub(crate) mod resources;
pub(crate) mod selector;
mod share;
pub mod stored;
pub(crate) mod workload;
pub mod write;

pub use ecow::EcoString;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::storage::v1 as storage;
use k8s_openapi::api::{apps::v1 as apps, events::v1 as events, policy::v1 as policy, scheduling::v1 as sched};
use k8s_openapi::jiff::Timestamp;
use serde::{Deserialize, Serialize};

pub use labels::Labels;
use quantity::Quantity;
use resources::{PodRequests, PodResourceSpec, Resource, ResourceList, pod_requests, pod_requests_v132};

/// `namespace/name` of a namespaced object (namespace empty for cluster-scoped ones). Each
/// part is an `EcoString` (16 bytes; ordered, hashed and serialized as its text): up to 15
/// bytes it is held inline, so the keys of 100,000 pods with short names allocate nothing
/// (2.4 MB of small strings at 5k nodes before), and a key is 32 bytes, not 48.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ObjectKey {
    /// Namespace ("" for cluster-scoped objects).
    pub namespace: EcoString,
    /// Name.
    pub name: EcoString,
}

impl ObjectKey {
    /// A key.
    pub fn new(namespace: impl Into<EcoString>, name: impl Into<EcoString>) -> Self {
        ObjectKey {
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// Parses `ns/name`, or `name` with a default namespace.
    pub fn parse(s: &str, default_ns: &str) -> Self {
        match s.split_once('/') {
            Some((ns, n)) => ObjectKey::new(ns, n),
            None => ObjectKey::new(default_ns, s),
        }
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.is_empty() {
            write!(f, "(unnamed)")
        } else if self.namespace.is_empty() {
            write!(f, "{}", self.name)
        } else {
            write!(f, "{}/{}", self.namespace, self.name)
        }
    }
}

/// Where an object came from, for error messages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// File path (or "<live>"), shared by every object of the file (a snapshot of a million
    /// pods holds one copy of its path, not a million).
    pub file: ThinStr,
    /// 0-based document index within the file (items of a List count individually).
    pub doc: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (document {})", self.file, self.doc)
    }
}

/// A problem with a snapshot object, naming the object and the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {kind} {key}: field '{field}': {message}")]
pub struct ModelError {
    /// Where the object came from.
    pub origin: Origin,
    /// Kind of the object.
    pub kind: String,
    /// Its namespace/name.
    pub key: ObjectKey,
    /// Path of the offending field.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

/// A taint, as the scheduler reads it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Taint {
    /// Key.
    pub key: String,
    /// Value ("" when absent).
    pub value: String,
    /// NoSchedule, PreferNoSchedule or NoExecute.
    pub effect: String,
}

/// A toleration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Toleration {
    /// Key ("" matches every key with operator Exists).
    pub key: String,
    /// Equal (default) or Exists.
    pub operator: String,
    /// Value.
    pub value: String,
    /// Effect ("" matches every effect).
    pub effect: String,
}

impl Toleration {
    /// `Toleration.ToleratesTaint` (core/v1/toleration.go) without the comparison operators
    /// (their gate, TaintTolerationComparisonOperators, is off by default).
    pub fn tolerates(&self, t: &Taint) -> bool {
        self.tolerates_with(t, false)
    }

    /// `Toleration.ToleratesTaint` with `comparison_operators` (1.35+,
    /// TaintTolerationComparisonOperators): `Lt` and `Gt` compare the values as decimal
    /// integers (the taint's below, or above, the toleration's); any value that is not one
    /// (`0` or `-?[1-9][0-9]*` within int64) tolerates nothing.
    pub fn tolerates_with(&self, t: &Taint, comparison_operators: bool) -> bool {
        if !self.effect.is_empty() && self.effect != t.effect {
            return false;
        }
        if !self.key.is_empty() && self.key != t.key {
            return false;
        }
        match self.operator.as_str() {
            "" | "Equal" => self.value == t.value,
            "Exists" => true,
            op @ ("Lt" | "Gt") if comparison_operators => {
                match (decimal_integer(&t.value), decimal_integer(&self.value)) {
                    (Some(taint), Some(tol)) => {
                        if op == "Lt" {
                            taint < tol
                        } else {
                            taint > tol
                        }
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }
}

/// `content.IsDecimalInteger` then `strconv.ParseInt(s, 10, 64)`: `0` or `-?[1-9][0-9]*`
/// (no sign `+`, no leading zeros, no `-0`), within int64.
fn decimal_integer(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let ok = s == "0" || (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) && !digits.starts_with('0'));
    if !ok {
        return None;
    }
    s.parse().ok()
}

impl Toleration {
    /// Whether any of `tolerations` tolerates the taint.
    pub fn any_tolerates(tolerations: &[Toleration], t: &Taint, comparison_operators: bool) -> bool {
        tolerations
            .iter()
            .any(|tol| tol.tolerates_with(t, comparison_operators))
    }
}

/// A host port a container asks for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct HostPort {
    /// hostIP ("" means 0.0.0.0).
    pub ip: String,
    /// TCP (default), UDP or SCTP.
    pub protocol: String,
    /// The port.
    pub port: i32,
}

/// The host ports (hostPort > 0) a container asks for.
fn container_host_ports(c: &core::Container) -> impl Iterator<Item = HostPort> + '_ {
    c.ports.iter().flatten().filter_map(|p| {
        p.host_port.filter(|h| *h > 0).map(|port| HostPort {
            ip: p.host_ip.clone().unwrap_or_default(),
            protocol: p.protocol.clone().unwrap_or_else(|| "TCP".into()),
            port,
        })
    })
}

/// A node and the facts the scheduler reads from it.
///
/// Laid out in the order written (`repr(C)`): what every Filter reads of every node (name,
/// labels, taints, unschedulable) sits in the first cache line, beside the `Arc`'s counts,
/// instead of wherever the compiler puts it (the object as read was a kilobyte and a half
/// inline then; it is kept as text now). At 20,000 nodes a cycle's nodes no longer fit the
/// cache, and each line counts (explain at 20k, interleaved runs: 9.0-9.9 ms warm before,
/// 6.8-7.4 after).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Node {
    /// metadata.name.
    pub name: String,
    /// metadata.labels.
    pub labels: Labels,
    /// spec.taints.
    pub taints: Vec<Taint>,
    /// spec.unschedulable.
    pub unschedulable: bool,
    /// status.allocatable (defaulted from capacity).
    pub allocatable: Resource,
    /// status.images: (names, sizeBytes).
    /// Each entry's names are shared with the nodes read lately on the same thread that list
    /// the same (a cluster's nodes pull the same few images: at 5k nodes with ten images
    /// each, their own copies were 4 MB).
    pub images: Box<[(list::List<String>, i64)]>,
    /// Every image name of `images` as (its [`image_name_hash`], entry, position in its names),
    /// sorted by hash then name, one per name: the last entry listing it, as the scheduler's
    /// ImageStates map keeps it. A lookup compares integers, and one name at the end.
    image_index: Vec<(u64, u32, u32)>,
    /// The object as read, decoded when read (see [`stored::Stored`]): nothing the engine reads
    /// on every cycle comes from it.
    pub obj: stored::Stored<core::Node>,
}

/// The facts of a pod that most pods lack, in one box that most pods do not have: a cluster
/// holds one `Arc<Pod>` per pod, and these fields kept in every one of them would cost about
/// 100 bytes per pod (they once moved it from mimalloc's 384-byte bin to its 512-byte one).
#[derive(Clone, Debug, Default)]
pub struct PodRare {
    /// status.nominatedNodeName.
    pub nominated_node_name: Option<String>,
    /// The requests 1.33+ compute when container statuses report resources
    /// (InPlacePodVerticalScaling, beta and on from 1.33: the larger of spec, status and
    /// allocated requests per container); None when no status reports any.
    pub requests_status: Option<Box<PodRequests>>,
    /// The requests 1.34+ compute when spec.resources sets pod-level requests
    /// (PodLevelResources, beta and on from 1.34), over the status-adjusted containers when
    /// `requests_status` applies; None when the pod sets none.
    pub requests_pod_level: Option<Box<PodRequests>>,
    /// The pod-level requests 1.36+ compute for a pod whose status reports pod resources
    /// (InPlacePodLevelResourcesVerticalScaling): each pod-level request the larger of spec,
    /// status.resources and status.allocatedResources (status and allocated only while a
    /// resize is infeasible); None when the pod sets no pod-level requests or its status
    /// reports none.
    pub requests_pod_level_status: Option<Box<PodRequests>>,
    /// What the status reports about resources, for the 1.37 "max of sums" accounting; None
    /// when the status reports none.
    pub status_resources: Option<Box<crate::model::resources::StatusResources>>,
    /// Host ports of the regular containers.
    pub host_ports: Box<[HostPort]>,
    /// Host ports of the restartable (sidecar) init containers.
    pub sidecar_host_ports: Box<[HostPort]>,
    /// The claim names of the pod's persistentVolumeClaim volumes (the node's PVC reference
    /// counts), in spec order.
    pub pvc_claims: Box<[String]>,
    /// spec.schedulerName when it is none of [`USUAL_SCHEDULERS`].
    pub scheduler_name: Option<Box<str>>,
    /// status.phase when it is none of [`USUAL_PHASES`].
    pub phase: Option<Box<str>>,
    /// metadata.creationTimestamp when it is before 1677 or after 2262 ([`Created`] holds
    /// the nearest instant it can).
    pub creation: Option<Timestamp>,
}

/// The scheduler names a pod holds as a number ([`Pod::scheduler_name`]; absent is the first).
pub const USUAL_SCHEDULERS: [&str; 1] = ["default-scheduler"];
/// The phases a pod holds as a number ([`Pod::phase`]; absent is the first, empty).
pub const USUAL_PHASES: [&str; 6] = ["", "Pending", "Running", "Succeeded", "Failed", "Unknown"];
/// The number of a scheduler name or phase that is none of the usual ones.
const UNUSUAL: u8 = u8::MAX;

/// `value`'s place among `usual`, or [`UNUSUAL`] and the value to keep.
fn usual(value: &str, usual: &[&str]) -> (u8, Option<Box<str>>) {
    match usual.iter().position(|u| *u == value) {
        Some(i) => (u8::try_from(i).unwrap_or(UNUSUAL), None),
        None => (UNUSUAL, Some(value.into())),
    }
}

impl PodRare {
    /// True when it says nothing (a pod then holds no box).
    fn is_empty(&self) -> bool {
        self.nominated_node_name.is_none()
            && self.requests_status.is_none()
            && self.requests_pod_level.is_none()
            && self.requests_pod_level_status.is_none()
            && self.status_resources.is_none()
            && self.host_ports.is_empty()
            && self.sidecar_host_ports.is_empty()
            && self.pvc_claims.is_empty()
            && self.scheduler_name.is_none()
            && self.phase.is_none()
            && self.creation.is_none()
    }
}

/// A pod and the facts the scheduler reads from it.
#[derive(Clone, Debug)]
pub struct Pod {
    /// namespace/name.
    pub key: ObjectKey,
    /// metadata.uid; empty when absent, and the pod's uid is then its key ([`Pod::uid`]), not
    /// formatted into a string of its own for every pod of a snapshot without uids
    /// ([`Pod::has_uid`]).
    pub uid: Box<str>,
    /// metadata.labels.
    pub labels: Labels,
    /// spec.nodeName, shared with the pods read lately on the same thread that run on the same
    /// node (twenty pods a node: 16 bytes a pod, 16 MB at a million pods).
    pub node_name: Option<ThinStr>,
    /// spec.schedulerName as its place in [`USUAL_SCHEDULERS`], or [`UNUSUAL`] (the name is
    /// then in [`PodRare`]): [`Pod::scheduler_name`].
    scheduler: u8,
    /// status.phase as its place in [`USUAL_PHASES`], or [`UNUSUAL`]: [`Pod::phase`].
    phase: u8,
    /// Resolved priority.
    pub priority: i32,
    /// Effective requests (as 1.30 and 1.31 compute them), shared with the pods that request
    /// the same ([`resources::shared_requests`]).
    pub requests: Arc<PodRequests>,
    /// What few pods have, boxed together: none for most ([`PodRare`]).
    rare: Option<Box<PodRare>>,
    /// spec.tolerations.
    pub tolerations: list::List<Toleration>,
    /// metadata.creationTimestamp ([`Pod::creation`], [`Pod::cmp_creation`]).
    created: Created,
    /// metadata.deletionTimestamp is set.
    pub terminating: bool,
    /// spec.schedulingGates is non-empty.
    pub gated: bool,
    /// spec.affinity (InterPodAffinity reads every pod's terms; kept out of the stored object
    /// so reading them does not decode it), shared with the pods read lately on the same
    /// thread that say the same (one template's pods do: 600 bytes of allocations each).
    pub affinity: Option<Arc<core::Affinity>>,
    /// The object as read, decoded when read (see [`stored::Stored`]).
    pub obj: stored::Stored<core::Pod>,
}

impl Pod {
    /// metadata.creationTimestamp, if any.
    pub fn creation(&self) -> Option<Timestamp> {
        match self.created {
            Created::NONE => None,
            c if c.clamped() => self.rare.as_ref().and_then(|r| r.creation),
            Created(n) => Timestamp::from_nanosecond(i128::from(n)).ok(),
        }
    }

    /// The pods in order of creation time, as upstream compares times (a pod with none
    /// first).
    pub fn cmp_creation(&self, other: &Pod) -> std::cmp::Ordering {
        match (self.created, other.created) {
            (a, b) if a == b && a.clamped() => self.creation().cmp(&other.creation()),
            (a, b) => a.cmp(&b),
        }
    }

    /// spec.schedulerName (default-scheduler when absent).
    pub fn scheduler_name(&self) -> &str {
        match USUAL_SCHEDULERS.get(usize::from(self.scheduler)) {
            Some(name) => name,
            None => self
                .rare
                .as_ref()
                .and_then(|r| r.scheduler_name.as_deref())
                .unwrap_or_default(),
        }
    }

    /// status.phase (empty when absent).
    pub fn phase(&self) -> &str {
        match USUAL_PHASES.get(usize::from(self.phase)) {
            Some(phase) => phase,
            None => self.rare.as_ref().and_then(|r| r.phase.as_deref()).unwrap_or_default(),
        }
    }

    /// Whether the pod's uid is `uid`: metadata.uid, or the key as `namespace/name` (`name`
    /// without a namespace) when it has none; the key is not formatted to tell.
    pub fn has_uid(&self, uid: &str) -> bool {
        if !self.uid.is_empty() {
            return *self.uid == *uid;
        }
        let k = &self.key;
        match uid.split_once('/') {
            _ if k.name.is_empty() => uid == "(unnamed)",
            Some((ns, name)) => !k.namespace.is_empty() && ns == k.namespace && name == k.name,
            None => k.namespace.is_empty() && uid == k.name,
        }
    }

    /// Whether the two pods have the same uid ([`Pod::has_uid`]).
    pub fn same_uid(&self, other: &Pod) -> bool {
        match (self.uid.is_empty(), other.uid.is_empty()) {
            (true, true) => self.key == other.key,
            (false, _) => other.has_uid(&self.uid),
            (true, false) => self.has_uid(&other.uid),
        }
    }

    /// status.nominatedNodeName.
    pub fn nominated_node_name(&self) -> Option<&str> {
        self.rare.as_ref()?.nominated_node_name.as_deref()
    }

    /// The requests 1.33+ compute from the container statuses ([`PodRare::requests_status`]).
    pub fn requests_status(&self) -> Option<&PodRequests> {
        self.rare.as_ref()?.requests_status.as_deref()
    }

    /// The pod-level requests of 1.34+ ([`PodRare::requests_pod_level`]).
    pub fn requests_pod_level(&self) -> Option<&PodRequests> {
        self.rare.as_ref()?.requests_pod_level.as_deref()
    }

    /// The pod-level requests of 1.36+ with the status's ([`PodRare::requests_pod_level_status`]).
    pub fn requests_pod_level_status(&self) -> Option<&PodRequests> {
        self.rare.as_ref()?.requests_pod_level_status.as_deref()
    }

    /// What the status reports about resources ([`PodRare::status_resources`]).
    pub fn status_resources(&self) -> Option<&crate::model::resources::StatusResources> {
        self.rare.as_ref()?.status_resources.as_deref()
    }

    /// Host ports of the regular containers.
    pub fn host_ports(&self) -> &[HostPort] {
        self.rare.as_ref().map_or(&[], |r| &r.host_ports)
    }

    /// Host ports of the restartable (sidecar) init containers.
    pub fn sidecar_host_ports(&self) -> &[HostPort] {
        self.rare.as_ref().map_or(&[], |r| &r.sidecar_host_ports)
    }

    /// The claim names of the pod's persistentVolumeClaim volumes, in spec order.
    pub fn pvc_claims(&self) -> &[String] {
        self.rare.as_ref().map_or(&[], |r| &r.pvc_claims)
    }

    /// Sets status.nominatedNodeName in the model (not in the stored object): for tests, the
    /// model of a changed pod is read again from its object.
    #[cfg(test)]
    pub(crate) fn set_nominated_node_name(&mut self, node: Option<String>) {
        let mut rare = self.rare.take().map_or_else(PodRare::default, |r| *r);
        rare.nominated_node_name = node;
        self.rare = (!rare.is_empty()).then(|| Box::new(rare));
    }

    /// The pod's spec (always present after loading).
    pub fn spec(&self) -> &core::PodSpec {
        static EMPTY: std::sync::OnceLock<core::PodSpec> = std::sync::OnceLock::new();
        self.obj
            .spec
            .as_ref()
            .unwrap_or_else(|| EMPTY.get_or_init(core::PodSpec::default))
    }

    /// True when the pod is finished (Succeeded/Failed): the scheduler ignores it entirely.
    /// 1.35's `spec.workloadRef` (kept in an annotation once read, see
    /// [`workload::WORKLOAD_REF_ANNOTATION`]).
    pub fn workload_ref(&self) -> Option<workload::WorkloadRef> {
        let a = self
            .obj
            .metadata
            .annotations
            .as_ref()?
            .get(workload::WORKLOAD_REF_ANNOTATION)?;
        serde_json::from_str(a).ok()
    }

    /// 1.36's `spec.schedulingGroup.podGroupName`.
    pub fn scheduling_group(&self) -> Option<&str> {
        self.spec().scheduling_group.as_ref()?.pod_group_name.as_deref()
    }

    pub fn is_finished(&self) -> bool {
        matches!(self.phase(), "Succeeded" | "Failed")
    }

    /// True for a pod waiting for a node.
    pub fn is_pending(&self) -> bool {
        self.node_name.is_none() && !self.is_finished()
    }
}

/// A scheduler-plugins PodGroup (scheduling.x-k8s.io/v1alpha1).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct PodGroup {
    /// Metadata.
    pub metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    /// Spec.
    #[serde(default)]
    pub spec: PodGroupSpec,
    /// Status, as the PodGroup controller wrote it (kept as read; the scheduler does not use it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<serde_json::Value>,
}

/// PodGroup spec.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupSpec {
    /// Quorum.
    #[serde(default)]
    pub min_member: i32,
    /// Minimum total resources of the group.
    #[serde(default)]
    pub min_resources: Option<BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
    /// Permit timeout in seconds.
    #[serde(default)]
    pub schedule_timeout_seconds: Option<i32>,
}

/// The reason kube-scheduler gives the events it records when a pod does not fit
/// (`handleSchedulingFailure`), or when it skips a pod being deleted.
pub const FAILED_SCHEDULING: &str = "FailedScheduling";

/// A FailedScheduling event about a pod, as the cluster's scheduler recorded it, reduced to
/// what the verdict shows and compares.
///
/// Only events with reason `FailedScheduling` about a Pod are kept: the others (Scheduled,
/// Pulled, BackOff, ...) say nothing kschedtui can compare with its verdict, so they are
/// dropped without a warning. Both event APIs are read: core v1 (`involvedObject`, `message`,
/// `count`, `firstTimestamp` / `lastTimestamp`, `source.component`) and `events.k8s.io/v1`
/// (`regarding`, `note`, `series.count`, `eventTime`, `reportingController`), which is what
/// kube-scheduler writes since 1.19.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchedulingEvent {
    /// The event's own namespace/name.
    pub key: ObjectKey,
    /// The pod it is about.
    pub pod: ObjectKey,
    /// The uid of the pod it is about, when recorded (a pod deleted and created again under
    /// the same name has another uid).
    pub pod_uid: Option<String>,
    /// `reason` (always [`FAILED_SCHEDULING`]).
    pub reason: String,
    /// `message` (`note`): the text the scheduler wrote, truncated by it to 1024 bytes.
    pub message: String,
    /// `type` (Warning for the scheduler's).
    pub type_: String,
    /// How many times it occurred: `count` (`deprecatedCount`), else `series.count`, else 1.
    pub count: i32,
    /// First occurrence: `firstTimestamp`, else `eventTime`, else the creation time.
    pub first: Option<Timestamp>,
    /// Last occurrence: `series.lastObservedTime`, else `lastTimestamp`, else the first.
    pub last: Option<Timestamp>,
    /// Who reported it: `reportingComponent` (`reportingController`), else `source.component`
    /// (kube-scheduler reports under its profile's schedulerName).
    pub component: String,
}

impl SchedulingEvent {
    /// The record of a FailedScheduling event about a pod; None for any other event.
    pub fn from_event(e: &core::Event) -> Option<Self> {
        if e.reason.as_deref() != Some(FAILED_SCHEDULING) {
            return None;
        }
        let io = &e.involved_object;
        if io.kind.as_deref().is_some_and(|k| !k.is_empty() && k != "Pod") {
            return None;
        }
        let ns = io
            .namespace
            .clone()
            .filter(|n| !n.is_empty())
            .or_else(|| e.metadata.namespace.clone())
            .unwrap_or_default();
        let pod = ObjectKey::new(ns, io.name.clone().unwrap_or_default());
        let created = e.metadata.creation_timestamp.as_ref().map(|t| t.0);
        let event_time = e.event_time.as_ref().map(|t| t.0);
        let first = e.first_timestamp.as_ref().map(|t| t.0).or(event_time).or(created);
        let series = e.series.as_ref();
        let last = series
            .and_then(|s| s.last_observed_time.as_ref())
            .map(|t| t.0)
            .or_else(|| e.last_timestamp.as_ref().map(|t| t.0))
            .or(first)
            .max(first);
        let count = e
            .count
            .filter(|c| *c > 0)
            .or_else(|| series.and_then(|s| s.count).filter(|c| *c > 0))
            .unwrap_or(1);
        let component = e
            .reporting_component
            .clone()
            .filter(|c| !c.is_empty())
            .or_else(|| e.source.as_ref().and_then(|s| s.component.clone()))
            .unwrap_or_default();
        Some(SchedulingEvent {
            key: meta_key(&e.metadata),
            pod,
            pod_uid: io.uid.clone().filter(|u| !u.is_empty()),
            reason: FAILED_SCHEDULING.to_string(),
            message: e.message.clone().unwrap_or_default(),
            type_: e.type_.clone().unwrap_or_default(),
            count,
            first,
            last,
            component,
        })
    }

    /// When it last occurred, as far as known.
    pub fn when(&self) -> Option<Timestamp> {
        self.last.or(self.first)
    }
}

/// An `events.k8s.io/v1` Event in its core v1 shape, field for field as the API server converts
/// them (`regarding` → `involvedObject`, `note` → `message`, `reportingController` →
/// `reportingComponent`, `deprecated*` → the core fields of the same name).
pub fn core_event(e: events::Event) -> core::Event {
    core::Event {
        action: e.action,
        count: e.deprecated_count,
        event_time: e.event_time,
        first_timestamp: e.deprecated_first_timestamp,
        involved_object: e.regarding.unwrap_or_default(),
        last_timestamp: e.deprecated_last_timestamp,
        message: e.note,
        metadata: e.metadata,
        reason: e.reason,
        related: e.related,
        reporting_component: e.reporting_controller,
        reporting_instance: e.reporting_instance,
        series: e.series.map(|s| core::EventSeries {
            count: Some(s.count),
            last_observed_time: Some(s.last_observed_time),
        }),
        source: e.deprecated_source,
        type_: e.type_,
    }
}

pub use kinds::Object;

/// The whole cluster, indexed.
#[derive(Clone, Debug, Default)]
pub struct Cluster {
    /// Nodes sorted by name.
    pub nodes: Vec<Arc<Node>>,
    /// Pods sorted by namespace/name (bound, pending and finished).
    pub pods: Vec<Arc<Pod>>,
    /// Namespace labels.
    pub namespaces: BTreeMap<String, Labels>,
    /// PriorityClasses by name.
    pub priority_classes: BTreeMap<String, sched::PriorityClass>,
    /// PDBs sorted by key.
    pub pdbs: Vec<policy::PodDisruptionBudget>,
    /// PVs by name.
    pub pvs: BTreeMap<String, core::PersistentVolume>,
    /// PVCs by key.
    pub pvcs: BTreeMap<ObjectKey, core::PersistentVolumeClaim>,
    /// StorageClasses by name.
    pub storage_classes: BTreeMap<String, storage::StorageClass>,
    /// CSINodes by name.
    pub csi_nodes: BTreeMap<String, storage::CSINode>,
    /// CSIDrivers by name.
    pub csi_drivers: BTreeMap<String, storage::CSIDriver>,
    /// VolumeAttachments by name (NodeVolumeLimits counts them from 1.32).
    pub volume_attachments: BTreeMap<String, storage::VolumeAttachment>,
    /// DeviceClasses by name.
    pub device_classes: BTreeMap<String, k8s_openapi::api::resource::v1::DeviceClass>,
    /// ResourceSlices by name.
    pub resource_slices: BTreeMap<String, k8s_openapi::api::resource::v1::ResourceSlice>,
    /// DeviceTaintRules by name.
    pub device_taint_rules: BTreeMap<String, k8s_openapi::api::resource::v1alpha3::DeviceTaintRule>,
    /// ResourceClaims by namespace/name.
    pub resource_claims: BTreeMap<ObjectKey, k8s_openapi::api::resource::v1::ResourceClaim>,
    /// ResourceClaimTemplates by namespace/name.
    pub resource_claim_templates: BTreeMap<ObjectKey, k8s_openapi::api::resource::v1::ResourceClaimTemplate>,
    /// CSIStorageCapacities sorted by namespace/name.
    pub csi_storage_capacities: Vec<storage::CSIStorageCapacity>,
    /// LimitRanges (read by `fit`'s admission: LimitRanger's defaults).
    pub limit_ranges: Vec<core::LimitRange>,
    /// ResourceQuotas (read by `fit`'s admission).
    pub resource_quotas: Vec<core::ResourceQuota>,
    /// RuntimeClasses by name (read by `fit`'s admission: overhead and scheduling).
    pub runtime_classes: BTreeMap<String, k8s_openapi::api::node::v1::RuntimeClass>,
    /// Services.
    pub services: Vec<core::Service>,
    /// ReplicaSets.
    pub replica_sets: Vec<apps::ReplicaSet>,
    /// StatefulSets.
    pub stateful_sets: Vec<apps::StatefulSet>,
    /// ReplicationControllers.
    pub replication_controllers: Vec<core::ReplicationController>,
    /// PodGroups (scheduler-plugins).
    pub pod_groups: Vec<PodGroup>,
    /// Workloads of 1.35 (scheduling.k8s.io/v1alpha1) by namespace/name.
    pub workloads_v1alpha1: BTreeMap<ObjectKey, workload::WorkloadV1Alpha1>,
    /// Workloads of 1.36 (scheduling.k8s.io/v1alpha2) by namespace/name.
    pub workloads_v1alpha2: BTreeMap<ObjectKey, workload::WorkloadV1Alpha2>,
    /// PodGroups of 1.36 (scheduling.k8s.io/v1alpha2) by namespace/name.
    pub scheduling_pod_groups: BTreeMap<ObjectKey, workload::SchedulingPodGroup>,
    /// Workloads of 1.37 (scheduling.k8s.io/v1beta1) by namespace/name.
    pub workloads_v1beta1: BTreeMap<ObjectKey, workload::WorkloadV1Beta1>,
    /// PodGroups of 1.37 (scheduling.k8s.io/v1beta1) by namespace/name.
    pub pod_groups_v1beta1: BTreeMap<ObjectKey, workload::PodGroupV1Beta1>,
    /// CompositePodGroups of 1.37 (scheduling.k8s.io/v1alpha3) by namespace/name.
    pub composite_pod_groups: BTreeMap<ObjectKey, workload::CompositePodGroupV1Alpha3>,
    /// FailedScheduling events by the pod they are about, newest first (see
    /// [`SchedulingEvent`]; other events are not kept).
    pub scheduling_events: BTreeMap<ObjectKey, Vec<SchedulingEvent>>,
    /// Why the source could not read events (a live cluster refusing to list them), if so:
    /// the verdict then says so instead of showing none.
    pub events_unreadable: Option<String>,
    /// Kinds read but not used, with counts.
    pub skipped: BTreeMap<String, usize>,
    /// The kinds a live server does not serve (API discovery; empty for files): what the
    /// release's scheduler would read of them is missing (see
    /// `engine::release::Features::unserved_kinds`).
    pub not_served: std::collections::BTreeSet<kinds::Kind>,
    /// The version of resource.k8s.io a live server serves the DRA kinds in (None for files
    /// and servers without DRA).
    pub dra_version: Option<String>,
    /// Things worth saying that are not errors (a pod bound to a missing node, ...).
    pub warnings: Vec<String>,
    /// The documents as read, in order (every kind, every field), when the loader was asked to
    /// keep them (`source::file::load_path_keeping_documents`): saving the cluster back patches
    /// these instead of re-serializing the typed objects, so nothing is lost.
    pub source_documents: Vec<serde_json::Value>,
    /// What a snapshot file recorded about where it came from (the value of its top-level
    /// `kschedtuiSnapshot` key, as read by the loader that read its objects); None for a
    /// directory, the demo, or a file without one.
    pub recorded_info: Option<serde_json::Value>,
}

/// The warning when a source could not read the VolumeAttachments (`why`: "403 Forbidden: ...").
pub fn volume_attachments_unreadable(why: &str) -> String {
    format!(
        "VolumeAttachments could not be read ({why}): from 1.32 NodeVolumeLimits also counts the volumes they attach to a node, so its verdicts may understate what is attached"
    )
}

/// The warning when an optional kind could not be read (`why`: "403 Forbidden: ..."), if it
/// deserves one (events only change the verdict's wording: see `Cluster::events_unreadable`).
pub fn unreadable_warning(kind: kinds::Kind, why: &str) -> Option<String> {
    use kinds::Kind;
    match kind {
        Kind::VolumeAttachment => Some(volume_attachments_unreadable(why)),
        Kind::DeviceClass
        | Kind::ResourceSlice
        | Kind::ResourceClaim
        | Kind::ResourceClaimTemplate
        | Kind::DeviceTaintRule => Some(format!(
            "{}s could not be read ({why}): DynamicResources sees none, so pods with resource claims are explained as if they did not exist",
            kind.name()
        )),
        _ => None,
    }
}

pub(crate) fn meta_key(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> ObjectKey {
    // from the strs: a short namespace or name is held inline (no allocation at all)
    ObjectKey::new(
        m.namespace.as_deref().unwrap_or_default(),
        m.name.as_deref().unwrap_or_default(),
    )
}

/// Converts a k8s resource list, naming the field on a bad quantity.
fn resource_list(
    rl: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
    field: &str,
) -> Result<ResourceList, (String, String)> {
    let mut out = ResourceList::new();
    for (k, v) in rl.into_iter().flatten() {
        let q = Quantity::parse(&v.0).map_err(|e| (format!("{field}.{k}"), e.to_string()))?;
        out.insert(k.clone(), q);
    }
    Ok(out)
}

/// Container requests with API-server defaulting: a limit without a request sets the request.
fn container_requests(c: &core::Container, field: &str) -> Result<ResourceList, (String, String)> {
    let res = c.resources.as_ref();
    let mut req = resource_list(
        res.and_then(|r| r.requests.as_ref()),
        &format!("{field}.resources.requests"),
    )?;
    let lim = resource_list(
        res.and_then(|r| r.limits.as_ref()),
        &format!("{field}.resources.limits"),
    )?;
    for (k, v) in lim {
        req.entry(k).or_insert(v);
    }
    Ok(req)
}

/// The pod's container requests as `AggregateContainerRequests` with `UseStatusResources`
/// sees them (component-helpers/resource, 1.33+): for each container, and each restartable
/// init container, whose status reports `resources`, the larger of its spec, status and
/// allocated requests, or of the status and allocated ones alone while a resize is
/// infeasible (the first PodResizePending condition says Infeasible). None when no status
/// reports resources.
fn status_adjusted_spec(
    spec: &core::PodSpec,
    status: &core::PodStatus,
    rspec: &PodResourceSpec,
) -> Result<Option<PodResourceSpec>, (String, String)> {
    let statuses: BTreeMap<&str, &core::ContainerStatus> = status
        .container_statuses
        .iter()
        .flatten()
        .chain(status.init_container_statuses.iter().flatten())
        .filter(|cs| cs.resources.is_some())
        .map(|cs| (cs.name.as_str(), cs))
        .collect();
    if statuses.is_empty() {
        return Ok(None);
    }
    let infeasible = resize_infeasible(status);
    let adjust = |name: &str, reqs: &ResourceList| -> Result<Option<ResourceList>, (String, String)> {
        let Some(cs) = statuses.get(name) else {
            return Ok(None);
        };
        let field = format!("status.containerStatuses[{name}]");
        let reported = resource_list(
            cs.resources.as_ref().and_then(|r| r.requests.as_ref()),
            &format!("{field}.resources.requests"),
        )?;
        let allocated = resource_list(cs.allocated_resources.as_ref(), &format!("{field}.allocatedResources"))?;
        let mut out = if infeasible { ResourceList::new() } else { reqs.clone() };
        for (k, v) in reported.into_iter().chain(allocated) {
            match out.get(&k) {
                Some(cur) if *cur >= v => {}
                _ => {
                    out.insert(k, v);
                }
            }
        }
        Ok(Some(out))
    };
    let mut adjusted = rspec.clone();
    let mut changed = false;
    for (c, reqs) in spec.containers.iter().zip(adjusted.containers.iter_mut()) {
        if let Some(r) = adjust(&c.name, reqs)? {
            changed |= r != *reqs;
            *reqs = r;
        }
    }
    for (c, (reqs, sidecar)) in spec
        .init_containers
        .iter()
        .flatten()
        .zip(adjusted.init_containers.iter_mut())
    {
        if *sidecar && let Some(r) = adjust(&c.name, reqs)? {
            changed |= r != *reqs;
            *reqs = r;
        }
    }
    // Even when no container changes, 1.33+ computes the non-zero requests the 1.32 way; the
    // engine derives those from `requests` then, so an unchanged spec needs no copy.
    Ok(changed.then_some(adjusted))
}

/// The status' resources as 1.37's `AggregateContainerRequests` reads them
/// (`containerAllocatedRequests`, `containerActuatedRequests`); None when neither a container
/// status nor the pod status reports any.
fn status_resources(
    spec: &core::PodSpec,
    status: &core::PodStatus,
    rspec: &PodResourceSpec,
) -> Result<Option<crate::model::resources::StatusResources>, (String, String)> {
    let statuses: BTreeMap<&str, &core::ContainerStatus> = status
        .container_statuses
        .iter()
        .flatten()
        .chain(status.init_container_statuses.iter().flatten())
        .map(|cs| (cs.name.as_str(), cs))
        .collect();
    let any_container = statuses
        .values()
        .any(|cs| cs.allocated_resources.is_some() || cs.resources.as_ref().is_some_and(|r| r.requests.is_some()));
    if !any_container && status.allocated_resources.is_none() && status.resources.is_none() {
        return Ok(None);
    }
    let infeasible = resize_infeasible(status);
    let one = |name: &str, spec_reqs: &ResourceList| -> Result<(ResourceList, ResourceList), (String, String)> {
        let field = format!("status.containerStatuses[{name}]");
        let cs = statuses.get(name);
        let allocated = match cs.and_then(|c| c.allocated_resources.as_ref()) {
            Some(a) => Some(resource_list(Some(a), &format!("{field}.allocatedResources"))?),
            None => None,
        };
        let actuated = match cs.and_then(|c| c.resources.as_ref()).and_then(|r| r.requests.as_ref()) {
            Some(r) => Some(resource_list(Some(r), &format!("{field}.resources.requests"))?),
            None => None,
        };
        let fallback = if infeasible {
            ResourceList::new()
        } else {
            spec_reqs.clone()
        };
        let alloc = allocated.clone().unwrap_or_else(|| fallback.clone());
        let act = actuated.or(allocated).unwrap_or(fallback);
        Ok((alloc, act))
    };
    let mut out = crate::model::resources::StatusResources {
        spec: rspec.clone(),
        infeasible,
        ..Default::default()
    };
    out.allocated.overhead = rspec.overhead.clone();
    out.actuated.overhead = rspec.overhead.clone();
    for (c, reqs) in spec.containers.iter().zip(&rspec.containers) {
        let (a, b) = one(&c.name, reqs)?;
        out.allocated.containers.push(a);
        out.actuated.containers.push(b);
    }
    for (c, (reqs, sidecar)) in spec.init_containers.iter().flatten().zip(&rspec.init_containers) {
        let (a, b) = one(&c.name, reqs)?;
        out.allocated.init_containers.push((a, *sidecar));
        out.actuated.init_containers.push((b, *sidecar));
    }
    out.pod_allocated = match &status.allocated_resources {
        Some(a) => Some(resource_list(Some(a), "status.allocatedResources")?),
        None => None,
    };
    out.pod_requests = match status.resources.as_ref().and_then(|r| r.requests.as_ref()) {
        Some(r) => Some(resource_list(Some(r), "status.resources.requests")?),
        None => None,
    };
    out.pod_level = out.pod_allocated.clone().zip(out.pod_requests.clone());
    Ok(Some(out))
}

/// `IsPodResizeInfeasible`: the first PodResizePending condition says Infeasible.
fn resize_infeasible(status: &core::PodStatus) -> bool {
    status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_ == "PodResizePending")
        .is_some_and(|c| c.reason.as_deref() == Some("Infeasible"))
}

/// Text shared in one pointer (8 bytes, not the 16 of an `Arc<str>`): a pod's spec.nodeName,
/// shared by the pods of a node ([`Pod::node_name`]); a file's name, shared by its objects
/// ([`Origin::file`]); a priority class name while pods are read. Reads, compares and
/// hashes as its text.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThinStr(Arc<Box<str>>);

impl ThinStr {
    /// Whether the two are one shared name (not only equal).
    pub fn shares(&self, other: &ThinStr) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::ops::Deref for ThinStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for ThinStr {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for ThinStr {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for ThinStr {
    fn from(s: &str) -> Self {
        ThinStr(Arc::new(s.into()))
    }
}

impl From<String> for ThinStr {
    fn from(s: String) -> Self {
        ThinStr(Arc::new(s.into_boxed_str()))
    }
}

impl fmt::Debug for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self.0, f)
    }
}

impl fmt::Display for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A creation time in 8 bytes (a pod's `metadata.creationTimestamp`): nanoseconds since the
/// Unix epoch, which reach from 1677 to 2262; an instant outside is held as the nearest end
/// and the exact one kept aside ([`PodRare::creation`]). Ordered as the times are, absent
/// first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Created(i64);

impl Created {
    /// No creation time.
    const NONE: Created = Created(i64::MIN);

    /// The creation time of `t`, and `t` itself when it is outside what 8 bytes hold.
    fn of(t: Option<Timestamp>) -> (Created, Option<Timestamp>) {
        let Some(t) = t else {
            return (Created::NONE, None);
        };
        match i64::try_from(t.as_nanosecond()) {
            Ok(n) if n > i64::MIN + 1 && n < i64::MAX => (Created(n), None),
            _ if t.as_nanosecond() < 0 => (Created(i64::MIN + 1), Some(t)),
            _ => (Created(i64::MAX), Some(t)),
        }
    }

    /// Whether this is one of the ends an instant outside the range is held as.
    fn clamped(self) -> bool {
        self.0 == i64::MIN + 1 || self.0 == i64::MAX
    }
}

/// FNV-1a's 64-bit offset basis: the hash of no bytes.
pub const FNV1A_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a (64 bits) of `bytes` continued from the hash `h` (start from [`FNV1A_OFFSET`]).
pub fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// FNV-1a of an image name: the key a node's images are searched by
/// ([`Node::image_size_hashed`]).
pub fn image_name_hash(name: &str) -> u64 {
    fnv1a(FNV1A_OFFSET, name.as_bytes())
}

/// See [`Node::image_index`].
fn image_index(images: &[(list::List<String>, i64)]) -> Vec<(u64, u32, u32)> {
    let mut idx: Vec<(u64, u32, u32)> = images
        .iter()
        .enumerate()
        .flat_map(|(e, (names, _))| {
            names
                .iter()
                .enumerate()
                .map(move |(k, n)| (image_name_hash(n), e as u32, k as u32))
        })
        .collect();
    let name = |&(_, e, k): &(u64, u32, u32)| images[e as usize].0[k as usize].as_str();
    // by hash and name, the later entry first, so dedup keeps the entry that wins
    idx.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| name(a).cmp(name(b))).then(b.1.cmp(&a.1)));
    idx.dedup_by(|a, b| a.0 == b.0 && name(a) == name(b));
    idx
}

impl Node {
    /// The size of the image named `name` on the node (the last status.images entry listing
    /// it), as ImageLocality reads the node's ImageStates.
    pub fn image_size(&self, name: &str) -> Option<i64> {
        self.image_size_hashed(name, image_name_hash(name))
    }

    /// [`Node::image_size`] of a name whose [`image_name_hash`] is `hash`.
    pub fn image_size_hashed(&self, name: &str, hash: u64) -> Option<i64> {
        let i = self
            .image_index
            .binary_search_by(|&(h, e, k)| {
                h.cmp(&hash)
                    .then_with(|| self.images[e as usize].0[k as usize].as_str().cmp(name))
            })
            .ok()?;
        Some(self.images[self.image_index[i].1 as usize].1)
    }

    /// Builds the node model.
    pub fn from_obj(obj: core::Node) -> Result<Self, (String, String)> {
        Self::read(obj, None, None)
    }

    /// As [`Node::from_obj`]; with `text` (the object's JSON, which decodes to `obj`) the
    /// stored object keeps that text (a slice of `file` when it lies there and is compact)
    /// and drops the typed form, as [`Pod::read`] does.
    pub fn read(obj: core::Node, text: Option<&str>, file: Option<&bytes::Bytes>) -> Result<Self, (String, String)> {
        let name = obj.metadata.name.clone().unwrap_or_default();
        let labels = obj.metadata.labels.clone().unwrap_or_default();
        let spec = obj.spec.as_ref();
        let taints = spec
            .and_then(|s| s.taints.as_ref())
            .into_iter()
            .flatten()
            .map(|t| Taint {
                key: t.key.clone(),
                value: t.value.clone().unwrap_or_default(),
                effect: t.effect.clone(),
            })
            .collect();
        let unschedulable = spec.and_then(|s| s.unschedulable).unwrap_or(false);
        let status = obj.status.as_ref();
        let alloc = match status.and_then(|s| s.allocatable.as_ref()) {
            Some(a) => resource_list(Some(a), "status.allocatable")?,
            None => resource_list(status.and_then(|s| s.capacity.as_ref()), "status.capacity")?,
        };
        let images: Box<[(list::List<String>, i64)]> = status
            .and_then(|s| s.images.as_ref())
            .into_iter()
            .flatten()
            .map(|i| {
                let names = match i.names.as_deref() {
                    None | Some([]) => list::List::new(),
                    Some(names) => {
                        IMAGE_NAMES.with_borrow_mut(|set| share::share::<_, _, [_]>(set, names, |n| n.to_vec().into()))
                    }
                };
                (names, i.size_bytes.unwrap_or(0))
            })
            .collect();
        let image_index = image_index(&images);
        Ok(Node {
            image_index,
            name,
            labels: labels.into(),
            taints,
            unschedulable,
            allocatable: Resource::from_list(&alloc),
            images,
            obj: match text {
                Some(t) => stored::Stored::from_json_in(t, file),
                None => stored::Stored::typed(obj),
            },
        })
    }
}

/// An object a loader read into the model as it parsed it (on the thread that parsed it),
/// for [`Cluster::build_with_pods`].
pub enum ReadObject {
    /// A pod, its priority not resolved yet.
    Pod(ReadPod),
    /// A node, in the `Arc` the cluster keeps.
    Node(Arc<Node>),
}

impl ReadObject {
    /// Where the object's text is, for [`stored::pack`]; None once the object is shared
    /// (its text is then left as it is).
    pub fn slot(&mut self) -> Option<stored::Slot<'_>> {
        match self {
            ReadObject::Pod(p) => Arc::get_mut(&mut p.pod).map(|p| p.obj.slot()),
            ReadObject::Node(n) => Arc::get_mut(n).map(|n| n.obj.slot()),
        }
    }
}

/// A pod read from a source whose priority is not resolved yet: spec.priority when set, else
/// its priorityClassName, resolved against the cluster's PriorityClasses by
/// [`ReadPod::resolve`] once every object is read.
#[derive(Clone, Debug)]
pub struct ReadPod {
    /// The pod, `priority` spec.priority or 0. Already in the `Arc` the cluster keeps: made
    /// once, on the thread that read it (a pod moved from a box of its own into a new `Arc`
    /// cost a second 512-byte allocation per pod while loading).
    pub pod: Arc<Pod>,
    /// None when spec.priority is set (it is the pod's priority); else spec.priorityClassName,
    /// empty when it names none, shared by the pods a thread reads ([`CLASSES`]). A loader
    /// holds one of these per pod: 16 bytes (40, then 24, before).
    class: Option<ThinStr>,
}

impl ReadPod {
    /// The pod with its priority: spec.priority, else `priority_of(priorityClassName)` (None
    /// when it is empty or absent).
    pub fn resolve(mut self, priority_of: impl FnOnce(Option<&str>) -> i32) -> Arc<Pod> {
        self.resolve_in_place(priority_of);
        self.pod
    }

    /// [`ReadPod::resolve`], the pod left here (its priority resolved once).
    fn resolve_in_place(&mut self, priority_of: impl FnOnce(Option<&str>) -> i32) -> &Pod {
        if let Some(class) = self.class.take() {
            let priority = priority_of(Some(&*class).filter(|c| !c.is_empty()));
            // unique until the cluster holds it: set in place, not copied
            Arc::make_mut(&mut self.pod).priority = priority;
        }
        &self.pod
    }
}

/// How many priority class names a thread keeps to share ([`ReadPod`]).
const CLASSES_PER_THREAD: usize = 1024;

/// How many node names a thread keeps to share ([`Pod::node_name`]).
const NODES_PER_THREAD: usize = 1 << 17;

thread_local! {
    /// The pods' affinities this thread read lately ([`Pod::affinity`]).
    static AFFINITIES: std::cell::RefCell<Vec<Arc<core::Affinity>>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The pods' tolerations this thread read lately (nearly every pod has the two that
    /// admission adds, and one template's pods have the same).
    static TOLERATIONS: std::cell::RefCell<std::collections::HashSet<list::List<Toleration>>> =
        std::cell::RefCell::new(std::collections::HashSet::new());
    /// The priority class names of the pods this thread read lately ([`ReadPod`]).
    static CLASSES: std::cell::RefCell<std::collections::HashSet<ThinStr>> =
        std::cell::RefCell::new(std::collections::HashSet::new());
    /// The node names of the pods this thread read lately ([`Pod::node_name`]): up to
    /// [`NODES_PER_THREAD`], a name per node of the largest clusters (at 65k nodes each is
    /// shared by fifteen pods; cleared every 4,096 names, a name would be shared by one).
    static NODE_NAMES: std::cell::RefCell<std::collections::HashSet<ThinStr>> =
        std::cell::RefCell::new(std::collections::HashSet::new());
    /// The image names of the nodes this thread read lately ([`Node::images`]).
    static IMAGE_NAMES: std::cell::RefCell<std::collections::HashSet<list::List<String>>> =
        std::cell::RefCell::new(std::collections::HashSet::new());
}

impl Pod {
    /// Builds the pod model; `priority` resolves priorityClassName when spec.priority is absent.
    pub fn from_obj(
        obj: impl Into<Box<core::Pod>>,
        priority_of: impl FnOnce(Option<&str>) -> i32,
    ) -> Result<Self, (String, String)> {
        Ok(Arc::unwrap_or_clone(
            Pod::read(obj.into(), None, None)?.resolve(priority_of),
        ))
    }

    /// Reads the pod's facts, its priority left to [`ReadPod::resolve`]. With `text` (the
    /// object's JSON, which decodes to `obj`), the stored object keeps that text instead of
    /// serializing `obj` again: as a slice of `file` when the text lies in it and is compact.
    pub fn read(
        obj: Box<core::Pod>,
        text: Option<&str>,
        file: Option<&bytes::Bytes>,
    ) -> Result<ReadPod, (String, String)> {
        let key = meta_key(&obj.metadata);
        static EMPTY_SPEC: std::sync::OnceLock<core::PodSpec> = std::sync::OnceLock::new();
        static EMPTY_STATUS: std::sync::OnceLock<core::PodStatus> = std::sync::OnceLock::new();
        let spec = obj
            .spec
            .as_ref()
            .unwrap_or_else(|| EMPTY_SPEC.get_or_init(core::PodSpec::default));
        let mut rspec = PodResourceSpec::default();
        let mut host_ports = Vec::new();
        for (i, c) in spec.containers.iter().enumerate() {
            rspec
                .containers
                .push(container_requests(c, &format!("spec.containers[{i}]"))?);
            host_ports.extend(container_host_ports(c));
        }
        let mut sidecar_host_ports = Vec::new();
        for (i, c) in spec.init_containers.iter().flatten().enumerate() {
            let sidecar = c.restart_policy.as_deref() == Some("Always");
            if sidecar {
                sidecar_host_ports.extend(container_host_ports(c));
            }
            rspec
                .init_containers
                .push((container_requests(c, &format!("spec.initContainers[{i}]"))?, sidecar));
        }
        if spec.overhead.is_some() {
            rspec.overhead = Some(resource_list(spec.overhead.as_ref(), "spec.overhead")?);
        }
        if let Some(reqs) = spec.resources.as_ref().and_then(|r| r.requests.as_ref()) {
            let all = resource_list(Some(reqs), "spec.resources.requests")?;
            let supported: ResourceList = all
                .into_iter()
                .filter(|(k, _)| k == "cpu" || k == "memory" || k.starts_with("hugepages-"))
                .collect();
            rspec.pod_level = (!supported.is_empty()).then_some(supported);
        }
        let class = match spec.priority {
            Some(_) => None,
            None => Some(CLASSES.with_borrow_mut(|set| {
                let name = spec.priority_class_name.as_deref().unwrap_or("");
                share::share_up_to::<_, _, str>(set, name, ThinStr::from, CLASSES_PER_THREAD)
            })),
        };
        let tolerations = spec
            .tolerations
            .iter()
            .flatten()
            .map(|t| Toleration {
                key: t.key.clone().unwrap_or_default(),
                operator: t.operator.clone().unwrap_or_default(),
                value: t.value.clone().unwrap_or_default(),
                effect: t.effect.clone().unwrap_or_default(),
            })
            .collect::<Vec<_>>();
        let tolerations = if tolerations.is_empty() {
            list::List::new()
        } else {
            TOLERATIONS.with_borrow_mut(|set| share::share::<_, _, [_]>(set, tolerations, list::List::from))
        };
        let status = obj
            .status
            .as_ref()
            .unwrap_or_else(|| EMPTY_STATUS.get_or_init(core::PodStatus::default));
        let status_spec = status_adjusted_spec(spec, status, &rspec)?;
        let requests_status = status_spec.as_ref().map(|s| Box::new(pod_requests_v132(s, false)));
        let requests_pod_level = rspec
            .pod_level
            .is_some()
            .then(|| Box::new(pod_requests_v132(status_spec.as_ref().unwrap_or(&rspec), true)));
        let requests_pod_level_status = match (&rspec.pod_level, &status.resources) {
            (Some(pod_level), Some(res)) => {
                let actuated = resource_list(res.requests.as_ref(), "status.resources.requests")?;
                let allocated = resource_list(status.allocated_resources.as_ref(), "status.allocatedResources")?;
                let infeasible = resize_infeasible(status);
                let effective: ResourceList = pod_level
                    .keys()
                    .map(|k| {
                        let mut q = if infeasible { Quantity::default() } else { pod_level[k] };
                        for other in [actuated.get(k), allocated.get(k)].into_iter().flatten() {
                            if *other > q {
                                q = *other;
                            }
                        }
                        (k.clone(), q)
                    })
                    .collect();
                let mut adjusted = status_spec.clone().unwrap_or_else(|| rspec.clone());
                adjusted.pod_level = Some(effective);
                Some(Box::new(pod_requests_v132(&adjusted, true)))
            }
            _ => None,
        };
        let status_resources = status_resources(spec, status, &rspec)?.map(Box::new);
        let (scheduler, scheduler_name) = usual(
            spec.scheduler_name.as_deref().unwrap_or(USUAL_SCHEDULERS[0]),
            &USUAL_SCHEDULERS,
        );
        let (phase, phase_text) = usual(status.phase.as_deref().unwrap_or_default(), &USUAL_PHASES);
        let (created, creation) = Created::of(obj.metadata.creation_timestamp.as_ref().map(|t| t.0));
        let rare = PodRare {
            creation,
            scheduler_name,
            phase: phase_text,
            nominated_node_name: status.nominated_node_name.clone().filter(|n| !n.is_empty()),
            requests_status,
            requests_pod_level,
            requests_pod_level_status,
            status_resources,
            host_ports: host_ports.into(),
            sidecar_host_ports: sidecar_host_ports.into(),
            pvc_claims: spec
                .volumes
                .iter()
                .flatten()
                .filter_map(|v| v.persistent_volume_claim.as_ref().map(|c| c.claim_name.clone()))
                .collect(),
        };
        let pod = Pod {
            uid: obj.metadata.uid.as_deref().unwrap_or_default().into(),
            labels: obj.metadata.labels.as_ref().map(Labels::shared).unwrap_or_default(),
            node_name: spec.node_name.as_deref().filter(|n| !n.is_empty()).map(|n| {
                NODE_NAMES
                    .with_borrow_mut(|set| share::share_up_to::<_, _, str>(set, n, ThinStr::from, NODES_PER_THREAD))
            }),
            scheduler,
            priority: spec.priority.unwrap_or(0),
            terminating: obj.metadata.deletion_timestamp.is_some(),
            gated: spec.scheduling_gates.as_ref().is_some_and(|g| !g.is_empty()),
            requests: resources::shared_requests(pod_requests(&rspec)),
            tolerations,
            created,
            phase,
            affinity: spec
                .affinity
                .as_ref()
                .map(|a| AFFINITIES.with_borrow_mut(|recent| share::share_recent(recent, a))),
            rare: (!rare.is_empty()).then(|| Box::new(rare)),
            key,
            obj: match text {
                Some(t) => stored::Stored::from_json_in(t, file),
                None => stored::Stored::new(*obj),
            },
        };
        Ok(ReadPod {
            pod: Arc::new(pod),
            class,
        })
    }
}

/// Nodes read by the loader skipped `build_with_pods`'s duplicate check: the first node (in
/// input order) whose name an earlier node has, among those and the typed ones, is the same
/// error as for any other object.
fn duplicate_node(typed: &[(Origin, Box<core::Node>)], read: &[(Origin, Arc<Node>)]) -> Result<(), ModelError> {
    let mut all: Vec<(&Origin, &str)> = typed
        .iter()
        .map(|(o, n)| (o, n.metadata.name.as_deref().unwrap_or("")))
        .chain(read.iter().map(|(o, n)| (o, n.name.as_str())))
        .collect();
    all.sort_by(|a, b| (&*a.0.file, a.0.doc).cmp(&(&*b.0.file, b.0.doc)));
    let mut first: std::collections::HashMap<&str, &Origin> = std::collections::HashMap::with_capacity(all.len());
    for (origin, name) in all {
        if let Some(earlier) = first.insert(name, origin) {
            let key = ObjectKey::new("", name);
            return Err(ModelError {
                origin: origin.clone(),
                kind: "Node".into(),
                message: format!("duplicate object: Node {key} was already defined at {earlier}"),
                key,
                field: "metadata.name".into(),
            });
        }
    }
    Ok(())
}

impl Cluster {
    /// Builds the cluster from typed objects with their origins.
    pub fn build(objects: Vec<(Origin, Object)>) -> Result<Cluster, ModelError> {
        Self::build_with_pods(objects, Vec::new())
    }

    /// Builds the cluster from typed objects and pods already read (the JSON loader reads
    /// pods as it parses them, so their typed objects never pile up), each with its origin.
    /// `read` is in input order; its pods count as if they were among `objects` at their
    /// origins.
    pub fn build_with_pods(
        objects: Vec<(Origin, Object)>,
        read: Vec<(Origin, ReadObject)>,
    ) -> Result<Cluster, ModelError> {
        let mut c = Cluster::default();
        let mut seen: BTreeMap<(String, ObjectKey), Origin> = BTreeMap::new();
        let mut read_nodes = Vec::new();
        // The pods read go where the typed ones will join them, in the list's own memory (it
        // is collected in place): a second list of 100,000 pods cost its pages while loading.
        let mut raw_pods: Vec<(Origin, ReadPod)> = read
            .into_iter()
            .filter_map(|(o, r)| match r {
                ReadObject::Pod(p) => Some((o, p)),
                ReadObject::Node(n) => {
                    read_nodes.push((o, n));
                    None
                }
            })
            .collect();
        let n_read = raw_pods.len();
        let n_pods = objects.iter().filter(|(_, o)| matches!(o, Object::Pod(_))).count() + n_read;
        let n_nodes = objects.iter().filter(|(_, o)| matches!(o, Object::Node(_))).count() + read_nodes.len();
        raw_pods.reserve_exact(n_pods - n_read);
        let mut raw_nodes = Vec::with_capacity(n_nodes);
        let mut events: BTreeMap<ObjectKey, SchedulingEvent> = BTreeMap::new();
        c.pods.reserve_exact(n_pods);
        c.nodes.reserve_exact(n_nodes);
        let merge = n_read > 0;
        let mut pod_error = None;
        let merge_nodes = !read_nodes.is_empty();
        for (origin, obj) in objects {
            if let Object::Skipped(kind) = &obj {
                *c.skipped.entry(kind.clone()).or_insert(0) += 1;
                continue;
            }
            let kind = obj.kind().map_or("", kinds::Kind::name);
            let key = meta_key(obj.meta());
            if let Object::Event(e) = &obj {
                // Events are optional: one without a name is kept, not an error. The same event
                // may be read twice (through both event APIs): the last one read wins.
                if let Some(r) = SchedulingEvent::from_event(e) {
                    let slot = if key.name.is_empty() {
                        ObjectKey::new(key.namespace, format!("(unnamed {})", events.len()))
                    } else {
                        key
                    };
                    events.insert(slot, r);
                }
                continue;
            }
            let err = |field: &str, message: String| ModelError {
                origin: origin.clone(),
                kind: kind.to_string(),
                key: key.clone(),
                field: field.to_string(),
                message,
            };
            if key.name.is_empty() {
                return Err(err("metadata.name", "is missing; every object needs a name".into()));
            }
            if let (true, _, Object::Pod(_)) | (_, true, Object::Node(_)) = (merge, merge_nodes, &obj) {
                // checked with the pods and nodes read already, below
            } else if let Some(first) = seen.insert((kind.to_string(), key.clone()), origin.clone()) {
                return Err(err(
                    "metadata.name",
                    format!("duplicate object: {kind} {key} was already defined at {first}"),
                ));
            }
            match kinds::store(&mut c, key.clone(), obj) {
                Ok(()) => {}
                Err(Object::Node(n)) => raw_nodes.push((origin, n)),
                // Read here, its error (the first in input order) said where the pods' are
                Err(Object::Pod(p)) => match Pod::read(p, None, None) {
                    Ok(r) => raw_pods.push((origin, r)),
                    Err((field, message)) => {
                        if pod_error
                            .as_ref()
                            .is_none_or(|e: &ModelError| (&*e.origin.file, e.origin.doc) > (&*origin.file, origin.doc))
                        {
                            pod_error = Some(ModelError {
                                origin,
                                kind: "Pod".into(),
                                key,
                                field,
                                message,
                            });
                        }
                    }
                },
                Err(Object::Namespace(n)) => {
                    c.namespaces
                        .insert(key.name.into(), n.metadata.labels.map(Labels::from).unwrap_or_default());
                }
                Err(_) => {}
            }
        }
        for e in events.into_values() {
            c.scheduling_events.entry(e.pod.clone()).or_default().push(e);
        }
        for list in c.scheduling_events.values_mut() {
            list.sort_by(|a, b| b.when().cmp(&a.when()).then_with(|| a.key.cmp(&b.key)));
        }
        if merge_nodes {
            duplicate_node(&raw_nodes, &read_nodes)?;
        }
        for (origin, n) in raw_nodes {
            let key = meta_key(&n.metadata);
            let node = Node::from_obj(*n).map_err(|(field, message)| ModelError {
                origin,
                kind: "Node".into(),
                key,
                field,
                message,
            })?;
            c.nodes.push(Arc::new(node));
        }
        c.nodes.extend(read_nodes.into_iter().map(|(_, n)| n));
        c.nodes.sort_by(|a, b| a.name.cmp(&b.name));
        let global_default = c
            .priority_classes
            .values()
            .filter(|p| p.global_default == Some(true))
            .map(|p| p.value.unwrap_or(0))
            .max();
        // Input order: by file (read in name order), then by document. The pods read come
        // first, in input order, and a stable sort of 100,000 would take a copy of them as
        // scratch: sorted only when typed pods came too.
        if !raw_pods.is_sorted_by(|a, b| (&*a.0.file, a.0.doc) <= (&*b.0.file, b.0.doc)) {
            raw_pods.sort_by(|a, b| (&*a.0.file, a.0.doc).cmp(&(&*b.0.file, b.0.doc)));
        }
        if let Some(e) = pod_error {
            return Err(e);
        }
        // the nodes by name, for each bound pod's check (a hash, not a search of 65,000 names)
        let node_names: std::collections::HashSet<&str> = c.nodes.iter().map(|n| n.name.as_str()).collect();
        for (origin, read) in &mut raw_pods {
            let mut missing_class = None;
            let pod = read.resolve_in_place(|class| match class {
                Some(name) if !name.is_empty() => match c.priority_classes.get(name) {
                    Some(pc) => pc.value.unwrap_or(0),
                    None => {
                        missing_class = Some(name.to_string());
                        global_default.unwrap_or(0)
                    }
                },
                _ => global_default.unwrap_or(0),
            });
            let key = &pod.key;
            if let Some(name) = missing_class {
                c.warnings.push(format!(
                    "{origin}: Pod {key}: spec.priorityClassName '{name}' names no PriorityClass in the snapshot; priority taken as {}",
                    pod.priority
                ));
            }
            if let Some(n) = &pod.node_name
                && !pod.is_finished()
                && !node_names.contains(&**n)
            {
                c.warnings.push(format!(
                    "{origin}: Pod {key}: spec.nodeName '{n}' names no node in the snapshot; the pod is not counted on any node"
                ));
            }
        }
        // Each pod with its position in the input, for the sort by key below; the origins stay
        // in `raw_pods` (a second list of 100,000 cost its pages) until the duplicate check.
        let mut tagged: Vec<(Arc<Pod>, usize)> = raw_pods
            .iter()
            .enumerate()
            .map(|(i, (_, r))| (r.pod.clone(), i))
            .collect();
        drop(node_names);
        tagged.sort_unstable_by(|a, b| a.0.key.cmp(&b.0.key).then(a.1.cmp(&b.1)));
        // Pods read by the loader skipped the duplicate check above: the first pod (in input
        // order) whose key an earlier pod has is the same error as for any other object.
        if merge
            && let Some((second, first)) = tagged
                .windows(2)
                .filter(|w| w[0].0.key == w[1].0.key)
                .map(|w| (w[1].1, w[0].1))
                .min()
        {
            let key = tagged
                .iter()
                .find(|t| t.1 == second)
                .map(|t| t.0.key.clone())
                .unwrap_or_default();
            return Err(ModelError {
                origin: raw_pods[second].0.clone(),
                kind: "Pod".into(),
                key: key.clone(),
                field: "metadata.name".into(),
                message: format!(
                    "duplicate object: Pod {key} was already defined at {}",
                    raw_pods[first].0
                ),
            });
        }
        drop(raw_pods);
        c.pods = tagged.into_iter().map(|(p, _)| p).collect();
        c.pdbs.sort_by_key(|p| meta_key(&p.metadata));
        for s in c.storage_classes.values_mut() {
            if s.volume_binding_mode.is_none() {
                s.volume_binding_mode = Some("Immediate".into());
            }
        }
        c.csi_storage_capacities.sort_by_key(|s| meta_key(&s.metadata));
        Ok(c)
    }

    /// Finds a node by name.
    pub fn node(&self, name: &str) -> Option<&Arc<Node>> {
        self.nodes
            .binary_search_by(|n| n.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.nodes[i])
    }

    /// Finds a pod by key.
    pub fn pod(&self, key: &ObjectKey) -> Option<&Arc<Pod>> {
        self.pods
            .binary_search_by(|p| p.key.cmp(key))
            .ok()
            .map(|i| &self.pods[i])
    }

    /// The FailedScheduling events about this pod, newest first. Events recorded for an
    /// earlier pod of the same name (another uid) are left out.
    pub fn scheduling_events_of(&self, pod: &Pod) -> Vec<&SchedulingEvent> {
        let uid = pod.obj.metadata.uid.as_deref().filter(|u| !u.is_empty());
        self.scheduling_events
            .get(&pod.key)
            .into_iter()
            .flatten()
            .filter(|e| match (&e.pod_uid, uid) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            })
            .collect()
    }

    /// Pending pods in PrioritySort order: higher priority first, then earlier creation, then key.
    pub fn pending_pods(&self) -> Vec<&Arc<Pod>> {
        let mut v: Vec<&Arc<Pod>> = self.pods.iter().filter(|p| p.is_pending()).collect();
        v.sort_by(|a, b| {
            b.priority
                .cmp(&a.priority)
                .then_with(|| a.cmp_creation(b))
                .then_with(|| a.key.cmp(&b.key))
        });
        v
    }
}
#[cfg(test)]
mod size_tests {
    /// A cluster holds one `Arc<Pod>` per pod (a million at 65k nodes), and mimalloc's bins
    /// from 128 bytes are 128, 160, 192, 224, 256: a field added to `Pod` costs 32 bytes per
    /// pod (3.2 MB at 100,000 pods); put it in [`super::PodRare`] if few pods have it, share
    /// it as `requests` and `tolerations` are, or shrink another (heaptrack first). 192 before
    /// the key's `EcoString`s, the creation time as a number and the one-pointer node name.
    #[test]
    fn an_arc_pod_fits_the_160_byte_bin() {
        let arc = std::mem::size_of::<super::Pod>() + 2 * std::mem::size_of::<usize>();
        assert!(arc <= 160, "Arc<Pod> is {arc} bytes");
    }

    /// A loader holds an origin and a read object per pod until the cluster is built (100,000
    /// at 5k nodes): 32 bytes (48 with the file name an `Arc<str>` and the class a
    /// `Box<str>`).
    #[test]
    fn a_read_pod_with_its_origin_is_32_bytes() {
        assert!(std::mem::size_of::<(super::Origin, super::ReadObject)>() <= 32);
    }

    /// Creation times compare as the instants they are: a fraction of a second after a
    /// whole one is later (as text it sorted before), and times outside 1677-2262, held as
    /// the nearest end, still compare and read exactly.
    #[test]
    fn creation_times_compare_as_instants() {
        let at = |t: &str| {
            let obj: super::core::Pod = serde_json::from_value(serde_json::json!({
                "metadata": {"name": "p", "namespace": "a", "creationTimestamp": t}
            }))
            .expect("pod");
            super::Pod::from_obj(obj, |_| 0).expect("model")
        };
        let none = pod(serde_json::json!({}));
        let (whole, half) = (at("2024-05-01T10:00:00Z"), at("2024-05-01T10:00:00.5Z"));
        assert_eq!(whole.cmp_creation(&half), std::cmp::Ordering::Less);
        assert_eq!(
            half.creation().map(|t| t.to_string()).as_deref(),
            Some("2024-05-01T10:00:00.5Z")
        );
        let (y1500, y1600, y9000) = (
            at("1500-01-01T00:00:00Z"),
            at("1600-06-01T00:00:00Z"),
            at("9000-01-01T00:00:00Z"),
        );
        assert_eq!(y1500.cmp_creation(&y1600), std::cmp::Ordering::Less);
        assert_eq!(y1600.cmp_creation(&y1500), std::cmp::Ordering::Greater);
        assert_eq!(y1600.cmp_creation(&whole), std::cmp::Ordering::Less);
        assert_eq!(y9000.cmp_creation(&whole), std::cmp::Ordering::Greater);
        assert_eq!(none.cmp_creation(&y1500), std::cmp::Ordering::Less);
        assert_eq!(none.creation(), None);
        assert_eq!(
            y1500.creation().map(|t| t.to_string()).as_deref(),
            Some("1500-01-01T00:00:00Z")
        );
        assert_eq!(
            y9000.creation().map(|t| t.to_string()).as_deref(),
            Some("9000-01-01T00:00:00Z")
        );
    }

    /// A pod's key holds a short namespace and name inline; a long name (more than 15 bytes)
    /// on the heap, the same text either way.
    #[test]
    fn short_keys_allocate_nothing() {
        let short = pod(serde_json::json!({})).key;
        assert_eq!((short.namespace.as_str(), short.name.as_str()), ("a", "p"));
        assert!(short.namespace.is_inline() && short.name.is_inline());
        let long = super::ObjectKey::new("kube-system", "payments-api-7d9f8c6b5d-x2k4q");
        assert!(long.namespace.is_inline() && !long.name.is_inline());
        assert_eq!(long.to_string(), "kube-system/payments-api-7d9f8c6b5d-x2k4q");
    }

    fn pod(spec: serde_json::Value) -> super::Pod {
        let obj: super::core::Pod =
            serde_json::from_value(serde_json::json!({"metadata": {"name": "p", "namespace": "a"}, "spec": spec}))
                .expect("pod");
        super::Pod::from_obj(obj, |_| 0).expect("model")
    }

    #[test]
    fn nodes_read_on_one_thread_share_equal_image_name_lists() {
        let node = |name: &str| {
            let obj: super::core::Node = serde_json::from_value(serde_json::json!({
                "metadata": {"name": name},
                "status": {"images": [
                    {"names": ["reg/a:1", "reg/a@sha256:0f"], "sizeBytes": 5},
                    {"names": ["reg/b:2"], "sizeBytes": 7},
                    {"sizeBytes": 9}]}
            }))
            .expect("node");
            super::Node::from_obj(obj).expect("model")
        };
        let (x, y) = (node("x"), node("y"));
        assert!(x.images[0].0.shares(&y.images[0].0) && x.images[1].0.shares(&y.images[1].0));
        assert!(!x.images[0].0.shares(&x.images[1].0) && x.images[2].0.is_empty());
        assert_eq!(
            ["reg/a@sha256:0f", "reg/b:2", "reg/c:3"].map(|n| y.image_size(n)),
            [Some(5), Some(7), None]
        );
    }

    #[test]
    fn pods_read_on_one_thread_on_one_node_share_its_name() {
        let on = |node: &str| pod(serde_json::json!({"containers": [{"name": "c"}], "nodeName": node}));
        let (a, b, c) = (on("node-1"), on("node-1"), on("node-2"));
        let name = |p: &super::Pod| p.node_name.clone().expect("bound");
        assert!(name(&a).shares(&name(&b)) && !name(&a).shares(&name(&c)));
        assert_eq!((&*name(&b), &*name(&c), on("").node_name), ("node-1", "node-2", None));
    }

    #[test]
    fn pods_read_on_one_thread_with_equal_tolerations_share_one_list() {
        let tolerating = |key: &str| {
            serde_json::json!({"containers": [{"name": "c"}], "tolerations": [
                {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "gpu", "operator": "Equal", "value": "a100"}]})
        };
        let (a, b, c) = (
            pod(tolerating("not-ready")),
            pod(tolerating("not-ready")),
            pod(tolerating("unreachable")),
        );
        assert!(a.tolerations.shares(&b.tolerations) && !a.tolerations.shares(&c.tolerations));
        let t = &c.tolerations[0];
        assert_eq!(
            (t.key.as_str(), t.operator.as_str(), t.value.as_str(), t.effect.as_str()),
            ("unreachable", "Exists", "", "NoExecute")
        );
        assert_eq!((c.tolerations.len(), c.tolerations[1].value.as_str()), (2, "a100"));
        assert!(
            pod(serde_json::json!({"containers": [{"name": "c"}]}))
                .tolerations
                .is_empty()
        );
    }

    #[test]
    fn pods_read_on_one_thread_with_equal_affinities_share_one() {
        let anti = |app: &str| {
            serde_json::json!({"containers": [{"name": "c"}], "affinity": {"podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}}})
        };
        let (a, b, c) = (pod(anti("web")), pod(anti("web")), pod(anti("db")));
        let (a, b, c) = (a.affinity.unwrap(), b.affinity.unwrap(), c.affinity.unwrap());
        assert!(std::sync::Arc::ptr_eq(&a, &b));
        assert!(!std::sync::Arc::ptr_eq(&a, &c));
        let term = |x: &super::core::Affinity| {
            let t = &x
                .pod_anti_affinity
                .as_ref()
                .unwrap()
                .required_during_scheduling_ignored_during_execution
                .as_ref()
                .unwrap()[0];
            t.label_selector.as_ref().unwrap().match_labels.as_ref().unwrap()["app"].clone()
        };
        assert_eq!((term(&a), term(&c)), ("web".to_string(), "db".to_string()));
        assert!(
            pod(serde_json::json!({"containers": [{"name": "c"}]}))
                .affinity
                .is_none()
        );
    }

    #[test]
    fn a_pod_without_a_uid_has_its_key_for_one_without_formatting_it() {
        let named = |ns: &str, name: &str, uid: Option<&str>| {
            let obj: super::core::Pod = serde_json::from_value(serde_json::json!({
                "metadata": {"name": name, "namespace": ns, "uid": uid}, "spec": {"containers": []}}))
            .expect("pod");
            super::Pod::from_obj(obj, |_| 0).expect("model")
        };
        let (a, b, bare) = (named("a", "p", None), named("b", "p", None), named("", "p", None));
        assert!(a.has_uid("a/p") && !a.has_uid("b/p") && !a.has_uid("p") && !a.has_uid("a/q"));
        assert!(bare.has_uid("p") && !bare.has_uid("/p") && !bare.has_uid("a/p"));
        assert!(a.same_uid(&a.clone()) && !a.same_uid(&b) && !a.same_uid(&bare));
        // A pod whose uid is another's key is that pod for the uid's sake, as before.
        let u = named("c", "q", Some("a/p"));
        assert!(u.same_uid(&a) && a.same_uid(&u) && u.has_uid("a/p") && !u.has_uid("c/q"));
    }

    #[test]
    fn usual_scheduler_names_and_phases_are_numbers_others_are_kept() {
        let with = |scheduler: Option<&str>, phase: Option<&str>| {
            let obj: super::core::Pod = serde_json::from_value(serde_json::json!({
                "metadata": {"name": "p", "namespace": "a"},
                "spec": {"containers": [], "schedulerName": scheduler},
                "status": {"phase": phase}}))
            .expect("pod");
            super::Pod::from_obj(obj, |_| 0).expect("model")
        };
        let usual = with(None, Some("Running"));
        assert_eq!(
            (usual.scheduler_name(), usual.phase()),
            ("default-scheduler", "Running")
        );
        assert!(usual.rare.is_none());
        let none = with(Some("default-scheduler"), None);
        assert_eq!(
            (none.scheduler_name(), none.phase(), none.rare.is_none()),
            ("default-scheduler", "", true)
        );
        let other = with(Some("gpu-scheduler"), Some("Evicted"));
        assert_eq!((other.scheduler_name(), other.phase()), ("gpu-scheduler", "Evicted"));
        let finished = with(None, Some("Succeeded"));
        assert!(finished.is_finished() && !usual.is_finished());
    }

    #[test]
    fn the_first_bad_pod_in_input_order_is_the_error_and_a_bad_node_comes_first() {
        use super::{Cluster, Object, Origin};
        let at = |doc: usize| Origin {
            file: "f.yaml".into(),
            doc,
        };
        let bad_pod = |name: &str| {
            let p: super::core::Pod = serde_json::from_value(serde_json::json!({
                "metadata": {"name": name, "namespace": "a"},
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]}}))
            .expect("pod");
            Object::Pod(Box::new(p))
        };
        let good_pod = || {
            let p: super::core::Pod = serde_json::from_value(
                serde_json::json!({"metadata": {"name": "ok", "namespace": "a"}, "spec": {"containers": []}}),
            )
            .expect("pod");
            Object::Pod(Box::new(p))
        };
        // given out of input order: the error is still the one at document 1
        let Err(e) = Cluster::build(vec![
            (at(3), bad_pod("late")),
            (at(2), good_pod()),
            (at(1), bad_pod("early")),
        ]) else {
            panic!("an error")
        };
        assert_eq!(
            (e.key.name.as_str(), e.origin.doc, e.field.as_str()),
            ("early", 1, "spec.containers[0].resources.requests.cpu")
        );
        let bad_node: super::core::Node = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "lots"}}}))
        .expect("node");
        let Err(e) = Cluster::build(vec![
            (at(0), bad_pod("first")),
            (at(1), Object::Node(Box::new(bad_node))),
        ]) else {
            panic!("an error")
        };
        assert_eq!((e.kind.as_str(), e.key.name.as_str()), ("Node", "n"));
    }

    #[test]
    fn only_a_pod_with_a_rare_fact_holds_the_rare_box() {
        let plain = pod(serde_json::json!({"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}));
        assert!(plain.rare.is_none());
        assert!(plain.host_ports().is_empty() && plain.pvc_claims().is_empty());
        assert_eq!(
            (plain.nominated_node_name(), plain.requests_pod_level().is_none()),
            (None, true)
        );
        let ports = pod(serde_json::json!({
            "containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080}]}],
            "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]
        }));
        assert_eq!(ports.host_ports().iter().map(|h| h.port).collect::<Vec<_>>(), [8080]);
        assert_eq!(ports.pvc_claims(), ["data"]);
        // Nominating a plain pod gives it the box; clearing the nomination takes it away.
        let mut p = plain.clone();
        p.set_nominated_node_name(Some("n1".into()));
        assert_eq!(p.nominated_node_name(), Some("n1"));
        p.set_nominated_node_name(None);
        assert!(p.rare.is_none());
        // Pods that request the same share one copy of the requests; others have their own.
        let same = pod(serde_json::json!({"containers": [{"name": "d", "resources": {"requests": {"cpu": "1"}}}]}));
        assert!(std::sync::Arc::ptr_eq(&plain.requests, &same.requests));
        assert!(!std::sync::Arc::ptr_eq(&plain.requests, &ports.requests));
        assert_eq!(
            (plain.requests.resource.milli_cpu, ports.requests.resource.milli_cpu),
            (1000, 0)
        );
        // ... but not the other facts of a pod that has them.
        let mut q = ports.clone();
        q.set_nominated_node_name(Some("n1".into()));
        q.set_nominated_node_name(None);
        assert_eq!(q.pvc_claims(), ["data"]);
    }
}
