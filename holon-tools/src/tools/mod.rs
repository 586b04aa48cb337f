//! The built-in tools, one folder per plane. Each tool is declared with
//! `#[holon_tool]` and registers itself; nothing here lists them.

pub mod agent;
pub mod image;
pub mod memory;
pub mod model;
pub mod task_control;
pub mod timer;
pub mod web;
pub mod work_item;
pub mod workspace;
