//! A snapshot held in memory as a full [`ClusterSource`]: writes are applied to the in-memory
//! state and come back through [`watch`](ClusterSource::watch) as the same [`ClusterEvent`]s a
//! live watch would send, so the whole loop (explain, preempt, victims vanish, re-explain,
//! bind) runs in tests and demos without a cluster. Nothing is ever written to the file.
//!
//! Requests are answered by the one in-memory API server, [`crate::model::apiserver`]: the
//! same preconditions and refusals (404, 409, 429 from a PodDisruptionBudget, 500 for several
//! PDBs) as kube-apiserver, and the same changes as everywhere else kschedtui applies a write
//! in memory.

use std::path::Path;
use std::sync::Mutex;

use tokio::sync::mpsc;

use super::ClusterSource;
use super::file::{self, LoadError};
use super::write::{Outcome, WriteError, WriteMode, WriteRequest};
use crate::model::Cluster;
use crate::model::apiserver::{self, ServerOptions};
use crate::model::event::{ClusterEvent, ClusterState};

/// A snapshot in memory.
#[derive(Debug)]
pub struct FixtureSource {
    name: String,
    mode: WriteMode,
    state: Mutex<ClusterState>,
    tx: Mutex<Option<mpsc::Sender<ClusterEvent>>>,
    warnings: Vec<String>,
    server: ServerOptions,
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
            server: ServerOptions::default(),
        }
    }

    /// Sets the write mode (`--readonly`, `--dry-run=server`).
    #[must_use]
    pub fn with_write_mode(mut self, mode: WriteMode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets how the in-memory API server behaves where releases differ.
    #[must_use]
    pub fn with_server_options(mut self, server: ServerOptions) -> Self {
        self.server = server;
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
        let (outcome, changes) = apiserver::send(&mut *self.lock(), req, self.mode, &self.server)?;
        let tx = self
            .tx
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if let Some(tx) = tx {
            for c in &changes {
                // A closed channel means nobody watches any more; the state is still updated.
                let _ = tx.send(c.to_event()).await;
            }
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::Kind;
    use crate::model::{Object, ObjectKey};
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
            let crate::model::event::Item::Object(Object::Pod(p)) = *o else {
                panic!()
            };
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
        assert_eq!(after.pod(&k("a/hi")).unwrap().nominated_node_name(), Some("n1"));
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
