//! The spans of `holon-tools call` and of `tools/call` through `holon-tools serve`
//! reach an OTLP/HTTP endpoint: a receiver on loopback takes each `POST /v1/traces`
//! and decodes its body with the official protobuf messages
//! (`opentelemetry-proto`'s `ExportTraceServiceRequest`).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use prost::Message as _;
use serde_json::json;

use crate::cli_support::holon_command;
use crate::serve::{
    TOKEN, bearer, handshake, lines, post_in_session, post_initialize, response, send, session_id,
    spawn_stdio, start_http, wait,
};

/// The trace and parent span a client names in `_meta`.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN_ID: &str = "00f067aa0ba902b7";

/// One POST the receiver took: its path, content type and decoded body.
struct Export {
    path: String,
    content_type: String,
    request: ExportTraceServiceRequest,
}

/// An OTLP/HTTP receiver on loopback: every POST it is sent, decoded.
struct Receiver {
    url: String,
    exports: Arc<Mutex<Vec<Export>>>,
}

impl Receiver {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let exports = Arc::new(Mutex::new(Vec::new()));
        let kept = exports.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let kept = kept.clone();
                std::thread::spawn(move || receive(stream, &kept));
            }
        });
        Self { url, exports }
    }

    /// Every span received, with the service name of its resource.
    fn spans(&self) -> Vec<Span> {
        let exports = self.exports.lock().unwrap();
        let mut spans = Vec::new();
        for export in exports.iter() {
            assert_eq!(export.path, "/v1/traces");
            assert_eq!(export.content_type, "application/x-protobuf");
            for resource_spans in &export.request.resource_spans {
                let service = resource_spans
                    .resource
                    .as_ref()
                    .and_then(|resource| string(&resource.attributes, "service.name"));
                for scope in &resource_spans.scope_spans {
                    for span in &scope.spans {
                        spans.push(Span {
                            service: service.clone(),
                            name: span.name.clone(),
                            kind: span.kind,
                            trace_id: hex::encode(&span.trace_id),
                            span_id: hex::encode(&span.span_id),
                            parent_span_id: hex::encode(&span.parent_span_id),
                            attributes: span
                                .attributes
                                .iter()
                                .filter_map(|pair| Some((pair.key.clone(), text(pair)?)))
                                .collect(),
                            status: span.status.as_ref().map_or(0, |status| status.code),
                        });
                    }
                }
            }
        }
        spans
    }
}

/// Reads one HTTP/1.1 request (its body by Content-Length), keeps it, answers 200.
fn receive(stream: TcpStream, exports: &Mutex<Vec<Export>>) {
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let mut headers = HashMap::new();
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).unwrap();
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap();
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
        }
        assert_eq!(method, "POST", "an exporter only posts");
        let length: usize = headers["content-length"].parse().unwrap();
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let request = ExportTraceServiceRequest::decode(body.as_slice())
            .expect("the body is an ExportTraceServiceRequest");
        exports.lock().unwrap().push(Export {
            path: path.to_string(),
            content_type: headers.get("content-type").cloned().unwrap_or_default(),
            request,
        });
        let reply =
            "HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n";
        let stream = reader.get_mut();
        if stream.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

/// A received span, its ids as hex.
#[derive(Debug, Clone)]
struct Span {
    service: Option<String>,
    name: String,
    kind: i32,
    trace_id: String,
    span_id: String,
    parent_span_id: String,
    attributes: HashMap<String, String>,
    status: i32,
}

impl Span {
    fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

/// A string (or integer) attribute's value, as text.
fn text(pair: &KeyValue) -> Option<String> {
    match pair.value.as_ref()?.value.as_ref()? {
        AnyValue::StringValue(text) => Some(text.clone()),
        AnyValue::IntValue(number) => Some(number.to_string()),
        AnyValue::BoolValue(flag) => Some(flag.to_string()),
        _ => None,
    }
}

fn string(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|pair| pair.key == key)
        .and_then(text)
}

/// The one span named `name`.
fn only<'a>(spans: &'a [Span], name: &str) -> &'a Span {
    let found: Vec<_> = spans.iter().filter(|span| span.name == name).collect();
    assert_eq!(found.len(), 1, "one span `{name}` in {spans:#?}");
    found[0]
}

#[test]
fn a_one_shot_call_exports_its_execute_tool_span_before_it_exits() {
    let receiver = Receiver::start();
    let dir = tempfile::tempdir().unwrap();
    let output = holon_command(dir.path())
        .env_remove("OTEL_SERVICE_NAME")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .args(["--otlp-endpoint", &receiver.url])
        .args(["call", "Sleep", r#"{"duration_ms": 1}"#])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let spans = receiver.spans();
    let call = only(&spans, "execute_tool Sleep");
    assert_eq!(call.service.as_deref(), Some("holon-tools"));
    assert_eq!(call.kind, SpanKind::Internal as i32);
    assert_eq!(
        call.attribute("gen_ai.operation.name"),
        Some("execute_tool")
    );
    assert_eq!(call.attribute("gen_ai.tool.name"), Some("Sleep"));
    assert_eq!(call.attribute("error.type"), None);
    assert!(call.parent_span_id.is_empty(), "a root span: {call:?}");
    assert_eq!(call.trace_id.len(), 32);
}

#[test]
fn the_service_name_and_the_endpoint_come_from_the_standard_variables() {
    let receiver = Receiver::start();
    let dir = tempfile::tempdir().unwrap();
    let output = holon_command(dir.path())
        .env("OTEL_SERVICE_NAME", "agent-host")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &receiver.url)
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .args(["call", "Sleep", r#"{"duration_ms": "x"}"#])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "the call failed");

    let spans = receiver.spans();
    let call = only(&spans, "execute_tool Sleep");
    assert_eq!(call.service.as_deref(), Some("agent-host"));
    assert_eq!(call.attribute("error.type"), Some("invalid_tool_input"));
    assert_eq!(call.status, StatusCode::Error as i32);
}

#[test]
fn a_bad_endpoint_is_a_clear_error_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon_command(dir.path())
        .args(["--otlp-endpoint", "localhost:4318"])
        .args(["call", "Sleep", r#"{"duration_ms": 1}"#])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--otlp-endpoint `localhost:4318`") && stderr.contains("http://"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn serve_exports_a_server_span_per_request_parented_by_the_traceparent_of_its_meta() {
    let receiver = Receiver::start();
    let dir = tempfile::tempdir().unwrap();
    let mut command = holon_command(dir.path());
    command
        .env_remove("OTEL_SERVICE_NAME")
        .args(["--otlp-endpoint", &receiver.url])
        .args(["serve", "--families", "core_agent"]);
    let mut child = spawn_stdio(command);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    handshake(&mut stdin, &stdout);

    let traceparent = format!("00-{TRACE_ID}-{CLIENT_SPAN_ID}-01");
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "Sleep", "arguments": {"duration_ms": 1},
            "_meta": {"traceparent": traceparent},
        }}),
    );
    assert_eq!(response(&stdout, 2)["result"]["isError"], false);
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": "call-7", "method": "tools/call", "params": {
            "name": "Sleep", "arguments": {"duration_mss": 1},
        }}),
    );
    assert_eq!(response(&stdout, "call-7")["result"]["isError"], true);
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
    );
    assert!(response(&stdout, 4)["result"]["tools"].is_array());
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}),
    );
    assert_eq!(response(&stdout, 5)["result"], json!({}));
    drop(stdin);
    assert_eq!(
        wait(&mut child),
        Some(0),
        "the server stops when stdin closes"
    );

    let spans = receiver.spans();
    let servers: Vec<_> = spans
        .iter()
        .filter(|span| span.name == "tools/call Sleep")
        .collect();
    assert_eq!(servers.len(), 2, "{spans:#?}");
    let tools: Vec<_> = spans
        .iter()
        .filter(|span| span.name == "execute_tool Sleep")
        .collect();
    assert_eq!(tools.len(), 2, "{spans:#?}");

    // The call whose `_meta` carried a traceparent: in the client's trace, under
    // the client's span, and the tool's span under it.
    let traced = servers
        .iter()
        .find(|span| span.attribute("jsonrpc.request.id") == Some("2"))
        .unwrap();
    assert_eq!(traced.service.as_deref(), Some("holon-tools"));
    assert_eq!(traced.kind, SpanKind::Server as i32);
    assert_eq!(traced.trace_id, TRACE_ID);
    assert_eq!(traced.parent_span_id, CLIENT_SPAN_ID);
    assert_eq!(traced.attribute("mcp.method.name"), Some("tools/call"));
    assert_eq!(traced.attribute("gen_ai.tool.name"), Some("Sleep"));
    assert_eq!(
        traced.attribute("gen_ai.operation.name"),
        Some("execute_tool")
    );
    assert_eq!(traced.attribute("network.transport"), Some("pipe"));
    assert_eq!(traced.attribute("mcp.protocol.version"), Some("2025-06-18"));
    assert_eq!(traced.attribute("error.type"), None);
    let tool = tools
        .iter()
        .find(|span| span.parent_span_id == traced.span_id)
        .expect("the tool's span is the child of the request's");
    assert_eq!(tool.trace_id, TRACE_ID);
    assert_eq!(tool.kind, SpanKind::Internal as i32);
    assert_eq!(tool.attribute("gen_ai.tool.name"), Some("Sleep"));

    // The call without one: a trace of its own; a tool error on both spans.
    let failed = servers
        .iter()
        .find(|span| span.attribute("jsonrpc.request.id") == Some("call-7"))
        .unwrap();
    assert_ne!(failed.trace_id, TRACE_ID);
    assert!(failed.parent_span_id.is_empty(), "{failed:?}");
    assert_eq!(failed.attribute("error.type"), Some("tool_error"));
    assert_eq!(failed.status, StatusCode::Error as i32);
    let tool = tools
        .iter()
        .find(|span| span.parent_span_id == failed.span_id)
        .expect("the tool's span is the child of the request's");
    assert_eq!(tool.trace_id, failed.trace_id);
    assert_eq!(tool.attribute("error.type"), Some("unknown_field"));

    // Every method is a span, named by the method when it has no tool.
    let listed = only(&spans, "tools/list");
    assert_eq!(listed.attribute("mcp.method.name"), Some("tools/list"));
    assert_eq!(listed.attribute("jsonrpc.request.id"), Some("4"));
    assert_eq!(listed.kind, SpanKind::Server as i32);
    // The handshake and a ping too.
    let initialized = only(&spans, "initialize");
    assert_eq!(initialized.attribute("mcp.method.name"), Some("initialize"));
    assert_eq!(initialized.attribute("jsonrpc.request.id"), Some("1"));
    assert_eq!(
        initialized.attribute("mcp.protocol.version"),
        Some("2025-06-18")
    );
    assert_eq!(initialized.kind, SpanKind::Server as i32);
    let pinged = only(&spans, "ping");
    assert_eq!(pinged.attribute("mcp.method.name"), Some("ping"));
    assert_eq!(pinged.attribute("jsonrpc.request.id"), Some("5"));
    assert_eq!(pinged.kind, SpanKind::Server as i32);
}

#[test]
fn serve_over_http_names_the_session_and_the_tcp_transport_and_exports_on_sigterm() {
    let receiver = Receiver::start();
    let dir = tempfile::tempdir().unwrap();
    let mut command = holon_command(dir.path());
    command
        .env("HOLON_MCP_TOKEN", TOKEN)
        .env_remove("OTEL_SERVICE_NAME")
        .args(["--otlp-endpoint", &receiver.url])
        .args(["serve", "--http", "127.0.0.1:0"]);
    let (mut server, authority, _) = start_http(command);
    let session = session_id(&post_initialize(&authority, &[bearer(TOKEN)]));

    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "Sleep", "arguments": {"duration_ms": 1},
        "_meta": {"traceparent": format!("00-{TRACE_ID}-{CLIENT_SPAN_ID}-01")},
    }});
    let reply = post_in_session(&authority, TOKEN, &session, &call);
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    // SIGTERM: the server stops as an operator stops it, and sends its last spans.
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status();
    assert_eq!(wait(&mut server.0), Some(0));

    let spans = receiver.spans();
    let call = only(&spans, "tools/call Sleep");
    assert_eq!(call.kind, SpanKind::Server as i32);
    assert_eq!(call.trace_id, TRACE_ID);
    assert_eq!(call.parent_span_id, CLIENT_SPAN_ID);
    assert_eq!(call.attribute("network.transport"), Some("tcp"));
    assert_eq!(call.attribute("network.protocol.name"), Some("http"));
    assert_eq!(call.attribute("mcp.session.id"), Some(session.as_str()));
    assert_eq!(call.attribute("jsonrpc.request.id"), Some("2"));
    let tool = only(&spans, "execute_tool Sleep");
    assert_eq!(tool.parent_span_id, call.span_id);
    assert_eq!(tool.trace_id, TRACE_ID);
}
