//! Schema generation: JSON Schema 2020-12 from schemars, subschemas inlined unless
//! recursive, no `$schema` or `title` noise, keys in a stable (sorted) order.

use schemars::Schema;
use schemars::generate::{Contract, SchemaGenerator, SchemaSettings};
use schemars::transform::{Transform, transform_subschemas};
use serde_json::{Map, Value};

/// A generator with the framework's settings for what a tool reads (its arguments).
/// Use one per root schema.
pub fn generator() -> SchemaGenerator {
    settings().into_generator()
}

/// A generator that keeps every named type in `$defs` under its Rust name, for
/// messages that must name the type (see [`open_objects`]).
pub fn named_generator() -> SchemaGenerator {
    settings()
        .with(|settings| settings.inline_subschemas = false)
        .into_generator()
}

/// A generator for what a tool writes (its result, the envelope): the schema
/// describes the serialized form, so `Option` fields are required and may be null.
pub fn result_generator() -> SchemaGenerator {
    settings()
        .with(|settings| settings.contract = Contract::Serialize)
        .into_generator()
}

fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|settings| {
        settings.meta_schema = None;
        settings.inline_subschemas = true;
    })
}

/// Removes `key` from `map` and keeps the order of the other keys, whichever map type
/// `serde_json` was built with: `Map::remove` swaps the last key into the hole when
/// `preserve_order` is on (llguidance turns it on), and `shift_remove` exists only then.
pub fn remove_key(map: &mut Map<String, Value>, key: &str) -> Option<Value> {
    let value = map.get(key).cloned()?;
    map.retain(|name, _| name != key);
    Some(value)
}

/// Removes the root `description` of an argument schema: it is the Rust doc of the
/// argument type, while the model reads the tool's own description.
pub fn strip_root_description(schema: &mut Value) {
    if let Some(object) = schema.as_object_mut() {
        remove_key(object, "description");
    }
}

struct StripTitles;

impl Transform for StripTitles {
    fn transform(&mut self, schema: &mut Schema) {
        schema.remove("title");
        transform_subschemas(self, schema);
    }
}

/// Gives an integer schema with a format (`uint32`, `int64`, ...) the range of that
/// format where it states no bound of its own: the typed parse refuses a number
/// outside the Rust type's range, so the published schema must too (without it, a
/// `u32` field's schema would allow 4,294,967,296).
struct IntegerRanges;

/// The range of an integer format, as JSON numbers.
fn integer_range(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" => (i64::MIN.into(), i64::MAX.into()),
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "uint64" => (0.into(), u64::MAX.into()),
        // `isize` and `usize`: the range of the platform the schema is built on.
        "int" => (isize::MIN.into(), isize::MAX.into()),
        "uint" => (0.into(), usize::MAX.into()),
        _ => return None,
    })
}

impl Transform for IntegerRanges {
    fn transform(&mut self, schema: &mut Schema) {
        let integer = match schema.get("type") {
            Some(Value::String(ty)) => ty == "integer",
            Some(Value::Array(types)) => types.iter().any(|ty| ty == "integer"),
            _ => false,
        };
        let range = schema
            .get("format")
            .and_then(Value::as_str)
            .and_then(integer_range);
        if let (true, Some((min, max))) = (integer, range) {
            if schema.get("minimum").is_none() && schema.get("exclusiveMinimum").is_none() {
                schema.insert("minimum".to_string(), min);
            }
            if schema.get("maximum").is_none() && schema.get("exclusiveMaximum").is_none() {
                schema.insert("maximum".to_string(), max);
            }
        }
        if integer {
            clamp_to_safe_integers(schema);
        }
        transform_subschemas(self, schema);
    }
}

/// The largest integer a JSON client that reads numbers as IEEE doubles (JavaScript's
/// `Number.MAX_SAFE_INTEGER`) holds exactly: 2^53 - 1.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Narrows the `minimum` and `maximum` of an integer schema to the integers every
/// client holds exactly (a `u64`'s 18446744073709551615 reads as 18446744073709552000
/// in JavaScript). The bound is then narrower than the Rust type's, so the dispatcher
/// validates it (see [`needs_validation`]): schema and runtime agree.
fn clamp_to_safe_integers(schema: &mut Schema) {
    let limit = MAX_SAFE_INTEGER as f64;
    if schema
        .get("maximum")
        .and_then(Value::as_f64)
        .is_some_and(|max| max > limit)
    {
        schema.insert("maximum".to_string(), MAX_SAFE_INTEGER.into());
    }
    if schema
        .get("minimum")
        .and_then(Value::as_f64)
        .is_some_and(|min| min < -limit)
    {
        schema.insert("minimum".to_string(), (-MAX_SAFE_INTEGER).into());
    }
}

/// Turns a generated schema into its canonical JSON: titles removed, integer formats
/// bounded, keys sorted.
pub fn finish(mut schema: Schema) -> Value {
    StripTitles.transform(&mut schema);
    IntegerRanges.transform(&mut schema);
    if let Some(definitions) = schema.get_mut("$defs").and_then(Value::as_object_mut) {
        for definition in definitions.values_mut() {
            if let Ok(sub) = <&mut Schema>::try_from(definition) {
                StripTitles.transform(sub);
                IntegerRanges.transform(sub);
            }
        }
    }
    sort_keys(schema.to_value())
}

/// Rebuilds every object of `value` with its keys in sorted order, whatever map type
/// `serde_json` was built with.
pub fn sort_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key, sort_keys(value)))
                    .collect::<Map<String, Value>>(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sort_keys).collect()),
        other => other,
    }
}

/// The schema of a tool without arguments: an empty closed object.
pub fn empty_object_schema() -> Value {
    serde_json::json!({
        "additionalProperties": false,
        "properties": {},
        "type": "object",
    })
}

/// Whether `schema` is an object schema that rejects unknown properties.
pub fn is_closed_object(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        && schema.get("additionalProperties") == Some(&Value::Bool(false))
}

/// The names of the top-level properties of an object schema.
pub fn property_names(schema: &Value) -> Vec<&str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// Keywords that constrain values beyond what serde's typed parse checks.
const CONSTRAINT_KEYWORDS: &[&str] = &[
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "contains",
    "if",
    "not",
    "dependentRequired",
    "dependentSchemas",
    "const",
    "oneOf",
];

/// Whether `branches` is a list of `{"const": ...}` schemas (how schemars writes a
/// unit-variant enum whose variants have doc comments).
fn is_enum_of_constants(branches: &Value) -> bool {
    branches.as_array().is_some_and(|branches| {
        branches.iter().all(|branch| {
            branch.get("const").is_some()
                && branch.as_object().is_some_and(|b| {
                    b.keys()
                        .all(|k| matches!(k.as_str(), "const" | "type" | "description"))
                })
        })
    })
}

/// What of an input schema the typed parse does not check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unchecked {
    /// A keyword serde does not check: a range of the author's, a pattern, a length...
    pub constraints: bool,
    /// holon's own bound on a 64-bit integer (±[`MAX_SAFE_INTEGER`], narrower than the
    /// Rust type's), which a lean build checks without a schema validator.
    pub safe_integer_bounds: bool,
}

/// The formats of the integer types wider than [`MAX_SAFE_INTEGER`].
const WIDE_INTEGER_FORMATS: &[&str] = &["int64", "uint64", "int", "uint"];

/// What `schema` asks of an input beyond serde's typed parse. Only keywords count:
/// the walk goes from subschema to subschema, so a property named `pattern` or
/// `minimum`, or a `const` or `default` value holding such a key, is data. The range
/// of an integer format (`minimum: 0` and `maximum: 4294967295` of a `uint32`) is
/// checked by serde and does not count.
pub fn unchecked(schema: &Value) -> Unchecked {
    let mut found = Unchecked::default();
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        let Some(map) = value.as_object() else {
            continue;
        };
        let format = map.get("format").and_then(Value::as_str);
        let range = format.and_then(integer_range);
        for key in CONSTRAINT_KEYWORDS {
            let Some(inner) = map.get(*key) else {
                continue;
            };
            // A unit-variant enum with documented variants: serde checks it.
            if *key == "oneOf" && is_enum_of_constants(inner) {
                continue;
            }
            let (format_bound, safe_bound) = match (*key, &range) {
                ("minimum", Some((min, _))) => (
                    inner.as_f64() == min.as_f64(),
                    inner.as_i64() == Some(-MAX_SAFE_INTEGER),
                ),
                ("maximum", Some((_, max))) => (
                    inner.as_f64() == max.as_f64(),
                    inner.as_i64() == Some(MAX_SAFE_INTEGER),
                ),
                _ => (false, false),
            };
            if format_bound {
                continue;
            }
            if safe_bound && format.is_some_and(|format| WIDE_INTEGER_FORMATS.contains(&format)) {
                found.safe_integer_bounds = true;
            } else {
                found.constraints = true;
            }
        }
        for (key, sub, _) in subschemas(map, "") {
            // The constants of a documented unit-variant enum hold nothing more.
            if key != "oneOf" || !is_enum_of_constants(&map["oneOf"]) {
                stack.push(sub);
            }
        }
    }
    found
}

/// Whether the dispatcher must run schema validation for `schema`: true when any
/// subschema uses a keyword serde does not check (see [`unchecked`]).
pub fn needs_validation(schema: &Value) -> bool {
    let unchecked = unchecked(schema);
    unchecked.constraints || unchecked.safe_integer_bounds
}

/// What a schema lets an input hold whose typed parse keeps the last of repeated keys.
#[derive(Default)]
struct Openness {
    /// A subschema that takes any value (`true`, or no type-setting keyword): a
    /// `serde_json::Value` field, whose parse keeps the last of repeated keys.
    any_value: bool,
    /// An object that is not closed: a map, whose parse keeps the last of repeated keys.
    open_object: bool,
}

/// The keys whose value is one subschema, a list of them, or a map of them.
const SUBSCHEMA_KEYS: &[&str] = &[
    "items",
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
];
const SUBSCHEMA_LIST_KEYS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
const SUBSCHEMA_MAP_KEYS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords that restrict what a subschema takes to something the typed parse bounds.
const TYPE_SETTING_KEYS: &[&str] = &["type", "$ref", "enum", "const", "anyOf", "oneOf", "allOf"];

fn has_type(schema: &serde_json::Map<String, Value>, wanted: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(kind)) => kind == wanted,
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == wanted),
        _ => false,
    }
}

fn openness(root: &Value) -> Openness {
    let mut found = Openness::default();
    let mut stack = vec![root];
    while let Some(schema) = stack.pop() {
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(true) => {
                found.any_value = true;
                continue;
            }
            _ => continue,
        };
        if !TYPE_SETTING_KEYS.iter().any(|key| map.contains_key(*key)) {
            found.any_value = true;
        }
        if has_type(map, "object")
            && (map.get("additionalProperties") != Some(&Value::Bool(false))
                || map.contains_key("patternProperties"))
        {
            found.open_object = true;
        }
        if has_type(map, "array") && !map.contains_key("items") && !map.contains_key("prefixItems")
        {
            found.any_value = true;
        }
        for (key, inner) in map {
            if SUBSCHEMA_KEYS.contains(&key.as_str()) {
                stack.push(inner);
            } else if SUBSCHEMA_LIST_KEYS.contains(&key.as_str()) {
                stack.extend(inner.as_array().into_iter().flatten());
            } else if SUBSCHEMA_MAP_KEYS.contains(&key.as_str()) {
                stack.extend(inner.as_object().into_iter().flat_map(|m| m.values()));
            }
        }
    }
    found
}

/// Whether every object `schema` admits is a closed one of known fields, and no
/// field takes any value: then serde's derived parse refuses every repeated key.
pub(crate) fn every_object_is_closed(schema: &Value) -> bool {
    let found = openness(schema);
    !found.any_value && !found.open_object
}

/// `schema`, or what its local `$ref` (`#` or `#/$defs/...`) points to in `root`.
/// Bounded: a `$ref` chain is short, and a cycle of them must not hang.
pub fn resolve_local_ref<'s>(root: &'s Value, mut schema: &'s Value) -> &'s Value {
    for _ in 0..16 {
        let target = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer));
        match target {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integer_formats_carry_their_range() {
        let schema = Schema::try_from(json!({
            "type": "object",
            "properties": {
                "small": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
                "bounded": {"type": "integer", "format": "uint64", "minimum": 1, "maximum": 100},
                "signed": {"type": "integer", "format": "int8"},
                "large": {"type": "integer", "format": "uint64", "minimum": 0},
                "wide": {"type": "integer", "format": "int64"},
                "ratio": {"type": "number", "format": "double"}
            }
        }))
        .unwrap_or_default();
        let schema = finish(schema);
        let properties = &schema["properties"];
        assert_eq!(properties["small"]["maximum"], json!(u32::MAX));
        assert_eq!(
            properties["bounded"]["maximum"],
            json!(100),
            "its own bound stays"
        );
        assert_eq!(
            properties["large"]["maximum"],
            json!(MAX_SAFE_INTEGER),
            "a u64's range is clamped to what a JSON client holds exactly"
        );
        assert_eq!(properties["wide"]["minimum"], json!(-MAX_SAFE_INTEGER));
        assert_eq!(properties["wide"]["maximum"], json!(MAX_SAFE_INTEGER));
        assert_eq!(properties["signed"]["minimum"], json!(-128));
        assert_eq!(properties["signed"]["maximum"], json!(127));
        assert!(properties["ratio"].get("maximum").is_none());
        // A format's own range is what serde checks: no validation is needed for it,
        // but a narrower bound needs it.
        let mut unbounded = schema.clone();
        if let Some(properties) = unbounded["properties"].as_object_mut() {
            properties.remove("bounded");
            properties.remove("large");
            properties.remove("wide");
        }
        assert!(!needs_validation(&unbounded));
        // The clamped bound of a 64-bit integer is narrower than serde's: validated.
        let large = json!({"type": "object", "properties": {"n": properties["large"].clone()}});
        assert!(needs_validation(&large));
        assert!(needs_validation(&schema));
    }

    #[test]
    fn only_keywords_count_as_constraints_never_property_names() {
        // Fields named like keywords, each of a type serde checks alone.
        let named = json!({
            "type": "object", "additionalProperties": false,
            "properties": {
                "pattern": {"type": "string"},
                "format": {"type": "string"},
                "minimum": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                "maxLength": {"type": "boolean"},
                "mode": {"type": "string", "default": "a", "examples": [{"pattern": "x"}]}
            }
        });
        assert_eq!(unchecked(&named), Unchecked::default());
        assert!(!needs_validation(&named));
        let constrained = json!({
            "type": "object",
            "properties": {"pattern": {"type": "string", "pattern": "^a"}}
        });
        assert!(unchecked(&constrained).constraints);
    }

    #[test]
    fn the_safe_bound_of_64_bit_integers_is_told_from_other_constraints() {
        let schema = Schema::try_from(json!({
            "type": "object",
            "properties": {
                "offset": {"type": "integer", "format": "uint64", "minimum": 0},
                "delta": {"type": "integer", "format": "int64"},
                "count": {"type": "integer", "format": "uint", "minimum": 0},
                "small": {"type": "integer", "format": "int32"}
            }
        }))
        .unwrap_or_default();
        let schema = finish(schema);
        assert_eq!(
            unchecked(&schema),
            Unchecked {
                constraints: false,
                safe_integer_bounds: true
            }
        );
        assert!(needs_validation(&schema));
        // An author's own range on a 64-bit integer is a constraint.
        let ranged = Schema::try_from(json!({
            "type": "object",
            "properties": {"n": {"type": "integer", "format": "int64", "minimum": 1, "maximum": 10}}
        }))
        .unwrap_or_default();
        assert!(unchecked(&finish(ranged)).constraints);
    }

    #[test]
    fn tells_closed_schemas_from_maps_and_any_values() {
        let closed = json!({
            "type": "object", "additionalProperties": false,
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "mode": {"anyOf": [{"enum": ["a", "b"]}, {"type": "null"}]},
                "inner": {"type": "object", "additionalProperties": false, "properties": {"x": {"type": "integer"}}},
            }
        });
        assert!(every_object_is_closed(&closed));

        let with = |field: Value| {
            let mut schema = closed.clone();
            schema["properties"]["extra"] = field;
            schema
        };
        let map = with(json!({"type": "object", "additionalProperties": {"type": "string"}}));
        assert!(!every_object_is_closed(&map));
        for any in [
            json!(true),
            json!({"description": "anything"}),
            json!({"type": "array"}),
        ] {
            let schema = with(any);
            assert!(!every_object_is_closed(&schema), "{schema}");
        }
        let recursive = with(json!({"anyOf": [{"$ref": "#"}, {"type": "null"}]}));
        assert!(every_object_is_closed(&recursive));
    }
}

/// Keywords whose value is one subschema.
const SUBSCHEMA: &[&str] = &[
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
];

/// Keywords whose value is a list of subschemas.
const SUBSCHEMA_LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];

/// Keywords whose value maps names to subschemas.
const SUBSCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "dependentSchemas",
];

/// Keywords whose subschemas apply to the same value as the schema holding them.
const IN_PLACE: &[&str] = &[
    "allOf",
    "anyOf",
    "oneOf",
    "if",
    "then",
    "else",
    "not",
    "dependentSchemas",
];

/// The objects with named properties nested in `schema` that accept unknown properties
/// (no `additionalProperties: false`), each named by its Rust type (its `$defs` key in a
/// schema from [`named_generator`], or its `title`) and its JSON pointer. A map
/// (`additionalProperties` a schema, no `properties`) is not one: its keys are data. A
/// conditional (`if`, `allOf`, ...) inside a closed object is covered by that object.
pub fn open_objects(schema: &Value) -> Vec<String> {
    let mut open = Vec::new();
    // (subschema, its pointer, whether a closed schema of the same value encloses it)
    let mut stack = vec![(schema, String::new(), false)];
    while let Some((node, pointer, covered)) = stack.pop() {
        let Some(map) = node.as_object() else {
            continue;
        };
        let closed = |key: &str| map.get(key) == Some(&Value::Bool(false));
        let is_closed = closed("additionalProperties") || closed("unevaluatedProperties");
        // The root is the arguments struct itself, which the registry checks apart.
        if !pointer.is_empty() && !covered && !is_closed && map.contains_key("properties") {
            let name = pointer
                .strip_prefix("/$defs/")
                .filter(|name| !name.contains('/'))
                .or_else(|| map.get("title").and_then(Value::as_str));
            open.push(match name {
                Some(name) => format!("`{name}` (at `#{pointer}`)"),
                None => format!("the object at `#{pointer}`"),
            });
        }
        let in_place = covered || is_closed;
        for (key, sub, at) in subschemas(map, &pointer) {
            stack.push((sub, at, IN_PLACE.contains(&key) && in_place));
        }
    }
    open.sort();
    open
}

/// The subschemas directly inside the schema `map` at `pointer`: each with the keyword
/// that holds it and its own pointer.
fn subschemas<'s>(
    map: &'s Map<String, Value>,
    pointer: &str,
) -> Vec<(&'static str, &'s Value, String)> {
    let mut found = Vec::new();
    for key in SUBSCHEMA {
        if let Some(sub) = map.get(*key) {
            found.push((*key, sub, format!("{pointer}/{key}")));
        }
    }
    for key in SUBSCHEMA_LISTS {
        if let Some(Value::Array(items)) = map.get(*key) {
            for (index, sub) in items.iter().enumerate() {
                found.push((*key, sub, format!("{pointer}/{key}/{index}")));
            }
        }
    }
    for key in SUBSCHEMA_MAPS {
        if let Some(Value::Object(entries)) = map.get(*key) {
            for (name, sub) in entries {
                found.push((*key, sub, format!("{pointer}/{key}/{name}")));
            }
        }
    }
    found
}

/// Calls `visit` on `schema` and on every subschema in it (never on a keyword's data,
/// such as the values of `enum`, `const` or `default`).
fn for_each_subschema_mut(schema: &mut Value, visit: &mut impl FnMut(&mut Map<String, Value>)) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    visit(map);
    for (key, value) in map.iter_mut() {
        if SUBSCHEMA.contains(&key.as_str()) {
            for_each_subschema_mut(value, visit);
        } else if SUBSCHEMA_LISTS.contains(&key.as_str()) {
            if let Value::Array(items) = value {
                items
                    .iter_mut()
                    .for_each(|item| for_each_subschema_mut(item, visit));
            }
        } else if SUBSCHEMA_MAPS.contains(&key.as_str())
            && let Value::Object(entries) = value
        {
            entries
                .values_mut()
                .for_each(|item| for_each_subschema_mut(item, visit));
        }
    }
}

/// The `format` values schemars writes for Rust numbers. JSON Schema 2020-12 does not
/// define them and clients warn on each; the bounds [`finish`] derived from them stay.
const RUST_NUMBER_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "int", "uint8", "uint16", "uint32", "uint64", "uint",
    "float", "double",
];

/// Makes a canonical schema fit to publish: no `format` of a Rust number type (the
/// bounds stay) and no `"default": null` (an absent optional field says as much).
/// Call it after [`needs_validation`], which reads the formats.
pub fn publishable(schema: &mut Value) {
    for_each_subschema_mut(schema, &mut |map| {
        if map
            .get("format")
            .and_then(Value::as_str)
            .is_some_and(|format| RUST_NUMBER_FORMATS.contains(&format))
        {
            remove_key(map, "format");
        }
        if map.get("default") == Some(&Value::Null) {
            remove_key(map, "default");
        }
    });
}

#[cfg(test)]
mod publish_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rust_number_formats_and_null_defaults_are_not_published() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "format": "uint64", "minimum": 0, "maximum": 9},
                "ratio": {"type": ["number", "null"], "format": "double", "default": null},
                "when": {"type": "string", "format": "date-time"},
                "mode": {"enum": [null, "a"], "default": "a"},
                "nested": {"items": {"type": "integer", "format": "int32", "default": null}},
                "format": {"const": {"format": "uint8", "default": null}}
            }
        });
        publishable(&mut schema);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "count": {"type": "integer", "minimum": 0, "maximum": 9},
                    "ratio": {"type": ["number", "null"]},
                    "when": {"type": "string", "format": "date-time"},
                    "mode": {"enum": [null, "a"], "default": "a"},
                    "nested": {"items": {"type": "integer"}},
                    "format": {"const": {"format": "uint8", "default": null}}
                }
            })
        );
    }

    #[test]
    fn open_objects_are_named_by_title() {
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "inner": {"title": "Inner", "type": "object", "properties": {"x": {}}},
                "map": {"type": "object", "additionalProperties": {"type": "string"}},
                "closed": {"type": "object", "properties": {}, "additionalProperties": false},
                "properties": {"type": "string"},
                "variant": {"oneOf": [{"type": "object", "properties": {"y": {}}}]}
            },
            // A conditional on the closed root constrains the same, closed, object.
            "if": {"properties": {"closed": {"const": {}}}},
            "then": {"required": ["inner"]}
        });
        assert_eq!(
            open_objects(&schema),
            [
                "`Inner` (at `#/properties/inner`)",
                "the object at `#/properties/variant/oneOf/0`"
            ]
        );
    }
}
