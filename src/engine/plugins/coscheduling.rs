//! Port of kubernetes-sigs/scheduler-plugins pkg/coscheduling (coscheduling.go and
//! core/core.go at d250c4b9, the release built on kube-scheduler v1.30.6): gang scheduling with
//! PodGroup objects (scheduling.x-k8s.io/v1alpha1) and the `scheduling.x-k8s.io/pod-group` label.
//!
//! - QueueSort: priority, then the PodGroup's creation time (the pod's own time when it has no
//!   group), then `namespace/name`.
//! - PreFilter: rejects a member of a group that failed recently (podGroupBackoffSeconds), that
//!   has fewer pods than minMember, or whose minResources (plus `pods: minMember`) the cluster
//!   cannot hold even with the group's own pods removed.
//! - PostFilter: when a member cannot be placed and the group lacks more than 10% of its quorum,
//!   rejects every waiting member.
//! - Permit: Success when the members already placed plus this one reach minMember (and then
//!   allows every waiting member), else Wait for scheduleTimeoutSeconds (or the plugin's
//!   permitWaitingTimeSeconds).
//! - Reserve does nothing; Unreserve rejects every waiting member.
//!
//! Plugin caches (the PodGroups that passed the resource check, the ones backing off) live in
//! the framework handle, on its clock.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::handle::{FrameworkHandle, MAX_PERMIT_TIMEOUT};
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{
    Ctx, PermitPlugin, Plugin, PluginSlots, PluginsRunner, PostFilterPlugin, PreFilterPlugin, QueueSortPlugin,
    ReservePlugin,
};
use crate::engine::framework::snapshot::Snapshot;
use crate::engine::framework::status::{Code, Status};
use crate::engine::framework::trace::{GangTrace, PostFilterTrace, WaitingMember};
use crate::engine::release::Features;
use crate::model::{Cluster, Pod, PodGroup};

/// The pod-group label (`v1alpha1.PodGroupLabel`).
pub(crate) const POD_GROUP_LABEL: &str = "scheduling.x-k8s.io/pod-group";
/// `util.DefaultWaitTime`.
pub(crate) const DEFAULT_WAIT_TIME: Duration = Duration::from_secs(60);
/// Default permitWaitingTimeSeconds (apis/config/v1/defaults.go).
pub(crate) const DEFAULT_PERMIT_WAITING_TIME_SECONDS: i64 = 60;
/// Permit's rejection when the labelled PodGroup does not exist.
pub(crate) const ERR_POD_GROUP_NOT_FOUND: &str = "PodGroup not found";
/// PostFilter's rejection for a pod without a group.
pub(crate) const ERR_NO_POD_GROUP: &str = "can not find pod group";
/// The message of a rejection by PostFilter.
pub(crate) const MSG_POST_FILTER_REJECTION: &str = "optimistic rejection in PostFilter";
/// The message of a rejection by Unreserve.
pub(crate) const MSG_UNRESERVE_REJECTION: &str = "rejection in Unreserve";

const PERMITTED_CACHE: &str = "Coscheduling/permittedPG";
const BACKOFF_CACHE: &str = "Coscheduling/backedOffPG";

/// CoschedulingArgs (apis/config/v1): both optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Args {
    /// permitWaitingTimeSeconds (default 60).
    #[serde(default)]
    pub permit_waiting_time_seconds: Option<i64>,
    /// podGroupBackoffSeconds (default 0: no backoff).
    #[serde(default)]
    pub pod_group_backoff_seconds: Option<i64>,
}

/// Coscheduling.
pub(crate) struct Coscheduling {
    /// `scheduleTimeout` (from permitWaitingTimeSeconds).
    pub schedule_timeout: Duration,
    /// `pgBackoff` (None when podGroupBackoffSeconds is 0).
    pub pg_backoff: Option<Duration>,
}

/// The value of a pod's pod-group label ("" when absent).
pub(crate) fn pod_group_label(pod: &Pod) -> &str {
    pod.labels.get(POD_GROUP_LABEL).map_or("", String::as_str)
}

/// `util.GetPodGroupFullName`: `namespace/label`, or "" without the label.
pub(crate) fn pod_group_full_name(pod: &Pod) -> String {
    let l = pod_group_label(pod);
    if l.is_empty() {
        String::new()
    } else {
        format!("{}/{l}", pod.key.namespace)
    }
}

/// `GetPodGroup`: the full name and the PodGroup object, if it exists.
pub(crate) fn get_pod_group<'a>(cluster: &'a Cluster, pod: &Pod) -> (String, Option<&'a PodGroup>) {
    let l = pod_group_label(pod);
    if l.is_empty() {
        return (String::new(), None);
    }
    let pg = cluster.pod_groups.iter().find(|g| {
        g.metadata.name.as_deref() == Some(l) && g.metadata.namespace.as_deref().unwrap_or("") == pod.key.namespace
    });
    (format!("{}/{l}", pod.key.namespace), pg)
}

/// The pods of a group as the pod lister lists them: not finished, in the namespace, with the
/// label (the pod being scheduled included).
pub(crate) fn group_pods<'a>(cluster: &'a Cluster, namespace: &str, label: &str) -> Vec<&'a Arc<Pod>> {
    cluster
        .pods
        .iter()
        .filter(|p| !p.is_finished() && p.key.namespace == namespace && pod_group_label(p) == label)
        .collect()
}

/// `CalculateAssignedPods`: members on a node of the snapshot (bound or assumed).
pub(crate) fn calculate_assigned_pods(snapshot: &Snapshot, pg_name: &str, namespace: &str) -> usize {
    snapshot
        .nodes
        .iter()
        .flat_map(|n| n.pods.iter())
        .filter(|p| pod_group_label(&p.pod) == pg_name && p.pod.key.namespace == namespace && p.pod.node_name.is_some())
        .count()
}

fn pg_name(pg: &PodGroup) -> &str {
    pg.metadata.name.as_deref().unwrap_or("")
}

fn pg_namespace(pg: &PodGroup) -> &str {
    pg.metadata.namespace.as_deref().unwrap_or("")
}

fn creation(pg: &PodGroup) -> Option<k8s_openapi::jiff::Timestamp> {
    pg.metadata.creation_timestamp.as_ref().map(|t| t.0)
}

/// `util.GetWaitTimeDuration`.
pub(crate) fn wait_time(pg: Option<&PodGroup>, schedule_timeout: Duration) -> Duration {
    if let Some(s) = pg.and_then(|p| p.spec.schedule_timeout_seconds) {
        return Duration::from_secs(u64::try_from(s).unwrap_or(0));
    }
    if !schedule_timeout.is_zero() {
        return schedule_timeout;
    }
    DEFAULT_WAIT_TIME
}

impl Coscheduling {
    /// `GetCreationTimestamp`: the group's creation time, else the pod's (standing in for its
    /// first queue time).
    fn creation_time(&self, cluster: &Cluster, pod: &Pod) -> Option<k8s_openapi::jiff::Timestamp> {
        match get_pod_group(cluster, pod) {
            (_, Some(pg)) => creation(pg),
            _ => pod.creation(),
        }
    }

    /// The wait Permit asks for.
    pub(crate) fn wait_for(&self, pg: Option<&PodGroup>) -> Duration {
        let wait = wait_time(pg, self.schedule_timeout);
        if wait.is_zero() { self.schedule_timeout } else { wait }
    }

    /// `PodGroupManager.PreFilter`: Err(message) when the pod must wait.
    pub(crate) fn check_pre_filter(&self, snapshot: &Snapshot, pod: &Pod) -> Result<(), String> {
        let (full, pg) = get_pod_group(&snapshot.cluster, pod);
        let Some(pg) = pg else {
            return Ok(());
        };
        let handle = &snapshot.handle;
        if handle.cache_contains(BACKOFF_CACHE, &full) {
            return Err(format!("podGroup {full} failed recently"));
        }
        let pods = group_pods(&snapshot.cluster, &pod.key.namespace, pod_group_label(pod)).len();
        let min = pg.spec.min_member;
        if i64::try_from(pods).unwrap_or(i64::MAX) < i64::from(min) {
            return Err(format!(
                "pre-filter pod {} cannot find enough sibling pods, current pods number: {pods}, minMember of group: {min}",
                pod.key.name
            ));
        }
        let Some(min_resources) = &pg.spec.min_resources else {
            return Ok(());
        };
        if handle.cache_contains(PERMITTED_CACHE, &full) {
            return Ok(());
        }
        let mut request: BTreeMap<String, GoQuantity> = BTreeMap::new();
        for (k, v) in min_resources {
            request.insert(k.clone(), GoQuantity::parse(&v.0));
        }
        request.insert("pods".into(), GoQuantity::new(i64::from(min), 0, QFormat::DecimalSI));
        check_cluster_resource(&snapshot.nodes, request, &full)?;
        handle.cache_add(PERMITTED_CACHE, &full, self.schedule_timeout);
        Ok(())
    }

    /// The waiting members of the pod's group, as `IterateOverWaitingPods` filters them.
    fn waiting_siblings(handle: &FrameworkHandle, namespace: &str, label: &str) -> Vec<Arc<Pod>> {
        handle
            .waiting_pods()
            .into_iter()
            .filter(|w| w.pod.key.namespace == namespace && pod_group_label(&w.pod) == label)
            .map(|w| w.pod)
            .collect()
    }
}

/// `CheckClusterResource`: Ok when the nodes' free resources (with the group's own pods removed)
/// cover `request`; else the "resource gap" error with what remains, printed as Go prints a
/// `v1.ResourceList`.
pub(crate) fn check_cluster_resource(
    nodes: &[NodeInfo],
    mut request: BTreeMap<String, GoQuantity>,
    group: &str,
) -> Result<(), String> {
    for n in nodes {
        let left = node_left_resources(n, group);
        let names: Vec<String> = request.keys().cloned().collect();
        for name in names {
            let Some(q) = request.get_mut(&name) else { continue };
            q.sub(left.get(&name).copied().unwrap_or_default());
            if q.sign() <= 0 {
                request.remove(&name);
            }
        }
        if request.is_empty() {
            return Ok(());
        }
    }
    let mut s = String::from("resource gap: map[");
    for (i, (k, v)) in request.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{k}:{}", v.go_value_string());
    }
    s.push(']');
    Err(s)
}

/// `getNodeResource` + `util.ResourceList`: what is left on a node once the group's pods are
/// taken off it.
fn node_left_resources(n: &NodeInfo, group: &str) -> BTreeMap<String, GoQuantity> {
    let mut requested = n.requested.clone();
    let mut pods = n.pods.len();
    for p in &n.pods {
        if pod_group_full_name(&p.pod) == group {
            requested.add_scaled(&p.requests().resource, -1);
            pods -= 1;
        }
    }
    let alloc = n.allocatable();
    let mut out = BTreeMap::new();
    out.insert(
        "cpu".to_string(),
        GoQuantity::new(alloc.milli_cpu - requested.milli_cpu, -3, QFormat::DecimalSI),
    );
    out.insert(
        "memory".to_string(),
        GoQuantity::new(alloc.memory - requested.memory, 0, QFormat::BinarySI),
    );
    out.insert(
        "pods".to_string(),
        GoQuantity::new(
            alloc.allowed_pod_number - i64::try_from(pods).unwrap_or(i64::MAX),
            0,
            QFormat::BinarySI,
        ),
    );
    out.insert(
        "ephemeral-storage".to_string(),
        GoQuantity::new(
            alloc.ephemeral_storage - requested.ephemeral_storage,
            0,
            QFormat::BinarySI,
        ),
    );
    for (k, a) in &alloc.scalar {
        let v = a - requested.scalar.get(k).copied().unwrap_or(0);
        let f = if k.starts_with("hugepages-") {
            QFormat::BinarySI
        } else {
            QFormat::DecimalSI
        };
        out.insert(k.clone(), GoQuantity::new(v, 0, f));
    }
    out
}

/// apimachinery's Quantity format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum QFormat {
    /// Unset (the zero Quantity).
    #[default]
    None,
    /// DecimalSI.
    DecimalSI,
    /// BinarySI.
    BinarySI,
    /// DecimalExponent.
    DecimalExponent,
}

impl QFormat {
    fn as_str(self) -> &'static str {
        match self {
            QFormat::None => "",
            QFormat::DecimalSI => "DecimalSI",
            QFormat::BinarySI => "BinarySI",
            QFormat::DecimalExponent => "DecimalExponent",
        }
    }
}

/// An apimachinery `resource.Quantity` held as its `int64Amount` (value × 10^scale), the form in
/// which `CheckClusterResource` subtracts and Go prints it. Quantities that apimachinery keeps
/// as an `inf.Dec` (fractions of binary suffixes, values beyond int64) are flagged `dec`; Go
/// prints those with a pointer address, which kschedtui cannot reproduce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct GoQuantity {
    /// Unscaled value.
    pub value: i64,
    /// Decimal scale.
    pub scale: i32,
    /// Format.
    pub format: QFormat,
    /// Held as an inf.Dec by apimachinery (approximated here with value/scale).
    pub dec: bool,
}

impl GoQuantity {
    /// `resource.NewQuantity` (scale 0) / `NewMilliQuantity` (scale -3).
    pub(crate) fn new(value: i64, scale: i32, format: QFormat) -> Self {
        GoQuantity {
            value,
            scale,
            format,
            dec: false,
        }
    }

    /// `resource.ParseQuantity`'s int64 fast path (the text is valid: the loader checked it).
    pub(crate) fn parse(s: &str) -> Self {
        if s == "0" {
            return GoQuantity::new(0, 0, QFormat::DecimalSI);
        }
        let b = s.as_bytes();
        let mut pos = 0;
        let mut positive = true;
        if let Some(&c) = b.first()
            && (c == b'-' || c == b'+')
        {
            positive = c == b'+';
            pos = 1;
        }
        while pos < b.len() && b[pos] == b'0' {
            pos += 1;
        }
        let start = pos;
        while pos < b.len() && b[pos].is_ascii_digit() {
            pos += 1;
        }
        let mut num = &s[start..pos];
        if num.is_empty() {
            num = "0";
        }
        let mut denom = "";
        if pos < b.len() && b[pos] == b'.' {
            pos += 1;
            let ds = pos;
            while pos < b.len() && b[pos].is_ascii_digit() {
                pos += 1;
            }
            denom = &s[ds..pos];
        }
        let suffix = &s[pos..];
        let (exponent, format, binary) = match suffix {
            "" => (0, QFormat::DecimalSI, false),
            "n" => (-9, QFormat::DecimalSI, false),
            "u" => (-6, QFormat::DecimalSI, false),
            "m" => (-3, QFormat::DecimalSI, false),
            "k" => (3, QFormat::DecimalSI, false),
            "M" => (6, QFormat::DecimalSI, false),
            "G" => (9, QFormat::DecimalSI, false),
            "T" => (12, QFormat::DecimalSI, false),
            "P" => (15, QFormat::DecimalSI, false),
            "E" => (18, QFormat::DecimalSI, false),
            "Ki" => (10, QFormat::BinarySI, true),
            "Mi" => (20, QFormat::BinarySI, true),
            "Gi" => (30, QFormat::BinarySI, true),
            "Ti" => (40, QFormat::BinarySI, true),
            "Pi" => (50, QFormat::BinarySI, true),
            "Ei" => (60, QFormat::BinarySI, true),
            e => (
                e.get(1..).and_then(|x| x.parse::<i32>().ok()).unwrap_or(0),
                QFormat::DecimalExponent,
                false,
            ),
        };
        let digits = i32::try_from(num.len() + denom.len()).unwrap_or(i32::MAX);
        let (mut scale, precision, mantissa) = if binary {
            if denom.is_empty() {
                #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
                let p = 15 - i32::try_from(num.len()).unwrap_or(i32::MAX) - (exponent as f32 * 3.0 / 10.0) as i32 - 1;
                (0, p, 1i64 << exponent)
            } else {
                (0, -1, 1)
            }
        } else {
            (exponent, 18 - digits, 1)
        };
        if precision >= 0 {
            scale -= i32::try_from(denom.len()).unwrap_or(i32::MAX);
            if scale >= -9
                && let Ok(v) = format!("{num}{denom}").parse::<i64>()
                && let Some(r) = v.checked_mul(mantissa)
            {
                return GoQuantity::new(if positive { r } else { -r }, scale, format);
            }
        }
        // The inf.Dec path: keep an approximation in nano-units.
        let q = crate::model::quantity::Quantity::parse(s).unwrap_or_default();
        GoQuantity {
            value: i64::try_from(q.nanos()).unwrap_or(i64::MAX),
            scale: -9,
            format,
            dec: true,
        }
    }

    /// `Quantity.Sign`.
    pub(crate) fn sign(&self) -> i64 {
        self.value.signum()
    }

    /// `Quantity.Sub` on the int64 amount (`int64Amount.Add` of the negation).
    pub(crate) fn sub(&mut self, y: GoQuantity) {
        if self.value == 0 {
            self.format = y.format;
        }
        self.dec |= y.dec;
        let b = GoQuantity { value: -y.value, ..y };
        if b.value == 0 {
            return;
        }
        if self.value == 0 {
            self.value = b.value;
            self.scale = b.scale;
            return;
        }
        let (lo, a_v, b_v) = match self.scale.cmp(&b.scale) {
            Ordering::Equal => (self.scale, Some(self.value), Some(b.value)),
            Ordering::Greater => (b.scale, scale_up(self.value, self.scale - b.scale), Some(b.value)),
            Ordering::Less => (self.scale, Some(self.value), scale_up(b.value, b.scale - self.scale)),
        };
        match (a_v, b_v) {
            (Some(x), Some(y)) if x.checked_add(y).is_some() => {
                self.value = x + y;
                self.scale = lo;
            }
            _ => {
                // apimachinery falls back to inf.Dec; keep a saturated approximation.
                self.dec = true;
                self.value = a_v.unwrap_or(i64::MAX).saturating_add(b_v.unwrap_or(i64::MIN));
                self.scale = lo;
            }
        }
    }

    /// How Go's `%v` prints a `Quantity` value inside a map: its struct fields
    /// `{i:{value scale} d:{Dec} s:"" Format}` (the cached string is empty after `Sub`).
    pub(crate) fn go_value_string(&self) -> String {
        if self.dec {
            format!(
                "{{{{0 0}} {{<inf.Dec {}e{}>}}  {}}}",
                self.value,
                self.scale,
                self.format.as_str()
            )
        } else {
            format!(
                "{{{{{} {}}} {{<nil>}}  {}}}",
                self.value,
                self.scale,
                self.format.as_str()
            )
        }
    }
}

fn scale_up(v: i64, by: i32) -> Option<i64> {
    let mut v = v;
    for _ in 0..by {
        v = v.checked_mul(10)?;
    }
    Some(v)
}

impl Plugin for Coscheduling {
    fn name(&self) -> &'static str {
        names::COSCHEDULING
    }
}

impl QueueSortPlugin for Coscheduling {
    /// `Less`: priority, then creation time (group or pod), then `namespace/name` as a string.
    fn compare(&self, cluster: &Cluster, a: &Pod, b: &Pod) -> Ordering {
        if a.priority != b.priority {
            return b.priority.cmp(&a.priority);
        }
        let (ta, tb) = (self.creation_time(cluster, a), self.creation_time(cluster, b));
        if ta == tb {
            let na = format!("{}/{}", a.key.namespace, a.key.name);
            let nb = format!("{}/{}", b.key.namespace, b.key.name);
            return na.cmp(&nb);
        }
        ta.cmp(&tb)
    }
}

impl PreFilterPlugin for Coscheduling {
    fn pre_filter(
        &self,
        cx: &Ctx<'_>,
        _: &mut CycleState,
        pod: &PodInfo,
    ) -> (Option<std::collections::BTreeSet<String>>, Status) {
        match self.check_pre_filter(cx.snapshot, &pod.pod) {
            Ok(()) => (None, Status::success()),
            Err(e) => (None, Status::unresolvable(e)),
        }
    }
}

impl PostFilterPlugin for Coscheduling {
    fn post_filter(
        &self,
        cx: &Ctx<'_>,
        _: &dyn PluginsRunner,
        _: &CycleState,
        pi: &PodInfo,
        _: &BTreeMap<String, Status>,
    ) -> (PostFilterTrace, Status) {
        let pod = &pi.pod;
        let mut trace = PostFilterTrace::default();
        let (full, pg) = get_pod_group(&cx.snapshot.cluster, pod);
        let Some(pg) = pg else {
            return (trace, Status::unschedulable(ERR_NO_POD_GROUP));
        };
        let assigned = calculate_assigned_pods(cx.snapshot, pg_name(pg), &pod.key.namespace);
        let min = pg.spec.min_member;
        let assigned_i = i64::try_from(assigned).unwrap_or(i64::MAX);
        if assigned_i >= i64::from(min) {
            trace.node_notes.push((
                String::new(),
                format!("{assigned} of minMember {min} already assigned: the group is not rejected"),
            ));
            return (trace, Status::new(Code::Unschedulable, Vec::<String>::new()));
        }
        #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
        let not_assigned = (i64::from(min) - assigned_i) as f32 / min as f32;
        if not_assigned <= 0.1 {
            trace.node_notes.push((
                String::new(),
                format!("{assigned} of minMember {min} assigned: within 10% of the quorum, the group is not rejected"),
            ));
            return (trace, Status::new(Code::Unschedulable, Vec::<String>::new()));
        }
        let handle = &cx.snapshot.handle;
        for w in Coscheduling::waiting_siblings(handle, &pod.key.namespace, pg_name(pg)) {
            handle.reject(&w.key, names::COSCHEDULING, MSG_POST_FILTER_REJECTION);
            trace.node_notes.push((
                w.key.to_string(),
                format!("waiting member rejected: {MSG_POST_FILTER_REJECTION}"),
            ));
        }
        if let Some(b) = self.pg_backoff {
            let pods = group_pods(&cx.snapshot.cluster, &pod.key.namespace, pod_group_label(pod)).len();
            if i64::try_from(pods).unwrap_or(i64::MAX) >= i64::from(min) {
                handle.cache_add(BACKOFF_CACHE, &full, b);
            }
        }
        handle.cache_delete(PERMITTED_CACHE, &full);
        (
            trace,
            Status::unschedulable(format!(
                "PodGroup {full} gets rejected due to Pod {} is unschedulable even after PostFilter",
                pod.key.name
            )),
        )
    }
}

impl ReservePlugin for Coscheduling {
    fn reserve(&self, _: &Ctx<'_>, _: &mut CycleState, _: &PodInfo, _: &str, _: &mut Vec<String>) -> Status {
        Status::success()
    }

    fn unreserve(&self, cx: &Ctx<'_>, _: &mut CycleState, pi: &PodInfo, _: &str, notes: &mut Vec<String>) {
        let pod = &pi.pod;
        let (full, pg) = get_pod_group(&cx.snapshot.cluster, pod);
        let Some(pg) = pg else {
            return;
        };
        let handle = &cx.snapshot.handle;
        for w in Coscheduling::waiting_siblings(handle, &pod.key.namespace, pg_name(pg)) {
            if w.key == pod.key {
                continue;
            }
            handle.reject(&w.key, names::COSCHEDULING, MSG_UNRESERVE_REJECTION);
            notes.push(format!("rejected waiting member {}: {MSG_UNRESERVE_REJECTION}", w.key));
        }
        handle.cache_delete(PERMITTED_CACHE, &full);
    }
}

impl PermitPlugin for Coscheduling {
    fn permit(
        &self,
        cx: &Ctx<'_>,
        _: &mut CycleState,
        pi: &PodInfo,
        _: &str,
        notes: &mut Vec<String>,
    ) -> (Status, Duration) {
        let pod = &pi.pod;
        let (full, pg) = get_pod_group(&cx.snapshot.cluster, pod);
        if full.is_empty() {
            return (Status::success(), Duration::ZERO);
        }
        let Some(pg) = pg else {
            return (Status::unschedulable(ERR_POD_GROUP_NOT_FOUND), Duration::ZERO);
        };
        let assigned = calculate_assigned_pods(cx.snapshot, pg_name(pg), pg_namespace(pg));
        let min = pg.spec.min_member;
        if i64::try_from(assigned).unwrap_or(i64::MAX) + 1 >= i64::from(min) {
            let handle = &cx.snapshot.handle;
            for w in handle.waiting_pods() {
                if pod_group_full_name(&w.pod) == full {
                    handle.allow(&w.pod.key, names::COSCHEDULING);
                    notes.push(format!("allowed waiting member {}", w.pod.key));
                }
            }
            notes.push(format!(
                "quorum reached: {} of minMember {min} assigned with this pod",
                assigned + 1
            ));
            return (Status::success(), Duration::ZERO);
        }
        let wait = self.wait_for(Some(pg)).min(MAX_PERMIT_TIMEOUT);
        notes.push(format!(
            "waiting for the quorum: {} of minMember {min} assigned with this pod",
            assigned + 1
        ));
        (Status::new(Code::Wait, Vec::<String>::new()), wait)
    }

    fn gang(&self, cx: &Ctx<'_>, pi: &PodInfo) -> Option<GangTrace> {
        let pod = &pi.pod;
        let (full, pg) = get_pod_group(&cx.snapshot.cluster, pod);
        if full.is_empty() {
            return None;
        }
        let label = pod_group_label(pod);
        let handle = &cx.snapshot.handle;
        let now = handle.now_ms();
        let waiting = Coscheduling::waiting_siblings(handle, &pod.key.namespace, label)
            .into_iter()
            .filter(|p| p.key != pod.key)
            .filter_map(|p| {
                let all = handle.with(|s| s.waiting.get(&p.key).cloned());
                all.map(|w| w.member(now))
            })
            .collect::<Vec<WaitingMember>>();
        let members = group_pods(&cx.snapshot.cluster, &pod.key.namespace, label);
        let unplaced = members
            .iter()
            .filter(|p| p.key != pod.key && p.node_name.is_none() && !waiting.iter().any(|w| w.pod == p.key))
            .map(|p| p.key.clone())
            .collect();
        let assigned = calculate_assigned_pods(cx.snapshot, label, &pod.key.namespace)
            .saturating_sub(usize::from(pod.node_name.is_some()));
        Some(GangTrace {
            plugin: names::COSCHEDULING.into(),
            group: full,
            found: pg.is_some(),
            min_member: pg.map_or(0, |g| g.spec.min_member),
            members: members.len(),
            assigned,
            timeout_ms: u64::try_from(self.wait_for(pg).min(MAX_PERMIT_TIMEOUT).as_millis()).unwrap_or(u64::MAX),
            waiting,
            unplaced,
            placement_feasible: None,
            held_with: None,
        })
    }
}

/// Registers Coscheduling (QueueSort, PreFilter, PostFilter, Reserve, Permit).
pub(crate) fn register(args: &Value, _: &Features) -> Result<PluginSlots, String> {
    let a: Args = super::decode_args(args)?;
    let backoff = a.pod_group_backoff_seconds.unwrap_or(0);
    if backoff < 0 {
        return Err("parse arguments failed: podGroupBackoffSeconds cannot be negative".into());
    }
    let permit = a
        .permit_waiting_time_seconds
        .unwrap_or(DEFAULT_PERMIT_WAITING_TIME_SECONDS);
    let pl = Arc::new(Coscheduling {
        schedule_timeout: Duration::from_secs(u64::try_from(permit).unwrap_or(0)),
        pg_backoff: (backoff > 0).then(|| Duration::from_secs(u64::try_from(backoff).unwrap_or(0))),
    });
    Ok(PluginSlots {
        queue_sort: true,
        queue_sorter: Some(pl.clone()),
        pre_filter: Some(pl.clone()),
        post_filter: Some(pl.clone()),
        reserve: Some(pl.clone()),
        permit: Some(pl),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Framework;
    use crate::engine::Release;
    use crate::model::ObjectKey;
    use crate::source::file::load_str;
    use serde_json::json;

    /// `st.MakeNode().Name(n).Capacity({cpu: c})`: pods 32.
    fn node(name: &str, cpu: &str) -> Value {
        let r = json!({"cpu": cpu, "pods": "32"});
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
               "status": {"capacity": r, "allocatable": r}})
    }

    struct P<'a> {
        ns: &'a str,
        name: &'a str,
        group: Option<&'a str>,
        node: Option<&'a str>,
        cpu: Option<&'a str>,
        priority: Option<i32>,
        created: Option<&'a str>,
    }

    fn p<'a>(ns: &'a str, name: &'a str) -> P<'a> {
        P {
            ns,
            name,
            group: None,
            node: None,
            cpu: None,
            priority: None,
            created: None,
        }
    }

    impl<'a> P<'a> {
        fn group(mut self, g: &'a str) -> Self {
            self.group = Some(g);
            self
        }
        fn node(mut self, n: &'a str) -> Self {
            self.node = Some(n);
            self
        }
        fn cpu(mut self, c: &'a str) -> Self {
            self.cpu = Some(c);
            self
        }
        fn priority(mut self, v: i32) -> Self {
            self.priority = Some(v);
            self
        }
        fn created(mut self, t: &'a str) -> Self {
            self.created = Some(t);
            self
        }
        fn obj(&self) -> Value {
            let mut md = json!({"name": self.name, "namespace": self.ns, "uid": self.name});
            if let Some(g) = self.group {
                md["labels"] = json!({POD_GROUP_LABEL: g});
            }
            if let Some(t) = self.created {
                md["creationTimestamp"] = json!(t);
            }
            let mut c = json!({"name": "c"});
            if let Some(cpu) = self.cpu {
                c["resources"] = json!({"requests": {"cpu": cpu}});
            }
            let mut spec = json!({"containers": [c]});
            if let Some(n) = self.node {
                spec["nodeName"] = json!(n);
            }
            if let Some(v) = self.priority {
                spec["priority"] = json!(v);
            }
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec})
        }
    }

    /// `tu.MakePodGroup().Name(n).Namespace(ns).MinMember(m)[.MinResources(..)][.Time(t)]`.
    fn pg(ns: &str, name: &str, min: i32, min_cpu: Option<&str>, created: Option<&str>) -> Value {
        let mut v = json!({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                           "metadata": {"name": name, "namespace": ns}, "spec": {"minMember": min}});
        if let Some(c) = min_cpu {
            v["spec"]["minResources"] = json!({"cpu": c});
        }
        if let Some(t) = created {
            v["metadata"]["creationTimestamp"] = json!(t);
        }
        v
    }

    fn snapshot(items: Vec<Value>, persistent: bool) -> Snapshot {
        let text = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
        let mut s = Snapshot::new(Arc::new(load_str("test.json", &text).unwrap()), Release::NEWEST);
        if persistent {
            s.handle = FrameworkHandle::persistent();
        }
        s
    }

    fn plugin(timeout_s: u64, backoff_s: Option<u64>) -> Coscheduling {
        Coscheduling {
            schedule_timeout: Duration::from_secs(timeout_s),
            pg_backoff: backoff_s.map(Duration::from_secs),
        }
    }

    fn pi(s: &Snapshot, ns: &str, name: &str) -> Arc<PodInfo> {
        s.pod_infos[&ObjectKey::new(ns, name)].clone()
    }

    #[test]
    fn pre_filter_cases_of_core_test() {
        // core/core_test.go TestPreFilter: two nodes with 4 CPUs each.
        let nodes = || vec![node("node-a", "4"), node("node-b", "4")];
        type Case<'a> = (&'a str, Vec<Value>, (&'a str, &'a str), Result<(), String>);
        let cases: Vec<Case<'_>> =
            vec![
            (
                "pod does not belong to any pg",
                vec![
                    p("ns", "p1").group("pg1").obj(),
                    p("ns", "p2").group("pg2").obj(),
                    p("", "p").obj(),
                    pg("ns", "pg1", 1, None, None),
                    pg("ns", "pg2", 1, None, None),
                ],
                // a pod written without a namespace is loaded into "default"
                ("default", "p"),
                Ok(()),
            ),
            (
                "pod belongs to a non-existent pg",
                vec![p("ns", "p").group("pg-non-existent").obj(), pg("ns", "pg1", 1, None, None)],
                ("ns", "p"),
                Ok(()),
            ),
            (
                // Upstream's table keeps the pod itself out of the pod lister (0 pods); in a
                // snapshot the pod is listed, as it is in a running scheduler.
                "pod count less than minMember",
                vec![
                    p("ns", "pg2-1").group("pg2").obj(),
                    p("ns", "p").group("pg1").obj(),
                    pg("ns", "pg1", 2, None, None),
                    pg("ns", "pg2", 2, None, None),
                ],
                ("ns", "p"),
                Err("pre-filter pod p cannot find enough sibling pods, current pods number: 1, minMember of group: 2"
                    .into()),
            ),
            (
                "pod count equal minMember",
                vec![
                    p("ns", "p1b").group("pg1").obj(),
                    p("ns", "p1a").group("pg1").obj(),
                    pg("ns", "pg1", 2, None, None),
                    pg("ns", "pg2", 2, None, None),
                ],
                ("ns", "p1a"),
                Ok(()),
            ),
            (
                "pod count more than minMember",
                vec![
                    p("ns", "p1b").group("pg1").obj(),
                    p("ns", "p1c").group("pg1").obj(),
                    p("ns", "p1a").group("pg1").obj(),
                    pg("ns", "pg1", 2, None, None),
                    pg("ns", "pg2", 2, None, None),
                ],
                ("ns", "p1a"),
                Ok(()),
            ),
            (
                "cluster's resource satisfies minResource",
                vec![
                    p("ns", "p1b").group("pg1").obj(),
                    p("ns", "p1c").group("pg1").obj(),
                    p("ns", "p1a").group("pg1").obj(),
                    pg("ns", "pg1", 2, Some("6"), None),
                ],
                ("ns", "p1a"),
                Ok(()),
            ),
            (
                "cluster's resource cannot satisfy minResource",
                vec![
                    p("ns", "p1b").group("pg1").obj(),
                    p("ns", "p1c").group("pg1").obj(),
                    p("ns", "p1a").group("pg1").obj(),
                    pg("ns", "pg1", 2, Some("10"), None),
                ],
                ("ns", "p1a"),
                Err("resource gap: map[cpu:{{2000 -3} {<nil>}  DecimalSI}]".into()),
            ),
        ];
        for (name, objs, (ns, pod), want) in cases {
            let mut items = nodes();
            items.extend(objs);
            let s = snapshot(items, false);
            let pl = plugin(10, None);
            let got = pl.check_pre_filter(&s, &pi(&s, ns, pod).pod);
            assert_eq!(got, want, "{name}");
            let (_, st) = pl.pre_filter(&Ctx { snapshot: &s }, &mut CycleState::default(), &pi(&s, ns, pod));
            let want_code = if want.is_ok() {
                Code::Success
            } else {
                Code::UnschedulableAndUnresolvable
            };
            assert_eq!(st.code, want_code, "{name}");
        }
    }

    #[test]
    fn check_cluster_resource_cases_of_core_test() {
        // core/core_test.go TestCheckClusterResource: two nodes with 3 CPUs each.
        let cases: Vec<(&str, Vec<Value>, Result<(), String>)> = vec![
            (
                "Cluster resource enough",
                vec![p("ns", "p1").node("node-a").cpu("2").obj()],
                Ok(()),
            ),
            (
                "Cluster resource not enough",
                vec![
                    p("ns", "p1").node("node-a").cpu("2").obj(),
                    p("ns", "p2").node("node-b").cpu("1").obj(),
                ],
                Err("resource gap: map[cpu:{{1000 -3} {<nil>}  DecimalSI}]".into()),
            ),
            (
                "Cluster resource enough as p1's resource needs to be excluded from minResources",
                vec![
                    p("ns", "p1").group("pg1").node("node-a").cpu("2").obj(),
                    p("ns", "p2").node("node-b").cpu("1").obj(),
                ],
                Ok(()),
            ),
        ];
        for (name, pods, want) in cases {
            let mut items = vec![node("node-a", "3"), node("node-b", "3")];
            items.extend(pods);
            let s = snapshot(items, false);
            let req: BTreeMap<String, GoQuantity> =
                [("cpu".to_string(), GoQuantity::new(4, 0, QFormat::DecimalSI))].into();
            assert_eq!(check_cluster_resource(&s.nodes, req, "ns/pg1"), want, "{name}");
        }
    }

    #[test]
    fn permit_cases_of_core_and_plugin_tests() {
        // core_test.go TestPermit and coscheduling_test.go TestPermit (one 4-CPU node).
        let pl = plugin(10, None);
        type Case<'a> = (&'a str, Vec<Value>, &'a str, Code, Vec<String>);
        let cases: Vec<Case<'_>> = vec![
            (
                "pod does not belong to any pg",
                vec![p("ns", "p").obj(), pg("ns", "pg1", 2, None, None)],
                "p",
                Code::Success,
                vec![],
            ),
            (
                "pod specifies a non-existent pg",
                vec![
                    p("ns", "p").group("pg-non-existent").obj(),
                    pg("ns", "pg1", 2, None, None),
                ],
                "p",
                Code::Unschedulable,
                vec![ERR_POD_GROUP_NOT_FOUND.into()],
            ),
            (
                "pod belongs to a pg that doesn't have quorum",
                vec![p("ns", "p").group("pg1").obj(), pg("ns", "pg1", 2, None, None)],
                "p",
                Code::Wait,
                vec![],
            ),
            (
                "pod belongs to a pg that have quorum satisfied",
                vec![
                    p("ns", "p1b").group("pg1").node("node").obj(),
                    p("ns", "p1a").group("pg1").obj(),
                    pg("ns", "pg1", 2, None, None),
                ],
                "p1a",
                Code::Success,
                vec![],
            ),
            (
                "pods belong to a podGroup, and quorum satisfied",
                vec![
                    p("ns", "p").group("pg1").obj(),
                    pg("ns", "pg1", 1, None, None),
                    pg("ns", "pg2", 2, None, None),
                ],
                "p",
                Code::Success,
                vec![],
            ),
        ];
        for (name, objs, pod, code, reasons) in cases {
            let mut items = vec![node("node", "4")];
            items.extend(objs);
            let s = snapshot(items, false);
            let (st, wait) = pl.permit(
                &Ctx { snapshot: &s },
                &mut CycleState::default(),
                &pi(&s, "ns", pod),
                "node",
                &mut Vec::new(),
            );
            assert_eq!((st.code, st.reasons.to_strings()), (code, reasons), "{name}");
            let want_wait = if code == Code::Wait {
                Duration::from_secs(10)
            } else {
                Duration::ZERO
            };
            assert_eq!(wait, want_wait, "{name}");
        }
    }

    #[test]
    fn permit_wait_time_prefers_the_groups_timeout() {
        // util.GetWaitTimeDuration: spec.scheduleTimeoutSeconds, else the plugin's timeout,
        // else 60s.
        let mut g: PodGroup = serde_json::from_value(pg("ns", "pg1", 2, None, None)).unwrap();
        assert_eq!(wait_time(Some(&g), Duration::from_secs(10)), Duration::from_secs(10));
        assert_eq!(wait_time(Some(&g), Duration::ZERO), DEFAULT_WAIT_TIME);
        g.spec.schedule_timeout_seconds = Some(30);
        assert_eq!(wait_time(Some(&g), Duration::from_secs(10)), Duration::from_secs(30));
        assert_eq!(wait_time(None, Duration::from_secs(10)), Duration::from_secs(10));
    }

    #[test]
    fn post_filter_cases_of_plugin_test() {
        // coscheduling_test.go TestPostFilter (one 4-CPU node).
        let pl = plugin(10, None);
        let fw = Framework::default_profile(Release::NEWEST).unwrap();
        let cases: Vec<(&str, Vec<Value>, Status)> = vec![
            (
                "pod does not belong to any pod group",
                vec![p("ns", "p").obj(), pg("ns", "pg1", 2, None, None)],
                Status::unschedulable(ERR_NO_POD_GROUP),
            ),
            (
                "enough pods assigned, do not reject all",
                vec![
                    p("ns", "p1").group("pg1").node("node").obj(),
                    p("ns", "p").group("pg1").obj(),
                    pg("ns", "pg1", 1, None, None),
                ],
                Status::new(Code::Unschedulable, Vec::<String>::new()),
            ),
            (
                "pod failed at filter phase, reject all pods",
                vec![
                    p("ns", "p1").group("pg1").node("node").obj(),
                    p("ns", "p").group("pg1").obj(),
                    pg("ns", "pg1", 2, None, None),
                ],
                Status::unschedulable(
                    "PodGroup ns/pg1 gets rejected due to Pod p is unschedulable even after PostFilter",
                ),
            ),
        ];
        for (name, objs, want) in cases {
            let mut items = vec![node("node", "4")];
            items.extend(objs);
            let s = snapshot(items, false);
            let (_, got) = pl.post_filter(
                &Ctx { snapshot: &s },
                &fw,
                &CycleState::default(),
                &pi(&s, "ns", "p"),
                &BTreeMap::new(),
            );
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn post_filter_leaves_the_group_alone_within_ten_percent_of_quorum() {
        // 9 of 10 assigned: (10-9)/10 = 0.1 <= 0.1.
        let mut items = vec![node("node", "40"), pg("ns", "pg1", 10, None, None)];
        let names: Vec<String> = (0..10).map(|i| format!("m{i}")).collect();
        for (i, n) in names.iter().enumerate() {
            let mut b = p("ns", n).group("pg1");
            if i < 9 {
                b = b.node("node");
            }
            items.push(b.obj());
        }
        let s = snapshot(items, false);
        let fw = Framework::default_profile(Release::NEWEST).unwrap();
        let (_, st) = plugin(10, None).post_filter(
            &Ctx { snapshot: &s },
            &fw,
            &CycleState::default(),
            &pi(&s, "ns", "m9"),
            &BTreeMap::new(),
        );
        assert_eq!(st, Status::new(Code::Unschedulable, Vec::<String>::new()));
    }

    #[test]
    fn pod_group_backoff_of_plugin_test() {
        // coscheduling_test.go TestPodGroupBackoffTime: three pods of pg1 (minMember 3),
        // podGroupBackoffSeconds 1: Permit waits, PostFilter rejects the group and backs it off,
        // the next PreFilter says it failed recently.
        let items = vec![
            node("node", "4"),
            p("ns", "pod1").group("pg1").obj(),
            p("ns", "pod2").group("pg1").obj(),
            p("ns", "pod3").group("pg1").obj(),
            pg("ns", "pg1", 3, None, None),
        ];
        let s = snapshot(items, true);
        let cx = Ctx { snapshot: &s };
        let pl = plugin(10, Some(1));
        let fw = Framework::default_profile(Release::NEWEST).unwrap();
        let (st, _) = pl.permit(
            &cx,
            &mut CycleState::default(),
            &pi(&s, "ns", "pod1"),
            "node",
            &mut Vec::new(),
        );
        assert_eq!(st.code, Code::Wait);
        pl.post_filter(
            &cx,
            &fw,
            &CycleState::default(),
            &pi(&s, "ns", "pod2"),
            &BTreeMap::new(),
        );
        let (_, st) = pl.pre_filter(&cx, &mut CycleState::default(), &pi(&s, "ns", "pod3"));
        assert_eq!(st.code, Code::UnschedulableAndUnresolvable);
        assert_eq!(st.reasons, vec!["podGroup ns/pg1 failed recently".to_string()]);
        // go-cache: still there at the expiration instant, gone after it.
        s.handle.advance_to(1000);
        assert!(pl.check_pre_filter(&s, &pi(&s, "ns", "pod3").pod).is_err());
        s.handle.advance_to(1001);
        assert_eq!(pl.check_pre_filter(&s, &pi(&s, "ns", "pod3").pod), Ok(()));
    }

    #[test]
    fn waiting_members_are_allowed_at_quorum_and_rejected_by_post_filter_and_unreserve() {
        use crate::engine::framework::handle::WaitingPod;
        let items = vec![
            node("node", "4"),
            p("ns", "a").group("pg1").node("node").obj(),
            p("ns", "b").group("pg1").node("node").obj(),
            p("ns", "c").group("pg1").obj(),
            p("ns", "x").group("other").node("node").obj(),
            pg("ns", "pg1", 3, None, None),
            pg("ns", "other", 2, None, None),
        ];
        let park = |s: &Snapshot, name: &str| {
            s.handle.add_waiting(WaitingPod {
                pod: s.cluster.pod(&ObjectKey::new("ns", name)).unwrap().clone(),
                node: "node".into(),
                profile: String::new(),
                since_ms: 0,
                pending: [(names::COSCHEDULING, (Duration::from_secs(10), 10_000))].into(),
                state: CycleState::default(),
                verdict: None,
            });
        };
        let pl = plugin(10, None);
        // Permit of c: a and b are assumed (waiting), 2 + 1 >= 3: allow them.
        let s = snapshot(items.clone(), true);
        park(&s, "a");
        park(&s, "b");
        park(&s, "x");
        let (st, _) = pl.permit(
            &Ctx { snapshot: &s },
            &mut CycleState::default(),
            &pi(&s, "ns", "c"),
            "node",
            &mut Vec::new(),
        );
        assert_eq!(st.code, Code::Success);
        let decided: Vec<(String, Code)> = s
            .handle
            .take_decided()
            .into_iter()
            .map(|w| (w.pod.key.name.to_string(), w.verdict.unwrap().code))
            .collect();
        assert_eq!(decided, vec![("a".into(), Code::Success), ("b".into(), Code::Success)]);
        // Unreserve of c rejects the waiting members of its group only.
        let s = snapshot(items, true);
        park(&s, "a");
        park(&s, "x");
        pl.unreserve(
            &Ctx { snapshot: &s },
            &mut CycleState::default(),
            &pi(&s, "ns", "c"),
            "node",
            &mut Vec::new(),
        );
        let decided: Vec<(String, Status)> = s
            .handle
            .take_decided()
            .into_iter()
            .map(|w| (w.pod.key.name.to_string(), w.verdict.unwrap()))
            .collect();
        assert_eq!(
            decided,
            vec![(
                "a".into(),
                Status::unschedulable(MSG_UNRESERVE_REJECTION).with_plugin(names::COSCHEDULING)
            )]
        );
    }

    #[test]
    fn less_cases_of_plugin_test() {
        // coscheduling_test.go TestLess; a pod's InitialAttemptTimestamp is its
        // creationTimestamp here.
        let t1 = "2024-01-01T00:00:01Z";
        let t2 = "2024-01-01T00:00:02Z";
        let (low, high) = (10, 100);
        struct Case<'a> {
            name: &'a str,
            p1: P<'a>,
            p2: P<'a>,
            pgs: Vec<Value>,
            want: bool,
        }
        let cases = vec![
            Case {
                name: "p1.priority less than p2.priority",
                p1: p("ns1", "p1").priority(low),
                p2: p("ns2", "p2").priority(high),
                pgs: vec![],
                want: false,
            },
            Case {
                name: "p1.priority greater than p2.priority",
                p1: p("ns1", "p1").priority(high),
                p2: p("ns2", "p2").priority(low),
                pgs: vec![],
                want: true,
            },
            Case {
                name: "equal priority. p1 is added to schedulingQ earlier than p2",
                p1: p("ns1", "p1").priority(high).created(t1),
                p2: p("ns2", "p2").priority(high).created(t2),
                pgs: vec![],
                want: true,
            },
            Case {
                name: "equal priority. p2 is added to schedulingQ earlier than p1",
                p1: p("ns1", "p1").priority(high).created(t2),
                p2: p("ns2", "p2").priority(high).created(t1),
                pgs: vec![],
                want: false,
            },
            Case {
                name: "p1.priority less than p2.priority, p1 belongs to pg1",
                p1: p("ns1", "p1").priority(low).group("pg1"),
                p2: p("ns2", "p2").priority(high),
                pgs: vec![pg("ns1", "pg1", 0, None, None)],
                want: false,
            },
            Case {
                name: "p1.priority greater than p2.priority, p1 belongs to pg1",
                p1: p("ns1", "p1").priority(high).group("pg1"),
                p2: p("ns2", "p2").priority(low),
                pgs: vec![pg("ns1", "pg1", 0, None, None)],
                want: true,
            },
            Case {
                name: "equal priority. p1 is added to schedulingQ earlier than p2, p1 belongs to pg1",
                p1: p("ns1", "p1").priority(high).group("pg1").created(t1),
                p2: p("ns2", "p2").priority(high).created(t2),
                pgs: vec![pg("ns1", "pg1", 0, None, Some(t1))],
                want: true,
            },
            Case {
                name: "equal priority. p2 is added to schedulingQ earlier than p1, p1 belongs to pg1",
                p1: p("ns1", "p1").priority(high).group("pg1").created(t2),
                p2: p("ns2", "p2").priority(high).created(t1),
                pgs: vec![pg("ns1", "pg1", 0, None, Some(t2))],
                want: false,
            },
            Case {
                name: "p1.priority less than p2.priority, p1 belongs to pg1 and p2 belongs to pg2",
                p1: p("ns1", "p1").priority(low).group("pg1"),
                p2: p("ns2", "p2").priority(high).group("pg2"),
                pgs: vec![pg("ns1", "pg1", 0, None, Some(t1)), pg("ns2", "pg2", 0, None, Some(t2))],
                want: false,
            },
            Case {
                name: "p1.priority greater than p2.priority, p1 belongs to pg1 and and p2 belongs to pg2",
                p1: p("ns1", "p1").priority(high).group("pg1"),
                p2: p("ns2", "p2").priority(low).group("pg1"),
                pgs: vec![pg("ns1", "pg1", 0, None, Some(t1)), pg("ns2", "pg2", 0, None, Some(t2))],
                want: true,
            },
            Case {
                name: "equal priority. p1 is added to schedulingQ earlier than p2, p1 belongs to pg1 and p2 belongs to pg2",
                p1: p("ns1", "p1").priority(high).group("pg1").created(t1),
                p2: p("ns2", "p2").priority(high).group("pg2").created(t2),
                pgs: vec![pg("ns1", "pg1", 0, None, Some(t1)), pg("ns2", "pg2", 0, None, Some(t2))],
                want: true,
            },
            Case {
                name: "equal priority. p2 is added to schedulingQ earlier than p1, p1 belongs to pg2 and p2 belongs to pg1",
                p1: p("ns", "p1").priority(low).group("pg2").created(t1),
                p2: p("ns", "p2").priority(high).group("pg1").created(t2),
                pgs: vec![pg("ns", "pg1", 0, None, Some(t1)), pg("ns", "pg2", 0, None, Some(t2))],
                want: false,
            },
            Case {
                name: "equal priority and creation time, p1 belongs pg1 and p2 belong to pg2",
                p1: p("ns1", "p1").priority(high).group("pg2").created(t1),
                p2: p("ns2", "p2").priority(high).group("pg2").created(t1),
                pgs: vec![pg("ns1", "pg1", 0, None, Some(t1)), pg("ns2", "pg2", 0, None, Some(t2))],
                want: true,
            },
            Case {
                name: "equal priority and creation time, and p2 belong to pg2",
                p1: p("ns1", "p1").priority(high).created(t1),
                p2: p("ns2", "p2").priority(high).group("pg2").created(t1),
                pgs: vec![pg("ns2", "pg2", 0, None, Some(t2))],
                want: true,
            },
        ];
        let pl = plugin(10, None);
        for c in cases {
            let mut items = c.pgs;
            items.push(c.p1.obj());
            items.push(c.p2.obj());
            let s = snapshot(items, false);
            let a = s.cluster.pod(&ObjectKey::new(c.p1.ns, c.p1.name)).unwrap();
            let b = s.cluster.pod(&ObjectKey::new(c.p2.ns, c.p2.name)).unwrap();
            assert_eq!(pl.compare(&s.cluster, a, b) == Ordering::Less, c.want, "{}", c.name);
        }
    }

    #[test]
    fn go_quantities_parse_subtract_and_print_as_apimachinery() {
        assert_eq!(GoQuantity::parse("10"), GoQuantity::new(10, 0, QFormat::DecimalSI));
        assert_eq!(GoQuantity::parse("500m"), GoQuantity::new(500, -3, QFormat::DecimalSI));
        assert_eq!(GoQuantity::parse("1.5"), GoQuantity::new(15, -1, QFormat::DecimalSI));
        assert_eq!(GoQuantity::parse("2k"), GoQuantity::new(2, 3, QFormat::DecimalSI));
        assert_eq!(GoQuantity::parse("4Gi"), GoQuantity::new(4 << 30, 0, QFormat::BinarySI));
        assert_eq!(
            GoQuantity::parse("1e3"),
            GoQuantity::new(1, 3, QFormat::DecimalExponent)
        );
        assert_eq!(GoQuantity::parse("007"), GoQuantity::new(7, 0, QFormat::DecimalSI));
        assert!(GoQuantity::parse("1.5Gi").dec);
        let mut q = GoQuantity::parse("2k");
        q.sub(GoQuantity::new(500, 0, QFormat::DecimalSI));
        assert_eq!((q.value, q.scale), (1500, 0));
        let mut q = GoQuantity::parse("10");
        q.sub(GoQuantity::new(4000, -3, QFormat::DecimalSI));
        assert_eq!(q.go_value_string(), "{{6000 -3} {<nil>}  DecimalSI}");
        let mut q = GoQuantity::parse("8Gi");
        q.sub(GoQuantity::new(1 << 30, 0, QFormat::BinarySI));
        assert_eq!(q.go_value_string(), "{{7516192768 0} {<nil>}  BinarySI}");
    }

    #[test]
    fn register_reads_args_and_rejects_negative_backoff() {
        let s = register(&json!({"permitWaitingTimeSeconds": 5}), &Release::NEWEST.into()).unwrap();
        assert!(s.queue_sort && s.pre_filter.is_some() && s.post_filter.is_some());
        assert!(s.reserve.is_some() && s.permit.is_some() && s.filter.is_none());
        assert!(register(&json!({"podGroupBackoffSeconds": -1}), &Release::NEWEST.into()).is_err());
        assert!(register(&json!({"bogus": 1}), &Release::NEWEST.into()).is_err());
    }
}
