//! `bind` as kube-scheduler's binding cycle: the nomination, VolumeBinding's and
//! DynamicResources' PreBind writes, the wait for volumes, then the Binding; gang members not
//! bound alone; DRA read at the version a 1.32/1.33 server serves. Against the mock API server
//! (the requests, their order, a failure in the middle) and as rehearsals on files.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::apiserver::{ApiServer, Reply};
use crate::scratch::temp_dir;

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str]) -> Out {
    let home = temp_dir("home");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"").unwrap();
    let o = child.wait_with_output().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).to_string(),
        stderr: String::from_utf8_lossy(&o.stderr).to_string(),
    }
}

fn ok(o: &Out) {
    assert_eq!(o.code, 0, "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
}

/// A one-node cluster with a WaitForFirstConsumer class, an unbound claim and the pod using it.
const VOLUMES: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: kube-system, uid: u-ks, resourceVersion: "1"}}
- {apiVersion: v1, kind: Namespace, metadata: {name: shop, uid: u-shop, resourceVersion: "2"}}
- apiVersion: v1
  kind: Node
  metadata: {name: node-a, uid: u-node-a, resourceVersion: "3", labels: {kubernetes.io/hostname: node-a}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, conditions: [{type: Ready, status: "True"}]}
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: gp3, uid: u-gp3, resourceVersion: "4"}
  provisioner: ebs.csi.aws.com
  volumeBindingMode: WaitForFirstConsumer
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data-db-0, namespace: shop, uid: u-data, resourceVersion: "5"}
  spec: {accessModes: [ReadWriteOnce], storageClassName: gp3, resources: {requests: {storage: 10Gi}}}
  status: {phase: Pending}
- apiVersion: v1
  kind: Pod
  metadata: {name: db-0, namespace: shop, uid: u-db-0, resourceVersion: "6"}
  spec:
    containers: [{name: db, image: "postgres:16", resources: {requests: {cpu: "1"}}}]
    volumes: [{name: data, persistentVolumeClaim: {claimName: data-db-0}}]
  status: {phase: Pending}
"#;

fn kubeconfig(server: &ApiServer) -> String {
    server.kubeconfig(&server.scratch("kc"), None).display().to_string()
}

/// The claim as the PersistentVolume controller leaves it once the provisioner's volume is
/// bound to it.
fn bound_claim(server: &ApiServer) -> Value {
    let mut c = server.items("persistentvolumeclaims")[0].clone();
    c["apiVersion"] = json!("v1");
    c["kind"] = json!("PersistentVolumeClaim");
    c["spec"]["volumeName"] = json!("pvc-5e1f");
    c["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] = json!("yes");
    c["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] = json!("node-a");
    c["status"]["phase"] = json!("Bound");
    c
}

#[test]
fn bind_annotates_the_claim_waits_until_it_is_bound_then_binds() {
    let server = ApiServer::with_cluster(VOLUMES);
    server.set_version("v1.36.3", "36");
    // the first read of the claim (before the PUT) sees it unbound; the wait's first read, a
    // second after the PUT, sees it bound
    let claim_path = "/api/v1/namespaces/shop/persistentvolumeclaims/data-db-0";
    let unbound = {
        let mut c = server.items("persistentvolumeclaims")[0].clone();
        c["apiVersion"] = json!("v1");
        c["kind"] = json!("PersistentVolumeClaim");
        c
    };
    server.reply_once("GET", claim_path, Reply::new(200, unbound));
    server.reply_once("GET", claim_path, Reply::new(200, bound_claim(&server)));
    let k = kubeconfig(&server);
    let o = run(&["bind", "shop/db-0", "--kubeconfig", &k, "--yes", "--timeout", "30"]);
    ok(&o);
    assert!(
        o.stdout.contains(
            "  2. PUT /api/v1/namespaces/shop/persistentvolumeclaims/data-db-0 {\"metadata\":{\"annotations\":{\"volume.kubernetes.io/selected-node\":\"node-a\"}}} (the object as read when sent, with these fields changed)\n"
        ),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("  3. VolumeBinding PreBind: wait until claim(s) shop/data-db-0 are bound (at most 30 s): every claim bound after 1 s\n"),
        "{}",
        o.stdout
    );
    let writes: Vec<(String, String)> = server
        .writes()
        .into_iter()
        .filter(|r| !r.path.ends_with("selfsubjectaccessreviews"))
        .map(|r| (r.method, r.path))
        .collect();
    assert_eq!(
        writes,
        vec![
            (
                "PATCH".to_string(),
                "/api/v1/namespaces/shop/pods/db-0/status".to_string()
            ),
            ("PUT".to_string(), claim_path.to_string()),
            (
                "POST".to_string(),
                "/api/v1/namespaces/shop/pods/db-0/binding".to_string()
            ),
        ],
        "{}",
        o.stdout
    );
}

#[test]
fn a_provisioner_that_never_binds_times_out_and_the_undo_is_named() {
    let server = ApiServer::with_cluster(VOLUMES);
    server.set_version("v1.36.3", "36");
    let k = kubeconfig(&server);
    let o = run(&["bind", "shop/db-0", "--kubeconfig", &k, "--yes", "--timeout", "2"]);
    assert_eq!(o.code, 1, "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stdout
            .contains("  1. set shop/db-0 status.nominatedNodeName to 'node-a': ok (200)\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("  2. VolumeBinding PreBind: annotate claim shop/data-db-0 volume.kubernetes.io/selected-node=node-a (provision a volume there): ok (200)\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("  3. VolumeBinding PreBind: wait until claim(s) shop/data-db-0 are bound (at most 2 s): FAILED: running PreBind plugin \"VolumeBinding\": binding volumes: context deadline exceeded: still unbound: shop/data-db-0 Pending\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("  4. bind shop/db-0 to node 'node-a': not sent: an earlier request failed\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("  VolumeBinding PreBind: annotate claim shop/data-db-0 volume.kubernetes.io/selected-node=node-a (provision a volume there): kubectl annotate pvc data-db-0 -n shop volume.kubernetes.io/selected-node-\n"),
        "{}",
        o.stdout
    );
    // the claim got the annotation (a PUT of the whole object, its resourceVersion as read)
    let put = server.writes().into_iter().find(|r| r.method == "PUT").unwrap();
    let sent = put.json();
    assert_eq!(
        sent["metadata"]["annotations"]["volume.kubernetes.io/selected-node"],
        "node-a"
    );
    assert_eq!(sent["metadata"]["resourceVersion"], "5");
    assert_eq!(sent["spec"]["storageClassName"], "gp3");
    assert!(!server.writes().iter().any(|r| r.path.ends_with("/binding")));
    // every request names kschedtui
    assert!(server.requests().iter().all(|r| {
        r.headers
            .iter()
            .any(|(k, v)| k == "user-agent" && v == concat!("kschedtui/", env!("CARGO_PKG_VERSION")))
    }));
}

#[test]
fn a_refused_update_stops_before_the_binding() {
    let server = ApiServer::with_cluster(VOLUMES);
    server.reply_once(
        "PUT",
        "/api/v1/namespaces/shop/persistentvolumeclaims/data-db-0",
        Reply::status(
            403,
            "Forbidden",
            "persistentvolumeclaims \"data-db-0\" is forbidden: User \"tester\" cannot update resource \"persistentvolumeclaims\" in API group \"\" in the namespace \"shop\"",
        ),
    );
    let k = kubeconfig(&server);
    let o = run(&["bind", "shop/db-0", "--kubeconfig", &k, "--yes"]);
    assert_eq!(o.code, 1, "{}\n{}", o.stdout, o.stderr);
    assert_eq!(
        o.stderr.lines().last().unwrap(),
        "error: not allowed to update persistentvolumeclaims in namespace 'shop' (403 Forbidden: persistentvolumeclaims \"data-db-0\" is forbidden: User \"tester\" cannot update resource \"persistentvolumeclaims\" in API group \"\" in the namespace \"shop\"); ask a cluster admin for this permission"
    );
    assert!(!server.writes().iter().any(|r| r.path.ends_with("/binding")));
}

/// A 1.32 server serves DRA at resource.k8s.io/v1beta1 only (1.33 adds v1beta2, v1's shape);
/// these objects are in v1beta1's shape (the request's fields flat, the slice's devices under
/// `basic`).
const DRA_V1BETA1: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: kube-system, uid: u-ks, resourceVersion: "1"}}
- apiVersion: v1
  kind: Node
  metadata: {name: gpu-a, uid: u-gpu-a, resourceVersion: "3", labels: {kubernetes.io/hostname: gpu-a}}
  status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}, conditions: [{type: Ready, status: "True"}]}
- apiVersion: resource.k8s.io/v1beta1
  kind: DeviceClass
  metadata: {name: gpu.nvidia.com, uid: u-dc, resourceVersion: "4"}
  spec: {selectors: [{cel: {expression: 'device.driver == "gpu.nvidia.com"'}}]}
- apiVersion: resource.k8s.io/v1beta1
  kind: ResourceSlice
  metadata: {name: gpu-a-slice, uid: u-slice, resourceVersion: "5"}
  spec:
    driver: gpu.nvidia.com
    nodeName: gpu-a
    pool: {name: gpu-a, generation: 1, resourceSliceCount: 1}
    devices:
    - {name: gpu-0, basic: {attributes: {model: {string: L4}}, capacity: {memory: {value: 24Gi}}}}
- apiVersion: resource.k8s.io/v1beta1
  kind: ResourceClaim
  metadata: {name: infer-l4-gpu, namespace: ml, uid: u-claim, resourceVersion: "6"}
  spec:
    devices:
      requests: [{name: gpu, deviceClassName: gpu.nvidia.com, allocationMode: ExactCount, count: 1}]
- apiVersion: v1
  kind: Pod
  metadata: {name: infer-l4, namespace: ml, uid: u-infer, resourceVersion: "7"}
  spec:
    containers: [{name: main, image: i, resources: {requests: {cpu: "1"}, claims: [{name: gpu}]}}]
    resourceClaims: [{name: gpu, resourceClaimName: infer-l4-gpu}]
  status: {phase: Pending}
"#;

#[test]
fn a_1_32_server_serves_dra_at_v1beta1_and_bind_writes_the_claim_there() {
    let server = ApiServer::with_cluster(DRA_V1BETA1);
    server.set_version("v1.32.5", "32");
    server.serve_dra_versions(&["v1beta1"]);
    let k = kubeconfig(&server);
    // DRA is beta and off by default before 1.34: the gate as a cluster that uses DRA has it
    let o = run(&[
        "explain",
        "ml/infer-l4",
        "--kubeconfig",
        &k,
        "-o",
        "json",
        "--feature-gates",
        "DynamicResourceAllocation=true",
    ]);
    ok(&o);
    let ex: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(ex["selected"], json!(["gpu-a"]), "{}", o.stdout);
    // the lists asked the version discovery found
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.path == "/apis/resource.k8s.io/v1beta1/resourceclaims")
    );
    assert!(
        !server
            .requests()
            .iter()
            .any(|r| r.path == "/apis/resource.k8s.io/v1/resourceclaims")
    );
    let o = run(&[
        "bind",
        "ml/infer-l4",
        "--kubeconfig",
        &k,
        "--yes",
        "--feature-gates",
        "DynamicResourceAllocation=true",
    ]);
    ok(&o);
    let writes: Vec<(String, String)> = server
        .writes()
        .into_iter()
        .filter(|r| !r.path.ends_with("selfsubjectaccessreviews"))
        .map(|r| (r.method, r.path))
        .collect();
    assert_eq!(
        writes,
        vec![
            (
                "PUT".to_string(),
                "/apis/resource.k8s.io/v1beta1/namespaces/ml/resourceclaims/infer-l4-gpu".to_string()
            ),
            (
                "PUT".to_string(),
                "/apis/resource.k8s.io/v1beta1/namespaces/ml/resourceclaims/infer-l4-gpu/status".to_string()
            ),
            (
                "POST".to_string(),
                "/api/v1/namespaces/ml/pods/infer-l4/binding".to_string()
            ),
        ],
        "{}",
        o.stdout
    );
    let claim = &server.items("resourceclaims")[0];
    assert_eq!(
        claim["metadata"]["finalizers"],
        json!(["resource.kubernetes.io/delete-protection"])
    );
    // the claim keeps its v1beta1 shape; the status is the same in every version
    assert_eq!(
        claim["spec"]["devices"]["requests"][0]["deviceClassName"],
        "gpu.nvidia.com"
    );
    assert_eq!(
        claim["status"]["allocation"]["devices"]["results"],
        json!([{"request": "gpu", "driver": "gpu.nvidia.com", "pool": "gpu-a", "device": "gpu-0"}])
    );
    assert_eq!(
        claim["status"]["reservedFor"],
        json!([{"resource": "pods", "name": "infer-l4", "uid": "u-infer"}])
    );
}

#[test]
fn a_gang_member_is_not_bound_alone_and_the_gang_binds_together() {
    // the demo's DDP gang lacks a member's room: refused alone, and refused as a gang
    let o = run(&["bind", "--demo", "ml/ddp-worker-0", "-y"]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr.lines().last().unwrap(),
        "error: ml/ddp-worker-0 is a member of gang ml/ddp-job (Coscheduling): it would wait at Permit on node 'pool-gpu-a1' until 4 member(s) are placed, and 1 are (this pod included); not placed: ml/ddp-worker-1, ml/ddp-worker-2, ml/ddp-worker-3; binding it alone breaks the gang's all-or-nothing placement: bind every member once the quorum is met with `kschedtui bind --gang ml/ddp-worker-0`, or this pod alone with --force"
    );
    let o = run(&["bind", "--demo", "ml/ddp-worker-0", "--gang", "-y"]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr.lines().last().unwrap(),
        "error: not binding gang ml/ddp-job: the group does not complete: 3 of minMember 4 fit; blocked by ml/ddp-worker-3; the members that fit wait at Permit for at most 30s (or until a member fails) and are then rejected and retried; nothing was sent"
    );
    // --force binds the one member alone, with a warning
    let o = run(&["bind", "--demo", "ml/ddp-worker-0", "--force", "-y"]);
    ok(&o);
    assert!(
        o.stderr
            .contains("warning: binding ml/ddp-worker-0 alone although it would wait at Permit for its gang (--force)"),
        "{}",
        o.stderr
    );
    // the seeds' gang with its fourth GPU free binds as a whole, each member nominated first
    // while it would wait for the others, then bound
    let gang = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/gang.yaml")).unwrap();
    let start = gang.find("  metadata: {name: other-job-0").unwrap();
    let item = gang[..start].rfind("\n- ").unwrap() + 1;
    let end = gang[start..].find("\n- ").unwrap() + start + 1;
    let dir = temp_dir("gang");
    let free = dir.path().join("gang-free.yaml");
    std::fs::write(&free, format!("{}{}", &gang[..item], &gang[end..])).unwrap();
    let saved = dir.path().join("after.yaml");
    let o = run(&[
        "bind",
        "--snapshot",
        free.to_str().unwrap(),
        "ml/worker-0",
        "--gang",
        "-y",
        "--save",
        saved.to_str().unwrap(),
    ]);
    ok(&o);
    assert!(
        o.stdout.contains("Plan: bind gang ml/training-job (Coscheduling, quorum 4 met): ml/worker-0 → gpu-1, ml/worker-1 → gpu-2, ml/worker-2 → gpu-3, ml/worker-3 → gpu-4\n"),
        "{}",
        o.stdout
    );
    let sent: Vec<&str> = o.stdout.lines().filter(|l| l.contains(": ok (")).collect();
    assert_eq!(
        sent,
        vec![
            "  1. set ml/worker-0 status.nominatedNodeName to 'gpu-1': ok (200)",
            "  2. bind ml/worker-0 to node 'gpu-1': ok (201)",
            "  3. set ml/worker-1 status.nominatedNodeName to 'gpu-2': ok (200)",
            "  4. bind ml/worker-1 to node 'gpu-2': ok (201)",
            "  5. set ml/worker-2 status.nominatedNodeName to 'gpu-3': ok (200)",
            "  6. bind ml/worker-2 to node 'gpu-3': ok (201)",
            "  7. bind ml/worker-3 to node 'gpu-4': ok (201)",
        ]
    );
    for (w, n) in [("worker-0", "gpu-1"), ("worker-3", "gpu-4")] {
        let o = run(&["explain", "--snapshot", saved.to_str().unwrap(), &format!("ml/{w}")]);
        assert_eq!(
            o.stderr.lines().last().map(str::to_string),
            Some(format!("error: pod 'ml/{w}' is not pending: spec.nodeName is '{n}'"))
        );
    }
}

#[test]
fn rehearsals_save_the_annotated_claim_and_the_allocated_claim_beside_the_bound_pod() {
    // the demo with its StorageClass waiting for the first consumer
    let demo = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo.yaml"))
        .unwrap()
        .replace(
            "  provisioner: pd.csi.storage.gke.io\n  volumeBindingMode: Immediate",
            "  provisioner: pd.csi.storage.gke.io\n  volumeBindingMode: WaitForFirstConsumer",
        );
    let dir = temp_dir("rehearsal");
    let input = dir.path().join("demo-wffc.yaml");
    std::fs::write(&input, demo).unwrap();
    let saved = dir.path().join("after.json");
    let o = run(&[
        "bind",
        "--snapshot",
        input.to_str().unwrap(),
        "shop/orders-db-0",
        "-y",
        "--save",
        saved.to_str().unwrap(),
    ]);
    ok(&o);
    assert!(
        o.stdout.contains("VolumeBinding PreBind: wait until claim(s) shop/orders-db-data are bound (at most 600 s): not waited for: no controller runs in memory; a real cluster waits here (at most 600 s) for provisioner pd.csi.storage.gke.io to create a volume for shop/orders-db-data on node '"),
        "{}",
        o.stdout
    );
    let list: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    let find = |kind: &str, name: &str| {
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{kind} {name}"))
    };
    let pod = find("Pod", "orders-db-0");
    let node = pod["spec"]["nodeName"].as_str().expect("bound").to_string();
    assert_eq!(
        find("PersistentVolumeClaim", "orders-db-data")["metadata"]["annotations"]["volume.kubernetes.io/selected-node"],
        json!(node)
    );
    // DRA: the claim allocated and reserved next to the bound pod
    let saved = dir.path().join("dra.json");
    let o = run(&["bind", "--demo", "ml/infer-l4", "-y", "--save", saved.to_str().unwrap()]);
    ok(&o);
    let list: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    let find = |kind: &str, name: &str| {
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(find("Pod", "infer-l4")["spec"]["nodeName"], "pool-dra-b1");
    let claim = find("ResourceClaim", "infer-l4-gpu");
    assert_eq!(
        claim["metadata"]["finalizers"],
        json!(["resource.kubernetes.io/delete-protection"])
    );
    assert_eq!(
        claim["status"]["allocation"],
        json!({
            "devices": {"results": [{"request": "gpu", "driver": "gpu.nvidia.com", "pool": "pool-dra-b1", "device": "gpu-1"}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["pool-dra-b1"]}]}]},
        })
    );
    assert_eq!(claim["status"]["reservedFor"][0]["name"], "infer-l4");
    // read back, the saved cluster has the pod bound there
    let o = run(&["explain", "--snapshot", saved.to_str().unwrap(), "ml/infer-l4"]);
    assert_eq!(
        o.stderr.lines().last(),
        Some("error: pod 'ml/infer-l4' is not pending: spec.nodeName is 'pool-dra-b1'")
    );
}

#[test]
fn a_kind_the_release_reads_that_the_server_does_not_serve_is_said_on_every_answer() {
    // a 1.36 server with resource.k8s.io turned off: its scheduler reads the DRA kinds
    let server = ApiServer::with_cluster(VOLUMES);
    server.set_version("v1.36.3", "36");
    server.serve_dra(false);
    let k = kubeconfig(&server);
    let warning = "the server does not serve deviceclasses (resource.k8s.io/v1), resourceslices (resource.k8s.io/v1), resourceclaims (resource.k8s.io/v1), resourceclaimtemplates (resource.k8s.io/v1), which kube-scheduler 1.36 reads in DynamicResources (DynamicResourceAllocation)";
    let o = run(&["explain", "shop/db-0", "--kubeconfig", &k, "-o", "json"]);
    ok(&o);
    let ex: Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(
        ex["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().starts_with(warning)),
        "{}",
        ex["notes"]
    );
    let o = run(&["explain", "shop/db-0", "--kubeconfig", &k]);
    ok(&o);
    assert!(o.stdout.contains(&format!("Note: {warning}")), "{}", o.stdout);
    // served at v1: no warning
    server.serve_dra(true);
    let o = run(&["explain", "shop/db-0", "--kubeconfig", &k, "-o", "json"]);
    ok(&o);
    assert!(!o.stdout.contains("does not serve"), "{}", o.stdout);
}

#[test]
fn explain_json_lists_the_writes_binding_makes() {
    let o = run(&["explain", "--demo", "ml/infer-l4", "-o", "json"]);
    ok(&o);
    let ex: Value = serde_json::from_str(&o.stdout).unwrap();
    let b = &ex["bindingCycle"];
    assert_eq!(b["setsNominatedNodeName"], true);
    let paths: Vec<(&str, &str)> = b["writes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["method"].as_str().unwrap(), w["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        paths,
        vec![
            (
                "PUT",
                "/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/infer-l4-gpu"
            ),
            (
                "PUT",
                "/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/infer-l4-gpu/status"
            ),
        ]
    );
    assert_eq!(
        b["writes"][1]["body"]["status"]["reservedFor"],
        json!([{"resource": "pods", "name": "infer-l4", "uid": ""}])
    );
    assert!(b.get("unplannedWrites").is_none());
    // a pod without claims or unbound volumes writes nothing before its Binding
    let o = run(&["explain", "--demo", "shop/ledger-writer", "-o", "json"]);
    ok(&o);
    let ex: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(ex["bindingCycle"]["outcome"], "Bound");
    assert!(ex["bindingCycle"].get("writes").is_none(), "{}", ex["bindingCycle"]);
    assert!(ex["bindingCycle"].get("setsNominatedNodeName").is_none());
}

#[test]
fn a_1_37_preemptor_says_where_preemption_found_room() {
    // #140180: from 1.37 the FitError ends with DefaultPreemption's success
    let message = |release: &str| {
        let o = run(&[
            "explain",
            "--demo",
            "shop/payments-api",
            "-o",
            "json",
            "--scheduler-version",
            release,
        ]);
        ok(&o);
        let ex: Value = serde_json::from_str(&o.stdout).unwrap();
        (
            ex["message"].as_str().unwrap().to_string(),
            ex["postFilter"]["code"].clone(),
        )
    };
    let (m, code) = message("1.37");
    assert!(
        m.ends_with(". preemption: found a potential placement for pod on node pool-general-a3, preempting 1 victims"),
        "{m}"
    );
    assert_eq!(code, "Success");
    let (m, _) = message("1.36");
    assert!(m.ends_with(" 8 Insufficient cpu."), "{m}");
}

#[test]
fn a_server_newer_than_every_known_release_is_answered_as_the_newest_and_says_so() {
    let server = ApiServer::with_cluster(VOLUMES);
    server.set_version("v1.39.0", "39");
    let k = kubeconfig(&server);
    let o = run(&["explain", "shop/db-0", "--kubeconfig", &k, "-o", "json"]);
    ok(&o);
    let ex: Value = serde_json::from_str(&o.stdout).unwrap();
    let note = "the server is v1.39.0, newer than the newest release kschedtui knows: explained as 1.38.0";
    assert_eq!(ex["schedulerVersion"], "1.38.0");
    assert!(
        ex["notes"].as_array().unwrap().iter().any(|n| n == note),
        "{}",
        ex["notes"]
    );
    let o = run(&["explain", "shop/db-0", "--kubeconfig", &k]);
    ok(&o);
    assert!(o.stdout.contains(&format!("Note: {note}")), "{}", o.stdout);
}

#[test]
fn preempt_evicts_a_disruption_mode_all_group_whole() {
    // 1.37 with GenericWorkload: the victim PodGroup pg has disruptionMode all, so its member
    // on the other node is deleted too (the plan names it; the rehearsal removes it)
    let text = r"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: '1', memory: 4Gi, pods: '10'}}}
- {apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {name: pg, namespace: a, uid: u-pg}, spec: {priority: 10, disruptionMode: {all: {}}, schedulingPolicy: {basic: {}}}}
- {apiVersion: v1, kind: Pod, metadata: {name: g0, namespace: a, uid: u-g0}, spec: {nodeName: n1, priority: 10, schedulingGroup: {podGroupName: pg}, containers: [{name: c, image: i, resources: {requests: {cpu: '1'}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: g1, namespace: a, uid: u-g1}, spec: {nodeName: n2, priority: 10, schedulingGroup: {podGroupName: pg}, containers: [{name: c, image: i, resources: {requests: {cpu: '1'}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a, uid: u-p}, spec: {priority: 100, containers: [{name: c, image: i, resources: {requests: {cpu: '2'}}}]}}
";
    let dir = temp_dir("groupvictims");
    let f = dir.path().join("c.yaml");
    std::fs::write(&f, text).unwrap();
    let saved = dir.path().join("after.json");
    let o = run(&[
        "preempt",
        "--snapshot",
        f.to_str().unwrap(),
        "a/p",
        "-y",
        "--scheduler-version",
        "1.37",
        "--feature-gates",
        "GenericWorkload=true",
        "--save",
        saved.to_str().unwrap(),
    ]);
    ok(&o);
    let sent: Vec<&str> = o.stdout.lines().filter(|l| l.contains(": ok (")).collect();
    assert_eq!(
        sent,
        vec![
            "  1. mark a/g0 with condition DisruptionTarget (PreemptionByScheduler): ok (200)",
            "  2. delete a/g0: ok (200)",
            "  3. mark a/g1 with condition DisruptionTarget (PreemptionByScheduler): ok (200)",
            "  4. delete a/g1: ok (200)",
            "  5. set a/p status.nominatedNodeName to 'n1': ok (200)",
        ],
        "{}",
        o.stdout
    );
    let after = std::fs::read_to_string(&saved).unwrap();
    assert!(!after.contains("\"g1\""), "g1 on n2 is gone too");
}
