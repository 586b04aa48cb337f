//! The lean build: holon-core without its `validate` feature (this crate's own
//! build, as `.ci/run` tests it alone) refuses to start a registry with a tool whose
//! input schema has constraints serde does not check, naming the tool and the
//! feature. Built with the feature (the workspace's tests unify it on), the same
//! tool must start and its range must be enforced: the test checks whichever build
//! it is, and no build passes by accepting the tool without enforcing the range.

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall};

/// Arguments of BoundedCount.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct BoundedCountArgs {
    /// How many, from 1 to 10.
    #[schemars(range(min = 1, max = 10))]
    count: u32,
}

/// Echoes a count between 1 and 10.
#[holon_tool(family = CoreAgent)]
fn bounded_count(args: BoundedCountArgs) -> u32 {
    args.count
}

#[test]
fn a_constrained_schema_needs_the_validate_feature() {
    match Registry::try_global() {
        Err(error) => {
            let message = error.to_string();
            assert!(message.contains("BoundedCount"), "{message}");
            assert!(
                message.contains("holon-core's `validate` feature"),
                "{message}"
            );
            // The one tool without constraints is not what it refuses.
            assert!(!message.contains("RequestEcho"), "{message}");
        }
        Ok(registry) => {
            let context = ToolContext::new(FamilyPolicy::all());
            let call = ToolCall::new("BoundedCount", serde_json::json!({ "count": 11 }));
            let result = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap()
                .block_on(registry.dispatch(&context, call));
            assert_eq!(
                result.error_kind(),
                Some("invalid_tool_input"),
                "{result:?}"
            );
            let message = &result.error.as_ref().unwrap().message;
            assert!(message.contains("maximum of 10"), "{message}");
        }
    }
}
