//! The environment of a command: the operator's variables minus the credentials the
//! runtime reads. A command of the model could otherwise print them (`env`).

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};

/// The variables hidden from commands: exact names, and name patterns given as a
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

    /// The variables of `vars` commands may see.
    pub fn filter(
        &self,
        vars: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Vec<(OsString, OsString)> {
        vars.into_iter()
            .filter(|(name, _)| !self.hides(name))
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
        let kept = hidden.filter([
            (OsString::from("PATH"), OsString::from("/bin")),
            (
                OsString::from("HOLON_XAI_API_KEY"),
                OsString::from("secret"),
            ),
        ]);
        assert_eq!(kept, vec![(OsString::from("PATH"), OsString::from("/bin"))]);
    }
}
