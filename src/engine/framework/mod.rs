//! The scheduling framework: statuses, cycle state, node and pod infos, the snapshot, the
//! plugin traits, the built profile, the runner and what it records (`trace`). It knows no
//! plugin: the plugins depend on it, and `engine::registry` / `engine::profile` above both
//! put them together.

pub mod batching;
pub mod binding;
pub mod cycle_state;
pub mod fit_error;
pub mod handle;
pub(crate) mod index;
pub(crate) mod memo;
pub mod names;
pub mod node_info;
pub(crate) mod parallel;
pub mod placement;
pub mod plugin;
pub mod pod_infos;
pub mod runner;
pub mod runtime;
pub mod sampling;
pub mod snapshot;
pub mod snapshot_update;
pub mod status;
pub mod trace;
