//! The warnings holon's libraries report through `tracing` (an MCP listener that
//! cannot accept, an OAuth key set not fetched at start), printed on stderr one line
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
        let mut line = Line(String::new());
        event.record(&mut line);
        eprintln!("{}", line.0);
    }
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
