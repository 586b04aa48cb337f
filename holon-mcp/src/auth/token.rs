//! Checks one access token: a JWT signed by a key of the issuer with a pinned
//! algorithm, issued by the issuer, for this resource (RFC 8707), not expired nor not
//! yet valid; then who it names and the scopes it grants.

use std::collections::HashSet;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation, decode, decode_header};
use serde::Deserialize;

use super::config::OAuthConfig;
use super::keys::{KeyStore, NoKey};
use crate::http::guard::STATIC_TOKEN_PRINCIPAL;

/// What a valid token says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Claims {
    /// `sub`, else the client's id.
    pub(crate) subject: String,
    /// `client_id`, else `azp`.
    pub(crate) client_id: Option<String>,
    /// `scope` (space-separated) or `scp` (a list).
    pub(crate) scopes: Vec<String>,
}

/// The claims of a token as sent.
#[derive(Deserialize)]
struct RawClaims {
    sub: Option<String>,
    client_id: Option<String>,
    azp: Option<String>,
    scope: Option<ScopeClaim>,
    scp: Option<ScopeClaim>,
}

/// A scope claim: RFC 9068's space-separated string, or the list some issuers send.
#[derive(Deserialize)]
#[serde(untagged)]
enum ScopeClaim {
    Text(String),
    List(Vec<String>),
}

impl ScopeClaim {
    fn into_scopes(self) -> Vec<String> {
        match self {
            Self::Text(text) => text.split_ascii_whitespace().map(str::to_string).collect(),
            Self::List(list) => list,
        }
    }
}

/// Checks tokens as one [`OAuthConfig`] says.
pub(crate) struct TokenVerifier {
    keys: KeyStore,
    algorithms: Vec<Algorithm>,
    issuer: String,
    audiences: Vec<String>,
    leeway: u64,
    reserved_subjects: Vec<String>,
}

impl TokenVerifier {
    /// The verifier of `config`, with its keys.
    pub(crate) fn new(config: &OAuthConfig, keys: KeyStore) -> Result<Self, String> {
        let algorithms = config
            .algorithms
            .iter()
            .map(|name| {
                name.parse::<Algorithm>()
                    .map_err(|_| format!("`{name}` is not a signing algorithm"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        // The resource as configured and as the URL parser writes it (`https://host`
        // and `https://host/` name the same resource).
        let resource = config.resource.as_str();
        let mut audiences = vec![resource.to_string()];
        if let Some(bare) = resource.strip_suffix('/') {
            audiences.push(bare.to_string());
        }
        Ok(Self {
            keys,
            algorithms,
            issuer: config.issuer.clone(),
            audiences,
            leeway: config.leeway.as_secs(),
            reserved_subjects: config.reserved_subjects.clone(),
        })
    }

    /// The claims of `token`, or why it is not accepted (a sentence naming the fault,
    /// free of anything the token said).
    pub(crate) async fn verify(&self, token: &str) -> Result<Claims, String> {
        // `alg: none`, or any name outside the JWS list, fails here: the header
        // does not parse.
        let header = decode_header(token).map_err(|_| {
            "the token is not a signed JWT this server accepts (its header does not parse, or names an unknown algorithm such as `none`)".to_string()
        })?;
        if !self.algorithms.contains(&header.alg) {
            return Err(format!(
                "the token is signed with {:?}, which this server does not accept (it accepts {})",
                header.alg,
                self.accepted()
            ));
        }
        let key = self
            .keys
            .key_for(header.kid.as_deref(), header.alg)
            .await
            .map_err(|why| match why {
                NoKey::UnknownKid => {
                    "the token names a signing key (kid) the issuer does not publish".to_string()
                }
                NoKey::Ambiguous => {
                    "the token names no signing key (kid) and the issuer publishes no single key for its algorithm".to_string()
                }
            })?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&self.audiences);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = self.leeway;
        let data =
            decode::<RawClaims>(token, &key.key, &validation).map_err(|error| {
                match error.kind() {
                    ErrorKind::ExpiredSignature => "the token has expired".to_string(),
                    ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".to_string(),
                    ErrorKind::InvalidAudience => format!(
                        "the token is not for this server: its audience (aud) must include {}",
                        self.audiences[0]
                    ),
                    ErrorKind::InvalidIssuer => {
                        format!("the token was not issued by {} (iss)", self.issuer)
                    }
                    ErrorKind::InvalidSignature => {
                        "the token's signature does not verify".to_string()
                    }
                    ErrorKind::MissingRequiredClaim(claim) => {
                        format!("the token has no `{}` claim", safe_claim_name(claim))
                    }
                    _ => "the token does not verify".to_string(),
                }
            })?;
        let claims = data.claims;
        let client_id = claims.client_id.or(claims.azp);
        let Some(subject) = claims.sub.or_else(|| client_id.clone()) else {
            return Err("the token names no subject (sub) nor client (client_id)".to_string());
        };
        // The static token's holder is a principal of its own: a token naming it would
        // see that holder's tasks and approvals.
        if subject == STATIC_TOKEN_PRINCIPAL {
            return Err(format!(
                "the token's subject `{STATIC_TOKEN_PRINCIPAL}` is reserved for this server's static bearer token; the issuer must name the subject otherwise"
            ));
        }
        // A principal the host's own callers act as without a token: the same
        // namespace, so a token naming it would share their tasks and approvals.
        if self.reserved_subjects.contains(&subject) {
            return Err(
                "the token's subject is reserved for this host's local callers; the issuer must name the subject otherwise"
                    .to_string(),
            );
        }
        let mut scopes: Vec<String> = claims
            .scope
            .into_iter()
            .chain(claims.scp)
            .flat_map(ScopeClaim::into_scopes)
            .collect();
        let mut seen = HashSet::new();
        scopes.retain(|scope| seen.insert(scope.clone()));
        Ok(Claims {
            subject,
            client_id,
            scopes,
        })
    }

    fn accepted(&self) -> String {
        self.algorithms
            .iter()
            .map(|alg| format!("{alg:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The registered claims `jsonwebtoken` can report missing are ours (`exp`, `iss`,
/// `aud`); anything else is not echoed.
fn safe_claim_name(claim: &str) -> &str {
    match claim {
        "exp" | "iss" | "aud" | "nbf" | "sub" => claim,
        _ => "required",
    }
}
