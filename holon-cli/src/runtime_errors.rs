//! Why the runtime would not open, as the operator reads it: the runtime's error says
//! what is wrong, this adds which of the CLI's options changes it.

use holon_runtime::{RuntimeError, StoreError};

/// `error` with the option that fixes it, when one does.
pub(super) fn describe(error: &RuntimeError) -> String {
    match hint(error) {
        Some(hint) => format!("{error}; {hint}"),
        None => error.to_string(),
    }
}

fn hint(error: &RuntimeError) -> Option<&'static str> {
    match error {
        RuntimeError::StateDir { .. } => Some("choose another with --state-dir or HOLON_HOME"),
        RuntimeError::Workspace { .. } => Some("pass an existing directory with --workspace"),
        RuntimeError::CaFile(_) => Some("fix or drop --ca-file (HOLON_CA_FILE)"),
        RuntimeError::Store(store) => store_hint(store),
        _ => None,
    }
}

fn store_hint(error: &StoreError) -> Option<&'static str> {
    match error {
        StoreError::TooNew { .. } => {
            Some("upgrade holon-tools or point --state-dir at another directory")
        }
        busy if busy.is_busy() => Some("let it finish, or give this one its own --state-dir"),
        _ => None,
    }
}
