//! `holon-tools keys rotate`: a new current key for the `requestState` keyring of a
//! store URL's database, the current one kept as the previous (see
//! docs/scale-out.md, "The keyring"); with PostgreSQL, the operator key that signs
//! approval decisions in the database too.

use std::process::ExitCode;

use clap::Subcommand;
use holon_mcp::{StoreUrl, Stores};

/// What `keys` does.
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Make a new current key for the store's servers; the current one stays as
    /// the previous (it still opens the rounds it sealed), the one before is
    /// deleted. Servers on the store follow within 30 s, without a restart.
    Rotate {
        /// The store whose keyring rotates: `sqlite:PATH` or
        /// `postgres://USER@HOST/DATABASE`, as given to `serve --store`.
        // A string, parsed after clap: clap's error would echo a password of the URL.
        #[arg(long, value_name = "URL", env = holon_mcp::STORE_URL_ENV)]
        store: String,
    },
}

/// Runs `command`: prints the ring's key ids after it, on stdout.
pub(super) fn keys(command: &KeysCommand) -> ExitCode {
    let KeysCommand::Rotate { store } = command;
    let url = match store.parse::<StoreUrl>() {
        Ok(StoreUrl::Memory) => {
            eprintln!(
                "holon-tools keys rotate: --store memory has no keyring to rotate: a server on `memory` draws its own key at start; name the `sqlite:` or `postgres://` store its servers use"
            );
            return ExitCode::from(2);
        }
        Ok(url) => url,
        Err(error) => {
            eprintln!("holon-tools keys rotate: --store: {error}");
            return ExitCode::from(2);
        }
    };
    let rotated = Stores::open(&url).and_then(|stores| Ok(stores.rotate_keys()?));
    let rotated = match rotated {
        Ok(ring) => match &url {
            StoreUrl::Postgres(database) => rotate_approval_key(database).map(|line| (ring, line)),
            _ => Ok((ring, None)),
        },
        Err(error) => Err(error.to_string()),
    };
    match rotated {
        Ok((ring, approval_line)) => {
            let previous: Vec<_> = ring.previous_ids().collect();
            println!(
                "rotated the keyring of {url}: current key {}, previous {}; its servers seal with the new key within {} s",
                ring.current_id(),
                previous.first().copied().unwrap_or("none"),
                holon_mcp::keyring::REFRESH.as_secs()
            );
            if let Some(line) = approval_line {
                println!("{line}");
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("holon-tools keys rotate: --store {url}: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Rotates the operator key of the approvals in the database `url`: the line that
/// says so. Its replicas sign with the new key at their next decision.
fn rotate_approval_key(url: &str) -> Result<Option<String>, String> {
    let store = holon_runtime::approvals::postgres::PostgresApprovalStore::open(url)
        .map_err(|error| error.to_string())?;
    let ring = store.keys().rotate()?;
    Ok(Some(format!(
        "rotated the operator key of its approvals: current key {}, previous {}; decisions signed with the one before are refused",
        ring.current_id().unwrap_or("none"),
        ring.previous_id().unwrap_or("none")
    )))
}
