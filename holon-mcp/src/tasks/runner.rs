//! The task lifecycle: a call becomes a task (created in the store before the
//! answer), runs in the background, and is polled (`tasks/get`), answered
//! (`tasks/update`) and cancelled (`tasks/cancel`) by its owner only.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{CreateTaskResult, GetTaskResult};
use serde_json::{Map, Value, json};

use super::clock::{iso8601, now_ms};
use super::hints::{HintedStore, Hints};
use super::live::LiveTask;
use super::record::{TaskOwner, TaskRecord, TaskState};
use super::store::{TaskStore, TaskStoreError};

/// How long a task is kept after its creation (an hour), unless the host says.
pub const DEFAULT_TASK_TTL_MS: u64 = 60 * 60 * 1000;

/// How often a client is asked to poll a task.
pub const DEFAULT_POLL_INTERVAL_MS: u64 = 250;

/// How long the server running a task vouches for it between renewals (30 s; it
/// renews every third of it): a task whose server stopped reads as `failed` once
/// this has passed.
pub const DEFAULT_TASK_LEASE_MS: u64 = 30_000;

/// The first wait before a task's final state, refused by the store, is written
/// again; each wait doubles up to a third of the lease.
const FIRST_RETRY: Duration = Duration::from_millis(100);

/// The tasks of one server: its store and the tasks running in this process.
pub(crate) struct Tasks {
    /// The store as given.
    store: Arc<dyn TaskStore>,
    /// The same store, its writes hinted to the listen streams: every call goes
    /// through it.
    hinted: Arc<dyn TaskStore>,
    hints: Hints,
    live: Mutex<HashMap<String, Arc<LiveTask>>>,
    ttl_ms: Option<u64>,
    lease_ms: u64,
    /// When this server last failed the store's abandoned tasks.
    swept_at_ms: AtomicU64,
}

/// The JSON-RPC error of a store that failed: `kind` is `task_store_unavailable`
/// when the store could not be reached (a client may try again later), else
/// `task_store_failed`.
fn store_failed(error: TaskStoreError) -> ErrorData {
    let kind = if error.is_unavailable() {
        "task_store_unavailable"
    } else {
        "task_store_failed"
    };
    ErrorData::internal_error(error.to_string(), Some(json!({ "kind": kind })))
}

/// The JSON-RPC error of a task id this owner has no task under (unknown, expired,
/// or another owner's: which of them is not told).
pub(crate) fn unknown_task(id: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "no task `{id}`: its id is wrong, its time to live ran out, or it is not yours; the tools/call that created it returned the id"
        ),
        Some(json!({ "kind": "unknown_task", "taskId": id })),
    )
}

/// 128 random bits, as 32 hex digits: an id nobody can guess.
fn mint_id() -> Result<String, ErrorData> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| {
        ErrorData::internal_error(format!("no randomness for a task id: {error}"), None)
    })?;
    Ok(hex::encode(bytes))
}

impl Tasks {
    /// The tasks kept in `store`, each for `ttl_ms` after its creation (`None`:
    /// kept until the store forgets it), those running here under leases of
    /// `lease_ms`; the changes of their status hinted through `hints`.
    pub(crate) fn new(
        store: Arc<dyn TaskStore>,
        ttl_ms: Option<u64>,
        lease_ms: u64,
        hints: Hints,
    ) -> Self {
        Self {
            hinted: Arc::new(HintedStore::new(store.clone(), hints.clone())),
            store,
            hints,
            live: Mutex::default(),
            ttl_ms,
            lease_ms: lease_ms.max(1),
            swept_at_ms: AtomicU64::new(0),
        }
    }

    /// The store the tasks are kept in.
    pub(crate) fn store(&self) -> &Arc<dyn TaskStore> {
        &self.store
    }

    /// The hints that a task's status changed.
    pub(crate) fn hints(&self) -> &Hints {
        &self.hints
    }

    /// Removes the store's expired tasks and fails its abandoned ones (their server
    /// stopped), at most once per half lease: at this server's first task, then as
    /// tasks are created. Off the answer path, on a blocking thread of the runtime,
    /// so that creating a task is one round trip to the store; a sweep that fails is
    /// tried again at the next one due (readers fail an abandoned task meanwhile,
    /// and an expired one reads as unknown).
    fn sweep(&self, now: u64) {
        let last = self.swept_at_ms.load(Ordering::Relaxed);
        if last != 0 && now.saturating_sub(last) < self.lease_ms / 2 {
            return;
        }
        if self
            .swept_at_ms
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            // Another call of this server sweeps now.
            return;
        }
        let store = self.hinted.clone();
        tokio::task::spawn_blocking(move || {
            let _ = store.remove_expired(now);
            let _ = store.fail_abandoned(&abandoned_state(), now);
        });
    }

    /// Waits for `work`, the tool of task `id`, renewing the task's lease every
    /// third of it; when the task ended elsewhere (cancelled through another
    /// server, failed by a sweep), fires the tool's cancellation.
    async fn supervise(
        &self,
        id: &str,
        live: &LiveTask,
        mut work: tokio::task::JoinHandle<TaskState>,
    ) -> TaskState {
        let every = Duration::from_millis((self.lease_ms / 3).max(1));
        let mut renewing = true;
        loop {
            tokio::select! {
                ended = &mut work => {
                    return ended.unwrap_or_else(|join| {
                        failed_state(-32603, format!("the task's tool stopped: {join}"))
                    });
                }
                () = tokio::time::sleep(every), if renewing => {
                    let lease_until = now_ms().saturating_add(self.lease_ms);
                    match self.hinted.renew(id, lease_until) {
                        Ok(true) => {}
                        Ok(false) => {
                            live.cancellation().cancel();
                            renewing = false;
                        }
                        // Tried again at the next tick: a store out for a whole
                        // lease lets the task be failed, as a stopped server's.
                        Err(_) => {}
                    }
                }
            }
        }
    }

    /// Writes the final `state` of task `id`, again while the store cannot be
    /// reached (waits from [`FIRST_RETRY`] doubling up to a third of the lease, the
    /// lease renewed meanwhile), so that a tool that ended during an outage has its
    /// end written soon after the store is back. Stops once the write lands, the
    /// store says the task has ended (the first terminal state wins), the store
    /// refuses the write (it would refuse it again), or the task expires at
    /// `expires_at_ms` (nobody can read it any more).
    async fn finish(&self, id: &str, state: &TaskState, expires_at_ms: Option<u64>) {
        let cap = Duration::from_millis((self.lease_ms / 3).max(1));
        let mut wait = FIRST_RETRY.min(cap);
        // The first retry renews at once: the last renewal may be a third of a
        // lease old already.
        let mut renewed_at: Option<tokio::time::Instant> = None;
        loop {
            let error = match self.hinted.advance(id, state, now_ms()) {
                Ok(_) => return,
                Err(error) => error,
            };
            if !error.is_unavailable() {
                tracing::warn!(task = id, %error, "the store refused the task's end; it reads as failed once its lease runs out");
                return;
            }
            if expires_at_ms.is_some_and(|expires| now_ms() >= expires) {
                tracing::warn!(task = id, %error, "the task's end could not be written before its time to live ran out");
                return;
            }
            tracing::warn!(
                task = id,
                %error,
                retry_in_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                "the task's end could not be written; trying again"
            );
            tokio::time::sleep(wait).await;
            wait = wait.saturating_mul(2).min(cap);
            if renewed_at.is_none_or(|at| at.elapsed() >= cap) {
                match self
                    .hinted
                    .renew(id, now_ms().saturating_add(self.lease_ms))
                {
                    Ok(true) => renewed_at = Some(tokio::time::Instant::now()),
                    // Ended elsewhere (cancelled, or failed for its lease): that stands.
                    Ok(false) => return,
                    Err(_) => {}
                }
            }
        }
    }

    fn live(&self) -> MutexGuard<'_, HashMap<String, Arc<LiveTask>>> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Creates a task of `tool` for `owner` in the store, then runs `work` (given
    /// the running task) in the background; the handle is returned once the store
    /// has the task. `work` ends in the task's final state.
    pub(crate) fn start<W, F>(
        self: &Arc<Self>,
        owner: TaskOwner,
        tool: &str,
        work: W,
    ) -> Result<CreateTaskResult, ErrorData>
    where
        W: FnOnce(Arc<LiveTask>) -> F,
        F: Future<Output = TaskState> + Send + 'static,
    {
        let now = now_ms();
        // Expired tasks go as new ones come: the store stays bounded by the TTL.
        self.sweep(now);
        let mut record = TaskRecord::working(mint_id()?, owner, tool, now, self.ttl_ms);
        record.lease_until_ms = now.saturating_add(self.lease_ms);
        self.hinted.create(&record).map_err(store_failed)?;
        let live = Arc::new(LiveTask::new(record.id.clone(), self.hinted.clone()));
        self.live().insert(record.id.clone(), live.clone());
        let work = work(live.clone());
        // The tool's span stays the child of the `tools/call` that started it.
        #[cfg(feature = "tracing")]
        let work = tracing::Instrument::in_current_span(work);
        let work = tokio::spawn(work);
        let tasks = Arc::clone(self);
        let id = record.id.clone();
        let expires_at_ms = record
            .ttl_ms
            .map(|ttl| record.created_at_ms.saturating_add(ttl));
        tokio::spawn(async move {
            let state = tasks.supervise(&id, &live, work).await;
            // A cancelled task stays cancelled: `advance` leaves ended tasks alone.
            // Live here until its end is written: this replica never fails it.
            tasks.finish(&id, &state, expires_at_ms).await;
            tasks.live().remove(&id);
        });
        let task = serde_json::from_value(Value::Object(wire_task(&record))).map_err(|error| {
            ErrorData::internal_error(format!("a task handle could not be encoded: {error}"), None)
        })?;
        Ok(CreateTaskResult::new(task))
    }

    /// The task `id` of `owner`, or the unknown-task error.
    fn owned(&self, owner: &TaskOwner, id: &str) -> Result<TaskRecord, ErrorData> {
        let record = self.hinted.get(id).map_err(store_failed)?;
        match record {
            Some(record) if record.owner == *owner && !record.is_expired(now_ms()) => Ok(record),
            _ => Err(unknown_task(id)),
        }
    }

    /// `tasks/get`: the task's state, with its input requests, result or error.
    pub(crate) fn get(&self, owner: &TaskOwner, id: &str) -> Result<GetTaskResult, ErrorData> {
        let mut record = self.owned(owner, id)?;
        if record.is_abandoned(now_ms()) && !self.live().contains_key(id) {
            // Unfinished, its lease run out: the server that ran it stopped.
            self.hinted
                .advance(id, &abandoned_state(), now_ms())
                .map_err(store_failed)?;
            record = self.owned(owner, id)?;
        }
        let mut fields = wire_task(&record);
        fields.insert("resultType".into(), json!("complete"));
        if let Some(payload) = record.state.payload() {
            let key = match record.state {
                TaskState::InputRequired(_) => "inputRequests",
                TaskState::Completed(_) => "result",
                _ => "error",
            };
            fields.insert(key.into(), Value::Object(payload.clone()));
        }
        serde_json::from_value(Value::Object(fields)).map_err(|error| {
            ErrorData::internal_error(format!("a task could not be encoded: {error}"), None)
        })
    }

    /// `tasks/update`: records the client's answers to the task's waiting requests
    /// in the store (the first answer to a request wins; others are ignored, as
    /// are answers to a task that waits on nothing), from where they reach the
    /// tool: at once when it runs here, else at its server's next poll.
    pub(crate) fn update(
        &self,
        owner: &TaskOwner,
        id: &str,
        responses: BTreeMap<String, Value>,
    ) -> Result<(), ErrorData> {
        let record = self.owned(owner, id)?;
        let live = self.live().get(id).cloned();
        // An ended task waits on nothing, nor does one whose server stopped: the
        // answers change nothing.
        if record.state.is_terminal() || (live.is_none() && record.is_abandoned(now_ms())) {
            return Ok(());
        }
        let responses: Map<String, Value> = responses.into_iter().collect();
        self.hinted
            .answer(id, &responses, now_ms())
            .map_err(store_failed)?;
        match live {
            Some(live) => live.collect().map_err(store_failed),
            None => Ok(()),
        }
    }

    /// `tasks/cancel`: the task is cancelled (its tool's cancellation fires); an
    /// ended task stays as it ended.
    pub(crate) fn cancel(&self, owner: &TaskOwner, id: &str) -> Result<(), ErrorData> {
        let record = self.owned(owner, id)?;
        if record.state.is_terminal() {
            return Ok(());
        }
        let live = self.live().get(id).cloned();
        match live {
            Some(live) => live.cancel().map_err(store_failed),
            None => self
                .hinted
                .advance(id, &TaskState::Cancelled, now_ms())
                .map(drop)
                .map_err(store_failed),
        }
    }
}

/// The state of a task whose server stopped before it ended.
fn abandoned_state() -> TaskState {
    failed_state(
        -32603,
        "the server running the task stopped before it ended (its lease ran out)".into(),
    )
}

/// A `failed` state with the JSON-RPC error `code` and `message`.
pub(crate) fn failed_state(code: i64, message: String) -> TaskState {
    let mut error = Map::new();
    error.insert("code".into(), json!(code));
    error.insert("message".into(), json!(message));
    TaskState::Failed(error)
}

/// The extension's `Task` fields of `record`.
fn wire_task(record: &TaskRecord) -> Map<String, Value> {
    let mut task = Map::new();
    task.insert("taskId".into(), json!(record.id));
    task.insert("status".into(), json!(record.state.status()));
    task.insert("createdAt".into(), json!(iso8601(record.created_at_ms)));
    task.insert("lastUpdatedAt".into(), json!(iso8601(record.updated_at_ms)));
    task.insert("ttlMs".into(), json!(record.ttl_ms));
    task.insert("pollIntervalMs".into(), json!(DEFAULT_POLL_INTERVAL_MS));
    task
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::MemoryTaskStore;

    fn tasks() -> Arc<Tasks> {
        Arc::new(Tasks::new(
            Arc::new(MemoryTaskStore::new()),
            Some(60_000),
            DEFAULT_TASK_LEASE_MS,
            Hints::local(),
        ))
    }

    #[tokio::test]
    async fn another_owners_task_is_an_unknown_task_to_every_method() {
        let tasks = tasks();
        let alice = TaskOwner::principal("alice");
        let created = tasks
            .start(alice.clone(), "Slow", |_| std::future::pending())
            .expect("created");
        let id = created.task.task_id;
        for stranger in [
            TaskOwner::principal("bob"),
            TaskOwner::session("s-1"),
            TaskOwner::anonymous(),
        ] {
            let error = tasks.get(&stranger, &id).expect_err("not theirs");
            assert_eq!(error.code.0, -32602);
            assert_eq!(error.data, unknown_task(&id).data);
            assert!(tasks.cancel(&stranger, &id).is_err());
            assert!(tasks.update(&stranger, &id, BTreeMap::new()).is_err());
        }
        // Nothing the strangers did reached it; its owner sees it working.
        let task = tasks.get(&alice, &id).expect("alice's");
        assert_eq!(task.task.status(), rmcp::model::TaskStatus::Working);
    }

    #[tokio::test]
    async fn an_expired_task_is_unknown() {
        let tasks = Arc::new(Tasks::new(
            Arc::new(MemoryTaskStore::new()),
            Some(0),
            DEFAULT_TASK_LEASE_MS,
            Hints::local(),
        ));
        let owner = TaskOwner::anonymous();
        let created = tasks
            .start(owner.clone(), "Slow", |_| std::future::pending())
            .expect("created");
        let error = tasks
            .get(&owner, &created.task.task_id)
            .expect_err("expired");
        assert_eq!(error.code.0, -32602);
    }
}
