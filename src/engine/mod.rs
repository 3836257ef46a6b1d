//! The scheduler engine: pure and deterministic. A snapshot and a profile go in, an
//! [`trace::Explanation`] comes out. No I/O, no clock, no threads, no terminal.
//!
//! Nodes are visited in name order; ties are reported, never sampled.

pub mod framework;
pub mod group_cycle;
pub mod plugins;
pub mod queue;
pub mod release;
pub mod simulate;
pub mod trace;

pub use framework::profile::{Framework, SchedulerConfig, build_profiles};
pub use framework::runner::{EngineError, explain, explain_as};
pub use framework::snapshot::Snapshot;
pub use release::{Change, FeatureGates, Features, Gate, Release};
