//! Where spans are exported to: `--otlp-endpoint`, else the standard
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the traces URL as it is), else
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (a collector's base URL, `v1/traces` appended);
//! none of them set, no export. An endpoint that is not an http(s) URL, or a
//! protocol other than HTTP/protobuf, is refused with what to set instead.

use url::Url;

/// The standard variable of the traces URL, used as it is.
pub(super) const TRACES_ENDPOINT_ENV: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
/// The standard variable of a collector's base URL.
pub(super) const ENDPOINT_ENV: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
/// The standard variables of the protocol, the traces' one first.
const PROTOCOL_ENVS: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
];
/// The path of traces under a collector's base URL.
const TRACES_PATH: &str = "v1/traces";

/// Who named the endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    /// `--otlp-endpoint`.
    Flag,
    /// An environment variable.
    Env(&'static str),
}

/// The traces URL spans go to, and who named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Endpoint {
    url: Url,
    source: Source,
}

impl Endpoint {
    /// The URL the exporter posts to.
    pub(super) fn url(&self) -> &Url {
        &self.url
    }

    /// Who named it, for messages: `--otlp-endpoint URL` or `VARIABLE=URL`.
    pub(super) fn named(&self) -> String {
        match self.source {
            Source::Flag => format!("--otlp-endpoint {}", self.url),
            Source::Env(name) => format!("{name}={}", self.url),
        }
    }

    /// Who named it (a build without the `otlp` feature refuses the flag only).
    #[cfg(not(feature = "otlp"))]
    pub(super) fn source(&self) -> Source {
        self.source
    }
}

/// The endpoint `flag` or the environment (read through `env`) names, if any.
pub(super) fn resolve(
    flag: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<Endpoint>, String> {
    let set = |name: &str| env(name).filter(|value| !value.trim().is_empty());
    let endpoint = if let Some(base) = flag {
        Some(base_url(base.trim(), Source::Flag)?)
    } else if let Some(url) = set(TRACES_ENDPOINT_ENV) {
        Some(Endpoint {
            url: http_url(url.trim(), Source::Env(TRACES_ENDPOINT_ENV))?,
            source: Source::Env(TRACES_ENDPOINT_ENV),
        })
    } else if let Some(base) = set(ENDPOINT_ENV) {
        Some(base_url(base.trim(), Source::Env(ENDPOINT_ENV))?)
    } else {
        None
    };
    if endpoint.is_some()
        && let Some((name, protocol)) = PROTOCOL_ENVS
            .iter()
            .find_map(|name| set(name).map(|value| (*name, value)))
        && protocol.trim() != "http/protobuf"
    {
        return Err(format!(
            "{name}={protocol}: holon-tools exports OTLP over HTTP/protobuf only; set {name}=http/protobuf (or unset it) and point the endpoint at the collector's OTLP/HTTP port (4318 by default)"
        ));
    }
    Ok(endpoint)
}

/// The traces URL under the collector base URL `base` (a URL that already ends in
/// `/v1/traces` is taken as it is).
fn base_url(base: &str, source: Source) -> Result<Endpoint, String> {
    let mut url = http_url(base, source)?;
    if !url.path().trim_end_matches('/').ends_with("/v1/traces") {
        let path = format!("{}/{TRACES_PATH}", url.path().trim_end_matches('/'));
        url.set_path(&path);
    }
    Ok(Endpoint { url, source })
}

/// `text` as an http or https URL with a host.
fn http_url(text: &str, source: Source) -> Result<Url, String> {
    let named = match source {
        Source::Flag => format!("--otlp-endpoint `{text}`"),
        Source::Env(name) => format!("{name}=`{text}`"),
    };
    let hint = "give the collector's OTLP/HTTP URL, such as http://localhost:4318";
    let url =
        Url::parse(text).map_err(|error| format!("{named} is not a URL ({error}): {hint}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "{named}: the scheme must be http or https, not `{}`: {hint}",
            url.scheme()
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("{named} names no host: {hint}"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!("{named} has a query or fragment: {hint}"));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        }
    }

    fn url(flag: Option<&str>, pairs: &[(&str, &str)]) -> Result<Option<String>, String> {
        resolve(flag, env(pairs)).map(|found| found.map(|endpoint| endpoint.url.to_string()))
    }

    #[test]
    fn nothing_set_is_no_endpoint() {
        assert_eq!(url(None, &[]), Ok(None));
        assert_eq!(url(None, &[(ENDPOINT_ENV, " ")]), Ok(None));
    }

    #[test]
    fn the_flag_then_the_traces_variable_then_the_base_variable() {
        let both = [
            (TRACES_ENDPOINT_ENV, "http://traces:4318/custom"),
            (ENDPOINT_ENV, "http://base:4318"),
        ];
        assert_eq!(
            url(Some("http://flag:4318"), &both).unwrap().unwrap(),
            "http://flag:4318/v1/traces"
        );
        assert_eq!(
            url(None, &both).unwrap().unwrap(),
            "http://traces:4318/custom"
        );
        assert_eq!(
            url(None, &both[1..]).unwrap().unwrap(),
            "http://base:4318/v1/traces"
        );
        assert_eq!(
            url(None, &[(ENDPOINT_ENV, "https://base/otlp/")])
                .unwrap()
                .unwrap(),
            "https://base/otlp/v1/traces"
        );
        assert_eq!(
            url(Some("http://flag:4318/v1/traces"), &[])
                .unwrap()
                .unwrap(),
            "http://flag:4318/v1/traces"
        );
    }

    #[test]
    fn a_bad_endpoint_or_protocol_is_refused_with_what_to_give() {
        let error = url(Some("localhost:4318"), &[]).unwrap_err();
        assert!(
            error.contains("--otlp-endpoint `localhost:4318`"),
            "{error}"
        );
        assert!(error.contains("http://localhost:4318"), "{error}");
        let error = url(None, &[(ENDPOINT_ENV, "not a url")]).unwrap_err();
        assert!(error.starts_with("OTEL_EXPORTER_OTLP_ENDPOINT=`not a url` is not a URL"));
        let error = url(
            Some("http://c:4317"),
            &[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")],
        )
        .unwrap_err();
        assert!(error.contains("HTTP/protobuf only"), "{error}");
        assert!(url(Some("http://c:4318?x=1"), &[]).is_err());
        assert!(
            url(
                Some("http://c:4318"),
                &[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")]
            )
            .is_ok()
        );
    }
}
