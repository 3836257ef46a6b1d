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
    #[error("cannot write '{path}': {cause}")]
    Io {
        /// Path (`standard output` for `-`).
        path: String,
        /// Cause (in the message, not a chained source: the message already says it).
        cause: std::io::Error,
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

/// Writes the cluster to `path` (JSON for a `.json` file, YAML otherwise) as [`write_text`]
/// writes (whole or not at all when it is a regular file); without `overwrite`, an existing
/// `path` is an error ([`SaveError::Exists`]) and nothing is written.
pub fn save(c: &Cluster, path: &Path, overwrite: bool) -> Result<(), SaveError> {
    if !overwrite && path.exists() {
        return Err(SaveError::Exists(path.display().to_string()));
    }
    let json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let text = to_text(c, json)?;
    write_text(path, &text, overwrite)
}

/// Writes `text` to `path` as [`save`] writes a snapshot. `-` is the standard output. A regular
/// file (new, or replaced when `overwrite`) is written whole or not at all: through a temporary
/// file beside it that is renamed (or, without `overwrite`, hard-linked) into place, so a
/// failure, or the process being stopped by SIGTERM, SIGINT or SIGHUP, leaves nothing
/// half-written and no temporary file. A symbolic link is written through (the temporary file
/// goes beside the file the chain of links ends at, and replaces that file, the link staying a
/// link); a file replaced keeps its mode (and its owner and group, where the system allows).
/// Anything else (a FIFO, a character device, `/dev/stdout`, a `/proc/self/fd` link) is
/// opened and written in place: renaming over it would put a regular file where the device or
/// pipe was.
pub fn write_text(path: &Path, text: &str, overwrite: bool) -> Result<(), SaveError> {
    let io = |e: std::io::Error| SaveError::Io {
        path: path.display().to_string(),
        cause: e,
    };
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return std::io::Write::write_all(&mut out, text.as_bytes())
            .and_then(|()| std::io::Write::flush(&mut out))
            .map_err(|cause| SaveError::Io {
                path: "standard output".into(),
                cause,
            });
    }
    if !overwrite && path.exists() {
        return Err(SaveError::Exists(path.display().to_string()));
    }
    match destination(path).map_err(io)? {
        Destination::InPlace => write_in_place(path, text.as_bytes()).map_err(io),
        Destination::Replace(target, meta) => replace(&target, Some(&meta), text.as_bytes(), overwrite, path),
        Destination::New(target) => replace(&target, None, text.as_bytes(), overwrite, path),
    }
}

/// Where a write goes.
#[derive(Debug)]
enum Destination {
    /// Opened and written as it is (a FIFO, a device, a link into `/proc`).
    InPlace,
    /// A regular file (the end of the chain of links), replaced whole.
    Replace(std::path::PathBuf, std::fs::Metadata),
    /// No file yet (at the end of the chain of links): created whole.
    New(std::path::PathBuf),
}

/// How many links a chain may have (Linux's limit for a path lookup).
const MAX_LINKS: usize = 40;

/// Where `path` leads: the system follows the links to say what is there; a regular file's
/// chain of links is then followed by hand to find the file itself (the directory its
/// temporary file goes in). A link into `/proc` (`/dev/stdout`, `/dev/fd/N`) names an open
/// file of a process, not a place in a directory: it is written in place.
fn destination(path: &Path) -> std::io::Result<Destination> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Ok(Destination::InPlace),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut p = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        if p.starts_with("/proc") {
            return Ok(Destination::InPlace);
        }
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            Ok(m) if m.is_file() => return Ok(Destination::Replace(p, m)),
            Ok(_) => return Ok(Destination::InPlace),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Destination::New(p)),
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(format!(
        "more than {MAX_LINKS} symbolic links in a chain"
    )))
}

/// Opens `path` for writing as a shell's `>` does and writes `bytes` to it.
fn write_in_place(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    std::io::Write::write_all(&mut f, bytes)?;
    std::io::Write::flush(&mut f)
}

/// Writes `target` (a regular file, `existing` its metadata, or a new one) whole: a temporary
/// file in its directory, given the existing file's mode, owner and group, then renamed over it
/// (without `overwrite`, linked to its name, which fails if a file appeared there meanwhile).
/// `named` is the path as given, for messages.
fn replace(
    target: &Path,
    existing: Option<&std::fs::Metadata>,
    bytes: &[u8],
    overwrite: bool,
    named: &Path,
) -> Result<(), SaveError> {
    let io = |e: std::io::Error| SaveError::Io {
        path: named.display().to_string(),
        cause: e,
    };
    let name = target
        .file_name()
        .ok_or_else(|| io(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name")))?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let (tmp, mut file) = temporary::create(dir, &name.to_string_lossy()).map_err(io)?;
    #[cfg(unix)]
    if let Some(m) = existing {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        // the owner first (changing it may clear the set-id bits), then the mode; refused
        // unless root (or the same owner): the file is then the writer's, as any new file
        let _ = std::os::unix::fs::fchown(&file, Some(m.uid()), Some(m.gid()));
        file.set_permissions(std::fs::Permissions::from_mode(m.mode() & 0o7777))
            .map_err(io)?;
    }
    #[cfg(not(unix))]
    if let Some(m) = existing {
        file.set_permissions(m.permissions()).map_err(io)?;
    }
    std::io::Write::write_all(&mut file, bytes).map_err(io)?;
    std::io::Write::flush(&mut file).map_err(io)?;
    drop(file);
    // the temporary file is removed when a step fails (`tmp` drops)
    tmp.place(target, overwrite).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            SaveError::Exists(named.display().to_string())
        } else {
            io(e)
        }
    })
}

/// The temporary files being written: made under names no one can guess (one planted
/// beforehand, a link say, is never followed: they are created new), removed when a write
/// fails, and removed too when the process is told to stop (SIGTERM, SIGINT, SIGHUP) before
/// they are in place: a thread started with the first write waits for those signals, removes
/// the files of the writes under way and then ends the process as the signal's default action
/// does. Creating a file and recording it, and placing it and forgetting it, are each done
/// under one lock that thread takes too, so no file is left between the two.
mod temporary {
    use std::path::{Path, PathBuf};
    use std::sync::{Mutex, MutexGuard, PoisonError};

    /// The temporary files of the writes under way.
    static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

    fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
        PENDING.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts, once, the thread that removes the pending files when a stop signal comes.
    #[cfg(unix)]
    fn watch_signals() {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        static STARTED: std::sync::Once = std::sync::Once::new();
        STARTED.call_once(|| {
            let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) else {
                return;
            };
            let _ = std::thread::Builder::new()
                .name("kschedtui-stop".into())
                .spawn(move || {
                    if let Some(sig) = signals.forever().next() {
                        // held until the process ends: no file is made after these are removed
                        let files = pending();
                        for f in files.iter() {
                            let _ = std::fs::remove_file(f);
                        }
                        let _ = signal_hook::low_level::emulate_default_handler(sig);
                        // a signal whose default action does not end the process (none of
                        // these): end it as the signal would have
                        std::process::exit(128 + sig);
                    }
                });
        });
    }

    #[cfg(not(unix))]
    fn watch_signals() {}

    /// A temporary file being written; removed when dropped unless placed.
    #[derive(Debug)]
    pub(super) struct Temporary {
        path: PathBuf,
        /// In place: nothing to remove.
        placed: bool,
    }

    /// Creates `.NAME.XXXXXX.kschedtui.tmp` in `dir`, new (never an existing file or link),
    /// readable and writable by its owner only until its mode is set.
    pub(super) fn create(dir: &Path, name: &str) -> std::io::Result<(Temporary, std::fs::File)> {
        watch_signals();
        let mut rng = fastrand::Rng::new();
        let mut last = None;
        for _ in 0..64 {
            let tag: String = (0..6).map(|_| rng.alphanumeric()).collect();
            let path = dir.join(format!(".{name}.{tag}.kschedtui.tmp"));
            let mut open = std::fs::OpenOptions::new();
            open.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o666);
            let mut files = pending();
            match open.open(&path) {
                Ok(f) => {
                    files.push(path.clone());
                    return Ok((Temporary { path, placed: false }, f));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
    }

    impl Temporary {
        /// Puts the file at `target`: renamed over it, or (without `overwrite`) linked to
        /// it, which fails with `AlreadyExists` if a file is there.
        pub(super) fn place(mut self, target: &Path, overwrite: bool) -> std::io::Result<()> {
            let mut files = pending();
            let placed = if overwrite {
                std::fs::rename(&self.path, target)
            } else {
                match std::fs::hard_link(&self.path, target) {
                    Ok(()) => std::fs::remove_file(&self.path),
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(e),
                    // a file system without hard links: checked, then renamed
                    Err(_) if std::fs::symlink_metadata(target).is_ok() => {
                        Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists))
                    }
                    Err(_) => std::fs::rename(&self.path, target),
                }
            };
            if placed.is_ok() {
                files.retain(|f| f != &self.path);
                self.placed = true;
            }
            drop(files);
            placed
        }
    }

    impl Drop for Temporary {
        fn drop(&mut self) {
            if self.placed {
                return;
            }
            let mut files = pending();
            let _ = std::fs::remove_file(&self.path);
            files.retain(|f| f != &self.path);
        }
    }
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
        let SaveError::Io { path, cause } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(path, &missing.display().to_string());
        assert_eq!(cause.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(cause.to_string(), std::io::Error::from_raw_os_error(2).to_string());
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
            format!(
                "cannot write '{}': {}",
                missing.display(),
                std::io::Error::from_raw_os_error(2)
            )
        );
        let names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["out.yaml".to_string()], "no temporary file is left");
    }

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// A link (a chain of two, relative, across directories) is written through: the file it
    /// ends at is replaced, keeping its mode, the links stay links, and the temporary file was
    /// made beside the target, none left anywhere. A dangling link creates its target.
    #[cfg(unix)]
    #[test]
    fn a_link_is_written_through_and_a_replaced_file_keeps_its_mode() {
        use std::os::unix::fs::{PermissionsExt, symlink};
        let tmp = tempfile::Builder::new().prefix("kschedtui-link-").tempdir().unwrap();
        let (work, store) = (tmp.path().join("work"), tmp.path().join("store"));
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(&store).unwrap();
        let real = store.join("cluster-v2.yaml");
        std::fs::write(&real, "old: 1\n").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
        symlink("../store/cluster-v2.yaml", work.join("v2.yaml")).unwrap();
        symlink("v2.yaml", work.join("current.yaml")).unwrap();
        let current = work.join("current.yaml");
        write_text(&current, "new: 2\n", true).unwrap();
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new: 2\n");
        assert_eq!(
            std::fs::read_link(&current).unwrap(),
            Path::new("v2.yaml"),
            "still a link"
        );
        assert_eq!(
            std::fs::read_link(work.join("v2.yaml")).unwrap(),
            Path::new("../store/cluster-v2.yaml")
        );
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o7777;
        assert_eq!(format!("{mode:o}"), "600");
        assert_eq!(names_in(&work), ["current.yaml", "v2.yaml"]);
        assert_eq!(names_in(&store), ["cluster-v2.yaml"]);
        // without overwrite, an existing target behind the link is refused
        let e = write_text(&current, "x\n", false).unwrap_err();
        assert!(matches!(e, SaveError::Exists(_)), "{e}");
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new: 2\n");
        // a link to a file not there yet: the file is made where the link points
        symlink("../store/next.yaml", work.join("next.yaml")).unwrap();
        write_text(&work.join("next.yaml"), "next: 3\n", false).unwrap();
        assert_eq!(std::fs::read_to_string(store.join("next.yaml")).unwrap(), "next: 3\n");
        assert!(
            std::fs::symlink_metadata(work.join("next.yaml"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(names_in(&store), ["cluster-v2.yaml", "next.yaml"]);
    }

    /// A FIFO is written in place (a reader gets the text; it stays a FIFO), as is a device:
    /// /dev/full's "No space left on device" is the error's cause and it stays a device.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_fifo_or_a_device_is_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let tmp = tempfile::Builder::new().prefix("kschedtui-fifo-").tempdir().unwrap();
        let fifo = tmp.path().join("pipe.yaml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        write_text(&fifo, "through: the pipe\n", true).unwrap();
        assert_eq!(reader.join().unwrap(), "through: the pipe\n");
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(names_in(tmp.path()), ["pipe.yaml"]);
        // /dev/full through a link: should writing in place ever break, the link is
        // replaced, not the system's device (the tests may run as root)
        let link = tmp.path().join("full.yaml");
        std::os::unix::fs::symlink("/dev/full", &link).unwrap();
        let e = write_text(&link, "a: 1\n", true).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "cannot write '{}': {}",
                link.display(),
                std::io::Error::from_raw_os_error(28)
            )
        );
        assert!(e.to_string().ends_with("No space left on device (os error 28)"), "{e}");
        let e = save(&load_str("t", SNAP).unwrap(), &link, true).unwrap_err();
        assert!(e.to_string().ends_with("No space left on device (os error 28)"), "{e}");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert!(std::fs::metadata(&link).unwrap().file_type().is_char_device());
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
