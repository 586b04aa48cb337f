//! Name rules shared by both macros: tool names and serde's field renaming.

/// `wait_for` -> `WaitFor`.
pub(crate) fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// Whether `name` matches `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`, the tool-name pattern that
/// OpenAI, Anthropic, Gemini and MCP all accept.
pub(crate) fn is_portable_tool_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match bytes.split_first() {
        Some((first, rest)) => {
            (first.is_ascii_alphabetic() || *first == b'_')
                && rest.len() <= 63
                && rest
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
        }
        None => false,
    }
}

/// Applies a serde `rename_all` rule to a Rust field name (which is snake_case).
/// Returns `None` for a rule serde does not know.
pub(crate) fn apply_rename_all(rule: &str, field: &str) -> Option<String> {
    let words: Vec<&str> = field.split('_').filter(|w| !w.is_empty()).collect();
    let capitalize = |w: &str| {
        let mut chars = w.chars();
        chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect::<String>())
            .unwrap_or_default()
    };
    Some(match rule {
        "lowercase" => field.to_lowercase(),
        "UPPERCASE" => field.to_uppercase(),
        "snake_case" => field.to_string(),
        "SCREAMING_SNAKE_CASE" => field.to_uppercase(),
        "kebab-case" => field.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => field.replace('_', "-").to_uppercase(),
        "PascalCase" => words.iter().map(|w| capitalize(w)).collect(),
        "camelCase" => {
            let pascal: String = words.iter().map(|w| capitalize(w)).collect();
            let mut chars = pascal.chars();
            chars
                .next()
                .map(|c| c.to_lowercase().chain(chars).collect())
                .unwrap_or_default()
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pascal_case_of_snake_names() {
        assert_eq!(pascal_case("wait_for"), "WaitFor");
        assert_eq!(pascal_case("sleep"), "Sleep");
        assert_eq!(pascal_case("list_model_providers"), "ListModelProviders");
        assert_eq!(pascal_case("_private_tool"), "PrivateTool");
    }

    #[test]
    fn portable_names() {
        assert!(is_portable_tool_name("WaitFor"));
        assert!(is_portable_tool_name("_x-1"));
        assert!(!is_portable_tool_name(""));
        assert!(!is_portable_tool_name("1abc"));
        assert!(!is_portable_tool_name("has space"));
        assert!(!is_portable_tool_name("dotted.name"));
        assert!(is_portable_tool_name(&"a".repeat(64)));
        assert!(!is_portable_tool_name(&"a".repeat(65)));
    }

    #[test]
    fn rename_all_rules() {
        assert_eq!(
            apply_rename_all("camelCase", "todo_list").as_deref(),
            Some("todoList")
        );
        assert_eq!(
            apply_rename_all("PascalCase", "todo_list").as_deref(),
            Some("TodoList")
        );
        assert_eq!(
            apply_rename_all("kebab-case", "todo_list").as_deref(),
            Some("todo-list")
        );
        assert_eq!(apply_rename_all("nope", "x"), None);
    }
}
