//! The YAML kschedtui writes (snapshots, `:w`): block style, and every string that a YAML
//! reader could take for something else written double-quoted.
//!
//! A plain scalar is typed by the reader's schema, and the schemas differ: YAML 1.1 readers
//! (PyYAML, Go's yaml.v2, Ruby's Psych, SnakeYAML) read `2026-12-01T20:45:07Z` as a date,
//! `yes`/`no`/`on`/`off`/`y`/`n` as booleans, `0777` as an octal number and `1_000` as a
//! thousand, where YAML 1.2 readers read strings. So a string is written plain only when it
//! cannot be anything but a string under either schema: it starts with a letter, `_` or `/`,
//! holds only letters, digits and `_ . / -`, and is none of the YAML 1.1 booleans or nulls.
//! Everything else is double-quoted with JSON's escapes (which YAML's double-quoted style
//! shares), and the characters YAML 1.1 readers take as line breaks or refuse (NEL, LS, PS,
//! BOM, C0/C1 controls) escaped as `\uXXXX`.

use serde_json::Value;

/// The words YAML 1.1 reads as a boolean or a null (its `bool` and `null` types).
const RESERVED: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on",
    "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL",
];

/// True when `s` can be written as a plain scalar that every common reader reads back as this
/// string.
pub(crate) fn plain_is_safe(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '_' || first == '/')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-'))
        && !RESERVED.contains(&s)
}

/// `s` as a double-quoted scalar.
pub(crate) fn quoted(s: &str) -> String {
    let json = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string());
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        let code = u32::from(c);
        if matches!(code, 0x7f..=0x9f | 0x2028 | 0x2029 | 0xfeff) {
            out.push_str(&format!("\\u{code:04X}"));
        } else {
            out.push(c);
        }
    }
    out
}

/// A number as every reader reads it back as one: a float keeps a dot and a signed exponent
/// (YAML 1.1 reads `1e21` as a string).
fn number(n: &serde_json::Number) -> String {
    let s = n.to_string();
    if !n.is_f64() {
        return s;
    }
    match s.split_once(['e', 'E']) {
        Some((m, e)) => {
            let m = if m.contains('.') {
                m.to_string()
            } else {
                format!("{m}.0")
            };
            let e = if e.starts_with(['-', '+']) {
                e.to_string()
            } else {
                format!("+{e}")
            };
            format!("{m}e{e}")
        }
        None if !s.contains('.') => format!("{s}.0"),
        None => s,
    }
}

fn scalar(s: &str) -> String {
    if plain_is_safe(s) { s.to_string() } else { quoted(s) }
}

/// A value that fits on its key's line: scalars and empty collections.
fn inline(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some("null".into()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(number(n)),
        Value::String(s) => Some(scalar(s)),
        Value::Array(a) if a.is_empty() => Some("[]".into()),
        Value::Object(m) if m.is_empty() => Some("{}".into()),
        _ => None,
    }
}

fn pad(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

/// Writes a mapping or sequence whose first line continues the current one (after `- `) when
/// `continued`, else starts at `indent`.
fn block(out: &mut String, v: &Value, indent: usize, continued: bool) {
    let mut first = true;
    let mut start = |out: &mut String| {
        if !(first && continued) {
            pad(out, indent);
        }
        first = false;
    };
    match v {
        Value::Object(m) => {
            for (k, val) in m {
                start(out);
                out.push_str(&scalar(k));
                out.push(':');
                match (inline(val), val) {
                    (Some(s), _) => {
                        out.push(' ');
                        out.push_str(&s);
                        out.push('\n');
                    }
                    // a sequence under a key starts at the key's indentation, as kubectl writes it
                    (None, Value::Array(_)) => {
                        out.push('\n');
                        block(out, val, indent, false);
                    }
                    (None, _) => {
                        out.push('\n');
                        block(out, val, indent + 2, false);
                    }
                }
            }
        }
        Value::Array(a) => {
            for item in a {
                start(out);
                out.push('-');
                match inline(item) {
                    Some(s) => {
                        out.push(' ');
                        out.push_str(&s);
                        out.push('\n');
                    }
                    None => {
                        out.push(' ');
                        block(out, item, indent + 2, true);
                    }
                }
            }
        }
        other => {
            start(out);
            out.push_str(&inline(other).unwrap_or_default());
            out.push('\n');
        }
    }
}

/// `v` as a YAML document.
pub(crate) fn to_string(v: &Value) -> String {
    let mut out = String::new();
    block(&mut out, v, 0, false);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_a_yaml_1_1_reader_would_retype_are_quoted() {
        let v = json!({
            "creationTimestamp": "2026-12-01T20:45:07Z",
            "date": "2026-12-01",
            "flags": ["yes", "no", "on", "off", "y", "n", "Y", "true", "False", "null", "~", ""],
            "numbers": ["1", "0777", "0x1F", "1_000", "1e3", ".5", ".inf", "-1", "3.0", "190:20:30"],
            "quantity": "1Gi",
            "text": "0/3 nodes are available: 3 Insufficient cpu.",
            "plain": ["node-a", "kubernetes.io/hostname", "_x", "/dev/sda", "Pending", "v1.30.6"],
            "odd": "line\nbreak \u{2028} \u{85} \"q\"",
            "n": 3,
            "f": [0.5, 1e21, 2.5e-8, -3.0],
            "b": false,
            "z": null,
            "empty": {},
            "none": [],
            "nested": [{"a": {"b": ["c"]}, "d": "e"}, [1, 2]]
        });
        assert_eq!(
            to_string(&v),
            r#"creationTimestamp: "2026-12-01T20:45:07Z"
date: "2026-12-01"
flags:
- "yes"
- "no"
- "on"
- "off"
- "y"
- "n"
- "Y"
- "true"
- "False"
- "null"
- "~"
- ""
numbers:
- "1"
- "0777"
- "0x1F"
- "1_000"
- "1e3"
- ".5"
- ".inf"
- "-1"
- "3.0"
- "190:20:30"
quantity: "1Gi"
text: "0/3 nodes are available: 3 Insufficient cpu."
plain:
- node-a
- kubernetes.io/hostname
- _x
- /dev/sda
- Pending
- v1.30.6
odd: "line\nbreak \u2028 \u0085 \"q\""
"n": 3
f:
- 0.5
- 1.0e+21
- 2.5e-8
- -3.0
b: false
z: null
empty: {}
none: []
nested:
- a:
    b:
    - c
  d: e
- - 1
  - 2
"#
        );
        // and it reads back as the same value
        let back: Value = serde_yaml::from_str(&to_string(&v)).unwrap();
        assert_eq!(back, v);
    }
}
