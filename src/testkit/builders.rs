//! Test builders in the manner of kube-scheduler's `pkg/scheduler/testing/wrappers.go`:
//! `pod("p").req(&[("cpu", "100m")]).toleration(..).obj()` and
//! `node("n").label(..).taint(..).capacity(..).obj()` build k8s-openapi objects, and
//! [`snapshot`] / [`pod_info`] / [`plugin`] turn them into what the engine runs on, so a test
//! can call one plugin's extension points directly ([`run_filter`], [`run_score`]) or go
//! through a whole profile ([`framework_filter`]).
//!
//! Like the upstream wrappers, nothing is defaulted behind the test's back: a pod without
//! `req` has no containers, a node built with [`node`] has only `pods: 32` until
//! [`NodeBuilder::capacity`] adds more.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::Value;

use crate::engine::Framework;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, NodeScore, PluginSlots};
use crate::engine::framework::snapshot::Snapshot;
use crate::engine::framework::status::Status;
use crate::engine::registry::{self, InstantiateError};
use crate::engine::release::{Features, Release};
use crate::model::{Cluster, Node, Pod};

/// 1.30, the release the first conformance corpus (and most upstream tables) pin down.
pub(crate) const V1_30: Release = Release::OLDEST;
/// The newest release the engine reproduces.
pub(crate) const V_NEWEST: Release = Release::NEWEST;

/// The release each minor stands for (its newest known patch); panics for an unknown minor.
pub(crate) fn rel(minor: u32) -> Release {
    Release::of_minor(minor).unwrap_or_else(|| panic!("no release 1.{minor}"))
}

fn rl(items: &[(&str, &str)]) -> BTreeMap<String, Quantity> {
    items
        .iter()
        .map(|(k, v)| ((*k).to_string(), Quantity((*v).to_string())))
        .collect()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_string()).collect()
}

/// A `NodeSelectorRequirement` (`key op values`).
pub(crate) fn nsr(key: &str, op: &str, values: &[&str]) -> core::NodeSelectorRequirement {
    core::NodeSelectorRequirement {
        key: key.into(),
        operator: op.into(),
        values: (!values.is_empty()).then(|| strings(values)),
    }
}

/// A `NodeSelectorTerm` from matchExpressions and matchFields.
pub(crate) fn term(
    exprs: Vec<core::NodeSelectorRequirement>,
    fields: Vec<core::NodeSelectorRequirement>,
) -> core::NodeSelectorTerm {
    core::NodeSelectorTerm {
        match_expressions: (!exprs.is_empty()).then_some(exprs),
        match_fields: (!fields.is_empty()).then_some(fields),
    }
}

/// A `NodeSelector` ORing the terms.
pub(crate) fn selector(terms: Vec<core::NodeSelectorTerm>) -> core::NodeSelector {
    core::NodeSelector {
        node_selector_terms: terms,
    }
}

/// A `PreferredSchedulingTerm`.
pub(crate) fn preferred(weight: i32, t: core::NodeSelectorTerm) -> core::PreferredSchedulingTerm {
    core::PreferredSchedulingTerm { weight, preference: t }
}

/// A `Toleration`; empty strings leave the field unset.
pub(crate) fn toleration(key: &str, op: &str, value: &str, effect: &str) -> core::Toleration {
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
    core::Toleration {
        key: opt(key),
        operator: opt(op),
        value: opt(value),
        effect: opt(effect),
        toleration_seconds: None,
    }
}

/// A `Taint`; an empty value leaves the field unset.
pub(crate) fn taint(key: &str, value: &str, effect: &str) -> core::Taint {
    core::Taint {
        key: key.into(),
        value: (!value.is_empty()).then(|| value.to_string()),
        effect: effect.into(),
        time_added: None,
    }
}

/// A container with requests (and nothing else).
pub(crate) fn container_req(name: &str, reqs: &[(&str, &str)]) -> core::Container {
    core::Container {
        name: name.into(),
        resources: Some(core::ResourceRequirements {
            requests: Some(rl(reqs)),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Builds a pod (`st.MakePod()`).
#[derive(Clone, Debug, Default)]
pub(crate) struct PodBuilder {
    pod: core::Pod,
}

/// A pod named `name` (no namespace, no containers).
pub(crate) fn pod(name: &str) -> PodBuilder {
    let mut b = PodBuilder::default();
    if !name.is_empty() {
        b.pod.metadata.name = Some(name.into());
    }
    b
}

impl PodBuilder {
    fn spec(&mut self) -> &mut core::PodSpec {
        self.pod.spec.get_or_insert_with(Default::default)
    }

    fn push_container(mut self, c: core::Container) -> Self {
        self.spec().containers.push(c);
        self
    }

    fn push_init(mut self, c: core::Container) -> Self {
        self.spec().init_containers.get_or_insert_with(Vec::new).push(c);
        self
    }

    fn next_name(&mut self) -> String {
        format!("con{}", self.spec().containers.len())
    }

    /// metadata.namespace.
    #[must_use]
    pub(crate) fn namespace(mut self, ns: &str) -> Self {
        self.pod.metadata.namespace = Some(ns.into());
        self
    }

    /// metadata.uid.
    #[must_use]
    pub(crate) fn uid(mut self, uid: &str) -> Self {
        self.pod.metadata.uid = Some(uid.into());
        self
    }

    /// One label.
    #[must_use]
    pub(crate) fn label(mut self, k: &str, v: &str) -> Self {
        self.pod
            .metadata
            .labels
            .get_or_insert_with(BTreeMap::new)
            .insert(k.into(), v.into());
        self
    }

    /// spec.nodeName (the pod is bound there).
    #[must_use]
    pub(crate) fn node(mut self, n: &str) -> Self {
        self.spec().node_name = Some(n.into());
        self
    }

    /// status.nominatedNodeName.
    #[must_use]
    pub(crate) fn nominated(mut self, n: &str) -> Self {
        self.pod.status.get_or_insert_with(Default::default).nominated_node_name = Some(n.into());
        self
    }

    /// spec.priority.
    #[must_use]
    pub(crate) fn priority(mut self, p: i32) -> Self {
        self.spec().priority = Some(p);
        self
    }

    /// A new container with these requests (`Req`).
    #[must_use]
    pub(crate) fn req(mut self, reqs: &[(&str, &str)]) -> Self {
        let name = self.next_name();
        self.push_container(container_req(&name, reqs))
    }

    /// A new container with these limits only (`Lim`).
    #[must_use]
    pub(crate) fn lim(mut self, lims: &[(&str, &str)]) -> Self {
        let name = self.next_name();
        self.push_container(core::Container {
            name,
            resources: Some(core::ResourceRequirements {
                limits: Some(rl(lims)),
                ..Default::default()
            }),
            ..Default::default()
        })
    }

    /// A new container without resources (`Container`).
    #[must_use]
    pub(crate) fn container(self, name: &str) -> Self {
        self.push_container(core::Container {
            name: name.into(),
            ..Default::default()
        })
    }

    /// A new container running `image`.
    #[must_use]
    pub(crate) fn image(mut self, image: &str) -> Self {
        let name = self.next_name();
        self.push_container(core::Container {
            name,
            image: Some(image.into()),
            ..Default::default()
        })
    }

    /// A raw container.
    #[must_use]
    pub(crate) fn raw_container(self, c: core::Container) -> Self {
        self.push_container(c)
    }

    /// A new init container with these requests (`InitReq`).
    #[must_use]
    pub(crate) fn init_req(mut self, reqs: &[(&str, &str)]) -> Self {
        let n = self.spec().init_containers.as_ref().map_or(0, Vec::len);
        self.push_init(container_req(&format!("init-con{n}"), reqs))
    }

    /// A new restartable init container (a sidecar) with these requests.
    #[must_use]
    pub(crate) fn sidecar_req(mut self, reqs: &[(&str, &str)]) -> Self {
        let n = self.spec().init_containers.as_ref().map_or(0, Vec::len);
        let mut c = container_req(&format!("sidecar-con{n}"), reqs);
        c.restart_policy = Some("Always".into());
        self.push_init(c)
    }

    /// A new init container running `image`.
    #[must_use]
    pub(crate) fn init_image(mut self, image: &str) -> Self {
        let n = self.spec().init_containers.as_ref().map_or(0, Vec::len);
        self.push_init(core::Container {
            name: format!("init-con{n}"),
            image: Some(image.into()),
            ..Default::default()
        })
    }

    /// A raw init container.
    #[must_use]
    pub(crate) fn raw_init_container(self, c: core::Container) -> Self {
        self.push_init(c)
    }

    /// spec.overhead.
    #[must_use]
    pub(crate) fn overhead(mut self, items: &[(&str, &str)]) -> Self {
        self.spec().overhead = Some(rl(items));
        self
    }

    /// A toleration (`key`, `operator`, `value`, `effect`; "" leaves a field unset).
    #[must_use]
    pub(crate) fn toleration(mut self, key: &str, op: &str, value: &str, effect: &str) -> Self {
        self.spec()
            .tolerations
            .get_or_insert_with(Vec::new)
            .push(toleration(key, op, value, effect));
        self
    }

    /// Sets spec.tolerations to exactly this list (an empty list stays present).
    #[must_use]
    pub(crate) fn tolerations(mut self, t: Vec<core::Toleration>) -> Self {
        self.spec().tolerations = Some(t);
        self
    }

    /// spec.nodeSelector.
    #[must_use]
    pub(crate) fn node_selector(mut self, m: &[(&str, &str)]) -> Self {
        self.spec().node_selector = Some(m.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect());
        self
    }

    fn node_affinity_mut(&mut self) -> &mut core::NodeAffinity {
        self.spec()
            .affinity
            .get_or_insert_with(Default::default)
            .node_affinity
            .get_or_insert_with(Default::default)
    }

    /// spec.affinity.nodeAffinity, replaced.
    #[must_use]
    pub(crate) fn node_affinity(mut self, na: core::NodeAffinity) -> Self {
        *self.node_affinity_mut() = na;
        self
    }

    /// Required node affinity with these terms.
    #[must_use]
    pub(crate) fn required_terms(mut self, terms: Vec<core::NodeSelectorTerm>) -> Self {
        self.node_affinity_mut()
            .required_during_scheduling_ignored_during_execution = Some(selector(terms));
        self
    }

    /// Preferred node affinity with these terms.
    #[must_use]
    pub(crate) fn preferred_terms(mut self, terms: Vec<core::PreferredSchedulingTerm>) -> Self {
        self.node_affinity_mut()
            .preferred_during_scheduling_ignored_during_execution = Some(terms);
        self
    }

    /// `NodeAffinityIn`: one required term `key In vals`.
    #[must_use]
    pub(crate) fn node_affinity_in(self, key: &str, vals: &[&str]) -> Self {
        self.required_terms(vec![term(vec![nsr(key, "In", vals)], vec![])])
    }

    /// `NodeAffinityNotIn`: one required term `key NotIn vals`.
    #[must_use]
    pub(crate) fn node_affinity_not_in(self, key: &str, vals: &[&str]) -> Self {
        self.required_terms(vec![term(vec![nsr(key, "NotIn", vals)], vec![])])
    }

    /// `HostPort`: a new container asking for a TCP host port.
    #[must_use]
    pub(crate) fn host_port(self, port: i32) -> Self {
        self.container_ports(&[("", "", port)])
    }

    /// `ContainerPort`: a new container with these `(protocol, hostIP, hostPort)` ports
    /// ("" leaves the protocol or IP unset).
    #[must_use]
    pub(crate) fn container_ports(self, ports: &[(&str, &str, i32)]) -> Self {
        let ports = ports
            .iter()
            .map(|(proto, ip, port)| core::ContainerPort {
                host_port: Some(*port),
                host_ip: (!ip.is_empty()).then(|| (*ip).to_string()),
                protocol: (!proto.is_empty()).then(|| (*proto).to_string()),
                ..Default::default()
            })
            .collect();
        self.push_container(core::Container {
            name: "container".into(),
            image: Some("pause".into()),
            ports: Some(ports),
            ..Default::default()
        })
    }

    /// spec.schedulingGates.
    #[must_use]
    pub(crate) fn scheduling_gates(mut self, gates: &[&str]) -> Self {
        self.spec().scheduling_gates = Some(
            gates
                .iter()
                .map(|g| core::PodSchedulingGate { name: (*g).into() })
                .collect(),
        );
        self
    }

    /// The pod.
    pub(crate) fn obj(self) -> core::Pod {
        self.pod
    }
}

/// Builds a node (`st.MakeNode()`).
#[derive(Clone, Debug)]
pub(crate) struct NodeBuilder {
    node: core::Node,
}

/// A node named `name` with capacity and allocatable `pods: 32`, as `MakeNode` makes it.
pub(crate) fn node(name: &str) -> NodeBuilder {
    NodeBuilder {
        node: core::Node {
            metadata: ObjectMeta {
                name: (!name.is_empty()).then(|| name.to_string()),
                ..Default::default()
            },
            spec: Some(core::NodeSpec::default()),
            status: Some(core::NodeStatus::default()),
        },
    }
    .capacity(&[])
}

impl NodeBuilder {
    fn status(&mut self) -> &mut core::NodeStatus {
        self.node.status.get_or_insert_with(Default::default)
    }

    fn spec(&mut self) -> &mut core::NodeSpec {
        self.node.spec.get_or_insert_with(Default::default)
    }

    /// One label.
    #[must_use]
    pub(crate) fn label(mut self, k: &str, v: &str) -> Self {
        self.node
            .metadata
            .labels
            .get_or_insert_with(BTreeMap::new)
            .insert(k.into(), v.into());
        self
    }

    /// Several labels.
    #[must_use]
    pub(crate) fn labels(self, items: &[(&str, &str)]) -> Self {
        items.iter().fold(self, |b, (k, v)| b.label(k, v))
    }

    /// `Capacity`: capacity = allocatable = `pods: 32` plus these resources.
    #[must_use]
    pub(crate) fn capacity(mut self, items: &[(&str, &str)]) -> Self {
        let mut res = rl(&[("pods", "32")]);
        res.extend(rl(items));
        let st = self.status();
        st.capacity = Some(res.clone());
        st.allocatable = Some(res);
        self
    }

    /// capacity = allocatable = exactly these resources (no `pods` unless listed), as the
    /// noderesources tests' `makeNode` builds them.
    #[must_use]
    pub(crate) fn resources(mut self, items: &[(&str, &str)]) -> Self {
        let res = rl(items);
        let st = self.status();
        st.capacity = Some(res.clone());
        st.allocatable = Some(res);
        self
    }

    /// A taint.
    #[must_use]
    pub(crate) fn taint(mut self, key: &str, value: &str, effect: &str) -> Self {
        self.spec()
            .taints
            .get_or_insert_with(Vec::new)
            .push(taint(key, value, effect));
        self
    }

    /// spec.unschedulable.
    #[must_use]
    pub(crate) fn unschedulable(mut self, u: bool) -> Self {
        self.spec().unschedulable = Some(u);
        self
    }

    /// One entry of status.images.
    #[must_use]
    pub(crate) fn image(mut self, names: &[&str], size_bytes: i64) -> Self {
        self.status()
            .images
            .get_or_insert_with(Vec::new)
            .push(core::ContainerImage {
                names: Some(strings(names)),
                size_bytes: Some(size_bytes),
            });
        self
    }

    /// The node.
    pub(crate) fn obj(self) -> core::Node {
        self.node
    }
}

/// The model of a pod as the engine sees it (priority from spec.priority, else 0).
pub(crate) fn model_pod(p: core::Pod) -> Pod {
    Pod::from_obj(p, |_| 0).unwrap_or_else(|(field, msg)| panic!("test pod: field '{field}': {msg}"))
}

/// A `PodInfo` for a pod under test (not added to any snapshot).
pub(crate) fn pod_info(p: &core::Pod, features: impl Into<Features>) -> Arc<PodInfo> {
    Arc::new(PodInfo::with_features(Arc::new(model_pod(p.clone())), &features.into()))
}

/// A snapshot of these nodes with these existing pods (bound by spec.nodeName). Pods without
/// a name get `existing-<i>` and a unique uid, as `cache.NewSnapshot` does not care for names.
pub(crate) fn snapshot(nodes: Vec<core::Node>, pods: Vec<core::Pod>, version: impl Into<Features>) -> Snapshot {
    let mut c = Cluster::default();
    for n in nodes {
        let n = Node::from_obj(n).unwrap_or_else(|(field, msg)| panic!("test node: field '{field}': {msg}"));
        c.nodes.push(Arc::new(n));
    }
    c.nodes.sort_by(|a, b| a.name.cmp(&b.name));
    for (i, mut p) in pods.into_iter().enumerate() {
        if p.metadata.name.is_none() {
            p.metadata.name = Some(format!("existing-{i}"));
        }
        if p.metadata.uid.is_none() {
            p.metadata.uid = Some(format!("uid-existing-{i}"));
        }
        c.pods.push(Arc::new(model_pod(p)));
    }
    c.pods.sort_by(|a, b| a.key.cmp(&b.key));
    Snapshot::new(Arc::new(c), version)
}

/// Builds one plugin by its upstream name with args (`Value::Null` for defaults).
pub(crate) fn try_plugin(name: &str, args: Value, version: impl Into<Features>) -> Result<PluginSlots, String> {
    registry::instantiate(name, &args, &version.into()).map_err(|e| match e {
        InstantiateError::Unknown => format!("unknown plugin {name}"),
        InstantiateError::Args(m) => m,
    })
}

/// Builds one plugin, panicking on bad args.
pub(crate) fn plugin(name: &str, args: Value, version: impl Into<Features>) -> PluginSlots {
    try_plugin(name, args, version).unwrap_or_else(|e| panic!("plugin {name}: {e}"))
}

/// The default profile of a version.
pub(crate) fn default_framework(version: impl Into<Features>) -> Framework {
    Framework::default_profile(version).unwrap_or_else(|e| panic!("default profile: {e}"))
}

/// What one plugin's PreFilter and Filter said.
#[derive(Clone, Debug)]
pub(crate) struct FilterRun {
    /// PreFilter's node set and status (None when PreFilter was not run or the plugin has none).
    pub pre_filter: Option<(Option<BTreeSet<String>>, Status)>,
    /// Filter's status per node, in the snapshot's node order (empty when PreFilter said Skip
    /// or rejected).
    pub filter: Vec<(String, Status)>,
}

impl FilterRun {
    /// The Filter status of one node.
    pub(crate) fn on(&self, node: &str) -> &Status {
        &self
            .filter
            .iter()
            .find(|(n, _)| n == node)
            .unwrap_or_else(|| panic!("no filter status for node {node}"))
            .1
    }
}

/// Runs one plugin's PreFilter (when `run_pre_filter`) and Filter on every node. Like
/// upstream's plugin tests, Filter still runs after a rejecting PreFilter so both statuses can
/// be checked; after a Skip it does not run.
pub(crate) fn run_filter(slots: &PluginSlots, snap: &Snapshot, pod: &core::Pod, run_pre_filter: bool) -> FilterRun {
    let cx = Ctx { snapshot: snap };
    let pi = pod_info(pod, &*snap.features);
    let mut state = CycleState::default();
    let mut pre_filter = None;
    if run_pre_filter && let Some(pf) = &slots.pre_filter {
        let r = pf.pre_filter(&cx, &mut state, &pi);
        let skip = r.1.is_skip();
        pre_filter = Some(r);
        if skip {
            return FilterRun {
                pre_filter,
                filter: Vec::new(),
            };
        }
    }
    let f = slots.filter.as_ref().expect("plugin has no Filter");
    let filter = snap
        .nodes
        .iter()
        .map(|n| {
            let got = f.filter(&cx, &state, &pi, n);
            // A node of the snapshot may be read through the snapshot's indexes (its label
            // columns); a copy of it, as preemption makes, is read from the node itself: the
            // same verdict either way.
            assert_eq!(
                got,
                f.filter(&cx, &state, &pi, &n.clone()),
                "Filter on a copy of {}",
                n.name()
            );
            (n.name().to_string(), got)
        })
        .collect();
    FilterRun { pre_filter, filter }
}

/// What one plugin's PreScore, Score and NormalizeScore said.
#[derive(Clone, Debug)]
pub(crate) struct ScoreRun {
    /// PreScore's status (None when not run).
    pub pre_score: Option<Status>,
    /// Raw scores per node (empty when PreScore said Skip).
    pub raw: Vec<i64>,
    /// Scores after NormalizeScore (equal to `raw` for plugins without it).
    pub normalized: Vec<i64>,
}

/// Runs one plugin's PreScore over all nodes (when `run_pre_score`), Score on each node and
/// NormalizeScore, as upstream's plugin tests do.
pub(crate) fn run_score(slots: &PluginSlots, snap: &Snapshot, pod: &core::Pod, run_pre_score: bool) -> ScoreRun {
    let cx = Ctx { snapshot: snap };
    let pi = pod_info(pod, &*snap.features);
    let mut state = CycleState::default();
    let mut pre_score = None;
    if run_pre_score && let Some(ps) = &slots.pre_score {
        let nodes: Vec<_> = snap.nodes.iter().collect();
        let s = ps.pre_score(&cx, &mut state, &pi, &nodes);
        let skip = s.is_skip();
        pre_score = Some(s);
        if skip {
            return ScoreRun {
                pre_score,
                raw: Vec::new(),
                normalized: Vec::new(),
            };
        }
    }
    let sp = slots.score.as_ref().expect("plugin has no Score");
    let mut scores: Vec<NodeScore> = snap
        .nodes
        .iter()
        .map(|n| {
            let v = sp
                .score(&cx, &state, &pi, n)
                .unwrap_or_else(|s| panic!("Score on {}: {s:?}", n.name()));
            NodeScore {
                name: n.name().into(),
                score: v,
            }
        })
        .collect();
    let raw: Vec<i64> = scores.iter().map(|s| s.score).collect();
    // the runner's way, a piece at a time (a plugin may read its state once per piece): the
    // same scores, whatever the cut
    let nodes: Vec<&NodeInfo> = snap.nodes.iter().collect();
    for cut in [0, nodes.len() / 2, nodes.len()] {
        let mut column = vec![-1i64; nodes.len()];
        let (a, b) = nodes.split_at(cut);
        let (ca, cb) = column.split_at_mut(cut);
        let run = sp
            .score_nodes(&cx, &state, &pi, a, ca)
            .and_then(|()| sp.score_nodes(&cx, &state, &pi, b, cb));
        assert!(run.is_ok(), "score_nodes: {run:?}");
        assert_eq!(column, raw, "score_nodes cut at {cut} against Score node by node");
    }
    if sp.has_normalize() {
        let s = sp.normalize(&cx, &state, &pi, &mut scores);
        assert!(s.is_success(), "NormalizeScore: {s:?}");
    }
    ScoreRun {
        pre_score,
        raw,
        normalized: scores.iter().map(|s| s.score).collect(),
    }
}

/// Runs a whole profile's PreFilter plugins then `RunFilterPlugins` on every node (without
/// nominated pods), returning each node's status (stamped with the failing plugin).
pub(crate) fn framework_filter(fw: &Framework, snap: &Snapshot, pod: &core::Pod) -> Vec<(String, Status)> {
    let cx = Ctx { snapshot: snap };
    let pi = pod_info(pod, &*snap.features);
    let mut state = CycleState::default();
    for pl in &fw.pre_filter {
        let (_, s) = pl.pre_filter(&cx, &mut state, &pi);
        if s.is_skip() {
            state.skip_filter.insert(pl.name());
        } else if !s.is_success() {
            let s = s.with_plugin(pl.name());
            return snap.nodes.iter().map(|n| (n.name().to_string(), s.clone())).collect();
        }
    }
    snap.nodes
        .iter()
        .map(|n| (n.name().to_string(), fw.run_filters(&cx, &state, &pi, n)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builders_make_what_the_model_reads() {
        let p = pod("p")
            .namespace("ns")
            .req(&[("cpu", "100m"), ("memory", "1Gi")])
            .init_req(&[("cpu", "1")])
            .toleration("k", "Exists", "", "NoSchedule")
            .host_port(8080)
            .obj();
        let m = model_pod(p);
        assert_eq!(m.key.to_string(), "ns/p");
        assert_eq!(m.requests.resource.milli_cpu, 1000);
        assert_eq!(m.requests.resource.memory, 1 << 30);
        assert_eq!(m.tolerations.len(), 1);
        assert_eq!(m.host_ports().len(), 1);
        assert_eq!(m.host_ports()[0].protocol, "TCP");

        let n = Node::from_obj(
            node("n1")
                .label("zone", "a")
                .taint("dedicated", "x", "NoSchedule")
                .capacity(&[("cpu", "4")])
                .image(&["img:1"], 10)
                .obj(),
        )
        .expect("node");
        assert_eq!(n.allocatable.milli_cpu, 4000);
        assert_eq!(n.allocatable.allowed_pod_number, 32);
        assert_eq!(n.taints[0].value, "x");
        assert_eq!(n.images.len(), 1);
    }

    #[test]
    fn snapshot_binds_existing_pods_by_node_name() {
        let s = snapshot(
            vec![node("b").obj(), node("a").obj()],
            vec![
                pod("").node("a").req(&[("cpu", "1")]).obj(),
                pod("").node("a").obj(),
                pod("").node("gone").obj(),
            ],
            V1_30,
        );
        assert_eq!(s.nodes[0].name(), "a");
        assert_eq!(s.nodes[0].pods.len(), 2);
        assert_eq!(s.nodes[0].requested.milli_cpu, 1000);
        assert_eq!(s.nodes[1].pods.len(), 0);
    }
}
