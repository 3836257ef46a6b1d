//! The frozen view a cycle runs on (internal/cache/snapshot.go): NodeInfos sorted by name, the
//! nodes that hold pods with (anti-)affinity, image spread, and the nominated pods per node.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use super::handle::FrameworkHandle;
use super::index::images::ImageIndex;
use super::index::pods::{PodTable, PodTables};
use super::index::terms::{AntiAffinityTerms, ScoringTerms};
use super::index::{Index, IndexedNode, LabelColumns, NodeMatcher};
use super::node_info::{NodeInfo, PodInfo, SharedTerms};
use super::pod_infos::PodInfos;
use crate::engine::release::{Features, Release};
use crate::model::Cluster;
use crate::model::selector::Labels;

/// The snapshot.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The cluster it was built from.
    pub cluster: Arc<Cluster>,
    /// Nodes sorted by name.
    pub nodes: Vec<NodeInfo>,
    by_name: HashMap<String, usize>,
    /// Pending pods with status.nominatedNodeName, per node (not gated, not bound): the
    /// candidates of the nominator. Only those that reached the active queue are nominated
    /// pods for others ([`Snapshot::nominated_on`]).
    pub nominated: BTreeMap<String, Vec<Arc<PodInfo>>>,
    /// The candidates the scheduling queue never moves to activeQ, so never adds to its
    /// nominator (`moveToActiveQ` calls `AddNominatedPod` only for a pod that passed its
    /// profile's PreEnqueue plugins; a pod no profile serves is not in the queue at all). Set
    /// once, by the first explanation with the profiles (`runner::admit_nominated`).
    pub(crate) not_in_queue: std::sync::OnceLock<Arc<std::collections::BTreeSet<crate::model::ObjectKey>>>,
    /// Parsed pods by key (every non-finished pod).
    pub pod_infos: PodInfos,
    /// The release and gates the snapshot's pods were read for (one value, shared with the
    /// profiles built for it: [`crate::engine::explain`] refuses a profile of other features).
    pub features: Arc<Features>,
    /// Waiting pods, clock and plugin caches shared across cycles (fresh for a one-off
    /// explanation; the simulator keeps one for the whole run).
    pub handle: FrameworkHandle,
    /// The placement assumed by a pod-group cycle (1.36's TopologyAwareWorkloadScheduling,
    /// `Snapshot.AssumePlacement`): the only nodes a pod is filtered and scored on. Plugins
    /// still see every node (spread and affinity count the whole cluster). None: every node.
    pub placement: Option<Arc<BTreeSet<String>>>,
    /// What the plugins ask instead of walking every node and pod: the nodes' labels and
    /// images, the pods interned, the scoring terms grouped ([`Index`]).
    pub(crate) index: Index,
    /// Filter and Score walk the nodes in order on this thread instead of spreading them over
    /// the cores: the same answer, for comparing the two and for profiling.
    pub serial: bool,
    /// Only what decides the cycle is traced: each node's first failing filter plugin (no
    /// diagnostic pass over the other plugins, no plugin details) and each feasible node's
    /// total score (not its plugins), and of those only the nodes with the top total (the
    /// heap's pick made in Score); the nodes that pass keep no Filter record. What [`crate::engine::framework::trace::Explanation::summarize`]
    /// keeps is the same either way; the simulator sets it when it summarizes every attempt.
    pub decisions_only: bool,
    /// kube-scheduler's `nextStartNodeIndex` for the cycle: when set, Filter's search stops
    /// where percentageOfNodesToScore makes upstream's stop, walking the node tree from this
    /// index, and only the nodes it found are scored ([`super::sampling`]). None: every
    /// feasible node is scored, and the explanation says what sampling would do.
    pub start_node: Option<usize>,
    /// Each node's generation, bumped by every change of its NodeInfo (`snapshot_update`).
    pub(crate) generations: super::memo::NodeGenerations,
    /// The node-local Filter verdicts kept by the last cycle that kept decisions only
    /// ([`super::memo`]); a clone starts with none.
    pub(crate) filter_memo: super::memo::MemoCell<super::memo::FilterMemo>,
    /// The same for the node-local Score plugins' raw scores.
    pub(crate) score_memo: super::memo::MemoCell<super::memo::ScoreMemo>,
    /// The node tree's order of `nodes` (zones interleaved), made when a cycle first needs it
    /// (the nodes of a snapshot never change).
    tree: std::sync::OnceLock<Arc<Vec<usize>>>,
}

static NO_LABELS: std::sync::LazyLock<Labels> = std::sync::LazyLock::new(Labels::new);

impl Snapshot {
    /// The nodes (indexes into `nodes`) in the order of kube-scheduler's node tree.
    pub fn tree_order(&self) -> &[usize] {
        self.tree
            .get_or_init(|| Arc::new(super::sampling::tree_order(&self.nodes)))
    }

    /// Builds the snapshot.
    pub fn new(cluster: Arc<Cluster>, features: impl Into<Features>) -> Self {
        let features = Arc::new(features.into());
        let mut nodes: Vec<NodeInfo> = cluster.nodes.iter().map(|n| NodeInfo::new(n.clone())).collect();
        let by_name: HashMap<String, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name().to_string(), i))
            .collect();
        let images = Arc::new(ImageIndex::build(cluster.nodes.iter().map(|n| &**n)));
        // cluster.pods is sorted by key: collected at the end, the map is built in bulk
        // instead of by 100,000 searches from its root
        let mut nominated: BTreeMap<String, Vec<Arc<PodInfo>>> = BTreeMap::new();
        // each pod's facts computed on every core (a million pods at 65k nodes), then placed in
        // order; the pods of a piece that share their affinity share its terms
        let pieces = super::parallel::map_pieces(false, &cluster.pods, |_, piece| {
            let mut shared = SharedTerms::default();
            let info = |p: &Arc<crate::model::Pod>| {
                (!p.is_finished()).then(|| Arc::new(PodInfo::with_features_sharing(p.clone(), &features, &mut shared)))
            };
            piece.iter().map(info).collect::<Vec<_>>()
        });
        let built: Vec<Option<Arc<PodInfo>>> = pieces.into_iter().flatten().collect();
        for (p, pi) in cluster.pods.iter().zip(&built) {
            let Some(pi) = pi else {
                continue;
            };
            let pi = pi.clone();
            match &p.node_name {
                Some(n) => {
                    if let Some(&i) = by_name.get(&**n) {
                        nodes[i].add_pod(pi);
                    }
                }
                None => {
                    if let Some(nn) = p.nominated_node_name()
                        && !p.gated
                        && by_name.contains_key(nn)
                    {
                        nominated.entry(nn.to_string()).or_default().push(pi);
                    }
                }
            }
        }
        // the pod table (the longest) beside the rest
        let (pod_table, (pod_infos, scoring_terms)) = super::parallel::join(
            false,
            || PodTable::build(&nodes),
            || {
                // in the list the infos were built in (`filter_map` collects in place;
                // `flatten` would make a new one)
                #[allow(clippy::filter_map_identity)]
                let pod_infos: PodInfos = built.into_iter().filter_map(|pi| pi).collect();
                let labels = Arc::new(LabelColumns::build(nodes.iter().map(|n| &n.node.labels)));
                let anti_terms = Arc::new(AntiAffinityTerms::build(&nodes));
                (pod_infos, (Arc::new(ScoringTerms::build(&nodes)), anti_terms, labels))
            },
        );
        let (terms, anti_terms, labels) = scoring_terms;
        let node_count = nodes.len();
        Snapshot {
            cluster,
            nodes,
            by_name,
            nominated,
            pod_infos,
            features,
            handle: FrameworkHandle::default(),
            not_in_queue: std::sync::OnceLock::new(),
            placement: None,
            index: Index {
                labels,
                images,
                pods: Arc::new(PodTables::new(pod_table)),
                terms,
                anti_terms,
            },
            serial: false,
            decisions_only: false,
            start_node: None,
            generations: super::memo::NodeGenerations::new(node_count),
            filter_memo: super::memo::MemoCell::default(),
            score_memo: super::memo::MemoCell::default(),
            tree: std::sync::OnceLock::new(),
        }
    }

    /// The nominated pods on a node, as the scheduler's nominator holds them (the candidates
    /// `runner::admit_nominated` found outside the queue left out).
    pub fn nominated_on(&self, node: &str) -> impl Iterator<Item = &Arc<PodInfo>> {
        let out = self.not_in_queue.get();
        self.nominated
            .get(node)
            .into_iter()
            .flatten()
            .filter(move |p| out.is_none_or(|o| !o.contains(&p.pod.key)))
    }

    /// Whether a node is a candidate under the assumed placement (`GetNodeInPlacement`).
    pub fn in_placement(&self, node: &str) -> bool {
        self.placement.as_ref().is_none_or(|p| p.contains(node))
    }

    /// The number of candidate nodes (`NumNodesInPlacement`): the placement's, or every node.
    pub fn num_nodes_in_placement(&self) -> usize {
        match &self.placement {
            Some(p) => self.nodes.iter().filter(|n| p.contains(n.name())).count(),
            None => self.nodes.len(),
        }
    }

    /// The release reproduced.
    pub fn release(&self) -> Release {
        self.features.release()
    }

    /// Index of a node by name.
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The position of `node` in [`Snapshot::nodes`] when it is one of them (not a copy, as
    /// preemption's dry runs make).
    pub fn position_of(&self, node: &NodeInfo) -> Option<usize> {
        let size = std::mem::size_of::<NodeInfo>();
        let base = self.nodes.as_ptr() as usize;
        let at = std::ptr::from_ref(node) as usize;
        let offset = at.checked_sub(base)?;
        let i = offset / size;
        (offset % size == 0 && i < self.nodes.len() && std::ptr::eq(&self.nodes[i], node)).then_some(i)
    }

    /// A node as the index reads it (by position when it is one of the snapshot's nodes, not
    /// a copy).
    pub(crate) fn indexed<'a>(&'a self, node: &'a NodeInfo) -> IndexedNode<'a> {
        match self.position_of(node) {
            Some(i) => IndexedNode::at(&self.index.labels, &node.node, i),
            None => IndexedNode::copy(&self.index.labels, &node.node),
        }
    }

    /// The snapshot's node at position `i`, as the index reads it.
    pub(crate) fn indexed_at(&self, i: usize) -> IndexedNode<'_> {
        IndexedNode::at(&self.index.labels, &self.nodes[i].node, i)
    }

    /// The pod table, when the index has one for the pods as they are now.
    pub(crate) fn pod_table(&self) -> Option<Arc<PodTable>> {
        self.index.pods.get(&self.cluster, &self.nodes)
    }

    /// The pod's required node selector and node affinity, compiled for the snapshot's nodes.
    pub(crate) fn node_matcher(&self, pod: &PodInfo) -> NodeMatcher {
        NodeMatcher::required(&self.index.labels, &pod.pod)
    }

    /// The snapshot's label columns.
    pub(crate) fn labels(&self) -> &Arc<LabelColumns> {
        &self.index.labels
    }

    /// A node by name.
    pub fn node(&self, name: &str) -> Option<&NodeInfo> {
        self.node_index(name).map(|i| &self.nodes[i])
    }

    /// Labels of a namespace (empty when the namespace object is absent).
    pub fn namespace_labels(&self, ns: &str) -> &Labels {
        self.cluster.namespaces.get(ns).unwrap_or(&NO_LABELS)
    }

    /// Nodes with at least one pod that has pod (anti-)affinity.
    pub fn nodes_with_affinity_pods(&self) -> impl Iterator<Item = &NodeInfo> {
        self.nodes.iter().filter(|n| n.pods_with_affinity > 0)
    }

    /// Nodes with at least one pod that has required anti-affinity.
    pub fn nodes_with_required_anti_affinity_pods(&self) -> impl Iterator<Item = &NodeInfo> {
        self.nodes.iter().filter(|n| n.pods_with_required_anti_affinity > 0)
    }
}

#[cfg(test)]
mod nominator_tests {
    //! The nominator holds only pods that reached the active queue (scheduling_queue.go
    //! `moveToActiveQ` → `AddNominatedPod`, every release 1.30–1.37): a pending pod with
    //! status.nominatedNodeName that its profile's PreEnqueue rejects, or that no profile
    //! serves, takes no room on its nominated node for anyone else.

    use std::sync::Arc;

    use super::Snapshot;
    use crate::engine::framework::runner::explain;
    use crate::engine::{Release, build_profiles};
    use crate::model::ObjectKey;
    use crate::source::file::load_str;

    /// One 2-cpu node; `p` asks for 1 cpu; `extra` pods are nominated to n1 with 2 cpus and
    /// a higher priority.
    fn cluster(extra: &str) -> String {
        format!(
            r"
apiVersion: v1
kind: List
items:
- {{apiVersion: v1, kind: Node, metadata: {{name: n1}}, status: {{allocatable: {{cpu: '2', memory: 4Gi, pods: '10'}}}}}}
- apiVersion: v1
  kind: Pod
  metadata: {{name: p, namespace: a, uid: u-p}}
  spec: {{containers: [{{name: c, image: i, resources: {{requests: {{cpu: '1'}}}}}}]}}
{extra}"
        )
    }

    fn nominated(name: &str, spec: &str, labels: &str) -> String {
        format!(
            r"- apiVersion: v1
  kind: Pod
  metadata: {{name: {name}, namespace: a, uid: u-{name}{labels}}}
  spec: {{priority: 100, containers: [{{name: c, image: i, resources: {{requests: {{cpu: '2'}}}}}}]{spec}}}
  status: {{nominatedNodeName: n1}}
"
        )
    }

    /// p's verdict at `minor`: the node it binds to, or its message.
    fn verdict(text: &str, minor: u32) -> String {
        let v = Release::at(minor);
        let snap = Snapshot::new(Arc::new(load_str("t", text).unwrap()), v);
        let ex = explain(&snap, &build_profiles(None, v).unwrap(), &ObjectKey::new("a", "p")).unwrap();
        match ex.selected.first() {
            Some(n) => format!("binds to {n}"),
            None => ex.message.unwrap_or_default(),
        }
    }

    const INSUFFICIENT: &str = "0/1 nodes are available: 1 Insufficient cpu.";

    #[test]
    fn a_pod_in_the_queue_keeps_its_room() {
        let text = cluster(&nominated("held", "", ""));
        for minor in [30, 32, 33, 34, 35, 36, 37] {
            assert!(verdict(&text, minor).starts_with(INSUFFICIENT), "1.{minor}");
        }
    }

    #[test]
    fn a_pod_held_by_dynamic_resources_pre_enqueue_is_no_nominated_pod() {
        // its claim does not exist: DynamicResources' PreEnqueue (1.34+, the plugin is in the
        // default profile once DRA is GA) keeps it out of activeQ; before that the claims are
        // ignored, the pod is queued and keeps its room
        let text = cluster(&nominated(
            "held",
            ", resourceClaims: [{name: gpu, resourceClaimName: missing}]",
            "",
        ));
        for minor in [30, 32, 33] {
            assert!(verdict(&text, minor).starts_with(INSUFFICIENT), "1.{minor}");
        }
        for minor in [34, 35, 36, 37] {
            assert_eq!(verdict(&text, minor), "binds to n1", "1.{minor}");
        }
    }

    #[test]
    fn a_gated_pod_and_a_pod_no_profile_serves_are_no_nominated_pods() {
        let gated = cluster(&nominated("held", ", schedulingGates: [{name: example.com/wait}]", ""));
        let elsewhere = cluster(&nominated("held", ", schedulerName: another-scheduler", ""));
        for minor in [30, 32, 33, 34, 35, 36, 37] {
            assert_eq!(verdict(&gated, minor), "binds to n1", "gated, 1.{minor}");
            assert_eq!(
                verdict(&elsewhere, minor),
                "binds to n1",
                "another scheduler, 1.{minor}"
            );
        }
    }

    #[test]
    fn a_gang_member_held_below_its_quorum_is_no_nominated_pod() {
        // GangScheduling's PreEnqueue (1.36 GenericWorkload+GangScheduling, 1.37
        // GenericWorkload): fewer pods than the group's minCount exist. (Coscheduling checks its
        // quorum at PreFilter, so its members are queued.)
        use crate::engine::release::{FeatureGates, Features};
        let pod = |api: &str, min: u32| {
            cluster(&format!(
                "- {{apiVersion: scheduling.k8s.io/{api}, kind: PodGroup, metadata: {{name: pg, namespace: a}}, spec: {{schedulingPolicy: {{gang: {{minCount: {min}}}}}}}}}\n{}",
                nominated("held", ", schedulingGroup: {podGroupName: pg}", "")
            ))
        };
        for (minor, api, gates) in [
            (36, "v1alpha2", "GenericWorkload=true,GangScheduling=true"),
            (37, "v1beta1", "GenericWorkload=true"),
        ] {
            let f = Features::with_gates(Release::at(minor), &FeatureGates::parse(gates).unwrap()).unwrap();
            let run = |text: &str| {
                let snap = Snapshot::new(Arc::new(load_str("t", text).unwrap()), f.clone());
                let ex = explain(&snap, &build_profiles(None, &f).unwrap(), &ObjectKey::new("a", "p")).unwrap();
                ex.selected
                    .first()
                    .cloned()
                    .unwrap_or_else(|| ex.message.unwrap_or_default())
            };
            assert_eq!(run(&pod(api, 3)), "n1", "1.{minor}, below its quorum");
            assert!(run(&pod(api, 1)).starts_with(INSUFFICIENT), "1.{minor}, quorum met");
        }
    }
}
