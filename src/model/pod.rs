//! A pod as the engine reads it ([`Pod`]), read from its object with what the loader shares
//! ([`Pod::read`]): requests, tolerations, host ports, the status-reported resources.

use super::*;

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

impl From<&k8s_openapi::api::core::v1::Toleration> for Toleration {
    /// The API's toleration with its absent fields empty, as the scheduler reads them.
    fn from(t: &k8s_openapi::api::core::v1::Toleration) -> Self {
        Toleration {
            key: t.key.clone().unwrap_or_default(),
            operator: t.operator.clone().unwrap_or_default(),
            value: t.value.clone().unwrap_or_default(),
            effect: t.effect.clone().unwrap_or_default(),
        }
    }
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
    /// What the API server would refuse in the pod ([`validation::pod`]), as it words it.
    pub refused: Box<[String]>,
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
            && self.refused.is_empty()
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
    /// spec.nodeName, shared with the pods the loader read lately that run on the same node
    /// (a node holds tens of pods: one name for them all instead of a copy each).
    pub node_name: Option<ThinStr>,
    /// spec.schedulerName as its place in [`USUAL_SCHEDULERS`], or [`UNUSUAL`] (the name is
    /// then in [`PodRare`]): [`Pod::scheduler_name`].
    pub(super) scheduler: u8,
    /// status.phase as its place in [`USUAL_PHASES`], or [`UNUSUAL`]: [`Pod::phase`].
    pub(super) phase: u8,
    /// Resolved priority.
    pub priority: i32,
    /// Effective requests (as 1.30 and 1.31 compute them), shared with the pods that request
    /// the same ([`resources::shared_requests`]).
    pub requests: Arc<PodRequests>,
    /// What few pods have, boxed together: none for most ([`PodRare`]).
    pub(super) rare: Option<Box<PodRare>>,
    /// spec.tolerations.
    pub tolerations: list::List<Toleration>,
    /// metadata.creationTimestamp ([`Pod::creation`], [`Pod::cmp_creation`]).
    pub(super) created: Created,
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

    /// What the API server would refuse in the pod, in its words (`spec.containers: Required
    /// value`, ...): empty for a pod it would accept. Checked for every release kschedtui
    /// reproduces (tolerations may use `Lt` / `Gt`).
    pub fn refused(&self) -> &[String] {
        self.rare.as_ref().map_or(&[], |r| &r.refused)
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
    /// empty when it names none, shared by the pods a loader reads ([`Interner`]). A loader
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
    pub(super) fn resolve_in_place(&mut self, priority_of: impl FnOnce(Option<&str>) -> i32) -> &Pod {
        if let Some(class) = self.class.take() {
            let priority = priority_of(Some(&*class).filter(|c| !c.is_empty()));
            // unique until the cluster holds it: set in place, not copied; a pod a live store
            // shares with the cluster is copied only when its priority changed
            if self.pod.priority != priority {
                Arc::make_mut(&mut self.pod).priority = priority;
            }
        }
        &self.pod
    }
}

/// How many priority class names an interner keeps to share ([`ReadPod`]).
const CLASSES_PER_INTERNER: usize = 1024;

/// How many node names an interner keeps to share ([`Pod::node_name`]): a name per node of the
/// largest clusters (at 65k nodes each is shared by fifteen pods; cleared every 4,096 names, a
/// name would be shared by one).
const NODES_PER_INTERNER: usize = 1 << 17;

impl Pod {
    /// Builds the pod model (sharing nothing with other pods); `priority` resolves
    /// priorityClassName when spec.priority is absent.
    pub fn from_obj(
        obj: impl Into<Box<core::Pod>>,
        priority_of: impl FnOnce(Option<&str>) -> i32,
    ) -> Result<Self, (String, String)> {
        Ok(Arc::unwrap_or_clone(
            Pod::read(obj.into(), None, None, &mut Interner::default())?.resolve(priority_of),
        ))
    }

    /// Reads the pod's facts, its priority left to [`ReadPod::resolve`]. With `text` (the
    /// object's JSON, which decodes to `obj`), the stored object keeps that text instead of
    /// serializing `obj` again: as a slice of `file` when the text lies in it and is compact.
    /// Its labels, requests, tolerations, affinity, node name and priority class name are
    /// shared with the equal ones of the pods `intern` read before.
    pub fn read(
        obj: Box<core::Pod>,
        text: Option<&str>,
        file: Option<&bytes::Bytes>,
        intern: &mut Interner,
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
            None => {
                let name = spec.priority_class_name.as_deref().unwrap_or("");
                Some(share::share_up_to::<_, _, str>(
                    &mut intern.classes,
                    name,
                    ThinStr::from,
                    CLASSES_PER_INTERNER,
                ))
            }
        };
        let tolerations = spec
            .tolerations
            .iter()
            .flatten()
            .map(Toleration::from)
            .collect::<Vec<_>>();
        let tolerations = if tolerations.is_empty() {
            list::List::new()
        } else {
            share::share::<_, _, [_]>(&mut intern.tolerations, tolerations, list::List::from)
        };
        let status = obj
            .status
            .as_ref()
            .unwrap_or_else(|| EMPTY_STATUS.get_or_init(core::PodStatus::default));
        let status_spec = status_adjusted_spec(spec, status, &rspec)?;
        let requests_status = status_spec
            .as_ref()
            .map(|s| Box::new(pod_requests_v132(s, false, &mut intern.resources)));
        let requests_pod_level = rspec.pod_level.is_some().then(|| {
            Box::new(pod_requests_v132(
                status_spec.as_ref().unwrap_or(&rspec),
                true,
                &mut intern.resources,
            ))
        });
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
                Some(Box::new(pod_requests_v132(&adjusted, true, &mut intern.resources)))
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
            refused: validation::pod(&obj, validation::Accept::ANY_RELEASE).into(),
        };
        let pod = Pod {
            uid: obj.metadata.uid.as_deref().unwrap_or_default().into(),
            labels: obj
                .metadata
                .labels
                .as_ref()
                .map(|m| Labels::shared(m, &mut intern.labels))
                .unwrap_or_default(),
            node_name: spec
                .node_name
                .as_deref()
                .filter(|n| !n.is_empty())
                .map(|n| share::share_up_to::<_, _, str>(&mut intern.node_names, n, ThinStr::from, NODES_PER_INTERNER)),
            scheduler,
            priority: spec.priority.unwrap_or(0),
            terminating: obj.metadata.deletion_timestamp.is_some(),
            gated: spec.scheduling_gates.as_ref().is_some_and(|g| !g.is_empty()),
            requests: resources::shared_requests(pod_requests(&rspec, &mut intern.resources), &mut intern.resources),
            tolerations,
            created,
            phase,
            affinity: spec
                .affinity
                .as_ref()
                .map(|a| share::share_recent(&mut intern.affinities, a)),
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
