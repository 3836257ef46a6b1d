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
/// documents, saved back, and its first pending pods explained with the JSON and text reports.
pub fn snapshot(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let name = if t.trim_start().starts_with(['{', '[']) {
        "fuzz.json"
    } else {
        "fuzz.yaml"
    };
    let _ = crate::source::file::load_str_keeping_documents(name, &t);
    let Ok(cluster) = crate::source::file::load_str(name, &t) else {
        return;
    };
    let _ = crate::source::save::to_text(&cluster, false);
    let _ = crate::source::save::to_text(&cluster, true);
    if cluster.nodes.len() > 200 || cluster.pods.len() > 2000 {
        return;
    }
    let features = engine::Features::new(Release::NEWEST);
    let Ok(profiles) = engine::build_profiles(None, &features) else {
        return;
    };
    let snap = Snapshot::new(Arc::new(cluster), &features);
    let pending: Vec<ObjectKey> = snap
        .cluster
        .pending_pods()
        .iter()
        .take(3)
        .map(|p| p.key.clone())
        .collect();
    for key in pending {
        if let Ok(ex) = engine::explain(&snap, &profiles, &key) {
            let _ = crate::explain::json::to_value(&ex);
            let _ = crate::explain::text::render(&ex);
        }
    }
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

#[cfg(feature = "tui")]
fn tui_app() -> crate::app::App {
    use crate::app::{App, SourceInfo, SourceKind};
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Snapshot,
            name: "tui-test.yaml".into(),
        },
        false,
    );
    // the bundled fixture always loads; were it broken, the app shows its load error
    if let Ok(c) = crate::source::file::load_str("tui-test.yaml", include_str!("../fixtures/tui-test.yaml")) {
        crate::app::load_sync(&mut a, c);
    }
    a
}

/// The `:` command line: the text typed into it, then Enter, on the TUI test cluster.
#[cfg(feature = "tui")]
pub fn command_line(data: &[u8]) {
    use crate::app::{Action, update_sync};
    let Some(t) = text(data) else { return };
    if t.chars().count() > 4096 {
        return;
    }
    let mut a = tui_app();
    update_sync(&mut a, Action::CommandStart);
    for c in t.chars() {
        update_sync(&mut a, Action::Input(c));
    }
    update_sync(&mut a, Action::Submit);
}

/// The what-if editor's YAML for a pod and for a node of the TUI test cluster.
#[cfg(feature = "tui")]
pub fn whatif_yaml(data: &[u8]) {
    use crate::app::whatif::{EditTarget, apply_yaml};
    let Some(t) = text(data) else { return };
    let a = tui_app();
    let pod = a.cluster.pending_pods().first().map(|p| p.key.clone());
    if let Some(pod) = pod {
        let _ = apply_yaml(&a.cluster, &EditTarget::Pod(pod), &t);
    }
    if let Some(n) = a.cluster.nodes.first() {
        let _ = apply_yaml(&a.cluster, &EditTarget::Node(n.name.clone()), &t);
    }
}
