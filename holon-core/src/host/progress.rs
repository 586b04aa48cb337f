//! The progress handle a handler takes from its context, and the host's sink behind it.

use std::sync::{Arc, Mutex};

/// Where a host sends the progress of one call (for MCP: `notifications/progress` with
/// the request's `progressToken`). Installed per call with
/// [`ToolContext::with_progress`](crate::ToolContext::with_progress).
pub trait ProgressSink: Send + Sync {
    /// One report: `progress` so far, out of `total` when the tool knows it, and a line
    /// for a person. A tool reports increasing `progress` values.
    fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>);
}

/// Reports a call's progress to the host. A no-op when the caller asked for none, so a
/// handler reports unconditionally (`progress: Progress` or `progress: &Progress`), and
/// checks [`Progress::is_enabled`] only to skip building an expensive message.
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<dyn ProgressSink>>);

impl Progress {
    /// A handle reporting to `sink`.
    pub fn new(sink: Arc<dyn ProgressSink>) -> Self {
        Self(Some(sink))
    }

    /// Reports `progress` out of `total` (when known), with an optional message.
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(sink) = &self.0 {
            sink.report(progress, total, message);
        }
    }

    /// Whether anybody listens.
    pub fn is_enabled(&self) -> bool {
        self.0.is_some()
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("enabled", &self.is_enabled())
            .finish()
    }
}

/// One report, as a [`ProgressLog`] keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressReport {
    /// The progress so far.
    pub progress: f64,
    /// The total, when the tool knew it.
    pub total: Option<f64>,
    /// The line for a person.
    pub message: Option<String>,
}

/// A sink that keeps every report, in order: for a host that shows a call's progress
/// after it, and for tests.
#[derive(Debug, Default)]
pub struct ProgressLog(Mutex<Vec<ProgressReport>>);

impl ProgressLog {
    /// The reports so far.
    pub fn reports(&self) -> Vec<ProgressReport> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl ProgressSink for ProgressLog {
    fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(ProgressReport {
                progress,
                total,
                message: message.map(str::to_string),
            });
    }
}
