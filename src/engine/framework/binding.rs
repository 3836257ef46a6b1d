//! The cycle after node selection (schedule_one.go `schedulingCycle` after `assume`, and
//! `bindingCycle`; framework/runtime/framework.go `RunReservePluginsReserve`,
//! `RunReservePluginsUnreserve`, `RunPermitPlugins`, `WaitOnPermit`, `RunPreBindPlugins`,
//! `RunBindPlugins`, `RunPostBindPlugins`):
//!
//! Reserve → Permit → (binding cycle) WaitOnPermit → PreBind → Bind → PostBind, with Unreserve
//! (in reverse Reserve order) when Reserve, Permit, the wait, PreBind or Bind fails.
//!
//! The plugins see the cycle's snapshot (the pod is not on its node there, as upstream's
//! snapshot does not hold the assumed pod) and the node name. A pod that gets Wait is parked in
//! the framework handle with its cycle state; the simulator finishes its binding cycle when
//! the wait ends (`finish_binding_cycle`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::cycle_state::CycleState;
use super::fit_error::fit_error_message;
use super::handle::{MAX_PERMIT_TIMEOUT, WaitingPod};
use super::node_info::PodInfo;
use super::plugin::{Ctx, PreBindOut};
use super::runtime::Framework;
use super::status::{Code, Status};
use crate::engine::framework::trace::{
    BindingCycleTrace, BindingOutcome, CyclePluginStatus, Explanation, PluginStatus,
};

impl Framework {
    /// `RunReservePluginsReserve`: stops at the first failure.
    pub fn run_reserve(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        node: &str,
        trace: &mut Vec<CyclePluginStatus>,
    ) -> Status {
        stop_at_first_failure(
            "Reserve",
            self.reserve.iter().map(|pl| {
                let mut notes = Vec::new();
                let s = pl.reserve(cx, state, pod, node, &mut notes);
                (pl.name(), s, notes)
            }),
            trace,
        )
    }

    /// `RunReservePluginsUnreserve`: every Reserve plugin, in reverse order.
    pub fn run_unreserve(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        node: &str,
    ) -> Vec<CyclePluginStatus> {
        self.reserve
            .iter()
            .rev()
            .map(|pl| {
                let mut notes = Vec::new();
                pl.unreserve(cx, state, pod, node, &mut notes);
                CyclePluginStatus::new(pl.name(), &Status::success(), notes)
            })
            .collect()
    }

    /// `RunPermitPlugins`: a rejection or error stops; Waits are collected (each timeout capped
    /// at 15 minutes). Returns the status and the waits by plugin.
    pub fn run_permit(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        node: &str,
        trace: &mut Vec<CyclePluginStatus>,
    ) -> (Status, BTreeMap<&'static str, Duration>) {
        let mut waits = BTreeMap::new();
        for pl in &self.permit {
            let mut notes = Vec::new();
            let (s, timeout) = pl.permit(cx, state, pod, node, &mut notes);
            let mut t = CyclePluginStatus::new(pl.name(), &s, notes);
            if s.code == Code::Wait {
                let timeout = timeout.min(MAX_PERMIT_TIMEOUT);
                t.timeout_ms = Some(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
                waits.insert(pl.name(), timeout);
            }
            trace.push(t);
            if s.is_success() || s.code == Code::Wait {
                continue;
            }
            if s.is_rejected() {
                return (s.with_plugin(pl.name()), BTreeMap::new());
            }
            return (
                Status::error(format!("running Permit plugin {:?}: {}", pl.name(), s.message())).with_plugin(pl.name()),
                BTreeMap::new(),
            );
        }
        if !waits.is_empty() {
            return (
                Status::new(
                    Code::Wait,
                    [format!(
                        "one or more plugins asked to wait and no plugin rejected pod {:?}",
                        pod.pod.key.name
                    )],
                ),
                waits,
            );
        }
        (Status::success(), waits)
    }

    /// `RunPreBindPlugins`: stops at the first failure. The requests the plugins send (and what
    /// they would send that kschedtui cannot plan) go to `writes`, in order; their notes to
    /// the trace.
    pub fn run_pre_bind(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        node: &str,
        trace: &mut Vec<CyclePluginStatus>,
        writes: &mut PreBindOut,
    ) -> Status {
        stop_at_first_failure(
            "PreBind",
            self.pre_bind.iter().map(|pl| {
                let mut out = PreBindOut::default();
                let s = pl.pre_bind(cx, state, pod, node, &mut out);
                writes.writes.append(&mut out.writes);
                writes.unplanned.append(&mut out.unplanned);
                (pl.name(), s, out.notes)
            }),
            trace,
        )
    }

    /// `RunBindPlugins`: the first plugin that does not Skip decides; Skip with no plugins.
    pub fn run_bind(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        node: &str,
        trace: &mut Vec<CyclePluginStatus>,
    ) -> Status {
        let mut last = Status::skip();
        for pl in &self.bind {
            let mut notes = Vec::new();
            let s = pl.bind(cx, state, pod, node, &mut notes);
            trace.push(CyclePluginStatus::new(pl.name(), &s, notes));
            if s.is_skip() {
                last = s;
                continue;
            }
            if !s.is_success() {
                if s.is_rejected() {
                    return s.with_plugin(pl.name());
                }
                return Status::error(format!("running Bind plugin {:?}: {}", pl.name(), s.message()));
            }
            return s;
        }
        last
    }

    /// `RunPostBindPlugins`.
    pub fn run_post_bind(
        &self,
        cx: &Ctx<'_>,
        state: &mut CycleState,
        pod: &PodInfo,
        node: &str,
        trace: &mut Vec<CyclePluginStatus>,
    ) {
        for pl in &self.post_bind {
            let mut notes = Vec::new();
            pl.post_bind(cx, state, pod, node, &mut notes);
            trace.push(CyclePluginStatus::new(pl.name(), &Status::success(), notes));
        }
    }
}

/// The PodScheduled message of a pod rejected after node selection: a FitError over the one
/// node (`NumAllNodes: 1`), or the status message for an error.
fn failure_message(node: &str, s: &Status) -> String {
    if s.is_rejected() {
        let statuses: BTreeMap<String, Status> = [(node.to_string(), s.clone())].into();
        fit_error_message(1, None, &statuses, None, "")
    } else {
        s.message()
    }
}

fn fail(
    fw: &Framework,
    cx: &Ctx<'_>,
    state: &mut CycleState,
    pod: &PodInfo,
    t: &mut BindingCycleTrace,
    point: &str,
    s: &Status,
) {
    let node = t.node.clone();
    t.unreserve = fw.run_unreserve(cx, state, pod, &node);
    t.outcome = if s.is_rejected() {
        BindingOutcome::Rejected
    } else {
        BindingOutcome::Error
    };
    t.stopped_at = Some(point.to_string());
    t.message = Some(failure_message(&node, s));
}

/// Records each plugin's status (the iterator runs a plugin only when asked for the next one) and
/// stops at the first failure: rejections keep their code, anything else becomes an Error
/// naming the point and the plugin, as upstream's runners do.
fn stop_at_first_failure(
    point: &str,
    runs: impl Iterator<Item = (&'static str, Status, Vec<String>)>,
    trace: &mut Vec<CyclePluginStatus>,
) -> Status {
    for (name, s, notes) in runs {
        trace.push(CyclePluginStatus::new(name, &s, notes));
        if !s.is_success() {
            if s.is_rejected() {
                return s.with_plugin(name);
            }
            return Status::error(format!("running {point} plugin {name:?}: {}", s.message()));
        }
    }
    Status::success()
}

/// Runs Reserve and Permit on the first selected node and, unless a plugin asked to wait, the
/// binding cycle. A waiting pod is parked in the snapshot's handle.
pub fn run_binding_cycle(
    cx: &Ctx<'_>,
    fw: &Framework,
    state: &mut CycleState,
    pi: &Arc<PodInfo>,
    ex: &mut Explanation,
) {
    let Some(node) = ex.host_pick.clone().or_else(|| ex.selected.first().cloned()) else {
        return;
    };
    let pod = &**pi;
    let mut t = BindingCycleTrace {
        node: node.clone(),
        tied_with: ex.selected.iter().filter(|n| **n != node).cloned().collect(),
        reserve: Vec::new(),
        permit: Vec::new(),
        wait_result: None,
        pre_bind: Vec::new(),
        bind: Vec::new(),
        post_bind: Vec::new(),
        unreserve: Vec::new(),
        outcome: BindingOutcome::Bound,
        stopped_at: None,
        message: None,
        after_wait: Vec::new(),
        nominates: false,
        writes: Vec::new(),
        unplanned: Vec::new(),
    };
    let s = fw.run_reserve(cx, state, pod, &node, &mut t.reserve);
    if !s.is_success() {
        fail(fw, cx, state, pod, &mut t, "Reserve", &s);
        ex.binding_cycle = Some(t);
        return;
    }
    let (s, waits) = fw.run_permit(cx, state, pod, &node, &mut t.permit);
    // bindingCycle, before WaitOnPermit: RunPreBindPreFlights; a waiting pod, or one a PreBind
    // plugin has work for, gets the node as status.nominatedNodeName
    t.nominates = fw
        .features
        .on(crate::engine::release::Gate::NominatedNodeNameForExpectation)
        && (s.code == Code::Wait
            || (s.is_success() && fw.pre_bind.iter().any(|p| p.pre_bind_pre_flight(cx, state, pod))));
    if s.code == Code::Wait {
        let now = cx.snapshot.handle.now_ms();
        cx.snapshot.handle.add_waiting(WaitingPod {
            pod: pi.pod.clone(),
            node: node.clone(),
            profile: fw.name.clone(),
            since_ms: now,
            pending: waits
                .iter()
                .map(|(p, d)| {
                    let ms = u64::try_from(d.as_millis()).unwrap_or(u64::MAX / 2);
                    (*p, (*d, now + ms))
                })
                .collect(),
            state: state.clone(),
            verdict: None,
        });
        t.outcome = BindingOutcome::Waiting;
        t.stopped_at = Some("Permit".into());
        t.message = Some(s.message());
        t.after_wait = vec![
            (
                "PreBind".to_string(),
                fw.pre_bind.iter().map(|p| p.name().to_string()).collect(),
            ),
            (
                "Bind".to_string(),
                fw.bind.iter().map(|p| p.name().to_string()).collect(),
            ),
            (
                "PostBind".to_string(),
                fw.post_bind.iter().map(|p| p.name().to_string()).collect(),
            ),
        ];
        ex.binding_cycle = Some(t);
        return;
    }
    if !s.is_success() {
        fail(fw, cx, state, pod, &mut t, "Permit", &s);
        ex.binding_cycle = Some(t);
        return;
    }
    finish_binding_cycle(cx, fw, state, pod, None, &mut t);
    ex.binding_cycle = Some(t);
}

/// The binding cycle proper: WaitOnPermit's result (None when the pod did not wait), then
/// PreBind, Bind and PostBind; Unreserve on a failure.
pub fn finish_binding_cycle(
    cx: &Ctx<'_>,
    fw: &Framework,
    state: &mut CycleState,
    pod: &PodInfo,
    wait_result: Option<Status>,
    t: &mut BindingCycleTrace,
) {
    let node = t.node.clone();
    t.after_wait.clear();
    if let Some(w) = wait_result {
        t.wait_result = Some(PluginStatus::new(w.plugin, &w));
        if !w.is_success() {
            let s = if w.is_rejected() {
                w
            } else {
                Status::error(format!("waiting on permit for pod: {}", w.message())).with_plugin(w.plugin)
            };
            fail(fw, cx, state, pod, t, "Permit", &s);
            return;
        }
    }
    let mut out = PreBindOut::default();
    let s = fw.run_pre_bind(cx, state, pod, &node, &mut t.pre_bind, &mut out);
    t.writes = out.writes;
    t.unplanned = out.unplanned;
    if !s.is_success() {
        fail(fw, cx, state, pod, t, "PreBind", &s);
        return;
    }
    let s = fw.run_bind(cx, state, pod, &node, &mut t.bind);
    if !s.is_success() {
        let s = if s.is_skip() {
            Status::error("no Bind plugin bound the pod (every Bind plugin returned Skip)")
        } else {
            s
        };
        fail(fw, cx, state, pod, t, "Bind", &s);
        return;
    }
    fw.run_post_bind(cx, state, pod, &node, &mut t.post_bind);
    t.outcome = BindingOutcome::Bound;
    t.stopped_at = None;
    t.message = None;
}

/// Asks the profile's Permit plugins, then its PreEnqueue plugins, to describe the pod's gang,
/// for the trace.
pub fn gang_trace(cx: &Ctx<'_>, fw: &Framework, pi: &PodInfo, ex: &mut Explanation) {
    ex.gang = fw
        .permit
        .iter()
        .find_map(|p| p.gang(cx, pi))
        .or_else(|| fw.pre_enqueue.iter().find_map(|p| p.gang(cx, pi)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::framework::plugin::{BindPlugin, PermitPlugin, Plugin, PreBindPlugin, ReservePlugin};
    use crate::engine::framework::snapshot::Snapshot;
    use crate::engine::release::Release;
    use crate::model::ObjectKey;
    use crate::source::file::load_str;

    /// A plugin answering `status` at every point it is put in (Permit: with `wait`).
    struct Fake {
        name: &'static str,
        status: Status,
        wait: Duration,
    }

    fn fake(name: &'static str, status: Status) -> Arc<Fake> {
        Arc::new(Fake {
            name,
            status,
            wait: Duration::ZERO,
        })
    }

    impl Plugin for Fake {
        fn name(&self) -> &'static str {
            self.name
        }
    }

    impl ReservePlugin for Fake {
        fn reserve(&self, _: &Ctx<'_>, _: &mut CycleState, _: &PodInfo, _: &str, _: &mut Vec<String>) -> Status {
            self.status.clone()
        }
        fn unreserve(&self, _: &Ctx<'_>, _: &mut CycleState, _: &PodInfo, node: &str, notes: &mut Vec<String>) {
            notes.push(format!("unreserved on {node}"));
        }
    }

    impl PermitPlugin for Fake {
        fn permit(
            &self,
            _: &Ctx<'_>,
            _: &mut CycleState,
            _: &PodInfo,
            _: &str,
            _: &mut Vec<String>,
        ) -> (Status, Duration) {
            (self.status.clone(), self.wait)
        }
    }

    impl PreBindPlugin for Fake {
        fn pre_bind(&self, _: &Ctx<'_>, _: &mut CycleState, _: &PodInfo, _: &str, _: &mut PreBindOut) -> Status {
            self.status.clone()
        }
    }

    impl BindPlugin for Fake {
        fn bind(&self, _: &Ctx<'_>, _: &mut CycleState, _: &PodInfo, _: &str, _: &mut Vec<String>) -> Status {
            self.status.clone()
        }
    }

    const SNAP: &str = r"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}}
- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default}, spec: {containers: [{name: c}]}}
";

    fn run(fw: &Framework) -> BindingCycleTrace {
        let s = Snapshot::new(Arc::new(load_str("t", SNAP).unwrap()), Release::NEWEST);
        let ex =
            crate::engine::framework::runner::explain(&s, std::slice::from_ref(fw), &ObjectKey::new("default", "p"))
                .unwrap();
        ex.binding_cycle.unwrap()
    }

    fn base() -> Framework {
        let mut fw = Framework::default_profile(Release::NEWEST).unwrap();
        fw.reserve = vec![];
        fw.permit = vec![];
        fw.pre_bind = vec![];
        fw.bind = vec![];
        fw.post_bind = vec![];
        fw
    }

    fn names(v: &[CyclePluginStatus]) -> Vec<(&str, Code)> {
        v.iter().map(|p| (p.plugin.as_str(), p.code)).collect()
    }

    #[test]
    fn reserve_rejection_unreserves_every_reserve_plugin_in_reverse() {
        let mut fw = base();
        fw.reserve = vec![
            fake("A", Status::success()),
            fake("B", Status::unschedulable("no room")),
            fake("C", Status::success()),
        ];
        fw.bind = vec![fake("Binder", Status::success())];
        let t = run(&fw);
        assert_eq!(
            names(&t.reserve),
            vec![("A", Code::Success), ("B", Code::Unschedulable)]
        );
        assert_eq!(
            names(&t.unreserve),
            vec![("C", Code::Success), ("B", Code::Success), ("A", Code::Success)]
        );
        assert_eq!(t.unreserve[0].notes, vec!["unreserved on n1".to_string()]);
        assert_eq!(t.outcome, BindingOutcome::Rejected);
        assert_eq!(t.stopped_at.as_deref(), Some("Reserve"));
        assert_eq!(t.message.as_deref(), Some("0/1 nodes are available: 1 no room."));
        assert!(t.bind.is_empty());
    }

    #[test]
    fn reserve_error_is_wrapped_as_upstream_does() {
        let mut fw = base();
        fw.reserve = vec![fake("A", Status::error("boom"))];
        let t = run(&fw);
        assert_eq!(t.outcome, BindingOutcome::Error);
        assert_eq!(t.message.as_deref(), Some("running Reserve plugin \"A\": boom"));
    }

    #[test]
    fn permit_waits_are_capped_and_reported() {
        let mut fw = base();
        fw.permit = vec![
            fake("Allow", Status::success()),
            Arc::new(Fake {
                name: "Gang",
                status: Status::new(Code::Wait, Vec::<String>::new()),
                wait: Duration::from_secs(3600),
            }),
        ];
        fw.bind = vec![fake("Binder", Status::success())];
        let t = run(&fw);
        assert_eq!(t.outcome, BindingOutcome::Waiting);
        assert_eq!(t.permit[1].timeout_ms, Some(15 * 60 * 1000));
        assert_eq!(
            t.message.as_deref(),
            Some("one or more plugins asked to wait and no plugin rejected pod \"p\"")
        );
        assert_eq!(t.after_wait[1], ("Bind".to_string(), vec!["Binder".to_string()]));
        assert!(t.bind.is_empty(), "the binding cycle waits");
    }

    #[test]
    fn permit_error_and_rejection() {
        let mut fw = base();
        fw.permit = vec![fake("P", Status::error("boom"))];
        let t = run(&fw);
        assert_eq!(t.message.as_deref(), Some("running Permit plugin \"P\": boom"));
        fw.permit = vec![fake("P", Status::unresolvable("never"))];
        let t = run(&fw);
        assert_eq!(t.outcome, BindingOutcome::Rejected);
        assert_eq!(t.message.as_deref(), Some("0/1 nodes are available: 1 never."));
    }

    #[test]
    fn pre_bind_failure_unreserves_and_bind_takes_the_first_non_skip() {
        let mut fw = base();
        fw.reserve = vec![fake("R", Status::success())];
        fw.pre_bind = vec![fake("PB", Status::unschedulable("volume busy"))];
        fw.bind = vec![fake("Binder", Status::success())];
        let t = run(&fw);
        assert_eq!(t.stopped_at.as_deref(), Some("PreBind"));
        assert_eq!(names(&t.unreserve), vec![("R", Code::Success)]);
        assert_eq!(t.message.as_deref(), Some("0/1 nodes are available: 1 volume busy."));
        fw.pre_bind = vec![];
        fw.bind = vec![
            fake("Skipper", Status::skip()),
            fake("Binder", Status::success()),
            fake("Never", Status::error("not called")),
        ];
        let t = run(&fw);
        assert_eq!(names(&t.bind), vec![("Skipper", Code::Skip), ("Binder", Code::Success)]);
        assert_eq!(t.outcome, BindingOutcome::Bound);
        fw.bind = vec![];
        let t = run(&fw);
        assert_eq!(t.outcome, BindingOutcome::Error);
        assert_eq!(t.stopped_at.as_deref(), Some("Bind"));
    }

    #[test]
    fn default_profile_runs_volume_binding_and_default_binder() {
        let fw = Framework::default_profile(Release::NEWEST).unwrap();
        let t = run(&fw);
        assert_eq!(
            names(&t.reserve),
            vec![("VolumeBinding", Code::Success), ("DynamicResources", Code::Success)]
        );
        assert_eq!(
            names(&t.pre_bind),
            vec![("VolumeBinding", Code::Success), ("DynamicResources", Code::Success)]
        );
        assert_eq!(names(&t.bind), vec![("DefaultBinder", Code::Success)]);
        assert!(t.permit.is_empty() && t.post_bind.is_empty());
        assert_eq!(t.outcome, BindingOutcome::Bound);
    }
}
