//! Memory stays bounded whatever a command prints: ExecCommand on a command writing
//! 500 MB to stdout must not grow this process by more than a few MB. Its own test
//! binary, so that no other test allocates while it measures.

// Tests set their fixtures up with std::fs, processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use holon_core::{FamilyPolicy, Registry, ToolCall};
// Links the built-in tools into the registry (they are found by link-time inventory).
use holon_runtime::{Runtime, RuntimeConfig};
use holon_tools as _;
use serde_json::{Value, json};

/// The bound on growth, in KiB.
const MAX_GROWTH_KIB: u64 = 16 * 1024;

/// A `Vm*` line of /proc/self/status, in KiB.
fn status_kib(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with(key))
        .unwrap_or_else(|| panic!("no {key} in /proc/self/status"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

async fn exec(runtime: &std::sync::Arc<Runtime>, input: Value) -> Value {
    let result = Registry::global()
        .dispatch(
            &runtime.context(FamilyPolicy::all()),
            ToolCall::new("ExecCommand", input),
        )
        .await;
    serde_json::to_value(&result).unwrap()
}

#[tokio::test]
async fn a_command_printing_500_mb_does_not_grow_the_process() {
    let workspace = tempfile::tempdir().unwrap();
    let runtime = Runtime::open(RuntimeConfig::in_memory(workspace.path())).unwrap();
    // Warm up every path (registry, store, threads, previews) before the baseline.
    let warm = exec(&runtime, json!({"cmd": "seq 1 100000"})).await;
    assert_eq!(warm["structured"]["status"], "completed", "{warm}");
    let rss_before = status_kib("VmRSS:");
    let peak_before = status_kib("VmHWM:");

    let envelope = exec(
        &runtime,
        json!({
            "cmd": "head -c 500000000 /dev/zero | tr '\\0' a",
            "yield_time_ms": 600_000,
        }),
    )
    .await;

    let rss_growth = status_kib("VmRSS:").saturating_sub(rss_before);
    let peak_growth = status_kib("VmHWM:").saturating_sub(peak_before);
    eprintln!("RSS growth: {rss_growth} KiB; peak RSS growth: {peak_growth} KiB");
    let result = &envelope["structured"];
    assert_eq!(result["status"], "completed", "{envelope}");
    let preview = result["output_preview"]["stdout"].as_str().unwrap();
    assert!(preview.len() < 40_000, "{}", preview.len());
    // The log keeps its cap's worth, head and tail, with the note of the cut.
    let cap = holon_gates::process::DEFAULT_LOG_CAP_BYTES;
    let log = std::fs::read(result["stdout_log"].as_str().unwrap()).unwrap();
    assert!(
        log.len() as u64 > cap && (log.len() as u64) < cap + 300,
        "{}",
        log.len()
    );
    assert_eq!(result["output_preview"]["stdout_bytes"], log.len() as u64);
    let note = format!("{} bytes of stdout cut here", 500_000_000 - cap);
    assert!(String::from_utf8_lossy(&log).contains(&note));
    assert!(
        rss_growth < MAX_GROWTH_KIB,
        "RSS grew by {rss_growth} KiB (bound {MAX_GROWTH_KIB} KiB)"
    );
    assert!(
        peak_growth < MAX_GROWTH_KIB,
        "peak RSS grew by {peak_growth} KiB (bound {MAX_GROWTH_KIB} KiB)"
    );
}
