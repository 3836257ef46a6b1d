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

mod decode;
mod validate;

pub use decode::parse_go_duration;
use decode::*;
pub use validate::POD_LIFE_TIME_STATES;
use validate::*;

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
