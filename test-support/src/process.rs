//! Where a server process started on `127.0.0.1:0` listens: the URL it prints on its
//! stderr (`... at http://ADDR/mcp`), read on a thread so that a test never hangs on
//! a server that prints nothing.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::Child;
use std::sync::mpsc::channel;

use crate::stdio::TIMEOUT;

/// The address `child` prints its MCP URL with on its stderr (piped), the lines
/// before it skipped (`holon-tools serve` names its approval policy first); the
/// rest of its stderr is drained so that it never blocks on it.
pub fn listening_address(child: &mut Child) -> SocketAddr {
    let stderr = child.stderr.take().expect("the server's stderr, piped");
    let (sender, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            // Once the URL is read nobody listens: the lines are drained all the same.
            let _ = sender.send(line);
        }
    });
    let mut seen = String::new();
    loop {
        let line = lines
            .recv_timeout(TIMEOUT)
            .unwrap_or_else(|_| panic!("no URL on the server's stderr: {seen:?}"));
        if let Some(url) = line.split("at http://").nth(1) {
            return url
                .trim()
                .strip_suffix("/mcp")
                .and_then(|authority| authority.parse().ok())
                .unwrap_or_else(|| panic!("no address in {line:?}"));
        }
        seen.push_str(&line);
        seen.push('\n');
    }
}
