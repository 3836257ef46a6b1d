//! `kschedtui fit -f FILE`: will the workloads of the manifests fit? Their pods are made as
//! their controllers and admission would make them and placed on a copy of the cluster
//! (`--snapshot`, `--demo`, or the live cluster, read once) by the queue simulation
//! ([`crate::engine::fit`]); the answer per workload is the replicas scheduled, the nodes,
//! and for the first that is not, the exact message, the decisive reason, preemption and the
//! fix hints ([`crate::explain::fit`], docs/fit-json.md). Exit status 0 when every replica
//! fits, 3 when one does not, 1 on an error, 2 on a usage error.
#![allow(clippy::print_stderr)]

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use super::{ClusterArgs, Output, ReleaseArgs, load_cluster_recorded, load_profiles, resolve_features, write_report};
use crate::engine::fit::{FitOptions, fit as run};
use crate::engine::{Features, Framework};
use crate::model::Cluster;
use crate::model::controllers::Manifests;

/// `fit` arguments.
#[derive(Args, Debug, Clone)]
pub struct FitArgs {
    /// A manifest file, a directory of them (its .yaml, .yml and .json files), or - for the
    /// standard input; repeat for more.
    #[arg(short = 'f', long = "filename", value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// The namespace of the manifests that name none (default: the context's on a live
    /// cluster, else "default").
    #[arg(short, long)]
    pub namespace: Option<String>,
    /// Output format (json and yaml: docs/fit-json.md).
    #[arg(short, long, value_enum, default_value = "text")]
    pub output: Output,
    /// The release and feature gates to reproduce.
    #[command(flatten)]
    pub release: ReleaseArgs,
    /// A KubeSchedulerConfiguration file with the profiles to use.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Find the largest number of replicas of each workload that fit, by placing them (each
    /// workload alone).
    #[arg(long)]
    pub max: bool,
    /// Place N replicas of every workload instead of their spec's (a Job's parallelism; a
    /// DaemonSet keeps one pod per eligible node).
    #[arg(long, value_name = "N")]
    pub replicas: Option<usize>,
    /// Apply preemptions as `simulate` does (by default a replica that does not fit only says
    /// whom preemption would evict).
    #[arg(long)]
    pub preempt: bool,
    /// Schedule the cluster's pending pods first, then the workloads.
    #[arg(long)]
    pub after_pending: bool,
    /// Leave out the fix hints of the first replica that does not fit.
    #[arg(long)]
    pub no_fixes: bool,
    /// Passes over the queue at most.
    #[arg(long, default_value_t = FitOptions::default().max_passes)]
    pub max_passes: usize,
    /// Save the cluster as the placement left it (the workloads' pods bound or pending, their
    /// claims, the manifests' objects) to this file: a snapshot `--snapshot` reads again, for
    /// `explain deploy/NAME` or the TUI.
    #[arg(long, value_name = "FILE")]
    pub write: Option<PathBuf>,
    /// --max: the most replicas the search places.
    #[arg(long, default_value_t = FitOptions::default().max_limit, value_name = "N")]
    pub max_limit: usize,
}

impl FitArgs {
    /// The engine's options.
    pub fn options(&self) -> FitOptions {
        FitOptions {
            replicas: self.replicas,
            max: self.max,
            preempt: self.preempt,
            after_pending: self.after_pending,
            max_passes: self.max_passes,
            max_limit: self.max_limit,
        }
    }
}

/// The manifests' names as the report says them.
pub fn source_text(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|p| {
            if p == Path::new("-") {
                "standard input".to_string()
            } else {
                p.display().to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The document of `fit -o json` (docs/fit-json.md) for the MCP tool `fit`, with its two-line
/// summary: placed as `fit` places (its options from `args`; `--write` is not read).
pub fn document(
    args: &FitArgs,
    manifests: &Manifests,
    cluster: Cluster,
    features: &Features,
    profiles: &[Framework],
    cluster_name: String,
) -> (serde_json::Value, String) {
    let report = run(cluster, manifests, profiles, features, &args.options());
    let a = crate::explain::fit::Answer::new(
        &report,
        features,
        profiles,
        !args.no_fixes,
        "manifests".into(),
        cluster_name,
        args.preempt,
    );
    let total: usize = report.workloads.iter().map(|w| w.replicas).sum();
    let scheduled: usize = report.workloads.iter().map(|w| w.scheduled()).sum();
    let summary = format!(
        "fit: {} workload(s), {scheduled} of {total} replica(s) scheduled{}\nnothing was changed: the pods were placed on a copy of the cluster",
        report.workloads.len(),
        if a.all_fit() { "" } else { " (fit -f exits 3)" }
    );
    let v = crate::explain::fit::to_json(&a);
    std::thread::spawn(move || drop(report));
    (v, summary)
}

/// The answer as the output format writes it; true when every replica fits.
pub fn answer(
    args: &FitArgs,
    manifests: &Manifests,
    cluster: Cluster,
    features: &Features,
    profiles: &[Framework],
    source: String,
    cluster_name: String,
) -> Result<(String, bool)> {
    let report = run(cluster, manifests, profiles, features, &args.options());
    let a = crate::explain::fit::Answer::new(
        &report,
        features,
        profiles,
        !args.no_fixes,
        source,
        cluster_name,
        args.preempt,
    );
    let all = a.all_fit();
    if let Some(path) = &args.write {
        crate::source::save::save_path(&report.snapshot.cluster, path).map_err(|e| {
            anyhow::anyhow!(
                "while saving the cluster after the placement to '{}': {e}",
                path.display()
            )
        })?;
        eprintln!("wrote the cluster after the placement to {}", path.display());
    }
    let text = match args.output {
        Output::Text => crate::explain::fit::render(&a),
        Output::Json => serde_json::to_string_pretty(&crate::explain::fit::to_json(&a))? + "\n",
        Output::Yaml => serde_yaml::to_string(&crate::explain::fit::to_json(&a))?,
    };
    // the cluster's memory is given back beside the process's exit
    std::thread::spawn(move || drop(report));
    Ok((text, all))
}

/// Runs `fit`; true when every replica of every workload is scheduled.
pub fn fit(args: &FitArgs, snapshot: Option<&Path>, demo: bool, cluster: &ClusterArgs) -> Result<bool> {
    let (cluster, recorded, ns, name) = if snapshot.is_none() && !demo {
        #[cfg(feature = "live")]
        {
            let d = super::live::read_cluster_described(cluster)?;
            (d.cluster, Some(d.release), d.namespace, d.describe)
        }
        #[cfg(not(feature = "live"))]
        {
            let _ = cluster;
            anyhow::bail!(
                "no cluster to place on: pass --snapshot FILE or --demo (this build has no live cluster support)"
            )
        }
    } else {
        let _ = cluster;
        let (c, recorded) = load_cluster_recorded(snapshot, demo)?;
        let name = match snapshot {
            Some(p) => p.display().to_string(),
            None => "the demo cluster".into(),
        };
        (c, recorded, "default".to_string(), name)
    };
    let namespace = args.namespace.clone().unwrap_or(ns);
    let manifests = crate::source::manifests::read(&args.files, &namespace)?;
    let features = resolve_features(&args.release, recorded)?;
    for w in &cluster.warnings {
        super::warn(w);
    }
    if let Some(n) = features.note() {
        eprintln!("note: {n}");
    }
    let profiles = load_profiles(args.config.as_deref(), &features)?;
    let (text, all) = answer(
        args,
        &manifests,
        cluster,
        &features,
        &profiles,
        source_text(&args.files),
        name,
    )?;
    write_report(args.output, &text)?;
    Ok(all)
}
