//! A server that lists only the discovery meta-tools and a pinned tool: `tools/list`
//! shows those, every tool stays callable by name, and SearchTools finds the rest.
//! Spoken to in raw JSON-RPC over an in-process pipe.

use std::sync::Arc;

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, ToolContext};
use holon_discovery::Discovery;
use holon_export::Provider;
use holon_mcp::{McpServer, ServerInfo};
use rmcp::ServiceExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Arguments of the archive tools.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ArchiveArgs {
    /// The folder to pack.
    pub folder: String,
}

/// Pack a folder into a zip archive.
#[holon_tool(family = LocalEnvironment)]
fn create_archive(args: ArchiveArgs) -> String {
    format!("{}.zip", args.folder)
}

/// Say which version of the server runs.
#[holon_tool(family = CoreAgent)]
fn server_version() -> String {
    "1.0".to_string()
}

struct Client {
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
}

impl Client {
    async fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let line = self
                .lines
                .next_line()
                .await
                .unwrap()
                .expect("the server answers");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }

    async fn send(&mut self, message: Value) {
        self.writer
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }
}

async fn connect(listed: bool) -> Client {
    let own = module_path!();
    let registry = Arc::new(
        holon_discovery::registry(|meta| meta.defined_at.module.starts_with(own)).unwrap(),
    );
    let context = ToolContext::new(FamilyPolicy::all())
        .with_state(Discovery::new(registry.clone(), Provider::Mcp));
    let mut server =
        McpServer::new(registry, ServerInfo::new("discovery-test", "0")).with_context(context);
    if listed {
        server = server.with_listed(holon_discovery::listed(["ServerVersion"]));
    }
    let (server_end, client_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(server_end).await.unwrap();
        let _ = running.waiting().await;
    });
    let (reader, writer) = tokio::io::split(client_end);
    let mut client = Client {
        writer,
        lines: BufReader::new(reader).lines(),
    };
    let initialize =
        holon_test_support::initialize::Client::new("raw-test").initialize_at("2025-06-18", 1);
    let initialized = client
        .request(1, "initialize", initialize["params"].clone())
        .await;
    assert!(initialized.get("result").is_some(), "{initialized}");
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    client
}

fn names(list: &Value) -> Vec<&str> {
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_meta_tools_and_pinned_tools_are_listed_and_every_tool_is_callable() {
    let mut client = connect(true).await;
    let list = client.request(2, "tools/list", json!({})).await;
    assert_eq!(
        names(&list),
        ["DescribeTool", "SearchTools", "ServerVersion"]
    );

    let search = client
        .request(
            3,
            "tools/call",
            json!({"name": "SearchTools", "arguments": {"query": "zip a folder"}}),
        )
        .await;
    assert_eq!(
        search["result"]["structuredContent"]["tools"][0]["name"], "CreateArchive",
        "{search}"
    );
    let described = client
        .request(
            4,
            "tools/call",
            json!({"name": "DescribeTool", "arguments": {"name": "CreateArchive"}}),
        )
        .await;
    let definition = &described["result"]["structuredContent"]["definition"];
    assert_eq!(
        definition["inputSchema"]["required"],
        json!(["folder"]),
        "{described}"
    );
    // Not listed, and called by name all the same.
    let called = client
        .request(
            5,
            "tools/call",
            json!({"name": "CreateArchive", "arguments": {"folder": "logs"}}),
        )
        .await;
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert_eq!(called["result"]["structuredContent"]["result"], "logs.zip");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_option_every_tool_is_listed() {
    let mut client = connect(false).await;
    let list = client.request(2, "tools/list", json!({})).await;
    assert_eq!(
        names(&list),
        [
            "CreateArchive",
            "DescribeTool",
            "SearchTools",
            "ServerVersion"
        ]
    );
}
