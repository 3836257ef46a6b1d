//! The Filter phase of a cycle: every node's record (with nominated pods), the first error
//! that stops it, and the diagnosis upstream's message counts.

use super::*;
use crate::engine::framework::memo::{FilterMemo, LocalVerdict, PodShape};

/// One node's Filter record, the error that stops Filter, or nothing (a node outside the
/// assumed placement). Almost every node is a record, so records are held inline: boxing
/// them would allocate once per node.
#[derive(Default)]
#[allow(clippy::large_enum_variant)]
pub(super) enum Evaluated<R = NodeFilter> {
    #[default]
    Skipped,
    /// Passed, with no record kept (decisions only).
    Feasible,
    Record(R),
    Error(String),
}

impl Evaluated {
    /// The same with its record boxed: a few words per node, for a Filter that keeps
    /// decisions only (whose records are the few rejected nodes').
    fn boxed(self) -> Evaluated<Box<NodeFilter>> {
        match self {
            Evaluated::Skipped => Evaluated::Skipped,
            Evaluated::Feasible => Evaluated::Feasible,
            Evaluated::Record(r) => Evaluated::Record(Box::new(r)),
            Evaluated::Error(m) => Evaluated::Error(m),
        }
    }
}

/// A Filter record held inline or boxed.
pub(super) trait Record {
    fn get(&self) -> &NodeFilter;
    fn into_record(self) -> NodeFilter;
}

impl Record for NodeFilter {
    fn get(&self) -> &NodeFilter {
        self
    }
    fn into_record(self) -> NodeFilter {
        self
    }
}

impl Record for Box<NodeFilter> {
    fn get(&self) -> &NodeFilter {
        self
    }
    fn into_record(self) -> NodeFilter {
        *self
    }
}

/// What Filter leaves for the points after it.
pub(super) struct Filtered {
    /// Indexes (in the snapshot's node order) of the nodes that passed.
    pub(super) feasible: Vec<usize>,
    /// Where this Filter's node records start in `ex.filter`.
    pub(super) first: usize,
}

impl Filtered {
    /// The status of every node evaluated that failed (upstream's NodeToStatus map, for
    /// PostFilter): read back from the node records, only when PostFilter runs.
    pub(super) fn statuses(&self, ex: &Explanation) -> BTreeMap<String, Status> {
        ex.filter[self.first..]
            .iter()
            .filter(|f| !f.excluded_by_prefilter)
            .filter_map(|f| {
                let fail = f.failure.as_ref()?;
                Some((
                    f.node.to_string(),
                    Status {
                        code: fail.code,
                        reasons: fail.reasons.clone(),
                        plugin: fail.plugin,
                    },
                ))
            })
            .collect()
    }
}

/// Filter over every node in name order (`findNodesThatFitPod`), with the verdict, the
/// diagnostic pass and the rejecting plugin's details in the trace. Upstream filters the pod's
/// nominated node before it narrows the nodes to PreFilter's result (`evaluateNominatedNode`),
/// so that node is evaluated and keeps its status even when the result leaves it out. None
/// when a plugin errs (the message is set).
pub(super) fn run_filter(
    cx: &Ctx<'_>,
    fw: &Framework,
    state: &CycleState,
    pod: &PodInfo,
    prefilter_nodes: Option<&BTreeSet<String>>,
    absent: Option<&Status>,
    ex: &mut Explanation,
) -> Option<Filtered> {
    let out = Filtered {
        feasible: Vec::new(),
        first: ex.filter.len(),
    };
    // the filter plugins PreFilter skipped, by position: looked up once, not per node
    let skip: Vec<bool> = fw
        .filter
        .iter()
        .map(|pl| state.skip_filter.contains(pl.name()))
        .collect();
    // Decisions only: the node-local plugins' verdicts kept from the last cycle of a pod of
    // the same shape, on the nodes no bind changed since (`super::super::memo`).
    let local: Vec<bool> = fw.filter.iter().map(|pl| pl.node_local()).collect();
    let memo = (cx.snapshot.decisions_only && local.iter().any(|l| *l)).then(|| {
        // which node-local plugins PreFilter skipped (from the pod alone)
        let skipped: Vec<bool> = skip.iter().zip(&local).map(|(s, l)| *s && *l).collect();
        FilterMemo::take(
            &cx.snapshot.filter_memo,
            PodShape::of(&fw.name, std::ptr::from_ref(fw) as usize, pod, &skipped),
            cx.snapshot.nodes.len(),
        )
    });
    // Every node's verdict is its own (the plugins read the cycle state, never write it), so
    // the nodes are evaluated in parallel and their records taken back in node order.
    let eval = |i: usize, n: &NodeInfo| -> (Evaluated, Option<LocalVerdict>) {
        let name = n.name();
        if !cx.snapshot.in_placement(name) {
            return (Evaluated::Skipped, None);
        }
        let mut made = None;
        let is_nominated = pod.pod.nominated_node_name() == Some(name);
        if let Some(set) = prefilter_nodes
            && !set.contains(name)
            && !is_nominated
        {
            return (
                Evaluated::Record(NodeFilter {
                    node: NodeName::of(&n.node),
                    feasible: false,
                    failure: absent.map(|a| FilterFailure {
                        plugin: "",
                        code: a.code,
                        reasons: a.reasons.clone(),
                    }),
                    excluded_by_prefilter: true,
                    rejected_by_nominated_pods: Vec::new(),
                    all_failures: Vec::new(),
                    detail: Lines::default(),
                    details: Vec::new(),
                }),
                None,
            );
        }
        // Without nominated pods on the node, one walk gives both the verdict and the
        // diagnostic pass; with them the verdict counts them and the diagnostic pass does not.
        // Decisions only: the verdict, nothing else.
        let no_nominated = nominated_on(cx, pod, n).is_empty();
        let (s, by_nominated, all_failures) = if let Some(m) = memo.as_ref().filter(|_| no_nominated) {
            let kept = m.get(i, cx.snapshot.generations.get(i));
            let (s, verdict) = fw.run_filters_kept(cx, state, pod, n, &skip, &local, kept);
            made = verdict;
            (s, Vec::new(), Vec::new())
        } else if cx.snapshot.decisions_only && no_nominated {
            (
                fw.run_filters_skipping(cx, state, pod, n, &skip),
                Vec::new(),
                Vec::new(),
            )
        } else if cx.snapshot.decisions_only {
            let (s, by_nominated) = fw.run_filters_with_nominated(cx, state, pod, n);
            (s, by_nominated, Vec::new())
        } else if no_nominated {
            let (s, all) = fw.run_filters_all(cx, state, pod, n, &skip);
            (s, Vec::new(), all)
        } else {
            let (s, by_nominated) = fw.run_filters_with_nominated(cx, state, pod, n);
            (s, by_nominated, fw.all_filter_failures(cx, state, pod, n, &skip))
        };
        if s.code == Code::Error {
            return (Evaluated::Error(s.message()), made);
        }
        let ok = s.is_success();
        if ok && cx.snapshot.decisions_only {
            // a decision keeps no record of a node that passed: its index is enough
            return (Evaluated::Feasible, made);
        }
        let details = fw.filter_details(cx, state, pod, n, &all_failures);
        let detail = if ok || !by_nominated.is_empty() || cx.snapshot.decisions_only {
            Lines::default()
        } else {
            fw.failure_detail(cx, state, pod, n, s.plugin)
        };
        let failure = (!ok).then_some(FilterFailure {
            plugin: s.plugin,
            code: s.code,
            reasons: s.reasons,
        });
        (
            Evaluated::Record(NodeFilter {
                node: NodeName::of(&n.node),
                feasible: ok,
                failure,
                excluded_by_prefilter: false,
                detail,
                rejected_by_nominated_pods: by_nominated,
                all_failures,
                details,
            }),
            made,
        )
    };
    let nodes = &cx.snapshot.nodes;
    if cx.snapshot.decisions_only {
        // Decisions only: a slot of a few words per node (the few rejected nodes' records
        // boxed) instead of a whole record per node; the verdicts made are kept for the next
        // cycle.
        let pieces = parallel::map_pieces(cx.snapshot.serial, nodes, |start, piece| {
            piece
                .iter()
                .enumerate()
                .map(|(k, n)| {
                    let (e, made) = eval(start + k, n);
                    (e.boxed(), made)
                })
                .collect::<Vec<_>>()
        });
        let mut memo = memo;
        let mut slots = Vec::with_capacity(nodes.len());
        for (i, (e, made)) in pieces.into_iter().flatten().enumerate() {
            if let (Some(slot), Some(v)) = (memo.as_mut().and_then(|m| m.verdicts.get_mut(i)), made) {
                *slot = Some((cx.snapshot.generations.get(i), v));
            }
            slots.push(e);
        }
        if let Some(m) = memo {
            cx.snapshot.filter_memo.keep(m);
        }
        finish_filter(cx, pod, prefilter_nodes, slots, out, ex)
    } else {
        // no verdict kept: the node's position is not read
        let slots = parallel::map(cx.snapshot.serial, nodes, |n| eval(usize::MAX, n).0);
        finish_filter(cx, pod, prefilter_nodes, slots, out, ex)
    }
}

/// Filter's bookkeeping over the nodes' slots (in node order): the feasible nodes, the
/// nominated node's verdict, the records into the trace, the first error.
pub(super) fn finish_filter<R: Record>(
    cx: &Ctx<'_>,
    pod: &PodInfo,
    prefilter_nodes: Option<&BTreeSet<String>>,
    mut evaluated: Vec<Evaluated<R>>,
    mut out: Filtered,
    ex: &mut Explanation,
) -> Option<Filtered> {
    let mut nominated_ok = false;
    // the first error stops Filter: the nodes before it keep their records
    let stop = evaluated.iter().position(|e| matches!(e, Evaluated::Error(_)));
    let nominated = pod.pod.nominated_node_name();
    for (i, e) in evaluated.iter().enumerate().take(stop.unwrap_or(usize::MAX)) {
        let (rec, feasible) = match e {
            Evaluated::Record(r) if !r.get().excluded_by_prefilter => (Some(r.get()), r.get().feasible),
            Evaluated::Feasible => (None, true),
            _ => continue,
        };
        if feasible {
            out.feasible.push(i);
        }
        // the node's name only for a pod with a nominated node (a node read per node otherwise)
        let Some(nn) = nominated else { continue };
        let node = rec.map_or_else(|| cx.snapshot.nodes[i].name(), |r| r.node.as_str());
        if nn == node {
            nominated_ok = feasible;
            if prefilter_nodes.is_some_and(|set| !set.contains(node)) {
                ex.notes.push(format!(
                    "the nominated node {node} is outside PreFilter's node set; upstream filters it first all the same"
                ));
            }
        }
    }
    let message = stop.and_then(|i| match std::mem::take(&mut evaluated[i]) {
        Evaluated::Error(m) => Some(m),
        _ => None,
    });
    evaluated.truncate(stop.unwrap_or(evaluated.len()));
    // the records in node order, in the list they were written to when Filter starts the trace
    let records = evaluated.into_iter().filter_map(|e| match e {
        Evaluated::Record(r) => Some(r.into_record()),
        _ => None,
    });
    if ex.filter.is_empty() {
        ex.filter = records.collect();
    } else {
        ex.filter.extend(records);
    }
    if let Some(m) = message {
        ex.message = Some(m);
        return None;
    }
    if let Some(nn) = pod.pod.nominated_node_name()
        && cx.snapshot.node(nn).is_some()
    {
        ex.nominated_node = Some((nn.to_string(), nominated_ok));
    }
    Some(out)
}

/// `RunFilterPlugins` with kept node-local verdicts ([`crate::engine::framework::memo`]).
impl Framework {
    /// `RunFilterPlugins` with the node-local plugins' verdict `kept` when there is one (they
    /// are then not run), else run; the status and the node-local verdict made when none was
    /// kept (None when a plugin erred or nothing was made).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_filters_kept(
        &self,
        cx: &Ctx<'_>,
        state: &crate::engine::framework::cycle_state::CycleState,
        pod: &PodInfo,
        node: &crate::engine::framework::node_info::NodeInfo,
        skip: &[bool],
        local: &[bool],
        kept: Option<&LocalVerdict>,
    ) -> (Status, Option<LocalVerdict>) {
        let stamp = |pl: &dyn crate::engine::framework::plugin::FilterPlugin, s: Status| {
            let s = if s.is_rejected() {
                s
            } else {
                Status::error(format!("running {:?} filter plugin: {}", pl.name(), s.message()))
            };
            s.with_plugin(pl.name())
        };
        match kept {
            Some(v) => {
                for (at, pl) in self.filter.iter().enumerate() {
                    if skip[at] {
                        continue;
                    }
                    if local[at] {
                        if let LocalVerdict::Reject(r, s) = v
                            && *r == at
                        {
                            return (s.clone(), None);
                        }
                        continue;
                    }
                    let s = pl.filter(cx, state, pod, node);
                    if !s.is_success() {
                        return (stamp(pl.as_ref(), s), None);
                    }
                }
                (Status::success(), None)
            }
            None => {
                // the walk, and the node-local plugins' verdict: those after the first
                // failing plugin are run too when it is not node-local, so the verdict is
                // whole
                let mut first: Option<Status> = None;
                for (at, pl) in self.filter.iter().enumerate() {
                    if skip[at] || (first.is_some() && !local[at]) {
                        continue;
                    }
                    let s = pl.filter(cx, state, pod, node);
                    if s.is_success() {
                        continue;
                    }
                    let s = stamp(pl.as_ref(), s);
                    if s.code == crate::engine::framework::status::Code::Error {
                        return (first.unwrap_or(s), None);
                    }
                    if local[at] {
                        let verdict = LocalVerdict::Reject(at, s.clone());
                        return (first.unwrap_or(s), Some(verdict));
                    }
                    first = Some(s);
                }
                (first.unwrap_or_else(Status::success), Some(LocalVerdict::Pass))
            }
        }
    }
}
