//! The execution log's bounds: refused calls keep an excerpt of their input, and the
//! log is pruned by age and size.

use holon_core::{FamilyPolicy, ToolCall};
use holon_runtime::Runtime;
use holon_runtime::execution_log::ExecutionRetention;
use serde_json::json;

/// The bytes of the store's files (database and write-ahead log) in `dir`.
fn store_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap())
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .starts_with("state.sqlite3")
        })
        .map(|entry| entry.metadata().unwrap().len())
        .sum()
}

#[tokio::test]
async fn big_refused_calls_leave_a_small_store_with_their_size_and_hash() {
    let workspace = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let mut config = holon_tool_fixtures::runtime::config_with_state_in(workspace.path());
    config.state_dir = Some(state.path().to_path_buf());
    let runtime = Runtime::open(config).unwrap();
    let big = "x".repeat(10 << 20);
    for n in 0..6 {
        // `duration_ms` must be a number: refused with invalid_tool_input.
        let call = ToolCall::new("Sleep", json!({"duration_ms": format!("{n}{big}")}));
        let result = runtime.dispatch(FamilyPolicy::all(), call).await;
        assert!(result.error.is_some());
    }
    let bytes = store_bytes(state.path());
    assert!(
        bytes < 2 << 20,
        "six refused 10 MB calls made a {bytes}-byte store"
    );
    let records = runtime.store().recent_executions(6).unwrap();
    assert_eq!(records.len(), 6);
    for record in &records {
        assert_eq!(record.status, "error");
        assert!(record.input_bytes > 10 << 20, "{}", record.input_bytes);
        assert!(record.input_json.len() < 4096);
        assert!(
            record.input_json.starts_with("{\"duration_ms\":\""),
            "{}",
            &record.input_json[..40]
        );
        let sha1 = record.input_sha1.as_deref().unwrap();
        assert!(record.input_json.contains(sha1));
    }
    assert_ne!(records[0].input_sha1, records[1].input_sha1);
}

#[tokio::test]
async fn the_log_is_pruned_to_its_size_as_calls_are_recorded_and_by_age_on_open() {
    let workspace = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let open = |retention: ExecutionRetention| {
        let mut config = holon_tool_fixtures::runtime::config_with_state_in(workspace.path());
        config.state_dir = Some(state.path().to_path_buf());
        config.execution_retention = retention;
        Runtime::open(config).unwrap()
    };
    let runtime = open(ExecutionRetention {
        max_age: None,
        max_input_bytes: Some(100_000),
    });
    // Successful calls keep their whole input: 1,000 of 1 kB each.
    let note = "n".repeat(1000);
    for _ in 0..1000 {
        let call = ToolCall::new("Sleep", json!({"duration_ms": 1, "reason": note}));
        let _ = runtime.dispatch(FamilyPolicy::all(), call).await;
    }
    let kept: u64 = runtime
        .store()
        .recent_executions(usize::MAX)
        .unwrap()
        .iter()
        .map(|record| record.input_json.len() as u64)
        .sum();
    assert!(kept <= 100_000 + 256 * 1100, "{kept} bytes of inputs kept");
    assert!(runtime.store().execution_count().unwrap() < 1000);
    drop(runtime);

    // Reopened with an age bound of zero: every record is older than that.
    let runtime = open(ExecutionRetention {
        max_age: Some(std::time::Duration::ZERO),
        max_input_bytes: None,
    });
    std::thread::sleep(std::time::Duration::from_millis(2));
    runtime.store().prune_executions().unwrap();
    assert_eq!(runtime.store().execution_count().unwrap(), 0);
}
