//! The search over a registry: what each declaration says is found, names are
//! found through typos, and a caller never finds what its scope hides.

use std::sync::Arc;

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCapabilityFamily};
use holon_discovery::search::{SearchIndex, SearchScope};

/// Units of a forecast.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum Units {
    /// Degrees Celsius.
    Metric,
    /// Degrees Fahrenheit.
    Imperial,
}

/// Arguments of GetForecast.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ForecastArgs {
    /// The city, as its inhabitants write it.
    pub city: String,
    /// The units of the temperatures.
    pub units: Units,
}

/// A forecast.
#[derive(Serialize, JsonSchema)]
pub struct Forecast {
    /// Degrees.
    pub high: i32,
}

/// Tell tomorrow's weather in a place.
#[holon_tool(family = Web, example = r#"{"city": "Reykjavik", "units": "metric"}"#)]
fn get_forecast(args: ForecastArgs) -> Forecast {
    let _ = (args.city, args.units);
    Forecast { high: 3 }
}

/// Arguments of SendInvoice.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct InvoiceArgs {
    /// The customer billed.
    pub customer: String,
    /// The amount due, in cents.
    pub amount_cents: u64,
}

/// Bill a customer: email them an invoice for an amount.
#[holon_tool(family = CoreAgent)]
fn send_invoice(args: InvoiceArgs) -> u64 {
    args.amount_cents
}

/// Arguments of DeleteBranch.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct BranchArgs {
    /// The git branch to remove.
    pub branch: String,
}

/// Remove a branch of the repository.
#[holon_tool(family = LocalEnvironment, keywords = ["prune", "git push --delete"])]
fn delete_branch(args: BranchArgs) -> String {
    args.branch
}

/// Rotate the signing keys of the runtime.
#[holon_tool(family = CoreAgent, visibility = runtime)]
fn rotate_keys() -> bool {
    true
}

fn index() -> Arc<SearchIndex> {
    let registry: &'static Registry =
        Box::leak(Box::new(Registry::of_module(module_path!()).unwrap()));
    SearchIndex::of(registry)
}

fn names(index: &SearchIndex, query: &str, scope: SearchScope) -> Vec<String> {
    index
        .search(query, 10, scope)
        .into_iter()
        .map(|hit| hit.name.to_string())
        .collect()
}

fn everything() -> SearchScope {
    SearchScope::model(FamilyPolicy::all())
}

#[test]
fn every_part_of_a_declaration_is_searched() {
    let index = index();
    // The description, a field's description, an enum value, an example's value.
    for query in [
        "what will the weather be",
        "temperature in Fahrenheit",
        "imperial",
        "reykjavik",
    ] {
        assert_eq!(
            names(&index, query, everything())[..1],
            ["GetForecast"],
            "{query}"
        );
    }
    assert_eq!(
        names(&index, "amount due in cents", everything())[0],
        "SendInvoice"
    );
    assert_eq!(
        names(&index, "remove a git branch", everything())[0],
        "DeleteBranch"
    );
    // The family is text too.
    assert_eq!(names(&index, "web", everything())[0], "GetForecast");
}

#[test]
fn declared_keywords_are_searched() {
    let index = index();
    // Words of DeleteBranch's keywords only, in none of the tools' text.
    for query in ["prune the stale ones", "push --delete"] {
        assert_eq!(
            names(&index, query, everything())
                .first()
                .map(String::as_str),
            Some("DeleteBranch"),
            "{query}"
        );
    }
}

#[test]
fn names_are_found_through_typos() {
    let index = index();
    for query in ["GetForcast", "get_forecast", "get forecast", "SendInvoce"] {
        let found = names(&index, query, everything());
        assert!(
            found[0] == "GetForecast" || found[0] == "SendInvoice",
            "{query}: {found:?}"
        );
    }
    assert_eq!(
        names(&index, "delete the branhc", everything())[0],
        "DeleteBranch"
    );
}

#[test]
fn english_words_are_not_read_as_typos_of_names() {
    let index = index();
    // "brunch" is one edit from DeleteBranch's "branch", but a word of its own.
    assert!(names(&index, "brunch", everything()).is_empty());
    assert_eq!(
        names(&index, "delete the brnach", everything())[0],
        "DeleteBranch"
    );
}

#[test]
fn related_terms_bridge_words_no_tool_has_and_rank_below_the_words_themselves() {
    let index = index();
    // No tool says "client" or "money": the related-terms list relates them to
    // SendInvoice's "customer" and "amount".
    assert_eq!(
        names(&index, "client money", everything())[..1],
        ["SendInvoice"]
    );
    // A word a tool has outranks a related term of another word.
    assert_eq!(
        names(&index, "client weather", everything())[..2],
        ["GetForecast", "SendInvoice"]
    );
}

#[test]
fn the_scope_hides_other_families_and_runtime_only_tools() {
    let index = index();
    let no_web = SearchScope::model(FamilyPolicy::all().without(ToolCapabilityFamily::Web));
    assert!(!names(&index, "weather forecast", no_web).contains(&"GetForecast".into()));
    assert!(names(&index, "rotate signing keys", everything()).is_empty());
    assert!(!names(&index, "RotateKeys", everything()).contains(&"RotateKeys".into()));
    let runtime = SearchScope {
        policy: FamilyPolicy::all(),
        runtime_access: true,
    };
    assert_eq!(
        names(&index, "rotate signing keys", runtime),
        ["RotateKeys"]
    );
}

#[test]
fn hits_are_ranked_limited_and_summarized() {
    let index = index();
    let hits = index.search("customer invoice weather branch", 2, everything());
    assert_eq!(hits.len(), 2);
    assert!(hits[0].score >= hits[1].score);
    let invoice = index.search("invoice", 1, everything());
    assert_eq!(
        invoice[0].summary,
        "Bill a customer: email them an invoice for an amount."
    );
}

#[test]
fn the_index_is_built_once_per_registry() {
    let registry = Registry::of_module(module_path!()).unwrap();
    let first = SearchIndex::of(&registry);
    assert!(Arc::ptr_eq(&first, &SearchIndex::of(&registry)));
    let other = Registry::of_module(module_path!()).unwrap();
    assert!(!Arc::ptr_eq(&first, &SearchIndex::of(&other)));
}

#[test]
fn hostile_queries_find_nothing_or_something_but_never_panic() {
    let index = index();
    for query in [
        "",
        "   ",
        "🦀🦀🦀",
        &"a".repeat(100_000),
        &"é".repeat(5000),
        "\0\u{202e}",
    ] {
        let hits = index.search(query, 5, everything());
        assert!(hits.len() <= 5);
    }
    assert!(index.search("weather", 0, everything()).is_empty());
}
