//! Saving a cluster back to a snapshot file (a `kind: List`, YAML or JSON) that the loader
//! reads again.
//!
//! When the cluster was loaded with its documents kept (`file::load_path_keeping_documents`),
//! every document is written back as read, in the same order, with only what scheduling
//! changed patched in: a pod's spec.nodeName, status.nominatedNodeName and status.conditions
//! (from its typed object), and pods deleted by preemption left out. Pods the documents do not
//! hold are appended, serialized from their typed objects. Without kept documents, every typed
//! object is serialized with its apiVersion and kind (kinds the loader skipped are then lost,
//! and Namespaces keep only their labels).

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::model::kinds::{self, Kind};
use crate::model::{Cluster, ObjectKey, Pod};

/// Why a cluster could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The file could not be written.
    #[error("cannot write snapshot '{path}'")]
    Io {
        /// Path.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// The cluster could not be serialized.
    #[error("cannot serialize the snapshot: {0}")]
    Serialize(String),
    /// The file exists and overwriting was not asked for.
    #[error("'{0}' already exists; nothing was written")]
    Exists(String),
}

fn key_of(v: &Value) -> ObjectKey {
    let md = v.get("metadata");
    let s = |f: &str| {
        md.and_then(|m| m.get(f))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    ObjectKey::new(s("namespace"), s("name"))
}

fn typed<T: Serialize>(api_version: &str, kind: &str, obj: &T) -> Value {
    let mut v = serde_json::to_value(obj).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert("apiVersion".into(), json!(api_version));
        m.insert("kind".into(), json!(kind));
    }
    v
}

fn non_empty(s: Option<&str>) -> Option<&str> {
    s.filter(|x| !x.is_empty())
}

/// Sets `obj[field]` to a string, or removes it with None.
fn set_str(obj: &mut Map<String, Value>, field: &str, v: Option<&str>) {
    match v {
        Some(s) => {
            obj.insert(field.into(), json!(s));
        }
        None => {
            obj.remove(field);
        }
    }
}

fn child<'a>(v: &'a mut Value, field: &str) -> Option<&'a mut Map<String, Value>> {
    let Value::Object(m) = v else { return None };
    let c = m.entry(field.to_string()).or_insert_with(|| json!({}));
    if c.is_null() {
        *c = json!({});
    }
    c.as_object_mut()
}

/// Patches the scheduling fields of a pod document from its typed object; a field the typed
/// object agrees with is left exactly as written.
pub fn patch_pod(doc: &mut Value, pod: &Pod) {
    let spec_node = pod.obj.spec.as_ref().and_then(|s| s.node_name.as_deref());
    let raw_node = doc.pointer("/spec/nodeName").and_then(Value::as_str);
    if non_empty(raw_node) != non_empty(spec_node)
        && let Some(spec) = child(doc, "spec")
    {
        set_str(spec, "nodeName", non_empty(spec_node));
    }
    let status = pod.obj.status.as_ref();
    let nominated = status.and_then(|s| s.nominated_node_name.as_deref());
    let raw_nominated = doc.pointer("/status/nominatedNodeName").and_then(Value::as_str);
    if non_empty(raw_nominated) != non_empty(nominated)
        && let Some(st) = child(doc, "status")
    {
        set_str(st, "nominatedNodeName", non_empty(nominated));
    }
    let conds = status.and_then(|s| s.conditions.clone()).unwrap_or_default();
    let raw_conds: Vec<k8s_openapi::api::core::v1::PodCondition> = doc
        .pointer("/status/conditions")
        .cloned()
        .and_then(|c| serde_json::from_value(c).ok())
        .unwrap_or_default();
    if raw_conds != conds
        && let Some(st) = child(doc, "status")
    {
        st.insert("conditions".into(), serde_json::to_value(&conds).unwrap_or(Value::Null));
    }
}

/// The cluster as a `kind: List` value.
pub fn to_list(c: &Cluster) -> Value {
    let mut items: Vec<Value> = Vec::new();
    if c.source_documents.is_empty() {
        items.extend(typed_objects(c));
    } else {
        let mut written: BTreeSet<ObjectKey> = BTreeSet::new();
        for d in &c.source_documents {
            if d.get("kind").and_then(Value::as_str) == Some("Pod") {
                let k = key_of(d);
                let Some(p) = c.pod(&k) else {
                    continue;
                };
                let mut d = d.clone();
                patch_pod(&mut d, p);
                written.insert(k);
                items.push(d);
            } else {
                items.push(d.clone());
            }
        }
        for p in &c.pods {
            if !written.contains(&p.key) {
                items.push(typed("v1", "Pod", &p.obj));
            }
        }
    }
    json!({"apiVersion": "v1", "kind": "List", "items": items})
}

fn typed_objects(c: &Cluster) -> Vec<Value> {
    let mut v: Vec<Value> = Vec::new();
    for kind in Kind::ALL {
        if let Some(docs) = kinds::stored_documents(c, kind) {
            v.extend(docs);
            continue;
        }
        // The kinds the model indexes into its own shape.
        match kind {
            Kind::Namespace => v.extend(c.namespaces.iter().map(|(name, labels)| {
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}})
            })),
            Kind::Node => v.extend(c.nodes.iter().map(|n| typed("v1", "Node", &n.obj))),
            Kind::Pod => v.extend(c.pods.iter().map(|p| typed("v1", "Pod", &p.obj))),
            Kind::Event => v.extend(c.scheduling_events.values().flatten().map(event_document)),
            _ => {}
        }
    }
    v
}

/// A kept FailedScheduling event as a core v1 Event (what the loader reads back into the same
/// record).
fn event_document(e: &crate::model::SchedulingEvent) -> Value {
    let time = |t: &Option<k8s_openapi::jiff::Timestamp>| t.map(|t| serde_json::to_value(t).unwrap_or(Value::Null));
    let mut v = json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": e.key.name, "namespace": e.key.namespace},
        "involvedObject": {"kind": "Pod", "namespace": e.pod.namespace, "name": e.pod.name},
        "reason": e.reason,
        "message": e.message,
        "type": e.type_,
        "count": e.count,
        "source": {"component": e.component},
        "reportingComponent": e.component,
    });
    if let Some(uid) = &e.pod_uid {
        v["involvedObject"]["uid"] = json!(uid);
    }
    if let Some(t) = time(&e.first) {
        v["firstTimestamp"] = t;
    }
    if let Some(t) = time(&e.last) {
        v["lastTimestamp"] = t;
    }
    v
}

/// Serializes the cluster: JSON when `json`, else YAML.
pub fn to_text(c: &Cluster, json: bool) -> Result<String, SaveError> {
    let v = to_list(c);
    if json {
        serde_json::to_string_pretty(&v)
            .map(|s| s + "\n")
            .map_err(|e| SaveError::Serialize(e.to_string()))
    } else {
        Ok(super::yaml::to_string(&v))
    }
}

/// Writes the cluster to `path` (JSON for a `.json` file, YAML otherwise), replacing it.
pub fn save_path(c: &Cluster, path: &Path) -> Result<(), SaveError> {
    save(c, path, true)
}

/// Writes the cluster to `path` (JSON for a `.json` file, YAML otherwise). The text goes to a
/// temporary file next to it that is then renamed over `path`, so a failure leaves no
/// half-written snapshot; without `overwrite`, an existing `path` is an error
/// ([`SaveError::Exists`]) and nothing is written.
pub fn save(c: &Cluster, path: &Path, overwrite: bool) -> Result<(), SaveError> {
    if !overwrite && path.exists() {
        return Err(SaveError::Exists(path.display().to_string()));
    }
    let json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let text = to_text(c, json)?;
    write_text(path, &text, overwrite)
}

/// The system's error as tempfile reports it, without the temporary file's name it appends
/// ("… at path \"…\""): the message names the target instead.
fn plain(e: std::io::Error) -> std::io::Error {
    let text = e.to_string();
    match text.split_once(" at path \"") {
        Some((cause, _)) if e.get_ref().is_some() => std::io::Error::new(e.kind(), cause.to_string()),
        _ => e,
    }
}

/// Writes `text` to `path` as [`save`] writes a snapshot: through a temporary file renamed (or,
/// without `overwrite`, hard-linked) into place, so a failure leaves nothing half-written and an
/// existing file is never replaced unless asked.
pub fn write_text(path: &Path, text: &str, overwrite: bool) -> Result<(), SaveError> {
    let io = |e: std::io::Error| SaveError::Io {
        path: path.display().to_string(),
        source: e,
    };
    if !overwrite && path.exists() {
        return Err(SaveError::Exists(path.display().to_string()));
    }
    let name = path
        .file_name()
        .ok_or_else(|| io(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name")))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // A new file beside the target under a name no one can guess (one planted beforehand, a
    // link say, is never followed); made with the mode a plain write would give it.
    let prefix = format!(".{}.", name.to_string_lossy());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".kschedtui.tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir).map_err(|e| io(plain(e)))?;
    std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(|e| io(plain(e)))?;
    // the temporary file is removed when a step fails (it drops)
    let placed = if overwrite {
        tmp.persist(path)
    } else {
        // fails if `path` appeared meanwhile: never replace a file not asked to
        tmp.persist_noclobber(path)
    };
    if let Err(e) = placed {
        if e.error.kind() == std::io::ErrorKind::AlreadyExists {
            return Err(SaveError::Exists(path.display().to_string()));
        }
        return Err(io(plain(e.error)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::file::{load_str, load_str_keeping_documents};

    const SNAP: &str = r"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, annotations: {team: blue}}
  status: {allocatable: {cpu: 2, memory: 2Gi, pods: 10}}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: cm, namespace: default}
  data: {k: v}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: default, labels: {app: x}}
  spec:
    futureField: keep-me
    containers: [{name: c, resources: {requests: {cpu: 1}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: v, namespace: default}
  spec: {nodeName: n1, containers: [{name: c}]}
";

    #[test]
    fn unchanged_cluster_writes_back_every_document_as_read() {
        let c = load_str_keeping_documents("t", SNAP).unwrap();
        let v = to_list(&c);
        let items = v["items"].as_array().unwrap();
        assert_eq!(items, &c.source_documents);
        assert_eq!(items.len(), 4);
        assert_eq!(items[1]["kind"], "ConfigMap");
        assert_eq!(items[2]["spec"]["futureField"], "keep-me");
    }

    #[test]
    fn bind_and_evict_patch_only_scheduling_fields_and_read_back() {
        let mut c = load_str_keeping_documents("t", SNAP).unwrap();
        c.bind_pod(&ObjectKey::new("default", "p"), "n1", &Default::default())
            .unwrap();
        c.evict_pod(&ObjectKey::new("default", "v")).unwrap();
        let v = to_list(&c);
        let items = v["items"].as_array().unwrap();
        assert_eq!(items.len(), 3, "the evicted pod is gone, the ConfigMap stays");
        let p = &items[2];
        assert_eq!(p["spec"]["nodeName"], "n1");
        assert_eq!(p["spec"]["futureField"], "keep-me");
        assert_eq!(p["status"]["conditions"][0]["type"], "PodScheduled");
        assert_eq!(p["status"]["conditions"][0]["status"], "True");
        assert_eq!(p["spec"]["containers"][0]["resources"]["requests"]["cpu"], 1);
        assert_eq!(items[0], c.source_documents[0]);
        let text = to_text(&c, false).unwrap();
        let back = load_str("back", &text).unwrap();
        assert_eq!(back.pods.len(), 1);
        assert_eq!(back.pods[0].node_name.as_deref(), Some("n1"));
        assert_eq!(back.skipped.get("ConfigMap"), Some(&1));
        assert_eq!(
            back.nodes[0].obj.metadata.annotations,
            c.nodes[0].obj.metadata.annotations
        );
    }

    /// A saved snapshot gets the mode a plain write gives (not the temporary file's private
    /// one), new or replacing a file, and no temporary file is left.
    #[cfg(unix)]
    #[test]
    fn a_saved_file_has_the_mode_of_a_plain_write() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::Builder::new().prefix("kschedtui-mode-").tempdir().unwrap();
        let plain = tmp.path().join("plain");
        std::fs::write(&plain, "x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let path = tmp.path().join("snap.yaml");
        write_text(&path, "a: 1\n", false).unwrap();
        assert_eq!(mode(&path), mode(&plain));
        write_text(&path, "a: 2\n", true).unwrap();
        assert_eq!(mode(&path), mode(&plain));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a: 2\n");
        let names: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // a directory that is not there: the system's error, naming the target alone
        let missing = tmp.path().join("no-such-dir").join("x.yaml");
        let e = write_text(&missing, "a: 1\n", false).unwrap_err();
        let SaveError::Io { path, source } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(path, &missing.display().to_string());
        assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(source.to_string(), std::io::Error::from_raw_os_error(2).to_string());
    }

    #[test]
    fn save_refuses_to_replace_a_file_unless_asked_and_leaves_no_temporary_file() {
        let tmp = tempfile::Builder::new().prefix("kschedtui-save-").tempdir().unwrap();
        let dir = tmp.path();
        let path = dir.join("out.yaml");
        let c = load_str("t", SNAP).unwrap();
        save(&c, &path, false).unwrap();
        assert_eq!(
            load_str("out", &std::fs::read_to_string(&path).unwrap())
                .unwrap()
                .pods
                .len(),
            2
        );
        std::fs::write(&path, "keep me").unwrap();
        let err = save(&c, &path, false).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("'{}' already exists; nothing was written", path.display())
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep me");
        save(&c, &path, true).unwrap();
        assert_ne!(std::fs::read_to_string(&path).unwrap(), "keep me");
        let missing = dir.join("no-such-dir").join("x.yaml");
        let err = save(&c, &missing, true).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("cannot write snapshot '{}'", missing.display())
        );
        let names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["out.yaml".to_string()], "no temporary file is left");
    }

    #[test]
    fn without_kept_documents_typed_objects_are_written_with_kind() {
        let mut c = load_str("t", SNAP).unwrap();
        c.bind_pod(&ObjectKey::new("default", "p"), "n1", &Default::default())
            .unwrap();
        let text = to_text(&c, true).unwrap();
        let back = load_str("back.json", &text).unwrap();
        assert_eq!(back.nodes.len(), 1);
        assert_eq!(back.pods.len(), 2);
        assert_eq!(
            back.pod(&ObjectKey::new("default", "p")).unwrap().node_name.as_deref(),
            Some("n1")
        );
        assert_eq!(back.nodes[0].allocatable.milli_cpu, 2000);
    }

    #[test]
    fn volume_attachments_are_written_back_as_typed_objects() {
        let text = format!(
            "{SNAP}- apiVersion: storage.k8s.io/v1\n  kind: VolumeAttachment\n  metadata: {{name: va-1}}\n  spec: {{attacher: ebs.csi.aws.com, nodeName: n1, source: {{persistentVolumeName: pv-1}}}}\n"
        );
        let c = load_str("t", &text).unwrap();
        let back = load_str("back.json", &to_text(&c, true).unwrap()).unwrap();
        let va = &back.volume_attachments["va-1"];
        assert_eq!(
            (va.spec.attacher.as_str(), va.spec.node_name.as_str()),
            ("ebs.csi.aws.com", "n1")
        );
        assert_eq!(va.spec.source.persistent_volume_name.as_deref(), Some("pv-1"));
    }

    #[test]
    fn csi_drivers_and_storage_capacities_are_written_back() {
        let text = format!(
            "{SNAP}- apiVersion: storage.k8s.io/v1\n  kind: CSIDriver\n  metadata: {{name: ebs.csi.aws.com}}\n  spec: {{storageCapacity: true}}\n- apiVersion: storage.k8s.io/v1\n  kind: CSIStorageCapacity\n  metadata: {{name: cap-1, namespace: default}}\n  storageClassName: fast\n  capacity: 10Gi\n"
        );
        let c = load_str("t", &text).unwrap();
        assert_eq!((c.csi_drivers.len(), c.csi_storage_capacities.len()), (1, 1));
        let back = load_str("back.yaml", &to_text(&c, false).unwrap()).unwrap();
        assert_eq!(back.csi_drivers, c.csi_drivers);
        assert_eq!(back.csi_storage_capacities, c.csi_storage_capacities);
    }
}
