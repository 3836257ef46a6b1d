//! The scheduler engine: pure and deterministic. A snapshot and a profile go in, an
//! [`trace::Explanation`] comes out. No I/O, no clock, no threads, no terminal.
//!
//! Nodes are visited in name order; ties are reported, never sampled.
//!
//! Modules and their dependency rule (as upstream's packages):
//! - [`release`]: release data, used by all below.
//! - [`framework`]: plugin traits, cycle state, statuses, node and pod infos, the built
//!   profile, the runner and what it records (the explanation, [`trace`], re-exported here).
//!   It knows no plugin.
//! - [`plugins`]: one module per upstream plugin; each uses the framework only.
//! - [`registry`] (name → plugin) and [`profile`] (configuration → built profiles): above
//!   both, the only modules that put plugins into a framework.
//! - [`queue`], [`group_cycle`], [`simulate`]: run the framework over many pods; [`fit`]:
//!   workloads before they exist, placed by the simulation.

pub mod commit;
pub mod deschedule;
pub mod fit;
pub mod framework;
pub mod group_cycle;
pub mod group_preemption;
pub(crate) mod plugins;
pub(crate) mod profile;
pub mod queue;
pub(crate) mod registry;
pub mod release;
pub mod simulate;

pub use framework::runner::{EngineError, explain, explain_as};
pub use framework::runtime::Framework;
pub use framework::snapshot::Snapshot;
pub use framework::trace;
pub use profile::{SchedulerConfig, build_profiles};
pub use release::{Change, FeatureGates, Features, Gate, Release};
