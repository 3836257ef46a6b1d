//! `kschedtui deschedule --policy FILE`: the descheduler's dry run that says where every
//! evicted pod would land. Reads a DeschedulerPolicy, runs one descheduling cycle on the
//! cluster (a snapshot, the demo, or the live cluster, read only), applies the evictions in
//! memory and schedules each evicted pod's replacement. Writes nothing anywhere.
#![allow(clippy::print_stderr)]

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use k8s_openapi::jiff::Timestamp;

use super::{ClusterArgs, Output, ReleaseArgs, load_cluster_recorded, load_profiles, resolve_features, write_report};
use crate::engine::Features;
use crate::model::Cluster;
use crate::source::deschedule::PolicyFile;

/// `deschedule` arguments.
#[derive(Args, Debug)]
pub struct DescheduleArgs {
    /// The DeschedulerPolicy (descheduler/v1alpha2, as descheduler v0.36 reads it), YAML or
    /// JSON.
    #[arg(long, value_name = "FILE")]
    pub policy: PathBuf,
    /// Output format.
    #[arg(short, long, value_enum, default_value = "text")]
    pub output: Output,
    /// The time the cycle runs at, RFC 3339 (pod ages, minPodAge, PodLifeTime; default:
    /// now). Give it for the same report every time.
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
    /// Show only the pods of this namespace (the cycle runs on the whole cluster, as the
    /// descheduler does; the policy's own namespaces filters decide what it evicts).
    #[arg(short, long, conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// Every namespace (the default).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// The release and feature gates the replacements are scheduled with (default: a live
    /// server's release, the one recorded in the snapshot, or the newest).
    #[command(flatten)]
    pub release: ReleaseArgs,
    /// A KubeSchedulerConfiguration file with the profiles the replacements are scheduled
    /// with.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// The `--now` given, or the clock.
pub fn now(arg: Option<&str>) -> Result<Timestamp> {
    match arg {
        None => {
            // the clock, to the second (jiff's own clock needs its std feature)
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
            Timestamp::from_second(secs).map_err(|e| anyhow::anyhow!("the clock: {e}"))
        }
        Some(s) => s
            .parse::<Timestamp>()
            .map_err(|e| anyhow::anyhow!("--now '{s}' is not an RFC 3339 time such as 2026-12-01T12:00:00Z: {e}")),
    }
}

/// Reads the policy file (before any cluster is read, so a mistake costs nothing).
pub fn policy(path: &Path) -> Result<PolicyFile> {
    let p = crate::source::deschedule::read(path)?;
    for (field, value) in &p.unreproduced {
        eprintln!(
            "warning: {}: field '{field}' ({value}) is not reproduced: kschedtui evaluates requests, as the descheduler does by default",
            p.path
        );
    }
    Ok(p)
}

/// The report of the dry run of `policy` on `cluster`.
pub fn render(
    args: &DescheduleArgs,
    policy: &PolicyFile,
    now: Timestamp,
    cluster: Cluster,
    features: &Features,
) -> Result<String> {
    for w in &cluster.warnings {
        super::warn(w);
    }
    if let Some(n) = features.note() {
        eprintln!("note: {n}");
    }
    if let Some(ns) = &args.namespace
        && !cluster.namespaces.contains_key(ns)
        && !cluster.pods.iter().any(|p| p.key.namespace == *ns)
    {
        anyhow::bail!("namespace '{ns}' has no pods in this cluster (and no Namespace object)");
    }
    let profiles = load_profiles(args.config.as_deref(), features)?;
    let run = crate::explain::deschedule::run(
        cluster,
        &policy.path,
        &policy.policy,
        &policy.unreproduced,
        now,
        &profiles,
        features,
    )
    .with_context(|| format!("cannot run the policy of '{}'", policy.path))?;
    let ns = args.namespace.as_deref();
    Ok(match args.output {
        Output::Text => crate::explain::deschedule::render(&run, ns),
        Output::Json => serde_json::to_string_pretty(&crate::explain::deschedule::to_json(&run, ns))? + "\n",
        Output::Yaml => serde_yaml::to_string(&crate::explain::deschedule::to_json(&run, ns))?,
    })
}

/// Runs `deschedule`.
pub fn deschedule(args: &DescheduleArgs, snapshot: Option<&Path>, demo: bool, cluster: &ClusterArgs) -> Result<()> {
    let now = now(args.now.as_deref())?;
    let policy = policy(&args.policy)?;
    if snapshot.is_none() && !demo {
        #[cfg(feature = "live")]
        {
            // read only: the evictions are applied in memory
            let (cluster, recorded) = super::live::read_cluster(cluster)?;
            let features = resolve_features(&args.release, Some(recorded))?;
            return write_report(args.output, &render(args, &policy, now, cluster, &features)?);
        }
    }
    let _ = cluster;
    let (cluster, recorded) = load_cluster_recorded(snapshot, demo)?;
    let features = resolve_features(&args.release, recorded)?;
    write_report(args.output, &render(args, &policy, now, cluster, &features)?)
}
