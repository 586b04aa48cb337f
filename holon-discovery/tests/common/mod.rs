//! What the discovery tests share: a Web tool, and the registry of the tools a test
//! binary declares (this one included) with the meta-tools.

use holon_core::Registry;
use holon_core::prelude::*;

/// Arguments of GetForecast.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ForecastArgs {
    /// The city.
    pub city: String,
}

/// Tell tomorrow's weather in a city.
#[holon_tool(family = Web)]
fn get_forecast(args: ForecastArgs) -> String {
    args.city
}

/// The tools this test binary declares, with SearchTools and DescribeTool.
pub fn registry() -> Registry {
    let own = env!("CARGO_CRATE_NAME");
    holon_discovery::registry(|meta| meta.defined_at.module.starts_with(own)).unwrap()
}
