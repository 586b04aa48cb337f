//! A task as the store keeps it: who owns it, which tool it runs, and its state.

use serde_json::{Map, Value};

use super::store::TaskStoreError;

/// One task: the durable facts `tasks/get` answers from.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    /// The server-minted id the client polls with (128 random bits, hex).
    pub id: String,
    /// Who may see the task: the principal, else the session, else `anonymous`
    /// (see [`TaskOwner`]).
    pub owner: TaskOwner,
    /// The tool the task runs.
    pub tool: String,
    /// Where the task is.
    pub state: TaskState,
    /// When the task was created, in milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// When its state last changed, in milliseconds since the Unix epoch.
    pub updated_at_ms: u64,
    /// How long after creation the task is kept; `None` keeps it.
    pub ttl_ms: Option<u64>,
    /// Until when the server running the task vouches for it, in milliseconds since
    /// the Unix epoch: that server renews it while the task runs. An unfinished task
    /// past it has lost its server (see [`Self::is_abandoned`]).
    pub lease_until_ms: u64,
}

impl TaskRecord {
    /// A task just created at `now_ms`: working, owned by `owner`, running `tool`,
    /// kept for `ttl_ms` after creation (`None` keeps it), its lease running until
    /// `now_ms` (the server that runs it sets a later one).
    pub fn working(
        id: impl Into<String>,
        owner: TaskOwner,
        tool: impl Into<String>,
        now_ms: u64,
        ttl_ms: Option<u64>,
    ) -> Self {
        Self {
            id: id.into(),
            owner,
            tool: tool.into(),
            state: TaskState::Working,
            created_at_ms: now_ms,
            updated_at_ms: now_ms,
            ttl_ms,
            lease_until_ms: now_ms,
        }
    }

    /// Whether the task is unfinished at `now_ms` while its lease has run out: the
    /// server that ran it stopped without ending it.
    pub fn is_abandoned(&self, now_ms: u64) -> bool {
        !self.state.is_terminal() && now_ms > self.lease_until_ms
    }

    /// Whether the task's time to live has run out at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.ttl_ms
            .is_some_and(|ttl| now_ms >= self.created_at_ms.saturating_add(ttl))
    }
}

/// Whom a task belongs to: another owner's `tasks/get`, `tasks/update` and
/// `tasks/cancel` find no such task.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TaskOwner(String);

impl TaskOwner {
    /// The owner of an authenticated principal's tasks.
    pub fn principal(id: &str) -> Self {
        Self(format!("principal:{id}"))
    }

    /// The owner of an unauthenticated session's tasks.
    pub fn session(id: &str) -> Self {
        Self(format!("session:{id}"))
    }

    /// The owner of the tasks of requests with neither a principal nor a session
    /// (stateless requests without authentication: all such clients share them).
    pub fn anonymous() -> Self {
        Self("anonymous".to_string())
    }

    /// An owner as the store wrote it ([`Self::as_str`]).
    pub fn from_stored(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    /// The owner as the store writes it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Where a task is, with what its status carries on the wire.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskState {
    /// The tool is running.
    Working,
    /// The tool waits for the client's answers to these requests (key: the
    /// server-minted id `tasks/update` answers under; value: `{method, params}`).
    InputRequired(Map<String, Value>),
    /// The tool ended; its `tools/call` result (a tool error included, with
    /// `isError: true`).
    Completed(Map<String, Value>),
    /// The call failed below the tool (a panic, a result that cannot be encoded,
    /// a server that stopped): the JSON-RPC error `{code, message, data}`.
    Failed(Map<String, Value>),
    /// The client cancelled the task.
    Cancelled,
}

impl TaskState {
    /// The status name on the wire.
    pub fn status(&self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired(_) => "input_required",
            Self::Completed(_) => "completed",
            Self::Failed(_) => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Whether the task has ended (completed, failed or cancelled): its state
    /// no longer changes.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Completed(_) | Self::Failed(_) | Self::Cancelled)
    }

    /// What the status carries: the input requests, the result or the error.
    pub fn payload(&self) -> Option<&Map<String, Value>> {
        match self {
            Self::InputRequired(payload) | Self::Completed(payload) | Self::Failed(payload) => {
                Some(payload)
            }
            Self::Working | Self::Cancelled => None,
        }
    }

    /// The state of a stored `status` and `payload`.
    pub fn from_parts(status: &str, payload: Option<Value>) -> Result<Self, TaskStoreError> {
        let object = |payload: Option<Value>| match payload {
            Some(Value::Object(map)) => Ok(map),
            other => Err(TaskStoreError::new(format!(
                "a stored `{status}` task has no object payload: {other:?}"
            ))),
        };
        Ok(match status {
            "working" => Self::Working,
            "input_required" => Self::InputRequired(object(payload)?),
            "completed" => Self::Completed(object(payload)?),
            "failed" => Self::Failed(object(payload)?),
            "cancelled" => Self::Cancelled,
            other => {
                return Err(TaskStoreError::new(format!(
                    "a stored task has the unknown status `{other}`"
                )));
            }
        })
    }
}

/// The state of a task once it also waits on `request` under `key`: `None` when the
/// task has ended (it waits on nothing any more).
pub(crate) fn asking(state: &TaskState, key: &str, request: &Value) -> Option<TaskState> {
    let mut requests = match state {
        TaskState::Working => Map::new(),
        TaskState::InputRequired(requests) => requests.clone(),
        _ => return None,
    };
    requests.insert(key.to_string(), request.clone());
    Some(TaskState::InputRequired(requests))
}

/// What the client's `responses` do to a task in `state` whose answers not yet
/// taken by its server are `recorded`: each response to a request the task still
/// waits on is recorded, and that request stops waiting (`working` once none is
/// left); the others (answered already, never asked) are ignored. `None` when no
/// response was recorded (nothing to write); else the new state, the answers and
/// the keys recorded.
pub(crate) fn answering(
    state: &TaskState,
    recorded: &Map<String, Value>,
    responses: &Map<String, Value>,
) -> Option<(TaskState, Map<String, Value>, Vec<String>)> {
    let TaskState::InputRequired(waiting) = state else {
        return None;
    };
    let mut waiting = waiting.clone();
    let mut answers = recorded.clone();
    let mut keys = Vec::new();
    for (key, response) in responses {
        if waiting.remove(key).is_some() && !answers.contains_key(key) {
            answers.insert(key.clone(), response.clone());
            keys.push(key.clone());
        }
    }
    if keys.is_empty() {
        return None;
    }
    let state = if waiting.is_empty() {
        TaskState::Working
    } else {
        TaskState::InputRequired(waiting)
    };
    Some((state, answers, keys))
}
