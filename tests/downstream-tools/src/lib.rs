//! A downstream crate that declares its own tools. It depends on `holon-core` and `serde`;
//! the tools reach the global registry of any program that links this crate.
//!
//! # Linking is all it takes, but the crate must really be linked
//!
//! `#[holon_tool]` registers each tool with `inventory::submit!`, a static the linker
//! keeps once the crate's object code is part of the program. Nothing has to name the
//! tools themselves. What does matter is that rustc links the crate at all: a
//! dependency listed in `Cargo.toml` whose name never appears in the code is *not*
//! linked (rustc only loads the `--extern` crates a crate refers to), and its tools are
//! then silently missing from [`holon_core::Registry::global`].
//!
//! So a binary (or test) that uses nothing else from a tool crate names it once, with
//! `holon_core::link!`, which also makes the registry refuse to build if the crate
//! contributed no tool:
//!
//! ```
//! holon_core::link!(holon_downstream_tools);
//!
//! let registry = holon_core::Registry::global();
//! assert!(registry.get("Echo").is_some());
//! assert!(registry.get("RecordTodos").is_some());
//! ```
//!
//! (`use holon_downstream_tools as _;` links it too, without the check.) Using any item
//! of the crate, such as one of its argument types, is enough as well. Nothing else is needed: no
//! registration call, no `inventory` dependency, no build script.
//!
//! # Dependencies
//!
//! `holon-core` and `serde` (serde's derives name the `serde` crate). `schemars`,
//! `inventory` and the rest come through `holon_core::prelude`.

use holon_core::prelude::*;

/// Arguments of `Echo`.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back; must not be empty.
    #[schemars(length(min = 1))]
    pub text: String,
    /// How many times to repeat the text, from 1 to 5.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 5))]
    pub times: u8,
}

fn one() -> u8 {
    1
}

/// What `Echo` sends back.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Echoed {
    /// The text, repeated `times` times and joined by single spaces.
    pub echoed: String,
    /// How many characters `echoed` has.
    pub length_chars: usize,
}

/// Sends `text` back, repeated `times` times (1 to 5) and joined by single spaces.
///
/// Use it to check that tool calls reach the runtime; it has no side effect.
#[holon_tool(
    family = CoreAgent,
    annotations(read_only, idempotent),
    example = r#"{"text": "ping", "times": 2}"#
)]
fn echo(args: EchoArgs) -> Echoed {
    let echoed = vec![args.text.as_str(); usize::from(args.times)].join(" ");
    Echoed {
        length_chars: echoed.chars().count(),
        echoed,
    }
}

/// The state of one todo.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum TodoState {
    /// Not started.
    Pending,
    /// Being worked on; at most one todo should be in this state.
    InProgress,
    /// Finished.
    Done,
}

/// One entry of a todo list.
#[derive(Debug, Clone, Deserialize, JsonSchema, ClosedInput)]
#[serde(deny_unknown_fields)]
pub struct Todo {
    /// What has to be done, as one short imperative sentence.
    #[schemars(length(min = 1))]
    pub text: String,
    /// Where the todo stands.
    pub state: TodoState,
}

/// Arguments of `RecordTodos`.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct RecordTodosArgs {
    /// The whole todo list, in order; it replaces the previous one.
    pub todo_list: Vec<Todo>,
}

/// What `RecordTodos` reports back.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TodoCounts {
    /// How many todos the list has.
    pub total: usize,
    /// How many are `pending`.
    pub pending: usize,
    /// How many are `in_progress`.
    pub in_progress: usize,
    /// How many are `done`.
    pub done: usize,
}

/// Records the agent's todo list, replacing the previous one, and reports how many
/// todos are pending, in progress and done.
///
/// Send the whole list every time, with each todo's current state.
#[holon_tool(family = CoreAgent, annotations(idempotent))]
async fn record_todos(args: RecordTodosArgs) -> Result<TodoCounts, ToolError> {
    let count = |state: TodoState| args.todo_list.iter().filter(|t| t.state == state).count();
    Ok(TodoCounts {
        total: args.todo_list.len(),
        pending: count(TodoState::Pending),
        in_progress: count(TodoState::InProgress),
        done: count(TodoState::Done),
    })
}
