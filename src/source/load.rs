//! The one place a front end gets its cluster and its scheduler configuration from when it
//! does not attach to a live cluster: a snapshot file or directory (`--snapshot`), or the
//! bundled demo (`--demo`), with what `kschedtui snapshot` recorded in the file (the release
//! of the cluster it was taken from, the kinds it could not read), and a
//! KubeSchedulerConfiguration file (`--config`).

use std::path::{Path, PathBuf};

use super::file::{self, LoadError};
use super::snapshot::SnapshotInfo;
use crate::engine::profile::ProfileError;
use crate::engine::release::Recorded;
use crate::engine::{Features, Framework, Release, SchedulerConfig, build_profiles};
use crate::model::Cluster;

/// The demo cluster, embedded so `--demo` works from any directory.
pub const DEMO_SNAPSHOT: &str = include_str!("../../fixtures/demo.yaml");

/// The name the demo goes by in messages.
pub(crate) const DEMO_NAME: &str = "demo.yaml (embedded)";

/// Where a cluster is read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A snapshot file or directory.
    Snapshot(PathBuf),
    /// The bundled demo.
    Demo,
}

impl Input {
    /// From `--snapshot` and `--demo` (the snapshot wins); `None` for neither.
    pub fn from_flags(snapshot: Option<&Path>, demo: bool) -> Option<Input> {
        match (snapshot, demo) {
            (Some(p), _) => Some(Input::Snapshot(p.to_path_buf())),
            (None, true) => Some(Input::Demo),
            (None, false) => None,
        }
    }

    /// The snapshot's path, if it is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Input::Snapshot(p) => Some(p),
            Input::Demo => None,
        }
    }

    /// Reads the cluster (a snapshot file's recorded info in [`Cluster::recorded_info`]).
    pub fn load(&self) -> Result<Cluster, LoadError> {
        match self {
            Input::Snapshot(p) => file::load_path(p),
            Input::Demo => file::load_str(DEMO_NAME, DEMO_SNAPSHOT),
        }
    }

    /// Reads the cluster keeping every document as read, so it saves back without losing
    /// objects or fields (see `save`).
    pub fn load_keeping_documents(&self) -> Result<Cluster, LoadError> {
        match self {
            Input::Snapshot(p) => file::load_path_keeping_documents(p),
            Input::Demo => file::load_str_keeping_documents(DEMO_NAME, DEMO_SNAPSHOT),
        }
    }

    /// The release the snapshot recorded (the cluster's gitVersion, clamped to a known
    /// release, with a note when it is explained as another one), read from the file apart
    /// from its objects (a regular file only). A cluster this loaded has it already:
    /// [`recorded_in`].
    pub fn recorded(&self) -> Option<Recorded> {
        version_of(&SnapshotInfo::read(self.path()?)?)
    }

    /// Reads the cluster with what the snapshot recorded, in the same read: its release, and
    /// the kinds that could not be read (events: the verdict says so; others: a warning).
    pub fn load_recorded(&self) -> Result<(Cluster, Option<Recorded>), LoadError> {
        let mut cluster = self.load()?;
        let info = cluster.recorded_info.clone().and_then(SnapshotInfo::from_value);
        let version = info.as_ref().and_then(version_of);
        let mut unreadable = info.map(|i| i.unreadable).unwrap_or_default();
        if let Some(why) = unreadable.remove(crate::model::event::Kind::Event.name()) {
            cluster.events_unreadable = Some(why);
        }
        for (name, why) in unreadable {
            if let Some(kind) = crate::model::kinds::Kind::named(&name) {
                cluster.warnings.extend(crate::model::unreadable_warning(kind, &why));
            }
        }
        Ok((cluster, version))
    }

    /// The snapshot held in memory as a source, writes answered by the in-memory API server.
    #[cfg(any(feature = "tui", feature = "live"))]
    pub fn fixture(&self) -> Result<super::fixture::FixtureSource, LoadError> {
        match self {
            Input::Snapshot(p) => super::fixture::FixtureSource::from_path(p),
            Input::Demo => super::fixture::FixtureSource::from_str(DEMO_NAME, DEMO_SNAPSHOT),
        }
    }
}

/// The release a loaded snapshot recorded ([`Input::recorded`] without reading the file again).
pub(crate) fn recorded_in(cluster: &Cluster) -> Option<Recorded> {
    version_of(&SnapshotInfo::from_value(cluster.recorded_info.clone()?)?)
}

fn version_of(info: &SnapshotInfo) -> Option<Recorded> {
    info.kubernetes_version.as_deref().map(Release::from_server)
}

/// Why a scheduler configuration file was refused.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigFileError {
    /// It could not be read.
    #[error("cannot read scheduler config '{path}': {cause}")]
    Read {
        /// Path.
        path: String,
        /// Cause (in the message, not a chained source: the message already says it).
        cause: std::io::Error,
    },
    /// It is not a valid configuration for the release.
    #[error("in '{path}': {cause}")]
    Invalid {
        /// Path.
        path: String,
        /// What is wrong (in the message).
        cause: ProfileError,
    },
    /// It nests deeper than kschedtui reads.
    #[error("in '{path}': {deep}")]
    Nesting {
        /// Path.
        path: String,
        /// Where.
        deep: super::input::TooDeep,
    },
    /// The release's default profile cannot be built with the gates given.
    #[error(transparent)]
    Default(ProfileError),
}

/// Reads a KubeSchedulerConfiguration file and checks it builds at `features` (so a mistake
/// is refused before a terminal opens or a cluster is read).
pub(crate) fn scheduler_config(path: &Path, features: &Features) -> Result<SchedulerConfig, ConfigFileError> {
    let invalid = |cause| ConfigFileError::Invalid {
        path: path.display().to_string(),
        cause,
    };
    let text =
        super::input::read_text_limited(path, super::input::CONFIG_LIMIT).map_err(|cause| ConfigFileError::Read {
            path: path.display().to_string(),
            cause,
        })?;
    let text = super::input::strip_bom(&text);
    super::input::check_nesting(text).map_err(|deep| ConfigFileError::Nesting {
        path: path.display().to_string(),
        deep,
    })?;
    let cfg = SchedulerConfig::parse(text).map_err(invalid)?;
    build_profiles(Some(&cfg), features).map_err(invalid)?;
    Ok(cfg)
}

/// The profiles of a release: from a configuration file when given, else the release's
/// default profile.
pub(crate) fn profiles(config: Option<&Path>, features: &Features) -> Result<Vec<Framework>, ConfigFileError> {
    match config {
        Some(p) => {
            let cfg = scheduler_config(p, features)?;
            build_profiles(Some(&cfg), features).map_err(|cause| ConfigFileError::Invalid {
                path: p.display().to_string(),
                cause,
            })
        }
        None => build_profiles(None, features).map_err(ConfigFileError::Default),
    }
}
