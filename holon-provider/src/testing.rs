//! A scripted model for tests: it replays provider-shaped responses in order and
//! records every request it received, so an agent loop runs in `cargo test` without a
//! network.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde_json::Value;

use crate::agent_loop::SendError;

/// A model that answers each request with the next scripted response body.
#[derive(Debug, Default)]
pub struct ScriptedModel {
    responses: Mutex<VecDeque<Value>>,
    requests: Mutex<Vec<Value>>,
}

/// The error of a request past the end of the script.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the scripted model has no response left for request {0}")]
pub struct ScriptExhausted(pub usize);

impl ScriptedModel {
    /// A model that answers with `responses`, in order.
    pub fn new(responses: impl IntoIterator<Item = Value>) -> Self {
        Self {
            responses: Mutex::new(responses.into_iter().collect()),
            requests: Mutex::new(Vec::new()),
        }
    }

    /// Records `request` and returns the next response; past the script's end, an
    /// error (a loop that asks more than the test expected fails).
    pub async fn send(&self, request: Value) -> Result<Value, SendError> {
        let mut requests = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        requests.push(request);
        let number = requests.len();
        drop(requests);
        let next = self
            .responses
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front();
        next.ok_or_else(|| Box::new(ScriptExhausted(number)) as SendError)
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// How many scripted responses are left.
    pub fn remaining(&self) -> usize {
        self.responses
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }
}
