//! Port of framework/plugins/defaultbinder/default_binder.go (v1.30.6): the Bind plugin that
//! writes the pod's Binding. The engine explains a cycle up to the choice of a node, so the
//! plugin only takes its place at Bind (it is listed among the later extension points).

use serde_json::Value;

use crate::engine::framework::plugin::PluginSlots;
use crate::engine::version::Version;

/// The extension points DefaultBinder takes part in.
pub const POINTS: [&str; 1] = ["Bind"];

/// Registers DefaultBinder. Upstream's factory ignores any args it is given.
pub fn register(_: &Value, _: Version) -> Result<PluginSlots, String> {
    Ok(PluginSlots {
        later: POINTS.to_vec(),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::framework::profile::Framework;

    #[test]
    fn default_profile_binds_with_default_binder_only() {
        for v in [Version { minor: 30 }, Version::NEWEST] {
            let fw = Framework::default_profile(v).expect("default profile");
            assert_eq!(fw.plugins_at("Bind"), vec!["DefaultBinder"]);
            for point in ["Reserve", "Permit", "PreBind", "PostBind"] {
                assert!(!fw.plugins_at(point).contains(&"DefaultBinder"), "{point}");
            }
            assert!(!fw.not_implemented.iter().any(|n| n == "DefaultBinder"));
        }
    }

    #[test]
    fn args_are_ignored() {
        let slots = register(&serde_json::json!({"anything": 1}), Version::NEWEST).expect("slots");
        assert_eq!(slots.later, vec!["Bind"]);
        assert!(slots.filter.is_none() && slots.post_filter.is_none() && !slots.not_implemented);
    }
}
