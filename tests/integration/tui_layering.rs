//! The TUI's brain stays terminal-free: `src/app` may not use tokio, the file system, processes,
//! the clock, ratatui or the `tui` module (convention 5). A plain scan of the source.

use std::path::Path;

const FORBIDDEN: &[&str] = &[
    "tokio",
    "std::fs",
    "std::process",
    "SystemTime",
    "Instant::now",
    "ratatui",
    "crate::tui",
    "EventStream",
    "std::thread",
    "std::env",
];

#[test]
fn app_has_no_terminal_io_or_async() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for f in FORBIDDEN {
                assert!(
                    !code.contains(f),
                    "{}:{}: '{f}' is not allowed in src/app: {line}",
                    path.display(),
                    i + 1
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 10, "expected the app modules, found {checked}");
}
