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
        let text = msgs.join("; ");
        return Err(if text.ends_with("nothing was sent") {
            text
        } else {
            format!("{text}; nothing was sent")
        });
    }
    Ok(crate::source::write::execute(src, plan).await)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ObjectKey;
    use crate::source::ClusterSource as _;
    use crate::source::fixture::FixtureSource;
    use crate::source::write::{Outcome, Step, WriteMode, bind_plan};

    const FIXTURE: &str = include_str!("../../fixtures/tui-test.yaml");

    fn block<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(f)
    }

    #[test]
    fn send_plan_checks_then_sends_through_the_source() {
        let src = FixtureSource::from_str("t", FIXTURE).expect("fixture");
        let cluster = src.state().to_cluster().expect("cluster");
        let pod = ObjectKey::new("default", "web-2");
        let plan = bind_plan(&cluster, &pod, "node-b").expect("plan");
        let report = block(send_plan(&src, &plan)).expect("sent");
        assert!(report.ok());
        assert!(matches!(report.steps[..], [Step::Done(Outcome::Done { .. })]));
        let after = block(src.load()).expect("state").to_cluster().expect("cluster");
        assert_eq!(after.pod(&pod).expect("pod").node_name.as_deref(), Some("node-b"));
    }

    #[test]
    fn send_plan_in_readonly_mode_sends_nothing() {
        let src = FixtureSource::from_str("t", FIXTURE)
            .expect("fixture")
            .with_write_mode(WriteMode::ReadOnly);
        let cluster = src.state().to_cluster().expect("cluster");
        let pod = ObjectKey::new("default", "web-2");
        let plan = bind_plan(&cluster, &pod, "node-b").expect("plan");
        assert_eq!(
            block(send_plan(&src, &plan)).expect_err("refused"),
            "writes are disabled (--readonly); nothing was sent"
        );
        let after = src.state().to_cluster().expect("cluster");
        assert!(after.pod(&pod).expect("pod").node_name.is_none());
    }
}
