//! The fuzz targets' harness (`fuzz/`, cargo-fuzz) and its corpus replay: a patch is
//! parsed, and a patch that parses is planned over files in memory. A finding is a
//! panic.

use std::convert::Infallible;
use std::path::{Path, PathBuf};

use crate::{FileState, Patch, Workspace};

/// Every path the patch names reads as the same content, or as no file when the
/// content is empty.
struct Memory<'a>(&'a [u8]);

impl Workspace for Memory<'_> {
    type Key = PathBuf;
    type Error = Infallible;
    fn resolve(&mut self, path: &Path) -> Result<PathBuf, Infallible> {
        Ok(path.to_path_buf())
    }
    fn read(&mut self, _: &Path, _: &PathBuf) -> Result<Option<FileState>, Infallible> {
        Ok((!self.0.is_empty()).then(|| FileState {
            bytes: self.0.to_vec(),
            mode: Some(0o644),
            exec: false,
        }))
    }
}

/// The input: the files' content, a NUL byte, then the patch (all patch when there is
/// no NUL byte, over no files).
fn split(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|b| *b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (&[], data),
    }
}

fn plan(patch: &Patch, file: &[u8]) {
    // Mismatches are answers, not findings.
    let _ = crate::plan(patch, &mut Memory(file));
}

/// The `*** Begin Patch` parser (the text is put inside the markers when it does not
/// start with them), then the planner.
pub fn envelope(data: &[u8]) {
    let (file, patch) = split(data);
    let Ok(text) = std::str::from_utf8(patch) else {
        return;
    };
    let text = if crate::envelope::unwrap(text).is_some() {
        text.to_string()
    } else {
        format!("*** Begin Patch\n{text}\n*** End Patch\n")
    };
    if let Ok(patch) = crate::parse(&text) {
        plan(&patch, file);
    }
}

/// The unified/git diff parser, then the planner.
pub fn unified(data: &[u8]) {
    let (file, patch) = split(data);
    let Ok(text) = std::str::from_utf8(patch) else {
        return;
    };
    if let Ok(changes) = crate::unified::parse(text) {
        let patch = Patch {
            surface: crate::model::Surface::Unified,
            changes,
        };
        plan(&patch, file);
    }
}
