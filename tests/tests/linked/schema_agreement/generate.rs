//! Instances of a JSON Schema, and mutations of them, as proptest strategies.
//!
//! Covers the subset schemars emits: objects with `properties`, `required` and
//! `additionalProperties`, strings with `minLength`, `maxLength` and `pattern` (a
//! pattern proptest can generate from), integers and numbers with bounds, booleans,
//! null, arrays with `items`, `minItems` and `maxItems`, `enum`, `const`,
//! `anyOf`/`oneOf`, type arrays such as `["string", "null"]`, and local `$ref`s.
//! `if`/`then`/`else`, `allOf` and formats are not generated for: the oracle is the
//! validator, so a "valid" instance that is not valid is still a fair test, and the
//! caller checks that enough of them are accepted.
//!
//! Mutations: wrong types, missing required fields, unknown fields (random names,
//! typos of real ones, the tool's result fields), out-of-range and integral-float
//! numbers, strings too short or too long, values outside an enum, arrays with too
//! few or too many items, and values nested deeper than the dispatcher allows.

use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, Just, Union};
use serde_json::Value;

use super::scalars::{
    count, deep, integers, numbers, numbers_out_of_range, off_enum, palette, palette_values,
    strings, strings_out_of_range, type_matches, typos_of,
};

/// How deep nested schemas (and `$ref` chains) are followed.
const MAX_SCHEMA_DEPTH: u32 = 8;

/// Builds the strategies for one tool's input schema.
pub struct Generator<'s> {
    root: &'s Value,
    /// Field names that are tempting but not input fields: the tool's result fields.
    decoys: Vec<String>,
    /// Whether a string is a valid root (the tool takes freeform text): then a string
    /// root is not generated, as it is not an input of the JSON surface.
    freeform: bool,
}

impl<'s> Generator<'s> {
    /// A generator for the input schema `root`.
    pub fn new(root: &'s Value, decoys: Vec<String>, freeform: bool) -> Self {
        Self {
            root,
            decoys,
            freeform,
        }
    }

    /// Inputs: valid instances and mutations of them.
    pub fn inputs(&self) -> BoxedStrategy<Value> {
        Union::new_weighted(vec![
            (2, self.valid(self.root, 0)),
            (3, self.mutated(self.root, 0)),
        ])
        .boxed()
    }

    fn resolve(&self, mut schema: &'s Value) -> &'s Value {
        for _ in 0..MAX_SCHEMA_DEPTH {
            let target = schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| reference.strip_prefix('#'))
                .and_then(|pointer| self.root.pointer(pointer));
            match target {
                Some(target) => schema = target,
                None => break,
            }
        }
        schema
    }

    /// A value the schema allows (as far as this generator knows the schema).
    pub fn valid(&self, schema: &'s Value, depth: u32) -> BoxedStrategy<Value> {
        if depth > MAX_SCHEMA_DEPTH || schema == &Value::Bool(false) {
            return Just(Value::Null).boxed();
        }
        let schema = self.resolve(schema);
        if let Some(constant) = schema.get("const") {
            return Just(constant.clone()).boxed();
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            return proptest::sample::select(values.clone()).boxed();
        }
        if let Some(branches) = branches(schema) {
            let options: Vec<_> = branches.iter().map(|b| self.valid(b, depth + 1)).collect();
            return Union::new(options).boxed();
        }
        let types = types(schema);
        if types.is_empty() {
            return palette();
        }
        let options: Vec<_> = types
            .iter()
            .map(|ty| self.valid_typed(schema, ty, depth))
            .collect();
        Union::new(options).boxed()
    }

    fn valid_typed(&self, schema: &'s Value, ty: &str, depth: u32) -> BoxedStrategy<Value> {
        match ty {
            "null" => Just(Value::Null).boxed(),
            "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
            "integer" => integers(schema),
            "number" => numbers(schema),
            "string" => strings(schema),
            "array" => {
                let items = schema.get("items").unwrap_or(&Value::Bool(true));
                let min = count(schema, "minItems").unwrap_or(0);
                let cap = count(schema, "maxItems").unwrap_or(usize::MAX).min(min + 3);
                proptest::collection::vec(self.valid(items, depth + 1), min..=cap.max(min))
                    .prop_map(Value::Array)
                    .boxed()
            }
            "object" => self.objects(schema, depth),
            _ => Just(Value::Null).boxed(),
        }
    }

    fn objects(&self, schema: &'s Value, depth: u32) -> BoxedStrategy<Value> {
        let required = required(schema);
        let conditional = conditionally_required(schema);
        let mut fields: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
        for (name, property) in properties(schema) {
            let key = name.clone();
            let value = self
                .valid(property, depth + 1)
                .prop_map(move |value| (key.clone(), value));
            fields.push(if required.contains(name) {
                value.prop_map(Some).boxed()
            } else if conditional.contains(name) {
                proptest::option::weighted(0.85, value).boxed()
            } else {
                proptest::option::weighted(0.5, value).boxed()
            });
        }
        if let Some(extra) = schema.get("additionalProperties").filter(|s| s.is_object()) {
            let value = self.valid(extra, depth + 1);
            let entry = ("[a-z]{1,8}", value).prop_map(|(k, v)| (format!("extra_{k}"), v));
            fields.push(proptest::option::weighted(0.3, entry).boxed());
        }
        fields
            .prop_map(|entries| Value::Object(entries.into_iter().flatten().collect()))
            .boxed()
    }

    /// A value that breaks the schema somewhere (or, rarely, happens not to).
    pub fn mutated(&self, schema: &'s Value, depth: u32) -> BoxedStrategy<Value> {
        let root = depth == 0;
        if depth > MAX_SCHEMA_DEPTH {
            return self.wrong_type(&[], root);
        }
        let schema = self.resolve(schema);
        let types = types(schema);
        let mut options: Vec<(u32, BoxedStrategy<Value>)> =
            vec![(2, self.wrong_type(&types, root))];
        let allowed: Option<Vec<Value>> = match (schema.get("const"), schema.get("enum")) {
            (Some(constant), _) => Some(vec![constant.clone()]),
            (None, Some(Value::Array(values))) => Some(values.clone()),
            _ => None,
        };
        if let Some(allowed) = allowed {
            options.push((4, off_enum(allowed)));
        }
        if let Some(branches) = branches(schema) {
            let mutated: Vec<_> = branches
                .iter()
                .map(|b| self.mutated(b, depth + 1))
                .collect();
            options.push((4, Union::new(mutated).boxed()));
        }
        for ty in &types {
            options.extend(self.mutated_typed(schema, ty, depth));
        }
        Union::new_weighted(options).boxed()
    }

    fn mutated_typed(
        &self,
        schema: &'s Value,
        ty: &str,
        depth: u32,
    ) -> Vec<(u32, BoxedStrategy<Value>)> {
        match ty {
            "integer" | "number" => vec![(4, numbers_out_of_range(schema))],
            "string" => vec![(3, strings_out_of_range(schema))],
            "array" => {
                let items = schema.get("items").unwrap_or(&Value::Bool(true));
                let min = count(schema, "minItems").unwrap_or(0);
                let max = count(schema, "maxItems");
                let mut options = vec![];
                if min > 0 {
                    let few = proptest::collection::vec(self.valid(items, depth + 1), 0..min);
                    options.push((2, few.prop_map(Value::Array).boxed()));
                }
                if let Some(max) = max {
                    let many =
                        proptest::collection::vec(self.valid(items, depth + 1), max + 1..=max + 2);
                    options.push((2, many.prop_map(Value::Array).boxed()));
                }
                let one_bad = (
                    proptest::collection::vec(
                        self.valid(items, depth + 1),
                        min.max(1)..=min.max(1) + 2,
                    ),
                    self.mutated(items, depth + 1),
                    any::<prop::sample::Index>(),
                )
                    .prop_map(|(mut list, bad, at)| {
                        let index = at.index(list.len());
                        list[index] = bad;
                        Value::Array(list)
                    });
                options.push((4, one_bad.boxed()));
                options
            }
            "object" => self.mutated_objects(schema, depth),
            _ => vec![],
        }
    }

    fn mutated_objects(&self, schema: &'s Value, depth: u32) -> Vec<(u32, BoxedStrategy<Value>)> {
        let valid = || self.objects(schema, depth);
        let mut options = vec![];
        for name in required(schema) {
            let drop = valid().prop_map(move |mut object| {
                if let Some(map) = object.as_object_mut() {
                    map.remove(&name);
                }
                object
            });
            options.push((2, drop.boxed()));
        }
        let mut unknown = vec!["[a-z][a-z_]{0,10}".boxed(), Just(String::new()).boxed()];
        let typos: Vec<String> = properties(schema)
            .flat_map(|(name, _)| typos_of(name))
            .collect();
        for names in [typos, self.decoys.clone()] {
            if !names.is_empty() {
                unknown.push(proptest::sample::select(names).boxed());
            }
        }
        let unknown = Union::new(unknown);
        let values = Union::new([palette(), Just(deep(130)).boxed()]);
        let extra = (valid(), unknown, values).prop_map(|(mut object, key, value)| {
            if let Some(map) = object.as_object_mut() {
                map.insert(key, value);
            }
            object
        });
        options.push((4, extra.boxed()));
        for (name, property) in properties(schema) {
            let name = name.clone();
            let bad = Union::new_weighted(vec![
                (6, self.mutated(property, depth + 1)),
                (1, Just(deep(129)).boxed()),
            ]);
            let one_bad = (valid(), bad).prop_map(move |(mut object, value)| {
                if let Some(map) = object.as_object_mut() {
                    map.insert(name.clone(), value);
                }
                object
            });
            options.push((3, one_bad.boxed()));
        }
        options
    }

    /// A value of a JSON type the schema does not list.
    fn wrong_type(&self, types: &[&str], root: bool) -> BoxedStrategy<Value> {
        let mut candidates: Vec<Value> = palette_values()
            .into_iter()
            .filter(|value| !types.iter().any(|ty| type_matches(ty, value)))
            .filter(|value| !(root && self.freeform && value.is_string()))
            .collect();
        if candidates.is_empty() {
            candidates.push(Value::Null);
        }
        proptest::sample::select(candidates).boxed()
    }
}

fn branches(schema: &Value) -> Option<&Vec<Value>> {
    ["anyOf", "oneOf"]
        .iter()
        .find_map(|key| schema.get(*key).and_then(Value::as_array))
        .filter(|branches| !branches.is_empty())
}

/// The JSON types a schema lists, or infers from its keywords.
fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(ty)) => vec![ty.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ if schema.get("properties").is_some() => vec!["object"],
        _ if schema.get("items").is_some() => vec!["array"],
        _ => vec![],
    }
}

fn properties(schema: &Value) -> impl Iterator<Item = (&String, &Value)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

fn required(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Fields that `then`, `else` or `allOf` branches require: present more often, so
/// that objects with conditionals are valid often enough.
fn conditionally_required(schema: &Value) -> Vec<String> {
    let mut branches: Vec<&Value> = vec![schema];
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        branches.extend(all);
    }
    let mut names = Vec::new();
    for branch in branches {
        for key in ["then", "else"] {
            names.extend(branch.get(key).map(required).unwrap_or_default());
        }
        if !std::ptr::eq(branch, schema) {
            names.extend(required(branch));
        }
    }
    names
}
