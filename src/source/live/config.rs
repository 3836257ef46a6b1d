//! Finds the cluster the way kubectl does (client-go's loading rules), using kube's
//! `Kubeconfig` and `Config`:
//!
//! 1. `--kubeconfig FILE`: that file only (it must exist);
//! 2. else `KUBECONFIG`: every listed file that exists, merged (the first file to set a value
//!    wins, `current-context` included);
//! 3. else `~/.kube/config` if it exists;
//! 4. else, inside a pod (`KUBERNETES_SERVICE_HOST` set), the service account.
//!
//! `--context` picks a context instead of `current-context`; `-n/--namespace` overrides the
//! context's namespace (default `default`). Every auth kind kube supports works unchanged:
//! tokens and token files, client certificates, exec plugins, auth providers, CA data,
//! `insecure-skip-tls-verify`, proxies.
//!
//! The process environment is read in one place ([`Environment::from_process`]) so tests can
//! pass their own.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};

use super::error::LiveError;

/// What kubectl reads from the environment.
#[derive(Clone, Debug, Default)]
pub struct Environment {
    /// `KUBECONFIG`.
    pub kubeconfig: Option<OsString>,
    /// The home directory (`HOME`, or `USERPROFILE` on Windows).
    pub home: Option<PathBuf>,
    /// `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT` are set (running in a pod).
    pub in_cluster: bool,
}

impl Environment {
    /// Reads the process environment.
    pub fn from_process() -> Self {
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        Environment {
            kubeconfig: std::env::var_os("KUBECONFIG"),
            home,
            in_cluster: std::env::var_os("KUBERNETES_SERVICE_HOST").is_some()
                && std::env::var_os("KUBERNETES_SERVICE_PORT").is_some(),
        }
    }
}

/// The user's choices.
#[derive(Clone, Debug, Default)]
pub struct ConfigOptions {
    /// `--kubeconfig`.
    pub kubeconfig: Option<PathBuf>,
    /// `--context`.
    pub context: Option<String>,
    /// `-n/--namespace`.
    pub namespace: Option<String>,
    /// Connect and request timeout.
    pub timeout: Option<Duration>,
}

/// Where the connection goes, for messages and reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionInfo {
    /// Server URL without a trailing slash.
    pub server: String,
    /// Context name ("in-cluster" for a service account).
    pub context: String,
    /// Namespace (from `-n`, the context, or `default`).
    pub namespace: String,
    /// Where the configuration came from (files, or "in-cluster service account").
    pub origin: String,
}

/// A configuration ready for a client.
pub struct Resolved {
    /// kube's configuration (retries off: kschedtui never retries a request blindly).
    pub config: kube::Config,
    /// Where it points.
    pub info: ConnectionInfo,
}

pub use super::error::without_credentials;

/// The kubeconfig files to read, in precedence order (empty: none found).
pub fn kubeconfig_files(explicit: Option<&Path>, env: &Environment) -> Result<Vec<PathBuf>, LiveError> {
    if let Some(p) = explicit {
        if !p.exists() {
            return Err(LiveError::Config(format!(
                "kubeconfig '{}' does not exist; check the --kubeconfig path",
                p.display()
            )));
        }
        return Ok(vec![p.to_path_buf()]);
    }
    if let Some(v) = env.kubeconfig.as_ref().filter(|v| !v.is_empty()) {
        return Ok(std::env::split_paths(v)
            .filter(|p| !p.as_os_str().is_empty() && p.exists())
            .collect());
    }
    if let Some(h) = &env.home {
        let p = h.join(".kube").join("config");
        if p.exists() {
            return Ok(vec![p]);
        }
    }
    Ok(Vec::new())
}

fn show_files(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| format!("'{}'", f.display()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One PEM field of a kubeconfig (inline `*-data`, base64, or a file), checked for what it must
/// hold: `tags` are the PEM labels accepted ("CERTIFICATE", or the private key labels).
fn check_pem(field: &str, data: Option<&str>, file: Option<&str>, tags: &[&str]) -> Result<(), String> {
    use base64::Engine;
    let (bytes, name) = match (data, file) {
        (Some(d), _) => {
            let clean: String = d.chars().filter(|c| !c.is_whitespace()).collect();
            let b = base64::engine::general_purpose::STANDARD
                .decode(clean.as_bytes())
                .map_err(|e| format!("{field}-data is not valid base64 ({e})"))?;
            (b, format!("{field}-data"))
        }
        (None, Some(f)) => {
            let b = std::fs::read(f).map_err(|e| format!("{field} file '{f}' cannot be read ({e})"))?;
            (b, format!("{field} file '{f}'"))
        }
        (None, None) => return Ok(()),
    };
    let blocks = pem::parse_many(&bytes).map_err(|e| format!("{name} is not PEM ({e})"))?;
    if blocks.is_empty() {
        return Err(format!("{name} holds no PEM block (expected {})", tags.join(" or ")));
    }
    if !blocks.iter().any(|b| tags.contains(&b.tag())) {
        let found: Vec<&str> = blocks.iter().map(pem::Pem::tag).collect();
        return Err(format!(
            "{name} holds {} where a {} is expected",
            found.join(", "),
            tags.join(" or ")
        ));
    }
    Ok(())
}

/// The context's certificate-authority and client certificate and key, checked before any
/// connection so that a broken one is named by its field (a handshake failure cannot say
/// which side is at fault).
fn check_tls_material(k: &Kubeconfig, context: &str, files: &str) -> Result<(), LiveError> {
    use secrecy::ExposeSecret;
    let Some(ctx) = k
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
    else {
        return Ok(());
    };
    const KEYS: &[&str] = &["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"];
    if let Some(cl) = k
        .clusters
        .iter()
        .find(|c| c.name == ctx.cluster)
        .and_then(|c| c.cluster.as_ref())
    {
        check_pem(
            "certificate-authority",
            cl.certificate_authority_data.as_deref(),
            cl.certificate_authority.as_deref(),
            &["CERTIFICATE"],
        )
        .map_err(|e| LiveError::Config(format!("kubeconfig {files}: cluster '{}': {e}", ctx.cluster)))?;
    }
    let Some(user) = ctx.user.as_deref() else {
        return Ok(());
    };
    if let Some(a) = k
        .auth_infos
        .iter()
        .find(|a| a.name == user)
        .and_then(|a| a.auth_info.as_ref())
    {
        let key_data = a.client_key_data.as_ref().map(|s| s.expose_secret().to_string());
        let at = |e: String| LiveError::Config(format!("kubeconfig {files}: user '{user}': {e}"));
        check_pem(
            "client-certificate",
            a.client_certificate_data.as_deref(),
            a.client_certificate.as_deref(),
            &["CERTIFICATE"],
        )
        .map_err(at)?;
        check_pem("client-key", key_data.as_deref(), a.client_key.as_deref(), KEYS).map_err(at)?;
        let has_cert = a.client_certificate_data.is_some() || a.client_certificate.is_some();
        let has_key = key_data.is_some() || a.client_key.is_some();
        if has_cert != has_key {
            let (set, missing) = if has_cert {
                ("client-certificate", "client-key")
            } else {
                ("client-key", "client-certificate")
            };
            return Err(at(format!(
                "{set} is set but {missing} is not: a client certificate needs both"
            )));
        }
    }
    Ok(())
}

/// The bearer token file the client would read (a user's `tokenFile`, or the in-cluster
/// service account's token), read first: a missing or unreadable file is named as such (kube's
/// error reached the user as credentials that "probably expired"), and a token with
/// surrounding whitespace (a file written by `echo` ends in a newline) is trimmed, as client-go
/// trims it (kube sends it as it is, and a newline cannot go in a header). A trimmed token
/// replaces the file (kube would read the file again each minute, untrimmed); a clean file is
/// left to kube, which then follows its rotation. `who` names the user for messages, `hint`
/// says what to do. Nothing to
/// do when the client uses other credentials first (an auth provider, a username and password,
/// a token).
pub(crate) fn check_token_file(auth: &mut kube::config::AuthInfo, who: &str, hint: &str) -> Result<(), LiveError> {
    if auth.auth_provider.is_some() || (auth.username.is_some() && auth.password.is_some()) || auth.token.is_some() {
        return Ok(());
    }
    let Some(file) = auth.token_file.clone() else {
        return Ok(());
    };
    let text =
        crate::source::input::read_text_limited(Path::new(&file), crate::source::input::CONFIG_LIMIT).map_err(|e| {
            let what = if e.kind() == std::io::ErrorKind::NotFound {
                "does not exist".to_string()
            } else {
                format!("cannot be read ({e})")
            };
            LiveError::Config(format!("{who}: the token file '{file}' {what}; {hint}"))
        })?;
    let token = text.trim();
    if token.is_empty() {
        return Err(LiveError::Config(format!(
            "{who}: the token file '{file}' is empty; {hint}"
        )));
    }
    if token.len() != text.len() {
        auth.token = Some(secrecy::SecretString::from(token.to_string()));
    }
    Ok(())
}

/// Reads a kubeconfig text as `resolve` reads a file and checks the TLS material of every
/// context (the fuzz target's body; errors are returned, never panics).
pub fn check_kubeconfig_text(text: &str) -> Vec<String> {
    let Ok(k) = Kubeconfig::from_yaml(text) else {
        return vec!["not a kubeconfig".into()];
    };
    let names: Vec<String> = k.contexts.iter().map(|c| c.name.clone()).collect();
    names
        .iter()
        .filter_map(|c| check_tls_material(&k, c, "'fuzz'").err().map(|e| e.to_string()))
        .collect()
}

/// A kubeconfig's text: UTF-8, or UTF-16 after its byte order mark, as kube reads it; a UTF-8
/// byte order mark skipped.
fn kubeconfig_text(bytes: Vec<u8>) -> Result<String, String> {
    let utf16 = |rest: &[u8], from: fn([u8; 2]) -> u16, what: &str| {
        let units: Vec<u16> = rest.chunks_exact(2).map(|c| from([c[0], c[1]])).collect();
        if !rest.len().is_multiple_of(2) {
            return Err(format!("not valid {what} (an odd number of bytes)"));
        }
        String::from_utf16(&units).map_err(|_| format!("not valid {what}"))
    };
    match bytes.as_slice() {
        [0xFF, 0xFE, rest @ ..] => utf16(rest, u16::from_le_bytes, "UTF-16 LE"),
        [0xFE, 0xFF, rest @ ..] => utf16(rest, u16::from_be_bytes, "UTF-16 BE"),
        _ => String::from_utf8(bytes)
            .map(|t| crate::source::input::strip_bom(&t).to_string())
            .map_err(|_| "not valid UTF-8".to_string()),
    }
}

/// Reads one kubeconfig file as kube's `Kubeconfig::read_from` does (its documents merged, the
/// files it names relative to its directory made absolute, an exec command only when it holds
/// a path separator, as client-go does), through the checks of every input: a pipe or a device
/// (`--kubeconfig <(...)`, /dev/zero) read only up to a limit, the nesting depth checked before
/// the YAML parser sees the text.
fn read_kubeconfig(f: &Path) -> Result<Kubeconfig, String> {
    use crate::source::input;
    let bytes = input::read_limited(f, input::CONFIG_LIMIT).map_err(|e| e.to_string())?;
    let text = kubeconfig_text(bytes)?;
    input::check_nesting(&text).map_err(|deep| deep.to_string())?;
    let mut k = Kubeconfig::from_yaml(&text).map_err(|e| e.to_string())?;
    let Some(dir) = f.parent() else { return Ok(k) };
    let absolute = |p: &mut Option<String>| {
        if let Some(rel) = p.as_deref().filter(|r| Path::new(r).is_relative())
            && let Some(abs) = dir.join(rel).to_str()
        {
            *p = Some(abs.to_string());
        }
    };
    for c in k.clusters.iter_mut().filter_map(|c| c.cluster.as_mut()) {
        absolute(&mut c.certificate_authority);
    }
    for a in k.auth_infos.iter_mut().filter_map(|a| a.auth_info.as_mut()) {
        absolute(&mut a.client_certificate);
        absolute(&mut a.client_key);
        absolute(&mut a.token_file);
        if let Some(exec) = a.exec.as_mut()
            && exec
                .command
                .as_deref()
                .is_some_and(|c| c.contains(std::path::MAIN_SEPARATOR))
        {
            absolute(&mut exec.command);
        }
    }
    Ok(k)
}

/// The kubeconfig files merged as kubectl merges them (the first file's value wins).
fn read_merged(files: &[PathBuf]) -> Result<Kubeconfig, LiveError> {
    let mut merged = Kubeconfig::default();
    for f in files {
        let k = read_kubeconfig(f)
            .map_err(|e| LiveError::Config(format!("cannot read kubeconfig '{}': {e}", f.display())))?;
        merged = merged
            .merge(k)
            .map_err(|e| LiveError::Config(format!("cannot merge kubeconfig '{}': {e}", f.display())))?;
    }
    Ok(merged)
}

/// The contexts of the kubeconfig (`kubectl config get-contexts -o name`), in file order;
/// empty inside a cluster without a kubeconfig.
pub fn context_names(opts: &ConfigOptions, env: &Environment) -> Result<Vec<String>, LiveError> {
    let files = kubeconfig_files(opts.kubeconfig.as_deref(), env)?;
    if files.is_empty() {
        return Ok(Vec::new());
    }
    Ok(read_merged(&files)?.contexts.into_iter().map(|c| c.name).collect())
}

/// Resolves the configuration.
pub async fn resolve(opts: &ConfigOptions, env: &Environment) -> Result<Resolved, LiveError> {
    let files = kubeconfig_files(opts.kubeconfig.as_deref(), env)?;
    // where the credentials come from, for messages
    let who: String;
    let (mut config, context, origin) = if files.is_empty() {
        if !env.in_cluster || opts.context.is_some() {
            let why = match (&env.kubeconfig, &opts.context) {
                (_, Some(c)) => format!("context '{c}' was asked for but no kubeconfig was found"),
                (Some(v), None) if !v.is_empty() => {
                    format!("none of the files in KUBECONFIG ({}) exists", v.to_string_lossy())
                }
                _ => "no kubeconfig found (KUBECONFIG is not set and ~/.kube/config does not exist) and not running inside a cluster".to_string(),
            };
            return Err(LiveError::Config(format!(
                "{why}; pass --kubeconfig FILE, or --snapshot FILE to work offline"
            )));
        }
        let c = kube::Config::incluster().map_err(|e| {
            LiveError::Config(format!(
                "cannot use the in-cluster service account: {e}; pass --kubeconfig FILE"
            ))
        })?;
        who = "the in-cluster service account".to_string();
        (c, "in-cluster".to_string(), "in-cluster service account".to_string())
    } else {
        let merged = read_merged(&files)?;
        let available: Vec<String> = merged.contexts.iter().map(|c| c.name.clone()).collect();
        let list = if available.is_empty() {
            "none".to_string()
        } else {
            available.join(", ")
        };
        let context = match opts.context.clone().or_else(|| merged.current_context.clone()) {
            Some(c) if !c.is_empty() => c,
            _ => {
                return Err(LiveError::Config(format!(
                    "kubeconfig {} sets no current-context; pass --context NAME (available: {list})",
                    show_files(&files)
                )));
            }
        };
        if !available.contains(&context) {
            return Err(LiveError::Config(format!(
                "context '{context}' is not in kubeconfig {} (available: {list}); pass --context with one of those",
                show_files(&files)
            )));
        }
        check_tls_material(&merged, &context, &show_files(&files))?;
        who = match merged
            .contexts
            .iter()
            .find(|c| c.name == context)
            .and_then(|c| c.context.as_ref())
            .and_then(|c| c.user.as_deref())
        {
            Some(user) => format!("kubeconfig {}: user '{user}'", show_files(&files)),
            None => format!("kubeconfig {}: context '{context}'", show_files(&files)),
        };
        let kopts = KubeConfigOptions {
            context: Some(context.clone()),
            ..Default::default()
        };
        let c = kube::Config::from_custom_kubeconfig(merged, &kopts)
            .await
            .map_err(|e| {
                LiveError::Config(format!(
                    "cannot use context '{context}' of kubeconfig {}: {}",
                    show_files(&files),
                    without_credentials(&e.to_string())
                ))
            })?;
        (c, context, format!("kubeconfig {}", show_files(&files)))
    };
    let hint = if files.is_empty() {
        "check that the pod mounts its service account token (automountServiceAccountToken)"
    } else {
        "fix the user's tokenFile, or pass --kubeconfig with another"
    };
    check_token_file(&mut config.auth_info, &who, hint)?;
    if let Some(ns) = &opts.namespace {
        config.default_namespace.clone_from(ns);
    }
    config.default_retry = false;
    if let Some(t) = opts.timeout {
        config.connect_timeout = Some(t);
    }
    // a `https://user:password@host` server keeps its credentials out of every message,
    // header and snapshot
    let server = without_credentials(config.cluster_url.to_string().trim_end_matches('/'));
    let info = ConnectionInfo {
        server,
        context,
        namespace: config.default_namespace.clone(),
        origin,
    };
    Ok(Resolved { config, info })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new directory, removed when the guard drops.
    fn dir(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("kschedtui-cfg-{name}-"))
            .tempdir()
            .unwrap()
    }

    fn kubeconfig(current: Option<&str>, contexts: &[(&str, &str, Option<&str>)]) -> String {
        let mut s = String::from("apiVersion: v1\nkind: Config\n");
        if let Some(c) = current {
            s += &format!("current-context: {c}\n");
        }
        s += "clusters:\n";
        for (name, server, _) in contexts {
            s += &format!("- name: {name}\n  cluster:\n    server: {server}\n");
        }
        s += "users:\n";
        for (name, _, _) in contexts {
            s += &format!("- name: {name}\n  user:\n    token: t-{name}\n");
        }
        s += "contexts:\n";
        for (name, _, ns) in contexts {
            s += &format!("- name: {name}\n  context:\n    cluster: {name}\n    user: {name}\n");
            if let Some(ns) = ns {
                s += &format!("    namespace: {ns}\n");
            }
        }
        s
    }

    #[tokio::test]
    async fn kubeconfig_list_merges_first_wins_and_context_overrides() {
        let tmp = dir("merge");
        let d = tmp.path();
        let a = d.join("a");
        let b = d.join("b");
        std::fs::write(
            &a,
            kubeconfig(Some("one"), &[("one", "http://127.0.0.1:1", Some("team"))]),
        )
        .unwrap();
        std::fs::write(
            &b,
            kubeconfig(
                Some("two"),
                &[("two", "http://127.0.0.1:2", None), ("one", "http://ignored:9", None)],
            ),
        )
        .unwrap();
        let missing = d.join("missing");
        let joined = std::env::join_paths([&missing, &a, &b]).unwrap();
        let env = Environment {
            kubeconfig: Some(joined),
            home: None,
            in_cluster: false,
        };
        let r = resolve(&ConfigOptions::default(), &env).await.unwrap();
        assert_eq!(r.info.context, "one");
        assert_eq!(r.info.server, "http://127.0.0.1:1");
        assert_eq!(r.info.namespace, "team");
        assert!(!r.config.default_retry);
        let opts = ConfigOptions {
            context: Some("two".into()),
            namespace: Some("ns".into()),
            ..Default::default()
        };
        let r = resolve(&opts, &env).await.unwrap();
        assert_eq!(r.info.server, "http://127.0.0.1:2");
        assert_eq!(r.info.namespace, "ns");
    }

    #[tokio::test]
    async fn explicit_file_wins_over_kubeconfig_and_home() {
        let tmp = dir("explicit");
        let d = tmp.path();
        let home = d.join("home");
        std::fs::create_dir_all(home.join(".kube")).unwrap();
        std::fs::write(
            home.join(".kube/config"),
            kubeconfig(Some("h"), &[("h", "http://home:1", None)]),
        )
        .unwrap();
        let x = d.join("x");
        std::fs::write(&x, kubeconfig(Some("x"), &[("x", "http://explicit:1", None)])).unwrap();
        let env = Environment {
            kubeconfig: None,
            home: Some(home),
            in_cluster: false,
        };
        let r = resolve(&ConfigOptions::default(), &env).await.unwrap();
        assert_eq!(r.info.server, "http://home:1");
        assert_eq!(r.info.namespace, "default");
        let opts = ConfigOptions {
            kubeconfig: Some(x),
            ..Default::default()
        };
        assert_eq!(resolve(&opts, &env).await.unwrap().info.server, "http://explicit:1");
    }

    /// A server URL's user and password (`https://user:pass@host`) are in no message, header
    /// or snapshot: every one of them names the server by `info.server`.
    #[tokio::test]
    async fn a_servers_credentials_are_left_out_of_its_url() {
        let tmp = dir("userinfo");
        let f = tmp.path().join("k");
        std::fs::write(
            &f,
            kubeconfig(Some("c"), &[("c", "https://admin:s3cr3t@api.example.com:6443/", None)]),
        )
        .unwrap();
        let opts = ConfigOptions {
            kubeconfig: Some(f),
            ..Default::default()
        };
        let r = resolve(&opts, &Environment::default()).await.unwrap();
        assert_eq!(r.info.server, "https://api.example.com:6443");
    }

    #[test]
    fn credentials_are_cut_from_every_url_in_a_text() {
        for (text, want) in [
            ("https://user:pass@host:6443/api", "https://host:6443/api"),
            ("https://host:6443", "https://host:6443"),
            (
                "error sending request for url (http://u:p@proxy:3128/x): refused; see https://a@b/c",
                "error sending request for url (http://proxy:3128/x): refused; see https://b/c",
            ),
            ("no url here: user@host", "no url here: user@host"),
            ("http://p:w@h?q=a@b", "http://h?q=a@b"),
            ("", ""),
        ] {
            assert_eq!(without_credentials(text), want, "{text}");
        }
    }

    /// A kubeconfig of one context `a` whose cluster and user carry the given extra lines.
    fn with_tls(cluster: &str, user: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: a\nclusters:\n- name: a\n  cluster:\n    server: https://a:1\n{cluster}users:\n- name: u\n  user:\n{user}contexts:\n- name: a\n  context: {{cluster: a, user: u}}\n"
        )
    }

    fn b64(s: &str) -> String {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(s)
    }

    #[tokio::test]
    async fn broken_tls_material_is_named_by_its_field_before_connecting() {
        let tmp = dir("tls");
        let d = tmp.path();
        let env = Environment::default();
        let cert = b64("-----BEGIN CERTIFICATE-----\nMIIBAAAA\n-----END CERTIFICATE-----\n");
        let key = b64("-----BEGIN PRIVATE KEY-----\nMIIBAAAA\n-----END PRIVATE KEY-----\n");
        let f = d.join("k");
        let run = |text: String| {
            std::fs::write(&f, text).unwrap();
            let opts = ConfigOptions {
                kubeconfig: Some(f.clone()),
                ..Default::default()
            };
            async move {
                match resolve(&opts, &Environment::default()).await {
                    Err(e) => e.to_string(),
                    Ok(_) => "ok".into(),
                }
            }
        };
        let _ = &env;
        let at = |who: &str, e: &str| format!("kubeconfig '{}': {who}: {e}", f.display());
        let ca = |v: &str| format!("    certificate-authority-data: {v}\n");
        let user = |c: Option<&str>, k: Option<&str>| {
            let mut s = String::new();
            if let Some(c) = c {
                s += &format!("    client-certificate-data: {c}\n");
            }
            if let Some(k) = k {
                s += &format!("    client-key-data: {k}\n");
            }
            if s.is_empty() {
                s = "    token: t\n".into();
            }
            s
        };
        assert_eq!(run(with_tls(&ca(&cert), &user(Some(&cert), Some(&key)))).await, "ok");
        assert_eq!(
            run(with_tls(&ca("not*base64"), &user(None, None))).await,
            at(
                "cluster 'a'",
                "certificate-authority-data is not valid base64 (Invalid symbol 42, offset 3.)"
            )
        );
        assert_eq!(
            run(with_tls(&ca(&b64("hello")), &user(None, None))).await,
            at(
                "cluster 'a'",
                "certificate-authority-data holds no PEM block (expected CERTIFICATE)"
            )
        );
        assert_eq!(
            run(with_tls(&ca(&cert), &user(Some(&key), Some(&key)))).await,
            at(
                "user 'u'",
                "client-certificate-data holds PRIVATE KEY where a CERTIFICATE is expected"
            )
        );
        assert_eq!(
            run(with_tls(&ca(&cert), &user(Some(&cert), Some(&cert)))).await,
            at(
                "user 'u'",
                "client-key-data holds CERTIFICATE where a PRIVATE KEY or RSA PRIVATE KEY or EC PRIVATE KEY is expected"
            )
        );
        assert_eq!(
            run(with_tls(&ca(&cert), &user(Some(&cert), None))).await,
            at(
                "user 'u'",
                "client-certificate is set but client-key is not: a client certificate needs both"
            )
        );
    }

    #[tokio::test]
    async fn config_errors_say_what_to_do() {
        let tmp = dir("errors");
        let d = tmp.path();
        let env = Environment::default();
        let err = |r: Result<Resolved, LiveError>| match r {
            Err(e) => e.to_string(),
            Ok(_) => panic!("expected an error"),
        };
        assert_eq!(
            err(resolve(&ConfigOptions::default(), &env).await),
            "no kubeconfig found (KUBECONFIG is not set and ~/.kube/config does not exist) and not running inside a cluster; pass --kubeconfig FILE, or --snapshot FILE to work offline"
        );
        let f = d.join("k");
        std::fs::write(
            &f,
            kubeconfig(None, &[("a", "http://a:1", None), ("b", "http://b:1", None)]),
        )
        .unwrap();
        let opts = ConfigOptions {
            kubeconfig: Some(f.clone()),
            ..Default::default()
        };
        assert_eq!(
            err(resolve(&opts, &env).await),
            format!(
                "kubeconfig '{}' sets no current-context; pass --context NAME (available: a, b)",
                f.display()
            )
        );
        let opts = ConfigOptions {
            kubeconfig: Some(f.clone()),
            context: Some("c".into()),
            ..Default::default()
        };
        assert_eq!(
            err(resolve(&opts, &env).await),
            format!(
                "context 'c' is not in kubeconfig '{}' (available: a, b); pass --context with one of those",
                f.display()
            )
        );
        let opts = ConfigOptions {
            kubeconfig: Some(d.join("nope")),
            ..Default::default()
        };
        assert_eq!(
            err(resolve(&opts, &env).await),
            format!(
                "kubeconfig '{}' does not exist; check the --kubeconfig path",
                d.join("nope").display()
            )
        );
    }

    /// A kubeconfig is read as kube's `Kubeconfig::read_from` reads it (documents merged,
    /// relative files made absolute, a UTF-8 or UTF-16 byte order mark), and a deep one is
    /// refused before the parser sees it.
    #[test]
    fn a_kubeconfig_reads_as_kube_reads_it_and_a_deep_one_is_refused() {
        let d = dir("read");
        let text = "apiVersion: v1\nkind: Config\ncurrent-context: a\nclusters:\n- name: a\n  cluster: {server: 'https://a:6443', certificate-authority: ca.crt}\nusers:\n- name: u\n  user: {client-certificate: certs/u.crt, client-key: /abs/u.key, tokenFile: tok, exec: {command: ./bin/login, args: [x], apiVersion: client.authentication.k8s.io/v1}}\n- name: v\n  user: {exec: {command: aws, apiVersion: client.authentication.k8s.io/v1}}\ncontexts:\n- name: a\n  context: {cluster: a, user: u}\n---\ncontexts:\n- name: b\n  context: {cluster: a, user: v}\n";
        let f = d.path().join("config");
        std::fs::write(&f, text).unwrap();
        let ours = serde_json::to_value(read_kubeconfig(&f).unwrap()).unwrap();
        let kubes = serde_json::to_value(Kubeconfig::read_from(&f).unwrap()).unwrap();
        assert_eq!(ours, kubes);
        assert_eq!(
            ours["users"][0]["user"]["tokenFile"],
            d.path().join("tok").display().to_string()
        );
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        std::fs::write(&f, utf16).unwrap();
        assert_eq!(serde_json::to_value(read_kubeconfig(&f).unwrap()).unwrap(), kubes);
        std::fs::write(&f, format!("\u{feff}{text}")).unwrap();
        assert_eq!(serde_json::to_value(read_kubeconfig(&f).unwrap()).unwrap(), kubes);
        std::fs::write(&f, format!("{text}x: {}\n", "{".repeat(100_000))).unwrap();
        assert_eq!(
            read_kubeconfig(&f).unwrap_err(),
            "nested deeper than 512 levels at line 19 (kschedtui reads at most 512 levels of sequences and mappings inside each other; real manifests use a few dozen)"
        );
        assert_eq!(
            read_kubeconfig(Path::new("/dev/zero")).unwrap_err(),
            "not a regular file, and it gave more than 8 MiB without ending (kschedtui reads at most 8 MiB from a pipe or a device)"
        );
    }

    /// A token file is read before the client: trimmed as client-go trims it (kube would
    /// send the newline), named when missing or empty, left to kube when clean, not read when
    /// other credentials come first.
    #[test]
    fn a_token_file_is_trimmed_and_a_missing_one_is_named() {
        use secrecy::ExposeSecret;
        let d = dir("token");
        let file = |name: &str, text: &str| {
            let p = d.path().join(name);
            std::fs::write(&p, text).unwrap();
            p.display().to_string()
        };
        let auth = |f: &str| kube::config::AuthInfo {
            token_file: Some(f.to_string()),
            ..Default::default()
        };
        let mut a = auth(&file("nl", "  abc.def\n"));
        check_token_file(&mut a, "who", "hint").unwrap();
        assert_eq!(
            a.token.as_ref().map(|t| t.expose_secret().to_string()).as_deref(),
            Some("abc.def")
        );
        let mut a = auth(&file("clean", "abc.def"));
        check_token_file(&mut a, "who", "hint").unwrap();
        assert!(a.token.is_none(), "a clean file stays kube's to read (and reread)");
        let missing = d.path().join("gone").display().to_string();
        let mut a = auth(&missing);
        assert_eq!(
            check_token_file(&mut a, "kubeconfig 'k': user 'u'", "fix it")
                .unwrap_err()
                .to_string(),
            format!("kubeconfig 'k': user 'u': the token file '{missing}' does not exist; fix it")
        );
        let mut a = auth(&file("empty", "\n"));
        assert_eq!(
            check_token_file(&mut a, "who", "hint").unwrap_err().to_string(),
            format!(
                "who: the token file '{}' is empty; hint",
                d.path().join("empty").display()
            )
        );
        let mut a = auth(&missing);
        a.token = Some(secrecy::SecretString::from("inline".to_string()));
        check_token_file(&mut a, "who", "hint").unwrap();
    }
}
