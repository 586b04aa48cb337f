//! The cost of one call through the dispatcher, against the floor: deserializing the
//! same arguments into the typed struct and calling the function directly.
//!
//! Two entry points, each against its own floor:
//! - `registry.dispatch_text` (JSON text, as a provider sends it) against
//!   `serde_json::from_str::<Args>(text)` + the call (bound: at most 1.3x, counted in
//!   instructions by `callgrind.sh` beside this file);
//! - `registry.dispatch` (a parsed `Value`, as MCP hands it over) against
//!   `Args::deserialize(value)` + the call.
//!
//! Each entry point and each floor is one function that is never inlined into the
//! loop that calls it, as a host calls the dispatcher from code of its own: otherwise
//! what the inliner merges into the loop, and so what a call costs, changes from build
//! to build with code that is not measured.
//!
//! Run with `cargo bench -p holon-core`. Criterion reports each case; at the end the
//! bench prints both ratios for 40 and 1,000 registered tools, measured in this run
//! with the two interleaved. Timings are noisy on a busy machine: `callgrind.sh`
//! counts instructions instead, which repeat exactly.

use std::hint::black_box;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion};
use holon_core::prelude::*;
use holon_core::{
    CallGate, FamilyPolicy, GateAnswer, GatedTool, Registry, Tool, ToolCall, ToolMeta,
};
use holon_test_support::bench::test_mode;
use serde_json::{Value, json};

/// How a batch is processed.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// All at once.
    Eager,
    /// On demand.
    Lazy,
}

/// Six fields of the common kinds.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct BenchArgs {
    /// A name.
    pub label: String,
    /// A count.
    pub count: u32,
    /// A flag.
    pub enabled: bool,
    /// A ratio.
    pub ratio: f64,
    /// Some tags.
    pub tags: Vec<String>,
    /// A mode.
    pub mode: Mode,
}

/// The result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BenchOutcome {
    /// How many tags were accepted.
    pub accepted: usize,
}

fn handle(args: BenchArgs) -> Result<BenchOutcome, ToolError> {
    Ok(BenchOutcome {
        accepted: args.tags.len() + usize::from(args.enabled) + args.label.len(),
    })
}

/// A tool with six argument fields, for the benchmark.
#[holon_tool(family = CoreAgent)]
fn bench_six_fields(args: BenchArgs) -> Result<BenchOutcome, ToolError> {
    handle(args)
}

/// The same tool under another name, to fill a registry.
struct Renamed {
    inner: &'static dyn Tool,
    meta: &'static ToolMeta,
}

impl Tool for Renamed {
    fn meta(&self) -> &'static ToolMeta {
        self.meta
    }
    fn input_fields(&self) -> &'static [&'static str] {
        self.inner.input_fields()
    }
    fn input_schema(&self, g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        self.inner.input_schema(g)
    }
    fn result_schema(&self, g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        self.inner.result_schema(g)
    }
    fn call<'a>(
        &'a self,
        context: &'a ToolContext,
        input: holon_core::ToolInput<'a>,
    ) -> holon_core::CallFuture<'a> {
        self.inner.call(context, input)
    }
}

fn registry_of(size: usize) -> Registry {
    let original = holon_core::registered_tools()
        .find(|tool| tool.meta().name == MEASURED)
        .expect("the bench tool is registered");
    let mut tools: Vec<&'static dyn Tool> = vec![original];
    for index in 1..size {
        let mut meta = *original.meta();
        meta.name = Box::leak(format!("BenchTool{index:04}").into_boxed_str());
        let meta: &'static ToolMeta = Box::leak(Box::new(meta));
        tools.push(Box::leak(Box::new(Renamed {
            inner: original,
            meta,
        })));
    }
    Registry::from_tools(tools).expect("valid registry")
}

/// The tool every case calls: the one `#[holon_tool]` declared, not one of the
/// `Renamed` copies that fill the registry (each forwards through a call of its own
/// that no declared tool has). The lookup is a hash map's, so which one it finds
/// does not change its cost.
const MEASURED: &str = "BenchSixFields";

const INPUT_TEXT: &str = r#"{"label": "nightly build", "count": 12, "enabled": true, "ratio": 0.75, "tags": ["ci", "linux", "x86_64"], "mode": "eager"}"#;

fn input() -> Value {
    json!({
        "label": "nightly build",
        "count": 12,
        "enabled": true,
        "ratio": 0.75,
        "tags": ["ci", "linux", "x86_64"],
        "mode": "eager",
    })
}

/// Polls a future to completion on this thread (the handler is synchronous, so the
/// first poll finishes it).
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
    }
}

#[inline(never)]
fn floor(value: Value) -> Result<BenchOutcome, ToolError> {
    let args =
        BenchArgs::deserialize(value).map_err(|e| ToolError::invalid_input(e.to_string()))?;
    handle(args)
}

/// The floor of the text entry point: `serde_json::from_str` + the call.
#[inline(never)]
fn text_floor(text: &str) -> Result<BenchOutcome, ToolError> {
    let args: BenchArgs =
        serde_json::from_str(text).map_err(|e| ToolError::invalid_input(e.to_string()))?;
    handle(args)
}

#[inline(never)]
fn dispatch_text(registry: &Registry, context: &ToolContext, name: &str, text: &str) -> ToolResult {
    block_on(registry.dispatch_text(context, name, text))
}

#[inline(never)]
fn dispatch(registry: &Registry, context: &ToolContext, call: ToolCall) -> ToolResult {
    block_on(registry.dispatch(context, call))
}

const ROUNDS: usize = 151;
const CALLS: usize = 2_000;

/// Runs two timed rounds of `CALLS` calls in turn, `ROUNDS` times, so that both see
/// the same machine state, the baseline first in even rounds and second in odd ones
/// (whichever runs second inherits the caches and the clock the first warmed up);
/// returns the median ratio and the mean per-call times. Many short rounds: a
/// shared machine's slow spells then spoil a few rounds, which the median drops,
/// instead of half of a long one. `main` runs the floor against itself the same way,
/// as a control: a ratio away from 1.00x there says the run was too noisy to trust.
fn interleaved(
    mut baseline: impl FnMut() -> Duration,
    mut measured: impl FnMut() -> Duration,
) -> (f64, Duration, Duration) {
    let rounds = if test_mode() { 1 } else { ROUNDS };
    let mut ratios = Vec::with_capacity(rounds);
    let (mut baseline_total, mut measured_total) = (Duration::ZERO, Duration::ZERO);
    for round in 0..rounds {
        let (baseline_time, measured_time) = if round % 2 == 0 {
            let baseline_time = baseline();
            (baseline_time, measured())
        } else {
            let measured_time = measured();
            (baseline(), measured_time)
        };
        ratios.push(measured_time.as_secs_f64() / baseline_time.as_secs_f64());
        baseline_total += baseline_time;
        measured_total += measured_time;
    }
    ratios.sort_by(f64::total_cmp);
    let per_call = |total: Duration| total / (rounds * CALLS) as u32;
    (
        ratios[rounds / 2],
        per_call(baseline_total),
        per_call(measured_total),
    )
}

/// [`interleaved`] of the floor and `dispatch`.
fn value_ratio(
    registry: &Registry,
    context: &ToolContext,
    name: &str,
) -> (f64, Duration, Duration) {
    interleaved(
        || {
            let inputs: Vec<Value> = (0..CALLS).map(|_| input()).collect();
            let started = Instant::now();
            for value in inputs {
                black_box(floor(black_box(value)).ok());
            }
            started.elapsed()
        },
        || {
            let calls: Vec<ToolCall> = (0..CALLS).map(|_| ToolCall::new(name, input())).collect();
            let started = Instant::now();
            for call in calls {
                black_box(dispatch(registry, context, black_box(call)));
            }
            started.elapsed()
        },
    )
}

/// One timed round of the text floor.
fn text_floor_round() -> Duration {
    let started = Instant::now();
    for _ in 0..CALLS {
        black_box(text_floor(black_box(INPUT_TEXT)).ok());
    }
    started.elapsed()
}

/// [`interleaved`] of the text floor and `dispatch_text`.
fn text_ratio(registry: &Registry, context: &ToolContext, name: &str) -> (f64, Duration, Duration) {
    interleaved(text_floor_round, || {
        let started = Instant::now();
        for _ in 0..CALLS {
            black_box(dispatch_text(
                registry,
                context,
                name,
                black_box(INPUT_TEXT),
            ));
        }
        started.elapsed()
    })
}

/// A call gate that lets every call run: the dispatcher's own cost of consulting one.
struct AllowAll;

impl CallGate for AllowAll {
    fn consult(&self, _: &GatedTool<'_>, _: &ToolContext) -> GateAnswer {
        GateAnswer::Run { granted_by: None }
    }

    fn defer(&self, tool: &GatedTool<'_>, _: &ToolContext, _: Value, why: String) -> ToolResult {
        unreachable!("`AllowAll` asks about no call ({}: {why})", tool.name)
    }
}

/// The context of every call: no call gate, or with `HOLON_BENCH_POLICY=allow` one
/// that allows every call (consulted on each).
fn bench_context() -> ToolContext {
    let context = ToolContext::new(FamilyPolicy::all());
    match std::env::var("HOLON_BENCH_POLICY").as_deref() {
        Ok("allow") => context.with_call_gate(std::sync::Arc::new(AllowAll)),
        _ => context,
    }
}

fn main() {
    let context = bench_context();
    let registries = [(40, registry_of(40)), (1_000, registry_of(1_000))];

    // Sanity: every path does the same work and succeeds.
    assert!(floor(input()).is_ok());
    assert!(text_floor(INPUT_TEXT).is_ok());
    for (_, registry) in &registries {
        let result = dispatch(registry, &context, ToolCall::new(MEASURED, input()));
        assert!(result.is_success(), "{:?}", result.error);
        let result = dispatch_text(registry, &context, MEASURED, INPUT_TEXT);
        assert!(result.is_success(), "{:?}", result.error);
        assert_eq!(
            result.structured.as_deref(),
            Some(&json!({ "accepted": 17 }))
        );
    }

    // `HOLON_BENCH_PROFILE=MODE`: only run `HOLON_BENCH_CALLS` calls (default 20,000)
    // of one case, for a profiler such as callgrind (see `callgrind.sh`). MODE is
    // `text`, `text-floor`, `value` or `value-floor`; `HOLON_BENCH_TOOLS` picks the
    // registry (40 or 1000).
    if let Some(mode) = std::env::var_os("HOLON_BENCH_PROFILE") {
        let calls: usize = std::env::var("HOLON_BENCH_CALLS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20_000);
        let size = match std::env::var("HOLON_BENCH_TOOLS").as_deref() {
            Ok("1000") => 1_000,
            _ => 40,
        };
        let (_, registry) = registries
            .iter()
            .find(|(s, _)| *s == size)
            .expect("a registry of that size");
        // The mode is matched once, outside the loop, so that a call's count holds
        // nothing but the call.
        match mode.to_str() {
            Some("text") => {
                for _ in 0..calls {
                    black_box(dispatch_text(
                        registry,
                        &context,
                        MEASURED,
                        black_box(INPUT_TEXT),
                    ));
                }
            }
            Some("text-floor") => {
                for _ in 0..calls {
                    black_box(text_floor(black_box(INPUT_TEXT)).ok());
                }
            }
            Some("value-floor") => {
                for _ in 0..calls {
                    black_box(floor(input()).ok());
                }
            }
            _ => {
                for _ in 0..calls {
                    black_box(dispatch(
                        registry,
                        &context,
                        ToolCall::new(MEASURED, input()),
                    ));
                }
            }
        }
        return;
    }

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("one call, six fields");
    group.bench_function("text floor: from_str + call", |b| {
        b.iter(|| text_floor(black_box(INPUT_TEXT)))
    });
    for (size, registry) in &registries {
        group.bench_function(format!("registry.dispatch_text, {size} tools"), |b| {
            b.iter(|| dispatch_text(registry, &context, MEASURED, black_box(INPUT_TEXT)))
        });
    }
    group.bench_function("floor: deserialize + call", |b| {
        b.iter_batched(
            input,
            |value| floor(black_box(value)),
            BatchSize::SmallInput,
        )
    });
    for (size, registry) in &registries {
        group.bench_function(format!("registry.dispatch, {size} tools"), |b| {
            b.iter_batched(
                || ToolCall::new(MEASURED, input()),
                |call| dispatch(registry, &context, black_box(call)),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
    criterion.final_summary();
    if test_mode() {
        println!("\n(a test run: one round of each ratio below, not a measurement)");
    }

    println!("\ndispatch_text / text floor, same run, interleaved rounds, median:");
    for (size, registry) in &registries {
        let (ratio, floor_time, dispatch_time) = text_ratio(registry, &context, MEASURED);
        println!(
            "  {size:>5} tools: floor {floor_time:>9.2?} -> dispatch_text {dispatch_time:>9.2?}: {ratio:.2}x"
        );
    }
    let (control, _, _) = interleaved(text_floor_round, text_floor_round);
    println!("  control: text floor / text floor: {control:.2}x");
    println!(
        "\ndispatch (a Value) / floor (deserialize + call), same run, interleaved rounds, median:"
    );
    for (size, registry) in &registries {
        let (ratio, floor_time, dispatch_time) = value_ratio(registry, &context, MEASURED);
        println!(
            "  {size:>5} tools: floor {floor_time:>9.2?} -> dispatch {dispatch_time:>9.2?}: {ratio:.2}x"
        );
    }
}
