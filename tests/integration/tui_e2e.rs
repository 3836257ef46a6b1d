//! End to end: the real binary in tmux on the bundled demo. Types keys as a user would — search
//! a pending pod, step the pipeline, open a node, bind in snapshot mode, open the help, quit —
//! and asserts on the captured screen. Only facts that stay true for any demo cluster are
//! asserted. Skipped (with a message) when tmux is not installed.

use crate::scratch::temp_dir;
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_kschedtui");
const TIMEOUT: Duration = Duration::from_secs(20);

pub(crate) struct Tmux {
    /// The path of the tmux server's socket (`tmux -S`).
    socket: String,
    /// Where the socket is: removed after the server is killed (fields drop after `drop`).
    _dir: tempfile::TempDir,
}

impl Tmux {
    pub(crate) fn available() -> bool {
        Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    pub(crate) fn start(name: &str, cmd: &str) -> Tmux {
        Tmux::start_sized(name, cmd, 160, 48)
    }

    /// Starts `cmd` in a detached session of `cols`×`rows` cells.
    pub(crate) fn start_sized(name: &str, cmd: &str, cols: u16, rows: u16) -> Tmux {
        let (cols, rows) = (cols.to_string(), rows.to_string());
        // the server's socket in a directory of the test's own, removed with it
        let dir = temp_dir(&format!("tmux-{name}"));
        let t = Tmux {
            socket: dir.path().join("s").display().to_string(),
            _dir: dir,
        };
        let ok = Command::new("tmux")
            .args([
                "-S",
                &t.socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "e2e",
                "-x",
                &cols,
                "-y",
                &rows,
                cmd,
            ])
            .env_remove("NO_COLOR")
            .status()
            .unwrap();
        assert!(ok.success(), "tmux new-session failed");
        t
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        let mut args = vec!["-S", &self.socket, "send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        assert!(Command::new("tmux").args(&args).status().unwrap().success());
    }

    pub(crate) fn text(&self, text: &str) {
        assert!(
            Command::new("tmux")
                .args(["-S", &self.socket, "send-keys", "-t", "e2e", "-l", text])
                .status()
                .unwrap()
                .success()
        );
    }

    /// Runs a tmux command on this session's server; returns its output.
    pub(crate) fn tmux(&self, args: &[&str]) -> String {
        let o = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    pub(crate) fn screen(&self) -> String {
        let o = Command::new("tmux")
            .args(["-S", &self.socket, "capture-pane", "-p", "-t", "e2e"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// Waits until every text is on screen and the frame is whole (two captures 50 ms apart
    /// agree: a capture can fall between the lines of one redraw); returns the screen.
    pub(crate) fn wait_for(&self, texts: &[&str]) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if texts.iter().all(|t| s.contains(t)) {
                std::thread::sleep(Duration::from_millis(50));
                if self.screen() == s {
                    return s;
                }
                continue;
            }
            assert!(
                start.elapsed() < TIMEOUT,
                "timed out waiting for {texts:?}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Tmux {
    /// Waits until a text has left the screen (Esc followed at once by another key would
    /// reach the program as one Alt-key).
    pub(crate) fn wait_gone(&self, text: &str) {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if !s.contains(text) {
                return;
            }
            assert!(
                start.elapsed() < TIMEOUT,
                "timed out waiting for '{text}' to go; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["-S", &self.socket, "kill-server"]).status();
    }
}

/// A pending demo pod whose trace has a node table (from `explain --all-pending -o json`).
fn pending_pod_with_nodes() -> (String, String) {
    let out = Command::new(BIN)
        .args(["explain", "--demo", "--all-pending", "-o", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let all = v.as_array().unwrap();
    let pick = all
        .iter()
        .find(|e| {
            e.get("filter")
                .and_then(|f| f.as_array())
                .is_some_and(|f| !f.is_empty())
        })
        .expect("the demo has a pending pod that reaches Filter");
    let pod = &pick["pod"];
    (
        pod["namespace"].as_str().unwrap().to_string(),
        pod["name"].as_str().unwrap().to_string(),
    )
}

/// The row index of a pod in the list on screen (rows start below the NAMESPACE header).
fn row_of(screen: &str, ns: &str, name: &str) -> usize {
    let lines: Vec<&str> = screen.lines().collect();
    let header = lines
        .iter()
        .position(|l| (l.contains("NAMESPACE") || l.contains(" NS ")) && l.contains("NAME"))
        .expect("pod table header");
    lines[header + 1..]
        .iter()
        .position(|l| {
            let w: Vec<&str> = l
                .split(|c: char| c.is_whitespace() || c == '│')
                .filter(|s| !s.is_empty())
                .collect();
            w.windows(2).any(|p| p[0] == ns && p[1] == name)
        })
        .unwrap_or_else(|| panic!("{ns}/{name} not in the list:\n{screen}"))
}

#[test]
fn demo_search_step_open_node_bind_help_quit() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let (ns, name) = pending_pod_with_nodes();
    let t = Tmux::start(
        "flow",
        &format!("{BIN} --demo; echo KSCHEDTUI-EXITED=$?; {TTY_MODE}; sleep 30"),
    );
    // the pod list: pending pods, explained
    t.wait_for(&["kschedtui", "demo cluster", "Pods", "pending", &name]);
    // search the pod
    t.keys(&["/"]);
    t.text(&name);
    t.wait_for(&[&format!("/{name}"), "Enter keep"]);
    t.keys(&["Enter"]);
    let s = t.wait_for(&[&name]);
    for _ in 0..row_of(&s, &ns, &name) {
        t.keys(&["j"]);
    }
    t.keys(&["Enter"]);
    t.wait_for(&[
        &format!("Pod {ns}/{name}"),
        "PreFilter",
        "Filter",
        "Score",
        "Bind",
        "step ",
    ]);
    // step the pipeline: back to the start, one step, then point by point to Filter
    t.keys(&["R"]);
    t.wait_for(&["step 1/", "PreEnqueue ("]);
    t.keys(&["n"]);
    t.wait_for(&["step 2/"]);
    t.keys(&["R", "N", "N", "N"]);
    t.wait_for(&["Filter (", "nodes fit", "VERDICT"]);
    // open the first node of the table
    t.keys(&["Enter"]);
    t.wait_for(&[
        "Node ",
        "Allocatable vs requested",
        "Taints",
        "Labels",
        &format!("Why {ns}/{name} here?"),
    ]);
    // bind in snapshot mode: the confirmation lists the write and says it stays in memory
    t.keys(&["b"]);
    t.wait_for(&[
        &format!("Bind {ns}/{name} to "),
        &format!("POST /api/v1/namespaces/{ns}/pods/{name}/binding"),
        "Snapshot mode: nothing is sent to a cluster",
    ]);
    t.keys(&["y"]);
    t.wait_for(&[
        &format!("bound {ns}/{name} to "),
        "snapshot mode",
        "1 in-memory change(s)",
    ]);
    // save the in-memory snapshot; it opens again with the pod bound
    // a short path: the header shows it whole
    let saved_dir = temp_dir("sv");
    let saved = saved_dir.path().join("s.yaml");
    t.keys(&[":"]);
    t.text(&format!("w {}", saved.display()));
    t.keys(&["Enter"]);
    t.wait_for(&[
        "saved the cluster with 1 in-memory change(s) to",
        "1 in-memory change(s), saved to",
    ]);
    let o = Command::new(BIN)
        .args(["explain", "--snapshot"])
        .arg(&saved)
        .arg(format!("{ns}/{name}"))
        .output()
        .expect("explain the saved snapshot");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("pod '{ns}/{name}' is not pending: spec.nodeName is '")),
        "{err}"
    );
    // help overlay generated from the key table
    t.keys(&["?"]);
    t.wait_for(&["Help", "Keys for this screen", "Pod list", "Everywhere"]);
    t.keys(&["Escape"]);
    t.wait_gone("Keys for this screen");
    // quit: the terminal is restored and the exit code is 0
    t.keys(&["q"]);
    let s = t.wait_for(&["KSCHEDTUI-EXITED=0", "TTY-"]);
    assert!(
        !s.contains("Allocatable vs requested"),
        "alternate screen left behind:\n{s}"
    );
    assert!(s.contains("TTY-COOKED"), "raw mode left on:\n{s}");
}

#[test]
fn demo_dra_pod_shows_its_claims_node_devices_and_binds_with_the_claim_writes() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let t = Tmux::start_sized(
        "dra",
        &format!("{BIN} --demo; echo KSCHEDTUI-EXITED=$?; sleep 30"),
        160,
        48,
    );
    t.wait_for(&["kschedtui", "demo cluster", "nccl-pair"]);
    t.keys(&["/"]);
    t.text("nccl-pair");
    t.wait_for(&["/nccl-pair"]);
    t.keys(&["Enter"]);
    t.wait_for(&["nccl-pair"]);
    t.keys(&["Enter"]);
    // Filter: the two DRA nodes fail DynamicResources, the others earlier plugins.
    t.wait_for(&[
        "Pod ml/nccl-pair",
        "Filter",
        "pool-dra-a1",
        "cannot allocate all claims",
    ]);
    t.keys(&["Enter"]);
    // The node view: the node's devices with who uses them, and why the pod's claim fails.
    t.wait_for(&[
        "Node pool-dra-a1",
        "Devices (DRA)  1 of 4 free",
        "used by ml/team-gpu",
        "rejected by DynamicResources: cannot allocate all claims",
        "nccl-pair-gpus/gpus wants 2: 4 device(s)",
        "gpu-1: in use by ml/pretrain-gpus",
    ]);
    // A schedulable DRA pod: bind lists DynamicResources' PreBind writes of its claim (the
    // finalizer, then the allocation and reservation), then the binding; `y` makes them in
    // memory.
    t.keys(&["Escape"]);
    t.wait_for(&["Pod ml/nccl-pair", "step "]);
    t.keys(&["Escape"]);
    t.wait_gone("Pod ml/nccl-pair");
    t.keys(&["/"]);
    t.wait_for(&["/nccl-pair"]);
    for _ in 0.."nccl-pair".len() {
        t.keys(&["BSpace"]);
    }
    t.text("infer-l4");
    t.wait_for(&["/infer-l4"]);
    t.keys(&["Enter"]);
    t.wait_for(&["infer-l4"]);
    t.keys(&["Enter"]);
    t.wait_for(&["Pod ml/infer-l4", "would bind to pool-dra-b1"]);
    t.keys(&["b"]);
    t.wait_for(&[
        "Bind ml/infer-l4 to pool-dra-b1?",
        "PUT /apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/infer-l4-gpu",
        "resourceclaims/infer-l4-gpu/status",
        "POST /api/v1/namespaces/ml/pods/infer-l4/binding",
    ]);
    t.keys(&["y"]);
    t.wait_for(&["1 in-memory change(s)", "on pool-dra-b1"]);
    // the bind is an in-memory change: quitting asks first
    t.keys(&["q"]);
    t.wait_for(&["Quit without saving?", "bound ml/infer-l4 to pool-dra-b1"]);
    t.keys(&["y"]);
    t.wait_for(&["KSCHEDTUI-EXITED=0"]);
}

#[test]
fn demo_queue_screen_says_why_a_gang_gets_no_event() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let t = Tmux::start_sized(
        "queue",
        &format!(
            "{BIN} --demo --scheduler-version 1.36 --feature-gates GenericWorkload=true,GangScheduling=true; echo KSCHEDTUI-EXITED=$?; sleep 30"
        ),
        160,
        48,
    );
    // The pod list already says it: held before the queue, and the gang waiting at Permit.
    t.wait_for(&[
        "held before the queue: gang 2/4",
        "gang PodGroup ml/eval-sweep: 2/2 placed, completes",
    ]);
    t.keys(&[":"]);
    t.text("queue");
    t.keys(&["Enter"]);
    t.wait_for(&["Queue (", "held before the queue", "ml/rollout-0", "GangScheduling"]);
    let s = t.screen();
    let row = s
        .lines()
        .skip_while(|l| !l.contains("POD") || !l.contains("WHERE"))
        .skip(1)
        .position(|l| l.contains("ml/rollout-0"))
        .expect("rollout-0 row");
    for _ in 0..row {
        t.keys(&["j"]);
    }
    t.wait_for(&[
        "ml/rollout-0 · held before the queue",
        "No FailedScheduling event and no PodScheduled condition",
        "another member of its group is created",
    ]);
    t.keys(&["Enter"]);
    t.wait_for(&["Pod ml/rollout-0", "PreEnqueue"]);
    t.keys(&["q"]);
    t.keys(&["q"]);
    t.keys(&["q"]);
    t.wait_for(&["KSCHEDTUI-EXITED=0"]);
}

#[test]
fn demo_gang_screen_names_the_member_that_blocks_the_group() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let t = Tmux::start_sized(
        "gang",
        &format!(
            "{BIN} --demo --scheduler-version 1.36 --feature-gates GenericWorkload=true,GangScheduling=true; echo KSCHEDTUI-EXITED=$?; sleep 30"
        ),
        160,
        48,
    );
    t.wait_for(&["ddp-worker-0"]);
    // A Coscheduling gang: three members fit and wait at Permit, the fourth fits nowhere. The
    // list, the member's view and the gang screen tell that one story.
    let story = "gang ml/ddp-job: 3/4 fit, blocked by ml/ddp-worker-3";
    let s = t.wait_for(&[story]);
    let rows: Vec<&str> = s.lines().filter(|l| l.contains("ddp-worker-")).collect();
    assert_eq!(rows.len(), 4, "{s}");
    assert!(rows.iter().all(|l| l.starts_with("│✗") && l.contains(story)), "{s}");
    t.keys(&["/"]);
    t.text("ddp-worker-0");
    t.keys(&["Enter", "Enter"]);
    t.wait_for(&[
        "Pod ml/ddp-worker-0",
        &format!("{story}; this pod alone: Waiting at Permit on"),
        "Coscheduling    Wait",
        "the gang as a whole",
    ]);
    t.keys(&["m"]);
    let s = t.wait_for(&[
        "Gang ml/ddp-job · Coscheduling",
        story,
        "3 of minMember 4 fit; blocked by ml/ddp-worker-3",
        "blocks the group",
        "fits, released",
    ]);
    let blocker = s
        .lines()
        .find(|l| l.contains("blocks the group") && l.contains("ml/ddp-worker-"))
        .unwrap();
    assert!(
        blocker.contains("ml/ddp-worker-3") && blocker.contains("fits nowhere"),
        "{s}"
    );
    // Enter opens the selected member; back, then a native gang through `:gang`.
    t.keys(&["Enter"]);
    t.wait_for(&["Pod ml/ddp-worker-0"]);
    t.keys(&["q", "q", "q", "Escape"]);
    // Esc with the next key at once would reach the program as one Alt-key
    t.wait_gone("/ddp-worker-0");
    t.keys(&["/"]);
    t.text("sweep-0");
    t.keys(&["Enter"]);
    t.keys(&[":"]);
    t.text("gang");
    t.keys(&["Enter"]);
    t.wait_for(&[
        "Gang PodGroup ml/eval-sweep · GangScheduling",
        "the group completes: 2 of minMember 2 placed",
        "ml/sweep-1",
        "binds",
    ]);
    t.keys(&["q", "q"]);
    t.wait_for(&["KSCHEDTUI-EXITED=0"]);
}

/// Prints TTY-RAW or TTY-COOKED: whether the terminal was left in raw mode.
const TTY_MODE: &str = "if stty -a | grep -q -- -icanon; then echo TTY-RAW; else echo TTY-COOKED; fi";

#[test]
fn a_panic_restores_the_terminal() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    // debug builds panic after the first frame when KSCHEDTUI_DEBUG_PANIC is set
    let t = Tmux::start(
        "panic",
        &format!(
            "KSCHEDTUI_DEBUG_PANIC=1 RUST_BACKTRACE=0 {BIN} --demo; echo KSCHEDTUI-EXITED=$?; {TTY_MODE}; sleep 30"
        ),
    );
    let s = t.wait_for(&["KSCHEDTUI-EXITED=101", "TTY-"]);
    assert!(
        s.contains("panicking on purpose"),
        "the panic message is on the main screen:\n{s}"
    );
    assert!(s.contains("TTY-COOKED"), "raw mode left on after a panic:\n{s}");
    assert!(!s.contains("Pods "), "alternate screen left behind:\n{s}");
}

/// Starts `args` in tmux through a shell that writes its pid (the TUI's, after `exec`) to a
/// file, then prints the exit code and the terminal mode; returns the session and the pid.
fn start_with_pid(name: &str, args: &str, dir: &std::path::Path) -> (Tmux, String) {
    let pidfile = dir.join("pid");
    let t = Tmux::start(
        name,
        &format!(
            "sh -c 'echo $$ > {}; exec {BIN} {args}'; echo KSCHEDTUI-EXITED=$?; {TTY_MODE}; sleep 30",
            pidfile.display()
        ),
    );
    let start = Instant::now();
    let pid = loop {
        if let Ok(p) = std::fs::read_to_string(&pidfile)
            && !p.trim().is_empty()
        {
            break p.trim().to_string();
        }
        assert!(start.elapsed() < TIMEOUT, "no pid in {}", pidfile.display());
        std::thread::sleep(Duration::from_millis(50));
    };
    (t, pid)
}

#[test]
fn a_signal_restores_the_terminal_when_idle_or_loading() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    // idle on the demo: SIGTERM, SIGHUP and SIGINT (in raw mode Ctrl-C is a key: `kill -INT`)
    for (signal, code) in [("TERM", 143), ("HUP", 129), ("INT", 130)] {
        let dir = temp_dir(&format!("e2e-sig-{signal}"));
        let (t, pid) = start_with_pid(&format!("sig-{signal}"), "--demo", dir.path());
        t.wait_for(&["Pods ", "pending"]);
        assert!(
            Command::new("kill")
                .args([&format!("-{signal}"), &pid])
                .status()
                .unwrap()
                .success()
        );
        let s = t.wait_for(&[&format!("KSCHEDTUI-EXITED={code}"), "TTY-"]);
        assert!(s.contains("TTY-COOKED"), "SIG{signal}: raw mode left on:\n{s}");
        assert!(!s.contains("Pods "), "SIG{signal}: alternate screen left behind:\n{s}");
        assert_eq!(
            t.tmux(&["display", "-p", "-t", "e2e", "#{alternate_on}"]).trim(),
            "0",
            "SIG{signal}"
        );
    }
    // while loading: a snapshot that is a pipe nobody writes (the load never ends)
    let dir = temp_dir("e2e-sig-load");
    let fifo = dir.path().join("never.yaml");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let (t, pid) = start_with_pid("sig-load", &format!("--snapshot {}", fifo.display()), dir.path());
    t.wait_for(&["loading ", "never.yaml"]);
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let s = t.wait_for(&["KSCHEDTUI-EXITED=143", "TTY-"]);
    assert!(
        s.contains("TTY-COOKED"),
        "raw mode left on after SIGTERM while loading:\n{s}"
    );
    assert!(!s.contains("loading "), "alternate screen left behind:\n{s}");
}

/// The terminal going away under the UI (tmux killed, as a dropped ssh session): the process
/// ends within seconds instead of spinning on a hung-up terminal's end of file (crossterm's
/// reader loops on it inside the event loop, where the SIGHUP handler is never reached).
#[test]
fn the_ui_ends_when_its_terminal_hangs_up() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    if !Command::new("sh")
        .args(["-c", "command -v setsid"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        println!("SKIPPED tui_e2e hangup: setsid (util-linux) is not installed");
        return;
    }
    // Round 0 as a shell starts it (the terminal's SIGHUP reaches it); rounds 1 and 2 in a
    // session of its own, as under nohup or a supervisor: no SIGHUP, only the hung-up terminal
    // (before the fix these spun at 44 % of a core until killed).
    for round in 0..3 {
        let dir = temp_dir(&format!("e2e-hangup-{round}"));
        let pidfile = dir.path().join("pid");
        let inner = format!("echo $$ > {}; exec {BIN} --demo", pidfile.display());
        let cmd = if round == 0 {
            format!("sh -c '{inner}'")
        } else {
            format!("setsid -w sh -c '{inner}'")
        };
        let t = Tmux::start(&format!("hangup-{round}"), &cmd);
        t.wait_for(&["Pods ", "pending"]);
        let pid = std::fs::read_to_string(&pidfile).unwrap().trim().to_string();
        drop(t); // kill-server: the pane's terminal closes
        // running, not a zombie nobody reaps (its parent, the tmux server, is gone)
        let running = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|s| s.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z')))
        };
        let start = Instant::now();
        while running() && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
        }
        let alive = running();
        if alive {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
        }
        assert!(
            !alive,
            "round {round}: kschedtui (pid {pid}) still runs 5 s after its terminal hung up"
        );
    }
}

#[test]
fn live_mode_without_a_kubeconfig_is_a_clear_one_line_error() {
    let home_guard = temp_dir("e2e-home");
    let home = home_guard.path();
    let out = Command::new(BIN)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    #[cfg(feature = "live")]
    assert_eq!(
        err.trim_end(),
        "error: no kubeconfig found (KUBECONFIG is not set and ~/.kube/config does not exist) and not running inside a cluster; pass --kubeconfig FILE, or --snapshot FILE to work offline"
    );
    #[cfg(not(feature = "live"))]
    assert!(
        err.contains("live mode (attaching to the current kubeconfig context) is not available in this build"),
        "{err}"
    );
}

#[test]
fn bad_theme_is_refused_before_the_terminal_is_touched() {
    let out = Command::new(BIN)
        .args(["--demo", "--theme", "solarized"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: unknown theme 'solarized' (valid: default, light, high-contrast, or a path to a .yaml file)\n"
    );
    let out = Command::new(BIN)
        .args(["--snapshot", "no/such/file.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: cannot read snapshot 'no/such/file.yaml': no such file or directory\n"
    );
}

#[test]
fn unknown_colour_depth_is_refused_before_the_terminal_is_touched() {
    let out = Command::new(BIN)
        .args(["--demo"])
        .env("KSCHEDTUI_COLORS", "16")
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: KSCHEDTUI_COLORS=16: unknown colour depth (valid: truecolor, 24bit, 256, auto)\n"
    );
}

#[test]
fn quit_restores_the_terminal_after_a_load_error() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let dir_guard = temp_dir("e2e-bad");
    let dir = dir_guard.path();
    let bad = dir.join("bad.yaml");
    std::fs::write(
        &bad,
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: lots}}\n",
    )
    .unwrap();
    let t = Tmux::start(
        "bad",
        &format!("{BIN} --snapshot {}; echo KSCHEDTUI-EXITED=$?; sleep 30", bad.display()),
    );
    t.wait_for(&["The cluster could not be loaded", "status.allocatable.cpu"]);
    t.keys(&["q"]);
    let s = t.wait_for(&["KSCHEDTUI-EXITED=1"]);
    assert!(
        s.contains("error: "),
        "the error is printed after the terminal is restored:\n{s}"
    );
}

#[test]
fn demo_deschedule_screen_shows_where_the_evicted_pod_lands_and_opens_it() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let t = Tmux::start_sized(
        "deschedule",
        &format!("{BIN} --demo; echo KSCHEDTUI-EXITED=$?; sleep 30"),
        160,
        48,
    );
    t.wait_for(&["shop/shop-web-7c9f-new"]);
    t.keys(&[":"]);
    t.text(&format!(
        "deschedule {}/fixtures/deschedule/policy.yaml",
        env!("CARGO_MANIFEST_DIR")
    ));
    t.keys(&["Enter"]);
    let s = t.wait_for(&[
        "Descheduler dry run",
        "LowNodeUtilization",
        "batch/etl-nightly-3",
        "moves to pool-general-a1",
        "protected by DefaultEvictor: pod does not have any ownerRefs",
    ]);
    let row = s
        .lines()
        .skip_while(|l| !l.contains("POD") || !l.contains("LANDS / WHY"))
        .skip(1)
        .position(|l| l.contains("batch/etl-nightly-3"))
        .expect("etl-nightly-3 row");
    for _ in 0..row {
        t.keys(&["j"]);
    }
    t.wait_for(&["Evicted in memory; recreated by StatefulSet/etl-nightly as batch/etl-nightly-3"]);
    t.keys(&["Enter"]);
    t.wait_for(&["Pod batch/etl-nightly-3"]);
    t.keys(&["q"]);
    t.wait_for(&["Descheduler dry run"]);
    t.keys(&["q"]);
    t.keys(&["q"]);
    t.wait_for(&["KSCHEDTUI-EXITED=0"]);
}

/// `:fit FILE` in the real binary: the storefront's 8 replicas come in as what-if pending
/// pods, marked in the list and in the header; `:fit` alone removes them.
#[test]
fn demo_fit_adds_what_if_pods_and_fit_alone_removes_them() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let t = Tmux::start_sized(
        "fit",
        &format!("{BIN} --demo -n shop; echo KSCHEDTUI-EXITED=$?; sleep 30"),
        160,
        48,
    );
    t.wait_for(&["shop/shop-web-7c9f-new"]);
    t.keys(&[":"]);
    t.text(&format!(
        "fit {}/fixtures/fit/storefront.yaml",
        env!("CARGO_MANIFEST_DIR")
    ));
    t.keys(&["Enter"]);
    t.wait_for(&["what-if: 8 pod(s) of", "storefront-", "what-if · "]);
    t.keys(&[":"]);
    t.text("fit");
    t.keys(&["Enter"]);
    t.wait_for(&["removed the 8 what-if pod(s) of :fit"]);
    t.keys(&[":"]);
    t.text("q!");
    t.keys(&["Enter"]);
    t.wait_for(&["KSCHEDTUI-EXITED=0"]);
}

/// `e` hands the pod's YAML to $EDITOR in a file of its own: a new name in $TMPDIR, readable
/// by the user alone, removed once the edit is read back; the edit is applied.
#[test]
fn the_editor_gets_a_private_file_that_is_removed_afterwards() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let tmp = temp_dir("editor");
    let dir = tmp.path();
    let seen = dir.join("seen");
    // the editor notes the file's path and mode, keeps a copy, and asks for less CPU
    let editor = dir.join("ed.sh");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\necho \"$1\" > {seen}\nstat -c %a \"$1\" >> {seen}\ncp \"$1\" {copy}\nsed -i 's/^\\( *\\)cpu: .*/\\1cpu: 1m/' \"$1\"\n",
            seen = seen.display(),
            copy = dir.join("copy.yaml").display()
        ),
    )
    .unwrap();
    let chmod = Command::new("chmod").arg("+x").arg(&editor).status().unwrap();
    assert!(chmod.success());
    let t = Tmux::start(
        "editor",
        &format!(
            "TMPDIR={} EDITOR={} {BIN} --demo; sleep 30",
            dir.display(),
            editor.display()
        ),
    );
    t.wait_for(&["kschedtui", "demo cluster", "Pods"]);
    t.keys(&["e"]);
    let s = t.wait_for(&["edited pod ", "(YAML) (in memory); re-running the scheduler"]);
    let seen = std::fs::read_to_string(&seen).unwrap_or_else(|e| panic!("the editor did not run ({e}):\n{s}"));
    let [path, mode] = seen.lines().collect::<Vec<_>>()[..] else {
        panic!("{seen}")
    };
    let name = path
        .strip_prefix(&format!("{}/", dir.display()))
        .unwrap_or_else(|| panic!("not in $TMPDIR: {path}"));
    assert!(name.starts_with("kschedtui-") && name.ends_with(".yaml"), "{name}");
    assert_eq!(mode, "600");
    assert!(!std::path::Path::new(path).exists(), "{path} is left behind");
    let copy = std::fs::read_to_string(dir.join("copy.yaml")).unwrap();
    assert!(copy.starts_with("apiVersion: v1\nkind: Pod\n"), "{copy}");
    t.keys(&["q"]);
}

/// `e` with a YAML mistake: the editor opens again on the text with the error above it, and
/// the corrected edit is applied (as `kubectl edit` does); nothing is lost.
#[test]
fn a_yaml_mistake_opens_the_editor_again_with_the_error() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let tmp = temp_dir("editor-again");
    let dir = tmp.path();
    let second = dir.join("second.yaml");
    // first time: a broken cpu request; second time (the error above the text): corrected
    let editor = dir.join("ed.sh");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\nif head -1 \"$1\" | grep -q '^# kschedtui could not apply this edit:'; then\n  cp \"$1\" {second}\n  sed -i 's/cpu: \\[1m/cpu: 1m/' \"$1\"\nelse\n  sed -i 's/^\\( *\\)cpu: .*/\\1cpu: [1m/' \"$1\"\nfi\n",
            second = second.display()
        ),
    )
    .unwrap();
    let chmod = Command::new("chmod").arg("+x").arg(&editor).status().unwrap();
    assert!(chmod.success());
    let t = Tmux::start(
        "editor-again",
        &format!("EDITOR={} {BIN} --demo; sleep 30", editor.display()),
    );
    t.wait_for(&["kschedtui", "demo cluster", "Pods"]);
    t.keys(&["e"]);
    t.wait_for(&["edited pod ", "(YAML) (in memory); re-running the scheduler"]);
    let again = std::fs::read_to_string(&second).expect("the editor was opened a second time");
    let lines: Vec<&str> = again.lines().collect();
    assert_eq!(lines[0], "# kschedtui could not apply this edit:");
    assert!(
        lines[1].starts_with("#   edited pod ") && lines[1].contains(": not a valid Pod: "),
        "{again}"
    );
    assert_eq!(
        lines[2],
        "# Correct it and save to apply it; save it unchanged, or empty, to give up."
    );
    assert_eq!(lines[3..5], ["#", "apiVersion: v1"]);
    assert!(
        lines.iter().any(|l| l.trim() == "cpu: [1m"),
        "the text as saved:\n{again}"
    );
    t.keys(&["q"]);
}

/// `:w ~/FILE` writes under $HOME, as a shell would read the path.
#[test]
fn save_expands_a_leading_tilde_to_the_home_directory() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let home_guard = temp_dir("e2e-home");
    let home = home_guard.path();
    let t = Tmux::start("tilde", &format!("HOME={} {BIN} --demo; sleep 30", home.display()));
    t.wait_for(&["kschedtui", "demo cluster", "Pods"]);
    t.keys(&[":"]);
    t.text("w ~/demo-copy.yaml");
    t.keys(&["Enter"]);
    t.wait_for(&["saved the cluster"]);
    let saved = home.join("demo-copy.yaml");
    let text = std::fs::read_to_string(&saved).unwrap_or_else(|e| panic!("{}: {e}\n{}", saved.display(), t.screen()));
    assert!(text.contains("kind: Node"), "{text}");
    assert!(!std::path::Path::new("~").exists(), "a directory named ~ was created");
    t.keys(&["q"]);
}

/// The rows of the pod list on screen: `(namespace, name)` of each, below the header.
fn listed(screen: &str) -> Vec<(String, String)> {
    screen
        .lines()
        .skip_while(|l| !((l.contains("NAMESPACE") || l.contains(" NS ")) && l.contains("NAME")))
        .skip(1)
        .take_while(|l| !l.contains('─'))
        .filter_map(|l| {
            let w: Vec<&str> = l
                .split(|c: char| c.is_whitespace() || c == '│')
                .filter(|s| !s.is_empty())
                .collect();
            (w.len() > 2).then(|| (w[1].to_string(), w[2].to_string()))
        })
        .collect()
}

#[test]
fn demo_pod_list_sorts_by_a_column_keeps_pending_pods_and_filters_by_reason() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let t = Tmux::start("podlist", &format!("{BIN} --demo; echo KSCHEDTUI-EXITED=$?; sleep 30"));
    // the decisive reasons lead the column, not upstream's alphabetical message
    t.wait_for(&[
        "Pods",
        "8× Insufficient cpu",
        "held before the queue: gate acme.io/canary-approval",
    ]);
    // Shift-C: by CPU, largest first; again: reversed
    t.keys(&["C"]);
    let s = t.wait_for(&["sort cpu↓", "CPU↓"]);
    let first = listed(&s);
    assert_eq!(first[0].1, "notebook-shared", "16 CPUs, the largest request:\n{s}");
    t.keys(&["C"]);
    t.wait_for(&["sort cpu↑", "CPU↑"]);
    // Ctrl-z: only the pending pods (bound pods read `on NODE`)
    t.keys(&["C-z"]);
    let s = t.wait_for(&["pending only", "31 shown, 31 pending"]);
    assert!(!s.lines().any(|l| l.starts_with("│●")), "a bound pod is listed:\n{s}");
    // Shift-R: by reason; r on payments-api keeps the pods short of cpu, whatever the count
    // (notebook-shared fits on one node but for its cpu)
    t.keys(&["R"]);
    let s = t.wait_for(&["sort reason↑", "NODE / WHY PENDING↑"]);
    for _ in 0..row_of(&s, "shop", "payments-api") {
        t.keys(&["j"]);
    }
    t.wait_for(&["shop/payments-api: 8× Insufficient cpu; preempt 1 on pool-general-a3 · upstream: 0/14 nodes:"]);
    t.keys(&["r"]);
    let s = t.wait_for(&["reason = Insufficient cpu", "2 shown"]);
    let mut rows = listed(&s);
    rows.sort();
    assert_eq!(
        rows,
        [
            ("ml".to_string(), "notebook-shared".to_string()),
            ("shop".to_string(), "payments-api".to_string())
        ],
        "{s}"
    );
    // r again: every reason
    t.keys(&["r"]);
    t.wait_for(&["31 shown", "frontend-spread"]);
    // :reason TEXT keeps the reasons that contain it; :reason alone clears it
    t.keys(&[":"]);
    t.text("reason gang");
    t.keys(&["Enter"]);
    let s = t.wait_for(&["reason ~ gang", "4 shown"]);
    assert!(listed(&s).iter().all(|(_, n)| n.starts_with("ddp-worker-")), "{s}");
    t.keys(&[":"]);
    t.text("reason");
    t.keys(&["Enter"]);
    t.wait_for(&["31 shown", "every reason shown again"]);
    t.keys(&["q"]);
    t.wait_for(&["KSCHEDTUI-EXITED=0"]);
}

/// `q` with an in-memory change not saved asks first; n stays, `:q!` quits without asking.
#[test]
fn quitting_with_an_unsaved_change_asks_and_q_bang_quits() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    for (cols, rows) in [(160, 48), (80, 24)] {
        let t = Tmux::start_sized(
            &format!("quit{cols}"),
            &format!("{BIN} --demo; echo KSCHEDTUI-EXITED=$?; sleep 30"),
            cols,
            rows,
        );
        t.wait_for(&["kschedtui", "Pods"]);
        // a what-if: cordon the first node of the node list
        t.keys(&[":"]);
        t.text("nodes");
        t.keys(&["Enter"]);
        t.wait_for(&["Nodes ("]);
        t.keys(&["Enter"]);
        t.wait_for(&["Node "]);
        t.keys(&["c"]);
        t.wait_for(&["1 "]);
        t.wait_for(&["cordoned node"]);
        t.keys(&["q"]);
        t.wait_for(&["Nodes ("]);
        t.keys(&["q"]);
        t.wait_for(&["NODE / WHY PENDING"]);
        t.keys(&["q"]);
        t.wait_for(&[
            "Quit without saving?",
            "1 in-memory change(s) are not saved:",
            "cordoned node",
        ]);
        t.keys(&["n"]);
        t.wait_for(&["not quitting; 1 in-memory change(s) unsaved"]);
        t.wait_gone("Quit without saving?");
        t.keys(&[":"]);
        t.text("q!");
        t.keys(&["Enter"]);
        t.wait_for(&["KSCHEDTUI-EXITED=0"]);
    }
}

/// `:events` lists every pod's FailedScheduling events as kubectl describe does, Enter opens
/// the pod, `E` in the pod view lists its own; `:messages` keeps what the status line said.
#[test]
fn demo_events_and_messages_views() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    for (cols, rows) in [(160, 48), (80, 24)] {
        let t = Tmux::start_sized(
            &format!("events{cols}"),
            &format!("{BIN} --demo; echo KSCHEDTUI-EXITED=$?; sleep 30"),
            cols,
            rows,
        );
        t.wait_for(&["kschedtui", "Pods"]);
        t.keys(&[":"]);
        t.text("events");
        t.keys(&["Enter"]);
        // oldest first: report-huge's series (14 times) ends before finetune-llm's (9 times)
        let s = t.wait_for(&[
            "Events: FailedScheduling of every pod (2)",
            "batch/report-huge",
            "(x14 over",
        ]);
        let row = |name: &str| s.lines().position(|l| l.contains(name) && l.contains("Warning"));
        assert!(row("batch/report-huge") < row("ml/finetune-llm"), "{s}");
        t.keys(&["Enter"]);
        t.wait_for(&["Pod batch/report-huge"]);
        t.keys(&["q"]);
        t.wait_for(&["Events: FailedScheduling of every pod"]);
        t.keys(&["q"]);
        t.wait_for(&["NODE / WHY PENDING"]);
        // E in the pod view: that pod's events only
        t.keys(&["/"]);
        t.text("finetune-llm");
        t.keys(&["Enter"]);
        t.wait_for(&["/finetune-llm"]);
        t.keys(&["Enter"]);
        t.wait_for(&["Pod ml/finetune-llm"]);
        t.keys(&["E"]);
        t.wait_for(&["Events of ml/finetune-llm (1)", "(x9 over", "FailedScheduling"]);
        // a refused command, then :messages lists it, newest first
        t.keys(&[":"]);
        t.text("events nope");
        t.keys(&["Enter"]);
        t.wait_for(&[":events takes no argument or 'all', not 'nope'"]);
        t.keys(&[":"]);
        t.text("messages");
        t.keys(&["Enter"]);
        let s = t.wait_for(&["Messages (", "error"]);
        let first = s
            .lines()
            .skip_while(|l| !l.contains("KIND"))
            .nth(1)
            .unwrap_or_default()
            .to_string();
        assert!(
            first.contains("error") && first.contains(":events takes no argument"),
            "{s}"
        );
        t.keys(&["C-c"]);
        t.wait_for(&["KSCHEDTUI-EXITED=0"]);
    }
}

/// `c` copies with OSC 52: tmux with set-clipboard on keeps it as its paste buffer.
#[test]
fn c_copies_the_pod_name_and_the_verdict_to_the_clipboard() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let t = Tmux::start("copy", &format!("{BIN} --demo; echo KSCHEDTUI-EXITED=$?; sleep 30"));
    t.tmux(&["set-option", "-g", "set-clipboard", "on"]);
    t.wait_for(&["kschedtui", "Pods"]);
    t.keys(&["/"]);
    t.text("report-huge");
    t.keys(&["Enter"]);
    t.wait_for(&["/report-huge", "5× untolerated taint(s)"]);
    t.keys(&["c"]);
    t.wait_for(&["copied 'batch/report-huge' to the clipboard"]);
    let start = Instant::now();
    while t.tmux(&["show-buffer"]) != "batch/report-huge" {
        assert!(start.elapsed() < TIMEOUT, "buffer: {:?}", t.tmux(&["show-buffer"]));
        std::thread::sleep(Duration::from_millis(100));
    }
    // the pod view copies the verdict, whole
    t.keys(&["Enter"]);
    t.wait_for(&["Pod batch/report-huge"]);
    t.keys(&["c"]);
    t.wait_for(&["copied '"]);

    let start = Instant::now();
    loop {
        let b = t.tmux(&["show-buffer"]);
        if b.starts_with("batch/report-huge") || b.contains("Insufficient cpu") {
            assert!(b.contains("Insufficient cpu"), "{b}");
            break;
        }
        assert!(start.elapsed() < TIMEOUT, "buffer: {b:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    // y: the pod's YAML, read-only; q back to the pod view
    t.keys(&["y"]);
    t.wait_for(&[
        "pod batch/report-huge · YAML",
        "apiVersion: v1",
        "kind: Pod",
        "name: report-huge",
    ]);
    t.keys(&["q"]);
    t.wait_for(&["Pod batch/report-huge"]);
    t.keys(&["C-c"]);
    t.wait_for(&["KSCHEDTUI-EXITED=0"]);
}

/// A request beyond a node's allocatable is never "nearly": report-huge asks 12 cpu of 8-cpu
/// nodes, which read "too small", say what they have, and sort after the other failures.
#[test]
fn demo_nodes_too_small_for_the_pod_are_not_nearly_fitting() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let t = Tmux::start("toosmall", &format!("{BIN} --demo; echo KSCHEDTUI-EXITED=$?; sleep 30"));
    t.wait_for(&["kschedtui", "Pods"]);
    t.keys(&["/"]);
    t.text("report-huge");
    t.keys(&["Enter"]);
    t.wait_for(&["/report-huge"]);
    t.keys(&["Enter"]);
    let s = t.wait_for(&["Pod batch/report-huge", "Filter · 0/14 nodes fit", "too small"]);
    let rows: Vec<&str> = s.lines().filter(|l| l.contains("europe-west1-")).collect();
    assert!(!s.contains("nearly"), "{s}");
    let small: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].contains("too small")).collect();
    assert_eq!(small.len(), 8, "{s}");
    assert!(small.iter().all(|&i| i >= rows.len() - 8), "too small sorts last:\n{s}");
    assert!(
        rows[small[0]].contains("asks 12 cpu; the node has 8 allocatable"),
        "{s}"
    );
    t.keys(&["C-c"]);
    t.wait_for(&["KSCHEDTUI-EXITED=0"]);
}

/// The pod view's "to fix" line, the fixes screen at both sizes, `c` copying a fix's command,
/// and Enter trying it in memory: the pod then binds.
#[test]
fn demo_fixes_are_checked_by_the_engine_and_enter_tries_one() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    for (cols, rows) in [(160, 48), (80, 24)] {
        let t = Tmux::start_sized(
            &format!("fix{cols}"),
            &format!("{BIN} --demo; echo KSCHEDTUI-EXITED=$?; sleep 30"),
            cols,
            rows,
        );
        t.wait_for(&["kschedtui", "Pods"]);
        t.keys(&["/"]);
        t.text("report-huge");
        t.wait_for(&["/report-huge", "Enter keep"]);
        t.keys(&["Enter"]);
        let s = t.wait_for(&["report-huge"]);
        for _ in 0..row_of(&s, "batch", "report-huge") {
            t.keys(&["j"]);
        }
        t.keys(&["Enter"]);
        t.wait_for(&["Pod batch/report-huge", "to fix (f: 3 of 3 work): lower cpu to ≤ 6800m"]);
        t.keys(&["f"]);
        t.wait_for(&[
            "To fix batch/report-huge",
            "tolerate dra=present:NoSchedule (pool-dra-a1, pool-dra-b1) → would bind to",
            "blocked by: Insufficient cpu, Insufficient memory",
            "no kubectl command makes this change",
        ]);
        t.keys(&["j", "j"]);
        t.wait_for(&[
            "blocked by: node(s) had untolerated taint(s)",
            "$ kubectl patch pod report-huge -n batch --type=json",
        ]);
        t.keys(&["c"]);
        t.wait_for(&["copied 'kubectl patch pod report-huge -n batch"]);
        t.keys(&["Enter"]);
        t.wait_for(&[
            "Pod batch/report-huge",
            "Schedulable: would bind to pool-dra-b1",
            "fix for batch/report-huge: tolerate dra=present:NoSchedule",
        ]);
        t.wait_gone("to fix (");
        t.keys(&[":"]);
        t.text("q!");
        t.keys(&["Enter"]);
        t.wait_for(&["KSCHEDTUI-EXITED=0"]);
    }
}

impl Tmux {
    /// As [`Tmux::wait_for`] with its own time limit.
    pub(crate) fn wait_for_within(&self, texts: &[&str], limit: Duration) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if texts.iter().all(|t| s.contains(t)) {
                return s;
            }
            assert!(
                start.elapsed() < limit,
                "timed out after {limit:?} waiting for {texts:?}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A generated cluster of 1,000 nodes and 20,000 bound pods with 30 pending pods of each
/// failure kind, in the debug build the tests run: the loading screen comes at once, the list
/// follows, fills in with the decisive reasons as the explanations arrive, and the keys of the
/// hard cases (move, sort, pending only, same reason) answer on the whole list. The release
/// binary's timings at 5,000 nodes / 100,000 pods are the scale benchmark's and the README's;
/// this one prints its own.
#[test]
fn a_big_generated_cluster_lists_at_once_fills_in_and_its_keys_answer() {
    if !Tmux::available() {
        println!("SKIPPED tui_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let dir_guard = temp_dir("e2e-big");
    let dir = dir_guard.path();
    let file = dir.join("big.json");
    let out = Command::new(BIN)
        .args([
            "generate",
            "--nodes",
            "1000",
            "--pods",
            "20000",
            "--failing",
            "30",
            "-o",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let start = Instant::now();
    let t = Tmux::start(
        "big",
        &format!(
            "{BIN} --snapshot {}; echo KSCHEDTUI-EXITED=$?; sleep 30",
            file.display()
        ),
    );
    t.wait_for_within(&["loading"], Duration::from_secs(5));
    let first = start.elapsed();
    let s = t.wait_for_within(&["Pods 20031 shown, 31 pending"], Duration::from_secs(90));
    let listed_at = start.elapsed();
    assert!(s.contains("1000 nodes"), "{s}");
    // the reasons fill in: the cpu, selector and anti-affinity kinds each get theirs
    t.wait_for_within(
        &["Insufficient cpu", "node affinity/selector", "anti-affinity"],
        Duration::from_secs(90),
    );
    let reasons_at = start.elapsed();
    // move, sort by cpu (largest first), pending only, back
    t.keys(&["j", "j", "j"]);
    t.keys(&["C"]);
    let s = t.wait_for(&["sort cpu↓", "CPU↓"]);
    let rows = listed(&s);
    assert!(rows[0].1.starts_with("cpu-"), "the 200-cpu pods lead:\n{s}");
    t.keys(&["C-z"]);
    t.wait_for(&["pending only", "31 shown, 31 pending"]);
    // the same reason as the first pod's (a 200-cpu one): the five cpu pods
    t.keys(&["g", "r"]);
    let s = t.wait_for(&["reason = Insufficient cpu", "5 shown"]);
    assert!(
        listed(&s).iter().all(|(ns, n)| ns == "bench" && n.starts_with("cpu-")),
        "{s}"
    );
    t.keys(&["q"]);
    t.wait_for(&["KSCHEDTUI-EXITED=0"]);
    println!(
        "tui at 1000 nodes / 20031 pods (debug build): loading screen after {:.2} s, list after {:.2} s, reasons after {:.2} s",
        first.as_secs_f64(),
        listed_at.as_secs_f64(),
        reasons_at.as_secs_f64()
    );
}
