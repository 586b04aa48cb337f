//! A patch engine without I/O: a patch's text is parsed, then planned over the files
//! a caller's [`Workspace`] reads; the caller writes the [`Plan`], all of it or none.
//!
//! Two surfaces: unified diffs (`git diff` with renames, copies, modes and binary
//! data, `git format-patch` mails, `diff -Nru`), applied byte for byte as `git apply`
//! applies them; and Codex's `*** Begin Patch` format ([`ENVELOPE_GRAMMAR`]), matched
//! by line text with Codex's leniency.
//!
//! ```
//! use std::path::{Path, PathBuf};
//! use holon_patch::{FileState, Workspace};
//!
//! struct One(Vec<u8>);
//!
//! impl Workspace for One {
//!     type Key = PathBuf;
//!     type Error = std::convert::Infallible;
//!     fn resolve(&mut self, path: &Path) -> Result<PathBuf, Self::Error> {
//!         Ok(path.to_path_buf())
//!     }
//!     fn read(&mut self, _: &Path, _: &PathBuf) -> Result<Option<FileState>, Self::Error> {
//!         Ok(Some(FileState { bytes: self.0.clone(), mode: Some(0o644), exec: false }))
//!     }
//! }
//!
//! let patch = holon_patch::parse("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n")?;
//! let plan = holon_patch::plan(&patch, &mut One(b"old\n".to_vec())).unwrap();
//! let (_, planned) = &plan.files[Path::new("x")];
//! assert_eq!(planned.as_ref().unwrap().bytes, b"new\n");
//! # Ok::<(), holon_patch::SyntaxError>(())
//! ```

mod binary;
mod envelope;
mod matcher;
mod model;
mod plan;
mod unified;

pub use model::{Patch, SyntaxError};
pub use plan::{FileState, Files, Outcome, Plan, PlanError, Workspace, plan};

/// The Lark grammar of the `*** Begin Patch` format: exactly what [`parse`] reads as
/// that format (a freeform tool's grammar, so a model's output is constrained to it).
pub const ENVELOPE_GRAMMAR: &str = include_str!("apply_patch.lark");

/// Parses either surface: the `*** Begin Patch` format (when the text holds one), or
/// a unified diff.
pub fn parse(text: &str) -> Result<Patch, SyntaxError> {
    match envelope::unwrap(text) {
        Some(envelope) => Ok(Patch {
            surface: model::Surface::Envelope,
            changes: envelope::parse(&envelope)?,
        }),
        None => Ok(Patch {
            surface: model::Surface::Unified,
            changes: unified::parse(text)?,
        }),
    }
}
