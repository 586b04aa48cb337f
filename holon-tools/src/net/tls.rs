//! TLS for https targets: rustls on the ring provider, Mozilla's root certificates
//! compiled in, HTTP/1.1 announced by ALPN. Built once per process.

use std::sync::{Arc, OnceLock};

use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto};

use super::NetError;

fn config() -> Result<Arc<ClientConfig>, String> {
    static CONFIG: OnceLock<Result<Arc<ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let roots = RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            let mut config =
                ClientConfig::builder_with_provider(Arc::new(crypto::ring::default_provider()))
                    .with_safe_default_protocol_versions()
                    .map_err(|error| error.to_string())?
                    .with_root_certificates(roots)
                    .with_no_client_auth();
            config.alpn_protocols = vec![b"http/1.1".to_vec()];
            Ok(Arc::new(config))
        })
        .clone()
}

/// Runs the TLS handshake with `host` (its certificate must name it) over `stream`.
pub async fn handshake(host: &str, stream: TcpStream) -> Result<TlsStream<TcpStream>, NetError> {
    let tls = |error: String| NetError::Tls {
        host: host.to_string(),
        error,
    };
    let name = ServerName::try_from(host.to_string()).map_err(|error| tls(error.to_string()))?;
    TlsConnector::from(config().map_err(tls)?)
        .connect(name, stream)
        .await
        .map_err(|error| tls(error.to_string()))
}
