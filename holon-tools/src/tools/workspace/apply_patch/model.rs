//! What a patch says, whichever surface it came in: a list of file changes.

use std::path::PathBuf;

/// One contiguous replacement inside a file: `old` lines become `new` lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Chunk {
    /// A line to find first (the text after `@@ `), narrowing where `old` is looked for.
    pub(crate) anchor: Option<String>,
    /// The lines the file has now (context and removed lines, in order).
    pub(crate) old: Vec<String>,
    /// The lines it will have (context and added lines, in order).
    pub(crate) new: Vec<String>,
    /// The chunk ends at the end of the file.
    pub(crate) at_end_of_file: bool,
    /// A 1-based line number where `old` is expected (unified diffs carry one).
    pub(crate) line_hint: Option<usize>,
}

/// A change to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileChange {
    /// Create a file with these lines.
    Add { path: PathBuf, lines: Vec<String> },
    /// Remove a file.
    Delete { path: PathBuf },
    /// Edit a file, and maybe move it.
    Update {
        path: PathBuf,
        move_to: Option<PathBuf>,
        chunks: Vec<Chunk>,
    },
}

impl FileChange {
    /// The path the change is about (its source, for a move).
    pub(crate) fn path(&self) -> &PathBuf {
        match self {
            Self::Add { path, .. } | Self::Delete { path } | Self::Update { path, .. } => path,
        }
    }
}

/// A patch that does not parse: the line (1-based) and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub(crate) line: usize,
    pub(crate) message: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Parses either surface: the `*** Begin Patch` format, or a unified diff.
pub(crate) fn parse(text: &str) -> Result<Vec<FileChange>, SyntaxError> {
    if text.starts_with(super::envelope::BEGIN) {
        super::envelope::parse(text)
    } else {
        super::unified::parse(text)
    }
}
