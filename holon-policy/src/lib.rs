//! What a host lets a model run without asking: a policy of rules that answer each
//! call `allow`, `ask` or `deny`, and the approvals that resolve an `ask`.
//!
//! The dispatcher consults the policy of a context that has [`Approvals`] (see
//! [`WithApprovals::with_approvals`]) on every call, after the lookup and the family
//! gate:
//!
//! - `allow`: the call runs as it would without a policy;
//! - `deny`: the call is refused with `policy_denied`, and nothing runs;
//! - `ask`: nothing runs; the call is stored as a [`PendingCall`] in the
//!   [`ApprovalStore`] and the caller gets a `deferred` envelope whose structured
//!   part has `kind: "approval_required"`, the approval id, what will run and why.
//!
//! The operator then decides with a [`SignedDecision`]: an HMAC-SHA-256, under the
//! [`OperatorKey`], of the approval id, the SHA-256 of the call's canonical arguments,
//! the principal, an expiry, the verdict and the [`CallSite`] the call was asked at
//! (workspace root and state directory). [`Approvals::decide`] checks it and runs
//! the stored call exactly once, at that site only (approve) or returns an `approval_denied` refusal
//! carrying the operator's message (deny). Approving is never a tool: a model reaches
//! none of it.

pub mod audit;
mod gate;
mod keys;
mod pending;
mod rules;
pub(crate) mod signing;
mod site;

pub use gate::{Approvals, DEFAULT_APPROVAL_TTL, DecidedBy, WithApprovals};
pub use holon_core::{ApprovalRequired, Decision};
pub use keys::{KeyRefusal, KeyringError, OperatorKeySource, OperatorKeyring};
pub use pending::{
    ApprovalState, ApprovalStore, ApprovalStoreError, MemoryApprovalStore, PendingCall,
};
pub use rules::{AnnotationMatch, ApprovalPolicy, CallFacts, Evaluation, Rule, Verdict};
pub use signing::{OperatorKey, SignedDecision, Standing, arguments_digest, canonical_arguments};
pub use site::{CallSite, CallSiteSource, DirIdentity};
