//! What the evictions lead to: each evicted pod's replacement, created as its controller
//! would create it (a fresh pod from the evicted pod's spec: nodeName, status, uid and
//! deletion cleared; a StatefulSet's under the same name, any other owner's under
//! `<name>-new`), then scheduled with [`crate::engine::simulate`] in its queue order. Only the
//! replacements are attempted: the pods pending before the cycle stay as they are (they would
//! compete for the freed room in a real cluster; kschedtui reports them, it does not move them).
//! A bare pod (no ownerReferences) is not recreated, nor is a finished one (its controller
//! has already replaced it).

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;

use super::CycleReport;
use super::pods::owner_refs;
use crate::engine::framework::runtime::Framework;
use crate::engine::release::Features;
use crate::engine::simulate::{Detail, FinalState, SimOptions, SimReport, simulate};
use crate::model::{ObjectKey, Pod};

/// Where an evicted pod's replacement ends up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Landing {
    /// Bound to a node; `same` when it is the node the evicted pod ran on.
    Node {
        /// The node.
        node: String,
        /// True when it returns to the evicted pod's node.
        same: bool,
    },
    /// Pending: the scheduler's message.
    Pending(String),
    /// Waiting at Permit on a node.
    Waiting(String),
    /// Held before the queue (PreEnqueue).
    Held(String),
    /// No replacement is created: why.
    NotRecreated(String),
}

/// One evicted pod and its replacement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// The evicted pod.
    pub evicted: ObjectKey,
    /// Its node.
    pub from: String,
    /// The plugin that evicted it.
    pub plugin: String,
    /// The owner that recreates it (`Kind/name`), if any.
    pub owner: Option<String>,
    /// The replacement's key, when one is created.
    pub replacement: Option<ObjectKey>,
    /// Where it lands.
    pub landing: Landing,
}

/// The replacement pod for an evicted pod, or why there is none.
pub fn replacement_for(p: &Pod, now: Timestamp, taken: &dyn Fn(&ObjectKey) -> bool) -> Result<Pod, String> {
    let owners = owner_refs(p);
    let owner = owners
        .iter()
        .find(|o| o.controller == Some(true))
        .or_else(|| owners.first())
        .ok_or_else(|| "a bare pod (no ownerReferences): nothing recreates it".to_string())?;
    if p.is_finished() {
        return Err(format!(
            "it had finished (phase {}): its {} does not count it and has already replaced it",
            p.phase(),
            owner.kind
        ));
    }
    let mut name = if owner.kind == "StatefulSet" {
        p.key.name.to_string()
    } else {
        format!("{}-new", p.key.name)
    };
    while taken(&ObjectKey::new(p.key.namespace.as_str(), &name)) {
        name.push_str("-new");
    }
    let old = &p.obj;
    let mut spec = old.spec.clone().unwrap_or_default();
    spec.node_name = None;
    let meta = k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
        name: Some(name),
        namespace: old.metadata.namespace.clone(),
        generate_name: old.metadata.generate_name.clone(),
        labels: old.metadata.labels.clone(),
        annotations: old.metadata.annotations.clone(),
        owner_references: old.metadata.owner_references.clone(),
        uid: old.metadata.uid.as_ref().map(|u| format!("{u}-new")),
        creation_timestamp: Some(Time(now)),
        ..Default::default()
    };
    let obj = core::Pod {
        metadata: meta,
        spec: Some(spec),
        status: Some(core::PodStatus {
            phase: Some("Pending".into()),
            ..Default::default()
        }),
    };
    let priority = p.priority;
    let mut fresh = Pod::from_obj(obj, |_| priority).map_err(|(f, m)| format!("field '{f}': {m}"))?;
    fresh.priority = priority;
    Ok(fresh)
}

/// Creates the replacements in the cycle's cluster and schedules them.
pub fn reschedule(
    cycle: &CycleReport,
    profiles: &[Framework],
    features: &Features,
    max_passes: usize,
) -> (Vec<Replacement>, Option<SimReport>) {
    let mut cluster = cycle.cluster.clone();
    let mut out = Vec::new();
    let mut created = BTreeSet::new();
    for (p, plugin) in &cycle.evicted {
        let owner = owner_refs(p)
            .iter()
            .find(|o| o.controller == Some(true))
            .or_else(|| owner_refs(p).first())
            .map(|o| format!("{}/{}", o.kind, o.name));
        let from = p.node_name.as_deref().unwrap_or_default().to_string();
        let taken = |k: &ObjectKey| cluster.pod(k).is_some();
        let (replacement, landing) = match replacement_for(p, cycle.now, &taken) {
            Err(why) => (None, Landing::NotRecreated(why)),
            Ok(fresh) => {
                let key = fresh.key.clone();
                match cluster.create_pod(fresh) {
                    Ok(_) => {
                        created.insert(key.clone());
                        (Some(key), Landing::Pending(String::new()))
                    }
                    Err(e) => (None, Landing::NotRecreated(e.to_string())),
                }
            }
        };
        out.push(Replacement {
            evicted: p.key.clone(),
            from,
            plugin: plugin.clone(),
            owner,
            replacement,
            landing,
        });
    }
    if created.is_empty() {
        return (out, None);
    }
    let sim = simulate(
        cluster,
        profiles,
        features,
        SimOptions {
            max_passes,
            only: Some(created),
            placement: None,
            detail: Detail::Full,
            ..Default::default()
        },
    );
    for r in &mut out {
        let Some(k) = &r.replacement else { continue };
        let state = sim.pods.iter().find(|(pk, _)| pk == k).map(|(_, s)| s.clone());
        r.landing = match state {
            Some(FinalState::Bound { node, .. }) => Landing::Node {
                same: node == r.from,
                node,
            },
            Some(FinalState::Waiting(n)) => Landing::Waiting(n),
            Some(FinalState::Pending { message, .. }) => Landing::Pending(message),
            Some(FinalState::Held { plugin, message }) => Landing::Held(format!("{plugin}: {message}")),
            Some(FinalState::NoProfile(s)) => Landing::Pending(format!("no profile serves schedulerName '{s}'")),
            Some(FinalState::Deleted) => Landing::NotRecreated("deleted by a preemption".into()),
            None => Landing::Pending("not attempted".into()),
        };
    }
    (out, Some(sim))
}

/// The replacements that are bound, with their nodes (for tests and summaries).
pub fn landed(r: &[Replacement]) -> Vec<(String, String)> {
    r.iter()
        .filter_map(|x| match &x.landing {
            Landing::Node { node, .. } => Some((x.evicted.to_string(), node.clone())),
            _ => None,
        })
        .collect()
}
