//! The searchable text of a tool, from its definition alone: name, search keywords,
//! description, field names and descriptions, enum values, input examples, family and
//! the module it was declared in (a built-in tool's plane).

use serde_json::Value;

use holon_core::ToolDefinition;

/// How many times the name is repeated in the text: a word of the name says more
/// about the tool than the same word in a field's description.
const NAME_WEIGHT: usize = 3;
/// How many times the first sentence of the description is repeated.
const SUMMARY_WEIGHT: usize = 2;
/// How many times the search keywords are repeated: the author wrote them for search,
/// as much about the tool as its summary.
const KEYWORD_WEIGHT: usize = 2;

/// Module path segments that name no domain (the built-in crates' own layout).
const LAYOUT_SEGMENTS: &[&str] = &["tools", "src", "lib", "mod"];

/// The text BM25 indexes for `definition`.
pub(crate) fn text(definition: &ToolDefinition) -> String {
    let mut text = String::new();
    for _ in 0..NAME_WEIGHT {
        push(&mut text, definition.name());
    }
    let summary = summary(&definition.spec.description);
    for _ in 0..SUMMARY_WEIGHT {
        push(&mut text, &summary);
    }
    for _ in 0..KEYWORD_WEIGHT {
        for keyword in definition.keywords {
            push(&mut text, keyword);
        }
    }
    push(&mut text, &definition.spec.description);
    push(&mut text, definition.family.as_str());
    // The crate's own name is left out: every tool of a crate shares it.
    for segment in definition.defined_at.module.split("::").skip(1) {
        if !LAYOUT_SEGMENTS.contains(&segment) {
            push(&mut text, segment);
        }
    }
    let schema = &*definition.spec.input_schema;
    schema_text(schema, schema, &mut text, 0);
    for example in definition.input_examples.iter() {
        example_text(example, &mut text);
    }
    text
}

/// The first sentence of `description`, at most [`SUMMARY_MAX_CHARS`] characters: the
/// one line a search result shows.
pub(crate) fn summary(description: &str) -> String {
    let first_line = description.lines().next().unwrap_or("").trim();
    let end = first_line
        .match_indices(". ")
        .map(|(at, _)| at + 1)
        .next()
        .unwrap_or(first_line.len());
    let sentence = &first_line[..end];
    if sentence.chars().count() <= SUMMARY_MAX_CHARS {
        return sentence.to_string();
    }
    let cut: String = sentence.chars().take(SUMMARY_MAX_CHARS - 1).collect();
    format!("{}…", cut.trim_end())
}

/// The longest summary, in characters.
pub const SUMMARY_MAX_CHARS: usize = 200;

fn push(text: &mut String, part: &str) {
    text.push_str(part);
    text.push('\n');
}

/// Deep enough for any schema a tool has; a deeper one is cut, not followed.
const MAX_SCHEMA_DEPTH: usize = 12;

/// Field names, their descriptions and enum values of `schema`, following local
/// `$ref`s into `root`'s definitions.
fn schema_text(root: &Value, schema: &Value, text: &mut String, depth: usize) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    let Some(map) = schema.as_object() else {
        return;
    };
    let target = map.get("$ref").and_then(Value::as_str);
    if let Some(resolved) = target
        .and_then(|target| target.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
    {
        schema_text(root, resolved, text, depth + 1);
    }
    // The root's description is the arguments type's, not the tool's.
    if let Some(description) = map.get("description").and_then(Value::as_str)
        && depth > 0
    {
        push(text, description);
    }
    for key in ["enum", "const"] {
        match map.get(key) {
            Some(Value::Array(values)) => values
                .iter()
                .filter_map(Value::as_str)
                .for_each(|value| push(text, value)),
            Some(Value::String(value)) => push(text, value),
            _ => {}
        }
    }
    if let Some(properties) = map.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            push(text, name);
            schema_text(root, property, text, depth + 1);
        }
    }
    if let Some(items) = map.get("items") {
        schema_text(root, items, text, depth + 1);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(branches) = map.get(key).and_then(Value::as_array) {
            for branch in branches {
                schema_text(root, branch, text, depth + 1);
            }
        }
    }
}

/// The string values of an input example (its keys are the field names, already in),
/// but for sentences: a command, a path or a name shows what the tool takes, while a
/// sentence is sample prose (an objective, a message body) whose topic is not the tool's.
fn example_text(example: &Value, text: &mut String) {
    match example {
        Value::String(value) if !is_sentence(value) => push(text, value),
        Value::Array(values) => values.iter().for_each(|value| example_text(value, text)),
        Value::Object(map) => map.values().for_each(|value| example_text(value, text)),
        _ => {}
    }
}

/// Whether `value` reads as prose: several words ending as a sentence ends.
fn is_sentence(value: &str) -> bool {
    let value = value.trim_end();
    value.contains(' ') && value.ends_with(['.', '?', '!'])
}

#[cfg(test)]
mod tests {
    use super::{is_sentence, summary};

    #[test]
    fn example_sentences_are_prose_and_commands_are_not() {
        assert!(is_sentence("Find out why the nightly build fails on ARM."));
        assert!(is_sentence("Is the deploy done? "));
        assert!(!is_sentence("cargo test --quiet 2>&1 | tail -n 20"));
        assert!(!is_sentence("src/main.rs"));
        assert!(!is_sentence("e.g."));
    }

    #[test]
    fn the_summary_is_the_first_sentence() {
        assert_eq!(
            summary("Run a shell command. It runs in the workspace."),
            "Run a shell command."
        );
        assert_eq!(summary("One line\nSecond line"), "One line");
        let long = "word ".repeat(100);
        let cut = summary(&long);
        assert!(cut.chars().count() <= super::SUMMARY_MAX_CHARS && cut.ends_with('…'));
    }
}
