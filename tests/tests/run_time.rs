//! The run-time handles of a call: its cancellation, its progress and its time limit.
//! A cancelled or timed-out call ends with a typed error, its handler's future is
//! dropped and its cancellation fires for the work it spawned. Time is Tokio's paused
//! test clock: no test waits on the wall clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use holon_core::prelude::*;
use holon_core::{
    CancellationToken, FamilyPolicy, ProgressLog, ProgressReport, Registry, ToolCall,
};
use holon_downstream_tools as _;
use serde_json::{Value, json};

/// What a test sees of its calls' handlers; each test has its own, in the context.
#[derive(Default)]
struct Watch {
    started: AtomicUsize,
    dropped: AtomicUsize,
    spawned_saw_cancel: AtomicUsize,
}

/// Counts a drop: a handler's future dropped mid-call drops it.
struct CountsDrop<'a>(&'a AtomicUsize);

impl Drop for CountsDrop<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Spawns a task that counts the call's cancellation when it comes.
fn watch_cancellation(watch: &Arc<Watch>, cancel: &Cancellation) {
    let (watch, token) = (watch.clone(), cancel.token().clone());
    tokio::spawn(async move {
        token.cancelled().await;
        watch.spawned_saw_cancel.fetch_add(1, Ordering::SeqCst);
    });
}

/// Never finishes on its own.
#[holon_tool(family = CoreAgent)]
async fn hang(watch: &Arc<Watch>, cancel: Cancellation) -> Result<u32, ToolError> {
    watch.started.fetch_add(1, Ordering::SeqCst);
    let _guard = CountsDrop(&watch.dropped);
    watch_cancellation(watch, &cancel);
    std::future::pending::<()>().await;
    Ok(0)
}

/// Arguments of Slow.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct SlowArgs {
    /// How long to take.
    millis: u64,
}

/// Takes `millis` to answer, within a limit of 50 ms of its own.
#[holon_tool(family = CoreAgent, timeout_ms = 50)]
async fn slow(watch: &Arc<Watch>, cancel: &Cancellation, args: SlowArgs) -> Result<u64, ToolError> {
    let _guard = CountsDrop(&watch.dropped);
    watch_cancellation(watch, cancel);
    tokio::time::sleep(Duration::from_millis(args.millis)).await;
    Ok(args.millis)
}

/// Arguments of Steps.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct StepsArgs {
    /// How many steps to report.
    steps: u32,
}

/// Reports each of its steps as progress; answers whether anybody listened.
#[holon_tool(family = CoreAgent)]
fn steps(progress: &Progress, args: StepsArgs) -> Result<bool, ToolError> {
    for step in 1..=args.steps {
        let message = format!("step {step}");
        progress.report(f64::from(step), Some(f64::from(args.steps)), Some(&message));
    }
    Ok(progress.is_enabled())
}

/// Answers whether its call was cancelled, with its handles taken by value.
#[holon_tool(family = CoreAgent)]
fn handles_by_value(cancel: Cancellation, progress: Progress) -> Result<bool, ToolError> {
    progress.report(1.0, None, None);
    Ok(cancel.is_cancelled())
}

fn context() -> ToolContext {
    ToolContext::new(FamilyPolicy::all())
}

/// A context with a fresh [`Watch`].
fn watched() -> (ToolContext, Arc<Watch>) {
    let watch = Arc::new(Watch::default());
    (context().with_shared_state(Arc::new(watch.clone())), watch)
}

async fn call_in(context: &ToolContext, name: &str, input: Value) -> Value {
    let result = Registry::global()
        .dispatch(context, ToolCall::new(name, input))
        .await;
    serde_json::to_value(&result).expect("an envelope serializes")
}

/// Lets the spawned tasks of the current-thread runtime run.
async fn settle() {
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
}

/// Completes once a handler has started.
async fn started(watch: &Watch) {
    while watch.started.load(Ordering::SeqCst) == 0 {
        tokio::task::yield_now().await;
    }
}

#[tokio::test]
async fn a_cancelled_call_ends_with_cancelled_and_stops_its_work() {
    let token = CancellationToken::new();
    let (context, watch) = watched();
    let context = context.with_cancellation(token.clone());
    let call = tokio::spawn(async move { call_in(&context, "Hang", json!({})).await });
    started(&watch).await;
    token.cancel();
    let result = call.await.expect("the call task ends");
    assert_eq!(result["status"], "error", "{result}");
    assert_eq!(result["error"]["kind"], "cancelled", "{result}");
    assert!(result["error"]["recovery_hint"].is_string(), "{result}");
    settle().await;
    assert_eq!(watch.dropped.load(Ordering::SeqCst), 1);
    assert_eq!(watch.spawned_saw_cancel.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_call_cancelled_before_it_starts_does_not_run() {
    let token = CancellationToken::new();
    token.cancel();
    let (context, watch) = watched();
    let result = call_in(&context.with_cancellation(token), "Hang", json!({})).await;
    assert_eq!(result["error"]["kind"], "cancelled", "{result}");
    assert_eq!(watch.started.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_dropped_dispatch_drops_the_handler() {
    let (context, watch) = watched();
    tokio::select! {
        result = call_in(&context, "Hang", json!({})) => panic!("Hang returned {result}"),
        () = started(&watch) => {}
    }
    // `select!` dropped the dispatch future, and with it the handler's.
    assert_eq!(watch.dropped.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn past_its_timeout_ms_a_call_ends_with_tool_timed_out_and_is_cancelled() {
    let (context, watch) = watched();
    let result = call_in(&context, "Slow", json!({ "millis": 60_000 })).await;
    assert_eq!(result["status"], "error", "{result}");
    let error = &result["error"];
    assert_eq!(error["kind"], "tool_timed_out", "{result}");
    assert_eq!(error["retryable"], true, "{result}");
    assert_eq!(error["details"]["timeout_ms"], 50, "{result}");
    assert!(
        error["recovery_hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("retry")),
        "{result}"
    );
    settle().await;
    assert_eq!(watch.dropped.load(Ordering::SeqCst), 1);
    assert_eq!(watch.spawned_saw_cancel.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn within_its_timeout_a_call_succeeds() {
    let (context, _) = watched();
    let result = call_in(&context, "Slow", json!({ "millis": 10 })).await;
    assert_eq!(result["status"], "success", "{result}");
    assert_eq!(result["structured"], 10);
}

#[tokio::test(start_paused = true)]
async fn the_hosts_timeout_replaces_the_tools() {
    let (context, _) = watched();
    let longer = context.clone().with_timeout(Duration::from_millis(500));
    let result = call_in(&longer, "Slow", json!({ "millis": 100 })).await;
    assert_eq!(result["status"], "success", "{result}");

    let shorter = context.with_timeout(Duration::from_millis(5));
    let result = call_in(&shorter, "Slow", json!({ "millis": 10 })).await;
    assert_eq!(result["error"]["kind"], "tool_timed_out", "{result}");
    assert_eq!(result["error"]["details"]["timeout_ms"], 5, "{result}");

    // A tool without a limit of its own gets the host's.
    let result = call_in(&shorter, "Hang", json!({})).await;
    assert_eq!(result["error"]["kind"], "tool_timed_out", "{result}");
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_call_under_a_time_limit_is_cancelled_not_timed_out() {
    let token = CancellationToken::new();
    let (context, watch) = watched();
    let context = context
        .with_cancellation(token.clone())
        .with_timeout(Duration::from_secs(3600));
    let call = tokio::spawn(async move { call_in(&context, "Hang", json!({})).await });
    started(&watch).await;
    token.cancel();
    let result = call.await.expect("the call task ends");
    assert_eq!(result["error"]["kind"], "cancelled", "{result}");
}

/// A report as a [`ProgressLog`] keeps it.
fn report(progress: f64, total: Option<f64>, message: Option<&str>) -> ProgressReport {
    ProgressReport {
        progress,
        total,
        message: message.map(str::to_string),
    }
}

#[tokio::test]
async fn progress_reaches_the_hosts_sink() {
    let log = Arc::new(ProgressLog::default());
    let context = context().with_progress(log.clone());
    let result = call_in(&context, "Steps", json!({ "steps": 3 })).await;
    assert_eq!(result["structured"], true, "{result}");
    assert_eq!(
        log.reports(),
        vec![
            report(1.0, Some(3.0), Some("step 1")),
            report(2.0, Some(3.0), Some("step 2")),
            report(3.0, Some(3.0), Some("step 3")),
        ]
    );
}

#[tokio::test]
async fn without_a_sink_progress_is_a_no_op() {
    let result = call_in(&context(), "Steps", json!({ "steps": 3 })).await;
    assert_eq!(result["status"], "success", "{result}");
    assert_eq!(result["structured"], false, "{result}");
}

#[tokio::test]
async fn the_handles_are_extractors_by_value_too() {
    let log = Arc::new(ProgressLog::default());
    let context = context().with_progress(log.clone());
    let result = call_in(&context, "HandlesByValue", json!({})).await;
    assert_eq!(result["structured"], false, "{result}");
    assert_eq!(log.reports(), vec![report(1.0, None, None)]);
}

/// Counts the calls it is shown.
#[derive(Default)]
struct CountsCalls(AtomicUsize);

impl holon_core::DispatchObserver for CountsCalls {
    fn record(&self, _: &holon_core::Execution<'_>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Counts its calls; synchronous, so a dispatch finishes it on its first poll.
#[holon_tool(family = CoreAgent)]
fn counted(watch: &Arc<Watch>) -> Result<u32, ToolError> {
    Ok(watch.started.fetch_add(1, Ordering::SeqCst) as u32 + 1)
}

#[tokio::test]
async fn a_dispatch_dropped_before_its_first_poll_runs_nothing() {
    let (context, watch) = watched();
    let observer = Arc::new(CountsCalls::default());
    let context = context.with_observer(observer.clone());
    let registry = Registry::global();
    for name in ["Counted", "Hang", "Slow"] {
        drop(registry.dispatch(&context, ToolCall::new(name, json!({ "millis": 1 }))));
        drop(registry.dispatch_text(&context, name, "{}"));
    }
    assert_eq!(watch.started.load(Ordering::SeqCst), 0);
    assert_eq!(observer.0.load(Ordering::SeqCst), 0);
    // Polled, it runs, once.
    let result = registry.dispatch_text(&context, "Counted", "{}").await;
    assert_eq!(result.structured.as_deref(), Some(&json!(1)), "{result:?}");
    assert_eq!(observer.0.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_call_through_a_context_whose_own_token_was_cancelled_does_not_run() {
    // No token from the host: the context's own, cancelled through the handle.
    let (context, watch) = watched();
    context.cancellation().token().cancel();
    let clone = context.clone();
    for context in [&context, &clone] {
        let result = call_in(context, "Counted", json!({})).await;
        assert_eq!(result["error"]["kind"], "cancelled", "{result}");
    }
    assert_eq!(watch.started.load(Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn a_call_under_a_time_limit_sees_its_contexts_own_token_cancelled_after_it_started() {
    // The limit's child token is made from the context's own token, which is made
    // only then: cancelling that token later still reaches the call.
    let (context, watch) = watched();
    let context = context.with_timeout(Duration::from_secs(3600));
    let host = context.clone();
    let call = tokio::spawn(async move { call_in(&context, "Hang", json!({})).await });
    started(&watch).await;
    host.cancellation().token().cancel();
    let result = call.await.expect("the call task ends");
    assert_eq!(result["error"]["kind"], "cancelled", "{result}");
    settle().await;
    assert_eq!(watch.spawned_saw_cancel.load(Ordering::SeqCst), 1);
}
