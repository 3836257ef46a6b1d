//! Status codes and statuses as upstream's framework/interface.go defines them.

use std::borrow::Cow;

use serde::Serialize;
use smallvec::SmallVec;

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

/// One reason of a status: most are fixed texts, borrowed rather than allocated for every node
/// a plugin rejects; the rest are formatted.
pub type Reason = Cow<'static, str>;

/// A status's reasons in order, one held inline (a rejection almost always has one reason).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reasons(SmallVec<[Reason; 1]>);

impl Reasons {
    /// No reason.
    pub fn new() -> Self {
        Reasons(SmallVec::new())
    }

    /// Appends a reason.
    pub fn push(&mut self, r: impl Into<Reason>) {
        self.0.push(r.into());
    }

    /// The reasons as owned strings.
    pub fn to_strings(&self) -> Vec<String> {
        self.0.iter().map(|r| r.to_string()).collect()
    }
}

impl std::ops::Deref for Reasons {
    type Target = [Reason];
    fn deref(&self) -> &[Reason] {
        &self.0
    }
}

impl<R: Into<Reason>> FromIterator<R> for Reasons {
    fn from_iter<I: IntoIterator<Item = R>>(iter: I) -> Self {
        Reasons(iter.into_iter().map(Into::into).collect())
    }
}

impl<R: Into<Reason>> Extend<R> for Reasons {
    fn extend<I: IntoIterator<Item = R>>(&mut self, iter: I) {
        self.0.extend(iter.into_iter().map(Into::into));
    }
}

impl IntoIterator for Reasons {
    type Item = Reason;
    type IntoIter = smallvec::IntoIter<[Reason; 1]>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Reasons {
    type Item = &'a Reason;
    type IntoIter = std::slice::Iter<'a, Reason>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<S: AsRef<str>> PartialEq<Vec<S>> for Reasons {
    fn eq(&self, other: &Vec<S>) -> bool {
        self.0.len() == other.len() && self.0.iter().zip(other).all(|(a, b)| a.as_ref() == b.as_ref())
    }
}

impl<S: AsRef<str>, const N: usize> PartialEq<[S; N]> for Reasons {
    fn eq(&self, other: &[S; N]) -> bool {
        self.0.len() == N && self.0.iter().zip(other).all(|(a, b)| a.as_ref() == b.as_ref())
    }
}

impl Serialize for Reasons {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|r| r.as_ref()))
    }
}

/// A plugin's answer: a code, reasons, and the plugin that produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The code.
    pub code: Code,
    /// Reasons, in the plugin's order.
    pub reasons: Reasons,
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
            reasons: Reasons::new(),
            plugin: "",
        }
    }

    /// A status with one or more reasons.
    pub fn new(code: Code, reasons: impl IntoIterator<Item = impl Into<Reason>>) -> Self {
        Status {
            code,
            reasons: reasons.into_iter().collect(),
            plugin: "",
        }
    }

    /// Skip.
    pub fn skip() -> Self {
        Status::new(Code::Skip, Reasons::new())
    }

    /// Unschedulable with one reason.
    pub fn unschedulable(reason: impl Into<Reason>) -> Self {
        Status::new(Code::Unschedulable, [reason.into()])
    }

    /// UnschedulableAndUnresolvable with one reason.
    pub fn unresolvable(reason: impl Into<Reason>) -> Self {
        Status::new(Code::UnschedulableAndUnresolvable, [reason.into()])
    }

    /// An internal error.
    pub fn error(reason: impl Into<Reason>) -> Self {
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
