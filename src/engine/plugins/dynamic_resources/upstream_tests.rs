//! Cases from upstream's own allocator and CEL tests (k8s.io/dynamic-resource-allocation
//! `structured/internal/allocatortesting` and `cel/compile_test.go`), as data, run against
//! [`super::allocator`] and [`super::cel`].
//!
//! Each allocator case names the implementation and release it runs on upstream, as [`Rules`]:
//! `incubating` at release-1.36 ([`Rules::V136`]), `incubating` at release-1.35
//! ([`Rules::V135`]; a 1.35 case whose features need the experimental allocator, i.e.
//! consumable capacity or binding conditions, runs there and is [`Rules::V136`] here, as
//! [`Rules::of`] says) and `experimental` at release-1.34 ([`Rules::V134`]). A case runs with
//! exactly the features upstream's case lists (a case without features runs with none). Where
//! the data of a case differs between the branches, the 1.34 form is a separate test
//! (`..._1_34`).
//!
//! What is compared: the outcome's kind and, for an allocation, the claims' sets of
//! (request, driver, pool, device, admin access, shared) results, in any order, as upstream's
//! `ConsistOf` matchers compare them, less what kschedtui's allocator does not return from
//! [`allocate`]: the node selector, the device configuration, the tolerations, binding
//! conditions and the consumed capacity of each result (Reserve and PreBind build those
//! elsewhere). kschedtui searches pools sorted by (driver, pool), slices by name and devices
//! in slice order, as 1.36 does; 1.34 and 1.35 take the informer's order, which upstream's
//! tests make the order of the case's list. No case below depends on the difference except
//! where a case says so.
//!
//! Upstream errors are matched by substring (`ContainSubstring`); the substrings below are
//! upstream's, or the whole message where upstream's allocator writes one.
//!
//! Not transcribed:
//! - the `interrupt` cases (timeout, deadline, cancel) and CEL's `TestInterrupt`: a search and
//!   an evaluation here never stop early;
//! - `expectNumAllocateOneInvocations` (the search's statistics) of the `check-combinations-*`
//!   and `prioritized-list-max-allocation-*` cases: their outcomes are transcribed, not the
//!   count of search steps;
//! - the `list-attributes-*` cases and CEL's list-type cases (`list-of-*`, `macro-on-list-*`,
//!   `macro-exists-on-*`, `includes-function-*`, `in-operator-on-list`): DRAListTypeAttributes
//!   is a feature no scheduler release passes to the allocator;
//! - CEL's `expectCost` values and the `expensive` case: the cost limit is not reproduced;
//! - CEL cases with `envType: NewExpressions` (`allow_multiple_allocations_new`,
//!   `allow_multiple_allocations_enabled`, `allow_multiple_allocations_disabled`): the
//!   scheduler always compiles with StoredExpressions; what `allowMultipleAllocations` does
//!   with and without DRAConsumableCapacity is covered by the other `allow_multiple_*` cases.
//!
//! CEL wording that differs from cel-go's (the crate's text is compared on a stable part):
//! - an undeclared identifier is a compile error upstream (`undeclared reference to 'x'`),
//!   here it fails at evaluation (`CEL runtime error: Undeclared reference to 'x'`), the
//!   crate having no compile-time checker; likewise a non-bool result (upstream's compile
//!   error `must evaluate to bool or the unknown type, not int`) is a runtime error `CEL
//!   result of type int could not be converted to bool`;
//! - `cel.bind` (the `bind` case) is not among the crate's macros: it fails here.
//!
//! Cases that are not upstream's say so (`Not an upstream case`): they pin down what the
//! reading of upstream's code behind a 1.34 case showed.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::resource::v1 as dra;
use serde_json::{Value, json};

use super::allocator::{
    AllocFeatures, AllocatedState, ClaimToAllocate, DeviceResult, Inputs, NodeView, Outcome, Rules, allocate,
};
use super::cel::{Compiler, DeviceValue, indexed_domains};
use crate::model::Labels;

mod allocator_cases;
mod cel_cases;

const NODE1: &str = "node-1";
const NODE2: &str = "node-2";
const REGION1: &str = "region-1";
const REGION2: &str = "region-2";
const CLASS_A: &str = "class-a";
const CLASS_B: &str = "class-b";
const A: &str = "driver-a";
const B: &str = "driver-b";
const P1: &str = "pool-1";
const P2: &str = "pool-2";
const P3: &str = "pool-3";
const P4: &str = "pool-4";
const S1: &str = "slice-1";
const S2: &str = "slice-2";
const S3: &str = "slice-3";
const S4: &str = "slice-4";
const R0: &str = "req-0";
const R1: &str = "req-1";
const R2: &str = "req-2";
const R3: &str = "req-3";
const SUB0: &str = "subReq-0";
const SUB1: &str = "subReq-1";
const C0: &str = "claim-0";
const C1: &str = "claim-1";
const D0: &str = "device-0";
const D1: &str = "device-1";
const D2: &str = "device-2";
const D3: &str = "device-3";
const D4: &str = "device-4";
const SET1: &str = "counter-set-1";
const SET2: &str = "counter-set-2";
const CAP0: &str = "capacity-0";
const CAP1: &str = "capacity-1";

/// `driver-a/<name>` attribute names of upstream's constraints.
const BOOL_ATTR: &str = "driver-a/boolAttribute";
const STRING_ATTR: &str = "driver-a/stringAttribute";
const VERSION_ATTR: &str = "driver-a/driverVersion";
const INT_ATTR: &str = "driver-a/numa";

/// A selector on the memory capacity of a driver-a device.
fn memory_at_least(q: &str) -> String {
    format!(r#"device.capacity["{A}"].memory.compareTo(quantity("{q}")) >= 0"#)
}

// ---------------------------------------------------------------------------------------
// Objects.

/// A DeviceClass selecting `expr`.
fn class_expr(name: &str, expr: &str) -> Value {
    json!({"metadata": {"name": name}, "spec": {"selectors": [{"cel": {"expression": expr}}]}})
}

/// A DeviceClass selecting the devices of `driver`.
fn class(name: &str, driver: &str) -> Value {
    class_expr(name, &format!(r#"device.driver == "{driver}""#))
}

/// A DeviceClass selecting the devices of `driver` that allow (or do not allow) multiple
/// allocations.
fn class_multi(name: &str, driver: &str, multi: bool) -> Value {
    class_expr(
        name,
        &format!(r#"device.driver == "{driver}" && device.allowMultipleAllocations == {multi}"#),
    )
}

/// A DeviceClass with an opaque configuration (which [`allocate`] does not return).
fn class_with_config(name: &str, driver: &str, attribute: &str) -> Value {
    let mut c = class(name, driver);
    c["spec"]["config"] =
        json!([{"opaque": {"driver": driver, "parameters": {attribute: format!("{attribute}Value")}}}]);
    c
}

/// Appends `item` to the array at `v` (creating it).
fn push(v: &mut Value, item: Value) {
    if !v.is_array() {
        *v = json!([]);
    }
    v.as_array_mut().expect("array").push(item);
}

/// A device.
#[derive(Clone)]
struct D(Value);

fn dev(name: &str) -> D {
    D(json!({"name": name}))
}

impl D {
    fn attr(mut self, name: &str, v: Value) -> Self {
        self.0["attributes"][name] = v;
        self
    }
    fn string(self, name: &str, s: &str) -> Self {
        self.attr(name, json!({"string": s}))
    }
    fn int(self, name: &str, i: i64) -> Self {
        self.attr(name, json!({"int": i}))
    }
    fn bool(self, name: &str, b: bool) -> Self {
        self.attr(name, json!({"bool": b}))
    }
    fn version(self, name: &str, v: &str) -> Self {
        self.attr(name, json!({"version": v}))
    }
    fn cap(mut self, name: &str, q: &str) -> Self {
        self.0["capacity"][name] = json!({"value": q});
        self
    }
    /// Consumes `counters` of counter set `set`.
    fn consumes(mut self, set: &str, counters: &[(&str, &str)]) -> Self {
        let c: serde_json::Map<String, Value> = counters
            .iter()
            .map(|(k, q)| (k.to_string(), json!({"value": q})))
            .collect();
        push(
            &mut self.0["consumesCounters"],
            json!({"counterSet": set, "counters": c}),
        );
        self
    }
    /// Upstream's `fromCounters`: a capacity for each consumed counter, of the same value.
    fn capacity_from_counters(mut self) -> Self {
        let mut caps = serde_json::Map::new();
        for c in self.0["consumesCounters"].as_array().into_iter().flatten() {
            for (k, v) in c["counters"].as_object().into_iter().flatten() {
                caps.insert(k.clone(), json!({"value": v["value"]}));
            }
        }
        self.0["capacity"] = Value::Object(caps);
        self
    }
    fn taint(mut self, t: Value) -> Self {
        push(&mut self.0["taints"], t);
        self
    }
    fn on_node(mut self, n: &str) -> Self {
        self.0["nodeName"] = json!(n);
        self
    }
    fn on_all_nodes(mut self) -> Self {
        self.0["allNodes"] = json!(true);
        self
    }
    fn on_selector(mut self, s: Value) -> Self {
        self.0["nodeSelector"] = s;
        self
    }
    fn binding(mut self, conditions: &[&str], failures: &[&str]) -> Self {
        self.0["bindingConditions"] = json!(conditions);
        self.0["bindingFailureConditions"] = json!(failures);
        self
    }
    fn binds_to_node(mut self) -> Self {
        self.0["bindsToNode"] = json!(true);
        self
    }
    fn multi(mut self) -> Self {
        self.0["allowMultipleAllocations"] = json!(true);
        self
    }
    /// Upstream's `withCapacityRequestPolicyRange`: default 2, range 2..4 in steps of 2.
    fn range_policy(mut self, name: &str, value: &str) -> Self {
        self.0["capacity"][name] = json!({
            "value": value,
            "requestPolicy": {"default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}}
        });
        self
    }
    /// Upstream's `withCapacityRequestPolicyValidValues`: the default and `extra` are the
    /// valid values.
    fn valid_values(mut self, name: &str, value: &str, default: &str, extra: &[&str]) -> Self {
        let mut values = vec![default];
        values.extend_from_slice(extra);
        self.0["capacity"][name] = json!({
            "value": value,
            "requestPolicy": {"default": default, "validValues": values}
        });
        self
    }
}

/// What a slice targets.
enum At<'a> {
    Node(&'a str),
    AllNodes,
    PerDevice,
    Selector(Value),
}

/// A ResourceSlice.
#[derive(Clone)]
struct S(Value);

fn slice(name: &str, at: At<'_>, pool: &str, driver: &str) -> S {
    let mut v = json!({
        "metadata": {"name": name},
        "spec": {"driver": driver, "pool": {"name": pool, "generation": 1, "resourceSliceCount": 1}}
    });
    match at {
        At::Node(n) => v["spec"]["nodeName"] = json!(n),
        At::AllNodes => v["spec"]["allNodes"] = json!(true),
        At::PerDevice => v["spec"]["perDeviceNodeSelection"] = json!(true),
        At::Selector(s) => v["spec"]["nodeSelector"] = s,
    }
    S(v)
}

/// A slice of `node` with `devices`.
fn node_slice(name: &str, node: &str, pool: &str, driver: &str, devices: Vec<D>) -> S {
    slice(name, At::Node(node), pool, driver).devs(devices)
}

/// Upstream's `sliceWithOneDevice`: one device, `device-1`.
fn one_device(name: &str, at: At<'_>, pool: &str, driver: &str) -> S {
    slice(name, at, pool, driver).devs(vec![dev(D1)])
}

/// Upstream's `sliceWithMultipleDevices`: `device-0` … `device-<n-1>` on node-1.
fn n_devices(name: &str, pool: &str, driver: &str, n: usize) -> S {
    slice(name, At::Node(NODE1), pool, driver).devs((0..n).map(|i| dev(&format!("device-{i}"))).collect())
}

impl S {
    fn count(mut self, n: i64) -> Self {
        self.0["spec"]["pool"]["resourceSliceCount"] = json!(n);
        self
    }
    fn generation(mut self, g: i64) -> Self {
        self.0["spec"]["pool"]["generation"] = json!(g);
        self
    }
    fn devs(mut self, devices: Vec<D>) -> Self {
        self.0["spec"]["devices"] = Value::Array(devices.into_iter().map(|d| d.0).collect());
        self
    }
    fn counter_set(mut self, name: &str, counters: &[(&str, &str)]) -> Self {
        let c: serde_json::Map<String, Value> = counters
            .iter()
            .map(|(k, q)| (k.to_string(), json!({"value": q})))
            .collect();
        push(
            &mut self.0["spec"]["sharedCounters"],
            json!({"name": name, "counters": c}),
        );
        self
    }
}

/// Upstream's `nodeLabelSelector`.
fn label_selector(key: &str, values: &[&str]) -> Value {
    json!({"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": values}]}]})
}

/// Upstream's `localNodeSelector`.
fn field_selector(node: &str) -> Value {
    json!({"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]})
}

/// A request (`exactly`) or a subrequest.
#[derive(Clone)]
struct R(Value);

/// An ExactCount request.
fn req(name: &str, class: &str, count: i64) -> R {
    R(json!({"name": name, "exactly": {"deviceClassName": class, "allocationMode": "ExactCount", "count": count}}))
}

/// An All request.
fn all(name: &str, class: &str) -> R {
    R(json!({"name": name, "exactly": {"deviceClassName": class, "allocationMode": "All"}}))
}

/// An ExactCount subrequest.
fn sub(name: &str, class: &str, count: i64) -> R {
    R(json!({"name": name, "deviceClassName": class, "allocationMode": "ExactCount", "count": count}))
}

/// A request with `firstAvailable` subrequests.
fn first(name: &str, subs: Vec<R>) -> R {
    R(json!({"name": name, "firstAvailable": subs.into_iter().map(|s| s.0).collect::<Vec<_>>()}))
}

impl R {
    fn body(&mut self) -> &mut Value {
        if self.0.get("exactly").is_some() {
            &mut self.0["exactly"]
        } else {
            &mut self.0
        }
    }
    fn sel(mut self, expr: &str) -> Self {
        push(&mut self.body()["selectors"], json!({"cel": {"expression": expr}}));
        self
    }
    /// An empty selector (an unknown future kind of selector).
    fn unknown_sel(mut self) -> Self {
        push(&mut self.body()["selectors"], json!({}));
        self
    }
    fn admin(mut self) -> Self {
        self.body()["adminAccess"] = json!(true);
        self
    }
    fn mode(mut self, m: &str) -> Self {
        self.body()["allocationMode"] = json!(m);
        self
    }
    fn tolerate(mut self, t: Value) -> Self {
        push(&mut self.body()["tolerations"], t);
        self
    }
    /// Upstream's `withCapacityRequest`: `capacity-0`.
    fn capacity(mut self, q: &str) -> Self {
        self.body()["capacity"] = json!({"requests": {CAP0: q}});
        self
    }
    /// Requests `q` of capacity `name`.
    fn capacity_named(mut self, name: &str, q: &str) -> Self {
        self.body()["capacity"] = json!({"requests": {name: q}});
        self
    }
}

/// A claim: its name and spec.
#[derive(Clone)]
struct C(String, Value);

fn claim(name: &str, requests: Vec<R>) -> C {
    C(
        name.to_string(),
        json!({"requests": requests.into_iter().map(|r| r.0).collect::<Vec<_>>()}),
    )
}

/// Upstream's `claimWithRequest`: one ExactCount request of one device.
fn claim1(name: &str, request: &str, class: &str) -> C {
    claim(name, vec![req(request, class, 1)])
}

impl C {
    fn constraint(mut self, c: Value) -> Self {
        push(&mut self.1["constraints"], c);
        self
    }
    fn match_attr(self, attr: &str, requests: &[&str]) -> Self {
        let mut c = json!({"matchAttribute": attr});
        if !requests.is_empty() {
            c["requests"] = json!(requests);
        }
        self.constraint(c)
    }
    fn distinct_attr(self, attr: &str, requests: &[&str]) -> Self {
        let mut c = json!({"distinctAttribute": attr});
        if !requests.is_empty() {
            c["requests"] = json!(requests);
        }
        self.constraint(c)
    }
    /// Upstream's `withTolerations`: every (exactly) request tolerates `t`.
    fn tolerate(mut self, t: Value) -> Self {
        for r in self.1["requests"].as_array_mut().into_iter().flatten() {
            push(&mut r["exactly"]["tolerations"], t.clone());
        }
        self
    }
    fn config(mut self, requests: &[&str], driver: &str, attribute: &str) -> Self {
        let mut c = json!({"opaque": {"driver": driver, "parameters": {attribute: format!("{attribute}Value")}}});
        if !requests.is_empty() {
            c["requests"] = json!(requests);
        }
        push(&mut self.1["config"], c);
        self
    }
}

// Taints and tolerations of upstream's table.
fn taint_none() -> Value {
    json!({"key": "taint-key", "value": "taint-value", "effect": "None"})
}
fn taint_no_schedule() -> Value {
    json!({"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"})
}
fn taint_no_execute() -> Value {
    json!({"key": "taint-key", "value": "taint-value-2", "effect": "NoExecute"})
}
fn toleration_no_schedule() -> Value {
    json!({"operator": "Exists", "key": "taint-key", "effect": "NoSchedule"})
}
fn toleration_no_execute() -> Value {
    json!({"operator": "Equal", "key": "taint-key", "value": "taint-value-2", "effect": "NoExecute"})
}
fn toleration_no_schedule_key1() -> Value {
    json!({"operator": "Exists", "key": "key1", "effect": "NoSchedule"})
}

// ---------------------------------------------------------------------------------------
// Cases.

type Id = (&'static str, &'static str, &'static str);

/// One case's inputs.
#[derive(Default)]
struct Case {
    features: AllocFeatures,
    classes: Vec<Value>,
    slices: Vec<S>,
    claims: Vec<C>,
    /// Devices allocated to some claim (`allocatedDevices`).
    allocated: Vec<Id>,
    /// Capacity consumed by shares of devices (`allocatedCapacityDevices`).
    consumed: Vec<(Id, &'static [(&'static str, &'static str)])>,
    /// Devices with a share allocated (`allocatedSharedDeviceIDs`).
    shared: Vec<Id>,
    /// Node name and region (default node-1 in region-1).
    node: Option<(&'static str, &'static str)>,
}

/// The features of a case, by [`AllocFeatures`] field name.
macro_rules! features {
    ($($f:ident),* $(,)?) => {
        AllocFeatures { $($f: true,)* ..AllocFeatures::default() }
    };
}
use features;

/// One expected result.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Pick {
    request: String,
    driver: String,
    pool: String,
    device: String,
    admin: bool,
    shared: bool,
}

fn p(request: &str, driver: &str, pool: &str, device: &str) -> Pick {
    Pick {
        request: request.into(),
        driver: driver.into(),
        pool: pool.into(),
        device: device.into(),
        admin: false,
        shared: false,
    }
}

impl Pick {
    fn admin(mut self) -> Self {
        self.admin = true;
        self
    }
    /// A share of a device that allows multiple allocations (a result with a share ID).
    fn shared(mut self) -> Self {
        self.shared = true;
        self
    }
}

/// Upstream's `multipleDeviceAllocationResults`: `device-<start>` … of one request.
fn picks_n(request: &str, driver: &str, pool: &str, count: usize, start: usize) -> Vec<Pick> {
    (start..start + count)
        .map(|i| p(request, driver, pool, &format!("device-{i}")))
        .collect()
}

impl From<&DeviceResult> for Pick {
    fn from(r: &DeviceResult) -> Self {
        Pick {
            request: r.request.clone(),
            driver: r.driver.clone(),
            pool: r.pool.clone(),
            device: r.device.clone(),
            admin: r.admin_access,
            shared: r.shared,
        }
    }
}

/// The expected outcome.
#[derive(Debug)]
enum Want {
    /// Every claim allocated: each claim's results, the claims and their results in any
    /// order (upstream's `ConsistOf` of `ConsistOf`s).
    Picks(Vec<Vec<Pick>>),
    /// No allocation (upstream: no results, no error).
    Unsatisfiable,
    /// No allocation and an invalid pool seen (`invalid resource pools were encountered`).
    InvalidPools,
    /// An error containing this text.
    Error(&'static str),
    /// An error containing this text that fails the node only from 1.38
    /// (`ErrFailedAllocationOnNode`, kubernetes#141898): an [`Outcome::Error`] before.
    ErrorOnNode(&'static str),
    /// These results up to 1.37, none from 1.38 (kubernetes#140798).
    PicksUntil138(Vec<Vec<Pick>>),
    /// No allocation up to 1.37, these results from 1.38 (kubernetes#142202).
    PicksFrom138(Vec<Vec<Pick>>),
}

/// Claims' results as a multiset of sets.
fn sorted(claims: impl Iterator<Item = Vec<Pick>>) -> Vec<Vec<Pick>> {
    let mut v: Vec<Vec<Pick>> = claims
        .map(|mut c| {
            c.sort();
            c
        })
        .collect();
    v.sort();
    v
}

/// Runs `case` with each of `rules` and checks the outcome.
fn run(name: &str, rules: &[Rules], case: Case, want: Want) {
    let classes: BTreeMap<String, dra::DeviceClass> = case
        .classes
        .iter()
        .map(|c| {
            let c: dra::DeviceClass = serde_json::from_value(c.clone()).expect("DeviceClass");
            (c.metadata.name.clone().unwrap_or_default(), c)
        })
        .collect();
    let slices: Vec<dra::ResourceSlice> = case
        .slices
        .iter()
        .map(|s| serde_json::from_value(s.0.clone()).expect("ResourceSlice"))
        .collect();
    let slice_refs: Vec<&dra::ResourceSlice> = slices.iter().collect();
    let specs: Vec<dra::DeviceClaim> = case
        .claims
        .iter()
        .map(|c| serde_json::from_value(c.1.clone()).expect("DeviceClaim"))
        .collect();
    let claims: Vec<ClaimToAllocate<'_>> = case
        .claims
        .iter()
        .zip(&specs)
        .map(|(c, spec)| ClaimToAllocate { key: c.0.clone(), spec })
        .collect();
    let id = |(d, p, n): Id| (d.to_string(), p.to_string(), n.to_string());
    let mut allocated = AllocatedState {
        devices: case.allocated.iter().copied().map(id).collect::<BTreeSet<_>>(),
        ..AllocatedState::default()
    };
    for (dev, caps) in &case.consumed {
        let e = allocated.consumed.entry(id(*dev)).or_default();
        for (k, q) in caps.iter() {
            let q = crate::model::quantity::Quantity::parse(q).expect("quantity").nanos();
            *e.entry(k.to_string()).or_insert(0) += q;
        }
        allocated.shared.insert(id(*dev));
    }
    allocated.shared.extend(case.shared.iter().copied().map(id));
    let (node_name, region) = case.node.unwrap_or((NODE1, REGION1));
    let labels: Labels = [("region", region), ("planet", "earth")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let node = NodeView {
        name: node_name,
        labels: &labels,
    };
    for &rules in rules {
        for at_1_38 in [false, true] {
            let cel = Compiler::default();
            let inp = Inputs {
                rules,
                features: case.features,
                allocated: &allocated,
                classes: &classes,
                slices: &slice_refs,
                cel: &cel,
                cel_error_names_device: false,
                all_mode_pool_fails_node: at_1_38,
                live_share_blocks_dedicated: at_1_38,
                qualified_capacity_names: at_1_38,
            };
            let got = allocate(&inp, &node, &claims);
            let ok = match (&want, &got) {
                (Want::Picks(w), Outcome::Allocated(g)) => {
                    sorted(w.iter().cloned()) == sorted(g.iter().map(|c| c.iter().map(Pick::from).collect()))
                }
                (Want::Unsatisfiable, Outcome::Unsatisfiable) | (Want::InvalidPools, Outcome::InvalidPools) => true,
                (Want::Error(w), Outcome::Error(g)) => g.contains(w),
                (Want::ErrorOnNode(w), Outcome::Error(g)) => !at_1_38 && g.contains(w),
                (Want::ErrorOnNode(w), Outcome::FailedOnNode(g)) => at_1_38 && g.contains(w),
                (Want::PicksUntil138(w), Outcome::Allocated(g)) => {
                    !at_1_38
                        && sorted(w.iter().cloned()) == sorted(g.iter().map(|c| c.iter().map(Pick::from).collect()))
                }
                (Want::PicksUntil138(_), Outcome::Unsatisfiable) => at_1_38,
                (Want::PicksFrom138(w), Outcome::Allocated(g)) => {
                    at_1_38 && sorted(w.iter().cloned()) == sorted(g.iter().map(|c| c.iter().map(Pick::from).collect()))
                }
                (Want::PicksFrom138(_), Outcome::Unsatisfiable) => !at_1_38,
                _ => false,
            };
            assert!(
                ok,
                "{name} at {rules:?} (1.38's rules {at_1_38}):\n want {want:?}\n  got {got:?}"
            );
        }
    }
}

/// `#[test]`s from cases: `name: [rules…] case => want;`, each with its doc comment.
macro_rules! cases {
    ($($(#[$m:meta])* $name:ident: [$($r:ident),*] $case:expr => $want:expr;)*) => {
        $(
            $(#[$m])*
            #[test]
            fn $name() {
                run(
                    stringify!($name),
                    &[$(Rules::$r),*],
                    $case,
                    $want,
                );
            }
        )*
    };
}
use cases;

/// Evaluates `expr` on a device of `driver` as the allocator does (the selector's literal
/// domains filled in), with `device.allowMultipleAllocations` declared when
/// `consumable_capacity`.
fn cel_eval(expr: &str, driver: &str, device: Value, consumable_capacity: bool) -> Result<bool, String> {
    let mut d = device;
    d["name"] = json!("device");
    let d: dra::Device = serde_json::from_value(d).expect("Device");
    let mut domains = BTreeSet::new();
    indexed_domains(expr, &mut domains);
    let v = DeviceValue::new(driver, &d, &domains, consumable_capacity);
    Compiler::default().matches(expr, &v)
}
