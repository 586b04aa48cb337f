//! The guidance lint: prompt guidance (an `AGENTS.md`, a system prompt template) and
//! tool descriptions must not contradict the tools the registry holds.
//!
//! [`lint_guidance`] reads Markdown texts, [`lint_descriptions`] reads every tool's
//! description and every field description of its schemas (descriptions are guidance
//! too), and checks its input examples as example calls marked `valid`. Both return [`Finding`]s with the file and line; neither runs a tool.
//!
//! # What is read
//!
//! - **Tools**: a word or inline code span that is a tool's name or alias. A
//!   `PascalCase` name of two words or more written as an inline code span by itself
//!   (`` `ExecComand` ``) or right before `tool`/`tools` ("the ReadFile tool"), or any
//!   capitalized word right after `call`/`calls`/`calling`/`tool` ("call Slep"), that
//!   is no tool's name is an [`FindingKind::UnknownTool`].
//! - **Fields with a value**: an inline code span `` `field: value` `` or
//!   `` `field=value` ``, or a bare `field=value` word; and `` `field` is `value` ``.
//!   The field belongs to the tool named nearest before it in the same paragraph
//!   (else the next one after it, else the tool of the last heading that names one,
//!   else, in a description, the described tool). A field none of those tools has in
//!   its input or result schema is an [`FindingKind::UnknownField`]; a value its schema
//!   does not allow is an [`FindingKind::InvalidEnumValue`] (for an enum) or an
//!   [`FindingKind::InvalidValue`]. A bare word is a value like any other
//!   (`include_unavailable=sometimes` is not a boolean) unless it is written as a
//!   placeholder: `<n>`, a capitalized word (`limit: N`) or `...`.
//! - **Bare field names**: every other inline code span that is `snake_case` of two
//!   words or more (`page_token`), in a paragraph about a tool (by the same rules), must
//!   be a field or an enum value of some tool, a word of the result envelope, a family
//!   or one of the dispatcher's error kinds; otherwise it is an
//!   [`FindingKind::UnknownField`] naming the closest field of the tool in context.
//!   Two places are not read this way: a sentence about an error (`fails with`, `is
//!   refused with`, `Errors:`), whose names are error kinds a tool gives, and a field's
//!   own description, whose names are the values it describes.
//! - **Stated defaults**: `default` or `defaults`, an optional `to`/`is`/`of`/`:`/`=`,
//!   then a number with an optional unit (`10,000 ms`, `5 s`: converted for fields
//!   named `*_ms`), `true`, `false`, `null`, a quoted string or a code span. The
//!   default is about the nearest `snake_case` code span before it in the same
//!   sentence that is a field of the tool in context (in a field's own description:
//!   that field). It must equal the field's default: the schema's `default` where it
//!   is not `null`, and the **runtime default** the field's description states by the
//!   convention *"Defaults to X."* (a runtime default the schema cannot carry, such as
//!   ExecCommand's `yield_time_ms`). Otherwise it is a
//!   [`FindingKind::DefaultMismatch`]; a field description that contradicts the
//!   schema's `default` is one too.
//! - **Example calls**: a fenced code block whose info string has `call=ToolName` and
//!   `valid`, `invalid` or `invalid=<error kind>`:
//!
//!   ````markdown
//!   ```json call=ExecCommand invalid=result_field_in_input
//!   {"cmd": "cargo test", "exit_status": 0}
//!   ```
//!   ````
//!
//!   A `json` block is a JSON input; any other language (`text`) is the raw text of a
//!   freeform call. Each is put through [`Registry::check`](holon_core::Registry::check),
//!   which runs every dispatch step but the handler, under every family and with
//!   runtime access. A `valid` example must pass
//!   ([`FindingKind::ValidExampleRejected`]); an `invalid` one must fail
//!   ([`FindingKind::InvalidExampleAccepted`]), with the stated kind if there is one
//!   ([`FindingKind::InvalidExampleWrongKind`]). A block with `call=` but no verdict, or
//!   JSON that does not parse, is a [`FindingKind::MalformedExample`]. Other fenced
//!   blocks, and HTML comments, are not read.
//! - **Search keywords** (`keywords = [...]`): a keyword that is blank, given twice
//!   (ignoring case and punctuation) or made only of words of the tool's own name is
//!   a [`FindingKind::WeakKeyword`] at `tool:Name#keywords[i]`.

mod catalog;
mod check;
mod defaults;
mod examples;
mod facts;
mod keywords;
mod markdown;
mod references;

use std::fmt;

use holon_core::Registry;

pub use catalog::{
    INVENTORY_FILE_NAME, INVENTORY_VERSION, InventoryDrift, check_inventory, inventory,
    inventory_text,
};

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FindingKind {
    /// A name used as a tool's that no tool (or alias) has.
    UnknownTool,
    /// A field the tool named next to it has in neither its input nor its result.
    UnknownField,
    /// A value of an enum field that the schema does not list.
    InvalidEnumValue,
    /// A value the field's schema does not allow (type, range, length).
    InvalidValue,
    /// A stated default that differs from the schema's or the runtime's.
    DefaultMismatch,
    /// An example call marked valid that the dispatcher rejects.
    ValidExampleRejected,
    /// An example call marked invalid that the dispatcher accepts.
    InvalidExampleAccepted,
    /// An example call marked invalid with a kind that fails with another kind.
    InvalidExampleWrongKind,
    /// An example call that cannot be read: no verdict, or JSON that does not parse.
    MalformedExample,
    /// A search keyword that adds nothing: blank, given twice, or only the tool's
    /// name again.
    WeakKeyword,
}

impl FindingKind {
    /// The stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UnknownTool => "unknown_tool",
            Self::UnknownField => "unknown_field",
            Self::InvalidEnumValue => "invalid_enum_value",
            Self::InvalidValue => "invalid_value",
            Self::DefaultMismatch => "default_mismatch",
            Self::ValidExampleRejected => "valid_example_rejected",
            Self::InvalidExampleAccepted => "invalid_example_accepted",
            Self::InvalidExampleWrongKind => "invalid_example_wrong_kind",
            Self::MalformedExample => "malformed_example",
            Self::WeakKeyword => "weak_keyword",
        }
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A contradiction between guidance and the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The file, or `tool:Name` for a tool's description and `tool:Name#path` for a
    /// field's (`tool:ExecCommandBatch#items[].cmd`).
    pub file: String,
    /// The 1-based line in that file or description.
    pub line: usize,
    /// What kind of contradiction it is.
    pub kind: FindingKind,
    /// What is wrong and, where there is one, the likely fix.
    pub message: String,
}

impl fmt::Display for Finding {
    /// `file:line: kind: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}: {}",
            self.file, self.line, self.kind, self.message
        )
    }
}

/// One guidance text: its name in findings (a path) and its Markdown.
#[derive(Debug, Clone, Copy)]
pub struct GuidanceFile<'a> {
    /// The name findings give (usually the path).
    pub path: &'a str,
    /// The Markdown text.
    pub text: &'a str,
}

/// Lints guidance texts against `registry`. Findings come in file order, then line
/// order.
///
/// ```
/// use holon_lint::{GuidanceFile, lint_guidance};
///
/// let registry = holon_core::Registry::global();
/// let text = "Never call the `NoSuchTool` tool.";
/// let findings = lint_guidance(registry, &[GuidanceFile { path: "AGENTS.md", text }]);
/// assert_eq!(findings[0].to_string(), "AGENTS.md:1: unknown_tool: `NoSuchTool` is not a tool");
/// ```
pub fn lint_guidance(registry: &Registry, files: &[GuidanceFile<'_>]) -> Vec<Finding> {
    let linter = check::Linter::new(registry);
    let mut findings = Vec::new();
    for file in files {
        linter.lint_text(file.path, file.text, &mut findings);
    }
    findings
}

/// Lints every tool's description and every field description in its input and
/// result schemas against `registry`: a description is guidance as well. A tool's
/// search keywords are checked too.
pub fn lint_descriptions(registry: &Registry) -> Vec<Finding> {
    let mut findings = Vec::new();
    check::Linter::new(registry).lint_descriptions(&mut findings);
    findings
}
