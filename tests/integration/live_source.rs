//! LiveSource against the mock API server: loading, watching, errors, and the write actions.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use kschedtui::model::ObjectKey;
use kschedtui::model::event::{ClusterEvent, ClusterState, Kind};
use kschedtui::source::ClusterSource;
use kschedtui::source::live::config::{ConfigOptions, Environment};
use kschedtui::source::live::error::LiveError;
use kschedtui::source::live::watch::{Progress, WatchOptions};
use kschedtui::source::live::{ConnectOptions, LiveSource, Scope};
use kschedtui::source::write::{
    Outcome, Removal, Step as ReportStep, WriteError, WriteMode, WriteRequest, bind_plan, check_plan, execute,
    preempt_plan,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::apiserver::{ApiServer, EveryWatch, Reply, Step, status_json, write_kubeconfig};
use crate::scratch::temp_dir;

fn fast() -> WatchOptions {
    WatchOptions {
        page_size: 500,
        request_timeout: Duration::from_secs(5),
        watch_timeout_secs: 290,
        idle_timeout: Duration::from_secs(30),
        backoff_initial: Duration::from_millis(20),
        backoff_max: Duration::from_millis(100),
        backoff_reset: Duration::from_secs(120),
        streaming_lists: true,
    }
}

fn options(kubeconfig: std::path::PathBuf) -> ConnectOptions {
    ConnectOptions {
        config: ConfigOptions {
            kubeconfig: Some(kubeconfig),
            ..Default::default()
        },
        scope: Scope::AllNamespaces,
        mode: WriteMode::Enabled,
        watch: fast(),
    }
}

async fn connect(server: &ApiServer, mode: WriteMode) -> LiveSource {
    let dir = server.scratch("src");
    let mut o = options(server.kubeconfig(&dir, None));
    o.mode = mode;
    LiveSource::connect(&o, &Environment::default()).await.unwrap()
}

fn k(s: &str) -> ObjectKey {
    ObjectKey::parse(s, "")
}

#[tokio::test]
async fn load_lists_every_kind_page_by_page_and_never_secrets() {
    let server = ApiServer::start();
    let dir = server.scratch("load");
    let mut o = options(server.kubeconfig(&dir, None));
    o.watch.page_size = 2;
    let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let seen2 = seen.clone();
    let src = LiveSource::connect(&o, &Environment::default())
        .await
        .unwrap()
        .with_progress(Arc::new(move |p: &Progress| seen2.lock().unwrap().push(p.clone())));
    assert_eq!(src.describe(), format!("context 'mock' ({})", server.url()));
    let v = src.server_version().await.unwrap();
    assert_eq!((v.minor, v.git_version.as_str()), (30, "v1.30.6"));
    let state = src.load_state().await.unwrap();
    let c = state.to_cluster().unwrap();
    assert_eq!(c.nodes.len(), 3);
    assert_eq!(c.pods.len(), 8);
    assert_eq!(c.namespaces.len(), 3);
    assert_eq!(c.priority_classes.len(), 2);
    assert_eq!(
        (c.pvs.len(), c.pvcs.len(), c.storage_classes.len(), c.csi_nodes.len()),
        (1, 1, 1, 1)
    );
    assert_eq!((c.pdbs.len(), c.services.len(), c.replica_sets.len()), (1, 1, 1));
    assert_eq!(
        (
            c.stateful_sets.len(),
            c.replication_controllers.len(),
            c.pod_groups.len()
        ),
        (1, 1, 1)
    );
    assert_eq!(state.resource_versions[&Kind::Pod], "1000");
    // Every kind but the native gang API (scheduling.k8s.io Workload, PodGroup and
    // CompositePodGroup), which the mock server does not serve (discovery answers 404 and they
    // are skipped).
    let gang = Kind::ALL
        .iter()
        .filter(|k| k.discovered() && k.api_version().starts_with("scheduling.k8s.io/"))
        .count();
    assert_eq!(gang, 6);
    assert_eq!(state.resource_versions.len(), Kind::COUNT - gang);
    // The VolumeAttachment, as served.
    let va = &c.volume_attachments["csi-5f2a9c0d1e"];
    assert_eq!(
        (va.spec.attacher.as_str(), va.spec.node_name.as_str()),
        ("ebs.csi.aws.com", "node-a")
    );
    assert_eq!(va.spec.source.persistent_volume_name.as_deref(), Some("pv-db-0"));
    assert_eq!(va.status.as_ref().map(|s| s.attached), Some(true));
    assert_eq!(state.resource_versions[&Kind::VolumeAttachment], "1000");
    // FailedScheduling events about pods only: the Scheduled and FailedMount events of the
    // cluster are left out by the field selector.
    assert_eq!(state.objects_of(Kind::Event).count(), 2);
    assert_eq!(c.scheduling_events.len(), 2);
    assert!(state.unreadable.is_empty());
    assert_eq!((c.csi_drivers.len(), c.csi_storage_capacities.len()), (1, 1));
    // 8 pods in pages of 2: four pages, the last one done.
    let pods: Vec<Progress> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|p| p.kind == Kind::Pod)
        .cloned()
        .collect();
    assert_eq!(
        pods.iter().map(|p| (p.items, p.pages, p.done)).collect::<Vec<_>>(),
        [(2, 1, false), (4, 2, false), (6, 3, false), (8, 4, true)]
    );
    let reqs = server.requests();
    let pod_lists: Vec<_> = reqs.iter().filter(|r| r.path == "/api/v1/pods").collect();
    assert_eq!(pod_lists.len(), 4);
    assert_eq!(pod_lists[0].param("limit").as_deref(), Some("2"));
    assert_eq!(pod_lists[0].param("continue"), None);
    assert_eq!(pod_lists[1].param("continue").as_deref(), Some("pods:1000:2"));
    for r in &reqs {
        assert!(
            !r.path.contains("secrets") && !r.path.contains("configmaps"),
            "{}",
            r.path
        );
        assert_eq!(r.method, "GET");
        assert!(
            r.headers
                .contains(&("authorization".into(), "Bearer test-token".into()))
        );
    }
    let paths: std::collections::BTreeSet<&str> = reqs.iter().map(|r| r.path.as_str()).collect();
    for p in [
        "/api/v1/nodes",
        "/api/v1/namespaces",
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        "/apis/policy/v1/poddisruptionbudgets",
        "/api/v1/persistentvolumes",
        "/api/v1/persistentvolumeclaims",
        "/apis/storage.k8s.io/v1/storageclasses",
        "/apis/storage.k8s.io/v1/csinodes",
        "/apis/storage.k8s.io/v1/csidrivers",
        "/apis/storage.k8s.io/v1/csistoragecapacities",
        "/apis/storage.k8s.io/v1/volumeattachments",
        "/api/v1/services",
        "/apis/apps/v1/replicasets",
        "/apis/apps/v1/statefulsets",
        "/api/v1/replicationcontrollers",
        "/apis/scheduling.x-k8s.io/v1alpha1/podgroups",
        "/api/v1/events",
    ] {
        assert!(paths.contains(p), "{p} not listed");
    }
}

fn event_json(name: &str, pod: &str, rv: &str, reason: &str, message: &str, count: i32) -> Value {
    json!({
        "metadata": {"name": name, "namespace": "default", "resourceVersion": rv, "uid": format!("uid-{name}"),
                     "creationTimestamp": "2024-05-01T11:00:00Z"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": pod, "uid": "0b1a3c8e-0010-4000-8000-000000000008",
                           "apiVersion": "v1"},
        "reason": reason,
        "message": message,
        "source": {"component": "default-scheduler"},
        "firstTimestamp": "2024-05-01T11:00:00Z",
        "lastTimestamp": format!("2024-05-01T11:0{count}:00Z"),
        "count": count,
        "type": if reason == "FailedScheduling" { "Warning" } else { "Normal" },
        "reportingComponent": "",
        "reportingInstance": ""
    })
}

#[tokio::test]
async fn failed_scheduling_events_are_listed_and_watched_through_the_field_selector() {
    let server = ApiServer::start();
    let dir = server.scratch("events");
    let mut o = options(server.kubeconfig(&dir, None));
    o.watch.page_size = 1;
    let src = LiveSource::connect(&o, &Environment::default()).await.unwrap();
    let mut state = src.load_state().await.unwrap();
    assert_eq!(state.resource_versions[&Kind::Event], "1000");
    server.script_watch(
        "events",
        vec![
            Step::Event(
                "ADDED",
                event_json(
                    "big.1",
                    "big",
                    "1001",
                    "FailedScheduling",
                    "0/4 nodes are available: 4 Insufficient cpu.",
                    1,
                ),
            ),
            // Not selected: the server does not send it.
            Step::Event(
                "ADDED",
                event_json(
                    "big.2",
                    "big",
                    "1002",
                    "Scheduled",
                    "Successfully assigned default/big to node-c",
                    1,
                ),
            ),
            Step::Event(
                "MODIFIED",
                event_json(
                    "big.1",
                    "big",
                    "1003",
                    "FailedScheduling",
                    "0/4 nodes are available: 4 Insufficient cpu.",
                    4,
                ),
            ),
            Step::Event(
                "ERROR",
                status_json(410, "Expired", "too old resource version: 1003 (1100)", None),
            ),
        ],
    );
    let relisted = vec![event_json(
        "big.9",
        "big",
        "1200",
        "FailedScheduling",
        "0/3 nodes are available: 3 Insufficient cpu.",
        2,
    )];
    let (tx, mut rx) = mpsc::channel(64);
    let mut events = Vec::new();
    let run = src.watch(tx);
    let check = async {
        drain_until(&mut rx, &mut state, &mut events, |s, _| {
            s.resource_versions.get(&Kind::Event).map(String::as_str) == Some("1003")
        })
        .await;
        let c = state.to_cluster().unwrap();
        let big = &c.scheduling_events[&k("default/big")];
        assert_eq!(big.len(), 2, "{big:?}");
        assert_eq!((big[0].key.name.as_str(), big[0].count), ("big.1", 4));
        server.set_items("events", relisted.clone(), "1200");
        drain_until(&mut rx, &mut state, &mut events, |_, e| {
            e.iter()
                .any(|x| matches!(x, ClusterEvent::Resynced { kind: Kind::Event, .. }))
        })
        .await;
        drop(rx);
    };
    let (r, ()) = tokio::join!(run, check);
    r.unwrap();
    let seen: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            ClusterEvent::Applied(o) if o.kind() == Some(Kind::Event) => Some(o.key().to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(seen, ["default/big.1", "default/big.1"]);
    let c = state.to_cluster().unwrap();
    assert_eq!(c.scheduling_events[&k("default/big")].len(), 1);
    assert_eq!(c.scheduling_events[&k("default/big")][0].key.name, "big.9");
    assert!(!c.scheduling_events.contains_key(&k("shop/web-7d4b9-pend")));
    // Every request for events, paged list or watch, carried the selector; the watch started
    // from the list's resourceVersion and the relist came after the 410.
    let reqs: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/v1/events")
        .collect();
    for r in &reqs {
        assert_eq!(
            r.param("fieldSelector").as_deref(),
            Some("involvedObject.kind=Pod,reason=FailedScheduling"),
            "{}",
            r.query
        );
    }
    let lists: Vec<_> = reqs.iter().filter(|r| !r.is_watch()).collect();
    // Two pages of one event at load, then one page after the 410.
    assert_eq!(lists.len(), 3);
    assert_eq!(lists[1].param("continue").as_deref(), Some("events:1000:1"));
    let watch = reqs.iter().find(|r| r.is_watch()).unwrap();
    assert_eq!(watch.param("resourceVersion").as_deref(), Some("1000"));
}

#[tokio::test]
async fn forbidden_events_do_not_fail_the_load_and_are_not_watched() {
    let server = ApiServer::start();
    server.forbid_events();
    let src = connect(&server, WriteMode::Enabled).await;
    let mut state = src.load_state().await.unwrap();
    let why = "403 Forbidden: events is forbidden: User \"tester\" cannot list resource \"events\" in API group \"\" at the cluster scope";
    assert_eq!(state.unreadable.get(&Kind::Event).map(String::as_str), Some(why));
    assert_eq!(state.objects_of(Kind::Event).count(), 0);
    let c = state.to_cluster().unwrap();
    assert_eq!(c.events_unreadable.as_deref(), Some(why));
    assert_eq!(c.pods.len(), 8);
    // The watch starts for every other kind and not for events.
    let mut pod = pod_json("new", "default", "1001", None);
    pod["metadata"]["creationTimestamp"] = json!("2024-05-02T00:00:00Z");
    server.script_watch("pods", vec![Step::Event("ADDED", pod)]);
    let (tx, mut rx) = mpsc::channel(64);
    let mut events = Vec::new();
    let run = src.watch(tx);
    let check = async {
        drain_until(&mut rx, &mut state, &mut events, |s, _| {
            s.get(Kind::Pod, &k("default/new")).is_some()
        })
        .await;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while server.requests().iter().filter(|r| r.is_watch()).count() < Kind::ALL.len() - 1 {
            assert!(tokio::time::Instant::now() < deadline, "{:?}", server.requests());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        drop(rx);
    };
    let (r, ()) = tokio::join!(run, check);
    r.unwrap();
    let event_requests = server.requests().iter().filter(|r| r.path == "/api/v1/events").count();
    assert_eq!(event_requests, 1, "one list, refused; no watch");
    // Still not readable after the watch: the state keeps saying why.
    assert!(state.unreadable.contains_key(&Kind::Event));
}

#[tokio::test]
async fn forbidden_volume_attachments_do_not_fail_the_load_and_are_not_watched() {
    let server = ApiServer::start();
    server.forbid_volume_attachments();
    let src = connect(&server, WriteMode::Enabled).await;
    let mut state = src.load_state().await.unwrap();
    let why = "403 Forbidden: volumeattachments is forbidden: User \"tester\" cannot list resource \"volumeattachments\" in API group \"storage.k8s.io\" at the cluster scope";
    assert_eq!(
        state.unreadable.get(&Kind::VolumeAttachment).map(String::as_str),
        Some(why)
    );
    assert!(!state.unreadable.contains_key(&Kind::Event));
    assert_eq!(state.objects_of(Kind::VolumeAttachment).count(), 0);
    let c = state.to_cluster().unwrap();
    assert!(c.volume_attachments.is_empty());
    assert_eq!(c.pods.len(), 8);
    assert_eq!(c.events_unreadable, None);
    assert_eq!(
        c.warnings,
        [format!(
            "VolumeAttachments could not be read ({why}): from 1.32 NodeVolumeLimits also counts the volumes they attach to a node, so its verdicts may understate what is attached"
        )]
    );
    // Every other kind is watched; VolumeAttachments are not.
    let mut pod = pod_json("new", "default", "1001", None);
    pod["metadata"]["creationTimestamp"] = json!("2024-05-02T00:00:00Z");
    server.script_watch("pods", vec![Step::Event("ADDED", pod)]);
    let (tx, mut rx) = mpsc::channel(64);
    let mut events = Vec::new();
    let run = src.watch(tx);
    let check = async {
        drain_until(&mut rx, &mut state, &mut events, |s, _| {
            s.get(Kind::Pod, &k("default/new")).is_some()
        })
        .await;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while server.requests().iter().filter(|r| r.is_watch()).count() < Kind::ALL.len() - 1 {
            assert!(tokio::time::Instant::now() < deadline, "{:?}", server.requests());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        drop(rx);
    };
    let (r, ()) = tokio::join!(run, check);
    r.unwrap();
    let va_requests = server
        .requests()
        .iter()
        .filter(|r| r.path == "/apis/storage.k8s.io/v1/volumeattachments")
        .count();
    assert_eq!(va_requests, 1, "one list, refused; no watch");
    assert!(state.unreadable.contains_key(&Kind::VolumeAttachment));
}

#[tokio::test]
async fn volume_attachments_are_watched() {
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::Enabled).await;
    let mut state = src.load_state().await.unwrap();
    let added = json!({
        "metadata": {"name": "csi-77", "resourceVersion": "1001", "uid": "uid-va-77"},
        "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "node-c", "source": {"persistentVolumeName": "pv-db-0"}},
        "status": {"attached": false}
    });
    let gone = json!({
        "metadata": {"name": "csi-5f2a9c0d1e", "resourceVersion": "1002"},
        "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "node-a", "source": {"persistentVolumeName": "pv-db-0"}}
    });
    server.script_watch(
        "volumeattachments",
        vec![Step::Event("ADDED", added), Step::Event("DELETED", gone)],
    );
    let (tx, mut rx) = mpsc::channel(64);
    let mut events = Vec::new();
    let run = src.watch(tx);
    let check = async {
        drain_until(&mut rx, &mut state, &mut events, |s, _| {
            s.get(Kind::VolumeAttachment, &k("csi-77")).is_some()
                && s.get(Kind::VolumeAttachment, &k("csi-5f2a9c0d1e")).is_none()
        })
        .await;
        drop(rx);
    };
    let (r, ()) = tokio::join!(run, check);
    r.unwrap();
    let c = state.to_cluster().unwrap();
    assert_eq!(c.volume_attachments.keys().collect::<Vec<_>>(), ["csi-77"]);
    assert_eq!(c.volume_attachments["csi-77"].spec.node_name, "node-c");
    assert_eq!(state.resource_versions[&Kind::VolumeAttachment], "1002");
}

#[tokio::test]
async fn pod_groups_are_skipped_when_the_crd_is_not_served() {
    let server = ApiServer::start();
    server.serve_pod_groups(false);
    let src = connect(&server, WriteMode::Enabled).await;
    let state = src.load_state().await.unwrap();
    assert_eq!(state.objects_of(Kind::PodGroup).count(), 0);
    assert!(!server.requests().iter().any(|r| r.path.ends_with("/podgroups")));
}

#[tokio::test]
async fn dra_kinds_are_skipped_when_resource_k8s_io_is_not_served() {
    // A cluster without DRA (1.33 with the beta API off): no request for its kinds, no
    // warning, and the rest loads.
    let server = ApiServer::start();
    server.serve_dra(false);
    let src = connect(&server, WriteMode::Enabled).await;
    let state = src.load_state().await.unwrap();
    assert!(state.unreadable.is_empty(), "{:?}", state.unreadable);
    assert!(
        !server
            .requests()
            .iter()
            .any(|r| r.path.contains("/resource.k8s.io/v1/") || r.path.ends_with("/resourceclaims")),
        "listed a DRA kind"
    );
    assert_eq!(state.to_cluster().unwrap().pods.len(), 8);
    // Served: every DRA kind is listed.
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::Enabled).await;
    src.load_state().await.unwrap();
    for plural in [
        "deviceclasses",
        "resourceslices",
        "resourceclaims",
        "resourceclaimtemplates",
        "devicetaintrules",
    ] {
        assert!(
            server.requests().iter().any(|r| r.path.ends_with(plural)),
            "{plural} not listed"
        );
    }
}

#[tokio::test]
async fn forbidden_resource_claims_are_a_warning_not_a_failure() {
    let server = ApiServer::start();
    server.forbid_resource_claims();
    let src = connect(&server, WriteMode::Enabled).await;
    let state = src.load_state().await.unwrap();
    assert!(state.unreadable[&Kind::ResourceClaim].starts_with("403 Forbidden: resourceclaims is forbidden"));
    let c = state.to_cluster().unwrap();
    assert!(
        c.warnings.iter().any(|w| w.starts_with(
            "ResourceClaims could not be read (403 Forbidden: resourceclaims is forbidden: User \"tester\" cannot list resource \"resourceclaims\""
        ) && w.ends_with("pods with resource claims are explained as if they did not exist")),
        "{:?}",
        c.warnings
    );
    assert_eq!(c.pods.len(), 8);
}

#[tokio::test]
async fn an_expired_continue_token_restarts_the_list() {
    let server = ApiServer::start();
    server.expire_continue_tokens(1);
    let dir = server.scratch("expire");
    let mut o = options(server.kubeconfig(&dir, None));
    o.watch.page_size = 3;
    let src = LiveSource::connect(&o, &Environment::default()).await.unwrap();
    let state = src.load_state().await.unwrap();
    assert_eq!(state.to_cluster().unwrap().pods.len(), 8);
    // The first request with a continue token was refused (410); the same collection was
    // then listed again from the start, and its pages followed.
    let reqs = server.requests();
    let i = reqs.iter().position(|r| r.param("continue").is_some()).unwrap();
    let path = &reqs[i].path;
    let next: Vec<Option<String>> = reqs[i + 1..]
        .iter()
        .filter(|r| &r.path == path)
        .map(|r| r.param("continue"))
        .collect();
    assert_eq!(next[0], None, "restarted from the first page");
    assert!(next[1].is_some(), "then paged on");
}

#[tokio::test]
async fn a_single_namespace_scope_lists_namespaced_kinds_there_only() {
    let server = ApiServer::start();
    let dir = server.scratch("scope");
    let mut o = options(server.kubeconfig(&dir, None));
    o.scope = Scope::Namespace("shop".into());
    let src = LiveSource::connect(&o, &Environment::default()).await.unwrap();
    let c = src.load_state().await.unwrap().to_cluster().unwrap();
    assert!(c.pods.iter().all(|p| p.key.namespace == "shop"));
    assert_eq!(c.nodes.len(), 3);
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(paths.contains(&"/api/v1/namespaces/shop/pods".to_string()));
    assert!(paths.contains(&"/api/v1/nodes".to_string()));
    assert!(!paths.contains(&"/api/v1/pods".to_string()));
}

fn pod_json(name: &str, ns: &str, rv: &str, node: Option<&str>) -> Value {
    let mut p = json!({
        "metadata": {"name": name, "namespace": ns, "resourceVersion": rv, "uid": format!("uid-{name}"),
                     "creationTimestamp": "2024-05-02T00:00:00Z"},
        "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "100m"}}}]},
        "status": {"phase": "Pending"}
    });
    if let Some(n) = node {
        p["spec"]["nodeName"] = json!(n);
    }
    p
}

/// Collects events until `done(state)` holds (or fails after 10 s).
async fn drain_until(
    rx: &mut mpsc::Receiver<ClusterEvent>,
    state: &mut ClusterState,
    events: &mut Vec<ClusterEvent>,
    done: impl Fn(&ClusterState, &[ClusterEvent]) -> bool,
) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !done(state, events) {
        let ev = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .unwrap_or_else(|_| panic!("timed out; events so far: {events:#?}"))
            .unwrap();
        state.apply(ev.clone());
        events.push(ev);
    }
}

#[tokio::test]
async fn watch_applies_added_modified_deleted_bookmarks_and_relists_on_410() {
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::Enabled).await;
    let mut state = src.load_state().await.unwrap();
    server.script_watch(
        "pods",
        vec![
            Step::Event("ADDED", pod_json("new", "default", "1001", None)),
            Step::Event("MODIFIED", pod_json("new", "default", "1002", Some("node-a"))),
            Step::Event(
                "BOOKMARK",
                json!({"kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion": "1005"}}),
            ),
            Step::Event("DELETED", {
                let mut big = pod_json("big", "default", "1006", None);
                big["metadata"]["uid"] = json!("0b1a3c8e-0010-4000-8000-000000000008");
                big
            }),
            Step::Event(
                "ERROR",
                status_json(410, "Expired", "too old resource version: 1006 (1100)", None),
            ),
        ],
    );
    // What the re-list after 410 sees: one pod only.
    let relisted = vec![pod_json("survivor", "default", "1200", Some("node-c"))];
    let (tx, mut rx) = mpsc::channel(64);
    let mut events = Vec::new();
    let run = src.watch(tx);
    let check = async {
        drain_until(&mut rx, &mut state, &mut events, |s, _| {
            s.get(Kind::Pod, &k("default/new")).is_some() && s.resource_versions[&Kind::Pod] == "1002"
        })
        .await;
        let c = state.to_cluster().unwrap();
        assert_eq!(c.pod(&k("default/new")).unwrap().node_name.as_deref(), Some("node-a"));
        server.set_items("pods", relisted.clone(), "1200");
        drain_until(&mut rx, &mut state, &mut events, |_, e| {
            e.iter()
                .any(|x| matches!(x, ClusterEvent::Resynced { kind: Kind::Pod, .. }))
        })
        .await;
        drop(rx);
    };
    let (r, ()) = tokio::join!(run, check);
    r.unwrap();
    let kinds: Vec<&str> = events
        .iter()
        .filter(|e| e.kind() == Some(Kind::Pod))
        .map(|e| match e {
            ClusterEvent::Applied(_) => "applied",
            ClusterEvent::Deleted(_) => "deleted",
            ClusterEvent::Bookmark { .. } => "bookmark",
            ClusterEvent::Resynced { .. } => "resynced",
            ClusterEvent::Stale { .. } => "stale",
            ClusterEvent::Resumed { .. } => "resumed",
            ClusterEvent::Replaced { .. } => "replaced",
        })
        .collect();
    assert_eq!(kinds, ["applied", "applied", "bookmark", "deleted", "resynced"]);
    let keys: Vec<String> = state.objects_of(Kind::Pod).map(|o| o.key().to_string()).collect();
    assert_eq!(keys, ["default/survivor"]);
    assert_eq!(state.resource_versions[&Kind::Pod], "1200");
    // The watch started from the list's resourceVersion with bookmarks; after 410 the pods
    // were listed again.
    let reqs = server.requests();
    let watches: Vec<_> = reqs
        .iter()
        .filter(|r| r.path == "/api/v1/pods" && r.is_watch())
        .collect();
    assert_eq!(watches[0].param("resourceVersion").as_deref(), Some("1000"));
    assert_eq!(watches[0].param("allowWatchBookmarks").as_deref(), Some("true"));
    let lists_after = reqs
        .iter()
        .filter(|r| r.path == "/api/v1/pods" && !r.is_watch())
        .count();
    assert_eq!(lists_after, 2);
    if let Some(w) = watches.get(1) {
        assert_eq!(w.param("resourceVersion").as_deref(), Some("1200"));
    }
}

#[tokio::test]
async fn a_dropped_watch_resumes_from_the_last_resource_version() {
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::Enabled).await;
    let mut state = src.load_state().await.unwrap();
    let mut node = server.items("nodes")[0].clone();
    node["metadata"]["resourceVersion"] = json!("1010");
    node["metadata"]["labels"]["new"] = json!("yes");
    let mut node2 = node.clone();
    node2["metadata"]["resourceVersion"] = json!("1011");
    node2["spec"]["unschedulable"] = json!(true);
    server.script_watch(
        "nodes",
        vec![Step::Event("MODIFIED", node), Step::Sleep(50), Step::Drop],
    );
    server.script_watch("nodes", vec![Step::Event("MODIFIED", node2)]);
    let (tx, mut rx) = mpsc::channel(64);
    let mut events = Vec::new();
    let run = src.watch(tx);
    let check = async {
        drain_until(&mut rx, &mut state, &mut events, |s, _| {
            s.resource_versions.get(&Kind::Node).map(String::as_str) == Some("1011")
        })
        .await;
        drop(rx);
    };
    let (r, ()) = tokio::join!(run, check);
    r.unwrap();
    let c = state.to_cluster().unwrap();
    assert!(c.node("node-a").unwrap().unschedulable);
    let rvs: Vec<Option<String>> = server
        .requests()
        .iter()
        .filter(|r| r.path == "/api/v1/nodes" && r.is_watch())
        .map(|r| r.param("resourceVersion"))
        .collect();
    assert_eq!(rvs[..2], [Some("1000".to_string()), Some("1010".to_string())]);
}

#[tokio::test]
async fn a_failing_watch_marks_its_kind_stale_until_it_resumes() {
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::Enabled).await;
    let mut state = src.load_state().await.unwrap();
    server.reply_once(
        "GET",
        "/api/v1/services",
        Reply::status(500, "InternalError", "etcdserver: request timed out"),
    );
    let mut svc = server.items("services")[0].clone();
    svc["metadata"]["resourceVersion"] = json!("1020");
    server.script_watch("services", vec![Step::Event("MODIFIED", svc)]);
    let (tx, mut rx) = mpsc::channel(64);
    let mut events = Vec::new();
    let run = src.watch(tx);
    let check = async {
        drain_until(&mut rx, &mut state, &mut events, |s, e| {
            e.iter().any(|x| {
                matches!(
                    x,
                    ClusterEvent::Stale {
                        kind: Kind::Service,
                        ..
                    }
                )
            }) && s.resource_versions[&Kind::Service] == "1020"
        })
        .await;
        drop(rx);
    };
    let (r, ()) = tokio::join!(run, check);
    r.unwrap();
    let svc_events: Vec<&ClusterEvent> = events.iter().filter(|e| e.kind() == Some(Kind::Service)).collect();
    let ClusterEvent::Stale { reason, .. } = svc_events[0] else {
        panic!("{svc_events:?}")
    };
    assert_eq!(
        reason,
        &format!(
            "{} answered 500 while watching services in all namespaces: etcdserver: request timed out",
            server.url()
        )
    );
    assert!(matches!(svc_events[1], ClusterEvent::Resumed { .. }), "{svc_events:?}");
    assert!(!state.is_stale());
}

async fn load_error(kubeconfig: std::path::PathBuf) -> LiveError {
    let mut o = options(kubeconfig);
    o.watch.request_timeout = Duration::from_secs(2);
    let src = match LiveSource::connect(&o, &Environment::default()).await {
        Ok(s) => s,
        Err(e) => return e,
    };
    match src.server_version().await {
        Err(e) => e,
        Ok(_) => src.load_state().await.unwrap_err(),
    }
}

#[tokio::test]
async fn each_failure_to_read_gives_one_line_naming_the_server() {
    // Unreachable: a port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = temp_dir("unreachable");
    let url = format!("http://127.0.0.1:{port}");
    let e = load_error(write_kubeconfig(dir.path(), &url, None)).await;
    assert!(matches!(e, LiveError::Unreachable { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!("cannot reach the API server at {url} (")),
        "{msg}"
    );
    assert!(
        msg.ends_with(
            "; check that the cluster is running and that the kubeconfig points at it (`kubectl cluster-info`)"
        ),
        "{msg}"
    );

    // TLS: https to a plain-HTTP server.
    let server = ApiServer::start();
    let dir = server.scratch("tls");
    let https = format!("https://{}", server.addr);
    let e = load_error(write_kubeconfig(&dir, &https, None)).await;
    assert!(matches!(e, LiveError::Tls { .. }), "{e:?}");
    assert!(
        e.to_string()
            .starts_with(&format!("TLS handshake with {https} failed (")),
        "{e}"
    );

    // Expired token: 401.
    server.require_token("another-token");
    let dir = server.scratch("401");
    let e = load_error(server.kubeconfig(&dir, None)).await;
    assert_eq!(
        e.to_string(),
        format!(
            "{} rejected the credentials of context 'mock' (401 Unauthorized); they have probably expired: log in again and retry",
            server.url()
        )
    );

    // 403 on listing pods.
    let server = ApiServer::start();
    server.reply_always(
        "GET",
        "/api/v1/pods",
        Reply::status_with(
            403,
            "Forbidden",
            "pods is forbidden: User \"tester\" cannot list resource \"pods\" in API group \"\" at the cluster scope",
            json!({"kind": "pods"}),
        ),
    );
    let dir = server.scratch("403");
    let e = load_error(server.kubeconfig(&dir, None)).await;
    assert_eq!(
        e.to_string(),
        format!(
            "{} does not allow context 'mock' to list pods in all namespaces (403 Forbidden: pods is forbidden: User \"tester\" cannot list resource \"pods\" in API group \"\" at the cluster scope); kschedtui needs get, list and watch on it: ask a cluster admin",
            server.url()
        )
    );

    // A list that does not answer in time.
    server.reply_always("GET", "/api/v1/nodes", Reply::new(200, json!({})).delayed(4000));
    let e = load_error(server.kubeconfig(&dir, None)).await;
    assert_eq!(
        e.to_string(),
        format!(
            "{} did not answer within 2s while listing nodes; check the network or retry with a longer --request-timeout",
            server.url()
        )
    );
}

#[tokio::test]
async fn an_exec_credential_plugin_that_fails_is_a_credential_error() {
    let server = ApiServer::start();
    let dir = server.scratch("exec");
    let kc = dir.join("kubeconfig");
    std::fs::write(&kc, format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: mock\nclusters:\n- name: mock\n  cluster:\n    server: {}\nusers:\n- name: sso\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: sh\n      args: [\"-c\", \"echo 'error: the SSO session has expired' >&2; exit 1\"]\n      interactiveMode: Never\ncontexts:\n- name: mock\n  context:\n    cluster: mock\n    user: sso\n",
        server.url()
    )).unwrap();
    let e = load_error(kc).await;
    assert!(matches!(e, LiveError::Credentials { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        format!(
            "the credentials of context 'mock' for {} could not be used (the exec credential plugin failed: error: the SSO session has expired); they have probably expired: log in again (for example rerun your provider's get-credentials command) and retry",
            server.url()
        )
    );
    assert!(server.requests().is_empty(), "nothing is sent without a credential");
}

#[tokio::test]
async fn bind_posts_a_binding_and_reads_201() {
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::Enabled).await;
    let c = src.load_state().await.unwrap().to_cluster().unwrap();
    let plan = bind_plan(&c, &k("shop/web-7d4b9-pend"), "node-a", None).unwrap();
    assert_eq!(check_plan(&src, &plan).await, Ok(()));
    let report = execute(&src, &plan).await;
    assert_eq!(report.steps, [ReportStep::Done(Outcome::Done { code: 201 })]);
    let w = server.writes();
    assert_eq!(w.len(), 2);
    assert_eq!(w[0].path, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews");
    assert_eq!(
        w[0].json()["spec"]["resourceAttributes"],
        json!({"namespace": "shop", "verb": "create", "group": "", "resource": "pods", "subresource": "binding", "name": "web-7d4b9-pend"})
    );
    assert_eq!(
        (w[1].method.as_str(), w[1].path.as_str()),
        ("POST", "/api/v1/namespaces/shop/pods/web-7d4b9-pend/binding")
    );
    assert_eq!(w[1].query, "");
    assert_eq!(
        w[1].json(),
        json!({"apiVersion": "v1", "kind": "Binding",
               "metadata": {"name": "web-7d4b9-pend", "namespace": "shop", "uid": "0b1a3c8e-0010-4000-8000-000000000007"},
               "target": {"kind": "Node", "name": "node-a"}})
    );
}

#[tokio::test]
async fn bind_answers_404_409_403_and_timeouts_become_messages() {
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::Enabled).await;
    let path = "/api/v1/namespaces/shop/pods/web-7d4b9-pend/binding";
    let pod = k("shop/web-7d4b9-pend");
    server.reply_once(
        "POST",
        path,
        Reply::status_with(
            404,
            "NotFound",
            "pods \"web-7d4b9-pend\" not found",
            json!({"name": "web-7d4b9-pend", "kind": "pods"}),
        ),
    );
    assert_eq!(
        src.bind(&pod, "node-a").await,
        Err(WriteError::NotFound { pod: pod.clone() })
    );
    server.reply_once("POST", path, Reply::status_with(409, "Conflict", "Operation cannot be fulfilled on pods/binding \"web-7d4b9-pend\": pod web-7d4b9-pend is already assigned to node \"node-c\"", json!({"name": "web-7d4b9-pend", "kind": "pods/binding"})));
    let e = src.bind(&pod, "node-a").await.unwrap_err();
    assert_eq!(
        e,
        WriteError::AlreadyBound {
            pod: pod.clone(),
            node: "node-c".into()
        }
    );
    assert_eq!(
        e.to_string(),
        "pod shop/web-7d4b9-pend is already bound to node 'node-c' (409 Conflict); nothing to do"
    );
    // A 409 that does not say where: the pod is read back.
    let mut bound = server
        .items("pods")
        .into_iter()
        .find(|p| p["metadata"]["name"] == "web-7d4b9-pend")
        .unwrap();
    bound["spec"]["nodeName"] = json!("node-b");
    bound["apiVersion"] = json!("v1");
    bound["kind"] = json!("Pod");
    server.reply_once(
        "POST",
        path,
        Reply::status(
            409,
            "Conflict",
            "Operation cannot be fulfilled on pods/binding \"web-7d4b9-pend\": conflict",
        ),
    );
    server.reply_once(
        "GET",
        "/api/v1/namespaces/shop/pods/web-7d4b9-pend",
        Reply::new(200, bound),
    );
    assert_eq!(
        src.bind(&pod, "node-a").await,
        Err(WriteError::AlreadyBound {
            pod: pod.clone(),
            node: "node-b".into()
        })
    );
    server.reply_once("POST", path, Reply::status_with(403, "Forbidden", "pods \"web-7d4b9-pend\" is forbidden: User \"tester\" cannot create resource \"pods/binding\" in API group \"\" in the namespace \"shop\"", json!({"name": "web-7d4b9-pend", "kind": "pods"})));
    assert_eq!(
        src.bind(&pod, "node-a").await.unwrap_err().to_string(),
        "not allowed to create pods/binding in namespace 'shop' (403 Forbidden: pods \"web-7d4b9-pend\" is forbidden: User \"tester\" cannot create resource \"pods/binding\" in API group \"\" in the namespace \"shop\"); ask a cluster admin for this permission"
    );
    server.reply_once("POST", path, Reply::status(201, "", "").delayed(7000));
    assert_eq!(
        src.bind(&pod, "node-a").await.unwrap_err().to_string(),
        "no answer within 5s to 'bind shop/web-7d4b9-pend to node 'node-a''; it may or may not have been applied: check with `kubectl get pod -n shop web-7d4b9-pend`"
    );
    // Nothing was retried: one POST per call.
    assert_eq!(server.writes().iter().filter(|r| r.path == path).count(), 5);
}

#[tokio::test]
async fn eviction_blocked_by_a_pdb_names_it_and_the_preemption_report_is_partial() {
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::Enabled).await;
    let c = src.load_state().await.unwrap().to_cluster().unwrap();
    let victims = [
        k("kube-system/coredns-5d78c"),
        k("shop/web-7d4b9-aaaaa"),
        k("shop/web-7d4b9-bbbbb"),
    ];
    let plan = preempt_plan(&c, &k("default/big"), "node-a", &victims, Removal::Evict).unwrap();
    server.reply_once("POST", "/api/v1/namespaces/shop/pods/web-7d4b9-aaaaa/eviction", Reply::status_with(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.", json!({"causes": [{"reason": "DisruptionBudget", "message": "The disruption budget web-pdb needs 2 healthy pods and has 2 currently"}]})));
    let report = execute(&src, &plan).await;
    assert_eq!(report.steps[0], ReportStep::Done(Outcome::Done { code: 201 }));
    let ReportStep::Failed(e) = &report.steps[1] else {
        panic!("{:?}", report.steps)
    };
    assert_eq!(
        e.to_string(),
        "eviction of shop/web-7d4b9-aaaaa refused (429): PodDisruptionBudget 'web-pdb' does not allow it: The disruption budget web-pdb needs 2 healthy pods and has 2 currently; wait for it to allow a disruption or preempt without --evict"
    );
    assert_eq!(report.steps[2..], [ReportStep::NotSent, ReportStep::NotSent]);
    assert_eq!(report.victims_removed(), [k("kube-system/coredns-5d78c")]);
    let text = report.render(false);
    assert!(text.contains("victims removed: kube-system/coredns-5d78c\n"), "{text}");
    assert!(
        text.contains("victim NOT removed: shop/web-7d4b9-aaaaa: eviction of shop/web-7d4b9-aaaaa refused (429)"),
        "{text}"
    );
    assert!(
        text.contains("victim NOT removed: shop/web-7d4b9-bbbbb: not attempted: an earlier request failed"),
        "{text}"
    );
    // Two evictions were sent, not three, and no nomination.
    let w = server.writes();
    assert_eq!(w.iter().filter(|r| r.path.ends_with("/eviction")).count(), 2);
    assert!(!w.iter().any(|r| r.method == "PATCH"));
    let ev = w[0].json();
    assert_eq!(
        ev,
        json!({"apiVersion": "policy/v1", "kind": "Eviction",
        "metadata": {"name": "coredns-5d78c", "namespace": "kube-system"},
        "deleteOptions": {"preconditions": {"uid": "0b1a3c8e-0010-4000-8000-000000000001"}}})
    );
}

#[tokio::test]
async fn delete_preemption_marks_then_deletes_then_nominates_and_a_gone_victim_counts_as_removed() {
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::Enabled).await;
    let c = src.load_state().await.unwrap().to_cluster().unwrap();
    let plan = preempt_plan(
        &c,
        &k("default/big"),
        "node-c",
        &[k("default/batch-1")],
        Removal::Delete,
    )
    .unwrap();
    server.reply_once(
        "DELETE",
        "/api/v1/namespaces/default/pods/batch-1",
        Reply::status_with(
            404,
            "NotFound",
            "pods \"batch-1\" not found",
            json!({"name": "batch-1", "kind": "pods"}),
        ),
    );
    let report = execute(&src, &plan).await;
    assert!(report.ok(), "{}", report.render(false));
    assert_eq!(report.victims_removed(), [k("default/batch-1")]);
    let w = server.writes();
    let seq: Vec<(String, String)> = w.iter().map(|r| (r.method.clone(), r.path.clone())).collect();
    assert_eq!(
        seq,
        [
            (
                "PATCH".to_string(),
                "/api/v1/namespaces/default/pods/batch-1/status".to_string()
            ),
            (
                "DELETE".to_string(),
                "/api/v1/namespaces/default/pods/batch-1".to_string()
            ),
            (
                "PATCH".to_string(),
                "/api/v1/namespaces/default/pods/big/status".to_string()
            ),
        ]
    );
    let mark = w[0].json();
    let cond = &mark["status"]["conditions"][0];
    assert_eq!(
        (cond["type"].as_str(), cond["reason"].as_str()),
        (Some("DisruptionTarget"), Some("PreemptionByScheduler"))
    );
    assert_eq!(
        cond["message"],
        "default-scheduler: preempting to accommodate a higher priority pod"
    );
    assert!(cond["lastTransitionTime"].as_str().unwrap().ends_with('Z'));
    assert!(
        w[0].headers
            .contains(&("content-type".into(), "application/strategic-merge-patch+json".into()))
    );
    assert_eq!(
        w[1].json()["preconditions"],
        json!({"uid": "0b1a3c8e-0010-4000-8000-000000000005"})
    );
    assert_eq!(w[2].json(), json!({"status": {"nominatedNodeName": "node-c"}}));
}

#[tokio::test]
async fn dry_run_sends_dry_run_all_and_readonly_sends_nothing() {
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::DryRun).await;
    let c = src.load_state().await.unwrap().to_cluster().unwrap();
    let plan = preempt_plan(
        &c,
        &k("default/big"),
        "node-c",
        &[k("default/batch-1")],
        Removal::Delete,
    )
    .unwrap();
    let report = execute(&src, &plan).await;
    assert!(report.ok());
    let w = server.writes();
    assert_eq!(w.len(), 3);
    for r in &w {
        assert_eq!(r.param("dryRun").as_deref(), Some("All"), "{} {}", r.method, r.path);
    }
    assert_eq!(w[1].json()["dryRun"], json!(["All"]));

    let server = ApiServer::start();
    let src = connect(&server, WriteMode::ReadOnly).await;
    let c = src.load_state().await.unwrap().to_cluster().unwrap();
    let plan = bind_plan(&c, &k("shop/web-7d4b9-pend"), "node-a", None).unwrap();
    assert_eq!(check_plan(&src, &plan).await, Err(vec![WriteError::ReadOnly]));
    let report = execute(&src, &plan).await;
    assert_eq!(report.steps, [ReportStep::Failed(WriteError::ReadOnly)]);
    assert_eq!(
        src.send(&WriteRequest::Delete {
            pod: k("default/batch-1"),
            uid: None
        })
        .await,
        Err(WriteError::ReadOnly)
    );
    assert!(server.writes().is_empty(), "{:?}", server.writes());
}

#[tokio::test]
async fn access_review_refusals_name_the_verb_and_resource() {
    let server = ApiServer::start();
    server.deny("delete", "");
    let src = connect(&server, WriteMode::Enabled).await;
    let c = src.load_state().await.unwrap().to_cluster().unwrap();
    let plan = preempt_plan(
        &c,
        &k("default/big"),
        "node-c",
        &[k("default/batch-1")],
        Removal::Delete,
    )
    .unwrap();
    let refused = check_plan(&src, &plan).await.unwrap_err();
    assert_eq!(refused.len(), 1);
    // the review was accepted (201); what it denies is the permission, not the request
    assert!(
        matches!(&refused[0], WriteError::Denied { access, reason }
            if access == "delete pods in namespace 'default'" && reason == "RBAC: user \"tester\" may not delete pods"),
        "{:?}",
        refused[0]
    );
    assert_eq!(
        refused[0].to_string(),
        "not allowed to delete pods in namespace 'default': permission denied (the SelfSubjectAccessReview answers allowed: false, reason: RBAC: user \"tester\" may not delete pods); ask a cluster admin for this permission"
    );
    // One review per verb and resource: patch pods/status (the two status patches share one)
    // and delete pods.
    let reviews = server
        .writes()
        .iter()
        .filter(|r| r.path.ends_with("selfsubjectaccessreviews"))
        .count();
    assert_eq!(reviews, 2);
}

#[tokio::test]
async fn an_access_review_without_an_answer_stops_the_checks_and_claims_nothing_applied() {
    let server = ApiServer::start();
    let ssar = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    server.reply_always("POST", ssar, Reply::new(201, json!({})).delayed(4000));
    let mut o = options(server.kubeconfig(&server.scratch("src"), None));
    o.watch.request_timeout = Duration::from_secs(1);
    let src = LiveSource::connect(&o, &Environment::default()).await.unwrap();
    let c = src.load_state().await.unwrap().to_cluster().unwrap();
    let plan = preempt_plan(
        &c,
        &k("default/big"),
        "node-c",
        &[k("default/batch-1")],
        Removal::Delete,
    )
    .unwrap();
    // the plan needs two permissions (patch pods/status, delete pods): the first check's
    // silence is not asked again for the second
    let refused = check_plan(&src, &plan).await.unwrap_err();
    assert_eq!(
        refused,
        [WriteError::Transport(
            "no answer within 1s to the permission check (patch pods/status in namespace 'default'); check the network or retry with a longer --request-timeout".into()
        )]
    );
    assert_eq!(server.writes().iter().filter(|r| r.path == ssar).count(), 1);
    assert_eq!(server.writes().len(), 1, "nothing but the review was sent");
}

/// Waits for the `Replaced` event, applying everything before it; returns its reason.
async fn until_replaced(rx: &mut mpsc::Receiver<ClusterEvent>, state: &mut ClusterState) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let ev = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .expect("timed out waiting for the re-list")
            .unwrap();
        let reason = match &ev {
            ClusterEvent::Replaced { reason, .. } => Some(reason.clone()),
            _ => None,
        };
        state.apply(ev);
        if let Some(r) = reason {
            return r;
        }
    }
}

/// The uid of pod `key` in a state.
fn pod_uid(state: &ClusterState, key: &str) -> String {
    state.get(Kind::Pod, &k(key)).unwrap().meta().uid.clone().unwrap()
}

/// Lists (not watches) of pods so far.
fn pod_lists(server: &ApiServer) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.path == "/api/v1/pods" && !r.is_watch())
        .count()
}

#[tokio::test]
async fn a_cluster_recreated_under_the_same_url_is_found_by_its_kube_system_uid_and_listed_again() {
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::Enabled).await;
    let mut state = src.load_state().await.unwrap();
    assert_eq!(
        pod_uid(&state, "shop/web-7d4b9-pend"),
        "0b1a3c8e-0010-4000-8000-000000000007"
    );
    // the cluster goes away (the node watch breaks) and comes back as a new one that accepts
    // the old resourceVersions and sends nothing
    server.script_watch("nodes", vec![Step::Sleep(300), Step::Drop]);
    let (tx, mut rx) = mpsc::channel(256);
    let run = src.watch(tx);
    let check = async {
        // the first watches start before the cluster is recreated (the node watch breaks
        // after 300 ms)
        tokio::time::sleep(Duration::from_millis(100)).await;
        server.recreate(40);
        let reason = until_replaced(&mut rx, &mut state).await;
        drop(rx);
        reason
    };
    let (r, reason) = tokio::join!(run, check);
    r.unwrap();
    assert_eq!(
        reason,
        "namespace kube-system has uid 7f3e9d21-0001-4000-8000-000000000002, was 0b1a3c8e-0001-4000-8000-000000000002: the cluster was recreated under the same URL"
    );
    // every kind was listed again: the objects are the new cluster's
    assert_eq!(
        pod_uid(&state, "shop/web-7d4b9-pend"),
        "7f3e9d21-0010-4000-8000-000000000007"
    );
    assert_eq!(state.resource_versions[&Kind::Pod], "40");
    assert_eq!(state.resource_versions[&Kind::Node], "40");
    assert!(!state.is_stale());
    assert_eq!(pod_lists(&server), 2);
    // and a bind now carries the new uid
    let c = state.to_cluster().unwrap();
    let plan = bind_plan(&c, &k("shop/web-7d4b9-pend"), "node-a", None).unwrap();
    let [WriteRequest::Bind { uid, .. }] = plan.requests.as_slice() else {
        panic!("{:?}", plan.requests)
    };
    assert_eq!(uid.as_deref(), Some("7f3e9d21-0010-4000-8000-000000000007"));
}

#[tokio::test]
async fn a_watch_event_with_a_new_uid_for_a_known_name_lists_everything_again() {
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::Enabled).await;
    let mut state = src.load_state().await.unwrap();
    server.recreate(40);
    // the new cluster's scheduler binds its pod: a MODIFIED event from another cluster
    let mut pod = server
        .items("pods")
        .into_iter()
        .find(|p| p["metadata"]["name"] == "web-7d4b9-pend")
        .unwrap();
    pod["spec"]["nodeName"] = json!("node-a");
    pod["metadata"]["resourceVersion"] = json!("1001");
    server.script_watch("pods", vec![Step::Event("MODIFIED", pod)]);
    let (tx, mut rx) = mpsc::channel(256);
    let run = src.watch(tx);
    let check = async {
        let reason = until_replaced(&mut rx, &mut state).await;
        drop(rx);
        reason
    };
    let (r, reason) = tokio::join!(run, check);
    r.unwrap();
    assert_eq!(
        reason,
        "the watch sent Pod shop/web-7d4b9-pend with uid 7f3e9d21-0010-4000-8000-000000000007, known with uid 0b1a3c8e-0010-4000-8000-000000000007: the cluster was recreated under the same URL"
    );
    assert_eq!(
        pod_uid(&state, "shop/web-7d4b9-pend"),
        "7f3e9d21-0010-4000-8000-000000000007"
    );
    assert_eq!(state.resource_versions[&Kind::Service], "40");
}

#[tokio::test]
async fn a_relist_whose_resource_version_went_back_lists_everything_again() {
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::Enabled).await;
    let mut state = src.load_state().await.unwrap();
    // an etcd restore: the same objects with the same uids (the kube-system namespace's too),
    // the old resourceVersion gone (410), and the list that follows older than the one
    // kschedtui has
    let namespaces = server.items("namespaces");
    server.recreate(40);
    let restored: Vec<Value> = server
        .items("namespaces")
        .into_iter()
        .zip(&namespaces)
        .map(|(mut new, old)| {
            new["metadata"]["uid"] = old["metadata"]["uid"].clone();
            new
        })
        .collect();
    server.set_items("namespaces", restored, "40");
    server.script_watch(
        "services",
        vec![Step::Event(
            "ERROR",
            status_json(410, "Expired", "too old resource version: 1000 (40)", None),
        )],
    );
    let (tx, mut rx) = mpsc::channel(256);
    let run = src.watch(tx);
    let check = async {
        let reason = until_replaced(&mut rx, &mut state).await;
        drop(rx);
        reason
    };
    let (r, reason) = tokio::join!(run, check);
    r.unwrap();
    assert_eq!(
        reason,
        "the services resourceVersion went back from 1000 to 40: the cluster was recreated (or restored) under the same URL"
    );
    assert_eq!(
        pod_uid(&state, "shop/web-7d4b9-pend"),
        "7f3e9d21-0010-4000-8000-000000000007"
    );
    assert_eq!(state.resource_versions[&Kind::Pod], "40");
}

#[tokio::test]
async fn a_watch_from_a_resource_version_the_server_has_not_reached_lists_everything_again() {
    let server = ApiServer::start();
    let src = connect(&server, WriteMode::Enabled).await;
    let mut state = src.load_state().await.unwrap();
    server.recreate(40);
    server.reply_once(
        "GET",
        "/api/v1/nodes",
        Reply::status_with(
            504,
            "Timeout",
            "Too large resource version: 1000, current: 40",
            json!({"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}], "retryAfterSeconds": 1}),
        ),
    );
    let (tx, mut rx) = mpsc::channel(256);
    let run = src.watch(tx);
    let check = async {
        let reason = until_replaced(&mut rx, &mut state).await;
        drop(rx);
        reason
    };
    let (r, reason) = tokio::join!(run, check);
    r.unwrap();
    assert_eq!(
        reason,
        "the server has not reached the nodes resourceVersion 1000 (Too large resource version: 1000, current: 40): the cluster was recreated (or restored) under the same URL"
    );
    assert_eq!(state.resource_versions[&Kind::Node], "40");
}

/// Watches for `window` with the reflector's backoff (0.8 s doubling to 30 s, jitter), then
/// stops; the requests the server received meanwhile.
async fn requests_while_watching(server: &ApiServer, window: Duration) -> Vec<crate::apiserver::Recorded> {
    let dir = server.scratch("flood");
    let mut o = options(server.kubeconfig(&dir, None));
    o.watch = WatchOptions {
        request_timeout: Duration::from_secs(5),
        ..WatchOptions::default()
    };
    let src = LiveSource::connect(&o, &Environment::default()).await.unwrap();
    src.load_state().await.unwrap();
    let loaded = server.requests().len();
    let started = std::time::Instant::now();
    let (tx, mut rx) = mpsc::channel(4096);
    let run = src.watch(tx);
    let drain = async {
        let deadline = tokio::time::Instant::now() + window;
        while let Ok(Some(_)) = tokio::time::timeout_at(deadline, rx.recv()).await {}
        drop(rx);
    };
    let (r, ()) = tokio::join!(run, drain);
    r.unwrap();
    server.requests()[loaded..]
        .iter()
        .filter(|r| r.at.duration_since(started) < window)
        .cloned()
        .collect()
}

/// The delays between a kind's watch answered 410 and its next request: each at least the
/// backoff's step (0.8 s, 1.6 s, 3.2 s) and less than twice it (the jitter), with 300 ms for
/// the requests themselves.
fn assert_backed_off(reqs: &[crate::apiserver::Recorded], path: &str, what: &str) {
    let times: Vec<std::time::Instant> = reqs
        .iter()
        .filter(|r| r.path == path && r.is_watch())
        .map(|r| r.at)
        .collect();
    assert!(times.len() >= 3, "{what}: {} watches of {path}", times.len());
    for (i, pair) in times.windows(2).enumerate() {
        let gap = pair[1].duration_since(pair[0]);
        let step = Duration::from_millis(800) * 2u32.pow(u32::try_from(i).unwrap());
        assert!(
            // the lower bound is the backoff; the upper one leaves room for a loaded machine
            gap >= step && gap < 2 * step + Duration::from_millis(1500),
            "{what}: watch {} of {path} came {gap:?} after the one before (step {step:?})",
            i + 1
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watches_answered_410_gone_are_listed_again_with_backoff_not_in_a_loop() {
    // Every watch answered 410 Gone: as the HTTP status, and as a watch ERROR event with code 410.
    // Before, each kind was listed and watched again at once: about 3,000 requests in 10 s.
    let gone = status_json(410, "Expired", "too old resource version: 1000 (2000)", None);
    let by_status = ApiServer::start();
    by_status.answer_every_watch(EveryWatch::Reply(Reply::new(410, gone.clone())));
    let by_event = ApiServer::start();
    by_event.answer_every_watch(EveryWatch::Event("ERROR", gone));
    // Every watch answered "Too large resource version": another cluster, so every kind is
    // listed again (the whole relist), backed off the same way.
    let other = ApiServer::start();
    other.answer_every_watch(EveryWatch::Reply(Reply::status(
        504,
        "Timeout",
        "Too large resource version: 1000, current: 900",
    )));
    let window = Duration::from_secs(6);
    // the whole relist lists every kind each time: 9 s leaves room for two lists of 26 kinds
    // beside the two other servers on a loaded machine (in 6 s the second relist, due 2.4 to
    // 4.8 s in, came too late once the lists took a second)
    let relist_window = Duration::from_secs(9);
    let (status_reqs, event_reqs, other_reqs) = tokio::join!(
        requests_while_watching(&by_status, window),
        requests_while_watching(&by_event, window),
        requests_while_watching(&other, relist_window),
    );
    for (reqs, what) in [(&status_reqs, "HTTP 410"), (&event_reqs, "ERROR event 410")] {
        let kinds: std::collections::BTreeSet<&str> =
            reqs.iter().filter(|r| r.is_watch()).map(|r| r.path.as_str()).collect();
        assert!(kinds.len() >= 20, "{what}: {} kinds watched", kinds.len());
        println!(
            "{what}: {} requests for {} kinds in {window:?}",
            reqs.len(),
            kinds.len()
        );
        // per kind in 6 s: the first watch, then at most 3 rounds (0.8 + 1.6 + 3.2 s at the
        // least) of the kube-system check, the list and the watch
        assert!(
            reqs.len() <= kinds.len() * 10,
            "{what}: {} requests for {} kinds in {window:?}",
            reqs.len(),
            kinds.len()
        );
        assert_backed_off(reqs, "/api/v1/pods", what);
        assert_backed_off(reqs, "/api/v1/nodes", what);
        // each watch that got 410 is followed by a list of the kind, not by another watch
        let pods: Vec<bool> = reqs
            .iter()
            .filter(|r| r.path == "/api/v1/pods")
            .map(|r| r.is_watch())
            .collect();
        assert!(pods.windows(2).all(|w| w != [true, true]), "{what}: {pods:?}");
    }
    // the whole relist: every kind listed again after 0.8 to 1.6 s, then 1.6 to 3.2 s, then
    // 3.2 to 6.4 s: two or three times in 9 s (a loop would be hundreds)
    let node_lists: Vec<std::time::Instant> = other_reqs
        .iter()
        .filter(|r| r.path == "/api/v1/nodes" && !r.is_watch())
        .map(|r| r.at)
        .collect();
    assert!(
        (2..=3).contains(&node_lists.len()),
        "{} relists of every kind in {relist_window:?}",
        node_lists.len()
    );
    let gap = node_lists[1].duration_since(node_lists[0]);
    // The backoff runs from a failure of the first relist, so the second relist starts at most
    // 3.2 s after the first relist's last request (plus scheduling slack), however long its 26
    // lists took: on a loaded machine with unoptimized dependencies they took 1.6 s.
    let busy = other_reqs
        .iter()
        .map(|r| r.at)
        .filter(|at| *at >= node_lists[0] && *at < node_lists[1])
        .max()
        .map_or(Duration::ZERO, |last| last.duration_since(node_lists[0]));
    assert!(
        gap >= Duration::from_millis(1600) && gap < busy + Duration::from_millis(3200 + 1000),
        "the second relist came {gap:?} after the first, whose requests took {busy:?}"
    );
}

#[tokio::test]
async fn a_continue_token_sent_again_fails_the_list_naming_the_kind_and_server() {
    let server = ApiServer::start();
    server.repeat_continue_token("pods");
    let dir = server.scratch("stuck");
    let mut o = options(server.kubeconfig(&dir, None));
    o.watch.page_size = 3;
    let src = LiveSource::connect(&o, &Environment::default()).await.unwrap();
    let err = src.load_state().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{} sent a continue token it had already sent while listing pods in all namespaces (page 2, 6 object(s) so far): the list does not progress, so kschedtui stopped it; the API server, or a proxy in front of it, does not page pods in all namespaces correctly",
            server.url()
        )
    );
    // the token was sent back once, and the page that repeated it was the last request
    let pods: Vec<Option<String>> = server
        .requests()
        .iter()
        .filter(|r| r.path == "/api/v1/pods")
        .map(|r| r.param("continue"))
        .collect();
    assert_eq!(pods, [None, Some("pods:1000:stuck".to_string())]);
}

/// The generated cluster as a server holds it: every object with a uid, a resourceVersion and
/// managedFields (one entry naming every top-level field it set).
fn served_cluster(nodes: usize, pods: usize) -> (Value, Value) {
    use kschedtui::source::generate::{GenSpec, generate};
    let file = generate(GenSpec::new(nodes, pods, 7));
    let mut served = file.clone();
    for (i, it) in served["items"].as_array_mut().unwrap().iter_mut().enumerate() {
        let fields: serde_json::Map<String, Value> = it
            .as_object()
            .unwrap()
            .keys()
            .map(|k| (format!("f:{k}"), json!({})))
            .collect();
        let m = &mut it["metadata"];
        m["uid"] = json!(format!("uid-{i}"));
        m["resourceVersion"] = json!((10 + i).to_string());
        m["managedFields"] = json!([{"manager": "kubectl", "operation": "Update", "apiVersion": "v1",
            "fieldsType": "FieldsV1", "fieldsV1": fields}]);
    }
    (file, served)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_read_live_explains_as_its_file_and_keeps_pods_as_the_file_loader_does() {
    use kschedtui::engine::{self, Release, Snapshot};
    use kschedtui::model::event::Item;
    let (file, served) = served_cluster(60, 1200);
    let server = ApiServer::with_list(served);
    server.set_list_resource_version("5000");
    let dir = server.scratch("generated");
    let mut o = options(server.kubeconfig(&dir, None));
    o.watch.page_size = 100;
    let src = LiveSource::connect(&o, &Environment::default()).await.unwrap();
    let state = src.load_state().await.unwrap();
    // pods and nodes read into the model, their text without managedFields
    let pods: Vec<&Item> = state.items_of(Kind::Pod).collect();
    assert_eq!(pods.len(), 1201);
    for it in pods.iter().chain(state.items_of(Kind::Node).collect::<Vec<_>>().iter()) {
        let text = match it {
            Item::Pod { pod, .. } => pod.pod.obj.json().unwrap().into_owned(),
            Item::Node { node, .. } => node.obj.json().unwrap().into_owned(),
            other => panic!("not read into the model: {other:?}"),
        };
        assert!(!text.contains("managedFields"), "{text}");
        assert!(it.uid().is_some_and(|u| u.starts_with("uid-")));
    }
    // typed, they are the objects served but for managedFields
    let o = state.get(Kind::Pod, &k("bench/pending-0")).unwrap();
    assert_eq!(o.meta().managed_fields, None);
    assert!(o.meta().uid.is_some());
    let live = state.to_cluster().unwrap();
    let from_file = kschedtui::source::file::load_str("g.json", &serde_json::to_string(&file).unwrap()).unwrap();
    assert_eq!(
        (live.nodes.len(), live.pods.len()),
        (from_file.nodes.len(), from_file.pods.len())
    );
    // the cluster shares the store's pods
    let Item::Pod { pod, .. } = state.item(Kind::Pod, &k("bench/pending-0")).unwrap() else {
        panic!()
    };
    assert!(std::sync::Arc::ptr_eq(
        &pod.pod,
        live.pod(&k("bench/pending-0")).unwrap()
    ));
    let explain = |c: kschedtui::model::Cluster| {
        let snap = Snapshot::new(Arc::new(c), Release::NEWEST);
        let profiles = engine::build_profiles(None, Release::NEWEST).unwrap();
        let ex = engine::explain(&snap, &profiles, &k("bench/pending-0")).unwrap();
        kschedtui::explain::json::to_value(&ex)
    };
    assert_eq!(explain(live), explain(from_file));
    // a watch event of a pod: read into the model too
    let mut changed = server.items("pods")[3].clone();
    changed["metadata"]["resourceVersion"] = json!("5001");
    changed["metadata"]["labels"]["new"] = json!("yes");
    server.script_watch("pods", vec![Step::Event("MODIFIED", changed), Step::Sleep(60_000)]);
    let (tx, mut rx) = mpsc::channel(64);
    let watching = Arc::new(src);
    let w = watching.clone();
    let task = tokio::spawn(async move { w.watch_events(tx).await });
    let mut state = state;
    let ev = loop {
        let ev = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap()
            .unwrap();
        if matches!(ev, ClusterEvent::Applied(_)) {
            break ev;
        }
    };
    let ClusterEvent::Applied(item) = &ev else { panic!() };
    assert!(matches!(**item, Item::Pod { .. }), "{item:?}");
    state.apply(ev);
    assert_eq!(state.resource_versions[&Kind::Pod], "5001");
    let c = state.to_cluster().unwrap();
    let key = ObjectKey::parse(
        &format!(
            "{}/{}",
            server.items("pods")[3]["metadata"]["namespace"].as_str().unwrap(),
            server.items("pods")[3]["metadata"]["name"].as_str().unwrap()
        ),
        "",
    );
    assert_eq!(c.pod(&key).unwrap().labels.get("new").map(String::as_str), Some("yes"));
    drop(rx);
    let _ = task.await;
}

/// The explanation of bench/pending-0 on a live state.
fn explain_pending(state: &kschedtui::model::event::ClusterState) -> Value {
    use kschedtui::engine::{self, Release, Snapshot};
    let c = state.to_cluster().unwrap();
    let snap = Snapshot::new(Arc::new(c), Release::NEWEST);
    let profiles = engine::build_profiles(None, Release::NEWEST).unwrap();
    let ex = engine::explain(&snap, &profiles, &k("bench/pending-0")).unwrap();
    kschedtui::explain::json::to_value(&ex)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_streams_lists_is_read_with_one_watch_a_kind_and_gives_the_paged_answer() {
    let (_, served) = served_cluster(30, 600);
    // the same cluster, listed page by page by a 1.33 server (streaming off by default there)
    let paged = ApiServer::with_list(served.clone());
    paged.set_version("v1.33.3", "33");
    paged.set_list_resource_version("5000");
    paged.serve_watch_list(true);
    let dir = paged.scratch("paged");
    let mut o = options(paged.kubeconfig(&dir, None));
    o.watch.page_size = 100;
    let src = LiveSource::connect(&o, &Environment::default()).await.unwrap();
    let by_pages = src.load_state().await.unwrap();
    assert!(!paged.requests().iter().any(|r| r.param("sendInitialEvents").is_some()));
    assert_eq!(src.not_streamed_reason(), None);
    // a 1.34 server streams them
    let server = ApiServer::with_list(served);
    server.set_version("v1.34.2", "34");
    server.set_list_resource_version("5000");
    server.serve_watch_list(true);
    let dir = server.scratch("streamed");
    let mut o = options(server.kubeconfig(&dir, None));
    o.watch.page_size = 100;
    let progress = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = progress.clone();
    let src = LiveSource::connect(&o, &Environment::default())
        .await
        .unwrap()
        .with_progress(Arc::new(move |p: &kschedtui::source::live::watch::Progress| {
            seen.lock().unwrap().push((p.kind, p.items, p.done));
        }));
    let streamed = src.load_state().await.unwrap();
    assert_eq!(src.not_streamed_reason(), None);
    let reqs = server.requests();
    let pods: Vec<_> = reqs.iter().filter(|r| r.path == "/api/v1/pods").collect();
    assert_eq!(pods.len(), 1, "{pods:#?}");
    for (p, want) in [
        ("watch", "true"),
        ("sendInitialEvents", "true"),
        ("resourceVersionMatch", "NotOlderThan"),
        ("allowWatchBookmarks", "true"),
        ("resourceVersion", ""),
    ] {
        assert_eq!(pods[0].param(p).as_deref(), Some(want), "{p} in {}", pods[0].query);
    }
    assert!(!reqs.iter().any(|r| r.param("limit").is_some()), "no list pages");
    // the resourceVersion of the bookmark is where the watch goes on from
    assert_eq!(streamed.resource_versions[&Kind::Pod], "5000");
    assert_eq!(streamed.len(), by_pages.len());
    assert_eq!(
        streamed.items_of(Kind::Pod).count(),
        by_pages.items_of(Kind::Pod).count()
    );
    assert_eq!(explain_pending(&streamed), explain_pending(&by_pages));
    // progress: the pods in batches of 500, then the end
    let pods: Vec<(usize, bool)> = progress
        .lock()
        .unwrap()
        .iter()
        .filter(|(k, _, _)| *k == Kind::Pod)
        .map(|(_, n, d)| (*n, *d))
        .collect();
    assert_eq!(pods, vec![(500, false), (601, true)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_refuses_a_streaming_list_is_listed_page_by_page_and_says_why() {
    let (_, served) = served_cluster(10, 100);
    let server = ApiServer::with_list(served);
    server.set_version("v1.35.1", "35");
    server.set_list_resource_version("5000");
    // the WatchList gate turned off on a release that has it on by default
    server.serve_watch_list(false);
    let dir = server.scratch("refused");
    let o = options(server.kubeconfig(&dir, None));
    let src = LiveSource::connect(&o, &Environment::default()).await.unwrap();
    let state = src.load_state().await.unwrap();
    assert_eq!(state.items_of(Kind::Pod).count(), 101);
    let why = src.not_streamed_reason().expect("a reason");
    assert!(
        why.starts_with("the server did not stream the list of namespaces (422 Invalid: ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled): listed page by page"),
        "{why}"
    );
    // one refusal, then every kind page by page
    let reqs = server.requests();
    assert_eq!(
        reqs.iter().filter(|r| r.param("sendInitialEvents").is_some()).count(),
        1
    );
    assert!(
        reqs.iter()
            .any(|r| r.path == "/api/v1/pods" && r.param("limit").as_deref() == Some("500"))
    );
    // and the CLI says so
    let home = temp_dir("home");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(["explain", "-A", "bench/pending-0", "--kubeconfig"])
        .arg(server.kubeconfig(&dir, None))
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("bench/pending-0"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("kschedtui: the server did not stream the list of namespaces (422 Invalid: "),
        "{err}"
    );
}
