//! Text for a terminal: the cluster's strings (a pod's name, a PodScheduled message, an
//! Event's message or source, a server's answer) never reach it as control sequences.
//!
//! Anyone allowed to create Events in a namespace writes what `explain` prints: raw, `ESC ] 52 ;
//! c ; ... BEL` would set the viewer's clipboard and `ESC [ 2 J` clear their screen. Every report
//! goes through [`Escaping`] (the writer of `cli::write_report_with`, the one door of the
//! reports to stdout) or [`escape`] (single lines: warnings, errors, the write plans), so a
//! field added to a report later is covered without anyone thinking of it. (The TUI is safe by
//! construction: ratatui's buffer drops every grapheme that holds a control character.)
//!
//! What is escaped, in Rust's own string-literal syntax (documented in the README):
//! - every byte below 0x20 except the newline (the reports use no tab) and DEL (0x7f), as
//!   `\xNN` (two lower-case hex digits): ESC is `\x1b`, BEL `\x07`, CR `\x0d`, TAB `\x09`;
//! - every C1 control, U+0080 to U+009F (which some terminals obey as ESC plus a letter:
//!   U+009B is CSI), as `\u{NN}`: `\u{9b}`.
//!
//! JSON gets JSON's escapes for DEL and the C1 controls (`\u007f`, `\u009b`: the same
//! string to a JSON reader), which serde_json writes raw; YAML's emitter escapes them itself.
//!
//! Nothing else is changed: a backslash stays a backslash, so `\x1b` in the output may also be
//! those four characters in the cluster's string; what matters is that it is never ESC.

use std::borrow::Cow;
use std::io::{self, Write};

/// True for a character that must not reach a terminal: C0 controls but the newline, DEL, C1.
fn is_hostile(c: char) -> bool {
    (c < ' ' && c != '\n') || ('\u{7f}'..='\u{9f}').contains(&c)
}

/// The visible form of a hostile character.
fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write as _;
    let n = u32::from(c);
    if n < 0x80 {
        let _ = write!(out, "\\x{n:02x}");
    } else {
        let _ = write!(out, "\\u{{{n:x}}}");
    }
}

/// `s` with its control characters shown as escapes (borrowed when there is none).
pub(crate) fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_hostile) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_hostile(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A writer that escapes what passes through it as [`escape`] does, whatever the boundaries of
/// the writes: a C1 control is two bytes in UTF-8 (`C2 80` to `C2 9F`), so a `C2` at the end
/// of one write waits for the next. What is written must be UTF-8 (every report is); C0
/// controls and DEL are single bytes that UTF-8 never uses inside a character, and `C2` is
/// never a continuation byte, so no other state is needed. Text without anything to escape is
/// passed on as it is, without a copy.
pub(crate) struct Escaping<W: Write> {
    inner: W,
    /// JSON's escapes (`\u009b`) instead of Rust's: the same string to a JSON reader.
    json: bool,
    /// The last byte written was a `C2` lead byte, not passed on yet.
    pending_c2: bool,
}

/// True for a byte where [`Escaping`] must look: a C0 control but the newline, DEL, the lead
/// byte of the C1 controls.
fn needs_a_look(b: u8) -> bool {
    (b < 0x20 && b != b'\n') || b == 0x7f || b == 0xc2
}

impl<W: Write> Escaping<W> {
    /// Escapes what is written to `inner`.
    pub(crate) fn new(inner: W) -> Self {
        Escaping {
            inner,
            json: false,
            pending_c2: false,
        }
    }

    /// Escapes what a JSON serializer writes to `inner`: it escapes C0 controls itself but
    /// writes DEL and the C1 controls raw, which can only be inside strings, where `\u007f`
    /// and `\u009b` are the same characters to a JSON reader.
    pub(crate) fn json(inner: W) -> Self {
        Escaping {
            json: true,
            ..Escaping::new(inner)
        }
    }

    /// The writer underneath (a `C2` still pending is written first).
    pub(crate) fn into_inner(mut self) -> io::Result<W> {
        if std::mem::take(&mut self.pending_c2) {
            self.inner.write_all(&[0xc2])?;
        }
        Ok(self.inner)
    }

    fn escaped(&mut self, c: u8) -> io::Result<()> {
        let shown = match (self.json, c) {
            (true, _) => format!("\\u{c:04x}"),
            (false, 0x80..) => format!("\\u{{{c:x}}}"),
            (false, _) => format!("\\x{c:02x}"),
        };
        self.inner.write_all(shown.as_bytes())
    }
}

impl<W: Write> Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, mut buf: &[u8]) -> io::Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        if std::mem::take(&mut self.pending_c2) {
            match buf[0] {
                c @ 0x80..=0x9f => {
                    self.escaped(c)?;
                    buf = &buf[1..];
                }
                _ => self.inner.write_all(&[0xc2])?,
            }
        }
        while let Some(i) = buf.iter().position(|&b| needs_a_look(b)) {
            self.inner.write_all(&buf[..i])?;
            match (buf[i], buf.get(i + 1)) {
                (0xc2, None) => {
                    self.pending_c2 = true;
                    return Ok(());
                }
                (0xc2, Some(&c @ 0x80..=0x9f)) => {
                    self.escaped(c)?;
                    buf = &buf[i + 2..];
                }
                (0xc2, Some(_)) => {
                    self.inner.write_all(&[0xc2])?;
                    buf = &buf[i + 1..];
                }
                (c, _) => {
                    self.escaped(c)?;
                    buf = &buf[i + 1..];
                }
            }
        }
        self.inner.write_all(buf)
    }

    /// A `C2` still pending stays pending: the next write may complete it.
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the issue's hostile strings look like: OSC 52 (write the clipboard), clear the
    /// screen, a C1 CSI, a CR that overwrites the line, DEL, a tab.
    const HOSTILE: &str = "web\x1b]52;c;aGk=\x07 \x1b[2J\u{9b}31m\rx\x7fy\tz\n";
    const SHOWN: &str = "web\\x1b]52;c;aGk=\\x07 \\x1b[2J\\u{9b}31m\\x0dx\\x7fy\\x09z\n";

    #[test]
    fn control_characters_are_shown_as_rust_escapes() {
        assert_eq!(escape(HOSTILE), SHOWN);
        assert!(matches!(escape("pod é ü 漢 ok\n"), Cow::Borrowed("pod é ü 漢 ok\n")));
        // the C1 range ends at U+009F; U+00A0 (no-break space) passes
        assert_eq!(escape("\u{80}\u{9f}\u{a0}"), "\\u{80}\\u{9f}\u{a0}");
    }

    #[test]
    fn the_writer_escapes_across_write_boundaries() {
        // every split of the input, the C1 control's two bytes split too
        let bytes = HOSTILE.as_bytes();
        for cut in 0..=bytes.len() {
            let mut w = Escaping::new(Vec::new());
            w.write_all(&bytes[..cut]).unwrap();
            w.write_all(&bytes[cut..]).unwrap();
            let out = w.into_inner().unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), SHOWN, "cut at {cut}");
        }
        // one byte at a time, with multi-byte characters whose continuation bytes are in
        // 0x80..=0x9f (U+0100 is C4 80, U+6F22 is E6 BC A2, U+1F600 is F0 9F 98 80)
        let text = "\u{100}漢😀\u{85}é";
        let mut w = Escaping::new(Vec::new());
        for b in text.as_bytes() {
            w.write_all(&[*b]).unwrap();
        }
        let out = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(out, "\u{100}漢😀\\u{85}é");
        // a C2 left at the end is written as it is
        let mut w = Escaping::new(Vec::new());
        w.write_all("a\u{a0}".as_bytes()).unwrap();
        w.write_all(&[0xc2]).unwrap();
        assert_eq!(w.into_inner().unwrap(), b"a\xc2\xa0\xc2");
    }

    #[test]
    fn json_gets_json_escapes_for_what_serde_json_writes_raw() {
        let v = serde_json::json!({"m": HOSTILE});
        let mut w = Escaping::json(Vec::new());
        serde_json::to_writer(&mut w, &v).unwrap();
        let out = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(
            out,
            r#"{"m":"web\u001b]52;c;aGk=\u0007 \u001b[2J\u009b31m\rx\u007fy\tz\n"}"#
        );
        assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap(), v);
    }
}
