//! Changes applied to a snapshot between cycles (what the scheduler cache sees after a bind,
//! an assume, a forget, a preemption or a nomination): the cluster change of `model::mutate`
//! plus the node accounting (`NodeInfo` aggregates), the parsed pods and the nominated pods,
//! kept exactly as `Snapshot::new` would build them from the changed cluster.

use std::sync::Arc;

use super::index::pods::{PodTable, PodTables};
use super::index::terms::{AntiAffinityTerms, ScoringTerms};
use super::node_info::PodInfo;
use super::snapshot::Snapshot;
use crate::model::mutate::ChangeError;
use crate::model::{ObjectKey, Pod};

impl Snapshot {
    /// Whether the pod is bound or assumed on a node with terms that score other pods
    /// (what [`ScoringTerms`] gathers).
    fn scores_by_affinity(&self, key: &ObjectKey) -> bool {
        self.pod_infos.get(key).is_some_and(|pi| {
            pi.pod.node_name.is_some()
                && !(pi.required_affinity().is_empty()
                    && pi.preferred_affinity().is_empty()
                    && pi.preferred_anti_affinity().is_empty())
        })
    }

    /// Whether the pod is bound or assumed on a node and has required anti-affinity terms
    /// (what [`AntiAffinityTerms`] gathers).
    fn has_required_anti_affinity_on_node(&self, key: &ObjectKey) -> bool {
        self.pod_infos
            .get(key)
            .is_some_and(|pi| pi.pod.node_name.is_some() && !pi.required_anti_affinity().is_empty())
    }

    /// The required anti-affinity terms after `key` was added to its node (bound or assumed):
    /// its uses added after its node's others.
    fn add_anti_affinity_terms(&mut self, key: &ObjectKey) {
        let at = self
            .pod_infos
            .get(key)
            .and_then(|pi| pi.pod.node_name.as_deref())
            .and_then(|n| self.node_index(n));
        let Some(ni) = at else { return };
        let list = &self.nodes[ni].required_anti_affinity_pods;
        match list.last() {
            Some(ep) if ep.pod.key == *key => {
                let (pos, ep) = (list.len() - 1, ep.clone());
                Arc::make_mut(&mut self.index.anti_terms).add(ni, pos, &ep);
            }
            _ => self.index.anti_terms = Arc::new(AntiAffinityTerms::build(&self.nodes)),
        }
    }

    fn unindex(&mut self, old: &Arc<Pod>) {
        self.pod_infos.remove(&old.key);
        if let Some(n) = &old.node_name
            && let Some(i) = self.node_index(n)
        {
            self.nodes[i].remove_pod(old);
            self.generations.bump(i);
        }
        if let Some(nn) = old.nominated_node_name()
            && let Some(list) = self.nominated.get_mut(nn)
        {
            list.retain(|p| p.pod.key != old.key);
            if list.is_empty() {
                self.nominated.remove(nn);
            }
        }
    }

    fn index_pod(&mut self, new: &Arc<Pod>) {
        if new.is_finished() {
            return;
        }
        let pi = Arc::new(PodInfo::with_features(new.clone(), &self.features));
        self.pod_infos.insert(pi.clone());
        match &new.node_name {
            Some(n) => {
                if let Some(i) = self.node_index(n) {
                    self.nodes[i].add_pod(pi);
                    self.generations.bump(i);
                }
            }
            None => {
                if let Some(nn) = new.nominated_node_name()
                    && !new.gated
                    && self.node_index(nn).is_some()
                {
                    self.nominated.entry(nn.to_string()).or_default().push(pi);
                }
            }
        }
    }

    fn change(
        &mut self,
        key: &ObjectKey,
        f: impl FnOnce(&mut crate::model::Cluster) -> Result<Arc<Pod>, ChangeError>,
    ) -> Result<Arc<Pod>, ChangeError> {
        let old = self
            .cluster
            .pod(key)
            .cloned()
            .ok_or_else(|| ChangeError::NoPod(key.clone()))?;
        let new = f(Arc::make_mut(&mut self.cluster))?;
        // a pod that was on no node only adds to a node (bound or assumed): the table stays
        self.index.pods = Arc::new(if old.node_name.is_none() {
            self.index.pods.appended(usize::from(new.node_name.is_some()))
        } else {
            self.index.pods.changed()
        });
        let mut terms_changed = self.scores_by_affinity(&old.key);
        let old_anti = self.has_required_anti_affinity_on_node(&old.key);
        self.unindex(&old);
        let mut new_anti = false;
        if self.cluster.pod(key).is_some() {
            self.index_pod(&new);
            terms_changed |= self.scores_by_affinity(&new.key);
            new_anti = self.has_required_anti_affinity_on_node(&new.key);
        }
        // The required anti-affinity terms follow the pods with such terms on nodes: one
        // bound or assumed adds its own, any other change of one builds them again.
        if old_anti {
            self.index.anti_terms = Arc::new(AntiAffinityTerms::build(&self.nodes));
        } else if new_anti {
            self.add_anti_affinity_terms(&new.key);
        }
        // The scoring terms follow the bound pods with affinity: a change to a pod without
        // such terms (most binds of a simulation) leaves them as they are.
        if terms_changed {
            self.index.terms = Arc::new(ScoringTerms::build(&self.nodes));
        }
        self.rebuild_pod_table_if_worth_it();
        Ok(new)
    }

    /// Binds a pending pod (see `Cluster::bind_pod`) and counts it on its node.
    pub fn bind_pod(&mut self, key: &ObjectKey, node: &str) -> Result<Arc<Pod>, ChangeError> {
        let opts = self.features.server_options();
        self.change(key, |c| c.bind_pod(key, node, &opts))
    }

    /// Assumes a pending pod on a node (see `Cluster::assume_pod`).
    pub fn assume_pod(&mut self, key: &ObjectKey, node: &str) -> Result<Arc<Pod>, ChangeError> {
        self.change(key, |c| c.assume_pod(key, node))
    }

    /// Forgets an assumed pod (see `Cluster::forget_pod`).
    pub fn forget_pod(&mut self, key: &ObjectKey) -> Result<Arc<Pod>, ChangeError> {
        self.change(key, |c| c.forget_pod(key))
    }

    /// Deletes a pod (see `Cluster::evict_pod`).
    pub fn evict_pod(&mut self, key: &ObjectKey) -> Result<Arc<Pod>, ChangeError> {
        self.change(key, |c| c.evict_pod(key))
    }

    /// Applies the writes a binding cycle's PreBind made (PUTs of claims, volumes and
    /// ResourceClaims) to the cluster through the in-memory API server, so the next cycles see
    /// the volumes bound and the devices allocated; the other requests are left to the
    /// callers that make them (bind, nominate).
    pub fn apply_writes(&mut self, writes: &[crate::model::write::WriteRequest]) {
        use crate::model::write::{WriteMode, WriteRequest};
        if !writes.iter().any(|w| matches!(w, WriteRequest::Update(_))) {
            return;
        }
        let opts = self.features.server_options();
        let cluster = Arc::make_mut(&mut self.cluster);
        for w in writes.iter().filter(|w| matches!(w, WriteRequest::Update(_))) {
            let _ = crate::model::apiserver::send(cluster, w, WriteMode::Enabled, &opts);
        }
    }

    /// Changes the cluster with `create` (pods, claims and volumes created in memory), which
    /// returns the pods it added, and counts them as [`Snapshot::new`] would: pending ones
    /// among the parsed pods (and nominated ones on their node), bound ones on their node.
    pub fn create_with<R>(&mut self, create: impl FnOnce(&mut crate::model::Cluster) -> (R, Vec<ObjectKey>)) -> R {
        let (r, keys) = create(Arc::make_mut(&mut self.cluster));
        if !keys.is_empty() {
            // new pods only add to nodes: the table stays
            let bound = keys
                .iter()
                .filter(|k| self.cluster.pod(k).is_some_and(|p| p.node_name.is_some()))
                .count();
            self.index.pods = Arc::new(self.index.pods.appended(bound));
        }
        let mut terms_changed = false;
        let mut anti_changed = false;
        for k in &keys {
            let Some(p) = self.cluster.pod(k).cloned() else {
                continue;
            };
            self.index_pod(&p);
            terms_changed |= self.scores_by_affinity(k);
            anti_changed |= self.has_required_anti_affinity_on_node(k);
        }
        if terms_changed {
            self.index.terms = Arc::new(ScoringTerms::build(&self.nodes));
        }
        if anti_changed {
            self.index.anti_terms = Arc::new(AntiAffinityTerms::build(&self.nodes));
        }
        self.rebuild_pod_table_if_worth_it();
        r
    }

    /// Builds the pod table again once many pods were added since it was built (a long run
    /// of binds, `fit --max`'s replicas), so counting passes stop walking them one by one.
    fn rebuild_pod_table_if_worth_it(&mut self) {
        if self.index.pods.worth_rebuilding() {
            self.index.pods = Arc::new(PodTables::new(PodTable::build(&self.nodes)));
        }
    }

    /// Sets or clears a pod's nominated node (see `Cluster::set_nominated_node`).
    pub fn set_nominated_node(&mut self, key: &ObjectKey, node: Option<&str>) -> Result<Arc<Pod>, ChangeError> {
        self.change(key, |c| c.set_nominated_node(key, node))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::release::Release;
    use crate::source::file::load_str;

    const SNAP: &str = r"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: '4', memory: 4Gi, pods: '10'}}
- apiVersion: v1
  kind: Node
  metadata: {name: n2}
  status: {allocatable: {cpu: '4', memory: 4Gi, pods: '10'}}
- apiVersion: v1
  kind: Pod
  metadata: {name: a, namespace: default}
  spec:
    containers: [{name: c, resources: {requests: {cpu: 1500m, memory: 1Gi}}, ports: [{containerPort: 80, hostPort: 80}]}]
- apiVersion: v1
  kind: Pod
  metadata: {name: b, namespace: default}
  spec:
    nodeName: n2
    containers: [{name: c, resources: {requests: {cpu: '1'}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: c, namespace: default}
  spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}
";

    fn fresh(text: &str) -> Snapshot {
        Snapshot::new(Arc::new(load_str("t", text).unwrap()), Release::NEWEST)
    }

    /// Every aggregate of every node equals the one a snapshot rebuilt from the cluster has.
    fn assert_same_accounting(s: &Snapshot) {
        let rebuilt = Snapshot::new(Arc::new((*s.cluster).clone()), &*s.features);
        for (a, b) in s.nodes.iter().zip(&rebuilt.nodes) {
            assert_eq!(a.requested, b.requested, "{}", a.name());
            assert_eq!(a.non_zero_requested, b.non_zero_requested, "{}", a.name());
            assert_eq!(a.used_ports, b.used_ports, "{}", a.name());
            let mut x: Vec<&str> = a.pods.iter().map(|p| p.pod.key.name.as_str()).collect();
            let mut y: Vec<&str> = b.pods.iter().map(|p| p.pod.key.name.as_str()).collect();
            x.sort_unstable();
            y.sort_unstable();
            assert_eq!(x, y, "{}", a.name());
        }
        let nom = |s: &Snapshot| -> Vec<(String, Vec<String>)> {
            s.nominated
                .iter()
                .map(|(n, v)| (n.clone(), v.iter().map(|p| p.pod.key.name.to_string()).collect()))
                .collect()
        };
        assert_eq!(nom(s), nom(&rebuilt));
        assert_eq!(
            s.pod_infos.keys().collect::<Vec<_>>(),
            rebuilt.pod_infos.keys().collect::<Vec<_>>()
        );
        assert_eq!(term_uses(s), term_uses(&rebuilt));
    }

    /// The scoring terms' uses as (node, term, weight), sorted.
    fn term_uses(s: &Snapshot) -> Vec<(u32, String, String)> {
        let t = &s.index.terms;
        let mut v: Vec<(u32, String, String)> = t
            .uses
            .iter()
            .map(|u| {
                (
                    u.node,
                    format!("{:?}", t.terms[u.term as usize]),
                    format!("{:?}", u.weight),
                )
            })
            .collect();
        v.sort();
        v
    }

    const WITH_TERMS: &str = r"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: '4', memory: 4Gi, pods: '10'}}
- apiVersion: v1
  kind: Node
  metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
  status: {allocatable: {cpu: '4', memory: 4Gi, pods: '10'}}
- apiVersion: v1
  kind: Pod
  metadata: {name: plain, namespace: default, labels: {app: web}}
  spec: {containers: [{name: c}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: spread, namespace: default, labels: {app: web}}
  spec:
    containers: [{name: c}]
    affinity:
      podAntiAffinity:
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 50
          podAffinityTerm: {labelSelector: {matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname}
- apiVersion: v1
  kind: Pod
  metadata: {name: near, namespace: default, labels: {app: db}}
  spec:
    nodeName: n2
    containers: [{name: c}]
    affinity:
      podAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - {labelSelector: {matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname}
";

    #[test]
    fn scoring_terms_follow_binds_and_evictions_of_pods_with_terms_only() {
        let mut s = fresh(WITH_TERMS);
        let before = s.index.terms.clone();
        assert_eq!(before.uses.len(), 1, "the bound pod's required affinity term");
        s.bind_pod(&ObjectKey::new("default", "plain"), "n1").unwrap();
        assert!(
            Arc::ptr_eq(&before, &s.index.terms),
            "a pod without terms leaves the terms as they were"
        );
        assert_same_accounting(&s);
        s.bind_pod(&ObjectKey::new("default", "spread"), "n1").unwrap();
        assert_eq!(s.index.terms.uses.len(), 2);
        assert_same_accounting(&s);
        s.evict_pod(&ObjectKey::new("default", "near")).unwrap();
        assert_eq!(s.index.terms.uses.len(), 1);
        assert_same_accounting(&s);
        s.set_nominated_node(&ObjectKey::new("default", "spread"), Some("n2"))
            .unwrap();
        assert_same_accounting(&s);
    }

    #[test]
    fn bind_assume_forget_evict_nominate_keep_node_accounting() {
        let mut s = fresh(SNAP);
        let a = ObjectKey::new("default", "a");
        let b = ObjectKey::new("default", "b");
        let c = ObjectKey::new("default", "c");
        s.bind_pod(&a, "n1").unwrap();
        let n1 = s.node("n1").unwrap();
        assert_eq!(n1.requested.milli_cpu, 1500);
        assert_eq!(n1.requested.memory, 1 << 30);
        assert_eq!(n1.used_ports.len(), 1);
        assert_same_accounting(&s);
        s.set_nominated_node(&c, Some("n2")).unwrap();
        assert_eq!(s.nominated["n2"].len(), 1);
        assert_same_accounting(&s);
        s.evict_pod(&b).unwrap();
        assert_eq!(s.node("n2").unwrap().requested.milli_cpu, 0);
        assert_same_accounting(&s);
        s.assume_pod(&c, "n2").unwrap();
        assert!(s.nominated.is_empty(), "a placed pod is no longer a nominated pod");
        assert_eq!(s.node("n2").unwrap().requested.milli_cpu, 1000);
        assert_same_accounting(&s);
        s.forget_pod(&c).unwrap();
        assert_eq!(s.node("n2").unwrap().requested.milli_cpu, 0);
        assert_eq!(s.nominated["n2"].len(), 1, "forgotten: nominated again");
        assert_same_accounting(&s);
    }
}
