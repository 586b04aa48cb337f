//! Hints that a task changed: the id of each task whose status a write of this
//! replica changed, broadcast to the replica's listen streams (and, on PostgreSQL,
//! the ids the other replicas' writes notify). A hint is not the truth: a stream
//! reads the task from the store, and a hint lost (a stream that lagged, a
//! connection that dropped) only delays what `tasks/get` already shows.

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::sync::broadcast;

use super::record::{TaskRecord, TaskState};
use super::store::{TaskStore, TaskStoreError};

/// How many hints a slow stream may fall behind before it skips some.
const BACKLOG: usize = 256;

/// The hints of one replica.
#[derive(Clone)]
pub(crate) struct Hints {
    sender: broadcast::Sender<String>,
    #[cfg(feature = "postgres")]
    replicas: Option<Arc<super::replica_hints::ReplicaHints>>,
}

impl Hints {
    /// The hints of this replica's own writes only (a store no other replica shares).
    pub(crate) fn local() -> Self {
        Self {
            sender: broadcast::channel(BACKLOG).0,
            #[cfg(feature = "postgres")]
            replicas: None,
        }
    }

    /// The hints of every replica on `database`: this one's writes, and what the
    /// others notify, heard while a stream watches.
    #[cfg(feature = "postgres")]
    pub(crate) fn across(database: &crate::postgres::Database) -> Self {
        let sender = broadcast::channel(BACKLOG).0;
        let replicas = super::replica_hints::ReplicaHints::new(database, sender.clone());
        Self {
            sender,
            replicas: replicas.map(Arc::new),
        }
    }

    /// Says task `id` changed.
    fn hint(&self, id: &str) {
        // No stream watching is no error.
        let _ = self.sender.send(id.to_string());
    }

    /// The hints from now on, for one listen stream: on PostgreSQL, once the
    /// replica listens to the others (or its first try failed).
    pub(crate) async fn watch(&self) -> Watch {
        let receiver = self.sender.subscribe();
        #[cfg(feature = "postgres")]
        let listening = match &self.replicas {
            Some(replicas) => Some(replicas.listen().await),
            None => None,
        };
        Watch {
            receiver,
            #[cfg(feature = "postgres")]
            _listening: listening,
        }
    }
}

/// What one listen stream hears; the replica stops listening to the others once
/// the last watch is dropped.
pub(crate) struct Watch {
    receiver: broadcast::Receiver<String>,
    #[cfg(feature = "postgres")]
    _listening: Option<super::replica_hints::Listening>,
}

impl Watch {
    /// The next task id hinted; `None` once no more can come. Hints skipped by a
    /// stream that fell behind are lost (hints are not the truth).
    pub(crate) async fn next(&mut self) -> Option<String> {
        loop {
            match self.receiver.recv().await {
                Ok(id) => return Some(id),
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

/// A store whose writes that change a task's status hint its id: every write of
/// the runner goes through it.
pub(crate) struct HintedStore {
    inner: Arc<dyn TaskStore>,
    hints: Hints,
}

impl HintedStore {
    pub(crate) fn new(inner: Arc<dyn TaskStore>, hints: Hints) -> Self {
        Self { inner, hints }
    }
}

impl TaskStore for HintedStore {
    fn create(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        self.inner.create(record)?;
        self.hints.hint(&record.id);
        Ok(())
    }

    fn get(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        self.inner.get(id)
    }

    fn advance(&self, id: &str, state: &TaskState, now_ms: u64) -> Result<bool, TaskStoreError> {
        let changed = self.inner.advance(id, state, now_ms)?;
        if changed {
            self.hints.hint(id);
        }
        Ok(changed)
    }

    fn remove_expired(&self, now_ms: u64) -> Result<usize, TaskStoreError> {
        self.inner.remove_expired(now_ms)
    }

    fn renew(&self, id: &str, lease_until_ms: u64) -> Result<bool, TaskStoreError> {
        self.inner.renew(id, lease_until_ms)
    }

    /// Unhinted here (the store does not say which tasks): tasks abandoned by a
    /// stopped replica, which PostgreSQL's notifications hint.
    fn fail_abandoned(&self, state: &TaskState, now_ms: u64) -> Result<usize, TaskStoreError> {
        self.inner.fail_abandoned(state, now_ms)
    }

    fn ask(
        &self,
        id: &str,
        key: &str,
        request: &Value,
        now_ms: u64,
    ) -> Result<bool, TaskStoreError> {
        let asked = self.inner.ask(id, key, request, now_ms)?;
        if asked {
            self.hints.hint(id);
        }
        Ok(asked)
    }

    fn answer(
        &self,
        id: &str,
        responses: &Map<String, Value>,
        now_ms: u64,
    ) -> Result<Vec<String>, TaskStoreError> {
        let keys = self.inner.answer(id, responses, now_ms)?;
        if !keys.is_empty() {
            self.hints.hint(id);
        }
        Ok(keys)
    }

    fn take_answers(&self, id: &str) -> Result<Map<String, Value>, TaskStoreError> {
        self.inner.take_answers(id)
    }
}
