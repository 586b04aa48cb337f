//! Fuzzed dispatch: bytes become a tool name and an input, and go through the
//! registry of every built-in tool against a throwaway runtime.
//!
//! Input format: the bytes up to the first newline pick the tool (a number indexes
//! the sorted tool list, anything else is used as the name itself, so unknown names
//! are fuzzed too); the rest is the input, as JSON when it parses and as a raw string
//! (a freeform input) otherwise.
//!
//! Every call goes through `Registry::check`, and its input, when it is JSON, also
//! through `Registry::check_text` as the text it was sent as: the two entry points
//! must agree unless the text repeats a key (which only the text one can see).
//! Calls of tools that are safe to run in a
//! throwaway workspace also go through `Registry::dispatch`, on a runtime whose clock
//! is paused (so `Sleep` returns at once). A tool that panics, a check that disagrees
//! with dispatch, or an envelope that does not serialize is a crash.

use std::sync::{Arc, OnceLock};

use holon_core::{FamilyPolicy, Registry, ToolCall, ToolCapabilityFamily, ToolContext};
use holon_runtime::{Runtime, RuntimeConfig};
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

/// Splits fuzz bytes into a call, and the input's JSON text when it is JSON.
fn split(data: &[u8]) -> (ToolCall, Option<&str>) {
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
    match serde_json::from_slice::<Value>(body) {
        Ok(input) => (ToolCall::new(name, input), std::str::from_utf8(body).ok()),
        Err(_) => {
            let text = String::from_utf8_lossy(body).into_owned();
            (ToolCall::new(name, Value::String(text)), None)
        }
    }
}

/// Splits fuzz bytes into a call.
pub fn call_from_bytes(data: &[u8]) -> ToolCall {
    split(data).0
}

/// Whether the JSON `text` repeats a key in any of its objects, found by a walk of its
/// own: an error lists only its first problems, so a repeated key can be among those
/// it counts without listing them.
fn repeats_a_key(text: &str) -> bool {
    serde_json::from_str::<RepeatsAKey>(text).is_ok_and(|found| found.0)
}

/// A JSON value walked for repeated keys.
struct RepeatsAKey(bool);

impl<'de> serde::Deserialize<'de> for RepeatsAKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RepeatsAKeyVisitor)
    }
}

struct RepeatsAKeyVisitor;

impl<'de> serde::de::Visitor<'de> for RepeatsAKeyVisitor {
    type Value = RepeatsAKey;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<RepeatsAKey, E> {
        Ok(RepeatsAKey(false))
    }

    fn visit_i64<E>(self, _: i64) -> Result<RepeatsAKey, E> {
        Ok(RepeatsAKey(false))
    }

    fn visit_u64<E>(self, _: u64) -> Result<RepeatsAKey, E> {
        Ok(RepeatsAKey(false))
    }

    fn visit_f64<E>(self, _: f64) -> Result<RepeatsAKey, E> {
        Ok(RepeatsAKey(false))
    }

    fn visit_str<E>(self, _: &str) -> Result<RepeatsAKey, E> {
        Ok(RepeatsAKey(false))
    }

    fn visit_unit<E>(self) -> Result<RepeatsAKey, E> {
        Ok(RepeatsAKey(false))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<RepeatsAKey, A::Error> {
        let mut repeats = false;
        while let Some(RepeatsAKey(inner)) = seq.next_element()? {
            repeats |= inner;
        }
        Ok(RepeatsAKey(repeats))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<RepeatsAKey, A::Error> {
        let mut keys = std::collections::HashSet::new();
        let mut repeats = false;
        while let Some((key, RepeatsAKey(inner))) = map.next_entry::<String, RepeatsAKey>()? {
            repeats |= inner || !keys.insert(key);
        }
        Ok(RepeatsAKey(repeats))
    }
}

/// Runs one fuzz input. Panics on a finding.
pub fn run_one(data: &[u8]) {
    let harness = harness();
    let registry = Registry::global();
    let (call, text) = split(data);
    let context: ToolContext = harness
        .runtime
        .context(FamilyPolicy::all())
        .with_runtime_access();
    let checked = registry.check(&context, call.clone());
    if let Some(text) = text {
        let checked_text = registry.check_text(&context, &call.name, text);
        if !repeats_a_key(text) {
            assert_eq!(
                checked, checked_text,
                "check and check_text disagree on {text}"
            );
        }
    }
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
            result.error.as_deref(),
            "check and dispatch disagree on {}",
            call.input
        ),
    }
    let envelope = serde_json::to_string(&result).expect("the envelope serializes");
    assert!(!envelope.is_empty());
}
