//! kschedtui: a terminal debugger for the Kubernetes scheduler.
//!
//! Module map and dependency rule (each layer uses only those below it):
//! - [`model`]: cluster data built once from a snapshot (no scheduling logic, no I/O).
//! - [`engine`]: the scheduler, pure and deterministic (uses `model`).
//! - [`explain`]: renders an explanation as JSON or text (uses `engine`).
//! - [`source`]: snapshot files and live clusters (uses `model`).
//! - `app` (feature `tui`): the terminal-free TUI state machine (uses `engine`, `model`).
//! - `tui` (feature `tui`): terminal, event loop, themes and panels (uses `app`).
//! - [`cli`]: headless commands and the entry point (uses all of the above).

#[cfg(feature = "tui")]
pub mod app;
pub mod cli;
pub mod engine;
pub mod explain;
#[doc(hidden)]
pub mod fuzzing;
pub mod model;
pub mod source;
#[doc(hidden)]
pub mod testkit;
#[cfg(feature = "tui")]
pub mod tui;
