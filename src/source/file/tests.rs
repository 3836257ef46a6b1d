use serde_json::json;

use super::*;

/// Reads `text` on the general path (asked to keep the documents, it never takes the fast
/// ones) and on the default path; both answers, objects and warnings or error, rendered.
fn both_paths(text: &str) -> (String, String) {
    let run = |keep: bool| {
        let mut out = Vec::new();
        let mut warnings = Vec::new();
        let mut raw = Vec::new();
        let r = parse_text("t", text, None, &mut out, &mut warnings, keep.then_some(&mut raw), None);
        match r {
            Ok(()) => format!("{out:?}\n{warnings:?}"),
            Err(e) => format!("error: {e}"),
        }
    };
    (run(true), run(false))
}

const JSON_LIST: &str = r#"{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[
{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"zone":"a"}},
 "spec":{"taints":[{"key":"k","value":"v","effect":"NoSchedule"}]},
 "status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},"images":[{"names":["img:1"],"sizeBytes":1000}]}},
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","labels":{"app":"web"}},
 "spec":{"nodeName":"n1","containers":[{"name":"c","image":"img:1","resources":{"requests":{"cpu":"500m"}}}],
  "affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
   {"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}]}}},
 "status":{"phase":"Running"}},
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p2","namespace":""},"spec":{"containers":[{"name":"c"}]}},
{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"b"}},
{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"pdb","namespace":"team"},
 "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}}}
]}"#;

const PARALLEL_FROM_FOR_TESTS: usize = json_fast::PARALLEL_FROM;

/// The cluster as the general path builds it (typed objects, then `Cluster::build`).
fn general_cluster(text: &str) -> Result<Cluster, String> {
    let (mut out, mut warnings, mut raw) = (Vec::new(), Vec::new(), Vec::new());
    parse_text("t", text, None, &mut out, &mut warnings, Some(&mut raw), None).map_err(|e| e.to_string())?;
    let mut c = Cluster::build(out).map_err(|e| e.to_string())?;
    c.warnings.splice(0..0, warnings);
    Ok(c)
}

fn summary(c: &Cluster) -> String {
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}",
        c.nodes, c.pods, c.warnings, c.priority_classes
    )
}

#[test]
fn json_lists_read_on_several_threads_with_pods_read_at_once_build_the_general_paths_cluster() {
    use crate::source::generate::{GenSpec, generate};
    let mut v = generate(GenSpec {
        pending: 20,
        failing: 12,
        ..GenSpec::new(40, 4200, 7)
    });
    // a priority class, a pod naming it, a pod naming a missing one, a pod without a
    // namespace (its text does not say all of it)
    let items = v["items"].as_array_mut().unwrap();
    items.insert(
        3,
        json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "high"}, "value": 1000}),
    );
    items.push(
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "hi", "namespace": "x"},
            "spec": {"priorityClassName": "high", "containers": [{"name": "c"}]}}),
    );
    items.push(
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "lost", "namespace": "x"},
            "spec": {"priorityClassName": "nope", "containers": [{"name": "c"}]}}),
    );
    items.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nons"},
            "spec": {"containers": [{"name": "c"}]}}));
    assert!(items.len() > PARALLEL_FROM_FOR_TESTS);
    let text = serde_json::to_string_pretty(&v).unwrap();
    let fast = load_str("t", &text).unwrap();
    let general = general_cluster(&text).unwrap();
    assert_eq!(fast.pods.len(), 4200 + 20 + 12 + 1 + 3);
    assert_eq!(summary(&fast), summary(&general));
    let hi = fast.pod(&ObjectKey::new("x", "hi")).unwrap();
    assert_eq!(hi.priority, 1000);
    assert!(
        fast.warnings
            .iter()
            .any(|w| w.contains("'nope' names no PriorityClass"))
    );
    assert_eq!(
        fast.pod(&ObjectKey::new("default", "nons"))
            .unwrap()
            .obj
            .metadata
            .namespace
            .as_deref(),
        Some("default")
    );
    // a duplicate pod is the same error on both paths
    let items = v["items"].as_array_mut().unwrap();
    let dup = items.iter().filter(|i| i["kind"] == "Pod").nth(2000).unwrap().clone();
    items.push(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "extra"}}));
    items.push(dup);
    let text = serde_json::to_string(&v).unwrap();
    let e = load_str("t", &text).unwrap_err().to_string();
    assert_eq!(e, general_cluster(&text).unwrap_err());
    assert!(e.contains("duplicate object: Pod"), "{e}");
    // a duplicate node is the same error on both paths, whether the later one is read at
    // once or (a field the types do not know) through the general per-object code
    let items = v["items"].as_array_mut().unwrap();
    items.pop();
    let node = items.iter().find(|i| i["kind"] == "Node").unwrap().clone();
    let mut odd = node.clone();
    odd["spec"]["notAField"] = json!(1);
    for again in [node, odd] {
        let items = v["items"].as_array_mut().unwrap();
        items.push(again);
        let text = serde_json::to_string(&v).unwrap();
        let e = load_str("t", &text).unwrap_err().to_string();
        assert_eq!(e, general_cluster(&text).unwrap_err());
        assert!(e.contains("duplicate object: Node node-"), "{e}");
        v["items"].as_array_mut().unwrap().pop();
    }
}

#[test]
fn yaml_lists_read_on_several_threads_with_pods_read_at_once_build_the_general_paths_cluster() {
    use crate::source::generate::{GenSpec, generate};
    let mut v = generate(GenSpec {
        pending: 20,
        failing: 12,
        ..GenSpec::new(40, 4200, 9)
    });
    let items = v["items"].as_array_mut().unwrap();
    items.insert(
        3,
        json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "high"}, "value": 1000}),
    );
    items.push(
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "hi", "namespace": "x"},
            "spec": {"priorityClassName": "high", "containers": [{"name": "c"}]}}),
    );
    items.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nons"},
            "spec": {"containers": [{"name": "c"}]}}));
    let text = serde_yaml::to_string(&v).unwrap();
    let parts = yaml_stream::split_list(&text).expect("items at column 0");
    assert!(parts.len() > 4 * 512, "enough items for several threads");
    let fast = load_str("t", &text).unwrap();
    let general = general_cluster(&text).unwrap();
    assert_eq!(fast.pods.len(), 4200 + 20 + 12 + 1 + 2);
    assert_eq!(summary(&fast), summary(&general));
    assert_eq!(fast.pod(&ObjectKey::new("x", "hi")).unwrap().priority, 1000);
    // a List inside the List numbers the documents after it differently: read in one run
    let mut nested = v.clone();
    nested["items"].as_array_mut().unwrap().insert(
        10,
        json!({"apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n1"}},
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n2"}}]}),
    );
    let dup = nested["items"][3000].clone();
    nested["items"].as_array_mut().unwrap().push(dup);
    let text = serde_yaml::to_string(&nested).unwrap();
    let e = load_str("t", &text).unwrap_err().to_string();
    assert_eq!(e, general_cluster(&text).unwrap_err());
    assert!(e.contains("duplicate object: Pod"), "{e}");
    // a pod the model refuses far into the list: the same error as the general path's
    let mut bad = v;
    bad["items"][3500]["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "1.5.3"}});
    let text = serde_yaml::to_string(&bad).unwrap();
    let e = load_str("t", &text).unwrap_err().to_string();
    assert_eq!(e, general_cluster(&text).unwrap_err());
    assert!(e.contains("document 3500"), "{e}");
}

#[test]
fn json_fast_path_reads_clean_lists_as_the_general_path_does() {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    assert!(json_fast::parse("t", JSON_LIST, None, &mut out, &mut warnings, None).is_some());
    assert_eq!(out.len(), 5);
    // Namespaced objects without a namespace land in "default"; nodes stay cluster-scoped.
    let Object::Pod(p2) = &out[2].1 else { panic!("a pod") };
    assert_eq!(p2.metadata.namespace.as_deref(), Some("default"));
    let Object::Node(n1) = &out[0].1 else { panic!("a node") };
    assert_eq!(n1.metadata.namespace, None);
    assert!(matches!(&out[3].1, Object::Skipped(k) if k == "ConfigMap"));
    assert_eq!(out[4].0.doc, 4);
    let (general, fast) = both_paths(JSON_LIST);
    assert_eq!(general, fast);
    // The same objects as a bare array.
    let items = JSON_LIST
        .split_once(r#""items":"#)
        .map(|(_, r)| r.trim_end().trim_end_matches('}'))
        .unwrap();
    let (general, fast) = both_paths(items);
    assert_eq!(general, fast);
}

#[test]
fn pods_and_nodes_read_from_a_file_are_packed_and_let_its_buffer_go() {
    let pod = |name: &str, sep: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{sep}{{"name":"{name}","namespace":"ns"}},"spec":{{"containers":[{{"name":"c","image":"i"}}]}}}}"#
        )
    };
    let node = r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"zone":"a"}}}"#;
    let (a, b) = (pod("a", ""), pod("b", " "));
    let file = Bytes::from(format!(r#"{{"kind":"List","items":[{a},{node},{b}]}}"#).into_bytes());
    let text = std::str::from_utf8(&file).unwrap();
    let (mut out, mut warnings, mut read) = (Vec::new(), Vec::new(), Vec::new());
    parse_text("t", text, Some(&file), &mut out, &mut warnings, None, Some(&mut read)).unwrap();
    assert!(out.is_empty(), "every object was read into the model");
    fn json(r: &ReadObject) -> String {
        match r {
            ReadObject::Pod(p) => p.pod.obj.json(),
            ReadObject::Node(n) => n.obj.json(),
        }
        .unwrap()
        .into_owned()
    }
    let docs: Vec<usize> = read.iter().map(|(o, _)| o.doc).collect();
    assert_eq!(docs, [0, 1, 2]);
    let ReadObject::Node(n) = &read[1].1 else {
        panic!("a node")
    };
    assert_eq!(
        (n.name.as_str(), n.labels.get("zone").map(String::as_str)),
        ("n1", Some("a"))
    );
    assert!(!n.obj.is_decoded(), "the node keeps its text, not its typed object");
    // Each keeps its compact text (minified when the file's was not) ...
    let texts: Vec<String> = read.iter().map(|(_, r)| json(r)).collect();
    assert_eq!(texts, [a.clone(), node.to_string(), pod("b", "")]);
    // ... packed: nothing holds the file's buffer any more.
    assert!(file.is_unique(), "the file's buffer is let go");
    let ReadObject::Pod(p) = &read[2].1 else {
        panic!("a pod")
    };
    assert_eq!(p.pod.obj.metadata.name.as_deref(), Some("b"));
    // Without a buffer (text given in memory) the same texts are read.
    let mut read2 = Vec::new();
    parse_text("t", text, None, &mut out, &mut warnings, None, Some(&mut read2)).unwrap();
    assert_eq!(read2.iter().map(|(_, r)| json(r)).collect::<Vec<_>>(), texts);
}

/// A snapshot file with what the pieces must get right: a pod longer than a piece, a
/// priority class read before the pods naming it, a pod without a namespace, a node.
fn streamed_snapshot() -> String {
    use crate::source::generate::{GenSpec, generate};
    let mut v = generate(GenSpec {
        pending: 5,
        ..GenSpec::new(6, 120, 3)
    });
    let items = v["items"].as_array_mut().unwrap();
    items.insert(
        2,
        json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "high"}, "value": 1000}),
    );
    items.insert(
        60,
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "long", "namespace": "x",
            "annotations": {"note": "x".repeat(5000)}},
            "spec": {"priorityClassName": "high", "containers": [{"name": "c"}]}}),
    );
    items.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nons"},
            "spec": {"containers": [{"name": "c"}]}}));
    serde_json::to_string(&v).unwrap()
}

/// A new file holding `text`, removed when the path drops.
fn scratch_file(tag: &str, text: &str) -> tempfile::TempPath {
    let path = tempfile::Builder::new()
        .prefix(&format!("kschedtui-file-{tag}-"))
        .suffix(".json")
        .tempfile()
        .unwrap()
        .into_temp_path();
    std::fs::write(&path, text).unwrap();
    path
}

/// What reading `text` from a file in pieces of `sizes` gives (None: left to the general
/// path), as the cluster built from it and the document number of each pod and node.
fn streamed(text: &str, sizes: (usize, usize)) -> Option<(Result<String, String>, Vec<usize>)> {
    let path = scratch_file("pieces", text);
    let (mut out, mut warnings, mut read) = (Vec::new(), Vec::new(), Vec::new());
    let r = json_fast::stream_in(&path, "t", &mut out, &mut warnings, &mut read, |_| sizes);
    drop(path);
    r.unwrap()?;
    let docs = read.iter().map(|(o, _)| o.doc).collect();
    let built = Cluster::build_with_pods(out, read)
        .map_err(|e| e.to_string())
        .map(|mut c| {
            c.warnings.splice(0..0, warnings);
            summary(&c)
        });
    Some((built, docs))
}

#[test]
fn a_file_is_read_in_pieces_of_a_thirty_second_of_it_from_256_kib_to_1_mib() {
    assert_eq!(json_fast::piece_for(0), 256 << 10);
    // 1,000 nodes and 20,000 pods as `generate` writes them.
    assert_eq!(json_fast::piece_for(7_561_070), 256 << 10);
    assert_eq!(json_fast::piece_for(16 << 20), 512 << 10);
    assert_eq!(json_fast::piece_for((32 << 20) + 31), 1 << 20);
    assert_eq!(json_fast::piece_for(38_000_000), 1 << 20);
    assert_eq!(json_fast::piece_for(u64::MAX), 1 << 20);
}

#[test]
fn a_json_list_read_from_a_file_in_pieces_builds_the_cluster_a_whole_read_builds() {
    let text = streamed_snapshot();
    let (mut out, mut warnings, mut read) = (Vec::new(), Vec::new(), Vec::new());
    parse_text("t", &text, None, &mut out, &mut warnings, None, Some(&mut read)).unwrap();
    let whole_docs: Vec<usize> = read.iter().map(|(o, _)| o.doc).collect();
    let want = summary(&general_cluster(&text).unwrap());
    for sizes in [(64, 1024), (1000, 4096), (64 << 10, 4 << 20)] {
        let (got, docs) = streamed(&text, sizes).expect("a List");
        assert_eq!(got.as_ref(), Ok(&want), "pieces of {sizes:?}");
        assert_eq!(docs, whole_docs, "pieces of {sizes:?}");
    }
    // Pretty-printed, the same objects.
    let pretty = serde_json::to_string_pretty(&serde_json::from_str::<Value>(&text).unwrap()).unwrap();
    assert_eq!(streamed(&pretty, (64, 1024)).expect("a List").0, Ok(want));
}

#[test]
fn a_file_not_read_cleanly_in_pieces_is_read_whole_with_the_same_result() {
    let text = streamed_snapshot();
    // Text that is not JSON near the end: the pieces read before it are let go, and
    // loading the file says what loading the text says. So does a pod with no name (read
    // in pieces, refused when the cluster is built).
    for (what, with) in [
        (r#"{"name":"nons"}"#, r#"{"name":"nons",}"#),
        (r#"{"name":"nons"}"#, "{}"),
    ] {
        let bad = text.replacen(what, with, 1);
        assert_ne!(bad, text);
        if with == "{}" {
            assert!(streamed(&bad, (64, 1024)).is_some_and(|(r, _)| r.is_err()));
        } else {
            assert_eq!(streamed(&bad, (64, 1024)), None);
        }
        let path = scratch_file("whole", &bad);
        let name = path.display().to_string();
        let from_file = load_path(&path).map(|c| summary(&c)).map_err(|e| e.to_string());
        let from_text = load_str(&name, &bad).map(|c| summary(&c)).map_err(|e| e.to_string());
        assert!(from_file.is_err(), "{from_file:?}");
        assert_eq!(from_file, from_text);
    }
    let path = scratch_file("whole", &text);
    let name = path.display().to_string();
    // Not a List, or not JSON: left to the general path.
    assert_eq!(streamed(r#"{"kind":"Pod","metadata":{"name":"a"}}"#, (64, 1024)), None);
    assert_eq!(streamed("kind: List\nitems: []\n", (64, 1024)), None);
    // A file read whole and one read in pieces load alike.
    std::fs::write(&path, &text).unwrap();
    assert_eq!(
        load_path(&path).map(|c| summary(&c)).map_err(|e| e.to_string()),
        load_str(&name, &text).map(|c| summary(&c)).map_err(|e| e.to_string())
    );
}

/// A snapshot given as a pipe (`--snapshot <(kubectl get ... -o yaml)`) is read once,
/// whole: YAML and JSON alike.
#[cfg(target_os = "linux")]
#[test]
fn a_snapshot_read_from_a_pipe_loads_as_the_same_text_does() {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    let yaml = serde_yaml::to_string(&serde_json::from_str::<Value>(&streamed_snapshot()).unwrap()).unwrap();
    for text in [yaml, streamed_snapshot()] {
        let (reader, mut writer) = std::io::pipe().unwrap();
        let path = PathBuf::from(format!("/proc/self/fd/{}", reader.as_raw_fd()));
        let feed = {
            let text = text.clone();
            std::thread::spawn(move || writer.write_all(text.as_bytes()))
        };
        let got = load_path(&path).map(|c| summary(&c)).map_err(|e| e.to_string());
        feed.join().unwrap().unwrap();
        let want = load_str(&path.display().to_string(), &text)
            .map(|c| summary(&c))
            .map_err(|e| e.to_string());
        assert!(got.is_ok(), "{got:?}");
        assert_eq!(got, want);
    }
}

#[test]
fn json_fast_path_hands_back_what_it_does_not_read_cleanly() {
    let cases = [
        // A number where a quantity goes: the item takes the general path, same result.
        JSON_LIST.replace(r#""cpu":"500m""#, r#""cpu":2"#),
        // An unknown field: the same warning.
        JSON_LIST.replace(r#""image":"img:1","#, r#""image":"img:1","resorces":{},"#),
        // A bad quantity: the same error.
        JSON_LIST.replace(r#""cpu":"500m""#, r#""cpu":"1.5.3""#),
        // The wrong type: the same error.
        JSON_LIST.replace(r#""containers":[{"name":"c"}]"#, r#""containers":{"name":"c"}"#),
        // A number out of range in an ignored place: the general path's syntax error.
        JSON_LIST.replace(r#""data":{"a":"b"}"#, r#""data":{"a":1e400}"#),
        JSON_LIST.replace(r#""resourceVersion":"""#, r#""resourceVersion":1e400"#),
        // No name; not an object; no kind; a duplicate.
        JSON_LIST.replace(r#""name":"p1","#, ""),
        JSON_LIST.replace(
            r#"{"apiVersion":"v1","kind":"ConfigMap","#,
            r#"null, {"apiVersion":"v1","kind":"ConfigMap","#,
        ),
        JSON_LIST.replace(r#""kind":"ConfigMap","#, ""),
        JSON_LIST.replace(r#""name":"p2""#, r#""name":"p1""#),
        // Not a List, items not a sequence, repeated keys, invalid JSON.
        JSON_LIST.replacen(r#""kind":"List""#, r#""kind":"Thing""#, 1),
        JSON_LIST.replacen(r#""kind":"List""#, r#""kind":"List","items":3"#, 1),
        JSON_LIST.replacen(r#""kind":"List""#, r#""kind":"List","kind":"NodeList""#, 1),
        JSON_LIST.replace(r#""kind":"Pod","#, r#""kind":"Pod","kind":"Pod","#),
        JSON_LIST.replace("]}", "]"),
    ];
    for (i, text) in cases.iter().enumerate() {
        assert_ne!(text, JSON_LIST, "case {i} changes the text");
        let (general, fast) = both_paths(text);
        assert_eq!(general, fast, "case {i}");
    }
    let (warned, _) = both_paths(&cases[1]);
    assert!(
        warned.contains("unknown field 'spec.containers[0].resorces'"),
        "{warned}"
    );
    let (failed, _) = both_paths(&cases[4]);
    assert!(failed.starts_with("error: t: document 0: not valid JSON"), "{failed}");
}

#[test]
fn yaml_stream_reads_as_the_general_path_does() {
    let list = "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n  status: {allocatable: {cpu: 4}}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}\nkind: List\n";
    let cases = [
        list.to_string(),
        format!("---\n{list}---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: ns}}\n---\n"),
        format!("{list}---\n- apiVersion: v1\n  kind: Pod\n  metadata: {{name: q}}\n"),
        list.replace("kind: List", "kind: Thing"),
        list.replace("kind: List", "kind: List\nitems: ~"),
        list.replace("cpu: 1}", "cpu: 1, resorces: 2}"),
        list.replace("cpu: 1}", "cpu: 1.5.3}"),
        list.replace("name: p}", "name: p, labels: {a: 1}}"),
        format!("{list}---\n: bad: [\n"),
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nitems: []\n".to_string(),
        "items: ~\nkind: PodList\n".to_string(),
        "just text\n".to_string(),
    ];
    for (i, text) in cases.iter().enumerate() {
        let (general, fast) = both_paths(text);
        assert_eq!(general, fast, "case {i}");
    }
    let mut out = Vec::new();
    assert!(yaml_stream::parse("t", list, &mut out, &mut Vec::new(), None).is_some());
    assert_eq!(out.len(), 2);
}

#[test]
fn yaml_lists_read_item_by_item_give_what_the_general_path_gives() {
    // kubectl's shape: items first, comments, a block scalar, blank lines inside items
    let kubectl = "apiVersion: v1\nitems:\n# the nodes\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n    annotations:\n      note: |\n        - not an item\n\n        still the note\n  status: {allocatable: {cpu: 4}}\n\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}\nkind: List\nmetadata:\n  resourceVersion: \"\"\n";
    let many: String = (0..1100)
        .map(|i| {
            format!(
                "- apiVersion: v1\n  kind: Pod\n  metadata: {{name: p{i}}}\n  spec: {{containers: [{{name: c}}]}}\n"
            )
        })
        .collect();
    let cases = [
            kubectl.to_string(),
            format!("---\n{kubectl}"),
            format!("apiVersion: v1\nkind: List\nitems:\n{many}"),
            // an alias to an anchor in another item: read by the general path
            "kind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: &m {name: n1}\n- apiVersion: v1\n  kind: Namespace\n  metadata: *m\n".to_string(),
            // an error in the 600th item names the same document
            format!("kind: List\nitems:\n{}", many.replace("name: p599}", "name: p599, labels: {a: [}")),
            format!("kind: List\nitems:\n{}", many.replace("name: c}", "name: c, resources: {requests: {cpu: 1.5.3}}}")),
            // not a List after all
            format!("kind: Thing\nitems:\n{many}"),
            // indented items
            "kind: List\nitems:\n  - apiVersion: v1\n    kind: Namespace\n    metadata: {name: a}\n".to_string(),
        ];
    for (i, text) in cases.iter().enumerate() {
        let (general, fast) = both_paths(text);
        assert_eq!(general, fast, "case {i}");
    }
    // the item-by-item reader takes the kubectl shape and leaves the others
    let items = yaml_stream::split_list(kubectl).expect("kubectl's shape");
    assert_eq!(items.len(), 2);
    assert!(kubectl[items[0].clone()].starts_with("- apiVersion: v1\n  kind: Node"));
    assert!(kubectl[items[1].clone()].ends_with("requests: {cpu: 1}}}]}\n"));
    assert_eq!(yaml_stream::split_list(&cases[3]).map(|v| v.len()), Some(2));
    assert_eq!(yaml_stream::split_list(&cases[6]), None);
    assert_eq!(yaml_stream::split_list(&cases[7]), None);
    let mut out = Vec::new();
    let text = format!("apiVersion: v1\nkind: List\nitems:\n{many}");
    assert!(yaml_stream::parse("t", &text, &mut out, &mut Vec::new(), None).is_some());
    assert_eq!(out.len(), 1100);
    assert_eq!(out[1099].0.doc, 1099);
}

#[test]
fn storage_objects_load_with_integer_counts_and_quantities() {
    let text = r#"
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-00}
spec:
  drivers:
  - name: csi.example.com
    nodeID: node-00
    allocatable: {count: 2}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: csi.example.com}
spec: {storageCapacity: true}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap, namespace: kube-system}
storageClassName: fast
nodeTopology: {matchLabels: {zone: a}}
capacity: 1Ti
maximumVolumeSize: 100
"#;
    let c = load_str("t.yaml", text).expect("loads");
    let count = c.csi_nodes["node-00"].spec.drivers[0]
        .allocatable
        .as_ref()
        .and_then(|a| a.count);
    assert_eq!(count, Some(2));
    assert_eq!(c.csi_drivers["csi.example.com"].spec.storage_capacity, Some(true));
    let cap = &c.csi_storage_capacities[0];
    assert_eq!(cap.capacity.as_ref().map(|q| q.0.as_str()), Some("1Ti"));
    assert_eq!(cap.maximum_volume_size.as_ref().map(|q| q.0.as_str()), Some("100"));
}

#[test]
fn volume_attachments_load_on_both_paths_and_warn_of_unknown_fields() {
    let json = r#"{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"csi-0a1b","resourceVersion":"7"},
 "spec":{"attacher":"ebs.csi.aws.com","nodeName":"node-1","source":{"persistentVolumeName":"pv-1"}},
 "status":{"attached":true,"attachmentMetadata":{"devicePath":"/dev/xvdba"}}},
{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"csi-inline"},
 "spec":{"attacher":"ebs.csi.aws.com","nodeName":"node-1",
  "source":{"inlineVolumeSpec":{"capacity":{"storage":5},"csi":{"driver":"ebs.csi.aws.com","volumeHandle":"vol-9"}}}}}
]}"#;
    let (general, fast) = both_paths(json);
    assert_eq!(general, fast);
    assert!(!general.starts_with("error"), "{general}");
    let mut warnings = Vec::new();
    let out = read_objects_str("t.json", json, &mut warnings).unwrap();
    assert_eq!(warnings, Vec::<String>::new());
    let Object::VolumeAttachment(va) = &out[0].1 else {
        panic!("a VolumeAttachment")
    };
    // Cluster-scoped: no namespace is filled in.
    assert_eq!(va.metadata.namespace, None);
    assert_eq!(va.spec.source.persistent_volume_name.as_deref(), Some("pv-1"));
    assert_eq!(va.status.as_ref().map(|s| s.attached), Some(true));
    let Object::VolumeAttachment(inline) = &out[1].1 else {
        panic!("a VolumeAttachment")
    };
    let spec = inline.spec.source.inline_volume_spec.as_ref().unwrap();
    assert_eq!(spec.capacity.as_ref().unwrap()["storage"].0, "5");
    // An unknown field: the same warning on both paths.
    let typo = json.replace(
        r#""nodeName":"node-1","source":{"persistentVolumeName""#,
        r#""nodeNmae":"x","nodeName":"node-1","source":{"persistentVolumeName""#,
    );
    assert_ne!(typo, json);
    let (general, fast) = both_paths(&typo);
    assert_eq!(general, fast);
    assert!(
        general.contains("VolumeAttachment csi-0a1b: unknown field 'spec.nodeNmae' (ignored)"),
        "{general}"
    );
    // YAML, general path, into the cluster by name.
    let yaml = r#"
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: csi-0a1b}
spec:
  attacher: ebs.csi.aws.com
  nodeName: node-1
  source: {persistentVolumeName: pv-1}
status: {attached: false}
"#;
    let c = load_str("t.yaml", yaml).expect("loads");
    let va = &c.volume_attachments["csi-0a1b"];
    assert_eq!(va.spec.node_name, "node-1");
    assert_eq!(va.status.as_ref().map(|s| s.attached), Some(false));
    assert_eq!(c.warnings, Vec::<String>::new());
}

#[test]
fn failed_scheduling_events_of_both_apis_load_and_other_events_are_skipped_quietly() {
    let text = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a, uid: u1}, spec: {containers: [{name: c}]}}
- apiVersion: v1
  kind: Event
  metadata: {name: p.1, namespace: a}
  involvedObject: {kind: Pod, namespace: a, name: p, uid: u1}
  reason: FailedScheduling
  message: "0/3 nodes are available: 3 Insufficient cpu."
  source: {component: default-scheduler}
  count: 2
  firstTimestamp: "2026-01-01T00:00:00Z"
  lastTimestamp: "2026-01-01T00:05:00Z"
  reportingComponent: ""
  type: Warning
  mesage: typo
- apiVersion: events.k8s.io/v1
  kind: Event
  metadata: {name: p.2, namespace: a}
  regarding: {kind: Pod, namespace: a, name: p, uid: u1}
  reason: FailedScheduling
  note: "0/3 nodes are available: 3 Insufficient memory."
  eventTime: "2026-01-01T00:06:00.000000Z"
  reportingController: default-scheduler
  reportingInstance: default-scheduler-cp-1
  deprecatedCount: 3
  type: Warning
  notes: typo
- apiVersion: v1
  kind: Event
  metadata: {name: p.3, namespace: a}
  involvedObject: {kind: Pod, namespace: a, name: p}
  reason: Scheduled
  message: Successfully assigned a/p to n1
  ignoredWithTheEvent: 1
- apiVersion: v1
  kind: Event
  metadata: {name: n1.1, namespace: default}
  involvedObject: {kind: Node, name: n1}
  reason: FailedScheduling
  message: not about a pod
"#;
    let c = load_str("t.yaml", text).expect("loads");
    let events: Vec<_> = c.scheduling_events[&ObjectKey::new("a", "p")].iter().collect();
    assert_eq!(events.len(), 2);
    // Newest first: the events.k8s.io one (00:06) before the core one (00:05).
    assert_eq!(events[0].key.name, "p.2");
    assert_eq!(events[0].message, "0/3 nodes are available: 3 Insufficient memory.");
    assert_eq!(
        (events[0].count, events[0].component.as_str()),
        (3, "default-scheduler")
    );
    assert_eq!(
        events[0].last.map(|t| t.to_string()).as_deref(),
        Some("2026-01-01T00:06:00Z")
    );
    assert_eq!(events[1].key.name, "p.1");
    assert_eq!(
        (events[1].count, events[1].component.as_str()),
        (2, "default-scheduler")
    );
    assert_eq!(
        events[1].first.map(|t| t.to_string()).as_deref(),
        Some("2026-01-01T00:00:00Z")
    );
    assert_eq!(
        events[1].last.map(|t| t.to_string()).as_deref(),
        Some("2026-01-01T00:05:00Z")
    );
    assert_eq!(events[1].pod_uid.as_deref(), Some("u1"));
    // Other events are skipped whole: counted, no warning, not even for an unknown field.
    assert_eq!(c.skipped.get("Event"), Some(&2));
    assert_eq!(
        c.warnings,
        [
            "t.yaml (document 1): Event a/p.1: unknown field 'mesage' (ignored)",
            "t.yaml (document 2): Event a/p.2: unknown field 'notes' (ignored)",
        ]
    );
    // The JSON fast path hands events to the general path: the same objects and warnings.
    let v: serde_json::Value = serde_yaml::from_str(text).unwrap();
    let (general, fast) = both_paths(&serde_json::to_string(&v).unwrap());
    assert_eq!(general, fast);
    assert!(general.contains("unknown field 'mesage'"), "{general}");
}

#[test]
fn the_same_event_read_through_both_apis_is_kept_once() {
    let text = r#"
- apiVersion: v1
  kind: Event
  metadata: {name: p.1, namespace: a}
  involvedObject: {kind: Pod, namespace: a, name: p}
  reason: FailedScheduling
  message: m
- apiVersion: events.k8s.io/v1
  kind: Event
  metadata: {name: p.1, namespace: a}
  regarding: {kind: Pod, namespace: a, name: p}
  reason: FailedScheduling
  note: m
"#;
    let c = load_str("t.yaml", text).expect("no duplicate error for events");
    assert_eq!(c.scheduling_events[&ObjectKey::new("a", "p")].len(), 1);
}

/// The objects read, as names with their kind and document, for comparing paths.
fn read_names(c: &Cluster) -> Vec<String> {
    let mut v: Vec<String> = c
        .nodes
        .iter()
        .map(|n| format!("Node {}", n.name))
        .chain(c.pods.iter().map(|p| format!("Pod {}", p.key)))
        .collect();
    v.sort();
    v
}

/// kubectl flattens a List inside a List; so does every path of the loader: YAML as
/// kubectl writes it (read item by item), YAML streamed, the YAML general path, JSON's fast
/// path (from text and from a file read a piece at a time) and its general path, and the
/// documents kept for saving back.
#[test]
fn a_list_inside_a_list_is_flattened() {
    let want = ["Node n1", "Node n2", "Pod default/p", "Pod default/q"];
    let inner = serde_json::json!({"apiVersion": "v1", "kind": "NodeList", "items": [
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "2", "pods": "10"}}},
            {"apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}, "status": {"allocatable": {"cpu": "2", "pods": "10"}}}]}]});
    let pod = |n: &str| serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": n, "namespace": "default"}, "spec": {"containers": [{"name": "c"}]}});
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [pod("p"), inner, pod("q")]});
    let json = serde_json::to_string(&list).unwrap();
    let yaml = crate::source::yaml::to_string(&list);
    assert!(yaml_stream::split_list(&yaml).is_some(), "kubectl's layout:\n{yaml}");
    let several = format!("---\n{yaml}---\n");
    let array = serde_json::to_string(&list["items"]).unwrap();
    for (what, text) in [
        ("yaml", &yaml),
        ("yaml, several documents", &several),
        ("json", &json),
        ("json array", &array),
    ] {
        let c = load_str(what, text).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(read_names(&c), want, "{what}");
        let kept = load_str_keeping_documents(what, text).unwrap();
        assert_eq!(read_names(&kept), want, "{what}, documents kept");
        let kinds: Vec<&str> = kept
            .source_documents
            .iter()
            .map(|d| d["kind"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            ["Pod", "Node", "Node", "Pod"],
            "{what}: the items, not the Lists"
        );
    }
    // a file read a piece at a time: the nested List sends it to the general path
    let f = scratch_file("nested", &json);
    assert_eq!(read_names(&load_path(&f).unwrap()), want);
    // the pod after the nested List is numbered after the List's items
    let e = load_str(
        "t.json",
        &json.replace("\"name\":\"q\"", "\"name\":\"q\",\"labels\":{\"a\":1}"),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("t.json (document 3): Pod default/q: field 'metadata.labels.a'"),
        "{e}"
    );
    // a nested List whose items are not a sequence
    let bad = serde_json::json!({"kind": "List", "items": [{"kind": "List", "items": "x"}]});
    assert_eq!(
        load_str("b.json", &bad.to_string()).unwrap_err().to_string(),
        "b.json: document 0: a List's 'items' must be a sequence"
    );
}

/// A UTF-8 byte order mark at the start of a file is skipped (kubectl skips it), on every
/// path: YAML, JSON from text, a JSON file.
#[test]
fn a_byte_order_mark_is_skipped() {
    let yaml = "\u{feff}apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {containers: [{name: c}]}\n";
    assert_eq!(
        read_names(&load_str("t.yaml", yaml).unwrap()),
        ["Node n1", "Pod default/p"]
    );
    assert_eq!(
        read_names(&load_str_keeping_documents("t.yaml", yaml).unwrap()),
        ["Node n1", "Pod default/p"]
    );
    let json = format!("\u{feff}{JSON_LIST}");
    assert_eq!(read_names(&load_str("t.json", &json).unwrap()).len(), 3);
    let f = scratch_file("bom", &json);
    let c = load_path(&f).unwrap();
    assert_eq!(read_names(&c), ["Node n1", "Pod default/p1", "Pod default/p2"]);
}

/// YAML merge keys are resolved as kubectl's YAML decoder resolves them (on the general
/// path, whatever the layout), a bad one named with its path.
#[test]
fn merge_keys_are_resolved() {
    let text = "apiVersion: v1\nkind: List\nitems:\n- &node\n  apiVersion: v1\n  kind: Node\n  metadata: {name: n1, labels: {zone: a}}\n  status: {allocatable: {cpu: 2, pods: 10}}\n- <<: *node\n  metadata: {name: n2}\n- apiVersion: v1\n  kind: Pod\n  metadata: &meta {name: p, namespace: default}\n  spec: {containers: [{name: c}]}\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    <<: *meta\n    name: q\n  spec: {containers: [{name: c}]}\n";
    let c = load_str("t.yaml", text).unwrap();
    assert_eq!(read_names(&c), ["Node n1", "Node n2", "Pod default/p", "Pod default/q"]);
    let n2 = c.nodes.iter().find(|n| n.name == "n2").unwrap();
    assert_eq!(n2.allocatable.milli_cpu, 2000);
    assert_eq!(n2.obj.metadata.labels, None, "metadata is n2's own, not merged into");
    let bad = text.replace("- <<: *node", "- <<: node");
    assert_eq!(
        load_str("t.yaml", &bad).unwrap_err().to_string(),
        "t.yaml: document 0: items[1].<<: a merge key takes a mapping or a list of mappings, not a string"
    );
}

/// An apiVersion kschedtui does not read for a kind it reads is named, with the ones it
/// reads, on the YAML and JSON paths; another API's kind of the same name is skipped.
#[test]
fn an_api_version_not_read_is_named() {
    let yaml = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n- apiVersion: v99\n  kind: Pod\n  metadata: {name: p, namespace: default}\n  spec: {containers: [{name: c}]}\n";
    let want = "t (document 1): Pod default/p: field 'apiVersion': 'v99' is not an apiVersion kschedtui reads for this kind (it reads v1)";
    assert_eq!(load_str("t", yaml).unwrap_err().to_string(), want);
    let v: Value = serde_yaml::from_str(yaml).unwrap();
    assert_eq!(load_str("t", &v.to_string()).unwrap_err().to_string(), want);
    let f = scratch_file("v99", &v.to_string());
    let e = load_path(&f).unwrap_err().to_string();
    assert!(
        e.ends_with(
            "Pod default/p: field 'apiVersion': 'v99' is not an apiVersion kschedtui reads for this kind (it reads v1)"
        ),
        "{e}"
    );
    let pdb = yaml.replace("v99\n  kind: Pod", "policy/v1beta1\n  kind: PodDisruptionBudget");
    assert_eq!(
        load_str("t", &pdb).unwrap_err().to_string(),
        "t (document 1): PodDisruptionBudget default/p: field 'apiVersion': 'policy/v1beta1' is not an apiVersion kschedtui reads for this kind (it reads policy/v1)"
    );
    let knative = yaml.replace("v99\n  kind: Pod", "serving.knative.dev/v1\n  kind: Service");
    let c = load_str("t", &knative).unwrap();
    assert_eq!(c.skipped.get("Service"), Some(&1));
}

/// Deep nesting is refused before the YAML parser sees it, in a moment, naming the line.
#[test]
fn deep_yaml_nesting_is_refused_before_parsing() {
    let text = format!("apiVersion: v1\nkind: Pod\nmetadata: {}\n", "[".repeat(200_000));
    let t = std::time::Instant::now();
    assert_eq!(
        load_str("deep.yaml", &text).unwrap_err().to_string(),
        "deep.yaml: document 0: not valid YAML: nested deeper than 512 levels at line 3 (kschedtui reads at most 512 levels of sequences and mappings inside each other; real manifests use a few dozen)"
    );
    assert!(t.elapsed() < std::time::Duration::from_secs(2), "{:?}", t.elapsed());
}
