//! Port of framework/plugins/volumezone/volume_zone.go (v1.30.6): the zone and region labels
//! of the PVs bound to the pod's claims must match the node's labels (beta labels fall back to
//! the GA ones on the node).

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use super::csi_translation::{
    LABEL_BETA_REGION, LABEL_BETA_ZONE, LABEL_MULTI_ZONE_DELIMITER, LABEL_TOPOLOGY_REGION, LABEL_TOPOLOGY_ZONE,
};
use super::names;
use super::volume_helpers::{claim_class, get_pvc, pv_not_found, pvc_not_found, storage_class_not_found};
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, FilterPlugin, Plugin, PluginSlots, PreFilterPlugin, Signing};
use crate::engine::framework::status::Status;
use crate::engine::release::Features;
use crate::model::Cluster;

/// Reason when a node's zone or region does not match a PV's.
pub(crate) const ERR_REASON_CONFLICT: &str = "node(s) had no available volume zone";

static PRE_FILTER_KEY: &str = "PreFilterVolumeZone";

/// The topology labels read, in upstream's order.
const TOPOLOGY_LABELS: [&str; 4] = [
    LABEL_BETA_ZONE,
    LABEL_BETA_REGION,
    LABEL_TOPOLOGY_ZONE,
    LABEL_TOPOLOGY_REGION,
];

/// One topology constraint of a PV.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PvTopology {
    /// The PV.
    pub pv_name: String,
    /// The label key.
    pub key: String,
    /// Allowed values.
    pub values: BTreeSet<String>,
}

fn translate_to_ga_label(label: &str) -> &str {
    match label {
        LABEL_BETA_REGION => LABEL_TOPOLOGY_REGION,
        LABEL_BETA_ZONE => LABEL_TOPOLOGY_ZONE,
        other => other,
    }
}

/// `volumehelpers.LabelZonesToSet`: `__`-separated, trimmed, no empty element.
fn label_zones_to_set(v: &str) -> Option<BTreeSet<String>> {
    let mut out = BTreeSet::new();
    for z in v.split(LABEL_MULTI_ZONE_DELIMITER) {
        let t = z.trim();
        if t.is_empty() {
            return None;
        }
        out.insert(t.to_string());
    }
    Some(out)
}

/// `getPVbyPod`.
fn pv_topologies(cluster: &Cluster, pod: &PodInfo) -> Result<Vec<PvTopology>, Status> {
    let mut out = Vec::new();
    let ns = &pod.pod.key.namespace;
    for v in pod.pod.spec().volumes.iter().flatten() {
        let Some(c) = &v.persistent_volume_claim else {
            continue;
        };
        if c.claim_name.is_empty() {
            return Err(Status::unresolvable("PersistentVolumeClaim had no name"));
        }
        let Some(pvc) = get_pvc(cluster, ns, &c.claim_name) else {
            return Err(Status::unresolvable(pvc_not_found(&c.claim_name)));
        };
        let pv_name = pvc.spec.as_ref().and_then(|s| s.volume_name.as_deref()).unwrap_or("");
        if pv_name.is_empty() {
            let class = claim_class(pvc);
            if class.is_empty() {
                return Err(Status::unresolvable(
                    "PersistentVolumeClaim had no pv name and storageClass name",
                ));
            }
            let Some(sc) = cluster.storage_classes.get(&class) else {
                return Err(Status::unresolvable(storage_class_not_found(&class)));
            };
            match sc.volume_binding_mode.as_deref() {
                None => {
                    return Err(Status::unresolvable(format!(
                        "VolumeBindingMode not set for StorageClass {class:?}"
                    )));
                }
                Some("WaitForFirstConsumer") => continue,
                Some(_) => return Err(Status::unresolvable("PersistentVolume had no name")),
            }
        }
        let Some(pv) = cluster.pvs.get(pv_name) else {
            return Err(Status::unresolvable(pv_not_found(pv_name)));
        };
        let labels = pv.metadata.labels.as_ref();
        for key in TOPOLOGY_LABELS {
            let Some(value) = labels.and_then(|l| l.get(key)) else {
                continue;
            };
            // A label that does not parse is ignored (upstream logs it).
            let Some(values) = label_zones_to_set(value) else {
                continue;
            };
            out.push(PvTopology {
                pv_name: pv_name.to_string(),
                key: key.to_string(),
                values,
            });
        }
    }
    Ok(out)
}

/// VolumeZone.
pub(crate) struct VolumeZone;

impl Plugin for VolumeZone {
    fn name(&self) -> &'static str {
        names::VOLUME_ZONE
    }

    fn sign_pod(&self, _: &Ctx<'_>, _: &PodInfo) -> Signing {
        Signing::Signed
    }
}

impl PreFilterPlugin for VolumeZone {
    fn pre_filter_facts(
        &self,
        _: &Ctx<'_>,
        _: &CycleState,
        pod: &PodInfo,
    ) -> Vec<crate::engine::framework::trace::Fact> {
        vec![crate::engine::plugins::volume_helpers::claims_fact(&pod.pod, false)]
    }

    fn pre_filter(&self, cx: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        match pv_topologies(&cx.snapshot.cluster, pod) {
            Err(s) => (None, s),
            Ok(t) if t.is_empty() => (None, Status::skip()),
            Ok(t) => {
                state.write(PRE_FILTER_KEY, t);
                (None, Status::success())
            }
        }
    }
}

impl FilterPlugin for VolumeZone {
    fn filter(&self, cx: &Ctx<'_>, state: &CycleState, pod: &PodInfo, node: &NodeInfo) -> Status {
        if pod.pod.spec().volumes.as_ref().is_none_or(Vec::is_empty) {
            return Status::success();
        }
        let computed;
        let topologies = match state.read::<Vec<PvTopology>>(PRE_FILTER_KEY) {
            Some(t) => t,
            None => match pv_topologies(&cx.snapshot.cluster, pod) {
                Ok(t) => {
                    computed = t;
                    &computed
                }
                Err(s) => return s,
            },
        };
        let labels = &node.node.labels;
        if !TOPOLOGY_LABELS.iter().any(|l| labels.contains_key(l)) {
            return Status::success();
        }
        for t in topologies {
            let v = labels.get(&t.key).or_else(|| labels.get(translate_to_ga_label(&t.key)));
            if !v.is_some_and(|v| t.values.contains(v)) {
                return Status::unresolvable(ERR_REASON_CONFLICT);
            }
        }
        Status::success()
    }
}

/// Registers VolumeZone (it takes no args).
pub(crate) fn register(_: &Value, _: &Features) -> Result<PluginSlots, String> {
    let p = Arc::new(VolumeZone);
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::super::volume_helpers::testutil::*;
    use super::*;

    /// (name, claim, node labels, expected PreFilter and Filter statuses)
    type ZoneCase = (
        &'static str,
        Option<&'static str>,
        Vec<(&'static str, &'static str)>,
        Status,
        Status,
    );

    fn labeled_pv(name: &str, labels: &[(&str, &str)]) -> k8s_openapi::api::core::v1::PersistentVolume {
        let mut p = pv(name);
        p.metadata.labels = Some(
            labels
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect(),
        );
        p
    }

    fn claim(name: &str, volume: &str) -> k8s_openapi::api::core::v1::PersistentVolumeClaim {
        let mut c = pvc("default", name);
        c.spec.get_or_insert_with(Default::default).volume_name = Some(volume.into());
        c
    }

    /// Runs PreFilter, then Filter (Filter also runs after a failed or skipped PreFilter, as
    /// the upstream test does, and recomputes the topologies).
    fn run(w: World, claim_name: Option<&str>) -> (Status, Status) {
        let s = w.snapshot();
        let cx = Ctx { snapshot: &s };
        let vols = claim_name.map(|c| vec![pvc_vol("v", c)]).unwrap_or_default();
        let p = info(pod("default", "pod_1", vols));
        let mut state = CycleState::default();
        let (_, pre) = VolumeZone.pre_filter(&cx, &mut state, &p);
        let f = VolumeZone.filter(&cx, &state, &p, node_info(&s, "host1"));
        (pre, f)
    }

    fn single_zone_world(node_labels: &[(&str, &str)]) -> World {
        World {
            nodes: vec![node("host1", node_labels)],
            pvs: vec![
                labeled_pv("Vol_1", &[(LABEL_BETA_ZONE, "us-west1-a")]),
                labeled_pv("Vol_2", &[(LABEL_BETA_REGION, "us-west1"), ("uselessLabel", "none")]),
                labeled_pv("Vol_3", &[(LABEL_BETA_REGION, "us-west1")]),
                labeled_pv("Vol_Stable_1", &[(LABEL_TOPOLOGY_ZONE, "us-west1-a")]),
                labeled_pv(
                    "Vol_Stable_2",
                    &[(LABEL_TOPOLOGY_REGION, "us-west1"), ("uselessLabel", "none")],
                ),
                labeled_pv(
                    "Vol_Stable_3",
                    &[
                        (LABEL_TOPOLOGY_ZONE, "us-west1-a"),
                        (LABEL_TOPOLOGY_REGION, "us-west1-a"),
                    ],
                ),
            ],
            pvcs: vec![
                claim("PVC_1", "Vol_1"),
                claim("PVC_2", "Vol_2"),
                claim("PVC_3", "Vol_3"),
                claim("PVC_4", "Vol_not_exist"),
                claim("PVC_Stable_1", "Vol_Stable_1"),
                claim("PVC_Stable_2", "Vol_Stable_2"),
                claim("PVC_Stable_3", "Vol_Stable_3"),
            ],
            ..Default::default()
        }
    }

    #[test]
    fn single_zone() {
        // volume_zone_test.go TestSingleZone
        let ok = Status::success();
        let conflict = Status::unresolvable(ERR_REASON_CONFLICT);
        let useless = ("uselessLabel", "none");
        let cases: Vec<ZoneCase> = vec![
            (
                "pod without volume",
                None,
                vec![(LABEL_BETA_ZONE, "us-west1-a")],
                Status::skip(),
                ok.clone(),
            ),
            ("node without labels", Some("PVC_1"), vec![], ok.clone(), ok.clone()),
            (
                "beta zone matched",
                Some("PVC_1"),
                vec![(LABEL_BETA_ZONE, "us-west1-a"), useless],
                ok.clone(),
                ok.clone(),
            ),
            (
                "beta region matched",
                Some("PVC_2"),
                vec![(LABEL_BETA_REGION, "us-west1"), useless],
                ok.clone(),
                ok.clone(),
            ),
            (
                "beta region mismatch",
                Some("PVC_2"),
                vec![(LABEL_BETA_REGION, "no_us-west1"), useless],
                ok.clone(),
                conflict.clone(),
            ),
            (
                "beta zone mismatch",
                Some("PVC_1"),
                vec![(LABEL_BETA_ZONE, "no_us-west1-a"), useless],
                ok.clone(),
                conflict.clone(),
            ),
            (
                "zone matched",
                Some("PVC_Stable_1"),
                vec![(LABEL_TOPOLOGY_ZONE, "us-west1-a"), useless],
                ok.clone(),
                ok.clone(),
            ),
            (
                "region matched",
                Some("PVC_Stable_2"),
                vec![(LABEL_TOPOLOGY_REGION, "us-west1"), useless],
                ok.clone(),
                ok.clone(),
            ),
            (
                "region mismatch",
                Some("PVC_Stable_2"),
                vec![(LABEL_TOPOLOGY_REGION, "no_us-west1"), useless],
                ok.clone(),
                conflict.clone(),
            ),
            (
                "zone mismatch",
                Some("PVC_Stable_1"),
                vec![(LABEL_TOPOLOGY_ZONE, "no_us-west1-a"), useless],
                ok.clone(),
                conflict.clone(),
            ),
            (
                "pv zone+region, node zone only",
                Some("PVC_Stable_3"),
                vec![(LABEL_TOPOLOGY_ZONE, "us-west1-a")],
                ok.clone(),
                conflict.clone(),
            ),
            (
                "pv GA zone, node beta zone",
                Some("PVC_Stable_1"),
                vec![(LABEL_BETA_ZONE, "us-west1-a")],
                ok.clone(),
                conflict.clone(),
            ),
            (
                "pv beta, node GA, matched",
                Some("PVC_1"),
                vec![(LABEL_TOPOLOGY_ZONE, "us-west1-a")],
                ok.clone(),
                ok.clone(),
            ),
            (
                "pv beta, node GA, mismatch",
                Some("PVC_1"),
                vec![(LABEL_TOPOLOGY_ZONE, "us-west1-b")],
                ok.clone(),
                conflict.clone(),
            ),
        ];
        for (name, claim, labels, want_pre, want_filter) in cases {
            let got = run(single_zone_world(&labels), claim);
            assert_eq!(got, (want_pre, want_filter), "{name}");
        }
    }

    #[test]
    fn multi_zone() {
        // TestMultiZone
        let world = |labels: &[(&str, &str)]| World {
            nodes: vec![node("host1", labels)],
            pvs: vec![
                labeled_pv("Vol_1", &[(LABEL_BETA_ZONE, "us-west1-a")]),
                labeled_pv("Vol_3", &[(LABEL_BETA_ZONE, "us-west1-c__us-west1-a")]),
                labeled_pv("Vol_Stable_1", &[(LABEL_TOPOLOGY_ZONE, "us-west1-a")]),
                labeled_pv("Vol_Stable_2", &[(LABEL_TOPOLOGY_ZONE, "us-west1-c__us-west1-a")]),
            ],
            pvcs: vec![
                claim("PVC_1", "Vol_1"),
                claim("PVC_3", "Vol_3"),
                claim("PVC_Stable_1", "Vol_Stable_1"),
                claim("PVC_Stable_2", "Vol_Stable_2"),
            ],
            ..Default::default()
        };
        let ok = (Status::success(), Status::success());
        let conflict = (Status::success(), Status::unresolvable(ERR_REASON_CONFLICT));
        assert_eq!(run(world(&[]), Some("PVC_3")), ok);
        assert_eq!(run(world(&[(LABEL_BETA_ZONE, "us-west1-a")]), Some("PVC_3")), ok);
        assert_eq!(run(world(&[(LABEL_BETA_ZONE, "us-west1-b")]), Some("PVC_1")), conflict);
        assert_eq!(
            run(world(&[(LABEL_TOPOLOGY_ZONE, "us-west1-a")]), Some("PVC_Stable_2")),
            ok
        );
        assert_eq!(
            run(world(&[(LABEL_TOPOLOGY_ZONE, "us-west1-b")]), Some("PVC_Stable_1")),
            conflict
        );
    }

    #[test]
    fn with_binding() {
        // TestWithBinding
        let mut immediate = class("Class_Immediate", "Immediate", "");
        immediate.volume_binding_mode = None;
        let world = || World {
            nodes: vec![node(
                "host1",
                &[(LABEL_BETA_ZONE, "us-west1-a"), ("uselessLabel", "none")],
            )],
            classes: vec![immediate.clone(), class("Class_Wait", "WaitForFirstConsumer", "")],
            pvs: vec![labeled_pv("Vol_1", &[(LABEL_BETA_ZONE, "us-west1-a")])],
            pvcs: vec![
                claim("PVC_1", "Vol_1"),
                with_class(pvc("default", "PVC_NoSC"), "Class_0"),
                pvc("default", "PVC_EmptySC"),
                with_class(pvc("default", "PVC_WaitSC"), "Class_Wait"),
                with_class(pvc("default", "PVC_ImmediateSC"), "Class_Immediate"),
            ],
            ..Default::default()
        };
        let both = |s: Status| (s.clone(), s);
        assert_eq!(run(world(), Some("PVC_1")), both(Status::success()));
        assert_eq!(
            run(world(), Some("PVC_EmptySC")),
            both(Status::unresolvable(
                "PersistentVolumeClaim had no pv name and storageClass name"
            ))
        );
        assert_eq!(
            run(world(), Some("PVC_NoSC")),
            both(Status::unresolvable(
                "storageclass.storage.k8s.io \"Class_0\" not found"
            ))
        );
        assert_eq!(
            run(world(), Some("PVC_ImmediateSC")),
            both(Status::unresolvable(
                "VolumeBindingMode not set for StorageClass \"Class_Immediate\""
            ))
        );
        assert_eq!(run(world(), Some("PVC_WaitSC")), (Status::skip(), Status::success()));
        // A claim naming a missing PV, and a missing claim.
        assert_eq!(
            run(world(), Some("PVC_missing")),
            both(Status::unresolvable("persistentvolumeclaim \"PVC_missing\" not found"))
        );
        let mut w = world();
        w.pvcs.push(claim("PVC_4", "Vol_not_exist"));
        assert_eq!(
            run(w, Some("PVC_4")),
            both(Status::unresolvable("persistentvolume \"Vol_not_exist\" not found"))
        );
    }

    #[test]
    fn label_parsing() {
        assert_eq!(
            label_zones_to_set("a__ b "),
            Some(["a".to_string(), "b".to_string()].into())
        );
        assert_eq!(label_zones_to_set("a____b"), None);
        assert_eq!(label_zones_to_set(""), None);
    }
}
