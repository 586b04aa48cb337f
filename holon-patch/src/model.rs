//! What a patch says, whichever surface it came in: a list of file changes over
//! bytes. A line keeps its terminator (`\n`, `\r\n`, or none for a last line without
//! one), so line endings and final newlines survive exactly as the patch says.

use std::path::PathBuf;

/// Which surface a patch came in; it decides how strictly lines are compared and
/// how new lines end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Surface {
    /// A unified diff: bytes exactly as the patch says (as `git apply`).
    Unified,
    /// The `*** Begin Patch` format: lines compared without their terminators, new
    /// lines end like the file's, and an edited file ends with a newline (as Codex).
    Envelope,
}

/// What a line of a chunk does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Context,
    Remove,
    Add,
}

/// One contiguous replacement inside a file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Chunk {
    /// A line to find first (the text after `@@ ` in the envelope format).
    pub(crate) anchor: Option<String>,
    /// The chunk's lines, each with its terminator.
    pub(crate) lines: Vec<(Op, Vec<u8>)>,
    /// The chunk must match at the start of the file.
    pub(crate) at_start: bool,
    /// The chunk must match at the end of the file.
    pub(crate) at_end: bool,
    /// A 0-based line index where the chunk is expected, in the file as the earlier
    /// chunks left it (a unified diff's new start, as `git apply` reads it).
    pub(crate) position: Option<usize>,
    /// A unified diff hunk's old start line (0 for an insertion before line 1).
    pub(crate) old_start: usize,
}

impl Chunk {
    /// The lines the file has now: context and removed lines.
    pub(crate) fn old(&self) -> impl Iterator<Item = &[u8]> {
        self.lines
            .iter()
            .filter(|(op, _)| *op != Op::Add)
            .map(|(_, line)| line.as_slice())
    }

    /// Whether the chunk has a context line. A unified hunk without one (`git diff
    /// -U0`) has only the lines it removes to place it, so they must match exactly:
    /// matched loosely, such a hunk lands on whatever line looks alike, where `git
    /// apply` refuses.
    pub(crate) fn has_context(&self) -> bool {
        self.lines.iter().any(|(op, _)| *op == Op::Context)
    }
}

/// A `GIT binary patch` section: the new content as a literal or a delta against
/// the old, with the blob ids both sides must have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BinaryPatch {
    /// The old side's blob id (40 hex digits; all zeros for no file).
    pub(crate) old_id: String,
    /// The new side's blob id.
    pub(crate) new_id: String,
    /// The inflated data: the content itself, or a git delta.
    pub(crate) data: Vec<u8>,
    pub(crate) is_delta: bool,
}

/// How a file's content changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Body {
    /// Text chunks.
    Chunks(Vec<Chunk>),
    /// A binary patch.
    Binary(BinaryPatch),
    /// Nothing said about the content (a delete in the envelope format: not verified).
    Unverified,
}

/// What happens to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Add,
    Delete,
    /// Edit in place, or move when there is a target.
    Update,
    /// A new file at the target, made from the source's content.
    Copy,
}

/// A change to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileChange {
    pub(crate) action: Action,
    /// The file the change starts from (the new file, for an add).
    pub(crate) path: PathBuf,
    /// Where a move or copy goes.
    pub(crate) target: Option<PathBuf>,
    pub(crate) body: Body,
    /// The exec bit the patch sets (`new file mode 100755`, `new mode 100644`);
    /// `None` keeps the file's own.
    pub(crate) exec: Option<bool>,
}

/// A parsed patch: what [`plan`](crate::plan) applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub(crate) surface: Surface,
    pub(crate) changes: Vec<FileChange>,
}

/// A patch that cannot be applied as written: the line (1-based), what is wrong
/// there, and the error kind (`invalid_patch` for a syntax error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// The line of the patch (1-based).
    pub line: usize,
    /// What is wrong there.
    pub message: String,
    /// The error kind: `invalid_patch`, `binary_without_data` or `unsupported_patch`.
    pub kind: &'static str,
}

impl SyntaxError {
    pub(crate) fn new(line: usize, message: impl Into<String>) -> Self {
        Self {
            line,
            message: message.into(),
            kind: "invalid_patch",
        }
    }
}

impl std::error::Error for SyntaxError {}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}
