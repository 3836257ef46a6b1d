//! The scale figures of the performance issue, per cluster size, each measured in a fresh
//! child process (so peak memory is that size's alone): load of a generated JSON file with
//! the snapshot built, the first explain of bench/pending-0, the warm explain (median), peak
//! memory (VmHWM) after load + explain, user and system CPU time, `explain` of every pending
//! pod of a cluster with failing pods of every kind (pods/s), `simulate` of pending pods
//! that fit (pods/s, all nodes scored), and `fit` of a 1,000-replica Deployment (one replica
//! a node by required anti-affinity) with its answer, then with `--max` (issue 49's targets at
//! 5k nodes / 100k pods: 2 s and 5 s).
//!
//! `cargo bench --bench scale` runs 1k/20k, 5k/100k and 20k/400k; `KSCHED_BENCH_65K=1` adds
//! 65k/1M; `KSCHED_BENCH_SIZES=1000x20000,5000x100000` picks sizes, `KSCHED_BENCH_ONLY=explain`
//! (or all-pending, simulate, fit; comma-separated) picks measurements. `KSCHED_BENCH_SIM=N` sets
//! the pending pods of the simulate run (default: 2 per node, at most 10,000);
//! `KSCHED_BENCH_FAILING=N` the failing pods of the all-pending run (default 1,000);
//! `KSCHED_BENCH_SERIAL=1` has explain and all-pending walk the nodes on one thread.
//! Generated files are kept in target/bench-data.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kschedtui::engine::simulate::{Detail, FinalState, SimOptions, simulate};
use kschedtui::engine::{self, Release, Snapshot};
use kschedtui::model::ObjectKey;
use kschedtui::source::file;
use kschedtui::source::generate::{GenSpec, PENDING_POD, generate};

/// The allocator the binary uses (src/main.rs), so the figures are the binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const CHILD: &str = "KSCHED_SCALE_CHILD";

fn env_usize(var: &str) -> Option<usize> {
    std::env::var(var).ok().and_then(|v| v.parse().ok())
}

fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// User and system CPU seconds of this process (/proc/self/stat, in USER_HZ = 100 ticks).
fn cpu_times() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0) / 100.0;
    // after the command: state is field 0, utime field 11, stime field 12
    (tick(11), tick(12))
}

/// Minor page faults of this process so far (/proc/self/stat field minflt).
fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    // after the command: state is field 0, minflt field 7
    after
        .split_whitespace()
        .nth(7)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn data_file(spec: GenSpec) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).expect("target/bench-data");
    let path = dir.join(format!(
        "g{}-{}-p{}-f{}-s{}.json",
        spec.nodes, spec.pods, spec.pending, spec.failing, spec.seed
    ));
    if !path.exists() {
        let text = serde_json::to_string(&generate(spec)).expect("json");
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, text).expect("write bench data");
        std::fs::rename(&tmp, &path).expect("rename bench data");
    }
    path
}

fn release() -> Release {
    std::env::var("KSCHEDTUI_BENCH_VERSION")
        .ok()
        .map_or(Release::NEWEST, |v| {
            v.parse().expect("KSCHEDTUI_BENCH_VERSION: a release like 1.30")
        })
}

/// One measurement in this process; prints `key=value` pairs on one line.
fn child(mode: &str, path: &Path) {
    let version = release();
    let t = Instant::now();
    let mut warnings = Vec::new();
    let (objects, pods) = file::read_objects_and_pods(path, &mut warnings).expect("read");
    let read = t.elapsed();
    let hwm_read = status_kib("VmHWM:") / 1024;
    let faults_read = minor_faults();
    let cluster = kschedtui::model::Cluster::build_with_pods(objects, pods).expect("build");
    let built = t.elapsed();
    let hwm_built = status_kib("VmHWM:") / 1024;
    let faults_built = minor_faults();
    let profiles = engine::build_profiles(None, version).expect("profiles");
    match mode {
        "explain" => {
            let mut snap = Snapshot::new(Arc::new(cluster), version);
            snap.serial = serial();
            let load = t.elapsed();
            println!(
                "phases: read_ms={:.0} build_ms={:.0} snapshot_ms={:.0} peak_mib after read={hwm_read} build={hwm_built} snapshot={} (rss {}) page faults in read={faults_read} build={} snapshot={}",
                ms(read),
                ms(built - read),
                ms(load - built),
                status_kib("VmHWM:") / 1024,
                status_kib("VmRSS:") / 1024,
                faults_built - faults_read,
                minor_faults() - faults_built,
            );
            let decoded_load = kschedtui::model::stored::decodes();
            let key = ObjectKey::new(PENDING_POD.0, PENDING_POD.1);
            let faults = minor_faults();
            let t = Instant::now();
            let ex = engine::explain(&snap, &profiles, &key).expect("explain");
            let first = t.elapsed();
            let first_faults = minor_faults() - faults;
            let decoded_explain = kschedtui::model::stored::decodes() - decoded_load;
            assert!(ex.node_count > 0);
            let peak = status_kib("VmHWM:") / 1024;
            let (user, sys) = cpu_times();
            let wall = load + first;
            let mut warm = Vec::new();
            let faults = minor_faults();
            let budget = Instant::now();
            while warm.len() < 10 || (warm.len() < 200 && budget.elapsed() < Duration::from_secs(3)) {
                let t = Instant::now();
                let ex = engine::explain(&snap, &profiles, &key).expect("explain");
                warm.push(t.elapsed());
                drop(ex);
            }
            let warm_faults = (minor_faults() - faults) / warm.len() as u64;
            warm.sort();
            println!(
                "load_ms={:.0} first_ms={:.1} warm_ms={:.1} warm_n={} peak_mib={peak} user_s={user:.2} sys_s={sys:.2} wall_s={:.2} faults_first={first_faults} faults_warm={warm_faults} decoded_load={decoded_load} decoded_explain={decoded_explain}",
                ms(load),
                ms(first),
                ms(warm[warm.len() / 2]),
                warm.len(),
                wall.as_secs_f64()
            );
        }
        "all-pending" => {
            let mut snap = Snapshot::new(Arc::new(cluster), version);
            snap.serial = serial();
            let keys: Vec<ObjectKey> = snap
                .cluster
                .pods
                .iter()
                .filter(|p| p.is_pending())
                .map(|p| p.key.clone())
                .collect();
            let t = Instant::now();
            for k in &keys {
                let ex = engine::explain(&snap, &profiles, k).expect("explain");
                drop(ex);
            }
            let secs = t.elapsed().as_secs_f64();
            println!(
                "pods={} secs={secs:.2} pods_per_s={:.0}",
                keys.len(),
                keys.len() as f64 / secs
            );
        }
        "simulate" => {
            let t = Instant::now();
            let opts = SimOptions {
                detail: Detail::Summary,
                ..SimOptions::default()
            };
            let report = simulate(cluster, &profiles, version, opts);
            let secs = t.elapsed().as_secs_f64();
            let bound = report
                .pods
                .iter()
                .filter(|(k, s)| k.name.starts_with("fit-") && matches!(s, FinalState::Bound { .. }))
                .count();
            println!(
                "bound={bound} attempts={} secs={secs:.2} pods_per_s={:.0}",
                report.events.len(),
                bound as f64 / secs
            );
        }
        "fit" => {
            let manifests = kschedtui::source::manifests::read_str("bench-deployment.yaml", FIT_DEPLOYMENT, "bench")
                .expect("manifests");
            let features = kschedtui::engine::Features::from(version);
            let load = t.elapsed();
            let run = |max: bool| {
                let opts = kschedtui::engine::fit::FitOptions {
                    max,
                    ..Default::default()
                };
                let t = Instant::now();
                let report = kschedtui::engine::fit::fit(cluster.clone(), &manifests, &profiles, &features, &opts);
                let placed = t.elapsed();
                let answer = kschedtui::explain::fit::Answer::new(
                    &report,
                    &features,
                    &profiles,
                    true,
                    "bench".into(),
                    "bench".into(),
                    false,
                );
                let json = kschedtui::explain::fit::to_json(&answer);
                let total = t.elapsed();
                (report, json, placed, total)
            };
            let (report, json, placed, total) = run(false);
            let w = &report.workloads[0];
            println!(
                "load_ms={:.0} scheduled={} of {} place_s={:.2} with_answer_s={:.2} fixes={}",
                ms(load),
                w.scheduled(),
                w.replicas,
                placed.as_secs_f64(),
                total.as_secs_f64(),
                json["workloads"][0]["fixes"].as_array().map_or(0, Vec::len)
            );
            drop((report, json));
            let (report, _, placed, total) = run(true);
            let m = report.workloads[0].max.clone().expect("max");
            println!(
                "  --max: max={} method={} placements={} place_s={:.2} with_answer_s={:.2} peak_mib={}",
                m.max,
                m.method.name(),
                m.placements,
                placed.as_secs_f64(),
                total.as_secs_f64(),
                status_kib("VmHWM:") / 1024
            );
        }
        other => panic!("unknown child mode {other}"),
    }
}

/// The `fit` measurement's workload: 1,000 replicas of a web server, one a node (required
/// anti-affinity on the hostname), so `--max` is bounded by the nodes with room.
const FIT_DEPLOYMENT: &str = r"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-next, namespace: bench}
spec:
  replicas: 1000
  selector: {matchLabels: {app: web-next}}
  template:
    metadata: {labels: {app: web-next}}
    spec:
      containers: [{name: web, image: web:2, resources: {requests: {cpu: 500m, memory: 512Mi}}}]
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {labelSelector: {matchLabels: {app: web-next}}, topologyKey: kubernetes.io/hostname}
";

/// `KSCHED_BENCH_SERIAL=1`: Filter and Score walk the nodes on one thread (to compare).
fn serial() -> bool {
    std::env::var("KSCHED_BENCH_SERIAL").is_ok_and(|v| v == "1")
}

fn run_child(mode: &str, path: &Path) -> String {
    let out = Command::new(std::env::current_exe().expect("current_exe"))
        .env(CHILD, format!("{mode}:{}", path.display()))
        .output()
        .expect("spawn the measuring child");
    assert!(
        out.status.success(),
        "child {mode} {} failed: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn sizes() -> Vec<(usize, usize)> {
    if let Ok(s) = std::env::var("KSCHED_BENCH_SIZES") {
        return s
            .split(',')
            .filter_map(|p| {
                let (n, m) = p.split_once('x')?;
                Some((n.trim().parse().ok()?, m.trim().parse().ok()?))
            })
            .collect();
    }
    let mut v = vec![(1000, 20_000), (5000, 100_000), (20_000, 400_000)];
    if std::env::var("KSCHED_BENCH_65K").is_ok_and(|v| v == "1") {
        v.push((65_000, 1_000_000));
    }
    v
}

fn main() {
    if let Ok(spec) = std::env::var(CHILD) {
        let (mode, path) = spec.split_once(':').expect("mode:path");
        child(mode, Path::new(path));
        return;
    }
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing useful: only
    // `cargo bench` measures.
    if !std::env::args().any(|a| a == "--bench") {
        println!("scale: run with `cargo bench --bench scale`");
        return;
    }
    println!("scheduler version {}", release());
    // KSCHED_BENCH_ONLY=explain|all-pending|simulate|fit: one measurement per size.
    let only = std::env::var("KSCHED_BENCH_ONLY").unwrap_or_default();
    let wanted = |m: &str| only.is_empty() || only.split(',').any(|o| o == m);
    for (nodes, pods) in sizes() {
        let base = data_file(GenSpec::new(nodes, pods, 42));
        if wanted("explain") {
            println!(
                "{nodes} nodes / {pods} pods, explain bench/pending-0: {}",
                run_child("explain", &base)
            );
        }
        if wanted("fit") {
            println!(
                "{nodes} nodes / {pods} pods, fit of a 1000-replica Deployment: {}",
                run_child("fit", &base)
            );
        }
        if !wanted("all-pending") && !wanted("simulate") {
            continue;
        }
        let failing = env_usize("KSCHED_BENCH_FAILING").unwrap_or(1000);
        let f = data_file(GenSpec {
            failing,
            ..GenSpec::new(nodes, pods, 42)
        });
        if wanted("all-pending") {
            println!(
                "{nodes} nodes / {pods} pods, explain --all-pending ({failing} failing + 1): {}",
                run_child("all-pending", &f)
            );
        }
        if !wanted("simulate") {
            continue;
        }
        let pending = env_usize("KSCHED_BENCH_SIM").unwrap_or((2 * nodes).min(10_000));
        let s = data_file(GenSpec {
            pending,
            ..GenSpec::new(nodes, pods, 42)
        });
        println!(
            "{nodes} nodes / {pods} pods, simulate {pending} pending pods that fit: {}",
            run_child("simulate", &s)
        );
    }
}
