//! Issue 46, hostile input: what the writers do with links, devices, pipes, `-` and signals,
//! and what the readers do with input kubectl reads or that never ends. The real binary, its
//! exit codes and its one-line errors.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::scratch::temp_dir;

const BIN: &str = env!("CARGO_BIN_EXE_kschedtui");

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .stdin(Stdio::null())
        .output()
        .expect("run kschedtui")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// The one error line of a run that failed with exit code 1.
fn error_line(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(1), "{}", stderr(o));
    let e = stderr(o);
    let last = e.lines().last().unwrap_or("").to_string();
    assert!(last.starts_with("error: "), "{e}");
    last
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `generate -o`: `-` is the standard output (no file named `-`), a device is written in
/// place (/dev/full stays a device and its error is the cause), a FIFO is written in place, a
/// link is written through to its target, which keeps its mode.
#[cfg(target_os = "linux")]
#[test]
fn generate_writes_to_stdout_devices_fifos_and_through_links() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt, symlink};
    let guard = temp_dir("writers");
    let dir = guard.path();
    let small = ["generate", "--nodes", "2", "--pods", "3"];
    let with = |out: &'static str| [&small[..], &["-o", out]].concat();

    let o = run_in(dir, &with("-"));
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout.clone()).unwrap();
    let c = kschedtui::source::file::load_str("stdout", &text).unwrap();
    assert_eq!((c.nodes.len(), c.pods.len()), (2, 4));
    assert!(
        stderr(&o).contains("pods to standard output (benchmark pod"),
        "{}",
        stderr(&o)
    );
    assert_eq!(names_in(dir), Vec::<String>::new(), "no file named '-'");

    // /dev/full through a link: should writing in place ever break, the link is replaced,
    // not the system's device (the tests may run as root)
    symlink("/dev/full", dir.join("full.yaml")).unwrap();
    let o = run_in(dir, &with("full.yaml"));
    assert_eq!(
        error_line(&o),
        "error: cannot write 'full.yaml': No space left on device (os error 28)"
    );
    assert!(
        std::fs::metadata(dir.join("full.yaml"))
            .unwrap()
            .file_type()
            .is_char_device()
    );
    std::fs::remove_file(dir.join("full.yaml")).unwrap();

    let fifo = dir.join("fifo.yaml");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let o = run_in(dir, &with("fifo.yaml"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(reader.join().unwrap(), text, "the same text through the FIFO");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());

    std::fs::create_dir(dir.join("keep")).unwrap();
    let real = dir.join("keep").join("cluster.yaml");
    std::fs::write(&real, "old").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    symlink("keep/cluster.yaml", dir.join("current.yaml")).unwrap();
    let o = run_in(dir, &with("current.yaml"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&real).unwrap(),
        text,
        "the target has the new text"
    );
    assert!(
        std::fs::symlink_metadata(dir.join("current.yaml"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(format!("{mode:o}"), "600");
    assert_eq!(names_in(dir), ["current.yaml", "fifo.yaml", "keep"]);
    assert_eq!(names_in(&dir.join("keep")), ["cluster.yaml"]);
}

/// `-o -` into a pipe whose reader goes away (`| head -1`) ends quietly, as every other output
/// to the standard output does.
#[cfg(unix)]
#[test]
fn generate_to_stdout_ends_quietly_when_the_reader_goes_away() {
    use std::io::BufRead;
    let mut child = Command::new(BIN)
        .args(["generate", "--nodes", "50", "--pods", "2000", "-o", "-"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "apiVersion: v1\n");
    // the reader is gone
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("error"), "{}", stderr(&o));
}

/// `--save` onto a full disk says why; `-` where the standard output carries a report or a
/// plan is a usage error.
#[cfg(target_os = "linux")]
#[test]
fn save_onto_a_full_disk_names_the_cause_and_dash_is_refused_where_stdout_is_taken() {
    let guard = temp_dir("save-full");
    let dir = guard.path();
    // /dev/full through a link (see above)
    std::os::unix::fs::symlink("/dev/full", dir.join("full.yaml")).unwrap();
    let o = run_in(dir, &["--demo", "bind", "ml/sweep-0", "--yes", "--save", "full.yaml"]);
    assert_eq!(
        error_line(&o),
        "error: cannot write 'full.yaml': No space left on device (os error 28); the rehearsal's result was not saved"
    );
    let o = run_in(dir, &["--demo", "simulate", "--write", "full.yaml"]);
    assert_eq!(
        error_line(&o),
        "error: while saving the simulated snapshot to 'full.yaml': cannot write 'full.yaml': No space left on device (os error 28)"
    );
    for (args, flag) in [
        (
            &["--demo", "simulate", "--write", "-"][..],
            "--write -: the standard output carries simulate's report",
        ),
        (
            &["--demo", "bind", "ml/sweep-0", "--yes", "--save", "-"][..],
            "--save -: the standard output carries the plan and its outcome",
        ),
        (
            &["--demo", "preempt", "ml/sweep-0", "--yes", "--save", "-"][..],
            "--save -: the standard output carries the plan and its outcome",
        ),
    ] {
        let o = run_in(dir, args);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).starts_with(&format!("error: {flag}; give a file name (./- for a file named -)\n")),
            "{}",
            stderr(&o)
        );
        assert!(o.stdout.is_empty());
    }
    assert_eq!(names_in(dir), ["full.yaml"]);
}

/// A large `generate -o FILE` stopped by SIGTERM or SIGINT while it writes leaves no
/// temporary file; the file is there whole or not at all.
#[cfg(unix)]
#[test]
fn a_write_stopped_by_a_signal_leaves_no_temporary_file() {
    use std::os::unix::process::ExitStatusExt;
    let guard = temp_dir("stopped");
    let dir = guard.path();
    let args = ["generate", "--nodes", "5000", "--pods", "100000", "-o", "big.yaml"];
    let whole = run_in(dir, &args);
    assert!(whole.status.success(), "{}", stderr(&whole));
    let whole_len = std::fs::metadata(dir.join("big.yaml")).unwrap().len();
    std::fs::remove_file(dir.join("big.yaml")).unwrap();
    for (name, number) in [("TERM", 15), ("INT", 2)] {
        let mut stopped = false;
        // the signal must land while the temporary file is being written: tried again when
        // the write ended first
        for _ in 0..8 {
            let mut child = Command::new(BIN)
                .args(args)
                .current_dir(dir)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let writing = loop {
                if child.try_wait().unwrap().is_some() {
                    break false;
                }
                if names_in(dir).iter().any(|n| n.ends_with(".kschedtui.tmp")) {
                    break true;
                }
                std::thread::sleep(std::time::Duration::from_micros(500));
            };
            if writing {
                let kill = Command::new("kill")
                    .args([format!("-{name}"), child.id().to_string()])
                    .status()
                    .unwrap();
                assert!(kill.success());
            }
            let status = child.wait().unwrap();
            let left = names_in(dir);
            assert!(
                left.iter().all(|n| !n.ends_with(".kschedtui.tmp")),
                "SIG{name}: {left:?}"
            );
            if let Ok(m) = std::fs::metadata(dir.join("big.yaml")) {
                assert_eq!(m.len(), whole_len, "SIG{name}: whole or not at all");
                std::fs::remove_file(dir.join("big.yaml")).unwrap();
            }
            if writing && status.signal() == Some(number) {
                stopped = true;
                break;
            }
        }
        assert!(stopped, "SIG{name} never landed during a write");
    }
}

/// `generate --nodes 0`: with bound pods a usage error; with `--pods 0` a cluster of the
/// pending pod alone, which explains.
#[test]
fn generate_without_nodes_is_a_usage_error_unless_it_binds_nothing() {
    let guard = temp_dir("no-nodes");
    let dir = guard.path();
    let o = run_in(dir, &["generate", "--nodes", "0", "-o", "g.yaml"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with(
            "error: --nodes 0 with --pods 100000: bound pods need a node; give --nodes N (at least 1), or --pods 0 for a cluster of pending pods alone\n"
        ),
        "{}",
        stderr(&o)
    );
    assert_eq!(names_in(dir), Vec::<String>::new());
    let o = run_in(
        dir,
        &[
            "generate",
            "--nodes",
            "0",
            "--pods",
            "0",
            "--failing",
            "2",
            "-o",
            "g.yaml",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let c = kschedtui::source::file::load_path(&dir.join("g.yaml")).unwrap();
    assert_eq!((c.nodes.len(), c.pods.len()), (0, 3));
    let o = run_in(dir, &["explain", "--snapshot", "g.yaml", "bench/pending-0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("Verdict: Unschedulable: no nodes available to schedule pods"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// Input that never ends or nests without end ends quickly with an error naming the file and
/// the limit: a snapshot, a scheduler config, a descheduler policy, a kubeconfig.
#[cfg(target_os = "linux")]
#[test]
fn endless_or_deep_input_ends_quickly_naming_the_file_and_the_limit() {
    let guard = temp_dir("endless");
    let dir = guard.path();
    // (a backslash: the loader then looks for what `kschedtui snapshot` records in the text)
    let deep = format!(
        "apiVersion: v1\nkind: List\nmetadata: {{note: \"a\\\\b\"}}\nitems: {}\n",
        "[".repeat(200_000)
    );
    std::fs::write(dir.join("deep.yaml"), &deep).unwrap();
    let nesting = "nested deeper than 512 levels at line 4 (kschedtui reads at most 512 levels of sequences and mappings inside each other; real manifests use a few dozen)";
    let limit = |what: &str, size: &str| {
        format!(
            "error: cannot read {what} '/dev/zero': not a regular file, and it gave more than {size} without ending (kschedtui reads at most {size} from a pipe or a device)"
        )
    };
    let t = std::time::Instant::now();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["explain", "--snapshot", "deep.yaml", "--all-pending"],
            format!("error: deep.yaml: document 0: not valid YAML: {nesting}"),
        ),
        (
            vec!["explain", "--demo", "--config", "deep.yaml", "--all-pending"],
            format!("error: in 'deep.yaml': {nesting}"),
        ),
        (
            vec!["deschedule", "--demo", "--policy", "deep.yaml"],
            format!("error: deep.yaml: not valid YAML: {nesting}"),
        ),
        (
            vec!["explain", "--snapshot", "/dev/zero", "--all-pending"],
            limit("snapshot", "2 GiB"),
        ),
        (
            vec!["explain", "--demo", "--config", "/dev/zero", "--all-pending"],
            limit("scheduler config", "8 MiB"),
        ),
        (
            vec!["deschedule", "--demo", "--policy", "/dev/zero"],
            limit("descheduler policy", "8 MiB"),
        ),
    ];
    for (args, want) in cases {
        let o = run_in(dir, &args);
        assert_eq!(error_line(&o), want, "{args:?}");
    }
    // minutes before (158 s for the deep file alone)
    assert!(t.elapsed() < std::time::Duration::from_secs(60), "{:?}", t.elapsed());
}

/// What kubectl reads, read: a byte order mark, a List inside a List, merge keys; and an
/// apiVersion kschedtui does not read named with the ones it reads.
#[test]
fn input_kubectl_reads_is_read_and_an_unread_api_version_is_named() {
    let guard = temp_dir("kubectl-input");
    let dir = guard.path();
    let text = "\u{feff}apiVersion: v1\nkind: List\nitems:\n- &node\n  apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n  status: {allocatable: {cpu: 2, memory: 2Gi, pods: 10}}\n- apiVersion: v1\n  kind: NodeList\n  items:\n  - <<: *node\n    metadata: {name: n2}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p, namespace: default}\n  spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}\n";
    std::fs::write(dir.join("in.yaml"), text).unwrap();
    let o = run_in(dir, &["explain", "--snapshot", "in.yaml", "default/p"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(out.contains("(profile default-scheduler, scheduler "), "{out}");
    assert!(out.contains(", 2 nodes)"), "{out}");
    assert!(
        out.contains("Verdict: Schedulable: 2 nodes tie at the top (n1, n2)"),
        "{out}"
    );
    std::fs::write(
        dir.join("v99.yaml"),
        text.replace("- apiVersion: v1\n  kind: Pod", "- apiVersion: v99\n  kind: Pod"),
    )
    .unwrap();
    let o = run_in(dir, &["explain", "--snapshot", "v99.yaml", "default/p"]);
    assert_eq!(
        error_line(&o),
        "error: v99.yaml (document 2): Pod default/p: field 'apiVersion': 'v99' is not an apiVersion kschedtui reads for this kind (it reads v1)"
    );
}

/// Objects the API server would refuse (tests/integration/data/refused.yaml: negative
/// allocatable and requests, a bad label key, unknown taint effect and operators, maxSkew 0,
/// a required anti-affinity term without topologyKey, a pod without containers) are still
/// explained, and each is a warning naming the object and the field in the API server's words
/// (tests/integration/data/refused.warnings); a snapshot full of them lists the first 20.
#[test]
fn what_the_api_server_would_refuse_is_a_warning_naming_object_and_field() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = run_in(
        root,
        &[
            "explain",
            "--snapshot",
            "tests/integration/data/refused.yaml",
            "--all-pending",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let want = std::fs::read_to_string(root.join("tests/integration/data/refused.warnings")).unwrap();
    assert_eq!(stderr(&o), want);
    assert!(String::from_utf8_lossy(&o.stdout).contains("Pod default/skew"));

    let guard = temp_dir("refused");
    let mut text = String::from(
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n}, status: {allocatable: {cpu: '1', pods: '9'}}}\n",
    );
    for i in 0..30 {
        text += &format!(
            "- {{apiVersion: v1, kind: Pod, metadata: {{name: p{i:02}, namespace: a}}, spec: {{containers: []}}}}\n"
        );
    }
    std::fs::write(guard.path().join("many.yaml"), text).unwrap();
    let o = run_in(guard.path(), &["explain", "--snapshot", "many.yaml", "a/p00"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 21, "{e}");
    assert_eq!(
        lines[19],
        "warning: many.yaml (document 20): Pod a/p19: the API server would refuse it: spec.containers: Required value"
    );
    assert_eq!(
        lines[20],
        "warning: 10 more error(s), in 10 object(s), that the API server would refuse (only the first 20 are listed)"
    );
}
