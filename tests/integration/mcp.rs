//! `kschedtui mcp` driven by a real MCP client: the official Python SDK (`mcp` on PyPI, which
//! `.ci/run` installs into target/mcp-venv) runs tests/mcp/client.py against `kschedtui mcp
//! --demo` over stdio. Without that virtual environment the test says SKIPPED on the terminal
//! and checks nothing.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

/// The Python with the `mcp` SDK: `KSCHEDTUI_MCP_PYTHON`, else target/mcp-venv's.
fn python() -> Result<PathBuf, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let py = std::env::var_os("KSCHEDTUI_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/mcp-venv/bin/python"));
    if !py.exists() {
        return Err(format!("{} does not exist", py.display()));
    }
    let probe = Command::new(&py)
        .args(["-c", "import mcp, jsonschema"])
        .output()
        .map_err(|e| format!("{}: {e}", py.display()))?;
    if !probe.status.success() {
        return Err(format!(
            "{} cannot import mcp: {}",
            py.display(),
            String::from_utf8_lossy(&probe.stderr).trim()
        ));
    }
    Ok(py)
}

/// Written to the terminal itself, past the test harness's capture, as the tmux tests' skips
/// are meant to be seen.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[test]
fn the_python_sdk_drives_the_demo_server_over_stdio() {
    let py = match python() {
        Ok(p) => p,
        Err(why) => {
            say(&format!(
                "SKIPPED mcp_client: no Python with the MCP SDK ({why}; .ci/run creates target/mcp-venv with `pip install mcp`)"
            ));
            return;
        }
    };
    let out = Command::new(py)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("tests/mcp/client.py")
        .arg(env!("CARGO_BIN_EXE_kschedtui"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the MCP client failed:\n{stdout}\n{stderr}");
    assert!(stdout.ends_with("mcp client: all checks passed\n"), "{stdout}");
    let checks = stdout.lines().filter(|l| l.starts_with("ok: ")).count();
    assert_eq!(checks, 19, "{stdout}");
}

#[test]
fn writes_and_readonly_contradict_each_other() {
    let out = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(["--demo", "--readonly", "mcp", "--allow-writes"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --allow-writes and --readonly contradict each other: pass one of them\n"
    );
    assert!(out.stdout.is_empty());
}
