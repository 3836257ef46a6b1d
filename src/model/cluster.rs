//! The cluster the engine explains ([`Cluster`]) and how it is built from the objects read
//! (`build_with_pods`): the pods and nodes, their pod groups and FailedScheduling events.

use super::*;

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

/// The pods in key order (ties in input order). Pods read by the loader (`merge`) skipped the
/// duplicate check of the typed objects: the first pod (in input order) whose key an earlier
/// pod has is the same error as for any other object.
fn pods_by_key(raw_pods: Vec<(Origin, ReadPod)>, merge: bool) -> Result<Vec<Arc<Pod>>, ModelError> {
    // Each pod with its position in the input, for the sort by key; the origins stay in
    // `raw_pods` (a second list of 100,000 cost its pages) until the duplicate check.
    let mut tagged: Vec<(Arc<Pod>, usize)> = raw_pods
        .iter()
        .enumerate()
        .map(|(i, (_, r))| (r.pod.clone(), i))
        .collect();
    tagged.sort_unstable_by(|a, b| a.0.key.cmp(&b.0.key).then(a.1.cmp(&b.1)));
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
    Ok(tagged.into_iter().map(|(p, _)| p).collect())
}

/// How many of the API server's refusals a load lists one by one: a snapshot of 100,000 pods
/// made from one bad template would otherwise print 100,000 lines.
const REFUSED_LISTED: usize = 20;

/// The warnings for objects the API server would refuse ([`validation`]): one line per error,
/// naming the object and the field, the first [`REFUSED_LISTED`] of them; then how many more.
#[derive(Default)]
struct Refused {
    lines: Vec<String>,
    more_errors: usize,
    more_objects: usize,
}

impl Refused {
    fn note(&mut self, origin: &Origin, kind: &str, name: &str, errors: &[String]) {
        if errors.is_empty() {
            return;
        }
        let room = REFUSED_LISTED.saturating_sub(self.lines.len());
        for e in &errors[..room.min(errors.len())] {
            self.lines
                .push(format!("{origin}: {kind} {name}: the API server would refuse it: {e}"));
        }
        if errors.len() > room {
            self.more_errors += errors.len() - room;
            self.more_objects += 1;
        }
    }

    fn finish(mut self) -> Vec<String> {
        if self.more_errors > 0 {
            self.lines.push(format!(
                "{} more error(s), in {} object(s), that the API server would refuse (only the first {REFUSED_LISTED} are listed)",
                self.more_errors, self.more_objects
            ));
        }
        self.lines
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
        // what the pods and nodes read here share, dropped with the build
        let mut intern = Interner::default();
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
        c.pods.reserve_exact(n_pods);
        c.nodes.reserve_exact(n_nodes);
        let merge = n_read > 0;
        let merge_nodes = !read_nodes.is_empty();
        let read_already = (merge, merge_nodes);
        let pod_error = c.store_objects(objects, read_already, &mut raw_pods, &mut raw_nodes, &mut intern)?;
        if merge_nodes {
            duplicate_node(&raw_nodes, &read_nodes)?;
        }
        let mut refused = Refused::default();
        c.add_nodes(raw_nodes, read_nodes, &mut intern, &mut refused)?;
        // Input order: by file (read in name order), then by document. The pods read come
        // first, in input order, and a stable sort of 100,000 would take a copy of them as
        // scratch: sorted only when typed pods came too.
        if !raw_pods.is_sorted_by(|a, b| (&*a.0.file, a.0.doc) <= (&*b.0.file, b.0.doc)) {
            raw_pods.sort_by(|a, b| (&*a.0.file, a.0.doc).cmp(&(&*b.0.file, b.0.doc)));
        }
        if let Some(e) = pod_error {
            return Err(e);
        }
        c.resolve_priorities(&mut raw_pods, &mut refused);
        c.warnings.extend(refused.finish());
        c.pods = pods_by_key(raw_pods, merge)?;
        c.pdbs.sort_by_key(|p| meta_key(&p.metadata));
        for s in c.storage_classes.values_mut() {
            if s.volume_binding_mode.is_none() {
                s.volume_binding_mode = Some("Immediate".into());
            }
        }
        c.csi_storage_capacities.sort_by_key(|s| meta_key(&s.metadata));
        Ok(c)
    }

    /// Stores the typed objects (events as scheduling events, namespaces' labels), and puts
    /// the pods, read here, and the nodes aside in `raw_pods` and `raw_nodes`. `read_already`:
    /// whether pods and nodes were read by the loader too (their duplicates are checked with
    /// those later). The first pod the model refuses (in input order) is returned, to be
    /// reported after the nodes' errors; any other error ends the build.
    fn store_objects(
        &mut self,
        objects: Vec<(Origin, Object)>,
        read_already: (bool, bool),
        raw_pods: &mut Vec<(Origin, ReadPod)>,
        raw_nodes: &mut Vec<(Origin, Box<core::Node>)>,
        intern: &mut Interner,
    ) -> Result<Option<ModelError>, ModelError> {
        let c = self;
        let (merge, merge_nodes) = read_already;
        let mut seen: BTreeMap<(String, ObjectKey), Origin> = BTreeMap::new();
        let mut events: BTreeMap<ObjectKey, SchedulingEvent> = BTreeMap::new();
        let mut pod_error = None;
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
            match kinds::store(c, key.clone(), obj) {
                Ok(()) => {}
                Err(Object::Node(n)) => raw_nodes.push((origin, n)),
                // Read here, its error (the first in input order) said where the pods' are
                Err(Object::Pod(p)) => match Pod::read(p, None, None, intern) {
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
        Ok(pod_error)
    }

    /// Reads the typed nodes and adds them with the nodes the loader read, sorted by name.
    fn add_nodes(
        &mut self,
        raw_nodes: Vec<(Origin, Box<core::Node>)>,
        read_nodes: Vec<(Origin, Arc<Node>)>,
        intern: &mut Interner,
        refused: &mut Refused,
    ) -> Result<(), ModelError> {
        for (origin, n) in raw_nodes {
            let key = meta_key(&n.metadata);
            let node = Node::read(*n, None, None, intern).map_err(|(field, message)| ModelError {
                origin: origin.clone(),
                kind: "Node".into(),
                key,
                field,
                message,
            })?;
            refused.note(&origin, "Node", &node.name, &node.refused);
            self.nodes.push(Arc::new(node));
        }
        for (origin, n) in &read_nodes {
            refused.note(origin, "Node", &n.name, &n.refused);
        }
        self.nodes.extend(read_nodes.into_iter().map(|(_, n)| n));
        self.nodes.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(())
    }

    /// Resolves each pod's priority (its priorityClassName against the cluster's
    /// PriorityClasses, the global default otherwise) and warns of a class or a node the
    /// snapshot lacks.
    fn resolve_priorities(&mut self, raw_pods: &mut [(Origin, ReadPod)], refused: &mut Refused) {
        let c = self;
        let global_default = c.global_default_priority();
        // the nodes by name, for each bound pod's check (a hash, not a search of 65,000 names)
        let node_names: std::collections::HashSet<&str> = c.nodes.iter().map(|n| n.name.as_str()).collect();
        for (origin, read) in raw_pods {
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
            refused.note(origin, "Pod", &key.to_string(), pod.refused());
        }
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

    /// The value of the PriorityClass marked globalDefault (the highest if several are), the
    /// priority of a pod without a priorityClassName; None when no class is.
    pub fn global_default_priority(&self) -> Option<i32> {
        self.priority_classes
            .values()
            .filter(|p| p.global_default == Some(true))
            .map(|p| p.value.unwrap_or(0))
            .max()
    }

    /// Pending pods in PrioritySort order ([`queue_order`]).
    pub fn pending_pods(&self) -> Vec<&Arc<Pod>> {
        let mut v: Vec<&Arc<Pod>> = self.pods.iter().filter(|p| p.is_pending()).collect();
        v.sort_by(|a, b| queue_order(a, b));
        v
    }
}

/// PrioritySort's order of pending pods: higher priority first, then earlier creation, then
/// key (a total order: no two pods share a key).
pub fn queue_order(a: &Pod, b: &Pod) -> std::cmp::Ordering {
    b.priority
        .cmp(&a.priority)
        .then_with(|| a.cmp_creation(b))
        .then_with(|| a.key.cmp(&b.key))
}
