//! What a host serves beside its tools: resources, prompts and completion, through an
//! rmcp [`ServerHandler`] of its own (see [`McpServer::with_handler`](crate::McpServer::with_handler)),
//! and the notifications of their changes on a 2026-07-28 `subscriptions/listen` stream.
//!
//! rmcp's handler trait returns `impl Future`, which a trait object cannot: this is
//! the part of it the server delegates, boxed.

use std::future::Future;
use std::pin::Pin;

use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, SubscribeRequestParams,
    SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

/// The future of a delegated request.
pub(crate) type Answer<'a, T> = Pin<Box<dyn Future<Output = Result<T, ErrorData>> + Send + 'a>>;

/// The requests a host's handler answers beside the tools.
pub(crate) trait Extras: Send + Sync {
    /// The capabilities the handler declares (its resources, prompts, completions).
    fn capabilities(&self) -> ServerCapabilities;
    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ListResourcesResult>;
    fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ListResourceTemplatesResult>;
    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ReadResourceResponse>;
    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ()>;
    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ()>;
    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ListPromptsResult>;
    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, GetPromptResponse>;
    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, CompleteResult>;
    /// What of `requested` the handler delivers on a `subscriptions/listen` stream
    /// (`None`: it delivers nothing, and the method is not found).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter>;
    /// Runs one subscription until the client ends it.
    fn listen(&self, context: SubscriptionContext) -> Answer<'_, ()>;
}

// rmcp marks resource subscriptions legacy for 2026-07-28; 2025-11-25 has them.
#[allow(deprecated)]
impl<H: ServerHandler + 'static> Extras for H {
    fn capabilities(&self) -> ServerCapabilities {
        self.get_info().capabilities
    }

    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ListResourcesResult> {
        Box::pin(ServerHandler::list_resources(self, request, context))
    }

    fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ListResourceTemplatesResult> {
        Box::pin(ServerHandler::list_resource_templates(
            self, request, context,
        ))
    }

    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ReadResourceResponse> {
        Box::pin(ServerHandler::read_resource(self, request, context))
    }

    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ()> {
        Box::pin(ServerHandler::subscribe(self, request, context))
    }

    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ()> {
        Box::pin(ServerHandler::unsubscribe(self, request, context))
    }

    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, ListPromptsResult> {
        Box::pin(ServerHandler::list_prompts(self, request, context))
    }

    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, GetPromptResponse> {
        Box::pin(ServerHandler::get_prompt(self, request, context))
    }

    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Answer<'_, CompleteResult> {
        Box::pin(ServerHandler::complete(self, request, context))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        ServerHandler::accepted_subscription_filter(self, requested)
    }

    fn listen(&self, context: SubscriptionContext) -> Answer<'_, ()> {
        Box::pin(ServerHandler::listen(self, context))
    }
}
