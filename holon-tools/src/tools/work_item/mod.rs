//! The work item plane: an agent's units of work, with an objective, a plan, a todo
//! list, a revision that every change increments, and the agent's focus.

mod complete;
mod create;
mod get;
mod list;
mod pick;
mod update;
mod view;

pub use complete::{CompleteWorkItemArgs, CompletedWorkItem};
pub use create::{CreateWorkItemArgs, CreatedWorkItem};
pub use get::{GetWorkItemArgs, WorkItemDetail};
pub use list::{DEFAULT_LIST_LIMIT, ListFilter, ListWorkItemsArgs, WorkItemListing};
pub use pick::{ClearedBlocker, PickWorkItemArgs, PickedWorkItem};
pub use update::{UpdateWorkItemArgs, UpdatedWorkItem};
pub use view::{Blocker, TodoCounts, WorkItemView};
