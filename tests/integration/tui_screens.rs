//! Every TUI screen rendered with ratatui's TestBackend at 80×24 and 160×48 into insta
//! snapshots, on fixtures/tui-test.yaml, with the app driven by actions and the time injected.
//! Colours are not in the snapshots; the last tests check theme slots on cells.

use std::sync::Arc;

use kschedtui::app::node_list::NodeSortKey;
use kschedtui::app::pod_list::SortKey;
use kschedtui::app::stepper::{Point, Step};
use kschedtui::app::{Action, App, Screen, SourceInfo, SourceKind, Summary, load_sync, update, update_sync};
use kschedtui::engine::trace::{Candidate, PostFilterTrace};
use kschedtui::model::ObjectKey;
use kschedtui::tui::theme::{self, Theme};
use kschedtui::tui::view::{ViewState, render};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

const FIXTURE: &str = include_str!("../../fixtures/tui-test.yaml");
/// 2024-05-01T10:00:00Z: ages in the fixture are then 10m to 3h.
const NOW: i64 = 1_714_557_600;
const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

fn theme() -> Theme {
    theme::load(None).expect("default theme").0
}

fn new_app() -> App {
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Snapshot,
            name: "fixtures/tui-test.yaml".into(),
        },
        false,
    );
    a.features = std::sync::Arc::new(kschedtui::engine::Features::new("1.30".parse().expect("version")));
    update(&mut a, Action::Tick { now: NOW });
    a
}

fn app() -> App {
    let mut a = new_app();
    load_sync(
        &mut a,
        kschedtui::source::file::load_str("tui-test.yaml", FIXTURE).expect("fixture"),
    );
    a
}

fn run(a: &mut App, actions: impl IntoIterator<Item = Action>) {
    for x in actions {
        update_sync(a, x);
    }
}

fn typed(s: &str) -> Vec<Action> {
    s.chars().map(Action::Input).collect()
}

fn draw(a: &App, theme: &Theme, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    let mut view = ViewState::default();
    t.draw(|f| render(a, theme, &mut view, f)).expect("draw");
    t
}

fn snap(name: &str, a: &App) {
    let th = theme();
    for (w, h) in SIZES {
        let t = draw(a, &th, w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), t.backend());
    }
}

/// Opens a pod by name from the pod list.
fn open_pod(a: &mut App, name: &str) {
    a.screens.clear();
    let key = a
        .cluster
        .pods
        .iter()
        .find(|p| p.key.name == name)
        .expect("pod")
        .key
        .clone();
    a.pods.selected = kschedtui::app::pod_list::rows(a)
        .iter()
        .position(|r| r.pod.key == key)
        .expect("row");
    run(a, [Action::Open]);
}

fn go_to(a: &mut App, step: Step) {
    if let Some(Screen::Pod(v)) = a.screens.last_mut() {
        v.step = Some(step);
        v.selected = 0;
    }
}

fn plugin_step(a: &App, point: Point, plugin: &str) -> Step {
    let Some(Screen::Pod(v)) = a.screen() else {
        panic!("pod view expected")
    };
    let Some(Ok(ex)) = a.explanation(&v.pod) else {
        panic!("explained")
    };
    let pl = kschedtui::app::stepper::Pipeline::new(ex, a.profile(&ex.profile));
    let i = pl
        .stage(point)
        .expect("stage")
        .plugins
        .iter()
        .position(|p| p == plugin)
        .expect("plugin");
    Step { point, plugin: Some(i) }
}

#[test]
fn loading() {
    snap("loading", &new_app());
}

#[test]
fn load_failed() {
    let mut a = new_app();
    update(
        &mut a,
        Action::Loaded(Box::new(Err(
            "fixtures/bad.yaml: document 0: Node n1: field 'status.allocatable.cpu': invalid quantity 'lots'".into(),
        ))),
    );
    snap("load_failed", &a);
}

#[test]
fn pod_list() {
    snap("pod_list", &app());
}

#[test]
fn pod_list_search() {
    let mut a = app();
    run(&mut a, [Action::SearchStart]);
    run(&mut a, typed("-f bt"));
    snap("pod_list_search", &a);
}

/// `/` finds a part of the name as k9s' filter does (`bt` is no part of any name: `-f bt` is
/// the fuzzy match); `/-l SELECTOR` keeps the pods a label selector selects, and says why a
/// selector that does not parse selects none.
#[test]
fn pod_list_search_for_a_part_of_the_name_and_by_labels() {
    let mut a = app();
    run(&mut a, [Action::SearchStart]);
    run(&mut a, typed("bt"));
    assert_eq!(a.pod_rows().len(), 0);
    run(&mut a, [Action::ClearInput]);
    run(&mut a, typed("tch"));
    let names = |a: &App| -> Vec<String> {
        kschedtui::app::pod_list::rows(a)
            .iter()
            .map(|r| r.pod.key.to_string())
            .collect()
    };
    assert_eq!(names(&a), ["default/batch-1"]);
    snap("pod_list_search_part", &a);
    run(&mut a, [Action::ClearInput]);
    run(&mut a, typed("-l app=web"));
    assert_eq!(names(&a), ["default/web-2"]);
    snap("pod_list_search_labels", &a);
    run(&mut a, [Action::ClearInput]);
    run(&mut a, typed("-l app in (web"));
    assert!(names(&a).is_empty());
    let top = rows(&draw(&a, &theme(), 160, 48))[1].clone();
    assert!(
        top.contains("· /-l app in (web (cannot parse 'app in (web' in selector \"app in (web\")"),
        "{top}"
    );
}

#[test]
fn pod_list_namespace_and_sort() {
    let mut a = app();
    run(
        &mut a,
        [
            Action::NextNamespace,
            Action::NextNamespace,
            Action::SortPods(SortKey::Age),
        ],
    );
    snap("pod_list_namespace_sorted_by_age", &a);
}

#[test]
fn pod_list_sorted_by_a_column_pending_only() {
    let mut a = app();
    // Shift-C sorts by CPU (largest first, ↓ in the header); Ctrl-z keeps the pending pods
    run(&mut a, [Action::SortPods(SortKey::Cpu), Action::TogglePendingOnly]);
    snap("pod_list_cpu_pending_only", &a);
}

#[test]
fn pod_list_sorted_by_name_reversed() {
    let mut a = app();
    run(
        &mut a,
        [Action::SortPods(SortKey::Name), Action::SortPods(SortKey::Name)],
    );
    snap("pod_list_name_reversed", &a);
}

#[test]
fn pod_list_same_reason_and_whole_reason() {
    let mut a = app();
    // batch-1 is the third row in queue order; r keeps the pods with its reason
    run(&mut a, [Action::Down, Action::Down, Action::SameReason]);
    snap("pod_list_same_reason", &a);
    run(&mut a, [Action::ToggleWhole]);
    snap("pod_list_same_reason_whole", &a);
}

#[test]
fn pod_list_reason_text_filter() {
    let mut a = app();
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("reason HELD"));
    run(&mut a, [Action::Submit]);
    snap("pod_list_reason_text", &a);
}

#[test]
fn demo_pod_list_sorted_by_reason() {
    let mut a = new_app();
    load_sync(
        &mut a,
        kschedtui::source::file::load_str("demo.yaml", include_str!("../../fixtures/demo.yaml")).expect("demo"),
    );
    run(&mut a, [Action::TogglePendingOnly, Action::SortPods(SortKey::Reason)]);
    snap("demo_pod_list_by_reason", &a);
}

#[test]
fn help_pod_list_lists_the_sort_filter_and_wrap_keys() {
    let mut a = app();
    run(&mut a, [Action::Help]);
    snap("help_pod_list", &a);
}

#[test]
fn pod_list_command_line() {
    let mut a = app();
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("ns da"));
    snap("pod_list_command", &a);
}

#[test]
fn status_error() {
    let mut a = app();
    run(&mut a, [Action::Down, Action::Down, Action::RequestBind]);
    snap("status_error_bind_refused", &a);
}

/// batch-1 with the FailedScheduling event an older scheduler recorded (no "preemption:" part).
const OLD_EVENT: &str = r#"
---
apiVersion: v1
kind: Event
metadata: {name: batch-1.17cb8e0a1f2b3c4d, namespace: default, creationTimestamp: "2024-05-01T09:30:01Z"}
involvedObject: {kind: Pod, namespace: default, name: batch-1, apiVersion: v1}
reason: FailedScheduling
message: "0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable, 2 Insufficient cpu."
source: {component: default-scheduler}
firstTimestamp: "2024-05-01T09:30:01Z"
lastTimestamp: "2024-05-01T09:58:00Z"
count: 12
type: Warning
"#;

#[test]
fn pod_with_a_disagreeing_failed_scheduling_event() {
    let mut a = new_app();
    load_sync(
        &mut a,
        kschedtui::source::file::load_str("tui-test.yaml", &format!("{FIXTURE}{OLD_EVENT}")).expect("fixture"),
    );
    open_pod(&mut a, "batch-1");
    snap("pod_failed_scheduling_event", &a);
    // The disagreement is in the warn colour.
    let th = theme();
    let t = draw(&a, &th, 160, 48);
    let (x, y) = find(&t, "Cluster differs");
    assert_eq!(t.backend().buffer()[(x, y)].fg, th.warn.fg.expect("warn colour"));
}

#[test]
fn events_of_a_pod_and_of_every_pod() {
    let mut a = new_app();
    load_sync(
        &mut a,
        kschedtui::source::file::load_str("tui-test.yaml", &format!("{FIXTURE}{OLD_EVENT}")).expect("fixture"),
    );
    // E in the pod view: the pod's events as kubectl describe lists them
    open_pod(&mut a, "batch-1");
    run(&mut a, [Action::OpenEvents]);
    let t = draw(&a, &theme(), 160, 48);
    let text = format!("{:?}", t.backend());
    // 12 times from 30m before the first tick to 2m before it
    assert!(
        text.contains("Warning  FailedScheduling  2m (x12 over 29m)  default-scheduler  0/4 nodes are available"),
        "{text}"
    );
    snap("events_of_a_pod", &a);
    // :events at the pod list: every pod's, with the pod column; Enter opens the pod
    a.screens.clear();
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("events"));
    run(&mut a, [Action::Submit]);
    snap("events_of_every_pod", &a);
    run(&mut a, [Action::Open]);
    assert!(matches!(a.screen(), Some(Screen::Pod(v)) if v.pod == ObjectKey::new("default", "batch-1")));
}

#[test]
fn messages_keep_what_the_status_line_said() {
    let mut a = app();
    run(&mut a, [Action::RequestBind, Action::Cancel, Action::CommandStart]);
    run(&mut a, typed("ns nosuch"));
    run(&mut a, [Action::Submit, Action::CommandStart]);
    run(&mut a, typed("messages"));
    run(&mut a, [Action::Submit]);
    snap("messages", &a);
}

#[test]
fn yaml_of_a_pod() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    run(&mut a, [Action::ShowYaml]);
    snap("yaml_of_a_pod", &a);
}

#[test]
fn describe_a_pod_with_events_and_a_node() {
    let mut a = new_app();
    load_sync(
        &mut a,
        kschedtui::source::file::load_str("tui-test.yaml", &format!("{FIXTURE}{OLD_EVENT}")).expect("fixture"),
    );
    open_pod(&mut a, "batch-1");
    run(&mut a, [Action::Describe]);
    snap("describe_pod", &a);
    a.screens.clear();
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("nodes"));
    run(&mut a, [Action::Submit, Action::Describe]);
    snap("describe_node", &a);
}

#[test]
fn filter_summary() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    snap("pod_filter", &a);
}

#[test]
fn pod_view_verdict_whole_with_w() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    // cut at two lines it ends with `… w: whole` (pod_filter_80x24); w shows it all
    run(&mut a, [Action::ToggleWhole]);
    snap("pod_filter_whole", &a);
}

#[test]
fn filter_all_failures_sorted_by_plugin() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    run(
        &mut a,
        [
            Action::ToggleAllFailures,
            Action::CycleSort,
            Action::CycleSort,
            Action::Down,
        ],
    );
    snap("pod_filter_all_failures", &a);
}

#[test]
fn filter_plugin_step() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    let s = plugin_step(&a, Point::Filter, "NodeResourcesFit");
    go_to(&mut a, s);
    snap("pod_filter_plugin_node_resources_fit", &a);
}

#[test]
fn filter_search() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    run(&mut a, [Action::SearchStart]);
    run(&mut a, typed("zone-b"));
    snap("pod_filter_search", &a);
}

#[test]
fn prefilter() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    run(&mut a, [Action::PointPrev]);
    snap("pod_prefilter", &a);
    let s = plugin_step(&a, Point::PreFilter, "NodeResourcesFit");
    go_to(&mut a, s);
    snap("pod_prefilter_plugin", &a);
}

#[test]
fn queue_sort() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    go_to(&mut a, Step::at(Point::QueueSort));
    snap("pod_queue_sort", &a);
}

#[test]
fn gated_pod() {
    let mut a = app();
    open_pod(&mut a, "gated-1");
    snap("pod_gated", &a);
}

#[test]
fn fixes_screen_of_a_gated_pod_and_of_a_pod_with_several_fixes() {
    let mut a = app();
    open_pod(&mut a, "gated-1");
    run(&mut a, [Action::OpenFixes]);
    snap("fixes_gated", &a);
    open_pod(&mut a, "batch-1");
    run(&mut a, [Action::OpenFixes, Action::Down]);
    snap("fixes_batch", &a);
}

#[test]
fn pod_waiting_for_its_scheduler() {
    let mut a = app();
    open_pod(&mut a, "etl-1");
    snap("pod_no_profile", &a);
}

#[test]
fn score_matrix() {
    let mut a = app();
    open_pod(&mut a, "web-2");
    snap("pod_score", &a);
    run(&mut a, [Action::CycleScoreMode]);
    snap("pod_score_raw", &a);
}

#[test]
fn score_plugin_step() {
    let mut a = app();
    open_pod(&mut a, "web-2");
    let s = plugin_step(&a, Point::Score, "NodeResourcesBalancedAllocation");
    go_to(&mut a, s);
    snap("pod_score_plugin", &a);
}

#[test]
fn score_ties() {
    // node-c without its taint, and node-d made its twin: the two empty nodes tie for batch-1
    let text = FIXTURE.replace("    taints:\n    - {key: dedicated, value: gpu, effect: NoSchedule}\n", "").replace(
        "  spec:\n    unschedulable: true\n    taints:\n    - {key: node.kubernetes.io/unschedulable, effect: NoSchedule}\n  status:\n    allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}",
        "  status:\n    allocatable: {cpu: \"8\", memory: 16Gi, pods: \"110\", nvidia.com/gpu: \"2\"}",
    );
    assert_ne!(text, FIXTURE);
    let mut a = new_app();
    load_sync(
        &mut a,
        kschedtui::source::file::load_str("tui-test.yaml", &text).expect("fixture"),
    );
    open_pod(&mut a, "batch-1");
    let Some(Ok(ex)) = a.explanation(&ObjectKey::new("default", "batch-1")) else {
        panic!("explained")
    };
    assert_eq!(ex.selected, vec!["node-c".to_string(), "node-d".to_string()]);
    snap("pod_score_ties", &a);
}

#[test]
fn postfilter_not_run() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    go_to(&mut a, Step::at(Point::PostFilter));
    snap("pod_postfilter_empty", &a);
}

#[test]
fn postfilter_candidates() {
    let mut a = app();
    let k = ObjectKey::new("default", "batch-1");
    let mut ex = (**a.explanations[&k].as_ref().expect("explained")).clone();
    ex.post_filter = Some(PostFilterTrace {
        plugin: "DefaultPreemption".into(),
        code: Some(kschedtui::engine::framework::status::Code::Success),
        nominated_node: Some("node-a".into()),
        victims: vec![ObjectKey::new("default", "api-1")],
        message: String::new(),
        candidates: vec![
            Candidate {
                node: "node-a".into(),
                victims: vec![ObjectKey::new("default", "api-1")],
                pdb_violations: 0,
                note: "chosen: fewest PDB violations, then highest victim priority is lowest".into(),
                ..Default::default()
            },
            Candidate {
                node: "node-b".into(),
                victims: vec![ObjectKey::new("data", "db-0")],
                pdb_violations: 1,
                note: "1 PDB violation".into(),
                violated_pdbs: vec![ObjectKey::new("data", "db-pdb")],
                ..Default::default()
            },
            Candidate {
                node: "node-e".into(),
                victims: vec![ObjectKey::new("default", "api-2")],
                pdb_violations: 0,
                note: "tied with node-a on every criterion".into(),
                ..Default::default()
            },
        ],
        random_tie: vec!["node-a".into(), "node-e".into()],
        node_notes: vec![
            (
                "node-c".into(),
                "preemption will not help: node(s) had untolerated taint(s)".into(),
            ),
            (
                "node-d".into(),
                "preemption will not help: node(s) were unschedulable".into(),
            ),
        ],
        ..Default::default()
    });
    a.summaries.insert(k.clone(), Ok(Summary::of(&ex)));
    a.explanations.insert(k, Ok(Arc::new(ex)));
    open_pod(&mut a, "batch-1");
    go_to(&mut a, Step::at(Point::PostFilter));
    snap("pod_postfilter_candidates", &a);
    run(&mut a, [Action::RequestPreempt]);
    snap("confirm_preempt", &a);
}

#[test]
fn binding_cycle() {
    let mut a = app();
    open_pod(&mut a, "web-2");
    run(&mut a, [Action::RunToEnd]);
    go_to(&mut a, Step::at(Point::Bind));
    snap("pod_bind", &a);
    go_to(&mut a, Step::at(Point::Permit));
    snap("pod_permit", &a);
}

#[test]
fn bound_pod() {
    let mut a = app();
    open_pod(&mut a, "api-1");
    snap("pod_bound", &a);
}

#[test]
fn node_view_from_a_pod() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    run(&mut a, [Action::Open]);
    snap("node_view_nearly_fits", &a);
}

#[test]
fn node_view_tainted() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    run(&mut a, [Action::Down, Action::Down, Action::Open]);
    snap("node_view_tainted", &a);
}

#[test]
fn node_list() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("nodes"));
    run(&mut a, [Action::Submit]);
    snap("node_list", &a);
}

#[test]
fn node_list_sorted_by_cpu() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("nodes"));
    run(&mut a, [Action::Submit, Action::SortNodes(NodeSortKey::Cpu)]);
    snap("node_list_cpu", &a);
    run(&mut a, [Action::SortNodes(NodeSortKey::State)]);
    snap("node_list_state", &a);
}

#[test]
fn help_overlay() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    run(&mut a, [Action::Help]);
    snap("help_pod_view", &a);
}

#[test]
fn confirm_bind() {
    let mut a = app();
    run(&mut a, [Action::RequestBind]);
    snap("confirm_bind", &a);
}

#[test]
fn confirm_bind_picked_node() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    run(&mut a, [Action::Open, Action::RequestBind]);
    snap("confirm_bind_picked_node", &a);
}

#[test]
fn after_bind() {
    let mut a = app();
    run(&mut a, [Action::RequestBind, Action::Confirm]);
    snap("after_bind", &a);
}

#[test]
fn quit_with_unsaved_changes() {
    let mut a = app();
    run(&mut a, [Action::RequestBind, Action::Confirm, Action::Back]);
    assert_eq!(a.mode, kschedtui::app::Mode::ConfirmQuit);
    snap("quit_with_unsaved_changes", &a);
}

#[test]
fn edit_forms() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    run(
        &mut a,
        [
            Action::EditInline,
            Action::FieldNext,
            Action::FieldNext,
            Action::FieldNext,
        ],
    );
    run(&mut a, typed("dedicated=gpu:NoSchedule"));
    snap("edit_pod_form", &a);
    run(&mut a, [Action::Submit]);
    snap("whatif_diff", &a);
    run(&mut a, [Action::Open, Action::EditInline]);
    snap("edit_node_form", &a);
}

#[test]
fn edit_form_error() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    run(&mut a, [Action::EditInline, Action::ClearInput]);
    run(&mut a, typed("cpu=lots"));
    run(&mut a, [Action::Submit]);
    snap("edit_pod_form_error", &a);
}

#[test]
fn mouse_hit_testing_follows_the_drawn_table_and_pipeline() {
    let mut a = app();
    let th = theme();
    let mut t = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    let mut view = ViewState::default();
    t.draw(|f| render(&a, &th, &mut view, f)).expect("draw");
    // header row of the pod table is y=2; the first pod row y=3
    assert_eq!(view.row_at(10, 2), None);
    assert_eq!(view.row_at(10, 3), Some(0));
    assert_eq!(view.row_at(10, 5), Some(2));
    assert_eq!(view.row_at(0, 5), None, "the border is not a row");
    open_pod(&mut a, "batch-1");
    t.draw(|f| render(&a, &th, &mut view, f)).expect("draw");
    let (x, y) = find(&t, "PreFilter ›");
    assert_eq!(view.point_at(x + 1, y), Some(2));
    // the Filter table's row (the "to fix" line above it names node-b too)
    let (x, y) = find(&t, "node-b zone-a");
    assert_eq!(view.row_at(x, y), Some(0));
}

fn find(t: &Terminal<TestBackend>, text: &str) -> (u16, u16) {
    let buf = t.backend().buffer();
    for y in 0..buf.area.height {
        let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol().to_string()).collect();
        if let Some(i) = line.find(text) {
            let x = line[..i].chars().count();
            return (u16::try_from(x).expect("x"), y);
        }
    }
    panic!("'{text}' not on screen");
}

#[test]
fn verdicts_use_the_theme_slots() {
    let mut a = app();
    open_pod(&mut a, "batch-1");
    let th = theme();
    let t = draw(&a, &th, 160, 48);
    let (x, y) = find(&t, "nearly");
    assert_eq!(t.backend().buffer()[(x, y)].fg, th.warn.fg.expect("warn colour"));
    let (x, y) = find(&t, "no fit ");
    assert_eq!(t.backend().buffer()[(x, y)].fg, th.fail.fg.expect("fail colour"));
    let (x, y) = find(&t, "✗ Filter");
    assert_eq!(
        t.backend().buffer()[(x, y)].bg,
        th.step_current.bg.expect("current step colour")
    );
}

#[test]
fn no_color_leaves_no_colour_on_screen() {
    let mut a = app();
    open_pod(&mut a, "web-2");
    let th = theme().monochrome();
    for (w, h) in SIZES {
        let t = draw(&a, &th, w, h);
        let buf = t.backend().buffer();
        for c in &buf.content {
            assert!(c.fg == Color::Reset && c.bg == Color::Reset, "coloured cell {c:?}");
        }
    }
}

#[test]
fn every_bundled_theme_renders_every_screen_kind() {
    for (name, _) in theme::BUNDLED {
        let (th, w) = theme::load(Some(name)).expect("theme");
        assert!(w.is_empty());
        let mut a = app();
        open_pod(&mut a, "web-2");
        draw(&a, &th, 80, 24);
        run(&mut a, [Action::Open]);
        draw(&a, &th, 80, 24);
    }
}

#[test]
fn tiny_terminal_does_not_panic() {
    let mut a = app();
    let th = theme();
    for (w, h) in [(1, 1), (20, 5), (40, 10), (300, 100)] {
        draw(&a, &th, w, h);
    }
    open_pod(&mut a, "batch-1");
    for (w, h) in [(1, 1), (20, 5), (40, 10), (300, 100)] {
        draw(&a, &th, w, h);
    }
    run(&mut a, [Action::Help]);
    draw(&a, &th, 10, 3);
}

#[test]
fn gang_waits_at_permit() {
    let mut a = new_app();
    load_sync(
        &mut a,
        kschedtui::source::file::load_str("gang.yaml", include_str!("../../fixtures/gang.yaml")).expect("fixture"),
    );
    let first = kschedtui::app::pod_list::rows(&a)[0].pod.key.name.clone();
    open_pod(&mut a, &first);
    go_to(&mut a, Step::at(Point::Permit));
    snap("gang_permit", &a);
}

/// 1.36 with TopologyAwareWorkloadScheduling: the gang screen lists the placements the group
/// was tried in, their scores and the one chosen (fixtures/gang-placements.yaml: zone-b's one
/// 8-cpu node scores higher than zone-a's two 4-cpu nodes).
#[test]
fn gang_screen_shows_the_placements_of_the_pod_group() {
    let mut a = new_app();
    let gates = kschedtui::engine::FeatureGates::parse(
        "GenericWorkload=true,GangScheduling=true,TopologyAwareWorkloadScheduling=true",
    )
    .expect("gates");
    a.features = std::sync::Arc::new(
        kschedtui::engine::Features::with_gates("1.36".parse().expect("version"), &gates).expect("features"),
    );
    load_sync(
        &mut a,
        kschedtui::source::file::load_str(
            "gang-placements.yaml",
            include_str!("../../fixtures/gang-placements.yaml"),
        )
        .expect("fixture"),
    );
    open_pod(&mut a, "w0");
    run(&mut a, [Action::OpenGang]);
    let th = theme();
    let screen = rows(&draw(&a, &th, 160, 48)).join("\n");
    for line in [
        "Placements (TopologyPlacementGenerator, domains of zone):",
        "  zone-a (2 node(s)): the group fits",
        "    score 120: NodeResourcesFit 20 → 20 ×w = 20, PodGroupPodsCount 3 → 100 ×w = 100",
        "  zone-b (1 node(s)): the group fits  ← chosen",
        "    score 122: NodeResourcesFit 22 → 22 ×w = 22, PodGroupPodsCount 3 → 100 ×w = 100",
    ] {
        assert!(screen.contains(line), "{line:?} not on screen:\n{screen}");
    }
    snap("gang_placements", &a);
}

/// The rows of a rendered screen, as text.
fn rows(t: &Terminal<TestBackend>) -> Vec<String> {
    let b = t.backend().buffer();
    (0..b.area.height)
        .map(|y| (0..b.area.width).map(|x| b[(x, y)].symbol()).collect::<String>())
        .collect()
}

/// The TUI attached to a "live" cluster (the test fixture) under a long context and server.
fn live_app(mode: kschedtui::source::write::WriteMode) -> App {
    let state = kschedtui::source::fixture::FixtureSource::from_str("tui-test.yaml", FIXTURE)
        .expect("fixture")
        .state();
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Live,
            name: "context 'kind-kschedtui-conformance-cluster' (https://kschedtui-conformance-control-plane.example.internal:6443)"
                .into(),
        },
        false,
    );
    a.features = Arc::new(kschedtui::engine::Features::new("1.30".parse().expect("version")));
    update(&mut a, Action::Tick { now: NOW });
    let profiles = kschedtui::engine::build_profiles(None, &*a.features).expect("profiles");
    let features = a.features.clone();
    update_sync(
        &mut a,
        Action::Attached(Box::new(Ok(kschedtui::app::Attached {
            state,
            profiles,
            features,
            write_mode: mode,
        }))),
    );
    a
}

#[test]
fn a_header_that_does_not_fit_leaves_out_whole_fields_with_an_ellipsis() {
    use kschedtui::source::write::WriteMode;
    let th = theme();
    let a = live_app(WriteMode::DryRun);
    let header = |w: u16| rows(&draw(&a, &th, w, 24))[0].trim_end().to_string();
    // 160 columns: the server goes first, then the fields at the end; the mode stays
    assert_eq!(
        header(160),
        " kschedtui │ context 'kind-kschedtui-conformance-cluster' │ 4 nodes │ 6 pods, 4 pending │ live at rv  │ dry-run=server │ all namespaces │ scheduler 1.30.6"
    );
    assert_eq!(
        header(120),
        " kschedtui │ context 'kind-kschedtui-conformance-cluster' │ 4 nodes │ live at rv  │ dry-run=server │ …"
    );
    assert_eq!(
        header(122),
        " kschedtui │ context 'kind-kschedtui-conformance-cluster' │ 4 nodes │ 6 pods, 4 pending │ live at rv  │ dry-run=server │ …"
    );
    // narrower: the context's name is cut (with an ellipsis) before the view's state and mode go
    assert_eq!(
        header(80),
        " kschedtui │ context 'kind-kschedtui-conformance-cl… │ live │ dry-run=server │ …"
    );
    assert_eq!(
        header(60),
        " kschedtui │ context 'kind-ksch… │ live │ dry-run=server │ …"
    );
    // whole fields only: the version is never cut
    for w in [60, 80, 100, 119, 120, 130, 140, 150, 160, 200] {
        let h = header(w);
        assert!(h.chars().count() <= usize::from(w), "{w}: {h}");
        assert!(
            h.ends_with("scheduler 1.30.6") || !h.contains("scheduler"),
            "{w}: the version is cut: {h}"
        );
        assert!(h.contains("dry-run=server"), "{w}: the mode is left out: {h}");
    }
}

#[test]
fn every_watch_broken_keeps_stale_in_the_header_as_a_count() {
    use kschedtui::model::event::{ClusterEvent, Kind};
    use kschedtui::source::write::WriteMode;
    let th = theme();
    let mut a = live_app(WriteMode::Enabled);
    let kinds = Kind::ALL.len();
    for kind in Kind::ALL {
        update(
            &mut a,
            Action::Cluster(Box::new(ClusterEvent::Stale {
                kind,
                reason: "connection refused".into(),
            })),
        );
    }
    let header = |a: &App, w: u16| rows(&draw(a, &th, w, 24))[0].trim_end().to_string();
    // every kind (32 with the versions of the gang kinds): their number, even at 250 columns
    assert_eq!(
        header(&a, 80),
        format!(" kschedtui │ context 'kind-kschedtui-conformance-cluster' │ STALE ({kinds} kinds) │ …")
    );
    assert_eq!(
        header(&a, 160),
        format!(
            " kschedtui │ context 'kind-kschedtui-conformance-cluster' │ 4 nodes │ 6 pods, 4 pending │ STALE ({kinds} kinds) │ all namespaces │ scheduler 1.30.6"
        )
    );
    assert!(
        header(&a, 250).contains(&format!(" │ STALE ({kinds} kinds) │ ")),
        "{}",
        header(&a, 250)
    );
    snap("header_every_watch_stale", &a);
    // `:messages` says which kinds and why
    let said: Vec<String> = a.messages.iter().map(|m| m.text.clone()).collect();
    assert_eq!(said.len(), kinds);
    for kind in Kind::ALL {
        let resource = match kind.api_version() {
            "v1" => kind.plural().to_string(),
            api => format!("{} ({api})", kind.plural()),
        };
        let line =
            format!("the watch of {resource} is broken (connection refused): the view is STALE for them, retrying");
        assert!(said.contains(&line), "{line} not in {said:#?}");
    }
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("messages"));
    run(&mut a, [Action::Submit]);
    snap("messages_every_watch_stale", &a);
    // one kind: named at 80 columns too; its resumption is kept as well
    let mut a = live_app(WriteMode::Enabled);
    update(
        &mut a,
        Action::Cluster(Box::new(ClusterEvent::Stale {
            kind: Kind::Pod,
            reason: "connection refused".into(),
        })),
    );
    assert_eq!(
        header(&a, 80),
        " kschedtui │ context 'kind-kschedtui-co… │ STALE: Pod watch broken, retrying │ …"
    );
    update(
        &mut a,
        Action::Cluster(Box::new(ClusterEvent::Resumed {
            kind: Kind::Pod,
            resource_version: "2000".into(),
        })),
    );
    assert_eq!(
        a.messages.back().map(|m| m.text.as_str()),
        Some("the watch of pods resumed at resourceVersion 2000")
    );
}

#[test]
fn extenders_the_engine_does_not_call_are_in_the_header_and_the_messages() {
    let cfg = kschedtui::engine::SchedulerConfig::parse(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders:\n- urlPrefix: http://gpu-extender:8888/scheduler\n  filterVerb: filter\n",
    )
    .expect("config");
    let mut a = new_app();
    let features = a.features.clone();
    let profiles = kschedtui::engine::build_profiles(Some(&cfg), &*features).expect("profiles");
    let cluster = kschedtui::source::file::load_str("tui-test.yaml", FIXTURE).expect("fixture");
    update_sync(
        &mut a,
        Action::Loaded(Box::new(Ok(kschedtui::app::Loaded {
            cluster,
            profiles,
            features,
        }))),
    );
    let note = "the configuration's extender extenders[0] (http://gpu-extender:8888/scheduler) is not called by kschedtui: its Filter is missing from this answer";
    assert_eq!(a.messages.back().map(|m| m.text.as_str()), Some(note));
    let th = theme();
    let header = |w: u16| rows(&draw(&a, &th, w, 24))[0].trim_end().to_string();
    assert_eq!(
        header(80),
        " kschedtui │ tui-test.yaml │ 4 nodes │ 1 extender(s) not called │ …"
    );
    snap("extenders_not_called", &a);
}

#[test]
fn memory_keeps_its_binary_unit() {
    const ONE_G: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 4Gi, pods: "10"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: bound, namespace: default, creationTimestamp: "2024-05-01T09:00:00Z"}
  spec: {nodeName: n1, containers: [{name: c, image: i, resources: {requests: {cpu: 100m, memory: 1G}}}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: pending, namespace: default, creationTimestamp: "2024-05-01T09:00:00Z"}
  spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 100m, memory: 1G}}}]}
"#;
    let th = theme();
    let mut a = new_app();
    load_sync(
        &mut a,
        kschedtui::source::file::load_str("one-g.yaml", ONE_G).expect("fixture"),
    );
    for w in [80, 160] {
        let r = rows(&draw(&a, &th, w, 24));
        let pending = r
            .iter()
            .find(|l| l.contains("default") && l.contains(" pending "))
            .expect("the pending pod's row");
        assert!(pending.contains(" 953.7Mi "), "{w}: {pending}");
    }
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("nodes"));
    run(&mut a, [Action::Submit]);
    for w in [80, 160] {
        let r = rows(&draw(&a, &th, w, 24));
        let n1 = r
            .iter()
            .find(|l| l.contains("n1 ") && l.contains("Mi"))
            .unwrap_or_else(|| panic!("n1's row: {r:#?}"));
        assert!(n1.contains(" 953.7Mi 23% "), "{w}: {n1}");
    }
}

/// The text of a rendered screen, one string per row.
fn rows_of(t: &Terminal<TestBackend>) -> Vec<String> {
    let buf = t.backend().buffer();
    (0..buf.area.height)
        .map(|y| (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect())
        .collect()
}

#[test]
fn help_lists_every_command_of_the_table_and_nothing_else() {
    use kschedtui::app::update::COMMANDS;
    let mut a = app();
    run(&mut a, [Action::Help]);
    let t = draw(&a, &theme(), 100, 120);
    let rows: Vec<Vec<char>> = rows_of(&t).iter().map(|r| r.chars().collect()).collect();
    let (start, col) = rows
        .iter()
        .enumerate()
        .find_map(|(y, r)| {
            let s: String = r.iter().collect();
            let i = s.find("│Commands")?;
            Some((y, s[..i].chars().count() + 1))
        })
        .expect("a Commands section");
    // the text inside the popup's left border, row by row after the section title
    let inside = |y: usize| -> String { rows[y][col..].iter().collect::<String>() };
    let listed: Vec<String> = (start + 1..rows.len())
        .map(inside)
        .take_while(|r| r.starts_with("  :"))
        .map(|r| r.trim_start().split("  ").next().unwrap_or_default().to_string())
        .collect();
    let table: Vec<String> = COMMANDS.iter().map(|c| c.synopsis()).collect();
    assert_eq!(listed, table);
    // and the section ends there: nothing after it but the border
    // and the section ends there: the next row inside the popup is blank or its border
    let after = inside(start + 1 + listed.len());
    assert!(
        after.starts_with('╰') || after.split('│').next().unwrap_or_default().trim().is_empty(),
        "help lists something after the table's commands: {after}"
    );
}

/// `:deschedule FILE` on fixtures/deschedule/low-utilization.yaml: the plugin row, the pod the
/// DefaultEvictor protects, and the evicted pod whose replacement stays Pending (selected,
/// with the scheduler's message in the detail panel).
#[test]
fn deschedule_dry_run() {
    let mut a = new_app();
    a.source.name = "fixtures/deschedule/low-utilization.yaml".into();
    load_sync(
        &mut a,
        kschedtui::source::file::load_str(
            "low-utilization.yaml",
            include_str!("../../fixtures/deschedule/low-utilization.yaml"),
        )
        .expect("fixture"),
    );
    let path = "fixtures/deschedule/low-utilization-policy.yaml";
    a.mode = kschedtui::app::Mode::Command(format!("deschedule {path}"));
    let fx = update(&mut a, Action::Submit);
    let [kschedtui::app::Effect::Deschedule(job)] = fx.as_slice() else {
        panic!("one Deschedule effect expected")
    };
    snap("deschedule_running", &a);
    let done = kschedtui::tui::runtime::deschedule(job);
    run(&mut a, [done, Action::Down, Action::Down]);
    snap("deschedule_dry_run", &a);
}

/// `:fit FILE` on the demo with fixtures/fit/storefront.yaml: the header counts the what-if
/// pods, the list marks them (each explained where the cluster is, without the others), and
/// the pod view of one says it is a what-if.
#[test]
fn fit_what_if_pods() {
    let mut a = new_app();
    a.source.name = "demo".into();
    load_sync(
        &mut a,
        kschedtui::source::file::load_str("demo.yaml", include_str!("../../fixtures/demo.yaml")).expect("demo"),
    );
    a.mode = kschedtui::app::Mode::Command("ns shop".into());
    update(&mut a, Action::Submit);
    a.mode = kschedtui::app::Mode::Command("fit fixtures/fit/storefront.yaml".into());
    let fx = update(&mut a, Action::Submit);
    let [kschedtui::app::Effect::Fit(job)] = fx.as_slice() else {
        panic!("one Fit effect expected")
    };
    let done = kschedtui::tui::runtime::fit(job);
    run(&mut a, [done, Action::TogglePendingOnly]);
    assert_eq!(a.fit.as_ref().map(|f| f.pods.len()), Some(8));
    snap("fit_what_if_pods", &a);
    let first = a.fit.as_ref().expect("fit").pods[0].name.clone();
    open_pod(&mut a, &first);
    snap("fit_what_if_pod_view", &a);
}

#[test]
fn header_names_the_kinds_the_server_does_not_serve() {
    // a 1.36 cluster whose server serves no resource.k8s.io: the release's DynamicResources
    // reads four kinds there, and the header keeps saying so even when narrow
    let mut c = kschedtui::source::file::load_str("tui-test.yaml", FIXTURE).expect("fixture");
    c.not_served = kschedtui::model::kinds::Kind::ALL
        .into_iter()
        .filter(|k| k.discovered())
        .collect();
    let mut a = new_app();
    a.features = Arc::new(kschedtui::engine::Features::new("1.36".parse().expect("version")));
    load_sync(&mut a, c);
    assert_eq!(
        a.unserved_kinds(),
        vec![
            "deviceclasses",
            "resourceslices",
            "resourceclaims",
            "resourceclaimtemplates"
        ]
    );
    let th = theme();
    for (w, h) in SIZES {
        let t = draw(&a, &th, w, h);
        let top: String = (0..w)
            .map(|x| t.backend().buffer()[(x, 0)].symbol().to_string())
            .collect();
        let want = if w < 120 {
            "NOT SERVED: 4 kind(s)"
        } else {
            "NOT SERVED: deviceclasses, resourceslices, resourceclaims, resourceclaimtemplates"
        };
        assert!(top.contains(want), "{w}x{h}: {top}");
    }
    // the pod's explanation says what it means
    let notes = a
        .explanation(&ObjectKey::new("default", "web-2"))
        .and_then(|e| e.as_ref().ok())
        .map(|e| e.notes.clone())
        .unwrap_or_default();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("the server does not serve deviceclasses (resource.k8s.io/v1)")),
        "{notes:?}"
    );
}

#[test]
fn b_refuses_a_gang_member_that_would_wait_at_permit() {
    // fixtures/gang.yaml: four workers, minMember 4, one GPU taken: worker-0 fits and would
    // wait at Permit for the others; binding it alone is refused, naming the gang
    let mut a = new_app();
    load_sync(
        &mut a,
        kschedtui::source::file::load_str("gang.yaml", include_str!("../../fixtures/gang.yaml")).expect("fixture"),
    );
    open_pod(&mut a, "worker-0");
    run(&mut a, [Action::RequestBind]);
    assert!(!matches!(a.mode, kschedtui::app::Mode::Confirm(_)), "no confirmation");
    let last = a.messages.back().map(|m| m.text.clone()).unwrap_or_default();
    assert!(
        last.starts_with("cannot bind: ml/worker-0 is a member of gang ml/training-job (Coscheduling): it would wait at Permit on node 'gpu-1' until 4 member(s) are placed, and 1 are (this pod included); not placed: ml/worker-1, ml/worker-2, ml/worker-3;"),
        "{last}"
    );
}

#[test]
fn a_rehearsed_bind_annotates_the_claim_and_says_what_a_cluster_would_wait_for() {
    const WFFC: &str = r"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: gp3}, provisioner: ebs.csi.aws.com, volumeBindingMode: WaitForFirstConsumer}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data, namespace: shop}
  spec: {storageClassName: gp3, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: db-0, namespace: shop, creationTimestamp: '2024-05-01T09:00:00Z'}
  spec:
    containers: [{name: c, image: i}]
    volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
";
    let mut a = new_app();
    load_sync(
        &mut a,
        kschedtui::source::file::load_str("wffc.yaml", WFFC).expect("fixture"),
    );
    open_pod(&mut a, "db-0");
    run(&mut a, [Action::RequestBind]);
    let kschedtui::app::Mode::Confirm(p) = a.mode.clone() else {
        panic!("confirmation expected")
    };
    let lines = a.confirm_writes(&p);
    assert_eq!(
        lines[0],
        r#"1. PUT /api/v1/namespaces/shop/persistentvolumeclaims/data {"metadata":{"annotations":{"volume.kubernetes.io/selected-node":"n1"}}} (the object as read when sent, with these fields changed)"#
    );
    run(&mut a, [Action::Confirm]);
    let last = a.messages.back().map(|m| m.text.clone()).unwrap_or_default();
    assert!(
        last.starts_with("bound shop/db-0 to n1; no controller runs in memory; a real cluster waits here (at most 600 s) for provisioner ebs.csi.aws.com to create a volume for shop/data on node 'n1', and binds the pod only then — snapshot mode"),
        "{last}"
    );
    let pvc = &a.cluster.pvcs[&ObjectKey::new("shop", "data")];
    assert_eq!(
        pvc.metadata
            .annotations
            .as_ref()
            .and_then(|m| m.get("volume.kubernetes.io/selected-node")),
        Some(&"n1".to_string())
    );
}

/// The demo cluster as `--demo` loads it, at 1.37 (the default release), time injected.
fn demo_app() -> App {
    let mut a = new_app();
    a.features = Arc::new(kschedtui::engine::Features::new("1.37".parse().expect("version")));
    load_sync(
        &mut a,
        kschedtui::source::file::load_str("demo.yaml", include_str!("../../fixtures/demo.yaml")).expect("demo"),
    );
    a
}

/// The pod list never cuts a number (system-cluster-critical's 2000000000 was drawn `200000`),
/// cuts text with `…` (the scheduler name), and at 80 columns gives the reason column the room
/// (it had 17 cells).
#[test]
fn demo_pod_list_keeps_numbers_whole_and_gives_the_reason_its_room() {
    let mut a = demo_app();
    run(&mut a, [Action::Bottom]);
    snap("demo_pod_list_bottom", &a);
    let th = theme();
    let wide = rows(&draw(&a, &th, 160, 48));
    let critical = wide
        .iter()
        .find(|r| r.contains("kube-proxy-cp-1"))
        .expect("kube-proxy row");
    assert!(critical.contains(" 2000000000 "), "{critical}");
    run(&mut a, [Action::Top]);
    snap("demo_pod_list_top", &a);
    let wide = rows(&draw(&a, &th, 160, 48));
    let gang = wide.iter().find(|r| r.contains("ddp-worker-0")).expect("gang row");
    assert!(gang.contains(" scheduler-plugins-scheduler "), "{gang}");
    let narrow = rows(&draw(&a, &th, 80, 24));
    let header = narrow.iter().find(|r| r.contains("WHY PENDING")).expect("header");
    let reason_at = header.find("NODE / WHY PENDING").expect("reason column");
    let reason_w = header.chars().count() - header[..reason_at].chars().count() - 1;
    assert!(reason_w >= 30, "the reason column has {reason_w} cells:\n{header}");
}

/// `:nodes` shows every node's zone whole; at 80 columns the fit of the pod in focus keeps the
/// room its verdict needs.
#[test]
fn demo_node_list_shows_zones_whole_and_the_fit_of_the_pod() {
    let mut a = demo_app();
    open_pod(&mut a, "payments-api");
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("nodes"));
    run(&mut a, [Action::Submit]);
    snap("demo_node_list", &a);
    let th = theme();
    for (w, h) in SIZES {
        let screen = rows(&draw(&a, &th, w, h));
        let a1 = screen.iter().find(|r| r.contains("pool-general-a1")).expect("row");
        assert!(a1.contains(" europe-west1-a "), "{w}x{h}: {a1}");
        assert!(a1.contains("nearly (NodeResourcesFit)"), "{w}x{h}: {a1}");
    }
}

/// `:queue` gives WHY the room at 80 columns; what does not fit ends in `…`.
#[test]
fn demo_queue_gives_why_its_room() {
    let mut a = demo_app();
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("queue"));
    run(&mut a, [Action::Submit]);
    snap("demo_queue", &a);
    let th = theme();
    let narrow = rows(&draw(&a, &th, 80, 24));
    let header = narrow.iter().find(|r| r.contains("WHY")).expect("header");
    let why_w = header.chars().count() - header[..header.find("WHY").expect("WHY")].chars().count() - 1;
    assert!(why_w >= 30, "WHY has {why_w} cells:\n{header}");
}

/// At 80×24 the pod view's Filter table draws the selected row with its detail lines (a DRA
/// node's claims), cut to the room there is; it drew nothing of the row when they did not fit.
#[test]
fn demo_filter_table_draws_the_selected_row_with_its_detail_at_80x24() {
    let mut a = demo_app();
    // pool-dra-a1, the first row, is selected: its claims' detail wraps to more lines than
    // the table has below its header
    open_pod(&mut a, "train-3gpu");
    snap("demo_pod_filter_dra_detail", &a);
    let screen = rows(&draw(&a, &theme(), 80, 24));
    let at = screen
        .iter()
        .position(|r| r.contains("pool-dra-a1"))
        .unwrap_or_else(|| panic!("the selected row is drawn:\n{}", screen.join("\n")));
    assert!(screen[at + 1].contains("↳"), "{}", screen.join("\n"));
}

/// The pod list's help says what each mark of its first column means.
#[test]
fn help_says_what_the_pod_list_marks_mean() {
    let mut a = app();
    run(&mut a, [Action::Help]);
    let screen = rows(&draw(&a, &theme(), 160, 100)).join("\n");
    for line in [
        "│Pod list marks ",
        "│  ✗             not scheduled: no node fits, it is held, or its gang fails",
        "│  ◐             pending, a node fits: the scheduler would bind it there",
        "│  …             waits for another scheduler: no profile serves its schedulerName",
        "│  ●             bound to a node",
        "│  ·             finished (Succeeded or Failed)",
        "│  ?             not explained yet",
    ] {
        assert!(screen.contains(line), "{line:?} not in the help:\n{screen}");
    }
}

/// The fixes screen of a pod no single change places names the reasons kschedtui has no
/// change for; host ports, the pod's own affinity terms, existing pods' anti-affinity and DRA
/// claims that cannot be allocated have theirs, so they are not among them.
#[test]
fn demo_fixes_screen_without_a_single_change_names_what_has_no_fix() {
    let mut a = demo_app();
    open_pod(&mut a, "orders-db-0");
    run(&mut a, [Action::OpenFixes]);
    let screen = rows(&draw(&a, &theme(), 220, 48)).join("\n");
    assert!(
        screen.contains(
            "No single change found: every node fails for more than one reason, or for a reason kschedtui proposes no change for (volumes, a DRA claim's constraints). The Filter step shows each node's reasons."
        ),
        "{screen}"
    );
}
