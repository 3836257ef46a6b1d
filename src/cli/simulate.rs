//! `kschedtui simulate`: schedules every pending pod of a snapshot in queue order and reports
//! each pod's outcome and the cluster at the end; `--write` saves the resulting snapshot.
#![allow(clippy::print_stderr)]

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;

use super::{Output, ReleaseArgs, input, load_profiles, resolve_features, write_report, write_report_with};
use crate::engine::simulate::{Detail, SimOptions, simulate as run};
use crate::source::save;

/// `simulate` arguments.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// Output format.
    #[arg(short, long, value_enum, default_value = "text")]
    pub output: Output,
    /// Save the resulting snapshot (a YAML List, JSON for a .json file) to this file (an existing
    /// file is replaced, whole or not at all).
    #[arg(long)]
    pub write: Option<PathBuf>,
    /// The release and feature gates to reproduce (default: the one recorded in the
    /// snapshot, or the newest).
    #[command(flatten)]
    pub release: ReleaseArgs,
    /// A KubeSchedulerConfiguration file with the profiles to use.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Passes over the queue at most.
    #[arg(long, default_value_t = SimOptions::default().max_passes)]
    pub max_passes: usize,
    /// Attempt only the pending pods of this namespace; the others stay pending (the cluster,
    /// and so every node's usage, is still the whole cluster).
    #[arg(short, long, conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// Every namespace (the default).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Reproduce percentageOfNodesToScore: the first cycle searches kube-scheduler's node
    /// list (zones interleaved) from this index, each next one from where the last stopped
    /// (nextStartNodeIndex), and scores only the feasible nodes found.
    #[arg(long, value_name = "INDEX")]
    pub start_node: Option<usize>,
}

/// Runs `simulate`.
pub fn simulate(args: &SimulateArgs, snapshot: Option<&Path>, demo: bool) -> Result<()> {
    let input = input(snapshot, demo, "simulate")?;
    // The snapshot is read once, its recorded release with its objects (it may be a pipe);
    // every document kept as read only when the result is saved (`--write` patches them): a
    // JSON List then goes the general way, every object parsed whole and kept twice (a peak
    // several times as high).
    let cluster = if args.write.is_some() {
        input.load_keeping_documents()?
    } else {
        input.load()?
    };
    let features = resolve_features(&args.release, crate::source::load::recorded_in(&cluster))?;
    for w in &cluster.warnings {
        super::warn(w);
    }
    if let Some(n) = features.note() {
        eprintln!("note: {n}");
    }
    let profiles = load_profiles(args.config.as_deref(), &features)?;
    let only = only_namespace(&cluster, args.namespace.as_deref())?;
    let report = run(
        cluster,
        &profiles,
        &features,
        SimOptions {
            max_passes: args.max_passes,
            only,
            placement: None,
            // the text report reads the attempt's outcome and gang only
            detail: match args.output {
                Output::Text => Detail::Summary,
                Output::Json | Output::Yaml => Detail::Full,
            },
            start_node: args.start_node,
            ..Default::default()
        },
    );
    if let Some(path) = &args.write {
        save::save_path(&report.snapshot.cluster, path)
            .with_context(|| format!("while saving the simulated snapshot to '{}'", path.display()))?;
        eprintln!("wrote the resulting snapshot to {}", path.display());
    }
    let json = crate::explain::simulation::Report(&report);
    // JSON and YAML written as they are made (a long run's report is hundreds of MB).
    match args.output {
        Output::Text => write_report(Output::Text, &crate::explain::simulation::render(&report)),
        Output::Json => write_report_with(Output::Json, |w| {
            serde::Serialize::serialize(&json, &mut serde_json::Serializer::pretty(&mut *w))?;
            Ok(w.write_all(b"\n")?)
        }),
        Output::Yaml => write_report_with(Output::Yaml, |w| {
            serde::Serialize::serialize(&json, &mut serde_yaml::Serializer::new(w))?;
            Ok(())
        }),
    }
}

/// `-n NS`: the pending pods of that namespace (an error naming it when the cluster has no pod
/// and no Namespace object of that name); None for every namespace.
pub(crate) fn only_namespace(
    cluster: &crate::model::Cluster,
    namespace: Option<&str>,
) -> Result<Option<std::collections::BTreeSet<crate::model::ObjectKey>>> {
    let Some(ns) = namespace else { return Ok(None) };
    if !cluster.namespaces.contains_key(ns) && !cluster.pods.iter().any(|p| p.key.namespace == *ns) {
        anyhow::bail!("namespace '{ns}' has no pods in this cluster (and no Namespace object)");
    }
    Ok(Some(
        cluster
            .pods
            .iter()
            .filter(|p| p.key.namespace == *ns && p.is_pending())
            .map(|p| p.key.clone())
            .collect(),
    ))
}
