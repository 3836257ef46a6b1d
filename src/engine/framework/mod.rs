//! The scheduling framework: statuses, cycle state, node and pod infos, the snapshot, the
//! plugin traits, profiles and the runner.

pub mod binding;
pub mod cycle_state;
pub mod fit_error;
pub mod handle;
pub mod names;
pub mod node_info;
pub mod plugin;
pub mod profile;
pub mod runner;
pub mod snapshot;
pub mod snapshot_update;
pub mod status;
