//! The `tools/list` a server serves, as our export form has it, and the caching hints
//! of list results ([`CachingHints`]).
//!
//! rmcp 3.11's `Tool` has no `execution`, the field MCP 2025-11-25 gives a tool
//! (`execution.taskSupport`: whether a call may, or must, run as a task), and no place
//! for fields it does not know; nor can a `ServerHandler` answer `tools/list` with
//! anything but rmcp's `ListToolsResult`. So the server's tools are kept in their
//! export form's [`Catalog`] (the rmcp `Tool`s, and the `execution` of each tool that
//! has one), and the transports of [`crate::StdioServer`] and (feature `http`) the
//! HTTP server ([`ListingTransport`], and `listing_sessions` for each HTTP session)
//! write each task tool's `execution` back into the `tools/list` results they carry.
//!
//! Only into those of a peer of a revision before 2026-07-28, which rmcp's handler
//! marks by leaving out `resultType` (it strips `"complete"` for them, and our
//! `tools/list` always sets it). The 2026-07-28 `Tool` has no `execution`: the tasks
//! extension (SEP-2663) makes its capability the only handshake, and the server alone
//! decides which call becomes a task.

use std::collections::HashMap;
use std::sync::Arc;

use holon_core::{FamilyPolicy, Registry};
use holon_export::{self as export, ExportOptions, Provider};
use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, CustomResult, JsonRpcMessage, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, ReadResourceResponse,
    ReadResourceResult, ResultType, ServerJsonRpcMessage, ServerResult, Tool,
};
use rmcp::service::TxJsonRpcMessage;
use rmcp::transport::Transport;
use serde_json::Value;

use crate::server::ListCaching;
use crate::{CatalogError, param_headers};

/// The export's `execution` of the tools that have one, by name.
pub(crate) type Executions = Arc<HashMap<String, Value>>;

/// The MCP form of a server's tools, in the export's order (by name): a client, or
/// a cache, sees the same `tools/list` every time.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    /// The tools as rmcp takes them.
    tools: Vec<Tool>,
    /// What rmcp's `Tool` has no field for.
    executions: Executions,
    /// The tools with `Mcp-Param-*` headers (crate::param_headers), by index.
    headed: Vec<usize>,
}

impl Catalog {
    /// The MCP export of the tools of `registry` that `policy` allows; an error when
    /// a tool has no MCP form rmcp takes, or declares a header clients would drop.
    pub(crate) fn export(registry: &Registry, policy: FamilyPolicy) -> Result<Self, CatalogError> {
        let mut executions = HashMap::new();
        let tools = export::export(registry, Provider::Mcp, ExportOptions::new(policy))
            .tools
            .into_iter()
            .map(|tool| {
                let mut wire = tool.wire;
                if let Some(execution) = wire.as_object_mut().and_then(|w| w.remove("execution")) {
                    executions.insert(tool.name.to_string(), execution);
                }
                serde_json::from_value::<Tool>(wire)
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| CatalogError::NotAnMcpTool {
                reason: error.to_string(),
            })?;
        let mut headed = Vec::new();
        for (index, tool) in tools.iter().enumerate() {
            let has_headers = param_headers::check(&tool.input_schema).map_err(|reason| {
                CatalogError::Header {
                    tool: tool.name.to_string(),
                    reason,
                }
            })?;
            if has_headers {
                headed.push(index);
            }
        }
        Ok(Self {
            tools,
            executions: Arc::new(executions),
            headed,
        })
    }

    /// The tool `name` when its schema marks properties for `Mcp-Param-*` headers.
    pub(crate) fn headed_tool(&self, name: &str) -> Option<&Tool> {
        self.headed
            .iter()
            .map(|&index| &self.tools[index])
            .find(|tool| tool.name == name)
    }

    /// The tools as rmcp takes them.
    pub(crate) fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The `execution` of the tools that have one, by name.
    pub(crate) fn executions(&self) -> Executions {
        self.executions.clone()
    }
}

/// `message` with each task tool's `execution` when it is a `tools/list` result for
/// a peer before 2026-07-28; as it is otherwise.
fn with_executions(
    mut message: ServerJsonRpcMessage,
    executions: &Executions,
) -> ServerJsonRpcMessage {
    if executions.is_empty() {
        return message;
    }
    let JsonRpcMessage::Response(response) = &mut message else {
        return message;
    };
    let ServerResult::ListToolsResult(list) = &response.result else {
        return message;
    };
    if list.result_type.is_some() {
        return message;
    }
    // rmcp's own types encode; should one not, the list goes as rmcp has it.
    let Ok(mut wire) = serde_json::to_value(list) else {
        return message;
    };
    let tools = wire.get_mut("tools").and_then(Value::as_array_mut);
    for tool in tools.into_iter().flatten().filter_map(Value::as_object_mut) {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        if let Some(execution) = executions.get(name) {
            tool.insert("execution".to_string(), execution.clone());
        }
    }
    response.result = ServerResult::CustomResult(CustomResult(wire));
    message
}

/// A server transport that writes each task tool's `execution` into the `tools/list`
/// results it sends (see the module).
pub(crate) struct ListingTransport<T> {
    inner: T,
    executions: Executions,
}

impl<T> ListingTransport<T> {
    /// `inner`, listing `executions`.
    pub(crate) fn new(inner: T, executions: Executions) -> Self {
        Self { inner, executions }
    }
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for ListingTransport<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(with_executions(item, &self.executions))
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// A result that carries the caching hints of SEP-2549 (MCP 2026-07-28).
pub(crate) trait CachingHints {
    /// Sets `ttlMs` and `cacheScope` to `caching`'s where the result sets none, and
    /// `resultType` to `complete` where it is unset.
    fn fill_hints(&mut self, caching: ListCaching);
}

/// [`CachingHints`] of rmcp results with `ttl_ms`, `cache_scope` and `result_type`.
macro_rules! caching_hints {
    ($($result:ty),+) => {$(
        impl CachingHints for $result {
            fn fill_hints(&mut self, caching: ListCaching) {
                self.ttl_ms.get_or_insert(caching.ttl_ms);
                self.cache_scope.get_or_insert(caching.scope);
                self.result_type.get_or_insert(ResultType::COMPLETE);
            }
        }
    )+};
}

caching_hints!(
    ListToolsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListPromptsResult,
    ReadResourceResult
);

/// A read that needs the client's input first (`InputRequiredResult`) has no hints.
impl CachingHints for ReadResourceResponse {
    fn fill_hints(&mut self, caching: ListCaching) {
        if let Self::Complete(result) = self {
            result.fill_hints(caching);
        }
    }
}
