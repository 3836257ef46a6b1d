//! The terminal-free brain of the TUI (the Model of the Elm architecture): [`App`] holds the
//! cluster, the explanations and what the user is looking at; [`update`] is its only mutator and
//! returns [`Effect`]s for the terminal layer to run. No terminal, no tokio, no file I/O and no
//! clock live here (time arrives as [`Action::Tick`]), so every key flow is a unit test on data.
//!
//! - [`action`]: user intents and arriving data; [`effect`]: work for the runtime.
//! - [`update`]: the state machine. [`keymap`]: the one key table (dispatch, help, hints).
//! - [`pod_list`]: rows, fuzzy search, sorting, filters, kept until their inputs change;
//!   [`node_list`]: the same for `:nodes`. [`reason`]: the list's decisive reason per pod.
//!   [`stepper`]: the pipeline over an explanation.
//! - [`analysis`]: node usage, what is missing on nodes that nearly fit, reason counts.
//! - [`deschedule`]: the `:deschedule FILE` screen's rows (the descheduler dry run).
//! - [`whatif`]: in-memory edits (inline forms, YAML), bind and preempt. [`diff`]: trace diffs.

pub(crate) mod action;
pub(crate) mod analysis;
pub mod deschedule;
pub(crate) mod describe;
pub(crate) mod diff;
pub(crate) mod effect;
pub mod export;
pub mod fix;
pub(crate) mod format;
pub(crate) mod keymap;
pub mod node_list;
pub mod pod_list;
pub mod reason;
pub mod stepper;
pub mod update;
pub(crate) mod whatif;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use action::{Action, ListProgress};
pub use effect::{DescheduleJob, Effect, ExplainJob, FitJob, FixJob, GroupJob};
pub use update::update;

use crate::engine::framework::trace::Explanation;
use crate::engine::{Features, Framework};
use crate::model::write::{Plan, Removal, WriteMode, bind_plan, preempt_plan};
use crate::model::{Cluster, ObjectKey, Pod};
use analysis::NodeUsage;
use diff::TraceDiff;
use pod_list::PodListState;
use stepper::Step;
use whatif::EditForm;

/// Where the cluster came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// A snapshot file or directory.
    Snapshot,
    /// The bundled demo cluster.
    Demo,
    /// A live cluster (the current kubeconfig context): writes are sent to it.
    Live,
}

/// The source, for the header and the confirmations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceInfo {
    /// Its kind.
    pub kind: SourceKind,
    /// Its name (file path or "demo").
    pub name: String,
}

/// A loaded cluster with the profiles to explain it with.
pub struct Loaded {
    /// The cluster.
    pub cluster: Cluster,
    /// The scheduler profiles.
    pub profiles: Vec<Framework>,
    /// The release and gates reproduced.
    pub features: Arc<Features>,
}

/// A live cluster's state as read and watched, from which [`App::cluster`] is rebuilt.
pub struct Attached {
    /// Every object listed, with the resourceVersions per kind.
    pub state: crate::model::event::ClusterState,
    /// The scheduler profiles.
    pub profiles: Vec<Framework>,
    /// The release and gates reproduced (the server's release unless given).
    pub features: Arc<Features>,
    /// How writes are sent.
    pub write_mode: WriteMode,
}

/// What the app keeps of a live cluster.
#[derive(Clone, Debug)]
pub struct LiveView {
    /// The store the watch events apply to.
    pub state: crate::model::event::ClusterState,
    /// Watch events arrived since the cluster was last rebuilt (rebuilt at the next tick).
    pub dirty: bool,
    /// Only FailedScheduling events changed since the last rebuild: the engine does not read
    /// them, so the next tick rebuilds the cluster without explaining anything again.
    pub events_dirty: bool,
    /// Events applied since attaching.
    pub events: u64,
    /// The view follows the cluster: changes are applied at the next tick. When false (`F`,
    /// or a what-if edit), the explanations stay on the state they were computed on until
    /// Ctrl-r.
    pub follow: bool,
    /// Watch events that changed the store since the cluster was last rebuilt.
    pub changes_since: u64,
    /// The newest resourceVersion the cluster shown was built from.
    pub seen_rv: String,
    /// How writes are sent.
    pub write_mode: WriteMode,
    /// A write plan is being sent (no second one until it is done).
    pub writing: bool,
    /// Permissions checked before the actions are offered, by [`access_key`], with the time
    /// of the answer (Unix seconds; rechecked after [`ACCESS_TTL`]).
    pub access: BTreeMap<String, (Access, i64)>,
    /// Preemptions sent whose victims are not all gone yet, or gone and not bound yet.
    pub awaiting: Vec<AwaitingVictims>,
    /// What the watch events changed in the store since the cluster shown was built from
    /// it: applied to that cluster object by object at the next rebuild.
    pub unapplied: crate::model::live_update::Unapplied,
    /// The pods bound to a node the cluster shown does not have, by that node's name (the
    /// usage per node takes them when the node comes).
    pub unplaced: BTreeMap<String, Vec<Arc<Pod>>>,
}

/// The newest resourceVersion of a store (they share one counter on a real API server), or
/// the per-kind list when they are not numbers.
pub fn newest_rv(state: &crate::model::event::ClusterState) -> String {
    let nums: Option<Vec<u64>> = state.resource_versions.values().map(|v| v.parse().ok()).collect();
    match nums.and_then(|n| n.into_iter().max()) {
        Some(n) => n.to_string(),
        None => state.resource_version_summary(),
    }
}

/// Seconds an access answer is trusted before it is asked again (the confirmation always
/// asks again).
pub const ACCESS_TTL: i64 = 60;

/// The permission a request needs, as one key: one review per verb, resource and namespace
/// (as `check_plan` asks).
pub fn access_key(r: &crate::model::write::WriteRequest) -> String {
    r.access().to_string()
}

/// What a SelfSubjectAccessReview said about one permission (verb, resource, namespace).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// Asked; no answer yet.
    Checking,
    /// Allowed.
    Allowed,
    /// Refused: why (one line naming the verb and resource).
    Denied(String),
    /// The check itself failed (the action is still offered; the confirmation asks again).
    Unknown(String),
}

/// A preemption that was sent: its preemptor waits for the victims to be gone before it is
/// offered for binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AwaitingVictims {
    /// The preemptor.
    pub pod: ObjectKey,
    /// The nominated node.
    pub node: String,
    /// The victims with the uid they had (a pod recreated under the same name is not the
    /// victim).
    pub victims: Vec<(ObjectKey, Option<String>)>,
    /// Every victim is gone (the offer to bind was made).
    pub gone: bool,
}

/// Loading state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Load {
    /// The cluster is being read.
    Loading,
    /// Reading failed (the message is shown; `q` quits with an error).
    Failed(String),
    /// Ready.
    Ready,
}

/// An explanation, or why there is none.
pub type Explained = Result<Arc<Explanation>, String>;

/// A gang's pass (None: the pod is in no gang), or the engine's error.
pub type GroupResult = Result<Option<Arc<crate::engine::group_cycle::GroupCycle>>, String>;

/// How many full explanations are kept on a small cluster (the pods on screen are always
/// kept); every pending pod keeps its [`Summary`]. A pod whose explanation was dropped is
/// explained again when opened.
pub const FULL_KEEP: usize = 32;

/// Node records (a Filter row per node and pod) the kept full explanations may hold in all:
/// each explanation has one per node, so a big cluster keeps fewer of them.
const FULL_KEEP_NODE_RECORDS: usize = 40_000;

/// How many full explanations are kept on a cluster of `nodes` nodes: [`FULL_KEEP`] up to
/// 1,250 nodes, then fewer (8 at 5,000 nodes, never under 4).
pub fn full_keep(nodes: usize) -> usize {
    (FULL_KEEP_NODE_RECORDS / nodes.max(1)).clamp(4, FULL_KEEP)
}

/// What the pod list and the actions need of a pod's explanation, kept for every pending pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The decisive reason in a few words (the list's reason column, [`reason::decisive`]).
    pub line: String,
    /// Bytes of `line` naming the reason itself (what `r` compares).
    pub key: std::ops::Range<usize>,
    /// Nodes the decisive reason excludes (0: not a Filter reason).
    pub nodes: usize,
    /// Upstream's message as one line ("" for a pod that fits).
    pub upstream: String,
    /// A node fits.
    pub schedulable: bool,
    /// No profile serves the pod's schedulerName.
    pub waiting: bool,
    /// Held before the queue (a PreEnqueue plugin, or 1.37 its pod group, holds it).
    pub held: bool,
    /// The selected node(s), ties included.
    pub selected: Vec<String>,
    /// 1.35+: kube-scheduler's pick among tied nodes for name order.
    pub host_pick: Option<String>,
    /// PostFilter's nominated node and victims, when preemption would help.
    pub preemption: Option<(String, Vec<ObjectKey>)>,
    /// PostFilter ran without finding a node (its message).
    pub preemption_failed: Option<String>,
    /// The node the binding cycle binds the pod to and what it writes first there (the
    /// nomination and the PreBind requests).
    pub binding: Option<(String, crate::model::write::BindingWrites)>,
    /// The pod would wait at Permit for its gang: why it may not be bound alone.
    pub gang_wait: Option<String>,
    /// The gang the pod belongs to (its group's name), if any: its pass tells the group's
    /// story ([`App::gang_pass`]).
    pub gang: Option<String>,
}

impl Summary {
    /// The decisive reason without its node count (what `r` compares).
    pub fn reason_key(&self) -> &str {
        self.line.get(self.key.clone()).unwrap_or(&self.line)
    }

    /// The summary of an explanation.
    pub fn of(ex: &Explanation) -> Self {
        let pf = ex.post_filter.as_ref();
        let d = reason::decisive(ex);
        Summary {
            line: d.text,
            key: d.key,
            nodes: d.nodes,
            upstream: reason::upstream_line(ex),
            schedulable: ex.schedulable(),
            waiting: ex.waiting_for_scheduler.is_some(),
            held: ex.outcome() == crate::engine::framework::trace::Outcome::HeldBeforeQueue,
            selected: ex.selected.clone(),
            host_pick: ex.host_pick.clone(),
            preemption: pf.and_then(|p| p.nominated_node.clone().map(|n| (n, p.victims.clone()))),
            preemption_failed: pf.filter(|p| p.nominated_node.is_none()).map(|p| p.message.clone()),
            binding: ex
                .binding_cycle
                .as_ref()
                .filter(|b| b.outcome == crate::engine::framework::trace::BindingOutcome::Bound)
                .map(|b| (b.node.clone(), b.binding_writes())),
            gang_wait: ex
                .binding_cycle
                .as_ref()
                .filter(|b| b.outcome == crate::engine::framework::trace::BindingOutcome::Waiting)
                .map(|b| crate::engine::commit::gang_refusal(&ex.pod, &b.node, ex.gang.as_ref())),
            gang: ex.gang.as_ref().map(|g| g.group.clone()),
        }
    }
}

/// Which values the Score matrix shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScoreMode {
    /// What Score() returned.
    Raw,
    /// After NormalizeScore.
    Normalized,
    /// Normalized × weight (what is summed).
    #[default]
    Weighted,
}

impl ScoreMode {
    /// The next mode (raw → normalized → weighted → raw).
    pub fn next(self) -> Self {
        match self {
            ScoreMode::Raw => ScoreMode::Normalized,
            ScoreMode::Normalized => ScoreMode::Weighted,
            ScoreMode::Weighted => ScoreMode::Raw,
        }
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            ScoreMode::Raw => "raw",
            ScoreMode::Normalized => "normalized",
            ScoreMode::Weighted => "weighted",
        }
    }
}

/// Sort orders of the Filter node table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FilterSort {
    /// Feasible nodes, then the nodes that nearly fit (smallest shortfall first), then the rest.
    #[default]
    Fit,
    /// Node name.
    Name,
    /// First failing plugin, then node name.
    Plugin,
    /// Zone, then node name.
    Zone,
}

impl FilterSort {
    /// The next sort order.
    pub fn next(self) -> Self {
        match self {
            FilterSort::Fit => FilterSort::Name,
            FilterSort::Name => FilterSort::Plugin,
            FilterSort::Plugin => FilterSort::Zone,
            FilterSort::Zone => FilterSort::Fit,
        }
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            FilterSort::Fit => "fit",
            FilterSort::Name => "name",
            FilterSort::Plugin => "plugin",
            FilterSort::Zone => "zone",
        }
    }
}

/// The pod view: one pod's trip through the pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodView {
    /// The pod.
    pub pod: ObjectKey,
    /// Where the stepper is (None until the explanation arrives).
    pub step: Option<Step>,
    /// Selected row of the panel's table.
    pub selected: usize,
    /// Filter table: show every failing plugin per node (the diagnostic pass).
    pub all_failures: bool,
    /// Filter table sort order.
    pub filter_sort: FilterSort,
    /// Filter table text filter (fuzzy, on node, zone, plugin and reason).
    pub query: String,
    /// Score matrix values.
    pub score_mode: ScoreMode,
    /// Show the diff with the trace before the last what-if edit.
    pub show_diff: bool,
}

impl PodView {
    /// A pod view at no step yet.
    pub fn new(pod: ObjectKey) -> Self {
        PodView {
            pod,
            step: None,
            selected: 0,
            all_failures: false,
            filter_sort: FilterSort::Fit,
            query: String::new(),
            score_mode: ScoreMode::Weighted,
            show_diff: false,
        }
    }
}

/// The node view: one node, seen from a pod when there is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeView {
    /// The node.
    pub node: String,
    /// The pod whose fit is explained (the pod view it was opened from).
    pub pod: Option<ObjectKey>,
    /// Scroll offset of the lists.
    pub scroll: u16,
}

/// The node list (`:nodes`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeList {
    /// Selected row.
    pub selected: usize,
    /// The pod whose fit the list shows, if any.
    pub pod: Option<ObjectKey>,
    /// Text filter.
    pub query: String,
    /// The sorted column (k9s: Shift+letter).
    pub sort: node_list::NodeSortKey,
    /// Reverse the order.
    pub reverse: bool,
}

/// A screen on the stack above the pod list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Screen {
    /// One pod.
    Pod(PodView),
    /// One node.
    Node(NodeView),
    /// Every node.
    Nodes(NodeList),
    /// The scheduling queue: where each pending pod waits.
    Queue(QueueView),
    /// A gang as a whole: its members, the quorum, who blocks it.
    Gang(GangView),
    /// The descheduler dry run of `:deschedule FILE` (its result is [`App::deschedule`]).
    Deschedule(DescheduleView),
    /// The FailedScheduling events of a pod, or of every pod (`:events`).
    Events(EventsView),
    /// Every message shown so far and the load warnings (`:messages`).
    Messages(MessagesView),
    /// A read-only text: an object's YAML (`y`).
    Text(TextView),
    /// A pod's "to fix" lines, checked by the engine (`F`, `:fix`).
    Fixes(FixesView),
}

/// The fixes screen of one pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixesView {
    /// The pod.
    pub pod: ObjectKey,
    /// The selected fix.
    pub selected: usize,
}

/// A read-only text screen, scrolled by line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextView {
    /// Title ("Pod shop/web-1 · YAML").
    pub title: String,
    /// The text, by line.
    pub lines: Vec<String>,
    /// The first line shown.
    pub scroll: usize,
}

impl Screen {
    /// The search text of a screen that has one: the node list's, the pod view's (it filters
    /// the Filter table).
    pub fn query(&self) -> Option<&str> {
        match self {
            Screen::Pod(v) => Some(&v.query),
            Screen::Nodes(v) => Some(&v.query),
            _ => None,
        }
    }

    /// [`query`](Self::query), to type into.
    pub fn query_mut(&mut self) -> Option<&mut String> {
        match self {
            Screen::Pod(v) => Some(&mut v.query),
            Screen::Nodes(v) => Some(&mut v.query),
            _ => None,
        }
    }
}

/// The events screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventsView {
    /// The pod whose events are listed (None: every pod's).
    pub pod: Option<ObjectKey>,
    /// Selected row.
    pub selected: usize,
}

/// The messages screen (newest first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MessagesView {
    /// Selected row.
    pub selected: usize,
}

/// The descheduler dry run screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DescheduleView {
    /// Selected row.
    pub selected: usize,
}

/// The gang screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GangView {
    /// The member it was opened from.
    pub pod: ObjectKey,
    /// Selected member row.
    pub selected: usize,
}

/// The queue screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueView {
    /// Selected row.
    pub selected: usize,
}

/// A write waiting for confirmation, with everything the dialog lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pending {
    /// Bind a pod to a node.
    Bind {
        /// The pod.
        pod: ObjectKey,
        /// The node.
        node: String,
        /// Set when the scheduler would not choose this node (why).
        warning: Option<String>,
    },
    /// Evict the victims PostFilter chose and nominate the node.
    Preempt {
        /// The preemptor.
        pod: ObjectKey,
        /// The nominated node.
        node: String,
        /// The pods to evict.
        victims: Vec<ObjectKey>,
    },
}

impl Pending {
    /// Dialog title.
    pub fn title(&self) -> String {
        match self {
            Pending::Bind { pod, node, .. } => format!("Bind {pod} to {node}?"),
            Pending::Preempt { pod, node, victims } => {
                format!("Preempt {} pod(s) on {node} for {pod}?", victims.len())
            }
        }
    }
}

/// Input modes.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Keys drive the screens.
    #[default]
    Normal,
    /// Typing a search (the top screen's query).
    Search,
    /// Typing a `:` command.
    Command(String),
    /// A confirmation dialog.
    Confirm(Pending),
    /// `q` with in-memory changes that no `:w` holds: quit and lose them?
    ConfirmQuit,
    /// The help overlay.
    Help {
        /// Scroll offset.
        scroll: u16,
    },
    /// The inline what-if form.
    Edit(EditForm),
}

/// Kind of status-line message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusKind {
    /// Information.
    Info,
    /// Something went wrong or was refused.
    Error,
    /// Worth knowing, not an error (a load warning).
    Warning,
}

impl StatusKind {
    /// As the messages view names it.
    pub fn word(self) -> &'static str {
        match self {
            StatusKind::Info => "info",
            StatusKind::Error => "error",
            StatusKind::Warning => "warning",
        }
    }
}

/// A message the status line showed (or a load warning), kept for `:messages`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// When (Unix seconds, the last tick), if a tick was seen.
    pub at: Option<i64>,
    /// Kind.
    pub kind: StatusKind,
    /// Text.
    pub text: String,
}

/// The kubeconfig's contexts, for `:ctx`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contexts {
    /// The context attached to.
    pub current: String,
    /// Every context of the kubeconfig, in its order.
    pub all: Vec<String>,
}

/// Messages kept for `:messages`; older ones are dropped (and counted).
pub const MESSAGES_KEEP: usize = 1000;

/// The what-if pods of the last `:fit FILE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FitState {
    /// The manifests, as typed.
    pub path: String,
    /// The generation `:fit` was asked at (None once its pods are in).
    pub asked: Option<u64>,
    /// The pods added (pending, marked with the annotation `kschedtui.io/what-if`).
    pub pods: Vec<ObjectKey>,
    /// What was made for them (claims, volumes, ResourceClaims, owners): removed with them.
    pub made: Vec<(&'static str, ObjectKey)>,
    /// Replicas refused at admission, with the API server's message.
    pub refused: Vec<(ObjectKey, String)>,
}

/// A status-line message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusMsg {
    /// Kind.
    pub kind: StatusKind,
    /// Text.
    pub text: String,
}

/// The whole application state.
pub struct App {
    /// Where the cluster came from.
    pub source: SourceInfo,
    /// `--readonly`: bind and preempt are refused.
    pub readonly: bool,
    /// How preemption removes victims: DELETE as kube-scheduler does, or (`--evict`) the
    /// Eviction API, which honours PodDisruptionBudgets.
    pub removal: Removal,
    /// Loading state.
    pub load: Load,
    /// The cluster as it is now (including in-memory changes).
    pub cluster: Arc<Cluster>,
    /// Scheduler profiles.
    pub profiles: Arc<Vec<Framework>>,
    /// The release and gates reproduced.
    pub features: Arc<Features>,
    /// `:profile NAME`: every pod is explained with this profile instead of the one its
    /// schedulerName picks (None: as the scheduler does).
    pub profile_override: Option<String>,
    /// Bumped on every change of the cluster; explanations of older generations are dropped.
    pub generation: u64,
    /// Full explanations of the current generation (at most [`FULL_KEEP`] beyond the pods on
    /// screen).
    pub explanations: BTreeMap<ObjectKey, Explained>,
    /// Gang passes of the current generation, by the member they were asked for (the
    /// `:gang` screen); a pod present with no value is being computed.
    pub groups: BTreeMap<ObjectKey, Option<GroupResult>>,
    /// For each gang with an explained member, the member its pass was asked for (one pass per
    /// group: every member's row and view tell the group's story from it).
    pub gang_asked: BTreeMap<String, ObjectKey>,
    /// "To fix" lines of the current generation, by pod, checked by the engine (a pod
    /// present with no value is being checked).
    pub fixes: BTreeMap<ObjectKey, Option<Arc<Vec<fix::Verified>>>>,
    /// Summaries of every pod explained at the current generation.
    pub summaries: BTreeMap<ObjectKey, Result<Summary, String>>,
    /// Bumped each time `summaries` changes (a summary arrives, they are cleared): the pod
    /// list sorted or filtered by reason is re-sorted when it moved.
    pub reasons: u64,
    /// Pods of `explanations`, least recently explained first.
    pub recent: std::collections::VecDeque<ObjectKey>,
    /// Pods queued for explanation at this generation (progress denominator).
    pub queued: usize,
    /// Requested resources and pods per node.
    pub usage: BTreeMap<String, NodeUsage>,
    /// Current time (Unix seconds), from the last tick.
    pub now: Option<i64>,
    /// Ticks seen (spinner).
    pub ticks: u64,
    /// The pod list (the root screen).
    pub pods: PodListState,
    /// `w`: the pod list's detail line and the pod view's verdict and cluster lines are
    /// wrapped whole (false: cut at two or three lines, marked `…`).
    pub whole: bool,
    /// The pod list's rows, refreshed by [`update`] when the cluster, the namespace, the sort
    /// or the search change (read with [`App::pod_rows`]).
    pub pod_rows: pod_list::PodRows,
    /// The cluster's pending pods in queue order, refreshed with the pod list's rows (read with
    /// [`App::pending_pods`]).
    pub pending: pod_list::PendingPods,
    /// The node list's rows, refreshed by [`update`] when the cluster or its search change
    /// (read with [`App::node_rows`]).
    pub node_rows: node_list::NodeRows,
    /// Screens opened above the pod list.
    pub screens: Vec<Screen>,
    /// Input mode.
    pub mode: Mode,
    /// Status-line message.
    pub status: Option<StatusMsg>,
    /// Every status message and load warning so far, oldest first (at most
    /// [`MESSAGES_KEEP`]).
    pub messages: std::collections::VecDeque<Message>,
    /// Messages dropped from the front of `messages`.
    pub messages_dropped: usize,
    /// In-memory changes made so far, oldest first.
    pub changes: Vec<String>,
    /// The cluster before the first of `changes` (what `:export` diffs against).
    pub baseline: Option<Arc<Cluster>>,
    /// The last `:w`: the file and how many in-memory changes it holds.
    pub saved: Option<(String, usize)>,
    /// The last `:deschedule FILE` (shown by [`Screen::Deschedule`]).
    pub deschedule: Option<deschedule::DescheduleState>,
    /// The what-if pods of `:fit FILE` (`:fit` alone removes them).
    pub fit: Option<FitState>,
    /// The explanation before the last what-if edit, for the diff.
    pub diff_base: Option<Arc<Explanation>>,
    /// The diff between `diff_base` and the new trace, once it arrived.
    pub diff: Option<TraceDiff>,
    /// The live cluster (None for snapshots and the demo).
    pub live: Option<LiveView>,
    /// What the source reported while the cluster loads: one line per kind, in the order
    /// they were listed.
    pub progress: Vec<ListProgress>,
    /// The kubeconfig's contexts and the one attached to (live only; `:ctx`).
    pub contexts: Option<Contexts>,
    /// `:ctx NAME`: quit this attachment and attach to that context.
    pub switch_context: Option<String>,
    /// Set by quit.
    pub should_quit: bool,
    /// Set with `should_quit` when the app cannot go on; the program exits with this error.
    pub fatal: Option<String>,
}

impl App {
    /// A new app, loading.
    pub fn new(source: SourceInfo, readonly: bool) -> Self {
        App {
            source,
            readonly,
            removal: Removal::Delete,
            load: Load::Loading,
            cluster: Arc::new(Cluster::default()),
            profiles: Arc::new(Vec::new()),
            features: Arc::new(Features::default()),
            profile_override: None,
            generation: 0,
            explanations: BTreeMap::new(),
            summaries: BTreeMap::new(),
            fixes: BTreeMap::new(),
            reasons: 0,
            groups: BTreeMap::new(),
            gang_asked: BTreeMap::new(),
            recent: std::collections::VecDeque::new(),
            queued: 0,
            usage: BTreeMap::new(),
            now: None,
            ticks: 0,
            pods: PodListState::default(),
            whole: false,
            pod_rows: pod_list::PodRows::default(),
            pending: pod_list::PendingPods::default(),
            node_rows: node_list::NodeRows::default(),
            screens: Vec::new(),
            mode: Mode::Normal,
            status: None,
            messages: std::collections::VecDeque::new(),
            messages_dropped: 0,
            changes: Vec::new(),
            baseline: None,
            saved: None,
            deschedule: None,
            fit: None,
            diff_base: None,
            diff: None,
            live: None,
            progress: Vec::new(),
            contexts: None,
            switch_context: None,
            should_quit: false,
            fatal: None,
        }
    }

    /// The top screen (None: the pod list).
    pub fn screen(&self) -> Option<&Screen> {
        self.screens.last()
    }

    /// The explanation of a pod at the current generation.
    pub fn explanation(&self, pod: &ObjectKey) -> Option<&Explained> {
        self.explanations.get(pod)
    }

    /// The summary of a pod's explanation at the current generation.
    pub fn summary(&self, pod: &ObjectKey) -> Option<&Result<Summary, String>> {
        self.summaries.get(pod)
    }

    /// Pods whose full explanation must stay: those on screen and the diff's.
    pub fn pinned(&self) -> Vec<ObjectKey> {
        let mut v: Vec<ObjectKey> = self
            .screens
            .iter()
            .filter_map(|s| match s {
                Screen::Pod(v) => Some(v.pod.clone()),
                Screen::Node(v) => v.pod.clone(),
                Screen::Nodes(v) => v.pod.clone(),
                Screen::Queue(_)
                | Screen::Deschedule(_)
                | Screen::Messages(_)
                | Screen::Events(_)
                | Screen::Text(_) => None,
                Screen::Gang(v) => Some(v.pod.clone()),
                Screen::Fixes(v) => Some(v.pod.clone()),
            })
            .collect();
        v.extend(self.diff_base.as_ref().map(|d| d.pod.clone()));
        v
    }

    /// The checked fixes of `pod` at this generation (empty while they are checked).
    pub fn fix_rows(&self, pod: &ObjectKey) -> &[fix::Verified] {
        match self.fixes.get(pod) {
            Some(Some(v)) => v,
            _ => &[],
        }
    }

    /// The pod the user is looking at: the pod view's, the node view's, or the selected row.
    pub fn focused_pod(&self) -> Option<ObjectKey> {
        match self.screen() {
            Some(Screen::Pod(v)) => Some(v.pod.clone()),
            Some(Screen::Node(v)) => v.pod.clone(),
            Some(Screen::Nodes(v)) => v.pod.clone(),
            Some(Screen::Queue(v)) => self.queue_rows().get(v.selected).map(|r| r.0.clone()),
            Some(Screen::Gang(v)) => self.gang_rows(&v.pod).get(v.selected).cloned().or(Some(v.pod.clone())),
            Some(Screen::Deschedule(v)) => self
                .deschedule_rows()
                .get(v.selected)
                .and_then(|r| r.pod.clone())
                .filter(|k| self.pod(k).is_some()),
            Some(Screen::Events(v)) => v.pod.clone().or_else(|| {
                self.event_rows(None)
                    .get(v.selected)
                    .map(|e| e.pod.clone())
                    .filter(|k| self.pod(k).is_some())
            }),
            Some(Screen::Messages(_) | Screen::Text(_)) => None,
            Some(Screen::Fixes(v)) => Some(v.pod.clone()),
            None => self.pod_rows().pod(self, self.pods.selected).map(|p| p.key.clone()),
        }
    }

    /// The cluster's pending pods in queue order (kept by [`update`]; computed when the app was
    /// changed outside it).
    pub fn pending_pods(&self) -> std::borrow::Cow<'_, [Arc<Pod>]> {
        if self.pending.is_current(&self.cluster) {
            std::borrow::Cow::Borrowed(self.pending.pods())
        } else {
            std::borrow::Cow::Owned(self.cluster.pending_pods().into_iter().cloned().collect())
        }
    }

    /// The queue screen's rows: every pending pod in queue order, with where it waits once it
    /// is explained.
    pub fn queue_rows(&self) -> Vec<(ObjectKey, Option<crate::engine::queue::QueueEntry>)> {
        self.pending_pods()
            .iter()
            .map(|p| {
                let e = match self.explanation(&p.key) {
                    Some(Ok(ex)) => {
                        let attempts = self
                            .cluster
                            .scheduling_events
                            .get(&p.key)
                            .and_then(|e| e.first())
                            .map(|e| u32::try_from(e.count.max(1)).unwrap_or(1));
                        Some(crate::engine::queue::entry(ex, attempts))
                    }
                    _ => None,
                };
                (p.key.clone(), e)
            })
            .collect()
    }

    /// The pass of the gang `pod` belongs to, once computed (None: in no gang, or not yet).
    pub fn gang_pass(&self, pod: &ObjectKey) -> Option<&Arc<crate::engine::group_cycle::GroupCycle>> {
        let group = self.summary(pod)?.as_ref().ok()?.gang.as_ref()?;
        let asked = self.gang_asked.get(group)?;
        match self.groups.get(asked) {
            Some(Some(Ok(Some(g)))) => Some(g),
            _ => None,
        }
    }

    /// The gang screen's member rows (the pending members in the order they were tried).
    pub fn gang_rows(&self, pod: &ObjectKey) -> Vec<ObjectKey> {
        match self.groups.get(pod) {
            Some(Some(Ok(Some(g)))) => g.members.iter().map(|m| m.pod.clone()).collect(),
            _ => Vec::new(),
        }
    }

    /// The rows of the last `:deschedule` (none while it runs).
    pub fn deschedule_rows(&self) -> &[deschedule::DescheduleRow] {
        self.deschedule.as_ref().map_or(&[], |d| d.rows())
    }

    /// A pod by key.
    pub fn pod(&self, key: &ObjectKey) -> Option<&Arc<Pod>> {
        self.cluster.pod(key)
    }

    /// The profile that serves a schedulerName.
    pub fn profile(&self, scheduler_name: &str) -> Option<&Framework> {
        self.profiles.iter().find(|f| f.name == scheduler_name)
    }

    /// How many pods are pending.
    pub fn pending_count(&self) -> usize {
        if self.pod_rows.is_current(self) {
            return self.pod_rows.cluster_pending();
        }
        self.cluster.pods.iter().filter(|p| p.is_pending()).count()
    }

    /// The pod list's rows as displayed (kept by [`update`]; computed when the app was
    /// changed outside it).
    pub fn pod_rows(&self) -> std::borrow::Cow<'_, pod_list::PodRows> {
        pod_list::current(self)
    }

    /// The rows of a node list (kept by [`update`] for the one on top).
    pub fn node_rows(&self, v: &NodeList) -> std::borrow::Cow<'_, node_list::NodeRows> {
        node_list::current(self, v)
    }

    /// Brings the kept rows up to date with the app (after a change made outside [`update`]).
    pub fn refresh_rows(&mut self) {
        self.refresh_rows_after(true);
    }

    /// [`refresh_rows`](Self::refresh_rows); `reasons` false: the pod list is not re-sorted or
    /// re-filtered by the reasons that arrived (after an explanation, so a burst of them is
    /// applied once, at the next tick).
    pub(crate) fn refresh_rows_after(&mut self, reasons: bool) {
        self.pending.refresh(&self.cluster);
        pod_list::refresh(self, reasons);
        node_list::refresh(self);
    }

    /// The in-memory changes made since the last `:w` (all of them when none was written).
    pub fn unsaved(&self) -> &[String] {
        let saved = self.saved.as_ref().map_or(0, |(_, n)| *n).min(self.changes.len());
        &self.changes[saved..]
    }

    /// Quits, or asks first when in-memory changes would be lost (`:q!` does not ask).
    pub fn request_quit(&mut self) {
        if self.unsaved().is_empty() {
            self.should_quit = true;
        } else {
            self.mode = Mode::ConfirmQuit;
        }
    }

    /// Explanations still to come at this generation.
    pub fn explaining(&self) -> usize {
        self.queued.saturating_sub(self.summaries.len())
    }

    /// Sets an info message.
    pub fn info(&mut self, text: impl Into<String>) {
        self.say(StatusKind::Info, text.into());
    }

    /// Sets an error message.
    pub fn error(&mut self, text: impl Into<String>) {
        self.say(StatusKind::Error, text.into());
    }

    /// Sets the status line and keeps the message for `:messages`.
    fn say(&mut self, kind: StatusKind, text: String) {
        self.log(kind, text.clone());
        self.status = Some(StatusMsg { kind, text });
    }

    /// Keeps a message for `:messages` without showing it in the status line.
    pub fn log(&mut self, kind: StatusKind, text: String) {
        if self.messages.len() == MESSAGES_KEEP {
            self.messages.pop_front();
            self.messages_dropped += 1;
        }
        self.messages.push_back(Message {
            at: self.now,
            kind,
            text,
        });
    }

    /// The FailedScheduling events of the events screen, oldest first as `kubectl describe`
    /// lists them: the pod's (events of an earlier pod of the same name left out), or every
    /// pod's.
    pub fn event_rows(&self, pod: Option<&ObjectKey>) -> Vec<&crate::model::SchedulingEvent> {
        let mut v: Vec<&crate::model::SchedulingEvent> = match pod {
            Some(k) => self
                .cluster
                .pod(k)
                .map(|p| self.cluster.scheduling_events_of(p))
                .unwrap_or_default(),
            None => self.cluster.scheduling_events.values().flatten().collect(),
        };
        v.sort_by(|a, b| a.last.cmp(&b.last).then_with(|| a.key.cmp(&b.key)));
        v
    }

    /// The requests a confirmed write sends to the live cluster (None in snapshot mode,
    /// where the change is applied in memory). Victims are deleted as kube-scheduler does, or
    /// evicted with `--evict`.
    pub fn live_plan(&self, p: &Pending) -> Option<Result<Plan, String>> {
        self.live.as_ref()?;
        Some(self.plan(p))
    }

    /// What binding `pod` to `node` writes before the Binding, as kube-scheduler's binding
    /// cycle there would: the explanation's cycle when it bound the pod on that node, else the
    /// engine's cycle run on that node (None when the node fails Filter). A pod that would wait
    /// at Permit for its gang is refused, naming the gang.
    pub fn binding_writes(
        &self,
        pod: &ObjectKey,
        node: &str,
    ) -> Result<Option<crate::model::write::BindingWrites>, String> {
        if let Some(Ok(s)) = self.summary(pod) {
            if let Some(w) = &s.gang_wait {
                return Err(w.clone());
            }
            if let Some((n, w)) = &s.binding
                && n == node
            {
                return Ok(Some(w.clone()));
            }
        }
        let c = crate::engine::commit::commit_on(&self.cluster, &self.profiles, &self.features, pod, node, false)
            .map_err(|e| e.to_string())?;
        if c.waits_for.is_some() {
            return Err(crate::engine::commit::gang_refusal(pod, node, c.waits_for.as_ref()));
        }
        if let Some(f) = c.fails {
            return Err(format!("the scheduler's binding cycle fails there: {f}"));
        }
        Ok(c.writes)
    }

    /// The requests a pending action makes, live or in memory (snapshot mode executes the same
    /// plan on the in-memory API server).
    pub fn plan(&self, p: &Pending) -> Result<Plan, String> {
        match p {
            Pending::Bind { pod, node, .. } => {
                let writes = self.binding_writes(pod, node)?;
                bind_plan(&self.cluster, pod, node, writes.as_ref()).map_err(|e| e.to_string())
            }
            Pending::Preempt { pod, node, victims } => {
                preempt_plan(&self.cluster, pod, node, victims, self.removal).map_err(|e| e.to_string())
            }
        }
    }

    /// The lines of the confirmation: every request exactly as it will be sent to the live
    /// cluster, or as the in-memory API server of snapshot mode will apply it.
    pub fn confirm_writes(&self, p: &Pending) -> Vec<String> {
        let dry = self.live.as_ref().is_some_and(|l| l.write_mode == WriteMode::DryRun);
        match self.plan(p) {
            Ok(plan) => plan
                .requests
                .iter()
                .enumerate()
                .map(|(i, r)| format!("{}. {}", i + 1, r.describe(dry)))
                .collect(),
            Err(e) => vec![format!("cannot plan the writes: {e}")],
        }
    }

    /// The kinds the release's scheduler reads that the live server does not serve
    /// (resource names), for the header; each explanation's notes say what that means.
    pub fn unserved_kinds(&self) -> Vec<String> {
        if self.cluster.not_served.is_empty() {
            return Vec::new();
        }
        // the CRD of Coscheduling matters when a pending pod's profile runs it
        let coscheduling = self.pending_pods().iter().any(|p| {
            self.profiles.iter().any(|f| {
                f.name == p.scheduler_name()
                    && f.plugins_at("Permit")
                        .contains(&crate::engine::release::served::COSCHEDULING)
            })
        });
        crate::engine::release::served::read_kinds(&self.features, coscheduling)
            .into_iter()
            .filter(|(k, _)| self.cluster.not_served.contains(k))
            .map(|(k, _)| k.plural().to_string())
            .collect()
    }

    /// Kinds whose watch is broken, with why (the view of them may be out of date).
    pub fn stale_kinds(&self) -> Vec<(String, String)> {
        self.live.as_ref().map_or_else(Vec::new, |l| {
            l.state
                .stale
                .iter()
                .map(|(k, why)| (k.to_string(), why.clone()))
                .collect()
        })
    }
}

/// Applies an action and runs the explain effects it returns on this thread, feeding the
/// results back, until nothing is left; editor effects are returned. For tests and headless
/// drivers: the terminal runtime does the same work off the UI thread.
pub fn update_sync(app: &mut App, action: Action) -> Vec<Effect> {
    update_sync_with(app, action, &mut |job: &ExplainJob| {
        let snap = job.snapshot();
        job.pods.iter().map(|pod| job.explain(&snap, pod)).collect()
    })
}

/// [`update_sync`] with the explain jobs run by `explain`, which returns one result per pod
/// of the job, in its order (the fuzz targets answer repeated jobs from a cache).
pub fn update_sync_with(
    app: &mut App,
    action: Action,
    explain: &mut dyn FnMut(&ExplainJob) -> Vec<Explained>,
) -> Vec<Effect> {
    let mut queue = update(app, action);
    let mut rest = Vec::new();
    while let Some(e) = queue.pop() {
        match e {
            Effect::Explain(job) => {
                let results = explain(&job);
                for (pod, result) in job.pods.iter().zip(results) {
                    queue.extend(update(
                        app,
                        Action::Explained {
                            generation: job.generation,
                            pod: pod.clone(),
                            result,
                        },
                    ));
                }
            }
            Effect::Fixes(job) => {
                let result = job.run();
                queue.extend(update(
                    app,
                    Action::FixesVerified {
                        generation: job.generation,
                        pod: job.pod.clone(),
                        result,
                    },
                ));
            }
            Effect::Group(job) => {
                let result = job.run();
                queue.extend(update(
                    app,
                    Action::GroupComputed {
                        generation: job.generation,
                        pod: job.pod.clone(),
                        result,
                    },
                ));
            }
            other => rest.push(other),
        }
    }
    rest
}

/// Gives a new app its cluster synchronously, with the default profiles of its release
/// (tests, screenshots).
pub fn load_sync(app: &mut App, cluster: Cluster) {
    let r = crate::engine::build_profiles(None, &*app.features)
        .map_err(|e| e.to_string())
        .map(|profiles| Loaded {
            cluster,
            profiles,
            features: app.features.clone(),
        });
    update_sync(app, Action::Loaded(Box::new(r)));
}

/// An app on fixtures/tui-test.yaml, loaded (unit tests).
#[cfg(test)]
pub(crate) fn tui_test_app() -> App {
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Snapshot,
            name: "tui-test.yaml".into(),
        },
        false,
    );
    let cluster = crate::source::file::load_str("tui-test.yaml", include_str!("../../fixtures/tui-test.yaml"));
    load_sync(&mut a, cluster.expect("fixture"));
    a
}

/// An app on the demo cluster, loaded (unit tests).
#[cfg(test)]
pub(crate) fn tests_demo_app() -> App {
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Demo,
            name: "demo".into(),
        },
        false,
    );
    let cluster = crate::source::file::load_str("demo.yaml", include_str!("../../fixtures/demo.yaml"));
    load_sync(&mut a, cluster.expect("fixture"));
    a
}

#[cfg(test)]
mod tests;
