//! What a live server sends, read straight into the form the store keeps
//! ([`crate::model::event::Item`]), as the file loader reads a snapshot: a list page or a watch
//! event's object is made compact without its `metadata.managedFields` (the server's record of
//! who set which field, often as large as the object itself, which nothing in kschedtui reads
//! and `kschedtui snapshot` leaves out), parsed into its kind's type, and a pod or a node is read
//! into the model at once, its compact text kept as the stored object (decoded again only when
//! something reads it: a YAML view, a save, a what-if), the typed object dropped. The texts of a
//! page's pods and nodes are then packed together ([`crate::model::stored::pack`]), so no page
//! is held once read.

use std::borrow::Cow;

use bytes::Bytes;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::kinds::LiveKind;
use crate::model::event::Item;
use crate::model::{Interner, Object, stored};

/// How deep [`compact_object`] follows nested values before it gives up (serde_json's own
/// limit is 128).
const MAX_DEPTH: usize = 128;

/// Appends `text` (one JSON object) to `out` without whitespace outside strings and without
/// its `metadata.managedFields`. None when `text` is not one JSON object it can follow (what
/// was appended is then to be dropped): the caller parses the text as it is, and the parser
/// words the error.
pub(crate) fn compact_object(text: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let mut c = Copier { s: text, i: 0, out };
    c.space();
    if c.peek()? != b'{' {
        return None;
    }
    c.object(Place::Top, 0, true)?;
    c.space();
    (c.i == text.len()).then_some(())
}

/// Where an object being copied is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The object itself.
    Top,
    /// Its metadata.
    Metadata,
    /// Anything else.
    Other,
}

struct Copier<'a> {
    s: &'a [u8],
    i: usize,
    out: &'a mut Vec<u8>,
}

impl Copier<'_> {
    fn space(&mut self) {
        while self
            .s
            .get(self.i)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    /// A string from its opening quote: where it lies (quotes included).
    fn string(&mut self, emit: bool) -> Option<std::ops::Range<usize>> {
        let start = self.i;
        self.i += 1;
        loop {
            let at = memchr::memchr2(b'"', b'\\', self.s.get(self.i..)?)?;
            self.i += at;
            if self.s[self.i] == b'\\' {
                self.i += 2;
                continue;
            }
            self.i += 1;
            break;
        }
        if emit {
            self.out.extend_from_slice(self.s.get(start..self.i)?);
        }
        Some(start..self.i)
    }

    fn value(&mut self, place: Place, depth: usize, emit: bool) -> Option<()> {
        self.space();
        match self.peek()? {
            b'{' => self.object(place, depth + 1, emit),
            b'[' => self.array(depth + 1, emit),
            b'"' => self.string(emit).map(|_| ()),
            _ => {
                // a number, true, false or null: left to the parser to check
                let start = self.i;
                while self
                    .peek()
                    .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.'))
                {
                    self.i += 1;
                }
                if self.i == start {
                    return None;
                }
                if emit {
                    self.out.extend_from_slice(&self.s[start..self.i]);
                }
                Some(())
            }
        }
    }

    fn object(&mut self, place: Place, depth: usize, emit: bool) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        if emit {
            self.out.push(b'{');
        }
        self.space();
        if self.peek()? == b'}' {
            self.i += 1;
            if emit {
                self.out.push(b'}');
            }
            return Some(());
        }
        let mut wrote = false;
        loop {
            self.space();
            if self.peek()? != b'"' {
                return None;
            }
            let key = self.string(false)?;
            let name = &self.s[key.start + 1..key.end - 1];
            self.space();
            if self.peek()? != b':' {
                return None;
            }
            self.i += 1;
            let skip = place == Place::Metadata && name == b"managedFields";
            let inner = if place == Place::Top && name == b"metadata" {
                Place::Metadata
            } else {
                Place::Other
            };
            if emit && !skip {
                if wrote {
                    self.out.push(b',');
                }
                self.out.extend_from_slice(&self.s[key]);
                self.out.push(b':');
                wrote = true;
            }
            self.value(inner, depth, emit && !skip)?;
            self.space();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    if emit {
                        self.out.push(b'}');
                    }
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self, depth: usize, emit: bool) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        if emit {
            self.out.push(b'[');
        }
        self.space();
        if self.peek()? == b']' {
            self.i += 1;
            if emit {
                self.out.push(b']');
            }
            return Some(());
        }
        loop {
            self.value(Place::Other, depth, emit)?;
            self.space();
            match self.peek()? {
                b',' => {
                    self.i += 1;
                    if emit {
                        self.out.push(b',');
                    }
                }
                b']' => {
                    self.i += 1;
                    if emit {
                        self.out.push(b']');
                    }
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

/// A list page: its metadata and its items' texts (borrowed from the body).
#[derive(Deserialize)]
pub(crate) struct Page<'a> {
    #[serde(default)]
    pub(crate) metadata: PageMeta,
    #[serde(borrow, default)]
    pub(crate) items: Option<Vec<&'a RawValue>>,
}

/// A list page's metadata.
#[derive(Deserialize, Default)]
pub(crate) struct PageMeta {
    #[serde(rename = "continue", default)]
    pub(crate) continue_: Option<String>,
    #[serde(rename = "resourceVersion", default)]
    pub(crate) resource_version: Option<String>,
}

/// One line of a watch: its type and its object's text.
#[derive(Deserialize)]
pub(crate) struct WatchLine<'a> {
    #[serde(rename = "type", borrow)]
    pub(crate) type_: Cow<'a, str>,
    #[serde(borrow)]
    pub(crate) object: &'a RawValue,
}

/// Reads the objects of one kind, keeping between them what they share (labels, requests,
/// node names: the loader's [`Interner`]) and the buffers it reuses.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    intern: Interner,
    /// The compact texts of the objects being read.
    text: Vec<u8>,
}

impl Decoder {
    /// One object (a watch event's): its compact text, read as `K`, a pod or a node into the
    /// model.
    pub(crate) fn object<K: LiveKind>(&mut self, text: &str) -> Result<Item, serde_json::Error> {
        self.text.clear();
        let compact = match compact_object(text.as_bytes(), &mut self.text) {
            Some(()) => std::str::from_utf8(&self.text).unwrap_or(text),
            None => text,
        };
        let obj = serde_json::from_str::<K>(compact)?.into_object();
        let own = without_env_values(compact, &obj);
        let text = own.as_deref().unwrap_or(compact);
        Ok(read(obj, text, None, &mut self.intern, || {
            serde_json::from_str::<K>(text).map(LiveKind::into_object)
        }))
    }

    /// The items of a list page, in order, appended to `out`: the page's compact texts are
    /// made into one buffer, each pod's and node's text a slice of it until they are packed
    /// together at the end.
    pub(crate) fn page<K: LiveKind>(
        &mut self,
        items: &[&RawValue],
        out: &mut Vec<Item>,
    ) -> Result<(), serde_json::Error> {
        let mut ranges = Vec::with_capacity(items.len());
        let mut text = std::mem::take(&mut self.text);
        text.clear();
        for it in items {
            let start = text.len();
            if compact_object(it.get().as_bytes(), &mut text).is_none() {
                text.truncate(start);
                text.extend_from_slice(it.get().as_bytes());
            }
            ranges.push(start..text.len());
        }
        let buf = Bytes::from(text);
        let first = out.len();
        out.reserve(items.len());
        for r in ranges {
            let t = std::str::from_utf8(&buf[r]).map_err(serde::de::Error::custom)?;
            let obj = serde_json::from_str::<K>(t)?.into_object();
            out.push(match without_env_values(t, &obj) {
                Some(own) => read(obj, &own, None, &mut self.intern, || {
                    serde_json::from_str::<K>(&own).map(LiveKind::into_object)
                }),
                None => read(obj, t, Some(&buf), &mut self.intern, || {
                    serde_json::from_str::<K>(t).map(LiveKind::into_object)
                }),
            });
        }
        // packed, the objects hold no slice of the buffer: it is used again for the next page
        stored::pack(out[first..].iter_mut().filter_map(Item::slot), &mut self.intern.pack);
        self.text = buf.try_into_mut().map(Vec::from).unwrap_or_default();
        Ok(())
    }
}

/// The text to keep for an object read from `text` when that text has environment variables:
/// the object's own, whose values [`LiveKind::into_object`] dropped (the scheduler never reads
/// them, and they hold passwords and tokens: no snapshot, saved file or screen may show them).
fn without_env_values(text: &str, obj: &Object) -> Option<String> {
    memchr::memmem::find(text.as_bytes(), b"\"env\":")?;
    Some(obj.to_json().to_string())
}

/// [`Item::read`] of an object parsed from `text`.
fn read(
    obj: Object,
    text: &str,
    file: Option<&Bytes>,
    intern: &mut Interner,
    again: impl FnOnce() -> Result<Object, serde_json::Error>,
) -> Item {
    // parsing the same text as the same type gives the same object again; should it not, the
    // object is counted as skipped rather than kept wrong
    Item::read(obj, Some(text), file, intern, || {
        again().unwrap_or_else(|e| Object::Skipped(format!("unreadable object: {e}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::Kind;
    use k8s_openapi::api::core::v1 as core;

    fn compact(s: &str) -> Option<String> {
        let mut out = Vec::new();
        compact_object(s.as_bytes(), &mut out)?;
        Some(String::from_utf8(out).unwrap())
    }

    #[test]
    fn managed_fields_are_left_out_and_the_rest_kept_compact() {
        let pod = r#" {"metadata": {"name": "p", "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {}}}}}],
            "labels": {"a": "b c"}}, "spec": {"managedFields": [1], "x": [1, 2.5e3, true, null, "q\"\\"]}} "#;
        assert_eq!(
            compact(pod).unwrap(),
            r#"{"metadata":{"name":"p","labels":{"a":"b c"}},"spec":{"managedFields":[1],"x":[1,2.5e3,true,null,"q\"\\"]}}"#
        );
        // first, last, only member
        assert_eq!(
            compact(r#"{"metadata":{"managedFields":[],"name":"p"}}"#).unwrap(),
            r#"{"metadata":{"name":"p"}}"#
        );
        assert_eq!(
            compact(r#"{"metadata":{"name":"p","managedFields":{}}}"#).unwrap(),
            r#"{"metadata":{"name":"p"}}"#
        );
        assert_eq!(
            compact(r#"{"metadata":{"managedFields":null}}"#).unwrap(),
            r#"{"metadata":{}}"#
        );
        assert_eq!(compact("{}").unwrap(), "{}");
        // what is not one object is left to the parser
        for bad in [
            "[1]",
            "{\"a\":}",
            "{\"a\":1",
            "{\"a\":1}x",
            "{\"a\" 1}",
            "{\"a\":\"x}",
            "",
        ] {
            assert_eq!(compact(bad), None, "{bad}");
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert_eq!(compact(&format!("{{\"a\":{deep}}}")), None);
    }

    #[test]
    fn a_page_reads_pods_into_the_model_and_keeps_their_text_without_managed_fields() {
        let body = r#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"c1"},"items":[
            {"metadata":{"name":"a","namespace":"x","uid":"u1","resourceVersion":"5","managedFields":[{"manager":"m"}],"labels":{"app":"w"}},
             "spec":{"nodeName":"n1","containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}},
            {"metadata":{"name":"bad","namespace":"x","resourceVersion":"6"},
             "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"lots"}}}]}}]}"#;
        let page: Page<'_> = serde_json::from_str(body).unwrap();
        assert_eq!(page.metadata.continue_.as_deref(), Some("c1"));
        assert_eq!(page.metadata.resource_version.as_deref(), Some("7"));
        let mut d = Decoder::default();
        let mut items = Vec::new();
        d.page::<core::Pod>(&page.items.unwrap(), &mut items).unwrap();
        let Item::Pod { pod, resource_version } = &items[0] else {
            panic!("{:?}", items[0])
        };
        assert_eq!(resource_version.as_str(), "5");
        assert_eq!((items[0].key().to_string(), items[0].uid()), ("x/a".into(), Some("u1")));
        assert_eq!(pod.pod.node_name.as_deref(), Some("n1"));
        let text = pod.pod.obj.json().unwrap();
        assert!(
            !text.contains("managedFields") && text.contains("\"app\":\"w\""),
            "{text}"
        );
        // packed: no slice of the page is held
        assert!(matches!(text, Cow::Owned(_)), "not packed");
        // the model refuses it: kept typed, so that building the cluster says why
        assert!(matches!(&items[1], Item::Object(crate::model::Object::Pod(_))));
        assert_eq!(items[1].resource_version(), Some("6"));
        assert_eq!(items[1].kind(), Some(Kind::Pod));
        let o = items[0].object();
        assert_eq!(o.meta().managed_fields, None);
        assert_eq!(o.meta().labels.as_ref().unwrap()["app"], "w");
        // a watch event's object
        let ev = r#"{"type":"MODIFIED","object":{"kind":"Node","apiVersion":"v1","metadata":{"name":"n1","uid":"u9","resourceVersion":"8","managedFields":[]},"status":{"allocatable":{"cpu":"4"}}}}"#;
        let line: WatchLine<'_> = serde_json::from_str(ev).unwrap();
        assert_eq!(line.type_, "MODIFIED");
        let n = d.object::<core::Node>(line.object.get()).unwrap();
        let Item::Node { node, .. } = &n else { panic!("{n:?}") };
        assert_eq!(
            (node.name.as_str(), n.uid(), n.resource_version()),
            ("n1", Some("u9"), Some("8"))
        );
        assert!(!node.obj.json().unwrap().contains("managedFields"));
    }

    #[test]
    fn environment_values_are_left_out_of_what_is_kept_and_the_names_stay() {
        let pod = |name: &str| {
            format!(
                r#"{{"metadata":{{"name":"{name}","namespace":"x","resourceVersion":"5"}},"spec":{{"containers":[{{"name":"c","env":[{{"name":"DB_PASSWORD","value":"s3cr3t"}},{{"name":"TOKEN","valueFrom":{{"secretKeyRef":{{"name":"t","key":"k"}}}}}}]}}]}}}}"#
            )
        };
        let body = format!(
            r#"{{"items":[{},{}]}}"#,
            pod("a"),
            r#"{"metadata":{"name":"b","namespace":"x"},"spec":{"containers":[{"name":"c"}]}}"#
        );
        let page: Page<'_> = serde_json::from_str(&body).unwrap();
        let mut d = Decoder::default();
        let mut items = Vec::new();
        d.page::<core::Pod>(&page.items.unwrap(), &mut items).unwrap();
        let ev = format!(r#"{{"type":"ADDED","object":{}}}"#, pod("w"));
        let line: WatchLine<'_> = serde_json::from_str(&ev).unwrap();
        items.push(d.object::<core::Pod>(line.object.get()).unwrap());
        for it in &items {
            let Item::Pod { pod, .. } = it else { panic!("{it:?}") };
            let text = pod.pod.obj.json().unwrap();
            assert!(!text.contains("s3cr3t") && !text.contains("secretKeyRef"), "{text}");
            let o = it.object();
            let crate::model::Object::Pod(p) = &*o else { panic!() };
            for e in p.spec.as_ref().unwrap().containers[0].env.iter().flatten() {
                assert_eq!((e.value.as_ref(), e.value_from.as_ref()), (None, None));
            }
        }
        for i in [0, 2] {
            let Item::Pod { pod, .. } = &items[i] else { panic!() };
            let text = pod.pod.obj.json().unwrap();
            assert!(text.contains("DB_PASSWORD") && text.contains("TOKEN"), "{text}");
        }
    }
}
