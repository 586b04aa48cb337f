//! Load for a streamable HTTP MCP server: CLIENTS threads, each on a keep-alive
//! connection of its own, call one tool with 2026-07-28 requests (no session, so a
//! balancer may send each anywhere) one after the other for SECONDS, then the calls
//! made, calls/s and the p50 and p99 of a call's round trip are printed as one line
//! `calls=N seconds=S calls_per_s=R p50_ms=P p99_ms=Q`.
//!
//! `cargo run --release -p holon-mcp --example call_load -- HOST:PORT TOOL ARGUMENTS_JSON
//! [CLIENTS] [SECONDS]` (`scripts/mcp-replica-throughput` runs it). A std client on
//! threads rather than hyper: one blocking connection per client is all it needs, and
//! it keeps the client's own cost small and even.

// A load generator: it opens sockets of its own.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [authority, tool, arguments, rest @ ..] = args.as_slice() else {
        eprintln!("usage: call_load HOST:PORT TOOL ARGUMENTS_JSON [CLIENTS] [SECONDS]");
        return ExitCode::from(2);
    };
    let Ok(arguments) = serde_json::from_str::<Value>(arguments) else {
        eprintln!("call_load: ARGUMENTS_JSON is not JSON: {arguments}");
        return ExitCode::from(2);
    };
    let number = |index: usize, default: u64| {
        rest.get(index)
            .map_or(Ok(default), |text| text.parse::<u64>())
    };
    let (Ok(clients), Ok(seconds)) = (number(0, 8), number(1, 10)) else {
        eprintln!("call_load: CLIENTS and SECONDS are whole numbers");
        return ExitCode::from(2);
    };
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": { "name": "call_load", "version": "1" }
            }
        }
    })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: {tool}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let results: Vec<Result<Vec<Duration>, String>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..clients)
            .map(|_| scope.spawn(|| calls(authority, &request, deadline)))
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|_| Err("a client thread panicked".to_string()))
            })
            .collect()
    });
    let elapsed = started.elapsed().as_secs_f64();
    let mut latencies = Vec::new();
    for result in results {
        match result {
            Ok(mine) => latencies.extend(mine),
            Err(error) => {
                eprintln!("call_load: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    latencies.sort();
    let quantile = |q: f64| {
        let index = ((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1));
        latencies
            .get(index)
            .map_or(f64::NAN, |took| took.as_secs_f64() * 1_000.0)
    };
    println!(
        "calls={} seconds={elapsed:.2} calls_per_s={:.0} p50_ms={:.3} p99_ms={:.3}",
        latencies.len(),
        latencies.len() as f64 / elapsed,
        quantile(0.5),
        quantile(0.99)
    );
    ExitCode::SUCCESS
}

/// One client's calls until `deadline`, each one's round trip; an error when a call
/// fails.
fn calls(authority: &str, request: &str, deadline: Instant) -> Result<Vec<Duration>, String> {
    let stream = TcpStream::connect(authority).map_err(|error| format!("{authority}: {error}"))?;
    stream
        .set_nodelay(true)
        .map_err(|error| error.to_string())?;
    let mut reader = BufReader::new(stream);
    let mut took = Vec::new();
    while Instant::now() < deadline {
        let started = Instant::now();
        reader
            .get_mut()
            .write_all(request.as_bytes())
            .map_err(|error| format!("sending a call: {error}"))?;
        let body = response(&mut reader)?;
        took.push(started.elapsed());
        if !body.contains("\"result\"") || body.contains("\"isError\":true") {
            return Err(format!("a call failed: {body}"));
        }
    }
    Ok(took)
}

/// The body of the next response on `reader` (by its length, or chunked); an error
/// when it is not a 2xx.
fn response(reader: &mut BufReader<TcpStream>) -> Result<String, String> {
    let io = |error: std::io::Error| format!("reading an answer: {error}");
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).map_err(io)? == 0 {
            return Err("the server closed the connection".to_string());
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    if !head.starts_with("HTTP/1.1 2") {
        return Err(format!(
            "answered {}",
            head.lines().next().unwrap_or_default()
        ));
    }
    let header = |name: &str| {
        head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name)
                .then(|| value.trim().to_string())
        })
    };
    let mut body = Vec::new();
    if let Some(length) = header("content-length") {
        body.resize(length.parse().map_err(|_| "a bad Content-Length")?, 0);
        reader.read_exact(&mut body).map_err(io)?;
    } else if header("transfer-encoding").is_some_and(|value| value.contains("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).map_err(io)?;
            let size = usize::from_str_radix(size.trim(), 16).map_err(|_| "a bad chunk size")?;
            let start = body.len();
            body.resize(start + size + 2, 0);
            reader.read_exact(&mut body[start..]).map_err(io)?;
            body.truncate(start + size);
            if size == 0 {
                break;
            }
        }
    }
    String::from_utf8(body).map_err(|_| "an answer that is not UTF-8".to_string())
}
