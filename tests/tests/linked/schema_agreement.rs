//! The schema and the runtime agree: for every registered tool, inputs generated from
//! its published input schema (valid instances, and mutations of them: wrong types,
//! missing required fields, unknown and result fields, out-of-range numbers, strings
//! of the wrong length, values outside enums, deep nesting) get the same verdict from
//! the dispatcher as from a JSON Schema 2020-12 validator on the published schema.
//!
//! The dispatcher's verdict is `Registry::check`, which runs every dispatch step up to
//! the handler: no tool runs, so tools with side effects are covered too. The one rule
//! the dispatcher adds to the schema, documented in docs/dispatch.md, is that inputs nested
//! deeper than `MAX_INPUT_DEPTH` are refused.
//!
//! The tools come from the registry, so a tool added later is covered without a change
//! here. `HOLON_AGREEMENT_SEED` and `HOLON_AGREEMENT_CASES` override the fixed seed and
//! the number of inputs per tool, and `HOLON_AGREEMENT_TOOL` runs one tool only; a
//! failure prints the seed that reproduces it.

#[path = "schema_agreement/generate.rs"]
mod generate;
#[path = "schema_agreement/scalars.rs"]
mod scalars;

use std::cell::Cell;
use std::time::Instant;

use holon_core::{
    FamilyPolicy, MAX_INPUT_DEPTH, Registry, ToolCall, ToolContext, ToolDefinition, ToolError,
};
use holon_downstream_tools as _;
use holon_tools as _;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};
use serde_json::Value;

use generate::Generator;

/// The seed CI runs with.
const DEFAULT_SEED: u64 = 20_201_212;
/// Inputs per tool in CI.
const DEFAULT_CASES: u32 = 2_000;

fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
}

/// A seed of its own for each tool, so that adding a tool changes no other's inputs.
fn tool_seed(seed: u64, name: &str) -> u64 {
    name.bytes()
        .fold(seed ^ 0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)
        })
}

/// How deeply `value` nests, the root being level 1.
fn depth(value: &Value) -> usize {
    let children = match value {
        Value::Array(items) => items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    };
    1 + children
}

/// The error kinds that mean "rejected as invalid input".
fn is_input_rejection(error: &ToolError) -> bool {
    matches!(
        error.kind.as_str(),
        "invalid_tool_input" | "unknown_field" | "result_field_in_input"
    )
}

/// What one tool's run saw.
struct Tally {
    accepted: u32,
    rejected: u32,
}

fn agree(
    registry: &Registry,
    context: &ToolContext,
    definition: &ToolDefinition,
    seed: u64,
    cases: u32,
) -> Result<Tally, String> {
    let name = definition.name();
    let schema = &definition.spec.input_schema;
    let validator = jsonschema::draft202012::new(schema)
        .map_err(|error| format!("{name}: its input schema does not compile: {error}"))?;
    let decoys = definition
        .result_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default();
    let generator = Generator::new(schema, decoys, definition.spec.freeform_grammar.is_some());
    let seed = tool_seed(seed, name);
    let config = Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        max_shrink_iters: 1_000,
        max_shrink_time: 10_000,
        ..Config::default()
    };
    let (accepted, rejected) = (Cell::new(0u32), Cell::new(0u32));
    let outcome = TestRunner::new(config).run(&generator.inputs(), |input| {
        let schema_error = validator.iter_errors(&input).next().map(|e| e.to_string());
        let too_deep = depth(&input) > MAX_INPUT_DEPTH;
        let expected = schema_error.is_none() && !too_deep;
        let verdict = registry.check(context, ToolCall::new(name, input));
        match (&verdict, expected) {
            (Err(error), _) if !is_input_rejection(error) => {
                return Err(TestCaseError::fail(format!(
                    "the dispatcher answered with the error kind `{}`, which is not an input rejection: {error}",
                    error.kind
                )));
            }
            (Ok(()), true) => accepted.set(accepted.get() + 1),
            (Err(_), false) => rejected.set(rejected.get() + 1),
            (Ok(()), false) => {
                let why = schema_error.unwrap_or_else(|| "it nests too deep".to_string());
                return Err(TestCaseError::fail(format!(
                    "the validator rejects ({why}); the dispatcher accepts"
                )));
            }
            (Err(error), true) => {
                return Err(TestCaseError::fail(format!(
                    "the validator accepts; the dispatcher rejects ({error})"
                )));
            }
        }
        Ok(())
    });
    match outcome {
        Ok(()) => Ok(Tally {
            accepted: accepted.get(),
            rejected: rejected.get(),
        }),
        Err(TestError::Fail(reason, input)) => Err(format!(
            "{name}: {reason}\n  input (shrunk): {input}\n  tool seed: {seed}"
        )),
        Err(TestError::Abort(reason)) => Err(format!("{name}: aborted: {reason}")),
    }
}

#[test]
fn every_tool_agrees_with_its_published_input_schema() {
    let seed = env_number("HOLON_AGREEMENT_SEED").unwrap_or(DEFAULT_SEED);
    let cases = env_number("HOLON_AGREEMENT_CASES").unwrap_or(DEFAULT_CASES);
    let registry = Registry::global();
    let context = ToolContext::new(FamilyPolicy::all()).with_runtime_access();
    let mut problems = Vec::new();
    let only: Option<String> = env_number("HOLON_AGREEMENT_TOOL");
    for definition in registry.definitions() {
        if only
            .as_deref()
            .is_some_and(|name| name != definition.name())
        {
            continue;
        }
        let started = Instant::now();
        match agree(registry, &context, definition, seed, cases) {
            Ok(tally) => {
                println!(
                    "{}: {} inputs, {} accepted, {} rejected, in {:.2?}",
                    definition.name(),
                    tally.accepted + tally.rejected,
                    tally.accepted,
                    tally.rejected,
                    started.elapsed()
                );
                // Both verdicts must be exercised, or the agreement says little.
                let floor = cases / 20;
                if tally.accepted < floor || tally.rejected < floor {
                    problems.push(format!(
                        "{}: the generator is too one-sided ({} accepted, {} rejected of {cases}); teach it this schema",
                        definition.name(),
                        tally.accepted,
                        tally.rejected
                    ));
                }
            }
            Err(problem) => {
                println!("{}: FAILED in {:.2?}", definition.name(), started.elapsed());
                problems.push(problem);
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the dispatcher and the published schemas disagree (HOLON_AGREEMENT_SEED={seed}, HOLON_AGREEMENT_CASES={cases}):\n\n{}",
        problems.join("\n\n")
    );
}
