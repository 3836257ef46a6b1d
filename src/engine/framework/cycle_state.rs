//! Per-attempt plugin state (framework/cycle_state.go): typed values keyed by plugin, cloned
//! when the runner evaluates a node with nominated pods added or a preemption candidate.

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};

/// A value a plugin stores for the rest of the cycle.
pub trait StateData: Any + Send + Sync {
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn StateData>;
    /// For downcasting.
    fn as_any(&self) -> &dyn Any;
    /// For downcasting.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any + Clone + Send + Sync> StateData for T {
    fn clone_box(&self) -> Box<dyn StateData> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// The cycle state.
#[derive(Default)]
pub struct CycleState {
    data: BTreeMap<&'static str, Box<dyn StateData>>,
    /// Plugins whose PreFilter returned Skip: their Filter is not called.
    pub skip_filter: BTreeSet<&'static str>,
    /// Plugins whose PreScore returned Skip: their Score is not called.
    pub skip_score: BTreeSet<&'static str>,
}

impl Clone for CycleState {
    fn clone(&self) -> Self {
        CycleState {
            data: self.data.iter().map(|(k, v)| (*k, (**v).clone_box())).collect(),
            skip_filter: self.skip_filter.clone(),
            skip_score: self.skip_score.clone(),
        }
    }
}

impl CycleState {
    /// Stores a value.
    pub fn write<T: StateData>(&mut self, key: &'static str, v: T) {
        self.data.insert(key, Box::new(v));
    }

    /// Reads a value.
    pub fn read<T: 'static>(&self, key: &'static str) -> Option<&T> {
        self.data.get(key).and_then(|b| b.as_ref().as_any().downcast_ref::<T>())
    }

    /// Reads a value for update.
    pub fn read_mut<T: 'static>(&mut self, key: &'static str) -> Option<&mut T> {
        self.data
            .get_mut(key)
            .and_then(|b| b.as_mut().as_any_mut().downcast_mut::<T>())
    }
}
