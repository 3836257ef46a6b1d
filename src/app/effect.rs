//! Work that `update` asks the terminal layer to do: explain pods off the UI thread, run a
//! descheduler dry run, send writes to a live cluster, or open an editor. Effects carry
//! everything they need, so the runtime holds no app state.

use std::sync::Arc;

use super::whatif::EditTarget;
use crate::engine::framework::trace::Explanation;
use crate::engine::{self, Features, Framework, Snapshot};
use crate::model::write::Plan;
use crate::model::{Cluster, ObjectKey};

/// A batch of pods to explain on one cluster generation.
#[derive(Clone)]
pub struct ExplainJob {
    /// Cluster generation; results of older generations are dropped.
    pub generation: u64,
    /// The cluster.
    pub cluster: Arc<Cluster>,
    /// The profiles.
    pub profiles: Arc<Vec<Framework>>,
    /// The release and gates.
    pub features: Arc<Features>,
    /// Pods to explain, in this order.
    pub pods: Vec<ObjectKey>,
    /// `:profile NAME`: explain every pod with this profile instead of its schedulerName's.
    pub profile: Option<String>,
}

impl ExplainJob {
    /// Builds the engine snapshot of this job's cluster (the expensive part, shared by pods).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot::new(self.cluster.clone(), &*self.features)
    }

    /// Explains one pod on a snapshot of this job's cluster.
    pub fn explain(&self, snapshot: &Snapshot, pod: &ObjectKey) -> Result<Arc<Explanation>, String> {
        engine::explain_as(snapshot, &self.profiles, pod, self.profile.as_deref())
            .map(Arc::new)
            .map_err(|e| e.to_string())
    }
}

/// A gang's pass to compute (the `:gang` screen).
#[derive(Clone)]
pub struct GroupJob {
    /// Cluster generation; a result of an older generation is dropped.
    pub generation: u64,
    /// The cluster.
    pub cluster: Arc<Cluster>,
    /// The profiles.
    pub profiles: Arc<Vec<Framework>>,
    /// The release and gates.
    pub features: Arc<Features>,
    /// A member of the gang.
    pub pod: ObjectKey,
}

impl GroupJob {
    /// Runs the gang's pass.
    pub fn run(&self) -> super::GroupResult {
        engine::group_cycle::group_cycle(&self.cluster, &self.profiles, &self.features, &self.pod)
            .map(|g| g.map(Arc::new))
            .map_err(|e| e.to_string())
    }
}

/// A pod's "to fix" candidates to check by running the engine on each changed cluster.
#[derive(Clone)]
pub struct FixJob {
    /// Cluster generation; a result of an older generation is dropped.
    pub generation: u64,
    /// The cluster.
    pub cluster: Arc<Cluster>,
    /// The profiles.
    pub profiles: Arc<Vec<Framework>>,
    /// The release and gates.
    pub features: Arc<Features>,
    /// `:profile NAME` in force.
    pub profile: Option<String>,
    /// The pod.
    pub pod: ObjectKey,
    /// The candidates, in order.
    pub fixes: Vec<super::fix::Fix>,
}

impl FixJob {
    /// Makes each change on a copy and runs the engine on the pod again.
    pub fn run(&self) -> Vec<super::fix::Verified> {
        super::fix::verify(
            &self.cluster,
            &self.profiles,
            &self.features,
            self.profile.as_deref(),
            &self.pod,
            self.fixes.clone(),
        )
    }
}

/// A descheduler dry run to compute (`:deschedule FILE`): the runtime reads the policy file
/// and runs it on this cluster; the result comes back as `Action::Descheduled`.
#[derive(Clone)]
pub struct DescheduleJob {
    /// Cluster generation it runs on.
    pub generation: u64,
    /// The policy file, as typed.
    pub path: String,
    /// The cluster.
    pub cluster: Arc<Cluster>,
    /// The scheduler profiles the replacements are scheduled with.
    pub profiles: Arc<Vec<Framework>>,
    /// The release and gates.
    pub features: Arc<Features>,
    /// "Now" for the cycle (Unix seconds, the app's last tick).
    pub now: i64,
}

/// What-if pods from manifests (`:fit FILE`): the runtime reads the manifests and makes their
/// workloads' pods on this cluster (left pending); the result comes back as `Action::FitMade`.
#[derive(Clone)]
pub struct FitJob {
    /// Cluster generation it was asked at.
    pub generation: u64,
    /// The manifests, as typed.
    pub path: String,
    /// The cluster (without the previous `:fit`'s pods).
    pub cluster: Arc<Cluster>,
    /// The release and gates.
    pub features: Arc<Features>,
    /// The namespace of manifests that name none.
    pub namespace: String,
}

/// Something for the runtime to do.
pub enum Effect {
    /// Make what-if pods from manifests in the background; the result comes back as
    /// `Action::FitMade`.
    Fit(FitJob),
    /// Run a descheduler dry run in the background; the result comes back as
    /// `Action::Descheduled`.
    Deschedule(DescheduleJob),
    /// Compute a gang's pass in the background; the result comes back as
    /// `Action::GroupComputed`.
    Group(GroupJob),
    /// Explain pods in the background; each result comes back as `Action::Explained`.
    Explain(ExplainJob),
    /// Check a pod's fixes in the background; the result comes back as
    /// `Action::FixesVerified`.
    Fixes(FixJob),
    /// Check and send a write plan to the live cluster; the report comes back as
    /// `Action::Written`.
    Write(Plan),
    /// Write the `:export` text to a file; the result comes back as `Action::Exported`.
    Export {
        /// The text.
        text: String,
        /// The file.
        path: std::path::PathBuf,
        /// Replace an existing file (`:export!`).
        overwrite: bool,
    },
    /// Write the cluster as it is now (in-memory changes included) to a snapshot file; the
    /// result comes back as `Action::Saved`.
    Save {
        /// The cluster.
        cluster: Arc<Cluster>,
        /// The file (JSON for `.json`, YAML otherwise).
        path: std::path::PathBuf,
        /// Replace an existing file (`:w!`).
        overwrite: bool,
        /// In-memory changes it holds (reported back in `Action::Saved`).
        changes: usize,
    },
    /// Ask the live cluster whether these requests would be allowed (one
    /// SelfSubjectAccessReview each, nothing is written); each answer comes back as
    /// `Action::AccessChecked`.
    CheckAccess(Vec<crate::model::write::WriteRequest>),
    /// List every kind of the live cluster again (Ctrl-r; never resumed from the watch's
    /// resourceVersions); the new state comes back as `Action::Cluster` with
    /// `ClusterEvent::Replaced`.
    Relist,
    /// Put the text on the terminal's clipboard (OSC 52; the terminal, or tmux with
    /// `set-clipboard on`, must allow it).
    Copy(String),
    /// Suspend the terminal, open $EDITOR on the text, and send back `Action::Edited`.
    OpenEditor {
        /// What is edited.
        target: EditTarget,
        /// The YAML to edit.
        text: String,
    },
}
