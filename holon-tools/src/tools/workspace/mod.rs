//! The workspace plane.

mod apply_patch;

pub use apply_patch::{ApplyPatchArgs, ChangedFile, PatchApplied};
