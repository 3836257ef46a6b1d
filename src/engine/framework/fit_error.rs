//! `FitError.Error()` of framework/types.go: the message of a pod that fits no node, built
//! from a histogram of the nodes' reasons.

use std::collections::BTreeMap;

use super::status::Status;

/// `FitError.Error()` of framework/types.go. `statuses` are the nodes with a status of their
/// own; `absent` is the status of every other node (1.32+ `NodeToStatus`, None before), whose
/// reasons count once per node missing from `statuses`.
pub fn fit_error_message(
    num_nodes: usize,
    prefilter_msg: Option<&str>,
    statuses: &BTreeMap<String, Status>,
    absent: Option<&Status>,
    postfilter_msg: &str,
) -> String {
    let mut msg = format!("0/{num_nodes} nodes are available:");
    match prefilter_msg {
        Some(m) if !m.is_empty() => msg.push_str(&format!(" {m}.")),
        _ => {
            let mut hist: BTreeMap<&str, usize> = BTreeMap::new();
            for s in statuses.values() {
                for r in &s.reasons {
                    *hist.entry(r.as_ref()).or_insert(0) += 1;
                }
            }
            if let Some(a) = absent
                && statuses.len() < num_nodes
            {
                for r in &a.reasons {
                    *hist.entry(r.as_ref()).or_insert(0) += num_nodes - statuses.len();
                }
            }
            let mut items: Vec<String> = hist.iter().map(|(r, n)| format!("{n} {r}")).collect();
            items.sort();
            if !items.is_empty() {
                msg.push_str(&format!(" {}.", items.join(", ")));
            }
        }
    }
    if !postfilter_msg.is_empty() {
        msg.push_str(&format!(" {postfilter_msg}"));
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::framework::status::Code;

    #[test]
    fn fit_error_message_counts_absent_nodes() {
        // types_test.go TestFitError_Error shapes, with an absent-nodes status added.
        let f = |r: &str| Status::unschedulable(r.to_string());
        let statuses: BTreeMap<String, Status> = [
            ("node1".to_string(), f("Node(s) failed Filter plugin FalseFilter-1")),
            ("node2".to_string(), f("Node(s) failed Filter plugin FalseFilter-1")),
            ("node3".to_string(), f("Node(s) failed Filter plugin FalseFilter-2")),
        ]
        .into();
        assert_eq!(
            fit_error_message(
                3,
                None,
                &statuses,
                None,
                "Error running PostFilter plugin FailedPostFilter"
            ),
            "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 Node(s) failed Filter plugin FalseFilter-1. Error running PostFilter plugin FailedPostFilter"
        );
        assert_eq!(
            fit_error_message(
                3,
                Some("Node(s) failed PreFilter plugin FalsePreFilter"),
                &statuses,
                None,
                ""
            ),
            "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter."
        );
        let absent = Status::unresolvable("node(s) didn't satisfy plugin(s) [FakePreFilter]");
        assert_eq!(
            fit_error_message(5, None, &statuses, Some(&absent), ""),
            "0/5 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 Node(s) failed Filter plugin FalseFilter-1, 2 node(s) didn't satisfy plugin(s) [FakePreFilter]."
        );
        // An absent status without reasons (NewDefaultNodeToStatus) adds nothing.
        assert_eq!(
            fit_error_message(
                5,
                None,
                &statuses,
                Some(&Status::new(Code::UnschedulableAndUnresolvable, Vec::<String>::new())),
                ""
            ),
            "0/5 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 Node(s) failed Filter plugin FalseFilter-1."
        );
    }
}
