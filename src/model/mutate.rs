//! Changes to a cluster in snapshot mode, as the API server would apply them: binding a pod
//! (`pods/{name}/binding`: spec.nodeName and the PodScheduled=True condition), deleting a
//! preemption victim, setting status.nominatedNodeName, and the scheduler-cache "assume" /
//! "forget" of a pod waiting at Permit. Each change rebuilds the pod's model from its
//! object, so `Pod.obj` stays the source of truth for saving the snapshot back to a file.

use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;

use super::{Cluster, ObjectKey, Pod};

/// Why a change could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChangeError {
    /// No such pod.
    #[error("pod '{0}' is not in the snapshot")]
    NoPod(ObjectKey),
    /// No such node.
    #[error("node '{0}' is not in the snapshot")]
    NoNode(String),
    /// The pod is already bound.
    #[error("pod '{0}' is already bound to node '{1}'")]
    AlreadyBound(ObjectKey, String),
    /// The pod has finished.
    #[error("pod '{0}' has finished (status.phase '{1}')")]
    Finished(ObjectKey, String),
}

impl Cluster {
    fn pod_index(&self, key: &ObjectKey) -> Result<usize, ChangeError> {
        self.pods
            .binary_search_by(|p| p.key.cmp(key))
            .map_err(|_| ChangeError::NoPod(key.clone()))
    }

    /// Replaces the pod at `i` with one rebuilt from `obj` (priority kept as resolved).
    fn rebuild(&mut self, i: usize, obj: Box<core::Pod>) -> Arc<Pod> {
        let old = &self.pods[i];
        let priority = old.priority;
        let rebuilt = Pod::from_obj(obj, |_| priority);
        // The object was valid when loaded and only scheduling fields changed, so rebuilding
        // cannot fail; keep the old model if it somehow does.
        let new = match rebuilt {
            Ok(mut p) => {
                p.priority = priority;
                Arc::new(p)
            }
            Err(_) => old.clone(),
        };
        self.pods[i] = new.clone();
        new
    }

    fn pending_index(&self, key: &ObjectKey, node: &str) -> Result<usize, ChangeError> {
        let i = self.pod_index(key)?;
        let p = &self.pods[i];
        if p.is_finished() {
            return Err(ChangeError::Finished(key.clone(), p.phase.clone()));
        }
        if let Some(n) = &p.node_name {
            return Err(ChangeError::AlreadyBound(key.clone(), n.clone()));
        }
        if self.node(node).is_none() {
            return Err(ChangeError::NoNode(node.to_string()));
        }
        Ok(i)
    }

    /// Binds a pending pod to a node as the `pods/binding` subresource does: sets
    /// spec.nodeName and the PodScheduled condition to True.
    pub fn bind_pod(&mut self, key: &ObjectKey, node: &str) -> Result<Arc<Pod>, ChangeError> {
        let i = self.pending_index(key, node)?;
        let mut obj = self.pods[i].obj.clone();
        obj.spec.get_or_insert_with(Default::default).node_name = Some(node.to_string());
        set_pod_scheduled(&mut obj);
        Ok(self.rebuild(i, obj))
    }

    /// Marks a pending pod as placed on a node without an API call (the scheduler cache's
    /// `AssumePod` of a pod waiting at Permit): spec.nodeName only.
    pub fn assume_pod(&mut self, key: &ObjectKey, node: &str) -> Result<Arc<Pod>, ChangeError> {
        let i = self.pending_index(key, node)?;
        let mut obj = self.pods[i].obj.clone();
        obj.spec.get_or_insert_with(Default::default).node_name = Some(node.to_string());
        Ok(self.rebuild(i, obj))
    }

    /// Undoes `assume_pod` (`ForgetPod`): clears spec.nodeName.
    pub fn forget_pod(&mut self, key: &ObjectKey) -> Result<Arc<Pod>, ChangeError> {
        let i = self.pod_index(key)?;
        let mut obj = self.pods[i].obj.clone();
        if let Some(s) = obj.spec.as_mut() {
            s.node_name = None;
        }
        Ok(self.rebuild(i, obj))
    }

    /// Deletes a pod (a preemption victim): it leaves the cluster and its node.
    pub fn evict_pod(&mut self, key: &ObjectKey) -> Result<Arc<Pod>, ChangeError> {
        let i = self.pod_index(key)?;
        Ok(self.pods.remove(i))
    }

    /// Sets (or with None clears) status.nominatedNodeName.
    pub fn set_nominated_node(&mut self, key: &ObjectKey, node: Option<&str>) -> Result<Arc<Pod>, ChangeError> {
        let i = self.pod_index(key)?;
        if let Some(n) = node
            && self.node(n).is_none()
        {
            return Err(ChangeError::NoNode(n.to_string()));
        }
        let mut obj = self.pods[i].obj.clone();
        let st = obj.status.get_or_insert_with(Default::default);
        st.nominated_node_name = node.map(str::to_string);
        Ok(self.rebuild(i, obj))
    }
}

/// Sets the PodScheduled condition to True (registry/core/pod/storage `assignPod`).
fn set_pod_scheduled(obj: &mut core::Pod) {
    let st = obj.status.get_or_insert_with(Default::default);
    let conds = st.conditions.get_or_insert_with(Vec::new);
    let c = core::PodCondition {
        type_: "PodScheduled".into(),
        status: "True".into(),
        ..Default::default()
    };
    match conds.iter_mut().find(|c| c.type_ == "PodScheduled") {
        Some(existing) => *existing = c,
        None => conds.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::file::load_str;

    const SNAP: &str = r"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: '2', memory: 2Gi, pods: '10'}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: default}
  spec:
    priority: 7
    containers: [{name: c, resources: {requests: {cpu: '1'}}}]
  status:
    conditions: [{type: PodScheduled, status: 'False', reason: Unschedulable, message: 'no'}]
- apiVersion: v1
  kind: Pod
  metadata: {name: v, namespace: default}
  spec: {nodeName: n1, containers: [{name: c}]}
";

    #[test]
    fn bind_sets_node_name_and_pod_scheduled_and_keeps_priority() {
        let mut c = load_str("t", SNAP).unwrap();
        let k = ObjectKey::new("default", "p");
        let p = c.bind_pod(&k, "n1").unwrap();
        assert_eq!(p.node_name.as_deref(), Some("n1"));
        assert_eq!(p.priority, 7);
        let conds = p.obj.status.as_ref().unwrap().conditions.as_ref().unwrap();
        assert_eq!(conds.len(), 1);
        assert_eq!(
            (conds[0].type_.as_str(), conds[0].status.as_str()),
            ("PodScheduled", "True")
        );
        assert_eq!(conds[0].message, None);
        assert_eq!(
            c.bind_pod(&k, "n1").unwrap_err(),
            ChangeError::AlreadyBound(k.clone(), "n1".into())
        );
        assert_eq!(
            c.bind_pod(&ObjectKey::new("default", "v"), "zz").unwrap_err(),
            ChangeError::AlreadyBound(ObjectKey::new("default", "v"), "n1".into())
        );
    }

    #[test]
    fn assume_forget_evict_nominate() {
        let mut c = load_str("t", SNAP).unwrap();
        let k = ObjectKey::new("default", "p");
        assert_eq!(c.assume_pod(&k, "n2").unwrap_err(), ChangeError::NoNode("n2".into()));
        let p = c.assume_pod(&k, "n1").unwrap();
        assert_eq!(p.node_name.as_deref(), Some("n1"));
        let conds = p.obj.status.as_ref().unwrap().conditions.as_ref().unwrap();
        assert_eq!(conds[0].status, "False", "assume does not touch the condition");
        let p = c.forget_pod(&k).unwrap();
        assert!(p.is_pending());
        let p = c.set_nominated_node(&k, Some("n1")).unwrap();
        assert_eq!(p.nominated_node_name.as_deref(), Some("n1"));
        let p = c.set_nominated_node(&k, None).unwrap();
        assert_eq!(p.nominated_node_name, None);
        let v = c.evict_pod(&ObjectKey::new("default", "v")).unwrap();
        assert_eq!(v.key.name, "v");
        assert_eq!(c.pods.len(), 1);
        assert!(c.evict_pod(&ObjectKey::new("default", "v")).is_err());
    }
}
