//! Port of the structured allocator (k8s.io/dynamic-resource-allocation `structured`): for one
//! node, the devices of every claim the pod still needs allocated, all at once, or why not.
//!
//! Upstream ships three implementations (stable, incubating, experimental) and picks the
//! first that supports every enabled feature ([`Implementation::select`]); their behaviour
//! differs by release, which [`Rules`] names: 1.34's experimental allocator ([`Rules::V134`]),
//! 1.35's incubating one ([`Rules::V135`]) and 1.36's ([`Rules::V136`]). The search is the
//! same depth-first search in every release: claims, then their requests, then the
//! `firstAvailable` subrequests in priority order, then device slots, trying candidate devices
//! in pool order (driver, pool name), slices by name, devices in slice order; the first
//! solution wins. Pools and slices are taken in that sorted order at every release (1.36
//! sorts them; 1.34 and 1.35 take the informer's order, of which this is one).
//!
//! Implemented: ExactCount and All, `firstAvailable`, the 32-device claim limit, selectors of
//! the class and the request (CEL, [`super::cel`]), admin access, devices in use by any
//! allocated claim, `matchAttribute` and `distinctAttribute` constraints, device taints and
//! request tolerations (by release), devices with binding conditions (selectable only with
//! the binding features, searched last), pools with generations, incomplete and invalid pools
//! (by release), per-device node selection, shared counters of partitionable devices, and
//! consumable capacity with request policies. Not reproduced: the Filter timeout (a search
//! never stops early here), upstream's cache of selector results, and the counters being
//! keyed by pool name only across drivers (they are keyed by driver and pool here).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::resource::v1 as dra;

use super::cel::{Compiler, DeviceValue, indexed_domains};
use crate::model::Labels;
use crate::model::quantity::Quantity;
use crate::model::selector::NodeSelectorMatcher;

/// The most devices one claim may get (`resourceapi.AllocationResultsMaxSize`).
pub(crate) const CLAIM_LIMIT: usize = 32;
/// `FirstAvailableDeviceRequestMaxSize`: the score of subrequest `i` is `8 - i`.
pub(crate) const FIRST_AVAILABLE_MAX: i64 = 8;

/// How a release's allocator behaves where releases differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rules {
    /// 1.34 (experimental): a node's view of a pool is complete when it sees every slice;
    /// an incomplete pool still serves ExactCount; an invalid pool reached by the search is an
    /// error; the counter sets a device consumes are its slice's; `distinctAttribute` only
    /// refuses a second share of the same device (it compares pointers); with consumable
    /// capacity, a shared device's counters count for every share and the capacity check of
    /// the request's i-th device reads the slice's i-th device.
    V134,
    /// 1.35 (incubating): pools short of slices cluster-wide, or invalid, are skipped, and an
    /// allocation that fails where a pool is invalid says so; `distinctAttribute` is not
    /// supported; capacity requests are ignored.
    V135,
    /// 1.36: as 1.35, with `distinctAttribute`, consumable capacity and binding conditions.
    V136,
}

/// Which of upstream's three implementations runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Implementation {
    /// stable.
    Stable,
    /// incubating.
    Incubating,
    /// experimental.
    Experimental,
}

/// The allocator features the plugin passes (`AllocatorFeatures`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AllocFeatures {
    /// DRAAdminAccess.
    pub admin_access: bool,
    /// DRAPrioritizedList.
    pub prioritized_list: bool,
    /// DRAPartitionableDevices.
    pub partitionable: bool,
    /// DRADeviceTaints.
    pub device_taints: bool,
    /// DRADeviceBindingConditions.
    pub binding_conditions: bool,
    /// DRAResourceClaimDeviceStatus.
    pub device_status: bool,
    /// DRAConsumableCapacity.
    pub consumable_capacity: bool,
}

/// The code generation of the allocator a release ships.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Generation {
    /// 1.34.
    G134,
    /// 1.35.
    G135,
    /// 1.36 and later.
    G136,
}

impl Implementation {
    /// `NewAllocator`: the first implementation, stable → incubating → experimental, that
    /// supports every enabled feature.
    pub(crate) fn select(g: Generation, f: &AllocFeatures) -> Implementation {
        let basic = f.admin_access || f.prioritized_list || f.partitionable || f.device_taints;
        match g {
            Generation::G134 => {
                if f.binding_conditions || f.device_status || f.consumable_capacity {
                    Implementation::Experimental
                } else if basic {
                    Implementation::Incubating
                } else {
                    Implementation::Stable
                }
            }
            Generation::G135 => {
                if (f.binding_conditions && f.device_status) || f.consumable_capacity {
                    Implementation::Experimental
                } else if basic {
                    Implementation::Incubating
                } else {
                    Implementation::Stable
                }
            }
            Generation::G136 => {
                if (f.binding_conditions && f.device_status) || f.consumable_capacity {
                    Implementation::Incubating
                } else {
                    Implementation::Stable
                }
            }
        }
    }
}

impl Rules {
    /// The behaviour of `implementation` at generation `g`: 1.35's experimental allocator
    /// carries the code 1.36 promoted.
    pub(crate) fn of(g: Generation, implementation: Implementation) -> Rules {
        match (g, implementation) {
            (Generation::G134, _) => Rules::V134,
            (Generation::G135, Implementation::Experimental) => Rules::V136,
            (Generation::G135, _) => Rules::V135,
            (Generation::G136, _) => Rules::V136,
        }
    }
}

/// How a node's allocation attempt ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Every claim got its devices: the results, per claim.
    Allocated(Vec<Vec<DeviceResult>>),
    /// Some claim cannot be allocated on the node (`cannot allocate all claims`).
    Unsatisfiable,
    /// 1.35+: no allocation, and an invalid pool was seen (`invalid resource pools were
    /// encountered`, UnschedulableAndUnresolvable).
    InvalidPools,
    /// An error wrapping `ErrFailedAllocationOnNode` (1.38: `All` over an incomplete or invalid
    /// pool, #141898): the node is UnschedulableAndUnresolvable with the error's text, and the
    /// other nodes are still tried.
    FailedOnNode(String),
    /// An error (Filter returns Error, which aborts the scheduling attempt).
    Error(String),
}

/// One allocated device of a claim (`DeviceRequestAllocationResult`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DeviceResult {
    /// `request` or `request/subrequest`.
    pub request: String,
    /// Driver.
    pub driver: String,
    /// Pool.
    pub pool: String,
    /// Device.
    pub device: String,
    /// Admin access.
    pub admin_access: bool,
    /// A share of a device allowing multiple allocations (consumable capacity).
    pub shared: bool,
    /// Where the device can be used (its slice's node fields, or with
    /// `perDeviceNodeSelection` its own): what the allocation's node selector is made of.
    pub placement: Placement,
    /// The device's `bindsToNode`.
    pub binds_to_node: bool,
    /// The device's `bindingConditions`.
    pub binding_conditions: Vec<String>,
    /// The device's `bindingFailureConditions`.
    pub binding_failure_conditions: Vec<String>,
    /// The request's (or subrequest's) tolerations, as JSON.
    pub tolerations: Vec<serde_json::Value>,
}

/// The node fields of a device or its slice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Placement {
    /// `nodeName`: that node only.
    Node(String),
    /// `nodeSelector` (a NodeSelector, as JSON).
    Selector(serde_json::Value),
    /// `allNodes` (or nothing set).
    AllNodes,
}

impl Placement {
    /// The placement of device `d` of `slice`.
    pub(crate) fn of(slice: &dra::ResourceSlice, d: &dra::Device) -> Placement {
        let per_device = slice.spec.per_device_node_selection == Some(true);
        let (name, selector) = if per_device {
            (d.node_name.as_deref(), d.node_selector.as_ref())
        } else {
            (slice.spec.node_name.as_deref(), slice.spec.node_selector.as_ref())
        };
        match (name.filter(|n| !n.is_empty()), selector) {
            (Some(n), _) => Placement::Node(n.to_string()),
            (None, Some(sel)) => Placement::Selector(serde_json::to_value(sel).unwrap_or_default()),
            (None, None) => Placement::AllNodes,
        }
    }
}

/// A device: (driver, pool, device name).
pub(crate) type DeviceId = (String, String, String);

/// What is allocated in the cluster already (`GatherAllocatedState`).
#[derive(Clone, Debug, Default)]
pub(crate) struct AllocatedState {
    /// Devices allocated to some claim (not with admin access, not as shares).
    pub devices: BTreeSet<DeviceId>,
    /// Capacity consumed by shares of devices that allow multiple allocations.
    pub consumed: BTreeMap<DeviceId, BTreeMap<String, i128>>,
    /// Devices with at least one share.
    pub shared: BTreeSet<DeviceId>,
}

impl AllocatedState {
    /// From every claim of the cluster with an allocation.
    pub(crate) fn gather<'a>(claims: impl Iterator<Item = &'a dra::ResourceClaim>, consumable_capacity: bool) -> Self {
        let mut s = AllocatedState::default();
        for c in claims {
            let Some(results) = c
                .status
                .as_ref()
                .and_then(|st| st.allocation.as_ref())
                .and_then(|a| a.devices.as_ref())
                .and_then(|d| d.results.as_ref())
            else {
                continue;
            };
            for r in results {
                if r.admin_access == Some(true) {
                    continue;
                }
                let id = (r.driver.clone(), r.pool.clone(), r.device.clone());
                if consumable_capacity && r.share_id.is_some() {
                    let e = s.consumed.entry(id.clone()).or_default();
                    for (k, q) in r.consumed_capacity.iter().flatten() {
                        *e.entry(k.clone()).or_insert(0) += quantity(&q.0);
                    }
                    s.shared.insert(id);
                } else {
                    s.devices.insert(id);
                }
            }
        }
        s
    }
}

fn quantity(s: &str) -> i128 {
    Quantity::parse(s).map_or(0, |q| q.nanos())
}

/// A DeviceClass's selectors.
pub(crate) fn class_selectors(c: &dra::DeviceClass) -> impl Iterator<Item = &dra::DeviceSelector> {
    c.spec.iter().flat_map(|s| s.selectors.iter().flatten())
}

/// The node a pool view is built for.
pub(crate) struct NodeView<'a> {
    /// Name.
    pub name: &'a str,
    /// Labels.
    pub labels: &'a Labels,
}

/// `NodeMatches`: a slice's (or per-device) node name, all-nodes flag or node selector.
fn node_matches(node: &NodeView<'_>, name: Option<&str>, all: Option<bool>, sel: Option<&core::NodeSelector>) -> bool {
    if let Some(n) = name.filter(|n| !n.is_empty()) {
        return n == node.name;
    }
    if all == Some(true) {
        return true;
    }
    if let Some(s) = sel {
        return NodeSelectorMatcher::new(s).matches(node.labels, node.name);
    }
    false
}

fn targets_node(s: &dra::ResourceSliceSpec) -> bool {
    s.node_name.as_deref().is_some_and(|n| !n.is_empty()) || s.all_nodes == Some(true) || s.node_selector.is_some()
}

fn has_binding_device(s: &dra::ResourceSlice) -> bool {
    s.spec
        .devices
        .iter()
        .flatten()
        .any(|d| d.binding_conditions.as_ref().is_some_and(|b| !b.is_empty()))
}

/// One pool as a node sees it.
#[derive(Debug)]
pub(crate) struct Pool<'a> {
    /// Driver.
    pub driver: &'a str,
    /// Name.
    pub name: &'a str,
    /// The slices that target the node, by name.
    pub slices: Vec<&'a dra::ResourceSlice>,
    /// Fewer slices than the pool says it has.
    pub incomplete: bool,
    /// Why the pool is invalid (duplicate device names, bad counters), if it is.
    pub invalid: Option<String>,
    /// Counter sets (partitionable devices): set → counter → value.
    pub counter_sets: BTreeMap<String, BTreeMap<String, i128>>,
    /// Slices of the pool that do not target the node (their devices still consume
    /// counters).
    pub other_slices: Vec<&'a dra::ResourceSlice>,
}

impl Pool<'_> {
    /// `driver/pool`.
    pub(crate) fn id(&self) -> String {
        format!("{}/{}", self.driver, self.name)
    }

    /// The devices the node may get from the pool, with the slice each is in.
    pub(crate) fn devices(&self) -> impl Iterator<Item = (&dra::ResourceSlice, &dra::Device)> {
        self.slices
            .iter()
            .flat_map(|s| s.spec.devices.iter().flatten().map(move |d| (*s, d)))
    }
}

/// `addSlice`: keep the highest generation of each pool.
fn add_slice<'a>(pools: &mut BTreeMap<(&'a str, &'a str), Vec<&'a dra::ResourceSlice>>, s: &'a dra::ResourceSlice) {
    let key = (s.spec.driver.as_str(), s.spec.pool.name.as_str());
    let list = pools.entry(key).or_default();
    match list.first().map(|f| f.spec.pool.generation) {
        None => list.push(s),
        Some(g) if s.spec.pool.generation < g => {}
        Some(g) if s.spec.pool.generation > g => {
            list.clear();
            list.push(s);
        }
        Some(_) => list.push(s),
    }
}

fn duplicate_device(slices: &[&dra::ResourceSlice]) -> Option<String> {
    let mut seen = BTreeSet::new();
    for s in slices {
        for d in s.spec.devices.iter().flatten() {
            if !seen.insert(d.name.as_str()) {
                return Some(format!("duplicate device name {}", d.name));
            }
        }
    }
    None
}

/// `GatherPools` for `node`: every pool the node can get devices from, sorted by (driver,
/// pool), pools with binding-condition devices last.
pub(crate) fn gather_pools<'a>(
    node: &NodeView<'_>,
    slices: &'a [&'a dra::ResourceSlice],
    rules: Rules,
    f: &AllocFeatures,
) -> Vec<Pool<'a>> {
    let mut pools: BTreeMap<(&str, &str), Vec<&dra::ResourceSlice>> = BTreeMap::new();
    for s in slices {
        let spec = &s.spec;
        let counters = spec.shared_counters.as_ref().is_some_and(|c| !c.is_empty());
        let per_device = spec.per_device_node_selection;
        if rules == Rules::V134 {
            if !f.partitionable && per_device.is_some() {
                continue;
            }
        } else if !f.partitionable && (per_device.is_some() || counters) {
            continue;
        }
        let relevant = if counters && rules != Rules::V134 {
            true
        } else if targets_node(spec) {
            node_matches(
                node,
                spec.node_name.as_deref(),
                spec.all_nodes,
                spec.node_selector.as_ref(),
            )
        } else if per_device == Some(true) {
            spec.devices
                .iter()
                .flatten()
                .any(|d| node_matches(node, d.node_name.as_deref(), d.all_nodes, d.node_selector.as_ref()))
        } else {
            false
        };
        if relevant {
            add_slice(&mut pools, s);
        }
    }
    let mut out: Vec<Pool<'a>> = Vec::new();
    let mut binding: Vec<Pool<'a>> = Vec::new();
    for ((driver, name), mut list) in pools {
        list.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        let count = list[0].spec.pool.resource_slice_count;
        let generation = list[0].spec.pool.generation;
        let mut pool = Pool {
            driver,
            name,
            slices: Vec::new(),
            incomplete: false,
            invalid: None,
            counter_sets: BTreeMap::new(),
            other_slices: Vec::new(),
        };
        if rules == Rules::V134 {
            pool.incomplete = list.len() as i64 != count;
            pool.invalid = duplicate_device(&list);
            pool.slices = list;
        } else {
            let mut all: Option<Vec<&dra::ResourceSlice>> = None;
            if list.len() as i64 != count {
                let same: Vec<&dra::ResourceSlice> = slices
                    .iter()
                    .copied()
                    .filter(|s| s.spec.driver == driver && s.spec.pool.name == name)
                    .collect();
                if same.iter().any(|s| s.spec.pool.generation > generation) {
                    // A newer generation the node does not see: the pool is dropped.
                    continue;
                }
                let mut same: Vec<&dra::ResourceSlice> = same
                    .into_iter()
                    .filter(|s| s.spec.pool.generation == generation)
                    .collect();
                if same.len() as i64 != count {
                    pool.incomplete = true;
                    out.push(pool);
                    continue;
                }
                same.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
                all = Some(same);
            }
            build_pool(&mut pool, list, all, f);
        }
        if f.binding_conditions && f.device_status && pool.slices.iter().any(|s| has_binding_device(s)) {
            binding.push(pool);
        } else {
            out.push(pool);
        }
    }
    out.extend(binding);
    out
}

/// `buildPool` (1.35+): device slices, counter sets and their validation.
fn build_pool<'a>(
    pool: &mut Pool<'a>,
    slices: Vec<&'a dra::ResourceSlice>,
    all: Option<Vec<&'a dra::ResourceSlice>>,
    f: &AllocFeatures,
) {
    let has_counters = |s: &dra::ResourceSlice| s.spec.shared_counters.as_ref().is_some_and(|c| !c.is_empty());
    let (counter_slices, device_slices): (Vec<_>, Vec<_>) = if f.partitionable {
        slices.into_iter().partition(|s| has_counters(s))
    } else {
        (Vec::new(), slices)
    };
    if let Some(why) = duplicate_device(&device_slices) {
        pool.invalid = Some(why);
        return;
    }
    pool.slices = device_slices;
    if !f.partitionable {
        return;
    }
    let counter_source: Vec<&dra::ResourceSlice> = match &all {
        Some(all) => all.iter().copied().filter(|s| has_counters(s)).collect(),
        None => counter_slices,
    };
    for s in counter_source {
        for set in s.spec.shared_counters.iter().flatten() {
            if pool.counter_sets.contains_key(&set.name) {
                pool.invalid = Some(format!("duplicate counter set name {}", set.name));
                return;
            }
            pool.counter_sets.insert(
                set.name.clone(),
                set.counters
                    .iter()
                    .map(|(k, c)| (k.clone(), quantity(&c.value.0)))
                    .collect(),
            );
        }
    }
    if let Some(all) = all {
        pool.other_slices = all
            .into_iter()
            .filter(|s| !has_counters(s) && !pool.slices.iter().any(|t| t.metadata.name == s.metadata.name))
            .collect();
    }
    let check = |d: &dra::Device| -> Option<String> {
        for c in d.consumes_counters.iter().flatten() {
            let Some(set) = pool.counter_sets.get(&c.counter_set) else {
                return Some(format!("counter set {} not found", c.counter_set));
            };
            for k in c.counters.keys() {
                if !set.contains_key(k) {
                    return Some(format!("counter {k} not found in counter set {}", c.counter_set));
                }
            }
        }
        None
    };
    let invalid = pool
        .slices
        .iter()
        .chain(pool.other_slices.iter())
        .flat_map(|s| s.spec.devices.iter().flatten())
        .find_map(check);
    if invalid.is_some() {
        pool.invalid = invalid;
    }
}

/// A claim's request or subrequest, as the search uses it.
#[derive(Debug)]
struct RequestData<'a> {
    /// The request's name, or `request/subrequest`.
    full_name: String,
    /// The request's own name.
    base: String,
    /// The subrequest's name, for a subrequest.
    sub: Option<String>,
    class: &'a dra::DeviceClass,
    selectors: Vec<&'a str>,
    admin_access: bool,
    tolerations: &'a [dra::DeviceToleration],
    capacity: Option<&'a BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
    /// ExactCount's count, or All's device count.
    num: usize,
    /// All: the matching devices (pool, slice, device indexes).
    all: Option<Vec<(usize, usize, usize)>>,
}

/// One constraint of a claim.
#[derive(Debug)]
enum Constraint {
    Match {
        requests: BTreeSet<String>,
        attr: String,
        value: Option<AttrValue>,
        count: usize,
    },
    Distinct {
        requests: BTreeSet<String>,
        attr: String,
        /// Per request, the value and the device it came from.
        values: BTreeMap<String, (AttrValue, DeviceId)>,
        /// 1.34 compares the values' pointers (`attribute.StringValue == attr.StringValue`,
        /// fixed in 1.35), so only the same device's attribute is a duplicate.
        by_device: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum AttrValue {
    Int(i64),
    Bool(bool),
    Str(String),
    Version(String),
}

fn attr_value(a: &dra::DeviceAttribute) -> Option<AttrValue> {
    if let Some(i) = a.int {
        Some(AttrValue::Int(i))
    } else if let Some(b) = a.bool {
        Some(AttrValue::Bool(b))
    } else if let Some(s) = &a.string {
        Some(AttrValue::Str(s.clone()))
    } else {
        a.version.as_ref().map(|v| AttrValue::Version(v.clone()))
    }
}

/// A device's attribute by its full name: `dom/id`, or the id alone when the domain is the
/// device's driver.
fn lookup_attr(d: &dra::Device, driver: &str, name: &str) -> Option<AttrValue> {
    let attrs = d.attributes.as_ref()?;
    if let Some(a) = attrs.get(name) {
        return attr_value(a);
    }
    let (dom, id) = name.split_once('/')?;
    if dom == driver {
        return attrs.get(id).and_then(attr_value);
    }
    None
}

impl Constraint {
    fn applies(requests: &BTreeSet<String>, base: &str, full: &str) -> bool {
        requests.is_empty() || requests.contains(base) || requests.contains(full)
    }

    fn add(&mut self, base: &str, full: &str, d: &dra::Device, driver: &str, id: &DeviceId) -> bool {
        match self {
            Constraint::Match {
                requests,
                attr,
                value,
                count,
            } => {
                if !Self::applies(requests, base, full) {
                    return true;
                }
                let Some(v) = lookup_attr(d, driver, attr) else {
                    return false;
                };
                if *count == 0 {
                    *value = Some(v);
                    *count = 1;
                    return true;
                }
                if value.as_ref() == Some(&v) {
                    *count += 1;
                    true
                } else {
                    false
                }
            }
            Constraint::Distinct {
                requests,
                attr,
                values,
                by_device,
            } => {
                if !Self::applies(requests, base, full) {
                    return true;
                }
                let Some(v) = lookup_attr(d, driver, attr) else {
                    return false;
                };
                let duplicate = |(x, from): &(AttrValue, DeviceId)| if *by_device { from == id } else { *x == v };
                if values.values().any(duplicate) {
                    return false;
                }
                values.insert(base.to_string(), (v, id.clone()));
                true
            }
        }
    }

    fn remove(&mut self, base: &str, full: &str) {
        match self {
            Constraint::Match { requests, count, .. } => {
                if Self::applies(requests, base, full) {
                    *count = count.saturating_sub(1);
                }
            }
            Constraint::Distinct { requests, values, .. } => {
                if Self::applies(requests, base, full) {
                    values.remove(base);
                }
            }
        }
    }
}

/// What the search needs besides the claims.
pub(crate) struct Inputs<'a> {
    /// The release's rules.
    pub rules: Rules,
    /// Enabled features.
    pub features: AllocFeatures,
    /// Devices in use.
    pub allocated: &'a AllocatedState,
    /// DeviceClasses by name.
    pub classes: &'a BTreeMap<String, dra::DeviceClass>,
    /// Every ResourceSlice, by name.
    pub slices: &'a [&'a dra::ResourceSlice],
    /// Compiled selectors.
    pub cel: &'a Compiler,
    /// [`crate::engine::release::Change::DraCelErrorNamesDevice`] (1.37).
    pub cel_error_names_device: bool,
    /// [`crate::engine::release::Change::DraAllModePoolFailsNode`] (1.38).
    pub all_mode_pool_fails_node: bool,
    /// [`crate::engine::release::Change::DraLiveShareBlocksDedicated`] (1.38).
    pub live_share_blocks_dedicated: bool,
    /// [`crate::engine::release::Change::DraCapacityNamesQualified`] (1.38).
    pub qualified_capacity_names: bool,
}

/// A claim to allocate: its `namespace/name` (for messages) and spec.
pub(crate) struct ClaimToAllocate<'a> {
    /// `KObj(claim)`.
    pub key: String,
    /// The claim's device requests and constraints.
    pub spec: &'a dra::DeviceClaim,
}

#[derive(Debug)]
enum Stop {
    MaxSize,
    Err(String),
}

type Slot = (usize, usize, usize, usize);

struct Search<'a, 'p> {
    inp: &'p Inputs<'a>,
    node: &'p NodeView<'p>,
    pools: Vec<Pool<'a>>,
    claims: &'p [ClaimToAllocate<'a>],
    /// (claim, request, sub) → data.
    requests: HashMap<(usize, usize, usize), RequestData<'a>>,
    constraints: Vec<Vec<Constraint>>,
    allocating: HashMap<DeviceId, BTreeSet<usize>>,
    allocating_capacity: HashMap<DeviceId, BTreeMap<String, i128>>,
    /// Counters consumed by the devices being allocated, by [`Search::counters_key`].
    consumed_counters: BTreeMap<String, BTreeMap<String, BTreeMap<String, i128>>>,
    available_counters: BTreeMap<String, BTreeMap<String, BTreeMap<String, i128>>>,
    values: HashMap<(usize, usize, usize), DeviceValue>,
    results: Vec<Vec<DeviceResult>>,
    domains: BTreeSet<String>,
    /// The error [`Search::setup`] returned fails this node only.
    failed_on_node: bool,
}

/// Allocates `claims` on `node` (`Allocator.Allocate`).
pub(crate) fn allocate<'a>(inp: &Inputs<'a>, node: &NodeView<'_>, claims: &[ClaimToAllocate<'a>]) -> Outcome {
    let pools = gather_pools(node, inp.slices, inp.rules, &inp.features);
    let mut domains = BTreeSet::new();
    for c in inp.classes.values() {
        for s in class_selectors(c) {
            if let Some(cel) = &s.cel {
                indexed_domains(&cel.expression, &mut domains);
            }
        }
    }
    for c in claims {
        for r in c.spec.requests.iter().flatten() {
            let sels = r.exactly.iter().flat_map(|e| e.selectors.iter().flatten()).chain(
                r.first_available
                    .iter()
                    .flatten()
                    .flat_map(|s| s.selectors.iter().flatten()),
            );
            for s in sels {
                if let Some(cel) = &s.cel {
                    indexed_domains(&cel.expression, &mut domains);
                }
            }
        }
    }
    let mut s = Search {
        inp,
        node,
        pools,
        claims,
        requests: HashMap::new(),
        constraints: Vec::new(),
        allocating: HashMap::new(),
        allocating_capacity: HashMap::new(),
        consumed_counters: BTreeMap::new(),
        available_counters: BTreeMap::new(),
        values: HashMap::new(),
        results: vec![Vec::new(); claims.len()],
        domains,
        failed_on_node: false,
    };
    if let Err(e) = s.setup() {
        return if s.failed_on_node {
            Outcome::FailedOnNode(e)
        } else {
            Outcome::Error(e)
        };
    }
    match s.one((0, 0, 0, 0), false) {
        Err(Stop::Err(e)) => Outcome::Error(e),
        Err(Stop::MaxSize) | Ok(false) => {
            if inp.rules != Rules::V134 && s.pools.iter().any(|p| p.invalid.is_some()) {
                Outcome::InvalidPools
            } else {
                Outcome::Unsatisfiable
            }
        }
        Ok(true) => Outcome::Allocated(s.results),
    }
}

impl<'a> Search<'a, '_> {
    fn class(&self, claim: &str, req: &str, name: &str) -> Result<&'a dra::DeviceClass, String> {
        if name.is_empty() {
            return Err(format!(
                "claim {claim}, request {req}: missing device class name (unsupported request type?)"
            ));
        }
        self.inp
            .classes
            .get(name)
            .ok_or_else(|| format!("claim {claim}, request {req}: could not retrieve device class {name}: deviceclass.resource.k8s.io \"{name}\" not found"))
    }

    #[allow(clippy::too_many_arguments)]
    fn request_data(
        &mut self,
        ci: usize,
        ri: usize,
        sub: usize,
        base: &str,
        sub_name: Option<&str>,
        mode: Option<&str>,
        count: Option<i64>,
        class: &str,
        selectors: Option<&'a Vec<dra::DeviceSelector>>,
        admin: Option<bool>,
        tolerations: Option<&'a Vec<dra::DeviceToleration>>,
        capacity: Option<&'a dra::CapacityRequirements>,
    ) -> Result<usize, String> {
        let claim = self.claims[ci].key.clone();
        let shown = sub_name.unwrap_or(base);
        let mut sels = Vec::new();
        for (k, s) in selectors.into_iter().flatten().enumerate() {
            match &s.cel {
                Some(c) => sels.push(c.expression.as_str()),
                None => {
                    return Err(format!(
                        "claim {claim}, request {shown}, selector #{k}: CEL expression empty (unsupported selector type?)"
                    ));
                }
            }
        }
        if !self.inp.features.admin_access && admin.is_some() {
            return Err(format!(
                "claim {claim}, request {shown}: admin access is requested, but the feature is disabled"
            ));
        }
        let class = self.class(&claim, shown, class)?;
        let full_name = match sub_name {
            Some(s) => format!("{base}/{s}"),
            None => base.to_string(),
        };
        let mut rd = RequestData {
            full_name,
            base: base.to_string(),
            sub: sub_name.map(str::to_string),
            class,
            selectors: sels,
            admin_access: admin == Some(true),
            tolerations: tolerations.map_or(&[], Vec::as_slice),
            capacity: capacity.and_then(|c| c.requests.as_ref()),
            num: 0,
            all: None,
        };
        if self.inp.rules == Rules::V135 {
            rd.capacity = None;
        }
        match mode.unwrap_or("ExactCount") {
            "ExactCount" => {
                let n = count.unwrap_or(1);
                rd.num = usize::try_from(n)
                    .map_err(|_| format!("claim {claim}, request {shown}: exact count {n} is too large"))?;
            }
            "All" => {
                let mut all = Vec::new();
                let shape: Vec<(bool, bool, String, Vec<usize>)> = self
                    .pools
                    .iter()
                    .map(|p| {
                        (
                            p.incomplete,
                            p.invalid.is_some(),
                            p.id(),
                            p.slices
                                .iter()
                                .map(|s| s.spec.devices.as_ref().map_or(0, Vec::len))
                                .collect(),
                        )
                    })
                    .collect();
                for (pi, (incomplete, invalid, id, slices)) in shape.into_iter().enumerate() {
                    // 1.38 wraps these two errors in ErrFailedAllocationOnNode (#141898).
                    self.failed_on_node = (incomplete || invalid) && self.inp.all_mode_pool_fails_node;
                    if incomplete {
                        return Err(format!(
                            "claim {claim}, request {shown}: asks for all devices, but resource pool {id} is currently being updated"
                        ));
                    }
                    if invalid {
                        return Err(format!(
                            "claim {claim}, request {shown}: asks for all devices, but resource pool {id} is currently invalid"
                        ));
                    }
                    for (si, n) in slices.into_iter().enumerate() {
                        for di in 0..n {
                            if self.selectable(ci, &rd, (pi, si, di))? && self.capacity_fits(&rd, (pi, si, di)) {
                                all.push((pi, si, di));
                            }
                        }
                    }
                }
                rd.num = all.len();
                rd.all = Some(all);
            }
            other => {
                return Err(format!(
                    "claim {claim}, request {shown}: unsupported count mode {other}"
                ));
            }
        }
        let n = rd.num;
        self.requests.insert((ci, ri, sub), rd);
        Ok(n)
    }

    fn setup(&mut self) -> Result<(), String> {
        let claims = self.claims;
        for (ci, c) in claims.iter().enumerate() {
            let claim = c.key.clone();
            let mut min_devices = 0usize;
            for (ri, r) in c.spec.requests.iter().flatten().enumerate() {
                let subs = r.first_available.as_deref().unwrap_or(&[]);
                if !subs.is_empty() {
                    if !self.inp.features.prioritized_list {
                        return Err(format!(
                            "claim {claim}, request {}: has subrequests, but the DRAPrioritizedList feature is disabled",
                            r.name
                        ));
                    }
                    if self.inp.rules != Rules::V135
                        && !self.inp.features.consumable_capacity
                        && let Some(s) = subs.iter().find(|s| s.capacity.is_some())
                    {
                        return Err(format!(
                            "claim {claim}, subrequest {}: has capacity requests, but the DRAConsumableCapacity feature is disabled",
                            s.name
                        ));
                    }
                    let mut m = usize::MAX;
                    for (i, s) in subs.iter().enumerate() {
                        let n = self.request_data(
                            ci,
                            ri,
                            i,
                            &r.name,
                            Some(&s.name),
                            s.allocation_mode.as_deref(),
                            s.count,
                            &s.device_class_name,
                            s.selectors.as_ref(),
                            None,
                            s.tolerations.as_ref(),
                            s.capacity.as_ref(),
                        )?;
                        m = m.min(n);
                    }
                    min_devices += m;
                } else if let Some(e) = &r.exactly {
                    if self.inp.rules != Rules::V135 && !self.inp.features.consumable_capacity && e.capacity.is_some() {
                        return Err(format!(
                            "claim {claim}, request {}: has capacity requests, but the DRAConsumableCapacity feature is disabled",
                            r.name
                        ));
                    }
                    min_devices += self.request_data(
                        ci,
                        ri,
                        0,
                        &r.name,
                        None,
                        e.allocation_mode.as_deref(),
                        e.count,
                        &e.device_class_name,
                        e.selectors.as_ref(),
                        e.admin_access,
                        e.tolerations.as_ref(),
                        e.capacity.as_ref(),
                    )?;
                } else {
                    return Err(format!("claim {claim}, request {}: unknown request type", r.name));
                }
            }
            if min_devices > CLAIM_LIMIT {
                return Err(format!(
                    "claim {claim}: number of requested devices {min_devices} exceeds the claim limit of {CLAIM_LIMIT}"
                ));
            }
            let mut cs = Vec::new();
            for (k, con) in c.spec.constraints.iter().flatten().enumerate() {
                let requests: BTreeSet<String> = con.requests.iter().flatten().cloned().collect();
                if let Some(a) = &con.match_attribute {
                    cs.push(Constraint::Match {
                        requests,
                        attr: a.clone(),
                        value: None,
                        count: 0,
                    });
                } else if let (Some(a), false) = (&con.distinct_attribute, self.inp.rules == Rules::V135) {
                    cs.push(Constraint::Distinct {
                        requests,
                        attr: a.clone(),
                        values: BTreeMap::new(),
                        by_device: self.inp.rules == Rules::V134,
                    });
                } else {
                    return Err(format!(
                        "claim {claim}, constraint #{k}: empty constraint (unsupported constraint type?)"
                    ));
                }
            }
            self.constraints.push(cs);
        }
        Ok(())
    }

    fn device(&self, at: (usize, usize, usize)) -> (&'a dra::ResourceSlice, &'a dra::Device) {
        let slice: &'a dra::ResourceSlice = self.pools[at.0].slices[at.1];
        let devices: &'a [dra::Device] = slice.spec.devices.as_deref().unwrap_or(&[]);
        (slice, &devices[at.2])
    }

    fn id(&self, at: (usize, usize, usize)) -> DeviceId {
        let p = &self.pools[at.0];
        let (_, d) = self.device(at);
        (p.driver.to_string(), p.name.to_string(), d.name.clone())
    }

    /// A selector's error as `selectorsMatch` words it: `<whose>: selector #i: CEL ... error:
    /// ...`; from 1.37 (#136709) a runtime error names the device (`selector #i on device
    /// driver/pool/device`) and a missing key gets `EnhanceRuntimeError`'s hint.
    fn selector_error(&self, whose: &str, i: usize, id: &DeviceId, e: &str) -> String {
        match e.strip_prefix("CEL runtime error: ") {
            Some(inner) if self.inp.cel_error_names_device => format!(
                "{whose}: selector #{i} on device {}/{}/{}: CEL runtime error: {}",
                id.0,
                id.1,
                id.2,
                super::cel::enhance_runtime_error(inner)
            ),
            _ => format!("{whose}: selector #{i}: {e}"),
        }
    }

    /// `isSelectable`: binding conditions, the class's selectors, the request's, and
    /// per-device node selection.
    fn selectable(&mut self, ci: usize, rd: &RequestData<'a>, at: (usize, usize, usize)) -> Result<bool, String> {
        let (slice, d) = self.device(at);
        let f = &self.inp.features;
        if d.binding_conditions.as_ref().is_some_and(|b| !b.is_empty()) && !(f.binding_conditions && f.device_status) {
            return Ok(false);
        }
        let consumable = self.consumable();
        let domains = &self.domains;
        let value = self
            .values
            .entry(at)
            .or_insert_with(|| DeviceValue::new(&slice.spec.driver, d, domains, consumable))
            .clone();
        let id = self.id(at);
        for (i, s) in class_selectors(rd.class).enumerate() {
            let Some(cel) = &s.cel else { continue };
            match self.inp.cel.matches(&cel.expression, &value) {
                Ok(true) => {}
                Ok(false) => return Ok(false),
                Err(e) => {
                    let class = rd.class.metadata.name.as_deref().unwrap_or("");
                    return Err(self.selector_error(&format!("class {class}"), i, &id, &e));
                }
            }
        }
        for (i, expr) in rd.selectors.iter().enumerate() {
            match self.inp.cel.matches(expr, &value) {
                Ok(true) => {}
                Ok(false) => return Ok(false),
                Err(e) => {
                    return Err(self.selector_error(&format!("claim {}", self.claims[ci].key), i, &id, &e));
                }
            }
        }
        if slice.spec.per_device_node_selection == Some(true)
            && !node_matches(self.node, d.node_name.as_deref(), d.all_nodes, d.node_selector.as_ref())
        {
            return Ok(false);
        }
        Ok(true)
    }

    /// DRAConsumableCapacity, which 1.35's incubating allocator does not implement.
    fn consumable(&self) -> bool {
        self.inp.features.consumable_capacity && self.inp.rules != Rules::V135
    }

    fn allow_multi(&self, d: &dra::Device) -> bool {
        self.consumable() && d.allow_multiple_allocations == Some(true)
    }

    /// The capacity a request consumes of a device, or None when the device cannot serve it
    /// (`CmpRequestOverCapacity`); devices without capacity requests consume their whole
    /// capacity, which only matters for shared devices.
    fn consumption(&self, rd: &RequestData<'a>, d: &dra::Device, driver: &str) -> Option<BTreeMap<String, i128>> {
        let caps = d.capacity.as_ref();
        let mut out = BTreeMap::new();
        // The device capacity each requested name names.
        let mut requested_of: BTreeMap<&str, i128> = BTreeMap::new();
        if let Some(req) = rd.capacity {
            for (k, q) in req {
                let name = caps.and_then(|c| self.capacity_name(c.keys(), k, driver))?;
                requested_of.insert(name, quantity(&q.0));
            }
        }
        for (name, cap) in caps.into_iter().flatten() {
            let value = quantity(&cap.value.0);
            let requested = requested_of.get(name.as_str()).copied();
            let consumed = match (&cap.request_policy, requested) {
                (Some(p), Some(r)) => policy_round(p, r)?,
                (Some(p), None) => p.default.as_ref().map_or(value, |q| quantity(&q.0)),
                (None, Some(r)) => r,
                (None, None) => value,
            };
            out.insert(name.clone(), consumed);
        }
        Some(out)
    }

    /// The name among a device's capacity `names` that a request's capacity name `k` names:
    /// `k` itself; from 1.38 (#142202) also `k` with or without the device's driver as domain,
    /// the fully-qualified name winning when the device publishes both.
    fn capacity_name<'c>(
        &self,
        names: impl Iterator<Item = &'c String> + Clone,
        k: &str,
        driver: &str,
    ) -> Option<&'c str> {
        if !self.inp.qualified_capacity_names {
            return names.clone().find(|n| n.as_str() == k).map(String::as_str);
        }
        let short = match k.split_once('/') {
            Some((domain, s)) if domain == driver => s,
            Some(_) => return names.clone().find(|n| n.as_str() == k).map(String::as_str),
            None => k,
        };
        let qualified = format!("{driver}/{short}");
        names
            .clone()
            .find(|n| **n == qualified)
            .or_else(|| names.clone().find(|n| n.as_str() == short))
            .map(String::as_str)
    }

    /// Capacity already consumed of device capacity `name` (allocation results keep the name the
    /// slice had then): from 1.38 also under the other form of the name (#142202).
    fn consumed_of(&self, m: Option<&BTreeMap<String, i128>>, name: &str, driver: &str) -> i128 {
        let Some(m) = m else {
            return 0;
        };
        let exact = m.get(name).copied().unwrap_or(0);
        if !self.inp.qualified_capacity_names {
            return exact;
        }
        let other = match name.split_once('/') {
            Some((domain, s)) if domain == driver => s.to_string(),
            Some(_) => return exact,
            None => format!("{driver}/{name}"),
        };
        exact + m.get(&other).copied().unwrap_or(0)
    }

    fn capacity_fits(&self, rd: &RequestData<'a>, at: (usize, usize, usize)) -> bool {
        let (_, d) = self.device(at);
        self.device_capacity_fits(rd, d, &self.id(at))
    }

    /// `CmpRequestOverCapacity` for device `d`, `id`.
    fn device_capacity_fits(&self, rd: &RequestData<'a>, d: &dra::Device, id: &DeviceId) -> bool {
        if !self.consumable() {
            return true;
        }
        let Some(consumed) = self.consumption(rd, d, &id.0) else {
            return false;
        };
        let current = self.inp.allocated.consumed.get(id);
        let pending = self.allocating_capacity.get(id);
        for (name, cap) in d.capacity.iter().flatten() {
            let value = quantity(&cap.value.0);
            let c = consumed.get(name).copied().unwrap_or(0)
                + self.consumed_of(current, name, &id.0)
                + pending.and_then(|m| m.get(name)).copied().unwrap_or(0);
            if c > value {
                return false;
            }
        }
        true
    }

    fn tolerated(&self, rd: &RequestData<'a>, taint: &dra::DeviceTaint) -> bool {
        rd.tolerations.iter().any(|t| {
            let effect_ok = t.effect.as_deref().is_none_or(|e| e.is_empty() || e == taint.effect);
            let key_ok = t.key.as_deref().is_none_or(|k| k.is_empty() || k == taint.key);
            let value_ok = match t.operator.as_deref().unwrap_or("Equal") {
                "" | "Equal" => t.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or(""),
                "Exists" => true,
                _ => false,
            };
            effect_ok && key_ok && value_ok
        })
    }

    fn taint_blocks(&self, rd: &RequestData<'a>, d: &dra::Device) -> bool {
        if !self.inp.features.device_taints {
            return false;
        }
        d.taints.iter().flatten().any(|t| {
            let counted = self.inp.rules == Rules::V134 || matches!(t.effect.as_str(), "NoSchedule" | "NoExecute");
            counted && !self.tolerated(rd, t)
        })
    }

    /// Whose counters a device of `slice` in pool `pi` consumes: its pool's (1.35+), or, at
    /// 1.34, its slice's, by slice name (the slice holds the counter sets its devices consume).
    fn counters_key(&self, pi: usize, slice: &dra::ResourceSlice) -> String {
        if self.inp.rules == Rules::V134 {
            format!("slice {}", slice.metadata.name.as_deref().unwrap_or(""))
        } else {
            format!("pool {}", self.pools[pi].id())
        }
    }

    /// The counters left: the pool's counter sets (1.34: the slice's) less what allocated
    /// devices consume.
    fn available(&mut self, pi: usize, slice: &dra::ResourceSlice) -> BTreeMap<String, BTreeMap<String, i128>> {
        let key = self.counters_key(pi, slice);
        if let Some(a) = self.available_counters.get(&key) {
            return a.clone();
        }
        let pool = &self.pools[pi];
        let (mut avail, slices) = if self.inp.rules == Rules::V134 {
            let sets = slice
                .spec
                .shared_counters
                .iter()
                .flatten()
                .map(|set| {
                    let counters = set.counters.iter().map(|(k, c)| (k.clone(), quantity(&c.value.0)));
                    (set.name.clone(), counters.collect())
                })
                .collect();
            (sets, vec![slice])
        } else {
            let slices = pool.slices.iter().chain(pool.other_slices.iter()).copied().collect();
            (pool.counter_sets.clone(), slices)
        };
        for s in slices {
            for d in s.spec.devices.iter().flatten() {
                let id = (pool.driver.to_string(), pool.name.to_string(), d.name.clone());
                // 1.34 counts devices allocated whole only.
                let shared = self.inp.rules != Rules::V134 && self.inp.allocated.shared.contains(&id);
                if !(self.inp.allocated.devices.contains(&id) || shared) {
                    continue;
                }
                for c in d.consumes_counters.iter().flatten() {
                    if let Some(set) = avail.get_mut(&c.counter_set) {
                        for (k, q) in &c.counters {
                            if let Some(v) = set.get_mut(k) {
                                *v -= quantity(&q.value.0);
                            }
                        }
                    }
                }
            }
        }
        self.available_counters.insert(key, avail.clone());
        avail
    }

    /// Adds the device's counter consumption if enough is left. 1.34 checks the counters its
    /// slice has (a consumed counter set the slice lacks is not checked); 1.35+ every consumed
    /// counter (the pool's validation has checked they exist).
    fn take_counters(&mut self, pi: usize, slice: &dra::ResourceSlice, d: &dra::Device) -> bool {
        let avail = self.available(pi, slice);
        let key = self.counters_key(pi, slice);
        let mut consumed = self.consumed_counters.get(&key).cloned().unwrap_or_default();
        for c in d.consumes_counters.iter().flatten() {
            let set = consumed.entry(c.counter_set.clone()).or_default();
            for (k, q) in &c.counters {
                *set.entry(k.clone()).or_insert(0) += quantity(&q.value.0);
            }
        }
        let ok = if self.inp.rules == Rules::V134 {
            avail.iter().all(|(set, counters)| {
                counters
                    .iter()
                    .all(|(k, a)| consumed.get(set).and_then(|s| s.get(k)).is_none_or(|v| *a >= *v))
            })
        } else {
            consumed.iter().all(|(set, counters)| {
                counters
                    .iter()
                    .all(|(k, v)| avail.get(set).and_then(|s| s.get(k)).is_some_and(|a| *a >= *v))
            })
        };
        if ok {
            self.consumed_counters.insert(key, consumed);
        }
        ok
    }

    fn release_counters(&mut self, pi: usize, slice: &dra::ResourceSlice, d: &dra::Device) {
        let key = self.counters_key(pi, slice);
        if let Some(consumed) = self.consumed_counters.get_mut(&key) {
            for c in d.consumes_counters.iter().flatten() {
                if let Some(set) = consumed.get_mut(&c.counter_set) {
                    for (k, q) in &c.counters {
                        if let Some(v) = set.get_mut(k) {
                            *v -= quantity(&q.value.0);
                        }
                    }
                }
            }
        }
    }

    /// `allocateDevice`: Ok(true) when the device was added to the claim's results. `slot` is
    /// the index of the device among the request's.
    fn allocate_device(
        &mut self,
        ci: usize,
        key: (usize, usize, usize),
        at: (usize, usize, usize),
        slot: usize,
        must: bool,
    ) -> Result<bool, String> {
        let (slice, d) = self.device(at);
        let id = self.id(at);
        let (admin, base, full, sub, tolerations_ok, consumption) = {
            let rd = &self.requests[&key];
            let consumption = if self.consumable() {
                self.consumption(rd, d, &id.0)
            } else {
                Some(BTreeMap::new())
            };
            (
                rd.admin_access,
                rd.base.clone(),
                rd.full_name.clone(),
                rd.sub.clone(),
                !self.taint_blocks(rd, d),
                consumption,
            )
        };
        let _ = sub;
        let multi = self.allow_multi(d);
        let taken_by_claim = self.allocating.get(&id).is_some_and(|s| s.contains(&ci));
        if !multi && admin && taken_by_claim {
            return Ok(false);
        }
        if !admin
            && !multi
            && (self.inp.allocated.devices.contains(&id) || self.allocating.get(&id).is_some_and(|s| !s.is_empty()))
        {
            return Ok(false);
        }
        // 1.38 (#140798): a device that no longer allows multiple allocations but still has a
        // live share (its slice changed) is in use for a dedicated allocation.
        if !admin
            && !multi
            && self.inp.live_share_blocks_dedicated
            && (self.inp.allocated.shared.contains(&id) || self.allocating_capacity.contains_key(&id))
        {
            return Ok(false);
        }
        if !admin && multi && self.inp.allocated.devices.contains(&id) {
            return Ok(false);
        }
        let has_counters = d.consumes_counters.as_ref().is_some_and(|c| !c.is_empty());
        if !self.inp.features.partitionable && has_counters {
            return Ok(false);
        }
        // 1.34 checks the counters of a shared device again for every share.
        let skip_counters = self.inp.rules != Rules::V134
            && multi
            && (self.inp.allocated.shared.contains(&id) || self.allocating_capacity.contains_key(&id));
        let took_counters = !skip_counters && has_counters;
        if took_counters && !self.take_counters(at.0, slice, d) {
            return Ok(false);
        }
        // Upstream does not give the counters back when a later check rejects the device.
        if !tolerations_ok {
            return Ok(false);
        }
        let driver = slice.spec.driver.clone();
        let cons = &mut self.constraints[ci];
        for k in 0..cons.len() {
            if !cons[k].add(&base, &full, d, &driver, &id) {
                if must {
                    return Err(format!(
                        "claim {}, request {}: cannot add device {}/{}/{} because a claim constraint would not be satisfied",
                        self.claims[ci].key, full, id.0, id.1, id.2
                    ));
                }
                for c in cons[..k].iter_mut() {
                    c.remove(&base, &full);
                }
                return Ok(false);
            }
        }
        if !multi {
            self.allocating.entry(id.clone()).or_default().insert(ci);
        }
        if self.consumable() {
            let rd = &self.requests[&key];
            let fits = if self.inp.rules == Rules::V134 {
                // 1.34 checks the device of the slice at the request's device index instead
                // (`slice.Spec.Devices[r.deviceIndex]`, fixed in 1.35), and panics past the end.
                let devices = slice.spec.devices.as_deref().unwrap_or(&[]);
                let Some(other) = devices.get(slot) else {
                    return Err(format!(
                        "runtime error: index out of range [{slot}] with length {}",
                        devices.len()
                    ));
                };
                let other_id = (id.0.clone(), id.1.clone(), other.name.clone());
                self.device_capacity_fits(rd, other, &other_id)
            } else {
                self.capacity_fits(rd, at)
            };
            if !fits {
                // Upstream leaves the constraint and counter bookkeeping in place here.
                return Ok(false);
            }
            if multi && let Some(c) = consumption {
                let e = self.allocating_capacity.entry(id.clone()).or_default();
                for (k, v) in c {
                    *e.entry(k).or_insert(0) += v;
                }
            }
        }
        let tolerations = self.requests[&key]
            .tolerations
            .iter()
            .map(|t| serde_json::to_value(t).unwrap_or_default())
            .collect();
        self.results[ci].push(DeviceResult {
            request: full,
            driver: id.0,
            pool: id.1,
            device: id.2,
            admin_access: admin,
            shared: multi,
            placement: Placement::of(slice, d),
            binds_to_node: d.binds_to_node == Some(true),
            binding_conditions: d.binding_conditions.clone().unwrap_or_default(),
            binding_failure_conditions: d.binding_failure_conditions.clone().unwrap_or_default(),
            tolerations,
        });
        Ok(true)
    }

    fn undo(&mut self, ci: usize, key: (usize, usize, usize), at: (usize, usize, usize)) {
        let (slice, d) = self.device(at);
        let id = self.id(at);
        let (base, full) = {
            let rd = &self.requests[&key];
            (rd.base.clone(), rd.full_name.clone())
        };
        for c in self.constraints[ci].iter_mut() {
            c.remove(&base, &full);
        }
        let multi = self.allow_multi(d);
        if let Some(s) = self.allocating.get_mut(&id) {
            s.remove(&ci);
            if s.is_empty() {
                self.allocating.remove(&id);
            }
        }
        if multi {
            if let Some(consumed) = self.consumption(&self.requests[&key], d, &id.0)
                && let Some(e) = self.allocating_capacity.get_mut(&id)
            {
                for (k, v) in consumed {
                    if let Some(x) = e.get_mut(&k) {
                        *x -= v;
                    }
                }
                if e.values().all(|v| *v == 0) {
                    self.allocating_capacity.remove(&id);
                }
            }
        } else if self.inp.features.partitionable && d.consumes_counters.as_ref().is_some_and(|c| !c.is_empty()) {
            self.release_counters(at.0, slice, d);
        }
        self.results[ci].pop();
    }

    /// The search (`allocator.allocateOne`): claim ci, request ri, subrequest sub, device
    /// slot di.
    fn one(&mut self, r: Slot, alloc_sub: bool) -> Result<bool, Stop> {
        let (ci, ri, sub, di) = r;
        if ci == self.claims.len() {
            return Ok(true);
        }
        let n_requests = self.claims[ci].spec.requests.as_ref().map_or(0, Vec::len);
        if ri == n_requests {
            return match self.one((ci + 1, 0, 0, 0), false) {
                Err(Stop::MaxSize) => Ok(false),
                other => other,
            };
        }
        let key = (ci, ri, sub);
        let has_subs = self.claims[ci]
            .spec
            .requests
            .as_ref()
            .is_some_and(|rs| rs[ri].first_available.as_ref().is_some_and(|f| !f.is_empty()));
        if !alloc_sub && has_subs {
            let mut all_exceeded = true;
            let mut s = 0;
            while self.requests.contains_key(&(ci, ri, s)) {
                match self.one((ci, ri, s, 0), true) {
                    Err(Stop::MaxSize) => {}
                    Err(e) => return Err(e),
                    Ok(true) => return Ok(true),
                    Ok(false) => all_exceeded = false,
                }
                s += 1;
            }
            return if all_exceeded { Err(Stop::MaxSize) } else { Ok(false) };
        }
        let (num, all, admin) = {
            let rd = &self.requests[&key];
            (rd.num, rd.all.clone(), rd.admin_access)
        };
        if let Some(a) = &all
            && a.is_empty()
        {
            return Ok(false);
        }
        if di >= num {
            return self.one((ci, ri + 1, 0, 0), false);
        }
        if self.results[ci].len() + num - di > CLAIM_LIMIT {
            return Err(Stop::MaxSize);
        }
        if let Some(all) = all {
            let at = all[di];
            match self.allocate_device(ci, key, at, di, true) {
                Err(e) => return Err(Stop::Err(e)),
                Ok(false) => return Ok(false),
                Ok(true) => {}
            }
            return match self.one((ci, ri, sub, di + 1), alloc_sub) {
                Ok(true) => Ok(true),
                other => {
                    self.undo(ci, key, at);
                    other
                }
            };
        }
        for pi in 0..self.pools.len() {
            {
                let pool = &self.pools[pi];
                if self.inp.rules == Rules::V134 {
                    if let Some(why) = &pool.invalid {
                        return Err(Stop::Err(format!("pool {} is invalid: {why}", pool.name)));
                    }
                } else if pool.incomplete || pool.invalid.is_some() {
                    continue;
                }
            }
            for si in 0..self.pools[pi].slices.len() {
                let n = self.pools[pi].slices[si].spec.devices.as_ref().map_or(0, Vec::len);
                for dj in 0..n {
                    let at = (pi, si, dj);
                    let id = self.id(at);
                    if admin && self.allocating.get(&id).is_some_and(|s| s.contains(&ci)) {
                        continue;
                    }
                    let (_, d) = self.device(at);
                    if !admin
                        && !self.allow_multi(d)
                        && (self.inp.allocated.devices.contains(&id)
                            || self.allocating.get(&id).is_some_and(|s| !s.is_empty()))
                    {
                        continue;
                    }
                    let rd = self.requests.remove(&key).expect("request data");
                    let sel = self.selectable(ci, &rd, at);
                    let fits = sel.as_ref().is_ok_and(|s| *s) && self.capacity_fits(&rd, at);
                    self.requests.insert(key, rd);
                    match sel {
                        Err(e) => return Err(Stop::Err(e)),
                        Ok(false) => continue,
                        Ok(true) => {}
                    }
                    if !fits {
                        continue;
                    }
                    match self.allocate_device(ci, key, at, di, false) {
                        Err(e) => return Err(Stop::Err(e)),
                        Ok(false) => continue,
                        Ok(true) => {}
                    }
                    match self.one((ci, ri, sub, di + 1), alloc_sub) {
                        Ok(true) => return Ok(true),
                        Ok(false) => self.undo(ci, key, at),
                        Err(e) => {
                            self.undo(ci, key, at);
                            return Err(e);
                        }
                    }
                }
            }
        }
        Ok(false)
    }
}

/// The capacity a request policy gives a request of `r` (rounded up to the range's step, or
/// the first valid value at least `r`), or None when the policy refuses it.
fn policy_round(p: &dra::CapacityRequestPolicy, r: i128) -> Option<i128> {
    if let Some(values) = &p.valid_values {
        let mut vs: Vec<i128> = values.iter().map(|q| quantity(&q.0)).collect();
        vs.sort_unstable();
        return vs.into_iter().find(|v| *v >= r);
    }
    if let Some(range) = &p.valid_range {
        let min = quantity(&range.min.0);
        let mut v = r.max(min);
        if let Some(step) = range.step.as_ref().map(|q| quantity(&q.0)).filter(|s| *s > 0) {
            let over = (v - min) % step;
            if over != 0 {
                v += step - over;
            }
        }
        if let Some(max) = range.max.as_ref().map(|q| quantity(&q.0))
            && v > max
        {
            return None;
        }
        return Some(v);
    }
    Some(r)
}
