//! A real cluster as a [`ClusterSource`]: connects as kubectl would ([`config`]), lists every
//! kind the engine reads page by page with progress, watches them from the listed
//! resourceVersions ([`watch`]), and sends the write requests ([`actions`]).
//!
//! Reads: Nodes, Pods, Namespaces, PriorityClasses, PodDisruptionBudgets, PersistentVolumes,
//! PersistentVolumeClaims, StorageClasses, CSINodes, Services, ReplicaSets, StatefulSets,
//! ReplicationControllers, PodGroups when the scheduler-plugins CRD is served, and two optional
//! kinds: the FailedScheduling events about pods and the VolumeAttachments (when either cannot
//! be read, the load goes on without it and says why). Never Secrets or ConfigMaps.

pub mod actions;
pub(crate) mod answer;
pub mod config;
pub(crate) mod decode;
pub mod error;
pub mod kinds;
pub mod stream;
pub mod watch;

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

use self::actions::ActionContext;
use self::config::{ConfigOptions, ConnectionInfo, Environment};
use self::error::{ErrorContext, LiveError, classify};
use self::kinds::{LiveKind, with_served_kind};
use self::watch::{KindTarget, Progress, WatchOptions};
use super::ClusterSource;
use super::write::{Outcome, WriteError, WriteMode, WriteRequest};
use crate::model::event::{ClusterEvent, ClusterState, Kind};

/// Which namespaces' objects are read (cluster-scoped kinds are always read whole).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Scope {
    /// Every namespace (`-A`; what the scheduler sees, so the default).
    #[default]
    AllNamespaces,
    /// One namespace (`snapshot -n NS`): pods of other namespaces are missing, so node usage
    /// is understated.
    Namespace(String),
}

/// How to connect.
#[derive(Clone, Debug, Default)]
pub struct ConnectOptions {
    /// Kubeconfig choices.
    pub config: ConfigOptions,
    /// Namespaces to read.
    pub scope: Scope,
    /// Writes.
    pub mode: WriteMode,
    /// Paging and timing.
    pub watch: WatchOptions,
}

/// Called after each list page.
pub type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// The server's version (GET /version).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerVersion {
    /// Major ("1").
    pub major: String,
    /// Minor as a number ("30+" → 30).
    pub minor: u32,
    /// gitVersion ("v1.30.6").
    pub git_version: String,
}

/// The User-Agent of every request: `kschedtui/VERSION`.
pub const USER_AGENT: &str = concat!("kschedtui/", env!("CARGO_PKG_VERSION"));

/// A live cluster.
pub struct LiveSource {
    client: kube::Client,
    info: ConnectionInfo,
    scope: Scope,
    mode: WriteMode,
    opts: WatchOptions,
    progress: Option<ProgressFn>,
    /// resourceVersions and uids of the last load, where watches start.
    listed: Mutex<BTreeMap<Kind, (String, watch::Uids)>>,
    /// The kube-system namespace's uid at the last load: who the server is.
    identity: Mutex<Option<String>>,
    /// Whether PodGroups are served (known after a load).
    /// The discovered kinds the server serves (None until discovery ran).
    served: Mutex<Option<std::collections::BTreeSet<Kind>>>,
    /// The optional kinds ([`Kind::optional`]) that could not be listed at the last load (then
    /// they are not watched either).
    unreadable: Mutex<std::collections::BTreeSet<Kind>>,
    /// The version of resource.k8s.io the DRA kinds are read in (discovery's newest of v1,
    /// v1beta2, v1beta1; "v1" until discovery ran).
    dra_version: Mutex<String>,
    /// Where the writes' waits report their progress.
    write_progress: Option<actions::WriteProgress>,
    /// Why the last load listed page by page after the server refused a streaming list.
    not_streamed: Mutex<Option<String>>,
}

impl std::fmt::Debug for LiveSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveSource")
            .field("info", &self.info)
            .field("scope", &self.scope)
            .finish()
    }
}

impl LiveSource {
    /// Resolves the kubeconfig and builds a client. Contacts nothing yet.
    pub async fn connect(opts: &ConnectOptions, env: &Environment) -> Result<Self, LiveError> {
        let mut copts = opts.config.clone();
        if copts.timeout.is_none() {
            copts.timeout = Some(opts.watch.request_timeout);
        }
        let mut resolved = config::resolve(&copts, env).await?;
        // every request names kschedtui in the cluster's audit log
        resolved
            .config
            .headers
            .push((http::header::USER_AGENT, http::HeaderValue::from_static(USER_AGENT)));
        let info = resolved.info;
        let timeout = copts.timeout.unwrap_or(DEFAULT_TIMEOUT);
        let client = build_client(resolved.config, &info, timeout).await?;
        Ok(LiveSource {
            client,
            info,
            scope: opts.scope.clone(),
            mode: opts.mode,
            opts: opts.watch.clone(),
            progress: None,
            listed: Mutex::new(BTreeMap::new()),
            identity: Mutex::new(None),
            served: Mutex::new(None),
            unreadable: Mutex::new(std::collections::BTreeSet::new()),
            dra_version: Mutex::new("v1".to_string()),
            write_progress: None,
            not_streamed: Mutex::new(None),
        })
    }

    /// Reports list progress to `f`.
    #[must_use]
    pub fn with_progress(mut self, f: ProgressFn) -> Self {
        self.progress = Some(f);
        self
    }

    /// Reports the progress of long writes (VolumeBinding's wait) to `f`.
    #[must_use]
    pub fn with_write_progress(mut self, f: actions::WriteProgress) -> Self {
        self.write_progress = Some(f);
        self
    }

    /// The version of resource.k8s.io the DRA kinds are read and written in.
    pub fn resource_version(&self) -> String {
        self.dra_version
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Where the source points.
    pub fn info(&self) -> &ConnectionInfo {
        &self.info
    }

    /// The namespaces read.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    fn cx<'a>(&'a self, doing: &'a str, verb: &'a str, resource: &'a str) -> ErrorContext<'a> {
        ErrorContext {
            server: &self.info.server,
            context: &self.info.context,
            doing,
            verb,
            resource,
        }
    }

    /// GET /version.
    pub async fn server_version(&self) -> Result<ServerVersion, LiveError> {
        let cx = self.cx("reading the server version", "get", "/version");
        let req = http::Request::get("/version")
            .body(Vec::new())
            .map_err(|e| LiveError::Other {
                server: self.info.server.clone(),
                doing: cx.doing.to_string(),
                cause: e.to_string(),
            })?;
        let version = answer::get_json::<k8s_openapi::apimachinery::pkg::version::Info>(&self.client, req);
        let info = tokio::time::timeout(self.opts.request_timeout, version)
            .await
            .map_err(|_| LiveError::Timeout {
                server: self.info.server.clone(),
                doing: cx.doing.to_string(),
                secs: self.opts.request_timeout.as_secs(),
            })?
            .map_err(|e| e.error(&cx))?;
        let minor: String = info.minor.chars().take_while(char::is_ascii_digit).collect();
        Ok(ServerVersion {
            major: info.major,
            minor: minor.parse().unwrap_or(0),
            git_version: info.git_version,
        })
    }

    /// Notes why a kind's streaming list was given up.
    fn not_streamed(&self, kind: Kind, why: stream::NotStreamed) {
        *self
            .not_streamed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(format!(
            "the server did not stream the list of {} ({}): listed page by page",
            kind.plural(),
            why.0
        ));
    }

    /// Why the last load listed page by page although the server's release streams lists
    /// (the WatchList gate turned off, a role without `watch`, a proxy); None when it did not
    /// need to.
    pub fn not_streamed_reason(&self) -> Option<String> {
        self.not_streamed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn actions(&self) -> ActionContext<'_> {
        ActionContext {
            client: &self.client,
            server: &self.info.server,
            context: &self.info.context,
            mode: self.mode,
            timeout: self.opts.request_timeout,
            resource_version: self.resource_version(),
            progress: self.write_progress.clone(),
        }
    }

    fn url_of(&self, kind: Kind) -> String {
        let ns = match (&self.scope, kind.namespaced()) {
            (Scope::Namespace(ns), true) => Some(ns.as_str()),
            _ => None,
        };
        let version = self.resource_version();
        with_served_kind!(kind, version.as_str(), K => <K as kube::Resource>::url_path(&(), ns))
    }

    fn resource_text(&self, kind: Kind) -> String {
        match (&self.scope, kind.namespaced()) {
            (Scope::Namespace(ns), true) => format!("{} in namespace '{ns}'", kind.plural()),
            (Scope::AllNamespaces, true) => format!("{} in all namespaces", kind.plural()),
            _ => kind.plural().to_string(),
        }
    }

    /// The kinds to list: every kind, less those served only with a feature or a CRD
    /// ([`Kind::discovered`]: DRA, PodGroup) that API discovery does not list.
    async fn kinds(&self) -> Result<Vec<Kind>, LiveError> {
        let known = self
            .served
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let served = match known {
            Some(s) => s,
            None => {
                let mut s = std::collections::BTreeSet::new();
                let mut by_gv: BTreeMap<&str, Vec<Kind>> = BTreeMap::new();
                for k in Kind::ALL
                    .into_iter()
                    .filter(|k| k.discovered() && !kinds::is_dra_v1_kind(*k))
                {
                    by_gv.entry(k.api_version()).or_default().push(k);
                }
                for (gv, kinds) in by_gv {
                    let doing = format!("discovering the {gv} API");
                    let cx = self.cx(&doing, "get", "API discovery");
                    let names = actions::served_resources(&self.client, gv, &cx).await?;
                    s.extend(kinds.into_iter().filter(|k| names.iter().any(|n| n == k.plural())));
                }
                // DRA: the newest version of resource.k8s.io the server serves (v1 from 1.34;
                // v1beta1 and v1beta2 on 1.32 and 1.33, converted as they are read)
                let dra: Vec<Kind> = Kind::ALL.into_iter().filter(|k| kinds::is_dra_v1_kind(*k)).collect();
                for version in kinds::DRA_VERSIONS {
                    let gv = format!("resource.k8s.io/{version}");
                    let doing = format!("discovering the {gv} API");
                    let cx = self.cx(&doing, "get", "API discovery");
                    let names = actions::served_resources(&self.client, &gv, &cx).await?;
                    let here: Vec<Kind> = dra
                        .iter()
                        .copied()
                        .filter(|k| names.iter().any(|n| n == k.plural()))
                        .collect();
                    if !here.is_empty() {
                        s.extend(here);
                        *self
                            .dra_version
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner) = version.to_string();
                        break;
                    }
                }
                *self.served.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(s.clone());
                s
            }
        };
        Ok(Kind::ALL
            .into_iter()
            .filter(|k| !k.discovered() || served.contains(k))
            .collect())
    }

    /// Lists every kind. Events and VolumeAttachments are optional: when one cannot be listed
    /// (403, ...), the state records why in [`ClusterState::unreadable`] and the load goes on.
    pub async fn load_state(&self) -> Result<ClusterState, LiveError> {
        *self.served.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        self.unreadable
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
        let kinds = self.kinds().await?;
        let dra_version = self.resource_version();
        let mut state = ClusterState::new();
        state.not_served = Kind::ALL
            .into_iter()
            .filter(|k| k.discovered() && !kinds.contains(k))
            .collect();
        if kinds.iter().any(|k| self::kinds::is_dra_v1_kind(*k)) {
            state.dra_version = Some(dra_version.clone());
        }
        let mut listed = BTreeMap::new();
        let noop: ProgressFn = Arc::new(|_: &Progress| {});
        let progress = self.progress.clone().unwrap_or(noop);
        // streamed where the server streams lists by default; the first refusal lists the
        // rest page by page
        *self
            .not_streamed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        let mut streaming = self.opts.streaming_lists
            && self
                .server_version()
                .await
                .is_ok_and(|v| stream::streams_by_default(&v.major, v.minor));
        for kind in kinds {
            let doing = format!("listing {}", self.resource_text(kind));
            let resource = self.resource_text(kind);
            let target = KindTarget {
                url: self.url_of(kind),
                cx: self.cx(&doing, "list", &resource),
            };
            let answer = with_served_kind!(kind, dra_version.as_str(), K => {
                let streamed = if streaming {
                    stream::stream_kind::<K>(&self.client, &target, &self.opts, progress.as_ref())
                        .await
                        .map_err(|why| self.not_streamed(kind, why))
                        .ok()
                } else {
                    None
                };
                streaming &= streamed.is_some();
                match streamed {
                    Some(answer) => Ok(answer),
                    None => watch::list_kind::<K>(&self.client, &target, &self.opts, progress.as_ref()).await,
                }
            });
            let (objects, rv) = match answer {
                Ok(x) => x,
                Err(e) if kind.optional() => {
                    state.unreadable.insert(kind, unreadable_reason(&e));
                    self.unreadable
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .insert(kind);
                    continue;
                }
                Err(e) => return Err(e),
            };
            listed.insert(kind, (rv.clone(), watch::uids_of(&objects)));
            state.apply(ClusterEvent::Resynced {
                kind,
                objects,
                resource_version: rv,
            });
        }
        state.generation = 0;
        let kube_system = state
            .get(Kind::Namespace, &crate::model::ObjectKey::parse("kube-system", ""))
            .and_then(|o| o.meta().uid.clone())
            .filter(|u| !u.is_empty());
        *self.identity.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = kube_system;
        *self.listed.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = listed;
        Ok(state)
    }

    /// Watches every kind from the last load's resourceVersions (kinds never listed are
    /// listed first), until `tx` closes. When what a watch sees shows the cluster is not the one
    /// listed (recreated under the same URL: an object back with another uid, a resourceVersion
    /// going backwards, another kube-system namespace), every watch stops, every kind is listed
    /// again and sent as one [`ClusterEvent::Replaced`], and the watches start over from there.
    ///
    /// Listing every kind again is backed off as a kind's watch is ([`watch::Backoff`]): a
    /// server that keeps showing another cluster (answering every watch `Too large resource
    /// version`) is listed again after 0.8 s, then 1.6 s, ... up to 30 s (plus jitter), not in a
    /// loop.
    pub async fn watch_events(&self, tx: mpsc::Sender<ClusterEvent>) -> Result<(), LiveError> {
        let mut backoff = watch::Backoff::of(&self.opts);
        loop {
            let Some(reason) = self.watch_all(&tx).await? else {
                return Ok(());
            };
            let mut told = false;
            loop {
                tokio::select! {
                    () = tx.closed() => return Ok(()),
                    () = tokio::time::sleep(backoff.next_delay()) => {}
                }
                match self.load_state().await {
                    Ok(state) => {
                        let ev = ClusterEvent::Replaced {
                            reason: reason.clone(),
                            state: Box::new(state),
                        };
                        if tx.send(ev).await.is_err() {
                            return Ok(());
                        }
                        break;
                    }
                    Err(e) => {
                        if !std::mem::replace(&mut told, true) {
                            let ev = ClusterEvent::Stale {
                                kind: Kind::Pod,
                                reason: format!("{reason}; listing it again failed: {e}"),
                            };
                            if tx.send(ev).await.is_err() {
                                return Ok(());
                            }
                        }
                        if tx.is_closed() {
                            return Ok(());
                        }
                    }
                }
            }
        }
    }

    /// One run of every kind's watch: None when `tx` closed, Some(reason) when the cluster
    /// turned out to be another one.
    async fn watch_all(&self, tx: &mpsc::Sender<ClusterEvent>) -> Result<Option<String>, LiveError> {
        use futures::StreamExt;
        let unreadable = self
            .unreadable
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let mut kinds = self.kinds().await?;
        kinds.retain(|k| !unreadable.contains(k));
        let dra_version = self.resource_version();
        // taken, not copied: each kind's watch keeps its uids (a kind never listed since is
        // listed first)
        let mut listed = std::mem::take(&mut *self.listed.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        let identity = self
            .identity
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let texts: Vec<(Kind, String, String, String)> = kinds
            .iter()
            .map(|k| {
                let r = self.resource_text(*k);
                (*k, format!("watching {r}"), r, self.url_of(*k))
            })
            .collect();
        let mut tasks: futures::stream::FuturesUnordered<Pin<Box<dyn Future<Output = Option<String>> + Send + '_>>> =
            futures::stream::FuturesUnordered::new();
        for (kind, doing, resource, url) in &texts {
            let (resource_version, uids) = listed.remove(kind).unwrap_or_default();
            let start = watch::WatchStart {
                resource_version,
                uids,
                identity: identity.clone(),
            };
            let tx = tx.clone();
            let target = KindTarget {
                url: url.clone(),
                cx: self.cx(doing, "watch", resource),
            };
            let client = &self.client;
            let opts = &self.opts;
            tasks.push(
                with_served_kind!(*kind, dra_version.as_str(), K => Box::pin(async move {
                    watch_one::<K>(client, target, start, opts, tx).await
                })),
            );
        }
        while let Some(r) = tasks.next().await {
            if r.is_some() {
                return Ok(r);
            }
        }
        Ok(None)
    }
}

/// Why an optional kind could not be read, short: "403 Forbidden: <the server's message>",
/// or the whole error line for anything else.
fn unreadable_reason(e: &LiveError) -> String {
    match e {
        LiveError::Forbidden { message, .. } if message.is_empty() => "403 Forbidden".to_string(),
        LiveError::Forbidden { message, .. } => format!("403 Forbidden: {message}"),
        other => other.to_string(),
    }
}

async fn watch_one<K: LiveKind>(
    client: &kube::Client,
    target: KindTarget<'_>,
    start: watch::WatchStart,
    opts: &WatchOptions,
    tx: mpsc::Sender<ClusterEvent>,
) -> Option<String> {
    watch::watch_kind::<K>(client, &target, start, opts, &tx).await
}

impl ClusterSource for LiveSource {
    fn describe(&self) -> String {
        format!("context '{}' ({})", self.info.context, self.info.server)
    }

    fn write_mode(&self) -> WriteMode {
        self.mode
    }

    async fn load(&self) -> anyhow::Result<ClusterState> {
        Ok(self.load_state().await?)
    }

    async fn watch(&self, tx: mpsc::Sender<ClusterEvent>) -> anyhow::Result<()> {
        Ok(self.watch_events(tx).await?)
    }

    async fn check(&self, req: &WriteRequest) -> Result<(), WriteError> {
        self.actions().check(req).await
    }

    async fn send(&self, req: &WriteRequest) -> Result<Outcome, WriteError> {
        self.actions().send(req).await
    }
}

/// Builds the client. kube runs an exec credential plugin (a kubeconfig's `user.exec`, or an
/// auth provider's `cmd-path`) while building it, synchronously and without a time limit: a
/// plugin waiting for a login that never comes would hang kschedtui. So the client is built on
/// a thread of its own and waited for at most `timeout` (`--request-timeout`); past it the
/// error names the command and the context. (The plugin's process is kube's: it is left to
/// end on its own.)
async fn build_client(
    config: kube::Config,
    info: &ConnectionInfo,
    timeout: Duration,
) -> Result<kube::Client, LiveError> {
    let command = config
        .auth_info
        .exec
        .as_ref()
        .and_then(|e| {
            let cmd = e.command.clone()?;
            Some(
                std::iter::once(cmd)
                    .chain(e.args.clone().unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        })
        .or_else(|| {
            let p = config.auth_info.auth_provider.as_ref()?;
            let cmd = p.config.get("cmd-path")?;
            Some(match p.config.get("cmd-args") {
                Some(args) => format!("{cmd} {args}"),
                None => cmd.clone(),
            })
        });
    let (tx, rx) = tokio::sync::oneshot::channel();
    let runtime = tokio::runtime::Handle::current();
    let built = std::thread::Builder::new()
        .name("kschedtui-credentials".into())
        .spawn(move || {
            // the client's buffer spawns its worker on the runtime
            let _in = runtime.enter();
            let _ = tx.send(kube::Client::try_from(config));
        });
    let cx = ErrorContext {
        server: &info.server,
        context: &info.context,
        doing: "setting up the client",
        verb: "",
        resource: "",
    };
    if let Err(e) = built {
        return Err(LiveError::Other {
            server: info.server.clone(),
            doing: cx.doing.to_string(),
            cause: format!("cannot start a thread: {e}"),
        });
    }
    match tokio::time::timeout(timeout, rx).await {
        Ok(Ok(client)) => client.map_err(|e| classify(&e, &cx)),
        Ok(Err(_)) => Err(LiveError::Other {
            server: info.server.clone(),
            doing: cx.doing.to_string(),
            cause: "the client could not be built (its thread ended without one)".into(),
        }),
        Err(_) => Err(LiveError::Config(match command {
            Some(command) => format!(
                "the exec credential plugin of context '{}' ({command}) gave no credentials within {}s; run it by hand to see what it waits for (a login in a browser, a prompt), or retry with a longer --request-timeout",
                info.context,
                timeout.as_secs()
            ),
            None => format!(
                "the client for context '{}' was not ready within {}s; retry with a longer --request-timeout",
                info.context,
                timeout.as_secs()
            ),
        })),
    }
}

/// Default request timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
