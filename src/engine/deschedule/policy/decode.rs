//! Decoding a DeschedulerPolicy document: strict, case-insensitive field names, each plugin's
//! args read with upstream's types and messages.

use super::*;

pub(super) type R<T> = Result<T, PolicyError>;

pub(super) fn derr(field: &str, message: impl Into<String>) -> PolicyError {
    PolicyError::Decode {
        field: field.to_string(),
        message: message.into(),
    }
}

pub(super) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// An object's fields, matched case-insensitively against the known names; an unknown key is
/// an error naming it.
pub(super) struct Obj<'a> {
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

pub(super) fn as_string(v: &Value, p: &str) -> R<String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| derr(p, format!("expected a string, got {}", show(v))))
}

pub(super) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

pub(super) fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

pub(super) const TYPE_META: [&str; 2] = ["apiVersion", "kind"];

pub(super) fn with_type_meta(known: &[&'static str]) -> Vec<&'static str> {
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

pub(super) fn evictor_args(v: &Value, p: &str) -> R<EvictorArgs> {
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

pub(super) fn common(o: &Obj<'_>) -> R<Common> {
    Ok(Common {
        namespaces: o.namespaces("namespaces")?,
        label_selector: o.label_selector("labelSelector")?,
    })
}

pub(super) fn plugin_args(name: &str, v: &Value, p: &str) -> R<PluginArgs> {
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
pub(super) fn low_node_utilization_args(v: &Value, p: &str) -> R<PluginArgs> {
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
pub(super) fn high_node_utilization_args(v: &Value, p: &str) -> R<PluginArgs> {
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
pub(super) fn remove_duplicates_args(v: &Value, p: &str) -> R<PluginArgs> {
    let o = Obj::new(v, p, &with_type_meta(&["namespaces", "excludeOwnerKinds"]))?;
    Ok(PluginArgs::RemoveDuplicates(RemoveDuplicatesArgs {
        namespaces: o.namespaces("namespaces")?,
        exclude_owner_kinds: o.strings("excludeOwnerKinds")?.unwrap_or_default(),
    }))
}

/// RemovePodsViolatingInterPodAntiAffinity's args.
pub(super) fn inter_pod_anti_affinity_args(v: &Value, p: &str) -> R<PluginArgs> {
    let o = Obj::new(v, p, &with_type_meta(&["namespaces", "labelSelector"]))?;
    Ok(PluginArgs::InterPodAntiAffinity(common(&o)?))
}

/// RemovePodsViolatingNodeAffinity's args.
pub(super) fn node_affinity_args(v: &Value, p: &str) -> R<PluginArgs> {
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
pub(super) fn node_taints_args(v: &Value, p: &str) -> R<PluginArgs> {
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
pub(super) fn remove_failed_pods_args(v: &Value, p: &str) -> R<PluginArgs> {
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
pub(super) fn too_many_restarts_args(v: &Value, p: &str) -> R<PluginArgs> {
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
pub(super) fn pod_life_time_args(v: &Value, p: &str) -> R<PluginArgs> {
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
pub(super) fn topology_spread_args(v: &Value, p: &str) -> R<PluginArgs> {
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

pub(super) fn plugin_set(o: &Obj<'_>, name: &str) -> R<PluginSet> {
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
pub(super) fn decode(doc: &Value) -> R<(Policy, Vec<(String, String)>)> {
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

pub(super) struct RawProfile {
    pub(super) name: String,
    pub(super) configs: Vec<(String, Option<PluginArgs>, String)>,
    pub(super) plugins: Plugins,
    pub(super) field: String,
}

pub(super) fn aggregate(errs: Vec<(String, String)>) -> R<()> {
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
pub(super) fn agg_msg(errs: &[String]) -> Option<String> {
    match errs.len() {
        0 => None,
        1 => Some(errs[0].clone()),
        _ => Some(format!("[{}]", errs.join(", "))),
    }
}
