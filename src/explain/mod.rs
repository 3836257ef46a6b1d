//! Renders explanations: the JSON contract (shared/spec/explain-json-v1.md), the text report,
//! and the reconciliation with what the cluster itself recorded ([`condition`]).

pub mod condition;
pub mod group;
pub mod json;
pub mod queue;
pub mod simulation;
pub mod text;
