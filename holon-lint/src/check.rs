//! Checking the references of a text against the registry.

use serde_json::Value;

use crate::facts::{Facts, Field, Side, ToolFacts, admits, same};
use crate::markdown::{Block, Fence, Paragraph, blocks};
use crate::references::{Reference, references};
use crate::{Finding, FindingKind, defaults, examples};
use holon_core::Registry;
use holon_core::closest;

/// The lint over one registry.
pub(crate) struct Linter<'r> {
    registry: &'r Registry,
    facts: Facts<'r>,
}

/// Where a text is and whom its references default to.
struct Scope<'a, 'r> {
    file: &'a str,
    /// The described tool, for a description.
    owner: Option<&'a ToolFacts<'r>>,
    /// The described field, for a field description.
    own: Option<&'a Field<'r>>,
    /// The tool of the last heading that names one.
    section: Option<&'a ToolFacts<'r>>,
}

impl<'r> Linter<'r> {
    pub fn new(registry: &'r Registry) -> Self {
        Self {
            registry,
            facts: Facts::new(registry),
        }
    }

    /// Lints every description of every tool, its input examples as example calls
    /// marked valid, and its search keywords.
    pub fn lint_descriptions(&self, out: &mut Vec<Finding>) {
        for tool in self.facts.tools() {
            for (index, example) in tool.definition.input_examples.iter().enumerate() {
                let fence = Fence {
                    line: 1,
                    info: format!("json call={} valid", tool.name()),
                    body: serde_json::to_string_pretty(example).unwrap_or_default(),
                };
                let file = format!("tool:{}#example[{index}]", tool.name());
                examples::check(self.registry, &self.facts, &file, &fence, out);
            }
            let file = format!("tool:{}", tool.name());
            self.lint_scoped(
                &file,
                &tool.definition.spec.description,
                Some(tool),
                None,
                out,
            );
            for fields in tool.fields.values() {
                for field in fields {
                    if let Some(description) = field.description() {
                        let prefix = if field.side == Side::Result {
                            "result."
                        } else {
                            ""
                        };
                        let file = format!("tool:{}#{prefix}{}", tool.name(), field.path);
                        self.lint_scoped(&file, description, Some(tool), Some(field), out);
                    }
                }
            }
            crate::keywords::check(tool.definition, out);
        }
    }

    /// Lints one Markdown guidance text.
    pub fn lint_text(&self, file: &str, text: &str, out: &mut Vec<Finding>) {
        self.lint_scoped(file, text, None, None, out);
    }

    fn lint_scoped(
        &self,
        file: &str,
        text: &str,
        owner: Option<&ToolFacts<'r>>,
        own: Option<&Field<'r>>,
        out: &mut Vec<Finding>,
    ) {
        let facts = &self.facts;
        let mut scope = Scope {
            file,
            owner,
            own,
            section: None,
        };
        for block in blocks(text) {
            match block {
                Block::Fence(fence) => examples::check(self.registry, facts, file, &fence, out),
                Block::Prose(paragraph) => {
                    if paragraph.heading {
                        let refs = references(&paragraph.text, &|n| facts.tool(n).is_some());
                        scope.section = refs.iter().find_map(|r| match r {
                            Reference::Tool {
                                name, known: true, ..
                            } => facts.tool(name),
                            _ => None,
                        });
                    }
                    self.paragraph(&scope, &paragraph, out);
                }
            }
        }
    }

    fn paragraph(&self, scope: &Scope<'_, 'r>, paragraph: &Paragraph, out: &mut Vec<Finding>) {
        let facts = &self.facts;
        let text = paragraph.text.as_str();
        let refs = references(text, &|name| facts.tool(name).is_some());
        let tools: Vec<(usize, &ToolFacts<'r>)> = refs
            .iter()
            .filter_map(|r| match r {
                Reference::Tool {
                    offset,
                    name,
                    known: true,
                } => facts.tool(name).map(|tool| (*offset, tool)),
                _ => None,
            })
            .collect();
        // The tools a reference at `offset` may be about, the likeliest first.
        let candidates = |offset: usize| {
            let before = tools.iter().rev().find(|(at, _)| *at < offset);
            let after = tools.iter().find(|(at, _)| *at > offset);
            let mut list: Vec<&ToolFacts<'r>> = Vec::new();
            for tool in [
                before.map(|t| t.1),
                after.map(|t| t.1),
                scope.section,
                scope.owner,
            ]
            .into_iter()
            .flatten()
            {
                if !list.iter().any(|known| known.name() == tool.name()) {
                    list.push(tool);
                }
            }
            list
        };
        for reference in &refs {
            let line = paragraph.line_at(reference.offset());
            match reference {
                Reference::Tool {
                    name, known: false, ..
                } => {
                    let mut message = format!("`{name}` is not a tool");
                    if let Some(best) = closest(name, facts.names()) {
                        message.push_str(&format!("; did you mean `{best}`?"));
                    }
                    out.push(finding(scope.file, line, FindingKind::UnknownTool, message));
                }
                Reference::Tool { .. } => {}
                // A field's own description names the values it takes in prose, and
                // a sentence about an error names error kinds: neither is a field.
                Reference::Name { offset, name }
                    if scope.own.is_none() && !speaks_of_errors(text, *offset, name) =>
                {
                    let tools = candidates(*offset);
                    out.extend(bare_name(scope.file, line, &tools, facts, name));
                }
                Reference::Name { .. } => {}
                Reference::Field {
                    offset,
                    text,
                    name,
                    value,
                    bare,
                    strict,
                } => {
                    let tools = candidates(*offset);
                    let mention = (*text, *name, value, *bare, *strict);
                    out.extend(field(scope.file, line, &tools, mention));
                }
            }
        }
        for stated in defaults::find(text) {
            let tools = candidates(stated.offset);
            let field = stated
                .fields_before
                .iter()
                .copied()
                .find(|name| tools.iter().any(|tool| !tool.field(name).is_empty()))
                .or_else(|| scope.own.map(Field::name));
            let Some(field) = field else { continue };
            let Some(value) = stated.value.resolve(field) else {
                continue;
            };
            let mut known: Vec<(String, Value, &str)> = Vec::new();
            for tool in &tools {
                for occurrence in tool.field(field).iter().filter(|f| f.side == Side::Input) {
                    let own = scope
                        .own
                        .is_some_and(|own| std::ptr::eq(own.raw, occurrence.raw));
                    if let Some(default) = occurrence.schema_default() {
                        known.push((tool.name().to_string(), default.clone(), "its schema"));
                    }
                    if let Some(default) = occurrence.described_default().filter(|_| !own) {
                        known.push((tool.name().to_string(), default, "its field description"));
                    }
                }
            }
            if known.is_empty() || known.iter().any(|(_, default, _)| same(default, &value)) {
                continue;
            }
            let (tool, default, source) = &known[0];
            let line = paragraph.line_at(stated.offset);
            let message = format!(
                "\"{}\" says `{field}` defaults to {value}, but {tool}'s `{field}` defaults to {default} ({source})",
                stated.phrase.replace('\n', " ")
            );
            out.push(finding(
                scope.file,
                line,
                FindingKind::DefaultMismatch,
                message,
            ));
        }
    }
}

fn finding(file: &str, line: usize, kind: FindingKind, message: String) -> Finding {
    Finding {
        file: file.to_string(),
        line,
        kind,
        message,
    }
}

/// Whether a bare value is written as a placeholder: `<n>`, `N`, `MS`, `...`.
fn is_placeholder(word: &str) -> bool {
    let angled = word.starts_with('<') && word.ends_with('>');
    let capitals = !word.is_empty()
        && word.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        && word.chars().any(|c| c.is_ascii_uppercase());
    angled || capitals || word.contains("...") || word.contains('…')
}

/// Whether the sentence around `offset` is about an error (`fails with`, `is
/// refused with`, `Errors:`), where a `snake_case` name is an error kind.
fn speaks_of_errors(text: &str, offset: usize, name: &str) -> bool {
    let start = text[..offset].rfind(". ").map_or(0, |at| at + 2);
    // The name's own words (`fail_fast`) do not count.
    let after = text[offset..]
        .find(name)
        .map_or(offset, |at| offset + at + name.len());
    let end = text[after..].find(". ").map_or(text.len(), |at| after + at);
    [&text[start..offset], &text[after..end]]
        .iter()
        .flat_map(|part| part.split(|c: char| !c.is_ascii_alphabetic()))
        .any(|word| {
            matches!(
                word.to_ascii_lowercase().as_str(),
                "error" | "errors" | "fail" | "fails" | "refused" | "refuses" | "rejected" | "kind"
            )
        })
}

/// Checks a `snake_case` code span in a paragraph about `tools`: it must be a field
/// or an enum value of some tool, or a word of the envelope; otherwise it is an unknown
/// field of the tool in context, with the closest of its fields.
fn bare_name(
    file: &str,
    line: usize,
    tools: &[&ToolFacts<'_>],
    facts: &Facts<'_>,
    name: &str,
) -> Option<Finding> {
    let first = tools.first()?;
    if facts.knows(name) {
        return None;
    }
    let mut message = format!(
        "`{name}` is no field or value of {} (nor of any other tool)",
        first.name()
    );
    let inputs = first.input_field_names();
    match closest(name, first.fields.keys().copied()) {
        Some(best) => message.push_str(&format!("; did you mean `{best}`?")),
        None if !inputs.is_empty() => {
            message.push_str(&format!("; its input fields are {}", inputs.join(", ")))
        }
        None => {}
    }
    Some(finding(file, line, FindingKind::UnknownField, message))
}

/// A field mention: as written, the field, the value, whether the value is a bare
/// word, and whether an unknown field is a finding.
type Mention<'m> = (&'m str, &'m str, &'m Value, bool, bool);

/// Checks a field mention against the tools it may be about.
fn field(
    file: &str,
    line: usize,
    tools: &[&ToolFacts<'_>],
    (text, name, value, bare, strict): Mention<'_>,
) -> Option<Finding> {
    let first = tools.first()?;
    let having: Vec<(&ToolFacts<'_>, &[Field<'_>])> = tools
        .iter()
        .map(|tool| (*tool, tool.field(name)))
        .filter(|(_, fields)| !fields.is_empty())
        .collect();
    let Some((tool, fields)) = having.first() else {
        if strict {
            let mut message = format!(
                "`{text}`: `{name}` is a field of neither the input nor the result of {}",
                first.name()
            );
            if let Some(best) = closest(name, first.fields.keys().copied()) {
                message.push_str(&format!("; did you mean `{best}`?"));
            }
            return Some(finding(file, line, FindingKind::UnknownField, message));
        }
        return None;
    };
    // A bare word is checked like any value unless it is written as a placeholder.
    let placeholder = bare && value.as_str().is_some_and(is_placeholder);
    let allowed = |field: &Field<'_>| placeholder || admits(field.root, field.schema, value, 0);
    if having.iter().any(|(_, fields)| fields.iter().any(allowed)) {
        return None;
    }
    let field = &fields[0];
    let (kind, message) = match field.enum_values() {
        Some(values) => (
            FindingKind::InvalidEnumValue,
            format!(
                "`{text}`: {}'s `{}` is one of: {}",
                tool.name(),
                field.path,
                values.join(", ")
            ),
        ),
        None => (
            FindingKind::InvalidValue,
            format!(
                "`{text}`: {}'s `{}` does not allow {value}",
                tool.name(),
                field.path
            ),
        ),
    };
    Some(finding(file, line, kind, message))
}
