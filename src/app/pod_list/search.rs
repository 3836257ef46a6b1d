//! The pod list's search: a part of the name, `-f` fuzzy, `-l` a label selector, with the
//! positions to highlight.

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use crate::model::Pod;

/// What the pod list's `/` looks for, as k9s' filter does: a part of the pod's name (of
/// `namespace/name` when the text has a `/`), ASCII case ignored unless the text has a
/// capital; `-f TEXT` a fuzzy match (the letters in order, skim's rules); `-l SELECTOR` the
/// pods whose labels a label selector (`app=web,tier!=db`, `env in (a,b)`) selects.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Search<'a> {
    /// Every pod.
    All,
    /// A part of the name.
    Part(&'a str),
    /// A fuzzy match.
    Fuzzy(&'a str),
    /// A label selector (or why it does not parse: it selects nothing).
    Labels(Result<crate::model::selector::Selector, String>),
}

impl<'a> Search<'a> {
    /// The search a query asks for.
    pub(crate) fn of(query: &'a str) -> Search<'a> {
        if let Some(sel) = query.strip_prefix("-l ") {
            return Search::Labels(crate::model::selector::Selector::parse(sel.trim()));
        }
        if let Some(q) = query.strip_prefix("-f ") {
            return if q.is_empty() { Search::All } else { Search::Fuzzy(q) };
        }
        if query.is_empty() {
            Search::All
        } else {
            Search::Part(query)
        }
    }
}

/// Where `part` first occurs in `text` (ASCII case ignored unless `case_sensitive`), as a byte
/// offset.
pub(super) fn find_part(text: &str, part: &str, case_sensitive: bool) -> Option<usize> {
    if case_sensitive {
        return text.find(part);
    }
    let (t, p) = (text.as_bytes(), part.as_bytes());
    if p.is_empty() {
        return Some(0);
    }
    // a byte of a multi-byte character is never ASCII: it only ever equals itself
    t.windows(p.len())
        .position(|w| w.eq_ignore_ascii_case(p))
        .filter(|&i| text.is_char_boundary(i))
}

/// The characters of `text` a part of it found at byte `at`, `len` bytes long, covers.
pub(super) fn part_hits(text: &str, at: usize, len: usize) -> Vec<usize> {
    let first = text[..at].chars().count();
    (first..first + text[at..at + len].chars().count()).collect()
}

/// Whether the search matches a pod, and where: `(ns_hits, name_hits)` (character positions
/// to highlight), or None when it does not match.
pub fn matches(matcher: &SkimMatcherV2, pod: &Pod, query: &str) -> Option<(Vec<usize>, Vec<usize>)> {
    let query = match Search::of(query) {
        Search::All => return Some((Vec::new(), Vec::new())),
        Search::Labels(sel) => {
            return sel
                .ok()
                .filter(|s| s.matches(&pod.labels))
                .map(|_| (Vec::new(), Vec::new()));
        }
        Search::Part(q) => {
            let case_sensitive = q.chars().any(|c| c.is_ascii_uppercase());
            if q.contains('/') {
                let full = format!("{}/{}", pod.key.namespace, pod.key.name);
                let at = find_part(&full, q, case_sensitive)?;
                let idx = part_hits(&full, at, q.len());
                let ns_len = pod.key.namespace.chars().count();
                let ns = idx.iter().copied().filter(|&i| i < ns_len).collect();
                let name = idx.iter().filter(|&&i| i > ns_len).map(|&i| i - ns_len - 1).collect();
                return Some((ns, name));
            }
            let at = find_part(&pod.key.name, q, case_sensitive)?;
            return Some((Vec::new(), part_hits(&pod.key.name, at, q.len())));
        }
        Search::Fuzzy(q) => q,
    };
    if query.contains('/') {
        let full = format!("{}/{}", pod.key.namespace, pod.key.name);
        let (_, idx) = matcher.fuzzy_indices(&full, query)?;
        let ns_len = pod.key.namespace.chars().count();
        let ns = idx.iter().copied().filter(|&i| i < ns_len).collect();
        let name = idx.iter().filter(|&&i| i > ns_len).map(|&i| i - ns_len - 1).collect();
        Some((ns, name))
    } else {
        let (_, idx) = matcher.fuzzy_indices(&pod.key.name, query)?;
        Some((Vec::new(), idx))
    }
}

/// True when `pattern` is a subsequence of `choice`, compared as skim compares (ASCII case
/// ignored unless the pattern has an ASCII capital): exactly when [`SkimMatcherV2`] matches,
/// without computing a score or allocating.
pub(super) fn subsequence(choice: impl Iterator<Item = char>, pattern: &str, case_sensitive: bool) -> bool {
    let mut want = pattern.chars().peekable();
    for c in choice {
        let Some(&p) = want.peek() else { break };
        if if case_sensitive {
            c == p
        } else {
            c.eq_ignore_ascii_case(&p)
        } {
            want.next();
        }
    }
    want.peek().is_none()
}

/// [`subsequence`] on a whole text, byte by byte when the pattern is ASCII (a byte of a
/// multi-byte character is never ASCII, so it never matches an ASCII pattern character).
pub(super) fn text_subsequence(text: &str, pattern: &str, case_sensitive: bool) -> bool {
    if !pattern.is_ascii() {
        return subsequence(text.chars(), pattern, case_sensitive);
    }
    let want = pattern.as_bytes();
    let mut at = 0;
    for &b in text.as_bytes() {
        let Some(&p) = want.get(at) else { break };
        if if case_sensitive {
            b == p
        } else {
            b.eq_ignore_ascii_case(&p)
        } {
            at += 1;
        }
    }
    at == want.len()
}

/// Whether a fuzzy search `query` matches `text` (the node list, the pod list): what
/// `SkimMatcherV2::default().fuzzy_match(text, query).is_some()` says.
pub fn fuzzy_hit(text: &str, query: &str) -> bool {
    query.is_empty() || text_subsequence(text, query, query.chars().any(|c| c.is_ascii_uppercase()))
}

/// Whether the pod list's search matches a pod: on its name, or on `namespace/name` when the
/// query holds a `/`, or on its labels (what [`matches`] says, without the positions).
pub fn is_match(pod: &Pod, query: &str) -> bool {
    let query = match Search::of(query) {
        Search::All => return true,
        Search::Labels(sel) => return sel.is_ok_and(|s| s.matches(&pod.labels)),
        Search::Part(q) => {
            let case_sensitive = q.chars().any(|c| c.is_ascii_uppercase());
            return if q.contains('/') {
                find_part(&format!("{}/{}", pod.key.namespace, pod.key.name), q, case_sensitive).is_some()
            } else {
                find_part(&pod.key.name, q, case_sensitive).is_some()
            };
        }
        Search::Fuzzy(q) => q,
    };
    let case_sensitive = query.chars().any(|c| c.is_ascii_uppercase());
    if query.contains('/') {
        let full = pod
            .key
            .namespace
            .chars()
            .chain(std::iter::once('/'))
            .chain(pod.key.name.chars());
        subsequence(full, query, case_sensitive)
    } else {
        subsequence(pod.key.name.chars(), query, case_sensitive)
    }
}
