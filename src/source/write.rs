//! Sending write plans to a [`ClusterSource`](super::ClusterSource): the permission checks
//! and the requests in order. The plans themselves, the requests and the answers are pure data
//! in [`crate::model::write`] (re-exported here); the in-memory API server that answers them
//! for snapshots and rehearsals is [`crate::model::apiserver`].

pub use crate::model::write::*;

#[cfg(any(feature = "tui", feature = "live"))]
/// Sends a plan's requests in order, with the stop and skip rules of [`PlanRun`].
pub async fn execute<S: super::ClusterSource>(source: &S, plan: &Plan) -> Report {
    let mut run = PlanRun::default();
    for r in &plan.requests {
        if run.should_send(r) {
            let answer = source.send(r).await;
            run.record(r, answer);
        }
    }
    run.finish(plan)
}

#[cfg(any(feature = "tui", feature = "live"))]
/// Checks every distinct permission a plan needs; returns the refusals.
pub async fn check_plan<S: super::ClusterSource>(source: &S, plan: &Plan) -> Result<(), Vec<WriteError>> {
    let mut seen: Vec<AccessCheck> = Vec::new();
    let mut refused = Vec::new();
    for r in &plan.requests {
        let a = r.access();
        // One review per verb/resource/namespace: the name rarely changes the answer and a
        // preemption can have many victims.
        if seen.iter().any(|s| {
            s.verb == a.verb && s.subresource == a.subresource && s.namespace == a.namespace && s.resource == a.resource
        }) {
            continue;
        }
        seen.push(a);
        if let Err(e) = source.check(r).await {
            // only a refusal says something about this permission alone; read-only, a timeout
            // or an unreachable server would answer every other check the same way
            let stop = !matches!(e, WriteError::Forbidden { .. } | WriteError::Denied { .. });
            refused.push(e);
            if stop {
                break;
            }
        }
    }
    if refused.is_empty() { Ok(()) } else { Err(refused) }
}
