//! The environment of a command: only the variables on an allow-list (the locale,
//! the terminal, the user's identity and paths, plus what the operator names), and
//! never a credential the runtime reads. A command of the model could otherwise print
//! every token of the operator's shell (`env`).

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};

/// The variables commands get by default: what programs need to find things, speak
/// the user's language and draw on the terminal, and nothing that carries a secret.
pub const DEFAULT_ALLOWED_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "TZ",
    "TMPDIR",
    "EDITOR",
    "VISUAL",
    "PAGER",
];

/// The variables commands may see: exact names and name prefixes (`LC_*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedEnv {
    names: BTreeSet<String>,
    prefixes: BTreeSet<String>,
}

impl Default for AllowedEnv {
    /// [`DEFAULT_ALLOWED_ENV`].
    fn default() -> Self {
        let mut allowed = Self::none();
        for entry in DEFAULT_ALLOWED_ENV {
            allowed.allow(*entry);
        }
        allowed
    }
}

impl AllowedEnv {
    /// An empty list: commands see no variable.
    pub fn none() -> Self {
        Self {
            names: BTreeSet::new(),
            prefixes: BTreeSet::new(),
        }
    }

    /// Allows `entry`: a variable name, or a prefix ending in `*` (`LC_*`).
    pub fn allow(&mut self, entry: impl Into<String>) -> &mut Self {
        let entry = entry.into();
        match entry.strip_suffix('*') {
            Some(prefix) => self.prefixes.insert(prefix.to_string()),
            None => self.names.insert(entry),
        };
        self
    }

    /// Whether commands may see the variable `name`.
    pub fn allows(&self, name: &OsStr) -> bool {
        let Some(name) = name.to_str() else {
            return false;
        };
        self.names.contains(name)
            || self
                .prefixes
                .iter()
                .any(|prefix| name.starts_with(prefix.as_str()))
    }

    /// The entries, names then prefixes (with their `*`), for reports.
    pub fn entries(&self) -> Vec<String> {
        self.names
            .iter()
            .cloned()
            .chain(self.prefixes.iter().map(|prefix| format!("{prefix}*")))
            .collect()
    }
}

/// A list of variable names that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the command environment list `{text}` cannot be read: `{entry}` is not a variable name; write a comma-separated list of names (letters, digits, `_`), a name may end in `*` to allow every variable it starts, e.g. `GITHUB_TOKEN,CARGO_*`"
)]
pub struct AllowedEnvError {
    /// The list as given.
    pub text: String,
    /// The entry that is not a name.
    pub entry: String,
}

/// The names of `text`, a comma-separated list such as `CARGO_*,RUST_LOG`.
pub fn parse_env_names(text: &str) -> Result<Vec<String>, AllowedEnvError> {
    text.split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(|entry| {
            let name = entry.strip_suffix('*').unwrap_or(entry);
            let valid = !name.is_empty()
                && name
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_');
            if valid {
                Ok(entry.to_string())
            } else {
                Err(AllowedEnvError {
                    text: text.to_string(),
                    entry: entry.to_string(),
                })
            }
        })
        .collect()
}

/// The variables hidden from commands whatever the allow-list says: the credentials
/// the runtime reads. Exact names, and name patterns given as a
/// prefix and a suffix (`HOLON_` … `_API_KEY`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HiddenEnv {
    names: BTreeSet<String>,
    patterns: Vec<(String, String)>,
}

impl HiddenEnv {
    /// Hides the variable `name`.
    pub fn hide(&mut self, name: impl Into<String>) -> &mut Self {
        self.names.insert(name.into());
        self
    }

    /// Hides every variable whose name starts with `prefix` and ends with `suffix`
    /// (the two may not overlap).
    pub fn hide_pattern(
        &mut self,
        prefix: impl Into<String>,
        suffix: impl Into<String>,
    ) -> &mut Self {
        self.patterns.push((prefix.into(), suffix.into()));
        self
    }

    /// Whether commands never see the variable `name`.
    pub fn hides(&self, name: &OsStr) -> bool {
        let Some(name) = name.to_str() else {
            return false;
        };
        self.names.contains(name)
            || self.patterns.iter().any(|(prefix, suffix)| {
                name.len() >= prefix.len() + suffix.len()
                    && name.starts_with(prefix.as_str())
                    && name.ends_with(suffix.as_str())
            })
    }

    /// The variables of `vars` that `allowed` lets through and this does not hide.
    pub fn filter(
        &self,
        allowed: &AllowedEnv,
        vars: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Vec<(OsString, OsString)> {
        vars.into_iter()
            .filter(|(name, _)| allowed.allows(name) && !self.hides(name))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hides_names_and_patterns_and_keeps_the_rest() {
        let mut hidden = HiddenEnv::default();
        hidden
            .hide("OPENAI_API_KEY")
            .hide_pattern("HOLON_", "_API_KEY");
        for name in [
            "OPENAI_API_KEY",
            "HOLON_XAI_API_KEY",
            "HOLON_IMAGE_API_KEY",
            "HOLON__API_KEY",
        ] {
            assert!(hidden.hides(OsStr::new(name)), "{name}");
        }
        for name in [
            "PATH",
            "HOLON_API_KEY",
            "HOLON_XAI_API_BASE",
            "OPENAI_API_KEY2",
            "XHOLON_A_API_KEY",
        ] {
            assert!(!hidden.hides(OsStr::new(name)), "{name}");
        }
        let mut allowed = AllowedEnv::default();
        allowed.allow("HOLON_XAI_API_KEY");
        let kept = hidden.filter(
            &allowed,
            [
                (OsString::from("PATH"), OsString::from("/bin")),
                (
                    OsString::from("HOLON_XAI_API_KEY"),
                    OsString::from("secret"),
                ),
            ],
        );
        assert_eq!(kept, vec![(OsString::from("PATH"), OsString::from("/bin"))]);
    }

    #[test]
    fn lets_through_only_what_is_on_the_list() {
        let mut allowed = AllowedEnv::default();
        for name in ["PATH", "LC_ALL", "LC_CTYPE", "HOME", "TERM"] {
            assert!(allowed.allows(OsStr::new(name)), "{name}");
        }
        for name in [
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "HOLON_SEARCH_URL",
            "LD_PRELOAD",
        ] {
            assert!(!allowed.allows(OsStr::new(name)), "{name}");
        }
        allowed.allow("GITHUB_TOKEN").allow("CARGO_*");
        assert!(allowed.allows(OsStr::new("GITHUB_TOKEN")));
        assert!(allowed.allows(OsStr::new("CARGO_HOME")));
        assert!(allowed.entries().contains(&"CARGO_*".to_string()));
    }

    #[test]
    fn a_names_list_reads_back_and_refuses_what_is_not_a_name() {
        assert_eq!(
            parse_env_names(" GITHUB_TOKEN, CARGO_*,").unwrap(),
            ["GITHUB_TOKEN", "CARGO_*"]
        );
        for bad in ["A=B", "*", "PATH,my var", "X*Y"] {
            let error = parse_env_names(bad).unwrap_err();
            assert!(
                error.to_string().contains("GITHUB_TOKEN,CARGO_*"),
                "{error}"
            );
        }
    }
}
