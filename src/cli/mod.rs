//! Headless commands on the same engine: `explain` (and the entry point that dispatches to the
//! TUI). Errors are printed as one line and give a non-zero exit code.
#![allow(clippy::print_stdout, clippy::print_stderr)]

pub mod simulate;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::engine::{self, Framework, SchedulerConfig, Snapshot, Version};
use crate::model::{Cluster, ObjectKey};
use crate::source::file;

/// The demo cluster, embedded so `--demo` works from any directory.
pub const DEMO_SNAPSHOT: &str = include_str!("../../fixtures/demo.yaml");

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
    /// Open the bundled demo cluster.
    #[arg(long)]
    pub demo: bool,
    /// TUI colour theme: a bundled name (default, light, high-contrast) or a YAML file.
    #[arg(long, value_name = "NAME|FILE")]
    pub theme: Option<String>,
    /// TUI: refuse writes (bind, preempt).
    #[arg(long)]
    pub readonly: bool,
}

/// Commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Explain why pods are (or are not) schedulable.
    Explain(ExplainArgs),
    /// Write a seeded synthetic cluster (for benchmarks and scale tests).
    Generate(GenerateArgs),
    /// Schedule every pending pod in queue order, applying each result before the next.
    Simulate(simulate::SimulateArgs),
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
    /// Seed (the same seed gives the same cluster).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Output file; .json writes JSON, anything else YAML.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Runs `generate`.
pub fn generate(a: &GenerateArgs) -> Result<()> {
    let v = crate::testkit::generate(crate::testkit::GenSpec {
        nodes: a.nodes,
        pods: a.pods,
        seed: a.seed,
    });
    let text = if a.output.extension().is_some_and(|e| e == "json") {
        serde_json::to_string(&v)?
    } else {
        serde_yaml::to_string(&v)?
    };
    std::fs::write(&a.output, text).with_context(|| format!("cannot write '{}'", a.output.display()))?;
    eprintln!(
        "wrote {} nodes and {} bound pods to {} (pending pod: {}/{})",
        a.nodes,
        a.pods,
        a.output.display(),
        crate::testkit::PENDING_POD.0,
        crate::testkit::PENDING_POD.1
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
    /// The pod: NAMESPACE/NAME, or NAME with -n.
    pub pod: Option<String>,
    /// Namespace of a pod given by name.
    #[arg(short, long, default_value = "default")]
    pub namespace: String,
    /// Explain every pending pod, in scheduling queue order.
    #[arg(long, conflicts_with = "pod")]
    pub all_pending: bool,
    /// Output format.
    #[arg(short, long, value_enum, default_value = "text")]
    pub output: Output,
    /// Upstream release to reproduce (1.30 to the newest).
    #[arg(long, default_value_t = Version::NEWEST.to_string())]
    pub scheduler_version: String,
    /// A KubeSchedulerConfiguration file with the profiles to use.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Use the bundled demo cluster.
    #[arg(long)]
    pub demo: bool,
}

/// Loads the cluster from `--snapshot` or the demo.
pub fn load_cluster(snapshot: Option<&Path>, demo: bool) -> Result<Cluster> {
    match (snapshot, demo) {
        (Some(p), _) => Ok(file::load_path(p)?),
        (None, true) => Ok(file::load_str("demo.yaml (embedded)", DEMO_SNAPSHOT)?),
        (None, false) => bail!(
            "no cluster to explain against: pass --snapshot FILE or --demo (explaining against a live cluster is not implemented yet)"
        ),
    }
}

/// Reads the profiles of a version, from a config file when given.
pub fn load_profiles(config: Option<&Path>, version: Version) -> Result<Vec<Framework>> {
    let cfg = match config {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read scheduler config '{}'", p.display()))?;
            Some(SchedulerConfig::parse(&text).with_context(|| format!("in '{}'", p.display()))?)
        }
        None => None,
    };
    Ok(engine::build_profiles(cfg.as_ref(), version)?)
}

/// Runs `explain`.
pub fn explain(args: &ExplainArgs, snapshot: Option<&Path>) -> Result<()> {
    let version: Version = args.scheduler_version.parse().map_err(anyhow::Error::msg)?;
    let cluster = load_cluster(snapshot, args.demo)?;
    for w in &cluster.warnings {
        eprintln!("warning: {w}");
    }
    let profiles = load_profiles(args.config.as_deref(), version)?;
    let snap = Snapshot::new(Arc::new(cluster), version);
    let keys: Vec<ObjectKey> = if args.all_pending {
        snap.cluster.pending_pods().iter().map(|p| p.key.clone()).collect()
    } else {
        match &args.pod {
            Some(p) => vec![ObjectKey::parse(p, &args.namespace)],
            None => bail!("name a pod (NAMESPACE/NAME, or NAME -n NAMESPACE) or pass --all-pending"),
        }
    };
    let mut out = Vec::new();
    for k in &keys {
        out.push(engine::explain(&snap, &profiles, k)?);
    }
    let text = match args.output {
        Output::Text => {
            if out.is_empty() {
                "no pending pods in the snapshot\n".to_string()
            } else {
                out.iter()
                    .map(crate::explain::text::render)
                    .collect::<Vec<_>>()
                    .join("\n")
            }
        }
        Output::Json | Output::Yaml => {
            let values: Vec<serde_json::Value> = out.iter().map(crate::explain::json::to_value).collect();
            let v = if args.all_pending {
                serde_json::Value::Array(values)
            } else {
                values.into_iter().next().unwrap_or(serde_json::Value::Null)
            };
            if args.output == Output::Json {
                serde_json::to_string_pretty(&v)? + "\n"
            } else {
                serde_yaml::to_string(&v)?
            }
        }
    };
    write_stdout(&text)
}

/// Writes to stdout; a closed pipe (`| head`) is not an error.
pub fn write_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

/// Opens the terminal UI on `--snapshot` or `--demo`.
#[cfg(feature = "tui")]
fn run_tui(cli: &Cli) -> Result<()> {
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
    crate::tui::run(&crate::tui::Options {
        snapshot: cli.snapshot.clone(),
        demo: cli.demo,
        theme: cli.theme.clone(),
        readonly: cli.readonly,
    })
}

/// Without the `tui` feature there is no terminal UI.
#[cfg(not(feature = "tui"))]
fn run_tui(_cli: &Cli) -> Result<()> {
    bail!("this build has no terminal UI (built without the 'tui' feature); use `kschedtui explain`")
}

/// The program: parses arguments and runs a command; returns the exit code.
pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let r = match &cli.command {
        Some(Command::Explain(a)) => explain(a, cli.snapshot.as_deref()),
        Some(Command::Generate(a)) => generate(a),
        Some(Command::Simulate(a)) => simulate::simulate(a, cli.snapshot.as_deref()),
        None => run_tui(&cli),
    };
    match r {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::from(1)
        }
    }
}
