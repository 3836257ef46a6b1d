//! The read-modify-write updates of the binding cycle's PreBind (VolumeBinding's PV and claim,
//! DynamicResources' claim): what each changes in the object the server holds.

use super::*;

pub const ANN_SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";
/// The annotation on a PersistentVolume bound by a controller (the scheduler counts as one):
/// `pv.kubernetes.io/bound-by-controller`.
pub const ANN_BOUND_BY_CONTROLLER: &str = "pv.kubernetes.io/bound-by-controller";
/// The annotation the PersistentVolume controller sets once it has bound a claim:
/// `pv.kubernetes.io/bind-completed`.
pub const ANN_BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
/// The finalizer DynamicResources adds to a claim before allocating it
/// (`resourceapi.Finalizer`).
pub const CLAIM_FINALIZER: &str = "resource.kubernetes.io/delete-protection";

/// An object a PreBind plugin updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Target {
    /// A PersistentVolume (cluster-scoped).
    PersistentVolume,
    /// A PersistentVolumeClaim.
    PersistentVolumeClaim,
    /// A ResourceClaim (resource.k8s.io).
    ResourceClaim,
}

impl Target {
    /// The kind.
    pub fn kind(self) -> Kind {
        match self {
            Target::PersistentVolume => Kind::PersistentVolume,
            Target::PersistentVolumeClaim => Kind::PersistentVolumeClaim,
            Target::ResourceClaim => Kind::ResourceClaim,
        }
    }

    /// The resource in API paths and access reviews.
    pub fn resource(self) -> &'static str {
        self.kind().plural()
    }

    /// The API group ("" for core).
    pub fn group(self) -> &'static str {
        match self {
            Target::PersistentVolume | Target::PersistentVolumeClaim => "",
            Target::ResourceClaim => "resource.k8s.io",
        }
    }

    /// What `kubectl get` calls it.
    pub fn kubectl(self) -> &'static str {
        match self {
            Target::PersistentVolume => "pv",
            Target::PersistentVolumeClaim => "pvc",
            Target::ResourceClaim => "resourceclaim",
        }
    }

    /// The path of an object of this kind, at the group version `version` (the one the
    /// server serves).
    pub fn path(self, key: &ObjectKey, version: &str) -> String {
        let prefix = match self.group() {
            "" => "/api/v1".to_string(),
            g => format!("/apis/{g}/{version}"),
        };
        if key.namespace.is_empty() {
            format!("{prefix}/{}/{}", self.resource(), key.name)
        } else {
            format!("{prefix}/namespaces/{}/{}/{}", key.namespace, self.resource(), key.name)
        }
    }
}

/// What a PreBind plugin changes on an object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "change", rename_all = "camelCase")]
pub enum Edit {
    /// VolumeBinding binds a PersistentVolume to an unbound claim (`GetBindVolumeToClaim`):
    /// `spec.claimRef` names the claim as the scheduler last read it, and the volume gets
    /// the annotation `pv.kubernetes.io/bound-by-controller: "yes"`.
    #[serde(rename_all = "camelCase")]
    ClaimRef {
        /// The claim.
        claim: ObjectKey,
        /// Its uid.
        uid: String,
        /// Its resourceVersion.
        resource_version: String,
    },
    /// VolumeBinding asks for a volume on the node: the claim's
    /// `volume.kubernetes.io/selected-node` annotation.
    #[serde(rename_all = "camelCase")]
    SelectedNode {
        /// The node.
        node: String,
    },
    /// DynamicResources protects a claim it is about to allocate: the finalizer
    /// `resource.kubernetes.io/delete-protection`.
    DeleteProtection,
    /// DynamicResources writes a claim's status: the allocation it found (None when the claim
    /// was allocated already) and the pod appended to `reservedFor`.
    #[serde(rename_all = "camelCase")]
    Reserve {
        /// `status.allocation` (an AllocationResult), when the claim is allocated now.
        allocation: Option<Value>,
        /// The pod's name.
        pod_name: String,
        /// The pod's uid.
        pod_uid: String,
        /// `status.allocation.allocationTimestamp` is set to the time of sending when it has
        /// none (DRADeviceBindingConditions and DRAResourceClaimDeviceStatus, 1.36 by default).
        timestamp: bool,
    },
}

impl Edit {
    /// The fields the edit sets, as a JSON fragment of the object (for the plan).
    pub fn fragment(&self) -> Value {
        match self {
            Edit::ClaimRef {
                claim,
                uid,
                resource_version,
            } => json!({
                "metadata": { "annotations": { ANN_BOUND_BY_CONTROLLER: "yes" } },
                "spec": { "claimRef": claim_ref(claim, uid, resource_version) },
            }),
            Edit::SelectedNode { node } => json!({
                "metadata": { "annotations": { ANN_SELECTED_NODE: node } },
            }),
            Edit::DeleteProtection => json!({ "metadata": { "finalizers": [CLAIM_FINALIZER] } }),
            Edit::Reserve {
                allocation,
                pod_name,
                pod_uid,
                timestamp,
            } => {
                let mut st = json!({});
                if let Some(a) = allocation {
                    st["allocation"] = a.clone();
                }
                if *timestamp {
                    st["allocation"]["allocationTimestamp"] = json!("<now>");
                }
                st["reservedFor"] = json!([{ "resource": "pods", "name": pod_name, "uid": pod_uid }]);
                json!({ "status": st })
            }
        }
    }

    /// Makes the change on `obj` (the object's JSON as the server holds it); `now` is the
    /// RFC 3339 time of sending. False when there was nothing to change (the volume already
    /// names the claim, the finalizer is there).
    pub fn apply(&self, obj: &mut Value, now: &str) -> bool {
        fn annotations(obj: &mut Value) -> &mut serde_json::Map<String, Value> {
            let meta = ensure_object(obj, "metadata");
            let a = ensure_object(meta, "annotations");
            match a {
                Value::Object(m) => m,
                _ => unreachable_object(),
            }
        }
        match self {
            Edit::ClaimRef {
                claim,
                uid,
                resource_version,
            } => {
                let spec = ensure_object(obj, "spec");
                let r = &spec["claimRef"];
                let same_name =
                    r.is_object() && r["name"] == json!(claim.name) && r["namespace"] == json!(claim.namespace);
                // IsVolumeBoundToClaim: a claimRef without a uid (a user's pre-binding) counts
                let bound = same_name && (r["uid"].as_str().unwrap_or("").is_empty() || r["uid"] == json!(uid));
                let same_ref = same_name && r["uid"] == json!(uid);
                let mut changed = false;
                if !same_ref {
                    spec["claimRef"] = claim_ref(claim, uid, resource_version);
                    changed = true;
                }
                let a = annotations(obj);
                if !bound && !a.contains_key(ANN_BOUND_BY_CONTROLLER) {
                    a.insert(ANN_BOUND_BY_CONTROLLER.into(), json!("yes"));
                    changed = true;
                }
                changed
            }
            Edit::SelectedNode { node } => {
                let a = annotations(obj);
                let changed = a.get(ANN_SELECTED_NODE) != Some(&json!(node));
                a.insert(ANN_SELECTED_NODE.into(), json!(node));
                changed
            }
            Edit::DeleteProtection => {
                let meta = ensure_object(obj, "metadata");
                if !meta["finalizers"].is_array() {
                    meta["finalizers"] = json!([]);
                }
                let f = meta["finalizers"]
                    .as_array_mut()
                    .map(std::mem::take)
                    .unwrap_or_default();
                let has = f.iter().any(|x| x == CLAIM_FINALIZER);
                let mut f = f;
                if !has {
                    f.push(json!(CLAIM_FINALIZER));
                }
                meta["finalizers"] = Value::Array(f);
                !has
            }
            Edit::Reserve {
                allocation,
                pod_name,
                pod_uid,
                timestamp,
            } => {
                let st = ensure_object(obj, "status");
                if let Some(a) = allocation {
                    st["allocation"] = a.clone();
                }
                if *timestamp
                    && !now.is_empty()
                    && st["allocation"].is_object()
                    && st["allocation"]["allocationTimestamp"].is_null()
                {
                    st["allocation"]["allocationTimestamp"] = json!(now);
                }
                if !st["reservedFor"].is_array() {
                    st["reservedFor"] = json!([]);
                }
                if let Some(r) = st["reservedFor"].as_array_mut() {
                    r.push(json!({ "resource": "pods", "name": pod_name, "uid": pod_uid }));
                }
                true
            }
        }
    }

    /// How to undo the change once written, as a command (None when it cannot be undone by
    /// hand: a claim's allocation is for the scheduler to release).
    pub fn undo(&self, target: Target, key: &ObjectKey) -> Option<String> {
        let ns = if key.namespace.is_empty() {
            String::new()
        } else {
            format!(" -n {}", key.namespace)
        };
        match self {
            Edit::ClaimRef { .. } => Some(format!(
                "kubectl patch {} {}{ns} --type=json -p '[{{\"op\":\"remove\",\"path\":\"/spec/claimRef\"}}]' && kubectl annotate {} {}{ns} {ANN_BOUND_BY_CONTROLLER}-",
                target.kubectl(),
                key.name,
                target.kubectl(),
                key.name
            )),
            Edit::SelectedNode { .. } => Some(format!(
                "kubectl annotate {} {}{ns} {ANN_SELECTED_NODE}-",
                target.kubectl(),
                key.name
            )),
            Edit::DeleteProtection => None,
            Edit::Reserve { allocation, .. } => Some(format!(
                "kubectl patch {} {}{ns} --subresource=status --type=merge -p '{{\"status\":{{{}\"reservedFor\":null}}}}'",
                target.kubectl(),
                key.name,
                if allocation.is_some() {
                    "\"allocation\":null,"
                } else {
                    ""
                }
            )),
        }
    }
}

/// `spec.claimRef` of a volume bound to `claim` (`reference.GetReference` of the claim).
fn claim_ref(claim: &ObjectKey, uid: &str, resource_version: &str) -> Value {
    json!({
        "kind": "PersistentVolumeClaim",
        "namespace": claim.namespace,
        "name": claim.name,
        "uid": uid,
        "apiVersion": "v1",
        "resourceVersion": resource_version,
    })
}

/// `obj[key]`, made an object when it is missing or not one.
fn ensure_object<'a>(obj: &'a mut Value, key: &str) -> &'a mut Value {
    if !obj.is_object() {
        *obj = json!({});
    }
    if !obj[key].is_object() {
        obj[key] = json!({});
    }
    &mut obj[key]
}

fn unreachable_object() -> &'static mut serde_json::Map<String, Value> {
    // ensure_object always leaves an object; this is never reached, and hands out a fresh
    // map rather than panicking
    Box::leak(Box::default())
}

/// One object a PreBind plugin updates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Update {
    /// The plugin (VolumeBinding, DynamicResources).
    pub plugin: &'static str,
    /// The pod being bound.
    pub pod: ObjectKey,
    /// What is updated.
    pub target: Target,
    /// Its namespace/name (namespace empty for a PersistentVolume).
    pub key: ObjectKey,
    /// Whether the status subresource is written (a ResourceClaim's allocation).
    pub status: bool,
    /// The change.
    pub edit: Edit,
}

/// A claim VolumeBinding waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AwaitedClaim {
    /// The claim.
    pub claim: ObjectKey,
    /// The volume it is being bound to (a static binding), or None (dynamic provisioning).
    pub volume: Option<String>,
    /// The provisioner asked for a volume ("" for a static binding or when unknown).
    pub provisioner: String,
}

/// VolumeBinding's wait (`BindPodVolumes` after `bindAPIUpdate`): every claim must become
/// bound (its `spec.volumeName` set and the `pv.kubernetes.io/bind-completed` annotation
/// there, the PersistentVolume controller's mark) and stay on the node selected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AwaitVolumes {
    /// The pod being bound.
    pub pod: ObjectKey,
    /// Its node.
    pub node: String,
    /// The claims, in the order the plugin updated them.
    pub claims: Vec<AwaitedClaim>,
    /// How long to wait (VolumeBindingArgs `bindTimeoutSeconds`, 600 by default).
    pub timeout_secs: u64,
}
