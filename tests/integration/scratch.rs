//! Temporary directories of tests, removed when their guard drops, also when a test fails.

/// A fresh directory for one test, named after it (`kschedtui-it-NAME-…` in the system's
/// temporary directory).
pub fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("kschedtui-it-{name}-"))
        .tempdir()
        .unwrap()
}
