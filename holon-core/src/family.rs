//! Capability families and the policies that gate them.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The capability family of a tool: what kind of power calling it hands to the model.
/// A caller's [`FamilyPolicy`] says which families it may use.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ToolCapabilityFamily {
    /// The agent's own bookkeeping: work items, tasks, waiting, timers, models, memory.
    CoreAgent,
    /// Acting on the local machine: commands, files, patches, images.
    LocalEnvironment,
    /// Widening what the agent can reach: attaching workspaces, removing worktrees.
    AuthorityExpanding,
    /// Reaching the network: fetching pages, searching.
    Web,
    /// Creating other agents.
    AgentCreation,
    /// Registering triggers that wake the agent from outside (runtime surfaces).
    ExternalTrigger,
}

impl ToolCapabilityFamily {
    /// Every family, in declaration order.
    pub const ALL: [ToolCapabilityFamily; 6] = [
        Self::CoreAgent,
        Self::LocalEnvironment,
        Self::AuthorityExpanding,
        Self::Web,
        Self::AgentCreation,
        Self::ExternalTrigger,
    ];

    /// The snake_case wire name, e.g. `core_agent`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::CoreAgent => "core_agent",
            Self::LocalEnvironment => "local_environment",
            Self::AuthorityExpanding => "authority_expanding",
            Self::Web => "web",
            Self::AgentCreation => "agent_creation",
            Self::ExternalTrigger => "external_trigger",
        }
    }

    const fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for ToolCapabilityFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a family name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown capability family `{0}`; expected one of: {valid}",
    valid = ToolCapabilityFamily::ALL.map(ToolCapabilityFamily::as_str).join(", ")
)]
pub struct UnknownFamily(pub String);

impl FromStr for ToolCapabilityFamily {
    type Err = UnknownFamily;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        Self::ALL
            .into_iter()
            .find(|family| family.as_str() == wanted)
            .ok_or_else(|| UnknownFamily(wanted.to_string()))
    }
}

/// The set of capability families a caller may use. Checked by the dispatcher before
/// any argument is parsed, so a tool outside the policy never runs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FamilyPolicy(u8);

impl FamilyPolicy {
    /// Every family.
    pub const fn all() -> Self {
        Self(0b11_1111)
    }

    /// No family at all.
    pub const fn none() -> Self {
        Self(0)
    }

    /// The profile of a private child agent: its own bookkeeping, the local
    /// environment, the web and external triggers; no authority expansion, no spawning.
    pub const fn private_child() -> Self {
        Self::none()
            .with(ToolCapabilityFamily::CoreAgent)
            .with(ToolCapabilityFamily::LocalEnvironment)
            .with(ToolCapabilityFamily::Web)
            .with(ToolCapabilityFamily::ExternalTrigger)
    }

    /// The profile of a public named agent: every family.
    pub const fn public_named() -> Self {
        Self::all()
    }

    /// This policy plus `family`.
    pub const fn with(self, family: ToolCapabilityFamily) -> Self {
        Self(self.0 | family.bit())
    }

    /// This policy without `family`.
    pub const fn without(self, family: ToolCapabilityFamily) -> Self {
        Self(self.0 & !family.bit())
    }

    /// Whether `family` is allowed.
    pub const fn allows(self, family: ToolCapabilityFamily) -> bool {
        self.0 & family.bit() != 0
    }

    /// The allowed families, in declaration order.
    pub fn families(self) -> impl Iterator<Item = ToolCapabilityFamily> {
        ToolCapabilityFamily::ALL
            .into_iter()
            .filter(move |family| self.allows(*family))
    }

    /// Parses a comma-separated list such as `core_agent,web`. `all` means every family.
    pub fn parse_list(list: &str) -> Result<Self, UnknownFamily> {
        let mut policy = Self::none();
        for item in list
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            if item == "all" {
                policy = Self::all();
            } else {
                policy = policy.with(item.parse()?);
            }
        }
        Ok(policy)
    }
}

impl FromIterator<ToolCapabilityFamily> for FamilyPolicy {
    fn from_iter<I: IntoIterator<Item = ToolCapabilityFamily>>(iter: I) -> Self {
        iter.into_iter().fold(Self::none(), Self::with)
    }
}

impl fmt::Debug for FamilyPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.families()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets() {
        let child = FamilyPolicy::private_child();
        assert!(child.allows(ToolCapabilityFamily::CoreAgent));
        assert!(child.allows(ToolCapabilityFamily::LocalEnvironment));
        assert!(child.allows(ToolCapabilityFamily::Web));
        assert!(child.allows(ToolCapabilityFamily::ExternalTrigger));
        assert!(!child.allows(ToolCapabilityFamily::AuthorityExpanding));
        assert!(!child.allows(ToolCapabilityFamily::AgentCreation));
        assert_eq!(FamilyPolicy::public_named(), FamilyPolicy::all());
        assert_eq!(FamilyPolicy::all().families().count(), 6);
    }

    #[test]
    fn parse_list_names_the_bad_family() {
        let policy = FamilyPolicy::parse_list("core_agent, web").unwrap();
        assert_eq!(policy.families().count(), 2);
        let error = FamilyPolicy::parse_list("core_agent,webb").unwrap_err();
        assert!(error.to_string().contains("`webb`"));
        assert!(error.to_string().contains("local_environment"));
    }
}
