//! `holon-tools keys rotate`: a new current key for the `requestState` keyring of a
//! store URL's database, the current one kept as the previous (see
//! docs/scale-out.md, "The keyring").

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
    match rotated {
        Ok(ring) => {
            let previous: Vec<_> = ring.previous_ids().collect();
            println!(
                "rotated the keyring of {url}: current key {}, previous {}; its servers seal with the new key within {} s",
                ring.current_id(),
                previous.first().copied().unwrap_or("none"),
                holon_mcp::keyring::REFRESH.as_secs()
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("holon-tools keys rotate: --store {url}: {error}");
            ExitCode::FAILURE
        }
    }
}
