//! Handles on the client a call came from: log to it ([`ClientLog`]), ask it to sample
//! a completion from its model ([`Sampling`]), to ask its user ([`Elicitation`]) or for
//! its roots ([`Roots`]).
//!
//! A handler takes them as parameters, as it takes `&ToolContext`:
//!
//! ```
//! use holon_core::prelude::*;
//! use holon_core::{ClientLog, Sampling, SamplingRequest};
//!
//! /// Summarizes a text with the client's model.
//! #[holon_tool(family = CoreAgent)]
//! async fn summarize(log: ClientLog, sampling: Sampling) -> Result<String, ToolError> {
//!     log.info("asking the client's model").await;
//!     let reply = sampling.create_message(SamplingRequest::user_text("Summarize ...", 200)).await?;
//!     Ok(reply.text().unwrap_or_default().to_string())
//! }
//! ```
//!
//! The host provides the connection with [`ToolContext::with_client`], implementing
//! [`ClientPeer`] over its protocol (the MCP server does, over rmcp's peer). Taking a
//! handle fails before the handler runs, with a typed error: `client_unavailable` when
//! the host has no client (the CLI, an embedding runtime), `client_capability_missing`
//! when the client did not declare `sampling`, `elicitation` or `roots`. A handler that
//! can do without takes `Option<Sampling>` (and so on): `None` then. A request the
//! client answers with an error is `client_request_failed`.
//!
//! How a request reaches the client is the host's business: over MCP 2025-11-25 it is a
//! request of the server to the client; over MCP 2026-07-28 the call ends with the
//! requests and runs again with the client's answers (see `holon-mcp`). A request's
//! `key` names it within its call; the host numbers the requests that have none.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::host::context::ToolContext;
use crate::host::extract::FromToolContext;
use crate::result::ContentBlock;
use crate::result::error::{ToolError, ToolErrorKind};

/// The future a [`ClientPeer`] method returns.
pub type ClientFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, ToolError>> + Send + 'a>>;

/// What a host implements to let handlers reach the client that called.
pub trait ClientPeer: Send + Sync {
    /// Whether the client declared `capability` when it connected.
    fn supports(&self, capability: ClientCapability) -> bool;

    /// Sends a log message, unless the client asked for a higher minimum level.
    fn log(&self, message: LogMessage) -> ClientFuture<'_, ()>;

    /// Asks the client to sample a message from its model.
    fn create_message(&self, request: SamplingRequest) -> ClientFuture<'_, SamplingResponse>;

    /// Asks the client to ask its user for input of a schema.
    fn elicit(&self, request: ElicitationRequest) -> ClientFuture<'_, ElicitationResponse>;

    /// Asks the client for its roots (MCP `roots/list`). A host that cannot refuses.
    fn list_roots(&self, request: RootsRequest) -> ClientFuture<'_, Vec<Root>> {
        let _ = request;
        Box::pin(async {
            Err(ToolError::new(
                ToolErrorKind::CLIENT_CAPABILITY_MISSING,
                "this tool asks the client for its roots, and its host cannot ask for them",
            ))
        })
    }

    /// Told, before the handler runs, that the call will hand itself over to a task
    /// at a point of its choosing (the handler takes a [`TaskEscalation`]): a host
    /// that runs the call as a task (the MCP tasks extension) may then run it within
    /// the request until [`ClientPeer::escalate`]. Nothing by default.
    fn expect_escalation(&self) {}

    /// The call runs on as a task from here, where its host runs it as one: the
    /// host answers the request with the task's handle and the handler goes on in
    /// the background. Returns at once by default (the call simply goes on).
    fn escalate(&self) -> ClientFuture<'_, ()> {
        Box::pin(async { Ok(()) })
    }
}

/// A capability a client declares when it connects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClientCapability {
    /// `sampling`: the server may ask it for a completion.
    Sampling,
    /// `elicitation`: the server may ask it to ask its user.
    Elicitation,
    /// `roots`: the server may ask it for its roots.
    Roots,
}

impl ClientCapability {
    /// The capability's name on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Sampling => "sampling",
            Self::Elicitation => "elicitation",
            Self::Roots => "roots",
        }
    }
}

impl fmt::Display for ClientCapability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The severity of a log message, as syslog (RFC 5424) and MCP order them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// A warning.
    Warning,
    /// An error.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// One log message for the client.
#[derive(Debug, Clone, PartialEq)]
pub struct LogMessage {
    /// Its severity.
    pub level: LogLevel,
    /// The logger's name, when the handle was given one ([`ClientLog::with_logger`]).
    pub logger: Option<String>,
    /// The message: a string or any JSON value.
    pub data: Value,
}

/// A sampling request: the conversation to complete and how.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRequest {
    /// The conversation, oldest message first.
    pub messages: Vec<SamplingMessage>,
    /// The most tokens the reply may have.
    pub max_tokens: u32,
    /// A system prompt the client may use.
    pub system_prompt: Option<String>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Sequences that end the reply.
    pub stop_sequences: Vec<String>,
    /// The request's name within its call (see [`ElicitationRequest::key`]).
    pub key: Option<String>,
}

impl SamplingRequest {
    /// A request of one user message `text`, replied to in at most `max_tokens`.
    pub fn user_text(text: impl Into<String>, max_tokens: u32) -> Self {
        Self {
            messages: vec![SamplingMessage {
                role: Role::User,
                content: ContentBlock::Text { text: text.into() },
            }],
            max_tokens,
            system_prompt: None,
            temperature: None,
            stop_sequences: Vec::new(),
            key: None,
        }
    }

    /// Names the request within its call (see [`ElicitationRequest::key`]).
    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// One message of a sampling conversation: text, an image or audio.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: ContentBlock,
}

/// The client's reply to a sampling request.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingResponse {
    /// Who speaks (the model: `assistant`).
    pub role: Role,
    /// The reply.
    pub content: ContentBlock,
    /// The model that replied.
    pub model: String,
    /// Why it stopped (`endTurn`, `maxTokens`, ...), as the client says.
    pub stop_reason: Option<String>,
}

impl SamplingResponse {
    /// The reply's text, when it is text.
    pub fn text(&self) -> Option<&str> {
        match &self.content {
            ContentBlock::Text { text } => Some(text),
            _ => None,
        }
    }
}

/// An elicitation request: what to ask the user, and the form of the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationRequest {
    /// What the user is asked.
    pub message: String,
    /// The answer's schema: an object whose properties are strings, numbers,
    /// integers, booleans or enums (single- or multi-select), with defaults, as MCP
    /// restricts it. A client gets it as given; a host refuses one it cannot send.
    pub requested_schema: Map<String, Value>,
    /// The request's name within its call, unique in it: under MCP 2026-07-28, the key
    /// of its entry in the call's `inputRequests`. `None`: the host numbers it
    /// (`elicitation-1`, `elicitation-2`, ... in the order the handler asks).
    pub key: Option<String>,
}

impl ElicitationRequest {
    /// Asks `message`, the answer to follow `requested_schema`.
    pub fn new(message: impl Into<String>, requested_schema: Map<String, Value>) -> Self {
        Self {
            message: message.into(),
            requested_schema,
            key: None,
        }
    }

    /// Names the request within its call (see [`Self::key`]).
    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

/// A request for the client's roots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootsRequest {
    /// The request's name within its call (see [`ElicitationRequest::key`]).
    pub key: Option<String>,
}

/// One of the client's roots: a directory or file it lets servers work in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// Its URI (`file://...`).
    pub uri: String,
    /// Its name, when the client gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationResponse {
    /// The user answered; the content follows the requested schema.
    Accept(Map<String, Value>),
    /// The user said no.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

impl ElicitationResponse {
    /// The answer's action as MCP names it: `accept`, `decline` or `cancel`.
    pub fn action(&self) -> &'static str {
        match self {
            Self::Accept(_) => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
        }
    }
}

/// The client connection in a context's states.
struct ClientConnection(Arc<dyn ClientPeer>);

impl ToolContext {
    /// Attaches the client the call came from, which handlers reach through
    /// [`ClientLog`], [`Sampling`] and [`Elicitation`].
    pub fn with_client(self, client: Arc<dyn ClientPeer>) -> Self {
        self.with_state(ClientConnection(client))
    }

    fn client(&self, handle: &str) -> Result<&Arc<dyn ClientPeer>, ToolError> {
        match self.state::<ClientConnection>() {
            Ok(connection) => Ok(&connection.0),
            Err(_) => Err(ToolError::new(
                ToolErrorKind::CLIENT_UNAVAILABLE,
                format!(
                    "this tool takes a `{handle}` handle, and its host serves no client it could reach"
                ),
            )
            .with_hint("call the tool through the MCP server (`holon-tools serve`), whose clients it can reach")),
        }
    }

    fn client_with(
        &self,
        handle: &str,
        capability: ClientCapability,
    ) -> Result<Arc<dyn ClientPeer>, ToolError> {
        let client = self.client(handle)?;
        if !client.supports(capability) {
            return Err(ToolError::new(
                ToolErrorKind::CLIENT_CAPABILITY_MISSING,
                format!(
                    "this tool asks the client for {capability}, and the client did not declare the `{capability}` capability"
                ),
            )
            .with_hint(format!(
                "use a client that supports {capability}, or a tool that does not need it"
            ))
            .with_details(serde_json::json!({ "capability": capability.as_str() })));
        }
        Ok(client.clone())
    }
}

/// Logs to the client (MCP `notifications/message`). Sending never fails the tool: a
/// message the client cannot take is dropped.
#[derive(Clone)]
pub struct ClientLog {
    client: Arc<dyn ClientPeer>,
    logger: Option<String>,
}

impl ClientLog {
    /// Names the logger of the messages sent through this handle.
    pub fn with_logger(mut self, logger: impl Into<String>) -> Self {
        self.logger = Some(logger.into());
        self
    }

    /// Sends `data` at `level`.
    pub async fn log(&self, level: LogLevel, data: impl Into<Value>) {
        let message = LogMessage {
            level,
            logger: self.logger.clone(),
            data: data.into(),
        };
        // A lost log line is no reason to fail the work it describes.
        let _ = self.client.log(message).await;
    }

    /// Sends `data` at `debug`.
    pub async fn debug(&self, data: impl Into<Value>) {
        self.log(LogLevel::Debug, data).await;
    }

    /// Sends `data` at `info`.
    pub async fn info(&self, data: impl Into<Value>) {
        self.log(LogLevel::Info, data).await;
    }

    /// Sends `data` at `warning`.
    pub async fn warning(&self, data: impl Into<Value>) {
        self.log(LogLevel::Warning, data).await;
    }

    /// Sends `data` at `error`.
    pub async fn error(&self, data: impl Into<Value>) {
        self.log(LogLevel::Error, data).await;
    }
}

impl fmt::Debug for ClientLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientLog")
            .field("logger", &self.logger)
            .finish_non_exhaustive()
    }
}

impl<'a> FromToolContext<'a> for ClientLog {
    fn from_context(context: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(Self {
            client: context.client("ClientLog")?.clone(),
            logger: None,
        })
    }
}

/// Asks the client for a completion from its model (MCP `sampling/createMessage`).
#[derive(Clone)]
pub struct Sampling {
    client: Arc<dyn ClientPeer>,
}

impl Sampling {
    /// Sends `request` and waits for the reply.
    pub async fn create_message(
        &self,
        request: SamplingRequest,
    ) -> Result<SamplingResponse, ToolError> {
        self.client.create_message(request).await
    }
}

impl fmt::Debug for Sampling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sampling").finish_non_exhaustive()
    }
}

impl<'a> FromToolContext<'a> for Sampling {
    fn from_context(context: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(Self {
            client: context.client_with("Sampling", ClientCapability::Sampling)?,
        })
    }
}

impl<'a> FromToolContext<'a> for Option<Sampling> {
    fn from_context(context: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(Sampling::from_context(context).ok())
    }
}

/// The point from which a call runs as a task (MCP tasks extension, SEP-2663), for a
/// tool that first gathers input within the request: what the handler asks the
/// client before [`TaskEscalation::escalate`] is asked in the request (under MCP
/// 2026-07-28, as `InputRequiredResult` rounds); then the server answers with the
/// task's handle and the handler goes on in the task. Where the call does not run
/// as a task (no tasks extension, no MCP), `escalate` returns at once.
///
/// ```
/// use holon_core::prelude::*;
/// use holon_core::{Elicitation, TaskEscalation};
///
/// /// Asks what to build, then builds it in the background.
/// #[holon_tool(family = CoreAgent, task = required)]
/// async fn build(elicitation: Elicitation, task: TaskEscalation) -> Result<String, ToolError> {
///     let schema = serde_json::Map::new();
///     let answer = elicitation.ask("What shall I build?", schema).await?;
///     task.escalate().await?;
///     Ok(format!("built {}", answer.action()))
/// }
/// ```
#[derive(Clone)]
pub struct TaskEscalation {
    client: Option<Arc<dyn ClientPeer>>,
}

impl TaskEscalation {
    /// Hands the call over to its task, where it runs as one; returns once the
    /// handler goes on there.
    pub async fn escalate(&self) -> Result<(), ToolError> {
        match &self.client {
            Some(client) => client.escalate().await,
            None => Ok(()),
        }
    }
}

impl fmt::Debug for TaskEscalation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskEscalation").finish_non_exhaustive()
    }
}

impl<'a> FromToolContext<'a> for TaskEscalation {
    /// Never fails: without a client, there is no task to hand over to.
    fn from_context(context: &'a ToolContext) -> Result<Self, ToolError> {
        let client = context.client("TaskEscalation").ok().cloned();
        if let Some(client) = &client {
            client.expect_escalation();
        }
        Ok(Self { client })
    }
}

/// Asks the client to ask its user (MCP `elicitation/create`, form mode).
#[derive(Clone)]
pub struct Elicitation {
    client: Arc<dyn ClientPeer>,
}

impl Elicitation {
    /// Asks `message`, the answer to follow `requested_schema` (see
    /// [`ElicitationRequest::requested_schema`]), and waits for the user.
    pub async fn ask(
        &self,
        message: impl Into<String>,
        requested_schema: Map<String, Value>,
    ) -> Result<ElicitationResponse, ToolError> {
        self.client
            .elicit(ElicitationRequest::new(message, requested_schema))
            .await
    }

    /// Sends `request` (a named one, say) and waits for the user.
    pub async fn request(
        &self,
        request: ElicitationRequest,
    ) -> Result<ElicitationResponse, ToolError> {
        self.client.elicit(request).await
    }
}

impl fmt::Debug for Elicitation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Elicitation").finish_non_exhaustive()
    }
}

impl<'a> FromToolContext<'a> for Elicitation {
    fn from_context(context: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(Self {
            client: context.client_with("Elicitation", ClientCapability::Elicitation)?,
        })
    }
}

impl<'a> FromToolContext<'a> for Option<Elicitation> {
    fn from_context(context: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(Elicitation::from_context(context).ok())
    }
}

/// Asks the client for its roots (MCP `roots/list`).
#[derive(Clone)]
pub struct Roots {
    client: Arc<dyn ClientPeer>,
}

impl Roots {
    /// The client's roots.
    pub async fn list(&self) -> Result<Vec<Root>, ToolError> {
        self.client.list_roots(RootsRequest::default()).await
    }

    /// The client's roots, asked under a name (see [`ElicitationRequest::key`]).
    pub async fn list_as(&self, key: impl Into<String>) -> Result<Vec<Root>, ToolError> {
        let request = RootsRequest {
            key: Some(key.into()),
        };
        self.client.list_roots(request).await
    }
}

impl fmt::Debug for Roots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Roots").finish_non_exhaustive()
    }
}

impl<'a> FromToolContext<'a> for Roots {
    fn from_context(context: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(Self {
            client: context.client_with("Roots", ClientCapability::Roots)?,
        })
    }
}

impl<'a> FromToolContext<'a> for Option<Roots> {
    fn from_context(context: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(Roots::from_context(context).ok())
    }
}
