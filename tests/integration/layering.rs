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

/// The files under `src` that are test code throughout: those declared `#[cfg(test)] mod
/// name;` (or with a `#[path]`), with the files of their own child modules.
fn test_only_files(src: &Path) -> std::collections::BTreeSet<std::path::PathBuf> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out = std::collections::BTreeSet::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for (i, l) in lines.iter().enumerate() {
            if !l.starts_with("#[cfg(test)]") {
                continue;
            }
            let (mut j, mut item, mut path) = (i, l.trim_start_matches("#[cfg(test)]").trim(), None);
            while item.is_empty() || item.starts_with("#[") {
                if let Some(p) = item.strip_prefix("#[path = \"") {
                    path = p.split('"').next().map(str::to_string);
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
            let dir = module_dir(f);
            let file = match path {
                Some(p) => f.parent().unwrap().join(p),
                None if dir.join(format!("{name}.rs")).exists() => dir.join(format!("{name}.rs")),
                None => dir.join(name).join("mod.rs"),
            };
            out.insert(module_dir(&file));
            out.insert(file);
        }
    }
    out
}

/// The directory holding the files of `file`'s child modules.
fn module_dir(file: &Path) -> std::path::PathBuf {
    let dir = file.parent().unwrap().to_path_buf();
    match file.file_name().and_then(|n| n.to_str()) {
        Some("mod.rs" | "lib.rs") => dir,
        _ => dir.join(file.file_stem().unwrap()),
    }
}

/// `a::{b, c::{d, e as f}}` as (path, name bound): (`a::b`, `b`), (`a::c::d`, `d`),
/// (`a::c::e`, `f`).
fn expand_use(tree: &str) -> Vec<(String, String)> {
    fn go(prefix: &str, s: &str, out: &mut Vec<(String, String)>) {
        let Some(open) = s.find('{') else {
            let (path, alias) = match s.split_once(" as ") {
                Some((p, a)) => (p.trim(), Some(a.trim())),
                None => (s.trim(), None),
            };
            let path = format!("{prefix}{path}");
            let path = path.trim_end_matches("::self").to_string();
            let name = alias.map_or_else(|| path.rsplit("::").next().unwrap_or("").to_string(), str::to_string);
            out.push((path, name));
            return;
        };
        let head = s[..open].trim();
        let inner = &s[open + 1..s.rfind('}').unwrap_or(s.len())];
        let (mut depth, mut part) = (0, String::new());
        for c in inner.chars().chain([',']) {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    if !part.trim().is_empty() {
                        go(&format!("{prefix}{head}"), part.trim(), out);
                    }
                    part.clear();
                    continue;
                }
                _ => {}
            }
            part.push(c);
        }
    }
    let s: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let s = s
        .replace(":: ", "::")
        .replace(" ::", "::")
        .replace("{ ", "{")
        .replace(" }", "}");
    let mut out = Vec::new();
    go("", &s, &mut out);
    out
}

/// A statement's `use` tree (after `use` and its visibility), if it is one.
fn use_tree(stmt: &str) -> Option<&str> {
    let t = stmt.trim_start();
    let t = t
        .strip_prefix("pub(crate) ")
        .or_else(|| t.strip_prefix("pub(super) "))
        .or_else(|| t.strip_prefix("pub "))
        .unwrap_or(t);
    Some(t.strip_prefix("use ")?.trim_end().trim_end_matches(';'))
}

/// Every path a production statement names: its `use` tree expanded, or each `a::b::c` written
/// in its code.
fn named_paths(stmt: &str) -> Vec<String> {
    if let Some(tree) = use_tree(stmt) {
        return expand_use(tree).into_iter().map(|(p, _)| p).collect();
    }
    let b = stmt.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // a path starts at a word not preceded by `::`, a word or a quote
        if word(b[i]) && (i == 0 || !(word(b[i - 1]) || b[i - 1] == b':' || b[i - 1] == b'"')) {
            let mut end = i;
            while end < b.len() && (word(b[end]) || (b[end] == b':' && b.get(end + 1) == Some(&b':'))) {
                end += if b[end] == b':' { 2 } else { 1 };
            }
            let p = stmt[i..end].trim_end_matches(':');
            if p.contains("::") {
                out.push(p.to_string());
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// No two production files of src import each other, directly or through others: each file's
/// `use` statements and the paths written in its code are resolved to the file of the module
/// named (through re-exports, `pub use`), and the graph of files must be acyclic. A module's
/// file naming its own child modules (a `mod.rs` dispatching to its parts) is not an import.
#[test]
fn no_import_cycle_between_files() {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::PathBuf;

    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let tests = test_only_files(&src);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .retain(|f| !tests.iter().any(|t| f.starts_with(t)) && !f.ends_with("tests.rs") && !f.ends_with("src/main.rs"));
    let module_of = |f: &Path| -> String {
        let rel = f.strip_prefix(&src).unwrap().with_extension("");
        let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
            parts.pop();
        }
        parts.join("::")
    };
    let by_module: BTreeMap<String, PathBuf> = files.iter().map(|f| (module_of(f), f.clone())).collect();
    let statements = |text: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut open: Option<String> = None;
        for (_, line) in production_lines(text) {
            let code = line.split("//").next().unwrap_or_default().trim();
            if let Some(mut s) = open.take() {
                s.push(' ');
                s.push_str(code);
                if code.ends_with(';') {
                    out.push(s);
                } else {
                    open = Some(s);
                }
            } else if use_tree(code).is_some() && !code.ends_with(';') {
                open = Some(code.to_string());
            } else {
                out.push(code.to_string());
            }
        }
        out
    };
    // `p` as written in module `m`, made absolute; None for std and other crates.
    let absolute = |m: &str, p: &str| -> Option<String> {
        let mut base: Vec<&str> = if m.is_empty() {
            Vec::new()
        } else {
            m.split("::").collect()
        };
        let mut rest = p;
        if let Some(r) = rest.strip_prefix("crate::") {
            base.clear();
            rest = r;
        } else if let Some(r) = rest.strip_prefix("self::") {
            rest = r;
        } else if rest.starts_with("super::") {
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop()?;
                rest = r;
            }
        } else {
            // a child module of `m`, or another crate
            let first = rest.split("::").next()?;
            let child = if m.is_empty() {
                first.to_string()
            } else {
                format!("{m}::{first}")
            };
            by_module.get(&child)?;
        }
        let mut v = base;
        v.extend(rest.split("::").filter(|s| !s.is_empty()));
        Some(v.join("::"))
    };
    let texts: BTreeMap<&PathBuf, String> = files.iter().map(|f| (f, std::fs::read_to_string(f).unwrap())).collect();
    // re-exports: module → name bound → absolute path
    let mut reexports: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for f in &files {
        let m = module_of(f);
        for s in statements(&texts[f]) {
            if !s.starts_with("pub") {
                continue;
            }
            for (p, name) in use_tree(&s).map(expand_use).unwrap_or_default() {
                if let Some(target) = absolute(&m, &p) {
                    reexports.entry(m.clone()).or_default().insert(name, target);
                }
            }
        }
    }
    fn resolve(
        path: &str,
        by_module: &BTreeMap<String, PathBuf>,
        reexports: &BTreeMap<String, BTreeMap<String, String>>,
        depth: usize,
    ) -> Option<PathBuf> {
        let segs: Vec<&str> = path.split("::").collect();
        for n in (0..=segs.len()).rev() {
            let m = segs[..n].join("::");
            let Some(f) = by_module.get(&m) else { continue };
            if depth < 8
                && let Some(next) = segs.get(n)
                && let Some(target) = reexports.get(&m).and_then(|r| r.get(*next))
            {
                let t = std::iter::once(target.as_str())
                    .chain(segs[n + 1..].iter().copied())
                    .collect::<Vec<_>>()
                    .join("::");
                if t != path {
                    return resolve(&t, by_module, reexports, depth + 1);
                }
            }
            return Some(f.clone());
        }
        None
    }
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for f in &files {
        let m = module_of(f);
        let mut to = BTreeSet::new();
        for s in statements(&texts[f]) {
            for p in named_paths(&s) {
                // A module's file naming its own child modules uses its parts (as the
                // module tree says), not an import: only the arrows between modules count.
                if let Some(abs) = absolute(&m, &p)
                    && let Some(g) = resolve(&abs, &by_module, &reexports, 0)
                    && g != *f
                    && !g.starts_with(module_dir(f))
                {
                    to.insert(g);
                }
            }
        }
        edges.insert(f.clone(), to);
    }
    // Tarjan's strongly connected components.
    struct Walk<'a> {
        edges: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on: BTreeSet<&'a PathBuf>,
        out: Vec<Vec<&'a PathBuf>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a PathBuf) {
        let i = w.index.len();
        w.index.insert(v, i);
        w.low.insert(v, i);
        w.stack.push(v);
        w.on.insert(v);
        for u in w.edges.get(v).into_iter().flatten() {
            let Some((u, _)) = w.edges.get_key_value(u) else {
                continue;
            };
            if !w.index.contains_key(u) {
                visit(w, u);
                let l = w.low[u].min(w.low[v]);
                w.low.insert(v, l);
            } else if w.on.contains(u) {
                let l = w.index[u].min(w.low[v]);
                w.low.insert(v, l);
            }
        }
        if w.low[v] == w.index[v] {
            let mut c = Vec::new();
            while let Some(u) = w.stack.pop() {
                w.on.remove(u);
                c.push(u);
                if u == v {
                    break;
                }
            }
            if c.len() > 1 {
                w.out.push(c);
            }
        }
    }
    let mut w = Walk {
        edges: &edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for f in edges.keys() {
        if !w.index.contains_key(f) {
            visit(&mut w, f);
        }
    }
    let rel = |f: &Path| f.strip_prefix(&src).unwrap().display().to_string();
    let cycles: Vec<String> = w
        .out
        .iter()
        .map(|c| {
            c.iter()
                .map(|f| {
                    let to: Vec<String> = edges[*f].iter().filter(|g| c.contains(g)).map(|g| rel(g)).collect();
                    format!("{} -> {}", rel(f), to.join(", "))
                })
                .collect::<Vec<_>>()
                .join("\n  ")
        })
        .collect();
    let imports: usize = edges.values().map(BTreeSet::len).sum();
    assert!(
        files.len() > 150 && imports > 1000,
        "only {} files, {imports} imports read",
        files.len()
    );
    assert!(
        cycles.is_empty(),
        "import cycles between files:\n  {}",
        cycles.join("\n\n  ")
    );
}

#[test]
fn use_trees_and_written_paths_are_read() {
    let got = expand_use("super::{a, b::{c, d as e}, f::self}");
    let want = [
        ("super::a", "a"),
        ("super::b::c", "c"),
        ("super::b::d", "e"),
        ("super::f", "f"),
    ];
    assert_eq!(got, want.map(|(p, n)| (p.to_string(), n.to_string())));
    assert_eq!(
        named_paths("let x = crate::engine::framework::parallel::map(a, \"s::t\", super::b::C::new());"),
        ["crate::engine::framework::parallel::map", "super::b::C::new"]
    );
    assert_eq!(named_paths("pub(crate) use child::{X, Y};"), ["child::X", "child::Y"]);
}

/// The model and the engine keep no state per thread: what a load or a cycle makes depends
/// on its input alone, not on which thread ran last, and nothing outlives the call on a
/// thread (the loader owns what it shares and drops it).
#[test]
fn no_thread_local_state_in_model_or_engine() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut checked = 0;
    for layer in ["model", "engine"] {
        let mut files = Vec::new();
        rust_files(&src.join(layer), &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for (n, line) in production_lines(&text) {
                let code = line.split("//").next().unwrap_or_default();
                if code.contains("thread_local!") || code.contains("LocalKey") {
                    out.push(format!("{}:{n}: {}", f.display(), line.trim()));
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "only {checked} lines checked");
    assert!(
        out.is_empty(),
        "state per thread in the model or the engine:\n{}",
        out.join("\n")
    );
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
