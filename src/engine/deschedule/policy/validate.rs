//! Each plugin's `validation.go` with upstream's messages, and the defaults (`defaults.go`).

use super::*;

pub(super) fn selector_ok(ls: Option<&LabelSelector>) -> bool {
    ls.is_none_or(|l| Selector::from_label_selector(Some(l)) != Selector::Nothing)
}

pub(super) fn common_errors(c: &Common, errs: &mut Vec<String>) {
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

pub(super) const DEFAULT_PROTECTIONS: [&str; 4] = [
    "PodsWithLocalStorage",
    "SystemCriticalPods",
    "FailedBarePods",
    "DaemonSetPods",
];
pub(super) const EXTRA_PROTECTIONS: [&str; 3] = ["PodsWithPVC", "PodsWithoutPDB", "PodsWithResourceClaims"];

pub(super) fn has_duplicates(v: &[String]) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    v.iter().any(|x| !seen.insert(x))
}

pub(super) fn go_list(v: &[&str]) -> String {
    format!("[{}]", v.join(" "))
}

pub(super) fn validate_thresholds(t: &Thresholds) -> Option<String> {
    if t.is_empty() {
        return Some("no resource threshold is configured".into());
    }
    t.iter()
        .find(|(_, v)| **v < 0.0 || **v > 100.0)
        .map(|(name, _)| format!("{name} threshold not in [0, 100] range"))
}

/// One plugin's validation errors, as its `Validate*Args` reports them.
pub(super) fn plugin_errors(args: &PluginArgs) -> Vec<String> {
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
pub(super) fn evictor_errors(a: &EvictorArgs, errs: &mut Vec<String>) {
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
pub(super) fn low_node_utilization_errors(a: &LowNodeUtilizationArgs) -> Vec<String> {
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
pub(super) fn high_node_utilization_errors(a: &HighNodeUtilizationArgs) -> Vec<String> {
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
pub(super) fn pod_life_time_errors(a: &PodLifeTimeArgs, errs: &mut Vec<String>) {
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
pub(super) fn validate(profiles: &[RawProfile]) -> R<()> {
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
pub(super) fn set_defaults(p: RawProfile) -> Profile {
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
