//! Port of framework/plugins/volumerestrictions/volume_restrictions.go (v1.30.6): the PVCs of
//! the pod must exist (PreFilter), a ReadWriteOncePod claim may be used by one pod only
//! (PreFilter counts the users, AddPod/RemovePod keep the count), and GCE PD, AWS EBS, RBD and
//! ISCSI disks must not conflict with the disks of the node's pods (Filter).

use std::collections::BTreeSet;
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use serde_json::Value;

use super::names;
use super::volume_helpers::{claim_access_modes, contains_access_mode, get_pvc, pvc_not_found};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, FilterPlugin, Plugin, PluginSlots, PreFilterPlugin, Signing};
use crate::engine::framework::status::{Code, Status};
use crate::engine::release::{Change, Features};

/// Reason of a disk conflict.
pub(crate) const ERR_REASON_DISK_CONFLICT: &str = "node(s) had no available disk";
/// Reason of a ReadWriteOncePod conflict.
pub(crate) const ERR_REASON_RWOP_CONFLICT: &str =
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";
/// The same reason from 1.34 on.
pub(crate) const ERR_REASON_RWOP_CONFLICT_1_34: &str =
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod";

static PRE_FILTER_KEY: &str = "PreFilterVolumeRestrictions";

/// The state PreFilter computes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PreFilterState {
    /// Names of the pod's claims with the ReadWriteOncePod access mode.
    pub rwop_pvcs: BTreeSet<String>,
    /// How many scheduled pods use those claims.
    pub conflicting_pvc_ref_count: i64,
}

impl PreFilterState {
    fn conflicts_of(&self, pod: &PodInfo) -> i64 {
        let n = pod
            .pod
            .spec()
            .volumes
            .iter()
            .flatten()
            .filter_map(|v| v.persistent_volume_claim.as_ref())
            .filter(|c| self.rwop_pvcs.contains(&c.claim_name))
            .count();
        i64::try_from(n).unwrap_or(i64::MAX)
    }
}

/// VolumeRestrictions.
pub(crate) struct VolumeRestrictions {
    /// The ReadWriteOncePod reason of [`Change::RwopReasonRenamed`].
    pub rwop_reason_renamed: bool,
}

fn needs_restrictions_check(v: &core::Volume) -> bool {
    v.gce_persistent_disk.is_some() || v.aws_elastic_block_store.is_some() || v.rbd.is_some() || v.iscsi.is_some()
}

fn have_overlap(a: &[String], b: &[String]) -> bool {
    a.iter().any(|x| b.contains(x))
}

/// `isVolumeConflict`: whether `v` conflicts with one of `pod`'s volumes.
pub(crate) fn is_volume_conflict(v: &core::Volume, pod: &core::PodSpec) -> bool {
    for ev in pod.volumes.iter().flatten() {
        if let (Some(d), Some(e)) = (&v.gce_persistent_disk, &ev.gce_persistent_disk)
            && d.pd_name == e.pd_name
            && !(d.read_only.unwrap_or(false) && e.read_only.unwrap_or(false))
        {
            return true;
        }
        if let (Some(d), Some(e)) = (&v.aws_elastic_block_store, &ev.aws_elastic_block_store)
            && d.volume_id == e.volume_id
        {
            return true;
        }
        if let (Some(d), Some(e)) = (&v.iscsi, &ev.iscsi)
            && d.iqn == e.iqn
            && !(d.read_only.unwrap_or(false) && e.read_only.unwrap_or(false))
        {
            return true;
        }
        if let (Some(d), Some(e)) = (&v.rbd, &ev.rbd) {
            // The API server defaults the pool to "rbd".
            let pool = d.pool.as_deref().unwrap_or("rbd");
            let epool = e.pool.as_deref().unwrap_or("rbd");
            if have_overlap(&d.monitors, &e.monitors)
                && pool == epool
                && d.image == e.image
                && !(d.read_only.unwrap_or(false) && e.read_only.unwrap_or(false))
            {
                return true;
            }
        }
    }
    false
}

/// `satisfyVolumeConflicts`.
fn satisfy_volume_conflicts(pod: &PodInfo, node: &NodeInfo) -> bool {
    for v in pod.pod.spec().volumes.iter().flatten() {
        if !needs_restrictions_check(v) {
            continue;
        }
        if node.pods.iter().any(|ev| is_volume_conflict(v, ev.pod.spec())) {
            return false;
        }
    }
    true
}

impl Plugin for VolumeRestrictions {
    fn name(&self) -> &'static str {
        names::VOLUME_RESTRICTIONS
    }

    fn sign_pod(&self, _: &Ctx<'_>, _: &PodInfo) -> Signing {
        Signing::Signed
    }
}

impl PreFilterPlugin for VolumeRestrictions {
    fn pre_filter_facts(
        &self,
        _: &Ctx<'_>,
        _: &CycleState,
        pod: &PodInfo,
    ) -> Vec<crate::engine::framework::trace::Fact> {
        vec![crate::engine::plugins::volume_helpers::claims_fact(&pod.pod, false)]
    }

    fn pre_filter(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        let spec = pod.pod.spec();
        let needs_check = spec.volumes.iter().flatten().any(needs_restrictions_check);
        let cluster = &cx.snapshot.cluster;
        let ns = &pod.pod.key.namespace;
        let mut rwop = BTreeSet::new();
        for v in spec.volumes.iter().flatten() {
            let Some(c) = &v.persistent_volume_claim else {
                continue;
            };
            let Some(pvc) = get_pvc(cluster, ns, &c.claim_name) else {
                return (None, Status::unresolvable(pvc_not_found(&c.claim_name)));
            };
            if contains_access_mode(claim_access_modes(pvc), "ReadWriteOncePod") {
                rwop.insert(pvc.metadata.name.clone().unwrap_or_default());
            }
        }
        // IsPVCUsedByPods: a pod on some node of the snapshot references the claim.
        let used = |name: &String| {
            let key = format!("{ns}/{name}");
            cx.snapshot.nodes.iter().any(|n| n.pvc_ref_counts.contains_key(&key))
        };
        let count = i64::try_from(rwop.iter().filter(|n| used(n)).count()).unwrap_or(i64::MAX);
        if !needs_check && count == 0 {
            return (None, Status::skip());
        }
        state.write(
            PRE_FILTER_KEY,
            PreFilterState {
                rwop_pvcs: rwop,
                conflicting_pvc_ref_count: count,
            },
        );
        (None, Status::success())
    }

    fn has_extensions(&self) -> bool {
        true
    }

    fn add_pod(&self, _: &Ctx<'_>, state: &mut CycleState, _: &PodInfo, add: &PodInfo, _: &NodeInfo) -> Status {
        let Some(s) = state.read_mut::<PreFilterState>(PRE_FILTER_KEY) else {
            return Status::error(format!("cannot read {PRE_FILTER_KEY:?} from cycleState"));
        };
        s.conflicting_pvc_ref_count += s.conflicts_of(add);
        Status::success()
    }

    fn remove_pod(&self, _: &Ctx<'_>, state: &mut CycleState, _: &PodInfo, rm: &PodInfo, _: &NodeInfo) -> Status {
        let Some(s) = state.read_mut::<PreFilterState>(PRE_FILTER_KEY) else {
            return Status::error(format!("cannot read {PRE_FILTER_KEY:?} from cycleState"));
        };
        s.conflicting_pvc_ref_count -= s.conflicts_of(rm);
        Status::success()
    }
}

impl FilterPlugin for VolumeRestrictions {
    fn filter(&self, _: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        if !satisfy_volume_conflicts(pod, node) {
            return Status::unschedulable(ERR_REASON_DISK_CONFLICT);
        }
        let Some(s) = state.read::<PreFilterState>(PRE_FILTER_KEY) else {
            return Status::error(format!("cannot read {PRE_FILTER_KEY:?} from cycleState"));
        };
        if s.conflicting_pvc_ref_count > 0 {
            let reason = if self.rwop_reason_renamed {
                ERR_REASON_RWOP_CONFLICT_1_34
            } else {
                ERR_REASON_RWOP_CONFLICT
            };
            return Status::new(Code::Unschedulable, [reason]);
        }
        Status::success()
    }
}

/// Registers VolumeRestrictions (it takes no args).
pub(crate) fn register(_: &Value, features: &Features) -> Result<PluginSlots, String> {
    let p = Arc::new(VolumeRestrictions {
        rwop_reason_renamed: features.has(Change::RwopReasonRenamed),
    });
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::super::volume_helpers::testutil::*;
    use super::*;
    use crate::engine::release::Release;

    const PL: VolumeRestrictions = VolumeRestrictions {
        rwop_reason_renamed: false,
    };

    fn gce(pd: &str, ro: bool) -> core::Volume {
        core::Volume {
            name: format!("gce-{pd}"),
            gce_persistent_disk: Some(core::GCEPersistentDiskVolumeSource {
                pd_name: pd.into(),
                read_only: Some(ro),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn ebs(id: &str) -> core::Volume {
        core::Volume {
            name: format!("ebs-{id}"),
            aws_elastic_block_store: Some(core::AWSElasticBlockStoreVolumeSource {
                volume_id: id.into(),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn rbd(mons: &[&str], pool: &str, image: &str, ro: bool) -> core::Volume {
        core::Volume {
            name: format!("rbd-{image}"),
            rbd: Some(core::RBDVolumeSource {
                monitors: mons.iter().map(|m| (*m).to_string()).collect(),
                pool: Some(pool.into()),
                image: image.into(),
                read_only: Some(ro),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn iscsi(iqn: &str, ro: bool) -> core::Volume {
        core::Volume {
            name: format!("iscsi-{iqn}"),
            iscsi: Some(core::ISCSIVolumeSource {
                target_portal: "127.0.0.1:3260".into(),
                iqn: iqn.into(),
                read_only: Some(ro),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// Runs PreFilter + Filter of the pod on node "n" holding `existing`.
    fn run(w: World, pod: PodInfo) -> (Status, Status) {
        let s = w.snapshot();
        let cx = Ctx { snapshot: &s };
        let mut state = CycleState::default();
        let pl = VolumeRestrictions {
            rwop_reason_renamed: false,
        };
        let (_, pre) = pl.pre_filter(&cx, &mut state, &pod);
        if !pre.is_success() {
            return (pre, Status::success());
        }
        let f = pl.filter(&cx, &state, &pod, node_info(&s, "n"));
        (pre, f)
    }

    fn disk_case(new: core::Volume, existing: Vec<core::Volume>) -> Status {
        let w = World {
            nodes: vec![node("n", &[])],
            pods: vec![pod_on("default", "old", "n", existing)],
            ..Default::default()
        };
        let (pre, f) = run(w, info(pod("default", "new", vec![new])));
        assert!(pre.is_success(), "{pre:?}");
        f
    }

    #[test]
    fn gce_disk_conflicts() {
        // volume_restrictions_test.go TestGCEDiskConflicts
        let conflict = Status::unschedulable(ERR_REASON_DISK_CONFLICT);
        assert_eq!(disk_case(gce("foo", false), vec![]), Status::success(), "nothing");
        assert_eq!(
            disk_case(gce("foo", false), vec![gce("bar", false)]),
            Status::success(),
            "one state"
        );
        assert_eq!(
            disk_case(gce("foo", false), vec![gce("foo", false), gce("bar", false)]),
            conflict,
            "same state"
        );
        assert_eq!(
            disk_case(gce("foo", false), vec![gce("foo", true)]),
            conflict,
            "one read-only"
        );
        assert_eq!(
            disk_case(gce("foo", true), vec![gce("foo", true)]),
            Status::success(),
            "both read-only"
        );
    }

    #[test]
    fn aws_disk_conflicts() {
        // TestAWSDiskConflicts
        let conflict = Status::unschedulable(ERR_REASON_DISK_CONFLICT);
        assert_eq!(disk_case(ebs("foo"), vec![]), Status::success());
        assert_eq!(disk_case(ebs("foo"), vec![ebs("bar")]), Status::success());
        assert_eq!(disk_case(ebs("foo"), vec![ebs("foo"), ebs("bar")]), conflict);
    }

    #[test]
    fn rbd_disk_conflicts() {
        // TestRBDDiskConflicts
        let conflict = Status::unschedulable(ERR_REASON_DISK_CONFLICT);
        let v1 = rbd(&["a", "b"], "foo", "bar", false);
        let v2 = rbd(&["c", "d"], "foo", "bar", false);
        assert_eq!(disk_case(v1.clone(), vec![]), Status::success());
        assert_eq!(
            disk_case(v1.clone(), vec![v2.clone()]),
            Status::success(),
            "no monitor overlap"
        );
        assert_eq!(disk_case(v2.clone(), vec![v1.clone(), v2.clone()]), conflict);
        assert_eq!(
            disk_case(
                rbd(&["a"], "foo", "bar", true),
                vec![rbd(&["a", "x"], "foo", "bar", true)]
            ),
            Status::success()
        );
        assert_eq!(
            disk_case(
                rbd(&["a"], "foo", "bar", false),
                vec![rbd(&["a"], "other", "bar", false)]
            ),
            Status::success()
        );
    }

    #[test]
    fn iscsi_disk_conflicts() {
        // TestISCSIDiskConflicts
        let conflict = Status::unschedulable(ERR_REASON_DISK_CONFLICT);
        let v1 = iscsi("iqn.2016-12.server:storage.target01", false);
        let v2 = iscsi("iqn.2017-12.server:storage.target01", false);
        assert_eq!(disk_case(v1.clone(), vec![]), Status::success());
        assert_eq!(disk_case(v1.clone(), vec![v2.clone()]), Status::success());
        assert_eq!(disk_case(v2.clone(), vec![v1, v2.clone()]), conflict);
        let ro = iscsi("iqn.2017-12.server:storage.target01", true);
        assert_eq!(disk_case(ro.clone(), vec![ro]), Status::success());
    }

    fn rwop_world(used_on_n: bool) -> World {
        let mut pods = Vec::new();
        if used_on_n {
            pods.push(pod_on(
                "default",
                "user",
                "n",
                vec![pvc_vol("data", "claim-with-rwop-1")],
            ));
        }
        World {
            nodes: vec![node("n", &[]), node("m", &[])],
            pods,
            pvcs: vec![
                with_modes(pvc("default", "claim-with-rwop-1"), &["ReadWriteOncePod"]),
                with_modes(pvc("default", "claim-with-rwop-2"), &["ReadWriteOncePod"]),
                with_modes(pvc("default", "claim-rwo"), &["ReadWriteOnce"]),
            ],
            ..Default::default()
        }
    }

    #[test]
    fn read_write_once_pod_cases() {
        // TestAccessModeConflicts
        let conflict = Status::new(Code::Unschedulable, [ERR_REASON_RWOP_CONFLICT]);
        let p1 = || info(pod("default", "p", vec![pvc_vol("a", "claim-with-rwop-1")]));
        // The claim is used by a scheduled pod: every node fails, preemption may help.
        let (pre, f) = run(rwop_world(true), p1());
        assert_eq!((pre, f), (Status::success(), conflict.clone()));
        // Used by nobody: PreFilter skips.
        let (pre, _) = run(rwop_world(false), p1());
        assert_eq!(pre, Status::skip());
        // A ReadWriteOnce claim used by another pod is no conflict (skip).
        let mut w = rwop_world(false);
        w.pods
            .push(pod_on("default", "rwo-user", "n", vec![pvc_vol("d", "claim-rwo")]));
        let (pre, _) = run(w, info(pod("default", "p", vec![pvc_vol("a", "claim-rwo")])));
        assert_eq!(pre, Status::skip());
        // A missing claim.
        let (pre, _) = run(
            rwop_world(false),
            info(pod("default", "p", vec![pvc_vol("a", "claim-not-found")])),
        );
        assert_eq!(
            pre,
            Status::unresolvable("persistentvolumeclaim \"claim-not-found\" not found")
        );
        // The same claim name in another namespace does not count.
        let mut w = rwop_world(false);
        w.pods
            .push(pod_on("other", "user", "n", vec![pvc_vol("d", "claim-with-rwop-1")]));
        let (pre, _) = run(w, p1());
        assert_eq!(pre, Status::skip());
    }

    /// volume_restrictions.go (1.34): the ReadWriteOncePod reason was reworded.
    #[test]
    fn read_write_once_pod_reason_from_1_34() {
        let s = rwop_world(true).snapshot();
        let cx = Ctx { snapshot: &s };
        let p = info(pod("default", "p", vec![pvc_vol("a", "claim-with-rwop-1")]));
        for (minor, reason) in [
            (33, ERR_REASON_RWOP_CONFLICT),
            (
                34,
                "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod",
            ),
        ] {
            let pl = VolumeRestrictions {
                rwop_reason_renamed: Features::new(Release::at(minor)).has(Change::RwopReasonRenamed),
            };
            let mut state = CycleState::default();
            assert!(pl.pre_filter(&cx, &mut state, &p).1.is_success());
            assert_eq!(
                pl.filter(&cx, &state, &p, node_info(&s, "n")),
                Status::new(Code::Unschedulable, [reason]),
                "1.{minor}"
            );
        }
    }

    #[test]
    fn add_and_remove_pod_update_the_count() {
        // TestPreFilterExtensions-like: a nominated user adds a conflict, removing the user clears it.
        let s = rwop_world(true).snapshot();
        let cx = Ctx { snapshot: &s };
        let pod = info(pod(
            "default",
            "p",
            vec![pvc_vol("a", "claim-with-rwop-1"), pvc_vol("b", "claim-with-rwop-2")],
        ));
        let mut state = CycleState::default();
        let (_, pre) = PL.pre_filter(&cx, &mut state, &pod);
        assert!(pre.is_success());
        let user = s.node("n").map(|n| n.pods[0].clone()).expect("user pod");
        let n = node_info(&s, "n");
        assert!(PL.remove_pod(&cx, &mut state, &pod, &user, n).is_success());
        assert_eq!(
            state
                .read::<PreFilterState>(PRE_FILTER_KEY)
                .map(|s| s.conflicting_pvc_ref_count),
            Some(0)
        );
        assert!(PL.filter(&cx, &state, &pod, n).is_success());
        let other = info(pod_on(
            "default",
            "nominated",
            "m",
            vec![pvc_vol("x", "claim-with-rwop-2")],
        ));
        assert!(PL.add_pod(&cx, &mut state, &pod, &other, n).is_success());
        assert_eq!(
            PL.filter(&cx, &state, &pod, n),
            Status::new(Code::Unschedulable, [ERR_REASON_RWOP_CONFLICT])
        );
    }
}
