//! The SQLite file a server's stores share (feature `sqlite`): how a connection to it
//! is made ready, the same for the tasks and the keyring.

use std::time::{Duration, Instant};

use rusqlite::Connection;

/// How long a connection waits for another's lock (rusqlite's busy timeout).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Switches the file to WAL and full sync. Servers opening a new file at once each
/// need its exclusive lock for the switch, and SQLite answers the losers SQLITE_BUSY
/// at once (to avoid a deadlock) rather than through the busy handler: they retry
/// until the busy timeout, as the handler would.
pub(crate) fn prepare(connection: &Connection) -> rusqlite::Result<()> {
    connection.busy_timeout(BUSY_TIMEOUT)?;
    let deadline = Instant::now() + BUSY_TIMEOUT;
    loop {
        match connection.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(error, _))
                if error.code == rusqlite::ErrorCode::DatabaseBusy && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            result => break result?,
        }
    }
    connection.pragma_update(None, "synchronous", "FULL")
}
