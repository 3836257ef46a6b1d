//! Issue 46 against a live cluster's inputs: a kubeconfig that never ends.

use std::process::{Command, Output, Stdio};

use crate::scratch::temp_dir;

fn run(args: &[&str]) -> Output {
    let home = temp_dir("home");
    Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(args)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn error_line(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(1), "{}", stderr(o));
    let e = stderr(o);
    let last = e.lines().last().unwrap_or("").to_string();
    assert!(last.starts_with("error: "), "{e}");
    last
}

/// A kubeconfig that never ends is read up to its limit.
#[cfg(target_os = "linux")]
#[test]
fn a_kubeconfig_that_never_ends_is_refused_at_its_limit() {
    let o = run(&["explain", "--kubeconfig", "/dev/zero", "--all-pending"]);
    assert_eq!(
        error_line(&o),
        "error: cannot read kubeconfig '/dev/zero': not a regular file, and it gave more than 8 MiB without ending (kschedtui reads at most 8 MiB from a pipe or a device)"
    );
}
