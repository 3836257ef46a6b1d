//! Renders explanations: the JSON contract (shared/spec/explain-json-v1.md), the text report,
//! the reconciliation with what the cluster itself recorded ([`condition`]), and the
//! descheduler dry run ([`deschedule`]).

pub mod condition;
pub mod deschedule;
pub mod group;
pub mod json;
pub mod queue;
pub mod simulation;
pub mod text;
