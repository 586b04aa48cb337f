//! `holon_export::testing::check_registry()`: one call in a tool crate's tests that
//! fails with every problem of the linked tools. This binary links two tools with the
//! same name and a tool whose input examples are not valid calls; it never uses
//! `Registry::global()`, which would refuse to start.

use holon_core::prelude::*;
use holon_export::testing::{check_registry, registry_problems};

/// Arguments of Forecast.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct ForecastArgs {
    /// The city.
    city: String,
    /// How many days, 1 to 14.
    #[serde(default)]
    #[schemars(range(min = 1, max = 14))]
    days: Option<u8>,
}

#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    days: u8,
}

/// Forecasts the weather of a city. The second example misspells `days` and asks for
/// too many; the third has the wrong type for `city`.
#[holon_tool(
    family = Web,
    example = r#"{"city": "Oslo"}"#,
    example = r#"{"city": "Oslo", "day": 3, "days": 30}"#,
    example = r#"{"city": 7}"#
)]
fn forecast(args: ForecastArgs) -> Forecast {
    Forecast {
        city: args.city,
        days: args.days.unwrap_or(1),
    }
}

#[derive(Serialize, JsonSchema)]
struct Pong {
    pong: bool,
}

/// Answers a ping.
#[holon_tool(family = CoreAgent)]
fn ping() -> Pong {
    Pong { pong: true }
}

/// Answers a ping, under a name that is taken.
#[holon_tool(family = CoreAgent, name = "Ping")]
fn ping_again() -> Pong {
    Pong { pong: false }
}

#[test]
fn every_problem_is_listed_at_once() {
    let problems = registry_problems();
    assert_eq!(problems.len(), 3, "{problems:#?}");
    let duplicate = problems
        .iter()
        .find(|problem| problem.contains("the tool name `Ping`"))
        .expect("the duplicate name");
    assert!(duplicate.contains("is already taken"), "{duplicate}");

    let second = problems
        .iter()
        .find(|problem| problem.contains("input example 2 "))
        .expect("the second example");
    assert!(second.starts_with("tool `Forecast` at "), "{second}");
    assert!(second.contains("unknown field `day`"), "{second}");
    assert!(second.contains("did you mean `days`?"), "{second}");
    assert!(
        second.contains("30"),
        "every problem, the range too: {second}"
    );

    let third = problems
        .iter()
        .find(|problem| problem.contains("input example 3 "))
        .expect("the third example");
    assert!(third.contains("city"), "{third}");
    assert!(
        !problems
            .iter()
            .any(|problem| problem.contains("input example 1 ")),
        "the first example is valid: {problems:#?}"
    );
}

#[test]
fn check_registry_panics_with_every_problem() {
    let panic = std::panic::catch_unwind(check_registry).expect_err("the tools are broken");
    let message = panic.downcast_ref::<String>().expect("a formatted message");
    assert!(
        message.starts_with("the linked tools have 3 problems:"),
        "{message}"
    );
    for needle in ["`Ping`", "input example 2 ", "input example 3 "] {
        assert!(message.contains(needle), "{needle}: {message}");
    }
}
