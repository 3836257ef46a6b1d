//! Label selectors (apimachinery labels + metav1.LabelSelectorAsSelector) and node selectors
//! (component-helpers/scheduling/corev1/nodeaffinity), on k8s-openapi types.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{NodeSelector, NodeSelectorRequirement, NodeSelectorTerm};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

/// Labels of an object.
pub type Labels = BTreeMap<String, String>;

/// A parsed label selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    /// Matches nothing (a nil selector, or one that failed to parse).
    Nothing,
    /// All requirements must hold (empty: matches everything).
    Requirements(Vec<Requirement>),
}

/// One label requirement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// Label key.
    pub key: String,
    /// Operator.
    pub op: Op,
    /// Values (for In / NotIn / Gt / Lt).
    pub values: Vec<String>,
}

/// Requirement operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// In
    In,
    /// NotIn
    NotIn,
    /// Exists
    Exists,
    /// DoesNotExist
    DoesNotExist,
    /// Gt (node selectors only)
    Gt,
    /// Lt (node selectors only)
    Lt,
}

impl Op {
    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "In" => Op::In,
            "NotIn" => Op::NotIn,
            "Exists" => Op::Exists,
            "DoesNotExist" => Op::DoesNotExist,
            "Gt" => Op::Gt,
            "Lt" => Op::Lt,
            _ => return None,
        })
    }
}

impl Requirement {
    /// Whether the labels satisfy the requirement.
    pub fn matches(&self, labels: &Labels) -> bool {
        let v = labels.get(&self.key);
        match self.op {
            Op::In => v.is_some_and(|v| self.values.iter().any(|x| x == v)),
            Op::NotIn => v.is_none_or(|v| !self.values.iter().any(|x| x == v)),
            Op::Exists => v.is_some(),
            Op::DoesNotExist => v.is_none(),
            Op::Gt | Op::Lt => {
                let Some(v) = v else { return false };
                let Ok(have) = v.parse::<i64>() else { return false };
                let Some(Ok(want)) = self.values.first().map(|x| x.parse::<i64>()) else {
                    return false;
                };
                if self.op == Op::Gt { have > want } else { have < want }
            }
        }
    }
}

impl Selector {
    /// Everything.
    pub fn everything() -> Self {
        Selector::Requirements(Vec::new())
    }

    /// `metav1.LabelSelectorAsSelector`: nil → Nothing, empty → Everything.
    pub fn from_label_selector(ls: Option<&LabelSelector>) -> Self {
        let Some(ls) = ls else { return Selector::Nothing };
        let mut reqs = Vec::new();
        if let Some(ml) = &ls.match_labels {
            for (k, v) in ml {
                reqs.push(Requirement {
                    key: k.clone(),
                    op: Op::In,
                    values: vec![v.clone()],
                });
            }
        }
        if let Some(me) = &ls.match_expressions {
            for e in me {
                match label_req(e) {
                    Some(r) => reqs.push(r),
                    None => return Selector::Nothing,
                }
            }
        }
        Selector::Requirements(reqs)
    }

    /// A selector from a plain map (Service / ReplicationController selectors).
    /// An empty map selects nothing, as `labels.SelectorFromSet` on an empty set is used by
    /// the scheduler only for non-empty selectors.
    pub fn from_map(m: &BTreeMap<String, String>) -> Self {
        Selector::Requirements(
            m.iter()
                .map(|(k, v)| Requirement {
                    key: k.clone(),
                    op: Op::In,
                    values: vec![v.clone()],
                })
                .collect(),
        )
    }

    /// Adds a requirement (used for matchLabelKeys).
    pub fn push(&mut self, r: Requirement) {
        if let Selector::Requirements(v) = self {
            v.push(r);
        }
    }

    /// Whether the labels match.
    pub fn matches(&self, labels: &Labels) -> bool {
        match self {
            Selector::Nothing => false,
            Selector::Requirements(r) => r.iter().all(|r| r.matches(labels)),
        }
    }

    /// True for the selector that matches nothing.
    pub fn is_nothing(&self) -> bool {
        matches!(self, Selector::Nothing)
    }

    /// True for the selector that matches everything.
    pub fn is_empty(&self) -> bool {
        matches!(self, Selector::Requirements(r) if r.is_empty())
    }
}

fn label_req(e: &LabelSelectorRequirement) -> Option<Requirement> {
    let op = Op::parse(&e.operator)?;
    let values = e.values.clone().unwrap_or_default();
    match op {
        Op::In | Op::NotIn if values.is_empty() => return None,
        Op::Exists | Op::DoesNotExist if !values.is_empty() => return None,
        Op::Gt | Op::Lt => return None,
        _ => {}
    }
    Some(Requirement {
        key: e.key.clone(),
        op,
        values,
    })
}

fn node_req(e: &NodeSelectorRequirement) -> Option<Requirement> {
    let op = Op::parse(&e.operator)?;
    let values = e.values.clone().unwrap_or_default();
    match op {
        Op::In | Op::NotIn if values.is_empty() => return None,
        Op::Exists | Op::DoesNotExist if !values.is_empty() => return None,
        Op::Gt | Op::Lt if values.len() != 1 || values[0].parse::<i64>().is_err() => return None,
        _ => {}
    }
    Some(Requirement {
        key: e.key.clone(),
        op,
        values,
    })
}

/// One parsed node selector term.
#[derive(Clone, Debug)]
pub struct NodeTerm {
    exprs: Vec<Requirement>,
    fields: Vec<Requirement>,
    valid: bool,
}

impl NodeTerm {
    /// Parses a term; a term with a malformed requirement never matches.
    pub fn new(t: &NodeSelectorTerm) -> Self {
        let mut valid = true;
        let mut exprs = Vec::new();
        let mut fields = Vec::new();
        for e in t.match_expressions.iter().flatten() {
            match node_req(e) {
                Some(r) => exprs.push(r),
                None => valid = false,
            }
        }
        for e in t.match_fields.iter().flatten() {
            match node_req(e) {
                Some(r) if r.key == "metadata.name" && matches!(r.op, Op::In | Op::NotIn) => {
                    if r.op == Op::In && r.values.len() != 1 {
                        valid = false;
                    }
                    fields.push(r);
                }
                _ => valid = false,
            }
        }
        NodeTerm { exprs, fields, valid }
    }

    /// Whether a node with these labels and name matches the term.
    pub fn matches(&self, labels: &Labels, node_name: &str) -> bool {
        if !self.valid || (self.exprs.is_empty() && self.fields.is_empty()) {
            return false;
        }
        if !self.exprs.iter().all(|r| r.matches(labels)) {
            return false;
        }
        if !self.fields.is_empty() {
            let mut f = Labels::new();
            f.insert("metadata.name".to_string(), node_name.to_string());
            if !self.fields.iter().all(|r| r.matches(&f)) {
                return false;
            }
        }
        true
    }

    /// The node names this term pins with `matchFields metadata.name In`, if any.
    pub fn pinned_node_names(&self) -> Option<Vec<String>> {
        let mut out: Option<Vec<String>> = None;
        for r in &self.fields {
            if r.op == Op::In {
                out = Some(r.values.clone());
            }
        }
        out
    }
}

/// A parsed NodeSelector: terms are ORed.
#[derive(Clone, Debug)]
pub struct NodeSelectorMatcher {
    /// The terms.
    pub terms: Vec<NodeTerm>,
}

impl NodeSelectorMatcher {
    /// Parses a node selector.
    pub fn new(ns: &NodeSelector) -> Self {
        NodeSelectorMatcher {
            terms: ns.node_selector_terms.iter().map(NodeTerm::new).collect(),
        }
    }

    /// Whether any term matches.
    pub fn matches(&self, labels: &Labels, node_name: &str) -> bool {
        self.terms.iter().any(|t| t.matches(labels, node_name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(items: &[(&str, &str)]) -> Labels {
        items
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    fn nreq(key: &str, op: &str, values: &[&str]) -> NodeSelectorRequirement {
        NodeSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: Some(values.iter().map(|s| (*s).to_string()).collect()),
        }
    }

    #[test]
    fn gt_lt_compare_integers() {
        let t = NodeTerm::new(&NodeSelectorTerm {
            match_expressions: Some(vec![nreq("cores", "Gt", &["4"]), nreq("cores", "Lt", &["10"])]),
            match_fields: None,
        });
        assert!(t.matches(&labels(&[("cores", "8")]), "n"));
        assert!(!t.matches(&labels(&[("cores", "4")]), "n"));
        assert!(!t.matches(&labels(&[("cores", "x")]), "n"));
        assert!(!t.matches(&labels(&[]), "n"));
    }

    #[test]
    fn match_fields_on_node_name() {
        let t = NodeTerm::new(&NodeSelectorTerm {
            match_expressions: None,
            match_fields: Some(vec![nreq("metadata.name", "In", &["n2"])]),
        });
        assert!(t.matches(&labels(&[]), "n2"));
        assert!(!t.matches(&labels(&[]), "n1"));
        assert_eq!(t.pinned_node_names(), Some(vec!["n2".to_string()]));
    }

    #[test]
    fn empty_term_matches_nothing_and_not_in_matches_missing() {
        let empty = NodeTerm::new(&NodeSelectorTerm::default());
        assert!(!empty.matches(&labels(&[("a", "b")]), "n"));
        let t = NodeTerm::new(&NodeSelectorTerm {
            match_expressions: Some(vec![nreq("zone", "NotIn", &["a"])]),
            match_fields: None,
        });
        assert!(t.matches(&labels(&[]), "n"));
        assert!(!t.matches(&labels(&[("zone", "a")]), "n"));
    }

    #[test]
    fn label_selector_nil_empty_and_expressions() {
        assert!(!Selector::from_label_selector(None).matches(&labels(&[])));
        assert!(Selector::from_label_selector(Some(&LabelSelector::default())).matches(&labels(&[])));
        let ls = LabelSelector {
            match_labels: Some([("app".to_string(), "web".to_string())].into()),
            match_expressions: Some(vec![LabelSelectorRequirement {
                key: "tier".into(),
                operator: "NotIn".into(),
                values: Some(vec!["db".into()]),
            }]),
        };
        let s = Selector::from_label_selector(Some(&ls));
        assert!(s.matches(&labels(&[("app", "web")])));
        assert!(!s.matches(&labels(&[("app", "web"), ("tier", "db")])));
        assert!(!s.matches(&labels(&[("app", "api")])));
    }
}
