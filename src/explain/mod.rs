//! Renders explanations: the JSON contract (shared/spec/explain-json-v1.md), the text report,
//! the reconciliation with what the cluster itself recorded ([`condition`]), and the
//! descheduler dry run ([`deschedule`]), `fit`'s answer ([`fit`]), a workload's pods as a
//! whole ([`owners`]), the decisive reason of a pending pod ([`reason`]); what a text report may send to a terminal
//! ([`terminal`]: no control characters from the cluster).

// the decisive reason (explain::reason: the pod list, fit) is its one reader
pub(crate) mod blocking;
pub(crate) mod condition;
pub mod deschedule;
pub mod fit;
pub mod fix;
pub(crate) mod format;
pub(crate) mod group;
pub mod json;
pub mod owners;
pub(crate) mod queue;
pub mod reason;
pub mod reproduce;
pub(crate) mod simulation;
pub(crate) mod terminal;
pub(crate) mod text;
pub mod usage;
