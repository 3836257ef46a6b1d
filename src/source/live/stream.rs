//! Streaming lists (kube-apiserver's WatchList, KEP-3157): a kind read with one watch that
//! starts with the current state. The server sends every object as an `ADDED` event, then a
//! `BOOKMARK` annotated `k8s.io/initial-events-end: "true"` that carries the resourceVersion of
//! that state; kschedtui stops there and watches from that resourceVersion later, as after a
//! list. The server never builds a page, and kschedtui reads the events a batch at a time into
//! the store's form ([`Decoder::page`]), so neither side holds more than a batch of text.
//!
//! kube-apiserver streams lists by default in 1.32 and from 1.34 (the WatchList gate: beta and
//! on in 1.32, off in 1.33, on again in 1.34); anything else is listed page by page. A server
//! that refuses the request (the gate turned off: 422 Invalid; a role without `watch`: 403), or
//! that ends the stream, goes quiet or sends another event before the bookmark, is listed page
//! by page instead, as client-go's reflector falls back to a list.

use kube::api::WatchParams;

use super::decode::{Decoder, WatchLine};
use super::kinds::LiveKind;
use super::watch::{KindTarget, Progress, WatchOptions};
use crate::model::event::Item;

/// The annotation of the bookmark that ends the initial events.
const INITIAL_EVENTS_END: &str = "k8s.io/initial-events-end";

/// Events read into the store's form together.
const BATCH: usize = 500;

/// Whether kube-apiserver of this release streams lists by default.
pub fn streams_by_default(major: &str, minor: u32) -> bool {
    major == "1" && crate::engine::release::served::api_server_streams_lists(minor)
}

/// Why a streaming list was given up (the kind is then listed page by page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotStreamed(pub String);

/// Lists every object of a kind with one streaming watch: the objects and the resourceVersion
/// of the bookmark that ended them.
pub async fn stream_kind<K: LiveKind>(
    client: &kube::Client,
    target: &KindTarget<'_>,
    opts: &WatchOptions,
    progress: &(dyn Fn(&Progress) + Send + Sync),
) -> Result<(Vec<Item>, String), NotStreamed> {
    use futures::AsyncBufReadExt;
    let mut wp = WatchParams::streaming_lists().timeout(opts.watch_timeout_secs);
    if let Some(f) = K::FIELD_SELECTOR {
        wp = wp.fields(f);
    }
    // no resourceVersion: the state as the request arrives (a consistent read)
    let http = super::watch::watch_request(&target.url, &wp, "").map_err(|e| NotStreamed(e.to_string()))?;
    let stream = match tokio::time::timeout(opts.request_timeout, client.request_stream(http)).await {
        Err(_) => {
            return Err(NotStreamed(format!(
                "no answer within {}s",
                opts.request_timeout.as_secs()
            )));
        }
        Ok(Err(kube::Error::Api(s))) => return Err(NotStreamed(format!("{} {}: {}", s.code, s.reason, s.message))),
        Ok(Err(e)) => return Err(NotStreamed(e.to_string())),
        Ok(Ok(s)) => s,
    };
    let mut stream = std::pin::pin!(stream);
    let mut reader = Batches::default();
    let mut line = Vec::new();
    loop {
        line.clear();
        match tokio::time::timeout(opts.idle_timeout, stream.read_until(b'\n', &mut line)).await {
            Err(_) => {
                return Err(NotStreamed(format!(
                    "nothing for {}s before the end of the initial events",
                    opts.idle_timeout.as_secs()
                )));
            }
            Ok(Ok(0)) => {
                return Err(NotStreamed(
                    "the stream ended before the end of the initial events".into(),
                ));
            }
            Ok(Err(e)) => return Err(NotStreamed(format!("reading the stream: {e}"))),
            Ok(Ok(_)) => {}
        }
        if line.last() != Some(&b'\n') {
            return Err(NotStreamed(
                "the stream was cut before the end of the initial events".into(),
            ));
        }
        match reader.line::<K>(&line).map_err(NotStreamed)? {
            Some(rv) => {
                progress(&Progress {
                    kind: K::KIND,
                    items: reader.items.len(),
                    pages: reader.batches,
                    done: true,
                });
                return Ok((reader.items, rv));
            }
            None if reader.flushed => progress(&Progress {
                kind: K::KIND,
                items: reader.items.len(),
                pages: reader.batches,
                done: false,
            }),
            None => {}
        }
    }
}

/// The initial events of a streaming list read so far: objects in the store's form, and the
/// text of those not read yet.
#[derive(Default)]
struct Batches {
    decoder: Decoder,
    items: Vec<Item>,
    /// Lines of ADDED events not read yet, one after the other.
    text: Vec<u8>,
    /// Where each of those lines ends in `text`.
    ends: Vec<usize>,
    /// Batches read.
    batches: usize,
    /// The last line completed a batch.
    flushed: bool,
}

impl Batches {
    /// Takes one line of the stream: the resourceVersion when it is the bookmark that ends the
    /// initial events (after every object is read), an error for what may not come before it.
    fn line<K: LiveKind>(&mut self, line: &[u8]) -> Result<Option<String>, String> {
        self.flushed = false;
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        let parsed: WatchLine<'_> = serde_json::from_slice(line).map_err(|e| format!("not a watch event: {e}"))?;
        match &*parsed.type_ {
            "ADDED" => {
                self.text.extend_from_slice(line);
                self.ends.push(self.text.len());
                if self.ends.len() >= BATCH {
                    self.flush::<K>()?;
                    self.flushed = true;
                }
                Ok(None)
            }
            "BOOKMARK" => {
                let mark: Bookmark =
                    serde_json::from_str(parsed.object.get()).map_err(|e| format!("a bookmark: {e}"))?;
                if mark.metadata.annotations.get(INITIAL_EVENTS_END).map(String::as_str) != Some("true") {
                    return Ok(None);
                }
                self.flush::<K>()?;
                Ok(Some(mark.metadata.resource_version.unwrap_or_default()))
            }
            other => Err(format!(
                "a {other} event before the end of the initial events: {}",
                String::from_utf8_lossy(&line[..line.len().min(300)]).trim_end()
            )),
        }
    }

    /// Reads the lines kept into the store's form.
    fn flush<K: LiveKind>(&mut self) -> Result<(), String> {
        if self.ends.is_empty() {
            return Ok(());
        }
        let mut objects = Vec::with_capacity(self.ends.len());
        let mut start = 0;
        for &end in &self.ends {
            let parsed: WatchLine<'_> =
                serde_json::from_slice(&self.text[start..end]).map_err(|e| format!("not a watch event: {e}"))?;
            objects.push(parsed.object);
            start = end;
        }
        self.decoder
            .page::<K>(&objects, &mut self.items)
            .map_err(|e| format!("an object of the initial events: {e}"))?;
        drop(objects);
        self.text.clear();
        self.ends.clear();
        self.batches += 1;
        Ok(())
    }
}

/// What kschedtui reads of a bookmark.
#[derive(serde::Deserialize)]
struct Bookmark {
    #[serde(default)]
    metadata: BookmarkMeta,
}

#[derive(serde::Deserialize, Default)]
struct BookmarkMeta {
    #[serde(rename = "resourceVersion", default)]
    resource_version: Option<String>,
    #[serde(default)]
    annotations: std::collections::BTreeMap<String, String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::Pod;

    fn added(name: &str) -> String {
        format!(
            r#"{{"type":"ADDED","object":{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"default","uid":"u-{name}","resourceVersion":"7","managedFields":[{{"manager":"kubectl"}}]}},"spec":{{"containers":[{{"name":"c","image":"i"}}]}}}}}}
"#
        )
    }

    fn bookmark(rv: &str, end: bool) -> String {
        let ann = if end {
            r#","annotations":{"k8s.io/initial-events-end":"true"}"#
        } else {
            ""
        };
        format!(
            r#"{{"type":"BOOKMARK","object":{{"kind":"Pod","apiVersion":"v1","metadata":{{"resourceVersion":"{rv}"{ann}}}}}}}"#
        ) + "\n"
    }

    #[test]
    fn releases_that_stream_lists_by_default() {
        let on: Vec<u32> = (27..=38).filter(|m| streams_by_default("1", *m)).collect();
        assert_eq!(on, vec![32, 34, 35, 36, 37, 38]);
        assert!(!streams_by_default("2", 40));
    }

    #[test]
    fn added_events_are_read_in_batches_until_the_bookmark_that_ends_them() {
        let mut b = Batches::default();
        for i in 0..BATCH + 3 {
            assert_eq!(b.line::<Pod>(added(&format!("p{i}")).as_bytes()), Ok(None));
            // a batch is read as soon as it is whole
            assert_eq!(b.flushed, i + 1 == BATCH, "{i}");
        }
        assert_eq!((b.items.len(), b.ends.len(), b.batches), (BATCH, 3, 1));
        // a bookmark of the watch's own is not the end
        assert_eq!(b.line::<Pod>(bookmark("10", false).as_bytes()), Ok(None));
        assert_eq!(b.line::<Pod>(bookmark("12", true).as_bytes()), Ok(Some("12".into())));
        assert_eq!((b.items.len(), b.ends.len(), b.batches), (BATCH + 3, 0, 2));
        let names: Vec<String> = b
            .items
            .iter()
            .map(|it| {
                assert!(matches!(it, Item::Pod { .. }), "not read into the model: {it:?}");
                it.key().name.to_string()
            })
            .collect();
        assert_eq!(names[0], "p0");
        assert_eq!(names[BATCH + 2], format!("p{}", BATCH + 2));
        // as from a list page: no managedFields in what is kept
        let Item::Pod { pod, .. } = &b.items[1] else { panic!() };
        let text = pod.pod.obj.json().unwrap();
        assert!(
            !text.contains("managedFields") && text.contains(r#""uid":"u-p1""#),
            "{text}"
        );
    }

    #[test]
    fn another_event_or_a_line_that_is_not_one_before_the_end_gives_up() {
        let mut b = Batches::default();
        let modified = added("x").replace("ADDED", "MODIFIED");
        let e = b.line::<Pod>(modified.as_bytes()).unwrap_err();
        assert!(
            e.starts_with("a MODIFIED event before the end of the initial events: {\"type\":\"MODIFIED\""),
            "{e}"
        );
        let e = b.line::<Pod>(b"<html>\n").unwrap_err();
        assert!(e.starts_with("not a watch event: "), "{e}");
        let error = r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired"}}"#;
        let e = b.line::<Pod>(error.as_bytes()).unwrap_err();
        assert!(e.starts_with("a ERROR event before the end"), "{e}");
        assert_eq!(b.line::<Pod>(b"\n"), Ok(None));
    }
}
