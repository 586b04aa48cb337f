//! What a call gets from its host: the context it runs in and the call itself, what a
//! handler parameter may take out of it, the request's facts, the client's handles,
//! progress and cancellation.

pub(crate) mod cancel;
pub(crate) mod client;
pub(crate) mod context;
pub(crate) mod extract;
pub(crate) mod progress;
pub(crate) mod request;
pub(crate) mod states;
#[cfg(feature = "tracing")]
pub(crate) mod telemetry;
