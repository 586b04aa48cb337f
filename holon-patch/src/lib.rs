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
#[doc(hidden)]
pub mod fuzz;
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::convert::Infallible;
    use std::path::{Path, PathBuf};

    use super::*;

    /// Files in memory.
    struct Memory(BTreeMap<PathBuf, Vec<u8>>);

    impl Workspace for Memory {
        type Key = PathBuf;
        type Error = Infallible;
        fn resolve(&mut self, path: &Path) -> Result<PathBuf, Infallible> {
            Ok(path.to_path_buf())
        }
        fn read(&mut self, _: &Path, key: &PathBuf) -> Result<Option<FileState>, Infallible> {
            Ok(self.0.get(key).map(|bytes| FileState {
                bytes: bytes.clone(),
                mode: Some(0o644),
                exec: false,
            }))
        }
    }

    fn apply(patch: &str, file: &str) -> Result<Vec<u8>, String> {
        let patch = parse(patch).map_err(|error| error.to_string())?;
        let mut memory = Memory(BTreeMap::from([(PathBuf::from("f"), file.into())]));
        match plan(&patch, &mut memory) {
            Ok(plan) => Ok(plan.files[Path::new("f")].1.clone().unwrap().bytes),
            Err(PlanError::Mismatch { detail, .. }) => Err(detail),
            Err(other) => Err(format!("{other:?}")),
        }
    }

    #[test]
    fn a_zero_context_hunk_does_not_match_a_line_that_lost_its_final_newline() {
        let patch = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -3 +3 @@\n-c\n+C\n";
        assert_eq!(apply(patch, "a\nb\nc\n").unwrap(), b"a\nb\nC\n");
        assert!(apply(patch, "a\nb\nc").is_err(), "git apply refuses it");
    }

    #[test]
    fn a_zero_context_hunk_is_not_placed_on_a_line_alike_but_for_white_space() {
        // Its line lost the final newline; a `}` elsewhere matches it but for the
        // indent. Without context nothing says that line is the one: `git apply`
        // refuses.
        let patch = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -4 +4 @@\n-    }\n+end\n";
        assert!(apply(patch, "}\na\nb\n    }").is_err());
        // With context, stale white space stays tolerated.
        let patch = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-    }\n+end\n";
        assert_eq!(apply(patch, "a\n}\n").unwrap(), b"a\nend\n");
    }

    #[test]
    fn a_copy_reads_its_source_as_it_was_before_the_patch() {
        // `git diff -C` of a change to `f` and a copy of `f` as it was.
        let patch = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\n\
                     diff --git a/f b/g\nsimilarity index 100%\ncopy from f\ncopy to g\n";
        let patch = parse(patch).unwrap();
        let mut memory = Memory(BTreeMap::from([(PathBuf::from("f"), b"old\n".to_vec())]));
        let plan = plan(&patch, &mut memory).unwrap();
        let bytes = |path: &str| plan.files[Path::new(path)].1.clone().unwrap().bytes;
        assert_eq!(bytes("f"), b"new\n");
        assert_eq!(bytes("g"), b"old\n", "git apply copies the original");
    }

    #[test]
    fn a_diff_u_hunk_at_line_zero_adds_to_an_empty_file_only() {
        let patch = "--- a/f\t2026-01-01 00:00:00 +0000\n+++ b/f\t2026-01-01 00:00:01 +0000\n@@ -0,0 +1,2 @@\n+x\n+y\n";
        assert_eq!(apply(patch, "").unwrap(), b"x\ny\n");
        assert!(
            apply(patch, "x\ny\n").is_err(),
            "git apply refuses it again"
        );
    }

    #[test]
    fn a_last_line_matched_as_a_prefix_is_written_as_the_patch_says() {
        // The hunk's last context line has no newline; the file's line has trailing
        // spaces. `git apply` matches the hunk's bytes as a prefix and writes the
        // patch's line: the spaces go, and with them the newline, joining the next
        // line (checked with git 2.47).
        let patch = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n }\n\\ No newline at end of file\n";
        assert_eq!(apply(patch, "a\nb\n}  ").unwrap(), b"a\nB\n}");
        assert_eq!(apply(patch, "a\nb\n}  \nmore\n").unwrap(), b"a\nB\n}more\n");
    }

    fn plan_files(patch: &str, files: &[(&str, &str)]) -> Result<Vec<(PathBuf, String)>, String> {
        let patch = parse(patch).map_err(|error| error.to_string())?;
        let files = files
            .iter()
            .map(|(path, bytes)| (PathBuf::from(path), bytes.as_bytes().to_vec()));
        let plan = plan(&patch, &mut Memory(files.collect())).map_err(|e| format!("{e:?}"))?;
        Ok(plan
            .files
            .into_iter()
            .filter_map(|(path, (_, after))| Some((path, String::from_utf8(after?.bytes).unwrap())))
            .collect())
    }

    #[test]
    fn a_no_prefix_patch_has_one_strip_level_for_all_its_sections() {
        // `git diff --no-prefix`: `zzz.txt zzz.txt` proves the patch has no prefixes,
        // so the next section moves `a/x y.txt` to `b/x y.txt` (`git apply -p0`); it
        // is no edit of `x y.txt`.
        let patch = "diff --git zzz.txt zzz.txt\n--- zzz.txt\n+++ zzz.txt\n@@ -1 +1 @@\n-z\n+Z\n\
                     diff --git a/x y.txt b/x y.txt\n--- a/x y.txt\t\n+++ b/x y.txt\t\n@@ -1 +1 @@\n-l\n+L\n";
        let refused = plan_files(patch, &[("zzz.txt", "z\n"), ("x y.txt", "l\n")]);
        assert!(
            refused.as_ref().is_err_and(|e| e.contains("a/x y.txt")),
            "git apply -p0 refuses: a/x y.txt does not exist; got {refused:?}"
        );
        let moved = plan_files(patch, &[("zzz.txt", "z\n"), ("a/x y.txt", "l\n")]).unwrap();
        assert_eq!(
            moved,
            [
                (PathBuf::from("b/x y.txt"), "L\n".to_string()),
                (PathBuf::from("zzz.txt"), "Z\n".to_string())
            ]
        );
    }

    #[test]
    fn a_git_diff_without_context_is_placed_by_its_line_numbers() {
        // `git apply --unidiff-zero`: an insertion at line 0 of a file with lines.
        let patch = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+top\n";
        assert_eq!(apply(patch, "a\n").unwrap(), b"top\na\n");
    }
}
