//! A snapshot held in memory as a full [`ClusterSource`]: writes are applied to the in-memory
//! state and come back through [`watch`](ClusterSource::watch) as the same [`ClusterEvent`]s a
//! live watch would send, so the whole loop (explain, preempt, victims vanish, re-explain,
//! bind) runs in tests and demos without a cluster. Nothing is ever written to the file.
//!
//! The API server's answers are imitated where the front end must handle them: 404 for a pod
//! that is gone, 409 for binding a bound pod, 429 for an eviction a PodDisruptionBudget
//! refuses (status.disruptionsAllowed == 0), 500 for a pod covered by several PDBs.

use std::path::Path;
use std::sync::Mutex;

use k8s_openapi::api::core::v1 as core;
use tokio::sync::mpsc;

use super::ClusterSource;
use super::file::{self, LoadError};
use super::write::{Outcome, WriteError, WriteMode, WriteRequest};
use crate::model::event::{ClusterEvent, ClusterState, Kind};
use crate::model::{Cluster, Object, ObjectKey};

/// A snapshot in memory.
#[derive(Debug)]
pub struct FixtureSource {
    name: String,
    mode: WriteMode,
    state: Mutex<ClusterState>,
    tx: Mutex<Option<mpsc::Sender<ClusterEvent>>>,
    warnings: Vec<String>,
}

impl FixtureSource {
    /// Reads a snapshot file or directory (validated as `--snapshot` would).
    pub fn from_path(path: &Path) -> Result<Self, LoadError> {
        let mut warnings = Vec::new();
        let objects = file::read_objects(path, &mut warnings)?;
        Cluster::build(objects.clone())?;
        let mut s = Self::from_state(
            format!("snapshot {}", path.display()),
            ClusterState::from_objects(objects),
        );
        s.warnings = warnings;
        Ok(s)
    }

    /// Reads a snapshot given as text (the embedded demo, tests).
    pub fn from_str(name: &str, text: &str) -> Result<Self, LoadError> {
        let mut warnings = Vec::new();
        let objects = file::read_objects_str(name, text, &mut warnings)?;
        Cluster::build(objects.clone())?;
        let mut s = Self::from_state(format!("snapshot {name}"), ClusterState::from_objects(objects));
        s.warnings = warnings;
        Ok(s)
    }

    /// A source over a state.
    pub fn from_state(name: impl Into<String>, state: ClusterState) -> Self {
        FixtureSource {
            name: name.into(),
            mode: WriteMode::Enabled,
            state: Mutex::new(state),
            tx: Mutex::new(None),
            warnings: Vec::new(),
        }
    }

    /// Sets the write mode (`--readonly`, `--dry-run=server`).
    #[must_use]
    pub fn with_write_mode(mut self, mode: WriteMode) -> Self {
        self.mode = mode;
        self
    }

    /// What reading the snapshot noticed (fields no object type knows, ...).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// A copy of the current state.
    pub fn state(&self) -> ClusterState {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ClusterState> {
        // A panic while holding the lock leaves a consistent map; keep using it.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn pod(state: &ClusterState, key: &ObjectKey) -> Result<core::Pod, WriteError> {
        match state.get(Kind::Pod, key) {
            Some(Object::Pod(p)) => Ok((**p).clone()),
            _ => Err(WriteError::NotFound { pod: key.clone() }),
        }
    }

    /// Computes the events a request causes (without applying them).
    fn events_for(&self, state: &ClusterState, req: &WriteRequest) -> Result<(Outcome, Vec<ClusterEvent>), WriteError> {
        let key = req.pod();
        let applied = |p: core::Pod| ClusterEvent::Applied(Box::new(Object::Pod(Box::new(p))));
        match req {
            WriteRequest::Bind { node, uid, .. } => {
                let mut p = Self::pod(state, key)?;
                if let Some(u) = uid
                    && p.metadata.uid.as_ref() != Some(u)
                {
                    return Err(WriteError::Conflict {
                        message: format!("pod {key} was replaced (uid precondition failed)"),
                    });
                }
                let spec = p.spec.get_or_insert_with(Default::default);
                if let Some(n) = spec.node_name.as_ref().filter(|n| !n.is_empty()) {
                    return Err(WriteError::AlreadyBound {
                        pod: key.clone(),
                        node: n.clone(),
                    });
                }
                spec.node_name = Some(node.clone());
                set_condition(&mut p, "PodScheduled", "True", "", "");
                Ok((Outcome::Done { code: 201 }, vec![applied(p)]))
            }
            WriteRequest::MarkDisruptionTarget { scheduler_name, .. } => {
                let mut p = Self::pod(state, key)?;
                set_condition(
                    &mut p,
                    "DisruptionTarget",
                    "True",
                    super::write::REASON_PREEMPTION_BY_SCHEDULER,
                    &format!("{scheduler_name}: preempting to accommodate a higher priority pod"),
                );
                Ok((Outcome::Done { code: 200 }, vec![applied(p)]))
            }
            WriteRequest::Nominate { node, .. } => {
                let mut p = Self::pod(state, key)?;
                p.status.get_or_insert_with(Default::default).nominated_node_name = node.clone();
                Ok((Outcome::Done { code: 200 }, vec![applied(p)]))
            }
            WriteRequest::Delete { .. } => match Self::pod(state, key) {
                Ok(p) => Ok((
                    Outcome::Done { code: 200 },
                    vec![ClusterEvent::Deleted(Box::new(Object::Pod(Box::new(p))))],
                )),
                Err(_) => Ok((Outcome::AlreadyGone, Vec::new())),
            },
            WriteRequest::Evict { .. } => {
                let Ok(p) = Self::pod(state, key) else {
                    return Ok((Outcome::AlreadyGone, Vec::new()));
                };
                let labels = p.metadata.labels.clone().unwrap_or_default();
                let pdbs: Vec<_> = state
                    .objects_of(Kind::PodDisruptionBudget)
                    .filter_map(|o| match o {
                        Object::PodDisruptionBudget(b) => Some((**b).clone()),
                        _ => None,
                    })
                    .collect();
                let mut events = Vec::new();
                if let Some(i) = super::write::eviction_answer(key, &labels, &pdbs, &req.summary())? {
                    let mut b = pdbs[i].clone();
                    let st = b.status.get_or_insert_with(Default::default);
                    st.disruptions_allowed = Some(st.disruptions_allowed.unwrap_or(0) - 1);
                    events.push(ClusterEvent::Applied(Box::new(Object::PodDisruptionBudget(Box::new(
                        b,
                    )))));
                }
                events.push(ClusterEvent::Deleted(Box::new(Object::Pod(Box::new(p)))));
                Ok((Outcome::Done { code: 201 }, events))
            }
        }
    }
}

fn set_condition(p: &mut core::Pod, type_: &str, status: &str, reason: &str, message: &str) {
    let conds = p
        .status
        .get_or_insert_with(Default::default)
        .conditions
        .get_or_insert_with(Vec::new);
    let c = core::PodCondition {
        type_: type_.to_string(),
        status: status.to_string(),
        reason: Some(reason.to_string()).filter(|r| !r.is_empty()),
        message: Some(message.to_string()).filter(|m| !m.is_empty()),
        ..Default::default()
    };
    match conds.iter_mut().find(|x| x.type_ == type_) {
        Some(x) => *x = c,
        None => conds.push(c),
    }
}

impl ClusterSource for FixtureSource {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn write_mode(&self) -> WriteMode {
        self.mode
    }

    async fn load(&self) -> anyhow::Result<ClusterState> {
        Ok(self.state())
    }

    async fn watch(&self, tx: mpsc::Sender<ClusterEvent>) -> anyhow::Result<()> {
        *self.tx.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(tx.clone());
        tx.closed().await;
        Ok(())
    }

    async fn check(&self, _req: &WriteRequest) -> Result<(), WriteError> {
        if self.mode == WriteMode::ReadOnly {
            return Err(WriteError::ReadOnly);
        }
        Ok(())
    }

    async fn send(&self, req: &WriteRequest) -> Result<Outcome, WriteError> {
        if self.mode == WriteMode::ReadOnly {
            return Err(WriteError::ReadOnly);
        }
        let events = {
            let mut state = self.lock();
            let (outcome, events) = self.events_for(&state, req)?;
            if self.mode == WriteMode::DryRun {
                return Ok(outcome);
            }
            for e in &events {
                state.apply(e.clone());
            }
            (outcome, events)
        };
        let tx = self
            .tx
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if let Some(tx) = tx {
            for e in events.1 {
                // A closed channel means nobody watches any more; the state is still updated.
                let _ = tx.send(e).await;
            }
        }
        Ok(events.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::write::{Removal, Step, execute, preempt_plan};

    const CLUSTER: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "1", pods: "10"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: v1, namespace: a, labels: {app: db}}
  spec: {nodeName: n1, priority: 1, containers: [{name: c, image: i}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: v2, namespace: a, labels: {app: web}}
  spec: {nodeName: n1, priority: 1, containers: [{name: c, image: i}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: hi, namespace: a}
  spec: {priority: 10, containers: [{name: c, image: i}]}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: db, namespace: a}
  spec: {selector: {matchLabels: {app: db}}, minAvailable: 1}
  status: {disruptionsAllowed: 0, desiredHealthy: 1, currentHealthy: 1, expectedPods: 1}
"#;

    fn source() -> FixtureSource {
        FixtureSource::from_str("test", CLUSTER).unwrap()
    }

    fn k(s: &str) -> ObjectKey {
        ObjectKey::parse(s, "")
    }

    #[tokio::test]
    async fn bind_updates_state_and_sends_the_watch_event() {
        let s = source();
        let (tx, mut rx) = mpsc::channel(16);
        let w = s.watch(tx);
        let run = async {
            // Let watch register the sender first.
            tokio::task::yield_now().await;
            assert_eq!(s.bind(&k("a/hi"), "n1").await, Ok(Outcome::Done { code: 201 }));
            let ev = rx.recv().await.unwrap();
            let ClusterEvent::Applied(o) = ev else { panic!("{ev:?}") };
            let Object::Pod(p) = *o else { panic!() };
            assert_eq!(p.spec.unwrap().node_name.as_deref(), Some("n1"));
            assert_eq!(
                s.bind(&k("a/hi"), "n1").await,
                Err(WriteError::AlreadyBound {
                    pod: k("a/hi"),
                    node: "n1".into()
                })
            );
            assert_eq!(
                s.bind(&k("a/gone"), "n1").await,
                Err(WriteError::NotFound { pod: k("a/gone") })
            );
            drop(rx);
        };
        let (r, ()) = tokio::join!(w, run);
        r.unwrap();
    }

    #[tokio::test]
    async fn eviction_blocked_by_a_pdb_is_a_partial_preemption() {
        let s = source();
        let c = s.state().to_cluster().unwrap();
        let plan = preempt_plan(&c, &k("a/hi"), "n1", &[k("a/v2"), k("a/v1")], Removal::Evict).unwrap();
        let report = execute(&s, &plan).await;
        assert_eq!(report.steps[0], Step::Done(Outcome::Done { code: 201 }));
        assert_eq!(
            report.steps[1],
            Step::Failed(WriteError::PdbBlocked {
                pod: k("a/v1"),
                pdb: Some("db".into()),
                message: "The disruption budget db needs 1 healthy pods and has 1 currently".into()
            })
        );
        assert_eq!(report.steps[2], Step::NotSent);
        assert_eq!(report.victims_removed(), [k("a/v2")]);
        let after = s.state();
        assert!(after.get(Kind::Pod, &k("a/v2")).is_none());
        assert!(after.get(Kind::Pod, &k("a/v1")).is_some());
    }

    #[tokio::test]
    async fn delete_preemption_marks_deletes_and_nominates() {
        let s = source();
        let c = s.state().to_cluster().unwrap();
        let plan = preempt_plan(&c, &k("a/hi"), "n1", &[k("a/v1")], Removal::Delete).unwrap();
        let report = execute(&s, &plan).await;
        assert!(report.ok(), "{}", report.render(false));
        let after = s.state().to_cluster().unwrap();
        assert!(after.pod(&k("a/v1")).is_none());
        assert_eq!(
            after.pod(&k("a/hi")).unwrap().nominated_node_name.as_deref(),
            Some("n1")
        );
    }

    #[tokio::test]
    async fn readonly_and_dry_run_change_nothing() {
        let s = source().with_write_mode(WriteMode::ReadOnly);
        assert_eq!(s.bind(&k("a/hi"), "n1").await, Err(WriteError::ReadOnly));
        assert_eq!(
            s.check(&WriteRequest::Delete {
                pod: k("a/v1"),
                uid: None
            })
            .await,
            Err(WriteError::ReadOnly)
        );
        let s = source().with_write_mode(WriteMode::DryRun);
        assert_eq!(
            s.remove(&k("a/v2"), Removal::Delete).await,
            Ok(Outcome::Done { code: 200 })
        );
        assert!(s.state().get(Kind::Pod, &k("a/v2")).is_some());
    }
}
