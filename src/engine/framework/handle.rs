//! What plugins reach beyond one cycle (`framework.Handle`, framework/runtime/framework.go and
//! waiting_pods_map.go): the pods waiting at Permit with `Allow`/`Reject`, a clock, and caches
//! with expiry that plugins keep between cycles. The engine stays pure: the clock is simulated
//! (milliseconds since the start of a simulation, 0 for a one-off explanation) and only the
//! simulator advances it.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::cycle_state::CycleState;
use super::status::{Code, Status};
use crate::model::{ObjectKey, Pod};

/// A pod that passed Reserve and got Wait from at least one Permit plugin (`waitingPod`).
#[derive(Clone)]
pub struct WaitingPod {
    /// The pod (as assumed: spec.nodeName set).
    pub pod: Arc<Pod>,
    /// The node it is assumed on.
    pub node: String,
    /// The profile whose Permit made it wait.
    pub profile: String,
    /// When it started waiting (clock ms).
    pub since_ms: u64,
    /// Permit plugins that have not allowed it yet → (timeout, deadline in clock ms).
    pub pending: BTreeMap<&'static str, (Duration, u64)>,
    /// The cycle state of the attempt that reserved it (for its binding cycle or Unreserve).
    pub state: CycleState,
    /// The signal delivered to it: Success once every pending plugin allowed it, or the first
    /// rejection (a timeout, or a plugin's `Reject`).
    pub verdict: Option<Status>,
}

impl WaitingPod {
    /// The member as a gang trace reports it at `now_ms`: how long it has waited, how long is left.
    pub fn member(&self, now_ms: u64) -> crate::engine::framework::trace::WaitingMember {
        crate::engine::framework::trace::WaitingMember {
            pod: self.pod.key.clone(),
            node: self.node.clone(),
            waited_ms: now_ms.saturating_sub(self.since_ms),
            time_left_ms: self.deadline_ms().unwrap_or(now_ms).saturating_sub(now_ms),
        }
    }

    /// The earliest deadline among the pending plugins.
    pub fn deadline_ms(&self) -> Option<u64> {
        self.pending.values().map(|(_, d)| *d).min()
    }
}

impl fmt::Debug for WaitingPod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaitingPod")
            .field("pod", &self.pod.key)
            .field("node", &self.node)
            .field("profile", &self.profile)
            .field("since_ms", &self.since_ms)
            .field("pending", &self.pending)
            .field("verdict", &self.verdict)
            .finish_non_exhaustive()
    }
}

/// The handle's state.
#[derive(Debug, Default)]
pub struct HandleState {
    /// The clock, in ms.
    pub now_ms: u64,
    /// The profile of the cycle being run: plugins see the waiting pods of their own profile
    /// only, as each upstream framework keeps its own map.
    pub profile: String,
    /// Every profile of the scheduler (`responsibleForPod`: a pending pod of another
    /// schedulerName is not this scheduler's).
    pub profiles: Vec<String>,
    /// Waiting pods by key.
    pub waiting: BTreeMap<ObjectKey, WaitingPod>,
    /// Plugin caches: (profile, cache name) → key → expiry (clock ms).
    pub caches: BTreeMap<(String, String), BTreeMap<String, u64>>,
    /// Set for a simulation: waiting pods and plugin caches outlive a cycle. Otherwise
    /// (one-off explanations of a static snapshot) nothing is kept, so explaining one pod never
    /// changes the explanation of the next.
    pub persistent: bool,
}

/// A shared handle (cloning shares it). Every snapshot carries one; a fresh one has no
/// waiting pods and the clock at 0.
#[derive(Clone, Default)]
pub struct FrameworkHandle(Arc<Mutex<HandleState>>);

impl fmt::Debug for FrameworkHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.lock();
        f.debug_struct("FrameworkHandle")
            .field("now_ms", &s.now_ms)
            .field("waiting", &s.waiting.len())
            .finish_non_exhaustive()
    }
}

/// Upstream's `maxTimeout` for Permit waits (framework.go).
pub const MAX_PERMIT_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// `time.Duration.String()` for whole milliseconds (`10s`, `1m0s`, `1h0m0s`, `1.5s`, `0s`).
pub fn go_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms == 0 {
        return "0s".into();
    }
    let h = ms / 3_600_000;
    let m = (ms / 60_000) % 60;
    let s = (ms / 1000) % 60;
    let frac = ms % 1000;
    let secs = if frac == 0 {
        format!("{s}s")
    } else {
        let f = format!("{frac:03}");
        format!("{s}.{}s", f.trim_end_matches('0'))
    };
    if ms < 1000 {
        return format!("{}ms", ms);
    }
    if h > 0 {
        format!("{h}h{m}m{secs}")
    } else if m > 0 {
        format!("{m}m{secs}")
    } else {
        secs
    }
}

impl FrameworkHandle {
    /// A handle for a simulation: caches persist between cycles.
    pub fn persistent() -> Self {
        let h = FrameworkHandle::default();
        h.lock().persistent = true;
        h
    }

    fn lock(&self) -> MutexGuard<'_, HandleState> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `f` on the state (for the simulator).
    pub fn with<R>(&self, f: impl FnOnce(&mut HandleState) -> R) -> R {
        f(&mut self.lock())
    }

    /// The clock, in ms.
    pub fn now_ms(&self) -> u64 {
        self.lock().now_ms
    }

    /// Sets the profile of the cycle about to run.
    pub fn set_profile(&self, profile: &str) {
        profile.clone_into(&mut self.lock().profile);
    }

    /// Sets the scheduler's profile names.
    pub fn set_profiles(&self, names: Vec<String>) {
        self.lock().profiles = names;
    }

    /// Whether some profile of the scheduler serves `scheduler_name`.
    pub fn serves(&self, scheduler_name: &str) -> bool {
        self.lock().profiles.iter().any(|p| p == scheduler_name)
    }

    /// The waiting pods of the current profile that have no verdict yet, by key
    /// (`IterateOverWaitingPods`).
    pub fn waiting_pods(&self) -> Vec<WaitingPod> {
        let s = self.lock();
        s.waiting
            .values()
            .filter(|w| w.profile == s.profile && w.verdict.is_none())
            .cloned()
            .collect()
    }

    /// Whether `pod` is one of [`Self::waiting_pods`].
    pub fn is_waiting(&self, pod: &ObjectKey) -> bool {
        let s = self.lock();
        s.waiting
            .get(pod)
            .is_some_and(|w| w.profile == s.profile && w.verdict.is_none())
    }

    /// `WaitingPod.Allow(plugin)`: once no plugin is pending the pod gets Success.
    pub fn allow(&self, pod: &ObjectKey, plugin: &str) {
        let mut s = self.lock();
        if let Some(w) = s.waiting.get_mut(pod) {
            w.pending.remove(plugin);
            if w.pending.is_empty() && w.verdict.is_none() {
                w.verdict = Some(Status::success());
            }
        }
    }

    /// `WaitingPod.Reject(plugin, msg)`: the first signal wins.
    pub fn reject(&self, pod: &ObjectKey, plugin: &'static str, message: &str) {
        let mut s = self.lock();
        if let Some(w) = s.waiting.get_mut(pod)
            && w.verdict.is_none()
        {
            w.verdict = Some(Status::new(Code::Unschedulable, [message.to_string()]).with_plugin(plugin));
        }
    }

    /// Preemption of a waiting victim: `WaitingPod.Reject(DefaultPreemption, "preempted")`
    /// (Unschedulable) up to 1.35, `WaitingPod.Preempt` from 1.36 (an Error "waiting on permit
    /// for pod: preempted", upstream #135719). True when the pod was waiting with no verdict.
    pub fn preempt_waiting(&self, pod: &ObjectKey, as_error: bool) -> bool {
        let mut s = self.lock();
        match s.waiting.get_mut(pod) {
            Some(w) if w.verdict.is_none() => {
                let plugin = super::names::DEFAULT_PREEMPTION;
                w.verdict = Some(if as_error {
                    Status::error("waiting on permit for pod: preempted").with_plugin(plugin)
                } else {
                    Status::new(Code::Unschedulable, ["preempted"]).with_plugin(plugin)
                });
                true
            }
            _ => false,
        }
    }

    /// Adds a waiting pod (RunPermitPlugins with a Wait). Only a simulation's handle keeps
    /// it: a one-off explanation reports the wait and leaves the handle as it was.
    pub fn add_waiting(&self, w: WaitingPod) {
        let mut s = self.lock();
        if s.persistent {
            s.waiting.insert(w.pod.key.clone(), w);
        }
    }

    /// Removes and returns the waiting pods that got a verdict, by key.
    pub fn take_decided(&self) -> Vec<WaitingPod> {
        let mut s = self.lock();
        let keys: Vec<ObjectKey> = s
            .waiting
            .iter()
            .filter(|(_, w)| w.verdict.is_some())
            .map(|(k, _)| k.clone())
            .collect();
        keys.iter().filter_map(|k| s.waiting.remove(k)).collect()
    }

    /// The earliest deadline of a waiting pod without a verdict.
    pub fn next_deadline_ms(&self) -> Option<u64> {
        let s = self.lock();
        s.waiting
            .values()
            .filter(|w| w.verdict.is_none())
            .filter_map(WaitingPod::deadline_ms)
            .min()
    }

    /// Moves the clock to `ms` (never back) and fires the Permit timers that ran out:
    /// "rejected due to timeout after waiting {d} at plugin {p}".
    pub fn advance_to(&self, ms: u64) {
        let mut s = self.lock();
        s.now_ms = s.now_ms.max(ms);
        let now = s.now_ms;
        let mut fired: Vec<(ObjectKey, &'static str, String)> = Vec::new();
        for (k, w) in &s.waiting {
            if w.verdict.is_some() {
                continue;
            }
            // The timer that fires first wins (ties: plugin name order).
            let first = w
                .pending
                .iter()
                .filter(|(_, (_, d))| *d <= now)
                .min_by_key(|(_, (_, d))| *d);
            if let Some((p, (t, _))) = first {
                fired.push((
                    k.clone(),
                    *p,
                    format!(
                        "rejected due to timeout after waiting {} at plugin {p}",
                        go_duration(*t)
                    ),
                ));
            }
        }
        drop(s);
        for (k, p, m) in fired {
            self.reject(&k, p, &m);
        }
    }

    /// True when `key` is in the plugin cache `cache` and has not expired (go-cache: an item
    /// expires once the clock is past its expiration).
    pub fn cache_contains(&self, cache: &str, key: &str) -> bool {
        let s = self.lock();
        let now = s.now_ms;
        s.caches
            .get(&(s.profile.clone(), cache.to_string()))
            .and_then(|c| c.get(key))
            .is_some_and(|exp| *exp >= now)
    }

    /// Adds `key` to a plugin cache for `ttl`.
    pub fn cache_add(&self, cache: &str, key: &str, ttl: Duration) {
        let mut s = self.lock();
        if !s.persistent {
            return;
        }
        let exp = s.now_ms + u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX / 2);
        let id = (s.profile.clone(), cache.to_string());
        s.caches.entry(id).or_default().insert(key.to_string(), exp);
    }

    /// Removes `key` from a plugin cache.
    pub fn cache_delete(&self, cache: &str, key: &str) {
        let mut s = self.lock();
        let id = (s.profile.clone(), cache.to_string());
        if let Some(c) = s.caches.get_mut(&id) {
            c.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_duration_matches_time_duration_string() {
        assert_eq!(go_duration(Duration::from_secs(10)), "10s");
        assert_eq!(go_duration(Duration::from_secs(60)), "1m0s");
        assert_eq!(go_duration(Duration::from_secs(90)), "1m30s");
        assert_eq!(go_duration(Duration::from_secs(3600)), "1h0m0s");
        assert_eq!(go_duration(Duration::from_secs(15 * 60)), "15m0s");
        assert_eq!(go_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(go_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(go_duration(Duration::ZERO), "0s");
    }
}
