use holon_core::prelude::*;

/// Arguments of Count.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CountArgs {
    /// The text whose words are counted.
    pub text: String,
}

#[derive(Serialize, JsonSchema)]
pub struct WordCount {
    pub words: usize,
}

/// Counts words. Cannot fail, so it returns the value itself.
#[holon_tool(family = CoreAgent)]
fn count_words(args: CountArgs) -> WordCount {
    WordCount {
        words: args.text.split_whitespace().count(),
    }
}

/// A standard type is a result too.
#[holon_tool(family = CoreAgent)]
async fn count_chars(args: CountArgs) -> usize {
    args.text.chars().count()
}

fn main() {
    let registry = holon_core::Registry::global();
    assert!(registry.get("CountWords").is_some());
    assert!(registry.get("CountChars").is_some());
}
