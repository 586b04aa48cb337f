use holon_core::prelude::*;

/// Arguments of a page of items: the same struct serves several tools, each with its
/// own item type.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct PageArgs<T> {
    /// The items to page through.
    pub items: Vec<T>,
    /// How many items to return.
    pub limit: usize,
}

#[derive(Serialize, JsonSchema)]
pub struct Page<T> {
    pub items: Vec<T>,
}

/// Returns the first `limit` numbers.
#[holon_tool(family = CoreAgent)]
fn first_numbers(args: PageArgs<u32>) -> Page<u32> {
    Page {
        items: args.items.into_iter().take(args.limit).collect(),
    }
}

/// Returns the first `limit` words.
#[holon_tool(family = CoreAgent)]
fn first_words(args: &PageArgs<String>) -> Page<String> {
    Page {
        items: args.items.iter().take(args.limit).cloned().collect(),
    }
}

fn main() {
    let registry = holon_core::Registry::global();
    let numbers = registry.get("FirstNumbers").expect("registered");
    let schema = numbers.spec.input_schema.to_string();
    assert!(schema.contains("\"integer\""), "{schema}");
    assert!(registry.get("FirstWords").is_some());
}
