//! What every file kschedtui reads goes through before a parser sees it (snapshots,
//! `--config`, `--policy`, kubeconfigs): a size limit for what is not a regular file (a pipe or
//! a device such as /dev/zero never ends), the UTF-8 byte order mark kubectl skips, a limit on
//! how deeply the text nests (checked by a scan of the bytes: the YAML parser takes time
//! quadratic in the depth of flow collections, and 200 KB of `[` took minutes before its
//! error), and the YAML merge keys (`<<: *anchor`) kubectl's YAML decoder resolves.

use std::io::Read;
use std::path::Path;

use serde_json::Value;

/// How much of a snapshot given as a pipe or a device is read at most.
pub(crate) const SNAPSHOT_LIMIT: u64 = 2 << 30;

/// How much of a scheduler configuration, descheduler policy or kubeconfig given as a pipe or
/// a device is read at most (the largest real ones are a few hundred KB).
pub(crate) const CONFIG_LIMIT: u64 = 8 << 20;

/// How deeply sequences and mappings may nest: real manifests nest a few dozen levels.
pub(crate) const MAX_NESTING: usize = 512;

/// `n` bytes as a limit is said: `2 GiB`, `8 MiB`.
pub(crate) fn size_text(n: u64) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// Reads a file whole. A regular file is read as it is; anything else (a pipe, `<(cmd)`,
/// /dev/stdin, a device) only up to `limit` bytes: more is an error saying so, rather than
/// memory growing for as long as the input goes on.
pub(crate) fn read_limited(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut file = std::fs::File::open(path)?;
    if file.metadata()?.is_file() {
        let mut buf = Vec::new();
        file.read_to_end(&mut buf)?;
        return Ok(buf);
    }
    let mut buf = Vec::new();
    file.take(limit + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!(
                "not a regular file, and it gave more than {} without ending (kschedtui reads at most {} from a pipe or a device)",
                size_text(limit),
                size_text(limit)
            ),
        ));
    }
    Ok(buf)
}

/// As [`read_limited`], as text: not UTF-8 is the error `read_to_string` gives.
pub(crate) fn read_text_limited(path: &Path, limit: u64) -> std::io::Result<String> {
    String::from_utf8(read_limited(path, limit)?)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8"))
}

/// The text without a leading UTF-8 byte order mark (editors on Windows write one; kubectl
/// skips it).
pub(crate) fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Where text nests deeper than [`MAX_NESTING`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooDeep {
    /// The line (from 1).
    pub(crate) line: usize,
    /// The document (from 0; `---` starts the next one).
    pub(crate) doc: usize,
}

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "nested deeper than {MAX_NESTING} levels at line {} (kschedtui reads at most {MAX_NESTING} levels of sequences and mappings inside each other; real manifests use a few dozen)",
            self.line
        )
    }
}

/// Checks that YAML (or JSON) text nests at most [`MAX_NESTING`] levels deep, in one pass over
/// its bytes: flow collections (`[`, `{` where a value starts, and every one inside another),
/// and block nesting (each indentation deeper than the last, each `- ` or `? ` that starts a
/// node on a line). Quoted scalars, comments and block scalars (`|`, `>`) are skipped. It
/// counts what a parser would nest, or close to it: never far below (so no deep text gets
/// through), and above only for text no real manifest holds.
pub(crate) fn check_nesting(text: &str) -> Result<(), TooDeep> {
    let mut s = Scan::default();
    for (i, line) in text.split('\n').enumerate() {
        s.line(line.strip_suffix('\r').unwrap_or(line)).map_err(|()| TooDeep {
            line: i + 1,
            doc: s.doc,
        })?;
    }
    Ok(())
}

/// The state of [`check_nesting`] between lines.
#[derive(Default)]
struct Scan {
    /// Open flow collections.
    flow: usize,
    /// The columns of the open block nodes, outermost first.
    block: Vec<usize>,
    /// Inside a double- or single-quoted scalar (they may go on over several lines).
    quote: Option<u8>,
    /// In a block scalar: lines indented more than this column (or blank) are its text.
    block_scalar: Option<usize>,
    /// The document.
    doc: usize,
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

impl Scan {
    fn too_deep(&self) -> bool {
        self.flow + self.block.len() > MAX_NESTING
    }

    fn line(&mut self, line: &str) -> Result<(), ()> {
        let b = line.as_bytes();
        let indent = b.iter().take_while(|&&c| c == b' ').count();
        let rest = &b[indent..];
        if let Some(col) = self.block_scalar {
            if rest.iter().all(|&c| is_blank(c)) || indent > col {
                return Ok(());
            }
            self.block_scalar = None;
        }
        let mut pos = 0;
        if self.quote.is_none() && self.flow == 0 {
            if b.starts_with(b"---") && b.get(3).is_none_or(|&c| is_blank(c)) {
                self.doc += 1;
                self.block.clear();
                pos = 3;
            } else if b.starts_with(b"...") && b.get(3).is_none_or(|&c| is_blank(c)) {
                self.block.clear();
                return Ok(());
            } else if rest.first().is_none_or(|&c| c == b'#') || rest.iter().all(|&c| is_blank(c)) {
                return Ok(());
            } else {
                // a node at `indent`: the nodes at or right of it are closed
                while self.block.last().is_some_and(|&c| c >= indent) {
                    self.block.pop();
                }
                self.block.push(indent);
                pos = indent;
                // `- - x`, `? key`: each indicator opens a node further right
                while matches!(b.get(pos), Some(b'-' | b'?')) && b.get(pos + 1).is_none_or(|&c| is_blank(c)) {
                    pos += 1;
                    while b.get(pos).is_some_and(|&c| is_blank(c)) {
                        pos += 1;
                    }
                    if pos >= b.len() {
                        break;
                    }
                    self.block.push(pos);
                }
                if self.too_deep() {
                    return Err(());
                }
            }
        }
        // where a node may start: a flow collection, a quoted scalar, a block scalar
        let mut at_node = true;
        while pos < b.len() {
            let c = b[pos];
            pos += 1;
            if let Some(q) = self.quote {
                match c {
                    b'\\' if q == b'"' => pos += 1,
                    b'\'' if q == b'\'' && b.get(pos) == Some(&b'\'') => pos += 1,
                    _ if c == q => {
                        self.quote = None;
                        at_node = false;
                    }
                    _ => {}
                }
                continue;
            }
            match c {
                b' ' | b'\t' => {}
                b'#' if pos == 1 || is_blank(b[pos - 2]) => break,
                b'"' | b'\'' if at_node => self.quote = Some(c),
                b'[' | b'{' if at_node || self.flow > 0 => {
                    self.flow += 1;
                    if self.too_deep() {
                        return Err(());
                    }
                    at_node = true;
                }
                b']' | b'}' if self.flow > 0 => {
                    self.flow -= 1;
                    at_node = false;
                }
                b',' if self.flow > 0 => at_node = true,
                b':' if self.flow > 0 || b.get(pos).is_none_or(|&n| is_blank(n)) => at_node = true,
                b'-' | b'?' if at_node && b.get(pos).is_none_or(|&n| is_blank(n)) => {}
                b'|' | b'>' if at_node && self.flow == 0 => {
                    // its text: the lines indented more than the node it belongs to
                    self.block_scalar = Some(self.block.last().copied().unwrap_or(0));
                    break;
                }
                // an anchor or a tag before a node: the node may still start after it
                b'&' | b'!' if at_node => {
                    while pos < b.len() && !is_blank(b[pos]) {
                        pos += 1;
                    }
                }
                _ => at_node = false,
            }
        }
        Ok(())
    }
}

/// Resolves YAML merge keys as kubectl's YAML decoder does: the keys of the mapping under
/// `<<` (or of each mapping of a list under it, the first one's winning) that the mapping does
/// not set itself are added to it, after its own keys; inside out, so a merged mapping's own
/// merge keys count. An error (the path of the merge key and what is under it) when what is
/// under `<<` is not a mapping or a list of mappings.
pub(crate) fn resolve_merge_keys(v: &mut Value) -> Result<(), String> {
    match v {
        Value::Array(items) => {
            for (i, it) in items.iter_mut().enumerate() {
                resolve_merge_keys(it).map_err(|e| format!("[{i}]{}", dotted(&e)))?;
            }
        }
        Value::Object(m) => {
            for (k, child) in m.iter_mut() {
                resolve_merge_keys(child).map_err(|e| format!("{k}{}", dotted(&e)))?;
            }
            if let Some(merged) = m.shift_remove("<<") {
                let sources = match merged {
                    Value::Object(one) => vec![one],
                    Value::Array(list) => list
                        .into_iter()
                        .enumerate()
                        .map(|(i, x)| match x {
                            Value::Object(one) => Ok(one),
                            other => Err(format!(
                                "<<[{i}]: a merge key takes a mapping or a list of mappings, not {}",
                                what(&other)
                            )),
                        })
                        .collect::<Result<_, _>>()?,
                    other => {
                        return Err(format!(
                            "<<: a merge key takes a mapping or a list of mappings, not {}",
                            what(&other)
                        ));
                    }
                };
                for one in sources {
                    for (k, x) in one {
                        m.entry(k).or_insert(x);
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// A path's next segment after a key: `.key` or `[i]`.
fn dotted(rest: &str) -> String {
    if rest.starts_with('[') {
        rest.to_string()
    } else {
        format!(".{rest}")
    }
}

fn what(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// True when YAML text may hold a merge key (then the readers that stream a file take the
/// general path, which resolves them).
pub(crate) fn may_merge(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"<<").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_flow_and_block_nesting_is_refused_with_its_line() {
        let flow = "[".repeat(200_000);
        let t = std::time::Instant::now();
        assert_eq!(check_nesting(&flow), Err(TooDeep { line: 1, doc: 0 }));
        let deep_json = format!("a: 1\n---\nb: {}1{}\n", "[".repeat(600), "]".repeat(600));
        assert_eq!(check_nesting(&deep_json), Err(TooDeep { line: 3, doc: 1 }));
        let mut block = String::new();
        for i in 0..600 {
            block += &format!("{}k{i}:\n", " ".repeat(i));
        }
        assert_eq!(check_nesting(&block), Err(TooDeep { line: 513, doc: 0 }));
        let compact = format!("{}x\n", "- ".repeat(100_000));
        assert_eq!(check_nesting(&compact), Err(TooDeep { line: 1, doc: 0 }));
        assert!(t.elapsed() < std::time::Duration::from_secs(1), "{:?}", t.elapsed());
        // the limit itself passes: 511 brackets in a mapping's value
        let at_limit = format!("a: {}1{}\n", "[".repeat(511), "]".repeat(511));
        assert_eq!(check_nesting(&at_limit), Ok(()));
        let over = format!("a: {}1{}\n", "[".repeat(512), "]".repeat(512));
        assert_eq!(check_nesting(&over), Err(TooDeep { line: 1, doc: 0 }));
    }

    #[test]
    fn brackets_in_text_are_not_nesting() {
        let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
        for i in 0..2000 {
            // plain scalars, quoted scalars, comments and block scalars with brackets that
            // never close
            text += &format!(
                "- kind: Pod\n  metadata: {{name: p{i}, annotations: {{note: \"[{{\", other: '[it''s'}}}}\n  # [[[ \n  spec:\n    image: reg/x[{i}\n    args: [a, \"[\", '{{']\n    script: |\n      [[[[ {{{{\n      if [ -f x ]; then\n    after: x\n"
            );
        }
        assert_eq!(check_nesting(&text), Ok(()));
        // and a real document's depth is counted, not its brackets in text
        let json = serde_json::to_string_pretty(&serde_json::json!({"a": [[[{"b": "[[[["}]]]})).unwrap();
        assert_eq!(check_nesting(&json), Ok(()));
    }

    #[test]
    fn merge_keys_add_what_the_mapping_does_not_set() {
        let mut v: Value = serde_yaml::from_str(
            "base: &b {apiVersion: v1, kind: Node, metadata: {name: base}}\nmore: &m {status: {phase: x}, kind: Pod}\none:\n  <<: *b\n  metadata: {name: n1}\ntwo:\n  metadata: {name: n2}\n  <<: [*m, *b]\nthree:\n  <<: {<<: *b, kind: Namespace}\n",
        )
        .unwrap();
        resolve_merge_keys(&mut v).unwrap();
        assert_eq!(
            v["one"],
            serde_json::json!({"metadata": {"name": "n1"}, "apiVersion": "v1", "kind": "Node"})
        );
        // explicit keys win wherever `<<` is; the first merged mapping wins over the later
        assert_eq!(v["two"]["metadata"]["name"], "n2");
        assert_eq!(v["two"]["kind"], "Pod");
        assert_eq!(v["two"]["apiVersion"], "v1");
        assert_eq!(
            v["three"],
            serde_json::json!({"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "base"}})
        );
        let mut bad: Value = serde_yaml::from_str("items:\n- metadata:\n    <<: [{a: 1}, 2]\n").unwrap();
        assert_eq!(
            resolve_merge_keys(&mut bad),
            Err("items[0].metadata.<<[1]: a merge key takes a mapping or a list of mappings, not a number".into())
        );
    }

    #[test]
    fn a_pipe_is_read_up_to_its_limit() {
        let mut child = std::process::Command::new("yes")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        // the pipe as a path, as `<(yes)` gives it
        let path = std::path::PathBuf::from(format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&out)));
        let e = read_limited(&path, 1 << 20).unwrap_err();
        assert_eq!(
            e.to_string(),
            "not a regular file, and it gave more than 1 MiB without ending (kschedtui reads at most 1 MiB from a pipe or a device)"
        );
        child.kill().unwrap();
        child.wait().unwrap();
        let dir = tempfile::Builder::new().prefix("kschedtui-limit-").tempdir().unwrap();
        let f = dir.path().join("big.yaml");
        std::fs::write(&f, "a".repeat(3 << 20)).unwrap();
        assert_eq!(
            read_limited(&f, 1 << 20).unwrap().len(),
            3 << 20,
            "a regular file is read whole"
        );
        assert_eq!(size_text(SNAPSHOT_LIMIT), "2 GiB");
        assert_eq!(size_text(CONFIG_LIMIT), "8 MiB");
    }
}
