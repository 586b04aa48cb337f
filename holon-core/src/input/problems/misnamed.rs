//! A field named by its meaning rather than its name (`commands` for `items`,
//! `task_handle` for `task_id`) is no typo, so "did you mean" finds nothing; but when it
//! is the only unknown field of an object that lacks exactly one required field, that
//! field is almost surely the one meant.

use crate::input::problems::{Category, Problem};
use crate::result::error::ToolErrorKind;

/// Gives an unknown field without a close name the hint of the one missing field at
/// the same level, when there is exactly one of each there.
pub(crate) fn pair_with_missing(problems: &mut [Problem]) {
    let unknown: Vec<usize> = indices(problems, Category::UnknownField);
    let missing: Vec<usize> = indices(problems, Category::MissingField);
    for &at in &unknown {
        let Some(field) = problems[at].error.field.clone() else {
            continue;
        };
        let parent = parent_of(&field);
        let level = |index: &usize| {
            problems[*index]
                .error
                .field
                .as_deref()
                .is_some_and(|path| parent_of(path) == parent)
        };
        let unknown_here = unknown.iter().filter(|index| level(index)).count();
        let mut missing_here = missing.iter().filter(|index| level(index));
        let (Some(&only), None) = (missing_here.next(), missing_here.next()) else {
            continue;
        };
        let error = &problems[at].error;
        let has_close_name = error
            .recovery_hint
            .as_deref()
            .is_some_and(|hint| hint.starts_with("did you mean"));
        if unknown_here != 1 || has_close_name || error.kind != ToolErrorKind::UNKNOWN_FIELD {
            continue;
        }
        let Some(wanted) = problems[only].error.field.as_deref() else {
            continue;
        };
        let name = wanted.rsplit_once('.').map_or(wanted, |(_, name)| name);
        problems[at].error.recovery_hint = Some(format!(
            "did you mean `{name}`? It is the one required field missing here: rename `{}` to `{name}`",
            leaf(&field)
        ));
    }
}

fn indices(problems: &[Problem], category: Category) -> Vec<usize> {
    (0..problems.len())
        .filter(|index| problems[*index].category == category)
        .collect()
}

/// `todo_list[2]` of `todo_list[2].state`; empty at the top level.
fn parent_of(path: &str) -> &str {
    path.rsplit_once('.').map_or("", |(parent, _)| parent)
}

fn leaf(path: &str) -> &str {
    path.rsplit_once('.').map_or(path, |(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::problems::{missing_field, unknown_field};

    fn unknown(field: &str, parent: &str, expected: &[&str]) -> Problem {
        Problem::new(
            Category::UnknownField,
            unknown_field(field, parent, expected),
        )
    }

    fn missing(path: &str) -> Problem {
        Problem::new(Category::MissingField, missing_field(path.to_string()))
    }

    fn hint(problem: &Problem) -> &str {
        problem.error.recovery_hint.as_deref().unwrap_or_default()
    }

    #[test]
    fn the_one_unknown_field_is_the_one_missing_field() {
        let mut problems = vec![
            unknown("commands", "", &["items", "shell"]),
            missing("items"),
        ];
        pair_with_missing(&mut problems);
        assert!(
            hint(&problems[0]).starts_with("did you mean `items`?"),
            "{}",
            hint(&problems[0])
        );
    }

    #[test]
    fn pairs_only_at_the_same_level_and_only_one_to_one() {
        let mut nested = vec![unknown("what", "plan", &["steps"]), missing("items")];
        pair_with_missing(&mut nested);
        assert!(
            hint(&nested[0]).starts_with("remove it"),
            "{}",
            hint(&nested[0])
        );

        let mut two = vec![unknown("a", "", &["x", "y"]), missing("x"), missing("y")];
        pair_with_missing(&mut two);
        assert!(hint(&two[0]).starts_with("remove it"), "{}", hint(&two[0]));

        // A close name stays the suggestion.
        let mut typo = vec![unknown("itemz", "", &["items"]), missing("items")];
        pair_with_missing(&mut typo);
        assert_eq!(hint(&typo[0]), "did you mean `items`?");
    }
}
