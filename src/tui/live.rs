//! `kschedtui` alone: attaches to the current kubeconfig context. Connecting resolves the
//! kubeconfig before the terminal opens (so a bad kubeconfig is a one-line error); listing,
//! with progress, and watching run in the background while the UI takes input; confirmed
//! writes are checked and sent by [`runtime::send_plan`](super::runtime::send_plan).

use std::future::Future;
use std::sync::Arc;

use anyhow::Result;
use tokio::sync::mpsc::{self, UnboundedSender};

use super::theme::Theme;
use super::{LiveJob, Options, Writer, event_loop, runtime};
use crate::app::{Action, Attached, SourceInfo, SourceKind};
use crate::engine::{SchedulerConfig, Version, build_profiles};
use crate::source::ClusterSource;
use crate::source::live::config::Environment;
use crate::source::live::watch::Progress;
use crate::source::live::{LiveSource, Scope};

/// Connects, then runs the TUI on the live cluster.
pub fn run(opts: &Options, theme: Theme, warnings: Vec<String>) -> Result<()> {
    super::runtime()?.block_on(async {
        let copts = crate::cli::live::connect_options(&opts.cluster, opts.namespace.clone(), Scope::AllNamespaces);
        let src = LiveSource::connect(&copts, &Environment::from_process()).await?;
        let info = SourceInfo {
            kind: SourceKind::Live,
            name: src.describe(),
        };
        let (tx, rx) = mpsc::unbounded_channel::<Action>();
        let ptx = tx.clone();
        let src = Arc::new(src.with_progress(Arc::new(move |p: &Progress| {
            let _ = ptx.send(Action::LoadProgress(progress_text(p)));
        })));
        let pinned = opts.version;
        let version = {
            let src = src.clone();
            // the server's release, clamped to the supported range; a server that does not
            // answer fails the listing next, with the message that names it
            async move {
                match pinned {
                    Some(v) => v,
                    None => src
                        .server_version()
                        .await
                        .map_or(Version::NEWEST, |sv| Version::clamp_minor(sv.minor)),
                }
            }
        };
        tokio::spawn(attach(src.clone(), version, opts.config.clone(), tx.clone()));
        let writer: Writer = {
            let tx = tx.clone();
            Arc::new(move |job| {
                let (src, tx) = (src.clone(), tx.clone());
                tokio::spawn(async move {
                    match job {
                        LiveJob::Write(plan) => {
                            let r = runtime::send_plan(src.as_ref(), &plan).await;
                            let _ = tx.send(Action::Written(Box::new(r)));
                        }
                        LiveJob::Check(reqs) => {
                            for a in runtime::check_access(src.as_ref(), &reqs).await {
                                let _ = tx.send(a);
                            }
                        }
                    }
                });
            })
        };
        event_loop(opts.clone(), info, theme, warnings, (tx, rx), Some(writer)).await
    })
}

/// One line of list progress.
pub fn progress_text(p: &Progress) -> String {
    format!(
        "listing {}: {} ({} page(s)){}",
        p.kind.plural(),
        p.items,
        p.pages,
        if p.done { ", done" } else { "" }
    )
}

/// Lists the cluster (the server's release picks the scheduler version reproduced), sends
/// `Action::Attached`, then forwards every watch event until the app goes away.
pub async fn attach<S: ClusterSource>(
    src: Arc<S>,
    version: impl Future<Output = Version> + Send,
    config: Option<SchedulerConfig>,
    tx: UnboundedSender<Action>,
) {
    let version = version.await;
    let r = async {
        let state = src.load().await?;
        let profiles = build_profiles(config.as_ref(), version)?;
        Ok::<_, anyhow::Error>(Attached {
            state,
            profiles,
            version,
            write_mode: src.write_mode(),
        })
    }
    .await
    .map_err(|e| format!("{e:#}"));
    let ok = r.is_ok();
    if tx.send(Action::Attached(Box::new(r))).is_err() || !ok {
        return;
    }
    let (etx, mut erx) = mpsc::channel(1024);
    let watcher = {
        let src = src.clone();
        tokio::spawn(async move { src.watch(etx).await })
    };
    while let Some(ev) = erx.recv().await {
        if tx.send(Action::Cluster(Box::new(ev))).is_err() {
            watcher.abort();
            return;
        }
    }
    let why = match watcher.await {
        Ok(Err(e)) => format!("{e:#}"),
        _ => "the watch stopped".to_string(),
    };
    let _ = tx.send(Action::WatchEnded(why));
}
