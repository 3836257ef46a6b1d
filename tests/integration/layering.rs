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

/// The one exception: the engine's node-parallel map may start scoped threads (pure work on
/// borrowed data, results taken back in input order, so the answer is a walk's; no I/O, no
/// thread outlives the call). Nothing else in the engine names `std::thread`.
fn allowed(file: &Path, bad: &str) -> bool {
    bad == "std::thread" && file.ends_with("engine/framework/parallel.rs")
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
                    if code.contains(bad) && !allowed(&f, bad) {
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

/// The engine is acyclic as upstream's packages are: the framework (src/engine/framework)
/// names no plugin module and no registry/profile building, and no plugin
/// (src/engine/plugins) reaches the registry or the profile building above it. Test code
/// (`#[cfg(test)]` items, inline or in their own files) is not scanned, and scanning goes on
/// after each test item.
#[test]
fn engine_framework_knows_no_plugin_and_plugins_no_registry() {
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                files_under(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    /// The directory holding the files of `file`'s child modules.
    fn child_dir(file: &Path) -> PathBuf {
        let dir = file.parent().unwrap().to_path_buf();
        match file.file_name().and_then(|n| n.to_str()) {
            Some("mod.rs" | "lib.rs") => dir,
            _ => dir.join(file.file_stem().unwrap()),
        }
    }

    /// Files of modules declared `#[cfg(test)] mod name;` in `file` (with their own child
    /// module directories).
    fn test_module_files(file: &Path, text: &str, out: &mut BTreeSet<PathBuf>) {
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for (i, l) in lines.iter().enumerate() {
            if !l.starts_with("#[cfg(test)]") {
                continue;
            }
            let mut path_attr = None;
            let mut j = i;
            let mut item = l.trim_start_matches("#[cfg(test)]").trim();
            while item.is_empty() || item.starts_with("#[") {
                if let Some(p) = item.strip_prefix("#[path = \"") {
                    path_attr = p.split('"').next().map(str::to_string);
                }
                j += 1;
                match lines.get(j) {
                    Some(next) => item = next,
                    None => break,
                }
            }
            let decl = item.trim_start_matches("pub(crate) ").trim_start_matches("pub ");
            let Some(name) = decl.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) else {
                continue;
            };
            let f = match path_attr {
                Some(p) => file.parent().unwrap().join(p),
                None => {
                    let flat = child_dir(file).join(format!("{name}.rs"));
                    if flat.exists() {
                        flat
                    } else {
                        child_dir(file).join(name).join("mod.rs")
                    }
                }
            };
            out.insert(child_dir(&f));
            out.insert(f);
        }
    }

    /// The lines outside `#[cfg(test)]` items and comments, with their numbers: an inline test
    /// item ends at the closing brace at its own indentation (rustfmt layout).
    fn code_lines(text: &str) -> Vec<(usize, String)> {
        let lines: Vec<&str> = text.lines().collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            let t = line.trim_start();
            if t.starts_with("#[cfg(test)]") {
                let indent = line.len() - t.len();
                let mut j = i;
                let mut item = t.trim_start_matches("#[cfg(test)]").trim();
                while (item.is_empty() || item.starts_with("#[")) && j + 1 < lines.len() {
                    j += 1;
                    item = lines[j].trim();
                }
                if !item.ends_with(';') {
                    let close = format!("{}}}", " ".repeat(indent));
                    while j < lines.len() && lines[j].trim_end() != close {
                        j += 1;
                    }
                }
                i = j + 1;
                continue;
            }
            if !t.starts_with("//") {
                out.push((i + 1, t.to_string()));
            }
            i += 1;
        }
        out
    }

    /// Whole `use` statements and every other line, so that a grouped import spread over
    /// several lines is checked as one.
    fn statements(lines: &[(usize, String)]) -> Vec<(usize, String)> {
        let mut out: Vec<(usize, String)> = Vec::new();
        let mut open: Option<(usize, String)> = None;
        for (n, l) in lines {
            if let Some((start, mut s)) = open.take() {
                s.push_str(l);
                if l.ends_with(';') {
                    out.push((start, s));
                } else {
                    open = Some((start, s));
                }
            } else if (l.starts_with("use ") || l.starts_with("pub use ")) && !l.ends_with(';') {
                open = Some((*n, l.clone()));
            } else {
                out.push((*n, l.clone()));
            }
        }
        out.extend(open);
        out
    }

    /// True when `stmt` names `module` of the engine: `crate::engine::module`, through
    /// `super::` hops, or as a member of an `engine::{...}` group.
    fn names_engine_module(stmt: &str, hops: &[&str], module: &str) -> bool {
        let s: String = stmt.chars().filter(|c| !c.is_whitespace()).collect();
        let prefixes = std::iter::once("crate::engine::").chain(hops.iter().copied());
        prefixes.into_iter().any(|p| {
            let direct = s.match_indices(&format!("{p}{module}")).any(|(i, m)| {
                let next = s[i + m.len()..].chars().next();
                !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
            });
            let grouped = s.split(&format!("{p}{{")).skip(1).any(|rest| {
                let mut depth = 0;
                let end = rest
                    .char_indices()
                    .find(|(_, c)| {
                        match c {
                            '{' => depth += 1,
                            '}' if depth == 0 => return true,
                            '}' => depth -= 1,
                            _ => {}
                        }
                        false
                    })
                    .map_or(rest.len(), |(i, _)| i);
                // Members at the group's top level: `module`, `module::...`, `module as x`.
                let mut depth = 0;
                let mut member = String::new();
                let mut found = false;
                for c in rest[..end].chars().chain([',']) {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            let head = member.split("::").next().unwrap_or("");
                            found |= head == module || head.strip_prefix(module).is_some_and(|r| r.starts_with("as"));
                            member.clear();
                            continue;
                        }
                        _ => {}
                    }
                    if depth == 0 || c != '{' {
                        member.push(c);
                    }
                }
                found
            });
            direct || grouped
        })
    }

    // The scanner keeps going after a test module and skips only the module.
    let sample = "use a;\n#[cfg(test)]\nmod tests {\n    use crate::engine::plugins;\n}\nuse crate::engine::plugins::names;\n#[cfg(test)]\nuse crate::engine::profile;\n";
    let seen: Vec<usize> = code_lines(sample).iter().map(|(n, _)| *n).collect();
    assert_eq!(seen, vec![1, 6], "the cfg(test) skipper is wrong");
    assert!(names_engine_module(
        "use crate::engine::{\nplugins::names, release};",
        &[],
        "plugins"
    ));
    assert!(names_engine_module(
        "use super::super::{self, registry as r};",
        &["super::super::"],
        "registry"
    ));
    assert!(!names_engine_module(
        "use crate::engine::release::profile::Cond;",
        &[],
        "profile"
    ));
    assert!(!names_engine_module(
        "use crate::engine::{release::{profile, Gate}, trace};",
        &[],
        "profile"
    ));
    assert!(!names_engine_module(
        "use crate::engine::plugins_extra;",
        &[],
        "plugins"
    ));

    let engine = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let mut all = Vec::new();
    files_under(&engine, &mut all);
    let mut test_files = BTreeSet::new();
    for f in &all {
        test_module_files(f, &std::fs::read_to_string(f).unwrap(), &mut test_files);
    }
    let is_test = |f: &Path| test_files.iter().any(|t| f.starts_with(t));
    assert!(
        is_test(&engine.join("plugins/default_preemption/tests.rs"))
            && is_test(&engine.join("plugins/inter_pod_affinity/filtering_tests.rs"))
            && is_test(&engine.join("plugins/dynamic_resources/upstream_tests/cel_cases.rs")),
        "test-only files not recognised: {test_files:?}"
    );
    let framework = engine.join("framework");
    let plugins = engine.join("plugins");
    let mut scanned = (0, 0);
    let mut out = Vec::new();
    for f in all.iter().filter(|f| !is_test(f)) {
        let (hops, forbidden): (&[&str], &[&str]) = if f.starts_with(&framework) {
            scanned.0 += 1;
            (&["super::super::"], &["plugins", "registry", "profile"])
        } else if f.starts_with(&plugins) {
            scanned.1 += 1;
            (&["super::super::", "super::super::super::"], &["registry", "profile"])
        } else {
            continue;
        };
        let text = std::fs::read_to_string(f).unwrap();
        for (n, stmt) in statements(&code_lines(&text)) {
            let builders = [
                "build_profiles",
                "::default_profile(",
                "::from_config(",
                "scheduler_plugins_profile",
            ];
            if forbidden.iter().any(|m| names_engine_module(&stmt, hops, m))
                || builders.iter().any(|b| stmt.contains(b))
            {
                out.push(format!("{}:{n}: {stmt}", f.display()));
            }
        }
    }
    assert!(scanned.0 >= 8 && scanned.1 >= 30, "too few files scanned: {scanned:?}");
    assert!(out.is_empty(), "engine layering violations:\n{}", out.join("\n"));
}
