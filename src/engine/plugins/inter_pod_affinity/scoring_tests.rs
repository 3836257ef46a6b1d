//! Cases transcribed from upstream's scoring_test.go (TestPreferredAffinity,
//! TestPreferredAffinityWithHardPodAffinitySymmetricWeight), plus normalization of negative
//! raw scores and the Skip rule.

use super::super::testkit::{PodB, node, pod, snapshot, team_namespaces, term};
use super::*;
use crate::engine::framework::index::terms::Weight;
use crate::engine::framework::snapshot::Snapshot;
use crate::engine::framework::status::Code;
use crate::engine::release::Release;

const V30: Release = Release::at(30);

fn stay_s1_region(p: PodB) -> PodB {
    p.pref_affinity(5, term("region").values_in("security", &["S1"]))
}
fn stay_s2_region(p: PodB) -> PodB {
    p.pref_affinity(6, term("region").values_in("security", &["S2"]))
}
fn affinity3(p: PodB) -> PodB {
    p.pref_affinity(
        8,
        term("region")
            .not_in("security", &["S1"])
            .values_in("security", &["S2"]),
    )
    .pref_affinity(2, term("region").exists("security").not_exists("wrongkey"))
}
fn hard_affinity(p: PodB) -> PodB {
    p.req_affinity(term("region").values_in("security", &["S1", "value2"]))
        .req_affinity(term("region").exists("security").not_exists("wrongkey"))
}
fn away_s1_az(p: PodB) -> PodB {
    p.pref_anti(5, term("az").values_in("security", &["S1"]))
}
fn away_s2_az(p: PodB) -> PodB {
    p.pref_anti(5, term("az").values_in("security", &["S2"]))
}
fn stay_s1_region_away_s2_az(p: PodB) -> PodB {
    p.pref_affinity(8, term("region").values_in("security", &["S1"]))
        .pref_anti(5, term("az").values_in("security", &["S2"]))
}
fn ns_selector_term() -> super::super::testkit::Term {
    term("region")
        .values_in("security", &["S1"])
        .namespaces(&["subteam2.team2"])
        .ns_in("team", &["team1"])
}
fn affinity_ns_selector(p: PodB) -> PodB {
    p.pref_affinity(5, ns_selector_term())
}
fn anti_affinity_ns_selector(p: PodB) -> PodB {
    p.pref_anti(5, ns_selector_term())
}

/// PreScore, Score and NormalizeScore on every node: (raw, normalized) per node. The score
/// map PreScore builds from the snapshot index's grouped terms must be the one upstream's
/// walk over every existing pod's terms builds ([`walked_score_map`]).
fn run_score(pl: &InterPodAffinity, snap: &Snapshot, p: &PodInfo) -> (Status, Vec<(i64, i64)>) {
    let cx = Ctx { snapshot: snap };
    assert_eq!(
        build_score_map(pl, &cx, p),
        walked_score_map(pl, snap, p),
        "grouped terms score as walked"
    );
    run_score_once(pl, snap, p)
}

/// Upstream's PreScore: every existing pod's terms matched against the incoming pod, node by
/// node, and the incoming pod's preferred terms against every existing pod.
fn walked_score_map(pl: &InterPodAffinity, snap: &Snapshot, pod: &PodInfo) -> Option<ScoreMap> {
    let has_constraints = !pod.preferred_affinity().is_empty() || !pod.preferred_anti_affinity().is_empty();
    if pl.ignore_preferred_terms_of_existing_pods && !has_constraints {
        return None;
    }
    let ns = &snap.cluster.namespaces;
    let incoming: Vec<(MergedTerm, i64)> = pod
        .preferred_affinity()
        .iter()
        .map(|w| (MergedTerm::new(&w.term, ns), i64::from(w.weight)))
        .chain(
            pod.preferred_anti_affinity()
                .iter()
                .map(|w| (MergedTerm::new(&w.term, ns), -i64::from(w.weight))),
        )
        .collect();
    let ns_labels = snap.namespace_labels(&pod.pod.key.namespace);
    let hard = i64::from(pl.hard_pod_affinity_weight);
    let mut m = ScoreMap::default();
    let mut add = |key: &str, value: &str, delta: i64| {
        *m.entry(key.to_string())
            .or_default()
            .entry(value.to_string())
            .or_insert(0) += delta;
    };
    for node in &snap.nodes {
        let labels = &node.node.labels;
        if labels.is_empty() || node.pods.is_empty() {
            continue;
        }
        if has_constraints {
            for (t, w) in &incoming {
                let Some(v) = labels.get(&t.topology_key) else { continue };
                let n = node.pods.iter().filter(|p| t.matches(&p.pod)).count() as i64;
                if n > 0 {
                    add(&t.topology_key, v, w * n);
                }
            }
        }
        for ep in &node.affinity_pods {
            if hard > 0 {
                for t in ep.required_affinity() {
                    if let Some(v) = labels.get(&t.topology_key)
                        && t.matches(&pod.pod, ns_labels)
                    {
                        add(&t.topology_key, v, hard);
                    }
                }
            }
            for (terms, sign) in [(ep.preferred_affinity(), 1), (ep.preferred_anti_affinity(), -1)] {
                for w in terms {
                    if let Some(v) = labels.get(&w.term.topology_key)
                        && w.term.matches(&pod.pod, ns_labels)
                    {
                        add(&w.term.topology_key, v, sign * i64::from(w.weight));
                    }
                }
            }
        }
    }
    (!m.is_empty()).then_some(m)
}

fn run_score_once(pl: &InterPodAffinity, snap: &Snapshot, p: &PodInfo) -> (Status, Vec<(i64, i64)>) {
    let cx = Ctx { snapshot: snap };
    let mut state = CycleState::default();
    let nodes: Vec<&NodeInfo> = snap.nodes.iter().collect();
    let s = pl.pre_score(&cx, &mut state, p, &nodes);
    if !s.is_success() {
        return (s, Vec::new());
    }
    let mut scores: Vec<NodeScore> = nodes
        .iter()
        .map(|n| {
            let v = pl.score(&cx, &state, p, n).expect("Score");
            NodeScore {
                name: n.name().into(),
                score: v,
            }
        })
        .collect();
    let raw: Vec<i64> = scores.iter().map(|s| s.score).collect();
    assert!(pl.normalize(&cx, &state, p, &mut scores).is_success());
    (s, raw.into_iter().zip(scores.iter().map(|s| s.score)).collect())
}

struct Case {
    name: &'static str,
    pod: PodB,
    pods: Vec<PodB>,
    nodes: Vec<k8s_openapi::api::core::v1::Node>,
    ignore: bool,
    /// None: PreScore returns Skip.
    want: Option<Vec<i64>>,
}

#[test]
fn preferred_affinity() {
    let china = [("region", "China")];
    let india = [("region", "India")];
    let az1 = [("az", "az1")];
    let az2 = [("az", "az2")];
    let china_az1 = [("region", "China"), ("az", "az1")];
    let s1 = [("security", "S1")];
    let s2 = [("security", "S2")];
    let n = |name: &str, l: &[(&str, &str)]| node(name, l);
    let cia = || vec![n("node1", &china), n("node2", &india), n("node3", &az1)];
    let on = |node: &str, l: &[(&str, &str)]| pod().node(node).labels(l);
    let cases = vec![
        Case {
            name: "all nodes are same priority as Affinity is nil",
            pod: pod().labels(&s1),
            pods: vec![],
            nodes: cia(),
            ignore: false,
            want: None,
        },
        Case {
            name: "Affinity: pod that matches topology key & pods in nodes will get high score comparing to otherswhich doesn't match either pods in nodes or in topology key",
            pod: stay_s1_region(pod().labels(&s1)),
            pods: vec![on("node1", &s1), on("node2", &s2), on("node3", &s1)],
            nodes: cia(),
            ignore: false,
            want: Some(vec![100, 0, 0]),
        },
        Case {
            name: "All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score",
            pod: stay_s1_region(pod()),
            pods: vec![on("node1", &s1)],
            nodes: vec![n("node1", &china), n("node2", &china_az1), n("node3", &india)],
            ignore: false,
            want: Some(vec![100, 100, 0]),
        },
        Case {
            name: "Affinity: nodes in one region has more matching pods comparing to other region, so the region which has more matches will get high score",
            pod: stay_s2_region(pod().labels(&s1)),
            pods: vec![
                on("node1", &s2),
                on("node1", &s2),
                on("node2", &s2),
                on("node3", &s2),
                on("node4", &s2),
                on("node5", &s2),
            ],
            nodes: vec![
                n("node1", &china),
                n("node2", &india),
                n("node3", &china),
                n("node4", &china),
                n("node5", &india),
            ],
            ignore: false,
            want: Some(vec![100, 0, 100, 100, 0]),
        },
        Case {
            name: "Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures ",
            pod: affinity3(pod().labels(&s1)),
            pods: vec![on("node1", &s1), on("node2", &s2), on("node3", &s1)],
            nodes: cia(),
            ignore: false,
            want: Some(vec![20, 100, 0]),
        },
        Case {
            name: "Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
            pod: pod().labels(&s2),
            pods: vec![stay_s1_region(on("node1", &s1)), stay_s2_region(on("node2", &s2))],
            nodes: cia(),
            ignore: false,
            want: Some(vec![0, 100, 0]),
        },
        Case {
            name: "Affinity symmetry with namespace selector",
            pod: pod().ns("subteam1.team1").labels(&s1),
            pods: vec![affinity_ns_selector(on("node1", &s1)), stay_s2_region(on("node2", &s2))],
            nodes: cia(),
            ignore: false,
            want: Some(vec![100, 0, 0]),
        },
        Case {
            name: "AntiAffinity symmetry with namespace selector",
            pod: pod().ns("subteam1.team1").labels(&s1),
            pods: vec![
                anti_affinity_ns_selector(on("node1", &s1)),
                stay_s2_region(on("node2", &s2)),
            ],
            nodes: cia(),
            ignore: false,
            want: Some(vec![0, 100, 100]),
        },
        Case {
            name: "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
            pod: pod().labels(&s1),
            pods: vec![hard_affinity(on("node1", &s1)), hard_affinity(on("node2", &s2))],
            nodes: cia(),
            ignore: false,
            want: Some(vec![100, 100, 0]),
        },
        Case {
            name: "Anti Affinity: pod that does not match existing pods in node will get high score ",
            pod: away_s1_az(pod().labels(&s1)),
            pods: vec![on("node1", &s1), on("node2", &s2)],
            nodes: vec![n("node1", &az1), n("node2", &china)],
            ignore: false,
            want: Some(vec![0, 100]),
        },
        Case {
            name: "Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score comparing to others ",
            pod: away_s1_az(pod().labels(&s1)),
            pods: vec![on("node1", &s1), on("node2", &s1)],
            nodes: vec![n("node1", &az1), n("node2", &china)],
            ignore: false,
            want: Some(vec![0, 100]),
        },
        Case {
            name: "Anti Affinity: one node has more matching pods comparing to other node, so the node which has more unmatches will get high score",
            pod: away_s1_az(pod().labels(&s1)),
            pods: vec![on("node1", &s1), on("node1", &s1), on("node2", &s2)],
            nodes: vec![n("node1", &az1), n("node2", &india)],
            ignore: false,
            want: Some(vec![0, 100]),
        },
        Case {
            name: "Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
            pod: pod().labels(&s2),
            pods: vec![away_s2_az(on("node1", &s1)), away_s1_az(on("node2", &s2))],
            nodes: vec![n("node1", &az1), n("node2", &az2)],
            ignore: false,
            want: Some(vec![0, 100]),
        },
        Case {
            name: "Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity",
            pod: stay_s1_region_away_s2_az(pod().labels(&s1)),
            pods: vec![on("node1", &s1), on("node2", &s1)],
            nodes: vec![n("node1", &china), n("node2", &az1)],
            ignore: false,
            want: Some(vec![100, 0]),
        },
        Case {
            name: "Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels",
            pod: stay_s1_region_away_s2_az(pod().labels(&s1)),
            pods: vec![
                on("node1", &s1),
                on("node1", &s1),
                on("node2", &s1),
                on("node3", &s1),
                on("node3", &s1),
                on("node4", &s1),
                on("node5", &s1),
            ],
            nodes: vec![
                n("node1", &china_az1),
                n("node2", &india),
                n("node3", &china),
                n("node4", &china),
                n("node5", &india),
            ],
            ignore: false,
            want: Some(vec![100, 0, 100, 100, 0]),
        },
        Case {
            name: "Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
            pod: stay_s1_region_away_s2_az(pod().labels(&s1)),
            pods: vec![
                on("node1", &s1),
                on("node2", &s2),
                stay_s1_region_away_s2_az(pod().node("node3")),
                away_s1_az(pod().node("node4")),
            ],
            nodes: vec![
                n("node1", &china),
                n("node2", &az1),
                n("node3", &india),
                n("node4", &az2),
            ],
            ignore: false,
            want: Some(vec![100, 0, 100, 0]),
        },
        Case {
            name: "Avoid panic when partial nodes in a topology don't have pods with affinity",
            pod: pod().labels(&s1),
            pods: vec![on("node1", &s1), stay_s1_region_away_s2_az(pod().node("node2"))],
            nodes: vec![n("node1", &china), n("node2", &china)],
            ignore: false,
            want: Some(vec![0, 0]),
        },
        Case {
            name: "Affinity with pods matching NamespaceSelector",
            pod: affinity_ns_selector(pod().ns("subteam1.team1").labels(&s1)),
            pods: vec![
                on("node1", &s1).ns("subteam1.team1"),
                on("node1", &s1).ns("subteam1.team1"),
                on("node1", &s1).ns("subteam1.team2"),
                on("node2", &s1).ns("subteam2.team1"),
            ],
            nodes: vec![n("node1", &china), n("node2", &india)],
            ignore: false,
            want: Some(vec![100, 0]),
        },
        Case {
            name: "Affinity with pods matching both NamespaceSelector and Namespaces fields",
            pod: affinity_ns_selector(pod().ns("subteam1.team1").labels(&s1)),
            pods: vec![
                on("node1", &s1).ns("subteam1.team1"),
                on("node1", &s1).ns("subteam1.team1"),
                on("node1", &s1).ns("subteam2.team2"),
                on("node2", &s1).ns("subteam2.team1"),
            ],
            nodes: vec![n("node1", &china), n("node2", &india)],
            ignore: false,
            want: Some(vec![100, 0]),
        },
        Case {
            name: "Anti-affinity with pods matching NamespaceSelector",
            pod: anti_affinity_ns_selector(pod().ns("subteam1.team1").labels(&s1)),
            pods: vec![
                on("node1", &s1).ns("subteam1.team1"),
                on("node1", &s1).ns("subteam1.team1"),
                on("node1", &s1).ns("subteam1.team2"),
                on("node2", &s1).ns("subteam2.team1"),
            ],
            nodes: vec![n("node1", &china), n("node2", &india)],
            ignore: false,
            want: Some(vec![0, 100]),
        },
        Case {
            name: "Anti-affinity with pods matching both NamespaceSelector and Namespaces fields",
            pod: anti_affinity_ns_selector(pod().ns("subteam1.team1").labels(&s1)),
            pods: vec![
                on("node1", &s1).ns("subteam1.team1"),
                on("node1", &s1).ns("subteam1.team1"),
                on("node1", &s1).ns("subteam2.team2"),
                on("node2", &s1).ns("subteam2.team1"),
            ],
            nodes: vec![n("node1", &china), n("node2", &india)],
            ignore: false,
            want: Some(vec![0, 100]),
        },
        Case {
            name: "Ignore preferred terms of existing pods",
            pod: pod().labels(&s2),
            pods: vec![
                stay_s1_region_away_s2_az(on("node1", &s1)),
                stay_s2_region(on("node2", &s2)),
            ],
            nodes: vec![n("node1", &china), n("node2", &india)],
            ignore: true,
            want: None,
        },
        Case {
            name: "Do not ignore preferred terms of existing pods",
            pod: pod().labels(&s2),
            pods: vec![
                stay_s1_region_away_s2_az(on("node1", &s1)),
                stay_s2_region(on("node2", &s2)),
            ],
            nodes: vec![n("node1", &china), n("node2", &india)],
            ignore: false,
            want: Some(vec![0, 100]),
        },
    ];
    for c in cases {
        let pl = InterPodAffinity {
            hard_pod_affinity_weight: 1,
            ignore_preferred_terms_of_existing_pods: c.ignore,
        };
        let snap = snapshot(&c.nodes, &c.pods, &team_namespaces(), V30);
        let (s, got) = run_score(&pl, &snap, &c.pod.info(V30));
        match c.want {
            None => assert_eq!(s.code, Code::Skip, "{}", c.name),
            Some(want) => {
                assert!(s.is_success(), "{}: {s:?}", c.name);
                assert_eq!(got.iter().map(|x| x.1).collect::<Vec<_>>(), want, "{}", c.name);
            }
        }
    }
}

#[test]
fn no_nodes_to_score_is_skip() {
    let snap = snapshot(&[], &[], &[], V30);
    let pl = InterPodAffinity::default();
    let cx = Ctx { snapshot: &snap };
    let s = pl.pre_score(
        &cx,
        &mut CycleState::default(),
        &pod().labels(&[("security", "S2")]).info(V30),
        &[],
    );
    assert_eq!(s.code, Code::Skip);
}

#[test]
fn raw_scores_of_upstream_cases() {
    // "different Label operators": node1 (China) gets 2 from the S1 pods' Exists term, node2
    // (India) 8 + 2 from the S2 pod, node3 lacks the region label.
    let s1 = [("security", "S1")];
    let snap = snapshot(
        &[
            node("node1", &[("region", "China")]),
            node("node2", &[("region", "India")]),
            node("node3", &[("az", "az1")]),
        ],
        &[
            pod().node("node1").labels(&s1),
            pod().node("node2").labels(&[("security", "S2")]),
            pod().node("node3").labels(&s1),
        ],
        &[],
        V30,
    );
    let (_, got) = run_score(
        &InterPodAffinity::default(),
        &snap,
        &affinity3(pod().labels(&s1)).info(V30),
    );
    assert_eq!(got, vec![(2, 20), (10, 100), (0, 0)]);
    // Preferred anti-affinity makes raw scores negative; min-max maps them to [0, 100].
    let snap = snapshot(
        &[
            node("a", &[("az", "1")]),
            node("b", &[("az", "2")]),
            node("c", &[("az", "3")]),
        ],
        &[
            pod().node("a").labels(&s1),
            pod().node("a").labels(&s1),
            pod().node("b").labels(&s1),
        ],
        &[],
        V30,
    );
    let (_, got) = run_score(&InterPodAffinity::default(), &snap, &away_s1_az(pod()).info(V30));
    assert_eq!(got, vec![(-10, 0), (-5, 50), (0, 100)]);
}

#[test]
fn normalize_min_max_truncates() {
    let ns = |v: &[i64]| {
        v.iter()
            .enumerate()
            .map(|(i, s)| NodeScore {
                name: format!("n{i}").into(),
                score: *s,
            })
            .collect::<Vec<_>>()
    };
    for (input, want) in [
        (vec![-168, -83], vec![0, 100]),
        (vec![0, 1, 3], vec![0, 33, 100]),
        (vec![-3, -2, 0], vec![0, 33, 100]),
        (vec![7, 7], vec![0, 0]),
        (vec![-5], vec![0]),
        (vec![1, 2, 3, 4, 5, 6, 7], vec![0, 16, 33, 50, 66, 83, 100]),
    ] {
        let mut s = ns(&input);
        normalize(&mut s);
        assert_eq!(s.iter().map(|x| x.score).collect::<Vec<_>>(), want, "{input:?}");
    }
}

#[test]
fn cancelling_terms_still_score() {
    // A preferred affinity and anti-affinity term that cancel leave a zero entry: upstream
    // does not Skip (a term matched), every node normalizes to 0.
    let s1 = [("security", "S1")];
    let snap = snapshot(
        &[node("a", &[("zone", "1")]), node("b", &[("zone", "2")])],
        &[pod().node("a").labels(&s1)],
        &[],
        V30,
    );
    let p = pod()
        .pref_affinity(5, term("zone").values_in("security", &["S1"]))
        .pref_anti(5, term("zone").values_in("security", &["S1"]));
    let (s, got) = run_score(&InterPodAffinity::default(), &snap, &p.info(V30));
    assert!(s.is_success());
    assert_eq!(got, vec![(0, 0), (0, 0)]);
}

#[test]
fn preferred_affinity_with_hard_pod_affinity_symmetric_weight() {
    let hard = |p: PodB| {
        p.req_affinity(
            term("region")
                .values_in("service", &["S1"])
                .namespaces(&["", "subteam2.team2"])
                .ns_in("team", &["team1"]),
        )
    };
    let nodes = vec![
        node("node1", &[("region", "China")]),
        node("node2", &[("region", "India")]),
        node("node3", &[("az", "az1")]),
    ];
    let pods = vec![hard(pod().node("node1")), hard(pod().node("node2"))];
    let svc = [("service", "S1")];
    let cases: Vec<(&str, PodB, i32, Option<Vec<i64>>)> = vec![
        ("with default weight", pod().labels(&svc), 1, Some(vec![100, 100, 0])),
        ("with zero weight", pod().labels(&svc), 0, None),
        (
            "with no matching namespace",
            pod().ns("subteam1.team2").labels(&svc),
            1,
            None,
        ),
        (
            "with matching NamespaceSelector",
            pod().ns("subteam1.team1").labels(&svc),
            1,
            Some(vec![100, 100, 0]),
        ),
        (
            "with matching Namespaces",
            pod().ns("subteam2.team2").labels(&svc),
            1,
            Some(vec![100, 100, 0]),
        ),
    ];
    let snap = snapshot(&nodes, &pods, &team_namespaces(), V30);
    for (name, p, w, want) in cases {
        let pl = InterPodAffinity {
            hard_pod_affinity_weight: w,
            ignore_preferred_terms_of_existing_pods: false,
        };
        let (s, got) = run_score(&pl, &snap, &p.info(V30));
        match want {
            None => assert_eq!(s.code, Code::Skip, "{name}"),
            Some(want) => assert_eq!(got.iter().map(|x| x.1).collect::<Vec<_>>(), want, "{name}"),
        }
    }
    // The weight itself is the raw score of the pair.
    let pl = InterPodAffinity {
        hard_pod_affinity_weight: 7,
        ignore_preferred_terms_of_existing_pods: false,
    };
    let (_, got) = run_score(&pl, &snap, &pod().labels(&svc).info(V30));
    assert_eq!(got, vec![(7, 100), (7, 100), (0, 0)]);
}

#[test]
fn score_without_pre_score_is_an_error() {
    let snap = snapshot(&[node("n", &[])], &[], &[], V30);
    let cx = Ctx { snapshot: &snap };
    let s = InterPodAffinity::default().score(&cx, &CycleState::default(), &pod().info(V30), &snap.nodes[0]);
    assert_eq!(
        s.map_err(|s| *s),
        Err(Status::error(
            "failed to read \"PreScoreInterPodAffinity\" from cycleState: not found"
        ))
    );
}

#[test]
fn existing_terms_are_grouped_by_term_with_one_use_per_pod() {
    // Two pods of one workload carry equal terms: one distinct term, a use per pod; a term
    // with another weight is another use of the same term, and another selector another term.
    let nodes = vec![
        node("n1", &[("az", "az1"), ("region", "r1")]),
        node("n2", &[("az", "az2"), ("region", "r1")]),
    ];
    let pods = vec![
        away_s1_az(pod().node("n1")),
        away_s1_az(pod().node("n2")),
        away_s2_az(pod().node("n2")),
        stay_s1_region_away_s2_az(pod().node("n1")),
        pod().node("n1"),
    ];
    let snap = snapshot(&nodes, &pods, &team_namespaces(), V30);
    let g = &snap.index.terms;
    assert_eq!(g.terms.len(), 3, "S1 in az, S2 in az, S1 in region");
    let uses: Vec<(u32, u32, Weight)> = g.uses.iter().map(|u| (u.node, u.term, u.weight)).collect();
    let s1_az = g.terms.iter().position(|t| {
        t.topology_key == "az"
            && t.selector
                .matches(&Labels::from([("security".to_string(), "S1".to_string())]))
    });
    let s1_az = s1_az.expect("S1 in az") as u32;
    assert_eq!(uses.iter().filter(|u| u.1 == s1_az).count(), 2, "{uses:?}");
    assert_eq!(uses.len(), 5, "one use per pod's term: {uses:?}");
    assert!(uses.contains(&(0, s1_az, Weight::Preferred(-5))));
    assert!(uses.contains(&(1, s1_az, Weight::Preferred(-5))));
    assert_eq!(uses.iter().filter(|u| u.2 == Weight::Preferred(8)).count(), 1);
}
