//! The release and gates a user asked for (`--scheduler-version`, `--feature-gates`), as
//! plain data every front end builds from its own options, and how they are resolved against
//! the release a snapshot recorded or a server reports.

use super::{FeatureError, FeatureGates, Features, Release, ReleaseError};

/// A release recorded by a snapshot or read from a server, with the note to show when
/// kschedtui explains it as another release.
pub type Recorded = (Release, Option<String>);

/// What the user chose; `None` where they chose nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReleaseChoice {
    /// `--scheduler-version`: 1.MINOR or 1.MINOR.PATCH.
    pub scheduler_version: Option<String>,
    /// `--feature-gates`: Gate=true,Other=false.
    pub feature_gates: Option<String>,
}

/// Why a choice was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChoiceError {
    /// `--scheduler-version`.
    #[error(transparent)]
    Release(#[from] ReleaseError),
    /// `--feature-gates`.
    #[error(transparent)]
    Gates(#[from] FeatureError),
}

impl ReleaseChoice {
    /// True when either is given.
    pub fn is_set(&self) -> bool {
        self.scheduler_version.is_some() || self.feature_gates.is_some()
    }

    /// The release given, else `default`, with the gates given.
    pub fn resolve(&self, default: Release) -> Result<Features, ChoiceError> {
        let release = match &self.scheduler_version {
            Some(v) => v.parse::<Release>()?,
            None => default,
        };
        let gates = match &self.feature_gates {
            Some(g) => FeatureGates::parse(g)?,
            None => FeatureGates::none(),
        };
        let mut f = Features::with_gates(release, &gates)?;
        if let Some(note) = release.patch_note() {
            f.set_note(note);
        }
        Ok(f)
    }

    /// The features to explain with: the version given, else the recorded release (with its
    /// note), else [`Release::DEFAULT`]; with the gates given.
    pub fn features(&self, recorded: Option<Recorded>) -> Result<Features, ChoiceError> {
        let (default, note) = recorded.unwrap_or((Release::DEFAULT, None));
        let mut f = self.resolve(default)?;
        if self.scheduler_version.is_none()
            && let Some(n) = note
        {
            f.set_note(n);
        }
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_given_wins_over_the_recorded_one_and_its_note() {
        let recorded = Some((Release::NEWEST, Some("explained as the newest".to_string())));
        let none = ReleaseChoice::default();
        let f = none.features(recorded.clone()).unwrap();
        assert_eq!(f.note(), Some("explained as the newest"));
        let pinned = ReleaseChoice {
            scheduler_version: Some("1.33".into()),
            feature_gates: None,
        };
        let f = pinned.features(recorded).unwrap();
        assert_eq!(f.release().to_string(), "1.33.3");
        assert_eq!(f.note(), None);
        let bad = ReleaseChoice {
            scheduler_version: Some("2.0".into()),
            feature_gates: None,
        };
        assert!(matches!(bad.resolve(Release::NEWEST), Err(ChoiceError::Release(_))));
        let gate = ReleaseChoice {
            scheduler_version: None,
            feature_gates: Some("NoSuchGate=true".into()),
        };
        assert!(matches!(gate.resolve(Release::NEWEST), Err(ChoiceError::Gates(_))));
    }
}
