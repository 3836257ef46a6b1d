//! The `:` command line.

use super::data::{clear_explanations, set_cluster};
use super::jobs::explain_all;
use super::nav::open_gang;
use crate::app::pod_list;
use crate::app::{Action, App, Effect, FitJob, FitState, Load, Mode, NodeList, Screen, StatusKind};
use crate::engine::fit::{WhatIf, clear_what_if};

/// One `:` command: what dispatch, the `?` help overlay and the status-bar hint and
/// completion all read.
pub struct Command {
    /// Its name, as help shows it (`ns`).
    pub name: &'static str,
    /// Other words that run it (`namespace`).
    pub aliases: &'static [&'static str],
    /// What follows the name ("" for nothing): `NAME|all`, `FILE`.
    pub args: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// Runs it.
    pub run: fn(&mut App, &Invocation<'_>) -> Vec<Effect>,
}

impl Command {
    /// `:name ARGS`, as help and the hints show it.
    pub fn synopsis(&self) -> String {
        if self.args.is_empty() {
            format!(":{}", self.name)
        } else {
            format!(":{} {}", self.name, self.args)
        }
    }

    /// True when `word` is its name or one of its aliases.
    pub fn is(&self, word: &str) -> bool {
        self.name == word || self.aliases.contains(&word)
    }
}

/// A command line as typed, split for the handler.
pub struct Invocation<'a> {
    /// The command word as typed (a name or an alias).
    pub word: &'a str,
    /// The first word after it.
    pub arg: Option<&'a str>,
    /// Everything after the command word, trimmed (a file name may hold spaces).
    pub rest: &'a str,
}

/// The command table (help order = table order).
pub static COMMANDS: &[Command] = &[
    Command {
        name: "pods",
        aliases: &["pod", "po"],
        args: "",
        help: "the pod list",
        run: |app, _| {
            app.screens.clear();
            Vec::new()
        },
    },
    Command {
        name: "nodes",
        aliases: &["node", "no"],
        args: "",
        help: "every node (with the focused pod's fit)",
        run: |app, _| {
            let pod = app.focused_pod();
            app.screens.push(Screen::Nodes(NodeList {
                selected: 0,
                pod,
                query: String::new(),
                sort: crate::app::node_list::NodeSortKey::default(),
                reverse: false,
            }));
            Vec::new()
        },
    },
    Command {
        name: "queue",
        aliases: &["que"],
        args: "",
        help: "the scheduling queue: where each pending pod waits",
        run: |app, _| {
            app.screens.push(Screen::Queue(crate::app::QueueView::default()));
            Vec::new()
        },
    },
    Command {
        name: "gang",
        aliases: &["group"],
        args: "",
        help: "the focused pod's gang as a whole",
        run: |app, _| open_gang(app),
    },
    Command {
        name: "events",
        aliases: &["event", "ev"],
        args: "[all]",
        help: "FailedScheduling events: the focused pod's, or every pod's",
        run: |app, inv| {
            match inv.arg {
                None | Some("all") => super::nav::open_events(app, inv.arg.is_some() || app.screen().is_none()),
                Some(other) => app.error(format!(":events takes no argument or 'all', not '{other}'")),
            }
            Vec::new()
        },
    },
    Command {
        name: "ctx",
        aliases: &["context", "contexts"],
        args: "[NAME]",
        help: "the kubeconfig's contexts; with a name, attach to that context",
        run: |app, inv| {
            context(app, inv.arg);
            Vec::new()
        },
    },
    Command {
        name: "fix",
        aliases: &["fixes"],
        args: "",
        help: "the focused pod's fixes: one change per blocking reason, checked by the engine",
        run: |app, _| super::nav::open_fixes(app),
    },
    Command {
        name: "messages",
        aliases: &["msg", "log"],
        args: "",
        help: "every message shown so far, and the load warnings",
        run: |app, _| {
            app.screens.push(Screen::Messages(crate::app::MessagesView::default()));
            Vec::new()
        },
    },
    Command {
        name: "deschedule",
        aliases: &["desched", "descheduler"],
        args: "FILE",
        help: "descheduler dry run of a policy: where every evicted pod would land",
        run: deschedule_command,
    },
    Command {
        name: "fit",
        aliases: &["what-if"],
        args: "[FILE]",
        help: "a manifest's workload pods as what-if pending pods (no FILE: remove them)",
        run: fit_command,
    },
    Command {
        name: "ns",
        aliases: &["namespace"],
        args: "NAME|all",
        help: "only pods of one namespace (all: every namespace)",
        run: |app, inv| {
            namespace_command(app, inv.arg);
            Vec::new()
        },
    },
    Command {
        name: "reason",
        aliases: &["why"],
        args: "[TEXT]",
        help: "only pods whose reason contains TEXT (no TEXT: every reason)",
        run: |app, inv| {
            reason_command(app, inv.rest);
            Vec::new()
        },
    },
    Command {
        name: "profile",
        aliases: &["profiles"],
        args: "[NAME|auto]",
        help: "one profile for every pod (auto: each pod's own)",
        run: |app, inv| profile_command(app, inv.arg),
    },
    Command {
        name: "w",
        aliases: &["write", "save"],
        args: "FILE",
        help: "save the cluster and the what-if changes (.json: JSON)",
        run: |app, inv| save_command(app, inv, false),
    },
    Command {
        name: "w!",
        aliases: &["write!", "save!"],
        args: "FILE",
        help: "save, replacing the file if it exists",
        run: |app, inv| save_command(app, inv, true),
    },
    Command {
        name: "export",
        aliases: &["exp"],
        args: "[FILE]",
        help: "the what-if changes as kubectl commands and YAML; with a file, written there",
        run: |app, inv| export_command(app, inv, false),
    },
    Command {
        name: "export!",
        aliases: &["exp!"],
        args: "FILE",
        help: "export, replacing the file if it exists",
        run: |app, inv| export_command(app, inv, true),
    },
    Command {
        name: "help",
        aliases: &["h"],
        args: "",
        help: "this help",
        run: |app, _| {
            app.mode = Mode::Help { scroll: 0 };
            Vec::new()
        },
    },
    Command {
        name: "q",
        aliases: &["quit", "qa"],
        args: "",
        help: "quit (asks first when in-memory changes are not saved)",
        run: |app, _| {
            app.request_quit();
            Vec::new()
        },
    },
    Command {
        name: "q!",
        aliases: &["quit!", "qa!"],
        args: "",
        help: "quit without saving the in-memory changes",
        run: |app, _| {
            app.should_quit = true;
            Vec::new()
        },
    },
];

/// The command a word runs (its name or an alias).
pub fn lookup(word: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.is(word))
}

/// The commands whose name or an alias starts with `prefix`, in table order.
pub fn matching(prefix: &str) -> Vec<&'static Command> {
    COMMANDS
        .iter()
        .filter(|c| c.name.starts_with(prefix) || c.aliases.iter().any(|a| a.starts_with(prefix)))
        .collect()
}

/// What the status bar shows beside a command line being typed: every command when nothing is
/// typed, the commands the word may start, or the synopsis and help of the command it names.
pub fn hint(text: &str) -> String {
    let word = text.split_whitespace().next().unwrap_or_default();
    let typing_word = !text.trim_start().contains(char::is_whitespace);
    if let Some(c) = lookup(word).filter(|_| !typing_word || matching(word).len() == 1) {
        return format!("{}  {}", c.synopsis(), c.help);
    }
    if !typing_word {
        return format!("unknown command ':{word}' (Tab completes a command's name)");
    }
    match matching(word).as_slice() {
        [] => format!("no command starts with '{word}'"),
        [c] => format!("{}  {}", c.synopsis(), c.help),
        cs => cs.iter().map(|c| format!(":{}", c.name)).collect::<Vec<_>>().join(" "),
    }
}

/// Tab on the command line: completes the command word to the command it starts (followed by
/// a space when the command takes arguments), or to what the commands it may start share.
/// Text after the word is left as it is.
pub fn complete(text: &str) -> String {
    let lead = text.len() - text.trim_start().len();
    let body = &text[lead..];
    if body.contains(char::is_whitespace) {
        return text.to_string();
    }
    let cs = matching(body);
    let Some(first) = cs.first() else {
        return text.to_string();
    };
    if cs.len() == 1 {
        let mut out = first.name.to_string();
        if !first.args.is_empty() {
            out.push(' ');
        }
        return out;
    }
    // the longest prefix the matching names share (at least what was typed)
    let mut common = first.name.to_string();
    for c in &cs[1..] {
        let n = common.chars().zip(c.name.chars()).take_while(|(a, b)| a == b).count();
        common = common.chars().take(n).collect();
    }
    if common.len() > body.len() && common.starts_with(body) {
        common
    } else {
        text.to_string()
    }
}

pub(super) fn command(app: &mut App, mut text: String, action: Action) -> Vec<Effect> {
    match action {
        Action::Input(c) => text.push(c),
        Action::Backspace => {
            text.pop();
        }
        Action::ClearInput => text.clear(),
        Action::Complete => text = complete(&text),
        Action::Cancel => return Vec::new(),
        Action::Submit => return run_command(app, text.trim()),
        _ => {}
    }
    app.mode = Mode::Command(text);
    Vec::new()
}

pub(super) fn run_command(app: &mut App, text: &str) -> Vec<Effect> {
    let mut words = text.split_whitespace();
    let word = words.next().unwrap_or_default();
    if word.is_empty() {
        return Vec::new();
    }
    let inv = Invocation {
        word,
        arg: words.next(),
        rest: text[word.len()..].trim(),
    };
    match lookup(word) {
        Some(c) => (c.run)(app, &inv),
        None => {
            let names: Vec<String> = COMMANDS.iter().map(Command::synopsis).collect();
            app.error(format!("unknown command ':{word}' (commands: {})", names.join(", ")));
            Vec::new()
        }
    }
}

/// `:reason TEXT` keeps the pods whose reason column contains TEXT (ASCII case ignored);
/// `:reason` alone shows every reason again. It is the pod list's filter, so it goes back there.
fn reason_command(app: &mut App, text: &str) {
    app.screens.clear();
    app.pods.selected = 0;
    if text.is_empty() {
        app.pods.reason = None;
        app.info("every reason shown again");
    } else {
        app.pods.reason = Some(pod_list::ReasonFilter::Text(text.to_string()));
    }
}

/// `:w FILE`, `:w! FILE` (replaces the file).
fn save_command(app: &mut App, inv: &Invocation<'_>, overwrite: bool) -> Vec<Effect> {
    let path = inv.rest;
    if path.is_empty() {
        app.error(format!(
            "name the file: :{} FILE (YAML, or JSON when it ends in .json; :w! replaces a file)",
            inv.word
        ));
    } else if app.load != Load::Ready {
        app.error("nothing to save yet: the cluster is still loading");
    } else {
        app.info(format!("saving to {path}…"));
        return vec![Effect::Save {
            cluster: app.cluster.clone(),
            path: path.into(),
            overwrite,
            changes: app.changes.len(),
        }];
    }
    Vec::new()
}

/// `:deschedule FILE`: runs the policy's descheduling cycle on the cluster as it is now (in
/// memory, nothing is written) and opens the screen with the result.
fn deschedule_command(app: &mut App, inv: &Invocation<'_>) -> Vec<Effect> {
    let path = inv.rest;
    if path.is_empty() {
        app.error(format!(
            "name the policy: :{} FILE (a DeschedulerPolicy, descheduler/v1alpha2, YAML or JSON)",
            inv.word
        ));
        return Vec::new();
    }
    if app.load != Load::Ready {
        app.error("nothing to deschedule yet: the cluster is still loading");
        return Vec::new();
    }
    let Some(now) = app.now else {
        app.error("no clock yet (pod ages need one): try again in a moment");
        return Vec::new();
    };
    app.deschedule = Some(crate::app::deschedule::DescheduleState {
        path: path.to_string(),
        generation: app.generation,
        result: None,
    });
    if !matches!(app.screen(), Some(Screen::Deschedule(_))) {
        app.screens
            .push(Screen::Deschedule(crate::app::DescheduleView::default()));
    } else if let Some(Screen::Deschedule(v)) = app.screens.last_mut() {
        v.selected = 0;
    }
    app.info(format!(
        "running the descheduler dry run of {path}… (nothing is written)"
    ));
    vec![Effect::Deschedule(crate::app::DescheduleJob {
        generation: app.generation,
        path: path.to_string(),
        cluster: app.cluster.clone(),
        profiles: app.profiles.clone(),
        features: app.features.clone(),
        now,
    })]
}

/// `:fit FILE`: the workloads of the manifests (a file or a directory) made as their
/// controllers and admission would make them (as `kschedtui fit` makes them) and added as
/// pending pods marked as what-if; every view works on them. A second `:fit FILE` replaces the
/// first one's pods; `:fit` alone removes them and what was made for them.
fn fit_command(app: &mut App, inv: &Invocation<'_>) -> Vec<Effect> {
    if app.load != Load::Ready {
        app.error("nothing to fit on yet: the cluster is still loading");
        return Vec::new();
    }
    let path = inv.rest;
    if path.is_empty() {
        return match app.fit.take() {
            Some(f) if f.asked.is_none() => {
                let cluster = clear_what_if(&app.cluster, &f.pods, &f.made);
                let change = format!("removed the {} what-if pod(s) of :fit {}", f.pods.len(), f.path);
                set_cluster(app, cluster, change)
            }
            Some(f) => {
                app.info(format!("stopped :fit {} before its pods came in", f.path));
                Vec::new()
            }
            None => {
                app.error(format!(
                    "no what-if pods to remove: :{} FILE adds a manifest's workloads as pending pods",
                    inv.word
                ));
                Vec::new()
            }
        };
    }
    // a second :fit replaces the first one's pods
    let mut fx = Vec::new();
    if let Some(f) = app.fit.take().filter(|f| f.asked.is_none()) {
        let cluster = clear_what_if(&app.cluster, &f.pods, &f.made);
        let change = format!("removed the {} what-if pod(s) of :fit {}", f.pods.len(), f.path);
        fx = set_cluster(app, cluster, change);
    }
    fx.extend(ask_fit(app, path));
    fx
}

/// Asks the runtime for `:fit PATH`'s pods on the cluster as it is now.
fn ask_fit(app: &mut App, path: &str) -> Vec<Effect> {
    app.fit = Some(FitState {
        path: path.to_string(),
        asked: Some(app.generation),
        pods: Vec::new(),
        made: Vec::new(),
        refused: Vec::new(),
    });
    app.info(format!(
        "making the pods of {path}'s workloads as their controllers would…"
    ));
    vec![Effect::Fit(FitJob {
        generation: app.generation,
        path: path.to_string(),
        cluster: app.cluster.clone(),
        features: app.features.clone(),
        namespace: app.pods.namespace.clone().unwrap_or_else(|| "default".into()),
    })]
}

/// `:fit FILE`'s pods came in: the cluster with them replaces the app's (a what-if change).
/// Made on a cluster that changed since (a what-if edit meanwhile), they are made again on
/// the cluster as it is.
pub(super) fn on_fit_made(
    app: &mut App,
    generation: u64,
    path: &str,
    result: Result<Box<WhatIf>, String>,
) -> Vec<Effect> {
    let Some(f) = &app.fit else { return Vec::new() };
    if f.path != path || f.asked.is_none() {
        return Vec::new();
    }
    if f.asked != Some(generation) || app.generation != generation {
        return ask_fit(app, path);
    }
    let w = match result {
        Ok(w) => *w,
        Err(e) => {
            app.fit = None;
            app.error(format!(":fit {path}: {e}"));
            return Vec::new();
        }
    };
    let mut change = format!("added {} what-if pod(s) from {path}", w.pods.len());
    if !w.refused.is_empty() {
        change.push_str(&format!("; {} refused at admission (:messages)", w.refused.len()));
    }
    for (k, m) in &w.refused {
        app.log(StatusKind::Warning, format!(":fit {path}: {k} refused: {m}"));
    }
    app.fit = Some(FitState {
        path: path.to_string(),
        asked: None,
        pods: w.pods,
        made: w.made,
        refused: w.refused,
    });
    set_cluster(app, w.cluster, change)
}

/// A `:deschedule` result: kept when it answers the run asked for last.
pub(super) fn on_descheduled(
    app: &mut App,
    generation: u64,
    path: &str,
    result: Result<Box<crate::explain::deschedule::DryRun>, String>,
) {
    let Some(d) = &mut app.deschedule else { return };
    if d.path != path || d.generation != generation || d.result.is_some() {
        return;
    }
    match result {
        Ok(run) => {
            let report = crate::app::deschedule::rows_of(&run);
            let msg = format!("dry run of {path}: {}", report.summary);
            d.result = Some(Ok(report));
            app.info(msg);
        }
        Err(e) => {
            d.result = Some(Err(e.clone()));
            app.error(e);
        }
    }
}

/// `:ns NAME`, `:ns all` (or `*`, or nothing): the pod list's namespace.
fn namespace_command(app: &mut App, arg: Option<&str>) {
    match arg {
        None | Some("all" | "*") => {
            app.pods.namespace = None;
            app.screens.clear();
            app.info("all namespaces");
        }
        Some(ns) => {
            let all = pod_list::namespaces(app);
            if all.iter().any(|n| n == ns) || app.cluster.namespaces.contains_key(ns) {
                app.pods.namespace = Some(ns.to_string());
                app.pods.selected = 0;
                app.screens.clear();
                app.info(format!("namespace {ns}"));
            } else {
                app.error(format!(
                    "unknown namespace '{ns}' (namespaces with pods: {})",
                    all.join(", ")
                ));
            }
        }
    }
}

/// `:profile`: lists the profiles; `:profile NAME` explains every pod with that profile (a
/// what-if); `:profile auto` goes back to each pod's schedulerName.
pub(super) fn profile_command(app: &mut App, arg: Option<&str>) -> Vec<Effect> {
    let names: Vec<&str> = app.profiles.iter().map(|f| f.name.as_str()).collect();
    let current = app
        .profile_override
        .as_deref()
        .unwrap_or("auto (each pod's schedulerName)");
    let wanted = match arg {
        None => {
            app.info(format!("profile: {current}; profiles: {}", names.join(", ")));
            return Vec::new();
        }
        Some("auto" | "-") => None,
        Some(name) if names.contains(&name) => Some(name.to_string()),
        Some(name) => {
            app.error(format!(
                "no scheduler profile named '{name}' (profiles: {}; :profile auto uses each pod's schedulerName)",
                names.join(", ")
            ));
            return Vec::new();
        }
    };
    if wanted == app.profile_override {
        app.info(format!("profile: {current} (unchanged)"));
        return Vec::new();
    }
    app.profile_override = wanted;
    app.generation += 1;
    clear_explanations(app);
    app.info(match &app.profile_override {
        Some(p) => format!("every pod is now explained with profile '{p}' (a what-if; :profile auto to undo)"),
        None => "every pod is explained with the profile its schedulerName picks".to_string(),
    });
    explain_all(app)
}

/// `:ctx [NAME]`: lists the contexts (the current one marked), or switches: the attachment
/// ends and the TUI attaches to NAME (in-memory changes must be saved first).
fn context(app: &mut App, name: Option<&str>) {
    let Some(c) = app.contexts.clone() else {
        app.error(format!(
            "no kubeconfig contexts: this is {} (start kschedtui without --snapshot or --demo to attach to a cluster)",
            match app.source.kind {
                crate::app::SourceKind::Demo => "the demo".to_string(),
                _ => format!("the snapshot {}", app.source.name),
            }
        ));
        return;
    };
    let list = || {
        c.all
            .iter()
            .map(|n| if *n == c.current { format!("*{n}") } else { n.clone() })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match name {
        None => app.info(format!("contexts: {} (:ctx NAME attaches to another)", list())),
        Some(n) if n == c.current => app.info(format!("already attached to context '{n}'")),
        Some(n) if !c.all.iter().any(|x| x == n) => {
            app.error(format!("no context '{n}' in the kubeconfig (contexts: {})", list()));
        }
        Some(n) if !app.unsaved().is_empty() => app.error(format!(
            "{} in-memory change(s) unsaved: :w FILE saves them before attaching to context '{n}'",
            app.unsaved().len()
        )),
        Some(n) => {
            app.info(format!("attaching to context '{n}'…"));
            app.switch_context = Some(n.to_string());
            app.should_quit = true;
        }
    }
}

/// `:export [FILE]`: the what-ifs as kubectl commands and YAML, on a text screen or to FILE.
fn export_command(app: &mut App, inv: &Invocation<'_>, overwrite: bool) -> Vec<Effect> {
    let (Some(base), false) = (app.baseline.clone(), app.changes.is_empty()) else {
        app.info("no in-memory change to export: make a what-if first (i, e, f, b, x, c in the node view)");
        return Vec::new();
    };
    let lines = crate::app::export::text(&base, &app.cluster, &app.changes);
    if inv.rest.is_empty() {
        if overwrite {
            app.error(":export! needs a file: :export! FILE");
            return Vec::new();
        }
        app.screens.push(Screen::Text(crate::app::TextView {
            title: format!("What-if export · {} change(s)", app.changes.len()),
            lines,
            scroll: 0,
        }));
        return Vec::new();
    }
    let mut text = lines.join("\n");
    text.push('\n');
    vec![Effect::Export {
        text,
        path: std::path::PathBuf::from(inv.rest),
        overwrite,
    }]
}
