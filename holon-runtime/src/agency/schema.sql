-- The agent-facing state: agents and their turns, message queues, work items, waits
-- and the wakes that resolve them, timers, task ownership, external triggers and
-- operator notifications. Released as migration 5 (migrations.rs): never edit this
-- file; later changes append new migrations.

CREATE TABLE agents (
    id                  TEXT    PRIMARY KEY,
    profile             TEXT    NOT NULL,            -- private_child | public_named
    parent_id           TEXT    REFERENCES agents (id),
    lifecycle           TEXT    NOT NULL,            -- idle | running | waiting | stopped
    focus_work_item_id  INTEGER,                     -- work_items.id
    model_json          TEXT,
    template            TEXT,
    workspace_mode      TEXT    NOT NULL DEFAULT 'inherit',
    created_at_ms       INTEGER NOT NULL
);
CREATE INDEX agents_by_parent ON agents (parent_id);

-- The default agent every runtime starts with.
INSERT INTO agents (id, profile, parent_id, lifecycle, created_at_ms)
VALUES ('root', 'public_named', NULL, 'idle', 0);

CREATE TABLE turns (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id            TEXT    NOT NULL REFERENCES agents (id),
    state               TEXT    NOT NULL,            -- open | awaiting_final | closed
    pending_wait_id     INTEGER,                     -- the wait a final brief settles
    final_brief         TEXT,
    completion_report   TEXT,
    outcome             TEXT,                        -- waiting | ended (once closed)
    opened_at_ms        INTEGER NOT NULL,
    closed_at_ms        INTEGER
);
-- At most one turn of an agent is not closed.
CREATE UNIQUE INDEX turns_one_current ON turns (agent_id) WHERE state <> 'closed';

CREATE TABLE queue (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id            TEXT    NOT NULL REFERENCES agents (id),
    sender              TEXT    NOT NULL,            -- an agent id, operator, external:<id>
    priority            TEXT    NOT NULL,            -- interject | next | normal | background
    rank                INTEGER NOT NULL,            -- 0 (interject) to 3 (background)
    text                TEXT    NOT NULL,
    state               TEXT    NOT NULL,            -- queued | delivered | settled
    turn_id             INTEGER REFERENCES turns (id),
    created_at_ms       INTEGER NOT NULL
);
CREATE INDEX queue_by_agent ON queue (agent_id, state, rank, id);
CREATE INDEX queue_by_turn ON queue (turn_id, state);

CREATE TABLE work_items (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id            TEXT    NOT NULL REFERENCES agents (id),
    objective           TEXT    NOT NULL,
    plan                TEXT,
    plan_status         TEXT    NOT NULL,            -- draft | ready | needs_input
    todo_json           TEXT    NOT NULL,            -- [{"text": ..., "state": ...}]
    state               TEXT    NOT NULL,            -- open | completing | completed
    blocker_wait_id     INTEGER,                     -- waits.id of the wait blocking it
    blocker_reason      TEXT,
    completing_turn_id  INTEGER,                     -- the turn whose report completes it
    completion_report   TEXT,
    revision            INTEGER NOT NULL,
    first_picked_at_ms  INTEGER,
    created_at_ms       INTEGER NOT NULL,
    updated_at_ms       INTEGER NOT NULL,
    completed_at_ms     INTEGER
);
CREATE INDEX work_items_by_agent ON work_items (agent_id, state, id);

-- Who owns a task: captured once, when the task is created, and never moved.
CREATE TABLE task_owners (
    task_handle         TEXT    PRIMARY KEY,
    agent_id            TEXT    NOT NULL REFERENCES agents (id),
    work_item_id        INTEGER REFERENCES work_items (id),
    captured_at_ms      INTEGER NOT NULL
);

-- The task of a private child agent, whose result its parent can wait for.
CREATE TABLE agent_tasks (
    task_handle         TEXT    PRIMARY KEY,         -- agent:<child id>
    child_agent_id      TEXT    NOT NULL UNIQUE REFERENCES agents (id),
    state               TEXT    NOT NULL,            -- running | completed | failed | cancelled
    result              TEXT,
    created_at_ms       INTEGER NOT NULL,
    ended_at_ms         INTEGER
);

CREATE TABLE timers (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id            TEXT    NOT NULL REFERENCES agents (id),
    kind                TEXT    NOT NULL,            -- timer | sleep
    reason              TEXT,
    due_at_ms           INTEGER NOT NULL,
    state               TEXT    NOT NULL,            -- scheduled | fired | cancelled
    created_at_ms       INTEGER NOT NULL,
    settled_at_ms       INTEGER
);
CREATE INDEX timers_due ON timers (state, due_at_ms);

CREATE TABLE waits (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id            TEXT    NOT NULL REFERENCES agents (id),
    turn_id             INTEGER NOT NULL REFERENCES turns (id),
    execution_id        INTEGER REFERENCES tool_executions (id),
    reason              TEXT    NOT NULL,
    wake                TEXT    NOT NULL,            -- task_result | operator_input | external | timer | system
    delivery            TEXT    NOT NULL,            -- final | silent
    resource            TEXT,
    work_item_id        INTEGER REFERENCES work_items (id),
    work_item_revision  INTEGER,
    wake_mark           INTEGER NOT NULL,            -- newest wake of the agent when asked
    interjection_mark   INTEGER NOT NULL,            -- newest interjection when asked
    recheck_at_ms       INTEGER,
    state               TEXT    NOT NULL,            -- pending_final | active | woken | cancelled | expired
    woken_by            INTEGER,                     -- wakes.id
    created_at_ms       INTEGER NOT NULL,
    settled_at_ms       INTEGER,
    resolved_at_ms      INTEGER
);
CREATE INDEX waits_by_agent ON waits (agent_id, state);

CREATE TABLE wakes (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id            TEXT    NOT NULL REFERENCES agents (id),
    kind                TEXT    NOT NULL,
    resource            TEXT,
    detail              TEXT,
    state               TEXT    NOT NULL,            -- pending | delivered
    turn_id             INTEGER REFERENCES turns (id),
    created_at_ms       INTEGER NOT NULL
);
CREATE INDEX wakes_by_agent ON wakes (agent_id, state);

CREATE TABLE external_triggers (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id            TEXT    NOT NULL REFERENCES agents (id),
    delivery_mode       TEXT    NOT NULL,            -- enqueue_message | wake_hint
    description         TEXT,
    state               TEXT    NOT NULL,            -- active | cancelled
    fired_count         INTEGER NOT NULL DEFAULT 0,
    created_at_ms       INTEGER NOT NULL,
    cancelled_at_ms     INTEGER
);

CREATE TABLE notifications (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id            TEXT    NOT NULL REFERENCES agents (id),
    level               TEXT    NOT NULL,            -- info | warning | action_required
    text                TEXT    NOT NULL,
    created_at_ms       INTEGER NOT NULL
);
