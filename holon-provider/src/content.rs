//! A result's content as the parts a provider's tool result can carry; anything it
//! cannot carry becomes a text note saying what was left out, never dropped silently.

use holon_core::{ContentBlock, ToolResult};

/// One part of a tool result as a provider writes it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    Text(String),
    Image { mime_type: String, data: String },
}

/// What a provider's tool result can carry.
pub(crate) struct Carries {
    /// The provider, named in a note.
    pub(crate) provider: &'static str,
    /// The image MIME types it takes, empty when it takes none.
    pub(crate) image_types: &'static [&'static str],
}

/// The parts of `result` for a provider that carries `carries`: the receipt first,
/// then each content block, or a note in its place.
pub(crate) fn parts(result: &ToolResult, carries: &Carries) -> Vec<Part> {
    let mut parts = Vec::with_capacity(1 + result.content().len());
    parts.push(Part::Text(result.receipt()));
    for block in result.content() {
        parts.push(part(block, carries));
    }
    parts
}

/// The receipt alone, when the result has no content block (the common case): a
/// provider taking a string then gets it without the parts being built.
pub(crate) fn receipt_only(result: &ToolResult) -> Option<String> {
    result.content().is_empty().then(|| result.receipt())
}

fn part(block: &ContentBlock, carries: &Carries) -> Part {
    let note = |what: String| {
        Part::Text(format!(
            "[{what} left out: a {} tool result cannot carry it]",
            carries.provider
        ))
    };
    match block {
        ContentBlock::Text { text } => Part::Text(text.clone()),
        ContentBlock::Image { mime_type, data } => {
            if carries.image_types.contains(&mime_type.as_str()) {
                Part::Image {
                    mime_type: mime_type.clone(),
                    data: data.clone(),
                }
            } else {
                note(format!(
                    "an image ({mime_type}, {} base64 characters)",
                    data.len()
                ))
            }
        }
        ContentBlock::Audio { mime_type, data } => note(format!(
            "audio ({mime_type}, {} base64 characters)",
            data.len()
        )),
        ContentBlock::ResourceText { uri, text, .. } => Part::Text(format!("{uri}:\n{text}")),
        ContentBlock::ResourceBlob { uri, blob, .. } => note(format!(
            "the resource {uri} ({} base64 characters)",
            blob.len()
        )),
        ContentBlock::ResourceLink { uri, name, .. } => Part::Text(format!("{name}: {uri}")),
        ContentBlock::ToolUse { id, name, .. } => note(format!("a tool use of `{name}` (id {id})")),
    }
}

/// Every text part joined, for a provider whose result is one string.
pub(crate) fn joined_text(parts: &[Part]) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|part| match part {
            Part::Text(text) => Some(text.as_str()),
            Part::Image { .. } => None,
        })
        .collect();
    texts.join("\n\n")
}
