//! The descheduler policy file (`kschedtui deschedule --policy FILE`, the TUI's
//! `:deschedule FILE`): a DeschedulerPolicy (descheduler/v1alpha2) as YAML or JSON, decoded,
//! validated and defaulted by [`crate::engine::deschedule::policy`]. Every error names the
//! file, and the field at fault when there is one.

use std::path::Path;

use serde_json::Value;

use crate::engine::deschedule::policy::{self, Policy, PolicyError};

/// A policy as read from a file.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyFile {
    /// The file, as named.
    pub path: String,
    /// The policy, validated and defaulted.
    pub policy: Policy,
    /// Fields the descheduler reads but kschedtui does not reproduce (field, value): shown as
    /// warnings, they change nothing in the dry run.
    pub unreproduced: Vec<(String, String)>,
}

/// Why a policy file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PolicyFileError {
    /// The file cannot be read.
    #[error("cannot read descheduler policy '{path}': {cause}")]
    Read {
        /// The file.
        path: String,
        /// Cause (in the message, not a chained source: the message already says it).
        cause: std::io::Error,
    },
    /// The text is not YAML or JSON, or holds several documents.
    #[error("{path}: not valid {format}: {message}")]
    Syntax {
        /// The file.
        path: String,
        /// YAML or JSON.
        format: &'static str,
        /// The parser's message (with line and column).
        message: String,
    },
    /// The document is not a valid DeschedulerPolicy (unknown field, wrong type, upstream's
    /// validation).
    #[error("{path}: {cause}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong, with the field.
        cause: PolicyError,
    },
    /// A profile the descheduler would refuse to build (`NewProfile`: a plugin enabled at an
    /// extension point it does not implement, or without its pluginConfig).
    #[error("{path}: field '{field}': {message}")]
    Profile {
        /// The file.
        path: String,
        /// The profile's field (`profiles[0].plugins`).
        field: String,
        /// Upstream's message.
        message: String,
    },
}

/// Reads a policy file.
pub fn read(path: &Path) -> Result<PolicyFile, PolicyFileError> {
    let name = path.display().to_string();
    let text =
        super::input::read_text_limited(path, super::input::CONFIG_LIMIT).map_err(|cause| PolicyFileError::Read {
            path: name.clone(),
            cause,
        })?;
    parse(&name, &text)
}

/// Reads a policy from its text; `name` is the file it came from (for the messages). JSON
/// when the text starts with `{`, YAML otherwise.
pub fn parse(name: &str, text: &str) -> Result<PolicyFile, PolicyFileError> {
    let syntax = |format, message: String| PolicyFileError::Syntax {
        path: name.to_string(),
        format,
        message,
    };
    let text = super::input::strip_bom(text);
    let json = text.trim_start().starts_with('{');
    super::input::check_nesting(text).map_err(|deep| syntax(if json { "JSON" } else { "YAML" }, deep.to_string()))?;
    let doc: Value = if json {
        serde_json::from_str(text).map_err(|e| syntax("JSON", e.to_string()))?
    } else {
        serde_yaml::from_str(text).map_err(|e| syntax("YAML", e.to_string()))?
    };
    if doc.is_null() {
        return Err(syntax(
            "YAML",
            "the file is empty (a DeschedulerPolicy needs apiVersion: descheduler/v1alpha2 and kind: DeschedulerPolicy)"
                .into(),
        ));
    }
    let invalid = |cause| PolicyFileError::Invalid {
        path: name.to_string(),
        cause,
    };
    // the version first, as the API machinery decodes: a v1alpha1 policy is refused for its
    // version, not for its first field v1alpha2 does not have
    if let Some(api) = doc
        .get("apiVersion")
        .filter(|v| v.as_str() != Some("descheduler/v1alpha2"))
    {
        let head = serde_json::json!({"apiVersion": api, "kind": doc.get("kind")});
        policy::read(&head).map_err(invalid)?;
    }
    let (policy, unreproduced) = policy::read(&doc).map_err(invalid)?;
    for (i, p) in policy.profiles.iter().enumerate() {
        policy::check_profile(p).map_err(|message| PolicyFileError::Profile {
            path: name.to_string(),
            field: format!("profiles[{i}].plugins"),
            message,
        })?;
    }
    Ok(PolicyFile {
        path: name.to_string(),
        policy,
        unreproduced,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n";

    #[test]
    fn reads_yaml_and_json() {
        let y = parse(
            "p.yaml",
            &format!(
                "{HEAD}profiles:\n- name: p\n  pluginConfig:\n  - name: RemoveFailedPods\n  plugins:\n    deschedule:\n      enabled: [RemoveFailedPods]\n"
            ),
        )
        .expect("yaml");
        assert_eq!(y.path, "p.yaml");
        assert_eq!(y.policy.profiles[0].name, "p");
        assert_eq!(
            y.policy.profiles[0].plugins.deschedule.enabled,
            vec!["RemoveFailedPods"]
        );
        let j = parse(
            "p.json",
            r#"{"apiVersion":"descheduler/v1alpha2","kind":"DeschedulerPolicy","profiles":[{"name":"p","pluginConfig":[{"name":"RemoveFailedPods"}],"plugins":{"deschedule":{"enabled":["RemoveFailedPods"]}}}]}"#,
        )
        .expect("json");
        assert_eq!(j.policy, y.policy);
    }

    #[test]
    fn errors_name_the_file_and_the_field() {
        let e = parse(
            "bad.yaml",
            &format!("{HEAD}profiles:\n- name: p\n  pluginConfig:\n  - name: LowNodeUtilization\n    args:\n      thresold: {{cpu: 20}}\n"),
        )
        .expect_err("unknown field");
        assert_eq!(
            e.to_string(),
            "bad.yaml: field 'profiles[0].pluginConfig[0].args.thresold': unknown field \"thresold\" (known: apiVersion, kind, useDeviationThresholds, thresholds, targetThresholds, numberOfNodes, metricsUtilization, evictableNamespaces, evictionLimits)"
        );
        let e = parse("k.yaml", "apiVersion: v1\nkind: ConfigMap\n").expect_err("kind");
        assert_eq!(
            e.to_string(),
            "k.yaml: field 'kind': is \"ConfigMap\"; a descheduler policy has kind DeschedulerPolicy"
        );
        let e = parse("s.yaml", "profiles: [").expect_err("syntax");
        assert!(e.to_string().starts_with("s.yaml: not valid YAML: "), "{e}");
        let e = parse("e.yaml", "").expect_err("empty");
        assert_eq!(
            e.to_string(),
            "e.yaml: not valid YAML: the file is empty (a DeschedulerPolicy needs apiVersion: descheduler/v1alpha2 and kind: DeschedulerPolicy)"
        );
        let e = parse(
            "v.yaml",
            "apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\nstrategies: {}\n",
        )
        .expect_err("version");
        assert_eq!(
            e.to_string(),
            "v.yaml: field 'apiVersion': no kind \"DeschedulerPolicy\" is registered for version \"descheduler/v1alpha1\" (descheduler v0.36 reads descheduler/v1alpha2)"
        );
        let e = parse(
            "n.yaml",
            &format!("{HEAD}profiles:\n- name: p\n  plugins:\n    deschedule:\n      enabled: [PodLifeTime]\n"),
        )
        .expect_err("no config");
        assert_eq!(
            e.to_string(),
            "n.yaml: field 'profiles[0].plugins': unable to create \"p\" profile: unable to build PodLifeTime plugin: unable to find \"PodLifeTime\" plugin config"
        );
        let e = read(Path::new("/nonexistent/policy.yaml")).expect_err("missing");
        assert!(
            e.to_string()
                .starts_with("cannot read descheduler policy '/nonexistent/policy.yaml': "),
            "{e}"
        );
    }
}
