//! The pipeline of a pod's scheduling attempt as a sequence of steps: every extension point of
//! the profile, each followed by its plugins, with what the explanation says happened there.
//! The stepper (n/p, N/P) walks these steps; the pipeline bar draws the points.

use crate::engine::Framework;
use crate::engine::framework::status::Code;
use crate::engine::framework::trace::Explanation;

/// The extension points, in cycle order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Point {
    /// Gates before the queue.
    PreEnqueue,
    /// Queue order.
    QueueSort,
    /// Once per cycle, before Filter.
    PreFilter,
    /// Per node.
    Filter,
    /// Preemption, when no node fits.
    PostFilter,
    /// Once per cycle, before Score.
    PreScore,
    /// Per feasible node.
    Score,
    /// Reserve resources.
    Reserve,
    /// Approve, deny or wait.
    Permit,
    /// Before binding.
    PreBind,
    /// Binding.
    Bind,
    /// After binding.
    PostBind,
}

impl Point {
    /// Every point in order.
    pub const ALL: [Point; 12] = [
        Point::PreEnqueue,
        Point::QueueSort,
        Point::PreFilter,
        Point::Filter,
        Point::PostFilter,
        Point::PreScore,
        Point::Score,
        Point::Reserve,
        Point::Permit,
        Point::PreBind,
        Point::Bind,
        Point::PostBind,
    ];

    /// Upstream's name.
    pub fn name(self) -> &'static str {
        match self {
            Point::PreEnqueue => "PreEnqueue",
            Point::QueueSort => "QueueSort",
            Point::PreFilter => "PreFilter",
            Point::Filter => "Filter",
            Point::PostFilter => "PostFilter",
            Point::PreScore => "PreScore",
            Point::Score => "Score",
            Point::Reserve => "Reserve",
            Point::Permit => "Permit",
            Point::PreBind => "PreBind",
            Point::Bind => "Bind",
            Point::PostBind => "PostBind",
        }
    }

    /// A short name for narrow terminals.
    pub fn short(self) -> &'static str {
        match self {
            Point::PreEnqueue => "PreEnq",
            Point::QueueSort => "Queue",
            Point::PreFilter => "PreFlt",
            Point::Filter => "Filter",
            Point::PostFilter => "PostFlt",
            Point::PreScore => "PreSc",
            Point::Score => "Score",
            Point::Reserve => "Resrv",
            Point::Permit => "Permit",
            Point::PreBind => "PreBnd",
            Point::Bind => "Bind",
            Point::PostBind => "PostBnd",
        }
    }
}

/// What happened at a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointState {
    /// Ran and let the pod through.
    Passed,
    /// Ran and stopped the pod here.
    Failed,
    /// Not needed (PostFilter when a node fits) or nothing to run.
    Skipped,
    /// The cycle stopped before this point.
    NotReached,
    /// After Score: would run when the pod is bound.
    WouldRun,
}

impl PointState {
    /// A one-character mark.
    pub fn mark(self) -> &'static str {
        match self {
            PointState::Passed => "✓",
            PointState::Failed => "✗",
            PointState::Skipped => "–",
            PointState::NotReached => "·",
            PointState::WouldRun => "○",
        }
    }

    /// Words.
    pub fn describe(self) -> &'static str {
        match self {
            PointState::Passed => "passed",
            PointState::Failed => "stopped the pod",
            PointState::Skipped => "not needed",
            PointState::NotReached => "not reached",
            PointState::WouldRun => "would run on binding",
        }
    }
}

/// One extension point of the pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    /// The point.
    pub point: Point,
    /// Its plugins in the profile, in order.
    pub plugins: Vec<String>,
    /// What happened.
    pub state: PointState,
}

/// A position of the stepper: a point, and a plugin of it (None: the point's summary).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The point.
    pub point: Point,
    /// Index into the point's plugins.
    pub plugin: Option<usize>,
}

impl Step {
    /// A point's summary step.
    pub fn at(point: Point) -> Self {
        Step { point, plugin: None }
    }
}

/// The pipeline of one explanation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    /// Every point, in order.
    pub stages: Vec<Stage>,
    /// A Permit plugin would hold the pod (its gang is short of members).
    pub waits_at_permit: bool,
}

fn ok(code: Code) -> bool {
    matches!(code, Code::Success | Code::Skip)
}

impl Pipeline {
    /// Builds the pipeline of an explanation with the profile that produced it.
    pub fn new(ex: &Explanation, profile: Option<&Framework>) -> Self {
        use PointState::{Failed, NotReached, Passed, Skipped, WouldRun};
        let plugins = |p: Point| -> Vec<String> {
            profile
                .map(|f| f.plugins_at(p.name()).iter().map(|s| (*s).to_string()).collect())
                .unwrap_or_default()
        };
        let mut states = Vec::new();
        if ex.waiting_for_scheduler.is_some() {
            states = vec![NotReached; Point::ALL.len()];
        } else {
            let gated = ex.pre_enqueue.iter().any(|s| !ok(s.code));
            states.push(if gated { Failed } else { Passed });
            states.push(if gated { NotReached } else { Passed });
            // PreFilter
            let pf_failed = ex.pre_filter.iter().any(|s| !ok(s.code));
            let no_nodes = !gated && ex.filter.is_empty() && ex.pre_filter.is_empty();
            let prefilter = if gated || no_nodes {
                NotReached
            } else if pf_failed {
                Failed
            } else {
                Passed
            };
            states.push(prefilter);
            let filter = if no_nodes {
                Failed
            } else if prefilter != Passed || ex.filter.is_empty() {
                NotReached
            } else if ex.filter.iter().any(|f| f.feasible) {
                Passed
            } else {
                Failed
            };
            states.push(filter);
            let unschedulable = filter == Failed || prefilter == Failed;
            let post = if !unschedulable {
                if filter == Passed { Skipped } else { NotReached }
            } else {
                match &ex.post_filter {
                    Some(pf) if pf.nominated_node.is_some() => Passed,
                    Some(_) => Failed,
                    None => Skipped,
                }
            };
            states.push(post);
            let scored = !ex.score.is_empty();
            states.push(if filter == Passed {
                if scored { Passed } else { Failed }
            } else {
                NotReached
            });
            states.push(if scored { Passed } else { NotReached });
            for _ in 0..5 {
                states.push(if ex.schedulable() { WouldRun } else { NotReached });
            }
        }
        let stages = Point::ALL
            .iter()
            .zip(states)
            .map(|(&point, state)| Stage {
                point,
                plugins: plugins(point),
                state,
            })
            .collect();
        let waits_at_permit = ex
            .binding_cycle
            .as_ref()
            .is_some_and(|b| b.permit.iter().any(|p| p.code == Code::Wait));
        Pipeline {
            stages,
            waits_at_permit,
        }
    }

    /// A stage by point.
    pub fn stage(&self, point: Point) -> Option<&Stage> {
        self.stages.iter().find(|s| s.point == point)
    }

    /// Every step: each point's summary, then one per plugin.
    pub fn steps(&self) -> Vec<Step> {
        let mut v = Vec::new();
        for s in &self.stages {
            v.push(Step::at(s.point));
            for i in 0..s.plugins.len() {
                v.push(Step {
                    point: s.point,
                    plugin: Some(i),
                });
            }
        }
        v
    }

    /// Where a pod view opens: the point that stopped the pod, Permit when the pod would wait
    /// there (a gang), Score when a node fits, or the last point reached.
    pub fn decisive(&self) -> Step {
        if let Some(s) = self.stages.iter().find(|s| s.state == PointState::Failed) {
            return Step::at(s.point);
        }
        if self.waits_at_permit {
            return Step::at(Point::Permit);
        }
        if self.stage(Point::Score).is_some_and(|s| s.state == PointState::Passed) {
            return Step::at(Point::Score);
        }
        self.end()
    }

    /// The last step the pod reached ("run to the end").
    pub fn end(&self) -> Step {
        let last = self
            .stages
            .iter()
            .rev()
            .find(|s| s.state != PointState::NotReached && s.state != PointState::Skipped)
            .or_else(|| self.stages.first());
        last.map_or(Step::at(Point::PreEnqueue), |s| Step::at(s.point))
    }

    /// The plugin name of a step.
    pub fn plugin(&self, step: &Step) -> Option<&str> {
        let i = step.plugin?;
        self.stage(step.point)?.plugins.get(i).map(String::as_str)
    }

    fn index(&self, step: &Step) -> usize {
        self.steps().iter().position(|s| s == step).unwrap_or(0)
    }

    /// The next step (stays at the last).
    pub fn next(&self, step: &Step) -> Step {
        let steps = self.steps();
        let i = self.index(step);
        steps
            .get(i + 1)
            .or(steps.get(i))
            .cloned()
            .unwrap_or_else(|| step.clone())
    }

    /// The previous step (stays at the first).
    pub fn prev(&self, step: &Step) -> Step {
        let steps = self.steps();
        let i = self.index(step);
        steps.get(i.saturating_sub(1)).cloned().unwrap_or_else(|| step.clone())
    }

    /// The next point's summary (stays at the last).
    pub fn next_point(&self, step: &Step) -> Step {
        let i = self.stages.iter().position(|s| s.point == step.point).unwrap_or(0);
        self.stages
            .get(i + 1)
            .map_or_else(|| step.clone(), |s| Step::at(s.point))
    }

    /// The previous point's summary; from a plugin step, its own point's summary first.
    pub fn prev_point(&self, step: &Step) -> Step {
        if step.plugin.is_some() {
            return Step::at(step.point);
        }
        let i = self.stages.iter().position(|s| s.point == step.point).unwrap_or(0);
        Step::at(self.stages[i.saturating_sub(1)].point)
    }

    /// "3/27": position of a step among all steps.
    pub fn position(&self, step: &Step) -> (usize, usize) {
        (self.index(step) + 1, self.steps().len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Release, Snapshot, build_profiles, explain};
    use crate::model::ObjectKey;
    use crate::source::file;
    use std::sync::Arc;

    fn explain_fixture(name: &str) -> (Explanation, Vec<Framework>) {
        let c = file::load_str("t", include_str!("../../fixtures/tui-test.yaml")).expect("fixture");
        let profiles = build_profiles(None, Release::NEWEST).expect("profiles");
        let snap = Snapshot::new(Arc::new(c), Release::NEWEST);
        let ex = explain(&snap, &profiles, &ObjectKey::parse(name, "default")).expect("explains");
        (ex, profiles)
    }

    #[test]
    fn unschedulable_pod_stops_at_filter() {
        let (ex, p) = explain_fixture("batch-1");
        let pl = Pipeline::new(&ex, p.first());
        let state = |pt| pl.stage(pt).expect("stage").state;
        assert_eq!(state(Point::PreFilter), PointState::Passed);
        assert_eq!(state(Point::Filter), PointState::Failed);
        assert_eq!(state(Point::Score), PointState::NotReached);
        assert_eq!(state(Point::Bind), PointState::NotReached);
        assert_eq!(pl.decisive(), Step::at(Point::Filter));
    }

    #[test]
    fn schedulable_pod_opens_at_score_and_runs_to_postbind() {
        let (ex, p) = explain_fixture("web-2");
        let pl = Pipeline::new(&ex, p.first());
        assert_eq!(pl.stage(Point::PostFilter).expect("stage").state, PointState::Skipped);
        assert_eq!(pl.stage(Point::Bind).expect("stage").state, PointState::WouldRun);
        assert_eq!(pl.decisive(), Step::at(Point::Score));
        assert_eq!(pl.end(), Step::at(Point::PostBind));
    }

    #[test]
    fn gated_and_waiting_pods() {
        let (ex, p) = explain_fixture("gated-1");
        let pl = Pipeline::new(&ex, p.first());
        assert_eq!(pl.decisive(), Step::at(Point::PreEnqueue));
        let (ex, p) = explain_fixture("data/etl-1");
        let pl = Pipeline::new(&ex, p.first());
        assert!(pl.stages.iter().all(|s| s.state == PointState::NotReached));
    }

    #[test]
    fn stepping_walks_points_then_plugins() {
        let (ex, p) = explain_fixture("batch-1");
        let pl = Pipeline::new(&ex, p.first());
        let filter_plugins = pl.stage(Point::Filter).expect("filter").plugins.clone();
        assert_eq!(filter_plugins[0], "NodeUnschedulable");
        let s = pl.next(&Step::at(Point::Filter));
        assert_eq!(
            s,
            Step {
                point: Point::Filter,
                plugin: Some(0)
            }
        );
        assert_eq!(pl.plugin(&s), Some("NodeUnschedulable"));
        assert_eq!(pl.prev(&s), Step::at(Point::Filter));
        assert_eq!(pl.next_point(&s), Step::at(Point::PostFilter));
        assert_eq!(pl.prev_point(&s), Step::at(Point::Filter));
        assert_eq!(pl.prev_point(&Step::at(Point::Filter)), Step::at(Point::PreFilter));
        let first = Step::at(Point::PreEnqueue);
        assert_eq!(pl.prev(&first), first);
        let last = pl.steps().last().cloned().expect("steps");
        assert_eq!(pl.next(&last), last);
    }
}
