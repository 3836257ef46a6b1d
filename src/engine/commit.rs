//! What binding a pod by hand commits: the scheduler's binding cycle for the pod on the node
//! the user binds it to, so that kschedtui writes what kube-scheduler would write there (the
//! nomination, VolumeBinding's and DynamicResources' PreBind requests, then the Binding).
//!
//! The cycle is run with the pod's candidate nodes narrowed to that node (the snapshot's
//! placement, as a pod-group cycle narrows them): PreFilter and the plugins still see the
//! whole cluster, so DynamicResources allocates on that node as it would had the scheduler
//! chosen it, and VolumeBinding binds the volumes it would match there. A member of a gang
//! that would wait at Permit has no PreBind writes yet; when the caller binds the whole gang
//! (or forces it), the cycle is finished as if Permit had allowed it, as upstream does once
//! the quorum is met.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::framework::binding::finish_binding_cycle;
use super::framework::node_info::PodInfo;
use super::framework::plugin::Ctx;
use super::framework::runner::{self, EngineError};
use super::framework::runtime::Framework;
use super::framework::snapshot::Snapshot;
use super::framework::status::Status;
use super::framework::trace::{BindingOutcome, Explanation, GangTrace};
use super::release::Features;
use crate::model::write::BindingWrites;
use crate::model::{Cluster, ObjectKey};

/// The binding cycle of a pod on one node.
#[derive(Clone, Debug)]
pub struct Commit {
    /// The node.
    pub node: String,
    /// What binding writes first; None when the node fails Filter for the pod (no cycle ran
    /// there: only a forced Binding is possible).
    pub writes: Option<BindingWrites>,
    /// The pod would wait at Permit for its gang there (its writes, when present, are those
    /// of the cycle finished as if Permit allowed it).
    pub waits_for: Option<GangTrace>,
    /// Why the binding cycle fails on the node (Reserve, Permit or PreBind rejected or
    /// errored), when it does.
    pub fails: Option<String>,
    /// The explanation of the pod restricted to the node.
    pub explanation: Explanation,
}

/// Runs the pod's scheduling and binding cycle with `node` as its only candidate. With
/// `finish_wait`, a pod waiting at Permit has its binding cycle finished as if Permit allowed
/// it (its PreBind writes are then known).
pub fn commit_on(
    cluster: &Arc<Cluster>,
    profiles: &[Framework],
    features: &Features,
    pod: &ObjectKey,
    node: &str,
    finish_wait: bool,
) -> Result<Commit, EngineError> {
    let mut snap = Snapshot::new(cluster.clone(), features.clone());
    snap.placement = Some(Arc::new(BTreeSet::from([node.to_string()])));
    // a handle that keeps a pod waiting at Permit, so its cycle can be finished
    snap.handle = super::framework::handle::FrameworkHandle::persistent();
    let ex = runner::explain(&snap, profiles, pod)?;
    let mut c = Commit {
        node: node.to_string(),
        writes: None,
        waits_for: None,
        fails: None,
        explanation: ex,
    };
    let Some(mut t) = c.explanation.binding_cycle.clone() else {
        return Ok(c);
    };
    if t.outcome == BindingOutcome::Waiting {
        c.waits_for = c.explanation.gang.clone();
        if finish_wait
            && let Some(mut w) = snap.handle.waiting_pods().into_iter().find(|w| w.pod.key == *pod)
            && let Some(fw) = profiles.iter().find(|f| f.name == w.profile)
        {
            let pi = PodInfo::with_features(w.pod.clone(), &snap.features);
            finish_binding_cycle(
                &Ctx { snapshot: &snap },
                fw,
                &mut w.state,
                &pi,
                Some(Status::success()),
                &mut t,
            );
        }
    }
    match t.outcome {
        BindingOutcome::Bound => c.writes = Some(t.binding_writes()),
        BindingOutcome::Waiting => {}
        BindingOutcome::Rejected | BindingOutcome::Error => {
            c.fails = Some(format!(
                "{} failed on {}: {}",
                t.stopped_at.clone().unwrap_or_default(),
                t.node,
                t.message.clone().unwrap_or_default()
            ));
        }
    }
    c.explanation.binding_cycle = Some(t);
    Ok(c)
}

/// Why a gang member that would wait at Permit is not bound alone: the gang, its quorum, who
/// is placed and who is missing.
pub fn gang_refusal(pod: &ObjectKey, node: &str, gang: Option<&GangTrace>) -> String {
    let Some(g) = gang else {
        return format!(
            "{pod} would wait at Permit on node '{node}' (a Permit plugin holds it); binding it alone skips that wait: pass --force to bind it anyway"
        );
    };
    let placed = g.assigned + 1;
    let need = usize::try_from(g.min_member).unwrap_or(0);
    let mut missing: Vec<String> = g.unplaced.iter().map(ToString::to_string).collect();
    if missing.is_empty() && g.members < need {
        missing.push(format!("{} pod(s) not created yet", need - g.members));
    }
    format!(
        "{pod} is a member of gang {} ({}): it would wait at Permit on node '{node}' until {need} member(s) are placed, and {placed} are (this pod included){}; binding it alone breaks the gang's all-or-nothing placement: bind every member once the quorum is met with `kschedtui bind --gang {pod}`, or this pod alone with --force",
        g.group,
        g.plugin,
        if missing.is_empty() {
            String::new()
        } else {
            format!("; not placed: {}", missing.join(", "))
        }
    )
}
