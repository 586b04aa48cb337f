//! A task running in this process: its cancellation and the client requests it
//! waits on.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::clock::now_ms;
use super::record::TaskState;
use super::store::{TaskStore, TaskStoreError};

/// How often a task that waits on the client reads the store for the answers
/// `tasks/update` recorded through another server (one primary-key lookup, and no
/// write while there is none). Well under the clients' poll interval
/// ([`super::DEFAULT_POLL_INTERVAL_MS`], 250 ms): a client that answers through
/// another server sees the tool go on by its next poll or the one after, at 10
/// lookups a second per waiting task. An answer received by this server reaches
/// the tool at once, without waiting for the poll.
pub(crate) const ANSWER_POLL: Duration = Duration::from_millis(100);

/// One running task.
pub(crate) struct LiveTask {
    id: String,
    store: Arc<dyn TaskStore>,
    cancel: CancellationToken,
    inputs: Mutex<Inputs>,
}

/// The client requests the task's tool waits on, under the keys the client answers.
#[derive(Default)]
struct Inputs {
    minted: u64,
    waiting: BTreeMap<String, oneshot::Sender<Value>>,
}

impl LiveTask {
    pub(crate) fn new(id: String, store: Arc<dyn TaskStore>) -> Self {
        Self {
            id,
            store,
            cancel: CancellationToken::new(),
            inputs: Mutex::default(),
        }
    }

    /// The token the tool's context is cancelled by.
    pub(crate) fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    fn inputs(&self) -> MutexGuard<'_, Inputs> {
        // Each change of the map is one insert or remove: nothing half-done to see.
        self.inputs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Parks the task on `request` (`{method, params}`) until the client answers
    /// it through `tasks/update`, to this server or another one on the store;
    /// `None` when the task is cancelled first.
    pub(crate) async fn ask(&self, request: Value) -> Result<Option<Value>, TaskStoreError> {
        let (answer, answered) = oneshot::channel();
        let key = {
            let mut inputs = self.inputs();
            inputs.minted += 1;
            let key = format!("input-{}", inputs.minted);
            inputs.waiting.insert(key.clone(), answer);
            key
        };
        // Waiting here before the store says so: an answer recorded as soon as
        // the store has the request finds its receiver.
        if let Err(error) = self.store.ask(&self.id, &key, &request, now_ms()) {
            self.inputs().waiting.remove(&key);
            return Err(error);
        }
        let poll = async {
            loop {
                tokio::time::sleep(ANSWER_POLL).await;
                // A store that fails is read again at the next tick; one out for a
                // whole lease lets the task fail, as a stopped server's.
                let _ = self.collect();
            }
        };
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Ok(None),
            answer = answered => Ok(answer.ok()),
            never = poll => match never {},
        }
    }

    /// Hands the answers the store recorded (`tasks/update` through any server) to
    /// the requests waiting under their keys.
    pub(crate) fn collect(&self) -> Result<(), TaskStoreError> {
        let mut inputs = self.inputs();
        if inputs.waiting.is_empty() {
            return Ok(());
        }
        // Taken under the lock: of concurrent collects, one hands each answer.
        for (key, answer) in self.store.take_answers(&self.id)? {
            if let Some(waiting) = inputs.waiting.remove(&key) {
                // A tool that stopped waiting (cancelled) drops its receiver.
                let _ = waiting.send(answer);
            }
        }
        Ok(())
    }

    /// Cancels the tool: the state says `cancelled` first, then the token fires.
    pub(crate) fn cancel(&self) -> Result<(), TaskStoreError> {
        let outcome = self
            .store
            .advance(&self.id, &TaskState::Cancelled, now_ms());
        self.cancel.cancel();
        outcome.map(drop)
    }
}
