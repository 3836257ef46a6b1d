//! Upstream releases as data (pkg/features/kube_features.go versioned specs,
//! framework/plugins/feature/feature.go): a [`Release`] (minor and patch), the table of every
//! feature gate kube-scheduler accepts with its default per release ([`gates`]), the table of
//! ungated behaviour changes with the upstream PR and first patch that has each
//! ([`changes`]), and [`Features`]: a release with `--feature-gates` overrides, resolved once
//! and handed to every plugin at registration, as upstream's registry hands `feature.Features`
//! to each factory.
//!
//! No code outside this module compares minors: plugins ask `features.on(Gate::X)` or
//! `features.has(Change::Y)` (a test scans the tree for it).

pub mod changes;
pub mod choice;
pub mod features;
mod gate_table;
pub mod gates;
pub mod profile;
pub mod served;

use std::fmt;
use std::str::FromStr;

pub use changes::Change;
pub use choice::{ChoiceError, Recorded, ReleaseChoice};
pub use features::{FeatureError, FeatureGates, Features};
pub use gates::Gate;
pub use profile::Cond;

/// A kube-scheduler release: minor and patch of 1.x.y.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release {
    minor: u16,
    patch: u16,
}

/// The newest patch of each minor whose behaviour kschedtui reproduces, oldest first: the
/// patch each minor stands for when no patch is given. Where upstream answers exist
/// (tests/conformance), it is the patch they were produced with. 1.38.0 (2026-12-16) rests on
/// what could be read of v1.38.0-alpha.1 and alpha.2 (their release notes and the PR threads
/// they list; see [`provenance`]) until the v1.38.0 tag is readable.
const KNOWN: &[Release] = &[
    Release::new(30, 6),
    Release::new(31, 8),
    Release::new(32, 5),
    Release::new(33, 3),
    Release::new(34, 7),
    Release::new(35, 7),
    Release::new(36, 2),
    Release::new(37, 0),
    Release::new(38, 0),
];

/// Where a known release's tables were read when that is not its own tag, said under its
/// heading in docs/releases.md.
pub fn provenance(release: Release) -> Option<&'static str> {
    match (release.minor, release.patch) {
        (38, 0) => Some(
            "rests on v1.38.0-alpha.2 (its release notes and those of alpha.1, and the PR threads they list) until the v1.38.0 tag is readable: the gate table is 1.37's with the gate changes those notes list",
        ),
        _ => None,
    }
}

/// Why a release string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReleaseError {
    /// Not of the form 1.MINOR or 1.MINOR.PATCH.
    #[error("'{0}' is not a scheduler version (use 1.MINOR or 1.MINOR.PATCH, e.g. 1.34 or 1.34.7)")]
    Syntax(String),
    /// A minor kschedtui does not reproduce.
    #[error("'{0}' is not a supported scheduler version (supported: 1.{1} to 1.{2}, with any patch)")]
    Unsupported(String, u16, u16),
}

impl Release {
    const fn new(minor: u16, patch: u16) -> Release {
        Release { minor, patch }
    }

    /// The oldest release reproduced.
    pub const OLDEST: Release = KNOWN[0];
    /// The newest release reproduced (what a live server newer than every known release is
    /// explained as).
    pub const NEWEST: Release = KNOWN[KNOWN.len() - 1];
    /// The release explained where none is recorded (the demo, a snapshot without one): the
    /// newest one released. 1.38.0 ships on 2026-12-16 and rests on its alpha code until its
    /// tag can be read; it becomes the default then.
    pub const DEFAULT: Release = Release::at(37);

    /// The release 1.`minor` stands for (its newest known patch); panics for a minor
    /// kschedtui does not reproduce (for tables and tests; parse user input with `FromStr`).
    pub const fn at(minor: u32) -> Release {
        let mut i = 0;
        while i < KNOWN.len() {
            if KNOWN[i].minor as u32 == minor {
                return KNOWN[i];
            }
            i += 1;
        }
        panic!("no such release")
    }

    /// The minor (1.`minor`).
    pub fn minor(self) -> u32 {
        u32::from(self.minor)
    }

    /// The patch (1.x.`patch`).
    pub fn patch(self) -> u32 {
        u32::from(self.patch)
    }

    /// "1.38": the minor, as explanations name a release's behaviour.
    pub fn short(self) -> String {
        format!("1.{}", self.minor)
    }

    /// The release each minor stands for (its newest patch known), oldest first.
    pub fn known() -> &'static [Release] {
        KNOWN
    }

    /// The newest known patch of `minor`, if kschedtui reproduces that minor.
    pub fn of_minor(minor: u32) -> Option<Release> {
        KNOWN.iter().copied().find(|r| r.minor() == minor)
    }

    /// The newest known patch of this release's minor.
    pub fn newest_of_minor(self) -> Release {
        Release::of_minor(self.minor()).unwrap_or(self)
    }

    /// Index of the minor in the gate table's columns (1.30 is 0).
    pub(crate) fn column(self) -> usize {
        usize::from(self.minor - Release::OLDEST.minor)
    }

    /// A release from a server's gitVersion ("v1.36.2", "v1.33.1-gke.100"): the release
    /// itself when kschedtui knows its minor, else the nearest one with a note saying so.
    /// An unparsable version is the newest release, with a note.
    pub fn from_server(git_version: &str) -> (Release, Option<String>) {
        let t = git_version.trim().trim_start_matches('v');
        let mut it = t.split(['.', '-', '+']);
        let num = |s: Option<&str>| -> Option<u16> {
            let d: String = s?.chars().take_while(char::is_ascii_digit).collect();
            d.parse().ok()
        };
        let (major, minor, patch) = (num(it.next()), num(it.next()), num(it.next()));
        let newest = Release::NEWEST;
        match (major, minor) {
            (Some(1), Some(minor)) => {
                let patch = patch.unwrap_or(0);
                let r = Release::new(minor, patch);
                if r > Release::new(newest.minor, u16::MAX) {
                    (
                        newest,
                        Some(format!(
                            "the server is {git_version}, newer than the newest release kschedtui knows: explained as {newest}"
                        )),
                    )
                } else if minor < Release::OLDEST.minor {
                    let oldest = Release::OLDEST;
                    (
                        oldest,
                        Some(format!(
                            "the server is {git_version}, older than the oldest release kschedtui reproduces: explained as {oldest}"
                        )),
                    )
                } else {
                    (r, r.patch_note())
                }
            }
            _ => (
                newest,
                Some(format!(
                    "the server's version '{git_version}' could not be read: explained as {newest}"
                )),
            ),
        }
    }

    /// A note when the patch is newer than the newest known one of its minor (its behaviour is
    /// that of the newest known patch).
    pub fn patch_note(self) -> Option<String> {
        let known = self.newest_of_minor();
        (self.patch > known.patch).then(|| {
            format!(
                "1.{}.{} is newer than the newest 1.{} patch kschedtui knows: explained as {known}",
                self.minor, self.patch, self.minor
            )
        })
    }
}

impl Default for Release {
    fn default() -> Self {
        Release::DEFAULT
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}.{}", self.minor, self.patch)
    }
}

impl FromStr for Release {
    type Err = ReleaseError;
    /// "1.34" (the newest known patch of 1.34), "1.34.1", "v1.34.7".
    fn from_str(s: &str) -> Result<Self, ReleaseError> {
        let t = s.trim().trim_start_matches('v');
        let parts: Vec<&str> = t.split('.').collect();
        let num = |p: &str| -> Option<u16> {
            (!p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
                .then(|| p.parse().ok())
                .flatten()
        };
        let syntax = || ReleaseError::Syntax(s.to_string());
        if !(2..=3).contains(&parts.len()) || parts[0] != "1" {
            return Err(syntax());
        }
        let minor = num(parts[1]).ok_or_else(syntax)?;
        let Some(known) = Release::of_minor(u32::from(minor)) else {
            return Err(ReleaseError::Unsupported(
                s.to_string(),
                Release::OLDEST.minor,
                Release::NEWEST.minor,
            ));
        };
        match parts.get(2) {
            None => Ok(known),
            Some(p) => Ok(Release::new(minor, num(p).ok_or_else(syntax)?)),
        }
    }
}

impl serde::Serialize for Release {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minor_stands_for_its_newest_known_patch() {
        assert_eq!("1.34".parse::<Release>().unwrap().to_string(), "1.34.7");
        assert_eq!("v1.30".parse::<Release>().unwrap().to_string(), "1.30.6");
        assert_eq!("1.34.1".parse::<Release>().unwrap().to_string(), "1.34.1");
        assert_eq!(Release::NEWEST.to_string(), "1.38.0");
    }

    /// Until 1.38.0's tag can be read, what is explained without a recorded release is the
    /// newest release shipped, 1.37.0; 1.38 is there when asked for or served.
    #[test]
    fn the_default_is_the_newest_release_shipped() {
        assert_eq!(Release::DEFAULT.to_string(), "1.37.0");
        assert_eq!(Release::default(), Release::DEFAULT);
        let f = super::choice::ReleaseChoice::default().features(None).unwrap();
        assert_eq!(f.release(), Release::DEFAULT);
    }

    #[test]
    fn bad_versions_are_refused_with_what_is_wrong() {
        assert_eq!(
            "1.29".parse::<Release>().unwrap_err().to_string(),
            "'1.29' is not a supported scheduler version (supported: 1.30 to 1.38, with any patch)"
        );
        for bad in ["2.30", "1", "1.x", "1.34.", "1.34.1.2", ""] {
            assert!(matches!(bad.parse::<Release>(), Err(ReleaseError::Syntax(_))), "{bad}");
        }
    }

    #[test]
    fn a_server_version_is_read_with_its_patch_and_a_note_when_out_of_range() {
        assert_eq!(Release::from_server("v1.32.2"), (Release::new(32, 2), None));
        assert_eq!(Release::from_server("v1.33.1-gke.1002000").0, Release::new(33, 1));
        let (r, note) = Release::from_server("v1.40.1");
        assert_eq!(r, Release::NEWEST);
        assert_eq!(
            note.as_deref(),
            Some("the server is v1.40.1, newer than the newest release kschedtui knows: explained as 1.38.0")
        );
        // the next minor is answered as the newest known, and says so
        let (r, note) = Release::from_server("v1.39.0");
        assert_eq!(r, Release::new(38, 0));
        assert_eq!(
            note.as_deref(),
            Some("the server is v1.39.0, newer than the newest release kschedtui knows: explained as 1.38.0")
        );
        assert_eq!(
            Release::from_server("v1.38.2"),
            (Release::new(38, 2), Release::new(38, 2).patch_note())
        );
        let (r, note) = Release::from_server("v1.34.9");
        assert_eq!(r, Release::new(34, 9));
        assert_eq!(
            note.as_deref(),
            Some("1.34.9 is newer than the newest 1.34 patch kschedtui knows: explained as 1.34.7")
        );
        let (r, note) = Release::from_server("garbage");
        assert_eq!(r, Release::NEWEST);
        assert!(note.unwrap().contains("could not be read"));
        assert_eq!(Release::from_server("v1.28.3").0, Release::OLDEST);
    }
}

/// The release × gate/change matrix, one row per known release: what each release has, as the
/// engine reads it. An insta snapshot of it makes adding a release one reviewable diff.
pub fn matrix() -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "gates the scheduler reads (+ on by default, - off, ! locked, . unknown):"
    );
    for g in Gate::ALL {
        let cells: Vec<String> = KNOWN
            .iter()
            .map(|r| match gates::spec(g.name(), *r) {
                None => ".    ".to_string(),
                Some(sp) => format!(
                    "{}{}   ",
                    if sp.default { '+' } else { '-' },
                    if sp.locked { '!' } else { ' ' },
                ),
            })
            .collect();
        let _ = writeln!(s, "  {:<42} {}", g.name(), cells.join("").trim_end());
    }
    let _ = writeln!(s, "ungated changes (x: the release has it):");
    for c in changes::CHANGES {
        let cells: Vec<&str> = KNOWN
            .iter()
            .map(|r| if c.in_release(*r) { "x    " } else { ".    " })
            .collect();
        let _ = writeln!(s, "  {:<42} {}  {}", c.change.name(), cells.join("").trim_end(), c.pr);
    }
    let _ = writeln!(s, "default profile (multiPoint, weight):");
    for r in KNOWN {
        let plugins: Vec<String> = profile::default_plugins(&Features::new(*r))
            .iter()
            .map(|(n, w)| if *w > 0 { format!("{n}({w})") } else { (*n).to_string() })
            .collect();
        let _ = writeln!(s, "  {r}: {}", plugins.join(", "));
    }
    let header: Vec<String> = KNOWN.iter().map(|r| format!("1.{:<2} ", r.minor)).collect();
    format!("{:<44} {}\n{s}", "", header.join(""))
}

#[cfg(test)]
mod matrix_tests {
    #[test]
    fn release_matrix() {
        insta::assert_snapshot!(super::matrix());
    }
}

/// docs/releases.md: what changes from release to release in what users see, generated from
/// the tables (a test keeps the file in step).
pub fn release_notes_markdown() -> String {
    use std::fmt::Write as _;
    let mut s = String::from(
        "# What changes from release to release\n\n\
         Generated from `src/engine/release` (the gate table, the ungated changes and the default\n\
         profile) by `cargo test --test integration docs`; `UPDATE_DOCS=1` rewrites it. Each minor\n\
         stands for the patch named in its heading unless `--scheduler-version 1.MINOR.PATCH`\n\
         says otherwise; changes cherry-picked into a patch say from which one.\n",
    );
    let mut prev: Option<Release> = None;
    for r in KNOWN {
        let _ = writeln!(s, "\n## {r}\n");
        let f = Features::new(*r);
        let mut lines = Vec::new();
        if let Some(p) = provenance(*r) {
            lines.push(format!("- {p}"));
        }
        for c in changes::CHANGES {
            if let Some((m, p)) = c.backports.iter().find(|(m, _)| *m == r.minor()) {
                lines.push(format!("- from 1.{m}.{p}: {} ({})", c.what, c.pr));
                continue;
            }
            let before = prev.is_some_and(|p| c.in_release(p.newest_of_minor()));
            if c.in_release(*r) && !before && prev.is_some() {
                lines.push(format!("- {} ({})", c.what, c.pr));
            }
        }
        if let Some(p) = prev {
            let pf = Features::new(p);
            for g in Gate::ALL {
                let (a, b) = (pf.on(*g), f.on(*g));
                let known = gates::spec(g.name(), *r).is_some();
                let known_before = gates::spec(g.name(), p).is_some();
                if known_before && a && !known {
                    lines.push(format!("- feature gate {} is gone (its behaviour stays)", g.name()));
                } else if a != b {
                    lines.push(format!(
                        "- feature gate {} is {} by default",
                        g.name(),
                        if b { "on" } else { "off" }
                    ));
                }
            }
            let (dp, dn) = (profile::default_plugins(&pf), profile::default_plugins(&f));
            for (n, w) in &dn {
                match dp.iter().find(|(m, _)| m == n) {
                    None => lines.push(format!("- {n} joins the default profile")),
                    Some((_, pw)) if pw != w => lines.push(format!("- {n} scores with weight {w} (was {pw})")),
                    _ => {}
                }
            }
            for (n, _) in &dp {
                if !dn.iter().any(|(m, _)| m == n) {
                    lines.push(format!("- {n} leaves the default profile"));
                }
            }
        } else {
            lines.push("- the oldest release reproduced (the first conformance corpus)".to_string());
        }
        if lines.is_empty() {
            lines.push("- nothing the scheduler shows changes".to_string());
        }
        s.push_str(&lines.join("\n"));
        s.push('\n');
        prev = Some(*r);
    }
    s
}
