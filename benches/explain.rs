//! The performance targets of the engine issue, on a generated cluster (5,000 nodes, 100,000
//! bound pods, one pending pod with node affinity, pod anti-affinity and a spread constraint):
//! load from JSON (≤ 2 s) and YAML (≤ 6 s), explain with the full trace (≤ 25 ms), peak memory
//! (≤ 1 GiB). Run with `cargo bench --features bench --bench explain`; `KSCHED_BENCH_NODES` / `KSCHED_BENCH_PODS`
//! change the size.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use kschedtui::engine::{self, Release, Snapshot};
use kschedtui::model::ObjectKey;
use kschedtui::source::file;
use kschedtui::source::generate::{GenSpec, PENDING_POD, generate};

/// The allocator the binary uses (src/main.rs), so the figures are the binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn size(var: &str, default: usize) -> usize {
    std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn peak_rss_mib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb / 1024)
}

fn bench(c: &mut Criterion) {
    let spec = GenSpec::new(size("KSCHED_BENCH_NODES", 5000), size("KSCHED_BENCH_PODS", 100_000), 42);
    let value = generate(spec);
    let json_text = serde_json::to_string(&value).expect("json");
    let yaml_text = serde_yaml::to_string(&value).expect("yaml");
    drop(value);
    eprintln!(
        "generated {} nodes, {} pods: JSON {} MiB, YAML {} MiB",
        spec.nodes,
        spec.pods,
        json_text.len() >> 20,
        yaml_text.len() >> 20
    );
    let mut g = c.benchmark_group("load");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("json", |b| {
        b.iter(|| file::load_str("bench.json", &json_text).expect("load"))
    });
    g.bench_function("yaml", |b| {
        b.iter(|| file::load_str("bench.yaml", &yaml_text).expect("load"))
    });
    g.finish();
    drop(yaml_text);
    let t = Instant::now();
    let cluster = file::load_str("bench.json", &json_text).expect("load");
    drop(json_text);
    // KSCHEDTUI_BENCH_VERSION=1.30 measures another release (default: the newest)
    let version: Release = std::env::var("KSCHEDTUI_BENCH_VERSION")
        .ok()
        .map_or(Release::NEWEST, |v| {
            v.parse().expect("KSCHEDTUI_BENCH_VERSION: a release like 1.30")
        });
    eprintln!("scheduler version {version}");
    let snap = Snapshot::new(Arc::new(cluster), version);
    eprintln!("load + snapshot: {:?}", t.elapsed());
    let profiles = engine::build_profiles(None, version).expect("profiles");
    let key = ObjectKey::new(PENDING_POD.0, PENDING_POD.1);
    let ex = engine::explain(&snap, &profiles, &key).expect("explain");
    eprintln!(
        "explained {}: {} feasible of {} nodes; not implemented: {:?}",
        key,
        ex.filter.iter().filter(|f| f.feasible).count(),
        ex.node_count,
        ex.notes
    );
    let mut g = c.benchmark_group("explain");
    g.sample_size(20);
    g.bench_function("pending pod, full trace", |b| {
        b.iter(|| engine::explain(&snap, &profiles, &key).expect("explain"))
    });
    g.finish();
    if let Some(mib) = peak_rss_mib() {
        eprintln!("peak memory (VmHWM): {mib} MiB");
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
