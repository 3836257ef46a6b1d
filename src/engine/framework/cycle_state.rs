//! Per-attempt plugin state (framework/cycle_state.go): typed values keyed by plugin, cloned
//! when the runner evaluates a node with nominated pods added or a preemption candidate.

use std::any::Any;
use std::collections::BTreeSet;

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
    /// A handful of entries (one per plugin with state), read once per node and plugin in
    /// Filter and Score: a list searched by the key's address first (a plugin reads with the
    /// key it wrote with: plugins keep their keys in `static`s, since a `const` string is a
    /// separate copy at each use and would never match by address), then by its text.
    data: Vec<(&'static str, Box<dyn StateData>)>,
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
        match self.position(key) {
            Some(i) => self.data[i].1 = Box::new(v),
            None => self.data.push((key, Box::new(v))),
        }
    }

    /// Where the entry of `key` is.
    fn position(&self, key: &str) -> Option<usize> {
        self.data
            .iter()
            .position(|(k, _)| std::ptr::eq(*k, key))
            .or_else(|| self.data.iter().position(|(k, _)| *k == key))
    }

    /// Reads a value.
    pub fn read<T: 'static>(&self, key: &'static str) -> Option<&T> {
        let i = self.position(key)?;
        self.data[i].1.as_ref().as_any().downcast_ref::<T>()
    }

    /// Reads a value for update.
    pub fn read_mut<T: 'static>(&mut self, key: &'static str) -> Option<&mut T> {
        let i = self.position(key)?;
        self.data[i].1.as_mut().as_any_mut().downcast_mut::<T>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_found_by_key_text_replaced_on_write_and_copied_apart() {
        let mut s = CycleState::default();
        s.write("PluginA", 1u32);
        s.write("PluginB", String::from("b"));
        // the same text at another address (not the constant it was written with)
        let other: &'static str = Box::leak(String::from("PluginA").into_boxed_str());
        assert_eq!(s.read::<u32>(other), Some(&1));
        assert_eq!(s.read::<String>("PluginA"), None, "another type under the key");
        s.write(other, 2u32);
        assert_eq!(s.read::<u32>("PluginA"), Some(&2), "written again, not twice");
        let copy = s.clone();
        if let Some(v) = s.read_mut::<String>("PluginB") {
            v.push('!');
        }
        assert_eq!(s.read::<String>("PluginB").map(String::as_str), Some("b!"));
        assert_eq!(copy.read::<String>("PluginB").map(String::as_str), Some("b"));
        assert_eq!(s.read::<u32>("PluginC"), None);
    }
}
