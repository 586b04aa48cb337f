//! What a task costs in the SQLite and the PostgreSQL task store: `create`, `get`
//! and the completing `advance`, each timed over N tasks (one thread, one call at
//! a time), with the PostgreSQL store's cost as a multiple of SQLite's measured in
//! the same run. SQLite is a file with `synchronous = FULL`; PostgreSQL is the
//! server of the URL given.
//!
//! `cargo run -p holon-mcp --features sqlite,postgres --example task_store_cost --
//! postgres://USER@HOST/DATABASE [N]`

use std::time::{Duration, Instant};

use holon_mcp::tasks::{
    PostgresTaskStore, SqliteTaskStore, TaskOwner, TaskRecord, TaskState, TaskStore,
};
use serde_json::{Map, json};

/// The mean time of each operation over `n` tasks in `store`.
fn measure(store: &dyn TaskStore, label: &str, n: usize) -> [Duration; 3] {
    let ids: Vec<String> = (0..n).map(|i| format!("{label}-{i}")).collect();
    let started = Instant::now();
    for id in &ids {
        let record = TaskRecord::working(id, TaskOwner::anonymous(), "Tool", 1_000, Some(60_000));
        store.create(&record).expect("created");
    }
    let create = started.elapsed();
    let started = Instant::now();
    for id in &ids {
        store.get(id).expect("read").expect("there");
    }
    let get = started.elapsed();
    let mut result = Map::new();
    result.insert("content".into(), json!([{ "type": "text", "text": "ok" }]));
    let done = TaskState::Completed(result);
    let started = Instant::now();
    for id in &ids {
        assert!(store.advance(id, &done, 2_000).expect("completed"));
    }
    let complete = started.elapsed();
    let per_task = |total: Duration| total / u32::try_from(n).unwrap_or(u32::MAX);
    [per_task(create), per_task(get), per_task(complete)]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(url) = args.next() else {
        eprintln!("usage: task_store_cost postgres://USER@HOST/DATABASE [N]");
        std::process::exit(2);
    };
    let n: usize = args
        .next()
        .map_or(500, |n| n.parse().expect("N is a count"));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sqlite = SqliteTaskStore::open(dir.path().join("tasks.db")).expect("SQLite");
    let postgres = PostgresTaskStore::open(&url).expect("PostgreSQL");
    // A round of each first: connections made, statements prepared.
    measure(&sqlite, "warm-sqlite", 10);
    measure(&postgres, "warm-postgres", 10);
    let run = format!("{}", std::process::id());
    let sqlite = measure(&sqlite, &format!("sqlite-{run}"), n);
    let postgres = measure(&postgres, &format!("postgres-{run}"), n);
    println!("{n} tasks, mean per call     SQLite   PostgreSQL   PostgreSQL/SQLite");
    for (index, operation) in ["create", "get", "complete (advance)"].iter().enumerate() {
        let (s, p) = (sqlite[index], postgres[index]);
        println!(
            "{operation:<24} {:>9.1} µs {:>9.1} µs {:>10.2}x",
            s.as_secs_f64() * 1e6,
            p.as_secs_f64() * 1e6,
            p.as_secs_f64() / s.as_secs_f64()
        );
    }
}
