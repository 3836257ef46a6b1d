//! VolumeBinding tests: volume_binding_test.go's TestVolumeBinding table, and binder cases
//! (eligible nodes, provisioning, capacity, selected node, matching rules).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::storage::v1 as storage;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as KQ;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::binder::*;
use super::*;
use crate::engine::plugins::volume_helpers::testutil::*;
use crate::engine::plugins::volume_helpers::{ANN_SELECTED_NODE, LABEL_HOSTNAME};
use crate::engine::release::Release;

fn make_node(name: &str, extra: &[(&str, &str)]) -> crate::model::Node {
    let mut labels = vec![(LABEL_HOSTNAME, name)];
    labels.extend_from_slice(extra);
    node(name, &labels)
}

fn make_pv(name: &str, class: &str) -> core::PersistentVolume {
    let mut p = pv(name);
    p.spec.get_or_insert_with(Default::default).storage_class_name = Some(class.into());
    p
}

fn phase(mut p: core::PersistentVolume, ph: &str) -> core::PersistentVolume {
    p.status = Some(core::PersistentVolumeStatus {
        phase: Some(ph.into()),
        ..Default::default()
    });
    p
}

fn capacity(mut p: core::PersistentVolume, q: &str) -> core::PersistentVolume {
    p.spec.get_or_insert_with(Default::default).capacity = Some([("storage".to_string(), KQ(q.into()))].into());
    p
}

fn affinity(mut p: core::PersistentVolume, kv: &[(&str, &[&str])]) -> core::PersistentVolume {
    let exprs = kv
        .iter()
        .map(|(k, v)| core::NodeSelectorRequirement {
            key: (*k).into(),
            operator: "In".into(),
            values: Some(v.iter().map(|x| (*x).to_string()).collect()),
        })
        .collect();
    p.spec.get_or_insert_with(Default::default).node_affinity = Some(core::VolumeNodeAffinity {
        required: Some(core::NodeSelector {
            node_selector_terms: vec![core::NodeSelectorTerm {
                match_expressions: Some(exprs),
                match_fields: None,
            }],
        }),
    });
    p
}

fn make_pvc(name: &str, class: &str) -> core::PersistentVolumeClaim {
    with_class(pvc("default", name), class)
}

fn pvc_lost(mut c: core::PersistentVolumeClaim) -> core::PersistentVolumeClaim {
    c.status = Some(core::PersistentVolumeClaimStatus {
        phase: Some("Lost".into()),
        ..Default::default()
    });
    c
}

fn classes() -> Vec<storage::StorageClass> {
    vec![
        class("immediate-sc", "Immediate", ""),
        class("wait-sc", "WaitForFirstConsumer", ""),
        class("wait-hdd-sc", "WaitForFirstConsumer", ""),
    ]
}

struct Case {
    name: &'static str,
    claims: Vec<&'static str>,
    nodes: Vec<crate::model::Node>,
    pvcs: Vec<core::PersistentVolumeClaim>,
    pvs: Vec<core::PersistentVolume>,
    capacity_priority: bool,
    shape: Option<Vec<UtilizationShapePoint>>,
    want_pre: Status,
    want_filter: Vec<Status>,
    want_scores: Vec<i64>,
}

fn case(name: &'static str, claims: Vec<&'static str>, nodes: Vec<crate::model::Node>) -> Case {
    Case {
        name,
        claims,
        nodes,
        pvcs: vec![],
        pvs: vec![],
        capacity_priority: false,
        shape: None,
        want_pre: Status::success(),
        want_filter: vec![],
        want_scores: vec![],
    }
}

fn run(c: Case) {
    let node_names: Vec<String> = c.nodes.iter().map(|n| n.name.clone()).collect();
    let w = World {
        nodes: c.nodes,
        pvcs: c.pvcs,
        pvs: c.pvs,
        classes: classes(),
        ..Default::default()
    };
    let s = w.snapshot();
    let cx = Ctx { snapshot: &s };
    let args = Args {
        bind_timeout_seconds: Some(300),
        shape: c.shape.or_else(|| {
            c.capacity_priority.then(|| {
                vec![
                    UtilizationShapePoint {
                        utilization: 0,
                        score: 0,
                    },
                    UtilizationShapePoint {
                        utilization: 100,
                        score: 10,
                    },
                ]
            })
        }),
    };
    let pl = build(args, &Release::OLDEST.into(), c.capacity_priority).expect("plugin");
    let vols = c.claims.iter().map(|n| pvc_vol("", n)).collect();
    let p = info(pod("default", "pod-a", vols));
    let mut state = CycleState::default();
    let (_, pre) = pl.pre_filter(&cx, &mut state, &p);
    assert_eq!(pre, c.want_pre, "{}: prefilter", c.name);
    if !pre.is_success() {
        return;
    }
    for (i, n) in node_names.iter().enumerate() {
        assert_eq!(
            pl.filter(&cx, &state, &p, node_info(&s, n)),
            c.want_filter[i],
            "{}: filter {n}",
            c.name
        );
    }
    for (i, n) in node_names.iter().enumerate() {
        let score = pl.score(&cx, &state, &p, node_info(&s, n)).expect("Score");
        assert_eq!(score, c.want_scores[i], "{}: score {n}", c.name);
    }
}

fn unresolvable(reasons: &[&str]) -> Status {
    Status::new(
        Code::UnschedulableAndUnresolvable,
        reasons.iter().map(|r| r.to_string()),
    )
}

#[test]
fn volume_binding_table() {
    // volume_binding_test.go TestVolumeBinding
    let ok = Status::success();
    let mut c = case("pod has no pvcs", vec![], vec![make_node("node-a", &[])]);
    c.want_pre = Status::skip();
    run(c);

    let mut c = case("all bound", vec!["pvc-a"], vec![make_node("node-a", &[])]);
    c.pvcs = vec![bound_to(make_pvc("pvc-a", "wait-sc"), "pv-a")];
    c.pvs = vec![phase(make_pv("pv-a", "wait-sc"), "Available")];
    c.want_filter = vec![ok.clone()];
    c.want_scores = vec![0];
    run(c);

    let mut c = case("PVC does not exist", vec!["pvc-a"], vec![make_node("node-a", &[])]);
    c.want_pre = Status::unresolvable("persistentvolumeclaim \"pvc-a\" not found");
    run(c);

    let mut c = case(
        "part of PVCs do not exist",
        vec!["pvc-a", "pvc-b"],
        vec![make_node("node-a", &[])],
    );
    c.pvcs = vec![bound_to(make_pvc("pvc-a", "wait-sc"), "pv-a")];
    c.want_pre = Status::unresolvable("persistentvolumeclaim \"pvc-b\" not found");
    run(c);

    let mut c = case(
        "immediate claims not bound",
        vec!["pvc-a"],
        vec![make_node("node-a", &[])],
    );
    c.pvcs = vec![make_pvc("pvc-a", "immediate-sc")];
    c.want_pre = unresolvable(&[ERR_REASON_UNBOUND_IMMEDIATE]);
    run(c);

    let mut c = case(
        "unbound claims no matches",
        vec!["pvc-a"],
        vec![make_node("node-a", &[])],
    );
    c.pvcs = vec![make_pvc("pvc-a", "wait-sc")];
    c.want_filter = vec![unresolvable(&[ERR_REASON_BIND_CONFLICT])];
    c.want_scores = vec![0];
    run(c);

    let mut c = case(
        "bound and unbound unsatisfied",
        vec!["pvc-a", "pvc-b"],
        vec![make_node("node-a", &[("foo", "barbar")])],
    );
    c.pvcs = vec![
        bound_to(make_pvc("pvc-a", "wait-sc"), "pv-a"),
        make_pvc("pvc-b", "wait-sc"),
    ];
    c.pvs = vec![affinity(
        phase(make_pv("pv-a", "wait-sc"), "Available"),
        &[("foo", &["bar"])],
    )];
    c.want_filter = vec![unresolvable(&[ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT])];
    c.want_scores = vec![0];
    run(c);

    let mut c = case("pv not found", vec!["pvc-a"], vec![make_node("node-a", &[])]);
    c.pvcs = vec![bound_to(make_pvc("pvc-a", "wait-sc"), "pv-a")];
    c.want_filter = vec![unresolvable(&[ERR_REASON_PV_NOT_EXIST])];
    c.want_scores = vec![0];
    run(c);

    let mut c = case("pv not found claim lost", vec!["pvc-a"], vec![make_node("node-a", &[])]);
    c.pvcs = vec![pvc_lost(bound_to(make_pvc("pvc-a", "wait-sc"), "pv-a"))];
    c.want_pre =
        Status::unresolvable("persistentvolumeclaim \"pvc-a\" bound to non-existent persistentvolume \"pv-a\"");
    run(c);

    let local = |name: &str, class: &str, cap: &str, node: &str| {
        affinity(
            capacity(phase(make_pv(name, class), "Available"), cap),
            &[(LABEL_HOSTNAME, &[node])],
        )
    };
    let abc = || {
        vec![
            make_node("node-a", &[]),
            make_node("node-b", &[]),
            make_node("node-c", &[]),
        ]
    };
    let mut c = case("local volumes with close capacity are preferred", vec!["pvc-a"], abc());
    c.pvcs = vec![with_request(make_pvc("pvc-a", "wait-sc"), "50Gi")];
    c.pvs = vec![
        local("pv-a-0", "wait-sc", "200Gi", "node-a"),
        local("pv-a-1", "wait-sc", "200Gi", "node-a"),
        local("pv-b-0", "wait-sc", "100Gi", "node-b"),
        local("pv-b-1", "wait-sc", "100Gi", "node-b"),
    ];
    c.capacity_priority = true;
    c.want_filter = vec![ok.clone(), ok.clone(), unresolvable(&[ERR_REASON_BIND_CONFLICT])];
    c.want_scores = vec![25, 50, 0];
    run(c);

    let mut c = case(
        "local volumes with close capacity are preferred (multiple pvcs)",
        vec!["pvc-0", "pvc-1"],
        abc(),
    );
    c.pvcs = vec![
        with_request(make_pvc("pvc-0", "wait-sc"), "50Gi"),
        with_request(make_pvc("pvc-1", "wait-hdd-sc"), "100Gi"),
    ];
    c.pvs = vec![
        local("pv-a-0", "wait-sc", "200Gi", "node-a"),
        local("pv-a-1", "wait-sc", "200Gi", "node-a"),
        local("pv-a-2", "wait-hdd-sc", "200Gi", "node-a"),
        local("pv-a-3", "wait-hdd-sc", "200Gi", "node-a"),
        local("pv-b-0", "wait-sc", "100Gi", "node-b"),
        local("pv-b-1", "wait-sc", "100Gi", "node-b"),
        local("pv-b-2", "wait-hdd-sc", "100Gi", "node-b"),
        local("pv-b-3", "wait-hdd-sc", "100Gi", "node-b"),
    ];
    c.capacity_priority = true;
    c.want_filter = vec![ok.clone(), ok.clone(), unresolvable(&[ERR_REASON_BIND_CONFLICT])];
    c.want_scores = vec![38, 75, 0];
    run(c);

    let zonal_nodes = || {
        ["a", "b", "c"]
            .iter()
            .flat_map(|z| {
                ["node-a", "node-b"].iter().map(move |n| {
                    make_node(
                        &format!("zone-{z}-{n}"),
                        &[
                            ("topology.kubernetes.io/region", &format!("region-{z}")),
                            ("topology.kubernetes.io/zone", &format!("zone-{z}")),
                        ],
                    )
                })
            })
            .collect::<Vec<_>>()
    };
    let zonal = |name: &str, cap: &str, z: &str| {
        let region = format!("region-{z}");
        let zone = format!("zone-{z}");
        affinity(
            capacity(phase(make_pv(name, "wait-sc"), "Available"), cap),
            &[
                ("topology.kubernetes.io/region", &[&region]),
                ("topology.kubernetes.io/zone", &[&zone]),
            ],
        )
    };
    let zonal_pvs = || {
        vec![
            zonal("pv-a-0", "200Gi", "a"),
            zonal("pv-a-1", "200Gi", "a"),
            zonal("pv-b-0", "100Gi", "b"),
            zonal("pv-b-1", "100Gi", "b"),
        ]
    };
    let conflict = unresolvable(&[ERR_REASON_BIND_CONFLICT]);
    let mut c = case(
        "zonal volumes with close capacity are preferred",
        vec!["pvc-a"],
        zonal_nodes(),
    );
    c.pvcs = vec![with_request(make_pvc("pvc-a", "wait-sc"), "50Gi")];
    c.pvs = zonal_pvs();
    c.capacity_priority = true;
    c.want_filter = vec![
        ok.clone(),
        ok.clone(),
        ok.clone(),
        ok.clone(),
        conflict.clone(),
        conflict.clone(),
    ];
    c.want_scores = vec![25, 25, 50, 50, 0, 0];
    run(c);

    let mut c = case(
        "zonal volumes with close capacity are preferred (custom shape)",
        vec!["pvc-a"],
        zonal_nodes(),
    );
    c.pvcs = vec![with_request(make_pvc("pvc-a", "wait-sc"), "50Gi")];
    c.pvs = zonal_pvs();
    c.capacity_priority = true;
    c.shape = Some(vec![
        UtilizationShapePoint {
            utilization: 0,
            score: 0,
        },
        UtilizationShapePoint {
            utilization: 50,
            score: 3,
        },
        UtilizationShapePoint {
            utilization: 100,
            score: 5,
        },
    ]);
    c.want_filter = vec![
        ok.clone(),
        ok.clone(),
        ok.clone(),
        ok.clone(),
        conflict.clone(),
        conflict,
    ];
    c.want_scores = vec![15, 15, 30, 30, 0, 0];
    run(c);
}

#[test]
fn score_is_skipped_without_the_gate() {
    let w = World {
        nodes: vec![make_node("node-a", &[])],
        pvcs: vec![bound_to(make_pvc("pvc-a", "wait-sc"), "pv-a")],
        pvs: vec![phase(make_pv("pv-a", "wait-sc"), "Available")],
        classes: classes(),
        ..Default::default()
    };
    let s = w.snapshot();
    let cx = Ctx { snapshot: &s };
    let slots = register(&Value::Null, &Release::OLDEST.into()).expect("registers");
    assert!(slots.reserve.is_some() && slots.pre_bind.is_some());
    let p = info(pod("default", "pod-a", vec![pvc_vol("v", "pvc-a")]));
    let mut state = CycleState::default();
    let pf = slots.pre_filter.expect("prefilter");
    assert!(pf.pre_filter(&cx, &mut state, &p).1.is_success());
    let ps = slots.pre_score.expect("prescore");
    assert_eq!(
        ps.pre_score(&cx, &mut state, &p, &[node_info(&s, "node-a")]),
        Status::skip()
    );
    // With the gate (test-only) and a static binding, PreScore runs.
    let w = World {
        nodes: vec![make_node("node-a", &[])],
        pvcs: vec![make_pvc("pvc-a", "wait-sc")],
        pvs: vec![phase(make_pv("pv-a", "wait-sc"), "Available")],
        classes: classes(),
        ..Default::default()
    };
    let s = w.snapshot();
    let cx = Ctx { snapshot: &s };
    let pl = build(Args::default(), &Release::OLDEST.into(), true).expect("plugin");
    let mut state = CycleState::default();
    assert!(pl.pre_filter(&cx, &mut state, &p).1.is_success());
    assert!(
        pl.pre_score(&cx, &mut state, &p, &[node_info(&s, "node-a")])
            .is_success()
    );
}

#[test]
fn args_validation() {
    let err = |v: serde_json::Value| register(&v, &Release::OLDEST.into()).err();
    assert_eq!(err(serde_json::json!({"bindTimeoutSeconds": 10})), None);
    assert_eq!(
        err(serde_json::json!({"bindTimeoutSeconds": -1})).as_deref(),
        Some("bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value")
    );
    assert!(
        err(serde_json::json!({"shape": [{"utilization": 0, "score": 0}]}))
            .is_some_and(|e| e.contains("VolumeCapacityPriority"))
    );
    // validation_pluginargs.go: from 1.33 the gate to name is StorageCapacityScoring.
    assert_eq!(
        register(
            &serde_json::json!({"shape": [{"utilization": 0, "score": 0}]}),
            &Release::at(33).into()
        )
        .err()
        .as_deref(),
        Some(
            "shape: Invalid value: the shape points: unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"
        )
    );
    assert!(err(serde_json::json!({"other": 1})).is_some());
    let bad = vec![
        UtilizationShapePoint {
            utilization: 50,
            score: 1,
        },
        UtilizationShapePoint {
            utilization: 10,
            score: 2,
        },
    ];
    assert_eq!(
        build(
            Args {
                bind_timeout_seconds: None,
                shape: Some(bad)
            },
            &Release::OLDEST.into(),
            true
        )
        .err()
        .as_deref(),
        Some("shape[1].utilization: Invalid value: 10: utilization values must be sorted in increasing order")
    );
}

fn find(w: World, claims: &[&str], node: &str) -> Result<FindResult, String> {
    let s = w.snapshot();
    let p = pod("default", "pod-a", claims.iter().map(|c| pvc_vol("", c)).collect());
    let cv = get_pod_volume_claims(&s.cluster, &p)?;
    Binder {
        cluster: &s.cluster,
        gates: BinderGates::of(&Release::OLDEST.into()),
    }
    .find_pod_volumes(&p, &cv, &node_info(&s, node).node)
}

#[test]
fn eligible_nodes() {
    // binder_test.go TestGetEligibleNodes
    let w = |pvs: Vec<core::PersistentVolume>, pvcs: Vec<core::PersistentVolumeClaim>| World {
        pvs,
        pvcs,
        ..Default::default()
    };
    let bound = |n: &str, pv: &str| bound_to(make_pvc(n, ""), pv);
    let host = |name: &str, nodes: &[&str]| affinity(make_pv(name, ""), &[(LABEL_HOSTNAME, nodes)]);
    let elig = |w: World, claims: &[&str]| {
        let s = w.snapshot();
        let list: Vec<core::PersistentVolumeClaim> = claims
            .iter()
            .map(|c| {
                s.cluster
                    .pvcs
                    .get(&crate::model::ObjectKey::new("default", *c))
                    .cloned()
                    .expect("claim")
            })
            .collect();
        get_eligible_nodes(&s.cluster, &list).map(|s| s.into_iter().collect::<Vec<_>>())
    };
    assert_eq!(elig(w(vec![], vec![]), &[]), None, "no bound claims");
    assert_eq!(
        elig(w(vec![make_pv("pv-a", "")], vec![bound("pvc-a", "pv-a")]), &["pvc-a"]),
        None,
        "no local PV"
    );
    assert_eq!(
        elig(w(vec![], vec![bound("pvc-a", "pv-a")]), &["pvc-a"]),
        None,
        "missing PV"
    );
    assert_eq!(
        elig(
            w(
                vec![host("pv-a", &["node-1", "node-2"]), host("pv-b", &["node-2", "node-3"])],
                vec![bound("pvc-a", "pv-a"), bound("pvc-b", "pv-b")]
            ),
            &["pvc-a", "pvc-b"]
        ),
        Some(vec!["node-2".to_string()]),
        "intersection"
    );
    assert_eq!(
        elig(
            w(
                vec![host("pv-a", &["node-1"]), host("pv-b", &["node-2"])],
                vec![bound("pvc-a", "pv-a"), bound("pvc-b", "pv-b")]
            ),
            &["pvc-a", "pvc-b"]
        ),
        Some(vec![]),
        "disjoint local PVs leave no node"
    );
}

#[test]
fn provisioning_topology_and_capacity() {
    let base = || World {
        nodes: vec![
            make_node("node-1", &[("zone", "a")]),
            make_node("node-2", &[("zone", "b")]),
        ],
        pvcs: vec![with_request(make_pvc("claim", "prov-sc"), "5Gi")],
        ..Default::default()
    };
    let mut sc = class("prov-sc", "WaitForFirstConsumer", "csi.example.com");
    sc.allowed_topologies = Some(vec![core::TopologySelectorTerm {
        match_label_expressions: Some(vec![core::TopologySelectorLabelRequirement {
            key: "zone".into(),
            values: vec!["a".into()],
        }]),
    }]);
    let mut w = base();
    w.classes = vec![sc.clone()];
    let r = find(w, &["claim"], "node-1").expect("finds");
    assert!(r.reasons.is_empty());
    assert_eq!(r.volumes.dynamic_provisions.len(), 1);
    assert_eq!(r.volumes.dynamic_provisions[0].node_capacity, None);
    let mut w = base();
    w.classes = vec![sc.clone()];
    assert_eq!(
        find(w, &["claim"], "node-2").expect("finds").reasons,
        vec![ERR_REASON_BIND_CONFLICT],
        "topology"
    );
    // Storage capacity tracking: the driver opts in; only a reachable, large enough capacity helps.
    let driver = storage::CSIDriver {
        metadata: meta("", "csi.example.com"),
        spec: storage::CSIDriverSpec {
            storage_capacity: Some(true),
            ..Default::default()
        },
    };
    let cap = |name: &str, zone: &str, c: &str, max: Option<&str>| storage::CSIStorageCapacity {
        metadata: meta("kube-system", name),
        storage_class_name: "prov-sc".into(),
        node_topology: Some(LabelSelector {
            match_labels: Some([("zone".to_string(), zone.to_string())].into()),
            match_expressions: None,
        }),
        capacity: Some(KQ(c.into())),
        maximum_volume_size: max.map(|m| KQ(m.into())),
    };
    let mut open = sc.clone();
    open.allowed_topologies = None;
    let world = |caps: Vec<storage::CSIStorageCapacity>| {
        let mut w = base();
        w.classes = vec![open.clone()];
        w.csi_drivers = vec![driver.clone()];
        w.capacities = caps;
        w
    };
    assert_eq!(
        find(world(vec![]), &["claim"], "node-1").expect("finds").reasons,
        vec![ERR_REASON_NOT_ENOUGH_SPACE]
    );
    assert!(
        find(world(vec![cap("c1", "a", "10Gi", None)]), &["claim"], "node-1")
            .expect("finds")
            .reasons
            .is_empty()
    );
    assert_eq!(
        find(world(vec![cap("c1", "a", "10Gi", None)]), &["claim"], "node-2")
            .expect("finds")
            .reasons,
        vec![ERR_REASON_NOT_ENOUGH_SPACE],
        "capacity of another zone"
    );
    assert_eq!(
        find(world(vec![cap("c1", "a", "1Ti", Some("1Gi"))]), &["claim"], "node-1")
            .expect("finds")
            .reasons,
        vec![ERR_REASON_NOT_ENOUGH_SPACE],
        "maximumVolumeSize wins over capacity"
    );
    // Without a storage request capacity is not checked.
    let mut w = world(vec![]);
    w.pvcs = vec![make_pvc("claim", "prov-sc")];
    assert!(find(w, &["claim"], "node-1").expect("finds").reasons.is_empty());
    // no-provisioner classes cannot provision.
    let mut w = base();
    w.classes = vec![class("prov-sc", "WaitForFirstConsumer", "kubernetes.io/no-provisioner")];
    assert_eq!(
        find(w, &["claim"], "node-1").expect("finds").reasons,
        vec![ERR_REASON_BIND_CONFLICT]
    );
}

#[test]
fn selected_node_and_errors() {
    let mut claim = make_pvc("claim", "wait-sc");
    claim.metadata.annotations = Some(BTreeMap::from([(ANN_SELECTED_NODE.to_string(), "node-1".to_string())]));
    let w = || World {
        nodes: vec![make_node("node-1", &[]), make_node("node-2", &[])],
        pvcs: vec![claim.clone()],
        classes: vec![class("wait-sc", "WaitForFirstConsumer", "csi.example.com")],
        ..Default::default()
    };
    assert!(find(w(), &["claim"], "node-1").expect("finds").reasons.is_empty());
    assert_eq!(
        find(w(), &["claim"], "node-2").expect("finds").reasons,
        vec![ERR_REASON_BIND_CONFLICT]
    );
    // A WaitForFirstConsumer claim whose class is gone during provisioning.
    let w = World {
        nodes: vec![make_node("node-1", &[])],
        pvcs: vec![make_pvc("claim", "wait-sc")],
        classes: vec![class("wait-sc", "WaitForFirstConsumer", "x")],
        ..Default::default()
    };
    let s = w.snapshot();
    let p = pod("default", "pod-a", vec![pvc_vol("", "claim")]);
    let mut cv = get_pod_volume_claims(&s.cluster, &p).expect("claims");
    cv.unbound_delay_binding[0]
        .spec
        .get_or_insert_with(Default::default)
        .storage_class_name = Some("gone".into());
    let b = Binder {
        cluster: &s.cluster,
        gates: BinderGates::of(&Release::OLDEST.into()),
    };
    assert_eq!(
        b.find_pod_volumes(&p, &cv, &node_info(&s, "node-1").node)
            .err()
            .as_deref(),
        Some("failed to find storage class \"gone\"")
    );
}

#[test]
fn matching_rules() {
    let n = make_node("node-1", &[("zone", "a")]);
    let claim = with_modes(with_request(make_pvc("claim", "wait-sc"), "5Gi"), &["ReadWriteOnce"]);
    let avail = |name: &str, cap: &str| {
        let mut p = capacity(phase(make_pv(name, "wait-sc"), "Available"), cap);
        p.spec.get_or_insert_with(Default::default).access_modes = Some(vec!["ReadWriteOnce".into()]);
        p
    };
    let none = std::collections::BTreeSet::new();
    let name =
        |r: Result<Option<&core::PersistentVolume>, String>| r.expect("ok").and_then(|p| p.metadata.name.clone());
    // The smallest large enough PV wins.
    let pvs = vec![avail("big", "20Gi"), avail("small", "1Gi"), avail("fit", "5Gi")];
    assert_eq!(
        name(find_matching_volume(
            &claim,
            &pvs,
            &n,
            &none,
            BinderGates::of(&Release::OLDEST.into())
        )),
        Some("fit".into())
    );
    // Excluded (already chosen) PVs are skipped.
    let chosen: std::collections::BTreeSet<String> = ["fit".to_string()].into();
    assert_eq!(
        name(find_matching_volume(
            &claim,
            &pvs,
            &n,
            &chosen,
            BinderGates::of(&Release::OLDEST.into())
        )),
        Some("big".into())
    );
    // Phase, access modes, volume mode, node affinity and selector all filter.
    let mut released = avail("released", "5Gi");
    released.status = Some(core::PersistentVolumeStatus {
        phase: Some("Released".into()),
        ..Default::default()
    });
    let mut rox = avail("rox", "5Gi");
    rox.spec.get_or_insert_with(Default::default).access_modes = Some(vec!["ReadOnlyMany".into()]);
    let mut block = avail("block", "5Gi");
    block.spec.get_or_insert_with(Default::default).volume_mode = Some("Block".into());
    let other_zone = affinity(avail("far", "5Gi"), &[("zone", &["b"])]);
    let pvs = vec![released, rox, block, other_zone];
    assert_eq!(
        name(find_matching_volume(
            &claim,
            &pvs,
            &n,
            &none,
            BinderGates::of(&Release::OLDEST.into())
        )),
        None
    );
    let mut sel = claim.clone();
    sel.spec.get_or_insert_with(Default::default).selector = Some(LabelSelector {
        match_labels: Some([("tier".to_string(), "gold".to_string())].into()),
        match_expressions: None,
    });
    let mut gold = avail("gold", "10Gi");
    gold.metadata.labels = Some([("tier".to_string(), "gold".to_string())].into());
    let pvs = vec![avail("plain", "5Gi"), gold];
    assert_eq!(
        name(find_matching_volume(
            &sel,
            &pvs,
            &n,
            &none,
            BinderGates::of(&Release::OLDEST.into())
        )),
        Some("gold".into())
    );
    // A PV pre-bound to the claim wins even when not Available; a mismatching node ends the search.
    let mut pre = capacity(make_pv("pre", "wait-sc"), "50Gi");
    pre.spec.get_or_insert_with(Default::default).claim_ref = Some(core::ObjectReference {
        name: Some("claim".into()),
        namespace: Some("default".into()),
        ..Default::default()
    });
    let pvs = vec![avail("fit", "5Gi"), pre.clone()];
    assert_eq!(
        name(find_matching_volume(
            &claim,
            &pvs,
            &n,
            &none,
            BinderGates::of(&Release::OLDEST.into())
        )),
        Some("pre".into())
    );
    let pre_far = affinity(pre, &[("zone", &["b"])]);
    let pvs = vec![pre_far, avail("fit", "5Gi")];
    assert_eq!(
        name(find_matching_volume(
            &claim,
            &pvs,
            &n,
            &none,
            BinderGates::of(&Release::OLDEST.into())
        )),
        None
    );
    // A PV claimed by someone else is skipped.
    let mut taken = avail("taken", "5Gi");
    taken.spec.get_or_insert_with(Default::default).claim_ref = Some(core::ObjectReference {
        name: Some("other".into()),
        namespace: Some("default".into()),
        ..Default::default()
    });
    assert_eq!(
        name(find_matching_volume(
            &claim,
            &[taken],
            &n,
            &none,
            BinderGates::of(&Release::OLDEST.into())
        )),
        None
    );
}

#[test]
fn bound_claim_without_bind_completed_is_immediate() {
    // spec.volumeName alone does not make a claim bound.
    let mut c = make_pvc("pvc-a", "wait-sc");
    c.spec.get_or_insert_with(Default::default).volume_name = Some("pv-a".into());
    let w = World {
        nodes: vec![make_node("node-a", &[])],
        pvcs: vec![c],
        pvs: vec![make_pv("pv-a", "wait-sc")],
        classes: classes(),
        ..Default::default()
    };
    let s = w.snapshot();
    let cx = Ctx { snapshot: &s };
    let pl = build(Args::default(), &Release::OLDEST.into(), false).expect("plugin");
    let p = info(pod("default", "pod-a", vec![pvc_vol("v", "pvc-a")]));
    let mut state = CycleState::default();
    assert_eq!(
        pl.pre_filter(&cx, &mut state, &p).1,
        unresolvable(&[ERR_REASON_UNBOUND_IMMEDIATE])
    );
}

#[test]
fn ephemeral_claims() {
    let mut p = pod("default", "pod-a", vec![ephemeral_vol("scratch")]);
    p.obj.metadata.uid = Some("uid-1".into());
    let w = World {
        nodes: vec![make_node("node-a", &[])],
        classes: classes(),
        ..Default::default()
    };
    let s = w.snapshot();
    let cx = Ctx { snapshot: &s };
    let pl = build(Args::default(), &Release::OLDEST.into(), false).expect("plugin");
    let mut state = CycleState::default();
    let pi = info(p.clone());
    assert_eq!(
        pl.pre_filter(&cx, &mut state, &pi).1,
        Status::unresolvable(
            "waiting for ephemeral volume controller to create the persistentvolumeclaim \"pod-a-scratch\""
        )
    );
    let w = World {
        nodes: vec![make_node("node-a", &[])],
        classes: classes(),
        pvcs: vec![make_pvc("pod-a-scratch", "wait-sc")],
        ..Default::default()
    };
    let s = w.snapshot();
    let cx = Ctx { snapshot: &s };
    assert_eq!(
        pl.pre_filter(&cx, &mut state, &pi).1,
        Status::unresolvable("PVC default/pod-a-scratch was not created for pod default/pod-a (pod is not owner)")
    );
}

#[test]
fn prefilter_narrows_to_local_pv_nodes_only_in_1_30() {
    // 1.30.6 returns the local PV's node in PreFilterResult (GetEligibleNodes); 1.32.0 dropped
    // it, and so did a 1.31 patch (v1.31.8): no result.
    let w = || World {
        nodes: vec![make_node("node-1", &[]), make_node("node-2", &[])],
        pvcs: vec![bound_to(make_pvc("pvc-a", ""), "pv-a")],
        pvs: vec![affinity(make_pv("pv-a", ""), &[(LABEL_HOSTNAME, &["node-1"])])],
        classes: classes(),
        ..Default::default()
    };
    let p = info(pod("default", "pod-a", vec![pvc_vol("v", "pvc-a")]));
    for (minor, want) in [
        (30, Some(vec!["node-1".to_string()])),
        (31, None),
        (32, None),
        (34, None),
    ] {
        let s = w().snapshot();
        let cx = Ctx { snapshot: &s };
        let pl = build(Args::default(), &Release::at(minor).into(), false).expect("plugin");
        let mut state = CycleState::default();
        let (r, st) = pl.pre_filter(&cx, &mut state, &p);
        assert!(st.is_success(), "1.{minor}: {st:?}");
        assert_eq!(r.map(|s| s.into_iter().collect::<Vec<_>>()), want, "1.{minor}");
    }
}

#[test]
fn volume_attributes_class_matching_by_version() {
    // pv_helpers.go FindMatchingVolume: 1.30 ignores volumeAttributesClassName; 1.31-1.33
    // (gate off) refuse a claim that names a class and skip PVs that name one; 1.34 (GA)
    // requires the same class on claim and PV.
    let n = make_node("node-1", &[]);
    let avail = |name: &str, vac: Option<&str>| {
        let mut p = capacity(phase(make_pv(name, "wait-sc"), "Available"), "5Gi");
        let s = p.spec.get_or_insert_with(Default::default);
        s.access_modes = Some(vec!["ReadWriteOnce".into()]);
        s.volume_attributes_class_name = vac.map(Into::into);
        p
    };
    let claim = |vac: Option<&str>| {
        let mut c = with_modes(with_request(make_pvc("claim", "wait-sc"), "5Gi"), &["ReadWriteOnce"]);
        c.spec.get_or_insert_with(Default::default).volume_attributes_class_name = vac.map(Into::into);
        c
    };
    let none = std::collections::BTreeSet::new();
    let pick = |c: &core::PersistentVolumeClaim, pvs: &[core::PersistentVolume], minor: u32| {
        find_matching_volume(c, pvs, &n, &none, BinderGates::of(&Release::at(minor).into()))
            .map(|p| p.and_then(|p| p.metadata.name.clone()))
    };
    let pvs = vec![avail("gold", Some("gold")), avail("plain", None)];
    // A claim without a class.
    assert_eq!(
        pick(&claim(None), &pvs, 30),
        Ok(Some("gold".into())),
        "1.30 ignores the class (first smallest)"
    );
    assert_eq!(pick(&claim(None), &pvs, 31), Ok(Some("plain".into())));
    assert_eq!(pick(&claim(None), &pvs, 34), Ok(Some("plain".into())));
    // A claim naming "gold".
    assert_eq!(pick(&claim(Some("gold")), &pvs, 30), Ok(Some("gold".into())));
    assert_eq!(
        pick(&claim(Some("gold")), &pvs, 33),
        Err("unsupported volumeAttributesClassName is set on claim default/claim when the feature-gate VolumeAttributesClass is disabled".into())
    );
    assert_eq!(pick(&claim(Some("gold")), &pvs, 34), Ok(Some("gold".into())));
    assert_eq!(pick(&claim(Some("silver")), &pvs, 34), Ok(None));
}

#[test]
fn node_conflict_reason_renamed_in_1_33() {
    // binder.go ErrReasonNodeConflict.
    let w = || World {
        nodes: vec![make_node("node-a", &[("foo", "barbar")])],
        pvcs: vec![bound_to(make_pvc("pvc-a", "wait-sc"), "pv-a")],
        pvs: vec![affinity(
            phase(make_pv("pv-a", "wait-sc"), "Available"),
            &[("foo", &["bar"])],
        )],
        classes: classes(),
        ..Default::default()
    };
    for (minor, reason) in [
        (32, "node(s) had volume node affinity conflict"),
        (33, "node(s) didn't match PersistentVolume's node affinity"),
        (34, "node(s) didn't match PersistentVolume's node affinity"),
    ] {
        let s = w().snapshot();
        let p = pod("default", "pod-a", vec![pvc_vol("v", "pvc-a")]);
        let cv = get_pod_volume_claims(&s.cluster, &p).expect("claims");
        let r = Binder {
            cluster: &s.cluster,
            gates: BinderGates::of(&Release::at(minor).into()),
        }
        .find_pod_volumes(&p, &cv, &node_info(&s, "node-a").node)
        .expect("finds");
        assert_eq!(r.reasons, vec![reason], "1.{minor}");
    }
}

/// volume_binding_test.go TestVolumeBinding cases of StorageCapacityScoring (beta and on in
/// 1.37; here 1.36 with the gate on, as upstream's table sets `fts.EnableStorageCapacityScoring`):
/// the default shape (0 → 10, 100 → 0) prefers the node with the most free capacity, from the
/// CSIStorageCapacity of a dynamic provision, or the static PVs when the pod has any.
#[test]
fn storage_capacity_scoring_table() {
    use crate::engine::release::{FeatureGates, Features};
    let features = Features::with_gates(
        Release::at(36),
        &FeatureGates::parse("StorageCapacityScoring=true").unwrap(),
    )
    .unwrap();
    let driver = storage::CSIDriver {
        metadata: meta("", "driver-with-storage-capacity"),
        spec: storage::CSIDriverSpec {
            storage_capacity: Some(true),
            ..Default::default()
        },
    };
    let cap = |name: &str, node: &str, c: &str| storage::CSIStorageCapacity {
        metadata: meta("default", name),
        storage_class_name: "wait-sc-capacity".into(),
        node_topology: Some(LabelSelector {
            match_labels: Some([(LABEL_HOSTNAME.to_string(), node.to_string())].into()),
            match_expressions: None,
        }),
        capacity: Some(KQ(c.into())),
        maximum_volume_size: None,
    };
    let nodes = || ["node-a", "node-b", "node-c"].map(|n| make_node(n, &[])).to_vec();
    let capacities = |c: [&str; 3]| {
        vec![
            cap("cap-a", "node-a", c[0]),
            cap("cap-b", "node-b", c[1]),
            cap("cap-c", "node-c", c[2]),
        ]
    };
    let run_scores = |claims: &[&str],
                      pvcs: Vec<core::PersistentVolumeClaim>,
                      pvs: Vec<core::PersistentVolume>,
                      caps: Vec<storage::CSIStorageCapacity>,
                      shape: Option<Vec<UtilizationShapePoint>>| {
        let mut cls = classes();
        cls.push(class(
            "wait-sc-capacity",
            "WaitForFirstConsumer",
            "driver-with-storage-capacity",
        ));
        let w = World {
            nodes: nodes(),
            pvcs,
            pvs,
            classes: cls,
            csi_drivers: vec![driver.clone()],
            capacities: caps,
            ..Default::default()
        };
        let s = w.snapshot();
        let cx = Ctx { snapshot: &s };
        let pl = build(
            Args {
                bind_timeout_seconds: Some(300),
                shape,
            },
            &features,
            true,
        )
        .expect("plugin");
        let p = info(pod("default", "pod-a", claims.iter().map(|n| pvc_vol("", n)).collect()));
        let mut state = CycleState::default();
        let (_, pre) = pl.pre_filter(&cx, &mut state, &p);
        assert!(pre.is_success(), "{pre:?}");
        let ns: Vec<&NodeInfo> = ["node-a", "node-b", "node-c"]
            .iter()
            .map(|n| node_info(&s, n))
            .collect();
        for n in &ns {
            assert_eq!(pl.filter(&cx, &state, &p, n), Status::success(), "filter {}", n.name());
        }
        assert_eq!(pl.pre_score(&cx, &mut state, &p, &ns), Status::success());
        assert!(
            !pl.scores_zero_everywhere(&state, &p),
            "a pod with claims is scored per node"
        );
        ns.iter()
            .map(|n| pl.score(&cx, &state, &p, n).expect("Score"))
            .collect::<Vec<i64>>()
    };
    let dynamic = |name: &str, q: &str| with_request(make_pvc(name, "wait-sc-capacity"), q);
    // "storage capacity score": 10Gi of 100/50/10Gi free.
    assert_eq!(
        run_scores(
            &["pvc-dynamic"],
            vec![dynamic("pvc-dynamic", "10Gi")],
            vec![],
            capacities(["100Gi", "50Gi", "10Gi"]),
            None
        ),
        vec![90, 80, 0]
    );
    // "storage capacity score with static binds": a 50Gi static claim on 100Gi PVs wins.
    let static_pv = |n: &str| {
        affinity(
            capacity(
                phase(make_pv(&format!("pv-static-{n}"), "wait-sc"), "Available"),
                "100Gi",
            ),
            &[(LABEL_HOSTNAME, &[n])],
        )
    };
    assert_eq!(
        run_scores(
            &["pvc-dynamic", "pvc-static"],
            vec![
                dynamic("pvc-dynamic", "10Gi"),
                with_request(make_pvc("pvc-static", "wait-sc"), "50Gi")
            ],
            ["node-a", "node-b", "node-c"].iter().map(|n| static_pv(n)).collect(),
            capacities(["100Gi", "50Gi", "10Gi"]),
            None
        ),
        vec![50, 50, 50]
    );
    // "dynamic provisioning with multiple PVCs of the same StorageClass": 2 × 50Gi of 100Gi
    // (the capacity is assigned, not summed).
    assert_eq!(
        run_scores(
            &["pvc-1", "pvc-2"],
            vec![dynamic("pvc-1", "50Gi"), dynamic("pvc-2", "50Gi")],
            vec![],
            capacities(["100Gi", "100Gi", "100Gi"]),
            None
        ),
        vec![0, 0, 0]
    );
    // "prefer node with least allocatable" (shape 0 → 0, 100 → 10) and "... maximum allocatable"
    // (the default shape) on 100/20/10Gi.
    let least = Some(vec![
        UtilizationShapePoint {
            utilization: 0,
            score: 0,
        },
        UtilizationShapePoint {
            utilization: 100,
            score: 10,
        },
    ]);
    assert_eq!(
        run_scores(
            &["pvc-dynamic"],
            vec![dynamic("pvc-dynamic", "10Gi")],
            vec![],
            capacities(["100Gi", "20Gi", "10Gi"]),
            least
        ),
        vec![10, 50, 100]
    );
    assert_eq!(
        run_scores(
            &["pvc-dynamic"],
            vec![dynamic("pvc-dynamic", "10Gi")],
            vec![],
            capacities(["100Gi", "20Gi", "10Gi"]),
            None
        ),
        vec![90, 50, 0]
    );
}

/// With StorageCapacityScoring on, a pod without claims is scored 0 on every node (PreFilter
/// writes an empty state before its Skip, PreScore no longer skips).
#[test]
fn storage_capacity_scoring_scores_pods_without_claims_zero() {
    use crate::engine::release::{FeatureGates, Features};
    let on = Features::with_gates(
        Release::at(36),
        &FeatureGates::parse("StorageCapacityScoring=true").unwrap(),
    )
    .unwrap();
    let w = World {
        nodes: vec![make_node("node-a", &[])],
        classes: classes(),
        ..Default::default()
    };
    let s = w.snapshot();
    let cx = Ctx { snapshot: &s };
    let pl = build(Args::default(), &on, true).expect("plugin");
    let p = info(pod("default", "pod-a", vec![]));
    let mut state = CycleState::default();
    assert_eq!(pl.pre_filter(&cx, &mut state, &p).1, Status::skip());
    let n = node_info(&s, "node-a");
    assert_eq!(pl.pre_score(&cx, &mut state, &p, &[n]), Status::success());
    assert_eq!(pl.score(&cx, &state, &p, n), Ok(0));
    assert!(
        pl.scores_zero_everywhere(&state, &p),
        "the runner need not call it per node"
    );
    assert!(
        !pl.scores_zero_everywhere(&CycleState::default(), &p),
        "without its state Score errs: it is called"
    );
}
