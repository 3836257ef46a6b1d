//! The descheduler's dry run, with the answer its own `--dry-run` cannot give: where every
//! evicted pod would land. Reproduces descheduler v0.36 (kubernetes-sigs/descheduler): the
//! policy ([`policy`]), the DefaultEvictor ([`evictor`]), the eviction limits ([`limits`]),
//! each plugin in its own module named as upstream's package, and the cycle of
//! pkg/descheduler/descheduler.go `runProfiles` (ready nodes matching the policy's
//! nodeSelector; nothing when fewer than two; every profile's Deschedule plugins, then every
//! profile's Balance plugins, each in the order the profile enables them). Evictions are
//! applied in memory through the Eviction API of [`crate::model::apiserver`], so later
//! plugins see the pods gone (as the descheduler's dry-run sandbox does), and
//! PodDisruptionBudgets refuse what they would refuse. Then [`reschedule`] creates each
//! evicted pod's replacement as its controller would and schedules them with
//! [`crate::engine::simulate`].
//!
//! Pure and deterministic: "now" is an argument; where upstream iterates a Go map (pods per
//! owner, nodes per group) or sorts unstably, kschedtui visits in name order and says so.
//! Pod priorities are the resolved ones (the Priority admission plugin sets spec.priority on
//! every pod of a real cluster; a hand-written snapshot may leave it to the class).

pub mod anti_affinity;
pub mod duplicates;
pub mod evictor;
pub mod failed_pods;
pub mod limits;
pub mod node_affinity;
pub mod node_taints;
pub mod node_utilization;
pub mod pod_lifetime;
pub mod pods;
pub mod policy;
pub mod reschedule;
pub mod too_many_restarts;
pub mod topology_spread;

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::jiff::Timestamp;

use crate::model::{Cluster, Node, ObjectKey, Pod};
use evictor::Evictor;
use limits::{EvictError, PodEvictor};
use policy::{Policy, Profile};

/// Why a pod was looked at, and what became of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Evicted (in memory).
    Evicted,
    /// The evictor protects it: the DefaultEvictor rules that refused it.
    Protected(Vec<String>),
    /// A limit stopped the eviction (upstream's error message).
    Limited(String),
    /// The eviction was sent and refused (a PodDisruptionBudget, ...).
    Failed(String),
    /// The plugin skipped it before asking the evictor (its own rule, e.g. the destination
    /// nodes' taints for the utilization plugins).
    Skipped(String),
}

/// One pod a plugin considered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The pod.
    pub pod: ObjectKey,
    /// Its node.
    pub node: String,
    /// Why it qualifies (the plugin's rule, with its numbers).
    pub reason: String,
    /// What became of it.
    pub outcome: Outcome,
}

/// How a plugin goes on after [`Ctx::filter_and_evict`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// The pod was evicted: on to the next pod.
    Evicted,
    /// Not evicted (protected, a namespace limit, a refusal): on to the next pod.
    Pod,
    /// The node's limit is reached: on to the next node.
    Node,
    /// The total limit is reached: the plugin stops.
    Stop,
}

/// An extension point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    /// Deschedule.
    Deschedule,
    /// Balance.
    Balance,
}

impl Point {
    /// Upstream's name.
    pub fn name(self) -> &'static str {
        match self {
            Point::Deschedule => "Deschedule",
            Point::Balance => "Balance",
        }
    }
}

/// One plugin's run.
#[derive(Clone, Debug, PartialEq)]
pub struct PluginRun {
    /// The profile.
    pub profile: String,
    /// The plugin.
    pub plugin: String,
    /// The extension point.
    pub point: Point,
    /// What the plugin found before choosing pods (node classification, skipped owners, ...).
    pub notes: Vec<String>,
    /// The pods it considered, in the order it did.
    pub candidates: Vec<Candidate>,
    /// An error that ended the plugin's run (upstream's status error), if any.
    pub error: Option<String>,
}

impl PluginRun {
    /// The pods this plugin evicted.
    pub fn evicted(&self) -> impl Iterator<Item = &Candidate> {
        self.candidates.iter().filter(|c| c.outcome == Outcome::Evicted)
    }
}

/// What a descheduling cycle did.
#[derive(Clone, Debug)]
pub struct CycleReport {
    /// "now" as given.
    pub now: Timestamp,
    /// The nodes the cycle ran on (ready, matching the policy's nodeSelector), in name order.
    pub nodes: Vec<String>,
    /// Why the cycle did nothing, when it did nothing by rule (fewer than two nodes).
    pub skipped: Option<String>,
    /// The plugin runs, in the order they ran.
    pub runs: Vec<PluginRun>,
    /// The cluster after the evictions.
    pub cluster: Cluster,
    /// The evicted pods as they were before eviction, in eviction order, with the plugin.
    pub evicted: Vec<(Arc<Pod>, String)>,
}

/// What a cycle cannot run with (a profile upstream would refuse to build, a priority class
/// the evictor names that does not exist, a plugin kschedtui does not reproduce).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CycleError {
    /// A profile does not build.
    #[error("{0}")]
    Profile(String),
    /// The DefaultEvictor's arguments cannot be resolved against the cluster.
    #[error("in profile {profile}: {message}")]
    Evictor {
        /// The profile.
        profile: String,
        /// Upstream's message.
        message: String,
    },
    /// The policy's nodeSelector does not parse.
    #[error("policy field 'nodeSelector': {0}")]
    NodeSelector(String),
    /// A plugin kschedtui does not reproduce is enabled (none of v0.36's registered plugins
    /// today; kept for plugins a later release registers).
    #[error(
        "profile \"{profile}\" enables {plugin}, which kschedtui does not reproduce yet; remove it from plugins.{point} to run the others"
    )]
    NotReproduced {
        /// The profile.
        profile: String,
        /// The plugin.
        plugin: String,
        /// The point it is enabled at.
        point: String,
    },
    /// A plugin's arguments ask for something kschedtui does not reproduce.
    #[error("in profile {profile}: {plugin}: {message}")]
    Unsupported {
        /// The profile.
        profile: String,
        /// The plugin.
        plugin: String,
        /// What.
        message: String,
    },
}

/// The state a plugin sees: the cluster as evictions leave it, the profile's evictor, the
/// global eviction limits, "now", and the trace being written.
pub struct Ctx<'a> {
    /// The cluster (evictions applied).
    pub cluster: Cluster,
    /// Pods by node name (every phase), in key order.
    pub by_node: BTreeMap<String, Vec<Arc<Pod>>>,
    /// The evictor of the running profile.
    pub evictor: &'a Evictor,
    /// Limits and counters.
    pub pod_evictor: &'a mut PodEvictor,
    /// Now.
    pub now: Timestamp,
    /// The current plugin's trace.
    pub run: PluginRun,
    /// Evicted pods, in order.
    pub evicted: &'a mut Vec<(Arc<Pod>, String)>,
}

/// Indexes bound pods by node.
pub fn index_by_node(cluster: &Cluster) -> BTreeMap<String, Vec<Arc<Pod>>> {
    let mut m: BTreeMap<String, Vec<Arc<Pod>>> = BTreeMap::new();
    for p in &cluster.pods {
        if let Some(n) = &p.node_name {
            m.entry(n.to_string()).or_default().push(p.clone());
        }
    }
    m
}

impl Ctx<'_> {
    /// Every pod on the node (`ListAllPodsOnANode`), in key order.
    pub fn all_pods_on(&self, node: &str) -> Vec<Arc<Pod>> {
        self.by_node.get(node).cloned().unwrap_or_default()
    }

    /// The pods on the node that have not finished (`ListPodsOnANode`).
    pub fn pods_on(&self, node: &str) -> Vec<Arc<Pod>> {
        self.by_node
            .get(node)
            .into_iter()
            .flatten()
            .filter(|p| !p.is_finished())
            .cloned()
            .collect()
    }

    /// The DefaultEvictor's Filter, with the rules that refuse the pod.
    pub fn filter(&self, pod: &Pod) -> Result<(), Vec<String>> {
        self.evictor.filter(&self.cluster, pod, self.now)
    }

    /// The DefaultEvictor's PreEvictionFilter, with why it refuses the pod.
    pub fn pre_eviction_filter(&self, pod: &Pod) -> Result<(), String> {
        self.evictor.pre_eviction_filter(&self.cluster, &self.by_node, pod)
    }

    /// Both filters (the `podFilter` most Deschedule plugins list pods with).
    pub fn both_filters(&self, pod: &Pod) -> Result<(), Vec<String>> {
        self.filter(pod)?;
        self.pre_eviction_filter(pod).map_err(|e| vec![e])
    }

    /// A pod a Deschedule plugin's rule selected: the `podFilter` both filters make (a refusal
    /// is recorded as protected), then the eviction; says how the plugin goes on.
    pub fn filter_and_evict(&mut self, pod: &Arc<Pod>, reason: String) -> Next {
        if let Err(why) = self.both_filters(pod) {
            self.protected(pod, reason, why);
            return Next::Pod;
        }
        match self.evict(pod, reason) {
            Ok(()) => Next::Evicted,
            Err(EvictError::Node) => Next::Node,
            Err(EvictError::Total) => Next::Stop,
            Err(EvictError::Namespace | EvictError::Failed(_)) => Next::Pod,
        }
    }

    /// Records a pod the plugin's rule selected but the evictor protects.
    pub fn protected(&mut self, pod: &Pod, reason: String, why: Vec<String>) {
        self.record(pod, reason, Outcome::Protected(why));
    }

    /// Records a pod the plugin skipped by its own rule.
    pub fn skipped(&mut self, pod: &Pod, reason: String, why: String) {
        self.record(pod, reason, Outcome::Skipped(why));
    }

    fn record(&mut self, pod: &Pod, reason: String, outcome: Outcome) {
        self.run.candidates.push(Candidate {
            pod: pod.key.clone(),
            node: pod.node_name.as_deref().unwrap_or_default().to_string(),
            reason,
            outcome,
        });
    }

    /// A note of the plugin's run.
    pub fn note(&mut self, s: String) {
        self.run.notes.push(s);
    }

    /// `Evictor().Evict`: the limits, then the Eviction API; records the outcome.
    pub fn evict(&mut self, pod: &Arc<Pod>, reason: String) -> Result<(), EvictError> {
        let r = self.pod_evictor.evict(&mut self.cluster, pod);
        let outcome = match &r {
            Ok(()) => {
                if let Some(n) = &pod.node_name
                    && let Some(list) = self.by_node.get_mut(&**n)
                {
                    list.retain(|p| p.key != pod.key);
                }
                self.evicted.push((pod.clone(), self.run.plugin.clone()));
                Outcome::Evicted
            }
            Err(e @ (EvictError::Node | EvictError::Namespace | EvictError::Total)) => Outcome::Limited(e.to_string()),
            Err(EvictError::Failed(m)) => Outcome::Failed(m.clone()),
        };
        self.record(pod, reason, outcome);
        r
    }
}

/// `nodeutil.IsReady`: no Ready condition other than True.
pub fn is_ready(node: &Node) -> bool {
    node.obj
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_none_or(|cs| cs.iter().all(|c| c.type_ != "Ready" || c.status == "True"))
}

/// Runs one descheduling cycle of `policy` on `cluster` at `now`.
pub fn run_cycle(cluster: Cluster, policy: &Policy, now: Timestamp) -> Result<CycleReport, CycleError> {
    cycle(cluster, policy, now, true)
}

/// The cycle; `min_nodes` false runs the plugins even on one node (as upstream's plugin unit
/// tests call them directly).
fn cycle(cluster: Cluster, policy: &Policy, now: Timestamp, min_nodes: bool) -> Result<CycleReport, CycleError> {
    for p in &policy.profiles {
        policy::check_profile(p).map_err(CycleError::Profile)?;
        for n in &p.plugins.balance.enabled {
            if let Some(policy::PluginArgs::LowNodeUtilization(a)) = p.config(n).map(|c| &c.args)
                && a.metrics_utilization.is_some()
            {
                return Err(CycleError::Unsupported {
                    profile: p.name.clone(),
                    plugin: n.clone(),
                    message: "metricsUtilization (actual usage from metrics) is not reproduced; kschedtui evaluates requests, as by default".into(),
                });
            }
        }
    }
    let evictors: Vec<Evictor> = policy
        .profiles
        .iter()
        .map(|p| {
            Evictor::new(&p.evictor_args(), &cluster).map_err(|message| CycleError::Evictor {
                profile: p.name.clone(),
                message,
            })
        })
        .collect::<Result<_, _>>()?;
    let selector = match &policy.node_selector {
        Some(s) => crate::model::selector::Selector::parse(s).map_err(CycleError::NodeSelector)?,
        None => crate::model::selector::Selector::everything(),
    };
    let nodes: Vec<Arc<Node>> = cluster
        .nodes
        .iter()
        .filter(|n| selector.matches(&n.labels) && is_ready(n))
        .cloned()
        .collect();
    let node_names = nodes.iter().map(|n| n.name.clone()).collect();
    let mut report = CycleReport {
        now,
        nodes: node_names,
        skipped: None,
        runs: Vec::new(),
        cluster: Cluster::default(),
        evicted: Vec::new(),
    };
    if min_nodes && nodes.len() <= 1 {
        report.skipped = Some(format!(
            "Skipping descheduling cycle: requires >=2 nodes (found {})",
            nodes.len()
        ));
        report.cluster = cluster;
        return Ok(report);
    }
    let mut pod_evictor = PodEvictor::new(policy);
    let mut cluster = cluster;
    let mut evicted = Vec::new();
    for point in [Point::Deschedule, Point::Balance] {
        for (profile, evictor) in policy.profiles.iter().zip(&evictors) {
            let names = match point {
                Point::Deschedule => &profile.plugins.deschedule.enabled,
                Point::Balance => &profile.plugins.balance.enabled,
            };
            for name in names {
                let by_node = index_by_node(&cluster);
                let mut ctx = Ctx {
                    cluster,
                    by_node,
                    evictor,
                    pod_evictor: &mut pod_evictor,
                    now,
                    run: PluginRun {
                        profile: profile.name.clone(),
                        plugin: name.clone(),
                        point,
                        notes: Vec::new(),
                        candidates: Vec::new(),
                        error: None,
                    },
                    evicted: &mut evicted,
                };
                run_plugin(&mut ctx, profile, name, &nodes);
                report.runs.push(ctx.run);
                cluster = ctx.cluster;
            }
        }
    }
    report.cluster = cluster;
    report.evicted = evicted;
    Ok(report)
}

fn run_plugin(ctx: &mut Ctx<'_>, profile: &Profile, name: &str, nodes: &[Arc<Node>]) {
    use policy::PluginArgs as A;
    let Some(cfg) = profile.config(name) else { return };
    match &cfg.args {
        A::InterPodAntiAffinity(a) => anti_affinity::deschedule(ctx, a, nodes),
        A::NodeAffinity(a) => node_affinity::deschedule(ctx, a, nodes),
        A::NodeTaints(a) => node_taints::deschedule(ctx, a, nodes),
        A::FailedPods(a) => failed_pods::deschedule(ctx, a, nodes),
        A::TooManyRestarts(a) => too_many_restarts::deschedule(ctx, a, nodes),
        A::PodLifeTime(a) => pod_lifetime::deschedule(ctx, a, nodes),
        A::RemoveDuplicates(a) => duplicates::balance(ctx, a, nodes),
        A::LowNodeUtilization(a) => node_utilization::low(ctx, a, nodes),
        A::HighNodeUtilization(a) => node_utilization::high(ctx, a, nodes),
        A::TopologySpread(a) => topology_spread::balance(ctx, a, nodes),
        A::DefaultEvictor(_) => {}
    }
}

#[cfg(test)]
pub(crate) mod testutil;
