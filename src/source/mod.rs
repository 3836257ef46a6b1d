//! Where snapshots come from (files, a live cluster) and where writes go.

pub mod file;
pub mod save;
