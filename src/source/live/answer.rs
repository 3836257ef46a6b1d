//! An API answer read as JSON. When something other than the API server answers (a proxy's
//! or a single-sign-on gateway's login page, a load balancer's error page), the error says
//! what came (the HTTP code, the content type, the first line) instead of the JSON parser's
//! "expected value at line 1 column 1".

use serde::de::{DeserializeOwned, IgnoredAny};

use super::error::{ErrorContext, LiveError};

/// Why an answer was not read.
#[derive(Debug)]
pub(crate) enum Failure {
    /// What kube reports: the connection, or the API's own error (a `Status`).
    Kube(kube::Error),
    /// The body is not JSON.
    NotJson(NotJson),
    /// No answer within the request timeout (seconds).
    TimedOut(u64),
}

/// An answer that is not JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NotJson {
    /// The HTTP code.
    pub(crate) code: u16,
    /// The Content-Type header ("" without one).
    pub(crate) content_type: String,
    /// The body's first line that is not blank, shortened.
    pub(crate) first_line: String,
}

/// How much of the body's first line a message quotes.
const LINE_CHARS: usize = 120;

impl NotJson {
    fn of(code: u16, content_type: &str, body: &[u8]) -> Self {
        let text = String::from_utf8_lossy(body);
        let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        let mut first_line: String = line.chars().take(LINE_CHARS).collect();
        if line.chars().count() > LINE_CHARS {
            first_line.push('…');
        }
        NotJson {
            code,
            content_type: content_type.to_string(),
            first_line,
        }
    }

    /// The error, for the request `cx` describes.
    pub(crate) fn error(&self, cx: &ErrorContext<'_>) -> LiveError {
        let html = self.content_type.to_ascii_lowercase().contains("html") || self.first_line.starts_with('<');
        LiveError::NotJson {
            server: cx.server.to_string(),
            doing: cx.doing.to_string(),
            what: if html { "an HTML page" } else { "text that is not JSON" }.to_string(),
            code: self.code,
            content_type: if self.content_type.is_empty() {
                "none".to_string()
            } else {
                self.content_type.clone()
            },
            first_line: if self.first_line.is_empty() {
                "(an empty body)".to_string()
            } else {
                self.first_line.clone()
            },
        }
    }
}

impl Failure {
    /// The error, for the request `cx` describes.
    pub(crate) fn error(&self, cx: &ErrorContext<'_>) -> LiveError {
        match self {
            Failure::Kube(e) => super::error::classify(e, cx),
            Failure::NotJson(n) => n.error(cx),
            Failure::TimedOut(secs) => LiveError::Timeout {
                server: cx.server.to_string(),
                doing: cx.doing.to_string(),
                secs: *secs,
            },
        }
    }
}

/// Sends a request and reads its answer as `T`, as kube's `Client::request` does (an error
/// code with a `Status` body is kube's `Error::Api`), but keeping what came when it is not
/// JSON. A 401 or 403 that is not a `Status` is still kube's `Error::Api` with that code (the
/// credentials are refused, whoever says so).
pub(crate) async fn get_json<T: DeserializeOwned>(
    client: &kube::Client,
    req: http::Request<Vec<u8>>,
) -> Result<T, Failure> {
    let res = client
        .send(req.map(kube::client::Body::from))
        .await
        .map_err(Failure::Kube)?;
    let (code, content_type) = status_of(&res);
    let body = res.into_body().collect_bytes().await.map_err(Failure::Kube)?;
    read(code, &content_type, &body)
}

/// An answer's status code and Content-Type (empty when absent or not text).
fn status_of<B>(res: &http::Response<B>) -> (u16, String) {
    let content_type = res
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    (res.status().as_u16(), content_type)
}

/// Sends a request and returns its body unless the server answered with an error code (the
/// failure [`get_json`] makes of that). The body is read frame by frame into `buf` (cleared
/// first), a buffer the caller uses again for its next request: a list page read whole each time
/// cost a fresh buffer of its size per page, and its frames held meanwhile. The caller parses the
/// body anyway (a list page): on a parse error it asks [`Answer::not_read`] what came.
pub(crate) async fn get_body(
    client: &kube::Client,
    req: http::Request<Vec<u8>>,
    mut buf: Vec<u8>,
) -> Result<Answer, Failure> {
    use http_body::Body as _;
    let res = client
        .send(req.map(kube::client::Body::from))
        .await
        .map_err(Failure::Kube)?;
    let (code, content_type) = status_of(&res);
    let mut body = res.into_body();
    buf.clear();
    while let Some(frame) = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await {
        if let Ok(data) = frame.map_err(Failure::Kube)?.into_data() {
            buf.extend_from_slice(&data);
        }
    }
    if code >= 400 {
        return Err(failure(code, &content_type, &buf));
    }
    Ok(Answer {
        code,
        content_type,
        body: buf,
    })
}

/// A successful answer's body, with what names it if it is not JSON.
pub(crate) struct Answer {
    code: u16,
    content_type: String,
    /// The body.
    pub(crate) body: Vec<u8>,
}

impl Answer {
    /// Why the body could not be read as `T` (`e`, the parser's error): what came when it is
    /// not JSON, the parser's error when it is JSON of another shape.
    pub(crate) fn not_read(&self, e: serde_json::Error) -> Failure {
        if serde_json::from_slice::<IgnoredAny>(&self.body).is_ok() {
            Failure::Kube(kube::Error::SerdeError(e))
        } else {
            Failure::NotJson(NotJson::of(self.code, &self.content_type, &self.body))
        }
    }
}

/// The failure of an answer with an error code (see [`get_json`]).
fn failure(code: u16, content_type: &str, body: &[u8]) -> Failure {
    let is_json = serde_json::from_slice::<IgnoredAny>(body).is_ok();
    if let Ok(status) = serde_json::from_slice::<kube::core::Status>(body)
        && is_json
    {
        return Failure::Kube(kube::Error::Api(Box::new(status)));
    }
    if code == 401 || code == 403 || is_json {
        let text = String::from_utf8_lossy(body).trim().to_string();
        let status = kube::core::Status::failure(&text, "Failed to parse error data").with_code(code);
        return Failure::Kube(kube::Error::Api(Box::new(status)));
    }
    Failure::NotJson(NotJson::of(code, content_type, body))
}

/// Reads an answer's body (see [`get_json`]).
fn read<T: DeserializeOwned>(code: u16, content_type: &str, body: &[u8]) -> Result<T, Failure> {
    if code >= 400 {
        return Err(failure(code, content_type, body));
    }
    let is_json = serde_json::from_slice::<IgnoredAny>(body).is_ok();
    if !is_json {
        return Err(Failure::NotJson(NotJson::of(code, content_type, body)));
    }
    serde_json::from_slice(body).map_err(|e| Failure::Kube(kube::Error::SerdeError(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx() -> ErrorContext<'static> {
        ErrorContext {
            server: "https://k8s.example.com",
            context: "prod",
            doing: "reading the server version",
            verb: "get",
            resource: "/version",
        }
    }

    #[test]
    fn a_login_page_is_named_with_its_content_type_and_first_line() {
        let page = b"\n  <!DOCTYPE html>\n<html><head><title>Sign in - Corp SSO</title></head></html>\n";
        let Err(Failure::NotJson(n)) = read::<serde_json::Value>(200, "text/html; charset=utf-8", page) else {
            panic!()
        };
        assert_eq!(
            n.error(&cx()).to_string(),
            "https://k8s.example.com answered an HTML page, not the API's JSON, while reading the server version (HTTP 200, Content-Type: text/html; charset=utf-8, first line: <!DOCTYPE html>): something other than the API server answered, a proxy's login page say; check the server URL and the proxy settings (proxy-url, HTTPS_PROXY) of the kubeconfig"
        );
        let Err(Failure::NotJson(n)) = read::<serde_json::Value>(502, "", b"Bad gateway") else {
            panic!()
        };
        assert_eq!(
            n.error(&cx()).to_string(),
            "https://k8s.example.com answered text that is not JSON, not the API's JSON, while reading the server version (HTTP 502, Content-Type: none, first line: Bad gateway): something other than the API server answered, a proxy's login page say; check the server URL and the proxy settings (proxy-url, HTTPS_PROXY) of the kubeconfig"
        );
        // the API's own errors and refused credentials stay what they were
        let status = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"nope","reason":"NotFound","code":404}"#;
        let Err(Failure::Kube(kube::Error::Api(s))) = read::<serde_json::Value>(404, "application/json", status) else {
            panic!()
        };
        assert_eq!((s.code, s.message.as_str()), (404, "nope"));
        let Err(Failure::Kube(kube::Error::Api(s))) =
            read::<serde_json::Value>(401, "text/html", b"<html>login</html>")
        else {
            panic!()
        };
        assert_eq!(s.code, 401);
        // JSON of the wrong shape is the parser's error, as before
        assert!(matches!(
            read::<Vec<u32>>(200, "application/json", b"{\"a\": 1}"),
            Err(Failure::Kube(kube::Error::SerdeError(_)))
        ));
        assert_eq!(read::<Vec<u32>>(200, "application/json", b"[1, 2]").unwrap(), [1, 2]);
    }
}
