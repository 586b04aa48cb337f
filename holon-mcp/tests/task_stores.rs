//! One behavioural suite for every task store: memory, SQLite and PostgreSQL keep
//! tasks by the same rules. `parity_suite!` instantiates each test per backend.
//!
//! The PostgreSQL tests start a PostgreSQL of their own (see `support/postgres.rs`),
//! or use `HOLON_TEST_POSTGRES_URL`'s; without PostgreSQL installed they fail,
//! saying how to install it.

// The PostgreSQL fixture starts its server with `initdb` and `pg_ctl`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::sync::{Arc, Barrier};

use holon_mcp::tasks::{
    MemoryTaskStore, PostgresTaskStore, SqliteTaskStore, TaskOwner, TaskRecord, TaskState,
    TaskStore,
};
use serde_json::{Map, Value, json};
use support::postgres::TestPostgres;

/// A store of one backend, and a way to reach the same tasks again (as another
/// server process, or a restarted one, would).
trait Backend {
    /// The store under test.
    fn store(&self) -> Arc<dyn TaskStore>;
    /// Another handle on the same tasks: a new connection where there is one.
    fn reopen(&self) -> Arc<dyn TaskStore>;
}

struct Memory(Arc<MemoryTaskStore>);

impl Memory {
    fn new() -> Self {
        Self(Arc::new(MemoryTaskStore::new()))
    }
}

impl Backend for Memory {
    fn store(&self) -> Arc<dyn TaskStore> {
        self.0.clone()
    }
    fn reopen(&self) -> Arc<dyn TaskStore> {
        // Memory lives in its one store: the process is all there is.
        self.0.clone()
    }
}

struct Sqlite {
    store: Arc<SqliteTaskStore>,
    path: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Sqlite {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.db");
        Self {
            store: Arc::new(SqliteTaskStore::open(&path).unwrap()),
            path,
            _dir: dir,
        }
    }
}

impl Backend for Sqlite {
    fn store(&self) -> Arc<dyn TaskStore> {
        self.store.clone()
    }
    fn reopen(&self) -> Arc<dyn TaskStore> {
        Arc::new(SqliteTaskStore::open(&self.path).unwrap())
    }
}

struct Postgres {
    store: Arc<PostgresTaskStore>,
    // Dropped last: the stores' connections go before the server.
    database: TestPostgres,
}

impl Postgres {
    fn new() -> Self {
        let database = TestPostgres::start();
        Self {
            store: Arc::new(PostgresTaskStore::open(database.url()).unwrap()),
            database,
        }
    }
}

impl Backend for Postgres {
    fn store(&self) -> Arc<dyn TaskStore> {
        self.store.clone()
    }
    fn reopen(&self) -> Arc<dyn TaskStore> {
        Arc::new(PostgresTaskStore::open(self.database.url()).unwrap())
    }
}

fn record(id: &str, owner: TaskOwner, now_ms: u64, ttl_ms: Option<u64>) -> TaskRecord {
    TaskRecord::working(id, owner, "Tool", now_ms, ttl_ms)
}

fn payload(value: serde_json::Value) -> Map<String, serde_json::Value> {
    match value {
        serde_json::Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// Once `create` returns, the task is there for every other handle on the store:
/// the `tools/call` answer may go out. Its fields come back as written.
fn created_before_the_answer(backend: &dyn Backend) {
    let store = backend.store();
    let written = record("t-1", TaskOwner::principal("alice"), 1_000, Some(60_000));
    store.create(&written).unwrap();
    let other = backend.reopen();
    assert_eq!(other.get("t-1").unwrap(), Some(written.clone()));
    assert!(
        other.create(&written).is_err(),
        "an id is taken once, whoever creates it"
    );
    assert_eq!(other.get("no-such-task").unwrap(), None);
}

/// Of 16 completers racing to end one task, exactly one wins, and the task keeps
/// what the winner wrote.
fn first_terminal_state_wins(backend: &dyn Backend) {
    let store = backend.store();
    store
        .create(&record("race", TaskOwner::anonymous(), 1_000, None))
        .unwrap();
    let racers = 16;
    let start = Arc::new(Barrier::new(racers));
    let outcomes: Vec<(bool, TaskState)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..racers)
            .map(|racer| {
                // Each racer on its own handle: its own connection where there is one.
                let store = if racer % 2 == 0 {
                    backend.reopen()
                } else {
                    backend.store()
                };
                let start = start.clone();
                scope.spawn(move || {
                    let state = match racer % 3 {
                        0 => TaskState::Completed(payload(json!({ "racer": racer }))),
                        1 => TaskState::Failed(payload(json!({ "code": -1, "racer": racer }))),
                        _ => TaskState::Cancelled,
                    };
                    start.wait();
                    let won = store.advance("race", &state, 2_000 + racer as u64).unwrap();
                    (won, state)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let winners: Vec<&TaskState> = outcomes
        .iter()
        .filter(|(won, _)| *won)
        .map(|(_, state)| state)
        .collect();
    assert_eq!(winners.len(), 1, "exactly one completer wins: {outcomes:?}");
    let kept = store.get("race").unwrap().expect("the task");
    assert_eq!(&kept.state, winners[0], "the task keeps the winner's state");
    // Ended: nothing moves it again, a non-terminal state neither.
    assert!(!store.advance("race", &TaskState::Working, 9_000).unwrap());
    assert_eq!(store.get("race").unwrap().unwrap().state, kept.state);
}

/// A task goes once its time to live has run out, not before; one without a time
/// to live, or with one too long to add to its creation time, stays.
fn expired_tasks_go(backend: &dyn Backend) {
    let store = backend.store();
    let owner = TaskOwner::anonymous;
    store
        .create(&record("short", owner(), 1_000, Some(10)))
        .unwrap();
    store.create(&record("kept", owner(), 1_000, None)).unwrap();
    store
        .create(&record("forever", owner(), 1_000, Some(u64::MAX)))
        .unwrap();
    assert_eq!(store.remove_expired(1_009).unwrap(), 0, "not yet");
    assert!(store.get("short").unwrap().is_some());
    assert_eq!(store.remove_expired(1_010).unwrap(), 1);
    assert_eq!(store.get("short").unwrap(), None);
    assert!(store.get("kept").unwrap().is_some());
    assert!(store.get("forever").unwrap().is_some());
    assert_eq!(store.remove_expired(i64::MAX as u64).unwrap(), 0);
}

/// The owner comes back exactly as written: a principal, a session and the
/// anonymous owner of the same name never read as one another (the server refuses
/// another owner's task by comparing them).
fn owners_stay_apart(backend: &dyn Backend) {
    let store = backend.store();
    let owners = [
        TaskOwner::principal("x"),
        TaskOwner::session("x"),
        TaskOwner::anonymous(),
        TaskOwner::principal("session:x"),
    ];
    for (index, owner) in owners.iter().enumerate() {
        store
            .create(&record(&format!("o-{index}"), owner.clone(), 1_000, None))
            .unwrap();
    }
    let other = backend.reopen();
    for (index, owner) in owners.iter().enumerate() {
        let read = other.get(&format!("o-{index}")).unwrap().expect("kept");
        assert_eq!(&read.owner, owner);
        for (stranger_index, stranger) in owners.iter().enumerate() {
            if stranger_index != index {
                assert_ne!(&read.owner, stranger);
            }
        }
    }
}

/// A task's states carry their payloads through the store unchanged, in order:
/// asked, answered, completed.
fn states_and_payloads_round_trip(backend: &dyn Backend) {
    let store = backend.store();
    store
        .create(&record("flow", TaskOwner::session("s"), 1_000, None))
        .unwrap();
    let asked = TaskState::InputRequired(payload(json!({
        "input-1": { "method": "elicitation/create",
                     "params": { "message": "Go ahead? ✓ \"quoted\" \u{0}", "n": 9007199254740991_u64 } }
    })));
    assert!(store.advance("flow", &asked, 1_001).unwrap());
    let other = backend.reopen();
    let read = other.get("flow").unwrap().unwrap();
    assert_eq!((read.state, read.updated_at_ms), (asked, 1_001));
    assert!(store.advance("flow", &TaskState::Working, 1_002).unwrap());
    let done = TaskState::Completed(payload(json!({
        "content": [{ "type": "text", "text": "ok" }], "isError": false, "nested": { "a": [1.5, null] }
    })));
    assert!(store.advance("flow", &done, 1_003).unwrap());
    let read = other.get("flow").unwrap().unwrap();
    assert_eq!((read.state, read.updated_at_ms), (done, 1_003));
    assert_eq!(read.created_at_ms, 1_000);
}

/// A lease is renewed while its task is unfinished only; a sweep fails the
/// unfinished tasks whose lease ran out, those alone, and a late completer of a
/// failed task changes nothing.
fn abandoned_tasks_are_failed(backend: &dyn Backend) {
    let store = backend.store();
    let leased = |id: &str, lease_until_ms: u64| {
        let mut task = record(id, TaskOwner::anonymous(), 1_000, None);
        task.lease_until_ms = lease_until_ms;
        task
    };
    store.create(&leased("running", 5_000)).unwrap();
    store.create(&leased("gone", 2_000)).unwrap();
    store.create(&leased("ended", 2_000)).unwrap();
    let done = TaskState::Completed(payload(json!({ "content": [] })));
    assert!(store.advance("ended", &done, 1_500).unwrap());
    assert!(store.renew("running", 9_000).unwrap());
    assert!(
        !store.renew("ended", 9_000).unwrap(),
        "an ended task has no lease"
    );
    assert!(!store.renew("no-such-task", 9_000).unwrap());
    let failure = TaskState::Failed(payload(json!({ "code": -32603, "message": "stopped" })));
    assert_eq!(
        store.fail_abandoned(&failure, 2_000).unwrap(),
        0,
        "not past it yet"
    );
    assert_eq!(store.fail_abandoned(&failure, 6_000).unwrap(), 1);
    let other = backend.reopen();
    let gone = other.get("gone").unwrap().unwrap();
    assert_eq!((gone.state, gone.updated_at_ms), (failure, 6_000));
    let running = other.get("running").unwrap().unwrap();
    assert_eq!(
        (running.state, running.lease_until_ms),
        (TaskState::Working, 9_000)
    );
    assert_eq!(other.get("ended").unwrap().unwrap().state, done);
    assert!(
        !store.advance("gone", &done, 7_000).unwrap(),
        "the failure stays"
    );
}

/// A task's requests to the client and the client's answers go through the store:
/// what one handle asks, another reads; an answer recorded through one is taken
/// (once) through another; a second answer to a request, or one to a request never
/// asked, is ignored.
fn input_requests_and_answers_go_through_the_store(backend: &dyn Backend) {
    let runner = backend.store();
    let other = backend.reopen();
    runner
        .create(&record("ask", TaskOwner::anonymous(), 1_000, None))
        .unwrap();
    let first = json!({ "method": "elicitation/create", "params": { "message": "One?" } });
    let second = json!({ "method": "elicitation/create", "params": { "message": "Two?" } });
    assert!(runner.ask("ask", "input-1", &first, 1_100).unwrap());
    let read = other.get("ask").unwrap().expect("the task");
    assert_eq!(
        (read.state, read.updated_at_ms),
        (
            TaskState::InputRequired(payload(json!({ "input-1": first }))),
            1_100
        )
    );
    assert!(runner.ask("ask", "input-2", &second, 1_200).unwrap());
    assert_eq!(
        other.get("ask").unwrap().unwrap().state,
        TaskState::InputRequired(payload(json!({ "input-1": first, "input-2": second })))
    );
    assert_eq!(runner.take_answers("ask").unwrap(), Map::new(), "none yet");
    // Through the other handle: the answer to a waiting request is recorded, the
    // one to a request never asked is not.
    let answer = json!({ "action": "accept", "content": { "n": 1 } });
    let recorded = other
        .answer(
            "ask",
            &payload(json!({ "input-1": answer, "input-9": { "action": "decline" } })),
            1_300,
        )
        .unwrap();
    assert_eq!(recorded, ["input-1"]);
    let read = runner.get("ask").unwrap().unwrap();
    assert_eq!(
        (read.state, read.updated_at_ms),
        (
            TaskState::InputRequired(payload(json!({ "input-2": second }))),
            1_300
        ),
        "the answered request no longer waits"
    );
    // A second answer to it, before or after the runner took the first, is stale.
    let stale = payload(json!({ "input-1": { "action": "decline" } }));
    assert!(runner.answer("ask", &stale, 1_400).unwrap().is_empty());
    assert_eq!(
        runner.take_answers("ask").unwrap(),
        payload(json!({ "input-1": answer }))
    );
    assert_eq!(other.take_answers("ask").unwrap(), Map::new(), "taken once");
    assert!(other.answer("ask", &stale, 1_500).unwrap().is_empty());
    // The last answer: the task is working again.
    let last = json!({ "action": "decline" });
    assert_eq!(
        other
            .answer("ask", &payload(json!({ "input-2": last })), 1_600)
            .unwrap(),
        ["input-2"]
    );
    assert_eq!(
        runner.get("ask").unwrap().unwrap().state,
        TaskState::Working
    );
    assert_eq!(
        runner.take_answers("ask").unwrap(),
        payload(json!({ "input-2": last }))
    );
    // A working task waits on nothing: answers change nothing.
    assert!(
        other
            .answer("ask", &payload(json!({ "input-2": last })), 1_700)
            .unwrap()
            .is_empty()
    );
    // An ended task asks nothing and takes no answer; nor does an unknown one.
    assert!(runner.ask("ask", "input-3", &first, 1_800).unwrap());
    assert!(runner.advance("ask", &TaskState::Cancelled, 1_900).unwrap());
    assert!(!runner.ask("ask", "input-4", &first, 2_000).unwrap());
    assert!(
        other
            .answer("ask", &payload(json!({ "input-3": last })), 2_100)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        runner.get("ask").unwrap().unwrap().state,
        TaskState::Cancelled
    );
    assert!(!runner.ask("nope", "input-1", &first, 2_200).unwrap());
    assert!(
        runner
            .answer("nope", &payload(json!({ "input-1": last })), 2_200)
            .unwrap()
            .is_empty()
    );
    assert_eq!(runner.take_answers("nope").unwrap(), Map::new());
}

/// Of 16 answers to one request racing on their own handles, exactly one is
/// recorded, and it is the one the running server takes.
fn first_answer_wins(backend: &dyn Backend) {
    let store = backend.store();
    store
        .create(&record("answer-race", TaskOwner::anonymous(), 1_000, None))
        .unwrap();
    let request = json!({ "method": "elicitation/create", "params": { "message": "Who?" } });
    assert!(
        store
            .ask("answer-race", "input-1", &request, 1_100)
            .unwrap()
    );
    let racers = 16;
    let start = Arc::new(Barrier::new(racers));
    let outcomes: Vec<(Vec<String>, Value)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..racers)
            .map(|racer| {
                let store = if racer % 2 == 0 {
                    backend.reopen()
                } else {
                    backend.store()
                };
                let start = start.clone();
                scope.spawn(move || {
                    let answer = json!({ "action": "accept", "content": { "racer": racer } });
                    let responses = payload(json!({ "input-1": answer }));
                    start.wait();
                    let recorded = store
                        .answer("answer-race", &responses, 2_000 + racer as u64)
                        .unwrap();
                    (recorded, answer)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let winners: Vec<&Value> = outcomes
        .iter()
        .filter(|(recorded, _)| !recorded.is_empty())
        .map(|(_, answer)| answer)
        .collect();
    assert_eq!(winners.len(), 1, "exactly one answer wins: {outcomes:?}");
    assert_eq!(
        store.get("answer-race").unwrap().unwrap().state,
        TaskState::Working
    );
    assert_eq!(
        backend.reopen().take_answers("answer-race").unwrap(),
        payload(json!({ "input-1": winners[0] }))
    );
}

/// A PostgreSQL database of the schema before the answers (version 3, a task in
/// it) gains them when a server of this version opens it: its tasks are kept, and
/// ask and answer work on them.
#[test]
fn postgres_a_database_of_the_schema_before_the_answers_gains_them() {
    let database = TestPostgres::start();
    drop(PostgresTaskStore::open(database.url()).unwrap());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(database.url(), tokio_postgres::NoTls)
            .await
            .unwrap();
        let connection = tokio::spawn(connection);
        // Back to version 3, as a server of before left it.
        client
            .batch_execute(
                "ALTER TABLE holon_mcp_tasks DROP COLUMN answers;
                 DELETE FROM holon_mcp_schema_version WHERE version > 3;
                 INSERT INTO holon_mcp_tasks
                 (id, owner, tool, status, payload, created_at_ms, updated_at_ms, ttl_ms,
                  expires_at_ms, lease_until_ms)
                 VALUES ('old', 'anonymous', 'Tool', 'working', NULL, 1000, 1000, NULL, NULL,
                         9000)",
            )
            .await
            .unwrap();
        drop(client);
        connection.await.unwrap().unwrap();
    });
    let store = PostgresTaskStore::open(database.url()).unwrap();
    let request = json!({ "method": "elicitation/create", "params": { "message": "Still?" } });
    assert!(store.ask("old", "input-1", &request, 2_000).unwrap());
    let answer = json!({ "action": "accept", "content": {} });
    assert_eq!(
        store
            .answer("old", &payload(json!({ "input-1": answer })), 2_100)
            .unwrap(),
        ["input-1"]
    );
    assert_eq!(
        store.take_answers("old").unwrap(),
        payload(json!({ "input-1": answer }))
    );
    drop(store);
    // Opened again: the migration is not applied twice.
    let store = PostgresTaskStore::open(database.url()).unwrap();
    assert_eq!(store.get("old").unwrap().unwrap().state, TaskState::Working);
}

/// Instantiates every test of the suite for one backend, in a module of its name.
macro_rules! parity_suite {
    ($module:ident, $backend:expr) => {
        mod $module {
            use super::*;

            #[test]
            fn created_before_the_answer() {
                super::created_before_the_answer(&$backend);
            }

            #[test]
            fn first_terminal_state_wins() {
                super::first_terminal_state_wins(&$backend);
            }

            #[test]
            fn expired_tasks_go() {
                super::expired_tasks_go(&$backend);
            }

            #[test]
            fn owners_stay_apart() {
                super::owners_stay_apart(&$backend);
            }

            #[test]
            fn abandoned_tasks_are_failed() {
                super::abandoned_tasks_are_failed(&$backend);
            }

            #[test]
            fn states_and_payloads_round_trip() {
                super::states_and_payloads_round_trip(&$backend);
            }

            #[test]
            fn input_requests_and_answers_go_through_the_store() {
                super::input_requests_and_answers_go_through_the_store(&$backend);
            }

            #[test]
            fn first_answer_wins() {
                super::first_answer_wins(&$backend);
            }
        }
    };
}

parity_suite!(memory, Memory::new());
parity_suite!(sqlite, Sqlite::new());
parity_suite!(postgres, Postgres::new());
