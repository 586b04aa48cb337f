//! The MCP server of a registry: `tools/list` and `tools/call`.
//!
//! `tools/list` is the registry's MCP export under the context's family policy;
//! `tools/call` goes through the registry's dispatcher. A success is the receipt as
//! text (plus the tool's content blocks) and the structured result; a tool error,
//! invalid arguments included, is a result with `isError: true` whose receipt names
//! the error and whose `_meta["holon/error"]` is the typed error, without
//! `structuredContent` (the `outputSchema` describes successes, and MCP validates
//! successful results only); an unknown tool, or `tools/call` params that do not
//! parse, is a JSON-RPC invalid-params error.
//!
//! Each call is cancelled by the client's `notifications/cancelled` for its request
//! (the dispatcher drops it), and reports its progress as `notifications/progress`
//! when the request has `_meta.progressToken`.

use std::ops::Deref;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use holon_core::{FamilyPolicy, Registry, ToolCall, ToolContext, closest};
use holon_export::{self as export, ExportOptions, Provider};
#[allow(deprecated)] // logging: see client
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CustomRequest, CustomResult,
    ErrorCode, GetTaskParams, GetTaskResult, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::client::SessionLogLevel;
use crate::content;
use crate::context::call_context;
use crate::info::ServerInfo;
use crate::progress::CallProgress;
use crate::tasks::{self, MemoryTaskStore, TaskStore, Tasks};

/// The registry a server serves: the program's global one, or one it owns.
#[derive(Clone)]
pub enum ServedRegistry {
    /// A registry that lives as long as the program ([`Registry::global`]).
    Static(&'static Registry),
    /// A registry built for this server (a filter of the linked tools).
    Owned(Arc<Registry>),
}

impl Deref for ServedRegistry {
    type Target = Registry;

    fn deref(&self) -> &Registry {
        match self {
            Self::Static(registry) => registry,
            Self::Owned(registry) => registry,
        }
    }
}

impl From<&'static Registry> for ServedRegistry {
    fn from(registry: &'static Registry) -> Self {
        Self::Static(registry)
    }
}

impl From<Registry> for ServedRegistry {
    fn from(registry: Registry) -> Self {
        Self::Owned(Arc::new(registry))
    }
}

impl From<Arc<Registry>> for ServedRegistry {
    fn from(registry: Arc<Registry>) -> Self {
        Self::Owned(registry)
    }
}

/// The MCP server: the registry behind `tools/list` and `tools/call`, and the
/// identity it shows clients.
#[derive(Clone)]
pub struct McpServer {
    registry: ServedRegistry,
    info: Arc<ServerInfo>,
    context: ToolContext,
    /// The MCP form of the tools the context's policy allows, built once.
    tools: Arc<OnceLock<Result<Vec<Tool>, String>>>,
    /// Where relative artifact paths are, for their `file://` links.
    workspace: Option<PathBuf>,
    /// The session's `logging/setLevel`; each session gets its own ([`Self::session`]).
    log_level: Arc<SessionLogLevel>,
    /// The tasks extension (crate::tasks): `None` when no served tool runs as a task
    /// and the host gave no store.
    tasks: Option<Arc<Tasks>>,
}

impl McpServer {
    /// A server of `registry`'s tools (every family), calling itself `info`
    /// (usually [`server_info!()`](crate::server_info): the calling crate's package).
    pub fn new(registry: impl Into<ServedRegistry>, info: ServerInfo) -> Self {
        let registry = registry.into();
        // A registry with a tool that may run as a task serves the tasks extension,
        // its tasks in memory unless the host gives a store.
        let tasks = registry
            .definitions()
            .any(|definition| !definition.task.is_forbidden())
            .then(|| default_tasks(Arc::new(MemoryTaskStore::new())));
        Self {
            registry,
            info: Arc::new(info),
            context: ToolContext::new(FamilyPolicy::all()),
            tools: Arc::default(),
            workspace: None,
            log_level: Arc::default(),
            tasks,
        }
    }

    /// Keeps the tasks of calls that run as tasks in `store` (such as a
    /// `tasks::SqliteTaskStore`, feature `sqlite`) rather than in memory, for
    /// [`tasks::DEFAULT_TASK_TTL_MS`] each; and serves the tasks extension.
    pub fn with_task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.tasks = Some(default_tasks(store));
        self
    }

    /// Dispatches each call in `context` (plus what the request brings), and lists
    /// the tools its family policy allows.
    pub fn with_context(mut self, context: ToolContext) -> Self {
        self.context = context;
        self.tools = Arc::default();
        self
    }

    /// Resolves relative artifact paths in `workspace` for their `file://` links.
    pub fn with_workspace(mut self, workspace: impl Into<PathBuf>) -> Self {
        self.workspace = Some(workspace.into());
        self
    }

    /// The tasks extension's tasks, or the error of a server without it.
    fn tasks(&self) -> Result<&Arc<Tasks>, ErrorData> {
        self.tasks
            .as_ref()
            .ok_or_else(ErrorData::method_not_found::<rmcp::model::GetTaskMethod>)
    }

    /// Who the server says it is.
    pub fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// `Ok` when every served tool has an MCP form rmcp takes; the servers check it
    /// before they accept a client.
    pub fn check(&self) -> Result<(), String> {
        self.tools().map(|_| ())
    }

    /// The MCP form of the served tools.
    fn tools(&self) -> Result<&[Tool], String> {
        let tools = self.tools.get_or_init(|| {
            let options = ExportOptions::new(self.context.policy());
            export::export(&self.registry, Provider::Mcp, options)
                .tools
                .into_iter()
                .map(|tool| serde_json::from_value::<Tool>(tool.wire))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|error| format!("a tool cannot be listed over MCP: {error}"))
        });
        tools.as_deref().map_err(Clone::clone)
    }

    /// The same server for a new session: its own log level.
    pub(crate) fn session(&self) -> Self {
        Self {
            log_level: Arc::default(),
            ..self.clone()
        }
    }

    fn unknown_tool(&self, name: &str) -> ErrorData {
        let tools = self.tools().unwrap_or_default();
        let suggestion = closest(name, tools.iter().map(|tool| tool.name.as_ref()));
        let message = match suggestion {
            Some(best) => format!("unknown tool `{name}`; did you mean `{best}`?"),
            None => format!("unknown tool `{name}`; tools/list shows the tools"),
        };
        ErrorData::invalid_params(
            message,
            Some(json!({ "kind": "unknown_tool", "tool": name, "did_you_mean": suggestion })),
        )
    }
}

impl ServerHandler for McpServer {
    #[allow(deprecated)] // logging: see client
    fn get_info(&self) -> ServerConfig {
        let builder = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging();
        // Tasks extension (crate::tasks).
        let builder = match self.tasks {
            Some(_) => builder.enable_tasks(),
            None => builder,
        };
        let capabilities = builder.build();
        let config = ServerConfig::new(capabilities).with_server_info(self.info.implementation());
        match self.info.instructions() {
            Some(instructions) => config.with_instructions(instructions),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self
            .tools()
            .map_err(|error| ErrorData::internal_error(error, None))?;
        Ok(ListToolsResult::with_all_items(tools.to_vec()))
    }

    /// The client's least level of the log messages its tools send it.
    #[allow(deprecated)] // logging: see client
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.set(request.level);
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        let Some(definition) = self
            .registry
            .get(name)
            .filter(|definition| definition.is_model_facing())
        else {
            return Err(self.unknown_tool(name));
        };
        // rmcp delivers the arguments already parsed: a key the client repeated has
        // been collapsed to its last value here, so the `Value` entry point it is.
        let input = Value::Object(request.arguments.unwrap_or_default());
        // rmcp cancels the request's token on `notifications/cancelled` (and when the
        // session ends); the dispatch then stops the call's work.
        let mut call_context = call_context(&self.context, &context, &self.log_level);
        // Tasks extension (crate::tasks): a call that runs as a task is answered
        // with its handle once the task is stored (it reports no progress: the
        // request it would report on has ended).
        if let Some(tasks) = &self.tasks
            && tasks::run_as_task(definition, &context)?
        {
            let call = tasks::TaskCall {
                registry: self.registry.clone(),
                definition: definition.clone(),
                call: ToolCall::new(name, input),
                context: call_context,
                workspace: self.workspace.clone(),
            };
            return call.start(tasks, &context);
        }
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| CallProgress::start(context.peer.clone(), token));
        if let Some(progress) = &progress {
            call_context = call_context.with_progress(progress.sink());
        }
        let result = self
            .registry
            .dispatch(&call_context, ToolCall::new(name, input))
            .await;
        if let Some(progress) = progress {
            progress.flush().await;
        }
        let result = content::call_result(definition, result, self.workspace.as_deref())?;
        Ok(result.into())
    }

    /// Tasks extension (crate::tasks): `tasks/get`.
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.tasks()?
            .get(&tasks::owner_of(&context), &request.task_id)
    }

    /// Tasks extension (crate::tasks): `tasks/update`.
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks()?.update(
            &tasks::owner_of(&context),
            &request.task_id,
            request.input_responses,
        )
    }

    /// Tasks extension (crate::tasks): `tasks/cancel`.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks()?
            .cancel(&tasks::owner_of(&context), &request.task_id)
    }

    /// rmcp hands a request whose params do not parse (a `tools/call` without `name`,
    /// with array `arguments`) here as a custom request, which would answer
    /// method-not-found: for a method this server has, the answer is invalid-params,
    /// naming what is wrong where.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let problem = match request.method.as_str() {
            "tools/call" => params_problem::<CallToolRequestParams>(request.params),
            _ => None,
        };
        Err(match problem {
            Some((field, message)) => ErrorData::invalid_params(
                format!("invalid {} params: {message}", request.method),
                Some(json!({ "kind": "invalid_params", "field": field })),
            ),
            None => ErrorData::new(ErrorCode::METHOD_NOT_FOUND, request.method, None),
        })
    }
}

/// The tasks kept in `store`, each for the default time to live.
fn default_tasks(store: Arc<dyn TaskStore>) -> Arc<Tasks> {
    Arc::new(Tasks::new(store, Some(tasks::DEFAULT_TASK_TTL_MS)))
}

/// Why `params` do not parse as `T` (the path of the offending field, `None` for the
/// params themselves, and serde's message), or `None` if they do.
fn params_problem<T: serde::de::DeserializeOwned>(
    params: Option<Value>,
) -> Option<(Option<String>, String)> {
    let Some(params) = params else {
        return Some((None, "params are missing".to_string()));
    };
    let error = serde_path_to_error::deserialize::<_, T>(params).err()?;
    let path = error.path().to_string();
    let field = (path != ".").then_some(path);
    let message = match &field {
        Some(path) => format!("at `{path}`: {}", error.inner()),
        None => error.inner().to_string(),
    };
    Some((field, message))
}
