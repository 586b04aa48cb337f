//! A task running in this process: its cancellation and the client requests it
//! waits on.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::{Map, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::clock::now_ms;
use super::record::TaskState;
use super::store::{TaskStore, TaskStoreError};

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
    waiting: BTreeMap<String, Waiting>,
}

struct Waiting {
    request: Value,
    answer: oneshot::Sender<Value>,
}

impl Inputs {
    /// The task's state while these requests wait: `input_required` with them all,
    /// or `working` when none is left.
    fn state(&self) -> TaskState {
        if self.waiting.is_empty() {
            return TaskState::Working;
        }
        let requests: Map<String, Value> = self
            .waiting
            .iter()
            .map(|(key, waiting)| (key.clone(), waiting.request.clone()))
            .collect();
        TaskState::InputRequired(requests)
    }
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
    /// it through `tasks/update`; `None` when the task is cancelled first.
    pub(crate) async fn ask(&self, request: Value) -> Result<Option<Value>, TaskStoreError> {
        let (answer, answered) = oneshot::channel();
        {
            let mut inputs = self.inputs();
            inputs.minted += 1;
            let key = format!("input-{}", inputs.minted);
            inputs.waiting.insert(key, Waiting { request, answer });
            // Written under the lock: `tasks/update` writes its state under it too,
            // so the store always has the latest set of waiting requests.
            self.store.advance(&self.id, &inputs.state(), now_ms())?;
        }
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Ok(None),
            answer = answered => Ok(answer.ok()),
        }
    }

    /// Hands the client's answers to the requests waiting under their keys
    /// (other keys are ignored: answered already, or never asked), and records the
    /// requests still waiting.
    pub(crate) fn answer(&self, responses: BTreeMap<String, Value>) -> Result<(), TaskStoreError> {
        let mut inputs = self.inputs();
        let mut answered = false;
        for (key, response) in responses {
            if let Some(waiting) = inputs.waiting.remove(&key) {
                // A tool that stopped waiting (cancelled) drops its receiver.
                let _ = waiting.answer.send(response);
                answered = true;
            }
        }
        if answered {
            self.store.advance(&self.id, &inputs.state(), now_ms())?;
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
