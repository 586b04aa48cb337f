//! Declares a tool in this example's own crate and prints the forms it takes for
//! OpenAI (Responses, strict), Anthropic and MCP.
//!
//! ```sh
//! cargo run -p holon-export --example export_forms
//! ```

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry};
use holon_export::{self as export, ExportOptions, Provider};

/// Arguments of ConvertTemperature.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ConvertTemperatureArgs {
    /// The temperature to convert.
    pub value: f64,
    /// The unit of `value`.
    pub from: Unit,
    /// The unit to convert to; defaults to the other one.
    #[serde(default)]
    pub to: Option<Unit>,
}

/// A temperature unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// The converted temperature.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Converted {
    /// The converted temperature, in `unit`.
    pub degrees: f64,
    /// Its unit.
    pub unit: Unit,
}

/// Convert a temperature between Celsius and Fahrenheit.
#[holon_tool(family = CoreAgent, annotations(read_only, idempotent, open_world = false))]
fn convert_temperature(args: ConvertTemperatureArgs) -> Converted {
    let to = args.to.unwrap_or(match args.from {
        Unit::Celsius => Unit::Fahrenheit,
        Unit::Fahrenheit => Unit::Celsius,
    });
    let degrees = match (args.from, to) {
        (Unit::Celsius, Unit::Fahrenheit) => args.value * 9.0 / 5.0 + 32.0,
        (Unit::Fahrenheit, Unit::Celsius) => (args.value - 32.0) * 5.0 / 9.0,
        _ => args.value,
    };
    Converted { degrees, unit: to }
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
        ("OpenAI Responses, strict", Provider::OpenAiResponses, true),
        ("Anthropic Messages", Provider::Anthropic, false),
        ("MCP tools/list", Provider::Mcp, false),
    ];
    for (title, provider, strict) in forms {
        let options = ExportOptions::new(FamilyPolicy::all()).with_strict(strict);
        let export = export::export(registry, provider, options);
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
