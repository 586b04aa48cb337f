//! Versioned schema migrations of the embedded store.
//!
//! Each migration runs once, in its own transaction, and bumps `PRAGMA user_version`.
//! Later planes append their tables here; a migration is never edited once released.

/// One step of the store's schema.
pub(crate) struct Migration {
    /// The `user_version` the store has after this step.
    pub(crate) version: i64,
    /// What the step adds.
    pub(crate) name: &'static str,
    /// The SQL of the step.
    pub(crate) sql: &'static str,
}

/// Every migration, in order.
pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "tool executions",
    sql: "CREATE TABLE tool_executions (
              id              INTEGER PRIMARY KEY,
              tool_name       TEXT    NOT NULL,
              requested_name  TEXT    NOT NULL,
              call_id         TEXT,
              input_json      TEXT    NOT NULL,
              status          TEXT    NOT NULL,
              error_kind      TEXT,
              started_at_ms   INTEGER NOT NULL,
              duration_us     INTEGER NOT NULL
          );
          CREATE INDEX tool_executions_by_tool ON tool_executions (tool_name, started_at_ms);",
}];
