//! Queue simulation: schedules every pending pod of a snapshot in queue order, the way the
//! scheduler loop does (schedule_one.go), and applies each outcome to the snapshot before the
//! next pod: a binding sets spec.nodeName and counts the pod on its node, a preemption deletes
//! the victims and sets status.nominatedNodeName, a pod that gets Wait at Permit is assumed on
//! its node until its gang reaches quorum (then it binds) or the wait ends in a rejection (then
//! it is forgotten and Unreserve runs).
//!
//! Pure and deterministic: no I/O, a simulated clock. Time model (kschedtui's, stated in the
//! report): a scheduling attempt takes no time; every pass over the queue starts one second
//! (the initial backoff) after the previous one; a pass that changes nothing jumps the clock to
//! the next Permit deadline; the simulation stops when a pass starts in a state already seen
//! (nothing more can change) or after `max_passes`. Profiles with different QueueSort plugins
//! are separate schedulers upstream; their queues are simulated one after the other within a
//! pass, in profile order.
//!
//! Preemption is applied from the explanation's PostFilter result (nominated node and victims),
//! whichever PostFilter plugin produced it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::framework::binding::finish_binding_cycle;
use super::framework::handle::FrameworkHandle;
use super::framework::node_info::PodInfo;
use super::framework::plugin::Ctx;
use super::framework::runner::{self, NO_NODES_MESSAGE};
use super::framework::runtime::Framework;
use super::framework::snapshot::Snapshot;
use super::framework::status::Status;
use super::framework::trace::{BindingCycleTrace, BindingOutcome, Explanation};
use super::release::{Change, Features};
use crate::model::{Cluster, ObjectKey};

/// Nominal time between two passes over the queue (`podInitialBackoffDuration`).
pub const PASS_INTERVAL_MS: u64 = 1000;

/// Simulation options.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Passes over the queue at most.
    pub max_passes: usize,
    /// Attempt only these pods (the others stay as they are: pending, nominated or bound).
    pub only: Option<BTreeSet<ObjectKey>>,
    /// Filter and score only on these nodes (a pod-group cycle's assumed placement); plugins
    /// still see every node.
    pub placement: Option<BTreeSet<String>>,
    /// How much of each attempt's explanation the report keeps.
    pub detail: Detail,
    /// Apply preemptions (victims deleted, the preemptor nominated). When false a preemption
    /// is reported by its attempt's outcome and nothing changes (`fit` without `--preempt`).
    pub preempt: bool,
    /// A pod is attempted only once another one is bound (a StatefulSet's OrderedReady: the
    /// next pod is not created before): pod → the pod it waits for.
    pub after: BTreeMap<ObjectKey, ObjectKey>,
    /// percentageOfNodesToScore reproduced from this `nextStartNodeIndex` at the first cycle,
    /// which every cycle moves on as kube-scheduler's does; None: every feasible node scored.
    pub start_node: Option<usize>,
}

/// How much of each attempt's explanation a [`SimReport`] keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Detail {
    /// Every extension point, node by node (the JSON report, the descheduler's replacements).
    #[default]
    Full,
    /// The pod-level result only ([`Explanation::summarize`]): the per-node Filter and Score
    /// traces and the preemption candidates are dropped after the attempt, so a long run holds
    /// a few hundred bytes per attempt instead of about a kilobyte per node.
    Summary,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            max_passes: 50,
            only: None,
            placement: None,
            detail: Detail::Full,
            preempt: true,
            after: BTreeMap::new(),
            start_node: None,
        }
    }
}

/// The result of one scheduling attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// Bound to the node (Permit allowed it at once).
    Bound(String),
    /// Assumed on the node, waiting at Permit.
    Waiting(String),
    /// No node fits and no preemption was done; the PodScheduled message.
    Unschedulable(String),
    /// Preemption: nominated node and victims (deleted); the PodScheduled message.
    Preempting {
        /// Nominated node.
        node: String,
        /// Victims.
        victims: Vec<ObjectKey>,
        /// Message.
        message: String,
    },
    /// A node was selected but Reserve or Permit rejected the pod (or failed).
    Rejected {
        /// The node.
        node: String,
        /// The extension point.
        point: String,
        /// The PodScheduled message.
        message: String,
    },
    /// The attempt failed with an error.
    Error(String),
    /// Rejected at PreEnqueue (scheduling gates, a gang short of members, a claim not created
    /// yet): never enters the active queue.
    Held {
        /// The PreEnqueue plugin that holds it.
        plugin: String,
        /// Its message.
        message: String,
    },
    /// No profile serves the pod's schedulerName.
    NoProfile(String),
}

/// What happened.
#[derive(Clone, Debug)]
pub enum EventKind {
    /// A scheduling attempt, with its full explanation.
    Attempt {
        /// The profile.
        profile: String,
        /// The outcome.
        outcome: AttemptOutcome,
        /// The trace.
        explanation: Box<Explanation>,
    },
    /// A waiting pod's wait ended (allowed or rejected) and its binding cycle ran.
    WaitEnded {
        /// The binding cycle after the wait.
        trace: Box<BindingCycleTrace>,
    },
    /// A preemption victim was deleted.
    Evicted {
        /// Its node.
        node: String,
        /// The preemptor.
        by: ObjectKey,
    },
    /// A pod's status.nominatedNodeName was cleared.
    NominationCleared {
        /// The node it named.
        node: String,
    },
    /// The binding cycle set status.nominatedNodeName to the node it binds to
    /// (NominatedNodeNameForExpectation, 1.35+): the pod waits at Permit, or PreBind has work.
    NominatedForExpectation {
        /// The node.
        node: String,
    },
}

/// One event of the timeline.
#[derive(Clone, Debug)]
pub struct SimEvent {
    /// Pass (1-based).
    pub pass: usize,
    /// Clock (ms).
    pub at_ms: u64,
    /// The pod concerned.
    pub pod: ObjectKey,
    /// What happened.
    pub kind: EventKind,
}

/// Where a pod pending at the start ended up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FinalState {
    /// Bound.
    Bound {
        /// Node.
        node: String,
        /// Clock when bound (ms).
        at_ms: u64,
    },
    /// Still waiting at Permit when the simulation stopped.
    Waiting(String),
    /// Still pending: the last PodScheduled message and the nominated node.
    Pending {
        /// Message.
        message: String,
        /// status.nominatedNodeName.
        nominated: Option<String>,
    },
    /// Held before the queue by a PreEnqueue plugin.
    Held {
        /// The plugin.
        plugin: String,
        /// Its message.
        message: String,
    },
    /// No profile serves it.
    NoProfile(String),
    /// Deleted (a preemption victim that was pending: cannot happen upstream, listed for
    /// completeness).
    Deleted,
}

/// The simulation's report.
#[derive(Clone, Debug)]
pub struct SimReport {
    /// The timeline.
    pub events: Vec<SimEvent>,
    /// Pods pending at the start, in first-pass queue order, with where they ended up.
    pub pods: Vec<(ObjectKey, FinalState)>,
    /// Pods deleted by preemption.
    pub evicted: Vec<ObjectKey>,
    /// Passes run.
    pub passes: usize,
    /// True when the simulation reached a state that no further pass changes.
    pub converged: bool,
    /// Clock at the end (ms).
    pub end_ms: u64,
    /// The snapshot at the end.
    pub snapshot: Snapshot,
}

/// What a pass can change (every pod's node and nominated node, the pods waiting at Permit),
/// hashed twice with different leading words into 128 bits: compared between passes and kept
/// for every pass, without copying 100,000 pods' keys and nodes each time (a false match,
/// which would end the simulation early, has a chance of about 2^-128).
type Signature = (u64, u64);

fn signature(s: &Snapshot) -> Signature {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let hash = |seed: u64| {
        let mut h = DefaultHasher::new();
        seed.hash(&mut h);
        for p in &s.cluster.pods {
            (&p.key, &p.node_name, p.nominated_node_name()).hash(&mut h);
        }
        s.handle.with(|x| x.waiting.keys().for_each(|k| k.hash(&mut h)));
        h.finish()
    };
    (hash(0), hash(1))
}

/// The queues of a pass: pending pods (not bound, not assumed, not finished) grouped by
/// schedulers (profiles sharing a QueueSort plugin share a queue), each sorted by its QueueSort.
/// Pods no profile serves come last.
pub fn queues(cluster: &Cluster, profiles: &[Framework]) -> Vec<Vec<ObjectKey>> {
    let mut groups: Vec<(Vec<&'static str>, Vec<usize>)> = Vec::new();
    for (i, fw) in profiles.iter().enumerate() {
        match groups.iter_mut().find(|(q, _)| *q == fw.queue_sort) {
            Some(g) => g.1.push(i),
            None => groups.push((fw.queue_sort.clone(), vec![i])),
        }
    }
    let mut out = Vec::new();
    let mut served: BTreeSet<&str> = BTreeSet::new();
    for (_, idx) in &groups {
        let names: BTreeSet<&str> = idx.iter().map(|&i| profiles[i].name.as_str()).collect();
        served.extend(names.iter().copied());
        let mut pods: Vec<&Arc<crate::model::Pod>> = cluster
            .pods
            .iter()
            .filter(|p| p.is_pending() && names.contains(p.scheduler_name()))
            .collect();
        let fw = &profiles[idx[0]];
        match &fw.queue_sorter {
            Some(q) => pods.sort_by(|a, b| q.compare(cluster, a, b)),
            None => pods.sort_by(|a, b| {
                b.priority
                    .cmp(&a.priority)
                    .then_with(|| a.cmp_creation(b))
                    .then_with(|| a.key.cmp(&b.key))
            }),
        }
        out.push(pods.iter().map(|p| p.key.clone()).collect());
    }
    let rest: Vec<ObjectKey> = cluster
        .pods
        .iter()
        .filter(|p| p.is_pending() && !served.contains(p.scheduler_name()))
        .map(|p| p.key.clone())
        .collect();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

struct Sim<'a> {
    snap: Snapshot,
    profiles: &'a [Framework],
    events: Vec<SimEvent>,
    evicted: Vec<ObjectKey>,
    pass: usize,
    reported_once: BTreeSet<ObjectKey>,
    detail: Detail,
    apply_preemption: bool,
}

impl Sim<'_> {
    fn now(&self) -> u64 {
        self.snap.handle.now_ms()
    }

    fn push(&mut self, pod: &ObjectKey, kind: EventKind) {
        self.events.push(SimEvent {
            pass: self.pass,
            at_ms: self.now(),
            pod: pod.clone(),
            kind,
        });
    }

    fn clear_nomination(&mut self, key: &ObjectKey) {
        let Some(n) = self
            .snap
            .cluster
            .pod(key)
            .and_then(|p| p.nominated_node_name().map(str::to_string))
        else {
            return;
        };
        if self.snap.set_nominated_node(key, None).is_ok() {
            self.push(key, EventKind::NominationCleared { node: n });
        }
    }

    /// `prepareCandidate`: delete the victims, clear the nominations of lower-priority pods
    /// nominated to the node, nominate the preemptor.
    fn preempt(&mut self, key: &ObjectKey, node: &str, victims: &[ObjectKey]) {
        let as_error = self.snap.features.has(Change::PreemptedWaitingPodIsError);
        for v in victims {
            // A victim waiting at Permit is not deleted: its wait ends with a rejection.
            if self.snap.handle.preempt_waiting(v, as_error) {
                continue;
            }
            let vnode = self
                .snap
                .cluster
                .pod(v)
                .and_then(|p| p.node_name.as_deref().map(str::to_string))
                .unwrap_or_default();
            if self.snap.evict_pod(v).is_ok() {
                self.evicted.push(v.clone());
                self.push(
                    v,
                    EventKind::Evicted {
                        node: vnode,
                        by: key.clone(),
                    },
                );
            }
        }
        let prio = self.snap.cluster.pod(key).map_or(i32::MIN, |p| p.priority);
        let lower: Vec<ObjectKey> = self
            .snap
            .nominated_on(node)
            .filter(|p| p.pod.priority < prio && p.pod.key != *key)
            .map(|p| p.pod.key.clone())
            .collect();
        for k in lower {
            self.clear_nomination(&k);
        }
        let _ = self.snap.set_nominated_node(key, Some(node));
    }

    fn attempt(&mut self, key: &ObjectKey) {
        let mut nominated: Option<String> = None;
        let mut ex = match runner::explain(&self.snap, self.profiles, key) {
            Ok(ex) => ex,
            Err(e) => {
                let kind = EventKind::Attempt {
                    profile: String::new(),
                    outcome: AttemptOutcome::Error(e.to_string()),
                    explanation: Box::new(empty_explanation(key, &self.snap)),
                };
                self.push(key, kind);
                return;
            }
        };
        // the next cycle's search starts where this one's stopped
        if let Some(next) = ex.sampling.as_ref().and_then(|s| s.next_start) {
            self.snap.start_node = Some(next);
        }
        let profile = ex.profile.clone();
        let outcome = if let Some(s) = &ex.waiting_for_scheduler {
            AttemptOutcome::NoProfile(s.clone())
        } else if let Some(h) = ex
            .pre_enqueue
            .iter()
            .find(|s| s.code != crate::engine::framework::status::Code::Success)
        {
            AttemptOutcome::Held {
                plugin: h.plugin.clone(),
                message: ex.message.clone().unwrap_or_else(|| h.reasons.join(", ")),
            }
        } else if let Some(b) = &ex.binding_cycle {
            if b.nominates && matches!(b.outcome, BindingOutcome::Bound | BindingOutcome::Waiting) {
                // NominatedNodeNameForExpectation: the binding cycle (after this attempt's
                // scheduling cycle) patches the node in before it waits or binds
                nominated = Some(b.node.clone());
                let _ = self.snap.set_nominated_node(key, Some(&b.node));
            }
            match b.outcome {
                BindingOutcome::Bound => {
                    // PreBind's writes (claims allocated and reserved, volumes bound) are
                    // what the next pods see
                    self.snap.apply_writes(&b.writes);
                    let _ = self.snap.bind_pod(key, &b.node);
                    AttemptOutcome::Bound(b.node.clone())
                }
                BindingOutcome::Waiting => {
                    let _ = self.snap.assume_pod(key, &b.node);
                    AttemptOutcome::Waiting(b.node.clone())
                }
                BindingOutcome::Rejected => AttemptOutcome::Rejected {
                    node: b.node.clone(),
                    point: b.stopped_at.clone().unwrap_or_default(),
                    message: b.message.clone().unwrap_or_default(),
                },
                BindingOutcome::Error => AttemptOutcome::Error(b.message.clone().unwrap_or_default()),
            }
        } else {
            let message = ex.message.clone().unwrap_or_default();
            match ex
                .post_filter
                .as_ref()
                .and_then(|pf| pf.nominated_node.clone().map(|n| (n, pf)))
            {
                Some((node, pf)) => AttemptOutcome::Preempting {
                    node,
                    victims: pf.victims.clone(),
                    message,
                },
                None if message.starts_with("0/") || message == NO_NODES_MESSAGE => {
                    AttemptOutcome::Unschedulable(message)
                }
                None => AttemptOutcome::Error(message),
            }
        };
        // Gated and unserved pods are reported once, not on every pass.
        if matches!(outcome, AttemptOutcome::Held { .. } | AttemptOutcome::NoProfile(_))
            && !self.reported_once.insert(key.clone())
        {
            return;
        }
        let clears = match &outcome {
            AttemptOutcome::Rejected { .. } | AttemptOutcome::Error(_) => true,
            AttemptOutcome::Unschedulable(m) => {
                m == NO_NODES_MESSAGE
                    || preemption_found_no_candidate(&ex)
                    // 1.35 (#135007): also when the profile has no PostFilter plugin.
                    || (ex.post_filter.is_none() && self.snap.features.has(Change::ClearsNominatedNodeWithoutPostFilter))
            }
            _ => false,
        };
        let preempt = match &outcome {
            AttemptOutcome::Preempting { node, victims, .. } => Some((node.clone(), victims.clone())),
            _ => None,
        };
        if self.detail == Detail::Summary {
            ex.summarize();
        }
        self.push(
            key,
            EventKind::Attempt {
                profile,
                outcome,
                explanation: Box::new(ex),
            },
        );
        if let Some(node) = nominated {
            self.push(key, EventKind::NominatedForExpectation { node });
        }
        if let Some((node, victims)) = preempt.filter(|_| self.apply_preemption) {
            self.preempt(key, &node, &victims);
        }
        if clears {
            self.clear_nomination(key);
        }
        self.settle_waits();
    }

    /// Runs the binding cycle of every waiting pod whose wait ended, until none is left (a
    /// rejection's Unreserve may reject more).
    fn settle_waits(&mut self) {
        loop {
            let decided = self.snap.handle.take_decided();
            if decided.is_empty() {
                break;
            }
            for mut w in decided {
                let Some(fw) = self.profiles.iter().find(|f| f.name == w.profile) else {
                    continue;
                };
                self.snap.handle.set_profile(&fw.name);
                let pi = PodInfo::with_features(w.pod.clone(), &self.snap.features);
                let mut t = BindingCycleTrace {
                    node: w.node.clone(),
                    tied_with: Vec::new(),
                    reserve: Vec::new(),
                    permit: Vec::new(),
                    wait_result: None,
                    pre_bind: Vec::new(),
                    bind: Vec::new(),
                    post_bind: Vec::new(),
                    unreserve: Vec::new(),
                    outcome: BindingOutcome::Waiting,
                    stopped_at: None,
                    message: None,
                    after_wait: Vec::new(),
                    nominates: false,
                    writes: Vec::new(),
                    unplanned: Vec::new(),
                };
                let verdict = w.verdict.clone().unwrap_or_else(Status::success);
                finish_binding_cycle(
                    &Ctx { snapshot: &self.snap },
                    fw,
                    &mut w.state,
                    &pi,
                    Some(verdict),
                    &mut t,
                );
                let key = w.pod.key.clone();
                let _ = self.snap.forget_pod(&key);
                if t.outcome == BindingOutcome::Bound {
                    self.snap.apply_writes(&t.writes);
                    let _ = self.snap.bind_pod(&key, &w.node);
                } else {
                    self.clear_nomination(&key);
                }
                self.push(&key, EventKind::WaitEnded { trace: Box::new(t) });
            }
        }
    }

    fn advance_to(&mut self, ms: u64) {
        self.snap.handle.advance_to(ms);
        self.settle_waits();
    }
}

/// True when DefaultPreemption found no candidate: its result then clears the pod's nominated
/// node (`NewPostFilterResultWithNominatedNode("")`).
fn preemption_found_no_candidate(ex: &Explanation) -> bool {
    ex.message.as_deref().is_some_and(|m| m.contains("preemption: 0/"))
}

fn empty_explanation(key: &ObjectKey, snap: &Snapshot) -> Explanation {
    Explanation::empty(key.clone(), String::new(), &snap.features, snap.nodes.len())
}

/// Simulates the scheduling of every pending pod of `cluster` with `profiles`.
pub fn simulate(
    cluster: Cluster,
    profiles: &[Framework],
    features: impl Into<Features>,
    opts: SimOptions,
) -> SimReport {
    let mut snap = Snapshot::new(Arc::new(cluster), features);
    snap.handle = FrameworkHandle::persistent();
    snap.placement = opts.placement.clone().map(Arc::new);
    // a summarized attempt keeps nothing the per-node diagnostics would add
    snap.decisions_only = opts.detail == Detail::Summary;
    snap.start_node = opts.start_node;
    let wanted = |k: &ObjectKey| opts.only.as_ref().is_none_or(|o| o.contains(k));
    let initial: Vec<ObjectKey> = queues(&snap.cluster, profiles)
        .into_iter()
        .flatten()
        .filter(|k| wanted(k))
        .collect();
    let mut sim = Sim {
        snap,
        profiles,
        events: Vec::new(),
        evicted: Vec::new(),
        pass: 0,
        reported_once: BTreeSet::new(),
        detail: opts.detail,
        apply_preemption: opts.preempt,
    };
    let mut seen: BTreeSet<Signature> = BTreeSet::new();
    let mut converged = false;
    let mut next_start = 0u64;
    for pass in 1..=opts.max_passes.max(1) {
        sim.pass = pass;
        sim.advance_to(next_start);
        let start = signature(&sim.snap);
        if !seen.insert(start) {
            converged = true;
            sim.pass = pass - 1;
            break;
        }
        for q in queues(&sim.snap.cluster, profiles) {
            for key in q.into_iter().filter(|k| wanted(k)) {
                let still_pending = sim.snap.cluster.pod(&key).is_some_and(|p| p.is_pending());
                let created = opts
                    .after
                    .get(&key)
                    .is_none_or(|before| sim.snap.cluster.pod(before).is_some_and(|p| p.node_name.is_some()));
                if still_pending && created {
                    sim.attempt(&key);
                }
            }
        }
        let end = signature(&sim.snap);
        if end == start {
            match sim.snap.handle.next_deadline_ms() {
                Some(d) => next_start = d,
                None => {
                    converged = true;
                    break;
                }
            }
        } else {
            next_start = sim.now() + PASS_INTERVAL_MS;
        }
    }
    let mut last_message: BTreeMap<ObjectKey, String> = BTreeMap::new();
    let mut bound_at: BTreeMap<ObjectKey, u64> = BTreeMap::new();
    let mut held: BTreeMap<ObjectKey, (String, String)> = BTreeMap::new();
    let mut unserved: BTreeMap<ObjectKey, String> = BTreeMap::new();
    for e in &sim.events {
        match &e.kind {
            EventKind::Attempt { outcome, .. } => match outcome {
                AttemptOutcome::Bound(_) => {
                    bound_at.insert(e.pod.clone(), e.at_ms);
                }
                AttemptOutcome::Unschedulable(m)
                | AttemptOutcome::Error(m)
                | AttemptOutcome::Preempting { message: m, .. }
                | AttemptOutcome::Rejected { message: m, .. } => {
                    last_message.insert(e.pod.clone(), m.clone());
                }
                AttemptOutcome::Held { plugin, message } => {
                    held.insert(e.pod.clone(), (plugin.clone(), message.clone()));
                }
                AttemptOutcome::NoProfile(s) => {
                    unserved.insert(e.pod.clone(), s.clone());
                }
                AttemptOutcome::Waiting(_) => {}
            },
            EventKind::WaitEnded { trace } => {
                if trace.outcome == BindingOutcome::Bound {
                    bound_at.insert(e.pod.clone(), e.at_ms);
                } else if let Some(m) = &trace.message {
                    last_message.insert(e.pod.clone(), m.clone());
                }
            }
            _ => {}
        }
    }
    let waiting: BTreeMap<ObjectKey, String> = sim
        .snap
        .handle
        .with(|h| h.waiting.iter().map(|(k, w)| (k.clone(), w.node.clone())).collect());
    let pods = initial
        .into_iter()
        .map(|k| {
            let state = match sim.snap.cluster.pod(&k) {
                None => FinalState::Deleted,
                Some(_) if waiting.contains_key(&k) => FinalState::Waiting(waiting[&k].clone()),
                Some(p) if p.node_name.is_some() => FinalState::Bound {
                    node: p.node_name.as_deref().unwrap_or_default().to_string(),
                    at_ms: bound_at.get(&k).copied().unwrap_or(0),
                },
                Some(_) if held.contains_key(&k) => FinalState::Held {
                    plugin: held[&k].0.clone(),
                    message: held[&k].1.clone(),
                },
                Some(_) if unserved.contains_key(&k) => FinalState::NoProfile(unserved[&k].clone()),
                Some(p) => FinalState::Pending {
                    message: last_message.get(&k).cloned().unwrap_or_default(),
                    nominated: p.nominated_node_name().map(str::to_string),
                },
            };
            (k, state)
        })
        .collect();
    let end_ms = sim.now();
    SimReport {
        events: sim.events,
        pods,
        evicted: sim.evicted,
        passes: sim.pass,
        converged,
        end_ms,
        snapshot: sim.snap,
    }
}

/// Pods created and scheduled one at a time, each attempt applied before the next pod is
/// created (`fit --max`'s linear search): the queue of one pod at a time, with its waits at
/// Permit settled after each attempt.
pub struct Placer<'a> {
    sim: Sim<'a>,
}

impl<'a> Placer<'a> {
    /// A placer on `cluster` (nothing attempted yet).
    pub fn new(cluster: Cluster, profiles: &'a [Framework], features: impl Into<Features>, preempt: bool) -> Self {
        let mut snap = Snapshot::new(Arc::new(cluster), features);
        snap.handle = FrameworkHandle::persistent();
        snap.decisions_only = true;
        Placer {
            sim: Sim {
                snap,
                profiles,
                events: Vec::new(),
                evicted: Vec::new(),
                pass: 1,
                reported_once: BTreeSet::new(),
                detail: Detail::Summary,
                apply_preemption: preempt,
            },
        }
    }

    /// The cluster as the attempts left it.
    pub fn cluster(&self) -> &Cluster {
        &self.sim.snap.cluster
    }

    /// Changes the cluster with `create` (new pods, claims, volumes); the pods it returns are
    /// counted as pending pods of the snapshot.
    pub fn create<R>(&mut self, create: impl FnOnce(&mut Cluster) -> (R, Vec<ObjectKey>)) -> R {
        self.sim.snap.create_with(create)
    }

    /// Schedules one pending pod (one attempt, then the waits that ended); its outcome.
    pub fn attempt(&mut self, key: &ObjectKey) -> Option<AttemptOutcome> {
        let from = self.sim.events.len();
        self.sim.attempt(key);
        self.sim.settle_waits();
        let outcome = self.sim.events[from..].iter().find_map(|e| match &e.kind {
            EventKind::Attempt { outcome, .. } if e.pod == *key => Some(outcome.clone()),
            _ => None,
        });
        // one pod at a time: the timeline is not kept
        self.sim.events.clear();
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Release;
    use crate::engine::framework::cycle_state::CycleState;
    use crate::engine::framework::plugin::{Plugin, PluginsRunner, PostFilterPlugin};
    use crate::engine::framework::trace::PostFilterTrace;
    use crate::source::file::load_str;

    /// A PostFilter that preempts `low` on n1 for `high`, to test how the simulator applies a
    /// preemption whatever plugin produced it.
    struct FakePreemption;

    impl Plugin for FakePreemption {
        fn name(&self) -> &'static str {
            "FakePreemption"
        }
    }

    impl PostFilterPlugin for FakePreemption {
        fn post_filter(
            &self,
            _: &Ctx<'_>,
            _: &dyn PluginsRunner,
            _: &CycleState,
            pod: &PodInfo,
            _: &BTreeMap<String, Status>,
        ) -> (PostFilterTrace, Status) {
            if pod.pod.key.name != "high" {
                return (PostFilterTrace::default(), Status::unschedulable("no victims"));
            }
            let trace = PostFilterTrace {
                nominated_node: Some("n1".into()),
                victims: vec![ObjectKey::new("default", "low")],
                ..Default::default()
            };
            (trace, Status::success())
        }
    }

    const SNAP: &str = r"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}
- apiVersion: v1
  kind: Pod
  metadata: {name: low, namespace: default}
  spec: {nodeName: n1, priority: 0, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: other, namespace: default}
  spec: {priority: 50, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}
  status: {nominatedNodeName: n1}
- apiVersion: v1
  kind: Pod
  metadata: {name: high, namespace: default}
  spec: {priority: 100, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}
";

    #[test]
    fn preemption_deletes_victims_nominates_and_binds_on_the_next_pass() {
        let v = Release::NEWEST;
        let mut fw = Framework::default_profile(v).unwrap();
        fw.post_filter = vec![Arc::new(FakePreemption)];
        let profiles = vec![fw];
        let r = simulate(load_str("t", SNAP).unwrap(), &profiles, v, SimOptions::default());
        let k = |n: &str| ObjectKey::new("default", n);
        assert_eq!(r.evicted, vec![k("low")]);
        let kinds: Vec<(String, String)> = r
            .events
            .iter()
            .map(|e| {
                let what = match &e.kind {
                    EventKind::Attempt { outcome, .. } => match outcome {
                        AttemptOutcome::Preempting { node, victims, .. } => format!("preempts on {node} {victims:?}"),
                        AttemptOutcome::Bound(n) => format!("bound {n}"),
                        AttemptOutcome::Unschedulable(_) => "unschedulable".into(),
                        o => format!("{o:?}"),
                    },
                    EventKind::Evicted { node, by } => format!("evicted from {node} by {by}"),
                    EventKind::NominationCleared { node } => format!("nomination {node} cleared"),
                    EventKind::NominatedForExpectation { node } => format!("nominated {node} for expectation"),
                    EventKind::WaitEnded { .. } => "wait ended".into(),
                };
                (e.pod.name.to_string(), what)
            })
            .collect();
        let s = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(
            kinds,
            vec![
                s(
                    "high",
                    "preempts on n1 [ObjectKey { namespace: \"default\", name: \"low\" }]"
                ),
                s("low", "evicted from n1 by default/high"),
                s("other", "nomination n1 cleared"),
                s("other", "unschedulable"),
                s("high", "bound n1"),
                s("other", "unschedulable"),
                // Pass 3: nothing changes any more.
                s("other", "unschedulable"),
            ]
        );
        assert_eq!(r.passes, 3);
        assert_eq!(
            r.pods,
            vec![
                (
                    k("high"),
                    FinalState::Bound {
                        node: "n1".into(),
                        at_ms: 1000
                    }
                ),
                (
                    k("other"),
                    FinalState::Pending {
                        message: "0/1 nodes are available: 1 Insufficient cpu. no victims".into(),
                        nominated: None
                    }
                ),
            ]
        );
        assert!(r.converged);
        assert_eq!(r.snapshot.node("n1").unwrap().pods.len(), 1);
    }

    #[test]
    fn queues_follow_each_profiles_queue_sort() {
        let text = r"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Pod, metadata: {name: b, namespace: x, creationTimestamp: '2024-01-01T00:00:01Z'}, spec: {containers: [{name: c}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: a, namespace: x, creationTimestamp: '2024-01-01T00:00:02Z'}, spec: {containers: [{name: c}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: hi, namespace: x, creationTimestamp: '2024-01-01T00:00:03Z'}, spec: {priority: 5, containers: [{name: c}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: g2, namespace: x, creationTimestamp: '2024-01-01T00:00:00Z', labels: {scheduling.x-k8s.io/pod-group: pg}}, spec: {schedulerName: scheduler-plugins-scheduler, containers: [{name: c}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: g1, namespace: x, creationTimestamp: '2024-01-01T00:00:09Z', labels: {scheduling.x-k8s.io/pod-group: pg}}, spec: {schedulerName: scheduler-plugins-scheduler, containers: [{name: c}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: solo, namespace: x, creationTimestamp: '2024-01-01T00:00:05Z'}, spec: {schedulerName: scheduler-plugins-scheduler, containers: [{name: c}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: lost, namespace: x}, spec: {schedulerName: nobody, containers: [{name: c}]}}
- {apiVersion: scheduling.x-k8s.io/v1alpha1, kind: PodGroup, metadata: {name: pg, namespace: x, creationTimestamp: '2024-01-01T00:00:07Z'}, spec: {minMember: 2}}
";
        let c = load_str("t", text).unwrap();
        let profiles = crate::engine::build_profiles(None, Release::NEWEST).unwrap();
        let names: Vec<Vec<String>> = queues(&c, &profiles)
            .into_iter()
            .map(|q| q.into_iter().map(|k| k.name.into()).collect())
            .collect();
        // PrioritySort: priority, then creation. Coscheduling: the group's creation time for
        // members (07s), the pod's own otherwise (solo: 05s), then namespace/name.
        assert_eq!(
            names,
            vec![
                vec!["hi".to_string(), "b".into(), "a".into()],
                vec!["solo".into(), "g1".into(), "g2".into()],
                vec!["lost".into()],
            ]
        );
    }

    /// `simulate --start-node`: every cycle's search starts where the last one stopped
    /// (TestFairEvaluationForNodes' rotation): on 150 nodes that all fit, three pods start at
    /// 10, 110 and 60 (100 processed each), and each is scored on the nodes found from there.
    #[test]
    fn each_cycle_starts_where_the_last_search_stopped() {
        let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
        for i in 0..150 {
            text.push_str(&format!(
                "- {{apiVersion: v1, kind: Node, metadata: {{name: n{i:03}}}, status: {{allocatable: {{cpu: '8', memory: 4Gi, pods: '10'}}}}}}\n"
            ));
        }
        for i in 0..3 {
            text.push_str(&format!(
                "- {{apiVersion: v1, kind: Pod, metadata: {{name: p{i}, namespace: x, creationTimestamp: '2024-01-01T00:00:0{i}Z'}}, spec: {{containers: [{{name: c}}]}}}}\n"
            ));
        }
        let c = load_str("t", &text).unwrap();
        let profiles = crate::engine::build_profiles(None, Release::NEWEST).unwrap();
        let r = simulate(
            c,
            &profiles,
            Release::NEWEST,
            SimOptions {
                start_node: Some(10),
                ..Default::default()
            },
        );
        let starts: Vec<(String, Option<usize>, Option<usize>, String)> = r
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Attempt { explanation, .. } => {
                    let t = explanation.sampling.as_ref()?;
                    let found = t.found.as_ref()?;
                    Some((e.pod.name.to_string(), t.start, t.next_start, found[0].clone()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            starts,
            vec![
                ("p0".to_string(), Some(10), Some(110), "n010".to_string()),
                ("p1".to_string(), Some(110), Some(60), "n110".to_string()),
                ("p2".to_string(), Some(60), Some(10), "n060".to_string()),
            ]
        );
    }
}
