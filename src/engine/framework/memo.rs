//! Filter verdicts kept from one cycle to the next (not upstream: kube-scheduler runs every
//! Filter plugin on every node at every cycle). `fit` places the replicas of a workload one by
//! one, and the replicas of a Deployment are the same pod but for their names: a plugin whose
//! verdict reads only the pod and the node's own NodeInfo ([`crate::engine::framework::plugin::FilterPlugin::node_local`])
//! gives the next replica the verdict it gave this one on every node the bind did not change.
//!
//! What makes a kept verdict the one the plugin would give:
//! - the pod: a verdict is kept for one pod shape ([`PodShape`]: profile, namespace, labels,
//!   priority, the whole spec, which node-local plugins PreFilter skipped), and read only for
//!   a pod of the same shape;
//! - the node: each node has a generation ([`NodeGenerations`]), bumped by every change of its
//!   NodeInfo (`snapshot_update`, the only writer of a snapshot's NodeInfos); a verdict is read
//!   only at the generation it was made at. The nodes themselves (labels, taints, allocatable)
//!   never change in a snapshot;
//! - the cycle: verdicts are kept only by cycles that keep decisions only (the simulator's,
//!   `fit`'s), on nodes without nominated pods, and only successes and rejections (an error is
//!   never kept). The plugins that read more than the node (InterPodAffinity,
//!   PodTopologySpread, the volume and DRA plugins) run at every cycle, in the profile's order
//!   with the kept verdicts, so the first failing plugin is the one the walk would find.
//!
//! A clone of a snapshot starts with no verdict (its nodes may then change apart from the
//! original's).

use std::sync::Mutex;

use super::status::Status;
use crate::engine::framework::node_info::PodInfo;

/// What a node-local plugin's verdict reads of the pod, compared whole: the object's spec and
/// what the model made of it (tolerations, requests with their overhead and defaults).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PodShape {
    profile: String,
    /// The profile's address: one simulation runs one list of profiles, and a list built
    /// otherwise (another configuration under the same name) is another profile.
    profile_at: usize,
    namespace: String,
    labels: crate::model::Labels,
    priority: i32,
    tolerations: crate::model::list::List<crate::model::Toleration>,
    requests: crate::model::resources::PodRequests,
    spec: Option<k8s_openapi::api::core::v1::PodSpec>,
    /// Which filter plugins (by position) PreFilter skipped.
    skipped: Vec<bool>,
}

impl PodShape {
    /// The shape of `pod` in the profile named `profile` at address `profile_at` with the
    /// plugins in `skip` skipped.
    pub(crate) fn of(profile: &str, profile_at: usize, pod: &PodInfo, skip: &[bool]) -> Self {
        let p = &pod.pod;
        PodShape {
            profile: profile.to_string(),
            profile_at,
            namespace: p.key.namespace.to_string(),
            labels: p.labels.clone(),
            priority: p.priority,
            tolerations: p.tolerations.clone(),
            requests: (*p.requests).clone(),
            spec: p.obj.spec.clone(),
            skipped: skip.to_vec(),
        }
    }
}

/// The first node-local plugin that rejected a node, or none.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum LocalVerdict {
    /// Every node-local plugin not skipped passed.
    Pass,
    /// The first node-local plugin (by position among the filter plugins) that rejected the
    /// node, with its status as the walk stamps it.
    Reject(usize, Status),
}

/// The verdicts of one pod shape, per node: the generation of the node they were made at.
#[derive(Clone, Debug)]
pub(crate) struct FilterMemo {
    pub(crate) shape: PodShape,
    pub(crate) verdicts: Vec<Option<(u64, LocalVerdict)>>,
    /// The cycles that kept verdicts in it.
    cycles: usize,
}

impl FilterMemo {
    /// The kept verdict on node `i` at generation `generation`.
    pub(crate) fn get(&self, i: usize, generation: u64) -> Option<&LocalVerdict> {
        match self.verdicts.get(i) {
            Some(Some((g, v))) if *g == generation => Some(v),
            _ => None,
        }
    }
}

/// Each node's generation: bumped by every change of the node's NodeInfo.
#[derive(Clone, Debug, Default)]
pub(crate) struct NodeGenerations(Vec<u64>);

impl NodeGenerations {
    /// Generation 0 for `n` nodes.
    pub(crate) fn new(n: usize) -> Self {
        NodeGenerations(vec![0; n])
    }

    /// Node `i` changed.
    pub(crate) fn bump(&mut self, i: usize) {
        if let Some(g) = self.0.get_mut(i) {
            *g += 1;
        }
    }

    /// Node `i`'s generation.
    pub(crate) fn get(&self, i: usize) -> u64 {
        self.0.get(i).copied().unwrap_or(u64::MAX)
    }
}

/// What a snapshot keeps from its last cycle that kept decisions only (one pod shape at a
/// time): a clone starts with nothing.
#[derive(Debug)]
pub(crate) struct MemoCell<T>(Mutex<Option<T>>);

impl<T> Default for MemoCell<T> {
    fn default() -> Self {
        MemoCell(Mutex::new(None))
    }
}

impl<T> Clone for MemoCell<T> {
    fn clone(&self) -> Self {
        MemoCell::default()
    }
}

impl<T> MemoCell<T> {
    /// What is kept, taken out (a cycle holds it while it runs; a cycle inside it finds
    /// nothing).
    pub(crate) fn take(&self) -> Option<T> {
        self.0.lock().ok().and_then(|mut g| g.take())
    }

    /// Keeps `memo`.
    pub(crate) fn keep(&self, memo: T) {
        if let Ok(mut g) = self.0.lock() {
            *g = Some(memo);
        }
    }

    /// Reads what is kept (for tests).
    #[cfg(test)]
    pub(crate) fn read<R>(&self, f: impl FnOnce(Option<&T>) -> R) -> R {
        match self.0.lock() {
            Ok(g) => f(g.as_ref()),
            Err(_) => f(None),
        }
    }
}

impl FilterMemo {
    /// The verdicts kept in `cell` for `shape` (one more cycle of them), or none yet for
    /// `nodes` nodes.
    pub(crate) fn take(cell: &MemoCell<FilterMemo>, shape: PodShape, nodes: usize) -> FilterMemo {
        match cell.take() {
            Some(mut m) if m.shape == shape && m.verdicts.len() == nodes => {
                m.cycles += 1;
                m
            }
            _ => FilterMemo {
                shape,
                verdicts: vec![None; nodes],
                cycles: 1,
            },
        }
    }

    /// How many verdicts are kept, and how many cycles kept them (for tests).
    #[cfg(test)]
    pub(crate) fn kept(cell: &MemoCell<FilterMemo>) -> (usize, usize) {
        cell.read(|m| {
            m.map_or((0, 0), |m| {
                (m.verdicts.iter().filter(|v| v.is_some()).count(), m.cycles)
            })
        })
    }
}

/// The raw scores of the node-local Score plugins ([`crate::engine::framework::plugin::ScorePlugin::node_local`]) for one pod
/// shape (with the Score plugins PreScore skipped), per plugin (by position among the
/// profile's Score plugins) and node: the generation of the node they were made at. Only raw
/// scores are kept: NormalizeScore runs over every feasible node at every cycle.
#[derive(Clone, Debug)]
pub(crate) struct ScoreMemo {
    shape: PodShape,
    skipped: Vec<bool>,
    pub(crate) columns: Vec<Vec<Option<(u64, i64)>>>,
    /// The cycles that kept scores in it.
    cycles: usize,
}

impl ScoreMemo {
    /// The scores kept in `cell` for `shape` and `skipped` (one more cycle of them), or none
    /// yet for `plugins` plugins on `nodes` nodes.
    pub(crate) fn take(
        cell: &MemoCell<ScoreMemo>,
        shape: PodShape,
        skipped: Vec<bool>,
        plugins: usize,
        nodes: usize,
    ) -> ScoreMemo {
        match cell.take() {
            Some(mut m) if m.shape == shape && m.skipped == skipped && m.columns.len() == plugins => {
                m.cycles += 1;
                m
            }
            _ => ScoreMemo {
                shape,
                skipped,
                columns: vec![vec![None; nodes]; plugins],
                cycles: 1,
            },
        }
    }

    /// The raw score of plugin `p` kept on node `i` at generation `generation`.
    pub(crate) fn get(&self, p: usize, i: usize, generation: u64) -> Option<i64> {
        match self.columns.get(p).and_then(|c| c.get(i)) {
            Some(Some((g, v))) if *g == generation => Some(*v),
            _ => None,
        }
    }

    /// How many scores are kept, and how many cycles kept them (for tests).
    #[cfg(test)]
    pub(crate) fn kept(cell: &MemoCell<ScoreMemo>) -> (usize, usize) {
        cell.read(|m| {
            m.map_or((0, 0), |m| {
                (m.columns.iter().flatten().filter(|v| v.is_some()).count(), m.cycles)
            })
        })
    }
}
