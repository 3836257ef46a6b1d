//! `kschedtui snapshot --anonymize`: replaces names, label and taint values, images and other
//! identifying strings with stable placeholders, so a snapshot can be attached to a bug report.
//!
//! One dictionary maps every original string to its placeholder, whatever field it appears in,
//! so everything that matched still matches: a node's name and its `kubernetes.io/hostname`
//! label, a PodGroup and the pods' group label, a selector and the labels it selects, a taint
//! and the tolerations of it, a pod's image and the node's image list, a PVC and the volume
//! that claims it, a native gang's pods and their PodGroup (`spec.schedulingGroup.podGroupName`,
//! 1.35's `spec.workloadRef`), a PodGroup and its Workload template
//! (`podGroupTemplateRef.workload`, `workloadRef.{workloadName,templateName}`) and its parent
//! CompositePodGroup (`parentCompositePodGroupName`). A string in a field this module does not
//! know that equals an object's name or namespace is that object's placeholder too, so a
//! newer API's reference keeps naming its object. Object names get placeholders numbered in
//! their original order (per kind, with as many digits as the kind's count needs), so nodes
//! and pods keep their relative order and the engine visits them in the same order.
//!
//! Kept as they are: label and taint keys, numbers (Gt/Lt selectors compare them),
//! `kubernetes.io/os` / `kubernetes.io/arch` values, well-known namespaces and priority
//! classes, CSI driver names, scheduler names, API groups and kinds, the finalizers Kubernetes
//! sets, DRA request names and the literals of DRA selectors, resource quantities, times,
//! ports. Dropped: annotations, managedFields, environment, commands, probes, mounts,
//! addresses, IPs, condition messages, container statuses, node system info, CSI
//! `volumeAttributes` and the finalizers of other controllers. Events are not anonymized: the
//! snapshot writer leaves them out of an anonymized snapshot (`super::snapshot::items`),
//! because their messages are free text naming PVCs, nodes and taint values.
//! `tests/integration/anonymize.rs` checks every snapshot under `fixtures/` and the gang
//! corpus: the same explanations once the placeholders are mapped back, and no other string
//! of the original left.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// Namespaces whose names say nothing about a user.
const KEEP_NAMESPACES: &[&str] = &["default", "kube-system", "kube-public", "kube-node-lease"];

/// Label keys whose values are kept.
const KEEP_VALUE_KEYS: &[&str] = &[
    "kubernetes.io/os",
    "kubernetes.io/arch",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
];

/// Fields removed wherever they appear.
const DROP_FIELDS: &[&str] = &[
    "annotations",
    "managedFields",
    "generateName",
    "selfLink",
    "env",
    "envFrom",
    "command",
    "args",
    "workingDir",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
    "volumeMounts",
    "volumeDevices",
    "addresses",
    "nodeInfo",
    "daemonEndpoints",
    "config",
    "providerID",
    "podCIDR",
    "podCIDRs",
    "externalID",
    "podIP",
    "podIPs",
    "hostIP",
    "hostIPs",
    "clusterIP",
    "clusterIPs",
    "externalIPs",
    "loadBalancerIP",
    "loadBalancerSourceRanges",
    "externalName",
    "containerStatuses",
    "initContainerStatuses",
    "ephemeralContainerStatuses",
    "ephemeralContainers",
    "hostname",
    "subdomain",
    "description",
    "message",
    "dnsConfig",
    "hostAliases",
    "imagePullSecrets",
    "parameters",
    "mountOptions",
    "volumesAttached",
    "volumesInUse",
    "nodeID",
    "attachmentMetadata",
    "volumeAttributes",
    "terminationMessagePath",
];

/// String fields replaced through the dictionary wherever they appear (references to other
/// objects and identifying volume sources).
const NAME_FIELDS: &[&str] = &[
    "name",
    "namespace",
    "nodeName",
    "nominatedNodeName",
    "claimName",
    "volumeName",
    "persistentVolumeName",
    "storageClassName",
    "priorityClassName",
    "serviceAccountName",
    "serviceAccount",
    "serviceName",
    "secretName",
    "volumeHandle",
    "pdName",
    "volumeID",
    "diskName",
    "diskURI",
    "shareName",
    "server",
    "path",
    "iqn",
    "targetPortal",
    "pool",
    "device",
    "deviceClassName",
    "resourceClaimName",
    "resourceClaimTemplateName",
    "user",
    "uid",
    // native gangs: a pod's group (1.36+) and Workload (1.35), a PodGroup's template and
    // parent, a CompositePodGroup's
    "podGroupName",
    "podGroup",
    "podGroupReplicaKey",
    "workloadName",
    "podGroupTemplateName",
    "templateName",
    "parentCompositePodGroupName",
    "runtimeClassName",
];

/// Priority classes built into Kubernetes.
const KEEP_PRIORITY_CLASSES: &[&str] = &["system-cluster-critical", "system-node-critical"];

/// The original → placeholder dictionary.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Dictionary {
    map: BTreeMap<String, String>,
    counters: BTreeMap<&'static str, usize>,
    /// Strings kept as they are wherever they appear (CSI driver names).
    keep: BTreeSet<String>,
    /// DRA driver names (replaced by `driver-NNNN.example`, a valid domain, also inside
    /// qualified attribute names and CEL selectors).
    drivers: BTreeSet<String>,
    /// The string literals of the DRA CEL selectors: attribute values they mention are kept.
    cel_literals: Vec<String>,
    /// Digits of the placeholders per prefix: enough for every object name of the prefix, so
    /// `pod-10000` never sorts before `pod-09999`.
    widths: BTreeMap<&'static str, usize>,
    /// The object names (and namespaces) replaced: any string equal to one is a reference to
    /// it, whatever field holds it.
    objects: BTreeSet<String>,
}

impl Dictionary {
    /// The placeholder of a string, if it was replaced.
    pub fn get(&self, original: &str) -> Option<&str> {
        self.map.get(original).map(String::as_str)
    }

    /// Number of replaced strings.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when nothing was replaced.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Every original string that was replaced.
    pub fn originals(&self) -> impl Iterator<Item = &str> {
        self.map.keys().map(String::as_str)
    }

    fn next(&mut self, prefix: &'static str) -> String {
        let width = self.widths.get(prefix).copied().unwrap_or(4);
        let n = self.counters.entry(prefix).or_insert(0);
        *n += 1;
        format!("{prefix}-{n:0width$}")
    }

    fn replace(&mut self, original: &str, prefix: &'static str) -> String {
        if original.is_empty() || keep_string(original) || self.keep.contains(original) {
            return original.to_string();
        }
        if let Some(p) = self.map.get(original) {
            return p.clone();
        }
        let p = self.next(prefix);
        self.map.insert(original.to_string(), p.clone());
        p
    }

    /// A label (or taint) value: kept for numbers and well-known keys.
    fn value(&mut self, key: &str, value: &str) -> String {
        if KEEP_VALUE_KEYS.contains(&key) || value.parse::<i64>().is_ok() {
            return value.to_string();
        }
        self.replace(value, "value")
    }

    /// An image reference: the repository and the tag are replaced separately, so `nginx`
    /// and `nginx:latest` (the same image to ImageLocality) stay the same image.
    fn image(&mut self, image: &str) -> String {
        let (repo, suffix) = split_image(image);
        let repo = self.replace(repo, "image");
        let suffix = match suffix {
            Some((sep, tag)) if tag == "latest" => format!("{sep}{tag}"),
            Some(('@', digest)) => format!("@{}", self.replace(digest, "digest")),
            Some((sep, tag)) => format!("{sep}{}", self.replace(tag, "tag")),
            None => String::new(),
        };
        repo + &suffix
    }
}

impl Dictionary {
    /// A host IP: the wildcards kept, any other address replaced by 10.x.y.z (the same
    /// address by the same one).
    fn ip(&mut self, ip: &str) -> String {
        if matches!(ip, "" | "0.0.0.0" | "::") {
            return ip.to_string();
        }
        if let Some(p) = self.map.get(ip) {
            return p.clone();
        }
        let n = self.counters.entry("ip").or_insert(0);
        *n += 1;
        let p = format!("10.{}.{}.{}", (*n >> 16) & 255, (*n >> 8) & 255, *n & 255);
        self.map.insert(ip.to_string(), p.clone());
        p
    }

    /// A DRA driver name, or a qualified name whose domain is one (`gpu.example.com/numa`).
    fn qualified(&self, s: &str) -> String {
        if let Some(p) = self.map.get(s).filter(|_| self.drivers.contains(s)) {
            return p.clone();
        }
        if let Some((dom, id)) = s.split_once('/')
            && self.drivers.contains(dom)
            && let Some(p) = self.map.get(dom)
        {
            return format!("{p}/{id}");
        }
        s.to_string()
    }

    /// A device attribute's string value: kept when a selector mentions it (the scheduler
    /// compares it with `==`, `startsWith` or a regex), replaced otherwise (serial numbers,
    /// UUIDs, bus addresses).
    fn attribute_value(&mut self, v: &str) -> String {
        let mentioned = self.cel_literals.iter().any(|l| {
            let l = l.trim_start_matches('^').trim_end_matches('$');
            !l.is_empty() && (v.contains(l) || l.contains(v))
        });
        if mentioned {
            v.to_string()
        } else {
            self.replace(v, "value")
        }
    }

    /// A CEL selector with its driver names replaced in its string literals.
    fn expression(&self, e: &str) -> String {
        let mut out = String::with_capacity(e.len());
        let mut rest = e;
        while let Some(i) = rest.find(['"', '\'']) {
            let q = rest.as_bytes()[i] as char;
            out.push_str(&rest[..=i]);
            let after = &rest[i + 1..];
            match after.find(q) {
                Some(j) if !after[..j].contains('\\') => {
                    out.push_str(&self.qualified(&after[..j]));
                    out.push(q);
                    rest = &after[j + 1..];
                }
                _ => {
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// The string literals of a CEL expression.
fn cel_literals(e: &str, out: &mut Vec<String>) {
    let mut rest = e;
    while let Some(i) = rest.find(['"', '\'']) {
        let q = rest.as_bytes()[i] as char;
        let after = &rest[i + 1..];
        match after.find(q) {
            Some(j) => {
                out.push(after[..j].to_string());
                rest = &after[j + 1..];
            }
            None => break,
        }
    }
}

/// The DRA drivers and CEL literals of the snapshot.
fn gather_dra(items: &[Value], d: &mut Dictionary) {
    fn visit(v: &Value, parent: &str, d: &mut Dictionary) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("expression", Value::String(e)) if parent == "cel" => cel_literals(e, &mut d.cel_literals),
                        _ => visit(x, k, d),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| visit(x, parent, d)),
            _ => {}
        }
    }
    for it in items {
        let kind = it.get("kind").and_then(Value::as_str).unwrap_or("");
        if kind == "ResourceSlice"
            && let Some(drv) = it.pointer("/spec/driver").and_then(Value::as_str)
        {
            d.drivers.insert(drv.to_string());
        }
        if matches!(
            kind,
            "DeviceClass" | "ResourceClaim" | "ResourceClaimTemplate" | "ResourceSlice" | "DeviceTaintRule"
        ) {
            visit(it, "", d);
        }
    }
    let drivers: Vec<String> = d.drivers.iter().cloned().collect();
    for (i, drv) in drivers.iter().enumerate() {
        d.map.insert(drv.clone(), format!("driver-{:04}.example", i + 1));
    }
}

fn keep_string(s: &str) -> bool {
    KEEP_NAMESPACES.contains(&s) || KEEP_PRIORITY_CLASSES.contains(&s)
}

/// Splits `repo[:tag][@digest]` (the colon after the last `/` starts the tag).
fn split_image(image: &str) -> (&str, Option<(char, &str)>) {
    if let Some(i) = image.find('@') {
        return (&image[..i], Some(('@', &image[i + 1..])));
    }
    let last_slash = image.rfind('/').map_or(0, |i| i + 1);
    match image[last_slash..].rfind(':') {
        Some(j) => {
            let i = last_slash + j;
            (&image[..i], Some((':', &image[i + 1..])))
        }
        None => (image, None),
    }
}

fn prefix_of_kind(kind: &str) -> &'static str {
    match crate::model::kinds::Kind::named(kind).map(crate::model::kinds::Kind::anon_prefix) {
        Some(p) if !p.is_empty() => p,
        _ => "name",
    }
}

/// Anonymizes snapshot items (objects as JSON) in place and returns the dictionary used.
pub fn anonymize(items: &mut [Value]) -> Dictionary {
    let mut d = Dictionary::default();
    gather_dra(items, &mut d);
    // Object names first, sorted per kind, so placeholders keep the original order. Nodes and
    // namespaces first: other strings equal to them (hostname labels, references) reuse them.
    let mut names: BTreeMap<(u8, &'static str), BTreeSet<String>> = BTreeMap::new();
    for it in items.iter() {
        let kind = it.get("kind").and_then(Value::as_str).unwrap_or("");
        let meta = it.get("metadata");
        let field = |f: &str| meta.and_then(|m| m.get(f)).and_then(Value::as_str);
        let prefix = prefix_of_kind(kind);
        let rank = match prefix {
            "node" => 0,
            "ns" => 1,
            _ => 2,
        };
        if kind == "CSIDriver" {
            // A CSI driver is named after the driver (`ebs.csi.aws.com`): PVs, StorageClasses
            // and CSINodes refer to it by that name, and it says nothing about the user.
            if let Some(n) = field("name") {
                d.keep.insert(n.to_string());
            }
            continue;
        }
        if let Some(n) = field("name") {
            names.entry((rank, prefix)).or_default().insert(n.to_string());
        }
        if let Some(ns) = field("namespace") {
            names.entry((1, "ns")).or_default().insert(ns.to_string());
        }
    }
    for ((_, prefix), set) in &names {
        let w = d.widths.entry(prefix).or_insert(4);
        *w = (*w).max(set.len().to_string().len());
    }
    for ((_, prefix), set) in names {
        for n in set {
            d.replace(&n, prefix);
            d.objects.insert(n);
        }
    }
    for it in items.iter_mut() {
        walk(it, &mut d, "");
    }
    d
}

/// Fields whose values are never object names, whatever they spell: the scheduler compares
/// them with its configuration or with constants.
const NOT_REFERENCES: &[&str] = &[
    "apiVersion",
    "kind",
    "schedulerName",
    "key",
    "topologyKey",
    "operator",
    "resourceVersion",
];

/// Finalizers Kubernetes itself sets (`kubernetes`, `orphan`, `foregroundDeletion`, and the
/// `kubernetes.io` / `k8s.io` domains': `kubernetes.io/pvc-protection`,
/// `resource.kubernetes.io/delete-protection`): kept. Any other names a user's controller.
fn well_known_finalizer(f: &str) -> bool {
    if matches!(f, "kubernetes" | "orphan" | "foregroundDeletion") {
        return true;
    }
    let Some((domain, _)) = f.split_once('/') else {
        return false;
    };
    ["kubernetes.io", "k8s.io"]
        .iter()
        .any(|k| domain == *k || domain.strip_suffix(k).is_some_and(|sub| sub.ends_with('.')))
}

fn is_string_map(m: &Map<String, Value>) -> bool {
    !m.is_empty() && m.values().all(Value::is_string)
}

fn walk(v: &mut Value, d: &mut Dictionary, parent_key: &str) {
    match v {
        // A string in a field this module does not know (a newer API's reference) that spells
        // an object name or namespace replaced names that object: it gets its placeholder, so
        // it keeps naming the object and the name does not leak.
        Value::String(s) => {
            if !NOT_REFERENCES.contains(&parent_key)
                && d.objects.contains(s.as_str())
                && let Some(p) = d.map.get(s.as_str())
            {
                *s = p.clone();
            }
        }
        Value::Array(a) => {
            for x in a {
                walk(x, d, parent_key);
            }
        }
        Value::Object(m) => walk_object(m, d, parent_key),
        _ => {}
    }
}

fn walk_object(m: &mut Map<String, Value>, d: &mut Dictionary, parent_key: &str) {
    // A container port's hostIP decides NodePorts conflicts: replaced by a stand-in address
    // (the wildcard kept), not dropped.
    let port_ip = if m.contains_key("containerPort") {
        m.remove("hostIP").and_then(|v| v.as_str().map(|ip| d.ip(ip)))
    } else {
        None
    };
    for f in DROP_FIELDS {
        // Free text, addresses, settings and workload details the scheduler never reads.
        m.remove(*f);
    }
    if let Some(ip) = port_ip {
        m.insert("hostIP".into(), Value::String(ip));
    }
    // A requirement or a taint/toleration: {key, values} / {key, value}. Keys are kept, but
    // a DRA driver's domain in one follows the driver.
    if let Some(Value::String(k)) = m.get_mut("key") {
        *k = d.qualified(k);
    }
    if let Some(key) = m.get("key").and_then(Value::as_str).map(str::to_string) {
        if let Some(Value::Array(vals)) = m.get_mut("values") {
            for x in vals.iter_mut() {
                if let Value::String(s) = x {
                    *s = if key == "metadata.name" {
                        d.replace(s, "name")
                    } else {
                        d.value(&key, s)
                    };
                }
            }
        }
        if let Some(Value::String(s)) = m.get_mut("value") {
            *s = d.value(&key, s);
        }
    }
    let keys: Vec<String> = m.keys().cloned().collect();
    for k in keys {
        let Some(child) = m.get_mut(&k) else { continue };
        match (k.as_str(), child) {
            ("labels" | "matchLabels" | "nodeSelector" | "selector", Value::Object(map))
                if is_string_map(map) || k == "labels" || k == "matchLabels" =>
            {
                let old = std::mem::take(map);
                for (lk, mut lv) in old {
                    if let Value::String(s) = &mut lv {
                        *s = d.value(&lk, s);
                    }
                    map.insert(d.qualified(&lk), lv);
                }
            }
            ("image", Value::String(s)) => *s = d.image(s),
            // A controller's finalizer names it (and the company); the scheduler reads only
            // DRA's delete-protection one.
            ("finalizers", Value::Array(list)) => {
                list.retain(|f| f.as_str().is_some_and(well_known_finalizer));
            }
            ("images", Value::Array(list)) => {
                for img in list.iter_mut() {
                    if let Some(Value::Array(names)) = img.get_mut("names") {
                        for n in names.iter_mut() {
                            if let Value::String(s) = n {
                                *s = d.image(s);
                            }
                        }
                    }
                }
            }
            ("namespaces", Value::Array(list)) => {
                for n in list.iter_mut() {
                    if let Value::String(s) = n {
                        *s = d.replace(s, "ns");
                    }
                }
            }
            ("values" | "value" | "key", _) => {}
            // DRA: request names are the claim's own labels (results and constraints name
            // them); drivers, qualified attribute names and selectors follow the drivers.
            ("name", Value::String(_)) if parent_key == "requests" || parent_key == "firstAvailable" => {}
            ("driver", Value::String(s)) if d.drivers.contains(s.as_str()) => *s = d.qualified(s),
            ("matchAttribute" | "distinctAttribute", Value::String(s)) => *s = d.qualified(s),
            ("expression", Value::String(s)) if parent_key == "cel" => *s = d.expression(s),
            ("attributes" | "capacity", Value::Object(map)) if parent_key == "devices" => {
                let old = std::mem::take(map);
                for (name, mut v) in old {
                    if k == "attributes"
                        && let Some(Value::String(x)) = v.get_mut("string")
                    {
                        *x = d.attribute_value(x);
                    }
                    map.insert(d.qualified(&name), v);
                }
            }
            // CSI driver names must keep matching PVs' `csi.driver` and provisioners.
            ("name", Value::String(_)) if parent_key == "drivers" => {}
            (f, Value::String(s)) if NAME_FIELDS.contains(&f) => {
                let prefix = match f {
                    "nodeName" | "nominatedNodeName" => "node",
                    "podGroupName" => "pg",
                    "workloadName" => "wl",
                    "parentCompositePodGroupName" => "cpg",
                    "namespace" => "ns",
                    "claimName" => "pvc",
                    "volumeName" | "persistentVolumeName" => "pv",
                    "storageClassName" => "sc",
                    "priorityClassName" => "pc",
                    "deviceClassName" => "dc",
                    "resourceClaimName" => "claim",
                    "resourceClaimTemplateName" => "rct",
                    "uid" => "uid",
                    _ => "name",
                };
                *s = d.replace(s, prefix);
            }
            (_, child) => walk(child, d, &k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn split_image_separates_tag_and_digest() {
        assert_eq!(split_image("nginx"), ("nginx", None));
        assert_eq!(split_image("nginx:1.25"), ("nginx", Some((':', "1.25"))));
        assert_eq!(
            split_image("registry:5000/team/app:v2"),
            ("registry:5000/team/app", Some((':', "v2")))
        );
        assert_eq!(split_image("app@sha256:abc"), ("app", Some(('@', "sha256:abc"))));
        assert_eq!(split_image("registry:5000/app"), ("registry:5000/app", None));
    }

    #[test]
    fn names_keep_their_order_and_references_follow_them() {
        let mut items = vec![
            json!({"kind": "Node", "metadata": {"name": "zeta", "labels": {"kubernetes.io/hostname": "zeta", "kubernetes.io/os": "linux"}},
                   "spec": {"taints": [{"key": "team", "value": "ml", "effect": "NoSchedule"}]},
                   "status": {"images": [{"names": ["docker.io/library/nginx:latest"], "sizeBytes": 5}],
                              "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}}),
            json!({"kind": "Node", "metadata": {"name": "alpha", "labels": {"kubernetes.io/hostname": "alpha"}}}),
            json!({"kind": "Pod", "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"},
                                               "annotations": {"secret": "x"}, "uid": "1234"},
                   "spec": {"nodeName": "zeta", "nodeSelector": {"kubernetes.io/hostname": "zeta"},
                            "tolerations": [{"key": "team", "operator": "Equal", "value": "ml"}],
                            "containers": [{"name": "c", "image": "docker.io/library/nginx", "env": [{"name": "PASSWORD", "value": "hunter2"}]}],
                            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "rank", "operator": "Gt", "values": ["3"]}],
                                 "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["alpha"]}]}]}}}}}),
            json!({"kind": "Service", "metadata": {"name": "web", "namespace": "default"}, "spec": {"selector": {"app": "web"}, "clusterIP": "10.1.1.1"}}),
        ];
        let d = anonymize(&mut items);
        let node0 = &items[0];
        // alpha < zeta, so alpha is node-0001 and zeta node-0002.
        assert_eq!(node0["metadata"]["name"], "node-0002");
        assert_eq!(items[1]["metadata"]["name"], "node-0001");
        assert_eq!(node0["metadata"]["labels"]["kubernetes.io/hostname"], "node-0002");
        assert_eq!(node0["metadata"]["labels"]["kubernetes.io/os"], "linux");
        assert!(node0["status"].get("addresses").is_none());
        let pod = &items[2];
        assert_eq!(pod["spec"]["nodeName"], "node-0002");
        assert_eq!(pod["spec"]["nodeSelector"]["kubernetes.io/hostname"], "node-0002");
        assert_eq!(pod["metadata"]["namespace"], d.get("shop").unwrap());
        assert!(pod["metadata"].get("annotations").is_none());
        assert!(pod["spec"]["containers"][0].get("env").is_none());
        // Taint value and toleration value map to the same placeholder.
        assert_eq!(
            pod["spec"]["tolerations"][0]["value"],
            node0["spec"]["taints"][0]["value"]
        );
        assert_ne!(pod["spec"]["tolerations"][0]["value"], "ml");
        // Numbers stay numbers for Gt/Lt; matchFields follows node names.
        let term = &pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
            [0];
        assert_eq!(term["matchExpressions"][0]["values"][0], "3");
        assert_eq!(term["matchFields"][0]["values"][0], "node-0001");
        // The pod's image and the node's image are still the same image once normalized.
        let pod_image = pod["spec"]["containers"][0]["image"].as_str().unwrap().to_string();
        let node_image = node0["status"]["images"][0]["names"][0].as_str().unwrap();
        assert_eq!(format!("{pod_image}:latest"), node_image);
        // The service still selects the pod; default stays default.
        assert_eq!(items[3]["spec"]["selector"]["app"], pod["metadata"]["labels"]["app"]);
        assert_eq!(items[3]["metadata"]["namespace"], "default");
        assert!(items[3]["spec"].get("clusterIP").is_none());
        // No original identifying string is left.
        let text = serde_json::to_string(&items).unwrap();
        for s in [
            "zeta", "alpha", "shop", "\"web\"", "nginx", "hunter2", "PASSWORD", "10.0.0.1", "1234", "\"ml\"",
        ] {
            assert!(!text.contains(s), "{s} left in {text}");
        }
    }

    #[test]
    fn csi_driver_names_are_kept_everywhere() {
        let mut items = vec![
            json!({"kind": "CSIDriver", "metadata": {"name": "ebs.csi.aws.com"}, "spec": {"attachRequired": true}}),
            json!({"kind": "CSINode", "metadata": {"name": "n1"},
                   "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "i-123", "allocatable": {"count": 25}}]}}),
            json!({"kind": "PersistentVolume", "metadata": {"name": "pv1"},
                   "spec": {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"}}}),
        ];
        anonymize(&mut items);
        assert_eq!(items[0]["metadata"]["name"], "ebs.csi.aws.com");
        assert_eq!(items[1]["spec"]["drivers"][0]["name"], "ebs.csi.aws.com");
        assert!(items[1]["spec"]["drivers"][0].get("nodeID").is_none());
        assert_eq!(items[1]["metadata"]["name"], "node-0001");
        assert_eq!(items[2]["spec"]["csi"]["driver"], "ebs.csi.aws.com");
        assert_ne!(items[2]["spec"]["csi"]["volumeHandle"], "vol-1");
    }

    #[test]
    fn volume_attachments_follow_their_node_and_pv() {
        let mut items = vec![
            json!({"kind": "Node", "metadata": {"name": "worker-a"}}),
            json!({"kind": "PersistentVolume", "metadata": {"name": "pvc-1234"},
                   "spec": {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"}}}),
            json!({"kind": "VolumeAttachment", "metadata": {"name": "csi-abcdef"},
                   "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "worker-a",
                            "source": {"persistentVolumeName": "pvc-1234"}},
                   "status": {"attached": true, "attachmentMetadata": {"devicePath": "/dev/xvdba"}}}),
        ];
        anonymize(&mut items);
        let va = &items[2];
        assert_eq!(va["metadata"]["name"], "va-0001");
        assert_eq!(va["spec"]["nodeName"], items[0]["metadata"]["name"]);
        assert_eq!(va["spec"]["nodeName"], "node-0001");
        assert_eq!(
            va["spec"]["source"]["persistentVolumeName"],
            items[1]["metadata"]["name"]
        );
        assert_eq!(va["spec"]["source"]["persistentVolumeName"], "pv-0001");
        // The attacher is a CSI driver name: it must keep matching CSINodes and PVs.
        assert_eq!(va["spec"]["attacher"], "ebs.csi.aws.com");
        assert_eq!(va["status"]["attached"], true);
        assert!(va["status"].get("attachmentMetadata").is_none());
        let text = serde_json::to_string(&items).unwrap();
        for s in ["worker-a", "pvc-1234", "csi-abcdef", "xvdba"] {
            assert!(!text.contains(s), "{s} left in {text}");
        }
    }

    #[test]
    fn anonymizing_is_stable() {
        let make = || {
            vec![
                json!({"kind": "Pod", "metadata": {"name": "b", "namespace": "x", "labels": {"k": "v"}}}),
                json!({"kind": "Pod", "metadata": {"name": "a", "namespace": "x"}}),
            ]
        };
        let (mut a, mut b) = (make(), make());
        anonymize(&mut a);
        anonymize(&mut b);
        assert_eq!(a, b);
        assert_eq!(a[1]["metadata"]["name"], "pod-0001");
        assert_eq!(a[0]["metadata"]["name"], "pod-0002");
    }
}
