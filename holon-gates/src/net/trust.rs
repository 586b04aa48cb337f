//! Whom https servers are checked against: a rustls configuration on the ring
//! provider (no aws-lc, so no cmake), Mozilla's root certificates compiled in plus
//! any the operator adds (an internal CA, a proxy's), HTTP/1.1 announced by ALPN.
//! reqwest runs the handshake with it.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use tokio_rustls::rustls::pki_types::CertificateDer;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto};

/// The certificate authorities https servers are checked against. Cheap to clone.
#[derive(Clone)]
pub struct TlsTrust {
    config: Arc<ClientConfig>,
    added: usize,
}

impl std::fmt::Debug for TlsTrust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TlsTrust(Mozilla roots + {} added)", self.added)
    }
}

impl Default for TlsTrust {
    /// Mozilla's roots only, built once per process.
    fn default() -> Self {
        static MOZILLA: OnceLock<TlsTrust> = OnceLock::new();
        MOZILLA
            .get_or_init(|| {
                Self::with_roots(Vec::new()).expect("the ring provider and Mozilla's roots")
            })
            .clone()
    }
}

impl TlsTrust {
    /// Mozilla's roots plus every certificate of the PEM file at `path`.
    pub fn with_ca_file(path: &Path) -> Result<Self, String> {
        let shown = path.display();
        let pem = std::fs::read(path).map_err(|error| format!("cannot read {shown}: {error}"))?;
        let added = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| format!("{shown} is not a valid PEM file: {error}"))?;
        if added.is_empty() {
            return Err(format!(
                "{shown} holds no certificate: give a PEM file with `-----BEGIN CERTIFICATE-----` blocks"
            ));
        }
        Self::with_roots(added).map_err(|error| format!("{shown}: {error}"))
    }

    fn with_roots(added: Vec<CertificateDer<'static>>) -> Result<Self, String> {
        let mut roots = RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let count = added.len();
        for (index, certificate) in added.into_iter().enumerate() {
            roots.add(certificate).map_err(|error| {
                format!("certificate {} is not a usable CA: {error}", index + 1)
            })?;
        }
        let mut config =
            ClientConfig::builder_with_provider(Arc::new(crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .map_err(|error| error.to_string())?
                .with_root_certificates(roots)
                .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Self {
            config: Arc::new(config),
            added: count,
        })
    }

    /// The rustls configuration, for one client (cheap: the roots are shared): the
    /// runtime's HTTP clients, and a host's own (the CLI's OTLP exporter).
    pub fn client_config(&self) -> ClientConfig {
        ClientConfig::clone(&self.config)
    }
}
