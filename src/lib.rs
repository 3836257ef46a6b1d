//! kschedtui: a terminal debugger for the Kubernetes scheduler.
//!
//! Module map and dependency rule (each layer uses only those below it):
//! - [`model`]: cluster data built once from a snapshot (no scheduling logic, no I/O).
//! - [`engine`]: the scheduler, pure and deterministic (uses `model`).
//! - [`explain`]: renders an explanation as JSON or text (uses `engine`).
//! - [`source`]: snapshot files and live clusters (uses `model`).
//! - [`cli`]: headless commands (uses all of the above).

pub mod cli;
pub mod engine;
pub mod explain;
pub mod model;
pub mod source;
#[doc(hidden)]
pub mod testkit;
