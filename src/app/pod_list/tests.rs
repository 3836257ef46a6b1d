use fuzzy_matcher::FuzzyMatcher;

use super::*;
use crate::source::file;

fn pod(ns: &str, name: &str) -> Pod {
    let yaml =
        format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: {ns}}}\nspec: {{containers: []}}\n");
    let c = file::load_str("t", &yaml).expect("pod loads");
    (*c.pods[0]).clone()
}

#[test]
fn fuzzy_match_on_name_and_full_key() {
    let m = SkimMatcherV2::default();
    let p = pod("default", "web-2");
    assert_eq!(matches(&m, &p, "-f wb"), Some((vec![], vec![0, 2])));
    assert_eq!(matches(&m, &p, "-f zz"), None);
    assert_eq!(matches(&m, &p, "-f def/w"), Some((vec![0, 1, 2], vec![0])));
    assert_eq!(matches(&m, &p, ""), Some((vec![], vec![])));
    assert_eq!(matches(&m, &p, "-f "), Some((vec![], vec![])));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, .. proptest::prelude::ProptestConfig::default() })]

    /// The list's own match test says what skim says, for names, patterns with capitals
    /// (case-sensitive), slashes and non-ASCII letters.
    #[test]
    fn fuzzy_hit_agrees_with_skim(text in "[a-cA-C/é0-]{0,12}", query in "[a-cA-C/é]{0,4}") {
        let m = SkimMatcherV2::default();
        proptest::prop_assert_eq!(fuzzy_hit(&text, &query), m.fuzzy_match(&text, &query).is_some());
    }
}

/// A generated cluster: 20 nodes, 400 pods in three namespaces.
fn generated() -> App {
    app_of(crate::source::generate::GenSpec::new(20, 400, 7))
}

/// The app loaded with the cluster `spec` generates.
fn app_of(spec: crate::source::generate::GenSpec) -> App {
    let v = crate::source::generate::generate(spec);
    let mut a = App::new(
        crate::app::SourceInfo {
            kind: crate::app::SourceKind::Snapshot,
            name: "gen.json".into(),
        },
        false,
    );
    crate::app::load_sync(
        &mut a,
        crate::source::file::load_str("gen.json", &serde_json::to_string(&v).expect("json")).expect("generated"),
    );
    a
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, .. proptest::prelude::ProptestConfig::default() })]

    /// Whatever is typed, erased and re-sorted, the kept rows are the rows the matcher and
    /// the sort order give.
    #[test]
    fn kept_rows_follow_any_search(keys in proptest::collection::vec(0usize..15, 1..24)) {
        use crate::app::{Action, update};
        let mut a = generated();
        update(&mut a, Action::SearchStart);
        let m = SkimMatcherV2::default();
        for k in keys {
            let x = match k {
                // `-f `, `-l ` switch the mode (a fuzzy match, a label selector)
                0..=9 => Action::Input(['w', 'e', 'b', '/', '1', 'T', '-', 'f', 'l', ' '][k]),
                10 | 11 => Action::Backspace,
                12 => Action::ClearInput,
                13 => Action::CycleSort,
                _ => Action::ReverseSort,
            };
            update(&mut a, x);
            if a.mode != crate::app::Mode::Search {
                update(&mut a, Action::SearchStart);
            }
            let reference: Vec<usize> = sorted(&a)
                .into_iter()
                .filter(|&i| matches(&m, &a.cluster.pods[i], &a.pods.query).is_some())
                .collect();
            proptest::prop_assert_eq!(&a.pod_rows.order, &reference, "query {:?}", a.pods.query);
        }
    }
}

#[test]
fn the_sort_from_what_was_kept_is_the_sort_of_the_pods() {
    for mut a in [app(), generated()] {
        let mut kept = PodRows::default();
        kept.refresh(&a, true);
        assert!(kept.key_sorted);
        for ns in [None, Some("data"), Some("team-a")] {
            for sort in SortKey::ALL {
                for (reverse, pending_only) in [(false, false), (true, false), (false, true), (true, true)] {
                    a.pods.namespace = ns.map(str::to_string);
                    a.pods.sort = sort;
                    a.pods.reverse = reverse;
                    a.pods.pending_only = pending_only;
                    assert_eq!(kept.sorted(&a), sorted(&a), "{ns:?} {sort:?} {reverse} {pending_only}");
                    // from the kept order of every pod, filtered and reversed
                    assert_eq!(kept.ordered(&a), sorted(&a), "{ns:?} {sort:?} {reverse} {pending_only}");
                }
            }
        }
    }
}

/// `/` finds a part of the name, as k9s' filter does (a fuzzy match is `-f`): the letters
/// found are highlighted; a capital makes it case-sensitive; with a `/` it is found in
/// `namespace/name`.
#[test]
fn a_search_finds_a_part_of_the_name() {
    let m = SkimMatcherV2::default();
    let p = pod("default", "web-2");
    assert_eq!(matches(&m, &p, "eb-"), Some((vec![], vec![1, 2, 3])));
    assert_eq!(matches(&m, &p, "EB"), None);
    assert_eq!(matches(&m, &p, "wb"), None, "not fuzzy");
    assert_eq!(matches(&m, &p, "lt/we"), Some((vec![5, 6], vec![0, 1])));
    assert_eq!(matches(&m, &p, "def/w"), None);
    let p = pod("shop", "Web-Frontend");
    assert_eq!(matches(&m, &p, "front"), Some((vec![], vec![4, 5, 6, 7, 8])));
    assert_eq!(matches(&m, &p, "Front"), Some((vec![], vec![4, 5, 6, 7, 8])));
    assert_eq!(matches(&m, &p, "FRONT"), None);
}

/// `/-l SELECTOR` keeps the pods the label selector selects; a selector that does not
/// parse selects nothing.
#[test]
fn a_search_with_l_is_a_label_selector() {
    let m = SkimMatcherV2::default();
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: shop, labels: {app: web, tier: front}}\nspec: {containers: []}\n";
    let c = file::load_str("t", yaml).expect("pod loads");
    let p = (*c.pods[0]).clone();
    for (q, hit) in [
        ("-l app=web", true),
        ("-l app=web,tier!=db", true),
        ("-l app in (web,api)", true),
        ("-l app=api", false),
        ("-l !tier", false),
        ("-l app in (web", false),
    ] {
        assert_eq!(matches(&m, &p, q).is_some(), hit, "{q}");
        assert_eq!(is_match(&p, q), hit, "{q}");
    }
    assert!(matches!(Search::of("-l app in (web"), Search::Labels(Err(_))));
}

#[test]
fn is_match_agrees_with_the_positions() {
    let m = SkimMatcherV2::default();
    let p = pod("default", "web-2");
    for q in [
        "", "wb", "zz", "def/w", "DEF/w", "t/w", "/", "w/", "W", "eb-2", "-f wb", "-f def/w", "-f DEF/w", "-l app",
        "-l !app",
    ] {
        assert_eq!(is_match(&p, q), matches(&m, &p, q).is_some(), "{q:?}");
    }
}

fn app() -> App {
    crate::app::tui_test_app()
}

fn shown(a: &App) -> Vec<String> {
    let r = &a.pod_rows;
    r.pods(a, 0..r.len()).map(|p| p.key.to_string()).collect()
}

#[test]
fn the_kept_rows_are_the_rows_computed_afresh_after_every_action() {
    use crate::app::{Action, update};
    let mut a = app();
    let mut steps: Vec<Action> = vec![Action::SearchStart];
    steps.extend("e-1".chars().map(Action::Input));
    steps.extend([
        Action::Backspace,
        Action::Backspace,
        Action::Input('/'),
        Action::Input('d'),
    ]);
    steps.extend([Action::ClearInput, Action::Input('D'), Action::Submit]);
    steps.extend([
        Action::CycleSort,
        Action::ReverseSort,
        Action::CycleSort,
        Action::NextNamespace,
    ]);
    steps.extend([Action::SearchStart, Action::Input('a'), Action::Submit, Action::Cancel]);
    steps.extend([Action::AllNamespaces, Action::CycleSort, Action::CycleSort]);
    steps.extend([
        Action::SortPods(SortKey::Cpu),
        Action::SortPods(SortKey::Cpu),
        Action::TogglePendingOnly,
        Action::SortPods(SortKey::Reason),
        Action::Down,
        Action::SameReason,
        Action::TogglePendingOnly,
        Action::SameReason,
        Action::SortPods(SortKey::Name),
    ]);
    for (i, x) in steps.into_iter().enumerate() {
        update(&mut a, x);
        assert!(a.pod_rows.is_current(&a), "step {i}");
        let mut fresh = PodRows::default();
        fresh.refresh(&a, true);
        assert_eq!(a.pod_rows.order, fresh.order, "step {i}: query {:?}", a.pods.query);
        assert_eq!(a.pod_rows.pending, fresh.pending, "step {i}");
        assert_eq!(a.pod_rows.widths, fresh.widths, "step {i}");
        // what the list showed before it kept its rows: every pod the matcher matches, in order
        let m = SkimMatcherV2::default();
        let reference: Vec<String> = sorted(&a)
            .into_iter()
            .map(|i| &a.cluster.pods[i])
            .filter(|p| matches(&m, p, &a.pods.query).is_some())
            .map(|p| p.key.to_string())
            .collect();
        assert_eq!(shown(&a), reference, "step {i}");
    }
}

#[test]
fn a_search_that_only_grows_narrows_the_rows_it_had_and_the_widths_follow() {
    use crate::app::{Action, update};
    let mut a = app();
    update(&mut a, Action::SearchStart);
    update(&mut a, Action::Input('b'));
    assert_eq!(shown(&a), vec!["default/web-2", "default/batch-1", "data/db-0"]);
    update(&mut a, Action::Input('a'));
    assert_eq!(shown(&a), vec!["default/batch-1"]);
    assert_eq!(a.pod_rows.widths().name, "batch-1".len());
    assert_eq!(a.pod_rows.widths().namespace, "default".len());
    assert_eq!(a.pod_rows.pending(), 1);
    // the whole key once there is a '/': a shorter search on names is no superset of it
    update(&mut a, Action::ClearInput);
    for c in "data/".chars() {
        update(&mut a, Action::Input(c));
    }
    assert_eq!(shown(&a), vec!["data/etl-1", "data/db-0"]);
    assert_eq!(a.pod_rows.cluster_pending(), 4);
}

#[test]
fn moving_the_cursor_keeps_the_rows_as_they_were() {
    use crate::app::{Action, update};
    let mut a = app();
    let before = a.pod_rows.order.as_ptr();
    for x in [
        Action::Down,
        Action::Down,
        Action::PageDown,
        Action::Up,
        Action::Bottom,
        Action::Top,
    ] {
        update(&mut a, x);
        assert_eq!(a.pod_rows.order.as_ptr(), before, "the rows were not computed again");
    }
    // a change of the cluster computes them again
    let c = (*a.cluster).clone();
    crate::app::update::tests_support::set_cluster(&mut a, c);
    crate::app::update(&mut a, Action::Tick { now: 0 });
    assert!(a.pod_rows.is_current(&a));
    assert_eq!(shown(&a).len(), 6);
}

#[test]
fn rows_read_after_a_change_outside_update_are_the_cluster_as_it_is() {
    let mut a = app();
    a.pods.query = "etl".into();
    assert!(!a.pod_rows.is_current(&a));
    assert_eq!(
        rows(&a).iter().map(|r| r.pod.key.to_string()).collect::<Vec<_>>(),
        vec!["data/etl-1"]
    );
    assert_eq!(a.pending_count(), 4);
    a.refresh_rows();
    assert_eq!(shown(&a), vec!["data/etl-1"]);
}

/// A generated cluster with two pods of every failure kind and two that fit.
fn failing() -> App {
    app_of(crate::source::generate::GenSpec {
        pending: 2,
        failing: 2 * crate::source::generate::FAILURE_KINDS.len(),
        ..crate::source::generate::GenSpec::new(12, 60, 5)
    })
}

fn names(a: &App) -> Vec<String> {
    let r = &a.pod_rows;
    r.pods(a, 0..r.len()).map(|p| p.key.name.to_string()).collect()
}

fn select(a: &mut App, name: &str) {
    a.pods.selected = names(a).iter().position(|n| n == name).expect("listed");
}

#[test]
fn shift_letters_sort_by_their_column_and_the_same_letter_again_reverses() {
    use crate::app::{Action, update};
    let mut a = app();
    update(&mut a, Action::SortPods(SortKey::Name));
    assert_eq!(names(&a), ["api-1", "batch-1", "db-0", "etl-1", "gated-1", "web-2"]);
    assert_eq!(
        (a.pods.sort.describe(a.pods.reverse), a.pods.sort.arrow(a.pods.reverse)),
        ("name↑".to_string(), "↑")
    );
    update(&mut a, Action::SortPods(SortKey::Name));
    assert_eq!(names(&a), ["web-2", "gated-1", "etl-1", "db-0", "batch-1", "api-1"]);
    assert_eq!(a.pods.sort.describe(a.pods.reverse), "name↓");
    // another column starts in its own direction again
    update(&mut a, Action::SortPods(SortKey::Namespace));
    assert!(!a.pods.reverse);
    assert_eq!(
        shown(&a),
        [
            "data/db-0",
            "data/etl-1",
            "default/api-1",
            "default/batch-1",
            "default/gated-1",
            "default/web-2"
        ]
    );
    update(&mut a, Action::SortPods(SortKey::Cpu));
    assert_eq!(names(&a), ["api-1", "db-0", "batch-1", "web-2", "etl-1", "gated-1"]);
    assert_eq!(a.pods.sort.describe(a.pods.reverse), "cpu↓");
    update(&mut a, Action::SortPods(SortKey::Cpu));
    assert_eq!(names(&a), ["gated-1", "etl-1", "web-2", "batch-1", "db-0", "api-1"]);
    assert_eq!(a.pods.sort.describe(a.pods.reverse), "cpu↑");
    update(&mut a, Action::SortPods(SortKey::Memory));
    assert_eq!(names(&a), ["api-1", "db-0", "batch-1", "web-2", "etl-1", "gated-1"]);
    update(&mut a, Action::SortPods(SortKey::Priority));
    assert_eq!(names(&a)[0], "web-2", "priority 1000 first");
    assert_eq!(a.pods.sort.column(), Some("PRIO"));
    assert_eq!(SortKey::Queue.column(), None);
    assert_eq!(SortKey::Queue.describe(true), "queue reversed");
}

#[test]
fn the_reason_sort_puts_the_same_decisive_reasons_together() {
    use crate::app::{Action, update};
    let mut a = failing();
    update(&mut a, Action::TogglePendingOnly);
    update(&mut a, Action::SortPods(SortKey::Reason));
    let keys: Vec<String> = a
        .pod_rows
        .pods(&a, 0..a.pod_rows.len())
        .map(|p| reason_key(&a, p).1.into_owned())
        .collect();
    let mut deduped = keys.clone();
    deduped.dedup();
    let mut sorted_keys = deduped.clone();
    sorted_keys.sort();
    sorted_keys.dedup();
    assert_eq!(deduped, sorted_keys, "each reason once, in byte order: {keys:?}");
    assert_eq!(names(&a)[..2], ["cpu-000000", "cpu-000006"]);
    update(&mut a, Action::SortPods(SortKey::Reason));
    assert_eq!(names(&a).last().map(String::as_str), Some("cpu-000000"));
}

#[test]
fn ctrl_z_keeps_only_the_pending_pods_and_again_every_pod() {
    use crate::app::{Action, update};
    let mut a = app();
    update(&mut a, Action::TogglePendingOnly);
    assert_eq!(names(&a), ["web-2", "etl-1", "batch-1", "gated-1"]);
    assert!(a.pod_rows.pods(&a, 0..a.pod_rows.len()).all(|p| p.is_pending()));
    assert_eq!(a.pod_rows.pending(), 4);
    update(&mut a, Action::TogglePendingOnly);
    assert_eq!(names(&a).len(), 6);
}

#[test]
fn r_keeps_the_selected_pods_reason_whatever_its_node_count_and_r_again_every_pod() {
    use crate::app::{Action, update};
    let mut a = failing();
    let all = names(&a).len();
    select(&mut a, "cpu-000006");
    update(&mut a, Action::SameReason);
    assert_eq!(a.pods.reason, Some(ReasonFilter::Same("Insufficient cpu".into())));
    assert_eq!(names(&a), ["cpu-000000", "cpu-000006"]);
    assert_eq!(
        names(&a)[a.pods.selected],
        "cpu-000006",
        "the selection stays on the pod"
    );
    assert_eq!(
        a.pods.reason.as_ref().map(ReasonFilter::describe).as_deref(),
        Some("reason = Insufficient cpu")
    );
    update(&mut a, Action::SameReason);
    assert_eq!(a.pods.reason, None);
    assert_eq!(names(&a).len(), all);
    assert_eq!(names(&a)[a.pods.selected], "cpu-000006");
    // a gated pod: every pod held by the same gate
    select(&mut a, "gate-000003");
    update(&mut a, Action::SameReason);
    assert_eq!(names(&a), ["gate-000003", "gate-000009"]);
    // Esc clears it as it clears the search
    update(&mut a, Action::Cancel);
    assert_eq!(names(&a).len(), all);
}

#[test]
fn reason_command_filters_by_a_substring_and_alone_clears() {
    use crate::app::{Action, update};
    let mut a = failing();
    let all = names(&a).len();
    let command = |a: &mut App, text: &str| {
        update(a, Action::CommandStart);
        for c in text.chars() {
            update(a, Action::Input(c));
        }
        update(a, Action::Submit);
    };
    command(&mut a, "reason insufficient");
    assert_eq!(a.pods.reason, Some(ReasonFilter::Text("insufficient".into())));
    assert_eq!(
        names(&a),
        ["cpu-000000", "cpu-000006", "memory-000001", "memory-000007"]
    );
    command(&mut a, "reason held before");
    assert_eq!(names(&a), ["gate-000003", "gate-000009"]);
    command(&mut a, "reason on node-");
    assert!(names(&a).len() > 10, "bound pods' column is `on NODE`");
    command(&mut a, "reason");
    assert_eq!(a.pods.reason, None);
    assert_eq!(names(&a).len(), all);
}

/// Explanations arriving while the list is sorted by reason do not re-sort it each time:
/// the next tick (or key) applies them all at once.
#[test]
fn a_burst_of_explanations_re_sorts_by_reason_once_at_the_next_tick() {
    use crate::app::{Action, update};
    let mut a = failing();
    update(&mut a, Action::SortPods(SortKey::Reason));
    let at = a.pod_rows.reasons_at();
    assert_eq!(at, Some(a.reasons));
    let before = a.pod_rows.order.as_ptr();
    let pods: Vec<_> = ["cpu-000000", "memory-000001", "gate-000003"]
        .iter()
        .map(|n| crate::model::ObjectKey::new("bench", *n))
        .collect();
    let generation = a.generation;
    for p in &pods {
        update(
            &mut a,
            Action::Explained {
                generation,
                pod: p.clone(),
                result: Err("a failure".into()),
            },
        );
        assert_eq!(a.pod_rows.order.as_ptr(), before, "not re-sorted at each arrival");
        assert!(a.pod_rows.is_current(&a));
    }
    assert_eq!(a.pod_rows.reasons_at(), at);
    update(&mut a, Action::Tick { now: 1 });
    assert_eq!(a.pod_rows.reasons_at(), Some(a.reasons));
    let mut fresh = PodRows::default();
    fresh.refresh(&a, true);
    assert_eq!(a.pod_rows.order, fresh.order);
    // the three failures are together now, in queue order (one priority, no creation time:
    // by name)
    let n = names(&a);
    let i = n.iter().position(|x| x == "cpu-000000").expect("listed");
    assert_eq!(n[i..i + 3], ["cpu-000000", "gate-000003", "memory-000001"]);
}

/// The sort's borrowed key orders and filters as the owned one does.
#[test]
fn the_borrowed_sort_key_agrees_with_the_reason_key() {
    let a = failing();
    let pods: Vec<&Pod> = a.cluster.pods.iter().map(|p| &**p).collect();
    for p in &pods {
        let (g, k, n) = reason_key(&a, p);
        let (g2, _, n2) = sort_key(&a, p);
        assert_eq!((g, n), (g2, n2));
        assert!(reason_keeps(&a, p, &ReasonFilter::Same(k.into_owned())), "{}", p.key);
    }
    for w in pods.windows(2) {
        let (x, y) = (reason_key(&a, w[0]), reason_key(&a, w[1]));
        let (u, v) = (sort_key(&a, w[0]), sort_key(&a, w[1]));
        assert_eq!(x.cmp(&y), u.cmp(&v), "{} {}", w[0].key, w[1].key);
    }
}
