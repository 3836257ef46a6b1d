//! What a plan's requests did: each one's outcome or error, the report, and [`PlanRun`], which
//! runs a plan the same way wherever it is sent.

use super::*;

/// A successful answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The server accepted the request with this HTTP code (200, 201, 202).
    Done {
        /// HTTP status code.
        code: u16,
    },
    /// A delete or eviction found the pod already gone (404): the goal is reached.
    AlreadyGone,
    /// VolumeBinding's wait ended with every claim bound, after this many seconds.
    Waited {
        /// Seconds.
        secs: u64,
    },
    /// Not waited for: in memory no controller binds claims (what a real cluster would do
    /// there).
    NotWaited(String),
}

/// Why a request failed. Each message is one line naming what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// `--readonly`.
    #[error("writes are disabled (--readonly); nothing was sent")]
    ReadOnly,
    /// 404 on a bind or patch.
    #[error("pod {pod} no longer exists (404 Not Found); refresh and try again")]
    NotFound {
        /// Pod.
        pod: ObjectKey,
    },
    /// 409 on a binding: the pod already has a node.
    #[error("pod {pod} is already bound to node '{node}' (409 Conflict); nothing to do")]
    AlreadyBound {
        /// Pod.
        pod: ObjectKey,
        /// Where it is bound ("unknown" when the server did not say).
        node: String,
    },
    /// Another 409 (a uid precondition failed: the pod was replaced).
    #[error("{message} (409 Conflict); refresh and try again")]
    Conflict {
        /// Server message.
        message: String,
    },
    /// 403, or a SelfSubjectAccessReview that says no.
    #[error("not allowed to {access} (403 Forbidden{}); ask a cluster admin for this permission", detail(.message))]
    Forbidden {
        /// The verb and resource.
        access: String,
        /// Server message or review reason.
        message: String,
    },
    /// A SelfSubjectAccessReview answered `allowed: false` (HTTP 201: the review itself was
    /// accepted; the permission is what is denied).
    #[error(
        "not allowed to {access}: permission denied (the SelfSubjectAccessReview answers allowed: false, {}); ask a cluster admin for this permission",
        if .reason.is_empty() { "no reason given".to_string() } else { format!("reason: {}", .reason) }
    )]
    Denied {
        /// The verb and resource.
        access: String,
        /// The review's `status.reason` ("" when it gives none).
        reason: String,
    },
    /// 429 from an Eviction: a PodDisruptionBudget refused it.
    #[error(
        "eviction of {pod} refused (429): {} does not allow it{}; wait for it to allow a disruption or preempt without --evict",
        match .pdb { Some(p) => format!("PodDisruptionBudget '{p}'"), None => "a PodDisruptionBudget".to_string() },
        detail(.message)
    )]
    PdbBlocked {
        /// Pod.
        pod: ObjectKey,
        /// The PDB, when the server named it.
        pdb: Option<String>,
        /// Server message.
        message: String,
    },
    /// 429 not caused by a PDB: the server is throttling.
    #[error("the API server is throttling requests (429 Too Many Requests{}); try again later", detail(.message))]
    TooManyRequests {
        /// Server message.
        message: String,
    },
    /// No answer in time.
    #[error(
        "no answer within {secs}s to '{what}'; it may or may not have been applied: check with `kubectl get {kind}{} {}`",
        if .pod.namespace.is_empty() { String::new() } else { format!(" -n {}", .pod.namespace) },
        .pod.name
    )]
    Timeout {
        /// The request.
        what: String,
        /// The object written, as `kubectl get` names its kind (pod, pv, pvc, resourceclaim).
        kind: &'static str,
        /// The object written (a pod for the pod requests).
        pod: ObjectKey,
        /// Seconds waited.
        secs: u64,
    },
    /// 404 on a PreBind update: the object is gone.
    #[error("{kind} {key} no longer exists (404 Not Found); refresh and try again")]
    ObjectNotFound {
        /// Its kind (PersistentVolume, ...).
        kind: &'static str,
        /// Its key.
        key: ObjectKey,
    },
    /// VolumeBinding's wait ended without every claim bound: upstream's PreBind error
    /// (`binding volumes: context deadline exceeded`, `binding volumes: provisioning failed
    /// for PVC "C"`), with what kschedtui saw of the claims.
    #[error("running PreBind plugin \"VolumeBinding\": binding volumes: {message}{}", detail(.state))]
    VolumesNotBound {
        /// Upstream's reason after `binding volumes: `.
        message: String,
        /// The claims' state and their last events, as kschedtui saw them.
        state: String,
    },
    /// The user interrupted a wait (Ctrl-C).
    #[error("interrupted while {what}; the writes already made stay")]
    Interrupted {
        /// What was being waited for.
        what: String,
    },
    /// The server could not be reached, TLS failed, credentials were refused...
    #[error("{0}")]
    Transport(String),
    /// Any other answer.
    #[error("'{what}' failed ({code}{}){}", if .reason.is_empty() { String::new() } else { format!(" {}", .reason) }, detail(.message))]
    Api {
        /// The request.
        what: String,
        /// HTTP code.
        code: u16,
        /// Status reason.
        reason: String,
        /// Server message.
        message: String,
    },
}

fn detail(m: &str) -> String {
    if m.is_empty() { String::new() } else { format!(": {m}") }
}

/// What the policy/v1 Eviction API answers for a pod, given the cluster's
/// PodDisruptionBudgets: `Ok(Some(index))` when the PDB at `index` covers the pod and allows a
/// disruption (the caller then decrements its `status.disruptionsAllowed`), `Ok(None)` when no
/// PDB covers it, the 429 refusal when the covering PDB allows none, and the server's 500 when
/// several PDBs cover the pod. Used where kschedtui applies an eviction itself (snapshot mode,
/// the in-memory source); a live API server decides for itself.
pub fn eviction_answer(
    pod: &ObjectKey,
    labels: &std::collections::BTreeMap<String, String>,
    pdbs: &[k8s_openapi::api::policy::v1::PodDisruptionBudget],
    what: &str,
) -> Result<Option<usize>, WriteError> {
    let covering: Vec<usize> = pdbs
        .iter()
        .enumerate()
        .filter(|(_, b)| {
            b.metadata.namespace.as_deref() == Some(pod.namespace.as_str())
                && crate::model::selector::Selector::from_label_selector(
                    b.spec.as_ref().and_then(|s| s.selector.as_ref()),
                )
                .matches(labels)
        })
        .map(|(i, _)| i)
        .collect();
    match covering[..] {
        [] => Ok(None),
        [i] => {
            let b = &pdbs[i];
            let st = b.status.clone().unwrap_or_default();
            if st.disruptions_allowed.unwrap_or(0) <= 0 {
                let name = b.metadata.name.clone().unwrap_or_default();
                return Err(WriteError::PdbBlocked {
                    pod: pod.clone(),
                    pdb: Some(name.clone()),
                    message: format!(
                        "The disruption budget {name} needs {} healthy pods and has {} currently",
                        st.desired_healthy.unwrap_or(0),
                        st.current_healthy.unwrap_or(0)
                    ),
                });
            }
            Ok(Some(i))
        }
        _ => Err(WriteError::Api {
            what: what.to_string(),
            code: 500,
            reason: "InternalError".into(),
            message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
                .into(),
        }),
    }
}

/// What happened to one request of a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Sent and accepted.
    Done(Outcome),
    /// Sent and refused (or no answer).
    Failed(WriteError),
    /// Not sent: its pod was already gone.
    SkippedGone,
    /// Not sent: an earlier critical request failed.
    NotSent,
}

/// What executing a plan did, request by request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The plan.
    pub plan: Plan,
    /// One step per request, in plan order.
    pub steps: Vec<Step>,
}

impl Report {
    /// True when every request succeeded (or found its pod already gone).
    pub fn ok(&self) -> bool {
        self.steps.iter().zip(&self.plan.requests).all(|(s, r)| match s {
            Step::Done(_) | Step::SkippedGone => true,
            Step::Failed(_) => !r.critical(),
            Step::NotSent => false,
        })
    }

    /// Victims that are gone (removed now or already gone).
    pub fn victims_removed(&self) -> Vec<ObjectKey> {
        self.plan
            .victims
            .iter()
            .filter(|v| self.victim_gone(v))
            .cloned()
            .collect()
    }

    /// Victims whose delete or eviction got no answer in time: they may or may not be gone,
    /// so they are neither "removed" nor "remaining".
    pub fn victims_unknown(&self) -> Vec<ObjectKey> {
        self.plan
            .victims
            .iter()
            .filter(|v| self.victim_unknown(v))
            .cloned()
            .collect()
    }

    /// True when the victim was found already gone (404) rather than removed by this plan.
    pub fn victim_already_gone(&self, v: &ObjectKey) -> bool {
        self.plan
            .requests
            .iter()
            .zip(&self.steps)
            .any(|(r, s)| r.pod() == v && matches!(s, Step::Done(Outcome::AlreadyGone) | Step::SkippedGone))
    }

    /// Victims still there, with why.
    pub fn victims_remaining(&self) -> Vec<(ObjectKey, String)> {
        self.plan
            .victims
            .iter()
            .filter(|v| !self.victim_gone(v) && !self.victim_unknown(v))
            .map(|v| {
                let why = self
                    .plan
                    .requests
                    .iter()
                    .zip(&self.steps)
                    .filter(|(r, _)| r.pod() == v)
                    .find_map(|(_, s)| match s {
                        Step::Failed(e) => Some(e.to_string()),
                        _ => None,
                    })
                    .unwrap_or_else(|| "not attempted: an earlier request failed".to_string());
                (v.clone(), why)
            })
            .collect()
    }

    fn victim_unknown(&self, v: &ObjectKey) -> bool {
        self.plan.requests.iter().zip(&self.steps).any(|(r, s)| {
            r.pod() == v
                && matches!(r, WriteRequest::Delete { .. } | WriteRequest::Evict { .. })
                && matches!(s, Step::Failed(WriteError::Timeout { kind: "pod", .. }))
        })
    }

    fn victim_gone(&self, v: &ObjectKey) -> bool {
        self.plan.requests.iter().zip(&self.steps).any(|(r, s)| {
            r.pod() == v
                && match s {
                    Step::Done(Outcome::AlreadyGone) | Step::SkippedGone => true,
                    Step::Done(Outcome::Waited { .. } | Outcome::NotWaited(_)) => false,
                    Step::Done(Outcome::Done { .. }) => {
                        matches!(r, WriteRequest::Delete { .. } | WriteRequest::Evict { .. })
                    }
                    Step::Failed(_) | Step::NotSent => false,
                }
        })
    }

    /// One line per request, then (for preemptions) which victims went and which did not.
    pub fn render(&self, dry_run: bool) -> String {
        let mut out = String::new();
        for (i, (r, s)) in self.plan.requests.iter().zip(&self.steps).enumerate() {
            let line = match s {
                Step::Done(Outcome::Done { code }) => format!("ok ({code})"),
                Step::Done(Outcome::AlreadyGone) => "already gone (404)".to_string(),
                Step::Done(Outcome::Waited { secs }) => format!("every claim bound after {secs} s"),
                Step::Done(Outcome::NotWaited(why)) => format!("not waited for: {why}"),
                Step::Failed(e) if !r.critical() => format!("failed, not critical: {e}"),
                Step::Failed(e) => format!("FAILED: {e}"),
                Step::SkippedGone => "not sent: the pod is already gone".to_string(),
                Step::NotSent => "not sent: an earlier request failed".to_string(),
            };
            out += &format!("{:>3}. {}: {line}\n", i + 1, r.summary());
        }
        if !self.plan.victims.is_empty() {
            let removed: Vec<String> = self.victims_removed().iter().map(|k| k.to_string()).collect();
            let what = if dry_run {
                "would be removed (dry run)"
            } else {
                "removed"
            };
            out += &format!(
                "victims {what}: {}\n",
                if removed.is_empty() {
                    "none".to_string()
                } else {
                    removed.join(", ")
                }
            );
            for (v, why) in self.victims_remaining() {
                out += &format!("victim NOT removed: {v}: {why}\n");
            }
            for v in self.victims_unknown() {
                out += &format!(
                    "victim UNKNOWN: {v}: its removal got no answer; check with `kubectl get pod -n {} {}`\n",
                    v.namespace, v.name
                );
            }
        }
        let undo = self.undo();
        if !dry_run && !self.ok() && !undo.is_empty() {
            out += "written before the failure, and how to undo it (the cluster's scheduler may also retry the pod and undo or reuse them):\n";
            for (summary, cmd) in undo {
                out += &format!("  {summary}: {cmd}\n");
            }
        }
        out
    }

    /// The requests that succeeded and changed something a later failure leaves behind, with
    /// the command that undoes each, in reverse order (undo the last first).
    pub fn undo(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self
            .plan
            .requests
            .iter()
            .zip(&self.steps)
            .filter(|(_, s)| matches!(s, Step::Done(Outcome::Done { .. })))
            .filter_map(|(r, _)| r.undo().map(|u| (r.summary(), u)))
            .collect();
        v.reverse();
        v
    }
}

/// The bookkeeping of executing a plan, shared by every executor: a critical failure stops
/// the plan (later requests are [`Step::NotSent`]; upstream also stops preempting at the first
/// error), and requests for a pod found already gone are skipped.
#[derive(Debug, Default)]
pub struct PlanRun {
    steps: Vec<Step>,
    gone: Vec<ObjectKey>,
    stopped: bool,
}

impl PlanRun {
    /// True when `r` is to be sent now; otherwise its step is recorded as not sent.
    pub fn should_send(&mut self, r: &WriteRequest) -> bool {
        if self.stopped {
            self.steps.push(Step::NotSent);
            return false;
        }
        if self.gone.contains(r.pod()) {
            self.steps.push(Step::SkippedGone);
            return false;
        }
        true
    }

    /// Records the answer to a request that was sent.
    pub fn record(&mut self, r: &WriteRequest, answer: Result<Outcome, WriteError>) {
        let step = match answer {
            Ok(Outcome::AlreadyGone) => {
                self.gone.push(r.pod().clone());
                Step::Done(Outcome::AlreadyGone)
            }
            Ok(o) => Step::Done(o),
            Err(WriteError::NotFound { pod }) if matches!(r, WriteRequest::MarkDisruptionTarget { .. }) => {
                // The victim vanished before it could be marked: nothing left to delete.
                self.gone.push(pod);
                Step::Done(Outcome::AlreadyGone)
            }
            Err(e) => {
                self.stopped = r.critical();
                Step::Failed(e)
            }
        };
        self.steps.push(step);
    }

    /// The report of the plan.
    pub fn finish(self, plan: &Plan) -> Report {
        Report {
            plan: plan.clone(),
            steps: self.steps,
        }
    }
}

/// Finds the PodDisruptionBudget named in a 429 eviction answer ("The disruption budget NAME
/// needs ..."), as the API server's eviction handler words it.
pub fn pdb_from_message(message: &str) -> Option<String> {
    let rest = message.split("disruption budget ").nth(1)?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '.')
        .collect();
    if name.is_empty() { None } else { Some(name) }
}

/// Finds the node in a 409 binding answer (`pod NAME is already assigned to node "NODE"`).
pub fn node_from_conflict(message: &str) -> Option<String> {
    let rest = message.split("already assigned to node ").nth(1)?;
    let rest = rest.trim_start_matches(['"', '\\']);
    let node: String = rest.chars().take_while(|c| *c != '"' && *c != '\\').collect();
    if node.is_empty() { None } else { Some(node) }
}
