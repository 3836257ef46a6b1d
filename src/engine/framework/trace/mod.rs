//! The explanation: everything one scheduling attempt did, per extension point, per plugin and
//! per node. Every front end (JSON, text, TUI) only reads this.

use std::sync::Arc;

use serde::Serialize;

use super::status::{Code, Reasons, Status};
use crate::model::ObjectKey;

mod text;

pub use text::*;

/// A failing filter status on a node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FilterFailure {
    /// Plugin ("" for a PreFilter rejection that no single plugin owns).
    pub plugin: &'static str,
    /// Code.
    pub code: Code,
    /// Reasons.
    pub reasons: Reasons,
}

/// How a node fared at Filter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NodeFilter {
    /// Node.
    pub node: NodeName,
    /// Passed every filter (with and without nominated pods).
    pub feasible: bool,
    /// The verdict as upstream records it: the first failing plugin (None when feasible or
    /// when PreFilter excluded the node).
    pub failure: Option<FilterFailure>,
    /// PreFilter's node set did not include this node: no filter ran.
    pub excluded_by_prefilter: bool,
    /// The rejection happened only with the nominated pods counted on the node.
    pub rejected_by_nominated_pods: Vec<ObjectKey>,
    /// Diagnostic pass (not upstream): every filter plugin's failure on the node, without
    /// nominated pods. Never changes feasibility.
    pub all_failures: Vec<FilterFailure>,
    /// Not upstream: what the rejecting plugin knows about why (e.g. the pods whose
    /// anti-affinity matched), without nominated pods. Empty when the plugin says nothing.
    pub detail: Lines,
    /// Diagnostic numbers a failing filter plugin gave for this node (not upstream output).
    pub details: Vec<FilterDetail>,
}

/// Numbers behind a filter plugin's verdict on one node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum FilterDetail {
    /// PodTopologySpread: one entry per DoNotSchedule constraint checked, in order, up to the
    /// first that fails.
    TopologySpread(Vec<SpreadCheck>),
}

/// One PodTopologySpread constraint evaluated on one node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpreadCheck {
    /// topologyKey.
    pub topology_key: String,
    /// whenUnsatisfiable.
    pub when_unsatisfiable: String,
    /// maxSkew.
    pub max_skew: i32,
    /// minDomains (1 when unset).
    pub min_domains: i32,
    /// Number of eligible domains of the key.
    pub domains: usize,
    /// The node's domain (None: the node lacks the key).
    pub domain: Option<String>,
    /// Matching pods already in the node's domain.
    pub match_num: i64,
    /// Whether the incoming pod matches the selector itself (adds 1).
    pub self_match: bool,
    /// Global minimum used (0 when fewer than minDomains domains exist); None when upstream
    /// skips the constraint because no domain was found.
    pub global_min: Option<i64>,
    /// A domain holding the global minimum (the first by name), when the minimum is not
    /// forced to 0 by minDomains.
    pub global_min_domain: Option<String>,
    /// matchNum + selfMatch - globalMin.
    pub skew: Option<i64>,
    /// skew <= maxSkew.
    pub satisfied: bool,
}

/// PodTopologySpread's numbers for the pod's own constraints (kschedtui extra, recomputed
/// after the cycle as the plugin computes them): every domain's matching pods per constraint,
/// and Score's arithmetic per scored node.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SpreadTrace {
    /// The DoNotSchedule constraints (PreFilter's counts), then the ScheduleAnyway ones
    /// (PreScore's counts, over the scored nodes' domains), each in spec order.
    pub constraints: Vec<SpreadDomains>,
    /// Score per scored node, by node name (empty when PreScore did not run or skipped).
    pub scores: Vec<SpreadScore>,
    /// NormalizeScore's smallest and largest raw score over the nodes not ignored.
    pub normalize: Option<(i64, i64)>,
}

/// One constraint and the matching pods in each of its domains.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpreadDomains {
    /// whenUnsatisfiable.
    pub when_unsatisfiable: String,
    /// topologyKey.
    pub topology_key: String,
    /// maxSkew.
    pub max_skew: i32,
    /// minDomains (1 when unset).
    pub min_domains: i32,
    /// The incoming pod matches the selector (adds 1 to its domain's count at Filter).
    pub self_match: bool,
    /// Every domain with its matching pods, by value (a hostname constraint's Score domains
    /// are the scored nodes).
    pub domains: Vec<(String, i64)>,
    /// DoNotSchedule: the global minimum Filter uses (0 when fewer than minDomains domains);
    /// None when upstream skips the constraint.
    pub global_min: Option<i64>,
    /// ScheduleAnyway: `ln(domains + 2)`, in millionths (Score multiplies each count by it).
    pub weight_micros: Option<i64>,
}

/// PodTopologySpread's Score on one node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpreadScore {
    /// The node.
    pub node: String,
    /// The node lacks a topology key: NormalizeScore gives it 0.
    pub ignored: bool,
    /// Per ScheduleAnyway constraint: the matching pods counted for the node's domain (None
    /// when the node lacks the key: the constraint adds nothing).
    pub counts: Vec<Option<i64>>,
    /// `Σ count × weight + maxSkew - 1`, in millionths, before rounding.
    pub sum_micros: i64,
    /// Score(): the sum rounded.
    pub raw: i64,
    /// After NormalizeScore: `100 × (max + min - raw) / max` (100 when max is 0).
    pub normalized: i64,
}

/// One plugin's score on one node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PluginScore {
    /// Plugin.
    pub plugin: &'static str,
    /// Score().
    pub raw: i64,
    /// After NormalizeScore.
    pub normalized: i64,
    /// Weight.
    pub weight: i64,
    /// normalized × weight.
    pub weighted: i64,
}

/// A feasible node's scores.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NodeScoreTrace {
    /// Node.
    pub node: String,
    /// Sum of weighted scores.
    pub total: i64,
    /// Per plugin, sorted by plugin name.
    pub plugins: Vec<PluginScore>,
}

/// A preemption candidate node.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Candidate {
    /// Node.
    pub node: String,
    /// Pods that would be evicted, in upstream's order (most important first).
    pub victims: Vec<ObjectKey>,
    /// Victims whose eviction violates a PDB.
    pub pdb_violations: usize,
    /// Why the node was or was not chosen.
    pub note: String,
    /// The victims' priorities, in the order of `victims`.
    pub victim_priorities: Vec<i32>,
    /// True for the node preemption nominates.
    pub selected: bool,
    /// The node-picking criterion that decided for or against this node ("" when it was the
    /// only candidate).
    pub criterion: String,
    /// The PodDisruptionBudgets evicting the victims would violate (more of the pods they
    /// cover evicted than status.disruptionsAllowed), by key.
    pub violated_pdbs: Vec<ObjectKey>,
}

/// What PostFilter (preemption) did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PostFilterTrace {
    /// Plugin.
    pub plugin: String,
    /// Code.
    pub code: Option<Code>,
    /// Nominated node.
    pub nominated_node: Option<String>,
    /// Victims on it.
    pub victims: Vec<ObjectKey>,
    /// Status message when preemption did not help.
    pub message: String,
    /// Candidates evaluated.
    pub candidates: Vec<Candidate>,
    /// Per-node statuses of the dry run (node → reasons) where preemption could not help,
    /// sorted by node.
    pub node_notes: Vec<(String, String)>,
    /// How many candidates the dry run looked for (DefaultPreemptionArgs), when it ran.
    pub candidates_wanted: Option<usize>,
    /// The candidates that tie on every criterion of pickOneNodeForPreemption, by name, when
    /// more than one does and they are the best: upstream takes the first of its map's
    /// iteration order, at random (kschedtui takes the smallest name).
    pub random_tie: Vec<String>,
}

/// A plugin's status at Reserve, Permit, PreBind, Bind, PostBind or Unreserve.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CyclePluginStatus {
    /// Plugin.
    pub plugin: String,
    /// Code.
    pub code: Code,
    /// Reasons.
    pub reasons: Vec<String>,
    /// Permit with Wait: how long the plugin lets the pod wait (ms, capped at 15 minutes).
    pub timeout_ms: Option<u64>,
    /// kschedtui's remarks (what the plugin would do; not upstream text).
    pub notes: Vec<String>,
}

impl CyclePluginStatus {
    /// From a status.
    pub fn new(plugin: &str, s: &Status, notes: Vec<String>) -> Self {
        CyclePluginStatus {
            plugin: plugin.to_string(),
            code: s.code,
            reasons: s.reasons.to_strings(),
            timeout_ms: None,
            notes,
        }
    }
}

/// How the binding cycle ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BindingOutcome {
    /// Bound (or, in a one-off explanation, would bind).
    Bound,
    /// Waiting at Permit.
    Waiting,
    /// A plugin rejected the pod (Reserve, Permit, the wait, PreBind or Bind); it goes back to
    /// the queue.
    Rejected,
    /// A plugin failed with an error.
    Error,
}

impl BindingOutcome {
    /// The name.
    pub fn as_str(self) -> &'static str {
        match self {
            BindingOutcome::Bound => "Bound",
            BindingOutcome::Waiting => "Waiting",
            BindingOutcome::Rejected => "Rejected",
            BindingOutcome::Error => "Error",
        }
    }
}

/// Reserve → Permit → (WaitOnPermit) → PreBind → Bind → PostBind on the selected node
/// (schedule_one.go `schedulingCycle` tail and `bindingCycle`), with Unreserve on failure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BindingCycleTrace {
    /// The node the pod is assumed on: among tied nodes, up to 1.34 upstream samples one at
    /// random and kschedtui takes the first by name; from 1.35 the root of upstream's score heap
    /// for name order (`Explanation::host_pick`). The others are in `tied_with`.
    pub node: String,
    /// Other nodes tied at the top score.
    pub tied_with: Vec<String>,
    /// Reserve, in order.
    pub reserve: Vec<CyclePluginStatus>,
    /// Permit, in order.
    pub permit: Vec<CyclePluginStatus>,
    /// The wait at Permit, when a plugin asked for one: the result of `WaitOnPermit` once known
    /// (None while still waiting).
    pub wait_result: Option<PluginStatus>,
    /// PreBind, in order.
    pub pre_bind: Vec<CyclePluginStatus>,
    /// Bind, in order (until the first plugin that does not Skip).
    pub bind: Vec<CyclePluginStatus>,
    /// PostBind, in order.
    pub post_bind: Vec<CyclePluginStatus>,
    /// Unreserve after a failure, in the order run (the reverse of Reserve).
    pub unreserve: Vec<CyclePluginStatus>,
    /// How it ended.
    pub outcome: BindingOutcome,
    /// The extension point that failed or is waiting.
    pub stopped_at: Option<String>,
    /// The status message upstream records when the pod does not bind (for a rejection, the
    /// PodScheduled message "0/1 nodes are available: ...").
    pub message: Option<String>,
    /// A pod waiting at Permit: the points that run once the wait ends with Allow, with their
    /// plugins (they have not run yet).
    pub after_wait: Vec<(String, Vec<String>)>,
    /// NominatedNodeNameForExpectation (1.35+): the binding cycle sets status.nominatedNodeName
    /// to the node before WaitOnPermit, because the pod waits or a PreBind plugin has work.
    pub nominates: bool,
    /// What the PreBind plugins send to the API server before the Binding, in order (empty
    /// until PreBind ran: a pod waiting at Permit has none yet).
    pub writes: Vec<crate::model::write::WriteRequest>,
    /// What the PreBind plugins would also write that kschedtui cannot plan (a bind is then
    /// refused, naming it).
    pub unplanned: Vec<String>,
}

impl BindingCycleTrace {
    /// What binding the pod on this node writes before the Binding (the nomination and the
    /// PreBind requests), for [`crate::model::write::bind_plan`].
    pub fn binding_writes(&self) -> crate::model::write::BindingWrites {
        crate::model::write::BindingWrites {
            nominate: self.nominates,
            pre_bind: self.writes.clone(),
            unplanned: self.unplanned.clone(),
        }
    }
}

/// A member of a gang waiting at Permit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitingMember {
    /// The pod.
    pub pod: ObjectKey,
    /// The node it is assumed on.
    pub node: String,
    /// How long it has waited (ms).
    pub waited_ms: u64,
    /// Time left before its Permit times out (ms).
    pub time_left_ms: u64,
}

/// A pod group (gang) as a Permit plugin sees it (Coscheduling), when the attempt starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GangTrace {
    /// The plugin.
    pub plugin: String,
    /// `namespace/name` of the group.
    pub group: String,
    /// The PodGroup object exists.
    pub found: bool,
    /// spec.minMember (the quorum).
    pub min_member: i32,
    /// Pods of the group in the cluster (not finished).
    pub members: usize,
    /// Members bound or assumed on a node (waiting ones included), this pod excluded.
    pub assigned: usize,
    /// Permit timeout (ms): the group's scheduleTimeoutSeconds, else the plugin's default.
    pub timeout_ms: u64,
    /// Members waiting at Permit now, by key.
    pub waiting: Vec<WaitingMember>,
    /// Members not on a node and not waiting (still to be scheduled), this pod excluded, by key.
    pub unplaced: Vec<ObjectKey>,
    /// 1.37's GangScheduling PlacementFeasible checks in the pod-group cycle (None before 1.37
    /// and for Coscheduling).
    pub placement_feasible: Option<PlacementFeasibleTrace>,
    /// 1.37: the member a PreEnqueue plugin holds, which holds the whole group before the
    /// queue (this pod included).
    pub held_with: Option<HeldMember>,
}

/// A group member held before the queue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeldMember {
    /// The member.
    pub pod: ObjectKey,
    /// The PreEnqueue plugin holding it.
    pub plugin: String,
    /// Its message.
    pub reason: String,
}

/// GangScheduling's PlacementFeasible (1.37) for the pod's group: its verdict before any
/// member is tried, and after this pod's own attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlacementFeasibleTrace {
    /// The quorum it checks: the gang's minCount, 1 for a basic group.
    pub min_count: i32,
    /// Before any member is tried: the members already scheduled (bound or assumed) and the
    /// members the cycle is to try (this pod included).
    pub before: PlacementCheck,
    /// After this pod's attempt (one fewer remaining, one more scheduled if it found a node);
    /// None when the cycle would not try it (`before` was Unschedulable).
    pub after_this_pod: Option<PlacementCheck>,
}

/// One PlacementFeasible verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlacementCheck {
    /// Members scheduled (bound or assumed).
    pub scheduled: usize,
    /// Members still to try.
    pub remaining: usize,
    /// The verdict: Success, Wait, or Unschedulable.
    pub code: Code,
    /// Its reason ("" for Success).
    pub reason: String,
}

/// The pod's resource claims as DynamicResources sees them, and what each node could give.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DraTrace {
    /// The pod's claims, in spec order (the extended-resource claim last).
    pub claims: Vec<DraClaim>,
    /// Per node: what the unallocated claims could get there.
    pub nodes: Vec<DraNode>,
}

/// One claim of the pod.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DraClaim {
    /// The pod's name for it (`spec.resourceClaims[].name`; "" for the extended-resource claim).
    pub pod_claim: String,
    /// The ResourceClaim (`namespace/name`), when resolved.
    pub claim: Option<ObjectKey>,
    /// "allocated" (with where), "to allocate", or why it cannot be used.
    pub state: String,
    /// Pods it is reserved for.
    pub reserved_for: Vec<String>,
    /// Its device requests, one line each (`gpu: 2 of class gpu.example.com where ...`).
    pub requests: Vec<String>,
    /// Allocated devices (`request: driver/pool/device`).
    pub devices: Vec<String>,
}

/// What one node could give the pod's unallocated claims.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DraNode {
    /// Node.
    pub node: String,
    /// The allocation's outcome: "allocated", "cannot allocate all claims", an error, ...
    pub verdict: String,
    /// Per (sub)request: how the node's devices narrow down.
    pub requests: Vec<DraRequestOnNode>,
    /// The devices the allocation picked (`claim/request: driver/pool/device`).
    pub allocation: Vec<String>,
}

/// How a node's devices narrow down for one request or subrequest.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DraRequestOnNode {
    /// `claim/request` (or `claim/request/subrequest`).
    pub request: String,
    /// Devices wanted ("all" for All).
    pub wanted: String,
    /// Devices the node can see (its pools).
    pub devices: usize,
    /// Of them, matching the DeviceClass's selectors.
    pub class_match: usize,
    /// Of them, also matching the request's selectors.
    pub selector_match: usize,
    /// Of them, not in use by another claim.
    pub free: usize,
    /// Of them, not tainted (or tolerated) and with counters and capacity left: usable.
    pub usable: usize,
    /// The first selector error, if one failed to evaluate.
    pub error: Option<String>,
    /// Devices that matched the selectors but cannot be used, with why (`gpu-1: in use by
    /// ml/train-gpu`).
    pub near: Vec<String>,
    /// The request's DeviceClass (not in the JSON; read by the fix hints).
    pub class: String,
    /// Devices of the class the request's selectors leave out, as (ResourceSlice, device),
    /// up to 16 (not in the JSON; read by the fix hints).
    pub unselected: Vec<(String, String)>,
    /// The usable devices, as (ResourceSlice, device), up to 16 (not in the JSON; read by the
    /// fix hints).
    pub usable_devices: Vec<(String, String)>,
}

impl DraRequestOnNode {
    /// One line: `c/gpu wants 2: 4 device(s), 4 of the class, 2 match the selectors, 1 free,
    /// 1 usable`.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} wants {}: {} device(s), {} of the class, {} match the selectors, {} free, {} usable",
            self.request, self.wanted, self.devices, self.class_match, self.selector_match, self.free, self.usable
        );
        if let Some(e) = &self.error {
            s.push_str(&format!("; error: {e}"));
        }
        s
    }
}

/// One thing a plugin read from the pod, stated from the value it computed with (kschedtui
/// extra, not upstream output; not in the explain JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fact {
    /// What it is (`effective requests`).
    pub label: String,
    /// Its value in words (`cpu 1.5, memory 1Gi`).
    pub value: String,
}

impl Fact {
    /// A fact.
    pub fn new(label: impl Into<String>, value: impl Into<String>) -> Self {
        Fact {
            label: label.into(),
            value: value.into(),
        }
    }

    /// A list fact: the items joined by `, `, or `none` (and `when_empty` after it) when
    /// there are none.
    pub fn list(label: impl Into<String>, items: &[String], when_empty: &str) -> Self {
        let value = if items.is_empty() {
            if when_empty.is_empty() {
                "none".to_string()
            } else {
                format!("none {when_empty}")
            }
        } else {
            items.join(", ")
        };
        Fact::new(label, value)
    }
}

/// An amount of a named resource, exactly, in its natural unit: CPU in cores or millicores
/// (`1.5`, `250m`), byte amounts with the largest binary suffix that keeps them exact to a
/// tenth (`1Gi`, `1.5Gi`, else bytes), other resources as counts.
pub fn amount(resource: &str, v: i64) -> String {
    match resource {
        "cpu" => {
            if v % 1000 == 0 {
                (v / 1000).to_string()
            } else if v.abs() >= 1000 && v % 100 == 0 {
                format!("{}.{}", v / 1000, (v % 1000).abs() / 100)
            } else {
                format!("{v}m")
            }
        }
        "memory" | "ephemeral-storage" => bytes(v),
        r if r.starts_with("hugepages-") => bytes(v),
        _ => v.to_string(),
    }
}

fn bytes(v: i64) -> String {
    const UNITS: [(&str, i64); 5] = [
        ("Pi", 1 << 50),
        ("Ti", 1 << 40),
        ("Gi", 1 << 30),
        ("Mi", 1 << 20),
        ("Ki", 1 << 10),
    ];
    for (suffix, unit) in UNITS {
        if v.abs() < unit {
            continue;
        }
        if v % unit == 0 {
            return format!("{}{suffix}", v / unit);
        }
        let tenths = i128::from(v) * 10;
        if tenths % i128::from(unit) == 0 {
            let t = tenths / i128::from(unit);
            return format!("{}.{}{suffix}", t / 10, (t % 10).abs());
        }
    }
    v.to_string()
}

/// `name amount` pairs (`cpu 1.5, memory 1Gi`).
pub fn amounts<'a>(pairs: impl IntoIterator<Item = (&'a str, i64)>) -> Vec<String> {
    pairs
        .into_iter()
        .map(|(k, v)| format!("{k} {}", amount(k, v)))
        .collect()
}

/// The explanation of one pod.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Explanation {
    /// The pod.
    pub pod: ObjectKey,
    /// Profile (schedulerName) used.
    pub profile: String,
    /// The release reproduced.
    pub release: crate::engine::release::Release,
    /// The `--feature-gates` overrides it ran with ("" for none).
    pub feature_gates: String,
    /// Nodes in the snapshot.
    pub node_count: usize,
    /// Set when no profile serves the pod's schedulerName.
    pub waiting_for_scheduler: Option<String>,
    /// PreEnqueue statuses (scheduling gates).
    pub pre_enqueue: Vec<PluginStatus>,
    /// PreFilter plugins that ran, in order.
    pub pre_filter: Vec<PluginStatus>,
    /// PreFilter's node set, sorted, when it narrowed the nodes.
    pub pre_filter_node_names: Option<Vec<String>>,
    /// Nominated node tried first (status.nominatedNodeName), and whether it passed.
    pub nominated_node: Option<(String, bool)>,
    /// Filter verdicts, sorted by node.
    pub filter: Vec<NodeFilter>,
    /// PreScore statuses.
    pub pre_score: Vec<PluginStatus>,
    /// Scores of feasible nodes, sorted by node.
    pub score: Vec<NodeScoreTrace>,
    /// Where the pod would go (ties listed).
    pub selected: Vec<String>,
    /// 1.35+ with tied nodes: the one kube-scheduler takes when the nodes pass Filter in name
    /// order (the root of its score heap); upstream's order depends on which filter worker
    /// finishes first, so another tied node is possible on a real cluster.
    pub host_pick: Option<String>,
    /// The PodScheduled condition message when the pod is not schedulable.
    pub message: Option<String>,
    /// PostFilter, when it ran.
    pub post_filter: Option<PostFilterTrace>,
    /// Extension points after Score, as names of the plugins that would run there.
    pub later_points: Vec<(String, Vec<String>)>,
    /// Remarks about gaps (plugins not reproduced yet, ...).
    pub notes: Vec<String>,
    /// Reserve through PostBind on the selected node (None when no node was selected).
    pub binding_cycle: Option<BindingCycleTrace>,
    /// The pod's gang, when a Permit plugin groups pods.
    pub gang: Option<GangTrace>,
    /// The pod's resource claims, node by node (DynamicResources, for a pod with claims).
    pub dra: Option<DraTrace>,
    /// Whether opportunistic batching (1.35+) can apply to the pod.
    pub batching: Option<Batching>,
    /// PodTopologySpread's domains and Score arithmetic, for a pod with its own constraints.
    pub topology_spread: Option<SpreadTrace>,
    /// What percentageOfNodesToScore does to the cycle (clusters of 100 nodes and more, a
    /// profile without Score plugins, or a cycle run from a start index).
    pub sampling: Option<crate::engine::framework::sampling::SamplingTrace>,
}

impl Explanation {
    /// An explanation of `pod` before any extension point ran.
    pub fn empty(
        pod: ObjectKey,
        profile: String,
        features: &crate::engine::release::Features,
        node_count: usize,
    ) -> Self {
        Explanation {
            pod,
            profile,
            release: features.release(),
            feature_gates: features.overrides().to_string(),
            node_count,
            waiting_for_scheduler: None,
            pre_enqueue: Vec::new(),
            pre_filter: Vec::new(),
            pre_filter_node_names: None,
            nominated_node: None,
            filter: Vec::new(),
            pre_score: Vec::new(),
            score: Vec::new(),
            selected: Vec::new(),
            host_pick: None,
            message: None,
            post_filter: None,
            later_points: Vec::new(),
            notes: Vec::new(),
            binding_cycle: None,
            gang: None,
            dra: None,
            batching: None,
            topology_spread: None,
            sampling: None,
        }
    }

    /// Drops the node-by-node parts (Filter verdicts, scores, PreFilter's node set,
    /// preemption candidates and per-node notes, DRA per node) and keeps the pod-level result:
    /// statuses per extension point, the selected node, the message, the nominated node and
    /// victims, the binding cycle and the gang. For reports of many attempts.
    pub fn summarize(&mut self) {
        self.filter = Vec::new();
        self.score = Vec::new();
        self.pre_filter_node_names = None;
        if let Some(pf) = &mut self.post_filter {
            pf.candidates = Vec::new();
            pf.node_notes = Vec::new();
        }
        self.dra = None;
        self.topology_spread = None;
        if let Some(s) = &mut self.sampling {
            s.found = None;
        }
    }

    /// Why the scheduler would not put the pod on `node` (every failing filter plugin with its
    /// reasons), or None when the node passes Filter.
    pub fn why_not(&self, node: &str) -> Option<String> {
        let Some(f) = self.filter.iter().find(|f| f.node == node) else {
            return Some(match &self.message {
                Some(m) => format!("the scheduler would not place the pod: {m}"),
                None => format!("the scheduler did not evaluate {node}"),
            });
        };
        if f.feasible {
            return None;
        }
        if f.excluded_by_prefilter {
            return Some(format!(
                "the scheduler would not choose {node}: not in PreFilter's node set"
            ));
        }
        let failures: Vec<&FilterFailure> = if f.all_failures.is_empty() {
            f.failure.iter().collect()
        } else {
            f.all_failures.iter().collect()
        };
        let text: Vec<String> = failures
            .iter()
            .map(|fl| format!("{}: {}", fl.plugin, fl.reasons.join(", ")))
            .collect();
        Some(format!("the scheduler would not choose {node}: {}", text.join("; ")))
    }

    /// Where the attempt ends, in one word (the top-level `outcome` of the explain JSON).
    pub fn outcome(&self) -> Outcome {
        if self.waiting_for_scheduler.is_some() {
            return Outcome::OtherScheduler;
        }
        if self.pre_enqueue.iter().any(|s| s.code != Code::Success)
            || self.gang.as_ref().is_some_and(|g| g.held_with.is_some())
        {
            return Outcome::HeldBeforeQueue;
        }
        if self.schedulable() {
            return match self.binding_cycle.as_ref().map(|b| b.outcome) {
                None | Some(BindingOutcome::Bound) => Outcome::Schedulable,
                Some(BindingOutcome::Waiting) => Outcome::WaitingAtPermit,
                Some(BindingOutcome::Rejected) => Outcome::RejectedInBindingCycle,
                Some(BindingOutcome::Error) => Outcome::SchedulerError,
            };
        }
        if self.post_filter.as_ref().is_some_and(|p| p.nominated_node.is_some()) {
            return Outcome::PreemptionNominates;
        }
        let error = self.pre_filter.iter().any(|s| s.code == Code::Error)
            || self
                .filter
                .iter()
                .any(|f| f.failure.as_ref().is_some_and(|x| x.code == Code::Error));
        if error {
            Outcome::SchedulerError
        } else {
            Outcome::Unschedulable
        }
    }

    /// True when a node was selected.
    pub fn schedulable(&self) -> bool {
        !self.selected.is_empty()
    }

    /// One-line verdict.
    pub fn verdict(&self) -> String {
        if let Some(s) = &self.waiting_for_scheduler {
            return format!("Pending: no profile serves schedulerName '{s}'; the pod waits for that scheduler");
        }
        // held before the queue: never Unschedulable (no cycle ran, and the scheduler writes
        // no condition for it)
        if let Some(p) = self.pre_enqueue.iter().find(|s| s.code != Code::Success) {
            return format!("Held before the queue by {}: {}", p.plugin, p.reasons.join(", "));
        }
        if let Some(h) = self.gang.as_ref().and_then(|g| g.held_with.as_ref()) {
            return format!(
                "Held before the queue with its pod group: {} is held by {}: {}",
                h.pod, h.plugin, h.reason
            );
        }
        if let Some(b) = &self.binding_cycle {
            match b.outcome {
                BindingOutcome::Bound => {}
                BindingOutcome::Waiting => {
                    return format!(
                        "Waiting at Permit on {}: {}",
                        b.node,
                        b.message.clone().unwrap_or_default()
                    );
                }
                BindingOutcome::Rejected | BindingOutcome::Error => {
                    return format!(
                        "Not scheduled: {} failed on {}: {}",
                        b.stopped_at.clone().unwrap_or_default(),
                        b.node,
                        b.message.clone().unwrap_or_default()
                    );
                }
            }
        }
        if !self.selected.is_empty() {
            if self.selected.len() == 1 {
                return format!("Schedulable: would bind to {}", self.selected[0]);
            }
            return format!(
                "Schedulable: {} nodes tie at the top ({})",
                self.selected.len(),
                self.selected.join(", ")
            );
        }
        match &self.post_filter {
            Some(pf) if pf.nominated_node.is_some() => format!(
                "Unschedulable now; preemption would nominate {} and evict {} pod(s)",
                pf.nominated_node.as_deref().unwrap_or_default(),
                pf.victims.len()
            ),
            _ => format!("Unschedulable: {}", self.message.clone().unwrap_or_default()),
        }
    }
}

/// Where a pod's scheduling attempt ends: the one word a pipeline or an agent reads instead of
/// inferring it from `selected`, `postFilter`, `preEnqueue` and `bindingCycle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Outcome {
    /// A node was selected and the binding cycle would bind it there.
    Schedulable,
    /// No node fits; preemption finds no victims that would help (or is not configured).
    Unschedulable,
    /// No node fits now; preemption would evict victims and nominate a node
    /// (`postFilter.nominatedNode`); the pod is retried there once they are gone.
    PreemptionNominates,
    /// A node was selected and the pod is assumed there, waiting at Permit (a gang's quorum).
    WaitingAtPermit,
    /// A node was selected, then a plugin of the binding cycle (Reserve, Permit, PreBind,
    /// Bind) rejected the pod: it goes back to the queue.
    RejectedInBindingCycle,
    /// A plugin returned an error (PreFilter, Filter or the binding cycle): upstream writes
    /// the condition reason SchedulerError and retries after a backoff.
    SchedulerError,
    /// A PreEnqueue plugin holds the pod (or, 1.37, its pod group) before the scheduling
    /// queue: no cycle runs, no event is written.
    HeldBeforeQueue,
    /// No profile of this scheduler serves the pod's schedulerName.
    OtherScheduler,
}

impl Outcome {
    /// Every outcome, in the order of the documentation.
    pub const ALL: [Outcome; 8] = [
        Outcome::Schedulable,
        Outcome::Unschedulable,
        Outcome::PreemptionNominates,
        Outcome::WaitingAtPermit,
        Outcome::RejectedInBindingCycle,
        Outcome::SchedulerError,
        Outcome::HeldBeforeQueue,
        Outcome::OtherScheduler,
    ];

    /// The name, as the JSON writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Schedulable => "Schedulable",
            Outcome::Unschedulable => "Unschedulable",
            Outcome::PreemptionNominates => "PreemptionNominates",
            Outcome::WaitingAtPermit => "WaitingAtPermit",
            Outcome::RejectedInBindingCycle => "RejectedInBindingCycle",
            Outcome::SchedulerError => "SchedulerError",
            Outcome::HeldBeforeQueue => "HeldBeforeQueue",
            Outcome::OtherScheduler => "OtherScheduler",
        }
    }
}

/// What opportunistic batching (1.35+) can do for one pod (computed by
/// `framework::batching`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum Batching {
    /// The profile never signs: these plugins do not implement SignPlugin.
    ProfileUnsigned {
        /// The plugins, in profile order.
        plugins: Vec<String>,
    },
    /// kschedtui does not know whether these plugins sign pods at this release.
    Unknown {
        /// The plugins.
        plugins: Vec<String>,
    },
    /// A plugin refuses to sign the pod: the full cycle always runs.
    Unsigned {
        /// The first plugin that refused, in signing order.
        plugin: String,
        /// Its reason.
        reason: String,
    },
    /// The pod is signed: the real scheduler may have placed it on a batching hint.
    Signed,
}

impl Batching {
    /// One line for the report.
    pub fn describe(&self) -> String {
        match self {
            Batching::ProfileUnsigned { plugins } => format!(
                "opportunistic batching: off for this profile ({} do(es) not sign pods); every pod gets the full cycle shown",
                plugins.join(", ")
            ),
            Batching::Unknown { plugins } => format!(
                "opportunistic batching: kschedtui does not know whether {} sign(s) pods at this release; if they do, the real scheduler may have placed this pod without scoring (see below)",
                plugins.join(", ")
            ),
            Batching::Unsigned { plugin, reason } => format!(
                "opportunistic batching: not for this pod ({plugin}: {reason}); it always gets the full cycle shown"
            ),
            Batching::Signed => "opportunistic batching: this pod can be signed; if the cycle just before (within 500 ms) placed a pod with the same signature and Filter now rejects that pod's node, the real scheduler tries only the next node of that cycle's ranking and, if it fits, binds there without scoring".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// An explanation holds a Filter record per node (65,000 at the largest size, written
    /// at every explain): 208 bytes with the lines' text boxed in std's `OnceLock` (224
    /// unboxed; once_cell's 8-byte `OnceBox` was retired for std's lock, 8 bytes a node).
    #[test]
    fn a_filter_record_is_208_bytes_at_most() {
        let size = std::mem::size_of::<NodeFilter>();
        assert!(size <= 208, "NodeFilter is {size} bytes");
    }

    #[test]
    fn node_lines_are_written_by_the_shared_source_once_when_first_read() {
        struct Count(AtomicUsize);
        impl NodeLines for Count {
            fn lines(&self, node: &crate::model::Node) -> Vec<String> {
                self.0.fetch_add(1, Ordering::SeqCst);
                vec![format!("about {}", node.name)]
            }
        }
        let source = Arc::new(Count(AtomicUsize::new(0)));
        let node = |name: &str| {
            let mut obj = k8s_openapi::api::core::v1::Node::default();
            obj.metadata.name = Some(name.to_string());
            Arc::new(crate::model::Node::from_obj(obj).expect("a node"))
        };
        let a = Lines::for_node(source.clone(), node("a"));
        let b = Lines::for_node(source.clone(), node("b"));
        assert_eq!(source.0.load(Ordering::SeqCst), 0, "nothing written before a read");
        assert_eq!(b.get(), ["about b"]);
        assert_eq!(a.get(), ["about a"]);
        assert_eq!(a.get(), ["about a"]);
        assert_eq!(source.0.load(Ordering::SeqCst), 2, "once per node read");
    }

    #[test]
    fn a_node_name_shared_with_its_node_is_the_name_in_every_use() {
        let mut obj = k8s_openapi::api::core::v1::Node::default();
        obj.metadata.name = Some("node-b".to_string());
        let node = Arc::new(crate::model::Node::from_obj(obj).expect("a node"));
        let shared = NodeName::of(&node);
        assert_eq!(Arc::strong_count(&node), 2, "the node shared, not its name copied");
        let text = NodeName::from("node-b");
        assert_eq!(shared, text);
        assert_eq!(shared.as_str(), "node-b");
        let owned = String::from("node-b");
        assert_eq!(shared, "node-b");
        assert_eq!("node-b", shared);
        assert_eq!(shared, owned);
        assert_eq!(owned, shared);
        assert!(shared != "node-a");
        let mut names = [
            NodeName::from("node-c".to_string()),
            shared.clone(),
            NodeName::from("node-a"),
        ];
        names.sort();
        assert_eq!(names.map(|n| n.to_string()), ["node-a", "node-b", "node-c"]);
        assert_eq!(format!("{shared} {shared:?}"), r#"node-b "node-b""#);
        assert_eq!(serde_json::to_string(&shared).expect("json"), r#""node-b""#);
        let set: std::collections::HashSet<NodeName> = [shared.clone(), text.clone()].into();
        assert_eq!(set.len(), 1, "the same name hashes and compares equal");
        assert!(set.contains("node-b"), "looked up by &str");
        let map: std::collections::BTreeMap<NodeName, u8> = [(shared, 1)].into();
        assert_eq!(map.get("node-b"), Some(&1));
    }

    #[test]
    fn lazy_lines_are_written_once_when_first_read() {
        let calls = Arc::new(AtomicUsize::new(0));
        let c = calls.clone();
        let lines = Lines::lazy(move || {
            c.fetch_add(1, Ordering::SeqCst);
            vec!["a".to_string(), "b".to_string()]
        });
        let copy = lines.clone();
        assert_eq!(calls.load(Ordering::SeqCst), 0, "nothing written before a read");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines.get(), ["a", "b"]);
        assert_eq!(calls.load(Ordering::SeqCst), 1, "written once");
        assert_eq!(copy, Lines::from(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(
            calls.load(Ordering::SeqCst),
            2,
            "a copy taken before the read writes its own"
        );
        assert_eq!(serde_json::to_string(&lines).expect("json"), r#"["a","b"]"#);
        assert_eq!(format!("{lines:?}"), r#"["a", "b"]"#);
        assert!(Lines::default().is_empty());
    }

    #[test]
    fn amounts_are_exact_in_their_natural_unit() {
        let cases = [
            ("cpu", 1500, "1.5"),
            ("cpu", 2000, "2"),
            ("cpu", 250, "250m"),
            ("cpu", 1250, "1250m"),
            ("cpu", 0, "0"),
            ("memory", 1 << 30, "1Gi"),
            ("memory", 3 << 29, "1.5Gi"),
            ("memory", 1280 << 20, "1280Mi"),
            ("memory", (1 << 30) + 1, "1073741825"),
            ("memory", 200 << 20, "200Mi"),
            ("ephemeral-storage", 0, "0"),
            ("hugepages-2Mi", 4 << 20, "4Mi"),
            ("example.com/gpu", 2, "2"),
        ];
        for (r, v, want) in cases {
            assert_eq!(amount(r, v), want, "{r} {v}");
        }
        assert_eq!(
            amounts([("cpu", 1500), ("memory", 1 << 30)]),
            vec!["cpu 1.5", "memory 1Gi"]
        );
        assert_eq!(
            Fact::list("host ports", &[], "(the plugin skips)").value,
            "none (the plugin skips)"
        );
    }
}
