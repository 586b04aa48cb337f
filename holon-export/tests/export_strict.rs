//! Strict lowering on hand-written schemas: the keywords it cannot take, each named,
//! and the documented limits; and the provider names.

use holon_export::{Provider, strict};
use serde_json::{Value, json};

#[test]
fn keywords_without_a_strict_form_are_named() {
    let closed = |property: Value| {
        json!({
            "type": "object",
            "properties": {"x": property},
            "required": ["x"],
            "additionalProperties": false,
        })
    };
    for (property, keyword) in [
        (json!({"allOf": [{"type": "string"}]}), "allOf"),
        (json!({"type": "string", "not": {"const": "a"}}), "not"),
        (json!({"type": "object", "if": {}, "then": {}}), "if"),
        (
            json!({"type": "object", "patternProperties": {"^a": {}}}),
            "patternProperties",
        ),
        (
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            "additionalProperties",
        ),
        (
            json!({"type": "array", "prefixItems": [{"type": "string"}]}),
            "prefixItems",
        ),
        (json!({"type": "array"}), "items"),
        (json!({"description": "anything"}), "type"),
        (json!(true), "type"),
    ] {
        let error = strict::lower(&closed(property.clone())).unwrap_err();
        assert_eq!(error.keyword, keyword, "{property}: {error}");
        assert_eq!(error.path, "/properties/x", "{property}");
        assert!(
            error.to_string().contains(&format!("`{keyword}`")),
            "{error}"
        );
    }
    let error = strict::lower(&json!({"anyOf": [{"type": "object"}]})).unwrap_err();
    assert_eq!(error.keyword, "anyOf");
}

#[test]
fn the_documented_limits_are_enforced() {
    let object = |properties: serde_json::Map<String, Value>| {
        let names: Vec<Value> = properties.keys().map(|k| json!(k)).collect();
        json!({"type": "object", "properties": properties, "required": names, "additionalProperties": false})
    };
    let many: serde_json::Map<String, Value> = (0..=strict::MAX_OBJECT_PROPERTIES)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    let error = strict::lower(&object(many)).unwrap_err();
    assert_eq!(error.keyword, "properties");
    assert!(error.reason.contains("5001"), "{error}");

    let mut deep = json!({"type": "string"});
    for _ in 0..strict::MAX_NESTING_DEPTH {
        deep = object([("inner".to_string(), deep)].into_iter().collect());
    }
    assert!(strict::lower(&deep).is_ok(), "10 levels are allowed");
    let deeper = object([("inner".to_string(), deep)].into_iter().collect());
    assert_eq!(strict::lower(&deeper).unwrap_err().keyword, "properties");

    let values: Vec<Value> = (0..=strict::MAX_ENUM_VALUES).map(|i| json!(i)).collect();
    let schema = object(
        [("e".to_string(), json!({"type": "integer", "enum": values}))]
            .into_iter()
            .collect(),
    );
    assert_eq!(strict::lower(&schema).unwrap_err().keyword, "enum");

    let long: Vec<Value> = (0..300).map(|i| json!(format!("{i:0>60}"))).collect();
    let schema = object(
        [("e".to_string(), json!({"type": "string", "enum": long}))]
            .into_iter()
            .collect(),
    );
    let error = strict::lower(&schema).unwrap_err();
    assert_eq!(error.keyword, "enum");
    assert!(error.reason.contains("15000"), "{error}");
}

#[test]
fn providers_parse_from_their_names() {
    for provider in Provider::ALL {
        assert_eq!(provider.as_str().parse::<Provider>(), Ok(provider));
        assert_eq!(json!(provider), json!(provider.as_str()));
    }
    let error = "openai".parse::<Provider>().unwrap_err();
    assert!(
        error.to_string().contains("openai-chat, openai-responses"),
        "{error}"
    );
}
