//! Headless commands on the same engine: `explain`, `bind`, `preempt`, `snapshot`,
//! `simulate`, `queue`, `deschedule`, `fit` (and the
//! entry point that dispatches to the TUI). Errors are printed as one line and give a non-zero
//! exit code. The live-cluster side of the commands is in [`live`].
#![allow(clippy::print_stdout, clippy::print_stderr)]

pub mod deschedule;
pub mod fit;
pub mod simulate;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::engine::release::{Recorded, ReleaseChoice};
use crate::engine::{self, Features, Framework, Release, Snapshot};
use crate::model::{Cluster, ObjectKey};
use crate::source::load::Input;

#[cfg(feature = "live")]
pub mod live;
#[cfg(feature = "mcp")]
pub mod mcp;

pub use crate::source::load::DEMO_SNAPSHOT;

/// kschedtui: see why a pod is Pending, plugin by plugin, node by node.
#[derive(Parser, Debug)]
#[command(name = "kschedtui", version, about)]
pub struct Cli {
    /// Command (without one, the terminal UI opens).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Open a snapshot file or directory instead of a live cluster.
    #[arg(long, global = true)]
    pub snapshot: Option<PathBuf>,
    /// Use the bundled demo cluster (before or after the command).
    #[arg(long, global = true)]
    pub demo: bool,
    /// TUI colour theme: a bundled name (default, light, high-contrast) or a YAML file.
    #[arg(long, value_name = "NAME|FILE")]
    pub theme: Option<String>,
    /// TUI on a live cluster: the namespace the pod list starts in (the whole cluster is read).
    #[arg(short, long, value_name = "NS", conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// TUI: the pod list starts in every namespace (the default).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// TUI: the release and feature gates to reproduce.
    #[command(flatten)]
    pub release: ReleaseArgs,
    /// TUI: a KubeSchedulerConfiguration file with the profiles to use.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// TUI: preempt by evicting the victims through the Eviction API (honours
    /// PodDisruptionBudgets) instead of deleting them as kube-scheduler does.
    #[arg(long)]
    pub evict: bool,
    /// How to reach a live cluster (when no --snapshot is given).
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// The release to reproduce and its feature gates (kube-scheduler's `--feature-gates`).
#[derive(Args, Debug, Clone, Default)]
pub struct ReleaseArgs {
    /// Upstream release to reproduce: 1.MINOR (its newest known patch) or 1.MINOR.PATCH, 1.30
    /// to the newest (default: a live server's release, the one recorded in the snapshot, or
    /// the newest).
    #[arg(long, value_name = "VERSION")]
    pub scheduler_version: Option<String>,
    /// Feature gates as kube-scheduler takes them: Gate=true,Other=false.
    #[arg(long, value_name = "GATES")]
    pub feature_gates: Option<String>,
}

impl ReleaseArgs {
    /// The plain choice the engine resolves.
    pub fn choice(&self) -> ReleaseChoice {
        ReleaseChoice {
            scheduler_version: self.scheduler_version.clone(),
            feature_gates: self.feature_gates.clone(),
        }
    }

    /// The release given, else `default`, with the gates given; errors name what is wrong.
    pub fn resolve(&self, default: Release) -> Result<Features> {
        Ok(self.choice().resolve(default)?)
    }

    /// True when either is given.
    pub fn is_set(&self) -> bool {
        self.choice().is_set()
    }
}

/// Live cluster options, shared by every command (as kubectl names them).
#[derive(Args, Debug, Clone, Default)]
pub struct ClusterArgs {
    /// Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster).
    #[arg(long, global = true, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// Kubeconfig context (default: current-context).
    #[arg(long, global = true, value_name = "NAME")]
    pub context: Option<String>,
    /// Never write to the cluster: no bind, no preemption, no permission checks.
    #[arg(long, global = true)]
    pub readonly: bool,
    /// `server`: send writes with dryRun=All (the API server validates, then discards them).
    #[arg(long, global = true, value_enum, default_value = "none", value_name = "MODE")]
    pub dry_run: DryRun,
    /// Seconds to wait for each API request.
    #[arg(long, global = true, default_value_t = 30, value_name = "SECONDS")]
    pub request_timeout: u64,
}

/// `--dry-run` values.
#[derive(Clone, Copy, Debug, Default, ValueEnum, PartialEq, Eq)]
pub enum DryRun {
    /// Send writes for real.
    #[default]
    None,
    /// Send writes with dryRun=All.
    Server,
}

/// Commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Explain why pods are (or are not) schedulable.
    Explain(ExplainArgs),
    /// Bind a pending pod to a node (default: the node the engine selects).
    Bind(BindArgs),
    /// Preempt for a pending pod: remove the victims the engine chose, then nominate the node.
    Preempt(PreemptArgs),
    /// Write the live cluster to a snapshot file that --snapshot reads back.
    Snapshot(SnapshotArgs),
    /// Write a seeded synthetic cluster (for benchmarks and scale tests).
    Generate(GenerateArgs),
    /// Schedule every pending pod in queue order, applying each result before the next.
    Simulate(simulate::SimulateArgs),
    /// Where every pending pod waits in the scheduling queue, and what would move it on
    /// (including the pods the scheduler writes no event for).
    Queue(QueueArgs),
    /// Descheduler dry run: run a DeschedulerPolicy's cycle and say where every evicted pod
    /// would land (another node, the same node, or Pending and why).
    ///
    /// The evictions are applied in memory only and the replacements scheduled by the engine:
    /// nothing is ever written to the cluster, so --readonly and --dry-run change nothing here.
    Deschedule(deschedule::DescheduleArgs),
    /// Will these workloads fit? Place a Deployment's, StatefulSet's, DaemonSet's, Job's … pods
    /// as their controllers and admission would make them, on a copy of the cluster.
    ///
    /// Per workload: replicas scheduled, the nodes, and for the first replica that does not
    /// fit the exact message, the decisive reason, whom preemption would evict and the fix
    /// hints. Exit status 0 when every replica fits, 3 when one does not.
    Fit(fit::FitArgs),
    /// Serve the engine to agents: a Model Context Protocol server on stdio over --snapshot,
    /// --demo or the live cluster (kept current by a watch).
    ///
    /// Read-only tools (list_pods, explain_pod, why_not_node, queue, fix_hints, simulate,
    /// deschedule, cluster_summary) and the prompt why-pending; with --allow-writes also bind
    /// and preempt, each in two calls (the first returns the exact requests and a token, the
    /// second sends them after the permission check).
    Mcp(McpArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// `mcp` arguments.
#[derive(Args, Debug, Clone)]
pub struct McpArgs {
    /// The release and feature gates to reproduce (default: the server's, or the snapshot's).
    #[command(flatten)]
    pub release: ReleaseArgs,
    /// A KubeSchedulerConfiguration file with the profiles to use.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// List the write tools (bind, preempt); without it no write tool is listed at all.
    #[arg(long)]
    pub allow_writes: bool,
}

/// `queue` arguments.
#[derive(Args, Debug)]
pub struct QueueArgs {
    /// Output format (text or json).
    #[arg(short, long, value_enum, default_value = "text")]
    pub output: Output,
    /// Only the pending pods of this namespace (the queue itself is the whole cluster's).
    #[arg(short, long, conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// Every namespace (the default).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// The release and feature gates to reproduce.
    #[command(flatten)]
    pub release: ReleaseArgs,
    /// A KubeSchedulerConfiguration file with the profiles to use.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// `bind` arguments.
#[derive(Args, Debug)]
pub struct BindArgs {
    /// The pod: NAMESPACE/NAME, or NAME with -n.
    pub pod: String,
    /// Namespace of a pod given by name (default: the context's namespace).
    #[arg(short, long, conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// Accepted as elsewhere; the pod must then be NAMESPACE/NAME.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// The node (default: the node the engine selects).
    #[arg(long)]
    pub node: Option<String>,
    /// Do not ask for confirmation.
    #[arg(short, long)]
    pub yes: bool,
    /// Bind to a --node that fails Filter (the kubelet may then reject the pod), or a gang
    /// member that would wait at Permit for its gang, alone.
    #[arg(long, conflicts_with = "gang")]
    pub force: bool,
    /// Bind every member of the pod's gang the engine places, once the gang's quorum is met
    /// (each with the writes its binding cycle makes); nothing is sent unless all can be.
    #[arg(long, conflicts_with = "node")]
    pub gang: bool,
    /// How long to wait for volumes to be bound before the Binding (default: VolumeBinding's
    /// bindTimeoutSeconds, 600); Ctrl-C stops waiting and keeps the writes made.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
    /// The release and feature gates to reproduce (default: the server's, or the snapshot's).
    #[command(flatten)]
    pub release: ReleaseArgs,
    /// A KubeSchedulerConfiguration file with the profiles to use.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Rehearsals only (--snapshot/--demo): write the cluster as the writes left it to FILE
    /// (JSON for .json, YAML otherwise; an existing FILE is replaced).
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
}

/// `preempt` arguments.
#[derive(Args, Debug)]
pub struct PreemptArgs {
    /// The preemptor: NAMESPACE/NAME, or NAME with -n.
    pub pod: String,
    /// Namespace of a pod given by name (default: the context's namespace).
    #[arg(short, long, conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// Accepted as elsewhere; the pod must then be NAMESPACE/NAME.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Evict the victims through the Eviction API (honours PodDisruptionBudgets) instead of
    /// deleting them as kube-scheduler does.
    #[arg(long)]
    pub evict: bool,
    /// Do not ask for confirmation.
    #[arg(short, long)]
    pub yes: bool,
    /// The release and feature gates to reproduce (default: the server's, or the snapshot's).
    #[command(flatten)]
    pub release: ReleaseArgs,
    /// A KubeSchedulerConfiguration file with the profiles to use.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Rehearsals only (--snapshot/--demo): write the cluster as the writes left it to FILE
    /// (JSON for .json, YAML otherwise; an existing FILE is replaced).
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
}

/// `snapshot` arguments.
#[derive(Args, Debug)]
pub struct SnapshotArgs {
    /// The file to write (JSON when it ends in .json, YAML otherwise; - is the standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Read namespaced objects of this namespace only (pods elsewhere are then missing).
    #[arg(short, long, conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// Read every namespace (the default).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Replace names, label values and images with stable placeholders.
    #[arg(long)]
    pub anonymize: bool,
}

/// `generate` arguments.
#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Nodes.
    #[arg(long, default_value_t = 5000)]
    pub nodes: usize,
    /// Bound pods.
    #[arg(long, default_value_t = 100_000)]
    pub pods: usize,
    /// Extra pending pods that fit (bench/fit-NNNNNN), for a `simulate` throughput run.
    #[arg(long, default_value_t = 0)]
    pub pending: usize,
    /// Pending pods that cannot be scheduled, cycling through the failure kinds: cpu, memory,
    /// selector, gate, scheduler, anti-affinity (bench/KIND-NNNNNN).
    #[arg(long, default_value_t = 0)]
    pub failing: usize,
    /// Seed (the same seed gives the same cluster).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Output file; .json writes JSON, anything else YAML; - is the standard output.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// An output path as messages name it (`-` is the standard output).
fn shown(path: &Path) -> String {
    if path == Path::new("-") {
        "standard output".into()
    } else {
        path.display().to_string()
    }
}

/// Runs `generate`.
pub fn generate(a: &GenerateArgs) -> Result<()> {
    let v = crate::source::generate::generate(crate::source::generate::GenSpec {
        nodes: a.nodes,
        pods: a.pods,
        pending: a.pending,
        failing: a.failing,
        seed: a.seed,
    });
    let text = if a.output.extension().is_some_and(|e| e == "json") {
        serde_json::to_string(&v)?
    } else {
        serde_yaml::to_string(&v)?
    };
    if a.output == Path::new("-") {
        // a reader that goes away (`| head`) is not an error
        write_stdout(&text)?;
    } else {
        // whole or not at all, as a snapshot is saved
        crate::source::save::write_text(&a.output, &text, true)?;
    }
    eprintln!(
        "wrote {} nodes, {} bound pods and {} pending pods to {} (benchmark pod: {}/{})",
        a.nodes,
        a.pods,
        1 + a.pending + a.failing,
        shown(&a.output),
        crate::source::generate::PENDING_POD.0,
        crate::source::generate::PENDING_POD.1
    );
    Ok(())
}

/// Output formats.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Output {
    /// Human report.
    Text,
    /// The explain-json-v1 contract.
    Json,
    /// The same as YAML.
    Yaml,
}

/// `explain` arguments.
#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// The pod: NAMESPACE/NAME, or NAME with -n; or a workload's pods as a whole:
    /// deploy/NAME, rs/NAME, sts/NAME, ds/NAME, job/NAME (in -n's namespace).
    pub pod: Option<String>,
    /// Namespace of a pod given by name (default: the context's namespace, or "default");
    /// with --all-pending, the pending pods of this namespace only.
    #[arg(short, long, conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// Every namespace: with --all-pending (which it implies when no pod is named), the
    /// pending pods of every namespace (the default); a pod must then be NAMESPACE/NAME.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Explain every pending pod, in scheduling queue order.
    #[arg(long, conflicts_with = "pod")]
    pub all_pending: bool,
    /// Output format.
    #[arg(short, long, value_enum, default_value = "text")]
    pub output: Output,
    /// The release and feature gates to reproduce.
    #[command(flatten)]
    pub release: ReleaseArgs,
    /// A KubeSchedulerConfiguration file with the profiles to use.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Explain with this profile instead of the one the pod's schedulerName picks (a what-if).
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Exit 3 unless every explained pod is schedulable (outcome Schedulable); 0 when all
    /// are; 1 on an error, 2 on a usage error. For pipelines that gate on it.
    #[arg(long)]
    pub exit_status: bool,
    /// Leave out the fix hints (each runs the engine again on a changed copy of the cluster;
    /// worth leaving out for --all-pending on a large cluster).
    #[arg(long)]
    pub no_fixes: bool,
    /// Reproduce percentageOfNodesToScore's search from this index of kube-scheduler's node
    /// list (its nextStartNodeIndex; zones interleaved): only the feasible nodes found from
    /// there are scored, as on a cluster of 100 nodes and more upstream scores only those.
    #[arg(long, value_name = "INDEX")]
    pub start_node: Option<usize>,
}

/// The exit code of `explain --exit-status` when a pod is not schedulable.
pub const EXIT_NOT_SCHEDULABLE: u8 = 3;

/// Where `--snapshot` / `--demo` read from, or an error naming the missing flag.
pub fn input(snapshot: Option<&Path>, demo: bool, what: &str) -> Result<Input> {
    Input::from_flags(snapshot, demo)
        .ok_or_else(|| anyhow::anyhow!("no cluster to {what}: pass --snapshot FILE or --demo"))
}

/// Reads the profiles of a release, from a config file when given. What the configuration
/// has that kschedtui does not run (its extenders) is a warning here, and a note in every
/// explanation made with it.
pub fn load_profiles(config: Option<&Path>, features: &Features) -> Result<Vec<Framework>> {
    let profiles = crate::source::load::profiles(config, features)?;
    if let Some(fw) = profiles.first() {
        for n in &fw.config_notes {
            warn(n);
        }
    }
    Ok(profiles)
}

/// The features to explain with: `--scheduler-version` / `--feature-gates`, else the recorded
/// release (with its note), else the newest.
pub fn resolve_features(args: &ReleaseArgs, recorded: Option<Recorded>) -> Result<Features> {
    Ok(args.choice().features(recorded)?)
}

/// Loads the cluster from `--snapshot` or the demo with what `kschedtui snapshot` recorded.
pub fn load_cluster_recorded(snapshot: Option<&Path>, demo: bool) -> Result<(Cluster, Option<Recorded>)> {
    let input = Input::from_flags(snapshot, demo).ok_or_else(|| {
        anyhow::anyhow!(
            "no cluster to explain against: pass --snapshot FILE or --demo (this build has no live cluster support)"
        )
    })?;
    Ok(input.load_recorded()?)
}

/// Runs `explain`; true when every explained pod is schedulable (outcome Schedulable).
pub fn explain(args: &ExplainArgs, snapshot: Option<&Path>, demo: bool, cluster: &ClusterArgs) -> Result<bool> {
    if snapshot.is_none() && !demo {
        #[cfg(feature = "live")]
        return live::explain(args, cluster);
    }
    let _ = cluster;
    let (cluster, recorded) = load_cluster_recorded(snapshot, demo)?;
    let features = resolve_features(&args.release, recorded)?;
    explain_pods(args, cluster, &features, "default")?.print()
}

/// Runs `queue`.
pub fn queue(args: &QueueArgs, snapshot: Option<&Path>, demo: bool, cluster: &ClusterArgs) -> Result<()> {
    if snapshot.is_none() && !demo {
        #[cfg(feature = "live")]
        return live::queue(args, cluster);
    }
    let _ = cluster;
    let (cluster, recorded) = load_cluster_recorded(snapshot, demo)?;
    let features = resolve_features(&args.release, recorded)?;
    write_report(args.output, &render_queue(args, cluster, &features)?)
}

/// The queue report of every pending pod of `cluster`.
pub fn render_queue(args: &QueueArgs, cluster: Cluster, features: &Features) -> Result<String> {
    for w in &cluster.warnings {
        warn(w);
    }
    let profiles = load_profiles(args.config.as_deref(), features)?;
    let snap = Snapshot::new(Arc::new(cluster), features);
    let mut out = Vec::new();
    for p in snap.cluster.pending_pods() {
        if args.namespace.as_ref().is_some_and(|ns| *ns != p.key.namespace) {
            continue;
        }
        out.push(engine::explain(&snap, &profiles, &p.key)?);
    }
    let entries = crate::explain::queue::entries(&snap.cluster, &out);
    let release = features.release().to_string();
    Ok(match args.output {
        Output::Text => {
            format!("Queue (scheduler {})\n", features.describe()) + &crate::explain::queue::render(&entries)
        }
        Output::Json => serde_json::to_string_pretty(&crate::explain::queue::to_json(&entries, &release))? + "\n",
        Output::Yaml => serde_yaml::to_string(&crate::explain::queue::to_json(&entries, &release))?,
    })
}

/// A pod named with `-A`: it must carry its namespace.
pub fn check_all_namespaces_pod(pod: &str, all_namespaces: bool) -> Result<()> {
    if all_namespaces && !pod.contains('/') {
        bail!(
            "pod '{pod}' has no namespace and -A (--all-namespaces) gives none: name it NAMESPACE/{pod}, or pass -n NAMESPACE instead of -A"
        );
    }
    Ok(())
}

/// Explains the pods `args` names against `cluster`, all of them before anything is printed
/// (an error leaves no half-written output).
pub fn explain_pods(args: &ExplainArgs, cluster: Cluster, features: &Features, default_ns: &str) -> Result<Explained> {
    for w in &cluster.warnings {
        warn(w);
    }
    if let Some(n) = features.note() {
        eprintln!("note: {n}");
    }
    let profiles = load_profiles(args.config.as_deref(), features)?;
    let mut snap = Snapshot::new(Arc::new(cluster), features);
    snap.start_node = args.start_node;
    if let Some((kind, name)) = args.pod.as_deref().and_then(crate::explain::owners::parse) {
        let ns = args.namespace.as_deref().unwrap_or(default_ns);
        let pods = crate::explain::owners::pods_of(&snap.cluster, kind, ns, name);
        if pods.is_empty() {
            bail!(
                "{} {ns}/{name} has no pods in this cluster (a pod in a namespace named '{}' is named with -n)",
                kind.name(),
                args.pod
                    .as_deref()
                    .and_then(|p| p.split_once('/'))
                    .map_or("", |(t, _)| t)
            );
        }
        let mut out = Vec::new();
        for p in pods.iter().filter(|p| p.is_pending()) {
            out.push(engine::explain_as(&snap, &profiles, &p.key, args.profile.as_deref())?);
        }
        let owner = crate::explain::owners::OwnerReport::new(kind, ns, name, &pods, &out);
        return Ok(Explained {
            snap,
            out: Vec::new(),
            groups: Vec::new(),
            fixes: Vec::new(),
            output: args.output,
            array: false,
            owner: Some(owner),
            reproduced: Vec::new(),
        });
    }
    let keys: Vec<ObjectKey> = if args.all_pending || (args.all_namespaces && args.pod.is_none()) {
        snap.cluster
            .pending_pods()
            .iter()
            .filter(|p| args.namespace.as_deref().is_none_or(|ns| p.key.namespace == ns))
            .map(|p| p.key.clone())
            .collect()
    } else {
        match &args.pod {
            Some(p) => {
                check_all_namespaces_pod(p, args.all_namespaces)?;
                vec![ObjectKey::parse(p, args.namespace.as_deref().unwrap_or(default_ns))]
            }
            None => bail!("name a pod (NAMESPACE/NAME, or NAME -n NAMESPACE) or pass --all-pending (or -A)"),
        }
    };
    let mut out = Vec::new();
    let mut groups = Vec::new();
    let mut fixes = Vec::new();
    let hints = (!args.no_fixes).then(|| crate::explain::fix::Hints::new(&snap.cluster, features, &profiles));
    // A gang is understood as a whole: its members' pass, once per group, for gang pods only.
    let mut passes: std::collections::BTreeMap<String, engine::group_cycle::GroupCycle> =
        std::collections::BTreeMap::new();
    for k in &keys {
        let ex = engine::explain_as(&snap, &profiles, k, args.profile.as_deref())?;
        let group = match &ex.gang {
            Some(g) if args.profile.is_none() => Some(
                passes
                    .entry(g.group.clone())
                    .or_insert_with(|| {
                        engine::group_cycle::group_cycle_of(&snap.cluster, &profiles, features, k, g.clone())
                    })
                    .clone(),
            ),
            _ => None,
        };
        fixes.push(
            hints
                .as_ref()
                .filter(|_| !ex.schedulable())
                .map(|h| h.of(&ex, args.profile.as_deref())),
        );
        out.push(ex);
        groups.push(group);
    }
    drop(hints);
    // where the cluster recorded another message: which release or profile writes it
    let config = args
        .config
        .as_deref()
        .map(|p| crate::source::load::scheduler_config(p, features))
        .transpose()?;
    let refs: Vec<&engine::trace::Explanation> = out.iter().collect();
    let reproduced = crate::explain::reproduce::reproduce_all(&snap, &profiles, features, config.as_ref(), &refs);
    Ok(Explained {
        snap,
        out,
        groups,
        fixes,
        output: args.output,
        array: args.all_pending,
        owner: None,
        reproduced,
    })
}

/// What `explain` prints: the explanations with the snapshot they were made on.
pub struct Explained {
    snap: Snapshot,
    out: Vec<engine::trace::Explanation>,
    groups: Vec<Option<engine::group_cycle::GroupCycle>>,
    /// Each pod's checked fix hints (None: schedulable, or --no-fixes).
    fixes: Vec<Option<Vec<crate::explain::fix::Verified>>>,
    output: Output,
    /// A JSON or YAML list of them all (`--all-pending`), else the first one.
    array: bool,
    /// `explain deploy/NAME`: the owner's pods as a whole (written instead of explanations).
    owner: Option<crate::explain::owners::OwnerReport>,
    /// Each pod's other releases and profiles tried when the cluster recorded another
    /// message than kschedtui's (None: nothing differs).
    reproduced: Vec<Option<crate::explain::reproduce::Reproduction>>,
}

impl Explained {
    /// Writes them to stdout, then frees them beside the process's exit: freeing a big
    /// cluster's snapshot takes a noticeable while (the process may exit first, which frees
    /// it all at once).
    /// True when every explanation's outcome is Schedulable (for `--exit-status`).
    pub fn print(self) -> Result<bool> {
        let all = self.all_schedulable();
        let r = write_report_with(self.output, |w| self.write_to(w));
        std::thread::spawn(move || drop(self));
        r.map(|()| all)
    }

    /// True when every explanation's outcome is Schedulable.
    pub fn all_schedulable(&self) -> bool {
        if let Some(o) = &self.owner {
            return o.all_schedulable();
        }
        self.out
            .iter()
            .all(|ex| ex.outcome() == engine::trace::Outcome::Schedulable)
    }

    /// The explanations' JSON values, as `-o json` writes them.
    pub fn to_values(&self) -> Vec<serde_json::Value> {
        self.documents()
            .map(|d| serde_json::to_value(&d).unwrap_or(serde_json::Value::Null))
            .collect()
    }

    /// The explanations' documents, each with its added top-level keys (fixes, the cluster's
    /// own word, a gang's cycle).
    fn documents(&self) -> impl Iterator<Item = crate::explain::json::Document<'_>> {
        self.out
            .iter()
            .zip(&self.groups)
            .zip(&self.fixes)
            .enumerate()
            .map(|(i, ((ex, g), fixes))| {
                let mut d = crate::explain::json::Document::new(ex);
                if let Some(f) = fixes {
                    d.insert("fixes", crate::explain::fix::to_json(f));
                }
                if let Some(mut c) = crate::explain::condition::cluster_json(&self.snap.cluster, ex) {
                    if let (Some(r), Some(o)) = (self.reproduced.get(i).and_then(Option::as_ref), c.as_object_mut()) {
                        o.insert("reproducedBy".into(), r.to_json());
                    }
                    d.insert(crate::explain::json::CLUSTER_KEY, c);
                }
                if let Some(g) = g {
                    d.insert("groupCycle", crate::explain::group::to_json(g));
                }
                d
            })
    }

    /// Writes them in their format, each one rendered as it is written: the text of them all
    /// is never held at once (`--all-pending -o json` of a large cluster's failing pods is
    /// hundreds of megabytes).
    pub fn write_to(&self, w: &mut dyn Write) -> Result<()> {
        if let Some(o) = &self.owner {
            match self.output {
                Output::Text => w.write_all(crate::explain::owners::render(o).as_bytes())?,
                Output::Json => {
                    serde_json::to_writer_pretty(&mut *w, &crate::explain::owners::to_json(o))?;
                    w.write_all(b"\n")?;
                }
                Output::Yaml => serde_yaml::to_writer(&mut *w, &crate::explain::owners::to_json(o))?,
            }
            return Ok(());
        }
        let items = self.out.iter().zip(&self.groups).zip(&self.fixes);
        match self.output {
            Output::Text if self.out.is_empty() => w.write_all(b"no pending pods in the snapshot\n")?,
            Output::Text => {
                for (i, ((ex, g), fixes)) in items.enumerate() {
                    let reproduced = self.reproduced.get(i).and_then(Option::as_ref);
                    if i > 0 {
                        w.write_all(b"\n")?;
                    }
                    w.write_all(crate::explain::text::render_in_group(ex, g.as_ref()).as_bytes())?;
                    if let Some(g) = g {
                        w.write_all(crate::explain::group::render(g).as_bytes())?;
                    }
                    if let Some(f) = fixes {
                        w.write_all(crate::explain::fix::render(f).as_bytes())?;
                    }
                    w.write_all(crate::explain::condition::cluster_verdict(&self.snap.cluster, ex).as_bytes())?;
                    if let Some(r) = reproduced {
                        writeln!(w, "Note: {}", r.note())?;
                    }
                }
            }
            Output::Json | Output::Yaml => {
                use serde::Serializer;
                // Each explanation's JSON is made as the list is written (its per-node lists
                // a node at a time) and dropped after.
                let mut items = self.documents();
                // One explanation unless a list was asked for (null when there is none).
                let one = (!self.array).then(|| items.next());
                if self.output == Output::Json {
                    let mut ser = serde_json::Serializer::pretty(&mut *w);
                    match one {
                        Some(d) => serde::Serialize::serialize(&d, &mut ser)?,
                        None => ser.collect_seq(items)?,
                    }
                    w.write_all(b"\n")?;
                } else {
                    let mut ser = serde_yaml::Serializer::new(&mut *w);
                    match one {
                        Some(d) => serde::Serialize::serialize(&d, &mut ser)?,
                        None => ser.collect_seq(items)?,
                    }
                }
            }
        }
        Ok(())
    }
}

/// Runs `bind`.
pub fn bind(args: &BindArgs, cli: &Cli) -> Result<()> {
    #[cfg(feature = "live")]
    return live::bind(args, cli);
    #[cfg(not(feature = "live"))]
    {
        let _ = (args, cli);
        bail!("this build has no live cluster support (built without the 'live' feature)")
    }
}

/// Runs `preempt`.
pub fn preempt(args: &PreemptArgs, cli: &Cli) -> Result<()> {
    #[cfg(feature = "live")]
    return live::preempt(args, cli);
    #[cfg(not(feature = "live"))]
    {
        let _ = (args, cli);
        bail!("this build has no live cluster support (built without the 'live' feature)")
    }
}

/// Runs `mcp`.
pub fn mcp(args: &McpArgs, cli: &Cli) -> Result<()> {
    #[cfg(feature = "mcp")]
    return mcp::run(args, cli);
    #[cfg(not(feature = "mcp"))]
    {
        let _ = (args, cli);
        bail!("this build has no MCP server (built without the 'mcp' feature)")
    }
}

/// Runs `snapshot`.
pub fn snapshot(args: &SnapshotArgs, cli: &Cli) -> Result<()> {
    #[cfg(feature = "live")]
    return live::snapshot(args, cli);
    #[cfg(not(feature = "live"))]
    {
        let _ = (args, cli);
        bail!("this build has no live cluster support (built without the 'live' feature)")
    }
}

/// Runs `completions`: the script for `shell`, on stdout.
fn completions(shell: clap_complete::Shell) -> Result<()> {
    use clap::CommandFactory;
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "kschedtui", &mut out);
    write_stdout(&String::from_utf8_lossy(&out))
}

/// Writes to stdout; a closed pipe (`| head`) is not an error.
pub fn write_stdout(text: &str) -> Result<()> {
    write_stdout_with(|w| Ok(w.write_all(text.as_bytes())?))
}

/// Writes a report to stdout in its format through [`crate::explain::terminal::Escaping`], so
/// none of the cluster's strings reaches the terminal as a control sequence: the text report
/// with Rust's escapes, JSON with JSON's for the DEL and C1 controls serde_json writes raw
/// (YAML's emitter escapes them itself). Every report of every command goes this way.
pub fn write_report_with(output: Output, write: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    use crate::explain::terminal::Escaping;
    if output == Output::Yaml {
        return write_stdout_with(write);
    }
    write_stdout_with(|w| {
        let mut safe = if output == Output::Json {
            Escaping::json(w)
        } else {
            Escaping::new(w)
        };
        write(&mut safe)?;
        safe.into_inner()?;
        Ok(())
    })
}

/// [`write_report_with`] of a report made whole.
pub fn write_report(output: Output, text: &str) -> Result<()> {
    write_report_with(output, |w| Ok(w.write_all(text.as_bytes())?))
}

/// Prints `warning: MSG` on stderr, its control characters escaped (warnings name the
/// cluster's objects).
pub fn warn(msg: &str) {
    eprintln!("warning: {}", crate::explain::terminal::escape(msg));
}

/// Writes to stdout through a buffer what `write` writes; a closed pipe (`| head`) is not an
/// error, also when a serializer's error wraps it.
pub fn write_stdout_with(write: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let mut out = PipeWatch {
        inner: std::io::BufWriter::with_capacity(64 << 10, std::io::stdout().lock()),
        closed: false,
    };
    let r = write(&mut out).and_then(|()| Ok(out.flush()?));
    match r {
        Err(_) if out.closed => Ok(()),
        r => r,
    }
}

/// A writer that remembers whether the reader went away.
struct PipeWatch<W> {
    inner: W,
    closed: bool,
}

impl<W: Write> PipeWatch<W> {
    fn watch<T>(&mut self, r: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(e) = &r
            && e.kind() == std::io::ErrorKind::BrokenPipe
        {
            self.closed = true;
        }
        r
    }
}

impl<W: Write> Write for PipeWatch<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.inner.write(buf);
        self.watch(r)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.inner.flush();
        self.watch(r)
    }
}

/// Opens the terminal UI on `--snapshot`, `--demo`, or the live cluster.
#[cfg(feature = "tui")]
fn run_tui(cli: &Cli) -> Result<()> {
    #[cfg(not(feature = "live"))]
    if cli.snapshot.is_none() && !cli.demo {
        bail!(
            "live mode (attaching to the current kubeconfig context) is not available in this build; open a snapshot with `kschedtui --snapshot FILE` or the demo with `kschedtui --demo`"
        );
    }
    if let Some(p) = &cli.snapshot
        && !p.exists()
    {
        bail!("cannot read snapshot '{}': no such file or directory", p.display());
    }
    // all are checked before the terminal opens, so a mistake is a one-line error
    let checked = cli.release.resolve(Release::NEWEST)?;
    let config = match &cli.config {
        Some(p) => Some(crate::source::load::scheduler_config(p, &checked)?),
        None => None,
    };
    crate::tui::run(&crate::tui::Options {
        input: Input::from_flags(cli.snapshot.as_deref(), cli.demo),
        theme: cli.theme.clone(),
        readonly: cli.cluster.readonly,
        #[cfg(feature = "live")]
        connect: live::connect_options(
            &cli.cluster,
            cli.namespace.clone(),
            crate::source::live::Scope::AllNamespaces,
        ),
        namespace: cli.namespace.clone(),
        release: cli.release.choice(),
        config,
        evict: cli.evict,
    })
}

/// Without the `tui` feature there is no terminal UI.
#[cfg(not(feature = "tui"))]
fn run_tui(_cli: &Cli) -> Result<()> {
    bail!("this build has no terminal UI (built without the 'tui' feature); use `kschedtui explain`")
}

/// `--scheduler-version`, `--feature-gates`, `--config` and `--evict` before a command belong to the TUI; a
/// command takes its own after its name.
fn check_tui_only_flags(cli: &Cli) -> Result<()> {
    let Some(cmd) = &cli.command else { return Ok(()) };
    let name = match cmd {
        Command::Explain(_) => "explain",
        Command::Bind(_) => "bind",
        Command::Preempt(_) => "preempt",
        Command::Snapshot(_) => "snapshot",
        Command::Generate(_) => "generate",
        Command::Simulate(_) => "simulate",
        Command::Queue(_) => "queue",
        Command::Deschedule(_) => "deschedule",
        Command::Fit(_) => "fit",
        Command::Mcp(_) => "mcp",
        Command::Completions { .. } => "completions",
    };
    if matches!(cmd, Command::Snapshot(_) | Command::Generate(_)) {
        let sources: Vec<&str> = [(cli.demo, "--demo"), (cli.snapshot.is_some(), "--snapshot")]
            .into_iter()
            .filter_map(|(on, f)| on.then_some(f))
            .collect();
        if !sources.is_empty() {
            bail!(
                "{} does not apply to `{name}`, which {}",
                sources.join(" and "),
                if name == "snapshot" {
                    "reads the live cluster of the kubeconfig"
                } else {
                    "writes a synthetic cluster"
                }
            );
        }
    }
    let given: Vec<&str> = [
        (cli.namespace.is_some(), "-n/--namespace"),
        (cli.release.scheduler_version.is_some(), "--scheduler-version"),
        (cli.release.feature_gates.is_some(), "--feature-gates"),
        (cli.config.is_some(), "--config"),
        (cli.evict, "--evict"),
        (cli.all_namespaces, "-A"),
    ]
    .into_iter()
    .filter_map(|(on, f)| on.then_some(f))
    .collect();
    if given.is_empty() {
        return Ok(());
    }
    bail!(
        "{} before the command configures the terminal UI; for `{name}` put it after the command name (kschedtui {name} {} ...)",
        given.join(", "),
        given.join(" ... ")
    )
}

/// The combinations of arguments clap cannot check: each a usage error (exit code 2).
fn check_usage(cli: &Cli) -> Result<(), String> {
    let dash = |p: &Option<PathBuf>| p.as_deref() == Some(Path::new("-"));
    match &cli.command {
        Some(Command::Generate(a)) if a.nodes == 0 && a.pods > 0 => Err(format!(
            "--nodes 0 with --pods {}: bound pods need a node; give --nodes N (at least 1), or --pods 0 for a cluster of pending pods alone",
            a.pods
        )),
        Some(Command::Simulate(a)) if dash(&a.write) => Err(
            "--write -: the standard output carries simulate's report; give a file name (./- for a file named -)"
                .into(),
        ),
        Some(Command::Fit(a)) if a.files.iter().filter(|f| f.as_os_str() == "-").count() > 1 => {
            Err("-f - given twice: the standard input can be read once".into())
        }
        Some(Command::Bind(BindArgs { save, .. }) | Command::Preempt(PreemptArgs { save, .. })) if dash(save) => Err(
            "--save -: the standard output carries the plan and its outcome; give a file name (./- for a file named -)"
                .into(),
        ),
        _ => Ok(()),
    }
}

/// The program: parses arguments and runs a command; returns the exit code.
pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    if let Err(message) = check_usage(&cli) {
        use clap::CommandFactory;
        Cli::command()
            .error(clap::error::ErrorKind::ArgumentConflict, message)
            .exit();
    }
    let mut code = std::process::ExitCode::SUCCESS;
    let r = check_tui_only_flags(&cli).and_then(|()| match &cli.command {
        Some(Command::Explain(a)) => explain(a, cli.snapshot.as_deref(), cli.demo, &cli.cluster).map(|all| {
            if a.exit_status && !all {
                code = std::process::ExitCode::from(EXIT_NOT_SCHEDULABLE);
            }
        }),
        Some(Command::Bind(a)) => bind(a, &cli),
        Some(Command::Preempt(a)) => preempt(a, &cli),
        Some(Command::Snapshot(a)) => snapshot(a, &cli),
        Some(Command::Generate(a)) => generate(a),
        Some(Command::Simulate(a)) => simulate::simulate(a, cli.snapshot.as_deref(), cli.demo),
        Some(Command::Queue(a)) => queue(a, cli.snapshot.as_deref(), cli.demo, &cli.cluster),
        Some(Command::Deschedule(a)) => deschedule::deschedule(a, cli.snapshot.as_deref(), cli.demo, &cli.cluster),
        Some(Command::Fit(a)) => fit::fit(a, cli.snapshot.as_deref(), cli.demo, &cli.cluster).map(|all| {
            if !all {
                code = std::process::ExitCode::from(EXIT_NOT_SCHEDULABLE);
            }
        }),
        Some(Command::Mcp(a)) => mcp(a, &cli),
        Some(Command::Completions { shell }) => completions(*shell),
        None => run_tui(&cli),
    });
    match r {
        Ok(()) => code,
        // the TUI gave the terminal back; the shell reports the signal by the exit code
        #[cfg(feature = "tui")]
        Err(ref e) if let Some(sig) = e.downcast_ref::<crate::tui::Signalled>() => {
            std::process::ExitCode::from(sig.exit_code())
        }
        Err(e) => {
            // the error may quote the cluster or the server (a name, a refusal's message)
            eprintln!("error: {}", crate::explain::terminal::escape(&format!("{e:#}")));
            std::process::ExitCode::from(1)
        }
    }
}
