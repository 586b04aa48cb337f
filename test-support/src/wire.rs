//! A loopback proxy in front of a test's PostgreSQL that records each round trip a
//! client makes, with the SQL it ran: the database cost of a call, counted on the
//! wire rather than as store calls.
//!
//! A round trip ends with the client's `Sync` (extended protocol) or is one `Query`
//! (simple protocol, e.g. `BEGIN`, `COMMIT`): the server answers each with one
//! `ReadyForQuery`, so counting them is exact for a client that waits for each answer,
//! as the stores do. Hand-written: no crate parses the frontend protocol for a
//! proxy, and a counter of `pg_stat_statements` misses the prepares and is shared by
//! every connection of the server.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream, UnixStream};

/// One round trip: the statement it executed (`SELECT ...`, `BEGIN`), or, for a
/// round trip that only prepared a statement, `prepare: ` and its text.
pub type RoundTrip = String;

/// The proxy: its URL reaches the database through it.
pub struct WireCounter {
    url: String,
    trips: Arc<Mutex<Vec<RoundTrip>>>,
    /// The proxy's own runtime: a store blocks the threads it is called on until
    /// its answer, which must not wait for one of them.
    runtime: Option<tokio::runtime::Runtime>,
}

impl WireCounter {
    /// A proxy to the database of `url` (a URL of the test fixture: a Unix socket
    /// `host=DIR` query parameter, or a TCP host and port), serving until dropped.
    pub fn start(url: &str) -> Self {
        let parsed = url::Url::parse(url).expect("a database URL");
        let query: HashMap<String, String> = parsed.query_pairs().into_owned().collect();
        let user = query
            .get("user")
            .cloned()
            .unwrap_or_else(|| parsed.username().to_string());
        let upstream = match query.get("host") {
            Some(dir) if dir.starts_with('/') => Upstream::Unix(format!("{dir}/.s.PGSQL.5432")),
            _ => Upstream::Tcp(format!(
                "{}:{}",
                parsed.host_str().unwrap_or("localhost"),
                parsed.port().unwrap_or(5432)
            )),
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        // Bound here (a test may call this inside its own runtime, where another
        // cannot block), served on the proxy's runtime.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let trips = Arc::new(Mutex::new(Vec::new()));
        let recorded = trips.clone();
        runtime.spawn(async move {
            let listener = TcpListener::from_std(listener).unwrap();
            while let Ok((client, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let trips = recorded.clone();
                tokio::spawn(async move {
                    let _ = relay(client, upstream, trips).await;
                });
            }
        });
        let password = parsed
            .password()
            .map(|password| format!(":{password}"))
            .unwrap_or_default();
        Self {
            url: format!(
                "postgresql://{user}{password}@127.0.0.1:{port}{}?sslmode=disable",
                parsed.path()
            ),
            trips,
            runtime: Some(runtime),
        }
    }

    /// The URL that reaches the database through the proxy.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The round trips since the last `take`, in the order they ended.
    pub fn take(&self) -> Vec<RoundTrip> {
        std::mem::take(&mut *self.trips.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Drop for WireCounter {
    fn drop(&mut self) {
        // Dropping a runtime waits for its threads, which an async test may not do.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[derive(Clone)]
enum Upstream {
    Unix(String),
    Tcp(String),
}

async fn relay(
    client: TcpStream,
    upstream: Upstream,
    trips: Arc<Mutex<Vec<RoundTrip>>>,
) -> std::io::Result<()> {
    let (client_read, client_write) = client.into_split();
    match upstream {
        Upstream::Unix(path) => {
            let (server_read, server_write) = UnixStream::connect(path).await?.into_split();
            pump(client_read, client_write, server_read, server_write, trips).await
        }
        Upstream::Tcp(addr) => {
            let (server_read, server_write) = TcpStream::connect(addr).await?.into_split();
            pump(client_read, client_write, server_read, server_write, trips).await
        }
    }
}

/// Both directions of one connection, until either ends.
async fn pump(
    client_read: impl AsyncRead + Unpin,
    mut client_write: impl AsyncWrite + Unpin,
    mut server_read: impl AsyncRead + Unpin,
    server_write: impl AsyncWrite + Unpin,
    trips: Arc<Mutex<Vec<RoundTrip>>>,
) -> std::io::Result<()> {
    tokio::select! {
        result = frontend(client_read, server_write, trips) => result,
        result = tokio::io::copy(&mut server_read, &mut client_write) => result.map(drop),
    }
}

/// Passes the client's messages on, recording a round trip at each `Sync` and
/// `Query`.
async fn frontend(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    trips: Arc<Mutex<Vec<RoundTrip>>>,
) -> std::io::Result<()> {
    // The startup message has no type byte: a length, then the rest.
    let mut length = [0u8; 4];
    from.read_exact(&mut length).await?;
    let mut startup = vec![0u8; (u32::from_be_bytes(length) as usize).saturating_sub(4)];
    from.read_exact(&mut startup).await?;
    to.write_all(&length).await?;
    to.write_all(&startup).await?;
    let mut prepared: HashMap<String, String> = HashMap::new();
    // What the messages since the last `Sync` did.
    let mut parsed: Option<String> = None;
    let mut executed: Option<String> = None;
    let mut bound: Option<String> = None;
    loop {
        let mut header = [0u8; 5];
        from.read_exact(&mut header).await?;
        let length = u32::from_be_bytes([header[1], header[2], header[3], header[4]]) as usize;
        let mut body = vec![0u8; length.saturating_sub(4)];
        from.read_exact(&mut body).await?;
        let mut fields = body.split(|byte| *byte == 0).map(String::from_utf8_lossy);
        match header[0] {
            b'P' => {
                let name = fields.next().unwrap_or_default().into_owned();
                let query = squeeze(&fields.next().unwrap_or_default());
                prepared.insert(name, query.clone());
                parsed = Some(query);
            }
            b'B' => {
                let _portal = fields.next();
                let statement = fields.next().unwrap_or_default().into_owned();
                bound = prepared.get(&statement).cloned();
            }
            b'E' => executed = bound.clone().or(Some("?".to_string())),
            b'S' | b'Q' => {
                let trip = if header[0] == b'Q' {
                    squeeze(&fields.next().unwrap_or_default())
                } else if let Some(statement) = executed.take() {
                    statement
                } else {
                    format!("prepare: {}", parsed.clone().unwrap_or_default())
                };
                parsed = None;
                trips
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(trip);
            }
            _ => {}
        }
        to.write_all(&header).await?;
        to.write_all(&body).await?;
    }
}

/// `sql` on one line, its runs of white space one space each.
fn squeeze(sql: &str) -> String {
    sql.split_whitespace().collect::<Vec<_>>().join(" ")
}
