//! RemoveDuplicates (pkg/framework/plugins/removeduplicates/removeduplicates.go): pods of the
//! same owner with the same sorted container images, several on one node, are spread: per
//! owner, the feasible nodes are those at least one distinct placement (tolerations, required
//! node affinity, nodeSelector) of its pods can go to (hard taints tolerated, node selector
//! matched) when it can go to more than one; with fewer than two the owner is skipped;
//! otherwise every node keeps at most ceil(owner's pods / feasible nodes) and the rest are
//! evicted. Upstream walks owners and nodes in Go map order; kschedtui in name order.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::Ctx;
use super::evictor::{matches_node_selector, untolerated_hard_taint};
use super::limits::EvictError;
use super::pods::owner_refs;
use super::policy::{Namespaces, RemoveDuplicatesArgs};
use crate::model::{Node, Pod};

/// `podOwner`: namespace, kind, name and the joined sorted images.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Owner {
    namespace: String,
    kind: String,
    name: String,
    images: String,
}

fn images(p: &Pod) -> Vec<String> {
    let mut v: Vec<String> = p
        .spec()
        .containers
        .iter()
        .map(|c| c.image.clone().unwrap_or_default())
        .collect();
    v.sort();
    v
}

/// A pod's placement constraints, normalized for comparison (`TolerationsEqual`,
/// `NodeSelectorsEqual`, nodeSelector equality).
/// Tolerations (key, value, effect, operator), required node affinity, nodeSelector.
type Placement = (Vec<(String, String, String, String)>, String, String);

fn placement(p: &Pod) -> Placement {
    let mut tol: Vec<(String, String, String, String)> = p
        .tolerations
        .iter()
        .map(|t| (t.key.clone(), t.value.clone(), t.effect.clone(), t.operator.clone()))
        .collect();
    tol.sort();
    tol.dedup();
    let spec = p.spec();
    let required = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref())
        .map(|ns| {
            let mut terms: Vec<String> = ns
                .node_selector_terms
                .iter()
                .map(|t| {
                    let norm = |reqs: &Option<Vec<k8s_openapi::api::core::v1::NodeSelectorRequirement>>| {
                        let mut v: Vec<String> = reqs
                            .iter()
                            .flatten()
                            .map(|r| {
                                let mut vals = r.values.clone().unwrap_or_default();
                                vals.sort();
                                vals.dedup();
                                format!("{}|{}|{}", r.key, r.operator, vals.join(","))
                            })
                            .collect();
                        v.sort();
                        v.dedup();
                        v.join(";")
                    };
                    format!("{}#{}", norm(&t.match_expressions), norm(&t.match_fields))
                })
                .collect();
            terms.dedup();
            terms.join("/")
        })
        .unwrap_or_else(|| "<nil>".into());
    let ns = serde_json::to_string(&spec.node_selector).unwrap_or_default();
    (tol, required, ns)
}

/// `getTargetNodes`.
fn target_nodes(pods: &BTreeMap<String, Vec<Arc<Pod>>>, nodes: &[Arc<Node>]) -> BTreeSet<String> {
    let mut distinct: Vec<(_, Arc<Pod>)> = Vec::new();
    for p in pods.values().flatten() {
        let pl = placement(p);
        if !distinct.iter().any(|(d, _)| *d == pl) {
            distinct.push((pl, p.clone()));
        }
    }
    let mut out = BTreeSet::new();
    for (_, p) in distinct {
        let matching: Vec<&Arc<Node>> = nodes
            .iter()
            .filter(|n| untolerated_hard_taint(&p.tolerations, &n.taints).is_none() && matches_node_selector(&p, n))
            .collect();
        if matching.len() > 1 {
            out.extend(matching.iter().map(|n| n.name.clone()));
        }
    }
    out
}

/// Balance.
pub fn balance(ctx: &mut Ctx<'_>, args: &RemoveDuplicatesArgs, nodes: &[Arc<Node>]) {
    let mut duplicates: BTreeMap<Owner, BTreeMap<String, Vec<Arc<Pod>>>> = BTreeMap::new();
    let mut occurrences: BTreeMap<Owner, usize> = BTreeMap::new();
    for n in nodes {
        let mut seen: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
        for p in ctx.pods_on(&n.name) {
            if !Namespaces::admits(args.namespaces.as_ref(), &p.key.namespace) {
                continue;
            }
            let owners = owner_refs(&p);
            if owners.is_empty() || owners.iter().any(|o| args.exclude_owner_kinds.contains(&o.kind)) {
                continue;
            }
            if ctx.both_filters(&p).is_err() {
                continue;
            }
            let imgs = images(&p);
            let hash = imgs.join("#");
            let mut keys = Vec::new();
            for o in owners {
                let owner = Owner {
                    namespace: p.key.namespace.to_string(),
                    kind: o.kind.clone(),
                    name: o.name.clone(),
                    images: hash.clone(),
                };
                *occurrences.entry(owner).or_insert(0) += 1;
                for i in &imgs {
                    keys.push(format!("{}/{}/{}/{i}", p.key.namespace, o.kind, o.name));
                }
            }
            keys.sort();
            let Some(first) = keys.first().cloned() else { continue };
            let entry = seen.entry(first).or_default();
            if entry.contains(&keys) {
                for o in owners {
                    let owner = Owner {
                        namespace: p.key.namespace.to_string(),
                        kind: o.kind.clone(),
                        name: o.name.clone(),
                        images: hash.clone(),
                    };
                    duplicates
                        .entry(owner)
                        .or_default()
                        .entry(n.name.clone())
                        .or_default()
                        .push(p.clone());
                }
            } else {
                entry.push(keys);
            }
        }
    }
    for (owner, per_node) in &duplicates {
        let targets = target_nodes(per_node, nodes);
        let what = format!(
            "{} {}/{} (images {})",
            owner.kind, owner.namespace, owner.name, owner.images
        );
        if targets.len() < 2 {
            ctx.note(format!(
                "{what}: less than two feasible nodes for duplicates to land, skipping eviction"
            ));
            continue;
        }
        let total = occurrences.get(owner).copied().unwrap_or(0);
        let upper = total.div_ceil(targets.len());
        ctx.note(format!(
            "{what}: {total} pods over {} feasible nodes ({}): at most {upper} per node",
            targets.len(),
            targets.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
        'nodes: for (node, pods) in per_node {
            if pods.len() < upper {
                continue;
            }
            for p in &pods[upper.saturating_sub(1)..] {
                if ctx.cluster.pod(&p.key).is_none() {
                    continue;
                }
                let reason = format!(
                    "{} pods of {} {}/{} on {node} > ceil({total}/{}) = {upper}",
                    pods.len() + 1,
                    owner.kind,
                    owner.namespace,
                    owner.name,
                    targets.len()
                );
                match ctx.evict(p, reason) {
                    Ok(()) => {}
                    Err(EvictError::Node) => continue 'nodes,
                    Err(EvictError::Total) => return,
                    Err(_) => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! removeduplicates_test.go at v0.36: TestFindDuplicatePods and
    //! TestRemoveDuplicatesUniformly, every case, each asserting the pods evicted (upstream
    //! asserts the count). kschedtui lists a node's pods in key order; upstream in its
    //! informer's order, so where upstream only counts, the names here are kschedtui's choice.

    use k8s_openapi::api::core::v1 as core;
    use serde_json::json;

    use crate::engine::deschedule::policy::{REMOVE_DUPLICATES, SYSTEM_CRITICAL_PRIORITY};
    use crate::engine::deschedule::testutil::*;

    fn n(name: &str) -> core::Node {
        node(name, 2000, 3000, 10)
    }

    /// `buildTestPodWithRSOwnerRefWithNamespaceForNode1`.
    fn rs(name: &str, ns: &str) -> core::Pod {
        in_namespace(rs_owned(pod(name, 100, 0, "n1")), ns)
    }

    fn on(name: &str, node: &str) -> core::Pod {
        rs_owned(pod(name, 100, 0, node))
    }

    fn image(mut p: core::Pod, img: &str) -> core::Pod {
        p.spec.as_mut().unwrap().containers[0].image = Some(img.into());
        p
    }

    fn add_container(mut p: core::Pod, img: &str) -> core::Pod {
        p.spec.as_mut().unwrap().containers.push(core::Container {
            name: img.into(),
            image: Some(img.into()),
            ..Default::default()
        });
        p
    }

    fn run(nodes: Vec<core::Node>, pods: Vec<core::Pod>, exclude: &[&str], node_fit: bool) -> Vec<String> {
        let pol = policy(
            "balance",
            REMOVE_DUPLICATES,
            json!({"excludeOwnerKinds": exclude}),
            json!({"nodeFit": node_fit}),
        );
        evicted(cluster(nodes, pods), &pol, 0).0
    }

    fn two() -> Vec<core::Node> {
        vec![n("n1"), n("n2")]
    }

    fn dev() -> Vec<core::Pod> {
        vec![rs("p1", "dev"), rs("p2", "dev"), rs("p3", "dev")]
    }

    fn test_ns() -> Vec<core::Pod> {
        vec![rs("p8", "test"), rs("p9", "test"), rs("p10", "test")]
    }

    fn protected_pods() -> Vec<core::Pod> {
        vec![
            owned_by(pod("p4", 100, 0, "n1"), &[("DaemonSet", "")]),
            with_local_storage(normal_owned(pod("p5", 100, 0, "n1"))),
            mirror(pod("p6", 100, 0, "n1")),
            priority(
                in_namespace(pod("p7", 100, 0, "n1"), "kube-system"),
                SYSTEM_CRITICAL_PRIORITY,
            ),
        ]
    }

    // ---- TestFindDuplicatePods ----

    /// "Three pods in the `dev` Namespace, bound to same ReplicaSet. 1 should be evicted."
    #[test]
    fn three_in_dev() {
        assert_eq!(run(two(), dev(), &[], false), vec!["p3"]);
    }

    /// "Three pods in the `dev` Namespace, bound to same ReplicaSet, but ReplicaSet kind is
    /// excluded. 0 should be evicted."
    #[test]
    fn three_in_dev_kind_excluded() {
        assert!(run(two(), dev(), &["ReplicaSet"], false).is_empty());
    }

    /// "Three Pods in the `test` Namespace, bound to same ReplicaSet. 1 should be evicted."
    #[test]
    fn three_in_test() {
        assert_eq!(run(two(), test_ns(), &[], false), vec!["p9"]);
    }

    /// "Three Pods in the `dev` Namespace, three Pods in the `test` Namespace. Bound to
    /// ReplicaSet with same name. 4 should be evicted." (upstream expects 2)
    #[test]
    fn three_in_dev_three_in_test() {
        let mut pods = dev();
        pods.extend(test_ns());
        assert_eq!(run(two(), pods, &[], false), vec!["p3", "p9"]);
    }

    /// "Pods are: part of DaemonSet, with local storage, mirror pod annotation, critical pod
    /// annotation - none should be evicted."
    #[test]
    fn protected_pods_stay() {
        assert!(run(two(), protected_pods(), &[], false).is_empty());
    }

    /// "Test all Pods: 4 should be evicted." (upstream expects 2)
    #[test]
    fn all_pods() {
        let mut pods = dev();
        pods.extend(protected_pods());
        pods.extend(test_ns());
        assert_eq!(run(two(), pods, &[], false), vec!["p3", "p9"]);
    }

    /// "Pods with the same owner but different images should not be evicted"
    #[test]
    fn different_images() {
        let pods = vec![
            image(rs("p11", "different-images"), "foo"),
            image(rs("p12", "different-images"), "bar"),
        ];
        assert!(run(two(), pods, &[], false).is_empty());
    }

    /// "Pods with multiple containers should not match themselves"
    #[test]
    fn multiple_containers_do_not_match_themselves() {
        let pods = vec![add_container(rs("p13", "different-images"), "foo")];
        assert!(run(two(), pods, &[], false).is_empty());
    }

    /// "Pods with matching ownerrefs and at not all matching image should not trigger an eviction"
    #[test]
    fn not_all_images_match() {
        let pods = vec![
            image(rs("p11", "different-images"), "foo"),
            add_container(rs("p13", "different-images"), "foo"),
        ];
        assert!(run(two(), pods, &[], false).is_empty());
    }

    /// "Three pods in the `dev` Namespace, bound to same ReplicaSet. Only node available has a
    /// taint, and nodeFit set to true. 0 should be evicted."
    #[test]
    fn only_other_node_tainted() {
        let nodes = vec![n("n1"), taint(n("n3"), "hardware", "gpu", "NoSchedule")];
        assert!(run(nodes, dev(), &[], true).is_empty());
    }

    /// "Three pods in the `node-fit` Namespace, bound to same ReplicaSet, all with a
    /// nodeSelector. Only node available has an incorrect node label, and nodeFit set to true. 0
    /// should be evicted."
    #[test]
    fn only_other_node_has_the_wrong_label() {
        let west = |name| node_selector(rs(name, "node-fit"), &[("datacenter", "west")]);
        let pods = vec![west("p15"), west("NOT1"), west("NOT2")];
        let nodes = vec![n("n1"), node_labels(n("n4"), &[("datacenter", "east")])];
        assert!(run(nodes, pods, &[], true).is_empty());
    }

    /// "Three pods in the `node-fit` Namespace, bound to same ReplicaSet. Only node available is
    /// not schedulable, and nodeFit set to true. 0 should be evicted."
    #[test]
    fn only_other_node_unschedulable() {
        assert!(run(vec![n("n1"), unschedulable(n("n5"))], dev(), &[], true).is_empty());
    }

    /// "... Only node available does not have enough CPU, and nodeFit set to true. 0 should be evicted."
    #[test]
    fn only_other_node_without_cpu() {
        let mut pods = dev();
        pods.push(in_namespace(pod("CPU-eater", 150, 150, "n6"), "test"));
        assert!(run(vec![n("n1"), node("n6", 200, 200, 10)], pods, &[], true).is_empty());
    }

    /// "... Only node available has enough CPU, and nodeFit set to true. 1 should be evicted."
    #[test]
    fn only_other_node_with_cpu() {
        let mut pods = dev();
        pods.push(in_namespace(pod("CPU-saver", 100, 150, "n6"), "test"));
        assert_eq!(
            run(vec![n("n1"), node("n6", 200, 200, 10)], pods, &[], true),
            vec!["p3"]
        );
    }

    // ---- TestRemoveDuplicatesUniformly ----

    fn five_three_one(f: impl Fn(&str, &str) -> core::Pod, names: [&str; 9], nodes: [&str; 3]) -> Vec<core::Pod> {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let node = match i {
                    0..=4 => nodes[0],
                    5..=7 => nodes[1],
                    _ => nodes[2],
                };
                f(name, node)
            })
            .collect()
    }

    const P1_9: [&str; 9] = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"];
    const N123: [&str; 3] = ["n1", "n2", "n3"];
    const WORKERS: [&str; 3] = ["worker1", "worker2", "worker3"];

    fn three() -> Vec<core::Node> {
        vec![n("n1"), n("n2"), n("n3")]
    }

    /// "Evict pods uniformly": (5,3,1) -> (3,3,3)
    #[test]
    fn uniformly() {
        assert_eq!(
            run(three(), five_three_one(on, P1_9, N123), &[], false),
            vec!["p4", "p5"]
        );
    }

    /// "Evict pods uniformly with one node left out": (5,3,1) -> (4,4,1)
    #[test]
    fn uniformly_one_node_left_out() {
        assert_eq!(run(two(), five_three_one(on, P1_9, N123), &[], false), vec!["p5"]);
    }

    /// "Evict pods uniformly with two replica sets": upstream counts 4 evictions, each of p14 and
    /// p15 being evicted once per owner (its fake API server keeps evicted pods). kschedtui's
    /// in-memory API server removes a pod when it is evicted, so the second owner finds p14 and
    /// p15 gone: 2 pods, once each.
    #[test]
    fn uniformly_two_replica_sets() {
        let both = |name: &str, node: &str| {
            owned_by(
                pod(name, 100, 0, node),
                &[("ReplicaSet", "replicaset-1"), ("ReplicaSet", "replicaset-2")],
            )
        };
        let names = ["p11", "p12", "p13", "p14", "p15", "p16", "p17", "p18", "p19"];
        assert_eq!(
            run(three(), five_three_one(both, names, N123), &[], false),
            vec!["p14", "p15"]
        );
    }

    /// "Evict pods uniformly with two owner references": (5,3,1) and (1,3,5) -> (3,3,3) each
    #[test]
    fn uniformly_two_owners() {
        let names = ["p11", "p12", "p13", "p14", "p15", "p16", "p17", "p18", "p19"];
        let mut pods = five_three_one(on, names, N123);
        let rs2 = |name: &str, node: &str| owned_by(pod(name, 100, 0, node), &[("ReplicaSet", "replicaset-2")]);
        let names2 = ["p25", "p26", "p27", "p28", "p29", "p22", "p23", "p24", "p21"];
        pods.extend(five_three_one(rs2, names2, ["n3", "n2", "n1"]));
        assert_eq!(run(three(), pods, &[], false), vec!["p14", "p15", "p28", "p29"]);
    }

    /// "Evict pods with number of pods less than nodes": (2,0,0) -> (1,1,0)
    #[test]
    fn fewer_pods_than_nodes() {
        assert_eq!(
            run(three(), vec![on("p1", "n1"), on("p2", "n1")], &[], false),
            vec!["p2"]
        );
    }

    /// "Evict pods with number of pods less than nodes, but ignore different pods with the same ownerref"
    #[test]
    fn fewer_pods_than_nodes_images_differ() {
        let with = |name, img| add_container(on(name, "n1"), img);
        let pods = vec![
            with("p1", "foo"),
            with("p2", "bar"),
            with("p3", "baz"),
            with("p4", "foo"),
        ];
        assert_eq!(run(three(), pods, &[], false), vec!["p4"]);
    }

    /// "Evict pods with a single pod with three nodes"
    #[test]
    fn single_pod() {
        assert!(run(three(), vec![on("p1", "n1")], &[], false).is_empty());
    }

    fn masters(f: fn(core::Node) -> core::Node) -> Vec<core::Node> {
        let mut v: Vec<core::Node> = WORKERS.iter().map(|w| n(w)).collect();
        v.extend(["master1", "master2", "master3"].iter().map(|m| f(n(m))));
        v
    }

    fn alternate(f: fn(core::Pod, &str) -> core::Pod) -> Vec<core::Pod> {
        five_three_one(
            |name, node| {
                let i: usize = name[1..].parse().unwrap();
                f(on(name, node), if i % 2 == 1 { "k1" } else { "k2" })
            },
            P1_9,
            WORKERS,
        )
    }

    /// "Evict pods uniformly respecting taints"
    #[test]
    fn uniformly_respecting_taints() {
        let pods = alternate(|p, k| tolerate(p, k, if k == "k1" { "v1" } else { "v2" }, "NoSchedule"));
        let nodes = masters(|m| taint(m, "node-role.kubernetes.io/control-plane", "", "NoSchedule"));
        assert_eq!(run(nodes, pods, &[], false), vec!["p4", "p5"]);
    }

    /// "Evict pods uniformly respecting RequiredDuringSchedulingIgnoredDuringExecution node affinity"
    #[test]
    fn uniformly_respecting_required_node_affinity() {
        let pods = alternate(|mut p, k| {
            p.spec.as_mut().unwrap().affinity = Some(core::Affinity {
                node_affinity: Some(core::NodeAffinity {
                    required_during_scheduling_ignored_during_execution: Some(core::NodeSelector {
                        node_selector_terms: vec![core::NodeSelectorTerm {
                            match_expressions: Some(vec![
                                core::NodeSelectorRequirement {
                                    key: "node-role.kubernetes.io/control-plane".into(),
                                    operator: "DoesNotExist".into(),
                                    values: None,
                                },
                                core::NodeSelectorRequirement {
                                    key: k.into(),
                                    operator: "DoesNotExist".into(),
                                    values: None,
                                },
                            ]),
                            ..Default::default()
                        }],
                    }),
                    ..Default::default()
                }),
                ..Default::default()
            });
            p
        });
        let nodes = masters(|m| node_labels(m, &[("node-role.kubernetes.io/control-plane", "")]));
        assert_eq!(run(nodes, pods, &[], false), vec!["p4", "p5"]);
    }

    fn worker_selector(p: core::Pod, k: &str) -> core::Pod {
        node_selector(p, &[("node-role.kubernetes.io/worker", k)])
    }

    /// "Evict pods uniformly respecting node selector" (upstream's workers end up labelled k2)
    #[test]
    fn uniformly_respecting_node_selector() {
        let mut nodes: Vec<core::Node> = WORKERS
            .iter()
            .map(|w| node_labels(n(w), &[("node-role.kubernetes.io/worker", "k2")]))
            .collect();
        nodes.extend(["master1", "master2", "master3"].iter().map(|m| n(m)));
        assert_eq!(run(nodes, alternate(worker_selector), &[], false), vec!["p4", "p5"]);
    }

    /// "Evict pods uniformly respecting node selector with zero target nodes"
    #[test]
    fn node_selector_with_zero_target_nodes() {
        assert!(run(masters(|m| m), alternate(worker_selector), &[], false).is_empty());
    }
}
