//! The cancellation handle a handler takes from its context.

use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;

/// Fires when the call's caller gives up on it: the host cancelled it (an MCP
/// `notifications/cancelled`, a user's stop) or its time limit passed. The dispatcher
/// then drops the handler's future on its own; a handler takes this handle
/// (`cancel: Cancellation` or `cancel: &Cancellation`) only to stop work that outlives
/// its future, such as a spawned task or a blocking loop, or to stop early and cleanly.
#[derive(Debug, Clone, Default)]
pub struct Cancellation(Token);

/// The token behind a handle. A context the host gave no token makes its own only
/// when something asks for it (a handler waits on it, takes it, or makes a child of
/// it): until then nothing can have cancelled it, and asking costs one load instead
/// of the token's lock. Clones share the one token either way.
#[derive(Debug, Clone)]
enum Token {
    /// The host's token.
    Given(CancellationToken),
    /// A token of the context's own, made on first use.
    Own(Arc<OnceLock<CancellationToken>>),
}

impl Default for Token {
    fn default() -> Self {
        Self::Own(Arc::default())
    }
}

impl Cancellation {
    /// A handle that fires when `token` is cancelled.
    pub fn new(token: CancellationToken) -> Self {
        Self(Token::Given(token))
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        match &self.0 {
            Token::Given(token) => token.is_cancelled(),
            Token::Own(own) => own.get().is_some_and(CancellationToken::is_cancelled),
        }
    }

    /// Completes when the call is cancelled.
    pub async fn cancelled(&self) {
        self.token().cancelled().await;
    }

    /// The token, to hand to code that takes one (`tokio::select!`, a spawned task).
    pub fn token(&self) -> &CancellationToken {
        match &self.0 {
            Token::Given(token) => token,
            Token::Own(own) => own.get_or_init(CancellationToken::new),
        }
    }

    /// A handle that fires with this one, and also on its own when cancelled.
    pub(crate) fn child(&self) -> Self {
        Self::new(self.token().child_token())
    }

    /// Cancels the call.
    pub(crate) fn cancel(&self) {
        self.token().cancel();
    }
}

impl From<CancellationToken> for Cancellation {
    fn from(token: CancellationToken) -> Self {
        Self::new(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_handle_is_not_cancelled_until_its_token_is() {
        let handle = Cancellation::default();
        let clone = handle.clone();
        assert!(!handle.is_cancelled());
        // The token is made by the clone; the original sees it cancelled.
        clone.token().cancel();
        assert!(handle.is_cancelled());
        assert!(clone.is_cancelled());
    }

    #[test]
    fn a_child_sees_its_parent_cancelled_after_it_was_made() {
        for given in [false, true] {
            let parent = if given {
                Cancellation::new(CancellationToken::new())
            } else {
                Cancellation::default()
            };
            let child = parent.child();
            assert!(!child.is_cancelled());
            parent.cancel();
            assert!(child.is_cancelled(), "given token: {given}");
            // And not the other way round.
            let parent = Cancellation::default();
            parent.child().cancel();
            assert!(!parent.is_cancelled());
        }
    }

    #[test]
    fn a_hosts_token_cancelled_later_is_seen() {
        let token = CancellationToken::new();
        let handle = Cancellation::from(token.clone());
        assert!(!handle.is_cancelled());
        token.cancel();
        assert!(handle.is_cancelled());
    }
}
