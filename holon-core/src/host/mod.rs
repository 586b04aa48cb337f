//! What a call gets from its host: the context it runs in and the call itself, the
//! request's facts, the client's handles, progress, cancellation and the host's
//! decisions on asked calls.

pub(crate) mod asked;
pub(crate) mod cancel;
pub(crate) mod client;
pub(crate) mod context;
pub(crate) mod progress;
pub(crate) mod request;
pub(crate) mod states;
#[cfg(feature = "tracing")]
pub(crate) mod telemetry;
