//! The dispatcher: lookup -> family gate -> input shape -> schema constraints -> typed
//! parse -> handler -> envelope. Whatever the caller sends, it returns a [`ToolResult`];
//! a panicking handler becomes a `tool_panicked` result and the next call works.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Instant, SystemTime};

use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use serde_json::{Value, json};

use crate::arguments::{join_path, shorten, unknown_field};
use crate::context::{Execution, ToolCall, ToolContext, ToolInput};
use crate::error::{ToolError, ToolErrorKind};
use crate::hints::closest;
use crate::output::ToolOutput;
use crate::registry::{Entry, PathStep, Registry, schema_properties_at, visible_to};
use crate::result::{ToolResult, ToolStatus};
use crate::tool::CallFuture;

/// Inputs nested deeper than this are refused before anything recurses into them.
pub const MAX_INPUT_DEPTH: usize = 128;

impl Registry {
    /// Dispatches one call and returns its envelope. Never panics and never returns a
    /// Rust error: every failure is a `ToolResult` with `status = error`.
    pub async fn dispatch(&self, context: &ToolContext, call: ToolCall) -> ToolResult {
        // One async fn for the whole pipeline: a synchronous handler completes on the
        // first poll, and only an async handler's boxed future lives across the await.
        let observed = context.observer().map(|observer| {
            // The input is moved into the parse, so an observer gets it serialized first.
            let input_json = call.input.to_string();
            (
                observer,
                input_json,
                call.name.clone(),
                SystemTime::now(),
                Instant::now(),
            )
        });
        let ToolCall {
            name,
            input,
            call_id,
        } = call;
        let outcome = match self.resolve(context, &name) {
            Err(error) => {
                dispose(input);
                // A name that is not a tool is echoed, but never a huge one whole.
                Err((Arc::from(shorten(&name)), error))
            }
            Ok(entry) => match self.start(entry, context, input) {
                Err(error) => Err((entry.definition.spec.name.clone(), enrich(entry, error))),
                Ok(Started::Finished(output)) => Ok((entry, output)),
                Ok(Started::Running(future)) => match (CatchUnwind { future }).await {
                    Ok(Ok(output)) => Ok((entry, output)),
                    Ok(Err(error)) => {
                        Err((entry.definition.spec.name.clone(), enrich(entry, error)))
                    }
                    Err(payload) => Err((entry.definition.spec.name.clone(), panicked(payload))),
                },
            },
        };
        let mut result = match outcome {
            Ok((entry, output)) => success(entry, output),
            Err((tool_name, error)) => ToolResult::from_error(tool_name, error),
        };
        result.call_id = call_id;
        if let Some((observer, input_json, requested_name, started_at, started)) = observed {
            observer.record(&Execution {
                requested_name: &requested_name,
                input_json: &input_json,
                result: &result,
                started_at,
                elapsed: started.elapsed(),
            });
        }
        result
    }

    /// Lookup, visibility and the family gate.
    fn resolve(&self, context: &ToolContext, name: &str) -> Result<&Entry, ToolError> {
        let found = self
            .lookup
            .get(name)
            .map(|index| &self.entries[*index])
            .filter(|entry| visible_to(entry.definition.visibility, context.has_runtime_access()));
        let Some(entry) = found else {
            let visible = self
                .entries
                .iter()
                .filter(|e| visible_to(e.definition.visibility, context.has_runtime_access()))
                .filter(|e| context.policy().allows(e.definition.family))
                .map(|e| &*e.definition.spec.name);
            let mut error = ToolError::new(
                ToolErrorKind::UNKNOWN_TOOL,
                format!("there is no tool named `{}`", shorten(name)),
            );
            error.recovery_hint = Some(match closest(name, visible) {
                Some(best) => format!("did you mean `{best}`?"),
                None => "call one of the tools you were given, by its exact name".to_string(),
            });
            return Err(error);
        };
        let family = entry.definition.family;
        if !context.policy().allows(family) {
            let allowed: Vec<&str> = context.policy().families().map(|f| f.as_str()).collect();
            return Err(ToolError::new(
                ToolErrorKind::FAMILY_NOT_ALLOWED,
                format!(
                    "`{}` belongs to the capability family `{family}`, which this caller may not use",
                    entry.definition.spec.name
                ),
            )
            .with_details(json!({ "family": family, "allowed": allowed }))
            .with_hint(
                "use a tool of an allowed family, or ask the operator for a profile that includes this family",
            ));
        }
        Ok(entry)
    }

    /// Runs every step of [`Registry::dispatch`] up to, but not including, the
    /// handler: lookup, family gate, input shape, schema constraints and the typed
    /// parse. `Ok` means `dispatch` would hand this input to the handler. Nothing the
    /// tool does is triggered, so it is safe on tools with side effects.
    pub fn check(&self, context: &ToolContext, call: ToolCall) -> Result<(), ToolError> {
        let ToolCall { name, input, .. } = call;
        let entry = match self.resolve(context, &name) {
            Ok(entry) => entry,
            Err(error) => {
                dispose(input);
                return Err(error);
            }
        };
        validate(entry, input)
            .and_then(|input| entry.tool.check_input(input))
            .map_err(|error| enrich(entry, error))
    }

    /// Shape, schema constraints, typed parse and the handler's first step.
    fn start<'a>(
        &self,
        entry: &'a Entry,
        context: &'a ToolContext,
        input: Value,
    ) -> Result<Started<'a>, ToolError> {
        let input = validate(entry, input)?;
        let tool = entry.tool;
        match catch_unwind(AssertUnwindSafe(|| tool.call(context, input))) {
            Err(payload) => Err(panicked(payload)),
            Ok(CallFuture::Ready(Some(output))) => output.map(Started::Finished),
            Ok(CallFuture::Ready(None)) => Err(ToolError::new(
                ToolErrorKind::INTERNAL_ERROR,
                "the tool returned an already consumed result",
            )),
            Ok(CallFuture::Boxed(future)) => Ok(Started::Running(future)),
        }
    }
}

/// The input's shape and the schema constraints serde does not check.
fn validate(entry: &Entry, input: Value) -> Result<ToolInput, ToolError> {
    let input = shape(entry, input)?;
    if let (Some(validator), ToolInput::Json(value)) = (&entry.validator, &input)
        && let Err(error) = validator.validate(value)
    {
        let error = schema_error(entry, &error);
        if let ToolInput::Json(value) = input {
            dispose(value);
        }
        return Err(error);
    }
    Ok(input)
}

/// How a handler came back from its first step.
enum Started<'a> {
    /// A synchronous handler, done.
    Finished(ToolOutput),
    /// An async handler, still to be polled.
    Running(Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + 'a>>),
}

/// The envelope of a successful call.
fn success(entry: &Entry, output: ToolOutput) -> ToolResult {
    let status = if output.deferred.is_some() {
        ToolStatus::Deferred
    } else {
        ToolStatus::Success
    };
    ToolResult {
        tool_name: entry.definition.spec.name.clone(),
        call_id: None,
        status,
        summary: output.summary,
        content: output.content,
        structured: Some(output.value),
        artifacts: output.artifacts,
        error: None,
        directive: output.deferred,
        receipt: output.receipt,
    }
}

/// Checks the input's shape: an object, or a string for a freeform tool, and not
/// nested deeper than [`MAX_INPUT_DEPTH`].
fn shape(entry: &Entry, input: Value) -> Result<ToolInput, ToolError> {
    let freeform = entry.definition.spec.freeform_grammar.as_ref();
    match input {
        // The typed parse bounds depth itself; the schema validator recurses, so an
        // input it will see is measured first.
        Value::Object(_) if entry.validator.is_some() && exceeds_depth(&input, MAX_INPUT_DEPTH) => {
            dispose(input);
            Err(ToolError::invalid_input(format!(
                "the input nests deeper than {MAX_INPUT_DEPTH} levels"
            ))
            .with_hint("send a flat object with the fields of the tool's schema"))
        }
        Value::Object(_) => Ok(ToolInput::Json(input)),
        Value::String(text) if freeform.is_some() => Ok(ToolInput::Freeform(text)),
        other => {
            let kind = json_kind(&other);
            dispose(other);
            let expected = match freeform {
                Some(grammar) => format!(
                    "a JSON object, or a string of raw text in the tool's {} grammar",
                    grammar.syntax.as_str()
                ),
                None => "a JSON object".to_string(),
            };
            Err(
                ToolError::invalid_input(format!("the input must be {expected}, not {kind}"))
                    .with_hint(
                        "send the arguments as a JSON object whose fields the tool's schema lists",
                    ),
            )
        }
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Whether `value` nests deeper than `limit`. Recursion stops at `limit`, so the
/// stack stays bounded whatever the input, and nothing is allocated.
fn exceeds_depth(value: &Value, limit: usize) -> bool {
    let Some(remaining) = limit.checked_sub(1) else {
        return true;
    };
    match value {
        Value::Array(items) => items.iter().any(|item| exceeds_depth(item, remaining)),
        Value::Object(map) => map.values().any(|item| exceeds_depth(item, remaining)),
        _ => false,
    }
}

/// Drops a value without recursion, so that a maliciously deep input cannot overflow
/// the stack when it is freed.
pub(crate) fn dispose(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// Adds what only the registry knows to a handler's error: a field that belongs to
/// the result is `result_field_in_input`.
fn enrich(entry: &Entry, mut error: ToolError) -> ToolError {
    if error.kind != ToolErrorKind::UNKNOWN_FIELD {
        return error;
    }
    let Some(field) = error.field.as_deref() else {
        return error;
    };
    if entry.result_fields.iter().any(|result| result == field) {
        let name = &entry.definition.spec.name;
        error.kind = ToolErrorKind::RESULT_FIELD_IN_INPUT;
        error.message = format!(
            "`{field}` is a field of {name}'s result, not of its input: result fields are never valid arguments"
        );
        error.recovery_hint = Some(format!(
            "remove `{field}`; the input fields of {name} are: {}",
            entry.tool.input_fields().join(", ")
        ));
    }
    error
}

/// Turns a schema violation into a typed error with the field path.
fn schema_error(entry: &Entry, error: &jsonschema::ValidationError<'_>) -> ToolError {
    let segments: Vec<LocationSegment<'_>> = error.instance_path().iter().collect();
    let mut steps = Vec::with_capacity(segments.len());
    let mut path = String::new();
    for segment in &segments {
        match segment {
            LocationSegment::Property(key) => {
                path = join_path(&path, key);
                steps.push(PathStep::Key(key));
            }
            LocationSegment::Index(index) => {
                path.push_str(&format!("[{index}]"));
                steps.push(PathStep::Index);
            }
        }
    }
    let schema = &entry.definition.spec.input_schema;
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let expected = schema_properties_at(schema, &steps);
            let field = unexpected.first().map(String::as_str).unwrap_or_default();
            enrich(entry, unknown_field(field, &path, &expected))
        }
        ValidationErrorKind::Required { property } => {
            let property = property.as_str().unwrap_or_default();
            let full = join_path(&path, property);
            ToolError::invalid_input(format!("missing required field `{full}`"))
                .with_field(full.clone())
                .with_hint(format!("add `{full}` to the input"))
        }
        ValidationErrorKind::Enum { options } => {
            let valid: Vec<&str> = options
                .as_array()
                .map(|values| values.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            one_of_error(path, error.instance(), valid)
        }
        // An enum with documented variants is a `oneOf` of string constants.
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context }
            if constant_options(context).is_some() =>
        {
            let valid = constant_options(context).unwrap_or_default();
            one_of_error(path, error.instance(), valid)
        }
        _ => {
            let subject = if path.is_empty() {
                "the input".to_string()
            } else {
                format!("`{path}`")
            };
            let keyword = error.kind().keyword();
            // Quote the offending value only when it is small: the message of an
            // error about a 10 MB value must not be 10 MB.
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
    }
}

/// The string constants of a `oneOf`/`anyOf` whose every branch failed on a `const`
/// or `enum` of strings (the schema of an enum with documented variants).
fn constant_options<'e>(
    branches: &'e [Vec<jsonschema::ValidationError<'static>>],
) -> Option<Vec<&'e str>> {
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
    let mut tool_error =
        ToolError::invalid_input(format!("`{path}` must be one of: {}", valid.join(", ")))
            .with_field(path)
            .with_details(json!({ "expected": valid }));
    tool_error.recovery_hint = Some(match hint {
        Some(best) => format!("did you mean `{best}`?"),
        None => format!("use one of: {}", valid.join(", ")),
    });
    tool_error
}

fn panicked(payload: Box<dyn Any + Send>) -> ToolError {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-text panic payload".to_string());
    ToolError::new(
        ToolErrorKind::TOOL_PANICKED,
        format!("the tool crashed while handling this call: {message}"),
    )
    .with_hint("this is a bug in the tool, not in the call; try another approach or report it")
}

/// Polls an async handler and turns a panic inside it into an error value.
struct CatchUnwind<'a> {
    future: Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + 'a>>,
}

impl Future for CatchUnwind<'_> {
    type Output = Result<Result<ToolOutput, ToolError>, Box<dyn Any + Send>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = &mut self.get_mut().future;
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}
