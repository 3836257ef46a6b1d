//! The one integration test binary (one link of the dependency graph on a 2-core CI machine).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

#[cfg(feature = "live")]
mod apiserver;
mod cli;
mod conformance;
mod determinism;
mod fixtures;
mod layering;
#[cfg(feature = "live")]
mod live_cli;
#[cfg(feature = "live")]
mod live_source;
mod simulate;
