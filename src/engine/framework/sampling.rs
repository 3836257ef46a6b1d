//! percentageOfNodesToScore: how many feasible nodes kube-scheduler looks for before it stops
//! filtering (`numFeasibleNodesToFind` of schedule_one.go), the order it walks the nodes in
//! (the cache's node tree: zones interleaved) and where the next cycle starts
//! (`nextStartNodeIndex`).
//!
//! Upstream checks the nodes on 16 goroutines and stops once one more feasible node than it
//! needs has been found, so the exact set it scores can differ by the last few nodes checked;
//! this module reproduces the walk one node at a time (parallelism 1), where the set is
//! determined by the start index.

use super::node_info::NodeInfo;

/// `minFeasibleNodesToFind`: below this many nodes every node is searched.
pub const MIN_FEASIBLE_NODES_TO_FIND: usize = 100;
/// `minFeasibleNodesPercentageToFind`: the adaptive percentage's floor.
pub const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: i64 = 5;

/// `topology.kubernetes.io/zone`, and the beta label read when it is absent.
const LABEL_ZONE: &str = "topology.kubernetes.io/zone";
const LABEL_BETA_ZONE: &str = "failure-domain.beta.kubernetes.io/zone";
/// `topology.kubernetes.io/region`, and the beta label read when it is absent.
const LABEL_REGION: &str = "topology.kubernetes.io/region";
const LABEL_BETA_REGION: &str = "failure-domain.beta.kubernetes.io/region";

/// The percentage a cycle uses: the profile's `percentageOfNodesToScore` when set, else the
/// configuration's (default 0: adaptive).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Percentage {
    /// The profile's value, when set.
    pub profile: Option<i64>,
    /// The configuration's top-level value (0 when not set).
    pub global: i64,
}

impl Percentage {
    /// The configured value the cycle reads (0 = adaptive).
    pub fn configured(self) -> i64 {
        self.profile.unwrap_or(self.global)
    }

    /// The percentage applied to `num_all_nodes` (the adaptive one when configured 0).
    pub fn effective(self, num_all_nodes: usize) -> i64 {
        let p = self.configured();
        if p != 0 {
            return p;
        }
        let n = i64::try_from(num_all_nodes).unwrap_or(i64::MAX);
        (50 - n / 125).max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    }

    /// `numFeasibleNodesToFind`: the number of feasible nodes after which the search stops.
    pub fn nodes_to_find(self, num_all_nodes: usize) -> usize {
        if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND {
            return num_all_nodes;
        }
        let p = usize::try_from(self.effective(num_all_nodes)).unwrap_or(0);
        // the Go arithmetic is in int32: a product of at most 100 × the node count
        let n = num_all_nodes.saturating_mul(p) / 100;
        n.max(MIN_FEASIBLE_NODES_TO_FIND)
    }
}

/// `GetZoneKey`: the node's region and zone ("" when it has neither).
pub fn zone_key(node: &NodeInfo) -> String {
    let labels = &node.node.labels;
    let zone = labels
        .get(LABEL_ZONE)
        .or_else(|| labels.get(LABEL_BETA_ZONE))
        .map_or("", String::as_str);
    let region = labels
        .get(LABEL_REGION)
        .or_else(|| labels.get(LABEL_BETA_REGION))
        .map_or("", String::as_str);
    if region.is_empty() && zone.is_empty() {
        return String::new();
    }
    format!("{region}:\u{0}:{zone}")
}

/// The node tree's list (`nodeTree.list`): the zones in the order their first node was added,
/// then the zones' nodes taken one from each zone in turn. `nodes` are in the order the
/// scheduler's informer added them (a scheduler started after the nodes existed lists them by
/// name, the snapshot's order); the result is indexes into `nodes`.
pub fn tree_order(nodes: &[NodeInfo]) -> Vec<usize> {
    let mut zones: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let key = zone_key(n);
        match zones.iter_mut().find(|(z, _)| *z == key) {
            Some((_, members)) => members.push(i),
            None => zones.push((key, vec![i])),
        }
    }
    let mut out = Vec::with_capacity(nodes.len());
    let longest = zones.iter().map(|(_, m)| m.len()).max().unwrap_or(0);
    for k in 0..longest {
        for (_, members) in &zones {
            if let Some(&i) = members.get(k) {
                out.push(i);
            }
        }
    }
    out
}

/// What percentageOfNodesToScore does to a cycle, in its explanation: kept when the search
/// can stop before every node was checked, or when the cycle was run from a start index.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SamplingTrace {
    /// The percentage configured (the profile's, else the configuration's; 0 = adaptive).
    pub configured: i64,
    /// The percentage applied to the node count.
    pub percentage: i64,
    /// The nodes searched (every node, or PreFilter's set).
    pub searched: usize,
    /// `numFeasibleNodesToFind` (1 for a profile without Score plugins).
    pub nodes_to_find: usize,
    /// Feasible nodes among those searched (every node is checked here).
    pub feasible: usize,
    /// The profile has no Score plugin: the search stops at the first feasible node.
    pub no_scoring: bool,
    /// The start index the cycle was run from (`--start-node`), if any.
    pub start: Option<usize>,
    /// From a start index: the feasible nodes kept and scored, in the order found.
    pub found: Option<Vec<String>>,
    /// From a start index: the nodes counted as processed.
    pub processed: Option<usize>,
    /// From a start index: where the next cycle starts.
    pub next_start: Option<usize>,
}

impl SamplingTrace {
    /// True when the search stops before the feasible nodes run out: fewer nodes are scored
    /// than pass Filter.
    pub fn applies(&self) -> bool {
        self.feasible > self.nodes_to_find
    }

    /// What it means for the answer, in a sentence (None when every feasible node is scored).
    pub fn note(&self, best: &[String]) -> Option<String> {
        if !self.applies() {
            return None;
        }
        let how = if self.configured == 0 {
            format!("adaptive percentageOfNodesToScore: {} %", self.percentage)
        } else {
            format!("percentageOfNodesToScore: {} %", self.percentage)
        };
        if let (Some(start), Some(next), Some(processed)) = (self.start, self.next_start, self.processed) {
            return Some(if self.no_scoring {
                format!(
                    "the profile has no Score plugin: from start index {start} kube-scheduler takes the first of the {} feasible nodes it reaches in its node list (zones interleaved); {processed} nodes processed, the next cycle starts at index {next}",
                    self.feasible
                )
            } else {
                format!(
                    "kube-scheduler searched its node list (zones interleaved) from index {start} and stopped after {} feasible nodes ({how} of {} nodes): only those were scored, out of {} feasible; {processed} nodes processed, the next cycle starts at index {next}",
                    self.nodes_to_find, self.searched, self.feasible
                )
            });
        }
        let best = match best {
            [] => String::new(),
            [one] => format!(": the best node overall, {one}, is picked only when it is among them"),
            many => format!(
                ": the best nodes overall ({}) are picked only when one is among them",
                many.join(", ")
            ),
        };
        Some(if self.no_scoring {
            format!(
                "the profile has no Score plugin: kube-scheduler takes the first feasible node it reaches from its rotating start index, any of the {} feasible here; --start-node INDEX reproduces a cycle from a given index",
                self.feasible
            )
        } else {
            format!(
                "kube-scheduler stops filtering after {} feasible nodes ({how} of {} nodes), found from a start index that moves on every cycle, and scores only those: {} nodes are feasible here, so it picks the best of the {} it finds{best}; --start-node INDEX reproduces a cycle from a given index",
                self.nodes_to_find, self.searched, self.feasible, self.nodes_to_find
            )
        })
    }
}

/// A search from `start` over `order` (indexes into the node list, as [`tree_order`] gives
/// them, restricted to the nodes searched): the feasible nodes found, in the order found, and
/// how many nodes count as processed (`len(feasibleNodes) + NodeToStatus.Len()`: the feasible
/// ones kept and the failed ones checked before the search stopped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Search {
    /// The feasible nodes kept (at most `nodes_to_find`), in the order they were checked.
    pub found: Vec<usize>,
    /// Nodes counted as processed for the next start index.
    pub processed: usize,
}

/// Walks `order` from `start` (wrapping), checking each node with `feasible`, and stops when
/// one more feasible node than `nodes_to_find` has been checked (that one is not kept, as
/// upstream cancels and takes its count back).
pub fn search(order: &[usize], start: usize, nodes_to_find: usize, feasible: impl Fn(usize) -> bool) -> Search {
    let n = order.len();
    let mut found = Vec::new();
    let mut failed = 0;
    if n == 0 {
        return Search { found, processed: 0 };
    }
    for i in 0..n {
        let node = order[(start + i) % n];
        if feasible(node) {
            if found.len() == nodes_to_find {
                break;
            }
            found.push(node);
        } else {
            failed += 1;
        }
    }
    Search {
        processed: found.len() + failed,
        found,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pct(profile: Option<i64>, global: i64) -> Percentage {
        Percentage { profile, global }
    }

    #[test]
    /// Upstream's TestNumFeasibleNodesToFind (schedule_one_test.go), the global value's
    /// rows, and its profile rows (a profile's value wins; 0 is adaptive; 100 is every node).
    fn nodes_to_find_as_upstream_counts_them() {
        for (global, all, want) in [
            (0, 10, 10),
            (40, 10, 10),
            (0, 1000, 420),
            (40, 1000, 400),
            (0, 6000, 300),
            (40, 6000, 2400),
        ] {
            assert_eq!(
                pct(None, global).nodes_to_find(all),
                want,
                "global {global}, {all} nodes"
            );
        }
        assert_eq!(pct(None, 10).nodes_to_find(2000), 200);
        assert_eq!(pct(None, 0).nodes_to_find(2000), 680);
        assert_eq!(pct(Some(0), 10).nodes_to_find(2000), 680);
        assert_eq!(pct(Some(5), 10).nodes_to_find(2000), 100);
        assert_eq!(pct(Some(100), 10).nodes_to_find(2000), 2000);
        // at least 100 nodes, below 100 every node, the adaptive floor of 5 %
        assert_eq!(pct(None, 1).nodes_to_find(500), 100);
        assert_eq!(pct(None, 0).nodes_to_find(99), 99);
        assert_eq!(pct(None, 0).nodes_to_find(100), 100);
        assert_eq!(pct(None, 0).nodes_to_find(65_000), 3_250);
        assert_eq!(pct(None, 0).effective(65_000), 5);
        assert_eq!(pct(None, 0).effective(5_000), 10);
    }

    #[test]
    /// Upstream's TestFairEvaluationForNodes: 500 nodes that all pass, 30 %: each cycle keeps
    /// 150 nodes and the next one starts 150 further, wrapping over the node list.
    fn the_next_search_starts_where_the_last_stopped() {
        let order: Vec<usize> = (0..500).collect();
        let to_find = pct(None, 30).nodes_to_find(500);
        assert_eq!(to_find, 150);
        let mut start = 0;
        for i in 0..2 * (500 / to_find + 1) {
            let s = search(&order, start, to_find, |_| true);
            assert_eq!(s.found.len(), to_find);
            assert_eq!(s.found[0], start);
            start = (start + s.processed) % 500;
            assert_eq!(start, (i + 1) * to_find % 500);
        }
    }

    #[test]
    /// Failed nodes before the stop count as processed; the one feasible node past the
    /// count is checked but neither kept nor counted; a search that never stops counts all.
    fn a_search_counts_what_it_checked() {
        let order: Vec<usize> = (0..10).collect();
        // feasible: the even nodes
        let s = search(&order, 3, 2, |i| i % 2 == 0);
        assert_eq!(s.found, vec![4, 6]);
        // 3, 5 and 7 failed; 8 is a third feasible node: checked, not kept, not counted
        assert_eq!(s.processed, 5);
        let s = search(&order, 0, 100, |i| i % 2 == 0);
        assert_eq!(s.found, vec![0, 2, 4, 6, 8]);
        assert_eq!(s.processed, 10);
        assert_eq!(
            search(&[], 0, 1, |_| true),
            Search {
                found: vec![],
                processed: 0
            }
        );
    }

    fn node(name: &str, labels: &[(&str, &str)]) -> NodeInfo {
        let mut obj = k8s_openapi::api::core::v1::Node::default();
        obj.metadata.name = Some(name.to_string());
        obj.metadata.labels = Some(
            labels
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect(),
        );
        NodeInfo::new(std::sync::Arc::new(
            crate::model::Node::from_obj(obj).expect("a valid node"),
        ))
    }

    #[test]
    /// Upstream's node tree (node_tree_test.go): zones in the order their first node came,
    /// one node of each zone in turn, the nodes without a zone as one more zone; the beta
    /// labels are read when the GA ones are absent, and the region is part of the key.
    fn the_node_tree_interleaves_zones() {
        let nodes = [
            node("a1", &[(LABEL_ZONE, "z1")]),
            node("a2", &[(LABEL_ZONE, "z1")]),
            node("b1", &[(LABEL_BETA_ZONE, "z2")]),
            node("c1", &[]),
            node("b2", &[(LABEL_ZONE, "z2")]),
            node("a3", &[(LABEL_ZONE, "z1")]),
            node("d1", &[(LABEL_REGION, "r2"), (LABEL_ZONE, "z1")]),
        ];
        let names: Vec<&str> = tree_order(&nodes)
            .into_iter()
            .map(|i| nodes[i].node.name.as_str())
            .collect();
        assert_eq!(names, ["a1", "b1", "c1", "d1", "a2", "b2", "a3"]);
        assert_eq!(zone_key(&nodes[6]), "r2:\u{0}:z1");
        assert_eq!(zone_key(&nodes[3]), "");
        assert_eq!(zone_key(&nodes[2]), ":\u{0}:z2");
    }
}
