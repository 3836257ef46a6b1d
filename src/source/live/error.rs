//! What can go wrong talking to an API server, as one line that names the server and says what
//! to do. [`classify`] turns a `kube::Error` (and its chain of causes) into a [`LiveError`].

/// A failure reading from a live cluster.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LiveError {
    /// The kubeconfig could not be found, read or used (the message says which and why).
    #[error("{0}")]
    Config(String),
    /// No TCP connection (refused, no route, DNS).
    #[error(
        "cannot reach the API server at {server} ({cause}); check that the cluster is running and that the kubeconfig points at it (`kubectl cluster-info`)"
    )]
    Unreachable {
        /// Server URL.
        server: String,
        /// The underlying error, shortened.
        cause: String,
    },
    /// The TLS handshake failed (unknown CA, wrong name, expired server certificate, not TLS).
    #[error(
        "TLS handshake with {server} failed ({cause}); check the cluster's certificate-authority data in the kubeconfig and that {server} is the API server's address"
    )]
    Tls {
        /// Server URL.
        server: String,
        /// The underlying error, shortened.
        cause: String,
    },
    /// The client credential could not be obtained or has expired (exec plugin failed,
    /// token file unreadable, client certificate expired).
    #[error(
        "the credentials of context '{context}' for {server} could not be used ({cause}); they have probably expired: log in again (for example rerun your provider's get-credentials command) and retry"
    )]
    Credentials {
        /// Server URL.
        server: String,
        /// Context.
        context: String,
        /// The underlying error, shortened.
        cause: String,
    },
    /// 401.
    #[error(
        "{server} rejected the credentials of context '{context}' (401 Unauthorized); they have probably expired: log in again and retry"
    )]
    Unauthorized {
        /// Server URL.
        server: String,
        /// Context.
        context: String,
    },
    /// 403 on a read.
    #[error(
        "{server} does not allow context '{context}' to {verb} {resource} (403 Forbidden{}); kschedtui needs get, list and watch on it: ask a cluster admin",
        if .message.is_empty() { String::new() } else { format!(": {}", .message) }
    )]
    Forbidden {
        /// Server URL.
        server: String,
        /// Context.
        context: String,
        /// Verb.
        verb: String,
        /// Resource (and scope).
        resource: String,
        /// Server message.
        message: String,
    },
    /// No answer in time.
    #[error(
        "{server} did not answer within {secs}s while {doing}; check the network or retry with a longer --request-timeout"
    )]
    Timeout {
        /// Server URL.
        server: String,
        /// What was being done.
        doing: String,
        /// Seconds.
        secs: u64,
    },
    /// Any other HTTP error.
    #[error("{server} answered {code} while {doing}: {message}")]
    Api {
        /// Server URL.
        server: String,
        /// What was being done.
        doing: String,
        /// HTTP code.
        code: u16,
        /// Server message.
        message: String,
    },
    /// A paginated list whose server sent a continue token it had sent before: paging on would
    /// never end.
    #[error(
        "{server} sent a continue token it had already sent while {doing} (page {page}, {items} object(s) so far): the list does not progress, so kschedtui stopped it; the API server, or a proxy in front of it, does not page {resource} correctly"
    )]
    ListNoProgress {
        /// Server URL.
        server: String,
        /// What was being done ("listing pods in all namespaces").
        doing: String,
        /// The resource (and scope).
        resource: String,
        /// The page that repeated a token (from 1).
        page: usize,
        /// Objects received until then.
        items: usize,
    },
    /// The answer is not JSON: something other than the API server answered (a proxy's login
    /// page).
    #[error(
        "{server} answered {what}, not the API's JSON, while {doing} (HTTP {code}, Content-Type: {content_type}, first line: {first_line}): something other than the API server answered, a proxy's login page say; check the server URL and the proxy settings (proxy-url, HTTPS_PROXY) of the kubeconfig"
    )]
    NotJson {
        /// Server URL.
        server: String,
        /// What was being done.
        doing: String,
        /// "an HTML page", or "text that is not JSON".
        what: String,
        /// HTTP code.
        code: u16,
        /// The Content-Type header ("none" without one).
        content_type: String,
        /// The body's first line.
        first_line: String,
    },
    /// Anything else.
    #[error("error talking to {server} while {doing}: {cause}")]
    Other {
        /// Server URL.
        server: String,
        /// What was being done.
        doing: String,
        /// The underlying error.
        cause: String,
    },
}

impl LiveError {
    /// The HTTP code of an API answer, if that is what this is.
    pub fn code(&self) -> Option<u16> {
        match self {
            LiveError::Unauthorized { .. } => Some(401),
            LiveError::Forbidden { .. } => Some(403),
            LiveError::Api { code, .. } => Some(*code),
            _ => None,
        }
    }
}

/// Where an error happened, for its message.
#[derive(Clone, Debug)]
pub struct ErrorContext<'a> {
    /// Server URL.
    pub server: &'a str,
    /// Context name.
    pub context: &'a str,
    /// What was being done ("listing pods").
    pub doing: &'a str,
    /// Verb, for 403 messages ("list").
    pub verb: &'a str,
    /// Resource, for 403 messages ("pods in all namespaces").
    pub resource: &'a str,
}

/// Every message in the error's chain, outermost first, joined with ": ".
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(x) = cur {
        let s = x.to_string();
        if !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
        cur = x.source();
    }
    parts.join(": ")
}

/// The innermost message of the chain (the most specific cause).
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur: &(dyn std::error::Error + 'static) = e;
    while let Some(s) = cur.source() {
        cur = s;
    }
    cur.to_string()
}

/// What an exec credential plugin wrote on stderr, from kube's error text
/// (`... Output { status: .., stdout: "..", stderr: "MESSAGE\n" }`), on one line.
fn exec_stderr(text: &str) -> Option<String> {
    let start = text.find("stderr: \"")? + "stderr: \"".len();
    let mut out = String::new();
    let mut chars = text[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => match chars.next() {
                Some('n') => out.push(' '),
                Some(o) => out.push(o),
                None => break,
            },
            c => out.push(c),
        }
    }
    let out = out.trim().to_string();
    if out.is_empty() { None } else { Some(out) }
}

/// Turns a client error into a user message.
pub fn classify(e: &kube::Error, cx: &ErrorContext<'_>) -> LiveError {
    let server = cx.server.to_string();
    if let kube::Error::Api(s) = e {
        return match s.code {
            401 => LiveError::Unauthorized {
                server,
                context: cx.context.to_string(),
            },
            403 => LiveError::Forbidden {
                server,
                context: cx.context.to_string(),
                verb: cx.verb.to_string(),
                resource: cx.resource.to_string(),
                message: s.message.clone(),
            },
            code => LiveError::Api {
                server,
                doing: cx.doing.to_string(),
                code,
                message: if s.message.is_empty() {
                    s.reason.clone()
                } else {
                    s.message.clone()
                },
            },
        };
    }
    // a proxy's or server's URL in the client's error keeps its credentials out
    let text = without_credentials(&chain(e));
    let lower = text.to_lowercase();
    let cause = without_credentials(&root_cause(e));
    if matches!(e, kube::Error::Auth(_)) {
        let cause = match exec_stderr(&text) {
            Some(err) => format!("the exec credential plugin failed: {err}"),
            None => text,
        };
        return LiveError::Credentials {
            server,
            context: cx.context.to_string(),
            cause,
        };
    }
    // A server that refuses an expired client certificate sends a TLS alert.
    if lower.contains("certificateexpired") || (lower.contains("certificate expired") && lower.contains("alert")) {
        return LiveError::Credentials {
            server,
            context: cx.context.to_string(),
            cause: "the client certificate has expired".into(),
        };
    }
    let tls_words = [
        "certificate",
        "tls",
        "handshake",
        "invalidcontenttype",
        "corrupt message",
        "unknownissuer",
        "notvalidforname",
        "peer sent no certificates",
    ];
    if matches!(e, kube::Error::RustlsTls(_)) || tls_words.iter().any(|w| lower.contains(w)) {
        return LiveError::Tls { server, cause };
    }
    let net_words = [
        "connection refused",
        "tcp connect",
        "dns error",
        "failed to lookup",
        "no route to host",
        "network is unreachable",
        "connection reset",
        "client error (connect)",
    ];
    if net_words.iter().any(|w| lower.contains(w)) {
        return LiveError::Unreachable { server, cause };
    }
    if lower.contains("timed out") || lower.contains("deadline has elapsed") {
        return LiveError::Timeout {
            server,
            doing: cx.doing.to_string(),
            secs: 0,
        };
    }
    LiveError::Other {
        server,
        doing: cx.doing.to_string(),
        cause: text,
    }
}

/// `text` with the user information of every URL in it left out (`https://user:pass@host/x` →
/// `https://host/x`): a server or proxy URL may carry a password, which no message, header or
/// snapshot repeats.
pub fn without_credentials(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        // the authority ends at the path, the query, the fragment or the end of the URL
        let end = tail
            .find(|c: char| matches!(c, '/' | '?' | '#' | '"' | '\'' | '<' | '>' | '`') || c.is_whitespace())
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        out.push_str(authority.rfind('@').map_or(authority, |at| &authority[at + 1..]));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx() -> ErrorContext<'static> {
        ErrorContext {
            server: "https://10.0.0.1:6443",
            context: "prod",
            doing: "listing pods",
            verb: "list",
            resource: "pods in all namespaces",
        }
    }

    fn api(code: u16, message: &str) -> kube::Error {
        kube::Error::Api(Box::new(kube::core::Status {
            code,
            message: message.into(),
            ..Default::default()
        }))
    }

    #[test]
    fn api_codes_become_sentences() {
        assert_eq!(
            classify(&api(401, "Unauthorized"), &cx()).to_string(),
            "https://10.0.0.1:6443 rejected the credentials of context 'prod' (401 Unauthorized); they have probably expired: log in again and retry"
        );
        assert_eq!(
            classify(
                &api(403, "pods is forbidden: User \"bob\" cannot list resource \"pods\""),
                &cx()
            )
            .to_string(),
            "https://10.0.0.1:6443 does not allow context 'prod' to list pods in all namespaces (403 Forbidden: pods is forbidden: User \"bob\" cannot list resource \"pods\"); kschedtui needs get, list and watch on it: ask a cluster admin"
        );
        assert_eq!(
            classify(&api(500, "etcd down"), &cx()).to_string(),
            "https://10.0.0.1:6443 answered 500 while listing pods: etcd down"
        );
    }

    #[test]
    fn exec_plugin_stderr_is_extracted() {
        let text = r#"auth error: auth exec command 'sh' failed with status exit status: 1: Output { status: ExitStatus(unix_wait_status(256)), stdout: "", stderr: "error: the SSO session has expired\nrun login\n" }"#;
        assert_eq!(
            exec_stderr(text).as_deref(),
            Some("error: the SSO session has expired run login")
        );
        assert_eq!(exec_stderr("auth error: token file missing"), None);
    }

    #[test]
    fn io_errors_are_classified_by_cause() {
        let refused = kube::Error::Service(Box::new(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "tcp connect error: Connection refused (os error 111)",
        )));
        assert!(matches!(classify(&refused, &cx()), LiveError::Unreachable { .. }));
        let tls = kube::Error::Service(Box::new(std::io::Error::other(
            "invalid peer certificate: UnknownIssuer",
        )));
        assert_eq!(
            classify(&tls, &cx()).to_string(),
            "TLS handshake with https://10.0.0.1:6443 failed (invalid peer certificate: UnknownIssuer); check the cluster's certificate-authority data in the kubeconfig and that https://10.0.0.1:6443 is the API server's address"
        );
        let expired = kube::Error::Service(Box::new(std::io::Error::other(
            "received fatal alert: CertificateExpired",
        )));
        assert!(matches!(classify(&expired, &cx()), LiveError::Credentials { .. }));
    }
}
