//! The `kschedtui` binary: argument parsing and exit codes live in `cli`.

/// mimalloc keeps allocations of one size together: loading a large snapshot frees many
/// short-lived objects, and with the system allocator the small pieces of the pods that stay
/// land in the holes they leave, scattered, which made explaining markedly slower. Built with
/// `no_thp` (Cargo.toml): with transparent huge pages on `madvise`, mimalloc's huge-page
/// requests made the kernel compact and clear 2 MiB pages on first touch, and loading a large
/// snapshot spent most of its time in the kernel.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    kschedtui::cli::main()
}
