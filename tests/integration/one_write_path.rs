//! The same preemption and bind, done through the TUI in snapshot mode (then `:w`), the CLI
//! on a snapshot (`preempt --save`, then `bind --save`) and `simulate --write`, leave the same
//! cluster: all three go through the one in-memory API server.

use crate::scratch::temp_dir;
use std::path::Path;
use std::process::Command;

use kschedtui::app::{Action, App, Effect, Mode, SourceInfo, SourceKind, load_sync, update_sync};
use kschedtui::source::{file, save};

const SNAPSHOT: &str = r#"apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}, capacity: {cpu: "2", memory: 4Gi, pods: "10"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: low, namespace: default, uid: u-low}
  spec: {nodeName: n1, priority: 0, containers: [{name: c, image: i, resources: {requests: {cpu: 1500m}}}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: hi, namespace: default, uid: u-hi}
  spec: {priority: 100, containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}
"#;

fn kschedtui(args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "kschedtui {args:?}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The cluster a file holds, as kschedtui writes it.
fn cluster_of(p: &Path) -> String {
    serde_json::to_string_pretty(&save::to_list(&file::load_path(p).unwrap())).unwrap()
}

fn typed(app: &mut App, s: &str) {
    for c in s.chars() {
        update_sync(app, Action::Input(c));
    }
}

fn tui(input: &Path, out: &Path) {
    let mut a = App::new(
        SourceInfo {
            kind: SourceKind::Snapshot,
            name: input.display().to_string(),
        },
        false,
    );
    load_sync(&mut a, file::load_path(input).unwrap());
    update_sync(&mut a, Action::SearchStart);
    typed(&mut a, "hi");
    update_sync(&mut a, Action::Submit);
    update_sync(&mut a, Action::Open);
    update_sync(&mut a, Action::RequestPreempt);
    assert!(matches!(a.mode, Mode::Confirm(_)), "{:?}", a.status);
    update_sync(&mut a, Action::Confirm);
    update_sync(&mut a, Action::RequestBind);
    assert!(matches!(a.mode, Mode::Confirm(_)), "{:?}", a.status);
    update_sync(&mut a, Action::Confirm);
    update_sync(&mut a, Action::CommandStart);
    typed(&mut a, &format!("w {}", out.display()));
    let effects = update_sync(&mut a, Action::Submit);
    let Some(Effect::Save {
        cluster,
        path,
        overwrite,
        changes,
    }) = effects.into_iter().find(|e| matches!(e, Effect::Save { .. }))
    else {
        panic!(":w saved nothing: {:?}", a.status)
    };
    assert_eq!(changes, 2, "a preemption and a bind");
    kschedtui::tui::runtime::save(&cluster, &path, overwrite, changes);
}

#[test]
fn tui_cli_and_simulate_leave_the_same_cluster() {
    let dir_guard = temp_dir("one-write");
    let dir = dir_guard.path();
    let input = dir.join("in.yaml");
    std::fs::write(&input, SNAPSHOT).unwrap();
    let s = |n: &str| dir.join(n).display().to_string();

    tui(&input, &dir.join("tui.yaml"));
    kschedtui(&[
        "preempt",
        "--snapshot",
        &s("in.yaml"),
        "default/hi",
        "--yes",
        "--save",
        &s("step.yaml"),
    ]);
    kschedtui(&[
        "bind",
        "--snapshot",
        &s("step.yaml"),
        "default/hi",
        "--yes",
        "--save",
        &s("cli.yaml"),
    ]);
    kschedtui(&["simulate", "--snapshot", &s("in.yaml"), "--write", &s("sim.yaml")]);

    let tui_file = std::fs::read_to_string(dir.join("tui.yaml")).unwrap();
    assert_eq!(tui_file, std::fs::read_to_string(dir.join("cli.yaml")).unwrap());
    let tui = cluster_of(&dir.join("tui.yaml"));
    assert_eq!(tui, cluster_of(&dir.join("sim.yaml")));
    // what the writes did: the victim deleted, the preemptor bound, its nomination cleared by
    // the binding (ClearingNominatedNodeNameAfterBinding, on in the newest release)
    let c = file::load_path(&dir.join("tui.yaml")).unwrap();
    assert!(c.pods.iter().all(|p| p.key.name != "low"));
    let hi = c.pods.iter().find(|p| p.key.name == "hi").unwrap();
    assert_eq!(hi.node_name.as_deref(), Some("n1"));
    assert_eq!(hi.nominated_node_name(), None);
}
