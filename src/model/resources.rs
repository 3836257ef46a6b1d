//! Resource accounting as the scheduler does it: `framework.Resource` (types.go), pod requests
//! with init containers, restartable (sidecar) init containers and overhead
//! (pkg/api/v1/resource/helpers.go `PodRequests`), and the non-zero requests used for scoring
//! (pkg/scheduler/util/pod_resources.go).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use super::quantity::Quantity;

/// Default CPU request (milli) assumed for scoring when a container sets none.
pub(crate) const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// Default memory request (bytes) assumed for scoring when a container sets none.
pub(crate) const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

/// A resource list with exact quantities, keyed by resource name.
pub(crate) type ResourceList = BTreeMap<String, Quantity>;

/// `framework.Resource`: the scheduler's resource vector.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Resource {
    /// CPU in milli-cores.
    pub milli_cpu: i64,
    /// Memory in bytes.
    pub memory: i64,
    /// Ephemeral storage in bytes.
    pub ephemeral_storage: i64,
    /// Pod count (only meaningful for allocatable).
    pub allowed_pod_number: i64,
    /// Extended resources, hugepages and attachable volumes.
    pub scalar: BTreeMap<String, i64>,
}

/// `IsPrefixedNativeResource`: the name contains `kubernetes.io/`.
pub(crate) fn is_prefixed_native_resource(name: &str) -> bool {
    name.contains("kubernetes.io/")
}

/// `IsNativeResource`: no domain, or in the kubernetes.io namespace.
pub(crate) fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || is_prefixed_native_resource(name)
}

/// `IsExtendedResourceName`: not native, not a quota `requests.` name, and `requests.<name>`
/// is a qualified name.
pub(crate) fn is_extended_resource(name: &str) -> bool {
    if is_native_resource(name) || name.starts_with("requests.") {
        return false;
    }
    super::selector::is_qualified_name(&format!("requests.{name}"))
}

/// `IsScalarResourceName` (scheduler/util): extended, hugepages-*, prefixed native
/// (`*kubernetes.io/*`) or attachable-volumes-*.
pub(crate) fn is_scalar_resource(name: &str) -> bool {
    is_extended_resource(name)
        || name.starts_with("hugepages-")
        || is_prefixed_native_resource(name)
        || name.starts_with("attachable-volumes-")
}

impl Resource {
    /// `Resource.Add(ResourceList)`.
    pub fn add_list(&mut self, rl: &ResourceList) {
        for (name, q) in rl {
            match name.as_str() {
                "cpu" => self.milli_cpu = self.milli_cpu.saturating_add(q.milli_value()),
                "memory" => self.memory = self.memory.saturating_add(q.value()),
                "pods" => self.allowed_pod_number = self.allowed_pod_number.saturating_add(q.value()),
                "ephemeral-storage" => self.ephemeral_storage = self.ephemeral_storage.saturating_add(q.value()),
                n if is_scalar_resource(n) => {
                    let v = self.scalar.entry(n.to_string()).or_insert(0);
                    *v = v.saturating_add(q.value());
                }
                _ => {}
            }
        }
    }

    /// Builds a Resource from a list.
    pub fn from_list(rl: &ResourceList) -> Self {
        let mut r = Resource::default();
        r.add_list(rl);
        r
    }

    /// Adds another resource vector scaled by `sign` (+1 or -1). Saturating: quantities are
    /// clamped to i64 (as [`Quantity::value`] is), so sums of absurd requests (a fuzzed
    /// `512Ei` of memory beside another container) stay at the bound instead of wrapping.
    pub fn add_scaled(&mut self, o: &Resource, sign: i64) {
        let add = |a: &mut i64, b: i64| *a = a.saturating_add(sign.saturating_mul(b));
        add(&mut self.milli_cpu, o.milli_cpu);
        add(&mut self.memory, o.memory);
        add(&mut self.ephemeral_storage, o.ephemeral_storage);
        add(&mut self.allowed_pod_number, o.allowed_pod_number);
        for (k, v) in &o.scalar {
            add(self.scalar.entry(k.clone()).or_insert(0), *v);
        }
    }

    /// The amount of one named resource (0 when absent).
    pub fn get(&self, name: &str) -> i64 {
        match name {
            "cpu" => self.milli_cpu,
            "memory" => self.memory,
            "ephemeral-storage" => self.ephemeral_storage,
            "pods" => self.allowed_pod_number,
            n => self.scalar.get(n).copied().unwrap_or(0),
        }
    }
}

fn add_into(acc: &mut ResourceList, rl: &ResourceList) {
    for (k, v) in rl {
        let e = acc.entry(k.clone()).or_default();
        *e = *e + *v;
    }
}

fn max_into(acc: &mut ResourceList, rl: &ResourceList) {
    for (k, v) in rl {
        match acc.get_mut(k) {
            Some(e) if *e >= *v => {}
            Some(e) => *e = *v,
            None => {
                acc.insert(k.clone(), *v);
            }
        }
    }
}

/// The parts of a pod spec that resource accounting reads.
#[derive(Clone, Debug, Default)]
pub struct PodResourceSpec {
    /// Requests of each regular container (after defaulting from limits).
    pub containers: Vec<ResourceList>,
    /// Requests of each init container, with whether it is restartable (a sidecar).
    pub init_containers: Vec<(ResourceList, bool)>,
    /// spec.overhead.
    pub overhead: Option<ResourceList>,
    /// spec.resources.requests restricted to the resources that can be set at pod level (cpu,
    /// memory, hugepages-*); None when it names none (`IsPodLevelRequestsSet` false).
    pub pod_level: Option<ResourceList>,
}

/// What a pod requests, computed once.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PodRequests {
    /// Effective requests (`PodRequests` with overhead), as a resource vector.
    pub resource: Resource,
    /// Effective requests as an exact list (for reason texts and scoring by name).
    pub list: Amounts,
    /// Non-zero CPU request (milli) used by scoring.
    pub non0_cpu: i64,
    /// Non-zero memory request (bytes) used by scoring.
    pub non0_mem: i64,
    /// `PodRequests` with `NonMissingContainerRequests` (cpu 100m, memory 200Mi filled in per
    /// container), as the resource-allocation scorers compute the pod's request.
    pub non_missing: Amounts,
}

/// Amounts by resource name, in name order: what a pod requests, read by name.
///
/// Every pod holds two of these. A pod names two or three resources, and a `BTreeMap` of
/// them took a node with room for eleven (368 bytes) plus a heap string per name; this is one
/// allocation of exactly its entries, the common names not copied at all (the maps were a
/// quarter of a large snapshot's heap). Clones share the entries, and so do the lists the
/// loader read lately that say the same ([`interned`]): the pods of one template
/// request the same, and a pod whose containers all request cpu and memory has the same
/// effective and non-missing requests.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Amounts(Arc<[(Cow<'static, str>, i64)]>);

impl std::borrow::Borrow<[(Cow<'static, str>, i64)]> for Amounts {
    fn borrow(&self) -> &[(Cow<'static, str>, i64)] {
        &self.0
    }
}

/// `requests` in an `Arc` shared with the equal requests the loader computed lately: the pods
/// of one template request the same, and a pod holds 8 bytes instead of 104 (which, at
/// 100,000 pods, moved `Arc<Pod>` from mimalloc's 384-byte bin to its 320-byte one).
/// The request lists and amounts a loader shares between the pods it reads (part of its
/// [`super::Interner`]).
#[derive(Default)]
pub(crate) struct RequestPool {
    pub(crate) amounts: HashSet<Amounts>,
    pub(crate) requests: HashSet<Arc<PodRequests>>,
}

pub(crate) fn shared_requests(requests: PodRequests, intern: &mut RequestPool) -> Arc<PodRequests> {
    super::share::share::<_, _, PodRequests>(&mut intern.requests, requests, Arc::new)
}

/// The amounts of these entries (in name order, each name once), sharing the list of equal
/// entries the loader made lately instead of allocating another: a snapshot's pods' lists are
/// nearly all copies of a few dozen.
fn interned(entries: Vec<(Cow<'static, str>, i64)>, intern: &mut RequestPool) -> Amounts {
    super::share::share::<_, _, [_]>(&mut intern.amounts, entries, |e| Amounts(e.into()))
}

impl Amounts {
    /// The amount of resource `name`.
    pub fn get(&self, name: &str) -> Option<&i64> {
        let i = self.0.binary_search_by(|(k, _)| k.as_ref().cmp(name)).ok()?;
        Some(&self.0[i].1)
    }

    /// Whether the two share one list of entries.
    #[cfg(test)]
    fn shares(&self, other: &Amounts) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_ref())
    }

    /// The entries in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &i64)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }
}

/// A resource name, shared when it is one every pod names.
fn resource_name(name: &str) -> Cow<'static, str> {
    match name {
        "cpu" => Cow::Borrowed("cpu"),
        "memory" => Cow::Borrowed("memory"),
        "ephemeral-storage" => Cow::Borrowed("ephemeral-storage"),
        "pods" => Cow::Borrowed("pods"),
        other => Cow::Owned(other.to_string()),
    }
}

impl<'a> FromIterator<(&'a str, i64)> for Amounts {
    fn from_iter<I: IntoIterator<Item = (&'a str, i64)>>(iter: I) -> Self {
        let v: Vec<(Cow<'static, str>, i64)> = iter.into_iter().map(|(k, a)| (resource_name(k), a)).collect();
        Amounts(super::labels::sorted_last_wins(v).into())
    }
}

impl<'a> IntoIterator for &'a Amounts {
    type Item = (&'a str, &'a i64);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Cow<'static, str>, i64)>,
        fn(&'a (Cow<'static, str>, i64)) -> (&'a str, &'a i64),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }
}

impl std::fmt::Debug for Amounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

fn non_zero(rl: &ResourceList) -> (i64, i64) {
    let cpu = rl.get("cpu").map_or(DEFAULT_MILLI_CPU_REQUEST, Quantity::milli_value);
    let mem = rl.get("memory").map_or(DEFAULT_MEMORY_REQUEST, Quantity::value);
    (cpu, mem)
}

fn with_defaults(rl: &ResourceList) -> ResourceList {
    let mut r = rl.clone();
    r.entry("cpu".into())
        .or_insert(Quantity::from_millis(DEFAULT_MILLI_CPU_REQUEST));
    r.entry("memory".into())
        .or_insert(Quantity::from_units(DEFAULT_MEMORY_REQUEST));
    r
}

fn to_amounts(reqs: &ResourceList, intern: &mut RequestPool) -> Amounts {
    // A ResourceList is a map: its names come in order, once each.
    interned(
        reqs.iter()
            .map(|(k, v)| {
                let amount = if k == "cpu" { v.milli_value() } else { v.value() };
                (resource_name(k), amount)
            })
            .collect(),
        intern,
    )
}

/// `PodRequests` (helpers.go) with an optional per-container transform.
fn aggregate(spec: &PodResourceSpec, f: impl Fn(&ResourceList) -> ResourceList) -> ResourceList {
    let mut reqs = ResourceList::new();
    for c in &spec.containers {
        add_into(&mut reqs, &f(c));
    }
    let mut restartable = ResourceList::new();
    let mut init = ResourceList::new();
    for (c, is_sidecar) in &spec.init_containers {
        let c = f(c);
        let effective = if *is_sidecar {
            add_into(&mut reqs, &c);
            add_into(&mut restartable, &c);
            restartable.clone()
        } else {
            let mut tmp = c.clone();
            add_into(&mut tmp, &restartable);
            tmp
        };
        max_into(&mut init, &effective);
    }
    max_into(&mut reqs, &init);
    if let Some(o) = &spec.overhead {
        add_into(&mut reqs, o);
    }
    reqs
}

/// `PodRequests` of component-helpers/resource (1.32+): the containers' requests (each
/// transformed by `f`, as `NonMissingContainerRequests` does), the pod-level requests in
/// place of theirs when `pod_level`, then the overhead.
fn aggregate_pod_level(
    spec: &PodResourceSpec,
    pod_level: bool,
    f: impl Fn(&ResourceList) -> ResourceList,
) -> ResourceList {
    let no_overhead = PodResourceSpec {
        overhead: None,
        ..spec.clone()
    };
    let mut reqs = aggregate(&no_overhead, f);
    if pod_level && let Some(pl) = &spec.pod_level {
        for (k, v) in pl {
            reqs.insert(k.clone(), *v);
        }
    }
    if let Some(o) = &spec.overhead {
        add_into(&mut reqs, o);
    }
    reqs
}

/// The pod's requests as `PodInfo.CalculateResource` computes them from 1.32 on
/// (framework/types.go): `PodRequests`, with the pod-level requests when `pod_level` (the
/// PodLevelResources gate, on from 1.34); the non-zero CPU and memory from `PodRequests` with
/// `NonMissingContainerRequests` (`getNonMissingContainerRequests`: 100m/200Mi for every
/// container, or, with pod-level requests, only for a resource set at neither level).
pub(crate) fn pod_requests_v132(spec: &PodResourceSpec, pod_level: bool, intern: &mut RequestPool) -> PodRequests {
    let pod_level = pod_level && spec.pod_level.is_some();
    let reqs = aggregate_pod_level(spec, pod_level, Clone::clone);
    let non0 = if pod_level {
        let missing: Vec<(&str, Quantity)> = [
            ("cpu", Quantity::from_millis(DEFAULT_MILLI_CPU_REQUEST)),
            ("memory", Quantity::from_units(DEFAULT_MEMORY_REQUEST)),
        ]
        .into_iter()
        .filter(|(k, _)| !reqs.contains_key(*k))
        .collect();
        if missing.is_empty() {
            reqs.clone()
        } else {
            aggregate_pod_level(spec, true, |c| {
                let mut r = c.clone();
                for (k, q) in &missing {
                    r.entry((*k).to_string()).or_insert(*q);
                }
                r
            })
        }
    } else {
        aggregate_pod_level(spec, false, with_defaults)
    };
    let list = to_amounts(&reqs, intern);
    let non_missing = to_amounts(&aggregate_pod_level(spec, pod_level, with_defaults), intern);
    PodRequests {
        resource: Resource::from_list(&reqs),
        list,
        non0_cpu: non0.get("cpu").map_or(0, Quantity::milli_value),
        non0_mem: non0.get("memory").map_or(0, Quantity::value),
        non_missing,
    }
}

/// What a pod's status says about its resources, for the 1.37 accounting ("max of sums",
/// component-helpers `AggregateContainerRequests` with `UseStatusResources`, upstream #140047).
#[derive(Clone, Debug, Default)]
pub struct StatusResources {
    /// The spec's requests (the layout the two below follow).
    pub spec: PodResourceSpec,
    /// Each container's allocated requests (status, else spec; nothing while a resize is
    /// infeasible), in the layout of the spec.
    pub allocated: PodResourceSpec,
    /// Each container's actuated requests (status.resources, else allocated, else spec;
    /// nothing while a resize is infeasible).
    pub actuated: PodResourceSpec,
    /// A resize is infeasible (the spec then does not count).
    pub infeasible: bool,
    /// status.allocatedResources and status.resources.requests of the pod, when both are set.
    pub pod_level: Option<(ResourceList, ResourceList)>,
    /// status.resources.requests of the pod.
    pub pod_requests: Option<ResourceList>,
    /// status.allocatedResources of the pod.
    pub pod_allocated: Option<ResourceList>,
}

/// The pod's requests as 1.37 computes them for a pod whose status reports resources: the
/// larger of the sums of spec, actuated and allocated requests (of actuated and allocated only
/// while a resize is infeasible), each summed as `PodRequests` sums containers; with
/// `pod_level_status` (InPlacePodLevelResourcesVerticalScaling) the pod's own status maps stand
/// for the containers' when it has both. Then the pod-level requests (`pod_level`): every
/// resource of the larger of spec (not while infeasible), status.resources.requests and
/// status.allocatedResources that can be set at pod level.
pub(crate) fn pod_requests_v137(
    status: &StatusResources,
    pod_level: bool,
    pod_level_status: bool,
    intern: &mut RequestPool,
) -> PodRequests {
    let spec = &status.spec;
    let pod_status_requests = status.pod_requests.as_ref();
    let pod_status_allocated = status.pod_allocated.as_ref();
    let no_overhead = |s: &PodResourceSpec| PodResourceSpec {
        overhead: None,
        pod_level: None,
        ..s.clone()
    };
    let combine = |f: &dyn Fn(&ResourceList) -> ResourceList| -> ResourceList {
        let spec_sum = aggregate(&no_overhead(spec), f);
        let (allocated, actuated) = match (&status.pod_level, pod_level_status) {
            (Some((alloc, act)), true) => (alloc.clone(), act.clone()),
            _ => (
                aggregate(&no_overhead(&status.allocated), f),
                aggregate(&no_overhead(&status.actuated), f),
            ),
        };
        let mut out = ResourceList::new();
        if !status.infeasible {
            max_into(&mut out, &spec_sum);
        }
        max_into(&mut out, &actuated);
        max_into(&mut out, &allocated);
        out
    };
    let finish = |mut reqs: ResourceList| -> ResourceList {
        if pod_level && spec.pod_level.is_some() {
            let effective: ResourceList = match (pod_level_status, pod_status_requests.or(pod_status_allocated)) {
                (true, Some(_)) => {
                    let mut e = ResourceList::new();
                    if !status.infeasible {
                        max_into(&mut e, spec.pod_level.as_ref().unwrap_or(&ResourceList::new()));
                    }
                    for m in [pod_status_requests, pod_status_allocated].into_iter().flatten() {
                        max_into(&mut e, m);
                    }
                    e
                }
                _ => spec.pod_level.clone().unwrap_or_default(),
            };
            for (k, v) in effective {
                if k == "cpu" || k == "memory" || k.starts_with("hugepages-") {
                    reqs.insert(k, v);
                }
            }
        }
        if let Some(o) = &spec.overhead {
            add_into(&mut reqs, o);
        }
        reqs
    };
    let reqs = finish(combine(&Clone::clone));
    // `getNonMissingContainerRequests`: 100m / 200Mi per container, or, with pod-level
    // requests, only for a resource the requests do not have at all.
    let pod_level_set = pod_level && spec.pod_level.is_some();
    let missing: Vec<(&str, Quantity)> = [
        ("cpu", Quantity::from_millis(DEFAULT_MILLI_CPU_REQUEST)),
        ("memory", Quantity::from_units(DEFAULT_MEMORY_REQUEST)),
    ]
    .into_iter()
    .filter(|(k, _)| !pod_level_set || !reqs.contains_key(*k))
    .collect();
    let fill = |c: &ResourceList| {
        let mut r = c.clone();
        for (k, q) in &missing {
            r.entry((*k).to_string()).or_insert(*q);
        }
        r
    };
    let list = to_amounts(&reqs, intern);
    let non_missing = to_amounts(&finish(combine(&fill)), intern);
    PodRequests {
        resource: Resource::from_list(&reqs),
        list,
        non0_cpu: non_missing.get("cpu").copied().unwrap_or(0),
        non0_mem: non_missing.get("memory").copied().unwrap_or(0),
        non_missing,
    }
}

/// Computes a pod's requests as `calculateResource` in framework/types.go does.
pub(crate) fn pod_requests(spec: &PodResourceSpec, intern: &mut RequestPool) -> PodRequests {
    let mut reqs = ResourceList::new();
    let (mut non0_cpu, mut non0_mem) = (0i64, 0i64);
    for c in &spec.containers {
        let (c0, m0) = non_zero(c);
        non0_cpu = non0_cpu.saturating_add(c0);
        non0_mem = non0_mem.saturating_add(m0);
        add_into(&mut reqs, c);
    }
    let mut restartable = ResourceList::new();
    let mut init = ResourceList::new();
    let (mut non0_init_cpu, mut non0_init_mem) = (0i64, 0i64);
    for (c, is_sidecar) in &spec.init_containers {
        let effective = if *is_sidecar {
            add_into(&mut reqs, c);
            add_into(&mut restartable, c);
            restartable.clone()
        } else {
            let mut tmp = c.clone();
            add_into(&mut tmp, &restartable);
            tmp
        };
        let (c0, m0) = non_zero(&effective);
        non0_init_cpu = non0_init_cpu.max(c0);
        non0_init_mem = non0_init_mem.max(m0);
        max_into(&mut init, &effective);
    }
    max_into(&mut reqs, &init);
    non0_cpu = non0_cpu.max(non0_init_cpu);
    non0_mem = non0_mem.max(non0_init_mem);
    if let Some(o) = &spec.overhead {
        add_into(&mut reqs, o);
        if let Some(c) = o.get("cpu") {
            non0_cpu = non0_cpu.saturating_add(c.milli_value());
        }
        if let Some(m) = o.get("memory") {
            non0_mem = non0_mem.saturating_add(m.value());
        }
    }
    debug_assert_eq!(reqs, aggregate(spec, Clone::clone));
    let resource = Resource::from_list(&reqs);
    let list = to_amounts(&reqs, intern);
    let non_missing = to_amounts(&aggregate(spec, with_defaults), intern);
    PodRequests {
        resource,
        list,
        non0_cpu,
        non0_mem,
        non_missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rl(items: &[(&str, &str)]) -> ResourceList {
        items
            .iter()
            .map(|(k, v)| ((*k).to_string(), Quantity::parse(v).expect("quantity")))
            .collect()
    }

    #[test]
    fn init_containers_take_the_max_and_sidecars_add_up() {
        // Upstream's sidecar KEP example: sidecar 1 cpu, then an init container of 2 cpu, then
        // containers of 1 cpu: max(1 + 1, 1 + 2) = 3.
        let spec = PodResourceSpec {
            containers: vec![rl(&[("cpu", "1")])],
            init_containers: vec![(rl(&[("cpu", "1")]), true), (rl(&[("cpu", "2")]), false)],
            overhead: None,
            pod_level: None,
        };
        let r = pod_requests(&spec, &mut RequestPool::default());
        assert_eq!(r.resource.milli_cpu, 3000);
        assert_eq!(r.non0_cpu, 3000);
        // memory not set anywhere: non-zero default from both containers and init containers
        assert_eq!(r.non0_mem, DEFAULT_MEMORY_REQUEST);
    }

    #[test]
    fn overhead_is_added_to_requests_and_non_zero() {
        let spec = PodResourceSpec {
            containers: vec![rl(&[("cpu", "100m"), ("memory", "1Gi")])],
            init_containers: vec![],
            overhead: Some(rl(&[("cpu", "250m"), ("memory", "120Mi")])),
            pod_level: None,
        };
        let r = pod_requests(&spec, &mut RequestPool::default());
        assert_eq!(r.resource.milli_cpu, 350);
        assert_eq!(r.resource.memory, (1024 + 120) * 1024 * 1024);
        assert_eq!(r.non0_cpu, 350);
    }

    #[test]
    fn empty_pod_counts_defaults_only_for_scoring() {
        let spec = PodResourceSpec {
            containers: vec![ResourceList::new()],
            ..Default::default()
        };
        let r = pod_requests(&spec, &mut RequestPool::default());
        assert_eq!(r.resource, Resource::default());
        assert_eq!((r.non0_cpu, r.non0_mem), (100, 200 * 1024 * 1024));
    }

    /// scheduler/util IsScalarResourceName and v1helper IsExtendedResourceName.
    #[test]
    fn scalar_resource_names() {
        for (name, scalar, extended) in [
            ("nvidia.com/gpu", true, true),
            ("example.com/aaa", true, true),
            ("hugepages-2Mi", true, false),
            ("attachable-volumes-aws-ebs", true, false),
            ("kubernetes.io/something", true, false),
            ("subdomain.kubernetes.io/something", true, false),
            ("cpu", false, false),
            ("pods", false, false),
            ("requests.example.com/x", false, false),
            ("example.com/bad name", false, false),
        ] {
            assert_eq!(is_scalar_resource(name), scalar, "{name} scalar");
            assert_eq!(is_extended_resource(name), extended, "{name} extended");
        }
    }

    fn amounts(items: &[(&str, i64)]) -> Amounts {
        items.iter().copied().collect()
    }

    fn spec(
        containers: &[&[(&str, &str)]],
        init: &[(&[(&str, &str)], bool)],
        overhead: Option<&[(&str, &str)]>,
    ) -> PodResourceSpec {
        PodResourceSpec {
            containers: containers.iter().map(|c| rl(c)).collect(),
            init_containers: init.iter().map(|(c, sidecar)| (rl(c), *sidecar)).collect(),
            overhead: overhead.map(rl),
            pod_level: None,
        }
    }

    /// pkg/api/v1/resource helpers_test.go TestPodResourceRequests (the cases of the default
    /// 1.30 options: sidecars on, in-place resize off, overhead included).
    #[test]
    fn pod_resource_requests_cases_from_upstream() {
        let cases: Vec<(&str, PodResourceSpec, Amounts)> = vec![
            (
                "nil options, larger init container",
                spec(&[&[("cpu", "1")]], &[(&[("cpu", "4")], false)], None),
                amounts(&[("cpu", 4000)]),
            ),
            (
                "nil options, larger containers",
                spec(&[&[("cpu", "2")], &[("cpu", "3")]], &[(&[("cpu", "2")], false)], None),
                amounts(&[("cpu", 5000)]),
            ),
            (
                "pod overhead included",
                spec(
                    &[&[("cpu", "2")], &[("cpu", "3")]],
                    &[(&[("cpu", "2")], false)],
                    Some(&[("cpu", "1"), ("memory", "1Gi")]),
                ),
                amounts(&[("cpu", 6000), ("memory", 1 << 30)]),
            ),
            (
                // the container status' allocated resources are only read with
                // InPlacePodVerticalScaling, which is off in 1.30
                "resized, infeasible, feature gate disabled",
                spec(&[&[("cpu", "4")]], &[], None),
                amounts(&[("cpu", 4000)]),
            ),
            (
                "sidecar (enabled)",
                spec(&[&[("cpu", "1")]], &[(&[("cpu", "1")], true)], None),
                amounts(&[("cpu", 2000)]),
            ),
            (
                "multiple sidecars",
                spec(
                    &[&[("cpu", "1")]],
                    &[
                        (&[("cpu", "5")], false),
                        (&[("cpu", "1")], true),
                        (&[("cpu", "2")], true),
                        (&[("cpu", "3")], true),
                    ],
                    None,
                ),
                amounts(&[("cpu", 7000)]),
            ),
            (
                "multiple sidecars and non-sidecars",
                spec(
                    &[&[("cpu", "1")]],
                    &[
                        (&[("cpu", "5")], false),
                        (&[("cpu", "1")], true),
                        (&[("cpu", "2")], true),
                        (&[("cpu", "5")], false),
                        (&[("cpu", "3")], true),
                    ],
                    None,
                ),
                amounts(&[("cpu", 8000)]),
            ),
            (
                "sidecar, init and regular",
                spec(
                    &[&[("cpu", "100")]],
                    &[(&[("cpu", "10")], true), (&[("cpu", "200")], false)],
                    None,
                ),
                amounts(&[("cpu", 210_000)]),
            ),
        ];
        for (name, spec, want) in cases {
            assert_eq!(pod_requests(&spec, &mut RequestPool::default()).list, want, "{name}");
        }
    }

    /// helpers_test.go TestPodRequestsAndLimits (requests half): getPod puts the same
    /// resources on one container and one init container. PodRequests does not default
    /// requests from limits (the model does that when it reads a pod, as the API server would).
    #[test]
    fn pod_requests_with_overhead_cases_from_upstream() {
        let get_pod = |req: &[(&str, &str)], overhead: &[(&str, &str)]| PodResourceSpec {
            containers: vec![rl(req)],
            init_containers: vec![(rl(req), false)],
            overhead: Some(rl(overhead)),
            pod_level: None,
        };
        let cases = [
            ("just-limit-no-overhead", get_pod(&[], &[]), amounts(&[])),
            (
                "just-overhead",
                get_pod(&[], &[("cpu", "5"), ("memory", "5")]),
                amounts(&[("cpu", 5000), ("memory", 5)]),
            ),
            (
                "req-and-overhead",
                get_pod(&[("cpu", "1"), ("memory", "10")], &[("cpu", "5"), ("memory", "5")]),
                amounts(&[("cpu", 6000), ("memory", 15)]),
            ),
        ];
        for (name, spec, want) in cases {
            assert_eq!(pod_requests(&spec, &mut RequestPool::default()).list, want, "{name}");
        }
    }

    /// Amounts read as the map they replace: in name order, a repeated name keeps its last
    /// amount, a missing name is None, and Debug prints what a BTreeMap would.
    #[test]
    fn amounts_read_like_a_map_of_the_same_entries() {
        let entries = [
            ("nvidia.com/gpu", 2),
            ("memory", 7),
            ("cpu", 1),
            ("memory", 9),
            ("pods", 1),
        ];
        let a: Amounts = entries.iter().copied().collect();
        let m: BTreeMap<String, i64> = entries.iter().map(|(k, v)| ((*k).to_string(), *v)).collect();
        assert_eq!(
            a.iter().map(|(k, v)| (k.to_string(), *v)).collect::<Vec<_>>(),
            m.iter().map(|(k, v)| (k.clone(), *v)).collect::<Vec<_>>()
        );
        assert_eq!(
            a.keys().collect::<Vec<_>>(),
            ["cpu", "memory", "nvidia.com/gpu", "pods"]
        );
        assert_eq!(a.get("memory"), Some(&9));
        assert_eq!(a.get("nvidia.com/gpu"), Some(&2));
        assert_eq!(a.get("ephemeral-storage"), None);
        assert_eq!(format!("{a:?}"), format!("{m:?}"));
        assert_eq!((&a).into_iter().count(), 4);
        assert_eq!(Amounts::default().get("cpu"), None);
    }

    /// Effective and non-missing requests are one list when they say the same (every
    /// container requests cpu and memory), two when defaults fill a missing one in.
    #[test]
    fn equal_request_lists_are_held_once() {
        let mut intern = RequestPool::default();
        let both = spec(&[&[("cpu", "1"), ("memory", "1Gi")]], &[], None);
        let r = pod_requests(&both, &mut intern);
        assert!(r.non_missing.shares(&r.list));
        assert_eq!(r.list.get("memory"), Some(&(1 << 30)));
        let cpu_only = spec(&[&[("cpu", "1")]], &[], None);
        let r = pod_requests(&cpu_only, &mut intern);
        assert!(!r.non_missing.shares(&r.list));
        assert_eq!(r.list.get("memory"), None);
        assert_eq!(r.non_missing.get("memory"), Some(&DEFAULT_MEMORY_REQUEST));
        // Another pod of the same requests shares the lists of the first; other requests
        // do not.
        let again = pod_requests(&cpu_only, &mut intern);
        assert!(again.list.shares(&r.list) && again.non_missing.shares(&r.non_missing));
        // Another loader's interner shares nothing with this one's.
        let apart = pod_requests(&cpu_only, &mut RequestPool::default());
        assert!(!apart.list.shares(&r.list) && apart.list == r.list);
        let other = pod_requests(&spec(&[&[("cpu", "2")]], &[], None), &mut intern);
        assert!(!other.list.shares(&r.list));
        assert_eq!(other.list.get("cpu"), Some(&2000));
    }

    /// An interner keeps a bounded number of lists to share: past it, it starts afresh (lists
    /// made before are not shared any more, and still read the same).
    #[test]
    fn an_interner_shares_a_bounded_number_of_lists() {
        let mut intern = RequestPool::default();
        let list = |i: i64| BTreeMap::from([("example.com/a".to_string(), Quantity::from_units(i))]);
        let first = to_amounts(&list(0), &mut intern);
        assert!(to_amounts(&list(0), &mut intern).shares(&first));
        for i in 1..=crate::model::share::PER_KIND as i64 {
            to_amounts(&list(i), &mut intern);
        }
        let again = to_amounts(&list(0), &mut intern);
        assert!(!again.shares(&first));
        assert_eq!(again, first);
        assert!(intern.amounts.len() <= crate::model::share::PER_KIND);
    }

    /// scheduler/util pod_resources_test.go TestGetNonZeroRequest, for a one-container pod.
    #[test]
    fn non_zero_request_cases_from_upstream() {
        for (name, reqs, cpu, mem) in [
            (
                "cpu_and_memory_not_found",
                &[][..],
                DEFAULT_MILLI_CPU_REQUEST,
                DEFAULT_MEMORY_REQUEST,
            ),
            ("only_cpu_exist", &[("cpu", "200m")][..], 200, DEFAULT_MEMORY_REQUEST),
            (
                "only_memory_exist",
                &[("memory", "400Mi")][..],
                DEFAULT_MILLI_CPU_REQUEST,
                400 * 1024 * 1024,
            ),
            (
                "cpu_memory_exist",
                &[("cpu", "200m"), ("memory", "400Mi")][..],
                200,
                400 * 1024 * 1024,
            ),
        ] {
            let r = pod_requests(&spec(&[reqs], &[], None), &mut RequestPool::default());
            assert_eq!((r.non0_cpu, r.non0_mem), (cpu, mem), "{name}");
        }
        // explicitly zero is not missing
        let r = pod_requests(
            &spec(&[&[("cpu", "0"), ("memory", "0")]], &[], None),
            &mut RequestPool::default(),
        );
        assert_eq!((r.non0_cpu, r.non0_mem), (0, 0));
    }

    /// framework/types.go calculateResource: the non-zero request of init containers is the
    /// max over their effective (sidecar-cumulative) requests, compared with the sum over
    /// regular containers; overhead cpu/memory is added on top.
    #[test]
    fn non_zero_requests_with_init_containers_and_overhead() {
        let s = spec(
            &[&[("cpu", "1")], &[]],
            &[(&[("cpu", "3")], false), (&[("memory", "1Gi")], true)],
            Some(&[("cpu", "100m"), ("memory", "10Mi")]),
        );
        let r = pod_requests(&s, &mut RequestPool::default());
        // containers: 1000 + 100 (default) = 1100 cpu; 2 × 200Mi memory
        // init: max(3000 (cpu of the first), 100 (default cpu of the sidecar)) = 3000 cpu;
        //       max(200Mi (default), 1Gi) memory
        assert_eq!(r.non0_cpu, 3000 + 100);
        assert_eq!(r.non0_mem, (1 << 30) + 10 * 1024 * 1024);
        // requests: cpu max(1, 3) + 0.1; memory: sidecar 1Gi counted with the containers
        assert_eq!(
            r.list,
            amounts(&[("cpu", 3100), ("memory", (1 << 30) + 10 * 1024 * 1024)])
        );
    }

    /// types_test.go TestPodInfoCalculateResources (1.34, PodLevelResources on): requests and
    /// non-zero requests with pod-level requests.
    #[test]
    fn pod_level_requests_cases_from_upstream() {
        let mi = |n: i64| n * 1024 * 1024;
        let spec =
            |containers: &[&[(&str, &str)]], init: &[(&[(&str, &str)], bool)], pod: &[(&str, &str)]| PodResourceSpec {
                containers: containers.iter().map(|c| rl(c)).collect(),
                init_containers: init.iter().map(|(c, s)| (rl(c), *s)).collect(),
                overhead: None,
                pod_level: (!pod.is_empty()).then(|| rl(pod)),
            };
        let c500: &[(&str, &str)] = &[("cpu", "500m"), ("memory", "500Mi")];
        // (name, spec, (milliCPU, memory, ephemeral), (non0 cpu, non0 mem))
        let cases = [
            (
                "requestless container",
                spec(&[&[]], &[], &[]),
                (0, 0, 0),
                (100, mi(200)),
            ),
            (
                "1X container with requests",
                spec(&[c500], &[], &[]),
                (500, mi(500), 0),
                (500, mi(500)),
            ),
            (
                "2X container with requests",
                spec(&[c500, &[("cpu", "700m"), ("memory", "800Mi")]], &[], &[]),
                (1200, mi(1300), 0),
                (1200, mi(1300)),
            ),
            (
                "1X container and 1X init container with pod-level requests",
                spec(&[c500], &[(c500, false)], &[("cpu", "1200m"), ("memory", "1200Mi")]),
                (1200, mi(1200), 0),
                (1200, mi(1200)),
            ),
            (
                "1X container and 1X sidecar container with pod-level requests",
                spec(&[c500], &[(c500, true)], &[("cpu", "1200m"), ("memory", "1200Mi")]),
                (1200, mi(1200), 0),
                (1200, mi(1200)),
            ),
            (
                "1X container with pod-level memory requests",
                spec(&[&[]], &[(&[], false)], &[("memory", "1200Mi")]),
                (0, mi(1200), 0),
                (100, mi(1200)),
            ),
            (
                "1X container with pod-level cpu requests",
                spec(&[&[]], &[(&[], false)], &[("cpu", "500m")]),
                (500, 0, 0),
                (500, mi(200)),
            ),
            (
                "1X container unsupported resources and pod-level supported resources",
                spec(
                    &[&[("ephemeral-storage", "800Mi")]],
                    &[(&[("ephemeral-storage", "500Mi")], false)],
                    &[("cpu", "500m")],
                ),
                (500, 0, mi(800)),
                (500, mi(200)),
            ),
        ];
        for (name, spec, (cpu, mem, eph), non0) in cases {
            let r = pod_requests_v132(&spec, true, &mut RequestPool::default());
            assert_eq!(
                (r.resource.milli_cpu, r.resource.memory, r.resource.ephemeral_storage),
                (cpu, mem, eph),
                "{name}"
            );
            assert_eq!((r.non0_cpu, r.non0_mem), non0, "{name}");
        }
    }

    /// 1.32+ counts a sidecar's requests in the non-zero sum (`PodRequests` with
    /// `NonMissingContainerRequests`); 1.30's `calculateResource` only through the init maximum.
    #[test]
    fn absurd_requests_saturate_instead_of_overflowing() {
        // found by the snapshot fuzz target: 512Ei of memory (clamped to i64::MAX) beside
        // another container overflowed the non-zero sum
        let s = spec(
            &[&[("memory", "256Mi")], &[("cpu", "500m"), ("memory", "512Ei")]],
            &[],
            Some(&[("memory", "8Ei"), ("cpu", "9223372036854775807")]),
        );
        let r = pod_requests(&s, &mut RequestPool::default());
        assert_eq!(r.non0_mem, i64::MAX);
        assert_eq!(r.non0_cpu, i64::MAX);
        assert_eq!(r.resource.memory, i64::MAX);
        let mut total = r.resource.clone();
        total.add_scaled(&r.resource, 1);
        assert_eq!((total.memory, total.milli_cpu), (i64::MAX, i64::MAX));
        total.add_scaled(&r.resource, -1);
        total.add_scaled(&r.resource, -1);
        total.add_scaled(&r.resource, -1);
        assert_eq!(total.memory, i64::MIN);
    }

    #[test]
    fn non_zero_requests_with_a_sidecar() {
        let spec = PodResourceSpec {
            containers: vec![rl(&[("cpu", "1"), ("memory", "1Gi")])],
            init_containers: vec![(rl(&[("cpu", "1"), ("memory", "1Gi")]), true)],
            ..Default::default()
        };
        let old = pod_requests(&spec, &mut RequestPool::default());
        assert_eq!(old.resource.milli_cpu, 2000);
        assert_eq!((old.non0_cpu, old.non0_mem), (1000, 1 << 30));
        let new = pod_requests_v132(&spec, false, &mut RequestPool::default());
        assert_eq!((new.non0_cpu, new.non0_mem), (2000, 2 << 30));
        assert_eq!(new.resource, old.resource);
        // Without pod-level requests the 1.32 non-zero requests are `non_missing`.
        assert_eq!(old.non_missing.get("cpu"), Some(&2000));
    }
}
