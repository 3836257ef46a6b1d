//! Themes: `themes/<name>.yaml` files with colours and styles by role (semantic slots), read in
//! two layers — [`ThemeFile`] (serde, every field optional, unknown keys rejected) resolved into a
//! [`Theme`] of ratatui styles. The three bundled themes are compiled in, so `--theme light` works
//! from any directory; `--theme FILE` reads a file. `inherits:` takes another theme's slots and
//! palette (cycles are refused). Loading returns warnings (unused palette colours, slots left to
//! the built-in fallback) next to the theme; a test requires none for the bundled files.
//! `NO_COLOR` keeps only modifiers ([`Theme::monochrome`]).
//!
//! Colour depth: `#rrggbb` needs a truecolor terminal. Unless `COLORTERM` is `truecolor` or
//! `24bit`, every `Color::Rgb` of the resolved theme becomes the nearest xterm-256 colour (the
//! 6×6×6 cube or the grey ramp, whichever is nearer); `KSCHEDTUI_COLORS=truecolor|24bit|256|auto`
//! overrides the guess (`color_depth`, a pure function of the two values, and `Theme::to_256`).
//!
//! Contrast: a test holds every bundled theme, as written and as 256 colours, to a WCAG 2.x
//! contrast ratio of 4.5 wherever the renderers draw text — each text slot on the screen, the
//! slots of the status bar and of dialogs on theirs, a table's cells under the selected row's
//! highlight — with the exemptions (decorative slots) listed in the test. Named colours are
//! measured on xterm's default palette (`XTERM_16`), whatever the user's terminal really shows.

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

            /// Every slot's style by name, in file order.
            #[cfg(test)]
            fn slots(&self) -> Vec<(&'static str, Style)> {
                vec![$( (stringify!($name), self.$name) ),*]
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

    /// The same theme for a terminal without truecolor ([`ColorDepth::Indexed256`]): every
    /// `Color::Rgb` of the styles and series becomes the nearest xterm-256 colour
    /// ([`nearest_256`]); named and indexed colours stay as they are.
    pub(crate) fn to_256(&self) -> Theme {
        let mut t = self.map_styles(|_, mut s| {
            s.fg = s.fg.map(to_indexed);
            s.bg = s.bg.map(to_indexed);
            s
        });
        t.series = self.series.iter().copied().map(to_indexed).collect();
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

/// `text` drawn inside a marker (the queue's current pod, the winner's row): when the marker
/// sets a background its colours win, as a table's row highlight does (its foreground was chosen
/// for that background); a marker without a background only adds to the text's style.
pub(crate) fn marked(text: Style, marker: Style) -> Style {
    if marker.bg.is_some() {
        text.patch(marker)
    } else {
        marker.patch(text)
    }
}

/// How many colours the terminal shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ColorDepth {
    /// 24-bit colour: `#rrggbb` as written.
    TrueColor,
    /// The xterm-256 palette: `#rrggbb` drawn as the nearest of its colours ([`Theme::to_256`]).
    Indexed256,
}

/// The colour depth to draw with, from the environment's values: `KSCHEDTUI_COLORS` (`forced`)
/// is `truecolor` or `24bit`, `256`, or `auto` (empty or unset is `auto`); `auto` is truecolor
/// when `COLORTERM` says `truecolor` or `24bit`, else 256 colours. Another value is an error.
pub(crate) fn color_depth(forced: Option<&std::ffi::OsStr>, colorterm: Option<&std::ffi::OsStr>) -> Result<ColorDepth> {
    let is = |v: &std::ffi::OsStr, names: &[&str]| names.iter().any(|n| v.eq_ignore_ascii_case(n));
    match forced {
        Some(v) if is(v, &["truecolor", "24bit"]) => return Ok(ColorDepth::TrueColor),
        Some(v) if is(v, &["256"]) => return Ok(ColorDepth::Indexed256),
        Some(v) if !v.is_empty() && !is(v, &["auto"]) => bail!(
            "KSCHEDTUI_COLORS={}: unknown colour depth (valid: truecolor, 24bit, 256, auto)",
            v.to_string_lossy()
        ),
        _ => {}
    }
    Ok(if colorterm.is_some_and(|v| is(v, &["truecolor", "24bit"])) {
        ColorDepth::TrueColor
    } else {
        ColorDepth::Indexed256
    })
}

/// An sRGB colour, 8 bits a channel.
type Srgb = (u8, u8, u8);

/// The reference palette for the 16 named colours, whose real values each terminal chooses:
/// xterm's defaults (its `XTerm-col.ad` resources), in ANSI order from black (0) to white (15).
/// The contrast test measures named colours with it; what is drawn stays a named colour.
const XTERM_16: [Srgb; 16] = [
    (0x00, 0x00, 0x00), // black
    (0xcd, 0x00, 0x00), // red
    (0x00, 0xcd, 0x00), // green
    (0xcd, 0xcd, 0x00), // yellow
    (0x00, 0x00, 0xee), // blue
    (0xcd, 0x00, 0xcd), // magenta
    (0x00, 0xcd, 0xcd), // cyan
    (0xe5, 0xe5, 0xe5), // gray (ANSI white)
    (0x7f, 0x7f, 0x7f), // dark-gray (bright black)
    (0xff, 0x00, 0x00), // light-red
    (0x00, 0xff, 0x00), // light-green
    (0xff, 0xff, 0x00), // light-yellow
    (0x5c, 0x5c, 0xff), // light-blue
    (0xff, 0x00, 0xff), // light-magenta
    (0x00, 0xff, 0xff), // light-cyan
    (0xff, 0xff, 0xff), // white (bright white)
];

/// The six levels of each channel in the xterm-256 colour cube (indices 16–231).
const CUBE_LEVELS: [u8; 6] = [0x00, 0x5f, 0x87, 0xaf, 0xd7, 0xff];

/// The RGB value of an xterm-256 index: 0–15 from [`XTERM_16`], 16–231 the 6×6×6 cube
/// (16 + 36·r + 6·g + b over [`CUBE_LEVELS`]), 232–255 the grey ramp 8, 18, …, 238.
pub(crate) fn indexed_rgb(i: u8) -> Srgb {
    match i {
        0..=15 => XTERM_16[usize::from(i)],
        16..=231 => {
            let c = i - 16;
            let level = |n: u8| CUBE_LEVELS[usize::from(n)];
            (level(c / 36), level(c / 6 % 6), level(c % 6))
        }
        232..=255 => {
            let g = 8 + 10 * (i - 232);
            (g, g, g)
        }
    }
}

/// The RGB value a colour is drawn with on the reference palette; `None` for `Reset` (the
/// terminal's own foreground or background).
#[cfg(test)]
pub(crate) fn rgb_of(c: Color) -> Option<Srgb> {
    let named = |i: u8| Some(XTERM_16[usize::from(i)]);
    match c {
        Color::Reset => None,
        Color::Black => named(0),
        Color::Red => named(1),
        Color::Green => named(2),
        Color::Yellow => named(3),
        Color::Blue => named(4),
        Color::Magenta => named(5),
        Color::Cyan => named(6),
        Color::Gray => named(7),
        Color::DarkGray => named(8),
        Color::LightRed => named(9),
        Color::LightGreen => named(10),
        Color::LightYellow => named(11),
        Color::LightBlue => named(12),
        Color::LightMagenta => named(13),
        Color::LightCyan => named(14),
        Color::White => named(15),
        Color::Indexed(i) => Some(indexed_rgb(i)),
        Color::Rgb(r, g, b) => Some((r, g, b)),
    }
}

/// WCAG 2.x relative luminance of an sRGB colour (0 black to 1 white), with WCAG's 0.03928
/// linear-segment threshold (sRGB's 0.04045 gives the same for 8-bit values).
#[cfg(test)]
pub(crate) fn relative_luminance((r, g, b): Srgb) -> f64 {
    let linear = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

/// WCAG 2.x contrast ratio of two colours, (L1 + 0.05) / (L2 + 0.05) with L1 the lighter:
/// 1 (the same) to 21 (black on white). Text needs 4.5 (level AA). Only the tests measure
/// contrast, so this, [`relative_luminance`] and [`rgb_of`] are built for them alone.
#[cfg(test)]
pub(crate) fn contrast_ratio(a: Srgb, b: Srgb) -> f64 {
    let (la, lb) = (relative_luminance(a), relative_luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// The xterm-256 index nearest to an RGB colour: the nearer, by squared distance in sRGB, of
/// the 6×6×6 cube's colour (each channel at its nearest level) and the grey ramp's nearest grey
/// (232–255); the cube on a tie. 0–15 are never chosen, as each terminal sets those itself.
pub(crate) fn nearest_256(r: u8, g: u8, b: u8) -> u8 {
    let dist = |(x, y, z): Srgb| {
        [(r, x), (g, y), (b, z)]
            .iter()
            .map(|&(a, b)| (i32::from(a) - i32::from(b)).pow(2))
            .sum::<i32>()
    };
    let level = |c: u8| {
        (0u8..6)
            .min_by_key(|&n| (i32::from(CUBE_LEVELS[usize::from(n)]) - i32::from(c)).abs())
            .unwrap_or(0)
    };
    let cube = 16 + 36 * level(r) + 6 * level(g) + level(b);
    let grey = (232u8..=255).min_by_key(|&i| dist(indexed_rgb(i))).unwrap_or(232);
    if dist(indexed_rgb(grey)) < dist(indexed_rgb(cube)) {
        grey
    } else {
        cube
    }
}

/// A colour as drawn on a 256-colour terminal: `Rgb` becomes the nearest index, others stay.
fn to_indexed(c: Color) -> Color {
    match c {
        Color::Rgb(r, g, b) => Color::Indexed(nearest_256(r, g, b)),
        other => other,
    }
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
        let tmp = tempfile::Builder::new()
            .prefix("kschedtui-theme-")
            .tempdir()
            .expect("dir");
        let dir = tmp.path();
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
    }

    #[test]
    fn inherits_palette_and_cycles() {
        let tmp = tempfile::Builder::new()
            .prefix("kschedtui-theme-inh-")
            .tempdir()
            .expect("dir");
        let dir = tmp.path();
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

    #[test]
    fn contrast_ratio_follows_wcag() {
        assert_eq!(contrast_ratio((0, 0, 0), (255, 255, 255)), 21.0);
        assert_eq!(contrast_ratio((255, 255, 255), (0, 0, 0)), 21.0);
        assert_eq!(contrast_ratio((0x12, 0x34, 0x56), (0x12, 0x34, 0x56)), 1.0);
        let two = |x: f64| (x * 100.0).round() / 100.0;
        // the usual reference pair: #777777 just misses 4.5 on white, #767676 just makes it
        assert_eq!(two(contrast_ratio((0x77, 0x77, 0x77), (255, 255, 255))), 4.48);
        assert_eq!(two(contrast_ratio((0x76, 0x76, 0x76), (255, 255, 255))), 4.54);
        assert_eq!(two(contrast_ratio((0xff, 0xff, 0x00), (255, 255, 255))), 1.07);
        assert_eq!(relative_luminance((255, 0, 0)), 0.2126);
        assert_eq!(relative_luminance((0, 0, 0)), 0.0);
    }

    #[test]
    fn named_and_indexed_colours_have_xterm_values() {
        assert_eq!(rgb_of(Color::Reset), None);
        assert_eq!(rgb_of(Color::Black), Some((0, 0, 0)));
        assert_eq!(rgb_of(Color::Gray), Some((0xe5, 0xe5, 0xe5)));
        assert_eq!(rgb_of(Color::DarkGray), Some((0x7f, 0x7f, 0x7f)));
        assert_eq!(rgb_of(Color::LightYellow), Some((0xff, 0xff, 0x00)));
        assert_eq!(rgb_of(Color::LightBlue), Some((0x5c, 0x5c, 0xff)));
        assert_eq!(rgb_of(Color::White), Some((0xff, 0xff, 0xff)));
        assert_eq!(rgb_of(Color::Indexed(9)), rgb_of(Color::LightRed));
        assert_eq!(rgb_of(Color::Rgb(1, 2, 3)), Some((1, 2, 3)));
        assert_eq!(indexed_rgb(16), (0, 0, 0));
        assert_eq!(indexed_rgb(67), (0x5f, 0x87, 0xaf));
        assert_eq!(indexed_rgb(196), (0xff, 0, 0));
        assert_eq!(indexed_rgb(231), (0xff, 0xff, 0xff));
        assert_eq!(indexed_rgb(232), (8, 8, 8));
        assert_eq!(indexed_rgb(244), (128, 128, 128));
        assert_eq!(indexed_rgb(255), (238, 238, 238));
    }

    #[test]
    fn rgb_maps_to_the_nearest_xterm_256_colour() {
        let cases = [
            ((0xff, 0x00, 0x00), 196), // the cube's red
            ((0x80, 0x80, 0x80), 244), // exactly grey 244 (the cube's nearest, #878787, is 7 off)
            ((0x00, 0x00, 0x00), 16),
            ((0xff, 0xff, 0xff), 231),
            ((0x08, 0x08, 0x08), 232),
            ((0xee, 0xee, 0xee), 255),
            ((0x5f, 0x87, 0xaf), 67),  // a cube colour maps to itself
            ((0x7a, 0xa2, 0xf7), 111), // the default theme's blue → #87afff
            ((0xd0, 0xd7, 0xe2), 188), // its text → #d7d7d7
            ((0x1f, 0x23, 0x35), 235), // its status bar → grey #262626
            ((0xdd, 0xf4, 0xff), 195), // the light theme's selection → #d7ffff
            ((0x72, 0x72, 0x72), 243), // mean 114: grey 118 (#767676) beats the cube's #5f5f5f
        ];
        for ((r, g, b), want) in cases {
            assert_eq!(nearest_256(r, g, b), want, "#{r:02x}{g:02x}{b:02x}");
        }
        // every cube and ramp colour maps back to its own index
        for i in 16..=255u8 {
            let (r, g, b) = indexed_rgb(i);
            assert_eq!(nearest_256(r, g, b), i);
        }
    }

    #[test]
    fn colour_depth_comes_from_colorterm_unless_forced() {
        let os = |s: &'static str| Some(std::ffi::OsStr::new(s));
        assert_eq!(
            color_depth(None, os("truecolor")).expect("depth"),
            ColorDepth::TrueColor
        );
        assert_eq!(color_depth(None, os("24bit")).expect("depth"), ColorDepth::TrueColor);
        assert_eq!(color_depth(None, None).expect("depth"), ColorDepth::Indexed256);
        assert_eq!(color_depth(None, os("")).expect("depth"), ColorDepth::Indexed256);
        assert_eq!(color_depth(None, os("yes")).expect("depth"), ColorDepth::Indexed256);
        assert_eq!(
            color_depth(os("256"), os("truecolor")).expect("depth"),
            ColorDepth::Indexed256
        );
        assert_eq!(
            color_depth(os("truecolor"), None).expect("depth"),
            ColorDepth::TrueColor
        );
        assert_eq!(color_depth(os("24bit"), None).expect("depth"), ColorDepth::TrueColor);
        assert_eq!(
            color_depth(os("auto"), os("truecolor")).expect("depth"),
            ColorDepth::TrueColor
        );
        assert_eq!(color_depth(os(""), None).expect("depth"), ColorDepth::Indexed256);
        let e = color_depth(os("16"), os("truecolor")).expect_err("unknown depth");
        assert_eq!(
            format!("{e:#}"),
            "KSCHEDTUI_COLORS=16: unknown colour depth (valid: truecolor, 24bit, 256, auto)"
        );
    }

    #[test]
    fn a_256_colour_theme_has_no_rgb_left() {
        for (name, _) in BUNDLED {
            let t = load(Some(name)).expect("loads").0;
            let c = t.to_256();
            for ((slot, before), (_, after)) in t.slots().into_iter().zip(c.slots()) {
                for (b, a) in [(before.fg, after.fg), (before.bg, after.bg)] {
                    match (b, a) {
                        (Some(Color::Rgb(r, g, bl)), Some(Color::Indexed(i))) => {
                            assert_eq!(i, nearest_256(r, g, bl), "{name}.{slot}");
                        }
                        (b, a) => assert_eq!(b, a, "{name}.{slot}: only Rgb changes"),
                    }
                }
                assert_eq!(before.add_modifier, after.add_modifier, "{name}.{slot}");
            }
            assert_eq!(c.series.len(), t.series.len());
            // nothing anywhere in it (series, any other colour of a style) is Rgb any more
            assert!(!format!("{c:?}").contains("Rgb("), "{name}: {c:?}");
        }
        let d = load(None).expect("default").0.to_256();
        assert_eq!(d.base.fg, Some(Color::Indexed(188)));
        assert_eq!(d.series[0], Color::Indexed(111));
    }

    /// Slots drawn as glyphs without text, left out of the contrast check: (slot, why).
    /// (Series colours are not checked either: they draw the legend's `■` and the score bars.)
    const DECORATIVE: &[(&str, &str)] = &[
        (
            "border",
            "box-drawing lines only (view::block, the pod list's gap rule); titles use `title`",
        ),
        (
            "gauge",
            "the used part of a node's resource gauge, `█` only (node_view::gauge)",
        ),
        (
            "gauge_over",
            "a gauge's part over the allocatable amount, `▒` only (node_view::gauge)",
        ),
    ];

    /// The slots drawn on the top bar and the status line, over `status` (view::header,
    /// view::status_bar, view::hints_line).
    const ON_STATUS: &[&str] = &[
        "status",
        "status_error",
        "key",
        "muted",
        "accent",
        "header",
        "warn",
        "ok",
        "fail",
    ];

    /// The slots drawn in dialogs and the help, over `popup` on a cleared area (view::dialogs,
    /// view::help): block titles, the texts, the focused what-if field.
    const IN_POPUP: &[&str] = &[
        "popup", "title", "header", "muted", "key", "accent", "warn", "fail", "base", "selected",
    ];

    /// The slots drawn in a table's rows, which the row highlight (`selected`) patches over
    /// when the row is the selected one.
    const IN_TABLE_ROWS: &[&str] = &[
        "base",
        "muted",
        "accent",
        "key",
        "ok",
        "warn",
        "fail",
        "search_match",
        "winner",
        "tie",
        "heat_low",
        "heat_mid",
        "heat_high",
    ];

    /// The terminal's own colours a theme is checked on where it leaves them to the terminal
    /// (`Reset`, as under a `base` without a background or in a cleared dialog):
    /// (theme, foreground, background, why these).
    const TERMINAL: &[(&str, Srgb, Srgb, &str)] = &[
        (
            "default",
            (0xc0, 0xca, 0xf5),
            (0x1a, 0x1b, 0x26),
            "made for dark terminals: Tokyo Night's, where its palette comes from (lighter than black, so stricter for light text)",
        ),
        (
            "light",
            (0x00, 0x00, 0x00),
            (0xff, 0xff, 0xff),
            "made for light terminals: xterm's own black on white",
        ),
    ];

    /// Every place a theme draws text, as the renderers layer styles (each patched over the
    /// cells below; the screen starts as the terminal's colours): (what, style).
    fn text_places(t: &Theme) -> Vec<(String, Style)> {
        let styles = t.slots();
        let slot = |n: &str| {
            styles
                .iter()
                .find(|(s, _)| *s == n)
                .map(|(_, st)| *st)
                .unwrap_or_else(|| panic!("no slot '{n}'"))
        };
        let on = |layers: &[Style]| layers.iter().fold(Style::reset(), |acc, s| acc.patch(*s));
        let mut v = Vec::new();
        // the body: every slot with text straight on the screen (view::render fills it with `base`)
        for (n, s) in &styles {
            if !DECORATIVE.iter().any(|(d, _)| d == n) {
                v.push(((*n).to_string(), on(&[t.base, *s])));
            }
        }
        for n in ON_STATUS {
            v.push((format!("{n} on the status bar"), on(&[t.base, t.status, slot(n)])));
        }
        for n in IN_POPUP {
            v.push((format!("{n} in a dialog"), on(&[t.popup, slot(n)])));
        }
        for n in IN_TABLE_ROWS {
            v.push((format!("{n} in the selected row"), on(&[t.base, slot(n), t.selected])));
        }
        // names drawn with `marked` (steps::queue, score_matrix), the Score ones in table rows
        v.push((
            "accent marked selected (the queue's current pod)".into(),
            on(&[t.base, marked(t.accent, t.selected)]),
        ));
        for m in ["winner", "tie"] {
            let s = marked(t.accent, slot(m));
            v.push((format!("accent marked {m} (Score's node names)"), on(&[t.base, s])));
            v.push((
                format!("accent marked {m} in the selected row"),
                on(&[t.base, s, t.selected]),
            ));
        }
        v
    }

    /// The contrast failures of a theme: one line per place below 4.5.
    fn contrast_failures(t: &Theme, label: &str) -> Vec<String> {
        let terminal = TERMINAL.iter().find(|(n, ..)| *n == t.name);
        let mut out = Vec::new();
        for (place, s) in text_places(t) {
            let pick = |c: Option<Color>, fg: bool| {
                let c = c.unwrap_or(Color::Reset);
                rgb_of(c)
                    .or_else(|| terminal.map(|(_, f, b, _)| if fg { *f } else { *b }))
                    .unwrap_or_else(|| {
                        panic!(
                            "{label}: {place} uses the terminal's colours; add '{}' to TERMINAL",
                            t.name
                        )
                    })
            };
            let (mut fg, mut bg) = (pick(s.fg, true), pick(s.bg, false));
            if s.add_modifier.contains(Modifier::REVERSED) {
                std::mem::swap(&mut fg, &mut bg);
            }
            let hex = |(r, g, b): Srgb| format!("#{r:02x}{g:02x}{b:02x}");
            let ratio = contrast_ratio(fg, bg);
            if s.add_modifier.contains(Modifier::DIM) {
                out.push(format!(
                    "{label}: {place}: dim text (the terminal's dimming is not measurable)"
                ));
            } else if ratio < 4.5 {
                out.push(format!(
                    "{label}: {place}: fg {:?} {} on bg {:?} {}: {ratio:.2}",
                    s.fg.unwrap_or(Color::Reset),
                    hex(fg),
                    s.bg.unwrap_or(Color::Reset),
                    hex(bg),
                ));
            }
        }
        out
    }

    #[test]
    fn every_bundled_theme_has_text_contrast_of_at_least_4_5() {
        for (d, _) in DECORATIVE {
            assert!(SLOTS.contains(d), "DECORATIVE names no slot '{d}'");
        }
        let mut failures = Vec::new();
        for (name, _) in BUNDLED {
            let t = load(Some(name)).expect("loads").0;
            failures.extend(contrast_failures(&t, &format!("{name} (truecolor)")));
            failures.extend(contrast_failures(&t.to_256(), &format!("{name} (256 colours)")));
        }
        assert!(failures.is_empty(), "WCAG contrast below 4.5:\n{}", failures.join("\n"));
    }

    #[test]
    fn marked_keeps_a_marker_background_with_its_own_foreground() {
        let accent = Style::default().fg(Color::Magenta).add_modifier(Modifier::BOLD);
        let chip = Style::default().fg(Color::Black).bg(Color::Yellow);
        assert_eq!(
            marked(accent, chip),
            Style::default()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD)
        );
        let tint = Style::default().bg(Color::Blue);
        assert_eq!(marked(accent, tint), accent.bg(Color::Blue));
        let plain = Style::default().fg(Color::Green).add_modifier(Modifier::BOLD);
        assert_eq!(marked(accent, plain), accent);
        assert_eq!(marked(accent, Style::default()), accent);
    }
}
