//! The sessions of streamable HTTP (feature `http`), each on a [`ListingTransport`]:
//! the `tools/list` results of each session carry each task tool's `execution` (see
//! [`crate::listing`]).

use std::sync::Arc;

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::common::server_side_http::ServerSseMessage;
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionId, SessionManager};

use crate::listing::{Executions, ListingTransport};

/// The sessions of streamable HTTP, each on a [`ListingTransport`].
pub(crate) struct ListingSessions<M> {
    inner: Arc<M>,
    executions: Executions,
}

impl<M> ListingSessions<M> {
    /// The sessions of `inner`, listing `executions`.
    pub(crate) fn new(inner: Arc<M>, executions: Executions) -> Self {
        Self { inner, executions }
    }
}

impl<M: SessionManager> SessionManager for ListingSessions<M> {
    type Error = M::Error;
    type Transport = ListingTransport<M::Transport>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        Ok((
            id,
            ListingTransport::new(transport, self.executions.clone()),
        ))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id).await
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        Ok(match self.inner.restore_session(id).await? {
            RestoreOutcome::Restored(transport) => {
                RestoreOutcome::Restored(ListingTransport::new(transport, self.executions.clone()))
            }
            RestoreOutcome::AlreadyPresent => RestoreOutcome::AlreadyPresent,
            _ => RestoreOutcome::NotSupported,
        })
    }

    fn event_store(
        &self,
    ) -> Option<Arc<dyn rmcp::transport::streamable_http_server::session::EventStore>> {
        self.inner.event_store()
    }
}
