//! The `:` command line.

use super::data::clear_explanations;
use super::jobs::explain_all;
use super::nav::open_gang;
use crate::app::pod_list;
use crate::app::{Action, App, Effect, Load, Mode, NodeList, Screen};

/// The commands of `:`.
pub const COMMANDS: &[&str] = &[
    ":pods",
    ":nodes",
    ":queue",
    ":gang",
    ":ns NAME",
    ":ns all",
    ":profile NAME",
    ":profile auto",
    ":w FILE",
    ":w! FILE",
    ":help",
    ":q",
];

pub(super) fn command(app: &mut App, mut text: String, action: Action) -> Vec<Effect> {
    match action {
        Action::Input(c) => text.push(c),
        Action::Backspace => {
            text.pop();
        }
        Action::ClearInput => text.clear(),
        Action::Cancel => return Vec::new(),
        Action::Submit => return run_command(app, text.trim()),
        _ => {}
    }
    app.mode = Mode::Command(text);
    Vec::new()
}

pub(super) fn run_command(app: &mut App, text: &str) -> Vec<Effect> {
    let mut words = text.split_whitespace();
    let cmd = words.next().unwrap_or_default();
    let arg = words.next();
    match cmd {
        "" => {}
        "q" | "q!" | "quit" | "qa" => app.should_quit = true,
        "pods" | "pod" | "po" => app.screens.clear(),
        "nodes" | "node" | "no" => {
            let pod = app.focused_pod();
            app.screens.push(Screen::Nodes(NodeList {
                selected: 0,
                pod,
                query: String::new(),
            }));
        }
        "queue" | "que" => app.screens.push(Screen::Queue(crate::app::QueueView::default())),
        "gang" | "group" => return open_gang(app),
        "help" | "h" => app.mode = Mode::Help { scroll: 0 },
        "profile" | "profiles" => return profile_command(app, arg),
        "w" | "write" | "save" | "w!" | "write!" | "save!" => {
            let overwrite = cmd.ends_with('!');
            // the rest of the line is the file name (it may hold spaces)
            let path = text[cmd.len()..].trim();
            if path.is_empty() {
                app.error(format!(
                    "name the file: :{cmd} FILE (YAML, or JSON when it ends in .json; :w! replaces a file)"
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
        }
        "ns" | "namespace" => match arg {
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
        },
        other => app.error(format!(
            "unknown command ':{other}' (commands: {})",
            COMMANDS.join(", ")
        )),
    }
    Vec::new()
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
