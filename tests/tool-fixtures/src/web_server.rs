//! A small HTTP/1.1 server on a loopback address for the web and image tests: it
//! plays web pages, a search provider and an image provider, in plain HTTP or over TLS
//! with the certificate in this crate's `tls/` (signed by the test CA there). Every
//! connection gets one answer and is closed; the server lives as long as the test's
//! runtime.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{ServerConfig, crypto};

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// `GET`, `POST`, ...
    pub method: String,
    /// Path and query.
    pub target: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    /// The request body.
    pub body: Vec<u8>,
}

impl Seen {
    /// The value of header `name` (lowercase), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The target without its query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }
}

/// An answer.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The HTTP status code.
    pub status: u16,
    /// Headers sent as given.
    pub headers: Vec<(String, String)>,
    /// The body, sent with its length.
    pub body: Vec<u8>,
    /// Wait this long before answering.
    pub delay: Option<Duration>,
    /// Stream this many bytes of `x` without a length instead of `body`, until the
    /// client hangs up or all are sent.
    pub stream_bytes: Option<usize>,
}

impl Reply {
    /// A `status` answer of `body`, typed `content_type`.
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
            delay: None,
            stream_bytes: None,
        }
    }

    /// A 200 HTML page.
    pub fn html(body: &str) -> Self {
        Self::new(200, "text/html; charset=utf-8", body)
    }

    /// A JSON answer.
    pub fn json(status: u16, value: &serde_json::Value) -> Self {
        Self::new(status, "application/json", value.to_string())
    }

    /// A redirect to `location`.
    pub fn redirect(status: u16, location: &str) -> Self {
        let mut reply = Self::new(status, "text/plain", "moved");
        reply.headers.push(("Location".into(), location.into()));
        reply
    }

    /// The same answer, sent after `delay`.
    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = Some(delay);
        self
    }

    /// The same answer's headers, then `bytes` bytes without a length.
    pub fn streaming(mut self, bytes: usize) -> Self {
        self.stream_bytes = Some(bytes);
        self
    }
}

type Handler = dyn Fn(&Seen, SocketAddr) -> Reply + Send + Sync;

/// A running server.
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The requests so far, in order.
    pub seen: Arc<Mutex<Vec<Seen>>>,
    tls: bool,
}

impl Server {
    /// `http://127.0.0.1:PORT/path`, or `https://localhost:PORT/path` for a TLS
    /// server (its certificate names localhost).
    pub fn url(&self, path: &str) -> String {
        match self.tls {
            false => format!("http://{}{path}", self.addr),
            true => format!("https://localhost:{}{path}", self.addr.port()),
        }
    }

    /// A copy of the requests so far.
    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Starts a server on 127.0.0.1; `handler` gets each request and the server's own
/// address.
pub async fn serve(handler: impl Fn(&Seen, SocketAddr) -> Reply + Send + Sync + 'static) -> Server {
    serve_on("127.0.0.1", handler).await
}

/// Starts a server on `ip` (a loopback address).
pub async fn serve_on(
    ip: &str,
    handler: impl Fn(&Seen, SocketAddr) -> Reply + Send + Sync + 'static,
) -> Server {
    start(ip, None, Arc::new(handler)).await
}

/// The test certificate authority's PEM file, which signed the TLS server's
/// certificate.
pub fn test_ca_file() -> PathBuf {
    tls_dir().join("ca.pem")
}

fn tls_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tls")
}

/// Starts an https server on 127.0.0.1 whose certificate (for localhost and
/// 127.0.0.1) the test CA signed.
pub async fn serve_tls(
    handler: impl Fn(&Seen, SocketAddr) -> Reply + Send + Sync + 'static,
) -> Server {
    let certificates = CertificateDer::pem_file_iter(tls_dir().join("server.pem"))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(tls_dir().join("server.key")).unwrap();
    let config = ServerConfig::builder_with_provider(Arc::new(crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certificates, key)
        .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    start("127.0.0.1", Some(acceptor), Arc::new(handler)).await
}

async fn start(ip: &str, tls: Option<TlsAcceptor>, handler: Arc<Handler>) -> Server {
    let listener = TcpListener::bind((ip, 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let is_tls = tls.is_some();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let handler = Arc::clone(&handler);
            let log = Arc::clone(&log);
            let tls = tls.clone();
            tokio::spawn(async move {
                let _ = match tls {
                    // A client that refuses the certificate ends the handshake here.
                    Some(acceptor) => match acceptor.accept(stream).await {
                        Ok(stream) => answer(stream, addr, &*handler, &log).await,
                        Err(error) => Err(error),
                    },
                    None => answer(stream, addr, &*handler, &log).await,
                };
            });
        }
    });
    Server {
        addr,
        seen,
        tls: is_tls,
    }
}

/// A loopback port nothing listens on.
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

async fn answer(
    mut stream: impl AsyncRead + AsyncWrite + Unpin,
    addr: SocketAddr,
    handler: &Handler,
    log: &Mutex<Vec<Seen>>,
) -> std::io::Result<()> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buffer.extend_from_slice(&chunk[..n]);
        if buffer[0] == 0x16 {
            // A TLS ClientHello: answer in plain HTTP, as a plain server does.
            stream
                .write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n")
                .await?;
            return stream.shutdown().await;
        }
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
        if buffer.len() > 1 << 20 {
            return Ok(());
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or("").split(' ');
    let method = first.next().unwrap_or("").to_string();
    let target = first.next().unwrap_or("").to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let seen = Seen {
        method,
        target,
        headers,
        body,
    };
    log.lock().unwrap().push(seen.clone());
    let reply = handler(&seen, addr);
    if let Some(delay) = reply.delay {
        tokio::time::sleep(delay).await;
    }
    let mut out = format!("HTTP/1.1 {} X\r\nConnection: close\r\n", reply.status);
    for (name, value) in &reply.headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(total) = reply.stream_bytes {
        out.push_str("\r\n");
        stream.write_all(out.as_bytes()).await?;
        let block = vec![b'x'; 16 * 1024];
        let mut sent = 0;
        while sent < total {
            stream.write_all(&block).await?;
            sent += block.len();
        }
    } else {
        out.push_str(&format!("Content-Length: {}\r\n\r\n", reply.body.len()));
        stream.write_all(out.as_bytes()).await?;
        stream.write_all(&reply.body).await?;
    }
    stream.shutdown().await
}
