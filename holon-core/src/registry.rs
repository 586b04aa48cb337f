//! The registry: every linked tool, validated once, looked up in O(1).
//!
//! Built on first use from the link-time inventory. Building checks what the compiler
//! cannot: duplicate names or aliases (naming both definition sites), an input schema
//! that is not a closed object, an empty description, a freeform grammar that is empty or does not parse, an input
//! example that is not a valid call. A registry that fails these checks is never handed out.

use rustc_hash::FxHashMap;
use std::any::{Any, TypeId};
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

use crate::family::FamilyPolicy;
use crate::grammar;
use crate::meta::{ToolMeta, Visibility};
use crate::result::error::{ToolError, ToolErrorKind};
use crate::schema;
use crate::spec::{FreeformGrammar, ToolDefinition, ToolSpec};
use crate::tool::Tool;
use crate::tool::registered_tools;

/// One registered tool with everything derived from it once.
pub(crate) struct Entry {
    pub(crate) tool: &'static dyn Tool,
    pub(crate) definition: ToolDefinition,
    /// Compiled only when the schema says more than serde checks.
    pub(crate) validator: Option<Validator>,
    /// The validator that lists every problem of a failed input; compiled on the
    /// first failure when `validator` is not there already.
    full_validator: OnceLock<Option<Validator>>,
    /// The validator of the result schema, for the debug builds' result check;
    /// compiled on the first result.
    #[cfg_attr(not(feature = "validate"), allow(dead_code))]
    result_validator: OnceLock<Option<Validator>>,
    /// Whether JSON text can be parsed straight into the arguments: no constraint to
    /// validate on a `Value`, and every object a struct, whose derived `Deserialize`
    /// refuses a repeated key itself (a map or an any-value would keep the last).
    pub(crate) text_fast_path: bool,
    /// The tool's own time limit, asked of it once.
    pub(crate) timeout: Option<std::time::Duration>,
    /// The canonical name, as the tool's static facts hold it (the name of its results).
    pub(crate) name: &'static str,
    pub(crate) result_fields: Vec<String>,
}

/// Every tool the program can dispatch.
pub struct Registry {
    pub(crate) entries: Vec<Entry>,
    /// Names and aliases to entries. Keys are the registry's own names, so a fast
    /// non-DoS-resistant hash is fine.
    pub(crate) lookup: FxHashMap<Box<str>, usize>,
    /// Values other crates derive from the registry once (a search index), by type.
    derived: Mutex<Vec<(TypeId, Arc<dyn Any + Send + Sync>)>>,
}

impl Registry {
    /// A registry of already validated entries.
    pub(crate) fn new(entries: Vec<Entry>, lookup: FxHashMap<Box<str>, usize>) -> Self {
        Self {
            entries,
            lookup,
            derived: Mutex::default(),
        }
    }

    /// The value of type `T` derived from this registry: built by `build` on the first
    /// call for `T`, then shared. A crate caches what it computes from the tools (a
    /// search index, say) here, so that it lives and dies with the registry.
    ///
    /// `build` runs without a lock held, so it may ask for other derived values; when
    /// two threads build the same `T` at once, the first one stored wins.
    pub fn derived<T: Any + Send + Sync>(&self, build: impl FnOnce(&Registry) -> T) -> Arc<T> {
        if let Some(found) = self.find_derived::<T>() {
            return found;
        }
        let built: Arc<dyn Any + Send + Sync> = Arc::new(build(self));
        let mut derived = self
            .derived
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let stored = match derived.iter().find(|(id, _)| *id == TypeId::of::<T>()) {
            Some((_, value)) => value.clone(),
            None => {
                derived.push((TypeId::of::<T>(), built.clone()));
                built
            }
        };
        drop(derived);
        stored
            .downcast::<T>()
            .unwrap_or_else(|_| unreachable!("stored under the TypeId of its own type"))
    }

    fn find_derived<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        let derived = self
            .derived
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        derived
            .iter()
            .find(|(id, _)| *id == TypeId::of::<T>())
            .and_then(|(_, value)| value.clone().downcast::<T>().ok())
    }
}

/// Why a registry could not be built: every problem found, each naming its tool and
/// definition site.
///
/// Its `Debug` is its `Display`, one problem a line: `fn main() -> Result<_,
/// RegistryError>` (or `Box<dyn Error>`) prints a returned error with `Debug`.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the tool registry is invalid ({} problem{}):{}",
    .problems.len(),
    if .problems.len() == 1 { "" } else { "s" },
    .problems.iter().map(|problem| format!("\n  - {problem}")).collect::<String>()
)]
pub struct RegistryError {
    /// One sentence per problem.
    pub problems: Vec<String>,
}

impl fmt::Debug for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Registry {
    /// Every definition, sorted by name (runtime-only tools included).
    pub fn definitions(&self) -> impl ExactSizeIterator<Item = &ToolDefinition> {
        self.entries.iter().map(|entry| &entry.definition)
    }

    /// The model-facing definitions a caller with `policy` may see, sorted by name.
    pub fn model_definitions(&self, policy: FamilyPolicy) -> impl Iterator<Item = &ToolDefinition> {
        self.definitions()
            .filter(move |d| d.is_model_facing() && policy.allows(d.family))
    }

    /// The definition of the tool called `name` (or having it as an alias).
    pub fn get(&self, name: &str) -> Option<&ToolDefinition> {
        self.lookup
            .get(name)
            .map(|index| &self.entries[*index].definition)
    }

    /// How many tools are registered.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Registries of part of the linked tools: a crate's own, a family policy's, a list.
impl Registry {
    /// A registry of the linked tools whose facts `keep` accepts.
    pub fn filtered(mut keep: impl FnMut(&ToolMeta) -> bool) -> Result<Registry, RegistryError> {
        Registry::from_tools(registered_tools().filter(|tool| keep(tool.meta())))
    }

    /// The tools defined in the module `module` or below it: at a crate's root,
    /// `Registry::of_module(module_path!())` is that crate's own tools.
    pub fn of_module(module: &str) -> Result<Registry, RegistryError> {
        Registry::filtered(|meta| {
            meta.defined_at
                .module
                .strip_prefix(module)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
        })
    }

    /// The tools of the families `policy` allows.
    pub fn of_families(policy: FamilyPolicy) -> Result<Registry, RegistryError> {
        Registry::filtered(|meta| policy.allows(meta.family))
    }

    /// The tools named `names` (each by its canonical name); a name no linked tool
    /// has is a problem of the registry.
    pub fn of_names(names: &[&str]) -> Result<Registry, RegistryError> {
        let linked: Vec<&str> = registered_tools().map(|tool| tool.meta().name).collect();
        let problems: Vec<String> = names
            .iter()
            .filter(|name| !linked.contains(name))
            .map(|name| match crate::input::hints::closest(name, linked.iter().copied()) {
                Some(best) => format!("no linked tool is named `{name}`; did you mean `{best}`?"),
                None => format!(
                    "no linked tool is named `{name}`: is the crate that declares it linked (`use the_crate as _;`)?"
                ),
            })
            .collect();
        if !problems.is_empty() {
            return Err(RegistryError { problems });
        }
        Registry::filtered(|meta| names.contains(&meta.name))
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.definitions().map(ToolDefinition::name))
            .finish()
    }
}

/// The entry of `tool`, or `None` with its problems added to `problems`. Its input
/// examples are left for the caller, which checks them as calls.
pub(crate) fn build_entry(tool: &'static dyn Tool, problems: &mut Vec<String>) -> Option<Entry> {
    let meta = tool.meta();
    let site = meta.defined_at;
    let before = problems.len();
    let name = meta.name;

    for candidate in std::iter::once(name).chain(meta.aliases.iter().copied()) {
        if !is_portable_name(candidate) {
            problems.push(format!(
                "tool `{candidate}` at {site}: the name must match ^[A-Za-z_][A-Za-z0-9_-]{{0,63}}$"
            ));
        }
    }
    if meta.description.trim().is_empty() {
        problems.push(format!(
            "tool `{name}` at {site} has an empty description: write what the tool does and when a model should call it"
        ));
    }
    let freeform_grammar = match &meta.freeform {
        Some(decl) => match grammar::check(decl) {
            Ok(()) => Some(FreeformGrammar {
                syntax: decl.syntax,
                definition: Arc::from(decl.definition),
            }),
            Err(reason) => {
                problems.push(format!(
                    "tool `{name}` at {site} has an invalid {} freeform grammar: {reason}",
                    decl.syntax.as_str()
                ));
                None
            }
        },
        None => None,
    };

    // From a schema that keeps the types' names, so that the message names the type.
    let named_input = tool.input_schema(&mut schema::named_generator());
    for open in schema::open_objects(named_input.as_value()) {
        problems.push(format!(
            "tool `{name}` at {site}: its input accepts unknown fields inside {open}: every object in a tool's arguments must reject them; derive `ToolArgs` on that type (with `#[serde(deny_unknown_fields)]`), or, for a type of another crate, wrap it in a closed type of your own"
        ));
    }
    let mut input_schema = schema::finish(tool.input_schema(&mut schema::generator()));
    schema::strip_root_description(&mut input_schema);
    let mut result_schema = schema::finish(tool.result_schema(&mut schema::result_generator()));
    schema::publishable(&mut result_schema);
    if !schema::is_closed_object(&input_schema) {
        problems.push(format!(
            "tool `{name}` at {site}: its input schema must be a closed object (`\"type\": \"object\"` with `\"additionalProperties\": false`); derive `ToolArgs` on a struct with `#[serde(deny_unknown_fields)]`"
        ));
    }
    // A field on both sides is ordinary (a forecast echoes its `city`); only the
    // fields that exist in the result alone are remembered, so that sending one
    // as input is `result_field_in_input` rather than a plain unknown field.
    let input_fields = schema::property_names(&input_schema);
    let result_fields: Vec<String> = schema::property_names(&result_schema)
        .into_iter()
        .filter(|field| !input_fields.contains(field) && !tool.input_fields().contains(field))
        .map(str::to_string)
        .collect();
    let validator = if schema::needs_validation(&input_schema) {
        match compile(&input_schema) {
            Ok(validator) => Some(validator),
            Err(reason) => {
                problems.push(format!(
                    "tool `{name}` at {site}: its input schema {reason}"
                ));
                None
            }
        }
    } else {
        None
    };
    schema::publishable(&mut input_schema);

    if problems.len() > before {
        return None;
    }
    let text_fast_path = validator.is_none() && schema::every_object_is_closed(&input_schema);
    Some(Entry {
        tool,
        definition: ToolDefinition {
            family: meta.family,
            spec: ToolSpec {
                name: Arc::from(name),
                description: Arc::from(meta.description.trim()),
                input_schema: Arc::new(input_schema),
                freeform_grammar,
            },
            stability: meta.stability,
            visibility: meta.visibility,
            aliases: meta.aliases.to_vec(),
            result_schema: Arc::new(result_schema),
            annotations: meta.annotations,
            task: meta.task,
            input_examples: Arc::new([]),
            keywords: meta.keywords,
            defined_at: site,
        },
        validator,
        full_validator: OnceLock::new(),
        result_validator: OnceLock::new(),
        text_fast_path,
        timeout: tool.timeout(),
        name,
        result_fields,
    })
}

impl Entry {
    /// Adds what only the registry knows to an input error: a field that belongs to the
    /// result is `result_field_in_input`.
    pub(crate) fn enrich(&self, mut error: ToolError) -> ToolError {
        if error.kind != ToolErrorKind::UNKNOWN_FIELD {
            return error;
        }
        let Some(field) = error.field.as_deref() else {
            return error;
        };
        if self.result_fields.iter().any(|result| result == field) {
            let name = &self.definition.spec.name;
            error.kind = ToolErrorKind::RESULT_FIELD_IN_INPUT;
            error.message = format!(
                "`{field}` is a field of {name}'s result, not of its input: result fields are never valid arguments"
            );
            error.recovery_hint = Some(format!(
                "remove `{field}`; the input fields of {name} are: {}",
                self.tool.input_fields().join(", ")
            ));
        }
        error
    }

    /// The validator of the whole input schema, for reporting every problem.
    pub(crate) fn full_validator(&self) -> Option<&Validator> {
        if let Some(validator) = &self.validator {
            return Some(validator);
        }
        self.full_validator
            .get_or_init(|| compile(&self.definition.spec.input_schema).ok())
            .as_ref()
    }

    /// The validator of the result schema (`None` if it does not compile).
    #[cfg_attr(not(feature = "validate"), allow(dead_code))]
    pub(crate) fn result_validator(&self) -> Option<&Validator> {
        self.result_validator
            .get_or_init(|| compile(&self.definition.result_schema).ok())
            .as_ref()
    }
}

/// A compiled JSON Schema (draft 2020-12), with holon-core's `validate` feature.
#[cfg(feature = "validate")]
pub(crate) use jsonschema::Validator;

/// Without the `validate` feature the only validator checks holon's own bound on
/// 64-bit integers: a schema with other constraints serde does not check makes the
/// registry refuse the tool.
#[cfg(not(feature = "validate"))]
pub(crate) use crate::input::integer_bounds::Validator;

/// Compiles `schema`; the error completes "its input schema ...".
#[cfg(feature = "validate")]
fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::draft202012::new(schema).map_err(|error| format!("does not compile: {error}"))
}

/// Without the `validate` feature a schema compiles when its only constraints are
/// integer bounds holon adds itself; otherwise the error says how to get the feature.
#[cfg(not(feature = "validate"))]
fn compile(schema: &Value) -> Result<Validator, String> {
    if schema::unchecked(schema).constraints {
        return Err(
            "has constraints serde does not check (a range, a pattern, a length...), \
             which holon-core checks with the `jsonschema` crate: turn on holon-core's \
             `validate` feature (on by default), or drop the constraint"
                .to_string(),
        );
    }
    Ok(Validator::new(schema))
}

fn is_portable_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    match bytes.next() {
        Some(first) if first.is_ascii_alphabetic() || first == b'_' => {
            name.len() <= 64 && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        }
        _ => false,
    }
}

/// Whether `visibility` may be dispatched in a context with or without runtime access.
pub(crate) fn visible_to(visibility: Visibility, runtime_access: bool) -> bool {
    visibility == Visibility::Model || runtime_access
}

#[cfg(test)]
mod tests {
    use super::RegistryError;

    #[test]
    fn a_registry_error_returned_from_main_prints_one_problem_a_line() {
        let error = RegistryError {
            problems: vec![
                "tool `Add` at src/main.rs:18: the first problem".to_string(),
                "tool `Sub` at src/main.rs:30: the second problem".to_string(),
            ],
        };
        // What the standard library's `Termination` prints for `main`'s `Err(error)`.
        let printed = format!("Error: {error:?}");
        assert_eq!(
            printed,
            "Error: the tool registry is invalid (2 problems):\n  \
             - tool `Add` at src/main.rs:18: the first problem\n  \
             - tool `Sub` at src/main.rs:30: the second problem"
        );
        let boxed: Box<dyn std::error::Error> = Box::new(error.clone());
        assert_eq!(format!("Error: {boxed:?}"), printed);
        assert_eq!(format!("{error}"), format!("{error:?}"));
    }
}
