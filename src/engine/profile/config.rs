//! The KubeSchedulerConfiguration as kube-scheduler decodes and validates it (apis/config/v1,
//! apis/config/validation): strict decoding, durations, leader election, client connection,
//! extenders, profiles and their plugin configuration.

use super::*;

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
pub(super) fn parse_go_duration(s: &str) -> Option<i64> {
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
    /// percentageOfNodesToScore (every profile's unless it sets its own; see
    /// [`crate::engine::framework::sampling`]).
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
pub(super) fn field_path(p: &serde_ignored::Path<'_>) -> String {
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
pub(super) fn invalid(path: &str, value: impl std::fmt::Display, detail: &str) -> String {
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
pub(super) const IN_TREE_LIMITS: &[&str] = &["AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"];

/// `runtime.NewStrictDecodingError`: `strict decoding error: unknown field "a", unknown field
/// "b"`.
pub(super) fn strict_error(fields: &[String]) -> ProfileError {
    let each: Vec<String> = fields.iter().map(|f| format!("unknown field {f:?}")).collect();
    ProfileError::Config(format!("strict decoding error: {}", each.join(", ")))
}

/// `validation.IsQualifiedName`'s messages (apimachinery).
pub(super) fn qualified_name_errors(value: &str) -> Vec<String> {
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
pub(super) fn aggregate(errs: Vec<String>) -> Result<(), ProfileError> {
    let mut seen = BTreeSet::new();
    let mut errs: Vec<String> = errs.into_iter().filter(|e| seen.insert(e.clone())).collect();
    match errs.len() {
        0 => Ok(()),
        1 => Err(ProfileError::Config(errs.remove(0))),
        _ => Err(ProfileError::Config(format!("[{}]", errs.join(", ")))),
    }
}
