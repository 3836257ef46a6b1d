//! The commands against a live cluster: `explain`, `queue` and `deschedule` without
//! `--snapshot`, `bind`, `preempt` and `snapshot`. `bind` and `preempt` also run on
//! `--snapshot`/`--demo`, where the writes are applied in memory only (a rehearsal).
//!
//! Every write is printed exactly as it will be sent, checked with a SelfSubjectAccessReview,
//! and confirmed (unless `--yes`); `--readonly` prints the plan and sends nothing.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};

use super::{
    BindArgs, Cli, ClusterArgs, DryRun, ExplainArgs, PreemptArgs, SnapshotArgs, explain_pods, load_profiles,
    resolve_features, write_report,
};
use crate::engine::{self, Features, Release, Snapshot};
use crate::model::ObjectKey;
use crate::model::event::ClusterState;
use crate::source::ClusterSource;
use crate::source::fixture::FixtureSource;
use crate::source::live::config::Environment;
use crate::source::live::watch::{Progress, WatchOptions};
use crate::source::live::{ConnectOptions, LiveSource, Scope};
use crate::source::load::Input;
use crate::source::snapshot::{SnapshotInfo, SnapshotOptions, write_file};
use crate::source::write::{Plan, Removal, Report, WriteMode, bind_plan, check_plan, execute, preempt_plan};

/// `println!` for the lines that quote the cluster (pod and node names, the server's answers):
/// their control characters escaped, as every text report's ([`crate::explain::terminal`]).
macro_rules! say {
    ($($arg:tt)*) => {
        println!("{}", crate::explain::terminal::escape(&format!($($arg)*)))
    };
}

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

pub(crate) fn write_mode(c: &ClusterArgs) -> WriteMode {
    if c.readonly {
        WriteMode::ReadOnly
    } else if c.dry_run == DryRun::Server {
        WriteMode::DryRun
    } else {
        WriteMode::Enabled
    }
}

/// The live source's options from the command line.
pub(crate) fn connect_options(c: &ClusterArgs, namespace: Option<String>, scope: Scope) -> ConnectOptions {
    let timeout = Duration::from_secs(c.request_timeout.max(1));
    let mut opts = ConnectOptions {
        scope,
        mode: write_mode(c),
        ..Default::default()
    };
    opts.config.kubeconfig.clone_from(&c.kubeconfig);
    opts.config.context.clone_from(&c.context);
    opts.config.namespace = namespace;
    opts.config.timeout = Some(timeout);
    opts.watch = WatchOptions {
        request_timeout: timeout,
        ..WatchOptions::default()
    };
    opts
}

/// Prints list progress on one line of a terminal's stderr; silent otherwise.
fn progress_printer() -> crate::source::live::ProgressFn {
    let tty = std::io::stderr().is_terminal();
    Arc::new(move |p: &Progress| {
        if tty {
            let mut e = std::io::stderr().lock();
            let _ = write!(
                e,
                "\r\x1b[2Klisting {}: {} ({} page(s))",
                p.kind.plural(),
                p.items,
                p.pages
            );
            if p.done {
                let _ = write!(e, "\r\x1b[2K");
            }
            let _ = e.flush();
        }
    })
}

/// Connects, reads the server version and lists everything.
async fn connect_and_load(
    c: &ClusterArgs,
    namespace: Option<String>,
    scope: Scope,
) -> Result<(LiveSource, crate::source::live::ServerVersion, ClusterState)> {
    let opts = connect_options(c, namespace, scope);
    let src = LiveSource::connect(&opts, &Environment::from_process())
        .await?
        .with_progress(progress_printer())
        .with_write_progress(Arc::new(|line: &str| {
            let tty = std::io::stderr().is_terminal();
            let mut e = std::io::stderr().lock();
            let _ = if tty {
                write!(e, "\r\x1b[2K{line}")
            } else {
                writeln!(e, "{line}")
            };
            let _ = e.flush();
        }));
    let sv = src.server_version().await?;
    let state = src.load_state().await?;
    eprintln!(
        "kschedtui: read {} objects from {} (Kubernetes {}) at resourceVersions {}",
        state.len(),
        src.describe(),
        sv.git_version,
        state.resource_version_summary()
    );
    if let Some(why) = src.not_streamed_reason() {
        eprintln!("kschedtui: {why}");
    }
    Ok((src, sv, state))
}

/// The server's release, with a note when kschedtui explains it as another one.
fn server_default(sv: &crate::source::live::ServerVersion) -> (Release, Option<String>) {
    Release::from_server(&sv.git_version)
}

/// `explain` against the live cluster.
pub fn explain(args: &ExplainArgs, c: &ClusterArgs) -> Result<bool> {
    let explained = runtime()?.block_on(async {
        let (src, sv, state) = connect_and_load(c, args.namespace.clone(), Scope::AllNamespaces).await?;
        let features = resolve_features(&args.release, Some(server_default(&sv)))?;
        if args.release.scheduler_version.is_none() {
            eprintln!(
                "kschedtui: reproducing kube-scheduler {} (the server's release)",
                features.describe()
            );
        }
        let cluster = state.to_cluster()?;
        // the cluster shares the pods and nodes: what the store holds besides them goes
        drop(state);
        explain_pods(args, cluster, &features, &src.info().namespace).map_err(|e| {
            // the pod is missing from the cluster itself, not from a snapshot file
            match e.downcast_ref::<crate::engine::EngineError>() {
                Some(crate::engine::EngineError::PodNotFound(key, hint)) => anyhow::anyhow!(
                    "pod '{key}' is not in the cluster of context '{}' ({}){hint}",
                    src.info().context,
                    src.info().server
                ),
                _ => e,
            }
        })
    })?;
    explained.print()
}

/// `queue` against the live cluster.
pub fn queue(args: &super::QueueArgs, c: &ClusterArgs) -> Result<()> {
    let text = runtime()?.block_on(async {
        let (_, sv, state) = connect_and_load(c, None, Scope::AllNamespaces).await?;
        let features = resolve_features(&args.release, Some(server_default(&sv)))?;
        let cluster = state.to_cluster()?;
        super::render_queue(args, cluster, &features)
    })?;
    write_report(args.output, &text)
}

/// Lists the live cluster once for a read-only command (`deschedule`): the cluster, and the
/// release its server reports as the default for `--scheduler-version`.
pub fn read_cluster(c: &ClusterArgs) -> Result<(crate::model::Cluster, (Release, Option<String>))> {
    runtime()?.block_on(async {
        let (_, sv, state) = connect_and_load(c, None, Scope::AllNamespaces).await?;
        Ok((state.to_cluster()?, server_default(&sv)))
    })
}

/// A live cluster read once for `fit`.
pub struct Described {
    /// The cluster.
    pub cluster: crate::model::Cluster,
    /// The release its server reports (the default for `--scheduler-version`).
    pub release: (Release, Option<String>),
    /// The context's namespace.
    pub namespace: String,
    /// The source as the report names it.
    pub describe: String,
}

/// Reads the whole live cluster once, with the context's namespace and the source's
/// description (`fit`: manifests without a namespace land in the context's, as `kubectl apply`
/// puts them).
pub fn read_cluster_described(c: &ClusterArgs) -> Result<Described> {
    runtime()?.block_on(async {
        let (src, sv, state) = connect_and_load(c, None, Scope::AllNamespaces).await?;
        Ok(Described {
            cluster: state.to_cluster()?,
            release: server_default(&sv),
            namespace: src.info().namespace.clone(),
            describe: src.describe(),
        })
    })
}

/// `snapshot`.
pub fn snapshot(args: &SnapshotArgs, cli: &Cli) -> Result<()> {
    let c = &cli.cluster;
    let scope = match (&args.namespace, args.all_namespaces) {
        (Some(ns), false) => Scope::Namespace(ns.clone()),
        _ => Scope::AllNamespaces,
    };
    runtime()?.block_on(async {
        let (src, sv, state) = connect_and_load(c, args.namespace.clone(), scope.clone()).await?;
        let info = src.info();
        let scope_text = match &scope {
            Scope::AllNamespaces => "all namespaces".to_string(),
            Scope::Namespace(ns) => format!("namespace '{ns}' (and cluster-scoped objects)"),
        };
        let header = vec![
            format!("kschedtui snapshot of {} (Kubernetes {})", src.describe(), sv.git_version),
            format!("scope: {scope_text}"),
            format!("resourceVersions: {}", state.resource_version_summary()),
            "read it with: kschedtui explain --snapshot FILE --all-pending".to_string(),
        ];
        let opts = SnapshotOptions {
            anonymize: args.anonymize,
            json: false,
            header,
            info: SnapshotInfo {
                kubernetes_version: Some(sv.git_version.clone()),
                context: Some(info.context.clone()),
                server: Some(info.server.clone()),
                namespace: match &scope {
                    Scope::Namespace(ns) => Some(ns.clone()),
                    Scope::AllNamespaces => None,
                },
                resource_versions: state
                    .resource_versions
                    .iter()
                    .map(|(k, v)| (k.name().to_string(), v.clone()))
                    .collect(),
                unreadable: state
                    .unreadable
                    .iter()
                    .map(|(k, v)| (k.name().to_string(), v.clone()))
                    .collect(),
            },
        };
        if args.output == std::path::Path::new("-") {
            // a reader that goes away (`| head`) is not an error
            super::write_stdout(&crate::source::snapshot::render(&state, &opts)?)?;
        } else {
            write_file(&args.output, &state, &opts)?;
        }
        let left_out = if args.anonymize {
            crate::source::snapshot::left_out_by_anonymize(&state)
        } else {
            0
        };
        eprintln!(
            "kschedtui: wrote {} objects to {}{}",
            state.len() - left_out,
            if args.output == std::path::Path::new("-") {
                "the standard output".to_string()
            } else {
                format!("'{}'", args.output.display())
            },
            if args.anonymize { " (anonymized)" } else { "" }
        );
        if left_out > 0 {
            eprintln!(
                "warning: --anonymize left out the {left_out} FailedScheduling event(s): their messages name PVCs, nodes and taint values, which cannot be replaced reliably in free text"
            );
        }
        if let Some(why) = state.unreadable.get(&crate::model::event::Kind::Event) {
            super::warn(&format!(
                "events could not be read ({why}): the snapshot has no FailedScheduling events"
            ));
        }
        for (kind, why) in &state.unreadable {
            if let Some(w) = crate::model::unreadable_warning(*kind, why) {
                super::warn(&w);
            }
        }
        if let Scope::Namespace(ns) = &scope {
            eprintln!(
                "warning: only namespace '{ns}' was read: pods of other namespaces are missing, so node usage is understated"
            );
        }
        Ok(())
    })
}

/// A source for `bind`/`preempt`: the snapshot or demo in memory, or the live cluster.
enum Target {
    Fixture(Box<FixtureSource>, Option<(Release, Option<String>)>),
    Live(Box<LiveSource>, (Release, Option<String>)),
}

impl Target {
    /// The in-memory API server of a rehearsal answers as the release's would; `--save` is for
    /// rehearsals only.
    fn for_release(self, features: &Features, save: Option<&std::path::Path>) -> Result<Self> {
        match self {
            Target::Fixture(s, v) => Ok(Target::Fixture(
                Box::new(s.with_server_options(features.server_options())),
                v,
            )),
            Target::Live(s, v) => {
                if let Some(p) = save {
                    bail!(
                        "--save {} writes a rehearsal's result and needs --snapshot or --demo; on a live cluster the writes are the result",
                        p.display()
                    );
                }
                Ok(Target::Live(s, v))
            }
        }
    }

    /// Confirms and executes the plan; a rehearsal's cluster is then saved to `save`. A failed
    /// plan still saves what it did (the rehearsal shows a partial preemption as it is).
    async fn run(&self, plan: &Plan, yes: bool, save: Option<&std::path::Path>) -> Result<()> {
        match self {
            Target::Live(s, _) => outcome(&confirm_and_execute(&**s, plan, yes).await?),
            Target::Fixture(s, _) => {
                let report = confirm_and_execute(&**s, plan, yes).await?;
                if let Some(path) = save {
                    let cluster = s.state().to_cluster()?;
                    crate::source::save::save(&cluster, path, true)
                        .map_err(|e| anyhow!("{e}; the rehearsal's result was not saved"))?;
                    say!("Saved the cluster after the writes to {}.", path.display());
                }
                outcome(&report)
            }
        }
    }
}

async fn open_target(cli: &Cli, namespace: Option<String>) -> Result<(Target, ClusterState, String)> {
    let mode = write_mode(&cli.cluster);
    if let Some(input) = Input::from_flags(cli.snapshot.as_deref(), cli.demo) {
        let s = input.fixture()?.with_write_mode(mode);
        let state = s.load().await?;
        eprintln!(
            "kschedtui: rehearsal on {}: changes stay in memory, nothing is written",
            s.describe()
        );
        return Ok((Target::Fixture(Box::new(s), input.recorded()), state, "default".into()));
    }
    let (src, sv, state) = connect_and_load(&cli.cluster, namespace, Scope::AllNamespaces).await?;
    let ns = src.info().namespace.clone();
    let v = server_default(&sv);
    Ok((Target::Live(Box::new(src), v), state, ns))
}

fn explain_one(
    state: &ClusterState,
    pod: &ObjectKey,
    features: &Features,
    config: Option<&std::path::Path>,
) -> Result<(
    crate::model::Cluster,
    crate::engine::framework::trace::Explanation,
    Vec<engine::Framework>,
)> {
    let cluster = state.to_cluster()?;
    if cluster.pod(pod).is_none() {
        bail!("pod {pod} is not in the cluster");
    }
    let profiles = load_profiles(config, features)?;
    let snap = Snapshot::new(Arc::new(cluster.clone()), features);
    let ex = engine::explain(&snap, &profiles, pod)?;
    Ok((cluster, ex, profiles))
}

/// `bind`.
pub fn bind(args: &BindArgs, cli: &Cli) -> Result<()> {
    runtime()?.block_on(async {
        super::check_all_namespaces_pod(&args.pod, args.all_namespaces)?;
        let (target, state, ns) = open_target(cli, args.namespace.clone()).await?;
        let pod = ObjectKey::parse(&args.pod, args.namespace.as_deref().unwrap_or(&ns));
        let default = match &target {
            Target::Fixture(_, v) => v.clone(),
            Target::Live(_, v) => Some(v.clone()),
        };
        let features = resolve_features(&args.release, default)?;
        let target = target.for_release(&features, args.save.as_deref())?;
        let (cluster, ex, profiles) = explain_one(&state, &pod, &features, args.config.as_deref())?;
        let choice = BindChoice {
            node: args.node.as_deref(),
            force: args.force,
            gang: args.gang,
            timeout: args.timeout,
        };
        let plan = plan_bind(&cluster, &ex, &profiles, &features, &pod, &choice, &mut |s| match s {
            Say::Out(line) => say!("{line}"),
            Say::Warn(line) => super::warn(&line),
        })?;
        target.run(&plan, args.yes, args.save.as_deref()).await
    })
}

/// What a plan's maker says along the way: a line for stdout, or a warning.
pub(crate) enum Say {
    /// A line of the report.
    Out(String),
    /// A warning (`warning: ` is added where it is printed).
    Warn(String),
}

/// How to bind: `bind`'s flags (and the MCP `bind` tool's arguments).
pub(crate) struct BindChoice<'a> {
    /// `--node`: this node instead of the engine's.
    pub node: Option<&'a str>,
    /// `--force`: bind to a node that fails Filter, or a gang member alone.
    pub force: bool,
    /// `--gang`: every member of the pod's gang the engine places.
    pub gang: bool,
    /// `--timeout`: how long VolumeBinding's waits last.
    pub timeout: Option<u64>,
}

/// The requests `bind` sends for `pod` (explained as `ex` on `cluster`): the engine's binding
/// cycle on the chosen node (nomination, PreBind writes, a gang member's refusal to bind
/// alone), or the gang's plan; an error when nothing may be sent.
pub(crate) fn plan_bind(
    cluster: &crate::model::Cluster,
    ex: &crate::engine::trace::Explanation,
    profiles: &[engine::Framework],
    features: &Features,
    pod: &ObjectKey,
    choice: &BindChoice<'_>,
    say: &mut dyn FnMut(Say),
) -> Result<Plan> {
    let version = features.describe();
    if choice.gang {
        let mut plan = gang_plan(cluster, profiles, features, pod)?;
        set_timeout(&mut plan, choice.timeout);
        return Ok(plan);
    }
    let node = match choice.node {
        Some(n) => {
            if !cluster.nodes.iter().any(|x| x.name == *n) {
                bail!("node '{n}' is not in the cluster");
            }
            if let Some(why) = ex.why_not(n) {
                say(Say::Warn(why));
                if !choice.force {
                    bail!(
                        "refusing to bind {pod} to {n}, which fails Filter: the kubelet would likely reject the pod; pass --force to bind it anyway"
                    );
                }
                say(Say::Warn(
                    "binding anyway (--force): the kubelet may reject the pod".to_string(),
                ));
            }
            n.to_string()
        }
        None => match ex.selected.as_slice() {
            [] => bail!(
                "the engine finds no node for {pod} ({}); pass --node NODE to bind it anyway",
                ex.verdict()
            ),
            [one] => {
                say(Say::Out(format!(
                    "The engine selects node '{one}' for {pod} (kube-scheduler {version})."
                )));
                one.clone()
            }
            [first, ..] => match &ex.host_pick {
                Some(pick) => {
                    say(Say::Out(format!(
                        "{} nodes tie for {pod} ({}); kube-scheduler {version} takes '{pick}' when they pass Filter in name order (on a real cluster the order can differ; pass --node to choose).",
                        ex.selected.len(),
                        ex.selected.join(", ")
                    )));
                    pick.clone()
                }
                None => {
                    say(Say::Out(format!(
                        "{} nodes tie for {pod} ({}); kube-scheduler picks one at random, kschedtui takes '{first}' (pass --node to choose).",
                        ex.selected.len(),
                        ex.selected.join(", ")
                    )));
                    first.clone()
                }
            },
        },
    };
    let commit = engine::commit::commit_on(&Arc::new(cluster.clone()), profiles, features, pod, &node, choice.force)?;
    if commit.waits_for.is_some() {
        let why = engine::commit::gang_refusal(pod, &node, commit.waits_for.as_ref());
        if !choice.force {
            bail!("{why}");
        }
        say(Say::Warn(format!(
            "binding {pod} alone although it would wait at Permit for its gang (--force): the gang's other members may never join it"
        )));
    }
    if let Some(f) = &commit.fails {
        bail!("the scheduler's binding cycle fails for {pod} on node '{node}' ({f}); nothing was sent");
    }
    if commit.writes.is_none() && choice.force {
        say(Say::Warn(
            "no binding cycle runs on a node that fails Filter: only the Binding is sent, without the PreBind writes (volumes, claims) the scheduler would make".to_string(),
        ));
    }
    let mut plan = bind_plan(cluster, pod, &node, commit.writes.as_ref())?;
    set_timeout(&mut plan, choice.timeout);
    Ok(plan)
}

/// `--timeout`: how long VolumeBinding's waits last (instead of bindTimeoutSeconds).
fn set_timeout(plan: &mut Plan, timeout: Option<u64>) {
    let Some(t) = timeout else { return };
    for r in &mut plan.requests {
        if let crate::source::write::WriteRequest::AwaitVolumes(w) = r {
            w.timeout_secs = t;
        }
    }
}

/// `bind --gang`: every member of the pod's gang the engine places, once the gang's quorum is
/// met, each with its binding cycle's writes. The members are planned one after the other on
/// a copy of the cluster that the earlier members' writes were applied to (so each sees the
/// devices and volumes the earlier ones took), and any member that no longer fits stops the
/// plan before anything is sent.
fn gang_plan(
    cluster: &crate::model::Cluster,
    profiles: &[engine::Framework],
    features: &Features,
    pod: &ObjectKey,
) -> Result<Plan> {
    use crate::engine::group_cycle::{GroupOutcome, MemberResult};
    let Some(gc) = engine::group_cycle::group_cycle(cluster, profiles, features, pod)? else {
        bail!("{pod} belongs to no gang (no Permit plugin of its profile groups it); bind it without --gang");
    };
    if gc.outcome != GroupOutcome::Completes {
        bail!("not binding gang {}: {}; nothing was sent", gc.gang.group, gc.verdict());
    }
    let mut scratch = cluster.clone();
    let mut requests = Vec::new();
    let mut names = Vec::new();
    for m in &gc.members {
        let (MemberResult::Bound { node } | MemberResult::Waiting { node }) = &m.result else {
            continue;
        };
        let c = engine::commit::commit_on(&Arc::new(scratch.clone()), profiles, features, &m.pod, node, true)?;
        if let Some(f) = &c.fails {
            bail!(
                "not binding gang {}: the binding cycle of member {} fails on node '{node}' ({f}); nothing was sent",
                gc.gang.group,
                m.pod
            );
        }
        let Some(w) = &c.writes else {
            bail!(
                "not binding gang {}: member {} no longer fits on node '{node}' once the members before it are placed; nothing was sent",
                gc.gang.group,
                m.pod
            );
        };
        let plan = bind_plan(&scratch, &m.pod, node, Some(w))?;
        let report =
            crate::model::apiserver::execute(&mut scratch, &plan, WriteMode::Enabled, &features.server_options());
        if !report.ok() {
            bail!(
                "not binding gang {}: planning member {} failed: {}; nothing was sent",
                gc.gang.group,
                m.pod,
                report.render(false).trim()
            );
        }
        names.push(format!("{} → {node}", m.pod));
        requests.extend(plan.requests);
    }
    if names.is_empty() {
        bail!(
            "not binding gang {}: no pending member is placed; nothing was sent",
            gc.gang.group
        );
    }
    Ok(Plan {
        action: format!(
            "bind gang {} ({}, quorum {} met): {}",
            gc.gang.group,
            gc.gang.plugin,
            gc.gang.min_member,
            names.join(", ")
        ),
        requests,
        victims: Vec::new(),
    })
}

/// `preempt`.
pub fn preempt(args: &PreemptArgs, cli: &Cli) -> Result<()> {
    runtime()?.block_on(async {
        super::check_all_namespaces_pod(&args.pod, args.all_namespaces)?;
        let (target, state, ns) = open_target(cli, args.namespace.clone()).await?;
        let pod = ObjectKey::parse(&args.pod, args.namespace.as_deref().unwrap_or(&ns));
        let default = match &target {
            Target::Fixture(_, v) => v.clone(),
            Target::Live(_, v) => Some(v.clone()),
        };
        let features = resolve_features(&args.release, default)?;
        let target = target.for_release(&features, args.save.as_deref())?;
        let (cluster, ex, _) = explain_one(&state, &pod, &features, args.config.as_deref())?;
        let how = if args.evict { Removal::Evict } else { Removal::Delete };
        let plan = plan_preempt(&cluster, &ex, &pod, &features, how, &mut |line| say!("{line}"))?;
        target.run(&plan, args.yes, args.save.as_deref()).await
    })
}

/// The requests `preempt` sends for `pod` (explained as `ex` on `cluster`): the engine's
/// victims removed, then the nomination; an error when preemption does not apply.
pub(crate) fn plan_preempt(
    cluster: &crate::model::Cluster,
    ex: &crate::engine::trace::Explanation,
    pod: &ObjectKey,
    features: &Features,
    how: Removal,
    say: &mut dyn FnMut(String),
) -> Result<Plan> {
    let version = features.describe();
    if ex.schedulable() {
        bail!(
            "{pod} needs no preemption ({}); use `kschedtui bind {pod}`",
            ex.verdict()
        );
    }
    let Some(pf) = &ex.post_filter else {
        bail!(
            "the engine did not run preemption for {pod} ({}); nothing to preempt",
            ex.verdict()
        );
    };
    let Some(node) = &pf.nominated_node else {
        let why = if pf.message.is_empty() {
            ex.verdict()
        } else {
            pf.message.clone()
        };
        bail!("preemption would not help {pod}: {why}");
    };
    say(format!(
        "The engine (kube-scheduler {version}) nominates node '{node}' for {pod}, with {} victim(s): {}",
        pf.victims.len(),
        pf.victims
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    ));
    Ok(preempt_plan(cluster, pod, node, &pf.victims, how)?)
}

/// Prints the plan, checks permissions, asks, sends and prints the report; an error when
/// nothing was sent.
async fn confirm_and_execute<S: ClusterSource>(src: &S, plan: &Plan, yes: bool) -> Result<Report> {
    let mode = src.write_mode();
    let dry = mode == WriteMode::DryRun;
    say!("Plan: {}", plan.action);
    say!(
        "Requests to {}{}:",
        src.describe(),
        if dry {
            ", sent as server-side dry runs (dryRun=All)"
        } else {
            ""
        }
    );
    for (i, r) in plan.requests.iter().enumerate() {
        say!("{:>3}. {}", i + 1, r.describe(dry));
    }
    if mode == WriteMode::ReadOnly {
        bail!("writes are disabled (--readonly); nothing was sent");
    }
    if let Err(refused) = check_plan(src, plan).await {
        let msgs: Vec<String> = refused.iter().map(ToString::to_string).collect();
        bail!("{}; nothing was sent", msgs.join("; "));
    }
    say!("Permission check: allowed.");
    if !yes && !ask(&format!("Send {} request(s)? [y/N] ", plan.requests.len()))? {
        bail!("cancelled; nothing was sent");
    }
    let report = execute(src, plan).await;
    print!("{}", crate::explain::terminal::escape(&report.render(dry)));
    Ok(report)
}

/// A report that is not ok is an error naming the first critical failure.
pub(crate) fn outcome(report: &Report) -> Result<()> {
    let plan = &report.plan;
    if report.ok() {
        return Ok(());
    }
    let first = report
        .steps
        .iter()
        .zip(&plan.requests)
        .find_map(|(s, r)| match s {
            crate::source::write::Step::Failed(e) if r.critical() => Some(e.to_string()),
            _ => None,
        })
        .unwrap_or_else(|| "a request failed".to_string());
    if plan.victims.is_empty() {
        Err(anyhow!(first))
    } else {
        Err(anyhow!(
            "preemption incomplete: {} of {} victim(s) removed, the node was not nominated: {first}",
            report.victims_removed().len(),
            plan.victims.len()
        ))
    }
}

fn ask(prompt: &str) -> Result<bool> {
    print!("{prompt}");
    std::io::stdout().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    let a = line.trim().to_ascii_lowercase();
    Ok(a == "y" || a == "yes")
}
