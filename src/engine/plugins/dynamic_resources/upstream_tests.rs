//! Cases from upstream's own allocator and CEL tests (k8s.io/dynamic-resource-allocation
//! `structured/internal/allocatortesting` and `cel/compile_test.go`), as data, run against
//! [`super::allocator`] and [`super::cel`].
