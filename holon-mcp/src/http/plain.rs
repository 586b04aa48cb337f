//! The plain-text answer every refusal of the HTTP endpoint is written as: a status and a
//! line that says what was wrong and how to fix it.
//!
//! Kept by hand rather than taken from tower-http: its layers answer with an empty body
//! (`ValidateRequestHeader`) or none of these checks (a per-peer connection cap, a Host
//! and Origin allow-list, a bearer challenge with the server's realm), and a client, or a
//! model reading the error, needs the reason.

use std::convert::Infallible;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Response, StatusCode};

/// A response of the endpoint.
pub(crate) type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

/// `status` with `message` as its `text/plain` UTF-8 body.
pub(crate) fn plain_text(status: StatusCode, message: impl Into<Bytes>) -> HttpResponse {
    let mut response = Response::new(Full::new(message.into()).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
