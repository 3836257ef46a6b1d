//! Cases transcribed from upstream's filtering_test.go (TestRequiredAffinitySingleNode,
//! TestRequiredAffinityMultipleNodes, TestPreFilterDisabled, TestPreFilterStateAddRemovePod,
//! TestGetTPMapMatchingIncomingAffinityAntiAffinity), plus matchLabelKeys per version, the
//! trace detail, and nominated pods through the runner.

use super::super::testkit::{PodB, node, pod, run_filter, snapshot, team_namespaces, term};
use super::*;
use crate::engine::framework::plugin::Ctx;
use crate::engine::release::Release;

const V30: Release = Release::at(30);
const V31: Release = Release::at(31);

fn ok() -> Status {
    Status::success()
}
fn aff() -> Status {
    Status::new(
        Code::UnschedulableAndUnresolvable,
        [ERR_REASON_AFFINITY_RULES_NOT_MATCH],
    )
}
fn anti() -> Status {
    Status::new(Code::Unschedulable, [ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH])
}
fn existing() -> Status {
    Status::new(Code::Unschedulable, [ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH])
}

struct Case {
    name: &'static str,
    pod: PodB,
    pods: Vec<PodB>,
    /// Expected PreFilter status.
    pre: Status,
    /// Expected Filter status per node (sorted by name), when PreFilter succeeds.
    want: Vec<Status>,
}

fn check(cases: Vec<Case>, nodes: &[k8s_openapi::api::core::v1::Node], nss: &[k8s_openapi::api::core::v1::Namespace]) {
    let pl = InterPodAffinity::default();
    for c in cases {
        let snap = snapshot(nodes, &c.pods, nss, V30);
        let (pre, got, _) = run_filter(&pl, &snap, &c.pod.info(V30));
        assert_eq!(pre, c.pre, "{}: PreFilter", c.name);
        if pre.is_success() {
            assert_eq!(got, c.want, "{}: Filter", c.name);
        }
    }
}

#[test]
fn required_affinity_single_node() {
    let pod_label = [("service", "securityscan")];
    let pod_label2 = [("security", "S1")];
    let existing_pod = || pod().labels(&pod_label).node("node1");
    let sec = ["securityscan", "value2"];
    let cases = vec![
        Case {
            name: "A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
            pod: pod(),
            pods: vec![],
            pre: Status::skip(),
            want: vec![],
        },
        Case {
            name: "satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
            pod: pod()
                .labels(&pod_label2)
                .req_affinity(term("region").values_in("service", &sec)),
            pods: vec![existing_pod()],
            pre: ok(),
            want: vec![ok()],
        },
        Case {
            name: "satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
            pod: pod()
                .labels(&pod_label2)
                .req_affinity(term("region").not_in("service", &["securityscan3", "value3"])),
            pods: vec![existing_pod()],
            pre: ok(),
            want: vec![ok()],
        },
        Case {
            name: "Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
            pod: pod()
                .labels(&pod_label2)
                .req_affinity(term("").values_in("service", &sec).namespaces(&["DiffNameSpace"])),
            pods: vec![pod().ns("ns").labels(&pod_label).node("node1")],
            pre: ok(),
            want: vec![aff()],
        },
        Case {
            name: "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
            pod: pod()
                .labels(&pod_label)
                .req_affinity(term("").values_in("service", &["antivirusscan", "value2"])),
            pods: vec![existing_pod()],
            pre: ok(),
            want: vec![aff()],
        },
        Case {
            name: "satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution ",
            pod: pod()
                .labels(&pod_label2)
                .req_affinity(term("region").exists("service").not_exists("wrongkey"))
                .req_affinity(
                    term("region")
                        .values_in("service", &["securityscan"])
                        .not_in("service", &["WrongValue"]),
                ),
            pods: vec![existing_pod()],
            pre: ok(),
            want: vec![ok()],
        },
        Case {
            name: "The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
            pod: pod()
                .labels(&pod_label2)
                .req_affinity(term("region").exists("service").not_exists("wrongkey"))
                .req_affinity(
                    term("region")
                        .values_in("service", &["securityscan2"])
                        .not_in("service", &["WrongValue"]),
                ),
            pods: vec![existing_pod()],
            pre: ok(),
            want: vec![aff()],
        },
        Case {
            name: "satisfies the PodAffinity and PodAntiAffinity with the existing pod",
            pod: pod()
                .labels(&pod_label2)
                .req_affinity(term("region").values_in("service", &sec))
                .req_anti(term("node").values_in("service", &["antivirusscan", "value2"])),
            pods: vec![existing_pod()],
            pre: ok(),
            want: vec![ok()],
        },
        Case {
            name: "satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
            pod: pod()
                .labels(&pod_label2)
                .req_affinity(term("region").values_in("service", &sec))
                .req_anti(term("node").values_in("service", &["antivirusscan", "value2"])),
            pods: vec![existing_pod().req_anti(term("node").values_in("service", &["antivirusscan", "value2"]))],
            pre: ok(),
            want: vec![ok()],
        },
        Case {
            name: "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
            pod: pod()
                .labels(&pod_label2)
                .req_affinity(term("region").values_in("service", &sec))
                .req_anti(term("zone").values_in("service", &sec)),
            pods: vec![existing_pod()],
            pre: ok(),
            want: vec![anti()],
        },
        Case {
            name: "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
            pod: pod()
                .labels(&pod_label)
                .req_affinity(term("region").values_in("service", &sec))
                .req_anti(term("node").values_in("service", &["antivirusscan", "value2"])),
            pods: vec![existing_pod().req_anti(term("zone").values_in("service", &sec))],
            pre: ok(),
            want: vec![existing()],
        },
        Case {
            name: "pod matches its own Label in PodAffinity and that matches the existing pod Labels",
            pod: pod()
                .labels(&pod_label)
                .req_affinity(term("region").not_in("service", &sec)),
            pods: vec![pod().labels(&[("service", "securityscan")]).node("node2")],
            pre: ok(),
            want: vec![aff()],
        },
        Case {
            name: "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
            pod: pod().labels(&pod_label),
            pods: vec![existing_pod().req_anti(term("zone").values_in("service", &sec))],
            pre: ok(),
            want: vec![existing()],
        },
        Case {
            name: "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
            pod: pod().labels(&pod_label),
            pods: vec![existing_pod().req_anti(term("zone").not_in("service", &sec))],
            pre: Status::skip(),
            want: vec![],
        },
        Case {
            name: "satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
            pod: pod()
                .labels(&pod_label)
                .req_anti(term("region").exists("service"))
                .req_anti(term("region").exists("security")),
            pods: vec![
                pod()
                    .node("node1")
                    .labels(&pod_label2)
                    .req_anti(term("zone").exists("security")),
            ],
            pre: ok(),
            want: vec![anti()],
        },
        Case {
            name: "PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on AffinityTerms",
            pod: pod()
                .labels(&pod_label)
                .req_anti(term("zone").exists("service"))
                .req_anti(term("zone").exists("security")),
            pods: vec![
                pod()
                    .node("node1")
                    .labels(&pod_label2)
                    .req_anti(term("zone").exists("security")),
            ],
            pre: ok(),
            want: vec![anti()],
        },
        Case {
            name: "PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on AffinityTerms",
            pod: pod().labels(&pod_label2).req_anti(term("zone").exists("security")),
            pods: vec![
                pod()
                    .node("node1")
                    .labels(&pod_label)
                    .req_anti(term("zone").exists("service"))
                    .req_anti(term("zone").exists("security")),
            ],
            pre: ok(),
            want: vec![existing()],
        },
        Case {
            name: "PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on AffinityTerms",
            pod: pod()
                .labels(&[("abc", ""), ("xyz", "")])
                .req_anti(term("zone").exists("abc"))
                .req_anti(term("zone").exists("def")),
            pods: vec![
                pod()
                    .node("node1")
                    .labels(&[("def", ""), ("xyz", "")])
                    .req_anti(term("zone").exists("abc"))
                    .req_anti(term("zone").exists("def")),
            ],
            pre: ok(),
            want: vec![anti()],
        },
        Case {
            name: "PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on AffinityTerms",
            pod: pod()
                .labels(&[("def", ""), ("xyz", "")])
                .req_anti(term("zone").exists("abc"))
                .req_anti(term("zone").exists("def")),
            pods: vec![
                pod()
                    .node("node1")
                    .labels(&[("abc", ""), ("xyz", "")])
                    .req_anti(term("zone").exists("abc"))
                    .req_anti(term("zone").exists("def")),
            ],
            pre: ok(),
            want: vec![anti()],
        },
        Case {
            name: "affinity with NamespaceSelector",
            pod: pod()
                .labels(&pod_label2)
                .req_affinity(term("region").values_in("service", &sec).ns_in("team", &["team1"])),
            pods: vec![pod().ns("subteam1.team1").labels(&pod_label).node("node1")],
            pre: ok(),
            want: vec![ok()],
        },
        Case {
            name: "affinity with non-matching NamespaceSelector",
            pod: pod()
                .labels(&pod_label2)
                .req_affinity(term("region").values_in("service", &sec).ns_in("team", &["team1"])),
            pods: vec![pod().ns("subteam1.team2").labels(&pod_label).node("node1")],
            pre: ok(),
            want: vec![aff()],
        },
        Case {
            name: "anti-affinity with matching NamespaceSelector",
            pod: pod()
                .ns("subteam1.team1")
                .labels(&pod_label2)
                .req_anti(term("zone").values_in("service", &sec).ns_in("team", &["team1"])),
            pods: vec![pod().ns("subteam2.team1").labels(&pod_label).node("node1")],
            pre: ok(),
            want: vec![anti()],
        },
        Case {
            name: "anti-affinity with matching all NamespaceSelector",
            pod: pod()
                .ns("subteam1.team1")
                .labels(&pod_label2)
                .req_anti(term("zone").values_in("service", &sec).all_namespaces()),
            pods: vec![pod().ns("subteam2.team1").labels(&pod_label).node("node1")],
            pre: ok(),
            want: vec![anti()],
        },
        Case {
            name: "anti-affinity with non-matching NamespaceSelector",
            pod: pod()
                .ns("subteam1.team1")
                .labels(&pod_label2)
                .req_anti(term("zone").values_in("service", &sec).ns_in("team", &["team1"])),
            pods: vec![pod().ns("subteam1.team2").labels(&pod_label).node("node1")],
            pre: ok(),
            want: vec![ok()],
        },
    ];
    check(
        cases,
        &[node("node1", &[("region", "r1"), ("zone", "z11")])],
        &team_namespaces(),
    );
}

#[test]
fn required_affinity_multiple_nodes() {
    let china = [("region", "China")];
    let china_az1 = [("region", "China"), ("az", "az1")];
    let india = [("region", "India")];
    let rz = |n: &'static str, z: &'static str| [("region", "r1"), ("zone", z), ("hostname", n)];
    let three = vec![node("nodeA", &china), node("nodeB", &china_az1), node("nodeC", &india)];
    let ab_z12 = vec![node("nodeA", &rz("nodeA", "z1")), node("nodeB", &rz("nodeB", "z2"))];
    let ab_z11 = vec![node("nodeA", &rz("nodeA", "z1")), node("nodeB", &rz("nodeB", "z1"))];
    let nss = vec![super::super::testkit::namespace("NS1", &[])];
    let pl = InterPodAffinity::default();
    let groups: Vec<(Vec<k8s_openapi::api::core::v1::Node>, Vec<Case>)> = vec![
        (
            vec![node("node1", &china), node("node2", &china_az1), node("node3", &india)],
            vec![Case {
                name: "A pod can be scheduled onto all the nodes that have the same topology key & label value with one of them has an existing pod that matches the affinity rules",
                pod: pod().req_affinity(term("region").values_in("foo", &["bar"])),
                pods: vec![pod().name("p1").node("node1").labels(&[("foo", "bar")])],
                pre: ok(),
                want: vec![ok(), ok(), aff()],
            }],
        ),
        (
            vec![
                node("nodeA", &[("zone", "az1"), ("hostname", "h1")]),
                node("nodeB", &[("zone", "az2"), ("hostname", "h2")]),
            ],
            vec![Case {
                name: "The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod of the collection should not be blocked from being scheduled onto any node, even there's no existing pod that matches the rule anywhere.",
                pod: pod()
                    .labels(&[("foo", "bar"), ("service", "securityscan")])
                    .req_affinity(term("zone").values_in("foo", &["bar"]))
                    .req_affinity(term("zone").values_in("service", &["securityscan"])),
                pods: vec![pod().name("p1").node("nodeA").labels(&[("foo", "bar")])],
                pre: ok(),
                want: vec![ok(), ok()],
            }],
        ),
        (
            vec![
                node("nodeA", &[("zoneLabel", "az1"), ("hostname", "h1")]),
                node("nodeB", &[("zoneLabel", "az2"), ("hostname", "h2")]),
            ],
            vec![Case {
                name: "The first pod of the collection can only be scheduled on nodes labelled with the requested topology keys",
                pod: pod()
                    .labels(&[("foo", "bar"), ("service", "securityscan")])
                    .req_affinity(term("zone").values_in("foo", &["bar"]))
                    .req_affinity(term("zone").values_in("service", &["securityscan"])),
                pods: vec![pod().name("p1").node("nodeA").labels(&[("foo", "bar")])],
                pre: ok(),
                want: vec![aff(), aff()],
            }],
        ),
        (
            vec![
                node("nodeA", &[("region", "r1"), ("hostname", "nodeA")]),
                node("nodeB", &[("region", "r1"), ("hostname", "nodeB")]),
            ],
            vec![Case {
                name: "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
                pod: pod().req_anti(term("region").values_in("foo", &["abc"])),
                pods: vec![pod().node("nodeA").labels(&[("foo", "abc")])],
                pre: ok(),
                want: vec![anti(), anti()],
            }],
        ),
        (
            ab_z12.clone(),
            vec![
                Case {
                    name: "This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a pod.",
                    pod: pod()
                        .req_anti(term("region").values_in("foo", &["abc"]))
                        .req_anti(term("zone").values_in("service", &["securityscan"])),
                    pods: vec![
                        pod()
                            .node("nodeA")
                            .labels(&[("foo", "abc"), ("service", "securityscan")]),
                    ],
                    pre: ok(),
                    want: vec![anti(), anti()],
                },
                Case {
                    name: "Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each existingPod's terms on all nodes",
                    pod: pod().labels(&[("foo", ""), ("bar", "")]),
                    pods: vec![
                        pod().node("nodeA").req_anti(term("zone").exists("foo")),
                        pod().node("nodeA").req_anti(term("region").exists("bar")),
                    ],
                    pre: ok(),
                    want: vec![existing(), existing()],
                },
                Case {
                    name: "Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least violates one anti-affinity rule of existingPod",
                    pod: pod()
                        .req_anti(term("zone").exists("foo"))
                        .req_anti(term("region").exists("bar")),
                    pods: vec![
                        pod().node("nodeA").labels(&[("foo", "")]),
                        pod().node("nodeB").labels(&[("bar", "")]),
                    ],
                    pre: ok(),
                    want: vec![anti(), anti()],
                },
                Case {
                    name: "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
                    pod: pod().labels(&[("foo", ""), ("bar", "")]),
                    pods: vec![
                        pod()
                            .node("nodeA")
                            .req_anti(term("invalid-node-label").exists("foo"))
                            .req_anti(term("zone").exists("bar")),
                    ],
                    pre: ok(),
                    want: vec![existing(), ok()],
                },
                Case {
                    name: "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
                    pod: pod()
                        .req_anti(term("invalid-node-label").exists("foo"))
                        .req_anti(term("zone").exists("bar")),
                    pods: vec![pod().name("podA").node("nodeA").labels(&[("foo", ""), ("bar", "")])],
                    pre: ok(),
                    want: vec![anti(), ok()],
                },
                Case {
                    name: "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
                    pod: pod().labels(&[("foo", ""), ("bar", "")]),
                    pods: vec![
                        pod()
                            .node("nodeA")
                            .req_anti(term("region").exists("foo"))
                            .req_anti(term("zone").exists("bar")),
                    ],
                    pre: ok(),
                    want: vec![existing(), existing()],
                },
                Case {
                    name: "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
                    pod: pod()
                        .req_anti(term("region").exists("foo"))
                        .req_anti(term("zone").exists("bar")),
                    pods: vec![pod().node("nodeA").labels(&[("foo", ""), ("bar", "")])],
                    pre: ok(),
                    want: vec![anti(), anti()],
                },
                Case {
                    name: "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match, and the match logic should be satisfied on the same pod",
                    pod: pod()
                        .req_affinity(term("region").exists("foo"))
                        .req_affinity(term("zone").exists("bar")),
                    pods: vec![
                        pod().node("nodeA").name("pod1").labels(&[("foo", "")]),
                        pod().node("nodeB").name("pod2").labels(&[("bar", "")]),
                    ],
                    pre: ok(),
                    want: vec![aff(), aff()],
                },
            ],
        ),
        (
            three.clone(),
            vec![
                Case {
                    name: "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
                    pod: pod().req_anti(term("region").values_in("foo", &["abc"])),
                    pods: vec![pod().node("nodeA").labels(&[("foo", "abc")])],
                    pre: ok(),
                    want: vec![anti(), anti(), ok()],
                },
                Case {
                    name: "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity rule but in different namespace)",
                    pod: pod()
                        .ns("NS1")
                        .labels(&[("foo", "123")])
                        .req_anti(term("region").values_in("foo", &["bar"])),
                    pods: vec![
                        pod().node("nodeA").ns("NS1").labels(&[("foo", "bar")]),
                        pod()
                            .node("nodeC")
                            .ns("NS2")
                            .req_anti(term("region").values_in("foo", &["123"])),
                    ],
                    pre: ok(),
                    want: vec![anti(), anti(), ok()],
                },
            ],
        ),
        (
            ab_z11.clone(),
            vec![
                Case {
                    name: "Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the term is also checked",
                    pod: pod().labels(&[("foo", "")]),
                    pods: vec![pod().node("nodeA").req_anti(term("invalid-node-label").exists("foo"))],
                    pre: Status::skip(),
                    want: vec![],
                },
                Case {
                    name: "Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey matches",
                    pod: pod().node("nodeA").req_anti(term("invalid-node-label").exists("foo")),
                    pods: vec![pod().node("nodeA").labels(&[("foo", "")])],
                    pre: ok(),
                    want: vec![ok(), ok()],
                },
                Case {
                    name: "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match",
                    pod: pod()
                        .req_affinity(term("region").exists("foo"))
                        .req_affinity(term("zone").exists("bar")),
                    pods: vec![pod().name("pod1").labels(&[("foo", ""), ("bar", "")]).node("nodeA")],
                    pre: ok(),
                    want: vec![ok(), ok()],
                },
            ],
        ),
        (
            vec![
                node("nodeA", &rz("nodeA", "z1")),
                node("nodeB", &rz("nodeB", "z2")),
                node("nodeC", &rz("nodeC", "z3")),
            ],
            vec![Case {
                name: "Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
                pod: pod().labels(&[("foo", ""), ("bar", "")]),
                pods: vec![
                    pod()
                        .node("nodeA")
                        .req_anti(term("zone").exists("foo"))
                        .req_anti(term("zone").exists("labelA")),
                    pod()
                        .node("nodeB")
                        .req_anti(term("zone").exists("bar"))
                        .req_anti(term("zone").exists("labelB")),
                ],
                pre: ok(),
                want: vec![existing(), existing(), ok()],
            }],
        ),
    ];
    let mut n = 0;
    for (nodes, cases) in groups {
        for c in cases {
            n += 1;
            let snap = snapshot(&nodes, &c.pods, &nss, V30);
            let (pre, got, _) = run_filter(&pl, &snap, &c.pod.info(V30));
            assert_eq!(pre, c.pre, "{}: PreFilter", c.name);
            if pre.is_success() {
                assert_eq!(got, c.want, "{}: Filter", c.name);
            }
        }
    }
    assert_eq!(n, 18);
}

#[test]
fn filter_without_pre_filter_is_an_error() {
    // TestPreFilterDisabled.
    let snap = snapshot(&[node("n", &[])], &[], &[], V30);
    let cx = Ctx { snapshot: &snap };
    let pl = InterPodAffinity::default();
    let s = pl.filter(&cx, &CycleState::default(), &pod().info(V30), &snap.nodes[0]);
    assert_eq!(
        s,
        Status::error("error reading \"PreFilterInterPodAffinity\" from cycleState: not found")
    );
    let mut st = CycleState::default();
    let p = pod().info(V30);
    assert_eq!(pl.add_pod(&cx, &mut st, &p, &p, &snap.nodes[0]).code, Code::Error);
}

fn counts(v: &[(&str, &str, i64)]) -> Vec<(String, String, i64)> {
    v.iter()
        .map(|(k, val, n)| ((*k).to_string(), (*val).to_string(), *n))
        .collect()
}

#[test]
fn pre_filter_state_add_remove_pod() {
    let nodes = vec![
        node("nodeA", &[("region", "r1"), ("zone", "z11")]),
        node("nodeB", &[("region", "r1"), ("zone", "z12")]),
        node("nodeC", &[("region", "r2"), ("zone", "z21")]),
    ];
    let foo_bar = || term("region").values_in("foo", &["bar"]);
    let complex = || {
        vec![
            term("region").values_in("foo", &["bar", "buzz"]),
            term("zone").not_in("service", &["bar", "security", "test"]),
        ]
    };
    let with_anti = |p: PodB, ts: Vec<super::super::testkit::Term>| ts.into_iter().fold(p, PodB::req_anti);
    let with_aff = |p: PodB, ts: Vec<super::super::testkit::Term>| ts.into_iter().fold(p, PodB::req_affinity);
    let sel = [("foo", "bar")];
    struct AddCase {
        name: &'static str,
        pending: PodB,
        added: PodB,
        existing: Vec<PodB>,
        want_anti: Vec<(String, String, i64)>,
        want_aff: Vec<(String, String, i64)>,
    }
    let cases = vec![
        AddCase {
            name: "preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
            pending: pod().name("pending").labels(&sel).req_anti(foo_bar()),
            existing: vec![
                pod().name("p1").labels(&sel).node("nodeA"),
                pod().name("p2").node("nodeC").req_anti(foo_bar()),
            ],
            added: pod().name("addedPod").labels(&sel).node("nodeB").req_anti(foo_bar()),
            want_anti: counts(&[("region", "r1", 2)]),
            want_aff: vec![],
        },
        AddCase {
            name: "preFilterState anti-affinity terms are updated correctly after adding and removing a pod (complex)",
            pending: with_anti(pod().name("pending").labels(&sel), complex()),
            existing: vec![
                pod().name("p1").labels(&sel).node("nodeA"),
                pod().name("p2").node("nodeC").req_anti(foo_bar()),
            ],
            added: with_anti(pod().name("addedPod").labels(&sel).node("nodeA"), complex()),
            want_anti: counts(&[("region", "r1", 2), ("zone", "z11", 2), ("zone", "z21", 1)]),
            want_aff: vec![],
        },
        AddCase {
            name: "preFilterState matching pod affinity and anti-affinity are updated correctly after adding and removing a pod",
            pending: with_aff(pod().name("pending").labels(&sel), complex()),
            existing: vec![
                pod().name("p1").labels(&sel).node("nodeA"),
                with_aff(pod().name("p2").node("nodeC").req_anti(foo_bar()), complex()),
            ],
            added: with_anti(pod().name("addedPod").labels(&sel).node("nodeA"), complex()),
            want_anti: vec![],
            want_aff: counts(&[("region", "r1", 2), ("zone", "z11", 2)]),
        },
    ];
    let pl = InterPodAffinity::default();
    for c in cases {
        let mut all = c.existing.clone();
        all.push(c.added.clone());
        let pending = c.pending.info(V30);
        let all_snap = snapshot(&nodes, &all, &[], V30);
        let all_state = build_state(&all_snap, &pending).expect("state with all pods");
        let snap = snapshot(&nodes, &c.existing, &[], V30);
        let cx = Ctx { snapshot: &snap };
        let mut state = CycleState::default();
        let (_, pre) = pl.pre_filter(&cx, &mut state, &pending);
        assert!(pre.is_success(), "{}", c.name);
        let original = state
            .read::<Arc<PreFilterState>>(PRE_FILTER_KEY)
            .expect("state")
            .clone();
        let added = c.added.info(V30);
        let node_b = snap.node(added.pod.node_name.as_deref().expect("bound")).expect("node");
        assert!(pl.add_pod(&cx, &mut state, &pending, &added, node_b).is_success());
        let s = state.read::<Arc<PreFilterState>>(PRE_FILTER_KEY).expect("state");
        assert_eq!(
            s.anti_affinity.sorted(),
            c.want_anti,
            "{}: anti-affinity counts",
            c.name
        );
        assert_eq!(s.affinity.sorted(), c.want_aff, "{}: affinity counts", c.name);
        assert_eq!(s.existing_anti_affinity, all_state.existing_anti_affinity, "{}", c.name);
        assert_eq!(s.affinity, all_state.affinity, "{}", c.name);
        assert_eq!(s.anti_affinity, all_state.anti_affinity, "{}", c.name);
        assert!(pl.remove_pod(&cx, &mut state, &pending, &added, node_b).is_success());
        let s = state.read::<Arc<PreFilterState>>(PRE_FILTER_KEY).expect("state");
        assert_eq!(s.existing_anti_affinity, original.existing_anti_affinity, "{}", c.name);
        assert_eq!(s.affinity, original.affinity, "{}", c.name);
        assert_eq!(s.anti_affinity, original.anti_affinity, "{}", c.name);
    }
}

type Pairs = Vec<(String, String, i64)>;
/// name, existing pods, incoming pod, affinity counts, anti-affinity counts.
type CountCase = (&'static str, Vec<PodB>, PodB, Pairs, Pairs);

#[test]
fn incoming_affinity_anti_affinity_counts() {
    // TestGetTPMapMatchingIncomingAffinityAntiAffinity.
    let normal = |labels: &[&str]| {
        let kv: Vec<(&str, &str)> = labels.iter().map(|l| (*l, "")).collect();
        pod().name("normal").node("nodeA").labels(&kv)
    };
    let nodes = vec![node("nodeA", &[("hostname", "nodeA")])];
    let host = |n: i64| counts(&[("hostname", "nodeA", n)]);
    let cases: Vec<CountCase> = vec![
        ("nil test", vec![], pod().name("aaa-normal"), vec![], vec![]),
        (
            "incoming pod without affinity/anti-affinity causes a no-op",
            vec![normal(&["aaa"])],
            pod().name("aaa-normal"),
            vec![],
            vec![],
        ),
        (
            "no pod has label that violates incoming pod's affinity and anti-affinity",
            vec![normal(&["bbb"])],
            pod()
                .name("aaa-anti")
                .req_affinity(term("hostname").exists("aaa"))
                .req_anti(term("hostname").exists("aaa")),
            vec![],
            vec![],
        ),
        (
            "existing pod matches incoming pod's affinity and anti-affinity - single term case",
            vec![normal(&["aaa"])],
            pod()
                .name("affi-antiaffi")
                .req_affinity(term("hostname").exists("aaa"))
                .req_anti(term("hostname").exists("aaa")),
            host(1),
            host(1),
        ),
        (
            "existing pod matches incoming pod's affinity and anti-affinity - multiple terms case",
            vec![normal(&["aaa", "bbb"])],
            pod()
                .name("affi-antiaffi")
                .req_affinity(term("hostname").exists("aaa"))
                .req_affinity(term("hostname").exists("bbb"))
                .req_anti(term("hostname").exists("aaa")),
            host(2),
            host(1),
        ),
        (
            "existing pod not match incoming pod's affinity but matches anti-affinity",
            vec![normal(&["aaa"])],
            pod()
                .name("affi-antiaffi")
                .req_affinity(term("hostname").exists("aaa"))
                .req_affinity(term("hostname").exists("bbb"))
                .req_anti(term("hostname").exists("aaa"))
                .req_anti(term("hostname").exists("bbb")),
            vec![],
            host(1),
        ),
        (
            "incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 1",
            vec![normal(&["aaa", "bbb"])],
            pod()
                .name("anaffi-antiaffiti")
                .req_affinity(term("hostname").exists("aaa"))
                .req_affinity(term("hostname").exists("ccc"))
                .req_anti(term("hostname").exists("aaa"))
                .req_anti(term("hostname").exists("ccc")),
            vec![],
            host(1),
        ),
        (
            "incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 2",
            vec![normal(&["bbb"])],
            pod()
                .name("affi-antiaffi")
                .req_affinity(term("hostname").exists("aaa"))
                .req_affinity(term("hostname").exists("bbb"))
                .req_anti(term("hostname").exists("aaa"))
                .req_anti(term("hostname").exists("bbb")),
            vec![],
            host(1),
        ),
    ];
    for (name, existing_pods, p, want_aff, want_anti) in cases {
        let snap = snapshot(&nodes, &existing_pods, &[], V30);
        let pi = p.info(V30);
        let ns = &snap.cluster.namespaces;
        let terms = IncomingTerms::new(
            snap.labels(),
            pi.required_affinity().iter().map(|t| MergedTerm::new(t, ns)).collect(),
            pi.required_anti_affinity()
                .iter()
                .map(|t| MergedTerm::new(t, ns))
                .collect(),
            false,
        );
        let mut w = Witnesses {
            anti_pods: (0..terms.anti_affinity.len()).map(|_| MatchedPods::default()).collect(),
            ..Default::default()
        };
        let (a, aa) = incoming_counts(&snap, &terms, &mut w, true);
        assert_eq!(a.sorted(), want_aff, "{name}: affinity");
        assert_eq!(aa.sorted(), want_anti, "{name}: anti-affinity");
    }
}

#[test]
fn namespace_selector_unrolls_only_existing_namespaces() {
    // A selector is unrolled against Namespace objects: a pod in a namespace the snapshot does
    // not hold is not selected, even by NotIn (upstream lists namespaces, it does not match
    // the pod's namespace labels).
    let nodes = vec![node("n1", &[("zone", "a")])];
    let incoming = pod()
        .ns("x")
        .req_anti(term("zone").exists("app").ns_in("team", &["t1"]));
    let mut notin = incoming.clone();
    if let Some(a) = notin
        .0
        .spec
        .as_mut()
        .and_then(|s| s.affinity.as_mut())
        .and_then(|a| a.pod_anti_affinity.as_mut())
    {
        let t = &mut a
            .required_during_scheduling_ignored_during_execution
            .as_mut()
            .expect("terms")[0];
        let sel = t.namespace_selector.as_mut().expect("selector");
        sel.match_expressions.as_mut().expect("exprs")[0].operator = "NotIn".into();
    }
    let pods = vec![pod().ns("ghost").labels(&[("app", "a")]).node("n1")];
    let nss = vec![super::super::testkit::namespace("x", &[("team", "t1")])];
    let snap = snapshot(&nodes, &pods, &nss, V30);
    let pl = InterPodAffinity::default();
    let (_, got, _) = run_filter(&pl, &snap, &incoming.info(V30));
    assert_eq!(got, vec![ok()]);
    let (_, got, _) = run_filter(&pl, &snap, &notin.info(V30));
    assert_eq!(
        got,
        vec![ok()],
        "NotIn must not select a namespace without a Namespace object"
    );
    // With the namespace present and not labelled t1, NotIn selects it.
    let nss2 = vec![nss[0].clone(), super::super::testkit::namespace("ghost", &[])];
    let snap = snapshot(&nodes, &pods, &nss2, V30);
    let (_, got, _) = run_filter(&pl, &snap, &notin.info(V30));
    assert_eq!(got, vec![anti()]);
}

#[test]
fn match_label_keys_are_ignored_in_1_30_and_merged_from_1_31() {
    let nodes = vec![
        node("nodeA", &[("hostname", "nodeA")]),
        node("nodeB", &[("hostname", "nodeB")]),
    ];
    let pods = vec![
        pod().node("nodeA").labels(&[("app", "web"), ("version", "v1")]),
        pod().node("nodeB").labels(&[("app", "web"), ("version", "v2")]),
    ];
    let incoming = pod().labels(&[("app", "web"), ("version", "v2")]).req_anti(
        term("hostname")
            .values_in("app", &["web"])
            .match_label_keys(&["version"]),
    );
    let pl = InterPodAffinity::default();
    for (v, want) in [(V30, vec![anti(), anti()]), (V31, vec![ok(), anti()])] {
        let snap = snapshot(&nodes, &pods, &[], v);
        let (_, got, _) = run_filter(&pl, &snap, &incoming.info(v));
        assert_eq!(got, want, "matchLabelKeys, {v}");
    }
    // mismatchLabelKeys: keep away from other tenants only.
    let pods = vec![
        pod().node("nodeA").labels(&[("tenant", "b")]),
        pod().node("nodeB").labels(&[("tenant", "a")]),
    ];
    let incoming = pod()
        .labels(&[("tenant", "a")])
        .req_anti(term("hostname").exists("tenant").mismatch_label_keys(&["tenant"]));
    for (v, want) in [(V30, vec![anti(), anti()]), (V31, vec![anti(), ok()])] {
        let snap = snapshot(&nodes, &pods, &[], v);
        let (_, got, _) = run_filter(&pl, &snap, &incoming.info(v));
        assert_eq!(got, want, "mismatchLabelKeys, {v}");
    }
    // Existing pods' terms are merged with their own labels (1.31+): the existing pod avoids
    // only its own version, so the v2 incoming pod passes next to the v1 pod from 1.31 on.
    let pods = vec![
        pod()
            .node("nodeA")
            .labels(&[("app", "web"), ("version", "v1")])
            .req_anti(
                term("hostname")
                    .values_in("app", &["web"])
                    .match_label_keys(&["version"]),
            ),
    ];
    let incoming = pod().labels(&[("app", "web"), ("version", "v2")]);
    for (v, want_pre, want) in [(V30, ok(), vec![existing(), ok()]), (V31, Status::skip(), vec![])] {
        let snap = snapshot(&nodes, &pods, &[], v);
        let (pre, got, _) = run_filter(&pl, &snap, &incoming.info(v));
        assert_eq!(pre, want_pre, "existing matchLabelKeys PreFilter, {v}");
        assert_eq!(got, want, "existing matchLabelKeys, {v}");
    }
}

#[test]
fn a_selector_the_api_server_merged_already_is_not_merged_again() {
    let nodes = vec![
        node("nodeA", &[("hostname", "nodeA")]),
        node("nodeB", &[("hostname", "nodeB")]),
    ];
    let pods = vec![
        pod().node("nodeA").labels(&[("app", "web"), ("version", "v1")]),
        pod().node("nodeB").labels(&[("app", "web"), ("version", "v2")]),
    ];
    // as a 1.31+ API server stores it: the pod was created with version v2 and the server
    // appended `version In [v2]` to the selector
    let stored = || {
        term("hostname")
            .values_in("app", &["web"])
            .values_in("version", &["v2"])
            .match_label_keys(&["version"])
    };
    let submitted = pod().labels(&[("app", "web"), ("version", "v2")]).req_anti(
        term("hostname")
            .values_in("app", &["web"])
            .match_label_keys(&["version"]),
    );
    let merged = pod().labels(&[("app", "web"), ("version", "v2")]).req_anti(stored());
    // its label changed since: the stored selector keeps the value it was created with
    let relabelled = pod().labels(&[("app", "web"), ("version", "v3")]).req_anti(stored());
    let pl = InterPodAffinity::default();
    for (what, incoming) in [("submitted", submitted), ("merged", merged), ("relabelled", relabelled)] {
        let snap = snapshot(&nodes, &pods, &[], V31);
        let (_, got, _) = run_filter(&pl, &snap, &incoming.info(V31));
        assert_eq!(got, vec![ok(), anti()], "{what}");
    }
    // mismatchLabelKeys merged already: `tenant NotIn [a]`, then the label became c
    let pods = vec![
        pod().node("nodeA").labels(&[("tenant", "b")]),
        pod().node("nodeB").labels(&[("tenant", "c")]),
    ];
    let incoming = pod().labels(&[("tenant", "c")]).req_anti(
        term("hostname")
            .exists("tenant")
            .not_in("tenant", &["a"])
            .mismatch_label_keys(&["tenant"]),
    );
    let snap = snapshot(&nodes, &pods, &[], V31);
    let (_, got, _) = run_filter(&pl, &snap, &incoming.info(V31));
    assert_eq!(got, vec![anti(), anti()], "mismatchLabelKeys merged already");
}

#[test]
fn failure_detail_names_terms_and_pods() {
    let nodes = vec![
        node("nodeA", &[("zone", "z1"), ("hostname", "nodeA")]),
        node("nodeB", &[("zone", "z1"), ("hostname", "nodeB")]),
        node("nodeC", &[("hostname", "nodeC")]),
        node("nodeD", &[("zone", "z2"), ("hostname", "nodeD")]),
    ];
    let pods = vec![
        pod()
            .name("web-1")
            .ns("default")
            .node("nodeA")
            .labels(&[("app", "web")]),
        pod()
            .name("db-0")
            .ns("default")
            .node("nodeD")
            .labels(&[("app", "db")])
            .req_anti(term("zone").exists("team")),
    ];
    let snap = snapshot(&nodes, &pods, &[], V30);
    let pl = InterPodAffinity::default();
    let cx = Ctx { snapshot: &snap };
    // Anti-affinity against app=web in the zone.
    let p = pod()
        .ns("default")
        .req_anti(term("zone").values_in("app", &["web"]))
        .info(V30);
    let (_, got, state) = run_filter(&pl, &snap, &p);
    assert_eq!(got, vec![anti(), anti(), ok(), ok()]);
    assert_eq!(
        pl.failure_detail(&cx, &state, &p, &snap.nodes[1]),
        vec!["required pod anti-affinity term 0 matches 1 pod(s) in zone=z1: default/web-1 (node nodeA)".to_string()]
    );
    // Existing pod's anti-affinity against team pods in its zone.
    let p = pod().ns("default").labels(&[("team", "x")]).info(V30);
    let (_, got, state) = run_filter(&pl, &snap, &p);
    assert_eq!(got, vec![ok(), ok(), ok(), existing()]);
    assert_eq!(
        pl.failure_detail(&cx, &state, &p, &snap.nodes[3]),
        vec![
            "existing pods in zone=z2 whose required anti-affinity matches this pod: default/db-0 (node nodeD) (1 matching term(s))"
                .to_string()
        ]
    );
    // Affinity: a node without the label, a zone without matches, and no self-match.
    let p = pod()
        .ns("default")
        .req_affinity(term("zone").values_in("app", &["web"]))
        .info(V30);
    let (_, got, state) = run_filter(&pl, &snap, &p);
    assert_eq!(got, vec![ok(), ok(), aff(), aff()]);
    assert_eq!(
        pl.failure_detail(&cx, &state, &p, &snap.nodes[2]),
        vec!["required pod affinity term 0: the node has no label 'zone' (its topologyKey)".to_string()]
    );
    assert_eq!(
        pl.failure_detail(&cx, &state, &p, &snap.nodes[3]),
        vec!["required pod affinity term 0: no pod matching all required affinity terms runs in zone=z2".to_string()]
    );
    let p = pod()
        .ns("default")
        .req_affinity(term("zone").values_in("app", &["cache"]))
        .info(V30);
    let (_, got, state) = run_filter(&pl, &snap, &p);
    assert_eq!(got, vec![aff(), aff(), aff(), aff()]);
    assert_eq!(
        pl.failure_detail(&cx, &state, &p, &snap.nodes[0]),
        vec![
            "required pod affinity term 0: no pod matching all required affinity terms runs in zone=z1".to_string(),
            "no pod in the cluster matches them; the pod's own labels do not match its terms, so it cannot start the group itself"
                .to_string(),
        ]
    );
    let p2 = pod()
        .ns("default")
        .labels(&[("app", "cache")])
        .req_affinity(term("zone").values_in("app", &["cache"]))
        .info(V30);
    let (_, got, state) = run_filter(&pl, &snap, &p2);
    assert_eq!(got, vec![ok(), ok(), aff(), ok()], "first pod of a group");
    assert!(pl.failure_detail(&cx, &state, &p2, &snap.nodes[0]).is_empty());
}

/// A snapshot that keeps decisions only (the simulator's, `fit`'s) explains no rejection:
/// PreFilter counts the same pairs and keeps no example pod, and Filter's verdicts are the
/// same.
#[test]
fn decisions_only_counts_the_same_and_keeps_no_witness() {
    let nodes = vec![
        node("nodeA", &[("zone", "z1"), ("hostname", "nodeA")]),
        node("nodeB", &[("zone", "z1"), ("hostname", "nodeB")]),
        node("nodeC", &[("zone", "z2"), ("hostname", "nodeC")]),
    ];
    let pods = vec![
        pod()
            .name("web-1")
            .ns("default")
            .node("nodeA")
            .labels(&[("app", "web")]),
        pod()
            .name("web-2")
            .ns("default")
            .node("nodeC")
            .labels(&[("app", "web")])
            .req_anti(term("hostname").exists("app")),
        pod()
            .name("db-0")
            .ns("default")
            .node("nodeB")
            .labels(&[("app", "db")])
            .req_anti(term("zone").exists("app")),
    ];
    let p = pod()
        .ns("default")
        .labels(&[("app", "web")])
        .req_affinity(term("zone").exists("app"))
        .req_anti(term("hostname").values_in("app", &["web"]))
        .info(V30);
    let full = snapshot(&nodes, &pods, &[], V30);
    let mut lean = snapshot(&nodes, &pods, &[], V30);
    lean.decisions_only = true;
    let a = build_state(&full, &p).expect("state");
    let b = build_state(&lean, &p).expect("state");
    assert_eq!(
        a.existing_anti_affinity.sorted(),
        counts(&[("hostname", "nodeC", 1), ("zone", "z1", 1)])
    );
    assert_eq!(b.existing_anti_affinity, a.existing_anti_affinity);
    assert_eq!(b.affinity, a.affinity);
    assert_eq!(b.anti_affinity, a.anti_affinity);
    assert_eq!(b.witnesses.affinity_matches, a.witnesses.affinity_matches);
    assert_eq!(a.witnesses.existing.len(), 2, "the full snapshot names the pods");
    assert!(b.witnesses.existing.is_empty(), "no witness of the existing pods");
    let kept = |m: &MatchedPods| {
        let mut n = 0;
        m.for_each(|_, _| n += 1);
        n
    };
    assert_eq!(kept(&a.witnesses.anti_pods[0]), 2);
    assert_eq!(kept(&b.witnesses.anti_pods[0]), 0, "no pod kept for the incoming terms");
    let pl = InterPodAffinity::default();
    let (_, got_full, _) = run_filter(&pl, &full, &p);
    let (_, got_lean, _) = run_filter(&pl, &lean, &p);
    assert_eq!(got_full, vec![anti(), existing(), anti()]);
    assert_eq!(got_lean, got_full);
}

#[test]
fn failure_detail_written_later_tells_the_state_it_was_taken_from() {
    // The detail is written when first read. RemovePod after it was taken (a preemption
    // candidate without the matching pod) copies the shared state: the detail taken before
    // still names the pod, while one taken after has nothing to say (the node now passes).
    let nodes = vec![
        node("nodeA", &[("zone", "z1"), ("hostname", "nodeA")]),
        node("nodeB", &[("zone", "z1"), ("hostname", "nodeB")]),
    ];
    let web1 = pod()
        .name("web-1")
        .ns("default")
        .node("nodeA")
        .labels(&[("app", "web")]);
    let snap = snapshot(&nodes, std::slice::from_ref(&web1), &[], V30);
    let pl = InterPodAffinity::default();
    let cx = Ctx { snapshot: &snap };
    let p = pod()
        .ns("default")
        .req_anti(term("zone").values_in("app", &["web"]))
        .info(V30);
    let (_, _, mut state) = run_filter(&pl, &snap, &p);
    let before = pl.failure_detail(&cx, &state, &p, &snap.nodes[1]);
    assert!(
        pl.remove_pod(&cx, &mut state, &p, &web1.info(V30), &snap.nodes[0])
            .is_success()
    );
    assert!(
        pl.filter(&cx, &state, &p, &snap.nodes[1]).is_success(),
        "the node passes without web-1"
    );
    assert!(pl.failure_detail(&cx, &state, &p, &snap.nodes[1]).is_empty());
    assert_eq!(
        before,
        vec!["required pod anti-affinity term 0 matches 1 pod(s) in zone=z1: default/web-1 (node nodeA)".to_string()]
    );
}

#[test]
fn nominated_pods_are_counted_through_add_pod() {
    use crate::engine::Framework;
    use crate::engine::framework::runner::explain;
    use crate::model::ObjectKey;
    let nodes = vec![
        node("nodeA", &[("hostname", "nodeA")]),
        node("nodeB", &[("hostname", "nodeB")]),
        node("nodeC", &[("hostname", "nodeC")]),
    ];
    let pods = vec![
        // A pending pod of higher priority nominated to nodeA, labelled app=db.
        pod()
            .ns("default")
            .name("db-nominated")
            .priority(10)
            .nominated("nodeA")
            .labels(&[("app", "db")]),
        // A bound app=db pod on nodeB.
        pod()
            .ns("default")
            .name("db-bound")
            .node("nodeB")
            .labels(&[("app", "db")]),
        // The pod explained: keep away from app=db per host.
        pod()
            .ns("default")
            .name("web")
            .req_anti(term("hostname").values_in("app", &["db"])),
    ];
    let snap = snapshot(&nodes, &pods, &[], V30);
    let fw = Framework::default_profile(V30).expect("profile");
    let ex = explain(&snap, std::slice::from_ref(&fw), &ObjectKey::new("default", "web")).expect("explain");
    let f: Vec<(&str, bool, Option<&str>)> = ex
        .filter
        .iter()
        .map(|f| (f.node.as_str(), f.feasible, f.failure.as_ref().map(|x| x.plugin)))
        .collect();
    assert_eq!(
        f,
        vec![
            ("nodeA", false, Some("InterPodAffinity")),
            ("nodeB", false, Some("InterPodAffinity")),
            ("nodeC", true, None)
        ]
    );
    assert_eq!(
        ex.filter[0].rejected_by_nominated_pods,
        vec![ObjectKey::new("default", "db-nominated")]
    );
    assert!(
        ex.filter[0].detail.is_empty(),
        "no detail for a rejection caused by nominated pods"
    );
    assert_eq!(
        ex.filter[1].detail,
        vec![
            "required pod anti-affinity term 0 matches 1 pod(s) in hostname=nodeB: default/db-bound (node nodeB)"
                .to_string()
        ]
    );
    assert_eq!(ex.selected, vec!["nodeC".to_string()]);
    // A nominated pod's own anti-affinity is not seen when PreFilter skipped the plugin
    // (no required terms, no existing pod with anti-affinity against the pod): upstream runs
    // neither AddPod nor Filter for a skipped plugin.
    let pods = vec![
        pod()
            .ns("default")
            .name("guard")
            .priority(10)
            .nominated("nodeA")
            .req_anti(term("hostname").values_in("app", &["web"])),
        pod().ns("default").name("web").labels(&[("app", "web")]),
    ];
    let snap = snapshot(&nodes, &pods, &[], V30);
    let ex = explain(&snap, &[fw], &ObjectKey::new("default", "web")).expect("explain");
    assert!(
        ex.pre_filter
            .iter()
            .any(|p| p.plugin == "InterPodAffinity" && p.code == Code::Skip)
    );
    assert!(ex.filter.iter().all(|f| f.feasible));
}

#[test]
fn nil_and_empty_label_selectors() {
    // A nil labelSelector selects nothing, an empty one every pod (LabelSelectorAsSelector).
    let nodes = vec![
        node("nodeA", &[("hostname", "nodeA")]),
        node("nodeB", &[("hostname", "nodeB")]),
    ];
    let pods = vec![pod().node("nodeA").labels(&[("app", "web")])];
    let snap = snapshot(&nodes, &pods, &[], V30);
    let pl = InterPodAffinity::default();
    let cases = vec![
        (
            "nil selector matches nothing",
            pod().req_anti(term("hostname")),
            vec![ok(), ok()],
        ),
        (
            "empty selector matches every pod",
            pod().req_anti(term("hostname").all_pods()),
            vec![anti(), ok()],
        ),
        (
            "matchLabels",
            pod().req_anti(term("hostname").match_labels(&[("app", "web")])),
            vec![anti(), ok()],
        ),
        (
            "matchLabels mismatch",
            pod().req_anti(term("hostname").match_labels(&[("app", "db")])),
            vec![ok(), ok()],
        ),
        // Required affinity with a nil selector: nothing matches, not even the pod itself.
        (
            "affinity nil selector",
            pod().req_affinity(term("hostname")),
            vec![aff(), aff()],
        ),
    ];
    for (name, p, want) in cases {
        let (_, got, _) = run_filter(&pl, &snap, &p.info(V30));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn node_info_keeps_affinity_pod_lists() {
    // NodeInfo.PodsWithAffinity / PodsWithRequiredAntiAffinity follow AddPod and RemovePod.
    let snap = snapshot(
        &[node("n", &[])],
        &[
            pod().name("plain").node("n"),
            pod().name("pref").node("n").pref_affinity(1, term("zone").exists("a")),
            pod().name("anti").node("n").req_anti(term("zone").exists("a")),
        ],
        &[],
        V30,
    );
    let names = |v: &[std::sync::Arc<PodInfo>]| v.iter().map(|p| p.pod.key.name.clone()).collect::<Vec<_>>();
    let mut n = snap.nodes[0].clone();
    assert_eq!(names(&n.affinity_pods), vec!["anti", "pref"]);
    assert_eq!(names(&n.required_anti_affinity_pods), vec!["anti"]);
    assert_eq!((n.pods_with_affinity, n.pods_with_required_anti_affinity), (2, 1));
    let anti = n.required_anti_affinity_pods[0].pod.clone();
    assert!(n.remove_pod(&anti));
    assert_eq!(names(&n.affinity_pods), vec!["pref"]);
    assert!(n.required_anti_affinity_pods.is_empty());
    assert_eq!((n.pods_with_affinity, n.pods_with_required_anti_affinity), (1, 0));
    let extra = pod()
        .name("again")
        .node("n")
        .req_anti(term("zone").exists("a"))
        .info(V30);
    n.add_pod(std::sync::Arc::new(extra));
    assert_eq!(names(&n.affinity_pods), vec!["pref", "again"]);
    assert_eq!(names(&n.required_anti_affinity_pods), vec!["again"]);
}
