//! The `kschedtui` binary: argument parsing and exit codes live in `cli`.

/// mimalloc keeps allocations of one size together: loading a large snapshot frees many
/// short-lived objects, and with the system allocator the small pieces of the pods that stay
/// land in the holes they leave, scattered, which made explaining markedly slower.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    kschedtui::cli::main()
}
