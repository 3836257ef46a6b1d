//! Everything that can happen to the app: user intents (from the keymap, the mouse or the
//! command line) and data arriving from the runtime.

use super::whatif::EditTarget;
use super::{Attached, Explained, Loaded};
use crate::model::ObjectKey;
use crate::model::event::ClusterEvent;
use crate::model::write::Report;

/// One thing that happened.
pub enum Action {
    /// Move the selection up one row.
    Up,
    /// Move the selection down one row.
    Down,
    /// Up one page.
    PageUp,
    /// Down one page.
    PageDown,
    /// First row.
    Top,
    /// Last row.
    Bottom,
    /// Open the selected row (pod, node).
    Open,
    /// Go back one screen; at the pod list, quit.
    Back,
    /// Quit from anywhere.
    Quit,
    /// Toggle the help overlay.
    Help,
    /// Start a `:` command.
    CommandStart,
    /// Start typing a search (`/`).
    SearchStart,
    /// A typed character (search, command, form).
    Input(char),
    /// A character key no binding of the screen has (a hint to `?`).
    UnknownKey(char),
    /// Delete the last character.
    Backspace,
    /// Clear the current text field.
    ClearInput,
    /// Complete the command word of the `:` line (Tab).
    Complete,
    /// Enter in a text mode: run the command, keep the search, apply the form.
    Submit,
    /// Esc in a text mode or dialog.
    Cancel,
    /// Confirm the dialog.
    Confirm,
    /// Next step of the pipeline (one plugin).
    StepNext,
    /// Previous step.
    StepPrev,
    /// Next extension point.
    PointNext,
    /// Previous extension point.
    PointPrev,
    /// Run to the end: the last step the pod reached.
    RunToEnd,
    /// Back to the first step.
    Restart,
    /// Filter table: show all failing plugins per node.
    ToggleAllFailures,
    /// Cycle the sort order of the current table.
    CycleSort,
    /// Reverse the pod list order.
    ReverseSort,
    /// Pod list: sort by a column (k9s: Shift+letter); the same column again reverses.
    SortPods(super::pod_list::SortKey),
    /// Node list: sort by a column; the same column again reverses.
    SortNodes(super::node_list::NodeSortKey),
    /// Pod list: only pending pods, or every pod (Ctrl-z).
    TogglePendingOnly,
    /// Pod list: only pods with the selected pod's reason (`r`), or every reason again.
    SameReason,
    /// Wrap the reason, verdict and cluster lines whole, or keep them to two or three lines.
    ToggleWhole,
    /// Score matrix: raw → normalized → weighted.
    CycleScoreMode,
    /// Show or hide the diff with the trace before the last what-if edit.
    ToggleDiff,
    /// Pod list: next namespace.
    NextNamespace,
    /// Pod list: all namespaces.
    AllNamespaces,
    /// Explain every pending pod again on the cluster as it is now.
    Rerun,
    /// Live: follow the cluster, or freeze the view on the state explained.
    ToggleFollow,
    /// Bind (asks for confirmation).
    RequestBind,
    /// Preempt (asks for confirmation).
    RequestPreempt,
    /// Edit the pod or node inline.
    EditInline,
    /// Edit the pod or node as YAML in $EDITOR.
    EditExternal,
    /// Node view: cordon or uncordon the node (what-if).
    ToggleCordon,
    /// Next field of the form.
    FieldNext,
    /// Previous field of the form.
    FieldPrev,
    /// Mouse: scroll up.
    ScrollUp,
    /// Mouse: scroll down.
    ScrollDown,
    /// Mouse: click on a table row (index into the rows as displayed).
    ClickRow(usize),
    /// Mouse: click on a pipeline point (index into the pipeline's points).
    ClickPoint(usize),
    /// Time passes (Unix seconds).
    Tick {
        /// Now.
        now: i64,
    },
    /// The cluster was read.
    Loaded(Box<Result<Loaded, String>>),
    /// A pod was explained.
    Explained {
        /// Cluster generation it was computed on.
        generation: u64,
        /// The pod.
        pod: ObjectKey,
        /// The explanation or the engine's error.
        result: Explained,
    },
    /// `:export FILE` was written (or why not).
    Exported {
        /// The file.
        path: String,
        /// Ok, or the message.
        result: Result<(), String>,
    },
    /// A pod's fixes were checked.
    FixesVerified {
        /// Cluster generation it was computed on.
        generation: u64,
        /// The pod.
        pod: ObjectKey,
        /// The fixes with the engine's answers.
        result: Vec<super::fix::Verified>,
    },
    /// Open the fixes of the focused pod (`F`, `:fix`).
    OpenFixes,
    /// A gang's pass was computed.
    GroupComputed {
        /// Cluster generation it was computed on.
        generation: u64,
        /// The member it was asked for.
        pod: ObjectKey,
        /// The pass (None: the pod is in no gang), or the engine's error.
        result: super::GroupResult,
    },
    /// Open the gang of the focused pod.
    OpenGang,
    /// The focused pod's FailedScheduling events.
    OpenEvents,
    /// Copy what is selected to the clipboard: a pod's or a node's name, the pod view's
    /// verdict, an event's message.
    Copy,
    /// The selected pod's or node's YAML.
    ShowYaml,
    /// The selected pod or node described as `kubectl describe` does.
    Describe,
    /// The kubeconfig's contexts (live, at start).
    Contexts(super::Contexts),
    /// The terminal could not be given the copied text (why).
    CopyFailed(String),
    /// `:fit FILE`'s pods were made (or the manifests could not be read).
    FitMade {
        /// Cluster generation it was asked at.
        generation: u64,
        /// The manifests, as typed.
        path: String,
        /// The cluster with the what-if pods, or why there is none.
        result: Result<Box<crate::engine::fit::WhatIf>, String>,
    },
    /// A `:deschedule` dry run finished.
    Descheduled {
        /// Cluster generation it ran on.
        generation: u64,
        /// The policy file, as typed.
        path: String,
        /// The report, or why there is none (the policy's error, naming file and field).
        result: Result<Box<crate::explain::deschedule::DryRun>, String>,
    },
    /// The live source reports progress while it lists the cluster (one kind's count).
    LoadProgress(ListProgress),
    /// The live cluster was listed (or could not be).
    Attached(Box<Result<Attached, String>>),
    /// A watch event from the live cluster.
    Cluster(Box<ClusterEvent>),
    /// The watch stopped for good (the view no longer follows the cluster).
    WatchEnded(String),
    /// A write plan was sent: the report, or the refusals of the permission check (nothing
    /// was sent).
    Written(Box<Result<Report, String>>),
    /// A permission check (before an action is offered) was answered.
    AccessChecked {
        /// [`access_key`](super::access_key) of the request.
        key: String,
        /// The answer.
        result: super::Access,
    },
    /// `:w FILE` finished: the file written, or why nothing was.
    Saved {
        /// The file.
        path: String,
        /// In-memory changes included (`App::changes` count when it was asked).
        changes: usize,
        /// Ok, or the error.
        result: Result<(), String>,
    },
    /// Something broke that the app cannot recover from (an engine panic): quit with it.
    Fatal(String),
    /// The editor closed (the edited text, or why there is none).
    Edited {
        /// What was edited.
        target: EditTarget,
        /// The text.
        result: Result<String, String>,
    },
}

/// How far the listing of one kind went (the loading screen's line for it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListProgress {
    /// The kind's resource ("pods").
    pub kind: String,
    /// Objects read so far.
    pub items: usize,
    /// Pages read so far.
    pub pages: usize,
    /// The last page arrived.
    pub done: bool,
}
