//! A built profile (`frameworkImpl` of framework/runtime/framework.go): the plugins of each
//! extension point in order, with the score weights. `engine::profile` builds it from a
//! configuration and the registry; the framework only runs it.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::plugin::{
    BindPlugin, FilterPlugin, PermitPlugin, PlacementGeneratePlugin, PlacementScorePlugin, PostBindPlugin,
    PostFilterPlugin, PreBindPlugin, PreEnqueuePlugin, PreFilterPlugin, PreScorePlugin, QueueSortPlugin, ReservePlugin,
    ScorePlugin,
};
use crate::engine::release::{Features, Release};

/// A built profile: the plugins of each extension point, in order.
#[derive(Clone)]
pub struct Framework {
    /// schedulerName served.
    pub name: String,
    /// The release and gates reproduced (the value the snapshot was built with).
    pub features: Arc<Features>,
    /// PreEnqueue plugins.
    pub pre_enqueue: Vec<Arc<dyn PreEnqueuePlugin>>,
    /// QueueSort plugin names.
    pub queue_sort: Vec<&'static str>,
    /// PreFilter plugins.
    pub pre_filter: Vec<Arc<dyn PreFilterPlugin>>,
    /// Filter plugins.
    pub filter: Vec<Arc<dyn FilterPlugin>>,
    /// PostFilter plugins.
    pub post_filter: Vec<Arc<dyn PostFilterPlugin>>,
    /// PreScore plugins.
    pub pre_score: Vec<Arc<dyn PreScorePlugin>>,
    /// Score plugins with weights.
    pub score: Vec<(Arc<dyn ScorePlugin>, i64)>,
    /// Names of the plugins at Reserve, Permit, PreBind, Bind, PostBind.
    pub later: BTreeMap<&'static str, Vec<&'static str>>,
    /// The QueueSort implementation (None: PrioritySort's order).
    pub queue_sorter: Option<Arc<dyn QueueSortPlugin>>,
    /// Reserve plugins.
    pub reserve: Vec<Arc<dyn ReservePlugin>>,
    /// Permit plugins.
    pub permit: Vec<Arc<dyn PermitPlugin>>,
    /// PreBind plugins.
    pub pre_bind: Vec<Arc<dyn PreBindPlugin>>,
    /// Bind plugins.
    pub bind: Vec<Arc<dyn BindPlugin>>,
    /// PostBind plugins.
    pub post_bind: Vec<Arc<dyn PostBindPlugin>>,
    /// PlacementGenerate plugins (at most one; 1.36's pod-group cycle).
    pub placement_generate: Vec<Arc<dyn PlacementGeneratePlugin>>,
    /// PlacementScore plugins with weights.
    pub placement_score: Vec<(Arc<dyn PlacementScorePlugin>, i64)>,
    /// Plugins of the profile that the engine does not reproduce yet.
    pub not_implemented: Vec<String>,
    /// What the configuration has that the engine does not run (its extenders), said in every
    /// explanation's notes.
    pub config_notes: Vec<String>,
    /// percentageOfNodesToScore: the profile's and the configuration's.
    pub percentage: super::sampling::Percentage,
}

/// The extension points, in cycle order.
pub const POINTS: &[&str] = &[
    "PreEnqueue",
    "QueueSort",
    "PreFilter",
    "Filter",
    "PostFilter",
    "PreScore",
    "Score",
    "Reserve",
    "Permit",
    "PreBind",
    "Bind",
    "PostBind",
];

impl Framework {
    /// Names of the plugins at one extension point, in order.
    pub fn plugins_at(&self, point: &str) -> Vec<&'static str> {
        match point {
            "PreEnqueue" => self.pre_enqueue.iter().map(|p| p.name()).collect(),
            "QueueSort" => self.queue_sort.clone(),
            "PreFilter" => self.pre_filter.iter().map(|p| p.name()).collect(),
            "Filter" => self.filter.iter().map(|p| p.name()).collect(),
            "PostFilter" => self.post_filter.iter().map(|p| p.name()).collect(),
            "PreScore" => self.pre_score.iter().map(|p| p.name()).collect(),
            "Score" => self.score.iter().map(|p| p.0.name()).collect(),
            other => self.later.get(other).cloned().unwrap_or_default(),
        }
    }

    /// The release reproduced.
    pub fn release(&self) -> Release {
        self.features.release()
    }
}
