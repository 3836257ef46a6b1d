//! What the API server does to a pod a controller creates, before the scheduler sees it: the
//! defaulting and the admission plugins that change what the scheduler reads or refuse the pod,
//! in the order kube-apiserver runs them (`AllOrderedPlugins`), for `kschedtui fit`:
//!
//! 1. defaulting (pkg/apis/core/v1/defaults.go `SetDefaults_Pod`): a container's requests
//!    default to its limits;
//! 2. LimitRanger (plugin/pkg/admission/limitranger, `mergePodResourceRequirements`): the
//!    namespace's LimitRanges' `default` limits and `defaultRequest` requests of type Container
//!    fill what each container and init container leaves unset, with upstream's annotation
//!    `kubernetes.io/limit-ranger`; the LimitRanges are defaulted first as the API server
//!    stores them (`SetDefaults_LimitRangeItem`: `default` from `max`, `defaultRequest` from
//!    `default`, then from `min`). Its validation (min, max, maxLimitRequestRatio) is not
//!    reproduced: a pod it would refuse is admitted here (the output says so);
//! 3. Priority (plugin/pkg/admission/priority): spec.priority and spec.preemptionPolicy from
//!    the PriorityClass (PreemptLowerPriority when the class names none, as the API server
//!    stores it), or from the global default class (the lowest-valued one when several have
//!    globalDefault, as upstream picks), 0 and PreemptLowerPriority without one; upstream's
//!    refusals for a class that does not exist and for a spec.priority or preemptionPolicy that
//!    differs;
//! 4. DefaultTolerationSeconds: the `not-ready` and `unreachable` NoExecute tolerations for
//!    300 s unless the pod tolerates those taints already;
//! 5. RuntimeClass (plugin/pkg/admission/runtimeclass): spec.overhead from the class's
//!    `overhead.podFixed`, its `scheduling.nodeSelector` merged into the pod's and its
//!    tolerations added, with upstream's refusals;
//! 6. ResourceQuota (plugin/pkg/admission/resourcequota, the pod evaluator of
//!    pkg/quota/v1/evaluator/core): each quota of the namespace whose scopes match the pod and
//!    that tracks a resource the pod uses, the `must specify` constraint for cpu and memory,
//!    and the usage check, refused with the API server's exact text (`pods "NAME" is
//!    forbidden: exceeded quota: NAME, requested: …, used: …, limited: …`). Each admitted pod
//!    adds its usage, as the quota's status does. A quota without a status (a manifest, a
//!    hand-written snapshot) is taken as the quota controller would first compute it: `hard`
//!    from its spec and `used` from the namespace's pods (said in the notes).
//!    PersistentVolumeClaims (`persistentvolumeclaims`, `requests.storage` and their
//!    per-StorageClass forms) are charged the same way when a StatefulSet creates them.
//!
//! Quantities in messages are printed as apimachinery's `Quantity.String()` prints them
//! (canonical form, the format of the first quantity of a sum).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use super::Cluster;
use super::quantity::Quantity;

/// The annotation LimitRanger writes.
pub const LIMIT_RANGER_ANNOTATION: &str = "kubernetes.io/limit-ranger";

/// The priority classes every cluster has (created by the API server at start), by name.
pub const SYSTEM_PRIORITY_CLASSES: [(&str, i32); 2] = [
    ("system-node-critical", 2_000_001_000),
    ("system-cluster-critical", 2_000_000_000),
];

/// The preemption policy of a class that names none, and of pods without a class when the
/// cluster has no global default.
const PREEMPT_LOWER_PRIORITY: &str = "PreemptLowerPriority";

/// A refusal by an admission plugin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The plugin (`ResourceQuota`, `Priority`, `RuntimeClass`).
    pub plugin: &'static str,
    /// The API server's message, as a controller's FailedCreate event quotes it.
    pub message: String,
    /// The quota that refused it, when a quota did.
    pub quota: Option<String>,
}

/// A quantity with apimachinery's format, for messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct GoQuantity {
    /// The amount.
    pub(crate) q: Quantity,
    /// BinarySI (parsed with Ki, Mi, …); DecimalSI otherwise.
    pub(crate) binary: bool,
}

impl GoQuantity {
    /// Parses a quantity with its format.
    pub(crate) fn parse(s: &str) -> Option<Self> {
        let q = Quantity::parse(s).ok()?;
        let binary = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].iter().any(|x| s.ends_with(x));
        Some(GoQuantity { q, binary })
    }

    /// `Quantity.Add`: the format of the first operand unless it is zero.
    fn add(self, o: GoQuantity) -> GoQuantity {
        GoQuantity {
            binary: if self.q.is_zero() { o.binary } else { self.binary },
            q: self.q + o.q,
        }
    }

    /// A count (DecimalSI).
    fn count(n: i64) -> Self {
        GoQuantity {
            q: Quantity::from_units(n),
            binary: false,
        }
    }
}

impl std::fmt::Display for GoQuantity {
    /// `Quantity.String()` (`CanonicalizeBytes`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let nanos = self.q.nanos();
        if nanos == 0 {
            return f.write_str("0");
        }
        let whole = nanos % 1_000_000_000 == 0;
        let binary = self.binary && whole && !(-1024 * 1_000_000_000 < nanos && nanos < 1024 * 1_000_000_000);
        if binary {
            let mut v = nanos / 1_000_000_000;
            let mut e = 0;
            while e < 6 && v % 1024 == 0 {
                v /= 1024;
                e += 1;
            }
            return write!(f, "{v}{}", ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][e]);
        }
        // decimal: remove factors of ten, then make the exponent a multiple of three
        let mut v = nanos;
        let mut exp: i32 = -9;
        while v % 10 == 0 {
            v /= 10;
            exp += 1;
        }
        match exp.rem_euclid(3) {
            1 => {
                v *= 10;
                exp -= 1;
            }
            2 => {
                v *= 100;
                exp -= 2;
            }
            _ => {}
        }
        let suffix = match exp {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            0 => "",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            18 => "E",
            _ => return write!(f, "{v}e{exp}"),
        };
        write!(f, "{v}{suffix}")
    }
}

type Usage = BTreeMap<String, GoQuantity>;

/// One quota as admission tracks it.
#[derive(Clone, Debug)]
struct QuotaState {
    namespace: String,
    name: String,
    hard: Usage,
    used: Usage,
    scopes: Vec<core::ScopedResourceSelectorRequirement>,
}

/// Admission for the pods of one `fit`: the cluster's classes, ranges and quotas (with those
/// the manifests bring), the quotas' usage growing with every pod admitted.
#[derive(Clone, Debug, Default)]
pub struct Admission {
    priority_classes: BTreeMap<String, PriorityClass>,
    runtime_classes: BTreeMap<String, RuntimeClass>,
    limit_ranges: BTreeMap<String, Vec<core::LimitRange>>,
    quotas: Vec<QuotaState>,
    /// What was approximated (quotas without a status).
    notes: Vec<String>,
}

/// What admission changed on a pod, for the report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Admitted {
    /// The pod's priority.
    pub priority: i32,
    /// The LimitRanger annotation, when it set anything.
    pub limit_ranger: Option<String>,
    /// spec.overhead set from a RuntimeClass.
    pub overhead: bool,
}

fn quantity_map(m: Option<&BTreeMap<String, K8sQuantity>>) -> Usage {
    m.into_iter()
        .flatten()
        .filter_map(|(k, v)| GoQuantity::parse(&v.0).map(|q| (k.clone(), q)))
        .collect()
}

impl Admission {
    /// Admission on `cluster`'s objects.
    pub fn new(cluster: &Cluster) -> Self {
        let mut a = Admission {
            priority_classes: cluster.priority_classes.clone(),
            runtime_classes: cluster.runtime_classes.clone(),
            ..Default::default()
        };
        for lr in &cluster.limit_ranges {
            a.add_limit_range(lr.clone());
        }
        for q in &cluster.resource_quotas {
            a.add_quota(q, cluster);
        }
        a
    }

    /// Notes on what was approximated (quotas without a status).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// A PriorityClass the manifests bring.
    pub fn add_priority_class(&mut self, pc: PriorityClass) {
        let name = pc.metadata.name.clone().unwrap_or_default();
        self.priority_classes.insert(name, pc);
    }

    /// A RuntimeClass the manifests bring.
    pub fn add_runtime_class(&mut self, rc: RuntimeClass) {
        let name = rc.metadata.name.clone().unwrap_or_default();
        self.runtime_classes.insert(name, rc);
    }

    /// A LimitRange (the cluster's, or one the manifests bring), defaulted as stored.
    pub fn add_limit_range(&mut self, mut lr: core::LimitRange) {
        for item in lr.spec.iter_mut().flat_map(|s| s.limits.iter_mut()) {
            default_limit_range_item(item);
        }
        let ns = lr.metadata.namespace.clone().unwrap_or_default();
        let list = self.limit_ranges.entry(ns).or_default();
        list.push(lr);
        list.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    }

    /// A ResourceQuota (the cluster's, or one the manifests bring). Without a status its
    /// usage is computed from the namespace's pods and claims as the quota controller would.
    pub fn add_quota(&mut self, q: &core::ResourceQuota, cluster: &Cluster) {
        let namespace = q.metadata.namespace.clone().unwrap_or_default();
        let name = q.metadata.name.clone().unwrap_or_default();
        let status_hard = quantity_map(q.status.as_ref().and_then(|s| s.hard.as_ref()));
        let spec_hard = quantity_map(q.spec.as_ref().and_then(|s| s.hard.as_ref()));
        let mut scopes: Vec<core::ScopedResourceSelectorRequirement> = q
            .spec
            .iter()
            .flat_map(|s| s.scopes.iter().flatten())
            .map(|s| core::ScopedResourceSelectorRequirement {
                scope_name: s.clone(),
                operator: "Exists".into(),
                values: None,
            })
            .collect();
        scopes.extend(
            q.spec
                .iter()
                .filter_map(|s| s.scope_selector.as_ref())
                .flat_map(|s| s.match_expressions.iter().flatten().cloned()),
        );
        let (hard, used) = if status_hard.is_empty() {
            let mut used = Usage::new();
            for p in cluster.pods.iter().filter(|p| p.key.namespace == *namespace) {
                let pod = &*p.obj;
                if !scopes.iter().all(|s| pod_matches_scope(s, pod)) {
                    continue;
                }
                for (k, v) in pod_usage(pod, p.is_finished()) {
                    if spec_hard.contains_key(&k) {
                        let e = used.entry(k).or_default();
                        *e = e.add(v);
                    }
                }
            }
            for c in cluster
                .pvcs
                .values()
                .filter(|c| c.metadata.namespace.as_deref() == Some(&namespace))
            {
                for (k, v) in claim_usage(c) {
                    if spec_hard.contains_key(&k) {
                        let e = used.entry(k).or_default();
                        *e = e.add(v);
                    }
                }
            }
            for k in spec_hard.keys() {
                used.entry(k.clone()).or_insert_with(|| GoQuantity::count(0));
            }
            self.notes.push(format!(
                "ResourceQuota {namespace}/{name} has no status: its hard limits are taken from its spec and its usage from the namespace's pods and claims, as the quota controller would compute them"
            ));
            (spec_hard, used)
        } else {
            (
                status_hard,
                quantity_map(q.status.as_ref().and_then(|s| s.used.as_ref())),
            )
        };
        self.quotas.retain(|x| !(x.namespace == namespace && x.name == name));
        self.quotas.push(QuotaState {
            namespace,
            name,
            hard,
            used,
            scopes,
        });
        self.quotas
            .sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    }

    /// Admits a pod the way the API server does before storing it: defaulting, LimitRanger,
    /// Priority, DefaultTolerationSeconds, RuntimeClass, then ResourceQuota (whose usage
    /// grows by the pod when it is admitted). The pod is changed in place.
    pub fn admit_pod(&mut self, pod: &mut core::Pod) -> Result<Admitted, Refusal> {
        let name = pod.metadata.name.clone().unwrap_or_default();
        let namespace = pod.metadata.namespace.clone().unwrap_or_default();
        let forbidden = |plugin: &'static str, why: String| Refusal {
            plugin,
            message: format!("pods \"{name}\" is forbidden: {why}"),
            quota: None,
        };
        let mut out = Admitted::default();
        let spec = pod.spec.get_or_insert_with(Default::default);
        for c in spec
            .containers
            .iter_mut()
            .chain(spec.init_containers.iter_mut().flatten())
        {
            default_requests_from_limits(c);
        }
        // LimitRanger
        let mut annotations = Vec::new();
        for lr in self.limit_ranges.get(&namespace).into_iter().flatten() {
            let (requests, limits) = default_container_requirements(lr);
            for c in &mut spec.containers {
                merge_container_resources(c, &requests, &limits, "container", &mut annotations);
            }
            for c in spec.init_containers.iter_mut().flatten() {
                merge_container_resources(c, &requests, &limits, "init container", &mut annotations);
            }
        }
        if !annotations.is_empty() {
            let val = format!("LimitRanger plugin set: {}", annotations.join("; "));
            pod.metadata
                .annotations
                .get_or_insert_with(Default::default)
                .insert(LIMIT_RANGER_ANNOTATION.into(), val.clone());
            out.limit_ranger = Some(val);
        }
        let spec = pod.spec.get_or_insert_with(Default::default);
        // Priority. A class's preemptionPolicy is PreemptLowerPriority unless it says otherwise
        // (the API server defaults it when it stores the class; a manifest may leave it out).
        let policy_of = |pc: &PriorityClass| {
            Some(
                pc.preemption_policy
                    .clone()
                    .unwrap_or_else(|| PREEMPT_LOWER_PRIORITY.to_string()),
            )
        };
        let (class, priority, policy) = match spec.priority_class_name.as_deref().filter(|c| !c.is_empty()) {
            None => {
                // several global defaults (a race when they were made): the lowest value wins
                let default = self
                    .priority_classes
                    .values()
                    .filter(|pc| pc.global_default == Some(true))
                    .fold(None::<&PriorityClass>, |best, pc| match best {
                        Some(b) if b.value.unwrap_or(0) <= pc.value.unwrap_or(0) => Some(b),
                        _ => Some(pc),
                    });
                match default {
                    Some(pc) => (pc.metadata.name.clone(), pc.value.unwrap_or(0), policy_of(pc)),
                    None => (None, 0, Some(PREEMPT_LOWER_PRIORITY.to_string())),
                }
            }
            Some(c) => match self.priority_classes.get(c) {
                Some(pc) => (Some(c.to_string()), pc.value.unwrap_or(0), policy_of(pc)),
                None => match SYSTEM_PRIORITY_CLASSES.iter().find(|(n, _)| *n == c) {
                    Some((_, v)) => (Some(c.to_string()), *v, Some(PREEMPT_LOWER_PRIORITY.to_string())),
                    None => {
                        return Err(forbidden(
                            "Priority",
                            format!("no PriorityClass with name {c} was found"),
                        ));
                    }
                },
            },
        };
        if let Some(p) = spec.priority
            && p != priority
        {
            return Err(forbidden(
                "Priority",
                format!(
                    "the integer value of priority ({p}) must not be provided in pod spec; priority admission controller computed {priority} from the given PriorityClass name"
                ),
            ));
        }
        if let (Some(given), Some(computed)) = (&spec.preemption_policy, &policy)
            && given != computed
        {
            return Err(forbidden(
                "Priority",
                format!(
                    "the string value of PreemptionPolicy ({given}) must not be provided in pod spec; priority admission controller computed {computed} from the given PriorityClass name"
                ),
            ));
        }
        if class.is_some() {
            spec.priority_class_name = class;
        }
        spec.priority = Some(priority);
        if policy.is_some() {
            spec.preemption_policy = policy;
        }
        out.priority = priority;
        // DefaultTolerationSeconds
        default_toleration_seconds(spec);
        // RuntimeClass
        if let Some(rc_name) = spec.runtime_class_name.clone() {
            let Some(rc) = self.runtime_classes.get(&rc_name) else {
                return Err(forbidden(
                    "RuntimeClass",
                    format!("pod rejected: RuntimeClass \"{rc_name}\" not found"),
                ));
            };
            if let Some(fixed) = rc.overhead.as_ref().and_then(|o| o.pod_fixed.clone()) {
                if spec
                    .overhead
                    .as_ref()
                    .is_some_and(|o| !o.is_empty() && !same_resources(o, &fixed))
                {
                    return Err(forbidden(
                        "RuntimeClass",
                        "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead".into(),
                    ));
                }
                spec.overhead = Some(fixed);
                out.overhead = true;
            }
            if let Some(s) = &rc.scheduling {
                let mut selector = spec.node_selector.clone().unwrap_or_default();
                for (k, v) in s.node_selector.iter().flatten() {
                    if let Some(pv) = selector.get(k)
                        && pv != v
                    {
                        return Err(forbidden(
                            "RuntimeClass",
                            format!(
                                "conflict: runtimeClass.scheduling.nodeSelector[{k}] = {v}; pod.spec.nodeSelector[{k}] = {pv}"
                            ),
                        ));
                    }
                    selector.insert(k.clone(), v.clone());
                }
                if !selector.is_empty() {
                    spec.node_selector = Some(selector);
                }
                let mut tolerations = spec.tolerations.clone().unwrap_or_default();
                for t in s.tolerations.iter().flatten() {
                    if !tolerations.contains(t) {
                        tolerations.push(t.clone());
                    }
                }
                if !tolerations.is_empty() {
                    spec.tolerations = Some(tolerations);
                }
            }
        } else if spec.overhead.as_ref().is_some_and(|o| !o.is_empty()) {
            return Err(forbidden(
                "RuntimeClass",
                "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead".into(),
            ));
        }
        // ResourceQuota
        let usage = pod_usage(pod, false);
        self.charge(
            &namespace,
            &|s| pod_matches_scope(s, pod),
            &usage,
            Some(pod),
            "pods",
            &name,
        )?;
        Ok(out)
    }

    /// Admits a PersistentVolumeClaim a StatefulSet creates (ResourceQuota only).
    pub fn admit_claim(&mut self, claim: &core::PersistentVolumeClaim) -> Result<(), Refusal> {
        let name = claim.metadata.name.clone().unwrap_or_default();
        let namespace = claim.metadata.namespace.clone().unwrap_or_default();
        let usage = claim_usage(claim);
        self.charge(&namespace, &|_| true, &usage, None, "persistentvolumeclaims", &name)
    }

    /// `checkRequest`: every quota of the namespace that matches; the first that refuses
    /// refuses the object (nothing is charged then).
    fn charge(
        &mut self,
        namespace: &str,
        scope: &dyn Fn(&core::ScopedResourceSelectorRequirement) -> bool,
        usage: &Usage,
        pod: Option<&core::Pod>,
        resource: &str,
        name: &str,
    ) -> Result<(), Refusal> {
        let refuse = |quota: &str, why: String| Refusal {
            plugin: "ResourceQuota",
            message: format!("{resource} \"{name}\" is forbidden: {why}"),
            quota: Some(quota.to_string()),
        };
        let mut interesting = Vec::new();
        for (i, q) in self.quotas.iter().enumerate() {
            if q.namespace != namespace {
                continue;
            }
            let tracked: BTreeSet<&str> = q
                .hard
                .keys()
                .map(String::as_str)
                .filter(|k| tracks(resource, k))
                .collect();
            if tracked.is_empty() || !q.scopes.iter().all(scope) {
                continue;
            }
            if let Some(pod) = pod
                && let Some(missing) = must_specify(pod, &tracked)
            {
                return Err(refuse(
                    &q.name,
                    format!("failed quota: {}: must specify {missing}", q.name),
                ));
            }
            let unknown: Vec<&str> = tracked.iter().copied().filter(|k| !q.used.contains_key(*k)).collect();
            if !unknown.is_empty() {
                return Err(refuse(
                    &q.name,
                    format!("status unknown for quota: {}, resources: {}", q.name, unknown.join(",")),
                ));
            }
            interesting.push(i);
        }
        let mut updates = Vec::new();
        for i in interesting {
            let q = &self.quotas[i];
            let requested: Usage = usage
                .iter()
                .filter(|(k, v)| q.hard.contains_key(*k) && !v.q.is_zero())
                .map(|(k, v)| (k.clone(), *v))
                .collect();
            if requested.is_empty() {
                continue;
            }
            let mut exceeded = Vec::new();
            let mut new_used = q.used.clone();
            for (k, v) in &requested {
                let used = q.used.get(k).copied().unwrap_or_default();
                let total = used.add(*v);
                if q.hard.get(k).is_some_and(|h| total.q > h.q) {
                    exceeded.push(k.clone());
                }
                new_used.insert(k.clone(), total);
            }
            if !exceeded.is_empty() {
                let show = |m: &Usage| {
                    exceeded
                        .iter()
                        .map(|k| format!("{k}={}", m.get(k).copied().unwrap_or_default()))
                        .collect::<Vec<_>>()
                        .join(",")
                };
                return Err(refuse(
                    &q.name,
                    format!(
                        "exceeded quota: {}, requested: {}, used: {}, limited: {}",
                        q.name,
                        show(&requested),
                        show(&q.used),
                        show(&q.hard)
                    ),
                ));
            }
            updates.push((i, new_used));
        }
        for (i, used) in updates {
            self.quotas[i].used = used;
        }
        Ok(())
    }
}

/// Whether a quota's resource name is one the evaluator of `resource` tracks
/// (`MatchingResources`).
fn tracks(resource: &str, name: &str) -> bool {
    if resource == "persistentvolumeclaims" {
        return matches!(
            name,
            "persistentvolumeclaims" | "count/persistentvolumeclaims" | "requests.storage"
        ) || name.ends_with(".storageclass.storage.k8s.io/requests.storage")
            || name.ends_with(".storageclass.storage.k8s.io/persistentvolumeclaims");
    }
    matches!(
        name,
        "pods"
            | "count/pods"
            | "cpu"
            | "memory"
            | "requests.cpu"
            | "requests.memory"
            | "limits.cpu"
            | "limits.memory"
            | "ephemeral-storage"
            | "requests.ephemeral-storage"
            | "limits.ephemeral-storage"
    ) || name.starts_with("hugepages-")
        || name.starts_with("requests.hugepages-")
        || (name.starts_with("requests.") && name.contains('/'))
}

/// `PodConstraintsFunc`: with cpu or memory quota'd, every container must set them
/// (`must specify RESOURCE for: CONTAINERS; …`).
fn must_specify(pod: &core::Pod, tracked: &BTreeSet<&str>) -> Option<String> {
    const VALIDATION: [&str; 6] = [
        "cpu",
        "memory",
        "requests.cpu",
        "requests.memory",
        "limits.cpu",
        "limits.memory",
    ];
    let required: BTreeSet<&str> = tracked.iter().copied().filter(|k| VALIDATION.contains(k)).collect();
    if required.is_empty() {
        return None;
    }
    let spec = pod.spec.as_ref()?;
    let mut missing: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for c in spec.containers.iter().chain(spec.init_containers.iter().flatten()) {
        let res = c.resources.as_ref();
        let req = res.and_then(|r| r.requests.as_ref());
        let lim = res.and_then(|r| r.limits.as_ref());
        let has = |m: Option<&BTreeMap<String, K8sQuantity>>, k: &str| m.is_some_and(|m| m.contains_key(k));
        for r in &required {
            let set = match *r {
                "cpu" | "requests.cpu" => has(req, "cpu"),
                "memory" | "requests.memory" => has(req, "memory"),
                "limits.cpu" => has(lim, "cpu"),
                _ => has(lim, "memory"),
            };
            if !set {
                missing.entry(r).or_default().insert(c.name.clone());
            }
        }
    }
    if missing.is_empty() {
        return None;
    }
    Some(
        missing
            .iter()
            .map(|(r, c)| format!("{r} for: {}", c.iter().cloned().collect::<Vec<_>>().join(",")))
            .collect::<Vec<_>>()
            .join("; "),
    )
}

/// `podMatchesScopeFunc`.
fn pod_matches_scope(s: &core::ScopedResourceSelectorRequirement, pod: &core::Pod) -> bool {
    let spec = pod.spec.as_ref();
    let terminating = spec.and_then(|s| s.active_deadline_seconds).is_some_and(|d| d >= 0);
    let best_effort = spec.is_none_or(|s| {
        s.containers.iter().chain(s.init_containers.iter().flatten()).all(|c| {
            let res = c.resources.as_ref();
            let none = |m: Option<&BTreeMap<String, K8sQuantity>>| {
                m.is_none_or(|m| !m.contains_key("cpu") && !m.contains_key("memory"))
            };
            none(res.and_then(|r| r.requests.as_ref())) && none(res.and_then(|r| r.limits.as_ref()))
        })
    });
    let class = spec.and_then(|s| s.priority_class_name.as_deref()).unwrap_or("");
    match s.scope_name.as_str() {
        "Terminating" => terminating,
        "NotTerminating" => !terminating,
        "BestEffort" => best_effort,
        "NotBestEffort" => !best_effort,
        "PriorityClass" => {
            let values = s.values.as_deref().unwrap_or_default();
            match s.operator.as_str() {
                "Exists" => !class.is_empty(),
                "DoesNotExist" => class.is_empty(),
                "In" => !class.is_empty() && values.iter().any(|v| v == class),
                "NotIn" => class.is_empty() || !values.iter().any(|v| v == class),
                _ => false,
            }
        }
        "CrossNamespacePodAffinity" => spec.and_then(|s| s.affinity.as_ref()).is_some_and(|a| {
            let cross = |t: &core::PodAffinityTerm| {
                t.namespaces.as_ref().is_some_and(|n| !n.is_empty()) || t.namespace_selector.is_some()
            };
            let terms = |req: Option<&Vec<core::PodAffinityTerm>>,
                         pref: Option<&Vec<core::WeightedPodAffinityTerm>>| {
                req.into_iter().flatten().any(cross) || pref.into_iter().flatten().any(|w| cross(&w.pod_affinity_term))
            };
            a.pod_affinity.as_ref().is_some_and(|p| {
                terms(
                    p.required_during_scheduling_ignored_during_execution.as_ref(),
                    p.preferred_during_scheduling_ignored_during_execution.as_ref(),
                )
            }) || a.pod_anti_affinity.as_ref().is_some_and(|p| {
                terms(
                    p.required_during_scheduling_ignored_during_execution.as_ref(),
                    p.preferred_during_scheduling_ignored_during_execution.as_ref(),
                )
            })
        }),
        _ => false,
    }
}

/// A pod's quota usage (`PodUsageFunc`): `count/pods`, and unless it has finished, `pods` and
/// its requests and limits (`PodRequests`, `PodLimits`: the containers and sidecars summed,
/// the larger of that and each init container, plus the overhead).
pub(crate) fn pod_usage(pod: &core::Pod, finished: bool) -> Usage {
    let mut out = Usage::new();
    out.insert("count/pods".into(), GoQuantity::count(1));
    if finished {
        return out;
    }
    out.insert("pods".into(), GoQuantity::count(1));
    let Some(spec) = pod.spec.as_ref() else {
        return out;
    };
    let pick = |c: &core::Container, limits: bool| -> Usage {
        let r = c.resources.as_ref();
        let m = if limits {
            r.and_then(|r| r.limits.as_ref())
        } else {
            r.and_then(|r| r.requests.as_ref()).or(None)
        };
        let mut u = quantity_map(m);
        if !limits {
            // requests default to limits
            for (k, v) in quantity_map(r.and_then(|r| r.limits.as_ref())) {
                u.entry(k).or_insert(v);
            }
        }
        u
    };
    let sum = |a: &mut Usage, b: &Usage| {
        for (k, v) in b {
            let e = a.entry(k.clone()).or_default();
            *e = e.add(*v);
        }
    };
    let max = |a: &mut Usage, b: &Usage| {
        for (k, v) in b {
            let e = a.entry(k.clone()).or_default();
            if v.q > e.q {
                *e = *v;
            }
        }
    };
    for limits in [false, true] {
        let mut total = Usage::new();
        for c in &spec.containers {
            sum(&mut total, &pick(c, limits));
        }
        let mut sidecars = Usage::new();
        for c in spec.init_containers.iter().flatten() {
            let u = pick(c, limits);
            if c.restart_policy.as_deref() == Some("Always") {
                sum(&mut total, &u);
                sum(&mut sidecars, &u);
            } else {
                let mut with = sidecars.clone();
                sum(&mut with, &u);
                max(&mut total, &with);
            }
        }
        if let Some(o) = &spec.overhead {
            sum(&mut total, &quantity_map(Some(o)));
        }
        for (k, v) in total {
            let names: Vec<String> = match k.as_str() {
                "cpu" | "memory" | "ephemeral-storage" if limits => vec![format!("limits.{k}")],
                "cpu" | "memory" | "ephemeral-storage" => vec![k.clone(), format!("requests.{k}")],
                h if h.starts_with("hugepages-") && !limits => vec![k.clone(), format!("requests.{k}")],
                e if e.contains('/') && !limits => vec![format!("requests.{e}")],
                _ => Vec::new(),
            };
            for n in names {
                out.insert(n, v);
            }
        }
    }
    out
}

/// A PersistentVolumeClaim's quota usage.
fn claim_usage(c: &core::PersistentVolumeClaim) -> Usage {
    let mut out = Usage::new();
    out.insert("count/persistentvolumeclaims".into(), GoQuantity::count(1));
    out.insert("persistentvolumeclaims".into(), GoQuantity::count(1));
    let storage = c
        .spec
        .as_ref()
        .and_then(|s| s.resources.as_ref())
        .and_then(|r| r.requests.as_ref())
        .and_then(|r| r.get("storage"))
        .and_then(|q| GoQuantity::parse(&q.0));
    if let Some(s) = storage {
        out.insert("requests.storage".into(), s);
    }
    if let Some(class) = c.spec.as_ref().and_then(|s| s.storage_class_name.as_deref()) {
        out.insert(
            format!("{class}.storageclass.storage.k8s.io/persistentvolumeclaims"),
            GoQuantity::count(1),
        );
        if let Some(s) = storage {
            out.insert(format!("{class}.storageclass.storage.k8s.io/requests.storage"), s);
        }
    }
    out
}

/// `SetDefaults_LimitRangeItem` for type Container.
fn default_limit_range_item(item: &mut core::LimitRangeItem) {
    if item.type_ != "Container" {
        return;
    }
    let default = item.default.get_or_insert_with(Default::default);
    for (k, v) in item.max.iter().flatten() {
        default.entry(k.clone()).or_insert_with(|| v.clone());
    }
    let default = default.clone();
    let request = item.default_request.get_or_insert_with(Default::default);
    for (k, v) in &default {
        request.entry(k.clone()).or_insert_with(|| v.clone());
    }
    for (k, v) in item.min.iter().flatten() {
        request.entry(k.clone()).or_insert_with(|| v.clone());
    }
}

/// `defaultContainerResourceRequirements`: (requests, limits) of the Container items.
fn default_container_requirements(
    lr: &core::LimitRange,
) -> (BTreeMap<String, K8sQuantity>, BTreeMap<String, K8sQuantity>) {
    let mut requests = BTreeMap::new();
    let mut limits = BTreeMap::new();
    for item in lr.spec.iter().flat_map(|s| s.limits.iter()) {
        if item.type_ == "Container" {
            for (k, v) in item.default_request.iter().flatten() {
                requests.insert(k.clone(), v.clone());
            }
            for (k, v) in item.default.iter().flatten() {
                limits.insert(k.clone(), v.clone());
            }
        }
    }
    (requests, limits)
}

/// `mergeContainerResources`.
fn merge_container_resources(
    c: &mut core::Container,
    requests: &BTreeMap<String, K8sQuantity>,
    limits: &BTreeMap<String, K8sQuantity>,
    prefix: &str,
    annotations: &mut Vec<String>,
) {
    let res = c.resources.get_or_insert_with(Default::default);
    let mut set_limits = Vec::new();
    let mut set_requests = Vec::new();
    let lim = res.limits.get_or_insert_with(Default::default);
    for (k, v) in limits {
        if !lim.contains_key(k) {
            lim.insert(k.clone(), v.clone());
            set_limits.push(k.clone());
        }
    }
    let req = res.requests.get_or_insert_with(Default::default);
    for (k, v) in requests {
        if !req.contains_key(k) {
            req.insert(k.clone(), v.clone());
            set_requests.push(k.clone());
        }
    }
    if res.limits.as_ref().is_some_and(BTreeMap::is_empty) {
        res.limits = None;
    }
    if res.requests.as_ref().is_some_and(BTreeMap::is_empty) {
        res.requests = None;
    }
    if !set_requests.is_empty() {
        set_requests.sort();
        annotations.push(format!("{} request for {prefix} {}", set_requests.join(", "), c.name));
    }
    if !set_limits.is_empty() {
        set_limits.sort();
        annotations.push(format!("{} limit for {prefix} {}", set_limits.join(", "), c.name));
    }
}

/// `SetDefaults_Pod`: a container's requests default to its limits.
fn default_requests_from_limits(c: &mut core::Container) {
    let Some(res) = c.resources.as_mut() else { return };
    let Some(limits) = res.limits.clone() else { return };
    let req = res.requests.get_or_insert_with(Default::default);
    for (k, v) in limits {
        req.entry(k).or_insert(v);
    }
}

/// DefaultTolerationSeconds: not-ready and unreachable, NoExecute, 300 s.
fn default_toleration_seconds(spec: &mut core::PodSpec) {
    let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
    let tolerates = |key: &str| {
        tolerations.iter().any(|t| {
            let k = t.key.as_deref().unwrap_or("");
            let e = t.effect.as_deref().unwrap_or("");
            (k == key || k.is_empty()) && (e == "NoExecute" || e.is_empty())
        })
    };
    let mut add = Vec::new();
    for key in ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"] {
        if !tolerates(key) {
            add.push(core::Toleration {
                key: Some(key.into()),
                operator: Some("Exists".into()),
                effect: Some("NoExecute".into()),
                toleration_seconds: Some(300),
                value: None,
            });
        }
    }
    tolerations.extend(add);
}

fn same_resources(a: &BTreeMap<String, K8sQuantity>, b: &BTreeMap<String, K8sQuantity>) -> bool {
    a.len() == b.len()
        && a.iter().all(|(k, v)| {
            b.get(k)
                .is_some_and(|w| Quantity::parse(&v.0).ok() == Quantity::parse(&w.0).ok())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::file::load_str;

    fn cluster(extra: &str) -> Cluster {
        load_str(
            "c.yaml",
            &format!(
                "apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: Node, metadata: {{name: n1}}, status: {{allocatable: {{cpu: '8', memory: 16Gi, pods: '20'}}}}}}\n{extra}"
            ),
        )
        .expect("cluster")
    }

    fn pod(yaml: &str) -> core::Pod {
        serde_yaml::from_str(yaml).expect("pod")
    }

    fn requests(p: &core::Pod, i: usize) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
        let r = p.spec.as_ref().unwrap().containers[i]
            .resources
            .clone()
            .unwrap_or_default();
        let m = |x: Option<BTreeMap<String, K8sQuantity>>| {
            x.unwrap_or_default().into_iter().map(|(k, v)| (k, v.0)).collect()
        };
        (m(r.requests), m(r.limits))
    }

    fn map(items: &[(&str, &str)]) -> BTreeMap<String, String> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    #[test]
    fn quantities_print_as_apimachinery_prints_them() {
        let s = |t: &str| GoQuantity::parse(t).unwrap().to_string();
        assert_eq!(s("512Mi"), "512Mi");
        assert_eq!(s("1024Mi"), "1Gi");
        assert_eq!(s("1.5Gi"), "1536Mi");
        assert_eq!(s("500m"), "500m");
        assert_eq!(s("2000m"), "2");
        assert_eq!(s("1500"), "1500");
        assert_eq!(s("1000"), "1k");
        assert_eq!(s("100Ki"), "100Ki");
        assert_eq!(s("512"), "512");
        let a = GoQuantity::parse("512Mi")
            .unwrap()
            .add(GoQuantity::parse("512Mi").unwrap());
        assert_eq!(a.to_string(), "1Gi");
        let b = GoQuantity::parse("500m")
            .unwrap()
            .add(GoQuantity::parse("1500m").unwrap());
        assert_eq!(b.to_string(), "2");
    }

    const LIMIT_RANGE: &str = "- apiVersion: v1\n  kind: LimitRange\n  metadata: {name: lr, namespace: ns}\n  spec:\n    limits:\n    - type: Container\n      default: {cpu: '1', memory: 1Gi}\n      defaultRequest: {cpu: 250m}\n      max: {ephemeral-storage: 2Gi}\n";

    #[test]
    fn limit_ranger_fills_what_each_container_leaves_unset_and_annotates_the_pod() {
        let c = cluster(LIMIT_RANGE);
        let mut a = Admission::new(&c);
        let mut p = pod(
            "{metadata: {name: p, namespace: ns}, spec: {containers: [{name: app}, {name: side, resources: {limits: {cpu: '2'}}}], initContainers: [{name: init, resources: {requests: {memory: 64Mi}}}]}}",
        );
        let out = a.admit_pod(&mut p).unwrap();
        // `default` from `max` (ephemeral-storage), `defaultRequest` from `default` (memory,
        // ephemeral-storage): SetDefaults_LimitRangeItem
        assert_eq!(
            requests(&p, 0),
            (
                map(&[("cpu", "250m"), ("ephemeral-storage", "2Gi"), ("memory", "1Gi")]),
                map(&[("cpu", "1"), ("ephemeral-storage", "2Gi"), ("memory", "1Gi")])
            )
        );
        // the request defaults to the container's own limit before LimitRanger runs
        assert_eq!(
            requests(&p, 1),
            (
                map(&[("cpu", "2"), ("ephemeral-storage", "2Gi"), ("memory", "1Gi")]),
                map(&[("cpu", "2"), ("ephemeral-storage", "2Gi"), ("memory", "1Gi")])
            )
        );
        assert_eq!(
            out.limit_ranger.as_deref(),
            Some(
                "LimitRanger plugin set: cpu, ephemeral-storage, memory request for container app; cpu, ephemeral-storage, memory limit for container app; ephemeral-storage, memory request for container side; ephemeral-storage, memory limit for container side; cpu, ephemeral-storage request for init container init; cpu, ephemeral-storage, memory limit for init container init"
            )
        );
        assert_eq!(
            p.metadata.annotations.unwrap()[LIMIT_RANGER_ANNOTATION],
            out.limit_ranger.unwrap()
        );
        // another namespace has no LimitRange
        let mut q = pod("{metadata: {name: q, namespace: other}, spec: {containers: [{name: app}]}}");
        assert_eq!(a.admit_pod(&mut q).unwrap().limit_ranger, None);
        assert_eq!(requests(&q, 0), (BTreeMap::new(), BTreeMap::new()));
    }

    const CLASSES: &str = "- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 10}\n- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: std}, value: 1000, globalDefault: true, preemptionPolicy: Never}\n";

    #[test]
    fn priority_comes_from_the_class_or_the_global_default_with_upstreams_refusals() {
        let c = cluster(CLASSES);
        let mut a = Admission::new(&c);
        let mut p = pod("{metadata: {name: p, namespace: ns}, spec: {containers: [{name: c}]}}");
        assert_eq!(a.admit_pod(&mut p).unwrap().priority, 1000);
        let s = p.spec.unwrap();
        assert_eq!(
            (s.priority_class_name.as_deref(), s.preemption_policy.as_deref()),
            (Some("std"), Some("Never"))
        );
        let mut p =
            pod("{metadata: {name: p, namespace: ns}, spec: {priorityClassName: low, containers: [{name: c}]}}");
        assert_eq!(a.admit_pod(&mut p).unwrap().priority, 10);
        let mut p = pod(
            "{metadata: {name: p, namespace: kube-system}, spec: {priorityClassName: system-node-critical, containers: [{name: c}]}}",
        );
        assert_eq!(a.admit_pod(&mut p).unwrap().priority, 2_000_001_000);
        let mut p =
            pod("{metadata: {name: web-1, namespace: ns}, spec: {priorityClassName: gold, containers: [{name: c}]}}");
        let r = a.admit_pod(&mut p).unwrap_err();
        assert_eq!(r.plugin, "Priority");
        assert_eq!(
            r.message,
            "pods \"web-1\" is forbidden: no PriorityClass with name gold was found"
        );
        let mut p = pod(
            "{metadata: {name: web-1, namespace: ns}, spec: {priority: 7, priorityClassName: low, containers: [{name: c}]}}",
        );
        assert_eq!(
            a.admit_pod(&mut p).unwrap_err().message,
            "pods \"web-1\" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 10 from the given PriorityClass name"
        );
        // a class without preemptionPolicy: PreemptLowerPriority, as the API server stores it
        let mut p =
            pod("{metadata: {name: p, namespace: ns}, spec: {priorityClassName: low, containers: [{name: c}]}}");
        a.admit_pod(&mut p).unwrap();
        assert_eq!(
            p.spec.unwrap().preemption_policy.as_deref(),
            Some("PreemptLowerPriority")
        );
        // two global defaults: the lowest value
        let two = format!(
            "{CLASSES}- {{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {{name: also}}, value: 500, globalDefault: true}}\n"
        );
        let mut a = Admission::new(&cluster(&two));
        let mut p = pod("{metadata: {name: p, namespace: ns}, spec: {containers: [{name: c}]}}");
        assert_eq!(a.admit_pod(&mut p).unwrap().priority, 500);
        let s = p.spec.unwrap();
        assert_eq!(
            (s.priority_class_name.as_deref(), s.preemption_policy.as_deref()),
            (Some("also"), Some("PreemptLowerPriority"))
        );
        // no class at all: 0, PreemptLowerPriority, no class name
        let mut a = Admission::new(&cluster(""));
        let mut p = pod("{metadata: {name: p, namespace: ns}, spec: {containers: [{name: c}]}}");
        assert_eq!(a.admit_pod(&mut p).unwrap().priority, 0);
        let s = p.spec.unwrap();
        assert_eq!(
            (s.priority_class_name, s.preemption_policy.as_deref()),
            (None, Some("PreemptLowerPriority"))
        );
    }

    #[test]
    fn default_toleration_seconds_adds_not_ready_and_unreachable_unless_tolerated() {
        let mut a = Admission::new(&cluster(""));
        let mut p = pod(
            "{metadata: {name: p, namespace: ns}, spec: {containers: [{name: c}], tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists}]}}",
        );
        a.admit_pod(&mut p).unwrap();
        let t: Vec<(Option<String>, Option<String>, Option<i64>)> = p
            .spec
            .unwrap()
            .tolerations
            .unwrap()
            .into_iter()
            .map(|t| (t.key, t.effect, t.toleration_seconds))
            .collect();
        assert_eq!(
            t,
            vec![
                (Some("node.kubernetes.io/unreachable".into()), None, None),
                (
                    Some("node.kubernetes.io/not-ready".into()),
                    Some("NoExecute".into()),
                    Some(300)
                ),
            ]
        );
    }

    const RUNTIME: &str = "- {apiVersion: node.k8s.io/v1, kind: RuntimeClass, metadata: {name: kata}, handler: kata, overhead: {podFixed: {cpu: 250m, memory: 120Mi}}, scheduling: {nodeSelector: {sandbox: kata}, tolerations: [{key: sandbox, operator: Exists, effect: NoSchedule}]}}\n";

    #[test]
    fn runtime_class_sets_the_overhead_and_its_scheduling_with_upstreams_refusals() {
        let c = cluster(RUNTIME);
        assert_eq!(c.runtime_classes.len(), 1);
        let mut a = Admission::new(&c);
        let mut p = pod(
            "{metadata: {name: p, namespace: ns}, spec: {runtimeClassName: kata, nodeSelector: {disk: ssd}, containers: [{name: c}]}}",
        );
        assert!(a.admit_pod(&mut p).unwrap().overhead);
        let s = p.spec.unwrap();
        let o: BTreeMap<String, String> = s.overhead.unwrap().into_iter().map(|(k, v)| (k, v.0)).collect();
        assert_eq!(o, map(&[("cpu", "250m"), ("memory", "120Mi")]));
        assert_eq!(s.node_selector.unwrap(), map(&[("disk", "ssd"), ("sandbox", "kata")]));
        assert!(
            s.tolerations
                .unwrap()
                .iter()
                .any(|t| t.key.as_deref() == Some("sandbox"))
        );
        let mut p =
            pod("{metadata: {name: p, namespace: ns}, spec: {runtimeClassName: gvisor, containers: [{name: c}]}}");
        assert_eq!(
            a.admit_pod(&mut p).unwrap_err().message,
            "pods \"p\" is forbidden: pod rejected: RuntimeClass \"gvisor\" not found"
        );
        let mut p = pod(
            "{metadata: {name: p, namespace: ns}, spec: {runtimeClassName: kata, nodeSelector: {sandbox: gvisor}, containers: [{name: c}]}}",
        );
        assert_eq!(
            a.admit_pod(&mut p).unwrap_err().message,
            "pods \"p\" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; pod.spec.nodeSelector[sandbox] = gvisor"
        );
        let mut p = pod("{metadata: {name: p, namespace: ns}, spec: {overhead: {cpu: '1'}, containers: [{name: c}]}}");
        assert_eq!(
            a.admit_pod(&mut p).unwrap_err().message,
            "pods \"p\" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
        );
    }

    const QUOTA: &str = "- apiVersion: v1\n  kind: ResourceQuota\n  metadata: {name: compute, namespace: ns}\n  spec: {hard: {requests.cpu: '2', requests.memory: 2Gi, pods: '5'}}\n  status:\n    hard: {requests.cpu: '2', requests.memory: 2Gi, pods: '5'}\n    used: {requests.cpu: 500m, requests.memory: 512Mi, pods: '1'}\n";

    #[test]
    fn resource_quota_refuses_with_the_api_servers_message_and_counts_each_pod() {
        let c = cluster(QUOTA);
        let mut a = Admission::new(&c);
        let p = |name: &str| {
            pod(&format!(
                "{{metadata: {{name: {name}, namespace: ns}}, spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 500m, memory: 512Mi}}}}}}]}}}}"
            ))
        };
        for n in ["a", "b", "c"] {
            a.admit_pod(&mut p(n)).unwrap();
        }
        let r = a.admit_pod(&mut p("web-7d4b9c-x2kq9")).unwrap_err();
        assert_eq!(r.plugin, "ResourceQuota");
        assert_eq!(r.quota.as_deref(), Some("compute"));
        assert_eq!(
            r.message,
            "pods \"web-7d4b9c-x2kq9\" is forbidden: exceeded quota: compute, requested: requests.cpu=500m,requests.memory=512Mi, used: requests.cpu=2,requests.memory=2Gi, limited: requests.cpu=2,requests.memory=2Gi"
        );
        // a refused pod is not charged; a smaller one still fits nothing (cpu is all used)
        let mut small = pod(
            "{metadata: {name: s, namespace: ns}, spec: {containers: [{name: c, resources: {requests: {cpu: 100m, memory: '0'}}}]}}",
        );
        assert!(a.admit_pod(&mut small).unwrap_err().message.contains(
            "exceeded quota: compute, requested: requests.cpu=100m, used: requests.cpu=2, limited: requests.cpu=2"
        ));
        // cpu and memory quota'd: every container must request them
        let mut bare = pod(
            "{metadata: {name: bare, namespace: ns}, spec: {containers: [{name: app}, {name: log, resources: {requests: {cpu: 10m}}}]}}",
        );
        assert_eq!(
            a.admit_pod(&mut bare).unwrap_err().message,
            "pods \"bare\" is forbidden: failed quota: compute: must specify requests.cpu for: app; requests.memory for: app,log"
        );
    }

    #[test]
    fn a_quota_without_status_counts_the_namespaces_pods_and_scopes_select_pods() {
        let c = cluster(
            "- {apiVersion: v1, kind: ResourceQuota, metadata: {name: few, namespace: ns}, spec: {hard: {pods: '2'}, scopes: [NotBestEffort]}}\n- {apiVersion: v1, kind: Pod, metadata: {name: old, namespace: ns}, spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: 1m}}}]}}\n- {apiVersion: v1, kind: Pod, metadata: {name: be, namespace: ns}, spec: {nodeName: n1, containers: [{name: c}]}}\n",
        );
        let mut a = Admission::new(&c);
        assert_eq!(a.notes().len(), 1, "{:?}", a.notes());
        let burstable = |n: &str| {
            pod(&format!(
                "{{metadata: {{name: {n}, namespace: ns}}, spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 1m}}}}}}]}}}}"
            ))
        };
        a.admit_pod(&mut burstable("one")).unwrap();
        assert_eq!(
            a.admit_pod(&mut burstable("two")).unwrap_err().message,
            "pods \"two\" is forbidden: exceeded quota: few, requested: pods=1, used: pods=2, limited: pods=2"
        );
        // a BestEffort pod is out of the quota's scope
        let mut be = pod("{metadata: {name: be2, namespace: ns}, spec: {containers: [{name: c}]}}");
        a.admit_pod(&mut be).unwrap();
    }

    #[test]
    fn a_claims_quota_charges_a_statefulsets_claims() {
        let c = cluster(
            "- {apiVersion: v1, kind: ResourceQuota, metadata: {name: storage, namespace: ns}, spec: {hard: {requests.storage: 15Gi, fast.storageclass.storage.k8s.io/persistentvolumeclaims: '1'}}, status: {hard: {requests.storage: 15Gi, fast.storageclass.storage.k8s.io/persistentvolumeclaims: '1'}, used: {requests.storage: '0', fast.storageclass.storage.k8s.io/persistentvolumeclaims: '0'}}}\n",
        );
        let mut a = Admission::new(&c);
        let claim = |n: &str, class: &str| -> core::PersistentVolumeClaim {
            serde_yaml::from_str(&format!(
                "{{metadata: {{name: {n}, namespace: ns}}, spec: {{storageClassName: {class}, resources: {{requests: {{storage: 10Gi}}}}}}}}"
            ))
            .unwrap()
        };
        a.admit_claim(&claim("data-db-0", "fast")).unwrap();
        assert_eq!(
            a.admit_claim(&claim("data-db-1", "slow")).unwrap_err().message,
            "persistentvolumeclaims \"data-db-1\" is forbidden: exceeded quota: storage, requested: requests.storage=10Gi, used: requests.storage=10Gi, limited: requests.storage=15Gi"
        );
    }
}
