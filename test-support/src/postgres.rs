//! A throw-away PostgreSQL for a test: a server of its own in a temporary directory,
//! or a fresh database on the server `HOLON_TEST_POSTGRES_URL` names.
//!
//! Written here rather than taken from `pgtemp`: that crate listens on a TCP port
//! it picks before the server binds it (a race between parallel tests), and runs
//! `initdb` as root on root-run CI machines, which `initdb` refuses. This one
//! listens on a Unix socket in its own directory (no port at all) and runs the
//! server as the `postgres` user when the test runs as root.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The variable that names an existing server to test against instead (a URL of
/// a role that may create databases); each test gets a database of its own there.
pub const TEST_POSTGRES_URL_ENV: &str = "HOLON_TEST_POSTGRES_URL";

/// A PostgreSQL database for one test, gone when this is dropped.
pub struct TestPostgres {
    url: String,
    server: Option<Server>,
    /// On an existing server: the database made for the test, and the URL to drop it by.
    database: Option<(String, String)>,
}

/// A server this test started: stopped on drop.
struct Server {
    pg_ctl: PathBuf,
    data: PathBuf,
    /// The server's options (its socket's directory among them) and its log.
    options: String,
    log: PathBuf,
    as_postgres: bool,
    _dir: tempfile::TempDir,
}

impl TestPostgres {
    /// A database no other test uses: on `HOLON_TEST_POSTGRES_URL`'s server when
    /// set, else on a server started for this test. Panics, saying how to install
    /// PostgreSQL, when neither is there: a test of it never passes without it.
    pub fn start() -> Self {
        match std::env::var(TEST_POSTGRES_URL_ENV) {
            Ok(url) if !url.is_empty() => Self::on_existing(&url),
            _ => Self::on_own_server(),
        }
    }

    /// A database on a server started for this test, even when
    /// `HOLON_TEST_POSTGRES_URL` names one: a test that stops the server needs its own.
    pub fn start_own() -> Self {
        Self::on_own_server()
    }

    /// Stops the test's own server (`pg_ctl stop -m fast`: its connections are
    /// closed, its socket goes), keeping its data for [`start_again`](Self::start_again).
    pub fn stop(&self) {
        let server = self.own_server();
        let stop = run(
            server.as_postgres,
            &server.pg_ctl,
            &[
                "-D".as_ref(),
                server.data.as_os_str(),
                "-m".as_ref(),
                "fast".as_ref(),
                "-w".as_ref(),
                "stop".as_ref(),
            ],
        );
        assert!(stop.status.success(), "pg_ctl stop failed: {}", text(&stop));
    }

    /// Starts the stopped server again on the same data and socket.
    pub fn start_again(&self) {
        let server = self.own_server();
        let start = run(
            server.as_postgres,
            &server.pg_ctl,
            &[
                "-D".as_ref(),
                server.data.as_os_str(),
                "-l".as_ref(),
                server.log.as_os_str(),
                "-o".as_ref(),
                server.options.as_ref(),
                "-w".as_ref(),
                "start".as_ref(),
            ],
        );
        assert!(
            start.status.success(),
            "pg_ctl start failed: {}\n{}",
            text(&start),
            std::fs::read_to_string(&server.log).unwrap_or_default()
        );
    }

    fn own_server(&self) -> &Server {
        self.server
            .as_ref()
            .expect("a server of the test's own (TestPostgres::start_own)")
    }

    /// The URL of the test's database.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn on_existing(admin_url: &str) -> Self {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).unwrap();
        let name = format!("holon_test_{}", hex::encode(bytes));
        execute(admin_url, &format!("CREATE DATABASE {name}"));
        let mut url = url::Url::parse(admin_url).expect("HOLON_TEST_POSTGRES_URL is a URL");
        url.set_path(&format!("/{name}"));
        Self {
            url: url.to_string(),
            server: None,
            database: Some((name, admin_url.to_string())),
        }
    }

    fn on_own_server() -> Self {
        let bin = binaries();
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let as_postgres = running_as_root();
        if as_postgres {
            // The server runs as `postgres`: it must reach its directory.
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        }
        let initdb = run(
            as_postgres,
            &bin.join("initdb"),
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-U".as_ref(),
                "postgres".as_ref(),
                "-A".as_ref(),
                "trust".as_ref(),
                "--no-sync".as_ref(),
                "--no-instructions".as_ref(),
            ],
        );
        assert!(initdb.status.success(), "initdb failed: {}", text(&initdb));
        let socket = dir
            .path()
            .to_str()
            .expect("a UTF-8 temporary directory")
            .to_string();
        // No TCP at all: the socket is `.s.PGSQL.5432` in the test's own directory.
        let options = format!(
            "-c listen_addresses='' -k {socket} -c fsync=off -c shared_preload_libraries=pg_stat_statements"
        );
        let log = dir.path().join("log");
        let start = run(
            as_postgres,
            &bin.join("pg_ctl"),
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-l".as_ref(),
                log.as_os_str(),
                "-o".as_ref(),
                options.as_ref(),
                "-w".as_ref(),
                "start".as_ref(),
            ],
        );
        let server = Server {
            pg_ctl: bin.join("pg_ctl"),
            data,
            options,
            log,
            as_postgres,
            _dir: dir,
        };
        assert!(
            start.status.success(),
            "pg_ctl start failed: {}\n{}",
            text(&start),
            std::fs::read_to_string(&server.log).unwrap_or_default()
        );
        Self {
            url: format!("postgresql:///postgres?user=postgres&host={socket}"),
            server: Some(server),
            database: None,
        }
    }
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        if let Some((name, admin_url)) = &self.database {
            execute(
                admin_url,
                &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            );
        }
        if let Some(server) = &self.server {
            let _ = run(
                server.as_postgres,
                &server.pg_ctl,
                &[
                    "-D".as_ref(),
                    server.data.as_os_str(),
                    "-m".as_ref(),
                    "immediate".as_ref(),
                    "stop".as_ref(),
                ],
            );
        }
    }
}

/// Where `initdb` and `pg_ctl` are: on the PATH, else in Debian's
/// `/usr/lib/postgresql/VERSION/bin` (the newest).
fn binaries() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .and_then(|path| std::env::split_paths(&path).find(|dir| dir.join("initdb").is_file()));
    if let Some(dir) = on_path {
        return dir;
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    match versions.pop() {
        Some((_, bin)) => bin,
        None => panic!(
            "the PostgreSQL tests need a PostgreSQL server: no `initdb` on the PATH or in \
             /usr/lib/postgresql/*/bin. Install it (`apt-get install postgresql` on Debian \
             and Ubuntu), or name a server in {TEST_POSTGRES_URL_ENV}=postgres://USER@HOST/DB"
        ),
    }
}

fn running_as_root() -> bool {
    let output = Command::new("id").arg("-u").output().expect("`id -u` runs");
    String::from_utf8_lossy(&output.stdout).trim() == "0"
}

/// Runs `program` with `args`, as the `postgres` user when `as_postgres`
/// (PostgreSQL refuses to run as root).
fn run(as_postgres: bool, program: &Path, args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut command = if as_postgres {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    };
    command
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|error| panic!("{} does not run: {error}", program.display()))
}

fn text(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs `statement` (one or more, as a batch) on the database of `url`, as its owner
/// would: a test's setup, or its tampering with what the code under test wrote. On a
/// thread of its own, with a runtime of its own (the caller may be inside a runtime,
/// where another cannot block).
pub fn execute(url: &str, statement: &str) {
    let (url, statement) = (url.to_string(), statement.to_string());
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .unwrap_or_else(|error| panic!("connecting to the test database (or the server {TEST_POSTGRES_URL_ENV} names): {error}"));
            tokio::spawn(connection);
            client
                .batch_execute(&statement)
                .await
                .unwrap_or_else(|error| panic!("{statement}: {error}"));
        });
    })
    .join()
    .unwrap();
}
