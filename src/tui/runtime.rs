//! Runs the app's effects off the UI thread: explain jobs in `spawn_blocking`, latest
//! generation wins (a job stops as soon as a newer generation starts, and the app drops stale
//! results), one engine snapshot shared per generation.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc::UnboundedSender;

use crate::app::{Action, ExplainJob};
use crate::engine::Snapshot;

/// The engine snapshot of the latest generation, shared by that generation's jobs.
type SnapshotCache = Arc<Mutex<Option<(u64, Arc<Snapshot>)>>>;

/// The effect runner.
pub struct Runtime {
    tx: UnboundedSender<Action>,
    latest: Arc<AtomicU64>,
    cache: SnapshotCache,
}

impl Runtime {
    /// A runner sending results to `tx`.
    pub fn new(tx: UnboundedSender<Action>) -> Self {
        Runtime {
            tx,
            latest: Arc::new(AtomicU64::new(0)),
            cache: Arc::new(Mutex::new(None)),
        }
    }

    /// Explains the job's pods in the background, one `Action::Explained` per pod.
    pub fn explain(&self, job: ExplainJob) {
        self.latest.fetch_max(job.generation, Ordering::SeqCst);
        let (tx, latest, cache) = (self.tx.clone(), self.latest.clone(), self.cache.clone());
        tokio::task::spawn_blocking(move || {
            let snapshot = {
                let mut c = cache.lock().unwrap_or_else(PoisonError::into_inner);
                match &*c {
                    Some((g, s)) if *g == job.generation => s.clone(),
                    _ => {
                        let s = Arc::new(job.snapshot());
                        *c = Some((job.generation, s.clone()));
                        s
                    }
                }
            };
            for pod in &job.pods {
                if latest.load(Ordering::SeqCst) != job.generation {
                    return;
                }
                let result =
                    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.explain(&snapshot, pod))) {
                        Ok(r) => r,
                        Err(_) => {
                            let _ = tx.send(Action::Fatal(format!("the engine panicked while explaining {pod}")));
                            return;
                        }
                    };
                if tx
                    .send(Action::Explained {
                        generation: job.generation,
                        pod: pod.clone(),
                        result,
                    })
                    .is_err()
                {
                    return;
                }
            }
        });
    }
}

/// Checks a write plan's permissions (SelfSubjectAccessReview on a live cluster) and sends it.
/// A refusal sends nothing and names every missing permission.
pub async fn send_plan<S: crate::source::ClusterSource>(
    src: &S,
    plan: &crate::source::write::Plan,
) -> Result<crate::source::write::Report, String> {
    if let Err(refused) = crate::source::write::check_plan(src, plan).await {
        let msgs: Vec<String> = refused.iter().map(ToString::to_string).collect();
        return Err(format!("{}; nothing was sent", msgs.join("; ")));
    }
    Ok(crate::source::write::execute(src, plan).await)
}
