//! Renders explanations: the JSON contract (shared/spec/explain-json-v1.md), the text report,
//! and the reconciliation with what the cluster itself recorded ([`condition`]).

pub(crate) mod condition;
pub(crate) mod group;
pub mod json;
pub(crate) mod queue;
pub(crate) mod simulation;
pub(crate) mod text;
