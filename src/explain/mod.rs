//! Renders explanations: the JSON contract (shared/spec/explain-json-v1.md) and the text report.

pub mod group;
pub mod json;
pub mod queue;
pub mod simulation;
pub mod text;
