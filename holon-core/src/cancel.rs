//! The cancellation handle a handler takes from its context.

use tokio_util::sync::CancellationToken;

/// Fires when the call's caller gives up on it: the host cancelled it (an MCP
/// `notifications/cancelled`, a user's stop) or its time limit passed. The dispatcher
/// then drops the handler's future on its own; a handler takes this handle
/// (`cancel: Cancellation` or `cancel: &Cancellation`) only to stop work that outlives
/// its future, such as a spawned task or a blocking loop, or to stop early and cleanly.
#[derive(Debug, Clone, Default)]
pub struct Cancellation(CancellationToken);

impl Cancellation {
    /// A handle that fires when `token` is cancelled.
    pub fn new(token: CancellationToken) -> Self {
        Self(token)
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }

    /// Completes when the call is cancelled.
    pub async fn cancelled(&self) {
        self.0.cancelled().await;
    }

    /// The token, to hand to code that takes one (`tokio::select!`, a spawned task).
    pub fn token(&self) -> &CancellationToken {
        &self.0
    }

    /// A handle that fires with this one, and also on its own when cancelled.
    pub(crate) fn child(&self) -> Self {
        Self(self.0.child_token())
    }

    /// Cancels the call.
    pub(crate) fn cancel(&self) {
        self.0.cancel();
    }
}

impl From<CancellationToken> for Cancellation {
    fn from(token: CancellationToken) -> Self {
        Self(token)
    }
}
