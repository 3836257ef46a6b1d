//! kschedtui: a terminal debugger for the Kubernetes scheduler.
//!
//! Module map and dependency rule (each layer uses only those below it; the layering test in
//! tests/integration/layering.rs checks every production line; ARCHITECTURE.md has the
//! checklists for adding a plugin, a kind, a release, a screen, an output format):
//! - [`model`]: cluster data, kinds, quantities, selectors, the write requests and the
//!   in-memory API server (no scheduling logic, no I/O).
//! - [`engine`]: the scheduler, pure and deterministic (uses `model`).
//! - [`source`]: snapshot files, the demo, generated clusters, live clusters, sending writes
//!   (uses `engine` for releases and profiles, `model`).
//! - [`explain`]: renders an explanation as JSON or text, reconciled with the cluster's own
//!   condition and events (uses `engine`, `source`, `model`).
//! - `app` (feature `tui`): the terminal-free TUI state machine (uses `explain`, `engine`,
//!   `model`; not `source`).
//! - `tui` (feature `tui`): terminal, event loop, themes and panels (uses `app` and below).
//! - [`cli`]: headless commands and the entry point (uses all of the above).

#![warn(unreachable_pub)]

#[cfg(feature = "tui")]
pub mod app;
pub mod cli;
pub mod engine;
pub mod explain;
#[doc(hidden)]
pub mod fuzzing;
pub mod model;
pub mod source;
#[cfg(test)]
pub(crate) mod testkit;
#[cfg(feature = "tui")]
pub mod tui;
