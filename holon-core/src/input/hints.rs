//! "Did you mean ...?": the closest valid name to a misspelt one.

/// Names longer than this are not typos of a tool or field name; comparing them would
/// only cost time.
const MAX_COMPARED_LEN: usize = 200;

/// The candidate closest to `wanted`, if any is close enough to be a likely typo.
pub fn closest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    if wanted.len() > MAX_COMPARED_LEN {
        return None;
    }
    let wanted_lower = wanted.to_ascii_lowercase();
    let mut best: Option<(&'a str, f64)> = None;
    for candidate in candidates {
        let lower = candidate.to_ascii_lowercase();
        let mut score = strsim::jaro_winkler(&wanted_lower, &lower).max(
            strsim::normalized_damerau_levenshtein(&wanted_lower, &lower),
        );
        if lower == wanted_lower {
            score = 2.0;
        } else if lower.len() >= 3
            && wanted_lower.len() >= 3
            && (lower.contains(&wanted_lower) || wanted_lower.contains(&lower))
        {
            score = score.max(0.9);
        }
        if score >= 0.8 && best.is_none_or(|(_, best_score)| score > best_score) {
            best = Some((candidate, score));
        }
    }
    best.map(|(candidate, _)| candidate)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn finds_typos_and_case_slips() {
        let names = ["WaitFor", "Sleep", "ListTasks", "ExecCommand"];
        assert_eq!(closest("WaitFr", names), Some("WaitFor"));
        assert_eq!(closest("waitfor", names), Some("WaitFor"));
        assert_eq!(closest("list_tasks", names), Some("ListTasks"));
        assert_eq!(closest("Exec", names), Some("ExecCommand"));
        assert_eq!(closest("Zebra", names), None);
    }

    #[test]
    fn field_typos() {
        let fields = ["reason", "wake", "delivery", "resource"];
        assert_eq!(closest("reasn", fields), Some("reason"));
        assert_eq!(closest("delivry", fields), Some("delivery"));
    }
}
