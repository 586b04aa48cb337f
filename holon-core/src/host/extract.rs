//! [`FromToolContext`]: what a handler parameter may take out of the call's context
//! (the context itself, its handles, a state of the host, or a handle of one's own).

use crate::host::cancel::Cancellation;
use crate::host::context::ToolContext;
use crate::host::progress::Progress;
use crate::result::error::ToolError;

/// A handler parameter taken out of the call's context rather than from the model's
/// input: `&ToolContext`, and `&T` for any state `T` the host put into the context
/// with [`ToolContext::with_state`]. Implement it for a handle of your own (as axum's
/// `FromRequestParts`) to take that handle as a parameter.
pub trait FromToolContext<'a>: Sized {
    /// Takes the parameter out of `context`; an error ends the call before the
    /// handler runs.
    fn from_context(context: &'a ToolContext) -> Result<Self, ToolError>;
}

/// `&ToolContext` (whatever name it is imported under) is the context itself,
/// `&Cancellation` and `&Progress` are the call's handles; any other `&T` is the state
/// of type `T`, or a `missing_context` error naming it.
impl<'a, T: Send + Sync + 'static> FromToolContext<'a> for &'a T {
    fn from_context(context: &'a ToolContext) -> Result<Self, ToolError> {
        use std::any::Any;
        if let Some(context) = (context as &dyn Any).downcast_ref::<T>() {
            return Ok(context);
        }
        if let Some(cancellation) = (context.cancellation() as &dyn Any).downcast_ref::<T>() {
            return Ok(cancellation);
        }
        if let Some(progress) = (context.progress() as &dyn Any).downcast_ref::<T>() {
            return Ok(progress);
        }
        context.state::<T>()
    }
}

/// The call's cancellation handle, by value.
impl FromToolContext<'_> for Cancellation {
    fn from_context(context: &ToolContext) -> Result<Self, ToolError> {
        Ok(context.cancellation().clone())
    }
}

/// The call's progress handle, by value.
impl FromToolContext<'_> for Progress {
    fn from_context(context: &ToolContext) -> Result<Self, ToolError> {
        Ok(context.progress().clone())
    }
}
