//! KubeSchedulerConfiguration files are validated as kube-scheduler validates them: the
//! error names the file and the field, with upstream's wording.

use std::process::Output;

use crate::scratch::temp_dir;

fn explain_with(config: &str) -> Output {
    let dir = temp_dir("config");
    let path = dir.path().join("sched.yaml");
    std::fs::write(&path, config).unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args(["explain", "--demo", "--all-pending", "--config"])
        .arg(&path)
        .output()
        .unwrap()
}

fn error_of(config: &str) -> String {
    let o = explain_with(config);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stdout));
    let e = String::from_utf8_lossy(&o.stderr).trim_end().to_string();
    assert!(e.contains("sched.yaml'"), "names the file: {e}");
    e.rsplit("sched.yaml': ").next().unwrap().to_string()
}

const HEAD: &str = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

#[test]
fn a_weight_beyond_int32_is_refused_and_no_total_can_overflow() {
    let e = error_of(&format!(
        "{HEAD}profiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      enabled:\n      - {{name: ImageLocality, weight: 9223372036854775807}}\n"
    ));
    assert_eq!(
        e,
        "scheduler config: profiles[0].plugins.score.enabled[0].weight: 9223372036854775807 does not fit in an int32: kube-scheduler cannot decode the file (cannot unmarshal number 9223372036854775807 into Go struct field Plugin.profiles.plugins.score.enabled.weight of type int32)"
    );
    // The largest int32 weight is accepted (as upstream: 2147483647 × 100 fits in an int64),
    // and the totals cannot wrap: the explanation still picks a node.
    let o = explain_with(&format!(
        "{HEAD}profiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      enabled:\n      - {{name: ImageLocality, weight: 2147483647}}\n"
    ));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_negative_weight_is_refused_as_upstreams_overflow_check_refuses_it() {
    // No validation rule covers weights, but the framework's overflow check runs in Go's
    // wrapping int64 arithmetic: after -5 × 100 the bound wraps below zero and the next
    // scoring plugin (the defaults' NodeAffinity) is refused.
    let e = error_of(&format!(
        "{HEAD}profiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      enabled:\n      - {{name: TaintToleration, weight: -5}}\n"
    ));
    assert_eq!(
        e,
        "scheduler config: profile 'default-scheduler': total score of Score plugins could overflow"
    );
    // The same weight as the only scoring plugin is accepted, as upstream accepts it.
    let o = explain_with(&format!(
        "{HEAD}profiles:\n- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n      disabled: [{{name: '*'}}]\n    queueSort:\n      enabled: [{{name: PrioritySort}}]\n    bind:\n      enabled: [{{name: DefaultBinder}}]\n    score:\n      enabled:\n      - {{name: TaintToleration, weight: -5}}\n"
    ));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn removed_and_unknown_api_versions_are_refused() {
    for v in ["v1beta1", "v1beta3", "v9"] {
        let e = error_of(&format!(
            "apiVersion: kubescheduler.config.k8s.io/{v}\nkind: KubeSchedulerConfiguration\n"
        ));
        assert_eq!(
            e,
            format!(
                "scheduler config: apiVersion: no kind \"KubeSchedulerConfiguration\" is registered for version \"kubescheduler.config.k8s.io/{v}\" (kube-scheduler 1.30 and later decode only kubescheduler.config.k8s.io/v1)"
            )
        );
    }
}

#[test]
fn profile_rules_are_upstreams_in_its_order_and_words() {
    let e = error_of(&format!(
        "{HEAD}percentageOfNodesToScore: 101\npodInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\nprofiles:\n- schedulerName: a\n  percentageOfNodesToScore: -1\n  pluginConfig:\n  - {{name: NodeResourcesFit, args: {{}}}}\n  - {{name: NodeResourcesFit, args: {{}}}}\n- schedulerName: a\n  plugins:\n    queueSort:\n      enabled: [{{name: PrioritySort}}]\n      disabled: [{{name: '*'}}]\n"
    ));
    assert_eq!(
        e,
        "scheduler config: [profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100], profiles[0].pluginConfig[1]: Duplicate value: \"NodeResourcesFit\", profiles[1].schedulerName: Duplicate value: profiles[0].schedulerName, profiles[1].plugins.queueSort: Invalid value: {enabled: [PrioritySort], disabled: [*]}: must be the same for all profiles, percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100], podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to PodInitialBackoffSeconds]"
    );
    let e = error_of(&format!("{HEAD}parallelism: 0\n"));
    assert_eq!(
        e,
        "scheduler config: parallelism: Invalid value: 0: should be an integer value greater than zero"
    );
    let ebs = format!(
        "{HEAD}profiles:\n- schedulerName: default-scheduler\n  plugins:\n    filter:\n      enabled: [{{name: EBSLimits}}]\n"
    );
    let e = error_of(&ebs);
    assert_eq!(
        e,
        "scheduler config: profiles[0].plugins.filter.enabled[0]: Invalid value: \"EBSLimits\": was invalid in version \"kubescheduler.config.k8s.io/v1\" (KubeSchedulerConfiguration is version \"kubescheduler.config.k8s.io/v1\")"
    );
}

#[test]
fn an_unknown_plugin_error_names_the_file() {
    let e = error_of(&format!(
        "{HEAD}profiles:\n- schedulerName: default-scheduler\n  plugins:\n    filter:\n      enabled: [{{name: NoSuchPlugin}}]\n"
    ));
    assert!(
        e.starts_with("profile 'default-scheduler': plugin 'NoSuchPlugin' does not exist (known: "),
        "{e}"
    );
}

#[test]
fn in_tree_volume_limits_are_refused_from_1_31_only() {
    let dir_guard = temp_dir("ebs");
    let dir = dir_guard.path();
    let path = dir.join("sched.yaml");
    std::fs::write(
        &path,
        format!("{HEAD}profiles:\n- schedulerName: default-scheduler\n  plugins:\n    filter:\n      enabled: [{{name: EBSLimits}}]\n"),
    )
    .unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args([
            "explain",
            "--demo",
            "--all-pending",
            "--scheduler-version",
            "1.30",
            "--config",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
