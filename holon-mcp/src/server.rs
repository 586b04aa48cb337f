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
//!
//! A request of MCP 2026-07-28 (stateless: its `_meta` names the revision and the
//! client's capabilities) reaches the client through [`crate::rounds`]; one of
//! 2025-11-25 through the session's peer. Resources, prompts and completion are the
//! host's own handler's ([`McpServer::with_handler`]). List results carry the caching
//! hints of [`ListCaching`].

use std::borrow::Cow;
use std::ops::Deref;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use holon_core::{
    ClientPeer, FamilyPolicy, Registry, ToolCall, ToolContext, ToolErrorKind, ToolResult, closest,
};
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, ClientCapabilities, CompleteRequestParams,
    CompleteResult, CustomRequest, CustomResult, ErrorCode, GetPromptRequestParams,
    GetPromptResponse, InitializeRequestParams, InitializeResult, InputResponses,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ResultType,
    ServerCapabilities, ServerConfig, SubscriptionFilter, Tool,
};
use rmcp::model::{CancelTaskParams, GetTaskParams, GetTaskResult, UpdateTaskParams};
use rmcp::model::{RequestStateCodec, RequestStateError};
#[allow(deprecated)] // logging and resource subscriptions: see client, extras
use rmcp::model::{SetLevelRequestParams, SubscribeRequestParams, UnsubscribeRequestParams};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::approval;
use crate::client::{LogGate, McpClient, SessionLogLevel, level_of};
use crate::content;
use crate::context::{call_context, granted, is_stateless, principal};
use crate::error::CatalogError;
use crate::extras::Extras;
use crate::info::ServerInfo;
use crate::listing::{CachingHints, Catalog};
use crate::progress::CallProgress;
use crate::rounds::{self, BadState, InputRounds, Outcome, StateSeal};
use crate::tasks::{self, Hints, MemoryTaskStore, TaskNotifier, TaskStore, Tasks};
use crate::telemetry::{self, RequestSpan, Target};

/// The caching hints list results carry (SEP-2549, MCP 2026-07-28): how long a client
/// may reuse a `tools/list` (and the host handler's lists and reads, when it sets
/// none), and whether a shared cache may.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListCaching {
    /// How long, in milliseconds (0: not at all).
    pub ttl_ms: u64,
    /// Who may reuse it: `Private` (this client only) or `Public` (any).
    pub scope: CacheScope,
}

impl Default for ListCaching {
    /// Five minutes, this client only: the tools of a server change when it restarts,
    /// and which of them a client sees may depend on who it is (its token's families).
    fn default() -> Self {
        Self {
            ttl_ms: 5 * 60 * 1000,
            scope: CacheScope::Private,
        }
    }
}

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

/// Which tool names `tools/list` shows (see [`McpServer::with_listed`]).
type ListedFilter = dyn Fn(&str) -> bool + Send + Sync;

/// The MCP server: the registry behind `tools/list` and `tools/call`, and the
/// identity it shows clients.
#[derive(Clone)]
pub struct McpServer {
    registry: ServedRegistry,
    info: Arc<ServerInfo>,
    context: ToolContext,
    /// The MCP form of the tools the context's policy allows, built once.
    tools: Arc<OnceLock<Result<Catalog, CatalogError>>>,
    /// Where relative artifact paths are, for their `file://` links.
    workspace: Option<PathBuf>,
    /// The session's `logging/setLevel`; each session gets its own ([`Self::session`]).
    log_level: Arc<SessionLogLevel>,
    /// The seal on the `requestState` of a 2026-07-28 call's rounds.
    seal: Arc<StateSeal>,
    /// Whether the host gave the seal's keys (`with_keyring`): a store's ring does
    /// not replace them.
    keys_given: bool,
    /// How old a store's ring may get before the server reads it again.
    keyring_refresh: std::time::Duration,
    /// The caching hints of list results.
    caching: ListCaching,
    /// The host's handler of resources, prompts and completion.
    extras: Option<Arc<dyn Extras>>,
    /// Which tools `tools/list` shows (all when `None`); every tool stays callable.
    listed: Option<Arc<ListedFilter>>,
    /// The tasks extension (crate::tasks): `None` when no served tool runs as a task
    /// and the host gave no store.
    tasks: Option<Arc<Tasks>>,
    /// The lease of the tasks this server runs.
    task_lease_ms: u64,
}

/// The seal of a server without a store: a random key of this process, so its
/// states open in this process only.
fn process_seal() -> StateSeal {
    // Without the OS's randomness the key would be guessable: better no start.
    let ring = crate::Keyring::generate().expect("the OS provides random bytes for the state key");
    StateSeal::fixed(&ring)
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
            .then(|| {
                default_tasks(
                    Arc::new(MemoryTaskStore::new()),
                    tasks::DEFAULT_TASK_LEASE_MS,
                    Hints::local(),
                )
            });
        Self {
            registry,
            info: Arc::new(info),
            context: ToolContext::new(FamilyPolicy::all()),
            tools: Arc::default(),
            workspace: None,
            log_level: Arc::default(),
            seal: Arc::new(process_seal()),
            keys_given: false,
            keyring_refresh: crate::keyring::REFRESH,
            caching: ListCaching::default(),
            extras: None,
            listed: None,
            tasks,
            task_lease_ms: tasks::DEFAULT_TASK_LEASE_MS,
        }
    }

    /// Serves `handler`'s resources, prompts and completions beside the tools: the
    /// server declares the capabilities `handler.get_info()` declares of them, and
    /// hands it `resources/*`, `prompts/*` and `completion/complete`. Its tools and
    /// everything else are not asked.
    pub fn with_handler(mut self, handler: impl ServerHandler + 'static) -> Self {
        self.extras = Some(Arc::new(handler));
        self
    }

    /// The caching hints of list results (default: [`ListCaching::default`]).
    pub fn with_list_caching(mut self, caching: ListCaching) -> Self {
        self.caching = caching;
        self
    }

    /// Seals the `requestState` of 2026-07-28 rounds with `key` (at least 32 bytes),
    /// so that every replica of a server opens what any of them sealed: a ring of
    /// this one key (id `request-state-key`), which a store's ring does not replace.
    /// [`with_keyring`](Self::with_keyring) takes a ring that can rotate.
    pub fn with_request_state_key(mut self, key: &[u8]) -> Result<Self, RequestStateError> {
        let codec = RequestStateCodec::new_with_keyring(
            "request-state-key",
            [("request-state-key", key.to_vec())],
        )?;
        self.seal = Arc::new(StateSeal::with_codec(Arc::new(codec)));
        self.keys_given = true;
        Ok(self)
    }

    /// Seals the `requestState` of 2026-07-28 rounds with `keyring`'s current key,
    /// and opens what any of its keys sealed: keys the operator keeps out of the
    /// database (such as [`Keyring::from_file`](crate::Keyring::from_file)), handed
    /// to every replica alike. A store's ring ([`with_stores`](Self::with_stores))
    /// does not replace them, whichever is called first.
    pub fn with_keyring(mut self, keyring: &crate::Keyring) -> Self {
        self.seal = Arc::new(StateSeal::fixed(keyring));
        self.keys_given = true;
        self
    }

    /// Shows in `tools/list` only the tools whose name `listed` accepts, while every
    /// served tool stays callable by name: with the discovery meta-tools (and any
    /// pinned tools) listed, a client finds the rest by search. The set is fixed for
    /// the server's life, so it never sends `notifications/tools/list_changed`.
    pub fn with_listed(mut self, listed: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        self.listed = Some(Arc::new(listed));
        self
    }

    /// Keeps the tasks of calls that run as tasks in `store` (such as a
    /// `tasks::SqliteTaskStore`, feature `sqlite`) rather than in memory, for
    /// [`tasks::DEFAULT_TASK_TTL_MS`] each; and serves the tasks extension.
    pub fn with_task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.tasks = Some(default_tasks(store, self.task_lease_ms, Hints::local()));
        self
    }

    /// Renews the lease of each task this server runs for `lease` at a time
    /// (default [`tasks::DEFAULT_TASK_LEASE_MS`]): once a lease has run out, any
    /// server on the store reads the task as `failed` (its server stopped). A
    /// shorter lease reports a stopped server sooner, at a store write per third
    /// of it per running task.
    pub fn with_task_lease(mut self, lease: std::time::Duration) -> Self {
        self.task_lease_ms = u64::try_from(lease.as_millis()).unwrap_or(u64::MAX);
        if let Some(tasks) = &self.tasks {
            self.tasks = Some(default_tasks(
                tasks.store().clone(),
                self.task_lease_ms,
                tasks.hints().clone(),
            ));
        }
        self
    }

    /// Reads the store's keyring again once it is `refresh` old (default
    /// [`keyring::REFRESH`](crate::keyring::REFRESH), 30 s): the longest a replica
    /// seals with a key after a rotation, or opens with one rotated out. Each read
    /// is one query of the store, at the first seal or open after the period.
    pub fn with_keyring_refresh(mut self, refresh: std::time::Duration) -> Self {
        self.keyring_refresh = refresh;
        self.seal = Arc::new(self.seal.with_refresh(refresh));
        self
    }

    /// Keeps the server's state in `stores` (opened from a [`StoreUrl`](crate::StoreUrl)):
    /// the keyring that seals `requestState` (unless the host gave keys: see
    /// [`with_keyring`](Self::with_keyring)), and the tasks of calls that run as
    /// tasks, when a served tool may run as one (a server without such a tool keeps
    /// no tasks and does not serve the extension).
    pub fn with_stores(mut self, stores: &crate::Stores) -> Self {
        if !self.keys_given {
            self.seal = Arc::new(stores.seal(self.keyring_refresh));
        }
        if self.tasks.is_some() {
            self.tasks = Some(default_tasks(
                stores.tasks().clone(),
                self.task_lease_ms,
                stores.task_hints().clone(),
            ));
        }
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

    /// The registry it serves.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// `Ok` when every served tool has an MCP form rmcp takes; the servers check it
    /// before they accept a client.
    pub fn check(&self) -> Result<(), CatalogError> {
        self.tools().map(|_| ())
    }

    /// The MCP form of the served tools.
    pub(crate) fn catalog(&self) -> Result<&Catalog, CatalogError> {
        let catalog = self
            .tools
            .get_or_init(|| Catalog::export(&self.registry, self.context.policy()));
        catalog.as_ref().map_err(Clone::clone)
    }

    /// The served tools as rmcp takes them.
    fn tools(&self) -> Result<&[Tool], CatalogError> {
        self.catalog().map(Catalog::tools)
    }

    /// Answers a list (or a read) in the request's `span`: what `list` gives, with
    /// the caching hints of [`ListCaching`] where it sets none.
    async fn answer_list<R: CachingHints>(
        &self,
        span: RequestSpan,
        list: impl Future<Output = Result<R, ErrorData>>,
    ) -> Result<R, ErrorData> {
        span.run(async move {
            let mut result = list.await?;
            result.fill_hints(self.caching);
            Ok(result)
        })
        .await
    }

    /// The same server for a new HTTP session: its own log level.
    #[cfg(feature = "http")]
    pub(crate) fn session(&self) -> Self {
        Self {
            log_level: Arc::default(),
            ..self.clone()
        }
    }

    /// The client of the request `context`: its peer, its capabilities and its log
    /// level (the request's own under 2026-07-28, the session's before).
    fn request_client(&self, context: &RequestContext<RoleServer>, stateless: bool) -> McpClient {
        let log = if stateless {
            LogGate::Request(context.meta.log_level().map(level_of))
        } else {
            LogGate::Session(self.log_level.clone())
        };
        McpClient::new(context.peer.clone(), log, context.client_capabilities())
    }

    /// The host's handler, or method-not-found for a server without one.
    fn extras(&self) -> Result<&dyn Extras, ErrorData> {
        self.extras.as_deref().ok_or_else(|| {
            ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "this server serves tools only: no resources, prompts or completions",
                None,
            )
        })
    }

    /// `tools/call`: the tool's dispatch on the request's context, its result in
    /// MCP's form (a task's handle, or the next input round, under 2026-07-28).
    async fn call(
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
        let stateless = is_stateless(&context);
        let client = self.request_client(&context, stateless);
        // rmcp cancels the request's token on `notifications/cancelled` (and when the
        // session ends); the dispatch then stops the call's work.
        let mut call_context = call_context(&self.context, &context);
        // Tasks extension (crate::tasks): a call that runs as a task is answered
        // with its handle once the task is stored (it reports no progress: the
        // request it would report on has ended).
        if let Some(tasks) = &self.tasks
            && tasks::run_as_task(definition, &context)?
        {
            let binding = rounds::binding(name, &input, principal(&context).map(|p| p.id()));
            let call = tasks::TaskCall {
                registry: self.registry.clone(),
                definition: definition.clone(),
                call: ToolCall::new(name, input),
                context: call_context,
                workspace: self.workspace.clone(),
            };
            if !stateless {
                return call.start(tasks, &context);
            }
            let rounds = self.open_rounds(
                client,
                &binding,
                request.request_state,
                request.input_responses,
            )?;
            return call
                .start_after_input(tasks, &context, rounds, &self.seal, &binding)
                .await;
        }
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| CallProgress::start(context.peer.clone(), token));
        if let Some(progress) = &progress {
            call_context = call_context.with_progress(progress.sink());
        }
        let result = if stateless {
            let binding = rounds::binding(name, &input, principal(&context).map(|p| p.id()));
            let rounds = self.open_rounds(
                client,
                &binding,
                request.request_state,
                request.input_responses,
            )?;
            let rounds = Arc::new(rounds);
            let call_context = call_context.with_client(rounds.clone() as Arc<dyn ClientPeer>);
            let registry: &Registry = &self.registry;
            let call = async {
                let result = registry
                    .dispatch(&call_context, ToolCall::new(name, input.clone()))
                    .await;
                approval::resolve(registry, &call_context, &*rounds, result).await
            };
            match rounds.run(call, &self.seal, &binding).await {
                Outcome::Done(result) => result,
                Outcome::InputRequired(asked) => {
                    if let Some(progress) = progress {
                        progress.flush().await;
                    }
                    return Ok(CallToolResponse::InputRequired(asked));
                }
            }
        } else {
            let client = Arc::new(client);
            let call_context = call_context.with_client(client.clone());
            let result = self
                .registry
                .dispatch(&call_context, ToolCall::new(name, input))
                .await;
            approval::resolve(&self.registry, &call_context, &*client, result).await
        };
        if let Some(progress) = progress {
            progress.flush().await;
        }
        if stateless && let Some(missing) = missing_capability(&result) {
            return Err(missing);
        }
        let result = content::call_result(definition, result, self.workspace.as_deref())?;
        if result.is_error == Some(true) {
            telemetry::mark_tool_error();
        }
        Ok(result.into())
    }

    /// The client of a 2026-07-28 call: the rounds its `requestState` (sealed for
    /// `binding`) and `responses` carry.
    fn open_rounds(
        &self,
        client: McpClient,
        binding: &[u8],
        request_state: Option<String>,
        responses: Option<InputResponses>,
    ) -> Result<InputRounds, ErrorData> {
        InputRounds::open(
            client,
            &self.seal,
            binding,
            request_state.as_deref(),
            responses,
        )
        .map_err(|BadState(message)| {
            ErrorData::invalid_params(message, Some(json!({ "kind": "invalid_request_state" })))
        })
    }

    fn unknown_tool(&self, name: &str) -> ErrorData {
        let tools = self.tools().unwrap_or_default();
        let suggestion = closest(name, tools.iter().map(|tool| tool.name.as_ref()));
        let shown = shown_name(name);
        let message = match suggestion {
            Some(best) => format!("unknown tool `{shown}`; did you mean `{best}`?"),
            None => format!("unknown tool `{shown}`; tools/list shows the tools"),
        };
        ErrorData::invalid_params(
            message,
            Some(json!({ "kind": "unknown_tool", "tool": shown, "did_you_mean": suggestion })),
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
        let mut capabilities = builder.build();
        if let Some(extras) = &self.extras {
            let theirs = extras.capabilities();
            capabilities.resources = theirs.resources;
            capabilities.prompts = theirs.prompts;
            capabilities.completions = theirs.completions;
        }
        let config = ServerConfig::new(capabilities).with_server_info(self.info.implementation());
        match self.info.instructions() {
            Some(instructions) => config.with_instructions(instructions),
            None => config,
        }
    }

    /// The tool `name` when it has `Mcp-Param-*` headers (crate::param_headers): rmcp's
    /// transport checks a 2026-07-28 call's headers against its schema, and refuses a
    /// call whose headers and body disagree (HTTP 400, `-32020`). A tool without
    /// headers is `None`: there is nothing to check, and nothing is cloned.
    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.catalog().ok()?.headed_tool(name).cloned()
    }

    /// rmcp's own answer (the negotiated revision, the server's info), in a span.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        let span = RequestSpan::new("initialize", Target::None, &context);
        span.run(async move {
            context.peer.set_peer_info(request.clone());
            self.negotiate_initialize(&request)
        })
        .await
    }

    /// The empty answer, in a span. (A `ping` before `initialize` is rmcp's alone:
    /// it answers it before there is a session to hand it to.)
    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        let span = RequestSpan::new("ping", Target::None, &context);
        span.run(std::future::ready(Ok(()))).await
    }

    /// The tools the caller may call: under an access token, those of the families
    /// it grants only, and then the list is the caller's own (`cacheScope: private`).
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let span = RequestSpan::new("tools/list", Target::None, &context);
        self.answer_list(span, async move {
            let tools = self
                .tools()
                .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
            let granted = granted(&context, self.context.policy());
            let callable = |name: &str| {
                granted.is_none_or(|policy| {
                    self.registry
                        .get(name)
                        .is_some_and(|definition| policy.allows(definition.family))
                })
            };
            let listed = tools
                .iter()
                .filter(|tool| self.listed.as_ref().is_none_or(|listed| listed(&tool.name)))
                .filter(|tool| callable(&tool.name))
                .cloned()
                .collect();
            let result = ListToolsResult::with_all_items(listed);
            // Under an access token the list is the caller's own.
            Ok(match granted {
                Some(_) => result.with_cache_scope(CacheScope::Private),
                None => result,
            })
        })
        .await
    }

    /// The client's least level of the log messages its tools send it.
    #[allow(deprecated)] // logging: see client
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let span = RequestSpan::new("logging/setLevel", Target::None, &context);
        span.run(async move {
            self.log_level.set(request.level);
            Ok(())
        })
        .await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Looked up for the span's name only: not at all without spans.
        let served = cfg!(feature = "tracing")
            && self
                .registry
                .get(&request.name)
                .is_some_and(|definition| definition.is_model_facing());
        let target = Target::Tool {
            name: &request.name,
            served,
        };
        let span = RequestSpan::new("tools/call", target, &context);
        // Boxed: the call's future (with its task, input-round and approval branches)
        // is large, and rmcp moves the request's future several times as it spawns it;
        // a box moves as a pointer (about 100 KB less copied a call).
        span.run(Box::pin(self.call(request, context))).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let span = RequestSpan::new("resources/list", Target::None, &context);
        self.answer_list(span, async move {
            self.extras()?.list_resources(request, context).await
        })
        .await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let span = RequestSpan::new("resources/templates/list", Target::None, &context);
        self.answer_list(span, async move {
            self.extras()?
                .list_resource_templates(request, context)
                .await
        })
        .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let span = RequestSpan::new("resources/read", Target::Resource(&request.uri), &context);
        self.answer_list(span, async move {
            self.extras()?.read_resource(request, context).await
        })
        .await
    }

    #[allow(deprecated)] // resource subscriptions: see extras
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let span = RequestSpan::new(
            "resources/subscribe",
            Target::Resource(&request.uri),
            &context,
        );
        span.run(async move { self.extras()?.subscribe(request, context).await })
            .await
    }

    #[allow(deprecated)] // resource subscriptions: see extras
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let span = RequestSpan::new(
            "resources/unsubscribe",
            Target::Resource(&request.uri),
            &context,
        );
        span.run(async move { self.extras()?.unsubscribe(request, context).await })
            .await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let span = RequestSpan::new("prompts/list", Target::None, &context);
        self.answer_list(span, async move {
            self.extras()?.list_prompts(request, context).await
        })
        .await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let span = RequestSpan::new("prompts/get", Target::Prompt(&request.name), &context);
        span.run(async move {
            let mut response = self.extras()?.get_prompt(request, context).await?;
            if let GetPromptResponse::Complete(result) = &mut response {
                result.result_type.get_or_insert(ResultType::COMPLETE);
            }
            Ok(response)
        })
        .await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let span = RequestSpan::new("completion/complete", Target::None, &context);
        span.run(async move {
            let mut result = self.extras()?.complete(request, context).await?;
            result.result_type.get_or_insert(ResultType::COMPLETE);
            Ok(result)
        })
        .await
    }

    /// What of `requested` the host's handler delivers on a 2026-07-28
    /// `subscriptions/listen` stream (its resources' updates, its lists' changes).
    /// Without a handler, or one that delivers nothing, the method is not found. rmcp
    /// keeps only what the server declares: never `toolsListChanged` (the tools are
    /// fixed for the server's life).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.extras
            .as_ref()?
            .accepted_subscription_filter(requested)
    }

    /// The host's handler runs the subscription (rmcp has acknowledged it, and its
    /// sink sends what the filter accepts, tagged with the subscription's id).
    /// Meanwhile, with the tasks extension, the stream carries `notifications/tasks`
    /// for the tasks of its owner as their status changes (crate::tasks): watched
    /// before the host's handler starts, so that what follows its start is heard.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let span = RequestSpan::new(
            "subscriptions/listen",
            Target::None,
            context.request_context(),
        );
        span.run(async move {
            let Some(extras) = &self.extras else {
                context.cancelled().await;
                return Ok(());
            };
            let Some(tasks) = &self.tasks else {
                return extras.listen(context).await;
            };
            let notifier = TaskNotifier::open(tasks, context.request_context()).await;
            let listening = extras.listen(context);
            tokio::pin!(listening);
            tokio::select! {
                result = &mut listening => result,
                // The stream is gone: the host's handler sees it too.
                () = notifier.run() => listening.await,
            }
        })
        .await
    }

    /// Tasks extension (crate::tasks): `tasks/get`.
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let span = RequestSpan::new("tasks/get", Target::None, &context);
        span.run(async move {
            self.tasks()?
                .get(&tasks::owner_of(&context), &request.task_id)
        })
        .await
    }

    /// Tasks extension (crate::tasks): `tasks/update`.
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let span = RequestSpan::new("tasks/update", Target::None, &context);
        span.run(async move {
            self.tasks()?.update(
                &tasks::owner_of(&context),
                &request.task_id,
                request.input_responses,
            )
        })
        .await
    }

    /// Tasks extension (crate::tasks): `tasks/cancel`.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let span = RequestSpan::new("tasks/cancel", Target::None, &context);
        span.run(async move {
            self.tasks()?
                .cancel(&tasks::owner_of(&context), &request.task_id)
        })
        .await
    }

    /// rmcp hands a request whose params do not parse (a `tools/call` without `name`,
    /// with array `arguments`) here as a custom request, which would answer
    /// method-not-found: for a method this server has, the answer is invalid-params,
    /// naming what is wrong where.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let span = RequestSpan::new(&request.method, Target::None, &context);
        span.run(async move {
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
        })
        .await
    }
}

/// How many characters of an unknown tool's name its error repeats: the name is the
/// model's, and one of megabytes would come back twice.
const SHOWN_NAME_CHARS: usize = 100;

/// `name`, cut after [`SHOWN_NAME_CHARS`] characters (saying how long it was).
fn shown_name(name: &str) -> Cow<'_, str> {
    match name.char_indices().nth(SHOWN_NAME_CHARS) {
        Some((end, _)) => format!("{}... ({} bytes in all)", &name[..end], name.len()).into(),
        None => name.into(),
    }
}

/// Under 2026-07-28, a call that needed a capability the request's `_meta` does not
/// declare is the protocol's error (-32021, naming the capability), not a tool's.
pub(crate) fn missing_capability(result: &ToolResult) -> Option<ErrorData> {
    let error = result.error.as_deref()?;
    if error.kind != ToolErrorKind::CLIENT_CAPABILITY_MISSING {
        return None;
    }
    let capability = error.details.as_ref()?.get("capability")?.as_str()?;
    let required: ClientCapabilities = serde_json::from_value(json!({ capability: {} })).ok()?;
    Some(ErrorData::missing_required_client_capability(required))
}

/// The tasks kept in `store`, each for the default time to live, those running
/// here under leases of `lease_ms`, the changes of their status hinted through
/// `hints`.
fn default_tasks(store: Arc<dyn TaskStore>, lease_ms: u64, hints: Hints) -> Arc<Tasks> {
    Arc::new(Tasks::new(
        store,
        Some(tasks::DEFAULT_TASK_TTL_MS),
        lease_ms,
        hints,
    ))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_tool_of_a_huge_name_is_answered_in_a_few_hundred_bytes() {
        let server = McpServer::new(
            Registry::filtered(|_| false).unwrap(),
            ServerInfo::new("t", "1"),
        );
        let name = "é".repeat(1 << 20);
        let error = serde_json::to_string(&server.unknown_tool(&name)).unwrap();
        assert!(error.len() < 1_000, "{} bytes", error.len());
        assert!(
            error.contains(&format!("{}... (2097152 bytes in all)", "é".repeat(100))),
            "{error}"
        );
        let short = serde_json::to_value(server.unknown_tool("Nope")).unwrap();
        assert_eq!(short["data"]["tool"], "Nope");
        assert_eq!(
            short["message"],
            "unknown tool `Nope`; tools/list shows the tools"
        );
    }
}
