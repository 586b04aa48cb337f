//! The progress of one MCP `tools/call`: the context's [`ProgressSink`] for a request
//! that carries `_meta.progressToken`, sent to the client as `notifications/progress`.
//!
//! A handler reports synchronously and the peer sends asynchronously, so reports go
//! through a channel to a task that sends them in order. Before the server answers the
//! call it flushes that task, so every notification reaches the client before the
//! response (a client stops listening for a token once its request is answered).

use std::sync::{Arc, Mutex};

use holon_core::ProgressSink;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::sync::{mpsc, oneshot};

enum Message {
    Report(ProgressNotificationParam),
    /// Answered once everything before it was sent; the task ends then.
    Flush(oneshot::Sender<()>),
}

/// The sink a handler reports to.
struct Sink {
    token: ProgressToken,
    sender: mpsc::UnboundedSender<Message>,
    /// The last progress sent: MCP requires each report to increase it, so a report
    /// that does not is left out.
    last: Mutex<Option<f64>>,
}

impl ProgressSink for Sink {
    fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        {
            let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
            if !progress.is_finite() || last.is_some_and(|last| progress <= last) {
                return;
            }
            *last = Some(progress);
        }
        let mut param = ProgressNotificationParam::new(self.token.clone(), progress);
        param.total = total.filter(|total| total.is_finite());
        param.message = message.map(str::to_string);
        // After the flush nobody listens: the call was answered.
        let _ = self.sender.send(Message::Report(param));
    }
}

/// The progress of one call, from the start of its dispatch to its answer.
pub(crate) struct CallProgress {
    sink: Arc<Sink>,
}

impl CallProgress {
    /// Starts sending the reports of a call to `peer` under `token`.
    pub(crate) fn start(peer: Peer<RoleServer>, token: ProgressToken) -> Self {
        let (sender, mut receiver) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(message) = receiver.recv().await {
                match message {
                    Message::Report(param) => {
                        if peer.notify_progress(param).await.is_err() {
                            // The client is gone; what is left has nowhere to go.
                            break;
                        }
                    }
                    Message::Flush(done) => {
                        let _ = done.send(());
                        break;
                    }
                }
            }
        });
        Self {
            sink: Arc::new(Sink {
                token,
                sender,
                last: Mutex::new(None),
            }),
        }
    }

    /// The sink to put into the call's context.
    pub(crate) fn sink(&self) -> Arc<dyn ProgressSink> {
        self.sink.clone()
    }

    /// Waits until every report made so far was sent.
    pub(crate) async fn flush(self) {
        let (done, sent) = oneshot::channel();
        if self.sink.sender.send(Message::Flush(done)).is_ok() {
            let _ = sent.await;
        }
    }
}
