//! Which capability families an OAuth scope grants: a token's scopes become the
//! families the dispatcher's family gate lets its calls use.

use std::fmt;

use holon_core::{FamilyPolicy, ToolCapabilityFamily};

use crate::ConfigError;

/// The prefix of the default scope names: `tools:<family>`, e.g. `tools:web`.
pub const DEFAULT_SCOPE_PREFIX: &str = "tools:";

/// A map from OAuth scopes to the capability families each grants. A token is granted
/// the union of the families of the scopes it holds; scopes not in the map grant nothing.
#[derive(Clone, PartialEq, Eq)]
pub struct ScopeMap {
    entries: Vec<(String, FamilyPolicy)>,
}

impl Default for ScopeMap {
    /// One scope a family, `tools:<family>` (e.g. `tools:core_agent`, `tools:web`).
    fn default() -> Self {
        Self {
            entries: ToolCapabilityFamily::ALL
                .into_iter()
                .map(|family| {
                    let scope = format!("{DEFAULT_SCOPE_PREFIX}{}", family.as_str());
                    (scope, FamilyPolicy::none().with(family))
                })
                .collect(),
        }
    }
}

impl fmt::Debug for ScopeMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                self.entries
                    .iter()
                    .map(|(scope, families)| (scope, families)),
            )
            .finish()
    }
}

impl ScopeMap {
    /// A map with no scope: a token is granted no family until [`Self::with`] adds one.
    pub fn empty() -> Self {
        Self {
            entries: Vec::new(),
        }
    }

    /// This map plus `scope`, granting `families` (replacing what it granted before).
    /// The scope must be an RFC 6749 scope token: printable ASCII, no space, `"` or `\`.
    pub fn with(mut self, scope: &str, families: FamilyPolicy) -> Result<Self, ConfigError> {
        check_scope_token(scope)?;
        self.entries.retain(|(own, _)| own != scope);
        self.entries.push((scope.to_string(), families));
        Ok(self)
    }

    /// Parses `SCOPE=FAMILY[,FAMILY...]` (a family's snake_case name, or `all`) into
    /// this map, as [`Self::with`] adds it.
    pub fn with_entry(self, entry: &str) -> Result<Self, ConfigError> {
        let Some((scope, families)) = entry.split_once('=') else {
            return Err(ConfigError::NotAScopeMapping(entry.to_string()));
        };
        let families =
            FamilyPolicy::parse_list(families).map_err(|source| ConfigError::ScopeFamilies {
                entry: entry.to_string(),
                source,
            })?;
        self.with(scope.trim(), families)
            .map_err(|source| ConfigError::ScopeMapping {
                entry: entry.to_string(),
                source: Box::new(source),
            })
    }

    /// The families `scopes` grant together.
    pub fn granted<'s>(&self, scopes: impl IntoIterator<Item = &'s str>) -> FamilyPolicy {
        let mut granted = FamilyPolicy::none();
        for scope in scopes {
            if let Some((_, families)) = self.entries.iter().find(|(own, _)| own == scope) {
                granted = families.families().fold(granted, FamilyPolicy::with);
            }
        }
        granted
    }

    /// The scope to ask for to use `family`: of those that grant it, the one that
    /// grants the fewest other families (the first such when several tie).
    pub fn scope_for(&self, family: ToolCapabilityFamily) -> Option<&str> {
        self.entries
            .iter()
            .filter(|(_, families)| families.allows(family))
            .min_by_key(|(_, families)| families.families().count())
            .map(|(scope, _)| scope.as_str())
    }

    /// Every scope of the map, in the order they were added.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(scope, _)| scope.as_str())
    }

    /// Whether the map knows `scope`.
    pub fn contains(&self, scope: &str) -> bool {
        self.scopes().any(|own| own == scope)
    }
}

/// `Ok` when `scope` is an RFC 6749 scope token (%x21 / %x23-5B / %x5D-7E), which a
/// quoted `WWW-Authenticate` parameter carries as it is.
pub(crate) fn check_scope_token(scope: &str) -> Result<(), ConfigError> {
    if scope.is_empty() {
        return Err(ConfigError::EmptyScope);
    }
    match scope
        .chars()
        .find(|c| !matches!(c, '\x21' | '\x23'..='\x5b' | '\x5d'..='\x7e'))
    {
        Some(character) => Err(ConfigError::ScopeCharacter {
            scope: scope.to_string(),
            character,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ToolCapabilityFamily::{CoreAgent, LocalEnvironment, Web};

    #[test]
    fn the_default_map_grants_one_family_a_scope() {
        let map = ScopeMap::default();
        let granted = map.granted(["tools:web", "tools:core_agent", "email"]);
        assert_eq!(granted, FamilyPolicy::none().with(Web).with(CoreAgent));
        assert_eq!(
            map.scope_for(LocalEnvironment),
            Some("tools:local_environment")
        );
        assert_eq!(map.scopes().count(), ToolCapabilityFamily::ALL.len());
    }

    #[test]
    fn a_configured_map_names_the_narrowest_scope_for_a_family() {
        let map = ScopeMap::empty()
            .with_entry("admin=all")
            .unwrap()
            .with_entry("mcp:read = core_agent, web")
            .unwrap()
            .with_entry("mcp:web=web")
            .unwrap();
        assert_eq!(map.scope_for(Web), Some("mcp:web"));
        assert_eq!(map.scope_for(CoreAgent), Some("mcp:read"));
        assert_eq!(map.scope_for(LocalEnvironment), Some("admin"));
        assert_eq!(map.granted(["admin"]), FamilyPolicy::all());
        assert_eq!(map.granted(["tools:web"]), FamilyPolicy::none());
    }

    #[test]
    fn a_bad_mapping_says_what_is_wrong() {
        for (entry, why) in [
            ("mcp:read", "SCOPE=FAMILY"),
            ("mcp:read=webs", "unknown capability family"),
            ("has space=web", "character"),
            ("quote\"=web", "character"),
            ("=web", "empty"),
        ] {
            let error = ScopeMap::empty().with_entry(entry).unwrap_err().to_string();
            assert!(error.contains(why), "{entry}: {error}");
        }
    }

    #[test]
    fn a_bad_mapping_is_an_error_a_host_can_match() {
        let error = ScopeMap::empty().with_entry("=web").unwrap_err();
        let ConfigError::ScopeMapping { entry, source } = error else {
            panic!("{error:?}");
        };
        assert_eq!(entry, "=web");
        assert_eq!(*source, ConfigError::EmptyScope);
        assert!(matches!(
            ScopeMap::empty().with_entry("mcp:read=webs"),
            Err(ConfigError::ScopeFamilies { .. })
        ));
    }
}
