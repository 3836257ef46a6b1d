//! Issue 46 against the mock API server and its relatives: a token file with a newline, a
//! missing one, an exec credential plugin that never answers, a login page where the API
//! should answer, a kubeconfig that never ends.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::apiserver::{ApiServer, TOKEN};
use crate::scratch::temp_dir;

fn run(args: &[&str]) -> Output {
    let home = temp_dir("home");
    Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(args)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn error_line(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(1), "{}", stderr(o));
    let e = stderr(o);
    let last = e.lines().last().unwrap_or("").to_string();
    assert!(last.starts_with("error: "), "{e}");
    last
}

/// A kubeconfig of one context `mock` for `server`, its user given by `user` (YAML flow).
fn kubeconfig(dir: &Path, server: &str, user: &str) -> String {
    let p = dir.join("kubeconfig");
    std::fs::write(
        &p,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: mock\nclusters:\n- name: mock\n  cluster: {{server: '{server}'}}\nusers:\n- name: tester\n  user: {user}\ncontexts:\n- name: mock\n  context: {{cluster: mock, user: tester}}\n"
        ),
    )
    .unwrap();
    p.display().to_string()
}

/// A token file ending in a newline is read as client-go reads it (trimmed); a missing one is
/// named as missing, not as credentials that "probably expired".
#[test]
fn a_token_file_with_a_newline_works_and_a_missing_one_is_named() {
    let server = ApiServer::start();
    server.require_token(TOKEN);
    let dir = server.scratch("token-file");
    let token = dir.join("token");
    std::fs::write(&token, format!("{TOKEN}\n")).unwrap();
    let k = kubeconfig(&dir, &server.url(), &format!("{{tokenFile: '{}'}}", token.display()));
    let o = run(&["explain", "--kubeconfig", &k, "--all-pending", "-o", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bearer = format!("Bearer {TOKEN}");
    let requests = server.requests();
    assert!(!requests.is_empty());
    assert!(
        requests
            .iter()
            .all(|r| r.headers.iter().any(|(k, v)| k == "authorization" && v == &bearer)),
        "every request with the trimmed token"
    );
    std::fs::remove_file(&token).unwrap();
    let o = run(&["explain", "--kubeconfig", &k, "--all-pending"]);
    assert_eq!(
        error_line(&o),
        format!(
            "error: kubeconfig '{k}': user 'tester': the token file '{}' does not exist; fix the user's tokenFile, or pass --kubeconfig with another",
            token.display()
        )
    );
}

/// An exec credential plugin that never answers times out after --request-timeout, naming
/// the command and the context.
#[test]
fn an_exec_plugin_that_never_answers_times_out() {
    let guard = temp_dir("exec-hangs");
    let dir = guard.path();
    let k = kubeconfig(
        dir,
        "https://127.0.0.1:1",
        "{exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: sleep, args: ['30'], interactiveMode: Never}}",
    );
    let t = std::time::Instant::now();
    let o = run(&["explain", "--kubeconfig", &k, "--all-pending", "--request-timeout", "2"]);
    assert_eq!(
        error_line(&o),
        "error: the exec credential plugin of context 'mock' (sleep 30) gave no credentials within 2s; run it by hand to see what it waits for (a login in a browser, a prompt), or retry with a longer --request-timeout"
    );
    assert!(t.elapsed() < std::time::Duration::from_secs(20), "{:?}", t.elapsed());
}

/// A login page answered instead of the API's JSON (a proxy) is named as such, with its
/// content type and first line.
#[test]
fn a_login_page_where_the_api_should_answer_is_named() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for sock in listener.incoming() {
            let Ok(mut sock) = sock else { return };
            let mut buf = [0u8; 4096];
            let _ = sock.read(&mut buf);
            let body = "\n<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Corp SSO</body></html>\n";
            let _ = write!(
                sock,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let guard = temp_dir("login-page");
    let k = kubeconfig(guard.path(), &url, "{token: abc}");
    let o = run(&["explain", "--kubeconfig", &k, "--all-pending"]);
    assert_eq!(
        error_line(&o),
        format!(
            "error: {url} answered an HTML page, not the API's JSON, while reading the server version (HTTP 200, Content-Type: text/html; charset=utf-8, first line: <!DOCTYPE html>): something other than the API server answered, a proxy's login page say; check the server URL and the proxy settings (proxy-url, HTTPS_PROXY) of the kubeconfig"
        )
    );
}

/// A kubeconfig that never ends is read up to its limit.
#[cfg(target_os = "linux")]
#[test]
fn a_kubeconfig_that_never_ends_is_refused_at_its_limit() {
    let o = run(&["explain", "--kubeconfig", "/dev/zero", "--all-pending"]);
    assert_eq!(
        error_line(&o),
        "error: cannot read kubeconfig '/dev/zero': not a regular file, and it gave more than 8 MiB without ending (kschedtui reads at most 8 MiB from a pipe or a device)"
    );
}

/// `snapshot -o -` writes the snapshot to the standard output (no file named `-`), which reads
/// back as the cluster.
#[test]
fn snapshot_to_stdout() {
    let server = ApiServer::start();
    let dir = server.scratch("snapshot-stdout");
    let k = server.kubeconfig(&dir, None).display().to_string();
    let o = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(["snapshot", "--kubeconfig", &k, "-o", "-"])
        .current_dir(&dir)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("kschedtui: wrote 31 objects to the standard output"),
        "{}",
        stderr(&o)
    );
    let c = kschedtui::source::file::load_str("stdout", &String::from_utf8(o.stdout).unwrap()).unwrap();
    assert!(!c.nodes.is_empty() && !c.pods.is_empty());
    assert!(!dir.join("-").exists());
}
