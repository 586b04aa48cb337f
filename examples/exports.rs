//! One tool, declared once, as each model API wants it: OpenAI (Chat Completions and
//! Responses, strict), Anthropic, Gemini and MCP. Each printout is the value of that
//! API's `tools` field (for MCP, the `tools/list` result), ready to send.
//!
//! ```sh
//! cargo run --example exports
//! ```

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry};
use holon_export::{ExportOptions, Provider};

/// Arguments of GetForecast.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct GetForecastArgs {
    /// The city to forecast, such as `Lisbon`.
    #[schemars(length(min = 1, max = 100))]
    pub city: String,
    /// How many days ahead, 1 to 7.
    #[serde(default = "one_day")]
    #[schemars(range(min = 1, max = 7))]
    pub days: u8,
}

fn one_day() -> u8 {
    1
}

/// The forecast of one city.
#[derive(Serialize, JsonSchema)]
pub struct Forecast {
    /// The city, as asked.
    pub city: String,
    /// One line a day.
    pub days: Vec<String>,
}

/// Get the weather forecast of a city for the next days.
#[holon_tool(family = Web, annotations(read_only, open_world))]
fn get_forecast(args: GetForecastArgs) -> Forecast {
    let days = (1..=args.days)
        .map(|day| format!("day {day}: no data offline"))
        .collect();
    Forecast {
        city: args.city,
        days,
    }
}

fn main() -> std::process::ExitCode {
    let registry = match Registry::try_global() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("{error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let forms = [
        ("OpenAI Chat Completions", Provider::OpenAiChat, false),
        ("OpenAI Responses, strict", Provider::OpenAiResponses, true),
        ("Anthropic Messages", Provider::Anthropic, false),
        ("Gemini", Provider::Gemini, false),
        ("MCP tools/list", Provider::Mcp, false),
    ];
    for (title, provider, strict) in forms {
        let options = ExportOptions::new(FamilyPolicy::all()).with_strict(strict);
        let export = holon_export::export(registry, provider, options);
        // A warning says what a provider's form could not carry as it is.
        for warning in &export.warnings {
            eprintln!("warning: {warning}");
        }
        match serde_json::to_string_pretty(&export.payload()) {
            Ok(text) => println!("== {title}\n{text}\n"),
            Err(error) => {
                eprintln!("{error}");
                return std::process::ExitCode::FAILURE;
            }
        }
    }
    std::process::ExitCode::SUCCESS
}
