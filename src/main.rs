//! The `kschedtui` binary: argument parsing and exit codes live in `cli`.

fn main() -> std::process::ExitCode {
    kschedtui::cli::main()
}
