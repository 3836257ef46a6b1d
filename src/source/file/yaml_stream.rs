//! The streaming path for YAML snapshots: each item of a `List` is read into a `Value` and
//! converted at once, so the whole file never sits in memory as one `Value` tree.
//!
//! Same contract as [`json_fast`]: every object goes through the general per-object code
//! (`push_object`) on the same `Value` the general path would build, and on any error, or
//! when a document is not what it first looked like, the whole file is handed back (`None`)
//! to the general path, which gives the same result and the same error.

use std::fmt;

use serde::Deserializer;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::{Object, Origin, push_object};
use crate::model::{Pod, ReadObject};

struct State<'s> {
    name: &'s str,
    index: usize,
    out: &'s mut Vec<(Origin, Object)>,
    warnings: &'s mut Vec<String>,
}

fn give_up<E: serde::de::Error>() -> E {
    E::custom("handed back to the general path")
}

impl State<'_> {
    fn push<E: serde::de::Error>(&mut self, v: Value) -> Result<(), E> {
        push_object(self.name, &mut self.index, v, self.out, self.warnings, None).map_err(|_| give_up())
    }
}

/// Parses a whole YAML snapshot, or gives up (`None`).
pub(super) fn parse(
    name: &str,
    text: &str,
    out: &mut Vec<(Origin, Object)>,
    warnings: &mut Vec<String>,
    mut pods: Option<&mut Vec<(Origin, ReadObject)>>,
) -> Option<()> {
    if let Some(items) = split_list(text) {
        // A List whose items are a block sequence at column 0: each run of items is parsed
        // on its own, so the YAML parser never holds the events of the whole file (it
        // reads a document's events in full before handing out the first value), and the
        // runs are spread over the cores.
        for part in parse_items(name, text, &items, pods.is_some())? {
            out.extend(part.out);
            warnings.extend(part.warnings);
            if let Some(p) = pods.as_deref_mut() {
                p.extend(part.pods);
            }
        }
        return Some(());
    }
    let mut st = State {
        name,
        index: 0,
        out,
        warnings,
    };
    for d in serde_yaml::Deserializer::from_str(text) {
        d.deserialize_any(Doc(&mut st)).ok()?;
    }
    Some(())
}

/// Items parsed per YAML parser run.
const CHUNK: usize = 512;

/// What one thread's run over a slice of the items gives.
#[derive(Default)]
struct Part {
    out: Vec<(Origin, Object)>,
    warnings: Vec<String>,
    pods: Vec<(Origin, ReadObject)>,
    /// The document number after the slice's last item.
    end: usize,
}

/// The items in order, on as many threads as the machine has (at most 8), each taking a
/// contiguous slice numbered from its first item's position; the parts are exactly those
/// of one run from the first item to the last, or that run itself when an item is not one
/// document (a List inside the List) and the numbering cannot be known up front.
fn parse_items(name: &str, text: &str, items: &[std::ops::Range<usize>], read_pods: bool) -> Option<Vec<Part>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    if threads < 2 || items.len() < 4 * CHUNK {
        return Some(vec![run(name, text, 0, items, read_pods)?]);
    }
    let per = items.len().div_ceil(threads);
    let parts: Vec<Option<Part>> = std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(per)
            .enumerate()
            .map(|(i, slice)| s.spawn(move || run(name, text, i * per, slice, read_pods)))
            .collect();
        handles.into_iter().map(|h| h.join().ok().flatten()).collect()
    });
    let parts: Vec<Part> = parts.into_iter().collect::<Option<_>>()?;
    let one_each = parts
        .iter()
        .enumerate()
        .all(|(i, p)| p.end == (i * per + per).min(items.len()));
    if !one_each {
        return Some(vec![run(name, text, 0, items, read_pods)?]);
    }
    Some(parts)
}

/// The items of `slice` read in runs of [`CHUNK`], numbered from `start`; the pods read
/// into the model at once when `read_pods` (as the JSON fast path does).
fn run(name: &str, text: &str, start: usize, slice: &[std::ops::Range<usize>], read_pods: bool) -> Option<Part> {
    let mut p = Part::default();
    // what the part's pods share, dropped with this call
    let mut intern = crate::model::Interner::default();
    let mut index = start;
    let mut packed = 0;
    for chunk in slice.chunks(CHUNK) {
        let (from, to) = (chunk[0].start, chunk[chunk.len() - 1].end);
        let vs: Vec<Value> = serde_yaml::from_str(&text[from..to]).ok()?;
        if vs.len() != chunk.len() {
            return None;
        }
        for v in vs {
            let before = p.out.len();
            push_object(name, &mut index, v, &mut p.out, &mut p.warnings, None).ok()?;
            if !read_pods || p.out.len() != before + 1 || !matches!(p.out[before].1, Object::Pod(_)) {
                continue;
            }
            if let Some((origin, Object::Pod(pod))) = p.out.pop() {
                // a pod the model refuses: the general path reads the file again and
                // Cluster::build words the error
                p.pods
                    .push((origin, ReadObject::Pod(Pod::read(pod, None, None, &mut intern).ok()?)));
            }
        }
        super::json_fast::pack_from(&mut p.pods, &mut packed, &mut intern);
    }
    p.end = index;
    Some(p)
}

/// Where each item of a single-document `kind: List` is, when the file has the shape
/// `kubectl get -o yaml` and kschedtui write: a column-0 `items:` line followed by a
/// block sequence whose entries start with `- ` at column 0, the other top-level keys
/// (apiVersion, kind: ...List, metadata) before or after it. None for anything else
/// (several documents, flow style, an indented sequence, no List), which the general
/// streaming parser then reads. A shape this misjudges (an alias to an anchor in another
/// item, say) fails to parse and the whole file goes to the general path too.
pub(super) fn split_list(text: &str) -> Option<Vec<std::ops::Range<usize>>> {
    let mut items: Vec<std::ops::Range<usize>> = Vec::new();
    let mut rest = String::new();
    let mut state = 0u8; // 0: before items, 1: in items, 2: after items
    let mut pos = 0usize;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        if body == "---" && start == 0 {
            continue;
        }
        if body.starts_with("---") || body.starts_with("...") || body.starts_with('%') {
            return None;
        }
        match state {
            0 => {
                if body.trim_end() == "items:" {
                    state = 1;
                } else {
                    rest.push_str(line);
                }
            }
            1 => {
                if body.starts_with("- ") || body == "-" {
                    if let Some(last) = items.last_mut() {
                        last.end = start;
                    }
                    items.push(start..pos);
                } else if body.is_empty() || body.starts_with(' ') || body.starts_with('#') {
                    // inside the current item (or before the first: only blanks and
                    // comments are allowed there)
                    match items.last_mut() {
                        Some(last) => last.end = pos,
                        None if body.trim().is_empty() || body.trim_start().starts_with('#') => {}
                        None => return None,
                    }
                } else {
                    state = 2;
                    rest.push_str(line);
                }
            }
            _ => rest.push_str(line),
        }
    }
    if items.is_empty() {
        return None;
    }
    // the keys around the items must make a List
    let head: serde_yaml::Mapping = serde_yaml::from_str(&rest).ok()?;
    let kind = head.get("kind").and_then(serde_yaml::Value::as_str)?;
    if !kind.ends_with("List") || head.contains_key("items") {
        return None;
    }
    Some(items)
}

/// One document: null (skipped), a sequence of objects, a List, or one object.
struct Doc<'a, 's>(&'a mut State<'s>);

impl<'de> Visitor<'de> for Doc<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kubernetes object, a List or a sequence of objects")
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        Items(self.0).visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        let mut map = Map::new();
        let mut streamed = false;
        while let Some(k) = m.next_key::<String>()? {
            if k == "items" {
                if streamed {
                    return Err(give_up());
                }
                // Converted before `kind` is known (kubectl writes `items` first); if this
                // turns out not to be a List, the general path starts over.
                m.next_value_seed(Items(&mut *self.0))?;
                streamed = true;
            } else {
                let v: Value = m.next_value()?;
                map.insert(k, v);
            }
        }
        let is_list = map
            .get("kind")
            .and_then(Value::as_str)
            .is_some_and(|k| k.ends_with("List"));
        match (is_list, streamed) {
            (true, _) => Ok(()),
            (false, false) => self.0.push(Value::Object(map)),
            (false, true) => Err(give_up()),
        }
    }
}

/// A List's `items`: a sequence of objects (or null).
struct Items<'a, 's>(&'a mut State<'s>);

impl<'de> DeserializeSeed<'de> for Items<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Items<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence of objects")
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(v) = seq.next_element::<Value>()? {
            self.0.push(v)?;
        }
        Ok(())
    }
}
