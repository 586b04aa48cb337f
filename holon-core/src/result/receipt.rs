//! Default receipt rendering: a compact, YAML-like text a person or a model reads easily.
//!
//! Null values are dropped (they carry no information); everything else is kept.

use std::fmt::Write;

use serde_json::Value;

use crate::result::{ContentBlock, ToolResult, ToolStatus};

impl ToolResult {
    /// The human-readable receipt: the tool's own, or the default rendering of the
    /// envelope (summary, every non-null result field, artifacts, the error with its
    /// field and hint).
    pub fn receipt(&self) -> String {
        match self
            .extras
            .as_deref()
            .and_then(|extras| extras.receipt.as_ref())
        {
            Some(receipt) => receipt.clone(),
            None => render(self),
        }
    }

    /// The content a model is shown: the receipt as text, then the tool's blocks.
    pub fn model_content(&self) -> Vec<ContentBlock> {
        let mut blocks = Vec::with_capacity(self.content().len() + 1);
        blocks.push(ContentBlock::Text {
            text: self.receipt(),
        });
        blocks.extend(self.content().iter().cloned());
        blocks
    }
}

/// Renders the default receipt of `result`.
fn render(result: &ToolResult) -> String {
    // Room for the summary and the result's fields, so that the text rarely grows.
    let structured = result.structured.as_ref().map_or(0, |s| s.as_str().len());
    let mut out = String::with_capacity(result.tool_name.len() + 32 + structured * 2);
    result.write_summary(&mut out);
    out.push('\n');
    if let Some(directive) = result.directive() {
        let _ = writeln!(out, "waiting for: {directive}");
    }
    if let Some(crate::result::Deferral::ApprovalRequired(asked)) = result.deferral() {
        write_scalar_line(&mut out, 0, "approval_id", &asked.approval_id);
        write_scalar_line(&mut out, 0, "tool", &asked.tool);
        write_entry(&mut out, 0, "arguments", &asked.arguments);
        write_scalar_line(&mut out, 0, "principal", &asked.principal);
        write_scalar_line(&mut out, 0, "why", &asked.reason);
    }
    if let Some(error) = &result.error {
        // Each thing once: the default summary names the kind, a message that quotes
        // the field's path names the field.
        if result.has_own_summary() {
            let _ = writeln!(out, "error: {}", error.kind);
        }
        write_scalar_line(&mut out, 0, "message", &error.message);
        if let Some(field) = &error.field
            && !quotes(&error.message, field)
        {
            let _ = writeln!(out, "field: {field}");
        }
        if let Some(hint) = &error.recovery_hint {
            write_scalar_line(&mut out, 0, "hint", hint);
        }
        if let Some(details) = &error.details {
            write_details(&mut out, details);
        }
        if error.retryable {
            out.push_str("retryable: true\n");
        }
    }
    if result.status != ToolStatus::Error
        && let Some(structured) = &result.structured
    {
        match structured.as_value() {
            Value::Object(map) => {
                for (key, value) in map {
                    write_entry(&mut out, 0, key, value);
                }
            }
            Value::Null => {}
            other => write_entry(&mut out, 0, "result", other),
        }
    }
    if !result.artifacts().is_empty() {
        out.push_str("artifacts:\n");
        for artifact in result.artifacts() {
            let _ = writeln!(out, "  - {} ({})", artifact.path, artifact.role);
        }
    }
    let blocks: Vec<String> = result.content().iter().filter_map(block_line).collect();
    if !blocks.is_empty() {
        out.push_str("content:\n");
        for line in blocks {
            let _ = writeln!(out, "  - {line}");
        }
    }
    while out.ends_with('\n') {
        out.pop();
    }
    out
}

/// The receipt's line for a content block that is not text (a reader of the text
/// alone learns that there is more, and what).
fn block_line(block: &ContentBlock) -> Option<String> {
    let media = |kind: &str, mime_type: Option<&str>, base64: &str| {
        let bytes = base64_len(base64);
        match mime_type {
            Some(mime_type) => format!("{kind} ({mime_type}, {bytes} bytes)"),
            None => format!("{kind} ({bytes} bytes)"),
        }
    };
    Some(match block {
        ContentBlock::Text { .. } => return None,
        ContentBlock::Image { mime_type, data } => media("image", Some(mime_type), data),
        ContentBlock::Audio { mime_type, data } => media("audio", Some(mime_type), data),
        ContentBlock::ResourceText { uri, text, .. } => {
            format!(
                "resource {uri} ({} characters of text)",
                text.chars().count()
            )
        }
        ContentBlock::ResourceBlob {
            uri,
            mime_type,
            blob,
        } => media(&format!("resource {uri}"), mime_type.as_deref(), blob),
        ContentBlock::ResourceLink { uri, .. } => format!("link {uri}"),
        ContentBlock::ToolUse { name, id, .. } => format!("tool_use {name} (id {id})"),
    })
}

/// The number of bytes base64 text `data` decodes to.
fn base64_len(data: &str) -> usize {
    let data = data.trim_end();
    let padding = data.bytes().rev().take_while(|&byte| byte == b'=').count();
    (data.len() / 4 * 3 + [0, 0, 1, 2][data.len() % 4]).saturating_sub(padding)
}

/// An error's details; its list of input problems one a line, so that a reader sees
/// every problem of the call at a glance.
fn write_details(out: &mut String, details: &Value) {
    let Some(problems) = details.get("problems").and_then(Value::as_array) else {
        write_entry(out, 0, "details", details);
        return;
    };
    if let Value::Object(map) = details {
        let rest: serde_json::Map<String, Value> = map
            .iter()
            .filter(|(key, _)| *key != "problems")
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        if !rest.is_empty() {
            write_entry(out, 0, "details", &Value::Object(rest));
        }
    }
    let _ = writeln!(out, "problems ({}):", problems.len());
    for problem in problems {
        let text = |key: &str| problem.get(key).and_then(Value::as_str);
        let mut line = format!("  - {}", text("kind").unwrap_or("problem"));
        if let Some(field) = text("field")
            && !quotes(text("message").unwrap_or_default(), field)
        {
            let _ = write!(line, " at `{field}`");
        }
        let _ = write!(line, ": {}", text("message").unwrap_or_default());
        if let Some(hint) = text("hint") {
            let _ = write!(line, " (hint: {hint})");
        }
        out.push_str(&line.replace('\n', " "));
        out.push('\n');
    }
}

/// Whether `message` names the path `field` already (in backquotes, as the
/// framework's own messages do).
fn quotes(message: &str, field: &str) -> bool {
    message.contains(&format!("`{field}`"))
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn write_scalar_line(out: &mut String, depth: usize, key: &str, text: &str) {
    indent(out, depth);
    if text.contains('\n') {
        let _ = writeln!(out, "{key}: |");
        for line in text.lines() {
            indent(out, depth + 1);
            out.push_str(line);
            out.push('\n');
        }
    } else {
        let _ = writeln!(out, "{key}: {text}");
    }
}

fn write_entry(out: &mut String, depth: usize, key: &str, value: &Value) {
    match value {
        Value::Null => {}
        Value::String(text) => write_scalar_line(out, depth, key, text),
        Value::Object(map) if map.values().all(Value::is_null) => {
            indent(out, depth);
            let _ = writeln!(out, "{key}: {{}}");
        }
        Value::Object(map) => {
            indent(out, depth);
            let _ = writeln!(out, "{key}:");
            for (inner_key, inner) in map {
                write_entry(out, depth + 1, inner_key, inner);
            }
        }
        Value::Array(items) if items.is_empty() => {
            indent(out, depth);
            let _ = writeln!(out, "{key}: []");
        }
        Value::Array(items) => {
            indent(out, depth);
            let _ = writeln!(out, "{key}:");
            for item in items {
                write_item(out, depth + 1, item);
            }
        }
        scalar => {
            indent(out, depth);
            let _ = writeln!(out, "{key}: {scalar}");
        }
    }
}

fn write_item(out: &mut String, depth: usize, item: &Value) {
    match item {
        Value::Object(map) => {
            let mut first = true;
            for (key, value) in map.iter().filter(|(_, v)| !v.is_null()) {
                if first {
                    indent(out, depth);
                    out.push_str("- ");
                    let mut line = String::new();
                    write_entry(&mut line, 0, key, value);
                    // Continuation lines of the first entry shift under the dash.
                    let mut lines = line.lines();
                    if let Some(head) = lines.next() {
                        out.push_str(head);
                        out.push('\n');
                    }
                    for rest in lines {
                        indent(out, depth + 1);
                        out.push_str(rest);
                        out.push('\n');
                    }
                    first = false;
                } else {
                    write_entry(out, depth + 1, key, value);
                }
            }
            if first {
                indent(out, depth);
                out.push_str("- {}\n");
            }
        }
        Value::String(text) if !text.contains('\n') => {
            indent(out, depth);
            let _ = writeln!(out, "- {text}");
        }
        other => {
            indent(out, depth);
            let _ = writeln!(out, "- {other}");
        }
    }
}

#[cfg(test)]
mod tests {

    use serde_json::json;

    use super::*;
    use crate::result::Artifact;
    use crate::result::error::ToolError;

    fn success(structured: Value) -> ToolResult {
        let mut result = ToolResult::from_error("Demo", ToolError::invalid_input("x"));
        result.status = ToolStatus::Success;
        result.error = None;
        result.structured = Some(structured.into());
        result
    }

    #[test]
    fn renders_every_meaningful_field_and_drops_nulls() {
        // Keys in sorted order: the receipt follows the map's order, which is sorted
        // or insertion order depending on serde_json's `preserve_order`.
        let mut result = success(json!({
            "empty": [],
            "exit_status": 0,
            "items": [{"index": 0, "status": "completed"}, "plain"],
            "skipped": null,
            "stdout": "line one\nline two",
        }));
        result.extras_mut().artifacts.push(Artifact {
            path: "out/stdout.log".into(),
            role: "stdout".into(),
        });
        let receipt = result.receipt();
        assert_eq!(
            receipt,
            "Demo succeeded\nempty: []\nexit_status: 0\nitems:\n  - index: 0\n    status: completed\n  - plain\nstdout: |\n  line one\n  line two\nartifacts:\n  - out/stdout.log (stdout)"
        );
        assert!(!receipt.contains("skipped"));
    }

    #[test]
    fn lists_input_problems_one_a_line() {
        let mut error = ToolError::new(
            crate::ToolErrorKind::UNKNOWN_FIELD,
            "unknown field `day` (1 more problem in details.problems)",
        )
        .with_field("day")
        .with_hint("did you mean `days`?");
        error.details = Some(Box::new(json!({
            "expected": ["city", "days"],
            "problems": [
                {"kind": "invalid_tool_input", "field": "days", "message": "missing required field `days`"},
            ],
        })));
        let receipt = ToolResult::from_error("GetWeather", error).receipt();
        assert_eq!(
            receipt,
            "GetWeather failed: unknown_field\nmessage: unknown field `day` (1 more problem in details.problems)\nhint: did you mean `days`?\ndetails:\n  expected:\n    - city\n    - days\nproblems (1):\n  - invalid_tool_input: missing required field `days`"
        );
    }

    #[test]
    fn renders_errors_with_field_and_hint() {
        let error = ToolError::invalid_input("the reason is too long")
            .with_field("reason")
            .with_hint("shorten it");
        let receipt = ToolResult::from_error("WaitFor", error).receipt();
        assert_eq!(
            receipt,
            "WaitFor failed: invalid_tool_input\nmessage: the reason is too long\nfield: reason\nhint: shorten it"
        );

        // A summary of the tool's own does not name the kind: the receipt does.
        let mut result = ToolResult::from_error("WaitFor", ToolError::invalid_input("x"));
        result.extras_mut().summary = Some("no wait".into());
        assert_eq!(
            result.receipt(),
            "no wait\nerror: invalid_tool_input\nmessage: x"
        );
    }
}
