//! The refusals of a resource server: 401 with a `Bearer` challenge that points at the
//! metadata (RFC 9728 §5.1), 403 `insufficient_scope` naming the scopes to ask for
//! (RFC 6750 §3.1, the MCP spec's scope challenge).

use std::convert::Infallible;

use http_body_util::combinators::BoxBody;
use hyper::body::Bytes;
use hyper::header::{HeaderValue, WWW_AUTHENTICATE};
use hyper::{Response, StatusCode};

use crate::http::plain::plain_text;

/// A response the gate answers with.
pub(crate) type Refusal = Response<BoxBody<Bytes, Infallible>>;

/// 401 for a request without a token (`invalid` is `None`) or with one that is not
/// accepted (`invalid` says why). `scope` is what every request needs, if anything.
pub(crate) fn unauthorized(metadata_url: &str, scope: &str, invalid: Option<&str>) -> Refusal {
    let mut challenge = format!("Bearer resource_metadata=\"{}\"", quoted(metadata_url));
    if !scope.is_empty() {
        challenge.push_str(&format!(", scope=\"{}\"", quoted(scope)));
    }
    let message = match invalid {
        Some(why) => {
            challenge.push_str(&format!(
                ", error=\"invalid_token\", error_description=\"{}\"",
                quoted(why)
            ));
            format!("unauthorized: {why}\n")
        }
        None => format!(
            "unauthorized: send `Authorization: Bearer <access token>`; {metadata_url} names the \
             authorization server that issues them\n"
        ),
    };
    refusal(StatusCode::UNAUTHORIZED, &challenge, message)
}

/// 403 for a token that lacks what the request needs: `scope` is the scopes to hold
/// (space-separated), `why` what they are needed for.
pub(crate) fn insufficient_scope(metadata_url: &str, scope: &str, why: &str) -> Refusal {
    let challenge = format!(
        "Bearer error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{}\", error_description=\"{}\"",
        quoted(scope),
        quoted(metadata_url),
        quoted(why)
    );
    let message = format!("forbidden: {why}; ask for a token with the scopes `{scope}`\n");
    refusal(StatusCode::FORBIDDEN, &challenge, message)
}

fn refusal(status: StatusCode, challenge: &str, message: String) -> Refusal {
    let mut response = plain_text(status, message);
    // `quoted` leaves printable ASCII only, which a header value always takes.
    if let Ok(value) = HeaderValue::from_str(challenge) {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response
}

/// `text` as the inside of a quoted parameter: the characters RFC 6750 allows there
/// (printable ASCII but `"` and `\`), anything else left out.
fn quoted(text: &str) -> String {
    text.chars()
        .filter(|c| matches!(c, ' ' | '!' | '\x23'..='\x5b' | '\x5d'..='\x7e'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn challenge(response: &Refusal) -> &str {
        response.headers()[WWW_AUTHENTICATE].to_str().unwrap()
    }

    #[test]
    fn challenges_carry_the_metadata_and_keep_quotes_out() {
        let url = "https://mcp.example/.well-known/oauth-protected-resource/mcp";
        let none = unauthorized(url, "", None);
        assert_eq!(none.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            challenge(&none),
            format!("Bearer resource_metadata=\"{url}\"")
        );
        let invalid = unauthorized(url, "mcp", Some("the \"token\" has expired\n"));
        assert_eq!(
            challenge(&invalid),
            format!(
                "Bearer resource_metadata=\"{url}\", scope=\"mcp\", error=\"invalid_token\", \
                 error_description=\"the token has expired\""
            )
        );
        let forbidden = insufficient_scope(url, "tools:web", "`fetch` is a web tool");
        assert_eq!(forbidden.status(), StatusCode::FORBIDDEN);
        assert!(
            challenge(&forbidden)
                .starts_with("Bearer error=\"insufficient_scope\", scope=\"tools:web\"")
        );
    }
}
