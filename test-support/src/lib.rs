//! What the workspace's tests and benches share, so that no test file hand-builds it
//! again: MCP `initialize` requests per protocol revision ([`initialize`]), an MCP
//! client of a server process on stdio ([`stdio`]), the address an HTTP server
//! process prints ([`process`]), an MCP client over streamable HTTP (`http`, feature
//! `http`), a loopback HTTP server for a test that needs a service (`loopback`,
//! feature `http`), a throw-away PostgreSQL and a proxy that counts the round trips
//! to it (`postgres`, `wire`, feature `postgres`) and the
//! quantiles a latency bench reports ([`latency`]), and whether a bench runs as a test
//! ([`bench::test_mode`]).
//!
//! A dev-dependency only: it panics on what a test did not expect, which is how a
//! test fails. It depends on no holon crate, so every holon crate can use it without
//! building a second copy of itself.

// Test scaffolding starts processes, listens on loopback and makes files: the effects
// the gates confine everywhere else (`tests/tests/effect_gates.rs` lists this file).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

pub mod bench;
#[cfg(feature = "http")]
pub mod http;
pub mod initialize;
pub mod latency;
#[cfg(feature = "http")]
pub mod loopback;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod process;
pub mod stdio;
#[cfg(feature = "postgres")]
pub mod wire;
