//! The hint of a value of the wrong type: the type the field takes, with an example,
//! and the value itself when only its quotes were wrong (`"250"` for an integer).

use jsonschema::error::TypeKind;
use jsonschema::{JsonType, JsonTypeSet};
use serde_json::Value;

/// How to fix a value of the wrong type, where the types of `kind` are taken. The
/// error's message and field name the path: the hint does not say it again.
pub(crate) fn wrong_type_hint(given: &Value, kind: &TypeKind) -> String {
    let types: Vec<JsonType> = match kind {
        TypeKind::Single(single) => vec![*single],
        TypeKind::Multiple(set) => types_of(*set),
    };
    // `null` is what an optional field also takes; the type meant is the other one.
    let meant: Vec<JsonType> = types
        .iter()
        .copied()
        .filter(|kind| *kind != JsonType::Null)
        .collect();
    let meant = if meant.is_empty() { types } else { meant };
    let names: Vec<&str> = meant.iter().map(|kind| article_name(*kind)).collect();
    if let Some(unquoted) = unquoted(given, &meant) {
        return format!("send {unquoted} without the quotes");
    }
    let example = meant.first().map_or("null", |kind| example(*kind));
    format!("send {}, such as {example}", names.join(" or "))
}

fn types_of(set: JsonTypeSet) -> Vec<JsonType> {
    set.iter().collect()
}

/// A string whose content is a JSON value of one of `types`: that value, as text.
fn unquoted(given: &Value, types: &[JsonType]) -> Option<String> {
    let text = given.as_str()?.trim();
    let parsed: Value = serde_json::from_str(text).ok()?;
    let fits = types.iter().any(|kind| match kind {
        JsonType::Integer => parsed.is_i64() || parsed.is_u64(),
        JsonType::Number => parsed.is_number(),
        JsonType::Boolean => parsed.is_boolean(),
        JsonType::Array => parsed.is_array(),
        JsonType::Object => parsed.is_object(),
        JsonType::Null | JsonType::String => false,
    });
    fits.then(|| parsed.to_string())
}

fn article_name(kind: JsonType) -> &'static str {
    match kind {
        JsonType::Null => "null",
        JsonType::Boolean => "a boolean",
        JsonType::Integer => "an integer",
        JsonType::Number => "a number",
        JsonType::String => "a string",
        JsonType::Array => "an array",
        JsonType::Object => "an object",
    }
}

fn example(kind: JsonType) -> &'static str {
    match kind {
        JsonType::Null => "null",
        JsonType::Boolean => "true",
        JsonType::Integer => "10",
        JsonType::Number => "0.5",
        JsonType::String => r#""text""#,
        JsonType::Array => "[...]",
        JsonType::Object => "{...}",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_quoted_integer_is_told_to_lose_its_quotes() {
        let both = JsonTypeSet::empty()
            .insert(JsonType::Integer)
            .insert(JsonType::Null);
        assert_eq!(
            wrong_type_hint(&json!("250"), &TypeKind::Multiple(both)),
            "send 250 without the quotes"
        );
    }

    #[test]
    fn another_value_gets_the_type_and_an_example() {
        let single = TypeKind::Single(JsonType::Integer);
        assert_eq!(
            wrong_type_hint(&json!("ten"), &single),
            "send an integer, such as 10"
        );
        let string = TypeKind::Single(JsonType::String);
        assert_eq!(
            wrong_type_hint(&json!(["ls"]), &string),
            r#"send a string, such as "text""#
        );
    }
}
