//! Reads the key file an operator names (`--key-file`, `HOLON_KEY_FILE`): keys kept
//! out of the database, handed to every replica alike.

// The server reads the file its operator names: the server's own configuration, not a
// tool's effect (holon-gates' gates are for tools).
#![allow(clippy::disallowed_methods)]

use std::path::Path;

/// The text of the key file at `path`; the error says why it cannot be read.
pub(super) fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|error| format!("cannot be read: {error}"))
}
