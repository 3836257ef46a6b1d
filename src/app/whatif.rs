//! What-if edits, all in memory: the inline forms for a pod (requests, priority, nodeSelector,
//! tolerations) and a node (taints, labels, cordon), whole objects edited as YAML, and the two
//! actions (bind, preempt). Each returns a new [`Cluster`] with the object replaced and rebuilt
//! through the model's own constructors, so a bad quantity is reported naming its field.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use crate::engine::{Features, Gate};
pub(crate) use crate::explain::fix::apply::{meta_key, replace_node, replace_pod_as};
use crate::model::quantity::Quantity;
use crate::model::validation;
use crate::model::{Cluster, Node, ObjectKey, Pod};

/// What is being edited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditTarget {
    /// A pod.
    Pod(ObjectKey),
    /// A node.
    Node(String),
}

impl std::fmt::Display for EditTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EditTarget::Pod(k) => write!(f, "pod {k}"),
            EditTarget::Node(n) => write!(f, "node {n}"),
        }
    }
}

/// Which part of the object a form field edits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// Requests of the container at this index.
    Requests(usize),
    /// spec.priority.
    Priority,
    /// spec.nodeSelector.
    NodeSelector,
    /// spec.tolerations.
    Tolerations,
    /// Node spec.taints.
    Taints,
    /// Node metadata.labels.
    Labels,
    /// Node spec.unschedulable.
    Unschedulable,
}

/// One line of the inline form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormField {
    /// What it edits.
    pub kind: FieldKind,
    /// Label shown.
    pub label: String,
    /// Current text.
    pub value: String,
    /// Text when the form opened (unchanged fields are not written back).
    pub initial: String,
    /// Syntax hint.
    pub hint: &'static str,
}

/// The inline what-if form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditForm {
    /// What it edits.
    pub target: EditTarget,
    /// Its fields.
    pub fields: Vec<FormField>,
    /// Focused field.
    pub focus: usize,
    /// The last error applying it.
    pub error: Option<String>,
}

fn field(kind: FieldKind, label: impl Into<String>, value: String, hint: &'static str) -> FormField {
    FormField {
        kind,
        label: label.into(),
        initial: value.clone(),
        value,
        hint,
    }
}

fn join_map(m: Option<&BTreeMap<String, String>>) -> String {
    m.into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Formats a toleration: `key=value:Effect`, `key:Effect` (Exists), `key` (Exists, any effect),
/// `*` (tolerates everything).
pub(crate) fn format_toleration(t: &core::Toleration) -> String {
    let key = t.key.clone().unwrap_or_default();
    let exists = t.operator.as_deref() == Some("Exists");
    let mut s = if exists {
        if key.is_empty() { "*".to_string() } else { key }
    } else {
        format!("{key}={}", t.value.clone().unwrap_or_default())
    };
    if let Some(e) = t.effect.as_deref().filter(|e| !e.is_empty()) {
        s.push(':');
        s.push_str(e);
    }
    s
}

fn split_list(s: &str) -> impl Iterator<Item = &str> {
    s.split(',').map(str::trim).filter(|x| !x.is_empty())
}

const EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

fn check_effect(e: &str, item: &str) -> Result<(), String> {
    if EFFECTS.contains(&e) {
        Ok(())
    } else {
        Err(format!("'{item}': effect '{e}' is not one of {}", EFFECTS.join(", ")))
    }
}

/// Parses a toleration list (see [`format_toleration`]).
pub(crate) fn parse_tolerations(s: &str) -> Result<Vec<core::Toleration>, String> {
    split_list(s)
        .map(|item| {
            let (lhs, effect) = match item.split_once(':') {
                Some((l, e)) => {
                    check_effect(e, item)?;
                    (l, Some(e.to_string()))
                }
                None => (item, None),
            };
            let mut t = core::Toleration {
                effect,
                ..Default::default()
            };
            if lhs == "*" {
                t.operator = Some("Exists".into());
            } else if let Some((k, v)) = lhs.split_once('=') {
                t.key = Some(k.to_string());
                t.operator = Some("Equal".into());
                t.value = Some(v.to_string());
            } else if lhs.is_empty() {
                return Err(format!("'{item}': a toleration needs a key (or '*' for every key)"));
            } else {
                t.key = Some(lhs.to_string());
                t.operator = Some("Exists".into());
            }
            Ok(t)
        })
        .collect()
}

/// Formats taints as `key=value:Effect` / `key:Effect`.
pub(crate) fn format_taints(taints: &[core::Taint]) -> String {
    taints
        .iter()
        .map(|t| match t.value.as_deref().filter(|v| !v.is_empty()) {
            Some(v) => format!("{}={v}:{}", t.key, t.effect),
            None => format!("{}:{}", t.key, t.effect),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses a taint list.
pub(crate) fn parse_taints(s: &str) -> Result<Vec<core::Taint>, String> {
    split_list(s)
        .map(|item| {
            let Some((lhs, effect)) = item.rsplit_once(':') else {
                return Err(format!("'{item}': a taint needs an effect (key=value:NoSchedule)"));
            };
            check_effect(effect, item)?;
            let (key, value) = match lhs.split_once('=') {
                Some((k, v)) => (k, Some(v.to_string())),
                None => (lhs, None),
            };
            if key.is_empty() {
                return Err(format!("'{item}': a taint needs a key"));
            }
            Ok(core::Taint {
                key: key.into(),
                value,
                effect: effect.into(),
                time_added: None,
            })
        })
        .collect()
}

/// Parses `k=v, k2=v2`.
pub(crate) fn parse_map(s: &str) -> Result<BTreeMap<String, String>, String> {
    split_list(s)
        .map(|item| match item.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
            _ => Err(format!("'{item}': expected key=value")),
        })
        .collect()
}

/// Parses `cpu=500m, memory=1Gi`, checking each quantity.
pub(crate) fn parse_requests(s: &str) -> Result<BTreeMap<String, K8sQuantity>, String> {
    let m = parse_map(s)?;
    for (k, v) in &m {
        Quantity::parse(v).map_err(|e| format!("'{k}={v}': {e}"))?;
    }
    Ok(m.into_iter().map(|(k, v)| (k, K8sQuantity(v))).collect())
}

fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "y" | "1" | "on" => Ok(true),
        "false" | "no" | "n" | "0" | "off" | "" => Ok(false),
        other => Err(format!("'{other}': expected true or false")),
    }
}

/// The form for a pod.
pub(crate) fn pod_form(pod: &Pod) -> EditForm {
    let spec = pod.spec();
    let mut fields: Vec<FormField> = spec
        .containers
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let req = c.resources.as_ref().and_then(|r| r.requests.as_ref());
            let v = req
                .into_iter()
                .flatten()
                .map(|(k, q)| format!("{k}={}", q.0))
                .collect::<Vec<_>>()
                .join(", ");
            field(
                FieldKind::Requests(i),
                format!("requests ({})", c.name),
                v,
                "cpu=500m, memory=512Mi",
            )
        })
        .collect();
    fields.push(field(
        FieldKind::Priority,
        "priority",
        pod.priority.to_string(),
        "an integer",
    ));
    fields.push(field(
        FieldKind::NodeSelector,
        "nodeSelector",
        join_map(spec.node_selector.as_ref()),
        "key=value, ...",
    ));
    let tol = spec
        .tolerations
        .iter()
        .flatten()
        .map(format_toleration)
        .collect::<Vec<_>>()
        .join(", ");
    fields.push(field(
        FieldKind::Tolerations,
        "tolerations",
        tol,
        "key=value:NoSchedule, key:NoExecute, key, *",
    ));
    EditForm {
        target: EditTarget::Pod(pod.key.clone()),
        fields,
        focus: 0,
        error: None,
    }
}

/// The form for a node.
pub(crate) fn node_form(node: &Node) -> EditForm {
    let spec = node.obj.spec.clone().unwrap_or_default();
    let fields = vec![
        field(
            FieldKind::Taints,
            "taints",
            format_taints(spec.taints.as_deref().unwrap_or_default()),
            "key=value:NoSchedule, ...",
        ),
        field(
            FieldKind::Labels,
            "labels",
            join_map(node.obj.metadata.labels.as_ref()),
            "key=value, ...",
        ),
        field(
            FieldKind::Unschedulable,
            "unschedulable",
            node.unschedulable.to_string(),
            "true (cordoned) or false",
        ),
    ];
    EditForm {
        target: EditTarget::Node(node.name.clone()),
        fields,
        focus: 0,
        error: None,
    }
}

/// What the API server accepts at the release and gates explained (tolerations with `Lt` /
/// `Gt` only with TaintTolerationComparisonOperators).
pub(crate) fn accept(features: &Features) -> validation::Accept {
    validation::Accept {
        toleration_comparison: features.on(Gate::TaintTolerationComparisonOperators),
    }
}

/// Applies the inline form: the new cluster and a description of the change.
pub(crate) fn apply_form(
    cluster: &Cluster,
    form: &EditForm,
    accept: validation::Accept,
) -> Result<(Cluster, String), String> {
    let changed: Vec<&FormField> = form
        .fields
        .iter()
        .filter(|f| f.value.trim() != f.initial.trim())
        .collect();
    if changed.is_empty() {
        return Err("nothing changed".into());
    }
    let what: Vec<String> = changed
        .iter()
        .map(|f| format!("{}: {}", f.label, f.value.trim()))
        .collect();
    let err = |f: &FormField, e: String| format!("{}: {e}", f.label);
    match &form.target {
        EditTarget::Pod(key) => {
            let pod = cluster
                .pod(key)
                .ok_or_else(|| format!("pod '{key}' is not in the snapshot"))?;
            let mut obj = pod.obj.clone();
            let spec = obj.spec.get_or_insert_with(Default::default);
            for f in &changed {
                match &f.kind {
                    FieldKind::Requests(i) => {
                        let req = parse_requests(&f.value).map_err(|e| err(f, e))?;
                        let c = spec
                            .containers
                            .get_mut(*i)
                            .ok_or_else(|| err(f, "no such container".into()))?;
                        let res = c.resources.get_or_insert_with(Default::default);
                        res.requests = (!req.is_empty()).then_some(req);
                        // a limit below the new request would be rejected by the API server
                        if let (Some(lim), Some(req)) = (res.limits.as_mut(), res.requests.as_ref()) {
                            for (k, q) in req {
                                if let Some(l) = lim.get(k) {
                                    let (lv, rv) = (Quantity::parse(&l.0).ok(), Quantity::parse(&q.0).ok());
                                    if lv < rv {
                                        lim.insert(k.clone(), q.clone());
                                    }
                                }
                            }
                        }
                    }
                    FieldKind::Priority => {
                        let p: i32 = f
                            .value
                            .trim()
                            .parse()
                            .map_err(|_| err(f, format!("'{}' is not an integer", f.value.trim())))?;
                        spec.priority = Some(p);
                    }
                    FieldKind::NodeSelector => {
                        let m = parse_map(&f.value).map_err(|e| err(f, e))?;
                        spec.node_selector = (!m.is_empty()).then_some(m);
                    }
                    FieldKind::Tolerations => {
                        let t = parse_tolerations(&f.value).map_err(|e| err(f, e))?;
                        spec.tolerations = (!t.is_empty()).then_some(t);
                    }
                    FieldKind::Taints | FieldKind::Labels | FieldKind::Unschedulable => {}
                }
            }
            Ok((
                replace_pod_as(cluster, obj.into_box(), accept)?,
                format!("edited pod {key}: {}", what.join("; ")),
            ))
        }
        EditTarget::Node(name) => {
            let node = cluster
                .node(name)
                .ok_or_else(|| format!("node '{name}' is not in the snapshot"))?;
            let mut obj = (*node.obj).clone();
            for f in &changed {
                match &f.kind {
                    FieldKind::Taints => {
                        let t = parse_taints(&f.value).map_err(|e| err(f, e))?;
                        obj.spec.get_or_insert_with(Default::default).taints = (!t.is_empty()).then_some(t);
                    }
                    FieldKind::Labels => {
                        let m = parse_map(&f.value).map_err(|e| err(f, e))?;
                        obj.metadata.labels = (!m.is_empty()).then_some(m);
                    }
                    FieldKind::Unschedulable => {
                        let b = parse_bool(&f.value).map_err(|e| err(f, e))?;
                        obj.spec.get_or_insert_with(Default::default).unschedulable = b.then_some(true);
                    }
                    FieldKind::Requests(_) | FieldKind::Priority | FieldKind::NodeSelector | FieldKind::Tolerations => {
                    }
                }
            }
            Ok((
                replace_node(cluster, obj)?,
                format!("edited node {name}: {}", what.join("; ")),
            ))
        }
    }
}

/// Cordons or uncordons a node (spec.unschedulable, as `kubectl cordon` writes it).
pub(crate) fn toggle_cordon(cluster: &Cluster, name: &str) -> Result<(Cluster, String), String> {
    let node = cluster
        .node(name)
        .ok_or_else(|| format!("node '{name}' is not in the snapshot"))?;
    let mut obj = (*node.obj).clone();
    let cordon = !node.unschedulable;
    obj.spec.get_or_insert_with(Default::default).unschedulable = cordon.then_some(true);
    let verb = if cordon { "cordoned" } else { "uncordoned" };
    Ok((replace_node(cluster, obj)?, format!("{verb} node {name}")))
}

/// The object as YAML for $EDITOR.
pub(crate) fn to_yaml(cluster: &Cluster, target: &EditTarget) -> Result<String, String> {
    let r = match target {
        EditTarget::Pod(k) => serde_yaml::to_string(&cluster.pod(k).ok_or_else(|| format!("pod '{k}' is gone"))?.obj),
        EditTarget::Node(n) => {
            serde_yaml::to_string(&cluster.node(n).ok_or_else(|| format!("node '{n}' is gone"))?.obj)
        }
    };
    r.map_err(|e| format!("cannot write {target} as YAML: {e}"))
}

/// The end of [`apply_yaml`]'s error for an object saved as it was (not a mistake to correct).
pub(crate) const NO_CHANGE: &str = "no change";

/// The first line of the comment put above an edit that could not be applied when the editor
/// is opened on it again (as `kubectl edit` does).
const EDIT_ERROR_HEADER: &str = "# kschedtui could not apply this edit:";

/// An edit that could not be applied, to open in the editor again: the error as comments
/// above the text (any such comment of an earlier attempt replaced).
pub(crate) fn with_edit_error(text: &str, error: &str) -> String {
    let mut out = String::from(EDIT_ERROR_HEADER);
    out.push('\n');
    for l in error.lines() {
        out.push_str("#   ");
        out.push_str(l);
        out.push('\n');
    }
    out.push_str("# Correct it and save to apply it; save it unchanged, or empty, to give up.\n#\n");
    out.push_str(without_edit_error(text));
    out
}

/// The text without the comment [`with_edit_error`] put above it.
pub(crate) fn without_edit_error(text: &str) -> &str {
    if !text.starts_with(EDIT_ERROR_HEADER) {
        return text;
    }
    let mut at = 0;
    for l in text.split_inclusive('\n') {
        at += l.len();
        if l.trim_end() == "#" {
            return &text[at..];
        }
    }
    text
}

/// Applies an edited YAML object: the new cluster and a description of the change.
pub(crate) fn apply_yaml(
    cluster: &Cluster,
    target: &EditTarget,
    text: &str,
    accept: validation::Accept,
) -> Result<(Cluster, String), String> {
    match target {
        EditTarget::Pod(k) => {
            let obj: core::Pod =
                serde_yaml::from_str(text).map_err(|e| format!("edited {target}: not a valid Pod: {e}"))?;
            let got = meta_key(&obj.metadata);
            if &got != k {
                return Err(format!(
                    "edited {target}: metadata changed to '{got}'; renaming is not supported"
                ));
            }
            if cluster.pod(k).is_some_and(|p| *p.obj == obj) {
                return Err(format!("{target}: {NO_CHANGE}"));
            }
            Ok((replace_pod_as(cluster, obj, accept)?, format!("edited {target} (YAML)")))
        }
        EditTarget::Node(n) => {
            let obj: core::Node =
                serde_yaml::from_str(text).map_err(|e| format!("edited {target}: not a valid Node: {e}"))?;
            let got = obj.metadata.name.clone().unwrap_or_default();
            if &got != n {
                return Err(format!(
                    "edited {target}: metadata.name changed to '{got}'; renaming is not supported"
                ));
            }
            if cluster.node(n).is_some_and(|x| *x.obj == obj) {
                return Err(format!("{target}: {NO_CHANGE}"));
            }
            Ok((replace_node(cluster, obj)?, format!("edited {target} (YAML)")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::file;

    fn cluster() -> Cluster {
        file::load_str("t", include_str!("../../fixtures/tui-test.yaml")).expect("fixture")
    }

    #[test]
    fn tolerations_round_trip() {
        let s = "dedicated=gpu:NoSchedule, spot:NoExecute, maintenance, *";
        let t = parse_tolerations(s).expect("parses");
        assert_eq!(t[0].operator.as_deref(), Some("Equal"));
        assert_eq!(t[1].operator.as_deref(), Some("Exists"));
        assert_eq!(t[2].effect, None);
        assert_eq!(t[3].key, None);
        let back: Vec<String> = t.iter().map(format_toleration).collect();
        assert_eq!(back.join(", "), s);
        assert_eq!(
            parse_tolerations("a=b:Sometimes").expect_err("bad effect"),
            "'a=b:Sometimes': effect 'Sometimes' is not one of NoSchedule, PreferNoSchedule, NoExecute"
        );
    }

    #[test]
    fn taints_round_trip_and_need_an_effect() {
        let t = parse_taints("dedicated=gpu:NoSchedule, spot:PreferNoSchedule").expect("parses");
        assert_eq!(format_taints(&t), "dedicated=gpu:NoSchedule, spot:PreferNoSchedule");
        assert!(parse_taints("dedicated=gpu").is_err());
    }

    #[test]
    fn pod_form_edits_requests_and_tolerations() {
        let c = cluster();
        let key = ObjectKey::new("default", "batch-1");
        let mut form = pod_form(c.pod(&key).expect("pod"));
        assert_eq!(form.fields[0].value, "cpu=1500m, memory=1Gi");
        form.fields[0].value = "cpu=1, memory=1Gi".into();
        let tol = form
            .fields
            .iter_mut()
            .find(|f| f.kind == FieldKind::Tolerations)
            .expect("field");
        tol.value = "dedicated=gpu:NoSchedule".into();
        let (c2, what) = apply_form(&c, &form, validation::Accept::ANY_RELEASE).expect("applies");
        let p = c2.pod(&key).expect("pod");
        assert_eq!(p.requests.resource.milli_cpu, 1000);
        assert_eq!(p.tolerations.len(), 1);
        assert_eq!(
            what,
            "edited pod default/batch-1: requests (job): cpu=1, memory=1Gi; tolerations: dedicated=gpu:NoSchedule"
        );
        // priority untouched: it stays resolved from the class, not written to spec.priority
        assert_eq!(p.obj.spec.as_ref().and_then(|s| s.priority), None);
    }

    #[test]
    fn bad_quantity_names_the_field() {
        let c = cluster();
        let mut form = pod_form(c.pod(&ObjectKey::new("default", "batch-1")).expect("pod"));
        form.fields[0].value = "cpu=lots".into();
        let e = apply_form(&c, &form, validation::Accept::ANY_RELEASE).expect_err("bad quantity");
        assert!(e.starts_with("requests (job): 'cpu=lots': "), "{e}");
    }

    #[test]
    fn node_form_and_cordon() {
        let c = cluster();
        let mut form = node_form(c.node("node-c").expect("node"));
        assert_eq!(form.fields[0].value, "dedicated=gpu:NoSchedule");
        form.fields[0].value = String::new();
        let (c2, _) = apply_form(&c, &form, validation::Accept::ANY_RELEASE).expect("applies");
        assert!(c2.node("node-c").expect("node").taints.is_empty());
        let (c3, what) = toggle_cordon(&c2, "node-c").expect("cordons");
        assert!(c3.node("node-c").expect("node").unschedulable);
        assert_eq!(what, "cordoned node node-c");
    }

    #[test]
    fn yaml_round_trip_and_rename_refused() {
        let c = cluster();
        let t = EditTarget::Pod(ObjectKey::new("default", "web-2"));
        let y = to_yaml(&c, &t).expect("yaml");
        assert!(
            apply_yaml(&c, &t, &y, validation::Accept::ANY_RELEASE)
                .expect_err("unchanged")
                .ends_with("no change")
        );
        let y2 = y.replace("cpu: 500m", "cpu: 700m");
        let (c2, _) = apply_yaml(&c, &t, &y2, validation::Accept::ANY_RELEASE).expect("applies");
        assert_eq!(
            c2.pod(&ObjectKey::new("default", "web-2"))
                .expect("pod")
                .requests
                .resource
                .milli_cpu,
            700
        );
        let y3 = y.replace("name: web-2", "name: web-3");
        assert!(
            apply_yaml(&c, &t, &y3, validation::Accept::ANY_RELEASE)
                .expect_err("renamed")
                .contains("renaming is not supported")
        );
    }

    /// A what-if the API server would refuse is refused before it is explained or saved, with
    /// the API server's message; the cluster is left as it was.
    #[test]
    fn an_edit_the_api_server_would_refuse_is_refused_with_its_message() {
        let c = cluster();
        let t = EditTarget::Pod(ObjectKey::new("default", "web-2"));
        let y = to_yaml(&c, &t).expect("yaml");
        let any = validation::Accept::ANY_RELEASE;
        let spread = y.replace(
            "containers:",
            "topologySpreadConstraints:\n  - {maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n  containers:",
        );
        assert_eq!(
            apply_yaml(&c, &t, &spread, any).expect_err("maxSkew 0"),
            "pod default/web-2: the API server would refuse it: spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"
        );
        let negative = y.replace("cpu: 500m", "cpu: '-1'");
        assert_eq!(
            apply_yaml(&c, &t, &negative, any).expect_err("negative"),
            "pod default/web-2: the API server would refuse it: spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater than or equal to 0"
        );
        // the comparison operators need their gate
        let gt = y.replace(
            "containers:",
            "tolerations: [{key: gpu-count, operator: Gt, value: '2', effect: NoSchedule}]\n  containers:",
        );
        assert_eq!(
            apply_yaml(&c, &t, &gt, validation::Accept::default()).expect_err("Gt"),
            "pod default/web-2: the API server would refuse it: spec.tolerations[0].operator: Unsupported value: \"Gt\": supported values: \"Equal\", \"Exists\""
        );
        assert!(apply_yaml(&c, &t, &gt, any).is_ok());
        // the inline form: a label key the API server refuses
        let mut form = node_form(c.node("node-c").expect("node"));
        let labels = form
            .fields
            .iter_mut()
            .find(|f| f.kind == FieldKind::Labels)
            .expect("labels field");
        labels.value = "gpu=true, bad key=x".into();
        assert_eq!(
            apply_form(&c, &form, any).expect_err("bad key"),
            "node node-c: the API server would refuse it: metadata.labels: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        );
        let n = EditTarget::Node("node-c".into());
        let ny = to_yaml(&c, &n).expect("yaml");
        let taint = ny.replace("effect: NoSchedule", "effect: NoScheduleEver");
        assert_ne!(taint, ny);
        assert_eq!(
            apply_yaml(&c, &n, &taint, any).expect_err("bad effect"),
            "node node-c: the API server would refuse it: spec.taints[0].effect: Unsupported value: \"NoScheduleEver\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""
        );
    }
}
