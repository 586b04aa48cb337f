//! The dispatcher: lookup -> family gate -> input shape -> schema constraints -> typed
//! parse -> handler -> envelope. Whatever the caller sends, it returns a [`ToolResult`];
//! a panicking handler becomes a `tool_panicked` result and the next call works.

use std::any::Any;
use std::borrow::Cow;
use std::future::Future;
use std::mem::ManuallyDrop;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};

use crate::cancel::Cancellation;
use crate::context::{DispatchObserver, Execution, ToolCall, ToolContext};
use crate::depth::{MAX_INPUT_DEPTH, dispose, exceeds_depth};
use crate::error::{ToolError, ToolErrorKind};
use crate::hints::closest;
use crate::input::{JsonArguments, ToolInput};
use crate::json_text;
use crate::output::ToolOutput;
use crate::problems::{self, Category, Problem, combine, not_json, repeated_keys, shorten};
use crate::registry::{Entry, Registry, visible_to};
use crate::result::ToolResult;
use crate::result_check::check_result;
use crate::schema_problems::{enrich, report};
use crate::tool::{CallFuture, Called};

/// The arguments of a call as the caller has them.
enum Arguments<'t> {
    /// Already parsed, by a transport such as MCP.
    Value(Value),
    /// The JSON text a provider sent (OpenAI's `arguments`, a CLI line).
    Text(&'t str),
    /// A parsed `Value` and its text, written already for the call's observer.
    Written(Value, &'t str),
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
            dispose(value);
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
    pub fn dispatch<'a>(&'a self, context: &'a ToolContext, call: ToolCall) -> Dispatch<'a> {
        let ToolCall {
            name,
            input,
            call_id,
        } = call;
        Dispatch::new(Call {
            registry: self,
            context,
            name: Cow::Owned(name),
            arguments: Arguments::Value(input),
            call_id,
        })
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
    ) -> Dispatch<'a> {
        Dispatch {
            state: ManuallyDrop::new(State::Text(TextCall {
                registry: self,
                context,
                name,
                arguments,
            })),
        }
    }

    /// Lookup, visibility and the family gate: the entry, or why the caller may not
    /// call `name`. The passing case is [`Registry::allowed`], inlined; the refusal
    /// is built out of line.
    #[inline(always)]
    fn resolve(&self, context: &ToolContext, name: &str) -> Result<&Entry, ToolError> {
        match self.allowed(context, name) {
            Some(entry) => Ok(entry),
            None => Err(self.refusal(context, name, self.entry(name))),
        }
    }

    /// The entry of `name` when the caller may call it: a lookup and two tests.
    #[inline(always)]
    fn allowed(&self, context: &ToolContext, name: &str) -> Option<&Entry> {
        self.entry(name).filter(|entry| {
            visible_to(entry.definition.visibility, context.has_runtime_access())
                && context.policy().allows(entry.definition.family)
        })
    }

    #[inline(always)]
    fn entry(&self, name: &str) -> Option<&Entry> {
        self.lookup.get(name).map(|index| &self.entries[*index])
    }

    /// Why [`Registry::resolve`] refused `name`, whose entry is `found` if it has one.
    #[cold]
    #[inline(never)]
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
        self.check_arguments(context, &call.name, Arguments::Value(call.input))
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

    /// The caller's cancellation, then shape, schema constraints, typed parse and the
    /// handler's first step. Inlined, so that a handler's output is not moved through
    /// each layer of results.
    #[inline(always)]
    fn start<'a>(
        &self,
        entry: &'a Entry,
        context: &'a ToolContext,
        arguments: Arguments<'_>,
    ) -> Result<Started<'a>, ToolError> {
        if context.cancellation().is_cancelled() {
            arguments.dispose();
            return Err(ToolError::cancelled());
        }
        let mut prepared = prepare(entry, arguments).map_err(|error| enrich(entry, error))?;
        // The closure borrows what it needs and builds the tool's input inside:
        // `catch_unwind` moves its closure through memory, and three references move
        // faster than the input (`cargo bench`: a call about 4% faster, with the same
        // instructions).
        let prepared = &mut prepared;
        started(
            entry,
            catch_unwind(AssertUnwindSafe(|| {
                entry.tool.call(context, prepared.tool_input(entry))
            })),
        )
    }
}

/// How the handler's first step came back: done, still running, or panicked.
#[inline(always)]
fn started<'a>(
    entry: &Entry,
    caught: std::thread::Result<CallFuture<'a>>,
) -> Result<Started<'a>, ToolError> {
    match caught {
        Err(payload) => Err(panicked(payload)),
        Ok(CallFuture(Called::Succeeded(result))) => Ok(Started::Finished(result)),
        Ok(CallFuture(Called::Failed(Some(error)))) => Err(enrich(entry, *error)),
        Ok(CallFuture(Called::Failed(None))) => Err(ToolError::new(
            ToolErrorKind::INTERNAL_ERROR,
            "the tool returned an already consumed result",
        )),
        Ok(CallFuture(Called::Boxed(future))) => Ok(Started::Running(future)),
    }
}

/// The future of one dispatch ([`Registry::dispatch`], [`Registry::dispatch_text`]).
///
/// Nothing runs before its first poll: a dispatch dropped unpolled calls no tool and
/// notifies no observer. The first poll runs the whole pipeline synchronously; a
/// synchronous handler's call is then done without an allocation of the dispatcher's.
/// Only what has to wait (an async handler's future, or a call under a time limit)
/// is boxed and polled on.
#[must_use = "a dispatch does nothing until it is awaited"]
pub struct Dispatch<'a> {
    /// Dropped by [`Dispatch`]'s `Drop`, which looks at it first: a finished call's
    /// drop is one test where the caller drops it, not a call of the state's drop.
    state: ManuallyDrop<State<'a>>,
}

impl Drop for Dispatch<'_> {
    #[inline]
    fn drop(&mut self) {
        if !matches!(*self.state, State::Done | State::Text(_)) {
            drop_state(&mut self.state);
        }
    }
}

/// Drops a call that was not polled to its end (its arguments, or what still runs).
#[cold]
#[inline(never)]
fn drop_state(state: &mut State<'_>) {
    drop(std::mem::replace(state, State::Done));
}

enum State<'a> {
    /// Not polled yet.
    Start(Call<'a>),
    /// Not polled yet: a call of [`Registry::dispatch_text`], whose parts are all
    /// borrowed, so that starting it copies four references rather than a `Call`.
    Text(TextCall<'a>),
    /// Waiting on an async handler or a time limit.
    Running(Running<'a>),
    /// The result was returned.
    Done,
}

/// One call, as an entry point received it.
struct Call<'a> {
    registry: &'a Registry,
    context: &'a ToolContext,
    name: Cow<'a, str>,
    arguments: Arguments<'a>,
    call_id: Option<String>,
}

/// A call of [`Registry::dispatch_text`], as it received it.
#[derive(Clone, Copy)]
struct TextCall<'a> {
    registry: &'a Registry,
    context: &'a ToolContext,
    name: &'a str,
    arguments: &'a str,
}

/// What the observer needs of a call, taken when it starts.
struct Observed<'a> {
    observer: &'a dyn DispatchObserver,
    input_json: Cow<'a, str>,
    started_at: SystemTime,
    started: Instant,
}

impl<'a> Dispatch<'a> {
    fn new(call: Call<'a>) -> Self {
        Self {
            state: ManuallyDrop::new(State::Start(call)),
        }
    }
}

impl Future for Dispatch<'_> {
    type Output = ToolResult;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let state: &mut State<'_> = &mut self.get_mut().state;
        if let State::Text(call) = *state {
            *state = State::Done;
            return call.run(state, cx);
        }
        if let State::Start(_) = state {
            let State::Start(call) = std::mem::replace(state, State::Done) else {
                unreachable!("matched just above")
            };
            return call.begin(state, cx);
        }
        poll_running(state, cx)
    }
}

impl<'a> TextCall<'a> {
    /// The common call, on a path of its own: a tool whose typed parse checks its
    /// text, called without an observer or a time limit, whose handler finishes in
    /// its first step. Its envelope is built once, where `poll` returns it; every
    /// other case goes out of line, the general way. (Where the ways joined in one,
    /// the compiler built the envelope in a copy and moved it, reading back bytes
    /// just written in other widths: `benches/time-profile.sh` put `poll` at a
    /// tenth of the floor's time, nearly half of it such store-forwarding stalls.)
    #[inline(always)]
    fn run(self, state: &mut State<'a>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let context = self.context;
        if context.observer().is_some()
            || context.timeout().is_some()
            || context.cancellation().is_cancelled()
        {
            return self.general(state, cx);
        }
        let Some(entry) = self.registry.allowed(context, self.name) else {
            return self.general(state, cx);
        };
        if entry.timeout.is_some() || !entry.text_fast_path || !opens_object(self.arguments) {
            return self.general(state, cx);
        }
        let mut prepared = Prepared::Text(Cow::Borrowed(self.arguments));
        let prepared = &mut prepared;
        match catch_unwind(AssertUnwindSafe(|| {
            entry.tool.call(context, prepared.tool_input(entry))
        })) {
            Ok(CallFuture(Called::Succeeded(result))) => Poll::Ready(named(entry, result)),
            caught => {
                let started = started(entry, caught);
                finished(entry, context, self.name, started, state, cx)
            }
        }
    }

    /// [`Call::begin`] of this call.
    #[inline(always)]
    fn general(self, state: &mut State<'a>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        general(
            self.registry,
            self.context,
            self.name,
            self.arguments,
            state,
            cx,
        )
    }
}

/// [`Call::begin`] of a [`TextCall`], given its parts one by one (in registers, not
/// copied through memory).
#[cold]
#[inline(never)]
fn general<'a>(
    registry: &'a Registry,
    context: &'a ToolContext,
    name: &'a str,
    arguments: &'a str,
    state: &mut State<'a>,
    cx: &mut Context<'_>,
) -> Poll<ToolResult> {
    let call = Call {
        registry,
        context,
        name: Cow::Borrowed(name),
        arguments: Arguments::Text(arguments),
        call_id: None,
    };
    call.begin(state, cx)
}

/// The rest of a call on [`TextCall::run`]'s path that did not finish there
/// ([`proceeded`], out of line).
#[cold]
#[inline(never)]
fn finished<'a>(
    entry: &'a Entry,
    context: &'a ToolContext,
    name: &'a str,
    started: Result<Started<'a>, ToolError>,
    state: &mut State<'a>,
    cx: &mut Context<'_>,
) -> Poll<ToolResult> {
    let name = Cow::Borrowed(name);
    proceeded(entry, context, started, None, None, name, state, cx)
}

/// Polls the rest of a call that had to wait.
fn poll_running(state: &mut State<'_>, cx: &mut Context<'_>) -> Poll<ToolResult> {
    match state {
        State::Running(future) => {
            let result = std::task::ready!(future.as_mut().poll(cx));
            *state = State::Done;
            Poll::Ready(result)
        }
        // As an `async fn`'s future does.
        _ => panic!("`Dispatch` polled after it returned its result"),
    }
}

/// The boxed rest of a call that has to wait.
type Running<'a> = Pin<Box<dyn Future<Output = ToolResult> + Send + 'a>>;

impl<'a> Call<'a> {
    /// Runs the call as far as it goes without waiting: to its result or, when it has
    /// to wait (an async handler, a call under a time limit), puts the future of what
    /// is left in `state` and polls it. Inlined into its one caller, `poll`, which
    /// saves a move of the result.
    #[inline(always)]
    fn begin(self, state: &mut State<'a>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let Call {
            registry,
            context,
            name,
            arguments,
            call_id,
        } = self;
        let observed = context.observer().map(|observer| Observed {
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
        let entry = match registry.resolve(context, &name) {
            Ok(entry) => entry,
            Err(error) => {
                arguments.dispose();
                // A name that is not a tool is echoed, but never a huge one whole.
                let result = ToolResult::from_error(shorten(&name).into_owned(), error);
                return Poll::Ready(ended(result, call_id, observed.as_ref(), &name));
            }
        };
        // Under a time limit the handler gets a cancellation of its own, which the
        // dispatcher fires at the limit (it also fires with the caller's): that
        // context lives in the boxed future, with the handler that borrows it.
        if let Some(limit) = context.timeout().or(entry.timeout) {
            *state = State::Running(Box::pin(async move {
                let limited = context
                    .clone()
                    .with_cancellation(context.cancellation().child());
                let arguments = arguments.written(observed.as_ref());
                let outcome = match registry.start(entry, &limited, arguments) {
                    Ok(Started::Running(future)) => {
                        waited(entry, future, limited.cancellation(), Some(limit)).await
                    }
                    Ok(Started::Finished(result)) => Ok(result),
                    Err(error) => Err(error),
                };
                concluded(entry, outcome, call_id, observed.as_ref(), &name)
            }));
            return poll_running(state, cx);
        }
        let arguments = arguments.written(observed.as_ref());
        let started = registry.start(entry, context, arguments);
        proceeded(entry, context, started, call_id, observed, name, state, cx)
    }
}

/// The rest of a call without a time limit, from its handler's first step: the
/// envelope, or the handler's future, polled in `state`.
#[inline(always)]
#[expect(
    clippy::too_many_arguments,
    reason = "the parts of a call its two callers hold apart, passed as they are"
)]
fn proceeded<'a>(
    entry: &'a Entry,
    context: &'a ToolContext,
    started: Result<Started<'a>, ToolError>,
    call_id: Option<String>,
    observed: Option<Observed<'a>>,
    name: Cow<'a, str>,
    state: &mut State<'a>,
    cx: &mut Context<'_>,
) -> Poll<ToolResult> {
    let outcome = match started {
        Ok(Started::Running(future)) => {
            *state = State::Running(Box::pin(async move {
                let outcome = waited(entry, future, context.cancellation(), None).await;
                concluded(entry, outcome, call_id, observed.as_ref(), &name)
            }));
            return poll_running(state, cx);
        }
        Ok(Started::Finished(result)) => Ok(result),
        Err(error) => Err(error),
    };
    Poll::Ready(concluded(entry, outcome, call_id, observed.as_ref(), &name))
}

/// The envelope of a call that reached its tool, [`ended`].
#[inline(always)]
fn concluded(
    entry: &Entry,
    outcome: Result<ToolResult, ToolError>,
    call_id: Option<String>,
    observed: Option<&Observed<'_>>,
    requested_name: &str,
) -> ToolResult {
    ended(envelope(entry, outcome), call_id, observed, requested_name)
}

/// The last step of every call: its id, and the observer.
#[inline(always)]
fn ended(
    mut result: ToolResult,
    call_id: Option<String>,
    observed: Option<&Observed<'_>>,
    requested_name: &str,
) -> ToolResult {
    result.call_id = call_id;
    if let Some(observed) = observed {
        recorded(&result, observed, requested_name);
    }
    result
}

/// Shows a finished call to the observer. Out of line, and by reference, so that a
/// call without one builds its result where it is returned.
#[inline(never)]
fn recorded(result: &ToolResult, observed: &Observed<'_>, requested_name: &str) {
    observed.observer.record(&Execution {
        requested_name,
        input_json: &observed.input_json,
        result,
        started_at: observed.started_at,
        elapsed: observed.started.elapsed(),
    });
}

/// The envelope of a call that reached its tool.
#[inline(always)]
fn envelope(entry: &Entry, outcome: Result<ToolResult, ToolError>) -> ToolResult {
    match outcome {
        Ok(result) => named(entry, result),
        Err(error) => ToolResult::from_error(entry.name, error),
    }
}

/// Everything [`Registry::check`] runs after the lookup: shape, constraints, typed parse.
fn check_input_of(entry: &Entry, arguments: Arguments<'_>) -> Result<(), ToolError> {
    prepare(entry, arguments)
        .and_then(|mut prepared| entry.tool.check_input(prepared.tool_input(entry)))
        .map_err(|error| enrich(entry, error))
}

/// [`check_input_of`] a parsed input (an input example, when the registry is built).
pub(crate) fn check_prepared_input(entry: &Entry, input: Value) -> Result<(), ToolError> {
    check_input_of(entry, Arguments::Value(input))
}

/// The input's shape and the schema constraints serde does not check. JSON text is
/// parsed into a `Value` only when the tool needs one: for its constraints, or
/// because a map or any-value field would keep the last of repeated keys. The tool
/// parses text: a `Value` is written as text once checked. Text the tool's typed
/// parse checks fully is handed over as it is, inline; the rest is [`checked`].
#[inline(always)]
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
        Arguments::Value(value) => (value, None),
        Arguments::Written(value, text) => (value, Some(text)),
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

/// How a handler came back from its first step.
enum Started<'a> {
    /// A synchronous handler, done: its envelope (the tool's name still to be set).
    Finished(ToolResult),
    /// An async handler, still to be polled.
    Running(Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + 'a>>),
}

/// The envelope of a successful call, made where the handler returned, under its
/// tool's name (of a failed one, when a debug build finds that the result does not
/// fit the tool's result schema).
#[inline(always)]
fn named(entry: &Entry, mut result: ToolResult) -> ToolResult {
    if let Some(structured) = &result.structured
        && let Err(error) = check_result(entry, structured)
    {
        return ToolResult::from_error(entry.name, error);
    }
    result.tool_name = Cow::Borrowed(entry.name);
    result
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

/// Runs an async handler to its end, its cancellation, or its time limit, whichever
/// comes first. Cancelled or out of time, the handler's future is dropped (which stops
/// what it owns: a command's process group, a connection) and its cancellation fires
/// (which stops what it spawned).
async fn finish(
    future: Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + '_>>,
    cancellation: &Cancellation,
    limit: Option<Duration>,
) -> Result<ToolOutput, ToolError> {
    let mut deadline = limit.map(start_timer).transpose()?;
    let mut handler = CatchUnwind { future };
    let cancelled = cancellation.cancelled();
    let mut cancelled = std::pin::pin!(cancelled);
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
    match ended {
        Ended::Returned(Ok(outcome)) => outcome,
        Ended::Returned(Err(payload)) => Err(panicked(payload)),
        Ended::Cancelled => {
            drop(handler);
            Err(ToolError::cancelled())
        }
        Ended::OutOfTime => {
            drop(handler);
            cancellation.cancel();
            Err(ToolError::timed_out(limit.unwrap_or_default()))
        }
    }
}

/// [`finish`]: a success in its envelope, a failure's problems enriched from the
/// tool's schema.
async fn waited(
    entry: &Entry,
    future: Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + '_>>,
    cancellation: &Cancellation,
    limit: Option<Duration>,
) -> Result<ToolResult, ToolError> {
    finish(future, cancellation, limit)
        .await
        .map(ToolResult::unnamed)
        .map_err(|error| enrich(entry, error))
}

/// How [`finish`] ended.
enum Ended {
    /// The handler returned (or panicked).
    Returned(Result<Result<ToolOutput, ToolError>, Box<dyn Any + Send>>),
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
