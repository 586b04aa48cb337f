//! The cost of one turn, a provider body in and the next request's items out, against
//! the floor of doing it by hand: parsing the body with `serde_json`, parsing each
//! call's arguments into the handler's type, calling the 8 handlers directly and
//! writing one `role: tool` message per call (goal: <= 1.5x by instructions).
//! And the overlap of read-only calls: 8 calls of a tool that sleeps 50 ms against
//! one call (goal: < 2x).
//!
//! Run with `cargo bench -p holon-provider --bench turn`: it prints the time ratio
//! measured in this run, both sides interleaved. `callgrind.sh` beside this file
//! counts instructions instead (`HOLON_BENCH_PROFILE=turn|floor`), which repeat
//! exactly on a busy machine.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry};
use holon_provider::{Provider, parse_body, respond};
use serde_json::{Value, json};

/// Arguments of Add.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct AddArgs {
    /// The first term.
    pub a: i64,
    /// The second term.
    pub b: i64,
}

/// The sum.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Sum {
    /// a + b.
    pub sum: i64,
}

fn add_terms(args: AddArgs) -> Sum {
    Sum {
        sum: args.a.wrapping_add(args.b),
    }
}

/// Adds two integers.
#[holon_tool(family = CoreAgent)]
fn add(args: AddArgs) -> Sum {
    add_terms(args)
}

/// Arguments of Nap.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct NapArgs {
    /// Milliseconds.
    pub ms: u64,
}

/// Sleeps; read-only, so calls of it overlap.
#[holon_tool(family = CoreAgent, annotations(read_only))]
async fn nap(args: NapArgs) -> Sum {
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    Sum { sum: 0 }
}

fn body(tool: &str, arguments: impl Fn(usize) -> String, calls: usize) -> String {
    let tool_calls: Vec<Value> = (0..calls)
        .map(|i| {
            json!({ "id": format!("call_{i}"), "type": "function",
                "function": { "name": tool, "arguments": arguments(i) } })
        })
        .collect();
    json!({ "id": "chatcmpl", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{ "index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null, "refusal": null, "tool_calls": tool_calls } }] })
    .to_string()
}

/// Polls a future that finishes without waiting (every handler here is synchronous).
fn now<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => unreachable!("a synchronous turn finishes on its first poll"),
    }
}

#[inline(never)]
fn turn(context: &ToolContext, text: &str) -> Vec<Value> {
    let body = parse_body(text).expect("a valid body");
    let turn = now(respond(
        Registry::global(),
        context,
        Provider::OpenAiChat,
        &body,
    ))
    .expect("a turn");
    turn.model_items
        .into_iter()
        .chain(turn.result_items)
        .collect()
}

/// What a host writing it by hand does: the body parsed, the arguments parsed into
/// the handler's type, the handler called, a tool message per call with its result.
#[inline(never)]
fn floor(text: &str) -> Vec<Value> {
    let body: Value = serde_json::from_str(text).expect("a valid body");
    let message = &body["choices"][0]["message"];
    let mut items = vec![message.clone()];
    for call in message["tool_calls"].as_array().expect("calls") {
        let arguments = call["function"]["arguments"].as_str().expect("arguments");
        let args: AddArgs = serde_json::from_str(arguments).expect("arguments");
        let result = serde_json::to_string(&add_terms(args)).expect("a result");
        items.push(json!({ "role": "tool", "tool_call_id": call["id"], "content": result }));
    }
    items
}

fn main() {
    let context = ToolContext::new(FamilyPolicy::all());
    let text = body("Add", |i| format!(r#"{{"a":{i},"b":{}}}"#, i * 7), 8);
    assert_eq!(turn(&context, &text).len(), 9);
    assert_eq!(floor(&text).len(), 9);

    if let Ok(profile) = std::env::var("HOLON_BENCH_PROFILE") {
        let calls: usize = std::env::var("HOLON_BENCH_CALLS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(1000);
        for _ in 0..calls {
            match profile.as_str() {
                "turn" => drop(black_box(turn(&context, black_box(&text)))),
                "floor" => drop(black_box(floor(black_box(&text)))),
                other => panic!("unknown profile `{other}`: turn or floor"),
            }
        }
        return;
    }

    let rounds = 2000;
    let (mut ours, mut hand) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..20 {
        let start = Instant::now();
        for _ in 0..rounds / 20 {
            black_box(turn(&context, black_box(&text)));
        }
        ours += start.elapsed();
        let start = Instant::now();
        for _ in 0..rounds / 20 {
            black_box(floor(black_box(&text)));
        }
        hand += start.elapsed();
    }
    println!(
        "one turn of 8 calls: {:.1} us, by hand {:.1} us: {:.2}x",
        ours.as_secs_f64() * 1e6 / rounds as f64,
        hand.as_secs_f64() * 1e6 / rounds as f64,
        ours.as_secs_f64() / hand.as_secs_f64()
    );

    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let nap = |calls: usize| {
        let text = body("Nap", |_| r#"{"ms":50}"#.to_string(), calls);
        let body = parse_body(&text).expect("a valid body");
        let start = Instant::now();
        let turn = tokio
            .block_on(respond(
                Registry::global(),
                &context,
                Provider::OpenAiChat,
                &body,
            ))
            .expect("a turn");
        assert!(turn.results.iter().all(|result| result.is_success()));
        start.elapsed()
    };
    let (one, eight) = (nap(1), nap(8));
    println!(
        "read-only calls sleeping 50 ms: one {:.1} ms, eight {:.1} ms: {:.2}x",
        one.as_secs_f64() * 1e3,
        eight.as_secs_f64() * 1e3,
        eight.as_secs_f64() / one.as_secs_f64()
    );
}
