//! The TUI's speed on a generated cluster (5,000 nodes, 100,000 pods): one full frame of the pod
//! list rendered into ratatui's TestBackend (target ≤ 5 ms), and one key press through `update`
//! plus the next frame: `j` (target ≤ 16 ms) and typing a character of the pod search (target
//! ≤ 16 ms); and, for the record, a change of the sort order (every pod sorted again: `s`, the
//! column sorts `C`, `O`, `R`), Ctrl-z (pending only) and `r` (the same reason). Run with
//! `cargo bench --features bench --bench tui`; `KSCHED_BENCH_NODES` / `KSCHED_BENCH_PODS` change the size.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use kschedtui::app::pod_list::SortKey;
use kschedtui::app::{Action, App, Load, Loaded, SourceInfo, SourceKind, load_sync, update};
use kschedtui::source::generate::{GenSpec, generate};
use kschedtui::tui::theme;
use kschedtui::tui::view::{ViewState, render};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// The allocator the binary uses (src/main.rs), so the figures are the binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The terminal size measured (a common full-screen terminal).
const SIZE: (u16, u16) = (160, 48);

fn size(var: &str, default: usize) -> usize {
    std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// An app on the bench file, not loaded yet, its clock set.
fn new_app() -> App {
    let mut app = App::new(
        SourceInfo {
            kind: SourceKind::Snapshot,
            name: "bench.json".into(),
        },
        false,
    );
    update(&mut app, Action::Tick { now: 1_714_557_600 });
    app
}

/// The UI thread's share of the first screen: from the loaded cluster arriving (the load runs
/// beside the loading screen) to the pod list's first frame, explanations still to come.
fn first_list_frame(app: &App, text: &str, theme: &kschedtui::tui::theme::Theme, term: &mut Terminal<TestBackend>) {
    let cluster = kschedtui::source::file::load_str("bench.json", text).expect("fixture");
    let profiles = kschedtui::engine::build_profiles(None, &*app.features).expect("profiles");
    let mut fresh = new_app();
    let loaded = Loaded {
        cluster,
        profiles,
        features: app.features.clone(),
    };
    let t = Instant::now();
    let effects = update(&mut fresh, Action::Loaded(Box::new(Ok(loaded))));
    let updated = t.elapsed();
    let mut view = ViewState::default();
    term.draw(|f| render(&fresh, theme, &mut view, f)).expect("draw");
    eprintln!(
        "loaded -> first pod list frame: update {:.1} ms, frame {:.1} ms ({} explain job(s) started)",
        updated.as_secs_f64() * 1e3,
        (t.elapsed() - updated).as_secs_f64() * 1e3,
        effects.len()
    );
}

fn bench(c: &mut Criterion) {
    let spec = GenSpec::new(size("KSCHED_BENCH_NODES", 5000), size("KSCHED_BENCH_PODS", 100_000), 42);
    let text = serde_json::to_string(&generate(spec)).expect("json");
    let mut app = new_app();
    let theme = theme::load(None).expect("default theme").0;
    let mut term = Terminal::new(TestBackend::new(SIZE.0, SIZE.1)).expect("terminal");
    first_list_frame(&app, &text, &theme, &mut term);
    let t = Instant::now();
    load_sync(
        &mut app,
        kschedtui::source::file::load_str("bench.json", &text).expect("fixture"),
    );
    drop(text);
    assert_eq!(app.load, Load::Ready, "the generated cluster loads");
    eprintln!(
        "loaded and explained {} nodes, {} pods ({} pending) in {:?}",
        app.cluster.nodes.len(),
        app.cluster.pods.len(),
        app.pending_count(),
        t.elapsed()
    );
    let mut view = ViewState::default();
    let mut frame = |app: &App, view: &mut ViewState| {
        term.draw(|f| render(app, &theme, view, f)).expect("draw");
    };
    frame(&app, &mut view);

    let mut g = c.benchmark_group("tui");
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    g.bench_function("frame: pod list", |b| b.iter(|| frame(&app, &mut view)));
    g.bench_function("key j + frame", |b| {
        b.iter(|| {
            if app.pods.selected + 1 >= app.cluster.pods.len() {
                update(&mut app, Action::Top);
            }
            update(&mut app, Action::Down);
            frame(&app, &mut view);
        });
    });
    g.bench_function("key s (sort) + frame", |b| {
        b.iter(|| {
            update(&mut app, Action::CycleSort);
            frame(&app, &mut view);
        });
    });
    // a column sort (k9s Shift+letter): the same key again reverses, so every press sorts again
    for (name, key) in [
        ("key C (sort by cpu) + frame", SortKey::Cpu),
        ("key O (sort by name) + frame", SortKey::Name),
        ("key R (sort by reason) + frame", SortKey::Reason),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                update(&mut app, Action::SortPods(key));
                frame(&app, &mut view);
            });
        });
    }
    g.bench_function("Ctrl-z (pending only, again every pod) + frame", |b| {
        b.iter(|| {
            update(&mut app, Action::TogglePendingOnly);
            frame(&app, &mut view);
        });
    });
    if app.pods.pending_only {
        update(&mut app, Action::TogglePendingOnly);
    }
    update(&mut app, Action::Top);
    g.bench_function("key r (same reason, again every reason) + frame", |b| {
        b.iter(|| {
            update(&mut app, Action::SameReason);
            frame(&app, &mut view);
        });
    });
    app.pods.reason = None;
    update(&mut app, Action::SortPods(SortKey::Queue));
    while app.pods.sort != SortKey::Queue {
        update(&mut app, Action::CycleSort);
    }
    update(&mut app, Action::Top);
    update(&mut app, Action::SearchStart);
    g.bench_function("key filter char + frame", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                // the first character of a search: every pod is matched again
                let t = Instant::now();
                update(&mut app, Action::Input('w'));
                frame(&app, &mut view);
                spent += t.elapsed();
                update(&mut app, Action::Backspace);
                frame(&app, &mut view);
            }
            spent
        });
    });
    g.bench_function("key second filter char + frame", |b| {
        b.iter_custom(|iters| {
            update(&mut app, Action::Input('w'));
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                update(&mut app, Action::Input('e'));
                frame(&app, &mut view);
                spent += t.elapsed();
                update(&mut app, Action::Backspace);
                frame(&app, &mut view);
            }
            update(&mut app, Action::Backspace);
            spent
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
