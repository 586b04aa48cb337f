//! What the HTTP server checks before it serves a request: the static bearer token
//! (see [`http_guard`](crate::http_guard)), or OAuth access tokens (feature `oauth`).

use std::convert::Infallible;
use std::net::SocketAddr;

use http_body_util::Either;
use http_body_util::combinators::BoxBody;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};

use crate::http::HttpOptions;
use crate::http::guard::Access;
use crate::server::McpServer;
use crate::{AccessError, TOKEN_ENV};

/// A request the gate admitted, its body as it came or as the gate read it.
pub(crate) type GateBody = Either<Incoming, http_body_util::Full<Bytes>>;

/// A response the gate answers with instead of the transport.
type Answer = Response<BoxBody<Bytes, Infallible>>;

/// The check of one HTTP server.
pub(crate) enum Gate {
    /// The static bearer token, or nothing (`no_auth`).
    Static(Access),
    /// OAuth access tokens (and the static token, when one was chosen).
    #[cfg(feature = "oauth")]
    OAuth(Box<super::resource_server::ResourceServer>),
}

impl Gate {
    /// The gate `options` ask for, for `server` listening on `addr`. `max_body` bounds
    /// a body the gate reads (the transport's own bound).
    pub(crate) async fn resolve(
        addr: SocketAddr,
        options: &HttpOptions,
        server: &McpServer,
        max_body: usize,
    ) -> Result<Self, AccessError> {
        let env_token = std::env::var_os(TOKEN_ENV);
        #[cfg(feature = "oauth")]
        if let Some(config) = &options.oauth {
            if options.no_auth {
                return Err(AccessError::OpenWithOAuth);
            }
            // The static token stays accepted when the operator chose one; none is
            // generated, since OAuth is how clients authenticate.
            let static_token = if options.token_file.is_some() || env_token.is_some() {
                match Access::resolve(addr, false, options.token_file.as_deref(), env_token)? {
                    Access::Bearer { token, .. } => Some(token),
                    Access::Open => None,
                }
            } else {
                None
            };
            // Each tool under its name and its aliases, as `tools/call` finds it.
            let families: std::collections::HashMap<String, holon_core::ToolCapabilityFamily> =
                server
                    .registry()
                    .definitions()
                    .filter(|tool| tool.is_model_facing())
                    .flat_map(|tool| {
                        let names =
                            std::iter::once(tool.name()).chain(tool.aliases.iter().copied());
                        names.map(move |name| (name.to_string(), tool.family))
                    })
                    .collect();
            let name = server.info().name().to_string();
            let resource_server = super::resource_server::ResourceServer::start(
                config.clone(),
                &name,
                static_token,
                families,
                max_body,
                |warning| tracing::warn!("{name}: {warning}; fetching it again on the first token"),
            )
            .await
            .map_err(AccessError::OAuth)?;
            return Ok(Self::OAuth(Box::new(resource_server)));
        }
        #[cfg(not(feature = "oauth"))]
        let _ = (server, max_body);
        let access = Access::resolve(
            addr,
            options.no_auth,
            options.token_file.as_deref(),
            env_token,
        )?;
        Ok(Self::Static(access))
    }

    /// The bearer token generated at start, which only the host can show.
    pub(crate) fn generated_token(&self) -> Option<&str> {
        match self {
            Self::Static(access) => access.generated_token(),
            #[cfg(feature = "oauth")]
            Self::OAuth(_) => None,
        }
    }

    /// The line the operator reads about how clients authenticate.
    pub(crate) fn announcement(&self, name: &str) -> String {
        match self {
            Self::Static(access) => access.announcement(name),
            #[cfg(feature = "oauth")]
            Self::OAuth(server) => server.announcement(name),
        }
    }

    /// The answer to a request the gate serves itself (the OAuth metadata), before any
    /// other check.
    pub(crate) fn public_response<B>(&self, request: &Request<B>) -> Option<Answer> {
        match self {
            Self::Static(_) => {
                let _ = request;
                None
            }
            #[cfg(feature = "oauth")]
            Self::OAuth(server) => server.metadata_response(request),
        }
    }

    /// `request`, with what its credential grants in its extensions, or the refusal
    /// to answer with (`name` is the server's, the static token's realm).
    pub(crate) async fn admit(
        &self,
        name: &str,
        mut request: Request<Incoming>,
    ) -> Result<Request<GateBody>, Answer> {
        match self {
            Self::Static(access) => {
                if let Some(principal) = access.check(name, request.headers())? {
                    request.extensions_mut().insert(principal);
                }
                Ok(request.map(Either::Left))
            }
            #[cfg(feature = "oauth")]
            Self::OAuth(server) => server.admit(request).await,
        }
    }
}
