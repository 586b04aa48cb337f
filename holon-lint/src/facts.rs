//! What the registry says about each tool, indexed for the lint: every field name of
//! its input and result schemas (at any depth), with the subschema, the description,
//! the enum values and the defaults of each occurrence.

use holon_core::schema::resolve_local_ref;
use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use crate::defaults;
use holon_core::{Registry, ToolCapabilityFamily, ToolDefinition, ToolErrorKind, ToolResult};

/// How deep schemas are walked (and `$ref` chains followed).
const MAX_DEPTH: usize = 16;

/// Whether a field belongs to the input or the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Input,
    Result,
}

/// One occurrence of a field name in a tool's schemas.
#[derive(Debug)]
pub(crate) struct Field<'r> {
    /// Its path, such as `items[].yield_time_ms`.
    pub path: String,
    pub side: Side,
    /// The property's own schema (it holds the description and the default).
    pub raw: &'r Value,
    /// The schema with `$ref`s resolved.
    pub schema: &'r Value,
    /// The root schema, for `$ref`s inside `schema`.
    pub root: &'r Value,
}

impl<'r> Field<'r> {
    /// The field's description.
    pub fn description(&self) -> Option<&'r str> {
        self.raw
            .get("description")
            .or_else(|| self.schema.get("description"))
            .and_then(Value::as_str)
    }

    /// The schema's `default`, unless it is `null` (which says "not set").
    pub fn schema_default(&self) -> Option<&'r Value> {
        self.raw
            .get("default")
            .or_else(|| self.schema.get("default"))
            .filter(|value| !value.is_null())
    }

    /// The runtime default its description states by the convention "Defaults to X."
    pub fn described_default(&self) -> Option<Value> {
        let description = self.description()?;
        let name = self.name();
        defaults::find(description)
            .into_iter()
            .filter(|stated| {
                stated
                    .fields_before
                    .first()
                    .is_none_or(|field| *field == name)
            })
            .find_map(|stated| stated.value.resolve(name))
    }

    /// The field's own name (the last segment of its path).
    pub fn name(&self) -> &str {
        self.path.rsplit(['.', ']']).next().unwrap_or(&self.path)
    }

    /// The string values the field may take, when it is an enum.
    pub fn enum_values(&self) -> Option<Vec<&'r str>> {
        let mut values = Vec::new();
        enum_values(self.root, self.schema, &mut values, 0).then_some(values)
    }
}

/// Collects the string constants of an enum schema; false if the schema also allows
/// values that are not constants.
fn enum_values<'r>(
    root: &'r Value,
    schema: &'r Value,
    out: &mut Vec<&'r str>,
    depth: usize,
) -> bool {
    let schema = resolve_local_ref(root, schema);
    if depth > MAX_DEPTH {
        return false;
    }
    if let Some(constant) = schema.get("const") {
        out.extend(constant.as_str());
        return true;
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        out.extend(values.iter().filter_map(Value::as_str));
        return true;
    }
    let branches = ["anyOf", "oneOf"]
        .iter()
        .find_map(|key| schema.get(*key).and_then(Value::as_array));
    match branches {
        Some(branches) => branches.iter().all(|branch| {
            let branch = resolve_local_ref(root, branch);
            branch.get("type").and_then(Value::as_str) == Some("null")
                || enum_values(root, branch, out, depth + 1)
        }),
        None => false,
    }
}

/// A tool and its fields by name.
#[derive(Debug)]
pub(crate) struct ToolFacts<'r> {
    pub definition: &'r ToolDefinition,
    pub fields: BTreeMap<&'r str, Vec<Field<'r>>>,
}

impl<'r> ToolFacts<'r> {
    fn new(definition: &'r ToolDefinition) -> Self {
        let mut fields = BTreeMap::new();
        let input = &*definition.spec.input_schema;
        let result = &*definition.result_schema;
        walk(input, input, Side::Input, "", 0, &mut fields);
        walk(result, result, Side::Result, "", 0, &mut fields);
        Self { definition, fields }
    }

    /// The tool's name.
    pub fn name(&self) -> &'r str {
        &self.definition.spec.name
    }

    /// The names of the top-level input fields, in schema order.
    pub fn input_field_names(&self) -> Vec<&'r str> {
        let schema = resolve_local_ref(
            &self.definition.spec.input_schema,
            &self.definition.spec.input_schema,
        );
        schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| properties.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// The occurrences of the field `name`.
    pub fn field(&self, name: &str) -> &[Field<'r>] {
        self.fields.get(name).map_or(&[], Vec::as_slice)
    }
}

fn walk<'r>(
    root: &'r Value,
    schema: &'r Value,
    side: Side,
    path: &str,
    depth: usize,
    out: &mut BTreeMap<&'r str, Vec<Field<'r>>>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = resolve_local_ref(root, schema);
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, raw) in properties {
            let field_path = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            let resolved = resolve_local_ref(root, raw);
            walk(root, raw, side, &field_path, depth + 1, out);
            out.entry(name.as_str()).or_default().push(Field {
                path: field_path,
                side,
                raw,
                schema: resolved,
                root,
            });
        }
    }
    if let Some(items) = schema.get("items") {
        walk(root, items, side, &format!("{path}[]"), depth + 1, out);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            walk(root, branch, side, path, depth + 1, out);
        }
    }
    for key in ["then", "else", "additionalProperties"] {
        if let Some(branch) = schema.get(key).filter(|branch| branch.is_object()) {
            walk(root, branch, side, path, depth + 1, out);
        }
    }
}

/// Adds every field name of `fields` and every enum value of those fields.
fn add_names(vocabulary: &mut HashSet<String>, fields: &BTreeMap<&str, Vec<Field<'_>>>) {
    for (name, occurrences) in fields {
        vocabulary.insert(name.to_string());
        for field in occurrences {
            let values = field.enum_values().unwrap_or_default();
            vocabulary.extend(values.into_iter().map(str::to_string));
        }
    }
}

/// The error kinds the dispatcher itself gives, for any tool.
const DISPATCH_ERROR_KINDS: [ToolErrorKind; 8] = [
    ToolErrorKind::UNKNOWN_TOOL,
    ToolErrorKind::FAMILY_NOT_ALLOWED,
    ToolErrorKind::INVALID_TOOL_INPUT,
    ToolErrorKind::UNKNOWN_FIELD,
    ToolErrorKind::RESULT_FIELD_IN_INPUT,
    ToolErrorKind::MISSING_CONTEXT,
    ToolErrorKind::TOOL_PANICKED,
    ToolErrorKind::TOOL_TIMED_OUT,
];

/// Every tool of a registry, by name and alias.
#[derive(Debug)]
pub(crate) struct Facts<'r> {
    tools: Vec<ToolFacts<'r>>,
    by_name: HashMap<&'r str, usize>,
    /// Every name guidance may write in code about a tool: each tool's field names and
    /// enum values, the result envelope's, the families and the dispatcher's error kinds.
    vocabulary: HashSet<String>,
}

impl<'r> Facts<'r> {
    pub fn new(registry: &'r Registry) -> Self {
        let tools: Vec<ToolFacts<'r>> = registry.definitions().map(ToolFacts::new).collect();
        let mut by_name = HashMap::new();
        for (index, tool) in tools.iter().enumerate() {
            by_name.insert(tool.name(), index);
            for alias in &tool.definition.aliases {
                by_name.entry(*alias).or_insert(index);
            }
        }
        let mut vocabulary: HashSet<String> = HashSet::new();
        for tool in &tools {
            add_names(&mut vocabulary, &tool.fields);
        }
        let envelope = ToolResult::envelope_schema();
        let mut envelope_fields = BTreeMap::new();
        walk(
            &envelope,
            &envelope,
            Side::Result,
            "",
            0,
            &mut envelope_fields,
        );
        add_names(&mut vocabulary, &envelope_fields);
        vocabulary.extend(
            ToolCapabilityFamily::ALL
                .iter()
                .map(|f| f.as_str().to_string()),
        );
        vocabulary.extend(DISPATCH_ERROR_KINDS.iter().map(|k| k.as_str().to_string()));
        Self {
            tools,
            by_name,
            vocabulary,
        }
    }

    /// Whether `name` is a field, an enum value or a word of the envelope anywhere.
    pub fn knows(&self, name: &str) -> bool {
        self.vocabulary.contains(name)
    }

    /// The tool named `name` (or aliased so).
    pub fn tool(&self, name: &str) -> Option<&ToolFacts<'r>> {
        self.by_name.get(name).map(|index| &self.tools[*index])
    }

    /// Every tool.
    pub fn tools(&self) -> &[ToolFacts<'r>] {
        &self.tools
    }

    /// Every name and alias.
    pub fn names(&self) -> impl Iterator<Item = &'r str> + '_ {
        self.by_name.keys().copied()
    }
}

/// Whether `schema` admits `value`, as far as the keywords the lint reads go (type,
/// enum, const, bounds, lengths, unions); other keywords are not held against it.
pub(crate) fn admits(root: &Value, schema: &Value, value: &Value, depth: usize) -> bool {
    let schema = resolve_local_ref(root, schema);
    if depth > MAX_DEPTH || schema == &Value::Bool(true) {
        return true;
    }
    if let Some(constant) = schema.get("const") {
        return same(constant, value);
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.iter().any(|allowed| same(allowed, value));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            return branches.iter().any(|b| admits(root, b, value, depth + 1));
        }
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(ty)) => vec![ty],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !types.is_empty() && !types.iter().any(|ty| is_type(ty, value)) {
        return false;
    }
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    if let Some(n) = value.as_f64() {
        let below = bound("minimum").is_some_and(|min| n < min)
            || bound("exclusiveMinimum").is_some_and(|min| n <= min);
        let above = bound("maximum").is_some_and(|max| n > max)
            || bound("exclusiveMaximum").is_some_and(|max| n >= max);
        if below || above {
            return false;
        }
    }
    if let Some(text) = value.as_str() {
        let length = text.chars().count() as f64;
        if bound("minLength").is_some_and(|min| length < min)
            || bound("maxLength").is_some_and(|max| length > max)
        {
            return false;
        }
    }
    true
}

fn is_type(ty: &str, value: &Value) -> bool {
    match ty {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

/// JSON equality, with numbers compared by value (`10000` is `10000.0`).
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}
