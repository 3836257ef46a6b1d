//! Themes: `themes/<name>.yaml` files with colours and styles by role (semantic slots), read in
//! two layers — [`ThemeFile`] (serde, every field optional, unknown keys rejected) resolved into a
//! [`Theme`] of ratatui styles. The three bundled themes are compiled in, so `--theme light` works
//! from any directory; `--theme FILE` reads a file. `inherits:` takes another theme's slots and
//! palette (cycles are refused). Loading returns warnings (unused palette colours, slots left to
//! the built-in fallback) next to the theme; a test requires none for the bundled files.
//! `NO_COLOR` keeps only modifiers ([`Theme::monochrome`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

/// The bundled themes: (name, YAML).
pub const BUNDLED: &[(&str, &str)] = &[
    ("default", include_str!("../../themes/default.yaml")),
    ("light", include_str!("../../themes/light.yaml")),
    ("high-contrast", include_str!("../../themes/high-contrast.yaml")),
];

/// A style as written in a theme file.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct StyleSpec {
    /// Foreground: a colour name, `#rrggbb`, an index 0–255, or a palette name.
    #[serde(default)]
    pub fg: Option<String>,
    /// Background.
    #[serde(default)]
    pub bg: Option<String>,
    /// bold, dim, italic, underlined, reversed, crossed_out.
    #[serde(default)]
    pub modifiers: Vec<String>,
}

macro_rules! slots {
    ($( $name:ident : $doc:literal ),* $(,)?) => {
        /// The `styles:` section: one optional style per role.
        #[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
        #[serde(deny_unknown_fields)]
        pub struct StylesFile {
            $( #[doc = $doc] #[serde(default)] pub $name: Option<StyleSpec>, )*
        }

        /// A resolved theme: one ratatui style per role. Renderers pick a slot by meaning.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Theme {
            /// Theme name.
            pub name: String,
            $( #[doc = $doc] pub $name: Style, )*
            /// Colours for series (the stacked score bars, one per plugin).
            pub series: Vec<Color>,
        }

        /// The slot names, in file order.
        pub const SLOTS: &[&str] = &[$( stringify!($name) ),*];

        impl StylesFile {
            fn merged_over(self, parent: StylesFile) -> StylesFile {
                StylesFile { $( $name: self.$name.or(parent.$name), )* }
            }

            fn unset(&self) -> Vec<&'static str> {
                let mut v = Vec::new();
                $( if self.$name.is_none() { v.push(stringify!($name)); } )*
                v
            }

            fn specs(&self) -> Vec<(&'static str, &StyleSpec)> {
                let mut v = Vec::new();
                $( if let Some(s) = &self.$name { v.push((stringify!($name), s)); } )*
                v
            }

            fn resolve(&self, name: &str, palette: &BTreeMap<String, String>, series: Vec<Color>) -> Result<Theme> {
                Ok(Theme {
                    name: name.to_string(),
                    $( $name: match &self.$name {
                        Some(s) => resolve_style(s, concat!("styles.", stringify!($name)), palette)?,
                        None => fallback(stringify!($name)),
                    }, )*
                    series,
                })
            }
        }

        impl Theme {
            fn map_styles(&self, f: impl Fn(&'static str, Style) -> Style) -> Theme {
                Theme {
                    name: self.name.clone(),
                    $( $name: f(stringify!($name), self.$name), )*
                    series: self.series.clone(),
                }
            }
        }
    };
}

slots! {
    base: "Text and background of the whole screen.",
    border: "Panel borders.",
    title: "Panel titles.",
    header: "Table headers and the top bar.",
    selected: "The selected row.",
    muted: "Secondary text.",
    accent: "Emphasis: names, the current pod.",
    key: "Key names in hints and help.",
    ok: "Verdict: passes / fits.",
    warn: "Verdict: nearly fits, skipped, ties.",
    fail: "Verdict: fails.",
    search_match: "Characters matched by the search.",
    status: "The status line.",
    status_error: "An error in the status line.",
    gauge: "Resource gauge, filled part.",
    gauge_over: "Resource gauge over the allocatable amount (with this pod).",
    winner: "The selected node in the Score matrix.",
    tie: "Nodes tied with the winner.",
    heat_low: "Score heat: low.",
    heat_mid: "Score heat: middle.",
    heat_high: "Score heat: high.",
    step_current: "Pipeline bar: the current step.",
    step_pass: "Pipeline bar: a point that passed.",
    step_fail: "Pipeline bar: the point that stopped the pod.",
    step_idle: "Pipeline bar: not reached or not needed.",
    popup: "Dialogs and overlays.",
}

/// The file layer.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ThemeFile {
    /// Another theme (bundled name, or a file name next to this one) to start from.
    #[serde(default)]
    pub inherits: Option<String>,
    /// Named colours usable in styles and series.
    #[serde(default)]
    pub palette: BTreeMap<String, String>,
    /// Styles by role.
    #[serde(default)]
    pub styles: StylesFile,
    /// Series colours.
    #[serde(default)]
    pub series: Option<Vec<String>>,
}

/// Built-in style of a slot when no file sets it (also what NO_COLOR keeps as modifiers).
fn fallback(slot: &str) -> Style {
    let s = Style::default();
    match slot {
        "title" | "header" | "accent" | "winner" | "fail" | "step_fail" => s.add_modifier(Modifier::BOLD),
        "selected" | "step_current" | "status" => s.add_modifier(Modifier::REVERSED),
        "muted" | "step_idle" => s.add_modifier(Modifier::DIM),
        "search_match" | "tie" => s.add_modifier(Modifier::UNDERLINED),
        "status_error" => s.add_modifier(Modifier::BOLD | Modifier::REVERSED),
        _ => s,
    }
}

fn parse_color(v: &str, key: &str, palette: &BTreeMap<String, String>) -> Result<Color> {
    let raw = palette.get(v).map_or(v, String::as_str);
    raw.parse::<Color>().map_err(|_| {
        anyhow!(
            "at '{key}': unknown colour '{v}' (use a name such as 'red' or 'light-blue', '#rrggbb', an index 0-255, or a palette name{})",
            if palette.is_empty() {
                String::new()
            } else {
                format!(": {}", palette.keys().cloned().collect::<Vec<_>>().join(", "))
            }
        )
    })
}

const MODIFIERS: &[(&str, Modifier)] = &[
    ("bold", Modifier::BOLD),
    ("dim", Modifier::DIM),
    ("italic", Modifier::ITALIC),
    ("underlined", Modifier::UNDERLINED),
    ("reversed", Modifier::REVERSED),
    ("crossed_out", Modifier::CROSSED_OUT),
];

fn resolve_style(s: &StyleSpec, key: &str, palette: &BTreeMap<String, String>) -> Result<Style> {
    let mut st = Style::default();
    if let Some(fg) = &s.fg {
        st = st.fg(parse_color(fg, &format!("{key}.fg"), palette)?);
    }
    if let Some(bg) = &s.bg {
        st = st.bg(parse_color(bg, &format!("{key}.bg"), palette)?);
    }
    for m in &s.modifiers {
        let Some((_, md)) = MODIFIERS.iter().find(|(n, _)| n == m) else {
            bail!(
                "at '{key}.modifiers': unknown modifier '{m}' (valid: {})",
                MODIFIERS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            );
        };
        st = st.add_modifier(*md);
    }
    Ok(st)
}

/// Parses a theme file's text, naming the offending key on error.
pub fn parse_file(text: &str) -> Result<ThemeFile> {
    let de = serde_yaml::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let mut msg = e.into_inner().to_string();
        // serde_yaml already prefixes the enclosing map's path; keep only ours
        let parent = path.rsplit_once('.').map_or("", |(p, _)| p);
        for prefix in [path.as_str(), parent] {
            if !prefix.is_empty()
                && let Some(rest) = msg.strip_prefix(&format!("{prefix}: "))
            {
                msg = rest.to_string();
                break;
            }
        }
        if path == "." || path.is_empty() {
            anyhow!("{msg}")
        } else {
            anyhow!("at '{path}': {msg}")
        }
    })
}

/// Where a theme comes from.
#[derive(Clone, Debug)]
enum Origin {
    Bundled(&'static str),
    File(PathBuf),
}

fn bundled(name: &str) -> Option<&'static str> {
    BUNDLED.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

fn names() -> String {
    BUNDLED.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// Finds a theme: for `--theme`, a bundled name first, then a file path; for `inherits:`, a
/// file next to the inheriting one (`NAME` or `NAME.yaml`) first, then a bundled name.
fn locate(spec: &str, relative_to: Option<&Path>) -> Result<Origin> {
    let bundled_origin = BUNDLED
        .iter()
        .find(|(n, _)| *n == spec)
        .map(|(n, _)| Origin::Bundled(n));
    let p = PathBuf::from(spec);
    match relative_to {
        None => {
            if let Some(o) = bundled_origin {
                return Ok(o);
            }
            if p.is_file() {
                return Ok(Origin::File(p));
            }
        }
        Some(dir) => {
            let candidates = if p.is_relative() {
                vec![dir.join(&p), dir.join(format!("{spec}.yaml"))]
            } else {
                vec![p]
            };
            if let Some(found) = candidates.into_iter().find(|c| c.is_file()) {
                return Ok(Origin::File(found));
            }
            if let Some(o) = bundled_origin {
                return Ok(o);
            }
        }
    }
    let looks_like_path = spec.contains('/') || spec.ends_with(".yaml") || spec.ends_with(".yml");
    if looks_like_path {
        bail!("cannot read theme file '{spec}': no such file");
    }
    bail!("unknown theme '{spec}' (valid: {}, or a path to a .yaml file)", names())
}

/// The resolved file layer (inheritance applied) and its display name.
fn load_layers(spec: &str, relative_to: Option<&Path>, stack: &mut Vec<String>) -> Result<(ThemeFile, String, bool)> {
    let origin = locate(spec, relative_to)?;
    let (label, text, dir) = match &origin {
        Origin::Bundled(n) => ((*n).to_string(), bundled(n).unwrap_or_default().to_string(), None),
        Origin::File(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("cannot read theme file '{}'", p.display()))?;
            (p.display().to_string(), text, p.parent().map(Path::to_path_buf))
        }
    };
    if stack.contains(&label) {
        bail!(
            "theme '{label}': inherits forms a cycle ({} → {label})",
            stack.join(" → ")
        );
    }
    stack.push(label.clone());
    let file = parse_file(&text).with_context(|| format!("theme '{label}'"))?;
    let result = match file.inherits.clone() {
        None => (file, label.clone(), false),
        Some(parent) => {
            let (pf, _, _) = load_layers(&parent, dir.as_deref(), stack).with_context(|| format!("theme '{label}'"))?;
            let mut palette = pf.palette;
            palette.extend(file.palette);
            let merged = ThemeFile {
                inherits: None,
                palette,
                styles: file.styles.merged_over(pf.styles),
                series: file.series.or(pf.series),
            };
            (merged, label.clone(), true)
        }
    };
    stack.pop();
    Ok(result)
}

/// Loads a theme (`None`: the default) and returns it with its warnings.
pub fn load(spec: Option<&str>) -> Result<(Theme, Vec<String>)> {
    let spec = spec.unwrap_or("default");
    let mut stack = Vec::new();
    let own = {
        // the file's own text, for warnings about what it declares itself
        match locate(spec, None)? {
            Origin::Bundled(n) => parse_file(bundled(n).unwrap_or_default())?,
            Origin::File(p) => {
                let text =
                    std::fs::read_to_string(&p).with_context(|| format!("cannot read theme file '{}'", p.display()))?;
                parse_file(&text).with_context(|| format!("theme '{}'", p.display()))?
            }
        }
    };
    let (file, label, inherited) = load_layers(spec, None, &mut stack)?;
    let series_names = file.series.clone().unwrap_or_default();
    let series = series_names
        .iter()
        .enumerate()
        .map(|(i, c)| parse_color(c, &format!("series[{i}]"), &file.palette))
        .collect::<Result<Vec<_>>>()
        .with_context(|| format!("theme '{label}'"))?;
    let theme = file
        .styles
        .resolve(&label, &file.palette, series)
        .with_context(|| format!("theme '{label}'"))?;
    let mut warnings = Vec::new();
    if !inherited {
        let unset = file.styles.unset();
        if !unset.is_empty() {
            warnings.push(format!(
                "theme '{label}': slots not set (built-in fallback used): {}",
                unset.join(", ")
            ));
        }
    }
    if theme.series.is_empty() {
        warnings.push(format!("theme '{label}': 'series' is empty; score bars use one colour"));
    }
    let mut used: BTreeSet<&str> = BTreeSet::new();
    for (_, s) in file.styles.specs() {
        used.extend(s.fg.as_deref());
        used.extend(s.bg.as_deref());
    }
    used.extend(series_names.iter().map(String::as_str));
    for name in own.palette.keys() {
        if !used.contains(name.as_str()) {
            warnings.push(format!("theme '{label}': palette colour '{name}' is never used"));
        }
    }
    Ok((theme, warnings))
}

impl Theme {
    /// The same theme without colours (NO_COLOR): modifiers stay, and every slot keeps at least
    /// its built-in modifiers so selection and verdicts remain visible.
    pub fn monochrome(&self) -> Theme {
        let mut t = self.map_styles(|slot, s| {
            let mods = s.add_modifier | fallback(slot).add_modifier;
            Style::default().add_modifier(mods)
        });
        t.series = vec![Color::Reset];
        t
    }

    /// The colour of series `i` (cycling).
    pub fn series_color(&self, i: usize) -> Color {
        if self.series.is_empty() {
            Color::Reset
        } else {
            self.series[i % self.series.len()]
        }
    }
}

/// True when the NO_COLOR convention asks for no colours (set and not empty).
pub fn no_color(var: Option<&std::ffi::OsStr>) -> bool {
    var.is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn themes_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("themes")
    }

    #[test]
    fn every_theme_file_loads_without_warnings() {
        let mut n = 0;
        for entry in std::fs::read_dir(themes_dir()).expect("themes/") {
            let p = entry.expect("entry").path();
            if p.extension().is_some_and(|e| e == "yaml") {
                let (t, w) = load(Some(p.to_str().expect("utf-8 path"))).expect("theme loads");
                assert!(w.is_empty(), "{}: {w:?}", p.display());
                assert!(!t.series.is_empty());
                n += 1;
            }
        }
        assert!(n >= 3, "expected the three bundled themes, found {n}");
    }

    #[test]
    fn bundled_names_match_the_files() {
        for (name, text) in BUNDLED {
            let on_disk = std::fs::read_to_string(themes_dir().join(format!("{name}.yaml"))).expect("file");
            assert_eq!(&on_disk, text);
            let (t, w) = load(Some(name)).expect("loads");
            assert!(w.is_empty(), "{name}: {w:?}");
            assert_eq!(t.name, *name);
        }
    }

    #[test]
    fn unknown_key_is_named() {
        let e = parse_file("styles:\n  okk: {fg: green}\n").expect_err("unknown slot");
        let msg = format!("{e:#}");
        assert!(msg.starts_with("at 'styles.okk': unknown field `okk`"), "{msg}");
        let e = parse_file("styles:\n  ok: {fg: green, colour: red}\n").expect_err("unknown field");
        assert!(
            format!("{e:#}").starts_with("at 'styles.ok.colour': unknown field `colour`"),
            "{e:#}"
        );
        let e = parse_file("colours: {}\n").expect_err("unknown top-level key");
        assert!(format!("{e:#}").contains("unknown field `colours`"), "{e:#}");
    }

    #[test]
    fn bad_colour_and_modifier_are_named() {
        let dir = std::env::temp_dir().join(format!("kschedtui-theme-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let f = dir.join("bad.yaml");
        std::fs::write(&f, "inherits: default\nstyles:\n  fail: {fg: reed}\n").expect("write");
        let e = load(Some(f.to_str().expect("path"))).expect_err("bad colour");
        assert!(
            format!("{e:#}").contains("at 'styles.fail.fg': unknown colour 'reed'"),
            "{e:#}"
        );
        std::fs::write(&f, "inherits: default\nstyles:\n  fail: {modifiers: [blinky]}\n").expect("write");
        let e = load(Some(f.to_str().expect("path"))).expect_err("bad modifier");
        assert!(
            format!("{e:#}").contains("at 'styles.fail.modifiers': unknown modifier 'blinky'"),
            "{e:#}"
        );
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn inherits_palette_and_cycles() {
        let dir = std::env::temp_dir().join(format!("kschedtui-theme-inh-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(
            dir.join("a.yaml"),
            "inherits: b\nstyles:\n  ok: {fg: mint}\npalette: {mint: '#00ff99'}\n",
        )
        .expect("write");
        std::fs::write(dir.join("b.yaml"), "inherits: a\n").expect("write");
        let e = load(Some(dir.join("a.yaml").to_str().expect("path"))).expect_err("cycle");
        assert!(format!("{e:#}").contains("inherits forms a cycle"), "{e:#}");
        std::fs::write(dir.join("b.yaml"), "inherits: light\nstyles:\n  fail: {fg: magenta}\n").expect("write");
        let (t, w) = load(Some(dir.join("a.yaml").to_str().expect("path"))).expect("loads");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(t.ok.fg, Some(Color::Rgb(0, 0xff, 0x99)));
        assert_eq!(t.fail.fg, Some(Color::Magenta));
        let light = load(Some("light")).expect("light").0;
        assert_eq!(t.border, light.border);
        std::fs::write(dir.join("c.yaml"), "palette: {unused: red}\nseries: [red]\n").expect("write");
        let (_, w) = load(Some(dir.join("c.yaml").to_str().expect("path"))).expect("loads");
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("slots not set"));
        assert!(w[1].ends_with("palette colour 'unused' is never used"));
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn unknown_name_lists_the_valid_ones() {
        let e = load(Some("solarized")).expect_err("unknown");
        assert_eq!(
            format!("{e:#}"),
            "unknown theme 'solarized' (valid: default, light, high-contrast, or a path to a .yaml file)"
        );
        let e = load(Some("./nope.yaml")).expect_err("missing file");
        assert_eq!(format!("{e:#}"), "cannot read theme file './nope.yaml': no such file");
    }

    #[test]
    fn monochrome_keeps_modifiers_only() {
        let (t, _) = load(None).expect("default");
        let m = t.monochrome();
        assert_eq!(m.selected.fg, None);
        assert_eq!(m.selected.bg, None);
        assert!(m.selected.add_modifier.contains(Modifier::REVERSED));
        assert!(m.fail.add_modifier.contains(Modifier::BOLD));
        assert!(no_color(Some(std::ffi::OsStr::new("1"))));
        assert!(!no_color(Some(std::ffi::OsStr::new(""))));
        assert!(!no_color(None));
    }
}
