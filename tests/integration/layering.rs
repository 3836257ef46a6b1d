//! The dependency rule of src/lib.rs, checked on every production line: each layer names only
//! the layers below it, the model and the engine do no I/O, the app no terminal, tokio or
//! file system.

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The production lines of a file: `#[cfg(test)]` items (a test module, a test-only function
/// or import) are skipped to their end, so code after them is still checked.
fn production_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut skipping = false;
    let mut depth: i64 = 0;
    let mut opened = false;
    for (i, line) in text.lines().enumerate() {
        let mut l = line.trim_start();
        if !skipping && let Some(rest) = l.strip_prefix("#[cfg(test)]") {
            skipping = true;
            depth = 0;
            opened = false;
            l = rest;
            if l.trim().is_empty() {
                continue;
            }
        }
        if skipping {
            // code only: a `//` comment is cut off
            let code = l.split("//").next().unwrap_or_default();
            for c in code.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            // the item ends where its braces close, or at a `;` for a one-line item
            if (opened && depth <= 0) || (!opened && code.trim_end().ends_with(';')) {
                skipping = false;
            }
            continue;
        }
        if l.starts_with("//") {
            continue;
        }
        out.push((i + 1, line));
    }
    out
}

const IO: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::thread",
    "std::env",
    "tokio",
    "ratatui",
    "crossterm",
    "kube::",
    "SystemTime",
    "Instant::now",
    "EventStream",
];

/// Each layer and what it may not name: the layers of src/lib.rs (model → engine → source →
/// explain → app → tui → cli, each using only those below), and no I/O below the sources or
/// in the app.
fn rules() -> Vec<(&'static str, Vec<&'static str>)> {
    let above = |layers: &[&'static str]| -> Vec<&'static str> { layers.to_vec() };
    let with_io = |mut v: Vec<&'static str>| {
        v.extend_from_slice(IO);
        v
    };
    vec![
        (
            "model",
            with_io(above(&[
                "crate::engine",
                "crate::source",
                "crate::explain",
                "crate::app",
                "crate::tui",
                "crate::cli",
            ])),
        ),
        (
            "engine",
            with_io(above(&[
                "crate::source",
                "crate::explain",
                "crate::app",
                "crate::tui",
                "crate::cli",
            ])),
        ),
        (
            "source",
            above(&["crate::explain", "crate::app", "crate::tui", "crate::cli"]),
        ),
        (
            "explain",
            above(&["crate::app", "crate::tui", "crate::cli", "std::fs", "tokio"]),
        ),
        // crossterm's key events are the key table's input (data); its terminal is not used
        (
            "app",
            above(&["crate::source", "crate::tui", "crate::cli"])
                .into_iter()
                .chain(IO.iter().copied().filter(|x| *x != "crossterm"))
                .collect(),
        ),
        ("tui", above(&["crate::cli"])),
    ]
}

#[test]
fn every_layer_uses_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut checked = 0;
    for (layer, forbidden) in rules() {
        let mut files = Vec::new();
        rust_files(&src.join(layer), &mut files);
        assert!(!files.is_empty(), "no files under src/{layer}");
        // a `tests.rs` is a `#[cfg(test)] mod tests;` of its parent: test code throughout
        for f in files.into_iter().filter(|f| !f.ends_with("tests.rs")) {
            let text = std::fs::read_to_string(&f).unwrap();
            for (n, line) in production_lines(&text) {
                let code = line.split("//").next().unwrap_or_default();
                for bad in &forbidden {
                    if code.contains(bad) {
                        out.push(format!("{}:{n}: '{bad}' in src/{layer}: {}", f.display(), line.trim()));
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(out.is_empty(), "layering violations:\n{}", out.join("\n"));
    assert!(checked > 10_000, "only {checked} lines checked");
}

#[test]
fn test_blocks_are_skipped_and_code_after_them_is_checked() {
    let text = "use a;\n#[cfg(test)]\nuse crate::source::file;\nfn f() {}\n#[cfg(test)] mod t;\nuse b;\n#[cfg(test)]\nmod tests {\n    use crate::tui;\n    fn g() { x }\n}\nuse crate::tui::late;\n";
    let lines: Vec<&str> = production_lines(text).into_iter().map(|(_, l)| l).collect();
    assert_eq!(lines, ["use a;", "fn f() {}", "use b;", "use crate::tui::late;"]);
}

/// Releases are data: no code outside the release module compares minors or patches (it asks
/// `Features::on(Gate)` / `Features::has(Change)` instead).
#[test]
fn no_code_outside_the_release_module_compares_minors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in ["src", "tests", "benches"] {
        rust_files(&root.join(d), &mut files);
    }
    let release = root.join("src/engine/release");
    let this = root.join("tests/integration/layering.rs");
    let mut out = Vec::new();
    for f in files.iter().filter(|f| !f.starts_with(&release) && **f != this) {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let l = line.trim_start();
            if l.starts_with("//") {
                continue;
            }
            let compares = [
                ".minor()", ".patch()", "minor >", "minor <", "> minor", "< minor", "minor >=", "minor <=",
            ]
            .iter()
            .any(|p| l.contains(p));
            if compares {
                out.push(format!("{}:{}: {}", f.display(), i + 1, l));
            }
        }
    }
    assert!(
        out.is_empty(),
        "minor comparisons outside src/engine/release:\n{}",
        out.join("\n")
    );
}

/// docs/releases.md is generated from the release tables; `UPDATE_DOCS=1` rewrites it.
#[test]
fn docs_releases_md_follows_the_release_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/releases.md");
    let want = kschedtui::engine::release::release_notes_markdown();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/releases.md is out of date: run UPDATE_DOCS=1 cargo test --test integration docs"
    );
}
