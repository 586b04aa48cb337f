//! OTLP export of the spans of calls and MCP requests (feature `otlp`): when the
//! operator names an endpoint, the holon spans go to it over OTLP/HTTP (protobuf),
//! batched on the SDK's own thread, and the last batch is sent when the command
//! ends. Without an endpoint nothing is set up, and a span costs what a disabled
//! `tracing` span costs.

use std::time::Duration;

use holon_gates::net::TlsTrust;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, SpanExporter, WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::{Layer as _, filter};

use super::otlp_endpoint::Endpoint;

/// How long one export may take (the OpenTelemetry default).
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// The exporter while a command runs; dropping it sends what is left.
pub(super) struct Telemetry {
    provider: SdkTracerProvider,
    endpoint: String,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Err(error) = self.provider.shutdown() {
            eprintln!(
                "holon-tools: the last spans did not reach the OTLP endpoint {}: {error}",
                self.endpoint
            );
        }
    }
}

/// Exports the holon spans to `endpoint` from now until the result is dropped;
/// `trust` checks an https collector.
pub(super) fn start(endpoint: Endpoint, trust: &TlsTrust) -> Result<Telemetry, String> {
    let url = endpoint.url().to_string();
    let client = reqwest::blocking::Client::builder()
        .use_preconfigured_tls(trust.client_config())
        .timeout(EXPORT_TIMEOUT)
        .build()
        .map_err(|error| format!("cannot build the OTLP HTTP client: {error}"))?;
    let exporter = SpanExporter::builder()
        .with_http()
        .with_http_client(client)
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(url.clone())
        .with_timeout(EXPORT_TIMEOUT)
        .build()
        .map_err(|error| format!("{}: {error}", endpoint.named()))?;
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource())
        .build();
    let tracer = provider.tracer("holon-tools");
    // Only the spans of holon crates: not those of the libraries under them (the
    // exporter's own HTTP client among them).
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_filter(filter::filter_fn(|metadata| {
            metadata.target().starts_with("holon")
        }));
    let subscriber = tracing_subscriber::registry()
        .with(layer)
        .with(super::warnings::layer());
    tracing::subscriber::set_global_default(subscriber)
        .map_err(|error| format!("cannot install the span exporter: {error}"))?;
    Ok(Telemetry {
        provider,
        endpoint: url,
    })
}

/// `service.name` holon-tools, unless `OTEL_SERVICE_NAME` names it (the SDK reads
/// that and `OTEL_RESOURCE_ATTRIBUTES`), and `service.version`.
fn resource() -> Resource {
    let builder = Resource::builder().with_attribute(opentelemetry::KeyValue::new(
        "service.version",
        env!("CARGO_PKG_VERSION"),
    ));
    let named = std::env::var_os("OTEL_SERVICE_NAME").is_some_and(|name| !name.is_empty());
    if named {
        builder.build()
    } else {
        builder.with_service_name("holon-tools").build()
    }
}
