//! Port of the parts of framework/plugins/dynamicresources/dynamicresources.go (v1.34.1, the
//! same in v1.34.7) that decide the outcome for a pod without resource claims:
//! `DynamicResources` is in the default profile from 1.34 (DynamicResourceAllocation GA,
//! inserted before DefaultPreemption).
//!
//! - 1.34: PreFilter records that the pod has no claims and returns Skip (so Filter does not
//!   run); PostFilter answers Unschedulable "no new claims to deallocate", which the framework
//!   joins before DefaultPreemption's message, or, when PreFilter did not get to the plugin
//!   (an earlier PreFilter plugin rejected the pod for good), an Error "not found" (the cycle
//!   state read), which ends PostFilter there.
//! - 1.30-1.33 (gate off), in a profile that names it: PreFilter Skip, PostFilter
//!   Unschedulable "plugin disabled".
//!
//! Not implemented: pods with `spec.resourceClaims` (claim lookup, allocation against
//! ResourceSlices and DeviceClasses, Filter, Reserve, PreBind, deallocation at PostFilter);
//! for such a pod the plugin does nothing and the explanation says so. `filterTimeout` is
//! accepted but not validated.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::NodeInfo;
use crate::engine::framework::node_info::PodInfo;
use crate::engine::framework::plugin::{
    Ctx, NodeScore, Plugin, PluginSlots, PostFilterPlugin, PreEnqueuePlugin, PreFilterPlugin, ScorePlugin,
};
use crate::engine::framework::profile::Framework;
use crate::engine::framework::status::{Code, Status};
use crate::engine::release::{Change, Features, Gate};
use crate::engine::trace::PostFilterTrace;

const STATE_KEY: &str = "PreFilterDynamicResources";

/// PostFilter's answer for a pod without claims (1.34).
pub const NO_NEW_CLAIMS: &str = "no new claims to deallocate";
/// PostFilter's answer when the gate is off.
pub const PLUGIN_DISABLED: &str = "plugin disabled";
/// `fwk.ErrNotFound`: the cycle state has no entry for the plugin.
pub const STATE_NOT_FOUND: &str = "not found";

/// `DynamicResourcesArgs` (v1).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// filterTimeout (a duration; DRASchedulerFilterTimeout).
    #[serde(default)]
    pub filter_timeout: Option<String>,
}

/// What PreFilter recorded.
#[derive(Clone, Debug)]
struct StateData {
    has_claims: bool,
}

/// DynamicResources.
pub struct DynamicResources {
    /// DynamicResourceAllocation is on (1.34+).
    enabled: bool,
    /// Score counts `firstAvailable` choices: from 1.35, and in 1.36 only with
    /// DRAPrioritizedList.
    scores: bool,
    /// PostFilter rejects without a reason ([`Change::DynamicResourcesPostFilterWithoutReasons`]).
    silent_post_filter: bool,
}

fn has_claims(pod: &PodInfo) -> bool {
    pod.pod.spec().resource_claims.as_ref().is_some_and(|c| !c.is_empty())
}

impl Plugin for DynamicResources {
    fn name(&self) -> &'static str {
        names::DYNAMIC_RESOURCES
    }
}

impl PreEnqueuePlugin for DynamicResources {
    fn pre_enqueue(&self, _pod: &PodInfo) -> Status {
        // Upstream checks that the pod's claims exist; a pod without claims always passes.
        Status::success()
    }
}

impl PreFilterPlugin for DynamicResources {
    fn pre_filter(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        if !self.enabled {
            return (None, Status::skip());
        }
        state.write(
            STATE_KEY,
            StateData {
                has_claims: has_claims(pod),
            },
        );
        (None, Status::skip())
    }

    fn note(&self, pod: &PodInfo) -> Option<String> {
        (self.enabled && has_claims(pod)).then(|| {
            "plugin DynamicResources does not evaluate resource claims yet: the pod's spec.resourceClaims were ignored"
                .to_string()
        })
    }
}

impl PostFilterPlugin for DynamicResources {
    fn post_filter(
        &self,
        _: &Ctx<'_>,
        _: &Framework,
        state: &CycleState,
        _: &PodInfo,
        _: &std::collections::BTreeMap<String, Status>,
    ) -> (PostFilterTrace, Status) {
        let trace = PostFilterTrace::default();
        let reject = |reason: &str| {
            if self.silent_post_filter {
                Status::new(Code::Unschedulable, Vec::<String>::new())
            } else {
                Status::unschedulable(reason)
            }
        };
        if !self.enabled {
            return (trace, reject(PLUGIN_DISABLED));
        }
        let s = match state.read::<StateData>(STATE_KEY) {
            None => Status::error(STATE_NOT_FOUND),
            Some(d) if !d.has_claims => reject(NO_NEW_CLAIMS),
            // Not implemented: a pod with claims gets no say from this plugin.
            Some(_) => Status::new(Code::Unschedulable, Vec::<String>::new()),
        };
        (trace, s)
    }
}

impl ScorePlugin for DynamicResources {
    /// The sum of `8 - index` of the `firstAvailable` subrequests allocated on the node; 0 for
    /// a pod without claims (and whatever the pod when scoring is off).
    fn score(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, _: &NodeInfo) -> (i64, Status) {
        if !self.enabled || !self.scores {
            return (0, Status::success());
        }
        match state.read::<StateData>(STATE_KEY) {
            None => (0, Status::error(STATE_NOT_FOUND)),
            Some(_) => (0, Status::success()),
        }
    }

    fn has_normalize(&self) -> bool {
        true
    }

    /// `DefaultNormalizeScore(100, false)`: each score × 100 / the highest (unchanged when all
    /// are 0).
    fn normalize(&self, _: &Ctx<'_>, _: &CycleState, _: &PodInfo, scores: &mut [NodeScore]) -> Status {
        super::helper::default_normalize_score(super::helper::MAX_NODE_SCORE, false, scores);
        Status::success()
    }
}

/// Registers DynamicResources.
pub fn register(args: &Value, features: &Features) -> Result<PluginSlots, String> {
    let _: Args = super::decode_args(args)?;
    let enabled = features.on(Gate::DynamicResourceAllocation);
    let has_score = features.has(Change::DynamicResourcesScores);
    // 1.36 checks DRAPrioritizedList, 1.35 does not: without the gate no claim can hold a
    // `firstAvailable` request, so the score is 0 either way.
    let scores = has_score && features.on(Gate::DRAPrioritizedList);
    let p = Arc::new(DynamicResources {
        enabled,
        scores,
        silent_post_filter: features.has(Change::DynamicResourcesPostFilterWithoutReasons),
    });
    Ok(PluginSlots {
        pre_enqueue: Some(p.clone()),
        pre_filter: Some(p.clone()),
        score: has_score.then(|| p.clone() as Arc<dyn ScorePlugin>),
        post_filter: Some(p),
        later: vec!["Reserve", "PreBind"],
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::engine::framework::runner::explain;
    use crate::engine::framework::snapshot::Snapshot;
    use crate::engine::trace::Explanation;
    use crate::engine::{Release, build_profiles};
    use crate::model::ObjectKey;
    use crate::source::file::load_str;

    /// One 1-CPU node; `p` asks for 2 CPUs (and `extra` spec fields).
    fn cluster(extra: &str, objects: &str) -> String {
        format!(
            r#"
apiVersion: v1
kind: List
items:
- {{apiVersion: v1, kind: Node, metadata: {{name: n1}}, status: {{allocatable: {{cpu: "1", memory: 4Gi, pods: "10"}}}}}}
{objects}
- apiVersion: v1
  kind: Pod
  metadata: {{name: p, namespace: a}}
  spec:
    containers: [{{name: c, image: i, resources: {{requests: {{cpu: "2"}}}}}}]{extra}
"#
        )
    }

    fn explain_at(text: &str, minor: u32) -> Explanation {
        let v = Release::at(minor);
        let snap = Snapshot::new(Arc::new(load_str("t", text).unwrap()), v);
        explain(&snap, &build_profiles(None, v).unwrap(), &ObjectKey::new("a", "p")).unwrap()
    }

    #[test]
    fn no_claims_postfilter_speaks_before_preemption_in_1_34() {
        // dynamicresources.go PostFilter: "no new claims to deallocate" (Unschedulable), which
        // RunPostFilterPlugins joins with DefaultPreemption's message.
        let text = cluster("", "");
        let ex = explain_at(&text, 34);
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
            )
        );
        let dra = ex
            .pre_filter
            .iter()
            .find(|p| p.plugin == names::DYNAMIC_RESOURCES)
            .expect("ran");
        assert_eq!(dra.code, Code::Skip);
        // 1.37 (#140222): the rejection carries no reason, so nothing comes before "preemption:".
        let ex = explain_at(&text, 37);
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
            )
        );
        // 1.33: not in the default profile.
        let ex = explain_at(&text, 33);
        assert!(ex.pre_filter.iter().all(|p| p.plugin != names::DYNAMIC_RESOURCES));
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
            )
        );
    }

    #[test]
    fn earlier_prefilter_rejection_leaves_no_state_in_1_34() {
        // An earlier PreFilter plugin (VolumeBinding) rejects for good, so DynamicResources'
        // PreFilter never runs and its PostFilter fails reading the cycle state: the Error ends
        // PostFilter and its text is the message's PostFilter part.
        let objects = r#"- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data, namespace: a}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}"#;
        let text = cluster(
            "\n    volumes: [{name: v, persistentVolumeClaim: {claimName: data}}]",
            objects,
        );
        let ex = explain_at(&text, 34);
        assert_eq!(
            ex.message.as_deref(),
            Some("0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found")
        );
        let pf = ex.post_filter.as_ref().expect("postfilter");
        assert_eq!(
            (pf.plugin.as_str(), pf.code),
            (names::DYNAMIC_RESOURCES, Some(Code::Error))
        );
        let ex = explain_at(&text, 33);
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
            )
        );
    }

    #[test]
    fn a_pod_with_claims_is_not_evaluated_and_says_so() {
        let text = cluster("\n    resourceClaims: [{name: gpu, resourceClaimName: gpu-claim}]", "");
        let ex = explain_at(&text, 34);
        assert!(
            ex.notes
                .iter()
                .any(|n| n.contains("DynamicResources does not evaluate resource claims")),
            "{:?}",
            ex.notes
        );
        assert_eq!(
            ex.message.as_deref(),
            Some(
                "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
            )
        );
    }

    #[test]
    fn disabled_before_1_34() {
        // With the gate off (1.30-1.33) a profile naming the plugin gets Skip and "plugin
        // disabled".
        let slots = register(&Value::Null, &Release::at(33).into()).expect("registers");
        let text = cluster("", "");
        let snap = Snapshot::new(Arc::new(load_str("t", &text).unwrap()), Release::at(33));
        let cx = Ctx { snapshot: &snap };
        let pod = snap.pod_infos[&ObjectKey::new("a", "p")].clone();
        let mut state = CycleState::default();
        let pf = slots.pre_filter.expect("prefilter");
        assert_eq!(pf.pre_filter(&cx, &mut state, &pod).1, Status::skip());
        let fw = Framework::default_profile(Release::at(33)).expect("profile");
        let (_, s) = slots
            .post_filter
            .expect("postfilter")
            .post_filter(&cx, &fw, &state, &pod, &Default::default());
        assert_eq!(s, Status::unschedulable(PLUGIN_DISABLED));
        assert!(register(&serde_json::json!({"filterTimeout": "10s"}), &Release::at(34).into()).is_ok());
        assert!(register(&serde_json::json!({"other": 1}), &Release::at(34).into()).is_err());
    }
}
