//! Profiles from configuration (pkg/scheduler/profile, apis/config/v1/default_plugins.go,
//! apis/config/validation): a KubeSchedulerConfiguration or a release's default profile,
//! validated, its plugin sets merged with the defaults, each plugin built through
//! [`super::registry`] and put at its extension points in order with its score weight. This
//! sits above the framework and the plugins; it adds the constructors of
//! [`Framework`] (`default_profile`, `from_config`, `scheduler_plugins_profile`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::framework::plugin::PluginSlots;
use super::framework::runtime::Framework;
use super::plugins::names;
use super::registry::{self, InstantiateError};
use super::release::Features;

/// A profile problem (unknown plugin, bad args).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    /// The config file is not a KubeSchedulerConfiguration.
    #[error("scheduler config: {0}")]
    Config(String),
    /// A plugin name is not known.
    #[error("profile '{profile}': plugin '{plugin}' does not exist (known: {known})")]
    UnknownPlugin {
        /// Profile name.
        profile: String,
        /// Plugin name.
        plugin: String,
        /// Known plugins.
        known: String,
    },
    /// A plugin rejected its args.
    #[error("profile '{profile}': pluginConfig '{plugin}': {message}")]
    Args {
        /// Profile name.
        profile: String,
        /// Plugin.
        plugin: String,
        /// What is wrong.
        message: String,
    },
}

/// A plugin entry in a plugin set.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct PluginRef {
    /// Name.
    pub name: String,
    /// Score weight (0: unset).
    #[serde(default)]
    pub weight: i64,
}

/// enabled/disabled lists of one extension point.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct PluginSet {
    /// Enabled.
    #[serde(default)]
    pub enabled: Vec<PluginRef>,
    /// Disabled ("*" disables all defaults).
    #[serde(default)]
    pub disabled: Vec<PluginRef>,
}

/// The `plugins` section.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct PluginsConfig {
    #[serde(default)]
    pub multi_point: PluginSet,
    #[serde(default)]
    pub pre_enqueue: PluginSet,
    #[serde(default)]
    pub queue_sort: PluginSet,
    #[serde(default)]
    pub pre_filter: PluginSet,
    #[serde(default)]
    pub filter: PluginSet,
    #[serde(default)]
    pub post_filter: PluginSet,
    #[serde(default)]
    pub pre_score: PluginSet,
    #[serde(default)]
    pub score: PluginSet,
    #[serde(default)]
    pub reserve: PluginSet,
    #[serde(default)]
    pub permit: PluginSet,
    #[serde(default)]
    pub pre_bind: PluginSet,
    #[serde(default)]
    pub bind: PluginSet,
    #[serde(default)]
    pub post_bind: PluginSet,
    #[serde(default)]
    pub placement_generate: PluginSet,
    #[serde(default)]
    pub placement_score: PluginSet,
}

/// One `pluginConfig` entry.
#[derive(Clone, Debug, Deserialize)]
pub struct PluginConfig {
    /// Plugin name.
    pub name: String,
    /// Its args.
    #[serde(default)]
    pub args: Value,
}

/// One profile of a KubeSchedulerConfiguration.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileConfig {
    /// schedulerName.
    #[serde(default = "default_scheduler_name")]
    pub scheduler_name: String,
    /// Plugin sets.
    #[serde(default)]
    pub plugins: Option<PluginsConfig>,
    /// Plugin args.
    #[serde(default)]
    pub plugin_config: Vec<PluginConfig>,
    /// percentageOfNodesToScore (read, not used: the engine scores every node).
    #[serde(default)]
    pub percentage_of_nodes_to_score: Option<i64>,
}

fn default_scheduler_name() -> String {
    "default-scheduler".into()
}

/// `MaxNodeScore`: the highest normalized score of a plugin.
const MAX_NODE_SCORE: i64 = 100;

/// The one version of the configuration API that kube-scheduler 1.30 and later decode.
pub(crate) const CONFIG_API_VERSION: &str = "kubescheduler.config.k8s.io/v1";

/// A Go `time.Duration` as `metav1.Duration` reads it from a string ("15s", "1m30s",
/// "500ms"), in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct GoDuration(pub i64);

impl<'de> Deserialize<'de> for GoDuration {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_go_duration(&s)
            .map(GoDuration)
            .ok_or_else(|| serde::de::Error::custom(format!("time: invalid duration {s:?}")))
    }
}

impl std::fmt::Display for GoDuration {
    /// `time.Duration.String()`: "15s", "1m30s", "1h0m0s", "1.5s", "500ms", "-5s", "0s".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let u = self.0.unsigned_abs();
        let sign = if self.0 < 0 { "-" } else { "" };
        // the digits of u / 10^prec with the fraction's trailing zeros left out
        let frac = |u: u64, prec: u32| -> String {
            let p = 10u64.pow(prec);
            let (int, fr) = (u / p, u % p);
            if fr == 0 {
                int.to_string()
            } else {
                let digits = format!("{fr:0width$}", width = prec as usize);
                format!("{int}.{}", digits.trim_end_matches('0'))
            }
        };
        if u == 0 {
            return f.write_str("0s");
        }
        if u < 1_000_000_000 {
            let (unit, prec) = match u {
                0..1_000 => ("ns", 0),
                1_000..1_000_000 => ("µs", 3),
                _ => ("ms", 6),
            };
            return write!(f, "{sign}{}{unit}", frac(u, prec));
        }
        let secs = frac(u % 60_000_000_000, 9);
        let minutes = u / 60_000_000_000;
        match (minutes / 60, minutes % 60) {
            (0, 0) => write!(f, "{sign}{secs}s"),
            (0, m) => write!(f, "{sign}{m}m{secs}s"),
            (h, m) => write!(f, "{sign}{h}h{m}m{secs}s"),
        }
    }
}

/// `time.ParseDuration`: nanoseconds, None where Go refuses the text.
fn parse_go_duration(s: &str) -> Option<i64> {
    let (neg, mut rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: i128 = 0;
    while !rest.is_empty() {
        let int_end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let (int, after) = rest.split_at(int_end);
        let (fraction, after) = match after.strip_prefix('.') {
            Some(a) => {
                let e = a.find(|c: char| !c.is_ascii_digit()).unwrap_or(a.len());
                a.split_at(e)
            }
            None => ("", after),
        };
        if int.is_empty() && fraction.is_empty() {
            return None;
        }
        let unit_end = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let unit: i128 = match &after[..unit_end] {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        let whole: i128 = if int.is_empty() { 0 } else { int.parse().ok()? };
        let mut part = whole.checked_mul(unit)?;
        if !fraction.is_empty() {
            let digits = &fraction[..fraction.len().min(18)];
            let f: i128 = digits.parse().ok()?;
            part += f * unit / 10i128.pow(u32::try_from(digits.len()).ok()?);
        }
        total = total.checked_add(part)?;
        rest = &after[unit_end..];
    }
    let total = if neg { -total } else { total };
    i64::try_from(total).ok()
}

/// `leaderElection` (component-base's LeaderElectionConfiguration).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct LeaderElection {
    pub leader_elect: Option<bool>,
    pub lease_duration: Option<GoDuration>,
    pub renew_deadline: Option<GoDuration>,
    pub retry_period: Option<GoDuration>,
    pub resource_lock: Option<String>,
    pub resource_name: Option<String>,
    pub resource_namespace: Option<String>,
}

/// `clientConnection` (component-base's ClientConnectionConfiguration).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct ClientConnection {
    pub kubeconfig: Option<String>,
    pub accept_content_types: Option<String>,
    pub content_type: Option<String>,
    pub qps: Option<f64>,
    pub burst: Option<i64>,
}

/// One of `extenders`: a webhook kube-scheduler calls at Filter, Prioritize (Score), Preempt
/// and Bind. kschedtui does not call it: every answer says what it leaves out
/// ([`SchedulerConfig::extender_notes`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct Extender {
    #[serde(default)]
    pub url_prefix: String,
    #[serde(default)]
    pub filter_verb: String,
    #[serde(default)]
    pub preempt_verb: String,
    #[serde(default)]
    pub prioritize_verb: String,
    #[serde(default)]
    pub weight: i64,
    #[serde(default)]
    pub bind_verb: String,
    #[serde(default, rename = "enableHTTPS")]
    pub enable_https: bool,
    #[serde(default)]
    pub tls_config: Option<ExtenderTls>,
    #[serde(default)]
    pub http_timeout: Option<GoDuration>,
    #[serde(default)]
    pub node_cache_capable: bool,
    #[serde(default)]
    pub managed_resources: Vec<ExtenderManagedResource>,
    #[serde(default)]
    pub ignorable: bool,
}

/// An extender's `tlsConfig`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct ExtenderTls {
    #[serde(default)]
    pub insecure: bool,
    #[serde(default)]
    pub server_name: String,
    #[serde(default)]
    pub cert_file: String,
    #[serde(default)]
    pub key_file: String,
    #[serde(default)]
    pub ca_file: String,
    #[serde(default)]
    pub cert_data: Option<String>,
    #[serde(default)]
    pub key_data: Option<String>,
    #[serde(default)]
    pub ca_data: Option<String>,
}

/// One of an extender's `managedResources`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtenderManagedResource {
    /// The extended resource's name.
    #[serde(default)]
    pub name: String,
    /// kube-scheduler's NodeResourcesFit ignores the resource.
    #[serde(default)]
    pub ignored_by_scheduler: bool,
}

/// A KubeSchedulerConfiguration, every field of `kubescheduler.config.k8s.io/v1` (1.30 to
/// 1.36): [`SchedulerConfig::parse`] refuses any other, as kube-scheduler's strict decoder does.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchedulerConfig {
    /// apiVersion.
    #[serde(default)]
    pub api_version: String,
    /// kind.
    #[serde(default)]
    pub kind: String,
    /// Profiles.
    #[serde(default)]
    pub profiles: Vec<ProfileConfig>,
    /// parallelism (validated; the engine is sequential).
    #[serde(default)]
    pub parallelism: Option<i64>,
    /// percentageOfNodesToScore (validated; the engine scores every node).
    #[serde(default)]
    pub percentage_of_nodes_to_score: Option<i64>,
    /// podInitialBackoffSeconds.
    #[serde(default)]
    pub pod_initial_backoff_seconds: Option<i64>,
    /// podMaxBackoffSeconds.
    #[serde(default)]
    pub pod_max_backoff_seconds: Option<i64>,
    /// leaderElection (validated).
    #[serde(default)]
    pub leader_election: Option<LeaderElection>,
    /// clientConnection (validated).
    #[serde(default)]
    pub client_connection: Option<ClientConnection>,
    /// enableProfiling (DebuggingConfiguration; no effect on an answer).
    #[serde(default)]
    pub enable_profiling: Option<bool>,
    /// enableContentionProfiling (DebuggingConfiguration; no effect on an answer).
    #[serde(default)]
    pub enable_contention_profiling: Option<bool>,
    /// extenders (validated; not called: see [`SchedulerConfig::extender_notes`]).
    #[serde(default)]
    pub extenders: Vec<Extender>,
    /// delayCacheUntilActive (no effect on an answer).
    #[serde(default)]
    pub delay_cache_until_active: Option<bool>,
}

/// A path as sigs.k8s.io/json names an unknown field: `profiles[0].plugins.filtr`.
fn field_path(p: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match p {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", field_path(parent)),
        Path::Map { parent, key } => match field_path(parent) {
            s if s.is_empty() => key.clone(),
            s => format!("{s}.{key}"),
        },
        Path::Some { parent } | Path::NewtypeStruct { parent } | Path::NewtypeVariant { parent } => field_path(parent),
    }
}

/// `field.Invalid(path, value, detail).Error()` with a value printed as Go prints it.
fn invalid(path: &str, value: impl std::fmt::Display, detail: &str) -> String {
    format!("{path}: Invalid value: {value}: {detail}")
}

impl SchedulerConfig {
    /// Decodes YAML/JSON text as kube-scheduler does: an apiVersion it does not decode is
    /// refused first, then every field it does not know, at every level (`strict decoding
    /// error: unknown field "profile"`), then values that do not fit their Go type. What the
    /// values must satisfy is [`SchedulerConfig::validate`]'s (with the release).
    pub fn parse(text: &str) -> Result<SchedulerConfig, ProfileError> {
        let de = serde_yaml::Deserializer::from_str(text);
        let mut unknown: Vec<String> = Vec::new();
        let mut note = |p: serde_ignored::Path<'_>| unknown.push(field_path(&p));
        let ignoring = serde_ignored::Deserializer::new(de, &mut note);
        let c: SchedulerConfig = serde_path_to_error::deserialize(ignoring)
            .map_err(|e| ProfileError::Config(format!("field '{}': {}", e.path(), e.inner())))?;
        if c.kind != "KubeSchedulerConfiguration" {
            return Err(ProfileError::Config(format!(
                "kind is '{}', expected KubeSchedulerConfiguration",
                c.kind
            )));
        }
        if c.api_version != CONFIG_API_VERSION {
            return Err(ProfileError::Config(format!(
                "apiVersion: no kind \"KubeSchedulerConfiguration\" is registered for version \"{}\" (kube-scheduler 1.30 and later decode only {CONFIG_API_VERSION})",
                c.api_version
            )));
        }
        if !unknown.is_empty() {
            return Err(strict_error(&unknown));
        }
        for (i, p) in c.profiles.iter().enumerate() {
            let path = format!("profiles[{i}]");
            if let Some(plugins) = &p.plugins {
                for (point, set) in plugins.sets() {
                    for (j, e) in set.enabled.iter().enumerate() {
                        if i32::try_from(e.weight).is_err() {
                            return Err(ProfileError::Config(format!(
                                "{path}.plugins.{point}.enabled[{j}].weight: {} does not fit in an int32: kube-scheduler cannot decode the file (cannot unmarshal number {} into Go struct field Plugin.profiles.plugins.{point}.enabled.weight of type int32)",
                                e.weight, e.weight
                            )));
                        }
                    }
                }
            }
        }
        if let Some(b) = c.client_connection.as_ref().and_then(|cc| cc.burst)
            && i32::try_from(b).is_err()
        {
            return Err(ProfileError::Config(format!(
                "clientConnection.burst: {b} does not fit in an int32: kube-scheduler cannot decode the file (cannot unmarshal number {b} into Go struct field ClientConnectionConfiguration.clientConnection.burst of type int32)"
            )));
        }
        Ok(c)
    }

    /// `ValidateKubeSchedulerConfiguration` at `features`' release, after kube-scheduler's
    /// defaulting, in its order and with its messages (one error as itself, several as
    /// `[a, b]`): clientConnection, leaderElection, parallelism, each profile (its name, its
    /// percentage, plugins and pluginConfig the release no longer has, duplicates), the common
    /// queue sort, percentageOfNodesToScore, the pod backoffs, extenders. Plugin sets of a
    /// later release are refused first, as the decoder of that release refuses them.
    pub fn validate(&self, features: &Features) -> Result<(), ProfileError> {
        use crate::engine::release::Change;
        if !features.has(Change::PlacementExtensionPoints) {
            let later: Vec<String> = self
                .profiles
                .iter()
                .enumerate()
                .flat_map(|(i, p)| {
                    let sets = p.plugins.as_ref().map(|x| x.sets()).into_iter().flatten();
                    sets.filter(|(point, set)| {
                        ["placementGenerate", "placementScore"].contains(point) && **set != PluginSet::default()
                    })
                    .map(move |(point, _)| format!("profiles[{i}].plugins.{point}"))
                })
                .collect();
            if !later.is_empty() {
                return Err(strict_error(&later));
            }
        }
        let mut errs: Vec<String> = Vec::new();
        // clientConnection (burst 0 is defaulted to 100; qps is not validated upstream)
        if let Some(b) = self.client_connection.as_ref().and_then(|c| c.burst)
            && b < 0
        {
            errs.push(invalid("clientConnection.burst", b, "must be non-negative"));
        }
        // leaderElection, after defaulting (a zero duration is defaulted; the lock, its name
        // and namespace too, so their Required errors never show)
        let lead = self.leader_election.clone().unwrap_or_default();
        let leader_elect = lead.leader_elect.unwrap_or(true);
        if leader_elect {
            let or = |d: Option<GoDuration>, secs: i64| match d {
                Some(GoDuration(0)) | None => GoDuration(secs * 1_000_000_000),
                Some(d) => d,
            };
            let lease = or(lead.lease_duration, 15);
            let renew = or(lead.renew_deadline, 10);
            let retry = or(lead.retry_period, 2);
            for (field, d) in [
                ("leaseDuration", lease),
                ("renewDeadline", renew),
                ("retryPeriod", retry),
            ] {
                if d.0 <= 0 {
                    errs.push(invalid(
                        &format!("leaderElection.{field}"),
                        d,
                        "must be greater than zero",
                    ));
                }
            }
            if lease <= renew {
                errs.push(invalid(
                    "leaderElection.leaseDuration",
                    renew,
                    if features.has(Change::FieldDetailsWithoutFieldName) {
                        "must be greater than `RenewDeadline`"
                    } else {
                        "LeaseDuration must be greater than RenewDeadline"
                    },
                ));
            }
            if let Some(lock) = lead.resource_lock.as_deref().filter(|l| !l.is_empty())
                && lock != "leases"
            {
                errs.push(format!(
                    "leaderElection.resourceLock: Invalid value: {lock:?}: resourceLock value must be \"leases\""
                ));
            }
        }
        if let Some(p) = self.parallelism
            && p <= 0
        {
            errs.push(format!(
                "parallelism: Invalid value: {p}: should be an integer value greater than zero"
            ));
        }
        // Defaulting adds the default profile when none is given: nothing to check then.
        let removed = features.has(Change::InTreeVolumeLimitsRemoved);
        let was_invalid = |path: &str, name: &str| {
            format!(
                "{path}: Invalid value: {name:?}: was invalid in version \"{CONFIG_API_VERSION}\" (KubeSchedulerConfiguration is version \"{CONFIG_API_VERSION}\")"
            )
        };
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, p) in self.profiles.iter().enumerate() {
            let path = format!("profiles[{i}]");
            if p.scheduler_name.is_empty() {
                errs.push(format!("{path}.schedulerName: Required value"));
            }
            if let Some(v) = p.percentage_of_nodes_to_score
                && !(0..=100).contains(&v)
            {
                errs.push(format!(
                    "{path}.percentageOfNodesToScore: Invalid value: {v}: not in valid range [0-100]"
                ));
            }
            if removed && let Some(plugins) = &p.plugins {
                for (point, set) in plugins.sets() {
                    for (j, e) in set.enabled.iter().enumerate() {
                        if IN_TREE_LIMITS.contains(&e.name.as_str()) {
                            errs.push(was_invalid(&format!("{path}.plugins.{point}.enabled[{j}]"), &e.name));
                        }
                    }
                }
            }
            let mut seen_args: BTreeSet<&str> = BTreeSet::new();
            for (j, c) in p.plugin_config.iter().enumerate() {
                if !seen_args.insert(c.name.as_str()) {
                    errs.push(format!("{path}.pluginConfig[{j}]: Duplicate value: {:?}", c.name));
                }
                if removed && IN_TREE_LIMITS.contains(&c.name.as_str()) {
                    errs.push(was_invalid(&format!("{path}.pluginConfig[{j}]"), &c.name));
                }
            }
            if let Some(first) = seen.get(p.scheduler_name.as_str()) {
                errs.push(format!(
                    "{path}.schedulerName: Duplicate value: profiles[{first}].schedulerName"
                ));
            }
            seen.insert(p.scheduler_name.as_str(), i);
        }
        if !self.profiles.is_empty() {
            errs.extend(self.common_queue_sort());
        }
        if let Some(v) = self.percentage_of_nodes_to_score
            && !(0..=100).contains(&v)
        {
            errs.push(format!(
                "percentageOfNodesToScore: Invalid value: {v}: not in valid range [0-100]"
            ));
        }
        let initial = self.pod_initial_backoff_seconds.unwrap_or(1);
        if initial <= 0 {
            errs.push(format!(
                "podInitialBackoffSeconds: Invalid value: {initial}: must be greater than 0"
            ));
        }
        let max = self.pod_max_backoff_seconds.unwrap_or(10);
        if max < initial {
            errs.push(format!(
                "podMaxBackoffSeconds: Invalid value: {max}: must be greater than or equal to PodInitialBackoffSeconds"
            ));
        }
        errs.extend(self.validate_extenders());
        aggregate(errs)
    }

    /// `validateExtenders`: a prioritizing extender needs a positive weight, at most one
    /// extender binds, managed resources are extended resource names, each once. (A missing
    /// urlPrefix is not refused upstream: kube-scheduler fails each call to it instead.)
    fn validate_extenders(&self) -> Vec<String> {
        let mut errs = Vec::new();
        let mut binders = 0;
        let mut managed: BTreeSet<&str> = BTreeSet::new();
        for (i, e) in self.extenders.iter().enumerate() {
            let path = format!("extenders[{i}]");
            if !e.prioritize_verb.is_empty() && e.weight <= 0 {
                errs.push(invalid(
                    &format!("{path}.weight"),
                    e.weight,
                    "must have a positive weight applied to it",
                ));
            }
            if !e.bind_verb.is_empty() {
                binders += 1;
            }
            for (j, r) in e.managed_resources.iter().enumerate() {
                let rpath = format!("{path}.managedResources[{j}].name");
                let msgs = qualified_name_errors(&r.name);
                if msgs.is_empty() {
                    if !crate::model::resources::is_extended_resource(&r.name) {
                        errs.push(format!(
                            "{rpath}: Invalid value: {:?}: is an invalid extended resource name",
                            r.name
                        ));
                    }
                } else {
                    errs.extend(
                        msgs.iter()
                            .map(|m| format!("{rpath}: Invalid value: {:?}: {m}", r.name)),
                    );
                }
                if !managed.insert(r.name.as_str()) {
                    errs.push(format!(
                        "{rpath}: Invalid value: {:?}: duplicate extender managed resource name",
                        r.name
                    ));
                }
            }
        }
        if binders > 1 {
            errs.push(format!(
                "extenders: Invalid value: \"found {binders} extenders implementing bind\": only one extender can implement bind"
            ));
        }
        errs
    }

    /// What every answer made with this configuration must say about its extenders, which
    /// kschedtui does not call: one note per extender that would take part, naming what of it
    /// is missing from the answer (its Filter, Score, Preempt, Bind).
    pub fn extender_notes(&self) -> Vec<String> {
        self.extenders
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                let mut missing: Vec<String> = Vec::new();
                if !e.filter_verb.is_empty() {
                    missing.push("Filter".into());
                }
                if !e.prioritize_verb.is_empty() {
                    missing.push(format!("Score (prioritize, weight {})", e.weight));
                }
                if !e.preempt_verb.is_empty() {
                    missing.push("Preempt".into());
                }
                let ignored: Vec<&str> = e
                    .managed_resources
                    .iter()
                    .filter(|r| r.ignored_by_scheduler)
                    .map(|r| r.name.as_str())
                    .collect();
                if missing.is_empty() && e.bind_verb.is_empty() && ignored.is_empty() {
                    return None;
                }
                let name = if e.url_prefix.is_empty() {
                    format!("extenders[{i}] (no urlPrefix: kube-scheduler cannot call it either)")
                } else {
                    format!("extenders[{i}] ({})", e.url_prefix)
                };
                let mut text = format!("the configuration's extender {name} is not called by kschedtui: ");
                text += &match missing.len() {
                    0 => String::new(),
                    1 => format!("its {} is missing from this answer", missing[0]),
                    n => format!(
                        "its {} and {} are missing from this answer",
                        missing[..n - 1].join(", "),
                        missing[n - 1]
                    ),
                };
                let mut more: Vec<String> = Vec::new();
                if !e.bind_verb.is_empty() {
                    more.push("it binds the pods in place of the Bind plugins".into());
                }
                if !ignored.is_empty() {
                    more.push(format!(
                        "kube-scheduler's NodeResourcesFit ignores {} (ignoredByScheduler), kschedtui's does not",
                        ignored.join(", ")
                    ));
                }
                if !more.is_empty() {
                    if !missing.is_empty() {
                        text += "; ";
                    }
                    text += &more.join("; ");
                }
                if e.ignorable {
                    text += " (ignorable: kube-scheduler goes on without it when it fails)";
                }
                Some(text)
            })
            .collect()
    }

    /// `validateCommonQueueSort`: every profile has the first profile's queueSort set and args.
    fn common_queue_sort(&self) -> Vec<String> {
        let mut errs = Vec::new();
        let empty = PluginSet::default();
        let set = |p: &ProfileConfig| p.plugins.as_ref().map_or(empty.clone(), |x| x.queue_sort.clone());
        let canon = set(&self.profiles[0]);
        if canon.enabled.len() > 1 {
            errs.push(format!(
                "profiles[0].plugins.queueSort.Enabled: Invalid value: {}: only one queue sort plugin can be enabled",
                canon.enabled.len()
            ));
        }
        let name = canon.enabled.first().map(|e| e.name.clone());
        let args = |p: &ProfileConfig| {
            name.as_ref()
                .and_then(|n| p.plugin_config.iter().find(|c| &c.name == n))
                .map(|c| c.args.clone())
        };
        let canon_args = args(&self.profiles[0]);
        for (i, p) in self.profiles.iter().enumerate().skip(1) {
            if set(p) != canon {
                errs.push(format!(
                    "profiles[{i}].plugins.queueSort: Invalid value: {}: must be the same for all profiles",
                    describe_set(&set(p))
                ));
            }
            if let Some(a) = args(p)
                && Some(&a) != canon_args.as_ref()
            {
                errs.push(format!(
                    "profiles[{i}].pluginConfig.args: Invalid value: {a}: queueSort must be the same for all profiles"
                ));
            }
        }
        errs
    }
}

/// The in-tree volume limits plugins, "invalid in version" v1 from 1.31.
const IN_TREE_LIMITS: &[&str] = &["AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"];

/// `runtime.NewStrictDecodingError`: `strict decoding error: unknown field "a", unknown field
/// "b"`.
fn strict_error(fields: &[String]) -> ProfileError {
    let each: Vec<String> = fields.iter().map(|f| format!("unknown field {f:?}")).collect();
    ProfileError::Config(format!("strict decoding error: {}", each.join(", ")))
}

/// `validation.IsQualifiedName`'s messages (apimachinery).
fn qualified_name_errors(value: &str) -> Vec<String> {
    const NAME_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                if prefix.len() > 253 {
                    errs.push("prefix part must be no more than 253 characters".to_string());
                }
                // the subdomain regex alone (the length is said above)
                let label_ok = |l: &str| {
                    let b = l.as_bytes();
                    !b.is_empty()
                        && b.iter()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                        && b[0] != b'-'
                        && b[b.len() - 1] != b'-'
                };
                if !prefix.split('.').all(label_ok) {
                    errs.push(format!("prefix part {SUBDOMAIN_MSG}"));
                }
            }
            *name
        }
        _ => {
            return vec![format!(
                "a qualified name {NAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 characters".to_string());
    }
    if !crate::model::selector::matches_qualified_name_fmt(name) {
        errs.push(format!("name part {NAME_MSG}"));
    }
    errs
}

/// `utilerrors.NewAggregate(errs).Error()`: one error as itself, several as `[a, b]`, each
/// message once.
fn aggregate(errs: Vec<String>) -> Result<(), ProfileError> {
    let mut seen = BTreeSet::new();
    let mut errs: Vec<String> = errs.into_iter().filter(|e| seen.insert(e.clone())).collect();
    match errs.len() {
        0 => Ok(()),
        1 => Err(ProfileError::Config(errs.remove(0))),
        _ => Err(ProfileError::Config(format!("[{}]", errs.join(", ")))),
    }
}

fn describe_set(s: &PluginSet) -> String {
    let names = |v: &[PluginRef]| v.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ");
    format!(
        "{{enabled: [{}], disabled: [{}]}}",
        names(&s.enabled),
        names(&s.disabled)
    )
}

impl PluginsConfig {
    /// Every extension point's set, by its field name.
    pub fn sets(&self) -> [(&'static str, &PluginSet); 15] {
        [
            ("multiPoint", &self.multi_point),
            ("preEnqueue", &self.pre_enqueue),
            ("queueSort", &self.queue_sort),
            ("preFilter", &self.pre_filter),
            ("filter", &self.filter),
            ("postFilter", &self.post_filter),
            ("preScore", &self.pre_score),
            ("score", &self.score),
            ("reserve", &self.reserve),
            ("permit", &self.permit),
            ("preBind", &self.pre_bind),
            ("bind", &self.bind),
            ("postBind", &self.post_bind),
            ("placementGenerate", &self.placement_generate),
            ("placementScore", &self.placement_score),
        ]
    }
}

fn default_multipoint(features: &Features) -> Vec<PluginRef> {
    crate::engine::release::profile::default_plugins(features)
        .into_iter()
        .map(|(n, w)| PluginRef {
            name: n.to_string(),
            weight: w,
        })
        .collect()
}

/// `mergePluginSet` of apis/config/v1/default_plugins.go.
fn merge_set(default: &PluginSet, custom: &PluginSet) -> PluginSet {
    let mut disabled: Vec<PluginRef> = custom.disabled.clone();
    disabled.extend(default.disabled.iter().cloned());
    let disabled_all = disabled.iter().any(|p| p.name == "*");
    let mut replaced = vec![false; custom.enabled.len()];
    let mut enabled = Vec::new();
    if !disabled_all {
        for d in &default.enabled {
            if disabled.iter().any(|x| x.name == d.name) {
                continue;
            }
            match custom.enabled.iter().position(|c| c.name == d.name) {
                Some(i) => {
                    replaced[i] = true;
                    enabled.push(custom.enabled[i].clone());
                }
                None => enabled.push(d.clone()),
            }
        }
    }
    for (i, c) in custom.enabled.iter().enumerate() {
        if !replaced[i] {
            enabled.push(c.clone());
        }
    }
    PluginSet { enabled, disabled }
}

/// One extension point's merged plugin set.
struct Point<'a> {
    name: &'static str,
    set: &'a PluginSet,
}

/// The extension points of a merged configuration, in cycle order (MultiPoint aside).
fn points(merged: &PluginsConfig) -> [Point<'_>; 14] {
    [
        ("PreEnqueue", &merged.pre_enqueue),
        ("QueueSort", &merged.queue_sort),
        ("PreFilter", &merged.pre_filter),
        ("Filter", &merged.filter),
        ("PostFilter", &merged.post_filter),
        ("PreScore", &merged.pre_score),
        ("Score", &merged.score),
        ("Reserve", &merged.reserve),
        ("Permit", &merged.permit),
        ("PreBind", &merged.pre_bind),
        ("Bind", &merged.bind),
        ("PostBind", &merged.post_bind),
        ("PlacementGenerate", &merged.placement_generate),
        ("PlacementScore", &merged.placement_score),
    ]
    .map(|(name, set)| Point { name, set })
}

/// The plugin sets of a profile: the release's default multiPoint list merged with the
/// configured sets, point by point (`mergePlugins`).
fn merged_plugin_sets(cfg: &ProfileConfig, features: &Features) -> PluginsConfig {
    let defaults = PluginsConfig {
        multi_point: PluginSet {
            enabled: default_multipoint(features),
            disabled: vec![],
        },
        ..Default::default()
    };
    let custom = cfg.plugins.clone().unwrap_or_default();
    PluginsConfig {
        multi_point: merge_set(&defaults.multi_point, &custom.multi_point),
        pre_enqueue: merge_set(&defaults.pre_enqueue, &custom.pre_enqueue),
        queue_sort: merge_set(&defaults.queue_sort, &custom.queue_sort),
        pre_filter: merge_set(&defaults.pre_filter, &custom.pre_filter),
        filter: merge_set(&defaults.filter, &custom.filter),
        post_filter: merge_set(&defaults.post_filter, &custom.post_filter),
        pre_score: merge_set(&defaults.pre_score, &custom.pre_score),
        score: merge_set(&defaults.score, &custom.score),
        reserve: merge_set(&defaults.reserve, &custom.reserve),
        permit: merge_set(&defaults.permit, &custom.permit),
        pre_bind: merge_set(&defaults.pre_bind, &custom.pre_bind),
        bind: merge_set(&defaults.bind, &custom.bind),
        post_bind: merge_set(&defaults.post_bind, &custom.post_bind),
        placement_generate: merge_set(&defaults.placement_generate, &custom.placement_generate),
        placement_score: merge_set(&defaults.placement_score, &custom.placement_score),
    }
}

/// Builds every plugin named anywhere in the merged sets, once, with its pluginConfig args,
/// through the registry.
fn instantiate_plugins(
    profile: &str,
    cfg: &ProfileConfig,
    merged: &PluginsConfig,
    features: &Features,
) -> Result<BTreeMap<String, PluginSlots>, ProfileError> {
    let args: BTreeMap<&str, &Value> = cfg.plugin_config.iter().map(|p| (p.name.as_str(), &p.args)).collect();
    let mut instances: BTreeMap<String, PluginSlots> = BTreeMap::new();
    let all_names = merged
        .multi_point
        .enabled
        .iter()
        .chain(points(merged).iter().flat_map(|p| p.set.enabled.iter()))
        .map(|p| p.name.clone())
        .collect::<Vec<_>>();
    for n in all_names {
        if instances.contains_key(&n) {
            continue;
        }
        let a = args.get(n.as_str()).copied().cloned().unwrap_or(Value::Null);
        let slots = registry::instantiate(&n, &a, features).map_err(|e| match e {
            InstantiateError::Unknown => ProfileError::UnknownPlugin {
                profile: profile.to_string(),
                plugin: n.clone(),
                known: registry::known_plugins_at(features).join(", "),
            },
            InstantiateError::Args(message) => ProfileError::Args {
                profile: profile.to_string(),
                plugin: n.clone(),
                message,
            },
        })?;
        instances.insert(n, slots);
    }
    // kube-scheduler decodes and validates the args of every pluginConfig entry whose plugin
    // it has, enabled or not (out-of-tree ones it skips): a typo in the args of a plugin that
    // is not enabled is refused too
    for c in &cfg.plugin_config {
        if instances.contains_key(&c.name) {
            continue;
        }
        if let Err(InstantiateError::Args(message)) = registry::instantiate(&c.name, &c.args, features) {
            return Err(ProfileError::Args {
                profile: profile.to_string(),
                plugin: c.name.clone(),
                message,
            });
        }
    }
    Ok(instances)
}

/// Whether the plugin built as `slots` takes part in `point`.
fn implements(slots: &PluginSlots, point: &str) -> bool {
    let s = slots;
    match point {
        "PreEnqueue" => s.pre_enqueue.is_some(),
        "QueueSort" => s.queue_sort,
        "PreFilter" => s.pre_filter.is_some(),
        "Filter" => s.filter.is_some(),
        "PostFilter" => s.post_filter.is_some(),
        "PreScore" => s.pre_score.is_some(),
        "Score" => s.score.is_some(),
        "Reserve" => s.reserve.is_some() || s.later.contains(&point),
        "Permit" => s.permit.is_some() || s.later.contains(&point),
        "PreBind" => s.pre_bind.is_some() || s.later.contains(&point),
        "Bind" => s.bind.is_some() || s.later.contains(&point),
        "PostBind" => s.post_bind.is_some() || s.later.contains(&point),
        "PlacementGenerate" => s.placement_generate.is_some(),
        "PlacementScore" => s.placement_score.is_some(),
        other => s.later.contains(&other),
    }
}

/// The plugins of each point in order (`expandMultiPointPlugins`): a point's own entries that
/// also appear in MultiPoint first (they override it), then MultiPoint's other plugins that
/// implement the point and are not disabled there, then the point's remaining entries.
fn order_points(
    merged: &PluginsConfig,
    instances: &BTreeMap<String, PluginSlots>,
) -> BTreeMap<&'static str, Vec<PluginRef>> {
    let takes_part = |name: &str, point: &str| instances.get(name).is_some_and(|s| implements(s, point));
    let mut order: BTreeMap<&'static str, Vec<PluginRef>> = BTreeMap::new();
    for p in &points(merged) {
        let specific: Vec<PluginRef> = p
            .set
            .enabled
            .iter()
            .filter(|e| takes_part(&e.name, p.name))
            .cloned()
            .collect();
        let disabled_all = p.set.disabled.iter().any(|d| d.name == "*");
        let mut overrides = Vec::new();
        let mut multi = Vec::new();
        if !disabled_all {
            for e in &merged.multi_point.enabled {
                if !takes_part(&e.name, p.name) || p.set.disabled.iter().any(|d| d.name == e.name) {
                    continue;
                }
                if specific.iter().any(|s| s.name == e.name) {
                    overrides.push(e.name.clone());
                    continue;
                }
                if !multi.iter().any(|m: &PluginRef| m.name == e.name) {
                    multi.push(e.clone());
                }
            }
        }
        let mut list: Vec<PluginRef> = Vec::new();
        for o in &overrides {
            if let Some(s) = specific.iter().find(|s| &s.name == o) {
                list.push(s.clone());
            }
        }
        list.extend(multi);
        for s in &specific {
            if !list.iter().any(|l| l.name == s.name) {
                list.push(s.clone());
            }
        }
        order.insert(p.name, list);
    }
    order
}

/// Score weights (`getValidScoreWeights`): the point's own entries first, then MultiPoint's;
/// an unset weight is 1. `point` is "Score" or "PlacementScore"; `what` the prefix of the
/// overflow message ("" or "placement score plugins: ").
fn score_weights(
    profile: &str,
    own: &PluginSet,
    merged: &PluginsConfig,
    takes_part: impl Fn(&str) -> bool,
    what: &str,
) -> Result<BTreeMap<String, i64>, ProfileError> {
    let mut weights: BTreeMap<String, i64> = BTreeMap::new();
    let mut total: i64 = 0;
    for e in own.enabled.iter().chain(merged.multi_point.enabled.iter()) {
        if !weights.contains_key(&e.name) && takes_part(&e.name) {
            let w = if e.weight == 0 { 1 } else { e.weight };
            // The framework refuses weights whose maximal total could overflow an int64,
            // with Go's wrapping arithmetic: after a negative weight the bound wraps
            // below zero, so any positive weight that follows is refused.
            let max = w.checked_mul(MAX_NODE_SCORE);
            if max.is_none_or(|m| m > i64::MAX.wrapping_sub(total)) {
                return Err(ProfileError::Config(format!(
                    "profile '{profile}': {what}total score of Score plugins could overflow"
                )));
            }
            total = total.wrapping_add(max.unwrap_or(0));
            weights.insert(e.name.clone(), w);
        }
    }
    Ok(weights)
}

/// The built profile: each point's plugins in `order`, Score with its weight.
fn assemble(
    profile: String,
    features: Arc<Features>,
    order: &BTreeMap<&'static str, Vec<PluginRef>>,
    instances: &BTreeMap<String, PluginSlots>,
    weights: &BTreeMap<String, i64>,
    placement_weights: &BTreeMap<String, i64>,
) -> Framework {
    let pick = |point: &str| order.get(point).map(Vec::as_slice).unwrap_or_default();
    let slots = |point: &str| pick(point).iter().filter_map(|r| instances.get(&r.name));
    let known = |point: &str| -> Vec<&'static str> {
        pick(point)
            .iter()
            .filter_map(|r| registry::known_plugins().into_iter().find(|k| *k == r.name))
            .collect()
    };
    let later = ["Reserve", "Permit", "PreBind", "Bind", "PostBind"]
        .into_iter()
        .map(|p| (p, known(p)))
        .collect();
    Framework {
        name: profile,
        features,
        pre_enqueue: slots("PreEnqueue").filter_map(|s| s.pre_enqueue.clone()).collect(),
        queue_sort: known("QueueSort"),
        pre_filter: slots("PreFilter").filter_map(|s| s.pre_filter.clone()).collect(),
        filter: slots("Filter").filter_map(|s| s.filter.clone()).collect(),
        post_filter: slots("PostFilter").filter_map(|s| s.post_filter.clone()).collect(),
        pre_score: slots("PreScore").filter_map(|s| s.pre_score.clone()).collect(),
        score: pick("Score")
            .iter()
            .filter_map(|r| {
                let s = instances.get(&r.name)?.score.clone()?;
                Some((s, weights.get(&r.name).copied().unwrap_or(1)))
            })
            .collect(),
        later,
        queue_sorter: slots("QueueSort").find_map(|s| s.queue_sorter.clone()),
        reserve: slots("Reserve").filter_map(|s| s.reserve.clone()).collect(),
        permit: slots("Permit").filter_map(|s| s.permit.clone()).collect(),
        pre_bind: slots("PreBind").filter_map(|s| s.pre_bind.clone()).collect(),
        bind: slots("Bind").filter_map(|s| s.bind.clone()).collect(),
        post_bind: slots("PostBind").filter_map(|s| s.post_bind.clone()).collect(),
        placement_generate: slots("PlacementGenerate")
            .filter_map(|s| s.placement_generate.clone())
            .collect(),
        placement_score: pick("PlacementScore")
            .iter()
            .filter_map(|r| {
                let s = instances.get(&r.name)?.placement_score.clone()?;
                Some((s, placement_weights.get(&r.name).copied().unwrap_or(1)))
            })
            .collect(),
        not_implemented: instances
            .iter()
            .filter(|(_, s)| s.not_implemented)
            .map(|(n, _)| n.clone())
            .collect(),
        config_notes: Vec::new(),
    }
}

impl Framework {
    /// The default profile of a version.
    pub fn default_profile(features: impl Into<Features>) -> Result<Framework, ProfileError> {
        Framework::from_config(
            &ProfileConfig {
                scheduler_name: default_scheduler_name(),
                plugins: None,
                plugin_config: Vec::new(),
                percentage_of_nodes_to_score: None,
            },
            features,
        )
    }

    /// Builds a profile from its configuration, merged with the version's defaults: the
    /// plugin sets are merged, every plugin named is built, each point gets its plugins in
    /// order and Score its weights; exactly one QueueSort plugin must remain.
    pub fn from_config(cfg: &ProfileConfig, features: impl Into<Features>) -> Result<Framework, ProfileError> {
        let features = Arc::new(features.into());
        let profile = cfg.scheduler_name.clone();
        let merged = merged_plugin_sets(cfg, &features);
        let instances = instantiate_plugins(&profile, cfg, &merged, &features)?;
        let order = order_points(&merged, &instances);
        let weights = score_weights(
            &profile,
            &merged.score,
            &merged,
            |n| instances.get(n).is_some_and(|s| s.score.is_some()),
            "",
        )?;
        let placement_weights = score_weights(
            &profile,
            &merged.placement_score,
            &merged,
            |n| instances.get(n).is_some_and(|s| s.placement_score.is_some()),
            "placement score plugins: ",
        )?;
        let fw = assemble(profile, features, &order, &instances, &weights, &placement_weights);
        if fw.placement_generate.len() > 1 {
            return Err(ProfileError::Config(format!(
                "at most one placement generate plugin is allowed for profile with scheduler name {:?}",
                fw.name
            )));
        }
        if fw.queue_sort.len() != 1 {
            return Err(ProfileError::Config(format!(
                "profile '{}': exactly one queue sort plugin is required, found {}",
                fw.name,
                fw.queue_sort.len()
            )));
        }
        Ok(fw)
    }
}

/// The schedulerName of the built-in scheduler-plugins profile (the name the scheduler-plugins
/// install chart gives its second scheduler).
pub(crate) const SCHEDULER_PLUGINS_PROFILE: &str = "scheduler-plugins-scheduler";

/// Plugins the scheduler-plugins install chart also enables in that profile, which kschedtui
/// does not reproduce (listed as not implemented in every explanation of the profile).
pub(crate) const SCHEDULER_PLUGINS_CHART_EXTRAS: &[&str] = &[
    "CapacityScheduling",
    "NodeResourceTopologyMatch",
    "NodeResourcesAllocatable",
];

impl Framework {
    /// The built-in second profile `scheduler-plugins-scheduler`, as the scheduler-plugins
    /// install chart composes it (manifests/install/charts/as-a-second-scheduler: values.yaml
    /// and templates/configmap.yaml): the default plugins, plus Coscheduling at every point it
    /// implements through multiPoint, PrioritySort disabled, and Coscheduling's
    /// permitWaitingTimeSeconds set to 10 as the chart's values do.
    pub fn scheduler_plugins_profile(features: impl Into<Features>) -> Result<Framework, ProfileError> {
        let mut fw = Framework::from_config(
            &ProfileConfig {
                scheduler_name: SCHEDULER_PLUGINS_PROFILE.into(),
                plugins: Some(PluginsConfig {
                    multi_point: PluginSet {
                        enabled: vec![PluginRef {
                            name: names::COSCHEDULING.into(),
                            weight: 0,
                        }],
                        disabled: vec![PluginRef {
                            name: names::PRIORITY_SORT.into(),
                            weight: 0,
                        }],
                    },
                    ..Default::default()
                }),
                plugin_config: vec![PluginConfig {
                    name: names::COSCHEDULING.into(),
                    args: serde_json::json!({"permitWaitingTimeSeconds": 10}),
                }],
                percentage_of_nodes_to_score: None,
            },
            features,
        )?;
        fw.not_implemented
            .extend(SCHEDULER_PLUGINS_CHART_EXTRAS.iter().map(|s| (*s).to_string()));
        Ok(fw)
    }
}

/// Builds every profile of a configuration; without one, the default profile and the built-in
/// `scheduler-plugins-scheduler` profile.
pub fn build_profiles(
    config: Option<&SchedulerConfig>,
    features: impl Into<Features>,
) -> Result<Vec<Framework>, ProfileError> {
    let features: Features = features.into();
    if let Some(c) = config {
        c.validate(&features)?;
    }
    let mut profiles = match config {
        Some(c) if !c.profiles.is_empty() => c
            .profiles
            .iter()
            .map(|p| Framework::from_config(p, &features))
            .collect::<Result<Vec<_>, _>>()?,
        _ => vec![
            Framework::default_profile(&features)?,
            Framework::scheduler_plugins_profile(&features)?,
        ],
    };
    // the extenders are shared by every profile: each answer says what of them is missing
    let notes = config.map(SchedulerConfig::extender_notes).unwrap_or_default();
    for fw in &mut profiles {
        fw.config_notes.clone_from(&notes);
    }
    Ok(profiles)
}

#[cfg(test)]
mod tests {
    use super::{GoDuration, parse_go_duration};

    #[test]
    fn durations_parse_and_print_as_go_does() {
        // time.ParseDuration, then time.Duration.String()
        for (text, ns, shown) in [
            ("15s", 15_000_000_000, "15s"),
            ("90s", 90_000_000_000, "1m30s"),
            ("1m30s", 90_000_000_000, "1m30s"),
            ("1h", 3_600_000_000_000, "1h0m0s"),
            ("2h45m0.5s", 9_900_500_000_000, "2h45m0.5s"),
            ("1.5s", 1_500_000_000, "1.5s"),
            ("-1500ms", -1_500_000_000, "-1.5s"),
            ("500ms", 500_000_000, "500ms"),
            ("1.25ms", 1_250_000, "1.25ms"),
            ("1us", 1_000, "1µs"),
            ("1µs", 1_000, "1µs"),
            ("7ns", 7, "7ns"),
            (".5m", 30_000_000_000, "30s"),
            ("+2s", 2_000_000_000, "2s"),
            ("0", 0, "0s"),
            ("0s", 0, "0s"),
        ] {
            assert_eq!(parse_go_duration(text), Some(ns), "{text}");
            assert_eq!(GoDuration(ns).to_string(), shown, "{text}");
        }
        for bad in ["", "5", "s", "1x", "--1s", ".s", "1.s5"] {
            assert_eq!(parse_go_duration(bad), None, "{bad}");
        }
    }
}
