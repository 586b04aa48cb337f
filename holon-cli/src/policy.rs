//! The approval policy of `call`, `session`, `respond` and `serve`: `--policy FILE`
//! (or `HOLON_POLICY`), `builtin` for the built-in one, `none` for none; without the
//! option, `STATE_DIR/policy.toml` when it exists, else the command's default: the
//! built-in policy where a model chooses the calls (`serve`, `respond`, a `session`
//! not at a terminal), none where the operator does (`call`, a `session` at a terminal).

use std::path::Path;

use holon_core::{Registry, closest};
use holon_policy::ApprovalPolicy;

/// The file name of the policy in the state directory, read when `--policy` is not
/// given.
pub const POLICY_FILE_NAME: &str = "policy.toml";

/// The built-in policy's text: ask before authority-expanding and agent-creating tools
/// and before commands.
pub const DEFAULT_POLICY_TOML: &str = include_str!("default-policy.toml");

/// The built-in policy (see [`DEFAULT_POLICY_TOML`]).
pub fn default_policy() -> ApprovalPolicy {
    // Checked by a test: the file parses.
    toml::from_str(DEFAULT_POLICY_TOML).unwrap_or_default()
}

/// The policy that applies when neither `--policy` nor the state directory names one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// No policy: every call the family gate admits runs.
    None,
    /// The built-in policy (see [`DEFAULT_POLICY_TOML`]).
    Builtin,
}

/// A policy and where it came from.
#[derive(Debug)]
pub struct Loaded {
    /// The policy, `None` for none.
    pub policy: Option<ApprovalPolicy>,
    /// What it is and where it came from, for the operator: `builtin (the default ...)`,
    /// `none (--policy none)`, `PATH (the state directory's)`...
    pub source: String,
}

/// The policy `choice` names (the value of `--policy`), or the state directory's
/// `policy.toml`, or `fallback`. An error says which file and what is wrong.
pub fn load(
    registry: &Registry,
    choice: Option<&str>,
    state_dir: Option<&Path>,
    fallback: Fallback,
) -> Result<Loaded, String> {
    let (path, named) = match choice {
        Some("none") => {
            return Ok(Loaded {
                policy: None,
                source: "none (--policy none): every call runs without asking".to_string(),
            });
        }
        Some("builtin") => {
            return Ok(Loaded {
                policy: Some(default_policy()),
                source: "builtin (--policy builtin)".to_string(),
            });
        }
        Some(path) => (Path::new(path).to_path_buf(), "--policy"),
        None => match state_dir
            .and_then(|dir| holon_runtime::state_dir::config_file(dir, POLICY_FILE_NAME))
        {
            Some(path) => (path, "the state directory's"),
            None => {
                return Ok(match fallback {
                    Fallback::None => Loaded {
                        policy: None,
                        source: "none (the default of this command)".to_string(),
                    },
                    Fallback::Builtin => Loaded {
                        policy: Some(default_policy()),
                        source: format!(
                            "builtin (the default: no --policy and no {POLICY_FILE_NAME} in the state directory; --policy none turns it off)"
                        ),
                    },
                });
            }
        },
    };
    let text = holon_runtime::state_dir::read_config(&path)
        .map_err(|error| format!("cannot read the policy {}: {error}", path.display()))?;
    let policy = parse(registry, &text).map_err(|error| {
        format!(
            "the policy {} is not valid: {error}; docs/approvals.md describes the format",
            path.display()
        )
    })?;
    Ok(Loaded {
        policy: Some(policy),
        source: format!("{} ({named})", path.display()),
    })
}

/// Parses a policy's TOML and checks that each tool it names is one.
pub fn parse(registry: &Registry, text: &str) -> Result<ApprovalPolicy, String> {
    let policy: ApprovalPolicy = toml::from_str(text).map_err(|error| error.to_string())?;
    for (at, rule) in policy.rules.iter().enumerate() {
        if let Some(tool) = &rule.tool
            && registry
                .get(tool)
                .is_none_or(|found| *found.spec.name != **tool)
        {
            let names = registry.definitions().map(|d| &*d.spec.name);
            let hint = closest(tool, names)
                .map(|best| format!("; did you mean `{best}`?"))
                .unwrap_or_default();
            return Err(format!(
                "rule {} names the tool `{tool}`, which is not a tool's name{hint}",
                at + 1
            ));
        }
    }
    Ok(policy)
}
