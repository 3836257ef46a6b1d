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
use crate::app::{Action, Attached, ListProgress, SourceInfo, SourceKind};
use crate::engine::{Features, Release, SchedulerConfig, build_profiles};
use crate::source::ClusterSource;
use crate::source::live::LiveSource;
use crate::source::live::config::Environment;
use crate::source::live::watch::Progress;

/// Connects, then runs the TUI on the live cluster; `:ctx NAME` ends the attachment and
/// attaches again to that context.
pub(crate) fn run(opts: &Options, theme: Theme, warnings: Vec<String>) -> Result<()> {
    let mut opts = opts.clone();
    let mut warnings = warnings;
    loop {
        match attach_once(&opts, theme.clone(), std::mem::take(&mut warnings))? {
            Some(context) => opts.connect.config.context = Some(context),
            None => return Ok(()),
        }
    }
}

/// One attachment: the context to attach to next, if `:ctx` asked for one.
fn attach_once(opts: &Options, theme: Theme, warnings: Vec<String>) -> Result<Option<String>> {
    super::block_on(super::runtime()?, async {
        let env = Environment::from_process();
        let src = LiveSource::connect(&opts.connect, &env).await?;
        let contexts = crate::app::Contexts {
            current: src.info().context.clone(),
            all: crate::source::live::config::context_names(&opts.connect.config, &env).unwrap_or_default(),
        };
        let info = SourceInfo {
            kind: SourceKind::Live,
            name: src.describe(),
        };
        let (tx, rx) = mpsc::unbounded_channel::<Action>();
        let _ = tx.send(Action::Contexts(contexts));
        let ptx = tx.clone();
        let src = Arc::new(src.with_progress(Arc::new(move |p: &Progress| {
            let _ = ptx.send(Action::LoadProgress(list_progress(p)));
        })));
        let pinned = opts.release.clone();
        let version = {
            let src = src.clone();
            // the server's release (or the nearest known, with a note); a server that does not
            // answer fails the listing next, with the message that names it
            async move {
                let server = if pinned.scheduler_version.is_some() {
                    None
                } else {
                    src.server_version()
                        .await
                        .ok()
                        .map(|sv| Release::from_server(&sv.git_version))
                };
                pinned.features(server).map_err(|e| format!("{e:#}"))
            }
        };
        let (relist_tx, relist_rx) = mpsc::unbounded_channel::<()>();
        tokio::spawn(attach(src.clone(), version, opts.config.clone(), tx.clone(), relist_rx));
        let writer: Writer = {
            let tx = tx.clone();
            Arc::new(move |job| {
                if let LiveJob::Relist = job {
                    let _ = relist_tx.send(());
                    return;
                }
                let (src, tx) = (src.clone(), tx.clone());
                tokio::spawn(async move {
                    match job {
                        LiveJob::Relist => {}
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

/// The source's list progress as the app keeps it.
pub(crate) fn list_progress(p: &Progress) -> ListProgress {
    ListProgress {
        kind: p.kind.plural().to_string(),
        items: p.items,
        pages: p.pages,
        done: p.done,
    }
}

/// Lists the cluster (the server's release picks the scheduler version reproduced), sends
/// `Action::Attached`, then forwards every watch event until the app goes away. A message on
/// `relist` (Ctrl-r) stops the watch, lists every kind again, sends the state as one
/// `ClusterEvent::Replaced` and watches from there.
pub(crate) async fn attach<S: ClusterSource + 'static>(
    src: Arc<S>,
    features: impl Future<Output = Result<Features, String>> + Send,
    config: Option<SchedulerConfig>,
    tx: UnboundedSender<Action>,
    mut relist: mpsc::UnboundedReceiver<()>,
) {
    let features = features.await;
    let r = async {
        let features = features.map_err(anyhow::Error::msg)?;
        let state = src.load().await?;
        let profiles = build_profiles(config.as_ref(), &features)?;
        Ok::<_, anyhow::Error>(Attached {
            state,
            profiles,
            features: std::sync::Arc::new(features),
            write_mode: src.write_mode(),
        })
    }
    .await
    .map_err(|e| format!("{e:#}"));
    let ok = r.is_ok();
    if tx.send(Action::Attached(Box::new(r))).is_err() || !ok {
        return;
    }
    loop {
        let (etx, mut erx) = mpsc::channel(1024);
        let watcher = {
            let src = src.clone();
            tokio::spawn(async move { src.watch(etx).await })
        };
        let asked = loop {
            tokio::select! {
                ev = erx.recv() => match ev {
                    Some(ev) => {
                        if tx.send(Action::Cluster(Box::new(ev))).is_err() {
                            watcher.abort();
                            return;
                        }
                    }
                    None => break false,
                },
                Some(()) = relist.recv() => break true,
            }
        };
        if !asked {
            let why = match watcher.await {
                Ok(Err(e)) => format!("{e:#}"),
                _ => "the watch stopped".to_string(),
            };
            let _ = tx.send(Action::WatchEnded(why));
            return;
        }
        watcher.abort();
        let _ = watcher.await;
        // several Ctrl-r at once are one list
        while relist.try_recv().is_ok() {}
        match src.load().await {
            Ok(state) => {
                let ev = crate::model::event::ClusterEvent::Replaced {
                    reason: crate::model::event::RELIST_ASKED.to_string(),
                    state: Box::new(state),
                };
                if tx.send(Action::Cluster(Box::new(ev))).is_err() {
                    return;
                }
            }
            Err(e) => {
                // the view stays on what was listed before, marked stale, and the watches go on
                let ev = crate::model::event::ClusterEvent::Stale {
                    kind: crate::model::event::Kind::Pod,
                    reason: format!("listing the cluster again (Ctrl-r) failed: {e:#}"),
                };
                if tx.send(Action::Cluster(Box::new(ev))).is_err() {
                    return;
                }
            }
        }
    }
}
