//! The difference between two traces of the same pod (before and after a what-if edit): the
//! verdict, the selected node, each node's Filter verdict and Score total.

use std::collections::BTreeMap;

use crate::engine::framework::trace::{Explanation, NodeFilter};

/// How a line changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sign {
    /// Better for the pod (a node now fits, a higher score).
    Better,
    /// Worse for the pod.
    Worse,
    /// Different, neither better nor worse.
    Changed,
}

/// One line of the diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    /// Direction.
    pub sign: Sign,
    /// Text.
    pub text: String,
}

/// The diff shown after a what-if edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceDiff {
    /// The change that was made.
    pub change: String,
    /// Verdict before.
    pub before: String,
    /// Verdict after.
    pub after: String,
    /// Line by line.
    pub lines: Vec<DiffLine>,
}

fn filter_verdict(f: &NodeFilter) -> String {
    if f.feasible {
        "fit".into()
    } else if f.excluded_by_prefilter {
        "excluded by PreFilter".into()
    } else {
        match &f.failure {
            Some(fl) if fl.plugin.is_empty() => format!("no fit ({})", fl.reasons.join(", ")),
            Some(fl) => format!("no fit ({}: {})", fl.plugin, fl.reasons.join(", ")),
            None => "no fit".into(),
        }
    }
}

/// Compares two traces.
pub(crate) fn diff(change: &str, before: &Explanation, after: &Explanation) -> TraceDiff {
    let mut lines = Vec::new();
    if before.selected != after.selected {
        let show = |s: &[String]| {
            if s.is_empty() { "none".to_string() } else { s.join(", ") }
        };
        let sign = match (before.selected.is_empty(), after.selected.is_empty()) {
            (true, false) => Sign::Better,
            (false, true) => Sign::Worse,
            _ => Sign::Changed,
        };
        lines.push(DiffLine {
            sign,
            text: format!("selected: {} → {}", show(&before.selected), show(&after.selected)),
        });
    }
    if before.message != after.message {
        lines.push(DiffLine {
            sign: Sign::Changed,
            text: format!(
                "message: {} → {}",
                before.message.as_deref().unwrap_or("(none)"),
                after.message.as_deref().unwrap_or("(none)")
            ),
        });
    }
    let b: BTreeMap<&str, &NodeFilter> = before.filter.iter().map(|f| (f.node.as_str(), f)).collect();
    let a: BTreeMap<&str, &NodeFilter> = after.filter.iter().map(|f| (f.node.as_str(), f)).collect();
    let mut nodes: Vec<&str> = b.keys().chain(a.keys()).copied().collect();
    nodes.sort_unstable();
    nodes.dedup();
    for n in nodes {
        let (vb, va) = (b.get(n).map(|f| filter_verdict(f)), a.get(n).map(|f| filter_verdict(f)));
        if vb != va {
            let fb = b.get(n).is_some_and(|f| f.feasible);
            let fa = a.get(n).is_some_and(|f| f.feasible);
            let sign = match (fb, fa) {
                (false, true) => Sign::Better,
                (true, false) => Sign::Worse,
                _ => Sign::Changed,
            };
            let show = |v: Option<String>| v.unwrap_or_else(|| "(absent)".into());
            lines.push(DiffLine {
                sign,
                text: format!("{n}: {} → {}", show(vb), show(va)),
            });
        }
    }
    let sb: BTreeMap<&str, i64> = before.score.iter().map(|s| (s.node.as_str(), s.total)).collect();
    for s in &after.score {
        if let Some(&old) = sb.get(s.node.as_str())
            && old != s.total
        {
            let sign = if s.total > old { Sign::Better } else { Sign::Worse };
            lines.push(DiffLine {
                sign,
                text: format!("{}: score {old} → {}", s.node, s.total),
            });
        }
    }
    TraceDiff {
        change: change.to_string(),
        before: before.verdict(),
        after: after.verdict(),
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::whatif;
    use crate::engine::{Release, Snapshot, build_profiles, explain};
    use crate::model::ObjectKey;
    use crate::source::file;
    use std::sync::Arc;

    #[test]
    fn tolerating_the_taint_makes_node_c_fit() {
        let c = file::load_str("t", include_str!("../../fixtures/tui-test.yaml")).expect("fixture");
        let profiles = build_profiles(None, Release::NEWEST).expect("profiles");
        let key = ObjectKey::new("default", "batch-1");
        let before = explain(&Snapshot::new(Arc::new(c.clone()), Release::NEWEST), &profiles, &key).expect("explains");
        let mut form = whatif::pod_form(c.pod(&key).expect("pod"));
        let tol = form
            .fields
            .iter_mut()
            .find(|f| f.kind == whatif::FieldKind::Tolerations)
            .expect("field");
        tol.value = "dedicated=gpu:NoSchedule".into();
        let (c2, what) = whatif::apply_form(&c, &form).expect("applies");
        let after = explain(&Snapshot::new(Arc::new(c2), Release::NEWEST), &profiles, &key).expect("explains");
        let d = diff(&what, &before, &after);
        assert_eq!(
            d.lines[0],
            DiffLine {
                sign: Sign::Better,
                text: "selected: none → node-c".into()
            }
        );
        assert!(d.lines.contains(&DiffLine {
            sign: Sign::Better,
            text: "node-c: no fit (TaintToleration: node(s) had untolerated taint(s)) → fit".into()
        }));
        assert_eq!(d.after, "Schedulable: would bind to node-c");
    }
}
