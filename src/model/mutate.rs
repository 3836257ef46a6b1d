//! The changes the scheduler makes to a cluster between cycles (what `simulate` applies):
//! binding a pod, deleting a preemption victim and setting status.nominatedNodeName, each sent
//! to the in-memory API server ([`super::apiserver`]) as the scheduler would send it, and the
//! scheduler-cache "assume" / "forget" of a pod waiting at Permit, which write nothing. Each
//! change rebuilds the pod's model from its object, so `Pod.obj` stays the source of truth for
//! saving the snapshot back to a file.

use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;

use super::apiserver::{self, ServerOptions};
use super::write::{WriteError, WriteMode, WriteRequest};
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
    /// A pod of that namespace/name already exists (409 AlreadyExists on a create).
    #[error("pod '{0}' already exists")]
    Exists(ObjectKey),
    /// The API server refused the write.
    #[error("{0}")]
    Refused(WriteError),
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
            return Err(ChangeError::Finished(key.clone(), p.phase.to_string()));
        }
        if let Some(n) = &p.node_name {
            return Err(ChangeError::AlreadyBound(key.clone(), n.to_string()));
        }
        if self.node(node).is_none() {
            return Err(ChangeError::NoNode(node.to_string()));
        }
        Ok(i)
    }

    /// Sends a request to the in-memory API server and returns the pod as it is after it
    /// (the pod before it for a delete).
    fn send(&mut self, req: &WriteRequest, opts: &ServerOptions) -> Result<Arc<Pod>, ChangeError> {
        let before = self.pods[self.pod_index(req.pod())?].clone();
        apiserver::send(self, req, WriteMode::Enabled, opts).map_err(|e| match e {
            WriteError::NotFound { pod } => ChangeError::NoPod(pod),
            WriteError::AlreadyBound { pod, node } => ChangeError::AlreadyBound(pod, node),
            e => ChangeError::Refused(e),
        })?;
        Ok(self.pod(req.pod()).cloned().unwrap_or(before))
    }

    /// Binds a pending pod to a node with a `pods/binding` request, as the scheduler's
    /// DefaultBinder does (the pod's uid as precondition).
    pub fn bind_pod(&mut self, key: &ObjectKey, node: &str, opts: &ServerOptions) -> Result<Arc<Pod>, ChangeError> {
        let i = self.pending_index(key, node)?;
        let req = WriteRequest::Bind {
            pod: key.clone(),
            uid: self.pods[i].obj.metadata.uid.clone(),
            node: node.to_string(),
        };
        self.send(&req, opts)
    }

    /// Marks a pending pod as placed on a node without an API call (the scheduler cache's
    /// `AssumePod` of a pod waiting at Permit): spec.nodeName only.
    pub fn assume_pod(&mut self, key: &ObjectKey, node: &str) -> Result<Arc<Pod>, ChangeError> {
        let i = self.pending_index(key, node)?;
        let mut obj = self.pods[i].obj.clone();
        obj.spec.get_or_insert_with(Default::default).node_name = Some(node.to_string());
        Ok(self.rebuild(i, obj.into_box()))
    }

    /// Undoes `assume_pod` (`ForgetPod`): clears spec.nodeName.
    pub fn forget_pod(&mut self, key: &ObjectKey) -> Result<Arc<Pod>, ChangeError> {
        let i = self.pod_index(key)?;
        let mut obj = self.pods[i].obj.clone();
        if let Some(s) = obj.spec.as_mut() {
            s.node_name = None;
        }
        Ok(self.rebuild(i, obj.into_box()))
    }

    /// Deletes a pod (a preemption victim), with its uid as precondition.
    pub fn evict_pod(&mut self, key: &ObjectKey) -> Result<Arc<Pod>, ChangeError> {
        let i = self.pod_index(key)?;
        let req = WriteRequest::Delete {
            pod: key.clone(),
            uid: self.pods[i].obj.metadata.uid.clone(),
        };
        self.send(&req, &ServerOptions::default())
    }

    /// Evicts a pod through the policy/v1 Eviction API (PodDisruptionBudgets honoured, as the
    /// descheduler's evictions are), with its uid as precondition.
    pub fn evict_pod_via_eviction_api(&mut self, key: &ObjectKey) -> Result<Arc<Pod>, ChangeError> {
        let i = self.pod_index(key)?;
        let req = WriteRequest::Evict {
            pod: key.clone(),
            uid: self.pods[i].obj.metadata.uid.clone(),
        };
        self.send(&req, &ServerOptions::default())
    }

    /// Adds a pod created in memory (a controller's replacement for an evicted pod), as a
    /// POST of the pod would: an existing pod of the same namespace/name is an error.
    pub fn create_pod(&mut self, pod: Pod) -> Result<Arc<Pod>, ChangeError> {
        match self.pods.binary_search_by(|p| p.key.cmp(&pod.key)) {
            Ok(_) => Err(ChangeError::Exists(pod.key.clone())),
            Err(i) => {
                let p = Arc::new(pod);
                self.pods.insert(i, p.clone());
                Ok(p)
            }
        }
    }

    /// Sets (or with None clears) status.nominatedNodeName.
    pub fn set_nominated_node(&mut self, key: &ObjectKey, node: Option<&str>) -> Result<Arc<Pod>, ChangeError> {
        self.pod_index(key)?;
        if let Some(n) = node
            && self.node(n).is_none()
        {
            return Err(ChangeError::NoNode(n.to_string()));
        }
        let req = WriteRequest::Nominate {
            pod: key.clone(),
            node: node.map(str::to_string),
        };
        self.send(&req, &ServerOptions::default())
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
        let p = c.bind_pod(&k, "n1", &ServerOptions::default()).unwrap();
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
            c.bind_pod(&k, "n1", &ServerOptions::default()).unwrap_err(),
            ChangeError::AlreadyBound(k.clone(), "n1".into())
        );
        assert_eq!(
            c.bind_pod(&ObjectKey::new("default", "v"), "zz", &ServerOptions::default())
                .unwrap_err(),
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
        assert_eq!(p.nominated_node_name(), Some("n1"));
        let p = c.set_nominated_node(&k, None).unwrap();
        assert_eq!(p.nominated_node_name(), None);
        let v = c.evict_pod(&ObjectKey::new("default", "v")).unwrap();
        assert_eq!(v.key.name, "v");
        assert_eq!(c.pods.len(), 1);
        assert!(c.evict_pod(&ObjectKey::new("default", "v")).is_err());
    }
}
