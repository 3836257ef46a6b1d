//! The fix hints, computed in the explain layer ([`crate::explain::fix`]) so that `explain`'s
//! text and JSON and the TUI's fixes screen share one implementation.

pub use crate::explain::fix::{Change, Fix, Outcome, Verified, apply, candidates, verify};
