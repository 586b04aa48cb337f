//! Where tasks are kept: the [`TaskStore`] trait.

use serde_json::{Map, Value};

use super::record::{TaskRecord, TaskState};

/// Keeps tasks. A task is created before its `tools/call` is answered, so a
/// `tasks/get` right after the answer finds it; a durable store keeps it across a
/// restart of the server.
///
/// Calls are short and synchronous (the server makes them outside of any lock a
/// tool waits on). Several servers may share a store (PostgreSQL's): the server
/// that runs a task renews its lease while it runs, and a task whose lease ran out
/// unfinished is failed by the next server that reads it or sweeps the store.
pub trait TaskStore: Send + Sync + 'static {
    /// Adds a new task. An id already taken is an error.
    fn create(&self, record: &TaskRecord) -> Result<(), TaskStoreError>;

    /// The task of `id`, whoever owns it; `None` when there is none.
    fn get(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError>;

    /// Moves an unfinished task to `state` at `now_ms`. `false` (and no change)
    /// when the task is unknown or has already ended: an ended task never changes.
    fn advance(&self, id: &str, state: &TaskState, now_ms: u64) -> Result<bool, TaskStoreError>;

    /// Forgets the tasks whose time to live ran out at `now_ms`; how many.
    fn remove_expired(&self, now_ms: u64) -> Result<usize, TaskStoreError>;

    /// Extends the lease of an unfinished task to `lease_until_ms`. `false` (and no
    /// change) when the task is unknown or has ended: cancelled through another
    /// server, or failed by a sweep; its runner then stops it.
    fn renew(&self, id: &str, lease_until_ms: u64) -> Result<bool, TaskStoreError>;

    /// Moves every task abandoned at `now_ms` (unfinished, its lease run out, see
    /// [`TaskRecord::is_abandoned`]) to `state`; how many.
    fn fail_abandoned(&self, state: &TaskState, now_ms: u64) -> Result<usize, TaskStoreError>;

    /// Adds `request` (`{method, params}`) under `key` to the requests an
    /// unfinished task waits on, at `now_ms`: the task reads `input_required` with
    /// them all, through every server on the store. `false` (and no change) when
    /// the task is unknown or has ended.
    fn ask(
        &self,
        id: &str,
        key: &str,
        request: &Value,
        now_ms: u64,
    ) -> Result<bool, TaskStoreError>;

    /// Records the client's `responses` (`tasks/update`, received by any server)
    /// to the requests the task waits on, in one atomic step at `now_ms`: a
    /// response to a request still waiting is recorded and the request stops
    /// waiting (the task reads `working` once none is left); a response to any
    /// other key (answered already, by this call or a concurrent one; never asked;
    /// a task that waits on nothing) is ignored. So of racing answers to one
    /// request, the first wins. The keys recorded.
    fn answer(
        &self,
        id: &str,
        responses: &Map<String, Value>,
        now_ms: u64,
    ) -> Result<Vec<String>, TaskStoreError>;

    /// Takes the answers recorded for the task and not taken yet (each is taken
    /// once): the server running the task hands them to its tool.
    fn take_answers(&self, id: &str) -> Result<Map<String, Value>, TaskStoreError>;
}

/// A store that could not do what was asked (the disk, the database), or could
/// not be reached at all ([`is_unavailable`](Self::is_unavailable)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the task store {}: {message}",
    if *unavailable { "is unavailable" } else { "failed" }
)]
pub struct TaskStoreError {
    message: String,
    unavailable: bool,
}

impl TaskStoreError {
    /// An error that says `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            unavailable: false,
        }
    }

    /// The error of a store that cannot be reached now (its database is down or
    /// refuses connections), saying `message`: the same call may succeed later.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            unavailable: true,
        }
    }

    /// Whether the store could not be reached (as opposed to failing a statement).
    pub fn is_unavailable(&self) -> bool {
        self.unavailable
    }
}
