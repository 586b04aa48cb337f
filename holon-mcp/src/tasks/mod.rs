//! The MCP tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a call of a
//! tool declared `task = optional` or `task = required` runs as a task when the
//! request declares the extension. The `tools/call` answer is the task's handle
//! (`resultType: "task"`), given once the task is in the [`TaskStore`]; the client
//! polls `tasks/get` (the result or error inlined once it ends), answers the tool's
//! requests to it (`input_required`) with `tasks/update`, and may `tasks/cancel`.
//!
//! Under MCP 2026-07-28, a tool that takes a [`holon_core::TaskEscalation`] runs
//! within the request until it escalates: what it asks the client before is asked
//! in `InputRequiredResult` rounds, and the round it escalates in is answered with
//! the task's handle (the composition of SEP-2663).
//!
//! A `task = required` tool called by a client that did not declare the extension
//! is refused with `-32021` (missing required client capability). Tasks belong to
//! the principal that created them (else the session, else all unauthenticated
//! stateless clients): another owner's task is an unknown task (`-32602`).

pub(crate) mod clock;
mod handoff;
mod hints;
mod input;
mod live;
mod memory;
mod notify;
#[cfg(feature = "postgres")]
mod postgres;
mod record;
#[cfg(feature = "postgres")]
mod replica_hints;
mod runner;
mod serve;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod sql;
#[cfg(feature = "sqlite")]
mod sqlite;
mod store;

pub use memory::MemoryTaskStore;
#[cfg(feature = "postgres")]
pub use postgres::PostgresTaskStore;
pub use record::{TaskOwner, TaskRecord, TaskState};
pub use runner::{DEFAULT_POLL_INTERVAL_MS, DEFAULT_TASK_LEASE_MS, DEFAULT_TASK_TTL_MS};
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteTaskStore;
pub use store::{TaskStore, TaskStoreError};

pub(crate) use hints::Hints;
pub(crate) use notify::TaskNotifier;
pub(crate) use runner::Tasks;
pub(crate) use serve::{TaskCall, owner_of, run_as_task};
