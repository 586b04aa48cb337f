//! A task that gathers its input within the request first (SEP-2663's composition
//! of the multi-round flow with tasks): under MCP 2026-07-28, a task-run call whose
//! handler takes a [`holon_core::TaskEscalation`] runs within the request, its
//! requests to the client answered in `InputRequiredResult` rounds, until it calls
//! `escalate`; that round's answer is the task's handle, and the same handler goes
//! on in the task. A handler without one is a task from its start, as before.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;

use holon_core::{
    ClientCapability, ClientFuture, ClientPeer, ElicitationRequest, ElicitationResponse,
    LogMessage, Root, RootsRequest, SamplingRequest, SamplingResponse, ToolResult,
};
use rmcp::model::InputRequiredResult;
use tokio::sync::{Notify, watch};

use super::input::TaskClient;
use crate::rounds::{InputRounds, StateSeal};

/// The client of a call that may run within the request before it is a task.
pub(crate) struct HandoffClient {
    /// The request's client: the rounds of the multi-round flow.
    rounds: Arc<InputRounds>,
    /// Whether the handler will escalate (it took a `TaskEscalation`).
    expected: AtomicBool,
    /// Fired when the handler escalates.
    escalated: Notify,
    /// The task's client, once the task exists.
    task: watch::Sender<Option<Arc<TaskClient>>>,
}

impl HandoffClient {
    /// A call's client, over the rounds of its request.
    pub(crate) fn new(rounds: Arc<InputRounds>) -> Self {
        Self {
            rounds,
            expected: AtomicBool::new(false),
            escalated: Notify::new(),
            task: watch::Sender::new(None),
        }
    }

    /// From here the call's requests go to its task.
    pub(crate) fn attach(&self, task: TaskClient) {
        self.task.send_replace(Some(Arc::new(task)));
    }

    fn task_client(&self) -> Option<Arc<TaskClient>> {
        self.task.borrow().clone()
    }

    /// The task's client, once there is one.
    async fn wait_for_task(&self) -> Arc<TaskClient> {
        let mut receiver = self.task.subscribe();
        let task = receiver
            .wait_for(Option::is_some)
            .await
            .expect("the sender lives in self");
        task.clone().expect("waited for it")
    }

    /// Where a request of the handler goes: to the rounds while the handler runs
    /// within the request before it escalates, else to the task (once it exists).
    async fn route(&self) -> Route {
        if let Some(task) = self.task_client() {
            return Route::Task(task);
        }
        if self.expected.load(Ordering::SeqCst) {
            return Route::Rounds;
        }
        Route::Task(self.wait_for_task().await)
    }
}

enum Route {
    Rounds,
    Task(Arc<TaskClient>),
}

impl ClientPeer for HandoffClient {
    fn supports(&self, capability: ClientCapability) -> bool {
        match self.task_client() {
            Some(task) => task.supports(capability),
            None => self.rounds.supports(capability),
        }
    }

    fn log(&self, message: LogMessage) -> ClientFuture<'_, ()> {
        match self.task_client() {
            Some(task) => Box::pin(async move { task.log(message).await }),
            None => self.rounds.log(message),
        }
    }

    fn create_message(&self, request: SamplingRequest) -> ClientFuture<'_, SamplingResponse> {
        Box::pin(async move {
            match self.route().await {
                Route::Rounds => self.rounds.create_message(request).await,
                Route::Task(task) => task.create_message(request).await,
            }
        })
    }

    fn elicit(&self, request: ElicitationRequest) -> ClientFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            match self.route().await {
                Route::Rounds => self.rounds.elicit(request).await,
                Route::Task(task) => task.elicit(request).await,
            }
        })
    }

    fn list_roots(&self, request: RootsRequest) -> ClientFuture<'_, Vec<Root>> {
        Box::pin(async move {
            match self.route().await {
                Route::Rounds => self.rounds.list_roots(request).await,
                Route::Task(task) => task.list_roots(request).await,
            }
        })
    }

    fn expect_escalation(&self) {
        self.expected.store(true, Ordering::SeqCst);
    }

    fn escalate(&self) -> ClientFuture<'_, ()> {
        Box::pin(async move {
            if self.task_client().is_none() {
                self.escalated.notify_one();
                self.wait_for_task().await;
            }
            Ok(())
        })
    }
}

/// A call's dispatch, owned, so that it can move from the request into its task.
pub(crate) type Dispatch = Pin<Box<dyn Future<Output = ToolResult> + Send>>;

/// How the part of a call within its request ended.
pub(crate) enum InRequest {
    /// The handler, which meant to escalate, finished without: its result is the
    /// answer.
    Done(ToolResult),
    /// The handler asked the client: the round's answer.
    InputRequired(InputRequiredResult),
    /// The handler escalates, or never meant to run within the request: the call
    /// goes on as a task.
    Task(Dispatch),
}

/// Runs `call` (whose client is `client`) within the request as far as it goes
/// there: a handler that took no `TaskEscalation` is a task at once.
pub(crate) async fn run_in_request(
    mut call: Dispatch,
    client: &HandoffClient,
    seal: &StateSeal,
    binding: &[u8],
) -> InRequest {
    // The first poll builds the handler's parameters: a `TaskEscalation` among
    // them says so before its body runs.
    let first = futures_poll_once(&mut call).await;
    let expected = client.expected.load(Ordering::SeqCst);
    match first {
        // A handler that never meant to run within the request is a task even when
        // it is done at once: its client asked for a task and gets one.
        Poll::Ready(result) if !expected => {
            return InRequest::Task(Box::pin(std::future::ready(result)));
        }
        Poll::Ready(result) => return InRequest::Done(result),
        Poll::Pending if !expected => return InRequest::Task(call),
        Poll::Pending => {}
    }
    tokio::select! {
        biased;
        result = &mut call => InRequest::Done(result),
        () = client.escalated.notified() => InRequest::Task(call),
        () = client.rounds.asked() => {
            InRequest::InputRequired(client.rounds.input_required(seal, binding))
        }
    }
}

/// Polls `call` once.
async fn futures_poll_once(call: &mut Dispatch) -> Poll<ToolResult> {
    std::future::poll_fn(|context| Poll::Ready(call.as_mut().poll(context))).await
}
