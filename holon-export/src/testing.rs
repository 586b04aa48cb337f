//! A test helper for tool crates: one call that fails `cargo test` with every problem
//! the tools linked into the test program would have in production.
//!
//! ```no_run
//! use my_tools as _; // linked, so its tools are registered
//!
//! #[test]
//! fn the_tools_are_valid() {
//!     holon_export::testing::check_registry();
//! }
//! # mod my_tools {}
//! ```
//!
//! It lives here rather than in `holon_core::testing` because it checks the provider
//! exports, and `holon-export` depends on `holon-core`. It is always compiled: it adds
//! no dependency, and a tool crate reaches it through a dev-dependency only.

use holon_core::{FamilyPolicy, Registry, registered_tools};

use crate::{ExportOptions, Provider, export_tool, rules};

/// Every problem of the linked tools: what [`Registry::global`] would refuse to start
/// with (duplicate names, open objects, an input example that is not a valid call,
/// ...), then every way a model-facing tool's export breaks a provider's rules (strict
/// OpenAI schemas included). Empty when the tools are fine.
pub fn registry_problems() -> Vec<String> {
    // A registry of its own rather than the global one: a test that checks the
    // problems does not poison the global registry for the other tests.
    let registry = match Registry::from_tools(registered_tools()) {
        Ok(registry) => registry,
        Err(error) => return error.problems,
    };
    let policy = FamilyPolicy::all();
    let mut problems = Vec::new();
    for definition in registry.model_definitions(policy) {
        for provider in Provider::ALL {
            for strict in [false, true] {
                let options = ExportOptions::new(policy).with_strict(strict);
                let (tool, _) = export_tool(definition, provider, options);
                for problem in rules::check_tool(provider, &tool) {
                    let mode = if strict { " (strict)" } else { "" };
                    problems.push(format!(
                        "tool `{}` at {}: its {provider}{mode} export is invalid: {problem}",
                        definition.name(),
                        definition.defined_at
                    ));
                }
            }
        }
    }
    problems.dedup();
    problems
}

/// Panics with every problem [`registry_problems`] finds, one a line.
///
/// # Panics
/// When any linked tool has a problem.
pub fn check_registry() {
    let problems = registry_problems();
    if problems.is_empty() {
        return;
    }
    let mut message = format!(
        "the linked tools have {} problem{}:\n",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    );
    for problem in &problems {
        message.push_str(&format!("  - {problem}\n"));
    }
    panic!("{message}");
}
