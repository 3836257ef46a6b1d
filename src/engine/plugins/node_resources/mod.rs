//! Port of framework/plugins/noderesources (v1.30.6): Fit with its scoring strategies, and
//! BalancedAllocation.

pub mod balanced_allocation;
pub mod fit;
pub mod resource_allocation;
