//! A tool's input examples, checked when the registry is built: each must fit the
//! input schema (every violation is reported) and parse into the argument type, as a
//! call would. An example that fails is a registry problem naming the tool, the
//! example's number and everything wrong with it.

use serde_json::Value;

use crate::dispatch::check_prepared_input;
use crate::input::problems::every_problem;
use crate::registry::Entry;
use crate::result::error::ToolError;
use crate::schema_problems::report;

/// The examples of `entry`'s tool, in the order given, or one problem sentence per
/// failing example.
pub(crate) fn checked_examples(entry: &Entry) -> Result<Vec<Value>, Vec<String>> {
    let name = &entry.definition.spec.name;
    let site = entry.definition.defined_at;
    let mut examples = Vec::new();
    let mut problems = Vec::new();
    for source in entry.tool.input_examples() {
        match serde_json::from_str::<Value>(source) {
            Ok(Value::Array(items)) => examples.extend(items),
            Ok(example) => examples.push(example),
            Err(error) => problems.push(format!(
                "tool `{name}` at {site}: an input example is not valid JSON: {error}"
            )),
        }
    }
    for (index, example) in examples.iter().enumerate() {
        if let Err(error) = check_example(entry, example.clone()) {
            problems.push(format!(
                "tool `{name}` at {site}: input example {} is not a valid call: {}",
                index + 1,
                listed_problems(&error)
            ));
        }
    }
    if problems.is_empty() {
        Ok(examples)
    } else {
        Err(problems)
    }
}

/// The whole input schema, then everything a call checks before its handler runs.
fn check_example(entry: &Entry, example: Value) -> Result<(), ToolError> {
    if let Some(validator) = entry.full_validator()
        && !validator.is_valid(&example)
    {
        return Err(report(entry, &example, Vec::new(), None));
    }
    check_prepared_input(entry, example)
}

/// Every problem of an input error, one after the other.
fn listed_problems(error: &ToolError) -> String {
    every_problem(error)
        .into_iter()
        .map(|(message, hint)| match hint {
            Some(hint) => format!("{message} ({hint})"),
            None => message.to_string(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}
