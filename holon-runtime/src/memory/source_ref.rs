//! `source_ref`: where a memory hit is, as the memory service writes it in its search
//! hits and reads it back in `get`.
//!
//! - `workspace:<root_id>:<path>` — a Markdown file of a workspace or worktree, by its
//!   execution root id and its path relative to that root (with `/`);
//! - `note:<note_id>` — a memory note;
//!
//! each optionally followed by a line range, `#L<start>-L<end>` (or `#L<line>`), 1-based
//! and inclusive.

use std::fmt;

/// A parsed `source_ref`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceRef {
    /// A Markdown file of an execution root.
    Workspace {
        /// The execution root id (a workspace id or a worktree id).
        root_id: String,
        /// The path relative to the root, `/`-separated.
        rel_path: String,
        /// The line range, if any.
        lines: Option<LineRange>,
    },
    /// A memory note.
    Note {
        /// The note id.
        note_id: String,
        /// The line range, if any.
        lines: Option<LineRange>,
    },
}

impl SourceRef {
    /// Parses `text`; the error says what is wrong with it.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (body, lines) = split_lines(text)?;
        if let Some(rest) = body.strip_prefix("workspace:") {
            let (root_id, rel_path) = rest
                .split_once(':')
                .ok_or("a workspace ref is `workspace:<root_id>:<path>`")?;
            if root_id.is_empty()
                || !root_id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
            {
                return Err(format!("`{root_id}` is not an execution root id"));
            }
            if rel_path.is_empty() {
                return Err("the path after the root id is empty".to_string());
            }
            Ok(Self::Workspace {
                root_id: root_id.to_string(),
                rel_path: rel_path.to_string(),
                lines,
            })
        } else if let Some(note_id) = body.strip_prefix("note:") {
            if note_id.is_empty() {
                return Err("the note id is empty".to_string());
            }
            Ok(Self::Note {
                note_id: note_id.to_string(),
                lines,
            })
        } else {
            Err("a source_ref starts with `workspace:` or `note:`".to_string())
        }
    }

    /// The execution root id of a workspace file; `None` for a note.
    pub fn root_id(&self) -> Option<&str> {
        match self {
            Self::Workspace { root_id, .. } => Some(root_id),
            Self::Note { .. } => None,
        }
    }

    /// The file's path relative to its root, or the note's id.
    pub fn location(&self) -> &str {
        match self {
            Self::Workspace { rel_path, .. } => rel_path,
            Self::Note { note_id, .. } => note_id,
        }
    }

    /// The same source with the line range `lines`.
    pub fn with_lines(&self, lines: Option<LineRange>) -> Self {
        match self.clone() {
            Self::Workspace {
                root_id, rel_path, ..
            } => Self::Workspace {
                root_id,
                rel_path,
                lines,
            },
            Self::Note { note_id, .. } => Self::Note { note_id, lines },
        }
    }
}

/// A 1-based inclusive line range.
pub type LineRange = (usize, usize);

/// Splits a trailing `#L<a>-L<b>` or `#L<a>` off `text`.
fn split_lines(text: &str) -> Result<(&str, Option<LineRange>), String> {
    let Some(at) = text.rfind("#L") else {
        return Ok((text, None));
    };
    let (body, suffix) = (&text[..at], &text[at + 2..]);
    let bad =
        || format!("`#L{suffix}` is not a line range; write `#L<start>-L<end>` or `#L<line>`");
    let (start, end) = match suffix.split_once("-L") {
        Some((start, end)) => (start, end),
        None => (suffix, suffix),
    };
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<usize>().ok())
            .flatten()
    };
    match (number(start), number(end)) {
        (Some(start), Some(end)) if start >= 1 && end >= start => Ok((body, Some((start, end)))),
        (Some(_), Some(_)) => Err(format!(
            "`#L{suffix}`: lines start at 1 and the end may not come before the start"
        )),
        _ => Err(bad()),
    }
}

impl fmt::Display for SourceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines = match self {
            Self::Workspace {
                root_id,
                rel_path,
                lines,
            } => {
                write!(f, "workspace:{root_id}:{rel_path}")?;
                lines
            }
            Self::Note { note_id, lines } => {
                write!(f, "note:{note_id}")?;
                lines
            }
        };
        match lines {
            Some((start, end)) => write!(f, "#L{start}-L{end}"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_malformed_refs() {
        for text in [
            "workspace:home:docs/a b.md#L3-L9",
            "workspace:wt-x:README.md",
            "note:plan-1#L1-L1",
            "note:plan-1",
        ] {
            assert_eq!(SourceRef::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(
            SourceRef::parse("workspace:home:a.md#L4").unwrap(),
            SourceRef::Workspace {
                root_id: "home".into(),
                rel_path: "a.md".into(),
                lines: Some((4, 4))
            }
        );
        for bad in [
            "file:/etc/passwd",
            "workspace:home",
            "workspace::a.md",
            "workspace:ho me:a.md",
            "workspace:home:",
            "note:",
            "workspace:home:a.md#L0-L3",
            "workspace:home:a.md#L5-L3",
            "workspace:home:a.md#Lx",
        ] {
            assert!(SourceRef::parse(bad).is_err(), "{bad}");
        }
    }
}
