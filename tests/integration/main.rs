//! The one integration test binary (each extra file under tests/ would link the whole crate
//! again); one module per area.
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

mod anonymize;
#[cfg(feature = "live")]
mod apiserver;
#[cfg(feature = "live")]
mod binding_cycle;
mod cli;
mod config_validation;
mod conformance;
mod deschedule;
mod determinism;
mod docs_json;
mod fit;
mod fixtures;
mod fuzz_seeds;
mod gang137;
mod hostile;
#[cfg(feature = "live")]
mod hostile_live;
mod kinds;
mod layering;
#[cfg(feature = "live")]
mod live_cli;
#[cfg(feature = "live")]
mod live_source;
#[cfg(feature = "mcp")]
mod mcp;
#[cfg(all(feature = "tui", feature = "live"))]
mod one_write_path;
mod readme;
mod release138;
mod scratch;
mod simulate;
#[cfg(feature = "tui")]
mod tui_e2e;
#[cfg(all(feature = "tui", feature = "live"))]
mod tui_live;
#[cfg(feature = "tui")]
mod tui_screens;
