//! Versioned schema migrations of the embedded store.
//!
//! Each migration runs once, in its own transaction, and bumps `PRAGMA user_version`.
//! Later planes append their tables here; a migration is never edited once released.
//!
//! Written here rather than with `rusqlite_migration`: that crate reads the version
//! before it opens its (deferred) transaction, so two processes opening a new store
//! at once both see version 0 and both apply migration 1. The store reads the version
//! under the write lock (`BEGIN IMMEDIATE`, with the busy retry the rest of the store
//! uses) and applies every pending step in that one transaction (`Store::migrated`).

/// One step of the store's schema.
pub struct Migration {
    /// The `user_version` the store has after this step.
    pub version: i64,
    /// What the step adds.
    pub name: &'static str,
    /// The SQL of the step.
    pub sql: &'static str,
}

/// Every migration, in order.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
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
    },
    Migration {
        version: 2,
        name: "tasks",
        sql: "CREATE TABLE tasks (
              id              INTEGER PRIMARY KEY AUTOINCREMENT,
              kind            TEXT    NOT NULL,
              state           TEXT    NOT NULL,
              cmd             TEXT    NOT NULL,
              workdir         TEXT    NOT NULL,
              shell           TEXT    NOT NULL,
              login           INTEGER NOT NULL,
              accepts_input   INTEGER NOT NULL,
              background      INTEGER NOT NULL DEFAULT 0,
              owner_pid       INTEGER NOT NULL,
              pid             INTEGER,
              exit_code       INTEGER,
              signal          INTEGER,
              reason          TEXT,
              started_at_ms   INTEGER NOT NULL,
              ended_at_ms     INTEGER
          );
          CREATE INDEX tasks_by_state ON tasks (state);
          CREATE INDEX tasks_in_background ON tasks (background, id);",
    },
    Migration {
        version: 3,
        name: "workspace bindings",
        sql: "CREATE TABLE workspace_bindings (
              workspace_id    TEXT    PRIMARY KEY,
              path            TEXT    NOT NULL UNIQUE,
              kind            TEXT    NOT NULL CHECK (kind IN ('home', 'attached')),
              attached_at_ms  INTEGER NOT NULL
          );
          CREATE TABLE workspace_worktrees (
              execution_root_id TEXT    PRIMARY KEY,
              workspace_id      TEXT    NOT NULL REFERENCES workspace_bindings (workspace_id),
              path              TEXT    NOT NULL UNIQUE,
              branch            TEXT    NOT NULL,
              base_ref          TEXT    NOT NULL,
              label             TEXT,
              branch_created    INTEGER NOT NULL,
              created_at_ms     INTEGER NOT NULL
          );
          CREATE TABLE workspace_active (
              slot              INTEGER PRIMARY KEY CHECK (slot = 1),
              execution_root_id TEXT    NOT NULL,
              cwd               TEXT
          );",
    },
    Migration {
        version: 4,
        name: "memory index",
        sql: "CREATE TABLE memory_notes (
              note_id         TEXT    PRIMARY KEY,
              body            TEXT    NOT NULL,
              updated_at_ms   INTEGER NOT NULL
          );
          CREATE TABLE memory_sources (
              id              INTEGER PRIMARY KEY,
              kind            TEXT    NOT NULL CHECK (kind IN ('workspace', 'note')),
              root_path       TEXT    NOT NULL,
              rel_path        TEXT    NOT NULL,
              mtime_ns        INTEGER NOT NULL,
              size            INTEGER NOT NULL,
              hash            TEXT    NOT NULL,
              indexed_at_ns   INTEGER NOT NULL,
              UNIQUE (kind, root_path, rel_path)
          );
          CREATE TABLE memory_chunks (
              id              INTEGER PRIMARY KEY,
              source_id       INTEGER NOT NULL REFERENCES memory_sources (id) ON DELETE CASCADE,
              start_line      INTEGER NOT NULL,
              end_line        INTEGER NOT NULL,
              heading         TEXT    NOT NULL
          );
          CREATE INDEX memory_chunks_by_source ON memory_chunks (source_id);
          CREATE VIRTUAL TABLE memory_fts USING fts5 (path, heading, body, tokenize = 'porter unicode61');",
    },
    Migration {
        version: 5,
        name: "agents, turns, queue, work items, waits, wakes, timers, triggers, notifications",
        sql: include_str!("agency/schema.sql"),
    },
    Migration {
        version: 6,
        name: "the worktree of a child agent spawned with workspace_mode = worktree",
        sql: "ALTER TABLE agents ADD COLUMN worktree_root_id TEXT;",
    },
    Migration {
        version: 7,
        name: "when the log retention removed a task's logs",
        sql: "ALTER TABLE tasks ADD COLUMN logs_removed_at_ms INTEGER;",
    },
    Migration {
        version: 8,
        name: "the size and hash of an execution's input when only an excerpt is kept",
        sql: "ALTER TABLE tool_executions ADD COLUMN input_bytes INTEGER;
              ALTER TABLE tool_executions ADD COLUMN input_sha1 TEXT;",
    },
    Migration {
        version: 9,
        name: "the start time of a task's leader, to find it again after a crash",
        sql: "ALTER TABLE tasks ADD COLUMN leader_started INTEGER;",
    },
    Migration {
        version: 10,
        name: "calls the approval policy asked about, and the operator's standing grants",
        sql: "CREATE TABLE approvals (
              id                TEXT    PRIMARY KEY,
              tool              TEXT    NOT NULL,
              arguments_json    TEXT    NOT NULL,
              arguments_sha256  TEXT    NOT NULL,
              principal         TEXT    NOT NULL,
              caller            TEXT,
              session           TEXT,
              families_json     TEXT    NOT NULL,
              reason            TEXT    NOT NULL,
              created_at_ms     INTEGER NOT NULL,
              expires_at_ms     INTEGER NOT NULL,
              state             TEXT    NOT NULL CHECK (state IN ('pending', 'approved', 'denied')),
              message           TEXT,
              outcome_json      TEXT
            );
            CREATE INDEX approvals_by_time ON approvals (created_at_ms);
            CREATE TABLE approval_grants (
              id             INTEGER PRIMARY KEY,
              rule_json      TEXT    NOT NULL,
              created_at_ms  INTEGER NOT NULL
            );",
    },
    Migration {
        version: 11,
        name: "the pending calls by what they are bound to, to reuse one asked again",
        sql: "CREATE INDEX approvals_pending ON approvals (arguments_sha256, principal)
              WHERE state = 'pending';",
    },
    Migration {
        version: 12,
        name: "who decided an asked call",
        sql: "ALTER TABLE approvals ADD COLUMN decided_by TEXT;",
    },
    Migration {
        version: 13,
        name: "who started a task: the principal of its call, and the families of its caller",
        // Rows of older runtimes keep NULL: no principal owns them (see `tasks`).
        sql: "ALTER TABLE tasks ADD COLUMN principal TEXT;
              ALTER TABLE tasks ADD COLUMN families TEXT;
              CREATE INDEX tasks_of_principal ON tasks (principal, background, id);",
    },
    Migration {
        version: 14,
        name: "where an asked call was asked: its workspace root and state directory",
        // Rows of older runtimes keep NULL: no site, so no approval runs them.
        sql: "ALTER TABLE approvals ADD COLUMN site_json TEXT;",
    },
    Migration {
        version: 15,
        name: "the cgroups of a task's command, so that the next runtime spares a running task's",
        // Recorded before the command starts; one row per hierarchy (cgroup v1 has two).
        sql: "CREATE TABLE task_cgroups (
                dir   TEXT    PRIMARY KEY,
                task  INTEGER NOT NULL
              );
              CREATE INDEX task_cgroups_of_task ON task_cgroups (task);",
    },
    Migration {
        version: 16,
        name: "the operator's approval of a pending call, waiting for the call to be made again",
        // Rows of older runtimes keep NULL: approved out of band before this, they ran.
        sql: "ALTER TABLE approvals ADD COLUMN approval_json TEXT;",
    },
];
