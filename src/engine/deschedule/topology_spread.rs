//! RemovePodsViolatingTopologySpreadConstraint
//! (pkg/framework/plugins/removepodsviolatingtopologyspreadconstraint/topologyspreadconstraint.go,
//! v0.36). A Balance plugin. It lists the pods of the cycle's nodes that have not finished and
//! pass its filter (the evictor's Filter, the plugin's namespaces and labelSelector), groups
//! them by namespace, and collects per namespace the distinct topology spread constraints its
//! pods declare whose whenUnsatisfiable is among the plugin's `constraints`.
//!
//! For each constraint:
//! - The domains are the values of the topology key on the nodes its node inclusion policies
//!   admit. nodeAffinityPolicy (Honor by default) applies the declaring pod's nodeSelector and
//!   required node affinity. nodeTaintsPolicy (Ignore by default) applies its tolerations of
//!   NoSchedule and NoExecute taints.
//! - The pods counted are the listed pods that are not terminating, match its selector (with
//!   matchLabelKeys merged from the declaring pod), and sit on a node with the key. A pod on an
//!   excluded node still counts in its node's domain.
//! - The constraint is skipped when no two domains differ by more than maxSkew. Otherwise the
//!   domains are sorted by size, ascending, and the ideal average is the pods counted divided by
//!   the domains. Walking from the smallest (i) and the largest (j): j steps down when it has no
//!   more than the average. i steps up when j is within maxSkew of it. Otherwise j gives the
//!   least of ceil(j − average), ceil(average − i) and ceil((skew − maxSkew) / 2). These pods
//!   are taken from the end of j's list and added to i's list, so the walk continues as if they
//!   had moved.
//! - A domain's pods are ordered non-evictable first, then pods with a nodeSelector or node
//!   affinity, each group by ascending priority. Before pods are taken from j, its pods that fit
//!   some node of a domain below the average (`PodFitsAnyOtherNode`, the descheduler's NodeFit)
//!   are moved to the end. With topologyBalanceNodeFit (true by default), a taken pod that fits
//!   none of those nodes is not evicted, but still counts as moved.
//!
//! Then every pod chosen is filtered again, passed through the evictor's PreEvictionFilter and
//! evicted. A node limit skips that node's other pods, and the total limit ends the plugin.
//!
//! Where upstream iterates Go maps, kschedtui uses name order, and says so where it happens:
//! namespaces, domains (in value order before the size sort) and the chosen pods. Where
//! upstream sorts unstably (`sort.Slice`), kschedtui sorts stably: domains of equal size stay
//! in value order, and pods of equal rank stay in listing order (node by node, key order on a
//! node). Upstream's comparator answers "less" both ways for two evictable pods of equal set
//! priority, so its order there is its sort algorithm's artefact. Priorities are the resolved
//! ones (see the module [`super`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;

use super::Ctx;
use super::evictor::{node_fit, untolerated_hard_taint};
use super::limits::EvictError;
use super::pods::PodFilter;
use super::policy::TopologySpreadArgs;
use crate::model::selector::{NodeSelectorMatcher, Op, Requirement, Selector};
use crate::model::{Node, ObjectKey, Pod, Toleration};

/// `topologySpreadConstraint`: a constraint parsed against the pod that declares it. Two
/// constraints are the same (`hasIdenticalConstraints`) when every field is equal.
#[derive(Clone, Debug, PartialEq)]
struct Constraint {
    max_skew: i32,
    topology_key: String,
    /// The selector with matchLabelKeys merged, requirements in canonical order.
    selector: Selector,
    affinity_honored: bool,
    taints_honored: bool,
    /// The declaring pod's non-empty nodeSelector (affinity honored).
    node_selector: Option<BTreeMap<String, String>>,
    /// Its required node affinity (affinity honored).
    required: Option<core::NodeSelector>,
    /// Its tolerations (taints honored).
    tolerations: Vec<Toleration>,
}

fn canonical(selector: Selector) -> Selector {
    match selector {
        Selector::Nothing => Selector::Nothing,
        Selector::Requirements(mut r) => {
            r.sort_by_cached_key(|q| (q.key.clone(), format!("{:?}", q.op), q.values.clone()));
            Selector::Requirements(r)
        }
    }
}

impl Constraint {
    /// `newTopologySpreadConstraint`.
    fn new(c: &core::TopologySpreadConstraint, pod: &Pod) -> Self {
        let mut selector = Selector::from_label_selector(c.label_selector.as_ref());
        if let Some(keys) = c.match_label_keys.as_ref().filter(|k| !k.is_empty())
            && pod.obj.metadata.labels.is_some()
        {
            for k in keys {
                if let Some(v) = pod.labels.get(k) {
                    selector.push(Requirement {
                        key: k.clone(),
                        op: Op::In,
                        values: vec![v.clone()],
                    });
                }
            }
        }
        let affinity_honored = c.node_affinity_policy.as_deref().unwrap_or("Honor") == "Honor";
        let taints_honored = c.node_taints_policy.as_deref().unwrap_or("Ignore") == "Honor";
        let spec = pod.spec();
        Constraint {
            max_skew: c.max_skew,
            topology_key: c.topology_key.clone(),
            selector: canonical(selector),
            affinity_honored,
            taints_honored,
            node_selector: spec.node_selector.clone().filter(|m| affinity_honored && !m.is_empty()),
            required: spec
                .affinity
                .as_ref()
                .and_then(|a| a.node_affinity.as_ref())
                .and_then(|n| n.required_during_scheduling_ignored_during_execution.clone())
                .filter(|_| affinity_honored),
            tolerations: if taints_honored {
                pod.tolerations.to_vec()
            } else {
                Vec::new()
            },
        }
    }

    /// `matchNodeInclusionPolicies`.
    fn includes(&self, node: &Node) -> bool {
        if self.affinity_honored {
            if let Some(ns) = &self.node_selector
                && !Selector::from_map(ns).matches(&node.labels)
            {
                return false;
            }
            if let Some(req) = &self.required
                && !NodeSelectorMatcher::new(req).matches(&node.labels, &node.name)
            {
                return false;
            }
        }
        !(self.taints_honored && untolerated_hard_taint(&self.tolerations, &node.taints).is_some())
    }

    fn describe(&self, ns: &str) -> String {
        format!(
            "constraint topologyKey {} maxSkew {} (namespace {ns})",
            self.topology_key, self.max_skew
        )
    }
}

/// One domain: the topology value and its pods.
struct Domain {
    value: String,
    pods: Vec<Arc<Pod>>,
}

/// `hasSelectorOrAffinity`: a nodeSelector (even empty) or a node affinity.
fn has_selector_or_affinity(p: &Pod) -> bool {
    let spec = p.spec();
    spec.node_selector.is_some() || spec.affinity.as_ref().is_some_and(|a| a.node_affinity.is_some())
}

/// `topologyIsBalanced`: no two domains differ by more than maxSkew.
fn is_balanced(domains: &BTreeMap<String, Vec<Arc<Pod>>>, max_skew: i32) -> bool {
    let sizes = domains.values().map(Vec::len);
    let (Some(min), Some(max)) = (sizes.clone().min(), sizes.max()) else {
        return true;
    };
    i64::try_from(max - min).unwrap_or(i64::MAX) <= i64::from(max_skew)
}

/// `sortDomains`: each domain's pods ordered non-evictable first, then with a selector or
/// affinity first, then by ascending priority; the domains by ascending size. Both sorts are
/// stable over value order and listing order.
fn sort_domains(domains: BTreeMap<String, Vec<Arc<Pod>>>, evictable: impl Fn(&Pod) -> bool) -> Vec<Domain> {
    let mut out: Vec<Domain> = domains
        .into_iter()
        .map(|(value, mut pods)| {
            pods.sort_by_cached_key(|p| (evictable(p), !has_selector_or_affinity(p), p.priority));
            Domain { value, pods }
        })
        .collect();
    out.sort_by_key(|d| d.pods.len());
    out
}

/// `PodFitsAnyOtherNode`: the pod passes NodeFit on one of `nodes` other than its own.
fn fits_any_other_node(by_node: &BTreeMap<String, Vec<Arc<Pod>>>, pod: &Pod, nodes: &[Arc<Node>]) -> bool {
    nodes
        .iter()
        .any(|n| pod.node_name.as_deref() != Some(n.name.as_str()) && node_fit(by_node, pod, n).is_ok())
}

fn sizes(domains: &[Domain]) -> String {
    domains
        .iter()
        .map(|d| format!("{}={}", d.value, d.pods.len()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Balance.
pub fn balance(ctx: &mut Ctx<'_>, args: &TopologySpreadArgs, nodes: &[Arc<Node>]) {
    let filter = PodFilter::new(args.common.namespaces.as_ref(), args.common.label_selector.as_ref());
    // The namespaces in name order (upstream: a Go map); pods in listing order.
    let mut by_ns: BTreeMap<String, Vec<Arc<Pod>>> = BTreeMap::new();
    for n in nodes {
        for p in ctx.pods_on(&n.name) {
            if filter.rejects(&p).is_none() && ctx.filter(&p).is_ok() {
                by_ns.entry(p.key.namespace.to_string()).or_default().push(p);
            }
        }
    }
    let node_map: BTreeMap<&str, &Arc<Node>> = nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    // The pods to evict, by key (upstream: a Go map), with why.
    let mut chosen: BTreeMap<ObjectKey, (Arc<Pod>, String)> = BTreeMap::new();
    for (ns, pods) in &by_ns {
        let mut constraints: Vec<Constraint> = Vec::new();
        for p in pods {
            for c in p.spec().topology_spread_constraints.iter().flatten() {
                if !args.constraints.contains(&c.when_unsatisfiable) {
                    continue;
                }
                let tsc = Constraint::new(c, p);
                if !constraints.contains(&tsc) {
                    constraints.push(tsc);
                }
            }
        }
        for tsc in &constraints {
            // The domains in value order (upstream: a Go map).
            let mut domains: BTreeMap<String, Vec<Arc<Pod>>> = BTreeMap::new();
            for n in nodes {
                if let Some(v) = n.labels.get(&tsc.topology_key)
                    && tsc.includes(n)
                {
                    domains.entry(v.clone()).or_default();
                }
            }
            let mut counted = 0usize;
            for p in pods {
                if p.terminating || !tsc.selector.matches(&p.labels) {
                    continue;
                }
                let Some(node) = p.node_name.as_deref().and_then(|n| node_map.get(n)) else {
                    continue;
                };
                let Some(v) = node.labels.get(&tsc.topology_key) else {
                    continue;
                };
                domains.entry(v.clone()).or_default().push(p.clone());
                counted += 1;
            }
            if is_balanced(&domains, tsc.max_skew) {
                let list = domains
                    .iter()
                    .map(|(v, p)| format!("{v}={}", p.len()))
                    .collect::<Vec<_>>()
                    .join(", ");
                ctx.note(format!("{}: already balanced ({list})", tsc.describe(ns)));
                continue;
            }
            balance_domains(
                ctx,
                &mut chosen,
                tsc,
                ns,
                domains,
                counted,
                nodes,
                args.topology_balance_node_fit,
            );
        }
    }
    let mut node_limited: BTreeSet<String> = BTreeSet::new();
    for (p, reason) in chosen.into_values() {
        let node = p.node_name.as_deref().unwrap_or_default().to_string();
        if node_limited.contains(&node) {
            continue;
        }
        if filter.rejects(&p).is_some() {
            continue;
        }
        if let Err(why) = ctx.filter(&p) {
            ctx.protected(&p, reason, why);
            continue;
        }
        if let Err(why) = ctx.pre_eviction_filter(&p) {
            ctx.protected(&p, reason, vec![why]);
            continue;
        }
        match ctx.evict(&p, reason) {
            Ok(()) => {}
            Err(EvictError::Node) => {
                node_limited.insert(node);
            }
            Err(EvictError::Total) => return,
            Err(_) => {}
        }
    }
}

/// `balanceDomains`.
#[allow(clippy::too_many_arguments)]
fn balance_domains(
    ctx: &mut Ctx<'_>,
    chosen: &mut BTreeMap<ObjectKey, (Arc<Pod>, String)>,
    tsc: &Constraint,
    ns: &str,
    domains: BTreeMap<String, Vec<Arc<Pod>>>,
    counted: usize,
    nodes: &[Arc<Node>],
    topology_balance_node_fit: bool,
) {
    let count = domains.len();
    if count < 2 {
        return;
    }
    #[allow(clippy::cast_precision_loss)]
    let ideal = counted as f64 / count as f64;
    let mut sorted = {
        let c = &*ctx;
        sort_domains(domains, |p| c.filter(p).is_ok())
    };
    ctx.note(format!(
        "{}: domains {}, ideal average {ideal:.2}",
        tsc.describe(ns),
        sizes(&sorted)
    ));
    // `filterNodesBelowIdealAvg` over `filterEligibleNodes`.
    let below_values: BTreeSet<&str> = sorted
        .iter()
        .filter(|d| (d.pods.len() as f64) < ideal)
        .map(|d| d.value.as_str())
        .collect();
    let below: Vec<Arc<Node>> = nodes
        .iter()
        .filter(|n| tsc.includes(n))
        .filter(|n| {
            n.labels
                .get(&tsc.topology_key)
                .is_some_and(|v| below_values.contains(v.as_str()))
        })
        .cloned()
        .collect();
    let mut i = 0usize;
    let mut j = count - 1;
    while i < j {
        if (sorted[j].pods.len() as f64) <= ideal {
            j -= 1;
        }
        let (len_i, len_j) = (sorted[i].pods.len(), sorted[j].pods.len());
        #[allow(clippy::cast_possible_wrap)]
        let skew = len_j as i64 - len_i as i64;
        if skew <= i64::from(tsc.max_skew) {
            i += 1;
            continue;
        }
        let above_avg = (len_j as f64 - ideal).ceil();
        let below_avg = (ideal - len_i as f64).ceil();
        let half_skew = ((skew - i64::from(tsc.max_skew)) as f64 / 2.0).ceil();
        #[allow(clippy::cast_possible_truncation)]
        let move_pods = above_avg.min(below_avg).min(half_skew) as i64;
        if move_pods <= 0 {
            i += 1;
            continue;
        }
        let fits: BTreeMap<ObjectKey, bool> = sorted[j]
            .pods
            .iter()
            .map(|p| (p.key.clone(), fits_any_other_node(&ctx.by_node, p, &below)))
            .collect();
        // Pods that fit a node below the average go last, where pods are taken from.
        sorted[j]
            .pods
            .sort_by_key(|p| fits.get(&p.key).copied().unwrap_or(false));
        let take = usize::try_from(move_pods).unwrap_or(usize::MAX).min(len_j);
        let taken: Vec<Arc<Pod>> = sorted[j].pods.split_off(len_j - take);
        let reason = format!(
            "{}: domain {key}={} has {len_j} matching pods, {skew} more than {key}={} ({len_i}) with maxSkew {}; ideal average {ideal:.2}, moving {take}",
            tsc.describe(ns),
            sorted[j].value,
            sorted[i].value,
            tsc.max_skew,
            key = tsc.topology_key,
        );
        for p in &taken {
            if topology_balance_node_fit && !fits.get(&p.key).copied().unwrap_or(false) {
                ctx.skipped(
                    p,
                    reason.clone(),
                    "ignoring pod for eviction as it does not fit on any other node (topologyBalanceNodeFit)".into(),
                );
                continue;
            }
            chosen
                .entry(p.key.clone())
                .or_insert_with(|| (p.clone(), reason.clone()));
        }
        sorted[i].pods.extend(taken);
    }
}

#[cfg(test)]
mod tests {
    //! topologyspreadconstraint_test.go at v0.36: TestTopologySpreadConstraint (every case, each
    //! asserting the pods evicted; upstream asserts the count and, for some cases, the names),
    //! TestSortDomains and TestCheckIdenticalConstraints.

    use k8s_openapi::api::core::v1 as core;
    use serde_json::{Value, json};

    use super::*;
    use crate::engine::deschedule::policy::TOPOLOGY_SPREAD;
    use crate::engine::deschedule::testutil::*;

    const DNS: &str = "DoNotSchedule";
    const SA: &str = "ScheduleAnyway";

    /// `testPodList`.
    #[derive(Default, Clone)]
    struct List {
        count: usize,
        node: &'static str,
        labels: Vec<(&'static str, &'static str)>,
        constraints: Vec<core::TopologySpreadConstraint>,
        node_selector: Vec<(&'static str, &'static str)>,
        /// A required node affinity `key op values`.
        affinity: Option<(&'static str, &'static str, Vec<&'static str>)>,
        no_owners: bool,
        /// Tolerations (key, value, effect).
        tolerations: Vec<(&'static str, &'static str, &'static str)>,
        deleting: bool,
    }

    /// `createTestPods`: pod-0, pod-1, ... in namespace ns1, 100m each, owned by a ReplicaSet.
    fn create(lists: &[List]) -> Vec<core::Pod> {
        let mut out = Vec::new();
        let mut n = 0;
        for l in lists {
            for _ in 0..l.count {
                let mut p = in_namespace(pod(&format!("pod-{n}"), 100, 0, l.node), "ns1");
                p = labels(p, &l.labels);
                if !l.no_owners {
                    p = rs_owned(p);
                }
                if !l.constraints.is_empty() {
                    p.spec.as_mut().unwrap().topology_spread_constraints = Some(l.constraints.clone());
                }
                if !l.node_selector.is_empty() {
                    p = node_selector(p, &l.node_selector);
                }
                if let Some((k, op, v)) = &l.affinity {
                    p = required_node_affinity(p, k, op, v);
                }
                for (k, v, e) in &l.tolerations {
                    p = tolerate(p, k, v, e);
                }
                if l.deleting {
                    p = terminating(p);
                }
                out.push(p);
                n += 1;
            }
        }
        out
    }

    fn zone(name: &str, cpu: i64, pods: i64, z: &str) -> core::Node {
        node_labels(node(name, cpu, 2000, pods), &[("zone", z)])
    }

    fn zones(names: &[(&str, &str)]) -> Vec<core::Node> {
        names
            .iter()
            .map(|(n, z)| node_labels(node(n, 2000, 3000, 10), &[("zone", z)]))
            .collect()
    }

    /// `getDefaultTopologyConstraints(maxSkew)`: zone, DoNotSchedule, foo=bar.
    fn default_c(max_skew: i32) -> Vec<core::TopologySpreadConstraint> {
        vec![spread_constraint(max_skew, "zone", DNS, &[("foo", "bar")])]
    }

    /// `getDefaultNodeTopologyConstraints(maxSkew)`: topologyKey node.
    fn node_c(max_skew: i32) -> Vec<core::TopologySpreadConstraint> {
        vec![spread_constraint(max_skew, "node", DNS, &[("foo", "bar")])]
    }

    fn foo() -> Vec<(&'static str, &'static str)> {
        vec![("foo", "bar")]
    }

    fn l(count: usize, node: &'static str) -> List {
        List {
            count,
            node,
            labels: foo(),
            ..Default::default()
        }
    }

    fn lc(count: usize, node: &'static str, constraints: Vec<core::TopologySpreadConstraint>) -> List {
        List {
            constraints,
            ..l(count, node)
        }
    }

    /// Runs the plugin with `args` and DefaultEvictor `nodeFit`; the evicted pods' names.
    fn run(nodes: Vec<core::Node>, pods: Vec<core::Pod>, args: Value, node_fit: bool) -> Vec<String> {
        let pol = policy("balance", TOPOLOGY_SPREAD, args, json!({"nodeFit": node_fit}));
        evicted(cluster(nodes, pods), &pol, 0).0
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_string()).collect()
    }

    fn six_os_nodes(extra: bool) -> Vec<core::Node> {
        let mut v = vec![];
        for (n, host, os) in [
            ("n1", "linNodeA", "linux"),
            ("n2", "linNodeB", "linux"),
            ("n3", "linNodeC", "linux"),
            ("n4", "winNodeA", "windows"),
            ("n5", "winNodeB", "windows"),
            ("n6", "winNodeC", "windows"),
        ] {
            v.push(node_labels(node(n, 2000, 3000, 10), &[("node", host), ("os", os)]));
        }
        if extra {
            v.push(node_labels(
                node("n7", 2000, 3000, 10),
                &[("node", "winNodeD"), ("os", "windows")],
            ));
        }
        v
    }

    fn win(count: usize, node: &'static str, sel: (&'static str, &'static str)) -> List {
        List {
            node_selector: vec![sel],
            ..lc(count, node, node_c(1))
        }
    }

    /// "2 domains, sizes [2,1], maxSkew=1, move 0 pods"
    #[test]
    fn two_domains_2_1_move_0() {
        let pods = create(&[lc(1, "n1", default_c(1)), l(1, "n1"), l(1, "n2")]);
        assert!(run(zones(&[("n1", "zoneA"), ("n2", "zoneB")]), pods, json!({}), false).is_empty());
    }

    /// "2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2]"
    #[test]
    fn two_domains_3_1_move_1() {
        let pods = create(&[lc(1, "n1", default_c(1)), l(2, "n1"), l(1, "n2")]);
        assert_eq!(
            run(zones(&[("n1", "zoneA"), ("n2", "zoneB")]), pods, json!({}), false),
            names(&["pod-2"])
        );
    }

    /// "2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2] (both constraints)" and
    /// "(soft constraints)" (the same case upstream).
    #[test]
    fn two_domains_3_1_move_1_soft_constraint_allowed() {
        let pods = create(&[
            lc(1, "n1", vec![spread_constraint(1, "zone", SA, &[("foo", "bar")])]),
            l(2, "n1"),
            l(1, "n2"),
        ]);
        assert_eq!(
            run(
                zones(&[("n1", "zoneA"), ("n2", "zoneB")]),
                pods,
                json!({"constraints": [DNS, SA]}),
                false
            ),
            names(&["pod-2"])
        );
    }

    /// Not upstream: the same soft constraint with the default `constraints` (DoNotSchedule
    /// only) is not balanced.
    #[test]
    fn soft_constraint_ignored_by_default() {
        let pods = create(&[
            lc(1, "n1", vec![spread_constraint(1, "zone", SA, &[("foo", "bar")])]),
            l(2, "n1"),
            l(1, "n2"),
        ]);
        assert!(run(zones(&[("n1", "zoneA"), ("n2", "zoneB")]), pods, json!({}), false).is_empty());
    }

    /// "2 domains, sizes [3,1], maxSkew=1, no pods eligible, move 0 pods"
    #[test]
    fn two_domains_3_1_no_pods_eligible() {
        let bare = |mut x: List| {
            x.no_owners = true;
            x
        };
        let pods = create(&[bare(lc(1, "n1", default_c(1))), bare(l(2, "n1")), bare(l(1, "n2"))]);
        assert!(run(zones(&[("n1", "zoneA"), ("n2", "zoneB")]), pods, json!({}), false).is_empty());
    }

    /// "2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2], exclude kube-system namespace"
    #[test]
    fn two_domains_3_1_exclude_kube_system() {
        let pods = create(&[lc(1, "n1", default_c(1)), l(2, "n1"), l(1, "n2")]);
        assert_eq!(
            run(
                zones(&[("n1", "zoneA"), ("n2", "zoneB")]),
                pods,
                json!({"namespaces": {"exclude": ["kube-system"]}}),
                true
            ),
            names(&["pod-2"])
        );
    }

    /// "2 domains, sizes [5,2], maxSkew=1, move 1 pod to achieve [4,3]"
    #[test]
    fn two_domains_5_2_move_1() {
        let pods = create(&[lc(1, "n1", default_c(1)), l(4, "n1"), l(2, "n2")]);
        assert_eq!(
            run(zones(&[("n1", "zoneA"), ("n2", "zoneB")]), pods, json!({}), false),
            names(&["pod-4"])
        );
    }

    /// "2 domains, sizes [4,0], maxSkew=1, move 2 pods to achieve [2,2]"
    #[test]
    fn two_domains_4_0_move_2() {
        let pods = create(&[lc(1, "n1", default_c(1)), l(3, "n1")]);
        assert_eq!(
            run(zones(&[("n1", "zoneA"), ("n2", "zoneB")]), pods, json!({}), false),
            names(&["pod-2", "pod-3"])
        );
    }

    /// "2 domains, sizes [4,0], maxSkew=1, only move 1 pod since pods with nodeSelector and
    /// nodeAffinity aren't evicted"
    #[test]
    fn two_domains_4_0_selector_and_affinity_pods_stay() {
        let sel = |x: List| List {
            node_selector: vec![("zone", "zoneA")],
            ..x
        };
        let pods = create(&[
            sel(lc(1, "n1", default_c(1))),
            sel(lc(1, "n1", default_c(1))),
            List {
                affinity: Some(("foo", "In", vec!["bar"])),
                ..lc(1, "n1", default_c(1))
            },
            lc(1, "n1", default_c(1)),
        ]);
        assert_eq!(
            run(zones(&[("n1", "zoneA"), ("n2", "zoneB")]), pods, json!({}), true),
            names(&["pod-3"])
        );
    }

    /// "6 domains, sizes [0,0,0,3,3,2], maxSkew=1, No pod is evicted since topology is balanced"
    #[test]
    fn six_domains_balanced_over_the_nodes_the_selector_admits() {
        let os = ("os", "windows");
        let pods = create(&[win(3, "n4", os), win(3, "n5", os), win(2, "n6", os)]);
        assert!(run(six_os_nodes(false), pods, json!({}), false).is_empty());
    }

    /// "7 domains, sizes [0,0,0,3,3,2], maxSkew=1, two pods are evicted and moved to new node added"
    #[test]
    fn seven_domains_two_pods_move_to_the_new_node() {
        let os = ("os", "windows");
        let pods = create(&[win(3, "n4", os), win(3, "n5", os), win(2, "n6", os)]);
        assert_eq!(
            run(six_os_nodes(true), pods, json!({}), false),
            names(&["pod-2", "pod-5"])
        );
    }

    /// "6 domains, sizes [0,0,0,4,3,1], maxSkew=1, 1 pod is evicted from node 4"
    #[test]
    fn six_domains_4_3_1_one_from_node_4() {
        let os = ("os", "windows");
        let pods = create(&[win(4, "n4", os), win(3, "n5", os), win(1, "n6", os)]);
        assert_eq!(run(six_os_nodes(false), pods, json!({}), false), names(&["pod-3"]));
    }

    /// "6 domains, sizes [0,0,0,4,3,1], maxSkew=1, 0 pod is evicted as pods of node:winNodeA
    /// can only be scheduled on this node and nodeFit is true "
    #[test]
    fn six_domains_pods_pinned_to_their_node_stay() {
        let os = ("os", "windows");
        let pods = create(&[win(4, "n4", ("node", "winNodeA")), win(3, "n5", os), win(1, "n6", os)]);
        assert!(run(six_os_nodes(false), pods, json!({}), true).is_empty());
    }

    /// "2 domains, sizes [4,0], maxSkew=1, move 2 pods since selector matches multiple nodes"
    #[test]
    fn two_domains_4_0_selector_matching_both_nodes() {
        let boston = |x: List| List {
            node_selector: vec![("region", "boston")],
            ..x
        };
        let pods = create(&[
            boston(lc(1, "n1", default_c(1))),
            boston(l(1, "n1")),
            boston(l(1, "n1")),
            boston(l(1, "n1")),
        ]);
        let nodes = vec![
            node_labels(node("n1", 2000, 3000, 10), &[("zone", "zoneA"), ("region", "boston")]),
            node_labels(node("n2", 2000, 3000, 10), &[("zone", "zoneB"), ("region", "boston")]),
        ];
        assert_eq!(run(nodes, pods, json!({}), false), names(&["pod-2", "pod-3"]));
    }

    /// "3 domains, sizes [0, 1, 100], maxSkew=1, move 66 pods to get [34, 33, 34]"
    #[test]
    fn three_domains_0_1_100_move_66() {
        let pods = create(&[lc(1, "n2", default_c(1)), l(100, "n3")]);
        let got = run(
            zones(&[("n1", "zoneA"), ("n2", "zoneB"), ("n3", "zoneC")]),
            pods,
            json!({}),
            false,
        );
        // n3's pods in key order give their last 66 (34 to zoneA, then 32 to zoneB).
        let mut on_n3: Vec<String> = (1..=100).map(|i| format!("pod-{i}")).collect();
        on_n3.sort();
        assert_eq!(got, on_n3[34..].to_vec());
    }

    /// "4 domains, sizes [0, 1, 3, 5], should move 3 to get [2, 2, 3, 2]"
    #[test]
    fn four_domains_0_1_3_5_move_3() {
        let pods = create(&[lc(1, "n2", default_c(1)), l(3, "n3"), l(5, "n4")]);
        let nodes = zones(&[("n1", "zoneA"), ("n2", "zoneB"), ("n3", "zoneC"), ("n4", "zoneD")]);
        assert_eq!(run(nodes, pods, json!({}), false), names(&["pod-6", "pod-7", "pod-8"]));
    }

    /// "2 domains size [2 6], maxSkew=2, should move 1 to get [3 5]"
    #[test]
    fn two_domains_2_6_max_skew_2_move_1() {
        let pods = create(&[lc(1, "n1", default_c(2)), l(1, "n1"), l(6, "n2")]);
        assert_eq!(
            run(zones(&[("n1", "zoneA"), ("n2", "zoneB")]), pods, json!({}), false),
            names(&["pod-7"])
        );
    }

    /// "2 domains size [2 6], maxSkew=2, can't move any because of node taints"
    #[test]
    fn two_domains_2_6_node_taints() {
        let pods = create(&[
            lc(1, "n1", vec![spread_constraint(2, "zone", DNS, &[("foo", "bar")])]),
            l(1, "n1"),
            l(6, "n2"),
        ]);
        let mut nodes = zones(&[("n1", "zoneA"), ("n2", "zoneB")]);
        nodes[0] = taint(nodes[0].clone(), "hardware", "gpu", "NoSchedule");
        assert!(run(nodes, pods, json!({}), true).is_empty());
    }

    /// "2 domains size [2 6], maxSkew=2, can't move any because node1 does not have enough CPU"
    #[test]
    fn two_domains_2_6_not_enough_cpu() {
        let pods = create(&[lc(1, "n1", default_c(2)), l(1, "n1"), l(6, "n2")]);
        let nodes = vec![
            node_labels(node("n1", 200, 3000, 10), &[("zone", "zoneA")]),
            node_labels(node("n2", 2000, 3000, 10), &[("zone", "zoneB")]),
        ];
        assert!(run(nodes, pods, json!({}), true).is_empty());
    }

    /// "Multiple constraints (6 nodes/2 zones, 4 pods)" (descheduler issue 564)
    #[test]
    fn multiple_constraints_six_nodes_two_zones() {
        let key = "topology.kubernetes.io/zone";
        let host = "kubernetes.io/hostname";
        let cs = vec![
            spread_constraint(1, key, SA, &[("app", "whoami")]),
            spread_constraint(1, host, DNS, &[("app", "whoami")]),
        ];
        let whoami = |node: &'static str| List {
            count: 1,
            node,
            labels: vec![("app", "whoami")],
            constraints: cs.clone(),
            ..Default::default()
        };
        let pods = create(&[whoami("n1"), whoami("n2"), whoami("n3"), whoami("n4")]);
        let nodes = ["n1", "n2", "n3", "n4", "n5", "n6"]
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let z = if i < 3 { "zoneA" } else { "zoneB" };
                node_labels(node(n, 2000, 3000, 10), &[(key, z), (host, n)])
            })
            .collect();
        assert_eq!(
            run(nodes, pods, json!({"constraints": [DNS, SA]}), false),
            names(&["pod-2"])
        );
    }

    /// "3 domains size [8 7 0], maxSkew=1, should move 5 to get [5 5 5]" (upstream names the pods)
    #[test]
    fn three_domains_8_7_0_move_5() {
        let pods = create(&[lc(8, "n1", default_c(1)), lc(7, "n2", default_c(1))]);
        assert_eq!(
            run(
                zones(&[("n1", "zoneA"), ("n2", "zoneB"), ("n3", "zoneC")]),
                pods,
                json!({}),
                false
            ),
            names(&["pod-5", "pod-6", "pod-7", "pod-8", "pod-9"])
        );
    }

    /// "3 domains size [5 5 5], maxSkew=1, should move 0 to retain [5 5 5]"
    #[test]
    fn three_domains_5_5_5_move_0() {
        let pods = create(&[
            lc(5, "n1", default_c(1)),
            lc(5, "n2", default_c(1)),
            lc(5, "n3", default_c(1)),
        ]);
        let nodes = zones(&[("n1", "zoneA"), ("n2", "zoneB"), ("n3", "zoneC")]);
        assert!(run(nodes, pods, json!({}), false).is_empty());
    }

    fn tainted_b(effect: &str) -> Vec<core::Node> {
        let mut nodes = zones(&[("n1", "zoneA"), ("n2", "zoneB")]);
        nodes[1] = taint(nodes[1].clone(), "taint-test", "test", effect);
        nodes
    }

    fn pinned_a() -> List {
        List {
            node_selector: vec![("zone", "zoneA")],
            ..l(1, "n1")
        }
    }

    /// "2 domains, sizes [2,0], maxSkew=1, move 1 pod since pod tolerates the node with taint"
    #[test]
    fn two_domains_2_0_pod_tolerates_the_tainted_node() {
        let pods = create(&[
            List {
                tolerations: vec![("taint-test", "test", "NoSchedule")],
                ..lc(1, "n1", default_c(1))
            },
            pinned_a(),
        ]);
        assert_eq!(run(tainted_b("NoSchedule"), pods, json!({}), false), names(&["pod-0"]));
    }

    /// "2 domains, sizes [2,0], maxSkew=1, move 0 pods since pod does not tolerate the tainted node"
    #[test]
    fn two_domains_2_0_pod_does_not_tolerate_the_tainted_node() {
        let pods = create(&[lc(1, "n1", default_c(1)), pinned_a()]);
        assert!(run(tainted_b("NoSchedule"), pods, json!({}), false).is_empty());
    }

    /// "2 domains, sizes [2,0], maxSkew=1, move 0 pods since pod does not tolerate the tainted
    /// node, and NodeFit is enabled"
    #[test]
    fn two_domains_2_0_pod_does_not_tolerate_the_tainted_node_node_fit() {
        let pods = create(&[lc(1, "n1", default_c(1)), pinned_a()]);
        assert!(run(tainted_b("NoSchedule"), pods, json!({}), true).is_empty());
    }

    /// "2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with PreferNoSchedule Taint"
    #[test]
    fn two_domains_2_0_prefer_no_schedule_taint() {
        let pods = create(&[lc(1, "n1", default_c(1)), pinned_a()]);
        assert_eq!(
            run(tainted_b("PreferNoSchedule"), pods, json!({}), false),
            names(&["pod-0"])
        );
    }

    fn selector(op: &str, values: &[&str]) -> Value {
        json!({"labelSelector": {"matchExpressions": [{"key": "foo", "operator": op, "values": values}]}})
    }

    /// "2 domains, sizes [2,0], maxSkew=1, move 0 pod for node with unmatched label filtering"
    #[test]
    fn two_domains_2_0_unmatched_label_filtering() {
        let pods = create(&[lc(1, "n1", default_c(1)), l(1, "n1")]);
        let nodes = zones(&[("n1", "zoneA"), ("n2", "zoneB")]);
        assert!(run(nodes, pods, selector("In", &["baz"]), false).is_empty());
    }

    /// "2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with matched label filtering"
    #[test]
    fn two_domains_2_0_matched_label_filtering() {
        let pods = create(&[lc(1, "n1", default_c(1)), l(1, "n1")]);
        let nodes = zones(&[("n1", "zoneA"), ("n2", "zoneB")]);
        assert_eq!(run(nodes, pods, selector("In", &["bar"]), false), names(&["pod-1"]));
    }

    /// "2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with matched label filtering (NotIn op)"
    #[test]
    fn two_domains_2_0_matched_label_filtering_not_in() {
        let pods = create(&[lc(1, "n1", default_c(1)), l(1, "n1")]);
        let nodes = zones(&[("n1", "zoneA"), ("n2", "zoneB")]);
        assert_eq!(run(nodes, pods, selector("NotIn", &["baz"]), false), names(&["pod-1"]));
    }

    fn hashed(hash: &'static str) -> List {
        let mut c = default_c(1);
        c[0].match_label_keys = Some(vec!["pod-template-hash".into()]);
        List {
            labels: vec![("foo", "bar"), ("pod-template-hash", hash)],
            ..lc(1, "n1", c)
        }
    }

    /// "2 domains, sizes [2,0], maxSkew=1, move 1 pods given matchLabelKeys on same replicaset"
    #[test]
    fn two_domains_2_0_match_label_keys_same_replicaset() {
        let pods = create(&[hashed("foo"), hashed("foo")]);
        let nodes = zones(&[("n1", "zoneA"), ("n2", "zoneB")]);
        assert_eq!(run(nodes, pods, selector("NotIn", &["baz"]), false), names(&["pod-1"]));
    }

    /// "2 domains, sizes [2,0], maxSkew=1, move 0 pods given matchLabelKeys on two different replicasets"
    #[test]
    fn two_domains_2_0_match_label_keys_two_replicasets() {
        let pods = create(&[hashed("foo"), hashed("bar")]);
        let nodes = zones(&[("n1", "zoneA"), ("n2", "zoneB")]);
        assert!(run(nodes, pods, selector("NotIn", &["baz"]), false).is_empty());
    }

    /// "2 domains, sizes [4,2], maxSkew=1, 2 pods in termination; nothing should be moved"
    #[test]
    fn two_domains_4_2_two_terminating() {
        let pods = create(&[
            lc(2, "n1", default_c(1)),
            List {
                deleting: true,
                ..lc(2, "n1", default_c(1))
            },
            lc(2, "n2", default_c(1)),
        ]);
        let nodes = zones(&[("n1", "zoneA"), ("n2", "zoneB")]);
        assert!(run(nodes, pods, selector("In", &["bar"]), false).is_empty());
    }

    fn cpu_short_zone_a() -> (Vec<core::Node>, Vec<core::Pod>) {
        let nodes = vec![
            zone("n1", 250, 9, "zoneA"),
            zone("n2", 1000, 9, "zoneB"),
            zone("n3", 1000, 9, "zoneC"),
        ];
        let pods = create(&[
            lc(2, "n1", default_c(1)),
            lc(3, "n2", default_c(1)),
            lc(4, "n3", default_c(1)),
        ]);
        (nodes, pods)
    }

    /// "3 domains, sizes [2,3,4], maxSkew=1, NodeFit is enabled, and not enough cpu on zoneA;
    /// nothing should be moved"
    #[test]
    fn three_domains_2_3_4_not_enough_cpu_in_zone_a() {
        let (nodes, pods) = cpu_short_zone_a();
        assert!(run(nodes, pods, json!({}), true).is_empty());
    }

    /// "3 domains, sizes [2,3,4], maxSkew=1, args.NodeFit is false, and not enough cpu on zoneA;
    /// 1 should be moved to force scale-up"
    #[test]
    fn three_domains_2_3_4_topology_balance_node_fit_false() {
        let (nodes, pods) = cpu_short_zone_a();
        assert_eq!(
            run(nodes, pods, json!({"topologyBalanceNodeFit": false}), true),
            names(&["pod-8"])
        );
    }

    /// "3 domains, sizes [[1,0], [1,1], [2,1]], maxSkew=1, NodeFit is enabled, and not enough
    /// cpu on ZoneA; nothing should be moved"
    #[test]
    fn three_domains_of_two_nodes_not_enough_cpu_in_zone_a() {
        let nodes = vec![
            zone("A1", 150, 9, "zoneA"),
            zone("B1", 1000, 9, "zoneB"),
            zone("C1", 1000, 9, "zoneC"),
            zone("A2", 50, 9, "zoneA"),
            zone("B2", 1000, 9, "zoneB"),
            zone("C2", 1000, 9, "zoneC"),
        ];
        let pods = create(&[
            lc(1, "A1", default_c(1)),
            lc(1, "B1", default_c(1)),
            lc(1, "B2", default_c(1)),
            lc(2, "C1", default_c(1)),
            lc(1, "C2", default_c(1)),
        ]);
        assert!(run(nodes, pods, json!({}), true).is_empty());
    }

    /// "2 domains, sizes [[1,4], [2,1]], maxSkew=1, NodeFit is enabled; should move 1"
    #[test]
    fn two_domains_of_two_nodes_move_1() {
        let nodes = vec![
            zone("A1", 1000, 9, "zoneA"),
            zone("A2", 1000, 9, "zoneA"),
            zone("B1", 1000, 9, "zoneB"),
            zone("B2", 1000, 9, "zoneB"),
        ];
        let pods = create(&[
            lc(1, "A1", default_c(1)),
            lc(4, "A2", default_c(1)),
            lc(2, "B1", default_c(1)),
            lc(1, "B2", default_c(1)),
        ]);
        assert_eq!(run(nodes, pods, json!({}), true), names(&["pod-4"]));
    }

    /// "2 domains, sizes [3, 1], maxSkew=1, Tainted nodes; nothing should be moved"
    /// (descheduler issue 839)
    #[test]
    fn tainted_nodes_outside_the_affinity_are_not_domains() {
        let host = "kubernetes.io/hostname";
        let nodes = vec![
            taint(
                taint(
                    node_labels(
                        node("controlplane1", 2000, 3000, 10),
                        &[("zone", "zoneA"), (host, "cp-1")],
                    ),
                    "node-role.kubernetes.io/controlplane",
                    "true",
                    "NoSchedule",
                ),
                "node-role.kubernetes.io/etcd",
                "true",
                "NoSchedule",
            ),
            taint(
                node_labels(
                    node("infraservices1", 2000, 3000, 10),
                    &[("zone", "zoneA"), ("infra_service", "true"), (host, "infra-1")],
                ),
                "infra_service",
                "",
                "NoSchedule",
            ),
            node_labels(
                node("app1", 2000, 3000, 10),
                &[("zone", "zoneA"), ("app_service", "true"), (host, "app-1")],
            ),
            node_labels(
                node("app2", 2000, 3000, 10),
                &[("zone", "zoneB"), ("app_service", "true"), (host, "app-2")],
            ),
        ];
        let svc = |node: &'static str| List {
            count: 2,
            node,
            labels: vec![("app.kubernetes.io/name", "service")],
            constraints: vec![spread_constraint(
                1,
                host,
                DNS,
                &[("app.kubernetes.io/name", "service")],
            )],
            affinity: Some(("app_service", "Exists", vec![])),
            ..Default::default()
        };
        let pods = create(&[svc("app1"), svc("app2")]);
        assert!(run(nodes, pods, json!({}), true).is_empty());
    }

    /// "3 domains, sizes [2, 1, 0] with selectors, maxSkew=1, nodeTaintsPolicy=Ignore, should
    /// move 1 for [1, 1, 1]" (the constraints set nodeAffinityPolicy Ignore)
    #[test]
    fn three_domains_2_1_0_node_affinity_policy_ignore() {
        let arch = "kubernetes.io/arch";
        let nodes = ["A1", "B1", "C1"]
            .iter()
            .zip(["zoneA", "zoneB", "zoneC"])
            .map(|(n, z)| node_labels(node(n, 1000, 2000, 9), &[("zone", z), (arch, "arm64")]))
            .collect();
        let mut c = default_c(1);
        c[0].node_affinity_policy = Some("Ignore".into());
        let pods = create(&[
            List {
                node_selector: vec![(arch, "arm64")],
                ..lc(1, "A1", c.clone())
            },
            List {
                node_selector: vec![("zone", "zoneA"), (arch, "arm64")],
                ..lc(1, "A1", c.clone())
            },
            List {
                node_selector: vec![(arch, "arm64")],
                ..lc(1, "B1", c)
            },
        ]);
        assert_eq!(run(nodes, pods, json!({}), false), names(&["pod-0"]));
    }

    /// Not upstream: the trace states the domains and why each pod was chosen.
    #[test]
    fn trace_states_domains_and_reasons() {
        let pods = create(&[lc(1, "n1", default_c(1)), l(3, "n1")]);
        let pol = policy("balance", TOPOLOGY_SPREAD, json!({}), json!({}));
        let (_, r) = evicted(cluster(zones(&[("n1", "zoneA"), ("n2", "zoneB")]), pods), &pol, 0);
        assert_eq!(
            r.runs[0].notes,
            vec!["constraint topologyKey zone maxSkew 1 (namespace ns1): domains zoneB=0, zoneA=4, ideal average 2.00"]
        );
        assert_eq!(
            r.runs[0].candidates[0].reason,
            "constraint topologyKey zone maxSkew 1 (namespace ns1): domain zone=zoneA has 4 matching pods, 4 more than zone=zoneB (0) with maxSkew 1; ideal average 2.00, moving 2"
        );
    }

    /// Not upstream: the total limit stops the evictions, in key order.
    #[test]
    fn total_limit_applies_in_key_order() {
        let pods = create(&[lc(1, "n1", default_c(1)), l(3, "n1")]);
        let pol = policy_with_limits(
            "balance",
            TOPOLOGY_SPREAD,
            json!({}),
            json!({}),
            json!({"maxNoOfPodsToEvictTotal": 1}),
        );
        let (got, _) = evicted(cluster(zones(&[("n1", "zoneA"), ("n2", "zoneB")]), pods), &pol, 0);
        assert_eq!(got, names(&["pod-2"]));
    }

    /// Not upstream: the replacements of the evicted pods, scheduled by the default profile
    /// (PodTopologySpread among its plugins), land in the empty zone.
    #[test]
    fn replacements_land_in_the_empty_zone() {
        use crate::engine::deschedule::reschedule::{landed, reschedule};
        use crate::engine::framework::runtime::Framework;
        use crate::engine::release::{Features, Release};
        let pods = create(&[lc(4, "n1", default_c(1))]);
        let pol = policy("balance", TOPOLOGY_SPREAD, json!({}), json!({}));
        let (got, cycle) = evicted(cluster(zones(&[("n1", "zoneA"), ("n2", "zoneB")]), pods), &pol, 0);
        assert_eq!(got, names(&["pod-2", "pod-3"]));
        let fw = Framework::default_profile(Release::NEWEST).unwrap();
        let features: Features = Release::NEWEST.into();
        let (replacements, _) = reschedule(&cycle, &[fw], &features, 10);
        assert_eq!(
            landed(&replacements),
            vec![
                ("ns1/pod-2".to_string(), "n2".to_string()),
                ("ns1/pod-3".to_string(), "n2".to_string())
            ]
        );
    }

    /// Not upstream: a policy enabling the plugin runs through `run_cycle` (it used to be
    /// refused as not reproduced).
    #[test]
    fn run_cycle_runs_the_plugin_from_a_policy_file() {
        let doc: Value = serde_yaml::from_str(
            "apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: spread
  pluginConfig:
  - name: RemovePodsViolatingTopologySpreadConstraint
    args:
      constraints: [DoNotSchedule]
  plugins:
    balance:
      enabled: [RemovePodsViolatingTopologySpreadConstraint]
",
        )
        .unwrap();
        let (pol, _) = crate::engine::deschedule::policy::read(&doc).unwrap();
        let pods = create(&[lc(1, "n1", default_c(1)), l(3, "n1")]);
        let c = cluster(zones(&[("n1", "zoneA"), ("n2", "zoneB")]), pods);
        let r = crate::engine::deschedule::run_cycle(c, &pol, k8s_openapi::jiff::Timestamp::UNIX_EPOCH).unwrap();
        assert_eq!(r.runs.len(), 1);
        assert_eq!(r.runs[0].plugin, TOPOLOGY_SPREAD);
        let got: Vec<String> = r.evicted.iter().map(|(p, _)| p.key.name.to_string()).collect();
        assert_eq!(got, names(&["pod-2", "pod-3"]));
    }

    fn annotated(name: &str, evictable: bool, prio: Option<i32>) -> core::Pod {
        let mut p = annotations(
            pod(name, 0, 0, ""),
            &[("evictable", if evictable { "true" } else { "false" })],
        );
        if let Some(v) = prio {
            p = priority(p, v);
        }
        p
    }

    fn sorted_names(domains: Vec<(&str, Vec<core::Pod>)>) -> Vec<(String, Vec<String>)> {
        let map = domains
            .into_iter()
            .map(|(v, pods)| {
                let mut models = model_pods(pods.clone());
                // model_pods sorts by key; keep the order as written.
                let order: Vec<String> = pods.iter().map(|p| p.metadata.name.clone().unwrap()).collect();
                models.sort_by_key(|m| order.iter().position(|n| *n == m.key.name));
                (v.to_string(), models)
            })
            .collect();
        let evictable = |p: &Pod| {
            p.obj
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get("evictable"))
                .is_some_and(|v| v == "true")
        };
        sort_domains(map, evictable)
            .into_iter()
            .map(|d| (d.value, d.pods.iter().map(|p| p.key.name.to_string()).collect()))
            .collect()
    }

    /// TestSortDomains "empty input"
    #[test]
    fn sort_domains_empty_input() {
        assert!(sorted_names(vec![]).is_empty());
    }

    /// TestSortDomains "single domain with mixed pods"
    #[test]
    fn sort_domains_single_domain_with_mixed_pods() {
        let got = sorted_names(vec![(
            "a",
            vec![
                annotated("non-evictable-pod", false, None),
                annotated("evictable-with-affinity", true, Some(10)),
                annotated("evictable-high-priority", true, Some(15)),
            ],
        )]);
        assert_eq!(
            got,
            vec![(
                "a".to_string(),
                names(&[
                    "non-evictable-pod",
                    "evictable-with-affinity",
                    "evictable-high-priority"
                ])
            )]
        );
    }

    /// TestSortDomains "multiple domains with different priorities and selectors"
    #[test]
    fn sort_domains_multiple_domains() {
        let got = sorted_names(vec![
            (
                "a",
                vec![
                    annotated("high-priority-affinity", true, Some(20)),
                    annotated("low-priority-no-affinity", true, Some(5)),
                ],
            ),
            (
                "b",
                vec![
                    annotated("medium-priority-affinity", true, Some(15)),
                    annotated("non-evictable-pod", false, None),
                ],
            ),
        ]);
        assert_eq!(
            got,
            vec![
                (
                    "a".to_string(),
                    names(&["low-priority-no-affinity", "high-priority-affinity"])
                ),
                (
                    "b".to_string(),
                    names(&["non-evictable-pod", "medium-priority-affinity"])
                ),
            ]
        );
    }

    /// TestSortDomains "domain with pods having different selector/affinity"
    #[test]
    fn sort_domains_selector_or_affinity_first() {
        let mut with = annotated("pod-with-affinity", true, Some(10));
        with.spec.as_mut().unwrap().affinity = Some(core::Affinity {
            node_affinity: Some(core::NodeAffinity::default()),
            ..Default::default()
        });
        let got = sorted_names(vec![("a", vec![with, annotated("pod-no-affinity", true, Some(15))])]);
        assert_eq!(
            got,
            vec![("a".to_string(), names(&["pod-with-affinity", "pod-no-affinity"]))]
        );
    }

    /// TestCheckIdenticalConstraints "new constraint is identical" and "new constraint is different"
    #[test]
    fn identical_constraints() {
        let p = &model_pods(vec![pod("p", 0, 0, "")])[0];
        let existing = [Constraint::new(
            &spread_constraint(2, "zone", DNS, &[("foo", "bar")]),
            p,
        )];
        let same = Constraint::new(&spread_constraint(2, "zone", DNS, &[("foo", "bar")]), p);
        let different = Constraint::new(&spread_constraint(3, "node", DNS, &[("foo", "bar")]), p);
        assert!(existing.contains(&same));
        assert!(!existing.contains(&different));
    }
}
