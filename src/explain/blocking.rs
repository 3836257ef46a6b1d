//! What blocks a pod at Filter: the reason whose removal would make the pod fit. Upstream's
//! message counts each node's first failing plugin's reasons, so the most frequent reason can
//! be one that is not in the way at all: the demo's GPU pods read `8 node(s) didn't match
//! Pod's node affinity/selector` first, yet those eight nodes have no device for the claims
//! either, and the two nodes that do are refused by the allocator alone ("cannot allocate all
//! claims"). The diagnostic pass (every failing filter plugin of a node) tells them apart.

use std::collections::BTreeMap;

use crate::engine::framework::trace::Explanation;

/// The reason that alone keeps the pod off the most nodes (nodes that every filter passes but
/// for this one reason), with how many nodes it rejects as upstream's message counts them
/// (first failing plugin); ties go to the reason that rejects more nodes, then to the first
/// in byte order (the order upstream's message lists them in). None when every rejected node
/// has more than one reason, or the trace has no diagnostic pass: no single reason's removal
/// makes the pod fit.
pub(crate) fn sole_blocker(ex: &Explanation) -> Option<(&str, usize)> {
    // reason → (nodes it alone rejects, nodes it rejects first)
    let mut m: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for f in ex.filter.iter().filter(|f| !f.feasible && !f.excluded_by_prefilter) {
        if let Some(fl) = &f.failure {
            for r in &fl.reasons {
                m.entry(r.as_ref()).or_default().1 += 1;
            }
        }
        let mut all = f
            .all_failures
            .iter()
            .flat_map(|fl| fl.reasons.iter().map(AsRef::<str>::as_ref));
        if let Some(first) = all.next()
            && all.all(|r| r == first)
        {
            m.entry(first).or_default().0 += 1;
        }
    }
    m.into_iter()
        .filter(|(_, (alone, first))| *alone > 0 && *first > 0)
        // max_by keeps the last of equals and the map is in byte order: compare names reversed
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))
        .map(|(r, (_, first))| (r, first))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::framework::status::{Code, Reasons};
    use crate::engine::framework::trace::{FilterFailure, NodeFilter, NodeName};

    fn failure(plugin: &'static str, reasons: &[&str]) -> FilterFailure {
        FilterFailure {
            plugin,
            code: Code::Unschedulable,
            reasons: reasons.iter().map(|r| (*r).to_string()).collect::<Reasons>(),
        }
    }

    /// A rejected node: its first failing plugin, then every one the diagnostic pass found.
    fn node(name: &str, all: Vec<FilterFailure>) -> NodeFilter {
        NodeFilter {
            node: NodeName::from(name),
            feasible: false,
            failure: all.first().cloned(),
            excluded_by_prefilter: false,
            rejected_by_nominated_pods: Vec::new(),
            all_failures: all,
            detail: Default::default(),
            details: Vec::new(),
        }
    }

    fn explanation(filter: Vec<NodeFilter>) -> Explanation {
        let features = crate::engine::Features::new(crate::engine::Release::OLDEST);
        let mut ex = Explanation::empty(
            crate::model::ObjectKey::new("ml", "train"),
            "default-scheduler".into(),
            &features,
            filter.len(),
        );
        ex.filter = filter;
        ex
    }

    const AFFINITY: &str = "node(s) didn't match Pod's node affinity/selector";
    const CLAIMS: &str = "cannot allocate all claims";

    /// The demo's GPU pods: most nodes fail node affinity first, but the claims cannot be
    /// allocated there either; the DRA nodes fail on the claims alone.
    #[test]
    fn the_reason_that_alone_blocks_wins_over_the_most_frequent() {
        let mut nodes: Vec<NodeFilter> = (0..8)
            .map(|i| {
                node(
                    &format!("general-{i}"),
                    vec![
                        failure("NodeAffinity", &[AFFINITY]),
                        failure("DynamicResources", &[CLAIMS]),
                    ],
                )
            })
            .collect();
        nodes.push(node("dra-a", vec![failure("DynamicResources", &[CLAIMS])]));
        nodes.push(node("dra-b", vec![failure("DynamicResources", &[CLAIMS])]));
        assert_eq!(sole_blocker(&explanation(nodes)), Some((CLAIMS, 2)));
    }

    /// Two reasons of one plugin on every node (cpu and memory): neither alone blocks.
    #[test]
    fn no_sole_blocker_when_every_node_has_two_reasons() {
        let nodes = vec![
            node(
                "a",
                vec![failure(
                    "NodeResourcesFit",
                    &["Insufficient cpu", "Insufficient memory"],
                )],
            ),
            node(
                "b",
                vec![failure(
                    "NodeResourcesFit",
                    &["Insufficient cpu", "Insufficient memory"],
                )],
            ),
        ];
        assert_eq!(sole_blocker(&explanation(nodes)), None);
    }

    /// More nodes freed wins; at equal freed nodes, more nodes rejected, then byte order.
    #[test]
    fn ties_go_to_the_reason_that_rejects_more_nodes_then_to_byte_order() {
        let cpu = "Insufficient cpu";
        let taint = "node(s) had untolerated taint {dedicated: gpu}";
        let nodes = vec![
            node("a", vec![failure("NodeResourcesFit", &[cpu])]),
            node("b", vec![failure("NodeResourcesFit", &[cpu, "Insufficient memory"])]),
            node("c", vec![failure("TaintToleration", &[taint])]),
        ];
        assert_eq!(sole_blocker(&explanation(nodes)), Some((cpu, 2)));
        let nodes = vec![
            node("a", vec![failure("NodeResourcesFit", &[cpu])]),
            node("c", vec![failure("TaintToleration", &[taint])]),
        ];
        assert_eq!(sole_blocker(&explanation(nodes)), Some((cpu, 1)));
    }
}
