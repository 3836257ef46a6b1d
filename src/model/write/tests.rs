use super::*;
use crate::source::file::load_str;

const CLUSTER: &str = r#"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: low, namespace: a, uid: u-low}
  spec: {nodeName: n1, priority: 1, containers: [{name: c, image: i}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: low2, namespace: a, uid: u-low2}
  spec: {nodeName: n1, priority: 1, containers: [{name: c, image: i}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: high, namespace: a, uid: u-high}
  spec: {priority: 100, schedulerName: my-scheduler, containers: [{name: c, image: i}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: nominated-low, namespace: b}
  spec: {priority: 5, containers: [{name: c, image: i}]}
  status: {nominatedNodeName: n1}
- apiVersion: v1
  kind: Pod
  metadata: {name: nominated-higher, namespace: b}
  spec: {priority: 500, containers: [{name: c, image: i}]}
  status: {nominatedNodeName: n1}
"#;

fn k(s: &str) -> ObjectKey {
    ObjectKey::parse(s, "")
}

#[test]
fn a_pod_whose_claims_need_allocating_is_not_bound_without_them() {
    let text = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}}
- {apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: gpu, namespace: a}, spec: {devices: {requests: []}}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: ready, namespace: a}
  spec: {devices: {requests: []}}
  status: {allocation: {devices: {results: []}}, reservedFor: [{resource: pods, name: p, uid: u-p}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: a, uid: u-p}
  spec:
    containers: [{name: c, image: i}]
    resourceClaims: [{name: g, resourceClaimName: gpu}, {name: r, resourceClaimName: ready}]
"#;
    let c = load_str("t", text).unwrap();
    let e = bind_plan(&c, &k("a/p"), "n1", None).unwrap_err();
    assert!(matches!(&e, PlanError::ClaimsNeedWrites { claims, .. } if claims == &["a/gpu".to_string()]));
    assert!(
        e.to_string()
            .starts_with("pod a/p uses ResourceClaim(s) a/gpu that the scheduler allocates")
    );
    // With every claim allocated and reserved for it, the pod binds as any other.
    let c = load_str(
        "t",
        &text.replace("resourceClaimName: gpu}, ", "resourceClaimName: ready}, "),
    )
    .unwrap();
    assert!(bind_plan(&c, &k("a/p"), "n1", None).is_ok());
}

#[test]
fn bind_plan_posts_a_binding_with_the_pod_uid() {
    let c = load_str("t", CLUSTER).unwrap();
    let p = bind_plan(&c, &k("a/high"), "n1", None).unwrap();
    assert_eq!(p.requests.len(), 1);
    let r = &p.requests[0];
    assert_eq!(r.method(), "POST");
    assert_eq!(
        r.path_and_query(true),
        "/api/v1/namespaces/a/pods/high/binding?dryRun=All"
    );
    assert_eq!(
        r.body(false, "t"),
        json!({"apiVersion": "v1", "kind": "Binding",
                   "metadata": {"name": "high", "namespace": "a", "uid": "u-high"},
                   "target": {"kind": "Node", "name": "n1"}})
    );
    assert_eq!(r.access().to_string(), "create pods/binding in namespace 'a'");
    assert_eq!(
        bind_plan(&c, &k("a/low"), "n1", None),
        Err(PlanError::AlreadyBound {
            pod: k("a/low"),
            node: "n1".into()
        })
    );
    assert_eq!(
        bind_plan(&c, &k("a/high"), "nope", None),
        Err(PlanError::NoNode("nope".into()))
    );
    assert_eq!(
        bind_plan(&c, &k("a/none"), "n1", None),
        Err(PlanError::NoPod(k("a/none")))
    );
}

#[test]
fn preempt_plan_marks_then_deletes_each_victim_clears_lower_nominations_then_nominates() {
    let c = load_str("t", CLUSTER).unwrap();
    let p = preempt_plan(&c, &k("a/high"), "n1", &[k("a/low"), k("a/low2")], Removal::Delete).unwrap();
    let summaries: Vec<String> = p.requests.iter().map(WriteRequest::summary).collect();
    assert_eq!(
        summaries,
        [
            "mark a/low with condition DisruptionTarget (PreemptionByScheduler)",
            "delete a/low",
            "mark a/low2 with condition DisruptionTarget (PreemptionByScheduler)",
            "delete a/low2",
            "clear b/nominated-low status.nominatedNodeName",
            "set a/high status.nominatedNodeName to 'n1'",
        ]
    );
    let mark = p.requests[0].body(false, "2024-01-01T00:00:00Z");
    assert_eq!(
        mark["status"]["conditions"][0]["message"],
        "my-scheduler: preempting to accommodate a higher priority pod"
    );
    assert_eq!(mark["status"]["conditions"][0]["reason"], "PreemptionByScheduler");
    assert_eq!(
        p.requests[1].body(true, ""),
        json!({"apiVersion": "v1", "kind": "DeleteOptions",
                   "preconditions": {"uid": "u-low"}, "dryRun": ["All"]})
    );
    assert!(!p.requests[4].critical());
    assert_eq!(
        p.requests[5].body(false, ""),
        json!({"status": {"nominatedNodeName": "n1"}})
    );
    assert_eq!(
        p.requests[4].body(false, ""),
        json!({"status": {"nominatedNodeName": null}})
    );
}

#[test]
fn preempt_plan_with_evict_posts_evictions() {
    let c = load_str("t", CLUSTER).unwrap();
    let p = preempt_plan(&c, &k("a/high"), "n1", &[k("a/low")], Removal::Evict).unwrap();
    assert_eq!(p.requests[0].path(), "/api/v1/namespaces/a/pods/low/eviction");
    assert_eq!(
        p.requests[0].body(true, ""),
        json!({"apiVersion": "policy/v1", "kind": "Eviction",
                   "metadata": {"name": "low", "namespace": "a"},
                   "deleteOptions": {"preconditions": {"uid": "u-low"}, "dryRun": ["All"]}})
    );
    assert_eq!(
        p.requests[0].access().to_string(),
        "create pods/eviction in namespace 'a'"
    );
    assert_eq!(
        preempt_plan(&c, &k("a/high"), "n1", &[k("b/nominated-low")], Removal::Evict),
        Err(PlanError::VictimNotOnNode {
            victim: k("b/nominated-low"),
            node: "n1".into()
        })
    );
}

#[test]
fn report_names_removed_and_remaining_victims() {
    let c = load_str("t", CLUSTER).unwrap();
    let plan = preempt_plan(&c, &k("a/high"), "n1", &[k("a/low"), k("a/low2")], Removal::Evict).unwrap();
    let blocked = WriteError::PdbBlocked {
        pod: k("a/low2"),
        pdb: Some("web".into()),
        message: "The disruption budget web needs 2 healthy pods and has 2 currently".into(),
    };
    let r = Report {
        plan,
        steps: vec![
            Step::Done(Outcome::Done { code: 201 }),
            Step::Failed(blocked.clone()),
            Step::NotSent,
            Step::NotSent,
        ],
    };
    assert!(!r.ok());
    assert_eq!(r.victims_removed(), [k("a/low")]);
    assert_eq!(r.victims_remaining(), [(k("a/low2"), blocked.to_string())]);
    let text = r.render(false);
    assert!(text.contains("victims removed: a/low\n"), "{text}");
    assert!(text.contains("victim NOT removed: a/low2: eviction of a/low2 refused (429): PodDisruptionBudget 'web' does not allow it: The disruption budget web needs 2 healthy pods and has 2 currently; wait for it to allow a disruption or preempt without --evict"), "{text}");
}

#[test]
fn report_tells_already_gone_and_unanswered_victims_apart() {
    let c = load_str("t", CLUSTER).unwrap();
    let plan = preempt_plan(&c, &k("a/high"), "n1", &[k("a/low"), k("a/low2")], Removal::Delete).unwrap();
    let timeout = WriteError::Timeout {
        kind: "pod",
        what: "delete a/low2".into(),
        pod: k("a/low2"),
        secs: 1,
    };
    // low: its delete found it gone; low2: its delete got no answer
    let r = Report {
        plan: plan.clone(),
        steps: vec![
            Step::Done(Outcome::Done { code: 200 }),
            Step::Done(Outcome::AlreadyGone),
            Step::Done(Outcome::Done { code: 200 }),
            Step::Failed(timeout),
            Step::NotSent,
            Step::NotSent,
        ],
    };
    assert!(!r.ok());
    assert_eq!(r.victims_removed(), [k("a/low")]);
    assert!(r.victim_already_gone(&k("a/low")));
    assert!(!r.victim_already_gone(&k("a/low2")));
    assert_eq!(r.victims_unknown(), [k("a/low2")]);
    assert_eq!(r.victims_remaining(), [], "an unanswered delete is not 'not removed'");
    let text = r.render(false);
    assert!(text.contains("  2. delete a/low: already gone (404)\n"), "{text}");
    assert!(text.contains("victims removed: a/low\n"), "{text}");
    assert!(
        text.contains("victim UNKNOWN: a/low2: its removal got no answer; check with `kubectl get pod -n a low2`\n"),
        "{text}"
    );
    assert!(!text.contains("NOT removed"), "{text}");
    // a timed-out mark leaves the victim surely in place: its delete was never sent
    let r = Report {
        plan,
        steps: vec![
            Step::Failed(WriteError::Timeout {
                kind: "pod",
                what: "mark a/low".into(),
                pod: k("a/low"),
                secs: 1,
            }),
            Step::NotSent,
            Step::NotSent,
            Step::NotSent,
            Step::NotSent,
            Step::NotSent,
        ],
    };
    assert_eq!(r.victims_unknown(), []);
    assert_eq!(r.victims_remaining().len(), 2);
}

#[test]
fn server_messages_are_parsed() {
    assert_eq!(
        pdb_from_message("The disruption budget web-pdb needs 2 healthy pods and has 2 currently"),
        Some("web-pdb".into())
    );
    assert_eq!(pdb_from_message("Cannot evict pod"), None);
    assert_eq!(
        node_from_conflict(
            r#"Operation cannot be fulfilled on pods/binding "web-1": pod web-1 is already assigned to node "node-2""#
        ),
        Some("node-2".into())
    );
    assert_eq!(node_from_conflict("conflict"), None);
}

#[test]
fn error_messages_name_what_to_do() {
    assert_eq!(
        WriteError::Forbidden {
            access: "create pods/binding in namespace 'a'".into(),
            message: "User \"bob\" cannot create resource".into()
        }
        .to_string(),
        "not allowed to create pods/binding in namespace 'a' (403 Forbidden: User \"bob\" cannot create resource); ask a cluster admin for this permission"
    );
    assert_eq!(
        WriteError::Denied {
            access: "delete pods in namespace 'a'".into(),
            reason: String::new()
        }
        .to_string(),
        "not allowed to delete pods in namespace 'a': permission denied (the SelfSubjectAccessReview answers allowed: false, no reason given); ask a cluster admin for this permission"
    );
    assert_eq!(
        WriteError::AlreadyBound {
            pod: k("a/p"),
            node: "n2".into()
        }
        .to_string(),
        "pod a/p is already bound to node 'n2' (409 Conflict); nothing to do"
    );
    assert_eq!(
        WriteError::Timeout {
            kind: "pod",
            what: "bind a/p to node 'n'".into(),
            pod: k("a/p"),
            secs: 5
        }
        .to_string(),
        "no answer within 5s to 'bind a/p to node 'n''; it may or may not have been applied: check with `kubectl get pod -n a p`"
    );
    assert_eq!(
        WriteError::Api {
            what: "delete a/p".into(),
            code: 500,
            reason: "InternalError".into(),
            message: "boom".into()
        }
        .to_string(),
        "'delete a/p' failed (500 InternalError): boom"
    );
}

fn pv_update(edit: Edit) -> WriteRequest {
    WriteRequest::Update(Box::new(Update {
        plugin: "VolumeBinding",
        pod: k("shop/db-0"),
        target: Target::PersistentVolume,
        key: ObjectKey::new("", "pv-1"),
        status: false,
        edit,
    }))
}

fn claim_ref_edit() -> Edit {
    Edit::ClaimRef {
        claim: k("shop/data"),
        uid: "u-data".into(),
        resource_version: "41".into(),
    }
}

#[test]
fn a_volume_gets_the_claim_ref_and_the_bound_by_controller_annotation() {
    // GetBindVolumeToClaim: an available volume gets the full claimRef and the annotation
    let mut pv =
        json!({"metadata": {"name": "pv-1", "resourceVersion": "7"}, "spec": {"capacity": {"storage": "10Gi"}}});
    assert!(claim_ref_edit().apply(&mut pv, "t"));
    assert_eq!(
        pv,
        json!({
            "metadata": {"name": "pv-1", "resourceVersion": "7",
                         "annotations": {"pv.kubernetes.io/bound-by-controller": "yes"}},
            "spec": {"capacity": {"storage": "10Gi"},
                     "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "shop", "name": "data",
                                  "uid": "u-data", "apiVersion": "v1", "resourceVersion": "41"}},
        })
    );
    // a volume the user pre-bound to the claim (no uid) gets the full ref, no annotation
    let mut pv = json!({"metadata": {"name": "pv-1"},
                            "spec": {"claimRef": {"namespace": "shop", "name": "data"}}});
    assert!(claim_ref_edit().apply(&mut pv, "t"));
    assert_eq!(pv["metadata"]["annotations"], json!({}));
    assert_eq!(pv["spec"]["claimRef"]["uid"], "u-data");
    // already bound to this very claim: nothing changes (the PUT is still sent)
    let before = pv.clone();
    assert!(!claim_ref_edit().apply(&mut pv, "t"));
    assert_eq!(pv, before);
}

#[test]
fn claims_get_the_selected_node_and_resource_claims_the_finalizer_and_reservation() {
    let mut pvc = json!({"metadata": {"name": "data", "annotations": {"x": "y"}}});
    assert!(Edit::SelectedNode { node: "n1".into() }.apply(&mut pvc, "t"));
    assert_eq!(
        pvc["metadata"]["annotations"],
        json!({"x": "y", "volume.kubernetes.io/selected-node": "n1"})
    );
    let mut rc = json!({"metadata": {"name": "gpu", "finalizers": ["other"]}, "spec": {}});
    assert!(Edit::DeleteProtection.apply(&mut rc, "t"));
    assert!(!Edit::DeleteProtection.apply(&mut rc, "t"));
    assert_eq!(
        rc["metadata"]["finalizers"],
        json!(["other", "resource.kubernetes.io/delete-protection"])
    );
    let alloc = json!({"devices": {"results": [{"request": "gpu", "driver": "d", "pool": "p", "device": "g0"}]}});
    let reserve = Edit::Reserve {
        allocation: Some(alloc.clone()),
        pod_name: "infer".into(),
        pod_uid: "u-infer".into(),
        timestamp: true,
    };
    assert!(reserve.apply(&mut rc, "2026-12-07T12:00:00Z"));
    let mut want = alloc;
    want["allocationTimestamp"] = json!("2026-12-07T12:00:00Z");
    assert_eq!(
        rc["status"],
        json!({"allocation": want, "reservedFor": [{"resource": "pods", "name": "infer", "uid": "u-infer"}]})
    );
    // without a clock (in memory) no timestamp is written
    let mut rc2 = json!({});
    reserve.apply(&mut rc2, "");
    assert!(rc2["status"]["allocation"]["allocationTimestamp"].is_null());
}

#[test]
fn a_bind_plan_nominates_then_sends_the_pre_bind_writes_then_the_binding() {
    let c = load_str("t", CLUSTER).unwrap();
    let writes = BindingWrites {
        nominate: true,
        pre_bind: vec![pv_update(claim_ref_edit())],
        unplanned: Vec::new(),
    };
    let plan = bind_plan(&c, &k("a/high"), "n1", Some(&writes)).unwrap();
    let lines: Vec<String> = plan.requests.iter().map(|r| r.describe(false)).collect();
    assert_eq!(
            lines,
            vec![
                r#"PATCH /api/v1/namespaces/a/pods/high/status {"status":{"nominatedNodeName":"n1"}}"#.to_string(),
                r#"PUT /api/v1/persistentvolumes/pv-1 {"metadata":{"annotations":{"pv.kubernetes.io/bound-by-controller":"yes"}},"spec":{"claimRef":{"kind":"PersistentVolumeClaim","namespace":"shop","name":"data","uid":"u-data","apiVersion":"v1","resourceVersion":"41"}}} (the object as read when sent, with these fields changed)"#.to_string(),
                r#"POST /api/v1/namespaces/a/pods/high/binding {"apiVersion":"v1","kind":"Binding","metadata":{"name":"high","namespace":"a","uid":"u-high"},"target":{"kind":"Node","name":"n1"}}"#.to_string(),
            ]
        );
    assert_eq!(
        plan.action,
        "bind a/high to node 'n1' after the scheduler's 2 earlier write(s)"
    );
    assert_eq!(
        plan.requests[1].access().to_string(),
        "update persistentvolumes (cluster-scoped)"
    );
    // what cannot be planned refuses the bind
    let refused = BindingWrites {
        unplanned: vec!["claim x gets a share".into()],
        ..writes
    };
    assert_eq!(
        bind_plan(&c, &k("a/high"), "n1", Some(&refused))
            .unwrap_err()
            .to_string(),
        "binding a/high as the scheduler does needs writes kschedtui cannot make: claim x gets a share; nothing was sent (let the cluster's scheduler bind it)"
    );
}

#[test]
fn a_failure_part_way_says_what_was_written_and_how_to_undo_it() {
    let c = load_str("t", CLUSTER).unwrap();
    let writes = BindingWrites {
        nominate: false,
        pre_bind: vec![
            pv_update(claim_ref_edit()),
            WriteRequest::Update(Box::new(Update {
                plugin: "VolumeBinding",
                pod: k("a/high"),
                target: Target::PersistentVolumeClaim,
                key: k("a/scratch"),
                status: false,
                edit: Edit::SelectedNode { node: "n1".into() },
            })),
            WriteRequest::AwaitVolumes(Box::new(AwaitVolumes {
                pod: k("a/high"),
                node: "n1".into(),
                claims: vec![AwaitedClaim {
                    claim: k("a/scratch"),
                    volume: None,
                    provisioner: "ebs.csi.aws.com".into(),
                }],
                timeout_secs: 600,
            })),
        ],
        unplanned: Vec::new(),
    };
    let plan = bind_plan(&c, &k("a/high"), "n1", Some(&writes)).unwrap();
    let report = Report {
        plan,
        steps: vec![
            Step::Done(Outcome::Done { code: 200 }),
            Step::Done(Outcome::Done { code: 200 }),
            Step::Failed(WriteError::VolumesNotBound {
                message: "context deadline exceeded".into(),
                state: "still unbound: a/scratch Pending".into(),
            }),
            Step::NotSent,
        ],
    };
    assert!(!report.ok());
    assert_eq!(
        report.render(false),
        "  1. VolumeBinding PreBind: bind PersistentVolume pv-1 to claim shop/data: ok (200)\n\
             \x20 2. VolumeBinding PreBind: annotate claim a/scratch volume.kubernetes.io/selected-node=n1 (provision a volume there): ok (200)\n\
             \x20 3. VolumeBinding PreBind: wait until claim(s) a/scratch are bound (at most 600 s): FAILED: running PreBind plugin \"VolumeBinding\": binding volumes: context deadline exceeded: still unbound: a/scratch Pending\n\
             \x20 4. bind a/high to node 'n1': not sent: an earlier request failed\n\
             written before the failure, and how to undo it (the cluster's scheduler may also retry the pod and undo or reuse them):\n\
             \x20 VolumeBinding PreBind: annotate claim a/scratch volume.kubernetes.io/selected-node=n1 (provision a volume there): kubectl annotate pvc scratch -n a volume.kubernetes.io/selected-node-\n\
             \x20 VolumeBinding PreBind: bind PersistentVolume pv-1 to claim shop/data: kubectl patch pv pv-1 --type=json -p '[{\"op\":\"remove\",\"path\":\"/spec/claimRef\"}]' && kubectl annotate pv pv-1 pv.kubernetes.io/bound-by-controller-\n"
    );
}
