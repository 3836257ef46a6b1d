//! The descheduler's pod helpers (pkg/descheduler/pod/pods.go, pkg/utils/pod.go, qos.go):
//! owner references, QoS class, the priority-then-QoS eviction order, volume and annotation
//! checks, a pod's age at "now", and the plugins' namespace/label filter.

use std::cmp::Ordering;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, OwnerReference};
use k8s_openapi::jiff::Timestamp;

use super::policy::Namespaces;
use crate::model::Pod;
use crate::model::quantity::Quantity;
use crate::model::selector::Selector;

/// `descheduler.alpha.kubernetes.io/evict`: always evictable.
pub const EVICT_ANNOTATION: &str = "descheduler.alpha.kubernetes.io/evict";
/// `descheduler.alpha.kubernetes.io/prefer-no-eviction`.
pub const NO_EVICTION_ANNOTATION: &str = "descheduler.alpha.kubernetes.io/prefer-no-eviction";

/// metadata.ownerReferences.
pub fn owner_refs(p: &Pod) -> &[OwnerReference] {
    p.obj.metadata.owner_references.as_deref().unwrap_or(&[])
}

/// Whether the pod carries the annotation.
pub fn has_annotation(p: &Pod, key: &str) -> bool {
    p.obj.metadata.annotations.as_ref().is_some_and(|a| a.contains_key(key))
}

fn annotation<'a>(p: &'a Pod, key: &str) -> Option<&'a str> {
    p.obj.metadata.annotations.as_ref()?.get(key).map(String::as_str)
}

/// `IsMirrorPod`.
pub fn is_mirror(p: &Pod) -> bool {
    has_annotation(p, "kubernetes.io/config.mirror")
}

/// `IsStaticPod`: a config source other than "api".
pub fn is_static(p: &Pod) -> bool {
    annotation(p, "kubernetes.io/config.source").is_some_and(|s| s != "api")
}

/// `IsPodWithLocalStorage`: a hostPath or emptyDir volume.
pub fn has_local_storage(p: &Pod) -> bool {
    p.spec()
        .volumes
        .iter()
        .flatten()
        .any(|v| v.host_path.is_some() || v.empty_dir.is_some())
}

/// `IsPodWithPVC`.
pub fn has_pvc(p: &Pod) -> bool {
    p.spec()
        .volumes
        .iter()
        .flatten()
        .any(|v| v.persistent_volume_claim.is_some())
}

/// `IsPodWithResourceClaims`.
pub fn has_resource_claims(p: &Pod) -> bool {
    p.spec().resource_claims.as_ref().is_some_and(|c| !c.is_empty())
}

/// QoS classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Qos {
    /// BestEffort.
    BestEffort,
    /// Burstable.
    Burstable,
    /// Guaranteed.
    Guaranteed,
}

/// `GetPodQOS`: status.qosClass when set, else computed from cpu and memory of every
/// container and init container.
pub fn qos(p: &Pod) -> Qos {
    match p.obj.status.as_ref().and_then(|s| s.qos_class.as_deref()) {
        Some("BestEffort") => return Qos::BestEffort,
        Some("Burstable") => return Qos::Burstable,
        Some("Guaranteed") => return Qos::Guaranteed,
        _ => {}
    }
    let spec = p.spec();
    let mut requests: std::collections::BTreeMap<&str, i128> = std::collections::BTreeMap::new();
    let mut limits: std::collections::BTreeMap<&str, i128> = std::collections::BTreeMap::new();
    let mut guaranteed = true;
    for c in spec.containers.iter().chain(spec.init_containers.iter().flatten()) {
        let res = c.resources.as_ref();
        for (name, q) in res.and_then(|r| r.requests.as_ref()).into_iter().flatten() {
            if name != "cpu" && name != "memory" {
                continue;
            }
            let n = Quantity::parse(&q.0).map_or(0, |q| q.nanos());
            if n > 0 {
                *requests.entry(name.as_str()).or_insert(0) += n;
            }
        }
        let mut found = 0;
        for (name, q) in res.and_then(|r| r.limits.as_ref()).into_iter().flatten() {
            if name != "cpu" && name != "memory" {
                continue;
            }
            let n = Quantity::parse(&q.0).map_or(0, |q| q.nanos());
            if n > 0 {
                found += 1;
                *limits.entry(name.as_str()).or_insert(0) += n;
            }
        }
        if found < 2 {
            guaranteed = false;
        }
    }
    if requests.is_empty() && limits.is_empty() {
        return Qos::BestEffort;
    }
    if guaranteed && requests.iter().any(|(k, v)| limits.get(k) != Some(v)) {
        guaranteed = false;
    }
    if guaranteed && requests.len() == limits.len() {
        Qos::Guaranteed
    } else {
        Qos::Burstable
    }
}

/// `SortPodsBasedOnPriorityLowToHigh`: lower priority first; at equal priority BestEffort,
/// then Burstable, then Guaranteed; within a class, pods without the no-eviction annotation
/// first. A stable sort over the pods in key order (upstream's `sort.Slice` is not stable).
pub fn sort_by_priority_low_to_high(pods: &mut [Arc<Pod>]) {
    pods.sort_by(|a, b| {
        a.priority.cmp(&b.priority).then_with(|| {
            let rank = |q: Qos| match q {
                Qos::BestEffort => 0,
                Qos::Burstable => 1,
                Qos::Guaranteed => 2,
            };
            let (qa, qb) = (qos(a), qos(b));
            if qa == qb {
                let na = has_annotation(a, NO_EVICTION_ANNOTATION);
                let nb = has_annotation(b, NO_EVICTION_ANNOTATION);
                na.cmp(&nb)
            } else {
                rank(qa).cmp(&rank(qb))
            }
        })
    });
}

/// metadata.creationTimestamp.
pub fn created(p: &Pod) -> Option<Timestamp> {
    p.obj.metadata.creation_timestamp.as_ref().map(|t| t.0)
}

/// Whole seconds from `then` to `now` (negative when `then` is later), as Go's
/// `uint(d.Seconds())` truncates.
pub fn age_seconds(then: Option<Timestamp>, now: Timestamp) -> i64 {
    let then = then.unwrap_or(Timestamp::UNIX_EPOCH);
    let d = now.as_nanosecond() - then.as_nanosecond();
    i64::try_from(d / 1_000_000_000).unwrap_or(i64::MAX)
}

/// The plugins' `podutil.Options` filter: namespaces and a label selector.
#[derive(Clone, Debug)]
pub struct PodFilter {
    namespaces: Option<Namespaces>,
    selector: Option<Selector>,
}

impl PodFilter {
    /// From the arguments.
    pub fn new(namespaces: Option<&Namespaces>, selector: Option<&LabelSelector>) -> Self {
        PodFilter {
            namespaces: namespaces.cloned(),
            selector: selector.map(|s| Selector::from_label_selector(Some(s))),
        }
    }

    /// Why the pod does not pass, if it does not.
    pub fn rejects(&self, p: &Pod) -> Option<String> {
        if !Namespaces::admits(self.namespaces.as_ref(), &p.key.namespace) {
            return Some(format!(
                "namespace {} is not in the plugin's namespaces",
                p.key.namespace
            ));
        }
        if let Some(s) = &self.selector
            && !s.matches(&p.labels)
        {
            return Some("labels do not match the plugin's labelSelector".into());
        }
        None
    }
}

/// Go's `time.Duration.String` of a whole or fractional number of seconds.
pub fn go_duration(secs: f64) -> String {
    if secs == 0.0 {
        return "0s".into();
    }
    let neg = secs < 0.0;
    let s = secs.abs();
    let body = if s < 1.0 {
        let ns = (s * 1e9).round();
        if ns < 1e3 {
            format!("{ns}ns")
        } else if ns < 1e6 {
            format!("{}µs", trim(ns / 1e3))
        } else {
            format!("{}ms", trim(ns / 1e6))
        }
    } else {
        let h = (s / 3600.0).floor();
        let m = ((s - h * 3600.0) / 60.0).floor();
        let rest = s - h * 3600.0 - m * 60.0;
        let mut out = String::new();
        if h > 0.0 {
            out.push_str(&format!("{h}h"));
        }
        if h > 0.0 || m > 0.0 {
            out.push_str(&format!("{m}m"));
        }
        out.push_str(&format!("{}s", trim(rest)));
        out
    };
    if neg { format!("-{body}") } else { body }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.9}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Orders pods by key (the order kschedtui lists a node's pods in).
pub fn by_key(a: &Arc<Pod>, b: &Arc<Pod>) -> Ordering {
    a.key.cmp(&b.key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_duration_strings() {
        assert_eq!(go_duration(3600.0), "1h0m0s");
        assert_eq!(go_duration(90.0), "1m30s");
        assert_eq!(go_duration(5.0), "5s");
        assert_eq!(go_duration(0.5), "500ms");
        assert_eq!(go_duration(0.0), "0s");
    }
}
