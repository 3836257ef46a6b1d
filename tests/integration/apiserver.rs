//! A mock Kubernetes API server for the live-source tests: plain HTTP/1.1 on 127.0.0.1,
//! written by hand on tokio sockets. Hand-written rather than hyper/axum because the tests
//! need control a framework hides: dropping a watch connection in the middle of a chunked
//! stream, answering a TLS ClientHello with plain HTTP, and holding a request past the
//! client's timeout. It needs no dependency beyond tokio, which the crate already uses.
//!
//! It answers what the real server answers, in shape and status code: `/version`, API
//! discovery for the PodGroup CRD, paginated lists (`limit`/`continue`, `metadata.
//! resourceVersion`, items without apiVersion/kind), watches (chunked, one JSON event per
//! line: ADDED, MODIFIED, DELETED, BOOKMARK, ERROR), `fieldSelector` on lists and watches
//! (`k=v`, `k==v`, `k!=v`, comma-separated; for events the fields the real server supports,
//! 400 for others), `pods/{name}/binding`,
//! `pods/{name}/eviction`, `pods/{name}/status` patches, pod deletes and
//! SelfSubjectAccessReviews; errors as `Status` objects. Every request is recorded.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The cluster every test starts from.
pub const CLUSTER: &str = include_str!("data/live-cluster.yaml");

/// The bearer token of the kubeconfig [`ApiServer::kubeconfig`] writes.
pub const TOKEN: &str = "test-token";

/// One recorded request.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// Method.
    pub method: String,
    /// Path without the query.
    pub path: String,
    /// Query string (without '?').
    pub query: String,
    /// Headers, lower-case names.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: String,
    /// When it arrived.
    pub at: std::time::Instant,
}

impl Recorded {
    /// A query parameter.
    pub fn param(&self, name: &str) -> Option<String> {
        self.query.split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (k == name).then(|| percent_decode(v))
        })
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// True for requests that change something (SelfSubjectAccessReviews included).
    pub fn is_write(&self) -> bool {
        self.method != "GET"
    }

    /// True for a watch.
    pub fn is_watch(&self) -> bool {
        matches!(self.param("watch").as_deref(), Some("true" | "1"))
    }
}

/// Decodes `%XX` escapes and `+`.
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(v) => {
                        out.push(v);
                        i += 3;
                        continue;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).to_string()
}

/// One step of a scripted watch answer.
#[derive(Clone, Debug)]
pub enum Step {
    /// Send `{"type": T, "object": O}`.
    Event(&'static str, Value),
    /// Wait.
    Sleep(u64),
    /// Close the connection in the middle of the chunked body.
    Drop,
}

/// A canned answer.
#[derive(Clone, Debug)]
pub struct Reply {
    /// HTTP code.
    pub code: u16,
    /// Body.
    pub body: Value,
    /// Wait before answering.
    pub delay_ms: u64,
}

impl Reply {
    /// A JSON answer.
    pub fn new(code: u16, body: Value) -> Self {
        Reply {
            code,
            body,
            delay_ms: 0,
        }
    }

    /// A `Status` failure, as the API server writes it.
    pub fn status(code: u16, reason: &str, message: &str) -> Self {
        Reply::new(code, status_json(code, reason, message, None))
    }

    /// A `Status` failure with `details` (name, kind, causes).
    pub fn status_with(code: u16, reason: &str, message: &str, details: Value) -> Self {
        Reply::new(code, status_json(code, reason, message, Some(details)))
    }

    /// Delays the answer.
    pub fn delayed(mut self, ms: u64) -> Self {
        self.delay_ms = ms;
        self
    }
}

/// What every watch request is answered, whatever its resource (see
/// [`ApiServer::answer_every_watch`]).
#[derive(Clone, Debug)]
pub enum EveryWatch {
    /// This reply instead of a stream (`410 Gone` as an HTTP status).
    Reply(Reply),
    /// A stream of this one event, then its end (`{"type": "ERROR", "object": Status 410}`).
    Event(&'static str, Value),
}

/// A `Status` object.
pub fn status_json(code: u16, reason: &str, message: &str, details: Option<Value>) -> Value {
    let mut s = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": if code < 300 { "Success" } else { "Failure" },
        "message": message,
        "reason": reason,
        "code": code,
    });
    if let Some(d) = details {
        s["details"] = d;
    }
    s
}

#[derive(Default)]
struct State {
    /// plural → items (without apiVersion/kind).
    items: BTreeMap<String, Vec<Value>>,
    /// plural → (kind, apiVersion).
    kinds: BTreeMap<String, (String, String)>,
    /// plural → list resourceVersion.
    list_rv: BTreeMap<String, String>,
    pod_groups_served: bool,
    /// Whether resource.k8s.io (DRA) is served.
    dra_served: bool,
    /// The versions of resource.k8s.io discovery lists the DRA kinds at (default: v1).
    dra_versions: Vec<String>,
    /// `/version`'s gitVersion and minor (default: v1.30.6).
    version: Option<(String, String)>,
    token: Option<String>,
    expire_continue: usize,
    /// (method, path) → replies, used once each, in order.
    once: Vec<((String, String), Reply)>,
    /// (method, path) → reply, always.
    always: Vec<((String, String), Reply)>,
    /// plural → scripted watch answers, one per watch request.
    watches: BTreeMap<String, VecDeque<Vec<Step>>>,
    /// The answer to every watch request, before the scripted ones.
    every_watch: Option<EveryWatch>,
    /// Resources whose list pages all carry the same continue token (and the first page).
    stuck_continue: Vec<String>,
    /// Streaming lists (`sendInitialEvents=true`) are served, as by kube-apiserver with the
    /// WatchList gate on; off, they are refused as it refuses them (422).
    watch_list: bool,
    /// SelfSubjectAccessReviews to deny: (verb, subresource).
    deny: Vec<(String, String)>,
    requests: Vec<Recorded>,
}

/// The mock server. Stops when dropped.
pub struct ApiServer {
    /// Address.
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The test's files (kubeconfigs, HOME, snapshots written): removed with the server, after
    /// it stops, also when the test fails.
    files: tempfile::TempDir,
}

/// The resource name of a kind.
pub fn plural(kind: &str) -> String {
    match kschedtui::model::kinds::Kind::named(kind) {
        Some(k) => k.plural().into(),
        None => format!("{}s", kind.to_lowercase()),
    }
}

impl ApiServer {
    /// Serves [`CLUSTER`].
    pub fn start() -> Self {
        Self::with_cluster(CLUSTER)
    }

    /// Serves the objects of a YAML List.
    pub fn with_cluster(yaml: &str) -> Self {
        Self::with_list(serde_yaml::from_str(yaml).unwrap())
    }

    /// Serves the objects of a List (`{"items": [...]}`, each with apiVersion and kind).
    pub fn with_list(list: Value) -> Self {
        let mut st = State {
            pod_groups_served: true,
            dra_served: true,
            dra_versions: vec!["v1".into()],
            ..Default::default()
        };
        for kind in [
            "Node",
            "Pod",
            "Namespace",
            "PriorityClass",
            "PodDisruptionBudget",
            "PersistentVolume",
            "PersistentVolumeClaim",
            "StorageClass",
            "CSINode",
            "CSIDriver",
            "CSIStorageCapacity",
            "VolumeAttachment",
            "DeviceClass",
            "ResourceSlice",
            "DeviceTaintRule",
            "ResourceClaim",
            "ResourceClaimTemplate",
            "Service",
            "ReplicaSet",
            "StatefulSet",
            "ReplicationController",
            "LimitRange",
            "ResourceQuota",
            "RuntimeClass",
            "PodGroup",
            "Event",
            "Secret",
            "ConfigMap",
        ] {
            st.items.entry(plural(kind)).or_default();
        }
        st.kinds.insert("events".into(), ("Event".into(), "v1".into()));
        let Value::Object(mut list) = list else {
            panic!("not a List")
        };
        let Some(Value::Array(items)) = list.remove("items") else {
            panic!("a List without items")
        };
        for mut it in items {
            let m = it.as_object_mut().unwrap();
            let kind = m.remove("kind").unwrap().as_str().unwrap().to_string();
            let api_version = m.remove("apiVersion").unwrap().as_str().unwrap().to_string();
            let p = plural(&kind);
            st.kinds.insert(p.clone(), (kind, api_version));
            st.items.entry(p).or_default().push(it);
        }
        for p in st.items.keys().cloned().collect::<Vec<_>>() {
            st.list_rv.insert(p, "1000".into());
        }
        // A Secret and a ConfigMap the tool must never read.
        st.items
            .get_mut("secrets")
            .unwrap()
            .push(json!({"metadata": {"name": "db", "namespace": "shop"}, "data": {"password": "czNjcjN0"}}));
        st.items
            .get_mut("configmaps")
            .unwrap()
            .push(json!({"metadata": {"name": "cfg", "namespace": "shop"}, "data": {"k": "v"}}));
        let state = Arc::new(Mutex::new(st));
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        std_listener.set_nonblocking(true).unwrap();
        let addr = std_listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let st2 = state.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = TcpListener::from_std(std_listener).unwrap();
                let accept = async {
                    loop {
                        let Ok((sock, _)) = listener.accept().await else {
                            continue;
                        };
                        tokio::spawn(serve(sock, st2.clone()));
                    }
                };
                tokio::select! {
                    _ = stopped => {}
                    () = accept => {}
                }
            });
            rt.shutdown_timeout(Duration::from_millis(100));
        });
        ApiServer {
            addr,
            state,
            stop: Some(stop),
            thread: Some(thread),
            files: crate::scratch::temp_dir("server"),
        }
    }

    /// A fresh directory for the test's files, kept as long as the server (so a TUI in tmux
    /// or a source still reading the kubeconfig finds it) and removed with it.
    pub fn scratch(&self, name: &str) -> PathBuf {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let d = self
            .files
            .path()
            .join(format!("{name}-{}", N.fetch_add(1, Ordering::SeqCst)));
        std::fs::create_dir(&d).unwrap();
        d
    }

    fn st(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Writes a kubeconfig pointing at the server (context `mock`, user token [`TOKEN`]).
    pub fn kubeconfig(&self, dir: &Path, namespace: Option<&str>) -> PathBuf {
        write_kubeconfig(dir, &self.url(), namespace)
    }

    /// Serves the resource.k8s.io API (DRA) or not.
    pub fn serve_dra(&self, on: bool) {
        self.st().dra_served = on;
    }

    /// Serves the DRA kinds at these versions of resource.k8s.io (a 1.33 server: v1beta1 and
    /// v1beta2), instead of v1.
    pub fn serve_dra_versions(&self, versions: &[&str]) {
        self.st().dra_versions = versions.iter().map(|v| (*v).to_string()).collect();
    }

    /// Serves streaming lists (the WatchList gate on): a watch with `sendInitialEvents=true`
    /// sends every selected object as ADDED, then the bookmark that ends the initial events
    /// with the list's resourceVersion. Off (the default), such a watch is answered 422, as
    /// kube-apiserver answers it with the gate off.
    pub fn serve_watch_list(&self, on: bool) {
        self.st().watch_list = on;
    }

    /// Answers `/version` as `git_version` (minor `minor`).
    pub fn set_version(&self, git_version: &str, minor: &str) {
        self.st().version = Some((git_version.into(), minor.into()));
    }

    /// Serves the PodGroup CRD or not.
    pub fn serve_pod_groups(&self, on: bool) {
        self.st().pod_groups_served = on;
    }

    /// Requires `Authorization: Bearer TOKEN` (401 otherwise).
    pub fn require_token(&self, token: &str) {
        self.st().token = Some(token.to_string());
    }

    /// The next `n` list requests with a continue token get 410 Expired.
    pub fn expire_continue_tokens(&self, n: usize) {
        self.st().expire_continue = n;
    }

    /// Answers the next request `method path` with `reply` (once).
    pub fn reply_once(&self, method: &str, path: &str, reply: Reply) {
        self.st().once.push(((method.into(), path.into()), reply));
    }

    /// Answers every request `method path` with `reply`.
    pub fn reply_always(&self, method: &str, path: &str, reply: Reply) {
        self.st().always.push(((method.into(), path.into()), reply));
    }

    /// Scripts the next watch of `plural`.
    pub fn script_watch(&self, plural: &str, steps: Vec<Step>) {
        self.st().watches.entry(plural.into()).or_default().push_back(steps);
    }

    /// Answers every watch request of every resource with `answer` (a server that expired
    /// every resourceVersion, or that is another cluster).
    pub fn answer_every_watch(&self, answer: EveryWatch) {
        self.st().every_watch = Some(answer);
    }

    /// Every list page of `plural` is its first page with the same continue token, however
    /// it is asked for: a server whose paging never ends.
    pub fn repeat_continue_token(&self, plural: &str) {
        self.st().stuck_continue.push(plural.into());
    }

    /// Replaces the objects of a resource and its list resourceVersion (what a re-list sees).
    pub fn set_items(&self, plural: &str, items: Vec<Value>, rv: &str) {
        let mut st = self.st();
        st.items.insert(plural.into(), items);
        st.list_rv.insert(plural.into(), rv.into());
    }

    /// Sets the resourceVersion every list answers with (what a watch from the lists starts
    /// from).
    pub fn set_list_resource_version(&self, rv: &str) {
        for v in self.st().list_rv.values_mut() {
            *v = rv.to_string();
        }
    }

    /// Serves the cluster as a kind/minikube delete and create, or an etcd restore, leaves it
    /// under the same URL: the same objects (same names), each with a new uid (the
    /// `0b1a3c8e` prefix of the fixture's uids becomes `7f3e9d21`), every resourceVersion
    /// restarting from `rv` (objects `rv+1`, `rv+2`, ... in store order, every list at `rv`),
    /// and no scripted watch left. Watches from the old resourceVersions are still accepted, as
    /// a real server accepts a watch from a resourceVersion the new store has passed.
    pub fn recreate(&self, rv: u64) {
        let mut st = self.st();
        let mut n = rv;
        for items in st.items.values_mut() {
            for it in items.iter_mut() {
                let m = &mut it["metadata"];
                if let Some(uid) = m["uid"].as_str() {
                    m["uid"] = json!(uid.replace("0b1a3c8e", "7f3e9d21").replace("uid-", "new-uid-"));
                }
                n += 1;
                m["resourceVersion"] = json!(n.to_string());
            }
        }
        for v in st.list_rv.values_mut() {
            *v = rv.to_string();
        }
        st.watches.clear();
    }

    /// Gives pod `ns/name` the PodScheduled condition kube-scheduler writes when the binding
    /// cycle fails on the node it chose (status False, reason SchedulerError, the plugin's
    /// error as the message), in place of the one it had.
    pub fn set_scheduler_error(&self, ns: &str, name: &str, message: &str, at: &str) {
        let mut st = self.st();
        let pods = st.items.entry("pods".into()).or_default();
        for p in pods.iter_mut() {
            if p["metadata"]["name"] == name && p["metadata"]["namespace"] == ns {
                let mut conds: Vec<Value> = p["status"]["conditions"].as_array().cloned().unwrap_or_default();
                conds.retain(|c| c["type"] != "PodScheduled");
                conds.push(json!({"type": "PodScheduled", "status": "False", "lastProbeTime": null,
                                  "lastTransitionTime": at, "reason": "SchedulerError", "message": message}));
                p["status"]["conditions"] = json!(conds);
            }
        }
    }

    /// The stored objects of a resource.
    pub fn items(&self, plural: &str) -> Vec<Value> {
        self.st().items.get(plural).cloned().unwrap_or_default()
    }

    /// Lists and watches of events answer 403 Forbidden, as for a user whose role does not
    /// grant them.
    pub fn forbid_events(&self) {
        self.forbid("events", "/api/v1/events", "");
    }

    /// Lists and watches of VolumeAttachments answer 403 Forbidden.
    pub fn forbid_volume_attachments(&self) {
        self.forbid(
            "volumeattachments",
            "/apis/storage.k8s.io/v1/volumeattachments",
            "storage.k8s.io",
        );
    }

    /// Lists and watches of ResourceClaims (all namespaces) answer 403 Forbidden.
    pub fn forbid_resource_claims(&self) {
        self.forbid(
            "resourceclaims",
            "/apis/resource.k8s.io/v1/resourceclaims",
            "resource.k8s.io",
        );
    }

    fn forbid(&self, plural: &str, path: &str, group: &str) {
        let body = status_json(
            403,
            "Forbidden",
            &format!(
                "{plural} is forbidden: User \"tester\" cannot list resource \"{plural}\" in API group \"{group}\" at the cluster scope"
            ),
            Some(json!({"kind": plural})),
        );
        self.reply_always("GET", path, Reply::new(403, body));
    }

    /// SelfSubjectAccessReviews for `verb` on pods/`subresource` ("" for none) answer no.
    pub fn deny(&self, verb: &str, subresource: &str) {
        self.st().deny.push((verb.into(), subresource.into()));
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.st().requests.clone()
    }

    /// Requests other than GET.
    pub fn writes(&self) -> Vec<Recorded> {
        self.requests().into_iter().filter(Recorded::is_write).collect()
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Writes a kubeconfig for `server` (context `mock`, user token [`TOKEN`]).
pub fn write_kubeconfig(dir: &Path, server: &str, namespace: Option<&str>) -> PathBuf {
    let ns = namespace.map(|n| format!("\n    namespace: {n}")).unwrap_or_default();
    let text = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: mock\nclusters:\n- name: mock\n  cluster:\n    server: {server}\nusers:\n- name: tester\n  user:\n    token: {TOKEN}\ncontexts:\n- name: mock\n  context:\n    cluster: mock\n    user: tester{ns}\n"
    );
    let p = dir.join("kubeconfig");
    std::fs::write(&p, text).unwrap();
    p
}

struct Request {
    method: String,
    path: String,
    query: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

/// A streaming list's answer (`sendInitialEvents=true`): every selected object as ADDED (with
/// its kind), then the bookmark that ends them; 422 when the server does not serve them.
fn stream_list(st: &State, plural: &str, selected: &[usize]) -> Answer {
    if !st.watch_list {
        return Answer::Json(Reply::status_with(
            422,
            "Invalid",
            "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
            json!({"group": "meta.k8s.io", "kind": "ListOptions", "causes": [{
                "reason": "FieldValueForbidden",
                "message": "Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
                "field": "sendInitialEvents"
            }]}),
        ));
    }
    let (kind, api_version) = st
        .kinds
        .get(plural)
        .cloned()
        .unwrap_or_else(|| ("Unknown".into(), "v1".into()));
    let all = st.items.get(plural).map(Vec::as_slice).unwrap_or_default();
    let mut steps: Vec<Step> = selected
        .iter()
        .map(|i| {
            let mut o = all[*i].clone();
            o["kind"] = json!(kind);
            o["apiVersion"] = json!(api_version);
            Step::Event("ADDED", o)
        })
        .collect();
    let rv = st.list_rv.get(plural).cloned().unwrap_or_else(|| "1000".into());
    steps.push(Step::Event(
        "BOOKMARK",
        json!({"kind": kind, "apiVersion": api_version, "metadata": {
            "resourceVersion": rv,
            "annotations": {"k8s.io/initial-events-end": "true"}
        }}),
    ));
    Answer::Watch(steps)
}

enum Answer {
    Json(Reply),
    Watch(Vec<Step>),
    Hang,
}

async fn read_request(sock: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Result<Request, ()>> {
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buf.first() == Some(&0x16) {
            // A TLS ClientHello sent to this plain-HTTP server.
            return Some(Err(()));
        }
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let target = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let total = head_end + 4 + len;
    while buf.len() < total {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = buf[head_end + 4..total].to_vec();
    buf.drain(..total);
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p.to_string(), q.to_string()),
        None => (target, String::new()),
    };
    Some(Ok(Request {
        method,
        path,
        query,
        headers,
        body,
    }))
}

fn reason_phrase(code: u16) -> &'static str {
    match code {
        200 => "OK",
        201 => "Created",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        409 => "Conflict",
        410 => "Gone",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        _ => "Unknown",
    }
}

async fn serve(mut sock: TcpStream, st: Arc<Mutex<State>>) {
    let mut buf = Vec::new();
    loop {
        let req = match read_request(&mut sock, &mut buf).await {
            None => return,
            Some(Err(())) => {
                let _ = sock
                    .write_all(b"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n")
                    .await;
                return;
            }
            Some(Ok(r)) => r,
        };
        let answer = route(&st, &req);
        match answer {
            Answer::Json(r) => {
                if r.delay_ms > 0 {
                    tokio::time::sleep(Duration::from_millis(r.delay_ms)).await;
                }
                let body = serde_json::to_vec(&r.body).unwrap();
                let head = format!(
                    "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                    r.code,
                    reason_phrase(r.code),
                    body.len()
                );
                if sock.write_all(head.as_bytes()).await.is_err() || sock.write_all(&body).await.is_err() {
                    return;
                }
            }
            Answer::Watch(steps) => {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
                if sock.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                for s in steps {
                    match s {
                        Step::Event(t, o) => {
                            let line = serde_json::to_string(&json!({"type": t, "object": o})).unwrap() + "\n";
                            let chunk = format!("{:x}\r\n{line}\r\n", line.len());
                            if sock.write_all(chunk.as_bytes()).await.is_err() {
                                return;
                            }
                            let _ = sock.flush().await;
                        }
                        Step::Sleep(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
                        Step::Drop => {
                            // Abort: no terminating chunk.
                            let _ = sock.shutdown().await;
                            return;
                        }
                    }
                }
                let _ = sock.write_all(b"0\r\n\r\n").await;
                return;
            }
            Answer::Hang => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                return;
            }
        }
    }
}

/// The fields a core v1 Event can be selected by (the API server's `ToSelectableFields`
/// for events: pkg/registry/core/event/strategy.go).
const EVENT_FIELDS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
];

/// One `fieldSelector` term: field, wanted value, and whether it must equal (`=`, `==`) or
/// differ (`!=`).
type FieldTerm = (String, String, bool);

/// Parses a field selector for a resource; the message of a 400 when a field is not
/// selectable (for events: not among [`EVENT_FIELDS`]; for other resources: not
/// `metadata.name` or `metadata.namespace`).
fn parse_field_selector(plural: &str, sel: &str) -> Result<Vec<FieldTerm>, String> {
    let mut terms = Vec::new();
    for t in sel.split(',').filter(|t| !t.is_empty()) {
        let (field, value, eq) = if let Some((f, v)) = t.split_once("!=") {
            (f, v, false)
        } else if let Some((f, v)) = t.split_once("==") {
            (f, v, true)
        } else if let Some((f, v)) = t.split_once('=') {
            (f, v, true)
        } else {
            return Err(format!("invalid selector: '{sel}'; can't understand '{t}'"));
        };
        let ok = if plural == "events" {
            EVENT_FIELDS.contains(&field)
        } else {
            matches!(field, "metadata.name" | "metadata.namespace")
        };
        if !ok {
            return Err(format!("field label not supported: {field}"));
        }
        terms.push((field.to_string(), value.to_string(), eq));
    }
    Ok(terms)
}

/// True when an object matches every term (`source` is `source.component`, as the server
/// maps it; a missing field is "").
fn fields_match(obj: &Value, terms: &[FieldTerm]) -> bool {
    terms.iter().all(|(field, want, eq)| {
        let path = if field == "source" {
            "source.component"
        } else {
            field.as_str()
        };
        let got = path
            .split('.')
            .try_fold(obj, |v, k| v.get(k))
            .and_then(Value::as_str)
            .unwrap_or("");
        (got == want) == *eq
    })
}

/// namespace, plural, name, subresource.
type PathParts = (Option<String>, String, Option<String>, Option<String>);

/// Splits `/api/v1[/namespaces/NS]/PLURAL[/NAME[/SUB]]` and the `/apis/G/V/...` form.
fn parse_path(path: &str) -> Option<PathParts> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let rest: &[&str] = match segs.as_slice() {
        ["api", "v1", rest @ ..] => rest,
        ["apis", _, _, rest @ ..] => rest,
        _ => return None,
    };
    let (ns, rest) = match rest {
        ["namespaces", ns, tail @ ..] if !tail.is_empty() => (Some(ns.to_string()), tail),
        r => (None, r),
    };
    let plural = rest.first()?.to_string();
    Some((
        ns,
        plural,
        rest.get(1).map(|s| s.to_string()),
        rest.get(2).map(|s| s.to_string()),
    ))
}

fn route(st: &Mutex<State>, req: &Request) -> Answer {
    let mut st = st.lock().unwrap();
    let rec = Recorded {
        method: req.method.clone(),
        path: req.path.clone(),
        query: req.query.clone(),
        headers: req.headers.clone(),
        body: String::from_utf8_lossy(&req.body).to_string(),
        at: std::time::Instant::now(),
    };
    st.requests.push(rec.clone());
    if let Some(t) = &st.token {
        let auth = req
            .headers
            .iter()
            .find(|(k, _)| k == "authorization")
            .map(|(_, v)| v.as_str());
        if auth != Some(&format!("Bearer {t}")) {
            return Answer::Json(Reply::status(401, "Unauthorized", "Unauthorized"));
        }
    }
    let key = (req.method.clone(), req.path.clone());
    if let Some(i) = st.once.iter().position(|(k, _)| *k == key) {
        return Answer::Json(st.once.remove(i).1);
    }
    if let Some((_, r)) = st.always.iter().find(|(k, _)| *k == key) {
        return Answer::Json(r.clone());
    }
    if req.method == "GET" && req.path == "/version" {
        let (git, minor) = st.version.clone().unwrap_or_else(|| ("v1.30.6".into(), "30".into()));
        return Answer::Json(Reply::new(
            200,
            json!({
                "major": "1", "minor": minor, "gitVersion": git,
                "gitCommit": "00f20d443ba0cee7cd2f4a7bd6bd1b8e2a5bac3a", "gitTreeState": "clean",
                "buildDate": "2024-10-22T20:27:41Z", "goVersion": "go1.22.8", "compiler": "gc",
                "platform": "linux/amd64"
            }),
        ));
    }
    if req.method == "GET"
        && let Some(gv) = req.path.strip_prefix("/apis/")
        && gv.starts_with("resource.k8s.io/")
        && gv.matches('/').count() == 1
    {
        let version = gv.trim_start_matches("resource.k8s.io/");
        let dra_v1 = |k: &kschedtui::model::kinds::Kind| k.api_version() == "resource.k8s.io/v1";
        let resources: Vec<Value> = kschedtui::model::kinds::Kind::ALL
            .iter()
            .filter(|k| {
                st.dra_served
                    && if dra_v1(k) {
                        st.dra_versions.iter().any(|v| v == version)
                    } else {
                        k.api_version() == gv
                    }
            })
            .map(|k| json!({"name": k.plural(), "namespaced": k.namespaced(), "kind": k.name(), "verbs": ["get", "list", "watch"]}))
            .collect();
        if !resources.is_empty() {
            return Answer::Json(Reply::new(
                200,
                json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}),
            ));
        }
        return Answer::Json(Reply::status(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ));
    }
    if req.method == "GET" && req.path == "/apis/scheduling.x-k8s.io/v1alpha1" {
        if st.pod_groups_served {
            return Answer::Json(Reply::new(
                200,
                json!({
                    "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "scheduling.x-k8s.io/v1alpha1",
                    "resources": [
                        {"name": "podgroups", "singularName": "podgroup", "namespaced": true, "kind": "PodGroup",
                         "verbs": ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
                         "shortNames": ["pg", "pgs"]},
                        {"name": "podgroups/status", "singularName": "", "namespaced": true, "kind": "PodGroup",
                         "verbs": ["get", "patch", "update"]}
                    ]
                }),
            ));
        }
        return Answer::Json(Reply::new(
            404,
            status_json(
                404,
                "NotFound",
                "the server could not find the requested resource",
                Some(json!({"causes": [{"reason": "UnexpectedServerResponse", "message": "404 page not found"}]})),
            ),
        ));
    }
    if req.path == "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews" && req.method == "POST" {
        let mut body = rec.json();
        let attrs = body["spec"]["resourceAttributes"].clone();
        let verb = attrs["verb"].as_str().unwrap_or("").to_string();
        let sub = attrs["subresource"].as_str().unwrap_or("").to_string();
        let denied = st.deny.contains(&(verb.clone(), sub.clone()));
        body["metadata"] = json!({"creationTimestamp": null});
        body["status"] = if denied {
            json!({"allowed": false, "reason": format!("RBAC: user \"tester\" may not {verb} pods{}", if sub.is_empty() { String::new() } else { format!("/{sub}") })})
        } else {
            json!({"allowed": true, "reason": "RBAC: allowed by ClusterRoleBinding \"tester\""})
        };
        return Answer::Json(Reply::new(201, body));
    }
    let Some((ns, plural, name, sub)) = parse_path(&req.path) else {
        return Answer::Json(Reply::status(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ));
    };
    let not_found = |plural: &str, name: &str| {
        Reply::new(
            404,
            status_json(
                404,
                "NotFound",
                &format!("{plural} \"{name}\" not found"),
                Some(json!({"name": name, "kind": plural})),
            ),
        )
    };
    match (req.method.as_str(), name, sub.as_deref()) {
        ("GET", None, _) => {
            let watch = rec.is_watch();
            let terms = match parse_field_selector(&plural, &rec.param("fieldSelector").unwrap_or_default()) {
                Ok(t) => t,
                Err(msg) => return Answer::Json(Reply::status(400, "BadRequest", &msg)),
            };
            // the selected objects by reference: a page clones only its own (a list of 100,000
            // pods in pages of 500 cloned every pod for every page)
            let selected: Vec<usize> = st
                .items
                .get(&plural)
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .enumerate()
                .filter(|(_, it)| ns.as_deref().is_none_or(|n| it["metadata"]["namespace"] == n))
                .filter(|(_, it)| fields_match(it, &terms))
                .map(|(i, _)| i)
                .collect();
            if watch {
                match &st.every_watch {
                    Some(EveryWatch::Reply(r)) => return Answer::Json(r.clone()),
                    Some(EveryWatch::Event(t, o)) => return Answer::Watch(vec![Step::Event(t, o.clone())]),
                    None => {}
                }
                if rec.param("sendInitialEvents").as_deref() == Some("true") {
                    return stream_list(&st, &plural, &selected);
                }
                return match st.watches.get_mut(&plural).and_then(VecDeque::pop_front) {
                    // Changes to objects the selector does not select are not sent.
                    Some(steps) => Answer::Watch(
                        steps
                            .into_iter()
                            .filter(|s| match s {
                                Step::Event("ADDED" | "MODIFIED" | "DELETED", o) => fields_match(o, &terms),
                                _ => true,
                            })
                            .collect(),
                    ),
                    None => Answer::Hang,
                };
            }
            let rv = st.list_rv.get(&plural).cloned().unwrap_or_else(|| "1000".into());
            let limit: usize = rec.param("limit").and_then(|l| l.parse().ok()).unwrap_or(usize::MAX);
            let start: usize = match rec.param("continue") {
                Some(tok) => {
                    if st.expire_continue > 0 {
                        st.expire_continue -= 1;
                        return Answer::Json(Reply::status(
                            410,
                            "Expired",
                            "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
                        ));
                    }
                    tok.rsplit(':').next().and_then(|n| n.parse().ok()).unwrap_or(0)
                }
                None => 0,
            };
            let all = st.items.get(&plural).map(Vec::as_slice).unwrap_or_default();
            let take = |range: &[usize]| -> Vec<Value> { range.iter().map(|i| all[*i].clone()).collect() };
            let end = start.saturating_add(limit).min(selected.len());
            let page = take(&selected[start.min(selected.len())..end]);
            let (kind, api_version) = st
                .kinds
                .get(&plural)
                .cloned()
                .unwrap_or_else(|| ("Unknown".into(), "v1".into()));
            let mut meta = json!({"resourceVersion": rv});
            if st.stuck_continue.contains(&plural) {
                let first = take(&selected[..limit.min(selected.len())]);
                meta["continue"] = json!(format!("{plural}:{rv}:stuck"));
                return Answer::Json(Reply::new(
                    200,
                    json!({"kind": "List", "apiVersion": "v1", "metadata": meta, "items": first}),
                ));
            }
            if end < selected.len() {
                meta["continue"] = json!(format!("{plural}:{rv}:{end}"));
                meta["remainingItemCount"] = json!(selected.len() - end);
            }
            Answer::Json(Reply::new(
                200,
                json!({
                    "kind": format!("{kind}List"), "apiVersion": api_version, "metadata": meta, "items": page
                }),
            ))
        }
        ("GET", Some(name), None) if plural != "pods" => {
            let found = st.items.get(&plural).and_then(|v| {
                v.iter()
                    .find(|o| {
                        o["metadata"]["name"] == name.as_str()
                            && ns.as_deref().is_none_or(|n| o["metadata"]["namespace"] == n)
                    })
                    .cloned()
            });
            match found {
                Some(mut o) => {
                    let (kind, api_version) = st
                        .kinds
                        .get(&plural)
                        .cloned()
                        .unwrap_or_else(|| ("Unknown".into(), "v1".into()));
                    o["apiVersion"] = json!(api_version);
                    o["kind"] = json!(kind);
                    Answer::Json(Reply::new(200, o))
                }
                None => Answer::Json(not_found(&plural, &name)),
            }
        }
        ("PUT", Some(name), sub) if plural != "pods" => {
            // an update of the whole object (or its status): stored as sent, with the next
            // resourceVersion; 409 when the resourceVersion sent is not the stored one
            let Some(items) = st.items.get_mut(&plural) else {
                return Answer::Json(not_found(&plural, &name));
            };
            let Some(i) = items.iter().position(|o| {
                o["metadata"]["name"] == name.as_str() && ns.as_deref().is_none_or(|n| o["metadata"]["namespace"] == n)
            }) else {
                return Answer::Json(not_found(&plural, &name));
            };
            let mut sent = rec.json();
            let stored_rv = items[i]["metadata"]["resourceVersion"].clone();
            if !sent["metadata"]["resourceVersion"].is_null() && sent["metadata"]["resourceVersion"] != stored_rv {
                return Answer::Json(Reply::status(
                    409,
                    "Conflict",
                    &format!(
                        "Operation cannot be fulfilled on {plural} \"{name}\": the object has been modified; please apply your changes to the latest version and try again"
                    ),
                ));
            }
            if rec.param("dryRun").as_deref() == Some("All") {
                return Answer::Json(Reply::new(200, sent));
            }
            let next = stored_rv.as_str().and_then(|r| r.parse::<u64>().ok()).unwrap_or(1000) + 1;
            sent["metadata"]["resourceVersion"] = json!(next.to_string());
            let answer = sent.clone();
            if let Some(m) = sent.as_object_mut() {
                m.remove("apiVersion");
                m.remove("kind");
            }
            if sub == Some("status") {
                items[i]["status"] = sent["status"].clone();
                items[i]["metadata"]["resourceVersion"] = sent["metadata"]["resourceVersion"].clone();
            } else {
                // the main resource ignores a changed status, as the real server does
                let status = items[i]["status"].clone();
                items[i] = sent;
                items[i]["status"] = status;
            }
            Answer::Json(Reply::new(200, answer))
        }
        (method, Some(name), sub) if plural == "pods" => {
            let ns = ns.unwrap_or_default();
            let pod = st
                .items
                .get("pods")
                .and_then(|v| {
                    v.iter()
                        .find(|p| p["metadata"]["name"] == name.as_str() && p["metadata"]["namespace"] == ns.as_str())
                })
                .cloned();
            let Some(mut pod) = pod else {
                return Answer::Json(not_found("pods", &name));
            };
            pod["apiVersion"] = json!("v1");
            pod["kind"] = json!("Pod");
            match (method, sub) {
                ("GET", None) => Answer::Json(Reply::new(200, pod)),
                ("POST", Some("binding" | "eviction")) => Answer::Json(Reply::new(201, status_json(201, "", "", None))),
                ("PATCH", Some("status")) | ("DELETE", None) => Answer::Json(Reply::new(200, pod)),
                _ => Answer::Json(Reply::status(
                    405,
                    "MethodNotAllowed",
                    "the server does not allow this method on the requested resource",
                )),
            }
        }
        _ => Answer::Json(Reply::status(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )),
    }
}
