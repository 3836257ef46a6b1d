//! What one loader keeps while it reads: the pools of equal lists it shares ([`super::share`])
//! and the buffers it packs texts with. Each kind's pool is its own module's type, so the
//! modules that share depend on [`super::share`]'s functions, never on this aggregate.

use std::collections::HashSet;
use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;

use super::labels::Labels;
use super::list::List;
use super::resources::RequestPool;
use super::{ThinStr, Toleration};

/// What a loader keeps between the objects it reads: the lists it shares, kind by kind, and
/// the buffers it packs their texts with.
#[derive(Default)]
pub struct Interner {
    pub(crate) labels: HashSet<Labels>,
    /// The request lists and amounts ([`RequestPool`]).
    pub(crate) resources: RequestPool,
    pub(crate) affinities: Vec<Arc<core::Affinity>>,
    pub(crate) tolerations: HashSet<List<Toleration>>,
    pub(crate) classes: HashSet<ThinStr>,
    pub(crate) node_names: HashSet<ThinStr>,
    pub(crate) image_names: HashSet<List<String>>,
    /// The buffers the loader packs the objects' texts with ([`super::stored::pack`]).
    pub(crate) pack: super::stored::PackBuffers,
}

impl std::fmt::Debug for Interner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interner")
            .field("labels", &self.labels.len())
            .field("node_names", &self.node_names.len())
            .finish_non_exhaustive()
    }
}
