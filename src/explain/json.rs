//! The `explain -o json` contract, version 1: keys and sorting exactly as the spec says, with
//! kschedtui's extra keys (`allFailures`, `rejectedByNominatedPods`, `preScore`, `notes`, `topologySpread`, ...)
//! added where the contract allows.
//!
//! One optional top-level key is added by `explain` itself, since it reads the cluster rather
//! than the trace ([`CLUSTER_KEY`], built by `super::condition::cluster_json`): what the
//! cluster's own scheduler wrote about the pod, present only when the pod has a PodScheduled
//! condition or FailedScheduling events, or events could not be read:
//!
//! ```text
//! "cluster": {
//!   "podScheduled": {"status": "False", "reason": "Unschedulable", "message": "0/3 nodes ...",
//!                    "lastTransitionTime": "2026-11-29T08:20:00Z",
//!                    "agrees": true},                // compared with kschedtui's message
//!   "failedSchedulingEvents": [                      // newest first ([] when none)
//!     {"name": "web-1.1870a2b3c4d5e6f7", "count": 3, "firstTime": "...", "lastTime": "...",
//!      "reportingComponent": "default-scheduler", "type": "Warning", "message": "0/3 nodes ...",
//!      "agrees": false}                              // on the newest only, when compared
//!   ],
//!   "eventsUnreadable": "403 Forbidden: ...",        // only when events could not be read
//!   "agrees": false,                                 // every compared source agrees; absent
//!                                                    // when nothing was compared
//!   "notes": ["the cluster's scheduler wrote a different message (...)"]   // when any
//! }
//! ```
//!
//! A source is compared only while the pod is pending and kschedtui's verdict is one the
//! scheduler records: the condition when it says False with reason Unschedulable or
//! SchedulerError, the newest event against kschedtui's message cut as upstream cuts event
//! messages (1024 bytes).

use serde_json::{Map, Value, json};

use crate::engine::framework::trace::{
    BindingCycleTrace, CyclePluginStatus, Explanation, FilterDetail, FilterFailure, GangTrace, NodeFilter,
    NodeScoreTrace, SpreadCheck,
};

/// The optional top-level key with the cluster's own PodScheduled condition and
/// FailedScheduling events (see the module documentation).
pub const CLUSTER_KEY: &str = "cluster";

fn failure(f: &FilterFailure) -> Value {
    json!({"plugin": f.plugin, "code": f.code.as_str(), "reasons": f.reasons})
}

fn plugin_statuses(v: &[crate::engine::framework::trace::PluginStatus]) -> Value {
    Value::Array(
        v.iter()
            .map(|p| {
                let mut m = Map::new();
                m.insert("plugin".into(), json!(p.plugin));
                m.insert("code".into(), json!(p.code.as_str()));
                if !p.reasons.is_empty() {
                    m.insert("reasons".into(), json!(p.reasons));
                }
                Value::Object(m)
            })
            .collect(),
    )
}

fn cycle_statuses(v: &[CyclePluginStatus]) -> Value {
    statuses_with_timeouts(v, false)
}

/// The spec's `permit` key: every verdict with its timeout (0 unless Wait), as Permit returns
/// a status and a duration.
fn permit_statuses(v: &[CyclePluginStatus]) -> Value {
    statuses_with_timeouts(v, true)
}

fn statuses_with_timeouts(v: &[CyclePluginStatus], always_timeout: bool) -> Value {
    Value::Array(
        v.iter()
            .map(|p| {
                let mut m = Map::new();
                m.insert("plugin".into(), json!(p.plugin));
                m.insert("code".into(), json!(p.code.as_str()));
                if !p.reasons.is_empty() {
                    m.insert("reasons".into(), json!(p.reasons));
                }
                if let Some(t) = p.timeout_ms.or(always_timeout.then_some(0)) {
                    m.insert("timeoutMs".into(), json!(t));
                }
                if !p.notes.is_empty() {
                    m.insert("notes".into(), json!(p.notes));
                }
                Value::Object(m)
            })
            .collect(),
    )
}

/// The optional `bindingCycle` key: Reserve through PostBind on the selected node.
pub fn binding_cycle(b: &BindingCycleTrace) -> Value {
    let mut m = Map::new();
    m.insert("node".into(), json!(b.node));
    if !b.tied_with.is_empty() {
        m.insert("tiedWith".into(), json!(b.tied_with));
    }
    m.insert("reserve".into(), cycle_statuses(&b.reserve));
    m.insert("permit".into(), cycle_statuses(&b.permit));
    if let Some(w) = &b.wait_result {
        let mut wm = Map::new();
        wm.insert("plugin".into(), json!(w.plugin));
        wm.insert("code".into(), json!(w.code.as_str()));
        if !w.reasons.is_empty() {
            wm.insert("reasons".into(), json!(w.reasons));
        }
        m.insert("waitResult".into(), Value::Object(wm));
    }
    m.insert("preBind".into(), cycle_statuses(&b.pre_bind));
    m.insert("bind".into(), cycle_statuses(&b.bind));
    m.insert("postBind".into(), cycle_statuses(&b.post_bind));
    if !b.unreserve.is_empty() {
        m.insert("unreserve".into(), cycle_statuses(&b.unreserve));
    }
    m.insert("outcome".into(), json!(b.outcome.as_str()));
    if b.nominates {
        m.insert("setsNominatedNodeName".into(), json!(true));
    }
    if !b.writes.is_empty() {
        m.insert("writes".into(), json!(b.writes));
    }
    if !b.unplanned.is_empty() {
        m.insert("unplannedWrites".into(), json!(b.unplanned));
    }
    if let Some(p) = &b.stopped_at {
        m.insert("stoppedAt".into(), json!(p));
    }
    if let Some(msg) = &b.message {
        m.insert("message".into(), json!(msg));
    }
    if !b.after_wait.is_empty() {
        let aw: Vec<Value> = b
            .after_wait
            .iter()
            .map(|(p, pl)| json!({"point": p, "plugins": pl}))
            .collect();
        m.insert("afterWait".into(), Value::Array(aw));
    }
    Value::Object(m)
}

/// The optional `gang` key.
pub fn gang(g: &GangTrace) -> Value {
    let mut v = json!({
        "plugin": g.plugin,
        "group": g.group,
        "found": g.found,
        "minMember": g.min_member,
        "members": g.members,
        "assigned": g.assigned,
        "timeoutMs": g.timeout_ms,
        "waiting": g.waiting.iter().map(|w| json!({
            "pod": {"namespace": w.pod.namespace, "name": w.pod.name},
            "node": w.node,
            "waitedMs": w.waited_ms,
            "timeLeftMs": w.time_left_ms,
        })).collect::<Vec<_>>(),
        "unplaced": g.unplaced.iter().map(|k| json!({"namespace": k.namespace, "name": k.name})).collect::<Vec<_>>(),
    });
    if let (Some(pf), Value::Object(m)) = (&g.placement_feasible, &mut v) {
        let check = |c: &crate::engine::framework::trace::PlacementCheck| {
            let mut o = Map::new();
            o.insert("scheduled".into(), json!(c.scheduled));
            o.insert("remaining".into(), json!(c.remaining));
            o.insert("code".into(), json!(c.code.as_str()));
            if !c.reason.is_empty() {
                o.insert("reason".into(), json!(c.reason));
            }
            Value::Object(o)
        };
        let mut o = Map::new();
        o.insert("minCount".into(), json!(pf.min_count));
        o.insert("before".into(), check(&pf.before));
        if let Some(a) = &pf.after_this_pod {
            o.insert("afterThisPod".into(), check(a));
        }
        m.insert("placementFeasible".into(), Value::Object(o));
    }
    if let (Some(h), Value::Object(m)) = (&g.held_with, &mut v) {
        m.insert(
            "heldWith".into(),
            json!({"pod": {"namespace": h.pod.namespace, "name": h.pod.name}, "plugin": h.plugin, "reason": h.reason}),
        );
    }
    v
}

fn spread_check(c: &SpreadCheck) -> Value {
    json!({
        "topologyKey": c.topology_key,
        "whenUnsatisfiable": c.when_unsatisfiable,
        "maxSkew": c.max_skew,
        "minDomains": c.min_domains,
        "domains": c.domains,
        "domain": c.domain,
        "matchNum": c.match_num,
        "selfMatch": c.self_match,
        "globalMin": c.global_min,
        "globalMinDomain": c.global_min_domain,
        "skew": c.skew,
        "satisfied": c.satisfied,
    })
}

fn dra(d: &crate::engine::framework::trace::DraTrace) -> Value {
    json!({
        "claims": d.claims.iter().map(|c| {
            let mut m = Map::new();
            if !c.pod_claim.is_empty() {
                m.insert("podClaim".into(), json!(c.pod_claim));
            }
            if let Some(k) = &c.claim {
                m.insert("claim".into(), json!({"namespace": k.namespace, "name": k.name}));
            }
            m.insert("state".into(), json!(c.state));
            m.insert("reservedFor".into(), json!(c.reserved_for));
            m.insert("requests".into(), json!(c.requests));
            m.insert("devices".into(), json!(c.devices));
            Value::Object(m)
        }).collect::<Vec<_>>(),
        "nodes": d.nodes.iter().map(|n| json!({
            "node": n.node,
            "verdict": n.verdict,
            "allocation": n.allocation,
            "requests": n.requests.iter().map(|r| {
                let mut m = Map::new();
                m.insert("request".into(), json!(r.request));
                m.insert("wanted".into(), json!(r.wanted));
                m.insert("devices".into(), json!(r.devices));
                m.insert("classMatch".into(), json!(r.class_match));
                m.insert("selectorMatch".into(), json!(r.selector_match));
                m.insert("free".into(), json!(r.free));
                m.insert("usable".into(), json!(r.usable));
                if let Some(e) = &r.error {
                    m.insert("error".into(), json!(e));
                }
                if !r.near.is_empty() {
                    m.insert("near".into(), json!(r.near));
                }
                Value::Object(m)
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// The key of the per-node Filter verdicts.
const FILTER: &str = "filter";
/// The key of the per-node scores.
const SCORE: &str = "score";

/// A weight in millionths as a number.
fn micros(v: i64) -> Value {
    json!(v as f64 / 1e6)
}

/// The `topologySpread` key: each constraint's domains, then Score per node.
fn spread(t: &crate::engine::framework::trace::SpreadTrace) -> Value {
    let constraints: Vec<Value> = t
        .constraints
        .iter()
        .map(|c| {
            let mut m = Map::new();
            m.insert("whenUnsatisfiable".into(), json!(c.when_unsatisfiable));
            m.insert("topologyKey".into(), json!(c.topology_key));
            m.insert("maxSkew".into(), json!(c.max_skew));
            m.insert("minDomains".into(), json!(c.min_domains));
            m.insert("selfMatch".into(), json!(c.self_match));
            m.insert(
                "domains".into(),
                Value::Array(
                    c.domains
                        .iter()
                        .map(|(d, n)| json!({"domain": d, "matchingPods": n}))
                        .collect(),
                ),
            );
            if let Some(g) = c.global_min {
                m.insert("globalMin".into(), json!(g));
            }
            if let Some(w) = c.weight_micros {
                m.insert("weight".into(), micros(w));
            }
            Value::Object(m)
        })
        .collect();
    let scores: Vec<Value> = t
        .scores
        .iter()
        .map(|x| {
            json!({
                "node": x.node,
                "ignored": x.ignored,
                "counts": x.counts,
                "sum": micros(x.sum_micros),
                "raw": x.raw,
                "normalized": x.normalized,
            })
        })
        .collect();
    let mut o = Map::new();
    o.insert("constraints".into(), Value::Array(constraints));
    o.insert("scores".into(), Value::Array(scores));
    if let Some((min, max)) = t.normalize {
        o.insert("normalize".into(), json!({"min": min, "max": max}));
    }
    Value::Object(o)
}

/// The explanation as a JSON value.
pub fn to_value(ex: &Explanation) -> Value {
    let mut o = top_level(ex);
    // In their places: a map keeps a key's place when its value is replaced.
    o.insert(
        FILTER.into(),
        Value::Array(ex.filter.iter().map(filter_entry).collect()),
    );
    o.insert(SCORE.into(), Value::Array(ex.score.iter().map(score_entry).collect()));
    Value::Object(o)
}

/// The explanation's JSON as it is written: what [`to_value`] gives, with the per-node lists
/// made a node at a time while they are serialized (at thousands of nodes the tree of the
/// whole explanation is several times its text).
pub struct Document<'a> {
    ex: &'a Explanation,
    top: Map<String, Value>,
}

impl<'a> Document<'a> {
    /// The explanation's document.
    pub fn new(ex: &'a Explanation) -> Self {
        Document { ex, top: top_level(ex) }
    }

    /// Adds a top-level key after the others (the cluster's own word, a gang's cycle).
    pub fn insert(&mut self, key: &str, value: Value) {
        self.top.insert(key.into(), value);
    }
}

impl serde::Serialize for Document<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.top.len()))?;
        for (k, v) in &self.top {
            match k.as_str() {
                FILTER => m.serialize_entry(k, &Each(&self.ex.filter, filter_entry))?,
                SCORE => m.serialize_entry(k, &Each(&self.ex.score, score_entry))?,
                _ => m.serialize_entry(k, v)?,
            }
        }
        m.end()
    }
}

/// A list written an entry at a time, each made by the function as it is written (the
/// per-node lists here, a simulation's events).
pub(crate) struct Each<'a, T, F>(pub &'a [T], pub F);

impl<'a, T, R: serde::Serialize, F: Fn(&'a T) -> R> serde::Serialize for Each<'a, T, F> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(&self.1))
    }
}

/// A node's Filter verdict, as the `filter` list holds it.
fn filter_entry(f: &NodeFilter) -> Value {
    let mut m = Map::new();
    m.insert("node".into(), json!(f.node));
    m.insert("feasible".into(), json!(f.feasible));
    if let Some(fl) = &f.failure {
        m.insert("plugin".into(), json!(fl.plugin));
        m.insert("code".into(), json!(fl.code.as_str()));
        m.insert("reasons".into(), json!(fl.reasons));
    }
    if !f.rejected_by_nominated_pods.is_empty() {
        m.insert(
            "rejectedByNominatedPods".into(),
            json!(
                f.rejected_by_nominated_pods
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
            ),
        );
    }
    if !f.detail.is_empty() {
        m.insert("detail".into(), json!(f.detail));
    }
    if !f.all_failures.is_empty() {
        m.insert(
            "allFailures".into(),
            Value::Array(f.all_failures.iter().map(failure).collect()),
        );
    }
    for d in &f.details {
        match d {
            FilterDetail::TopologySpread(checks) => {
                m.insert(
                    "topologySpread".into(),
                    Value::Array(checks.iter().map(spread_check).collect()),
                );
            }
        }
    }
    Value::Object(m)
}

/// A node's scores, as the `score` list holds them.
fn score_entry(s: &NodeScoreTrace) -> Value {
    json!({
        "node": s.node,
        "total": s.total,
        "plugins": s.plugins.iter().map(|p| json!({
            "plugin": p.plugin, "raw": p.raw, "normalized": p.normalized,
            "weight": p.weight, "weighted": p.weighted,
        })).collect::<Vec<_>>(),
    })
}

/// The top level of an explanation's JSON, its per-node lists ([`FILTER`], [`SCORE`]) left
/// as null in their places.
fn top_level(ex: &Explanation) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("apiVersion".into(), json!("kschedtui/v1"));
    o.insert("kind".into(), json!("Explanation"));
    o.insert(
        "pod".into(),
        json!({"namespace": ex.pod.namespace, "name": ex.pod.name}),
    );
    // Optional key (docs/explain-json.md): where the attempt ends, in one word.
    o.insert("outcome".into(), json!(ex.outcome().as_str()));
    o.insert("profile".into(), json!(ex.profile));
    o.insert("nodeCount".into(), json!(ex.node_count));
    // Optional key: every PreEnqueue plugin of the profile up to the first rejection.
    if !ex.pre_enqueue.is_empty() {
        o.insert("preEnqueue".into(), plugin_statuses(&ex.pre_enqueue));
    }
    o.insert("preFilter".into(), plugin_statuses(&ex.pre_filter));
    o.insert("preFilterNodeNames".into(), json!(ex.pre_filter_node_names));
    o.insert(FILTER.into(), Value::Null);
    if !ex.pre_score.is_empty() {
        o.insert(
            "preScore".into(),
            Value::Array(
                ex.pre_score
                    .iter()
                    .map(|p| json!({"plugin": p.plugin, "code": p.code.as_str()}))
                    .collect(),
            ),
        );
    }
    o.insert(SCORE.into(), Value::Null);
    o.insert("selected".into(), json!(ex.selected));
    // Optional key (docs/explain-json.md): 1.35+'s pick among tied nodes.
    if let Some(n) = &ex.host_pick {
        o.insert("hostPick".into(), json!(n));
    }
    if let Some(m) = &ex.message {
        o.insert("message".into(), json!(m));
    }
    if let Some(pf) = &ex.post_filter {
        let mut victims = pf.victims.clone();
        victims.sort();
        o.insert(
            "postFilter".into(),
            json!({
                "plugin": pf.plugin,
                "code": pf.code.map(|c| c.as_str()),
                "nominatedNode": pf.nominated_node,
                "victims": victims.iter().map(|v| json!({"namespace": v.namespace, "name": v.name})).collect::<Vec<_>>(),
                "message": pf.message,
                // kschedtui extras: the dry run behind the verdict.
                "candidates": pf.candidates.iter().map(|c| json!({
                    "node": c.node,
                    "victims": c.victims.iter().map(|v| json!({"namespace": v.namespace, "name": v.name})).collect::<Vec<_>>(),
                    "victimPriorities": c.victim_priorities,
                    "pdbViolations": c.pdb_violations,
                    "violatedPdbs": c.violated_pdbs.iter().map(|v| json!({"namespace": v.namespace, "name": v.name})).collect::<Vec<_>>(),
                    "selected": c.selected,
                    "criterion": c.criterion,
                    "note": c.note,
                })).collect::<Vec<_>>(),
                "dryRun": pf.node_notes.iter().map(|(n, m)| json!({"node": n, "status": m})).collect::<Vec<_>>(),
                "candidatesWanted": pf.candidates_wanted,
                "randomTie": pf.random_tie,
            }),
        );
    }
    if let Some(s) = &ex.waiting_for_scheduler {
        o.insert("waitingForScheduler".into(), json!(s));
    }
    o.insert("schedulerVersion".into(), json!(ex.release));
    if !ex.feature_gates.is_empty() {
        o.insert("featureGates".into(), json!(ex.feature_gates));
    }
    if !ex.notes.is_empty() {
        o.insert("notes".into(), json!(ex.notes));
    }
    if let Some(b) = &ex.binding_cycle {
        // Optional key: each Permit plugin's verdict once the pod is assumed on the selected
        // node and Reserve ran (only when the profile has Permit plugins).
        if !b.permit.is_empty() {
            o.insert("permit".into(), permit_statuses(&b.permit));
        }
        o.insert("bindingCycle".into(), binding_cycle(b));
    }
    if let Some(g) = &ex.gang {
        o.insert("gang".into(), gang(g));
    }
    // Optional key (kschedtui extension, docs/explain-json.md): the pod's resource claims,
    // node by node.
    if let Some(d) = &ex.dra {
        o.insert("dra".into(), dra(d));
    }
    // Optional key (kschedtui extension, docs/explain-json.md): PodTopologySpread's domains
    // and Score arithmetic for a pod with its own constraints.
    if let Some(t) = &ex.topology_spread {
        o.insert("topologySpread".into(), spread(t));
    }
    // Optional key (docs/explain-json.md): what percentageOfNodesToScore does to the cycle.
    if let Some(t) = &ex.sampling {
        o.insert("sampling".into(), sampling(t));
    }
    // Optional key (docs/explain-json.md): whether 1.35+'s opportunistic batching can apply.
    if let Some(b) = &ex.batching {
        o.insert(
            "opportunisticBatching".into(),
            serde_json::to_value(b).unwrap_or(Value::Null),
        );
    }
    o
}

/// `sampling`: the percentage, the counts, and from a start index what the search found.
fn sampling(t: &crate::engine::framework::sampling::SamplingTrace) -> Value {
    let mut m = Map::new();
    m.insert("percentageOfNodesToScore".into(), json!(t.configured));
    m.insert("percentage".into(), json!(t.percentage));
    m.insert("nodesSearched".into(), json!(t.searched));
    m.insert("nodesToFind".into(), json!(t.nodes_to_find));
    m.insert("feasibleNodes".into(), json!(t.feasible));
    m.insert("applies".into(), json!(t.applies()));
    m.insert("noScorePlugins".into(), json!(t.no_scoring));
    if let Some(s) = t.start {
        m.insert("startNodeIndex".into(), json!(s));
    }
    if let Some(f) = &t.found {
        m.insert("found".into(), json!(f));
    }
    if let Some(p) = t.processed {
        m.insert("processedNodes".into(), json!(p));
    }
    if let Some(n) = t.next_start {
        m.insert("nextStartNodeIndex".into(), json!(n));
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::engine::{self, Release, Snapshot};

    #[test]
    fn a_document_writes_the_bytes_of_the_value_in_json_and_yaml() {
        let cluster = crate::source::load::Input::Demo.load().unwrap();
        let snap = Snapshot::new(Arc::new(cluster), Release::NEWEST);
        let profiles = engine::build_profiles(None, Release::NEWEST).unwrap();
        let explanations: Vec<Explanation> = snap
            .cluster
            .pending_pods()
            .iter()
            .map(|p| engine::explain(&snap, &profiles, &p.key).unwrap())
            .collect();
        // Pods that reach Score and pods that fail Filter on some nodes, so both lists are long.
        assert!(explanations.iter().any(|e| e.score.len() > 3));
        assert!(
            explanations
                .iter()
                .any(|e| e.filter.iter().filter(|f| !f.feasible).count() > 3)
        );
        let extra = json!({"added": ["after", "the", "others"]});
        let values: Vec<Value> = explanations
            .iter()
            .map(|e| {
                let mut v = to_value(e);
                v.as_object_mut().unwrap().insert(CLUSTER_KEY.into(), extra.clone());
                v
            })
            .collect();
        let documents = || {
            explanations.iter().map(|e| {
                let mut d = Document::new(e);
                d.insert(CLUSTER_KEY, extra.clone());
                d
            })
        };
        for (v, d) in values.iter().zip(documents()) {
            assert_eq!(
                serde_json::to_string_pretty(&d).unwrap(),
                serde_json::to_string_pretty(v).unwrap()
            );
            assert_eq!(serde_yaml::to_string(&d).unwrap(), serde_yaml::to_string(v).unwrap());
            // The per-node lists in their places, the added key last.
            let keys: Vec<String> = serde_json::to_value(&d)
                .unwrap()
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            assert_eq!(keys, v.as_object().unwrap().keys().cloned().collect::<Vec<_>>());
            assert_eq!(keys.last().map(String::as_str), Some(CLUSTER_KEY));
        }
        let list = |ser: &mut serde_json::Serializer<&mut Vec<u8>, serde_json::ser::PrettyFormatter<'_>>| {
            serde::Serializer::collect_seq(ser, documents()).unwrap();
        };
        let mut out = Vec::new();
        list(&mut serde_json::Serializer::pretty(&mut out));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string_pretty(&values).unwrap()
        );
    }
}
