//! `kschedtui simulate`: schedules every pending pod of a snapshot in queue order and reports
//! each pod's outcome and the cluster at the end; `--write` saves the resulting snapshot.
#![allow(clippy::print_stderr)]

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use super::{DEMO_SNAPSHOT, Output, load_profiles, write_stdout};
use crate::engine::Version;
use crate::engine::simulate::{SimOptions, simulate as run};
use crate::source::{file, save};

/// `simulate` arguments.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// Output format.
    #[arg(short, long, value_enum, default_value = "text")]
    pub output: Output,
    /// Save the resulting snapshot (a YAML List, JSON for a .json file) to this file.
    #[arg(long)]
    pub write: Option<PathBuf>,
    /// Upstream release to reproduce (1.30 to the newest).
    #[arg(long, default_value_t = Version::NEWEST.to_string())]
    pub scheduler_version: String,
    /// A KubeSchedulerConfiguration file with the profiles to use.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Passes over the queue at most.
    #[arg(long, default_value_t = SimOptions::default().max_passes)]
    pub max_passes: usize,
    /// Use the bundled demo cluster.
    #[arg(long)]
    pub demo: bool,
}

/// Runs `simulate`.
pub fn simulate(args: &SimulateArgs, snapshot: Option<&Path>) -> Result<()> {
    let version: Version = args.scheduler_version.parse().map_err(anyhow::Error::msg)?;
    let cluster = match (snapshot, args.demo) {
        (Some(p), _) => file::load_path_keeping_documents(p)?,
        (None, true) => file::load_str_keeping_documents("demo.yaml (embedded)", DEMO_SNAPSHOT)?,
        (None, false) => bail!("no cluster to simulate: pass --snapshot FILE or --demo"),
    };
    for w in &cluster.warnings {
        eprintln!("warning: {w}");
    }
    let profiles = load_profiles(args.config.as_deref(), version)?;
    let report = run(
        cluster,
        &profiles,
        version,
        SimOptions {
            max_passes: args.max_passes,
        },
    );
    if let Some(path) = &args.write {
        save::save_path(&report.snapshot.cluster, path)
            .with_context(|| format!("while saving the simulated snapshot to '{}'", path.display()))?;
        eprintln!("wrote the resulting snapshot to {}", path.display());
    }
    let text = match args.output {
        Output::Text => crate::explain::simulation::render(&report),
        Output::Json => serde_json::to_string_pretty(&crate::explain::simulation::to_json(&report))? + "\n",
        Output::Yaml => serde_yaml::to_string(&crate::explain::simulation::to_json(&report))?,
    };
    write_stdout(&text)
}
