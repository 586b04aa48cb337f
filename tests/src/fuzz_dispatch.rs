//! Fuzzed dispatch: bytes become a tool name and an input, and go through the
//! registry of every built-in tool against a throwaway runtime.
//!
//! Input format: the bytes up to the first newline pick the tool (a number indexes
//! the sorted tool list, anything else is used as the name itself, so unknown names
//! are fuzzed too); the rest is the input, as JSON when it parses and as a raw string
//! (a freeform input) otherwise.
//!
//! Every call goes through `Registry::check`; calls of tools that are safe to run in a
//! throwaway workspace also go through `Registry::dispatch`, on a runtime whose clock
//! is paused (so `Sleep` returns at once). A tool that panics, a check that disagrees
//! with dispatch, or an envelope that does not serialize is a crash.

use std::sync::{Arc, OnceLock};

use holon_core::{FamilyPolicy, Registry, ToolCall, ToolCapabilityFamily, ToolContext};
use holon_tools::runtime::{Runtime, RuntimeConfig};
use serde_json::Value;

struct Harness {
    /// Keeps the throwaway workspace alive for the process.
    _workspace: tempfile::TempDir,
    runtime: Arc<Runtime>,
    tokio: tokio::runtime::Runtime,
    names: Vec<String>,
}

fn harness() -> &'static Harness {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(|| {
        let workspace = tempfile::tempdir().expect("a temporary workspace");
        let runtime =
            Runtime::open(RuntimeConfig::in_memory(workspace.path())).expect("a throwaway runtime");
        let tokio = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .expect("a tokio runtime");
        // The built-in tools only: a test binary that also links other tools (the
        // corpus replay does) must map each corpus index to the same tool.
        let names = Registry::global()
            .definitions()
            .filter(|definition| definition.defined_at.module.starts_with("holon_tools"))
            .map(|definition| definition.name().to_string())
            .collect();
        Harness {
            _workspace: workspace,
            runtime,
            tokio,
            names,
        }
    })
}

/// Whether running the tool for real can only touch the throwaway runtime: its own
/// store and workspace. Commands, network access and authority expansion are checked
/// but never run.
fn safe_to_run(name: &str, family: ToolCapabilityFamily) -> bool {
    match family {
        ToolCapabilityFamily::CoreAgent
        | ToolCapabilityFamily::AgentCreation
        | ToolCapabilityFamily::ExternalTrigger => true,
        ToolCapabilityFamily::LocalEnvironment => name == "ApplyPatch",
        ToolCapabilityFamily::AuthorityExpanding | ToolCapabilityFamily::Web => false,
    }
}

/// Splits fuzz bytes into a call.
pub fn call_from_bytes(data: &[u8]) -> ToolCall {
    let (head, body) = match data.iter().position(|b| *b == b'\n') {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let head = String::from_utf8_lossy(head);
    let names = &harness().names;
    let name = match head.trim().parse::<usize>() {
        Ok(index) if !names.is_empty() => names[index % names.len()].clone(),
        _ => head.into_owned(),
    };
    let input = serde_json::from_slice::<Value>(body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()));
    ToolCall::new(name, input)
}

/// Runs one fuzz input. Panics on a finding.
pub fn run_one(data: &[u8]) {
    let harness = harness();
    let registry = Registry::global();
    let call = call_from_bytes(data);
    let context: ToolContext = harness
        .runtime
        .context(FamilyPolicy::all())
        .with_runtime_access();
    let checked = registry.check(&context, call.clone());
    let Some(definition) = registry.get(&call.name) else {
        let error = checked.expect_err("an unknown tool cannot pass the check");
        assert_eq!(error.kind.as_str(), "unknown_tool");
        return;
    };
    if !safe_to_run(definition.name(), definition.family) {
        return;
    }
    let result = harness
        .tokio
        .block_on(registry.dispatch(&context, call.clone()));
    assert_ne!(
        result.error_kind(),
        Some("tool_panicked"),
        "{} panicked on {}: {:?}",
        call.name,
        call.input,
        result.error
    );
    match &checked {
        Ok(()) => assert!(
            !matches!(
                result.error_kind(),
                Some("invalid_tool_input" | "unknown_field" | "result_field_in_input")
            ),
            "check accepted what dispatch rejected: {:?}",
            result.error
        ),
        Err(error) => assert_eq!(
            Some(error),
            result.error.as_ref(),
            "check and dispatch disagree on {}",
            call.input
        ),
    }
    let envelope = serde_json::to_string(&result).expect("the envelope serializes");
    assert!(!envelope.is_empty());
}
