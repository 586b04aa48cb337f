//! The built-in tools, one folder per plane. Each tool is declared with
//! `#[holon_tool]` and registers itself; nothing here lists them.

pub mod model;
pub mod timer;
pub mod workspace;
