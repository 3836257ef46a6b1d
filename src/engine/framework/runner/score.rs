//! PreScore, Score (raw, normalized, weighted), the host selection and PostFilter.

use super::*;
use crate::engine::framework::memo::{PodShape, ScoreMemo};

/// PreScore over the feasible nodes: a Skip skips the plugin's Score. False when a plugin
/// errs (the message is set).
pub(super) fn run_pre_score(
    cx: &Ctx<'_>,
    fw: &Framework,
    state: &mut CycleState,
    pod: &PodInfo,
    nodes: &[&NodeInfo],
    ex: &mut Explanation,
) -> bool {
    for pl in &fw.pre_score {
        let s = pl.pre_score(cx, state, pod, nodes);
        ex.pre_score
            .push(PluginStatus::new(pl.name(), &s).with_facts(pl.pre_score_facts(cx, state, pod)));
        if s.is_skip() {
            state.skip_score.insert(pl.name());
        } else if !s.is_success() {
            ex.message = Some(format!("running PreScore plugin {:?}: {}", pl.name(), s.message()));
            return false;
        }
    }
    true
}

/// Score and NormalizeScore over the feasible nodes, weighted (`RunScorePlugins`): one trace
/// per node, its plugins sorted by name. None when a plugin errs (the message is set).
///
/// `at`: each node's position among the snapshot's nodes. Decisions only, the node-local
/// plugins' raw scores kept from the last cycle of a pod of the same shape are read on the
/// nodes no bind changed since, and the scores made are kept ([`crate::engine::framework::memo`]).
pub(super) fn run_score(
    cx: &Ctx<'_>,
    fw: &Framework,
    state: &CycleState,
    pod: &PodInfo,
    nodes: &[&NodeInfo],
    at: &[usize],
    ex: &mut Explanation,
) -> Option<Vec<NodeScoreTrace>> {
    // one list of node names for every plugin: each plugin overwrites the scores
    let mut scores: Vec<NodeScore> = nodes
        .iter()
        .map(|n| NodeScore {
            name: n.name().into(),
            score: 0,
        })
        .collect();
    // one column per plugin run: its weight, raw and normalized scores by node
    let mut columns: Vec<(&'static str, i64, Vec<i64>, Vec<i64>)> = Vec::with_capacity(fw.score.len());
    let skipped: Vec<bool> = fw
        .score
        .iter()
        .map(|(pl, _)| state.skip_score.contains(pl.name()))
        .collect();
    // each plugin run with its position among the profile's Score plugins
    let (positions, plugins): (Vec<usize>, Vec<_>) = fw.score.iter().enumerate().filter(|(p, _)| !skipped[*p]).unzip();
    let local: Vec<bool> = plugins.iter().map(|(pl, _)| pl.node_local()).collect();
    let memo = (cx.snapshot.decisions_only && local.iter().any(|l| *l)).then(|| {
        // which node-local plugins PreScore skipped (from the pod alone)
        let skipped: Vec<bool> = fw
            .score
            .iter()
            .zip(&skipped)
            .map(|((pl, _), s)| *s && pl.node_local())
            .collect();
        ScoreMemo::take(
            &cx.snapshot.score_memo,
            PodShape::of(&fw.name, std::ptr::from_ref(fw) as usize, pod, &[]),
            skipped,
            fw.score.len(),
            cx.snapshot.nodes.len(),
        )
    });
    let generations = &cx.snapshot.generations;
    // Every plugin's Score of a node reads only the cycle state, so the nodes are cut into
    // pieces scored in parallel, each piece plugin by plugin into a column per plugin; the
    // plugins' errors and NormalizeScore then go plugin by plugin, as upstream's do.
    // The first error upstream reports is the lowest plugin with a failing node, then its
    // first such node: a piece stops at its first failing plugin (no lower one failed in it),
    // at that plugin's first failing node, and the pieces' answers are compared in order.
    // The plugins that score nothing in this cycle give 0 without being called per node.
    let zero: Vec<bool> = plugins
        .iter()
        .map(|(pl, _)| pl.scores_zero_everywhere(state, pod))
        .collect();
    let pieces: Vec<ScoredPiece> = parallel::map_pieces(cx.snapshot.serial, nodes, |start, piece: &[&NodeInfo]| {
        let mut out = ScoredPiece::default();
        for (p, (pl, _)) in plugins.iter().enumerate() {
            let mut column = vec![0i64; piece.len()];
            let scored = match memo.as_ref().filter(|_| local[p] && !zero[p]) {
                Some(m) => {
                    // the kept scores, and the nodes without one scored as a piece of their own
                    let mut missing: Vec<usize> = Vec::new();
                    for (k, slot) in column.iter_mut().enumerate() {
                        let i = at[start + k];
                        match m.get(positions[p], i, generations.get(i)) {
                            Some(v) => *slot = v,
                            None => missing.push(k),
                        }
                    }
                    if missing.is_empty() {
                        Ok(())
                    } else {
                        let sub: Vec<&NodeInfo> = missing.iter().map(|&k| piece[k]).collect();
                        let mut got = vec![0i64; sub.len()];
                        let r = pl.score_nodes(cx, state, pod, &sub, &mut got);
                        if r.is_ok() {
                            for (&k, v) in missing.iter().zip(got) {
                                column[k] = v;
                                out.made.push((positions[p], at[start + k], v));
                            }
                        }
                        r
                    }
                }
                None if !zero[p] => pl.score_nodes(cx, state, pod, piece, &mut column),
                None => Ok(()),
            };
            if let Err(s) = scored {
                out.failed = Some((p, s));
                break;
            }
            out.columns.push(column);
        }
        out
    });
    if let Some(mut m) = memo {
        for piece in &pieces {
            for &(p, i, v) in &piece.made {
                if let Some(slot) = m.columns.get_mut(p).and_then(|c| c.get_mut(i)) {
                    *slot = Some((generations.get(i), v));
                }
            }
        }
        cx.snapshot.score_memo.keep(m);
    }
    // the lowest failing plugin; among pieces where it failed, the first piece
    let mut first_error: Option<(usize, &Status)> = None;
    for piece in &pieces {
        if let Some((p, s)) = &piece.failed
            && first_error.is_none_or(|(q, _)| *p < q)
        {
            first_error = Some((*p, s));
        }
    }
    if let Some((p, s)) = first_error {
        ex.message = Some(format!(
            "running Score plugin {:?}: {}",
            plugins[p].0.name(),
            s.message()
        ));
        return None;
    }
    // each plugin's column over every node, the pieces' parts joined (one piece: moved)
    let raw_columns: Vec<Vec<i64>> = if pieces.len() == 1 {
        pieces.into_iter().flat_map(|p| p.columns).collect()
    } else {
        (0..plugins.len())
            .map(|p| {
                pieces
                    .iter()
                    .flat_map(|piece| piece.columns[p].iter().copied())
                    .collect()
            })
            .collect()
    };
    // decisions only: no raw column is kept (the totals need the normalized ones alone)
    let lean = cx.snapshot.decisions_only;
    for ((pl, weight), column) in plugins.iter().zip(raw_columns) {
        if !pl.has_normalize() {
            // the raw scores are the normalized ones
            let raw = if lean { Vec::new() } else { column.clone() };
            columns.push((pl.name(), *weight, raw, column));
            continue;
        }
        for (slot, v) in scores.iter_mut().zip(&column) {
            slot.score = *v;
        }
        let raw = if lean { Vec::new() } else { column };
        let s = pl.normalize(cx, state, pod, &mut scores);
        if !s.is_success() {
            ex.message = Some(format!(
                "running Normalize on Score plugin {:?}: {}",
                pl.name(),
                s.message()
            ));
            return None;
        }
        let normalized = scores.iter().map(|s| s.score).collect();
        columns.push((pl.name(), *weight, raw, normalized));
    }
    // each node's plugins sorted by name: the columns once, not every node's list
    columns.sort_by(|a, b| a.0.cmp(b.0));
    let total = |i: usize| {
        columns.iter().fold(0i64, |t, (_, weight, _, normalized)| {
            t.saturating_add(normalized[i].saturating_mul(*weight))
        })
    };
    if cx.snapshot.decisions_only {
        // The decision only: the nodes with the top total (summed in the same order), and
        // the heap's pick among them from every node's total, as select_host would make it.
        let totals: Vec<i64> = (0..nodes.len()).map(total).collect();
        let best = totals.iter().copied().max().unwrap_or(0);
        let top: Vec<NodeScoreTrace> = totals
            .iter()
            .enumerate()
            .filter(|(_, t)| **t == best)
            .map(|(i, t)| NodeScoreTrace {
                node: nodes[i].name().to_string(),
                total: *t,
                plugins: Vec::new(),
            })
            .collect();
        if top.len() > 1 && fw.features.has(crate::engine::release::Change::HostSelectionHeap) {
            ex.host_pick = heap_root(&totals).map(|i| nodes[i].name().to_string());
        }
        return Some(top);
    }
    Some(
        scores
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                let plugins: Vec<PluginScore> = columns
                    .iter()
                    .map(|(plugin, weight, raw, normalized)| PluginScore {
                        plugin,
                        raw: raw[i],
                        normalized: normalized[i],
                        weight: *weight,
                        weighted: normalized[i].saturating_mul(*weight),
                    })
                    .collect();
                NodeScoreTrace {
                    node: s.name.into_owned(),
                    total: plugins.iter().fold(0i64, |t, p| t.saturating_add(p.weighted)),
                    plugins,
                }
            })
            .collect(),
    )
}

/// A piece of the nodes scored: a column per plugin in the profile's order, up to the first
/// plugin whose Score failed on a node of the piece, with that plugin and the status of its
/// first failing node in the piece.
#[derive(Default)]
pub(super) struct ScoredPiece {
    columns: Vec<Vec<i64>>,
    failed: Option<(usize, Box<Status>)>,
    /// The raw scores made for the memo: (plugin's position among the profile's, node's
    /// position among the snapshot's, score).
    made: Vec<(usize, usize, i64)>,
}

/// The node selection: the nominated node when it passed, else every node with the top
/// total (ties are reported, not sampled).
pub(super) fn select_host(fw: &Framework, ex: &mut Explanation, decided: bool) {
    if let Some((nn, true)) = &ex.nominated_node {
        ex.selected = vec![nn.clone()];
        ex.host_pick = None;
    } else {
        let best = ex.score.iter().map(|s| s.total).max().unwrap_or(0);
        ex.selected = ex
            .score
            .iter()
            .filter(|s| s.total == best)
            .map(|s| s.node.clone())
            .collect();
        // decisions only: Score kept the top nodes alone and made the heap's pick itself
        if ex.selected.len() > 1 && fw.features.has(crate::engine::release::Change::HostSelectionHeap) && !decided {
            let totals: Vec<i64> = ex.score.iter().map(|s| s.total).collect();
            ex.host_pick = heap_root(&totals).map(|i| ex.score[i].node.clone());
        }
    }
}

/// PostFilter (`RunPostFilterPlugins`, preemption) after the pod failed on every node, and
/// the FitError message of the PodScheduled condition with PostFilter's part.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_post_filter(
    cx: &Ctx<'_>,
    fw: &Framework,
    state: &CycleState,
    pi: &Arc<PodInfo>,
    statuses: &BTreeMap<String, Status>,
    absent: Option<&Status>,
    prefilter_msg: Option<&str>,
    ex: &mut Explanation,
) {
    let mut post_msg = String::new();
    let mut rejector = String::new();
    let mut reasons: Vec<String> = Vec::new();
    for pl in &fw.post_filter {
        let (mut trace, s) = pl.post_filter(cx, fw, state, pi, statuses);
        trace.plugin = pl.name().to_string();
        trace.code = Some(s.code);
        trace.message = s.message();
        let done = s.is_success() || s.code == Code::UnschedulableAndUnresolvable || !s.is_rejected();
        ex.post_filter = Some(trace);
        if done {
            post_msg = s.message();
            break;
        }
        reasons.extend(s.reasons.iter().map(|r| r.to_string()));
        if rejector.is_empty() {
            rejector = pl.name().to_string();
        }
        post_msg = reasons.join(", ");
    }
    if fw.post_filter.is_empty() {
        ex.notes
            .push("no PostFilter plugin in this profile: no preemption is attempted".into());
    }
    ex.message = Some(fit_error_message(
        ex.node_count,
        prefilter_msg,
        statuses,
        absent,
        &post_msg,
    ));
}
