//! Runs the app's effects off the UI thread: explain jobs in `spawn_blocking`, latest
//! generation wins (a job stops as soon as a newer generation starts, and the app drops stale
//! results), one engine snapshot shared per generation.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc::UnboundedSender;

use crate::app::{Action, ExplainJob};
use crate::engine::{SchedulerConfig, Snapshot};
use crate::explain::reproduce::{differs, reproduce_all_while};

/// The engine snapshot of the latest generation, shared by that generation's jobs.
type SnapshotCache = Arc<Mutex<Option<(u64, Arc<Snapshot>)>>>;

/// The effect runner.
pub struct Runtime {
    tx: UnboundedSender<Action>,
    latest: Arc<AtomicU64>,
    cache: SnapshotCache,
    /// The configuration the profiles came from, for the other releases tried when the
    /// cluster recorded another message than kschedtui's.
    config: Option<Arc<SchedulerConfig>>,
}

impl Runtime {
    /// A runner sending results to `tx`.
    pub fn new(tx: UnboundedSender<Action>) -> Self {
        Runtime {
            tx,
            latest: Arc::new(AtomicU64::new(0)),
            cache: Arc::new(Mutex::new(None)),
            config: None,
        }
    }

    /// The same, with the KubeSchedulerConfiguration in use.
    pub fn with_config(mut self, config: Option<SchedulerConfig>) -> Self {
        self.config = config.map(Arc::new);
        self
    }

    /// Explains the job's pods in the background, one `Action::Explained` per pod.
    pub fn explain(&self, job: ExplainJob) {
        self.latest.fetch_max(job.generation, Ordering::SeqCst);
        let (tx, latest, cache) = (self.tx.clone(), self.latest.clone(), self.cache.clone());
        let config = self.config.clone();
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
            let mut done: Vec<Arc<crate::engine::trace::Explanation>> = Vec::new();
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
                // kept only where the cluster recorded another message (a few pods, not all)
                if let Ok(ex) = &result
                    && differs(&job.cluster, ex)
                {
                    done.push(ex.clone());
                }
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
            // Where the cluster recorded another message than kschedtui's: the other profiles
            // and releases that write it, said with the explanation's notes (the pod view lists
            // them), sent again once known. Other releases are tried after every pod was
            // explained, one snapshot at a time.
            let refs: Vec<&crate::engine::trace::Explanation> = done.iter().map(|e| &**e).collect();
            let reproduced = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                reproduce_all_while(
                    &snapshot,
                    &job.profiles,
                    &job.features,
                    config.as_deref(),
                    &refs,
                    || latest.load(Ordering::SeqCst) == job.generation,
                )
            }))
            .unwrap_or_default();
            for (ex, rep) in done.iter().zip(reproduced) {
                let Some(rep) = rep else { continue };
                if latest.load(Ordering::SeqCst) != job.generation {
                    return;
                }
                let mut ex = (**ex).clone();
                ex.notes.push(format!("cluster: {}", rep.note()));
                let _ = tx.send(Action::Explained {
                    generation: job.generation,
                    pod: ex.pod.clone(),
                    result: Ok(Arc::new(ex)),
                });
            }
        });
    }
}

impl Runtime {
    /// Runs `work` on a blocking thread and sends the action `done` makes of its result; an
    /// engine panic ends the app with a message saying what it was doing.
    fn engine_job<R: Send + 'static>(
        &self,
        doing: String,
        work: impl FnOnce() -> R + Send + 'static,
        done: impl FnOnce(R) -> Action + Send + 'static,
    ) {
        let tx = self.tx.clone();
        tokio::task::spawn_blocking(move || {
            let action = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
                Ok(r) => done(r),
                Err(_) => Action::Fatal(format!("the engine panicked while {doing}")),
            };
            let _ = tx.send(action);
        });
    }

    /// Checks a pod's fixes on a blocking thread (one engine run per fix); the result comes
    /// back as `Action::FixesVerified`.
    pub fn fixes(&self, job: crate::app::FixJob) {
        let doing = format!("checking the fixes of {}", job.pod);
        let (generation, pod) = (job.generation, job.pod.clone());
        self.engine_job(
            doing,
            move || job.run(),
            move |result| Action::FixesVerified {
                generation,
                pod,
                result,
            },
        );
    }

    /// Computes a gang's pass in the background; the result comes back as
    /// `Action::GroupComputed`.
    pub fn group(&self, job: crate::app::GroupJob) {
        let doing = format!("scheduling the gang of {}", job.pod);
        let (generation, pod) = (job.generation, job.pod.clone());
        self.engine_job(
            doing,
            move || job.run(),
            move |result| Action::GroupComputed {
                generation,
                pod,
                result,
            },
        );
    }
}

/// Runs a `:deschedule` dry run: reads the policy file, runs its cycle on the job's cluster
/// (in memory) and schedules the replacements; the answer for the app. An engine panic is
/// reported as the run's error, not the app's end.
pub fn deschedule(job: &crate::app::DescheduleJob) -> Action {
    let run = || -> Result<Box<crate::explain::deschedule::DryRun>, String> {
        // `~/…` as a shell reads it
        let path = crate::source::expand_home(std::path::Path::new(&job.path), std::env::var("HOME").ok().as_deref());
        let p = crate::source::deschedule::read(&path).map_err(|e| e.to_string())?;
        let now = k8s_openapi::jiff::Timestamp::from_second(job.now).map_err(|e| format!("the clock: {e}"))?;
        crate::explain::deschedule::run(
            (*job.cluster).clone(),
            &p.path,
            &p.policy,
            &p.unreproduced,
            now,
            &job.profiles,
            &job.features,
        )
        .map(Box::new)
        .map_err(|e| format!("{}: {e}", p.path))
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
        .unwrap_or_else(|_| Err(format!("the engine panicked while running the policy of {}", job.path)));
    Action::Descheduled {
        generation: job.generation,
        path: job.path.clone(),
        result,
    }
}

/// Makes `:fit FILE`'s what-if pods: reads the manifests (a file or a directory, as `kschedtui
/// fit -f` reads them) and makes their workloads' pods on the job's cluster, pending and
/// marked; the answer for the app. An engine panic is reported as the command's error.
pub fn fit(job: &crate::app::FitJob) -> Action {
    let run = || -> Result<Box<crate::engine::fit::WhatIf>, String> {
        if job.path == "-" {
            return Err(
                "-: the standard input is the terminal the TUI reads; give a file name (./- for a file named -)".into(),
            );
        }
        // `~/…` as a shell reads it
        let path = crate::source::expand_home(std::path::Path::new(&job.path), std::env::var("HOME").ok().as_deref());
        let manifests = crate::source::manifests::read(&[path], &job.namespace).map_err(|e| e.to_string())?;
        let mark = format!("fit {}", job.path);
        Ok(Box::new(crate::engine::fit::what_if(
            &job.cluster,
            &manifests,
            &job.features,
            &mark,
        )))
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
        .unwrap_or_else(|_| Err(format!("the engine panicked while making the pods of {}", job.path)));
    Action::FitMade {
        generation: job.generation,
        path: job.path.clone(),
        result,
    }
}

/// `-` is the standard output elsewhere; here it is the screen the TUI draws on.
fn not_the_screen(path: &std::path::Path, command: &str) -> Result<(), String> {
    if path == std::path::Path::new("-") {
        return Err(format!(
            "{command} -: the standard output is the terminal the TUI draws on; give a file name (./- for a file named -)"
        ));
    }
    Ok(())
}

/// Writes the cluster to a snapshot file (`:w`), never leaving a half-written file; the
/// answer for the app.
pub fn save(cluster: &crate::model::Cluster, path: &std::path::Path, overwrite: bool, changes: usize) -> Action {
    let result = not_the_screen(path, ":w").and_then(|()| {
        crate::source::save::save(cluster, path, overwrite).map_err(|e| match e {
            crate::source::save::SaveError::Exists(p) => format!("'{p}' already exists: :w! {p} replaces it"),
            crate::source::save::SaveError::Io { path, cause } => {
                format!("cannot write '{path}': {cause}; nothing was written")
            }
            other => format!("{other}; nothing was written"),
        })
    });
    Action::Saved {
        path: path.display().to_string(),
        changes,
        result,
    }
}

/// Writes the `:export` text (never half-written; an existing file only with `:export!`).
pub fn export(text: &str, path: &std::path::Path, overwrite: bool) -> Action {
    let result = not_the_screen(path, ":export").and_then(|()| {
        crate::source::save::write_text(path, text, overwrite).map_err(|e| match e {
            crate::source::save::SaveError::Exists(p) => format!("'{p}' already exists: :export! {p} replaces it"),
            crate::source::save::SaveError::Io { path, cause } => {
                format!("cannot write '{path}': {cause}; nothing was written")
            }
            other => format!("{other}; nothing was written"),
        })
    });
    Action::Exported {
        path: path.display().to_string(),
        result,
    }
}

/// Asks the source whether each request would be allowed (SelfSubjectAccessReview on a live
/// cluster; nothing is written), one `Action::AccessChecked` per request.
pub async fn check_access<S: crate::source::ClusterSource>(
    src: &S,
    reqs: &[crate::source::write::WriteRequest],
) -> Vec<Action> {
    let mut out = Vec::new();
    for r in reqs {
        let result = match src.check(r).await {
            Ok(()) => crate::app::Access::Allowed,
            Err(
                e @ (crate::source::write::WriteError::Forbidden { .. }
                | crate::source::write::WriteError::Denied { .. }),
            ) => crate::app::Access::Denied(e.to_string()),
            Err(other) => {
                crate::app::Access::Unknown(format!("cannot check the permission to {}: {other}", r.access()))
            }
        };
        out.push(Action::AccessChecked {
            key: crate::app::access_key(r),
            result,
        });
    }
    out
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
        let plan = bind_plan(&cluster, &pod, "node-b", None).expect("plan");
        let report = block(send_plan(&src, &plan)).expect("sent");
        assert!(report.ok());
        assert!(matches!(report.steps[..], [Step::Done(Outcome::Done { .. })]));
        let after = block(src.load()).expect("state").to_cluster().expect("cluster");
        assert_eq!(after.pod(&pod).expect("pod").node_name.as_deref(), Some("node-b"));
    }

    #[test]
    fn a_saved_cluster_reads_back_to_the_same_explanations() {
        use crate::app::{App, SourceInfo, SourceKind, load_sync, update_sync};
        let mut a = App::new(
            SourceInfo {
                kind: SourceKind::Snapshot,
                name: "tui-test.yaml".into(),
            },
            false,
        );
        load_sync(
            &mut a,
            crate::source::file::load_str("tui-test.yaml", FIXTURE).expect("fixture"),
        );
        update_sync(&mut a, Action::RequestBind);
        update_sync(&mut a, Action::Confirm);
        let tmp = tempfile::Builder::new()
            .prefix("kschedtui-runtime-save-")
            .tempdir()
            .expect("dir");
        let dir = tmp.path();
        let path = dir.join("after-bind.yaml");
        let Action::Saved { result, changes, .. } = save(&a.cluster, &path, false, a.changes.len()) else {
            panic!("saved expected")
        };
        assert_eq!(result, Ok(()));
        assert_eq!(changes, 1);
        let Action::Saved { result, .. } = save(&a.cluster, &path, false, 1) else {
            panic!("saved expected")
        };
        assert_eq!(
            result,
            Err(format!(
                "'{}' already exists: :w! {} replaces it",
                path.display(),
                path.display()
            ))
        );
        let mut b = App::new(
            SourceInfo {
                kind: SourceKind::Snapshot,
                name: "after-bind.yaml".into(),
            },
            false,
        );
        load_sync(
            &mut b,
            crate::source::file::load_str("after-bind.yaml", &std::fs::read_to_string(&path).expect("read"))
                .expect("fixture"),
        );
        assert_eq!(
            b.cluster
                .pod(&ObjectKey::new("default", "web-2"))
                .expect("pod")
                .node_name
                .as_deref(),
            Some("node-b")
        );
        assert_eq!(
            a.explanations.keys().collect::<Vec<_>>(),
            b.explanations.keys().collect::<Vec<_>>()
        );
        for (k, ex) in &a.explanations {
            assert_eq!(ex, &b.explanations[k], "{k}");
        }
    }

    #[test]
    fn the_demo_saved_from_typed_objects_explains_the_same() {
        use crate::app::{App, SourceInfo, SourceKind, load_sync};
        let open = |name: &str, text: &str| {
            let mut a = App::new(
                SourceInfo {
                    kind: SourceKind::Demo,
                    name: name.into(),
                },
                false,
            );
            load_sync(&mut a, crate::source::file::load_str(name, text).expect("fixture"));
            a
        };
        let a = open("demo", include_str!("../../fixtures/demo.yaml"));
        let text = crate::source::save::to_text(&a.cluster, false).expect("text");
        let b = open("saved", &text);
        assert!(a.explanations.len() > 10);
        assert_eq!(a.explanations, b.explanations);
        assert!(
            !a.cluster.scheduling_events.is_empty(),
            "the demo has FailedScheduling events"
        );
        assert_eq!(a.cluster.scheduling_events, b.cluster.scheduling_events);
    }

    #[test]
    fn check_access_answers_one_action_per_request() {
        let src = FixtureSource::from_str("t", FIXTURE).expect("fixture");
        let cluster = src.state().to_cluster().expect("cluster");
        let plan = bind_plan(&cluster, &ObjectKey::new("default", "web-2"), "node-b", None).expect("plan");
        let answers = block(check_access(&src, &plan.requests));
        let [Action::AccessChecked { key, result }] = answers.as_slice() else {
            panic!("one answer expected")
        };
        assert_eq!(key, "create pods/binding in namespace 'default'");
        assert_eq!(result, &crate::app::Access::Allowed);
        let ro = FixtureSource::from_str("t", FIXTURE)
            .expect("fixture")
            .with_write_mode(WriteMode::ReadOnly);
        let answers = block(check_access(&ro, &plan.requests));
        let [Action::AccessChecked { result, .. }] = answers.as_slice() else {
            panic!("one answer expected")
        };
        assert_eq!(
            result,
            &crate::app::Access::Unknown(
                "cannot check the permission to create pods/binding in namespace 'default': writes are disabled (--readonly); nothing was sent".into()
            )
        );
    }

    #[test]
    fn send_plan_in_readonly_mode_sends_nothing() {
        let src = FixtureSource::from_str("t", FIXTURE)
            .expect("fixture")
            .with_write_mode(WriteMode::ReadOnly);
        let cluster = src.state().to_cluster().expect("cluster");
        let pod = ObjectKey::new("default", "web-2");
        let plan = bind_plan(&cluster, &pod, "node-b", None).expect("plan");
        assert_eq!(
            block(send_plan(&src, &plan)).expect_err("refused"),
            "writes are disabled (--readonly); nothing was sent"
        );
        let after = src.state().to_cluster().expect("cluster");
        assert!(after.pod(&pod).expect("pod").node_name.is_none());
    }
}
