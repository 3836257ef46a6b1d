//! `:export`: the in-memory what-if changes as what would make them on the cluster — per
//! changed object the `kubectl` command (a JSON patch computed by the json-patch crate between
//! the object as loaded and as it is now; a pod bound in memory as the Binding the scheduler
//! creates, since the API server refuses a patch of spec.nodeName; changes of a status through
//! its subresource; `kubectl delete` for a removed pod) and, after them, the changed objects'
//! YAML as they are now, without their status (for `kubectl apply -f` / `replace -f`).

use k8s_openapi::api::core::v1 as core;

use crate::model::{Cluster, ObjectKey};

/// One object the what-ifs changed.
#[derive(Clone, Debug, PartialEq)]
pub enum Changed {
    /// A node's object differs (the JSON patch from the loaded one to the current one).
    Node(String, json_patch::Patch, Box<core::Node>),
    /// A pod's object differs.
    Pod(ObjectKey, json_patch::Patch, Box<core::Pod>),
    /// A pod of the loaded cluster is gone (a preemption victim, a deleted pod).
    PodGone(ObjectKey),
    /// A pod the loaded cluster did not have.
    PodNew(ObjectKey, Box<core::Pod>),
}

/// What differs between the cluster as loaded (`base`) and as it is now, nodes first, by name.
pub fn changed(base: &Cluster, now: &Cluster) -> Vec<Changed> {
    let mut out = Vec::new();
    for n in &now.nodes {
        if let Some(b) = base.node(&n.name)
            && b.obj != n.obj
        {
            let patch = json_patch::diff(&value(&b.obj), &value(&n.obj));
            out.push(Changed::Node(n.name.clone(), patch, Box::new((*n.obj).clone())));
        }
    }
    for p in &now.pods {
        match base.pod(&p.key) {
            Some(b) if b.obj != p.obj => {
                let patch = json_patch::diff(&value(&b.obj), &value(&p.obj));
                out.push(Changed::Pod(p.key.clone(), patch, p.obj.clone().into_box()));
            }
            Some(_) => {}
            None => out.push(Changed::PodNew(p.key.clone(), p.obj.clone().into_box())),
        }
    }
    for p in &base.pods {
        if now.pod(&p.key).is_none() {
            out.push(Changed::PodGone(p.key.clone()));
        }
    }
    out
}

fn value<T: serde::Serialize>(v: &T) -> serde_json::Value {
    // k8s-openapi objects always serialize
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

fn quoted(patch: &json_patch::Patch) -> String {
    let text = serde_json::to_string(patch).unwrap_or_default();
    // the shell's single quotes: a quote inside ends them, adds one, opens them again
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Where an operation of a patch writes.
fn path_of(op: &json_patch::PatchOperation) -> &str {
    use json_patch::PatchOperation as Op;
    match op {
        Op::Add(o) => o.path.as_str(),
        Op::Remove(o) => o.path.as_str(),
        Op::Replace(o) => o.path.as_str(),
        Op::Move(o) => o.path.as_str(),
        Op::Copy(o) => o.path.as_str(),
        Op::Test(o) => o.path.as_str(),
    }
}

fn is_under(path: &str, prefix: &str) -> bool {
    path == prefix || path.strip_prefix(prefix).is_some_and(|r| r.starts_with('/'))
}

/// A patch's operations on the object (metadata, spec) and on its status, which only the
/// status subresource takes.
fn split_status(patch: &json_patch::Patch) -> (json_patch::Patch, json_patch::Patch) {
    let (status, object): (Vec<_>, Vec<_>) = patch.0.iter().cloned().partition(|op| is_under(path_of(op), "/status"));
    (json_patch::Patch(object), json_patch::Patch(status))
}

/// The Binding the scheduler creates to put a pod on a node (the pods/binding subresource, as
/// kube-scheduler's DefaultBinder sends it: the pod's name, namespace and uid, the node as
/// target), as `kubectl create -f -` reads it.
fn binding(key: &ObjectKey, uid: Option<&str>, node: &str) -> Vec<String> {
    let mut out = vec![
        "kubectl create -f - <<'EOF'".to_string(),
        "apiVersion: v1".into(),
        "kind: Binding".into(),
        "metadata:".into(),
        format!("  name: {}", key.name),
        format!("  namespace: {}", key.namespace),
    ];
    if let Some(uid) = uid {
        out.push(format!("  uid: {uid}"));
    }
    out.extend([
        "target:".into(),
        "  apiVersion: v1".into(),
        "  kind: Node".into(),
        format!("  name: {node}"),
        "EOF".into(),
    ]);
    out
}

/// An object as `kubectl apply -f` / `replace -f` would send it: without its status, which
/// neither writes (the status it had as loaded, a PodScheduled message among it, is stale once
/// the what-ifs changed the object).
fn yaml_without_status<T: serde::Serialize>(obj: &T) -> String {
    let mut v = value(obj);
    if let Some(o) = v.as_object_mut() {
        o.remove("status");
    }
    serde_yaml::to_string(&v).unwrap_or_default()
}

/// The text of `:export`: a header, the commands per changed object, then their YAML.
pub fn text(base: &Cluster, now: &Cluster, changes: &[String]) -> Vec<String> {
    let objects = changed(base, now);
    let mut out = vec![format!(
        "# {} in-memory change(s), {} object(s) differ from the cluster as loaded:",
        changes.len(),
        objects.len()
    )];
    out.extend(changes.iter().map(|c| format!("#   {c}")));
    if objects.is_empty() {
        out.push("# nothing to export: the objects are as loaded".into());
        return out;
    }
    out.push(String::new());
    let mut yaml: Vec<String> = Vec::new();
    for c in &objects {
        match c {
            Changed::Node(name, patch, obj) => {
                let (object, status) = split_status(patch);
                out.push(format!("# node {name}"));
                if !object.0.is_empty() {
                    out.push(format!("kubectl patch node {name} --type=json -p {}", quoted(&object)));
                    yaml.push(yaml_without_status(&**obj));
                }
                if !status.0.is_empty() {
                    out.push("#   its status (the kubelet owns it and writes it back):".into());
                    out.push(format!(
                        "kubectl patch node {name} --subresource=status --type=json -p {}",
                        quoted(&status)
                    ));
                }
            }
            Changed::Pod(key, patch, obj) => {
                let was = base
                    .pod(key)
                    .and_then(|p| p.obj.spec.as_ref())
                    .and_then(|s| s.node_name.clone());
                let node = obj.spec.as_ref().and_then(|s| s.node_name.clone());
                let bound = was.is_none().then_some(node).flatten();
                let (object, status) = split_status(patch);
                // the node is the Binding's to write: the API server refuses a pod update
                // that sets spec.nodeName
                let object = json_patch::Patch(
                    object
                        .0
                        .into_iter()
                        .filter(|op| !(bound.is_some() && path_of(op) == "/spec/nodeName"))
                        .collect(),
                );
                out.push(format!("# pod {key}"));
                if !object.0.is_empty() {
                    out.push(
                        "#   a pod's spec takes only new tolerations, fewer scheduling gates and image changes; for other fields change its owner's template"
                            .into(),
                    );
                    out.push(format!(
                        "kubectl patch pod {} -n {} --type=json -p {}",
                        key.name,
                        key.namespace,
                        quoted(&object)
                    ));
                    let mut as_sent = (**obj).clone();
                    if bound.is_some()
                        && let Some(spec) = as_sent.spec.as_mut()
                    {
                        spec.node_name = None;
                    }
                    yaml.push(yaml_without_status(&as_sent));
                }
                if let Some(node) = &bound {
                    out.push(format!(
                        "#   bound to {node} in memory: the Binding the scheduler creates (the API server sets spec.nodeName and PodScheduled=True)"
                    ));
                    out.extend(binding(key, obj.metadata.uid.as_deref(), node));
                }
                // what the binding writes into the status is the API server's; anything else
                // goes through the status subresource
                let status = json_patch::Patch(
                    status
                        .0
                        .into_iter()
                        .filter(|op| {
                            bound.is_none()
                                || !(is_under(path_of(op), "/status/conditions")
                                    || is_under(path_of(op), "/status/nominatedNodeName"))
                        })
                        .collect(),
                );
                if !status.0.is_empty() {
                    out.push(format!(
                        "kubectl patch pod {} -n {} --subresource=status --type=json -p {}",
                        key.name,
                        key.namespace,
                        quoted(&status)
                    ));
                }
            }
            Changed::PodGone(key) => {
                out.push(format!("# pod {key} is gone"));
                out.push(format!("kubectl delete pod {} -n {}", key.name, key.namespace));
            }
            Changed::PodNew(key, obj) => {
                let what_if = obj
                    .metadata
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get(crate::engine::fit::WHAT_IF_ANNOTATION));
                match what_if.and_then(|m| m.strip_prefix("fit ")) {
                    // its controller makes it: the manifests are what to apply, not the pod
                    Some(file) => {
                        out.push(format!(
                            "# pod {key} is a what-if of :fit {file}: `kubectl apply -f {file}` makes its workload, whose controller creates it"
                        ));
                    }
                    None => {
                        out.push(format!("# pod {key} is new"));
                        yaml.push(yaml_without_status(&**obj));
                    }
                }
            }
        }
    }
    if !yaml.is_empty() {
        out.push(String::new());
        out.push(
            "# the changed objects as they are now, without their status (kubectl apply -f / replace -f write none):"
                .into(),
        );
        for y in yaml {
            out.push("---".into());
            out.extend(y.lines().map(str::to_string));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::whatif;

    fn cluster() -> Cluster {
        crate::source::file::load_str("t", include_str!("../../fixtures/tui-test.yaml")).expect("fixture")
    }

    #[test]
    fn a_cordon_and_a_toleration_export_as_json_patches_and_yaml() {
        let base = cluster();
        let (c, _) = whatif::toggle_cordon(&base, "node-a").expect("cordons");
        let key = ObjectKey::new("default", "batch-1");
        let fix = crate::app::fix::Change::Tolerate(vec![crate::model::Taint {
            key: "dedicated".into(),
            value: "gpu".into(),
            effect: "NoSchedule".into(),
        }]);
        let c = crate::app::fix::apply(&c, &key, &fix).expect("tolerates");
        let t = text(&base, &c, &["cordoned node node-a".into(), "tolerate".into()]);
        assert_eq!(
            t[0],
            "# 2 in-memory change(s), 2 object(s) differ from the cluster as loaded:"
        );
        assert!(
            t.contains(&r#"kubectl patch node node-a --type=json -p '[{"op":"add","path":"/spec","value":{"unschedulable":true}}]'"#.to_string()),
            "{t:#?}"
        );
        let pod = t
            .iter()
            .find(|l| l.starts_with("kubectl patch pod batch-1"))
            .expect("pod patch");
        assert_eq!(
            pod,
            r#"kubectl patch pod batch-1 -n default --type=json -p '[{"op":"add","path":"/spec/tolerations","value":[{"effect":"NoSchedule","key":"dedicated","operator":"Equal","value":"gpu"}]}]'"#
        );
        assert_eq!(t.iter().filter(|l| *l == "---").count(), 2);
        // the patch applied to the loaded object gives the object as it is now
        let Changed::Pod(_, patch, now) = &changed(&base, &c)[1] else {
            panic!()
        };
        let mut v = serde_json::to_value(&*base.pod(&key).expect("pod").obj).expect("json");
        json_patch::patch(&mut v, patch).expect("applies");
        assert_eq!(v, serde_json::to_value(&**now).expect("json"));
    }

    #[test]
    fn nothing_changed_says_so_and_a_removed_pod_is_a_delete() {
        let base = cluster();
        assert_eq!(
            text(&base, &base, &[]).last().map(String::as_str),
            Some("# nothing to export: the objects are as loaded")
        );
        let mut c = base.clone();
        let gone = c.pods.remove(0).key.clone();
        let t = text(&base, &c, &["x".into()]);
        assert!(
            t.contains(&format!("kubectl delete pod {} -n {}", gone.name, gone.namespace)),
            "{t:#?}"
        );
    }
}
