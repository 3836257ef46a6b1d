//! Where cluster state comes from and where writes go.
//!
//! - [`deschedule`]: the descheduler policy file (`deschedule --policy`, `:deschedule`).
//! - [`file`]: snapshot files (`--snapshot`), read into a [`Cluster`](crate::model::Cluster).
//! - [`load`]: the cluster of `--snapshot` or `--demo` and the `--config` file, for every
//!   front end.
//! - [`manifests`]: the workload manifests of `fit -f` (files, directories, standard input).
//! - [`save`]: writes a [`Cluster`](crate::model::Cluster) back, keeping the documents as read
//!   (`simulate --write`).
//! - [`snapshot`]: writes a [`ClusterState`] back as a snapshot file (`kschedtui snapshot`),
//!   optionally anonymized by [`anonymize`].
//! - [`write`]: the write requests kschedtui can send (bind, preempt), how they are planned,
//!   checked, confirmed and reported. Pure data plus one generic executor.
//! - [`ClusterSource`]: the one door to a cluster, implemented by [`fixture::FixtureSource`]
//!   (a snapshot held in memory, writes applied in memory) and, with the `live` feature, by
//!   [`live::LiveSource`] (a real API server). Front ends are generic over it, so the whole
//!   loop (load, watch, bind, preempt) runs in tests and demos without a cluster.

pub mod anonymize;
pub mod deschedule;
pub mod file;
pub mod generate;
pub(crate) mod input;
mod json_list;
pub(crate) mod load;
pub mod manifests;
pub mod save;
pub mod snapshot;
pub mod write;
pub(crate) mod yaml;

#[cfg(any(feature = "tui", feature = "live"))]
pub mod fixture;
#[cfg(feature = "live")]
pub mod live;

#[cfg(any(feature = "tui", feature = "live"))]
pub use self::source_trait::ClusterSource;

/// A path typed in the TUI (`:w FILE`, `:deschedule FILE`) read as a shell reads it: `~` alone
/// or a leading `~/` is `home` (the caller passes $HOME); `~user/…`, a `~` elsewhere, or no
/// home leave the path as typed.
pub fn expand_home(path: &std::path::Path, home: Option<&str>) -> std::path::PathBuf {
    let Some(home) = home.filter(|h| !h.is_empty()) else {
        return path.to_path_buf();
    };
    let mut parts = path.components();
    match parts.next() {
        Some(std::path::Component::Normal(first)) if first == "~" => std::path::Path::new(home).join(parts.as_path()),
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::expand_home;

    #[test]
    fn a_leading_tilde_is_the_home_directory_and_nothing_else_is_touched() {
        let h = Some("/home/ada");
        assert_eq!(
            expand_home(Path::new("~/after.yaml"), h),
            PathBuf::from("/home/ada/after.yaml")
        );
        assert_eq!(
            expand_home(Path::new("~/a/b.json"), h),
            PathBuf::from("/home/ada/a/b.json")
        );
        assert_eq!(expand_home(Path::new("~"), h), PathBuf::from("/home/ada"));
        assert_eq!(expand_home(Path::new("~bob/x.yaml"), h), PathBuf::from("~bob/x.yaml"));
        assert_eq!(expand_home(Path::new("a/~/x.yaml"), h), PathBuf::from("a/~/x.yaml"));
        assert_eq!(expand_home(Path::new("/tmp/~x"), h), PathBuf::from("/tmp/~x"));
        assert_eq!(expand_home(Path::new("~/x.yaml"), None), PathBuf::from("~/x.yaml"));
        assert_eq!(expand_home(Path::new("~/x.yaml"), Some("")), PathBuf::from("~/x.yaml"));
    }
}

#[cfg(any(feature = "tui", feature = "live"))]
mod source_trait {
    use std::future::Future;

    use tokio::sync::mpsc;

    use super::write::{Outcome, Removal, WriteError, WriteMode, WriteRequest};
    use crate::model::ObjectKey;
    use crate::model::event::{ClusterEvent, ClusterState};

    /// A cluster to read from and write to.
    ///
    /// Not dyn-compatible on purpose: front ends are generic (`run<S: ClusterSource>`), and
    /// `main` picks the fixture or the live source.
    ///
    /// Contract:
    /// - [`load`](Self::load) returns a complete, consistent state (every kind listed).
    /// - [`watch`](Self::watch) then sends every later change to `tx`, in order per kind, and
    ///   runs until `tx` is closed; it never returns early because of a transient failure (the
    ///   kind is reported [`ClusterEvent::Stale`] and the watch retries with backoff). When what
    ///   it reads shows the cluster is not the one loaded (recreated under the same URL), it
    ///   lists every kind again and sends the whole new state as one
    ///   [`ClusterEvent::Replaced`] before watching on.
    /// - [`send`](Self::send) sends exactly one request and never retries it; the caller sees
    ///   every answer. Changes it causes come back through `watch` like any other change.
    /// - In [`WriteMode::ReadOnly`] `check` and `send` fail with [`WriteError::ReadOnly`]
    ///   without contacting anything.
    pub trait ClusterSource: Send + Sync + 'static {
        /// One line naming the source ("context 'kind-dev' (https://127.0.0.1:6443)",
        /// "snapshot fixtures/demo.yaml").
        fn describe(&self) -> String;

        /// Whether writes are sent, sent as server-side dry runs, or refused.
        fn write_mode(&self) -> WriteMode;

        /// Reads every object the engine uses.
        fn load(&self) -> impl Future<Output = anyhow::Result<ClusterState>> + Send;

        /// Sends every change after the last [`load`](Self::load) to `tx` until `tx` closes.
        fn watch(&self, tx: mpsc::Sender<ClusterEvent>) -> impl Future<Output = anyhow::Result<()>> + Send;

        /// Asks whether a request would be allowed (SelfSubjectAccessReview on a live
        /// cluster). `Err(WriteError::Forbidden)` names the verb and resource.
        fn check(&self, req: &WriteRequest) -> impl Future<Output = Result<(), WriteError>> + Send;

        /// Sends one request.
        fn send(&self, req: &WriteRequest) -> impl Future<Output = Result<Outcome, WriteError>> + Send;

        /// Binds a pod to a node (POST pods/{name}/binding).
        fn bind(&self, pod: &ObjectKey, node: &str) -> impl Future<Output = Result<Outcome, WriteError>> + Send {
            let req = WriteRequest::Bind {
                pod: pod.clone(),
                uid: None,
                node: node.to_string(),
            };
            async move { self.send(&req).await }
        }

        /// Removes a pod: DELETE, or POST pods/{name}/eviction (which honours PDBs).
        fn remove(&self, pod: &ObjectKey, how: Removal) -> impl Future<Output = Result<Outcome, WriteError>> + Send {
            let req = match how {
                Removal::Delete => WriteRequest::Delete {
                    pod: pod.clone(),
                    uid: None,
                },
                Removal::Evict => WriteRequest::Evict {
                    pod: pod.clone(),
                    uid: None,
                },
            };
            async move { self.send(&req).await }
        }
    }
}
