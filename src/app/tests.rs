//! Key flows on data: every test drives `update` with actions, as the terminal would.

use super::stepper::{Point, Step};
use super::*;

const FIXTURE: &str = include_str!("../../fixtures/tui-test.yaml");

fn app() -> App {
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
    a
}

fn run(a: &mut App, actions: impl IntoIterator<Item = Action>) {
    for x in actions {
        update_sync(a, x);
    }
}

fn names(a: &App) -> Vec<String> {
    pod_list::rows(a).iter().map(|r| r.pod.key.to_string()).collect()
}

fn typed(s: &str) -> Vec<Action> {
    s.chars().map(Action::Input).collect()
}

fn pod_view(a: &App) -> &PodView {
    match a.screen() {
        Some(Screen::Pod(v)) => v,
        _ => panic!("not in a pod view"),
    }
}

#[test]
fn loading_explains_every_pending_pod() {
    let a = app();
    assert_eq!(a.load, Load::Ready);
    assert_eq!(a.generation, 1);
    assert_eq!(a.queued, 4);
    assert_eq!(a.explanations.len(), 4);
    assert_eq!(a.explaining(), 0);
}

#[test]
fn load_failure_is_shown_and_q_quits() {
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Snapshot,
            name: "bad.yaml".into(),
        },
        false,
    );
    update(
        &mut a,
        Action::Loaded(Box::new(Err("bad.yaml: document 0: not valid YAML".into()))),
    );
    assert_eq!(a.load, Load::Failed("bad.yaml: document 0: not valid YAML".into()));
    update(&mut a, Action::Back);
    assert!(a.should_quit);
}

#[test]
fn pending_pods_come_first_in_queue_order() {
    let a = app();
    assert_eq!(
        names(&a),
        vec![
            "default/web-2",
            "data/etl-1",
            "default/batch-1",
            "default/gated-1",
            "data/db-0",
            "default/api-1"
        ]
    );
}

#[test]
fn search_filters_and_esc_clears() {
    let mut a = app();
    run(&mut a, [Action::SearchStart]);
    assert_eq!(a.mode, Mode::Search);
    run(&mut a, typed("bat"));
    assert_eq!(names(&a), vec!["default/batch-1"]);
    // typed letters never reach the keymap: q is text here
    run(&mut a, typed("q"));
    assert!(!a.should_quit);
    assert_eq!(a.pods.query, "batq");
    run(&mut a, [Action::Backspace, Action::Submit]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(names(&a), vec!["default/batch-1"]);
    run(&mut a, [Action::Cancel]);
    assert_eq!(a.pods.query, "");
    assert_eq!(names(&a).len(), 6);
}

#[test]
fn an_unknown_start_namespace_is_an_error_and_the_list_shows_every_namespace() {
    let start = |ns: &str| {
        let mut a = App::new(
            SourceInfo {
                kind: SourceKind::Snapshot,
                name: "tui-test.yaml".into(),
            },
            false,
        );
        a.pods.namespace = Some(ns.into());
        load_sync(
            &mut a,
            crate::source::file::load_str("tui-test.yaml", FIXTURE).expect("fixture"),
        );
        a
    };
    let a = start("nope");
    assert_eq!(a.pods.namespace, None);
    let st = a.status.clone().expect("status");
    assert_eq!(st.kind, StatusKind::Error);
    assert_eq!(
        st.text,
        "unknown namespace 'nope' given with -n (namespaces with pods: data, default); showing all namespaces"
    );
    assert_eq!(names(&a).len(), 6);
    // a namespace that exists stays, without a message
    let a = start("data");
    assert_eq!(a.pods.namespace.as_deref(), Some("data"));
    assert!(a.status.as_ref().is_none_or(|s| s.kind != StatusKind::Error));
}

#[test]
fn a_key_the_screen_does_not_have_hints_at_help_until_the_next_action() {
    let mut a = app();
    run(&mut a, [Action::UnknownKey('z')]);
    let st = a.status.clone().expect("status");
    assert_eq!(st.kind, StatusKind::Info);
    assert_eq!(st.text, "no key 'z' on this screen: ? lists its keys");
    run(&mut a, [Action::Down]);
    assert!(a.status.is_none());
}

#[test]
fn namespace_switch_and_command() {
    let mut a = app();
    run(&mut a, [Action::NextNamespace]);
    assert_eq!(a.pods.namespace.as_deref(), Some("data"));
    assert_eq!(names(&a), vec!["data/etl-1", "data/db-0"]);
    run(&mut a, [Action::NextNamespace, Action::NextNamespace]);
    assert_eq!(a.pods.namespace, None);
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("ns default"));
    run(&mut a, [Action::Submit]);
    assert_eq!(a.pods.namespace.as_deref(), Some("default"));
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("ns nope"));
    run(&mut a, [Action::Submit]);
    let st = a.status.clone().expect("status");
    assert_eq!(st.kind, StatusKind::Error);
    assert_eq!(
        st.text,
        "unknown namespace 'nope' (namespaces with pods: data, default)"
    );
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("frobnicate"));
    run(&mut a, [Action::Submit]);
    assert!(
        a.status
            .clone()
            .expect("status")
            .text
            .starts_with("unknown command ':frobnicate'")
    );
}

#[test]
fn sort_keys_cycle_and_reverse() {
    let mut a = app();
    run(&mut a, [Action::CycleSort]);
    assert_eq!(a.pods.sort, pod_list::SortKey::Name);
    assert_eq!(names(&a)[0], "default/api-1");
    run(&mut a, [Action::ReverseSort]);
    assert_eq!(names(&a)[0], "default/web-2");
    run(&mut a, [Action::CycleSort]);
    assert_eq!(a.pods.sort, pod_list::SortKey::Namespace);
    assert_eq!(names(&a)[0], "default/web-2", "namespace/name, reversed");
    run(&mut a, [Action::CycleSort, Action::ReverseSort]);
    assert_eq!(a.pods.sort, pod_list::SortKey::Age);
    assert_eq!(names(&a)[0], "default/gated-1");
}

#[test]
fn open_pod_lands_on_the_decisive_step_and_steps() {
    let mut a = app();
    run(&mut a, [Action::SearchStart]);
    run(&mut a, typed("batch"));
    run(&mut a, [Action::Submit, Action::Open]);
    let v = pod_view(&a);
    assert_eq!(v.pod, ObjectKey::new("default", "batch-1"));
    assert_eq!(v.step, Some(Step::at(Point::Filter)));
    run(&mut a, [Action::StepNext]);
    assert_eq!(
        pod_view(&a).step,
        Some(Step {
            point: Point::Filter,
            plugin: Some(0)
        })
    );
    run(&mut a, [Action::PointNext]);
    assert_eq!(pod_view(&a).step, Some(Step::at(Point::PostFilter)));
    run(&mut a, [Action::PointPrev, Action::PointPrev]);
    assert_eq!(pod_view(&a).step, Some(Step::at(Point::PreFilter)));
    run(&mut a, [Action::Restart]);
    assert_eq!(pod_view(&a).step, Some(Step::at(Point::PreEnqueue)));
    // the pod does not fit anywhere, so the cycle ends at PostFilter (preemption)
    run(&mut a, [Action::RunToEnd]);
    assert_eq!(pod_view(&a).step, Some(Step::at(Point::PostFilter)));
    run(&mut a, [Action::Back]);
    assert!(a.screen().is_none());
}

#[test]
fn filter_table_puts_nearly_fitting_nodes_first_and_opens_a_node() {
    let mut a = app();
    let k = ObjectKey::new("default", "batch-1");
    update_sync(&mut a, Action::Open); // web-2 first; go back and open batch-1 instead
    run(&mut a, [Action::Back, Action::Down, Action::Down, Action::Open]);
    assert_eq!(pod_view(&a).pod, k);
    let rows = update::pod_view_rows(&a, pod_view(&a));
    // node-b needs 250m, node-a 500m: both nearly fit, smallest shortfall first
    assert_eq!(
        rows,
        vec![
            Some("node-b".into()),
            Some("node-a".into()),
            Some("node-c".into()),
            Some("node-d".into())
        ]
    );
    run(&mut a, [Action::Down, Action::Open]);
    match a.screen() {
        Some(Screen::Node(v)) => {
            assert_eq!(v.node, "node-a");
            assert_eq!(v.pod, Some(k));
        }
        _ => panic!("node view expected"),
    }
    run(&mut a, [Action::Cancel]);
    assert!(matches!(a.screen(), Some(Screen::Pod(_))));
}

#[test]
fn filter_search_and_toggles() {
    let mut a = app();
    run(&mut a, [Action::Down, Action::Down, Action::Open]);
    run(&mut a, [Action::SearchStart]);
    run(&mut a, typed("taint"));
    run(&mut a, [Action::Submit]);
    assert_eq!(update::pod_view_rows(&a, pod_view(&a)), vec![Some("node-c".into())]);
    run(&mut a, [Action::ToggleAllFailures, Action::CycleSort]);
    assert!(pod_view(&a).all_failures);
    assert_eq!(pod_view(&a).filter_sort, FilterSort::Name);
}

#[test]
fn score_mode_cycles() {
    let mut a = app();
    run(&mut a, [Action::Open]);
    assert_eq!(pod_view(&a).step, Some(Step::at(Point::Score)));
    run(&mut a, [Action::CycleScoreMode]);
    assert_eq!(pod_view(&a).score_mode, ScoreMode::Raw);
    assert_eq!(
        update::pod_view_rows(&a, pod_view(&a)),
        vec![Some("node-b".into()), Some("node-a".into())]
    );
}

#[test]
fn bind_asks_then_binds_in_memory() {
    let mut a = app();
    run(&mut a, [Action::RequestBind]);
    let Mode::Confirm(p) = a.mode.clone() else {
        panic!("confirmation expected")
    };
    let lines = a.confirm_writes(&p);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("1. POST /api/v1/namespaces/default/pods/web-2/binding {")
            && lines[0].contains(r#""target":{"kind":"Node","name":"node-b"}"#),
        "{lines:?}"
    );
    assert_eq!(
        p,
        Pending::Bind {
            pod: ObjectKey::new("default", "web-2"),
            node: "node-b".into(),
            warning: None
        }
    );
    run(&mut a, [Action::Confirm]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(a.generation, 2);
    let pod = a.pod(&ObjectKey::new("default", "web-2")).expect("pod");
    assert_eq!(pod.node_name.as_deref(), Some("node-b"));
    assert_eq!(a.usage["node-b"].requested.milli_cpu, 3250);
    // re-explained: batch-1 now misses 750m on node-b
    assert_eq!(a.explanations.len(), 3);
    let st = a.status.clone().expect("status");
    assert!(
        st.text.starts_with("bound default/web-2 to node-b — snapshot mode"),
        "{}",
        st.text
    );
    assert_eq!(a.changes, vec!["bound default/web-2 to node-b".to_string()]);
}

#[test]
fn bind_cancel_changes_nothing() {
    let mut a = app();
    run(&mut a, [Action::RequestBind, Action::Cancel]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(a.generation, 1);
    assert!(
        a.pod(&ObjectKey::new("default", "web-2"))
            .expect("pod")
            .node_name
            .is_none()
    );
}

#[test]
fn bind_to_a_picked_node_warns_when_it_does_not_fit() {
    let mut a = app();
    run(&mut a, [Action::Down, Action::Down, Action::Open, Action::Open]); // batch-1 → node-b
    run(&mut a, [Action::RequestBind]);
    let Mode::Confirm(Pending::Bind { node, warning, .. }) = a.mode.clone() else {
        panic!("confirmation expected")
    };
    assert_eq!(node, "node-b");
    assert_eq!(
        warning.as_deref(),
        Some("the scheduler would not choose node-b: NodeResourcesFit: Insufficient cpu")
    );
}

#[test]
fn unschedulable_pod_cannot_be_bound_without_picking() {
    let mut a = app();
    run(&mut a, [Action::Down, Action::Down, Action::RequestBind]);
    assert_eq!(a.mode, Mode::Normal);
    let st = a.status.clone().expect("status");
    assert_eq!(st.kind, StatusKind::Error);
    assert_eq!(
        st.text,
        "no node fits default/batch-1; to bind anyway, open a node (Enter on a Filter row) and press b there"
    );
}

#[test]
fn readonly_refuses_actions() {
    let mut a = app();
    a.readonly = true;
    run(&mut a, [Action::RequestBind]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(
        a.status.clone().expect("status").text,
        "read-only mode (--readonly): binding is disabled"
    );
    run(&mut a, [Action::RequestPreempt]);
    assert_eq!(
        a.status.clone().expect("status").text,
        "read-only mode (--readonly): preemption is disabled"
    );
}

#[test]
fn preempt_needs_a_postfilter_result_then_evicts_in_memory() {
    let mut a = app();
    let k = ObjectKey::new("default", "batch-1");
    run(&mut a, [Action::Down, Action::Down, Action::RequestPreempt]);
    assert_eq!(a.mode, Mode::Normal);
    // with a PostFilter result (as DefaultPreemption reports it), x asks and then evicts
    let mut ex = (**a.explanations[&k].as_ref().expect("explained")).clone();
    ex.post_filter = Some(crate::engine::framework::trace::PostFilterTrace {
        plugin: "DefaultPreemption".into(),
        nominated_node: Some("node-a".into()),
        victims: vec![ObjectKey::new("default", "api-1")],
        ..Default::default()
    });
    a.summaries.insert(k.clone(), Ok(Summary::of(&ex)));
    a.explanations.insert(k.clone(), Ok(Arc::new(ex)));
    run(&mut a, [Action::RequestPreempt]);
    let Mode::Confirm(p) = a.mode.clone() else {
        panic!("confirmation expected")
    };
    let lines = a.confirm_writes(&p);
    let heads: Vec<String> = lines
        .iter()
        .map(|l| l.splitn(4, ' ').take(3).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        heads,
        [
            "1. PATCH /api/v1/namespaces/default/pods/api-1/status",
            "2. DELETE /api/v1/namespaces/default/pods/api-1",
            "3. PATCH /api/v1/namespaces/default/pods/batch-1/status",
        ]
    );
    assert!(lines[0].contains(r#""reason":"PreemptionByScheduler""#), "{lines:?}");
    assert!(
        lines[2].ends_with(r#"{"status":{"nominatedNodeName":"node-a"}}"#),
        "{lines:?}"
    );
    run(&mut a, [Action::Confirm]);
    assert!(a.pod(&ObjectKey::new("default", "api-1")).is_none());
    assert_eq!(a.pod(&k).expect("pod").nominated_node_name(), Some("node-a"));
    // batch-1 now fits on its nominated node
    let ex = a.explanations[&k].as_ref().expect("explained");
    assert_eq!(ex.selected, vec!["node-a".to_string()]);
}

#[test]
fn inline_edit_reruns_and_shows_the_diff() {
    let mut a = app();
    run(&mut a, [Action::Down, Action::Down, Action::Open, Action::EditInline]);
    let Mode::Edit(form) = &a.mode else {
        panic!("form expected")
    };
    let tol = form
        .fields
        .iter()
        .position(|f| f.kind == whatif::FieldKind::Tolerations)
        .expect("field");
    for _ in 0..tol {
        run(&mut a, [Action::FieldNext]);
    }
    run(&mut a, typed("dedicated=gpu:NoSchedule"));
    run(&mut a, [Action::Submit]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(a.generation, 2);
    let d = a.diff.clone().expect("diff");
    assert_eq!(
        d.change,
        "edited pod default/batch-1: tolerations: dedicated=gpu:NoSchedule"
    );
    assert_eq!(d.after, "Schedulable: would bind to node-c");
    assert!(pod_view(&a).show_diff);
    run(&mut a, [Action::ToggleDiff]);
    assert!(!pod_view(&a).show_diff);
}

#[test]
fn inline_edit_error_keeps_the_form() {
    let mut a = app();
    run(
        &mut a,
        [Action::Down, Action::Down, Action::EditInline, Action::ClearInput],
    );
    run(&mut a, typed("cpu=lots"));
    run(&mut a, [Action::Submit]);
    let Mode::Edit(form) = &a.mode else {
        panic!("form expected")
    };
    assert!(
        form.error
            .clone()
            .expect("error")
            .starts_with("requests (job): 'cpu=lots'")
    );
    run(&mut a, [Action::Cancel]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(a.generation, 1);
}

#[test]
fn external_edit_round_trip() {
    let mut a = app();
    let fx = update_sync(&mut a, Action::EditExternal);
    let [Effect::OpenEditor { target, text }] = fx.as_slice() else {
        panic!("editor effect expected")
    };
    assert_eq!(target, &whatif::EditTarget::Pod(ObjectKey::new("default", "web-2")));
    let edited = text.replace("cpu: 500m", "cpu: '3'");
    run(
        &mut a,
        [Action::Edited {
            target: target.clone(),
            result: Ok(edited),
        }],
    );
    assert_eq!(a.generation, 2);
    let ex = a.explanations[&ObjectKey::new("default", "web-2")]
        .as_ref()
        .expect("explained");
    assert!(!ex.schedulable());
    run(
        &mut a,
        [Action::Edited {
            target: target.clone(),
            result: Err("editor exited with status 1".into()),
        }],
    );
    assert_eq!(a.status.clone().expect("status").text, "editor exited with status 1");
}

/// An edit in $EDITOR the API server would refuse: the status says so in its words (and that the
/// editor opens again with the error, as for a YAML mistake), nothing
/// is explained again and `:w` has nothing new to save.
#[test]
fn an_external_edit_the_api_server_would_refuse_changes_nothing() {
    let mut a = app();
    let fx = update_sync(&mut a, Action::EditExternal);
    let [Effect::OpenEditor { target, text }] = fx.as_slice() else {
        panic!("editor effect expected")
    };
    let generation = a.generation;
    let edited = text.replace("containers:", "containers: []\n  initContainers:");
    run(
        &mut a,
        [Action::Edited {
            target: target.clone(),
            result: Ok(edited),
        }],
    );
    assert_eq!(a.generation, generation);
    assert_eq!(
        a.status.clone().expect("status").text,
        "pod default/web-2: the API server would refuse it: spec.containers: Required value: the editor opens again with the error"
    );
    assert_eq!(
        a.cluster
            .pod(&ObjectKey::new("default", "web-2"))
            .expect("pod")
            .obj
            .spec
            .as_ref()
            .expect("spec")
            .containers
            .len(),
        1
    );
}

#[test]
fn cordon_from_the_node_view() {
    let mut a = app();
    run(&mut a, [Action::Open, Action::Open]); // web-2 at Score → node-b
    assert!(matches!(a.screen(), Some(Screen::Node(v)) if v.node == "node-b"));
    run(&mut a, [Action::ToggleCordon]);
    assert!(a.cluster.node("node-b").expect("node").unschedulable);
    let ex = a.explanations[&ObjectKey::new("default", "web-2")]
        .as_ref()
        .expect("explained");
    assert_eq!(ex.selected, vec!["node-a".to_string()]);
    let d = a.diff.clone().expect("diff");
    assert_eq!(d.lines[0].text, "selected: node-b → node-a");
}

#[test]
fn stale_explanations_are_dropped() {
    let mut a = app();
    let k = ObjectKey::new("default", "web-2");
    a.explanations.clear();
    update(
        &mut a,
        Action::Explained {
            generation: 0,
            pod: k.clone(),
            result: Err("old".into()),
        },
    );
    assert!(a.explanations.is_empty());
    update(
        &mut a,
        Action::Explained {
            generation: 1,
            pod: k.clone(),
            result: Err("new".into()),
        },
    );
    assert_eq!(a.explanations[&k], Err("new".to_string()));
}

#[test]
fn focused_pod_is_explained_first_after_a_change() {
    let mut a = app();
    run(&mut a, [Action::Down, Action::Down, Action::Down, Action::Open]); // gated-1
    let (c, _) = whatif::toggle_cordon(&a.cluster, "node-a").expect("cordon");
    let fx = update::tests_support::set_cluster(&mut a, c);
    let [Effect::Explain(job)] = fx.as_slice() else {
        panic!("explain effect expected")
    };
    assert_eq!(job.pods[0], ObjectKey::new("default", "gated-1"));
    assert_eq!(job.generation, 2);
}

#[test]
fn help_overlay_and_nodes_command() {
    let mut a = app();
    run(&mut a, [Action::Help]);
    assert_eq!(a.mode, Mode::Help { scroll: 0 });
    run(&mut a, [Action::Down, Action::Down]);
    assert_eq!(a.mode, Mode::Help { scroll: 2 });
    run(&mut a, [Action::Cancel, Action::CommandStart]);
    run(&mut a, typed("nodes"));
    run(&mut a, [Action::Submit]);
    assert!(matches!(a.screen(), Some(Screen::Nodes(_))));
    run(&mut a, [Action::Bottom, Action::Open]);
    assert!(matches!(a.screen(), Some(Screen::Node(v)) if v.node == "node-d"));
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("q"));
    run(&mut a, [Action::Submit]);
    assert!(a.should_quit);
}

#[test]
fn mouse_click_selects_then_opens() {
    let mut a = app();
    run(&mut a, [Action::ClickRow(2)]);
    assert_eq!(a.pods.selected, 2);
    assert!(a.screen().is_none());
    run(&mut a, [Action::ClickRow(2)]);
    assert_eq!(pod_view(&a).pod, ObjectKey::new("default", "batch-1"));
    run(&mut a, [Action::ClickPoint(2)]);
    assert_eq!(pod_view(&a).step, Some(Step::at(Point::PreFilter)));
    run(&mut a, [Action::Back, Action::ScrollDown, Action::ScrollDown]);
    assert_eq!(a.pods.selected, 5);
}

#[test]
fn quit_from_the_pod_list() {
    let mut a = app();
    run(&mut a, [Action::Cancel]);
    assert!(!a.should_quit);
    run(&mut a, [Action::Back]);
    assert!(a.should_quit);
}

#[test]
fn quitting_with_unsaved_changes_asks_and_q_bang_does_not() {
    let mut a = app();
    run(&mut a, [Action::RequestBind, Action::Confirm]);
    assert_eq!(a.unsaved(), ["bound default/web-2 to node-b".to_string()]);
    // q at the pod list asks; n (Cancel) stays and says why
    run(&mut a, [Action::Back]);
    assert_eq!(a.mode, Mode::ConfirmQuit);
    assert!(!a.should_quit);
    run(&mut a, [Action::Cancel]);
    assert_eq!(a.mode, Mode::Normal);
    assert!(!a.should_quit);
    assert_eq!(
        a.status.clone().expect("status").text,
        "not quitting; 1 in-memory change(s) unsaved (:w FILE saves them)"
    );
    // another key keeps the question; y quits
    run(&mut a, [Action::Back, Action::Down]);
    assert_eq!(a.mode, Mode::ConfirmQuit);
    run(&mut a, [Action::Confirm]);
    assert!(a.should_quit);
    // :q asks as q does, :q! quits at once
    for (cmd, quits) in [("q", false), ("quit", false), ("q!", true), ("quit!", true)] {
        let mut a = app();
        run(&mut a, [Action::RequestBind, Action::Confirm, Action::CommandStart]);
        run(&mut a, typed(cmd));
        run(&mut a, [Action::Submit]);
        assert_eq!(a.should_quit, quits, ":{cmd}");
        assert_eq!(a.mode == Mode::ConfirmQuit, !quits, ":{cmd}");
    }
    // once :w holds every change, q quits; a later change asks again
    let mut a = app();
    run(&mut a, [Action::RequestBind, Action::Confirm]);
    a.saved = Some(("copy.yaml".into(), 1));
    assert!(a.unsaved().is_empty());
    run(&mut a, [Action::Back]);
    assert!(a.should_quit);
    a.should_quit = false;
    a.changes.push("cordoned node-a".into());
    assert_eq!(a.unsaved(), ["cordoned node-a".to_string()]);
    run(&mut a, [Action::Back]);
    assert_eq!(a.mode, Mode::ConfirmQuit);
}

#[test]
fn messages_are_kept_newest_last_and_bounded() {
    let mut a = app();
    run(&mut a, [Action::RequestBind, Action::Cancel]);
    a.error("something failed");
    let texts: Vec<(StatusKind, &str)> = a.messages.iter().map(|m| (m.kind, m.text.as_str())).collect();
    assert_eq!(
        texts,
        [
            (StatusKind::Info, "cancelled; nothing changed"),
            (StatusKind::Error, "something failed")
        ]
    );
    assert_eq!(a.messages[0].at, a.now);
    for i in 0..crate::app::MESSAGES_KEEP + 5 {
        a.info(format!("m{i}"));
    }
    assert_eq!(a.messages.len(), crate::app::MESSAGES_KEEP);
    assert_eq!(a.messages_dropped, 7);
    assert_eq!(a.messages.back().map(|m| m.text.as_str()), Some("m1004"));
    // :messages opens the screen; j moves through it
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("msg"));
    run(&mut a, [Action::Submit, Action::Down]);
    assert!(matches!(a.screen(), Some(Screen::Messages(v)) if v.selected == 1));
}

#[test]
fn load_warnings_are_all_kept_and_the_status_line_names_the_first() {
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Snapshot,
            name: "w.yaml".into(),
        },
        false,
    );
    let mut c = crate::source::file::load_str("tui-test.yaml", FIXTURE).expect("fixture");
    c.warnings = vec!["first warning".into(), "second warning".into()];
    crate::app::load_sync(&mut a, c);
    let kept: Vec<&str> = a
        .messages
        .iter()
        .filter(|m| m.kind == StatusKind::Warning)
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(kept, ["first warning", "second warning"]);
    assert_eq!(
        a.status.clone().expect("status").text,
        "2 warnings (:messages lists them); the first: first warning"
    );
}

#[test]
fn events_command_takes_all_or_nothing() {
    let mut a = app();
    run(&mut a, [Action::Open, Action::CommandStart]);
    run(&mut a, typed("events"));
    run(&mut a, [Action::Submit]);
    let pod = a.screens.first().and_then(|s| match s {
        Screen::Pod(v) => Some(v.pod.clone()),
        _ => None,
    });
    assert!(matches!(a.screen(), Some(Screen::Events(v)) if v.pod == pod && pod.is_some()));
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("events all"));
    run(&mut a, [Action::Submit]);
    assert!(matches!(a.screen(), Some(Screen::Events(v)) if v.pod.is_none()));
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("events x"));
    run(&mut a, [Action::Submit]);
    assert_eq!(
        a.status.clone().expect("status").text,
        ":events takes no argument or 'all', not 'x'"
    );
}

#[test]
fn c_copies_what_is_selected() {
    let copied = |fx: Vec<Effect>| match fx.as_slice() {
        [Effect::Copy(t)] => t.clone(),
        other => panic!("{} effect(s)", other.len()),
    };
    let mut a = app();
    let first = a.focused_pod().expect("a pod");
    assert_eq!(copied(update_sync(&mut a, Action::Copy)), first.to_string());
    assert!(
        a.status
            .clone()
            .expect("status")
            .text
            .starts_with(&format!("copied '{first}' to the clipboard"))
    );
    // the pod view: the verdict as shown
    run(&mut a, [Action::Open]);
    let verdict = match a.explanation(&first) {
        Some(Ok(ex)) => ex.verdict(),
        _ => panic!("explained"),
    };
    assert_eq!(copied(update_sync(&mut a, Action::Copy)), verdict);
    // the node list: the node's name
    a.screens.clear();
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("nodes"));
    run(&mut a, [Action::Submit, Action::Down]);
    let Some(Screen::Nodes(v)) = a.screen() else {
        panic!("node list")
    };
    let node = a.node_rows(v).node(&a, 1).map(|n| n.name.clone()).expect("node");
    assert_eq!(copied(update_sync(&mut a, Action::Copy)), node);
    // no message yet on a fresh messages screen: nothing to copy
    let mut b = app();
    b.messages.clear();
    b.screens.push(Screen::Messages(MessagesView::default()));
    assert!(update_sync(&mut b, Action::Copy).is_empty());
    assert_eq!(b.status.clone().expect("status").text, "nothing to copy here");
}

#[test]
fn y_shows_the_yaml_of_the_selected_pod_or_node() {
    let mut a = app();
    let pod = a.focused_pod().expect("a pod");
    run(&mut a, [Action::ShowYaml]);
    let Some(Screen::Text(v)) = a.screen() else {
        panic!("text screen")
    };
    assert_eq!(v.title, format!("pod {pod} · YAML"));
    assert_eq!(v.lines[0], "apiVersion: v1");
    assert!(v.lines.contains(&"kind: Pod".to_string()), "{:?}", v.lines);
    assert!(v.lines.contains(&format!("  name: {}", pod.name)), "{:?}", v.lines);
    let n = v.lines.len();
    // j scrolls, G goes to the last line, c copies the whole text
    run(&mut a, [Action::Down, Action::Down]);
    assert!(matches!(a.screen(), Some(Screen::Text(v)) if v.scroll == 2));
    run(&mut a, [Action::Bottom]);
    assert!(matches!(a.screen(), Some(Screen::Text(v)) if v.scroll == n - 1));
    match update_sync(&mut a, Action::Copy).as_slice() {
        [Effect::Copy(t)] => assert!(t.starts_with("apiVersion: v1\n") && t.lines().count() == n),
        other => panic!("{} effect(s)", other.len()),
    }
    // q goes back; a node's YAML from the node list
    run(&mut a, [Action::Back, Action::CommandStart]);
    run(&mut a, typed("nodes"));
    run(&mut a, [Action::Submit, Action::ShowYaml]);
    let Some(Screen::Text(v)) = a.screen() else {
        panic!("text screen")
    };
    assert!(
        v.title.starts_with("node ") && v.lines.contains(&"kind: Node".to_string()),
        "{v:?}"
    );
}

#[test]
fn d_describes_the_pod_and_the_node_as_kubectl_does() {
    let mut a = app();
    update_sync(&mut a, Action::Tick { now: 1_714_557_600 });
    run(&mut a, [Action::SearchStart]);
    run(&mut a, typed("batch"));
    run(&mut a, [Action::Submit, Action::Describe]);
    let Some(Screen::Text(v)) = a.screen() else {
        panic!("text screen")
    };
    assert_eq!(v.title, "pod default/batch-1 · describe");
    let text = v.lines.join("\n");
    for want in [
        "Name:         batch-1\nNamespace:    default\nPriority:     0\nNode:         <none>",
        "Labels:       app=batch\nAnnotations:  <none>\nStatus:       Pending",
        // one run of tab-aligned lines from cpu: to Events: (as kubectl's wide gaps)
        "Containers:\n  job:\n    Image:  batch:1.0\n    Requests:\n      cpu:       1500m\n      memory:    1Gi\nQoS Class:       Burstable",
        "Tolerations:     <none>\nEvents:          <none>",
    ] {
        assert!(text.contains(want), "{want:?} in\n{text}");
    }
    // the node view: the node's taints, allocatable and pods
    run(&mut a, [Action::Back, Action::CommandStart]);
    run(&mut a, typed("nodes"));
    run(&mut a, [Action::Submit, Action::Describe]);
    let Some(Screen::Text(v)) = a.screen() else {
        panic!("text screen")
    };
    let text = v.lines.join("\n");
    assert!(v.title.starts_with("node node-"), "{}", v.title);
    for want in [
        "Roles:",
        "Taints:",
        "Unschedulable:",
        "Non-terminated Pods:",
        "Allocated resources:",
    ] {
        assert!(text.contains(want), "{want:?} in\n{text}");
    }
}

/// The start time is read from the pod's object (the model keeps no copy of it).
#[test]
fn describe_gives_a_bound_pods_start_time_from_its_object() {
    let yaml = r#"
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: shop}
spec: {nodeName: n1, containers: [{name: web, image: nginx}]}
status: {phase: Running, startTime: "2026-11-28T09:00:00Z"}
---
apiVersion: v1
kind: Pod
metadata: {name: web-2, namespace: shop}
spec: {containers: [{name: web, image: nginx}]}
"#;
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Snapshot,
            name: "t.yaml".into(),
        },
        false,
    );
    load_sync(&mut a, crate::source::file::load_str("t.yaml", yaml).expect("snapshot"));
    let bound = super::describe::pod(&a, &ObjectKey::new("shop", "web-1")).expect("pod");
    let start: Vec<&String> = bound.iter().filter(|l| l.starts_with("Start Time:")).collect();
    assert_eq!(start, ["Start Time:   2026-11-28T09:00:00Z"], "{bound:?}");
    let pending = super::describe::pod(&a, &ObjectKey::new("shop", "web-2")).expect("pod");
    assert!(!pending.iter().any(|l| l.starts_with("Start Time:")), "{pending:?}");
}

#[test]
fn ctx_switches_only_to_a_known_context_with_nothing_unsaved() {
    let mut a = app();
    update_sync(
        &mut a,
        Action::Contexts(Contexts {
            current: "prod".into(),
            all: vec!["dev".into(), "prod".into()],
        }),
    );
    command_line(&mut a, "ctx");
    assert_eq!(
        a.status.clone().expect("status").text,
        "contexts: dev, *prod (:ctx NAME attaches to another)"
    );
    command_line(&mut a, "ctx prod");
    assert_eq!(
        a.status.clone().expect("status").text,
        "already attached to context 'prod'"
    );
    command_line(&mut a, "context staging");
    assert_eq!(
        a.status.clone().expect("status").text,
        "no context 'staging' in the kubeconfig (contexts: dev, *prod)"
    );
    assert!(!a.should_quit && a.switch_context.is_none());
    // an unsaved in-memory change: refused, nothing lost
    a.changes.push("cordoned node node-a".into());
    command_line(&mut a, "ctx dev");
    assert_eq!(
        a.status.clone().expect("status").text,
        "1 in-memory change(s) unsaved: :w FILE saves them before attaching to context 'dev'"
    );
    assert!(!a.should_quit);
    a.saved = Some(("x.yaml".into(), 1));
    command_line(&mut a, "ctx dev");
    assert!(a.should_quit);
    assert_eq!(a.switch_context.as_deref(), Some("dev"));
}

#[test]
fn what_if_keeps_the_step_unless_the_new_trace_never_reaches_it() {
    let mut a = app();
    run(&mut a, [Action::Open]); // web-2 at Score
    assert_eq!(pod_view(&a).step, Some(Step::at(Point::Score)));
    let t = whatif::EditTarget::Pod(ObjectKey::new("default", "web-2"));
    let y = whatif::to_yaml(&a.cluster, &t)
        .expect("yaml")
        .replace("cpu: 500m", "cpu: 600m");
    run(
        &mut a,
        [Action::Edited {
            target: t.clone(),
            result: Ok(y),
        }],
    );
    assert_eq!(
        pod_view(&a).step,
        Some(Step::at(Point::Score)),
        "Score is still reached"
    );
    let y = whatif::to_yaml(&a.cluster, &t)
        .expect("yaml")
        .replace("cpu: 600m", "cpu: '3'");
    run(
        &mut a,
        [Action::Edited {
            target: t,
            result: Ok(y),
        }],
    );
    assert_eq!(
        pod_view(&a).step,
        Some(Step::at(Point::Filter)),
        "no node fits any more"
    );
}

#[test]
fn a_message_stays_until_the_next_key() {
    let mut a = app();
    run(&mut a, [Action::Down, Action::Down, Action::RequestBind]);
    assert!(a.status.is_some());
    update(&mut a, Action::Tick { now: 1 });
    assert!(a.status.is_some(), "time passing keeps it");
    run(&mut a, [Action::Up]);
    assert!(a.status.is_none());
}

#[test]
fn big_clusters_keep_fewer_full_explanations() {
    assert_eq!(crate::app::full_keep(1), FULL_KEEP);
    assert_eq!(crate::app::full_keep(1250), FULL_KEEP);
    assert_eq!(crate::app::full_keep(2000), 20);
    assert_eq!(crate::app::full_keep(5000), 8);
    assert_eq!(crate::app::full_keep(65_000), 4);
}

#[test]
fn full_explanations_are_bounded_and_come_back_when_opened() {
    let mut text = String::from(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n  status: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n",
    );
    for i in 0..(FULL_KEEP + 8) {
        text.push_str(&format!(
            "- apiVersion: v1\n  kind: Pod\n  metadata: {{name: p{i:02}, namespace: default}}\n  spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 2}}}}}}]}}\n"
        ));
    }
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Snapshot,
            name: "many".into(),
        },
        false,
    );
    load_sync(
        &mut a,
        crate::source::file::load_str("many.yaml", &text).expect("fixture"),
    );
    assert_eq!(a.summaries.len(), FULL_KEEP + 8);
    assert_eq!(a.explanations.len(), FULL_KEEP);
    assert_eq!(a.explaining(), 0);
    // the oldest were dropped; the list still has every reason
    let first = ObjectKey::new("default", "p00");
    assert!(a.explanation(&first).is_none());
    assert_eq!(
        pod_list::status_line(&a, a.pod(&first).expect("pod")),
        "1× Insufficient cpu"
    );
    assert_eq!(
        a.summary(&first).expect("kept").as_ref().expect("ok").upstream,
        // 1.37 (the default): asking for more than the node's allocatable is unresolvable, and
        // DynamicResources' PostFilter no longer speaks before DefaultPreemption.
        "0/1 nodes: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling"
    );
    // opening it explains it again, and it stays while on screen
    run(&mut a, [Action::Open]);
    assert_eq!(pod_view(&a).pod, first);
    assert!(matches!(a.explanation(&first), Some(Ok(_))));
    assert_eq!(pod_view(&a).step, Some(Step::at(Point::Filter)));
}

// ---- live cluster: watch events, ticks, writes sent as effects ----

fn live_app(mode: crate::model::write::WriteMode) -> App {
    let state = crate::source::fixture::FixtureSource::from_str("tui-test.yaml", FIXTURE)
        .expect("fixture")
        .state();
    live_app_with(state, mode)
}

/// The app attached to `state` as a live cluster.
fn live_app_with(state: crate::model::event::ClusterState, mode: crate::model::write::WriteMode) -> App {
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Live,
            name: "context 'mock' (http://127.0.0.1:1)".into(),
        },
        false,
    );
    let profiles = crate::engine::build_profiles(None, &*a.features).expect("profiles");
    let features = a.features.clone();
    update_sync(
        &mut a,
        Action::Attached(Box::new(Ok(Attached {
            state,
            profiles,
            features,
            write_mode: mode,
        }))),
    );
    a
}

#[test]
fn attaching_loads_the_live_state_and_explains_it() {
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Live,
            name: "mock".into(),
        },
        false,
    );
    let progress = |kind: &str, items, pages, done| crate::app::ListProgress {
        kind: kind.into(),
        items,
        pages,
        done,
    };
    update(&mut a, Action::LoadProgress(progress("nodes", 3, 1, true)));
    update(&mut a, Action::LoadProgress(progress("pods", 500, 1, false)));
    update(&mut a, Action::LoadProgress(progress("pods", 1000, 2, false)));
    // one line per kind, in the order listed, the newest count of each
    assert_eq!(
        a.progress,
        vec![progress("nodes", 3, 1, true), progress("pods", 1000, 2, false)]
    );
    let a = live_app(crate::model::write::WriteMode::Enabled);
    assert_eq!(a.load, Load::Ready);
    assert!(a.progress.is_empty());
    assert_eq!(a.queued, 4);
    assert_eq!(a.explanations.len(), 4);
    assert!(!a.readonly);
    assert!(live_app(crate::model::write::WriteMode::ReadOnly).readonly);
}

#[test]
fn watch_events_mark_dirty_and_the_next_tick_rebuilds_once() {
    let mut a = live_app(crate::model::write::WriteMode::Enabled);
    let web2 = ObjectKey::new("default", "web-2");
    let crate::model::Object::Pod(mut pod) = a
        .live
        .as_ref()
        .expect("live")
        .state
        .get(crate::model::event::Kind::Pod, &web2)
        .expect("web-2")
        .into_owned()
    else {
        panic!("a pod")
    };
    // the scheduler bound web-2 to node-b
    pod.spec.as_mut().expect("spec").node_name = Some("node-b".into());
    let effects = update(
        &mut a,
        Action::Cluster(Box::new(crate::model::event::ClusterEvent::Applied(Box::new(
            crate::model::Object::Pod(pod).into(),
        )))),
    );
    assert!(effects.is_empty(), "nothing runs before the tick");
    assert!(a.live.as_ref().expect("live").dirty);
    assert_eq!(a.generation, 1);
    assert!(
        a.pod(&web2).expect("pod").node_name.is_none(),
        "the view is the old one until the tick"
    );
    let effects = update(&mut a, Action::Tick { now: 100 });
    assert_eq!(a.generation, 2);
    assert!(!a.live.as_ref().expect("live").dirty);
    assert_eq!(a.pod(&web2).expect("pod").node_name.as_deref(), Some("node-b"));
    let Some(Effect::Explain(job)) = effects.first() else {
        panic!("the tick re-explains")
    };
    assert_eq!(job.generation, 2);
    assert_eq!(job.pods.len(), 3, "web-2 is no longer pending");
    assert!(!job.pods.contains(&web2));
    assert!(
        a.explanation(&web2).is_none(),
        "explanations of pods no longer pending are dropped"
    );
    assert!(
        update(&mut a, Action::Tick { now: 101 }).is_empty(),
        "a tick without events does nothing"
    );
}

#[test]
fn a_failed_scheduling_event_refreshes_the_cluster_without_explaining_again() {
    use crate::model::event::ClusterEvent;
    let mut a = live_app(crate::model::write::WriteMode::Enabled);
    let batch1 = ObjectKey::new("default", "batch-1");
    let event = k8s_openapi::api::core::v1::Event {
        metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            name: Some("batch-1.1".into()),
            namespace: Some("default".into()),
            resource_version: Some("2001".into()),
            ..Default::default()
        },
        involved_object: k8s_openapi::api::core::v1::ObjectReference {
            kind: Some("Pod".into()),
            namespace: Some("default".into()),
            name: Some("batch-1".into()),
            ..Default::default()
        },
        reason: Some("FailedScheduling".into()),
        message: Some("0/4 nodes are available: 4 Insufficient cpu.".into()),
        ..Default::default()
    };
    let effects = update(
        &mut a,
        Action::Cluster(Box::new(ClusterEvent::Applied(Box::new(
            crate::model::Object::Event(Box::new(event)).into(),
        )))),
    );
    assert!(effects.is_empty());
    let l = a.live.as_ref().expect("live");
    assert!(l.events_dirty && !l.dirty);
    let generation = a.generation;
    assert!(
        update(&mut a, Action::Tick { now: 100 }).is_empty(),
        "nothing is explained again"
    );
    assert_eq!(a.generation, generation);
    assert!(!a.live.as_ref().expect("live").events_dirty);
    let msgs: Vec<&str> = a.cluster.scheduling_events[&batch1]
        .iter()
        .map(|e| e.message.as_str())
        .collect();
    assert_eq!(msgs, ["0/4 nodes are available: 4 Insufficient cpu."]);
}

#[test]
fn a_broken_watch_shows_the_view_stale_until_it_resumes() {
    use crate::model::event::{ClusterEvent, Kind};
    let mut a = live_app(crate::model::write::WriteMode::Enabled);
    update(
        &mut a,
        Action::Cluster(Box::new(ClusterEvent::Stale {
            kind: Kind::Pod,
            reason: "connection reset".into(),
        })),
    );
    assert_eq!(
        a.stale_kinds(),
        vec![("Pod".to_string(), "connection reset".to_string())]
    );
    assert!(
        update(&mut a, Action::Tick { now: 1 }).is_empty(),
        "staleness alone re-runs nothing"
    );
    update(
        &mut a,
        Action::Cluster(Box::new(ClusterEvent::Resumed {
            kind: Kind::Pod,
            resource_version: "2000".into(),
        })),
    );
    assert!(a.stale_kinds().is_empty());
}

#[test]
fn live_bind_lists_the_request_and_sends_it_as_an_effect() {
    let mut a = live_app(crate::model::write::WriteMode::Enabled);
    run(&mut a, [Action::RequestBind]);
    let Mode::Confirm(p) = a.mode.clone() else {
        panic!("confirmation expected")
    };
    let lines = a.confirm_writes(&p);
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].starts_with("1. POST /api/v1/namespaces/default/pods/web-2/binding {"),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].contains(r#""target":{"kind":"Node","name":"node-b"}"#),
        "{}",
        lines[0]
    );
    let effects = update(&mut a, Action::Confirm);
    let [Effect::Write(plan)] = effects.as_slice() else {
        panic!("one write effect expected")
    };
    assert_eq!(
        plan.requests,
        vec![crate::model::write::WriteRequest::Bind {
            pod: ObjectKey::new("default", "web-2"),
            uid: None,
            node: "node-b".into(),
        }]
    );
    // nothing changes in memory: the cluster's answer comes back through the watch
    assert!(
        a.pod(&ObjectKey::new("default", "web-2"))
            .expect("pod")
            .node_name
            .is_none()
    );
    assert_eq!(a.generation, 1);
    assert!(a.changes.is_empty());
    // one write at a time
    run(&mut a, [Action::RequestBind]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(
        a.status.clone().expect("status").text,
        "a write is still being sent; wait for its result"
    );
    let report = crate::model::write::Report {
        plan: plan.clone(),
        steps: vec![crate::model::write::Step::Done(crate::model::write::Outcome::Done {
            code: 201,
        })],
    };
    update(&mut a, Action::Written(Box::new(Ok(report))));
    let st = a.status.clone().expect("status");
    assert_eq!(st.kind, StatusKind::Info);
    assert_eq!(st.text, "done: bind default/web-2 to node 'node-b'");
    assert!(!a.live.as_ref().expect("live").writing);
}

#[test]
fn live_write_errors_and_partial_preemption_are_reported() {
    use crate::model::write::{Outcome, Plan, Report, Step as W, WriteError, WriteRequest};
    let mut a = live_app(crate::model::write::WriteMode::Enabled);
    let (pod, v1, v2) = (
        ObjectKey::new("default", "batch-1"),
        ObjectKey::new("default", "api-1"),
        ObjectKey::new("data", "db-0"),
    );
    // 409 on a binding
    let bind = Plan {
        action: "bind default/batch-1 to node 'node-a'".into(),
        requests: vec![WriteRequest::Bind {
            pod: pod.clone(),
            uid: None,
            node: "node-a".into(),
        }],
        victims: vec![],
    };
    let conflict = WriteError::AlreadyBound {
        pod: pod.clone(),
        node: "node-c".into(),
    };
    update(
        &mut a,
        Action::Written(Box::new(Ok(Report {
            plan: bind,
            steps: vec![W::Failed(conflict)],
        }))),
    );
    let st = a.status.clone().expect("status");
    assert_eq!(st.kind, StatusKind::Error);
    assert_eq!(
        st.text,
        "pod default/batch-1 is already bound to node 'node-c' (409 Conflict); nothing to do"
    );
    // a refused permission check: nothing was sent
    update(
        &mut a,
        Action::Written(Box::new(Err(
            "not allowed to create pods/binding in namespace 'default' (403 Forbidden); ask a cluster admin for this permission; nothing was sent".into(),
        ))),
    );
    assert!(a.status.clone().expect("status").text.ends_with("nothing was sent"));
    // the second victim's eviction is refused by a PDB: the first went, the node is not nominated
    let plan = Plan {
        action: "preempt for default/batch-1 on node 'node-a': evict 2 victim(s), then nominate the node".into(),
        requests: vec![
            WriteRequest::Evict {
                pod: v1.clone(),
                uid: None,
            },
            WriteRequest::Evict {
                pod: v2.clone(),
                uid: None,
            },
            WriteRequest::Nominate {
                pod: pod.clone(),
                node: Some("node-a".into()),
            },
        ],
        victims: vec![v1, v2.clone()],
    };
    update(
        &mut a,
        Action::Written(Box::new(Ok(Report {
            plan,
            steps: vec![
                W::Done(Outcome::Done { code: 201 }),
                W::Failed(WriteError::PdbBlocked {
                    pod: v2,
                    pdb: Some("db-pdb".into()),
                    message: String::new(),
                }),
                W::NotSent,
            ],
        }))),
    );
    let st = a.status.clone().expect("status");
    assert_eq!(st.kind, StatusKind::Error);
    assert_eq!(
        st.text,
        "preemption incomplete: removed 1 of 2 victim(s) (default/api-1); not removed: data/db-0; the node was not nominated: eviction of data/db-0 refused (429): PodDisruptionBudget 'db-pdb' does not allow it; wait for it to allow a disruption or preempt without --evict"
    );
}

#[test]
fn live_confirmation_in_dry_run_mode_sends_dry_runs() {
    let mut a = live_app(crate::model::write::WriteMode::DryRun);
    run(&mut a, [Action::RequestBind]);
    let Mode::Confirm(p) = a.mode.clone() else {
        panic!("confirmation expected")
    };
    assert!(
        a.confirm_writes(&p)[0].starts_with("1. POST /api/v1/namespaces/default/pods/web-2/binding?dryRun=All "),
        "{:?}",
        a.confirm_writes(&p)
    );
}

#[test]
fn profile_command_explains_every_pod_with_the_named_profile_and_auto_undoes_it() {
    let mut a = app();
    let etl = ObjectKey::new("data", "etl-1");
    let waiting = |a: &App| a.summary(&etl).expect("summary").as_ref().expect("ok").waiting;
    assert!(waiting(&a), "custom-scheduler has no profile");
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("profile"));
    run(&mut a, [Action::Submit]);
    assert_eq!(
        a.status.clone().expect("status").text,
        "profile: auto (each pod's schedulerName); profiles: default-scheduler, scheduler-plugins-scheduler"
    );
    let g = a.generation;
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("profile default-scheduler"));
    run(&mut a, [Action::Submit]);
    assert_eq!(a.profile_override.as_deref(), Some("default-scheduler"));
    assert_eq!(a.generation, g + 1);
    assert!(!waiting(&a), "explained with default-scheduler now");
    let Some(Ok(ex)) = a.explanation(&etl) else {
        panic!("explained")
    };
    assert_eq!(ex.profile, "default-scheduler");
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("profile nope"));
    run(&mut a, [Action::Submit]);
    let st = a.status.clone().expect("status");
    assert_eq!(st.kind, StatusKind::Error);
    assert_eq!(
        st.text,
        "no scheduler profile named 'nope' (profiles: default-scheduler, scheduler-plugins-scheduler; :profile auto uses each pod's schedulerName)"
    );
    assert_eq!(a.profile_override.as_deref(), Some("default-scheduler"));
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("profile auto"));
    run(&mut a, [Action::Submit]);
    assert_eq!(a.profile_override, None);
    assert!(waiting(&a));
}

#[test]
fn write_command_asks_the_runtime_to_save_and_reports_the_answer() {
    let mut a = app();
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("w"));
    run(&mut a, [Action::Submit]);
    assert_eq!(
        a.status.clone().expect("status").text,
        "name the file: :w FILE (YAML, or JSON when it ends in .json; :w! replaces a file)"
    );
    run(&mut a, [Action::RequestBind, Action::Confirm, Action::CommandStart]);
    run(&mut a, typed("w! /tmp/my snap.yaml"));
    let fx = update_sync(&mut a, Action::Submit);
    let [
        Effect::Save {
            cluster,
            path,
            overwrite,
            changes,
        },
    ] = fx.as_slice()
    else {
        panic!("one save effect expected")
    };
    assert_eq!(path, &std::path::PathBuf::from("/tmp/my snap.yaml"));
    assert!(*overwrite);
    assert_eq!(*changes, 1);
    assert!(
        Arc::ptr_eq(cluster, &a.cluster),
        "the cluster as it is now, in-memory changes included"
    );
    update(
        &mut a,
        Action::Saved {
            path: "/tmp/my snap.yaml".into(),
            changes: 1,
            result: Ok(()),
        },
    );
    assert_eq!(
        a.status.clone().expect("status").text,
        "saved the cluster with 1 in-memory change(s) to /tmp/my snap.yaml (open it with --snapshot /tmp/my snap.yaml)"
    );
    assert_eq!(a.saved, Some(("/tmp/my snap.yaml".to_string(), 1)));
    update(
        &mut a,
        Action::Saved {
            path: "x.yaml".into(),
            changes: 1,
            result: Err("'x.yaml' already exists: :w! x.yaml replaces it".into()),
        },
    );
    let st = a.status.clone().expect("status");
    assert_eq!(st.kind, StatusKind::Error);
    assert_eq!(st.text, "'x.yaml' already exists: :w! x.yaml replaces it");
    assert_eq!(
        a.saved,
        Some(("/tmp/my snap.yaml".to_string(), 1)),
        "a failed save changes nothing"
    );
}

fn demo_app(removal: crate::model::write::Removal, patch: impl Fn(&str) -> String) -> App {
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Demo,
            name: "demo".into(),
        },
        false,
    );
    a.removal = removal;
    load_sync(
        &mut a,
        crate::source::file::load_str("demo.yaml", &patch(include_str!("../../fixtures/demo.yaml"))).expect("fixture"),
    );
    a
}

fn open_pod(a: &mut App, key: &str) {
    let i = names(a).iter().position(|n| n == key).expect("listed");
    run(a, [Action::Top]);
    for _ in 0..i {
        run(a, [Action::Down]);
    }
    run(a, [Action::Open]);
    assert_eq!(pod_view(a).pod.to_string(), key);
}

#[test]
fn evict_preemption_in_memory_spends_the_pdb_budget() {
    use crate::model::write::Removal;
    let mut a = demo_app(Removal::Evict, str::to_string);
    open_pod(&mut a, "shop/payments-api");
    run(&mut a, [Action::RequestPreempt]);
    let Mode::Confirm(p) = a.mode.clone() else {
        panic!("confirmation expected: {:?}", a.status)
    };
    assert_eq!(
        a.confirm_writes(&p),
        vec![
            r#"1. POST /api/v1/namespaces/batch/pods/etl-nightly-0/eviction {"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"etl-nightly-0","namespace":"batch"},"deleteOptions":{}}"#
                .to_string(),
            r#"2. PATCH /api/v1/namespaces/shop/pods/payments-api/status {"status":{"nominatedNodeName":"pool-general-a3"}}"#
                .to_string(),
        ]
    );
    run(&mut a, [Action::Confirm]);
    assert!(a.pod(&ObjectKey::new("batch", "etl-nightly-0")).is_none());
    let pdb = a
        .cluster
        .pdbs
        .iter()
        .find(|b| b.metadata.name.as_deref() == Some("etl-pdb"))
        .expect("pdb");
    assert_eq!(pdb.status.as_ref().and_then(|s| s.disruptions_allowed), Some(0));
    assert_eq!(
        a.pod(&ObjectKey::new("shop", "payments-api"))
            .expect("pod")
            .nominated_node_name(),
        Some("pool-general-a3")
    );
    assert_eq!(
        a.changes,
        vec![
            "preempted for shop/payments-api on pool-general-a3: evicted batch/etl-nightly-0 (Eviction API)"
                .to_string()
        ]
    );
}

#[test]
fn evict_preemption_in_memory_is_refused_by_a_pdb_with_no_budget() {
    use crate::model::write::Removal;
    let mut a = demo_app(Removal::Evict, |t| {
        t.replace("disruptionsAllowed: 1", "disruptionsAllowed: 0")
    });
    open_pod(&mut a, "shop/payments-api");
    let g = a.generation;
    run(&mut a, [Action::RequestPreempt, Action::Confirm]);
    let st = a.status.clone().expect("status");
    assert_eq!(st.kind, StatusKind::Error);
    assert_eq!(
        st.text,
        "preemption incomplete: evicted 0 of 1 victim(s) (none); not evicted: batch/etl-nightly-0; pool-general-a3 was not nominated: eviction of batch/etl-nightly-0 refused (429): PodDisruptionBudget 'etl-pdb' does not allow it: The disruption budget etl-pdb needs 3 healthy pods and has 4 currently; wait for it to allow a disruption or preempt without --evict — snapshot mode: nothing was sent to a cluster; the change stays in memory (the file is unchanged)"
    );
    assert_eq!(a.generation, g, "nothing changed");
    assert!(a.pod(&ObjectKey::new("batch", "etl-nightly-0")).is_some());
    assert!(a.changes.is_empty());
}

#[test]
fn live_actions_are_checked_before_they_are_offered() {
    use crate::model::write::{WriteMode, WriteRequest};
    let mut a = live_app(WriteMode::Enabled);
    // the focused pod (web-2, schedulable on node-b) gets its bind permission checked at once
    let fx = update(&mut a, Action::Tick { now: 10 });
    assert!(fx.is_empty(), "asked once, while loading; not again on every tick");
    assert_eq!(update::action_access(&a, "bind"), Some(Access::Checking));
    assert_eq!(update::action_access(&a, "preempt"), None, "web-2 needs no preemption");
    let key = "create pods/binding in namespace 'default'".to_string();
    assert_eq!(
        a.live.as_ref().expect("live").access.get(&key),
        Some(&(Access::Checking, 0))
    );
    let denied = "not allowed to create pods/binding in namespace 'default' (403 Forbidden: no RBAC policy matched); ask a cluster admin for this permission";
    update(
        &mut a,
        Action::AccessChecked {
            key: key.clone(),
            result: Access::Denied(denied.into()),
        },
    );
    assert_eq!(update::action_access(&a, "bind"), Some(Access::Denied(denied.into())));
    run(&mut a, [Action::RequestBind]);
    assert_eq!(a.mode, Mode::Normal, "no confirmation for a refused action");
    assert_eq!(
        a.status.clone().expect("status").text,
        format!("cannot bind default/web-2: {denied}")
    );
    // answers are trusted for a minute, then asked again
    assert!(update(&mut a, Action::Tick { now: 69 }).is_empty());
    let fx = update(&mut a, Action::Tick { now: 71 });
    let [Effect::CheckAccess(reqs)] = fx.as_slice() else {
        panic!("a new check after the TTL")
    };
    assert_eq!(
        reqs,
        &vec![WriteRequest::Bind {
            pod: ObjectKey::new("default", "web-2"),
            uid: None,
            node: "node-b".into(),
        }]
    );
    update(
        &mut a,
        Action::AccessChecked {
            key,
            result: Access::Allowed,
        },
    );
    run(&mut a, [Action::RequestBind]);
    assert!(matches!(a.mode, Mode::Confirm(_)));
    // read-only: nothing is checked at all
    let mut r = live_app(WriteMode::ReadOnly);
    assert!(r.live.as_ref().expect("live").access.is_empty());
    assert!(update(&mut r, Action::Tick { now: 5 }).is_empty());
    assert_eq!(update::action_access(&r, "bind"), None);
}

#[test]
fn after_a_live_preemption_bind_is_offered_once_the_victims_are_gone() {
    use crate::model::Object;
    use crate::model::event::{ClusterEvent, Kind};
    use crate::model::write::{Outcome, Plan, Report, Step as W, WriteMode, WriteRequest};
    let mut a = live_app(WriteMode::Enabled);
    let (pod, victim) = (ObjectKey::new("default", "batch-1"), ObjectKey::new("default", "api-1"));
    let uid = a.pod(&victim).expect("victim").obj.metadata.uid.clone();
    let plan = Plan {
        action: "preempt for default/batch-1 on node 'node-a'".into(),
        requests: vec![
            WriteRequest::Delete {
                pod: victim.clone(),
                uid: uid.clone(),
            },
            WriteRequest::Nominate {
                pod: pod.clone(),
                node: Some("node-a".into()),
            },
        ],
        victims: vec![victim.clone()],
    };
    let ok = |code| W::Done(Outcome::Done { code });
    update(
        &mut a,
        Action::Written(Box::new(Ok(Report {
            plan,
            steps: vec![ok(200), ok(200)],
        }))),
    );
    assert_eq!(
        a.status.clone().expect("status").text,
        "done: preempt for default/batch-1 on node 'node-a'; victims removed: default/api-1; b will be offered once they are gone"
    );
    // the victim is still terminating: binding now warns
    update_sync(&mut a, Action::Tick { now: 1 });
    assert!(!a.live.as_ref().expect("live").awaiting[0].gone);
    let i = names(&a).iter().position(|n| n == "default/batch-1").expect("row");
    a.pods.selected = i;
    run(&mut a, [Action::Open]);
    // batch-1 does not fit yet; bind to node-a from its node view
    a.screens.push(Screen::Node(NodeView {
        node: "node-a".into(),
        pod: Some(pod.clone()),
        scroll: 0,
    }));
    run(&mut a, [Action::RequestBind]);
    let Mode::Confirm(Pending::Bind { warning: Some(w), .. }) = a.mode.clone() else {
        panic!("a bind confirmation with a warning: {:?}", a.status)
    };
    assert!(
        w.ends_with("victims still terminating: default/api-1; binding before they are gone may fail on the node"),
        "{w}"
    );
    run(&mut a, [Action::Cancel]);
    // the victim goes: the next rebuild offers the bind
    let Object::Pod(gone) = a
        .live
        .as_ref()
        .expect("live")
        .state
        .get(Kind::Pod, &victim)
        .expect("victim")
        .into_owned()
    else {
        panic!("a pod")
    };
    update(
        &mut a,
        Action::Cluster(Box::new(ClusterEvent::Deleted(Box::new(Object::Pod(gone).into())))),
    );
    update_sync(&mut a, Action::Tick { now: 2 });
    assert!(a.live.as_ref().expect("live").awaiting[0].gone);
    assert_eq!(
        a.status.clone().expect("status").text,
        "the victims of default/batch-1 are gone: press b to bind it (nominated node node-a); the cluster's scheduler may bind it first"
    );
    run(&mut a, [Action::RequestBind]);
    let Mode::Confirm(Pending::Bind { node, warning, .. }) = a.mode.clone() else {
        panic!("a bind confirmation: {:?}", a.status)
    };
    assert_eq!(node, "node-a");
    assert_eq!(warning, None);
}

#[test]
fn live_preemption_reports_name_gone_unanswered_and_dry_run_victims() {
    use crate::model::write::{Outcome, Plan, Report, Step as W, WriteError, WriteMode, WriteRequest};
    let (pod, v1, v2) = (
        ObjectKey::new("default", "batch-1"),
        ObjectKey::new("default", "api-1"),
        ObjectKey::new("data", "db-0"),
    );
    let plan = Plan {
        action: "preempt for default/batch-1 on node 'node-a': delete 2 victim(s), then nominate the node".into(),
        requests: vec![
            WriteRequest::Delete {
                pod: v1.clone(),
                uid: None,
            },
            WriteRequest::Delete {
                pod: v2.clone(),
                uid: None,
            },
            WriteRequest::Nominate {
                pod: pod.clone(),
                node: Some("node-a".into()),
            },
        ],
        victims: vec![v1, v2.clone()],
    };
    let written = |mode: WriteMode, steps: Vec<W>| {
        let mut a = live_app(mode);
        update(
            &mut a,
            Action::Written(Box::new(Ok(Report {
                plan: plan.clone(),
                steps,
            }))),
        );
        a.status.clone().expect("status")
    };
    // both victims went, but the preemptor vanished before its nomination
    let st = written(
        WriteMode::Enabled,
        vec![
            W::Done(Outcome::Done { code: 200 }),
            W::Done(Outcome::Done { code: 200 }),
            W::Failed(WriteError::NotFound { pod: pod.clone() }),
        ],
    );
    assert_eq!(st.kind, StatusKind::Error);
    assert_eq!(
        st.text,
        "preemption incomplete: removed 2 of 2 victim(s) (default/api-1, data/db-0); not removed: none; the node was not nominated: pod default/batch-1 no longer exists (404 Not Found); refresh and try again"
    );
    // a victim found already gone is not reported as removed by kschedtui
    let st = written(
        WriteMode::Enabled,
        vec![
            W::Done(Outcome::Done { code: 200 }),
            W::Done(Outcome::AlreadyGone),
            W::Done(Outcome::Done { code: 200 }),
        ],
    );
    assert_eq!(st.kind, StatusKind::Info);
    assert_eq!(
        st.text,
        "done: preempt for default/batch-1 on node 'node-a': delete 2 victim(s), then nominate the node; victims removed: default/api-1, data/db-0 (already gone); b will be offered once they are gone"
    );
    // a delete without an answer: neither removed nor remaining
    let st = written(
        WriteMode::Enabled,
        vec![
            W::Done(Outcome::Done { code: 200 }),
            W::Failed(WriteError::Timeout {
                what: "delete data/db-0".into(),
                kind: "pod",
                pod: v2,
                secs: 1,
            }),
            W::NotSent,
        ],
    );
    assert_eq!(
        st.text,
        "preemption incomplete: removed 1 of 2 victim(s) (default/api-1); not removed: none; the node was not nominated: no answer within 1s to 'delete data/db-0'; it may or may not have been applied: check with `kubectl get pod -n data db-0`"
    );
    // clearing another pod's nomination may fail without stopping the plan, but not silently
    let mut with_clear = plan.clone();
    with_clear.requests.insert(
        2,
        WriteRequest::Nominate {
            pod: ObjectKey::new("default", "web-2"),
            node: None,
        },
    );
    let mut a = live_app(WriteMode::Enabled);
    update(
        &mut a,
        Action::Written(Box::new(Ok(Report {
            plan: with_clear,
            steps: vec![
                W::Done(Outcome::Done { code: 200 }),
                W::Done(Outcome::Done { code: 200 }),
                W::Failed(WriteError::Api {
                    what: "clear default/web-2 status.nominatedNodeName".into(),
                    code: 500,
                    reason: "InternalError".into(),
                    message: "boom".into(),
                }),
                W::Done(Outcome::Done { code: 200 }),
            ],
        }))),
    );
    assert_eq!(
        a.status.clone().expect("status").text,
        "done: preempt for default/batch-1 on node 'node-a': delete 2 victim(s), then nominate the node; victims removed: default/api-1, data/db-0; b will be offered once they are gone; not critical: 'clear default/web-2 status.nominatedNodeName' failed (500 InternalError): boom"
    );
    // a server-side dry run removes nothing and asks for no bind
    let st = written(
        WriteMode::DryRun,
        vec![
            W::Done(Outcome::Done { code: 200 }),
            W::Done(Outcome::Done { code: 200 }),
            W::Done(Outcome::Done { code: 200 }),
        ],
    );
    assert_eq!(st.kind, StatusKind::Info);
    assert_eq!(
        st.text,
        "done: preempt for default/batch-1 on node 'node-a': delete 2 victim(s), then nominate the node; victims that would be removed: default/api-1, data/db-0 (server-side dry run: nothing changed)"
    );
}

#[test]
fn a_frozen_live_view_keeps_its_explanations_until_ctrl_r() {
    use crate::model::Object;
    use crate::model::event::{ClusterEvent, Kind};
    use crate::model::write::WriteMode;
    let mut a = live_app(WriteMode::Enabled);
    let web2 = ObjectKey::new("default", "web-2");
    run(&mut a, [Action::ToggleFollow]);
    assert!(!a.live.as_ref().expect("live").follow);
    assert_eq!(
        a.status.clone().expect("status").text,
        "view frozen: the explanations stay on this state (0 change(s) not applied yet); Ctrl-r re-runs on the cluster as it is, F follows it again"
    );
    let Object::Pod(mut pod) = a
        .live
        .as_ref()
        .expect("live")
        .state
        .get(Kind::Pod, &web2)
        .expect("web-2")
        .into_owned()
    else {
        panic!("a pod")
    };
    pod.spec.as_mut().expect("spec").node_name = Some("node-b".into());
    update(
        &mut a,
        Action::Cluster(Box::new(ClusterEvent::Applied(Box::new(Object::Pod(pod).into())))),
    );
    assert!(
        update(&mut a, Action::Tick { now: 1 }).is_empty(),
        "frozen: nothing is rebuilt"
    );
    assert_eq!(a.generation, 1);
    assert!(a.pod(&web2).expect("pod").node_name.is_none());
    assert_eq!(a.live.as_ref().expect("live").changes_since, 1);
    // Ctrl-r re-runs on the cluster as it is now (and lists it again), and the view stays
    // frozen
    let fx = update(&mut a, Action::Rerun);
    assert!(matches!(fx.as_slice(), [Effect::Explain(_), Effect::Relist]));
    assert_eq!(a.generation, 2);
    assert_eq!(a.pod(&web2).expect("pod").node_name.as_deref(), Some("node-b"));
    assert_eq!(a.live.as_ref().expect("live").changes_since, 0);
    assert!(!a.live.as_ref().expect("live").follow);
    assert!(
        a.status
            .clone()
            .expect("status")
            .text
            .starts_with("listing the cluster again; re-running on it as it was (resourceVersion "),
        "{:?}",
        a.status
    );
    // F follows again
    run(&mut a, [Action::ToggleFollow]);
    assert!(a.live.as_ref().expect("live").follow);
}

#[test]
fn a_bind_refused_for_its_uid_lists_the_cluster_again() {
    use crate::model::write::{Plan, Report, Step as W, WriteError, WriteMode, WriteRequest};
    let mut a = live_app(WriteMode::Enabled);
    let pod = ObjectKey::new("default", "web-2");
    let plan = Plan {
        action: "bind default/web-2 to node 'node-b'".into(),
        requests: vec![WriteRequest::Bind {
            pod: pod.clone(),
            uid: Some("0b1a3c8e-old".into()),
            node: "node-b".into(),
        }],
        victims: vec![],
    };
    // what kube-apiserver answers when the pod under that name has another uid
    let message = "Operation cannot be fulfilled on pods/binding \"web-2\": StorageError: invalid object, Code: 4, Key: /registry/pods/default/web-2, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: 0b1a3c8e-old, UID in object meta: 7f3e9d21-new";
    let fx = update(
        &mut a,
        Action::Written(Box::new(Ok(Report {
            plan: plan.clone(),
            steps: vec![W::Failed(WriteError::Conflict {
                message: message.into(),
            })],
        }))),
    );
    assert!(matches!(fx.as_slice(), [Effect::Relist]));
    assert_eq!(
        a.status.clone().expect("status").text,
        format!(
            "{message} (409 Conflict); refresh and try again (the pod's uid is not the cluster's: listing the cluster again)"
        )
    );
    // another conflict does not list again
    let fx = update(
        &mut a,
        Action::Written(Box::new(Ok(Report {
            plan,
            steps: vec![W::Failed(WriteError::Conflict {
                message: "the object has been modified".into(),
            })],
        }))),
    );
    assert!(fx.is_empty());
}

#[test]
fn a_replaced_state_is_explained_at_once_and_bound_with_its_new_uids() {
    use crate::model::Object;
    use crate::model::event::{ClusterEvent, Kind};
    use crate::model::write::{WriteMode, WriteRequest, bind_plan};
    let mut a = live_app(WriteMode::Enabled);
    let web2 = ObjectKey::new("default", "web-2");
    run(&mut a, [Action::ToggleFollow]);
    // the cluster recreated under the same URL: every object has a new uid
    let mut state = a.live.as_ref().expect("live").state.clone();
    let Object::Pod(mut pod) = state.get(Kind::Pod, &web2).expect("web-2").into_owned() else {
        panic!("a pod")
    };
    pod.metadata.uid = Some("7f3e9d21-new".into());
    pod.metadata.resource_version = Some("57".into());
    state.apply(ClusterEvent::Applied(Box::new(Object::Pod(pod).into())));
    let generation = a.generation;
    let fx = update(
        &mut a,
        Action::Cluster(Box::new(ClusterEvent::Replaced {
            reason: "namespace kube-system has uid b, was a: the cluster was recreated under the same URL".into(),
            state: Box::new(state),
        })),
    );
    // frozen or not, a new list is explained at once
    assert!(matches!(fx.as_slice(), [Effect::Explain(_)]));
    assert_eq!(a.generation, generation + 1);
    assert_eq!(
        a.status.clone().expect("status").text,
        "namespace kube-system has uid b, was a: the cluster was recreated under the same URL: listed every kind again (resourceVersion 57), re-running every pending pod"
    );
    assert_eq!(
        a.pod(&web2).expect("pod").obj.metadata.uid.as_deref(),
        Some("7f3e9d21-new")
    );
    let plan = bind_plan(&a.cluster, &web2, "node-a", None).expect("plan");
    let [WriteRequest::Bind { uid, .. }] = plan.requests.as_slice() else {
        panic!("{:?}", plan.requests)
    };
    assert_eq!(uid.as_deref(), Some("7f3e9d21-new"));
}

#[test]
fn a_what_if_on_a_live_cluster_freezes_the_view_and_ctrl_r_drops_it() {
    use crate::model::write::WriteMode;
    let mut a = live_app(WriteMode::Enabled);
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("nodes"));
    run(&mut a, [Action::Submit, Action::Open, Action::ToggleCordon]);
    assert_eq!(a.changes.len(), 1);
    assert!(!a.live.as_ref().expect("live").follow, "frozen so the what-if stays");
    assert!(
        a.status
            .clone()
            .expect("status")
            .text
            .ends_with("the view is frozen so the what-if stays (Ctrl-r re-runs on the live cluster and drops it)"),
        "{:?}",
        a.status
    );
    let Some(Screen::Node(v)) = a.screen() else {
        panic!("node view expected")
    };
    let node = v.node.clone();
    let cordoned = |a: &App| a.cluster.node(&node).expect("node").unschedulable;
    assert!(cordoned(&a));
    update_sync(&mut a, Action::Rerun);
    assert!(a.changes.is_empty());
    assert!(!cordoned(&a), "back to the live state");
    assert!(
        a.status
            .clone()
            .expect("status")
            .text
            .ends_with("1 what-if change(s) dropped")
    );
}

#[test]
fn rerun_on_a_snapshot_explains_again_and_following_is_refused() {
    let mut a = app();
    let g = a.generation;
    update_sync(&mut a, Action::Rerun);
    assert_eq!(a.generation, g + 1);
    assert_eq!(a.explanations.len(), 4);
    run(&mut a, [Action::ToggleFollow]);
    assert_eq!(
        a.status.clone().expect("status").text,
        "a snapshot does not change on its own: there is nothing to follow"
    );
}

#[test]
fn m_opens_the_gang_as_a_whole_and_enter_opens_a_member() {
    use crate::engine::group_cycle::GroupOutcome;
    let mut a = demo_app(crate::model::write::Removal::Delete, str::to_string);
    // A pod in no gang: a message, no screen.
    open_pod(&mut a, "shop/payments-api");
    run(&mut a, [Action::OpenGang]);
    assert!(matches!(a.screen(), Some(Screen::Pod(_))));
    assert_eq!(
        a.status.as_ref().map(|s| s.text.as_str()),
        Some("shop/payments-api is in no gang: no Permit plugin of its profile groups it")
    );
    run(&mut a, [Action::Back]);
    open_pod(&mut a, "ml/ddp-worker-0");
    // a member waiting at Permit has nothing to fix alone: its gang decides
    run(&mut a, [Action::OpenFixes]);
    assert!(matches!(a.screen(), Some(Screen::Pod(_))));
    assert!(
        a.status
            .as_ref()
            .is_some_and(|s| s.text.starts_with("ml/ddp-worker-0: Waiting at Permit on ")
                && s.text
                    .ends_with("; its gang decides: m shows the group, its quorum and who blocks it")),
        "{:?}",
        a.status
    );
    run(&mut a, [Action::OpenGang]);
    let Some(Screen::Gang(v)) = a.screen() else {
        panic!("gang screen expected: {:?}", a.status)
    };
    let pod = v.pod.clone();
    let Some(Some(Ok(Some(g)))) = a.groups.get(&pod) else {
        panic!("group computed")
    };
    assert!(
        matches!(&g.outcome, GroupOutcome::Short { blockers, .. } if blockers.len() == 1 && blockers[0].name == "ddp-worker-3")
    );
    assert_eq!(
        a.gang_rows(&pod).iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "ml/ddp-worker-0",
            "ml/ddp-worker-1",
            "ml/ddp-worker-2",
            "ml/ddp-worker-3"
        ]
    );
    run(&mut a, [Action::Bottom, Action::Open]);
    assert_eq!(pod_view(&a).pod.to_string(), "ml/ddp-worker-3");
    // A new cluster generation computes the gang again for the screen on the stack.
    run(&mut a, [Action::Back]);
    let before = a.generation;
    let effects = update_sync(&mut a, Action::Rerun);
    assert!(effects.is_empty());
    assert!(a.generation > before, "Ctrl-r starts a new generation");
    assert!(matches!(a.groups.get(&pod), Some(Some(Ok(Some(_))))));
}

#[test]
fn delete_preemption_in_memory_says_deleted_not_evicted() {
    use crate::model::write::Removal;
    let mut a = demo_app(Removal::Delete, str::to_string);
    open_pod(&mut a, "shop/payments-api");
    run(&mut a, [Action::RequestPreempt, Action::Confirm]);
    assert!(a.pod(&ObjectKey::new("batch", "etl-nightly-0")).is_none());
    assert_eq!(
        a.changes,
        vec!["preempted for shop/payments-api on pool-general-a3: deleted batch/etl-nightly-0".to_string()]
    );
}

/// Submits `:text` and returns the effects.
fn command_line(a: &mut App, text: &str) -> Vec<Effect> {
    a.mode = Mode::Normal;
    update_sync(a, Action::CommandStart);
    for c in text.chars() {
        update_sync(a, Action::Input(c));
    }
    update_sync(a, Action::Submit)
}

#[test]
fn every_command_of_the_table_and_every_alias_dispatches_to_its_own_handler() {
    use super::update::command::{COMMANDS, lookup};
    for c in COMMANDS {
        for word in std::iter::once(&c.name).chain(c.aliases) {
            let found = lookup(word).expect("in the table");
            assert!(std::ptr::eq(found, c), ":{word} runs :{}", found.name);
            let mut a = app();
            update_sync(&mut a, Action::Tick { now: 1_796_126_400 });
            open_pod(&mut a, "default/web-2");
            let arg = match c.name {
                "ns" => " data",
                "w" | "w!" => " out.yaml",
                "deschedule" => " policy.yaml",
                "fit" => " manifests.yaml",
                "reason" => " insufficient",
                _ => "",
            };
            let fx = command_line(&mut a, &format!("{word}{arg}"));
            let status = a.status.as_ref().map(|s| s.text.clone()).unwrap_or_default();
            match c.name {
                "pods" => assert!(a.screens.is_empty(), ":{word}"),
                "nodes" => assert!(matches!(a.screen(), Some(Screen::Nodes(_))), ":{word}"),
                "queue" => assert!(matches!(a.screen(), Some(Screen::Queue(_))), ":{word}"),
                "gang" => assert_eq!(
                    status, "default/web-2 is in no gang: no Permit plugin of its profile groups it",
                    ":{word}"
                ),
                "ns" => assert_eq!(a.pods.namespace.as_deref(), Some("data"), ":{word}"),
                "reason" => {
                    assert!(a.screens.is_empty(), ":{word} goes back to the pod list");
                    assert_eq!(
                        a.pods.reason,
                        Some(pod_list::ReasonFilter::Text("insufficient".into())),
                        ":{word}"
                    );
                }
                "profile" => assert_eq!(
                    status,
                    "profile: auto (each pod's schedulerName); profiles: default-scheduler, scheduler-plugins-scheduler",
                    ":{word}"
                ),
                "w" | "w!" => match fx.as_slice() {
                    [Effect::Save { path, overwrite, .. }] => {
                        assert_eq!(path, "out.yaml", ":{word}");
                        assert_eq!(*overwrite, c.name == "w!", ":{word}");
                    }
                    other => panic!(":{word}: {} effect(s)", other.len()),
                },
                "deschedule" => {
                    assert!(matches!(a.screen(), Some(Screen::Deschedule(_))), ":{word}");
                    match fx.as_slice() {
                        [Effect::Deschedule(job)] => {
                            assert_eq!(job.path, "policy.yaml", ":{word}");
                            assert_eq!(job.now, 1_796_126_400, ":{word}");
                            assert_eq!(job.generation, a.generation, ":{word}");
                        }
                        other => panic!(":{word}: {} effect(s)", other.len()),
                    }
                }
                "fit" => {
                    assert_eq!(
                        status, "making the pods of manifests.yaml's workloads as their controllers would…",
                        ":{word}"
                    );
                    match fx.as_slice() {
                        [Effect::Fit(job)] => {
                            assert_eq!(job.path, "manifests.yaml", ":{word}");
                            assert_eq!(job.namespace, "default", ":{word}");
                            assert_eq!(job.generation, a.generation, ":{word}");
                        }
                        other => panic!(":{word}: {} effect(s)", other.len()),
                    }
                }
                "help" => assert_eq!(a.mode, Mode::Help { scroll: 0 }, ":{word}"),
                // nothing unsaved here: :q quits as :q! does
                "q" | "q!" => assert!(a.should_quit, ":{word}"),
                "events" => assert!(
                    matches!(a.screen(), Some(Screen::Events(v)) if v.pod == Some(ObjectKey::new("default", "web-2"))),
                    ":{word}"
                ),
                "messages" => assert!(matches!(a.screen(), Some(Screen::Messages(_))), ":{word}"),
                "fix" => match a.explanation(&ObjectKey::new("default", "web-2")) {
                    Some(Ok(ex)) if ex.schedulable() => {
                        assert!(status.ends_with("; nothing to fix"), ":{word}: {status}")
                    }
                    _ => assert!(matches!(a.screen(), Some(Screen::Fixes(_))), ":{word}"),
                },
                "export" | "export!" => assert_eq!(
                    status, "no in-memory change to export: make a what-if first (i, e, f, b, x, c in the node view)",
                    ":{word}"
                ),
                "ctx" => assert_eq!(
                    status,
                    "no kubeconfig contexts: this is the snapshot tui-test.yaml (start kschedtui without --snapshot or --demo to attach to a cluster)",
                    ":{word}"
                ),
                other => panic!("no test for :{other}: add one here"),
            }
        }
    }
}

#[test]
fn no_word_names_two_commands() {
    use super::update::command::COMMANDS;
    let mut seen = std::collections::BTreeSet::new();
    for c in COMMANDS {
        for word in std::iter::once(&c.name).chain(c.aliases) {
            assert!(seen.insert(*word), ":{word} is in the table twice");
        }
    }
}

#[test]
fn an_unknown_command_lists_the_table() {
    let mut a = app();
    command_line(&mut a, "frobnicate");
    assert_eq!(
        a.status,
        Some(StatusMsg {
            kind: StatusKind::Error,
            text: "unknown command ':frobnicate' (commands: :pods, :nodes, :queue, :gang, :events [all], :ctx [NAME], :fix, :messages, :deschedule FILE, :fit [FILE], :ns NAME|all, :reason [TEXT], :profile [NAME|auto], :w FILE, :w! FILE, :export [FILE], :export! FILE, :help, :q, :q!)".into(),
        })
    );
}

#[test]
fn a_save_without_a_file_names_the_word_typed() {
    let mut a = app();
    let fx = command_line(&mut a, "write!");
    assert!(fx.is_empty());
    assert_eq!(
        a.status.as_ref().map(|s| s.text.as_str()),
        Some("name the file: :write! FILE (YAML, or JSON when it ends in .json; :w! replaces a file)")
    );
}

#[test]
fn the_command_hint_follows_what_is_typed() {
    use super::update::command::hint;
    assert_eq!(
        hint(""),
        ":pods :nodes :queue :gang :events :ctx :fix :messages :deschedule :fit :ns :reason :profile :w :w! :export :export! :help :q :q!"
    );
    assert_eq!(
        hint("des"),
        ":deschedule FILE  descheduler dry run of a policy: where every evicted pod would land"
    );
    assert_eq!(hint("q"), ":queue :q :q!");
    assert_eq!(
        hint("pro"),
        ":profile [NAME|auto]  one profile for every pod (auto: each pod's own)"
    );
    assert_eq!(
        hint("ns da"),
        ":ns NAME|all  only pods of one namespace (all: every namespace)"
    );
    assert_eq!(
        hint("namespace "),
        ":ns NAME|all  only pods of one namespace (all: every namespace)"
    );
    assert_eq!(hint("zz"), "no command starts with 'zz'");
    assert_eq!(hint("zz x"), "unknown command ':zz' (Tab completes a command's name)");
}

#[test]
fn tab_completes_the_command_word() {
    use super::update::command::complete;
    assert_eq!(complete("pro"), "profile ");
    assert_eq!(complete("que"), "queue");
    assert_eq!(complete("no"), "nodes");
    // :w and :w! share "w"; :queue and :q share "q": nothing more to add
    assert_eq!(complete("w"), "w");
    assert_eq!(complete("q"), "q");
    assert_eq!(complete(""), "");
    assert_eq!(complete("zz"), "zz");
    assert_eq!(complete("ns da"), "ns da");
    let mut a = app();
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("pro"));
    run(&mut a, [Action::Complete]);
    assert_eq!(a.mode, Mode::Command("profile ".into()));
}

/// The per-node detail the TUI shows under a Filter row comes from the engine's trace: which
/// pods' anti-affinity terms match (frontend-spread), the spread arithmetic (dedup-job), and
/// the claim and StorageClass a volume reason is about (orders-db-0, PreFilter facts).
#[test]
fn node_detail_states_the_trace_facts_of_the_demo_pods() {
    use crate::app::analysis::node_detail;
    let a = demo_app(crate::model::write::Removal::Delete, str::to_string);
    let ex = |ns: &str, name: &str| match a.explanation(&ObjectKey::new(ns, name)) {
        Some(Ok(ex)) => ex.clone(),
        other => panic!(
            "{ns}/{name} not explained: {:?}",
            other.map(|r| r.as_ref().err().cloned())
        ),
    };
    let spread = ex("shop", "frontend-spread");
    let a1 = spread
        .filter
        .iter()
        .find(|f| f.node == "pool-general-a1")
        .expect("node");
    let d = node_detail(a1);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].plugin, "InterPodAffinity");
    assert_eq!(
        d[0].text,
        "required pod anti-affinity term 0 matches 2 pod(s) in topology.kubernetes.io/zone=europe-west1-a: shop/shop-web-7c9f-0 (node pool-general-a1), shop/shop-web-7c9f-3 (node pool-general-a2)"
    );
    let dedup = ex("batch", "dedup-job");
    let a1 = dedup.filter.iter().find(|f| f.node == "pool-general-a1").expect("node");
    let d = node_detail(a1);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].plugin, "PodTopologySpread");
    assert_eq!(
        d[0].text,
        "spread: topology.kubernetes.io/zone=europe-west1-a: 1 matching pod(s) + 1 (this pod) - global minimum 0 (3 of minDomains 4 domains exist, so the minimum counts as 0) = skew 2 > maxSkew 1"
    );
    let db = ex("shop", "orders-db-0");
    let vb = db
        .pre_filter
        .iter()
        .find(|p| p.plugin == "VolumeBinding")
        .expect("VolumeBinding ran");
    let f = vb
        .facts
        .iter()
        .find(|f| f.label.starts_with("unbound claims of Immediate"))
        .expect("fact");
    assert_eq!(
        f.value,
        "PersistentVolumeClaim shop/orders-db-data (StorageClass standard-rwo), phase Pending"
    );
}

/// The manifests of the `:fit` tests: a quota of 2 pods in namespace `next` and a Deployment
/// of 3 replicas there (2 cpu each), so one replica is refused at admission.
const FIT_MANIFESTS: &str = "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: pods, namespace: next}\nspec: {hard: {pods: '2'}}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: next}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n    spec: {containers: [{name: c, image: api, resources: {requests: {cpu: '2'}}}]}\n";

/// What the runtime answers to a `:fit` job (reading `FIT_MANIFESTS` instead of the file).
fn fit_made(job: &FitJob) -> Action {
    let m = crate::source::manifests::read_str(&job.path, FIT_MANIFESTS, &job.namespace).expect("manifests");
    let mark = format!("fit {}", job.path);
    Action::FitMade {
        generation: job.generation,
        path: job.path.clone(),
        result: Ok(Box::new(crate::engine::fit::what_if(
            &job.cluster,
            &m,
            &job.features,
            &mark,
        ))),
    }
}

/// `:fit FILE` adds the workload's pods as what-if pending pods: made as `kschedtui fit`
/// makes them (the quota refuses the third, said in :messages), marked in the list and the pod
/// view's title, explained like any pending pod; `:fit` alone removes them and what was made
/// for them, and the objects the manifests brought stay.
#[test]
fn fit_command_adds_what_if_pending_pods_and_fit_alone_removes_them() {
    let mut a = app();
    let pods_before = a.cluster.pods.len();
    let fx = command_line(&mut a, "fit next.yaml");
    let [Effect::Fit(job)] = fx.as_slice() else {
        panic!("one Fit effect expected")
    };
    assert_eq!((job.path.as_str(), job.generation), ("next.yaml", 1));
    let job = job.clone();
    // a result for an older cluster is made again on the cluster as it is now
    let mut stale = job.clone();
    stale.generation = 0;
    let fx = update_sync(&mut a, fit_made(&stale));
    assert!(matches!(fx.as_slice(), [Effect::Fit(j)] if j.generation == 1));
    update_sync(&mut a, fit_made(&job));
    let f = a.fit.clone().expect("fit state");
    assert_eq!(f.asked, None);
    let rs = "api-5d67577c87";
    let names: Vec<String> = f.pods.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["next/api-5d67577c87-zfk4x", "next/api-5d67577c87-xnql4"]);
    assert_eq!(f.refused.len(), 1);
    assert_eq!(
        f.refused[0].1,
        format!(
            "pods \"{}\" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2",
            f.refused[0].0.name
        )
    );
    assert_eq!(a.cluster.pods.len(), pods_before + 2);
    assert_eq!(a.generation, 2);
    assert_eq!(
        a.changes,
        vec!["added 2 what-if pod(s) from next.yaml; 1 refused at admission (:messages)".to_string()]
    );
    assert!(
        a.messages
            .iter()
            .any(|m| m.text == format!(":fit next.yaml: {} refused: {}", f.refused[0].0, f.refused[0].1)),
        "the refusal is in :messages"
    );
    // pending, explained, marked
    for k in &f.pods {
        let p = a.pod(k).expect("added");
        assert!(p.is_pending());
        assert_eq!(
            p.obj
                .metadata
                .annotations
                .as_ref()
                .and_then(|x| x.get("kschedtui.io/what-if"))
                .map(String::as_str),
            Some("fit next.yaml")
        );
        assert!(
            pod_list::status_line(&a, p).starts_with("what-if · "),
            "{}",
            pod_list::status_line(&a, p)
        );
        assert!(matches!(a.explanation(k), Some(Ok(_))), "{k} explained");
    }
    assert!(
        a.cluster
            .replica_sets
            .iter()
            .any(|r| r.metadata.name.as_deref() == Some(rs))
    );
    assert_eq!(a.cluster.resource_quotas.len(), 1);
    // :fit alone removes them, and the ReplicaSet made for them; the quota stays
    command_line(&mut a, "fit");
    assert_eq!(a.fit, None);
    assert_eq!(a.cluster.pods.len(), pods_before);
    assert!(
        !a.cluster
            .replica_sets
            .iter()
            .any(|r| r.metadata.name.as_deref() == Some(rs))
    );
    assert_eq!(a.cluster.resource_quotas.len(), 1);
    assert_eq!(a.changes.len(), 2);
    assert_eq!(a.changes[1], "removed the 2 what-if pod(s) of :fit next.yaml");
    command_line(&mut a, "fit");
    assert_eq!(
        a.status.as_ref().map(|s| s.text.as_str()),
        Some("no what-if pods to remove: :fit FILE adds a manifest's workloads as pending pods")
    );
    // a manifest that cannot be read is the command's error
    let fx = command_line(&mut a, "fit nothing.yaml");
    let [Effect::Fit(job)] = fx.as_slice() else {
        panic!("one Fit effect expected")
    };
    let job = job.clone();
    update_sync(
        &mut a,
        Action::FitMade {
            generation: job.generation,
            path: job.path.clone(),
            result: Err("cannot read 'nothing.yaml': No such file or directory (os error 2)".into()),
        },
    );
    assert_eq!(a.fit, None);
    assert_eq!(
        a.status.as_ref().map(|s| s.text.as_str()),
        Some(":fit nothing.yaml: cannot read 'nothing.yaml': No such file or directory (os error 2)")
    );
}

/// On a live cluster a what-if pod is not on the server: b and p send nothing for it; Ctrl-r
/// lists the cluster again and the what-if pods are gone with the other what-ifs.
#[test]
fn fit_pods_on_a_live_cluster_are_not_bound_or_preempted_for() {
    let mut a = live_app(crate::model::write::WriteMode::Enabled);
    let fx = command_line(&mut a, "fit next.yaml");
    let [Effect::Fit(job)] = fx.as_slice() else {
        panic!("one Fit effect expected")
    };
    let job = job.clone();
    update_sync(&mut a, fit_made(&job));
    let pod = a.fit.as_ref().expect("fit").pods[0].clone();
    assert!(
        !a.live.as_ref().expect("live").follow,
        "the view is frozen on the what-if"
    );
    a.mode = Mode::Normal;
    a.screens.clear();
    a.pods.namespace = Some("next".into());
    a.pods.selected = 0;
    assert_eq!(a.focused_pod(), Some(pod.clone()));
    let want = format!(
        "cannot bind {pod}: it is a what-if pod of :fit next.yaml, not on the cluster (kubectl apply -f next.yaml creates its workload)"
    );
    run(&mut a, [Action::RequestBind]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(a.status.as_ref().map(|s| s.text.clone()), Some(want));
    run(&mut a, [Action::RequestPreempt]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(
        a.status.as_ref().map(|s| s.text.clone()),
        Some(format!(
            "cannot preempt for {pod}: it is a what-if pod of :fit next.yaml, not on the cluster (kubectl apply -f next.yaml creates its workload)"
        ))
    );
    let fx = update_sync(&mut a, Action::Rerun);
    assert!(fx.iter().any(|e| matches!(e, Effect::Relist)));
    assert_eq!(a.fit, None);
    assert!(a.pod(&pod).is_none());
}

/// `:deschedule FILE` on fixtures/deschedule/anti-affinity.yaml: the effect, the result as
/// the runtime computes it, the rows, and Enter on the evicted pod opening its pod view.
#[test]
fn deschedule_command_shows_where_each_evicted_pod_lands_and_opens_the_pod() {
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Snapshot,
            name: "anti-affinity.yaml".into(),
        },
        false,
    );
    load_sync(
        &mut a,
        crate::source::file::load_str(
            "anti-affinity.yaml",
            include_str!("../../fixtures/deschedule/anti-affinity.yaml"),
        )
        .expect("fixture"),
    );
    // 2026-12-01T12:00:00Z
    update_sync(&mut a, Action::Tick { now: 1_796_126_400 });
    let path = "fixtures/deschedule/anti-affinity-policy.yaml";
    let fx = command_line(&mut a, &format!("deschedule {path}"));
    let [Effect::Deschedule(job)] = fx.as_slice() else {
        panic!("one Deschedule effect expected")
    };
    assert_eq!(
        a.deschedule,
        Some(deschedule::DescheduleState {
            path: path.into(),
            generation: 1,
            result: None
        })
    );
    assert!(a.deschedule_rows().is_empty());
    // what the runtime does with the job
    let p = crate::source::deschedule::parse(
        path,
        include_str!("../../fixtures/deschedule/anti-affinity-policy.yaml"),
    )
    .expect("policy");
    let run = crate::explain::deschedule::run(
        (*job.cluster).clone(),
        &p.path,
        &p.policy,
        &p.unreproduced,
        k8s_openapi::jiff::Timestamp::from_second(job.now).expect("now"),
        &job.profiles,
        &job.features,
    )
    .expect("dry run");
    // a result for another file or generation is dropped
    update_sync(
        &mut a,
        Action::Descheduled {
            generation: 0,
            path: path.into(),
            result: Ok(Box::new(run.clone())),
        },
    );
    assert!(a.deschedule_rows().is_empty());
    update_sync(
        &mut a,
        Action::Descheduled {
            generation: 1,
            path: path.into(),
            result: Ok(Box::new(run)),
        },
    );
    let Some(Some(Ok(report))) = a.deschedule.as_ref().map(|d| d.result.clone()) else {
        panic!("a report expected")
    };
    assert_eq!(report.header, "at 2026-12-01T12:00:00Z · 2 node(s) · limits: none");
    assert_eq!(
        report.summary,
        "1 evicted: 1 moved, 0 back on the same node, 0 Pending, 0 not recreated"
    );
    let shown: Vec<(Option<String>, String, String)> = report
        .rows
        .iter()
        .map(|r| {
            (
                r.pod.as_ref().map(ToString::to_string),
                r.outcome.clone(),
                r.result.clone(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        vec![
            (None, "1 evicted, 0 kept".to_string(), String::new()),
            (
                Some("shop/web-0".to_string()),
                "Evicted".to_string(),
                "moves to node-2".to_string()
            ),
        ]
    );
    assert_eq!(
        report.rows[0].plugin,
        "anti-affinity · Deschedule · RemovePodsViolatingInterPodAntiAffinity"
    );
    assert_eq!(report.rows[1].kind, deschedule::RowKind::Moved);
    assert_eq!(
        report.rows[1].detail,
        vec![
            "shop/web-0 on node-1: violates anti-affinity with shop/db-0 on node-1 (topologyKey kubernetes.io/hostname)".to_string(),
            "Evicted in memory; recreated by ReplicaSet/web-6b7c as shop/web-0-new".to_string(),
            "moves to node-2".to_string(),
        ]
    );
    assert_eq!(
        a.status.as_ref().map(|s| s.text.as_str()),
        Some(
            "dry run of fixtures/deschedule/anti-affinity-policy.yaml: 1 evicted: 1 moved, 0 back on the same node, 0 Pending, 0 not recreated"
        )
    );
    // Enter on the plugin row says what to do; on the pod, opens it
    update_sync(&mut a, Action::Open);
    assert_eq!(
        a.status.as_ref().map(|s| s.text.as_str()),
        Some("a plugin row: pick one of its pods to open it")
    );
    update_sync(&mut a, Action::Down);
    assert_eq!(a.focused_pod(), Some(ObjectKey::new("shop", "web-0")));
    update_sync(&mut a, Action::Open);
    assert_eq!(pod_view(&a).pod, ObjectKey::new("shop", "web-0"));
    // back to the dry run, as it was
    update_sync(&mut a, Action::Back);
    assert!(matches!(a.screen(), Some(Screen::Deschedule(v)) if v.selected == 1));
}

#[test]
fn deschedule_command_errors_name_what_is_missing() {
    let mut a = app();
    let fx = command_line(&mut a, "deschedule");
    assert!(fx.is_empty());
    assert_eq!(
        a.status.as_ref().map(|s| s.text.as_str()),
        Some("name the policy: :deschedule FILE (a DeschedulerPolicy, descheduler/v1alpha2, YAML or JSON)")
    );
    let fx = command_line(&mut a, "deschedule p.yaml");
    assert!(fx.is_empty());
    assert_eq!(
        a.status.as_ref().map(|s| s.text.as_str()),
        Some("no clock yet (pod ages need one): try again in a moment")
    );
    update_sync(&mut a, Action::Tick { now: 1_796_126_400 });
    let fx = command_line(&mut a, "deschedule p.yaml");
    assert_eq!(fx.len(), 1);
    let generation = a.generation;
    update_sync(
        &mut a,
        Action::Descheduled {
            generation,
            path: "p.yaml".into(),
            result: Err("cannot read descheduler policy 'p.yaml': No such file or directory (os error 2)".into()),
        },
    );
    assert_eq!(
        a.status.as_ref().map(|s| (s.kind, s.text.as_str())),
        Some((
            StatusKind::Error,
            "cannot read descheduler policy 'p.yaml': No such file or directory (os error 2)"
        ))
    );
    assert!(a.deschedule_rows().is_empty());
}

#[test]
fn fixes_are_checked_when_the_pod_view_opens_and_enter_tries_one_in_memory() {
    use crate::model::write::Removal;
    let mut a = demo_app(Removal::Delete, str::to_string);
    open_pod(&mut a, "batch/report-huge");
    let key = ObjectKey::new("batch", "report-huge");
    // the pod view asked for them and the (synchronous) job answered
    let rows = a.fix_rows(&key);
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(crate::app::fix::Verified::works));
    // a schedulable pod gets none, and `f` says why
    run(&mut a, [Action::Back]);
    open_pod(&mut a, "shop/search-indexer");
    run(&mut a, [Action::OpenFixes]);
    assert!(matches!(a.screen(), Some(Screen::Pod(_))));
    assert_eq!(
        a.status.clone().expect("status").text,
        "shop/search-indexer would be scheduled: Schedulable: would bind to pool-general-c2; nothing to fix"
    );
    assert!(!a.fixes.contains_key(&ObjectKey::new("shop", "search-indexer")));
    run(&mut a, [Action::Back]);
    open_pod(&mut a, "batch/report-huge");
    run(&mut a, [Action::OpenFixes]);
    assert!(matches!(a.screen(), Some(Screen::Fixes(v)) if v.pod == key));
    // c copies the selected fix's command; the first (lower requests, the smallest change)
    // has none: its text; the third tolerates the taint
    let copied = |fx: Vec<Effect>| match fx.as_slice() {
        [Effect::Copy(t)] => t.clone(),
        other => panic!("{} effect(s)", other.len()),
    };
    assert_eq!(
        copied(update_sync(&mut a, Action::Copy)),
        "lower cpu to ≤ 6800m, memory to ≤ 29498Mi to fit pool-general-a1"
    );
    run(&mut a, [Action::Down, Action::Down]);
    assert!(
        copied(update_sync(&mut a, Action::Copy)).starts_with("kubectl patch pod report-huge -n batch --type=json")
    );
    // Enter makes the change in memory, back at the pod view, which now binds
    run(&mut a, [Action::Open]);
    assert_eq!(pod_view(&a).pod, key);
    assert_eq!(
        a.changes,
        ["fix for batch/report-huge: tolerate dra=present:NoSchedule (pool-dra-a1, pool-dra-b1)"]
    );
    match a.explanation(&key) {
        Some(Ok(ex)) => assert_eq!(ex.verdict(), "Schedulable: would bind to pool-dra-b1"),
        other => panic!("{other:?}"),
    }
    // the fixes of the old cluster are gone with it
    assert!(!a.fixes.contains_key(&key));
    assert_eq!(a.unsaved().len(), 1);
    // :fix opens the same screen
    run(&mut a, [Action::Back]);
    open_pod(&mut a, "shop/checkout-canary");
    run(&mut a, [Action::CommandStart]);
    run(&mut a, typed("fix"));
    run(&mut a, [Action::Submit]);
    assert!(matches!(a.screen(), Some(Screen::Fixes(v)) if v.pod.name == "checkout-canary"));
    assert_eq!(a.fix_rows(&ObjectKey::new("shop", "checkout-canary")).len(), 1);
}

#[test]
fn export_lists_the_what_ifs_as_kubectl_commands_and_writes_them_to_a_file() {
    use crate::model::write::Removal;
    let mut a = demo_app(Removal::Delete, str::to_string);
    open_pod(&mut a, "batch/report-huge");
    // the toleration is the third fix (smallest change first)
    run(&mut a, [Action::OpenFixes, Action::Down, Action::Down, Action::Open]);
    assert_eq!(a.changes.len(), 1);
    let fx = command_line(&mut a, "export");
    assert!(fx.is_empty());
    let Some(Screen::Text(v)) = a.screen() else {
        panic!("a text screen: {:?}", a.status)
    };
    assert_eq!(v.title, "What-if export · 1 change(s)");
    assert_eq!(
        v.lines[..2],
        [
            "# 1 in-memory change(s), 1 object(s) differ from the cluster as loaded:".to_string(),
            "#   fix for batch/report-huge: tolerate dra=present:NoSchedule (pool-dra-a1, pool-dra-b1)".to_string()
        ]
    );
    assert!(
        v.lines.iter().any(|l| l.starts_with(
            "kubectl patch pod report-huge -n batch --type=json -p '[{\"op\":\"add\",\"path\":\"/spec/tolerations"
        )),
        "{:#?}",
        v.lines
    );
    let fx = command_line(&mut a, "export ~/what-if.txt");
    match fx.as_slice() {
        [Effect::Export { text, path, overwrite }] => {
            assert_eq!(path, std::path::Path::new("~/what-if.txt"));
            assert!(!overwrite);
            assert!(text.starts_with("# 1 in-memory change(s)") && text.ends_with('\n'));
        }
        other => panic!("{} effect(s)", other.len()),
    }
    update(
        &mut a,
        Action::Exported {
            path: "/home/u/what-if.txt".into(),
            result: Ok(()),
        },
    );
    assert_eq!(
        a.status.clone().expect("status").text,
        "exported 1 in-memory change(s) to /home/u/what-if.txt: kubectl commands, then the objects' YAML"
    );
    assert!(command_line(&mut a, "export!").is_empty());
    assert_eq!(
        a.status.clone().expect("status").text,
        ":export! needs a file: :export! FILE"
    );
}

#[test]
fn f_on_the_pod_list_explains_a_pod_whose_full_explanation_was_dropped_then_checks_its_fixes() {
    use crate::model::write::Removal;
    let mut a = demo_app(Removal::Delete, str::to_string);
    let key = ObjectKey::new("batch", "report-huge");
    let i = names(&a).iter().position(|n| *n == key.to_string()).expect("listed");
    run(&mut a, [Action::Top]);
    for _ in 0..i {
        run(&mut a, [Action::Down]);
    }
    a.explanations.remove(&key);
    let fx = update(&mut a, Action::OpenFixes);
    assert!(matches!(a.screen(), Some(Screen::Fixes(v)) if v.pod == key));
    assert!(
        matches!(fx.as_slice(), [Effect::Explain(job)] if job.pods == [key.clone()]),
        "{} effect(s)",
        fx.len()
    );
    assert!(a.fix_rows(&key).is_empty());
    a.explanations.clear();
    run(&mut a, [Action::Back, Action::OpenFixes]);
    assert_eq!(a.fix_rows(&key).len(), 3);
}

/// A 20,000-pod cluster's nodes' requests (summed through a hash index of node names): every
/// bound pod counted once, and a node list open when the cluster arrives shows them (its CPU
/// column in millicores, as the requests need).
#[test]
fn a_big_cluster_sums_node_requests_and_the_node_list_shows_them() {
    use crate::source::generate::{GenSpec, generate};
    let text = serde_json::to_string(&generate(GenSpec::new(40, 20_000, 7))).expect("json");
    let cluster = crate::source::file::load_str("g.json", &text).expect("generated cluster");
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Snapshot,
            name: "g.json".into(),
        },
        false,
    );
    a.screens.push(Screen::Nodes(NodeList {
        selected: 0,
        pod: None,
        query: String::new(),
        sort: node_list::NodeSortKey::default(),
        reverse: false,
    }));
    load_sync(&mut a, cluster);
    assert_eq!(a.cluster.pods.len(), 20_001);
    // every bound pod once, under its own node, and each node's sum is its pods' requests
    assert_eq!(a.usage.values().map(|u| u.pods.len()).sum::<usize>(), 20_000);
    for (node, u) in &a.usage {
        let mut cpu = 0;
        for p in u.pods_iter() {
            assert_eq!(p.node_name.as_deref(), Some(node.as_str()), "{}", p.key);
            cpu += a.features.requests_of(p).resource.milli_cpu;
        }
        assert_eq!(u.requested.milli_cpu, cpu, "{node}");
    }
    let Some(Screen::Nodes(v)) = a.screen().cloned() else {
        panic!("node list")
    };
    assert_eq!(a.node_rows.cpu_unit(), format::CpuUnit::Milli);
    let mut fresh = node_list::NodeRows::default();
    fresh.refresh(&a, &v);
    assert_eq!(a.node_rows.widths(), fresh.widths());
    assert_eq!(a.node_rows.len(), 40);
}

/// `:export` of a bind made in memory is the Binding the scheduler creates: the API server
/// refuses a patch of a pod's spec.nodeName, and the status the bind wrote is the server's.
#[test]
fn export_of_a_bind_is_a_binding_not_a_patch() {
    let mut a = app();
    run(&mut a, [Action::RequestBind, Action::Confirm]);
    assert_eq!(a.changes, ["bound default/web-2 to node-b".to_string()]);
    command_line(&mut a, "export");
    let Some(Screen::Text(v)) = a.screen() else {
        panic!("a text screen: {:?}", a.status)
    };
    assert_eq!(
        v.lines,
        [
            "# 1 in-memory change(s), 1 object(s) differ from the cluster as loaded:",
            "#   bound default/web-2 to node-b",
            "",
            "# pod default/web-2",
            "#   bound to node-b in memory: the Binding the scheduler creates (the API server sets spec.nodeName and PodScheduled=True)",
            "kubectl create -f - <<'EOF'",
            "apiVersion: v1",
            "kind: Binding",
            "metadata:",
            "  name: web-2",
            "  namespace: default",
            "target:",
            "  apiVersion: v1",
            "  kind: Node",
            "  name: node-b",
            "EOF",
        ]
    );
}

/// The exported YAML is what `kubectl apply -f` sends: no status, so no PodScheduled message
/// of the cluster as it was loaded (report-huge's says it fits nowhere).
#[test]
fn exported_yaml_has_no_status_and_no_old_pod_scheduled_message() {
    use crate::model::write::Removal;
    let mut a = demo_app(Removal::Delete, str::to_string);
    open_pod(&mut a, "batch/report-huge");
    // the toleration is the third fix (smallest change first)
    run(&mut a, [Action::OpenFixes, Action::Down, Action::Down, Action::Open]);
    command_line(&mut a, "export");
    let Some(Screen::Text(v)) = a.screen() else {
        panic!("a text screen: {:?}", a.status)
    };
    let yaml_at = v
        .lines
        .iter()
        .position(|l| l == "# the changed objects as they are now, without their status (kubectl apply -f / replace -f write none):")
        .expect("the YAML part");
    let yaml = &v.lines[yaml_at + 1..];
    assert_eq!(yaml[..3], ["---", "apiVersion: v1", "kind: Pod"]);
    assert!(!yaml.iter().any(|l| l.starts_with("status:")), "{yaml:#?}");
    assert!(!yaml.iter().any(|l| l.contains("nodes are available")), "{yaml:#?}");
    assert!(yaml.iter().any(|l| l == "  - effect: NoSchedule"), "{yaml:#?}");
}

/// `e`: a YAML mistake opens the editor again on the text as it was saved, the error above it
/// as comments (as `kubectl edit` does); saved unchanged, the edit is given up; corrected, it
/// is applied.
#[test]
fn a_yaml_mistake_reopens_the_editor_with_the_text_and_the_error() {
    let mut a = app();
    let fx = update_sync(&mut a, Action::EditExternal);
    let [Effect::OpenEditor { target, text }] = fx.as_slice() else {
        panic!("editor effect expected")
    };
    let target = target.clone();
    let broken = text.replace("cpu: 500m", "cpu: [500m");
    let err = whatif::apply_yaml(&a.cluster, &target, &broken, whatif::accept(&a.features)).expect_err("a mistake");
    assert!(err.starts_with("edited pod default/web-2: not a valid Pod: "), "{err}");
    let fx = update_sync(
        &mut a,
        Action::Edited {
            target: target.clone(),
            result: Ok(broken.clone()),
        },
    );
    let [
        Effect::OpenEditor {
            target: again_for,
            text: again,
        },
    ] = fx.as_slice()
    else {
        panic!("the editor opens again: {:?}", a.status)
    };
    assert_eq!(again_for, &target);
    assert_eq!(
        *again,
        format!(
            "# kschedtui could not apply this edit:\n#   {err}\n# Correct it and save to apply it; save it unchanged, or empty, to give up.\n#\n{broken}"
        )
    );
    assert_eq!(
        a.status.clone().expect("status").text,
        format!("{err}: the editor opens again with the error")
    );
    assert_eq!(a.generation, 1, "nothing applied");
    // saved unchanged: given up, nothing applied
    let fx = update_sync(
        &mut a,
        Action::Edited {
            target: target.clone(),
            result: Ok(again.clone()),
        },
    );
    assert!(fx.is_empty());
    assert_eq!(
        a.status.clone().expect("status").text,
        format!("{err} (saved unchanged: the edit is given up)")
    );
    // corrected under the comments: applied
    run(
        &mut a,
        [Action::Edited {
            target: target.clone(),
            result: Ok(again.replace("cpu: [500m", "cpu: 600m")),
        }],
    );
    assert_eq!(a.generation, 2);
    assert_eq!(a.changes, ["edited pod default/web-2 (YAML)".to_string()]);
    // saved empty: cancelled
    run(
        &mut a,
        [Action::Edited {
            target,
            result: Ok("# nothing\n\n".into()),
        }],
    );
    assert_eq!(
        a.status.clone().expect("status").text,
        "edit of pod default/web-2 cancelled: the file was saved empty"
    );
}

mod live_events;
