//! The nodes' labels by key, as columns: for each label key, every node's value of it as a
//! small id (or none), and the distinct values. A requirement on one key then reads one `u32`
//! per node instead of searching the node's label map and comparing strings: what makes node
//! affinity and topology lookups cheap once a cluster's per-node data no longer fits the cache.
//!
//! Built once per set of nodes; nodes are identified by their position in that set. Whether a
//! node matches a requirement depends only on its value of the key (or its absence), so a
//! requirement compiled here ([`LabelTest`]) answers exactly as [`Requirement::matches`] on
//! the node's labels; a node selector compiled here ([`NodeMatcher`]) answers for every node
//! as the selector on the node's labels.

use std::collections::HashMap;

use super::IndexedNode;

use crate::model::Pod;
use crate::model::selector::{Labels, NodeSelectorMatcher, NodeTerm, Op, Requirement, Selector};

/// A node without the key.
const ABSENT: u32 = u32::MAX;

/// Every node's value of one label key.
#[derive(Debug, Default)]
pub(crate) struct Column {
    /// Per node (by position), the id of its value, or [`ABSENT`].
    ids: Vec<u32>,
    /// The distinct values, by id (in order of first appearance).
    values: Vec<Box<str>>,
    by_value: HashMap<Box<str>, u32>,
}

impl Column {
    /// The id of the node's value, None when the node lacks the key.
    #[inline]
    pub(crate) fn id(&self, node: usize) -> Option<u32> {
        self.ids.get(node).copied().filter(|&id| id != ABSENT)
    }

    /// The value of an id.
    pub(crate) fn value(&self, id: u32) -> &str {
        &self.values[id as usize]
    }

    /// The id of a value, when some node has it.
    pub(crate) fn id_of(&self, value: &str) -> Option<u32> {
        self.by_value.get(value).copied()
    }

    /// How many distinct values.
    pub(crate) fn len_values(&self) -> usize {
        self.values.len()
    }
}

/// The columns of every label key some node has.
#[derive(Debug, Default)]
pub(crate) struct LabelColumns {
    columns: Vec<Column>,
    /// The key of each column.
    keys: Vec<Box<str>>,
    by_key: HashMap<Box<str>, u32>,
}

impl LabelColumns {
    /// The columns of these nodes' labels, the nodes numbered in the order given.
    pub(crate) fn build<'a>(nodes: impl ExactSizeIterator<Item = &'a Labels>) -> Self {
        let n = nodes.len();
        let mut columns: Vec<Column> = Vec::new();
        let mut keys: Vec<Box<str>> = Vec::new();
        let mut by_key: HashMap<Box<str>, u32> = HashMap::new();
        for (i, labels) in nodes.enumerate() {
            for (k, v) in labels {
                let c = match by_key.get(k.as_str()) {
                    Some(&c) => c as usize,
                    None => {
                        by_key.insert(k.as_str().into(), columns.len() as u32);
                        keys.push(k.as_str().into());
                        columns.push(Column {
                            ids: vec![ABSENT; n],
                            ..Column::default()
                        });
                        columns.len() - 1
                    }
                };
                let col = &mut columns[c];
                let id = match col.by_value.get(v.as_str()) {
                    Some(&id) => id,
                    None => {
                        let id = col.values.len() as u32;
                        col.values.push(v.as_str().into());
                        col.by_value.insert(v.as_str().into(), id);
                        id
                    }
                };
                col.ids[i] = id;
            }
        }
        LabelColumns { columns, keys, by_key }
    }

    /// A key as the index reads it.
    pub(crate) fn key(&self, name: &str) -> Key {
        Key {
            name: name.to_string(),
            column: self.column_index(name),
        }
    }

    /// The key of a column.
    pub(crate) fn key_name(&self, c: u32) -> &str {
        &self.keys[c as usize]
    }

    /// The column of a key, when some node has it.
    #[cfg(test)]
    pub(crate) fn column(&self, key: &str) -> Option<&Column> {
        self.by_key.get(key).map(|&c| &self.columns[c as usize])
    }

    fn column_index(&self, key: &str) -> Option<u32> {
        self.by_key.get(key).copied()
    }

    /// The column of a key with its index (for [`LabelColumns::column_by_index`]).
    pub(crate) fn column_at(&self, key: &str) -> Option<(u32, &Column)> {
        let c = self.column_index(key)?;
        Some((c, self.column_by_index(c)))
    }

    /// The column at an index from [`LabelColumns::column_at`].
    #[inline]
    pub(crate) fn column_by_index(&self, c: u32) -> &Column {
        &self.columns[c as usize]
    }
}

/// Which present values a [`LabelTest`] accepts.
#[derive(Clone, Debug)]
enum Accept {
    /// These ids.
    In(Vec<u32>),
    /// Every id but these.
    NotIn(Vec<u32>),
    /// By id.
    Table(Box<[bool]>),
}

/// A label requirement compiled against [`LabelColumns`].
#[derive(Clone, Debug)]
pub(crate) struct LabelTest {
    column: Option<u32>,
    /// The answer for a node without the key.
    absent: bool,
    accept: Accept,
}

impl LabelTest {
    /// Compiles `r`.
    pub(crate) fn new(cols: &LabelColumns, r: &Requirement) -> Self {
        let column = cols.column_index(&r.key);
        let absent = r.matches_value(None);
        let ids = |c: u32| -> Vec<u32> {
            r.values
                .iter()
                .filter_map(|v| cols.column_by_index(c).id_of(v))
                .collect()
        };
        let accept = match (column, r.op) {
            (None, _) => Accept::In(Vec::new()),
            (Some(c), Op::In) => Accept::In(ids(c)),
            (Some(c), Op::NotIn) => Accept::NotIn(ids(c)),
            (Some(_), Op::Exists) => Accept::NotIn(Vec::new()),
            (Some(_), Op::DoesNotExist) => Accept::In(Vec::new()),
            (Some(c), Op::Gt | Op::Lt) => {
                let col = cols.column_by_index(c);
                Accept::Table(
                    (0..col.len_values() as u32)
                        .map(|id| r.matches_value(Some(col.value(id))))
                        .collect(),
                )
            }
        };
        LabelTest { column, absent, accept }
    }

    /// `r.matches` on the labels of the node at `node`.
    #[inline]
    pub(crate) fn matches(&self, cols: &LabelColumns, node: usize) -> bool {
        let Some(c) = self.column else { return self.absent };
        let Some(id) = cols.column_by_index(c).id(node) else {
            return self.absent;
        };
        match &self.accept {
            Accept::In(ids) => ids.contains(&id),
            Accept::NotIn(ids) => !ids.contains(&id),
            Accept::Table(t) => t[id as usize],
        }
    }
}

/// A [`NodeTerm`] compiled against [`LabelColumns`]: the same answer for the node at a
/// position of the columns as the term on that node's labels.
#[derive(Clone, Debug)]
pub(crate) struct CompiledNodeTerm {
    never: bool,
    tests: Vec<LabelTest>,
    term: NodeTerm,
}

impl CompiledNodeTerm {
    /// [`NodeTerm::matches`] for the node at `node` of the columns, named `node_name`.
    pub(crate) fn matches(&self, cols: &LabelColumns, node: usize, node_name: &str) -> bool {
        !self.never && self.tests.iter().all(|t| t.matches(cols, node)) && self.term.matches_fields(node_name)
    }
}

/// A label [`Selector`] compiled against [`LabelColumns`].
#[derive(Clone, Debug)]
pub(crate) enum CompiledLabels {
    /// Matches nothing.
    Nothing,
    /// Every test must hold.
    All(Vec<LabelTest>),
}

impl CompiledLabels {
    /// [`Selector::matches`] on the labels of the node at `node` of the columns.
    pub(crate) fn matches(&self, cols: &LabelColumns, node: usize) -> bool {
        match self {
            CompiledLabels::Nothing => false,
            CompiledLabels::All(t) => t.iter().all(|t| t.matches(cols, node)),
        }
    }
}

/// A label selector compiled against the nodes' label columns.
pub(crate) fn compile_selector(cols: &LabelColumns, s: &Selector) -> CompiledLabels {
    match s {
        Selector::Nothing => CompiledLabels::Nothing,
        Selector::Requirements(r) => CompiledLabels::All(r.iter().map(|r| LabelTest::new(cols, r)).collect()),
    }
}

/// A node selector's terms compiled against the nodes' label columns (any must match).
pub(crate) fn compile_node_selector(cols: &LabelColumns, n: &NodeSelectorMatcher) -> Vec<CompiledNodeTerm> {
    n.terms
        .iter()
        .map(|t| CompiledNodeTerm {
            never: t.never(),
            tests: t.requirements().iter().map(|r| LabelTest::new(cols, r)).collect(),
            term: t.clone(),
        })
        .collect()
}

/// A label key as the index reads it: its column, when some node has it.
#[derive(Clone, Debug)]
pub(crate) struct Key {
    name: String,
    column: Option<u32>,
}

impl Key {
    /// The key's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Its column (None: no node of the snapshot has the key).
    pub(crate) fn column(&self) -> Option<u32> {
        self.column
    }
}

/// A pod's required node selector and required node affinity terms (`GetRequiredNodeAffinity`)
/// compiled against the snapshot's label columns: the same answer for every node as the
/// selector and the terms on its labels.
#[derive(Clone, Debug)]
pub(crate) struct NodeMatcher {
    label_selector: Option<(Selector, CompiledLabels)>,
    node_selector: Option<(NodeSelectorMatcher, Vec<CompiledNodeTerm>)>,
}

impl NodeMatcher {
    /// The pod's `spec.nodeSelector` (when not empty) and its required node affinity terms
    /// (`GetRequiredNodeAffinity`), compiled.
    pub(crate) fn required(cols: &LabelColumns, pod: &Pod) -> Self {
        let spec = pod.spec();
        let label_selector = spec
            .node_selector
            .as_ref()
            .filter(|m| !m.is_empty())
            .map(Selector::from_map);
        let node_selector = spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref())
            .map(NodeSelectorMatcher::new);
        NodeMatcher {
            label_selector: label_selector.map(|s| {
                let c = compile_selector(cols, &s);
                (s, c)
            }),
            node_selector: node_selector.map(|n| {
                let c = compile_node_selector(cols, &n);
                (n, c)
            }),
        }
    }

    /// Whether a node with these labels and name matches (the plain answer, as on a node that
    /// is not the snapshot's).
    pub(crate) fn matches_labels(&self, labels: &Labels, name: &str) -> bool {
        self.label_selector.as_ref().is_none_or(|(s, _)| s.matches(labels))
            && self
                .node_selector
                .as_ref()
                .is_none_or(|(ns, _)| ns.matches(labels, name))
    }

    /// Whether the node matches both.
    pub(crate) fn matches(&self, node: IndexedNode<'_>) -> bool {
        let n = node.node();
        match node.position() {
            Some(i) => {
                let cols = node.labels;
                self.label_selector.as_ref().is_none_or(|(_, c)| c.matches(cols, i))
                    && self
                        .node_selector
                        .as_ref()
                        .is_none_or(|(_, terms)| terms.iter().any(|t| t.matches(cols, i, &n.name)))
            }
            None => self.matches_labels(&n.labels, &n.name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::selector::tests::labels;

    #[test]
    fn columns_give_each_node_its_value() {
        let nodes = [
            labels(&[("zone", "a"), ("rack", "r1")]),
            labels(&[("zone", "b")]),
            labels(&[("zone", "a"), ("gpu", "")]),
        ];
        let cols = LabelColumns::build(nodes.iter());
        let zone = cols.column("zone").unwrap();
        assert_eq!(zone.len_values(), 2);
        let values: Vec<Option<&str>> = (0..3).map(|i| zone.id(i).map(|id| zone.value(id))).collect();
        assert_eq!(values, vec![Some("a"), Some("b"), Some("a")]);
        assert_eq!(zone.id_of("b"), zone.id(1));
        assert_eq!(zone.id_of("c"), None);
        let rack = cols.column("rack").unwrap();
        assert_eq!((rack.id(0).is_some(), rack.id(1), rack.id(2)), (true, None, None));
        assert_eq!(
            cols.column("gpu")
                .unwrap()
                .id(2)
                .map(|id| cols.column("gpu").unwrap().value(id)),
            Some("")
        );
        assert!(cols.column("none").is_none());
    }

    /// Every operator, on keys present on some nodes, on none, and with values no node has:
    /// the compiled test answers as the requirement on each node's labels.
    #[test]
    fn a_compiled_requirement_answers_as_the_requirement() {
        let nodes = [
            labels(&[("zone", "a"), ("kernel", "0206"), ("pool", "x")]),
            labels(&[("zone", "b"), ("kernel", "12")]),
            labels(&[("zone", "c"), ("kernel", "not-a-number")]),
            labels(&[("other", "1")]),
        ];
        let cols = LabelColumns::build(nodes.iter());
        let selectors = [
            "zone in (a,b)",
            "zone in (z)",
            "zone notin (a)",
            "zone notin (q)",
            "zone",
            "!zone",
            "missing",
            "!missing",
            "missing in (a)",
            "missing notin (a)",
            "pool=x",
            "pool!=x",
        ];
        for s in selectors {
            let Selector::Requirements(reqs) = Selector::parse(s).unwrap() else {
                panic!()
            };
            for r in &reqs {
                let t = LabelTest::new(&cols, r);
                for (i, l) in nodes.iter().enumerate() {
                    assert_eq!(t.matches(&cols, i), r.matches(l), "{s} on node {i}");
                }
            }
        }
        for (op, v) in [(Op::Gt, "100"), (Op::Lt, "100"), (Op::Gt, "0")] {
            let r = Requirement {
                key: "kernel".into(),
                op,
                values: vec![v.into()],
            };
            let t = LabelTest::new(&cols, &r);
            let got: Vec<bool> = (0..nodes.len()).map(|i| t.matches(&cols, i)).collect();
            let want: Vec<bool> = nodes.iter().map(|l| r.matches(l)).collect();
            assert_eq!(got, want, "{op:?} {v}");
        }
        // Gt 100 holds on 0206 (206) only; Lt 100 on 12 only.
        let gt = LabelTest::new(
            &cols,
            &Requirement {
                key: "kernel".into(),
                op: Op::Gt,
                values: vec!["100".into()],
            },
        );
        assert_eq!(
            (0..4).map(|i| gt.matches(&cols, i)).collect::<Vec<_>>(),
            vec![true, false, false, false]
        );
    }

    /// A node label map from small alphabets (keys a–c, values that are numbers or words, some
    /// shared between nodes).
    fn node_labels() -> impl proptest::strategy::Strategy<Value = Labels> {
        proptest::strategy::Strategy::prop_map(
            proptest::collection::btree_map("[a-c]", "(0|7|12|x|y)", 0..4),
            |m: std::collections::BTreeMap<String, String>| Labels::from(m),
        )
    }

    /// A node selector requirement on those keys and one no node has, any operator, values
    /// from the same alphabet plus one no node has (malformed ones included).
    fn requirement() -> impl proptest::strategy::Strategy<Value = k8s_openapi::api::core::v1::NodeSelectorRequirement> {
        use proptest::prelude::*;
        let op = prop_oneof![
            Just("In"),
            Just("NotIn"),
            Just("Exists"),
            Just("DoesNotExist"),
            Just("Gt"),
            Just("Lt")
        ];
        ("[a-d]", op, proptest::collection::vec("(0|7|12|x|z)", 0..3)).prop_map(|(key, op, values)| {
            k8s_openapi::api::core::v1::NodeSelectorRequirement {
                key,
                operator: op.to_string(),
                values: Some(values),
            }
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, .. proptest::prelude::ProptestConfig::default() })]

        /// Any node selector (terms ORed, requirements ANDed, malformed ones included, a field
        /// requirement on the name) compiled against any nodes' label columns answers as the
        /// selector on each node's labels.
        #[test]
        fn a_compiled_node_selector_answers_as_the_selector_on_any_nodes(
            nodes in proptest::collection::vec(node_labels(), 1..6),
            terms in proptest::collection::vec((proptest::collection::vec(requirement(), 0..3), proptest::bool::ANY), 0..3),
        ) {
            use k8s_openapi::api::core::v1::{NodeSelector, NodeSelectorRequirement, NodeSelectorTerm};
            use crate::model::selector::NodeSelectorMatcher;
            let ns = NodeSelector {
                node_selector_terms: terms
                    .into_iter()
                    .map(|(exprs, by_name)| NodeSelectorTerm {
                        match_expressions: Some(exprs),
                        match_fields: by_name.then(|| vec![NodeSelectorRequirement {
                            key: "metadata.name".into(),
                            operator: "In".into(),
                            values: Some(vec!["n1".into()]),
                        }]),
                    })
                    .collect(),
            };
            let m = NodeSelectorMatcher::new(&ns);
            let cols = LabelColumns::build(nodes.iter());
            let compiled = compile_node_selector(&cols, &m);
            for (i, l) in nodes.iter().enumerate() {
                let name = format!("n{i}");
                let want = m.matches(l, &name);
                let got = compiled.iter().any(|t| t.matches(&cols, i, &name));
                proptest::prop_assert_eq!(got, want, "node {} {:?}", i, l);
            }
        }
    }
}
