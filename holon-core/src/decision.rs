//! [`Decision`]: what the approval policy and the operator made of a call, as the
//! dispatcher's observer sees it. Its own module, so that the context that carries it
//! and the policy that decides it do not name each other.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What the policy and the operator made of one call, as an audit record keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The call went on to its tool without asking: no policy, an `allow` rule, or a
    /// standing grant ("always") of the operator.
    Allowed,
    /// The policy asked: the call is stored, pending, and nothing ran.
    Asked,
    /// The operator approved the stored call, and it ran.
    Approved,
    /// The operator denied the stored call; nothing ran.
    Denied,
    /// The call was refused before anything ran: a `deny` rule, the family gate, a
    /// name that is no tool, or an approval that does not hold (forged, replayed,
    /// expired, for other arguments or another principal).
    Refused,
}

impl Decision {
    /// The snake_case wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Allowed => "allowed",
            Self::Asked => "asked",
            Self::Approved => "approved",
            Self::Denied => "denied",
            Self::Refused => "refused",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
