//! The dependency rule of src/lib.rs, checked on the `use` lines: the model uses nothing above
//! it, the engine only the model, the app no terminal, tokio or file system.

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

fn violations(layer: &str, forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(layer);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let l = line.trim_start();
            // Unit tests may load fixtures through the source layer.
            if l.starts_with("#[cfg(test)]") {
                break;
            }
            if l.starts_with("//") {
                continue;
            }
            for bad in forbidden {
                if l.contains(bad) {
                    out.push(format!("{}:{}: {}", f.display(), i + 1, l));
                }
            }
        }
    }
    out
}

#[test]
fn model_and_engine_stay_below_sources_and_front_ends() {
    let upward = [
        "crate::source",
        "crate::cli",
        "crate::app",
        "crate::tui",
        "crate::explain",
    ];
    let io = [
        "std::fs",
        "std::net",
        "tokio",
        "ratatui",
        "crossterm",
        "kube::",
        "std::time::SystemTime",
        "Instant::now",
    ];
    let mut v = violations("model", &upward);
    v.extend(violations("model", &["crate::engine"]));
    v.extend(violations("model", &io));
    v.extend(violations("engine", &upward));
    v.extend(violations("engine", &io));
    assert!(v.is_empty(), "layering violations:\n{}", v.join("\n"));
}

#[test]
fn app_has_no_terminal_runtime_or_files() {
    let v = violations(
        "app",
        &[
            "crate::tui",
            "crate::cli",
            "tokio",
            "std::fs",
            "ratatui::Terminal",
            "crate::source::live",
        ],
    );
    assert!(v.is_empty(), "layering violations:\n{}", v.join("\n"));
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
