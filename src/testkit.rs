//! Unit-test builders (a port of kube-scheduler's testing wrappers), compiled for tests only:
//! they panic on bad input, which only a test may do.

// ported whole from upstream's wrappers: not every method has a test using it yet
#[allow(dead_code)]
pub(crate) mod builders;
