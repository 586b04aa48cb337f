//! The workspace plane: the roots tools are confined to ([`WorkspaceRoots`]).

mod roots;

pub use roots::{PathEscape, WorkspaceRoots};
