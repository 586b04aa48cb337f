//! Every violation a tool's input schema finds in an input, from the validator's full
//! error iterator, with the registry's hints (the closest field, the type meant).
//! Only with holon-core's `validate` feature.

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use serde_json::{Value, json};

use crate::input::hints::closest;
use crate::input::problems::{
    Category, Problem, Problems, join_path, missing_field, unknown_field,
};
use crate::input::type_hints::wrong_type_hint;
use crate::registry::Entry;
use crate::result::error::ToolError;
use crate::schema::property_names;

/// Every schema violation of `value` (which is no deeper than [`MAX_INPUT_DEPTH`]).
pub(crate) fn collect(entry: &Entry, value: &Value, out: &mut Problems) {
    let Some(validator) = entry.full_validator() else {
        return;
    };
    for error in validator.iter_errors(value) {
        schema_problems(entry, &error, out);
    }
}

/// The instance path of a schema error, as a field path.
fn location(error: &ValidationError<'_>) -> String {
    let mut path = String::new();
    for segment in error.instance_path().iter() {
        match segment {
            LocationSegment::Property(key) => path = join_path(&path, &key),
            LocationSegment::Index(index) => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

/// The problems of one schema violation: an `additionalProperties` error names each
/// unexpected field, and a failed `anyOf`/`oneOf` whose branches all but one fail
/// on the value's type alone (an `Option<Struct>`: the struct, or null) reports the
/// problems inside that one branch.
fn schema_problems(entry: &Entry, error: &ValidationError<'_>, out: &mut Problems) {
    let path = location(error);
    let schema = &entry.definition.spec.input_schema;
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let expected = properties_beside(schema, error);
            for field in unexpected {
                out.add(Category::UnknownField, || {
                    entry.enrich(unknown_field(field, &path, &expected))
                });
            }
        }
        ValidationErrorKind::Required { property } => {
            let property = property.as_str().unwrap_or_default();
            out.push(Problem::new(
                Category::MissingField,
                missing_field(join_path(&path, property)),
            ));
        }
        ValidationErrorKind::Enum { options } => {
            let valid: Vec<&str> = options
                .as_array()
                .map(|values| values.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            out.push(Problem::new(
                Category::WrongType,
                one_of_error(path, error.instance(), valid),
            ));
        }
        // An enum with documented variants is a `oneOf` of string constants.
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context }
            if constant_options(context).is_some() =>
        {
            let valid = constant_options(context).unwrap_or_default();
            out.push(Problem::new(
                Category::WrongType,
                one_of_error(path, error.instance(), valid),
            ));
        }
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context }
            if only_branch_of_its_type(error, context).is_some() =>
        {
            for inner in only_branch_of_its_type(error, context).unwrap_or_default() {
                schema_problems(entry, inner, out);
            }
        }
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            out.push(Problem::new(
                Category::WrongType,
                no_variant_fits(schema, path, error, context),
            ));
        }
        ValidationErrorKind::Type { kind } => {
            let hint = wrong_type_hint(error.instance(), kind);
            let problem = generic(path, error).with_hint(hint);
            out.push(Problem::new(Category::WrongType, problem));
        }
        _ => out.push(Problem::new(Category::Constraint, generic(path, error))),
    }
}

/// The properties of the object schema that holds the keyword `error` failed on:
/// for an `additionalProperties` error, the fields valid where the unknown one is,
/// in the very variant or flattened struct the value was checked against.
fn properties_beside<'s>(schema: &'s Value, error: &ValidationError<'_>) -> Vec<&'s str> {
    // The keyword's canonical location in the schema (`$ref`s resolved).
    let location = error.schema_path().as_str();
    location
        .rsplit_once('/')
        .and_then(|(object, _keyword)| schema.pointer(object))
        .map(property_names)
        .unwrap_or_default()
}

/// Of the branches of a failed `anyOf`/`oneOf`, the only one that did not fail on the
/// type of the value itself, or on its tag (a tagged enum's variant is an object whose
/// tag field is a constant): the branch the caller meant.
fn only_branch_of_its_type<'c>(
    error: &ValidationError<'_>,
    branches: &'c [Vec<ValidationError<'static>>],
) -> Option<&'c [ValidationError<'static>]> {
    let at = error.instance_path();
    let depth = at.iter().count();
    let mut meant = branches.iter().filter(|branch| {
        !branch.iter().any(|inner| {
            let own = inner.instance_path() == at
                && matches!(
                    inner.kind(),
                    ValidationErrorKind::Type { .. }
                        | ValidationErrorKind::Constant { .. }
                        | ValidationErrorKind::Enum { .. }
                );
            // A constant one field below: another variant's tag.
            let tag = matches!(
                inner.kind(),
                ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. }
            ) && inner.instance_path().iter().count() == depth + 1
                && inner.instance_path().iter().take(depth).eq(at.iter());
            own || tag
        })
    });
    match (meant.next(), meant.next()) {
        (Some(branch), None) if !branch.is_empty() => Some(branch),
        // An externally tagged variant (`{"timer": {...}}`): the meant branch is the
        // only one whose problems are all inside the value, the others failing on
        // the value's own keys.
        (Some(_), Some(_)) => {
            let mut inside = branches.iter().filter(|branch| {
                !branch.is_empty() && branch.iter().all(|inner| inner.instance_path() != at)
            });
            match (inside.next(), inside.next()) {
                (Some(branch), None) => Some(branch),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The most variants a "fits none" message describes.
const MAX_DESCRIBED_VARIANTS: usize = 8;

/// A value that fits none of the variants of an `anyOf`/`oneOf` (an untagged enum, an
/// enum's unit and newtype variants): which variants were tried, and the first
/// problem the value has with each, with its path.
fn no_variant_fits(
    schema: &Value,
    path: String,
    error: &ValidationError<'_>,
    branches: &[Vec<ValidationError<'static>>],
) -> ToolError {
    let variants = schema
        .pointer(error.schema_path().as_str())
        .and_then(Value::as_array);
    let tried: Vec<String> = branches
        .iter()
        .enumerate()
        .take(MAX_DESCRIBED_VARIANTS)
        .map(|(index, problems)| {
            let variant = variants
                .and_then(|variants| variants.get(index))
                .map_or_else(
                    || format!("variant {}", index + 1),
                    |variant| describe_variant(schema, variant),
                );
            // The path is said only where it is deeper than the value's own.
            match problems.first() {
                // A constant variant's problem only says the constant again.
                Some(first)
                    if location(first) == path
                        && matches!(
                            first.kind(),
                            ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. }
                        ) =>
                {
                    variant
                }
                Some(first) if location(first) == path => {
                    format!("{variant} ({})", first.masked_with("it"))
                }
                Some(first) => format!(
                    "{variant} (at `{}`: {})",
                    location(first),
                    first.masked_with("the value")
                ),
                None => variant,
            }
        })
        .collect();
    let more = branches.len().saturating_sub(MAX_DESCRIBED_VARIANTS);
    let subject = if path.is_empty() {
        "the input".to_string()
    } else {
        format!("`{path}`")
    };
    let mut message = format!(
        "{subject} fits none of its {} variants: {}",
        branches.len(),
        tried.join("; ")
    );
    if more > 0 {
        message.push_str(&format!("; and {more} more"));
    }
    let tool_error =
        ToolError::invalid_input(message).with_hint("send a value of one of the variants");
    if path.is_empty() {
        tool_error
    } else {
        tool_error.with_field(path)
    }
}

/// A variant as a model would write it: its constant, or its kind of value and, for
/// an object, its fields.
fn describe_variant(root: &Value, variant: &Value) -> String {
    let variant = crate::schema::resolve_local_ref(root, variant);
    if let Some(constant) = variant.get("const") {
        return format!("`{constant}`");
    }
    if let Some(Value::Array(values)) = variant.get("enum") {
        let values: Vec<String> = values.iter().map(|value| format!("`{value}`")).collect();
        return format!("one of {}", values.join(", "));
    }
    let fields = property_names(variant);
    if !fields.is_empty() {
        return format!("an object with `{}`", fields.join("`, `"));
    }
    match variant.get("type").and_then(Value::as_str) {
        Some("object") => "an object".to_string(),
        Some("array") => "an array".to_string(),
        Some("string") => "a string".to_string(),
        Some("integer") => "an integer".to_string(),
        Some("number") => "a number".to_string(),
        Some("boolean") => "a boolean".to_string(),
        Some("null") => "null".to_string(),
        _ => "a value".to_string(),
    }
}

/// A violation without a dedicated message: the validator's, with the keyword.
fn generic(path: String, error: &ValidationError<'_>) -> ToolError {
    let subject = if path.is_empty() {
        "the input".to_string()
    } else {
        format!("`{path}`")
    };
    let keyword = error.kind().keyword();
    // Quote the offending value only when it is small: the message of an error about
    // a 10 MB value must not be 10 MB.
    let small = match error.instance().as_ref() {
        Value::Null | Value::Bool(_) | Value::Number(_) => true,
        Value::String(text) => text.len() <= 64,
        Value::Array(_) | Value::Object(_) => false,
    };
    let message = if small {
        format!("{subject}: {error}")
    } else {
        format!("{subject}: {}", error.masked_with("the value"))
    };
    let mut tool_error =
        ToolError::invalid_input(message).with_details(json!({ "keyword": keyword }));
    if !path.is_empty() {
        tool_error = tool_error.with_field(path);
    }
    tool_error
}

/// The string constants of a `oneOf`/`anyOf` whose every branch failed on a `const`
/// or `enum` of strings (the schema of an enum with documented variants).
fn constant_options<'e>(branches: &'e [Vec<ValidationError<'static>>]) -> Option<Vec<&'e str>> {
    let mut valid = Vec::new();
    for branch in branches {
        let before = valid.len();
        for error in branch {
            match error.kind() {
                ValidationErrorKind::Constant { expected_value } => {
                    valid.extend(expected_value.as_str());
                }
                ValidationErrorKind::Enum { options } => {
                    valid.extend(options.as_array()?.iter().filter_map(Value::as_str));
                }
                _ => {}
            }
        }
        if valid.len() == before {
            return None;
        }
    }
    (!valid.is_empty()).then_some(valid)
}

/// `path` must be one of the strings `valid`; `given` is what the caller sent.
fn one_of_error(path: String, given: &Value, valid: Vec<&str>) -> ToolError {
    let given = given.as_str().unwrap_or_default();
    let hint = closest(given, valid.iter().copied());
    // The valid values are named once, in `details.expected`.
    let tool_error = ToolError::invalid_input(format!("`{path}` must be one of `expected`"))
        .with_field(path)
        .with_details(json!({ "expected": valid }));
    match hint {
        Some(best) => tool_error.with_hint(format!("did you mean `{best}`?")),
        None => tool_error,
    }
}
