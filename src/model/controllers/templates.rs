//! Pod templates as the controllers change them: labels and selectors, a Job's template and a
//! CronJob's Job, a DaemonSet pod's node, tolerations and affinity.

use k8s_openapi::api::batch::v1 as batch;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::naming::{controller_ref, derived_uid};
use crate::model::Toleration;
use crate::model::selector::{NodeSelectorMatcher, Selector};

pub(super) fn with_label(mut t: core::PodTemplateSpec, k: &str, v: &str) -> core::PodTemplateSpec {
    t.metadata
        .get_or_insert_with(Default::default)
        .labels
        .get_or_insert_with(Default::default)
        .insert(k.into(), v.into());
    t
}

pub(super) fn selector_with(s: &LabelSelector, k: &str, v: &str) -> LabelSelector {
    let mut s = s.clone();
    s.match_labels
        .get_or_insert_with(Default::default)
        .insert(k.into(), v.into());
    s
}

/// The labels the API server's Job strategy adds to a Job's template (`generateSelector`),
/// unless `manualSelector`.
pub(super) fn job_template(job: &batch::JobSpec, name: &str, uid: &str) -> core::PodTemplateSpec {
    let mut t = job.template.clone();
    if job.manual_selector != Some(true) {
        let labels = t
            .metadata
            .get_or_insert_with(Default::default)
            .labels
            .get_or_insert_with(Default::default);
        for k in ["job-name", "batch.kubernetes.io/job-name"] {
            labels.entry(k.into()).or_insert_with(|| name.into());
        }
        for k in ["controller-uid", "batch.kubernetes.io/controller-uid"] {
            labels.entry(k.into()).or_insert_with(|| uid.into());
        }
    }
    t
}

/// The Job a CronJob's run creates (`getJobFromTemplate2`): named `<cronjob>-<minutes>`.
pub(super) fn cronjob_job(
    cj: &batch::CronJob,
    namespace: &str,
    name: &str,
    cj_uid: &str,
    scheduled: i64,
) -> batch::Job {
    let jt = cj.spec.job_template.clone();
    let scheduled = scheduled - scheduled.rem_euclid(60);
    let job_name = format!("{name}-{}", scheduled.div_euclid(60));
    let mut meta = jt.metadata.unwrap_or_default();
    meta.name = Some(job_name.clone());
    meta.namespace = Some(namespace.into());
    meta.uid = Some(derived_uid("Job", namespace, &job_name));
    let ts = k8s_openapi::jiff::Timestamp::from_second(scheduled).map_or_else(|_| String::new(), |t| t.to_string());
    meta.annotations
        .get_or_insert_with(Default::default)
        .insert("batch.kubernetes.io/cronjob-scheduled-timestamp".into(), ts);
    meta.owner_references = Some(vec![controller_ref("batch/v1", "CronJob", name, cj_uid)]);
    batch::Job {
        metadata: meta,
        spec: jt.spec,
        status: None,
    }
}

/// `NodeShouldRunDaemonPod`'s predicates on a node for the DaemonSet's pod: the template's
/// required node affinity and nodeSelector match, and no NoSchedule or NoExecute taint goes
/// untolerated (with the tolerations the controller adds).
pub(super) fn daemon_runs_on(spec: &core::PodSpec, node: &crate::model::Node, comparison_operators: bool) -> bool {
    if let Some(n) = spec.node_name.as_deref().filter(|n| !n.is_empty())
        && n != node.name
    {
        return false;
    }
    if let Some(sel) = &spec.node_selector
        && !Selector::from_map(sel).matches(&node.labels)
    {
        return false;
    }
    if let Some(req) = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|na| na.required_during_scheduling_ignored_during_execution.as_ref())
        && !NodeSelectorMatcher::new(req).matches(&node.labels, &node.name)
    {
        return false;
    }
    let tolerations: Vec<Toleration> = spec.tolerations.iter().flatten().map(Toleration::from).collect();
    node.taints
        .iter()
        .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
        .all(|t| Toleration::any_tolerates(&tolerations, t, comparison_operators))
}

/// `AddOrUpdateDaemonPodTolerations`.
pub(super) fn daemon_tolerations(spec: &mut core::PodSpec) {
    let mut add = vec![
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ];
    if spec.host_network == Some(true) {
        add.push(("node.kubernetes.io/network-unavailable", "NoSchedule"));
    }
    let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
    for (key, effect) in add {
        let t = core::Toleration {
            key: Some(key.into()),
            operator: Some("Exists".into()),
            effect: Some(effect.into()),
            value: None,
            toleration_seconds: None,
        };
        // `AddOrUpdateTolerationInPodSpec`: one with the same key, operator, value and effect
        // is replaced, else it is added
        match tolerations
            .iter_mut()
            .find(|x| x.key == t.key && x.effect == t.effect && x.operator == t.operator && x.value == t.value)
        {
            Some(x) => *x = t,
            None => tolerations.push(t),
        }
    }
}

/// `ReplaceDaemonSetPodNodeNameNodeAffinity`.
pub(super) fn daemon_affinity(spec: &mut core::PodSpec, node: &str) {
    let term = core::NodeSelectorTerm {
        match_expressions: None,
        match_fields: Some(vec![core::NodeSelectorRequirement {
            key: "metadata.name".into(),
            operator: "In".into(),
            values: Some(vec![node.into()]),
        }]),
    };
    let affinity = spec.affinity.get_or_insert_with(Default::default);
    let na = affinity.node_affinity.get_or_insert_with(Default::default);
    match &mut na.required_during_scheduling_ignored_during_execution {
        Some(req) => req.node_selector_terms = vec![term],
        None => {
            na.required_during_scheduling_ignored_during_execution = Some(core::NodeSelector {
                node_selector_terms: vec![term],
            });
        }
    }
}
