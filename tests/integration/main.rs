//! The one integration test binary (one link of the dependency graph on a 2-core CI machine).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

mod cli;
mod conformance;
mod determinism;
mod fixtures;
mod layering;
