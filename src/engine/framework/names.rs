//! The plugin names the framework itself refers to (the SchedulingGates message, the
//! preemption of waiting pods, the DynamicResources note). `plugins::names` re-exports them
//! with every other name, so the framework never imports a plugin module.
#![allow(missing_docs)]

pub const DEFAULT_PREEMPTION: &str = "DefaultPreemption";
pub const DYNAMIC_RESOURCES: &str = "DynamicResources";
pub const SCHEDULING_GATES: &str = "SchedulingGates";
