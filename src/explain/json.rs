//! The `explain -o json` contract, version 1: keys and sorting exactly as the spec says, with
//! kschedtui's extra keys (`allFailures`, `rejectedByNominatedPods`, `preScore`, `notes`, `topologySpread`, ...)
//! added where the contract allows.

use serde_json::{Map, Value, json};

use crate::engine::trace::{Explanation, FilterDetail, FilterFailure, SpreadCheck};

fn failure(f: &FilterFailure) -> Value {
    json!({"plugin": f.plugin, "code": f.code.as_str(), "reasons": f.reasons})
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

/// One explanation as a JSON object.
pub fn to_value(ex: &Explanation) -> Value {
    let mut o = Map::new();
    o.insert("apiVersion".into(), json!("kschedtui/v1"));
    o.insert("kind".into(), json!("Explanation"));
    o.insert("pod".into(), json!({"namespace": ex.pod.namespace, "name": ex.pod.name}));
    o.insert("profile".into(), json!(ex.profile));
    o.insert("nodeCount".into(), json!(ex.node_count));
    let pre: Vec<Value> = ex
        .pre_filter
        .iter()
        .map(|p| {
            let mut m = Map::new();
            m.insert("plugin".into(), json!(p.plugin));
            m.insert("code".into(), json!(p.code.as_str()));
            if !p.reasons.is_empty() {
                m.insert("reasons".into(), json!(p.reasons));
            }
            Value::Object(m)
        })
        .collect();
    o.insert("preFilter".into(), Value::Array(pre));
    o.insert("preFilterNodeNames".into(), json!(ex.pre_filter_node_names));
    let filter: Vec<Value> = ex
        .filter
        .iter()
        .map(|f| {
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
                    json!(f.rejected_by_nominated_pods.iter().map(ToString::to_string).collect::<Vec<_>>()),
                );
            }
            if !f.all_failures.is_empty() {
                m.insert("allFailures".into(), Value::Array(f.all_failures.iter().map(failure).collect()));
            }
            for d in &f.details {
                match d {
                    FilterDetail::TopologySpread(checks) => {
                        m.insert("topologySpread".into(), Value::Array(checks.iter().map(spread_check).collect()));
                    }
                }
            }
            Value::Object(m)
        })
        .collect();
    o.insert("filter".into(), Value::Array(filter));
    if !ex.pre_score.is_empty() {
        o.insert(
            "preScore".into(),
            Value::Array(ex.pre_score.iter().map(|p| json!({"plugin": p.plugin, "code": p.code.as_str()})).collect()),
        );
    }
    let score: Vec<Value> = ex
        .score
        .iter()
        .map(|s| {
            json!({
                "node": s.node,
                "total": s.total,
                "plugins": s.plugins.iter().map(|p| json!({
                    "plugin": p.plugin, "raw": p.raw, "normalized": p.normalized,
                    "weight": p.weight, "weighted": p.weighted,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    o.insert("score".into(), Value::Array(score));
    o.insert("selected".into(), json!(ex.selected));
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
            }),
        );
    }
    if let Some(s) = &ex.waiting_for_scheduler {
        o.insert("waitingForScheduler".into(), json!(s));
    }
    o.insert("schedulerVersion".into(), json!(ex.version));
    if !ex.notes.is_empty() {
        o.insert("notes".into(), json!(ex.notes));
    }
    Value::Object(o)
}
