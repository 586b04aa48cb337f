//! WebFetch's HTML rendering, bounded, against the unbounded rendering it replaced,
//! in the same run: wall time and peak RSS of each case, each in a process of its own.
//!
//! `cargo bench -p holon-tools --bench web_extract_bounds`. `HOLON_BENCH_BASELINE_SECS`
//! (default 60) is how long an unbounded rendering may run before it is stopped and
//! reported as `> N s`. Run as a test (`cargo test -p holon-tools --bench
//! web_extract_bounds`), it renders pages just past the bounds instead, each once.
//!
//! `bounded` is a whole WebFetch call through the dispatcher against a loopback server
//! (decode, title, rendering under the bounds, wrapping). `unbounded` is what WebFetch
//! did before: html2text over the whole decoded body, on the calling thread.

// A benchmark harness: it sets up files, servers and processes of its own.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use holon_core::{FamilyPolicy, Registry, ToolCall};
use holon_gates::net::PrivateAddresses;
use holon_runtime::{Runtime, RuntimeConfig, WebConfig};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use holon_test_support::bench::test_mode;
use holon_tool_fixtures::require_tool;
// The bench dispatches the built-in tools by name: rustc links holon-tools only when
// the code names it, and without it the registry would hold no tools at all.
use holon_tools as _;

/// The pages: what the issue measured (5 MiB of paragraphs, 30,000 nested `<div>`s)
/// and a smaller deep one the unbounded rendering finishes.
fn page(case: &str) -> String {
    match case {
        "paragraphs-5MiB" => {
            let body = "<p>word</p>".repeat((5 << 20) / 11 - 4);
            format!("<html><body>{body}</body></html>")
        }
        "nested-div-30000" => nested(30_000),
        "nested-div-3000" => nested(3_000),
        // The test mode's: just past the 512 KiB and 64-level bounds.
        "paragraphs-600KiB" => {
            let body = "<p>word</p>".repeat((600 << 10) / 11);
            format!("<html><body>{body}</body></html>")
        }
        "nested-div-100" => nested(100),
        other => panic!("unknown case {other}"),
    }
}

fn nested(depth: usize) -> String {
    format!(
        "<html><body>{}<p>core</p>{}</body></html>",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|arg| arg == "--child") {
        child(&args[at + 1], &args[at + 2]);
        return;
    }
    let limit = std::env::var("HOLON_BENCH_BASELINE_SECS")
        .ok()
        .and_then(|secs| secs.parse().ok())
        .unwrap_or(60);
    require_tool("WebFetch");
    let cases: &[&str] = if test_mode() {
        &["paragraphs-600KiB", "nested-div-100"]
    } else {
        &["paragraphs-5MiB", "nested-div-3000", "nested-div-30000"]
    };
    println!("web_extract_bounds: wall time and peak RSS per case, one process each");
    for case in cases {
        for mode in ["unbounded", "bounded"] {
            let line = run_child(case, mode, Duration::from_secs(limit));
            println!("{case:<18} {mode:<10} {line}");
        }
    }
}

/// Runs one case in a child process, stopping it past `limit`.
fn run_child(case: &str, mode: &str, limit: Duration) -> String {
    let mut child = Command::new(std::env::current_exe().expect("the bench binary"))
        .args(["--child", case, mode])
        .stdout(Stdio::piped())
        .spawn()
        .expect("the child starts");
    let stdout = child.stdout.take().expect("its stdout");
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = send.send(line);
    });
    match receive.recv_timeout(limit) {
        Ok(line) => {
            // A case that failed (its check panicked) fails the bench.
            let status = child.wait().expect("the child's exit status");
            assert!(
                status.success(),
                "{case} {mode}: the child failed ({status})"
            );
            line.trim().to_string()
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            format!("> {} s (stopped)", limit.as_secs())
        }
    }
}

/// One case, in this process: prints `<ms> ms, peak RSS <MiB> MiB, <what came back>`.
fn child(case: &str, mode: &str) {
    let html = page(case);
    let started = Instant::now();
    let outcome = match mode {
        "unbounded" => {
            let text = html2text::config::plain()
                .string_from_read(html.as_bytes(), 100)
                .map_or_else(
                    |error| format!("error {error}"),
                    |text| text.len().to_string(),
                );
            format!("{text} bytes of text")
        }
        _ => bounded(html),
    };
    let took = started.elapsed();
    println!(
        "{:>9.1} ms  peak RSS {:>7.1} MiB  {outcome}",
        took.as_secs_f64() * 1000.0,
        peak_rss_kib() as f64 / 1024.0
    );
}

/// A WebFetch of `html` served by a loopback server.
fn bounded(html: String) -> String {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut head = Vec::new();
            let mut chunk = [0u8; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = stream.read(&mut chunk).await.unwrap();
                if n == 0 {
                    return;
                }
                head.extend_from_slice(&chunk[..n]);
            }
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                html.len()
            );
            stream.write_all(reply.as_bytes()).await.unwrap();
            stream.write_all(html.as_bytes()).await.unwrap();
            let _ = stream.shutdown().await;
        });
        let dir = tempfile::tempdir().unwrap();
        let mut config = RuntimeConfig::in_memory(dir.path());
        config.web = WebConfig {
            private_addresses: PrivateAddresses::Allow,
            max_response_bytes: 6 << 20,
            ..WebConfig::default()
        };
        let rt = Runtime::open(config).unwrap();
        let context = rt.context(FamilyPolicy::all());
        let url = format!("http://{addr}/");
        let result = Registry::global()
            .dispatch(&context, ToolCall::new("WebFetch", json!({ "url": url })))
            .await;
        let envelope = serde_json::to_value(&result).unwrap();
        assert_eq!(envelope["status"], "success", "{envelope}");
        let page = &envelope["structured"];
        format!(
            "{} ({}), notes: {}",
            envelope["status"],
            page["extracted_as"],
            page["extraction_notes"]
        )
    })
}

/// This process's peak resident set (VmHWM), in KiB; 0 where /proc does not say.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}
