//! The figures of one size of the fixture: the first N of its modules.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::generate::SCALE_CRATE_PREFIX;
use crate::queries;
use holon_core::{FamilyPolicy, ToolContext};
use holon_discovery::search::{SearchIndex, SearchScope};
use holon_discovery::{DeferOptions, Discovery, export_deferred};
use holon_export::{ExportOptions, Provider, export};
use holon_mcp::rmcp::ServiceExt;
use holon_mcp::{McpServer, ServerInfo};
use peak_alloc::PeakAlloc;
use serde::Serialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Rounds of the query set, for the latency percentiles.
const SEARCH_ROUNDS: usize = 5;
/// Runs of each build and serialization, for the median time.
const REPEATS: usize = 5;
/// `tools/list` requests after the first, for the median.
const LIST_REQUESTS: usize = 5;

/// A phase that builds something: its time and what it did to the heap.
pub struct Build {
    pub seconds: f64,
    /// Heap bytes it left live.
    pub kept: usize,
    /// Most heap bytes live above the start while it ran.
    pub peak: usize,
}

/// Search latency over the query set, in seconds.
pub struct Latency {
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

/// Time to produce a JSON text and its size.
pub struct Serialized {
    pub seconds: f64,
    pub bytes: usize,
}

/// One provider's exports.
pub struct Exports {
    pub provider: Provider,
    pub full: Serialized,
    /// The deferred export, or why there is none.
    pub deferred: Result<Serialized, String>,
}

/// `tools/list` round trips over MCP.
pub struct Listing {
    /// The first request, which builds the server's list.
    pub first: f64,
    /// The median of the requests after it.
    pub median: f64,
    /// The response, in bytes.
    pub bytes: usize,
}

/// Everything measured at one size.
pub struct Figures {
    /// Tools of the registry (the generated ones plus the two meta-tools).
    pub tools: usize,
    pub registry: Build,
    pub index: Build,
    pub search: Latency,
    /// A plain `serde_json` text of name, description and input schema of each tool.
    pub plain: Serialized,
    pub exports: Vec<Exports>,
    pub list_all: Listing,
    pub list_meta: Listing,
}

/// Whether `module` is in one of the first `crates` generated crates.
fn in_first(module: &str, crates: usize) -> bool {
    module
        .split("::")
        .next()
        .and_then(|krate| krate.strip_prefix(SCALE_CRATE_PREFIX))
        .and_then(|n| n.parse::<usize>().ok())
        .is_some_and(|n| n < crates)
}

/// Runs `build` [`REPEATS`] times, each after the previous result is dropped: the
/// median time, and the heap figures of the last run, whose result it returns.
fn built<T>(heap: &PeakAlloc, build: impl Fn() -> T) -> (T, Build) {
    let mut times = Vec::with_capacity(REPEATS);
    let mut last = None;
    for _ in 0..REPEATS {
        drop(last.take());
        heap.reset_peak_usage();
        let before = heap.current_usage();
        let start = Instant::now();
        let value = build();
        times.push(start.elapsed());
        let kept = heap.current_usage().saturating_sub(before);
        let peak = heap.peak_usage().saturating_sub(before);
        last = Some((value, kept, peak));
    }
    let (value, kept, peak) = last.expect("REPEATS is not zero");
    let figures = Build {
        seconds: median(times),
        kept,
        peak,
    };
    (value, figures)
}

/// Runs `text` [`REPEATS`] times: the median time, and the size of the text.
fn serialized(text: impl Fn() -> String) -> Serialized {
    let mut times = Vec::with_capacity(REPEATS);
    let mut bytes = 0;
    for _ in 0..REPEATS {
        let start = Instant::now();
        let text = text();
        times.push(start.elapsed());
        bytes = text.len();
    }
    Serialized {
        seconds: median(times),
        bytes,
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize].as_secs_f64()
}

fn median(mut times: Vec<Duration>) -> f64 {
    times.sort();
    percentile(&times, 0.5)
}

/// The plainest listing of the tools: serialized straight to text.
#[derive(Serialize)]
struct PlainList<'a> {
    tools: Vec<PlainTool<'a>>,
}

/// A tool as the plainest listing would write it.
#[derive(Serialize)]
struct PlainTool<'a> {
    name: &'a str,
    description: &'a str,
    #[serde(rename = "inputSchema")]
    input_schema: &'a Value,
}

/// Builds the registry and the search index of the first `crates` generated crates
/// once and drops them, so that what the first build of a program does once (the
/// inventory's first walk, caches filled on first use) is not counted against the
/// size measured first.
pub fn warm_up(crates: usize) {
    let registry = holon_discovery::registry(|meta| in_first(meta.defined_at.module, crates))
        .expect("a valid registry");
    drop(SearchIndex::of(&registry));
}

/// Every figure for the tools of the first `crates` generated crates.
pub async fn measure(heap: &PeakAlloc, crates: usize) -> Figures {
    let (registry, registry_build) = built(heap, || {
        holon_discovery::registry(|meta| in_first(meta.defined_at.module, crates))
            .expect("a valid registry")
    });
    let registry = Arc::new(registry);
    let generated = registry
        .definitions()
        .filter(|definition| in_first(definition.defined_at.module, crates))
        .map(|definition| definition.defined_at.module.split("::").next())
        .collect::<std::collections::BTreeSet<_>>();
    assert_eq!(
        generated.len(),
        crates,
        "each of the first {crates} generated crates contributes tools: is every one linked?"
    );

    let (index, index_build) = built(heap, || SearchIndex::build(&registry));
    let search = search_latency(&index);

    let plain = serialized(|| {
        let tools: Vec<PlainTool<'_>> = registry
            .definitions()
            .map(|definition| PlainTool {
                name: &definition.spec.name,
                description: &definition.spec.description,
                input_schema: &definition.spec.input_schema,
            })
            .collect();
        serde_json::to_string(&PlainList { tools }).expect("the definitions serialize")
    });

    let exports = Provider::ALL
        .into_iter()
        .map(|provider| Exports {
            provider,
            full: serialized(|| {
                export(&registry, provider, ExportOptions::default())
                    .payload()
                    .to_string()
            }),
            deferred: export_deferred(
                &registry,
                provider,
                ExportOptions::default(),
                &DeferOptions::new(),
            )
            .map(|_| {
                serialized(|| {
                    export_deferred(
                        &registry,
                        provider,
                        ExportOptions::default(),
                        &DeferOptions::new(),
                    )
                    .expect("it exported just before")
                    .payload()
                    .to_string()
                })
            })
            .map_err(|error| error.to_string()),
        })
        .collect();

    let server = || {
        let context = ToolContext::new(FamilyPolicy::all())
            .with_state(Discovery::new(registry.clone(), Provider::Mcp));
        McpServer::new(registry.clone(), ServerInfo::new("scale", "0")).with_context(context)
    };
    let list_all = tools_list(server(), registry.len()).await;
    let list_meta = tools_list(
        server().with_listed(holon_discovery::listed(Vec::<String>::new())),
        holon_discovery::META_TOOLS.len(),
    )
    .await;

    Figures {
        tools: registry.len(),
        registry: registry_build,
        index: index_build,
        search,
        plain,
        exports,
        list_all,
        list_meta,
    }
}

/// Every query of the set, [`SEARCH_ROUNDS`] times, as a model would search.
fn search_latency(index: &SearchIndex) -> Latency {
    let scope = SearchScope::model(FamilyPolicy::all());
    let queries = queries();
    let mut times = Vec::with_capacity(queries.len() * SEARCH_ROUNDS);
    for _ in 0..SEARCH_ROUNDS {
        for query in &queries {
            let start = Instant::now();
            let hits = index.search(&query.text, 8, scope);
            times.push(start.elapsed());
            std::hint::black_box(hits);
        }
    }
    times.sort();
    Latency {
        p50: percentile(&times, 0.5),
        p99: percentile(&times, 0.99),
        max: times
            .last()
            .expect("the query set is not empty")
            .as_secs_f64(),
    }
}

/// `tools/list` round trips over an in-process pipe, after the handshake.
async fn tools_list(server: McpServer, listed: usize) -> Listing {
    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    let served = tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let (reader, mut writer) = tokio::io::split(client_end);
    let mut lines = BufReader::new(reader).lines();
    let mut send = async |message: Value| {
        writer
            .write_all(format!("{message}\n").as_bytes())
            .await
            .expect("the pipe is open");
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "scale", "version": "0"}}}),
    )
    .await;
    let _ = lines.next_line().await;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    let mut times = Vec::new();
    let mut bytes = 0;
    for id in 1..=LIST_REQUESTS + 1 {
        let start = Instant::now();
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})).await;
        let line = lines
            .next_line()
            .await
            .expect("the pipe is open")
            .expect("an answer");
        times.push(start.elapsed());
        let answer: Value = serde_json::from_str(&line).expect("a JSON-RPC answer");
        assert_eq!(
            answer["result"]["tools"].as_array().map(Vec::len),
            Some(listed),
            "tools/list answered: {}",
            line.chars().take(500).collect::<String>()
        );
        bytes = line.len();
    }
    // Closing the pipe ends the server, so that what it frees is freed before the
    // next phase is measured, not while it runs (the heap figures would be off).
    drop((lines, writer));
    served.await.expect("the server task ends");
    let first = times.remove(0).as_secs_f64();
    Listing {
        first,
        median: median(times),
        bytes,
    }
}
