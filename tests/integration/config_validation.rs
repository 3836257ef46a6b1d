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

fn explain_at(config: &str, version: &str, output: &str) -> Output {
    let dir = temp_dir("config");
    let path = dir.path().join("sched.yaml");
    std::fs::write(&path, config).unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_kschedtui"))
        .args([
            "explain",
            "--demo",
            "--all-pending",
            "--scheduler-version",
            version,
            "-o",
            output,
            "--config",
        ])
        .arg(&path)
        .output()
        .unwrap()
}

fn error_at(config: &str, version: &str) -> String {
    let o = explain_at(config, version, "text");
    assert_eq!(
        o.status.code(),
        Some(1),
        "{version}: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    let e = String::from_utf8_lossy(&o.stderr).trim_end().to_string();
    e.rsplit("sched.yaml': ").next().unwrap().to_string()
}

#[test]
fn a_typo_at_any_level_is_refused_as_the_strict_decoder_refuses_it() {
    // `profile:` for `profiles:` gave the default profile, silently
    let e = error_of(&format!(
        "{HEAD}profile:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      disabled: [{{name: '*'}}]\n"
    ));
    assert_eq!(e, "scheduler config: strict decoding error: unknown field \"profile\"");
    // every unknown field, in the file's order, named by its path
    let e = error_of(&format!(
        "{HEAD}leaderElection:\n  leaderElect: false\n  leaseDuraton: 20s\nclientConnection:\n  qsp: 10\nprofiles:\n- schedulerName: default-scheduler\n  plugin: {{}}\n  plugins:\n    filtr:\n      enabled: [{{name: NodeName}}]\n    score:\n      enable: [{{name: ImageLocality}}]\n      disabled: [{{name: ImageLocality, wieght: 2}}]\n  pluginConfig:\n  - name: NodeAffinity\n    arg: {{}}\nextenders:\n- urlprefix: http://ext\n"
    ));
    assert_eq!(
        e,
        "scheduler config: strict decoding error: unknown field \"leaderElection.leaseDuraton\", unknown field \"clientConnection.qsp\", unknown field \"profiles[0].plugin\", unknown field \"profiles[0].plugins.filtr\", unknown field \"profiles[0].plugins.score.enable\", unknown field \"profiles[0].plugins.score.disabled[0].wieght\", unknown field \"profiles[0].pluginConfig[0].arg\", unknown field \"extenders[0].urlprefix\""
    );
    // the args of a plugin that is not enabled are decoded too
    let e = error_of(&format!(
        "{HEAD}profiles:\n- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n      disabled: [{{name: NodeAffinity}}]\n  pluginConfig:\n  - name: NodeAffinity\n    args: {{addedAfinity: {{}}}}\n"
    ));
    assert!(
        e.starts_with("profile 'default-scheduler': pluginConfig 'NodeAffinity': field 'addedAfinity': unknown field `addedAfinity`"),
        "{e}"
    );
    // the fields every release has are accepted
    let o = explain_with(&format!(
        "{HEAD}parallelism: 8\nenableProfiling: false\nenableContentionProfiling: false\ndelayCacheUntilActive: true\nleaderElection:\n  leaderElect: true\n  leaseDuration: 30s\n  renewDeadline: 20s\n  retryPeriod: 3s\n  resourceLock: leases\n  resourceName: kube-scheduler\n  resourceNamespace: kube-system\nclientConnection:\n  kubeconfig: /etc/kubernetes/scheduler.conf\n  acceptContentTypes: application/json\n  contentType: application/vnd.kubernetes.protobuf\n  qps: 100\n  burst: 200\n"
    ));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // the placement plugin sets exist from 1.36: an older decoder does not know them
    let placement = format!(
        "{HEAD}profiles:\n- schedulerName: default-scheduler\n  plugins:\n    placementScore:\n      disabled: [{{name: '*'}}]\n"
    );
    assert_eq!(
        error_at(&placement, "1.35"),
        "scheduler config: strict decoding error: unknown field \"profiles[0].plugins.placementScore\""
    );
    assert!(explain_at(&placement, "1.36", "text").status.success());
}

#[test]
fn leader_election_client_connection_extenders_and_removed_plugins_are_validated_as_upstream() {
    // the lease must outlast the renew deadline (10s by default), in each release's words
    let lease = format!("{HEAD}leaderElection:\n  leaseDuration: 5s\n");
    assert_eq!(
        error_at(&lease, "1.33"),
        "scheduler config: leaderElection.leaseDuration: Invalid value: 10s: LeaseDuration must be greater than RenewDeadline"
    );
    assert_eq!(
        error_at(&lease, "1.34"),
        "scheduler config: leaderElection.leaseDuration: Invalid value: 10s: must be greater than `RenewDeadline`"
    );
    // not checked without leader election; a zero duration is defaulted
    let off = format!("{HEAD}leaderElection:\n  leaderElect: false\n  leaseDuration: 5s\n");
    assert!(explain_at(&off, "1.34", "text").status.success());
    let zero = format!("{HEAD}leaderElection:\n  leaseDuration: 0s\n");
    assert!(explain_at(&zero, "1.34", "text").status.success());
    assert_eq!(
        error_at(
            &format!(
                "{HEAD}clientConnection:\n  qps: -1\n  burst: -1\nleaderElection:\n  retryPeriod: -1500ms\n  leaseDuration: 1m30s\n  renewDeadline: 1m30s\n"
            ),
            "1.35"
        ),
        "scheduler config: [clientConnection.burst: Invalid value: -1: must be non-negative, leaderElection.retryPeriod: Invalid value: -1.5s: must be greater than zero, leaderElection.leaseDuration: Invalid value: 1m30s: must be greater than `RenewDeadline`]"
    );
    // a negative qps is not refused upstream (client-go then does not rate-limit)
    assert!(
        explain_at(&format!("{HEAD}clientConnection:\n  qps: -1\n"), "1.35", "text")
            .status
            .success()
    );
    // extenders: positive weight when prioritizing, one binder, extended resource names once
    let e = error_at(
        &format!(
            "{HEAD}extenders:\n- urlPrefix: http://a\n  prioritizeVerb: prioritize\n  weight: -2\n  bindVerb: bind\n  managedResources:\n  - name: example.com/gpu\n  - name: cpu\n- urlPrefix: http://b\n  bindVerb: bind\n  managedResources:\n  - name: example.com/gpu\n  - name: Bad_Prefix/x\n"
        ),
        "1.35",
    );
    assert_eq!(
        e,
        "scheduler config: [extenders[0].weight: Invalid value: -2: must have a positive weight applied to it, extenders[0].managedResources[1].name: Invalid value: \"cpu\": is an invalid extended resource name, extenders[1].managedResources[0].name: Invalid value: \"example.com/gpu\": duplicate extender managed resource name, extenders[1].managedResources[1].name: Invalid value: \"Bad_Prefix/x\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), extenders: Invalid value: \"found 2 extenders implementing bind\": only one extender can implement bind]"
    );
    // pluginConfig for a plugin the release removed
    let ebs = format!(
        "{HEAD}profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: EBSLimits\n    args: {{}}\n"
    );
    assert_eq!(
        error_at(&ebs, "1.31"),
        "scheduler config: profiles[0].pluginConfig[0]: Invalid value: \"EBSLimits\": was invalid in version \"kubescheduler.config.k8s.io/v1\" (KubeSchedulerConfiguration is version \"kubescheduler.config.k8s.io/v1\")"
    );
    assert!(explain_at(&ebs, "1.30", "text").status.success());
}

#[test]
fn extenders_kschedtui_does_not_call_are_named_in_every_answer() {
    let config = format!(
        "{HEAD}extenders:\n- urlPrefix: http://gpu-extender.kube-system:8888/scheduler\n  filterVerb: filter\n  prioritizeVerb: prioritize\n  weight: 5\n  preemptVerb: preempt\n  managedResources:\n  - name: example.com/gpu\n    ignoredByScheduler: true\n- urlPrefix: http://binder:9000\n  bindVerb: bind\n  ignorable: true\n"
    );
    let notes = [
        "the configuration's extender extenders[0] (http://gpu-extender.kube-system:8888/scheduler) is not called by kschedtui: its Filter, Score (prioritize, weight 5) and Preempt are missing from this answer; kube-scheduler's NodeResourcesFit ignores example.com/gpu (ignoredByScheduler), kschedtui's does not",
        "the configuration's extender extenders[1] (http://binder:9000) is not called by kschedtui: it binds the pods in place of the Bind plugins (ignorable: kube-scheduler goes on without it when it fails)",
    ];
    let o = explain_at(&config, "1.35", "text");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    let text = String::from_utf8_lossy(&o.stdout);
    // every pod a profile of the configuration explains (not those that wait for another
    // scheduler: the configuration plays no part there)
    let pods = text.matches("\nVerdict: ").count() - text.matches("the pod waits for that scheduler\n").count();
    assert!(pods > 10, "{text}");
    for n in notes {
        assert!(err.contains(&format!("warning: {n}\n")), "{err}");
        // every explanation says it
        assert_eq!(text.matches(&format!("\nNote: {n}\n")).count(), pods, "{n}");
    }
    let o = explain_at(&config, "1.35", "json");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for ex in v
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e.get("waitingForScheduler").is_none())
    {
        let got: Vec<&str> = ex["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n.as_str())
            .collect();
        for n in notes {
            assert!(got.contains(&n), "{got:?}");
        }
    }
    // an extender with no verb and nothing ignored takes no part: nothing to say
    let idle = format!("{HEAD}extenders:\n- urlPrefix: http://idle\n");
    let o = explain_at(&idle, "1.35", "text");
    assert!(!String::from_utf8_lossy(&o.stdout).contains("extender"));
}
