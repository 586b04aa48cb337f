//! The end of a server: the signal a host hands it, such as Ctrl-C or SIGTERM.

use std::future::Future;
use std::pin::Pin;

use crate::ServeError;

/// What awaiting a server runs: it serves until it fails or its signal comes.
pub type ServeFuture = Pin<Box<dyn Future<Output = Result<(), ServeError>> + Send>>;

/// A server that serves until `signal` resolves, as [`HttpServer::with_graceful_shutdown`](crate::HttpServer::with_graceful_shutdown)
/// and [`StdioServer::with_graceful_shutdown`](crate::StdioServer::with_graceful_shutdown)
/// make it; await it to serve.
#[derive(Debug)]
pub struct WithGracefulShutdown<S, F> {
    pub(crate) server: S,
    pub(crate) signal: F,
}

/// Resolves on Ctrl-C, or on SIGTERM where there is one: the signal a server binary
/// hands to `with_graceful_shutdown`. A signal that cannot be listened for never
/// fires (it does not stop the server).
pub async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                terminate.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
