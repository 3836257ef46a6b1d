//! The DeschedulerPolicy (`descheduler/v1alpha2`) as descheduler v0.36 reads it
//! (pkg/api/v1alpha2/types.go, pkg/descheduler/policyconfig.go, each plugin's `types.go`,
//! `defaults.go` and `validation.go`): decoding with unknown fields refused (upstream decodes
//! strictly), field names matched without regard to case (as its decoder does), the
//! per-plugin validation with upstream's messages, the defaults (RemoveFailedPods'
//! minPodLifetimeSeconds 3600, RemovePodsViolatingTopologySpreadConstraint's constraints
//! `[DoNotSchedule]` and topologyBalanceNodeFit true, DefaultEvictor added to every profile's filter and
//! preEvictionFilter points and configs), and the profile checks of
//! pkg/framework/profile/profile.go (`NewProfile`) that name a plugin enabled at a point it
//! does not implement, or enabled without a pluginConfig.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde_json::Value;

use crate::model::selector::Selector;

/// The plugin names descheduler v0.36 registers (pkg/descheduler/setupplugins.go).
pub const REGISTERED: &[&str] = &[
    DEFAULT_EVICTOR,
    LOW_NODE_UTILIZATION,
    HIGH_NODE_UTILIZATION,
    POD_LIFE_TIME,
    REMOVE_DUPLICATES,
    REMOVE_FAILED_PODS,
    TOO_MANY_RESTARTS,
    INTER_POD_ANTI_AFFINITY,
    NODE_AFFINITY,
    NODE_TAINTS,
    TOPOLOGY_SPREAD,
];

/// DefaultEvictor.
pub const DEFAULT_EVICTOR: &str = "DefaultEvictor";
/// LowNodeUtilization.
pub const LOW_NODE_UTILIZATION: &str = "LowNodeUtilization";
/// HighNodeUtilization.
pub const HIGH_NODE_UTILIZATION: &str = "HighNodeUtilization";
/// PodLifeTime.
pub const POD_LIFE_TIME: &str = "PodLifeTime";
/// RemoveDuplicates.
pub const REMOVE_DUPLICATES: &str = "RemoveDuplicates";
/// RemoveFailedPods.
pub const REMOVE_FAILED_PODS: &str = "RemoveFailedPods";
/// RemovePodsHavingTooManyRestarts.
pub const TOO_MANY_RESTARTS: &str = "RemovePodsHavingTooManyRestarts";
/// RemovePodsViolatingInterPodAntiAffinity.
pub const INTER_POD_ANTI_AFFINITY: &str = "RemovePodsViolatingInterPodAntiAffinity";
/// RemovePodsViolatingNodeAffinity.
pub const NODE_AFFINITY: &str = "RemovePodsViolatingNodeAffinity";
/// RemovePodsViolatingNodeTaints.
pub const NODE_TAINTS: &str = "RemovePodsViolatingNodeTaints";
/// RemovePodsViolatingTopologySpreadConstraint.
pub const TOPOLOGY_SPREAD: &str = "RemovePodsViolatingTopologySpreadConstraint";

/// The plugins that implement the Deschedule extension point.
pub const DESCHEDULE_PLUGINS: &[&str] = &[
    POD_LIFE_TIME,
    REMOVE_FAILED_PODS,
    TOO_MANY_RESTARTS,
    INTER_POD_ANTI_AFFINITY,
    NODE_AFFINITY,
    NODE_TAINTS,
];
/// The plugins that implement the Balance extension point.
pub const BALANCE_PLUGINS: &[&str] = &[
    LOW_NODE_UTILIZATION,
    HIGH_NODE_UTILIZATION,
    REMOVE_DUPLICATES,
    TOPOLOGY_SPREAD,
];

/// `SystemCriticalPriority` (2 * HighestUserDefinablePriority).
pub const SYSTEM_CRITICAL_PRIORITY: i32 = 2_000_000_000;

/// Why a policy cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// The document does not decode: a wrong type, an unknown field, a bad apiVersion.
    #[error("field '{field}': {message}")]
    Decode {
        /// Path of the field (`profiles[0].pluginConfig[1].args.thresholds`).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// Validation failed: upstream's aggregated message, and the fields it is about.
    #[error("{message} (at {})", fields.join(", "))]
    Invalid {
        /// Upstream's message (`[a, b]` when there are several, as `utilerrors.NewAggregate`).
        message: String,
        /// The fields at fault, in the same order.
        fields: Vec<String>,
    },
}

/// Include/exclude namespaces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Namespaces {
    /// include.
    pub include: Vec<String>,
    /// exclude.
    pub exclude: Vec<String>,
}

impl Namespaces {
    /// Whether a pod of namespace `ns` passes (`podutil.Options` WithNamespaces/WithoutNamespaces).
    pub fn admits(ns: Option<&Namespaces>, pod_ns: &str) -> bool {
        let Some(n) = ns else { return true };
        if !n.include.is_empty() && !n.include.iter().any(|x| x == pod_ns) {
            return false;
        }
        n.exclude.is_empty() || !n.exclude.iter().any(|x| x == pod_ns)
    }
}

/// `api.PriorityThreshold`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PriorityThreshold {
    /// value.
    pub value: Option<i32>,
    /// name (a PriorityClass).
    pub name: String,
}

/// `PodsWithPVC` protection config.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodProtections {
    /// extraEnabled.
    pub extra_enabled: Vec<String>,
    /// defaultDisabled.
    pub default_disabled: Vec<String>,
    /// config.PodsWithPVC.protectedStorageClasses[].name (None when config.PodsWithPVC is absent).
    pub protected_storage_classes: Option<Vec<String>>,
}

/// DefaultEvictorArgs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EvictorArgs {
    /// nodeSelector (a label selector string).
    pub node_selector: String,
    /// labelSelector.
    pub label_selector: Option<LabelSelector>,
    /// namespaceLabelSelector.
    pub namespace_label_selector: Option<LabelSelector>,
    /// priorityThreshold.
    pub priority_threshold: Option<PriorityThreshold>,
    /// nodeFit.
    pub node_fit: bool,
    /// minReplicas.
    pub min_replicas: u64,
    /// minPodAge, in seconds (a Go duration in the file).
    pub min_pod_age: Option<(f64, String)>,
    /// noEvictionPolicy.
    pub no_eviction_policy: String,
    /// podProtections.
    pub pod_protections: PodProtections,
    /// Deprecated booleans.
    pub evict_local_storage_pods: bool,
    /// evictDaemonSetPods.
    pub evict_daemon_set_pods: bool,
    /// evictSystemCriticalPods.
    pub evict_system_critical_pods: bool,
    /// ignorePvcPods.
    pub ignore_pvc_pods: bool,
    /// ignorePodsWithoutPDB.
    pub ignore_pods_without_pdb: bool,
    /// evictFailedBarePods.
    pub evict_failed_bare_pods: bool,
}

/// Resource thresholds in percent, by resource name.
pub type Thresholds = BTreeMap<String, f64>;

/// LowNodeUtilizationArgs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LowNodeUtilizationArgs {
    /// useDeviationThresholds.
    pub use_deviation_thresholds: bool,
    /// thresholds.
    pub thresholds: Thresholds,
    /// targetThresholds.
    pub target_thresholds: Thresholds,
    /// numberOfNodes.
    pub number_of_nodes: i64,
    /// metricsUtilization is set (kschedtui only reproduces requests).
    pub metrics_utilization: Option<Value>,
    /// evictableNamespaces.
    pub evictable_namespaces: Option<Namespaces>,
    /// evictionLimits.node.
    pub eviction_limit_node: Option<u64>,
}

/// HighNodeUtilizationArgs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HighNodeUtilizationArgs {
    /// thresholds.
    pub thresholds: Thresholds,
    /// numberOfNodes.
    pub number_of_nodes: i64,
    /// evictionModes.
    pub eviction_modes: Vec<String>,
    /// evictableNamespaces.
    pub evictable_namespaces: Option<Namespaces>,
}

/// The arguments shared by most Deschedule plugins.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Common {
    /// namespaces.
    pub namespaces: Option<Namespaces>,
    /// labelSelector.
    pub label_selector: Option<LabelSelector>,
}

/// RemoveDuplicatesArgs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RemoveDuplicatesArgs {
    /// namespaces.
    pub namespaces: Option<Namespaces>,
    /// excludeOwnerKinds.
    pub exclude_owner_kinds: Vec<String>,
}

/// RemovePodsViolatingNodeAffinityArgs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeAffinityArgs {
    /// namespaces, labelSelector.
    pub common: Common,
    /// nodeAffinityType.
    pub node_affinity_type: Vec<String>,
}

/// RemovePodsViolatingNodeTaintsArgs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeTaintsArgs {
    /// namespaces, labelSelector.
    pub common: Common,
    /// includePreferNoSchedule.
    pub include_prefer_no_schedule: bool,
    /// excludedTaints (None when absent).
    pub excluded_taints: Option<Vec<String>>,
    /// includedTaints (None when absent: every taint is included).
    pub included_taints: Option<Vec<String>>,
}

/// RemoveFailedPodsArgs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FailedPodsArgs {
    /// namespaces, labelSelector.
    pub common: Common,
    /// excludeOwnerKinds.
    pub exclude_owner_kinds: Vec<String>,
    /// minPodLifetimeSeconds (defaulted to 3600).
    pub min_pod_lifetime_seconds: Option<u64>,
    /// reasons.
    pub reasons: Vec<String>,
    /// exitCodes.
    pub exit_codes: Vec<i32>,
    /// includingInitContainers.
    pub including_init_containers: bool,
}

/// RemovePodsHavingTooManyRestartsArgs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TooManyRestartsArgs {
    /// namespaces, labelSelector.
    pub common: Common,
    /// podRestartThreshold.
    pub pod_restart_threshold: i32,
    /// includingInitContainers.
    pub including_init_containers: bool,
    /// states.
    pub states: Vec<String>,
}

/// A PodLifeTime condition filter.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConditionFilter {
    /// type.
    pub type_: String,
    /// status.
    pub status: String,
    /// reason.
    pub reason: String,
    /// minTimeSinceLastTransitionSeconds.
    pub min_time_since_last_transition_seconds: Option<u64>,
}

/// PodLifeTimeArgs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PodLifeTimeArgs {
    /// namespaces, labelSelector.
    pub common: Common,
    /// ownerKinds.
    pub owner_kinds: Option<Namespaces>,
    /// maxPodLifeTimeSeconds.
    pub max_pod_life_time_seconds: Option<u64>,
    /// states.
    pub states: Vec<String>,
    /// conditions.
    pub conditions: Vec<ConditionFilter>,
    /// exitCodes.
    pub exit_codes: Vec<i32>,
    /// includingInitContainers.
    pub including_init_containers: bool,
    /// includingEphemeralContainers.
    pub including_ephemeral_containers: bool,
}

/// RemovePodsViolatingTopologySpreadConstraintArgs, defaulted (constraints `[DoNotSchedule]`
/// when empty, topologyBalanceNodeFit true when absent).
#[derive(Clone, Debug, PartialEq)]
pub struct TopologySpreadArgs {
    /// namespaces, labelSelector.
    pub common: Common,
    /// constraints: the whenUnsatisfiable actions whose constraints are balanced.
    pub constraints: Vec<String>,
    /// topologyBalanceNodeFit.
    pub topology_balance_node_fit: bool,
}

impl Default for TopologySpreadArgs {
    fn default() -> Self {
        TopologySpreadArgs {
            common: Common::default(),
            constraints: vec!["DoNotSchedule".into()],
            topology_balance_node_fit: true,
        }
    }
}

/// A plugin's arguments.
#[derive(Clone, Debug, PartialEq)]
pub enum PluginArgs {
    /// DefaultEvictor.
    DefaultEvictor(EvictorArgs),
    /// LowNodeUtilization.
    LowNodeUtilization(LowNodeUtilizationArgs),
    /// HighNodeUtilization.
    HighNodeUtilization(HighNodeUtilizationArgs),
    /// RemoveDuplicates.
    RemoveDuplicates(RemoveDuplicatesArgs),
    /// RemovePodsViolatingInterPodAntiAffinity.
    InterPodAntiAffinity(Common),
    /// RemovePodsViolatingNodeAffinity.
    NodeAffinity(NodeAffinityArgs),
    /// RemovePodsViolatingNodeTaints.
    NodeTaints(NodeTaintsArgs),
    /// RemoveFailedPods.
    FailedPods(FailedPodsArgs),
    /// RemovePodsHavingTooManyRestarts.
    TooManyRestarts(TooManyRestartsArgs),
    /// PodLifeTime.
    PodLifeTime(PodLifeTimeArgs),
    /// RemovePodsViolatingTopologySpreadConstraint.
    TopologySpread(TopologySpreadArgs),
}

/// One pluginConfig entry.
#[derive(Clone, Debug, PartialEq)]
pub struct PluginConfig {
    /// name.
    pub name: String,
    /// args, decoded and defaulted.
    pub args: PluginArgs,
    /// Its path in the file, for messages.
    pub field: String,
}

/// enabled / disabled.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PluginSet {
    /// enabled.
    pub enabled: Vec<String>,
    /// disabled.
    pub disabled: Vec<String>,
}

/// The extension points.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plugins {
    /// presort (not used by any v0.36 plugin).
    pub presort: PluginSet,
    /// sort (not used by any v0.36 plugin).
    pub sort: PluginSet,
    /// deschedule.
    pub deschedule: PluginSet,
    /// balance.
    pub balance: PluginSet,
    /// filter.
    pub filter: PluginSet,
    /// preevictionfilter.
    pub pre_eviction_filter: PluginSet,
}

/// A profile.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// name.
    pub name: String,
    /// pluginConfig.
    pub plugin_configs: Vec<PluginConfig>,
    /// plugins.
    pub plugins: Plugins,
}

impl Profile {
    /// `getPluginConfig`: the first config with that name.
    pub fn config(&self, name: &str) -> Option<&PluginConfig> {
        self.plugin_configs.iter().find(|c| c.name == name)
    }

    /// The DefaultEvictor's arguments (always present after defaulting).
    pub fn evictor_args(&self) -> EvictorArgs {
        match self.config(DEFAULT_EVICTOR).map(|c| &c.args) {
            Some(PluginArgs::DefaultEvictor(a)) => a.clone(),
            _ => EvictorArgs::default(),
        }
    }
}

/// The policy, decoded, validated and defaulted.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    /// profiles.
    pub profiles: Vec<Profile>,
    /// nodeSelector (label selector string).
    pub node_selector: Option<String>,
    /// maxNoOfPodsToEvictPerNode.
    pub max_per_node: Option<u64>,
    /// maxNoOfPodsToEvictPerNamespace.
    pub max_per_namespace: Option<u64>,
    /// maxNoOfPodsToEvictTotal.
    pub max_total: Option<u64>,
}

// ---- decoding ---------------------------------------------------------------------------

type R<T> = Result<T, PolicyError>;

fn derr(field: &str, message: impl Into<String>) -> PolicyError {
    PolicyError::Decode {
        field: field.to_string(),
        message: message.into(),
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// An object's fields, matched case-insensitively against the known names; an unknown key is
/// an error naming it.
struct Obj<'a> {
    path: String,
    fields: BTreeMap<&'static str, (&'a Value, String)>,
}

impl<'a> Obj<'a> {
    fn new(v: &'a Value, path: &str, known: &[&'static str]) -> R<Obj<'a>> {
        let map = match v {
            Value::Object(m) => m,
            Value::Null => {
                return Ok(Obj {
                    path: path.to_string(),
                    fields: BTreeMap::new(),
                });
            }
            other => return Err(derr(path, format!("expected an object, got {}", kind_of(other)))),
        };
        let mut fields = BTreeMap::new();
        for (k, v) in map {
            let Some(name) = known.iter().find(|n| n.eq_ignore_ascii_case(k)) else {
                return Err(derr(
                    &join(path, k),
                    format!("unknown field \"{k}\" (known: {})", known.join(", ")),
                ));
            };
            if fields.insert(*name, (v, join(path, k))).is_some() {
                return Err(derr(&join(path, k), format!("duplicate field \"{name}\"")));
            }
        }
        Ok(Obj {
            path: path.to_string(),
            fields,
        })
    }

    fn get(&self, name: &str) -> Option<(&'a Value, &str)> {
        self.fields
            .get(name)
            .filter(|(v, _)| !v.is_null())
            .map(|(v, p)| (*v, p.as_str()))
    }

    fn path_of(&self, name: &str) -> String {
        self.fields
            .get(name)
            .map_or_else(|| join(&self.path, name), |(_, p)| p.clone())
    }

    fn string(&self, name: &str) -> R<Option<String>> {
        self.get(name).map(|(v, p)| as_string(v, p)).transpose()
    }

    fn boolean(&self, name: &str) -> R<bool> {
        match self.get(name) {
            None => Ok(false),
            Some((Value::Bool(b), _)) => Ok(*b),
            Some((v, p)) => Err(derr(p, format!("expected a boolean, got {}", kind_of(v)))),
        }
    }

    fn uint(&self, name: &str) -> R<Option<u64>> {
        match self.get(name) {
            None => Ok(None),
            Some((v, p)) => match v.as_u64() {
                Some(n) => Ok(Some(n)),
                None => Err(derr(p, format!("expected a non-negative integer, got {}", show(v)))),
            },
        }
    }

    fn int(&self, name: &str) -> R<Option<i64>> {
        match self.get(name) {
            None => Ok(None),
            Some((v, p)) => match v.as_i64() {
                Some(n) => Ok(Some(n)),
                None => Err(derr(p, format!("expected an integer, got {}", show(v)))),
            },
        }
    }

    fn strings(&self, name: &str) -> R<Option<Vec<String>>> {
        match self.get(name) {
            None => Ok(None),
            Some((Value::Array(a), p)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| as_string(v, &format!("{p}[{i}]")))
                .collect::<R<Vec<_>>>()
                .map(Some),
            Some((v, p)) => Err(derr(p, format!("expected a list of strings, got {}", kind_of(v)))),
        }
    }

    fn int32s(&self, name: &str) -> R<Vec<i32>> {
        match self.get(name) {
            None => Ok(Vec::new()),
            Some((Value::Array(a), p)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_i64().and_then(|n| i32::try_from(n).ok()).ok_or_else(|| {
                        derr(
                            &format!("{p}[{i}]"),
                            format!("expected a 32-bit integer, got {}", show(v)),
                        )
                    })
                })
                .collect(),
            Some((v, p)) => Err(derr(p, format!("expected a list of integers, got {}", kind_of(v)))),
        }
    }

    fn label_selector(&self, name: &str) -> R<Option<LabelSelector>> {
        match self.get(name) {
            None => Ok(None),
            Some((v, p)) => serde_json::from_value::<LabelSelector>(v.clone())
                .map(Some)
                .map_err(|e| derr(p, format!("not a label selector: {e}"))),
        }
    }

    fn namespaces(&self, name: &str) -> R<Option<Namespaces>> {
        let Some((v, p)) = self.get(name) else { return Ok(None) };
        let o = Obj::new(v, p, &["include", "exclude"])?;
        Ok(Some(Namespaces {
            include: o.strings("include")?.unwrap_or_default(),
            exclude: o.strings("exclude")?.unwrap_or_default(),
        }))
    }

    fn thresholds(&self, name: &str) -> R<Thresholds> {
        let Some((v, p)) = self.get(name) else {
            return Ok(Thresholds::new());
        };
        let Value::Object(m) = v else {
            return Err(derr(
                p,
                format!("expected a map of resource name to percentage, got {}", kind_of(v)),
            ));
        };
        m.iter()
            .map(|(k, v)| {
                v.as_f64()
                    .map(|f| (k.clone(), f))
                    .ok_or_else(|| derr(&join(p, k), format!("expected a number (percent), got {}", show(v))))
            })
            .collect()
    }
}

fn as_string(v: &Value, p: &str) -> R<String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| derr(p, format!("expected a string, got {}", show(v))))
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

const TYPE_META: [&str; 2] = ["apiVersion", "kind"];

fn with_type_meta(known: &[&'static str]) -> Vec<&'static str> {
    TYPE_META.iter().copied().chain(known.iter().copied()).collect()
}

/// Parses a Go `time.Duration` string ("1h30m", "90s", "500ms"); seconds.
pub fn parse_go_duration(s: &str) -> Option<f64> {
    let (neg, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Some(0.0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0;
    while !rest.is_empty() {
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if n == 0 {
            return None;
        }
        let num: f64 = rest[..n].parse().ok()?;
        rest = &rest[n..];
        let u = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = match &rest[..u] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        rest = &rest[u..];
        total += num * unit;
    }
    Some(if neg { -total } else { total })
}

fn evictor_args(v: &Value, p: &str) -> R<EvictorArgs> {
    let o = Obj::new(
        v,
        p,
        &with_type_meta(&[
            "nodeSelector",
            "labelSelector",
            "namespaceLabelSelector",
            "priorityThreshold",
            "nodeFit",
            "minReplicas",
            "minPodAge",
            "noEvictionPolicy",
            "podProtections",
            "evictLocalStoragePods",
            "evictDaemonSetPods",
            "evictSystemCriticalPods",
            "ignorePvcPods",
            "ignorePodsWithoutPDB",
            "evictFailedBarePods",
        ]),
    )?;
    let priority_threshold = match o.get("priorityThreshold") {
        None => None,
        Some((v, p)) => {
            let t = Obj::new(v, p, &["value", "name"])?;
            let value = match t.int("value")? {
                None => None,
                Some(n) => Some(
                    i32::try_from(n).map_err(|_| derr(&t.path_of("value"), format!("{n} does not fit in int32")))?,
                ),
            };
            Some(PriorityThreshold {
                value,
                name: t.string("name")?.unwrap_or_default(),
            })
        }
    };
    let min_pod_age = match o.get("minPodAge") {
        None => None,
        Some((v, p)) => {
            let s = as_string(v, p)?;
            let secs = parse_go_duration(&s).ok_or_else(|| derr(p, format!("time: invalid duration \"{s}\"")))?;
            Some((secs, s))
        }
    };
    let pod_protections = match o.get("podProtections") {
        None => PodProtections::default(),
        Some((v, p)) => {
            let pp = Obj::new(v, p, &["extraEnabled", "defaultDisabled", "config"])?;
            let protected_storage_classes = match pp.get("config") {
                None => None,
                Some((v, p)) => {
                    let c = Obj::new(v, p, &["PodsWithPVC"])?;
                    match c.get("PodsWithPVC") {
                        None => None,
                        Some((v, p)) => {
                            let pvc = Obj::new(v, p, &["protectedStorageClasses"])?;
                            let mut names = Vec::new();
                            if let Some((Value::Array(a), p)) = pvc.get("protectedStorageClasses") {
                                for (i, e) in a.iter().enumerate() {
                                    let ep = format!("{p}[{i}]");
                                    let so = Obj::new(e, &ep, &["name"])?;
                                    names.push(so.string("name")?.unwrap_or_default());
                                }
                            }
                            Some(names)
                        }
                    }
                }
            };
            PodProtections {
                extra_enabled: pp.strings("extraEnabled")?.unwrap_or_default(),
                default_disabled: pp.strings("defaultDisabled")?.unwrap_or_default(),
                protected_storage_classes,
            }
        }
    };
    Ok(EvictorArgs {
        node_selector: o.string("nodeSelector")?.unwrap_or_default(),
        label_selector: o.label_selector("labelSelector")?,
        namespace_label_selector: o.label_selector("namespaceLabelSelector")?,
        priority_threshold,
        node_fit: o.boolean("nodeFit")?,
        min_replicas: o.uint("minReplicas")?.unwrap_or(0),
        min_pod_age,
        no_eviction_policy: o.string("noEvictionPolicy")?.unwrap_or_default(),
        pod_protections,
        evict_local_storage_pods: o.boolean("evictLocalStoragePods")?,
        evict_daemon_set_pods: o.boolean("evictDaemonSetPods")?,
        evict_system_critical_pods: o.boolean("evictSystemCriticalPods")?,
        ignore_pvc_pods: o.boolean("ignorePvcPods")?,
        ignore_pods_without_pdb: o.boolean("ignorePodsWithoutPDB")?,
        evict_failed_bare_pods: o.boolean("evictFailedBarePods")?,
    })
}

fn common(o: &Obj<'_>) -> R<Common> {
    Ok(Common {
        namespaces: o.namespaces("namespaces")?,
        label_selector: o.label_selector("labelSelector")?,
    })
}

fn plugin_args(name: &str, v: &Value, p: &str) -> R<PluginArgs> {
    match name {
        DEFAULT_EVICTOR => Ok(PluginArgs::DefaultEvictor(evictor_args(v, p)?)),
        LOW_NODE_UTILIZATION => low_node_utilization_args(v, p),
        HIGH_NODE_UTILIZATION => high_node_utilization_args(v, p),
        REMOVE_DUPLICATES => remove_duplicates_args(v, p),
        INTER_POD_ANTI_AFFINITY => inter_pod_anti_affinity_args(v, p),
        NODE_AFFINITY => node_affinity_args(v, p),
        NODE_TAINTS => node_taints_args(v, p),
        REMOVE_FAILED_PODS => remove_failed_pods_args(v, p),
        TOO_MANY_RESTARTS => too_many_restarts_args(v, p),
        POD_LIFE_TIME => pod_life_time_args(v, p),
        TOPOLOGY_SPREAD => topology_spread_args(v, p),
        _ => Err(derr(p, format!("no plugin \"{name}\""))),
    }
}

/// LowNodeUtilization's args.
fn low_node_utilization_args(v: &Value, p: &str) -> R<PluginArgs> {
    let o = Obj::new(
        v,
        p,
        &with_type_meta(&[
            "useDeviationThresholds",
            "thresholds",
            "targetThresholds",
            "numberOfNodes",
            "metricsUtilization",
            "evictableNamespaces",
            "evictionLimits",
        ]),
    )?;
    let eviction_limit_node = match o.get("evictionLimits") {
        None => None,
        Some((v, p)) => Obj::new(v, p, &["node"])?.uint("node")?,
    };
    Ok(PluginArgs::LowNodeUtilization(LowNodeUtilizationArgs {
        use_deviation_thresholds: o.boolean("useDeviationThresholds")?,
        thresholds: o.thresholds("thresholds")?,
        target_thresholds: o.thresholds("targetThresholds")?,
        number_of_nodes: o.int("numberOfNodes")?.unwrap_or(0),
        metrics_utilization: o.get("metricsUtilization").map(|(v, _)| v.clone()),
        evictable_namespaces: o.namespaces("evictableNamespaces")?,
        eviction_limit_node,
    }))
}

/// HighNodeUtilization's args.
fn high_node_utilization_args(v: &Value, p: &str) -> R<PluginArgs> {
    let o = Obj::new(
        v,
        p,
        &with_type_meta(&["thresholds", "numberOfNodes", "evictionModes", "evictableNamespaces"]),
    )?;
    Ok(PluginArgs::HighNodeUtilization(HighNodeUtilizationArgs {
        thresholds: o.thresholds("thresholds")?,
        number_of_nodes: o.int("numberOfNodes")?.unwrap_or(0),
        eviction_modes: o.strings("evictionModes")?.unwrap_or_default(),
        evictable_namespaces: o.namespaces("evictableNamespaces")?,
    }))
}

/// RemoveDuplicates's args.
fn remove_duplicates_args(v: &Value, p: &str) -> R<PluginArgs> {
    let o = Obj::new(v, p, &with_type_meta(&["namespaces", "excludeOwnerKinds"]))?;
    Ok(PluginArgs::RemoveDuplicates(RemoveDuplicatesArgs {
        namespaces: o.namespaces("namespaces")?,
        exclude_owner_kinds: o.strings("excludeOwnerKinds")?.unwrap_or_default(),
    }))
}

/// RemovePodsViolatingInterPodAntiAffinity's args.
fn inter_pod_anti_affinity_args(v: &Value, p: &str) -> R<PluginArgs> {
    let o = Obj::new(v, p, &with_type_meta(&["namespaces", "labelSelector"]))?;
    Ok(PluginArgs::InterPodAntiAffinity(common(&o)?))
}

/// RemovePodsViolatingNodeAffinity's args.
fn node_affinity_args(v: &Value, p: &str) -> R<PluginArgs> {
    let o = Obj::new(
        v,
        p,
        &with_type_meta(&["namespaces", "labelSelector", "nodeAffinityType"]),
    )?;
    Ok(PluginArgs::NodeAffinity(NodeAffinityArgs {
        common: common(&o)?,
        node_affinity_type: o.strings("nodeAffinityType")?.unwrap_or_default(),
    }))
}

/// RemovePodsViolatingNodeTaints's args.
fn node_taints_args(v: &Value, p: &str) -> R<PluginArgs> {
    let o = Obj::new(
        v,
        p,
        &with_type_meta(&[
            "namespaces",
            "labelSelector",
            "includePreferNoSchedule",
            "excludedTaints",
            "includedTaints",
        ]),
    )?;
    Ok(PluginArgs::NodeTaints(NodeTaintsArgs {
        common: common(&o)?,
        include_prefer_no_schedule: o.boolean("includePreferNoSchedule")?,
        excluded_taints: o.strings("excludedTaints")?,
        included_taints: o.strings("includedTaints")?,
    }))
}

/// RemoveFailedPods's args.
fn remove_failed_pods_args(v: &Value, p: &str) -> R<PluginArgs> {
    let o = Obj::new(
        v,
        p,
        &with_type_meta(&[
            "namespaces",
            "labelSelector",
            "excludeOwnerKinds",
            "minPodLifetimeSeconds",
            "reasons",
            "exitCodes",
            "includingInitContainers",
        ]),
    )?;
    Ok(PluginArgs::FailedPods(FailedPodsArgs {
        common: common(&o)?,
        exclude_owner_kinds: o.strings("excludeOwnerKinds")?.unwrap_or_default(),
        min_pod_lifetime_seconds: o.uint("minPodLifetimeSeconds")?,
        reasons: o.strings("reasons")?.unwrap_or_default(),
        exit_codes: o.int32s("exitCodes")?,
        including_init_containers: o.boolean("includingInitContainers")?,
    }))
}

/// RemovePodsHavingTooManyRestarts's args.
fn too_many_restarts_args(v: &Value, p: &str) -> R<PluginArgs> {
    let o = Obj::new(
        v,
        p,
        &with_type_meta(&[
            "namespaces",
            "labelSelector",
            "podRestartThreshold",
            "includingInitContainers",
            "states",
        ]),
    )?;
    let t = o.int("podRestartThreshold")?.unwrap_or(0);
    Ok(PluginArgs::TooManyRestarts(TooManyRestartsArgs {
        common: common(&o)?,
        pod_restart_threshold: i32::try_from(t)
            .map_err(|_| derr(&o.path_of("podRestartThreshold"), format!("{t} does not fit in int32")))?,
        including_init_containers: o.boolean("includingInitContainers")?,
        states: o.strings("states")?.unwrap_or_default(),
    }))
}

/// PodLifeTime's args.
fn pod_life_time_args(v: &Value, p: &str) -> R<PluginArgs> {
    let o = Obj::new(
        v,
        p,
        &with_type_meta(&[
            "namespaces",
            "labelSelector",
            "ownerKinds",
            "maxPodLifeTimeSeconds",
            "states",
            "conditions",
            "exitCodes",
            "includingInitContainers",
            "includingEphemeralContainers",
        ]),
    )?;
    let mut conditions = Vec::new();
    match o.get("conditions") {
        None => {}
        Some((Value::Array(a), p)) => {
            for (i, c) in a.iter().enumerate() {
                let cp = format!("{p}[{i}]");
                let co = Obj::new(
                    c,
                    &cp,
                    &["type", "status", "reason", "minTimeSinceLastTransitionSeconds"],
                )?;
                conditions.push(ConditionFilter {
                    type_: co.string("type")?.unwrap_or_default(),
                    status: co.string("status")?.unwrap_or_default(),
                    reason: co.string("reason")?.unwrap_or_default(),
                    min_time_since_last_transition_seconds: co.uint("minTimeSinceLastTransitionSeconds")?,
                });
            }
        }
        Some((v, p)) => return Err(derr(p, format!("expected a list, got {}", kind_of(v)))),
    }
    Ok(PluginArgs::PodLifeTime(PodLifeTimeArgs {
        common: common(&o)?,
        owner_kinds: o.namespaces("ownerKinds")?,
        max_pod_life_time_seconds: o.uint("maxPodLifeTimeSeconds")?,
        states: o.strings("states")?.unwrap_or_default(),
        conditions,
        exit_codes: o.int32s("exitCodes")?,
        including_init_containers: o.boolean("includingInitContainers")?,
        including_ephemeral_containers: o.boolean("includingEphemeralContainers")?,
    }))
}

/// RemovePodsViolatingTopologySpreadConstraint's args.
fn topology_spread_args(v: &Value, p: &str) -> R<PluginArgs> {
    let o = Obj::new(
        v,
        p,
        &with_type_meta(&["namespaces", "labelSelector", "constraints", "topologyBalanceNodeFit"]),
    )?;
    let constraints = o.strings("constraints")?.unwrap_or_default();
    let node_fit = match o.get("topologyBalanceNodeFit") {
        None => true,
        Some(_) => o.boolean("topologyBalanceNodeFit")?,
    };
    Ok(PluginArgs::TopologySpread(TopologySpreadArgs {
        common: common(&o)?,
        constraints: if constraints.is_empty() {
            vec!["DoNotSchedule".into()]
        } else {
            constraints
        },
        topology_balance_node_fit: node_fit,
    }))
}

fn plugin_set(o: &Obj<'_>, name: &str) -> R<PluginSet> {
    let Some((v, p)) = o.get(name) else {
        return Ok(PluginSet::default());
    };
    let s = Obj::new(v, p, &["enabled", "disabled"])?;
    Ok(PluginSet {
        enabled: s.strings("enabled")?.unwrap_or_default(),
        disabled: s.strings("disabled")?.unwrap_or_default(),
    })
}

/// Decodes a policy document (already read from YAML or JSON into a value).
fn decode(doc: &Value) -> R<(Policy, Vec<(String, String)>)> {
    let top = Obj::new(
        doc,
        "",
        &[
            "apiVersion",
            "kind",
            "profiles",
            "nodeSelector",
            "maxNoOfPodsToEvictPerNode",
            "maxNoOfPodsToEvictPerNamespace",
            "maxNoOfPodsToEvictTotal",
            "evictionFailureEventNotification",
            "metricsCollector",
            "metricsProviders",
            "gracePeriodSeconds",
        ],
    )?;
    let api = top.string("apiVersion")?.unwrap_or_default();
    let kind = top.string("kind")?.unwrap_or_default();
    if kind != "DeschedulerPolicy" {
        return Err(derr(
            "kind",
            format!("is \"{kind}\"; a descheduler policy has kind DeschedulerPolicy"),
        ));
    }
    if api != "descheduler/v1alpha2" {
        return Err(derr(
            "apiVersion",
            format!(
                "no kind \"DeschedulerPolicy\" is registered for version \"{api}\" (descheduler v0.36 reads descheduler/v1alpha2)"
            ),
        ));
    }
    let mut unreproduced = Vec::new();
    if let Some((v, p)) = top.get("metricsCollector") {
        unreproduced.push((p.to_string(), v.to_string()));
    }
    if let Some((v, p)) = top.get("metricsProviders") {
        unreproduced.push((p.to_string(), v.to_string()));
    }
    let mut profiles = Vec::new();
    match top.get("profiles") {
        None => {}
        Some((Value::Array(a), p)) => {
            for (i, pv) in a.iter().enumerate() {
                let pp = format!("{p}[{i}]");
                let po = Obj::new(pv, &pp, &["name", "pluginConfig", "plugins"])?;
                let name = po.string("name")?.unwrap_or_default();
                let mut configs = Vec::new();
                match po.get("pluginConfig") {
                    None => {}
                    Some((Value::Array(ca), cp)) => {
                        for (j, cv) in ca.iter().enumerate() {
                            let cpath = format!("{cp}[{j}]");
                            let co = Obj::new(cv, &cpath, &["name", "args"])?;
                            let cname = co.string("name")?.unwrap_or_default();
                            let args_path = co.path_of("args");
                            let args = if REGISTERED.contains(&cname.as_str()) {
                                let raw = co.get("args").map_or(Value::Null, |(v, _)| v.clone());
                                Some(plugin_args(&cname, &raw, &args_path)?)
                            } else {
                                None
                            };
                            configs.push((cname, args, cpath));
                        }
                    }
                    Some((v, cp)) => return Err(derr(cp, format!("expected a list, got {}", kind_of(v)))),
                }
                let plugins = match po.get("plugins") {
                    None => Plugins::default(),
                    Some((v, pl)) => {
                        let o = Obj::new(
                            v,
                            pl,
                            &[
                                "presort",
                                "sort",
                                "deschedule",
                                "balance",
                                "filter",
                                "preevictionfilter",
                            ],
                        )?;
                        Plugins {
                            presort: plugin_set(&o, "presort")?,
                            sort: plugin_set(&o, "sort")?,
                            deschedule: plugin_set(&o, "deschedule")?,
                            balance: plugin_set(&o, "balance")?,
                            filter: plugin_set(&o, "filter")?,
                            pre_eviction_filter: plugin_set(&o, "preevictionfilter")?,
                        }
                    }
                };
                profiles.push(RawProfile {
                    name,
                    configs,
                    plugins,
                    field: pp,
                });
            }
        }
        Some((v, p)) => return Err(derr(p, format!("expected a list, got {}", kind_of(v)))),
    }
    validate(&profiles)?;
    let profiles = profiles.into_iter().map(set_defaults).collect();
    Ok((
        Policy {
            profiles,
            node_selector: top.string("nodeSelector")?,
            max_per_node: top.uint("maxNoOfPodsToEvictPerNode")?,
            max_per_namespace: top.uint("maxNoOfPodsToEvictPerNamespace")?,
            max_total: top.uint("maxNoOfPodsToEvictTotal")?,
        },
        unreproduced,
    ))
}

struct RawProfile {
    name: String,
    configs: Vec<(String, Option<PluginArgs>, String)>,
    plugins: Plugins,
    field: String,
}

fn aggregate(errs: Vec<(String, String)>) -> R<()> {
    if errs.is_empty() {
        return Ok(());
    }
    let (fields, msgs): (Vec<String>, Vec<String>) = errs.into_iter().unzip();
    let message = if msgs.len() == 1 {
        msgs[0].clone()
    } else {
        format!("[{}]", msgs.join(", "))
    };
    Err(PolicyError::Invalid { message, fields })
}

/// `utilerrors.NewAggregate(...).Error()` of one plugin's errors.
fn agg_msg(errs: &[String]) -> Option<String> {
    match errs.len() {
        0 => None,
        1 => Some(errs[0].clone()),
        _ => Some(format!("[{}]", errs.join(", "))),
    }
}

fn selector_ok(ls: Option<&LabelSelector>) -> bool {
    ls.is_none_or(|l| Selector::from_label_selector(Some(l)) != Selector::Nothing)
}

fn common_errors(c: &Common, errs: &mut Vec<String>) {
    if let Some(n) = &c.namespaces
        && !n.include.is_empty()
        && !n.exclude.is_empty()
    {
        errs.push("only one of Include/Exclude namespaces can be set".into());
    }
    if !selector_ok(c.label_selector.as_ref()) {
        errs.push("failed to get label selectors from strategy's params: invalid label selector".into());
    }
}

const DEFAULT_PROTECTIONS: [&str; 4] = [
    "PodsWithLocalStorage",
    "SystemCriticalPods",
    "FailedBarePods",
    "DaemonSetPods",
];
const EXTRA_PROTECTIONS: [&str; 3] = ["PodsWithPVC", "PodsWithoutPDB", "PodsWithResourceClaims"];

fn has_duplicates(v: &[String]) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    v.iter().any(|x| !seen.insert(x))
}

fn go_list(v: &[&str]) -> String {
    format!("[{}]", v.join(" "))
}

fn validate_thresholds(t: &Thresholds) -> Option<String> {
    if t.is_empty() {
        return Some("no resource threshold is configured".into());
    }
    t.iter()
        .find(|(_, v)| **v < 0.0 || **v > 100.0)
        .map(|(name, _)| format!("{name} threshold not in [0, 100] range"))
}

/// One plugin's validation errors, as its `Validate*Args` reports them.
fn plugin_errors(args: &PluginArgs) -> Vec<String> {
    let mut errs = Vec::new();
    match args {
        PluginArgs::DefaultEvictor(a) => evictor_errors(a, &mut errs),
        PluginArgs::LowNodeUtilization(a) => return low_node_utilization_errors(a),
        PluginArgs::HighNodeUtilization(a) => return high_node_utilization_errors(a),
        PluginArgs::RemoveDuplicates(a) => {
            if let Some(n) = &a.namespaces
                && !n.include.is_empty()
                && !n.exclude.is_empty()
            {
                errs.push("only one of Include/Exclude namespaces can be set".into());
            }
        }
        PluginArgs::InterPodAntiAffinity(c) => common_errors(c, &mut errs),
        PluginArgs::NodeAffinity(a) => {
            if a.node_affinity_type.is_empty() {
                errs.push("nodeAffinityType needs to be set".into());
            }
            common_errors(&a.common, &mut errs);
        }
        PluginArgs::NodeTaints(a) => {
            common_errors(&a.common, &mut errs);
            if a.excluded_taints.as_ref().is_some_and(|v| !v.is_empty())
                && a.included_taints.as_ref().is_some_and(|v| !v.is_empty())
            {
                errs.push("either includedTaints or excludedTaints can be set, but not both".into());
            }
        }
        PluginArgs::FailedPods(a) => common_errors(&a.common, &mut errs),
        PluginArgs::TooManyRestarts(a) => {
            common_errors(&a.common, &mut errs);
            if a.pod_restart_threshold < 1 {
                errs.push("invalid PodsHavingTooManyRestarts threshold".into());
            }
            if a.states.iter().any(|s| s != "Running" && s != "CrashLoopBackOff") {
                errs.push("states must be one of [CrashLoopBackOff Running]".into());
            }
        }
        PluginArgs::PodLifeTime(a) => pod_life_time_errors(a, &mut errs),
        PluginArgs::TopologySpread(a) => {
            common_errors(&a.common, &mut errs);
            for c in &a.constraints {
                if c != "DoNotSchedule" && c != "ScheduleAnyway" {
                    errs.push(format!(
                        "constraint {c} is not one of map[DoNotSchedule:{{}} ScheduleAnyway:{{}}]"
                    ));
                }
            }
        }
    }
    errs
}

/// DefaultEvictor's validation errors, added to `errs`.
fn evictor_errors(a: &EvictorArgs, errs: &mut Vec<String>) {
    if let Some(t) = &a.priority_threshold
        && t.value.is_some()
        && !t.name.is_empty()
    {
        errs.push("priority threshold misconfigured, only one of priorityThreshold fields can be set".into());
    }
    if !a.no_eviction_policy.is_empty() && a.no_eviction_policy != "Preferred" && a.no_eviction_policy != "Mandatory" {
        errs.push("noEvictionPolicy accepts only [\"Preferred\" \"Mandatory\"] values".into());
    }
    let deprecated = a.evict_local_storage_pods
        || a.evict_daemon_set_pods
        || a.evict_system_critical_pods
        || a.ignore_pvc_pods
        || a.evict_failed_bare_pods
        || a.ignore_pods_without_pdb;
    let pp = &a.pod_protections;
    let new_style = !pp.extra_enabled.is_empty() || !pp.default_disabled.is_empty();
    if deprecated && new_style {
        errs.push(
            "cannot use Deprecated fields alongside PodProtections.ExtraEnabled or PodProtections.DefaultDisabled"
                .into(),
        );
    }
    if new_style {
        for p in &pp.extra_enabled {
            if !EXTRA_PROTECTIONS.contains(&p.as_str()) {
                errs.push(format!(
                    "invalid pod protection policy in ExtraEnabled: \"{p}\". Valid options are: {}",
                    go_list(&EXTRA_PROTECTIONS)
                ));
            }
        }
        for p in &pp.default_disabled {
            if !DEFAULT_PROTECTIONS.contains(&p.as_str()) {
                errs.push(format!(
                    "invalid pod protection policy in DefaultDisabled: \"{p}\". Valid options are: {}",
                    go_list(&DEFAULT_PROTECTIONS)
                ));
            }
        }
        if has_duplicates(&pp.default_disabled) {
            errs.push("PodProtections.DefaultDisabled contains duplicate entries".into());
        }
        if has_duplicates(&pp.extra_enabled) {
            errs.push("PodProtections.ExtraEnabled contains duplicate entries".into());
        }
        if pp.extra_enabled.iter().any(|p| p == "PodsWithPVC")
            && let Some(scs) = &pp.protected_storage_classes
        {
            for (i, sc) in scs.iter().enumerate() {
                if sc.is_empty() {
                    errs.push(format!(
                        "PodProtections.Config.PodsWithPVC.ProtectedStorageClasses[{i}] name cannot be empty"
                    ));
                }
            }
        }
    }
}

/// LowNodeUtilization's validation error, if any (upstream returns at the first).
fn low_node_utilization_errors(a: &LowNodeUtilizationArgs) -> Vec<String> {
    // Returns at the first error, as upstream.
    if a.evictable_namespaces.as_ref().is_some_and(|n| !n.include.is_empty()) {
        return vec!["only Exclude namespaces can be set, inclusion is not supported".into()];
    }
    if let Some(e) = validate_thresholds(&a.thresholds) {
        return vec![format!("thresholds config is not valid: {e}")];
    }
    if let Some(e) = validate_thresholds(&a.target_thresholds) {
        return vec![format!("targetThresholds config is not valid: {e}")];
    }
    if a.thresholds.len() != a.target_thresholds.len() {
        return vec!["thresholds and targetThresholds configured different resources".into()];
    }
    for (name, v) in &a.thresholds {
        match a.target_thresholds.get(name) {
            None => return vec!["thresholds and targetThresholds configured different resources".into()],
            Some(t) if v > t && !a.use_deviation_thresholds => {
                return vec![format!(
                    "thresholds' {name} percentage is greater than targetThresholds'"
                )];
            }
            _ => {}
        }
    }
    Vec::new()
}

/// HighNodeUtilization's validation error, if any (upstream returns at the first).
fn high_node_utilization_errors(a: &HighNodeUtilizationArgs) -> Vec<String> {
    if a.evictable_namespaces.as_ref().is_some_and(|n| !n.include.is_empty()) {
        return vec!["only Exclude namespaces can be set, inclusion is not supported".into()];
    }
    if let Some(e) = validate_thresholds(&a.thresholds) {
        return vec![e];
    }
    if let Some(m) = a.eviction_modes.iter().find(|m| *m != "OnlyThresholdingResources") {
        return vec![format!("invalid eviction mode {m}")];
    }
    Vec::new()
}

/// PodLifeTime's validation errors, added to `errs`.
fn pod_life_time_errors(a: &PodLifeTimeArgs, errs: &mut Vec<String>) {
    if let Some(n) = &a.common.namespaces
        && !n.include.is_empty()
        && !n.exclude.is_empty()
    {
        errs.push("only one of Include/Exclude namespaces can be set".into());
    }
    if let Some(n) = &a.owner_kinds
        && !n.include.is_empty()
        && !n.exclude.is_empty()
    {
        errs.push("only one of Include/Exclude ownerKinds can be set".into());
    }
    if !selector_ok(a.common.label_selector.as_ref()) {
        errs.push("failed to get label selectors from strategy's params: invalid label selector".into());
    }
    if !a.states.is_empty() && a.states.iter().any(|s| !POD_LIFE_TIME_STATES.contains(&s.as_str())) {
        let mut allowed = POD_LIFE_TIME_STATES.to_vec();
        allowed.sort_unstable();
        errs.push(format!("states must be one of {}", go_list(&allowed)));
    }
    for (i, c) in a.conditions.iter().enumerate() {
        if c.type_.is_empty()
            && c.status.is_empty()
            && c.reason.is_empty()
            && c.min_time_since_last_transition_seconds.is_none()
        {
            errs.push(format!(
                "conditions[{i}]: at least one of type, status, reason, or minTimeSinceLastTransitionSeconds must be set"
            ));
        }
    }
    if a.max_pod_life_time_seconds.is_none()
        && a.states.is_empty()
        && a.conditions.is_empty()
        && a.exit_codes.is_empty()
    {
        errs.push("at least one filtering criterion must be specified (maxPodLifeTimeSeconds, states, conditions, or exitCodes)".into());
    }
}

/// The states PodLifeTime accepts.
pub const POD_LIFE_TIME_STATES: &[&str] = &[
    "Running",
    "Pending",
    "Succeeded",
    "Failed",
    "Unknown",
    "NodeAffinity",
    "NodeLost",
    "Shutdown",
    "UnexpectedAdmissionError",
    "PodInitializing",
    "ContainerCreating",
    "ImagePullBackOff",
    "CrashLoopBackOff",
    "CreateContainerConfigError",
    "ErrImagePull",
    "CreateContainerError",
    "InvalidImageName",
    "OOMKilled",
    "Error",
    "Completed",
    "DeadlineExceeded",
    "Evicted",
    "ContainerCannotRun",
    "StartError",
];

/// `validateDeschedulerConfiguration`: every pluginConfig names a registered plugin and its
/// args validate.
fn validate(profiles: &[RawProfile]) -> R<()> {
    let mut errs = Vec::new();
    for p in profiles {
        for (name, args, field) in &p.configs {
            match args {
                None => errs.push((
                    format!("{field}.name"),
                    format!("in profile {}: plugin {name} in pluginConfig not registered", p.name),
                )),
                Some(a) => {
                    if let Some(m) = agg_msg(&plugin_errors(a)) {
                        errs.push((format!("{field}.args"), format!("in profile {}: {m}", p.name)));
                    }
                }
            }
        }
    }
    aggregate(errs)
}

/// `setDefaults`: DefaultEvictor first at filter and preEvictionFilter when missing, its
/// config added when missing; RemoveFailedPods' minPodLifetimeSeconds 3600.
fn set_defaults(p: RawProfile) -> Profile {
    let mut plugins = p.plugins;
    if !plugins.filter.enabled.iter().any(|n| n == DEFAULT_EVICTOR) {
        plugins.filter.enabled.insert(0, DEFAULT_EVICTOR.into());
    }
    if !plugins.pre_eviction_filter.enabled.iter().any(|n| n == DEFAULT_EVICTOR) {
        plugins.pre_eviction_filter.enabled.insert(0, DEFAULT_EVICTOR.into());
    }
    let mut configs: Vec<PluginConfig> = p
        .configs
        .into_iter()
        .filter_map(|(name, args, field)| {
            let mut args = args?;
            if let PluginArgs::FailedPods(a) = &mut args
                && a.min_pod_lifetime_seconds.is_none()
            {
                a.min_pod_lifetime_seconds = Some(3600);
            }
            Some(PluginConfig { name, args, field })
        })
        .collect();
    if !configs.iter().any(|c| c.name == DEFAULT_EVICTOR) {
        configs.insert(
            0,
            PluginConfig {
                name: DEFAULT_EVICTOR.into(),
                args: PluginArgs::DefaultEvictor(EvictorArgs::default()),
                field: format!("{}.pluginConfig (DefaultEvictor, added by default)", p.field),
            },
        );
    }
    Profile {
        name: p.name,
        plugin_configs: configs,
        plugins,
    }
}

/// Why a profile cannot be built (`NewProfile`), with upstream's message prefixed by the
/// descheduler's `unable to create "NAME" profile: `.
pub fn check_profile(p: &Profile) -> Result<(), String> {
    let fail = |m: String| Err(format!("unable to create \"{}\" profile: {m}", p.name));
    let evictors = [DEFAULT_EVICTOR];
    let points: [(&str, &PluginSet, &[&str]); 4] = [
        ("deschedule", &p.plugins.deschedule, DESCHEDULE_PLUGINS),
        ("balance", &p.plugins.balance, BALANCE_PLUGINS),
        ("filter", &p.plugins.filter, &evictors),
        ("preEvictionFilter", &p.plugins.pre_eviction_filter, &evictors),
    ];
    for (point, set, valid) in points {
        let mut missing: Vec<&str> = set
            .enabled
            .iter()
            .map(String::as_str)
            .filter(|n| !valid.contains(n))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if !missing.is_empty() {
            return fail(format!(
                "profile \"{}\" configures {point} extension point of non-existing plugins: {}",
                p.name,
                go_set(&missing)
            ));
        }
    }
    for set in [
        &p.plugins.deschedule,
        &p.plugins.balance,
        &p.plugins.filter,
        &p.plugins.pre_eviction_filter,
    ] {
        for n in &set.enabled {
            if p.config(n).is_none() {
                return fail(format!(
                    "unable to build {n} plugin: unable to find \"{n}\" plugin config"
                ));
            }
        }
    }
    Ok(())
}

fn go_set(v: &[&str]) -> String {
    format!(
        "map[{}]",
        v.iter().map(|s| format!("{s}:{{}}")).collect::<Vec<_>>().join(" ")
    )
}

/// Reads a policy from its decoded document: decoding (unknown fields refused), validation
/// and defaults as v0.36. Also returns the fields kschedtui reads but does not reproduce
/// (metricsCollector, metricsProviders), as (field, value) pairs.
pub fn read(doc: &Value) -> Result<(Policy, Vec<(String, String)>), PolicyError> {
    decode(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn yaml(s: &str) -> Value {
        serde_yaml::from_str(s).unwrap()
    }

    const BASE: &str = r#"apiVersion: "descheduler/v1alpha2"
kind: "DeschedulerPolicy"
"#;

    // policyconfig_test.go "v1alpha2 to internal": DefaultEvictor args as given, the
    // RemoveFailedPods default, and the points as given.
    #[test]
    fn decodes_and_defaults_as_upstream() {
        let doc = yaml(&format!(
            "{BASE}profiles:
  - name: ProfileName
    pluginConfig:
    - name: \"DefaultEvictor\"
      args:
        evictSystemCriticalPods: true
        evictFailedBarePods: true
        evictLocalStoragePods: true
        evictDaemonSetPods: true
        nodeFit: true
    - name: \"RemoveFailedPods\"
    plugins:
      filter:
        enabled:
          - \"DefaultEvictor\"
      preEvictionFilter:
        enabled:
          - \"DefaultEvictor\"
      deschedule:
        enabled:
          - \"RemovePodsHavingTooManyRestarts\"
"
        ));
        let (p, _) = read(&doc).unwrap();
        let prof = &p.profiles[0];
        let ev = prof.evictor_args();
        assert!(ev.evict_system_critical_pods && ev.evict_failed_bare_pods && ev.node_fit);
        match &prof.config(REMOVE_FAILED_PODS).unwrap().args {
            PluginArgs::FailedPods(a) => assert_eq!(a.min_pod_lifetime_seconds, Some(3600)),
            other => panic!("{other:?}"),
        }
        assert_eq!(prof.plugins.filter.enabled, vec!["DefaultEvictor"]);
        assert_eq!(prof.plugins.deschedule.enabled, vec![TOO_MANY_RESTARTS]);
        // Enabled without a pluginConfig: NewProfile refuses it.
        assert_eq!(
            check_profile(prof).unwrap_err(),
            "unable to create \"ProfileName\" profile: unable to build RemovePodsHavingTooManyRestarts plugin: unable to find \"RemovePodsHavingTooManyRestarts\" plugin config"
        );
    }

    // "omit default evictor extension point with their enablement"
    #[test]
    fn default_evictor_is_added() {
        let doc = yaml(&format!(
            "{BASE}profiles:
  - name: P
    pluginConfig:
    - name: RemoveFailedPods
    plugins:
      deschedule:
        enabled: [RemoveFailedPods]
"
        ));
        let (p, _) = read(&doc).unwrap();
        let prof = &p.profiles[0];
        assert_eq!(prof.plugins.filter.enabled, vec!["DefaultEvictor"]);
        assert_eq!(prof.plugins.pre_eviction_filter.enabled, vec!["DefaultEvictor"]);
        assert_eq!(prof.plugin_configs[0].name, "DefaultEvictor");
        assert!(check_profile(prof).is_ok());
    }

    // policyconfig_test.go TestValidateDeschedulerConfiguration, the aggregate of two profiles.
    #[test]
    fn aggregates_validation_errors_as_upstream() {
        let doc = yaml(&format!(
            "{BASE}profiles:
  - name: RemoveFailedPods
    pluginConfig:
    - name: RemoveFailedPods
      args: {{namespaces: {{include: [a], exclude: [b]}}}}
  - name: RemovePodsViolatingTopologySpreadConstraint
    pluginConfig:
    - name: RemovePodsHavingTooManyRestarts
      args: {{podRestartThreshold: 1, namespaces: {{include: [a], exclude: [b]}}}}
"
        ));
        match read(&doc).unwrap_err() {
            PolicyError::Invalid { message, fields } => {
                assert_eq!(
                    message,
                    "[in profile RemoveFailedPods: only one of Include/Exclude namespaces can be set, in profile RemovePodsViolatingTopologySpreadConstraint: only one of Include/Exclude namespaces can be set]"
                );
                assert_eq!(
                    fields,
                    vec!["profiles[0].pluginConfig[0].args", "profiles[1].pluginConfig[0].args"]
                );
            }
            e => panic!("{e}"),
        }
    }

    #[test]
    fn deprecated_fields_with_pod_protections_are_refused() {
        let doc = yaml(&format!(
            "{BASE}profiles:
  - name: ProfileName
    pluginConfig:
    - name: DefaultEvictor
      args:
        evictLocalStoragePods: true
        podProtections: {{defaultDisabled: [PodsWithLocalStorage]}}
"
        ));
        assert_eq!(
            read(&doc).unwrap_err().to_string(),
            "in profile ProfileName: cannot use Deprecated fields alongside PodProtections.ExtraEnabled or PodProtections.DefaultDisabled (at profiles[0].pluginConfig[0].args)"
        );
    }

    #[test]
    fn unknown_fields_and_plugins_name_the_field() {
        let doc = yaml(&format!(
            "{BASE}profiles: [{{name: p, pluginConfig: [{{name: RemoveDuplicates, args: {{namespace: x}}}}]}}]"
        ));
        let e = read(&doc).unwrap_err().to_string();
        assert_eq!(
            e,
            "field 'profiles[0].pluginConfig[0].args.namespace': unknown field \"namespace\" (known: apiVersion, kind, namespaces, excludeOwnerKinds)"
        );
        let doc = yaml(&format!(
            "{BASE}profiles: [{{name: p, pluginConfig: [{{name: Nope}}]}}]"
        ));
        assert_eq!(
            read(&doc).unwrap_err().to_string(),
            "in profile p: plugin Nope in pluginConfig not registered (at profiles[0].pluginConfig[0].name)"
        );
        let doc = yaml(&format!(
            "{BASE}profiles: [{{name: p, pluginConfig: [{{name: RemoveDuplicates}}], plugins: {{deschedule: {{enabled: [RemoveDuplicates]}}}}}}]"
        ));
        let (p, _) = read(&doc).unwrap();
        assert_eq!(
            check_profile(&p.profiles[0]).unwrap_err(),
            "unable to create \"p\" profile: profile \"p\" configures deschedule extension point of non-existing plugins: map[RemoveDuplicates:{}]"
        );
        let doc = json!({"apiVersion": "descheduler/v1alpha1", "kind": "DeschedulerPolicy"});
        assert!(
            read(&doc)
                .unwrap_err()
                .to_string()
                .starts_with("field 'apiVersion': no kind")
        );
    }

    #[test]
    fn plugin_validation_messages() {
        let lnu = |t: Value, tt: Value| {
            plugin_errors(
                &plugin_args(
                    LOW_NODE_UTILIZATION,
                    &json!({"thresholds": t, "targetThresholds": tt}),
                    "a",
                )
                .unwrap(),
            )
        };
        // nodeutilization validation_test.go
        assert_eq!(
            lnu(json!({}), json!({"cpu": 80})),
            vec!["thresholds config is not valid: no resource threshold is configured"]
        );
        assert_eq!(
            lnu(json!({"cpu": 120}), json!({"cpu": 130})),
            vec!["thresholds config is not valid: cpu threshold not in [0, 100] range"]
        );
        assert_eq!(
            lnu(json!({"cpu": 20, "memory": 30}), json!({"cpu": 80})),
            vec!["thresholds and targetThresholds configured different resources"]
        );
        assert_eq!(
            lnu(json!({"cpu": 90}), json!({"cpu": 80})),
            vec!["thresholds' cpu percentage is greater than targetThresholds'"]
        );
        assert!(lnu(json!({"cpu": 20, "memory": 20}), json!({"cpu": 80, "memory": 80})).is_empty());
        let tmr = plugin_errors(
            &plugin_args(
                TOO_MANY_RESTARTS,
                &json!({"podRestartThreshold": 0, "states": ["Nope"]}),
                "a",
            )
            .unwrap(),
        );
        assert_eq!(
            tmr,
            vec![
                "invalid PodsHavingTooManyRestarts threshold",
                "states must be one of [CrashLoopBackOff Running]"
            ]
        );
        let plt = plugin_errors(&plugin_args(POD_LIFE_TIME, &json!({}), "a").unwrap());
        assert_eq!(
            plt,
            vec![
                "at least one filtering criterion must be specified (maxPodLifeTimeSeconds, states, conditions, or exitCodes)"
            ]
        );
        let na = plugin_errors(&plugin_args(NODE_AFFINITY, &json!({}), "a").unwrap());
        assert_eq!(na, vec!["nodeAffinityType needs to be set"]);
        let nt = plugin_errors(
            &plugin_args(
                NODE_TAINTS,
                &json!({"excludedTaints": ["a"], "includedTaints": ["b"]}),
                "a",
            )
            .unwrap(),
        );
        assert_eq!(
            nt,
            vec!["either includedTaints or excludedTaints can be set, but not both"]
        );
        let hnu = plugin_errors(
            &plugin_args(
                HIGH_NODE_UTILIZATION,
                &json!({"thresholds": {"cpu": 20}, "evictionModes": ["X"]}),
                "a",
            )
            .unwrap(),
        );
        assert_eq!(hnu, vec!["invalid eviction mode X"]);
    }

    fn errors_of(name: &str, args: Value) -> Vec<String> {
        plugin_errors(&plugin_args(name, &args, "a").unwrap())
    }

    // removepodsviolatingtopologyspreadconstraint validation_test.go (v0.36).
    #[test]
    fn topology_spread_validation() {
        let v = |a: Value| errors_of(TOPOLOGY_SPREAD, a);
        // "valid namespace args, no errors"
        assert!(v(json!({"namespaces": {"include": ["default"]}})).is_empty());
        // "invalid namespaces args, expects error"
        assert_eq!(
            v(json!({"namespaces": {"include": ["default"], "exclude": ["kube-system"]}})),
            vec!["only one of Include/Exclude namespaces can be set"]
        );
        // "valid label selector args, no errors"
        assert!(v(json!({"labelSelector": {"matchLabels": {"role.kubernetes.io/node": ""}}})).is_empty());
        // "invalid label selector args, expects errors" (upstream's message then lists the
        // apimachinery field errors; kschedtui says the selector is invalid)
        assert_eq!(
            v(json!({"labelSelector": {"matchExpressions": [{"key": "", "operator": "In"}]}})),
            vec!["failed to get label selectors from strategy's params: invalid label selector"]
        );
        // "valid constraints args, no errors"
        assert!(v(json!({"constraints": ["DoNotSchedule", "ScheduleAnyway"]})).is_empty());
        // "invalid constraints args, expects errors"
        assert_eq!(
            v(json!({"constraints": ["foo"]})),
            vec!["constraint foo is not one of map[DoNotSchedule:{} ScheduleAnyway:{}]"]
        );
    }

    // removepodsviolatingtopologyspreadconstraint defaults_test.go (v0.36).
    #[test]
    fn topology_spread_defaults() {
        let d = |a: Value| match plugin_args(TOPOLOGY_SPREAD, &a, "a").unwrap() {
            PluginArgs::TopologySpread(t) => t,
            other => panic!("{other:?}"),
        };
        // "... empty", "... without TopologyBalanceNodeFit", "... with nil constraints"
        for a in [json!({}), json!(null), json!({"constraints": null})] {
            assert_eq!(d(a), TopologySpreadArgs::default());
        }
        assert_eq!(
            TopologySpreadArgs::default(),
            TopologySpreadArgs {
                common: Common::default(),
                constraints: vec!["DoNotSchedule".into()],
                topology_balance_node_fit: true,
            }
        );
        // "... with value"
        let got = d(json!({"namespaces": {}, "labelSelector": {}, "constraints": ["DoNotSchedule", "ScheduleAnyway"]}));
        assert_eq!(got.constraints, vec!["DoNotSchedule", "ScheduleAnyway"]);
        assert!(got.topology_balance_node_fit);
        assert_eq!(got.common.namespaces, Some(Namespaces::default()));
        assert_eq!(got.common.label_selector, Some(LabelSelector::default()));
        // "... with TopologyBalanceNodeFit=false"
        let got = d(json!({"topologyBalanceNodeFit": false}));
        assert!(!got.topology_balance_node_fit);
        assert_eq!(got.constraints, vec!["DoNotSchedule"]);
        // Not upstream: an unknown field names itself.
        assert_eq!(
            plugin_args(TOPOLOGY_SPREAD, &json!({"maxSkew": 1}), "a")
                .unwrap_err()
                .to_string(),
            "field 'a.maxSkew': unknown field \"maxSkew\" (known: apiVersion, kind, namespaces, labelSelector, constraints, topologyBalanceNodeFit)"
        );
    }

    // pod_lifetime_test.go TestValidation (v0.36).
    #[test]
    fn pod_lifetime_validation() {
        let ok = |a: Value| assert!(errors_of(POD_LIFE_TIME, a.clone()).is_empty(), "{a}");
        ok(json!({"states": ["Running"]}));
        ok(json!({"conditions": [{"reason": "PodCompleted"}]}));
        ok(json!({"maxPodLifeTimeSeconds": 600}));
        ok(json!({"states": ["Running"], "maxPodLifeTimeSeconds": 600}));
        ok(json!({"states": ["Succeeded"], "conditions": [{"reason": "PodCompleted"}]}));
        ok(json!({"exitCodes": [1]}));
        ok(json!({"conditions": [{"reason": "PodCompleted", "minTimeSinceLastTransitionSeconds": 300}]}));
        ok(json!({"conditions": [{"minTimeSinceLastTransitionSeconds": 300}]}));
        let err = |a: Value| errors_of(POD_LIFE_TIME, a);
        // "invalid: no filter criteria"
        assert_eq!(
            err(json!({})),
            vec![
                "at least one filtering criterion must be specified (maxPodLifeTimeSeconds, states, conditions, or exitCodes)"
            ]
        );
        // "invalid: both include and exclude namespaces"
        assert_eq!(
            err(json!({"states": ["Running"], "namespaces": {"include": ["a"], "exclude": ["b"]}})),
            vec!["only one of Include/Exclude namespaces can be set"]
        );
        // "invalid: both include and exclude ownerKinds"
        assert_eq!(
            err(json!({"states": ["Running"], "ownerKinds": {"include": ["Job"], "exclude": ["ReplicaSet"]}})),
            vec!["only one of Include/Exclude ownerKinds can be set"]
        );
        // "invalid: bad state name"
        assert_eq!(
            err(json!({"states": ["NotAState"]})),
            vec![
                "states must be one of [Completed ContainerCannotRun ContainerCreating CrashLoopBackOff CreateContainerConfigError CreateContainerError DeadlineExceeded ErrImagePull Error Evicted Failed ImagePullBackOff InvalidImageName NodeAffinity NodeLost OOMKilled Pending PodInitializing Running Shutdown StartError Succeeded UnexpectedAdmissionError Unknown]"
            ]
        );
        // "invalid: empty condition filter"
        assert_eq!(
            err(json!({"conditions": [{}]})),
            vec![
                "conditions[0]: at least one of type, status, reason, or minTimeSinceLastTransitionSeconds must be set"
            ]
        );
    }

    #[test]
    fn go_durations() {
        assert_eq!(parse_go_duration("1h30m"), Some(5400.0));
        assert_eq!(parse_go_duration("90s"), Some(90.0));
        assert_eq!(parse_go_duration("500ms"), Some(0.5));
        assert_eq!(parse_go_duration("5"), None);
    }
}
