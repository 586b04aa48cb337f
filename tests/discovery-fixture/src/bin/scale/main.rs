//! Discovery at scale: 10,000 tools over 50 modules (the `scale` feature). Prints the
//! registry's build time and memory, the search index's, `tools/list` time and size
//! over MCP (every tool listed, and only the meta-tools), export time and size per
//! provider (full and deferred), and search latency p50/p99 over the query set.
//!
//! `cargo run --release -p holon-discovery-fixture --no-default-features --features scale --bin discovery-scale`

#![allow(clippy::disallowed_methods)] // reads /proc/self/statm for the resident memory

use std::sync::Arc;
use std::time::{Duration, Instant};

use holon_core::{FamilyPolicy, Registry, ToolContext};
use holon_discovery_fixture::queries;
use holon_export::discovery::Discovery;
use holon_export::search::{SearchIndex, SearchScope};
use holon_export::{DeferOptions, ExportOptions, Provider, export, export_deferred};
use holon_mcp::rmcp::ServiceExt;
use holon_mcp::{McpServer, ServerInfo};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Resident memory of this process, in bytes (Linux).
fn resident() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// The time of a `tools/list` round trip over an in-process pipe, and the response size.
async fn tools_list(server: McpServer) -> (Duration, usize) {
    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
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
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "scale", "version": "0"}}}),
    )
    .await;
    let _ = lines.next_line().await;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    let mut best = Duration::MAX;
    let mut size = 0;
    for id in 2..7 {
        let start = Instant::now();
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})).await;
        let line = lines
            .next_line()
            .await
            .expect("the pipe is open")
            .expect("an answer");
        best = best.min(start.elapsed());
        size = line.len();
    }
    (best, size)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let before = resident();
    let start = Instant::now();
    let registry = Arc::new(
        holon_discovery::registry(|meta| {
            meta.defined_at
                .module
                .starts_with("holon_discovery_fixture::scale")
        })
        .expect("a valid registry"),
    );
    let registry_time = start.elapsed();
    let registry_memory = resident().saturating_sub(before);
    println!(
        "registry: {} tools, built in {:.1} ms, {:.1} MiB resident",
        registry.len(),
        ms(registry_time),
        mib(registry_memory)
    );

    let before = resident();
    let start = Instant::now();
    let index = SearchIndex::of(&registry);
    let index_time = start.elapsed();
    println!(
        "search index: built in {:.1} ms, {:.1} MiB resident",
        ms(index_time),
        mib(resident().saturating_sub(before))
    );

    let scope = SearchScope::model(FamilyPolicy::all());
    let all = queries();
    let mut times = Vec::new();
    for _ in 0..5 {
        for query in &all {
            let start = Instant::now();
            let hits = index.search(&query.text, 8, scope);
            times.push(start.elapsed());
            std::hint::black_box(hits);
        }
    }
    times.sort();
    println!(
        "search: {} queries x5, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        all.len(),
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.99)),
        ms(*times.last().expect("queries ran"))
    );

    for provider in Provider::ALL {
        let start = Instant::now();
        let full = export(&registry, provider, ExportOptions::default());
        let full_time = start.elapsed();
        let full_size = full.payload().to_string().len();
        let start = Instant::now();
        let deferred = export_deferred(
            &registry,
            provider,
            ExportOptions::default(),
            &DeferOptions::new(),
        )
        .expect("a deferred export");
        let deferred_time = start.elapsed();
        let deferred_size = deferred.payload().to_string().len();
        println!(
            "export {provider:<16}: full {:>7.1} ms {:>9} bytes | deferred {:>7.1} ms {:>9} bytes ({:.4}x the size)",
            ms(full_time),
            full_size,
            ms(deferred_time),
            deferred_size,
            deferred_size as f64 / full_size as f64
        );
    }

    let context = ToolContext::new(FamilyPolicy::all())
        .with_state(Discovery::new(registry.clone(), Provider::Mcp));
    let server =
        McpServer::new(registry.clone(), ServerInfo::new("scale", "0")).with_context(context);
    let (all_time, all_size) = tools_list(server.clone()).await;
    let (meta_time, meta_size) =
        tools_list(server.with_listed(holon_discovery::listed(Vec::<String>::new()))).await;
    println!(
        "tools/list over MCP: every tool {:.1} ms {} bytes | meta-tools only {:.3} ms {} bytes ({:.5}x the size, {:.4}x the time)",
        ms(all_time),
        all_size,
        ms(meta_time),
        meta_size,
        meta_size as f64 / all_size as f64,
        meta_time.as_secs_f64() / all_time.as_secs_f64()
    );
}
