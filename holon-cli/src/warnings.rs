//! The warnings holon's libraries report through `tracing` (an MCP listener that
//! cannot accept, an OAuth key set not fetched at start, a call the runtime could not
//! record), printed on stderr one line
//! each, as the CLI printed them before the libraries stopped printing. Only events
//! of holon crates at WARN or above: no span is recorded for this, so without an OTLP
//! endpoint a span still costs what a disabled one costs.

use std::fmt::Write as _;

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

/// The layer that prints them.
pub(super) fn layer<S>() -> impl Layer<S>
where
    S: Subscriber + for<'span> LookupSpan<'span>,
{
    StderrWarnings.with_filter(filter_fn(|metadata| {
        metadata.is_event()
            && *metadata.level() <= Level::WARN
            && metadata.target().starts_with("holon")
    }))
}

/// Installs the layer alone, for a command that exports no spans. A subscriber
/// already installed (by a host embedding the CLI) is kept.
pub(super) fn install() {
    let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer()));
}

struct StderrWarnings;

impl<S: Subscriber> Layer<S> for StderrWarnings {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        eprintln!("{}", line(event));
    }
}

/// The line `event` is printed as.
fn line(event: &Event<'_>) -> String {
    // The runtime's and the gates' problems (a record not written, a log not removed, a
    // sandbox the machine cannot give) read as this program's own, as every other line
    // it prints about itself.
    let target = event.metadata().target();
    let prefix = if target.starts_with("holon_runtime") || target.starts_with("holon_gates") {
        "holon-tools: "
    } else {
        ""
    };
    let mut line = Line(prefix.to_string());
    event.record(&mut line);
    line.0
}

/// An event's message, then its other fields as `name=value`.
struct Line(String);

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// Keeps the lines instead of printing them.
    struct Lines(Arc<Mutex<Vec<String>>>);

    impl<S: Subscriber> Layer<S> for Lines {
        fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
            self.0.lock().unwrap().push(line(event));
        }
    }

    #[test]
    fn the_runtime_s_warnings_carry_the_program_s_name_and_others_do_not() {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let subscriber = tracing_subscriber::registry().with(Lines(Arc::clone(&lines)));
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(
                target: "holon_runtime::tasks::process",
                log = %"/state/tasks/t-1/output.log",
                error = %"disk full",
                "cannot finish a task's log"
            );
            tracing::warn!(target: "holon_mcp::http::limits", "listener: cannot accept a connection");
        });
        assert_eq!(
            *lines.lock().unwrap(),
            [
                "holon-tools: cannot finish a task's log log=/state/tasks/t-1/output.log error=disk full",
                "listener: cannot accept a connection",
            ]
        );
    }
}
