//! Test builders in the spirit of upstream's testing/wrappers.go (`st.MakePod()...`): pods with
//! (anti-)affinity terms, labelled nodes and namespaces, and a snapshot built from them.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement, ObjectMeta};

use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::PodInfo;
use crate::engine::framework::plugin::{Ctx, FilterPlugin, PreFilterPlugin};
use crate::engine::framework::snapshot::Snapshot;
use crate::engine::framework::status::Status;
use crate::engine::release::{Features, Release};
use crate::model::{Cluster, Object, Origin, Pod};

use super::InterPodAffinity;

fn map(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
    kv.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect()
}

/// A pod affinity term under construction.
#[derive(Clone, Debug)]
pub(crate) struct Term(pub core::PodAffinityTerm);

/// A term with the given topology key and no selector yet.
pub(crate) fn term(topology_key: &str) -> Term {
    Term(core::PodAffinityTerm {
        topology_key: topology_key.to_string(),
        ..Default::default()
    })
}

impl Term {
    fn expr(mut self, key: &str, op: &str, vals: &[&str]) -> Self {
        let ls = self.0.label_selector.get_or_insert_with(LabelSelector::default);
        ls.match_expressions
            .get_or_insert_with(Vec::new)
            .push(LabelSelectorRequirement {
                key: key.to_string(),
                operator: op.to_string(),
                values: (!vals.is_empty()).then(|| vals.iter().map(|v| (*v).to_string()).collect()),
            });
        self
    }
    /// `key In vals`.
    pub(crate) fn values_in(self, key: &str, vals: &[&str]) -> Self {
        self.expr(key, "In", vals)
    }
    /// `key NotIn vals`.
    pub(crate) fn not_in(self, key: &str, vals: &[&str]) -> Self {
        self.expr(key, "NotIn", vals)
    }
    /// `key Exists`.
    pub(crate) fn exists(self, key: &str) -> Self {
        self.expr(key, "Exists", &[])
    }
    /// `key DoesNotExist`.
    pub(crate) fn not_exists(self, key: &str) -> Self {
        self.expr(key, "DoesNotExist", &[])
    }
    /// matchLabels.
    pub(crate) fn match_labels(mut self, kv: &[(&str, &str)]) -> Self {
        let ls = self.0.label_selector.get_or_insert_with(LabelSelector::default);
        ls.match_labels.get_or_insert_with(BTreeMap::new).extend(map(kv));
        self
    }
    /// An empty label selector (matches every pod).
    pub(crate) fn all_pods(mut self) -> Self {
        self.0.label_selector.get_or_insert_with(LabelSelector::default);
        self
    }
    /// `namespaces`.
    pub(crate) fn namespaces(mut self, ns: &[&str]) -> Self {
        self.0.namespaces = Some(ns.iter().map(|s| (*s).to_string()).collect());
        self
    }
    /// `namespaceSelector` with `key In vals`.
    pub(crate) fn ns_in(mut self, key: &str, vals: &[&str]) -> Self {
        let ls = self.0.namespace_selector.get_or_insert_with(LabelSelector::default);
        ls.match_expressions
            .get_or_insert_with(Vec::new)
            .push(LabelSelectorRequirement {
                key: key.to_string(),
                operator: "In".to_string(),
                values: Some(vals.iter().map(|v| (*v).to_string()).collect()),
            });
        self
    }
    /// An empty `namespaceSelector` (every namespace).
    pub(crate) fn all_namespaces(mut self) -> Self {
        self.0.namespace_selector = Some(LabelSelector::default());
        self
    }
    /// `matchLabelKeys`.
    pub(crate) fn match_label_keys(mut self, keys: &[&str]) -> Self {
        self.0.match_label_keys = Some(keys.iter().map(|s| (*s).to_string()).collect());
        self
    }
    /// `mismatchLabelKeys`.
    pub(crate) fn mismatch_label_keys(mut self, keys: &[&str]) -> Self {
        self.0.mismatch_label_keys = Some(keys.iter().map(|s| (*s).to_string()).collect());
        self
    }
}

/// A pod under construction.
#[derive(Clone, Debug, Default)]
pub(crate) struct PodB(pub core::Pod);

/// A pod without name (the snapshot names it), in namespace "" as upstream's tests.
pub(crate) fn pod() -> PodB {
    PodB(core::Pod {
        spec: Some(core::PodSpec::default()),
        ..Default::default()
    })
}

impl PodB {
    fn spec(&mut self) -> &mut core::PodSpec {
        self.0.spec.get_or_insert_with(Default::default)
    }
    fn affinity(&mut self) -> &mut core::Affinity {
        self.spec().affinity.get_or_insert_with(Default::default)
    }
    /// metadata.name.
    pub(crate) fn name(mut self, n: &str) -> Self {
        self.0.metadata.name = Some(n.to_string());
        self
    }
    /// metadata.namespace.
    pub(crate) fn ns(mut self, n: &str) -> Self {
        self.0.metadata.namespace = Some(n.to_string());
        self
    }
    /// Adds labels.
    pub(crate) fn labels(mut self, kv: &[(&str, &str)]) -> Self {
        self.0.metadata.labels.get_or_insert_with(BTreeMap::new).extend(map(kv));
        self
    }
    /// spec.nodeName.
    pub(crate) fn node(mut self, n: &str) -> Self {
        self.spec().node_name = Some(n.to_string());
        self
    }
    /// status.nominatedNodeName.
    pub(crate) fn nominated(mut self, n: &str) -> Self {
        self.0.status.get_or_insert_with(Default::default).nominated_node_name = Some(n.to_string());
        self
    }
    /// spec.priority.
    pub(crate) fn priority(mut self, p: i32) -> Self {
        self.spec().priority = Some(p);
        self
    }
    /// A required pod affinity term.
    pub(crate) fn req_affinity(mut self, t: Term) -> Self {
        let a = self.affinity().pod_affinity.get_or_insert_with(Default::default);
        a.required_during_scheduling_ignored_during_execution
            .get_or_insert_with(Vec::new)
            .push(t.0);
        self
    }
    /// A required pod anti-affinity term.
    pub(crate) fn req_anti(mut self, t: Term) -> Self {
        let a = self.affinity().pod_anti_affinity.get_or_insert_with(Default::default);
        a.required_during_scheduling_ignored_during_execution
            .get_or_insert_with(Vec::new)
            .push(t.0);
        self
    }
    /// A preferred pod affinity term.
    pub(crate) fn pref_affinity(mut self, weight: i32, t: Term) -> Self {
        let a = self.affinity().pod_affinity.get_or_insert_with(Default::default);
        a.preferred_during_scheduling_ignored_during_execution
            .get_or_insert_with(Vec::new)
            .push(core::WeightedPodAffinityTerm {
                weight,
                pod_affinity_term: t.0,
            });
        self
    }
    /// A preferred pod anti-affinity term.
    pub(crate) fn pref_anti(mut self, weight: i32, t: Term) -> Self {
        let a = self.affinity().pod_anti_affinity.get_or_insert_with(Default::default);
        a.preferred_during_scheduling_ignored_during_execution
            .get_or_insert_with(Vec::new)
            .push(core::WeightedPodAffinityTerm {
                weight,
                pod_affinity_term: t.0,
            });
        self
    }
    /// The parsed incoming pod, as the engine sees it for `version`.
    pub(crate) fn info(&self, version: Release) -> PodInfo {
        let mut obj = self.0.clone();
        obj.metadata.name.get_or_insert_with(|| "incoming".to_string());
        let p = Pod::from_obj(obj, |_| 0).expect("pod");
        PodInfo::with_features(Arc::new(p), &Features::new(version))
    }
}

/// A node with labels (and room for 110 pods, 8 CPUs, 32Gi, so the whole profile can run).
pub(crate) fn node(name: &str, labels: &[(&str, &str)]) -> core::Node {
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    let alloc = [("pods", "110"), ("cpu", "8"), ("memory", "32Gi")]
        .iter()
        .map(|(k, v)| ((*k).to_string(), Quantity((*v).to_string())))
        .collect();
    core::Node {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            labels: Some(map(labels)),
            ..Default::default()
        },
        status: Some(core::NodeStatus {
            allocatable: Some(alloc),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A namespace with labels.
pub(crate) fn namespace(name: &str, labels: &[(&str, &str)]) -> core::Namespace {
    core::Namespace {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            labels: Some(map(labels)),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The namespaces of upstream's scoring_test.go (`namespaces`).
pub(crate) fn team_namespaces() -> Vec<core::Namespace> {
    vec![
        namespace("subteam1.team1", &[("team", "team1")]),
        namespace("subteam2.team1", &[("team", "team1")]),
        namespace("subteam1.team2", &[("team", "team2")]),
        namespace("subteam2.team2", &[("team", "team2")]),
    ]
}

/// A snapshot of the nodes, pods (unnamed ones get `pod-<i>`) and namespaces.
pub(crate) fn snapshot(
    nodes: &[core::Node],
    pods: &[PodB],
    namespaces: &[core::Namespace],
    version: Release,
) -> Snapshot {
    let mut objs = Vec::new();
    for n in nodes {
        objs.push((Origin::default(), Object::Node(Box::new(n.clone()))));
    }
    for (i, p) in pods.iter().enumerate() {
        let mut obj = p.0.clone();
        obj.metadata.name.get_or_insert_with(|| format!("pod-{i}"));
        objs.push((
            Origin {
                file: "test".into(),
                doc: i,
            },
            Object::Pod(Box::new(obj)),
        ));
    }
    for n in namespaces {
        objs.push((Origin::default(), Object::Namespace(Box::new(n.clone()))));
    }
    Snapshot::new(Arc::new(Cluster::build(objs).expect("cluster")), version)
}

/// Runs PreFilter, then Filter on every node (when PreFilter succeeded).
pub(crate) fn run_filter(pl: &InterPodAffinity, snap: &Snapshot, pod: &PodInfo) -> (Status, Vec<Status>, CycleState) {
    let cx = Ctx { snapshot: snap };
    let mut state = CycleState::default();
    let (_, pre) = pl.pre_filter(&cx, &mut state, pod);
    let statuses = if pre.is_success() {
        snap.nodes
            .iter()
            .map(|n| {
                let got = pl.filter(&cx, &state, pod, n);
                // Read by the node's position in the snapshot's index: the same as a copy of
                // the node, which the index reads from its own labels.
                assert_eq!(
                    got,
                    pl.filter(&cx, &state, pod, &n.clone()),
                    "a copy of node {}",
                    n.name()
                );
                got
            })
            .collect()
    } else {
        Vec::new()
    };
    (pre, statuses, state)
}
