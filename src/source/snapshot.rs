//! Writes a [`ClusterState`] as a snapshot file that [`super::file`] reads back to the same
//! cluster: a `kind: List` of the objects in kind, namespace and name order, as
//! `kubectl get -o yaml` prints them, without `metadata.managedFields`. YAML by default, JSON
//! when the file name ends in `.json`. Optionally anonymized ([`super::anonymize`]), which
//! leaves the events out.

use std::path::Path;

use serde_json::{Value, json};

use crate::model::event::{ClusterState, Kind};

/// How to write.
#[derive(Clone, Debug, Default)]
pub struct SnapshotOptions {
    /// Replace names, label values and images with placeholders.
    pub anonymize: bool,
    /// JSON instead of YAML.
    pub json: bool,
    /// Comment lines written at the top of a YAML file (ignored when anonymizing, as they
    /// name the cluster).
    pub header: Vec<String>,
    /// Where the snapshot came from, recorded under the top-level key [`INFO_KEY`] (the
    /// loader ignores it; `explain --snapshot` reads the Kubernetes version from it).
    pub info: SnapshotInfo,
}

/// The top-level key of a snapshot List that records where it came from.
pub use super::json_list::INFO_KEY;

/// Where a snapshot came from.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotInfo {
    /// The server's gitVersion ("v1.30.6"): `explain --snapshot` reproduces that scheduler
    /// release unless told otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubernetes_version: Option<String>,
    /// Context name (dropped when anonymizing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Server URL (dropped when anonymizing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Namespace read, when not all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// resourceVersion per kind.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub resource_versions: std::collections::BTreeMap<String, String>,
    /// Optional kinds that could not be read, with why (`Event: "403 Forbidden: ..."`), so that
    /// `explain --snapshot` says so as the live verdict did.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub unreadable: std::collections::BTreeMap<String, String>,
}

impl SnapshotInfo {
    /// The info as recorded in a snapshot file's top level, if any (a directory has none, and
    /// neither has what is not a regular file: a pipe could not be read again for its objects).
    /// A JSON List is scanned a piece at a time through one buffer; anything else is read
    /// whole.
    pub fn read(path: &Path) -> Option<SnapshotInfo> {
        if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            return None;
        }
        let info = match super::json_list::top_info(std::fs::File::open(path).ok()?).ok()? {
            Some(info) => info,
            None => info_in_text(&std::fs::read_to_string(path).ok()?),
        };
        SnapshotInfo::from_value(info?)
    }

    /// The info from the value recorded under [`INFO_KEY`] (None when it is not one).
    pub fn from_value(v: Value) -> Option<SnapshotInfo> {
        serde_json::from_value(v).ok()
    }
}

/// The value under [`INFO_KEY`] at the top level of a snapshot's text (a JSON document, or
/// the first YAML document), if any.
pub(crate) fn info_in_text(text: &str) -> Option<Value> {
    let text = super::input::strip_bom(text);
    // A text that never spells the key (and has no escape that could spell it) has no
    // info: no need to parse a snapshot of 100,000 pods for that.
    if !text.contains(INFO_KEY) && !text.contains('\\') {
        return None;
    }
    let trimmed = text.trim_start();
    // Only the key's value is built; the rest of the top level is skipped, not kept.
    let top: TopInfo = if trimmed.starts_with('{') {
        serde_json::from_str(text).ok()?
    } else {
        // too deep for the YAML parser to read in time: the loader says why
        super::input::check_nesting(text).ok()?;
        // The first document only: a snapshot written by kschedtui is one List.
        let first = serde_yaml::Deserializer::from_str(text).next()?;
        serde::Deserialize::deserialize(first).ok()?
    };
    top.0
}

/// The value of [`INFO_KEY`] in a top-level mapping (the last one when repeated), if any.
struct TopInfo(Option<Value>);

impl<'de> serde::Deserialize<'de> for TopInfo {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = TopInfo;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<TopInfo, A::Error> {
                let mut info = None;
                while let Some(k) = m.next_key::<String>()? {
                    if k == INFO_KEY {
                        info = Some(m.next_value::<Value>()?);
                    } else {
                        m.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(TopInfo(info))
            }
        }
        d.deserialize_map(V)
    }
}

/// Why a snapshot could not be written.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// Encoding failed.
    #[error("cannot encode the snapshot: {0}")]
    Encode(String),
    /// Writing failed.
    #[error("cannot write snapshot '{path}': {cause}")]
    Io {
        /// Path (`standard output` for `-`).
        path: String,
        /// Cause (in the message, not a chained source: the message already says it).
        cause: std::io::Error,
    },
}

/// The snapshot's objects as JSON, managedFields dropped, anonymized when asked.
///
/// Anonymizing leaves the FailedScheduling events out ([`left_out_by_anonymize`]): their
/// messages are free text that names PVCs, StorageClasses, nodes and taint values, and a
/// placeholder substitution in free text can neither be complete nor keep the text equal to
/// what kschedtui computes on the anonymized cluster. (Condition messages are dropped for the
/// same reason.)
pub fn items(state: &ClusterState, anonymize: bool) -> Vec<Value> {
    let mut items: Vec<Value> = state
        .objects()
        .filter(|o| !(anonymize && o.kind() == Some(Kind::Event)))
        .map(|o| {
            let mut v = o.to_json();
            if let Some(Value::Object(meta)) = v.get_mut("metadata") {
                meta.remove("managedFields");
            }
            v
        })
        .collect();
    if anonymize {
        super::anonymize::anonymize(&mut items);
    }
    items
}

/// How many objects an anonymized snapshot leaves out (the events, see [`items`]).
pub fn left_out_by_anonymize(state: &ClusterState) -> usize {
    state.objects_of(Kind::Event).count()
}

/// The snapshot file's text.
pub fn render(state: &ClusterState, opts: &SnapshotOptions) -> Result<String, SnapshotError> {
    let mut info = opts.info.clone();
    if opts.anonymize {
        info.context = None;
        info.server = None;
        info.namespace = None;
        // The server's message names the user and the server: only the HTTP status is kept.
        for why in info.unreadable.values_mut() {
            *why = match why.split_once(':') {
                Some((status, _)) if status.starts_with(|c: char| c.is_ascii_digit()) => status.to_string(),
                _ => "not readable (the reason is left out of anonymized snapshots)".to_string(),
            };
        }
    }
    let mut doc = json!({
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {},
        "items": items(state, opts.anonymize),
    });
    if info != SnapshotInfo::default() {
        doc[INFO_KEY] = serde_json::to_value(&info).map_err(|e| SnapshotError::Encode(e.to_string()))?;
    }
    if opts.json {
        let mut s = serde_json::to_string_pretty(&doc).map_err(|e| SnapshotError::Encode(e.to_string()))?;
        s.push('\n');
        return Ok(s);
    }
    let mut out = String::new();
    if !opts.anonymize {
        for h in &opts.header {
            out += &format!("# {h}\n");
        }
    }
    out += &super::yaml::to_string(&doc);
    Ok(out)
}

/// Writes the snapshot to `path` (JSON when it ends in `.json`, whatever `opts.json` says; `-`
/// is the standard output), as [`super::save::write_text`] writes.
pub fn write_file(path: &Path, state: &ClusterState, opts: &SnapshotOptions) -> Result<(), SnapshotError> {
    let mut opts = opts.clone();
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) {
        opts.json = true;
    }
    let text = render(state, &opts)?;
    // whole or not at all: a failed write leaves the file as it was
    super::save::write_text(path, &text, true).map_err(|e| match e {
        super::save::SaveError::Io { path, cause } => SnapshotError::Io { path, cause },
        other => SnapshotError::Io {
            path: path.display().to_string(),
            cause: std::io::Error::other(other.to_string()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::ClusterEvent;
    use crate::source::file::{load_str, read_objects_str};

    const SNAP: &str = r#"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {zone: a, "on": "yes"}
    managedFields: [{manager: kubelet, operation: Update}]
  status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: a, creationTimestamp: "2024-05-01T10:00:00Z"}
  spec:
    containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]
- apiVersion: scheduling.x-k8s.io/v1alpha1
  kind: PodGroup
  metadata: {name: g, namespace: a}
  spec: {minMember: 2}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: skipped, namespace: a}
- apiVersion: storage.k8s.io/v1
  kind: VolumeAttachment
  metadata: {name: csi-0a1b}
  spec: {attacher: ebs.csi.aws.com, nodeName: n1, source: {persistentVolumeName: pv-1}}
  status: {attached: true}
- apiVersion: v1
  kind: Event
  metadata: {name: p.17a0, namespace: a}
  involvedObject: {kind: Pod, namespace: a, name: p, apiVersion: v1}
  reason: FailedScheduling
  message: "0/1 nodes are available: persistentvolumeclaim \"data-secret-project\" not found."
  reportingComponent: default-scheduler
  reportingInstance: default-scheduler-cp-secret-host
  eventTime: "2024-05-01T10:00:01.000000Z"
  series: {count: 3, lastObservedTime: "2024-05-01T10:04:00.000000Z"}
  type: Warning
"#;

    fn state() -> ClusterState {
        // Read from the text: tests running in parallel must not share a file they rewrite.
        ClusterState::from_objects(read_objects_str("in.yaml", SNAP, &mut Vec::new()).unwrap())
    }

    #[test]
    fn yaml_and_json_read_back_to_the_same_objects_without_managed_fields() {
        let s = state();
        for json in [false, true] {
            let text = render(
                &s,
                &SnapshotOptions {
                    json,
                    ..Default::default()
                },
            )
            .unwrap();
            assert!(!text.contains("managedFields"), "{text}");
            let back = load_str("back", &text).unwrap();
            let orig = s.to_cluster().unwrap();
            assert_eq!(back.nodes.len(), 1);
            assert_eq!(back.nodes[0].labels, orig.nodes[0].labels);
            assert_eq!(
                back.pods[0].creation().map(|t| t.to_string()).as_deref(),
                Some("2024-05-01T10:00:00Z")
            );
            assert_eq!(back.pod_groups[0].spec.min_member, 2);
            assert_eq!(
                format!("{:?}", back.volume_attachments),
                format!("{:?}", orig.volume_attachments)
            );
            assert_eq!(back.volume_attachments["csi-0a1b"].spec.node_name, "n1");
            assert_eq!(format!("{:?}", back.pods[0].obj), format!("{:?}", orig.pods[0].obj));
            // The FailedScheduling event comes back as it was read.
            assert_eq!(back.scheduling_events, orig.scheduling_events);
            let e = &back.scheduling_events[&crate::model::ObjectKey::new("a", "p")][0];
            assert_eq!((e.count, e.component.as_str()), (3, "default-scheduler"));
            assert_eq!(e.last.map(|t| t.to_string()).as_deref(), Some("2024-05-01T10:04:00Z"));
        }
    }

    #[test]
    fn header_is_written_as_comments_unless_anonymized() {
        let mut s = state();
        s.apply(ClusterEvent::Bookmark {
            kind: crate::model::event::Kind::Pod,
            resource_version: "5".into(),
        });
        let opts = SnapshotOptions {
            header: vec!["context 'prod'".into()],
            ..Default::default()
        };
        assert!(render(&s, &opts).unwrap().starts_with("# context 'prod'\n"));
        let anon = SnapshotOptions {
            anonymize: true,
            ..opts
        };
        let text = render(&s, &anon).unwrap();
        assert!(!text.contains("prod"));
        // Events are left out whole: their messages name objects in free text.
        assert_eq!(left_out_by_anonymize(&s), 1);
        for leak in ["Event", "data-secret-project", "cp-secret-host", "FailedScheduling"] {
            assert!(!text.contains(leak), "{leak} in {text}");
        }
        let back = load_str("anon", &text).unwrap();
        assert!(back.scheduling_events.is_empty());
        assert_eq!(back.pods.len(), 1);
    }

    #[test]
    fn info_is_recorded_and_read_back_and_the_loader_ignores_it() {
        let s = state();
        let info = SnapshotInfo {
            kubernetes_version: Some("v1.31.2".into()),
            context: Some("prod".into()),
            resource_versions: [("Pod".to_string(), "77".to_string())].into(),
            ..Default::default()
        };
        let tmp = tempfile::Builder::new().prefix("kschedtui-info-").tempdir().unwrap();
        let dir = tmp.path();
        for (name, anonymize) in [("a.yaml", false), ("b.json", false), ("c.yaml", true)] {
            let f = dir.join(name);
            write_file(
                &f,
                &s,
                &SnapshotOptions {
                    info: info.clone(),
                    anonymize,
                    ..Default::default()
                },
            )
            .unwrap();
            let back = SnapshotInfo::read(&f).unwrap();
            assert_eq!(back.kubernetes_version.as_deref(), Some("v1.31.2"));
            assert_eq!(back.context.is_some(), !anonymize);
            let loaded = crate::source::file::load_path(&f).unwrap();
            assert_eq!(loaded.pods.len(), 1);
            // The loader's own read finds the same record (JSON: the scanner's one pass; YAML:
            // the text it read).
            assert_eq!(
                loaded.recorded_info.and_then(SnapshotInfo::from_value),
                Some(back.clone())
            );
            let kept = crate::source::file::load_path_keeping_documents(&f).unwrap();
            assert_eq!(kept.recorded_info.and_then(SnapshotInfo::from_value), Some(back));
        }
        assert_eq!(SnapshotInfo::read(dir), None);
        // A directory records nothing, whatever its one file does.
        let sub = dir.join("sub");
        std::fs::create_dir(&sub).unwrap();
        std::fs::copy(dir.join("b.json"), sub.join("b.json")).unwrap();
        assert_eq!(crate::source::file::load_path(&sub).unwrap().recorded_info, None);
    }
}
