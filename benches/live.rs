//! A live cluster against the same cluster from its file (issue 52): a generated cluster is
//! served by the integration tests' API server (`tests/integration/apiserver.rs`: paged lists
//! with continue tokens and resourceVersions, then watches), and the release binary runs
//! `explain -A bench/pending-0 -o json` against it and `explain --snapshot FILE -A
//! bench/pending-0 -o json` against its file, each in a fresh process: time to the first byte
//! of the explanation, whole run, peak RSS (GNU time's `%M`). Beside them, the time a plain
//! client takes to read every list kschedtui reads, page by page at the same page size
//! (nothing decoded: the server's share), and the watch: pod events decoded and applied to the
//! live store, and the cluster rebuilt from it, in this process.
//!
//! The served objects are what a real API server holds: uid, resourceVersion,
//! creationTimestamp, owner references, the defaults admission adds to a pod's spec, a running
//! pod's status, a node's conditions and info, and managedFields (one entry per manager, its
//! fieldsV1 mirroring the fields it set, as kube-apiserver records them). The file holds the
//! same objects without managedFields, as `kschedtui snapshot` writes them.
//!
//! `cargo bench --bench live` runs 1k nodes / 20k pods and 5k / 100k, three rounds each.
//! `KSCHED_LIVE_SIZES=1000x20000,20000x400000` picks sizes, `KSCHED_LIVE_RUNS=N` rounds,
//! `KSCHED_LIVE_BINS=before=/path/a,after=/path/b` compares binaries run interleaved (round
//! by round, live then file), `KSCHED_LIVE_MANAGED=0` serves no managedFields,
//! `KSCHED_LIVE_STREAM=1` serves as a 1.34 server that streams lists (kschedtui then reads each
//! kind with one watch, `sendInitialEvents=true`; the raw client still reads pages),
//! `KSCHED_LIVE_WATCH=N` sends N pod events (default 2,000; 0: none), `KSCHED_LIVE_TICKS=N`
//! measures N ticks of the TUI after one of them each (default 60, a quarter each way),
//! `KSCHED_LIVE_ONLY_WATCH=1` measures the watch alone (no binary run), `KSCHED_LIVE_SERVE=S`
//! only serves each size for S seconds (its kubeconfig printed), for profiling by hand. Files
//! are kept in target/bench-data. Needs Linux and GNU time (`/usr/bin/time`) for the peaks.

#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

#[allow(dead_code, unreachable_pub)]
#[path = "../tests/integration/apiserver.rs"]
mod apiserver;
#[allow(dead_code)]
#[path = "../tests/integration/scratch.rs"]
mod scratch;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kschedtui::model::kinds::Kind;
use kschedtui::source::generate::{GenSpec, PENDING_POD, generate};
use serde_json::{Map, Value, json};

use apiserver::{ApiServer, Step, TOKEN};

/// `KSCHED_LIVE_STREAM=1`: the server streams lists.
fn streaming() -> bool {
    std::env::var("KSCHED_LIVE_STREAM").is_ok_and(|v| v == "1")
}

/// The allocator the binary uses, so the in-process figures are the binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// kschedtui's page size (`WatchOptions::default().page_size`).
const PAGE: usize = 500;

fn env_usize(var: &str) -> Option<usize> {
    std::env::var(var).ok().and_then(|v| v.parse().ok())
}

fn sizes() -> Vec<(usize, usize)> {
    let spec = std::env::var("KSCHED_LIVE_SIZES").unwrap_or_else(|_| "1000x20000,5000x100000".into());
    spec.split(',')
        .filter_map(|s| {
            let (n, p) = s.split_once('x')?;
            Some((n.trim().parse().ok()?, p.trim().parse().ok()?))
        })
        .collect()
}

/// The binaries to compare: `name=path` pairs, or this build's.
fn binaries() -> Vec<(String, PathBuf)> {
    match std::env::var("KSCHED_LIVE_BINS") {
        Ok(v) if !v.is_empty() => v
            .split(',')
            .map(|b| match b.split_once('=') {
                Some((n, p)) => (n.to_string(), PathBuf::from(p)),
                None => (b.to_string(), PathBuf::from(b)),
            })
            .collect(),
        _ => vec![("kschedtui".into(), PathBuf::from(env!("CARGO_BIN_EXE_kschedtui")))],
    }
}

// ---------------------------------------------------------------------------------------------
// The cluster as a real server holds it

/// A deterministic uid for object `i` of kind number `k`.
fn uid(k: usize, i: usize) -> String {
    format!(
        "{k:08x}-{:04x}-4{:03x}-8{:03x}-{i:012x}",
        i >> 16,
        (i >> 4) & 0xfff,
        i & 0xfff
    )
}

fn timestamp(i: usize) -> String {
    let s = i % 86_400;
    format!(
        "2026-03-{:02}T{:02}:{:02}:{:02}Z",
        1 + (i / 86_400) % 28,
        s / 3600,
        (s / 60) % 60,
        s % 60
    )
}

/// The fieldsV1 of a manager that set `v`: every field as `f:name`, list items with a name as
/// `k:{"name":...}`, as kube-apiserver records them.
fn fields_v1(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = Map::new();
            if !m.is_empty() {
                out.insert(".".into(), json!({}));
            }
            for (k, v) in m {
                out.insert(format!("f:{k}"), fields_v1(v));
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            let mut out = Map::new();
            for it in items {
                match it.get("name").and_then(Value::as_str) {
                    Some(n) => {
                        out.insert(format!("k:{{\"name\":\"{n}\"}}"), fields_v1(it));
                    }
                    None => {
                        out.insert(format!("v:{it}"), json!({}));
                    }
                }
            }
            Value::Object(out)
        }
        _ => json!({}),
    }
}

fn managed(manager: &str, operation: &str, sub: Option<&str>, time: &str, fields: Value) -> Value {
    let mut e = json!({"manager": manager, "operation": operation, "apiVersion": "v1", "time": time,
        "fieldsType": "FieldsV1", "fieldsV1": fields});
    if let Some(s) = sub {
        e["subresource"] = json!(s);
    }
    e
}

/// Gives object `i` (kind number `k`) what a real server adds; `managed_fields`: with them.
fn realize(v: &mut Value, k: usize, i: usize, rv: usize, managed_fields: bool) {
    let kind = v["kind"].as_str().unwrap_or("").to_string();
    let time = timestamp(i);
    let md = v["metadata"].as_object_mut().unwrap();
    md.insert("uid".into(), json!(uid(k, i)));
    md.insert("resourceVersion".into(), json!(rv.to_string()));
    md.insert("creationTimestamp".into(), json!(time));
    if kind == "Pod" && v["spec"]["nodeName"].is_string() {
        let app = v["metadata"]["labels"]["app"].as_str().unwrap_or("app").to_string();
        let hash = v["metadata"]["labels"]["pod-template-hash"]
            .as_str()
            .unwrap_or("0")
            .to_string();
        let rs = format!("{app}-{hash}");
        v["metadata"]["generateName"] = json!(format!("{rs}-"));
        v["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs,
            "uid": uid(99, i % 97), "controller": true, "blockOwnerDeletion": true}]);
        let spec = v["spec"].as_object_mut().unwrap();
        for (k, val) in [
            ("dnsPolicy", json!("ClusterFirst")),
            ("enableServiceLinks", json!(true)),
            ("preemptionPolicy", json!("PreemptLowerPriority")),
            ("priority", json!(0)),
            ("restartPolicy", json!("Always")),
            ("schedulerName", json!("default-scheduler")),
            ("securityContext", json!({})),
            ("serviceAccount", json!("default")),
            ("serviceAccountName", json!("default")),
            ("terminationGracePeriodSeconds", json!(30)),
            (
                "tolerations",
                json!([
                    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
                ]),
            ),
            (
                "volumes",
                json!([{"name": format!("kube-api-access-{}", &uid(7, i)[..5]), "projected": {"defaultMode": 420, "sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                    {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                    {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}
                ]}}]),
            ),
        ] {
            spec.insert(k.into(), val);
        }
        let vol = v["spec"]["volumes"][0]["name"].clone();
        let c = &mut v["spec"]["containers"][0];
        c["imagePullPolicy"] = json!("IfNotPresent");
        c["terminationMessagePath"] = json!("/dev/termination-log");
        c["terminationMessagePolicy"] = json!("File");
        c["ports"] = json!([{"containerPort": 8080, "name": "http", "protocol": "TCP"}]);
        c["env"] = json!([{"name": "APP", "value": app}, {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}]);
        c["volumeMounts"] =
            json!([{"name": vol, "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]);
        let image = c["image"].clone();
        let ip = format!("10.{}.{}.{}", (i >> 16) & 255, (i >> 8) & 255, i & 255);
        let host = format!("192.168.{}.{}", (i >> 8) & 255, i & 255);
        let cond = |t: &str| json!({"type": t, "status": "True", "lastProbeTime": null, "lastTransitionTime": time});
        v["status"] = json!({
            "phase": "Running",
            "conditions": [cond("PodReadyToStartContainers"), cond("Initialized"), cond("Ready"), cond("ContainersReady"), cond("PodScheduled")],
            "hostIP": host, "hostIPs": [{"ip": host}], "podIP": ip, "podIPs": [{"ip": ip}],
            "startTime": time, "qosClass": "Burstable",
            "containerStatuses": [{"name": "main", "state": {"running": {"startedAt": time}}, "lastState": {},
                "ready": true, "restartCount": 0, "image": image, "imageID": format!("registry.example.com/{app}@sha256:{:064x}", i % 3),
                "containerID": format!("containerd://{:064x}", i), "started": true,
                "volumeMounts": [{"name": vol, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true, "recursiveReadOnly": "Disabled"}]}]
        });
        if managed_fields {
            let mut created = v.clone();
            let m = created.as_object_mut().unwrap();
            m.remove("status");
            m.remove("apiVersion");
            m.remove("kind");
            let meta = m["metadata"].as_object_mut().unwrap();
            for k in ["name", "namespace", "uid", "resourceVersion", "creationTimestamp"] {
                meta.remove(k);
            }
            let status = json!({"status": v["status"].clone()});
            v["metadata"]["managedFields"] = json!([
                managed("kube-controller-manager", "Update", None, &time, fields_v1(&created)),
                managed("kubelet", "Update", Some("status"), &time, fields_v1(&status)),
            ]);
        }
    } else if kind == "Node" {
        let name = v["metadata"]["name"].as_str().unwrap_or("").to_string();
        let labels = v["metadata"]["labels"].as_object_mut().unwrap();
        for (k, val) in [
            ("beta.kubernetes.io/arch", "amd64"),
            ("beta.kubernetes.io/os", "linux"),
            ("kubernetes.io/arch", "amd64"),
            ("kubernetes.io/os", "linux"),
            ("node.kubernetes.io/instance-type", "m5.2xlarge"),
        ] {
            labels.insert(k.into(), json!(val));
        }
        v["metadata"]["annotations"] = json!({"node.alpha.kubernetes.io/ttl": "0",
            "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            "kubeadm.alpha.kubernetes.io/cri-socket": "unix:///run/containerd/containerd.sock"});
        v["spec"]["podCIDR"] = json!(format!("10.{}.{}.0/24", (i >> 8) & 255, i & 255));
        v["spec"]["podCIDRs"] = json!([format!("10.{}.{}.0/24", (i >> 8) & 255, i & 255)]);
        v["spec"]["providerID"] = json!(format!("aws:///zone/i-{:017x}", i));
        let cond = |t: &str, s: &str, r: &str| {
            json!({"type": t, "status": s, "lastHeartbeatTime": time,
            "lastTransitionTime": time, "reason": r, "message": format!("kubelet has {r}")})
        };
        let st = v["status"].as_object_mut().unwrap();
        st.insert(
            "conditions".into(),
            json!([
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory"),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure"),
                cond("PIDPressure", "False", "KubeletHasSufficientPID"),
                cond("Ready", "True", "KubeletReady")
            ]),
        );
        st.insert(
            "addresses".into(),
            json!([{"type": "InternalIP", "address": format!("192.168.{}.{}", (i >> 8) & 255, i & 255)},
                   {"type": "Hostname", "address": name}]),
        );
        st.insert("daemonEndpoints".into(), json!({"kubeletEndpoint": {"Port": 10250}}));
        st.insert(
            "nodeInfo".into(),
            json!({"machineID": format!("{:032x}", i), "systemUUID": uid(5, i), "bootID": uid(6, i),
                "kernelVersion": "6.8.0-1021-aws", "osImage": "Ubuntu 24.04.1 LTS", "containerRuntimeVersion": "containerd://1.7.24",
                "kubeletVersion": "v1.36.3", "kubeProxyVersion": "", "operatingSystem": "linux", "architecture": "amd64"}),
        );
        if managed_fields {
            let status =
                json!({"status": v["status"].clone(), "metadata": {"labels": v["metadata"]["labels"].clone()}});
            v["metadata"]["managedFields"] = json!([
                managed(
                    "kubelet",
                    "Update",
                    None,
                    &time,
                    fields_v1(&json!({"metadata": {"annotations": v["metadata"]["annotations"].clone()}}))
                ),
                managed("kubelet", "Update", Some("status"), &time, fields_v1(&status)),
            ]);
        }
    }
}

/// The generated cluster as a real server holds it (managedFields on request), and the
/// resourceVersion of its lists.
fn cluster(nodes: usize, pods: usize, managed_fields: bool) -> (Value, usize) {
    let mut list = generate(GenSpec::new(nodes, pods, 42));
    let items = list["items"].as_array_mut().unwrap();
    for (i, it) in items.iter_mut().enumerate() {
        let k = usize::from(it["kind"] == "Node");
        realize(it, k, i, 2 + i, managed_fields);
    }
    let rv = items.len() + 10;
    (list, rv)
}

/// The cluster's file (as `kschedtui snapshot` writes it: no managedFields), made once.
fn file_of(nodes: usize, pods: usize) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("live-v1-{nodes}-{pods}.json"));
    if !path.exists() {
        let (list, _) = cluster(nodes, pods, false);
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, serde_json::to_vec(&list).unwrap()).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
    }
    path
}

// ---------------------------------------------------------------------------------------------
// The server's share: every list read raw

/// The paths kschedtui lists (every kind; events through their field selector).
fn list_paths() -> Vec<(String, Option<&'static str>)> {
    Kind::ALL
        .iter()
        .map(|k| {
            let base = if k.api_version() == "v1" {
                "/api/v1".to_string()
            } else {
                format!("/apis/{}", k.api_version())
            };
            let sel = (*k == Kind::Event).then_some(kschedtui::source::live::kinds::EVENT_FIELD_SELECTOR);
            (format!("{base}/{}", k.plural()), sel)
        })
        .collect()
}

/// One GET on a kept-alive connection: the body.
fn get(sock: &mut TcpStream, target: &str, buf: &mut Vec<u8>) -> Vec<u8> {
    write!(
        sock,
        "GET {target} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {TOKEN}\r\nAccept: application/json\r\n\r\n"
    )
    .unwrap();
    let mut chunk = [0u8; 64 << 10];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = sock.read(&mut chunk).unwrap();
        assert!(n > 0, "the server closed the connection");
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap();
    let total = head_end + 4 + len;
    buf.reserve(total.saturating_sub(buf.len()));
    while buf.len() < total {
        let n = sock.read(&mut chunk).unwrap();
        assert!(n > 0, "the server closed the connection");
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = buf[head_end + 4..total].to_vec();
    buf.drain(..total);
    body
}

/// The continue token of a list page (its metadata comes before its items).
fn continue_token(body: &[u8]) -> Option<String> {
    let head = &body[..body.len().min(1024)];
    let at = head.windows(12).position(|w| w == b"\"continue\":\"")? + 12;
    let end = head[at..].iter().position(|b| *b == b'"')?;
    Some(String::from_utf8_lossy(&head[at..at + end]).into_owned())
}

/// Reads every list page by page: (time, bytes, pages).
fn raw_lists(addr: SocketAddr) -> (Duration, usize, usize) {
    let t = Instant::now();
    let mut sock = TcpStream::connect(addr).unwrap();
    sock.set_nodelay(true).unwrap();
    let mut buf = Vec::new();
    let (mut bytes, mut pages) = (0, 0);
    for (path, sel) in list_paths() {
        let mut token: Option<String> = None;
        loop {
            let mut target = format!("{path}?limit={PAGE}");
            if let Some(s) = sel {
                target.push_str(&format!("&fieldSelector={s}"));
            }
            if let Some(t) = &token {
                target.push_str(&format!("&continue={t}"));
            }
            let body = get(&mut sock, &target, &mut buf);
            bytes += body.len();
            pages += 1;
            token = continue_token(&body);
            if token.is_none() {
                break;
            }
        }
    }
    (t.elapsed(), bytes, pages)
}

// ---------------------------------------------------------------------------------------------
// The binary, in a fresh process

/// One run: time to the first byte of output, whole run, peak RSS in MiB, the output.
struct Run {
    first: f64,
    wall: f64,
    peak_mib: Option<f64>,
    cpu: Option<f64>,
    out: Vec<u8>,
}

fn run(bin: &Path, args: &[String]) -> Run {
    let stats = tempfile::NamedTempFile::new().unwrap();
    let gnu_time = Path::new("/usr/bin/time").exists();
    let mut cmd = if gnu_time {
        let mut c = Command::new("/usr/bin/time");
        c.arg("-f").arg("%M %U %S").arg("-o").arg(stats.path()).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    let t = Instant::now();
    let mut child = cmd
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut e = String::new();
        let _ = stderr.read_to_string(&mut e);
        e
    });
    let mut out = Vec::new();
    let mut chunk = [0u8; 64 << 10];
    let mut first = None;
    loop {
        let n = stdout.read(&mut chunk).unwrap();
        if n == 0 {
            break;
        }
        first.get_or_insert_with(|| t.elapsed());
        out.extend_from_slice(&chunk[..n]);
    }
    let status = child.wait().unwrap();
    let wall = t.elapsed().as_secs_f64();
    let errors = errors.join().unwrap();
    assert!(status.success(), "{} {args:?} failed: {errors}", bin.display());
    let stats = std::fs::read_to_string(stats.path()).unwrap_or_default();
    let nums: Vec<f64> = stats
        .lines()
        .last()
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    Run {
        first: first.map_or(wall, |d| d.as_secs_f64()),
        wall,
        peak_mib: nums.first().map(|k| k / 1024.0),
        cpu: (nums.len() == 3).then(|| nums[1] + nums[2]),
        out,
    }
}

/// An explanation's JSON without what names its source.
fn answer(out: &[u8]) -> Value {
    let mut v: Value = serde_json::from_slice(out).unwrap_or(Value::Null);
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("source");
                m.remove("cluster");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

fn range(v: &[f64], digits: usize) -> String {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.as_slice() {
        [] => "n/a".into(),
        [one] => format!("{one:.digits$}"),
        _ => format!(
            "{:.digits$} ({:.digits$}–{:.digits$})",
            s[s.len() / 2],
            s[0],
            s[s.len() - 1]
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// The watch, in this process

/// Pod events for the watch: `n` bound pods modified (a label changed), resourceVersions
/// after the lists'.
fn pod_events(list: &Value, n: usize, from_rv: usize) -> Vec<Step> {
    let pods: Vec<&Value> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|it| it["kind"] == "Pod" && it["spec"]["nodeName"].is_string())
        .take(n)
        .collect();
    let mut steps: Vec<Step> = pods
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut o = (*p).clone();
            let m = o.as_object_mut().unwrap();
            m.remove("apiVersion");
            m.remove("kind");
            o["metadata"]["resourceVersion"] = json!((from_rv + 1 + i).to_string());
            o["metadata"]["labels"]["bench-generation"] = json!("2");
            Step::Event("MODIFIED", o)
        })
        .collect();
    steps.push(Step::Sleep(600_000));
    steps
}

/// What an event costs the TUI's cluster, measured on the events received.
struct EventCost {
    /// ms each tick after one pod event: the whole cluster built again from the store (the
    /// TUI before issue 52's change), the event applied to the cluster shown (after), the same
    /// while an explanation still reads the cluster shown (so the tick copies it first), and
    /// the event applied to the cluster but the pod list's rows and the pending pods computed
    /// from every pod (the TUI before they were changed pod by pod).
    tick_whole: Vec<f64>,
    tick_applied: Vec<f64>,
    tick_shared: Vec<f64>,
    tick_rows_whole: Vec<f64>,
    /// µs the cluster alone takes in the model: one pod event applied to it (a modification),
    /// a pod deleted, the pod added again; and ms for the whole build.
    modified: Vec<f64>,
    deleted: Vec<f64>,
    added: Vec<f64>,
    whole: Vec<f64>,
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// `ticks` ticks of an app attached to `listed`, each after one of `events`, interleaved:
/// the whole build, the event applied, the event applied to a shared cluster; then the model
/// alone: each event applied to a cluster built from the store, and a pod deleted and added
/// again, against the whole build.
fn event_cost(
    listed: &kschedtui::model::event::ClusterState,
    events: &[kschedtui::model::event::ClusterEvent],
    ticks: usize,
) -> EventCost {
    use kschedtui::app::{Action, App, Attached, SourceInfo, SourceKind, update};
    use kschedtui::model::event::ClusterEvent;
    use kschedtui::model::live_update::Unapplied;
    let mut app = App::new(
        SourceInfo {
            kind: SourceKind::Live,
            name: "bench".into(),
        },
        false,
    );
    let profiles = kschedtui::engine::build_profiles(None, &*app.features).unwrap();
    let features = app.features.clone();
    drop(update(
        &mut app,
        Action::Attached(Box::new(Ok(Attached {
            state: listed.clone(),
            profiles,
            features,
            write_mode: kschedtui::model::write::WriteMode::ReadOnly,
        }))),
    ));
    let mut cost = EventCost {
        tick_whole: Vec::new(),
        tick_applied: Vec::new(),
        tick_shared: Vec::new(),
        tick_rows_whole: Vec::new(),
        modified: Vec::new(),
        deleted: Vec::new(),
        added: Vec::new(),
        whole: Vec::new(),
    };
    let mut held = Vec::new();
    for (i, ev) in events.iter().take(ticks).enumerate() {
        drop(update(&mut app, Action::Cluster(Box::new(ev.clone()))));
        let mode = i % 4;
        if mode != 2 {
            // the explanations of the last tick are done (mode 2 keeps them running)
            held.clear();
        }
        if mode == 0 {
            app.live.as_mut().unwrap().unapplied.set_whole();
        }
        if mode == 3 {
            app.pod_rows = Default::default();
            app.pending = Default::default();
        }
        let t = Instant::now();
        let fx = update(
            &mut app,
            Action::Tick {
                now: 1_800_000_000 + i as i64,
            },
        );
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        [
            &mut cost.tick_whole,
            &mut cost.tick_applied,
            &mut cost.tick_shared,
            &mut cost.tick_rows_whole,
        ][mode]
            .push(ms);
        held = fx;
    }
    drop(held);
    drop(app);
    // the model alone
    let mut state = listed.clone();
    let mut c = state.to_cluster().unwrap();
    let mut apply = |state: &mut kschedtui::model::event::ClusterState, ev: ClusterEvent| {
        let mut u = Unapplied::default();
        u.note(state, &ev);
        state.apply(ev);
        let t = Instant::now();
        state.update_cluster(&mut c, &u).unwrap();
        t.elapsed().as_secs_f64() * 1e6
    };
    for (i, ev) in events.iter().enumerate() {
        cost.modified.push(apply(&mut state, ev.clone()));
        if i < ticks
            && let ClusterEvent::Applied(item) = ev
        {
            cost.deleted
                .push(apply(&mut state, ClusterEvent::Deleted(item.clone())));
            cost.added.push(apply(&mut state, ClusterEvent::Applied(item.clone())));
            let t = Instant::now();
            drop(state.to_cluster().unwrap());
            cost.whole.push(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    cost
}

/// Lists the served cluster in this process, then receives `n` pod events: (load s, events
/// per second decoded and applied, µs an event applied to the store, ms to rebuild the
/// cluster from the store afterwards, what an event costs the TUI's cluster).
fn watch_in_process(kubeconfig: &Path, n: usize, ticks: usize) -> (f64, f64, f64, f64, EventCost) {
    use kschedtui::model::event::ClusterEvent;
    use kschedtui::source::live::config::{ConfigOptions, Environment};
    use kschedtui::source::live::{ConnectOptions, LiveSource};
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let opts = ConnectOptions {
            config: ConfigOptions {
                kubeconfig: Some(kubeconfig.to_path_buf()),
                ..Default::default()
            },
            ..Default::default()
        };
        let src = std::sync::Arc::new(LiveSource::connect(&opts, &Environment::default()).await.unwrap());
        let t = Instant::now();
        let mut state = src.load_state().await.unwrap();
        let load = t.elapsed().as_secs_f64();
        let listed = state.clone();
        let mut received = Vec::new();
        let (tx, mut rx) = tokio::sync::mpsc::channel(1024);
        let watching = src.clone();
        let task = tokio::spawn(async move { watching.watch_events(tx).await });
        let (mut got, mut applying) = (0usize, Duration::ZERO);
        let mut started = None;
        while got < n {
            let Some(ev) = rx.recv().await else { break };
            if !matches!(ev, ClusterEvent::Applied(_)) {
                continue;
            }
            started.get_or_insert_with(Instant::now);
            received.push(ev.clone());
            let t = Instant::now();
            state.apply(ev);
            applying += t.elapsed();
            got += 1;
        }
        let secs = started.map_or(0.0, |s| s.elapsed().as_secs_f64());
        drop(rx);
        let _ = task.await;
        assert_eq!(got, n, "every pod event arrived");
        let t = Instant::now();
        let c = state.to_cluster().unwrap();
        let rebuild = t.elapsed().as_secs_f64() * 1000.0;
        drop(c);
        drop(state);
        (
            load,
            n as f64 / secs.max(1e-9),
            applying.as_secs_f64() * 1e6 / n as f64,
            rebuild,
            event_cost(&listed, &received, ticks),
        )
    })
}

/// The watch, in this process: `n` pod events received and applied, and what they cost the
/// TUI's cluster.
fn watch(server: &ApiServer, events: Vec<Step>, kubeconfig: &Path, n: usize) {
    let ticks = env_usize("KSCHED_LIVE_TICKS").unwrap_or(60).min(n);
    server.script_watch("pods", events);
    let (load, per_s, apply_us, rebuild_ms, cost) = watch_in_process(kubeconfig, n, ticks);
    println!(
        "  in this process: load {load:.2} s; watch: {n} pod events at {per_s:.0}/s, {apply_us:.1} µs each to apply to the store; cluster rebuilt from the store {rebuild_ms:.0} ms"
    );
    println!(
        "  a tick after one pod event ({ticks} ticks, medians): whole build {:.2} ms, event applied {:.2} ms, applied while an explanation reads the cluster {:.2} ms, applied but the pod list's rows and pending pods computed whole {:.2} ms",
        median(&cost.tick_whole),
        median(&cost.tick_applied),
        median(&cost.tick_shared),
        median(&cost.tick_rows_whole)
    );
    println!(
        "  the cluster alone: a pod modified {:.1} µs ({} events), deleted {:.1} µs, added {:.1} µs; whole build {:.1} ms (medians)",
        median(&cost.modified),
        cost.modified.len(),
        median(&cost.deleted),
        median(&cost.added),
        median(&cost.whole)
    );
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("live: run with `cargo bench --bench live`");
        return;
    }
    let runs = env_usize("KSCHED_LIVE_RUNS").unwrap_or(3).max(1);
    let managed_fields = std::env::var("KSCHED_LIVE_MANAGED").map_or(true, |v| v != "0");
    let watch_events = env_usize("KSCHED_LIVE_WATCH").unwrap_or(2000);
    let bins = binaries();
    let pod = format!("{}/{}", PENDING_POD.0, PENDING_POD.1);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "live against file: {runs} round(s), page size {PAGE}, managedFields {}, {}, load average {}",
        if managed_fields { "served" } else { "not served" },
        if streaming() {
            "lists streamed (a 1.34 server)"
        } else {
            "lists paged"
        },
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    for (nodes, pods) in sizes() {
        let file = file_of(nodes, pods);
        let (list, rv) = cluster(nodes, pods, managed_fields);
        let events = if watch_events > 0 {
            pod_events(&list, watch_events, rv)
        } else {
            Vec::new()
        };
        let server = ApiServer::with_list(list);
        server.set_list_resource_version(&rv.to_string());
        if streaming() {
            // a 1.34 server with its WatchList gate on: each kind read with one streaming watch
            server.set_version("v1.34.2", "34");
            server.serve_watch_list(true);
        }
        let dir = server.scratch("live-bench");
        let kubeconfig = server.kubeconfig(&dir, None);
        if let Some(secs) = env_usize("KSCHED_LIVE_SERVE") {
            // for profiling by hand: the server alone, for that long
            println!(
                "serving {nodes} nodes / {pods} pods for {secs} s: --kubeconfig {} (file {})",
                kubeconfig.display(),
                file.display()
            );
            std::thread::sleep(Duration::from_secs(secs as u64));
            continue;
        }
        let file_mib = std::fs::metadata(&file).map_or(0.0, |m| m.len() as f64 / (1 << 20) as f64);
        println!("\n{nodes} nodes / {pods} pods (file {file_mib:.0} MiB)");
        if std::env::var("KSCHED_LIVE_ONLY_WATCH").is_ok_and(|v| v == "1") {
            watch(&server, events, &kubeconfig, watch_events.max(1));
            continue;
        }
        let mut raw = Vec::new();
        let (mut bytes, mut pages) = (0, 0);
        let mut results: Vec<(String, &str, Vec<Run>)> = Vec::new();
        for (name, _) in &bins {
            results.push((name.clone(), "live", Vec::new()));
            results.push((name.clone(), "file", Vec::new()));
        }
        // one release for both (live, the server's would be the default)
        let release = kschedtui::engine::Release::NEWEST.to_string();
        let live_args: Vec<String> = [
            "explain",
            "-A",
            &pod,
            "-o",
            "json",
            "--scheduler-version",
            &release,
            "--kubeconfig",
            &kubeconfig.to_string_lossy(),
        ]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
        let file_args: Vec<String> = [
            "explain",
            "--snapshot",
            &file.to_string_lossy(),
            "-A",
            &pod,
            "-o",
            "json",
            "--scheduler-version",
            &release,
        ]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
        for round in 0..runs {
            let (t, b, p) = raw_lists(server.addr);
            raw.push(t.as_secs_f64());
            (bytes, pages) = (b, p);
            for (i, (_, bin)) in bins.iter().enumerate() {
                let live = run(bin, &live_args);
                let from_file = run(bin, &file_args);
                if round == 0 && answer(&live.out) != answer(&from_file.out) {
                    let dir = file.with_extension("answers");
                    std::fs::create_dir_all(&dir).unwrap();
                    for (what, out) in [("live", &live.out), ("file", &from_file.out)] {
                        std::fs::write(dir.join(format!("{}-{what}.json", bins[i].0)), out).unwrap();
                    }
                    println!(
                        "  warning: {} gives another answer live than from the file (both in {})",
                        bin.display(),
                        dir.display()
                    );
                }
                results[2 * i].2.push(live);
                results[2 * i + 1].2.push(from_file);
            }
        }
        println!(
            "  raw lists (every kind, {pages} pages of {PAGE}, {:.0} MiB): {} s",
            bytes as f64 / (1 << 20) as f64,
            range(&raw, 2)
        );
        let raw_median = {
            let mut r = raw.clone();
            r.sort_by(f64::total_cmp);
            r[r.len() / 2]
        };
        for (name, what, runs) in &results {
            let first: Vec<f64> = runs.iter().map(|r| r.first).collect();
            let wall: Vec<f64> = runs.iter().map(|r| r.wall).collect();
            let peak: Vec<f64> = runs.iter().filter_map(|r| r.peak_mib).collect();
            let cpu: Vec<f64> = runs.iter().filter_map(|r| r.cpu).collect();
            println!(
                "  {name} {what}: first answer {} s, whole run {} s, peak {} MiB, CPU {} s",
                range(&first, 2),
                range(&wall, 2),
                range(&peak, 0),
                range(&cpu, 2)
            );
        }
        for (i, (name, _)) in bins.iter().enumerate() {
            let med = |runs: &[Run], f: &dyn Fn(&Run) -> Option<f64>| {
                let mut v: Vec<f64> = runs.iter().filter_map(f).collect();
                v.sort_by(f64::total_cmp);
                v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
            };
            let live = &results[2 * i].2;
            let file = &results[2 * i + 1].2;
            println!(
                "  {name}: live/file peak {:.2}×, live first answer / raw lists {:.2}×",
                med(live, &|r| r.peak_mib) / med(file, &|r| r.peak_mib),
                med(live, &|r| Some(r.first)) / raw_median
            );
        }
        if watch_events > 0 {
            watch(&server, events, &kubeconfig, watch_events);
        }
    }
}
