//! How `#[holon_tool]` tells a handler's parameters apart: by the traits their types
//! implement, never by the spelling of a type name.
//!
//! A parameter is the tool's arguments when its type implements [`ToolArgs`], taken by
//! value (`args: MyArgs`) or by reference (`args: &MyArgs`). Every other parameter is
//! an extractor: its type implements [`FromToolContext`] and is taken out of the
//! call's context, as `&ToolContext` and `&T` for a state `T` are. A type that is
//! neither is a compile error at that type.
//!
//! The macro cannot see traits, so the generated code asks the compiler: for each
//! parameter type `P` it calls `(&&&Probe::<P>::new()).holon_param()`, and method
//! resolution picks the first of these impls whose bounds hold (autoref-based
//! specialization, which works because every type is concrete there):
//!
//! 1. `P: ToolArgs`: the arguments by value;
//! 2. `P = &A` with `A: ToolArgs`: the arguments by reference;
//! 3. `P = &T` with `T` a plain value (`String`, `str`, a number, `bool`, `char`): a
//!    tag whose use is a compile error, since such a parameter is a value the model
//!    should send, not state (it would otherwise be looked up as state and fail at run
//!    time);
//! 4. `P: FromToolContext`: an extractor;
//! 5. anything else: a tag whose use is the compile error.

use std::marker::PhantomData;

use schemars::{Schema, SchemaGenerator};

use crate::arguments::{arguments_schema, json_arguments, parse_freeform_arguments};
use crate::host::context::ToolContext;
pub use crate::host::extract::FromToolContext;
use crate::input::JsonArguments;
use crate::input::ToolInput;
use crate::result::error::{ToolError, ToolErrorKind};
use crate::tool::{FromFreeform, ToolArgs};

/// What a tool needs of its argument type, with the type erased.
#[derive(Clone, Copy)]
pub struct ArgumentsInfo {
    /// The wire names of the fields.
    pub fields: &'static [&'static str],
    /// The input schema.
    pub schema: fn(&mut SchemaGenerator) -> Schema,
    /// Parses an input and drops the result.
    pub check: fn(ToolInput<'_>) -> Result<(), ToolError>,
}

fn info<A: ToolArgs>() -> ArgumentsInfo {
    ArgumentsInfo {
        fields: A::FIELDS,
        schema: arguments_schema::<A>,
        check: check_json::<A>,
    }
}

fn check_json<A: ToolArgs>(input: ToolInput<'_>) -> Result<(), ToolError> {
    match json_arguments(input) {
        Ok(arguments) => match arguments.parse::<A>() {
            Ok(_) => Ok(()),
            Err(error) => Err(error),
        },
        Err(error) => Err(error),
    }
}

fn check_freeform<A: ToolArgs + FromFreeform>(input: ToolInput<'_>) -> Result<(), ToolError> {
    parse_freeform_arguments::<A>(input).map(drop)
}

/// The parameter type under test; see the module documentation.
pub struct Probe<P>(PhantomData<fn() -> P>);

impl<P> Default for Probe<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> Probe<P> {
    /// The probe of `P`.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

macro_rules! tags {
    ($($(#[$doc:meta])* $tag:ident;)*) => {$(
        $(#[$doc])*
        pub struct $tag<P>(PhantomData<fn() -> P>);

        impl<P> Clone for $tag<P> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<P> Copy for $tag<P> {}
    )*};
}

tags! {
    /// The arguments, by value.
    ArgumentsByValue;
    /// The arguments, by reference.
    ArgumentsByRef;
    /// A parameter taken from the context.
    Extracted;
    /// A parameter that is neither: using it is the compile error.
    Unresolved;
    /// A plain value taken by reference (`&String`, `&u32`): using it is the compile
    /// error.
    PlainValueState;
}

/// One step of the classification: a trait of its own (autoref specialization needs
/// distinct traits with the same method), implemented for the probe behind the step's
/// number of references, when the step's bounds hold.
macro_rules! step {
    ($(#[$doc:meta])* $trait:ident, [$($generics:tt)*], $receiver:ty, $tag:ident<$tagged:ident>) => {
        $(#[$doc])*
        pub trait $trait {
            /// The parameter's tag.
            type Tag;
            /// Classifies the parameter.
            fn holon_param(&self) -> Self::Tag;
        }

        impl<$($generics)*> $trait for $receiver {
            type Tag = $tag<$tagged>;
            fn holon_param(&self) -> Self::Tag {
                $tag(PhantomData)
            }
        }
    };
}

step!(
    /// Step 1: `P: ToolArgs`.
    ViaArgumentsByValue, [A: ToolArgs], &&Probe<A>, ArgumentsByValue<A>
);
step!(
    /// Step 2: `P = &A`, `A: ToolArgs`.
    ViaArgumentsByRef, [A: ToolArgs], &&&Probe<&A>, ArgumentsByRef<A>
);
/// A type whose value is data a model sends, never host state: a handler parameter
/// `&T` of such a type is refused at compile time.
pub trait PlainValue {}

macro_rules! plain_values {
    ($($ty:ty),* $(,)?) => { $(impl PlainValue for $ty {})* };
}

plain_values!(
    String, str, bool, char, u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32,
    f64
);

/// Step 2 too, for the types step 2 leaves: `P = &T`, `T: PlainValue`.
pub trait ViaPlainValue {
    /// The parameter's tag.
    type Tag;
    /// Classifies the parameter.
    fn holon_param(&self) -> Self::Tag;
}

impl<'p, T: PlainValue + ?Sized> ViaPlainValue for &&&Probe<&'p T> {
    type Tag = PlainValueState<&'p T>;
    fn holon_param(&self) -> Self::Tag {
        PlainValueState(PhantomData)
    }
}

step!(
    /// Step 3: `P: FromToolContext`.
    ViaExtractor, ['a, P: FromToolContext<'a>], &Probe<P>, Extracted<P>
);
step!(
    /// Step 4: anything else.
    ViaUnresolved, [P], Probe<P>, Unresolved<P>
);

/// A parameter, ready to be passed by value.
pub struct Owned<T>(T);

impl<T> Owned<T> {
    /// The parameter.
    pub fn param(self) -> T {
        self.0
    }
}

/// The arguments, to be passed by reference.
pub struct Borrowed<T>(T);

impl<T> Borrowed<T> {
    /// A reference to the arguments.
    pub fn param(&self) -> &T {
        &self.0
    }
}

/// The JSON arguments of the input, which the one arguments parameter takes (not
/// generic: compiled once).
#[inline]
fn take_json<'i>(input: &mut Option<ToolInput<'i>>) -> Result<JsonArguments<'i>, ToolError> {
    match input.take() {
        Some(input) => json_arguments(input),
        None => Err(input_taken()),
    }
}

/// The input a second arguments parameter would parse is gone; the compile-time
/// check `AtMostOneArguments` keeps this from happening.
fn input_taken() -> ToolError {
    ToolError::new(
        ToolErrorKind::INTERNAL_ERROR,
        "the tool's input was already parsed by another parameter",
    )
}

impl<A: ToolArgs> ArgumentsByValue<A> {
    /// Parses the arguments. (`#[inline]` changes nothing in a debug build, where a
    /// generic function is compiled in the tool's crate anyway and not inlined.)
    #[inline]
    pub fn hold(
        self,
        _: &ToolContext,
        input: &mut Option<ToolInput<'_>>,
    ) -> Result<Owned<A>, ToolError> {
        // Matched, not combined: this is compiled for every argument type.
        match take_json(input) {
            Ok(arguments) => match arguments.parse() {
                Ok(value) => Ok(Owned(value)),
                Err(error) => Err(error),
            },
            Err(error) => Err(error),
        }
    }

    /// The arguments' facts.
    pub fn arguments(self) -> Option<ArgumentsInfo> {
        Some(info::<A>())
    }

    /// The arguments of a freeform tool: the one place that requires `FromFreeform`.
    pub fn freeform(self) -> FreeformArguments<A, Owned<A>>
    where
        A: FromFreeform,
    {
        freeform_arguments(Owned)
    }
}

impl<A: ToolArgs> ArgumentsByRef<A> {
    /// Parses the arguments.
    pub fn hold(
        self,
        context: &ToolContext,
        input: &mut Option<ToolInput<'_>>,
    ) -> Result<Borrowed<A>, ToolError> {
        let Owned(value) = ArgumentsByValue::<A>(PhantomData).hold(context, input)?;
        Ok(Borrowed(value))
    }

    /// The arguments' facts.
    pub fn arguments(self) -> Option<ArgumentsInfo> {
        ArgumentsByValue::<A>(PhantomData).arguments()
    }

    /// The arguments of a freeform tool: the one place that requires `FromFreeform`.
    pub fn freeform(self) -> FreeformArguments<A, Borrowed<A>>
    where
        A: FromFreeform,
    {
        freeform_arguments(Borrowed)
    }
}

impl<P> Extracted<P> {
    /// Takes the parameter out of the context.
    pub fn hold<'c>(
        self,
        context: &'c ToolContext,
        _: &mut Option<ToolInput<'_>>,
    ) -> Result<Owned<P>, ToolError>
    where
        P: FromToolContext<'c>,
    {
        P::from_context(context).map(Owned)
    }

    /// Not the arguments.
    pub fn arguments(self) -> Option<ArgumentsInfo> {
        None
    }

    /// The same in a freeform tool.
    pub fn freeform(self) -> Self {
        self
    }
}

/// Implemented by no type: the bound of a parameter that is neither the arguments nor
/// an extractor, so that such a parameter is a compile error with this message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a tool handler: it is neither the tool's arguments nor taken from the context",
    label = "not a `ToolArgs` type (by value or `&`), not `&ToolContext`, not a `&State`",
    note = "the arguments are the one parameter whose type has `#[derive(ToolArgs)]`, taken by value or by reference; every other parameter implements `FromToolContext`: `&ToolContext`, or `&T` for a state `T: Send + Sync + 'static` the host put into the context"
)]
pub trait ToolHandlerParameter: crate::__private::Unsatisfiable {}

impl<P> Unresolved<P> {
    /// A compile error: `P` is not a handler parameter.
    pub fn hold(self, _: &ToolContext, _: &mut Option<ToolInput<'_>>) -> Result<Owned<P>, ToolError>
    where
        P: ToolHandlerParameter,
    {
        Err(input_taken())
    }

    /// Not the arguments (the error is reported once, by `hold`).
    pub fn arguments(self) -> Option<ArgumentsInfo> {
        None
    }

    /// The same in a freeform tool.
    pub fn freeform(self) -> Self {
        self
    }
}

/// Implemented by no type: the bound of a `&String`, `&str`, `&u32` or `&bool`
/// parameter, which is a value the model sends and so belongs in the arguments.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a tool handler: it is a value the model sends, not state the host provides",
    label = "a plain value is not state: it would be looked up in the context and never found",
    note = "put the value in a field of the struct with `#[derive(ToolArgs)]` and take that struct as the parameter; state is a type of the host's own, put into the context with `ToolContext::with_state` (wrap a plain value in one: `struct Greeting(String)`)"
)]
pub trait PlainValueIsNotState: crate::__private::Unsatisfiable {}

impl<P> PlainValueState<P> {
    /// A compile error: `P` is a plain value, not state.
    pub fn hold(self, _: &ToolContext, _: &mut Option<ToolInput<'_>>) -> Result<Owned<P>, ToolError>
    where
        P: PlainValueIsNotState,
    {
        Err(input_taken())
    }

    /// Not the arguments (the error is reported once, by `hold`).
    pub fn arguments(self) -> Option<ArgumentsInfo> {
        None
    }

    /// The same in a freeform tool.
    pub fn freeform(self) -> Self {
        self
    }
}

/// The arguments of a freeform tool, with what `FromFreeform` gives already taken, so
/// that its methods require nothing more (a missing impl is one error, at `freeform`).
pub struct FreeformArguments<A, H> {
    info: ArgumentsInfo,
    parse: fn(ToolInput<'_>) -> Result<A, ToolError>,
    wrap: fn(A) -> H,
}

fn freeform_arguments<A: ToolArgs + FromFreeform, H>(wrap: fn(A) -> H) -> FreeformArguments<A, H> {
    FreeformArguments {
        info: ArgumentsInfo {
            check: check_freeform::<A>,
            ..info::<A>()
        },
        parse: parse_freeform_arguments::<A>,
        wrap,
    }
}

impl<A, H> FreeformArguments<A, H> {
    /// Parses the arguments, from JSON or from the raw text.
    pub fn hold(self, _: &ToolContext, input: &mut Option<ToolInput<'_>>) -> Result<H, ToolError> {
        (self.parse)(input.take().ok_or_else(input_taken)?).map(self.wrap)
    }

    /// The arguments' facts.
    pub fn arguments(self) -> Option<ArgumentsInfo> {
        Some(self.info)
    }
}

/// The tags of a handler's parameters, as a list `(T0, (T1, ()))`, hold no arguments.
#[diagnostic::on_unimplemented(
    message = "a tool handler takes at most one arguments parameter",
    label = "more than one of these parameters is a `ToolArgs` type",
    note = "the arguments are the model's whole input: put every field into one struct with `#[derive(ToolArgs)]`"
)]
pub trait NoArguments {}

impl NoArguments for () {}
impl<P, R: NoArguments> NoArguments for (Extracted<P>, R) {}
impl<P, R: NoArguments> NoArguments for (Unresolved<P>, R) {}
impl<P, R: NoArguments> NoArguments for (PlainValueState<P>, R) {}

/// The tags of a handler's parameters hold at most one arguments parameter.
#[diagnostic::on_unimplemented(
    message = "a tool handler takes at most one arguments parameter",
    label = "more than one of these parameters is a `ToolArgs` type",
    note = "the arguments are the model's whole input: put every field into one struct with `#[derive(ToolArgs)]`"
)]
pub trait AtMostOneArguments {
    /// Whether one of the parameters is the arguments.
    const TAKES_ARGUMENTS: bool;
}

impl AtMostOneArguments for () {
    const TAKES_ARGUMENTS: bool = false;
}
impl<A, R: NoArguments> AtMostOneArguments for (ArgumentsByValue<A>, R) {
    const TAKES_ARGUMENTS: bool = true;
}
impl<A, R: NoArguments> AtMostOneArguments for (ArgumentsByRef<A>, R) {
    const TAKES_ARGUMENTS: bool = true;
}
impl<P, R: AtMostOneArguments> AtMostOneArguments for (Extracted<P>, R) {
    const TAKES_ARGUMENTS: bool = R::TAKES_ARGUMENTS;
}
impl<P, R: AtMostOneArguments> AtMostOneArguments for (Unresolved<P>, R) {
    const TAKES_ARGUMENTS: bool = R::TAKES_ARGUMENTS;
}
impl<P, R: AtMostOneArguments> AtMostOneArguments for (PlainValueState<P>, R) {
    const TAKES_ARGUMENTS: bool = R::TAKES_ARGUMENTS;
}

/// Requires that `tags` hold at most one arguments parameter, and hands on the input
/// for it. A handler without one takes none: its input must be `{}`, which is
/// checked here.
pub fn at_most_one_arguments<T: AtMostOneArguments>(
    tags: T,
    input: ToolInput<'_>,
) -> Result<(T, Option<ToolInput<'_>>), ToolError> {
    if T::TAKES_ARGUMENTS {
        Ok((tags, Some(input)))
    } else {
        crate::arguments::parse_no_arguments(input).map(|()| (tags, None))
    }
}
