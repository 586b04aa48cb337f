//! The approval policy of `call`, `session`, `respond` and `serve`: `--policy FILE`
//! (or `HOLON_POLICY`), `builtin` for the built-in one, `none` for none; without the
//! option, `STATE_DIR/policy.toml` when it exists, else none.

use std::path::Path;

use holon_core::policy::ApprovalPolicy;
use holon_core::{Registry, closest};

/// The file name of the policy in the state directory, read when `--policy` is not
/// given.
pub const POLICY_FILE_NAME: &str = "policy.toml";

/// The built-in policy's text: ask before authority-expanding and agent-creating tools
/// and before commands.
pub const DEFAULT_POLICY_TOML: &str = include_str!("../default-policy.toml");

/// The built-in policy (see [`DEFAULT_POLICY_TOML`]).
pub fn default_policy() -> ApprovalPolicy {
    // Checked by a test: the file parses.
    toml::from_str(DEFAULT_POLICY_TOML).unwrap_or_default()
}

/// The policy `choice` names (the value of `--policy`), or the state directory's
/// `policy.toml`; `None` for no policy. An error says which file and what is wrong.
pub fn load(
    registry: &Registry,
    choice: Option<&str>,
    state_dir: Option<&Path>,
) -> Result<Option<ApprovalPolicy>, String> {
    let path = match choice {
        Some("none") => return Ok(None),
        Some("builtin") => return Ok(Some(default_policy())),
        Some(path) => Path::new(path).to_path_buf(),
        None => match state_dir
            .and_then(|dir| holon_runtime::state_dir::config_file(dir, POLICY_FILE_NAME))
        {
            Some(path) => path,
            None => return Ok(None),
        },
    };
    let text = holon_runtime::state_dir::read_config(&path)
        .map_err(|error| format!("cannot read the policy {}: {error}", path.display()))?;
    parse(registry, &text).map(Some).map_err(|error| {
        format!(
            "the policy {} is not valid: {error}; docs/approvals.md describes the format",
            path.display()
        )
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
