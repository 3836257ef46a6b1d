//! The one integration test binary (style.md (b)): each concern is a module.
#![allow(clippy::unwrap_used)]

#[cfg(feature = "live")]
mod apiserver;
#[cfg(feature = "live")]
mod live_cli;
#[cfg(feature = "live")]
mod live_source;
