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
    Ctx, PermitPlugin, Plugin, PluginSlots, PostFilterPlugin, PreFilterPlugin, QueueSortPlugin, ReservePlugin,
};
use crate::engine::framework::profile::Framework;
use crate::engine::framework::snapshot::Snapshot;
use crate::engine::framework::status::{Code, Status};
use crate::engine::trace::{GangTrace, PostFilterTrace, WaitingMember};
use crate::engine::version::Version;
use crate::model::{Cluster, Pod, PodGroup};

/// The pod-group label (`v1alpha1.PodGroupLabel`).
pub const POD_GROUP_LABEL: &str = "scheduling.x-k8s.io/pod-group";
/// `util.DefaultWaitTime`.
pub const DEFAULT_WAIT_TIME: Duration = Duration::from_secs(60);
/// Default permitWaitingTimeSeconds (apis/config/v1/defaults.go).
pub const DEFAULT_PERMIT_WAITING_TIME_SECONDS: i64 = 60;
/// Permit's rejection when the labelled PodGroup does not exist.
pub const ERR_POD_GROUP_NOT_FOUND: &str = "PodGroup not found";
/// PostFilter's rejection for a pod without a group.
pub const ERR_NO_POD_GROUP: &str = "can not find pod group";
/// The message of a rejection by PostFilter.
pub const MSG_POST_FILTER_REJECTION: &str = "optimistic rejection in PostFilter";
/// The message of a rejection by Unreserve.
pub const MSG_UNRESERVE_REJECTION: &str = "rejection in Unreserve";

const PERMITTED_CACHE: &str = "Coscheduling/permittedPG";
const BACKOFF_CACHE: &str = "Coscheduling/backedOffPG";

/// CoschedulingArgs (apis/config/v1): both optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// permitWaitingTimeSeconds (default 60).
    #[serde(default)]
    pub permit_waiting_time_seconds: Option<i64>,
    /// podGroupBackoffSeconds (default 0: no backoff).
    #[serde(default)]
    pub pod_group_backoff_seconds: Option<i64>,
}

/// Coscheduling.
pub struct Coscheduling {
    /// `scheduleTimeout` (from permitWaitingTimeSeconds).
    pub schedule_timeout: Duration,
    /// `pgBackoff` (None when podGroupBackoffSeconds is 0).
    pub pg_backoff: Option<Duration>,
}

/// The value of a pod's pod-group label ("" when absent).
pub fn pod_group_label(pod: &Pod) -> &str {
    pod.labels.get(POD_GROUP_LABEL).map_or("", String::as_str)
}

/// `util.GetPodGroupFullName`: `namespace/label`, or "" without the label.
pub fn pod_group_full_name(pod: &Pod) -> String {
    let l = pod_group_label(pod);
    if l.is_empty() {
        String::new()
    } else {
        format!("{}/{l}", pod.key.namespace)
    }
}

/// `GetPodGroup`: the full name and the PodGroup object, if it exists.
pub fn get_pod_group<'a>(cluster: &'a Cluster, pod: &Pod) -> (String, Option<&'a PodGroup>) {
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
pub fn group_pods<'a>(cluster: &'a Cluster, namespace: &str, label: &str) -> Vec<&'a Arc<Pod>> {
    cluster
        .pods
        .iter()
        .filter(|p| !p.is_finished() && p.key.namespace == namespace && pod_group_label(p) == label)
        .collect()
}

/// `CalculateAssignedPods`: members on a node of the snapshot (bound or assumed).
pub fn calculate_assigned_pods(snapshot: &Snapshot, pg_name: &str, namespace: &str) -> usize {
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

fn creation(pg: &PodGroup) -> Option<String> {
    pg.metadata.creation_timestamp.as_ref().map(|t| t.0.to_string())
}

/// `util.GetWaitTimeDuration`.
pub fn wait_time(pg: Option<&PodGroup>, schedule_timeout: Duration) -> Duration {
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
    fn creation_time(&self, cluster: &Cluster, pod: &Pod) -> Option<String> {
        match get_pod_group(cluster, pod) {
            (_, Some(pg)) => creation(pg),
            _ => pod.creation.clone(),
        }
    }

    /// The wait Permit asks for.
    pub fn wait_for(&self, pg: Option<&PodGroup>) -> Duration {
        let wait = wait_time(pg, self.schedule_timeout);
        if wait.is_zero() { self.schedule_timeout } else { wait }
    }

    /// `PodGroupManager.PreFilter`: Err(message) when the pod must wait.
    pub fn check_pre_filter(&self, snapshot: &Snapshot, pod: &Pod) -> Result<(), String> {
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
pub fn check_cluster_resource(
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
            requested.add_scaled(&p.pod.requests.resource, -1);
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
        GoQuantity::new(alloc.ephemeral_storage - requested.ephemeral_storage, 0, QFormat::BinarySI),
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
pub enum QFormat {
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
pub struct GoQuantity {
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
    pub fn new(value: i64, scale: i32, format: QFormat) -> Self {
        GoQuantity {
            value,
            scale,
            format,
            dec: false,
        }
    }

    /// `resource.ParseQuantity`'s int64 fast path (the text is valid: the loader checked it).
    pub fn parse(s: &str) -> Self {
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
    pub fn sign(&self) -> i64 {
        self.value.signum()
    }

    /// `Quantity.Sub` on the int64 amount (`int64Amount.Add` of the negation).
    pub fn sub(&mut self, y: GoQuantity) {
        if self.value == 0 {
            self.format = y.format;
        }
        self.dec |= y.dec;
        let b = GoQuantity {
            value: -y.value,
            ..y
        };
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
    pub fn go_value_string(&self) -> String {
        if self.dec {
            format!("{{{{0 0}} {{<inf.Dec {}e{}>}}  {}}}", self.value, self.scale, self.format.as_str())
        } else {
            format!("{{{{{} {}}} {{<nil>}}  {}}}", self.value, self.scale, self.format.as_str())
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
        _: &Framework,
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
            trace
                .node_notes
                .push((String::new(), format!("{assigned} of minMember {min} already assigned: the group is not rejected")));
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
            trace
                .node_notes
                .push((w.key.to_string(), format!("waiting member rejected: {MSG_POST_FILTER_REJECTION}")));
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
            .filter_map(|p| {
                let all = handle.with(|s| s.waiting.get(&p.key).cloned());
                all.map(|w| WaitingMember {
                    pod: p.key.clone(),
                    node: w.node.clone(),
                    waited_ms: now.saturating_sub(w.since_ms),
                    time_left_ms: w.deadline_ms().unwrap_or(now).saturating_sub(now),
                })
            })
            .collect();
        let assigned = calculate_assigned_pods(cx.snapshot, label, &pod.key.namespace)
            - usize::from(pod.node_name.is_some());
        Some(GangTrace {
            plugin: names::COSCHEDULING.into(),
            group: full,
            found: pg.is_some(),
            min_member: pg.map_or(0, |g| g.spec.min_member),
            members: group_pods(&cx.snapshot.cluster, &pod.key.namespace, label).len(),
            assigned,
            timeout_ms: u64::try_from(self.wait_for(pg).min(MAX_PERMIT_TIMEOUT).as_millis()).unwrap_or(u64::MAX),
            waiting,
        })
    }
}

/// Registers Coscheduling (QueueSort, PreFilter, PostFilter, Reserve, Permit).
pub fn register(args: &Value, _: Version) -> Result<PluginSlots, String> {
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
