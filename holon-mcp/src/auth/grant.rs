//! The families a request's credential grants, handed from the HTTP gate to the
//! call's context, where they narrow the server's family policy.

use holon_core::FamilyPolicy;

/// The capability families an access token's scopes grant. The gate puts it into
/// the request's extensions; each call's context allows only the families both the
/// server's policy and this grant allow, so the dispatcher's family gate refuses the
/// rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GrantedFamilies(pub(crate) FamilyPolicy);

impl GrantedFamilies {
    /// The families of `policy` this grant also allows.
    pub(crate) fn narrow(self, policy: FamilyPolicy) -> FamilyPolicy {
        policy
            .families()
            .filter(|family| self.0.allows(*family))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use holon_core::ToolCapabilityFamily::{CoreAgent, Web};

    #[test]
    fn a_grant_narrows_and_never_widens() {
        let grant = GrantedFamilies(FamilyPolicy::none().with(Web).with(CoreAgent));
        assert_eq!(
            grant.narrow(FamilyPolicy::none().with(Web)),
            FamilyPolicy::none().with(Web)
        );
        assert_eq!(
            grant.narrow(FamilyPolicy::all()),
            FamilyPolicy::none().with(Web).with(CoreAgent)
        );
    }
}
