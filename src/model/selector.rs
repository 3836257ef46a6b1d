//! Label selectors (apimachinery labels + metav1.LabelSelectorAsSelector) and node selectors
//! (component-helpers/scheduling/corev1/nodeaffinity), on k8s-openapi types.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{NodeSelector, NodeSelectorRequirement, NodeSelectorTerm};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

pub(crate) use super::labels::{LabelSet, Labels};

/// A parsed label selector.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Selector {
    /// Matches nothing (a nil selector, or one that failed to parse).
    Nothing,
    /// All requirements must hold (empty: matches everything).
    Requirements(Vec<Requirement>),
}

/// One label requirement.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Requirement {
    /// Label key.
    pub key: String,
    /// Operator.
    pub op: Op,
    /// Values (for In / NotIn / Gt / Lt).
    pub values: Vec<String>,
}

/// Requirement operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    pub fn matches<L: LabelSet + ?Sized>(&self, labels: &L) -> bool {
        self.matches_value(labels.label(&self.key))
    }

    /// Whether an object whose value of the key is `v` (None: no such label) satisfies the
    /// requirement: the answer depends on nothing else.
    pub fn matches_value(&self, v: Option<&str>) -> bool {
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
                match new_requirement(k, Op::In, vec![v.clone()]) {
                    Some(r) => reqs.push(r),
                    None => return Selector::Nothing,
                }
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
    pub fn matches<L: LabelSet + ?Sized>(&self, labels: &L) -> bool {
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

impl Selector {
    /// `labels.Parse`: the string form (`a=b,c!=d,e in (x,y),f notin (z),g,!h`); "" selects
    /// everything. The error names the part that does not parse.
    pub fn parse(s: &str) -> Result<Selector, String> {
        let mut reqs = Vec::new();
        for part in split_top_level(s) {
            let part = part.trim();
            if part.is_empty() {
                if s.trim().is_empty() {
                    continue;
                }
                return Err(format!("empty requirement in selector \"{s}\""));
            }
            let bad = || format!("cannot parse '{part}' in selector \"{s}\"");
            let req = if let Some(k) = part.strip_prefix('!') {
                new_requirement(k.trim(), Op::DoesNotExist, Vec::new())
            } else if let Some((k, v)) = part.split_once("!=") {
                new_requirement(k.trim(), Op::NotIn, vec![v.trim().to_string()])
            } else if let Some((k, v)) = part.split_once("==").or_else(|| part.split_once('=')) {
                new_requirement(k.trim(), Op::In, vec![v.trim().to_string()])
            } else if let Some((k, rest)) = split_word(part, " notin ") {
                new_requirement(k, Op::NotIn, set_values(rest).ok_or_else(bad)?)
            } else if let Some((k, rest)) = split_word(part, " in ") {
                new_requirement(k, Op::In, set_values(rest).ok_or_else(bad)?)
            } else {
                new_requirement(part, Op::Exists, Vec::new())
            };
            reqs.push(req.ok_or_else(bad)?);
        }
        Ok(Selector::Requirements(reqs))
    }
}

/// Splits at commas outside parentheses.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn split_word<'a>(part: &'a str, word: &str) -> Option<(&'a str, &'a str)> {
    part.find(word)
        .map(|i| (part[..i].trim(), part[i + word.len()..].trim()))
}

fn set_values(rest: &str) -> Option<Vec<String>> {
    let inner = rest.strip_prefix('(')?.strip_suffix(')')?;
    let v: Vec<String> = inner
        .split(',')
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect();
    (!v.is_empty()).then_some(v)
}

/// `validation.IsDNS1123Subdomain`.
fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            !b.is_empty()
                && b.iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                && b[0] != b'-'
                && b[b.len() - 1] != b'-'
        })
}

/// The `qualifiedNameFmt` regex: `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
pub(crate) fn matches_qualified_name_fmt(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// `validation.IsQualifiedName`: an optional DNS-subdomain prefix and `/`, then a name of at
/// most 63 characters.
pub(crate) fn is_qualified_name(s: &str) -> bool {
    let parts: Vec<&str> = s.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() || !is_dns1123_subdomain(prefix) {
                return false;
            }
            *name
        }
        _ => return false,
    };
    name.len() <= 63 && matches_qualified_name_fmt(name)
}

/// `validation.IsValidLabelValue`: empty, or at most 63 characters of the qualified-name form.
pub(crate) fn is_valid_label_value(s: &str) -> bool {
    s.is_empty() || (s.len() <= 63 && matches_qualified_name_fmt(s))
}

/// `labels.NewRequirement`: None when apimachinery would return an error.
fn new_requirement(key: &str, op: Op, values: Vec<String>) -> Option<Requirement> {
    if !is_qualified_name(key) {
        return None;
    }
    let ok = match op {
        Op::In | Op::NotIn => !values.is_empty(),
        Op::Exists | Op::DoesNotExist => values.is_empty(),
        Op::Gt | Op::Lt => values.len() == 1 && values.iter().all(|v| v.parse::<i64>().is_ok()),
    };
    if !ok || !values.iter().all(|v| is_valid_label_value(v)) {
        return None;
    }
    Some(Requirement {
        key: key.to_string(),
        op,
        values,
    })
}

fn label_req(e: &LabelSelectorRequirement) -> Option<Requirement> {
    let op = match Op::parse(&e.operator)? {
        Op::Gt | Op::Lt => return None,
        op => op,
    };
    new_requirement(&e.key, op, e.values.clone().unwrap_or_default())
}

fn node_req(e: &NodeSelectorRequirement) -> Option<Requirement> {
    new_requirement(&e.key, Op::parse(&e.operator)?, e.values.clone().unwrap_or_default())
}

/// One term of a field selector: `key == value` or `key != value`.
#[derive(Clone, Debug)]
struct FieldTerm {
    key: String,
    value: String,
    equal: bool,
}

/// One parsed node selector term (component-helpers `nodeSelectorTerm`).
#[derive(Clone, Debug)]
pub(crate) struct NodeTerm {
    exprs: Vec<Requirement>,
    fields: Vec<FieldTerm>,
    valid: bool,
}

impl NodeTerm {
    /// Parses a term; a term with a malformed requirement never matches.
    pub(crate) fn new(t: &NodeSelectorTerm) -> Self {
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
            let values = e.values.as_deref().unwrap_or_default();
            match (e.operator.as_str(), values) {
                ("In" | "NotIn", [v]) => fields.push(FieldTerm {
                    key: e.key.clone(),
                    value: v.clone(),
                    equal: e.operator == "In",
                }),
                _ => valid = false,
            }
        }
        NodeTerm { exprs, fields, valid }
    }

    /// False when a requirement failed to parse (upstream reports a parse error).
    pub(crate) fn is_valid(&self) -> bool {
        self.valid
    }

    /// Whether a node with these labels and name matches the term. Field requirements are
    /// checked against `metadata.name` only, and not at all for a node without a name, as
    /// `nodeSelectorTerm.match` does.
    pub(crate) fn matches<L: LabelSet + ?Sized>(&self, labels: &L, node_name: &str) -> bool {
        if !self.valid || (self.exprs.is_empty() && self.fields.is_empty()) {
            return false;
        }
        if !self.exprs.iter().all(|r| r.matches(labels)) {
            return false;
        }
        fields_match(&self.fields, node_name)
    }

    /// The term's label requirements.
    pub(crate) fn requirements(&self) -> &[Requirement] {
        &self.exprs
    }

    /// True for a term that never matches: malformed, or with no requirement at all.
    pub(crate) fn never(&self) -> bool {
        !self.valid || (self.exprs.is_empty() && self.fields.is_empty())
    }

    /// Whether a node of this name meets the term's field requirements.
    pub(crate) fn matches_fields(&self, node_name: &str) -> bool {
        fields_match(&self.fields, node_name)
    }
}

/// The field requirements on a node of this name (none checked for a node without a name).
fn fields_match(fields: &[FieldTerm], node_name: &str) -> bool {
    if node_name.is_empty() {
        return true;
    }
    let get = |k: &str| if k == "metadata.name" { node_name } else { "" };
    fields.iter().all(|f| (get(&f.key) == f.value) == f.equal)
}

/// A parsed NodeSelector: terms are ORed.
#[derive(Clone, Debug)]
pub(crate) struct NodeSelectorMatcher {
    /// The terms.
    pub terms: Vec<NodeTerm>,
}

impl NodeSelectorMatcher {
    /// Parses a node selector.
    pub(crate) fn new(ns: &NodeSelector) -> Self {
        NodeSelectorMatcher {
            terms: ns.node_selector_terms.iter().map(NodeTerm::new).collect(),
        }
    }

    /// Whether any term matches.
    pub(crate) fn matches<L: LabelSet + ?Sized>(&self, labels: &L, node_name: &str) -> bool {
        self.terms.iter().any(|t| t.matches(labels, node_name))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Labels from pairs.
    pub(crate) fn labels(items: &[(&str, &str)]) -> Labels {
        items
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    #[test]
    fn parses_the_string_form_as_labels_parse() {
        let s = Selector::parse("zone=a,tier!=db,env in (prod, stage),team notin (x),gpu,!spot").unwrap();
        let l = labels(&[("zone", "a"), ("env", "prod"), ("gpu", "1")]);
        assert!(s.matches(&l));
        assert!(!s.matches(&labels(&[("zone", "a"), ("env", "prod"), ("gpu", "1"), ("spot", "y")])));
        assert!(!s.matches(&labels(&[("zone", "b"), ("env", "prod"), ("gpu", "1")])));
        assert!(Selector::parse("").unwrap().is_empty());
        assert_eq!(
            Selector::parse("a in ()").unwrap_err(),
            "cannot parse 'a in ()' in selector \"a in ()\""
        );
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

    fn term(exprs: Vec<NodeSelectorRequirement>, fields: Vec<NodeSelectorRequirement>) -> NodeTerm {
        NodeTerm::new(&NodeSelectorTerm {
            match_expressions: Some(exprs),
            match_fields: Some(fields),
        })
    }

    /// component-helpers nodeaffinity_test.go TestNodeSelectorMatch: a term that fails to parse
    /// is reported by upstream as an error; here it is invalid and never matches.
    #[test]
    fn node_selector_match_cases_from_upstream() {
        // "invalid field selector and label selector"
        let t0 = term(vec![], vec![nreq("metadata.name", "In", &["host_1", "host_2"])]);
        let t1 = term(
            vec![nreq("label_1", "In", &["label_1_val"])],
            vec![nreq("metadata.name", "In", &["host_1"])],
        );
        let t2 = term(vec![nreq("invalid key", "In", &["label_value"])], vec![]);
        assert!(!t0.is_valid());
        assert!(t1.is_valid());
        assert!(!t2.is_valid());

        let both = || {
            NodeSelectorMatcher::new(&NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_expressions: Some(vec![nreq("label_1", "In", &["label_1_val"])]),
                    match_fields: Some(vec![nreq("metadata.name", "In", &["host_1"])]),
                }],
            })
        };
        // "node matches field selector, but not labels"
        assert!(!both().matches(&labels(&[]), "host_1"));
        // "node matches field selector and label selector"
        assert!(both().matches(&labels(&[("label_1", "label_1_val")]), "host_1"));
        // "second term matches"
        let second = NodeSelectorMatcher::new(&NodeSelector {
            node_selector_terms: vec![
                NodeSelectorTerm {
                    match_expressions: Some(vec![nreq("label_1", "In", &["label_1_val"])]),
                    match_fields: None,
                },
                NodeSelectorTerm {
                    match_expressions: None,
                    match_fields: Some(vec![nreq("metadata.name", "In", &["host_1"])]),
                },
            ],
        });
        assert!(second.matches(&labels(&[]), "host_1"));
    }

    /// component-helpers nodeaffinity_test.go TestNodeSelectorRequirementsAsSelector.
    #[test]
    fn node_selector_requirements_as_selector_cases_from_upstream() {
        // nil and empty requirement lists select nothing
        assert!(!term(vec![], vec![]).matches(&labels(&[("foo", "bar")]), "n"));
        // foo in (baz,bar)
        let t = term(vec![nreq("foo", "In", &["bar", "baz"])], vec![]);
        assert!(t.matches(&labels(&[("foo", "baz")]), "n"));
        assert!(!t.matches(&labels(&[("foo", "qux")]), "n"));
        // Exists with values is an error
        assert!(!term(vec![nreq("foo", "Exists", &["bar", "baz"])], vec![]).is_valid());
        // foo>1 and bar<7
        let gt = term(vec![nreq("foo", "Gt", &["1"])], vec![]);
        assert!(gt.is_valid() && gt.matches(&labels(&[("foo", "2")]), "n"));
        let lt = term(vec![nreq("bar", "Lt", &["7"])], vec![]);
        assert!(
            lt.is_valid() && lt.matches(&labels(&[("bar", "6")]), "n") && !lt.matches(&labels(&[("bar", "7")]), "n")
        );
    }

    /// labels.NewRequirement's validation (apimachinery validation.IsQualifiedName and
    /// IsValidLabelValue), which decides whether a selector term parses.
    #[test]
    fn requirement_validation() {
        for (key, ok) in [
            ("foo", true),
            ("example.com/foo", true),
            ("a/b/c", false),
            ("/foo", false),
            ("Example.com/foo", false),
            ("invalid key", false),
            ("-foo", false),
            ("foo_bar.baz-1", true),
            (&"x".repeat(63), true),
            (&"x".repeat(64), false),
        ] {
            assert_eq!(is_qualified_name(key), ok, "{key}");
        }
        for (value, ok) in [
            ("", true),
            ("bar", true),
            ("NVIDIA-GRID-K1", true),
            ("invalid value: ___@#$%^", false),
            ("a_", false),
            (&"v".repeat(64), false),
        ] {
            assert_eq!(is_valid_label_value(value), ok, "{value}");
        }
        // In/NotIn need values, Exists/DoesNotExist none, Gt/Lt exactly one integer.
        for (op, vals, ok) in [
            ("In", &[][..], false),
            ("NotIn", &["a"][..], true),
            ("DoesNotExist", &["a"][..], false),
            ("Gt", &["1", "2"][..], false),
            ("Lt", &["x"][..], false),
            ("Lt", &["3"][..], true),
            // values are label values too, so a negative number is rejected
            ("Lt", &["-3"][..], false),
            ("Foo", &["a"][..], false),
        ] {
            assert_eq!(term(vec![nreq("k", op, vals)], vec![]).is_valid(), ok, "{op} {vals:?}");
        }
        // matchFields: In/NotIn with exactly one value; other keys compare against "".
        assert!(!term(vec![], vec![nreq("metadata.name", "NotIn", &["a", "b"])]).is_valid());
        assert!(!term(vec![], vec![nreq("metadata.name", "Exists", &[])]).is_valid());
        let other_key = term(vec![], vec![nreq("metadata.uid", "NotIn", &["x"])]);
        assert!(other_key.is_valid() && other_key.matches(&labels(&[]), "n"));
        // a node without a name is not checked against matchFields
        assert!(term(vec![], vec![nreq("metadata.name", "In", &["n1"])]).matches(&labels(&[]), ""));
    }

    #[test]
    fn label_selector_validates_keys_and_values() {
        let bad_value = LabelSelector {
            match_labels: Some([("app".to_string(), "not valid!".to_string())].into()),
            match_expressions: None,
        };
        assert!(Selector::from_label_selector(Some(&bad_value)).is_nothing());
        let gt = LabelSelector {
            match_labels: None,
            match_expressions: Some(vec![LabelSelectorRequirement {
                key: "n".into(),
                operator: "Gt".into(),
                values: Some(vec!["1".into()]),
            }]),
        };
        assert!(Selector::from_label_selector(Some(&gt)).is_nothing());
    }
}
