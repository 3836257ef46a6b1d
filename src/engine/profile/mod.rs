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
    /// percentageOfNodesToScore (the profile's; see [`crate::engine::framework::sampling`]).
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

mod config;

pub use config::*;

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
        percentage: crate::engine::framework::sampling::Percentage::default(),
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
        let mut fw = assemble(profile, features, &order, &instances, &weights, &placement_weights);
        fw.percentage.profile = cfg.percentage_of_nodes_to_score;
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
    let global = config.and_then(|c| c.percentage_of_nodes_to_score).unwrap_or(0);
    for fw in &mut profiles {
        fw.config_notes.clone_from(&notes);
        fw.percentage.global = global;
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
