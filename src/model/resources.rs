//! Resource accounting as the scheduler does it: `framework.Resource` (types.go), pod requests
//! with init containers, restartable (sidecar) init containers and overhead
//! (pkg/api/v1/resource/helpers.go `PodRequests`), and the non-zero requests used for scoring
//! (pkg/scheduler/util/pod_resources.go).

use std::collections::BTreeMap;

use super::quantity::Quantity;

/// Default CPU request (milli) assumed for scoring when a container sets none.
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// Default memory request (bytes) assumed for scoring when a container sets none.
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

/// A resource list with exact quantities, keyed by resource name.
pub type ResourceList = BTreeMap<String, Quantity>;

/// `framework.Resource`: the scheduler's resource vector.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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

/// True for resource names in the kubernetes.io namespace or without a domain.
pub fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `IsExtendedResourceName`: outside the native namespace and not a quota `requests.` name.
pub fn is_extended_resource(name: &str) -> bool {
    !is_native_resource(name) && !name.starts_with("requests.")
}

/// `IsScalarResourceName`: extended, hugepages-*, or attachable-volumes-*.
pub fn is_scalar_resource(name: &str) -> bool {
    is_extended_resource(name) || name.starts_with("hugepages-") || name.starts_with("attachable-volumes-")
}

impl Resource {
    /// `Resource.Add(ResourceList)`.
    pub fn add_list(&mut self, rl: &ResourceList) {
        for (name, q) in rl {
            match name.as_str() {
                "cpu" => self.milli_cpu += q.milli_value(),
                "memory" => self.memory += q.value(),
                "pods" => self.allowed_pod_number += q.value(),
                "ephemeral-storage" => self.ephemeral_storage += q.value(),
                n if is_scalar_resource(n) => {
                    *self.scalar.entry(n.to_string()).or_insert(0) += q.value();
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

    /// Adds another resource vector scaled by `sign` (+1 or -1).
    pub fn add_scaled(&mut self, o: &Resource, sign: i64) {
        self.milli_cpu += sign * o.milli_cpu;
        self.memory += sign * o.memory;
        self.ephemeral_storage += sign * o.ephemeral_storage;
        self.allowed_pod_number += sign * o.allowed_pod_number;
        for (k, v) in &o.scalar {
            *self.scalar.entry(k.clone()).or_insert(0) += sign * v;
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
}

/// What a pod requests, computed once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodRequests {
    /// Effective requests (`PodRequests` with overhead), as a resource vector.
    pub resource: Resource,
    /// Effective requests as an exact list (for reason texts and scoring by name).
    pub list: BTreeMap<String, i64>,
    /// Non-zero CPU request (milli) used by scoring.
    pub non0_cpu: i64,
    /// Non-zero memory request (bytes) used by scoring.
    pub non0_mem: i64,
    /// `PodRequests` with `NonMissingContainerRequests` (cpu 100m, memory 200Mi filled in per
    /// container), as the resource-allocation scorers compute the pod's request.
    pub non_missing: BTreeMap<String, i64>,
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

fn to_amounts(reqs: &ResourceList) -> BTreeMap<String, i64> {
    reqs.iter()
        .map(|(k, v)| {
            let amount = if k == "cpu" { v.milli_value() } else { v.value() };
            (k.clone(), amount)
        })
        .collect()
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

/// Computes a pod's requests as `calculateResource` in framework/types.go does.
pub fn pod_requests(spec: &PodResourceSpec) -> PodRequests {
    let mut reqs = ResourceList::new();
    let (mut non0_cpu, mut non0_mem) = (0i64, 0i64);
    for c in &spec.containers {
        let (c0, m0) = non_zero(c);
        non0_cpu += c0;
        non0_mem += m0;
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
            non0_cpu += c.milli_value();
        }
        if let Some(m) = o.get("memory") {
            non0_mem += m.value();
        }
    }
    debug_assert_eq!(reqs, aggregate(spec, Clone::clone));
    let resource = Resource::from_list(&reqs);
    let list = to_amounts(&reqs);
    let non_missing = to_amounts(&aggregate(spec, with_defaults));
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
        };
        let r = pod_requests(&spec);
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
        };
        let r = pod_requests(&spec);
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
        let r = pod_requests(&spec);
        assert_eq!(r.resource, Resource::default());
        assert_eq!((r.non0_cpu, r.non0_mem), (100, 200 * 1024 * 1024));
    }

    #[test]
    fn scalar_resource_names() {
        assert!(is_scalar_resource("nvidia.com/gpu"));
        assert!(is_scalar_resource("hugepages-2Mi"));
        assert!(!is_scalar_resource("cpu"));
        assert!(!is_scalar_resource("kubernetes.io/foo"));
    }
}
