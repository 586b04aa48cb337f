//! The requests that open an MCP conversation, per protocol revision: `initialize`
//! and `notifications/initialized` under 2025-11-25, the `_meta` every stateless
//! request carries in their place under 2026-07-28.

use serde_json::{Value, json};

/// The revision whose sessions open with `initialize`.
pub const V2025_11_25: &str = "2025-11-25";
/// The stateless revision: no `initialize`, each request names the revision, the
/// client and its capabilities in its `_meta`.
pub const V2026_07_28: &str = "2026-07-28";

/// The client a test speaks as: its name, version and capabilities.
#[derive(Debug, Clone)]
pub struct Client {
    name: String,
    version: String,
    capabilities: Value,
}

impl Client {
    /// The client `name`, version `0`, without capabilities.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            version: "0".to_string(),
            capabilities: json!({}),
        }
    }

    /// The same client at `version`.
    pub fn version(mut self, version: &str) -> Self {
        self.version = version.to_string();
        self
    }

    /// The same client with `capabilities`.
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// `initialize` at revision `protocol`, request id `id`.
    pub fn initialize_at(&self, protocol: &str, id: u64) -> Value {
        json!({
            "jsonrpc": "2.0", "id": id, "method": "initialize",
            "params": {
                "protocolVersion": protocol,
                "capabilities": self.capabilities,
                "clientInfo": { "name": self.name, "version": self.version },
            },
        })
    }

    /// `initialize` at 2025-11-25, request id `id`.
    pub fn initialize(&self, id: u64) -> Value {
        self.initialize_at(V2025_11_25, id)
    }

    /// The `_meta` of a stateless 2026-07-28 request of this client.
    pub fn stateless_meta(&self) -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": V2026_07_28,
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            "io.modelcontextprotocol/clientInfo": { "name": self.name, "version": self.version },
        })
    }
}

/// A 2025-11-25 `initialize` (id 1) of the client `name` (version `0`, no capabilities).
pub fn initialize(name: &str) -> Value {
    Client::new(name).initialize(1)
}

/// `notifications/initialized`, which follows the answer to `initialize`.
pub fn initialized() -> Value {
    json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })
}

/// The `_meta` of a stateless 2026-07-28 request of the client `name` (version `0`,
/// no capabilities).
pub fn stateless_meta(name: &str) -> Value {
    Client::new(name).stateless_meta()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initialize_names_its_revision_client_and_capabilities() {
        let request = Client::new("c")
            .version("1")
            .capabilities(json!({"elicitation": {}}))
            .initialize_at(V2026_07_28, 7);
        assert_eq!(request["id"], 7);
        assert_eq!(request["method"], "initialize");
        assert_eq!(request["params"]["protocolVersion"], V2026_07_28);
        assert_eq!(request["params"]["capabilities"]["elicitation"], json!({}));
        assert_eq!(
            request["params"]["clientInfo"],
            json!({"name": "c", "version": "1"})
        );
        assert_eq!(initialize("d")["params"]["protocolVersion"], V2025_11_25);
        assert_eq!(initialize("d")["id"], 1);
    }

    #[test]
    fn stateless_meta_names_2026_07_28() {
        let meta = stateless_meta("c");
        assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], V2026_07_28);
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"],
            json!({"name": "c", "version": "0"})
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientCapabilities"],
            json!({})
        );
    }
}
