//! Where a server keeps its state, named by one store URL: `memory` (the default),
//! `sqlite:PATH`, or `postgres://...` (every replica of a server on one database).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use crate::keyring::live::LiveKeyring;
use crate::keyring::store::MemoryKeyStore;
use crate::keyring::{KeyStore, Keyring, KeyringError};
use crate::tasks::{Hints, MemoryTaskStore, TaskStore, TaskStoreError};

/// The environment variable `holon-tools serve` and the conformance server take
/// their store URL from when `--store` is not given.
pub const STORE_URL_ENV: &str = "HOLON_STORE_URL";

/// The forms a store URL takes, for the errors that refuse one.
const ACCEPTED: &str = "a store URL is `memory`, `sqlite:PATH` (feature `sqlite`) or \
`postgres://USER@HOST/DATABASE` (also `postgresql://`, feature `postgres`)";

/// Where the server's stores are: one URL for all of them.
///
/// ```
/// use holon_mcp::StoreUrl;
///
/// let url: StoreUrl = "memory".parse()?;
/// assert_eq!(url, StoreUrl::Memory);
/// assert!("mysql://db".parse::<StoreUrl>().is_err());
/// # Ok::<(), holon_mcp::StoreUrlError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Default)]
pub enum StoreUrl {
    /// In the server's memory: as long as the process (the default).
    #[default]
    Memory,
    /// In a SQLite database file (`sqlite:PATH`): across restarts of one process.
    Sqlite(PathBuf),
    /// In a PostgreSQL database (`postgres://...` or `postgresql://...`, as the
    /// driver reads it): shared by every replica of the server.
    Postgres(String),
}

/// A store URL that names no store this build has.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreUrlError {
    /// The URL is empty.
    #[error("the store URL is empty: {ACCEPTED}")]
    Empty,
    /// `sqlite:` without a path.
    #[error("the store URL `sqlite:` names no file: write `sqlite:PATH`, e.g. `sqlite:tasks.db`")]
    MissingPath,
    /// A scheme no store has.
    #[error("the store URL `{url}` names no known store: {ACCEPTED}")]
    UnknownScheme {
        /// The URL, its password (if any) masked.
        url: String,
    },
    /// A store this build was made without.
    #[error(
        "the store URL `{url}` needs holon-mcp's `{feature}` feature, which this build does not have"
    )]
    NotBuilt {
        /// The URL, its password (if any) masked.
        url: String,
        /// The cargo feature that brings the store.
        feature: &'static str,
    },
}

impl FromStr for StoreUrl {
    type Err = StoreUrlError;

    fn from_str(url: &str) -> Result<Self, Self::Err> {
        let url = url.trim();
        if url.is_empty() {
            return Err(StoreUrlError::Empty);
        }
        if url == "memory" {
            return Ok(Self::Memory);
        }
        if let Some(path) = url.strip_prefix("sqlite:") {
            // `sqlite://PATH` is read as the same file as `sqlite:PATH`.
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err(StoreUrlError::MissingPath);
            }
            if cfg!(not(feature = "sqlite")) {
                return Err(StoreUrlError::NotBuilt {
                    url: url.to_string(),
                    feature: "sqlite",
                });
            }
            return Ok(Self::Sqlite(PathBuf::from(path)));
        }
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            if cfg!(not(feature = "postgres")) {
                return Err(StoreUrlError::NotBuilt {
                    url: masked(url),
                    feature: "postgres",
                });
            }
            return Ok(Self::Postgres(url.to_string()));
        }
        Err(StoreUrlError::UnknownScheme { url: masked(url) })
    }
}

impl fmt::Display for StoreUrl {
    /// The URL as it is parsed (a password masked).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Memory => f.write_str("memory"),
            Self::Sqlite(path) => write!(f, "sqlite:{}", path.display()),
            Self::Postgres(url) => f.write_str(&masked(url)),
        }
    }
}

impl fmt::Debug for StoreUrl {
    /// As [`Display`](fmt::Display): a password is never shown, in logs neither.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StoreUrl({self})")
    }
}

/// `url` with the password of its `user:password@` part replaced by `***`, so
/// that an error or a log line never shows it.
pub(crate) fn masked(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let Some((userinfo, host)) = authority.rsplit_once('@') else {
        return url.to_string();
    };
    match userinfo.split_once(':') {
        Some((user, _password)) => format!("{scheme}://{user}:***@{host}{tail}"),
        None => url.to_string(),
    }
}

/// Why the stores a store URL names cannot be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoresError {
    /// The tasks' store (or the database under it).
    #[error(transparent)]
    Tasks(#[from] TaskStoreError),
    /// The keyring that seals `requestState`.
    #[error(transparent)]
    Keyring(#[from] KeyringError),
}

/// The stores a server keeps its state in, opened from one [`StoreUrl`]: the tasks
/// of the tasks extension, and the keyring that seals `requestState` (shared by
/// every server on a SQLite file or a PostgreSQL database; a process's own with
/// `memory`). Approvals and audit come later.
#[derive(Clone)]
pub struct Stores {
    tasks: Arc<dyn TaskStore>,
    /// The hints that a task changed: on PostgreSQL, every replica's too.
    hints: Hints,
    keys: Arc<dyn KeyStore>,
    /// The ring as read when the stores were opened.
    ring: Keyring,
}

impl fmt::Debug for Stores {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stores").finish_non_exhaustive()
    }
}

impl Stores {
    /// Opens the stores `url` names: creates the SQLite file or the PostgreSQL
    /// tables they need when missing, and the keyring's first key when there is
    /// none (of servers that start at once on one database, one makes it).
    pub fn open(url: &StoreUrl) -> Result<Self, StoresError> {
        let (tasks, hints, keys): (Arc<dyn TaskStore>, Hints, Arc<dyn KeyStore>) = match url {
            StoreUrl::Memory => (
                Arc::new(MemoryTaskStore::new()),
                Hints::local(),
                Arc::new(MemoryKeyStore::new()?),
            ),
            #[cfg(feature = "sqlite")]
            StoreUrl::Sqlite(path) => (
                Arc::new(crate::tasks::SqliteTaskStore::open(path)?),
                Hints::local(),
                Arc::new(crate::keyring::sqlite::SqliteKeyStore::open(path)?),
            ),
            #[cfg(not(feature = "sqlite"))]
            StoreUrl::Sqlite(_) => return Err(not_built(url, "sqlite").into()),
            #[cfg(feature = "postgres")]
            StoreUrl::Postgres(postgres) => {
                let database = Arc::new(
                    crate::postgres::Database::open(postgres).map_err(TaskStoreError::from)?,
                );
                (
                    Arc::new(crate::tasks::PostgresTaskStore::on(database.clone())),
                    Hints::across(&database),
                    Arc::new(crate::keyring::postgres::PostgresKeyStore::on(database)),
                )
            }
            #[cfg(not(feature = "postgres"))]
            StoreUrl::Postgres(_) => return Err(not_built(url, "postgres").into()),
        };
        let ring = keys.load()?;
        Ok(Self {
            tasks,
            hints,
            keys,
            ring,
        })
    }

    /// The store of the tasks extension's tasks.
    pub fn tasks(&self) -> &Arc<dyn TaskStore> {
        &self.tasks
    }

    /// The hints that a task of [`tasks`](Self::tasks) changed.
    pub(crate) fn task_hints(&self) -> &Hints {
        &self.hints
    }

    /// The keyring as the store holds it now.
    pub fn keyring(&self) -> Result<Keyring, KeyringError> {
        self.keys.load()
    }

    /// Rotates the keyring: a new key seals, the current one becomes the previous
    /// (it still opens the states it sealed), and the previous one is deleted
    /// (states it sealed are refused). Servers on the store follow within
    /// [`REFRESH`](crate::keyring::REFRESH), or at once for a state sealed by the
    /// new key. The ring after.
    pub fn rotate_keys(&self) -> Result<Keyring, KeyringError> {
        self.keys.rotate()
    }

    /// The seal of a server on these stores: their ring, read again as it changes
    /// and once it is `refresh` old.
    pub(crate) fn seal(&self, refresh: std::time::Duration) -> LiveKeyring {
        LiveKeyring::stored(self.keys.clone(), &self.ring, refresh)
    }
}

/// The error of a store this build was made without.
#[cfg(not(all(feature = "sqlite", feature = "postgres")))]
fn not_built(url: &StoreUrl, feature: &'static str) -> TaskStoreError {
    TaskStoreError::new(
        StoreUrlError::NotBuilt {
            url: url.to_string(),
            feature,
        }
        .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_parses_and_a_bad_url_says_which_forms_there_are() {
        assert_eq!("memory".parse::<StoreUrl>(), Ok(StoreUrl::Memory));
        assert_eq!("".parse::<StoreUrl>(), Err(StoreUrlError::Empty));
        assert_eq!(
            "sqlite:".parse::<StoreUrl>(),
            Err(StoreUrlError::MissingPath)
        );
        let error = "mysql://root:hunter2@db/tasks"
            .parse::<StoreUrl>()
            .expect_err("no such store");
        let message = error.to_string();
        assert!(message.contains("`memory`, `sqlite:PATH`"), "{message}");
        assert!(message.contains("postgres://"), "{message}");
        assert!(
            !message.contains("hunter2"),
            "the password is masked: {message}"
        );
        assert!(message.contains("mysql://root:***@db/tasks"), "{message}");
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn a_sqlite_url_names_its_file() {
        assert_eq!(
            "sqlite:state/tasks.db".parse::<StoreUrl>(),
            Ok(StoreUrl::Sqlite("state/tasks.db".into()))
        );
        assert_eq!(
            "sqlite:///var/tasks.db".parse::<StoreUrl>(),
            Ok(StoreUrl::Sqlite("/var/tasks.db".into()))
        );
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn a_postgres_url_is_kept_whole_and_shown_without_its_password() {
        let url = "postgresql://app:secret@db:5432/holon".parse::<StoreUrl>();
        let url = url.expect("a PostgreSQL URL");
        assert_eq!(
            url,
            StoreUrl::Postgres("postgresql://app:secret@db:5432/holon".into())
        );
        assert_eq!(url.to_string(), "postgresql://app:***@db:5432/holon");
    }

    #[test]
    fn only_a_password_is_masked() {
        assert_eq!(masked("postgres://u:p@h/db"), "postgres://u:***@h/db");
        assert_eq!(masked("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(masked("postgres://h/db?user=u"), "postgres://h/db?user=u");
        assert_eq!(masked("postgres://u:p:q@h"), "postgres://u:***@h");
    }
}
