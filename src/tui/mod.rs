//! The thin terminal layer: one `tokio::select!` loop over terminal events, the action channel
//! and a tick; effects go to [`runtime`]; the screen is drawn by [`view`] from `&App`.
//! `kschedtui --demo` / `--snapshot FILE` start here; `kschedtui` alone attaches to the live
//! cluster through [`live`].

#[cfg(feature = "live")]
pub(crate) mod live;
pub mod runtime;
pub(crate) mod terminal;
pub mod theme;
pub mod view;

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Result, anyhow};
use crossterm::event::{Event, EventStream, MouseButton, MouseEventKind};
use futures_util::StreamExt as _;
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

use crate::app::{Action, App, Effect, Load, Loaded, SourceInfo, SourceKind, keymap, update};
use crate::engine::release::ReleaseChoice;
use crate::engine::{SchedulerConfig, build_profiles};
use crate::source::load::Input;
use crate::source::write::Plan;
use theme::Theme;
use view::ViewState;

/// What the TUI opens.
#[derive(Clone, Debug)]
pub struct Options {
    /// A snapshot or the demo; `None` attaches to the live cluster.
    pub input: Option<Input>,
    /// `--theme NAME|FILE`.
    pub theme: Option<String>,
    /// `--readonly`.
    pub readonly: bool,
    /// Without a snapshot or the demo: how to reach the live cluster (`--kubeconfig`,
    /// `--context`, `--dry-run`, `--request-timeout`; the namespace given is the context's
    /// default, the whole cluster is read).
    #[cfg(feature = "live")]
    pub connect: crate::source::live::ConnectOptions,
    /// `-n`: the namespace the pod list starts in (the whole cluster is still read, as the
    /// scheduler sees it).
    pub namespace: Option<String>,
    /// `--scheduler-version` and `--feature-gates` (default: the server's release, the
    /// snapshot's, or the newest).
    pub release: ReleaseChoice,
    /// `--config`: the profiles (default: the version's default profiles).
    pub config: Option<SchedulerConfig>,
    /// `--evict`: preemption evicts the victims (PDBs honoured) instead of deleting them.
    pub evict: bool,
}

/// Work for the live cluster.
pub enum LiveJob {
    /// Check and send a confirmed write plan; the report comes back as `Action::Written`.
    Write(Plan),
    /// Ask whether requests would be allowed; each answer comes back as
    /// `Action::AccessChecked`.
    Check(Vec<crate::source::write::WriteRequest>),
    /// List every kind again (Ctrl-r); the state comes back as `ClusterEvent::Replaced`.
    Relist,
}

/// Runs [`LiveJob`]s against the live cluster in the background.
pub type Writer = Arc<dyn Fn(LiveJob) + Send + Sync>;

/// The TUI was ended by a signal (SIGTERM, SIGHUP, SIGINT), after it gave the terminal back
/// (raw mode off, the main screen, mouse capture off), as a panic or `q` does. The process
/// then exits with 128 + the signal's number, as a shell reports a process a signal ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("terminated by {name}")]
pub struct Signalled {
    /// SIGTERM, SIGHUP or SIGINT.
    pub name: &'static str,
    /// Its number (15, 1, 2).
    pub number: u8,
}

impl Signalled {
    /// The exit code: 128 + the signal's number.
    pub fn exit_code(self) -> u8 {
        128 + self.number
    }
}

/// The signals that end the TUI, listened to from before the terminal is taken (a signal that
/// comes while the terminal is set up is seen at the event loop's first turn). Without them
/// SIGTERM and SIGHUP end the process on the spot and leave the terminal in raw mode on the
/// alternate screen; SIGINT too (in raw mode Ctrl-C is a key, so it comes from `kill -INT`).
struct Signals {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    hup: tokio::signal::unix::Signal,
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> std::io::Result<Self> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                term: signal(SignalKind::terminate())?,
                hup: signal(SignalKind::hangup())?,
                int: signal(SignalKind::interrupt())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The next signal.
    async fn recv(&mut self) -> Signalled {
        #[cfg(unix)]
        {
            let (name, number) = tokio::select! {
                _ = self.term.recv() => ("SIGTERM", 15),
                _ = self.hup.recv() => ("SIGHUP", 1),
                _ = self.int.recv() => ("SIGINT", 2),
            };
            Signalled { name, number }
        }
        #[cfg(not(unix))]
        std::future::pending().await
    }
}

/// Runs the TUI's future on its runtime. After a signal the runtime is not waited for (a
/// blocked load, an explanation still running): the terminal is back, the process ends.
fn block_on<T>(rt: tokio::runtime::Runtime, f: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    let r = rt.block_on(f);
    if r.as_ref().is_err_and(|e| e.downcast_ref::<Signalled>().is_some()) {
        rt.shutdown_background();
    }
    r
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?)
}

/// Opens the TUI and runs it until the user quits.
pub fn run(opts: &Options) -> Result<()> {
    let (mut theme, warnings) = theme::load(opts.theme.as_deref())?;
    let depth = theme::color_depth(
        std::env::var_os("KSCHEDTUI_COLORS").as_deref(),
        std::env::var_os("COLORTERM").as_deref(),
    )?;
    if theme::no_color(std::env::var_os("NO_COLOR").as_deref()) {
        theme = theme.monochrome();
    } else if depth == theme::ColorDepth::Indexed256 {
        theme = theme.to_256();
    }
    let source = match &opts.input {
        Some(Input::Snapshot(p)) => SourceInfo {
            kind: SourceKind::Snapshot,
            name: p.display().to_string(),
        },
        Some(Input::Demo) => SourceInfo {
            kind: SourceKind::Demo,
            name: "demo".into(),
        },
        #[cfg(feature = "live")]
        None => return live::run(opts, theme, warnings),
        #[cfg(not(feature = "live"))]
        None => return Err(anyhow!("no snapshot to open")),
    };
    block_on(runtime()?, async {
        let (tx, rx) = mpsc::unbounded_channel::<Action>();
        {
            let tx = tx.clone();
            let opts = opts.clone();
            tokio::task::spawn_blocking(move || {
                let _ = tx.send(Action::Loaded(Box::new(load(&opts))));
            });
        }
        event_loop(opts.clone(), source, theme, warnings, (tx, rx), None)
            .await
            .map(|_| ())
    })
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

fn load(opts: &Options) -> Result<Loaded, String> {
    let input = opts.input.as_ref().ok_or("no snapshot to open")?;
    let (cluster, recorded) = input.load_recorded().map_err(|e| format!("{e:#}"))?;
    let features = opts.release.features(recorded).map_err(|e| format!("{e:#}"))?;
    let profiles = build_profiles(opts.config.as_ref(), &features).map_err(|e| format!("{e:#}"))?;
    Ok(Loaded {
        cluster,
        profiles,
        features: std::sync::Arc::new(features),
    })
}

/// Turns a terminal event into an action.
fn translate(app: &App, view: &ViewState, ev: &Event) -> Option<Action> {
    match ev {
        Event::Key(k) => keymap::resolve(app, k),
        Event::Mouse(m) => match m.kind {
            MouseEventKind::ScrollUp => Some(Action::ScrollUp),
            MouseEventKind::ScrollDown => Some(Action::ScrollDown),
            MouseEventKind::Down(MouseButton::Left) => {
                if app.mode != crate::app::Mode::Normal {
                    return None;
                }
                view.point_at(m.column, m.row)
                    .map(Action::ClickPoint)
                    .or_else(|| view.row_at(m.column, m.row).map(Action::ClickRow))
            }
            _ => None,
        },
        _ => None,
    }
}

/// Debug builds only: `KSCHEDTUI_DEBUG_PANIC=1` panics after the first frame, so the tests can
/// check that a panic restores the terminal. Release builds have no such switch.
fn debug_panic_check() {
    #[cfg(debug_assertions)]
    if std::env::var_os("KSCHEDTUI_DEBUG_PANIC").is_some() {
        panic!("KSCHEDTUI_DEBUG_PANIC is set: panicking on purpose after the first frame");
    }
}

/// Opens `$VISUAL` / `$EDITOR` (default `vi`) on the text and returns the edited text.
fn run_editor(text: &str) -> Result<String, String> {
    let file = tempfile::Builder::new()
        .prefix("kschedtui-")
        .suffix(".yaml")
        .tempfile()
        .map_err(|e| format!("cannot create a file in '{}': {e}", std::env::temp_dir().display()))?;
    let path = file.path();
    std::fs::write(path, text).map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".into());
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi");
    let status = std::process::Command::new(program).args(words).arg(path).status();
    let result = match status {
        Ok(s) if s.success() => {
            std::fs::read_to_string(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))
        }
        Ok(s) => Err(format!("editor '{editor}' exited with {s}; nothing changed")),
        Err(e) => Err(format!("cannot start editor '{editor}': {e} (set $EDITOR)")),
    };
    // the file is removed as it drops
    result
}

/// What a tick may change on screen besides the clocks: the cluster (a live rebuild), the
/// generation of the explanations, the status line and the loading state.
struct TickView {
    generation: u64,
    /// Held weakly: a strong reference would make the tick's update copy the cluster to
    /// apply the watch events to it (the weak one keeps the address from being reused).
    cluster: std::sync::Weak<crate::model::Cluster>,
    status: Option<crate::app::StatusMsg>,
    load: Load,
    /// The explanations the pod list's rows were sorted or filtered by (a tick applies the
    /// reasons that arrived since).
    reasons_at: Option<u64>,
}

impl TickView {
    fn of(app: &App) -> Self {
        TickView {
            generation: app.generation,
            cluster: Arc::downgrade(&app.cluster),
            status: app.status.clone(),
            load: app.load.clone(),
            reasons_at: app.pod_rows.reasons_at(),
        }
    }

    fn same(&self, other: &TickView) -> bool {
        self.generation == other.generation
            && std::sync::Weak::ptr_eq(&self.cluster, &other.cluster)
            && self.status == other.status
            && self.load == other.load
            && self.reasons_at == other.reasons_at
    }
}

async fn event_loop(
    opts: Options,
    source: SourceInfo,
    theme: Theme,
    warnings: Vec<String>,
    (tx, mut rx): (UnboundedSender<Action>, UnboundedReceiver<Action>),
    writer: Option<Writer>,
) -> Result<Option<String>> {
    let mut app = App::new(source, opts.readonly);
    if opts.evict {
        app.removal = crate::source::write::Removal::Evict;
    }
    app.pods.namespace.clone_from(&opts.namespace);
    if !warnings.is_empty() {
        app.info(warnings.join("; "));
    }
    let runtime = runtime::Runtime::new(tx.clone()).with_config(opts.config.clone());
    let mut signals = Signals::new()?;
    let mut guard = terminal::init()?;
    let mut events = EventStream::new();
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    let mut view = ViewState::default();
    let mut batch: Vec<Action> = Vec::new();
    // A frame is drawn when something changed: a terminal event (a key, a resize), an action
    // other than the tick, a tick that changed the app, or a clock on screen that moved.
    let mut dirty = true;
    loop {
        if dirty {
            guard.terminal.draw(|f| view::render(&app, &theme, &mut view, f))?;
            debug_panic_check();
            dirty = false;
        }
        tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(ev)) => {
                    dirty = true;
                    batch.extend(translate(&app, &view, &ev));
                }
                Some(Err(e)) => return Err(e.into()),
                None => break,
            },
            Some(a) = rx.recv() => batch.push(a),
            _ = tick.tick() => batch.push(Action::Tick { now: now() }),
            sig = signals.recv() => {
                drop(guard);
                return Err(sig.into());
            }
        }
        while let Ok(a) = rx.try_recv() {
            batch.push(a);
        }
        let mut editor = None;
        for a in batch.drain(..) {
            let tick = match &a {
                Action::Tick { now } => Some((*now, TickView::of(&app))),
                _ => None,
            };
            let effects = update(&mut app, a);
            dirty |= match tick {
                // a tick redraws only when it changed what is shown, or a clock on screen moved
                Some((now, before)) => !before.same(&TickView::of(&app)) || view.stale_at(now),
                None => true,
            };
            for e in effects {
                match e {
                    Effect::Explain(job) => runtime.explain(job),
                    Effect::Group(job) => runtime.group(job),
                    Effect::Fixes(job) => runtime.fixes(job),
                    Effect::Deschedule(job) => {
                        let tx = tx.clone();
                        tokio::task::spawn_blocking(move || {
                            let _ = tx.send(runtime::deschedule(&job));
                        });
                    }
                    Effect::Fit(job) => {
                        let tx = tx.clone();
                        tokio::task::spawn_blocking(move || {
                            let _ = tx.send(runtime::fit(&job));
                        });
                    }
                    Effect::Relist => {
                        if let Some(w) = &writer {
                            w(LiveJob::Relist);
                        }
                    }
                    Effect::CheckAccess(reqs) => {
                        if let Some(w) = &writer {
                            w(LiveJob::Check(reqs));
                        }
                    }
                    Effect::Write(plan) => match &writer {
                        Some(w) => w(LiveJob::Write(plan)),
                        None => {
                            let _ = tx.send(Action::Written(Box::new(Err(
                                "no cluster to write to; nothing was sent".into(),
                            ))));
                        }
                    },
                    Effect::OpenEditor { target, text } => editor = Some((target, text)),
                    Effect::Copy(text) => {
                        if let Err(e) = terminal::copy_to_clipboard(&text) {
                            let _ = tx.send(Action::CopyFailed(e.to_string()));
                        }
                    }
                    Effect::Export { text, path, overwrite } => {
                        let tx = tx.clone();
                        let path = crate::source::expand_home(&path, std::env::var("HOME").ok().as_deref());
                        tokio::task::spawn_blocking(move || {
                            let _ = tx.send(runtime::export(&text, &path, overwrite));
                        });
                    }
                    Effect::Save {
                        cluster,
                        path,
                        overwrite,
                        changes,
                    } => {
                        let tx = tx.clone();
                        // `~/…` as a shell reads it
                        let path = crate::source::expand_home(&path, std::env::var("HOME").ok().as_deref());
                        tokio::task::spawn_blocking(move || {
                            let _ = tx.send(runtime::save(&cluster, &path, overwrite, changes));
                        });
                    }
                }
            }
        }
        if app.should_quit {
            break;
        }
        if let Some((target, text)) = editor {
            // the editor owns the terminal (and its input) until it exits
            drop(events);
            guard.suspend()?;
            let result = run_editor(&text);
            guard.resume()?;
            events = EventStream::new();
            batch.push(Action::Edited { target, result });
            dirty = true;
        }
    }
    drop(guard);
    if let Some(msg) = &app.fatal {
        return Err(anyhow!("{msg}"));
    }
    if let Load::Failed(e) = &app.load {
        return Err(anyhow!("{e}"));
    }
    Ok(app.switch_context.take())
}
