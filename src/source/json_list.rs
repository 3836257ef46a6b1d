//! Finds the items of a JSON `List` (`{"kind": "...List", "items": [...]}` or a top-level
//! array) in a file read a piece at a time, so a snapshot is read through one reused buffer of
//! a few MiB instead of a buffer the size of the file.
//!
//! The scanner only delimits: it finds where each item and each other top-level value starts
//! and ends, checking the punctuation between them (colons, commas, brackets, nothing but
//! whitespace). What is inside an item is left to the parser that reads the item, which
//! rejects what is not JSON; every top-level value other than `items` is parsed here as a
//! `Value`, as the whole-file reader does. Anything unusual (a repeated `kind` or `items`,
//! `items` that is not an array, a top-level object that is not a List, text after the end)
//! makes it give up, and the caller reads the file whole on the general path, which gives
//! the same objects or words the error.
//!
//! The scanner also keeps the top-level value recorded under [`INFO_KEY`] (where a snapshot
//! came from): the loader's one pass gives it, and [`top_info`] finds it in a file without
//! holding the file.

use std::ops::Range;

use serde_json::Value;

/// The top-level key of a snapshot List that records where it came from (written by
/// `source::snapshot`, which re-exports it; found here in the loader's one pass).
pub const INFO_KEY: &str = "kschedtuiSnapshot";

/// Where the scan stands between two pieces of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before the first token.
    Begin,
    /// In the top-level object, expecting a key (or `}` when `first`).
    Key { first: bool },
    /// After a key, expecting `:`.
    Colon { key: Key },
    /// After `:`, expecting the value (that of `items` opens the array of items).
    Value { key: Key },
    /// After a top-level value, expecting `,` or `}`.
    AfterValue,
    /// In the array of items, expecting an item (or `]` when `first`).
    Item { first: bool },
    /// After an item, expecting `,` or `]`.
    AfterItem,
    /// After the top-level value: only whitespace may follow.
    End,
}

/// The top-level keys the scanner tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Items,
    Kind,
    /// [`INFO_KEY`].
    Info,
    Other,
}

/// What one scan of the buffer found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Scan {
    /// The items that end within the buffer, in order; the buffer is needed again from
    /// `keep_from` (the start of what is not complete yet) when the next piece is added.
    More { items: Vec<Range<usize>>, keep_from: usize },
    /// The last items: the whole text was scanned and is a List.
    Done { items: Vec<Range<usize>> },
    /// Not a List this scanner reads: read the whole file on the general path.
    GiveUp,
}

/// The scanner (see the module's comment).
#[derive(Debug)]
pub(crate) struct ListScanner {
    state: State,
    /// Where the next token starts, in the buffer.
    pos: usize,
    /// Whether the top level is an object (then `kind` must name a List) or an array.
    object: bool,
    kind: Option<Value>,
    seen_items: bool,
    /// The value of the last top-level [`INFO_KEY`], if any.
    info: Option<Value>,
}

/// Whitespace as JSON has it.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Where the JSON value starting at `start` ends: `Ok(None)` when it runs past the end of
/// `buf` (and more text may follow), `Err` when no value starts there.
fn value_end(buf: &[u8], start: usize, eof: bool) -> Result<Option<usize>, ()> {
    let first = *buf.get(start).ok_or(())?;
    match first {
        b'{' | b'[' => {
            let close = if first == b'{' { b'}' } else { b']' };
            // Only this kind of bracket and strings count: in JSON the other kind nests
            // inside it, and in text that is not JSON an item's parser refuses whatever piece
            // this gives it.
            let mut depth = 0usize;
            let mut i = start;
            while i < buf.len() {
                let c = buf[i];
                if c == b'"' {
                    match string_end(buf, i) {
                        Some(e) => i = e,
                        None => return Ok(None),
                    }
                    continue;
                }
                if c == first {
                    depth += 1;
                } else if c == close {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(Some(i + 1));
                    }
                }
                i += 1;
            }
            Ok(None)
        }
        b'"' => Ok(string_end(buf, start)),
        b'}' | b']' | b',' | b':' => Err(()),
        _ => match buf[start..]
            .iter()
            .position(|&b| matches!(b, b',' | b']' | b'}') || is_space(b))
        {
            Some(n) => Ok(Some(start + n)),
            None if eof => Ok(Some(buf.len())),
            None => Ok(None),
        },
    }
}

/// A value's text read as a `T` (None when it is not UTF-8 or not a `T`).
fn parse<T: serde::de::DeserializeOwned>(text: &[u8]) -> Option<T> {
    serde_json::from_str(std::str::from_utf8(text).ok()?).ok()
}

/// The end (one past the closing quote) of the string whose opening quote is at `start`, or
/// None when it runs past the end of `buf`.
fn string_end(buf: &[u8], start: usize) -> Option<usize> {
    // Byte by byte: the strings of a snapshot are a few bytes long, shorter than a call to a
    // vectorised search pays for.
    let mut i = start + 1;
    while i < buf.len() {
        match buf[i] {
            // An escape: the next byte is part of it.
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

impl ListScanner {
    pub(crate) fn new() -> Self {
        ListScanner {
            state: State::Begin,
            pos: 0,
            object: false,
            kind: None,
            seen_items: false,
            info: None,
        }
    }

    /// The buffer lost its first `n` bytes (all before the `keep_from` of the last scan).
    pub(crate) fn shift(&mut self, n: usize) {
        self.pos -= n;
    }

    /// Scans `buf` (the text from where the last scan said to keep it, followed by the next
    /// piece) from where it stopped; `eof` when no more text follows.
    pub(crate) fn scan(&mut self, buf: &[u8], eof: bool) -> Scan {
        let mut items = Vec::new();
        loop {
            while self.pos < buf.len() && is_space(buf[self.pos]) {
                self.pos += 1;
            }
            let Some(&b) = buf.get(self.pos) else {
                return match (self.state, eof) {
                    (_, false) => Scan::More {
                        items,
                        keep_from: self.pos,
                    },
                    (State::End, true) if self.is_list() => Scan::Done { items },
                    _ => Scan::GiveUp,
                };
            };
            let at = self.pos;
            // A value at `at`: where it ends, or the scan stops until more text comes.
            let end = |eof| match value_end(buf, at, eof) {
                Ok(Some(e)) => Ok(Some(e)),
                Ok(None) if eof => Err(()),
                Ok(None) => Ok(None),
                Err(()) => Err(()),
            };
            let more = |items| Scan::More { items, keep_from: at };
            self.state = match (self.state, b) {
                (State::Begin, b'{') => {
                    self.object = true;
                    self.pos += 1;
                    State::Key { first: true }
                }
                (State::Begin, b'[') => {
                    self.pos += 1;
                    State::Item { first: true }
                }
                (State::Key { first: true }, b'}') => {
                    self.pos += 1;
                    State::End
                }
                (State::Key { .. }, b'"') => match end(eof) {
                    Err(()) => return Scan::GiveUp,
                    Ok(None) => return more(items),
                    Ok(Some(e)) => {
                        let Some(key) = parse::<String>(&buf[at..e]) else {
                            return Scan::GiveUp;
                        };
                        self.pos = e;
                        State::Colon {
                            key: match key.as_str() {
                                "items" => Key::Items,
                                "kind" => Key::Kind,
                                INFO_KEY => Key::Info,
                                _ => Key::Other,
                            },
                        }
                    }
                },
                (State::Colon { key }, b':') => {
                    self.pos += 1;
                    State::Value { key }
                }
                (State::Value { key: Key::Items }, b'[') if !self.seen_items => {
                    self.seen_items = true;
                    self.pos += 1;
                    State::Item { first: true }
                }
                (
                    State::Value {
                        key: key @ (Key::Kind | Key::Info | Key::Other),
                    },
                    _,
                ) => match end(eof) {
                    Err(()) => return Scan::GiveUp,
                    Ok(None) => return more(items),
                    Ok(Some(e)) => {
                        let Some(v) = parse::<Value>(&buf[at..e]) else {
                            return Scan::GiveUp;
                        };
                        match key {
                            Key::Kind if self.kind.is_some() => return Scan::GiveUp,
                            Key::Kind => self.kind = Some(v),
                            // The last one counts, as where the whole document is read.
                            Key::Info => self.info = Some(v),
                            Key::Items | Key::Other => {}
                        }
                        self.pos = e;
                        State::AfterValue
                    }
                },
                (State::AfterValue, b',') => {
                    self.pos += 1;
                    State::Key { first: false }
                }
                (State::AfterValue, b'}') => {
                    self.pos += 1;
                    State::End
                }
                (State::Item { first: true }, b']') | (State::AfterItem, b']') => {
                    self.pos += 1;
                    if self.object { State::AfterValue } else { State::End }
                }
                (State::Item { .. }, _) => match end(eof) {
                    Err(()) => return Scan::GiveUp,
                    Ok(None) => return more(items),
                    Ok(Some(e)) => {
                        items.push(at..e);
                        self.pos = e;
                        State::AfterItem
                    }
                },
                (State::AfterItem, b',') => {
                    self.pos += 1;
                    State::Item { first: false }
                }
                _ => return Scan::GiveUp,
            };
        }
    }

    /// The value of the top level's [`INFO_KEY`] (the last one), once a scan said `Done`.
    pub(crate) fn take_info(&mut self) -> Option<Value> {
        self.info.take()
    }

    /// A top-level array, or an object whose `kind` is a string ending in `List`.
    fn is_list(&self) -> bool {
        !self.object
            || self
                .kind
                .as_ref()
                .and_then(Value::as_str)
                .is_some_and(|k| k.ends_with("List"))
    }
}

/// The top-level value under [`INFO_KEY`] of a JSON List read from `file` a piece at a time
/// through one buffer (the items delimited, not parsed): `Some(None)` when the List has none,
/// `None` when the scanner gives up (not a List it reads: the caller reads the file whole).
pub(crate) fn top_info(mut file: impl std::io::Read) -> std::io::Result<Option<Option<Value>>> {
    use std::io::Read;
    const PIECE: usize = 256 << 10;
    let mut scanner = ListScanner::new();
    let mut buf = Vec::new();
    let mut want = PIECE;
    loop {
        let room = want.saturating_sub(buf.len());
        buf.reserve_exact(room);
        let got = (&mut file).take(room as u64).read_to_end(&mut buf)?;
        let eof = got < room;
        match scanner.scan(&buf, eof) {
            Scan::GiveUp => return Ok(None),
            Scan::Done { .. } => return Ok(Some(scanner.take_info())),
            Scan::More { keep_from, .. } => {
                buf.drain(..keep_from);
                scanner.shift(keep_from);
            }
        }
        if eof {
            // Every scan at the end of the text says Done or GiveUp.
            return Ok(None);
        }
        // A value longer than a piece: read on past it.
        want = PIECE.max(buf.len() + PIECE / 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    /// The items of `text` read `piece` bytes at a time, as the file reader does: None when the
    /// scanner gives up.
    fn items_in_pieces(text: &str, piece: usize) -> Option<Vec<String>> {
        let mut s = ListScanner::new();
        let (mut buf, mut rest, mut found) = (Vec::new(), text.as_bytes(), Vec::new());
        loop {
            let n = piece.min(rest.len());
            buf.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            let eof = rest.is_empty();
            match s.scan(&buf, eof) {
                Scan::GiveUp => return None,
                Scan::Done { items } => {
                    found.extend(items.into_iter().map(|r| String::from_utf8(buf[r].to_vec()).unwrap()));
                    return Some(found);
                }
                Scan::More { items, keep_from } => {
                    assert!(!eof, "more wanted after the end");
                    found.extend(items.into_iter().map(|r| String::from_utf8(buf[r].to_vec()).unwrap()));
                    buf.drain(..keep_from);
                    s.shift(keep_from);
                }
            }
        }
    }

    /// What the whole-file reader takes for the items (None where it does not read a List).
    fn whole(text: &str) -> Option<Vec<String>> {
        #[derive(serde::Deserialize)]
        struct Doc<'a> {
            kind: Option<Value>,
            #[serde(borrow)]
            items: Option<Vec<&'a RawValue>>,
        }
        if text.trim_start().starts_with('[') {
            let v: Vec<&RawValue> = serde_json::from_str(text).ok()?;
            return Some(v.iter().map(|r| r.get().to_string()).collect());
        }
        let d: Doc<'_> = serde_json::from_str(text).ok()?;
        d.kind.as_ref()?.as_str().filter(|k| k.ends_with("List"))?;
        Some(d.items?.iter().map(|r| r.get().to_string()).collect())
    }

    #[test]
    fn items_are_found_as_the_whole_file_reader_finds_them_whatever_the_pieces() {
        let texts = [
            r#"{"apiVersion":"v1","kind":"List","items":[{"kind":"Pod","metadata":{"name":"a]}{"}},{"kind":"Node","x":[1,[2,{"y":"\"}"}]]}],"metadata":{"resourceVersion":""}}"#,
            "{\n  \"items\" : [ {\"a\": \"b\\\\\"} ,\n 12, \"s\", true, null, -1.5e3, [] ] ,\n \"kind\" : \"PodList\" }\n",
            r#"[{"kind":"Pod"},{"kind":"Node"}]"#,
            "[ ]",
            r#"{"kind":"List","items":[]}"#,
            r#"{"kind":"List","items":[{"a":"é ü 中"}]}"#,
            r#"{"\u006bind":"List","it\u0065ms":[{"a":1}]}"#,
            r#"[[1,[2,"]"]],{"a":["{",{"b":"}"}],"c":"\\"},"[",[]]"#,
        ];
        for t in texts {
            let want = whole(t).unwrap_or_else(|| panic!("the whole-file reader reads {t}"));
            for piece in (1..=13).chain([t.len()]) {
                assert_eq!(
                    items_in_pieces(t, piece).as_ref(),
                    Some(&want),
                    "{t} in pieces of {piece}"
                );
            }
        }
    }

    #[test]
    fn what_is_not_a_plain_list_is_left_to_the_general_path() {
        let texts = [
            r#"{"kind":"Pod","metadata":{"name":"a"}}"#,
            r#"{"items":[{"a":1}]}"#,
            r#"{"kind":"List","kind":"List","items":[]}"#,
            r#"{"kind":"List","items":[],"items":[]}"#,
            r#"{"kind":"List","items":null}"#,
            r#"{"kind":"List","items":[{"a":1},]}"#,
            r#"{"kind":"List","items":[{"a":1} {"b":2}]}"#,
            r#"{"kind":"List","items":[{"a":1}]} x"#,
            r#"{"kind":"List","items":[{"a":1}]"#,
            r#"{"kind":"List","items":[{"a":1}],}"#,
            r#"{"kind":"List" "items":[]}"#,
            r#"{"kind":"List","n":1e999,"items":[]}"#,
            r#"{"kind":"List","items":[{"a":"unterminated}]}"#,
            r#"[1,2"#,
            r#"{"kind":5,"items":[]}"#,
        ];
        for t in texts {
            for piece in [1, 5, t.len()] {
                assert_eq!(items_in_pieces(t, piece), None, "{t} in pieces of {piece}");
            }
        }
    }

    #[test]
    fn the_recorded_info_is_found_without_holding_the_file_and_the_last_one_counts() {
        let info = |text: &str| top_info(text.as_bytes()).unwrap();
        let items: String = (0..3000)
            .map(|i| format!(r#"{{"kind":"Pod","metadata":{{"name":"p{i}","annotations":{{"a":"\"}}\\"}}}}}}"#))
            .collect::<Vec<_>>()
            .join(",");
        // After 150 KB of items, past the first piece; the key spelled with an escape.
        let text = format!(
            r#"{{"kind":"List","kschedtuiSnapshot":{{"kubernetesVersion":"v1"}},"items":[{items}],"kschedtui\u0053napshot":{{"kubernetesVersion":"v2","context":"c"}}}}"#
        );
        assert!(text.len() > 150_000);
        assert_eq!(
            info(&text),
            Some(Some(serde_json::json!({"kubernetesVersion": "v2", "context": "c"})))
        );
        assert_eq!(info(r#"{"kind":"List","items":[{"kind":"Pod"}]}"#), Some(None));
        assert_eq!(info(r#"[{"kind":"Pod"}]"#), Some(None));
        // What the scanner does not read: the caller reads the file whole.
        assert_eq!(
            info("apiVersion: v1\nkind: List\nkschedtuiSnapshot: {}\nitems: []\n"),
            None
        );
        assert_eq!(info(r#"{"kind":"Pod","kschedtuiSnapshot":{}}"#), None);
        assert_eq!(info(r#"{"kind":"List","items":[],"items":[]}"#), None);
        assert_eq!(info(r#"{"kind":"List","items":[]"#), None);
    }
}
