//! Every problem of one input, in the order a model can fix them: the problems and
//! their messages, and the one error they make (schema_problems.rs finds them).
//!
//! A failed input is reported whole: unknown fields first (with the closest valid
//! name: a misspelt field is also why a required one is "missing"), then repeated
//! keys, wrong types, missing fields and the schema's other constraints, all of them
//! from the validator's full error iterator. The first problem is the error itself
//! (its top-level fields, for clients that read only those); `details.problems` lists
//! the others, up to [`MAX_LISTED_PROBLEMS`] in all, and `details.problems_omitted`
//! counts the rest, so that an input with a million problems costs the memory and the
//! answer of a few. Each thing is said once: a model pays for every token.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use crate::input::depth::MAX_INPUT_DEPTH;
use crate::input::hints::closest;
use crate::result::error::{ToolError, ToolErrorKind, cut_bytes};

mod misnamed;

/// The fixing order: a model fixes names before values, values before additions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Category {
    UnknownField,
    DuplicateField,
    WrongType,
    MissingField,
    #[cfg_attr(not(feature = "validate"), allow(dead_code))]
    Constraint,
}

impl Category {
    const COUNT: usize = 5;
}

/// One thing wrong with an input.
#[derive(Debug)]
pub(crate) struct Problem {
    pub(crate) category: Category,
    pub(crate) error: ToolError,
}

impl Problem {
    pub(crate) fn new(category: Category, error: ToolError) -> Self {
        Self { category, error }
    }
}

/// The most problems one error lists in `details.problems`; the rest are counted in
/// `details.problems_omitted`. A model fixes the first ones and sends the call again.
pub(crate) const MAX_LISTED_PROBLEMS: usize = 20;

/// The longest text (in bytes) of a listed problem's message, field or hint.
const MAX_LISTED_TEXT_BYTES: usize = 512;

/// The problems of one input, as they are found. Of each category only the first
/// [`MAX_LISTED_PROBLEMS`] are kept (enough for the first that many in fixing order);
/// the others are only counted, and never built when [`Problems::add`] is used.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    kept: Vec<Problem>,
    per_category: [usize; Category::COUNT],
    omitted: usize,
}

impl Problems {
    /// Keeps `problem`, or counts it when its category is full.
    pub(crate) fn push(&mut self, problem: Problem) {
        self.add(problem.category, || problem.error);
    }

    /// Keeps the problem `make` builds, or only counts it when `category` is full.
    pub(crate) fn add(&mut self, category: Category, make: impl FnOnce() -> ToolError) {
        let kept = &mut self.per_category[category as usize];
        if *kept < MAX_LISTED_PROBLEMS {
            *kept += 1;
            self.kept.push(Problem::new(category, make()));
        } else {
            self.omitted += 1;
        }
    }

    /// Whether no problem was found.
    pub(crate) fn is_empty(&self) -> bool {
        self.kept.is_empty() && self.omitted == 0
    }

    /// The first kept problem `at` finds.
    pub(crate) fn find_mut(
        &mut self,
        at: impl FnMut(&&mut Problem) -> bool,
    ) -> Option<&mut Problem> {
        self.kept.iter_mut().find(at)
    }
}

impl From<Vec<Problem>> for Problems {
    fn from(problems: Vec<Problem>) -> Self {
        let mut collected = Self::default();
        problems
            .into_iter()
            .for_each(|problem| collected.push(problem));
        collected
    }
}

/// One error out of `problems`, sorted into the fixing order (stable: within a
/// category, the validator's order): the first problem, with the next ones of the
/// first [`MAX_LISTED_PROBLEMS`] in `details.problems` and the rest counted in
/// `details.problems_omitted`.
pub(crate) fn combine(problems: impl Into<Problems>) -> ToolError {
    let Problems {
        kept: mut problems,
        omitted,
        ..
    } = problems.into();
    misnamed::pair_with_missing(&mut problems);
    problems.sort_by_key(|problem| problem.category);
    let omitted = omitted + problems.len().saturating_sub(MAX_LISTED_PROBLEMS);
    problems.truncate(MAX_LISTED_PROBLEMS);
    let mut problems = problems.into_iter();
    let mut first = match problems.next() {
        Some(problem) => problem.error,
        None => ToolError::invalid_input("the input does not fit the tool's schema"),
    };
    // The first problem is the error itself: it is not listed again.
    let listed: Vec<Value> = problems.map(|p| listed(&p.error)).collect();
    let count = 1 + listed.len() + omitted;
    if !listed.is_empty() || omitted > 0 {
        let mut details = match first.details.take().map(|details| *details) {
            Some(Value::Object(map)) => map,
            Some(other) => Map::from_iter([("value".to_string(), other)]),
            None => Map::new(),
        };
        details.insert("problems".to_string(), Value::Array(listed));
        if omitted > 0 {
            details.insert("problems_omitted".to_string(), json!(omitted));
        }
        first.details = Some(Box::new(Value::Object(details)));
    }
    if omitted > 0 {
        first.message = format!(
            "{} ({} more problems; details.problems lists the next {}, details.problems_omitted counts the other {omitted})",
            first.message,
            count - 1,
            MAX_LISTED_PROBLEMS - 1
        );
    } else if count > 1 {
        let more = count - 1;
        let plural = if more == 1 { "" } else { "s" };
        first.message = format!(
            "{} ({more} more problem{plural} in details.problems)",
            first.message
        );
    }
    first
}

/// The message of each problem of an error [`combine`] made, with its hint: the
/// error's own (without the count of the others), then the others it lists.
pub(crate) fn every_problem(error: &ToolError) -> Vec<(&str, Option<&str>)> {
    let others = error
        .details
        .as_deref()
        .and_then(|details| details.get("problems"))
        .and_then(Value::as_array);
    let mut first = error.message.as_str();
    if others.is_some() {
        // The count `combine` appended is the last parenthesis, which has none inside.
        first = first.rfind(" (").map_or(first, |at| &first[..at]);
    }
    let mut every = vec![(first, error.recovery_hint.as_deref())];
    every.extend(others.into_iter().flatten().map(|problem| {
        (
            problem["message"].as_str().unwrap_or_default(),
            problem.get("hint").and_then(Value::as_str),
        )
    }));
    every
}

/// `{kind, field, message, hint}` of one problem.
fn listed(error: &ToolError) -> Value {
    let text = |text: &str| json!(cut_bytes(text, MAX_LISTED_TEXT_BYTES));
    let mut entry = Map::new();
    entry.insert("kind".to_string(), json!(error.kind));
    if let Some(field) = &error.field {
        entry.insert("field".to_string(), text(field));
    }
    entry.insert("message".to_string(), text(&error.message));
    if let Some(hint) = &error.recovery_hint {
        entry.insert("hint".to_string(), text(hint));
    }
    Value::Object(entry)
}

/// A key given twice at `path`.
pub(crate) fn duplicate_field(path: &str) -> Problem {
    let path = shorten(path);
    Problem::new(
        Category::DuplicateField,
        ToolError::new(
            ToolErrorKind::DUPLICATE_FIELD,
            format!("the field `{path}` is given more than once"),
        )
        .with_field(path)
        .with_hint(
            "send it once, with the one value you mean: a repeated key is refused, not merged",
        ),
    )
}

/// A `duplicate_field` problem for each path of a repeated key.
pub(crate) fn repeated_keys(paths: &[String]) -> Problems {
    let mut problems = Problems::default();
    for path in paths {
        problems.add(Category::DuplicateField, || duplicate_field(path).error);
    }
    problems
}

/// The input is not JSON at all.
pub(crate) fn not_json(error: &serde_json::Error) -> Problem {
    let message = error.to_string();
    if message.starts_with("recursion limit exceeded") {
        return Problem::new(Category::WrongType, too_deep());
    }
    Problem::new(
        Category::WrongType,
        ToolError::invalid_input(format!(
            "the arguments are not valid JSON: {}",
            shorten(&message)
        ))
        .with_hint("send the arguments as one JSON object whose fields the tool's schema lists"),
    )
}

/// The input nests deeper than [`MAX_INPUT_DEPTH`].
pub(crate) fn too_deep() -> ToolError {
    ToolError::invalid_input(format!(
        "the input nests deeper than {MAX_INPUT_DEPTH} levels"
    ))
    .with_hint("send a flat object with the fields of the tool's schema")
}

/// Joins a parent path and a field name: `todo_list[2]` + `state`.
pub(crate) fn join_path(parent: &str, field: &str) -> String {
    if parent.is_empty() {
        field.to_string()
    } else {
        format!("{parent}.{field}")
    }
}

/// The longest input text (a field name, a value, a serde message) an error quotes
/// whole; longer ones are cut in the middle, so that an error about a huge input stays
/// small enough to show to a model.
pub(crate) const MAX_QUOTED_CHARS: usize = 200;

/// `text`, cut in the middle when it has more than [`MAX_QUOTED_CHARS`] characters.
pub(crate) fn shorten(text: &str) -> Cow<'_, str> {
    if text.char_indices().nth(MAX_QUOTED_CHARS).is_none() {
        return Cow::Borrowed(text);
    }
    let half = MAX_QUOTED_CHARS / 2;
    let head_end = text.char_indices().nth(half).map_or(0, |(i, _)| i);
    let tail_start = text
        .char_indices()
        .rev()
        .nth(half - 1)
        .map_or(0, |(i, _)| i);
    Cow::Owned(format!(
        "{}…[{} bytes omitted]…{}",
        &text[..head_end],
        tail_start - head_end,
        &text[tail_start..]
    ))
}

fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Builds an `unknown_field` error; `expected` are the valid fields at that level,
/// named once, in `details.expected` (the hint names the closest, or points there).
pub(crate) fn unknown_field(field: &str, parent: &str, expected: &[&str]) -> ToolError {
    let hint = closest(field, expected.iter().copied());
    let field = shorten(field);
    let path = join_path(parent, &field);
    let error = ToolError::new(
        ToolErrorKind::UNKNOWN_FIELD,
        format!("unknown field `{path}`"),
    )
    .with_field(path);
    if expected.is_empty() {
        return error.with_hint("remove it: no fields are accepted here");
    }
    error
        .with_details(json!({ "expected": expected }))
        .with_hint(match hint {
            Some(best) => format!("did you mean `{best}`?"),
            None => "remove it, or use one of the fields in `expected`".to_string(),
        })
}

/// A `missing_field` problem: the message says what to add.
pub(crate) fn missing_field(full: String) -> ToolError {
    ToolError::invalid_input(format!("missing required field `{full}`")).with_field(full)
}

/// Turns serde's message at `path` into a typed problem.
pub(crate) fn classify(path: &str, message: &str) -> Problem {
    let names = backticked(message);
    if message.starts_with("unknown field")
        && let Some((field, expected)) = names.split_first()
    {
        // A path may end with the unknown field itself, or stop at its parent.
        let parent = path
            .strip_suffix(field)
            .map(|p| p.trim_end_matches('.'))
            .unwrap_or(path);
        return Problem::new(
            Category::UnknownField,
            unknown_field(field, parent, expected),
        );
    }
    if message.starts_with("missing field")
        && let Some(field) = names.first()
    {
        return Problem::new(
            Category::MissingField,
            missing_field(join_path(path, field)),
        );
    }
    if message.starts_with("duplicate field")
        && let Some(field) = names.first()
    {
        return duplicate_field(&join_path(path, field));
    }
    if message.starts_with("unknown variant")
        && let Some((value, expected)) = names.split_first()
    {
        let hint = closest(value, expected.iter().copied());
        let value = shorten(value);
        let error = ToolError::invalid_input(format!(
            "`{path}` has the value `{value}`, which is not one of `expected`"
        ))
        .with_field(path)
        .with_details(json!({ "expected": expected }));
        let error = match hint {
            Some(best) => error.with_hint(format!("did you mean `{best}`?")),
            None => error,
        };
        return Problem::new(Category::WrongType, error);
    }
    let subject = if path.is_empty() {
        "the input".to_string()
    } else {
        format!("`{path}`")
    };
    // serde quotes the offending value (`invalid type: string "...", expected u32`).
    let message = shorten(message);
    let mut error = ToolError::invalid_input(format!("{subject}: {message}"));
    if !path.is_empty() {
        error = error.with_field(path);
    }
    Problem::new(Category::WrongType, error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortens_huge_quotes_in_the_middle() {
        assert_eq!(shorten("short"), "short");
        let exact = "é".repeat(MAX_QUOTED_CHARS);
        assert_eq!(shorten(&exact), exact);

        let huge = format!(
            "{}{}{}",
            "a".repeat(150),
            "é".repeat(1_000_000),
            "z".repeat(150)
        );
        let short = shorten(&huge);
        assert!(
            short.starts_with(&"a".repeat(MAX_QUOTED_CHARS / 2)),
            "{short}"
        );
        assert!(
            short.ends_with(&"z".repeat(MAX_QUOTED_CHARS / 2)),
            "{short}"
        );
        assert!(short.contains("bytes omitted"), "{short}");
        assert!(short.chars().count() < MAX_QUOTED_CHARS + 40, "{short}");

        // No string distance is computed for a huge name.
        assert_eq!(closest(&huge, ["a"]), None);
        let error = unknown_field(&huge, "items[0]", &["name"]);
        assert!(error.message.len() < 2 * MAX_QUOTED_CHARS + 100);
        assert!(
            error
                .field
                .is_some_and(|field| field.starts_with("items[0].aaa"))
        );
    }

    #[test]
    fn classifies_serde_messages() {
        let problem = classify(
            "todo_list[2].state",
            "unknown variant `don`, expected one of `pending`, `done`",
        );
        assert_eq!(problem.category, Category::WrongType);
        let error = problem.error;
        assert_eq!(error.kind, ToolErrorKind::INVALID_TOOL_INPUT);
        assert_eq!(error.field.as_deref(), Some("todo_list[2].state"));
        assert_eq!(error.recovery_hint.as_deref(), Some("did you mean `done`?"));

        let problem = classify("items[0]", "missing field `cmd`");
        assert_eq!(problem.category, Category::MissingField);
        assert_eq!(problem.error.field.as_deref(), Some("items[0].cmd"));

        for path in ["reasn", ""] {
            let problem = classify(
                path,
                "unknown field `reasn`, expected one of `reason`, `wake`",
            );
            assert_eq!(problem.category, Category::UnknownField);
            let error = problem.error;
            assert_eq!(error.kind, ToolErrorKind::UNKNOWN_FIELD);
            assert_eq!(error.field.as_deref(), Some("reasn"));
            assert_eq!(
                error.recovery_hint.as_deref(),
                Some("did you mean `reason`?")
            );
        }

        let problem = classify("items[1]", "duplicate field `name`");
        assert_eq!(problem.category, Category::DuplicateField);
        assert_eq!(problem.error.kind, ToolErrorKind::DUPLICATE_FIELD);
        assert_eq!(problem.error.field.as_deref(), Some("items[1].name"));
    }

    #[test]
    fn combines_in_fixing_order_with_the_first_on_top() {
        let problems = vec![
            Problem::new(Category::MissingField, missing_field("days".into())),
            Problem::new(
                Category::UnknownField,
                unknown_field("day", "", &["city", "days"]),
            ),
        ];
        let error = combine(problems);
        assert_eq!(error.kind, ToolErrorKind::UNKNOWN_FIELD);
        assert_eq!(error.field.as_deref(), Some("day"));
        assert_eq!(error.recovery_hint.as_deref(), Some("did you mean `days`?"));
        assert!(
            error
                .message
                .ends_with("(1 more problem in details.problems)")
        );
        // The first problem is the error itself; only the others are listed.
        assert_eq!(
            error.details.as_deref(),
            Some(&json!({
                "expected": ["city", "days"],
                "problems": [
                    {"kind": "invalid_tool_input", "field": "days", "message": "missing required field `days`"},
                ],
            }))
        );

        // A lone problem lists nothing.
        let error = combine(vec![Problem::new(
            Category::MissingField,
            missing_field("days".into()),
        )]);
        assert_eq!(error.message, "missing required field `days`");
        assert_eq!(error.details, None);
    }
}
