//! What the API server would refuse in a Pod or a Node that the scheduler reads: negative
//! requests, limits or allocatable, invalid label keys and values, unknown operators (label
//! selectors, node selector requirements, tolerations), unknown taint effects, `maxSkew: 0`,
//! a required (anti-)affinity term without `topologyKey`, a Pod without containers. A snapshot
//! or a what-if edit can hold any of them; kube-scheduler never sees such an object, so an
//! explanation of it explains something that cannot exist. The loader turns each into a
//! warning that names the object and the field; the TUI's what-if refuses the edit.
//!
//! Messages are the API server's own (`field.Error` of k8s.io/apimachinery: `PATH: Invalid
//! value: VALUE: DETAIL`, `PATH: Unsupported value: "X": supported values: ...`, `PATH:
//! Required value[: DETAIL]`), as `pkg/apis/core/validation/validation.go` (`ValidatePodSpec`,
//! `validateContainers`, `ValidateTolerations`, `validateTaintEffect`,
//! `ValidateNodeSelectorRequirement`, `validatePodAffinityTerm`,
//! `validateTopologySpreadConstraints`, `ValidateNodeResources`, `validateNodeTaints`) and
//! apimachinery (`ValidateLabelSelectorRequirement`, `ValidateLabels`, `content.IsLabelKey`,
//! `content.IsLabelValue`) word them at the newest release. One difference: upstream's
//! `ValidateNode` names a node's taints `metadata.taints[i]` (it passes the metadata path);
//! here they are `spec.taints[i]`, where the field is.
//!
//! Only the checks above: the rest of upstream's validation (names, images, ports, probes,
//! volumes, ...) says nothing about scheduling and is not repeated.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::quantity::Quantity;

/// What the checks accept beyond the oldest release's API.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Accept {
    /// Tolerations with `Lt` / `Gt` (1.35+ with TaintTolerationComparisonOperators).
    pub(crate) toleration_comparison: bool,
}

impl Accept {
    /// What some release kschedtui reproduces accepts: a snapshot's loader does not know the
    /// release it will be explained at.
    pub(crate) const ANY_RELEASE: Accept = Accept {
        toleration_comparison: true,
    };
}

/// The errors the API server would answer for `pod`, in its order (empty: it would accept
/// the pod's scheduling fields).
pub(crate) fn pod(pod: &core::Pod, accept: Accept) -> Vec<String> {
    let mut e = Errors::default();
    labels_at(&mut e, pod.metadata.labels.as_ref(), &|| "metadata.labels".into());
    let Some(spec) = pod.spec.as_ref() else {
        e.required("spec.containers", "");
        return e.0;
    };
    if spec.containers.is_empty() {
        e.required("spec.containers", "");
    }
    for (i, c) in spec.containers.iter().enumerate() {
        container_resources(&mut e, c, &|| format!("spec.containers[{i}].resources"));
    }
    for (i, c) in spec.init_containers.iter().flatten().enumerate() {
        container_resources(&mut e, c, &|| format!("spec.initContainers[{i}].resources"));
    }
    if let Some(r) = spec.resources.as_ref() {
        quantities(&mut e, r.limits.as_ref(), &|| "spec.resources.limits".into());
        quantities(&mut e, r.requests.as_ref(), &|| "spec.resources.requests".into());
    }
    labels_at(&mut e, spec.node_selector.as_ref(), &|| "spec.nodeSelector".into());
    if let Some(a) = spec.affinity.as_ref() {
        affinity(&mut e, a);
    }
    tolerations(&mut e, spec.tolerations.as_deref().unwrap_or_default(), accept);
    spread(&mut e, spec.topology_spread_constraints.as_deref().unwrap_or_default());
    e.0
}

/// The errors the API server would answer for `node` (its labels, taints, capacity and
/// allocatable).
pub(crate) fn node(node: &core::Node) -> Vec<String> {
    let mut e = Errors::default();
    labels(&mut e, node.metadata.labels.as_ref(), "metadata.labels");
    let taints = node.spec.as_ref().and_then(|s| s.taints.as_deref()).unwrap_or_default();
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for (i, t) in taints.iter().enumerate() {
        let path = format!("spec.taints[{i}]");
        label_name(&mut e, &t.key, &format!("{path}.key"));
        if let Some(v) = t.value.as_deref() {
            let errs = label_value_errors(v);
            if !errs.is_empty() {
                e.invalid_str(&format!("{path}.value"), v, &errs.join(";"));
            }
        }
        effect(&mut e, &t.effect, false, &|| format!("{path}.effect"));
        if seen.contains(&(t.effect.as_str(), t.key.as_str())) {
            e.0.push(format!(
                "{path}: Duplicate value: {{key: {:?}, value: {:?}, effect: {:?}}}: taints must be unique by key and effect pair",
                t.key,
                t.value.as_deref().unwrap_or(""),
                t.effect
            ));
        } else {
            seen.push((t.effect.as_str(), t.key.as_str()));
        }
    }
    if let Some(s) = node.status.as_ref() {
        for (field, list) in [
            ("capacity", s.capacity.as_ref()),
            ("allocatable", s.allocatable.as_ref()),
        ] {
            for (k, q) in list.into_iter().flatten() {
                if is_negative(q) {
                    e.invalid_str(&format!("status.{field}.{k}"), &q.0, NEGATIVE);
                }
            }
        }
    }
    e.0
}

/// The errors, in order.
#[derive(Default)]
struct Errors(Vec<String>);

impl Errors {
    fn required(&mut self, path: &str, detail: &str) {
        self.0.push(if detail.is_empty() {
            format!("{path}: Required value")
        } else {
            format!("{path}: Required value: {detail}")
        });
    }

    fn forbidden(&mut self, path: &str, detail: &str) {
        self.0.push(format!("{path}: Forbidden: {detail}"));
    }

    /// `Invalid value` of a string (Go quotes it with %q).
    fn invalid_str(&mut self, path: &str, value: &str, detail: &str) {
        self.0
            .push(format!("{path}: Invalid value: {}: {detail}", go_quote(value)));
    }

    /// `Invalid value` of a number.
    fn invalid_num(&mut self, path: &str, value: i64, detail: &str) {
        self.0.push(format!("{path}: Invalid value: {value}: {detail}"));
    }

    fn not_supported(&mut self, path: &str, value: &str, supported: &[&str]) {
        let list: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
        self.0.push(format!(
            "{path}: Unsupported value: {}: supported values: {}",
            go_quote(value),
            list.join(", ")
        ));
    }
}

/// A string as Go's `%q` prints it (the characters a label or name can hold print as
/// themselves; others are escaped).
fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

const NEGATIVE: &str = "must be greater than or equal to 0";
const NOT_POSITIVE: &str = "must be greater than zero";

/// `ValidateNonnegativeQuantity`'s test (a negative quantity is written with a `-`: the
/// quantities of a valid object are not parsed again).
fn is_negative(q: &ApiQuantity) -> bool {
    q.0.starts_with('-') && Quantity::parse(&q.0).is_ok_and(|v| v.nanos() < 0)
}

/// `ValidateNonnegativeQuantity` of each quantity of a resource list, named `path[name]`; the
/// value as written (upstream prints its canonical form, which for the usual `-1`, `-500m` is
/// the same).
fn quantities(e: &mut Errors, list: Option<&BTreeMap<String, ApiQuantity>>, path: &dyn Fn() -> String) {
    for (k, q) in list.into_iter().flatten() {
        if is_negative(q) {
            e.invalid_str(&format!("{}[{k}]", path()), &q.0, NEGATIVE);
        }
    }
}

fn container_resources(e: &mut Errors, c: &core::Container, path: &dyn Fn() -> String) {
    if let Some(r) = c.resources.as_ref() {
        quantities(e, r.limits.as_ref(), &|| format!("{}.limits", path()));
        quantities(e, r.requests.as_ref(), &|| format!("{}.requests", path()));
    }
}

/// `ValidateLabels`: each key a label key, each value a label value.
fn labels(e: &mut Errors, labels: Option<&BTreeMap<String, String>>, path: &str) {
    for (k, v) in labels.into_iter().flatten() {
        label_name(e, k, path);
        if !is_label_value(v) {
            for msg in label_value_errors(v) {
                e.invalid_str(path, v, &msg);
            }
        }
    }
}

/// `ValidateLabelName`: one error per failed rule of `content.IsLabelKey`.
fn label_name(e: &mut Errors, key: &str, path: &str) {
    if is_label_key(key) {
        return;
    }
    for msg in label_key_errors(key) {
        e.invalid_str(path, key, &msg);
    }
}

/// A valid label key (`content.IsLabelKey` finds nothing), without allocating.
fn is_label_key(key: &str) -> bool {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    name.len() <= 63
        && is_label_name_part(name)
        && prefix.is_none_or(|p| !p.is_empty() && p.len() <= 253 && is_dns1123_subdomain(p))
}

/// A valid label value (`content.IsLabelValue` finds nothing).
fn is_label_value(v: &str) -> bool {
    v.is_empty() || (v.len() <= 63 && is_label_name_part(v))
}

const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_MSG: &str =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// `RegexError`.
fn regex_error(msg: &str, re: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{re}')");
    }
    let mut s = format!("{msg} (e.g. ");
    for (i, x) in examples.iter().enumerate() {
        if i > 0 {
            s += " or ";
        }
        s += &format!("'{x}', ");
    }
    s + &format!("regex used for validation is '{re}')")
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, whole.
fn is_label_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// A DNS-1123 subdomain: labels of `[a-z0-9]([-a-z0-9]*[a-z0-9])?` joined by dots.
fn is_dns1123_subdomain(s: &str) -> bool {
    s.split('.').all(|l| {
        let b = l.as_bytes();
        !b.is_empty()
            && b[0].is_ascii_alphanumeric()
            && !b[0].is_ascii_uppercase()
            && b[b.len() - 1].is_ascii_alphanumeric()
            && !b[b.len() - 1].is_ascii_uppercase()
            && b.iter()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
    })
}

/// `content.IsLabelKey`.
pub(crate) fn label_key_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                if prefix.len() > 253 {
                    errs.push("prefix part must be no more than 253 bytes".to_string());
                }
                if !is_dns1123_subdomain(prefix) {
                    errs.push(format!(
                        "prefix part {}",
                        regex_error(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, &["example.com"])
                    ));
                }
            }
            name
        }
        _ => {
            errs.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 bytes".to_string());
    }
    if !is_label_name_part(name) {
        errs.push(format!(
            "name part {}",
            regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
        ));
    }
    errs
}

/// `content.IsLabelValue`.
pub(crate) fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push("must be no more than 63 bytes".to_string());
    }
    if !value.is_empty() && !is_label_name_part(value) {
        errs.push(regex_error(
            LABEL_VALUE_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// A path built only when an error names it (most objects have none).
type Path<'a> = &'a dyn Fn() -> String;

/// `ValidateLabels` of a map under a path built on demand.
fn labels_at(e: &mut Errors, labels: Option<&BTreeMap<String, String>>, path: Path<'_>) {
    if labels
        .into_iter()
        .flatten()
        .any(|(k, v)| !is_label_key(k) || !is_label_value(v))
    {
        self::labels(e, labels, &path());
    }
}

/// `ValidateLabelName` under a path built on demand.
fn label_name_at(e: &mut Errors, key: &str, path: Path<'_>) {
    if !is_label_key(key) {
        label_name(e, key, &path());
    }
}

/// `ValidateLabelSelector` (apimachinery): matchLabels and each requirement.
fn label_selector(e: &mut Errors, s: Option<&LabelSelector>, path: Path<'_>) {
    let Some(s) = s else { return };
    labels_at(e, s.match_labels.as_ref(), &|| format!("{}.matchLabels", path()));
    for (i, r) in s.match_expressions.iter().flatten().enumerate() {
        let p = || format!("{}.matchExpressions[{i}]", path());
        let values = r.values.as_deref().unwrap_or_default();
        match r.operator.as_str() {
            "In" | "NotIn" => {
                if values.is_empty() {
                    e.required(
                        &format!("{}.values", p()),
                        "must be specified when `operator` is 'In' or 'NotIn'",
                    );
                }
            }
            "Exists" | "DoesNotExist" => {
                if !values.is_empty() {
                    e.forbidden(
                        &format!("{}.values", p()),
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    );
                }
            }
            op => e.invalid_str(&format!("{}.operator", p()), op, "not a valid selector operator"),
        }
        label_name_at(e, &r.key, &|| format!("{}.key", p()));
    }
}

/// `ValidateNodeSelectorRequirement` and `ValidateNodeFieldSelectorRequirement`.
fn node_selector_term(e: &mut Errors, t: &core::NodeSelectorTerm, path: Path<'_>, check_values: bool) {
    for (j, r) in t.match_expressions.iter().flatten().enumerate() {
        let p = || format!("{}.matchExpressions[{j}]", path());
        let values = r.values.as_deref().unwrap_or_default();
        match r.operator.as_str() {
            "In" | "NotIn" => {
                if values.is_empty() {
                    e.required(
                        &format!("{}.values", p()),
                        "must be specified when `operator` is 'In' or 'NotIn'",
                    );
                }
            }
            "Exists" | "DoesNotExist" => {
                if !values.is_empty() {
                    e.forbidden(
                        &format!("{}.values", p()),
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    );
                }
            }
            "Gt" | "Lt" => {
                if values.len() != 1 {
                    e.required(
                        &format!("{}.values", p()),
                        "must be specified single value when `operator` is 'Lt' or 'Gt'",
                    );
                }
            }
            op => e.invalid_str(&format!("{}.operator", p()), op, "not a valid selector operator"),
        }
        label_name_at(e, &r.key, &|| format!("{}.key", p()));
        if check_values {
            for (k, v) in values.iter().enumerate() {
                if !is_label_value(v) {
                    for msg in label_value_errors(v) {
                        e.invalid_str(&format!("{}.values[{k}]", p()), v, &msg);
                    }
                }
            }
        }
    }
    for (j, r) in t.match_fields.iter().flatten().enumerate() {
        let p = || format!("{}.matchFields[{j}]", path());
        match r.operator.as_str() {
            "In" | "NotIn" => {
                if r.values.as_deref().unwrap_or_default().len() != 1 {
                    e.required(
                        &format!("{}.values", p()),
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                    );
                }
            }
            op => e.invalid_str(&format!("{}.operator", p()), op, "not a valid selector operator"),
        }
        if r.key != "metadata.name" {
            e.invalid_str(&format!("{}.key", p()), &r.key, "not a valid field selector key");
        }
    }
}

fn weight(e: &mut Errors, w: i32, path: Path<'_>) {
    if !(1..=100).contains(&w) {
        e.invalid_num(&path(), i64::from(w), "must be in the range 1-100");
    }
}

/// `validatePodAffinityTerm`: the selectors, then the topology key.
fn pod_affinity_term(e: &mut Errors, t: &core::PodAffinityTerm, path: Path<'_>) {
    label_selector(e, t.label_selector.as_ref(), &|| format!("{}.labelSelector", path()));
    label_selector(e, t.namespace_selector.as_ref(), &|| {
        format!("{}.namespaceSelector", path())
    });
    if t.topology_key.is_empty() {
        e.required(&format!("{}.topologyKey", path()), "can not be empty");
    }
    label_name_at(e, &t.topology_key, &|| format!("{}.topologyKey", path()));
}

/// `validateAffinity`.
fn affinity(e: &mut Errors, a: &core::Affinity) {
    if let Some(na) = a.node_affinity.as_ref() {
        const BASE: &str = "spec.affinity.nodeAffinity";
        if let Some(req) = na.required_during_scheduling_ignored_during_execution.as_ref() {
            const TERMS: &str =
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
            if req.node_selector_terms.is_empty() {
                e.required(TERMS, "must have at least one node selector term");
            }
            for (i, t) in req.node_selector_terms.iter().enumerate() {
                node_selector_term(e, t, &|| format!("{TERMS}[{i}]"), true);
            }
        }
        for (i, t) in na
            .preferred_during_scheduling_ignored_during_execution
            .iter()
            .flatten()
            .enumerate()
        {
            let path = || format!("{BASE}.preferredDuringSchedulingIgnoredDuringExecution[{i}]");
            weight(e, t.weight, &|| format!("{}.weight", path()));
            // upstream allows invalid label values in preferred terms
            node_selector_term(e, &t.preference, &|| format!("{}.preference", path()), false);
        }
    }
    let pod_terms = [
        (
            "podAffinity",
            a.pod_affinity.as_ref().map(|p| {
                (
                    &p.required_during_scheduling_ignored_during_execution,
                    &p.preferred_during_scheduling_ignored_during_execution,
                )
            }),
        ),
        (
            "podAntiAffinity",
            a.pod_anti_affinity.as_ref().map(|p| {
                (
                    &p.required_during_scheduling_ignored_during_execution,
                    &p.preferred_during_scheduling_ignored_during_execution,
                )
            }),
        ),
    ];
    for (name, terms) in pod_terms {
        let Some((required, preferred)) = terms else { continue };
        for (i, t) in required.iter().flatten().enumerate() {
            pod_affinity_term(e, t, &|| {
                format!("spec.affinity.{name}.requiredDuringSchedulingIgnoredDuringExecution[{i}]")
            });
        }
        for (i, t) in preferred.iter().flatten().enumerate() {
            let path = || format!("spec.affinity.{name}.preferredDuringSchedulingIgnoredDuringExecution[{i}]");
            weight(e, t.weight, &|| format!("{}.weight", path()));
            pod_affinity_term(e, &t.pod_affinity_term, &|| format!("{}.podAffinityTerm", path()));
        }
    }
}

/// `validateTaintEffect`.
fn effect(e: &mut Errors, effect: &str, allow_empty: bool, path: Path<'_>) {
    match effect {
        "" if !allow_empty => e.required(&path(), ""),
        "" | "NoSchedule" | "PreferNoSchedule" | "NoExecute" => {}
        other => e.not_supported(&path(), other, &["NoSchedule", "PreferNoSchedule", "NoExecute"]),
    }
}

/// `ValidateTolerations`.
fn tolerations(e: &mut Errors, tolerations: &[core::Toleration], accept: Accept) {
    for (i, t) in tolerations.iter().enumerate() {
        let path = |field: &str| format!("spec.tolerations[{i}].{field}");
        let key = t.key.as_deref().unwrap_or("");
        let op = t.operator.as_deref().unwrap_or("");
        let value = t.value.as_deref().unwrap_or("");
        let eff = t.effect.as_deref().unwrap_or("");
        if !key.is_empty() {
            label_name_at(e, key, &|| path("key"));
        }
        if key.is_empty() && op != "Exists" {
            e.invalid_str(
                &path("operator"),
                op,
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            );
        }
        if t.toleration_seconds.is_some() && eff != "NoExecute" {
            e.invalid_str(
                &path("effect"),
                eff,
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            );
        }
        match op {
            "Equal" | "" => {
                if !is_label_value(value) {
                    e.invalid_str(&path("operator"), value, &label_value_errors(value).join(";"));
                }
            }
            "Exists" => {
                if !value.is_empty() {
                    e.invalid_str(
                        &path("operator"),
                        value,
                        "value must be empty when `operator` is 'Exists'",
                    );
                }
            }
            "Lt" | "Gt" if accept.toleration_comparison => {}
            other if accept.toleration_comparison => {
                e.not_supported(&path("operator"), other, &["Equal", "Exists", "Gt", "Lt"]);
            }
            other => e.not_supported(&path("operator"), other, &["Equal", "Exists"]),
        }
        effect(e, eff, true, &|| path("effect"));
    }
}

/// `validateTopologySpreadConstraints`.
fn spread(e: &mut Errors, constraints: &[core::TopologySpreadConstraint]) {
    for (i, c) in constraints.iter().enumerate() {
        let path = |field: &str| format!("spec.topologySpreadConstraints[{i}].{field}");
        if c.max_skew <= 0 {
            e.invalid_num(&path("maxSkew"), i64::from(c.max_skew), NOT_POSITIVE);
        }
        if c.topology_key.is_empty() {
            e.required(&path("topologyKey"), "can not be empty");
        }
        if !matches!(c.when_unsatisfiable.as_str(), "DoNotSchedule" | "ScheduleAnyway") {
            e.not_supported(
                &path("whenUnsatisfiable"),
                &c.when_unsatisfiable,
                &["DoNotSchedule", "ScheduleAnyway"],
            );
        }
        if let Some(m) = c.min_domains {
            if m <= 0 {
                e.invalid_num(&path("minDomains"), i64::from(m), NOT_POSITIVE);
            }
            if c.when_unsatisfiable != "DoNotSchedule" {
                e.invalid_num(
                    &path("minDomains"),
                    i64::from(m),
                    &format!(
                        "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {}",
                        c.when_unsatisfiable
                    ),
                );
            }
        }
        for (field, policy) in [
            ("nodeAffinityPolicy", c.node_affinity_policy.as_deref()),
            ("nodeTaintsPolicy", c.node_taints_policy.as_deref()),
        ] {
            if let Some(p) = policy
                && !matches!(p, "Honor" | "Ignore")
            {
                e.not_supported(&path(field), p, &["Honor", "Ignore"]);
            }
        }
        label_selector(e, c.label_selector.as_ref(), &|| path("labelSelector"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod_errors(yaml: &str) -> Vec<String> {
        let p: core::Pod = serde_yaml::from_str(yaml).unwrap();
        pod(&p, Accept::default())
    }

    #[test]
    fn a_valid_pod_has_no_errors() {
        assert_eq!(
            pod_errors(
                "metadata: {name: p, labels: {app: web, example.com/tier: '1'}}\nspec:\n  containers: [{name: c, image: i, resources: {requests: {cpu: 500m}}}]\n  tolerations: [{operator: Exists}, {key: k, value: v, effect: NoSchedule}]\n  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]\n"
            ),
            Vec::<String>::new()
        );
    }

    /// Each message as the API server words it (v1.3x pkg/apis/core/validation).
    #[test]
    fn the_api_servers_messages() {
        let cases: &[(&str, &[&str])] = &[
            ("spec: {containers: []}", &["spec.containers: Required value"]),
            ("{}", &["spec.containers: Required value"]),
            (
                "spec: {containers: [{name: c, resources: {requests: {cpu: '-1'}, limits: {memory: -1Gi}}}]}",
                &[
                    "spec.containers[0].resources.limits[memory]: Invalid value: \"-1Gi\": must be greater than or equal to 0",
                    "spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
                ],
            ),
            (
                "spec: {containers: [{name: c}], topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}",
                &["spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"],
            ),
            (
                "spec: {containers: [{name: c}], topologySpreadConstraints: [{maxSkew: 1, topologyKey: '', whenUnsatisfiable: Sometimes}]}",
                &[
                    "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty",
                    "spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Sometimes\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
                ],
            ),
            (
                "spec: {containers: [{name: c}], affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: web}}}]}}}",
                &[
                    "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty",
                    "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must be non-empty",
                    "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                ],
            ),
            (
                "spec: {containers: [{name: c}], affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: zone, labelSelector: {matchExpressions: [{key: app, operator: Has, values: [x]}]}}]}}}",
                &[
                    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator: Invalid value: \"Has\": not a valid selector operator",
                ],
            ),
            (
                "spec: {containers: [{name: c}], affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: Within, values: [a]}, {key: zone, operator: In}]}]}}}}",
                &[
                    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: \"Within\": not a valid selector operator",
                    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
                ],
            ),
            (
                "spec: {containers: [{name: c}], tolerations: [{key: k, operator: Like, value: v}, {key: k, operator: Equal, value: v, effect: NoWay}]}",
                &[
                    "spec.tolerations[0].operator: Unsupported value: \"Like\": supported values: \"Equal\", \"Exists\"",
                    "spec.tolerations[1].effect: Unsupported value: \"NoWay\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                ],
            ),
            (
                "metadata: {labels: {'bad key': x, app: 'no spaces'}}\nspec: {containers: [{name: c}]}",
                &[
                    "metadata.labels: Invalid value: \"no spaces\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                    "metadata.labels: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                ],
            ),
        ];
        for (yaml, want) in cases {
            assert_eq!(
                pod_errors(yaml),
                want.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                "{yaml}"
            );
        }
    }

    #[test]
    fn comparison_operators_follow_the_gate() {
        let p: core::Pod =
            serde_yaml::from_str("spec: {containers: [{name: c}], tolerations: [{key: k, operator: Gt, value: '5'}]}")
                .unwrap();
        assert_eq!(
            pod(&p, Accept::default()),
            ["spec.tolerations[0].operator: Unsupported value: \"Gt\": supported values: \"Equal\", \"Exists\""]
        );
        assert!(pod(&p, Accept::ANY_RELEASE).is_empty());
    }

    #[test]
    fn node_taints_and_allocatable() {
        let n: core::Node = serde_yaml::from_str(
            "metadata: {name: n, labels: {'a/b/c': x}}\nspec: {taints: [{key: k, effect: Bogus}, {key: k, effect: ''}, {key: d, value: v, effect: NoSchedule}, {key: d, effect: NoSchedule}]}\nstatus: {allocatable: {cpu: '-2'}}",
        )
        .unwrap();
        assert_eq!(
            node(&n),
            [
                "metadata.labels: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                "spec.taints[0].effect: Unsupported value: \"Bogus\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                "spec.taints[1].effect: Required value",
                "spec.taints[3]: Duplicate value: {key: \"d\", value: \"\", effect: \"NoSchedule\"}: taints must be unique by key and effect pair",
                "status.allocatable.cpu: Invalid value: \"-2\": must be greater than or equal to 0",
            ]
        );
    }
}
