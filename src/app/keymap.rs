//! The one key table: it drives dispatch, the `?` help overlay (in table order) and the
//! status-bar hints. Keys are written as `j`, `G`, `?`, `<Enter>`, `<Ctrl-c>`, `<S-Tab>`.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::node_list::NodeSortKey;
use super::pod_list::SortKey;
use super::stepper::Point;
use super::{Action, App, Load, Mode, Screen};

/// Where a binding applies. The active scopes are tried from the most specific to Global.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Everywhere in normal mode.
    Global,
    /// The pod list.
    PodList,
    /// The pod view.
    PodView,
    /// The pod view at a Filter step.
    FilterStep,
    /// The pod view at a Score step.
    ScoreStep,
    /// The node view.
    NodeView,
    /// The node list.
    NodeList,
    /// The queue screen.
    Queue,
    /// The gang screen.
    Gang,
    /// The descheduler dry run screen.
    Deschedule,
    /// The events screen.
    Events,
    /// The messages screen.
    Messages,
    /// A read-only text (YAML).
    Text,
    /// The fixes screen.
    Fixes,
    /// Typing a search.
    Search,
    /// Typing a command.
    Command,
    /// A confirmation dialog.
    Confirm,
    /// The help overlay.
    Help,
    /// The inline what-if form.
    Edit,
}

impl Scope {
    /// Section title in the help overlay.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Scope::Global => "Everywhere",
            Scope::PodList => "Pod list",
            Scope::PodView => "Pod view",
            Scope::FilterStep => "Pod view, at Filter",
            Scope::ScoreStep => "Pod view, at Score",
            Scope::NodeView => "Node view",
            Scope::NodeList => "Node list",
            Scope::Queue => "Queue",
            Scope::Gang => "Gang",
            Scope::Deschedule => "Descheduler dry run",
            Scope::Events => "Events",
            Scope::Messages => "Messages",
            Scope::Text => "YAML",
            Scope::Fixes => "To fix",
            Scope::Search => "Search",
            Scope::Command => "Command line",
            Scope::Confirm => "Confirmation",
            Scope::Help => "Help",
            Scope::Edit => "What-if form",
        }
    }
}

/// One binding.
pub(crate) struct Binding {
    /// Where it applies.
    pub scope: Scope,
    /// The key, in `<Ctrl-c>` notation.
    pub key: &'static str,
    /// The action it sends.
    pub action: fn() -> Action,
    /// Help text.
    pub help: &'static str,
    /// Status-bar hint ("" for none).
    pub hint: &'static str,
}

macro_rules! keys {
    ($( $scope:ident $key:literal => $action:expr, $help:literal, $hint:literal; )*) => {
        &[ $( Binding { scope: Scope::$scope, key: $key, action: || $action, help: $help, hint: $hint }, )* ]
    };
}

/// The key table (help order = table order).
pub(crate) static KEYMAP: &[Binding] = keys! {
    PodList "<Enter>" => Action::Open, "open the pod: its trip through the scheduler", "open";
    PodList "/" => Action::SearchStart, "search: part of a name (ns/name with /), -f fuzzy, -l labels", "search";
    PodList "N" => Action::NextNamespace, "next namespace", "namespace";
    PodList "0" => Action::AllNamespaces, "all namespaces", "";
    PodList "s" => Action::CycleSort, "cycle the sorts: queue, then each column", "sort";
    PodList "S" => Action::ReverseSort, "reverse the order", "";
    PodList "r" => Action::SameReason, "only pods with the selected pod's reason (again: every reason)", "reason";
    PodList "<Ctrl-z>" => Action::TogglePendingOnly, "only pending pods / every pod", "pending";
    PodList "w" => Action::ToggleWhole, "the selected pod's reasons whole / in three lines", "wrap";
    PodList "O" => Action::SortPods(SortKey::Name), "sort by NAME (the same key again: reverse)", "sort col";
    PodList "E" => Action::SortPods(SortKey::Namespace), "sort by NAMESPACE", "sort col";
    PodList "A" => Action::SortPods(SortKey::Age), "sort by AGE", "sort col";
    PodList "P" => Action::SortPods(SortKey::Priority), "sort by PRIO", "sort col";
    PodList "H" => Action::SortPods(SortKey::Scheduler), "sort by SCHEDULER", "sort col";
    PodList "C" => Action::SortPods(SortKey::Cpu), "sort by CPU", "sort col";
    PodList "M" => Action::SortPods(SortKey::Memory), "sort by MEM", "sort col";
    PodList "R" => Action::SortPods(SortKey::Reason), "sort by NODE / WHY PENDING (same reasons together)", "sort col";
    PodList "b" => Action::RequestBind, "bind the pod to the node the scheduler picks", "bind";
    PodList "x" => Action::RequestPreempt, "preempt: evict the victims PostFilter chose", "";
    PodList "i" => Action::EditInline, "what-if: edit the pod inline", "edit";
    PodList "e" => Action::EditExternal, "what-if: edit the pod as YAML in $EDITOR", "";
    PodList "m" => Action::OpenGang, "the pod's gang as a whole: members, quorum, who blocks it", "";
    PodList "c" => Action::Copy, "copy the pod's namespace/name (OSC 52)", "";
    PodList "y" => Action::ShowYaml, "the pod's YAML", "yaml";
    PodList "d" => Action::Describe, "describe the pod (as kubectl describe)", "describe";
    PodView "n" => Action::StepNext, "next step (extension point or plugin)", "next";
    PodView "p" => Action::StepPrev, "previous step", "prev";
    PodView "N" => Action::PointNext, "next extension point", "point";
    PodView "P" => Action::PointPrev, "previous extension point", "";
    PodView "r" => Action::RunToEnd, "run to the end (the last point reached)", "end";
    PodView "R" => Action::Restart, "back to the first step", "";
    PodView "<Enter>" => Action::Open, "open the selected node", "node";
    PodView "d" => Action::Describe, "describe the pod (as kubectl describe)", "";
    PodView "b" => Action::RequestBind, "bind to the node the scheduler picks", "bind";
    PodView "x" => Action::RequestPreempt, "preempt: evict the victims PostFilter chose", "";
    PodView "i" => Action::EditInline, "what-if: edit the pod inline", "edit";
    PodView "e" => Action::EditExternal, "what-if: edit the pod as YAML in $EDITOR", "";
    PodView "m" => Action::OpenGang, "the pod's gang as a whole: members, quorum, who blocks it", "";
    PodView "w" => Action::ToggleWhole, "the verdict and cluster lines whole / in two lines each", "";
    PodView "c" => Action::Copy, "copy the verdict (OSC 52)", "";
    PodView "y" => Action::ShowYaml, "the pod's YAML", "";
    PodView "D" => Action::ToggleDiff, "the what-if diff: the trace before and after the last what-if", "";
    FilterStep "a" => Action::ToggleAllFailures, "all failing plugins per node / first only", "all";
    FilterStep "s" => Action::CycleSort, "sort: fit, name, plugin, zone", "sort";
    FilterStep "/" => Action::SearchStart, "filter nodes", "filter";
    ScoreStep "v" => Action::CycleScoreMode, "values: raw, normalized, weighted", "values";
    NodeView "b" => Action::RequestBind, "bind the pod to this node", "bind";
    NodeView "c" => Action::ToggleCordon, "what-if: cordon / uncordon", "cordon";
    NodeView "i" => Action::EditInline, "what-if: edit taints, labels inline", "edit";
    NodeView "e" => Action::EditExternal, "what-if: edit the node as YAML in $EDITOR", "";
    NodeList "<Enter>" => Action::Open, "open the node", "open";
    NodeList "c" => Action::Copy, "copy the node's name (OSC 52)", "";
    NodeList "y" => Action::ShowYaml, "the node's YAML", "yaml";
    NodeList "d" => Action::Describe, "describe the node (as kubectl describe)", "describe";
    NodeView "y" => Action::ShowYaml, "the node's YAML", "yaml";
    NodeView "d" => Action::Describe, "describe the node (as kubectl describe)", "describe";
    NodeList "N" => Action::SortNodes(NodeSortKey::Name), "sort by NODE (the same key again: reverse)", "sort col";
    NodeList "Z" => Action::SortNodes(NodeSortKey::Zone), "sort by ZONE", "sort col";
    NodeList "C" => Action::SortNodes(NodeSortKey::Cpu), "sort by CPU REQ (share of allocatable)", "sort col";
    NodeList "M" => Action::SortNodes(NodeSortKey::Memory), "sort by MEM REQ (share of allocatable)", "sort col";
    NodeList "P" => Action::SortNodes(NodeSortKey::Pods), "sort by PODS", "sort col";
    NodeList "T" => Action::SortNodes(NodeSortKey::State), "sort by STATE / FIT (the nodes that fit first)", "sort col";
    Queue "<Enter>" => Action::Open, "open the pod", "open";
    Queue "m" => Action::OpenGang, "the pod's gang as a whole", "gang";
    Gang "<Enter>" => Action::Open, "open the member", "open";
    Deschedule "<Enter>" => Action::Open, "open the pod (as it is in the cluster)", "open";
    Events "<Enter>" => Action::Open, "open the event's pod (every pod's events)", "open";
    Events "c" => Action::Copy, "copy the event's message (OSC 52)", "";
    Queue "c" => Action::Copy, "copy the pod's namespace/name (OSC 52)", "";
    Gang "c" => Action::Copy, "copy the member's namespace/name (OSC 52)", "";
    Queue "y" => Action::ShowYaml, "the pod's YAML", "";
    Queue "d" => Action::Describe, "describe the pod", "";
    Gang "d" => Action::Describe, "describe the member", "";
    Events "d" => Action::Describe, "describe the pod", "";
    Gang "y" => Action::ShowYaml, "the member's YAML", "";
    Events "y" => Action::ShowYaml, "the pod's YAML", "";
    Messages "c" => Action::Copy, "copy the message (OSC 52)", "copy";
    Text "c" => Action::Copy, "copy the whole text (OSC 52)", "copy";
    PodView "f" => Action::OpenFixes, "to fix: one change per blocking reason, checked by the engine", "";
    PodList "f" => Action::OpenFixes, "to fix: the pod's changes, checked by the engine", "";
    Fixes "<Enter>" => Action::Open, "make the change in memory (a what-if) and go back to the pod", "try";
    Fixes "c" => Action::Copy, "copy the fix's kubectl command (OSC 52)", "copy";
    Fixes "y" => Action::ShowYaml, "the pod's YAML", "";
    PodView "E" => Action::OpenEvents, "the pod's FailedScheduling events, as kubectl describe lists them", "";
    NodeList "/" => Action::SearchStart, "filter nodes", "filter";
    Global "?" => Action::Help, "help", "help";
    Global "<Ctrl-r>" => Action::Rerun, "re-run: list the cluster again and explain on it", "";
    Global "F" => Action::ToggleFollow, "live: follow the cluster / freeze the view", "";
    Global ":" => Action::CommandStart, "command line (the commands are listed below)", "cmd";
    Global "<Esc>" => Action::Cancel, "back (clear the search and the reason filter at the pod list)", "back";
    Global "q" => Action::Back, "back (quit at the pod list)", "";
    Global "<Ctrl-c>" => Action::Quit, "quit", "";
    Global "j" => Action::Down, "down", "";
    Global "<Down>" => Action::Down, "down", "";
    Global "k" => Action::Up, "up", "";
    Global "<Up>" => Action::Up, "up", "";
    Global "<PageDown>" => Action::PageDown, "page down", "";
    Global "<Ctrl-d>" => Action::PageDown, "page down", "";
    Global "<PageUp>" => Action::PageUp, "page up", "";
    Global "<Ctrl-u>" => Action::PageUp, "page up", "";
    Global "g" => Action::Top, "first row", "";
    Global "<Home>" => Action::Top, "first row", "";
    Global "G" => Action::Bottom, "last row", "";
    Global "<End>" => Action::Bottom, "last row", "";
    Search "<Enter>" => Action::Submit, "keep the search", "keep";
    Search "<Esc>" => Action::Cancel, "clear the search", "clear";
    Search "<Backspace>" => Action::Backspace, "delete a character", "";
    Search "<Ctrl-u>" => Action::ClearInput, "clear the text", "";
    Command "<Enter>" => Action::Submit, "run the command", "run";
    Command "<Tab>" => Action::Complete, "complete the command's name", "complete";
    Command "<Esc>" => Action::Cancel, "cancel", "cancel";
    Command "<Backspace>" => Action::Backspace, "delete a character", "";
    Command "<Ctrl-u>" => Action::ClearInput, "clear the text", "";
    Confirm "y" => Action::Confirm, "confirm", "yes";
    Confirm "<Enter>" => Action::Cancel, "cancel (the default: a write needs y)", "";
    Confirm "n" => Action::Cancel, "cancel", "no";
    Confirm "<Esc>" => Action::Cancel, "cancel", "";
    Help "<Esc>" => Action::Cancel, "close", "close";
    Help "?" => Action::Cancel, "close", "";
    Help "q" => Action::Cancel, "close", "";
    Help "j" => Action::Down, "scroll down", "";
    Help "<Down>" => Action::Down, "scroll down", "";
    Help "k" => Action::Up, "scroll up", "";
    Help "<Up>" => Action::Up, "scroll up", "";
    Edit "<Enter>" => Action::Submit, "apply and re-run the scheduler", "apply";
    Edit "<Esc>" => Action::Cancel, "cancel", "cancel";
    Edit "<Tab>" => Action::FieldNext, "next field", "next";
    Edit "<Down>" => Action::FieldNext, "next field", "";
    Edit "<S-Tab>" => Action::FieldPrev, "previous field", "";
    Edit "<Up>" => Action::FieldPrev, "previous field", "";
    Edit "<Backspace>" => Action::Backspace, "delete a character", "";
    Edit "<Ctrl-u>" => Action::ClearInput, "clear the field", "";
};

/// A parsed key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Key {
    /// Code.
    pub code: KeyCode,
    /// Ctrl held.
    pub ctrl: bool,
}

/// Parses the `<Ctrl-c>` notation. Returns None for an unknown name.
pub(crate) fn parse_key(s: &str) -> Option<Key> {
    let Some(inner) = s.strip_prefix('<').and_then(|r| r.strip_suffix('>')) else {
        let mut cs = s.chars();
        let c = cs.next()?;
        return cs.next().is_none().then_some(Key {
            code: KeyCode::Char(c),
            ctrl: false,
        });
    };
    if let Some(c) = inner.strip_prefix("Ctrl-") {
        let mut cs = c.chars();
        let ch = cs.next()?;
        return cs.next().is_none().then_some(Key {
            code: KeyCode::Char(ch),
            ctrl: true,
        });
    }
    let code = match inner {
        "Enter" => KeyCode::Enter,
        "Esc" => KeyCode::Esc,
        "Tab" => KeyCode::Tab,
        "S-Tab" => KeyCode::BackTab,
        "Backspace" => KeyCode::Backspace,
        "Up" => KeyCode::Up,
        "Down" => KeyCode::Down,
        "Left" => KeyCode::Left,
        "Right" => KeyCode::Right,
        "PageUp" => KeyCode::PageUp,
        "PageDown" => KeyCode::PageDown,
        "Home" => KeyCode::Home,
        "End" => KeyCode::End,
        "Space" => KeyCode::Char(' '),
        _ => return None,
    };
    Some(Key { code, ctrl: false })
}

/// How a key is shown in help: `Ctrl-c`, `Enter`, `↑`.
pub(crate) fn display_key(s: &str) -> String {
    match s {
        "<Up>" => "↑".into(),
        "<Down>" => "↓".into(),
        "<Left>" => "←".into(),
        "<Right>" => "→".into(),
        "<PageUp>" => "PgUp".into(),
        "<PageDown>" => "PgDn".into(),
        "<S-Tab>" => "Shift-Tab".into(),
        other => other.trim_start_matches('<').trim_end_matches('>').to_string(),
    }
}

fn key_matches(k: Key, ev: &KeyEvent) -> bool {
    let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    match (k.code, ev.code) {
        // Shift is part of the character itself (N, ?, :)
        (KeyCode::Char(a), KeyCode::Char(b)) => a == b && k.ctrl == ctrl,
        (a, b) => a == b && k.ctrl == ctrl,
    }
}

/// The active scopes, most specific first.
pub(crate) fn scopes(app: &App) -> Vec<Scope> {
    match &app.mode {
        Mode::Search => return vec![Scope::Search],
        Mode::Command(_) => return vec![Scope::Command],
        Mode::Confirm(_) | Mode::ConfirmQuit => return vec![Scope::Confirm],
        Mode::Help { .. } => return vec![Scope::Help],
        Mode::Edit(_) => return vec![Scope::Edit],
        Mode::Normal => {}
    }
    if app.load != Load::Ready {
        return vec![Scope::Global];
    }
    match app.screen() {
        None => vec![Scope::PodList, Scope::Global],
        Some(Screen::Pod(v)) => {
            let mut s = Vec::new();
            match v.step.as_ref().map(|s| s.point) {
                Some(Point::Filter) => s.push(Scope::FilterStep),
                Some(Point::Score) => s.push(Scope::ScoreStep),
                _ => {}
            }
            s.extend([Scope::PodView, Scope::Global]);
            s
        }
        Some(Screen::Node(_)) => vec![Scope::NodeView, Scope::Global],
        Some(Screen::Nodes(_)) => vec![Scope::NodeList, Scope::Global],
        Some(Screen::Queue(_)) => vec![Scope::Queue, Scope::Global],
        Some(Screen::Gang(_)) => vec![Scope::Gang, Scope::Global],
        Some(Screen::Deschedule(_)) => vec![Scope::Deschedule, Scope::Global],
        Some(Screen::Events(_)) => vec![Scope::Events, Scope::Global],
        Some(Screen::Messages(_)) => vec![Scope::Messages, Scope::Global],
        Some(Screen::Text(_)) => vec![Scope::Text, Scope::Global],
        Some(Screen::Fixes(_)) => vec![Scope::Fixes, Scope::Global],
    }
}

/// True in modes where plain characters are typed text.
fn typing(app: &App) -> bool {
    matches!(app.mode, Mode::Search | Mode::Command(_) | Mode::Edit(_))
}

/// The action a key press sends, if any.
pub(crate) fn resolve(app: &App, ev: &KeyEvent) -> Option<Action> {
    if ev.kind != KeyEventKind::Press {
        return None;
    }
    // Ctrl-c quits from every mode (typing, a dialog, help), as in k9s and a shell
    if ev.code == KeyCode::Char('c') && ev.modifiers.contains(KeyModifiers::CONTROL) {
        return Some(Action::Quit);
    }
    for scope in scopes(app) {
        for b in KEYMAP.iter().filter(|b| b.scope == scope) {
            if parse_key(b.key).is_some_and(|k| key_matches(k, ev)) {
                return Some((b.action)());
            }
        }
    }
    if let KeyCode::Char(c) = ev.code
        && !ev.modifiers.contains(KeyModifiers::CONTROL)
    {
        if typing(app) {
            return Some(Action::Input(c));
        }
        if app.mode == Mode::Normal {
            return Some(Action::UnknownKey(c));
        }
    }
    None
}

/// Help rows of a scope: keys with the same help text are merged (`j/↓`), in table order.
pub(crate) fn help_rows(scope: Scope) -> Vec<(String, &'static str)> {
    let mut rows: Vec<(String, &'static str)> = Vec::new();
    for b in KEYMAP.iter().filter(|b| b.scope == scope) {
        let k = display_key(b.key);
        match rows.iter_mut().find(|r| r.1 == b.help) {
            Some(r) => {
                r.0.push('/');
                r.0.push_str(&k);
            }
            None => rows.push((k, b.help)),
        }
    }
    rows
}

/// The sections of the help overlay for what the user is looking at: the screen's scopes
/// (including the step-specific ones of the pod view), then Global.
pub(crate) fn help_sections(app: &App) -> Vec<(Scope, Vec<(String, &'static str)>)> {
    let screen_scopes: Vec<Scope> = match app.screen() {
        None => vec![Scope::PodList],
        Some(Screen::Pod(_)) => vec![Scope::PodView, Scope::FilterStep, Scope::ScoreStep],
        Some(Screen::Node(_)) => vec![Scope::NodeView],
        Some(Screen::Nodes(_)) => vec![Scope::NodeList],
        Some(Screen::Queue(_)) => vec![Scope::Queue],
        Some(Screen::Gang(_)) => vec![Scope::Gang],
        Some(Screen::Deschedule(_)) => vec![Scope::Deschedule],
        Some(Screen::Events(_)) => vec![Scope::Events],
        Some(Screen::Messages(_)) => vec![Scope::Messages],
        Some(Screen::Text(_)) => vec![Scope::Text],
        Some(Screen::Fixes(_)) => vec![Scope::Fixes],
    };
    screen_scopes
        .into_iter()
        .chain([Scope::Global, Scope::Search])
        .map(|s| (s, help_rows(s)))
        .collect()
}

/// Status-bar hints for the active scopes: `(key, hint)`. Keys of one scope with the same hint
/// are merged (`O/E/A sort col`); a hint a more specific scope gave is not repeated.
pub(crate) fn hints(app: &App) -> Vec<(String, &'static str)> {
    let mut v: Vec<(String, &'static str)> = Vec::new();
    for scope in scopes(app) {
        let before = v.len();
        for b in KEYMAP.iter().filter(|b| b.scope == scope && !b.hint.is_empty()) {
            if let Some(x) = v[before..].iter_mut().find(|x| x.1 == b.hint) {
                x.0.push('/');
                x.0.push_str(&display_key(b.key));
            } else if !v.iter().any(|x| x.1 == b.hint) {
                v.push((display_key(b.key), b.hint));
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{SourceInfo, SourceKind};

    fn press(code: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, m)
    }

    #[test]
    fn every_key_in_the_table_parses() {
        for b in KEYMAP {
            assert!(parse_key(b.key).is_some(), "key '{}' does not parse", b.key);
        }
    }

    /// `d` describes on every screen that has it (the pod view's `d` was its what-if diff,
    /// now `D`).
    #[test]
    fn d_describes_on_every_screen() {
        let d: Vec<&Binding> = KEYMAP.iter().filter(|b| b.key == "d").collect();
        assert!(d.iter().any(|b| b.scope == Scope::PodView));
        for b in d {
            assert!(matches!((b.action)(), Action::Describe), "{:?}", b.scope);
        }
        let diff = KEYMAP
            .iter()
            .find(|b| b.scope == Scope::PodView && b.key == "D")
            .expect("D in the pod view");
        assert!(matches!((diff.action)(), Action::ToggleDiff));
    }

    #[test]
    fn no_key_is_bound_twice_in_a_scope() {
        for (i, a) in KEYMAP.iter().enumerate() {
            for b in &KEYMAP[i + 1..] {
                assert!(
                    !(a.scope == b.scope && a.key == b.key),
                    "{:?} {} bound twice",
                    a.scope,
                    a.key
                );
            }
        }
    }

    #[test]
    fn parse_notation() {
        assert_eq!(
            parse_key("<Ctrl-c>"),
            Some(Key {
                code: KeyCode::Char('c'),
                ctrl: true
            })
        );
        assert_eq!(
            parse_key("G"),
            Some(Key {
                code: KeyCode::Char('G'),
                ctrl: false
            })
        );
        assert_eq!(
            parse_key("<S-Tab>"),
            Some(Key {
                code: KeyCode::BackTab,
                ctrl: false
            })
        );
        assert_eq!(parse_key("<Nope>"), None);
        assert_eq!(parse_key("ab"), None);
    }

    /// An app in normal mode with its cluster loaded (no screen open).
    fn ready_app() -> App {
        let mut app = App::new(
            SourceInfo {
                kind: SourceKind::Demo,
                name: "demo".into(),
            },
            false,
        );
        app.load = Load::Ready;
        app
    }

    #[test]
    fn resolve_by_scope_and_typing() {
        let mut app = ready_app();
        let q = press(KeyCode::Char('q'), KeyModifiers::NONE);
        assert!(matches!(resolve(&app, &q), Some(Action::Back)));
        // shifted letters arrive with SHIFT set
        let n = press(KeyCode::Char('N'), KeyModifiers::SHIFT);
        assert!(matches!(resolve(&app, &n), Some(Action::NextNamespace)));
        let cc = press(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert!(matches!(resolve(&app, &cc), Some(Action::Quit)));
        app.mode = Mode::Search;
        assert!(matches!(resolve(&app, &q), Some(Action::Input('q'))));
        assert!(matches!(
            resolve(&app, &press(KeyCode::Esc, KeyModifiers::NONE)),
            Some(Action::Cancel)
        ));
    }

    #[test]
    fn ctrl_c_quits_from_every_mode_and_enter_cancels_a_confirmation() {
        let mut app = ready_app();
        let cc = press(KeyCode::Char('c'), KeyModifiers::CONTROL);
        let confirm = Mode::Confirm(crate::app::Pending::Bind {
            pod: crate::model::ObjectKey::new("ns", "p"),
            node: "n".into(),
            warning: None,
        });
        for mode in [
            Mode::Normal,
            Mode::Search,
            Mode::Command("w ".into()),
            Mode::Help { scroll: 0 },
            confirm.clone(),
        ] {
            app.mode = mode.clone();
            assert!(matches!(resolve(&app, &cc), Some(Action::Quit)), "{mode:?}");
        }
        // a key the screen does not have is a hint to ?, in normal mode only
        app.mode = Mode::Normal;
        let z = press(KeyCode::Char('z'), KeyModifiers::NONE);
        assert!(matches!(resolve(&app, &z), Some(Action::UnknownKey('z'))));
        assert!(resolve(&app, &press(KeyCode::F(5), KeyModifiers::NONE)).is_none());
        app.mode = Mode::Help { scroll: 0 };
        assert!(resolve(&app, &z).is_none());
        // a write needs y: Enter, n and Esc cancel
        app.mode = confirm;
        let key = |c| resolve(&app, &press(c, KeyModifiers::NONE));
        assert!(matches!(key(KeyCode::Enter), Some(Action::Cancel)));
        assert!(matches!(key(KeyCode::Esc), Some(Action::Cancel)));
        assert!(matches!(key(KeyCode::Char('n')), Some(Action::Cancel)));
        assert!(matches!(key(KeyCode::Char('y')), Some(Action::Confirm)));
    }

    #[test]
    fn help_merges_keys_with_the_same_text() {
        let rows = help_rows(Scope::Global);
        assert!(rows.contains(&("j/↓".to_string(), "down")));
        assert!(rows.contains(&("PgDn/Ctrl-d".to_string(), "page down")));
        assert_eq!(rows[0], ("?".to_string(), "help"));
    }
}
