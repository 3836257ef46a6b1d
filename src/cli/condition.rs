//! Beside kschedtui's verdict, the verdict the cluster's own scheduler wrote into the pod's
//! PodScheduled condition, and a note when the two disagree (a kschedtui bug to report, or a
//! scheduler running another profile or release).

use crate::engine::trace::Explanation;
use crate::model::Cluster;

/// The pod's PodScheduled condition as the cluster's scheduler wrote it, and a note when it
/// disagrees with kschedtui (empty when the pod has no such condition).
pub fn cluster_verdict(cluster: &Cluster, ex: &Explanation) -> String {
    let Some(pod) = cluster.pod(&ex.pod) else {
        return String::new();
    };
    let conds = pod.obj.status.as_ref().and_then(|s| s.conditions.as_ref());
    let Some(c) = conds.and_then(|c| c.iter().find(|c| c.type_ == "PodScheduled")) else {
        return String::new();
    };
    let reason = c.reason.clone().unwrap_or_default();
    let message = c.message.clone().unwrap_or_default();
    let mut s = format!("Cluster: PodScheduled={}", c.status);
    if !reason.is_empty() {
        s += &format!(" ({reason})");
    }
    if !message.is_empty() {
        s += &format!(": {message}");
    }
    s.push('\n');
    if c.status == "False" && reason == "Unschedulable" {
        match &ex.message {
            Some(m) if *m == message => {}
            Some(_) => {
                s += "Note: the cluster's scheduler wrote a different message: a kschedtui bug to report, or a scheduler running another profile or release\n"
            }
            None => {
                s += "Note: the cluster's scheduler found no node but kschedtui does: the cluster changed since, or the scheduler runs another profile or release\n"
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::engine::{Snapshot, Version, build_profiles, explain};
    use crate::model::ObjectKey;
    use crate::source::file::load_str;

    fn cluster(condition: &str) -> Cluster {
        load_str(
            "t",
            &format!(
                r#"
apiVersion: v1
kind: List
items:
- {{apiVersion: v1, kind: Node, metadata: {{name: n1}}, status: {{allocatable: {{cpu: "1", pods: "10"}}}}}}
- apiVersion: v1
  kind: Pod
  metadata: {{name: p, namespace: a}}
  spec: {{containers: [{{name: c, image: i, resources: {{requests: {{cpu: "2"}}}}}}]}}
  status: {{conditions: [{condition}]}}
"#
            ),
        )
        .unwrap()
    }

    fn verdict(c: Cluster) -> (String, Option<String>) {
        let v = Version::OLDEST;
        let snap = Snapshot::new(Arc::new(c), v);
        let ex = explain(&snap, &build_profiles(None, v).unwrap(), &ObjectKey::new("a", "p")).unwrap();
        (cluster_verdict(&snap.cluster, &ex), ex.message)
    }

    #[test]
    fn the_same_message_gets_no_note() {
        let (_, msg) = verdict(cluster("{type: Ready, status: \"False\"}"));
        let msg = msg.unwrap();
        let c = cluster(&format!(
            "{{type: PodScheduled, status: \"False\", reason: Unschedulable, message: \"{msg}\"}}"
        ));
        assert_eq!(
            verdict(c).0,
            format!("Cluster: PodScheduled=False (Unschedulable): {msg}\n")
        );
    }

    #[test]
    fn a_different_message_is_flagged() {
        let c = cluster(
            "{type: PodScheduled, status: \"False\", reason: Unschedulable, message: \"0/1 nodes are available: 1 Too many pods.\"}",
        );
        assert_eq!(
            verdict(c).0,
            "Cluster: PodScheduled=False (Unschedulable): 0/1 nodes are available: 1 Too many pods.\nNote: the cluster's scheduler wrote a different message: a kschedtui bug to report, or a scheduler running another profile or release\n"
        );
    }

    #[test]
    fn no_condition_no_line() {
        assert_eq!(verdict(cluster("{type: Ready, status: \"False\"}")).0, "");
    }
}
