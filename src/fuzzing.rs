//! The fuzz targets' bodies, one function per input kschedtui reads from outside. The
//! coverage-guided targets in `tests/fuzz` (`cargo fuzz run --fuzz-dir tests/fuzz TARGET`) call
//! them, and the test suite runs every one over a seed corpus (fixtures and the conformance
//! snapshots, whole and cut short), so CI exercises each target on every run.
//!
//! Each function takes any bytes and must return without panicking, hanging or growing memory
//! without bound: errors are fine, crashes are findings. Inputs are bounded where the work
//! they ask for is legitimately large (a snapshot with thousands of nodes is explained, but
//! only a few of its pods).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::engine::{self, Release, SchedulerConfig, Snapshot};
use crate::model::ObjectKey;
use crate::model::quantity::Quantity;
use crate::model::selector::{NodeSelectorMatcher, Selector};

/// Largest input a target looks at (the fuzzer's own limit is usually lower).
const MAX_INPUT: usize = 1 << 20;

fn text(data: &[u8]) -> Option<String> {
    (data.len() <= MAX_INPUT).then(|| String::from_utf8_lossy(data).into_owned())
}

/// A snapshot file (YAML or JSON, the fast paths and the general one): loaded, kept as
/// documents, and saved back in both forms. `snapshot_explain` goes on to explain it.
pub fn snapshot(data: &[u8]) {
    let _ = load_and_save(data);
}

fn load_and_save(data: &[u8]) -> Option<crate::model::Cluster> {
    let t = text(data)?;
    let name = if t.trim_start().starts_with(['{', '[']) {
        "fuzz.json"
    } else {
        "fuzz.yaml"
    };
    let _ = crate::source::file::load_str_keeping_documents(name, &t);
    let cluster = crate::source::file::load_str(name, &t).ok()?;
    let _ = crate::source::save::to_text(&cluster, false);
    let _ = crate::source::save::to_text(&cluster, true);
    Some(cluster)
}

/// A snapshot as [`snapshot`] reads it, then its first pending pods explained with the JSON and
/// text reports, for snapshots up to 200 nodes and 2,000 pods (the test suite runs it over the
/// seed corpus; the coverage-guided [`engine`] target explains every pending pod of smaller
/// ones).
pub fn snapshot_explain(data: &[u8]) {
    let Some(cluster) = load_and_save(data) else {
        return;
    };
    if cluster.nodes.len() > 200 || cluster.pods.len() > 2000 {
        return;
    }
    let Some((features, profiles)) = newest() else {
        return;
    };
    let snap = Snapshot::new(Arc::new(cluster), features);
    let pending: Vec<ObjectKey> = snap
        .cluster
        .pending_pods()
        .iter()
        .take(3)
        .map(|p| p.key.clone())
        .collect();
    for key in pending {
        if let Ok(ex) = engine::explain(&snap, profiles, &key) {
            let _ = crate::explain::json::to_value(&ex);
            let _ = crate::explain::text::render(&ex);
        }
    }
}

/// Largest snapshot [`engine`] explains: an execution explains every pending pod on every node,
/// so the work is bounded by nodes × pending pods (the fuzzer's inputs of a few KB stay far
/// below; a seed bigger than this is only loaded and saved).
const ENGINE_MAX_NODES: usize = 32;
const ENGINE_MAX_PODS: usize = 128;
const ENGINE_MAX_PENDING: usize = 32;

/// A snapshot as [`snapshot`] reads it, then every pending pod explained at the release the
/// snapshot recorded (`kschedtuiSnapshot.kubernetesVersion`, else the newest), with the gates
/// of `kschedtuiSnapshot.featureGates` (`"A=true,B=false"`, a key only this target reads, so
/// the fuzzer reaches alpha-gated plugins), as `explain --all-pending` does: each pod's
/// explanation, its gang's group cycle once per gang, the JSON (with the cluster's verdict
/// and the group cycle), the text report and the queue. The snapshot is bounded in size
/// ([`ENGINE_MAX_NODES`], [`ENGINE_MAX_PODS`], [`ENGINE_MAX_PENDING`]) so an execution stays
/// fast.
pub fn engine(data: &[u8]) {
    let Some(cluster) = load_and_save(data) else {
        return;
    };
    if cluster.nodes.len() > ENGINE_MAX_NODES
        || cluster.pods.len() > ENGINE_MAX_PODS
        || cluster.pending_pods().len() > ENGINE_MAX_PENDING
    {
        return;
    }
    let info = crate::source::snapshot::info_in_text(&String::from_utf8_lossy(data));
    let release = info
        .as_ref()
        .and_then(|i| i.get("kubernetesVersion"))
        .and_then(serde_json::Value::as_str)
        .map_or(Release::NEWEST, |v| Release::from_server(v).0);
    let gates = info
        .as_ref()
        .and_then(|i| i.get("featureGates"))
        .and_then(serde_json::Value::as_str)
        .and_then(|g| engine::FeatureGates::parse(g).ok())
        .unwrap_or_else(engine::FeatureGates::none);
    let Ok(features) = engine::Features::with_gates(release, &gates) else {
        return;
    };
    let Ok(profiles) = engine::build_profiles(None, &features) else {
        return;
    };
    let snap = Snapshot::new(Arc::new(cluster), &features);
    let keys: Vec<ObjectKey> = snap.cluster.pending_pods().iter().map(|p| p.key.clone()).collect();
    let mut explained = Vec::new();
    let mut groups: BTreeMap<String, engine::group_cycle::GroupCycle> = BTreeMap::new();
    for key in &keys {
        let Ok(ex) = engine::explain(&snap, &profiles, key) else {
            continue;
        };
        let mut doc = crate::explain::json::Document::new(&ex);
        if let Some(c) = crate::explain::condition::cluster_json(&snap.cluster, &ex) {
            doc.insert(crate::explain::json::CLUSTER_KEY, c);
        }
        let mut text = crate::explain::text::render(&ex);
        if let Some(g) = &ex.gang {
            let cycle = groups.entry(g.group.clone()).or_insert_with(|| {
                engine::group_cycle::group_cycle_of(&snap.cluster, &profiles, &features, key, g.clone())
            });
            doc.insert("groupCycle", crate::explain::group::to_json(cycle));
            text += &crate::explain::group::render(cycle);
        }
        text += &crate::explain::condition::cluster_verdict(&snap.cluster, &ex);
        let _ = (serde_json::to_vec(&doc), text);
        explained.push(ex);
    }
    let entries = crate::explain::queue::entries(&snap.cluster, &explained);
    let _ = (
        crate::explain::queue::render(&entries),
        crate::explain::queue::to_json(&entries, &release.to_string()),
    );
}

/// The newest release's features and default profiles, built once per process.
fn newest() -> Option<&'static (engine::Features, Vec<engine::Framework>)> {
    static N: std::sync::OnceLock<Option<(engine::Features, Vec<engine::Framework>)>> = std::sync::OnceLock::new();
    N.get_or_init(|| {
        let features = engine::Features::new(Release::NEWEST);
        let profiles = engine::build_profiles(None, &features).ok()?;
        Some((features, profiles))
    })
    .as_ref()
}

/// A quantity string: parsed, and its values read.
pub fn quantity(data: &[u8]) {
    let Some(t) = text(data) else { return };
    if let Ok(q) = Quantity::parse(&t) {
        let _ = (q.value(), q.milli_value(), q.nanos(), q.is_zero(), q.to_string());
    }
}

/// Label selectors and node selector terms (as JSON: `[labelSelector, nodeSelector, labels,
/// nodeName]`): built as upstream builds them and matched against the labels.
pub fn selectors(data: &[u8]) {
    type Input = (
        Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
        Option<k8s_openapi::api::core::v1::NodeSelector>,
        BTreeMap<String, String>,
        String,
    );
    let Some(t) = text(data) else { return };
    let Ok((ls, ns, labels, node)) = serde_json::from_str::<Input>(&t) else {
        return;
    };
    let s = Selector::from_label_selector(ls.as_ref());
    let _ = (s.matches(&labels), s.is_empty(), s.is_nothing());
    if let Some(ns) = ns {
        let _ = NodeSelectorMatcher::new(&ns).matches(&labels, &node);
    }
}

/// A KubeSchedulerConfiguration: decoded, validated, and its profiles built at the oldest and
/// the newest release.
pub fn scheduler_config(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let Ok(c) = SchedulerConfig::parse(&t) else { return };
    for r in [Release::OLDEST, Release::NEWEST] {
        let _ = engine::build_profiles(Some(&c), r);
    }
}

/// A kubeconfig: read as kubectl reads it and its TLS material checked for every context.
#[cfg(feature = "live")]
pub fn kubeconfig(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let _ = crate::source::live::config::check_kubeconfig_text(&t);
}

/// What every TUI target starts from, built once per process: the TUI test cluster, its
/// release and profiles, and the explanations of its pods seen so far, so an input pays only
/// for what it changes.
#[cfg(feature = "tui")]
struct TuiTemplate {
    cluster: crate::model::Cluster,
    profiles: Vec<engine::Framework>,
    features: Arc<engine::Features>,
    /// By profile override and pod, on the template's cluster, profiles and features.
    explained: std::sync::Mutex<std::collections::HashMap<(Option<String>, ObjectKey), crate::app::Explained>>,
}

#[cfg(feature = "tui")]
fn template() -> &'static TuiTemplate {
    static T: std::sync::OnceLock<TuiTemplate> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let features = Arc::new(engine::Features::new(Release::NEWEST));
        // the bundled fixture and the default profiles always load; were they broken, the
        // app would show the load error and the targets still run
        let cluster = crate::source::file::load_str("tui-test.yaml", include_str!("../fixtures/tui-test.yaml"))
            .unwrap_or_default();
        let profiles = engine::build_profiles(None, &*features).unwrap_or_default();
        TuiTemplate {
            cluster,
            profiles,
            features,
            explained: Default::default(),
        }
    })
}

/// An app on the TUI test cluster, and the cluster it loaded (held, so that a job is known to
/// run on the template's cluster exactly when it runs on this `Arc`: every change of the
/// cluster makes a new one).
#[cfg(feature = "tui")]
struct TuiApp {
    app: crate::app::App,
    loaded: Arc<crate::model::Cluster>,
}

#[cfg(feature = "tui")]
impl TuiApp {
    /// A new app, loaded as the terminal loads it.
    fn new() -> Self {
        use crate::app::{Action, App, Loaded, SourceInfo, SourceKind};
        let t = template();
        let mut app = App::new(
            SourceInfo {
                kind: SourceKind::Snapshot,
                name: "tui-test.yaml".into(),
            },
            false,
        );
        app.features = t.features.clone();
        let loaded = Loaded {
            cluster: t.cluster.clone(),
            profiles: t.profiles.clone(),
            features: t.features.clone(),
        };
        let mut a = TuiApp {
            app,
            loaded: Arc::new(crate::model::Cluster::default()),
        };
        a.update(Action::Loaded(Box::new(Ok(loaded))));
        a
    }

    /// Runs an action as `update_sync` does, answering explain jobs on the loaded cluster,
    /// profiles and features from the template's cache (bounded).
    fn update(&mut self, action: crate::app::Action) {
        let t = template();
        let fresh = matches!(self.app.load, crate::app::Load::Loading);
        let loaded = self.loaded.clone();
        let _ = crate::app::update_sync_with(&mut self.app, action, &mut |job| {
            let cacheable = (fresh || Arc::ptr_eq(&job.cluster, &loaded)) && Arc::ptr_eq(&job.features, &t.features);
            let key = |pod: &ObjectKey| (job.profile.clone(), pod.clone());
            if cacheable {
                let memo = t.explained.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(hit) = job
                    .pods
                    .iter()
                    .map(|p| memo.get(&key(p)).cloned())
                    .collect::<Option<Vec<_>>>()
                {
                    return hit;
                }
            }
            let snap = job.snapshot();
            let results: Vec<_> = job.pods.iter().map(|p| job.explain(&snap, p)).collect();
            let mut memo = t.explained.lock().unwrap_or_else(|e| e.into_inner());
            if cacheable && memo.len() < 4096 {
                for (p, r) in job.pods.iter().zip(&results) {
                    memo.insert(key(p), r.clone());
                }
            }
            results
        });
        if fresh {
            self.loaded = self.app.cluster.clone();
        }
    }
}

/// The `:` command line: the text typed into it, then Enter, on the TUI test cluster.
#[cfg(feature = "tui")]
pub fn command_line(data: &[u8]) {
    use crate::app::Action;
    let Some(t) = text(data) else { return };
    if t.chars().count() > 4096 {
        return;
    }
    let mut a = TuiApp::new();
    a.update(Action::CommandStart);
    for c in t.chars() {
        a.update(Action::Input(c));
    }
    a.update(Action::Submit);
}

/// The what-if editor's YAML for a pod and for a node of the TUI test cluster.
#[cfg(feature = "tui")]
pub fn whatif_yaml(data: &[u8]) {
    use crate::app::whatif::{EditTarget, apply_yaml};
    let Some(t) = text(data) else { return };
    let cluster = &template().cluster;
    if let Some(pod) = cluster.pending_pods().first() {
        let _ = apply_yaml(
            cluster,
            &EditTarget::Pod(pod.key.clone()),
            &t,
            crate::app::whatif::accept(&template().features),
        );
    }
    if let Some(n) = cluster.nodes.first() {
        let _ = apply_yaml(
            cluster,
            &EditTarget::Node(n.name.clone()),
            &t,
            crate::app::whatif::accept(&template().features),
        );
    }
}

#[cfg(all(test, feature = "tui"))]
mod tests {
    use super::*;

    /// The second app of a process takes its load's explanations from the cache, and they are
    /// the ones a plain `load_sync` computes.
    #[test]
    fn tui_targets_reuse_the_loads_explanations_and_they_are_the_uncached_ones() {
        let first = TuiApp::new();
        let second = TuiApp::new();
        let plain = crate::app::tui_test_app();
        assert!(!first.app.explanations.is_empty());
        assert_eq!(
            first.app.explanations.keys().collect::<Vec<_>>(),
            plain.explanations.keys().collect::<Vec<_>>()
        );
        for (pod, ex) in &second.app.explanations {
            let a = first.app.explanations[pod].as_ref().expect("explained");
            let b = ex.as_ref().expect("explained");
            assert!(Arc::ptr_eq(a, b), "{pod} was explained again");
        }
        assert_eq!(format!("{:?}", second.app.summaries), format!("{:?}", plain.summaries));
    }
}
