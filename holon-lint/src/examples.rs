//! Example calls: fenced blocks tagged `call=ToolName` and `valid`, `invalid` or
//! `invalid=<error kind>`, checked with `Registry::check` (no handler runs).

use serde_json::Value;

use crate::facts::Facts;
use crate::markdown::Fence;
use crate::{Finding, FindingKind};
use holon_core::FamilyPolicy;
use holon_core::Registry;
use holon_core::ToolError;
use holon_core::closest;
use holon_core::{ToolCall, ToolContext};

/// What an example says the dispatcher does with it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict<'t> {
    Valid,
    /// Rejected; with this error kind, if given.
    Invalid(Option<&'t str>),
}

/// The tag of an example block: the tool and the verdict (or why it is malformed).
fn tag(info: &str) -> Option<(&str, Result<Verdict<'_>, String>)> {
    let mut tool = None;
    let mut verdicts = Vec::new();
    for token in info.split_whitespace() {
        if let Some(name) = token.strip_prefix("call=") {
            tool = Some(name);
        } else if token == "valid" {
            verdicts.push(Verdict::Valid);
        } else if token == "invalid" {
            verdicts.push(Verdict::Invalid(None));
        } else if let Some(kind) = token.strip_prefix("invalid=") {
            verdicts.push(Verdict::Invalid(Some(kind)));
        }
    }
    let tool = tool?;
    let verdict = match verdicts.as_slice() {
        [verdict] => Ok(verdict.clone()),
        [] => Err(format!(
            "the example call of {tool} is marked neither `valid` nor `invalid`: add one to its info string (`json call={tool} valid`)"
        )),
        _ => Err(format!(
            "the example call of {tool} has more than one verdict: keep one of `valid`, `invalid`, `invalid=<kind>`"
        )),
    };
    Some((tool, verdict))
}

/// The line of the body that names the error's field, else the fence's.
fn line_of(fence: &Fence, error: &ToolError) -> usize {
    let key = error
        .field
        .as_deref()
        .and_then(|path| path.rsplit(['.', ']', '[']).find(|s| !s.is_empty()))
        .map(|name| format!("\"{name}\""));
    key.and_then(|key| {
        fence
            .body
            .lines()
            .position(|line| line.contains(&key))
            .map(|index| fence.line + 1 + index)
    })
    .unwrap_or(fence.line)
}

/// Checks one fenced block, if it is an example call.
pub(crate) fn check(
    registry: &Registry,
    facts: &Facts<'_>,
    file: &str,
    fence: &Fence,
    out: &mut Vec<Finding>,
) {
    let Some((name, verdict)) = tag(&fence.info) else {
        return;
    };
    let mut report = |line: usize, kind: FindingKind, message: String| {
        out.push(Finding {
            file: file.to_string(),
            line,
            kind,
            message,
        });
    };
    let verdict = match verdict {
        Ok(verdict) => verdict,
        Err(message) => return report(fence.line, FindingKind::MalformedExample, message),
    };
    if facts.tool(name).is_none() {
        let mut message = format!("the example calls `{name}`, which is not a tool");
        if let Some(best) = closest(name, facts.names()) {
            message.push_str(&format!("; did you mean `{best}`?"));
        }
        return report(fence.line, FindingKind::UnknownTool, message);
    }
    let json = fence.info.split_whitespace().next() == Some("json");
    let call = if json {
        match serde_json::from_str::<Value>(&fence.body) {
            Ok(input) => ToolCall::new(name, input),
            Err(error) => {
                let message = format!("the example call of {name} is not valid JSON: {error}");
                let line = fence.line + error.line();
                return report(line, FindingKind::MalformedExample, message);
            }
        }
    } else {
        ToolCall::freeform(name, fence.body.as_str())
    };
    let context = ToolContext::new(FamilyPolicy::all()).with_runtime_access();
    match (registry.check(&context, call), verdict) {
        (Ok(()), Verdict::Valid) => {}
        (Err(_), Verdict::Invalid(None)) => {}
        (Err(error), Verdict::Invalid(Some(kind))) if error.kind.as_str() == kind => {}
        (Err(error), Verdict::Valid) => report(
            line_of(fence, &error),
            FindingKind::ValidExampleRejected,
            format!("{name} rejects this example marked valid: {error}"),
        ),
        (Ok(()), Verdict::Invalid(kind)) => report(
            fence.line,
            FindingKind::InvalidExampleAccepted,
            format!(
                "{name} accepts this example marked invalid{}",
                kind.map(|kind| format!(" (`{kind}`)")).unwrap_or_default()
            ),
        ),
        (Err(error), Verdict::Invalid(kind)) => report(
            line_of(fence, &error),
            FindingKind::InvalidExampleWrongKind,
            format!(
                "this example of {name} is marked `invalid={}` but fails with another kind: {error}",
                kind.unwrap_or_default()
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tags() {
        assert_eq!(tag("json"), None);
        assert_eq!(
            tag("json call=Sleep valid"),
            Some(("Sleep", Ok(Verdict::Valid)))
        );
        assert_eq!(
            tag("json call=ExecCommand invalid=result_field_in_input"),
            Some((
                "ExecCommand",
                Ok(Verdict::Invalid(Some("result_field_in_input")))
            ))
        );
        assert!(matches!(tag("json call=Sleep"), Some(("Sleep", Err(_)))));
        assert!(matches!(
            tag("json call=Sleep valid invalid"),
            Some(("Sleep", Err(_)))
        ));
    }
}
