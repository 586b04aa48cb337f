//! The dispatcher: lookup -> family gate -> input shape -> schema constraints -> typed
//! parse -> handler -> envelope. Whatever the caller sends, it returns a [`ToolResult`];
//! a panicking handler becomes a `tool_panicked` result and the next call works.

use std::any::Any;
use std::borrow::Cow;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};

use crate::asked::AskedCalls;
use crate::host::cancel::Cancellation;
use crate::host::context::{
    CallGate, Decision, DispatchObserver, Execution, GateAnswer, GatedTool, ToolCall, ToolContext,
};
use crate::input::depth::{MAX_INPUT_DEPTH, dispose, exceeds_depth};
use crate::input::hints::closest;
use crate::input::json_kind::json_kind;
use crate::input::json_text;
use crate::input::problems::{self, Category, Problem, combine, not_json, repeated_keys, shorten};
use crate::input::{JsonArguments, ToolInput};
use crate::registry::{Entry, Registry, visible_to};
use crate::result::error::{ToolError, ToolErrorKind};
use crate::result::output::ToolOutput;
use crate::result::{ApprovalRequired, Deferral, ToolResult};
use crate::result_check::check_result;
use crate::schema_problems::report;
use crate::tool::CallFuture;

/// The arguments of a call as the caller has them. A `Value` is boxed: the
/// arguments are moved into each step of a call, and text is the common case.
enum Arguments<'t> {
    /// Already parsed, by a transport such as MCP.
    Value(Box<Value>),
    /// The JSON text a provider sent (OpenAI's `arguments`, a CLI line).
    Text(&'t str),
    /// A parsed `Value` and its text, written already for the call's observer.
    Written(Box<Value>, &'t str),
}

/// Arguments whose shape the dispatcher checked, ready for the tool to parse.
enum Prepared<'t> {
    /// The text of an object, no deeper than [`MAX_INPUT_DEPTH`], that passed the
    /// schema's constraints or whose typed parse checks everything itself.
    Text(Cow<'t, str>),
    /// Raw text for a freeform tool.
    Freeform(String),
}

impl Arguments<'_> {
    /// Drops arguments no tool will parse (a `Value` without recursion).
    fn dispose(self) {
        if let Arguments::Value(value) | Arguments::Written(value, _) = self {
            dispose(*value);
        }
    }
}

impl<'t> Arguments<'t> {
    /// The arguments, with the text written for the observer when they are a `Value`:
    /// that text is the text the tool parses.
    fn written<'o>(self, observed: Option<&'o Observed<'_>>) -> Arguments<'o>
    where
        't: 'o,
    {
        match (self, observed) {
            (Arguments::Value(value), Some(observed)) => {
                Arguments::Written(value, &observed.input_json)
            }
            (arguments, _) => arguments,
        }
    }
}

impl Prepared<'_> {
    /// What the tool gets: a borrow of the arguments (the raw text of a freeform
    /// call is handed over).
    fn tool_input<'s>(&'s mut self, entry: &'s Entry) -> ToolInput<'s> {
        match self {
            Prepared::Text(text) => ToolInput::Json(JsonArguments::new(text, entry)),
            Prepared::Freeform(text) => ToolInput::Freeform(std::mem::take(text)),
        }
    }
}

/// A checked input: the object, or a freeform tool's raw text.
enum Shaped {
    Object(Value),
    Freeform(String),
}

/// What the observer needs of a call, taken when it starts.
struct Observed<'a> {
    observer: &'a dyn DispatchObserver,
    input_json: Cow<'a, str>,
    started_at: SystemTime,
    started: Instant,
}

impl Registry {
    /// Dispatches one call and returns its envelope. Never panics and never returns a
    /// Rust error: every failure is a `ToolResult` with `status = error`.
    ///
    /// The input is a `Value` that the transport already parsed (MCP hands its
    /// `arguments` over as one): a key the JSON text repeated was collapsed to its
    /// last value before the dispatcher saw it. Where the JSON text is at hand (a
    /// provider's `arguments` string, a command line), use
    /// [`Registry::dispatch_text`], which refuses repeated keys and is faster.
    ///
    /// Nothing runs until the returned future is first polled.
    pub fn dispatch<'a>(
        &'a self,
        context: &'a ToolContext,
        call: ToolCall,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        let ToolCall {
            name,
            input,
            call_id,
        } = call;
        self.traced(
            context,
            Cow::Owned(name),
            Arguments::Value(Box::new(input)),
            call_id,
            Gate::Consult,
        )
    }

    /// Dispatches a call whose arguments are the JSON text a provider sent (OpenAI's
    /// `arguments` string, a CLI line), parsed straight into the tool's argument type
    /// without a `Value` in between where the tool's schema allows. A key given twice,
    /// at any depth, is refused as `duplicate_field` with its path. A freeform tool
    /// takes its raw text as a JSON string.
    ///
    /// Nothing runs until the returned future is first polled.
    pub fn dispatch_text<'a>(
        &'a self,
        context: &'a ToolContext,
        name: &'a str,
        arguments: &'a str,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        self.traced(
            context,
            Cow::Borrowed(name),
            Arguments::Text(arguments),
            None,
            Gate::Consult,
        )
    }

    /// Dispatches a call the operator approved: the context's [`CallGate`] is not
    /// consulted again (the family gate and every input check are), and the observer
    /// sees the call as [`Decision::Approved`]. For the gate that checked the
    /// operator's decision; a caller's calls go through [`Registry::dispatch`].
    pub async fn dispatch_approved(
        &self,
        context: &ToolContext,
        name: &str,
        input: Value,
    ) -> ToolResult {
        self.traced(
            context,
            Cow::Borrowed(name),
            Arguments::Value(Box::new(input)),
            None,
            Gate::Approved,
        )
        .await
    }

    /// [`Registry::dispatch_text`] of a call the caller gave an id: the result echoes
    /// it, and the context's observer sees it (an audit record names the call).
    pub fn dispatch_text_with_id<'a>(
        &'a self,
        context: &'a ToolContext,
        name: &'a str,
        arguments: &'a str,
        call_id: Option<String>,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        self.traced(
            context,
            Cow::Borrowed(name),
            Arguments::Text(arguments),
            call_id,
            Gate::Consult,
        )
    }

    /// [`Registry::run`] inside the call's span, which records how it ended.
    #[cfg(feature = "tracing")]
    fn traced<'a>(
        &'a self,
        context: &'a ToolContext,
        name: Cow<'a, str>,
        arguments: Arguments<'a>,
        call_id: Option<String>,
        gate: Gate,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        use tracing::Instrument as _;
        let span = crate::host::telemetry::call_span(&name, call_id.as_deref());
        let finished = span.clone();
        async move {
            let result = self.run(context, name, arguments, call_id, gate).await;
            crate::host::telemetry::record_outcome(&finished, &result);
            result
        }
        .instrument(span)
    }

    /// [`Registry::run`]: without the `tracing` feature a call has no span.
    #[cfg(not(feature = "tracing"))]
    fn traced<'a>(
        &'a self,
        context: &'a ToolContext,
        name: Cow<'a, str>,
        arguments: Arguments<'a>,
        call_id: Option<String>,
        gate: Gate,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        self.run(context, name, arguments, call_id, gate)
    }

    /// Every call: the observer's view of it, the lookup and family gate, the tool's
    /// run, the envelope under the call's id, and the observer.
    async fn run(
        &self,
        context: &ToolContext,
        name: Cow<'_, str>,
        arguments: Arguments<'_>,
        call_id: Option<String>,
        gate: Gate,
    ) -> ToolResult {
        let mut observed = context.observer().map(|observer| Observed {
            observer,
            input_json: match &arguments {
                // The input is parsed by reference, but it is serialized first all
                // the same, so the observer sees it as sent.
                Arguments::Value(value) => Cow::Owned(json_text::write(value)),
                Arguments::Text(text) | Arguments::Written(_, text) => Cow::Borrowed(*text),
            },
            started_at: SystemTime::now(),
            started: Instant::now(),
        });
        // Set by the policy's gate; read only by the observer.
        let mut decision = gate.decision();
        let mut granted_by = None;
        // Not `resolve`: its `Result` would be kept across the call's `await`.
        let mut result = 'call: {
            match self.allowed(context, &name) {
                Some(entry) => {
                    let arguments = arguments.written(observed.as_ref());
                    let arguments = match (gate, context.call_gate()) {
                        (Gate::Consult, Some(call_gate)) => {
                            match consult(call_gate, entry, context, arguments) {
                                Consulted::Run(arguments, grant) => {
                                    granted_by = grant;
                                    arguments
                                }
                                Consulted::Answered(answer, decided) => {
                                    decision = decided;
                                    let Some(asked) = approval_asked(decided, &answer) else {
                                        break 'call answer;
                                    };
                                    // Boxed, with what it needs moved in: the common
                                    // call's future carries nothing of it.
                                    let (result, by_gate) =
                                        Box::pin(after_asking(self, context, entry, answer, asked))
                                            .await;
                                    if by_gate {
                                        // The gate's own dispatch observed the run (or why
                                        // it did not run): this call is not recorded twice.
                                        observed = None;
                                    }
                                    break 'call result;
                                }
                            }
                        }
                        _ => arguments,
                    };
                    // Each step's result is a local, moved out of before the `await`: a
                    // `match` on a call would keep its `Result` in this future.
                    let prepared = prepare_call(entry, context, arguments);
                    let outcome = match prepared {
                        Err(error) => Err(error),
                        Ok(mut prepared) => match context.timeout().or(entry.timeout) {
                            None => {
                                let handler = start(entry, context, &mut prepared);
                                match handler {
                                    // A synchronous handler has finished: nothing to wait for.
                                    Ok(CallFuture::Ready(ready)) => ready.into_inner(),
                                    // Boxed, so that the common call's future does not carry
                                    // the waiting's state.
                                    Ok(handler) => {
                                        Box::pin(finish(handler, context.cancellation(), None))
                                            .await
                                    }
                                    Err(error) => Err(error),
                                }
                            }
                            Some(limit) => Box::pin(limited(entry, context, prepared, limit)).await,
                        },
                    };
                    match outcome.map_err(|error| entry.enrich(error)) {
                        Ok(output) => succeeded(entry, output),
                        Err(error) => ToolResult::from_error(entry.name, error),
                    }
                }
                None => {
                    arguments.dispose();
                    decision = Decision::Refused;
                    let error = self.refusal(context, &name, self.entry(&name));
                    // A name that is not a tool is echoed, but never a huge one whole.
                    ToolResult::from_error(shorten(&name).into_owned(), error)
                }
            }
        };
        result.call_id = call_id;
        if let Some(observed) = observed {
            observed.observer.record(&Execution {
                requested_name: &name,
                input_json: &observed.input_json,
                result: &result,
                started_at: observed.started_at,
                elapsed: observed.started.elapsed(),
                context,
                decision,
                granted_by: granted_by.as_deref(),
            });
        }
        result
    }

    /// Lookup, visibility and the family gate: the entry, or why the caller may not
    /// call `name`.
    fn resolve(&self, context: &ToolContext, name: &str) -> Result<&Entry, ToolError> {
        match self.allowed(context, name) {
            Some(entry) => Ok(entry),
            None => Err(self.refusal(context, name, self.entry(name))),
        }
    }

    /// The entry of `name` when the caller may call it: a lookup and two tests.
    fn allowed(&self, context: &ToolContext, name: &str) -> Option<&Entry> {
        self.entry(name).filter(|entry| {
            visible_to(entry.definition.visibility, context.has_runtime_access())
                && context.policy().allows(entry.definition.family)
        })
    }

    fn entry(&self, name: &str) -> Option<&Entry> {
        self.lookup.get(name).map(|index| &self.entries[*index])
    }

    /// Why [`Registry::resolve`] refused `name`, whose entry is `found` if it has one.
    fn refusal(&self, context: &ToolContext, name: &str, found: Option<&Entry>) -> ToolError {
        let found = found
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
            return error;
        };
        let family = entry.definition.family;
        let allowed: Vec<&str> = context.policy().families().map(|f| f.as_str()).collect();
        ToolError::new(
            ToolErrorKind::FAMILY_NOT_ALLOWED,
            format!(
                "`{}` belongs to the capability family `{family}`, which this caller may not use",
                entry.definition.spec.name
            ),
        )
        .with_details(json!({ "family": family, "allowed": allowed }))
        .with_hint(
            "use a tool of an allowed family, or ask the operator for a profile that includes this family",
        )
    }

    /// Runs every step of [`Registry::dispatch`] up to, but not including, the
    /// handler: lookup, family gate, input shape, schema constraints and the typed
    /// parse. `Ok` means `dispatch` would hand this input to the handler. Nothing the
    /// tool does is triggered, so it is safe on tools with side effects.
    pub fn check(&self, context: &ToolContext, call: ToolCall) -> Result<(), ToolError> {
        self.check_arguments(context, &call.name, Arguments::Value(Box::new(call.input)))
    }

    /// [`Registry::check`] of a call whose arguments are JSON text, as
    /// [`Registry::dispatch_text`] takes them.
    pub fn check_text(
        &self,
        context: &ToolContext,
        name: &str,
        arguments: &str,
    ) -> Result<(), ToolError> {
        self.check_arguments(context, name, Arguments::Text(arguments))
    }

    fn check_arguments(
        &self,
        context: &ToolContext,
        name: &str,
        arguments: Arguments<'_>,
    ) -> Result<(), ToolError> {
        let entry = match self.resolve(context, name) {
            Ok(entry) => entry,
            Err(error) => {
                arguments.dispose();
                return Err(error);
            }
        };
        check_input_of(entry, arguments)
    }
}

/// Whether a call is put to the host's approval policy.
#[derive(Clone, Copy)]
enum Gate {
    /// Consult the policy (every call a caller makes).
    Consult,
    /// The operator approved this call: run it.
    Approved,
}

impl Gate {
    /// The decision a call through this gate has unless the policy says otherwise.
    fn decision(self) -> Decision {
        match self {
            Gate::Consult => Decision::Allowed,
            Gate::Approved => Decision::Approved,
        }
    }
}

/// What the host's policy made of a call before it runs.
enum Consulted<'t> {
    /// Run it, with these arguments; allowed by the standing grant of the operator
    /// named, if one did.
    Run(Arguments<'t>, Option<String>),
    /// Do not run it: this is the answer (a refusal, or the deferred envelope of a
    /// call stored for the operator).
    Answered(ToolResult, Decision),
}

/// A call under the host's approval policy: run, refused, or stored for the operator.
/// Synchronous, so that the common call's future carries nothing of it.
fn consult<'t>(
    call_gate: &dyn CallGate,
    entry: &Entry,
    context: &ToolContext,
    arguments: Arguments<'t>,
) -> Consulted<'t> {
    let tool = GatedTool {
        name: entry.name,
        family: entry.definition.family,
        annotations: &entry.definition.annotations,
    };
    match call_gate.consult(&tool, context) {
        GateAnswer::Run { granted_by } => Consulted::Run(arguments, granted_by),
        GateAnswer::Refuse { why } => {
            arguments.dispose();
            let error = ToolError::new(
                ToolErrorKind::POLICY_DENIED,
                format!(
                    "the host's policy does not let this caller run `{}`: {why}",
                    entry.name,
                ),
            )
            .with_hint(
                "do not retry this call; use another tool, or ask the operator to change the policy",
            );
            Consulted::Answered(ToolResult::from_error(entry.name, error), Decision::Refused)
        }
        // The operator is asked only about a call the tool would take: an input it
        // refuses is answered now, as without a policy.
        GateAnswer::Ask { why } => match asked_input(entry, arguments) {
            Ok(input) => {
                Consulted::Answered(call_gate.defer(&tool, context, input, why), Decision::Asked)
            }
            Err(error) => {
                Consulted::Answered(ToolResult::from_error(entry.name, error), Decision::Refused)
            }
        },
    }
}

/// The approval a gate's answer asks for, when the gate asked.
fn approval_asked(decided: Decision, answer: &ToolResult) -> Option<ApprovalRequired> {
    match (decided, answer.deferral()) {
        (Decision::Asked, Some(Deferral::ApprovalRequired(asked))) => Some(asked.clone()),
        _ => None,
    }
}

/// The result of a call the gate asked about: the run of that very call when the
/// operator approved it out of band already (see [`AskedCalls::approved_run`]), else
/// the gate's `answer`; and whether the gate's own dispatch observed the run (or why
/// it did not run), so that the call is not recorded twice.
async fn after_asking(
    registry: &Registry,
    context: &ToolContext,
    entry: &Entry,
    answer: ToolResult,
    asked: ApprovalRequired,
) -> (ToolResult, bool) {
    let approved = context
        .state::<Arc<dyn AskedCalls>>()
        .ok()
        .and_then(|asked_calls| asked_calls.approved_run(registry, context, &asked));
    match approved {
        Some(run) => (
            run.await
                .unwrap_or_else(|error| ToolResult::from_error(entry.name, error)),
            true,
        ),
        None => (answer, false),
    }
}

/// The arguments of an asked call as a `Value`, once every input check passed.
fn asked_input(entry: &Entry, arguments: Arguments<'_>) -> Result<Value, ToolError> {
    let value = match arguments {
        Arguments::Value(value) | Arguments::Written(value, _) => *value,
        Arguments::Text(text) => match json_text::parse(text) {
            Ok(parsed) if parsed.duplicates.is_empty() => parsed.value,
            // The checks say what is wrong with it, as they would without a policy.
            _ => {
                check_input_of(entry, Arguments::Text(text))?;
                return Err(ToolError::invalid_input("the input is not a JSON value"));
            }
        },
    };
    check_prepared_input(entry, value.clone())?;
    Ok(value)
}

/// The caller's cancellation, then the input's shape, schema constraints and the
/// text the tool parses.
fn prepare_call<'t>(
    entry: &Entry,
    context: &ToolContext,
    arguments: Arguments<'t>,
) -> Result<Prepared<'t>, ToolError> {
    if context.cancellation().is_cancelled() {
        arguments.dispose();
        return Err(ToolError::cancelled());
    }
    prepare(entry, arguments)
}

/// Calls the tool's handler on `prepared`: its future, or the error of a handler that
/// panicked before returning one (a synchronous handler runs here).
fn start<'a>(
    entry: &'a Entry,
    context: &'a ToolContext,
    prepared: &'a mut Prepared<'_>,
) -> Result<CallFuture<'a>, ToolError> {
    let input = prepared.tool_input(entry);
    catch_unwind(AssertUnwindSafe(|| entry.tool.call(context, input))).map_err(panicked)
}

/// Runs the tool under a time limit: the handler gets a cancellation of its own,
/// which fires at the limit (and with the caller's).
async fn limited(
    entry: &Entry,
    context: &ToolContext,
    mut prepared: Prepared<'_>,
    limit: Duration,
) -> Result<ToolOutput, ToolError> {
    let limited = context
        .clone()
        .with_cancellation(context.cancellation().child());
    let handler = start(entry, &limited, &mut prepared)?;
    finish(handler, limited.cancellation(), Some(limit)).await
}

/// Everything [`Registry::check`] runs after the lookup: shape, constraints, typed parse.
fn check_input_of(entry: &Entry, arguments: Arguments<'_>) -> Result<(), ToolError> {
    prepare(entry, arguments)
        .and_then(|mut prepared| entry.tool.check_input(prepared.tool_input(entry)))
        .map_err(|error| entry.enrich(error))
}

/// [`check_input_of`] a parsed input (an input example, when the registry is built).
pub(crate) fn check_prepared_input(entry: &Entry, input: Value) -> Result<(), ToolError> {
    check_input_of(entry, Arguments::Value(Box::new(input)))
}

/// The input's shape and the schema constraints serde does not check. JSON text is
/// parsed into a `Value` only when the tool needs one: for its constraints, or
/// because a map or any-value field would keep the last of repeated keys. The tool
/// parses text: a `Value` is written as text once checked. Text the tool's typed
/// parse checks fully is handed over as it is; the rest is [`checked`].
fn prepare<'t>(entry: &Entry, arguments: Arguments<'t>) -> Result<Prepared<'t>, ToolError> {
    match arguments {
        Arguments::Text(text) if entry.text_fast_path && opens_object(text) => {
            Ok(Prepared::Text(Cow::Borrowed(text)))
        }
        arguments => checked(entry, arguments),
    }
}

/// [`prepare`] of arguments the dispatcher looks at before the tool parses them.
fn checked<'t>(entry: &Entry, arguments: Arguments<'t>) -> Result<Prepared<'t>, ToolError> {
    let (value, text) = match arguments {
        Arguments::Value(value) => (*value, None),
        Arguments::Written(value, text) => (*value, Some(text)),
        Arguments::Text(text) => {
            let parsed = json_text::parse(text).map_err(|error| combine(vec![not_json(&error)]))?;
            if !parsed.duplicates.is_empty() && parsed.value.is_object() {
                let repeated = repeated_keys(&parsed.duplicates);
                return Err(report(entry, &parsed.value, repeated, None));
            }
            (parsed.value, Some(text))
        }
    };
    Ok(match shape(entry, value)? {
        Shaped::Object(value) => {
            constraints(entry, &value)?;
            Prepared::Text(match text {
                Some(text) => Cow::Borrowed(text),
                None => Cow::Owned(json_text::write(&value)),
            })
        }
        Shaped::Freeform(raw) => Prepared::Freeform(raw),
    })
}

/// Whether JSON text starts with `{` after JSON's own whitespace (the only whitespace
/// serde_json skips, so other text goes the way that reports it).
fn opens_object(text: &str) -> bool {
    text.bytes()
        .find(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r'))
        == Some(b'{')
}

/// The schema's constraints serde does not check, on a checked object.
fn constraints(entry: &Entry, value: &Value) -> Result<(), ToolError> {
    match &entry.validator {
        Some(validator) if !validator.is_valid(value) => {
            Err(report(entry, value, Vec::new(), None))
        }
        _ => Ok(()),
    }
}

/// The envelope of a tool's output, under its name (of an error, when a debug build
/// finds that the result does not fit the tool's result schema).
fn succeeded(entry: &Entry, output: ToolOutput) -> ToolResult {
    match check_result(entry, &output.value) {
        Ok(()) => ToolResult::of_output(entry.name, output),
        Err(error) => ToolResult::from_error(entry.name, error),
    }
}

/// Checks the input's shape: an object no deeper than [`MAX_INPUT_DEPTH`] (the
/// schema validator and serde's `Value` deserializer recurse), or a string for a
/// freeform tool.
fn shape(entry: &Entry, input: Value) -> Result<Shaped, ToolError> {
    let freeform = entry.definition.spec.freeform_grammar.as_ref();
    match input {
        Value::Object(_) if exceeds_depth(&input, MAX_INPUT_DEPTH) => {
            dispose(input);
            Err(combine(vec![Problem::new(
                Category::WrongType,
                problems::too_deep(),
            )]))
        }
        Value::Object(_) => Ok(Shaped::Object(input)),
        Value::String(text) if freeform.is_some() => Ok(Shaped::Freeform(text)),
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
            Err(combine(vec![Problem::new(
                Category::WrongType,
                ToolError::invalid_input(format!("the input must be {expected}, not {kind}"))
                    .with_hint(
                        "send the arguments as a JSON object whose fields the tool's schema lists",
                    ),
            )]))
        }
    }
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

/// Runs a handler to its end, its cancellation, or its time limit, whichever comes
/// first. Cancelled or out of time, the handler's future is dropped (which stops what
/// it owns: a command's process group, a connection) and its cancellation fires
/// (which stops what it spawned).
async fn finish(
    handler: CallFuture<'_>,
    cancellation: &Cancellation,
    limit: Option<Duration>,
) -> Result<ToolOutput, ToolError> {
    let mut handler = CatchUnwind(handler);
    // A handler that finishes on its first poll needs no timer: it runs under a time
    // limit outside a Tokio runtime too.
    let first = std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut handler).poll(cx))).await;
    if let Poll::Ready(outcome) = first {
        return outcome.unwrap_or_else(|payload| Err(panicked(payload)));
    }
    let mut deadline = limit.map(start_timer).transpose()?;
    let mut cancelled = std::pin::pin!(cancellation.cancelled());
    let ended = std::future::poll_fn(|cx| {
        if cancellation.is_cancelled() {
            return Poll::Ready(Ended::Cancelled);
        }
        if let Poll::Ready(outcome) = Pin::new(&mut handler).poll(cx) {
            return Poll::Ready(Ended::Returned(outcome));
        }
        if cancelled.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Ended::Cancelled);
        }
        if let Some(timer) = &mut deadline
            && timer.as_mut().poll(cx).is_ready()
        {
            return Poll::Ready(Ended::OutOfTime);
        }
        Poll::Pending
    })
    .await;
    drop(handler);
    match ended {
        Ended::Returned(Ok(outcome)) => outcome,
        Ended::Returned(Err(payload)) => Err(panicked(payload)),
        Ended::Cancelled => Err(ToolError::cancelled()),
        Ended::OutOfTime => {
            cancellation.cancel();
            Err(ToolError::timed_out(limit.unwrap_or_default()))
        }
    }
}

/// How [`finish`] ended.
enum Ended {
    /// The handler returned (or panicked).
    Returned(std::thread::Result<Result<ToolOutput, ToolError>>),
    /// The caller cancelled the call.
    Cancelled,
    /// The time limit passed.
    OutOfTime,
}

/// The timer of a time limit. Tokio's timer panics outside a runtime with its time
/// driver; that is the host's misconfiguration, reported as an error of the call.
fn start_timer(limit: Duration) -> Result<Pin<Box<tokio::time::Sleep>>, ToolError> {
    catch_unwind(|| Box::pin(tokio::time::sleep(limit))).map_err(|_| {
        ToolError::new(
            ToolErrorKind::INTERNAL_ERROR,
            "this call has a time limit, and the host runs it outside a Tokio runtime with its timer enabled",
        )
        .with_hint("the host must dispatch calls with a time limit on a Tokio runtime built with `enable_time()`")
    })
}

/// Polls a handler's future and turns a panic inside it into an error value.
struct CatchUnwind<'a>(CallFuture<'a>);

impl Future for CatchUnwind<'_> {
    type Output = std::thread::Result<Result<ToolOutput, ToolError>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match catch_unwind(AssertUnwindSafe(|| Pin::new(&mut self.0).poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}
