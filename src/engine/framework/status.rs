//! Status codes and statuses as upstream's framework/interface.go defines them.

use serde::Serialize;

/// Upstream's status codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Code {
    /// The plugin ran and passed.
    Success,
    /// An internal error.
    Error,
    /// Rejected; preemption may help.
    Unschedulable,
    /// Rejected; preemption cannot help.
    UnschedulableAndUnresolvable,
    /// Permit: wait.
    Wait,
    /// The plugin has nothing to do for this pod.
    Skip,
    /// Waiting on something outside the scheduler.
    Pending,
}

impl Code {
    /// The name as upstream prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Success => "Success",
            Code::Error => "Error",
            Code::Unschedulable => "Unschedulable",
            Code::UnschedulableAndUnresolvable => "UnschedulableAndUnresolvable",
            Code::Wait => "Wait",
            Code::Skip => "Skip",
            Code::Pending => "Pending",
        }
    }
}

/// A plugin's answer: a code, reasons, and the plugin that produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The code.
    pub code: Code,
    /// Reasons, in the plugin's order.
    pub reasons: Vec<String>,
    /// The plugin that set the status ("" when none did).
    pub plugin: &'static str,
}

impl Default for Status {
    fn default() -> Self {
        Status::success()
    }
}

impl Status {
    /// Success.
    pub fn success() -> Self {
        Status {
            code: Code::Success,
            reasons: Vec::new(),
            plugin: "",
        }
    }

    /// A status with one or more reasons.
    pub fn new(code: Code, reasons: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Status {
            code,
            reasons: reasons.into_iter().map(Into::into).collect(),
            plugin: "",
        }
    }

    /// Skip.
    pub fn skip() -> Self {
        Status::new(Code::Skip, Vec::<String>::new())
    }

    /// Unschedulable with one reason.
    pub fn unschedulable(reason: impl Into<String>) -> Self {
        Status::new(Code::Unschedulable, [reason.into()])
    }

    /// UnschedulableAndUnresolvable with one reason.
    pub fn unresolvable(reason: impl Into<String>) -> Self {
        Status::new(Code::UnschedulableAndUnresolvable, [reason.into()])
    }

    /// An internal error.
    pub fn error(reason: impl Into<String>) -> Self {
        Status::new(Code::Error, [reason.into()])
    }

    /// Sets the plugin.
    #[must_use]
    pub fn with_plugin(mut self, p: &'static str) -> Self {
        self.plugin = p;
        self
    }

    /// Success?
    pub fn is_success(&self) -> bool {
        self.code == Code::Success
    }

    /// Skip?
    pub fn is_skip(&self) -> bool {
        self.code == Code::Skip
    }

    /// Unschedulable or UnschedulableAndUnresolvable.
    pub fn is_rejected(&self) -> bool {
        matches!(self.code, Code::Unschedulable | Code::UnschedulableAndUnresolvable)
    }

    /// `Status.Message()`: the reasons joined with ", ".
    pub fn message(&self) -> String {
        self.reasons.join(", ")
    }
}
