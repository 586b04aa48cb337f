//! A call's requests to its client under MCP 2026-07-28: the multi-round
//! `InputRequiredResult` (SEP-2322), behind the same [`ClientPeer`] a handler reaches
//! over 2025-11-25, so that its code does not change.
//!
//! The revision has no server-to-client requests. A call whose handler asks the client
//! (elicitation, sampling, roots) and has no answer yet ends with an
//! `InputRequiredResult` naming every request the handler made at that point (those it
//! makes together, as with `join!`, come in one round); the client answers them and
//! calls again with `inputResponses` and the `requestState` it was given. The handler
//! then runs again from its start, and each request it makes is answered from what the
//! client answered in this round and the rounds before (carried, sealed, in the
//! `requestState`), until it finishes or asks something new. So a handler's work
//! before its requests runs once per round: it must be safe to repeat.
//!
//! A request's key is the name the handler gave it, else its kind and rank
//! (`elicitation-1`, `sampling-1`, `roots-1`, ...) in the order the handler asks, the
//! same every round. An answer that does not parse is asked again; an answer to a key
//! the handler does not ask is ignored.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use holon_core::{
    ClientCapability, ClientFuture, ClientPeer, ElicitationRequest, ElicitationResponse,
    LogMessage, Root, RootsRequest, SamplingRequest, SamplingResponse, ToolError,
};
use rmcp::model::{
    InputRequest, InputRequests, InputRequiredResult, InputResponses, RequestStateError,
    SealOptions,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::client::{self, unsendable};

/// How long a `requestState` may be echoed back.
const STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// The kinds of request a handler makes, as their default keys name them.
#[derive(Clone, Copy)]
enum Kind {
    Elicitation,
    Sampling,
    Roots,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Self::Elicitation => "elicitation",
            Self::Sampling => "sampling",
            Self::Roots => "roots",
        }
    }
}

/// What the rounds so far carry: the client's answers the handler used, by key.
#[derive(Default, Serialize, Deserialize)]
struct RoundState {
    answers: BTreeMap<String, Value>,
}

/// The seal on the `requestState`: the server's keyring.
pub(crate) type StateSeal = crate::keyring::live::LiveKeyring;

/// The call a `requestState` belongs to: its method, tool and arguments, and who made
/// it, so that a state cannot be replayed onto another call or by another principal.
pub(crate) fn binding(tool: &str, arguments: &Value, principal: Option<&str>) -> Vec<u8> {
    json!(["tools/call", tool, arguments, principal])
        .to_string()
        .into_bytes()
}

/// Why a call's `inputResponses` or `requestState` cannot be used.
#[derive(Debug)]
pub(crate) struct BadState(pub(crate) String);

/// Why a sealed `requestState` was refused, and what the client does about it.
fn refusal(error: &RequestStateError) -> String {
    match error {
        RequestStateError::UnknownKeyId => "the requestState was sealed by a key that was \
            rotated out (or that this server never had); call again without it to start \
            over, and answer what it asks again"
            .to_string(),
        error => format!(
            "the requestState is not one this server gave for this call ({error}); \
             call again without it to start over"
        ),
    }
}

/// The client of one call under 2026-07-28: answers from the client's responses, and
/// collects the requests it has no answer for.
pub(crate) struct InputRounds {
    /// Logging and capabilities: the request's own.
    inner: client::McpClient,
    /// What the client answered: in the rounds before and in this one.
    answers: BTreeMap<String, Value>,
    round: Mutex<Round>,
    asked: Notify,
}

#[derive(Default)]
struct Round {
    /// How many requests of each kind the handler made (for their default keys).
    counts: [u32; 3],
    /// The requests without an answer.
    pending: InputRequests,
    /// The answers the handler used.
    used: BTreeMap<String, Value>,
}

/// How a call ended: with its result, or asking the client.
pub(crate) enum Outcome<T> {
    /// The handler finished.
    Done(T),
    /// The handler asked what the client has not answered.
    InputRequired(InputRequiredResult),
}

impl InputRounds {
    /// The client of a call whose request brought `request_state` (sealed by `seal`
    /// for `binding`) and `responses`.
    pub(crate) fn open(
        inner: client::McpClient,
        seal: &StateSeal,
        binding: &[u8],
        request_state: Option<&str>,
        responses: Option<InputResponses>,
    ) -> Result<Self, BadState> {
        let mut answers = match request_state {
            Some(sealed) => {
                seal.open_json_with::<RoundState>(sealed, binding)
                    .map_err(|error| BadState(refusal(&error)))?
                    .answers
            }
            None => BTreeMap::new(),
        };
        answers.extend(responses.unwrap_or_default());
        Ok(Self {
            inner,
            answers,
            round: Mutex::default(),
            asked: Notify::new(),
        })
    }

    /// Runs `call` (the dispatch of a call whose client is `self`) until it finishes,
    /// or until it waits on requests the client has not answered, sealing the answers
    /// it used with `seal` for `binding`.
    pub(crate) async fn run<T>(
        &self,
        call: impl Future<Output = T>,
        seal: &StateSeal,
        binding: &[u8],
    ) -> Outcome<T> {
        tokio::pin!(call);
        // The handler is polled first: the requests it makes in one poll (joined
        // requests) are all pending when the notification is seen.
        tokio::select! {
            biased;
            result = &mut call => return Outcome::Done(result),
            () = self.asked() => {}
        }
        Outcome::InputRequired(self.input_required(seal, binding))
    }

    /// Resolves once the handler waits on a request the client has not answered.
    pub(crate) async fn asked(&self) {
        self.asked.notified().await;
    }

    /// The round's end: the requests without an answer, and the answers the handler
    /// used sealed with `seal` for `binding` as the `requestState`.
    pub(crate) fn input_required(&self, seal: &StateSeal, binding: &[u8]) -> InputRequiredResult {
        let round = std::mem::take(&mut *self.lock());
        let state = RoundState {
            answers: round.used,
        };
        let options = SealOptions::new().associated_data(binding).ttl(STATE_TTL);
        let sealed = seal
            .seal_json_with(&state, &options)
            .expect("the answers are JSON values, which serialize");
        InputRequiredResult::new(Some(round.pending), Some(sealed))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Round> {
        self.round.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The answer to the request `key` (of `kind`, named `key` by the handler or
    /// numbered), read by `read`; else the request is pending and this never returns.
    async fn answer<T>(
        &self,
        kind: Kind,
        key: Option<String>,
        request: impl FnOnce() -> Result<InputRequest, ToolError>,
        read: impl FnOnce(&Value) -> Result<T, ToolError>,
    ) -> Result<T, ToolError> {
        let key = {
            let mut round = self.lock();
            let count = &mut round.counts[kind as usize];
            *count += 1;
            key.unwrap_or_else(|| format!("{}-{count}", kind.name()))
        };
        if let Some(answer) = self.answers.get(&key)
            && let Ok(value) = read(answer)
        {
            self.lock().used.insert(key, answer.clone());
            return Ok(value);
        }
        let request = request()?;
        self.lock().pending.insert(key, request);
        self.asked.notify_one();
        // The call ends here: `run` drops it and answers with the requests.
        std::future::pending().await
    }
}

/// An input request of `method` with `params`, in MCP's wire form.
fn input_request(what: &str, method: &str, params: Value) -> Result<InputRequest, ToolError> {
    serde_json::from_value(json!({ "method": method, "params": params }))
        .map_err(|error| unsendable(what, error))
}

impl ClientPeer for InputRounds {
    fn supports(&self, capability: ClientCapability) -> bool {
        self.inner.supports(capability)
    }

    fn log(&self, message: LogMessage) -> ClientFuture<'_, ()> {
        self.inner.log(message)
    }

    fn create_message(&self, request: SamplingRequest) -> ClientFuture<'_, SamplingResponse> {
        Box::pin(async move {
            let key = request.key.clone();
            let params = client::sampling_params(&request)?;
            self.answer(
                Kind::Sampling,
                key,
                || input_request("sampling", "sampling/createMessage", params),
                client::sampling_response,
            )
            .await
        })
    }

    fn elicit(&self, request: ElicitationRequest) -> ClientFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            let params = client::elicitation_params(&request);
            self.answer(
                Kind::Elicitation,
                request.key,
                || input_request("elicitation", "elicitation/create", params),
                client::elicitation_response,
            )
            .await
        })
    }

    fn list_roots(&self, request: RootsRequest) -> ClientFuture<'_, Vec<Root>> {
        Box::pin(async move {
            self.answer(
                Kind::Roots,
                request.key,
                || input_request("roots", "roots/list", json!({})),
                client::roots_response,
            )
            .await
        })
    }
}
