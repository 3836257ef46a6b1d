//! When the cluster's scheduler wrote another message than kschedtui's: which profile or
//! release writes that message. Every other profile of the profiles in use is tried on the
//! same snapshot, then every other release kschedtui reproduces (with its default gates and the
//! same configuration) on the same cluster, and each answer is compared with the cluster's
//! PodScheduled condition and newest FailedScheduling event as [`super::condition`] compares
//! kschedtui's own.

use std::sync::Arc;

use super::condition::{Expected, compare, event_message, expected};
use crate::engine::framework::trace::Explanation;
use crate::engine::{Features, Framework, Release, SchedulerConfig, Snapshot, build_profiles, explain_as};
use crate::model::Cluster;

/// A profile at a release that writes the cluster's message for the pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The release.
    pub release: Release,
    /// The profile (schedulerName).
    pub profile: String,
}

/// What was tried for one pod whose recorded message differs from kschedtui's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reproduction {
    /// The candidates that write the cluster's message, in the order tried: the other
    /// profiles at the release explained, then the other releases, newest first.
    pub by: Vec<Candidate>,
    /// The releases tried (the one explained first).
    pub releases: Vec<Release>,
    /// The profiles tried at the release explained.
    pub profiles: Vec<String>,
}

impl Reproduction {
    /// The sentence the text report and the TUI show.
    pub fn note(&self) -> String {
        let Some(first) = self.by.first() else {
            let oldest = self.releases.iter().min().map(|r| r.short()).unwrap_or_default();
            let newest = self.releases.iter().max().map(|r| r.short()).unwrap_or_default();
            return format!(
                "no other profile ({}) nor release ({oldest} to {newest}) writes the cluster's message either: the cluster changed since it was written, or it is a kschedtui bug to report",
                self.profiles.join(", ")
            );
        };
        let same_release = self.by.iter().all(|c| c.release == first.release);
        let names: Vec<String> = self
            .by
            .iter()
            .map(|c| {
                if same_release && c.release == self.releases[0] {
                    format!("profile {}", c.profile)
                } else {
                    format!("{} ({})", c.release.short(), c.profile)
                }
            })
            .collect();
        let what = if same_release && first.release == self.releases[0] {
            "profile"
        } else {
            "release"
        };
        let which = if self.by.len() == 1 {
            format!("that {what}")
        } else {
            format!("one of those {what}s")
        };
        format!(
            "the cluster's message is what {} writes: the cluster's scheduler may run {which}",
            names.join(", ")
        )
    }

    /// The `reproducedBy` value of the JSON `cluster` key.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "candidates": self.by.iter().map(|c| serde_json::json!({
                "schedulerVersion": c.release.to_string(),
                "profile": c.profile,
            })).collect::<Vec<_>>(),
            "releasesTried": self.releases.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "profilesTried": self.profiles,
        })
    }
}

/// The cluster's recorded messages for a pod kschedtui disagrees with.
struct Recorded {
    condition: Option<String>,
    event: Option<String>,
}

impl Recorded {
    /// Whether `other` is an answer that records this message.
    fn written_by(&self, other: &Explanation) -> bool {
        match expected(other) {
            Expected::Message(m) => {
                self.condition.as_deref().is_some_and(|c| c == m)
                    || self.event.as_deref().is_some_and(|e| e == event_message(m))
            }
            Expected::Binds | Expected::Nothing(_) => false,
        }
    }
}

/// Whether the cluster recorded another message than kschedtui's answer `ex` (the pods
/// [`reproduce_all`] tries other releases for).
pub fn differs(cluster: &Cluster, ex: &Explanation) -> bool {
    compare(cluster, ex).is_some_and(|v| v.agrees() == Some(false))
}

/// For each of `explained` (made with `features` and the profiles `profiles` built from
/// `config`, on `snapshot`): None when the cluster recorded nothing that differs from
/// kschedtui's answer, else what was tried and what writes the recorded message. The other
/// releases' snapshots are built one at a time, only when some pod differs, and each is
/// dropped before the next (one cluster-sized snapshot more at most).
pub fn reproduce_all(
    snapshot: &Snapshot,
    profiles: &[Framework],
    features: &Features,
    config: Option<&SchedulerConfig>,
    explained: &[&Explanation],
) -> Vec<Option<Reproduction>> {
    reproduce_all_while(snapshot, profiles, features, config, explained, || true)
}

/// The same, asking `go` before each other release's snapshot is built (a TUI job whose
/// cluster changed meanwhile stops there); None for every pod when it stopped.
pub fn reproduce_all_while(
    snapshot: &Snapshot,
    profiles: &[Framework],
    features: &Features,
    config: Option<&SchedulerConfig>,
    explained: &[&Explanation],
    go: impl Fn() -> bool,
) -> Vec<Option<Reproduction>> {
    let cluster: &Arc<Cluster> = &snapshot.cluster;
    let mut recorded: Vec<Option<Recorded>> = Vec::with_capacity(explained.len());
    let mut out: Vec<Option<Reproduction>> = Vec::with_capacity(explained.len());
    for ex in explained {
        let differs = compare(cluster, ex)
            .filter(|v| v.agrees() == Some(false))
            .map(|v| Recorded {
                condition: v
                    .condition
                    .filter(|c| c.status == "False" && c.reason.as_deref() == Some("Unschedulable"))
                    .and_then(|c| c.message.clone()),
                event: v.events.first().map(|e| e.message.clone()),
            });
        let rep = differs.as_ref().map(|rec| {
            let mut rep = Reproduction {
                by: Vec::new(),
                releases: vec![features.release()],
                profiles: Vec::new(),
            };
            for fw in profiles.iter().filter(|f| f.name != ex.profile) {
                rep.profiles.push(fw.name.clone());
                if let Ok(other) = explain_as(snapshot, profiles, &ex.pod, Some(&fw.name))
                    && rec.written_by(&other)
                {
                    rep.by.push(Candidate {
                        release: features.release(),
                        profile: fw.name.clone(),
                    });
                }
            }
            rep
        });
        recorded.push(differs);
        out.push(rep);
    }
    if recorded.iter().all(Option::is_none) {
        return out;
    }
    let current = features.release().newest_of_minor();
    for r in Release::known().iter().rev().filter(|r| **r != current) {
        if !go() {
            return explained.iter().map(|_| None).collect();
        }
        let f = Features::new(*r);
        let built = build_profiles(config, &f)
            .ok()
            .map(|p| (Snapshot::new(cluster.clone(), f), p));
        for ((ex, rec), rep) in explained.iter().zip(&recorded).zip(out.iter_mut()) {
            let (Some(rec), Some(rep)) = (rec, rep) else { continue };
            rep.releases.push(*r);
            let Some((snap, profs)) = &built else { continue };
            if let Ok(other) = explain_as(snap, profs, &ex.pod, None)
                && rec.written_by(&other)
            {
                rep.by.push(Candidate {
                    release: *r,
                    profile: other.profile.clone(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ObjectKey;
    use crate::source::file::load_str;

    /// fixtures/recorded-message.yaml (two nodes with 1 cpu free, a pod asking for 2 and
    /// PreFilter narrowing it to node2) with `message` as the recorded PodScheduled condition.
    fn cluster(message: &str) -> Arc<Cluster> {
        let text = include_str!("../../fixtures/recorded-message.yaml");
        let at_1_30 = format!("\"0/2 nodes are available: 1 Insufficient cpu. {PREEMPT}\"");
        assert!(text.contains(&at_1_30));
        Arc::new(load_str("t", &text.replace(&at_1_30, &format!("{message:?}"))).unwrap())
    }

    const PREEMPT: &str = "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.";

    fn reproduce(message: &str, config: Option<&SchedulerConfig>) -> Option<Reproduction> {
        let f = Features::new(Release::DEFAULT);
        let snap = Snapshot::new(cluster(message), f.clone());
        let profiles = build_profiles(config, &f).unwrap();
        let ex = explain_as(&snap, &profiles, &ObjectKey::new("a", "p"), None).unwrap();
        reproduce_all(&snap, &profiles, &f, config, &[&ex]).pop().flatten()
    }

    /// 1.30 and 1.31 count no status for the node PreFilter left out; 1.32 on do; 1.34 to 1.36
    /// add DynamicResources' "no new claims to deallocate" before the preemption part. A message
    /// recorded in the wording of 1.30, or of 1.34, is traced to exactly the releases that
    /// write it.
    #[test]
    fn a_recorded_message_is_traced_to_the_releases_that_write_it() {
        let at_1_30 = format!("0/2 nodes are available: 1 Insufficient cpu. {PREEMPT}");
        let rep = reproduce(&at_1_30, None).expect("the condition differs");
        let by: Vec<(String, String)> = rep.by.iter().map(|c| (c.release.short(), c.profile.clone())).collect();
        assert_eq!(
            by,
            vec![
                ("1.31".to_string(), "default-scheduler".to_string()),
                ("1.30".to_string(), "default-scheduler".to_string())
            ]
        );
        assert_eq!(rep.releases.len(), Release::known().len());
        assert_eq!(rep.releases[0], Release::DEFAULT);
        assert_eq!(rep.profiles, vec!["scheduler-plugins-scheduler".to_string()]);
        assert_eq!(
            rep.note(),
            "the cluster's message is what 1.31 (default-scheduler), 1.30 (default-scheduler) writes: the cluster's scheduler may run one of those releases"
        );
        let json = rep.to_json();
        assert_eq!(json["candidates"][1]["schedulerVersion"], Release::at(30).to_string());
        assert_eq!(json["releasesTried"][0], Release::DEFAULT.to_string());

        let at_1_34 = format!(
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't satisfy plugin(s) [NodeAffinity]. no new claims to deallocate, {PREEMPT}"
        );
        let rep = reproduce(&at_1_34, None).unwrap();
        let by: Vec<String> = rep.by.iter().map(|c| c.release.short()).collect();
        assert_eq!(by, ["1.36", "1.35", "1.34"]);

        // the release's own message (1.37 words it as 1.32 did): nothing differs, nothing tried
        let now = format!(
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't satisfy plugin(s) [NodeAffinity]. {PREEMPT}"
        );
        assert_eq!(reproduce(&now, None), None);
    }

    /// A job whose cluster changed meanwhile stops before building another release's
    /// snapshot, and says nothing rather than half an answer.
    #[test]
    fn a_stopped_reproduction_says_nothing() {
        let f = Features::new(Release::DEFAULT);
        let snap = Snapshot::new(
            cluster(&format!("0/2 nodes are available: 1 Insufficient cpu. {PREEMPT}")),
            f.clone(),
        );
        let profiles = build_profiles(None, &f).unwrap();
        let ex = explain_as(&snap, &profiles, &ObjectKey::new("a", "p"), None).unwrap();
        assert_eq!(
            reproduce_all_while(&snap, &profiles, &f, None, &[&ex], || false),
            vec![None]
        );
        assert!(reproduce_all_while(&snap, &profiles, &f, None, &[&ex], || true)[0].is_some());
    }

    /// A message nobody writes is said to be nobody's; a message another profile of the
    /// configuration writes names that profile.
    #[test]
    fn other_profiles_are_tried_and_a_stray_message_is_said_so() {
        let rep = reproduce("0/2 nodes are available: 2 Too many pods.", None).unwrap();
        assert!(rep.by.is_empty());
        assert_eq!(
            rep.note(),
            format!(
                "no other profile (scheduler-plugins-scheduler) nor release ({} to {}) writes the cluster's message either: the cluster changed since it was written, or it is a kschedtui bug to report",
                Release::OLDEST.short(),
                Release::NEWEST.short()
            )
        );
        // a profile without NodeAffinity: PreFilter narrows nothing, both nodes lack cpu
        let config = SchedulerConfig::parse(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n- schedulerName: no-affinity\n  plugins:\n    multiPoint:\n      disabled: [{name: NodeAffinity}]\n",
        )
        .unwrap();
        let f = Features::new(Release::DEFAULT);
        let snap = Snapshot::new(cluster("x"), f.clone());
        let profiles = build_profiles(Some(&config), &f).unwrap();
        let theirs = explain_as(&snap, &profiles, &ObjectKey::new("a", "p"), Some("no-affinity"))
            .unwrap()
            .message
            .unwrap();
        assert!(
            theirs.starts_with("0/2 nodes are available: 2 Insufficient cpu."),
            "{theirs}"
        );
        let rep = reproduce(&theirs, Some(&config)).unwrap();
        assert_eq!(rep.profiles, vec!["no-affinity".to_string()]);
        assert_eq!(
            rep.by,
            vec![Candidate {
                release: Release::DEFAULT,
                profile: "no-affinity".into()
            }]
        );
        assert_eq!(
            rep.note(),
            "the cluster's message is what profile no-affinity writes: the cluster's scheduler may run that profile"
        );
    }
}
